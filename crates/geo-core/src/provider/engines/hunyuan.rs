//! Tencent Hunyuan's OpenAI-compatible `chat/completions` with search enhancement: the probe
//! request body, the response parser and Hunyuan's error codes (engines.md, "Chinese
//! engines"; shapes in `shared/reference/api-formats/engines/hunyuan.md`).
//!
//! * The request switches search on and forces it (`enable_enhancement`,
//!   `force_search_enhancement`), asks for the sources (`search_info`) and the citation marks
//!   (`citation`); the output budget is `max_tokens`; no search limit exists.
//! * The answer is `choices[0].message.content` (a string, or OpenAI-style text parts), its
//!   citation markers kept as written.
//! * Sources are the top-level `search_info.search_results[]` (`index`, `title`, `url`, and the
//!   site name in `text`): `rank` is the `index` as given (gaps kept; the 1-based position when
//!   the index is missing or not a positive integer), `siteName` the `text` unless it is blank
//!   or 「无」, results without a URL are skipped. Hunyuan names no query: one internal query
//!   stands for its search when there are sources, and `webSearchRequests` is 1 then.
//! * Citations: every `[n]` (1–3 digits) or `[^n]` marker of the answer names the sources whose
//!   rank is n, in order of first citation, each URL once; a marker naming no source cites
//!   nothing. The marker format is not documented, so both forms are read.
//! * `finish_reason: "sensitive"` is a content-filter refusal (`refused`, HTTP 200);
//!   `finish_reason: "length"` marks the reply truncated.
//! * Errors: an OpenAI-style `{"error":{…}}` envelope or a Tencent Cloud API 3.0
//!   `{"Response":{"Error":{"Code","Message"}}}` envelope inside a 2xx is mapped like an error
//!   body; `error_kind` reads Hunyuan's error codes (tencentcloud-sdk-go `hunyuan/v20230901/errors.go`).
//!   Hunyuan's compatible endpoint documents no error body, so every rule is lenient.

use serde::Serialize;
use serde_json::{Map, Value};

use crate::model::{EngineId, ErrorKind, ProbeError, Query, RawSource, RunConfig};
use crate::provider::dialect::chat::{
    self, citations_by_rank, content_text, first_choice, index_of, probe_messages, Choice, Numbering, ProbeMessage,
    Take, LENGTH_FINISH,
};
use crate::provider::error::body::ProviderErrorBody;
use crate::provider::error::kind::{invalid_json, map_envelope, refused_error, reply_object};
use crate::provider::parsed::ParsedResponse;
use crate::provider::read::{model_of, non_blank, str_field};
use crate::provider::spec::model_or_default;
use crate::provider::wire::Wire;

/// This engine.
const ENGINE: EngineId = EngineId::Hunyuan;

/// Hunyuan's wire format.
pub(crate) const WIRE: Wire = Wire::new(ENGINE, request_body_json, parse_response, error_kind);

/// `finish_reason` of a reply the content filter stopped.
pub const SENSITIVE_FINISH: &str = "sensitive";

/// The chat completions request body, fields in the documented order.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ChatRequest<'a> {
    /// Requested model.
    pub model: &'a str,
    /// The system prompt, then the user prompt.
    pub messages: [ProbeMessage<'a>; 2],
    /// Sampling temperature (Hunyuan accepts 0–2).
    pub temperature: f64,
    /// Search enhancement on (Hunyuan's default, sent anyway).
    pub enable_enhancement: bool,
    /// Search forced on every prompt.
    pub force_search_enhancement: bool,
    /// Return the sources in `search_info`.
    pub search_info: bool,
    /// Write citation marks into the answer.
    pub citation: bool,
    /// Output token limit.
    pub max_tokens: u32,
    /// One JSON reply, not a stream.
    pub stream: bool,
}

/// The probe request for `prompt_text` under `config` (search forced, no search limit).
pub fn build_request<'a>(prompt_text: &'a str, config: &'a RunConfig) -> ChatRequest<'a> {
    ChatRequest {
        model: model_or_default(ENGINE, &config.model),
        messages: probe_messages(prompt_text, config),
        temperature: config.temperature,
        enable_enhancement: true,
        force_search_enhancement: true,
        search_info: true,
        citation: true,
        max_tokens: config.max_tokens,
        stream: false,
    }
}

/// The request body as sent.
pub fn request_body_json(prompt_text: &str, config: &RunConfig) -> String {
    // Plain strings, booleans and numbers cannot fail to serialise; a non-finite temperature becomes null.
    serde_json::to_string(&build_request(prompt_text, config)).unwrap_or_default()
}

/// `obj[snake]`, else `obj[pascal]` (the native API's spelling, should a relay pass it through).
fn field<'a>(obj: &'a Map<String, Value>, snake: &str, pascal: &str) -> Option<&'a Value> {
    obj.get(snake).or_else(|| obj.get(pascal))
}

/// The numbers of the `[n]` (1–3 digits) and `[^n]` (1–9 digits) markers of `answer`, in order
/// of first appearance, once each ([`crate::analysis::markers::bracket_numbers`] with carets).
pub fn cited_numbers(answer: &str) -> Vec<u32> {
    crate::analysis::markers::bracket_numbers(answer, true)
}

/// The sources of `search_info.search_results` (see the module documentation).
fn sources_of(results: &[Value]) -> Vec<RawSource> {
    let mut sources = Vec::new();
    for (position, r) in results.iter().enumerate() {
        let Some(r) = r.as_object() else { continue };
        let Some(url) = non_blank(field(r, "url", "Url").and_then(Value::as_str)) else { continue };
        let index = index_of(field(r, "index", "Index"), Numbering::FromOne).and_then(|n| u32::try_from(n).ok());
        let rank = index.unwrap_or(u32::try_from(position + 1).unwrap_or(u32::MAX));
        let title = field(r, "title", "Title").and_then(Value::as_str).unwrap_or("").trim();
        let site = non_blank(field(r, "text", "Text").and_then(Value::as_str)).filter(|s| *s != "无");
        sources.push(RawSource {
            query_index: 1,
            rank,
            title: title.to_string(),
            url: url.to_string(),
            page_age: None,
            site_name: site.map(str::to_string),
        });
    }
    sources
}

/// The `search_results` array: top-level `search_info` (documented), else the message's.
fn search_results<'a>(obj: &'a Map<String, Value>, message: Option<&'a Value>) -> &'a [Value] {
    let info = field(obj, "search_info", "SearchInfo")
        .filter(|v| v.is_object())
        .or_else(|| message.and_then(|m| m.get("search_info")))
        .and_then(Value::as_object);
    let results = info.and_then(|i| field(i, "search_results", "SearchResults")).and_then(Value::as_array);
    results.map_or(&[][..], |r| &r[..])
}

/// True for a Tencent Cloud API 3.0 error envelope (`{"Response":{"Error":{"Code","Message"}}}`),
/// which the shared error mapping (`error::body::parse_error_body`) reads as it is.
fn is_native_error(obj: &Map<String, Value>) -> bool {
    obj.get("Response").and_then(|r| r.get("Error")).is_some_and(Value::is_object)
}

/// Parses the body of a successful chat completions call (see the module documentation).
///
/// Errors: not JSON, not an object, or no `choices` array → `invalid_json`; an error
/// envelope → the mapped Hunyuan error; `finish_reason: "sensitive"` → `refused` (HTTP 200).
pub fn parse_response(body: &str, requested_model: &str) -> Result<ParsedResponse, ProbeError> {
    let obj = reply_object(ENGINE, error_kind, body, "choices")?;
    let Some(Value::Array(choices)) = obj.get("choices") else {
        if is_native_error(&obj) {
            return Err(map_envelope(ENGINE, error_kind, body));
        }
        return Err(invalid_json(ENGINE, "the body has no choices array"));
    };
    let Choice { message, finish, .. } = first_choice(choices);
    let answer = content_text(message.and_then(|m| m.get("content")));
    if finish.is_some_and(|f| f.eq_ignore_ascii_case(SENSITIVE_FINISH)) {
        let words = non_blank(Some(&answer)).map(|a| format!(": {a}")).unwrap_or_default();
        return Err(refused_error(ENGINE, Some(200), &format!("finish_reason sensitive{words}")));
    }

    let raw_sources = sources_of(search_results(&obj, message));
    let raw_citations = citations_by_rank(&cited_numbers(&answer), &raw_sources, Take::Every);
    let queries = if raw_sources.is_empty() {
        Vec::new()
    } else {
        vec![Query { index: 1, query: None, internal: true, error: None }]
    };
    let usage = obj.get("usage").and_then(Value::as_object);
    let request_id = non_blank(str_field(&obj, "id")).or_else(|| non_blank(str_field(&obj, "request_id")));
    Ok(ParsedResponse {
        raw_answer: answer,
        usage: chat::usage(usage, queries.len() as u64),
        queries,
        raw_sources,
        raw_citations: Some(raw_citations),
        request_id: request_id.map(str::to_string),
        truncated: finish.is_some_and(|f| f.eq_ignore_ascii_case(LENGTH_FINISH)),
        stop_reason: finish.map(str::to_string),
        model: model_of(&obj, requested_model),
        cost_usd: None,
        content: None,
    })
}

/// The billing codes of Hunyuan / Tencent Cloud: each is `balance`.
const BALANCE_CODES: [&str; 8] = [
    "FailedOperation.FreeResourcePackExhausted",
    "FailedOperation.ResourcePackExhausted",
    "FailedOperation.ServiceStopArrears",
    "ResourceInsufficient.ChargeResourceExhaust",
    "ResourceUnavailable.InArrears",
    "ResourceUnavailable.LowBalance",
    "ResourceUnavailable.StopUsing",
    "UnsupportedOperation.PkgExhausted",
];

/// The kind one Hunyuan / Tencent Cloud error code names, if it names one.
fn kind_of_code(code: &str) -> Option<ErrorKind> {
    const FORBIDDEN: [&str; 5] = [
        "ResourceUnavailable.NotExist",
        "FailedOperation.ServiceNotActivated",
        "FailedOperation.ServiceStop",
        "FailedOperation.UserUnAuthError",
        "AuthFailure.UnauthorizedOperation",
    ];
    let code = code.trim();
    if BALANCE_CODES.contains(&code) {
        Some(ErrorKind::Balance)
    } else if FORBIDDEN.contains(&code) {
        Some(ErrorKind::Forbidden)
    } else if code.starts_with("AuthFailure") {
        Some(ErrorKind::Auth)
    } else if code.starts_with("OperationDenied.") && code.ends_with("IllegalDetected") {
        Some(ErrorKind::Refused)
    } else if code.starts_with("LimitExceeded")
        || code == "RequestLimitExceeded"
        || code == "FailedOperation.EngineServerLimitExceeded"
    {
        Some(ErrorKind::RateLimit)
    } else if code.starts_with("InternalError")
        || code == "FailedOperation.EngineServerError"
        || code == "FailedOperation.EngineRequestTimeout"
    {
        Some(ErrorKind::Server)
    } else {
        None
    }
}

/// Hunyuan's own error codes (hunyuan.md, "Errors"), in `error.code` or `error.type` (or a
/// Tencent Cloud `Response.Error.Code`): the billing codes are `balance`, the content filter's
/// `OperationDenied.*IllegalDetected` `refused`, `LimitExceeded` and the engine's over-limit
/// `rate_limit`, `InternalError` and the engine's errors `server`, `AuthFailure.*` `auth`, a
/// service not opened or stopped `forbidden`. Anything else (`InvalidParameter*`, the
/// compatible endpoint's numeric codes such as `1001`) falls back to the status table.
fn error_kind(_status: u16, _body: &str, parsed: &ProviderErrorBody) -> Option<ErrorKind> {
    parsed.code.as_deref().and_then(kind_of_code).or_else(|| parsed.error_type.as_deref().and_then(kind_of_code))
}

/// The key test's body: the chat-completions dialect's.
pub(crate) const KEY_TEST_BODY: &str = chat::KEY_TEST_BODY;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builders::usage;
    use crate::provider::map_engine_http_error;
    use crate::provider::spec::SYSTEM_PROMPT;
    use serde_json::json;

    fn config() -> RunConfig {
        RunConfig {
            engine: EngineId::Hunyuan,
            model: String::new(),
            max_tokens: 4096,
            temperature: 0.7,
            ..RunConfig::default()
        }
    }

    #[test]
    fn body_has_the_documented_shape_and_order() {
        let text = request_body_json("2026年国内有哪些靠谱的GEO服务商？", &config());
        let v: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(
            v,
            json!({"model": "hunyuan-turbos-latest",
                "messages": [{"role": "system", "content": SYSTEM_PROMPT},
                             {"role": "user", "content": "2026年国内有哪些靠谱的GEO服务商？"}],
                "temperature": 0.7, "enable_enhancement": true, "force_search_enhancement": true,
                "search_info": true, "citation": true, "max_tokens": 4096, "stream": false})
        );
        let keys = [
            "\"model\"",
            "\"messages\"",
            "\"temperature\"",
            "\"enable_enhancement\"",
            "\"force_search_enhancement\"",
            "\"search_info\"",
            "\"citation\"",
            "\"max_tokens\"",
            "\"stream\"",
        ];
        let positions: Vec<usize> = keys.iter().map(|k| text.find(k).expect(k)).collect();
        assert!(positions.windows(2).all(|w| w[0] < w[1]), "{text}");
        assert!(!text.contains("max_uses") && !text.contains("search_limit"), "no search limit: {text}");
        let named = RunConfig { model: " hunyuan-t1-latest ".into(), ..config() };
        let v: Value = serde_json::from_str(&request_body_json("q", &named)).unwrap();
        assert_eq!(v["model"], "hunyuan-t1-latest");
    }

    #[test]
    fn markers_in_both_forms() {
        assert_eq!(cited_numbers("a[2] b[^1][2] [^10] [x] [1234] [0] [^0] [3 [^] [^1234567890] [12]"), [2, 1, 10, 12]);
        assert_eq!(cited_numbers("无角标"), Vec::<u32>::new());
        assert_eq!(cited_numbers("[[1]] 元构场[^3]。"), [1, 3]);
    }

    #[test]
    fn sources_keep_index_gaps_site_names_and_duplicates() {
        let body = json!({"id": "hy-1", "model": "hunyuan-turbos-latest", "created": 1,
            "choices": [{"index": 0, "finish_reason": "stop",
                "message": {"role": "assistant", "content": "元构场[1]领先[^4]，智谱营销[2][9]，再次[1]。"}}],
            "usage": {"prompt_tokens": 3120, "completion_tokens": 410, "total_tokens": 3530},
            "search_info": {"support_deep_search": false, "search_results": [
                {"index": 1, "title": " 元构场 GEO ", "url": "https://www.yuangouchang.com/geo", "text": "元构场官网"},
                {"index": 2, "title": "智谱营销", "url": "https://zhipu-marketing.com/", "text": "无"},
                {"index": 4, "title": "", "url": "https://www.yuangouchang.com/geo", "text": "  "},
                {"index": "5", "title": "no url", "url": " "},
                {"title": "no index", "url": "https://geoboost.io/", "icon": "x"},
                "not an object",
                {"index": 0, "title": "zero", "url": "https://example.com/zero"}]}});
        let p = parse_response(&body.to_string(), "m").unwrap();
        assert_eq!(p.raw_answer, "元构场[1]领先[^4]，智谱营销[2][9]，再次[1]。");
        assert_eq!(p.queries, [Query { index: 1, query: None, internal: true, error: None }]);
        let s: Vec<(u32, u32, &str, &str, Option<&str>)> = p
            .raw_sources
            .iter()
            .map(|s| (s.query_index, s.rank, s.title.as_str(), s.url.as_str(), s.site_name.as_deref()))
            .collect();
        assert_eq!(
            s,
            [
                (1, 1, "元构场 GEO", "https://www.yuangouchang.com/geo", Some("元构场官网")),
                (1, 2, "智谱营销", "https://zhipu-marketing.com/", None),
                (1, 4, "", "https://www.yuangouchang.com/geo", None),
                (1, 5, "no index", "https://geoboost.io/", None),
                (1, 7, "zero", "https://example.com/zero", None),
            ]
        );
        // [^4] names the same URL as [1]: a citation of its own, with its index; [9] names no
        // result.
        let c: Vec<(&str, Option<&str>, Option<u32>)> =
            p.raw_citations.as_ref().unwrap().iter().map(|c| (c.url.as_str(), c.title.as_deref(), c.index)).collect();
        assert_eq!(
            c,
            [
                ("https://www.yuangouchang.com/geo", Some("元构场 GEO"), Some(1)),
                ("https://www.yuangouchang.com/geo", None, Some(4)),
                ("https://zhipu-marketing.com/", Some("智谱营销"), Some(2))
            ]
        );
        assert_eq!(p.usage, usage(3120, 410, 0, 1));
        assert_eq!(
            (p.request_id.as_deref(), p.stop_reason.as_deref(), p.model.as_str()),
            (Some("hy-1"), Some("stop"), "hunyuan-turbos-latest")
        );
        assert!(!p.truncated && p.cost_usd.is_none());
    }

    #[test]
    fn no_search_means_no_query_and_no_citation() {
        let body =
            json!({"choices": [{"message": {"content": "元构场是一家GEO服务商[1]。"}, "finish_reason": "stop"}]});
        let p = parse_response(&body.to_string(), "hunyuan-turbos-latest").unwrap();
        assert!(p.queries.is_empty() && p.raw_sources.is_empty());
        assert_eq!(p.raw_citations, Some(vec![]), "a marker naming no result cites nothing");
        assert_eq!((p.usage.web_search_requests, p.model.as_str()), (0, "hunyuan-turbos-latest"));
        // An empty result list and a null search_info are no search either.
        for info in [json!({"search_results": []}), Value::Null, json!({"search_results": "x"})] {
            let body = json!({"choices": [{"message": {"content": "x"}}], "search_info": info});
            let p = parse_response(&body.to_string(), "m").unwrap();
            assert!(p.queries.is_empty() && p.raw_sources.is_empty(), "{info}");
        }
    }

    #[test]
    fn lenient_shapes() {
        // Text parts, PascalCase results, results under the message, odd types.
        let body = json!({"id": 7, "model": "", "request_id": "rq-1",
            "choices": [{"finish_reason": "length", "message": {"content": [{"type": "text", "text": "a[1]"}, {"text": "b"}, 3],
                "search_info": {"SearchResults": [{"Index": 1.0, "Title": "T", "Url": "https://a.example", "Text": "站点"}]}}}],
            "usage": {"prompt_tokens": "12", "completion_tokens": -3}});
        let p = parse_response(&body.to_string(), "asked").unwrap();
        assert_eq!(p.raw_answer, "a[1]b");
        assert_eq!((p.raw_sources.len(), p.raw_sources[0].rank), (1, 1));
        assert_eq!(p.raw_sources[0].site_name.as_deref(), Some("站点"));
        assert_eq!(p.raw_citations.as_ref().unwrap().len(), 1);
        assert!(p.truncated);
        assert_eq!((p.usage.input_tokens, p.usage.output_tokens), (0, 0));
        assert_eq!((p.request_id.as_deref(), p.model.as_str()), (Some("rq-1"), "asked"));
        let bare = parse_response(r#"{"choices":[{}]}"#, "m").unwrap();
        assert_eq!((bare.raw_answer.as_str(), bare.stop_reason), ("", None));
        let none = parse_response(r#"{"choices":[]}"#, "m").unwrap();
        assert_eq!(none.raw_citations, Some(vec![]));
    }

    #[test]
    fn sensitive_is_a_refusal_at_200() {
        let body = json!({"id": "r",
            "choices": [{"finish_reason": "sensitive", "message": {"content": "很抱歉，这个问题我无法回答。"}}],
            "search_info": {"search_results": [{"index": 1, "url": "https://a.example"}]}});
        let e = parse_response(&body.to_string(), "m").unwrap_err();
        assert_eq!((e.kind, e.http_status), (ErrorKind::Refused, Some(200)));
        assert!(e.message.contains("hunyuan") && e.message.contains("sensitive"), "{}", e.message);
        assert!(e.message.contains("很抱歉"), "{}", e.message);
        let quiet =
            parse_response(r#"{"choices":[{"finish_reason":"SENSITIVE","message":{"content":""}}]}"#, "m").unwrap_err();
        assert_eq!(quiet.kind, ErrorKind::Refused);
    }

    #[test]
    fn bodies_that_are_not_a_reply() {
        assert_eq!(parse_response("<html>502</html>", "m").unwrap_err().kind, ErrorKind::InvalidJson);
        assert_eq!(parse_response("[1]", "m").unwrap_err().kind, ErrorKind::InvalidJson);
        assert_eq!(parse_response(r#"{"id":"x"}"#, "m").unwrap_err().kind, ErrorKind::InvalidJson);
        assert_eq!(parse_response(r#"{"choices":{"message":"x"}}"#, "m").unwrap_err().kind, ErrorKind::InvalidJson);
        // OpenAI-style envelope in a 2xx, the compatible endpoint's captured 400 body.
        let e = parse_response(
            &json!({"error": {"id": "3d98", "message": "messages 中 user 和 assistant 角色需交替出现",
                "type": "invalid_request_error", "param": null, "code": "1001"}})
            .to_string(),
            "m",
        )
        .unwrap_err();
        assert_eq!((e.kind, e.http_status), (ErrorKind::Http, None));
        let e = parse_response(r#"{"error":{"message":"x","code":"FailedOperation.ServiceStopArrears"}}"#, "m")
            .unwrap_err();
        assert_eq!(e.kind, ErrorKind::Balance);
        // Tencent Cloud API 3.0 envelope in a 2xx.
        let native = json!({"Response": {"Error": {"Code": "UnsupportedOperation.PkgExhausted",
            "Message": "The resource pack allowance has been exhausted."}, "RequestId": "9af6"}});
        let e = parse_response(&native.to_string(), "m").unwrap_err();
        assert_eq!(e.kind, ErrorKind::Balance);
        assert!(e.message.contains("resource pack"), "{}", e.message);
        let denied = json!({"Response": {"Error": {"Code": "OperationDenied.TextIllegalDetected",
            "Message": "文本包含违法违规信息，审核不通过。"}}});
        let e = parse_response(&denied.to_string(), "m").unwrap_err();
        assert_eq!(e.kind, ErrorKind::Refused);
        let e = parse_response(r#"{"Response":{"Error":{"Code":4001}}}"#, "m").unwrap_err();
        assert_eq!(e.kind, ErrorKind::Http);
    }

    #[test]
    fn error_codes() {
        let kind =
            |code: &str| error_kind(400, "", &ProviderErrorBody { code: Some(code.into()), ..Default::default() });
        for code in BALANCE_CODES {
            assert_eq!(kind(code), Some(ErrorKind::Balance), "{code}");
            assert_eq!(kind(&format!(" {code} ")), Some(ErrorKind::Balance), "{code} with white space");
        }
        for code in ["OperationDenied.TextIllegalDetected", "OperationDenied.ImageIllegalDetected"] {
            assert_eq!(kind(code), Some(ErrorKind::Refused), "{code}");
        }
        for code in ["LimitExceeded", "RequestLimitExceeded", "FailedOperation.EngineServerLimitExceeded"] {
            assert_eq!(kind(code), Some(ErrorKind::RateLimit), "{code}");
        }
        for code in ["InternalError", "FailedOperation.EngineServerError", "FailedOperation.EngineRequestTimeout"] {
            assert_eq!(kind(code), Some(ErrorKind::Server), "{code}");
        }
        for code in ["AuthFailure.SignatureFailure", "AuthFailure.SecretIdNotFound"] {
            assert_eq!(kind(code), Some(ErrorKind::Auth), "{code}");
        }
        for code in
            ["FailedOperation.ServiceNotActivated", "ResourceUnavailable.NotExist", "AuthFailure.UnauthorizedOperation"]
        {
            assert_eq!(kind(code), Some(ErrorKind::Forbidden), "{code}");
        }
        for code in ["InvalidParameter", "InvalidParameterValue.Model", "1001", ""] {
            assert_eq!(kind(code), None, "{code}");
        }
        let typed = ProviderErrorBody { error_type: Some("LimitExceeded".into()), ..Default::default() };
        assert_eq!(error_kind(400, "", &typed), Some(ErrorKind::RateLimit));
        assert_eq!(error_kind(500, "", &ProviderErrorBody::default()), None);
        // Through the shared mapping: the code wins over the status, else the status table.
        let body = r#"{"error":{"message":"欠费停服","type":"invalid_request_error","code":"FailedOperation.ServiceStopArrears"}}"#;
        assert_eq!(map_engine_http_error(EngineId::Hunyuan, 400, body).kind, ErrorKind::Balance);
        let body = r#"{"error":{"message":"审核不通过","type":"invalid_request_error","code":"OperationDenied.TextIllegalDetected"}}"#;
        let e = map_engine_http_error(EngineId::Hunyuan, 400, body);
        assert_eq!((e.kind, e.http_status), (ErrorKind::Refused, Some(400)));
        assert_eq!(map_engine_http_error(EngineId::Hunyuan, 401, r#"{"error":{"code":"1001"}}"#).kind, ErrorKind::Auth);
        assert_eq!(map_engine_http_error(EngineId::Hunyuan, 429, "").kind, ErrorKind::RateLimit);
    }

    /// The recorded bodies of `fixtures/engines/hunyuan/`.
    macro_rules! fixture {
        ($name:literal) => {
            include_str!(concat!("../../../../../fixtures/engines/hunyuan/", $name))
        };
    }

    #[test]
    fn recorded_fixtures() {
        let parse = |body: &str| parse_response(body, "hunyuan-turbos-latest");
        let p = parse(fixture!("p01_zh_list_brand_markers.json")).unwrap();
        assert!(p.raw_answer.contains("1. 元构场[1]："));
        let ranks: Vec<u32> = p.raw_sources.iter().map(|s| s.rank).collect();
        assert_eq!(ranks, [1, 2, 3, 4, 5, 6, 7]);
        let sites: Vec<Option<&str>> = p.raw_sources.iter().map(|s| s.site_name.as_deref()).collect();
        assert_eq!(sites, [Some("知乎"), Some("元构场"), None, Some("36氪"), None, Some("元构场"), Some("腾讯新闻")]);
        let cited: Vec<&str> = p.raw_citations.as_ref().unwrap().iter().map(|c| c.url.as_str()).collect();
        assert_eq!(
            cited,
            [
                "https://zhuanlan.zhihu.com/p/7301234567",
                "https://www.yuangouchang.com/solutions/geo",
                "https://zhipu-marketing.com/cases/appliance-geo",
                "https://www.36kr.com/p/3012345678901234",
                "https://geoboost.io/zh/",
                "https://www.yuangouchang.com/solutions/geo"
            ],
            "[6] repeats [2]'s URL under its own index; the uncited result 7 is not a citation"
        );
        assert_eq!((p.usage.input_tokens, p.usage.output_tokens, p.usage.web_search_requests), (3120, 452, 1));

        let p = parse(fixture!("p09_en_caret_markers.json")).unwrap();
        assert_eq!(p.raw_citations.as_ref().unwrap().len(), 4, "[^n] markers cite");

        let p = parse(fixture!("p10_marker_naming_no_result.json")).unwrap();
        let ranks: Vec<u32> = p.raw_sources.iter().map(|s| s.rank).collect();
        assert_eq!(ranks, [1, 2, 4], "the index gap is kept, the result without a url skipped");
        let cited: Vec<&str> = p.raw_citations.as_ref().unwrap().iter().map(|c| c.url.as_str()).collect();
        assert_eq!(
            cited,
            [
                "https://www.woshipm.com/marketing/6123457.html",
                "https://www.yuangouchang.com/solutions/geo",
                "https://www.infoq.cn/article/geo-vs-seo-2026"
            ]
        );

        for body in [fixture!("p08_zh_no_search.json"), fixture!("p13_search_skipped_canned_reply.json")] {
            let p = parse(body).unwrap();
            assert!(p.queries.is_empty() && p.raw_sources.is_empty() && !p.raw_answer.is_empty());
            assert_eq!((p.raw_citations, p.usage.web_search_requests), (Some(vec![]), 0));
        }
        let p = parse(fixture!("p12_empty_content.json")).unwrap();
        assert_eq!((p.raw_answer.as_str(), p.raw_sources.len()), ("", 1));
        let p = parse(fixture!("p15_preamble_only.json")).unwrap();
        assert!(p.raw_answer.starts_with("让我搜索一下") && p.raw_citations == Some(vec![]));

        let e = parse(fixture!("r01_finish_reason_sensitive.json")).unwrap_err();
        assert_eq!((e.kind, e.http_status), (ErrorKind::Refused, Some(200)));
    }

    #[test]
    fn recorded_error_bodies() {
        let body = fixture!("errors/400_invalid_request_error_1001.json");
        let e = map_engine_http_error(EngineId::Hunyuan, 400, body);
        assert_eq!((e.kind, e.http_status), (ErrorKind::Http, Some(400)));
        assert!(e.message.contains("角色需交替出现"), "{}", e.message);
        // The Tencent Cloud envelopes come with HTTP 200: the parser maps them.
        let e = parse_response(fixture!("errors/200_unsupported_operation_pkg_exhausted.json"), "m").unwrap_err();
        assert_eq!(e.kind, ErrorKind::Balance);
        let e = parse_response(fixture!("errors/200_operation_denied_text_illegal_detected.json"), "m").unwrap_err();
        assert_eq!(e.kind, ErrorKind::Refused);
    }
}
