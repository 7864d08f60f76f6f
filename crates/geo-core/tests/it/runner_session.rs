//! Seed §3.3 and §3.6: the worker pool (clamped concurrency, pick-up order, immediate
//! writes, progress) and cancellation, driven on a virtual clock.

use crate::runner_support::*;
use geo_core::model::{ErrorKind, ProbeStatus, RunConfig, RunStatus};
use geo_core::runner::{iso_timestamp, Action, Mode, Progress, RunnerError, Session, SessionOptions, Slot};

fn ids_of(list: &[(&str, u32)]) -> Vec<String> {
    list.iter().map(|(p, r)| format!("run1__{p}__{r}")).collect()
}

#[test]
fn in_flight_never_exceeds_the_clamped_concurrency() {
    for (asked, expect) in [(0u32, 1usize), (1, 1), (2, 2), (3, 3), (5, 3), (u32::MAX, 3)] {
        let run = new_run(&["p1", "p2", "p3"], 3, asked);
        assert_eq!(run.config.concurrency as usize, expect, "start_run clamps {asked}");
        let mut engine = Session::new(&run, Mode::Fresh, SessionOptions::default()).unwrap();
        assert_eq!(engine.concurrency(), expect);
        let mut script = Script::new();
        script.default_latency = 1_000;
        let trace = drive_to_completion(&mut engine, Drive::new(script));
        assert_eq!(trace.max_in_flight, expect, "concurrency {asked}");
        assert_eq!(trace.writes.len(), 9);
        assert!(trace.progress.iter().all(|p| p.in_flight as usize <= expect));
    }
}

#[test]
fn engine_clamps_an_imported_run_config_too() {
    let mut run = new_run(&["p1", "p2"], 3, 3);
    for (stored, expect) in [(0u32, 1usize), (9, 3)] {
        run.config = RunConfig { concurrency: stored, ..run.config.clone() };
        let mut engine = Session::new(&run, Mode::Fresh, SessionOptions::default()).unwrap();
        let trace = drive_to_completion(&mut engine, Drive::new(Script::new()));
        assert_eq!(trace.max_in_flight, expect);
    }
}

#[test]
fn tasks_are_picked_up_prompt_outer_repeat_inner() {
    let expect = ids_of(&[("p1", 0), ("p1", 1), ("p1", 2), ("p2", 0), ("p2", 1), ("p2", 2)]);
    // Selection order does not matter: the snapshot keeps project order.
    let run = new_run(&["p2", "p1"], 3, 1);
    let mut engine = Session::new(&run, Mode::Fresh, SessionOptions::default()).unwrap();
    let planned: Vec<String> = engine.tasks().iter().map(|t| t.probe_id.clone()).collect();
    assert_eq!(planned, expect);
    let trace = drive_to_completion(&mut engine, Drive::new(Script::new()));
    assert_eq!(trace.first_attempt_ids(), expect);
    assert_eq!(trace.written_ids(), expect, "serial: finished in pick-up order");

    // With three workers and uneven latencies the pick-up order stays the same, the
    // completion order does not.
    let run = new_run(&["p1", "p2"], 3, 3);
    let mut engine = Session::new(&run, Mode::Fresh, SessionOptions::default()).unwrap();
    let script = Script::new()
        .on("run1__p1__0", vec![ok("元构场").after(5_000)])
        .on("run1__p1__1", vec![ok("元构场").after(300)])
        .on("run1__p1__2", vec![ok("元构场").after(200)]);
    let trace = drive_to_completion(&mut engine, Drive::new(script));
    assert_eq!(trace.first_attempt_ids(), expect);
    assert_eq!(trace.written_ids(), ids_of(&[("p1", 2), ("p1", 1), ("p2", 0), ("p2", 1), ("p2", 2), ("p1", 0)]));
    // A freed slot takes the next task at once.
    let free_slot = trace.sends.iter().find(|(_, s)| s.probe_id == "run1__p2__0").unwrap();
    assert_eq!(free_slot.0, T0 + 200);
}

#[test]
fn a_backing_off_slot_keeps_its_probe() {
    // Two workers: p1__0 fails and backs off 1200 ms; its slot must not take p1__1's place.
    let run = new_run(&["p1"], 3, 2);
    let mut engine = Session::new(&run, Mode::Fresh, SessionOptions::default()).unwrap();
    let script = Script::new().on("run1__p1__0", vec![err(ErrorKind::Network, None).after(100)]);
    let trace = drive_to_completion(&mut engine, Drive::new(script));
    let slots: Vec<(String, u32, Slot)> =
        trace.sends.iter().map(|(_, s)| (s.probe_id.clone(), s.attempt, s.slot)).collect();
    assert_eq!(
        slots,
        vec![
            ("run1__p1__0".into(), 1, Slot(0)),
            ("run1__p1__1".into(), 1, Slot(1)),
            ("run1__p1__2".into(), 1, Slot(1)),
            ("run1__p1__0".into(), 2, Slot(0)),
        ]
    );
    assert_eq!(trace.sleeps[0].3, T0 + 100 + 1200);
}

#[test]
fn probes_are_written_when_they_finish_and_progress_follows() {
    let run = new_run(&["p1", "p2"], 2, 2);
    let mut engine = Session::new(&run, Mode::Fresh, SessionOptions::default()).unwrap();
    let script = Script::new()
        .on("run1__p1__1", vec![err(ErrorKind::Auth, Some(401))])
        .on("run1__p2__0", vec![empty(), empty(), empty()]);
    let trace = drive_to_completion(&mut engine, Drive::new(script));
    for (at, probe) in &trace.writes {
        assert_eq!(probe.created_at, iso_timestamp(*at));
    }
    assert_eq!(trace.progress.first(), Some(&Progress { planned: 4, ..Progress::default() }));
    assert_eq!(trace.progress.last(), Some(&Progress { done: 4, planned: 4, success: 2, failed: 2, in_flight: 0 }));
    assert_eq!(trace.progress.len(), 5, "the initial counters, then one update per written probe");
    let dones: Vec<u32> = trace.progress.iter().map(|p| p.done).collect();
    assert_eq!(dones, [0, 1, 2, 3, 4]);
    let (at, outcome) = trace.finished.as_ref().unwrap();
    assert_eq!(outcome.status, RunStatus::Partial);
    assert_eq!(outcome.finished_at, iso_timestamp(*at));
    assert_eq!(engine.progress(), *trace.progress.last().unwrap());

    let mut stored = run.clone();
    outcome.apply(&mut stored);
    assert_eq!(stored.status, RunStatus::Partial);
    assert_eq!(stored.finished_at.as_deref(), Some(outcome.finished_at.as_str()));
}

#[test]
fn final_status_of_a_fresh_run() {
    #[track_caller]
    fn check(script: Script, expect: RunStatus) {
        let run = new_run(&["p1"], 2, 2);
        let mut engine = Session::new(&run, Mode::Fresh, SessionOptions::default()).unwrap();
        let trace = drive_to_completion(&mut engine, Drive::new(script));
        assert_eq!(trace.outcome().status, expect);
    }
    let auth = || vec![err(ErrorKind::Auth, Some(401))];
    check(Script::new(), RunStatus::Completed);
    check(Script::new().on("run1__p1__0", auth()), RunStatus::Partial);
    check(Script::new().on("run1__p1__0", vec![empty(); 3]), RunStatus::Partial);
    check(Script::new().on("run1__p1__0", auth()).on("run1__p1__1", vec![empty(); 3]), RunStatus::Failed);
}

#[test]
fn cancel_mid_flight_keeps_finished_probes_and_writes_nothing_partial() {
    let run = new_run(&["p1", "p2"], 3, 3);
    let mut engine = Session::new(&run, Mode::Fresh, SessionOptions::default()).unwrap();
    let script = Script::new()
        .on("run1__p1__0", vec![ok("元构场").after(100)])
        .on("run1__p1__1", vec![ok("元构场").after(1_000)])
        .on("run1__p1__2", vec![err(ErrorKind::Server, Some(503)).after(200)]);
    let mut script = script;
    script.default_latency = 1_000;
    let drive = Drive { cancel_at: Some(T0 + 500), ..Drive::new(script) };
    let trace = drive_to_completion(&mut engine, drive);
    // p1__0 finished at +100 and p1__2 backs off from +200; p2__0 (taken at +100) and p1__1
    // are in flight at +500.
    assert_eq!(trace.written_ids(), ids_of(&[("p1", 0)]));
    assert!(trace.sends.iter().all(|(at, _)| *at < T0 + 500), "nothing sent after cancel");
    assert_eq!(trace.first_attempt_ids(), ids_of(&[("p1", 0), ("p1", 1), ("p1", 2), ("p2", 0)]));
    let (at, outcome) = trace.finished.as_ref().unwrap();
    assert_eq!((*at, outcome.status), (T0 + 500, RunStatus::Cancelled));
    assert_eq!(outcome.finished_at, "2026-11-29T08:00:00.500Z");
    assert_eq!(trace.late_responses, 2, "both in-flight responses arrived late");
    assert!(trace.after_finish.is_empty(), "late responses are dropped: {:?}", trace.after_finish);
    assert!(trace.writes.iter().all(|(_, p)| p.status != ProbeStatus::Cancelled));
    assert_eq!(trace.progress.last().map(|p| (p.done, p.in_flight)), Some((1, 0)));
    assert!(engine.is_cancelled() && engine.is_finished());
    assert_eq!(engine.next_wakeup(), None);
}

#[test]
fn probes_finished_before_cancel_are_still_handed_out() {
    let run = new_run(&["p1"], 2, 2);
    let mut engine = Session::new(&run, Mode::Fresh, SessionOptions::default()).unwrap();
    let mut sends = Vec::new();
    while let Some(action) = engine.poll(T0) {
        if let Action::Send(req) = action {
            sends.push(req);
        }
    }
    assert_eq!(sends.len(), 2);
    // The first response arrives, then the user cancels before the shell polls again.
    engine.on_response(sends[0].slot, T0 + 10, Ok(response("元构场")), 0).unwrap();
    engine.cancel();
    engine.on_response(sends[1].slot, T0 + 20, Ok(response("元构场")), 0).unwrap();
    let actions: Vec<Action> = std::iter::from_fn(|| engine.poll(T0 + 30)).collect();
    let writes: Vec<&str> = actions
        .iter()
        .filter_map(|a| match a {
            Action::Write(p) => Some(p.id.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(writes, ["run1__p1__0"]);
    assert!(matches!(actions.last(), Some(Action::Finished(o)) if o.status == RunStatus::Cancelled));
    assert_eq!(engine.poll(T0 + 40), None);
}

#[test]
fn cancel_during_back_off_abandons_the_retry() {
    let run = new_run(&["p1"], 1, 1);
    let mut engine = Session::new(&run, Mode::Fresh, SessionOptions::default()).unwrap();
    let script = Script::new().on("run1__p1__0", vec![err(ErrorKind::RateLimit, Some(429)).after(100)]);
    let drive = Drive { cancel_at: Some(T0 + 600), ..Drive::new(script) };
    let trace = drive_to_completion(&mut engine, drive);
    assert_eq!(trace.sends.len(), 1);
    assert!(trace.writes.is_empty());
    assert_eq!(trace.outcome().status, RunStatus::Cancelled);
}

#[test]
fn a_response_for_an_idle_slot_is_an_error_value() {
    let run = new_run(&["p1"], 1, 1);
    let mut engine = Session::new(&run, Mode::Fresh, SessionOptions::default()).unwrap();
    let unexpected = engine.on_response(Slot(0), T0, Ok(response("x")), 0);
    assert_eq!(unexpected, Err(RunnerError::NoRequestInFlight { slot: Slot(0) }));
    assert_eq!(
        engine.on_response(Slot(7), T0, Ok(response("x")), 0),
        Err(RunnerError::NoRequestInFlight { slot: Slot(7) })
    );
    let message = unexpected.unwrap_err().to_string();
    assert!(message.starts_with("slot 0 has no request in flight"), "{message}");
}

#[test]
fn finished_engine_stays_silent() {
    let run = new_run(&["p1"], 1, 1);
    let mut engine = Session::new(&run, Mode::Fresh, SessionOptions::default()).unwrap();
    let trace = drive_to_completion(&mut engine, Drive::new(Script::new()));
    assert!(trace.finished.is_some());
    assert_eq!(engine.poll(T0 + 1_000_000), None);
    engine.cancel();
    assert_eq!(engine.poll(T0 + 1_000_001), None, "cancel after finishing changes nothing");
    assert!(!engine.is_cancelled());
}

#[test]
fn waiting_engine_reports_its_wakeup() {
    let run = new_run(&["p1"], 1, 1);
    let mut engine = Session::new(&run, Mode::Fresh, SessionOptions::default()).unwrap();
    let send = std::iter::from_fn(|| engine.poll(T0))
        .find_map(|a| match a {
            Action::Send(s) => Some(s),
            _ => None,
        })
        .unwrap();
    assert_eq!(engine.poll(T0), None, "waiting for the response");
    assert_eq!(engine.next_wakeup(), None);
    engine
        .on_response(
            send.slot,
            T0 + 10,
            Err(geo_core::model::ProbeError {
                kind: ErrorKind::Network,
                http_status: None,
                message: "connection reset".into(),
            }),
            5,
        )
        .unwrap();
    assert!(matches!(engine.poll(T0 + 10), Some(Action::Sleep { until_ms, .. }) if until_ms == T0 + 1215));
    assert_eq!(engine.next_wakeup(), Some(T0 + 1215));
    assert_eq!(engine.poll(T0 + 1214), None, "too early");
    assert!(matches!(engine.poll(T0 + 1215), Some(Action::Send(s)) if s.attempt == 2));
}
