//! The record builders every kind of geo-core test shares, in one file that each includes:
//! the integration tests (`mod builders` of `tests/it`), the unit tests (`crate::builders`,
//! by path, with the crate naming itself `geo_core`) and the benchmarks (by path).
#![allow(dead_code)]

use geo_core::model::{probe_id, Fact, FactKind, Probe, ProbeStatus, RawSource, Target, TargetKind, Usage};
use geo_core::provider::ParsedResponse;

/// A target from string slices.
pub fn target(id: &str, kind: TargetKind, label: &str, aliases: &[&str], domains: &[&str]) -> Target {
    Target {
        id: id.into(),
        kind,
        label: label.into(),
        aliases: aliases.iter().map(|s| s.to_string()).collect(),
        domains: domains.iter().map(|s| s.to_string()).collect(),
    }
}

/// A fact of `target` labelled with its id, read by `cues`, with no value, currency,
/// tolerance or accepted and rejected wordings (a test sets those it means).
pub fn fact(id: &str, target: &str, kind: FactKind, cues: &[&str]) -> Fact {
    Fact {
        id: id.into(),
        target_id: target.into(),
        label: id.into(),
        kind,
        cues: cues.iter().map(|c| c.to_string()).collect(),
        value: None,
        currency: None,
        tolerance: None,
        accepted: vec![],
        rejected: vec![],
    }
}

/// A target named by `aliases`, labelled with the first (else its id), with no domains.
pub fn aliased(id: &str, kind: TargetKind, aliases: &[&str]) -> Target {
    target(id, kind, aliases.first().copied().unwrap_or(id), aliases, &[])
}

/// Probe `repeat` of `prompt` in `run` (project `proj`) with `status`: one attempt of 20 s at
/// 2026-11-29T08:00Z by `deepseek-v4-flash`, 10,000 tokens in, 1,000 out, two searches, an
/// empty raw result and nothing derived yet.
pub fn probe(run: &str, prompt: &str, repeat: u32, status: ProbeStatus) -> Probe {
    Probe {
        model: "deepseek-v4-flash".into(),
        attempts: 1,
        latency_ms: 20_000,
        stop_reason: Some("end_turn".into()),
        usage: usage(10_000, 1_000, 0, 2),
        ..Probe::unanalysed(
            probe_id(run, prompt, repeat),
            run,
            "proj",
            prompt,
            repeat,
            status,
            "2026-11-29T08:00:00.000Z".into(),
        )
    }
}

/// `probe` holding `parsed` as its raw result (its model, ids, usage, answer, searches,
/// sources and citations), as the runner writes a reply.
pub fn with_response(mut probe: Probe, parsed: ParsedResponse) -> Probe {
    probe.model = parsed.model;
    probe.request_id = parsed.request_id;
    probe.stop_reason = parsed.stop_reason;
    probe.usage = parsed.usage;
    probe.raw_answer = parsed.raw_answer;
    probe.queries = parsed.queries;
    probe.raw_sources = parsed.raw_sources;
    probe.raw_citations = parsed.raw_citations;
    probe
}

/// Token and search usage: `input` tokens in (cache hits apart), `output` out, `cached`
/// read from the cache, `searches` web searches, no search context size.
pub fn usage(input: u64, output: u64, cached: u64, searches: u64) -> Usage {
    Usage {
        input_tokens: input,
        output_tokens: output,
        cache_read_input_tokens: cached,
        web_search_requests: searches,
        search_context_size: None,
    }
}

/// Result `rank` of search `query_index`: `url` titled `title`, with its page age if any and
/// no site name.
pub fn raw_source(query_index: u32, rank: u32, title: &str, url: &str, page_age: Option<&str>) -> RawSource {
    RawSource {
        query_index,
        rank,
        title: title.into(),
        url: url.into(),
        page_age: page_age.map(str::to_string),
        site_name: None,
    }
}
