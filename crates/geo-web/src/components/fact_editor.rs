//! The fact editor (`fact-editor`): a project's fact sheet — the facts about the brand and
//! its competitors that answers are checked against, and the watch terms — edited as text
//! (`crate::fact_draft`) and handed to the page to save when geo-core's rules accept it.
//!
//! A problem shows beside its field (`fact-problem`, the field named by `aria-describedby`)
//! once the fact was edited or a save was tried; a refused save says how many there are and
//! moves the focus to the first. The draft follows the stored project when it changes (a
//! save here or elsewhere) unless it holds edits not saved yet.

use crate::fact_draft::{FactDraft, Field, FieldProblem, SheetDraft};
use crate::hooks::{field_value, focus, use_app, use_focus_after_render};
use crate::i18n::{t, tf};
use geo_core::model::{Currency, FactKind, FactSnapshot, Lang, Project, Target};
use std::rc::Rc;
use yew::prelude::*;

/// Props of [`FactEditor`].
#[derive(Properties, PartialEq)]
pub struct FactEditorProps {
    /// The stored project whose sheet is edited.
    pub project: Project,
    /// Saves the checked sheet into the project.
    pub on_save: Callback<FactSnapshot>,
}

/// The editor's state: the draft, what was last loaded from the project, and which problems
/// to show.
#[derive(Debug, Clone, PartialEq, Default)]
struct EditorState {
    project_id: String,
    draft: SheetDraft,
    loaded: SheetDraft,
    /// Ids of the facts edited since loading (their problems show).
    touched: Vec<String>,
    watch_touched: bool,
    /// A save was tried: every problem shows.
    attempted: bool,
}

/// One text field of a fact.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Text {
    Label,
    Cues,
    Value,
    Tolerance,
    Accepted,
    Rejected,
}

enum Edit {
    /// The stored project (its id and sheet) as it is now.
    Load(String, SheetDraft),
    Text(usize, Text, String),
    Kind(usize, FactKind),
    Currency(usize, Currency),
    Target(usize, String),
    Add(FactDraft),
    Remove(usize),
    Watch(String),
    Attempted,
}

impl Reducible for EditorState {
    type Action = Edit;

    fn reduce(self: Rc<Self>, action: Edit) -> Rc<Self> {
        let mut s = (*self).clone();
        if let Edit::Load(id, sheet) = action {
            // The draft follows the store unless it holds unsaved edits; a draft equal to
            // what was just saved is not an unsaved edit.
            let clean = s.draft == s.loaded || s.draft.read() == sheet.read();
            if id != s.project_id || clean {
                return Rc::new(EditorState {
                    project_id: id,
                    draft: sheet.clone(),
                    loaded: sheet,
                    ..Default::default()
                });
            }
            s.loaded = sheet;
            return Rc::new(s);
        }
        let touch = |s: &mut EditorState, i: usize| {
            if let Some(id) = s.draft.facts.get(i).map(|f| f.id.clone()) {
                if !s.touched.contains(&id) {
                    s.touched.push(id);
                }
            }
        };
        match action {
            Edit::Load(..) => {}
            Edit::Text(i, field, value) => {
                touch(&mut s, i);
                if let Some(f) = s.draft.facts.get_mut(i) {
                    *match field {
                        Text::Label => &mut f.label,
                        Text::Cues => &mut f.cues,
                        Text::Value => &mut f.value,
                        Text::Tolerance => &mut f.tolerance,
                        Text::Accepted => &mut f.accepted,
                        Text::Rejected => &mut f.rejected,
                    } = value;
                }
            }
            Edit::Kind(i, kind) => {
                touch(&mut s, i);
                if let Some(f) = s.draft.facts.get_mut(i) {
                    f.kind = kind;
                }
            }
            Edit::Currency(i, c) => {
                if let Some(f) = s.draft.facts.get_mut(i) {
                    f.currency = c;
                }
            }
            Edit::Target(i, id) => {
                touch(&mut s, i);
                if let Some(f) = s.draft.facts.get_mut(i) {
                    f.target_id = id;
                }
            }
            Edit::Add(f) => s.draft.facts.push(f),
            Edit::Remove(i) => {
                if i < s.draft.facts.len() {
                    s.draft.facts.remove(i);
                }
            }
            Edit::Watch(text) => {
                s.watch_touched = true;
                s.draft.watch_terms = text;
            }
            Edit::Attempted => s.attempted = true,
        }
        Rc::new(s)
    }
}

/// The element id of fact `i`'s `field` input, and of its problem (`…-problem`).
fn field_id(i: usize, field: Field) -> String {
    format!("fact-{i}-{}", if field == Field::Fact { "fact" } else { field.as_str() })
}

/// A select of a fact: its field, test id, label key, `(value, text)` options and the
/// chosen value.
struct Choice<'a> {
    field: Field,
    testid: &'static str,
    label: &'static str,
    options: Vec<(String, String)>,
    value: &'a str,
}

/// What every fact row reads.
struct Row<'a> {
    lang: Lang,
    targets: &'a [Target],
    problems: &'a [FieldProblem],
    dispatch: &'a UseReducerDispatcher<EditorState>,
    /// Where the focus goes after the next render (a removed fact's button is gone).
    focus_next: &'a Rc<std::cell::RefCell<Option<String>>>,
}

impl Row<'_> {
    /// The problem of fact `i`'s `field` shown beside it, if any.
    fn problem(&self, i: usize, field: Field) -> Option<&FieldProblem> {
        self.problems.iter().find(|p| p.fact == Some(i) && p.field == field)
    }

    fn problem_view(&self, i: usize, field: Field) -> Html {
        match self.problem(i, field) {
            Some(p) => html! {
                <p class="field-error" id={format!("{}-problem", field_id(i, field))} data-testid="fact-problem"
                    data-field={field.as_str()}>{ p.message.get(self.lang).to_string() }</p>
            },
            None => html! {},
        }
    }

    /// `aria-invalid` and `aria-describedby` of fact `i`'s `field`.
    fn aria(&self, i: usize, field: Field) -> (Option<&'static str>, Option<String>) {
        match self.problem(i, field) {
            Some(_) => (Some("true"), Some(format!("{}-problem", field_id(i, field)))),
            None => (None, None),
        }
    }

    /// A labelled text input or text area (`area`) of fact `i`.
    fn text(&self, i: usize, f: &FactDraft, which: Text, field: Field, label: String, area: bool) -> Html {
        let value = match which {
            Text::Label => &f.label,
            Text::Cues => &f.cues,
            Text::Value => &f.value,
            Text::Tolerance => &f.tolerance,
            Text::Accepted => &f.accepted,
            Text::Rejected => &f.rejected,
        }
        .clone();
        let testid = match which {
            Text::Label => "fact-label",
            Text::Cues => "fact-cues",
            Text::Value => "fact-value",
            Text::Tolerance => "fact-tolerance",
            Text::Accepted => "fact-accepted",
            Text::Rejected => "fact-rejected",
        };
        let dispatch = self.dispatch.clone();
        let oninput = Callback::from(move |e: InputEvent| dispatch.dispatch(Edit::Text(i, which, field_value(&e))));
        let (invalid, described) = self.aria(i, field);
        let numeric = matches!(which, Text::Value | Text::Tolerance);
        html! {
            <label class="field">
                <span class="label-text">{ label }</span>
                if area {
                    <textarea rows="2" id={field_id(i, field)} data-testid={testid} {value} {oninput}
                        aria-invalid={invalid} aria-describedby={described} />
                } else {
                    <input type="text" id={field_id(i, field)} data-testid={testid} {value} {oninput}
                        inputmode={numeric.then_some("decimal")} aria-invalid={invalid} aria-describedby={described} />
                }
                { self.problem_view(i, field) }
            </label>
        }
    }

    /// A labelled select of fact `i`.
    fn select(&self, i: usize, c: Choice<'_>, on: Callback<String>) -> Html {
        let (invalid, described) = self.aria(i, c.field);
        let value = c.value;
        html! {
            <label class="field">
                <span class="label-text">{ t(self.lang, c.label) }</span>
                <select id={field_id(i, c.field)} data-testid={c.testid} aria-invalid={invalid} aria-describedby={described}
                    onchange={on.reform(|e: Event| field_value(&e))}>
                    { for c.options.into_iter().map(|(v, text)| html! { <option selected={v == value} value={v.clone()}>{ text }</option> }) }
                </select>
                { self.problem_view(i, c.field) }
            </label>
        }
    }

    /// One fact: its fields by kind, its problems, and a remove button.
    fn fact(&self, i: usize, f: &FactDraft) -> Html {
        let lang = self.lang;
        let n = (i + 1).to_string();
        let mut targets: Vec<(String, String)> = self.targets.iter().map(|t| (t.id.clone(), t.label.clone())).collect();
        if !self.targets.iter().any(|t| t.id == f.target_id) {
            targets.push((f.target_id.clone(), tf(lang, "facts.unknown_target", &[("id", &f.target_id)])));
        }
        let kinds = FactKind::ALL.iter().map(|k| (k.as_str().to_string(), t(lang, kind_key(*k)).to_string())).collect();
        let currencies = Currency::ALL.iter().map(|c| (c.as_str().to_string(), c.as_str().to_string())).collect();
        let d = self.dispatch.clone();
        let on_target = Callback::from(move |v: String| d.dispatch(Edit::Target(i, v)));
        let d = self.dispatch.clone();
        let on_kind = Callback::from(move |v: String| {
            if let Some(k) = FactKind::parse(&v) {
                d.dispatch(Edit::Kind(i, k));
            }
        });
        let d = self.dispatch.clone();
        let on_currency = Callback::from(move |v: String| {
            if let Some(c) = Currency::parse(&v) {
                d.dispatch(Edit::Currency(i, c));
            }
        });
        let (d, focus_next) = (self.dispatch.clone(), self.focus_next.clone());
        let remove = Callback::from(move |_: MouseEvent| {
            *focus_next.borrow_mut() = Some("[data-testid=\"fact-add\"]".to_string());
            d.dispatch(Edit::Remove(i));
        });
        let value_label = match f.kind {
            FactKind::Year => "facts.value_year",
            FactKind::Money => "facts.value_money",
            _ => "facts.value",
        };
        let title =
            if f.label.trim().is_empty() { tf(lang, "facts.n", &[("n", &n)]) } else { f.label.trim().to_string() };
        html! {
            <fieldset class="fact" data-testid="fact-row" data-id={f.id.clone()} data-kind={f.kind.as_str()}>
                <legend>{ title.clone() }</legend>
                { self.problem_view(i, Field::Fact) }
                <div class="two">
                    { self.text(i, f, Text::Label, Field::Label, t(lang, "facts.label").to_string(), false) }
                    { self.select(i, Choice { field: Field::Target, testid: "fact-target", label: "facts.target", options: targets, value: &f.target_id }, on_target) }
                    { self.select(i, Choice { field: Field::Kind, testid: "fact-kind", label: "facts.kind", options: kinds, value: f.kind.as_str() }, on_kind) }
                    { self.text(i, f, Text::Cues, Field::Cues, t(lang, "facts.cues").to_string(), true) }
                    if f.kind == FactKind::Text {
                        { self.text(i, f, Text::Accepted, Field::Accepted, t(lang, "facts.accepted").to_string(), true) }
                        { self.text(i, f, Text::Rejected, Field::Rejected, t(lang, "facts.rejected").to_string(), true) }
                    } else {
                        { self.text(i, f, Text::Value, Field::Value, t(lang, value_label).to_string(), false) }
                    }
                    if f.kind == FactKind::Money {
                        { self.select(i, Choice { field: Field::Currency, testid: "fact-currency", label: "facts.currency", options: currencies, value: f.currency.as_str() }, on_currency) }
                    }
                    if matches!(f.kind, FactKind::Number | FactKind::Money) {
                        { self.text(i, f, Text::Tolerance, Field::Tolerance, t(lang, "facts.tolerance").to_string(), false) }
                    }
                </div>
                <button type="button" class="secondary" data-testid="fact-remove" onclick={remove}
                    aria-label={tf(lang, "facts.remove_n", &[("n", &title)])}>{ t(lang, "facts.remove") }</button>
            </fieldset>
        }
    }
}

/// The interface-text key of a kind's name.
fn kind_key(kind: FactKind) -> &'static str {
    match kind {
        FactKind::Year => "facts.kind_year",
        FactKind::Number => "facts.kind_number",
        FactKind::Money => "facts.kind_money",
        FactKind::Text => "facts.kind_text",
    }
}

/// `fact-editor`: the project's fact sheet and watch terms, saved with `fact-save`.
#[function_component]
pub fn FactEditor(props: &FactEditorProps) -> Html {
    let lang = use_app().lang;
    let state = use_reducer(EditorState::default);
    {
        let dispatch = state.dispatcher();
        let p = &props.project;
        let key = (p.id.clone(), p.facts.clone(), p.watch_terms.clone());
        let sheet = SheetDraft::from_project(p);
        use_effect_with(key, move |(id, _, _)| dispatch.dispatch(Edit::Load(id.clone(), sheet)));
    }
    let targets = props.project.targets();
    let checked = state.draft.check(&targets);
    let problems: Vec<FieldProblem> = checked.as_ref().err().cloned().unwrap_or_default();
    // What shows: every problem after a save was tried, else those of edited facts.
    let shown: Vec<FieldProblem> = problems
        .iter()
        .filter(|p| {
            state.attempted
                || match p.fact {
                    Some(i) => state.draft.facts.get(i).is_some_and(|f| state.touched.contains(&f.id)),
                    None => state.watch_touched,
                }
        })
        .cloned()
        .collect();
    let focus_next = use_focus_after_render();
    let on_add = {
        let (dispatch, focus_next) = (state.dispatcher(), focus_next.clone());
        let (brand, index) = (props.project.brand.id.clone(), state.draft.facts.len());
        Callback::from(move |_: MouseEvent| {
            dispatch.dispatch(Edit::Add(FactDraft::new(crate::web::new_id("fact"), brand.clone())));
            *focus_next.borrow_mut() = Some(format!("#{}", field_id(index, Field::Label)));
        })
    };
    let on_submit = {
        let (dispatch, on_save) = (state.dispatcher(), props.on_save.clone());
        let result = checked.clone();
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            dispatch.dispatch(Edit::Attempted);
            match &result {
                Ok(sheet) => on_save.emit(sheet.clone()),
                Err(problems) => {
                    if let Some(p) = problems.first() {
                        let id = match p.fact {
                            Some(i) if p.field != Field::Fact => field_id(i, p.field),
                            Some(i) => field_id(i, Field::Label),
                            None => "watch-terms".to_string(),
                        };
                        focus(&format!("#{id}"));
                    }
                }
            }
        })
    };
    let on_watch = {
        let dispatch = state.dispatcher();
        Callback::from(move |e: InputEvent| dispatch.dispatch(Edit::Watch(field_value(&e))))
    };
    let dispatch = state.dispatcher();
    let row = Row { lang, targets: &targets, problems: &shown, dispatch: &dispatch, focus_next: &focus_next };
    let sheet_problems: Vec<&FieldProblem> = shown.iter().filter(|p| p.fact.is_none()).collect();
    let watch_problem = sheet_problems.iter().find(|p| p.field == Field::WatchTerms);
    html! {
        <form class="card fact-editor" data-testid="fact-editor" onsubmit={on_submit} aria-labelledby="facts-heading" novalidate=true>
            <h2 id="facts-heading">{ t(lang, "facts.title") }</h2>
            <p class="muted">{ t(lang, "facts.help") }</p>
            if state.draft.facts.is_empty() {
                <p class="muted" data-testid="fact-empty">{ t(lang, "facts.empty") }</p>
            }
            { for state.draft.facts.iter().enumerate().map(|(i, f)| row.fact(i, f)) }
            <button type="button" class="secondary" data-testid="fact-add" onclick={on_add}>{ t(lang, "facts.add") }</button>
            <label class="field">
                <span class="label-text">{ t(lang, "facts.watch") }</span>
                <textarea rows="3" id="watch-terms" data-testid="watch-terms" value={state.draft.watch_terms.clone()} oninput={on_watch}
                    aria-invalid={watch_problem.map(|_| "true")} aria-describedby={watch_problem.map(|_| "watch-terms-problem")} />
                if let Some(p) = watch_problem {
                    <p class="field-error" id="watch-terms-problem" data-testid="fact-problem" data-field="watchTerms">{ p.message.get(lang).to_string() }</p>
                }
            </label>
            { for sheet_problems.iter().filter(|p| p.field == Field::Sheet).map(|p| html! {
                <p class="field-error" data-testid="fact-problem" data-field="">{ p.message.get(lang).to_string() }</p>
            }) }
            if state.attempted && !problems.is_empty() {
                <p class="error-box" role="alert" data-testid="fact-refused">
                    { match problems.len() {
                        1 => t(lang, "facts.refused_one").to_string(),
                        n => tf(lang, "facts.refused", &[("n", &n.to_string())]),
                    } }</p>
            }
            <button type="submit" data-testid="fact-save">{ t(lang, "facts.save") }</button>
        </form>
    }
}
