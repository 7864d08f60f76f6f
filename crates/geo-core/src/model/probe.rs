//! A probe: one prompt asked once in one run, with the raw result the engine returned
//! (answer, searches, sources, citations, usage) and what the analysis derives from it
//! (cleaned answer, classified sources, mentions, list items, answer links).

use serde::{Deserialize, Serialize};

use super::{Claim, LocationApplied, RiskFlag};

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
    /// A probe of `prompt_id`'s repeat `repeat_index` in a run, with its outcome and creation time and nothing
    /// else yet: no attempt, usage or raw result, and none of the derived fields, which only
    /// [`crate::analysis::RunAnalyzer`] fills in. Whoever records a probe sets the raw result over it.
    pub fn unanalysed(
        id: String,
        run_id: &str,
        project_id: &str,
        prompt_id: &str,
        repeat_index: u32,
        status: ProbeStatus,
        created_at: String,
    ) -> Probe {
        Probe {
            id,
            run_id: run_id.to_string(),
            project_id: project_id.to_string(),
            prompt_id: prompt_id.to_string(),
            repeat_index,
            status,
            created_at,
            model: String::new(),
            attempts: 0,
            latency_ms: 0,
            error: None,
            request_id: None,
            stop_reason: None,
            usage: Usage::default(),
            truncated: false,
            billed_usage: None,
            continuations: 0,
            cost_usd: None,
            location_applied: LocationApplied::None,
            raw_answer: String::new(),
            queries: Vec::new(),
            raw_sources: Vec::new(),
            raw_citations: None,
            answer: String::new(),
            sources: Vec::new(),
            mentions: Vec::new(),
            list_items: Vec::new(),
            other_entities: Vec::new(),
            answer_links: Vec::new(),
            claims: Vec::new(),
            risk_flags: Vec::new(),
        }
    }

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builders::usage;

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
        let a = usage(1, 2, 3, 4);
        let b = Usage { search_context_size: Some(SearchContextSize::High), ..a };
        let sum = a.plus(b);
        assert_eq!(
            (sum.input_tokens, sum.output_tokens, sum.cache_read_input_tokens, sum.web_search_requests),
            (2, 4, 6, 8)
        );
        assert_eq!(sum.search_context_size, Some(SearchContextSize::High));
        assert_eq!(Usage { input_tokens: u64::MAX, ..a }.plus(a).input_tokens, u64::MAX);
    }
}
