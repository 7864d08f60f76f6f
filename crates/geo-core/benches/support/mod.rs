//! Shared by the benchmarks that analyse recorded responses (`analysis.rs`, `claims.rs`): a
//! probe holding one parsed response as its raw result, as the runner writes it.

use geo_core::model::{Probe, ProbeStatus};
use geo_core::provider::ParsedResponse;

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
    Probe {
        id: place.id,
        run_id: place.run,
        project_id: place.project,
        prompt_id: place.prompt,
        repeat_index: place.repeat,
        status,
        created_at: "2026-11-29T08:00:00.000Z".into(),
        model: parsed.model,
        attempts: 1,
        latency_ms: 12_000,
        error: None,
        request_id: parsed.request_id,
        stop_reason: parsed.stop_reason,
        usage: parsed.usage,
        truncated: false,
        billed_usage: None,
        continuations: 0,
        cost_usd: None,
        raw_answer: parsed.raw_answer,
        queries: parsed.queries,
        raw_sources: parsed.raw_sources,
        raw_citations: parsed.raw_citations,
        answer: String::new(),
        sources: vec![],
        mentions: vec![],
        list_items: vec![],
        other_entities: vec![],
        answer_links: vec![],
        claims: vec![],
        risk_flags: vec![],
        location_applied: Default::default(),
    }
}
