//! engines.md "Fidelity" in the runner: a `pause_turn` is continued on the same slot (a new
//! `Send`, not an attempt) and the whole turn is the raw result; every attempt is billed
//! (`billedUsage`, `costUsd`); a reply cut off by a length limit is `truncated`; a cancel
//! drops a turn in flight.

use crate::builders::usage;
use std::path::PathBuf;

use crate::runner_support::*;
use geo_core::model::{EngineId, ErrorKind, ProbeStatus, RunStatus, Usage};
use geo_core::provider::{parse_engine_response, ParsedResponse, MAX_CONTINUATIONS};
use geo_core::runner::{Mode, Session, SessionOptions};

const PROBE: &str = "run1__p1__0";

fn fixture(engine: EngineId, name: &str) -> ParsedResponse {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/engines").join(engine.as_str());
    let body = std::fs::read_to_string(dir.join(format!("{name}.json"))).unwrap();
    parse_engine_response(engine, &body, "claude-sonnet-4-6").unwrap()
}

fn reply(r: ParsedResponse) -> Reply {
    Reply { outcome: Ok(r), latency_ms: DEFAULT_LATENCY }
}

fn run_one(replies: Vec<Reply>, cancel_at: Option<u64>) -> Trace {
    let run = new_run(&["p1"], 1, 1);
    let mut engine = Session::new(&run, Mode::Fresh, SessionOptions::default()).unwrap();
    drive_to_completion(&mut engine, Drive { cancel_at, ..Drive::new(Script::new().on(PROBE, replies)) })
}

#[test]
fn a_paused_turn_is_continued_and_read_as_one() {
    let paused = fixture(EngineId::Anthropic, "t12_pause_turn_preamble");
    let rest = fixture(EngineId::Anthropic, "t12_pause_turn_continued");
    assert!(paused.paused());
    let trace = run_one(vec![reply(paused.clone()), reply(rest.clone())], None);
    // Two requests of one attempt; the second carries the paused content back.
    let sends: Vec<(u32, bool)> = trace.sends.iter().map(|(_, s)| (s.attempt, s.continuation.is_some())).collect();
    assert_eq!(sends, [(1, false), (1, true)]);
    let sent_back = &trace.sends[1].1.continuation.as_ref().unwrap().assistant_content;
    assert_eq!(Some(sent_back), paused.content.as_ref());
    let p = trace.probe(PROBE);
    assert_eq!((p.status, p.attempts, p.continuations, p.truncated), (ProbeStatus::Success, 1, 1, false));
    assert!(p.raw_answer.starts_with("我先搜索一下GEOBoost的收费标准。\n\n") && p.raw_answer.contains("专业版"));
    assert!(!p.answer.contains("我先搜索一下"), "the preamble is cleaned away: {}", p.answer);
    let queries: Vec<(u32, Option<&str>)> = p.queries.iter().map(|q| (q.index, q.query.as_deref())).collect();
    assert_eq!(queries, [(1, Some("GEOBoost 收费标准 价格")), (2, Some("GEOBoost 套餐 年费"))]);
    assert_eq!(p.raw_sources.len(), 2, "sources of both replies");
    assert_eq!(p.raw_citations.as_ref().map(Vec::len), Some(1));
    let whole = paused.usage.plus(rest.usage);
    assert_eq!((p.usage, p.billed()), (whole, whole), "usage is the turn's, summed");
    assert_eq!(
        (p.request_id.as_deref(), p.stop_reason.as_deref()),
        (Some("msg_01Xk7GeoProbeFixtureT12b"), Some("end_turn"))
    );
    assert_eq!(trace.outcome().status, RunStatus::Completed);
}

#[test]
fn a_turn_still_paused_after_the_last_continuation_is_truncated() {
    // A paused reply with a search and no text (`p12_empty_pause_turn`).
    let paused = fixture(EngineId::Anthropic, "p12_empty_pause_turn");
    let n = MAX_CONTINUATIONS as usize + 1;
    let trace = run_one(vec![reply(paused.clone()); n], None);
    assert_eq!(trace.sends.len(), n + 1, "the first request, {MAX_CONTINUATIONS} continuations, a new attempt");
    assert!(trace.sends[..n].iter().all(|(_, s)| s.attempt == 1));
    // No text after the last continuation: an empty, truncated answer, retried as a new
    // attempt that starts over (and here succeeds with the default answer).
    assert_eq!((trace.sends[n].1.attempt, trace.sends[n].1.continuation.is_none()), (2, true));
    let p = trace.probe(PROBE);
    assert_eq!((p.status, p.attempts, p.continuations), (ProbeStatus::Success, 2, 0));
    let mut billed = Usage::default();
    for _ in 0..n {
        billed = billed.plus(paused.usage);
    }
    billed = billed.plus(response("").usage);
    assert_eq!(p.billed(), billed, "every paused reply was billed");
    // With text the answer stands, marked truncated.
    let mut with_text = paused.clone();
    with_text.content.as_mut().unwrap().push(serde_json::json!({"type": "text", "text": "GEOBoost 按年收费。"}));
    let trace = run_one(vec![reply(with_text); n], None);
    let p = trace.probe(PROBE);
    assert_eq!(
        (p.status, p.attempts, p.continuations, p.truncated),
        (ProbeStatus::Success, 1, MAX_CONTINUATIONS, true)
    );
    assert_eq!(p.raw_answer.matches("GEOBoost 按年收费。").count(), n, "every paused reply's text, in order");
}

#[test]
fn every_attempt_is_billed_and_usage_is_the_answering_one() {
    let mut empty = response("");
    empty.usage = usage(100, 7, 0, 0);
    let mut answer = response("元构场是一家公司。");
    answer.usage = usage(300, 40, 0, 0);
    let trace = run_one(vec![reply(empty.clone()), reply(empty), reply(answer)], None);
    let p = trace.probe(PROBE);
    assert_eq!((p.status, p.attempts), (ProbeStatus::Success, 3));
    assert_eq!(p.usage, usage(300, 40, 0, 0));
    assert_eq!(p.billed(), usage(500, 54, 0, 0));
    assert_eq!(p.billed_usage, Some(usage(500, 54, 0, 0)), "written on every new probe");
    // An error reply brings no usage; a probe without any reply is billed nothing.
    let trace = run_one(vec![err(ErrorKind::Auth, Some(401))], None);
    let p = trace.probe(PROBE);
    assert_eq!((p.status, p.billed_usage, p.cost_usd), (ProbeStatus::Error, Some(Usage::default()), None));
}

#[test]
fn stated_costs_sum_only_when_every_reply_states_one() {
    let stated = |text: &str, cost: Option<f64>| {
        let mut r = response(text);
        r.cost_usd = cost;
        reply(r)
    };
    let trace = run_one(vec![stated("", Some(0.01)), stated("元构场", Some(0.02))], None);
    let cost = trace.probe(PROBE).cost_usd.unwrap();
    assert!((cost - 0.03).abs() < 1e-12, "{cost}");
    let trace = run_one(vec![stated("", Some(0.01)), stated("元构场", None)], None);
    assert_eq!(trace.probe(PROBE).cost_usd, None);
    let trace = run_one(vec![stated("", None), stated("元构场", Some(0.02))], None);
    assert_eq!(trace.probe(PROBE).cost_usd, None);
}

#[test]
fn a_truncated_answer_is_kept_and_an_empty_truncated_one_retried() {
    let mut cut = response("1. 元构场\n2. 智谱");
    cut.truncated = true;
    let mut nothing = response("");
    nothing.truncated = true;
    let trace = run_one(vec![reply(nothing), reply(cut)], None);
    let p = trace.probe(PROBE);
    assert_eq!((p.status, p.attempts, p.truncated), (ProbeStatus::Success, 2, true));
    let trace = run_one(vec![ok("完整的回答")], None);
    assert!(!trace.probe(PROBE).truncated);
}

#[test]
fn an_error_during_a_continuation_fails_the_attempt_not_the_turn_content() {
    let paused = fixture(EngineId::Anthropic, "t12_pause_turn_preamble");
    let rest = fixture(EngineId::Anthropic, "t12_pause_turn_continued");
    let trace = run_one(
        vec![reply(paused.clone()), err(ErrorKind::Server, Some(529)), reply(paused.clone()), reply(rest.clone())],
        None,
    );
    let sends: Vec<(u32, bool)> = trace.sends.iter().map(|(_, s)| (s.attempt, s.continuation.is_some())).collect();
    assert_eq!(sends, [(1, false), (1, true), (2, false), (2, true)]);
    let p = trace.probe(PROBE);
    assert_eq!((p.status, p.attempts, p.continuations), (ProbeStatus::Success, 2, 1));
    assert_eq!(p.usage, paused.usage.plus(rest.usage));
    assert_eq!(p.billed(), paused.usage.plus(paused.usage).plus(rest.usage));
}

#[test]
fn cancel_drops_a_turn_in_flight() {
    let paused = fixture(EngineId::Anthropic, "t12_pause_turn_preamble");
    let rest = fixture(EngineId::Anthropic, "t12_pause_turn_continued");
    // The paused reply arrives at T0 + 100; cancel while the continuation is in flight.
    let trace = run_one(vec![reply(paused), reply(rest)], Some(T0 + DEFAULT_LATENCY + 50));
    assert_eq!(trace.sends.len(), 2);
    assert!(trace.writes.is_empty(), "no half-made probe");
    assert_eq!(trace.outcome().status, RunStatus::Cancelled);
    assert_eq!(trace.late_responses, 1);
    assert!(trace.after_finish.is_empty());
}
