//! Fuzz targets over what an attacker controls (security review; `docs/security.md`): hostile
//! answers through `analyze_probe`, damaged exports through `parse_export`, provider replies
//! through `provider::interpret`, and byte streams through the chat stream. Each asserts no
//! panic and bounds that hold whatever the input: sizes under their limits, messages short
//! and free of control characters, links that are http(s) without credentials, analysis that
//! is idempotent. Cases are bounded (`PROPTEST_CASES`, at most 512 for the costly ones), so
//! they run in `cargo xtask test`; an input that ever fails one is kept below as a named case.

use geo_core::analysis::analyze_probe;
use geo_core::analysis::links::MAX_ANSWER_LINKS;
use geo_core::analysis::lists::MAX_OTHER_ENTITIES;
use geo_core::chat::{ChatStream, StreamEnd};
use geo_core::export::{parse_export, ImportLimits};
use geo_core::limits::MAX_CHAT_ANSWER_BYTES;
use geo_core::model::{Probe, Target, TargetKind};
use geo_core::provider::{self, error::body::MAX_PROVIDER_MESSAGE_CHARS};
use proptest::prelude::*;

fn costly() -> ProptestConfig {
    ProptestConfig::with_cases(crate::cases().min(512))
}

fn targets() -> Vec<Target> {
    let t = |id: &str, kind, label: &str, aliases: &[&str], domains: &[&str]| Target {
        id: id.into(),
        kind,
        label: label.into(),
        aliases: aliases.iter().map(|s| s.to_string()).collect(),
        domains: domains.iter().map(|s| s.to_string()).collect(),
    };
    vec![
        t("brand", TargetKind::Brand, "Acme", &["Acme", "阿克米"], &["acme.example"]),
        t("rival", TargetKind::Competitor, "Rival", &["Rival Co", "[r]"], &["rival.example"]),
    ]
}

/// Pieces of Markdown, URL and list syntax, names, controls and free text, joined: the
/// shapes that once made analysis quadratic, and the ones a sanitiser must survive.
fn hostile_answer() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("https://a.example/".to_string()),
        Just("http://user:pw@b.example/x?q=1".to_string()),
        Just("https://acme.example/p".to_string()),
        Just("javascript:alert(1)".to_string()),
        Just("[".to_string()),
        Just("]".to_string()),
        Just("(".to_string()),
        Just(")".to_string()),
        Just("<".to_string()),
        Just(">".to_string()),
        Just("](".to_string()),
        Just("1. ".to_string()),
        Just("2) ".to_string()),
        Just("- ".to_string()),
        Just("# ".to_string()),
        Just("**".to_string()),
        Just("\n".to_string()),
        Just("\n\n".to_string()),
        Just("| a | b |\n|---|---|\n".to_string()),
        Just("```\n".to_string()),
        Just("Acme".to_string()),
        Just("阿克米".to_string()),
        Just("Rival Co".to_string()),
        Just("\u{1b}[2J\r".to_string()),
        Just("\u{202e}".to_string()),
        "[a-z .,]{0,12}",
        "\\PC{0,6}",
    ];
    prop::collection::vec(piece, 0..80).prop_map(|v| v.concat())
}

fn probe(answer: String) -> Probe {
    serde_json::from_value(serde_json::json!({
        "id": "p", "runId": "r", "projectId": "x", "promptId": "q", "repeatIndex": 0, "status": "success",
        "createdAt": "2026-12-01T00:00:00.000Z", "model": "m", "attempts": 1, "latencyMs": 1,
        "usage": {"inputTokens": 0, "outputTokens": 0, "cacheReadInputTokens": 0, "webSearchRequests": 0},
        "rawAnswer": answer,
        "queries": [{"index": 1, "query": "q", "internal": false}],
        "rawSources": [
            {"queryIndex": 1, "rank": 1, "title": "t", "url": "https://acme.example/p"},
            {"queryIndex": 1, "rank": 2, "title": "\u{1b}]0;x", "url": "javascript:alert(1)"},
            {"queryIndex": 1, "rank": 3, "title": "u", "url": "http://user:pw@rival.example/"}
        ],
        "answer": "", "sources": [], "mentions": [], "listItems": [], "otherEntities": [], "answerLinks": []
    }))
    .expect("the probe fixture fits the model")
}

fn check_analysis(answer: String) -> Result<(), TestCaseError> {
    let targets = targets();
    let mut p = probe(answer);
    analyze_probe(&mut p, &targets);
    prop_assert!(p.answer_links.len() <= MAX_ANSWER_LINKS);
    for l in &p.answer_links {
        let lower = l.url.to_ascii_lowercase();
        prop_assert!(lower.starts_with("http://") || lower.starts_with("https://"), "{}", l.url);
        let authority = lower.split("://").nth(1).unwrap_or("").split(['/', '?', '#']).next().unwrap_or("");
        prop_assert!(!authority.contains('@'), "credentials kept in {}", l.url);
    }
    for s in &p.sources {
        prop_assert!(!s.url.contains("pw@"), "credentials kept in source {}", s.url);
    }
    prop_assert!(p.other_entities.len() <= MAX_OTHER_ENTITIES);
    for m in &p.mentions {
        prop_assert!(m.count >= 1 && targets.iter().any(|t| t.id == m.target_id));
    }
    for (i, item) in p.list_items.iter().enumerate() {
        prop_assert!(item.position >= 1, "item {i}: {item:?}");
    }
    let once = p.clone();
    analyze_probe(&mut p, &targets);
    prop_assert_eq!(p, once, "analysis is idempotent");
    Ok(())
}

proptest! {
    #![proptest_config(costly())]

    #[test]
    fn analysis_of_hostile_answers_is_bounded_and_idempotent(answer in hostile_answer()) {
        check_analysis(answer)?;
    }
}

/// A small valid export, as text.
fn valid_export() -> String {
    serde_json::to_string(&crate::export_hostile::everything()).expect("serialisable")
}

/// `text` with `edits` applied: each inserts a character at a position (on a character
/// boundary) or, for a NUL, cuts the text there.
fn damaged(text: &str, edits: &[(prop::sample::Index, char)]) -> String {
    let mut s = text.to_string();
    for (at, c) in edits {
        let bounds: Vec<usize> = s.char_indices().map(|(i, _)| i).chain([s.len()]).collect();
        let i = bounds[at.index(bounds.len())];
        if *c == '\0' {
            s.truncate(i);
        } else {
            s.insert(i, *c);
        }
    }
    s
}

fn edit_char() -> impl Strategy<Value = char> {
    prop_oneof![
        Just('"'),
        Just('{'),
        Just('}'),
        Just('['),
        Just(']'),
        Just(','),
        Just(':'),
        Just('\\'),
        Just('\0'),
        Just('\u{1b}'),
        Just('7'),
        any::<char>(),
    ]
}

proptest! {
    #![proptest_config(crate::config())]

    #[test]
    fn import_messages_stay_short_on_damaged_exports(
        edits in prop::collection::vec((any::<prop::sample::Index>(), edit_char()), 1..6),
    ) {
        let text = damaged(&valid_export(), &edits);
        if let Err(e) = parse_export(&text, &ImportLimits::default()) {
            let shown = e.to_string();
            prop_assert!(shown.len() < 8_000, "{} bytes", shown.len());
            prop_assert!(!shown.chars().any(char::is_control), "{shown:?}");
            let both = e.describe();
            prop_assert!(both.zh.len() < 8_000 && both.en.len() < 8_000);
        }
    }

    #[test]
    fn provider_error_messages_stay_bounded(
        status in prop_oneof![Just(200u16), Just(400), Just(401), Just(429), Just(500), Just(529), any::<u16>()],
        body in prop_oneof![
            "\\PC{0,400}",
            "[a-z]{1,5000}".prop_map(|m| format!(r#"{{"type":"error","error":{{"type":"api_error","message":"{m}"}}}}"#)),
            Just(r#"{"type":"message","content":[{"type":"text","text":"hi"}]}"#.to_string()),
        ],
    ) {
        let reply = provider::EngineReply { status, headers: &[("retry-after", "7")], body: &body };
        if let Err(e) = provider::interpret(&reply, &provider::Interpret { model: "m", wire: provider::wire(geo_core::model::EngineId::Deepseek) }) {
            prop_assert!(e.message.chars().count() <= MAX_PROVIDER_MESSAGE_CHARS + 400, "{} chars", e.message.chars().count());
        }
    }

    #[test]
    fn chat_streams_stay_within_their_caps(
        pieces in prop::collection::vec(prop_oneof![
            prop::collection::vec(any::<u8>(), 0..64),
            "[a-z]{0,20}".prop_map(|t| format!("data: {{\"choices\":[{{\"delta\":{{\"content\":\"{t}\"}}}}]}}\n\n").into_bytes()),
            Just(b"data: [DONE]\n\n".to_vec()),
            Just(b": keep-alive\r\n".to_vec()),
        ], 0..20),
    ) {
        let mut s = ChatStream::new();
        for p in &pieces {
            s.push(p);
            prop_assert!(s.answer().len() <= MAX_CHAT_ANSWER_BYTES);
        }
        let out = s.finish(StreamEnd::Eof);
        prop_assert!(out.answer.len() <= MAX_CHAT_ANSWER_BYTES);
    }
}

/// Inputs kept from earlier findings: each once hung, grew without bound or kept a credential.
#[test]
fn kept_hostile_answers() {
    for answer in [
        format!("https://a.example/{}", ")".repeat(20_000)),
        "1. x\n".repeat(20_000),
        "[a](".repeat(5_000),
        "[a](x (".repeat(5_000),
        "see http://user:pw@b.example/secret and [x](https://u:p@c.example/)".to_string(),
        "\u{1b}[2J\u{1b}[1;1H✔ all good\r".to_string(),
    ] {
        check_analysis(answer).unwrap();
    }
}
