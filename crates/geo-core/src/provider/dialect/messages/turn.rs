//! A Messages turn that `pause_turn` split over several replies (DeepSeek, Anthropic;
//! engines.md, "Fidelity").
//!
//! The server-side tool loop may stop before the answer with `stop_reason: "pause_turn"`.
//! The client sends the same request again with the paused reply's `content` appended as one
//! `assistant` message ([`Continuation`](crate::provider::parsed::Continuation)), up to
//! [`MAX_CONTINUATIONS`] times; nothing else
//! changes (`max_uses` included). The probe's raw result is the whole turn ([`merge_turn`]):
//! every reply's blocks read as one `content` (text joined in order, queries numbered on,
//! every source and citation, a result block matched to its search across replies), `usage`
//! summed, and `requestId`, `stopReason` and `model` of the last reply.
//!
//! The runner decides when to continue (a continuation is a new `Send` of the same slot, not
//! an attempt); this module only knows the wire format.

use serde_json::Value;

use super::response::{Citations, Walk};
use crate::provider::parsed::ParsedResponse;

/// Continuations of one attempt before a still-paused turn counts as truncated.
pub const MAX_CONTINUATIONS: u32 = 4;

/// The raw result of a whole turn: `parts` are the replies in order (the paused ones, then
/// the last). Their blocks are read as one content; usage and stated costs are summed; the
/// top-level fields and `truncated` are the last reply's. A single part is returned as is;
/// parts without blocks (not Messages replies) keep the last part.
pub fn merge_turn(mut parts: Vec<ParsedResponse>) -> ParsedResponse {
    let Some(last) = parts.pop() else { return ParsedResponse::default() };
    if parts.is_empty() || last.content.is_none() {
        return last;
    }
    // Plain loops: an iterator chain is code of its own in the web app's module (ADR 0014).
    let mut cited = last.raw_citations.is_some();
    let (mut usage, mut cost) = (last.usage, last.cost_usd);
    let mut blocks: Vec<Value> = Vec::new();
    for p in &parts {
        let Some(content) = &p.content else { return last };
        cited |= p.raw_citations.is_some();
        usage = usage.plus(p.usage);
        cost = match (cost, p.cost_usd) {
            (Some(a), Some(b)) => Some(a + b),
            _ => None,
        };
        blocks.extend_from_slice(content);
    }
    blocks.extend_from_slice(last.content.as_deref().unwrap_or_default());
    let citations = if cited { Citations::Always } else { Citations::WhenPresent };
    let mut merged = Walk::of(&blocks).into_parsed(citations);
    merged.usage = usage;
    merged.cost_usd = cost;
    merged.request_id = last.request_id;
    merged.stop_reason = last.stop_reason;
    merged.model = last.model;
    merged.truncated = last.truncated;
    merged.content = Some(blocks);
    merged
}

#[cfg(test)]
mod tests {
    use super::super::response::parse_messages;
    use super::*;
    use crate::provider::parsed::Continuation;
    use serde_json::json;

    fn reply(v: Value) -> ParsedResponse {
        parse_messages(&v.to_string(), "claude-sonnet-4-6", Citations::Always).unwrap()
    }

    #[test]
    fn a_paused_turn_reads_as_one() {
        let first = reply(json!({"id": "msg_1", "stop_reason": "pause_turn", "model": "claude-sonnet-4-6",
            "content": [
                {"type": "text", "text": "我先搜索一下。"},
                {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "GEO 服务商"}},
                {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": [
                    {"type": "web_search_result", "url": "https://a.example", "title": "A"}]},
                {"type": "server_tool_use", "id": "srvtoolu_2", "name": "web_search", "input": {"query": "元构场"}}],
            "usage": {"input_tokens": 100, "output_tokens": 10, "server_tool_use": {"web_search_requests": 2}}}));
        assert!(first.paused());
        let last = reply(json!({"id": "msg_2", "stop_reason": "end_turn", "model": "claude-sonnet-4-6-20260101",
            "content": [
                {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_2", "content": [
                    {"type": "web_search_result", "url": "https://b.example", "title": "B"}]},
                {"type": "text", "text": "元构场是", "citations": [{"type": "web_search_result_location", "url": "https://b.example", "cited_text": "x"}]},
                {"type": "text", "text": "一家公司。"}],
            "usage": {"input_tokens": 300, "output_tokens": 40}}));
        assert_eq!(Continuation::of(std::slice::from_ref(&first)).assistant_content.len(), 4);
        let turn = merge_turn(vec![first, last]);
        assert_eq!(turn.raw_answer, "我先搜索一下。\n\n元构场是一家公司。");
        let queries: Vec<(u32, Option<&str>)> = turn.queries.iter().map(|q| (q.index, q.query.as_deref())).collect();
        assert_eq!(queries, [(1, Some("GEO 服务商")), (2, Some("元构场"))]);
        let sources: Vec<(u32, &str)> = turn.raw_sources.iter().map(|s| (s.query_index, s.url.as_str())).collect();
        assert_eq!(sources, [(1, "https://a.example"), (2, "https://b.example")], "a result matched across replies");
        assert_eq!(turn.raw_citations.as_ref().map(Vec::len), Some(1));
        // The second reply states no search count: its one result list is counted.
        assert_eq!((turn.usage.input_tokens, turn.usage.output_tokens, turn.usage.web_search_requests), (400, 50, 3));
        assert_eq!(
            (turn.request_id.as_deref(), turn.stop_reason.as_deref(), turn.model.as_str()),
            (Some("msg_2"), Some("end_turn"), "claude-sonnet-4-6-20260101")
        );
        assert!(!turn.paused() && !turn.truncated);
    }

    #[test]
    fn one_part_or_foreign_parts_stay_as_they_are() {
        let only = reply(json!({"content": [{"type": "text", "text": "hi"}], "stop_reason": "max_tokens"}));
        assert!(only.truncated);
        assert_eq!(merge_turn(vec![only.clone()]), only);
        let other = ParsedResponse { raw_answer: "x".into(), ..ParsedResponse::default() };
        assert_eq!(merge_turn(vec![only, other.clone()]), other);
        assert_eq!(merge_turn(vec![]), ParsedResponse::default());
    }
}
