//! The handover between the site's wasm entries (issue 39, ADR 0025; the table is
//! [`crate::entries`]).
//!
//! A reduced entry renders [`HandOver`] for a route it does not link: a visible loading state
//! (the page's name as its heading) while the entry that owns the route takes over.
//! - **In the same document** (the dashboard entry to the app entry): it asks the bootstrap
//!   (`globalThis.geoLoadEntry`, written by `cargo xtask dist`) for that entry. The bootstrap
//!   loads its glue and module, calls this entry's `stop_app` (which waits until the start-up
//!   work — opening storage, seeding the demo — has settled, so that two modules never seed at
//!   once, then destroys the Yew app), and mounts the other entry, whose router reads the
//!   current URL. Only forward: the app entry links every route it shares a document with.
//!   Once the dashboard entry's start-up has settled and painted, it asks the bootstrap to
//!   fetch and compile the app entry at low priority (`globalThis.geoPrefetchEntry`), so a
//!   later navigation waits for no download.
//! - **By a page load** (to or from an entry with a document of its own, the Docs chat's):
//!   links there are plain links ([`crate::components::NavLink`]); a route of such an entry
//!   reached in this document anyway (a link pushed by code, the history) loads its document.

use crate::entries::{self, APP, CHAT, DASHBOARD};
use crate::hooks::use_app;
use crate::i18n::t;
use crate::routes::Route;
use std::cell::RefCell;
use yew::prelude::*;
use yew_router::Routable;

/// The entry this build is (`full`: the app entry, in the default build too; `chat` alone:
/// the chat entry; neither: the dashboard entry).
pub const THIS_ENTRY: &str = if cfg!(feature = "full") {
    APP
} else if cfg!(feature = "chat") {
    CHAT
} else {
    DASHBOARD
};

/// Whether this entry's start-up seeds the demo on a first visit (the dashboard's and the
/// app's; the Docs chat needs no demo, so the chat entry links none of the seeding): its row's
/// `seeds_demo` in [`crate::entries::ENTRIES`].
pub const SEEDS_DEMO: bool = cfg!(feature = "full") || !cfg!(feature = "chat");

/// The entry that owns `route` (`crate::entries`).
pub fn owner(route: &Route) -> &'static str {
    entries::entry_for_path(&route.to_path())
}

/// Whether a page of entry `from` reaches a page of entry `to` in the same document (one
/// entry, or a handover between two that share documents); otherwise by a page load.
pub fn documents_shared(from: &str, to: &str) -> bool {
    let own = |name: &str| entries::ENTRIES.iter().any(|e| e.name == name && e.own_document);
    from == to || !(own(from) || own(to))
}

/// Whether a link from this entry to `route` stays in this document (otherwise it is a plain
/// link: a page load of the route's own document).
pub fn same_document(route: &Route) -> bool {
    documents_shared(THIS_ENTRY, owner(route))
}

/// Props of [`HandOver`].
#[derive(Properties, PartialEq)]
pub struct HandOverProps {
    /// The route another entry owns.
    pub route: Route,
    /// The i18n key of its name (its navigation entry's), the heading while it loads.
    pub title: &'static str,
}

/// The loading state of a route this entry does not link, while the entry that owns it
/// loads and takes over the page; an error with what to do when it cannot be loaded.
#[function_component]
pub fn HandOver(props: &HandOverProps) -> Html {
    let lang = use_app().lang;
    let failed = use_state(|| false);
    let entry = owner(&props.route);
    {
        let failed = failed.clone();
        let path = props.route.to_path();
        use_effect_with(entry, move |entry| load_entry(entry, &path, move || failed.set(true)));
    }
    if *failed {
        return html! {
            <section class="entry-loading">
                <h1>{ t(lang, props.title) }</h1>
                <p class="error-box" role="alert">{ t(lang, "entry.failed") }</p>
            </section>
        };
    }
    loading_state(lang, props.title)
}

/// The loading state of a page on its way: its name (`title`, an i18n key) as the heading, a
/// status line, card placeholders, `aria-busy`. [`HandOver`] draws it while the entry that
/// owns the page loads, and the entry handed over to draws it again while it opens its
/// storage (`app::Frame`), so the heading stays on screen until the page itself is drawn.
pub fn loading_state(lang: geo_core::model::Lang, title: &'static str) -> Html {
    html! {
        <section class="entry-loading" aria-busy="true">
            <h1>{ t(lang, title) }</h1>
            <p class="muted" role="status">{ t(lang, "entry.loading") }</p>
            <div class="skeleton-grid" aria-hidden="true">
                { for (0..3).map(|_| html! { <div class="card skeleton-card"></div> }) }
            </div>
        </section>
    }
}

/// Asks the bootstrap for `entry` (in this document), or loads the document of the route at
/// `path` (its canonical path, with the page's query) when `entry` has one of its own;
/// `on_fail` when there is no bootstrap or the entry cannot be loaded. On success this entry's
/// app is destroyed (or the page left) and nothing more happens here.
fn load_entry(entry: &'static str, path: &str, on_fail: impl FnOnce() + 'static) {
    #[cfg(target_arch = "wasm32")]
    {
        if !documents_shared(THIS_ENTRY, entry) {
            // A page load: the bootstrap starts the entry that owns the path. The route's own
            // path, not the URL as it is: the router reads `/chat/` as the chat's route, the
            // bootstrap would not (that page load would start this entry again, and again).
            let loaded = web_sys::window().and_then(|w| {
                let location = w.location();
                let rest = format!("{}{}", location.search().ok()?, location.hash().ok()?);
                location.replace(&format!("{}{path}{rest}", crate::web::base_path())).ok()
            });
            if loaded.is_none() {
                on_fail();
            }
            return;
        }
        use wasm_bindgen::JsCast;
        let call =
            boot_function("geoLoadEntry").and_then(|f| f.call1(&wasm_bindgen::JsValue::NULL, &entry.into()).ok());
        let Some(promise) = call.and_then(|p| p.dyn_into::<js_sys::Promise>().ok()) else {
            on_fail();
            return;
        };
        wasm_bindgen_futures::spawn_local(async move {
            if wasm_bindgen_futures::JsFuture::from(promise).await.is_err() {
                on_fail();
            }
        });
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        let _ = (entry, path);
        on_fail();
    }
}

/// A function the bootstrap put on `globalThis`.
#[cfg(target_arch = "wasm32")]
fn boot_function(name: &str) -> Option<js_sys::Function> {
    use wasm_bindgen::JsCast;
    js_sys::Reflect::get(&js_sys::global(), &name.into()).ok()?.dyn_into().ok()
}

/// Where the start-up work stands: waiting with what is to run once it has settled, or settled.
enum StartUp {
    Pending(Vec<Box<dyn FnOnce()>>),
    Settled,
}

thread_local! {
    static START_UP: RefCell<StartUp> = const { RefCell::new(StartUp::Pending(Vec::new())) };
    /// The selection handed over by the entry before (`start_app`'s second argument).
    static HANDED_OVER: RefCell<Option<Selection>> = const { RefCell::new(None) };
    /// The selection on screen now, handed over by `stop_app`.
    static ON_SCREEN: RefCell<Selection> = const { RefCell::new(Selection { project: None, run: None }) };
}

/// What the user chose that lives only in the app's memory and survives a handover: the
/// selected project and run (the language and everything stored are in Web Storage and
/// IndexedDB, which every entry reads).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Selection {
    /// The selected project id.
    pub project: Option<String>,
    /// The selected run id (none: the project's newest).
    pub run: Option<String>,
}

/// Between the project and the run in [`Selection::to_text`] (ids hold no control characters).
const SEPARATOR: char = '\u{1f}';

impl Selection {
    /// The text `stop_app` hands to the bootstrap and `start_app` reads back: the two ids
    /// (empty for none) with [`SEPARATOR`] between; no serde here, it would be linked into
    /// the dashboard entry for two strings.
    pub fn to_text(&self) -> String {
        format!("{}{SEPARATOR}{}", self.project.as_deref().unwrap_or(""), self.run.as_deref().unwrap_or(""))
    }

    /// Reads [`Selection::to_text`]'s text; `None` for anything else.
    pub fn from_text(text: &str) -> Option<Selection> {
        let some = |id: &str| (!id.is_empty()).then(|| id.to_owned());
        let (project, run) = text.split_once(SEPARATOR)?;
        Some(Selection { project: some(project), run: some(run) })
    }
}

/// Notes the selection on screen (the root component, at every render).
pub fn note_selection(project: Option<&str>, run: Option<&str>) {
    ON_SCREEN.with(|s| {
        let mut s = s.borrow_mut();
        if s.project.as_deref() != project || s.run.as_deref() != run {
            *s = Selection { project: project.map(str::to_owned), run: run.map(str::to_owned) };
        }
    });
}

/// The selection the entry before handed over, once (the root component's initial state).
pub fn handed_over_selection() -> Option<Selection> {
    HANDED_OVER.with(|h| h.borrow().clone())
}

/// Whether the start-up work has settled ([`start_up_settled`]).
pub fn settled() -> bool {
    START_UP.with(|s| matches!(*s.borrow(), StartUp::Settled))
}

/// Runs `f` once the start-up work has settled (at once when it has).
pub fn when_settled(f: impl FnOnce() + 'static) {
    let now = START_UP.with(|s| match &mut *s.borrow_mut() {
        StartUp::Pending(waiting) => {
            waiting.push(Box::new(f));
            None
        }
        StartUp::Settled => Some(f),
    });
    if let Some(f) = now {
        f();
    }
}

/// The start-up work is over (storage opened or failed, the demo seeded or not): what
/// waited for it runs, and the dashboard entry prefetches the app entry after the next paint.
pub fn start_up_settled() {
    let waiting = START_UP.with(|s| match std::mem::replace(&mut *s.borrow_mut(), StartUp::Settled) {
        StartUp::Pending(waiting) => waiting,
        StartUp::Settled => Vec::new(),
    });
    for f in waiting {
        f();
    }
    #[cfg(target_arch = "wasm32")]
    if THIS_ENTRY == DASHBOARD {
        wasm_bindgen_futures::spawn_local(async {
            crate::web::after_paint().await;
            if let Some(f) = boot_function("geoPrefetchEntry") {
                let _ = f.call1(&wasm_bindgen::JsValue::NULL, &APP.into());
            }
        });
    }
}

/// Notes whether this entry was mounted by a handover and the selection it carries
/// (`start_app`'s second argument, or what a link of another entry's document carried:
/// [`Selection::to_text`]'s text; absent on any other page load).
pub fn set_handed_over(selection: Option<&str>) {
    HANDED_OVER.with(|h| *h.borrow_mut() = selection.map(|t| Selection::from_text(t).unwrap_or_default()));
}

/// The session-storage key under which a link that loads another entry's document leaves
/// the selection on screen ([`note_document_link`]).
const CARRIED_KEY: &str = "geo-probe.carried";

/// A link of this site is loading another entry's document ([`crate::components::NavLink`]):
/// the selection on screen goes with it through session storage (the tab's, which a page load
/// keeps), and the page it opens starts as after a handover: with that selection, the focus
/// on `main`.
pub fn note_document_link() {
    if let Some(s) = crate::web::session_storage() {
        let _ = s.set_item(CARRIED_KEY, &selection_on_screen());
    }
}

/// What a link of this site's other document left for this one ([`note_document_link`]), once:
/// `start_app` passes it to [`set_handed_over`] when no entry handed over in this document.
pub fn carried_by_document_link() -> Option<String> {
    let s = crate::web::session_storage()?;
    let carried = s.get_item(CARRIED_KEY).ok().flatten()?;
    let _ = s.remove_item(CARRIED_KEY);
    Some(carried)
}

/// After a handover (or a page load from another document's link), the focus goes to `main`,
/// where the page the user asked for shows (the element that had it, a link of the entry
/// before, is gone).
pub fn focus_main_if_handed_over() {
    if HANDED_OVER.with(|h| h.borrow().is_some()) {
        crate::hooks::focus("#main");
    }
}

/// The selection on screen, as [`Selection::to_text`] writes it: what `stop_app` (in
/// `lib.rs`, beside `start_app`) resolves with for the next entry's `start_app`.
pub fn selection_on_screen() -> String {
    ON_SCREEN.with(|s| s.borrow().to_text())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::rc::Rc;

    /// A route of every variant (the match makes a new variant a compile error here).
    fn every_route() -> Vec<Route> {
        let all = vec![
            Route::Dashboard,
            Route::Projects,
            Route::Run,
            Route::Runs,
            Route::RunDetail { id: "run_1".into() },
            Route::Engines,
            Route::Sources,
            Route::Actions,
            Route::Claims,
            Route::Lists,
            Route::Export,
            Route::Settings,
            Route::Chat,
            Route::NotFound,
        ];
        for r in &all {
            match r {
                Route::Dashboard
                | Route::Projects
                | Route::Run
                | Route::Runs
                | Route::RunDetail { .. }
                | Route::Engines
                | Route::Sources
                | Route::Actions
                | Route::Claims
                | Route::Lists
                | Route::Export
                | Route::Settings
                | Route::Chat
                | Route::NotFound => {}
            }
        }
        all
    }

    #[test]
    fn the_dashboard_entry_owns_the_dashboard_route_the_chat_entry_the_chat_and_the_app_entry_the_rest() {
        for route in every_route() {
            let expect = match route {
                Route::Dashboard => DASHBOARD,
                Route::Chat => CHAT,
                _ => APP,
            };
            assert_eq!(owner(&route), expect, "{route:?} at {}", route.to_path());
        }
        // This native build is the default one: the app entry, with the chat linked too.
        assert_eq!(THIS_ENTRY, APP);
        let row = entries::ENTRIES.iter().find(|e| e.name == THIS_ENTRY);
        assert_eq!(row.map(|e| e.seeds_demo), Some(SEEDS_DEMO), "SEEDS_DEMO is the table's");
    }

    #[test]
    fn the_chat_is_a_document_of_its_own_and_the_dashboard_and_app_share_theirs() {
        assert!(documents_shared(DASHBOARD, APP));
        assert!(documents_shared(APP, DASHBOARD));
        assert!(documents_shared(CHAT, CHAT));
        for other in [DASHBOARD, APP] {
            assert!(!documents_shared(CHAT, other), "chat → {other}");
            assert!(!documents_shared(other, CHAT), "{other} → chat");
        }
        // From this (the app) entry: the chat's link loads its document, every other stays.
        for route in every_route() {
            assert_eq!(same_document(&route), route != Route::Chat, "{route:?}");
        }
    }

    #[track_caller]
    fn check(path: &str, entry: &str) {
        assert_eq!(entries::entry_for_path(path), entry, "{path}");
    }

    #[test]
    fn deep_links_load_the_entry_that_owns_them() {
        check("/", DASHBOARD);
        check("", DASHBOARD);
        check("/?run=r1", DASHBOARD);
        check("/#main", DASHBOARD);
        check("/chat", CHAT);
        check("/chat?chatTimeoutMs=1500", CHAT);
        check("/chat/more", APP);
        check("/settings?tab=data", APP);
        check("/runs/run_1", APP);
        check("/no-such-page", APP);
    }

    #[test]
    fn the_entries_table_has_one_entry_for_every_other_path_and_it_is_last() {
        let rest: Vec<_> = entries::ENTRIES.iter().filter(|e| e.paths.is_empty()).collect();
        assert_eq!(rest.len(), 1);
        assert_eq!(entries::ENTRIES.last().map(|e| e.name), Some(APP));
        // Each entry's build turns the default features off and names its own (the features
        // this crate's `THIS_ENTRY` and `SEEDS_DEMO` read).
        let features = |name| match name {
            DASHBOARD => vec!["--no-default-features"],
            CHAT => vec!["--no-default-features", "--features", "chat"],
            _ => vec!["--no-default-features", "--features", "full"],
        };
        for e in entries::ENTRIES {
            assert_eq!(e.cargo_args, features(e.name), "{}", e.name);
            assert_eq!(e.seeds_demo, e.name != CHAT, "{}", e.name);
        }
    }

    #[test]
    fn the_selection_on_screen_is_what_the_next_entry_starts_with() {
        note_selection(Some("proj_1"), Some("run_2"));
        let text = selection_on_screen();
        assert_eq!(text, "proj_1\u{1f}run_2");
        assert_eq!(Selection::from_text("\u{1f}"), Some(Selection::default()));
        assert_eq!(Selection::from_text("\u{1f}run_2").and_then(|s| s.run).as_deref(), Some("run_2"));
        assert_eq!(handed_over_selection(), None, "a page load hands nothing over");
        set_handed_over(Some(&text));
        let want = Selection { project: Some("proj_1".into()), run: Some("run_2".into()) };
        assert_eq!(handed_over_selection(), Some(want));
        // A handover whose text cannot be read still moves the focus, with nothing selected.
        set_handed_over(Some("no separator"));
        assert_eq!(handed_over_selection(), Some(Selection::default()));
        set_handed_over(None);
        assert_eq!(handed_over_selection(), None);
    }

    #[test]
    fn what_waits_for_the_start_up_runs_once_it_has_settled() {
        let ran = Rc::new(RefCell::new(Vec::new()));
        let r = ran.clone();
        when_settled(move || r.borrow_mut().push("first"));
        assert!(ran.borrow().is_empty());
        assert!(!settled());
        start_up_settled();
        assert!(settled());
        assert_eq!(*ran.borrow(), ["first"]);
        let r = ran.clone();
        when_settled(move || r.borrow_mut().push("after"));
        assert_eq!(*ran.borrow(), ["first", "after"]);
    }
}
