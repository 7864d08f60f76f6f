//! Which wasm entry of the site owns which page (issue 39, ADR 0025): the one table of it.
//!
//! The site is this crate built more than once with different cargo features: the
//! dashboard entry (no feature) links the dashboard's path only, the chat entry (`chat`) the
//! Docs chat's, the app entry (`full`) every other page; the default build (both features)
//! links every page, for native tests. The bootstrap that `cargo xtask dist` writes picks the
//! entry a page load needs from its path. A reduced entry hands a route it does not link over
//! to the entry that owns it (`crate::handover`): in the same document when both share one
//! (the dashboard's and the app's), by a document navigation (a page load) when either has a
//! document of its own (the chat's).
//! This file depends on nothing, not even `std`'s prelude beyond slices: `xtask` compiles it
//! too (`#[path]`), so the bootstrap's table is generated from this one and cannot drift.

/// One wasm entry of the site: a build of `geo-web` and the route paths it owns.
#[derive(Debug, Clone, Copy)]
pub struct Entry {
    /// Its name: the bootstrap's key and the stem of its files in `dist/`.
    pub name: &'static str,
    /// The feature arguments of its `cargo build -p geo-web`.
    pub cargo_args: &'static [&'static str],
    /// The route paths (relative to `<base href>`, no query) it owns; empty for the entry
    /// that owns every other path.
    pub paths: &'static [&'static str],
    /// Whether its pages are a document of their own: links between them and other entries'
    /// pages load a new document (a separate tool, ADR 0025), so no entry ever hands a
    /// document back and no module is started twice in one document.
    pub own_document: bool,
    /// Whether its start-up seeds the demo on a first visit, and so reads the demo's first
    /// view (ADR 0024), which its page preloads.
    pub seeds_demo: bool,
}

/// The entry of the dashboard alone: what a first visit to the site's root downloads.
pub const DASHBOARD: &str = "dashboard";
/// The entry of the Docs chat alone: a separate tool, with a document of its own.
pub const CHAT: &str = "chat";
/// The entry of the app: every page but the Docs chat, the import worker's module.
pub const APP: &str = "app";

/// Every entry, the one that owns every other path last.
pub const ENTRIES: &[Entry] = &[
    Entry {
        name: DASHBOARD,
        cargo_args: &["--no-default-features"],
        paths: &["/"],
        own_document: false,
        seeds_demo: true,
    },
    Entry {
        name: CHAT,
        cargo_args: &["--no-default-features", "--features", "chat"],
        paths: &["/chat"],
        own_document: true,
        seeds_demo: false,
    },
    Entry {
        name: APP,
        cargo_args: &["--no-default-features", "--features", "full"],
        paths: &[],
        own_document: false,
        seeds_demo: true,
    },
];

/// The name of the entry that owns a route path (relative to `<base href>`; a query or a
/// fragment is ignored, an empty path is the root).
pub fn entry_for_path(path: &str) -> &'static str {
    let path = path.split(['?', '#']).next().unwrap_or("");
    let path = if path.is_empty() { "/" } else { path };
    ENTRIES.iter().find(|e| e.paths.contains(&path)).map_or(APP, |e| e.name)
}
