//! Routes, the `switch` from route to page, and the frame around every page: skip link,
//! header (project selector, language toggle), navigation, toasts.

use crate::components::{NavLink, Toasts};
use crate::hooks::{use_app, use_query, Fetch};
use crate::i18n::t;
use crate::pages;
use crate::prefs;
use crate::repo::idb::IdbRepo;
use crate::repo::Repository;
use crate::state::{header_state, reconcile_selection, Action, AppState, ListRead, RepoState, ToastKind};
use geo_core::metrics::RunSummary;
use geo_core::model::Lang;
use serde::{Deserialize, Serialize};
use std::rc::Rc;
use yew::prelude::*;
use yew_router::prelude::*;

/// Every page of the app. Paths are relative to the `<base href>` (the router's basename).
#[derive(Debug, Clone, PartialEq, Eq, Routable)]
pub enum Route {
    /// Metrics of the selected run.
    #[at("/")]
    Dashboard,
    /// Brand, competitors and prompts.
    #[at("/projects")]
    Projects,
    /// Start a run.
    #[at("/run")]
    Run,
    /// Runs of the selected project.
    #[at("/runs")]
    Runs,
    /// One run and its probes.
    #[at("/runs/:id")]
    RunDetail {
        /// The run id.
        id: String,
    },
    /// The newest run of each engine side by side.
    #[at("/engines")]
    Engines,
    /// Retrieved sources by domain.
    #[at("/sources")]
    Sources,
    /// What to do next: lost prompts, the searches the engine ran, pages to be on, link health.
    #[at("/actions")]
    Actions,
    /// What the answers say: facts checked, claims quoted, flagged sentences.
    #[at("/claims")]
    Claims,
    /// Recommendation list positions.
    #[at("/lists")]
    Lists,
    /// Downloads.
    #[at("/export")]
    Export,
    /// Key, API base URL, import and data.
    #[at("/settings")]
    Settings,
    /// Chat over local documents.
    #[at("/chat")]
    Chat,
    /// Anything else.
    #[not_found]
    #[at("/404")]
    NotFound,
}

/// The query of [`Route::RunDetail`] (`/runs/ID?prompt=…&probe=…`), which other pages link with: a prompt to filter by and a probe whose drawer opens.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DetailQuery {
    /// Prompt id preselected in the prompt filter.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
    /// Probe id whose drawer is open on arrival.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub probe: Option<String>,
}

impl Route {
    /// The navigation entry a route belongs to (a run's detail belongs to Runs).
    pub fn section(&self) -> Route {
        match self {
            Route::RunDetail { .. } => Route::Runs,
            other => other.clone(),
        }
    }
}

/// Renders the page of a route.
pub fn switch(route: Route) -> Html {
    match route {
        Route::Dashboard => html! { <pages::dashboard::DashboardPage /> },
        Route::Projects => html! { <pages::projects::ProjectsPage /> },
        Route::Run => html! { <pages::run::RunPage /> },
        Route::Runs => html! { <pages::runs::RunsPage /> },
        Route::RunDetail { id } => html! { <pages::run_detail::RunDetailPage {id} /> },
        Route::Engines => html! { <pages::engines::EnginesPage /> },
        Route::Sources => html! { <pages::sources::SourcesPage /> },
        Route::Actions => html! { <pages::actions::ActionsPage /> },
        Route::Claims => html! { <pages::claims::ClaimsPage /> },
        Route::Lists => html! { <pages::lists::ListsPage /> },
        Route::Export => html! { <pages::export::ExportPage /> },
        Route::Settings => html! { <pages::settings::SettingsPage /> },
        Route::Chat => html! { <pages::chat::ChatPage /> },
        Route::NotFound => html! { <pages::NotFoundPage /> },
    }
}

/// The interface language as `<html lang>` and `lang-toggle`'s `data-value` carry it.
pub fn lang_code(lang: Lang) -> &'static str {
    match lang {
        Lang::Zh => "zh",
        Lang::En => "en",
    }
}

/// The root component: opens storage, provides the shared state, routes.
#[function_component]
pub fn App() -> Html {
    let state = use_reducer(|| AppState::new(prefs::load_lang(), prefs::load_project()));
    {
        let dispatcher = state.dispatcher();
        use_effect_with((), move |_| {
            let on_change = {
                let dispatcher = dispatcher.clone();
                Rc::new(move || dispatcher.dispatch(Action::DataChanged))
            };
            wasm_bindgen_futures::spawn_local(async move {
                match IdbRepo::open(on_change).await {
                    Ok(repo) => {
                        dispatcher.dispatch(Action::RepoReady(repo.clone()));
                        // Seed §8.2: seed the demo project on a first visit.
                        if let Err(e) = crate::demo::ensure_demo_seed(&repo, crate::demo::fetch_demo).await {
                            dispatcher.dispatch(Action::Toast(ToastKind::Error, e.message(prefs::load_lang())));
                        }
                        dispatcher.dispatch(Action::Started);
                    }
                    Err(e) => dispatcher.dispatch(Action::RepoFailed(e)),
                }
            });
        });
    }
    {
        let lang = state.lang;
        use_effect_with(lang, move |lang| {
            if let Some(root) = web_sys::window().and_then(|w| w.document()).and_then(|d| d.document_element()) {
                let _ = root.set_attribute("lang", lang_code(*lang));
            }
        });
    }
    let basename = crate::web::base_path();
    html! {
        <ContextProvider<crate::state::AppHandle> context={state}>
            <BrowserRouter basename={(!basename.is_empty()).then(|| AttrValue::from(basename))}>
                <Frame />
            </BrowserRouter>
        </ContextProvider<crate::state::AppHandle>>
    }
}

const NAV: &[(Route, &str, &str)] = &[
    (Route::Dashboard, "nav-dashboard", "nav.dashboard"),
    (Route::Projects, "nav-projects", "nav.projects"),
    (Route::Run, "nav-run", "nav.run"),
    (Route::Runs, "nav-runs", "nav.runs"),
    (Route::Engines, "nav-engines", "nav.engines"),
    (Route::Sources, "nav-sources", "nav.sources"),
    (Route::Actions, "nav-actions", "nav.actions"),
    (Route::Claims, "nav-claims", "nav.claims"),
    (Route::Lists, "nav-lists", "nav.lists"),
    (Route::Export, "nav-export", "nav.export"),
    (Route::Settings, "nav-settings", "nav.settings"),
    (Route::Chat, "nav-chat", "nav.chat"),
];

#[function_component]
fn Frame() -> Html {
    let app = use_app();
    let lang = app.lang;
    let toggle = {
        let app = app.clone();
        Callback::from(move |_: MouseEvent| {
            let next = if app.lang == Lang::Zh { Lang::En } else { Lang::Zh };
            prefs::save_lang(next);
            app.dispatch(Action::SetLang(next));
        })
    };
    let dismiss = {
        let app = app.clone();
        Callback::from(move |id| app.dispatch(Action::Dismiss(id)))
    };
    let body = match &app.repo {
        RepoState::Opening => html! { <p class="muted" aria-busy="true">{ t(lang, "storage.opening") }</p> },
        RepoState::Failed(e) => html! { <p class="error-box" role="alert">{ e.to_string() }</p> },
        RepoState::Ready(_) => html! { <Switch<Route> render={switch} /> },
    };
    // The header's two lists, read here so that the header can say when both are settled
    // (`data-state`); each read carries what it was read for.
    let projects =
        use_query(app.data_version, |repo, version| async move { Ok((version, repo.list_projects().await?)) });
    // The light summaries, not the runs, read once for the run selector and the page's figures.
    let runs = use_query((app.project_id.clone(), app.data_version), |repo, (project, version)| async move {
        let list = match &project {
            Some(id) => crate::components::run_data::run_summaries(&repo, id, version).await?,
            None => Rc::new(Vec::new()),
        };
        Ok((project, version, list))
    });
    let project_ids: Option<(u32, Vec<String>)> =
        projects.ready().map(|(v, ps)| (*v, ps.iter().map(|p| p.id.clone()).collect()));
    let run_ids: Option<(Option<String>, u32, Vec<String>)> =
        runs.ready().map(|(p, v, rs)| (p.clone(), *v, rs.iter().map(|r| r.id.clone()).collect()));
    fn read<'a>(fetch_failed: bool, done: Option<(Option<&'a str>, u32, &'a [String])>) -> ListRead<'a> {
        match (fetch_failed, done) {
            (true, _) => ListRead::Failed,
            (false, Some((project, version, ids))) => ListRead::Done { version, project, ids },
            (false, None) => ListRead::Pending,
        }
    }
    let header = header_state(
        &app,
        read(matches!(projects, Fetch::Failed(_)), project_ids.as_ref().map(|(v, ids)| (None, *v, ids.as_slice()))),
        read(matches!(runs, Fetch::Failed(_)), run_ids.as_ref().map(|(p, v, ids)| (p.as_deref(), *v, ids.as_slice()))),
    );
    html! {
        <>
            <a class="skip" href="#main">{ t(lang, "app.skip") }</a>
            <header class="top" data-testid="app-header" data-state={header} data-version={app.data_version.to_string()}>
                <div class="brand">
                    <strong>{ t(lang, "app.title") }</strong>
                    <span class="muted tagline">{ t(lang, "app.tagline") }</span>
                </div>
                <div class="top-controls">
                    <ProjectSelect {projects} />
                    <RunSelect {runs} />
                    <button type="button" class="secondary" data-testid="lang-toggle" onclick={toggle}
                        data-value={lang_code(lang)} title={t(lang, "lang.toggle_label").to_string()}
                        lang={lang_code(if lang == Lang::Zh { Lang::En } else { Lang::Zh })}>
                        { t(lang, "lang.toggle") }
                    </button>
                </div>
            </header>
            <nav class="nav" aria-label={t(lang, "nav.label").to_string()}>
                <ul>
                    { for NAV.iter().map(|(route, testid, key)| html! {
                        <li><NavLink to={route.clone()} testid={AttrValue::from(*testid)}>{ t(lang, key) }</NavLink></li>
                    }) }
                </ul>
            </nav>
            <main id="main" tabindex="-1">{ body }</main>
            <Toasts toasts={app.toasts.clone()} on_dismiss={dismiss}
                dismiss_label={t(lang, "common.dismiss").to_string()}
                region_label={t(lang, "common.notifications").to_string()} />
        </>
    }
}

/// The projects the header lists, with the data version they were read at.
pub type ProjectList = Fetch<(u32, Vec<geo_core::model::Project>)>;
/// The run summaries the header lists, with the project and data version they were read for.
pub type RunList = Fetch<(Option<String>, u32, Rc<Vec<RunSummary>>)>;

/// Props of [`ProjectSelect`].
#[derive(Properties, PartialEq)]
struct ProjectSelectProps {
    projects: ProjectList,
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
fn ProjectSelect(props: &ProjectSelectProps) -> Html {
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
        let label = format!(
            "{at} · {} · {}",
            geo_core::provider::spec(r.engine).name,
            crate::components::run_status::status_label(lang, r.status)
        );
        out.push_str(&format!(
            "<option value=\"{}\"{}>{}</option>",
            escape(&r.id),
            if r.id == selected { " selected" } else { "" },
            escape(&label)
        ));
    }
    out
}

/// Props of [`RunSelect`].
#[derive(Properties, PartialEq)]
struct RunSelectProps {
    runs: RunList,
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
fn RunSelect(props: &RunSelectProps) -> Html {
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
        assert!(html.starts_with("<option value=\"run_a\" selected>2026-11-30 08:05 · DeepSeek · "), "{html}");
        assert!(!html.contains("<script"), "{html}");
        assert!(html.contains("value=\"x&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;&amp;\">"), "{html}");
        assert_eq!(html.matches("<option ").count(), 2);
        assert_eq!(html.matches(" selected").count(), 1);
        assert_eq!(run_options_html(&list, "none", Lang::En).matches(" selected").count(), 0);
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
