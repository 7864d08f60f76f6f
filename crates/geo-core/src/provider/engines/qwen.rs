//! Qwen through DashScope's native text generation (`/api/v1/services/aigc/text-generation/generation`):
//! the probe request body, the response parser and DashScope's own error codes (engines.md,
//! "Chinese engines"; shapes in `shared/reference/api-formats/engines/qwen_dashscope.md`).
//!
//! * The request asks for web search, forced, with its sources (`enable_source`) and
//!   `[ref_<number>]` citation markers; `enable_thinking` is sent explicitly (`false` unless the
//!   run asks for a reasoning effort), since some Qwen models think by default.
//! * The answer is `output.choices[0].message.content` as written, markers kept (a string, or
//!   the `text` of its parts; `output.text` for the legacy `result_format: "text"`);
//!   `reasoning_content` is not the answer. `finish_reason: "length"` marks the reply
//!   truncated; the streaming placeholder `"null"` is no finish reason.
//! * DashScope names no search query: one internal query stands for its search when the search
//!   ran, i.e. when the reply has `output.search_info` or a `usage.plugins.search` (neither is
//!   there when no search ran, also when the search rate limit silently skipped it).
//!   `webSearchRequests` is `usage.plugins.search.count` (the billed searches), else 1 when
//!   `search_info` alone says a search ran.
//! * Sources are `output.search_info.search_results[]` with a `url`: `rank` is the result's
//!   `index` as given (gaps kept; the position when the index is missing or not a positive
//!   whole number), `siteName` is `site_name` unless it is blank or 「无」. Results are kept as
//!   given, so the same page under two tracking parameters stays two sources.
//! * Citations are the results whose `index` a `[ref_n]` marker of the answer names, in order of
//!   first citation, once each (by index and by URL); a marker naming no result (`[ref_无]`, an
//!   index the list lacks) cites nothing, and no other bracket (`[1]`) is a marker.
//! * Usage: `input_tokens` without `prompt_tokens_details.cached_tokens` (kept apart), and
//!   `output_tokens`. The native body names no model: the requested one is recorded.
//! * A 2xx body without `output` that carries DashScope's flat `{"code","message"}` (or an
//!   `{"error":{…}}` envelope) is that error; a content-filter code there is a refusal at HTTP
//!   200. Error codes (`error_kind`): `Arrearage` (HTTP 400) is `balance`,
//!   `*DataInspectionFailed*` is `refused`, `Throttling*` (also the transient
//!   `Throttling.AllocationQuota`, "exceeded your current quota") is `rate_limit`,
//!   `InvalidApiKey` is `auth` (keys only work in their own region: the spec row's `auth_hint`).

use serde::Serialize;
use serde_json::{Map, Value};

use crate::model::{EngineId, ErrorKind, ProbeError, Query, RawSource, RunConfig, Usage};
use crate::provider::dialect::chat::{
    citations_by_rank, content_text, first_choice, index_of, probe_messages, Choice, Numbering, ProbeMessage, Take,
    LENGTH_FINISH,
};
use crate::provider::error::body::{parse_error_body, ProviderErrorBody};
use crate::provider::error::kind::{invalid_json, map_envelope, refused_error};
use crate::provider::parsed::ParsedResponse;
use crate::provider::read::{count, model_of, non_blank, str_field};
use crate::provider::spec::model_or_default;
use crate::provider::wire::Wire;

/// This engine.
const ENGINE: EngineId = EngineId::Qwen;

/// Qwen's wire format.
pub(crate) const WIRE: Wire = Wire::new(ENGINE, request_body_json, parse_response, error_kind);

/// The citation marker format asked for: `[ref_1]` (the default `[1]` collides with ordinary
/// bracketed numbers).
pub const CITATION_FORMAT: &str = "[ref_<number>]";

/// The native generation request, fields in the documented order.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GenerationRequest<'a> {
    /// Requested model.
    pub model: &'a str,
    /// `{"messages": [system, user]}`.
    pub input: Input<'a>,
    /// Output format, search, budget, thinking and temperature.
    pub parameters: Parameters,
}

/// `input`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Input<'a> {
    /// The system prompt, then the user prompt.
    pub messages: [ProbeMessage<'a>; 2],
}

/// `parameters`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Parameters {
    /// Always `message`: the OpenAI-like `choices[].message` shape.
    pub result_format: &'static str,
    /// Always `true`.
    pub enable_search: bool,
    /// Sources, citation markers and forced search.
    pub search_options: SearchOptions,
    /// Output token limit (the run's `maxTokens`).
    pub max_tokens: u32,
    /// `true` only when the run asks for a reasoning effort.
    pub enable_thinking: bool,
    /// The run's temperature (DashScope takes 0 to 2).
    pub temperature: f64,
}

/// `parameters.search_options`; no `search_strategy` (the default `turbo`) and no search limit.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SearchOptions {
    /// Return `output.search_info` (the sources).
    pub enable_source: bool,
    /// Write citation markers into the answer.
    pub enable_citation: bool,
    /// [`CITATION_FORMAT`].
    pub citation_format: &'static str,
    /// Search for every prompt, not only when the model decides to (English prompts may not
    /// trigger a search otherwise).
    pub forced_search: bool,
}

/// The probe request for `prompt_text` under `config`.
pub fn build_request<'a>(prompt_text: &'a str, config: &'a RunConfig) -> GenerationRequest<'a> {
    GenerationRequest {
        model: model_or_default(ENGINE, &config.model),
        input: Input { messages: probe_messages(prompt_text, config) },
        parameters: Parameters {
            result_format: "message",
            enable_search: true,
            search_options: SearchOptions {
                enable_source: true,
                enable_citation: true,
                citation_format: CITATION_FORMAT,
                forced_search: true,
            },
            max_tokens: config.max_tokens,
            enable_thinking: config.reasoning_effort.is_some(),
            temperature: config.temperature,
        },
    }
}

/// The request body as sent (a non-finite temperature becomes `null`).
pub fn request_body_json(prompt_text: &str, config: &RunConfig) -> String {
    serde_json::to_string(&build_request(prompt_text, config)).unwrap_or_default()
}

/// The indexes named by the `[ref_n]` markers of `answer` (1 to 4 digits), in order of first
/// appearance, once each ([`crate::analysis::markers::ref_numbers`]).
pub fn cited_indexes(answer: &str) -> Vec<u32> {
    crate::analysis::markers::ref_numbers(answer)
}

/// `site_name` unless blank or 「无」 ("none").
fn site_name(v: Option<&str>) -> Option<String> {
    non_blank(v).filter(|s| *s != "无").map(str::to_string)
}

/// The sources of `search_results`: every entry with a url, query 1, rank = its `index`.
fn sources_of(results: &[Value]) -> Vec<RawSource> {
    let mut list = Vec::with_capacity(results.len());
    for (position, r) in results.iter().enumerate() {
        let Some(r) = r.as_object() else { continue };
        let Some(url) = non_blank(str_field(r, "url")) else { continue };
        let fallback = u32::try_from(position + 1).unwrap_or(u32::MAX);
        list.push(RawSource {
            query_index: 1,
            rank: index_of(r.get("index"), Numbering::FromOne).and_then(|n| u32::try_from(n).ok()).unwrap_or(fallback),
            title: str_field(r, "title").unwrap_or("").trim().to_string(),
            url: url.to_string(),
            page_age: None,
            site_name: site_name(str_field(r, "site_name")),
        });
    }
    list
}

/// A finish reason, unless blank or the streaming placeholder `"null"`.
fn finish_of(v: Option<&str>) -> Option<&str> {
    non_blank(v).filter(|f| *f != "null")
}

/// The answer and finish reason of `output`: its first choice, else the legacy `text`
/// (`None`: neither is there).
fn answer_of(output: &Map<String, Value>) -> Option<(String, Option<&str>)> {
    if let Some(Value::Array(choices)) = output.get("choices") {
        let Choice { message, finish, .. } = first_choice(choices);
        let text = content_text(message.and_then(|m| m.get("content")));
        return Some((text, finish.filter(|f| *f != "null")));
    }
    let text = str_field(output, "text")?;
    Some((text.to_string(), finish_of(str_field(output, "finish_reason"))))
}

/// An error body that came with a 2xx status: a content-filter code is a refusal at HTTP 200,
/// anything else the mapped DashScope error.
fn envelope_error(body: &str) -> ProbeError {
    let parsed = parse_error_body(body);
    if error_kind(0, body, &parsed) == Some(ErrorKind::Refused) {
        let detail: Vec<&str> = [parsed.code.as_deref(), parsed.message.as_deref()].into_iter().flatten().collect();
        return refused_error(ENGINE, Some(200), &detail.join(": "));
    }
    map_envelope(ENGINE, error_kind, body)
}

/// `body` as a JSON object with an `output` object, else the `invalid_json` error or, for a
/// flat `{"code"}` or `{"error":{…}}` body, the error it carries.
fn response_body(body: &str) -> Result<Map<String, Value>, ProbeError> {
    let invalid = |d: &str| invalid_json(ENGINE, d);
    let value: Value = serde_json::from_str(body).map_err(|e| invalid(&format!("not json: {e}")))?;
    let Value::Object(obj) = value else { return Err(invalid("the body is not a json object")) };
    if obj.get("output").is_some_and(Value::is_object) {
        return Ok(obj);
    }
    if non_blank(str_field(&obj, "code")).is_some() || obj.get("error").is_some_and(Value::is_object) {
        return Err(envelope_error(body));
    }
    Err(invalid("the body has no output object"))
}

/// Parses the body of a successful native generation call (see the module documentation).
///
/// Errors: not JSON, not an object, or no `output` with `choices` (or `text`) →
/// `invalid_json`; a DashScope error body → the mapped error (`refused` at HTTP 200 for a
/// content-filter code).
pub fn parse_response(body: &str, requested_model: &str) -> Result<ParsedResponse, ProbeError> {
    let obj = response_body(body)?;
    let invalid = |d: &str| invalid_json(ENGINE, d);
    let Some(output) = obj.get("output").and_then(Value::as_object) else { return Err(invalid("no output object")) };
    let Some((answer, finish)) = answer_of(output) else {
        return Err(invalid("the output has no choices array"));
    };

    let search_info = output.get("search_info").and_then(Value::as_object);
    let results = search_info.and_then(|s| s.get("search_results")).and_then(Value::as_array);
    let sources = sources_of(results.map_or(&[][..], |r| &r[..]));
    let raw_citations = citations_by_rank(&cited_indexes(&answer), &sources, Take::First);

    let usage = obj.get("usage").and_then(Value::as_object);
    let plugin = usage.and_then(|u| u.get("plugins")).and_then(|p| p.get("search")).filter(|s| !s.is_null());
    let searches = match plugin.and_then(|s| s.get("count")) {
        Some(n @ Value::Number(_)) => count(Some(n)),
        _ => u64::from(plugin.is_some() || search_info.is_some()),
    };
    let searched = search_info.is_some() || searches > 0;
    let queries = if searched { vec![Query { index: 1, query: None, internal: true, error: None }] } else { vec![] };

    let input = count(usage.and_then(|u| u.get("input_tokens")));
    let cached = count(usage.and_then(|u| u.get("prompt_tokens_details")).and_then(|d| d.get("cached_tokens")));
    let request_id = non_blank(str_field(&obj, "request_id")).or_else(|| non_blank(str_field(&obj, "id")));
    Ok(ParsedResponse {
        usage: Usage {
            // DashScope counts cached tokens inside input_tokens; the snapshot keeps them apart.
            input_tokens: input.saturating_sub(cached),
            output_tokens: count(usage.and_then(|u| u.get("output_tokens"))),
            cache_read_input_tokens: cached.min(input),
            web_search_requests: searches,
            search_context_size: None,
        },
        raw_answer: answer,
        queries,
        raw_sources: sources,
        raw_citations: Some(raw_citations),
        request_id: request_id.map(str::to_string),
        truncated: finish == Some(LENGTH_FINISH),
        stop_reason: finish.map(str::to_string),
        model: model_of(&obj, requested_model),
        cost_usd: None,
        content: None,
    })
}

/// The key test's body (the table's `key_test_body`): DashScope's native shape, one output token, no thinking.
pub(crate) const KEY_TEST_BODY: &str = r#"{"input":{"messages":[{"content":{prompt},"role":"user"}]},"model":{model},"parameters":{"enable_thinking":false,"max_tokens":1,"result_format":"message"}}"#;

/// The kind a DashScope error code (native `code`, compatible-mode `error.code`/`error.type`)
/// names whatever the status, `None` for the codes the status decides.
fn kind_of_code(code: &str, status: u16) -> Option<ErrorKind> {
    let lower = code.trim().to_ascii_lowercase();
    let server = ["internalerror", "internalerror.algo", "modelservingerror", "modelunavailable", "requesttimeout"];
    if lower.contains("datainspectionfailed") || lower.contains("data_inspection_failed") {
        Some(ErrorKind::Refused)
    } else if lower == "arrearage" {
        Some(ErrorKind::Balance)
    } else if lower == "invalidapikey" || lower == "invalid_api_key" {
        Some(ErrorKind::Auth)
    } else if lower.starts_with("throttling") || lower == "insufficient_quota" {
        // `Throttling.AllocationQuota` (compatible mode: `insufficient_quota`) is a transient
        // token-per-minute limit, not billing.
        Some(ErrorKind::RateLimit)
    } else if lower.starts_with("accessdenied") || lower == "allocationquota.freetieronly" {
        Some(ErrorKind::Forbidden)
    } else if server.contains(&lower.as_str()) && !(400..500).contains(&status) {
        // `InternalError.Algo.InvalidParameter` and the like come with 400: the status decides.
        Some(ErrorKind::Server)
    } else {
        None
    }
}

/// DashScope's own error rules, before the status table (qwen_dashscope.md, "Errors"; `status`
/// is 0 for an error body inside a 2xx): the code decides (`Arrearage` at 400 → balance,
/// `*DataInspectionFailed*` → refused, `Throttling*` → rate limit …), else a message about
/// inappropriate content is a refusal; `None` leaves the kind to the status.
fn error_kind(status: u16, _body: &str, parsed: &ProviderErrorBody) -> Option<ErrorKind> {
    let names = [parsed.code.as_deref(), parsed.error_type.as_deref()];
    if let Some(kind) = names.into_iter().flatten().find_map(|c| kind_of_code(c, status)) {
        return Some(kind);
    }
    let message = parsed.message.as_deref().unwrap_or("");
    (message.contains("DataInspectionFailed") || message.to_ascii_lowercase().contains("inappropriate content"))
        .then_some(ErrorKind::Refused)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builders::usage;
    use crate::model::ReasoningEffort;
    use crate::provider::map_engine_http_error;
    use crate::provider::spec::{spec, SYSTEM_PROMPT};
    use serde_json::json;

    fn parse(v: Value) -> ParsedResponse {
        parse_response(&v.to_string(), "qwen-plus").unwrap()
    }

    fn reply(content: &str, results: Value) -> Value {
        json!({"output": {"choices": [{"message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
                          "search_info": {"extra_tool_info": [], "search_results": results}},
               "usage": {"input_tokens": 2334, "output_tokens": 280, "total_tokens": 2614,
                         "plugins": {"search": {"count": 1}}, "prompt_tokens_details": {"cached_tokens": 34}},
               "request_id": "9fe63fe8-d274-4e6b-9249-5783449dc27a"})
    }

    fn result(index: Value, site: &str, title: &str, url: &str) -> Value {
        json!({"icon": "", "site_name": site, "index": index, "title": title, "url": url})
    }

    #[test]
    fn body_has_the_documented_shape() {
        let config = RunConfig {
            engine: EngineId::Qwen,
            model: "qwen3-max".into(),
            max_tokens: 3000,
            temperature: 0.7,
            ..RunConfig::default()
        };
        let body = request_body_json("元构场是什么？", &config);
        let v: Value = serde_json::from_str(&body).unwrap();
        assert_eq!(
            v,
            json!({"model": "qwen3-max",
                "input": {"messages": [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": "元构场是什么？"}]},
                "parameters": {"result_format": "message", "enable_search": true,
                    "search_options": {"enable_source": true, "enable_citation": true,
                        "citation_format": "[ref_<number>]", "forced_search": true},
                    "max_tokens": 3000, "enable_thinking": false, "temperature": 0.7}})
        );
        // Documented field order.
        let at = |k: &str| body.find(&format!("\"{k}\"")).unwrap();
        assert!(at("model") < at("input") && at("input") < at("parameters"));
        assert!(at("result_format") < at("enable_search") && at("search_options") < at("max_tokens"));
        assert!(at("max_tokens") < at("enable_thinking") && at("enable_thinking") < at("temperature"));
        // The default model, and thinking when the run asks for an effort.
        let thinking = RunConfig {
            engine: EngineId::Qwen,
            model: String::new(),
            reasoning_effort: Some(ReasoningEffort::High),
            ..RunConfig::default()
        };
        let v: Value = serde_json::from_str(&request_body_json("q", &thinking)).unwrap();
        assert_eq!(v["model"], "qwen-plus");
        assert_eq!(v["parameters"]["enable_thinking"], true);
        let nan = RunConfig { temperature: f64::NAN, ..thinking };
        let v: Value = serde_json::from_str(&request_body_json("q", &nan)).unwrap();
        assert!(v["parameters"]["temperature"].is_null());
    }

    #[test]
    fn sources_keep_index_site_name_and_duplicates() {
        let results = json!([
            result(json!(1), "知乎", "2026年GEO服务商盘点", "https://zhuanlan.zhihu.com/p/1"),
            result(json!(3), "", "元构场官网", "https://www.yuangouchang.com/"),
            result(json!(4), "无", "天气", "http://uc.src.weather.com.cn/x"),
            result(json!(5), "新浪网", " 同一页 ", "https://finance.sina.com.cn/a.shtml?loc=7"),
            result(json!(6), "新浪网", "同一页", "https://finance.sina.com.cn/a.shtml?loc=9"),
            result(json!(7), "厦门时空科技有限公司", "ip", " "),
            json!("not an object"),
            json!({"url": "https://noindex.example", "index": "x"}),
            json!({"url": "https://zero.example", "index": 0, "site_name": "  "}),
            json!({"url": "https://str.example", "index": "12", "site_name": 3}),
            json!({"url": "https://float.example", "index": 13.0}),
        ]);
        let p = parse(reply("答案", results));
        let s: Vec<(u32, u32, &str, &str, Option<&str>)> = p
            .raw_sources
            .iter()
            .map(|s| (s.query_index, s.rank, s.url.as_str(), s.title.as_str(), s.site_name.as_deref()))
            .collect();
        assert_eq!(
            s,
            [
                (1, 1, "https://zhuanlan.zhihu.com/p/1", "2026年GEO服务商盘点", Some("知乎")),
                (1, 3, "https://www.yuangouchang.com/", "元构场官网", None),
                (1, 4, "http://uc.src.weather.com.cn/x", "天气", None),
                (1, 5, "https://finance.sina.com.cn/a.shtml?loc=7", "同一页", Some("新浪网")),
                (1, 6, "https://finance.sina.com.cn/a.shtml?loc=9", "同一页", Some("新浪网")),
                (1, 8, "https://noindex.example", "", None),
                (1, 9, "https://zero.example", "", None),
                (1, 12, "https://str.example", "", None),
                (1, 13, "https://float.example", "", None),
            ]
        );
        assert!(p.raw_sources.iter().all(|s| s.page_age.is_none()));
        assert_eq!(p.queries, [Query { index: 1, query: None, internal: true, error: None }]);
        assert_eq!(p.usage, usage(2300, 280, 34, 1));
        assert_eq!(p.request_id.as_deref(), Some("9fe63fe8-d274-4e6b-9249-5783449dc27a"));
        assert_eq!((p.stop_reason.as_deref(), p.truncated, p.model.as_str()), (Some("stop"), false, "qwen-plus"));
        assert_eq!(p.raw_citations, Some(vec![]));
    }

    #[test]
    fn only_ref_markers_naming_a_result_cite() {
        assert_eq!(
            cited_indexes("a[ref_1][ref_5] b [ref_3]。[ref_1] [ref_无] [1] [ref_] [ref_12345] [ref_2"),
            [1, 5, 3]
        );
        assert_eq!(cited_indexes("[ref_[ref_7]] [REF_8] [ref_ 9] [ref_0010]"), [7, 10]);
        assert!(cited_indexes("").is_empty());
        let results = json!([
            result(json!(1), "知乎", "盘点", "https://zhuanlan.zhihu.com/p/1"),
            result(json!(3), "", "", "https://www.yuangouchang.com/"),
            result(json!(4), "", "重复", "https://www.yuangouchang.com/"),
            result(json!(5), "", "GEOBoost", "https://geoboost.io/zh/"),
        ]);
        let answer =
            "1. **元构场**[ref_3][ref_4]；2. GEOBoost [ref_5]；见[ref_2][ref_无][ref_9]与[1]，再次[ref_3][ref_1]。";
        let p = parse(reply(answer, results));
        assert_eq!(p.raw_answer, answer, "markers are kept verbatim");
        let c: Vec<(&str, Option<&str>)> =
            p.raw_citations.as_ref().unwrap().iter().map(|c| (c.url.as_str(), c.title.as_deref())).collect();
        assert_eq!(
            c,
            [
                ("https://www.yuangouchang.com/", None),
                ("https://www.yuangouchang.com/", Some("重复")),
                ("https://geoboost.io/zh/", Some("GEOBoost")),
                ("https://zhuanlan.zhihu.com/p/1", Some("盘点"))
            ],
            "one citation per marker number naming a result (its index), a URL under two numbers twice"
        );
        assert!(p.raw_citations.unwrap().iter().all(|c| c.cited_text.is_none()));
        // A marker that names no result, with no results at all.
        let p = parse(reply("只有[ref_1]和[ref_无]", json!([])));
        assert_eq!((p.raw_sources.len(), p.raw_citations, p.queries.len()), (0, Some(vec![]), 1));
    }

    #[test]
    fn no_search_info_and_no_plugins_means_no_search() {
        let body = json!({"output": {"choices": [{"message": {"role": "assistant", "content": "元构场是一家GEO公司。"},
                "finish_reason": "stop"}]},
            "usage": {"input_tokens": 40, "output_tokens": 12, "total_tokens": 52}, "request_id": "r-1"});
        let p = parse(body);
        assert_eq!((p.queries.len(), p.raw_sources.len(), p.usage.web_search_requests), (0, 0, 0));
        assert_eq!(p.raw_citations, Some(vec![]));
        // `plugins.search` without `search_info` (enable_source off): a billed search, no sources.
        let body = json!({"output": {"choices": [{"message": {"content": "x[ref_1]"}, "finish_reason": "stop"}]},
            "usage": {"input_tokens": 900, "output_tokens": 20, "plugins": {"search": {"count": 1, "strategy": "turbo"}}}});
        let p = parse(body);
        assert_eq!((p.queries.len(), p.raw_sources.len(), p.usage.web_search_requests), (1, 0, 1));
        assert_eq!(p.raw_citations, Some(vec![]));
        // `search_info` without plugins: one search; plugins with count 2 and null search.
        let p = parse(json!({"output": {"choices": [{"message": {"content": "x"}}],
            "search_info": {"search_results": []}}}));
        assert_eq!((p.queries.len(), p.usage.web_search_requests), (1, 1));
        let p = parse(json!({"output": {"choices": [{"message": {"content": "x"}}], "search_info": null},
            "usage": {"plugins": {"search": null}}}));
        assert_eq!((p.queries.len(), p.usage.web_search_requests), (0, 0));
        let p = parse(json!({"output": {"choices": [{"message": {"content": "x"}}]},
            "usage": {"plugins": {"search": {"count": 2}}}}));
        assert_eq!((p.queries.len(), p.usage.web_search_requests), (1, 2));
        let p = parse(json!({"output": {"choices": [{"message": {"content": "x"}}]},
            "usage": {"plugins": {"search": {"count": 0}}}}));
        assert_eq!((p.queries.len(), p.usage.web_search_requests), (0, 0));
    }

    #[test]
    fn answer_shapes_finish_reasons_and_truncation() {
        let p = parse(
            json!({"output": {"choices": [{"message": {"content": "1. 元构场", "reasoning_content": "想想[ref_1]"},
            "finish_reason": "length"}], "search_info": {"search_results": [{"index": 1, "url": "https://a.example"}]}},
            "model": "qwen-plus-2025-07-28", "id": "chatcmpl-1"}),
        );
        assert_eq!((p.raw_answer.as_str(), p.truncated, p.stop_reason.as_deref()), ("1. 元构场", true, Some("length")));
        assert_eq!((p.model.as_str(), p.request_id.as_deref()), ("qwen-plus-2025-07-28", Some("chatcmpl-1")));
        assert_eq!(p.raw_citations, Some(vec![]), "a marker in the reasoning cites nothing");
        let p = parse(
            json!({"output": {"choices": [{"message": {"content": [{"text": "a"}, {"image": "x"}, {"text": "b"}]},
            "finish_reason": "null"}]}}),
        );
        assert_eq!((p.raw_answer.as_str(), p.stop_reason, p.truncated), ("ab", None, false));
        let p = parse(json!({"output": {"text": "旧格式", "finish_reason": "stop"}, "usage": {"input_tokens": "x"}}));
        assert_eq!(
            (p.raw_answer.as_str(), p.stop_reason.as_deref(), p.usage.input_tokens),
            ("旧格式", Some("stop"), 0)
        );
        let p = parse(json!({"output": {"choices": []}}));
        assert_eq!((p.raw_answer.as_str(), p.request_id), ("", None));
        let p = parse(json!({"output": {"choices": [{"message": {"content": ""}, "finish_reason": "stop"}]}}));
        assert_eq!(p.raw_answer, "");
        let p = parse(json!({"output": {"choices": [1, 2]}, "usage": {"prompt_tokens_details": {"cached_tokens": 9}}}));
        assert_eq!((p.usage.input_tokens, p.usage.cache_read_input_tokens), (0, 0));
    }

    #[test]
    fn bodies_that_are_not_a_reply() {
        for body in ["<html>502</html>", "[]", "\"x\"", "{}", r#"{"output": {}}"#, r#"{"output": []}"#, ""] {
            let e = parse_response(body, "qwen-plus").unwrap_err();
            assert_eq!(e.kind, ErrorKind::InvalidJson, "{body}");
            assert!(e.message.contains("qwen"), "{}", e.message);
        }
        let e = parse_response(
            r#"{"code":"Throttling.RateQuota","message":"Requests rate limit exceeded","request_id":"r"}"#,
            "m",
        )
        .unwrap_err();
        assert_eq!((e.kind, e.http_status), (ErrorKind::RateLimit, None));
        let e = parse_response(r#"{"code":"InvalidParameter","message":"bad"}"#, "m").unwrap_err();
        assert_eq!(e.kind, ErrorKind::Http);
        let e = parse_response(
            r#"{"request_id":"d7672fe9","code":"DataInspectionFailed","message":"Input data may contain inappropriate content."}"#,
            "m",
        )
        .unwrap_err();
        assert_eq!((e.kind, e.http_status), (ErrorKind::Refused, Some(200)));
        assert!(e.message.contains("DataInspectionFailed: Input data may contain"), "{}", e.message);
        let e = parse_response(
            r#"{"error":{"code":"data_inspection_failed","type":"data_inspection_failed","message":"m"}}"#,
            "m",
        )
        .unwrap_err();
        assert_eq!((e.kind, e.http_status), (ErrorKind::Refused, Some(200)));
        let e = parse_response(r#"{"error":{"code":"Arrearage","type":"Arrearage","message":"Access denied"}}"#, "m")
            .unwrap_err();
        assert_eq!(e.kind, ErrorKind::Balance);
    }

    #[track_caller]
    fn kind(status: u16, body: &str) -> ErrorKind {
        let e = map_engine_http_error(EngineId::Qwen, status, body);
        assert_eq!(e.http_status, Some(status));
        e.kind
    }

    #[test]
    fn error_codes_win_over_the_status() {
        let flat = |code: &str, m: &str| format!(r#"{{"request_id":"r","code":"{code}","message":"{m}"}}"#);
        assert_eq!(kind(401, &flat("InvalidApiKey", "Invalid API-key provided.")), ErrorKind::Auth);
        assert_eq!(kind(400, &flat("InvalidApiKey", "x")), ErrorKind::Auth);
        assert_eq!(
            kind(400, &flat("Arrearage", "Access denied, please make sure your account is in good standing.")),
            ErrorKind::Balance
        );
        let compat_arrearage = r#"{"error":{"code":"Arrearage","param":null,"message":"Access denied, please make sure your account is in good standing.","type":"Arrearage"},"id":"chatcmpl-f9fdb027","request_id":"f9fdb027"}"#;
        assert_eq!(kind(400, compat_arrearage), ErrorKind::Balance);
        assert_eq!(
            kind(400, &flat("DataInspectionFailed", "Input data may contain inappropriate content.")),
            ErrorKind::Refused
        );
        assert_eq!(
            kind(
                400,
                &flat("InternalError.Algo.DataInspectionFailed", "Input text data may contain inappropriate content.")
            ),
            ErrorKind::Refused
        );
        let compat_filter = r#"{"error":{"message":"Input data may contain inappropriate content. For details, see: https://help.aliyun.com/zh/model-studio/error-code#inappropriate-content","type":"data_inspection_failed","param":null,"code":"data_inspection_failed"},"id":"chatcmpl-c2b25c93","request_id":"c2b25c93"}"#;
        assert_eq!(kind(400, compat_filter), ErrorKind::Refused);
        assert_eq!(kind(400, r#"{"message":"Output data may contain inappropriate content."}"#), ErrorKind::Refused);
        assert_eq!(
            kind(429, &flat("Throttling.AllocationQuota", "You exceeded your current quota")),
            ErrorKind::RateLimit
        );
        assert_eq!(
            kind(
                429,
                r#"{"error":{"code":"insufficient_quota","type":"insufficient_quota","message":"You exceeded your current quota"}}"#
            ),
            ErrorKind::RateLimit
        );
        assert_eq!(kind(400, &flat("Throttling.RateQuota", "Requests rate limit exceeded")), ErrorKind::RateLimit);
        assert_eq!(kind(403, &flat("AccessDenied.Unpurchased", "x")), ErrorKind::Forbidden);
        assert_eq!(kind(403, &flat("AllocationQuota.FreeTierOnly", "x")), ErrorKind::Forbidden);
        assert_eq!(kind(500, &flat("InternalError", "x")), ErrorKind::Server);
        assert_eq!(kind(503, &flat("ModelUnavailable", "x")), ErrorKind::Server);
        assert_eq!(kind(400, &flat("InternalError.Algo.InvalidParameter", "Range of input length")), ErrorKind::Http);
        assert_eq!(kind(400, &flat("InternalError", "x")), ErrorKind::Http);
        assert_eq!(kind(400, &flat("InvalidParameter", "x")), ErrorKind::Http);
        assert_eq!(kind(404, &flat("ModelNotFound", "x")), ErrorKind::Http);
        assert_eq!(kind(401, "Unauthorized"), ErrorKind::Auth);
        assert_eq!(kind(502, "<html><title>502 Bad Gateway</title></html>"), ErrorKind::Server);
        // The rules themselves.
        let body = |code: Option<&str>, t: Option<&str>, m: Option<&str>| ProviderErrorBody {
            code: code.map(str::to_string),
            error_type: t.map(str::to_string),
            message: m.map(str::to_string),
        };
        assert_eq!(error_kind(0, "", &body(None, Some("Arrearage"), None)), Some(ErrorKind::Balance));
        assert_eq!(error_kind(0, "", &body(Some("RequestTimeOut"), None, None)), Some(ErrorKind::Server));
        assert_eq!(error_kind(400, "", &body(Some("InvalidParameter"), None, Some("bad"))), None);
        assert_eq!(error_kind(400, "", &body(None, None, None)), None);
    }

    macro_rules! fixture {
        ($name:literal) => {
            parse_response(include_str!(concat!("../../../../../fixtures/engines/qwen/", $name, ".json")), "qwen-plus")
        };
    }

    #[test]
    fn fixtures_parse_as_described() {
        let p = fixture!("p01_zh_list_ref_citations").unwrap();
        assert!(p.raw_answer.starts_with("根据公开资料") && p.raw_answer.contains("**元构场**[ref_2]"));
        let ranks: Vec<u32> = p.raw_sources.iter().map(|s| s.rank).collect();
        assert_eq!(ranks, [1, 2, 3, 5, 6, 7, 8], "index 4 is missing and stays missing");
        let sites: Vec<Option<&str>> = p.raw_sources.iter().map(|s| s.site_name.as_deref()).collect();
        assert_eq!(sites[..3], [Some("知乎"), None, None]);
        let cited: Vec<&str> = p.raw_citations.as_ref().unwrap().iter().map(|c| c.url.as_str()).collect();
        assert_eq!(
            cited,
            [
                "https://www.yuangouchang.com/solutions/geo",
                "https://zhuanlan.zhihu.com/p/1973012345678901234",
                "https://zhipu-marketing.com/cases/appliance-geo",
                "https://finance.sina.com.cn/tech/2026-10-15/doc-infgeo1234567.shtml?cre=tianyi&mod=pchp&loc=9&r=0",
                "https://geoboost.io/zh/",
                "https://finance.sina.com.cn/tech/2026-10-15/doc-infgeo1234567.shtml?cre=tianyi&mod=pchp&loc=7&r=0",
            ],
            "[ref_9] names no result"
        );
        assert_eq!((p.queries.len(), p.usage.web_search_requests, p.model.as_str()), (1, 1, "qwen-plus"));
        let p = fixture!("p08_zh_no_search").unwrap();
        assert_eq!((p.queries.len(), p.raw_sources.len(), p.raw_citations), (0, 0, Some(vec![])));
        let p = fixture!("p13_zh_search_skipped").unwrap();
        assert_eq!((p.queries.len(), p.usage.web_search_requests), (0, 0));
        let p = fixture!("p09_en_list_ref_citations").unwrap();
        assert_eq!(
            (p.raw_citations.unwrap().len(), p.usage.cache_read_input_tokens, p.usage.input_tokens),
            (4, 256, 2480)
        );
        let p = fixture!("p10_marker_naming_no_result").unwrap();
        let cited: Vec<&str> = p.raw_citations.as_ref().unwrap().iter().map(|c| c.url.as_str()).collect();
        assert_eq!(cited, ["https://www.cnblogs.com/geo-notes/p/18812345", "https://www.yuangouchang.cn/services"]);
        assert_eq!(p.raw_sources[1].site_name, None);
        let p = fixture!("p03_length_truncated").unwrap();
        assert_eq!((p.truncated, p.stop_reason.as_deref()), (true, Some("length")));
        assert_eq!(fixture!("p12_empty_content").unwrap().raw_answer, "");
        let p = fixture!("p15_preamble_only").unwrap();
        assert_eq!((p.raw_answer.as_str(), p.raw_sources.len()), ("让我搜索一下目前有哪些免费的GEO监测工具。", 1));
    }

    #[test]
    fn error_fixtures_map_to_their_kinds() {
        macro_rules! error_fixture {
            ($status:literal, $name:literal) => {
                kind($status, include_str!(concat!("../../../../../fixtures/engines/qwen/errors/", $name, ".json")))
            };
        }
        assert_eq!(error_fixture!(400, "400_arrearage"), ErrorKind::Balance);
        assert_eq!(error_fixture!(400, "400_arrearage_compatible"), ErrorKind::Balance);
        assert_eq!(error_fixture!(400, "400_data_inspection_failed"), ErrorKind::Refused);
        assert_eq!(error_fixture!(400, "400_data_inspection_failed_compatible"), ErrorKind::Refused);
        assert_eq!(error_fixture!(400, "400_internal_error_algo_data_inspection_failed"), ErrorKind::Refused);
        assert_eq!(error_fixture!(401, "401_invalid_api_key"), ErrorKind::Auth);
        assert_eq!(error_fixture!(429, "429_throttling_allocation_quota"), ErrorKind::RateLimit);
        assert_eq!(error_fixture!(429, "429_throttling_rate_quota"), ErrorKind::RateLimit);
        assert_eq!(error_fixture!(500, "500_internal_error"), ErrorKind::Server);
    }

    #[test]
    fn region_hints_name_both_hosts() {
        let hint = spec(ENGINE).auth_hint.unwrap();
        for hint in [hint.en, hint.zh] {
            assert!(
                hint.contains("https://dashscope.aliyuncs.com") && hint.contains("https://dashscope-intl.aliyuncs.com")
            );
        }
    }
}
