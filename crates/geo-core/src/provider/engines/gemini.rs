//! Gemini's `generateContent` with Grounding with Google Search: the probe request body and
//! the response parser (engines.md; shapes in `shared/reference/api-formats/engines/gemini_*`).
//!
//! * The answer is `candidates[0].content.parts[].text`, joined as they are; parts flagged
//!   `thought: true` (thought summaries) are skipped.
//! * `groundingMetadata.webSearchQueries` are the queries, in order. When the response has
//!   grounding chunks but names no query, one internal query stands for the search, so that
//!   every source belongs to a query (the same rule as Perplexity's).
//! * `groundingChunks[i].web` are the sources of query 1, ranked by position. Their `uri` is
//!   an opaque `vertexaisearch.cloud.google.com` redirect and their `title` the publisher's
//!   host name; analysis takes the host from the title (see `analysis::sources`).
//! * Every chunk named by a `groundingSupports[].groundingChunkIndices` is a citation, once,
//!   in order of first naming.
//! * A prompt blocked before any candidate (`promptFeedback.blockReason`) parses as an empty
//!   answer whose stop reason is the block reason; the runner then retries it as `empty`.

use std::borrow::Cow;

use serde::Serialize;
use serde_json::Value;

use crate::model::{EngineId, ErrorKind, ProbeError, Query, RawCitation, RawSource, RunConfig, Usage};
use crate::provider::budget::{row_for, ReasoningParam};
use crate::provider::error::body::ProviderErrorBody;
use crate::provider::error::kind::{invalid_json, reply_object};
use crate::provider::location::system_prompt;
use crate::provider::parsed::ParsedResponse;
use crate::provider::read::{count, non_blank, str_field, text};
use crate::provider::wire::Wire;

/// This engine.
const ENGINE: EngineId = EngineId::Gemini;

/// Gemini's wire format (the model goes in the URL, the key in `x-goog-api-key`).
pub(crate) const WIRE: Wire = Wire::new(ENGINE, request_body_json, parse_response, error_kind);

/// The `generateContent` request body, fields in the documented order.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GenerateContentRequest<'a> {
    /// The system prompt.
    pub system_instruction: Content<'a>,
    /// The one user turn.
    pub contents: [Content<'a>; 1],
    /// `[{"google_search":{}}]`.
    pub tools: [GoogleSearchTool; 1],
    /// Output limit and temperature.
    pub generation_config: GenerationConfig,
}

/// `{"role"?, "parts":[{"text"}]}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Content<'a> {
    /// `user` for the turn, absent for the system instruction.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub role: Option<&'static str>,
    /// One text part.
    pub parts: [TextPart<'a>; 1],
}

/// `{"text":"…"}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TextPart<'a> {
    /// The text (the system instruction's may carry the `User location:` line).
    pub text: Cow<'a, str>,
}

/// `{"google_search":{}}` (the REST spelling of the guide).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GoogleSearchTool {
    /// Always empty.
    pub google_search: Empty,
}

/// `{}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Empty {}

/// `{"maxOutputTokens","temperature","thinkingConfig"?}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GenerationConfig {
    /// Output token limit (thinking included).
    pub max_output_tokens: u32,
    /// Sampling temperature.
    pub temperature: f64,
    /// The run's thinking budget (`thinkingBudget`), for a model that takes one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub thinking_config: Option<ThinkingConfig>,
}

/// `{"thinkingBudget":N}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ThinkingConfig {
    /// Tokens of thinking allowed.
    pub thinking_budget: u32,
}

/// The probe request for `prompt_text` under `config` (the model goes in the URL).
pub fn build_request<'a>(prompt_text: &'a str, config: &RunConfig) -> GenerateContentRequest<'a> {
    let thinking = match row_for(ENGINE, &config.model).param {
        ReasoningParam::GeminiThinkingBudget => config.thinking_budget,
        _ => None,
    };
    GenerateContentRequest {
        system_instruction: Content { role: None, parts: [TextPart { text: system_prompt(config) }] },
        contents: [Content { role: Some("user"), parts: [TextPart { text: Cow::Borrowed(prompt_text) }] }],
        tools: [GoogleSearchTool { google_search: Empty {} }],
        generation_config: GenerationConfig {
            max_output_tokens: config.max_tokens,
            temperature: config.temperature,
            thinking_config: thinking.map(|thinking_budget| ThinkingConfig { thinking_budget }),
        },
    }
}

/// The request body as sent.
pub fn request_body_json(prompt_text: &str, config: &RunConfig) -> String {
    serde_json::to_string(&build_request(prompt_text, config)).unwrap_or_default()
}

/// Parses the body of a successful `generateContent` call (see the module documentation).
///
/// Errors: not JSON, not an object, or neither `candidates` nor `promptFeedback` →
/// `invalid_json`; an error envelope → the mapped Gemini error.
pub fn parse_response(body: &str, requested_model: &str) -> Result<ParsedResponse, ProbeError> {
    let invalid = |d: &str| invalid_json(ENGINE, d);
    let obj = reply_object(ENGINE, error_kind, body, "candidates")?;
    let candidate = match obj.get("candidates") {
        Some(Value::Array(c)) => c.first().and_then(Value::as_object),
        _ if obj.get("promptFeedback").is_some_and(Value::is_object) => None,
        _ => return Err(invalid("the body has no candidates array")),
    };

    let mut answer = String::new();
    let parts = candidate.and_then(|c| c.get("content")).and_then(|c| c.get("parts")).and_then(Value::as_array);
    for part in parts.into_iter().flatten().filter_map(Value::as_object) {
        if part.get("thought").and_then(Value::as_bool) == Some(true) {
            continue;
        }
        if let Some(t) = str_field(part, "text") {
            answer.push_str(t);
        }
    }

    let grounding = candidate.and_then(|c| c.get("groundingMetadata")).and_then(Value::as_object);
    let mut queries: Vec<Query> = grounding
        .and_then(|g| g.get("webSearchQueries"))
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|q| non_blank(q.as_str()))
        .enumerate()
        .map(|(i, q)| Query { index: i as u32 + 1, query: Some(q.to_string()), internal: false, error: None })
        .collect();

    // Web chunks by their index in `groundingChunks` (supports name chunks by that index).
    let chunks = grounding.and_then(|g| g.get("groundingChunks")).and_then(Value::as_array);
    let mut web: Vec<Option<(String, String)>> = Vec::new();
    let mut sources: Vec<RawSource> = Vec::new();
    for chunk in chunks.into_iter().flatten() {
        let w = chunk.get("web").and_then(Value::as_object);
        let uri = w.and_then(|w| non_blank(str_field(w, "uri")));
        match uri {
            Some(uri) => {
                let title = w.and_then(|w| str_field(w, "title")).unwrap_or("").trim().to_string();
                sources.push(RawSource {
                    query_index: 1,
                    rank: sources.len() as u32 + 1,
                    title: title.clone(),
                    url: uri.to_string(),
                    page_age: None,
                    site_name: None,
                });
                web.push(Some((uri.to_string(), title)));
            }
            None => web.push(None),
        }
    }
    if !sources.is_empty() && queries.is_empty() {
        queries.push(Query { index: 1, query: None, internal: true, error: None });
    }

    let mut citations: Vec<RawCitation> = Vec::new();
    let mut named = vec![false; web.len()];
    let supports = grounding.and_then(|g| g.get("groundingSupports")).and_then(Value::as_array);
    for support in supports.into_iter().flatten() {
        let segment = support.get("segment").and_then(|s| s.get("text")).and_then(Value::as_str);
        let segment = segment.filter(|t| !t.trim().is_empty());
        let indices = support.get("groundingChunkIndices").and_then(Value::as_array);
        for i in indices.into_iter().flatten().filter_map(Value::as_u64) {
            let Ok(i) = usize::try_from(i) else { continue };
            let Some(Some((uri, title))) = web.get(i) else { continue };
            if !named[i] {
                named[i] = true;
                citations.push(RawCitation {
                    url: uri.clone(),
                    title: (!title.is_empty()).then(|| title.clone()),
                    // The segment of the first support naming the chunk (engines.md, "Fidelity").
                    cited_text: segment.map(str::to_string),
                    index: None,
                });
            }
        }
    }

    let usage = obj.get("usageMetadata").and_then(Value::as_object);
    // The search results fed back to the model are input too (engines.md, "Fidelity").
    let prompt = count(usage.and_then(|u| u.get("promptTokenCount")))
        .saturating_add(count(usage.and_then(|u| u.get("toolUsePromptTokenCount"))));
    let cached = count(usage.and_then(|u| u.get("cachedContentTokenCount")));
    let output = count(usage.and_then(|u| u.get("candidatesTokenCount")))
        .saturating_add(count(usage.and_then(|u| u.get("thoughtsTokenCount"))));
    let stop_reason = candidate
        .and_then(|c| non_blank(str_field(c, "finishReason")))
        .or_else(|| obj.get("promptFeedback").and_then(|f| f.get("blockReason")).and_then(Value::as_str))
        .map(str::to_string);
    let truncated = stop_reason.as_deref() == Some(MAX_TOKENS_FINISH);
    Ok(ParsedResponse {
        truncated,
        cost_usd: None,
        content: None,
        raw_answer: answer,
        raw_sources: sources,
        raw_citations: Some(citations),
        usage: Usage {
            // promptTokenCount includes the cached tokens; the snapshot keeps them apart.
            input_tokens: prompt.saturating_sub(cached),
            output_tokens: output,
            cache_read_input_tokens: cached.min(prompt),
            web_search_requests: queries.len() as u64,
            search_context_size: None,
        },
        queries,
        request_id: text(&obj, "responseId"),
        stop_reason,
        model: non_blank(str_field(&obj, "modelVersion")).unwrap_or(requested_model).to_string(),
    })
}

/// `finishReason` of a reply cut off by `maxOutputTokens`.
pub const MAX_TOKENS_FINISH: &str = "MAX_TOKENS";

/// The key test's body (the table's `key_test_body`): one user turn, one output token (the model goes in the URL).
pub(crate) const KEY_TEST_BODY: &str =
    r#"{"contents":[{"parts":[{"text":{prompt}}],"role":"user"}],"generationConfig":{"maxOutputTokens":1}}"#;

/// Gemini's own error rule, before the status table (engines.md, "Errors and retries"): a bad
/// key is 400 `INVALID_ARGUMENT` with the reason `API_KEY_INVALID`, which is auth.
/// The reason is one of the google.rpc body's `error.details[].reason`.
fn error_kind(_status: u16, body: &str, _parsed: &ProviderErrorBody) -> Option<ErrorKind> {
    let value = serde_json::from_str::<Value>(body.trim()).ok()?;
    let details = value.get("error").and_then(|e| e.get("details")).and_then(Value::as_array)?;
    let bad_key = details.iter().any(|d| d.get("reason").and_then(Value::as_str) == Some("API_KEY_INVALID"));
    bad_key.then_some(ErrorKind::Auth)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builders::usage;
    use crate::provider::spec::SYSTEM_PROMPT;
    use serde_json::json;

    #[test]
    fn body_has_the_documented_shape() {
        let config =
            RunConfig { engine: EngineId::Gemini, model: String::new(), max_tokens: 3000, ..RunConfig::default() };
        let text = request_body_json("q", &config);
        let v: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(
            v,
            json!({
                "systemInstruction": {"parts": [{"text": SYSTEM_PROMPT}]},
                "contents": [{"role": "user", "parts": [{"text": "q"}]}],
                "tools": [{"google_search": {}}],
                "generationConfig": {"maxOutputTokens": 3000, "temperature": 1.0}
            })
        );
        assert!(text.starts_with("{\"systemInstruction\":"), "{text}");
        let thinking = RunConfig { thinking_budget: Some(8192), ..config.clone() };
        let v: Value = serde_json::from_str(&request_body_json("q", &thinking)).unwrap();
        assert_eq!(v["generationConfig"]["thinkingConfig"], json!({"thinkingBudget": 8192}));
        // A model that takes no thinking budget is sent none.
        let other = RunConfig { model: "gemini-3-pro".into(), ..thinking };
        let v: Value = serde_json::from_str(&request_body_json("q", &other)).unwrap();
        assert!(v["generationConfig"].get("thinkingConfig").is_none());
    }

    #[test]
    fn grounding_thoughts_and_supports() {
        let body = json!({
            "responseId": "r1", "modelVersion": "gemini-2.5-flash",
            "candidates": [{"finishReason": "STOP", "content": {"role": "model", "parts": [
                {"thought": true, "text": "thinking"}, {"text": "Spain won. "}, {"text": "Fourth title.", "thoughtSignature": "s"}]},
                "groundingMetadata": {
                    "webSearchQueries": ["euro 2024 winner", " "],
                    "groundingChunks": [
                        {"web": {"uri": "https://vertexaisearch.cloud.google.com/grounding-api-redirect/A", "title": "aljazeera.com"}},
                        {"retrievedContext": {"uri": "gs://x"}},
                        {"web": {"uri": "https://vertexaisearch.cloud.google.com/grounding-api-redirect/B", "title": "uefa.com"}},
                        {"web": {"uri": "https://vertexaisearch.cloud.google.com/grounding-api-redirect/C", "title": "never cited"}}],
                    "groundingSupports": [
                        {"segment": {"startIndex": 0, "endIndex": 10, "text": "Spain won."}, "groundingChunkIndices": [2]},
                        {"segment": {"text": "Fourth title."}, "groundingChunkIndices": [2]},
                        {"groundingChunkIndices": [0, 2, 1, 99, -1]}]}}],
            "usageMetadata": {"promptTokenCount": 100, "toolUsePromptTokenCount": 400, "cachedContentTokenCount": 30, "candidatesTokenCount": 20, "thoughtsTokenCount": 7}
        });
        let p = parse_response(&body.to_string(), "gemini-x").unwrap();
        assert_eq!(p.raw_answer, "Spain won. Fourth title.");
        assert_eq!(p.queries.len(), 1);
        let s: Vec<(u32, &str)> = p.raw_sources.iter().map(|s| (s.rank, s.title.as_str())).collect();
        assert_eq!(s, [(1, "aljazeera.com"), (2, "uefa.com"), (3, "never cited")]);
        let c: Vec<&str> = p.raw_citations.as_ref().unwrap().iter().map(|c| c.title.as_deref().unwrap()).collect();
        assert_eq!(c, ["uefa.com", "aljazeera.com"]);
        let texts: Vec<Option<&str>> =
            p.raw_citations.as_ref().unwrap().iter().map(|c| c.cited_text.as_deref()).collect();
        assert_eq!(texts, [Some("Spain won."), None], "the first support naming the chunk");
        assert_eq!(p.usage, usage(470, 27, 30, 1));
        assert_eq!((p.request_id.as_deref(), p.stop_reason.as_deref()), (Some("r1"), Some("STOP")));
    }

    #[test]
    fn chunks_without_queries_get_an_internal_query_and_blocked_prompts_are_empty() {
        let body = json!({"candidates": [{"content": {"parts": [{"text": "a"}]},
            "groundingMetadata": {"groundingChunks": [{"web": {"uri": "https://a.example", "title": "a.example"}}]}}]});
        let p = parse_response(&body.to_string(), "m").unwrap();
        assert_eq!(p.queries, [Query { index: 1, query: None, internal: true, error: None }]);
        assert_eq!(p.raw_citations, Some(vec![]));
        let blocked = parse_response(r#"{"promptFeedback":{"blockReason":"SAFETY"}}"#, "m").unwrap();
        assert_eq!((blocked.raw_answer.as_str(), blocked.stop_reason.as_deref()), ("", Some("SAFETY")));
        for body in ["{}", "[]", "x", "{\"candidates\":{}}"] {
            assert_eq!(parse_response(body, "m").unwrap_err().kind, ErrorKind::InvalidJson, "{body}");
        }
        let err = parse_response(r#"{"error":{"code":429,"message":"exhausted","status":"RESOURCE_EXHAUSTED"}}"#, "m")
            .unwrap_err();
        assert_eq!(err.kind, ErrorKind::RateLimit);
    }
}
