//! Which wasm entry of the site owns which page (issue 39, ADR 0025): the one table of it.
//!
//! The site is this crate built more than once with different cargo features: the
//! dashboard entry (`--no-default-features`) links the dashboard's path only, the app entry
//! (the default feature `full`) every page. The bootstrap that `cargo xtask dist` writes
//! picks the entry a page load needs from its path, and a reduced entry hands any other
//! route over to the entry that owns it (`crate::handover`).
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
}

/// The entry of the dashboard alone: what a first visit to the site's root downloads.
pub const DASHBOARD: &str = "dashboard";
/// The entry of the whole app: every page, the import worker's module.
pub const APP: &str = "app";

/// Every entry, the one that owns every other path last.
pub const ENTRIES: &[Entry] = &[
    Entry { name: DASHBOARD, cargo_args: &["--no-default-features"], paths: &["/"] },
    Entry { name: APP, cargo_args: &[], paths: &[] },
];

/// The name of the entry that owns a route path (relative to `<base href>`; a query or a
/// fragment is ignored, an empty path is the root).
pub fn entry_for_path(path: &str) -> &'static str {
    let path = path.split(['?', '#']).next().unwrap_or("");
    let path = if path.is_empty() { "/" } else { path };
    ENTRIES.iter().find(|e| e.paths.contains(&path)).map_or(APP, |e| e.name)
}
