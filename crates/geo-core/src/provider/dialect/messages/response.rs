//! Parsing a Messages response into [`ParsedResponse`] (seed §4.3), DeepSeek's and Anthropic's.
//!
//! The parser walks `content` once, in order, and is deliberately lenient: DeepSeek's
//! bodies differ from Anthropic's (UUID ids, `call_00_…` tool ids, `caller`,
//! `encrypted_content`, `page_age: null`, thinking blocks with signatures, extra usage
//! fields), and a probe must not fail because of a block type we do not know. Unknown
//! blocks and fields are skipped; only a body that is not a JSON object, or has no
//! `content` array, is an error.
//!
//! **Joining text blocks.** Adjacent `text` blocks are fragments of one utterance (Anthropic
//! splits a sentence around each citation: "Based on the search results, " + "Claude
//! Shannon was born …"), so they are joined with nothing between them. Text blocks that a
//! non-text block (a search, its results, thinking) separates are different utterances:
//! typically a planning preamble ("I'll search for …", 「我先搜索一下」) and then the answer.
//! They are joined with a blank line, which keeps the preamble a paragraph of its own so
//! that `clean_answer` can drop it.

use serde_json::{Map, Value};

use crate::model::{EngineId, ProbeError, Query, RawCitation, RawSource, Usage};
use crate::provider::error::kind::{invalid_json, map_envelope, no_own_codes};
use crate::provider::parsed::ParsedResponse;
use crate::provider::read::{count, str_field};

/// When a Messages response's `rawCitations` is an array.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Citations {
    /// Anthropic: the API has citations, so the array is always there (possibly empty).
    Always,
    /// DeepSeek's endpoint: only when a text block carries citations.
    WhenPresent,
}

/// Prefix of the internal marker DeepSeek puts in place of search words.
pub const WS_CALL_ID_PREFIX: &str = "ws_call_id=";

/// True when a query text is an internal id rather than search words: blank,
/// `ws_call_id=…`, or a tool-call id such as `call_00_JKplDF8t8DbqkZaGChDX1881`.
pub fn is_internal_query(text: &str) -> bool {
    let t = text.trim();
    t.is_empty() || t.starts_with(WS_CALL_ID_PREFIX) || t.contains("#ws_call_id=") || looks_like_call_id(t)
}

/// `call_` followed by an identifier (ASCII letters, digits, `_`, `-`) that either starts
/// with a numeric index and `_` (`call_00_x`) or contains a digit (`call_abc123`).
/// `call_of_duty` or `call center` are search words.
fn looks_like_call_id(t: &str) -> bool {
    let Some(rest) = t.strip_prefix("call_") else { return false };
    if rest.is_empty() || !rest.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') {
        return false;
    }
    let digits = rest.chars().take_while(char::is_ascii_digit).count();
    (digits > 0 && rest[digits..].starts_with('_')) || rest.chars().any(|c| c.is_ascii_digit())
}

/// The reply's `usage`; `webSearchRequests` is `usage.server_tool_use.web_search_requests`,
/// or, when the reply does not state it, `result_lists`: its `web_search_tool_result` blocks
/// holding a result list (engines.md, "Fidelity": a search that returned results was billed).
fn parse_usage(v: Option<&Value>, result_lists: u64) -> Usage {
    let u = match v {
        Some(Value::Object(u)) => Some(u),
        _ => None,
    };
    let stated = u.and_then(|u| u.get("server_tool_use")).and_then(|s| s.get("web_search_requests"));
    let searches = match stated {
        Some(Value::Number(_)) => count(stated),
        _ => result_lists,
    };
    Usage {
        input_tokens: count(u.and_then(|u| u.get("input_tokens"))),
        output_tokens: count(u.and_then(|u| u.get("output_tokens"))),
        cache_read_input_tokens: count(u.and_then(|u| u.get("cache_read_input_tokens"))),
        web_search_requests: searches,
        search_context_size: None,
    }
}

/// Queries in order of appearance plus the bookkeeping that attaches results to them.
///
/// A result block finds its query through a map by tool-use id and a cursor on the first
/// query still waiting, so attaching every block is linear in the number of blocks
/// (security review II, finding 1: a scan per block was quadratic).
#[derive(Default)]
struct QueryBook {
    queries: Vec<Query>,
    /// The first query of each tool-use id.
    by_id: rustc_hash::FxHashMap<String, usize>,
    /// Whether a result block has been attached to each query yet.
    answered: Vec<bool>,
    /// No query before this index is still waiting for results.
    waiting_from: usize,
    /// Results seen so far for each query (ranks continue if a query gets two blocks).
    ranks: Vec<u32>,
}

impl QueryBook {
    fn push(&mut self, id: Option<String>, query: Option<String>) -> usize {
        let internal = query.is_none();
        let slot = self.queries.len();
        self.queries.push(Query { index: slot as u32 + 1, query, internal, error: None });
        if let Some(id) = id {
            self.by_id.entry(id).or_insert(slot);
        }
        self.answered.push(false);
        self.ranks.push(0);
        slot
    }

    /// The query a result block belongs to: by `tool_use_id`, else the first query still
    /// waiting for results, else a new internal query (results are never dropped).
    fn slot_for(&mut self, tool_use_id: Option<&str>) -> usize {
        let by_id = tool_use_id.and_then(|id| self.by_id.get(id).copied());
        let slot =
            by_id.or_else(|| self.first_waiting()).unwrap_or_else(|| self.push(tool_use_id.map(str::to_string), None));
        self.answered[slot] = true;
        slot
    }

    /// The first query without results yet (a query only ever becomes answered, so the
    /// cursor only moves forward).
    fn first_waiting(&mut self) -> Option<usize> {
        while self.answered.get(self.waiting_from) == Some(&true) {
            self.waiting_from += 1;
        }
        (self.waiting_from < self.answered.len()).then_some(self.waiting_from)
    }
}

fn search_words(block: &Map<String, Value>) -> Option<String> {
    let text = block.get("input").and_then(|i| i.get("query")).and_then(Value::as_str)?;
    let own_id = str_field(block, "id");
    if is_internal_query(text) || own_id == Some(text.trim()) {
        None
    } else {
        Some(text.trim().to_string())
    }
}

fn push_results(book: &mut QueryBook, slot: usize, content: Option<&Value>, sources: &mut Vec<RawSource>) {
    match content {
        Some(Value::Array(items)) => {
            for item in items.iter().filter_map(Value::as_object) {
                let kind = str_field(item, "type");
                if kind.is_some_and(|k| k != "web_search_result") {
                    continue;
                }
                let Some(url) = str_field(item, "url").map(str::trim).filter(|u| !u.is_empty()) else { continue };
                book.ranks[slot] += 1;
                sources.push(RawSource {
                    query_index: book.queries[slot].index,
                    rank: book.ranks[slot],
                    title: str_field(item, "title").unwrap_or("").to_string(),
                    url: url.to_string(),
                    page_age: str_field(item, "page_age").map(str::trim).filter(|p| !p.is_empty()).map(str::to_string),
                    site_name: None,
                });
            }
        }
        Some(Value::Object(err)) => {
            let code = str_field(err, "error_code").filter(|c| !c.trim().is_empty());
            let is_error = code.is_some() || str_field(err, "type").is_some_and(|t| t.ends_with("_error"));
            if is_error {
                book.queries[slot].error = Some(code.unwrap_or("unknown").to_string());
            }
        }
        _ => {}
    }
}

/// True when a 2xx body is an error envelope rather than a message.
fn is_error_envelope(obj: &Map<String, Value>) -> bool {
    str_field(obj, "type") == Some("error")
        || (obj.get("error").is_some_and(|e| !e.is_null()) && !obj.get("content").is_some_and(Value::is_array))
}

/// The `web_search_result_location` citations of one text block (any citation with a
/// non-blank `url`; `title` may be null, `cited_text` is kept verbatim).
fn push_citations(block: &Map<String, Value>, out: &mut Vec<RawCitation>) {
    let Some(Value::Array(items)) = block.get("citations") else { return };
    for c in items.iter().filter_map(Value::as_object) {
        let Some(url) = str_field(c, "url").map(str::trim).filter(|u| !u.is_empty()) else { continue };
        out.push(RawCitation {
            url: url.to_string(),
            title: str_field(c, "title").map(str::trim).filter(|t| !t.is_empty()).map(str::to_string),
            cited_text: str_field(c, "cited_text").filter(|t| !t.trim().is_empty()).map(str::to_string),
            index: None,
        });
    }
}

/// Parses the body of a successful Messages response (DeepSeek's or Anthropic's).
///
/// Errors: a body that is not JSON, not an object, or has no `content` array →
/// `invalid_json`; an error envelope (`{"type":"error",…}` or `{"error":{…}}`) → the
/// mapped provider error (no `http_status`: the caller knows it). Everything else parses.
/// `rawCitations` gathers the `citations` of every text block, in order.
///
/// These two errors are worded as the seed's engine's (`EngineId::default()`, DeepSeek: "not a
/// valid messages response") for Anthropic's replies too, as they always were; the HTTP-level
/// errors of either engine name it.
pub fn parse_messages(body: &str, requested_model: &str, citations: Citations) -> Result<ParsedResponse, ProbeError> {
    let seed = EngineId::default();
    let invalid_json_error = |detail: &str| invalid_json(seed, detail);
    let value: Value = serde_json::from_str(body).map_err(|e| invalid_json_error(&format!("not json: {e}")))?;
    let Value::Object(obj) = value else {
        return Err(invalid_json_error("the body is not a json object"));
    };
    if is_error_envelope(&obj) {
        return Err(map_envelope(seed, no_own_codes, body));
    }
    let mut obj = obj;
    let Some(Value::Array(blocks)) = obj.remove("content") else {
        return Err(invalid_json_error("the body has no content array"));
    };
    let walk = Walk::of(&blocks);
    let stop_reason = str_field(&obj, "stop_reason").filter(|s| !s.is_empty()).map(str::to_string);
    Ok(ParsedResponse {
        usage: parse_usage(obj.get("usage"), walk.result_lists),
        request_id: str_field(&obj, "id").filter(|s| !s.is_empty()).map(str::to_string),
        truncated: stop_reason.as_deref() == Some(MAX_TOKENS_STOP),
        stop_reason,
        model: str_field(&obj, "model").map(str::trim).filter(|s| !s.is_empty()).unwrap_or(requested_model).to_string(),
        cost_usd: None,
        content: Some(blocks),
        ..walk.into_parsed(citations)
    })
}

/// Messages `stop_reason` of a reply cut off by `max_tokens`.
pub const MAX_TOKENS_STOP: &str = "max_tokens";

/// One pass over Messages `content` blocks, in order (see the module documentation).
pub(crate) struct Walk {
    answer: String,
    book: QueryBook,
    sources: Vec<RawSource>,
    cited: Vec<RawCitation>,
    /// `web_search_tool_result` blocks holding a result list (not an error).
    pub(crate) result_lists: u64,
}

impl Walk {
    /// Walks `blocks` (the content of one reply, or of every reply of a continued turn).
    pub(crate) fn of(blocks: &[Value]) -> Walk {
        let mut answer = String::new();
        let mut gap_since_text = false;
        let mut book = QueryBook::default();
        let mut sources = Vec::new();
        let mut cited = Vec::new();
        let mut result_lists = 0u64;
        for block in blocks.iter().filter_map(Value::as_object) {
            match str_field(block, "type") {
                Some("text") => {
                    let Some(text) = str_field(block, "text") else { continue };
                    push_citations(block, &mut cited);
                    if gap_since_text
                        && !answer.trim().is_empty()
                        && !text.trim().is_empty()
                        && !answer.ends_with("\n\n")
                    {
                        answer.push_str(if answer.ends_with('\n') { "\n" } else { "\n\n" });
                    }
                    answer.push_str(text);
                    gap_since_text = false;
                }
                Some("server_tool_use") => {
                    gap_since_text = true;
                    if str_field(block, "name").is_some_and(|n| n != "web_search") {
                        continue;
                    }
                    book.push(str_field(block, "id").map(str::to_string), search_words(block));
                }
                Some("web_search_tool_result") => {
                    gap_since_text = true;
                    result_lists += u64::from(block.get("content").is_some_and(Value::is_array));
                    let slot = book.slot_for(str_field(block, "tool_use_id"));
                    push_results(&mut book, slot, block.get("content"), &mut sources);
                }
                _ => gap_since_text = true,
            }
        }
        Walk { answer, book, sources, cited, result_lists }
    }

    /// The raw result's answer, queries, sources and citations (the rest left default).
    pub(crate) fn into_parsed(self, citations: Citations) -> ParsedResponse {
        let raw_citations = match citations {
            Citations::Always => Some(self.cited),
            Citations::WhenPresent => (!self.cited.is_empty()).then_some(self.cited),
        };
        ParsedResponse {
            raw_answer: self.answer,
            queries: self.book.queries,
            raw_sources: self.sources,
            raw_citations,
            ..ParsedResponse::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builders::usage;
    use crate::model::ErrorKind;
    use serde_json::json;

    /// DeepSeek's reading: citations only when present.
    fn parse_response(body: &str, model: &str) -> Result<ParsedResponse, ProbeError> {
        parse_messages(body, model, Citations::WhenPresent)
    }

    fn parse(v: Value) -> ParsedResponse {
        parse_response(&v.to_string(), "deepseek-v4-flash").expect("parses")
    }

    fn search(id: &str, q: Value) -> Value {
        json!({"type":"server_tool_use","id":id,"name":"web_search","input":{"query":q},"caller":{"type":"direct"}})
    }

    fn results(id: Option<&str>, items: Value) -> Value {
        match id {
            Some(id) => json!({"type":"web_search_tool_result","tool_use_id":id,"content":items}),
            None => json!({"type":"web_search_tool_result","content":items}),
        }
    }

    fn hit(url: &str) -> Value {
        json!({"type":"web_search_result","title":format!("T {url}"),"url":url,"encrypted_content":"SEALED","page_age":null})
    }

    #[track_caller]
    fn check_internal(text: &str, expect: bool) {
        assert_eq!(is_internal_query(text), expect, "{text:?}");
    }

    #[test]
    fn internal_query_ids() {
        check_internal("ws_call_id=1", true);
        check_internal("ws_call_id=call_12_abc", true);
        check_internal("call_00_JKplDF8t8DbqkZaGChDX1881", true);
        check_internal("call_12_abc", true);
        check_internal("call_abc123XYZ", true);
        check_internal("  ", true);
        check_internal("", true);
        check_internal("https://x.example/p#ws_call_id=call_1", true);
        check_internal("call_of_duty", false);
        check_internal("call center software", false);
        check_internal("call_00 元构场", false);
        check_internal("元构场 GEO", false);
        check_internal("call_", false);
    }

    #[test]
    fn adjacent_text_blocks_join_without_separator() {
        let p = parse(json!({"content":[
            {"type":"text","text":"Based on the search results, "},
            {"type":"text","text":"Shannon was born in 1916","citations":[{"type":"web_search_result_location","url":"u","cited_text":"c"}]},
            {"type":"text","text":"."}
        ]}));
        assert_eq!(p.raw_answer, "Based on the search results, Shannon was born in 1916.");
    }

    #[test]
    fn text_separated_by_a_search_becomes_a_new_paragraph() {
        let p = parse(json!({"content":[
            {"type":"text","text":"我先搜索一下。"},
            search("call_00_a", json!("元构场")),
            results(Some("call_00_a"), json!([hit("https://a.example")])),
            {"type":"text","text":"元构场是一家公司。"},
        ]}));
        assert_eq!(p.raw_answer, "我先搜索一下。\n\n元构场是一家公司。");
        let p = parse(json!({"content":[
            {"type":"text","text":"a\n"}, {"type":"thinking","thinking":"t","signature":"s"}, {"type":"text","text":"b"},
            {"type":"redacted_thinking","data":"x"}, {"type":"text","text":"   "}, {"type":"text","text":"c"},
        ]}));
        assert_eq!(p.raw_answer, "a\n\nb   c");
        // A leading thinking block adds no separator.
        let p = parse(json!({"content":[{"type":"thinking","thinking":"t"}, {"type":"text","text":"only"}]}));
        assert_eq!(p.raw_answer, "only");
    }

    #[test]
    fn queries_and_ranks_restart_per_query() {
        let p = parse(json!({"content":[
            search("call_00_a", json!("  GEO 服务商  ")),
            search("call_01_b", json!("元构场 评价")),
            results(Some("call_01_b"), json!([hit("https://b1.example"), hit("https://b2.example")])),
            results(Some("call_00_a"), json!([hit("https://a1.example"), {"type":"web_search_result","url":"https://a2.example"}])),
        ]}));
        assert_eq!(p.queries.len(), 2);
        assert_eq!(
            (p.queries[0].index, p.queries[0].query.as_deref(), p.queries[0].internal),
            (1, Some("GEO 服务商"), false)
        );
        assert_eq!(p.queries[1].query.as_deref(), Some("元构场 评价"));
        let got: Vec<(u32, u32, &str)> =
            p.raw_sources.iter().map(|s| (s.query_index, s.rank, s.url.as_str())).collect();
        assert_eq!(
            got,
            [
                (2, 1, "https://b1.example"),
                (2, 2, "https://b2.example"),
                (1, 1, "https://a1.example"),
                (1, 2, "https://a2.example")
            ]
        );
        assert_eq!(p.raw_sources[3].title, "", "missing title is empty");
        assert_eq!(p.raw_sources[0].page_age, None, "page_age null");
    }

    #[test]
    fn results_fall_back_to_order_and_are_never_dropped() {
        let p = parse(json!({"content":[
            search("call_00_a", json!("q1")),
            search("call_01_b", json!("q2")),
            results(None, json!([hit("https://1.example")])),
            results(Some("unknown"), json!([hit("https://2.example")])),
            results(Some("orphan"), json!([hit("https://3.example")])),
        ]}));
        let got: Vec<(u32, &str)> = p.raw_sources.iter().map(|s| (s.query_index, s.url.as_str())).collect();
        assert_eq!(got, [(1, "https://1.example"), (2, "https://2.example"), (3, "https://3.example")]);
        assert_eq!(p.queries[2], Query { index: 3, query: None, internal: true, error: None });
    }

    #[test]
    fn a_search_error_object_marks_its_query_only() {
        let p = parse(json!({"content":[
            search("call_00_a", json!("q1")),
            results(Some("call_00_a"), json!([hit("https://1.example")])),
            search("srvtoolu_b", json!("q2")),
            results(Some("srvtoolu_b"), json!({"type":"web_search_tool_result_error","error_code":"max_uses_exceeded"})),
            search("c", json!("q3")),
            results(Some("c"), json!({"type":"web_search_tool_result_error"})),
            search("d", json!("q4")),
            results(Some("d"), json!([])),
            {"type":"text","text":"answer"}
        ]}));
        let errors: Vec<Option<&str>> = p.queries.iter().map(|q| q.error.as_deref()).collect();
        assert_eq!(errors, [None, Some("max_uses_exceeded"), Some("unknown"), None]);
        assert_eq!(p.raw_sources.len(), 1);
        assert_eq!(p.raw_answer, "answer");
    }

    #[test]
    fn internal_and_missing_queries_keep_their_sources() {
        let p = parse(json!({"content":[
            search("call_00_a", json!("ws_call_id=1")),
            results(Some("call_00_a"), json!([hit("https://1.example")])),
            search("call_01_b", json!("call_01_b")),
            {"type":"server_tool_use","id":"call_02_c","name":"web_search","input":{}},
            {"type":"server_tool_use","id":"call_03_d","name":"web_search"},
            search("call_04_e", json!(42)),
            results(Some("call_03_d"), json!([hit("https://2.example")])),
        ]}));
        assert!(p.queries.iter().all(|q| q.query.is_none() && q.internal), "{:?}", p.queries);
        assert_eq!(p.queries.len(), 5);
        assert_eq!(p.raw_sources.iter().map(|s| s.query_index).collect::<Vec<_>>(), [1, 4]);
    }

    #[test]
    fn other_server_tools_and_blocks_are_skipped() {
        let p = parse(json!({"content":[
            {"type":"server_tool_use","id":"f","name":"web_fetch","input":{"url":"https://x"}},
            {"type":"web_fetch_tool_result","tool_use_id":"f","content":{}},
            {"type":"tool_use","id":"call_01_y","name":"final","input":{"answer":"多云"}},
            {"type":"mystery","text":"not an answer"},
            {"text":"no type"},
            "a string block", 7, null,
            {"type":"text","text":"ok","citations":null},
            results(Some("x"), json!([{"type":"web_search_result","title":"no url"}, {"type":"other","url":"https://o"}, hit(" https://t.example ")]))
        ]}));
        assert!(p.queries.iter().all(|q| q.internal));
        assert_eq!(p.raw_answer, "ok");
        assert_eq!(p.raw_sources.len(), 1);
        assert_eq!((p.raw_sources[0].rank, p.raw_sources[0].url.as_str()), (1, "https://t.example"));
    }

    #[test]
    fn top_level_fields_and_usage() {
        let p = parse(json!({
            "id":"b0eecb62-6a3f-4c1e-9d2a-1f4e5a6b7c8d","type":"message","role":"assistant","model":"deepseek-v4-pro",
            "content":[],"stop_reason":"end_turn","stop_sequence":null,
            "usage":{"input_tokens":4672,"output_tokens":825,"cache_creation_input_tokens":0,"cache_read_input_tokens":1280,
                     "service_tier":"standard","server_tool_use":{"web_search_requests":2}}
        }));
        assert_eq!(p.request_id.as_deref(), Some("b0eecb62-6a3f-4c1e-9d2a-1f4e5a6b7c8d"));
        assert_eq!(p.stop_reason.as_deref(), Some("end_turn"));
        assert_eq!(p.model, "deepseek-v4-pro");
        assert_eq!(p.usage, usage(4672, 825, 1280, 2));
        let bare = parse(
            json!({"content":[], "model": "", "usage": {"input_tokens": -3, "output_tokens": 2.0, "server_tool_use": null}}),
        );
        assert_eq!(bare.model, "deepseek-v4-flash");
        assert_eq!((bare.request_id, bare.stop_reason), (None, None));
        assert_eq!(bare.usage, Usage { output_tokens: 2, ..Usage::default() });
    }

    #[test]
    fn citations_are_gathered_from_text_blocks() {
        let body = json!({"content":[
            {"type":"text","text":"Based on the search results, "},
            {"type":"text","text":"Shannon was born in 1916","citations":[
                {"type":"web_search_result_location","url":" https://en.wikipedia.org/wiki/Claude_Shannon ","title":"Claude Shannon - Wikipedia","encrypted_index":"Eo8","cited_text":"Claude Elwood Shannon (April 30, 1916 …"},
                {"type":"web_search_result_location","url":"https://b.example","title":null,"cited_text":"b"},
                {"type":"web_search_result_location","title":"no url"}, 7]},
            {"type":"text","text":".","citations":null}
        ]})
        .to_string();
        let ds = parse_response(&body, "m").unwrap();
        let c = ds.raw_citations.expect("deepseek keeps citations when present");
        assert_eq!(c.len(), 2);
        assert_eq!(c[0].url, "https://en.wikipedia.org/wiki/Claude_Shannon");
        assert_eq!(c[0].title.as_deref(), Some("Claude Shannon - Wikipedia"));
        assert!(c[0].cited_text.as_deref().unwrap().starts_with("Claude Elwood"));
        assert_eq!((c[1].title.as_deref(), c[1].cited_text.as_deref()), (None, Some("b")));
        let plain = json!({"content":[{"type":"text","text":"x"}]}).to_string();
        assert_eq!(parse_response(&plain, "m").unwrap().raw_citations, None);
        assert_eq!(parse_messages(&plain, "m", Citations::Always).unwrap().raw_citations, Some(vec![]));
    }

    #[test]
    fn malformed_bodies_are_invalid_json() {
        for body in [
            "",
            "not json",
            "[]",
            "\"text\"",
            "42",
            "null",
            "{\"content\":{}}",
            "{}",
            "{\"content\":null}",
            "{\"id\":\"x\"}",
        ] {
            let err = parse_response(body, "m").expect_err(body);
            assert_eq!(err.kind, ErrorKind::InvalidJson, "{body}");
            assert!(err.message.contains("check the api base url"), "{}", err.message);
        }
    }

    #[test]
    fn error_envelopes_at_200_are_mapped() {
        let err = parse_response(r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#, "m")
            .unwrap_err();
        assert_eq!((err.kind, err.http_status), (ErrorKind::Server, None));
        assert!(err.message.contains("Overloaded"));
        let err =
            parse_response(r#"{"error":{"message":"Insufficient Balance","type":"unknown_error"}}"#, "m").unwrap_err();
        assert_eq!(err.kind, ErrorKind::Balance);
        let err = parse_response(r#"{"error":{"message":"Authentication Fails","type":"authentication_error"}}"#, "m")
            .unwrap_err();
        assert_eq!(err.kind, ErrorKind::Auth);
        // A message that merely carries "error": null is still a message.
        assert!(parse_response(r#"{"content":[],"error":null}"#, "m").is_ok());
    }
}
