//! Projects: create and edit the brand and its competitors (label, aliases and domains one
//! per line), its fact sheet and watch terms (`components::fact_editor`), add prompts with
//! tags one by one or pasted in bulk, delete with confirmation.
//!
//! The editor shows the selected project; "new project" switches it to an empty draft.
//! Saving makes the project the current one everywhere (header, dashboard, run page), keeps
//! the editor on it and opens its prompt list; deleting the current project selects another
//! one (the header's selector does that when the list changes).

use crate::components::fact_editor::FactEditor;
use crate::components::{ConfirmDialog, EmptyState};
use crate::draft::{new_prompts, tag_label, ProjectDraft, TargetDraft};
use crate::hooks::{field_value, report, set_on_input, toast, use_app, use_focus_after_render, use_query, Fetch};
use crate::i18n::{t, tf};
use crate::prefs;
use crate::repo::Repository;
use crate::state::{Action, AppHandle, ToastKind};
use crate::web::{new_id, now_iso, now_iso_plus};
use geo_core::model::{tags, FactSnapshot, Lang, Project, Prompt};
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::JsCast;
use web_sys::HtmlSelectElement;
use yew::prelude::*;

/// What the confirmation dialog is about.
#[derive(Debug, Clone, PartialEq)]
enum Pending {
    DeleteProject { id: String, name: String },
    DeletePrompt { id: String },
}

/// The projects page.
#[function_component]
pub fn ProjectsPage() -> Html {
    let app = use_app();
    let lang = app.lang;
    let creating = use_state(|| false);
    let draft = use_state(ProjectDraft::default);
    let pending = use_state(|| None::<Pending>);
    let projects = use_query((), |repo, _| async move {
        let projects = repo.list_projects().await?;
        let mut counts = Vec::with_capacity(projects.len());
        for p in &projects {
            counts.push(repo.prompts_by_project(&p.id).await?.len());
        }
        Ok(projects.into_iter().zip(counts).collect::<Vec<(Project, usize)>>())
    });
    // The project just saved, until the list is read again: the editor stays on it (and its
    // prompts editor opens) without waiting for that read.
    let just_saved = use_state(|| None::<Project>);
    let selected: Option<Project> = projects
        .ready()
        .and_then(|list| list.iter().find(|(p, _)| Some(&p.id) == app.project_id.as_ref()).map(|(p, _)| p.clone()))
        .or_else(|| (*just_saved).clone().filter(|p| Some(&p.id) == app.project_id.as_ref()));

    use_load_draft(&draft, selected.as_ref(), *creating);

    let on_new = {
        let (creating, draft) = (creating.clone(), draft.clone());
        Callback::from(move |_: MouseEvent| {
            creating.set(true);
            draft.set(ProjectDraft::default());
        })
    };
    let focus_next = use_focus_after_render();
    let on_save = save_project(&app, &draft, &creating, selected.as_ref(), &just_saved, &focus_next);
    let on_save_facts = save_facts(&app, selected.as_ref(), &just_saved);
    let on_confirm = delete_confirmed(&app, &pending);
    let on_cancel = {
        let pending = pending.clone();
        Callback::from(move |_| pending.set(None))
    };
    let ask = {
        let pending = pending.clone();
        Callback::from(move |p: Pending| pending.set(Some(p)))
    };

    let list = match &projects {
        Fetch::Ready(list) if list.is_empty() && !*creating => html! {
            <EmptyState text={t(lang, "projects.empty").to_string()} />
        },
        Fetch::Ready(list) => html! {
            <ul class="cards" aria-label={t(lang, "projects.list").to_string()}>
                { for list.iter().map(|(p, prompt_count)| project_row(p, *prompt_count, &app, &creating, &ask)) }
            </ul>
        },
        Fetch::Failed(e) => html! { <p class="error-box" role="alert">{ e.message(lang) }</p> },
        _ => html! { <p class="muted">{ t(lang, "common.loading") }</p> },
    };

    let show_editor = *creating || selected.is_some();
    let editor_project_id = if *creating { None } else { selected.as_ref().map(|p| p.id.clone()) };
    html! {
        <section>
            <div class="row spread">
                <h1>{ t(lang, "projects.title") }</h1>
                <button type="button" data-testid="project-new" onclick={on_new}>{ t(lang, "projects.new") }</button>
            </div>
            { list }
            if show_editor {
                <ProjectEditor draft={(*draft).clone()} creating={*creating}
                    on_change={let d = draft.clone(); Callback::from(move |v| d.set(v))} on_save={on_save} />
                if let Some(project_id) = editor_project_id {
                    if let Some(project) = selected.clone() {
                        <FactEditor {project} on_save={on_save_facts} />
                    }
                    <PromptsEditor project_id={project_id} on_delete={ask.reform(|id| Pending::DeletePrompt { id })} />
                } else {
                    <p class="muted">{ t(lang, "projects.save_first") }</p>
                }
            }
            if let Some(p) = (*pending).clone() {
                { confirm_for(&p, on_confirm, on_cancel, lang) }
            }
        </section>
    }
}

/// Saving the editor (`project-save`): the draft checked into a project and stored; the
/// saved project becomes the current one everywhere, and a new one's first prompt field is
/// focused once rendered.
fn save_project(
    app: &AppHandle,
    draft: &UseStateHandle<ProjectDraft>,
    creating: &UseStateHandle<bool>,
    selected: Option<&Project>,
    just_saved: &UseStateHandle<Option<Project>>,
    focus_next: &Rc<RefCell<Option<String>>>,
) -> Callback<SubmitEvent> {
    let (app, draft, creating, selected) = (app.clone(), draft.clone(), creating.clone(), selected.cloned());
    let (just_saved, focus_next) = (just_saved.clone(), focus_next.clone());
    Callback::from(move |e: SubmitEvent| {
        e.prevent_default();
        let existing = if *creating { None } else { selected.clone() };
        let project = match draft.to_project(existing.as_ref(), &now_iso(), new_id) {
            Ok(p) => p,
            Err(err) => return toast(&app, ToastKind::Error, err.message(app.lang)),
        };
        let Some(repo) = app.repo().cloned() else { return };
        let (app, creating, draft, just_saved) = (app.clone(), creating.clone(), draft.clone(), just_saved.clone());
        let focus_next = focus_next.clone();
        let was_new = existing.is_none();
        wasm_bindgen_futures::spawn_local(async move {
            let result = repo.put_project(&project).await;
            if result.is_ok() {
                if was_new {
                    // A new project's next step: its first prompt, focused once rendered.
                    *focus_next.borrow_mut() = Some("[data-testid=\"prompt-text\"]".to_string());
                }
                creating.set(false);
                draft.set(ProjectDraft::from_project(&project));
                just_saved.set(Some(project.clone()));
                // The saved project becomes the current one everywhere (header, dashboard,
                // run page); the prompts typed next belong to it.
                prefs::save_project(Some(&project.id));
                app.dispatch(Action::SelectProject(Some(project.id.clone())));
            }
            report(&app, &result, Some(t(app.lang, "projects.saved").to_string()));
        });
    })
}

/// What the confirmation dialog's "delete" does: deletes the project (with its prompts, runs
/// and probes) or the prompt it asked about.
fn delete_confirmed(app: &AppHandle, pending: &UseStateHandle<Option<Pending>>) -> Callback<()> {
    let (app, pending) = (app.clone(), pending.clone());
    Callback::from(move |_| {
        let Some(action) = (*pending).clone() else { return };
        pending.set(None);
        let Some(repo) = app.repo().cloned() else { return };
        let app = app.clone();
        wasm_bindgen_futures::spawn_local(async move {
            match action {
                Pending::DeleteProject { id, .. } => {
                    let result = repo.delete_project(&id).await;
                    if result.is_ok() {
                        prefs::forget_recent_locations(Some(&id));
                    }
                    report(&app, &result, Some(t(app.lang, "projects.deleted").to_string()));
                }
                Pending::DeletePrompt { id } => {
                    let result = repo.delete_prompt(&id).await;
                    report(&app, &result, Some(t(app.lang, "projects.prompt_deleted").to_string()));
                }
            }
        });
    })
}

/// Loads the selected project into the editor's `draft` when it changes (not on unrelated
/// writes), keeping edits not saved yet when only the stored copy changed (the fact sheet
/// saved beside them).
#[hook]
fn use_load_draft(draft: &UseStateHandle<ProjectDraft>, selected: Option<&Project>, creating: bool) {
    let loaded = use_state(|| None::<ProjectDraft>);
    let draft = draft.clone();
    let key = selected.map(|p| (p.id.clone(), p.updated_at.clone()));
    let project = selected.cloned();
    use_effect_with(key, move |_| {
        if let Some(p) = project {
            if !creating {
                let fresh = ProjectDraft::from_project(&p);
                let edited = (*loaded).as_ref().is_some_and(|l| l.id == fresh.id && *draft != *l);
                if !edited {
                    draft.set(fresh.clone());
                }
                loaded.set(Some(fresh));
            }
        }
    });
}

/// Saves a checked fact sheet into the selected project (one record, one transaction).
fn save_facts(
    app: &AppHandle,
    selected: Option<&Project>,
    just_saved: &UseStateHandle<Option<Project>>,
) -> Callback<FactSnapshot> {
    let (app, selected, just_saved) = (app.clone(), selected.cloned(), just_saved.clone());
    Callback::from(move |sheet: FactSnapshot| {
        let (Some(stored), Some(repo)) = (selected.clone(), app.repo().cloned()) else { return };
        let project = Project { facts: sheet.facts, watch_terms: sheet.watch_terms, updated_at: now_iso(), ..stored };
        let (app, just_saved) = (app.clone(), just_saved.clone());
        wasm_bindgen_futures::spawn_local(async move {
            let result = repo.put_project(&project).await;
            if result.is_ok() {
                just_saved.set(Some(project));
            }
            report(&app, &result, Some(t(app.lang, "facts.saved").to_string()));
        });
    })
}

/// One project of the list: its name and counts, with edit (make current) and delete.
fn project_row(
    p: &Project,
    prompt_count: usize,
    app: &AppHandle,
    creating: &UseStateHandle<bool>,
    ask: &Callback<Pending>,
) -> Html {
    let lang = app.lang;
    let id = p.id.clone();
    let is_selected = Some(&p.id) == app.project_id.as_ref() && !**creating;
    let select = {
        let (app, creating) = (app.clone(), creating.clone());
        let id = id.clone();
        Callback::from(move |_: MouseEvent| {
            creating.set(false);
            prefs::save_project(Some(&id));
            app.dispatch(Action::SelectProject(Some(id.clone())));
        })
    };
    let delete = {
        let ask = ask.clone();
        let (id, name) = (id.clone(), p.name.clone());
        Callback::from(move |_: MouseEvent| ask.emit(Pending::DeleteProject { id: id.clone(), name: name.clone() }))
    };
    html! {
        <li key={id.clone()} class={classes!("card", is_selected.then_some("selected"))} data-testid="project-row" data-id={id.clone()}>
            <strong>{ p.name.clone() }</strong>
            <span class="muted">{ tf(lang, "projects.summary", &[("c", &p.competitors.len().to_string()), ("p", &prompt_count.to_string())]) }</span>
            <div class="row">
                <button type="button" class="secondary" onclick={select} data-testid="project-edit" data-id={id.clone()}
                    aria-pressed={is_selected.to_string()}>{ t(lang, "projects.edit") }</button>
                <button type="button" class="danger-outline" onclick={delete} data-testid="project-delete" data-id={id.clone()}>
                    { t(lang, "projects.delete") }
                </button>
            </div>
        </li>
    }
}

/// The confirmation asked before deleting a project or a prompt.
fn confirm_for(p: &Pending, on_confirm: Callback<()>, on_cancel: Callback<()>, lang: Lang) -> Html {
    html! {
        <ConfirmDialog
            title={match &p {
                Pending::DeleteProject { name, .. } => tf(lang, "projects.delete_title", &[("name", name)]),
                Pending::DeletePrompt { .. } => t(lang, "projects.prompt_delete_title").to_string(),
            }}
            body={t(lang, if matches!(p, Pending::DeleteProject { .. }) { "projects.delete_body" } else { "projects.prompt_delete_body" }).to_string()}
            confirm_label={t(lang, "common.delete").to_string()} cancel_label={t(lang, "common.cancel").to_string()}
            on_confirm={on_confirm} on_cancel={on_cancel} />
    }
}

#[derive(Properties, PartialEq)]
struct ProjectEditorProps {
    draft: ProjectDraft,
    creating: bool,
    on_change: Callback<ProjectDraft>,
    on_save: Callback<SubmitEvent>,
}

/// Which text of a target a field edits.
#[derive(Clone, Copy)]
enum Field {
    Label,
    Aliases,
    Domains,
}

fn set_field(t: &mut TargetDraft, field: Field, value: String) {
    match field {
        Field::Label => t.label = value,
        Field::Aliases => t.aliases = value,
        Field::Domains => t.domains = value,
    }
}

#[function_component]
fn ProjectEditor(props: &ProjectEditorProps) -> Html {
    let lang = use_app().lang;
    let draft = &props.draft;
    let focus_next = use_focus_after_render();
    let edit = |f: fn(&mut ProjectDraft, String)| {
        let (draft, on_change) = (draft.clone(), props.on_change.clone());
        Callback::from(move |e: InputEvent| {
            let mut next = draft.clone();
            f(&mut next, field_value(&e));
            on_change.emit(next);
        })
    };
    let edit_target = |index: Option<usize>, field: Field| {
        let (draft, on_change) = (draft.clone(), props.on_change.clone());
        Callback::from(move |e: InputEvent| {
            let mut next = draft.clone();
            let value = field_value(&e);
            match index {
                None => set_field(&mut next.brand, field, value),
                Some(i) => {
                    if let Some(c) = next.competitors.get_mut(i) {
                        set_field(c, field, value);
                    }
                }
            }
            on_change.emit(next);
        })
    };
    let add_competitor = {
        let (draft, on_change) = (draft.clone(), props.on_change.clone());
        Callback::from(move |_: MouseEvent| {
            let mut next = draft.clone();
            next.competitors.push(TargetDraft::default());
            let index = next.competitors.len() - 1;
            *focus_next.borrow_mut() = Some(format!("[data-testid=\"competitor-label-{index}\"]"));
            on_change.emit(next);
        })
    };
    let heading = t(lang, if props.creating { "projects.creating" } else { "projects.editing" });
    html! {
        <form class="card" onsubmit={props.on_save.clone()} aria-labelledby="editor-heading">
            <h2 id="editor-heading">{ heading }</h2>
            <label class="field">
                <span class="label-text">{ t(lang, "projects.name") }</span>
                <input type="text" data-testid="project-name" value={draft.name.clone()} oninput={edit(|d, v| d.name = v)} />
            </label>
            <fieldset>
                <legend>{ t(lang, "projects.brand") }</legend>
                <label class="field">
                    <span class="label-text">{ t(lang, "projects.label") }</span>
                    <input type="text" data-testid="brand-label" required=true value={draft.brand.label.clone()}
                        oninput={edit_target(None, Field::Label)} />
                </label>
                <div class="two">
                    <label class="field">
                        <span class="label-text">{ t(lang, "projects.aliases") }</span>
                        <textarea rows="3" data-testid="brand-aliases" value={draft.brand.aliases.clone()}
                            oninput={edit_target(None, Field::Aliases)} />
                    </label>
                    <label class="field">
                        <span class="label-text">{ t(lang, "projects.domains") }</span>
                        <textarea rows="3" data-testid="brand-domains" spellcheck="false" value={draft.brand.domains.clone()}
                            oninput={edit_target(None, Field::Domains)} />
                    </label>
                </div>
            </fieldset>
            <fieldset>
                <legend>{ t(lang, "projects.competitors") }</legend>
                { for draft.competitors.iter().enumerate().map(|(i, c)| {
                    let remove = {
                        let (draft, on_change) = (draft.clone(), props.on_change.clone());
                        Callback::from(move |_: MouseEvent| {
                            let mut next = draft.clone();
                            next.competitors.remove(i);
                            on_change.emit(next);
                        })
                    };
                    let n = (i + 1).to_string();
                    html! {
                        <div class="competitor" role="group" aria-label={tf(lang, "projects.competitor_n", &[("n", &n)])}>
                            <div class="row spread">
                                <h3>{ tf(lang, "projects.competitor_n", &[("n", &n)]) }</h3>
                                <button type="button" class="secondary" onclick={remove} data-testid={format!("competitor-remove-{i}")}>
                                    { t(lang, "projects.competitor_remove") }
                                </button>
                            </div>
                            <label class="field">
                                <span class="label-text">{ t(lang, "projects.label") }</span>
                                <input type="text" data-testid={format!("competitor-label-{i}")} value={c.label.clone()}
                                    oninput={edit_target(Some(i), Field::Label)} />
                            </label>
                            <div class="two">
                                <label class="field">
                                    <span class="label-text">{ t(lang, "projects.aliases") }</span>
                                    <textarea rows="2" data-testid={format!("competitor-aliases-{i}")} value={c.aliases.clone()}
                                        oninput={edit_target(Some(i), Field::Aliases)} />
                                </label>
                                <label class="field">
                                    <span class="label-text">{ t(lang, "projects.domains") }</span>
                                    <textarea rows="2" spellcheck="false" data-testid={format!("competitor-domains-{i}")} value={c.domains.clone()}
                                        oninput={edit_target(Some(i), Field::Domains)} />
                                </label>
                            </div>
                        </div>
                    }
                }) }
                <button type="button" class="secondary" data-testid="competitor-add" onclick={add_competitor}>
                    { t(lang, "projects.competitor_add") }
                </button>
            </fieldset>
            <button type="submit" data-testid="project-save">{ t(lang, "projects.save") }</button>
        </form>
    }
}

#[derive(Properties, PartialEq)]
struct PromptsEditorProps {
    project_id: AttrValue,
    on_delete: Callback<String>,
}

fn selected_tags(select: &HtmlSelectElement) -> Vec<String> {
    let options = select.selected_options();
    (0..options.length())
        .filter_map(|i| options.item(i))
        .filter_map(|o| o.dyn_into::<web_sys::HtmlOptionElement>().ok())
        .map(|o| o.value())
        .collect()
}

#[function_component]
fn PromptsEditor(props: &PromptsEditorProps) -> Html {
    let app = use_app();
    let lang = app.lang;
    let text = use_state(String::new);
    let bulk = use_state(String::new);
    let chosen = use_state(Vec::<String>::new);
    let prompts = use_query(props.project_id.to_string(), |repo, id| async move { repo.prompts_by_project(&id).await });
    let existing: Vec<Prompt> = prompts.ready().cloned().unwrap_or_default();

    let add = |source: UseStateHandle<String>| {
        let (app, chosen, project_id, existing) =
            (app.clone(), chosen.clone(), props.project_id.to_string(), existing.clone());
        move || {
            let new = new_prompts(&source, &chosen, &project_id, &existing, now_iso_plus, new_id);
            if new.is_empty() {
                return toast(&app, ToastKind::Error, t(app.lang, "projects.prompts_none_new").to_string());
            }
            let Some(repo) = app.repo().cloned() else { return };
            let (app, source) = (app.clone(), source.clone());
            wasm_bindgen_futures::spawn_local(async move {
                let result = repo.put_prompts(&new).await;
                if result.is_ok() {
                    source.set(String::new());
                }
                let msg = tf(app.lang, "projects.prompts_added", &[("n", &new.len().to_string())]);
                report(&app, &result, Some(msg));
            });
        }
    };
    let on_add = {
        let add = add(text.clone());
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            add();
        })
    };
    let on_bulk = {
        let add = add(bulk.clone());
        Callback::from(move |_: MouseEvent| add())
    };
    let on_text = set_on_input(&text);
    let on_bulk_text = set_on_input(&bulk);
    let on_tags = {
        let chosen = chosen.clone();
        Callback::from(move |e: Event| chosen.set(selected_tags(&e.target_unchecked_into::<HtmlSelectElement>())))
    };

    let rows = match &prompts {
        Fetch::Ready(list) if list.is_empty() => {
            html! { <EmptyState text={t(lang, "projects.prompts_empty").to_string()} /> }
        }
        Fetch::Ready(list) => html! {
            <ul class="prompts">
                { for list.iter().map(|p| {
                    let delete = {
                        let (cb, id) = (props.on_delete.clone(), p.id.clone());
                        Callback::from(move |_: MouseEvent| cb.emit(id.clone()))
                    };
                    html! {
                        <li key={p.id.clone()} data-testid="prompt-row" data-id={p.id.clone()} data-tags={p.tags.join(",")}>
                            <span class="prompt-text">{ p.text.clone() }</span>
                            { for p.tags.iter().map(|tag| html! { <span class="chip">{ tag_label(tag, lang) }</span> }) }
                            <button type="button" class="icon danger-outline" onclick={delete} data-testid="prompt-delete"
                                data-id={p.id.clone()} aria-label={format!("{}: {}", t(lang, "projects.prompt_delete"), p.text)}>{ "×" }</button>
                        </li>
                    }
                }) }
            </ul>
        },
        Fetch::Failed(e) => html! { <p class="error-box" role="alert">{ e.message(lang) }</p> },
        _ => html! { <p class="muted">{ t(lang, "common.loading") }</p> },
    };
    html! {
        <div class="card" aria-labelledby="prompts-heading">
            <h2 id="prompts-heading">{ t(lang, "projects.prompts") }{ format!(" ({})", existing.len()) }</h2>
            <form onsubmit={on_add} class="prompt-form">
                <label class="field grow">
                    <span class="label-text">{ t(lang, "projects.prompt_text") }</span>
                    <input type="text" data-testid="prompt-text" value={(*text).clone()} oninput={on_text} />
                </label>
                <label class="field">
                    <span class="label-text">{ t(lang, "projects.prompt_tags") }</span>
                    <select multiple=true size="5" data-testid="prompt-tags" onchange={on_tags}>
                        { for tags::ALL.iter().map(|tag| html! {
                            <option value={*tag} selected={chosen.iter().any(|c| c == tag)}>{ tag_label(tag, lang) }
                                { if lang == Lang::Zh { format!(" · {tag}") } else { String::new() } }</option>
                        }) }
                    </select>
                </label>
                <button type="submit" data-testid="prompt-add">{ t(lang, "projects.prompt_add") }</button>
            </form>
            <label class="field">
                <span class="label-text">{ t(lang, "projects.prompt_bulk") }</span>
                <textarea rows="4" data-testid="prompt-bulk" value={(*bulk).clone()} oninput={on_bulk_text} />
            </label>
            <button type="button" class="secondary" data-testid="prompt-bulk-add" onclick={on_bulk}>{ t(lang, "projects.prompt_bulk_add") }</button>
            { rows }
        </div>
    }
}
