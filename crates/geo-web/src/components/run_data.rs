//! [`use_run_data`]: the selected project's stored data as one export envelope, with the
//! metrics of the selected run computed by geo-core exactly as `geo-probe metrics` does.
//!
//! The figures are computed once per project, run and data version (a new run selected,
//! or stored data changed), never on a render, and a page reuses figures another page
//! already computed for the same run. The computation is timed with the User Timing API
//! under the page's name ([`Figures::measure_name`]) so the browser test can read how long
//! geo-core took inside the app.

use crate::hooks::{use_app, use_query, Fetch};
use crate::repo::idb::IdbRepo;
use crate::repo::{RepoError, Repository};
use geo_core::compare::{diff_runs, RunDiff};
use geo_core::export::full_export;
use geo_core::metrics::{compute_run_metrics_refs, metrics_for_export, project_series, RunMetrics, SeriesPoint};
use geo_core::model::{ExportEnvelope, Probe, Project, Run};
use std::cell::RefCell;
use std::ops::Deref;
use std::rc::Rc;
use yew::prelude::*;

/// The selected project with everything stored for it.
#[derive(Debug, Clone, PartialEq)]
pub struct RunData {
    /// The project, its prompts, every run of it (createdAt order) and all their probes
    /// (shared: pages and the cache of [`use_run_data`] hold the same copy).
    pub env: Rc<ExportEnvelope>,
    /// The selected run's metrics (`None` while the project has no run).
    pub metrics: Option<RunMetrics>,
    /// The project's trend across runs (computed for [`Figures::Dashboard`] only).
    pub trend: Vec<SeriesPoint>,
    /// The selected run against its previous run (`previousRunId`), as `geo-probe diff`
    /// computes it (for [`Figures::Dashboard`] only; `None` without a previous run).
    pub diff: Option<RunDiff>,
}

/// Which page reads the data: decides the extra figures computed and the timing's name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Figures {
    /// Metrics and the trend across runs.
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
pub fn pick_run<'a>(runs: &'a [Run], selected: Option<&str>) -> Option<&'a Run> {
    selected
        .and_then(|id| runs.iter().find(|r| r.id == id))
        .or_else(|| runs.iter().max_by(|a, b| a.created_at.cmp(&b.created_at).then_with(|| a.id.cmp(&b.id))))
}

/// The figures of run `chosen` for `figures`, computed by geo-core (the parts timed as
/// `geo:metrics` and `geo:trend`).
pub fn compute_figures(env: Rc<ExportEnvelope>, chosen: Option<&str>, figures: Figures) -> RunData {
    let metrics = crate::web::measure("geo:metrics", || {
        chosen.and_then(|id| metrics_for_export(&env, Some(id)).ok()).and_then(|mut v| v.pop())
    });
    let mut data = RunData { env, metrics, trend: Vec::new(), diff: None };
    if figures == Figures::Dashboard {
        if let Some(project) = data.project() {
            data.trend =
                crate::web::measure("geo:trend", || project_series(&data.env.runs, &data.env.probes, &project.id));
        }
        data.diff = crate::web::measure("geo:diff", || previous_diff(&data));
    }
    data
}

/// The selected run against the run its `previousRunId` names, when the project holds it.
fn previous_diff(data: &RunData) -> Option<RunDiff> {
    let (run, metrics) = (data.run()?, data.metrics.as_ref()?);
    let previous = data.env.runs.iter().find(|r| Some(&r.id) == run.previous_run_id.as_ref())?;
    let probes: Vec<&Probe> = data.env.probes.iter().filter(|p| p.run_id == previous.id).collect();
    let previous_metrics = compute_run_metrics_refs(previous, &probes, None);
    Some(diff_runs((run, metrics), (previous, &previous_metrics)))
}

/// What a cached computation was made for: project, chosen run, data version.
type FiguresKey = (String, Option<String>, u32);

impl Figures {
    /// Whether data computed for `self` holds every figure `wanted` needs (the dashboard's
    /// computes the metrics every page uses, plus the trend).
    fn covers(self, wanted: Figures) -> bool {
        self == wanted || self == Figures::Dashboard
    }
}

thread_local! {
    /// The last project read from storage, with the data version it was read at.
    static LOADED: RefCell<Option<(String, u32, Rc<ExportEnvelope>)>> = const { RefCell::new(None) };
    /// The last figures computed per page: selecting the run that was shown anyway, going
    /// to another page of the same run, or coming back while nothing was written computes
    /// nothing again.
    static COMPUTED: RefCell<Vec<(FiguresKey, Figures, SharedRunData)>> = const { RefCell::new(Vec::new()) };
}

/// A read of a project in progress: later readers of the same project and data version
/// wait for it instead of reading every record a second time (at start-up the run selector
/// settles on a run while the first read is under way, which used to read 5,000 probes
/// twice). Dropping it — the read finished, failed or was abandoned — wakes the waiters,
/// who then find the project cached or read it themselves.
struct InFlight {
    slot: Rc<Slot>,
}

#[derive(Default)]
struct Slot {
    done: std::cell::Cell<bool>,
    wakers: RefCell<Vec<std::task::Waker>>,
}

thread_local! {
    /// The project read now under way: project id, data version, and whom to wake.
    static READING: RefCell<Option<(String, u32, Rc<Slot>)>> = const { RefCell::new(None) };
}

impl InFlight {
    /// Registers the read of `project` at `version`.
    fn begin(project: &str, version: u32) -> InFlight {
        let slot = Rc::new(Slot::default());
        READING.with(|r| *r.borrow_mut() = Some((project.to_string(), version, slot.clone())));
        InFlight { slot }
    }

    /// The read of `project` at `version` under way, if any.
    fn of(project: &str, version: u32) -> Option<Rc<Slot>> {
        READING.with(|r| {
            r.borrow().as_ref().filter(|(id, v, _)| id == project && *v == version).map(|(_, _, s)| s.clone())
        })
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

fn cached_project(project: &str, version: u32) -> Option<Rc<ExportEnvelope>> {
    LOADED.with(|c| {
        c.borrow().as_ref().filter(|(id, v, _)| id == project && *v == version).map(|(_, _, env)| env.clone())
    })
}

async fn load_project(repo: &IdbRepo, project: Project, version: u32) -> Result<Rc<ExportEnvelope>, RepoError> {
    loop {
        if let Some(env) = cached_project(&project.id, version) {
            return Ok(env);
        }
        match InFlight::of(&project.id, version) {
            Some(slot) => Wait(slot).await,
            None => break,
        }
    }
    let _reading = InFlight::begin(&project.id, version);
    let span = crate::web::Span::start("geo:load");
    let project_id = project.id.clone();
    let prompts = repo.prompts_by_project(&project_id).await?;
    let runs = repo.runs_by_project(&project_id).await?;
    let mut probes = Vec::new();
    for r in &runs {
        probes.extend(repo.probes_by_run(&r.id).await?);
    }
    let env = Rc::new(full_export(vec![project], prompts, runs, probes, ""));
    LOADED.with(|c| *c.borrow_mut() = Some((project_id, version, env.clone())));
    span.end();
    Ok(env)
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
        let env = load_project(&repo, project, version).await?;
        let chosen = pick_run(&env.runs, run.as_deref()).map(|r| r.id.clone());
        let key: FiguresKey = (project_id, chosen.clone(), version);
        let hit = COMPUTED
            .with(|c| c.borrow().iter().find(|(k, f, _)| *k == key && f.covers(figures)).map(|(_, _, d)| d.clone()));
        if let Some(hit) = hit {
            return Ok(Some(hit));
        }
        let data = SharedRunData(Rc::new(crate::web::measure(figures.measure_name(), || {
            compute_figures(env, chosen.as_deref(), figures)
        })));
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

    fn run(id: &str, at: &str) -> Run {
        let mut r: Run = serde_json::from_value(serde_json::json!({
            "id": id, "projectId": "p", "status": "completed", "createdAt": at,
            "appVersion": "0", "schemaVersion": 1,
            "config": { "model": "m", "repeats": 1, "concurrency": 1, "maxSearches": 1, "maxTokens": 1,
                        "temperature": 0.0, "systemPromptVersion": "v" },
            "aliasSnapshot": [], "promptSnapshot": [], "plannedProbeCount": 0
        }))
        .expect("valid run");
        r.id = id.to_string();
        r
    }

    #[test]
    fn the_dashboard_figures_serve_every_page() {
        use Figures::*;
        for (have, want, ok) in [
            (Dashboard, Sources, true),
            (Dashboard, Lists, true),
            (Sources, Sources, true),
            (Sources, Dashboard, false),
            (Lists, Sources, false),
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
