//! The import's checks of where and how a run measured (`shared/spec/engines.md`, "Where and
//! how an answer was measured"): a run's budget fields are required unless it is an `app`
//! run, and a run's `config.location` keeps the model's rule ([`Location::check`]: a malformed
//! country, region, city or timezone is a problem at its path, nothing is imported).

use serde_json::Value;

use super::problem::{Problem, Sink};
use crate::model::{ExportEnvelope, Location, Surface};

/// The config fields every run but an `app` run must have (an `app` run's are `null`).
pub const BUDGET_FIELDS: [&str; 5] = ["concurrency", "maxSearches", "maxTokens", "temperature", "systemPromptVersion"];

/// Each run that is not an `app` run lacking a budget field, at `runs[i].config.FIELD`, with
/// the words of every other missing required field. Runs on the shape-checked value (nulls
/// already removed); a run without a config is reported by the shape check.
pub(crate) fn check_budget_fields(root: &Value, sink: &mut Sink) {
    let runs = root.get("runs").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
    for (i, run) in runs.iter().enumerate() {
        if run.get("surface").and_then(Value::as_str) == Some(Surface::App.as_str()) {
            continue;
        }
        let Some(config) = run.get("config").and_then(Value::as_object) else { continue };
        for field in BUDGET_FIELDS.iter().filter(|f| !config.contains_key(**f)) {
            sink.push_problem(Problem::new(format!("runs[{i}].config.{field}"), "required field is missing or null"));
        }
    }
}

/// Every run's `config.location` against [`Location::check`], each problem at
/// `runs[i].config.location.FIELD`.
pub(crate) fn check_locations(env: &ExportEnvelope, sink: &mut Sink) {
    for (i, run) in env.runs.iter().enumerate() {
        if let Some(problem) = run.config.location.as_ref().and_then(|l| Location::check(l).err()) {
            let field = problem.field();
            let path = if field.is_empty() {
                format!("runs[{i}].config.location")
            } else {
                format!("runs[{i}].config.location.{field}")
            };
            sink.push_problem(Problem::new(path, problem.localized().en));
        }
    }
}
