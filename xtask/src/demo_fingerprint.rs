//! geo-web's demo fingerprint (`crates/geo-web/src/demo_fingerprint.rs`), compiled here too:
//! `cargo xtask dist` writes the demo file's into the pages with the very function the first
//! view's was computed with (geo-core's one FNV-1a). A file of its own, as `entries.rs`, so
//! that no xtask file imports the crate root that declares it.

#[path = "../../crates/geo-web/src/demo_fingerprint.rs"]
mod shared;

pub use shared::*;
