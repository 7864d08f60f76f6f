//! geo-core's integration tests as one binary (one link instead of thirty on a 2-core machine).
//! Each module is one area; the `*_support` modules hold the shared fixtures and helpers, and
//! this file the helpers every property test uses.

/// Property-test cases: `PROPTEST_CASES` (CI sets 10,000), 256 by default.
pub fn cases() -> u32 {
    std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(256)
}

/// The proptest configuration of every property test here: [`cases`] cases.
pub fn config() -> proptest::prelude::ProptestConfig {
    proptest::prelude::ProptestConfig::with_cases(cases())
}

mod export_support;
mod metrics_support;
mod runner_support;
mod support;

mod actions_check;
mod actions_goldens;
mod actions_props;
mod analysis_goldens;
mod analysis_linear;
mod analysis_markers;
mod chat_answers;
mod chat_goldens;
mod chat_props;
mod claims_goldens;
mod claims_oracle;
mod compare_interval;
mod compare_runs;
mod demo_story;
mod engine_fixtures;
mod engine_goldens;
mod engine_proptest;
mod export_catalog;
mod export_csv;
mod export_facts;
mod export_goldens;
mod export_hostile;
mod export_import;
mod export_props;
mod export_warehouse;
mod fuzz_hostile;
mod lists_parse;
mod lists_props;
mod mentions_props;
mod metrics_cost;
mod metrics_insights;
mod metrics_oracle;
mod metrics_props;
mod metrics_report;
mod metrics_run;
mod metrics_summary;
mod provider_errors;
mod provider_fixtures;
mod provider_goldens;
mod provider_proptest;
mod runner_fidelity;
mod runner_modes;
mod runner_props;
mod runner_retry;
mod runner_session;
mod runner_start;
mod sources_classify;
mod sources_links;
mod sources_props;
mod sources_urls;
mod tidy;
