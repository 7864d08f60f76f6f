//! Property: DeepSeek's `parse_engine_response` never panics, on arbitrary strings and on JSON-ish
//! mutations of the recorded responses, and whatever it accepts is well formed
//! (queries numbered 1..=n, every source on an existing query, ranks consecutive from 1).

use std::sync::OnceLock;

use geo_core::model::EngineId;
use geo_core::provider::{map_engine_http_error, parse_engine_response};
use proptest::prelude::*;
use serde_json::{json, Value};

fn fixtures() -> &'static [String] {
    static FIXTURES: OnceLock<Vec<String>> = OnceLock::new();
    FIXTURES.get_or_init(|| crate::support::response_files().into_iter().map(|(_, body)| body).collect())
}

fn check(body: &str) -> Result<(), TestCaseError> {
    if let Ok(p) = parse_engine_response(EngineId::Deepseek, body, "deepseek-v4-flash") {
        crate::support::well_formed(&p)?;
    }
    Ok(())
}

/// Strings of the Messages format: block types, tool names and ids.
const WORDS: &[&str] = &[
    "text",
    "server_tool_use",
    "web_search_tool_result",
    "web_search_result",
    "web_search",
    "thinking",
    "error",
    "ws_call_id=1",
    "call_00_x",
    "",
];

/// Keys of the Messages format.
const KEYS: &[&str] = &[
    "type",
    "id",
    "tool_use_id",
    "name",
    "input",
    "query",
    "content",
    "text",
    "url",
    "title",
    "page_age",
    "error_code",
    "usage",
    "error",
    "model",
];

/// A block built like the real ones but with any field swapped for an arbitrary value.
fn arb_block() -> impl Strategy<Value = Value> {
    let template = prop_oneof![
        Just(json!({"type":"text","text":"答案"})),
        Just(json!({"type":"thinking","thinking":"t","signature":"s"})),
        Just(
            json!({"type":"server_tool_use","id":"call_00_a","name":"web_search","input":{"query":"元构场"},"caller":{"type":"direct"}})
        ),
        Just(json!({"type":"server_tool_use","id":"call_01_b","name":"web_search","input":{"query":"ws_call_id=1"}})),
        Just(
            json!({"type":"web_search_tool_result","tool_use_id":"call_00_a","content":[{"type":"web_search_result","title":"t","url":"https://a.example","page_age":null}]})
        ),
        Just(
            json!({"type":"web_search_tool_result","tool_use_id":"call_01_b","content":{"type":"web_search_tool_result_error","error_code":"max_uses_exceeded"}})
        ),
    ];
    (template, prop::option::of((0usize..6, crate::arb_json(2, 8, WORDS, KEYS)))).prop_map(|(mut block, swap)| {
        if let (Some((i, v)), Some(obj)) = (swap, block.as_object_mut()) {
            let keys: Vec<String> = obj.keys().cloned().collect();
            let key = keys[i % keys.len()].clone();
            obj.insert(key, v);
        }
        block
    })
}

proptest! {
    #![proptest_config(crate::config())]

    #[test]
    fn never_panics_on_arbitrary_strings(body in any::<String>()) {
        check(&body)?;
        let _ = map_engine_http_error(EngineId::Deepseek, 500, &body);
    }

    #[test]
    fn never_panics_on_json_ish_strings(body in r#"[\[\]{}":,a-z_0-9 .\-]{0,120}"#) {
        check(&body)?;
    }

    #[test]
    fn never_panics_on_arbitrary_json(value in crate::arb_json(4, 32, WORDS, KEYS)) {
        check(&value.to_string())?;
        check(&json!({"content": [value.clone()], "usage": value}).to_string())?;
    }

    #[test]
    fn never_panics_on_mutated_messages(
        blocks in prop::collection::vec(prop_oneof![3 => arb_block(), 1 => crate::arb_json(2, 8, WORDS, KEYS)], 0..8),
        top in prop::option::of(crate::arb_json(2, 8, WORDS, KEYS)),
    ) {
        let mut body = json!({"id":"m","type":"message","model":"deepseek-v4-flash","content":blocks,"stop_reason":"end_turn"});
        if let Some(v) = top {
            body["usage"] = v;
        }
        let text = body.to_string();
        prop_assert!(parse_engine_response(EngineId::Deepseek, &text, "deepseek-v4-flash").is_ok());
        check(&text)?;
    }

    #[test]
    fn never_panics_on_mutated_fixture_text(which in any::<prop::sample::Index>(),
                                            at in any::<prop::sample::Index>(),
                                            cut in 0usize..40,
                                            insert in r#"[\[\]{}":,]{0,3}"#) {
        let fixtures = fixtures();
        let text = &fixtures[which.index(fixtures.len())];
        let bounds: Vec<usize> = text.char_indices().map(|(i, _)| i).chain([text.len()]).collect();
        let start = bounds[at.index(bounds.len())];
        let end = bounds[(at.index(bounds.len()) + cut).min(bounds.len() - 1)];
        let mutated = format!("{}{}{}", &text[..start], insert, &text[end..]);
        check(&mutated)?;
    }
}
