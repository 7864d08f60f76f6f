//! Cost estimate (seed §6.2) and the before-run estimate of cost and duration (seed §3.1).
//!
//! One price table, [`PRICES`], decides every dollar figure: one row per engine and model,
//! each with the date its price was published and where. The numbers are an estimate for
//! planning, not a bill: each engine's own invoice is the truth. A model the table does not
//! know has **no** cost (`None`, shown as "no price for this model"), never a guessed one.

use crate::model::{EngineId, Probe, ProbeStatus, Run, SearchContextSize, Usage};
use serde::Serialize;

/// How an engine bills its web search.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SearchBilling {
    /// `per_search` for every search (`usage.webSearchRequests`): Anthropic, OpenAI, DeepSeek.
    PerSearch,
    /// `per_search` once for a request that searched at all: Gemini 2.5's grounded prompt,
    /// Perplexity's request fee.
    PerSearchingRequest,
}

/// Published prices of one model, in US dollars.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelPrice {
    /// The engine that serves the model.
    pub engine: EngineId,
    /// Model name as offered in the engine table (`provider::spec(engine).models`).
    pub model: &'static str,
    /// Per million input tokens served from the context cache.
    pub input_cache_hit_per_million: f64,
    /// Per million input tokens not served from the cache.
    pub input_cache_miss_per_million: f64,
    /// Per million output tokens (reasoning and thought tokens included).
    pub output_per_million: f64,
    /// Per web search, or per searching request (see `search_billing`).
    pub per_search: f64,
    /// What `per_search` is charged for.
    pub search_billing: SearchBilling,
    /// Perplexity's request fee by search context size (low, medium, high); `per_search` is
    /// the low one. `None` for the other engines.
    pub per_request_by_context: Option<[f64; 3]>,
    /// The date of the published price (`YYYY-MM-DD`).
    pub as_of: &'static str,
    /// Where the price was read.
    pub source: &'static str,
}

/// Per web search: DeepSeek's published Search API price, 5 CNY (≈ $0.75) per 1,000
/// successful requests.
///
/// DeepSeek bills the server-side search of its Anthropic-compatible endpoint per call from
/// 2026-11-01 00:00 (UTC+8) but publishes no separate rate for it; the standalone Search API
/// rate is the only per-search price it publishes, so it is used here.
pub const PER_SEARCH_USD: f64 = 0.00075;

const DEEPSEEK_PRICING: &str = "https://api-docs.deepseek.com/quick_start/pricing";
const ANTHROPIC_PRICING: &str = "https://platform.claude.com/docs/en/about-claude/pricing";
const OPENAI_PRICING: &str = "https://platform.openai.com/docs/pricing";
const GEMINI_PRICING: &str = "https://ai.google.dev/gemini-api/docs/pricing";
const PERPLEXITY_PRICING: &str = "https://docs.perplexity.ai/getting-started/pricing";
const QWEN_PRICING: &str = "https://help.aliyun.com/zh/model-studio/web-search";
const ERNIE_PRICING: &str = "https://cloud.baidu.com/doc/qianfan/s/rmh4stp0j";

const fn price(
    engine: EngineId,
    model: &'static str,
    [hit, miss, output]: [f64; 3],
    per_search: f64,
    search_billing: SearchBilling,
    as_of: &'static str,
    source: &'static str,
) -> ModelPrice {
    ModelPrice {
        engine,
        model,
        input_cache_hit_per_million: hit,
        input_cache_miss_per_million: miss,
        output_per_million: output,
        per_search,
        search_billing,
        per_request_by_context: None,
        as_of,
        source,
    }
}

/// A DeepSeek row: per search [`PER_SEARCH_USD`], page checked 2026-11-15.
const fn deepseek(model: &'static str, tokens: [f64; 3]) -> ModelPrice {
    price(EngineId::Deepseek, model, tokens, PER_SEARCH_USD, SearchBilling::PerSearch, "2026-11-15", DEEPSEEK_PRICING)
}

/// An Anthropic row: web search $10 per 1,000 searches, page checked 2026-03-21.
const fn claude(model: &'static str, tokens: [f64; 3]) -> ModelPrice {
    price(EngineId::Anthropic, model, tokens, 0.01, SearchBilling::PerSearch, "2026-03-21", ANTHROPIC_PRICING)
}

/// An OpenAI row: the `web_search` tool $10 per 1,000 calls, page checked 2026-03-12.
const fn openai(model: &'static str, tokens: [f64; 3]) -> ModelPrice {
    price(EngineId::Openai, model, tokens, 0.01, SearchBilling::PerSearch, "2026-03-12", OPENAI_PRICING)
}

/// A Gemini row: Grounding with Google Search $35 per 1,000 grounded prompts, page checked
/// 2025-11-15.
const fn gemini(model: &'static str, tokens: [f64; 3]) -> ModelPrice {
    price(EngineId::Gemini, model, tokens, 0.035, SearchBilling::PerSearchingRequest, "2025-11-15", GEMINI_PRICING)
}

/// A Perplexity row: the request fee by search context size.
const fn sonar(model: &'static str, tokens: [f64; 3], fees: [f64; 3]) -> ModelPrice {
    let mut p = price(
        EngineId::Perplexity,
        model,
        tokens,
        fees[0],
        SearchBilling::PerSearchingRequest,
        "2026-06-23",
        PERPLEXITY_PRICING,
    );
    p.per_request_by_context = Some(fees);
    p
}

/// Every priced model, engines in engines.md order, each engine's models in the order of
/// its table row.
///
/// * DeepSeek: PEAK prices (so an estimate never undershoots), page checked 2026-11-15
///   (`deepseek-flash` = DeepSeek-V4.1-Flash-1017 also serves and bills the legacy name
///   `deepseek-v4-flash`); per search [`PER_SEARCH_USD`].
/// * Anthropic: base input, cache hits and output per million; web search $10 per 1,000
///   searches ("plus standard token costs"; a failed search is not billed).
/// * OpenAI: input, cached input and output per million; the `web_search` tool $10 per
///   1,000 calls, search content tokens billed as input tokens.
/// * Gemini 2.5: input (prompts ≤ 200k tokens), context-cache hits and output (thinking
///   included) per million; Grounding with Google Search $35 per 1,000 grounded prompts
///   (one fee per prompt whatever its number of queries; the 1,500 free prompts a day are
///   not deducted, so the estimate stays an upper bound).
/// * Perplexity: input and output per million plus the request fee by search context size
///   (`usage.search_context_size`, low when absent): $5 / $8 / $12 per 1,000 requests for
///   `sonar`, $6 / $10 / $14 for `sonar-pro` and `sonar-reasoning-pro`. A reply that states
///   its own `usage.cost` is billed at that instead (the probe's `costUsd`).
/// * Qwen, ERNIE, Hunyuan: their CNY prices at [`CNY_PER_USD`] (no cache discount published
///   except ERNIE's); Qwen's turbo search 3 CNY per 1,000 searches (China region; the
///   international region publishes no turbo fee); ERNIE and Hunyuan bill their search as
///   input tokens or not at all. Doubao: [`UNPRICED`]. Third-party figures (Qwen3-Max's,
///   Hunyuan's) are provisional: ADR 0011.
pub const PRICES: &[ModelPrice] = &[
    deepseek("deepseek-v4-flash", [0.006, 0.30, 1.20]),
    deepseek("deepseek-v4-pro", [0.044, 1.32, 3.96]),
    claude("claude-sonnet-4-6", [0.30, 3.00, 15.00]),
    claude("claude-haiku-4-5", [0.10, 1.00, 5.00]),
    claude("claude-opus-4-6", [0.50, 5.00, 25.00]),
    openai("gpt-5-mini", [0.025, 0.25, 2.00]),
    openai("gpt-5", [0.125, 1.25, 10.00]),
    openai("gpt-4.1", [0.50, 2.00, 8.00]),
    gemini("gemini-2.5-flash", [0.03, 0.30, 2.50]),
    gemini("gemini-2.5-pro", [0.125, 1.25, 10.00]),
    gemini("gemini-2.5-flash-lite", [0.01, 0.10, 0.40]),
    sonar("sonar", [1.00, 1.00, 1.00], [0.005, 0.008, 0.012]),
    sonar("sonar-pro", [3.00, 3.00, 15.00], [0.006, 0.010, 0.014]),
    sonar("sonar-reasoning-pro", [2.00, 2.00, 8.00], [0.006, 0.010, 0.014]),
    // DashScope (China region): tokens per million, the turbo search strategy 3 CNY per 1,000
    // searches (`usage.plugins.search.count`), in force from 2026-02-27.
    price(
        EngineId::Qwen,
        "qwen-plus",
        cny([0.8, 0.8, 2.0]),
        cny1(0.003),
        SearchBilling::PerSearch,
        "2026-02-27",
        QWEN_PRICING,
    ),
    price(
        EngineId::Qwen,
        "qwen3-max",
        cny([2.5, 2.5, 10.0]),
        cny1(0.003),
        SearchBilling::PerSearch,
        "2026-05-01",
        "https://github.com/qxytah/qwen-api-pricing",
    ),
    price(
        EngineId::Qwen,
        "qwen-turbo",
        cny([0.3, 0.3, 0.6]),
        cny1(0.003),
        SearchBilling::PerSearch,
        "2026-02-27",
        QWEN_PRICING,
    ),
    // Qianfan: the search is billed as input tokens (`usage.search_tokens`), no fee of its own.
    price(
        EngineId::Ernie,
        "ernie-4.5-turbo-128k",
        cny([0.2, 0.8, 3.2]),
        0.0,
        SearchBilling::PerSearch,
        "2025-04-25",
        ERNIE_PRICING,
    ),
    // Hunyuan publishes no search fee.
    price(
        EngineId::Hunyuan,
        "hunyuan-turbos-latest",
        cny([0.8, 0.8, 2.0]),
        0.0,
        SearchBilling::PerSearch,
        "2025-07-16",
        "https://github.com/lobehub/lobe-chat/blob/main/packages/model-bank/src/aiModels/hunyuan.ts",
    ),
];

/// The models of the engine table that have no price, and why: their cost is `None` ("no price
/// for this model"), never a guess.
pub const UNPRICED: &[(EngineId, &str, &str)] = &[(
    EngineId::Doubao,
    "doubao-seed-2-1-pro-260628",
    "Volcengine publishes no price for it in the sources read (doubao_ark.md); its web search plugin costs 0 or 6 CNY per 1,000 calls by tier",
)];

/// Chinese yuan per US dollar, the planning rate the CNY prices of the Chinese engines are
/// shown at (a fixed figure, not a market quote: the engines bill in CNY).
pub const CNY_PER_USD: f64 = 7.1;

/// `[hit, miss, output]` per million in CNY, in USD at [`CNY_PER_USD`].
const fn cny([hit, miss, output]: [f64; 3]) -> [f64; 3] {
    [hit / CNY_PER_USD, miss / CNY_PER_USD, output / CNY_PER_USD]
}

/// One CNY amount in USD at [`CNY_PER_USD`].
const fn cny1(amount: f64) -> f64 {
    amount / CNY_PER_USD
}

/// `name` starts with `prefix`, ASCII case-insensitively.
fn starts_with_ignore_case(name: &str, prefix: &str) -> bool {
    name.len() >= prefix.len() && name.as_bytes()[..prefix.len()].eq_ignore_ascii_case(prefix.as_bytes())
}

/// DeepSeek's names: `deepseek-v4-flash`, `deepseek-flash` and the retired `deepseek-chat` /
/// `deepseek-reasoner` (which DeepSeek maps to Flash) give Flash; names starting with
/// `deepseek-v4-pro` give Pro; other names starting with `deepseek-v4-flash` (dated or vision
/// variants) give Flash.
fn deepseek_row(name: &str) -> Option<&'static str> {
    let is = |other: &str| name.eq_ignore_ascii_case(other);
    if starts_with_ignore_case(name, "deepseek-v4-pro") {
        Some("deepseek-v4-pro")
    } else if starts_with_ignore_case(name, "deepseek-v4-flash")
        || is("deepseek-flash")
        || is("deepseek-chat")
        || is("deepseek-reasoner")
    {
        Some("deepseek-v4-flash")
    } else {
        None
    }
}

/// The price entry of `model`, or `None` for a model the table does not know.
///
/// Names are compared case-insensitively with a trailing context tag such as `[1m]` ignored.
/// DeepSeek's aliases are described at its row; any other model matches its own row, or the
/// longest row name followed by a dated suffix (`gpt-5-2025-08-07`, `claude-haiku-4-5-20251001`
/// give `gpt-5` and `claude-haiku-4-5`; `gpt-5-nano` is unknown).
pub fn price_for(model: &str) -> Option<&'static ModelPrice> {
    let name = model.split('[').next().unwrap_or("").trim();
    if let Some(row) = deepseek_row(name) {
        return PRICES.iter().find(|p| p.model == row);
    }
    let dated = |p: &&ModelPrice| {
        starts_with_ignore_case(name, p.model)
            && (name.len() == p.model.len()
                || name[p.model.len()..]
                    .strip_prefix('-')
                    .is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_digit())))
    };
    PRICES.iter().filter(|p| p.engine != EngineId::Deepseek).filter(dated).max_by_key(|p| p.model.len())
}

/// The price entry of `model` when it is one of `engine`'s (a model priced for another
/// engine is unknown here: a proxy may route names anywhere, but the bill is the engine's).
pub fn price_for_engine(engine: EngineId, model: &str) -> Option<&'static ModelPrice> {
    price_for(model).filter(|p| p.engine == engine)
}

/// Estimated cost in USD of one response's usage (seed §6.2), `None` for an unknown model.
///
/// cost = input_tokens / 1e6 × cache-miss price + cache_read_input_tokens / 1e6 × cache-hit
/// price + output_tokens / 1e6 × output price + the search fee. The snapshot's `input_tokens`
/// excludes the tokens read from the cache (`cache_read_input_tokens` is kept beside it, for
/// every engine), so the two are priced separately and never double-counted.
pub fn estimate_cost_usd(model: &str, usage: &Usage) -> Option<f64> {
    price_for(model).map(|price| cost_at_price(price, usage, 1))
}

/// The fee of one searching request under `price` for `context` (Perplexity's request fee
/// by search context size, low when absent; `per_search` otherwise).
fn request_fee(price: &ModelPrice, context: Option<SearchContextSize>) -> f64 {
    match (price.per_request_by_context, context.unwrap_or(SearchContextSize::Low)) {
        (Some([low, _, _]), SearchContextSize::Low) => low,
        (Some([_, medium, _]), SearchContextSize::Medium) => medium,
        (Some([_, _, high]), SearchContextSize::High) => high,
        (None, _) => price.per_search,
    }
}

/// What the search fee of `searches` searches over `requests` requests is under `price`: per
/// search, or one fee per request that searched (at most `requests`, at most `searches`).
fn search_fee(price: &ModelPrice, searches: f64, requests: f64, context: Option<SearchContextSize>) -> f64 {
    match price.search_billing {
        SearchBilling::PerSearch => searches * price.per_search,
        SearchBilling::PerSearchingRequest => searches.min(requests).max(0.0) * request_fee(price, context),
    }
}

/// [`estimate_cost_usd`] with the price already looked up, for usage summed over `requests`
/// requests (a probe's `billedUsage` over its attempts).
pub(crate) fn cost_at_price(price: &ModelPrice, usage: &Usage, requests: u32) -> f64 {
    usage.input_tokens as f64 / 1e6 * price.input_cache_miss_per_million
        + usage.cache_read_input_tokens as f64 / 1e6 * price.input_cache_hit_per_million
        + usage.output_tokens as f64 / 1e6 * price.output_per_million
        + search_fee(price, usage.web_search_requests as f64, f64::from(requests.max(1)), usage.search_context_size)
}

/// The model a probe is billed as: the model that answered when the table knows it (for the
/// run's engine), else the run's requested model.
pub(crate) fn billed_model<'a>(probe: &'a Probe, run: &'a Run) -> &'a str {
    if price_for_engine(run.config.engine, &probe.model).is_some() {
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
    last: Option<(&'a str, Option<&'static ModelPrice>)>,
}

impl<'a> RunPricer<'a> {
    /// A pricer for the probes of `run`.
    pub(crate) fn new(run: &'a Run) -> Self {
        RunPricer { run, last: None }
    }

    /// The estimated cost in USD of `probe`, a probe of the run: the engine's own stated
    /// `costUsd` when the probe has one, else the price table applied to its `billedUsage`
    /// (every attempt; one search fee per attempt at most for an engine billing per
    /// searching request); `None` when neither the answering model nor the run's model has
    /// a price.
    pub(crate) fn cost(&mut self, probe: &'a Probe) -> Option<f64> {
        if let Some(stated) = probe.cost_usd {
            return Some(stated);
        }
        let price = match self.last {
            Some((model, price)) if super::short_eq(model, &probe.model) => price,
            _ => {
                let price = price_for_engine(self.run.config.engine, billed_model(probe, self.run));
                self.last = Some((probe.model.as_str(), price));
                price
            }
        };
        price.map(|p| cost_at_price(p, &probe.billed(), billed_requests(probe)))
    }
}

/// The requests a probe's `billedUsage` covers: its attempts; 1 for a probe of an older export
/// (no `billedUsage`: its `usage` is one attempt's, and its figures must not move).
fn billed_requests(probe: &Probe) -> u32 {
    if probe.billed_usage.is_some() {
        probe.attempts.max(1)
    } else {
        1
    }
}

/// The estimated cost in USD of one probe of `run` (the probe drawer's figure): its stated
/// `costUsd`, else the price table over its `billedUsage`; `None` without a price.
pub fn probe_cost_usd(run: &Run, probe: &Probe) -> Option<f64> {
    RunPricer::new(run).cost(probe)
}

/// Adds one probe's cost to a running total; an unknown price makes the total unknown.
pub(crate) fn add_cost(total: Option<f64>, cost: Option<f64>) -> Option<f64> {
    Some(total? + cost?)
}

/// Estimated cost in USD of a run: [`estimate_cost_usd`] summed over every probe record of
/// the run (failed ones too: whatever usage was recorded was spent); `None` when a probe's
/// model has no price.
pub fn run_cost(run: &Run, probes: &[Probe]) -> Option<f64> {
    let mut pricer = RunPricer::new(run);
    probes.iter().filter(|p| p.run_id == run.id).try_fold(0.0, |total, p| Some(total + pricer.cost(p)?))
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
    /// Attempts (requests) per probe: an engine billing per searching request pays once
    /// per attempt that searched.
    pub attempts: f64,
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
    attempts: 1.0,
};

/// A before-run estimate (seed §3.1).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RunEstimate {
    /// Estimated cost in USD: `probes` × the cost of one average probe; `None` when the
    /// model has no price in [`PRICES`] (the UI says so instead of guessing).
    pub cost_usd: Option<f64>,
    /// The price used, with its date and source.
    pub price: Option<&'static ModelPrice>,
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

/// Averages over the successful probes of `run` (numerator: the sum of each field of their
/// `billedUsage`, so their retried attempts count, and of their latencies and attempts;
/// denominator: the number of successful probes), or `None` when it has none.
pub fn probe_profile(run: &Run, probes: &[Probe]) -> Option<ProbeProfile> {
    profile_and_count(run, probes).map(|(profile, _)| profile)
}

/// [`probe_profile`] and the number of successful probes it averaged.
fn profile_and_count(run: &Run, probes: &[Probe]) -> Option<(ProbeProfile, u32)> {
    let mut n = 0u32;
    let mut acc = [0f64; 6];
    for p in probes.iter().filter(|p| p.run_id == run.id && p.status == ProbeStatus::Success) {
        n += 1;
        let billed = p.billed();
        acc[0] += billed.input_tokens as f64;
        acc[1] += billed.cache_read_input_tokens as f64;
        acc[2] += billed.output_tokens as f64;
        acc[3] += billed.web_search_requests as f64;
        acc[4] += p.latency_ms as f64;
        acc[5] += f64::from(billed_requests(p));
    }
    (n > 0).then(|| {
        let d = f64::from(n);
        let profile = ProbeProfile {
            input_tokens: acc[0] / d,
            cache_read_input_tokens: acc[1] / d,
            output_tokens: acc[2] / d,
            web_search_requests: acc[3] / d,
            latency_ms: acc[4] / d,
            attempts: acc[5] / d,
        };
        (profile, n)
    })
}

/// Estimates the cost and duration of a run of `prompts` × `repeats` probes of `model` on
/// `engine`.
///
/// Uses the averages of the successful probes of `history` (the last run) when it has any,
/// else [`DEFAULT_PROBE_PROFILE`]. The price is always that of `model`, whatever model the
/// history used; an empty model name means the engine's default model; a model without a
/// price gives `cost_usd: None`.
pub fn estimate_engine_run(
    engine: EngineId,
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
    let model = crate::provider::model_or_default(engine, model);
    let price = price_for_engine(engine, model);
    let per_probe = price.map(|price| {
        profile.input_tokens / 1e6 * price.input_cache_miss_per_million
            + profile.cache_read_input_tokens / 1e6 * price.input_cache_hit_per_million
            + profile.output_tokens / 1e6 * price.output_per_million
            + search_fee(price, profile.web_search_requests, profile.attempts, None)
    });
    let probes = prompts as u64 * u64::from(repeats);
    let workers = concurrency.clamp(1, 3);
    let waves = probes.div_ceil(u64::from(workers));
    let seconds = (waves as f64 * profile.latency_ms / 1000.0).ceil() as u64;
    RunEstimate {
        cost_usd: per_probe.map(|c| probes as f64 * c),
        price,
        seconds,
        probes,
        workers,
        waves,
        basis,
        history_probes,
        profile,
    }
}

/// The estimate of a batch of runs started together, one per engine, which go side by side.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BatchEstimate {
    /// The sum of the runs' costs; `None` when one run's model has no price (a batch with
    /// an unknown part has no known total).
    pub cost_usd: Option<f64>,
    /// The longest run's duration: the runs go side by side.
    pub seconds: u64,
    /// The sum of the runs' probes.
    pub probes: u64,
}

/// Sums the estimates of a batch (`engine → its run's estimate`): cost and probes add up,
/// the duration is the longest run's. An empty batch costs nothing and takes no time.
pub fn batch_estimate(estimates: &[(EngineId, RunEstimate)]) -> BatchEstimate {
    let cost_usd = estimates.iter().try_fold(0.0, |sum, (_, e)| Some(sum + e.cost_usd?));
    let seconds = estimates.iter().map(|(_, e)| e.seconds).max().unwrap_or(0);
    let probes = estimates.iter().map(|(_, e)| e.probes).sum();
    BatchEstimate { cost_usd, seconds, probes }
}
