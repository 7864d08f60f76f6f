//! Property: no response body makes any engine's parser (or error mapping) panic, and what a
//! parser accepts is well formed: queries numbered 1..=n, every source on an existing query,
//! ranks consecutive from 1 within each query, a model name. Bodies are arbitrary strings,
//! arbitrary JSON biased towards each engine's keys, the recorded fixtures with any value
//! swapped at any path, and the fixtures' text cut and spliced.

use std::path::PathBuf;
use std::sync::OnceLock;

use geo_core::model::EngineId;
use geo_core::provider::{map_engine_http_error, parse_engine_response};
use proptest::prelude::*;
use serde_json::{json, Value};

/// Every recorded body of every engine (DeepSeek's `fixtures/responses` included), with its engine.
fn fixtures() -> &'static [(EngineId, String)] {
    static FIXTURES: OnceLock<Vec<(EngineId, String)>> = OnceLock::new();
    FIXTURES.get_or_init(|| {
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures");
        let mut out = Vec::new();
        let mut read = |engine, dir: PathBuf| {
            let mut paths: Vec<PathBuf> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
            paths.retain(|p| p.extension().is_some_and(|x| x == "json"));
            paths.sort();
            out.extend(paths.iter().map(|p| (engine, std::fs::read_to_string(p).unwrap())));
        };
        read(EngineId::Deepseek, root.join("responses"));
        for e in EngineId::ALL.into_iter().filter(|e| *e != EngineId::Deepseek) {
            read(e, root.join("engines").join(e.as_str()));
        }
        out
    })
}

fn check(engine: EngineId, body: &str) -> Result<(), TestCaseError> {
    if let Ok(p) = parse_engine_response(engine, body, "requested-model") {
        crate::support::well_formed_for(engine, &p)?;
    }
    let _ = map_engine_http_error(engine, 400, body);
    let _ = map_engine_http_error(engine, 200, body);
    Ok(())
}

fn arb_engine() -> impl Strategy<Value = EngineId> {
    prop::sample::select(EngineId::ALL.to_vec())
}

/// Strings of every engine's responses: types, statuses, URLs, citation markers, finish
/// reasons and error codes.
const WORDS: &[&str] = &[
    "web_search_call",
    "search",
    "open_page",
    "find_in_page",
    "message",
    "output_text",
    "url_citation",
    "url",
    "api",
    "failed",
    "incomplete",
    "STOP",
    "https://a.example/x?utm_source=openai",
    "https://vertexaisearch.cloud.google.com/grounding-api-redirect/X",
    "zhihu.com",
    "",
    "text",
    "[ref_1]",
    "[ref_无]",
    "^[1][2]^",
    "[^1]",
    "无",
    "content_filter",
    "sensitive",
    "length",
    "null",
    "DataInspectionFailed",
    "Arrearage",
    "AccountOverdueError",
];

/// Keys of every engine's responses.
const KEYS: &[&str] = &[
    "type",
    "status",
    "action",
    "queries",
    "query",
    "sources",
    "url",
    "title",
    "content",
    "text",
    "annotations",
    "output",
    "candidates",
    "parts",
    "thought",
    "groundingMetadata",
    "webSearchQueries",
    "groundingChunks",
    "web",
    "uri",
    "groundingSupports",
    "groundingChunkIndices",
    "choices",
    "message",
    "citations",
    "search_results",
    "date",
    "usage",
    "usageMetadata",
    "error",
    "model",
    "id",
    "promptFeedback",
    "search_info",
    "site_name",
    "index",
    "plugins",
    "finish_reason",
    "flag",
    "search_tokens",
    "tool_usage",
    "web_search",
    "code",
    "Response",
    "Error",
    "Code",
];

/// Replaces the value at the `pick`-th node (pre-order) of `v` with `with`.
fn swap_node(v: &mut Value, pick: &mut usize, with: &Value) -> bool {
    if *pick == 0 {
        *v = with.clone();
        return true;
    }
    *pick -= 1;
    match v {
        Value::Array(items) => items.iter_mut().any(|x| swap_node(x, pick, with)),
        Value::Object(map) => map.values_mut().any(|x| swap_node(x, pick, with)),
        _ => false,
    }
}

proptest! {
    #![proptest_config(crate::config())]

    #[test]
    fn never_panics_on_arbitrary_strings(engine in arb_engine(), body in any::<String>()) {
        check(engine, &body)?;
    }

    #[test]
    fn never_panics_on_arbitrary_json(engine in arb_engine(), value in crate::arb_json(4, 40, WORDS, KEYS)) {
        check(engine, &value.to_string())?;
        for payload in ["output", "candidates", "choices", "content"] {
            check(engine, &json!({ payload: [value.clone()], "usage": value, "usageMetadata": value }).to_string())?;
        }
    }

    #[test]
    fn never_panics_on_fixtures_with_a_node_swapped(
        which in any::<prop::sample::Index>(),
        node in 0usize..400,
        with in crate::arb_json(2, 8, WORDS, KEYS),
        as_engine in prop::option::of(arb_engine()),
    ) {
        let (engine, text) = &fixtures()[which.index(fixtures().len())];
        let mut value: Value = serde_json::from_str(text).unwrap();
        let mut pick = node;
        swap_node(&mut value, &mut pick, &with);
        // Also feed one engine's body to another engine's parser.
        check(as_engine.unwrap_or(*engine), &value.to_string())?;
    }

    #[test]
    fn never_panics_on_cut_fixture_text(which in any::<prop::sample::Index>(), at in any::<prop::sample::Index>(),
                                        cut in 0usize..40, insert in r#"[\[\]{}":,]{0,3}"#) {
        let (engine, text) = &fixtures()[which.index(fixtures().len())];
        let bounds: Vec<usize> = text.char_indices().map(|(i, _)| i).chain([text.len()]).collect();
        let start = bounds[at.index(bounds.len())];
        let end = bounds[(at.index(bounds.len()) + cut).min(bounds.len() - 1)];
        check(*engine, &format!("{}{}{}", &text[..start], insert, &text[end..]))?;
    }
}

#[test]
fn every_fixture_parses_with_its_own_engine() {
    for (engine, text) in fixtures() {
        let p = match parse_engine_response(*engine, text, "m") {
            Ok(p) => p,
            // A content-filter refusal at HTTP 200 (`rNN_…`, pinned by the goldens).
            Err(e) if e.kind == geo_core::model::ErrorKind::Refused => continue,
            Err(e) => panic!("{engine}: {e:?}"),
        };
        assert!(crate::support::well_formed_for(*engine, &p).is_ok(), "{engine}");
    }
    assert!(fixtures().len() >= 21 + 8 * 6);
}
