//! The engines of a project side by side: the object of `geo-probe engines`
//! (`shared/spec/data-model.md`, "Comparing engines"), also behind the web app's Engines page.
//!
//! Per engine the newest completed or partial run of the project is taken; its figures come
//! from that run's [`RunMetrics`], so the comparison works on stored metric summaries as
//! well as on a freshly analysed export.

use super::runs::newest_comparable;
use super::CompareError;
use crate::metrics::{compute_run_metrics, RunMetrics, TargetMap};
use crate::model::{EngineId, ExportEnvelope, Prompt, Run};
use serde::ser::{SerializeMap, Serializer};
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
    /// One column per engine with a completed or partial run, in the order of
    /// `shared/spec/engines.md` ([`EngineId::ALL`]).
    pub engines: Vec<EngineColumn>,
    /// The project's prompts that any of those runs asked, in the project's order.
    pub prompts: Vec<EnginePromptRow>,
}

/// One engine's newest run.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EngineColumn {
    /// The engine.
    pub engine: EngineId,
    /// Its newest completed or partial run of the project.
    pub run_id: String,
    /// The model that run asked.
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
    pub answer_link_check: Option<crate::actions::LinkCounts>,
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

/// One prompt across the engines.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EnginePromptRow {
    /// The prompt.
    pub prompt_id: String,
    /// Its text (the project's current text).
    pub text: String,
    /// Per listed engine: the prompt's brand mention rate in that engine's run; null where
    /// the run did not ask it or had no successful probe of it.
    pub mention_rate: EngineMap<Option<f64>>,
}

/// A JSON object keyed by engine id, in the order of the listed engines.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct EngineMap<T>(pub Vec<(EngineId, T)>);

impl<T> EngineMap<T> {
    /// The value for `engine`.
    pub fn get(&self, engine: EngineId) -> Option<&T> {
        self.0.iter().find(|(e, _)| *e == engine).map(|(_, v)| v)
    }
}

impl<T: Serialize> Serialize for EngineMap<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            map.serialize_entry(k.as_str(), v)?;
        }
        map.end()
    }
}

/// One engine's run and its metrics, the input of [`compare_engines`].
#[derive(Debug, Clone, Copy)]
pub struct EngineRun<'a> {
    /// The run.
    pub run: &'a Run,
    /// Its metrics (computed now or stored).
    pub metrics: &'a RunMetrics,
}

/// For each engine, the newest completed or partial run of `project_id` among `runs`, in
/// engine order: the runs [`compare_engines`] compares.
pub fn newest_run_per_engine<'a>(runs: &'a [Run], project_id: &str) -> Vec<&'a Run> {
    EngineId::ALL
        .into_iter()
        .filter_map(|engine| {
            newest_comparable(runs.iter().filter(|r| r.project_id == project_id && r.config.engine == engine))
        })
        .collect()
}

/// The comparison of `runs` (at most one per engine, as [`newest_run_per_engine`] picks
/// them) of project `project_id`, whose prompts are `project_prompts` (the project's prompts
/// in its order; prompts of other projects are ignored).
///
/// The engines are listed in [`EngineId::ALL`] order whatever the order of `runs`; a second
/// run of an engine already listed is ignored.
pub fn compare_engines(project_id: &str, project_prompts: &[Prompt], runs: &[EngineRun<'_>]) -> EngineComparison {
    let mut chosen: Vec<EngineRun<'_>> = Vec::new();
    for engine in EngineId::ALL {
        if let Some(r) = runs.iter().find(|r| r.run.config.engine == engine) {
            chosen.push(*r);
        }
    }
    let engines = chosen.iter().map(column).collect();
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
                    .map(|(r, rates)| (r.run.config.engine, rates.get(p.id.as_str()).copied().flatten()))
                    .collect(),
            ),
        })
        .collect();
    EngineComparison { project_id: project_id.to_string(), engines, prompts }
}

fn column(r: &EngineRun<'_>) -> EngineColumn {
    let m = r.metrics;
    EngineColumn {
        engine: r.run.config.engine,
        run_id: r.run.id.clone(),
        model: r.run.config.model.clone(),
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
        None => env
            .runs
            .iter()
            .max_by(|a, b| a.created_at.cmp(&b.created_at).then_with(|| a.id.cmp(&b.id)))
            .map(|r| r.project_id.clone())
            .ok_or(CompareError::NoRuns)?,
    };
    let runs = newest_run_per_engine(&env.runs, &project_id);
    let metrics: Vec<RunMetrics> = runs
        .iter()
        .map(|r| {
            let mut m = compute_run_metrics(r, &env.probes, None);
            m.answer_link_check = env.link_checks.iter().find(|c| c.run_id == r.id).map(crate::actions::LinkCounts::of);
            m
        })
        .collect();
    let inputs: Vec<EngineRun<'_>> =
        runs.iter().zip(&metrics).map(|(run, metrics)| EngineRun { run, metrics }).collect();
    Ok(compare_engines(&project_id, &env.prompts, &inputs))
}
