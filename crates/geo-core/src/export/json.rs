//! The full and single-run JSON exports.
//!
//! Both use the one [`ExportEnvelope`] shape of the data-model contract. Records are
//! sorted so that the same store always gives the same bytes:
//!
//! - projects by `createdAt`, then `id`;
//! - prompts by `projectId`, then `createdAt`, then `id`;
//! - runs by `createdAt`, then `id`;
//! - probes grouped by run in run order (probes of runs absent from the export last, by
//!   `runId`), then by the position of their prompt in the run's `promptSnapshot`
//!   (prompts missing from the snapshot last, by `promptId`), then `repeatIndex`, then `id`.
//!
//! The sorts are stable and depend on record content only, so exporting an already
//! sorted envelope again changes nothing.

use std::borrow::Borrow;
use std::collections::{HashMap, HashSet};
use std::fmt;

use crate::model::{ExportEnvelope, Localized, Probe, Project, Prompt, Run};

/// Why an export could not be produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExportError {
    /// The requested run id is not in the data.
    RunNotFound {
        /// The id that was asked for.
        run_id: String,
    },
}

impl fmt::Display for ExportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ExportError::RunNotFound { run_id } => {
                write!(
                    f,
                    "run {run_id:?} is not in the data; choose one of its runs"
                )
            }
        }
    }
}

impl std::error::Error for ExportError {}

impl ExportError {
    /// The message in both interface languages.
    pub fn describe(&self) -> Localized {
        match self {
            ExportError::RunNotFound { run_id } => Localized::new(
                format!("找不到批次 {run_id:?}，请选择已有的批次"),
                self.to_string(),
            ),
        }
    }
}

/// Sorts projects by `createdAt`, then `id`.
pub fn sort_projects(projects: &mut [Project]) {
    crate::sort::sort_by(projects, |a, b| (&a.created_at, &a.id).cmp(&(&b.created_at, &b.id)));
}

/// Sorts prompts by `projectId`, then `createdAt`, then `id`.
pub fn sort_prompts(prompts: &mut [Prompt]) {
    crate::sort::sort_by(prompts, |a, b| {
        (&a.project_id, &a.created_at, &a.id).cmp(&(&b.project_id, &b.created_at, &b.id))
    });
}

/// Sorts runs by `createdAt`, then `id`.
pub fn sort_runs(runs: &mut [Run]) {
    crate::sort::sort_by(runs, |a, b| (&a.created_at, &a.id).cmp(&(&b.created_at, &b.id)));
}

/// Sorts probes (or references to probes) in the order described in the module
/// documentation; `runs` gives the run order and each run's `promptSnapshot`.
pub fn sort_probes<P: Borrow<Probe>>(probes: &mut [P], runs: &[Run]) {
    let rank: HashMap<&str, (usize, &Run)> = runs
        .iter()
        .enumerate()
        .rev()
        .map(|(i, r)| (r.id.as_str(), (i, r)))
        .collect();
    let mut prompt_pos: HashMap<(&str, &str), usize> = HashMap::new();
    for run in runs {
        for (i, p) in run.prompt_snapshot.iter().enumerate().rev() {
            prompt_pos.insert((run.id.as_str(), p.id.as_str()), i);
        }
    }
    crate::sort::sort_by_cached_key(probes, |p| {
        let p: &Probe = p.borrow();
        let run_rank = rank.get(p.run_id.as_str()).map_or(usize::MAX, |(i, _)| *i);
        let pos = prompt_pos
            .get(&(p.run_id.as_str(), p.prompt_id.as_str()))
            .copied()
            .unwrap_or(usize::MAX);
        (
            run_rank,
            p.run_id.clone(),
            pos,
            p.prompt_id.clone(),
            p.repeat_index,
            p.id.clone(),
        )
    });
}

/// The full export: every project, prompt, run and probe, sorted (see the module
/// documentation), stamped with `exported_at` and this program's versions.
pub fn full_export(
    mut projects: Vec<Project>,
    mut prompts: Vec<Prompt>,
    mut runs: Vec<Run>,
    mut probes: Vec<Probe>,
    exported_at: &str,
) -> ExportEnvelope {
    sort_projects(&mut projects);
    sort_prompts(&mut prompts);
    sort_runs(&mut runs);
    sort_probes(&mut probes, &runs);
    let mut env = ExportEnvelope::new(exported_at);
    env.projects = projects;
    env.prompts = prompts;
    env.runs = runs;
    env.probes = probes;
    env
}

/// The single-run export: the run `run_id`, its probes, its project (when `env` still
/// holds it) and the prompts it used.
///
/// "The prompts it used" are the ids of the run's `promptSnapshot`: the current version
/// from `env.prompts` when the prompt still exists, otherwise the snapshot copy, so that
/// a deleted prompt still travels with the run. Sorting follows [`full_export`].
pub fn run_export(
    env: &ExportEnvelope,
    run_id: &str,
    exported_at: &str,
) -> Result<ExportEnvelope, ExportError> {
    let run = env
        .runs
        .iter()
        .find(|r| r.id == run_id)
        .ok_or_else(|| ExportError::RunNotFound {
            run_id: run_id.to_string(),
        })?;
    let projects: Vec<Project> = env
        .projects
        .iter()
        .filter(|p| p.id == run.project_id)
        .take(1)
        .cloned()
        .collect();
    let mut seen: HashSet<&str> = HashSet::new();
    let mut prompts = Vec::new();
    for snap in &run.prompt_snapshot {
        if !seen.insert(snap.id.as_str()) {
            continue;
        }
        let current = env.prompts.iter().find(|p| p.id == snap.id);
        prompts.push(current.unwrap_or(snap).clone());
    }
    let probes: Vec<Probe> = env
        .probes
        .iter()
        .filter(|p| p.run_id == run.id)
        .cloned()
        .collect();
    Ok(full_export(
        projects,
        prompts,
        vec![run.clone()],
        probes,
        exported_at,
    ))
}

/// The envelope as pretty-printed JSON (two-space indent) with a final newline.
pub fn to_json_pretty(env: &ExportEnvelope) -> String {
    // Serialising plain structs of strings, integers and f64 cannot fail with serde_json.
    let mut out = serde_json::to_string_pretty(env).unwrap_or_default();
    out.push('\n');
    out
}
