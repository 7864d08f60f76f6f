//! Shared by the benchmarks that analyse recorded responses (`analysis.rs`, `claims.rs`): a
//! probe holding one parsed response as its raw result, as the runner writes it.

use geo_core::model::{Probe, ProbeStatus};
use geo_core::provider::ParsedResponse;

#[path = "../../tests/it/builders.rs"]
mod builders;

/// Where a probe belongs: its id, run, project and prompt, and its repeat index.
pub struct Place {
    pub id: String,
    pub run: String,
    pub project: String,
    pub prompt: String,
    pub repeat: u32,
}

/// A probe at `place` with `status` whose raw result is `parsed` (one attempt of 12 s at
/// 2026-11-29T08:00Z), nothing derived yet.
pub fn raw_probe(place: Place, status: ProbeStatus, parsed: ParsedResponse) -> Probe {
    let mut p = builders::probe(&place.run, &place.prompt, place.repeat, status);
    p.id = place.id;
    p.project_id = place.project;
    p.latency_ms = 12_000;
    builders::with_response(p, parsed)
}
