//! Every engine's wire format (`shared/spec/engines.md`): URL, headers, request body,
//! response parsing into the raw result and error mapping. Pure: the shells perform the
//! HTTP request.
//!
//! - [`engine`]: the engine table ([`ENGINES`]) and the one interface the runner's shells
//!   use ([`Endpoint`], `engine_*` dispatch, [`Wire::of`] per engine);
//! - [`url`]: the one base-URL rule and the key-or-proxy rule for every engine, DeepSeek's
//!   endpoint and headers (seed §4.1);
//! - [`request`], [`response`]: the Messages request body (§4.2) and parser (§4.3), shared
//!   by DeepSeek and Anthropic;
//! - [`openai`], [`gemini`], [`perplexity`]: the other engines' bodies and parsers;
//! - [`qwen`], [`doubao`], [`ernie`], [`hunyuan`]: the Chinese engines' bodies and parsers
//!   (engines.md, "Chinese engines");
//! - [`errors`]: status/body → [`ProbeError`](crate::model::ProbeError) per engine, UI wording;
//! - [`interpret`](mod@interpret): a whole HTTP reply → the attempt's outcome, for both
//!   shells and every engine (the engine's [`Wire`] reads the body);
//! - [`keytest`]: the settings page's key test; [`doctor`]: `geo-probe doctor` and the
//!   settings page's search check;
//! - [`budget`]: what each engine and model is asked to spend (output budget, reasoning
//!   effort, thinking budget);
//! - [`turn`]: a Messages turn paused by `pause_turn`, continued and read as one.

pub mod budget;
pub mod doctor;
pub mod doubao;
pub mod engine;
pub mod ernie;
pub mod errors;
pub mod gemini;
pub mod hunyuan;
pub mod interpret;
pub mod keytest;
pub mod local_proxy;
pub mod openai;
pub mod perplexity;
pub mod qwen;
pub mod request;
pub mod response;
pub mod turn;
pub mod url;
mod wire;

pub use engine::{
    endpoint_url, engine_headers, engine_path, engine_request_body, model_or_default, parse_engine_response, spec,
    Auth, BrowserAccess, Caller, Endpoint, EngineSpec, ENGINES,
};

pub use errors::{
    describe_engine_error, describe_error, empty_answer_error, engine_invalid_json_error, engine_network_error,
    invalid_json_error, is_browser_block_message, kind_for_status, map_engine_http_error, map_http_error,
    network_error, parse_error_body, redirect_error, reply_too_large_error, timeout_error, ProviderErrorBody,
};
pub use interpret::{interpret, Interpret, Reply, Wire, INTERPRETED_HEADERS};
pub use keytest::{
    build_engine_key_test_body, build_key_test_body, interpret_engine_key_test, interpret_key_test, KeyVerdict,
    KEY_TEST_PROMPT,
};
pub use request::{
    build_request, build_request_body, request_body_json, MessagesRequest, MAX_TOKENS, REQUEST_TIMEOUT_MS,
    SYSTEM_PROMPT, WEB_SEARCH_TOOL_NAME, WEB_SEARCH_TOOL_TYPE,
};
pub use response::{is_internal_query, parse_messages, parse_response, Citations};
pub use turn::{Continuation, MAX_CONTINUATIONS};
pub use url::{
    auth_mode, build_messages_url, check_key, parse_base_url, request_headers, ApiKey, BaseUrl, BaseUrlError, KeyError,
    KeyMode, ANTHROPIC_VERSION, DEFAULT_API_BASE_URL, MESSAGES_PATH,
};

use crate::model::{ErrorKind, Query, RawCitation, RawSource, Usage};
use serde::Serialize;

/// What a successful response of any engine carries, in the snapshot model's terms (the raw
/// result of data-model.md).
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ParsedResponse {
    /// All `text` blocks joined (before cleaning); see [`response`] for the joining rule.
    pub raw_answer: String,
    /// `server_tool_use` searches, numbered 1.. in order of appearance.
    pub queries: Vec<Query>,
    /// `web_search_result`s, rank restarting at 1 for every query.
    pub raw_sources: Vec<RawSource>,
    /// The engine's own citations: an array whenever the engine has a citation mechanism
    /// (possibly empty), `None` when it has none (engines.md).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub raw_citations: Option<Vec<RawCitation>>,
    /// Token and search usage.
    pub usage: Usage,
    /// Top-level `id`.
    pub request_id: Option<String>,
    /// Top-level `stop_reason`.
    pub stop_reason: Option<String>,
    /// Model that answered, the requested one when the response omits it.
    pub model: String,
    /// The reply stopped on a length limit (Messages `max_tokens`, OpenAI `incomplete` for
    /// `max_output_tokens`, Gemini `MAX_TOKENS`, Perplexity `length`, or a `<think>` section
    /// never closed): engines.md, "Fidelity".
    pub truncated: bool,
    /// The engine's own stated cost of this reply in USD (Perplexity `usage.cost.total_cost`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
    /// A Messages reply's `content` blocks as received, so that a `pause_turn` can be sent
    /// back and the whole turn read as one ([`turn`]); `None` for the other engines.
    #[serde(skip)]
    pub content: Option<Vec<serde_json::Value>>,
}

impl ParsedResponse {
    /// Whether the server-side tool loop paused before the answer (Messages
    /// `stop_reason: "pause_turn"`): the turn is continued, not retried.
    pub fn paused(&self) -> bool {
        self.stop_reason.as_deref() == Some(turn::PAUSE_TURN)
    }
}

/// Whether a failed attempt of this kind is tried again (seed §3.4).
///
/// 401/402/403 and a content-filter refusal are never retried; 408, 429, 5xx, network errors, timeouts, invalid JSON
/// and empty answers are. Any other HTTP status (400, 404, 422 …) is a deterministic
/// client error and is not retried either.
pub fn is_retryable(kind: ErrorKind) -> bool {
    match kind {
        ErrorKind::Auth | ErrorKind::Balance | ErrorKind::Forbidden | ErrorKind::Http | ErrorKind::Refused => false,
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
