//! [`interpret`]: an HTTP reply (status, headers, body) → the runner's attempt outcome, the
//! one mapping both shells use (the browser's `fetch` and the CLI's blocking client used to
//! map it each on their own).
//!
//! Rules (seed §3.4):
//! - a 2xx status: the body is read by the engine's wire format ([`Wire::parse`]); an
//!   error envelope inside a 2xx body is an error of the kind its `type` names;
//! - a 3xx status: a redirect, which no shell follows (the key would go with it):
//!   [`redirect_error`](super::errors::redirect_error), naming where it pointed;
//! - any other status: [`Wire::map_error`] over the body (401 → auth, 402 → balance,
//!   403 → forbidden, 408 → timeout, 429 → rate limit, 5xx → server, else http; an
//!   out-of-credit body is balance whatever the status);
//! - headers only add detail: a `request-id` / `x-request-id` header fills the response's
//!   `requestId` when the body has none, and a 2xx reply that is not JSON but declares
//!   itself HTML says so in its error (a captive portal or a wrong base URL, not a broken
//!   model).
//!
//! A reply that never arrived (network failure, timeout, the user's abort) is not a reply:
//! the shells map those with [`network_error`](super::network_error) and
//! [`timeout_error`](super::timeout_error).

use super::{invalid_json_error, map_http_error, parse_response, ParsedResponse};
use crate::model::{ErrorKind, ProbeError};

/// The header names [`interpret`] reads; a shell may pass just these (any case).
pub const INTERPRETED_HEADERS: &[&str] = &["content-type", "request-id", "x-request-id", "location"];

/// One engine's reply format: how a 2xx body becomes a [`ParsedResponse`] and how an error
/// reply becomes a [`ProbeError`]. Every engine brings its own ([`Wire::of`], in
/// [`engine`](super::engine)).
#[derive(Debug, Clone, Copy)]
pub struct Wire {
    /// Reads a 2xx body; the second argument is the requested model (used when the body
    /// names none).
    pub parse: fn(&str, &str) -> Result<ParsedResponse, ProbeError>,
    /// Maps a non-2xx status and its body.
    pub map_error: fn(u16, &str) -> ProbeError,
    /// The `invalid_json` error of a 2xx reply that is not the engine's JSON, in the engine's
    /// words (the HTML-page rule below names it).
    pub invalid_json: fn(&str) -> ProbeError,
}

impl Wire {
    /// The Anthropic Messages format that DeepSeek's `/anthropic` endpoint speaks.
    pub const MESSAGES: Wire =
        Wire { parse: parse_response, map_error: map_http_error, invalid_json: invalid_json_error };
}

/// What [`interpret`] needs to know besides the reply: the requested model and the wire
/// format of the engine that was asked ([`Endpoint::interpret`](super::Endpoint::interpret)
/// builds it for a session).
#[derive(Debug, Clone, Copy)]
pub struct Interpret<'a> {
    /// The requested model (used when the response names none).
    pub model: &'a str,
    /// The engine's reply format.
    pub wire: Wire,
}

impl<'a> Interpret<'a> {
    /// Replies of DeepSeek's Messages endpoint (the engine of runs that name none).
    pub fn messages(model: &'a str) -> Self {
        Interpret { model, wire: Wire::MESSAGES }
    }
}

/// A complete HTTP reply as a shell received it.
#[derive(Debug, Clone, Copy)]
pub struct Reply<'a> {
    /// HTTP status.
    pub status: u16,
    /// Response headers as (name, value); names in any case. Only [`INTERPRETED_HEADERS`]
    /// are read.
    pub headers: &'a [(&'a str, &'a str)],
    /// The body as text.
    pub body: &'a str,
}

impl Reply<'_> {
    /// The first header named `name` (case-insensitive), trimmed, if not blank.
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.trim()).filter(|v| !v.is_empty())
    }
}

/// The outcome of one attempt from its reply (see the module docs for the rules).
pub fn interpret(reply: &Reply, how: &Interpret) -> Result<ParsedResponse, ProbeError> {
    if (300..400).contains(&reply.status) {
        return Err(super::errors::redirect_error(Some(reply.status), reply.header("location")));
    }
    if !(200..300).contains(&reply.status) {
        return Err((how.wire.map_error)(reply.status, reply.body));
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
            Err((how.wire.invalid_json)("the server answered with an html page, not json"))
        }
        Err(e) => Err(e),
    }
}

/// Whether the reply says it is HTML (`content-type: text/html…`).
fn declares_html(reply: &Reply) -> bool {
    reply.header("content-type").is_some_and(|v| v.to_ascii_lowercase().starts_with("text/html"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const OK: &str = r#"{"id":"msg_1","type":"message","model":"deepseek-v4-flash","content":[{"type":"text","text":"hi"}],"stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":1}}"#;

    fn run(status: u16, headers: &[(&str, &str)], body: &str) -> Result<ParsedResponse, ProbeError> {
        interpret(&Reply { status, headers, body }, &Interpret::messages("deepseek-v4-flash"))
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
        assert!(!crate::provider::is_retryable(e.kind), "never retried");
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
        assert_eq!(e, map_http_error(503, "Service Unavailable"));
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
        fn map_error(status: u16, _: &str) -> ProbeError {
            ProbeError { kind: ErrorKind::Http, http_status: Some(status), message: "other engine".into() }
        }
        let how = Interpret { model: "m", wire: Wire { parse, map_error, invalid_json: invalid_json_error } };
        assert_eq!(interpret(&Reply { status: 200, headers: &[], body: "x" }, &how).unwrap().model, "m");
        let e = interpret(&Reply { status: 401, headers: &[], body: "" }, &how).unwrap_err();
        assert_eq!((e.kind, e.message.as_str()), (ErrorKind::Http, "other engine"));
    }
}
