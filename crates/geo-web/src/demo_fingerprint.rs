//! Which demo file a first view stands for (issue 39, ADR 0024): the fingerprint of
//! `demo/demo-data.json` and the page's `<meta>` that carries it.
//!
//! `demo/demo-first-view.json` names the fingerprint of the demo file it was computed from;
//! `cargo xtask dist` writes the fingerprint of the demo file it copies into `dist/` into
//! `index.html` and `404.html` ([`META_NAME`]), so the app can accept the first view before the
//! demo file has arrived, and checks the file against it once it has.
//! This file depends on nothing: `xtask` compiles it too (`#[path]`), so the page's
//! fingerprint and the first view's are computed by the same function.

/// The `name` of the `<meta>` whose `content` is the demo file's [`fingerprint`].
pub const META_NAME: &str = "geo-demo-fingerprint";

/// The 64-bit FNV-1a hash of `text`, in hex: which demo file a first view was computed from.
pub fn fingerprint(text: &str) -> String {
    let hash = text.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3));
    format!("fnv1a64:{hash:016x}")
}
