//! The export envelope: the one file shape of a full export, a single-run export and the
//! demo file, and the lookups every reader of an export needs (a run by id, a run's probes,
//! its link check, the runs in order).

use std::cmp::Ordering;
use std::fmt;

use serde::{Deserialize, Serialize};

use super::{LinkCheck, Probe, Project, Prompt, Run, APP_VERSION, EXPORT_FORMAT, SCHEMA_VERSION};

/// The export envelope: full export, single-run export and demo file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExportEnvelope {
    /// Always [`EXPORT_FORMAT`].
    pub format: String,
    /// [`SCHEMA_VERSION`] of the writer.
    pub version: u32,
    /// ISO 8601 UTC.
    #[serde(default)]
    pub exported_at: String,
    /// [`APP_VERSION`] of the writer.
    #[serde(default)]
    pub app_version: String,
    /// Projects.
    #[serde(default)]
    pub projects: Vec<Project>,
    /// Prompts.
    #[serde(default)]
    pub prompts: Vec<Prompt>,
    /// Runs.
    #[serde(default)]
    pub runs: Vec<Run>,
    /// Probes.
    #[serde(default)]
    pub probes: Vec<Probe>,
    /// The answer-link checks of `geo-probe links`, one per checked run (absent when none).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub link_checks: Vec<LinkCheck>,
}

impl ExportEnvelope {
    /// An empty envelope stamped with this program's versions.
    pub fn new(exported_at: impl Into<String>) -> Self {
        ExportEnvelope {
            format: EXPORT_FORMAT.to_string(),
            version: SCHEMA_VERSION,
            exported_at: exported_at.into(),
            app_version: APP_VERSION.to_string(),
            projects: Vec::new(),
            prompts: Vec::new(),
            runs: Vec::new(),
            probes: Vec::new(),
            link_checks: Vec::new(),
        }
    }

    /// The run `id` (the first, should a file repeat an id).
    pub fn run(&self, id: &str) -> Option<&Run> {
        self.runs.iter().find(|r| r.id == id)
    }

    /// The probes of run `run_id`, in the envelope's order.
    pub fn probes_of<'a, 'b>(&'a self, run_id: &'b str) -> impl Iterator<Item = &'a Probe> + use<'a, 'b> {
        self.probes.iter().filter(move |p| p.run_id == run_id)
    }

    /// The answer-link check of run `run_id` (the first, should a file hold two).
    pub fn link_check(&self, run_id: &str) -> Option<&LinkCheck> {
        self.link_checks.iter().find(|c| c.run_id == run_id)
    }

    /// The runs oldest first: by `createdAt`, then id (a stable sort, so runs equal in both
    /// keep the file's order). Every run list of an export uses this one order: metrics and
    /// trends read it forwards, "use one of …" lists of unknown-run errors backwards, and
    /// [`ExportEnvelope::newest_run`] is its last run.
    pub fn runs_in_order(&self) -> Vec<&Run> {
        let mut runs: Vec<&Run> = self.runs.iter().collect();
        crate::sort::sort_by(&mut runs, created_then_id);
        runs
    }

    /// The last run of [`ExportEnvelope::runs_in_order`] (found in one pass), `None` when the
    /// export has no run.
    pub fn newest_run(&self) -> Option<&Run> {
        self.runs.iter().max_by(created_then_id)
    }
}

/// The message of an id the export does not hold, as every command prints it: `KIND `ID``
/// is not in the export, then the ids of that kind it does hold (`available`), or that it
/// holds none.
pub(crate) fn write_not_in_export(
    f: &mut fmt::Formatter<'_>,
    kind: &str,
    id: &str,
    available: &[String],
) -> fmt::Result {
    if available.is_empty() {
        return write!(f, "{kind} `{id}` is not in the export, which holds no {kind}s: export a file that contains it");
    }
    let ids = available.iter().map(|id| format!("`{id}`")).collect::<Vec<_>>().join(", ");
    write!(f, "{kind} `{id}` is not in the export: use one of {ids}")
}

/// The order of [`ExportEnvelope::runs_in_order`]: `createdAt` (fixed-width ISO 8601 UTC, so
/// text order is time order), then id.
fn created_then_id(a: &&Run, b: &&Run) -> Ordering {
    a.created_at.cmp(&b.created_at).then_with(|| a.id.cmp(&b.id))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn run(id: &str, created_at: &str, project_id: &str) -> Run {
        serde_json::from_value(json!({
            "id": id, "projectId": project_id, "status": "completed", "createdAt": created_at,
            "config": {"model": "m", "repeats": 1, "concurrency": 1, "maxSearches": 1, "maxTokens": 1,
                       "temperature": 1, "systemPromptVersion": "v"}
        }))
        .unwrap()
    }

    fn probe(id: &str, run_id: &str) -> Probe {
        serde_json::from_value(json!({
            "id": id, "runId": run_id, "projectId": "p", "promptId": "q", "repeatIndex": 0,
            "status": "success", "createdAt": "2026-01-01T00:00:00.000Z"
        }))
        .unwrap()
    }

    fn check(run_id: &str, checked_at: &str) -> LinkCheck {
        LinkCheck { run_id: run_id.into(), checked_at: checked_at.into(), links: Vec::new() }
    }

    fn ids<'a>(runs: impl IntoIterator<Item = &'a Run>) -> Vec<(&'a str, &'a str)> {
        runs.into_iter().map(|r| (r.id.as_str(), r.project_id.as_str())).collect()
    }

    fn envelope() -> ExportEnvelope {
        let mut env = ExportEnvelope::new("2026-01-02T00:00:00.000Z");
        env.runs = vec![
            run("b", "2026-01-01T10:00:00.000Z", "first"),
            run("a", "2026-01-01T10:00:00.000Z", "p"),
            run("c", "2026-01-01T09:00:00.000Z", "p"),
            run("b", "2026-01-01T10:00:00.000Z", "second"),
        ];
        env.probes = vec![probe("b1", "b"), probe("a1", "a"), probe("b2", "b"), probe("x1", "x")];
        env.link_checks = vec![check("a", "one"), check("a", "two")];
        env
    }

    #[test]
    fn a_run_is_found_by_id_first_record_first() {
        let env = envelope();
        assert_eq!(env.run("b").map(|r| r.project_id.as_str()), Some("first"));
        assert_eq!(env.run("c").map(|r| r.id.as_str()), Some("c"));
        assert!(env.run("B").is_none() && env.run("").is_none());
        assert!(ExportEnvelope::new("").run("b").is_none());
    }

    #[test]
    fn a_runs_probes_keep_the_envelope_order_and_outlive_the_id() {
        let env = envelope();
        let of = |id: &str| env.probes_of(id).map(|p| p.id.as_str()).collect::<Vec<_>>();
        assert_eq!(of("b"), ["b1", "b2"]);
        assert_eq!(of("a"), ["a1"]);
        assert!(of("c").is_empty(), "a run without probes");
        assert_eq!(of("x"), ["x1"], "a probe whose run is not in the file is still its run's");
        // The probes borrow the envelope, not the id they were looked up by.
        let probes: Vec<&Probe> = {
            let id = String::from("b");
            env.probes_of(&id).collect()
        };
        assert_eq!(probes.len(), 2);
    }

    #[test]
    fn a_runs_link_check_is_the_first_of_its_run() {
        let env = envelope();
        assert_eq!(env.link_check("a").map(|c| c.checked_at.as_str()), Some("one"));
        assert!(env.link_check("b").is_none());
    }

    #[test]
    fn runs_are_ordered_by_time_then_id_and_the_newest_is_the_last() {
        let env = envelope();
        let ordered = env.runs_in_order();
        assert_eq!(ids(ordered.iter().copied()), [("c", "p"), ("a", "p"), ("b", "first"), ("b", "second")]);
        // Equal in time and id, the later record is the newest, as `Iterator::max_by` picks.
        assert_eq!(env.newest_run().map(|r| r.project_id.as_str()), Some("second"));
        assert_eq!(env.newest_run().map(|r| r as *const Run), ordered.last().map(|r| *r as *const Run));
        let empty = ExportEnvelope::new("");
        assert!(empty.runs_in_order().is_empty() && empty.newest_run().is_none());
    }
}
