//! A run's summary (its metrics from its own probes, set against its previous run's summary)
//! equals the metrics computed from both runs' probes, field for field; it survives a JSON
//! round trip (the web app stores it as JSON); the trend point, the run comparison and the
//! engines comparison computed from summaries equal those computed from probes.

use geo_core::compare::{
    compare_engines, diff_export, diff_runs, engines_for_export, newest_run_per_engine, EngineRun,
};
use geo_core::metrics::{
    against_previous, compute_run_metrics, method_breaks, metrics_for_export, newest_summary_per_engine, pick_summary,
    project_series, summarize, trend_of, trend_of_surface, MethodBreak, RunMetrics, RunSummary, SeriesPoint,
    SUMMARY_FORMAT,
};
use geo_core::model::{EngineId, ExportEnvelope, Location, Probe, Run, Surface};
use proptest::prelude::*;

use crate::metrics_oracle::two_runs;

/// Every run's summary: its own probes' metrics, then set against its previous run's
/// summary (runs in `createdAt` order, as the web app's migration computes them).
fn summaries(env: &ExportEnvelope) -> Vec<(Run, RunMetrics)> {
    let mut runs = env.runs.clone();
    runs.sort_by(|a, b| a.created_at.cmp(&b.created_at).then_with(|| a.id.cmp(&b.id)));
    let mut out: Vec<(Run, RunMetrics)> = Vec::new();
    let all: Vec<&Probe> = env.probes.iter().collect();
    for run in runs {
        let previous = run.previous_run_id.as_deref().and_then(|id| out.iter().find(|(r, _)| r.id == id));
        let m = summarize(&run, &all, previous.map(|(_, m)| m));
        out.push((run, m));
    }
    out
}

fn round_trip(m: &RunMetrics) -> RunMetrics {
    serde_json::from_str(&serde_json::to_string(m).unwrap()).unwrap()
}

fn check(env: &ExportEnvelope) -> Result<(), TestCaseError> {
    let from_probes = metrics_for_export(env, None).unwrap();
    let from_summaries = summaries(env);
    prop_assert_eq!(from_probes.len(), from_summaries.len());
    for (want, (run, got)) in from_probes.iter().zip(&from_summaries) {
        prop_assert_eq!(want, got, "run {}", run.id);
        prop_assert_eq!(&round_trip(got), got);
        let light = RunSummary::of(run, got);
        prop_assert!(light.is_current() && light.format == SUMMARY_FORMAT);
        prop_assert_eq!(&light.point, &SeriesPoint::from_metrics(run, got));
        let back: RunSummary = serde_json::from_str(&serde_json::to_string(&light).unwrap()).unwrap();
        prop_assert_eq!(back, light);
    }
    // The light trend pass and the metrics read a repeated target id differently (the
    // metrics keep one target per id, its first entry); where ids are distinct they agree.
    let distinct_ids = env.runs.iter().all(|r| {
        let mut ids: Vec<&str> = r.alias_snapshot.iter().map(|t| t.id.as_str()).collect();
        ids.sort_unstable();
        ids.windows(2).all(|w| w[0] != w[1])
    });
    for project in env.runs.iter().map(|r| r.project_id.as_str()).filter(|_| distinct_ids) {
        let series = project_series(&env.runs, &env.probes, project);
        // The trend is the API runs': captured app answers are never mixed into it.
        let points: Vec<SeriesPoint> = from_summaries
            .iter()
            .filter(|(r, _)| r.project_id == project && r.surface == Surface::Api)
            .map(|(r, m)| SeriesPoint::from_metrics(r, m))
            .collect();
        prop_assert_eq!(&series, &points);
        // The light summaries give the same trend, and per engine the series of that
        // engine's runs only.
        let light: Vec<RunSummary> =
            from_summaries.iter().filter(|(r, _)| r.project_id == project).map(|(r, m)| RunSummary::of(r, m)).collect();
        prop_assert_eq!(&trend_of(&light, None), &series);
        for engine in EngineId::ALL {
            let runs: Vec<_> = env.runs.iter().filter(|r| r.config.engine == engine).cloned().collect();
            prop_assert_eq!(trend_of(&light, Some(engine)), project_series(&runs, &env.probes, project));
        }
    }
    Ok(())
}

/// The summary of an empty run `id` of `engine`, created `at`.
fn run(id: &str, at: &str, engine: EngineId) -> RunSummary {
    let mut r: Run = serde_json::from_value(serde_json::json!({
        "id": id, "projectId": "p", "status": "completed", "createdAt": at,
        "appVersion": "0", "schemaVersion": 1,
        "config": { "model": "m", "repeats": 1, "concurrency": 1, "maxSearches": 1, "maxTokens": 1,
                    "temperature": 0.0, "systemPromptVersion": "v" },
        "aliasSnapshot": [], "promptSnapshot": [], "plannedProbeCount": 0
    }))
    .expect("valid run");
    r.config.engine = engine;
    let m = geo_core::metrics::compute_run_metrics(&r, &[], None);
    RunSummary::of(&r, &m)
}

#[test]
fn a_page_shows_the_selected_run_or_the_newest() {
    let d = EngineId::Deepseek;
    let runs = vec![run("a", "2026-01-02", d), run("b", "2026-01-03", d), run("c", "2026-01-01", d)];
    let id = |r: Option<&RunSummary>| r.map(|r| r.id.clone());
    assert_eq!(id(pick_summary(&runs, Some("c"))).as_deref(), Some("c"));
    assert_eq!(id(pick_summary(&runs, Some("zz"))).as_deref(), Some("b"), "an unknown id: the newest");
    assert_eq!(id(pick_summary(&runs, None)).as_deref(), Some("b"));
    let tie = vec![run("x", "2026-01-03", d), run("y", "2026-01-03", d)];
    assert_eq!(id(pick_summary(&tie, None)).as_deref(), Some("y"), "a tie: the larger id");
    assert!(pick_summary(&[], None).is_none());
}

#[test]
fn the_trend_follows_one_engine_in_time_order() {
    let runs = vec![
        run("b", "2026-01-03", EngineId::Deepseek),
        run("q", "2026-01-02", EngineId::Qwen),
        run("a", "2026-01-01", EngineId::Deepseek),
    ];
    let at = |points: Vec<SeriesPoint>| points.into_iter().map(|p| p.created_at).collect::<Vec<_>>();
    assert_eq!(at(trend_of(&runs, Some(EngineId::Deepseek))), ["2026-01-01", "2026-01-03"]);
    assert_eq!(at(trend_of(&runs, Some(EngineId::Qwen))), ["2026-01-02"]);
    assert_eq!(at(trend_of(&runs, None)), ["2026-01-01", "2026-01-02", "2026-01-03"]);
}

#[test]
fn app_runs_have_their_own_trend_and_a_changed_method_is_marked() {
    let d = EngineId::Deepseek;
    let mut app = run("app", "2026-01-02", d);
    app.surface = Surface::App;
    let mut moved = run("c", "2026-01-04", d);
    moved.method.served_models = vec!["deepseek-v4-pro".into()];
    moved.method.location = Location::from_flags(Some("CN"), None).unwrap();
    let runs = vec![run("b", "2026-01-03", d), app, run("a", "2026-01-01", d), moved];
    let ids = |points: Vec<SeriesPoint>| points.into_iter().map(|p| p.run_id).collect::<Vec<_>>();
    assert_eq!(ids(trend_of(&runs, Some(d))), ["a", "b", "c"], "no app run in the API trend");
    assert_eq!(ids(trend_of_surface(&runs, Some(d), Surface::App)), ["app"]);
    let breaks = method_breaks(&runs, Some(d), Surface::Api);
    assert_eq!(breaks, [MethodBreak { run_id: "c".into(), fields: vec!["servedModels", "location"] }]);
    assert!(method_breaks(&runs, Some(d), Surface::App).is_empty());
    let picked: Vec<(&str, Surface)> =
        newest_summary_per_engine(&runs, "p").into_iter().map(|s| (s.id.as_str(), s.surface)).collect();
    assert_eq!(picked, [("c", Surface::Api), ("app", Surface::App)], "per engine and surface, api first");
}

proptest! {
    #![proptest_config(crate::config())]

    /// Generated runs (every status, cited and uncited sources, a previous run).
    #[test]
    fn summaries_equal_the_metrics_from_probes(env in two_runs()) {
        check(&env)?;
    }
}

#[test]
fn against_no_previous_run_is_the_run_alone_and_replaces_an_earlier_previous() {
    let env = crate::metrics_support::sample_envelope();
    let r2 = env.run("r2").unwrap();
    let alone = compute_run_metrics(r2, &env.probes, None);
    let mut m = metrics_for_export(&env, Some("r2")).unwrap().remove(0);
    assert!(!m.new_domains.is_empty() || !m.lost_domains.is_empty(), "the sample compares two runs");
    assert_ne!(m, alone);
    against_previous(&mut m, None);
    assert_eq!(m, alone);
}

fn load(name: &str) -> ExportEnvelope {
    crate::support::fixture_export(name)
}

#[test]
fn comparisons_from_summaries_equal_those_from_probes() {
    for name in ["drop.json", "noise.json", "improved.json", "mixed.json", "no-successes.json", "engines.json"] {
        let env = load(name);
        check(&env).unwrap();
        let stored: Vec<(Run, RunMetrics)> = summaries(&env).iter().map(|(r, m)| (r.clone(), round_trip(m))).collect();
        let of = |id: &str| stored.iter().find(|(r, _)| r.id == id).unwrap();
        if let Ok(want) = diff_export(&env, None, None) {
            let (run, m) = of(&want.run_id);
            let (prev, pm) = of(&want.against_id);
            assert_eq!(diff_runs((run, m), (prev, pm)), want, "{name}");
        }
        let want = engines_for_export(&env, None).unwrap();
        let runs = newest_run_per_engine(&env.runs, &want.project_id);
        // The stored light summaries pick the same runs as the runs themselves.
        let light: Vec<RunSummary> = stored.iter().map(|(r, m)| RunSummary::of(r, m)).collect();
        let picked: Vec<&str> =
            newest_summary_per_engine(&light, &want.project_id).into_iter().map(|s| s.id.as_str()).collect();
        assert_eq!(picked, runs.iter().map(|r| r.id.as_str()).collect::<Vec<_>>(), "{name}");
        let inputs: Vec<EngineRun<'_>> = runs.iter().map(|r| EngineRun { run: r, metrics: &of(&r.id).1 }).collect();
        assert_eq!(compare_engines(&want.project_id, &env.prompts, &inputs), want, "{name}");
    }
}
