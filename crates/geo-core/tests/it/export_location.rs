//! Where and how a run measured, through the import: an older export reads unchanged (no
//! location, `api`, `none`), the new fields round-trip, a malformed country, region, city or
//! timezone is refused at its path with a clear problem, and an `app` run's budget is `null`
//! while every other run still needs one.

use crate::export_support::{sample_store, EXPORTED_AT};
use geo_core::export::{full_export, parse_export, to_json_pretty, ImportLimits};
use geo_core::model::{EngineId, Location, LocationApplied, RunConfig, Surface};
use serde_json::{json, Value};

fn export_json() -> Value {
    let s = sample_store();
    serde_json::from_str(&to_json_pretty(&full_export(s.projects, s.prompts, s.runs, s.probes, EXPORTED_AT))).unwrap()
}

fn with(mutate: impl FnOnce(&mut Value)) -> String {
    let mut v = export_json();
    mutate(&mut v);
    serde_json::to_string(&v).unwrap()
}

/// The problems of an import that must fail, as `path: message` lines.
#[track_caller]
fn refused(text: &str) -> Vec<String> {
    match parse_export(text, &ImportLimits::default()) {
        Ok(_) => panic!("accepted"),
        Err(e) => e.problems.iter().map(ToString::to_string).collect(),
    }
}

#[test]
fn an_older_export_reads_as_api_without_a_location() {
    let env = parse_export(&with(|_| {}), &ImportLimits::default()).unwrap();
    assert!(env
        .runs
        .iter()
        .all(|r| r.surface == Surface::Api && r.config.location.is_none() && r.config.location_prompt));
    assert!(env.probes.iter().all(|p| p.location_applied == LocationApplied::None));
    // Written back, none of the new fields appears: the file is the same.
    let text = to_json_pretty(&env);
    for key in ["\"surface\"", "\"location\"", "\"locationPrompt\"", "\"locationApplied\""] {
        assert!(!text.contains(key), "{key}");
    }
}

#[test]
fn the_new_fields_round_trip() {
    let text = with(|v| {
        v["runs"][0]["config"]["location"] =
            json!({"country": "CN", "region": "浙江", "city": "杭州", "timezone": "Asia/Shanghai"});
        v["runs"][0]["config"]["locationPrompt"] = json!(false);
        v["probes"][0]["locationApplied"] = json!("prompt");
    });
    let env = parse_export(&text, &ImportLimits::default()).unwrap();
    let run = &env.runs[0];
    assert_eq!(run.config.location.as_ref().map(Location::label).as_deref(), Some("杭州, 浙江, CN (Asia/Shanghai)"));
    assert!(!run.config.location_prompt);
    assert_eq!(env.probes[0].location_applied, LocationApplied::Prompt);
    let again = parse_export(&to_json_pretty(&env), &ImportLimits::default()).unwrap();
    assert_eq!(again, env);
}

#[test]
fn a_malformed_location_is_refused_at_its_path() {
    let at = |location: Value| {
        refused(&with(|v| {
            v["runs"][1]["config"]["location"] = location;
        }))
    };
    let first = |problems: Vec<String>| problems.into_iter().next().unwrap();
    assert!(first(at(json!({"country": "China"})))
        .starts_with("runs[1].config.location.country: country \"China\" is not a two-letter"));
    assert!(first(at(json!({"country": "cn"}))).contains("upper case"));
    assert!(first(at(json!({"country": "CN", "timezone": "Beijing"})))
        .starts_with("runs[1].config.location.timezone: timezone \"Beijing\" is not an IANA"));
    assert!(first(at(json!({"country": "CN", "region": "  "}))).starts_with("runs[1].config.location.region:"));
    assert!(first(at(json!({"country": "CN", "city": "a\nb"}))).starts_with("runs[1].config.location.city:"));
    assert_eq!(
        first(at(json!({"region": "Zhejiang"}))),
        "runs[1].config.location.country: required field is missing or null"
    );
    assert!(first(at(json!("CN"))).starts_with("runs[1].config.location: expected object"));
    let bad_enum = refused(&with(|v| {
        v["runs"][0]["surface"] = json!("web");
        v["probes"][0]["locationApplied"] = json!("header");
    }));
    assert_eq!(
        bad_enum,
        [
            "runs[0].surface: expected one of api|app, got \"web\"",
            "probes[0].locationApplied: expected one of request|prompt|none, got \"header\"",
        ]
    );
}

#[test]
fn only_an_app_run_may_leave_its_budget_null() {
    // An API run still needs every budget field.
    let problems = refused(&with(|v| {
        v["runs"][0]["config"]["maxTokens"] = Value::Null;
        v["runs"][0]["config"].as_object_mut().unwrap().remove("temperature");
    }));
    assert_eq!(
        problems,
        [
            "runs[0].config.maxTokens: required field is missing or null",
            "runs[0].config.temperature: required field is missing or null"
        ]
    );
    // An app run has none: null in, null out.
    let text = with(|v| {
        v["runs"][0]["surface"] = json!("app");
        let config = RunConfig::for_app(EngineId::Openai, 2, None);
        v["runs"][0]["config"] = serde_json::to_value(&config).unwrap();
    });
    let env = parse_export(&text, &ImportLimits::default()).unwrap();
    assert_eq!(env.runs[0].surface, Surface::App);
    assert!(env.runs[0].config.is_captured());
    let written: Value = serde_json::from_str(&to_json_pretty(&env)).unwrap();
    assert_eq!(written["runs"][0]["surface"], "app");
    for field in geo_core::export::BUDGET_FIELDS {
        assert_eq!(written["runs"][0]["config"][field], Value::Null, "{field}");
    }
}
