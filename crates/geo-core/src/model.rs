//! The snapshot model: every object GEO Probe stores, exports and imports.
//!
//! Field names follow `shared/spec/data-model.md` exactly (serde camelCase). Optional
//! fields are `Option<_>` and are skipped when `None`; collections and derived fields
//! default to empty so that a demo file (raw results only) or an export of the original
//! web app deserialises without complaint. Unknown fields are ignored on input.

use serde::{Deserialize, Serialize};

/// Version of this program, written into every run and export.
pub const APP_VERSION: &str = env!("CARGO_PKG_VERSION");
/// Version of the stored/exported data layout (`version` of the export envelope).
pub const SCHEMA_VERSION: u32 = 1;
/// Version of the fixed neutral system prompt sent with every probe.
pub const SYSTEM_PROMPT_VERSION: &str = "neutral-zh-v1";
/// `format` field of every export envelope.
pub const EXPORT_FORMAT: &str = "geo-probe-export";

/// `ALL`, `NAMES`, `as_str` and `parse` for a model enum, from one list of its variants and
/// their wire names (the serde names; a test checks every variant against serde).
macro_rules! wire_names {
    ($ty:ident { $($variant:ident => $name:literal),+ $(,)? }) => {
        impl $ty {
            /// Every variant, in declaration order.
            pub const ALL: [$ty; [$($name),+].len()] = [$($ty::$variant),+];
            /// Every wire name, in declaration order.
            pub const NAMES: &'static [&'static str] = &[$($name),+];

            /// The wire name: the JSON string of this value.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $($ty::$variant => $name),+
                }
            }

            /// The value with this wire name (exact), if any.
            pub fn parse(name: &str) -> Option<$ty> {
                Self::ALL.into_iter().find(|v| v.as_str() == name)
            }
        }
    };
}

mod facts;
pub use facts::{Claim, Currency, Fact, FactKind, FactSnapshot, RiskFlag, RiskKind, Verdict};
mod location;
pub use location::{
    is_iana_timezone, Location, LocationApplied, LocationProblem, Surface, APP_MODEL, MAX_PART_CHARS, TIMEZONE_AREAS,
};

/// Whether a [`Target`] is the monitored brand or one of its competitors.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TargetKind {
    /// The brand the project monitors.
    Brand,
    /// A competitor of the brand.
    Competitor,
}

wire_names!(TargetKind { Brand => "brand", Competitor => "competitor" });

/// A tracked entity: the brand or a competitor, with the names and domains that identify it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Target {
    /// Stable id, unique within a project.
    pub id: String,
    /// Brand or competitor.
    pub kind: TargetKind,
    /// Display name.
    pub label: String,
    /// Names matched literally in answers (the recall boundary of mention matching).
    #[serde(default)]
    pub aliases: Vec<String>,
    /// Bare hosts such as `example.com`; a domain also matches its subdomains.
    #[serde(default)]
    pub domains: Vec<String>,
}

/// A monitored brand with its competitors.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Project {
    /// Stable id.
    pub id: String,
    /// Display name.
    pub name: String,
    /// The brand (kind `brand`).
    pub brand: Target,
    /// Competitors in the user's order (kind `competitor`).
    #[serde(default)]
    pub competitors: Vec<Target>,
    /// True for the bundled demo project.
    #[serde(default)]
    pub is_demo: bool,
    /// ISO 8601 UTC.
    pub created_at: String,
    /// ISO 8601 UTC.
    pub updated_at: String,
    /// The fact sheet: facts about the brand and its competitors that answers are checked
    /// against (absent = none).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub facts: Vec<Fact>,
    /// Terms flagged wherever a target is discussed (absent = none).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub watch_terms: Vec<String>,
}

impl Project {
    /// The fact sheet as a run freezes it (`factSnapshot`): `None` when the project has no
    /// fact and no watch term.
    pub fn fact_snapshot(&self) -> Option<FactSnapshot> {
        (!self.facts.is_empty() || !self.watch_terms.is_empty())
            .then(|| FactSnapshot { facts: self.facts.clone(), watch_terms: self.watch_terms.clone() })
    }

    /// Brand first, then competitors in project order: the shape of a run's `aliasSnapshot`.
    pub fn targets(&self) -> Vec<Target> {
        let mut out = Vec::with_capacity(1 + self.competitors.len());
        out.push(self.brand.clone());
        out.extend(self.competitors.iter().cloned());
        out
    }
}

/// Well-known prompt tags (other strings are allowed).
pub mod tags {
    /// 通用词: category questions that do not name the brand.
    pub const GENERIC: &str = "generic";
    /// 品牌词: questions that name the brand.
    pub const BRAND: &str = "brand";
    /// 产品词: questions about a product.
    pub const PRODUCT: &str = "product";
    /// 竞品词: questions that name a competitor.
    pub const COMPETITOR: &str = "competitor";
    /// 场景词: scenario questions.
    pub const SCENARIO: &str = "scenario";
    /// All well-known tags in display order.
    pub const ALL: &[&str] = &[GENERIC, BRAND, PRODUCT, COMPETITOR, SCENARIO];

    /// The Chinese names of [`ALL`], in the same order.
    const ZH: &[&str] = &["通用词", "品牌词", "产品词", "竞品词", "场景词"];

    /// The label of `tag` in `lang`: a well-known tag by its Chinese name (通用词, …) or its
    /// stored name in English; any other tag as written.
    pub fn label(tag: &str, lang: super::Lang) -> &str {
        match (ALL.iter().position(|k| *k == tag), lang) {
            (Some(i), super::Lang::Zh) => ZH[i],
            _ => tag,
        }
    }

    /// A tag as typed (`品牌词`, `brand`, ` Brand `) in its stored form (`brand`); other tags
    /// trimmed; `None` for a blank one.
    pub fn normalize(input: &str) -> Option<String> {
        let t = input.trim();
        if t.is_empty() {
            return None;
        }
        let known = ALL.iter().zip(ZH).find(|(k, zh)| k.eq_ignore_ascii_case(t) || **zh == t).map(|(k, _)| *k);
        Some(known.unwrap_or(t).to_string())
    }
}

/// A natural-language question asked of the assistant.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Prompt {
    /// Stable id.
    pub id: String,
    /// Owning project.
    pub project_id: String,
    /// The question text.
    pub text: String,
    /// Tags such as `generic`, `brand`, `product` (see [`tags`]).
    #[serde(default)]
    pub tags: Vec<String>,
    /// ISO 8601 UTC.
    pub created_at: String,
    /// ISO 8601 UTC.
    pub updated_at: String,
}

/// The assistant a run asks (`shared/spec/engines.md`); `deepseek` when a stored run
/// names none, so every older export stays valid.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EngineId {
    /// DeepSeek's Anthropic-compatible Messages endpoint (the seed's engine).
    #[default]
    Deepseek,
    /// Anthropic's Claude Messages API.
    Anthropic,
    /// OpenAI's Responses API.
    Openai,
    /// Google's Gemini `generateContent`.
    Gemini,
    /// Perplexity's chat completions.
    Perplexity,
    /// Alibaba's Qwen through DashScope's native text generation (engines.md, "Chinese engines").
    Qwen,
    /// ByteDance's Doubao through Volcengine Ark's Responses API.
    Doubao,
    /// Baidu's ERNIE through Qianfan's chat completions.
    Ernie,
    /// Tencent's Hunyuan through its OpenAI-compatible chat completions.
    Hunyuan,
}

impl EngineId {
    /// Every engine in the order of `shared/spec/engines.md` (the order of every engine list).
    pub const ALL: [EngineId; 9] = [
        EngineId::Deepseek,
        EngineId::Anthropic,
        EngineId::Openai,
        EngineId::Gemini,
        EngineId::Perplexity,
        EngineId::Qwen,
        EngineId::Doubao,
        EngineId::Ernie,
        EngineId::Hunyuan,
    ];

    /// The wire name (`deepseek`, `anthropic`, `openai`, `gemini`, `perplexity`, `qwen`,
    /// `doubao`, `ernie`, `hunyuan`).
    pub fn as_str(self) -> &'static str {
        match self {
            EngineId::Deepseek => "deepseek",
            EngineId::Anthropic => "anthropic",
            EngineId::Openai => "openai",
            EngineId::Gemini => "gemini",
            EngineId::Perplexity => "perplexity",
            EngineId::Qwen => "qwen",
            EngineId::Doubao => "doubao",
            EngineId::Ernie => "ernie",
            EngineId::Hunyuan => "hunyuan",
        }
    }

    /// The engine with this wire name (exact, lowercase), if any.
    pub fn parse(name: &str) -> Option<EngineId> {
        EngineId::ALL.into_iter().find(|e| e.as_str() == name)
    }
}

impl std::fmt::Display for EngineId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The configuration frozen into a run when it starts. Its `Default`, the default run, is
/// built from the engine and budget tables (`provider::budget`). Written through
/// `location::RunConfigOut`: an `app` run's config has no budget, and its budget fields are
/// written `null` ([`RunConfig::for_app`]); compared field by field, two configs without a
/// budget as equal (`location.rs`).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", into = "location::RunConfigOut")]
pub struct RunConfig {
    /// The engine asked (absent in older exports: DeepSeek).
    #[serde(default)]
    pub engine: EngineId,
    /// Requested model name.
    pub model: String,
    /// Probes per prompt.
    pub repeats: u32,
    /// Parallel requests, clamped to 1..=3 (`null` in an `app` run: read as 0).
    #[serde(default, deserialize_with = "location::u32_or_null")]
    pub concurrency: u32,
    /// `max_uses` of the web search tool (`null` in an `app` run: read as 0).
    #[serde(default, deserialize_with = "location::u32_or_null")]
    pub max_searches: u32,
    /// `max_tokens` of the request (`null` in an `app` run: read as 0).
    #[serde(default, deserialize_with = "location::u32_or_null")]
    pub max_tokens: u32,
    /// `temperature` of the request (`null` in an `app` run: read as NaN, the mark of a
    /// config without a budget, [`RunConfig::is_captured`]).
    #[serde(default = "location::no_temperature", deserialize_with = "location::f64_or_nan")]
    pub temperature: f64,
    /// Version of the system prompt used (`null` in an `app` run: read as empty).
    #[serde(default, deserialize_with = "location::string_or_null")]
    pub system_prompt_version: String,
    /// The reasoning effort the request asked for (OpenAI `reasoning.effort`, DeepSeek
    /// `output_config.effort`, Gemini's thinking budget chosen by it): absent when the
    /// engine's model has no such setting, and in older exports (`docs/adr/0016-…`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning_effort: Option<ReasoningEffort>,
    /// Gemini's `thinkingConfig.thinkingBudget` as sent (tokens of thinking allowed inside
    /// `maxTokens`); absent for other engines and in older exports.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thinking_budget: Option<u32>,
    /// Where the asker is (engines.md, "Where and how an answer was measured"); absent = no
    /// location.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub location: Option<Location>,
    /// Whether an engine without a location field gets the system prompt's `User location:`
    /// line (absent = `true`; only `false` is written).
    #[serde(default = "location::yes", skip_serializing_if = "location::is_true")]
    pub location_prompt: bool,
}

/// How hard a reasoning model is asked to think (`run --reasoning-effort`; engines.md
/// "Fidelity"). OpenAI refuses `minimal` together with `web_search`, so there is none.
///
/// Read through a `String` ([`ReasoningEffort::parse`]): no enum visitor of its own in the
/// web app's module (ADR 0014).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", try_from = "String")]
pub enum ReasoningEffort {
    /// `low`.
    Low,
    /// `medium`.
    Medium,
    /// `high`.
    High,
}

wire_names!(ReasoningEffort { Low => "low", Medium => "medium", High => "high" });

impl TryFrom<String> for ReasoningEffort {
    type Error = String;

    fn try_from(name: String) -> Result<Self, String> {
        ReasoningEffort::parse(&name)
            .ok_or_else(|| format!("unknown reasoning effort {name:?}; use low, medium or high"))
    }
}

/// Lifecycle state of a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunStatus {
    /// Probes are being executed.
    Running,
    /// Every probe succeeded.
    Completed,
    /// Some probes succeeded, some failed.
    Partial,
    /// No probe succeeded.
    Failed,
    /// The user cancelled the run.
    Cancelled,
}

wire_names!(RunStatus {
    Running => "running",
    Completed => "completed",
    Partial => "partial",
    Failed => "failed",
    Cancelled => "cancelled",
});

/// One batch of probes with its frozen snapshots.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Run {
    /// Stable id.
    pub id: String,
    /// Owning project.
    pub project_id: String,
    /// Current status.
    pub status: RunStatus,
    /// ISO 8601 UTC.
    pub created_at: String,
    /// ISO 8601 UTC, set when the run stops.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finished_at: Option<String>,
    /// Newest completed or partial run of the project when this one started.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub previous_run_id: Option<String>,
    /// [`APP_VERSION`] at creation.
    #[serde(default)]
    pub app_version: String,
    /// [`SCHEMA_VERSION`] at creation.
    #[serde(default = "default_schema_version")]
    pub schema_version: u32,
    /// Frozen configuration.
    pub config: RunConfig,
    /// Brand first, then competitors, as they were when the run started.
    #[serde(default)]
    pub alias_snapshot: Vec<Target>,
    /// The prompts of the run, as they were when it started.
    #[serde(default)]
    pub prompt_snapshot: Vec<Prompt>,
    /// prompts × repeats.
    #[serde(default)]
    pub planned_probe_count: u32,
    /// Shared by the runs started together (one per engine) so they can be compared.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group_id: Option<String>,
    /// The project's fact sheet as it was when the run started (absent in older runs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fact_snapshot: Option<FactSnapshot>,
    /// What the run measured: `api` (absent: every run this program made) or `app` (captured
    /// answers, `geo-probe import-captures`).
    #[serde(default, skip_serializing_if = "Surface::is_api")]
    pub surface: Surface,
}

fn default_schema_version() -> u32 {
    SCHEMA_VERSION
}

/// Outcome of one probe.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ProbeStatus {
    /// A non-empty answer was received and analysed.
    Success,
    /// Attempts exhausted or a non-retryable error.
    Error,
    /// The request succeeded but the cleaned answer stayed empty.
    Empty,
    /// Kept for compatibility; the runner never writes a cancelled probe.
    Cancelled,
}

wire_names!(ProbeStatus { Success => "success", Error => "error", Empty => "empty", Cancelled => "cancelled" });

impl ProbeStatus {
    /// `error` and `empty`: the probes counted as failures.
    pub fn is_failure(self) -> bool {
        matches!(self, ProbeStatus::Error | ProbeStatus::Empty)
    }
}

/// Kind of a probe error (`error.kind`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    /// 401: the key is invalid.
    Auth,
    /// 402: insufficient balance.
    Balance,
    /// 403: request refused.
    Forbidden,
    /// 429: rate limited.
    RateLimit,
    /// 5xx.
    Server,
    /// 408 or the client's request timeout.
    Timeout,
    /// The request never got an HTTP response.
    Network,
    /// The body was not valid JSON or not a Messages response.
    InvalidJson,
    /// The answer was empty after cleaning on every attempt.
    Empty,
    /// Any other HTTP status.
    Http,
    /// The engine's content filter declined the prompt or the answer (a DashScope
    /// `DataInspectionFailed`, an Ark `SensitiveContentDetected`, ERNIE's `content_filter`,
    /// Hunyuan's `sensitive`): never retried, counted as failed.
    Refused,
}

wire_names!(ErrorKind {
    Auth => "auth",
    Balance => "balance",
    Forbidden => "forbidden",
    RateLimit => "rate_limit",
    Server => "server",
    Timeout => "timeout",
    Network => "network",
    InvalidJson => "invalid_json",
    Empty => "empty",
    Http => "http",
    Refused => "refused",
});

/// The error recorded on a failed probe.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProbeError {
    /// What went wrong.
    pub kind: ErrorKind,
    /// HTTP status, when there was a response.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub http_status: Option<u16>,
    /// Human-readable message.
    #[serde(default)]
    pub message: String,
}

/// Perplexity's `usage.search_context_size`: how much search context the request paid for,
/// which sets its per-request fee (`shared/spec/engines.md`, "Fidelity").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SearchContextSize {
    /// `low` (also what an absent size is billed as).
    Low,
    /// `medium`.
    Medium,
    /// `high`.
    High,
}

wire_names!(SearchContextSize { Low => "low", Medium => "medium", High => "high" });

/// Token and search usage reported by the provider.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Usage {
    /// `usage.input_tokens`.
    #[serde(default)]
    pub input_tokens: u64,
    /// `usage.output_tokens`.
    #[serde(default)]
    pub output_tokens: u64,
    /// `usage.cache_read_input_tokens`.
    #[serde(default)]
    pub cache_read_input_tokens: u64,
    /// `usage.server_tool_use.web_search_requests`.
    #[serde(default)]
    pub web_search_requests: u64,
    /// Perplexity's `usage.search_context_size`, kept so that its request fee can be priced
    /// again; absent for every other engine.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub search_context_size: Option<SearchContextSize>,
}

impl Usage {
    /// The sum of two attempts' usage, field by field (saturating); the context size is the
    /// first one given.
    pub fn plus(self, other: Usage) -> Usage {
        Usage {
            input_tokens: self.input_tokens.saturating_add(other.input_tokens),
            output_tokens: self.output_tokens.saturating_add(other.output_tokens),
            cache_read_input_tokens: self.cache_read_input_tokens.saturating_add(other.cache_read_input_tokens),
            web_search_requests: self.web_search_requests.saturating_add(other.web_search_requests),
            search_context_size: self.search_context_size.or(other.search_context_size),
        }
    }
}

/// A search the assistant ran.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Query {
    /// 1-based, in order of appearance.
    pub index: u32,
    /// The search words, or `None` when the provider gave an internal id.
    #[serde(default)]
    pub query: Option<String>,
    /// True when the query is an internal id (shown as 「内部检索」).
    #[serde(default)]
    pub internal: bool,
    /// Error code when the search returned an error object instead of results.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// One result of one search, as the provider returned it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RawSource {
    /// The [`Query::index`] that returned it.
    pub query_index: u32,
    /// 1-based rank within its query.
    pub rank: u32,
    /// Title as returned.
    #[serde(default)]
    pub title: String,
    /// URL as returned.
    pub url: String,
    /// `page_age` as returned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page_age: Option<String>,
    /// The site's name as the engine gave it (Qwen's `site_name`, ERNIE's `web_anchor` …),
    /// verbatim; absent when empty or 「无」 (engines.md, "Chinese engines").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub site_name: Option<String>,
}

/// What an engine's own citation data attributes part of the answer to, verbatim.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RawCitation {
    /// The cited URL as the engine gave it.
    pub url: String,
    /// The cited page's title, when given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The cited passage, when given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cited_text: Option<String>,
    /// For the engines that cite with markers (perplexity, qwen, ernie, hunyuan): the number
    /// of the search result the answer's markers name (absent in older probes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index: Option<u32>,
}

/// Who a retrieved source belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Ownership {
    /// On one of the brand's domains.
    Owned,
    /// On one of a competitor's domains.
    Competitor,
    /// Anywhere else.
    ThirdParty,
}

wire_names!(Ownership { Owned => "owned", Competitor => "competitor", ThirdParty => "third_party" });

/// One time a source was returned: by which query, at which rank.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Occurrence {
    /// The [`Query::index`].
    pub query_index: u32,
    /// The query words (`None` for internal queries).
    #[serde(default)]
    pub query: Option<String>,
    /// 1-based rank within the query.
    pub rank: u32,
}

/// A retrieved source after normalisation, deduplicated by canonical URL.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SearchSource {
    /// `src_1`, `src_2`, … after sorting.
    pub id: String,
    /// Canonical URL.
    pub url: String,
    /// Lower-cased host.
    pub host: String,
    /// Registrable domain (public suffix list).
    pub domain: String,
    /// The longest title seen.
    #[serde(default)]
    pub title: String,
    /// First non-empty page age.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page_age: Option<String>,
    /// Platform name (from the static table, else the domain).
    pub platform: String,
    /// Channel key (see `analysis::platforms`), `other` when unknown.
    pub channel: String,
    /// Owned, competitor or third party.
    pub ownership: Ownership,
    /// Set when `ownership` is `competitor`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub competitor_id: Option<String>,
    /// Every (query, rank) that returned this URL.
    #[serde(default)]
    pub occurrences: Vec<Occurrence>,
    /// Smallest rank over the occurrences.
    pub best_rank: u32,
    /// Ids of targets whose aliases appear in the title.
    #[serde(default)]
    pub title_mentions: Vec<String>,
    /// A **Cited Source**: the canonical URL equals that of one of the probe's
    /// `rawCitations`; `None` when the probe has no citation data.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cited: Option<bool>,
}

/// A tracked target named in the answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Mention {
    /// The target.
    pub target_id: String,
    /// Number of merged alias intervals.
    pub count: u32,
    /// 1-based order of first appearance among tracked targets.
    pub order: u32,
    /// Offset (in Unicode scalar values) of the first hit in the normalised answer.
    pub first_index: u32,
    /// About 80 characters either side of the first hit.
    #[serde(default)]
    pub context: String,
    /// Every alias that matched.
    #[serde(default)]
    pub matched_aliases: Vec<String>,
    /// Position in the parsed recommendation list, when the target is on it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list_position: Option<u32>,
    /// The target's position-adjusted word count in this answer (see
    /// `analysis::pawc`), computed once by the analysis so that metrics over many runs
    /// do not rescan every answer. Absent in exports from before it existed; metrics then
    /// compute it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub position_adjusted_word_count: Option<f64>,
}

/// One entry of the parsed recommendation list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListItem {
    /// 1-based position.
    pub position: u32,
    /// Cleaned title.
    pub title: String,
    /// Full text of the item.
    #[serde(default)]
    pub text: String,
    /// Target named by the item.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub matched_target_id: Option<String>,
}

/// A URL the answer itself wrote out.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AnswerLink {
    /// URL as written.
    pub url: String,
    /// Canonical URL (same normalisation as sources).
    pub canonical_url: String,
    /// Registrable domain.
    pub domain: String,
    /// Markdown link text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Whether the canonical URL is also among this probe's retrieved sources.
    pub in_sources: bool,
}

/// What `geo-probe links` found at an Answer Link (`shared/spec/cli.md`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LinkClass {
    /// A 2xx reply without a redirect.
    Ok,
    /// A 2xx reply after at least one redirect.
    Redirect,
    /// 404 or 410: the page does not exist (a likely invented link).
    NotFound,
    /// 401, 403 or 429: a login or bot wall answered, the page may exist.
    Blocked,
    /// No usable reply: DNS, TLS, a timeout, a refused connection, any other status, too many
    /// redirects or a redirect to a non-http(s) URL.
    Error,
}

wire_names!(LinkClass {
    Ok => "ok",
    Redirect => "redirect",
    NotFound => "not_found",
    Blocked => "blocked",
    Error => "error",
});

/// One redirect followed while checking a link.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LinkHop {
    /// The URL requested.
    pub url: String,
    /// The redirect's status (3xx).
    pub status: u16,
    /// Its `Location` header as sent, without userinfo (cut to
    /// [`crate::limits::MAX_LINK_URL_CHARS`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub location: Option<String>,
}

/// One checked link of a [`LinkCheck`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LinkResult {
    /// The Answer Link's `canonicalUrl` without userinfo: the URL requested first.
    pub url: String,
    /// What was found.
    pub class: LinkClass,
    /// The last response's HTTP status, when there was a response.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    /// The URL of the last response, present when a redirect was followed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub final_url: Option<String>,
    /// Every redirect followed, in order.
    #[serde(default)]
    pub hops: Vec<LinkHop>,
    /// What went wrong, for `error` (and a status outside the classes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// The answer-link check of one run: a `linkChecks` record of the export envelope.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LinkCheck {
    /// The run whose Answer Links were checked (one record per run).
    pub run_id: String,
    /// ISO 8601 UTC, when the check ended.
    pub checked_at: String,
    /// Every distinct link, once.
    #[serde(default)]
    pub links: Vec<LinkResult>,
}

/// One execution of one prompt in one run, with its raw result and derived analysis.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Probe {
    /// `{runId}__{promptId}__{repeatIndex}`.
    pub id: String,
    /// Owning run.
    pub run_id: String,
    /// Owning project.
    pub project_id: String,
    /// The prompt asked.
    pub prompt_id: String,
    /// 0-based repeat.
    pub repeat_index: u32,
    /// Outcome.
    pub status: ProbeStatus,
    /// ISO 8601 UTC.
    pub created_at: String,
    /// Model that answered (requested model when the response omits it).
    #[serde(default)]
    pub model: String,
    /// Attempts made (1..=3).
    #[serde(default)]
    pub attempts: u32,
    /// Latency of the last attempt in milliseconds.
    #[serde(default)]
    pub latency_ms: u64,
    /// Set for `error` and `empty`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ProbeError>,
    /// Top-level `id` of the response.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_id: Option<String>,
    /// Top-level `stop_reason` of the response.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<String>,
    /// Token and search usage of the answering attempt.
    #[serde(default)]
    pub usage: Usage,
    /// The last reply stopped on a length limit (absent in older exports: false).
    #[serde(default)]
    pub truncated: bool,
    /// Usage summed over every attempt that returned usage (absent in older exports: `usage`;
    /// read it through [`Probe::billed`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub billed_usage: Option<Usage>,
    /// `pause_turn` continuations of the last attempt (0 when none).
    #[serde(default)]
    pub continuations: u32,
    /// The engine's own stated cost in USD of all attempts, when every billed attempt stated one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
    /// How the run's location reached the engine in the last attempt (absent: `none`).
    #[serde(default, skip_serializing_if = "LocationApplied::is_none")]
    pub location_applied: LocationApplied,
    /// Raw: all text blocks joined.
    #[serde(default)]
    pub raw_answer: String,
    /// Raw: searches in order of appearance.
    #[serde(default)]
    pub queries: Vec<Query>,
    /// Raw: search results in order of appearance.
    #[serde(default)]
    pub raw_sources: Vec<RawSource>,
    /// Raw: the engine's own citations; `None` when the engine has no citation data.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raw_citations: Option<Vec<RawCitation>>,
    /// Derived: the cleaned answer.
    #[serde(default)]
    pub answer: String,
    /// Derived: normalised, deduplicated, classified sources.
    #[serde(default)]
    pub sources: Vec<SearchSource>,
    /// Derived: tracked targets named in the answer.
    #[serde(default)]
    pub mentions: Vec<Mention>,
    /// Derived: the parsed recommendation list.
    #[serde(default)]
    pub list_items: Vec<ListItem>,
    /// Derived: company-like list titles that match no target (at most 20).
    #[serde(default)]
    pub other_entities: Vec<String>,
    /// Derived: URLs written in the answer.
    #[serde(default)]
    pub answer_links: Vec<AnswerLink>,
    /// Derived: sentences on a fact's topic with their verdicts (`[]` unless `success`).
    #[serde(default)]
    pub claims: Vec<Claim>,
    /// Derived: sentences about a target that hold a risk cue (`[]` unless `success`).
    #[serde(default)]
    pub risk_flags: Vec<RiskFlag>,
}

impl Probe {
    /// What every attempt of this probe was billed for: `billedUsage`, or `usage` for a probe
    /// of an older export that has none.
    pub fn billed(&self) -> Usage {
        self.billed_usage.unwrap_or(self.usage)
    }
}

/// Builds the stable probe id `{runId}__{promptId}__{repeatIndex}`.
pub fn probe_id(run_id: &str, prompt_id: &str, repeat_index: u32) -> String {
    format!("{run_id}__{prompt_id}__{repeat_index}")
}

/// The export envelope: full export, single-run export and demo file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExportEnvelope {
    /// Always [`EXPORT_FORMAT`].
    pub format: String,
    /// [`SCHEMA_VERSION`] of the writer.
    pub version: u32,
    /// ISO 8601 UTC.
    #[serde(default)]
    pub exported_at: String,
    /// [`APP_VERSION`] of the writer.
    #[serde(default)]
    pub app_version: String,
    /// Projects.
    #[serde(default)]
    pub projects: Vec<Project>,
    /// Prompts.
    #[serde(default)]
    pub prompts: Vec<Prompt>,
    /// Runs.
    #[serde(default)]
    pub runs: Vec<Run>,
    /// Probes.
    #[serde(default)]
    pub probes: Vec<Probe>,
    /// The answer-link checks of `geo-probe links`, one per checked run (absent when none).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub link_checks: Vec<LinkCheck>,
}

impl ExportEnvelope {
    /// An empty envelope stamped with this program's versions.
    pub fn new(exported_at: impl Into<String>) -> Self {
        ExportEnvelope {
            format: EXPORT_FORMAT.to_string(),
            version: SCHEMA_VERSION,
            exported_at: exported_at.into(),
            app_version: APP_VERSION.to_string(),
            projects: Vec::new(),
            prompts: Vec::new(),
            runs: Vec::new(),
            probes: Vec::new(),
            link_checks: Vec::new(),
        }
    }
}

/// Interface language.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Lang {
    /// Chinese (default).
    #[default]
    Zh,
    /// English.
    En,
}

wire_names!(Lang { Zh => "zh", En => "en" });

impl Lang {
    /// The text in this language of the pair `(zh, en)`.
    pub fn pick<'a>(self, zh: &'a str, en: &'a str) -> &'a str {
        match self {
            Lang::Zh => zh,
            Lang::En => en,
        }
    }
}

/// A message in both interface languages.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Localized {
    /// Chinese text.
    pub zh: String,
    /// English text.
    pub en: String,
}

impl Localized {
    /// Builds a message from its two texts.
    pub fn new(zh: impl Into<String>, en: impl Into<String>) -> Self {
        Localized { zh: zh.into(), en: en.into() }
    }

    /// The text in `lang`.
    pub fn get(&self, lang: Lang) -> &str {
        match lang {
            Lang::Zh => &self.zh,
            Lang::En => &self.en,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn probe_id_has_the_seed_shape() {
        assert_eq!(probe_id("run_1", "p_2", 0), "run_1__p_2__0");
    }

    #[test]
    fn demo_style_probe_without_derived_fields_deserialises() {
        let json = r#"{"id":"r__p__0","runId":"r","projectId":"x","promptId":"p","repeatIndex":0,
            "status":"success","createdAt":"2026-11-29T08:00:00.000Z","rawAnswer":"hi","unknownField":1}"#;
        let probe: Probe = serde_json::from_str(json).unwrap();
        assert_eq!(probe.raw_answer, "hi");
        assert!(probe.sources.is_empty());
        let back = serde_json::to_value(&probe).unwrap();
        assert!(back.get("unknownField").is_none());
        assert_eq!(back["repeatIndex"], 0);
        assert_eq!(back["status"], "success");
    }

    #[test]
    fn an_older_probe_reads_with_the_fidelity_defaults() {
        let json = r#"{"id":"r__p__0","runId":"r","projectId":"x","promptId":"p","repeatIndex":0,
            "status":"success","createdAt":"2026-11-29T08:00:00.000Z","rawAnswer":"hi",
            "usage":{"inputTokens":5,"outputTokens":7,"cacheReadInputTokens":0,"webSearchRequests":1}}"#;
        let probe: Probe = serde_json::from_str(json).unwrap();
        assert!(!probe.truncated);
        assert_eq!(probe.continuations, 0);
        assert_eq!(probe.cost_usd, None);
        assert_eq!(probe.billed(), probe.usage);
        let back = serde_json::to_value(&probe).unwrap();
        assert!(back.get("billedUsage").is_none());
        assert!(back["usage"].get("searchContextSize").is_none());
    }

    #[test]
    fn usage_sums_field_by_field() {
        let a = Usage {
            input_tokens: 1,
            output_tokens: 2,
            cache_read_input_tokens: 3,
            web_search_requests: 4,
            search_context_size: None,
        };
        let b = Usage { search_context_size: Some(SearchContextSize::High), ..a };
        let sum = a.plus(b);
        assert_eq!(
            (sum.input_tokens, sum.output_tokens, sum.cache_read_input_tokens, sum.web_search_requests),
            (2, 4, 6, 8)
        );
        assert_eq!(sum.search_context_size, Some(SearchContextSize::High));
        assert_eq!(Usage { input_tokens: u64::MAX, ..a }.plus(a).input_tokens, u64::MAX);
    }

    #[test]
    fn enums_serialise_as_contract_strings() {
        assert_eq!(serde_json::to_string(&ErrorKind::RateLimit).unwrap(), "\"rate_limit\"");
        assert_eq!(serde_json::to_string(&ErrorKind::InvalidJson).unwrap(), "\"invalid_json\"");
        assert_eq!(serde_json::to_string(&Ownership::ThirdParty).unwrap(), "\"third_party\"");
        assert_eq!(serde_json::to_string(&RunStatus::Partial).unwrap(), "\"partial\"");
    }

    /// Every model enum's `as_str` is its serde name, `NAMES` lists them in order, and
    /// `parse` inverts `as_str` (exactly: no case folding).
    #[test]
    fn wire_names_are_the_serde_names() {
        fn check<T: Copy + PartialEq + std::fmt::Debug + Serialize + serde::de::DeserializeOwned>(
            all: &[T],
            names: &[&str],
            as_str: fn(T) -> &'static str,
            parse: fn(&str) -> Option<T>,
        ) {
            assert_eq!(all.len(), names.len());
            for (&v, &name) in all.iter().zip(names) {
                assert_eq!(serde_json::to_value(v).unwrap(), as_str(v), "{v:?}");
                assert_eq!(as_str(v), name);
                assert_eq!(parse(name), Some(v));
                assert_eq!(serde_json::from_value::<T>(serde_json::Value::from(name)).unwrap(), v);
                assert_eq!(parse(&name.to_uppercase()), None);
            }
        }
        check(&TargetKind::ALL, TargetKind::NAMES, TargetKind::as_str, TargetKind::parse);
        check(&RunStatus::ALL, RunStatus::NAMES, RunStatus::as_str, RunStatus::parse);
        check(&ProbeStatus::ALL, ProbeStatus::NAMES, ProbeStatus::as_str, ProbeStatus::parse);
        check(&ErrorKind::ALL, ErrorKind::NAMES, ErrorKind::as_str, ErrorKind::parse);
        check(&Ownership::ALL, Ownership::NAMES, Ownership::as_str, Ownership::parse);
        check(&Lang::ALL, Lang::NAMES, Lang::as_str, Lang::parse);
        check(&SearchContextSize::ALL, SearchContextSize::NAMES, SearchContextSize::as_str, SearchContextSize::parse);
        check(&ReasoningEffort::ALL, ReasoningEffort::NAMES, ReasoningEffort::as_str, ReasoningEffort::parse);
        check(&LinkClass::ALL, LinkClass::NAMES, LinkClass::as_str, LinkClass::parse);
        let engines: Vec<&str> = EngineId::ALL.iter().map(|e| e.as_str()).collect();
        check(&EngineId::ALL, &engines, EngineId::as_str, EngineId::parse);
    }

    #[test]
    fn tags_map_between_chinese_and_stored_names() {
        assert_eq!(tags::normalize("品牌词").as_deref(), Some("brand"));
        assert_eq!(tags::normalize(" Scenario ").as_deref(), Some("scenario"));
        assert_eq!(tags::normalize("季节").as_deref(), Some("季节"));
        assert_eq!(tags::normalize("  "), None);
        assert_eq!(tags::label("competitor", Lang::Zh), "竞品词");
        assert_eq!(tags::label("competitor", Lang::En), "competitor");
        assert_eq!(tags::label("custom", Lang::Zh), "custom");
        for tag in tags::ALL {
            assert_eq!(tags::normalize(tags::label(tag, Lang::Zh)).as_deref(), Some(*tag));
        }
    }

    #[test]
    fn engine_ids_match_their_wire_names_and_default_to_deepseek() {
        for engine in EngineId::ALL {
            assert_eq!(serde_json::to_value(engine).unwrap(), engine.as_str());
            assert_eq!(EngineId::parse(engine.as_str()), Some(engine));
        }
        assert_eq!(EngineId::parse("DeepSeek"), None);
        let config: RunConfig = serde_json::from_str(
            r#"{"model":"m","repeats":1,"concurrency":1,"maxSearches":5,"maxTokens":3000,"temperature":1,"systemPromptVersion":"v"}"#,
        )
        .unwrap();
        assert_eq!(config.engine, EngineId::Deepseek);
    }
}
