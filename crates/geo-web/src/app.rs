//! The app shell: the root component, the `switch` from route ([`crate::routes`]) to page,
//! and the frame around every page: skip link, header (project and run selectors, language
//! toggle), navigation, toasts.

use crate::components::header::{ProjectSelect, RunSelect};
use crate::components::{NavLink, Toasts};
use crate::hooks::{use_app, use_query, Fetch};
use crate::i18n::t;
use crate::pages;
use crate::prefs;
use crate::repo::idb::IdbRepo;
use crate::repo::Repository;
use crate::routes::Route;
use crate::state::{header_state, Action, AppState, ListRead, RepoState, ToastKind};
use geo_core::model::Lang;
use std::rc::Rc;
use yew::prelude::*;
use yew_router::prelude::*;

/// Renders the page of a route: this entry's own page, or the loading state of the handover
/// to the entry that owns it (`crate::entries`, `crate::handover`).
pub fn switch(route: Route) -> Html {
    page(&route).unwrap_or_else(|| {
        let title = title_of(&route);
        html! { <crate::handover::HandOver {route} {title} /> }
    })
}

/// The i18n key of a route's name while its page loads: its navigation entry's.
fn title_of(route: &Route) -> &'static str {
    NAV.iter().find(|(r, ..)| *r == route.section()).map_or("common.loading", |(.., key)| key)
}

/// The page of a route when this entry links it (its features, ADR 0025): the dashboard
/// entry the dashboard, the chat entry the Docs chat, the app entry every other page (and
/// the dashboard, which shares its document).
fn page(route: &Route) -> Option<Html> {
    Some(match route.clone() {
        #[cfg(any(feature = "full", not(feature = "chat")))]
        Route::Dashboard => html! { <pages::dashboard::DashboardPage /> },
        #[cfg(feature = "full")]
        Route::Projects => html! { <pages::projects::ProjectsPage /> },
        #[cfg(feature = "full")]
        Route::Run => html! { <pages::run::RunPage /> },
        #[cfg(feature = "full")]
        Route::Runs => html! { <pages::runs::RunsPage /> },
        #[cfg(feature = "full")]
        Route::RunDetail { id } => html! { <pages::run_detail::RunDetailPage {id} /> },
        #[cfg(feature = "full")]
        Route::Engines => html! { <pages::engines::EnginesPage /> },
        #[cfg(feature = "full")]
        Route::Sources => html! { <pages::sources::SourcesPage /> },
        #[cfg(feature = "full")]
        Route::Actions => html! { <pages::actions::ActionsPage /> },
        #[cfg(feature = "full")]
        Route::Claims => html! { <pages::claims::ClaimsPage /> },
        #[cfg(feature = "full")]
        Route::Lists => html! { <pages::lists::ListsPage /> },
        #[cfg(feature = "full")]
        Route::Export => html! { <pages::export::ExportPage /> },
        #[cfg(feature = "full")]
        Route::Settings => html! { <pages::settings::SettingsPage /> },
        #[cfg(feature = "chat")]
        Route::Chat => html! { <pages::chat::ChatPage /> },
        #[cfg(feature = "full")]
        Route::NotFound => html! { <pages::NotFoundPage /> },
        #[allow(unreachable_patterns)]
        _ => return None,
    })
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
    let state = use_reducer(|| {
        let mut state = AppState::new(prefs::load_lang(), prefs::load_project());
        // After a handover (ADR 0025), the selection the dashboard entry showed.
        if let Some(carried) = crate::handover::handed_over_selection() {
            state.project_id = carried.project.or(state.project_id);
            state.run_id = carried.run;
        }
        state
    });
    crate::handover::note_selection(state.project_id.as_deref(), state.run_id.as_deref());
    {
        let dispatcher = state.dispatcher();
        use_effect_with((), move |_| {
            // The frame is on the page (storage still opening): the app's first render. It
            // takes the place of the static frame `index.html` shows while the module loads.
            crate::web::mark("geo:first-render");
            remove_static_frame();
            crate::handover::focus_main_if_handed_over();
            let on_change = {
                let dispatcher = dispatcher.clone();
                Rc::new(move || dispatcher.dispatch(Action::DataChanged))
            };
            wasm_bindgen_futures::spawn_local(async move {
                match IdbRepo::open(on_change).await {
                    Ok(repo) => start_up(repo, dispatcher).await,
                    Err(e) => {
                        dispatcher.dispatch(Action::RepoFailed(e));
                        crate::handover::start_up_settled();
                    }
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

/// The start-up work once storage is open (seed §8.2): on a first visit the demo is seeded.
/// When the demo's first view fits (issue 39, ADR 0024), the pages read it while the demo is
/// fetched, parsed, analysed and written behind it, after the first figures are painted;
/// otherwise the demo is seeded as the pages read storage. Either way `Started` follows the
/// seeding.
async fn start_up(repo: IdbRepo, dispatcher: UseReducerDispatcher<AppState>) {
    use crate::demo::{self, SeedDecision};
    if !crate::handover::SEEDS_DEMO {
        // The chat entry seeds nothing: the Docs chat needs no demo (its header lists what is
        // stored), the next page of another entry seeds it, and the seeding's code (import,
        // analysis) stays out of the chat entry.
        dispatcher.dispatch(Action::RepoReady(repo));
        dispatcher.dispatch(Action::Started);
        crate::handover::start_up_settled();
        return;
    }
    let seeding = match demo::decision(&repo).await {
        Ok(SeedDecision::Seed) => seed_demo(&repo, &dispatcher).await,
        Ok(_) => {
            dispatcher.dispatch(Action::RepoReady(repo));
            Ok(())
        }
        Err(e) => {
            dispatcher.dispatch(Action::RepoReady(repo));
            Err(e.into())
        }
    };
    if let Err(e) = seeding {
        dispatcher.dispatch(Action::Toast(ToastKind::Error, e.message(prefs::load_lang())));
    }
    dispatcher.dispatch(Action::Started);
    crate::handover::start_up_settled();
}

/// Seeds the demo on a first visit, behind its first view when one fits.
///
/// When the page names the demo file's fingerprint (`cargo xtask dist` writes it), the first
/// view (preloaded) is checked against it and shown, and the demo file is fetched only after
/// the next paint: the figures do not wait for it. The file is then checked against the
/// view: the same file is seeded behind the view; another one (a deployment whose files do
/// not match) ends the view first, so the pages read storage, and is seeded as without a
/// view. A page without the fingerprint (an older or hand-made one) fetches the demo file
/// first, as before, and checks the first view against it.
async fn seed_demo(repo: &IdbRepo, dispatcher: &UseReducerDispatcher<AppState>) -> Result<(), crate::demo::DemoError> {
    use crate::demo;
    let (fetched, view) = match demo::page_fingerprint() {
        Some(source) => (None, demo::fetch_first_view(&source).await),
        None => {
            let text = demo::fetch_demo().await;
            let view = match &text {
                Ok(text) => demo::fetch_first_view(&crate::demo_fingerprint::fingerprint(text)).await,
                Err(_) => None,
            };
            (Some(text), view)
        }
    };
    let source = view.as_ref().map(|v| v.source.clone());
    if let Some(view) = view {
        repo.show_first_view(view);
    }
    dispatcher.dispatch(Action::RepoReady(repo.clone()));
    if source.is_some() {
        crate::web::after_paint().await;
    }
    let text = match fetched {
        Some(text) => text,
        None => demo::fetch_demo().await,
    };
    if let (Some(source), Ok(text)) = (&source, &text) {
        if !demo::is_source_of(text, source) {
            repo.end_first_view();
        }
    }
    let behind = repo.behind_first_view();
    let seeded = demo::ensure_demo_seed(&behind, move || async move { text }).await;
    repo.end_first_view();
    seeded.map(drop)
}

/// Removes the static frame of `index.html` (`#boot-frame`): the app's own frame is on the page.
fn remove_static_frame() {
    if let Some(frame) = web_sys::window().and_then(|w| w.document()).and_then(|d| d.get_element_by_id("boot-frame")) {
        frame.remove();
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
    let route = use_route::<Route>();
    let body = match &app.repo {
        // After a handover (or a link from another entry's document), the loading state the
        // page had a moment ago, with its heading, until storage is open: no frame without it.
        RepoState::Opening if crate::handover::handed_over_selection().is_some() => {
            crate::handover::loading_state(lang, route.as_ref().map_or("common.loading", title_of))
        }
        RepoState::Opening => html! {
            <>
                <p class="muted" aria-busy="true">{ t(lang, "storage.opening") }</p>
                // The placeholders of `index.html`'s static frame, until the figures come.
                <div class="skeleton-grid" aria-hidden="true">
                    { for (0..6).map(|_| html! { <div class="card skeleton-card"></div> }) }
                </div>
            </>
        },
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
