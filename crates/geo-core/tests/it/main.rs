//! geo-core's integration tests as one binary (one link instead of thirty on a 2-core machine).
//! Each module is one area; the `*_support` modules hold the shared fixtures and helpers.

mod export_support;
mod metrics_support;
mod runner_support;

mod analysis_goldens;
mod chat_goldens;
mod chat_props;
mod compare_interval;
mod compare_runs;
mod engine_fixtures;
mod engine_goldens;
mod engine_proptest;
mod export_csv;
mod export_goldens;
mod export_import;
mod export_props;
mod lists_parse;
mod lists_props;
mod mentions_props;
mod metrics_cost;
mod metrics_insights;
mod metrics_props;
mod metrics_report;
mod metrics_run;
mod provider_errors;
mod provider_fixtures;
mod provider_goldens;
mod provider_proptest;
mod runner_engine;
mod runner_modes;
mod runner_props;
mod runner_retry;
mod runner_start;
mod sources_classify;
mod sources_links;
mod sources_props;
mod sources_urls;
mod tidy;
