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

/// Arbitrary JSON up to `depth` levels and about `size` nodes whose strings are often one of
/// `words` and whose keys are always one of `keys`: a response format's vocabulary, so
/// that parsers reach past their first check.
pub fn arb_json(
    depth: u32,
    size: u32,
    words: &'static [&'static str],
    keys: &'static [&'static str],
) -> impl proptest::strategy::Strategy<Value = serde_json::Value> {
    use proptest::prelude::*;
    use serde_json::Value;
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_filter("finite", |f| f.is_finite()).prop_map(Value::from),
        prop::sample::select(words).prop_map(Value::from),
        ".{0,12}".prop_map(Value::from),
    ];
    leaf.prop_recursive(depth, size, 5, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((prop::sample::select(keys).prop_map(str::to_string), inner), 0..5)
                .prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

mod builders;
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
mod compare_method;
mod compare_runs;
mod demo_story;
mod engine_fixtures;
mod engine_goldens;
mod engine_proptest;
mod export_captures;
mod export_catalog;
mod export_csv;
mod export_facts;
mod export_goldens;
mod export_hostile;
mod export_import;
mod export_location;
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
mod provider_location;
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
