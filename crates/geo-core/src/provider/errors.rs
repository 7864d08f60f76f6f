//! Error mapping: HTTP status and error body → [`ProbeError`], and the UI's wording of it.
//!
//! Two body shapes reach us. Anthropic's `{"type":"error","error":{"type","message"}}` and
//! the OpenAI-style `{"error":{"message","type","code"}}` that DeepSeek's `/anthropic`
//! endpoint actually sends (see the reference captures); proxies may also answer with plain
//! text. The status decides the kind, with one exception: an out-of-credit body
//! ("Insufficient Balance", "credit balance is too low") is a balance error whatever the
//! status, because Anthropic reports it as 400 and proxies may relay it as anything.

use crate::model::{ErrorKind, Localized, ProbeError};

/// Longest provider message kept in an error (characters).
pub const MAX_PROVIDER_MESSAGE_CHARS: usize = 300;

/// What an error body says, whichever envelope it came in.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProviderErrorBody {
    /// `error.type` (e.g. `authentication_error`, `overloaded_error`).
    pub error_type: Option<String>,
    /// `error.message`, or the trimmed text of a non-JSON body.
    pub message: Option<String>,
    /// `error.code` (OpenAI-style bodies).
    pub code: Option<String>,
}

fn non_empty(v: Option<&serde_json::Value>) -> Option<String> {
    v.and_then(serde_json::Value::as_str).map(str::trim).filter(|s| !s.is_empty()).map(str::to_string)
}

fn truncate_chars(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_string(),
    }
}

/// Reads an error body: Anthropic or OpenAI envelope, a bare `{"message"}`, or plain text.
pub fn parse_error_body(body: &str) -> ProviderErrorBody {
    let trimmed = body.trim();
    let Ok(value) = serde_json::from_str::<serde_json::Value>(trimmed) else {
        let message = (!trimmed.is_empty()).then(|| truncate_chars(trimmed, MAX_PROVIDER_MESSAGE_CHARS));
        return ProviderErrorBody { message, ..ProviderErrorBody::default() };
    };
    let mut out = ProviderErrorBody::default();
    match value.get("error") {
        Some(err @ serde_json::Value::Object(_)) => {
            out.error_type = non_empty(err.get("type"));
            out.message = non_empty(err.get("message"));
            out.code = match err.get("code") {
                Some(serde_json::Value::Number(n)) => Some(n.to_string()),
                other => non_empty(other),
            };
        }
        Some(serde_json::Value::String(s)) if !s.trim().is_empty() => out.message = Some(s.trim().to_string()),
        _ => {}
    }
    if out.message.is_none() {
        out.message = non_empty(value.get("message"));
    }
    if out.message.is_none() && !value.is_object() {
        out.message = Some(truncate_chars(trimmed, MAX_PROVIDER_MESSAGE_CHARS));
    }
    out.message = out.message.map(|m| truncate_chars(&m, MAX_PROVIDER_MESSAGE_CHARS));
    out
}

/// True when the body says the account is out of credit, whatever the HTTP status.
pub fn is_balance_message(parsed: &ProviderErrorBody) -> bool {
    let message = parsed.message.as_deref().unwrap_or("").to_lowercase();
    parsed.error_type.as_deref() == Some("billing_error")
        || ["insufficient balance", "credit balance is too low", "insufficient_balance", "余额不足"]
            .iter()
            .any(|needle| message.contains(needle))
}

/// The kind named by an error `type` alone (used when no status says more, e.g. a 200 body).
fn kind_from_error_type(error_type: Option<&str>) -> ErrorKind {
    match error_type {
        Some("authentication_error") => ErrorKind::Auth,
        Some("permission_error") => ErrorKind::Forbidden,
        Some("billing_error") => ErrorKind::Balance,
        Some("rate_limit_error") => ErrorKind::RateLimit,
        Some("api_error" | "overloaded_error") => ErrorKind::Server,
        Some("timeout_error") => ErrorKind::Timeout,
        _ => ErrorKind::Http,
    }
}

/// The kind for an HTTP status (seed §3.4 table).
pub fn kind_for_status(status: u16) -> ErrorKind {
    match status {
        401 => ErrorKind::Auth,
        402 => ErrorKind::Balance,
        403 => ErrorKind::Forbidden,
        408 => ErrorKind::Timeout,
        429 => ErrorKind::RateLimit,
        500..=599 => ErrorKind::Server,
        _ => ErrorKind::Http,
    }
}

/// What happened and what to do, in English, for a mapped error kind.
fn headline(kind: ErrorKind) -> (&'static str, &'static str) {
    match kind {
        ErrorKind::Auth => ("deepseek rejected the api key", "check the key in settings"),
        ErrorKind::Balance => {
            ("the deepseek account balance is insufficient", "top up on the deepseek platform, then retry")
        }
        ErrorKind::Forbidden => ("deepseek refused the request", "check that the key may use this model and endpoint"),
        ErrorKind::RateLimit => ("deepseek rate limit reached", "lower the concurrency or wait a moment, then retry"),
        ErrorKind::Server => ("deepseek server error or overload", "retry in a moment"),
        ErrorKind::Timeout => ("the request timed out", "retry in a moment"),
        ErrorKind::Network => ("network error", "check the connection or the api base url"),
        ErrorKind::InvalidJson => ("the response is not a valid messages response", "check the api base url or proxy"),
        ErrorKind::Empty => ("the model returned an empty answer", "retry the probe"),
        ErrorKind::Http => ("the request failed", "check the model name and the api base url"),
    }
}

fn compose(kind: ErrorKind, status: Option<u16>, parsed: &ProviderErrorBody) -> ProbeError {
    let (what, todo) = headline(kind);
    let mut detail = Vec::new();
    if let Some(s) = status {
        detail.push(format!("http {s}"));
    }
    let mut provider = String::new();
    if let Some(t) = parsed.error_type.as_deref() {
        provider.push_str(t);
    }
    if let Some(m) = parsed.message.as_deref() {
        if !provider.is_empty() {
            provider.push_str(": ");
        }
        provider.push_str(m);
    }
    if !provider.is_empty() {
        detail.push(provider);
    }
    let message =
        if detail.is_empty() { format!("{what}; {todo}") } else { format!("{what} ({}); {todo}", detail.join(", ")) };
    ProbeError { kind, http_status: status, message }
}

/// Maps a non-success response (status and body) to a probe error.
///
/// 401→auth, 402→balance, 403→forbidden, 408→timeout, 429→rate_limit, 5xx (incl. 529
/// overloaded)→server, anything else→http; an out-of-credit body is balance regardless
/// of status. `http_status` is always set; the message includes the provider's own words.
pub fn map_http_error(status: u16, body: &str) -> ProbeError {
    let parsed = parse_error_body(body);
    let kind = if is_balance_message(&parsed) {
        ErrorKind::Balance
    } else if (200..300).contains(&status) {
        kind_from_error_type(parsed.error_type.as_deref())
    } else {
        kind_for_status(status)
    };
    compose(kind, Some(status), &parsed)
}

/// Maps an error envelope that arrived where a Messages response was expected (no status known).
pub(crate) fn map_error_envelope(body: &str) -> ProbeError {
    let parsed = parse_error_body(body);
    let kind = if is_balance_message(&parsed) {
        ErrorKind::Balance
    } else {
        kind_from_error_type(parsed.error_type.as_deref())
    };
    compose(kind, None, &parsed)
}

/// The request never got an HTTP response (DNS, TLS, CORS, connection reset …).
pub fn network_error(detail: &str) -> ProbeError {
    let detail = truncate_chars(detail.trim(), MAX_PROVIDER_MESSAGE_CHARS);
    let message = if detail.is_empty() {
        "network error; check the connection or the api base url".to_string()
    } else {
        format!("network error ({detail}); check the connection or the api base url")
    };
    ProbeError { kind: ErrorKind::Network, http_status: None, message }
}

/// The client gave up after `timeout_ms` without a response.
pub fn timeout_error(timeout_ms: u64) -> ProbeError {
    let secs = timeout_ms / 1000;
    let span = if timeout_ms.is_multiple_of(1000) { format!("{secs} s") } else { format!("{timeout_ms} ms") };
    ProbeError {
        kind: ErrorKind::Timeout,
        http_status: None,
        message: format!("no response within {span}; retry in a moment"),
    }
}

/// The request succeeded but the cleaned answer was empty.
pub fn empty_answer_error() -> ProbeError {
    let (what, todo) = headline(ErrorKind::Empty);
    ProbeError { kind: ErrorKind::Empty, http_status: None, message: format!("{what}; {todo}") }
}

/// The body of a successful response could not be read as a Messages response.
pub fn invalid_json_error(detail: &str) -> ProbeError {
    let (what, todo) = headline(ErrorKind::InvalidJson);
    let detail = truncate_chars(detail.trim(), MAX_PROVIDER_MESSAGE_CHARS);
    ProbeError { kind: ErrorKind::InvalidJson, http_status: None, message: format!("{what} ({detail}); {todo}") }
}

/// A short zh/en message for the UI: what happened and what the user can do.
pub fn describe_error(err: &ProbeError) -> Localized {
    let (zh, en) = match err.kind {
        ErrorKind::Auth => {
            ("API Key 无效或已失效，请在设置中检查 Key", "the api key is invalid or revoked; check it in settings")
        }
        ErrorKind::Balance => (
            "DeepSeek 账户余额不足，请前往 DeepSeek 开放平台充值后重试",
            "insufficient balance on the deepseek account; top up on the deepseek platform, then retry",
        ),
        ErrorKind::Forbidden => (
            "请求被拒绝，请确认该 Key 有权使用所选模型和接口",
            "request refused; check that the key may use the chosen model and endpoint",
        ),
        ErrorKind::RateLimit => {
            ("请求过于频繁（限流），请降低并发或稍后重试", "rate limited; lower the concurrency or retry in a moment")
        }
        ErrorKind::Server => {
            ("DeepSeek 服务端异常或过载，请稍后重试", "deepseek server error or overload; retry in a moment")
        }
        ErrorKind::Timeout => ("请求超时，请稍后重试", "the request timed out; retry in a moment"),
        ErrorKind::Network => (
            "网络错误，无法连接 DeepSeek，请检查网络或 API 地址",
            "network error, deepseek unreachable; check the connection or the api base url",
        ),
        ErrorKind::InvalidJson => (
            "响应不是合法的 JSON，请检查 API 地址或代理设置",
            "the response is not valid json; check the api base url or proxy",
        ),
        ErrorKind::Empty => ("模型返回了空回答，可重试该 Probe", "the model returned an empty answer; retry the probe"),
        ErrorKind::Http => {
            ("请求失败，请检查模型名称和 API 地址", "the request failed; check the model name and the api base url")
        }
    };
    match err.http_status {
        Some(s) => Localized::new(format!("{zh}（HTTP {s}）"), format!("{en} (http {s})")),
        None => Localized::new(zh, en),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::REQUEST_TIMEOUT_MS;

    #[track_caller]
    fn check(status: u16, body: &str, kind: ErrorKind, needles: &[&str]) {
        let err = map_http_error(status, body);
        assert_eq!(err.kind, kind, "{status} {body}");
        assert_eq!(err.http_status, Some(status));
        for n in needles {
            assert!(err.message.contains(n), "{:?} lacks {n:?}", err.message);
        }
        assert!(!err.message.ends_with('.'), "{}", err.message);
        assert!(err.message.starts_with(|c: char| !c.is_uppercase()), "{}", err.message);
    }

    #[test]
    fn status_table() {
        let anthropic = |t: &str, m: &str| {
            format!(r#"{{"type":"error","error":{{"type":"{t}","message":"{m}"}},"request_id":"req_1"}}"#)
        };
        check(
            401,
            &anthropic("authentication_error", "invalid x-api-key"),
            ErrorKind::Auth,
            &["http 401", "invalid x-api-key", "check the key"],
        );
        check(402, "", ErrorKind::Balance, &["http 402", "top up"]);
        check(403, &anthropic("permission_error", "no access"), ErrorKind::Forbidden, &["no access"]);
        check(408, "", ErrorKind::Timeout, &["http 408"]);
        check(429, &anthropic("rate_limit_error", "slow down"), ErrorKind::RateLimit, &["slow down", "concurrency"]);
        check(500, &anthropic("api_error", "boom"), ErrorKind::Server, &["api_error: boom"]);
        check(503, "Service Unavailable", ErrorKind::Server, &["Service Unavailable"]);
        check(529, &anthropic("overloaded_error", "Overloaded"), ErrorKind::Server, &["overloaded_error: Overloaded"]);
        check(599, "", ErrorKind::Server, &[]);
        check(400, &anthropic("invalid_request_error", "bad"), ErrorKind::Http, &["http 400", "bad"]);
        check(
            404,
            &anthropic("not_found_error", "The requested resource could not be found."),
            ErrorKind::Http,
            &["not_found_error"],
        );
        check(422, "Failed to deserialize the JSON body", ErrorKind::Http, &["http 422", "Failed to deserialize"]);
        check(418, "", ErrorKind::Http, &[]);
    }

    #[test]
    fn openai_shaped_deepseek_bodies() {
        check(
            401,
            r#"{"error":{"message":"Authentication Fails, Your api key: ****cd15 is invalid","type":"authentication_error","param":null,"code":"invalid_request_error"}}"#,
            ErrorKind::Auth,
            &["Authentication Fails", "authentication_error"],
        );
        check(
            402,
            r#"{"error":{"message":"Insufficient Balance","type":"unknown_error","param":null,"code":"invalid_request_error"}}"#,
            ErrorKind::Balance,
            &["Insufficient Balance"],
        );
        check(
            400,
            r#"{"error":{"message":"Model Not Exist","type":"invalid_request_error"}}"#,
            ErrorKind::Http,
            &["Model Not Exist"],
        );
    }

    #[test]
    fn balance_bodies_win_over_status() {
        let credit = r#"{"type": "error", "error": {"type": "invalid_request_error", "message": "Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits."}, "request_id": "req_011CavdrVQpjrm2rc6uA6oQw"}"#;
        check(400, credit, ErrorKind::Balance, &["credit balance is too low", "http 400"]);
        check(400, r#"{"error":{"message":"Insufficient Balance"}}"#, ErrorKind::Balance, &[]);
        check(403, r#"{"error":"账户余额不足"}"#, ErrorKind::Balance, &["余额不足"]);
        check(400, r#"{"type":"error","error":{"type":"billing_error","message":"x"}}"#, ErrorKind::Balance, &[]);
        // The concurrency message mentions the balance but is a rate limit.
        check(
            429,
            r#"{"error":{"message":"Your current concurrency is 40, which exceeds your concurrency limit of 39 based on your remaining balance. Please top up your balance to restore your concurrency."}}"#,
            ErrorKind::RateLimit,
            &["concurrency is 40"],
        );
    }

    #[test]
    fn error_bodies_are_read_in_every_shape() {
        let p = parse_error_body(r#"{"error":{"message":" m ","type":"t","code":42}}"#);
        assert_eq!(
            p,
            ProviderErrorBody { error_type: Some("t".into()), message: Some("m".into()), code: Some("42".into()) }
        );
        assert_eq!(parse_error_body(r#"{"message":"plain"}"#).message.as_deref(), Some("plain"));
        assert_eq!(
            parse_error_body("  <html>bad gateway</html> ").message.as_deref(),
            Some("<html>bad gateway</html>")
        );
        assert_eq!(parse_error_body("").message, None);
        assert_eq!(parse_error_body("{}"), ProviderErrorBody::default());
        assert_eq!(parse_error_body("\"quoted\"").message.as_deref(), Some("\"quoted\""));
        let long = "x".repeat(1000);
        assert_eq!(parse_error_body(&long).message.unwrap().chars().count(), MAX_PROVIDER_MESSAGE_CHARS + 1);
        let long_cjk = "错".repeat(1000);
        assert!(parse_error_body(&long_cjk).message.unwrap().ends_with('…'));
    }

    #[test]
    fn a_success_status_with_an_error_body_maps_by_type() {
        let err = map_http_error(200, r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#);
        assert_eq!((err.kind, err.http_status), (ErrorKind::Server, Some(200)));
        assert_eq!(map_http_error(200, r#"{"error":{"type":"whatever"}}"#).kind, ErrorKind::Http);
        assert_eq!(
            map_error_envelope(r#"{"type":"error","error":{"type":"rate_limit_error","message":"m"}}"#).kind,
            ErrorKind::RateLimit
        );
        assert_eq!(map_error_envelope(r#"{"type":"error","error":{"type":"rate_limit_error"}}"#).http_status, None);
    }

    #[test]
    fn local_errors() {
        let n = network_error("Failed to fetch");
        assert_eq!((n.kind, n.http_status), (ErrorKind::Network, None));
        assert_eq!(n.message, "network error (Failed to fetch); check the connection or the api base url");
        assert_eq!(network_error("  ").message, "network error; check the connection or the api base url");
        let t = timeout_error(REQUEST_TIMEOUT_MS);
        assert_eq!((t.kind, t.message.as_str()), (ErrorKind::Timeout, "no response within 180 s; retry in a moment"));
        assert_eq!(timeout_error(1500).message, "no response within 1500 ms; retry in a moment");
        let e = empty_answer_error();
        assert_eq!(
            (e.kind, e.message.as_str()),
            (ErrorKind::Empty, "the model returned an empty answer; retry the probe")
        );
        assert_eq!(invalid_json_error("expected value").kind, ErrorKind::InvalidJson);
    }

    #[test]
    fn described_errors_say_what_to_do_in_both_languages() {
        let balance = describe_error(&map_http_error(402, r#"{"error":{"message":"Insufficient Balance"}}"#));
        assert_eq!(balance.zh, "DeepSeek 账户余额不足，请前往 DeepSeek 开放平台充值后重试（HTTP 402）");
        assert_eq!(
            balance.en,
            "insufficient balance on the deepseek account; top up on the deepseek platform, then retry (http 402)"
        );
        assert_eq!(describe_error(&timeout_error(REQUEST_TIMEOUT_MS)).zh, "请求超时，请稍后重试");
        assert_eq!(
            describe_error(&network_error("x")).en,
            "network error, deepseek unreachable; check the connection or the api base url"
        );
        let kinds = [
            ErrorKind::Auth,
            ErrorKind::Balance,
            ErrorKind::Forbidden,
            ErrorKind::RateLimit,
            ErrorKind::Server,
            ErrorKind::Timeout,
            ErrorKind::Network,
            ErrorKind::InvalidJson,
            ErrorKind::Empty,
            ErrorKind::Http,
        ];
        let mut seen = std::collections::HashSet::new();
        for kind in kinds {
            let d = describe_error(&ProbeError { kind, http_status: None, message: String::new() });
            assert!(d.zh.contains('请') || d.zh.contains("可"), "{kind:?}: {}", d.zh);
            assert!(d.en.contains(';') && !d.en.ends_with('.'), "{kind:?}: {}", d.en);
            assert!(seen.insert(d.zh.clone()), "duplicate wording for {kind:?}");
        }
    }
}
