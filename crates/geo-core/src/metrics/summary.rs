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
use super::series::SeriesPoint;
use super::{FastMap, Key, RunMetrics};
use crate::model::Run;

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
