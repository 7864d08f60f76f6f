//! The cost formula of seed §6.2 and the before-run estimate of §3.1.

use crate::metrics_support::*;
use geo_core::metrics::cost::{price_for, DEFAULT_PROBE_PROFILE};
use geo_core::metrics::{estimate_cost_usd, estimate_run, run_cost, EstimateBasis, PRICES};
use geo_core::model::*;

#[track_caller]
fn close(actual: f64, expect: f64) {
    assert!((actual - expect).abs() < 1e-12, "{actual} != {expect}");
}

#[test]
fn table_covers_model_options_and_aliases() {
    for model in MODEL_OPTIONS {
        assert_eq!(price_for(model).map(|p| p.model), Some(*model));
    }
    assert_eq!(price_for("deepseek-flash").map(|p| p.model), Some("deepseek-v4-flash"));
    assert_eq!(price_for("DeepSeek-Flash[1m]").map(|p| p.model), Some("deepseek-v4-flash"));
    assert_eq!(price_for("deepseek-v4-pro[1m]").map(|p| p.model), Some("deepseek-v4-pro"));
    assert_eq!(price_for("gpt-4"), None);
    assert_eq!(PRICES.len(), MODEL_OPTIONS.len());
}

#[test]
fn cost_prices_cache_miss_cache_hit_output_and_searches() {
    let usage = Usage {
        input_tokens: 1_000_000,
        cache_read_input_tokens: 1_000_000,
        output_tokens: 1_000_000,
        web_search_requests: 4,
    };
    // Flash peak: 0.30 + 0.006 + 1.20 + 4 × 0.00075.
    close(estimate_cost_usd("deepseek-v4-flash", &usage), 0.30 + 0.006 + 1.20 + 0.003);
    // Pro peak: 1.32 + 0.044 + 3.96 + 0.003.
    close(estimate_cost_usd("deepseek-v4-pro", &usage), 1.32 + 0.044 + 3.96 + 0.003);
    let small = Usage { input_tokens: 12_345, output_tokens: 678, cache_read_input_tokens: 0, web_search_requests: 0 };
    close(estimate_cost_usd("deepseek-v4-flash", &small), 12_345.0 * 0.30 / 1e6 + 678.0 * 1.20 / 1e6);
    // An unknown model is priced as the most expensive entry.
    close(estimate_cost_usd("mystery", &usage), estimate_cost_usd("deepseek-v4-pro", &usage));
    close(estimate_cost_usd("deepseek-v4-flash", &Usage::default()), 0.0);
}

#[test]
fn run_cost_uses_the_answering_model_else_the_run_model() {
    let (_, _, _, r2, mut p2) = sample();
    let base = run_cost(&r2, &p2);
    close(base, 0.0285);
    p2[0].model = "deepseek-v4-pro".into();
    p2[1].model = "unknown-model".into(); // falls back to the run's deepseek-v4-flash
    let pro = 10_000.0 * 1.32 / 1e6 + 1_000.0 * 3.96 / 1e6 + 2.0 * 0.00075;
    close(run_cost(&r2, &p2), 0.0057 * 4.0 + pro);
}

#[test]
fn estimate_uses_defaults_without_history() {
    let e = estimate_run("deepseek-v4-flash", 4, 3, 3, None);
    assert_eq!((e.probes, e.basis), (12, EstimateBasis::Defaults));
    let per = 30_000.0 * 0.30 / 1e6 + 2_000.0 * 1.20 / 1e6 + 5.0 * 0.00075;
    close(e.cost_usd, 12.0 * per);
    // ceil(12 / 3) = 4 waves × 60 s.
    assert_eq!(e.seconds, 240);
    assert_eq!((e.workers, e.waves, e.history_probes), (3, 4, 0));
    assert_eq!(e.profile, DEFAULT_PROBE_PROFILE);
    // Concurrency is clamped to 1..=3.
    assert_eq!(estimate_run("deepseek-v4-flash", 4, 3, 9, None).seconds, 240);
    assert_eq!(estimate_run("deepseek-v4-flash", 4, 3, 0, None).seconds, 720);
    assert_eq!(estimate_run("deepseek-v4-flash", 0, 3, 3, None).seconds, 0);
}

#[test]
fn estimate_uses_last_run_successful_averages() {
    let (_, _, _, r2, mut p2) = sample();
    p2[0].latency_ms = 30_000; // successes: 30 s, 20 s, 20 s, 20 s, 20 s → 22 s average
    p2[2].latency_ms = 999_000; // an error: ignored
    let e = estimate_run("deepseek-v4-pro", 2, 2, 3, Some((&r2, &p2)));
    assert_eq!(e.basis, EstimateBasis::LastRun);
    close(e.profile.latency_ms, 22_000.0);
    let per = 10_000.0 * 1.32 / 1e6 + 1_000.0 * 3.96 / 1e6 + 2.0 * 0.00075;
    close(e.cost_usd, 4.0 * per);
    // ceil(4 / 3) = 2 waves × 22 s, averaged over the 5 successful probes.
    assert_eq!(e.seconds, 44);
    assert_eq!((e.workers, e.waves, e.history_probes), (3, 2, 5));
    let failed_only = vec![failed("r2", "p1", 0, ProbeStatus::Error)];
    assert_eq!(estimate_run("deepseek-v4-pro", 2, 2, 3, Some((&r2, &failed_only))).basis, EstimateBasis::Defaults);
}
