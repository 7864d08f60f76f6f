//! Which demo file a first view stands for (issue 39, ADR 0024): the fingerprint of
//! `demo/demo-data.json` and the page's `<meta>` that carries it.
//!
//! `demo/demo-first-view.json` names the fingerprint of the demo file it was computed from;
//! `cargo xtask dist` writes the fingerprint of the demo file it copies into `dist/` into
//! `index.html` and `404.html` ([`META_NAME`]), so the app can accept the first view before the
//! demo file has arrived, and checks the file against it once it has.
//! This file depends on geo-core alone: `xtask` compiles it too (`#[path]`, in its own
//! `demo_fingerprint.rs`), so the page's fingerprint and the first view's are computed by the
//! same function.

/// The `name` of the `<meta>` whose `content` is the demo file's [`fingerprint`].
pub const META_NAME: &str = "geo-demo-fingerprint";

/// The 64-bit FNV-1a hash of `text` ([`geo_core::text::fnv1a64`]), in hex: which demo file a
/// first view was computed from.
pub fn fingerprint(text: &str) -> String {
    format!("fnv1a64:{}", geo_core::text::fnv1a64_hex(text.as_bytes()))
}
