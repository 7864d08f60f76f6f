//! The cost formula of seed §6.2 and the before-run estimate of §3.1.

use crate::metrics_support::*;
use geo_core::metrics::cost::{batch_estimate, price_for, BatchEstimate, DEFAULT_PROBE_PROFILE};
use geo_core::metrics::{
    estimate_cost_usd, estimate_engine_run, price_for_engine, run_cost, EstimateBasis, SearchBilling, PRICES, UNPRICED,
};
use geo_core::model::*;
use geo_core::provider::spec;

#[track_caller]
fn close(actual: Option<f64>, expect: f64) {
    let actual = actual.expect("a priced model");
    assert!((actual - expect).abs() < 1e-12, "{actual} != {expect}");
}

#[test]
fn table_covers_model_options_and_aliases() {
    for model in spec(EngineId::Deepseek).models {
        assert_eq!(price_for(model).map(|p| p.model), Some(*model));
    }
    assert_eq!(price_for("deepseek-flash").map(|p| p.model), Some("deepseek-v4-flash"));
    assert_eq!(price_for("DeepSeek-Flash[1m]").map(|p| p.model), Some("deepseek-v4-flash"));
    assert_eq!(price_for("deepseek-v4-pro[1m]").map(|p| p.model), Some("deepseek-v4-pro"));
    assert_eq!(price_for("gpt-4"), None);
}

#[test]
fn every_engine_model_has_a_dated_price() {
    let mut rows = 0;
    for engine in EngineId::ALL {
        for model in spec(engine).models {
            if UNPRICED.iter().any(|(e, m, why)| (*e, *m) == (engine, *model) && !why.is_empty()) {
                assert_eq!(price_for_engine(engine, model), None, "{engine} {model} is unpriced");
                continue;
            }
            let p = price_for_engine(engine, model).unwrap_or_else(|| panic!("{engine} {model} has no price"));
            assert_eq!((p.engine, p.model), (engine, *model));
            let date = p.as_of.as_bytes();
            assert!(p.as_of.len() == 10 && date[4] == b'-' && date[7] == b'-', "{}", p.as_of);
            assert!(p.source.starts_with("https://"), "{}", p.source);
            rows += 1;
        }
    }
    assert_eq!(PRICES.len(), rows, "no price for a model the engine table does not offer");
    // Dated snapshots of a priced model are that model; other variants are unknown.
    assert_eq!(price_for("gpt-5-2025-08-07").map(|p| p.model), Some("gpt-5"));
    assert_eq!(price_for("gpt-5-mini-2025-08-07").map(|p| p.model), Some("gpt-5-mini"));
    assert_eq!(price_for("claude-haiku-4-5-20251001").map(|p| p.model), Some("claude-haiku-4-5"));
    assert_eq!(price_for("GEMINI-2.5-FLASH").map(|p| p.model), Some("gemini-2.5-flash"));
    assert_eq!(price_for("gpt-5-nano"), None);
    assert_eq!(price_for("gemini-2.5-flash-preview-05-20"), None);
    // A model priced for another engine is unknown for this one.
    assert_eq!(price_for_engine(EngineId::Openai, "sonar"), None);
}

#[test]
fn search_fees_follow_each_engines_billing() {
    let searches = |n| Usage { web_search_requests: n, ..Usage::default() };
    // Per search: Claude $10 per 1,000 searches.
    close(estimate_cost_usd("claude-sonnet-4-6", &searches(3)), 0.03);
    // Per grounded prompt: Gemini 2.5 charges once whatever the number of queries.
    assert_eq!(price_for("gemini-2.5-flash").unwrap().search_billing, SearchBilling::PerSearchingRequest);
    close(estimate_cost_usd("gemini-2.5-flash", &searches(4)), 0.035);
    close(estimate_cost_usd("gemini-2.5-flash", &searches(0)), 0.0);
    // Perplexity's request fee.
    close(
        estimate_cost_usd("sonar", &Usage { input_tokens: 1_000_000, output_tokens: 1_000_000, ..searches(1) }),
        2.005,
    );
    // OpenAI: cached input at its own price.
    let usage = Usage {
        input_tokens: 800_000,
        cache_read_input_tokens: 200_000,
        output_tokens: 100_000,
        web_search_requests: 2,
        search_context_size: None,
    };
    close(estimate_cost_usd("gpt-5-mini", &usage), 0.8 * 0.25 + 0.2 * 0.025 + 0.1 * 2.0 + 0.02);
}

#[test]
fn cost_prices_cache_miss_cache_hit_output_and_searches() {
    let usage = Usage {
        input_tokens: 1_000_000,
        cache_read_input_tokens: 1_000_000,
        output_tokens: 1_000_000,
        web_search_requests: 4,
        search_context_size: None,
    };
    // Flash peak: 0.30 + 0.006 + 1.20 + 4 × 0.00075.
    close(estimate_cost_usd("deepseek-v4-flash", &usage), 0.30 + 0.006 + 1.20 + 0.003);
    // Pro peak: 1.32 + 0.044 + 3.96 + 0.003.
    close(estimate_cost_usd("deepseek-v4-pro", &usage), 1.32 + 0.044 + 3.96 + 0.003);
    let small = crate::builders::usage(12_345, 678, 0, 0);
    close(estimate_cost_usd("deepseek-v4-flash", &small), 12_345.0 * 0.30 / 1e6 + 678.0 * 1.20 / 1e6);
    // An unknown model has no cost (never a guessed one).
    assert_eq!(estimate_cost_usd("mystery", &usage), None);
    close(estimate_cost_usd("deepseek-v4-flash", &Usage::default()), 0.0);
}

/// engines.md "Fidelity": a probe costs its `billedUsage` (every attempt), or the engine's
/// stated `costUsd`; Perplexity's request fee follows its context size; a probe of an older
/// export (no `billedUsage`) costs what it cost before.
#[test]
fn billed_usage_stated_costs_and_context_sizes_price_a_run() {
    let (_, _, _, r2, p2) = sample();
    let base = run_cost(&r2, &p2).unwrap();
    // An older export: no billedUsage, three attempts; its figure does not move.
    let mut old = p2.clone();
    old[0].attempts = 3;
    close(run_cost(&r2, &old), base);
    // Billed: the first probe was paid for twice.
    let mut billed = p2.clone();
    billed[0].billed_usage = Some(billed[0].usage.plus(billed[0].usage));
    billed[0].attempts = 2;
    let once = estimate_cost_usd("deepseek-v4-flash", &p2[0].usage).unwrap();
    close(run_cost(&r2, &billed), base + once);
    // A stated cost wins over the table.
    billed[1].cost_usd = Some(1.5);
    let second = estimate_cost_usd("deepseek-v4-flash", &p2[1].usage).unwrap();
    close(run_cost(&r2, &billed), base + once - second + 1.5);
    // Perplexity: low / medium / high request fees, one per attempt that searched.
    let sonar = |size, searches, attempts| {
        let mut run = r2.clone();
        run.config.engine = EngineId::Perplexity;
        run.config.model = "sonar".into();
        let mut p = p2[0].clone();
        p.model = "sonar".into();
        let usage = Usage { web_search_requests: searches, search_context_size: size, ..Usage::default() };
        p.usage = usage;
        p.billed_usage = Some(usage);
        p.attempts = attempts;
        run_cost(&run, &[p])
    };
    close(sonar(None, 1, 1), 0.005);
    close(sonar(Some(SearchContextSize::Medium), 1, 1), 0.008);
    close(sonar(Some(SearchContextSize::High), 1, 1), 0.012);
    close(sonar(Some(SearchContextSize::High), 2, 2), 0.024);
    close(sonar(Some(SearchContextSize::Low), 3, 2), 0.010);
    close(sonar(None, 0, 2), 0.0);
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
    // When the run's own model has no price either, the run has no cost.
    let mut unknown = r2.clone();
    unknown.config.model = "mystery".into();
    assert_eq!(run_cost(&unknown, &p2), None);
}

#[test]
fn estimates_of_other_engines_and_unknown_models() {
    let e = estimate_engine_run(EngineId::Anthropic, "", 2, 1, 3, None);
    assert_eq!(e.price.map(|p| p.model), Some("claude-sonnet-4-6"));
    let per = 30_000.0 * 3.0 / 1e6 + 2_000.0 * 15.0 / 1e6 + 5.0 * 0.01;
    close(e.cost_usd, 2.0 * per);
    let g = estimate_engine_run(EngineId::Gemini, "gemini-2.5-pro", 1, 1, 1, None);
    close(g.cost_usd, 30_000.0 * 1.25 / 1e6 + 2_000.0 * 10.0 / 1e6 + 0.035);
    let unknown = estimate_engine_run(EngineId::Openai, "gpt-9-turbo", 3, 3, 3, None);
    assert_eq!((unknown.cost_usd, unknown.price, unknown.probes), (None, None, 9));
    assert_eq!(unknown.seconds, 180, "the duration needs no price");
}

#[test]
fn a_batch_costs_the_sum_and_takes_the_longest_run() {
    let a = estimate_engine_run(EngineId::Deepseek, "", 2, 3, 3, None);
    let b = estimate_engine_run(EngineId::Openai, "", 4, 3, 1, None);
    let batch = batch_estimate(&[(EngineId::Deepseek, a), (EngineId::Openai, b)]);
    close(batch.cost_usd, a.cost_usd.unwrap() + b.cost_usd.unwrap());
    assert_eq!((batch.seconds, batch.probes), (a.seconds.max(b.seconds), 18));
    assert_ne!(a.seconds, b.seconds, "the longest run decides, not the first or the sum");
    // One engine's model without a price: the batch has no known total, but a duration.
    let unknown = estimate_engine_run(EngineId::Gemini, "gemini-9", 1, 1, 1, None);
    let partial = batch_estimate(&[(EngineId::Deepseek, a), (EngineId::Gemini, unknown)]);
    assert_eq!((partial.cost_usd, partial.seconds, partial.probes), (None, a.seconds.max(unknown.seconds), 7));
    assert_eq!(batch_estimate(&[]), BatchEstimate { cost_usd: Some(0.0), seconds: 0, probes: 0 });
}

#[test]
fn estimate_uses_defaults_without_history() {
    let e = estimate_engine_run(EngineId::Deepseek, "deepseek-v4-flash", 4, 3, 3, None);
    assert_eq!((e.probes, e.basis), (12, EstimateBasis::Defaults));
    let per = 30_000.0 * 0.30 / 1e6 + 2_000.0 * 1.20 / 1e6 + 5.0 * 0.00075;
    close(e.cost_usd, 12.0 * per);
    // ceil(12 / 3) = 4 waves × 60 s.
    assert_eq!(e.seconds, 240);
    assert_eq!((e.workers, e.waves, e.history_probes), (3, 4, 0));
    assert_eq!(e.profile, DEFAULT_PROBE_PROFILE);
    // Concurrency is clamped to 1..=3.
    assert_eq!(estimate_engine_run(EngineId::Deepseek, "deepseek-v4-flash", 4, 3, 9, None).seconds, 240);
    assert_eq!(estimate_engine_run(EngineId::Deepseek, "deepseek-v4-flash", 4, 3, 0, None).seconds, 720);
    assert_eq!(estimate_engine_run(EngineId::Deepseek, "deepseek-v4-flash", 0, 3, 3, None).seconds, 0);
}

#[test]
fn estimate_uses_last_run_successful_averages() {
    let (_, _, _, r2, mut p2) = sample();
    p2[0].latency_ms = 30_000; // successes: 30 s, 20 s, 20 s, 20 s, 20 s → 22 s average
    p2[2].latency_ms = 999_000; // an error: ignored
    let e = estimate_engine_run(EngineId::Deepseek, "deepseek-v4-pro", 2, 2, 3, Some((&r2, &p2)));
    assert_eq!(e.basis, EstimateBasis::LastRun);
    close(Some(e.profile.latency_ms), 22_000.0);
    let per = 10_000.0 * 1.32 / 1e6 + 1_000.0 * 3.96 / 1e6 + 2.0 * 0.00075;
    close(e.cost_usd, 4.0 * per);
    // ceil(4 / 3) = 2 waves × 22 s, averaged over the 5 successful probes.
    assert_eq!(e.seconds, 44);
    assert_eq!((e.workers, e.waves, e.history_probes), (3, 2, 5));
    let failed_only = vec![failed("r2", "p1", 0, ProbeStatus::Error)];
    assert_eq!(
        estimate_engine_run(EngineId::Deepseek, "deepseek-v4-pro", 2, 2, 3, Some((&r2, &failed_only))).basis,
        EstimateBasis::Defaults
    );
}
