//! geo-web's table of the site's wasm entries (`crates/geo-web/src/entries.rs`), compiled here
//! too: `cargo xtask dist` builds one module per entry and writes the bootstrap's table from it
//! (`dist::boot_script`), so the two cannot drift.

#[path = "../../crates/geo-web/src/entries.rs"]
mod table;

pub use table::*;
