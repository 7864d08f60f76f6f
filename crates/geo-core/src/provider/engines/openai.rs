//! OpenAI's Responses API with the hosted `web_search` tool: the probe request body and the
//! response parser (engines.md; shapes in `shared/reference/api-formats/engines/openai_*`).
//!
//! The parser walks `output` once, in order:
//!
//! * a `web_search_call` whose action is `search` (or has no action, as in the guide's older
//!   example) adds one query per entry of `action.queries`, else its `action.query`, else one
//!   internal query; its `action.sources` of type `url` become raw sources of the call's
//!   first query, ranked by position. A call with `status: "failed"` marks its queries with
//!   the error `failed` (and is not counted as a billed search). `open_page` and
//!   `find`/`find_in_page` calls add nothing.
//! * a `message` item's `output_text` parts are its text (parts joined as they are; messages
//!   separated by a blank line, as different utterances), and their `url_citation`
//!   annotations are the citations.
//! * `reasoning` and anything unknown are skipped.
//!
//! Sources carry no title in this API; a source takes the title of a `url_citation` with the
//! same canonical URL (the cited URL usually adds `?utm_source=openai`, which the
//! canonicalisation drops), else `""`.

use serde::Serialize;
use serde_json::{Map, Value};

use crate::analysis::urls::normalize_url;
use crate::model::{EngineId, ErrorKind, ProbeError, Query, RawCitation, RawSource, RunConfig};
use crate::provider::budget::{row_for, ReasoningParam};
use crate::provider::dialect::responses::{
    self, message_text, push_message, walk_output, InputMessage, OutputItems, Reasoning, Status, WebSearchTool,
    MAX_OUTPUT_TOKENS_REASON,
};
use crate::provider::error::body::ProviderErrorBody;
use crate::provider::error::kind::reply_object;
use crate::provider::location::user_location;
use crate::provider::parsed::ParsedResponse;
use crate::provider::read::{model_of, non_blank, str_field, text};
use crate::provider::spec::{model_or_default, SYSTEM_PROMPT};
use crate::provider::wire::Wire;

/// This engine.
const ENGINE: EngineId = EngineId::Openai;

/// OpenAI's wire format.
pub(crate) const WIRE: Wire = Wire::new(ENGINE, request_body_json, parse_response, error_kind);

/// The Responses request body, fields in the documented order.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ResponsesRequest<'a> {
    /// Requested model.
    pub model: &'a str,
    /// The system prompt.
    pub instructions: &'a str,
    /// The one user message: `{"role":"user","content":"…"}`.
    pub input: [InputMessage<&'a str>; 1],
    /// `[{"type":"web_search"}]`, and `user_location: {"type":"approximate", country, region?,
    /// city?, timezone?}` when the run has a location (engines.md, "Where and how an answer was
    /// measured"; without one OpenAI's search assumes a user in the United States).
    pub tools: [WebSearchTool<'a>; 1],
    /// `["web_search_call.action.sources"]`: every retrieved page, not only the cited ones.
    pub include: [&'static str; 1],
    /// Output token limit (reasoning tokens included).
    pub max_output_tokens: u32,
    /// Built-in tool calls allowed: the run's `maxSearches`.
    pub max_tool_calls: u32,
    /// `{"effort": …}` for a reasoning model (the run's `reasoningEffort`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<Reasoning>,
    /// Always `false`: a probe's response is not kept on OpenAI's side (engines.md, "Fidelity").
    pub store: bool,
}

/// The probe request for `prompt_text` under `config`.
pub fn build_request<'a>(prompt_text: &'a str, config: &'a RunConfig) -> ResponsesRequest<'a> {
    let effort = match row_for(ENGINE, &config.model).param {
        ReasoningParam::OpenAiEffort => config.reasoning_effort,
        _ => None,
    };
    ResponsesRequest {
        model: model_or_default(ENGINE, &config.model),
        instructions: SYSTEM_PROMPT,
        input: [InputMessage { role: "user", content: prompt_text }],
        tools: [WebSearchTool { kind: "web_search", limit: None, user_location: user_location(config, true) }],
        include: ["web_search_call.action.sources"],
        max_output_tokens: config.max_tokens,
        max_tool_calls: config.max_searches,
        reasoning: effort.map(|e| Reasoning { effort: e.as_str() }),
        store: false,
    }
}

/// The request body as sent.
pub fn request_body_json(prompt_text: &str, config: &RunConfig) -> String {
    serde_json::to_string(&build_request(prompt_text, config)).unwrap_or_default()
}

/// OpenAI's own error rule, before the status table (engines.md, "Errors and retries"):
/// `insufficient_quota` (in `code` or `type`) is balance whatever the status, although it
/// comes as a 429 like the rate limit.
fn error_kind(_status: u16, _body: &str, parsed: &ProviderErrorBody) -> Option<ErrorKind> {
    (parsed.code.as_deref() == Some("insufficient_quota") || parsed.error_type.as_deref() == Some("insufficient_quota"))
        .then_some(ErrorKind::Balance)
}

/// The queries of one search action: `queries`, else `query`, as trimmed non-blank strings.
fn action_queries(action: Option<&Map<String, Value>>) -> Vec<String> {
    let Some(action) = action else { return Vec::new() };
    let listed: Vec<String> = match action.get("queries") {
        Some(Value::Array(qs)) => qs.iter().filter_map(|q| non_blank(q.as_str())).map(str::to_string).collect(),
        _ => Vec::new(),
    };
    if !listed.is_empty() {
        return listed;
    }
    non_blank(str_field(action, "query")).map(|q| vec![q.to_string()]).unwrap_or_default()
}

/// What the `output` items say, read in one pass (see the module documentation).
#[derive(Default)]
struct Output {
    answer: String,
    queries: Vec<Query>,
    sources: Vec<RawSource>,
    citations: Vec<RawCitation>,
    searches: u64,
}

impl OutputItems for Output {
    /// A `web_search_call` whose action is `search` (or has no type): its queries and the
    /// pages it retrieved; other actions (`open_page`, `find_in_page`) add nothing.
    fn search_call(&mut self, item: &Map<String, Value>) {
        let action = item.get("action").and_then(Value::as_object);
        let kind = action.and_then(|a| str_field(a, "type"));
        if kind.is_some_and(|k| k != "search") {
            return;
        }
        let failed = str_field(item, "status") == Some("failed");
        // A failed search is not billed (`tool_usage.web_search.num_requests` leaves it out).
        self.searches += u64::from(!failed);
        let words = action_queries(action);
        let first = self.queries.len() as u32 + 1;
        let error = failed.then(|| "failed".to_string());
        if words.is_empty() {
            self.queries.push(Query { index: first, query: None, internal: true, error });
        } else {
            for w in words {
                let index = self.queries.len() as u32 + 1;
                self.queries.push(Query { index, query: Some(w), internal: false, error: error.clone() });
            }
        }
        let listed = action.and_then(|a| a.get("sources")).and_then(Value::as_array);
        let mut rank = 0;
        for s in listed.into_iter().flatten().filter_map(Value::as_object) {
            if str_field(s, "type").is_some_and(|t| t != "url") {
                continue;
            }
            let Some(url) = non_blank(str_field(s, "url")) else { continue };
            rank += 1;
            self.sources.push(RawSource {
                query_index: first,
                rank,
                title: String::new(),
                url: url.to_string(),
                page_age: None,
                site_name: None,
            });
        }
    }

    /// A `message`: its text, and its `url_citation` annotations as citations.
    fn message(&mut self, item: &Map<String, Value>) {
        let citations = &mut self.citations;
        let text = message_text(item, |a, part_text| {
            if str_field(a, "type") != Some("url_citation") {
                return;
            }
            let Some(url) = non_blank(str_field(a, "url")) else { return };
            citations.push(RawCitation {
                url: url.to_string(),
                title: non_blank(str_field(a, "title")).map(str::to_string),
                cited_text: cited_span(part_text, a.get("start_index"), a.get("end_index")),
                index: None,
            });
        });
        push_message(&mut self.answer, &text);
    }
}

/// Parses the body of a successful Responses call (see the module documentation).
///
/// Errors: not JSON, not an object, or no `output` array → `invalid_json`; an error envelope
/// → the mapped OpenAI error.
pub fn parse_response(body: &str, requested_model: &str) -> Result<ParsedResponse, ProbeError> {
    let obj = reply_object(ENGINE, error_kind, body, "output")?;
    let mut out: Output = walk_output(ENGINE, &obj)?;
    name_sources(&mut out.sources, &out.citations);
    let status = Status::of(&obj);
    Ok(ParsedResponse {
        raw_answer: out.answer,
        queries: out.queries,
        raw_sources: out.sources,
        raw_citations: Some(out.citations),
        // OpenAI counts cached tokens inside input_tokens; the snapshot keeps them apart.
        usage: responses::usage(&obj, out.searches),
        request_id: text(&obj, "id"),
        stop_reason: status.stop_reason().map(str::to_string),
        model: model_of(&obj, requested_model),
        truncated: status.incomplete_for(&[MAX_OUTPUT_TOKENS_REASON]),
        cost_usd: None,
        content: None,
    })
}

/// The part of `text` an annotation covers: `start_index..end_index` in Unicode code
/// points, when both are given, in order and inside the text, and the span is not blank.
fn cited_span(text: &str, start: Option<&Value>, end: Option<&Value>) -> Option<String> {
    let (start, end) = (usize::try_from(start?.as_u64()?).ok()?, usize::try_from(end?.as_u64()?).ok()?);
    if start >= end {
        return None;
    }
    let mut chars = text.char_indices().map(|(i, _)| i).chain([text.len()]);
    let from = chars.nth(start)?;
    let to = chars.nth(end - start - 1)?;
    let span = &text[from..to];
    (!span.trim().is_empty()).then(|| span.to_string())
}

/// Gives each source the title of a citation with the same canonical URL (the first such).
///
/// One map from canonical URL to title, so the work is linear in sources + citations
/// (security review II, finding 1: comparing every source with every citation was not).
fn name_sources(sources: &mut [RawSource], citations: &[RawCitation]) {
    if citations.is_empty() {
        return;
    }
    let mut titled: rustc_hash::FxHashMap<String, &str> = rustc_hash::FxHashMap::default();
    for c in citations {
        let Some(title) = c.title.as_deref() else { continue };
        if let Some(url) = normalize_url(&c.url) {
            titled.entry(url.canonical).or_insert(title);
        }
    }
    for s in sources.iter_mut() {
        let Some(canonical) = normalize_url(&s.url).map(|p| p.canonical) else { continue };
        if let Some(title) = titled.get(&canonical) {
            s.title = (*title).to_string();
        }
    }
}

/// The key test's body: the Responses dialect's.
pub(crate) const KEY_TEST_BODY: &str = responses::KEY_TEST_BODY;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builders::usage;
    use serde_json::json;

    fn parse(v: Value) -> ParsedResponse {
        parse_response(&v.to_string(), "gpt-5-mini").expect("parses")
    }

    #[test]
    fn body_has_the_documented_shape() {
        let config = RunConfig {
            engine: EngineId::Openai,
            model: "gpt-5".into(),
            max_tokens: 3000,
            reasoning_effort: Some(crate::model::ReasoningEffort::Medium),
            ..RunConfig::default()
        };
        let text = request_body_json("哪些 GEO 工具好？", &config);
        let v: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(
            v,
            json!({
                "model": "gpt-5",
                "instructions": SYSTEM_PROMPT,
                "input": [{"role": "user", "content": "哪些 GEO 工具好？"}],
                "tools": [{"type": "web_search"}],
                "include": ["web_search_call.action.sources"],
                "max_output_tokens": 3000,
                "max_tool_calls": 5,
                "reasoning": {"effort": "medium"},
                "store": false
            })
        );
        assert!(text.starts_with("{\"model\":\"gpt-5\",\"instructions\":"), "{text}");
        let blank = RunConfig { engine: EngineId::Openai, model: " ".into(), ..RunConfig::default() };
        assert!(request_body_json("q", &blank).starts_with("{\"model\":\"gpt-5-mini\""));
        // A model without reasoning is sent no effort.
        let plain = RunConfig { model: "gpt-4.1".into(), ..config };
        let v: Value = serde_json::from_str(&request_body_json("q", &plain)).unwrap();
        assert!(v.get("reasoning").is_none() && v["store"] == json!(false));
    }

    #[test]
    fn cited_text_comes_from_the_annotation_offsets() {
        let text = "元构场是 GEO 服务商。Other";
        let n = |i: u64| Some(json!(i));
        assert_eq!(cited_span(text, n(0).as_ref(), n(3).as_ref()).as_deref(), Some("元构场"));
        assert_eq!(cited_span(text, n(5).as_ref(), n(13).as_ref()).as_deref(), Some("GEO 服务商。"));
        assert_eq!(cited_span(text, n(13).as_ref(), n(18).as_ref()).as_deref(), Some("Other"));
        for (a, b) in [(3, 3), (5, 2), (0, 19), (30, 40)] {
            assert_eq!(cited_span(text, n(a).as_ref(), n(b).as_ref()), None, "{a}..{b}");
        }
        assert_eq!(cited_span(text, None, n(3).as_ref()), None);
        assert_eq!(cited_span(text, n(4).as_ref(), n(5).as_ref()), None, "a blank span");
    }

    #[test]
    fn searches_open_pages_and_citations() {
        let p = parse(json!({
            "id": "resp_1", "status": "completed", "model": "gpt-5-2025-08-07",
            "output": [
                {"type": "reasoning", "id": "rs_1", "summary": []},
                {"type": "web_search_call", "status": "completed",
                 "action": {"type": "search", "queries": ["a", " b "], "query": "a",
                            "sources": [{"type": "url", "url": "https://x.example/p"}, {"type": "api", "name": "oai-weather"},
                                        {"type": "url", "url": "https://y.example/"}]}},
                {"type": "web_search_call", "status": "completed", "action": {"type": "open_page", "url": "https://x.example/p"}},
                {"type": "web_search_call", "status": "completed", "action": {"type": "find_in_page", "pattern": "p", "url": "u"}},
                {"type": "web_search_call", "status": "completed", "action": {"type": "search", "query": "c"}},
                {"type": "web_search_call", "status": "failed", "action": {"type": "search"}},
                {"type": "web_search_call", "status": "completed"},
                {"type": "message", "role": "assistant", "content": [
                    {"type": "output_text", "text": "Hello ", "annotations": [
                        {"type": "url_citation", "url": "https://x.example/p?utm_source=openai", "title": "X page", "start_index": 0, "end_index": 5}]},
                    {"type": "refusal", "refusal": "no"},
                    {"type": "output_text", "text": "world", "annotations": [{"type": "file_citation"}]}
                ]},
                {"type": "message", "content": [{"type": "output_text", "text": "Second."}]}
            ],
            "usage": {"input_tokens": 1000, "input_tokens_details": {"cached_tokens": 200}, "output_tokens": 50}
        }));
        assert_eq!(p.raw_answer, "Hello world\n\nSecond.");
        let q: Vec<(u32, Option<&str>, bool, Option<&str>)> =
            p.queries.iter().map(|q| (q.index, q.query.as_deref(), q.internal, q.error.as_deref())).collect();
        assert_eq!(
            q,
            [
                (1, Some("a"), false, None),
                (2, Some("b"), false, None),
                (3, Some("c"), false, None),
                (4, None, true, Some("failed")),
                (5, None, true, None)
            ]
        );
        let s: Vec<(u32, u32, &str, &str)> =
            p.raw_sources.iter().map(|s| (s.query_index, s.rank, s.url.as_str(), s.title.as_str())).collect();
        assert_eq!(s, [(1, 1, "https://x.example/p", "X page"), (1, 2, "https://y.example/", "")]);
        assert_eq!(p.raw_citations.as_ref().unwrap().len(), 1);
        assert_eq!(p.usage, usage(800, 50, 200, 3));
        assert_eq!(
            (p.request_id.as_deref(), p.stop_reason.as_deref(), p.model.as_str()),
            (Some("resp_1"), Some("completed"), "gpt-5-2025-08-07")
        );
    }

    #[test]
    fn no_search_incomplete_and_malformed() {
        let p = parse(json!({"status": "incomplete", "incomplete_details": {"reason": "max_output_tokens"},
            "output": [{"type": "message", "content": [{"type": "output_text", "text": "partial"}]}]}));
        assert_eq!(p.stop_reason.as_deref(), Some("max_output_tokens"));
        assert!(p.truncated);
        assert_eq!((p.queries.len(), p.raw_sources.len()), (0, 0));
        assert_eq!(p.raw_citations, Some(vec![]), "openai always has a citation array");
        assert_eq!(p.model, "gpt-5-mini");
        for body in ["", "[]", "{}", "{\"output\":{}}", "{\"output\":null}"] {
            assert_eq!(parse_response(body, "m").unwrap_err().kind, ErrorKind::InvalidJson, "{body}");
        }
        let err = parse_response(
            r#"{"error":{"message":"quota","type":"insufficient_quota","code":"insufficient_quota"}}"#,
            "m",
        )
        .unwrap_err();
        assert_eq!(err.kind, ErrorKind::Balance);
        assert!(err.message.contains("chatgpt"), "{}", err.message);
    }
}
