//! GEO Probe in the browser: a Yew shell around `geo-core`.
//!
//! The one decision this crate is built on: **the browser is the whole back end.** There is
//! no server; projects, prompts, runs and probes live in the origin's IndexedDB database
//! `geo-probe`, the API key lives only in `localStorage` or `sessionStorage`, and nothing
//! third-party is ever loaded. Everything that decides a number stays in `geo-core`; this
//! crate only renders, stores and fetches.
//!
//! Layout (the Yew examples' shape):
//! - [`routes`]: the [`routes::Route`] enum and the run detail's query;
//! - [`app`]: the `switch` from route to page and the page frame (navigation, language
//!   toggle, project and run selectors, toasts);
//! - [`pages`]: one file (or folder) per route;
//! - [`components`]: small widgets with `XxxProps` and `on*` callbacks;
//! - [`hooks`]: `use_app` (the shared state) and `use_query` (re-runs a repository read
//!   whenever stored data changes, in this tab or another);
//! - [`state`]: the app-wide reducer: language, open repository, data version, toasts;
//! - [`repo`]: storage behind the [`repo::Repository`] trait — IndexedDB in the browser, an
//!   in-memory twin for native tests;
//! - [`draft`]: pure form logic (project editor, prompt lists, tags), tested natively;
//! - [`fact_draft`]: pure form logic of the fact editor (a fact sheet as typed, its problems
//!   by field), tested natively;
//! - [`i18n`]: the `t(lang, key)` table, Chinese first;
//! - [`chat`]: the Docs chat's non-rendering parts (citations, file checks, samples, streaming fetch);
//! - [`transport`]: the browser transport of the runner and the key tests (`fetch`, capped, no redirects);
//! - [`prefs`]: the few values kept in Web Storage (language, API key, key storage);
//! - [`settings_store`]: the settings keys of each engine's base URL and the base-URL check;
//! - [`demo`]: seeding, restoring and deleting the demo project (seed §8.2); [`demo_fingerprint`]: which
//!   demo file a first view stands for, as the page names it (xtask compiles it too);
//! - [`import_worker`]: the settings import, run off the main thread in a Web Worker;
//! - [`capture_import`]: captured app answers as an `app` run (the runs page, through the import worker);
//! - [`entries`]: which wasm entry of the site owns which page; [`handover`]: the loading state and the
//!   handover from the dashboard entry to the app entry (the feature `full`) in one document, and
//!   to and from the chat entry (the feature `chat`) by a page load (ADR 0025).

#![warn(missing_docs)]

pub mod app;
pub mod capture_import;
pub mod chat;
pub mod components;
pub mod demo;
pub mod demo_fingerprint;
pub mod draft;
pub mod entries;
pub mod fact_draft;
pub mod handover;
pub mod hooks;
pub mod i18n;
pub mod import_worker;
pub mod pages;
pub mod prefs;
pub mod repo;
pub mod routes;
pub mod runner;
pub mod settings_store;
pub mod state;
pub mod transport;
pub mod web;

pub use repo::self_test::migration_self_test;

/// Mounts the app on `<body>`; the bootstrap (`boot-*.js`, written by `cargo xtask dist`)
/// calls it once the module is instantiated, naming the import worker's script
/// ([`import_worker`]) and, when another entry handed the page over, what it carries
/// ([`handover::Selection`]; after a link from another entry's document, what that link left
/// in session storage).
/// Not a wasm-bindgen `start` function: the import worker instantiates this same module, and
/// it must not render there.
#[cfg(target_arch = "wasm32")]
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn start_app(import_worker: Option<String>, handed_over: Option<String>) {
    // The module is downloaded, compiled and instantiated: `cargo xtask bench-first-visit`
    // splits a first visit's time at this mark.
    web::mark("geo:start");
    import_worker::set_worker_url(import_worker);
    // Handed over in this document, or carried by a link from another entry's document.
    let handed_over = handed_over.or_else(handover::carried_by_document_link);
    handover::set_handed_over(handed_over.as_deref());
    let handle = yew::Renderer::<app::App>::new().render();
    APP_HANDLE.with(|h| *h.borrow_mut() = Some(handle));
}

#[cfg(target_arch = "wasm32")]
thread_local! {
    /// The mounted app, so that `stop_app` can destroy it.
    static APP_HANDLE: std::cell::RefCell<Option<yew::AppHandle<app::App>>> = const { std::cell::RefCell::new(None) };
}

/// The bootstrap's call before another entry mounts (ADR 0025, [`handover`]): resolves once
/// the start-up work has settled and this entry's app is destroyed, with the selection on
/// screen ([`handover::Selection::to_text`]) for the next entry's `start_app`. Only the
/// dashboard entry has it (the chat entry hands over by a page load).
#[cfg(all(target_arch = "wasm32", not(any(feature = "full", feature = "chat"))))]
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn stop_app() -> js_sys::Promise {
    js_sys::Promise::new(&mut |resolve, _| {
        handover::when_settled(move || {
            if let Some(handle) = APP_HANDLE.with(|h| h.borrow_mut().take()) {
                handle.destroy();
            }
            let selection = handover::selection_on_screen();
            let _ = resolve.call1(&wasm_bindgen::JsValue::UNDEFINED, &selection.into());
        });
    })
}
