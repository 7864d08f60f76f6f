//! [`use_run_data`]: the selected project and run as an export envelope, with the run's
//! metrics as geo-core computes them for `geo-probe metrics`.
//!
//! The figures come from the run summaries stored beside the runs
//! ([`crate::repo::summaries`]): the dashboard reads the project's light summaries (its trend),
//! the shown run and its previous run with their stored metrics (its cards and comparison),
//! and no probe; the pages that show probes (sources, lists, export) read the probes of those
//! two runs only. The figures are read once per project, run and data version, never on a
//! render, and a page reuses what another page already read for the same run. The work is
//! timed with the User Timing API under the page's name ([`Figures::measure_name`]).

use crate::hooks::{use_app, use_query, Fetch};
use crate::repo::idb::IdbRepo;
use crate::repo::{RepoError, Repository};
use geo_core::compare::{diff_runs, RunDiff};
use geo_core::export::full_export;
use geo_core::metrics::{RunMetrics, RunSummary, SeriesPoint};
use geo_core::model::{ExportEnvelope, Probe, Project, Run};
use std::cell::RefCell;
use std::ops::Deref;
use std::rc::Rc;
use yew::prelude::*;

/// The selected project and run.
#[derive(Debug, Clone, PartialEq)]
pub struct RunData {
    /// The project, its prompts, the shown run and its previous run, with those two runs'
    /// probes when [`RunData::has_probes`] (shared: pages and the cache of [`use_run_data`]
    /// hold the same copy).
    pub env: Rc<ExportEnvelope>,
    /// True when `env` holds the probes of its runs (every page but the dashboard).
    pub has_probes: bool,
    /// The selected run's metrics (`None` while the project has no run).
    pub metrics: Option<RunMetrics>,
    /// The project's trend across runs (computed for [`Figures::Dashboard`] only).
    pub trend: Vec<SeriesPoint>,
    /// The selected run against its previous run (`previousRunId`), as `geo-probe diff`
    /// computes it (for [`Figures::Dashboard`] only; `None` without a previous run).
    pub diff: Option<RunDiff>,
}

/// Which page reads the data: decides what is read and the timing's name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Figures {
    /// Metrics, the trend across runs and the comparison with the previous run; no probe.
    Dashboard,
    /// Metrics (the per-domain rows).
    Sources,
    /// Metrics (list stability, untracked entities).
    Lists,
    /// Metrics (for the run downloads).
    Export,
}

impl Figures {
    /// The User Timing measure covering this page's geo-core computation.
    pub fn measure_name(self) -> &'static str {
        match self {
            Figures::Dashboard => "geo:dashboard-metrics",
            Figures::Sources => "geo:sources-metrics",
            Figures::Lists => "geo:lists-metrics",
            Figures::Export => "geo:export-metrics",
        }
    }
}

/// A shared [`RunData`] compared by identity, so passing it down as a property costs
/// nothing and never compares thousands of probes.
#[derive(Debug, Clone)]
pub struct SharedRunData(pub Rc<RunData>);

impl PartialEq for SharedRunData {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

impl Deref for SharedRunData {
    type Target = RunData;
    fn deref(&self) -> &RunData {
        &self.0
    }
}

impl RunData {
    /// The project.
    pub fn project(&self) -> Option<&Project> {
        self.env.projects.first()
    }

    /// The selected run.
    pub fn run(&self) -> Option<&Run> {
        let id = &self.metrics.as_ref()?.run_id;
        self.env.runs.iter().find(|r| &r.id == id)
    }

    /// The selected run's probes, in stored order (prompt, then repeat).
    pub fn run_probes(&self) -> impl Iterator<Item = &Probe> {
        let id = self.metrics.as_ref().map(|m| m.run_id.as_str());
        self.env.probes.iter().filter(move |p| Some(p.run_id.as_str()) == id)
    }

    /// The text of prompt `id` in the selected run's snapshot (the id when unknown).
    pub fn prompt_text(&self, id: &str) -> String {
        self.run()
            .and_then(|r| r.prompt_snapshot.iter().find(|p| p.id == id))
            .map_or_else(|| id.to_string(), |p| p.text.clone())
    }

    /// The selected run's creation date (`YYYY-MM-DD`), for file names.
    pub fn run_date(&self) -> String {
        self.run().map_or_else(String::new, |r| r.created_at.get(..10).unwrap_or(&r.created_at).to_string())
    }
}

/// Picks the run to show: `selected` when the project has it, else the newest.
pub fn pick_run<'a>(runs: &'a [RunSummary], selected: Option<&str>) -> Option<&'a RunSummary> {
    selected
        .and_then(|id| runs.iter().find(|r| r.id == id))
        .or_else(|| runs.iter().max_by(|a, b| a.created_at.cmp(&b.created_at).then_with(|| a.id.cmp(&b.id))))
}

/// The trend of a project from its runs' summaries: one point per run, in `createdAt`
/// order (ties by id), as `project_series` computes it from the probes.
pub fn trend_of(summaries: &[RunSummary]) -> Vec<SeriesPoint> {
    let mut points: Vec<&RunSummary> = summaries.iter().collect();
    geo_core::sort::sort_by(&mut points, |a, b| a.created_at.cmp(&b.created_at).then_with(|| a.id.cmp(&b.id)));
    points.into_iter().map(|s| s.point.clone()).collect()
}

/// What a cached read was made for: project, chosen run, data version.
type FiguresKey = (String, Option<String>, u32);

impl Figures {
    /// Whether data read for `self` holds everything `wanted` needs (the pages that show
    /// probes read the same records; the dashboard reads no probe).
    fn covers(self, wanted: Figures) -> bool {
        self == wanted || (self.needs_probes() && wanted.needs_probes())
    }

    /// Whether the page shows probes of the run.
    fn needs_probes(self) -> bool {
        self != Figures::Dashboard
    }
}

thread_local! {
    /// The last data read per page: selecting the run that was shown anyway, going to
    /// another page of the same run, or coming back while nothing was written reads nothing
    /// again.
    static COMPUTED: RefCell<Vec<(FiguresKey, Figures, SharedRunData)>> = const { RefCell::new(Vec::new()) };
}

/// A read in progress: later readers of the same key wait for it instead of reading the
/// same probes a second time (at start-up the run selector settles on a run while the first
/// read is under way). Dropping it — the read finished, failed or was abandoned — wakes the
/// waiters, who then find the data cached or read it themselves.
struct InFlight {
    slot: Rc<Slot>,
}

#[derive(Default)]
struct Slot {
    done: std::cell::Cell<bool>,
    wakers: RefCell<Vec<std::task::Waker>>,
}

thread_local! {
    /// The read now under way: what for, and whom to wake.
    static READING: RefCell<Option<(FiguresKey, Figures, Rc<Slot>)>> = const { RefCell::new(None) };
}

impl InFlight {
    fn begin(key: &FiguresKey, figures: Figures) -> InFlight {
        let slot = Rc::new(Slot::default());
        READING.with(|r| *r.borrow_mut() = Some((key.clone(), figures, slot.clone())));
        InFlight { slot }
    }

    fn of(key: &FiguresKey, figures: Figures) -> Option<Rc<Slot>> {
        READING
            .with(|r| r.borrow().as_ref().filter(|(k, f, _)| k == key && f.covers(figures)).map(|(_, _, s)| s.clone()))
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        READING.with(|r| {
            let mut r = r.borrow_mut();
            if r.as_ref().is_some_and(|(_, _, s)| Rc::ptr_eq(s, &self.slot)) {
                *r = None;
            }
        });
        self.slot.done.set(true);
        for w in self.slot.wakers.borrow_mut().drain(..) {
            w.wake();
        }
    }
}

/// Resolves when the read behind `slot` has ended.
struct Wait(Rc<Slot>);

impl std::future::Future for Wait {
    type Output = ();
    fn poll(self: std::pin::Pin<&mut Self>, cx: &mut std::task::Context<'_>) -> std::task::Poll<()> {
        if self.0.done.get() {
            return std::task::Poll::Ready(());
        }
        self.0.wakers.borrow_mut().push(cx.waker().clone());
        std::task::Poll::Pending
    }
}

fn cached(key: &FiguresKey, figures: Figures) -> Option<SharedRunData> {
    COMPUTED.with(|c| c.borrow().iter().find(|(k, f, _)| k == key && f.covers(figures)).map(|(_, _, d)| d.clone()))
}

/// Reads what `figures` needs of run `chosen` (one of `summaries`) and builds the figures.
async fn read(
    repo: &IdbRepo,
    project: Project,
    summaries: &[RunSummary],
    chosen: Option<&str>,
    figures: Figures,
) -> Result<RunData, RepoError> {
    let span = crate::web::Span::start("geo:load");
    let prompts = repo.prompts_by_project(&project.id).await?;
    let (mut runs, mut probes) = (Vec::new(), Vec::new());
    let (mut metrics, mut previous_metrics) = (None, None);
    if let Some(run) = match chosen {
        Some(id) => repo.get_run(id).await?,
        None => None,
    } {
        metrics = repo.run_metrics(&run.id).await?;
        if figures.needs_probes() {
            probes.extend(repo.probes_by_run(&run.id).await?);
        }
        // The previous run counts only when the project holds it (as in `geo-probe diff`).
        let previous = run.previous_run_id.as_deref().filter(|p| summaries.iter().any(|s| s.id == *p));
        if let Some(prev) = match previous {
            Some(id) => repo.get_run(id).await?,
            None => None,
        } {
            if figures == Figures::Dashboard {
                previous_metrics = repo.run_metrics(&prev.id).await?;
            } else {
                probes.extend(repo.probes_by_run(&prev.id).await?);
            }
            runs.push(prev);
        }
        runs.push(run);
    }
    let env = Rc::new(full_export(vec![project], prompts, runs, probes, ""));
    span.end();
    let mut data = RunData { env, has_probes: figures.needs_probes(), metrics, trend: Vec::new(), diff: None };
    if figures == Figures::Dashboard {
        data.trend = crate::web::measure("geo:trend", || trend_of(summaries));
        data.diff = crate::web::measure("geo:diff", || {
            let (run, m) = (data.run()?, data.metrics.as_ref()?);
            let prev = data.env.runs.iter().find(|r| Some(&r.id) == run.previous_run_id.as_ref())?;
            Some(diff_runs((run, m), (prev, previous_metrics.as_ref()?)))
        });
    }
    Ok(data)
}

/// Loads the selected project and run (re-read after every write) and computes the
/// figures `figures` needs, once per project, run and data version (the computation is
/// timed as [`Figures::measure_name`]). `Ready(None)` means no project is selected or it no
/// longer exists.
#[hook]
pub fn use_run_data(figures: Figures) -> Fetch<Option<SharedRunData>> {
    let app = use_app();
    let deps = (app.project_id.clone(), app.run_id.clone(), app.data_version);
    use_query(deps, move |repo, (project, run, version)| async move {
        let Some(project_id) = project else { return Ok(None) };
        let Some(project) = repo.get_project(&project_id).await? else { return Ok(None) };
        let summaries = repo.run_summaries(&project_id).await?;
        let chosen = pick_run(&summaries, run.as_deref()).map(|r| r.id.clone());
        let key: FiguresKey = (project_id, chosen.clone(), version);
        loop {
            if let Some(hit) = cached(&key, figures) {
                return Ok(Some(hit));
            }
            match InFlight::of(&key, figures) {
                Some(slot) => Wait(slot).await,
                None => break,
            }
        }
        let _reading = InFlight::begin(&key, figures);
        let span = crate::web::Span::start(figures.measure_name());
        let data = read(&repo, project, &summaries, chosen.as_deref(), figures).await?;
        span.end();
        let data = SharedRunData(Rc::new(data));
        COMPUTED.with(|c| {
            let mut c = c.borrow_mut();
            c.retain(|(_, f, _)| *f != figures);
            c.push((key, figures, data.clone()));
        });
        Ok(Some(data))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(id: &str, at: &str) -> RunSummary {
        let mut r: Run = serde_json::from_value(serde_json::json!({
            "id": id, "projectId": "p", "status": "completed", "createdAt": at,
            "appVersion": "0", "schemaVersion": 1,
            "config": { "model": "m", "repeats": 1, "concurrency": 1, "maxSearches": 1, "maxTokens": 1,
                        "temperature": 0.0, "systemPromptVersion": "v" },
            "aliasSnapshot": [], "promptSnapshot": [], "plannedProbeCount": 0
        }))
        .expect("valid run");
        r.id = id.to_string();
        let m = geo_core::metrics::compute_run_metrics(&r, &[], None);
        RunSummary::of(&r, &m)
    }

    #[test]
    fn the_pages_that_show_probes_share_their_reads() {
        use Figures::*;
        for (have, want, ok) in [
            (Dashboard, Sources, false),
            (Dashboard, Dashboard, true),
            (Sources, Sources, true),
            (Sources, Dashboard, false),
            (Lists, Sources, true),
            (Export, Lists, true),
            (Export, Dashboard, false),
        ] {
            assert_eq!(have.covers(want), ok, "{have:?} covers {want:?}");
        }
    }

    #[test]
    fn picks_the_selected_run_or_the_newest() {
        let runs = vec![run("a", "2026-01-02"), run("b", "2026-01-03"), run("c", "2026-01-01")];
        assert_eq!(pick_run(&runs, Some("c")).map(|r| r.id.as_str()), Some("c"));
        assert_eq!(pick_run(&runs, Some("zz")).map(|r| r.id.as_str()), Some("b"));
        assert_eq!(pick_run(&runs, None).map(|r| r.id.as_str()), Some("b"));
        assert!(pick_run(&[], None).is_none());
    }
}
