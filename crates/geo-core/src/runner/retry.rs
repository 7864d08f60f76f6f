//! The retry rule of one probe (seed §3.4): what one attempt's outcome leads to.

use crate::analysis::clean::clean_answer;
use crate::model::{ErrorKind, ProbeError, ProbeStatus};
use crate::provider::ParsedResponse;

/// Attempts per probe before it is recorded as `error` or `empty`.
pub const MAX_ATTEMPTS: u32 = 3;
/// Per-request timeout the shell enforces (180 s); it reports an expiry as a `timeout` error.
pub const DEFAULT_TIMEOUT_MS: u64 = 180_000;
/// Back-off after a retryable error: this many milliseconds × the attempt just made, plus jitter.
pub const ERROR_BACKOFF_STEP_MS: u64 = 1_200;
/// Back-off after an empty answer: this many milliseconds × the attempt just made, no jitter.
pub const EMPTY_BACKOFF_STEP_MS: u64 = 900;
/// Largest jitter added to an error back-off (the jitter lies in `0..=MAX_JITTER_MS`).
pub const MAX_JITTER_MS: u32 = 400;

/// What one attempt gave: the parsed Messages response, or the error the shell mapped it to
/// (HTTP status, network failure, timeout or invalid JSON) with the provider functions.
pub type AttemptOutcome = Result<ParsedResponse, ProbeError>;

/// What happens after an attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Try again after waiting this long.
    Retry {
        /// Milliseconds to wait before the next attempt.
        backoff_ms: u64,
    },
    /// The probe is done with this status.
    Finish(ProbeStatus),
}

/// Maps any random `u32` into the jitter range `0..=MAX_JITTER_MS` by remainder (the tiny
/// modulo bias does not matter for spreading retries).
pub fn jitter_ms(random: u32) -> u64 {
    u64::from(random % (MAX_JITTER_MS + 1))
}

/// Back-off after retryable error number `attempt` (1-based): 1200 ms × attempt + jitter.
pub fn error_backoff_ms(attempt: u32, random: u32) -> u64 {
    ERROR_BACKOFF_STEP_MS * u64::from(attempt) + jitter_ms(random)
}

/// Back-off after empty answer number `attempt` (1-based): 900 ms × attempt.
pub fn empty_backoff_ms(attempt: u32) -> u64 {
    EMPTY_BACKOFF_STEP_MS * u64::from(attempt)
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

/// Whether a response carries no usable answer: empty once cleaned (whitespace counts as empty).
pub fn is_empty_answer(response: &ParsedResponse) -> bool {
    clean_answer(&response.raw_answer).trim().is_empty()
}

/// The step after attempt number `attempt` (1-based) of at most `max_attempts`.
///
/// | outcome | step |
/// |---|---|
/// | non-empty answer | finish `success` |
/// | empty answer, attempts left | retry after [`empty_backoff_ms`] |
/// | empty answer, last attempt | finish `empty` |
/// | retryable error (rate_limit, server, timeout, network, invalid_json), attempts left | retry after [`error_backoff_ms`] |
/// | any other error, or the last attempt | finish `error` |
pub fn next_step(attempt: u32, max_attempts: u32, outcome: &AttemptOutcome, random: u32) -> Step {
    let attempts_left = attempt < max_attempts;
    match outcome {
        Ok(response) if !is_empty_answer(response) => Step::Finish(ProbeStatus::Success),
        Ok(_) if attempts_left => Step::Retry { backoff_ms: empty_backoff_ms(attempt) },
        Ok(_) => Step::Finish(ProbeStatus::Empty),
        Err(e) if attempts_left && is_retryable(e.kind) => {
            Step::Retry { backoff_ms: error_backoff_ms(attempt, random) }
        }
        Err(_) => Step::Finish(ProbeStatus::Error),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::EngineId;
    use crate::provider::{
        empty_answer_error, map_engine_http_error, network_error, parse_engine_response, timeout_error,
        REQUEST_TIMEOUT_MS,
    };

    /// The seed §3.4 retry table, reached through the error constructors.
    #[test]
    fn retry_table() {
        let map = |status, body| map_engine_http_error(EngineId::Deepseek, status, body);
        let rows = [
            (map(401, ""), false),
            (map(402, ""), false),
            (map(403, ""), false),
            (map(400, r#"{"error":{"message":"Insufficient Balance"}}"#), false),
            (map(400, "bad request"), false),
            (map(404, ""), false),
            (map(422, ""), false),
            (map(408, ""), true),
            (map(429, ""), true),
            (map(500, ""), true),
            (map(503, ""), true),
            (map(529, ""), true),
            (network_error("reset"), true),
            (timeout_error(REQUEST_TIMEOUT_MS), true),
            (parse_engine_response(EngineId::Deepseek, "<html>", "m").unwrap_err(), true),
            (empty_answer_error(), true),
        ];
        for (err, retry) in rows {
            assert_eq!(is_retryable(err.kind), retry, "{err:?}");
        }
    }
}
