//! Goldens: parse + full analysis of every recorded response against the fixture project
//! (`fixtures/project.json`), as insta JSON snapshots of the derived fields; and the
//! idempotence of re-analysis.

use geo_core::analysis::analyze_probe;
use geo_core::model::{EngineId, Probe};
use geo_core::provider::parse_engine_response;

use crate::support::{derived_fields, fixture_targets as targets, golden_probe};

fn probe_from(body: &str) -> Option<Probe> {
    parse_engine_response(EngineId::Deepseek, body, "deepseek-v4-flash").ok().map(golden_probe)
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
        insta::assert_json_snapshot!(derived_fields(&probe));
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
