//! Seed §3.2 and §3.5: creating a run (validation, snapshots, `previousRunId`) and the
//! run's final status.

use crate::runner_support::*;
use geo_core::limits::MAX_PROBES_PER_RUN;
use geo_core::model::{
    EngineId, Fact, FactKind, Probe, ProbeStatus, Project, Run, RunConfig, RunStatus, TargetKind, APP_VERSION,
    SCHEMA_VERSION,
};
use geo_core::project::FactProblem;
use geo_core::runner::{final_status, previous_run_id, start_run, Mode, RunnerError, Session, SessionOptions};

fn start(selected: &[&str], config: RunConfig, runs: &[Run]) -> Result<Run, RunnerError> {
    start_run(&project(), &prompts(), &ids(selected), config, runs, "run9".into(), "2026-11-29T09:00:00.000Z".into())
}

#[test]
fn start_run_freezes_the_snapshots() {
    let config = RunConfig { repeats: 2, concurrency: 7, model: "deepseek-v4-pro".into(), ..RunConfig::default() };
    let run = start(&["p3", "p1", "p3"], config.clone(), &[]).unwrap();
    assert_eq!(run.id, "run9");
    assert_eq!(run.project_id, "proj");
    assert_eq!(run.status, RunStatus::Running);
    assert_eq!(run.created_at, "2026-11-29T09:00:00.000Z");
    assert_eq!(run.finished_at, None);
    assert_eq!(run.previous_run_id, None);
    assert_eq!((run.app_version.as_str(), run.schema_version), (APP_VERSION, SCHEMA_VERSION));
    let snapshot: Vec<&str> = run.prompt_snapshot.iter().map(|p| p.id.as_str()).collect();
    assert_eq!(snapshot, ["p1", "p3"], "project order, each prompt once");
    assert_eq!(run.planned_probe_count, 4);
    assert_eq!(run.config, RunConfig { concurrency: 3, ..config });
    let kinds: Vec<(&str, TargetKind)> = run.alias_snapshot.iter().map(|t| (t.id.as_str(), t.kind)).collect();
    assert_eq!(kinds, [("brand", TargetKind::Brand), ("comp", TargetKind::Competitor)]);
}

#[test]
fn start_run_rejects_bad_selections_and_configs() {
    #[track_caller]
    fn check(selected: &[&str], config: RunConfig, expect: RunnerError) {
        assert_eq!(start(selected, config, &[]), Err(expect));
    }
    let d = RunConfig::default;
    check(&[], d(), RunnerError::NoPromptSelected);
    check(&["p1", "nope"], d(), RunnerError::UnknownPrompt { prompt_id: "nope".into() });
    check(&["other"], d(), RunnerError::UnknownPrompt { prompt_id: "other".into() });
    check(&["p1"], RunConfig { repeats: 0, ..d() }, RunnerError::InvalidRepeats);
    check(&["p1"], RunConfig { max_searches: 0, ..d() }, RunnerError::InvalidMaxSearches);
    check(
        &["p1", "p2"],
        RunConfig { repeats: u32::MAX, ..d() },
        RunnerError::TooManyProbes { planned: 2 * 4_294_967_295 },
    );
    // Security review, finding 5: prompts × repeats is bounded at 10,000 probes a run.
    check(&["p1"], RunConfig { repeats: u32::MAX, ..d() }, RunnerError::TooManyProbes { planned: 4_294_967_295 });
    check(&["p1", "p2"], RunConfig { repeats: 5_001, ..d() }, RunnerError::TooManyProbes { planned: 10_002 });
    assert_eq!(MAX_PROBES_PER_RUN, 10_000);
    assert_eq!(start(&["p1", "p2"], RunConfig { repeats: 5_000, ..d() }, &[]).unwrap().planned_probe_count, 10_000);
    // Finding 10: a temperature the engines would refuse, or that is not a number, is never sent.
    for t in [-0.1, 2.01, 1e300, f64::NAN, f64::INFINITY] {
        assert!(
            matches!(
                start(&["p1"], RunConfig { temperature: t, ..d() }, &[]),
                Err(RunnerError::InvalidTemperature { .. })
            ),
            "{t}"
        );
    }
    for t in [0.0, 1.0, 2.0] {
        assert!(start(&["p1"], RunConfig { temperature: t, ..d() }, &[]).is_ok(), "{t}");
    }
}

/// Finding 5: an imported run with a crafted `repeats` is refused by the engine in every
/// mode, before any task is planned (it used to allocate 3.6 GB and abort).
#[test]
fn the_engine_refuses_a_crafted_run_before_planning() {
    let mut run = new_run(&["p1", "p2"], 1, 1);
    run.config.repeats = u32::MAX;
    for mode in [Mode::Fresh, Mode::Continue { existing: vec![] }, Mode::RetryFailed { existing: vec![] }] {
        let e = Session::new(&run, mode, SessionOptions::default()).unwrap_err();
        assert_eq!(e, RunnerError::TooManyProbes { planned: 2 * u64::from(u32::MAX) });
        assert!(e.to_string().contains("above the limit of 10000 probes a run"), "{e}");
    }
    run.config.repeats = 1;
    run.config.temperature = -3.0;
    assert!(matches!(
        Session::new(&run, Mode::Fresh, SessionOptions::default()),
        Err(RunnerError::InvalidTemperature { .. })
    ));
}

#[test]
fn runner_errors_speak_both_languages() {
    let errors = [
        RunnerError::NoPromptSelected,
        RunnerError::UnknownPrompt { prompt_id: "x".into() },
        RunnerError::InvalidRepeats,
        RunnerError::InvalidMaxSearches,
        RunnerError::TooManyProbes { planned: 20_000 },
        RunnerError::InvalidTemperature { value: "-1".into() },
        RunnerError::EmptySnapshot { run_id: "r".into() },
        RunnerError::PromptNotInSnapshot { probe_id: "r__x__0".into(), prompt_id: "x".into() },
        RunnerError::NoRequestInFlight { slot: geo_core::runner::Slot(1) },
        RunnerError::InvalidFactSheet { problem: FactProblem::NoCue { at: 0, id: "founded".into() } },
    ];
    for e in errors {
        let text = e.localized();
        assert_eq!(e.to_string(), text.en);
        assert!(!text.zh.is_empty() && text.zh.chars().any(|c| c > '\u{2e80}'), "{text:?}");
        let first = text.en.chars().next().unwrap();
        assert!(!first.is_uppercase(), "lowercase: {}", text.en);
        assert!(!text.en.ends_with('.'), "no trailing period: {}", text.en);
    }
    assert_eq!(RunnerError::NoPromptSelected.localized().zh, "请至少选择一条提示词（项目里没有提示词时请先添加）");
}

/// A run freezes the project's fact sheet, and never an invalid one.
#[test]
fn start_run_refuses_an_invalid_fact_sheet() {
    let mut project = project();
    let founded = crate::support::fact("founded", "comp", FactKind::Year, &["成立"]);
    project.facts = vec![Fact { label: "成立年份".into(), value: Some(2015.0), ..founded }];
    project.watch_terms = vec!["跑路".into()];
    let start = |project: &Project| {
        start_run(project, &prompts(), &ids(&["p1"]), RunConfig::default(), &[], "run9".into(), "t".into())
    };
    let run = start(&project).unwrap();
    assert_eq!(run.fact_snapshot, project.fact_snapshot());
    assert_eq!(run.fact_snapshot.unwrap().facts[0].id, "founded");
    project.facts[0].value = Some(3015.0);
    let e = start(&project).unwrap_err();
    assert_eq!(
        e,
        RunnerError::InvalidFactSheet {
            problem: FactProblem::BadYear { at: 0, id: "founded".into(), value: "3015".into() }
        }
    );
    assert_eq!(
        e.to_string(),
        "the project's fact sheet cannot be used for a run: fact \"founded\" has the year 3015; give a whole number from 1000 to 2999"
    );
    assert_eq!(
        e.localized().zh,
        "项目的事实表有误，无法开始批次：事实 \"founded\" 的年份为 3015；年份须为 1000 到 2999 之间的整数"
    );
    project.facts[0].value = Some(2015.0);
    project.facts[0].target_id = "gone".into();
    assert!(matches!(
        start(&project),
        Err(RunnerError::InvalidFactSheet { problem: FactProblem::UnknownTarget { .. } })
    ));
}

/// A run of p1 with this status, created at midnight UTC of 2026-11-DAY.
fn run(id: &str, project_id: &str, status: RunStatus, day: u32) -> Run {
    let mut r = new_run(&["p1"], 1, 1);
    r.id = id.into();
    r.project_id = project_id.into();
    r.status = status;
    r.created_at = format!("2026-11-{day:02}T00:00:00.000Z");
    r
}

#[test]
fn previous_run_is_the_newest_completed_or_partial_run_of_the_project() {
    #[track_caller]
    fn check(runs: &[Run], expect: Option<&str>) {
        assert_eq!(previous_run_id("proj", EngineId::Deepseek, runs).as_deref(), expect);
        let started = start(&["p1"], RunConfig::default(), runs).unwrap();
        assert_eq!(started.previous_run_id.as_deref(), expect);
    }
    use RunStatus::*;
    check(&[], None);
    check(&[run("a", "proj", Completed, 1)], Some("a"));
    check(&[run("b", "proj", Partial, 2), run("a", "proj", Completed, 1)], Some("b"));
    check(
        &[
            run("a", "proj", Completed, 1),
            run("f", "proj", Failed, 5),
            run("c", "proj", Cancelled, 6),
            run("r", "proj", Running, 7),
            run("x", "proj_b", Completed, 8),
        ],
        Some("a"),
    );
    check(&[run("f", "proj", Failed, 5), run("x", "proj_b", Partial, 8)], None);
    // Equal creation times: the later record wins.
    check(&[run("a", "proj", Completed, 1), run("b", "proj", Partial, 1)], Some("b"));
}

#[test]
fn previous_run_is_of_the_same_engine() {
    let mut openai = run("o", "proj", RunStatus::Completed, 3);
    openai.config.engine = EngineId::Openai;
    let deepseek = run("d", "proj", RunStatus::Completed, 1);
    let runs = [deepseek, openai];
    assert_eq!(previous_run_id("proj", EngineId::Deepseek, &runs).as_deref(), Some("d"));
    assert_eq!(previous_run_id("proj", EngineId::Openai, &runs).as_deref(), Some("o"));
    assert_eq!(previous_run_id("proj", EngineId::Gemini, &runs), None);
    let config = RunConfig { engine: EngineId::Openai, model: " ".into(), ..RunConfig::default() };
    let started = start(&["p1"], config, &runs).unwrap();
    assert_eq!(started.previous_run_id.as_deref(), Some("o"));
    assert_eq!(started.config.model, "gpt-5-mini", "a blank model is the engine's default");
    // An older run without `engine` is DeepSeek's.
    let old: Run = serde_json::from_value({
        let mut v = serde_json::to_value(&runs[0]).unwrap();
        v["config"].as_object_mut().unwrap().remove("engine");
        v["id"] = "old".into();
        v["createdAt"] = "2026-11-09T00:00:00.000Z".into();
        v
    })
    .unwrap();
    assert_eq!(previous_run_id("proj", EngineId::Deepseek, &[old]).as_deref(), Some("old"));
}

fn probe(status: ProbeStatus) -> Probe {
    serde_json::from_value(serde_json::json!({
        "id": "r__p__0", "runId": "r", "projectId": "proj", "promptId": "p", "repeatIndex": 0,
        "status": status, "createdAt": "2026-11-29T08:00:00.000Z"
    }))
    .unwrap()
}

#[test]
fn final_status_follows_section_3_5() {
    #[track_caller]
    fn check(statuses: &[ProbeStatus], cancelled: bool, expect: RunStatus) {
        let probes: Vec<Probe> = statuses.iter().map(|s| probe(*s)).collect();
        assert_eq!(final_status(&probes, cancelled), expect, "{statuses:?} cancelled={cancelled}");
    }
    use ProbeStatus::*;
    check(&[Success, Success], false, RunStatus::Completed);
    check(&[Success, Error], false, RunStatus::Partial);
    check(&[Success, Empty], false, RunStatus::Partial);
    check(&[Error, Empty], false, RunStatus::Failed);
    check(&[], false, RunStatus::Failed);
    check(&[Success, Cancelled], false, RunStatus::Completed);
    check(&[Cancelled], false, RunStatus::Failed);
    check(&[Success, Success], true, RunStatus::Cancelled);
    check(&[], true, RunStatus::Cancelled);
}
