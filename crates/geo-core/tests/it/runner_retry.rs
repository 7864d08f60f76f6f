//! Seed §3.4: every row of the retry table, exact back-off durations, and the probe record
//! written for each outcome.

use crate::runner_support::*;
use geo_core::model::{ErrorKind, ProbeStatus};
use geo_core::runner::{iso_timestamp, Mode, Session, SessionOptions};

const PROBE: &str = "run1__p1__0";

struct Expect {
    status: ProbeStatus,
    attempts: u32,
    error: Option<ErrorKind>,
    /// Back-off after each failed attempt, in order.
    backoffs: &'static [u64],
}

/// Drives one probe (one prompt, one repeat) through `replies` with jitter randoms `randoms`.
#[track_caller]
fn check(replies: Vec<Reply>, randoms: &[u32], expect: Expect) {
    let run = new_run(&["p1"], 1, 3);
    let mut engine = Session::new(&run, Mode::Fresh, SessionOptions::default()).unwrap();
    let script = Script::new().on(PROBE, replies);
    let trace = drive_to_completion(&mut engine, Drive { randoms: randoms.to_vec(), ..Drive::new(script) });

    assert_eq!(trace.sends.len() as u32, expect.attempts, "requests sent");
    let attempts: Vec<u32> = trace.sends.iter().map(|(_, s)| s.attempt).collect();
    assert_eq!(attempts, (1..=expect.attempts).collect::<Vec<_>>());
    let backoffs: Vec<u64> = trace.sleeps.iter().map(|(at, _, _, until)| until - at).collect();
    assert_eq!(backoffs, expect.backoffs, "back-off durations");
    // Each resend happens exactly when its back-off ends.
    for (i, (_, _, _, until)) in trace.sleeps.iter().enumerate() {
        assert_eq!(trace.sends[i + 1].0, *until, "resend time of attempt {}", i + 2);
    }
    assert_eq!(trace.written_ids(), vec![PROBE.to_string()]);
    let probe = trace.probe(PROBE);
    assert_eq!(probe.status, expect.status);
    assert_eq!(probe.attempts, expect.attempts);
    assert_eq!(probe.error.as_ref().map(|e| e.kind), expect.error);
    let status = match expect.status {
        ProbeStatus::Success => geo_core::model::RunStatus::Completed,
        _ => geo_core::model::RunStatus::Failed,
    };
    assert_eq!(trace.outcome().status, status);
}

fn e(kind: ErrorKind, status: u16) -> Reply {
    err(kind, Some(status))
}

fn net() -> Reply {
    err(ErrorKind::Network, None)
}

#[test]
fn non_retryable_errors_fail_at_once() {
    use ErrorKind::*;
    for (kind, status) in [(Auth, 401), (Balance, 402), (Forbidden, 403), (Http, 400), (Http, 404), (Http, 422)] {
        check(
            vec![e(kind, status), ok("never asked")],
            &[0],
            Expect { status: ProbeStatus::Error, attempts: 1, error: Some(kind), backoffs: &[] },
        );
    }
}

#[test]
fn retryable_errors_are_tried_three_times() {
    use ErrorKind::*;
    let rows = [
        e(Timeout, 408),
        e(RateLimit, 429),
        e(Server, 500),
        e(Server, 502),
        e(Server, 503),
        net(),
        err(Timeout, None),
        err(InvalidJson, Some(200)),
    ];
    for reply in rows {
        let kind = reply.outcome.as_ref().unwrap_err().kind;
        check(
            vec![reply.clone(), reply.clone(), reply.clone(), ok("never asked")],
            &[137, 401 + 55],
            Expect { status: ProbeStatus::Error, attempts: 3, error: Some(kind), backoffs: &[1200 + 137, 2400 + 55] },
        );
    }
}

#[test]
fn retryable_error_then_success() {
    check(
        vec![e(ErrorKind::RateLimit, 429), ok("元构场")],
        &[400],
        Expect { status: ProbeStatus::Success, attempts: 2, error: None, backoffs: &[1600] },
    );
    check(
        vec![net(), e(ErrorKind::Server, 500), ok("元构场")],
        &[0, 7],
        Expect { status: ProbeStatus::Success, attempts: 3, error: None, backoffs: &[1200, 2407] },
    );
}

#[test]
fn empty_answers_are_retried_without_jitter_then_recorded_empty() {
    check(
        vec![empty(), empty(), empty(), ok("never asked")],
        &[399],
        Expect { status: ProbeStatus::Empty, attempts: 3, error: Some(ErrorKind::Empty), backoffs: &[900, 1800] },
    );
    check(
        vec![ok("  \n "), ok("元构场")],
        &[399],
        Expect { status: ProbeStatus::Success, attempts: 2, error: None, backoffs: &[900] },
    );
    check(
        vec![empty(), empty(), ok("元构场")],
        &[1],
        Expect { status: ProbeStatus::Success, attempts: 3, error: None, backoffs: &[900, 1800] },
    );
}

#[test]
fn mixed_sequences_end_with_the_last_outcome() {
    check(
        vec![empty(), net(), e(ErrorKind::Auth, 401)],
        &[3],
        Expect { status: ProbeStatus::Error, attempts: 3, error: Some(ErrorKind::Auth), backoffs: &[900, 2403] },
    );
    check(
        vec![net(), net(), empty()],
        &[10, 20],
        Expect { status: ProbeStatus::Empty, attempts: 3, error: Some(ErrorKind::Empty), backoffs: &[1210, 2420] },
    );
    // A non-retryable error on the second attempt stops there.
    check(
        vec![e(ErrorKind::Server, 500), e(ErrorKind::Balance, 402)],
        &[0],
        Expect { status: ProbeStatus::Error, attempts: 2, error: Some(ErrorKind::Balance), backoffs: &[1200] },
    );
}

#[test]
fn success_probe_keeps_the_raw_result_and_is_analysed() {
    let run = new_run(&["p1"], 1, 1);
    let mut engine = Session::new(&run, Mode::Fresh, SessionOptions::default()).unwrap();
    let script =
        Script::new().on(PROBE, vec![net().after(50), ok("我先搜索一下。\n\n推荐元构场和竞品甲。").after(4321)]);
    let trace = drive_to_completion(&mut engine, Drive { randoms: vec![100], ..Drive::new(script) });
    let (written_at, probe) = &trace.writes[0];
    // 50 ms first attempt, 1300 ms back-off, 4321 ms second attempt.
    assert_eq!(*written_at, T0 + 50 + 1300 + 4321);
    assert_eq!(probe.created_at, iso_timestamp(*written_at));
    assert_eq!(probe.created_at, "2026-11-29T08:00:05.671Z");
    assert_eq!(probe.latency_ms, 4321, "latency of the last attempt only");
    assert_eq!(probe.attempts, 2);
    assert_eq!(probe.model, "deepseek-v4-flash-0901", "model from the response");
    assert_eq!(probe.request_id.as_deref(), Some("msg_1"));
    assert_eq!(probe.stop_reason.as_deref(), Some("end_turn"));
    assert_eq!(probe.usage.output_tokens, 20);
    assert_eq!(probe.raw_answer, "我先搜索一下。\n\n推荐元构场和竞品甲。");
    assert_eq!(probe.answer, "推荐元构场和竞品甲。", "cleaned by analyze_probe");
    let mentioned: Vec<&str> = probe.mentions.iter().map(|m| m.target_id.as_str()).collect();
    assert_eq!(mentioned, ["brand", "comp"]);
    assert_eq!(
        (
            probe.id.as_str(),
            probe.run_id.as_str(),
            probe.project_id.as_str(),
            probe.prompt_id.as_str(),
            probe.repeat_index
        ),
        (PROBE, "run1", "proj", "p1", 0)
    );
    assert!(probe.error.is_none());
}

#[test]
fn error_probe_has_no_raw_result_and_the_requested_model() {
    let run = new_run(&["p1"], 1, 1);
    let mut engine = Session::new(&run, Mode::Fresh, SessionOptions::default()).unwrap();
    let script = Script::new().on(PROBE, vec![e(ErrorKind::Auth, 401).after(77)]);
    let trace = drive_to_completion(&mut engine, Drive::new(script));
    let probe = trace.probe(PROBE);
    assert_eq!(probe.model, "deepseek-v4-flash");
    assert_eq!(probe.latency_ms, 77);
    assert_eq!(probe.error.as_ref().and_then(|e| e.http_status), Some(401));
    assert!(probe.raw_answer.is_empty() && probe.request_id.is_none() && probe.mentions.is_empty());
}

#[test]
fn empty_probe_keeps_the_last_usage() {
    let run = new_run(&["p1"], 1, 1);
    let mut engine = Session::new(&run, Mode::Fresh, SessionOptions::default()).unwrap();
    let script = Script::new().on(PROBE, vec![empty(), empty(), empty()]);
    let trace = drive_to_completion(&mut engine, Drive::new(script));
    let probe = trace.probe(PROBE);
    assert_eq!(probe.status, ProbeStatus::Empty);
    assert_eq!(probe.usage.input_tokens, 10);
    assert_eq!(probe.answer, "");
    let message = &probe.error.as_ref().unwrap().message;
    assert!(message.starts_with("the answer was empty after 3 attempts"), "{message}");
}

#[test]
fn send_carries_the_snapshot_text_and_the_timeout() {
    let run = new_run(&["p2"], 1, 1);
    let opts = SessionOptions { timeout_ms: 5_000, ..SessionOptions::default() };
    let mut engine = Session::new(&run, Mode::Fresh, opts).unwrap();
    let trace = drive_to_completion(&mut engine, Drive::new(Script::new()));
    let (_, req) = &trace.sends[0];
    assert_eq!(req.prompt_text, "元构场怎么样？");
    assert_eq!(req.prompt_id, "p2");
    assert_eq!(req.timeout_ms, 5_000);
    assert_eq!(SessionOptions::default().timeout_ms, 180_000);
}

#[test]
fn max_attempts_option_bounds_the_retries() {
    let run = new_run(&["p1"], 1, 1);
    for (max, expect) in [(0u32, 1usize), (1, 1), (2, 2), (5, 5)] {
        let mut engine =
            Session::new(&run, Mode::Fresh, SessionOptions { max_attempts: max, ..SessionOptions::default() }).unwrap();
        let script = Script::new().on(PROBE, vec![net(); 6]);
        let trace = drive_to_completion(&mut engine, Drive::new(script));
        assert_eq!(trace.sends.len(), expect, "max_attempts {max}");
        assert_eq!(trace.probe(PROBE).status, ProbeStatus::Error);
    }
}
