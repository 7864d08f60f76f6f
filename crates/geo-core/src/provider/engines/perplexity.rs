//! Perplexity's Sonar `chat/completions`: the probe request body and the response parser
//! (engines.md; shapes in `shared/reference/api-formats/engines/perplexity_*`).
//!
//! * The answer is `choices[0].message.content` (a string, or OpenAI-style text parts),
//!   without the leading `<think>…</think>` section of the reasoning models (and the
//!   whitespace after it); a `<think>` never closed leaves no answer and marks the reply
//!   truncated (engines.md, "Fidelity").
//! * Queries: when `message.reasoning_steps[]` carry `web_search.search_keywords`, one query
//!   per keyword in order, each step's `web_search.search_results` the sources of that step's
//!   first query; the top-level `search_results` no step lists attach to the last query.
//!   Otherwise Perplexity names no query, so one internal query stands for its search when
//!   there are results. `webSearchRequests` counts the queries.
//! * Citations are the `search_results` entries (1-based) the answer cites with a `[n]`
//!   marker, in order of first citation, once each. The top-level `citations` array is the
//!   footnote list (the same URLs as `search_results`) and does not mean "cited".
//! * `usage.cost.total_cost` is the reply's own stated cost; `usage.search_context_size`
//!   (which sets the request fee) is kept on the usage.

use rustc_hash::{FxHashMap, FxHashSet};
use serde::Serialize;
use serde_json::Value;

use crate::model::{EngineId, ProbeError, Query, RawCitation, RawSource, RunConfig, SearchContextSize, Usage};
use crate::provider::dialect::chat::{
    self, content_text, first_choice, probe_messages, Choice, ProbeMessage, LENGTH_FINISH,
};
use crate::provider::error::kind::{invalid_json, no_own_codes, reply_object};
use crate::provider::location::{plain_user_location, UserLocation};
use crate::provider::parsed::ParsedResponse;
use crate::provider::read::{model_of, non_blank, str_field, text};
use crate::provider::spec::model_or_default;
use crate::provider::wire::Wire;

/// This engine.
const ENGINE: EngineId = EngineId::Perplexity;

/// Perplexity's wire format (no codes of its own: a 401 is an HTML page, the status decides).
pub(crate) const WIRE: Wire = Wire::new(ENGINE, request_body_json, parse_response, no_own_codes);

/// The chat completions request body, fields in the documented order.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ChatRequest<'a> {
    /// Requested model.
    pub model: &'a str,
    /// The system prompt, then the user prompt.
    pub messages: [ProbeMessage<'a>; 2],
    /// Output token limit.
    pub max_tokens: u32,
    /// `{"user_location": {country, region?, city?}}` when the run has a location (no `type`,
    /// no timezone: engines.md, "Where and how an answer was measured").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub web_search_options: Option<SearchOptions<'a>>,
}

/// `web_search_options` of a request.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SearchOptions<'a> {
    /// The run's location, without a timezone.
    pub user_location: UserLocation<'a>,
}

/// The probe request for `prompt_text` under `config` (Perplexity always searches and has
/// no search-count limit).
pub fn build_request<'a>(prompt_text: &'a str, config: &'a RunConfig) -> ChatRequest<'a> {
    ChatRequest {
        model: model_or_default(ENGINE, &config.model),
        messages: probe_messages(prompt_text, config),
        max_tokens: config.max_tokens,
        web_search_options: plain_user_location(config).map(|user_location| SearchOptions { user_location }),
    }
}

/// The request body as sent.
pub fn request_body_json(prompt_text: &str, config: &RunConfig) -> String {
    serde_json::to_string(&build_request(prompt_text, config)).unwrap_or_default()
}

/// The answer without a leading `<think>…</think>` section and the whitespace after it, and
/// whether a `<think>` was opened and never closed (then there is no answer).
pub fn strip_think(content: &str) -> (&str, bool) {
    let Some(rest) = content.trim_start().strip_prefix("<think>") else { return (content, false) };
    match rest.find("</think>") {
        Some(end) => (rest[end + "</think>".len()..].trim_start(), false),
        None => ("", true),
    }
}

/// The 1-based numbers of the `[n]` markers of `answer`, in order of first appearance, once each
/// ([`crate::analysis::markers::bracket_numbers`] without carets).
pub fn cited_numbers(answer: &str) -> Vec<usize> {
    crate::analysis::markers::bracket_numbers(answer, false).into_iter().map(|n| n as usize).collect()
}

/// One search result: `(url, title, date)`.
fn result_of(r: &Value) -> Option<(&str, &str, Option<&str>)> {
    let r = r.as_object()?;
    Some((non_blank(str_field(r, "url"))?, str_field(r, "title").unwrap_or("").trim(), non_blank(str_field(r, "date"))))
}

/// The sources of a reply with each query's running rank (ranks count per query, so a map
/// of counts keeps the parser linear in the number of results).
#[derive(Default)]
struct Sources {
    list: Vec<RawSource>,
    ranks: FxHashMap<u32, u32>,
}

impl Sources {
    fn push(&mut self, query_index: u32, (url, title, date): (&str, &str, Option<&str>)) {
        let rank = self.ranks.entry(query_index).or_insert(0);
        *rank += 1;
        self.list.push(RawSource {
            query_index,
            rank: *rank,
            title: title.to_string(),
            url: url.to_string(),
            page_age: date.map(str::to_string),
            site_name: None,
        });
    }
}

/// The queries and sources of the reply (see the module documentation). Plain loops: an
/// iterator chain is code of its own in the web app's module (ADR 0014).
fn queries_and_sources(message: Option<&Value>, results: &[Value]) -> (Vec<Query>, Vec<RawSource>) {
    let mut queries: Vec<Query> = Vec::new();
    let mut sources = Sources::default();
    let mut listed: FxHashSet<&str> = FxHashSet::default();
    let steps = message.and_then(|m| m.get("reasoning_steps")).and_then(Value::as_array);
    for step in steps.map_or(&[][..], |s| &s[..]) {
        let Some(search) = step.get("web_search") else { continue };
        let first_index = queries.len() as u32 + 1;
        let words = search.get("search_keywords").and_then(Value::as_array);
        for w in words.map_or(&[][..], |w| &w[..]) {
            if let Some(w) = non_blank(w.as_str()) {
                let index = queries.len() as u32 + 1;
                queries.push(Query { index, query: Some(w.to_string()), internal: false, error: None });
            }
        }
        if queries.len() as u32 + 1 == first_index {
            continue;
        }
        let step_results = search.get("search_results").and_then(Value::as_array);
        for r in step_results.map_or(&[][..], |r| &r[..]) {
            if let Some(result) = result_of(r) {
                listed.insert(result.0);
                sources.push(first_index, result);
            }
        }
    }
    for r in results {
        let Some(result) = result_of(r) else { continue };
        if listed.contains(result.0) {
            continue;
        }
        if queries.is_empty() {
            queries.push(Query { index: 1, query: None, internal: true, error: None });
        }
        sources.push(queries.len() as u32, result);
    }
    (queries, sources.list)
}

/// Parses the body of a successful chat completions call (see the module documentation).
///
/// Errors: not JSON, not an object, or no `choices` array → `invalid_json`; an error
/// envelope → the mapped Perplexity error.
pub fn parse_response(body: &str, requested_model: &str) -> Result<ParsedResponse, ProbeError> {
    let invalid = |d: &str| invalid_json(ENGINE, d);
    let obj = reply_object(ENGINE, no_own_codes, body, "choices")?;
    let Some(Value::Array(choices)) = obj.get("choices") else {
        return Err(invalid("the body has no choices array"));
    };
    let Choice { message, finish, .. } = first_choice(choices);
    let content = content_text(message.and_then(|m| m.get("content")));
    let (answer, unclosed_think) = strip_think(&content);

    let results: &[Value] = obj.get("search_results").and_then(Value::as_array).map_or(&[], |v| &v[..]);
    let (queries, sources) = queries_and_sources(message, results);
    let mut citations: Vec<RawCitation> = Vec::new();
    for n in cited_numbers(answer) {
        if let Some((url, title, _)) = results.get(n - 1).and_then(result_of) {
            let title = (!title.is_empty()).then(|| title.to_string());
            let index = u32::try_from(n).ok();
            citations.push(RawCitation { url: url.to_string(), title, cited_text: None, index });
        }
    }

    let usage = obj.get("usage").and_then(Value::as_object);
    let context =
        usage.and_then(|u| str_field(u, "search_context_size")).and_then(|s| SearchContextSize::parse(s.trim()));
    let cost = usage.and_then(|u| u.get("cost")).and_then(|c| c.get("total_cost")).and_then(Value::as_f64);
    Ok(ParsedResponse {
        raw_answer: answer.to_string(),
        usage: Usage { search_context_size: context, ..chat::usage(usage, queries.len() as u64) },
        queries,
        raw_sources: sources,
        raw_citations: Some(citations),
        request_id: text(&obj, "id"),
        truncated: finish == Some(LENGTH_FINISH) || unclosed_think,
        stop_reason: finish.map(str::to_string),
        model: model_of(&obj, requested_model),
        cost_usd: cost.filter(|c| c.is_finite() && *c >= 0.0),
        content: None,
    })
}

/// The key test's body: the chat-completions dialect's.
pub(crate) const KEY_TEST_BODY: &str = chat::KEY_TEST_BODY;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builders::usage;
    use crate::model::ErrorKind;
    use crate::provider::spec::SYSTEM_PROMPT;
    use serde_json::json;

    #[test]
    fn body_has_the_documented_shape() {
        let config = RunConfig {
            engine: EngineId::Perplexity,
            model: "sonar-pro".into(),
            max_tokens: 3000,
            ..RunConfig::default()
        };
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
        assert_eq!(p.usage, usage(12, 34, 0, 1));
        let bare =
            parse_response(r#"{"choices":[{"message":{"content":[{"type":"text","text":"x"}]}}]}"#, "sonar").unwrap();
        assert_eq!((bare.raw_answer.as_str(), bare.queries.len(), bare.raw_citations), ("x", 0, Some(vec![])));
        assert_eq!(parse_response("<html>401</html>", "m").unwrap_err().kind, ErrorKind::InvalidJson);
        let err = parse_response(r#"{"error":{"message":"Invalid model 'x'","type":"invalid_model","code":400}}"#, "m")
            .unwrap_err();
        assert_eq!(err.kind, ErrorKind::Http);
    }

    #[test]
    fn think_sections_are_not_the_answer() {
        assert_eq!(strip_think("<think>元构场? https://x.example</think>\n\n答案"), ("答案", false));
        assert_eq!(strip_think("  <think>a</think>b"), ("b", false));
        assert_eq!(strip_think("<think>never closed"), ("", true));
        assert_eq!(strip_think("答案 <think>x</think>"), ("答案 <think>x</think>", false));
        let body = json!({"choices": [{"finish_reason": "length", "message": {"content": "<think>still thinking"}}],
            "search_results": [{"url": "https://a.example"}]});
        let p = parse_response(&body.to_string(), "sonar-reasoning-pro").unwrap();
        assert_eq!((p.raw_answer.as_str(), p.truncated), ("", true));
    }

    #[test]
    fn markers_cite_results_and_steps_name_queries() {
        assert_eq!(cited_numbers("a [2] b [1][2] [10] [x] [1234] [0] [3"), [2, 1, 10]);
        let body = json!({"model": "sonar-reasoning-pro",
            "choices": [{"finish_reason": "stop", "message": {"content": "<think>GEOBoost [9]</think>元构场 [3][1]，再次 [3]。",
                "reasoning_steps": [
                    {"type": "web_search", "web_search": {"search_keywords": ["GEO 工具", " 元构场 "],
                        "search_results": [{"url": "https://s.example/1", "title": "S1"}, {"url": "https://a.example"}]}},
                    {"type": "fetch_url_content"},
                    {"type": "web_search", "web_search": {"search_keywords": ["GEO 报价"], "search_results": []}}]}}],
            "citations": ["https://a.example", "https://b.example", "https://c.example"],
            "search_results": [{"url": "https://a.example", "title": "A"}, {"url": "https://b.example", "title": "B"},
                               {"url": "https://c.example", "title": "C", "date": "2026-01-01"}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 20, "search_context_size": "high",
                      "cost": {"request_cost": 0.012, "total_cost": 0.0135}}});
        let p = parse_response(&body.to_string(), "m").unwrap();
        assert_eq!(p.raw_answer, "元构场 [3][1]，再次 [3]。");
        let q: Vec<(u32, Option<&str>, bool)> =
            p.queries.iter().map(|q| (q.index, q.query.as_deref(), q.internal)).collect();
        assert_eq!(q, [(1, Some("GEO 工具"), false), (2, Some("元构场"), false), (3, Some("GEO 报价"), false)]);
        let s: Vec<(u32, u32, &str)> = p.raw_sources.iter().map(|s| (s.query_index, s.rank, s.url.as_str())).collect();
        assert_eq!(
            s,
            [
                (1, 1, "https://s.example/1"),
                (1, 2, "https://a.example"),
                (3, 1, "https://b.example"),
                (3, 2, "https://c.example")
            ]
        );
        let c: Vec<(&str, Option<&str>)> =
            p.raw_citations.as_ref().unwrap().iter().map(|c| (c.url.as_str(), c.title.as_deref())).collect();
        assert_eq!(
            c,
            [("https://c.example", Some("C")), ("https://a.example", Some("A"))],
            "a marker in <think> cites nothing"
        );
        assert_eq!(p.usage.web_search_requests, 3);
        assert_eq!(p.usage.search_context_size, Some(SearchContextSize::High));
        assert_eq!(p.cost_usd, Some(0.0135));
        // No marker: nothing is cited, whatever the footnote list says.
        let plain = json!({"choices": [{"message": {"content": "no markers"}}], "citations": ["https://a.example"],
            "search_results": [{"url": "https://a.example"}]});
        assert_eq!(parse_response(&plain.to_string(), "sonar").unwrap().raw_citations, Some(vec![]));
    }
}
