//! What an export holds, as lists a script or an AI agent can browse: its projects and runs
//! with their counts, the run a question means when it names none, a run's top source
//! domains, and one probe by id.
//!
//! These are the shapes of `geo-probe mcp`'s `list_projects`, `list_runs`, `top_sources`
//! and `get_probe` tools (`shared/spec/cli.md`); the figures themselves come from
//! [`metrics`](crate::metrics). Every lookup of an id that the export does not hold is a
//! [`CatalogError`] naming the id and what the export does hold.

use std::fmt;

use serde::Serialize;

use crate::metrics::{DomainMetrics, MetricsError, RunMetrics};
use crate::model::{EngineId, ExportEnvelope, Ownership, Probe, ProbeStatus, Run, RunStatus};

/// How many ids an error message lists at most.
const LISTED_IDS: usize = 10;

/// One project of the export.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ProjectSummary {
    /// The project.
    pub id: String,
    /// Its name.
    pub name: String,
    /// The brand's label.
    pub brand: String,
    /// The competitors' labels, in project order.
    pub competitors: Vec<String>,
    /// Prompts of the project in the export.
    pub prompt_count: u32,
    /// Runs of the project in the export.
    pub run_count: u32,
}

/// One run of the export.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RunListing {
    /// The run.
    pub id: String,
    /// Its project.
    pub project_id: String,
    /// The engine it asked.
    pub engine: EngineId,
    /// Its status.
    pub status: RunStatus,
    /// When it started.
    pub created_at: String,
    /// Its probe records (every status).
    pub probe_count: u32,
    /// Its probes with status `success`.
    pub success_count: u32,
    // ---- extras ----
    /// The model it asked.
    pub model: String,
    /// When it ended, if it has.
    pub finished_at: Option<String>,
    /// The run it is compared with by default.
    pub previous_run_id: Option<String>,
    /// Shared by the runs started together, one per engine.
    pub group_id: Option<String>,
}

/// An id the export does not hold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CatalogError {
    /// No project with this id.
    UnknownProject {
        /// The id asked for.
        project_id: String,
        /// Up to ten project ids the export does hold.
        available: Vec<String>,
    },
    /// No probe with this id.
    UnknownProbe {
        /// The id asked for.
        probe_id: String,
    },
}

impl fmt::Display for CatalogError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CatalogError::UnknownProject { project_id, available } => {
                crate::model::write_not_in_export(f, "project", project_id, available)
            }
            CatalogError::UnknownProbe { probe_id } => write!(
                f,
                "probe `{probe_id}` is not in the export: probe ids are `{{runId}}__{{promptId}}__{{repeatIndex}}`, as `search_answers` returns them"
            ),
        }
    }
}

impl std::error::Error for CatalogError {}

/// Every project of `env`, in export order, with its prompt and run counts.
pub fn project_summaries(env: &ExportEnvelope) -> Vec<ProjectSummary> {
    let count = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
    env.projects
        .iter()
        .map(|p| ProjectSummary {
            id: p.id.clone(),
            name: p.name.clone(),
            brand: p.brand.label.clone(),
            competitors: p.competitors.iter().map(|c| c.label.clone()).collect(),
            prompt_count: count(env.prompts.iter().filter(|q| q.project_id == p.id).count()),
            run_count: count(env.runs.iter().filter(|r| r.project_id == p.id).count()),
        })
        .collect()
}

/// The runs of `env` (of the project `project_id` only, when given) in `createdAt` order
/// (ties by id), with their probe counts. An unknown project is an error.
pub fn run_summaries(env: &ExportEnvelope, project_id: Option<&str>) -> Result<Vec<RunListing>, CatalogError> {
    if let Some(id) = project_id {
        find_project(env, id)?;
    }
    // One pass over the probes: (records, successes) per run id.
    let mut counts: std::collections::HashMap<&str, (u32, u32)> = std::collections::HashMap::new();
    for p in &env.probes {
        let c = counts.entry(p.run_id.as_str()).or_default();
        c.0 += 1;
        c.1 += u32::from(p.status == ProbeStatus::Success);
    }
    Ok(env
        .runs_in_order()
        .into_iter()
        .filter(|r| project_id.is_none_or(|id| r.project_id == id))
        .map(|r| {
            let (probe_count, success_count) = counts.get(r.id.as_str()).copied().unwrap_or_default();
            RunListing {
                id: r.id.clone(),
                project_id: r.project_id.clone(),
                engine: r.config.engine,
                status: r.status,
                created_at: r.created_at.clone(),
                probe_count,
                success_count,
                model: r.config.model.clone(),
                finished_at: r.finished_at.clone(),
                previous_run_id: r.previous_run_id.clone(),
                group_id: r.group_id.clone(),
            }
        })
        .collect())
}

/// The run a question means when it names none: the newest `completed` or `partial` run
/// ([`compare::newest_comparable`](crate::compare::newest_comparable), the run `geo-probe
/// diff` picks), else the newest run; `None` without runs. "Newest" is the largest
/// `createdAt`, ties broken by the larger id.
pub fn default_run(env: &ExportEnvelope) -> Option<&Run> {
    crate::compare::newest_comparable(&env.runs).or_else(|| env.newest_run())
}

/// The first `limit` rows of the run's `domains` (sorted by occurrences, then domain), of
/// one ownership only when `ownership` is given.
pub fn top_domains(metrics: &RunMetrics, ownership: Option<Ownership>, limit: usize) -> Vec<DomainMetrics> {
    metrics.domains.iter().filter(|d| ownership.is_none_or(|o| d.ownership == o)).take(limit).cloned().collect()
}

/// The run `id` of `env`, or the error `geo-probe metrics --run` gives for it.
pub fn find_run<'a>(env: &'a ExportEnvelope, id: &str) -> Result<&'a Run, MetricsError> {
    crate::metrics::find_run(env, id)
}

/// The project `id` of `env`.
pub fn find_project<'a>(env: &'a ExportEnvelope, id: &str) -> Result<&'a crate::model::Project, CatalogError> {
    env.projects.iter().find(|p| p.id == id).ok_or_else(|| CatalogError::UnknownProject {
        project_id: id.to_string(),
        available: env.projects.iter().take(LISTED_IDS).map(|p| p.id.clone()).collect(),
    })
}

/// The probe `id` of `env`.
pub fn find_probe<'a>(env: &'a ExportEnvelope, id: &str) -> Result<&'a Probe, CatalogError> {
    env.probes.iter().find(|p| p.id == id).ok_or_else(|| CatalogError::UnknownProbe { probe_id: id.to_string() })
}
