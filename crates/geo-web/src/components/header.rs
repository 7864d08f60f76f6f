//! The header's two selectors, the project (`project-select`) and the run (`run-select`),
//! each keeping the selection valid through `state::reconcile_selection`. The frame
//! (`app.rs`) reads both lists and passes them in, so that it can say when both are settled.

use crate::hooks::{use_app, Fetch};
use crate::i18n::t;
use crate::prefs;
use crate::state::{reconcile_selection, Action};
use geo_core::metrics::RunSummary;
use std::rc::Rc;
use yew::prelude::*;

/// The projects the header lists, with the data version they were read at.
pub type ProjectList = Fetch<(u32, Vec<geo_core::model::Project>)>;
/// The run summaries the header lists, with the project and data version they were read for.
pub type RunList = Fetch<(Option<String>, u32, Rc<Vec<RunSummary>>)>;

/// Props of [`ProjectSelect`].
#[derive(Properties, PartialEq)]
pub struct ProjectSelectProps {
    /// The projects to choose from, as the frame read them.
    pub projects: ProjectList,
}

/// How a header `<select>` says what it holds: `data-state` (`loading` | `ready` | `failed`),
/// and, while it has nothing to choose, `aria-disabled` (with `aria-busy` while loading)
/// instead of `disabled`, so that it keeps its place in the Tab order and a screen reader
/// hears why it cannot be used yet.
fn select_state<T>(fetch: &Fetch<T>, empty: bool) -> (&'static str, Option<&'static str>, Option<&'static str>) {
    let state = match fetch {
        Fetch::Ready(_) => "ready",
        Fetch::Failed(_) => "failed",
        _ => "loading",
    };
    let busy = (state == "loading").then_some("true");
    (state, busy, (empty || busy.is_some()).then_some("true"))
}

/// The header's project `<select>` (`data-testid="project-select"`); keeps the selection
/// valid when projects are created or deleted.
#[function_component]
pub fn ProjectSelect(props: &ProjectSelectProps) -> Html {
    let app = use_app();
    let lang = app.lang;
    let projects = &props.projects;
    {
        // Keyed on the list alone: a project selected right after saving it is not in the
        // list on screen yet, and must not be overruled until the list is read again.
        let app = app.clone();
        let ids: Option<Vec<String>> = projects.ready().map(|(_, ps)| ps.iter().map(|p| p.id.clone()).collect());
        use_effect_with(ids, move |ids| {
            if let Some(next) = ids.as_ref().and_then(|ids| reconcile_selection(ids, app.project_id.as_deref())) {
                prefs::save_project(next.as_deref());
                app.dispatch(Action::SelectProject(next));
            }
        });
    }
    let onchange = {
        let app = app.clone();
        Callback::from(move |e: Event| {
            let value = e.target_unchecked_into::<web_sys::HtmlSelectElement>().value();
            let id = (!value.is_empty()).then_some(value);
            prefs::save_project(id.as_deref());
            app.dispatch(Action::SelectProject(id));
        })
    };
    let empty = Vec::new();
    let list = projects.ready().map(|(_, ps)| ps).unwrap_or(&empty);
    let (state, busy, unavailable) = select_state(projects, list.is_empty());
    let selected = app.project_id.clone().unwrap_or_default();
    html! {
        <label class="inline">
            <span class="label-text">{ t(lang, "project.select") }</span>
            <select data-testid="project-select" {onchange} data-state={state}
                aria-busy={busy} aria-disabled={unavailable}>
                if busy.is_some() {
                    <option value="" selected=true>{ t(lang, "common.loading") }</option>
                } else if list.is_empty() {
                    <option value="" selected=true>{ t(lang, "project.none") }</option>
                }
                { for list.iter().map(|p| html! {
                    <option value={p.id.clone()} selected={p.id == selected}>{ p.name.clone() }</option>
                }) }
            </select>
        </label>
    }
}

/// The options of the run selector as one piece of HTML (every value and label escaped):
/// a year of daily runs is 365 options, which the browser parses in one step while building
/// them element by element would hold up the page's figures at start-up.
fn run_options(list: &[&RunSummary], selected: &str, lang: geo_core::model::Lang) -> Html {
    Html::from_html_unchecked(run_options_html(list, selected, lang).into())
}

/// [`run_options`]' HTML.
fn run_options_html(list: &[&RunSummary], selected: &str, lang: geo_core::model::Lang) -> String {
    use crate::components::markdown::escape;
    let mut out = String::with_capacity(list.len() * 80);
    for r in list {
        let at: String = r.created_at.replace('T', " ").chars().take(16).collect();
        // An `app` run (captured answers) says so beside its engine: an option holds text only.
        let surface = if r.surface.is_api() { String::new() } else { format!(" · {}", r.surface.label(lang)) };
        let label = format!(
            "{at} · {}{surface} · {}",
            geo_core::provider::spec(r.engine).name,
            crate::components::run_status::status_label(lang, r.status)
        );
        out.push_str(&format!(
            "<option value=\"{}\" data-surface=\"{}\"{}>{}</option>",
            escape(&r.id),
            r.surface.as_str(),
            if r.id == selected { " selected" } else { "" },
            escape(&label)
        ));
    }
    out
}

/// Props of [`RunSelect`].
#[derive(Properties, PartialEq)]
pub struct RunSelectProps {
    /// The run summaries to choose from, as the frame read them.
    pub runs: RunList,
}

/// How long after its list arrives a long run selector lists every run by itself: 1.5 s, or
/// the `runListDelayMs=N` query parameter of this page load (a test that checks the
/// on-use path sets it beyond the test's length, so that only the use can list them).
fn list_all_delay_ms() -> u32 {
    thread_local! {
        static DELAY: u32 = crate::web::query_u32(&crate::web::location_search(), "runListDelayMs").unwrap_or(1500);
    }
    DELAY.with(|d| *d)
}

/// The header's run `<select>` (`data-testid="run-select"`): runs of the selected project,
/// newest first; keeps the selection valid (the newest run when none is chosen).
/// `data-listed` says whether it lists every run (`all`) or the newest ones (`newest`), and
/// `data-listed-by` what listed them all (`use`: focused, pressed or keyed; `timer`).
#[function_component]
pub fn RunSelect(props: &RunSelectProps) -> Html {
    let app = use_app();
    let lang = app.lang;
    let runs = &props.runs;
    {
        // As for projects: a run selected as it starts is newer than the list on screen.
        let app = app.clone();
        let ids: Option<Vec<String>> = runs.ready().map(|(_, _, rs)| rs.iter().map(|r| r.id.clone()).collect());
        use_effect_with(ids, move |ids| {
            if let Some(next) = ids.as_ref().and_then(|ids| reconcile_selection(ids, app.run_id.as_deref())) {
                app.dispatch(Action::SelectRun(next));
            }
        });
    }
    let onchange = {
        let app = app.clone();
        Callback::from(move |e: Event| {
            let value = e.target_unchecked_into::<web_sys::HtmlSelectElement>().value();
            app.dispatch(Action::SelectRun((!value.is_empty()).then_some(value)));
        })
    };
    // A long history lists its newest runs first and the rest when the selector is first
    // used, or a moment after the page has its figures: 365 options cost a page load some
    // 25 ms of parsing, style and layout that the dashboard's cards would wait for.
    let listed_by = use_state(|| None::<&'static str>);
    // Whichever comes first decides (a state handle read in the timer's future is stale).
    let decided = use_mut_ref(|| false);
    let list_all: Rc<dyn Fn(&'static str)> = {
        let (listed_by, decided) = (listed_by.clone(), decided.clone());
        Rc::new(move |by| {
            if !std::mem::replace(&mut *decided.borrow_mut(), true) {
                listed_by.set(Some(by));
            }
        })
    };
    let long = runs.ready().is_some_and(|(_, _, l)| l.len() > FIRST_OPTIONS);
    {
        let list_all = list_all.clone();
        use_effect_with(long, move |long| {
            if *long {
                wasm_bindgen_futures::spawn_local(async move {
                    let delay = std::time::Duration::from_millis(u64::from(list_all_delay_ms()));
                    yew::platform::time::sleep(delay).await;
                    list_all("timer");
                });
            }
        });
    }
    fn show_all<E>(list_all: &Rc<dyn Fn(&'static str)>) -> Callback<E> {
        let list_all = list_all.clone();
        Callback::from(move |_| list_all("use"))
    }
    let empty = Rc::new(Vec::new());
    let list = runs.ready().map(|(_, _, l)| l).unwrap_or(&empty);
    let (state, busy, unavailable) = select_state(runs, list.is_empty());
    let selected = app.run_id.clone().unwrap_or_default();
    let all = listed_by.is_some() || !long;
    let shown = listed_runs(list, &selected, if all { usize::MAX } else { FIRST_OPTIONS });
    html! {
        <label class="inline">
            <span class="label-text">{ t(lang, "run.select") }</span>
            <select data-testid="run-select" {onchange} data-state={state}
                aria-busy={busy} aria-disabled={unavailable}
                data-listed={if all { "all" } else { "newest" }} data-listed-by={*listed_by}
                onfocus={show_all(&list_all)} onpointerdown={show_all(&list_all)}
                onkeydown={show_all(&list_all)}>
                if busy.is_some() {
                    <option value="" selected=true>{ t(lang, "common.loading") }</option>
                } else if list.is_empty() {
                    <option value="" selected=true>{ t(lang, "run.none") }</option>
                }
                { run_options(&shown, &selected, lang) }
            </select>
        </label>
    }
}

/// How many of the newest runs the run selector lists before it is first used.
const FIRST_OPTIONS: usize = 30;

/// The runs the selector lists: the first `limit` of `list` (newest first), and the selected
/// run when it is older.
fn listed_runs<'a>(list: &'a [RunSummary], selected: &str, limit: usize) -> Vec<&'a RunSummary> {
    let mut shown: Vec<&RunSummary> = list.iter().take(limit).collect();
    if let Some(old) = list.iter().skip(limit).find(|r| r.id == selected) {
        shown.push(old);
    }
    shown
}

#[cfg(test)]
mod tests {
    use super::*;
    use geo_core::metrics::compute_run_metrics;
    use geo_core::model::{Lang, Run};

    fn summary(id: &str) -> RunSummary {
        let r: Run = serde_json::from_value(serde_json::json!({
            "id": id, "projectId": "p", "status": "completed", "createdAt": "2026-11-30T08:05:00Z",
            "appVersion": "0", "schemaVersion": 1,
            "config": { "model": "m", "repeats": 1, "concurrency": 1, "maxSearches": 1, "maxTokens": 1,
                        "temperature": 0.0, "systemPromptVersion": "v" },
            "aliasSnapshot": [], "promptSnapshot": [], "plannedProbeCount": 0
        }))
        .expect("valid run");
        RunSummary::of(&r, &compute_run_metrics(&r, &[], None))
    }

    #[test]
    fn run_options_escape_every_id_and_mark_the_selected_run() {
        let list = [summary("run_a"), summary("x\"><script>alert(1)</script>&")];
        let list: Vec<&RunSummary> = list.iter().collect();
        let html = run_options_html(&list, "run_a", Lang::En);
        assert!(
            html.starts_with("<option value=\"run_a\" data-surface=\"api\" selected>2026-11-30 08:05 · DeepSeek · "),
            "{html}"
        );
        assert!(!html.contains("<script"), "{html}");
        assert!(
            html.contains("value=\"x&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;&amp;\" data-surface=\"api\">"),
            "{html}"
        );
        assert_eq!(html.matches("<option ").count(), 2);
        assert_eq!(html.matches(" selected").count(), 1);
        assert_eq!(run_options_html(&list, "none", Lang::En).matches(" selected").count(), 0);
    }

    #[test]
    fn an_app_run_says_so_in_its_option() {
        let mut app = summary("run_app");
        app.surface = geo_core::model::Surface::App;
        let list = [&app];
        let en = run_options_html(&list, "", Lang::En);
        assert!(
            en.starts_with("<option value=\"run_app\" data-surface=\"app\">2026-11-30 08:05 · DeepSeek · app · "),
            "{en}"
        );
        let zh = run_options_html(&list, "", Lang::Zh);
        assert!(zh.contains("DeepSeek · 应用 · "), "{zh}");
    }

    #[test]
    fn the_selector_lists_the_newest_runs_and_the_selected_one() {
        let list: Vec<RunSummary> = (0..5).map(|i| summary(&format!("run_{i}"))).collect();
        let ids = |v: Vec<&RunSummary>| v.into_iter().map(|r| r.id.clone()).collect::<Vec<_>>();
        assert_eq!(ids(listed_runs(&list, "run_1", 2)), ["run_0", "run_1"]);
        assert_eq!(ids(listed_runs(&list, "run_4", 2)), ["run_0", "run_1", "run_4"]);
        assert_eq!(ids(listed_runs(&list, "", 2)), ["run_0", "run_1"]);
        assert_eq!(listed_runs(&list, "run_4", usize::MAX).len(), 5);
    }
}
