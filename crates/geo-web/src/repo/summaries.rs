//! The stored summaries of runs (`docs/adr/0013-stored-run-summaries.md`): beside each run,
//! a light [`RunSummary`] (store `runSummaries`: trend point, status, engine) and its full
//! [`RunMetrics`] (store `runMetrics`), kept equal to geo-core's metrics of the run's stored
//! probes, so the pages that show no probe read a few records instead of every probe.
//!
//! The rules every [`Repository`](super::Repository) follows, in the transaction of the
//! write that changes a run's probes or the run itself:
//! - a run written, a batch (import, demo) written, or a probe written to a run of at most
//!   [`RECOMPUTE_LIMIT`] probes: the run's summary is recomputed from its stored probes and
//!   its previous run's stored metrics ([`geo_core::metrics::summarize`]), then every run whose
//!   previous run it is is set against it ([`geo_core::metrics::against_previous`]);
//! - a probe written to a larger run: the summary is marked stale (`fresh: false`), because
//!   decoding thousands of probes after each probe would hold the page; the run's end
//!   (`put_run`) or the first read recomputes it;
//! - a project deleted: its summaries go with it.
//!
//! A read ([`Repository::run_summaries`](super::Repository::run_summaries)) first computes
//! what is missing or stale — every run of a database written before summaries existed, once
//! — with [`progress`] telling the page how far it is.
//!
//! A run without a summary, or with one of a format before [`CLAIMS_FORMAT`], had its probes
//! stored by a release that derived no claims and no risk flags (their `claims`/`riskFlags`
//! read as empty): before its summary is computed from its stored probes, those probes are
//! analysed again with the run's snapshots and the changed ones written back, in the same
//! transaction ([`needs_analysis`], [`analyse_again`]). Analysing is idempotent, so a run
//! whose probes were already current only costs the time.

use super::page_figures::{PageFigures, StoredPart};
use super::{RepoResult, Repository};
use geo_core::actions::{own_actions, ItemKeys, RunInput};
use geo_core::compare::{compare_engines, EngineComparison, EngineRun};
use geo_core::metrics::{list_positions, newest_summary_per_engine, summarize, RunMetrics, RunSummary};
use geo_core::model::{LinkCheck, Probe, Run};
use std::cell::{Cell, RefCell};
use std::rc::Rc;

/// Runs of more probes than this get their summary marked stale, not recomputed, when one
/// probe is written (a daily run of 150 probes is recomputed after every probe).
pub const RECOMPUTE_LIMIT: u32 = 1_000;

/// The first [`geo_core::metrics::SUMMARY_FORMAT`] whose runs' stored probes carry claims
/// and risk flags.
pub const CLAIMS_FORMAT: u32 = 3;

/// Whether the stored probes of a run whose stored summary is `stored` (`None`: none, or one
/// that no longer decodes) must be analysed again before its summary is computed from them.
pub fn needs_analysis(stored: Option<&RunSummary>) -> bool {
    stored.is_none_or(|s| s.format < CLAIMS_FORMAT)
}

/// Analyses `stored` (probes of `run`) again with `run`'s snapshots, in place; returns the
/// places of those that changed (the ones to write back).
pub fn analyse_again(run: &Run, stored: &mut [Probe]) -> Vec<usize> {
    let analyzer = geo_core::analysis::RunAnalyzer::for_run(run);
    let mut changed = Vec::new();
    for (i, p) in stored.iter_mut().enumerate() {
        let before = p.clone();
        analyzer.analyze(p);
        if *p != before {
            changed.push(i);
        }
    }
    changed
}

/// A record of the `runMetrics` store: one run's full metrics.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StoredMetrics {
    /// The run (the key).
    pub run_id: String,
    /// Its project (indexed, for the cascade delete).
    pub project_id: String,
    /// Its metrics.
    pub metrics: RunMetrics,
}

/// The records stored for `run` from its `probes`, its previous run's metrics and its
/// answer-link check (the metrics' `answerLinkCheck`, as `metrics_for_export` sets it): its
/// summary, its metrics and its page figures.
pub fn records(
    run: &Run,
    probes: &[&Probe],
    previous: Option<&RunMetrics>,
    link_check: Option<&LinkCheck>,
) -> (RunSummary, StoredMetrics, Vec<StoredPart>) {
    let mut metrics = summarize(run, probes, previous);
    metrics.answer_link_check = link_check.map(geo_core::model::LinkCounts::of);
    let summary = RunSummary::of(run, &metrics);
    let actions = own_actions(RunInput { run, probes, link_check });
    let keys = ItemKeys::of(&actions.actions);
    let figures = PageFigures { positions: list_positions(run, probes, &metrics), actions, keys };
    let pages = figures.records(run);
    (summary, StoredMetrics { run_id: run.id.clone(), project_id: run.project_id.clone(), metrics }, pages)
}

/// The runs whose summaries a batch changes, oldest first (runs named only by a probe or a
/// link check last): computing a previous run before the runs that follow it.
pub fn runs_of_batch(runs: &[Run], probes: &[Probe], link_checks: &[LinkCheck]) -> Vec<String> {
    let mut ordered: Vec<&Run> = runs.iter().collect();
    geo_core::sort::sort_by(&mut ordered, |a, b| a.created_at.cmp(&b.created_at).then_with(|| a.id.cmp(&b.id)));
    let mut ids: Vec<String> = Vec::new();
    let named = probes.iter().map(|p| p.run_id.as_str()).chain(link_checks.iter().map(|c| c.run_id.as_str()));
    for id in ordered.iter().map(|r| r.id.as_str()).chain(named) {
        if !ids.iter().any(|x| x == id) {
            ids.push(id.to_string());
        }
    }
    ids
}

/// Newest first, as lists of runs are shown.
pub fn order_summaries(mut v: Vec<RunSummary>) -> Vec<RunSummary> {
    geo_core::sort::sort_by(&mut v, |a, b| b.created_at.cmp(&a.created_at).then_with(|| b.id.cmp(&a.id)));
    v
}

/// The Engines page's comparison of project `project_id` from the stored summaries: the
/// newest completed or partial run of each engine (picked from the light summaries) with its
/// stored metrics, compared by geo-core as `geo-probe engines` compares them. No probe is read.
/// `None` when the project has no comparable run.
pub async fn engines_comparison<R: Repository>(repo: &R, project_id: &str) -> RepoResult<Option<EngineComparison>> {
    let summaries = repo.run_summaries(project_id).await?;
    let mut picked: Vec<(Run, RunMetrics)> = Vec::new();
    for s in newest_summary_per_engine(&summaries, project_id) {
        if let (Some(run), Some(metrics)) = (repo.get_run(&s.id).await?, repo.run_metrics(&s.id).await?) {
            picked.push((run, metrics));
        }
    }
    if picked.is_empty() {
        return Ok(None);
    }
    let prompts = repo.prompts_by_project(project_id).await?;
    let inputs: Vec<EngineRun<'_>> = picked.iter().map(|(run, metrics)| EngineRun { run, metrics }).collect();
    Ok(Some(compare_engines(project_id, &prompts, &inputs)))
}

/// How far the computation of missing summaries is: `(done, total)` runs.
pub type Progress = (u32, u32);

type Listener = (u32, Rc<dyn Fn()>);

thread_local! {
    static PROGRESS: Cell<Option<Progress>> = const { Cell::new(None) };
    static LISTENERS: RefCell<Vec<Listener>> = const { RefCell::new(Vec::new()) };
    static NEXT: Cell<u32> = const { Cell::new(0) };
}

/// The computation of missing summaries under way in this tab, if any.
pub fn progress() -> Option<Progress> {
    PROGRESS.with(Cell::get)
}

/// Sets (or ends, with `None`) the progress and tells the subscribers.
pub fn set_progress(p: Option<Progress>) {
    PROGRESS.with(|c| c.set(p));
    let listeners: Vec<Rc<dyn Fn()>> = LISTENERS.with(|l| l.borrow().iter().map(|(_, f)| f.clone()).collect());
    for f in listeners {
        f();
    }
}

/// Calls `f` after every change of [`progress`]; returns the id for [`unsubscribe`].
pub fn subscribe(f: Rc<dyn Fn()>) -> u32 {
    let id = NEXT.with(|n| {
        n.set(n.get() + 1);
        n.get()
    });
    LISTENERS.with(|l| l.borrow_mut().push((id, f)));
    id
}

/// Stops calling a subscriber.
pub fn unsubscribe(id: u32) {
    LISTENERS.with(|l| l.borrow_mut().retain(|(i, _)| *i != id));
}

/// One computation of missing summaries at a time: a second reader waits for the first
/// instead of computing the same runs again (at start-up the run selector and the page read
/// the summaries together).
#[derive(Default)]
pub(crate) struct Gate {
    busy: Cell<bool>,
    wakers: RefCell<Vec<std::task::Waker>>,
}

impl Gate {
    /// Waits until no computation runs, then holds the gate until the guard is dropped.
    pub(crate) async fn enter(self: &Rc<Self>) -> GateGuard {
        Enter(self.clone()).await;
        self.busy.set(true);
        GateGuard(self.clone())
    }
}

struct Enter(Rc<Gate>);

impl std::future::Future for Enter {
    type Output = ();
    fn poll(self: std::pin::Pin<&mut Self>, cx: &mut std::task::Context<'_>) -> std::task::Poll<()> {
        if !self.0.busy.get() {
            return std::task::Poll::Ready(());
        }
        self.0.wakers.borrow_mut().push(cx.waker().clone());
        std::task::Poll::Pending
    }
}

/// Holds the [`Gate`]; dropping it (done, failed or abandoned) lets the next reader in.
pub(crate) struct GateGuard(Rc<Gate>);

impl Drop for GateGuard {
    fn drop(&mut self) {
        self.0.busy.set(false);
        for w in self.0.wakers.borrow_mut().drain(..) {
            w.wake();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::repo::test_support::{probe, run};

    #[test]
    fn the_engines_comparison_from_summaries_is_geo_probe_engines() {
        use crate::repo::memory::MemoryRepo;
        use crate::repo::test_support::block_on;
        use crate::repo::Batch;
        let path = format!("{}/../../fixtures/exports/engines.json", env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read_to_string(&path).unwrap();
        let mut env = geo_core::export::parse_export(&text, &geo_core::export::ImportLimits::default()).unwrap();
        assert!(geo_core::analysis::analyze_envelope(&mut env).is_empty());
        let repo = MemoryRepo::new();
        block_on(repo.put_many(&Batch::from(env.clone()))).unwrap();
        for project in &env.projects {
            let want = geo_core::compare::engines_for_export(&env, Some(&project.id)).ok();
            let got = block_on(engines_comparison(&repo, &project.id)).unwrap();
            assert_eq!(got, want.filter(|c| !c.engines.is_empty()), "{}", project.id);
        }
        let first = env.runs[0].config.engine;
        assert!(env.runs.iter().any(|r| r.config.engine != first), "the fixture compares engines");
    }

    #[test]
    fn batch_runs_oldest_first_then_runs_named_by_probes() {
        let mut a = run("a", "p");
        a.created_at = "2026-02-01".into();
        let mut b = run("b", "p");
        b.created_at = "2026-01-01".into();
        let probes = vec![probe("z", "q", "p"), probe("a", "q", "p"), probe("z", "q2", "p")];
        assert_eq!(runs_of_batch(&[a, b], &probes, &[]), ["b", "a", "z"]);
    }
}
