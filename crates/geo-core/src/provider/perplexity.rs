//! Perplexity's Sonar `chat/completions`: the probe request body and the response parser
//! (engines.md; shapes in `shared/reference/api-formats/engines/perplexity_*`).
//!
//! * The answer is `choices[0].message.content` (a string, or OpenAI-style text parts).
//! * `search_results[i]` are the sources (`title`, `url`, `date` as `pageAge`), all of query 1,
//!   ranked by position. Perplexity returns no query strings, so one internal query stands
//!   for its search when there are results, and that search is counted once in `usage`.
//! * `citations` (URL strings, which the answer refers to as `[1]`, `[2]` …) are the
//!   citations; the array is always present, empty when the response has none.

use serde::Serialize;
use serde_json::Value;

use super::errors::engine_invalid_json_error;
use super::request::SYSTEM_PROMPT;
use super::wire::{count, non_blank, response_object, str_field};
use super::ParsedResponse;
use crate::model::{EngineId, ProbeError, Query, RawCitation, RawSource, RunConfig, Usage};

/// The chat completions request body, fields in the documented order.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ChatRequest<'a> {
    /// Requested model.
    pub model: &'a str,
    /// The system prompt, then the user prompt.
    pub messages: [ChatMessage<'a>; 2],
    /// Output token limit.
    pub max_tokens: u32,
}

/// `{"role","content"}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ChatMessage<'a> {
    /// `system` or `user`.
    pub role: &'static str,
    /// The text.
    pub content: &'a str,
}

/// The probe request for `prompt_text` under `config` (Perplexity always searches and has
/// no search-count limit).
pub fn build_request<'a>(prompt_text: &'a str, config: &'a RunConfig) -> ChatRequest<'a> {
    ChatRequest {
        model: super::engine::model_or_default(EngineId::Perplexity, &config.model),
        messages: [
            ChatMessage { role: "system", content: SYSTEM_PROMPT },
            ChatMessage { role: "user", content: prompt_text },
        ],
        max_tokens: config.max_tokens,
    }
}

/// The request body as sent.
pub fn request_body_json(prompt_text: &str, config: &RunConfig) -> String {
    serde_json::to_string(&build_request(prompt_text, config)).unwrap_or_default()
}

/// The text of a message `content`: a string, or the `text` of its parts joined.
fn content_text(content: Option<&Value>) -> String {
    match content {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(parts)) => {
            parts.iter().filter_map(|p| p.get("text").and_then(Value::as_str)).collect::<Vec<_>>().join("")
        }
        _ => String::new(),
    }
}

/// Parses the body of a successful chat completions call (see the module documentation).
///
/// Errors: not JSON, not an object, or no `choices` array → `invalid_json`; an error
/// envelope → the mapped Perplexity error.
pub fn parse_response(body: &str, requested_model: &str) -> Result<ParsedResponse, ProbeError> {
    let invalid = |d: &str| engine_invalid_json_error(EngineId::Perplexity, d);
    let obj = response_object(EngineId::Perplexity, body, "choices")?;
    let Some(Value::Array(choices)) = obj.get("choices") else {
        return Err(invalid("the body has no choices array"));
    };
    let choice = choices.first().and_then(Value::as_object);
    let answer = content_text(choice.and_then(|c| c.get("message")).and_then(|m| m.get("content")));

    let mut sources: Vec<RawSource> = Vec::new();
    for r in obj.get("search_results").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_object) {
        let Some(url) = non_blank(str_field(r, "url")) else { continue };
        sources.push(RawSource {
            query_index: 1,
            rank: sources.len() as u32 + 1,
            title: str_field(r, "title").unwrap_or("").trim().to_string(),
            url: url.to_string(),
            page_age: non_blank(str_field(r, "date")).map(str::to_string),
        });
    }
    let queries = if sources.is_empty() {
        Vec::new()
    } else {
        vec![Query { index: 1, query: None, internal: true, error: None }]
    };
    let citations: Vec<RawCitation> = obj
        .get("citations")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|c| non_blank(c.as_str()))
        .map(|url| RawCitation { url: url.to_string(), title: None, cited_text: None })
        .collect();

    let usage = obj.get("usage").and_then(Value::as_object);
    Ok(ParsedResponse {
        raw_answer: answer,
        usage: Usage {
            input_tokens: count(usage.and_then(|u| u.get("prompt_tokens"))),
            output_tokens: count(usage.and_then(|u| u.get("completion_tokens"))),
            cache_read_input_tokens: 0,
            web_search_requests: u64::from(!sources.is_empty()),
            search_context_size: None,
        },
        queries,
        raw_sources: sources,
        raw_citations: Some(citations),
        request_id: non_blank(str_field(&obj, "id")).map(str::to_string),
        stop_reason: choice.and_then(|c| non_blank(str_field(c, "finish_reason"))).map(str::to_string),
        model: non_blank(str_field(&obj, "model")).unwrap_or(requested_model).to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ErrorKind;
    use serde_json::json;

    #[test]
    fn body_has_the_documented_shape() {
        let config = RunConfig { engine: EngineId::Perplexity, model: "sonar-pro".into(), ..RunConfig::default() };
        let v: Value = serde_json::from_str(&request_body_json("q", &config)).unwrap();
        assert_eq!(
            v,
            json!({"model": "sonar-pro", "messages": [{"role": "system", "content": SYSTEM_PROMPT},
                {"role": "user", "content": "q"}], "max_tokens": 3000})
        );
    }

    #[test]
    fn results_citations_and_no_queries() {
        let body = json!({"id": "p1", "model": "sonar", "choices": [{"finish_reason": "stop", "message": {"role": "assistant", "content": "A [1]."}}],
            "citations": ["https://a.example/x", " ", 3],
            "search_results": [{"title": "A", "url": "https://a.example/x", "date": "2026-01-02"}, {"title": "no url"},
                               {"url": "https://b.example", "date": null}],
            "usage": {"prompt_tokens": 12, "completion_tokens": 34, "num_search_queries": 2}});
        let p = parse_response(&body.to_string(), "m").unwrap();
        assert_eq!(p.raw_answer, "A [1].");
        assert_eq!(p.queries, [Query { index: 1, query: None, internal: true, error: None }]);
        let s: Vec<(u32, &str, Option<&str>)> =
            p.raw_sources.iter().map(|s| (s.rank, s.url.as_str(), s.page_age.as_deref())).collect();
        assert_eq!(s, [(1, "https://a.example/x", Some("2026-01-02")), (2, "https://b.example", None)]);
        assert_eq!(p.raw_citations.as_ref().unwrap().len(), 1);
        assert_eq!(
            p.usage,
            Usage {
                input_tokens: 12,
                output_tokens: 34,
                cache_read_input_tokens: 0,
                web_search_requests: 1,
                search_context_size: None
            }
        );
        let bare =
            parse_response(r#"{"choices":[{"message":{"content":[{"type":"text","text":"x"}]}}]}"#, "sonar").unwrap();
        assert_eq!((bare.raw_answer.as_str(), bare.queries.len(), bare.raw_citations), ("x", 0, Some(vec![])));
        assert_eq!(parse_response("<html>401</html>", "m").unwrap_err().kind, ErrorKind::InvalidJson);
        let err = parse_response(r#"{"error":{"message":"Invalid model 'x'","type":"invalid_model","code":400}}"#, "m")
            .unwrap_err();
        assert_eq!(err.kind, ErrorKind::Http);
    }
}
