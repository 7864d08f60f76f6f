//! Ids and references: duplicate ids within a file, and what each record refers to (a
//! prompt's or run's project, a probe's run, a link check's run) against the file and the
//! data it is merged into, with the overwrite rule (`crate::export::overwrite`) for a record
//! that is already stored.

use std::collections::{HashMap, HashSet};

use crate::export::overwrite::{prompt_overwrite, run_overwrite};
use crate::export::problem::{quoted, Problem, Sink};
use crate::model::{ExportEnvelope, Run};

/// Duplicate ids within one file: per kind, and target ids within one project.
pub(crate) fn check_duplicates(env: &ExportEnvelope, sink: &mut Sink) {
    fn dup<'a>(kind: &str, ids: impl Iterator<Item = &'a str>, sink: &mut Sink, what: &str) {
        let mut seen: HashMap<&str, usize> = HashMap::new();
        for (i, id) in ids.enumerate() {
            if let Some(first) = seen.get(id) {
                sink.push_problem(Problem::new(
                    format!("{kind}[{i}].id"),
                    format!("duplicate {what} id {} (also at {kind}[{first}]); keep one record per id", quoted(id)),
                ));
            } else {
                seen.insert(id, i);
            }
        }
    }
    dup("projects", env.projects.iter().map(|p| p.id.as_str()), sink, "project");
    dup("prompts", env.prompts.iter().map(|p| p.id.as_str()), sink, "prompt");
    dup("runs", env.runs.iter().map(|p| p.id.as_str()), sink, "run");
    dup("probes", env.probes.iter().map(|p| p.id.as_str()), sink, "probe");
    let mut checked: HashMap<&str, usize> = HashMap::new();
    for (i, check) in env.link_checks.iter().enumerate() {
        if let Some(first) = checked.insert(check.run_id.as_str(), i) {
            sink.push_problem(Problem::new(
                format!("linkChecks[{i}].runId"),
                format!(
                    "a second link check of run {} (also at linkChecks[{first}]); keep one record per run",
                    quoted(&check.run_id)
                ),
            ));
        }
    }
    for (i, project) in env.projects.iter().enumerate() {
        let mut seen = HashSet::new();
        seen.insert(project.brand.id.as_str());
        for (j, c) in project.competitors.iter().enumerate() {
            if !seen.insert(c.id.as_str()) {
                sink.push_problem(Problem::new(
                    format!("projects[{i}].competitors[{j}].id"),
                    format!("duplicate target id {} within the project; give each target its own id", quoted(&c.id)),
                ));
            }
        }
    }
}

/// Reference problems of `incoming` when merged into `base`: a prompt's or run's
/// project, a probe's run, a link check's run and a probe's project must be in `incoming` or `base`, and a probe's
/// project must be its run's project (`incoming` wins over `base` for the same id, as in
/// the merge). Pass an empty envelope as `base` to require a self-contained file (what
/// `geo-probe validate` does). A run's `previousRunId` is not checked: the previous run
/// may have been deleted, which only means "no comparison". Returns every problem.
pub fn validate_against(incoming: &ExportEnvelope, base: &ExportEnvelope) -> Vec<Problem> {
    let base_empty =
        base.projects.is_empty() && base.prompts.is_empty() && base.runs.is_empty() && base.probes.is_empty();
    let nowhere = if base_empty { "not in the file" } else { "neither in the file nor in the existing data" };
    let projects: HashSet<&str> = incoming.projects.iter().chain(&base.projects).map(|p| p.id.as_str()).collect();
    let mut runs: HashMap<&str, &str> = HashMap::new();
    for r in base.runs.iter().chain(&incoming.runs) {
        runs.insert(r.id.as_str(), r.project_id.as_str());
    }
    let mut out = Vec::new();
    for (i, p) in incoming.prompts.iter().enumerate() {
        if !projects.contains(p.project_id.as_str()) {
            out.push(Problem::new(
                format!("prompts[{i}].projectId"),
                format!("prompt {} refers to project {} that is {nowhere}", quoted(&p.id), quoted(&p.project_id)),
            ));
        }
    }
    // A stored run or prompt never moves to another project (security review II, finding 6):
    // its stored probes and summary would stay behind. The rule is `export::overwrite`'s.
    let stored_runs: HashMap<&str, &Run> = base.runs.iter().map(|r| (r.id.as_str(), r)).collect();
    let stored_prompts: HashMap<&str, &str> =
        base.prompts.iter().map(|p| (p.id.as_str(), p.project_id.as_str())).collect();
    let at = |path: String, problem: Problem| Problem { path, ..problem };
    for (i, p) in incoming.prompts.iter().enumerate() {
        if let Some(Err(problem)) = stored_prompts.get(p.id.as_str()).map(|s| prompt_overwrite(p, s)) {
            out.push(at(format!("prompts[{i}].projectId"), problem));
        }
    }
    for (i, r) in incoming.runs.iter().enumerate() {
        if !projects.contains(r.project_id.as_str()) {
            out.push(Problem::new(
                format!("runs[{i}].projectId"),
                format!("run {} refers to project {} that is {nowhere}", quoted(&r.id), quoted(&r.project_id)),
            ));
        }
        if let Some(Err(problem)) = stored_runs.get(r.id.as_str()).map(|s| run_overwrite(r, s)) {
            out.push(at(format!("runs[{i}].projectId"), problem));
        }
    }
    for (i, p) in incoming.probes.iter().enumerate() {
        match runs.get(p.run_id.as_str()) {
            None => out.push(Problem::new(
                format!("probes[{i}].runId"),
                format!("probe {} refers to run {} that is {nowhere}", quoted(&p.id), quoted(&p.run_id)),
            )),
            Some(run_project) if *run_project != p.project_id => out.push(Problem::new(
                format!("probes[{i}].projectId"),
                format!(
                    "probe {} is in project {} but its run {} is in project {}",
                    quoted(&p.id),
                    quoted(&p.project_id),
                    quoted(&p.run_id),
                    quoted(run_project)
                ),
            )),
            Some(_) => {}
        }
    }
    for (i, check) in incoming.link_checks.iter().enumerate() {
        if !runs.contains_key(check.run_id.as_str()) {
            out.push(Problem::new(
                format!("linkChecks[{i}].runId"),
                format!("the link check refers to run {} that is {nowhere}", quoted(&check.run_id)),
            ));
        }
    }
    out
}
