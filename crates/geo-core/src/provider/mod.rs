//! The DeepSeek Anthropic-compatible Messages wire format: URL, headers, request body,
//! response parsing and error mapping. Pure: the shells perform the HTTP request.

use crate::model::{ErrorKind, Query, RawSource, Usage};

/// What a successful Messages response carries, in the snapshot model's terms.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ParsedResponse {
    /// All `text` blocks joined (before cleaning).
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
