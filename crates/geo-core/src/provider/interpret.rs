//! [`interpret`]: an HTTP reply (status, headers, body) → the runner's attempt outcome, the
//! one mapping both shells use (the browser's `fetch` and the CLI's blocking client used to
//! map it each on their own).
//!
//! Rules (seed §3.4):
//! - a 2xx status: the body is read by the engine's wire format ([`Wire::parse`]); an
//!   error envelope inside a 2xx body is an error of the kind its `type` names;
//! - a 3xx status: a redirect, which no shell follows (the key would go with it):
//!   [`redirect_error`], naming where it pointed;
//! - any other status: [`Wire::map_error`] over the body (401 → auth, 402 → balance,
//!   403 → forbidden, 408 → timeout, 429 → rate limit, 5xx → server, else http; an
//!   out-of-credit body is balance whatever the status);
//! - headers only add detail: a `request-id` / `x-request-id` header fills the response's
//!   `requestId` when the body has none, and a 2xx reply that is not JSON but declares
//!   itself HTML says so in its error (a captive portal or a wrong base URL, not a broken
//!   model).
//!
//! A reply that never arrived (network failure, timeout, the user's abort) is not a reply:
//! the shells map those with [`network_error`](super::error::transport::network_error) and
//! [`timeout_error`](super::error::transport::timeout_error).

use super::error::transport::redirect_error;
use super::parsed::ParsedResponse;
use super::wire::Wire;
use crate::model::{ErrorKind, ProbeError};

/// The header names [`interpret`] reads; a shell may pass just these (any case).
pub const INTERPRETED_HEADERS: &[&str] = &["content-type", "request-id", "x-request-id", "location"];

/// What [`interpret`] needs to know besides the reply: the requested model and the wire
/// format of the engine that was asked ([`Endpoint::interpret`](super::Endpoint::interpret)
/// builds it for a session).
#[derive(Debug, Clone, Copy)]
pub struct Interpret<'a> {
    /// The requested model (used when the response names none).
    pub model: &'a str,
    /// The engine's reply format.
    pub wire: &'a Wire,
}

/// A complete HTTP reply as a shell received it.
#[derive(Debug, Clone, Copy)]
pub struct EngineReply<'a> {
    /// HTTP status.
    pub status: u16,
    /// Response headers as (name, value); names in any case. Only [`INTERPRETED_HEADERS`]
    /// are read.
    pub headers: &'a [(&'a str, &'a str)],
    /// The body as text.
    pub body: &'a str,
}

impl EngineReply<'_> {
    /// The first header named `name` (case-insensitive), trimmed, if not blank.
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.trim()).filter(|v| !v.is_empty())
    }
}

/// The outcome of one attempt from its reply (see the module docs for the rules).
pub fn interpret(reply: &EngineReply, how: &Interpret) -> Result<ParsedResponse, ProbeError> {
    if (300..400).contains(&reply.status) {
        return Err(redirect_error(Some(reply.status), reply.header("location")));
    }
    if !(200..300).contains(&reply.status) {
        return Err(how.wire.map_error(reply.status, reply.body));
    }
    match (how.wire.parse)(reply.body, how.model) {
        Ok(mut parsed) => {
            if parsed.request_id.is_none() {
                let id = reply.header("request-id").or_else(|| reply.header("x-request-id"));
                parsed.request_id = id.map(str::to_string);
            }
            Ok(parsed)
        }
        Err(e) if e.kind == ErrorKind::InvalidJson && declares_html(reply) => {
            Err(how.wire.invalid_json("the server answered with an html page, not json"))
        }
        Err(e) => Err(e),
    }
}

/// Whether the reply says it is HTML (`content-type: text/html…`).
fn declares_html(reply: &EngineReply) -> bool {
    reply.header("content-type").is_some_and(|v| v.to_ascii_lowercase().starts_with("text/html"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::EngineId;
    use crate::provider::engines::wire;
    use crate::provider::error::kind::{invalid_json, map_http, no_own_codes};

    const OK: &str = r#"{"id":"msg_1","type":"message","model":"deepseek-v4-flash","content":[{"type":"text","text":"hi"}],"stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":1}}"#;

    fn run(status: u16, headers: &[(&str, &str)], body: &str) -> Result<ParsedResponse, ProbeError> {
        interpret(
            &EngineReply { status, headers, body },
            &Interpret { model: "deepseek-v4-flash", wire: wire(EngineId::Deepseek) },
        )
    }

    #[track_caller]
    fn check(status: u16, headers: &[(&str, &str)], body: &str, expect: Result<(), ErrorKind>) {
        assert_eq!(run(status, headers, body).map(|_| ()).map_err(|e| e.kind), expect, "{status} {body}");
    }

    /// Security review II, finding 3: a redirect is an `http` error naming where it pointed
    /// (scheme and host only), whatever its body says.
    #[test]
    fn a_redirect_is_an_error_that_names_its_host() {
        let e = run(302, &[("Location", "https://other.example:8443/steal?token=T0K")], OK).unwrap_err();
        assert_eq!((e.kind, e.http_status), (ErrorKind::Http, Some(302)));
        assert!(e.message.contains("redirected the request to https://other.example:8443"), "{}", e.message);
        assert!(!e.message.contains("T0K") && !e.message.contains("steal"), "{}", e.message);
        assert!(crate::provider::INTERPRETED_HEADERS.contains(&"location"));
        let e = run(307, &[], "").unwrap_err();
        assert!(e.message.contains("redirected the request (not followed, http 307)"), "{}", e.message);
        assert!(!crate::runner::is_retryable(e.kind), "never retried");
    }

    #[test]
    fn statuses_and_bodies_map_to_outcomes() {
        check(200, &[], OK, Ok(()));
        check(204, &[], OK, Ok(()));
        check(
            401,
            &[],
            r#"{"type":"error","error":{"type":"authentication_error","message":"bad key"}}"#,
            Err(ErrorKind::Auth),
        );
        check(402, &[], "", Err(ErrorKind::Balance));
        check(400, &[], r#"{"error":{"message":"Insufficient Balance"}}"#, Err(ErrorKind::Balance));
        check(403, &[], "", Err(ErrorKind::Forbidden));
        check(408, &[], "", Err(ErrorKind::Timeout));
        check(429, &[], "{}", Err(ErrorKind::RateLimit));
        check(500, &[], "oops", Err(ErrorKind::Server));
        check(529, &[], "", Err(ErrorKind::Server));
        check(404, &[], "", Err(ErrorKind::Http));
        check(302, &[], "", Err(ErrorKind::Http));
        check(200, &[], "<html>", Err(ErrorKind::InvalidJson));
        check(
            200,
            &[],
            r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
            Err(ErrorKind::Server),
        );
        // The same mapping as the provider's own functions, status recorded.
        let e = run(503, &[], "Service Unavailable").unwrap_err();
        assert_eq!(e, map_http(EngineId::Deepseek, no_own_codes, 503, "Service Unavailable"));
    }

    #[test]
    fn headers_fill_the_request_id_and_name_an_html_page() {
        let no_id = OK.replace(r#""id":"msg_1","#, "");
        let got = run(200, &[("Request-Id", " req_9 ")], &no_id).unwrap();
        assert_eq!(got.request_id.as_deref(), Some("req_9"));
        let got = run(200, &[("x-request-id", "req_8")], &no_id).unwrap();
        assert_eq!(got.request_id.as_deref(), Some("req_8"));
        // The body's own id wins.
        assert_eq!(run(200, &[("request-id", "req_9")], OK).unwrap().request_id.as_deref(), Some("msg_1"));
        let html = run(200, &[("Content-Type", "text/html; charset=utf-8")], "<html>login</html>").unwrap_err();
        assert_eq!(html.kind, ErrorKind::InvalidJson);
        assert!(html.message.contains("html page"), "{}", html.message);
        assert!(!run(200, &[], "<html>").unwrap_err().message.contains("html page"));
    }

    #[test]
    fn an_engine_brings_its_own_wire_format() {
        fn parse(_: &str, model: &str) -> Result<ParsedResponse, ProbeError> {
            Ok(ParsedResponse { model: model.to_string(), ..ParsedResponse::default() })
        }
        fn error_kind(_: u16, _: &str, _: &crate::provider::error::body::ProviderErrorBody) -> Option<ErrorKind> {
            Some(ErrorKind::Refused)
        }
        let other = Wire { parse, error_kind, ..*wire(EngineId::Qwen) };
        let how = Interpret { model: "m", wire: &other };
        assert_eq!(interpret(&EngineReply { status: 200, headers: &[], body: "x" }, &how).unwrap().model, "m");
        let e = interpret(&EngineReply { status: 401, headers: &[], body: "" }, &how).unwrap_err();
        assert_eq!((e.kind, e.http_status), (ErrorKind::Refused, Some(401)));
        assert!(e.message.contains("qwen"), "{}", e.message);
        let html = interpret(&EngineReply { status: 200, headers: &[("content-type", "text/html")], body: "<" }, &how);
        assert!(html.is_ok(), "its own parser read it");
        assert_eq!(other.invalid_json("x"), invalid_json(EngineId::Qwen, "x"));
    }
}
