//! Exports (§8.3) and import.
pub mod markdown;
