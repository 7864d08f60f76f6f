//! Comparisons: did visibility really change between two runs, and how do engines compare?
//!
//! The key decision is to judge every change by its uncertainty, not by its size. With 3
//! repeats of 10 prompts a mention rate of 0.60 has a 95 % interval of about ±0.17, so most
//! week-to-week differences are noise. Each compared proportion ([`Change`]) carries the
//! 95 % interval of its difference by Newcombe's hybrid score method ([`newcombe_interval`],
//! built on the metrics' Wilson intervals), and only an interval that excludes 0 counts as a
//! real change; the [`Verdict`] of a comparison looks at the three headline metrics only.
//!
//! - [`diff_runs`] / [`diff_export`]: the object of `geo-probe diff` (metrics, every target,
//!   every prompt, domains gained, lost and changed, the verdict).
//! - [`compare_engines`] / [`engines_for_export`]: the object of `geo-probe engines` (one
//!   column per engine and surface, and the gap between an engine's API and app: [`SurfaceGap`]).
//! - `method`: what a comparison says first when the two runs' methods differ
//!   (`comparable`, `methodChanges`, [`not_comparable_paragraph`]).
//! - [`diff_markdown`] and [`diff_summary`]: the comparison as a Markdown report and as one
//!   paragraph (a webhook's text), in Chinese or English.
//!
//! Everything reads [`crate::metrics::RunMetrics`], never probes, so the web app compares
//! stored metric summaries and the CLI compares a freshly analysed export with the same code.

mod columns;
mod engines;
mod interval;
mod markdown;
mod method;
mod runs;
mod surface_gaps;

pub use columns::{ColumnKey, EngineMap, EnginePromptRow, EngineRun};
pub use engines::{
    brand_gaps, compare_engines, engines_for_export, newest_run_per_engine, BrandGap, EngineColumn, EngineComparison,
    TopDomain, GAP_OTHER_RATE, TOP_DOMAINS,
};
pub use interval::{half_width_at_half, newcombe_interval, repeats_for_half_width, Change, Direction};
pub use markdown::{
    change_mark, diff_markdown, diff_summary, first_run_markdown, interval_text, metric_label, points_text,
    verdict_label, verdict_sentence,
};
pub use method::{method_section, not_comparable_paragraph, not_comparable_sentence, value_text};
pub use runs::{
    diff_export, diff_runs, is_comparable, newest_comparable, DiffContext, DomainChange, DomainChanges, PromptChange,
    RunDiff, TargetChange, Verdict, METRIC_NAMES,
};
pub use surface_gaps::{domain_overlap, SurfaceGap, SurfacePromptGap};

use std::fmt;

/// Why a comparison could not be made; each message says what to pass instead.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CompareError {
    /// The requested run id is not in the export.
    UnknownRun {
        /// The id asked for.
        run_id: String,
        /// Up to ten run ids the export does hold, newest first.
        available: Vec<String>,
    },
    /// No run is completed or partial, so there is no default run to compare.
    NoComparableRun,
    /// The run has no `previousRunId` and no other run was named.
    NoPreviousRun {
        /// The run.
        run_id: String,
    },
    /// The run's `previousRunId` names a run the export does not hold.
    PreviousRunMissing {
        /// The run.
        run_id: String,
        /// Its `previousRunId`.
        previous_id: String,
    },
    /// The requested project id is not in the export.
    UnknownProject {
        /// The id asked for.
        project_id: String,
        /// Up to ten project ids the export does hold.
        available: Vec<String>,
    },
    /// The export holds no runs, so there is no default project.
    NoRuns,
}

fn list(ids: &[String]) -> String {
    ids.iter().map(|id| format!("`{id}`")).collect::<Vec<_>>().join(", ")
}

impl fmt::Display for CompareError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CompareError::UnknownRun { run_id, available } => crate::model::write_not_in_export(f, "run", run_id, available),
            CompareError::NoComparableRun => write!(
                f,
                "the export has no completed or partial run to compare: finish a run first, or pass --run ID"
            ),
            CompareError::NoPreviousRun { run_id } => write!(
                f,
                "run `{run_id}` has no previous run to compare with: pass --against ID to name the other run"
            ),
            CompareError::PreviousRunMissing { run_id, previous_id } => write!(
                f,
                "run `{run_id}` follows run `{previous_id}`, which is not in the export: export both runs together, or pass --against ID"
            ),
            CompareError::UnknownProject { project_id, available } if available.is_empty() => {
                write!(f, "project `{project_id}` is not in the export, which holds no projects")
            }
            CompareError::UnknownProject { project_id, available } => {
                write!(f, "project `{project_id}` is not in the export: use one of {}", list(available))
            }
            CompareError::NoRuns => write!(f, "the export has no runs to compare: start one with `geo-probe run`"),
        }
    }
}

impl std::error::Error for CompareError {}
