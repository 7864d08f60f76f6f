//! Goldens: parse + full analysis of every recorded response against the fixture project
//! (`fixtures/project.json`), as insta JSON snapshots of the derived fields; and the
//! idempotence of re-analysis.

use geo_core::analysis::analyze_probe;
use geo_core::model::{Probe, ProbeStatus};
use geo_core::provider::parse_response;

use crate::support::fixture_targets as targets;

fn probe_from(body: &str) -> Option<Probe> {
    let parsed = parse_response(body, "deepseek-v4-flash").ok()?;
    Some(Probe {
        id: "run_golden__p__0".into(),
        run_id: "run_golden".into(),
        project_id: "proj_yuangouchang".into(),
        prompt_id: "p".into(),
        repeat_index: 0,
        status: ProbeStatus::Success,
        created_at: "2026-11-29T08:00:00.000Z".into(),
        model: parsed.model,
        attempts: 1,
        latency_ms: 0,
        error: None,
        request_id: parsed.request_id,
        stop_reason: parsed.stop_reason,
        usage: parsed.usage,
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
    })
}

#[test]
fn analysed() {
    let targets = targets();
    insta::glob!("../../../../fixtures/responses", "*.json", |path| {
        let body = std::fs::read_to_string(path).unwrap();
        let Some(mut probe) = probe_from(&body) else {
            insta::assert_json_snapshot!(serde_json::json!({ "parseError": true }));
            return;
        };
        analyze_probe(&mut probe, &targets);
        let derived = serde_json::json!({
            "answer": probe.answer,
            "sources": probe.sources,
            "mentions": probe.mentions,
            "listItems": probe.list_items,
            "otherEntities": probe.other_entities,
            "answerLinks": probe.answer_links,
        });
        insta::assert_json_snapshot!(derived);
    });
}

#[test]
fn reanalysis_is_idempotent_for_every_fixture() {
    let targets = targets();
    let mut checked = 0;
    for (name, body) in crate::support::response_files() {
        if let Some(mut probe) = probe_from(&body) {
            analyze_probe(&mut probe, &targets);
            let once = probe.clone();
            analyze_probe(&mut probe, &targets);
            assert_eq!(once, probe, "{name}");
            checked += 1;
        }
    }
    assert!(checked >= 15, "only {checked} fixtures parsed");
}
