//! Goldens of the four export formats on the hand-analysed fixture store.

use crate::export_support::{redact_app_version, sample_store, visible_csv, EXPORTED_AT};
use geo_core::export::{full_export, probes_csv, run_export, sources_csv, to_json_pretty};

fn full() -> geo_core::model::ExportEnvelope {
    let s = sample_store();
    full_export(s.projects, s.prompts, s.runs, s.probes, EXPORTED_AT)
}

#[test]
fn full_json_golden() {
    insta::assert_snapshot!(redact_app_version(&to_json_pretty(&full())));
}

#[test]
fn run_json_golden() {
    let env = run_export(&sample_store(), "run_b", EXPORTED_AT).unwrap();
    insta::assert_snapshot!(redact_app_version(&to_json_pretty(&env)));
}

#[test]
fn probes_csv_golden() {
    insta::assert_snapshot!(visible_csv(&probes_csv(&sample_store(), "run_b").unwrap()));
}

#[test]
fn sources_csv_golden() {
    insta::assert_snapshot!(visible_csv(&sources_csv(&sample_store(), "run_b").unwrap()));
}
