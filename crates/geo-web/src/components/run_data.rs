//! [`use_run_data`]: the selected project's stored data as one export envelope, with the
//! metrics of the selected run computed by geo-core exactly as `geo-probe metrics` does.

use crate::hooks::{use_app, use_query, Fetch};
use crate::repo::Repository;
use geo_core::export::full_export;
use geo_core::metrics::{metrics_for_export, RunMetrics};
use geo_core::model::{ExportEnvelope, Project, Run};
use yew::prelude::*;

/// The selected project with everything stored for it.
#[derive(Debug, Clone, PartialEq)]
pub struct RunData {
    /// The project, its prompts, every run of it (createdAt order) and all their probes.
    pub env: ExportEnvelope,
    /// The selected run's metrics (`None` while the project has no run).
    pub metrics: Option<RunMetrics>,
}

impl RunData {
    /// The project.
    pub fn project(&self) -> Option<&Project> {
        self.env.projects.first()
    }

    /// The selected run.
    pub fn run(&self) -> Option<&Run> {
        let id = &self.metrics.as_ref()?.run_id;
        self.env.runs.iter().find(|r| &r.id == id)
    }

    /// The selected run's creation date (`YYYY-MM-DD`), for file names.
    pub fn run_date(&self) -> String {
        self.run().map_or_else(String::new, |r| r.created_at.get(..10).unwrap_or(&r.created_at).to_string())
    }
}

/// Picks the run to show: `selected` when the project has it, else the newest.
pub fn pick_run<'a>(runs: &'a [Run], selected: Option<&str>) -> Option<&'a Run> {
    selected
        .and_then(|id| runs.iter().find(|r| r.id == id))
        .or_else(|| runs.iter().max_by(|a, b| a.created_at.cmp(&b.created_at).then_with(|| a.id.cmp(&b.id))))
}

/// Loads the selected project and run (re-read after every write). `Ready(None)` means no
/// project is selected or it no longer exists.
#[hook]
pub fn use_run_data() -> Fetch<Option<RunData>> {
    let app = use_app();
    use_query((app.project_id.clone(), app.run_id.clone()), |repo, (project, run)| async move {
        let Some(project_id) = project else { return Ok(None) };
        let Some(project) = repo.get_project(&project_id).await? else { return Ok(None) };
        let prompts = repo.prompts_by_project(&project_id).await?;
        let runs = repo.runs_by_project(&project_id).await?;
        let mut probes = Vec::new();
        for r in &runs {
            probes.extend(repo.probes_by_run(&r.id).await?);
        }
        let chosen = pick_run(&runs, run.as_deref()).map(|r| r.id.clone());
        let env = full_export(vec![project], prompts, runs, probes, "");
        let metrics = chosen.and_then(|id| metrics_for_export(&env, Some(&id)).ok()).and_then(|mut v| v.pop());
        Ok(Some(RunData { env, metrics }))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(id: &str, at: &str) -> Run {
        let mut r: Run = serde_json::from_value(serde_json::json!({
            "id": id, "projectId": "p", "status": "completed", "createdAt": at,
            "appVersion": "0", "schemaVersion": 1,
            "config": { "model": "m", "repeats": 1, "concurrency": 1, "maxSearches": 1, "maxTokens": 1,
                        "temperature": 0.0, "systemPromptVersion": "v" },
            "aliasSnapshot": [], "promptSnapshot": [], "plannedProbeCount": 0
        }))
        .expect("valid run");
        r.id = id.to_string();
        r
    }

    #[test]
    fn picks_the_selected_run_or_the_newest() {
        let runs = vec![run("a", "2026-01-02"), run("b", "2026-01-03"), run("c", "2026-01-01")];
        assert_eq!(pick_run(&runs, Some("c")).map(|r| r.id.as_str()), Some("c"));
        assert_eq!(pick_run(&runs, Some("zz")).map(|r| r.id.as_str()), Some("b"));
        assert_eq!(pick_run(&runs, None).map(|r| r.id.as_str()), Some("b"));
        assert!(pick_run(&[], None).is_none());
    }
}
