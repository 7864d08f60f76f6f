//! Helpers every area's tests share: the recorded fixtures on disk, the fixture exports as a
//! command loads them, a target builder, the probe a golden analyses and the derived fields its
//! snapshot holds, and the goldens of a run comparison.
//! (The property-test configuration is in `main.rs`: `crate::config()`.)
#![allow(dead_code)]

use std::path::PathBuf;

pub use crate::builders::{fact, target};
use geo_core::analysis::analyze_envelope;
use geo_core::export::{parse_export, validate_against, ImportLimits};
use geo_core::model::{ExportEnvelope, Probe, ProbeStatus, Target};
use geo_core::provider::ParsedResponse;

/// The workspace's `fixtures/` directory.
pub fn fixtures_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures")
}

/// `fixtures/exports/{name}`, loaded the way every command loads a file: parsed, checked to
/// be self-contained, re-analysed.
pub fn fixture_export(name: &str) -> ExportEnvelope {
    let path = fixtures_dir().join("exports").join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut env = parse_export(&text, &ImportLimits::default()).unwrap();
    assert!(validate_against(&env, &ExportEnvelope::new("")).is_empty(), "{name} is self-contained");
    assert!(analyze_envelope(&mut env).is_empty());
    env
}

/// The goldens of a run comparison `$diff` (a `RunDiff`): `{name}_json`, `{name}_zh`,
/// `{name}_en` and `{name}_summary`. A macro, so that the snapshots keep the name of the module
/// that takes them.
macro_rules! diff_goldens {
    ($name:expr, $diff:expr) => {{
        let (name, diff): (&str, &geo_core::compare::RunDiff) = ($name, $diff);
        insta::assert_snapshot!(format!("{name}_json"), serde_json::to_string_pretty(diff).unwrap());
        insta::assert_snapshot!(
            format!("{name}_zh"),
            geo_core::compare::diff_markdown(diff, geo_core::model::Lang::Zh)
        );
        insta::assert_snapshot!(
            format!("{name}_en"),
            geo_core::compare::diff_markdown(diff, geo_core::model::Lang::En)
        );
        insta::assert_snapshot!(
            format!("{name}_summary"),
            format!(
                "{}\n{}",
                geo_core::compare::diff_summary(diff, geo_core::model::Lang::Zh),
                geo_core::compare::diff_summary(diff, geo_core::model::Lang::En)
            )
        );
    }};
}
pub(crate) use diff_goldens;

/// Every file of `fixtures/<sub>/` whose name ends with `suffix` (`""` for all), as (file
/// name, text), sorted by name.
pub fn fixture_files(sub: &str, suffix: &str) -> Vec<(String, String)> {
    let dir = fixtures_dir().join(sub);
    let mut out: Vec<(String, String)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.file_name().is_some_and(|n| n.to_string_lossy().ends_with(suffix)))
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("cannot read {}: {e}", p.display())))
        })
        .collect();
    out.sort();
    out
}

/// The recorded Messages bodies of `fixtures/responses/` as (file stem, body), sorted.
pub fn response_files() -> Vec<(String, String)> {
    fixture_files("responses", ".json")
        .into_iter()
        .map(|(name, body)| (name.trim_end_matches(".json").to_string(), body))
        .collect()
}

/// The targets of the fixture project (`fixtures/project.json`): brand first.
pub fn fixture_targets() -> Vec<Target> {
    let text = std::fs::read_to_string(fixtures_dir().join("project.json")).expect("fixtures/project.json");
    let env: ExportEnvelope = serde_json::from_str(&text).expect("the fixture project parses");
    env.projects[0].targets()
}

/// The fact sheet of the fixture project (`fixtures/project.json`: its `facts` and
/// `watchTerms`), as a run started on it freezes it.
pub fn fixture_fact_snapshot() -> geo_core::model::FactSnapshot {
    let text = std::fs::read_to_string(fixtures_dir().join("project.json")).expect("fixtures/project.json");
    let env: ExportEnvelope = serde_json::from_str(&text).expect("the fixture project parses");
    env.projects[0].fact_snapshot().expect("the fixture project has a fact sheet")
}

/// A successful probe holding `parsed` as its raw result (derived fields empty): what the
/// analysis goldens analyse.
pub fn golden_probe(parsed: ParsedResponse) -> Probe {
    // `run_golden__p__0`, a success; the rest of the raw result is the parsed response's.
    let mut p = crate::metrics_support::probe("run_golden", "p", 0, ProbeStatus::Success);
    p.project_id = "proj_yuangouchang".into();
    p.latency_ms = 0;
    crate::builders::with_response(p, parsed)
}

/// The derived fields of an analysed probe, as the analysis goldens snapshot them.
pub fn derived_fields(probe: &Probe) -> serde_json::Value {
    serde_json::json!({
        "answer": probe.answer,
        "sources": probe.sources,
        "mentions": probe.mentions,
        "listItems": probe.list_items,
        "otherEntities": probe.other_entities,
        "answerLinks": probe.answer_links,
    })
}

/// The invariants every parsed response keeps, whatever the body: queries numbered 1…n,
/// each query's sources ranked 1…k, sources and citations with a URL, a model name.
pub fn well_formed(p: &geo_core::provider::ParsedResponse) -> Result<(), proptest::test_runner::TestCaseError> {
    well_formed_for(geo_core::model::EngineId::Deepseek, p)
}

/// [`well_formed`] for a reply of `engine`: the Chinese engines keep the engine's own `index`
/// as a source's rank, gaps and all (engines.md, "Chinese engines"), so their ranks are only
/// at least 1; every other engine ranks each query's sources 1…k.
pub fn well_formed_for(
    engine: geo_core::model::EngineId,
    p: &geo_core::provider::ParsedResponse,
) -> Result<(), proptest::test_runner::TestCaseError> {
    use geo_core::model::EngineId;
    use proptest::{prop_assert, prop_assert_eq};
    for (i, q) in p.queries.iter().enumerate() {
        prop_assert_eq!(q.index as usize, i + 1);
        prop_assert_eq!(q.internal, q.query.is_none());
    }
    let own_index = matches!(engine, EngineId::Qwen | EngineId::Doubao | EngineId::Ernie | EngineId::Hunyuan);
    for q in &p.queries {
        let ranks: Vec<u32> = p.raw_sources.iter().filter(|s| s.query_index == q.index).map(|s| s.rank).collect();
        if own_index {
            prop_assert!(ranks.iter().all(|r| *r >= 1), "{:?}", ranks);
        } else {
            prop_assert_eq!(ranks.clone(), (1..=ranks.len() as u32).collect::<Vec<_>>());
        }
    }
    prop_assert!(p.raw_sources.iter().all(|s| s.query_index >= 1 && s.query_index as usize <= p.queries.len()));
    prop_assert!(p.raw_sources.iter().all(|s| !s.url.trim().is_empty()));
    prop_assert!(p.raw_citations.iter().flatten().all(|c| !c.url.trim().is_empty()));
    prop_assert!(!p.model.is_empty());
    Ok(())
}
