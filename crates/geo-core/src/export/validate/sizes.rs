//! Size checks of an export: no string (or object key) past the import's limit, and no run
//! or project past the snapshot limits, so every later comparison stays linear.

use serde_json::Value;

use crate::export::problem::{Problem, Seg, Sink};
use crate::model::ExportEnvelope;

/// Reports every string (and object key) longer than `max_chars` characters.
pub(crate) fn check_string_sizes(v: &Value, max_chars: usize, path: &Seg<'_>, sink: &mut Sink) {
    let too_long = |s: &str| s.len() > max_chars && s.chars().count() > max_chars;
    match v {
        Value::String(s) if too_long(s) => sink.push(
            path,
            format!(
                "text of {} characters is over the limit of {max_chars}; shorten it or raise the limit",
                s.chars().count()
            ),
        ),
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                check_string_sizes(item, max_chars, &Seg::Index(path, i), sink);
            }
        }
        Value::Object(map) => {
            for (k, item) in map {
                let here = Seg::Field(path, k);
                if too_long(k) {
                    sink.push(&here, format!("field name over the limit of {max_chars} characters"));
                }
                check_string_sizes(item, max_chars, &here, sink);
            }
        }
        _ => {}
    }
}

/// Runs and projects past the snapshot limits (`limits::MAX_SNAPSHOT_TARGETS`,
/// `limits::MAX_SNAPSHOT_PROMPTS`): every comparison stays linear up to them, and nothing
/// past them is taken in.
pub(crate) fn check_snapshot_sizes(env: &ExportEnvelope, sink: &mut Sink) {
    use crate::limits::{MAX_SNAPSHOT_PROMPTS, MAX_SNAPSHOT_TARGETS};
    // `count` `things` at `path` when over `limit`: the problem, with what to do.
    let mut over = |path: String, count: usize, limit: usize, things: &str, advice: &str| {
        if count > limit {
            sink.push_problem(Problem::new(path, format!("{count} {things}, above the limit of {limit}; {advice}")));
        }
    };
    for (i, project) in env.projects.iter().enumerate() {
        let targets = 1 + project.competitors.len();
        over(format!("projects[{i}].competitors"), targets, MAX_SNAPSHOT_TARGETS, "targets", "remove competitors");
    }
    for (i, run) in env.runs.iter().enumerate() {
        let (targets, prompts) = (run.alias_snapshot.len(), run.prompt_snapshot.len());
        over(
            format!("runs[{i}].aliasSnapshot"),
            targets,
            MAX_SNAPSHOT_TARGETS,
            "targets",
            "a run never tracks that many",
        );
        over(
            format!("runs[{i}].promptSnapshot"),
            prompts,
            MAX_SNAPSHOT_PROMPTS,
            "prompts",
            "a run never asks that many",
        );
    }
}
