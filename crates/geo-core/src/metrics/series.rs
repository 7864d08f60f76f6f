//! Trend points of a project: one light pass per run for the dashboard's charts.

use super::cost::{add_cost, RunPricer};
use super::stats::ratio;
use super::FastMap;
use crate::model::{Ownership, Probe, ProbeStatus, Run, RunStatus, TargetKind};
use serde::{Deserialize, Serialize};

/// One run of a project's trend.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SeriesPoint {
    /// The run.
    pub run_id: String,
    /// When it started.
    pub created_at: String,
    /// Its status.
    pub status: RunStatus,
    /// Its probe records.
    pub probe_count: u32,
    /// Its successful probes (the denominator of the three rates).
    pub success_count: u32,
    /// Its `error` + `empty` probes.
    pub failed_count: u32,
    /// Successful probes mentioning the brand (numerator of `mentionRate`).
    pub mention_count: u32,
    /// Numerator: successful probes mentioning the brand; denominator: successful probes.
    pub mention_rate: Option<f64>,
    /// Numerator: successful probes with the brand first; denominator: successful probes.
    pub first_mention_rate: Option<f64>,
    /// Numerator: successful probes with an owned source; denominator: successful probes.
    pub owned_visibility: Option<f64>,
    /// Numerator: the sum of the brand's order; denominator: successful probes mentioning it.
    pub avg_order: Option<f64>,
    /// Estimated cost of the run's probe records.
    pub estimated_cost_usd: Option<f64>,
}

/// The trend of `project_id`: one point per `api` run of that project (captured app answers
/// are never mixed into it), in `createdAt` order (ties by id). Probes are grouped by run once;
/// each run is one pass over its probes.
pub fn project_series(runs: &[Run], probes: &[Probe], project_id: &str) -> Vec<SeriesPoint> {
    let mut selected: Vec<&Run> =
        runs.iter().filter(|r| r.project_id == project_id && r.surface == crate::model::Surface::Api).collect();
    crate::sort::sort_by(&mut selected, |a, b| a.created_at.cmp(&b.created_at).then_with(|| a.id.cmp(&b.id)));
    let mut by_run: FastMap<&str, Vec<&Probe>> = selected.iter().map(|r| (r.id.as_str(), Vec::new())).collect();
    for p in probes {
        if let Some(v) = by_run.get_mut(p.run_id.as_str()) {
            v.push(p);
        }
    }
    selected.into_iter().map(|run| point(run, by_run.get(run.id.as_str()).map_or(&[][..], |v| &v[..]))).collect()
}

fn point(run: &Run, probes: &[&Probe]) -> SeriesPoint {
    let brand = run.alias_snapshot.iter().find(|t| t.kind == TargetKind::Brand).map(|t| t.id.as_str());
    let (mut n, mut success, mut failed, mut mention, mut first, mut owned) = (0u32, 0u32, 0u32, 0u32, 0u32, 0u32);
    let mut order_sum = 0u64;
    let mut cost = Some(0.0);
    let mut pricer = RunPricer::new(run);
    for p in probes {
        n += 1;
        cost = add_cost(cost, pricer.cost(p));
        match p.status {
            ProbeStatus::Success => success += 1,
            s if s.is_failure() => {
                failed += 1;
                continue;
            }
            _ => continue,
        }
        if let Some(m) = brand.and_then(|b| p.mentions.iter().find(|m| m.target_id == b)) {
            mention += 1;
            order_sum += u64::from(m.order);
            if m.order == 1 {
                first += 1;
            }
        }
        if p.sources.iter().any(|s| s.ownership == Ownership::Owned) {
            owned += 1;
        }
    }
    SeriesPoint {
        run_id: run.id.clone(),
        created_at: run.created_at.clone(),
        status: run.status,
        probe_count: n,
        success_count: success,
        failed_count: failed,
        mention_count: mention,
        mention_rate: ratio(mention, success),
        first_mention_rate: ratio(first, success),
        owned_visibility: ratio(owned, success),
        avg_order: (mention > 0).then(|| order_sum as f64 / f64::from(mention)),
        estimated_cost_usd: cost,
    }
}
