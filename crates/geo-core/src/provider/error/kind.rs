//! Error kinds: an HTTP status and an error body → [`ProbeError`] (seed §3.4), for any engine,
//! with the engine's own codes handed in.
//!
//! The status decides the kind, with exceptions read from the body first: the engine's own
//! codes (an [`OwnKind`] function each engine brings in its `Wire`: OpenAI's
//! `insufficient_quota` is balance, Gemini's `API_KEY_INVALID` is auth although the status is
//! 400, DashScope's `Arrearage` is balance, a content filter's code is `refused` …), then an
//! out-of-credit message ("Insufficient Balance", "credit balance is too low") whatever the
//! status, because Anthropic reports it as 400 and proxies may relay it as anything. An error
//! envelope inside a 2xx reply has no useful status: its `type` (or Gemini's `status` name)
//! decides, else the status some engines repeat in `error.code`.
//!
//! Every message says what happened and what to do, in lowercase English, and names the
//! engine (the seed's engine keeps the seed's words: [`Wording`]). This file never names an
//! engine module: what differs per engine arrives as data (the spec row) or as a function
//! (its `OwnKind`).

use serde_json::{Map, Value};

use super::body::{non_empty, parse_error_body, truncate_chars, ProviderErrorBody, MAX_PROVIDER_MESSAGE_CHARS};
use crate::model::{EngineId, ErrorKind, ProbeError};
use crate::provider::read::is_error_envelope;
use crate::provider::spec::{spec, Wording};

/// An engine's own reading of an error body, before the status table: `(status, body, what
/// the body says)` → the kind its codes name, `None` to leave it to the shared rules. `status`
/// is 0 for an error envelope inside a 2xx reply.
pub type OwnKind = fn(u16, &str, &ProviderErrorBody) -> Option<ErrorKind>;

/// The [`OwnKind`] of an engine without codes of its own (the shared rules decide).
pub fn no_own_codes(_status: u16, _body: &str, _parsed: &ProviderErrorBody) -> Option<ErrorKind> {
    None
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
        // OpenAI.
        Some("insufficient_quota") => ErrorKind::Balance,
        // google.rpc status names (Gemini).
        Some("UNAUTHENTICATED") => ErrorKind::Auth,
        Some("PERMISSION_DENIED") => ErrorKind::Forbidden,
        Some("RESOURCE_EXHAUSTED") => ErrorKind::RateLimit,
        Some("INTERNAL" | "UNAVAILABLE") => ErrorKind::Server,
        Some("DEADLINE_EXCEEDED") => ErrorKind::Timeout,
        _ => ErrorKind::Http,
    }
}

/// The numeric HTTP status some engines repeat in `error.code` (Gemini, Perplexity).
fn status_in_body(parsed: &ProviderErrorBody) -> Option<u16> {
    parsed.code.as_deref().and_then(|c| c.parse::<u16>().ok()).filter(|s| (400..600).contains(s))
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

/// What happened and what to do, in English, for a mapped error kind of `engine`.
fn headline(engine: EngineId, kind: ErrorKind) -> (String, &'static str) {
    let s = spec(engine);
    let name = s.name.to_lowercase();
    let seed = s.wording == Wording::Seed;
    match kind {
        ErrorKind::Auth => {
            (format!("{name} rejected the api key"), s.auth_hint.map_or("check the key in settings", |h| h.en))
        }
        // The seed's sentence names its engine, DeepSeek, as it always did.
        ErrorKind::Balance if seed => {
            (format!("the {name} account balance is insufficient"), "top up on the deepseek platform, then retry")
        }
        ErrorKind::Balance => (
            format!("the {name} account balance is insufficient"),
            "add credit or raise the quota on the engine's platform, then retry",
        ),
        ErrorKind::Forbidden => {
            (format!("{name} refused the request"), "check that the key may use this model and endpoint")
        }
        ErrorKind::RateLimit => {
            (format!("{name} rate limit reached"), "lower the concurrency or wait a moment, then retry")
        }
        ErrorKind::Server => (format!("{name} server error or overload"), "retry in a moment"),
        ErrorKind::Timeout => ("the request timed out".to_string(), "retry in a moment"),
        ErrorKind::Network => ("network error".to_string(), "check the connection or the api base url"),
        ErrorKind::InvalidJson if seed => {
            ("the response is not a valid messages response".to_string(), "check the api base url or proxy")
        }
        ErrorKind::InvalidJson => {
            (format!("the response is not a valid {name} response"), "check the api base url or proxy")
        }
        ErrorKind::Empty => ("the model returned an empty answer".to_string(), "retry the probe"),
        ErrorKind::Http => ("the request failed".to_string(), "check the model name and the api base url"),
        ErrorKind::Refused => (
            format!("refused by the {name} content filter"),
            "rephrase the prompt if it should be answered; a refusal is not retried",
        ),
    }
}

fn compose(engine: EngineId, kind: ErrorKind, status: Option<u16>, parsed: &ProviderErrorBody) -> ProbeError {
    let (what, todo) = headline(engine, kind);
    let mut detail = Vec::new();
    if let Some(s) = status {
        detail.push(format!("http {s}"));
    }
    let mut provider = String::new();
    // DashScope's flat bodies and Tencent's envelope name the error by `code` alone.
    if let Some(t) = parsed.error_type.as_deref().or(parsed.code.as_deref().filter(|c| c.parse::<u16>().is_err())) {
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

/// A content-filter refusal of `engine` (engines.md, "Chinese engines"): `refused`, never
/// retried; `status` is the HTTP status it came with (200 when the filter answered inside a
/// successful reply), `detail` the engine's own words (finish reason, code).
pub fn refused_error(engine: EngineId, status: Option<u16>, detail: &str) -> ProbeError {
    let parsed = ProviderErrorBody {
        message: non_empty(Some(&Value::String(detail.to_string())))
            .map(|m| truncate_chars(&m, MAX_PROVIDER_MESSAGE_CHARS)),
        ..ProviderErrorBody::default()
    };
    compose(engine, ErrorKind::Refused, status, &parsed)
}

/// A non-success response (status and body) of `engine` as a probe error: the engine's own
/// codes first (`own`), then an out-of-credit message, then the status table (401→auth,
/// 402→balance, 403→forbidden, 408→timeout, 429→rate_limit, 5xx (529 overloaded included)→
/// server, anything else→http). A body that is not JSON (Perplexity's HTML 401 page) is
/// classified by its status alone. `http_status` is always set; the message includes the
/// provider's own words.
pub fn map_http(engine: EngineId, own: OwnKind, status: u16, body: &str) -> ProbeError {
    let parsed = parse_error_body(body);
    let kind = if let Some(kind) = own(status, body, &parsed) {
        kind
    } else if is_balance_message(&parsed) {
        ErrorKind::Balance
    } else if (200..300).contains(&status) {
        envelope_kind(&parsed)
    } else {
        kind_for_status(status)
    };
    compose(engine, kind, Some(status), &parsed)
}

/// The kind of an error envelope without a useful HTTP status: by its type or status name,
/// else by the status number some engines repeat in `error.code`.
fn envelope_kind(parsed: &ProviderErrorBody) -> ErrorKind {
    match kind_from_error_type(parsed.error_type.as_deref()) {
        ErrorKind::Http => status_in_body(parsed).map_or(ErrorKind::Http, kind_for_status),
        kind => kind,
    }
}

/// An error envelope of `engine` that arrived inside a 2xx response (no status known).
pub fn map_envelope(engine: EngineId, own: OwnKind, body: &str) -> ProbeError {
    let parsed = parse_error_body(body);
    let kind = if let Some(kind) = own(0, body, &parsed) {
        kind
    } else if is_balance_message(&parsed) {
        ErrorKind::Balance
    } else {
        envelope_kind(&parsed)
    };
    compose(engine, kind, None, &parsed)
}

/// The request succeeded but the cleaned answer was empty.
pub fn empty_answer_error() -> ProbeError {
    let (what, todo) = headline(EngineId::default(), ErrorKind::Empty);
    ProbeError { kind: ErrorKind::Empty, http_status: None, message: format!("{what}; {todo}") }
}

/// The body of a successful response could not be read as `engine`'s response.
pub fn invalid_json(engine: EngineId, detail: &str) -> ProbeError {
    let (what, todo) = headline(engine, ErrorKind::InvalidJson);
    let detail = truncate_chars(detail.trim(), MAX_PROVIDER_MESSAGE_CHARS);
    ProbeError { kind: ErrorKind::InvalidJson, http_status: None, message: format!("{what} ({detail}); {todo}") }
}

/// The opening every JSON parser of a reply shares: `body` as a JSON object holding the array
/// `payload`, or `engine`'s `invalid_json` error (not JSON, not an object) or its mapped error
/// (an `{"error":{…}}` envelope, read with `own`). A missing `payload` is left to the caller,
/// whose message names what else may stand in for it.
pub fn reply_object(
    engine: EngineId,
    own: OwnKind,
    body: &str,
    payload: &str,
) -> Result<Map<String, Value>, ProbeError> {
    let invalid = |d: &str| invalid_json(engine, d);
    let value: Value = serde_json::from_str(body).map_err(|e| invalid(&format!("not json: {e}")))?;
    let Value::Object(obj) = value else { return Err(invalid("the body is not a json object")) };
    if is_error_envelope(&obj, payload) {
        return Err(map_envelope(engine, own, body));
    }
    Ok(obj)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The seed engine's mapping (no codes of its own).
    fn seed(status: u16, body: &str) -> ProbeError {
        map_http(EngineId::Deepseek, no_own_codes, status, body)
    }

    #[track_caller]
    fn check(status: u16, body: &str, kind: ErrorKind, needles: &[&str]) {
        let err = seed(status, body);
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
    fn a_success_status_with_an_error_body_maps_by_type() {
        let err = seed(200, r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#);
        assert_eq!((err.kind, err.http_status), (ErrorKind::Server, Some(200)));
        assert_eq!(seed(200, r#"{"error":{"type":"whatever"}}"#).kind, ErrorKind::Http);
        assert_eq!(
            map_envelope(
                EngineId::Deepseek,
                no_own_codes,
                r#"{"type":"error","error":{"type":"rate_limit_error","message":"m"}}"#
            )
            .kind,
            ErrorKind::RateLimit
        );
        assert_eq!(
            map_envelope(EngineId::Deepseek, no_own_codes, r#"{"type":"error","error":{"type":"rate_limit_error"}}"#)
                .http_status,
            None
        );
    }

    #[test]
    fn answers_that_cannot_be_used() {
        let e = empty_answer_error();
        assert_eq!(
            (e.kind, e.message.as_str()),
            (ErrorKind::Empty, "the model returned an empty answer; retry the probe")
        );
        assert_eq!(invalid_json(EngineId::Deepseek, "expected value").kind, ErrorKind::InvalidJson);
    }
}
