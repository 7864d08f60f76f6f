//! Routes, the `switch` from route to page, and the frame around every page: skip link,
//! header (project selector, language toggle), navigation, toasts.

use crate::components::{NavLink, Toasts};
use crate::hooks::{use_app, use_query, Fetch};
use crate::i18n::t;
use crate::pages;
use crate::prefs;
use crate::repo::idb::IdbRepo;
use crate::repo::Repository;
use crate::state::{reconcile_selection, Action, AppState, RepoState, ToastKind};
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
    html! {
        <>
            <a class="skip" href="#main">{ t(lang, "app.skip") }</a>
            <header class="top">
                <div class="brand">
                    <strong>{ t(lang, "app.title") }</strong>
                    <span class="muted tagline">{ t(lang, "app.tagline") }</span>
                </div>
                <div class="top-controls">
                    <ProjectSelect />
                    <RunSelect />
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

/// The header's project `<select>` (`data-testid="project-select"`); keeps the selection
/// valid when projects are created or deleted.
#[function_component]
fn ProjectSelect() -> Html {
    let app = use_app();
    let lang = app.lang;
    let projects = use_query((), |repo, _| async move { repo.list_projects().await });
    {
        // Keyed on the list alone: a project selected right after saving it is not in the
        // list on screen yet, and must not be overruled until the list is read again.
        let app = app.clone();
        let ids: Option<Vec<String>> = projects.ready().map(|ps| ps.iter().map(|p| p.id.clone()).collect());
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
    let list = match &projects {
        Fetch::Ready(ps) => ps.as_ref().clone(),
        _ => Vec::new(),
    };
    let selected = app.project_id.clone().unwrap_or_default();
    html! {
        <label class="inline">
            <span class="label-text">{ t(lang, "project.select") }</span>
            <select data-testid="project-select" {onchange} disabled={list.is_empty()}>
                if list.is_empty() {
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
fn run_options(list: &[geo_core::metrics::RunSummary], selected: &str, lang: geo_core::model::Lang) -> Html {
    Html::from_html_unchecked(run_options_html(list, selected, lang).into())
}

/// [`run_options`]' HTML.
fn run_options_html(list: &[geo_core::metrics::RunSummary], selected: &str, lang: geo_core::model::Lang) -> String {
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

/// The header's run `<select>` (`data-testid="run-select"`): runs of the selected project,
/// newest first; keeps the selection valid (the newest run when none is chosen).
#[function_component]
fn RunSelect() -> Html {
    let app = use_app();
    let lang = app.lang;
    // The light summaries, not the runs, read once for this selector and the page's figures.
    let runs = use_query((app.project_id.clone(), app.data_version), |repo, (project, version)| async move {
        match project {
            Some(id) => crate::components::run_data::run_summaries(&repo, &id, version).await.map(|s| (*s).clone()),
            None => Ok(Vec::new()),
        }
    });
    {
        // As for projects: a run selected as it starts is newer than the list on screen.
        let app = app.clone();
        let ids: Option<Vec<String>> = runs.ready().map(|rs| rs.iter().map(|r| r.id.clone()).collect());
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
    let list = runs.ready().cloned().unwrap_or_default();
    let selected = app.run_id.clone().unwrap_or_default();
    html! {
        <label class="inline">
            <span class="label-text">{ t(lang, "run.select") }</span>
            <select data-testid="run-select" {onchange} disabled={list.is_empty()}>
                if list.is_empty() {
                    <option value="" selected=true>{ t(lang, "run.none") }</option>
                }
                { run_options(&list, &selected, lang) }
            </select>
        </label>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use geo_core::metrics::{compute_run_metrics, RunSummary};
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
        let html = run_options_html(&list, "run_a", Lang::En);
        assert!(html.starts_with("<option value=\"run_a\" selected>2026-11-30 08:05 · DeepSeek · "), "{html}");
        assert!(!html.contains("<script"), "{html}");
        assert!(html.contains("value=\"x&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;&amp;\">"), "{html}");
        assert_eq!(html.matches("<option ").count(), 2);
        assert_eq!(html.matches(" selected").count(), 1);
        assert_eq!(run_options_html(&list, "none", Lang::En).matches(" selected").count(), 0);
    }
}
