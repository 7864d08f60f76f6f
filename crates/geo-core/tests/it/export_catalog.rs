//! `export::catalog`: the lists `geo-probe mcp` browses (projects, runs, default run, top
//! domains, one probe) on the hand-built metrics sample.

use crate::metrics_support::sample_envelope;
use geo_core::export::{self, CatalogError};
use geo_core::metrics::metrics_for_export;
use geo_core::model::*;
use serde_json::json;

#[test]
fn projects_carry_labels_and_counts() {
    let env = sample_envelope();
    let got = serde_json::to_value(export::project_summaries(&env)).unwrap();
    assert_eq!(
        got,
        json!([{ "id": "proj", "name": "Acme | 艾克米 <b>", "brand": "Acme", "competitors": ["Beta", "Gamma"],
                 "promptCount": 3, "runCount": 2 }])
    );
}

#[test]
fn runs_come_in_created_at_order_with_probe_counts() {
    let env = sample_envelope();
    let runs = export::run_summaries(&env, None).unwrap();
    let got: Vec<(&str, u32, u32)> = runs.iter().map(|r| (r.id.as_str(), r.probe_count, r.success_count)).collect();
    assert_eq!(got, [("r1", 2, 1), ("r2", 7, 5)]);
    let first = serde_json::to_value(&runs[0]).unwrap();
    assert_eq!(first["engine"], "deepseek");
    assert_eq!(first["status"], "completed");
    assert_eq!(first["projectId"], "proj");
    assert_eq!(first["createdAt"], "2026-11-20T08:00:00.000Z");
    assert_eq!(export::run_summaries(&env, Some("proj")).unwrap(), runs);
}

#[test]
fn unknown_ids_are_errors_that_name_them() {
    let env = sample_envelope();
    let err = export::run_summaries(&env, Some("nope")).unwrap_err();
    assert_eq!(err, CatalogError::UnknownProject { project_id: "nope".into(), available: vec!["proj".into()] });
    assert_eq!(err.to_string(), "project `nope` is not in the export: use one of `proj`");
    let err = export::find_probe(&env, "r2__p9__0").unwrap_err();
    assert!(err.to_string().starts_with("probe `r2__p9__0` is not in the export"), "{err}");
    assert_eq!(export::find_probe(&env, "r2__p2__1").unwrap().prompt_id, "p2");
    let empty = ExportEnvelope::new("2026-11-30T00:00:00.000Z");
    assert!(export::find_project(&empty, "x").unwrap_err().to_string().contains("holds no projects"));
}

#[test]
fn default_run_is_the_newest_completed_or_partial_else_the_newest() {
    let mut env = sample_envelope();
    assert_eq!(export::default_run(&env).map(|r| r.id.as_str()), Some("r2"));
    let mut r3 = env.runs[0].clone();
    r3.id = "r3".into();
    r3.created_at = "2026-12-01T08:00:00.000Z".into();
    r3.status = RunStatus::Running;
    env.runs.push(r3);
    assert_eq!(export::default_run(&env).map(|r| r.id.as_str()), Some("r2"));
    env.runs.iter_mut().find(|r| r.id == "r2").unwrap().status = RunStatus::Partial;
    assert_eq!(export::default_run(&env).map(|r| r.id.as_str()), Some("r2"));
    for r in &mut env.runs {
        r.status = RunStatus::Failed;
    }
    assert_eq!(export::default_run(&env).map(|r| r.id.as_str()), Some("r3"));
    env.runs.clear();
    assert!(export::default_run(&env).is_none());
}

#[test]
fn top_domains_filter_by_ownership_then_cut() {
    let env = sample_envelope();
    let metrics = &metrics_for_export(&env, Some("r2")).unwrap()[0];
    let names = |rows: Vec<geo_core::metrics::DomainMetrics>| rows.into_iter().map(|d| d.domain).collect::<Vec<_>>();
    let all: Vec<String> = metrics.domains.iter().map(|d| d.domain.clone()).collect();
    assert_eq!(names(export::top_domains(metrics, None, 10)), all);
    assert_eq!(names(export::top_domains(metrics, None, 1)), all[..1]);
    assert_eq!(names(export::top_domains(metrics, Some(Ownership::Owned), 10)), ["acme.com"]);
    assert_eq!(names(export::top_domains(metrics, Some(Ownership::Competitor), 10)), Vec::<String>::new());
    let third = names(export::top_domains(metrics, Some(Ownership::ThirdParty), 10));
    assert!(!third.is_empty() && !third.contains(&"acme.com".to_string()));
    assert!(export::top_domains(metrics, None, 0).is_empty());
}
