//! GEO Probe's pure core.
//!
//! Everything that decides a number lives here and nowhere else: the snapshot model,
//! the provider wire format, the five analysis steps, metrics, insights, cost, exports,
//! import, the runner's decisions and the docs-chat retrieval. The crate performs no I/O,
//! reads no clock and draws no randomness of its own: time, ids and random numbers are
//! inputs. That is what lets the browser (wasm32) and the terminal share one behaviour,
//! golden-tested natively against recorded responses.

#![warn(missing_docs)]

pub mod analysis;
pub mod chat;
pub mod export;
pub mod metrics;
pub mod model;
pub mod provider;
pub mod runner;
