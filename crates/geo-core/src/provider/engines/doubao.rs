//! Doubao on Volcengine Ark (火山方舟): the Responses API (`/api/v3/responses`) with the
//! `web_search` tool — the probe request body, the response parser and Ark's error codes
//! (engines.md, "Chinese engines"; shapes in `shared/reference/api-formats/engines/doubao_ark.md`).
//!
//! The request carries the neutral system prompt and the prompt as two `input` messages,
//! `tools: [{"type":"web_search","limit":10}]`, `max_tool_calls` = min(maxSearches, 10) (at
//! least 1, the documented range), `max_output_tokens` = maxTokens, the run's temperature and
//! `thinking: {"type":"disabled"}` (the Doubao app answers without deep thinking unless the user
//! turns it on); a run that asks a reasoning effort is sent `thinking: enabled` and
//! `reasoning: {"effort"}`. No `tool_choice`: the model decides whether to search.
//!
//! The parser walks `output` once, in order:
//!
//! * a `web_search_call` (its action `search`, or no action type) is one query, its
//!   `action.query` (else one internal query); a call whose `status` is `failed` or
//!   `incomplete` marks its query with that word as the error and is not counted as a search.
//! * a `message` item's `output_text` parts are its text (parts joined as they are; messages
//!   separated by a blank line, as OpenAI's parser does), markers such as `[1]` kept verbatim;
//!   their annotations (`type` `url_citation`, the SDK's `annotation`, or none) are the
//!   sources *and* the citations: Ark returns no retrieved-but-uncited list and its
//!   annotations have no text span, so every source is cited and a marker in the text decides
//!   nothing. Annotations are de-duplicated by canonical URL
//!   ([`normalize_url`]; an unparsable URL by its exact text), `rank` = order of first
//!   appearance, `queryIndex` 1 (Ark does not say which search found a page), `title`,
//!   `pageAge` = `publish_time`, `siteName` = `site_name` (absent when empty or 「无」).
//!   Sources without any named query get one internal query 1.
//! * `reasoning` and anything unknown are skipped.
//!
//! Usage: `input_tokens` (less `input_tokens_details.cached_tokens`), `output_tokens`,
//! cached tokens; searches = `usage.tool_usage.web_search` when it is a number, else the
//! search calls that did not fail. `requestId` / `stopReason` / `model` = `id` / `status`
//! (`incomplete_details.reason` when incomplete) / `model`; `truncated` when incomplete for
//! `max_output_tokens` (or `length`).
//!
//! Refusals at HTTP 200 (`refused`, `httpStatus: 200`): `status: "incomplete"` with
//! `incomplete_details.reason: "content_filter"` (the SDK's `IncompleteDetails.content_filter`),
//! `status: "failed"` with an `error` whose code is a content-filter code, and a bare error
//! envelope with such a code. Error codes (`error_kind`): `AccountOverdueError` → balance,
//! `*SensitiveContentDetected*` / `*RiskDetection` → refused, whatever the status.

use rustc_hash::FxHashSet;
use serde::Serialize;
use serde_json::{Map, Value};

use crate::analysis::urls::normalize_url;
use crate::model::{EngineId, ErrorKind, ProbeError, Query, RawCitation, RawSource, RunConfig};
use crate::provider::dialect::responses::{
    self, message_text, push_message, walk_output, InputMessage, OutputItems, Reasoning, Status, WebSearchTool,
    MAX_OUTPUT_TOKENS_REASON,
};
use crate::provider::error::body::{parse_error_body, ProviderErrorBody};
use crate::provider::error::kind::{map_envelope, refused_error, reply_object};
use crate::provider::location::user_location;
use crate::provider::parsed::ParsedResponse;
use crate::provider::read::{count, model_of, non_blank, str_field, text};
use crate::provider::spec::{model_or_default, SYSTEM_PROMPT};
use crate::provider::wire::Wire;

/// This engine.
const ENGINE: EngineId = EngineId::Doubao;

/// Doubao's wire format.
pub(crate) const WIRE: Wire = Wire::new(ENGINE, request_body_json, parse_response, error_kind);

/// The largest `max_tool_calls` Ark accepts (documented range 1–10).
pub const MAX_TOOL_CALLS: u32 = 10;

/// Results per search (`limit`, 1–50): the documented default, sent explicitly because the
/// SDK's docstring says 3.
pub const RESULTS_PER_SEARCH: u32 = 10;

/// `incomplete_details.reason` of a reply stopped by Ark's content filter.
pub const CONTENT_FILTER_REASON: &str = "content_filter";

/// The Responses request body, fields in the order of the reference's example.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ArkRequest<'a> {
    /// Requested model.
    pub model: &'a str,
    /// The system prompt, then the user prompt: `{"role","content":[{"type":"input_text","text"}]}`.
    pub input: [InputMessage<[InputText<'a>; 1]>; 2],
    /// `[{"type":"web_search","limit":10}]`, with `user_location` when the run has a location
    /// (`{"type":"approximate", country, region?, city?}`: the reference's keys, no timezone).
    pub tools: [WebSearchTool<'a>; 1],
    /// Tool-call rounds allowed: min(maxSearches, 10), at least 1.
    pub max_tool_calls: u32,
    /// Output token limit (thinking included).
    pub max_output_tokens: u32,
    /// Sampling temperature (0–2).
    pub temperature: f64,
    /// `{"type":"disabled"}`, or `enabled` when the run asks a reasoning effort.
    pub thinking: Thinking,
    /// `{"effort": …}` when the run asks one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<Reasoning>,
    /// Always `false`.
    pub stream: bool,
}

/// `{"type":"input_text","text":"…"}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct InputText<'a> {
    /// Always `input_text`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// The text.
    pub text: &'a str,
}

/// `{"type":"enabled|disabled"}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Thinking {
    /// `enabled` or `disabled`.
    #[serde(rename = "type")]
    pub kind: &'static str,
}

/// The probe request for `prompt_text` under `config`.
pub fn build_request<'a>(prompt_text: &'a str, config: &'a RunConfig) -> ArkRequest<'a> {
    let message = |role, text| InputMessage { role, content: [InputText { kind: "input_text", text }] };
    let effort = config.reasoning_effort;
    ArkRequest {
        model: model_or_default(ENGINE, &config.model),
        input: [message("system", SYSTEM_PROMPT), message("user", prompt_text)],
        tools: [WebSearchTool {
            kind: "web_search",
            limit: Some(RESULTS_PER_SEARCH),
            user_location: user_location(config, false),
        }],
        max_tool_calls: config.max_searches.clamp(1, MAX_TOOL_CALLS),
        max_output_tokens: config.max_tokens,
        temperature: config.temperature,
        thinking: Thinking { kind: if effort.is_some() { "enabled" } else { "disabled" } },
        reasoning: effort.map(|e| Reasoning { effort: e.as_str() }),
        stream: false,
    }
}

/// The request body as sent.
pub fn request_body_json(prompt_text: &str, config: &RunConfig) -> String {
    serde_json::to_string(&build_request(prompt_text, config)).unwrap_or_default()
}

/// Whether an Ark error code is a content-filter refusal: `SensitiveContentDetected` and its
/// sub-codes (`.SevereViolation`, `.Violence`), `InputTextSensitiveContentDetected`,
/// `OutputTextSensitiveContentDetected`, `InputTextRiskDetection` (and any `…RiskDetection`).
pub fn is_refusal_code(code: &str) -> bool {
    let code = code.trim();
    code.contains("SensitiveContentDetected") || code.ends_with("RiskDetection")
}

/// Ark's own error rules, before the status table (engines.md, "Chinese engines"; the
/// reference's error table).
///
/// Whatever the status: `AccountOverdueError` (sent with 403) → balance; a content-filter code
/// ([`is_refusal_code`], sent with 400) → refused. An envelope without an error status
/// (`status` 0, or 2xx) is classified by its code or its `type` (Ark's `type` names the HTTP
/// class): `AuthenticationError` / `Unauthorized` → auth, `AccessDenied` / `Forbidden` →
/// forbidden, `RateLimitExceeded.*` / `ServerOverloaded` / `TooManyRequests` → rate limit,
/// `InternalServiceError` → server. Anything else falls back to the status table.
fn error_kind(status: u16, _body: &str, parsed: &ProviderErrorBody) -> Option<ErrorKind> {
    let code = parsed.code.as_deref().map_or("", str::trim);
    if code == "AccountOverdueError" {
        return Some(ErrorKind::Balance);
    }
    if is_refusal_code(code) {
        return Some(ErrorKind::Refused);
    }
    if status >= 400 {
        return None;
    }
    let kind = parsed.error_type.as_deref().map_or("", str::trim);
    if code == "AuthenticationError" || kind == "Unauthorized" {
        Some(ErrorKind::Auth)
    } else if code == "AccessDenied" || kind == "Forbidden" {
        Some(ErrorKind::Forbidden)
    } else if code.starts_with("RateLimitExceeded") || code == "ServerOverloaded" || kind == "TooManyRequests" {
        Some(ErrorKind::RateLimit)
    } else if code == "InternalServiceError" || kind == "InternalServiceError" {
        Some(ErrorKind::Server)
    } else {
        None
    }
}

/// `code: message` of an error body, for a refusal's detail.
fn error_detail(parsed: &ProviderErrorBody) -> String {
    match (parsed.code.as_deref(), parsed.message.as_deref()) {
        (Some(c), Some(m)) => format!("{c}: {m}"),
        (Some(s), None) | (None, Some(s)) => s.to_string(),
        (None, None) => String::new(),
    }
}

/// An error carried by a 2xx `body` (an envelope, or a `failed` response's `error`): a
/// content-filter code is a refusal with `httpStatus: 200`, anything else Ark's mapped error.
fn error_in_success(body: &str) -> ProbeError {
    let parsed = parse_error_body(body);
    if error_kind(200, body, &parsed) == Some(ErrorKind::Refused) {
        return refused_error(ENGINE, Some(200), &error_detail(&parsed));
    }
    map_envelope(ENGINE, error_kind, body)
}

/// The refusal of a reply the content filter stopped (`incomplete` for `content_filter`),
/// with the filter's own words (`incomplete_details.content_filter`, a string or
/// `{type, details}`) when given.
fn content_filter_refusal(details: Option<&Map<String, Value>>) -> ProbeError {
    let filter = details.and_then(|d| d.get("content_filter"));
    let words = match filter {
        Some(Value::String(s)) => non_blank(Some(s)).map(str::to_string),
        Some(Value::Object(o)) => {
            let parts: Vec<&str> = ["type", "details"].iter().filter_map(|k| non_blank(str_field(o, k))).collect();
            (!parts.is_empty()).then(|| parts.join(": "))
        }
        _ => None,
    };
    let detail = match words {
        Some(w) => format!("incomplete: {CONTENT_FILTER_REASON} ({w})"),
        None => format!("incomplete: {CONTENT_FILTER_REASON}"),
    };
    refused_error(ENGINE, Some(200), &detail)
}

/// One de-duplicated annotation: the source and the citation it makes.
#[derive(Default)]
struct Annotations {
    seen: FxHashSet<String>,
    sources: Vec<RawSource>,
    citations: Vec<RawCitation>,
}

impl Annotations {
    /// Adds an annotation unless its canonical URL (else its exact URL) was seen before.
    fn push(&mut self, a: &Map<String, Value>) {
        if str_field(a, "type").is_some_and(|t| !matches!(t.trim(), "url_citation" | "annotation" | "")) {
            return;
        }
        let Some(url) = non_blank(str_field(a, "url")) else { return };
        let key = normalize_url(url).map_or_else(|| url.to_string(), |p| p.canonical);
        if !self.seen.insert(key) {
            return;
        }
        let title = non_blank(str_field(a, "title"));
        let site = str_field(a, "site_name").filter(|s| !matches!(s.trim(), "" | "无"));
        self.sources.push(RawSource {
            query_index: 1,
            rank: self.sources.len() as u32 + 1,
            title: title.unwrap_or("").to_string(),
            url: url.to_string(),
            page_age: non_blank(str_field(a, "publish_time")).map(str::to_string),
            site_name: site.map(str::to_string),
        });
        self.citations.push(RawCitation {
            url: url.to_string(),
            title: title.map(str::to_string),
            cited_text: None,
            index: None,
        });
    }
}

/// What the `output` items say, read in one pass.
#[derive(Default)]
struct Output {
    answer: String,
    queries: Vec<Query>,
    annotations: Annotations,
    searches: u64,
}

impl OutputItems for Output {
    /// A `web_search_call`: one query (internal when it names none); a failed or incomplete
    /// call carries that word as its error and is not counted as a search.
    fn search_call(&mut self, item: &Map<String, Value>) {
        let action = item.get("action").and_then(Value::as_object);
        if action.and_then(|a| non_blank(str_field(a, "type"))).is_some_and(|k| k != "search") {
            return;
        }
        let status = non_blank(str_field(item, "status"));
        let error = status.filter(|s| matches!(*s, "failed" | "incomplete")).map(str::to_string);
        self.searches += u64::from(error.is_none());
        let words = action.and_then(|a| non_blank(str_field(a, "query")));
        self.queries.push(Query {
            index: self.queries.len() as u32 + 1,
            query: words.map(str::to_string),
            internal: words.is_none(),
            error,
        });
    }

    /// A `message`: its `output_text` parts and their annotations.
    fn message(&mut self, item: &Map<String, Value>) {
        let annotations = &mut self.annotations;
        let text = message_text(item, |a, _| annotations.push(a));
        push_message(&mut self.answer, &text);
    }
}

/// Parses the body of a successful Responses call (see the module documentation).
///
/// Errors: not JSON, not an object, or no `output` array → `invalid_json`; an error envelope
/// or a `failed` response with an `error` → Ark's mapped error; a content-filter stop →
/// `refused` with `httpStatus: 200`.
pub fn parse_response(body: &str, requested_model: &str) -> Result<ParsedResponse, ProbeError> {
    let obj = match reply_object(ENGINE, error_kind, body, "output") {
        Ok(obj) => obj,
        Err(e) if e.kind == ErrorKind::Refused => return Err(error_in_success(body)),
        Err(e) => return Err(e),
    };
    let status = Status::of(&obj);
    if status.status == Some("failed") && obj.get("error").is_some_and(Value::is_object) {
        return Err(error_in_success(body));
    }
    if status.incomplete_for(&[CONTENT_FILTER_REASON]) {
        return Err(content_filter_refusal(obj.get("incomplete_details").and_then(Value::as_object)));
    }
    let Output { answer, mut queries, annotations, searches } = walk_output(ENGINE, &obj)?;
    if queries.is_empty() && !annotations.sources.is_empty() {
        queries.push(Query { index: 1, query: None, internal: true, error: None });
    }

    let usage = obj.get("usage").and_then(Value::as_object);
    let billed = usage.and_then(|u| u.get("tool_usage")).and_then(|t| t.get("web_search")).filter(|v| v.is_number());
    let truncated = status.incomplete_for(&[MAX_OUTPUT_TOKENS_REASON, "length"]);
    Ok(ParsedResponse {
        raw_answer: answer,
        queries,
        raw_sources: annotations.sources,
        raw_citations: Some(annotations.citations),
        // Like OpenAI's, Ark's input_tokens include the cached ones; the snapshot keeps them apart.
        usage: responses::usage(&obj, billed.map_or(searches, |v| count(Some(v)))),
        request_id: text(&obj, "id"),
        stop_reason: status.stop_reason().map(str::to_string),
        model: model_of(&obj, requested_model),
        truncated,
        cost_usd: None,
        content: None,
    })
}

/// The key test's body: the Responses dialect's.
pub(crate) const KEY_TEST_BODY: &str = responses::KEY_TEST_BODY;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builders::usage;
    use crate::model::ReasoningEffort;
    use crate::provider::map_engine_http_error;
    use serde_json::json;

    const MODEL: &str = "doubao-seed-2-1-pro-260628";

    fn parse(v: Value) -> ParsedResponse {
        parse_response(&v.to_string(), MODEL).expect("parses")
    }

    fn config(model: &str, max_searches: u32) -> RunConfig {
        RunConfig {
            engine: EngineId::Doubao,
            model: model.into(),
            max_searches,
            max_tokens: 8192,
            temperature: 0.7,
            ..RunConfig::default()
        }
    }

    fn message(text: &str, annotations: Value) -> Value {
        json!({"type": "message", "role": "assistant", "status": "completed",
               "content": [{"type": "output_text", "text": text, "annotations": annotations}]})
    }

    fn search(query: &str) -> Value {
        json!({"type": "web_search_call", "status": "completed", "action": {"type": "search", "query": query}})
    }

    #[test]
    fn body_has_the_documented_shape() {
        let text = request_body_json("哪些 GEO 工具好？", &config("doubao-seed-1-6-250615", 5));
        let v: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(
            v,
            json!({
                "model": "doubao-seed-1-6-250615",
                "input": [
                    {"role": "system", "content": [{"type": "input_text", "text": SYSTEM_PROMPT}]},
                    {"role": "user", "content": [{"type": "input_text", "text": "哪些 GEO 工具好？"}]}
                ],
                "tools": [{"type": "web_search", "limit": 10}],
                "max_tool_calls": 5,
                "max_output_tokens": 8192,
                "temperature": 0.7,
                "thinking": {"type": "disabled"},
                "stream": false
            })
        );
        assert!(text.starts_with("{\"model\":\"doubao-seed-1-6-250615\",\"input\":"), "{text}");
        assert!(v.get("tool_choice").is_none() && v.get("caching").is_none());
    }

    #[test]
    fn body_defaults_caps_and_effort() {
        let v: Value = serde_json::from_str(&request_body_json("q", &config("  ", 25))).unwrap();
        assert_eq!(v["model"], json!(MODEL), "a blank model is the engine's default");
        assert_eq!(v["max_tool_calls"], json!(10), "at most 10 tool calls");
        let v: Value = serde_json::from_str(&request_body_json("q", &config("m", 0))).unwrap();
        assert_eq!(v["max_tool_calls"], json!(1), "at least 1 (the documented range)");
        let effort = RunConfig { reasoning_effort: Some(ReasoningEffort::High), ..config("m", 3) };
        let v: Value = serde_json::from_str(&request_body_json("q", &effort)).unwrap();
        assert_eq!((&v["thinking"], &v["reasoning"]), (&json!({"type": "enabled"}), &json!({"effort": "high"})));
    }

    #[test]
    fn searches_annotations_and_usage() {
        let p = parse(json!({
            "id": "resp_021", "object": "response", "model": "doubao-seed-2-1-pro-260628", "status": "completed",
            "output": [
                {"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "GEOBoost https://x.example"}]},
                search("GEO 服务商"),
                {"type": "web_search_call", "id": "ws_2", "status": "completed", "action": {"query": " 元构场 "}},
                {"type": "web_search_call", "status": "completed", "action": {"type": "open_page", "url": "u"}},
                message("元构场[1]是 GEO 服务商[2]。", json!([
                    {"type": "url_citation", "url": "https://www.yuangouchang.com/geo", "title": " 元构场 ",
                     "site_name": "元构场官网", "publish_time": "2026-10-15 10:00:00", "summary": "s"},
                    {"type": "annotation", "url": "https://zhuanlan.zhihu.com/p/1", "site_name": "无", "title": ""},
                    {"type": "file_citation", "url": "https://file.example/"},
                    {"url": "https://36kr.com/p/2", "site_name": "", "publish_time": " "},
                    {"type": "url_citation", "title": "no url"},
                    "not an object"
                ])),
                message("第二段。", json!([
                    {"type": "url_citation", "url": "https://www.yuangouchang.com/geo?utm_source=doubao", "title": "dup"},
                    {"type": "url_citation", "url": "https://36kr.com/p/2", "title": "dup exact"}
                ]))
            ],
            "usage": {"input_tokens": 5321, "input_tokens_details": {"cached_tokens": 321}, "output_tokens": 612,
                      "tool_usage": {"web_search": 2}, "tool_usage_details": {"web_search": {"search_engine": 2, "toutiao": 2}}}
        }));
        assert_eq!(p.raw_answer, "元构场[1]是 GEO 服务商[2]。\n\n第二段。", "markers are kept");
        let q: Vec<(u32, Option<&str>, bool)> =
            p.queries.iter().map(|q| (q.index, q.query.as_deref(), q.internal)).collect();
        assert_eq!(q, [(1, Some("GEO 服务商"), false), (2, Some("元构场"), false)]);
        let s: Vec<(u32, u32, &str, &str)> =
            p.raw_sources.iter().map(|s| (s.query_index, s.rank, s.url.as_str(), s.title.as_str())).collect();
        assert_eq!(
            s,
            [
                (1, 1, "https://www.yuangouchang.com/geo", "元构场"),
                (1, 2, "https://zhuanlan.zhihu.com/p/1", ""),
                (1, 3, "https://36kr.com/p/2", "")
            ]
        );
        let meta: Vec<(Option<&str>, Option<&str>)> =
            p.raw_sources.iter().map(|s| (s.page_age.as_deref(), s.site_name.as_deref())).collect();
        assert_eq!(meta, [(Some("2026-10-15 10:00:00"), Some("元构场官网")), (None, None), (None, None)]);
        let c: Vec<(&str, Option<&str>, Option<&str>)> = p
            .raw_citations
            .as_ref()
            .unwrap()
            .iter()
            .map(|c| (c.url.as_str(), c.title.as_deref(), c.cited_text.as_deref()))
            .collect();
        assert_eq!(
            c,
            [
                ("https://www.yuangouchang.com/geo", Some("元构场"), None),
                ("https://zhuanlan.zhihu.com/p/1", None, None),
                ("https://36kr.com/p/2", None, None)
            ],
            "every annotation once, in order of first appearance"
        );
        assert_eq!(p.usage, usage(5000, 612, 321, 2));
        assert_eq!(
            (p.request_id.as_deref(), p.stop_reason.as_deref(), p.model.as_str(), p.truncated),
            (Some("resp_021"), Some("completed"), MODEL, false)
        );
    }

    #[test]
    fn an_unparsable_url_is_deduplicated_by_its_exact_text() {
        let p = parse(json!({"output": [message("x", json!([
            {"url": "not a url"}, {"url": "not a url"}, {"url": "Not a url"}, {"url": "ftp://h.example/f"}
        ]))]}));
        let urls: Vec<&str> = p.raw_sources.iter().map(|s| s.url.as_str()).collect();
        assert_eq!(urls, ["not a url", "Not a url", "ftp://h.example/f"]);
        assert_eq!(p.queries, [Query { index: 1, query: None, internal: true, error: None }], "sources need a query");
        assert_eq!(p.usage.web_search_requests, 0);
    }

    #[test]
    fn no_search_and_markers_naming_nothing() {
        let p = parse(json!({"status": "completed", "output": [message("元构场是一家公司[1]。", json!([]))],
            "usage": {"input_tokens": 40, "output_tokens": 20, "tool_usage": null, "tool_usage_details": null}}));
        assert_eq!((p.queries.len(), p.raw_sources.len()), (0, 0));
        assert_eq!(p.raw_citations, Some(vec![]), "a marker without an annotation cites nothing");
        assert_eq!(p.usage.web_search_requests, 0);
        assert_eq!(p.model, MODEL, "the requested model when the body names none");
        // A message without annotations at all, and one whose content is not an array.
        let bare = parse(json!({"output": [{"type": "message", "content": [{"type": "output_text", "text": "a"}]},
            {"type": "message", "content": "b"}, {"type": "message", "content": [{"type": "refusal", "refusal": "no"}]}]}));
        assert_eq!((bare.raw_answer.as_str(), bare.raw_citations), ("a", Some(vec![])));
    }

    #[test]
    fn failed_incomplete_and_unnamed_searches() {
        let p = parse(json!({"output": [
            {"type": "web_search_call", "status": "incomplete", "action": {"type": "search", "query": "元构场 GEO"}},
            {"type": "web_search_call", "status": "failed", "action": {"type": "search"}},
            {"type": "web_search_call", "id": "ws_1", "action": {"query": "瑞幸 2026 开店计划"}},
            {"type": "web_search_call", "status": "completed", "action": 3},
            message("", json!([]))
        ], "usage": {"tool_usage": {"web_search": "two"}}}));
        let q: Vec<(u32, Option<&str>, bool, Option<&str>)> =
            p.queries.iter().map(|q| (q.index, q.query.as_deref(), q.internal, q.error.as_deref())).collect();
        assert_eq!(
            q,
            [
                (1, Some("元构场 GEO"), false, Some("incomplete")),
                (2, None, true, Some("failed")),
                (3, Some("瑞幸 2026 开店计划"), false, None),
                (4, None, true, None)
            ]
        );
        assert_eq!(p.usage.web_search_requests, 2, "no number in tool_usage: the calls that did not fail");
        assert_eq!(p.raw_answer, "");
    }

    #[test]
    fn truncation_and_stop_reasons() {
        for reason in ["max_output_tokens", "length"] {
            let p = parse(json!({"status": "incomplete", "incomplete_details": {"reason": reason},
                "output": [message("1. 元构场", json!([]))]}));
            assert!(p.truncated, "{reason}");
            assert_eq!(p.stop_reason.as_deref(), Some(reason));
        }
        let p =
            parse(json!({"status": "incomplete", "incomplete_details": {"reason": "max_tool_calls"}, "output": []}));
        assert_eq!((p.truncated, p.stop_reason.as_deref()), (false, Some("max_tool_calls")));
        let p = parse(json!({"status": "incomplete", "incomplete_details": null, "output": []}));
        assert_eq!((p.truncated, p.stop_reason.as_deref()), (false, Some("incomplete")));
        let p = parse(
            json!({"status": 7, "id": 3, "model": " ", "output": [], "usage": {"input_tokens": -5, "output_tokens": 1.5}}),
        );
        assert_eq!((p.stop_reason, p.request_id, p.model.as_str()), (None, None, MODEL));
        assert_eq!((p.usage.input_tokens, p.usage.output_tokens), (0, 1));
    }

    #[test]
    fn refusals_at_200() {
        let err = parse_response(
            &json!({"status": "incomplete", "incomplete_details": {"reason": "content_filter",
                "content_filter": {"type": "output", "details": "敏感内容"}},
                "output": [message("部分", json!([]))]})
            .to_string(),
            MODEL,
        )
        .unwrap_err();
        assert_eq!((err.kind, err.http_status), (ErrorKind::Refused, Some(200)));
        assert!(err.message.contains("content_filter (output: 敏感内容)"), "{}", err.message);
        let err = parse_response(
            r#"{"status":"incomplete","incomplete_details":{"reason":"content_filter","content_filter":"risk"},"output":[]}"#,
            MODEL,
        )
        .unwrap_err();
        assert!(err.message.contains("(risk)"), "{}", err.message);
        let failed = json!({"status": "failed", "output": [], "error": {"code": "OutputTextSensitiveContentDetected",
            "message": "The request failed because the output text may contain sensitive information.", "type": "BadRequest"}});
        let err = parse_response(&failed.to_string(), MODEL).unwrap_err();
        assert_eq!((err.kind, err.http_status), (ErrorKind::Refused, Some(200)));
        assert!(err.message.contains("OutputTextSensitiveContentDetected"), "{}", err.message);
        let envelope = r#"{"error":{"code":"InputTextRiskDetection","message":"risk","param":"","type":"BadRequest"}}"#;
        let err = parse_response(envelope, MODEL).unwrap_err();
        assert_eq!((err.kind, err.http_status), (ErrorKind::Refused, Some(200)));
    }

    #[test]
    fn malformed_bodies_and_error_envelopes() {
        for body in ["", "<html>", "[]", "{}", "{\"output\":{}}", "{\"output\":null}"] {
            assert_eq!(parse_response(body, "m").unwrap_err().kind, ErrorKind::InvalidJson, "{body}");
        }
        let overdue = r#"{"error":{"code":"AccountOverdueError","message":"overdue","param":"","type":"Forbidden"}}"#;
        assert_eq!(parse_response(overdue, "m").unwrap_err().kind, ErrorKind::Balance);
        let failed = json!({"status": "failed", "output": [], "error": {"code": "InternalServiceError", "type": "InternalServiceError"}});
        let err = parse_response(&failed.to_string(), "m").unwrap_err();
        assert_eq!((err.kind, err.http_status), (ErrorKind::Server, None));
        // A failed response without an error object is read as it is (an empty answer).
        let p = parse(json!({"status": "failed", "output": []}));
        assert_eq!((p.raw_answer.as_str(), p.stop_reason.as_deref()), ("", Some("failed")));
    }

    #[test]
    fn error_codes_win_over_the_status_table() {
        let kind = |status: u16, body: &str| map_engine_http_error(EngineId::Doubao, status, body).kind;
        let body =
            |code: &str, t: &str| format!(r#"{{"error":{{"code":"{code}","message":"m","param":"","type":"{t}"}}}}"#);
        let overdue = r#"{"error":{"code":"AccountOverdueError","message":"The request failed because your account has an overdue balance. Request id: 0217913482749653a391e43edef5299850de6066b8d72e25e4991","param":"","type":"Forbidden"}}"#;
        assert_eq!(kind(403, overdue), ErrorKind::Balance);
        for code in [
            "SensitiveContentDetected",
            "SensitiveContentDetected.SevereViolation",
            "SensitiveContentDetected.Violence",
            "InputTextSensitiveContentDetected",
            "OutputTextSensitiveContentDetected",
            "InputTextRiskDetection",
        ] {
            let err = map_engine_http_error(EngineId::Doubao, 400, &body(code, "BadRequest"));
            assert_eq!((err.kind, err.http_status), (ErrorKind::Refused, Some(400)), "{code}");
            assert!(!crate::runner::is_retryable(err.kind));
        }
        assert_eq!(kind(400, &body("InvalidParameter", "BadRequest")), ErrorKind::Http);
        assert_eq!(kind(400, &body("MissingParameter", "BadRequest")), ErrorKind::Http);
        assert_eq!(kind(401, &body("AuthenticationError", "Unauthorized")), ErrorKind::Auth);
        assert_eq!(kind(403, &body("AccessDenied", "Forbidden")), ErrorKind::Forbidden);
        assert_eq!(kind(404, &body("InvalidEndpointOrModel.NotFound", "NotFound")), ErrorKind::Http);
        assert_eq!(kind(429, &body("RateLimitExceeded.EndpointTPMExceeded", "TooManyRequests")), ErrorKind::RateLimit);
        assert_eq!(kind(429, &body("ServerOverloaded", "TooManyRequests")), ErrorKind::RateLimit);
        assert_eq!(kind(500, &body("InternalServiceError", "InternalServiceError")), ErrorKind::Server);
        assert_eq!(kind(400, "plain text"), ErrorKind::Http);
    }

    #[test]
    fn envelopes_without_a_status_are_read_by_code_and_type() {
        let parsed = |code: Option<&str>, t: Option<&str>| ProviderErrorBody {
            code: code.map(str::to_string),
            error_type: t.map(str::to_string),
            message: None,
        };
        let rows = [
            (parsed(Some("AccountOverdueError"), None), Some(ErrorKind::Balance)),
            (parsed(Some(" InputTextRiskDetection "), None), Some(ErrorKind::Refused)),
            (parsed(Some("AuthenticationError"), None), Some(ErrorKind::Auth)),
            (parsed(None, Some("Unauthorized")), Some(ErrorKind::Auth)),
            (parsed(Some("AccessDenied"), Some("Forbidden")), Some(ErrorKind::Forbidden)),
            (parsed(Some("RateLimitExceeded.FoundationModelRPMExceeded"), None), Some(ErrorKind::RateLimit)),
            (parsed(None, Some("TooManyRequests")), Some(ErrorKind::RateLimit)),
            (parsed(None, Some("InternalServiceError")), Some(ErrorKind::Server)),
            (parsed(Some("ModelNotOpen"), Some("NotFound")), None),
            (parsed(None, None), None),
        ];
        for (body, kind) in rows {
            assert_eq!(error_kind(0, "", &body), kind, "{body:?}");
        }
        assert_eq!(error_kind(401, "", &parsed(Some("AuthenticationError"), None)), None, "the status table decides");
        assert_eq!(error_kind(429, "", &parsed(Some("ServerOverloaded"), None)), None);
    }

    /// The recorded bodies of `fixtures/engines/doubao/` parse as their names say.
    #[test]
    fn fixtures_parse_as_recorded() {
        macro_rules! fixture {
            ($name:literal) => {
                include_str!(concat!("../../../../../fixtures/engines/doubao/", $name, ".json"))
            };
        }
        let p01 = parse_response(fixture!("p01_zh_list_web_search_annotations"), "m").unwrap();
        assert!(p01.raw_answer.contains("**元构场**[1]"));
        assert_eq!(p01.queries.len(), 2);
        assert_eq!(p01.raw_sources.len(), 5, "seven annotations, two of them repeats");
        let sites: Vec<Option<&str>> = p01.raw_sources.iter().map(|s| s.site_name.as_deref()).collect();
        assert_eq!(sites, [Some("元构场官网"), Some("知乎"), None, None, Some("36氪")]);
        assert_eq!(p01.raw_citations.as_ref().map(Vec::len), Some(5));
        assert_eq!((p01.usage.web_search_requests, p01.usage.cache_read_input_tokens), (2, 1024));
        let p03 = parse_response(fixture!("p03_incomplete_max_output_tokens"), "m").unwrap();
        assert!(p03.truncated);
        let p08 = parse_response(fixture!("p08_zh_company_no_search"), "m").unwrap();
        assert_eq!((p08.queries.len(), p08.raw_citations, p08.usage.web_search_requests), (0, Some(vec![]), 0));
        let p09 = parse_response(fixture!("p09_en_agencies_list"), "m").unwrap();
        assert_eq!((p09.queries.len(), p09.raw_sources.len()), (1, 3));
        let p10 = parse_response(fixture!("p10_search_incomplete_marker_without_annotation"), "m").unwrap();
        assert_eq!(p10.queries[0].error.as_deref(), Some("incomplete"));
        assert_eq!((p10.raw_sources.len(), p10.raw_citations, p10.usage.web_search_requests), (0, Some(vec![]), 0));
        let p12 = parse_response(fixture!("p12_empty_text"), "m").unwrap();
        assert_eq!((p12.raw_answer.as_str(), p12.queries.len()), ("", 1));
        let p15 = parse_response(fixture!("p15_preamble_only"), "m").unwrap();
        assert!(p15.raw_answer.starts_with("让我搜索一下"));
        let r01 = parse_response(fixture!("r01_incomplete_content_filter"), "m").unwrap_err();
        assert_eq!((r01.kind, r01.http_status), (ErrorKind::Refused, Some(200)));
        let errors = [
            (400, fixture!("errors/400_input_text_risk_detection"), ErrorKind::Refused),
            (400, fixture!("errors/400_sensitive_content_detected"), ErrorKind::Refused),
            (401, fixture!("errors/401_authentication_error"), ErrorKind::Auth),
            (403, fixture!("errors/403_account_overdue"), ErrorKind::Balance),
            (404, fixture!("errors/404_invalid_endpoint_or_model"), ErrorKind::Http),
            (429, fixture!("errors/429_rate_limit_exceeded"), ErrorKind::RateLimit),
            (500, fixture!("errors/500_internal_service_error"), ErrorKind::Server),
        ];
        for (status, body, kind) in errors {
            assert_eq!(map_engine_http_error(EngineId::Doubao, status, body).kind, kind, "{body}");
        }
    }
}
