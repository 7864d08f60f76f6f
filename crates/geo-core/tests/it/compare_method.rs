//! Comparisons that notice when the method changed, on `fixtures/exports/method.json`: `diff`
//! between runs whose served model changed, then whose location changed (not comparable, the
//! changed `method` keys named first in the Markdown and the summary, zh and en), and `engines`
//! with an engine's API and app runs side by side and the gap between them. Goldens:
//! `it__compare_method__*`.

use crate::support::diff_goldens;
use geo_core::compare::{diff_export, diff_markdown, diff_summary, engines_for_export, RunDiff};
use geo_core::metrics::METHOD_FIELDS;
use geo_core::model::{EngineId, ExportEnvelope, Lang, Surface};
use serde_json::Value;

fn load() -> ExportEnvelope {
    crate::support::fixture_export("method.json")
}

fn fields(diff: &RunDiff) -> Vec<&'static str> {
    diff.method_changes.iter().map(|c| c.field).collect()
}

/// The first paragraph after a Markdown report's title.
fn first_paragraph(md: &str) -> &str {
    let after_title = md.split_once("\n\n").map(|(_, rest)| rest).unwrap_or("");
    after_title.split("\n\n").next().unwrap_or("")
}

#[test]
fn a_changed_served_model_is_not_comparable_and_named_first() {
    let env = load();
    let diff = diff_export(&env, Some("run_m_b"), None).unwrap();
    assert_eq!(diff.against_id, "run_m_a");
    assert!(!diff.comparable);
    assert_eq!(fields(&diff), ["servedModels"]);
    assert_eq!(diff.method_changes[0].against, serde_json::json!(["deepseek-v4-flash"]));
    assert_eq!(diff.method_changes[0].current, serde_json::json!(["deepseek-v4-flash-0601"]));
    for lang in [Lang::Zh, Lang::En] {
        let md = diff_markdown(&diff, lang);
        assert!(first_paragraph(&md).starts_with("servedModels "), "{lang:?}: {md}");
        assert!(diff_summary(&diff, lang).starts_with("servedModels "), "{lang:?}");
    }
    let json: Value = serde_json::to_value(&diff).unwrap();
    assert_eq!(json["comparable"], false);
    diff_goldens!("served_model", &diff);
}

#[test]
fn a_location_added_is_not_comparable_either() {
    let env = load();
    let diff = diff_export(&env, None, None).unwrap_err();
    // The newest run is an app run without a previous one: `diff` says what to pass.
    assert!(diff.to_string().contains("--against"), "{diff}");
    let diff = diff_export(&env, Some("run_m_c"), None).unwrap();
    assert_eq!(diff.against_id, "run_m_b");
    assert_eq!(fields(&diff), ["location", "locationApplied"]);
    let md = diff_markdown(&diff, Lang::En);
    assert!(first_paragraph(&md).starts_with("location, locationApplied changed"), "{md}");
    assert!(md.contains("| `location` | — | Hangzhou, Zhejiang, CN (Asia/Shanghai) |"), "{md}");
    diff_goldens!("location_changed", &diff);
}

#[test]
fn the_same_method_stays_comparable_and_says_nothing_new() {
    let env = load();
    let same = diff_export(&env, Some("run_m_c"), Some("run_m_c")).unwrap();
    assert!(same.comparable && same.method_changes.is_empty());
    let md = diff_markdown(&same, Lang::En);
    assert!(first_paragraph(&md).starts_with("**Verdict"), "{md}");
    assert!(diff_summary(&same, Lang::En).starts_with("GEO Probe: "));
    // An API run against the same engine's app run: the surface and the budget differ, every
    // method key but the engine and the reasoning effort (neither run asks one), in order.
    let surfaces = diff_export(&env, Some("run_m_ds_app"), Some("run_m_c")).unwrap();
    let same = ["engine", "reasoningEffort"];
    let differing: Vec<&str> = METHOD_FIELDS.into_iter().filter(|f| !same.contains(f)).collect();
    assert_eq!(differing.len(), 9);
    assert_eq!(fields(&surfaces), differing);
}

#[test]
fn engines_put_each_engines_api_and_app_side_by_side() {
    let env = load();
    let c = engines_for_export(&env, None).unwrap();
    let columns: Vec<(EngineId, Surface, &str, &str)> =
        c.engines.iter().map(|e| (e.engine, e.surface, e.run_id.as_str(), e.model.as_str())).collect();
    assert_eq!(
        columns,
        [
            (EngineId::Deepseek, Surface::Api, "run_m_c", "deepseek-v4-flash-0601"),
            (EngineId::Deepseek, Surface::App, "run_m_ds_app", "app"),
            (EngineId::Openai, Surface::Api, "run_m_openai", "gpt-5-mini-2025-08-07"),
            (EngineId::Openai, Surface::App, "run_m_openai_app", "app"),
        ],
        "the served model per api row, the requested model (app) per app row"
    );
    let json: Value = serde_json::to_value(&c).unwrap();
    let keys: Vec<&str> = json["prompts"][0]["mentionRate"].as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(keys.len(), 4);
    for key in ["deepseek", "deepseek:app", "openai", "openai:app"] {
        assert!(keys.contains(&key), "{key} in {keys:?}");
    }
    assert_eq!(c.surface_gaps.len(), 2);
    let ds = &c.surface_gaps[0];
    assert_eq!(
        (ds.engine, ds.api_run_id.as_str(), ds.app_run_id.as_str()),
        (EngineId::Deepseek, "run_m_c", "run_m_ds_app")
    );
    // Against the api run (7 of 12 name the brand), current the app run (3 of 12).
    assert_eq!((ds.mention_rate.against_count, ds.mention_rate.against_n), (7, 12));
    assert_eq!((ds.mention_rate.current_count, ds.mention_rate.current_n), (3, 12));
    assert!(ds.domain_overlap.is_some_and(|j| j > 0.0 && j < 1.0), "{:?}", ds.domain_overlap);
    insta::assert_snapshot!("engines_surfaces_json", serde_json::to_string_pretty(&c).unwrap());
}
