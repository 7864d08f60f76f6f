//! Each engine's request body with and without a location, against the table of engines.md
//! ("Where and how an answer was measured"): where the location goes (`user_location` of the
//! search tool, `web_search_options.user_location`, or the system prompt's `User location:`
//! line), exactly which keys it has, and that a run without a location sends the same bytes as
//! before (the field and the line are absent, not empty). One golden holds all nine bodies with
//! a location (`it__provider_location__bodies_with_location.snap`).

use geo_core::model::{EngineId, Location, LocationApplied, RunConfig};
use geo_core::provider::{engine_request_body, location_applied, SYSTEM_PROMPT};
use serde_json::{json, Value};

const PROMPT: &str = "2026年国内有哪些靠谱的GEO服务商？";
const LINE: &str = "User location: Hangzhou, Zhejiang, CN (Asia/Shanghai).";

fn config(engine: EngineId, location: Option<(&str, Option<&str>)>, location_prompt: bool) -> RunConfig {
    let location = location.and_then(|(l, tz)| Location::from_flags(Some(l), tz).unwrap());
    RunConfig { location, location_prompt, ..geo_core::provider::budget::default_config(engine, "") }
}

fn body(config: &RunConfig) -> Value {
    serde_json::from_str(&engine_request_body(config.engine, PROMPT, config)).unwrap()
}

/// Where the location is in a body, as JSON pointers to the objects holding it.
#[derive(Debug, Clone, Copy)]
enum Place {
    /// `user_location` at this pointer.
    Field(&'static str),
    /// The system prompt's text at this pointer ends with `\n` + the line.
    Line(&'static str),
}

/// The table of engines.md, one row per engine: where the location goes and what the probe
/// records.
fn table() -> Vec<(EngineId, Place, LocationApplied)> {
    use EngineId::*;
    use LocationApplied::{Prompt as P, Request as R};
    vec![
        (Deepseek, Place::Line("/system"), P),
        (Anthropic, Place::Field("/tools/0/user_location"), R),
        (Openai, Place::Field("/tools/0/user_location"), R),
        (Gemini, Place::Line("/systemInstruction/parts/0/text"), P),
        (Perplexity, Place::Field("/web_search_options/user_location"), R),
        (Qwen, Place::Line("/input/messages/0/content"), P),
        (Doubao, Place::Field("/tools/0/user_location"), R),
        (Ernie, Place::Line("/messages/0/content"), P),
        (Hunyuan, Place::Line("/messages/0/content"), P),
    ]
}

/// The keys each engine's field takes (engines.md: Perplexity no `type`; Perplexity and Doubao
/// no `timezone`).
fn expected_field(engine: EngineId) -> Value {
    let full = json!({"type": "approximate", "country": "CN", "region": "Zhejiang", "city": "Hangzhou", "timezone": "Asia/Shanghai"});
    match engine {
        EngineId::Perplexity => json!({"country": "CN", "region": "Zhejiang", "city": "Hangzhou"}),
        EngineId::Doubao => json!({"type": "approximate", "country": "CN", "region": "Zhejiang", "city": "Hangzhou"}),
        _ => full,
    }
}

fn has_text(v: &Value, needle: &str) -> bool {
    match v {
        Value::String(s) => s.contains(needle),
        Value::Array(items) => items.iter().any(|x| has_text(x, needle)),
        Value::Object(map) => map.iter().any(|(k, x)| k.contains(needle) || has_text(x, needle)),
        _ => false,
    }
}

#[test]
fn every_engine_sends_the_location_its_one_way() {
    let rows = table();
    assert_eq!(rows.len(), EngineId::ALL.len(), "one row per engine");
    for (engine, place, applied) in rows {
        let with = config(engine, Some(("CN/Zhejiang/Hangzhou", Some("Asia/Shanghai"))), true);
        let without = config(engine, None, true);
        let (b, plain) = (body(&with), body(&without));
        assert_eq!(location_applied(&with), applied, "{engine}");
        assert_eq!(location_applied(&without), LocationApplied::None, "{engine}");
        match place {
            Place::Field(at) => {
                assert_eq!(b.pointer(at), Some(&expected_field(engine)), "{engine}: {b}");
                assert!(!has_text(&b, "User location"), "{engine} has a field and gets no line");
                // Nothing else differs from the body without a location.
                let mut stripped = b.clone();
                let (parent, key) = at.rsplit_once('/').unwrap();
                stripped.pointer_mut(parent).unwrap().as_object_mut().unwrap().remove(key);
                if engine == EngineId::Perplexity {
                    stripped.as_object_mut().unwrap().remove("web_search_options");
                }
                assert_eq!(stripped, plain, "{engine}");
            }
            Place::Line(at) => {
                assert_eq!(b.pointer(at).and_then(Value::as_str), Some(format!("{SYSTEM_PROMPT}\n{LINE}").as_str()));
                assert!(!has_text(&b, "user_location"), "{engine} has no field");
                assert_eq!(plain.pointer(at).and_then(Value::as_str), Some(SYSTEM_PROMPT), "{engine}");
                let mut stripped = b.clone();
                *stripped.pointer_mut(at).unwrap() = json!(SYSTEM_PROMPT);
                assert_eq!(stripped, plain, "{engine}");
                // `locationPrompt: false` switches the line off: the body without a location.
                let off = config(engine, Some(("CN/Zhejiang/Hangzhou", Some("Asia/Shanghai"))), false);
                assert_eq!(body(&off), plain, "{engine}");
                assert_eq!(location_applied(&off), LocationApplied::None, "{engine}");
            }
        }
        // Without a location the body is the one every request sent before (byte for byte).
        assert!(!has_text(&plain, "user_location") && !has_text(&plain, "User location"), "{engine}");
    }
}

#[test]
fn absent_parts_are_left_out_and_the_line_follows_the_contract() {
    let us = config(EngineId::Deepseek, Some(("US", None)), true);
    assert_eq!(body(&us)["system"], format!("{SYSTEM_PROMPT}\nUser location: US."));
    let region = config(EngineId::Openai, Some(("us/California", None)), true);
    assert_eq!(
        body(&region)["tools"][0]["user_location"],
        json!({"type": "approximate", "country": "US", "region": "California"})
    );
    let pplx = config(EngineId::Perplexity, Some(("JP", Some("Asia/Tokyo"))), true);
    assert_eq!(body(&pplx)["web_search_options"], json!({"user_location": {"country": "JP"}}));
    // `locationPrompt: false` leaves the engines with a field alone.
    let off = config(EngineId::Anthropic, Some(("DE/Berlin/Berlin", Some("Europe/Berlin"))), false);
    assert_eq!(body(&off)["tools"][0]["user_location"]["timezone"], "Europe/Berlin");
}

#[test]
fn bodies_with_location() {
    let bodies: serde_json::Map<String, Value> = EngineId::ALL
        .into_iter()
        .map(|e| {
            let c = config(e, Some(("CN/Zhejiang/Hangzhou", Some("Asia/Shanghai"))), true);
            (e.as_str().to_string(), Value::String(engine_request_body(e, PROMPT, &c)))
        })
        .collect();
    insta::assert_json_snapshot!("bodies_with_location", bodies);
}
