//! Goldens of "What the answers say" on every recorded answer: each fixture of
//! `fixtures/responses/` (DeepSeek's, no citation markers) and of `fixtures/engines/<engine>/`
//! (each engine's own marker rule) analysed with the fixture project's targets and its starter
//! fact sheet (`fixtures/project.json`: `facts` and `watchTerms`), as insta JSON snapshots of
//! the probe's `claims` and `riskFlags` (`it__claims_goldens__…@<fixture>.json.snap`).
//!
//! The sheet was written from what the recorded answers say (docs/metrics.md, "What the
//! answers say"), so the goldens hold consistent, contradicting and unverified claims, watch
//! flags, and the readings the rules cannot make (a value in words, a multiplier after a
//! space, a subject cut off by a blank line, a sentence naming three targets).

use std::path::Path;

use geo_core::analysis::RunAnalyzer;
use geo_core::model::{EngineId, Probe};
use geo_core::provider::{parse_engine_response, spec};

use crate::support::{fixture_fact_snapshot, fixture_targets, golden_probe};

/// The probe's findings as the goldens hold them.
fn findings(probe: &Probe) -> serde_json::Value {
    serde_json::json!({ "claims": probe.claims, "riskFlags": probe.risk_flags })
}

/// `probe` analysed as a probe of a run of `engine` on the fixture project, twice (the second
/// analysis must change nothing).
fn analysed(mut probe: Probe, engine: EngineId) -> Probe {
    let (targets, sheet) = (fixture_targets(), fixture_fact_snapshot());
    let analyzer = RunAnalyzer::with_facts(&targets, Some(&sheet), engine);
    analyzer.analyze(&mut probe);
    let once = probe.clone();
    analyzer.analyze(&mut probe);
    assert_eq!(once, probe, "re-analysis is idempotent");
    probe
}

#[test]
fn responses() {
    insta::glob!("../../../../fixtures/responses", "*.json", |path| {
        let body = std::fs::read_to_string(path).unwrap();
        match parse_engine_response(EngineId::Deepseek, &body, "deepseek-v4-flash") {
            Ok(parsed) => insta::assert_json_snapshot!(findings(&analysed(golden_probe(parsed), EngineId::Deepseek))),
            Err(_) => insta::assert_json_snapshot!(serde_json::json!({ "parseError": true })),
        }
    });
}

/// The engine a fixture belongs to: the name of its directory under `fixtures/engines/`.
fn engine_of(path: &Path) -> EngineId {
    let dir = path.ancestors().find_map(|p| EngineId::parse(p.file_name()?.to_str()?));
    dir.unwrap_or_else(|| panic!("{} is not under an engine directory", path.display()))
}

/// Every answer fixture (`pNN_…`, `tNN_…`; a refusal has no answer).
#[test]
fn engines() {
    insta::glob!("../../../../fixtures/engines", "*/[pt]*.json", |path| {
        let engine = engine_of(path);
        let body = std::fs::read_to_string(path).unwrap();
        let parsed =
            parse_engine_response(engine, &body, spec(engine).default_model).expect("every engine fixture parses");
        insta::assert_json_snapshot!(findings(&analysed(golden_probe(parsed), engine)));
    });
}
