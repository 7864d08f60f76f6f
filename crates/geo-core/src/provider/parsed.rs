//! The raw result every engine's reply is read into ([`ParsedResponse`], data-model.md's
//! `rawAnswer`, `queries`, `rawSources`, `rawCitations`, `usage` …), and what a paused Messages
//! turn sends back ([`Continuation`]).
//!
//! One type for nine engines is what keeps analysis, metrics, exports and the UI free of
//! engine-specific code: a parser's whole job is to fill it. It imports only the model, so
//! every parser and the runner can name it without importing each other.

use serde::Serialize;
use serde_json::Value;

use crate::model::{Query, RawCitation, RawSource, Usage};

/// Messages `stop_reason` of a paused turn (DeepSeek, Anthropic; engines.md, "Fidelity").
pub const PAUSE_TURN: &str = "pause_turn";

/// What a successful response of any engine carries, in the snapshot model's terms (the raw
/// result of data-model.md).
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ParsedResponse {
    /// All `text` blocks joined (before cleaning); see the Messages dialect for the joining rule.
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
    /// back and the whole turn read as one; `None` for the other engines.
    #[serde(skip)]
    pub content: Option<Vec<Value>>,
}

impl ParsedResponse {
    /// Whether the server-side tool loop paused before the answer (Messages
    /// `stop_reason: "pause_turn"`): the turn is continued, not retried.
    pub fn paused(&self) -> bool {
        self.stop_reason.as_deref() == Some(PAUSE_TURN)
    }
}

/// What a continuation request sends back: the content of every paused reply of the turn so
/// far, in order, as one `assistant` message (engines.md: one message holding every paused
/// reply's content, or one per reply, are both accepted).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Continuation {
    /// The paused replies' `content` blocks, as received.
    pub assistant_content: Vec<Value>,
}

impl Continuation {
    /// The continuation after the paused replies `turn` (their blocks, in order; a reply
    /// without blocks adds none).
    pub fn of(turn: &[ParsedResponse]) -> Continuation {
        let mut assistant_content = Vec::new();
        for reply in turn {
            assistant_content.extend_from_slice(reply.content.as_deref().unwrap_or_default());
        }
        Continuation { assistant_content }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parsed_response_serialises_camel_case() {
        let v = serde_json::to_value(ParsedResponse::default()).unwrap();
        for key in ["rawAnswer", "queries", "rawSources", "usage", "requestId", "stopReason", "model"] {
            assert!(v.get(key).is_some(), "{key}");
        }
    }
}
