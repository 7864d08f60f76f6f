//! Property test of the engine against a naive per-probe oracle: random runs, random
//! scripted transports, random jitter and random cancellation.
//!
//! The transports fail with every error kind of `ErrorKind::ALL` (code review 3 found a
//! hand-written list without `refused`, so a runner that retried refusals passed); the
//! oracle states the seed §3.4 retry table itself, kind by kind.

use crate::runner_support::*;
use geo_core::model::{ErrorKind, ProbeStatus, RunStatus};
use geo_core::runner::{clamp_concurrency, final_status, is_empty_answer, Mode, Session, SessionOptions};
use proptest::prelude::*;

/// The HTTP status a transport reports with an error of `kind` (`None`: no response).
fn status_of(kind: ErrorKind) -> Option<u16> {
    match kind {
        ErrorKind::Auth => Some(401),
        ErrorKind::Balance => Some(402),
        ErrorKind::Forbidden => Some(403),
        ErrorKind::Http => Some(400),
        ErrorKind::Timeout => Some(408),
        ErrorKind::RateLimit => Some(429),
        ErrorKind::Server => Some(500),
        ErrorKind::Network => None,
        ErrorKind::InvalidJson | ErrorKind::Empty => Some(200),
        // A DashScope `DataInspectionFailed` is a 400; ERNIE's `content_filter` a 200.
        ErrorKind::Refused => Some(400),
    }
}

/// Whether the seed's retry table (§3.4, with `docs/CONTEXT.md` for the kinds it predates)
/// tries an attempt failed with `kind` again. No wildcard: a new kind must be placed here.
fn retried(kind: ErrorKind) -> bool {
    match kind {
        // 401 / 402 / 403: a bad key, no balance, a refused request.
        ErrorKind::Auth | ErrorKind::Balance | ErrorKind::Forbidden => false,
        // Any other status is a deterministic client error.
        ErrorKind::Http => false,
        // A content filter declined: asking again gets the same answer.
        ErrorKind::Refused => false,
        // 408 / 429 / 5xx, network errors, the timeout, invalid JSON, an empty answer.
        ErrorKind::Timeout
        | ErrorKind::RateLimit
        | ErrorKind::Server
        | ErrorKind::Network
        | ErrorKind::InvalidJson
        | ErrorKind::Empty => true,
    }
}

fn reply_strategy() -> impl Strategy<Value = Reply> {
    let kind = prop_oneof![
        3 => Just(0usize),
        2 => Just(1usize),
        4 => 2usize..2 + ErrorKind::ALL.len(),
    ];
    (kind, 0u64..3_000).prop_map(|(k, latency)| {
        match k {
            0 => ok("元构场 answer"),
            1 => empty(),
            k => err(ErrorKind::ALL[k - 2], status_of(ErrorKind::ALL[k - 2])),
        }
        .after(latency)
    })
}

/// The oracle: status and attempts of one probe given its replies, read one by one.
fn expected(replies: &[Reply]) -> (ProbeStatus, u32) {
    for (i, r) in replies.iter().enumerate() {
        let attempt = i as u32 + 1;
        let last = attempt == 3;
        match &r.outcome {
            Ok(resp) if !is_empty_answer(resp) => return (ProbeStatus::Success, attempt),
            Ok(_) if last => return (ProbeStatus::Empty, attempt),
            Ok(_) => {}
            Err(e) if last || !retried(e.kind) => return (ProbeStatus::Error, attempt),
            Err(_) => {}
        }
    }
    unreachable!("three replies always decide")
}

proptest! {
    #![proptest_config(crate::config())]

    #[test]
    fn engine_matches_the_oracle(
        prompt_count in 1usize..=3,
        repeats in 1u32..=3,
        concurrency in 0u32..=5,
        replies in proptest::collection::vec(proptest::collection::vec(reply_strategy(), 3), 9),
        randoms in proptest::collection::vec(any::<u32>(), 1..4),
        cancel_at in proptest::option::weighted(0.3, 0u64..8_000),
    ) {
        let selected = ["p1", "p2", "p3"];
        let run = new_run(&selected[..prompt_count], repeats, concurrency);
        let mut engine = Session::new(&run, Mode::Fresh, SessionOptions::default()).unwrap();
        let tasks: Vec<String> = engine.tasks().iter().map(|t| t.probe_id.clone()).collect();
        let mut script = Script::new();
        for (i, id) in tasks.iter().enumerate() {
            script = script.on(id, replies[i].clone());
        }
        let drive = Drive { randoms, cancel_at: cancel_at.map(|c| T0 + c), ..Drive::new(script) };
        let trace = drive_to_completion(&mut engine, drive);

        prop_assert!(trace.max_in_flight <= clamp_concurrency(concurrency) as usize);
        prop_assert!(trace.after_finish.is_empty());
        let first: Vec<String> = trace.first_attempt_ids();
        prop_assert_eq!(&first[..], &tasks[..first.len()], "pick-up order");
        for (at, slot, id, until) in &trace.sleeps {
            let attempt = trace.sends.iter().filter(|(t, s)| s.probe_id == *id && t <= at).count() as u64;
            let backoff = until - at;
            let empty_backoff = backoff == 900 * attempt;
            let error_backoff = (1200 * attempt..=1200 * attempt + 400).contains(&backoff);
            prop_assert!(empty_backoff || error_backoff, "{:?} {} backoff {}", slot, id, backoff);
        }
        let written: Vec<_> = trace.writes.iter().map(|(_, p)| p.clone()).collect();
        for (i, id) in tasks.iter().enumerate() {
            let sends = trace.sends.iter().filter(|(_, s)| &s.probe_id == id).count() as u32;
            match written.iter().find(|p| &p.id == id) {
                Some(p) => {
                    let (status, attempts) = expected(&replies[i]);
                    prop_assert_eq!((p.status, p.attempts), (status, attempts), "{}", id);
                    prop_assert_eq!(sends, attempts);
                    // The error kept is the last attempt's: a refusal is recorded as `refused`.
                    if let Err(e) = &replies[i][attempts as usize - 1].outcome {
                        prop_assert_eq!(p.error.as_ref().map(|x| x.kind), Some(e.kind), "{}", id);
                    }
                }
                None => prop_assert!(cancel_at.is_some(), "{} never written", id),
            }
        }
        let finished_at = trace.finished.as_ref().unwrap().0;
        let cancelled = trace.outcome().status == RunStatus::Cancelled;
        match cancel_at.map(|c| T0 + c) {
            // The user pressed cancel before the run ended on its own.
            Some(c) if cancelled => {
                prop_assert_eq!(finished_at, c);
                prop_assert!(trace.sends.iter().all(|(t, _)| *t <= c));
            }
            _ => {
                prop_assert!(!cancelled);
                prop_assert!(cancel_at.is_none_or(|c| finished_at <= T0 + c));
                prop_assert_eq!(written.len(), tasks.len());
                prop_assert_eq!(trace.outcome().status, final_status(&written, false));
            }
        }
    }
}
