//! Seed §3.6: continue a run (idempotent, snapshots only) and retry its failures (serial,
//! same ids, status recomputed over the whole run).

use crate::runner_support::*;
use geo_core::model::{ErrorKind, Probe, ProbeStatus, Run, RunStatus};
use geo_core::runner::{plan_tasks, Mode, RunnerError, Session, SessionOptions};

/// Stores written probes the way the shells do: overwrite by id.
fn store(records: &mut Vec<Probe>, trace: &Trace) {
    for (_, p) in &trace.writes {
        match records.iter_mut().find(|r| r.id == p.id) {
            Some(r) => *r = p.clone(),
            None => records.push(p.clone()),
        }
    }
}

/// The probes a new store holds after `trace`.
fn stored(trace: &Trace) -> Vec<Probe> {
    let mut records = Vec::new();
    store(&mut records, trace);
    records
}

/// A 2 × 3 run cancelled after p1__0 and p1__1 succeeded and p1__2 failed with 401.
fn interrupted_run() -> (Run, Vec<Probe>) {
    let run = new_run(&["p1", "p2"], 3, 1);
    let mut engine = Session::new(&run, Mode::Fresh, SessionOptions::default()).unwrap();
    let script = Script::new().on("run1__p1__2", vec![err(ErrorKind::Auth, Some(401))]);
    let trace = drive_to_completion(&mut engine, Drive { cancel_at: Some(T0 + 350), ..Drive::new(script) });
    assert_eq!(trace.written_ids(), ["run1__p1__0", "run1__p1__1", "run1__p1__2"]);
    assert_eq!(trace.outcome().status, RunStatus::Cancelled);
    (run, stored(&trace))
}

#[test]
fn continue_runs_everything_but_successes_and_is_idempotent() {
    let (run, mut records) = interrupted_run();
    let untouched: Vec<Probe> = records.iter().filter(|p| p.status == ProbeStatus::Success).cloned().collect();

    let mut engine =
        Session::new(&run, Mode::Continue { existing: records.clone() }, SessionOptions::default()).unwrap();
    let trace = drive_to_completion(&mut engine, Drive::new(Script::new()));
    let expect = ["run1__p1__2", "run1__p2__0", "run1__p2__1", "run1__p2__2"];
    assert_eq!(trace.first_attempt_ids(), expect, "same ids, successes skipped");
    assert_eq!(trace.written_ids(), expect);
    assert_eq!(trace.max_in_flight, 1, "the run's own concurrency");
    assert_eq!(trace.outcome().status, RunStatus::Completed, "over the union of old and new probes");
    assert_eq!(trace.progress.last().map(|p| (p.done, p.planned)), Some((4, 4)));
    store(&mut records, &trace);
    assert_eq!(records.len(), 6, "no duplicate records");
    for p in &untouched {
        assert_eq!(records.iter().find(|r| r.id == p.id), Some(p), "success {} untouched", p.id);
    }

    // Continuing a finished run does nothing and reports the same status.
    let before = records.clone();
    let mut engine =
        Session::new(&run, Mode::Continue { existing: records.clone() }, SessionOptions::default()).unwrap();
    let trace = drive_to_completion(&mut engine, Drive::new(Script::new()));
    assert!(trace.sends.is_empty() && trace.writes.is_empty());
    assert_eq!(trace.outcome().status, RunStatus::Completed);
    store(&mut records, &trace);
    assert_eq!(records, before);
}

#[test]
fn continue_status_counts_old_failures_it_could_not_fix() {
    let (run, records) = interrupted_run();
    let mut engine = Session::new(&run, Mode::Continue { existing: records }, SessionOptions::default()).unwrap();
    let script = Script::new().on("run1__p1__2", vec![err(ErrorKind::Balance, Some(402))]);
    let trace = drive_to_completion(&mut engine, Drive::new(script));
    assert_eq!(trace.outcome().status, RunStatus::Partial);
    // p1__2 failed again, so the run stays partial; the session's counters cover only its
    // own four tasks.
    assert_eq!(trace.progress.last().map(|p| (p.success, p.failed)), Some((3, 1)));
}

#[test]
fn continue_uses_the_run_snapshots_not_the_current_project() {
    let (mut run, records) = interrupted_run();
    // The project changed after the run started: the run record is all the engine sees, so
    // prove it by checking what it sends and matches against.
    run.prompt_snapshot[1].text = "快照里的问题".into();
    run.alias_snapshot[0].aliases = vec!["快照品牌".into()];
    let mut engine = Session::new(&run, Mode::Continue { existing: records }, SessionOptions::default()).unwrap();
    let script = Script::new().on("run1__p2__0", vec![ok("推荐快照品牌和元构场")]);
    let trace = drive_to_completion(&mut engine, Drive::new(script));
    let texts: Vec<&str> = trace.sends.iter().map(|(_, s)| s.prompt_text.as_str()).collect();
    assert_eq!(texts, ["哪家 GEO 服务商最好？", "快照里的问题", "快照里的问题", "快照里的问题"]);
    let mention = &trace.probe("run1__p2__0").mentions[0];
    assert_eq!((mention.target_id.as_str(), mention.matched_aliases.clone()), ("brand", vec!["快照品牌".to_string()]));
    // The run's repeats decide the grid too.
    run.config.repeats = 1;
    let tasks = plan_tasks(&run, &Mode::Continue { existing: vec![] }).unwrap();
    assert_eq!(tasks.iter().map(|t| t.probe_id.as_str()).collect::<Vec<_>>(), ["run1__p1__0", "run1__p2__0"]);
}

#[test]
fn continue_ignores_probes_of_other_runs() {
    let (run, mut records) = interrupted_run();
    let mut foreign = records[0].clone();
    foreign.run_id = "run0".into();
    foreign.id = "run0__p2__0".into();
    records.push(foreign);
    let mut other_failure = records[2].clone();
    other_failure.run_id = "run0".into();
    records.push(other_failure);
    let mut engine = Session::new(&run, Mode::Continue { existing: records }, SessionOptions::default()).unwrap();
    let trace = drive_to_completion(&mut engine, Drive::new(Script::new()));
    assert_eq!(trace.first_attempt_ids(), ["run1__p1__2", "run1__p2__0", "run1__p2__1", "run1__p2__2"]);
    assert_eq!(trace.outcome().status, RunStatus::Completed);
}

/// A 2 × 2 run at concurrency 3 with three failures: p1__1 401, p2__0 empty, p2__1 503.
fn failed_run() -> (Run, Vec<Probe>) {
    let run = new_run(&["p1", "p2"], 2, 3);
    let mut engine = Session::new(&run, Mode::Fresh, SessionOptions::default()).unwrap();
    let script = Script::new()
        .on("run1__p1__1", vec![err(ErrorKind::Auth, Some(401))])
        .on("run1__p2__0", vec![empty(), empty(), empty()])
        .on("run1__p2__1", vec![err(ErrorKind::Server, Some(503)); 3]);
    let trace = drive_to_completion(&mut engine, Drive::new(script));
    assert_eq!(trace.outcome().status, RunStatus::Partial);
    (run, stored(&trace))
}

#[test]
fn retry_failed_runs_failures_serially_under_the_same_ids() {
    let (run, mut records) = failed_run();
    let mut engine =
        Session::new(&run, Mode::RetryFailed { existing: records.clone() }, SessionOptions::default()).unwrap();
    assert_eq!(engine.concurrency(), 1, "serial whatever the run's concurrency");
    let mut script = Script::new();
    script.default_latency = 2_000;
    let trace = drive_to_completion(&mut engine, Drive::new(script));
    assert_eq!(trace.max_in_flight, 1);
    let expect = ["run1__p1__1", "run1__p2__0", "run1__p2__1"];
    assert_eq!(trace.first_attempt_ids(), expect);
    assert_eq!(trace.written_ids(), expect);
    assert_eq!(trace.outcome().status, RunStatus::Completed, "recomputed over the whole run");
    store(&mut records, &trace);
    assert_eq!(records.len(), 4);
    assert!(records.iter().all(|p| p.status == ProbeStatus::Success));
}

#[test]
fn retry_failed_recomputes_partial_and_failed() {
    let (run, records) = failed_run();
    let mut engine =
        Session::new(&run, Mode::RetryFailed { existing: records.clone() }, SessionOptions::default()).unwrap();
    let script = Script::new().on("run1__p1__1", vec![err(ErrorKind::Auth, Some(401))]);
    let trace = drive_to_completion(&mut engine, Drive::new(script));
    assert_eq!(trace.outcome().status, RunStatus::Partial);

    // A run whose every probe failed stays failed when the retry fails again.
    let all_failed: Vec<Probe> = records
        .iter()
        .cloned()
        .map(|mut p| {
            p.status = ProbeStatus::Error;
            p
        })
        .collect();
    let mut engine =
        Session::new(&run, Mode::RetryFailed { existing: all_failed.clone() }, SessionOptions::default()).unwrap();
    let mut script = Script::new();
    for p in &all_failed {
        script = script.on(&p.id, vec![err(ErrorKind::Forbidden, Some(403))]);
    }
    let trace = drive_to_completion(&mut engine, Drive::new(script));
    assert_eq!(trace.sends.len(), 4);
    assert_eq!(trace.outcome().status, RunStatus::Failed);
}

#[test]
fn retry_failed_without_failures_only_recomputes_the_status() {
    let (run, records) = failed_run();
    let fixed: Vec<Probe> = records
        .into_iter()
        .map(|mut p| {
            p.status = ProbeStatus::Success;
            p
        })
        .collect();
    let mut engine = Session::new(&run, Mode::RetryFailed { existing: fixed }, SessionOptions::default()).unwrap();
    let trace = drive_to_completion(&mut engine, Drive::new(Script::new()));
    assert!(trace.sends.is_empty());
    assert_eq!(trace.outcome().status, RunStatus::Completed);
}

#[test]
fn newest_record_of_an_id_decides() {
    let (run, mut records) = failed_run();
    // An older failed copy of p1__0 followed by its success: the later record wins.
    let mut old = records.iter().find(|p| p.id == "run1__p1__0").unwrap().clone();
    old.status = ProbeStatus::Error;
    records.insert(0, old);
    let tasks = plan_tasks(&run, &Mode::RetryFailed { existing: records.clone() }).unwrap();
    let ids: Vec<&str> = tasks.iter().map(|t| t.probe_id.as_str()).collect();
    assert_eq!(ids, ["run1__p1__1", "run1__p2__0", "run1__p2__1"]);
    let tasks = plan_tasks(&run, &Mode::Continue { existing: records }).unwrap();
    let ids: Vec<&str> = tasks.iter().map(|t| t.probe_id.as_str()).collect();
    assert_eq!(ids, ["run1__p1__1", "run1__p2__0", "run1__p2__1"]);
}

#[test]
fn unrunnable_runs_are_error_values() {
    let (mut run, records) = failed_run();
    let mut orphan = records.iter().find(|p| p.status.is_failure()).unwrap().clone();
    orphan.prompt_id = "gone".into();
    let err = Session::new(&run, Mode::RetryFailed { existing: vec![orphan.clone()] }, SessionOptions::default())
        .unwrap_err();
    assert_eq!(err, RunnerError::PromptNotInSnapshot { probe_id: orphan.id.clone(), prompt_id: "gone".into() });
    assert!(err.to_string().contains("not in the run's prompt snapshot"));

    run.config.repeats = 0;
    let err = Session::new(&run, Mode::Fresh, SessionOptions::default()).unwrap_err();
    assert_eq!(err, RunnerError::EmptySnapshot { run_id: "run1".into() });
    run.config.repeats = 2;
    run.prompt_snapshot.clear();
    assert!(matches!(
        Session::new(&run, Mode::Continue { existing: records }, SessionOptions::default()),
        Err(RunnerError::EmptySnapshot { .. })
    ));
}

#[test]
fn duplicate_prompts_in_an_imported_snapshot_never_duplicate_probe_ids() {
    let mut run = new_run(&["p1"], 2, 3);
    run.prompt_snapshot.push(run.prompt_snapshot[0].clone());
    let mut engine = Session::new(&run, Mode::Fresh, SessionOptions::default()).unwrap();
    let trace = drive_to_completion(&mut engine, Drive::new(Script::new()));
    assert_eq!(trace.written_ids(), ["run1__p1__0", "run1__p1__1"]);
}
