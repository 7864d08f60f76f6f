//! ERNIE on Baidu Qianfan, v2 Chat Completions with `web_search`: the probe request body, the
//! response parser and the engine's own error codes (engines.md, "Chinese engines"; shapes in
//! `shared/reference/api-formats/engines/ernie_qianfan.md`).
//!
//! * The request is OpenAI-style (`model`, `messages` = the neutral system prompt and the
//!   prompt) with `temperature`, `web_search: {enable, enable_trace, enable_citation,
//!   search_mode: "auto"}` (ERNIE models cannot be forced to search: `required` is for the
//!   DeepSeek models on Qianfan), `max_completion_tokens` = `maxTokens` and `stream: false`.
//! * The answer is `choices[0].message.content` as written, citation markers included
//!   (`^[1]^`, `^[1][2]^`); `reasoning_content` is not the answer.
//! * Qianfan names no query: one internal query stands for the search when one ran, that is
//!   when `usage.prompt_tokens_details.search_tokens` > 0 or the top-level `search_results`
//!   is not empty (`search_tokens` > 0 without results happens: non-public pages are not
//!   traced). `webSearchRequests` is then 1.
//! * Sources are `search_results[]` (`index`, `url`, `title`), `rank` = the engine's `index`
//!   as given (gaps kept; a list numbered from 0 is shifted by one, an entry without a usable
//!   `index` takes its 1-based position); entries without a URL are dropped. `siteName` is an
//!   undocumented `site_name`, `website` or `web_anchor` when one is given, trimmed, absent
//!   when blank or 「无」.
//! * Citations are the results whose `index` a marker of the answer names, in order of first
//!   citation, once each (and once per URL); a marker naming no result cites nothing.
//! * A refusal arrives at HTTP 200: `finish_reason: "content_filter"` or `flag` ≥ 1 is a
//!   `refused` error with `httpStatus: 200`. `finish_reason: "length"` marks the reply truncated.
//! * Usage: `prompt_tokens` less `prompt_tokens_details.cached_tokens` (the search results fed
//!   to the model are part of `prompt_tokens`), `completion_tokens`, the cached tokens.
//! * Error codes: `invalid_iam_token` → auth, `invalid_model` → http (a configuration error,
//!   not the key), `account_overdue` → balance, `*rate_limit_exceeded` → rate_limit,
//!   `coding_plan_api_key_not_allowed` → forbidden; anything else falls back to the status.

use serde::Serialize;
use serde_json::{Map, Value};

use crate::model::{EngineId, ErrorKind, ProbeError, Query, RawCitation, RawSource, RunConfig, Usage};
use crate::provider::dialect::chat::{
    content_text, first_choice, index_of, probe_messages, Choice, Numbering, ProbeMessage, LENGTH_FINISH,
};
use crate::provider::error::body::ProviderErrorBody;
use crate::provider::error::kind::{invalid_json, refused_error, reply_object};
use crate::provider::parsed::ParsedResponse;
use crate::provider::read::{count, model_of, non_blank, str_field, text};
use crate::provider::spec::model_or_default;
use crate::provider::wire::Wire;

/// This engine.
const ENGINE: EngineId = EngineId::Ernie;

/// ERNIE's wire format.
pub(crate) const WIRE: Wire = Wire::new(ENGINE, request_body_json, parse_response, error_kind);

/// `web_search.search_mode`: the model decides (the only mode ERNIE models take).
pub const SEARCH_MODE: &str = "auto";

/// `finish_reason` of a reply the content filter cut, replaced or refused.
pub const CONTENT_FILTER_FINISH: &str = "content_filter";

/// The v2 chat completions request body, fields in the documented order.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ChatRequest<'a> {
    /// Requested model.
    pub model: &'a str,
    /// The system prompt, then the user prompt.
    pub messages: [ProbeMessage<'a>; 2],
    /// Sampling temperature.
    pub temperature: f64,
    /// The search options.
    pub web_search: WebSearch,
    /// Output token limit.
    pub max_completion_tokens: u32,
    /// Always `false`: one JSON body.
    pub stream: bool,
}

/// `web_search`: search on, results traced (`search_results`), markers in the answer.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WebSearch {
    /// Search on.
    pub enable: bool,
    /// Return the top-level `search_results`.
    pub enable_trace: bool,
    /// Write `^[n]^` markers into the answer.
    pub enable_citation: bool,
    /// [`SEARCH_MODE`].
    pub search_mode: &'static str,
}

/// The probe request for `prompt_text` under `config` (no search limit: Qianfan's
/// `search_number` keeps its default).
pub fn build_request<'a>(prompt_text: &'a str, config: &'a RunConfig) -> ChatRequest<'a> {
    ChatRequest {
        model: model_or_default(ENGINE, &config.model),
        messages: probe_messages(prompt_text, config),
        temperature: config.temperature,
        web_search: WebSearch { enable: true, enable_trace: true, enable_citation: true, search_mode: SEARCH_MODE },
        max_completion_tokens: config.max_tokens,
        stream: false,
    }
}

/// The request body as sent.
pub fn request_body_json(prompt_text: &str, config: &RunConfig) -> String {
    serde_json::to_string(&build_request(prompt_text, config)).unwrap_or_default()
}

/// The numbers of the `^[n]^` / `^[n][m]…^` markers of `answer` (1 to 4 digits each), in
/// order of first appearance, once each ([`crate::analysis::markers::caret_numbers`]).
pub fn cited_indices(answer: &str) -> Vec<u64> {
    crate::analysis::markers::caret_numbers(answer)
}

/// The site name a result may carry (undocumented for chat `search_results`): the first of
/// `site_name`, `website`, `web_anchor` that is neither blank nor 「无」, trimmed.
fn site_name_of(r: &Map<String, Value>) -> Option<String> {
    for key in ["site_name", "website", "web_anchor"] {
        if let Some(name) = non_blank(str_field(r, key)) {
            if name != "无" {
                return Some(name.to_string());
            }
        }
    }
    None
}

/// One entry of `search_results`: its index as used by the markers (position when absent),
/// and its source when it has a URL.
struct Entry {
    index: u64,
    source: Option<RawSource>,
}

/// The `search_results` entries in order (see the module documentation for `rank`).
fn entries(results: &[Value]) -> Vec<Entry> {
    let zero_based = results.iter().any(|r| index_of(r.get("index"), Numbering::FromZero) == Some(0));
    let mut out = Vec::with_capacity(results.len());
    for (position, r) in results.iter().enumerate() {
        let Some(r) = r.as_object() else { continue };
        let fallback = position as u64 + u64::from(!zero_based);
        let index = index_of(r.get("index"), Numbering::FromZero).unwrap_or(fallback);
        let rank = u32::try_from(index.saturating_add(u64::from(zero_based))).unwrap_or(u32::MAX);
        let source = non_blank(str_field(r, "url")).map(|url| RawSource {
            query_index: 1,
            rank,
            title: str_field(r, "title").unwrap_or("").trim().to_string(),
            url: url.to_string(),
            page_age: None,
            site_name: site_name_of(r),
        });
        out.push(Entry { index, source });
    }
    out
}

/// The results the answer's markers name, in order of first citation, once per marker
/// number, each with that number as its `index` (what "What the answers say" finds a
/// sentence's sources by).
fn citations(answer: &str, entries: &[Entry]) -> Vec<RawCitation> {
    let mut out: Vec<RawCitation> = Vec::new();
    for n in cited_indices(answer) {
        let Some(entry) = entries.iter().find(|e| e.index == n) else { continue };
        let Some(source) = entry.source.as_ref() else { continue };
        let title = (!source.title.is_empty()).then(|| source.title.clone());
        let index = u32::try_from(n).ok();
        out.push(RawCitation { url: source.url.clone(), title, cited_text: None, index });
    }
    out
}

/// A safety `flag`: an integer (or integral string), else 0.
fn flag_of(v: Option<&Value>) -> i64 {
    match v {
        Some(Value::Number(n)) => n.as_i64().or_else(|| n.as_f64().map(|f| f as i64)).unwrap_or(0),
        Some(Value::String(s)) => s.trim().parse().unwrap_or(0),
        _ => 0,
    }
}

/// The refusal detail when the content filter answered (`finish_reason: "content_filter"` or
/// `flag` ≥ 1 on the choice, or on the body as in the v1 API), else `None`.
fn refusal(obj: &Map<String, Value>, choice: Option<&Map<String, Value>>) -> Option<String> {
    let finish = choice.and_then(|c| non_blank(str_field(c, "finish_reason")));
    let flag = flag_of(choice.and_then(|c| c.get("flag")).or_else(|| obj.get("flag")));
    if finish != Some(CONTENT_FILTER_FINISH) && flag < 1 {
        return None;
    }
    let mut detail = vec![format!("finish_reason {}", finish.unwrap_or("absent")), format!("flag {flag}")];
    let ban_round = choice.and_then(|c| c.get("ban_round")).or_else(|| obj.get("ban_round"));
    if let Some(round) = ban_round.and_then(Value::as_i64) {
        detail.push(format!("ban_round {round}"));
    }
    Some(detail.join(", "))
}

/// Parses the body of a successful v2 chat completions call (see the module documentation).
///
/// Errors: not JSON, not an object, or no `choices` array → `invalid_json`; an error
/// envelope → the mapped ERNIE error; the content filter's answer → `refused` (HTTP 200).
pub fn parse_response(body: &str, requested_model: &str) -> Result<ParsedResponse, ProbeError> {
    let obj = reply_object(ENGINE, error_kind, body, "choices")?;
    let Some(Value::Array(choices)) = obj.get("choices") else {
        return Err(invalid_json(ENGINE, "the body has no choices array"));
    };
    let Choice { choice, message, finish } = first_choice(choices);
    if let Some(detail) = refusal(&obj, choice) {
        return Err(refused_error(ENGINE, Some(200), &detail));
    }
    let answer = content_text(message.and_then(|m| m.get("content")));

    let results: &[Value] = obj.get("search_results").and_then(Value::as_array).map_or(&[], |v| &v[..]);
    let usage = obj.get("usage").and_then(Value::as_object);
    let details = usage.and_then(|u| u.get("prompt_tokens_details"));
    let searched = count(details.and_then(|d| d.get("search_tokens"))) > 0 || !results.is_empty();
    let entries = entries(results);
    let raw_citations = citations(&answer, &entries);
    let mut raw_sources = Vec::with_capacity(entries.len());
    for entry in entries {
        raw_sources.extend(entry.source);
    }
    let queries =
        if searched { vec![Query { index: 1, query: None, internal: true, error: None }] } else { Vec::new() };

    let prompt = count(usage.and_then(|u| u.get("prompt_tokens")));
    let cached = count(details.and_then(|d| d.get("cached_tokens")));
    Ok(ParsedResponse {
        raw_answer: answer,
        usage: Usage {
            input_tokens: prompt.saturating_sub(cached),
            output_tokens: count(usage.and_then(|u| u.get("completion_tokens"))),
            cache_read_input_tokens: cached.min(prompt),
            web_search_requests: u64::from(searched),
            search_context_size: None,
        },
        queries,
        raw_sources,
        raw_citations: Some(raw_citations),
        request_id: text(&obj, "id"),
        truncated: finish == Some(LENGTH_FINISH),
        stop_reason: finish.map(str::to_string),
        model: model_of(&obj, requested_model),
        cost_usd: None,
        content: None,
    })
}

/// The key test's body (the table's `key_test_body`): one user message; Qianfan's `max_completion_tokens` starts at 2.
pub(crate) const KEY_TEST_BODY: &str =
    r#"{"max_completion_tokens":2,"messages":[{"content":{prompt},"role":"user"}],"model":{model}}"#;

/// Qianfan's own error codes, before the status table (`status` is 0 for an error envelope
/// inside a 2xx): see the module documentation. `None`: the status decides.
fn error_kind(_status: u16, _body: &str, parsed: &ProviderErrorBody) -> Option<ErrorKind> {
    let code = parsed.code.as_deref().unwrap_or("").trim().to_ascii_lowercase();
    let error_type = parsed.error_type.as_deref().unwrap_or("").trim().to_ascii_lowercase();
    if code.contains("iam_token") || code == "invalid_api_key" {
        Some(ErrorKind::Auth)
    } else if code == "invalid_model" {
        Some(ErrorKind::Http)
    } else if code.contains("overdue") || code.contains("arrear") {
        Some(ErrorKind::Balance)
    } else if code.ends_with("rate_limit_exceeded") || error_type == "rate_limit_exceeded" {
        Some(ErrorKind::RateLimit)
    } else if code.ends_with("_not_allowed") {
        Some(ErrorKind::Forbidden)
    } else if code.contains("content_filter") || code.contains("sensitive") {
        Some(ErrorKind::Refused)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builders::usage;
    use crate::provider::error::body::parse_error_body;
    use crate::provider::error::kind::map_envelope;
    use crate::provider::map_engine_http_error;
    use crate::provider::spec::SYSTEM_PROMPT;
    use serde_json::json;

    macro_rules! fixture {
        ($name:literal) => {
            include_str!(concat!("../../../../../fixtures/engines/ernie/", $name, ".json"))
        };
    }

    fn parse(body: &Value) -> ParsedResponse {
        parse_response(&body.to_string(), "ernie-4.5-turbo-128k").unwrap()
    }

    fn ranks(p: &ParsedResponse) -> Vec<(u32, &str)> {
        p.raw_sources.iter().map(|s| (s.rank, s.url.as_str())).collect()
    }

    fn cited(p: &ParsedResponse) -> Vec<&str> {
        p.raw_citations.as_ref().unwrap().iter().map(|c| c.url.as_str()).collect()
    }

    #[test]
    fn body_has_the_documented_shape() {
        let config = RunConfig {
            engine: EngineId::Ernie,
            model: " ".into(),
            max_tokens: 3000,
            temperature: 0.7,
            ..RunConfig::default()
        };
        let body = request_body_json("q", &config);
        let v: Value = serde_json::from_str(&body).unwrap();
        assert_eq!(
            v,
            json!({"model": "ernie-4.5-turbo-128k",
                "messages": [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": "q"}],
                "temperature": 0.7,
                "web_search": {"enable": true, "enable_trace": true, "enable_citation": true, "search_mode": "auto"},
                "max_completion_tokens": 3000, "stream": false})
        );
        let order: Vec<usize> = ["\"model\"", "\"messages\"", "\"temperature\"", "\"web_search\"", "\"max_completion"]
            .iter()
            .map(|k| body.find(k).unwrap())
            .collect();
        assert!(order.windows(2).all(|w| w[0] < w[1]), "{body}");
        let named = RunConfig { model: "ernie-x1.1-preview".into(), ..config };
        assert!(request_body_json("q", &named).contains("\"model\":\"ernie-x1.1-preview\""));
    }

    #[test]
    fn search_results_sources_and_citations() {
        let body = json!({"id": "as-1", "object": "chat.completion", "model": "ernie-4.5-turbo-128k",
            "choices": [{"index": 0, "message": {"role": "assistant",
                "content": "1. **元构场**^[1][2]^：监测。\n2. 智谱营销^[3]^。再次^[1]^。", "reasoning_content": "^[4]^"},
                "finish_reason": "stop", "flag": 0}],
            "usage": {"prompt_tokens": 4210, "prompt_tokens_details": {"search_tokens": 3890, "cached_tokens": 10},
                      "completion_tokens": 380, "total_tokens": 4590},
            "search_results": [{"index": 1, "url": "https://a.example/1", "title": " A "},
                               {"index": 2, "url": "https://b.example/2", "title": "B"},
                               {"index": 3, "url": "https://c.example/3"},
                               {"index": 4, "url": "https://d.example/4", "title": "D"}]});
        let p = parse(&body);
        assert_eq!(p.raw_answer, "1. **元构场**^[1][2]^：监测。\n2. 智谱营销^[3]^。再次^[1]^。");
        assert_eq!(p.queries, [Query { index: 1, query: None, internal: true, error: None }]);
        assert_eq!(
            ranks(&p),
            [
                (1, "https://a.example/1"),
                (2, "https://b.example/2"),
                (3, "https://c.example/3"),
                (4, "https://d.example/4")
            ]
        );
        assert!(p.raw_sources.iter().all(|s| s.query_index == 1 && s.page_age.is_none() && s.site_name.is_none()));
        assert_eq!(p.raw_sources[0].title, "A");
        let c = p.raw_citations.as_ref().unwrap();
        let c: Vec<(&str, Option<&str>)> = c.iter().map(|c| (c.url.as_str(), c.title.as_deref())).collect();
        assert_eq!(
            c,
            [("https://a.example/1", Some("A")), ("https://b.example/2", Some("B")), ("https://c.example/3", None)],
            "a marker in reasoning_content cites nothing"
        );
        assert_eq!(p.usage, usage(4200, 380, 10, 1));
        assert_eq!(
            (p.request_id.as_deref(), p.stop_reason.as_deref(), p.truncated),
            (Some("as-1"), Some("stop"), false)
        );
        assert_eq!(p.model, "ernie-4.5-turbo-128k");
    }

    #[test]
    fn markers_are_caret_bracket_runs() {
        assert_eq!(cited_indices("a^[2]^ b^[1][3]^ c^[2]^"), [2, 1, 3]);
        assert_eq!(cited_indices("^[1]^[2]^"), [1, 2], "a closing caret opens the next marker");
        assert_eq!(cited_indices("[1] [^2] ^[x]^ ^[]^ ^[3] ^[12345]^ 2^[10]^"), [10]);
        assert_eq!(cited_indices("^[1][2]x^ ^[4]^"), [4], "a run not closed by a caret is no marker");
        assert_eq!(cited_indices("末尾^[7]"), Vec::<u64>::new());
        assert_eq!(cited_indices("中文^[0]^标记^[28]^。"), [0, 28]);
    }

    #[test]
    fn a_marker_naming_no_result_cites_nothing_and_gaps_are_kept() {
        let body = json!({"choices": [{"message": {"content": "甲^[9]^乙^[4]^丙^[2]^丁^[7]^"}, "finish_reason": "stop"}],
            "search_results": [{"index": 2, "url": "https://a.example"}, {"index": 4, "url": ""},
                               {"index": 7, "url": "https://b.example", "title": "B"}, "junk",
                               {"index": "9", "url": "https://a.example", "title": "dup"}]});
        let p = parse(&body);
        assert_eq!(ranks(&p), [(2, "https://a.example"), (7, "https://b.example"), (9, "https://a.example")]);
        // One citation per marker number naming a result with a URL, with that number as its
        // index ([4] has no url): a sentence's sources are found by the number it names.
        assert_eq!(cited(&p), ["https://a.example", "https://a.example", "https://b.example"]);
        let indexes: Vec<Option<u32>> = p.raw_citations.as_ref().unwrap().iter().map(|c| c.index).collect();
        assert_eq!(indexes, [Some(9), Some(2), Some(7)]);
        assert_eq!(p.raw_citations.as_ref().unwrap()[0].title.as_deref(), Some("dup"));
    }

    #[test]
    fn indexes_from_zero_or_absent() {
        let zero = json!({"choices": [{"message": {"content": "x^[0]^"}}],
            "search_results": [{"index": 0, "url": "https://a.example"}, {"index": 1, "url": "https://b.example"}]});
        let p = parse(&zero);
        assert_eq!(ranks(&p), [(1, "https://a.example"), (2, "https://b.example")]);
        assert_eq!(cited(&p), ["https://a.example"]);
        let absent = json!({"choices": [{"message": {"content": "x^[2]^"}}],
            "search_results": [{"url": "https://a.example"}, {"index": null, "url": "https://b.example"}]});
        let p = parse(&absent);
        assert_eq!(ranks(&p), [(1, "https://a.example"), (2, "https://b.example")]);
        assert_eq!(cited(&p), ["https://b.example"]);
        let huge = json!({"choices": [{"message": {"content": ""}}],
            "search_results": [{"index": 0, "url": "https://a.example"}, {"index": u64::MAX, "url": "https://b.example"}]});
        assert_eq!(ranks(&parse(&huge)), [(1, "https://a.example"), (u32::MAX, "https://b.example")]);
    }

    #[test]
    fn site_names_are_kept_unless_blank_or_wu() {
        let body = json!({"choices": [{"message": {"content": ""}}],
            "search_results": [{"index": 1, "url": "https://a.example", "site_name": " 知乎 "},
                               {"index": 2, "url": "https://b.example", "site_name": "无", "website": "百家号"},
                               {"index": 3, "url": "https://c.example", "site_name": "", "web_anchor": "无"},
                               {"index": 4, "url": "https://d.example", "website": 5}]});
        let p = parse(&body);
        let names: Vec<Option<&str>> = p.raw_sources.iter().map(|s| s.site_name.as_deref()).collect();
        assert_eq!(names, [Some("知乎"), Some("百家号"), None, None]);
    }

    #[test]
    fn no_search_and_search_without_trace() {
        let none = json!({"id": "as-2", "choices": [{"message": {"content": "元构场是一家公司。"}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 30, "prompt_tokens_details": {"search_tokens": 0}, "completion_tokens": 9}});
        let p = parse(&none);
        assert_eq!((p.queries.len(), p.raw_sources.len(), p.raw_citations.clone()), (0, 0, Some(vec![])));
        assert_eq!(p.usage.web_search_requests, 0);
        let untraced = json!({"choices": [{"message": {"content": "未找到^[1]^"}}],
            "usage": {"prompt_tokens": 900, "prompt_tokens_details": {"search_tokens": 850}, "completion_tokens": 9}});
        let p = parse(&untraced);
        assert_eq!((p.queries.len(), p.raw_sources.len(), p.raw_citations.clone()), (1, 0, Some(vec![])));
        assert_eq!(p.usage.web_search_requests, 1);
    }

    #[test]
    fn lenient_shapes_and_invalid_bodies() {
        let odd = json!({"model": "", "id": 5,
            "choices": [{"message": {"content": [{"type": "text", "text": "a"}, {"text": "b"}]},
            "finish_reason": 3, "flag": "0"}], "usage": {"prompt_tokens": "x", "completion_tokens": -1},
            "search_results": {"index": 1}});
        let p = parse_response(&odd.to_string(), "ernie-x").unwrap();
        assert_eq!(
            (p.raw_answer.as_str(), p.model.as_str(), p.request_id, p.stop_reason),
            ("ab", "ernie-x", None, None)
        );
        assert_eq!((p.usage.input_tokens, p.usage.output_tokens, p.queries.len()), (0, 0, 0));
        let empty = parse(&json!({"choices": []}));
        assert_eq!((empty.raw_answer.as_str(), empty.raw_citations), ("", Some(vec![])));
        for bad in ["<html>502</html>", "[1]", r#"{"id":"as-1"}"#, r#"{"choices":{}}"#, ""] {
            assert_eq!(parse_response(bad, "m").unwrap_err().kind, ErrorKind::InvalidJson, "{bad}");
        }
        let cached = json!({"choices": [{"message": {"content": "x"}}],
            "usage": {"prompt_tokens": 5, "prompt_tokens_details": {"cached_tokens": 9}}});
        let p = parse(&cached);
        assert_eq!((p.usage.input_tokens, p.usage.cache_read_input_tokens), (0, 5));
    }

    #[test]
    fn length_is_truncated() {
        let body = json!({"choices": [{"message": {"content": "1. 元构场^[1]^\n2. 智"}, "finish_reason": "length"}],
            "search_results": [{"index": 1, "url": "https://a.example"}]});
        let p = parse(&body);
        assert!(p.truncated);
        assert_eq!(p.stop_reason.as_deref(), Some("length"));
    }

    #[test]
    fn the_content_filter_answering_at_200_is_a_refusal() {
        let cases = [
            json!({"choices": [{"message": {"content": "抱歉"}, "finish_reason": "content_filter", "flag": 0}]}),
            json!({"choices": [{"message": {"content": "**"}, "finish_reason": "stop", "flag": 2, "ban_round": -1}]}),
            json!({"choices": [{"message": {"content": ""}, "finish_reason": "stop", "flag": "1"}]}),
            json!({"flag": 3, "choices": [{"message": {"content": ""}}]}),
        ];
        for body in cases {
            let e = parse_response(&body.to_string(), "m").unwrap_err();
            assert_eq!((e.kind, e.http_status), (ErrorKind::Refused, Some(200)), "{body}");
            assert!(e.message.contains("ERNIE") || e.message.contains("ernie"), "{}", e.message);
        }
        let detail = json!({"choices": [{"message": {"content": ""}, "finish_reason": "content_filter", "flag": 2,
            "ban_round": -1}]});
        let e = parse_response(&detail.to_string(), "m").unwrap_err();
        assert!(
            e.message.contains("content_filter") && e.message.contains("flag 2") && e.message.contains("ban_round -1")
        );
        let safe =
            json!({"choices": [{"message": {"content": "ok"}, "finish_reason": "stop", "flag": 0, "ban_round": -1}]});
        assert_eq!(parse(&safe).raw_answer, "ok");
    }

    #[test]
    fn error_codes_win_over_the_status() {
        let kind = |status: u16, body: &str| map_engine_http_error(EngineId::Ernie, status, body).kind;
        let rows = [
            (401, fixture!("errors/401_invalid_iam_token"), ErrorKind::Auth),
            (401, fixture!("errors/401_invalid_model"), ErrorKind::Http),
            (400, fixture!("errors/400_invalid_argument"), ErrorKind::Http),
            (403, fixture!("errors/403_account_overdue"), ErrorKind::Balance),
            (429, fixture!("errors/429_rpm_rate_limit_exceeded"), ErrorKind::RateLimit),
            (400, r#"{"error":{"code":"tpm_rate_limit_exceeded","message":"x","type":"x"}}"#, ErrorKind::RateLimit),
            (401, r#"{"error":{"code":"coding_plan_api_key_not_allowed","message":"x"}}"#, ErrorKind::Forbidden),
            (400, r#"{"error":{"code":"content_filter","message":"x"}}"#, ErrorKind::Refused),
            (500, r#"{"error":{"code":"internal_error","message":"x"}}"#, ErrorKind::Server),
            (503, "<html>busy</html>", ErrorKind::Server),
        ];
        for (status, body, want) in rows {
            assert_eq!(kind(status, body), want, "{status} {body}");
        }
        assert_eq!(error_kind(0, "", &parse_error_body(r#"{"error":{"code":"nothing"}}"#)), None);
        let inside = map_envelope(
            ENGINE,
            error_kind,
            r#"{"error":{"code":"rpm_rate_limit_exceeded","type":"rate_limit_exceeded"},"id":"as-1"}"#,
        );
        assert_eq!((inside.kind, inside.http_status), (ErrorKind::RateLimit, None));
        let envelope =
            parse_response(r#"{"error":{"code":"account_overdue","type":"access_denied"},"id":"as-2"}"#, "m");
        assert_eq!(envelope.unwrap_err().kind, ErrorKind::Balance);
    }

    #[test]
    fn the_fixtures_hold_what_they_were_written_for() {
        let get = |body: &str| parse_response(body, "ernie-4.5-turbo-128k").unwrap();
        let p01 = get(fixture!("p01_zh_list_citations"));
        assert_eq!((p01.queries.len(), p01.raw_sources.len(), p01.usage.web_search_requests), (1, 6, 1));
        assert!(p01.raw_answer.contains("**元构场**^[1][2]^"));
        assert_eq!(
            cited(&p01),
            [
                "https://zhuanlan.zhihu.com/p/7301234567",
                "https://www.yuangouchang.com/solutions/geo",
                "https://zhipu-marketing.com/cases/appliance-geo",
                "https://geoboost.io/zh/",
                "https://www.36kr.com/p/3012345678901234"
            ]
        );
        let p03 = get(fixture!("p03_zh_index_gaps_empty_url"));
        assert_eq!(p03.raw_sources.iter().map(|s| s.rank).collect::<Vec<_>>(), [1, 4, 7]);
        // Two markers name results with the same URL: one citation each, by index.
        assert_eq!(cited(&p03), ["https://zhuanlan.zhihu.com/p/7301288888", "https://zhuanlan.zhihu.com/p/7301288888"]);
        let p08 = get(fixture!("p08_zh_no_search"));
        assert_eq!((p08.queries.len(), p08.raw_sources.len(), p08.raw_citations), (0, 0, Some(vec![])));
        let p09 = get(fixture!("p09_en_list"));
        assert_eq!(cited(&p09).len(), 4);
        let p10 = get(fixture!("p10_marker_without_result"));
        assert_eq!(cited(&p10).len(), 2, "[4] names no result");
        let p12 = get(fixture!("p12_empty_content"));
        assert_eq!((p12.raw_answer.as_str(), p12.raw_sources.len()), ("", 2));
        let p13 = get(fixture!("p13_search_without_trace"));
        assert_eq!((p13.queries.len(), p13.raw_sources.len(), p13.usage.web_search_requests), (1, 0, 1));
        let p14 = get(fixture!("p14_length_truncated"));
        assert!(p14.truncated);
        let p15 = get(fixture!("p15_preamble_only"));
        assert!(p15.raw_answer.starts_with("让我搜索一下"));
        for body in [fixture!("r01_content_filter"), fixture!("r02_flag_no_display")] {
            let e = parse_response(body, "m").unwrap_err();
            assert_eq!((e.kind, e.http_status), (ErrorKind::Refused, Some(200)));
        }
    }
}
