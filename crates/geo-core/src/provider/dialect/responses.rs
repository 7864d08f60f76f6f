//! The Responses dialect that OpenAI and Doubao (Volcengine Ark's `/api/v3/responses`) speak:
//! a request's input message, `web_search` tool and reasoning effort, the walk over a reply's
//! `output` items, a `message` item's text and its annotations, the blank line between two
//! messages, the reply's status and why it stopped, the usage block and the key test's body.
//!
//! The two engines read a `web_search_call` differently (OpenAI lists several queries and the
//! pages it retrieved, Ark one query and no pages) and their annotations mean different things
//! (OpenAI's cite a retrieved page, Ark's are the only sources), so those stay in each engine's
//! file; the walk over a message's parts and the fields around it are here once.

use serde::Serialize;
use serde_json::{Map, Value};

use crate::model::{EngineId, ProbeError, Usage};
use crate::provider::error::kind::invalid_json;
use crate::provider::location::UserLocation;
use crate::provider::read::{count, non_blank, str_field};

/// `incomplete_details.reason` of a reply cut off by `max_output_tokens`.
pub const MAX_OUTPUT_TOKENS_REASON: &str = "max_output_tokens";

/// One message of a request's `input`: `{"role","content"}`, the content a string (OpenAI) or
/// a list of parts (Ark).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct InputMessage<C> {
    /// `system` or `user`.
    pub role: &'static str,
    /// The text, or its parts.
    pub content: C,
}

/// The hosted search tool: `{"type":"web_search"}`, with Ark's results per search (`limit`)
/// and the run's `user_location` (`{"type":"approximate", country, region?, city?,
/// timezone?}`) when it has one.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WebSearchTool<'a> {
    /// Always `web_search`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// Results per search (Ark only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub limit: Option<u32>,
    /// The run's location.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub user_location: Option<UserLocation<'a>>,
}

/// A request's `reasoning`: `{"effort":"low|medium|high"}`, for a model that takes one.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Reasoning {
    /// The run's reasoning effort.
    pub effort: &'static str,
}

/// What an engine reads from the items of a reply's `output`; the rest (`reasoning`, anything
/// unknown) is skipped.
pub trait OutputItems: Default {
    /// A `web_search_call` item.
    fn search_call(&mut self, item: &Map<String, Value>);
    /// A `message` item.
    fn message(&mut self, item: &Map<String, Value>);
}

/// Walks the reply `obj`'s `output` items once, in order.
///
/// Errors: no `output` array → `invalid_json`.
pub fn walk_output<O: OutputItems>(engine: EngineId, obj: &Map<String, Value>) -> Result<O, ProbeError> {
    let Some(Value::Array(items)) = obj.get("output") else {
        return Err(invalid_json(engine, "the body has no output array"));
    };
    let mut out = O::default();
    for item in items.iter().filter_map(Value::as_object) {
        match str_field(item, "type") {
            Some("web_search_call") => out.search_call(item),
            Some("message") => out.message(item),
            _ => {}
        }
    }
    Ok(out)
}

/// The text of a `message` item: its `output_text` parts joined as they are, each part's
/// annotations handed to `annotation` together with that part's text (their offsets count in
/// it).
pub fn message_text(item: &Map<String, Value>, mut annotation: impl FnMut(&Map<String, Value>, &str)) -> String {
    let mut text = String::new();
    for part in item.get("content").and_then(Value::as_array).into_iter().flatten() {
        let Some(part) = part.as_object() else { continue };
        if str_field(part, "type") != Some("output_text") {
            continue;
        }
        let part_text = str_field(part, "text").unwrap_or("");
        text.push_str(part_text);
        for a in part.get("annotations").and_then(Value::as_array).into_iter().flatten() {
            if let Some(a) = a.as_object() {
                annotation(a, part_text);
            }
        }
    }
    text
}

/// Appends one message's text to the answer: two messages are different utterances, so a
/// blank line separates them; a blank message adds nothing.
pub fn push_message(answer: &mut String, text: &str) {
    if !text.trim().is_empty() {
        if !answer.is_empty() {
            answer.push_str("\n\n");
        }
        answer.push_str(text);
    }
}

/// A reply's `status` and, when it has one, `incomplete_details.reason` (both non-blank).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Status<'a> {
    /// `status`: `completed`, `incomplete`, `failed` …
    pub status: Option<&'a str>,
    /// `incomplete_details.reason`.
    pub reason: Option<&'a str>,
}

impl<'a> Status<'a> {
    /// The status of the reply `obj`.
    pub fn of(obj: &'a Map<String, Value>) -> Status<'a> {
        let reason = obj.get("incomplete_details").and_then(|d| d.get("reason")).and_then(Value::as_str);
        Status { status: non_blank(str_field(obj, "status")), reason: non_blank(reason) }
    }

    /// The raw result's `stopReason`: why an incomplete reply stopped, else the status.
    pub fn stop_reason(self) -> Option<&'a str> {
        match (self.status, self.reason) {
            (Some("incomplete"), Some(r)) => Some(r),
            (s, _) => s,
        }
    }

    /// Whether the reply is incomplete for one of `reasons`.
    pub fn incomplete_for(self, reasons: &[&str]) -> bool {
        self.status == Some("incomplete") && self.reason.is_some_and(|r| reasons.contains(&r))
    }
}

/// The reply's `usage` with `searches` search requests: `input_tokens` counts the cached
/// tokens, which the raw result keeps apart.
pub fn usage(obj: &Map<String, Value>, searches: u64) -> Usage {
    let usage = obj.get("usage").and_then(Value::as_object);
    let input = count(usage.and_then(|u| u.get("input_tokens")));
    let cached = count(usage.and_then(|u| u.get("input_tokens_details")).and_then(|d| d.get("cached_tokens")));
    Usage {
        input_tokens: input.saturating_sub(cached),
        output_tokens: count(usage.and_then(|u| u.get("output_tokens"))),
        cache_read_input_tokens: cached.min(input),
        web_search_requests: searches,
        search_context_size: None,
    }
}

/// The key test's body (`Wire::key_test_body`): the prompt as the input, 16 output tokens (the
/// Responses API refuses fewer).
pub const KEY_TEST_BODY: &str = r#"{"input":{prompt},"max_output_tokens":16,"model":{model}}"#;
