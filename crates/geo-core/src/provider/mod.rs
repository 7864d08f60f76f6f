//! The DeepSeek Anthropic-compatible Messages wire format: URL, headers, request body,
//! response parsing and error mapping. Pure: the shells perform the HTTP request.
//!
//! - [`url`]: endpoint rules and headers (seed §4.1);
//! - [`request`]: the probe request body (§4.2);
//! - [`response`]: `parse_response` (§4.3);
//! - [`errors`]: status/body → [`ProbeError`](crate::model::ProbeError), UI wording;
//! - [`interpret`](mod@interpret): a whole HTTP reply → the attempt's outcome, for both shells;
//! - [`keytest`]: the settings page's key test.

pub mod errors;
pub mod interpret;
pub mod keytest;
pub mod request;
pub mod response;
pub mod url;

pub use errors::{
    describe_error, empty_answer_error, invalid_json_error, kind_for_status, map_http_error, network_error,
    parse_error_body, timeout_error, ProviderErrorBody,
};
pub use interpret::{interpret, Interpret, Reply, Wire, INTERPRETED_HEADERS};
pub use keytest::{build_key_test_body, interpret_key_test, KeyVerdict, KEY_TEST_PROMPT};
pub use request::{
    build_request, build_request_body, request_body_json, MessagesRequest, MAX_TOKENS, REQUEST_TIMEOUT_MS,
    SYSTEM_PROMPT, WEB_SEARCH_TOOL_NAME, WEB_SEARCH_TOOL_TYPE,
};
pub use response::{is_internal_query, parse_response};
pub use url::{build_messages_url, request_headers, ANTHROPIC_VERSION, DEFAULT_API_BASE_URL, MESSAGES_PATH};

use crate::model::{ErrorKind, Query, RawSource, Usage};
use serde::Serialize;

/// What a successful Messages response carries, in the snapshot model's terms.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ParsedResponse {
    /// All `text` blocks joined (before cleaning); see [`response`] for the joining rule.
    pub raw_answer: String,
    /// `server_tool_use` searches, numbered 1.. in order of appearance.
    pub queries: Vec<Query>,
    /// `web_search_result`s, rank restarting at 1 for every query.
    pub raw_sources: Vec<RawSource>,
    /// Token and search usage.
    pub usage: Usage,
    /// Top-level `id`.
    pub request_id: Option<String>,
    /// Top-level `stop_reason`.
    pub stop_reason: Option<String>,
    /// Model that answered, the requested one when the response omits it.
    pub model: String,
}

/// Whether a failed attempt of this kind is tried again (seed §3.4).
///
/// 401/402/403 are never retried; 408, 429, 5xx, network errors, timeouts, invalid JSON
/// and empty answers are. Any other HTTP status (400, 404, 422 …) is a deterministic
/// client error and is not retried either.
pub fn is_retryable(kind: ErrorKind) -> bool {
    match kind {
        ErrorKind::Auth | ErrorKind::Balance | ErrorKind::Forbidden | ErrorKind::Http => false,
        ErrorKind::RateLimit
        | ErrorKind::Server
        | ErrorKind::Timeout
        | ErrorKind::Network
        | ErrorKind::InvalidJson
        | ErrorKind::Empty => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The seed §3.4 retry table, reached through the error constructors.
    #[test]
    fn retry_table() {
        let rows = [
            (map_http_error(401, ""), false),
            (map_http_error(402, ""), false),
            (map_http_error(403, ""), false),
            (map_http_error(400, r#"{"error":{"message":"Insufficient Balance"}}"#), false),
            (map_http_error(400, "bad request"), false),
            (map_http_error(404, ""), false),
            (map_http_error(422, ""), false),
            (map_http_error(408, ""), true),
            (map_http_error(429, ""), true),
            (map_http_error(500, ""), true),
            (map_http_error(503, ""), true),
            (map_http_error(529, ""), true),
            (network_error("reset"), true),
            (timeout_error(REQUEST_TIMEOUT_MS), true),
            (parse_response("<html>", "m").unwrap_err(), true),
            (empty_answer_error(), true),
        ];
        for (err, retry) in rows {
            assert_eq!(is_retryable(err.kind), retry, "{err:?}");
        }
    }

    #[test]
    fn parsed_response_serialises_camel_case() {
        let v = serde_json::to_value(ParsedResponse::default()).unwrap();
        for key in ["rawAnswer", "queries", "rawSources", "usage", "requestId", "stopReason", "model"] {
            assert!(v.get(key).is_some(), "{key}");
        }
    }
}
