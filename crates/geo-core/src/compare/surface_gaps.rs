//! The gap between an engine's API and its consumer app (`shared/spec/data-model.md`,
//! "Method and surface in `metrics`, `diff` and `engines`"): for every engine of the engines
//! comparison with both an `api` and an `app` run, the brand's mention rate as a [`Change`]
//! (against the api run, current the app run — the `diff` change, with its interval), the
//! overlap of the two runs' source domains, and (extra) the prompts whose mention rates differ
//! most.
//!
//! The brand is the api run's (its `aliasSnapshot`'s brand): an app run that does not track that
//! target has not measured it, and its side of the change is empty, as in `diff`.

use serde::Serialize;

use super::columns::{ColumnKey, EnginePromptRow, EngineRun};
use super::interval::Change;
use crate::metrics::{jaccard, RunMetrics};
use crate::model::{EngineId, Surface};

/// One engine's two surfaces compared.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SurfaceGap {
    /// The engine.
    pub engine: EngineId,
    /// Its `api` run.
    pub api_run_id: String,
    /// Its `app` run.
    pub app_run_id: String,
    /// The brand's mention rate: `against` the api run, `current` the app run (numerator:
    /// successful probes naming the api run's brand; denominator: successful probes).
    pub mention_rate: Change,
    /// Jaccard index of the two runs' successful probes' source-domain sets (numerator: domains
    /// in both; denominator: domains in either); `null` when both sets are empty.
    pub domain_overlap: Option<f64>,
    /// Extra: the prompts both runs have a rate for, by the absolute difference of their brand
    /// mention rates (largest first, then in the prompt rows' order).
    pub prompts: Vec<SurfacePromptGap>,
}

/// One prompt's brand mention rate on both surfaces.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SurfacePromptGap {
    /// The prompt.
    pub prompt_id: String,
    /// Its rate in the api run.
    pub api: f64,
    /// Its rate in the app run.
    pub app: f64,
    /// `app − api`.
    pub delta: f64,
}

/// The [`SurfaceGap`] of every engine among `chosen` (at most one run per engine and surface)
/// with both surfaces, in `chosen`'s (engine) order; `prompts` are the comparison's rows.
pub(crate) fn surface_gaps(chosen: &[EngineRun<'_>], prompts: &[EnginePromptRow]) -> Vec<SurfaceGap> {
    let of = |engine: EngineId, surface: Surface| {
        chosen.iter().find(|r| r.run.config.engine == engine && r.run.surface == surface)
    };
    let mut gaps = Vec::new();
    for engine in EngineId::ALL {
        let (Some(api), Some(app)) = (of(engine, Surface::Api), of(engine, Surface::App)) else { continue };
        let (a, p) = (api.metrics, app.metrics);
        let brand = a.brand_id.as_deref();
        let count = |m: &RunMetrics| brand.and_then(|b| m.share_of_voice_counts.get(b).copied());
        let api_count = count(a).unwrap_or(0);
        let tracked = brand.is_some_and(|b| app.run.alias_snapshot.iter().any(|t| t.id == b));
        let (app_count, app_n) = if tracked { (count(p).unwrap_or(0), p.success_count) } else { (0, 0) };
        gaps.push(SurfaceGap {
            engine,
            api_run_id: api.run.id.clone(),
            app_run_id: app.run.id.clone(),
            mention_rate: Change::new(app_count, app_n, api_count, a.success_count).named("mentionRate"),
            domain_overlap: domain_overlap(a, p),
            prompts: prompt_gaps(engine, prompts),
        });
    }
    gaps
}

/// Jaccard index of the two runs' domain sets; `None` when both are empty.
pub fn domain_overlap(a: &RunMetrics, b: &RunMetrics) -> Option<f64> {
    let domains = |m: &RunMetrics| m.domains.iter().map(|d| d.domain.clone()).collect::<Vec<_>>();
    let (x, y) = (domains(a), domains(b));
    (!(x.is_empty() && y.is_empty())).then(|| jaccard(&x, &y))
}

fn prompt_gaps(engine: EngineId, prompts: &[EnginePromptRow]) -> Vec<SurfacePromptGap> {
    let (api, app) = (ColumnKey { engine, surface: Surface::Api }, ColumnKey { engine, surface: Surface::App });
    let mut rows: Vec<SurfacePromptGap> = prompts
        .iter()
        .filter_map(|row| {
            let (Some(Some(x)), Some(Some(y))) = (row.mention_rate.get_column(api), row.mention_rate.get_column(app))
            else {
                return None;
            };
            Some(SurfacePromptGap { prompt_id: row.prompt_id.clone(), api: *x, app: *y, delta: y - x })
        })
        .collect();
    // Stable: the rows' order among equal gaps (equal to 1e-9, so that 1 − 2/3 and 1/3 tie).
    let size = |r: &SurfacePromptGap| (r.delta.abs() * 1e9).round();
    crate::sort::sort_by(&mut rows, |a, b| size(b).total_cmp(&size(a)));
    rows
}
