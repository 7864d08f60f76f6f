//! The chat-completions dialect that Perplexity, Qwen (DashScope's native body wraps the same
//! messages), ERNIE and Hunyuan speak: the probe's two messages, a message's text, a search
//! result's `index`, the citations an answer's marker numbers make, the usage block, the
//! length stop and the key test's body.
//!
//! Each engine adds its own search switches, its own result fields and its own refusals; what
//! is here is what all of them (or the named ones) do the same way, so that a rule such as
//! "a result's index is a whole number, or a string of digits" is written once.

use std::borrow::Cow;

use rustc_hash::FxHashSet;
use serde::Serialize;
use serde_json::{Map, Value};

use crate::model::{RawCitation, RawSource, RunConfig, Usage};
use crate::provider::location::system_prompt;
use crate::provider::read::{count, non_blank, str_field};

/// `finish_reason` of a reply cut off by its output budget.
pub const LENGTH_FINISH: &str = "length";

/// `{"role","content"}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ProbeMessage<'a> {
    /// `system` or `user`.
    pub role: &'static str,
    /// The text.
    pub content: Cow<'a, str>,
}

/// The seed's neutral system prompt (with the `User location:` line when the run's location
/// goes there: `location::system_prompt`), then `prompt_text`: the messages of every
/// chat-shaped probe request.
pub fn probe_messages<'a>(prompt_text: &'a str, config: &RunConfig) -> [ProbeMessage<'a>; 2] {
    [
        ProbeMessage { role: "system", content: system_prompt(config) },
        ProbeMessage { role: "user", content: Cow::Borrowed(prompt_text) },
    ]
}

/// The text of a message `content`: a string, or the `text` of its parts joined.
pub fn content_text(content: Option<&Value>) -> String {
    match content {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(parts)) => {
            parts.iter().filter_map(|p| p.get("text").and_then(Value::as_str)).collect::<Vec<_>>().join("")
        }
        _ => String::new(),
    }
}

/// A chat completion's first choice (`choices[0]`, an object), its `message` and its
/// `finish_reason` (non-blank).
#[derive(Debug, Clone, Copy)]
pub struct Choice<'a> {
    /// `choices[0]`.
    pub choice: Option<&'a Map<String, Value>>,
    /// `choices[0].message`.
    pub message: Option<&'a Value>,
    /// `choices[0].finish_reason`, trimmed.
    pub finish: Option<&'a str>,
}

/// The first of `choices` ([`Choice`]).
pub fn first_choice(choices: &[Value]) -> Choice<'_> {
    let choice = choices.first().and_then(Value::as_object);
    Choice {
        choice,
        message: choice.and_then(|c| c.get("message")),
        finish: choice.and_then(|c| non_blank(str_field(c, "finish_reason"))),
    }
}

/// Where an engine's search results are numbered from: the numbers its citation markers name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Numbering {
    /// From 1 (Qwen, Hunyuan): an `index` of 0, or one beyond `u32`, is no index, and the
    /// result takes its 1-based position instead.
    FromOne,
    /// From 0 or from 1, as the list says (ERNIE, whose lists are sometimes numbered from 0):
    /// every whole number is an index.
    FromZero,
}

/// A search result's `index`: a non-negative whole number (or an integral float, or a string
/// of digits), read by `numbering`.
pub fn index_of(v: Option<&Value>, numbering: Numbering) -> Option<u64> {
    let n = match v? {
        Value::Number(n) => {
            n.as_u64().or_else(|| n.as_f64().filter(|f| *f >= 0.0 && f.fract() == 0.0).map(|f| f as u64))
        }
        Value::String(s) => s.trim().parse::<u64>().ok(),
        _ => None,
    }?;
    match numbering {
        Numbering::FromZero => Some(n),
        Numbering::FromOne => u32::try_from(n).ok().filter(|n| *n >= 1).map(u64::from),
    }
}

/// Which sources one marker number cites.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Take {
    /// The first source of that rank (Qwen).
    First,
    /// Every source of that rank, each URL once (Hunyuan, whose ranks may repeat).
    Every,
}

/// The citations the answer's marker `numbers` make, in their order: for each number the
/// sources whose rank is that number (`take`), each with the number as its `index` (what "What
/// the answers say" finds a sentence's sources by). A number naming no source cites nothing.
pub fn citations_by_rank(numbers: &[u32], sources: &[RawSource], take: Take) -> Vec<RawCitation> {
    let mut out: Vec<RawCitation> = Vec::new();
    for &n in numbers {
        let mut seen: FxHashSet<&str> = FxHashSet::default();
        for s in sources {
            if s.rank != n || !seen.insert(s.url.as_str()) {
                continue;
            }
            let title = (!s.title.is_empty()).then(|| s.title.clone());
            out.push(RawCitation { url: s.url.clone(), title, cited_text: None, index: Some(n) });
            if take == Take::First {
                break;
            }
        }
    }
    out
}

/// `usage` as `prompt_tokens` and `completion_tokens`, no cached tokens kept apart, and
/// `searches` search requests (Perplexity, Hunyuan).
pub fn usage(usage: Option<&Map<String, Value>>, searches: u64) -> Usage {
    Usage {
        input_tokens: count(usage.and_then(|u| u.get("prompt_tokens"))),
        output_tokens: count(usage.and_then(|u| u.get("completion_tokens"))),
        cache_read_input_tokens: 0,
        web_search_requests: searches,
        search_context_size: None,
    }
}

/// The key test's body (`Wire::key_test_body`): one user message, one output token
/// (Perplexity, Hunyuan).
pub const KEY_TEST_BODY: &str = r#"{"max_tokens":1,"messages":[{"content":{prompt},"role":"user"}],"model":{model}}"#;

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_index_is_a_whole_number_read_by_the_engines_numbering() {
        let from_one = |v: Value| index_of(Some(&v), Numbering::FromOne);
        let from_zero = |v: Value| index_of(Some(&v), Numbering::FromZero);
        assert_eq!((from_one(json!(3)), from_one(json!(" 7 ")), from_one(json!(2.0))), (Some(3), Some(7), Some(2)));
        assert_eq!((from_one(json!(0)), from_zero(json!(0)), from_zero(json!("0"))), (None, Some(0), Some(0)));
        for bad in [json!(-1), json!(1.5), json!("x"), json!(null), json!([1])] {
            assert_eq!((from_one(bad.clone()), from_zero(bad.clone())), (None, None), "{bad}");
        }
        assert_eq!(from_one(json!(5_000_000_000u64)), None);
        assert_eq!(from_zero(json!(5_000_000_000u64)), Some(5_000_000_000));
        assert_eq!(index_of(None, Numbering::FromZero), None);
    }

    #[test]
    fn citations_follow_the_marker_numbers() {
        let source = |rank: u32, url: &str| RawSource {
            query_index: 1,
            rank,
            title: format!("T{rank}"),
            url: url.into(),
            page_age: None,
            site_name: None,
        };
        let sources = [source(2, "https://b"), source(1, "https://a"), source(2, "https://c"), source(2, "https://b")];
        let got = |take| -> Vec<(String, Option<u32>)> {
            citations_by_rank(&[2, 9, 1], &sources, take).into_iter().map(|c| (c.url, c.index)).collect()
        };
        let pairs = |v: &[(&str, u32)]| v.iter().map(|(u, n)| (u.to_string(), Some(*n))).collect::<Vec<_>>();
        assert_eq!(got(Take::First), pairs(&[("https://b", 2), ("https://a", 1)]));
        assert_eq!(got(Take::Every), pairs(&[("https://b", 2), ("https://c", 2), ("https://a", 1)]));
    }
}
