//! Goldens of every engine's recorded responses (`fixtures/engines/<engine>/*.json`): the
//! parsed raw result and the derived fields against the fixture project, as insta JSON
//! snapshots (`it__engine_goldens__…@<engine>__<fixture>.json.snap`); and every recorded error
//! body mapped with its engine's rules (`…@<engine>__errors__<status>_….snap`).

use std::path::Path;

use geo_core::analysis::analyze_probe;
use geo_core::model::EngineId;
use geo_core::provider::{map_engine_http_error, parse_engine_response, spec, ParsedResponse};

use crate::support::{derived_fields, fixture_targets as targets, golden_probe};

/// The engine a fixture belongs to: the name of its directory under `fixtures/engines/`.
fn engine_of(path: &Path) -> EngineId {
    let dir = path.ancestors().find_map(|p| EngineId::parse(p.file_name()?.to_str()?));
    dir.unwrap_or_else(|| panic!("{} is not under an engine directory", path.display()))
}

fn parse(path: &Path) -> Result<ParsedResponse, geo_core::model::ProbeError> {
    let engine = engine_of(path);
    parse_engine_response(engine, &std::fs::read_to_string(path).unwrap(), spec(engine).default_model)
}

#[test]
fn parsed() {
    insta::glob!("../../../../fixtures/engines", "*/*.json", |path| {
        let result = match parse(path) {
            Ok(p) => serde_json::to_value(p).unwrap(),
            Err(e) => serde_json::json!({ "error": e }),
        };
        insta::assert_json_snapshot!(result);
    });
}

/// Every answer fixture (`pNN_…`, `tNN_…`); a refusal at HTTP 200 (`rNN_…`) has no raw result
/// to analyse (its `parsed` snapshot is the `refused` error).
#[test]
fn analysed() {
    let targets = targets();
    insta::glob!("../../../../fixtures/engines", "*/[pt]*.json", |path| {
        let mut probe = golden_probe(parse(path).expect("every engine fixture parses"));
        analyze_probe(&mut probe, &targets);
        let once = probe.clone();
        analyze_probe(&mut probe, &targets);
        assert_eq!(once, probe, "re-analysis is idempotent");
        insta::assert_json_snapshot!(derived_fields(&probe));
    });
}

#[test]
fn errors() {
    insta::glob!("../../../../fixtures/engines", "*/errors/*", |path| {
        let name = path.file_name().unwrap().to_str().unwrap();
        let status: u16 = name.split('_').next().unwrap().parse().expect("file names start with the status");
        let err = map_engine_http_error(engine_of(path), status, &std::fs::read_to_string(path).unwrap());
        insta::assert_json_snapshot!(err);
    });
}
