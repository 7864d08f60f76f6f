//! Cost estimate (seed §6.2) and the before-run estimate of cost and duration (seed §3.1).
//!
//! One price table, [`PRICES`], decides every dollar figure. The numbers are an estimate
//! for planning, not a bill: DeepSeek's own invoice is the truth.

use crate::model::{Probe, ProbeStatus, Run, Usage, DEFAULT_MODEL};
use serde::Serialize;

/// Published prices of one model, in US dollars.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelPrice {
    /// Model name as offered in `MODEL_OPTIONS`.
    pub model: &'static str,
    /// Per million input tokens served from the context cache.
    pub input_cache_hit_per_million: f64,
    /// Per million input tokens not served from the cache.
    pub input_cache_miss_per_million: f64,
    /// Per million output tokens.
    pub output_per_million: f64,
    /// Per web search request.
    pub per_search: f64,
}

/// Per web search: DeepSeek's published Search API price, 5 CNY (≈ $0.75) per 1,000
/// successful requests.
///
/// DeepSeek bills the server-side search of its Anthropic-compatible endpoint per call from
/// 2026-11-01 00:00 (UTC+8) but publishes no separate rate for it; the standalone Search API
/// rate is the only per-search price it publishes, so it is used here.
pub const PER_SEARCH_USD: f64 = 0.00075;

/// DeepSeek's PEAK prices in USD as published on <https://api-docs.deepseek.com/quick_start/pricing>,
/// page as checked on 2026-11-15 (the newest stored era: `deepseek-flash` = DeepSeek-V4.1-Flash-1017,
/// which also serves and bills the legacy name `deepseek-v4-flash`).
///
/// Peak rather than off-peak so that an estimate never undershoots the bill. Flash: cache hit
/// $0.006, cache miss $0.30, output $1.20 per million tokens; Pro: $0.044, $1.32, $3.96.
/// Per search: [`PER_SEARCH_USD`].
pub const PRICES: &[ModelPrice] = &[
    ModelPrice {
        model: "deepseek-v4-flash",
        input_cache_hit_per_million: 0.006,
        input_cache_miss_per_million: 0.30,
        output_per_million: 1.20,
        per_search: PER_SEARCH_USD,
    },
    ModelPrice {
        model: "deepseek-v4-pro",
        input_cache_hit_per_million: 0.044,
        input_cache_miss_per_million: 1.32,
        output_per_million: 3.96,
        per_search: PER_SEARCH_USD,
    },
];

/// The price entry of `model`, or `None` for a model the table does not know.
///
/// Accepted names (case-insensitive, a trailing context tag such as `[1m]` ignored):
/// `deepseek-v4-flash`, `deepseek-flash` and the retired `deepseek-chat` /
/// `deepseek-reasoner` (which DeepSeek maps to Flash) give Flash; names starting with
/// `deepseek-v4-pro` give Pro; other names starting with `deepseek-v4-flash` (dated or vision
/// variants) give Flash.
pub fn price_for(model: &str) -> Option<&'static ModelPrice> {
    let name = model.split('[').next().unwrap_or("").trim();
    let starts = |prefix: &str| {
        name.len() >= prefix.len() && name.as_bytes()[..prefix.len()].eq_ignore_ascii_case(prefix.as_bytes())
    };
    let is = |other: &str| name.eq_ignore_ascii_case(other);
    let index = if starts("deepseek-v4-pro") {
        1
    } else if starts("deepseek-v4-flash") || is("deepseek-flash") || is("deepseek-chat") || is("deepseek-reasoner") {
        0
    } else {
        return None;
    };
    PRICES.get(index)
}

/// The price used for `model`: its own entry, else the most expensive entry (Pro), so that an
/// unknown name never makes an estimate look cheaper than it may be.
pub fn price_or_conservative(model: &str) -> &'static ModelPrice {
    price_for(model).unwrap_or(&PRICES[PRICES.len() - 1])
}

/// Estimated cost in USD of one response's usage (seed §6.2).
///
/// cost = input_tokens / 1e6 × cache-miss price + cache_read_input_tokens / 1e6 × cache-hit
/// price + output_tokens / 1e6 × output price + web_search_requests × per-search price.
/// In the Anthropic usage shape `input_tokens` excludes the tokens read from the cache
/// (`cache_read_input_tokens` is reported beside it), so the two are priced separately and
/// never double-counted. Unknown models are priced as in [`price_or_conservative`].
pub fn estimate_cost_usd(model: &str, usage: &Usage) -> f64 {
    cost_at_price(price_or_conservative(model), usage)
}

/// [`estimate_cost_usd`] with the price already looked up.
pub(crate) fn cost_at_price(price: &ModelPrice, usage: &Usage) -> f64 {
    usage.input_tokens as f64 / 1e6 * price.input_cache_miss_per_million
        + usage.cache_read_input_tokens as f64 / 1e6 * price.input_cache_hit_per_million
        + usage.output_tokens as f64 / 1e6 * price.output_per_million
        + usage.web_search_requests as f64 * price.per_search
}

/// The model a probe is billed as: the model that answered when the table knows it, else the
/// run's requested model.
pub(crate) fn billed_model<'a>(probe: &'a Probe, run: &'a Run) -> &'a str {
    if price_for(&probe.model).is_some() {
        &probe.model
    } else {
        &run.config.model
    }
}

/// Prices the probes of one run as [`estimate_cost_usd`] of their [`billed_model`], looking
/// the price up again only when the probe's model changes (a run's probes nearly always share
/// one model).
pub(crate) struct RunPricer<'a> {
    run: &'a Run,
    last: Option<(&'a str, &'static ModelPrice)>,
}

impl<'a> RunPricer<'a> {
    /// A pricer for the probes of `run`.
    pub(crate) fn new(run: &'a Run) -> Self {
        RunPricer { run, last: None }
    }

    /// The estimated cost in USD of `probe`, a probe of the run.
    pub(crate) fn cost(&mut self, probe: &'a Probe) -> f64 {
        let price = match self.last {
            Some((model, price)) if super::short_eq(model, &probe.model) => price,
            _ => {
                let price = price_or_conservative(billed_model(probe, self.run));
                self.last = Some((probe.model.as_str(), price));
                price
            }
        };
        cost_at_price(price, &probe.usage)
    }
}

/// Estimated cost in USD of a run: [`estimate_cost_usd`] summed over every probe record of
/// the run (failed ones too: whatever usage was recorded was spent).
pub fn run_cost(run: &Run, probes: &[Probe]) -> f64 {
    probes.iter().filter(|p| p.run_id == run.id).map(|p| estimate_cost_usd(billed_model(p, run), &p.usage)).sum()
}

/// What a before-run estimate was based on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EstimateBasis {
    /// The conservative defaults ([`DEFAULT_PROBE_PROFILE`]): no usable history.
    Defaults,
    /// Averages over the successful probes of the last run.
    LastRun,
}

/// Average usage and latency of one probe, the unit of a before-run estimate.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ProbeProfile {
    /// Input tokens not read from the cache.
    pub input_tokens: f64,
    /// Input tokens read from the cache.
    pub cache_read_input_tokens: f64,
    /// Output tokens.
    pub output_tokens: f64,
    /// Web search requests.
    pub web_search_requests: f64,
    /// Latency of one probe in milliseconds.
    pub latency_ms: f64,
}

/// Conservative per-probe defaults used without history: 30,000 uncached input tokens (five
/// searches' results are fed back as input), 2,000 output tokens, 5 searches (the default
/// `maxSearches`, each billed) and 60 s of latency (searching answers take tens of seconds).
pub const DEFAULT_PROBE_PROFILE: ProbeProfile = ProbeProfile {
    input_tokens: 30_000.0,
    cache_read_input_tokens: 0.0,
    output_tokens: 2_000.0,
    web_search_requests: 5.0,
    latency_ms: 60_000.0,
};

/// A before-run estimate (seed §3.1).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RunEstimate {
    /// Estimated cost in USD: `probes` × the cost of one average probe.
    pub cost_usd: f64,
    /// Estimated wall time: ⌈probes / clamp(concurrency, 1, 3)⌉ × average latency, rounded up.
    pub seconds: u64,
    /// prompts × repeats.
    pub probes: u64,
    /// Probes in flight at once: concurrency clamped to 1–3.
    pub workers: u32,
    /// Rounds of `workers` probes: ⌈probes / workers⌉.
    pub waves: u64,
    /// Where the averages came from.
    pub basis: EstimateBasis,
    /// The successful probes of the last run that were averaged (0 with the defaults).
    pub history_probes: u32,
    /// The per-probe averages used.
    pub profile: ProbeProfile,
}

/// Averages over the successful probes of `run` (numerator: the sum of each field;
/// denominator: the number of successful probes), or `None` when it has none.
pub fn probe_profile(run: &Run, probes: &[Probe]) -> Option<ProbeProfile> {
    profile_and_count(run, probes).map(|(profile, _)| profile)
}

/// [`probe_profile`] and the number of successful probes it averaged.
fn profile_and_count(run: &Run, probes: &[Probe]) -> Option<(ProbeProfile, u32)> {
    let mut n = 0u32;
    let mut acc = [0f64; 5];
    for p in probes.iter().filter(|p| p.run_id == run.id && p.status == ProbeStatus::Success) {
        n += 1;
        acc[0] += p.usage.input_tokens as f64;
        acc[1] += p.usage.cache_read_input_tokens as f64;
        acc[2] += p.usage.output_tokens as f64;
        acc[3] += p.usage.web_search_requests as f64;
        acc[4] += p.latency_ms as f64;
    }
    (n > 0).then(|| {
        let d = f64::from(n);
        let profile = ProbeProfile {
            input_tokens: acc[0] / d,
            cache_read_input_tokens: acc[1] / d,
            output_tokens: acc[2] / d,
            web_search_requests: acc[3] / d,
            latency_ms: acc[4] / d,
        };
        (profile, n)
    })
}

/// Estimates the cost and duration of a run of `prompts` × `repeats` probes of `model`.
///
/// Uses the averages of the successful probes of `history` (the last run) when it has any,
/// else [`DEFAULT_PROBE_PROFILE`]. The price is always that of `model`, whatever model the
/// history used. An empty model name means [`DEFAULT_MODEL`].
pub fn estimate_run(
    model: &str,
    prompts: usize,
    repeats: u32,
    concurrency: u32,
    history: Option<(&Run, &[Probe])>,
) -> RunEstimate {
    let (profile, basis, history_probes) = match history.and_then(|(run, probes)| profile_and_count(run, probes)) {
        Some((profile, n)) => (profile, EstimateBasis::LastRun, n),
        None => (DEFAULT_PROBE_PROFILE, EstimateBasis::Defaults, 0),
    };
    let model = if model.trim().is_empty() { DEFAULT_MODEL } else { model };
    let price = price_or_conservative(model);
    let per_probe = profile.input_tokens / 1e6 * price.input_cache_miss_per_million
        + profile.cache_read_input_tokens / 1e6 * price.input_cache_hit_per_million
        + profile.output_tokens / 1e6 * price.output_per_million
        + profile.web_search_requests * price.per_search;
    let probes = prompts as u64 * u64::from(repeats);
    let workers = concurrency.clamp(1, 3);
    let waves = probes.div_ceil(u64::from(workers));
    let seconds = (waves as f64 * profile.latency_ms / 1000.0).ceil() as u64;
    RunEstimate { cost_usd: probes as f64 * per_probe, seconds, probes, workers, waves, basis, history_probes, profile }
}
