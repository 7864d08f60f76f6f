//! The fact sheets of an export: every project's and every run's `factSnapshot`, checked
//! by the rules of `crate::project` and reported at their paths in the file.

use serde_json::Value;

use crate::export::problem::{Problem, Sink};
use crate::model::ExportEnvelope;

/// The object paths of every fact sheet in an envelope value (or record): each project's
/// (`projects[i]`, holding `facts` and `watchTerms`) and each run's `factSnapshot`.
fn fact_sheets(root: &Value) -> impl Iterator<Item = (String, &Value)> {
    let of = |kind: &'static str| root.get(kind).and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
    let projects = of("projects").iter().enumerate().map(|(i, p)| (format!("projects[{i}]"), p));
    let runs = of("runs")
        .iter()
        .enumerate()
        .filter_map(|(i, r)| r.get("factSnapshot").map(|s| (format!("runs[{i}].factSnapshot"), s)));
    projects.chain(runs)
}

/// A fact sheet's problem at `prefix.path` (`prefix` alone for a problem of the whole sheet),
/// in English like every import problem.
fn push_fact_problem(sink: &mut Sink, prefix: &str, problem: &crate::project::FactProblem) {
    let path = problem.path();
    let path = if path.is_empty() { prefix.to_string() } else { format!("{prefix}.{path}") };
    sink.push_problem(Problem::new(path, problem.localized().en));
}

/// A missing or unknown fact `kind` and an unknown `currency`, named with the fact's id, in
/// every project and every run's `factSnapshot` (data-model.md: "an invalid fact is named by
/// its id, in `validate` also inside a run's `factSnapshot`"). Runs after the shape check,
/// before the typed reading that could not name them.
pub(crate) fn check_fact_names(root: &Value, sink: &mut Sink) {
    for (prefix, sheet) in fact_sheets(root) {
        let facts = sheet.get("facts").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
        for (at, fact) in facts.iter().enumerate() {
            for problem in crate::project::json_fact_problems(fact, at) {
                push_fact_problem(sink, &prefix, &problem);
            }
        }
    }
}

/// Every project's fact sheet against its brand and competitors, and every run's
/// `factSnapshot` against its `aliasSnapshot` (`crate::project::validate_fact_sheet`'s rules).
pub(crate) fn check_fact_sheets(env: &ExportEnvelope, sink: &mut Sink) {
    let mut report = |prefix: String, problems: Vec<crate::project::FactProblem>| {
        for problem in &problems {
            push_fact_problem(sink, &prefix, problem);
        }
    };
    for (i, project) in env.projects.iter().enumerate() {
        let targets = std::iter::once(&project.brand).chain(&project.competitors).map(|t| t.id.as_str()).collect();
        let problems = crate::project::fact_sheet_problems(&project.facts, &project.watch_terms, &targets);
        report(format!("projects[{i}]"), problems);
    }
    for (i, run) in env.runs.iter().enumerate() {
        let Some(snapshot) = &run.fact_snapshot else { continue };
        let targets = run.alias_snapshot.iter().map(|t| t.id.as_str()).collect();
        let problems = crate::project::fact_sheet_problems(&snapshot.facts, &snapshot.watch_terms, &targets);
        report(format!("runs[{i}].factSnapshot"), problems);
    }
}
