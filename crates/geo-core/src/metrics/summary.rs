//! A run's figures without its probes: what the pages that show no probe (the dashboard's
//! cards, its trend and comparison, the Engines page) read from the web app's stored
//! summaries instead of decoding every probe.
//!
//! A summary is [`compute_run_metrics`](super::compute_run_metrics) of the run's own probes.
//! The only figures that depend on another run's probes are those against the run named by
//! `previousRunId` (`newDomains`, `lostDomains`, `counts.previousSuccessCount`, and the
//! insights built from them); they depend on that run's successful domains alone, which its
//! own summary holds. [`against_previous`] sets them from the previous run's summary, so a
//! run's summary is found from its probes and one other summary, and a change to a run's
//! probes reaches the run whose previous run it is through its summary only.
//! `tests/it/metrics_summary.rs` checks that the result equals the metrics computed with the
//! previous run's probes, field for field.

use super::insights::build_insights;
use super::method::{method_changes, Method};
use super::run::compute_run_metrics_refs;
use super::series::SeriesPoint;
use super::{FastMap, Key, RunMetrics};
use crate::model::{EngineId, Probe, Run, RunStatus, Surface};
use serde::{Deserialize, Serialize};

/// Version of the stored summaries' shape and rules. A stored summary of another format is
/// recomputed when read: a release that changes what the metrics count bumps it, and every
/// stored summary is then brought up to date from its probes.
/// Format 2: `truncatedCount`, and cost from `billedUsage` and stated costs.
/// Format 3: the `facts` and `riskFlags` rows (what the answers say); a run summarised in an
/// older format had its probes stored before claims and risk flags existed, so the web app
/// analyses them again before it recomputes the summary (`docs/adr/0013-stored-run-summaries.md`).
/// Format 4: `surface` and `method` (where and how the run measured), in the metrics and here.
/// Format 5: the web app stores each run's page figures beside its summary (the lists page's
/// [`list_positions`](super::list_positions), the run's own actions), computed with it; an
/// older summary has none, so it is recomputed (`docs/adr/0023-stored-page-figures.md`).
pub const SUMMARY_FORMAT: u32 = 5;

/// A run's metrics as stored beside it: the metrics of its own `probes` (any probe of
/// another run is ignored), set against its previous run's metrics (`None`: no previous run,
/// or not stored). Equal to [`compute_run_metrics`](super::compute_run_metrics) with the
/// previous run's probes.
pub fn summarize(run: &Run, probes: &[&Probe], previous: Option<&RunMetrics>) -> RunMetrics {
    let mut metrics = compute_run_metrics_refs(run, probes, None);
    against_previous(&mut metrics, previous);
    metrics
}

/// The light record stored for each run: what a list of runs, the run selector, the trend
/// and the choice of runs to compare read, a few hundred bytes whatever the run's size (its
/// full [`RunMetrics`] are stored apart and read only for the runs a page shows).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunSummary {
    /// The run's id.
    pub id: String,
    /// Its project.
    pub project_id: String,
    /// When it started.
    pub created_at: String,
    /// Its status.
    pub status: RunStatus,
    /// Its engine.
    pub engine: EngineId,
    /// Its model.
    pub model: String,
    /// Probes it plans.
    pub planned_probe_count: u32,
    /// The run it compares with.
    pub previous_run_id: Option<String>,
    /// [`SUMMARY_FORMAT`] when computed.
    pub format: u32,
    /// False when a probe was written after the figures were computed (a large run being
    /// probed defers the work to its end): the figures are recomputed before they are read.
    pub fresh: bool,
    /// The run's trend point.
    pub point: SeriesPoint,
    /// Successful probes cut off by a length limit (`truncatedCount`); 0 in summaries
    /// stored before it existed (those are recomputed: [`SUMMARY_FORMAT`]).
    #[serde(default)]
    pub truncated_count: u32,
    /// The run's surface (`api` in summaries stored before it existed).
    #[serde(default)]
    pub surface: Surface,
    /// The run's method (`metrics.method`), for the trend's marks where it changed.
    #[serde(default)]
    pub method: Method,
}

impl RunSummary {
    /// The summary of `run` whose metrics are `metrics`.
    pub fn of(run: &Run, metrics: &RunMetrics) -> RunSummary {
        RunSummary {
            id: run.id.clone(),
            project_id: run.project_id.clone(),
            created_at: run.created_at.clone(),
            status: run.status,
            engine: run.config.engine,
            model: run.config.model.clone(),
            planned_probe_count: run.planned_probe_count,
            previous_run_id: run.previous_run_id.clone(),
            format: SUMMARY_FORMAT,
            fresh: true,
            point: SeriesPoint::from_metrics(run, metrics),
            truncated_count: metrics.truncated_count,
            surface: run.surface,
            method: metrics.method.clone(),
        }
    }

    /// True when the stored figures can be read as they are.
    pub fn is_current(&self) -> bool {
        self.fresh && self.format == SUMMARY_FORMAT
    }

    /// True for a completed or partial run: the runs a comparison picks.
    pub fn is_comparable(&self) -> bool {
        matches!(self.status, RunStatus::Completed | RunStatus::Partial)
    }
}

/// For each engine and surface, the newest completed or partial run of `project_id` among
/// `summaries`, in engine order, `api` before `app`: the same runs as
/// [`newest_run_per_engine`](crate::compare::newest_run_per_engine) picks from the runs themselves.
pub fn newest_summary_per_engine<'a>(summaries: &'a [RunSummary], project_id: &str) -> Vec<&'a RunSummary> {
    EngineId::ALL
        .into_iter()
        .flat_map(|engine| Surface::ALL.into_iter().map(move |surface| (engine, surface)))
        .filter_map(|(engine, surface)| {
            summaries
                .iter()
                .filter(|s| s.project_id == project_id && s.engine == engine && s.surface == surface)
                .filter(|s| s.is_comparable())
                .max_by(|a, b| a.created_at.cmp(&b.created_at).then_with(|| a.id.cmp(&b.id)))
        })
        .collect()
}

/// The run a page shows: `selected` when it is among `summaries`, else the newest
/// (`createdAt`, ties by id); `None` when there is no run.
pub fn pick_summary<'a>(summaries: &'a [RunSummary], selected: Option<&str>) -> Option<&'a RunSummary> {
    selected
        .and_then(|id| summaries.iter().find(|r| r.id == id))
        .or_else(|| summaries.iter().max_by(|a, b| a.created_at.cmp(&b.created_at).then_with(|| a.id.cmp(&b.id))))
}

/// The trend of a project from its runs' summaries: one point per run, in `createdAt` order
/// (ties by id), as [`project_series`](crate::metrics::project_series) computes it from the
/// probes; with `engine`, the runs of that engine only (the dashboard draws the shown run's
/// engine: one engine's figures over time, never a line that jumps between assistants).
/// API runs only: captured app answers are never mixed into an API run's trend
/// ([`trend_of_surface`] draws theirs).
pub fn trend_of(summaries: &[RunSummary], engine: Option<EngineId>) -> Vec<SeriesPoint> {
    trend_of_surface(summaries, engine, Surface::Api)
}

/// [`trend_of`] for the runs of one surface.
pub fn trend_of_surface(summaries: &[RunSummary], engine: Option<EngineId>, surface: Surface) -> Vec<SeriesPoint> {
    trend_runs(summaries, engine, surface).into_iter().map(|s| s.point.clone()).collect()
}

/// The summaries of a trend, in its order.
fn trend_runs(summaries: &[RunSummary], engine: Option<EngineId>, surface: Surface) -> Vec<&RunSummary> {
    let mut points: Vec<&RunSummary> =
        summaries.iter().filter(|s| s.surface == surface && engine.is_none_or(|e| s.engine == e)).collect();
    crate::sort::sort_by(&mut points, |a, b| a.created_at.cmp(&b.created_at).then_with(|| a.id.cmp(&b.id)));
    points
}

/// A point of a trend where the method changed from the point before it (the dashboard marks
/// it: a move there may be the method's, not the brand's).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MethodBreak {
    /// The run whose method differs from the previous point's.
    pub run_id: String,
    /// The changed `method` keys, in their order (`servedModels`, `location` …).
    pub fields: Vec<&'static str>,
}

/// The points of [`trend_of_surface`]'s trend whose method differs from the point before
/// (completed and partial runs only: a failed run's served models say nothing).
pub fn method_breaks(summaries: &[RunSummary], engine: Option<EngineId>, surface: Surface) -> Vec<MethodBreak> {
    let runs: Vec<&RunSummary> =
        trend_runs(summaries, engine, surface).into_iter().filter(|s| s.is_comparable()).collect();
    runs.windows(2)
        .filter_map(|w| {
            let changes = method_changes(&w[0].method, &w[1].method);
            (!changes.is_empty())
                .then(|| MethodBreak { run_id: w[1].id.clone(), fields: changes.iter().map(|c| c.field).collect() })
        })
        .collect()
}

/// Sets the figures of `metrics` that compare its run with its previous run, from that
/// run's metrics (`None`: no previous run, or not stored), and rebuilds the insights.
///
/// The result equals computing the metrics with the previous run's probes; whatever
/// previous run `metrics` was computed against before is replaced.
pub fn against_previous(metrics: &mut RunMetrics, previous: Option<&RunMetrics>) {
    metrics.new_domains.clear();
    metrics.lost_domains.clear();
    metrics.counts.previous_success_count = 0;
    if let Some(prev) = previous {
        metrics.counts.previous_success_count = prev.success_count;
        // Both runs need successful probes, as in the computation from probes.
        if metrics.success_count > 0 && prev.success_count > 0 {
            let (mine, theirs) = (domain_set(metrics), domain_set(prev));
            let mut new: Vec<String> = metrics
                .domains
                .iter()
                .filter(|d| !theirs.contains_key(&Key(&d.domain)))
                .map(|d| d.domain.clone())
                .collect();
            let mut lost: Vec<String> =
                prev.domains.iter().filter(|d| !mine.contains_key(&Key(&d.domain))).map(|d| d.domain.clone()).collect();
            crate::sort::sort(&mut new);
            crate::sort::sort(&mut lost);
            metrics.new_domains = new;
            metrics.lost_domains = lost;
        }
    }
    metrics.insights = build_insights(metrics);
}

/// The domains of a run's successful probes (one row of `domains` each).
fn domain_set(m: &RunMetrics) -> FastMap<Key<'_>, ()> {
    m.domains.iter().map(|d| (Key(d.domain.as_str()), ())).collect()
}

impl SeriesPoint {
    /// The trend point of `run` from its metrics: the same point as
    /// [`project_series`](super::project_series) computes from its probes. Where the alias
    /// snapshot repeats a target id, the point follows the metrics (one target per id, its
    /// first entry), so the trend and the dashboard's cards never disagree.
    pub fn from_metrics(run: &Run, metrics: &RunMetrics) -> SeriesPoint {
        SeriesPoint {
            run_id: run.id.clone(),
            created_at: run.created_at.clone(),
            status: run.status,
            probe_count: metrics.probe_count,
            success_count: metrics.success_count,
            failed_count: metrics.failed_count,
            mention_count: metrics.counts.mention_count,
            mention_rate: metrics.mention_rate,
            first_mention_rate: metrics.first_mention_rate,
            owned_visibility: metrics.owned_visibility,
            avg_order: metrics.avg_order,
            estimated_cost_usd: metrics.estimated_cost_usd,
        }
    }
}
