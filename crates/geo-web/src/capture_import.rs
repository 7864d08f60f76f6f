//! Answers captured from an assistant's consumer app, imported on the runs page as an `app`
//! run of the current project (`docs/captures.md`): the browser's `geo-probe import-captures`.
//!
//! geo-core does the work ([`geo_core::export::parse_captures`], then
//! [`geo_core::export::build_app_run`], together `import_captures`), with the options the CLI
//! uses by default ([`CaptureJob::options`]: the project, the engine chosen beside the file,
//! a new run id, now, no prompt added unless asked). This module holds what the shell adds:
//! the job the page hands to the import worker ([`CaptureJob`], as JSON), the project as the
//! export geo-core reads ([`project_envelope`]), the records written in the one transaction
//! ([`batch_of`]) and the texts of the outcome ([`imported_text`], [`refused_text`]).
//! `import_worker::import_captures_text` composes them, in the worker or on the page.

use crate::i18n::tf;
use crate::repo::{Batch, RepoResult, Repository};
use geo_core::export::{CaptureError, CaptureImport, CaptureOptions};
use geo_core::model::{EngineId, ExportEnvelope, Lang};
use serde::{Deserialize, Serialize};

/// What the page asks the import of a capture file: the CLI's flags of
/// `geo-probe import-captures` (`--project`, `--engine`, `--add-prompts`) with the run id and
/// the time the shell gives (geo-core draws no id and reads no clock).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CaptureJob {
    /// The current project.
    pub project_id: String,
    /// The engine whose app answered.
    pub engine: EngineId,
    /// The new run's id.
    pub run_id: String,
    /// Now, as the data model's UTC time.
    pub now: String,
    /// Add the prompts the project does not have (`--add-prompts`; off by default).
    pub add_prompts: bool,
}

impl CaptureJob {
    /// geo-core's options for this job.
    pub fn options(&self) -> CaptureOptions {
        CaptureOptions {
            project_id: self.project_id.clone(),
            engine: self.engine,
            run_id: self.run_id.clone(),
            now: self.now.clone(),
            add_prompts: self.add_prompts,
        }
    }

    /// The job as the JSON text posted to the import worker.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// The job a JSON text holds; `None` for anything else.
    pub fn from_json(text: &str) -> Option<CaptureJob> {
        serde_json::from_str(text).ok()
    }
}

/// The project `project_id` as geo-core's capture import reads it: the project, its prompts
/// (what a capture may name) and its runs (the previous `app` run, the ids taken). Empty of
/// projects when it is not stored (geo-core then refuses the file, naming the project).
pub async fn project_envelope(repo: &impl Repository, project_id: &str) -> RepoResult<ExportEnvelope> {
    let mut env = ExportEnvelope::new("");
    env.projects.extend(repo.get_project(project_id).await?);
    env.prompts = repo.prompts_by_project(project_id).await?;
    env.runs = repo.runs_by_project(project_id).await?;
    Ok(env)
}

/// What is written, in one transaction: the prompts added, the run and its probes
/// ([`CaptureImport::apply`] on an empty export).
pub fn batch_of(imported: CaptureImport) -> Batch {
    let mut env = ExportEnvelope::new("");
    imported.apply(&mut env);
    Batch::from(env)
}

/// The outcome of an import, in `lang`: how many answers as which engine's app run and its
/// status, the prompts added, then each warning of geo-core's (the common interface text) on
/// its own line.
pub fn imported_text(imported: &CaptureImport, lang: Lang) -> String {
    let run = &imported.run;
    let mut text = tf(
        lang,
        "captures.imported",
        &[
            ("n", &imported.probes.len().to_string()),
            ("engine", geo_core::provider::spec(run.config.engine).name),
            ("status", crate::components::run_status::status_label(lang, run.status)),
            ("id", &run.id),
        ],
    );
    if !imported.added_prompts.is_empty() {
        let sep = lang.pick("、", ", ");
        let texts: Vec<String> = imported.added_prompts.iter().map(|p| format!("“{}”", p.text)).collect();
        text.push('\n');
        text.push_str(&tf(lang, "captures.added", &[("n", &texts.len().to_string()), ("prompts", &texts.join(sep))]));
    }
    for warning in &imported.warnings {
        text.push('\n');
        text.push_str(&tf(lang, "captures.warning", &[("w", warning.get(lang))]));
    }
    text
}

/// A refused file in `lang`: geo-core's reason with its row or path, and that nothing was
/// imported.
pub fn refused_text(error: &CaptureError, lang: Lang) -> String {
    tf(lang, "captures.refused", &[("e", error.localized().get(lang))])
}

/// The refusal of a capture file of `bytes` bytes before it is read, when it is over the
/// limit of any import ([`geo_core::limits::MAX_EXPORT_BYTES`]).
pub fn size_refusal(bytes: f64, lang: Lang) -> Option<String> {
    let limit = geo_core::limits::MAX_EXPORT_BYTES;
    (bytes > limit as f64).then(|| {
        let mib = |b: f64| format!("{:.1}", b / (1u64 << 20) as f64);
        tf(lang, "captures.too_large", &[("mb", &mib(bytes)), ("limit", &mib(limit as f64))])
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_job_survives_the_worker_message() {
        let job = CaptureJob {
            project_id: "proj".into(),
            engine: EngineId::Doubao,
            run_id: "run_1".into(),
            now: "2026-12-01T00:00:00.000Z".into(),
            add_prompts: false,
        };
        assert_eq!(CaptureJob::from_json(&job.to_json()), Some(job.clone()));
        assert!(job.to_json().contains(r#""engine":"doubao""#), "{}", job.to_json());
        assert_eq!(CaptureJob::from_json("{}"), None);
        assert_eq!(
            CaptureJob::from_json(r#"{"projectId":"p","engine":"nope","runId":"r","now":"n","addPrompts":false}"#),
            None
        );
        let o = job.options();
        assert_eq!(
            (o.project_id.as_str(), o.engine, o.run_id.as_str(), o.add_prompts),
            ("proj", EngineId::Doubao, "run_1", false)
        );
    }

    #[test]
    fn a_file_over_the_limit_is_refused_before_reading() {
        assert_eq!(size_refusal(1e6, Lang::En), None);
        let en = size_refusal(3e9, Lang::En).unwrap();
        assert!(en.contains("2861.0 MiB") && en.contains("256.0 MiB"), "{en}");
        assert!(size_refusal(f64::INFINITY, Lang::Zh).is_some());
    }
}
