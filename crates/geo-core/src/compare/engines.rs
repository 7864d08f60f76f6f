//! The engines of a project side by side: the object of `geo-probe engines`
//! (`shared/spec/data-model.md`, "Comparing engines"), also behind the web app's Engines page.
//!
//! Per engine and surface the newest completed or partial run of the project is taken (an
//! engine's `api` run, then its `app` run of captured answers); its figures come from that run's
//! [`RunMetrics`], so the comparison works on stored metric summaries as well as on a freshly
//! analysed export. An engine with both surfaces gets a [`SurfaceGap`] (`surface_gaps.rs`).

use super::columns::{ColumnKey, EngineMap, EnginePromptRow, EngineRun};
use super::runs::newest_comparable;
use super::surface_gaps::SurfaceGap;
use super::CompareError;
use crate::metrics::{compute_run_metrics, RunMetrics, TargetMap};
use crate::model::{EngineId, ExportEnvelope, Prompt, Run, Surface};
use serde::Serialize;
use std::collections::{HashMap, HashSet};

/// Domains listed per engine in `topDomains`.
pub const TOP_DOMAINS: usize = 5;

/// The engines comparison of one project.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EngineComparison {
    /// The project.
    pub project_id: String,
    /// One column per engine and surface with a completed or partial run, in the order of
    /// `shared/spec/engines.md` ([`EngineId::ALL`]), an engine's `api` column before its `app`
    /// column.
    pub engines: Vec<EngineColumn>,
    /// The project's prompts that any of those runs asked, in the project's order.
    pub prompts: Vec<EnginePromptRow>,
    /// Extra: the engines that leave the brand out where another engine names it, most
    /// prompts first (then in engines.md order); empty when none does ([`brand_gaps`]). API
    /// columns only: captured app answers are another surface, compared in `surfaceGaps`.
    pub brand_gaps: Vec<BrandGap>,
    /// Per engine with both an `api` and an `app` column: the gap between the two surfaces.
    pub surface_gaps: Vec<SurfaceGap>,
}

/// Least mention rate on a prompt for another engine to count as naming the brand there.
pub const GAP_OTHER_RATE: f64 = 0.5;

/// One engine leaving the brand out (`brandGaps`).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BrandGap {
    /// The engine.
    pub engine: EngineId,
    /// The prompts on which none of its run's successful probes names the brand while some
    /// other engine's run names it in at least [`GAP_OTHER_RATE`] of its successful probes
    /// of that prompt, in the order of `prompts`.
    pub prompt_ids: Vec<String>,
    /// The engines whose mention rate's 95 % Wilson interval lies wholly above this engine's
    /// (engines.md order): there the gap is beyond noise; empty when every interval overlaps.
    pub clearly_below: Vec<EngineId>,
}

/// The [`BrandGap`]s of a comparison's columns and prompt rows.
pub fn brand_gaps(engines: &[EngineColumn], prompts: &[EnginePromptRow]) -> Vec<BrandGap> {
    let api: Vec<&EngineColumn> = engines.iter().filter(|c| c.surface == Surface::Api).collect();
    let mut gaps: Vec<BrandGap> = api
        .iter()
        .filter_map(|col| {
            let prompt_ids: Vec<String> = prompts
                .iter()
                .filter(|row| row.mention_rate.get(col.engine).copied().flatten() == Some(0.0))
                .filter(|row| {
                    row.mention_rate.0.iter().any(|(k, r)| {
                        k.surface == Surface::Api && k.engine != col.engine && r.is_some_and(|r| r >= GAP_OTHER_RATE)
                    })
                })
                .map(|row| row.prompt_id.clone())
                .collect();
            if prompt_ids.is_empty() {
                return None;
            }
            let clearly_below = api
                .iter()
                .filter(|other| other.engine != col.engine)
                .filter(|other| matches!((col.mention_rate_high, other.mention_rate_low), (Some(h), Some(l)) if l > h))
                .map(|other| other.engine)
                .collect();
            Some(BrandGap { engine: col.engine, prompt_ids, clearly_below })
        })
        .collect();
    // Stable: engines.md order among equal counts.
    gaps.sort_by_key(|g| std::cmp::Reverse(g.prompt_ids.len()));
    gaps
}

/// One engine's newest run of one surface.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EngineColumn {
    /// The engine.
    pub engine: EngineId,
    /// Its newest completed or partial run of the project and of this surface.
    pub run_id: String,
    /// The model that answered: an `api` run's served models (its successful probes'
    /// `model`, distinct and sorted, joined by `, `; the model it asked when none succeeded);
    /// an `app` run's `method.requestedModel` (engines.md, "Precise rules").
    pub model: String,
    /// When that run started.
    pub created_at: String,
    /// The run's successful probes (the denominator of every rate below).
    pub success_count: u32,
    /// Numerator: successful probes with a brand Mention; denominator: successful probes.
    pub mention_rate: Option<f64>,
    /// Lower bound of the 95 % Wilson interval of `mentionRate`.
    pub mention_rate_low: Option<f64>,
    /// Upper bound of the 95 % Wilson interval of `mentionRate`.
    pub mention_rate_high: Option<f64>,
    /// Numerator: successful probes with the brand first; denominator: successful probes.
    pub first_mention_rate: Option<f64>,
    /// Numerator: successful probes with an owned source; denominator: successful probes.
    pub owned_visibility: Option<f64>,
    /// Numerator: successful probes with a cited owned source; denominator: successful
    /// probes; null when no successful probe of the run has `rawCitations`.
    pub owned_citation_rate: Option<f64>,
    /// The run's share of voice, one key per target of its `aliasSnapshot`.
    pub share_of_voice: TargetMap<Option<f64>>,
    /// The first [`TOP_DOMAINS`] domains of the run's metrics.
    pub top_domains: Vec<TopDomain>,
    /// Successful probes whose answer a length limit cut off (the run's `truncatedCount`).
    pub truncated_count: u32,
    /// The run's estimated cost (`estimatedCostUsd`: stated costs, else the price table over
    /// `billedUsage`); null when a model has no price.
    pub estimated_cost_usd: Option<f64>,
    /// Extra: the run's answer-link check by class (`notFound` of `checked` answer links do
    /// not exist); null when the run was never checked (`geo-probe links`).
    pub answer_link_check: Option<crate::model::LinkCounts>,
    /// The brand's `flaggedRate` (numerator: its mentioning probes with a risk flag on it;
    /// denominator: its mentioning probes); null when it is not mentioned.
    pub brand_flagged_rate: Option<f64>,
    /// The run's surface: `api` or `app`.
    pub surface: Surface,
    /// Extra: the model the run asked (`method.requestedModel`).
    pub requested_model: String,
    /// Extra: the models that answered (`method.servedModels`).
    pub served_models: Vec<String>,
}

impl EngineColumn {
    /// The column's key in the prompt rows (`openai`, `openai:app`).
    pub fn key(&self) -> ColumnKey {
        ColumnKey { engine: self.engine, surface: self.surface }
    }
}

/// A domain and its probe rate.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TopDomain {
    /// Registrable domain.
    pub domain: String,
    /// Numerator: successful probes retrieving it; denominator: successful probes.
    pub occurrence_rate: Option<f64>,
}

/// For each engine and surface, the newest completed or partial run of `project_id` among
/// `runs`, in engine order, `api` before `app`: the runs [`compare_engines`] compares.
pub fn newest_run_per_engine<'a>(runs: &'a [Run], project_id: &str) -> Vec<&'a Run> {
    EngineId::ALL
        .into_iter()
        .flat_map(|engine| Surface::ALL.into_iter().map(move |surface| (engine, surface)))
        .filter_map(|(engine, surface)| {
            newest_comparable(
                runs.iter().filter(|r| r.project_id == project_id && r.config.engine == engine && r.surface == surface),
            )
        })
        .collect()
}

/// The comparison of `runs` (at most one per engine and surface, as
/// [`newest_run_per_engine`] picks them) of project `project_id`, whose prompts are
/// `project_prompts` (the project's prompts in its order; prompts of other projects are
/// ignored).
///
/// The columns are listed in [`EngineId::ALL`] order, `api` before `app`, whatever the order
/// of `runs`; a second run of a column already listed is ignored.
pub fn compare_engines(project_id: &str, project_prompts: &[Prompt], runs: &[EngineRun<'_>]) -> EngineComparison {
    let mut chosen: Vec<EngineRun<'_>> = Vec::new();
    for engine in EngineId::ALL {
        for surface in Surface::ALL {
            if let Some(r) = runs.iter().find(|r| r.run.config.engine == engine && r.run.surface == surface) {
                chosen.push(*r);
            }
        }
    }
    let engines: Vec<EngineColumn> = chosen.iter().map(column).collect();
    // Sets and maps by prompt id, so `limits::MAX_SNAPSHOT_PROMPTS` prompts compare in linear
    // time (security review II, finding 5): the prompts some chosen run asked, and each
    // run's rate per prompt (the first row of an id).
    let asked: HashSet<&str> =
        chosen.iter().flat_map(|r| r.run.prompt_snapshot.iter().map(|s| s.id.as_str())).collect();
    let rates: Vec<HashMap<&str, Option<f64>>> = chosen
        .iter()
        .map(|r| {
            let mut by_id = HashMap::new();
            for m in &r.metrics.prompts {
                by_id.entry(m.prompt_id.as_str()).or_insert(m.mention_rate);
            }
            by_id
        })
        .collect();
    let prompts = project_prompts
        .iter()
        .filter(|p| p.project_id == project_id)
        .filter(|p| asked.contains(p.id.as_str()))
        .map(|p| EnginePromptRow {
            prompt_id: p.id.clone(),
            text: p.text.clone(),
            mention_rate: EngineMap(
                chosen
                    .iter()
                    .zip(&rates)
                    .map(|(r, rates)| {
                        let key = ColumnKey { engine: r.run.config.engine, surface: r.run.surface };
                        (key, rates.get(p.id.as_str()).copied().flatten())
                    })
                    .collect(),
            ),
        })
        .collect::<Vec<_>>();
    let brand_gaps = brand_gaps(&engines, &prompts);
    let surface_gaps = super::surface_gaps::surface_gaps(&chosen, &prompts);
    EngineComparison { project_id: project_id.to_string(), engines, prompts, brand_gaps, surface_gaps }
}

fn column(r: &EngineRun<'_>) -> EngineColumn {
    let m = r.metrics;
    let served = &m.method.served_models;
    let model = match r.run.surface {
        Surface::Api if !served.is_empty() => served.join(", "),
        _ => m.method.requested_model.clone(),
    };
    EngineColumn {
        engine: r.run.config.engine,
        run_id: r.run.id.clone(),
        model,
        created_at: r.run.created_at.clone(),
        success_count: m.success_count,
        mention_rate: m.mention_rate,
        mention_rate_low: m.mention_rate_ci.map(|ci| ci[0]),
        mention_rate_high: m.mention_rate_ci.map(|ci| ci[1]),
        first_mention_rate: m.first_mention_rate,
        owned_visibility: m.owned_visibility,
        owned_citation_rate: m.owned_citation_rate,
        truncated_count: m.truncated_count,
        estimated_cost_usd: m.estimated_cost_usd,
        share_of_voice: m.share_of_voice.clone(),
        top_domains: m
            .domains
            .iter()
            .take(TOP_DOMAINS)
            .map(|d| TopDomain { domain: d.domain.clone(), occurrence_rate: d.occurrence_rate })
            .collect(),
        answer_link_check: m.answer_link_check,
        brand_flagged_rate: m
            .brand_id
            .as_deref()
            .and_then(|b| m.risk_flags.iter().find(|r| r.target_id == b))
            .and_then(|r| r.flagged_rate),
        surface: r.run.surface,
        requested_model: m.method.requested_model.clone(),
        served_models: served.clone(),
    }
}

/// `geo-probe engines` over an export: the newest completed or partial run per engine of
/// `project_id` (default: the project of the newest run).
pub fn engines_for_export(env: &ExportEnvelope, project_id: Option<&str>) -> Result<EngineComparison, CompareError> {
    let project_id = match project_id {
        Some(id) => env.projects.iter().find(|p| p.id == id).map(|p| p.id.clone()).ok_or_else(|| {
            CompareError::UnknownProject {
                project_id: id.to_string(),
                available: env.projects.iter().take(10).map(|p| p.id.clone()).collect(),
            }
        })?,
        None => env.newest_run().map(|r| r.project_id.clone()).ok_or(CompareError::NoRuns)?,
    };
    let runs = newest_run_per_engine(&env.runs, &project_id);
    let metrics: Vec<RunMetrics> = runs
        .iter()
        .map(|r| {
            let mut m = compute_run_metrics(r, &env.probes, None);
            m.answer_link_check = env.link_check(&r.id).map(crate::model::LinkCounts::of);
            m
        })
        .collect();
    let inputs: Vec<EngineRun<'_>> =
        runs.iter().zip(&metrics).map(|(run, metrics)| EngineRun { run, metrics }).collect();
    Ok(compare_engines(&project_id, &env.prompts, &inputs))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn col(engine: EngineId, low: f64, high: f64) -> EngineColumn {
        EngineColumn {
            engine,
            run_id: format!("run_{}", engine.as_str()),
            model: "m".into(),
            created_at: "2026-12-01T00:00:00Z".into(),
            success_count: 9,
            mention_rate: Some((low + high) / 2.0),
            mention_rate_low: Some(low),
            mention_rate_high: Some(high),
            first_mention_rate: None,
            owned_visibility: None,
            owned_citation_rate: None,
            share_of_voice: TargetMap(Vec::new()),
            top_domains: Vec::new(),
            truncated_count: 0,
            estimated_cost_usd: None,
            answer_link_check: None,
            brand_flagged_rate: None,
            surface: Surface::Api,
            requested_model: "m".into(),
            served_models: vec!["m".into()],
        }
    }

    fn row(id: &str, rates: &[(EngineId, Option<f64>)]) -> EnginePromptRow {
        let rates =
            rates.iter().map(|(engine, r)| (ColumnKey { engine: *engine, surface: Surface::Api }, *r)).collect();
        EnginePromptRow { prompt_id: id.into(), text: id.into(), mention_rate: EngineMap(rates) }
    }

    #[test]
    fn an_engine_leaves_the_brand_out_where_another_names_it() {
        use EngineId::{Deepseek as D, Gemini as G, Qwen as Q};
        let engines = [col(D, 0.4, 0.9), col(G, 0.1, 0.5), col(Q, 0.7, 1.0)];
        let prompts = [
            // Gemini never names it, Qwen always: a gap.
            row("p1", &[(D, Some(0.0)), (G, Some(0.0)), (Q, Some(1.0))]),
            // Nobody names it: not a gap of anyone.
            row("p2", &[(D, Some(0.0)), (G, Some(0.0)), (Q, Some(0.0))]),
            // Another engine below GAP_OTHER_RATE does not count; no answer (null) is no gap.
            row("p3", &[(D, Some(0.4)), (G, Some(0.0)), (Q, None)]),
            // Exactly GAP_OTHER_RATE counts.
            row("p4", &[(D, Some(0.5)), (G, Some(0.0)), (Q, Some(0.0))]),
        ];
        let gaps = brand_gaps(&engines, &prompts);
        let got: Vec<(EngineId, Vec<&str>, Vec<EngineId>)> = gaps
            .iter()
            .map(|g| (g.engine, g.prompt_ids.iter().map(String::as_str).collect(), g.clearly_below.clone()))
            .collect();
        // Gemini (two prompts) first; its interval [0.1, 0.5] lies below Qwen's [0.7, 1.0] only.
        assert_eq!(got, [(G, vec!["p1", "p4"], vec![Q]), (D, vec!["p1"], vec![]), (Q, vec!["p4"], vec![])]);
        assert!(brand_gaps(&engines, &prompts[1..3]).is_empty());
    }
}
