//! Exports (seed §8.3) and import.
//!
//! Four formats leave the program: the full JSON export, the single-run JSON export, the
//! Probe CSV and the Source CSV (the Markdown report lives in its own module). All of them
//! are pure functions of the stored data and an `exported_at` timestamp given by the
//! caller, so the same store always gives byte-identical files.
//!
//! Import is all-or-nothing by construction: [`parse_export`] checks the file's shape
//! (size, nesting, types, enums, duplicate ids, string sizes) and returns either a whole
//! envelope or an [`ImportError`]; [`validate_against`] checks the references (a probe's
//! run, a run's project) against the file plus the store it is merged into; only when
//! both are clean does the caller run [`merge_into`] ([`prepare_import`] does both checks
//! and recomputes every derived field, for the web import), which cannot fail. The store is
//! therefore never left half-imported, and [`overwrite`] is the rule a store applies to each
//! record it replaces (a record never moves; a run's new alias snapshot re-analyses its other
//! stored probes in the same transaction). Exports never contain an API key or settings: the
//! envelope has no field that could hold them. [`catalog`] lists what an export holds
//! (projects, runs, the default run, top domains, one probe) for scripts and agents;
//! [`warehouse`] turns each run into the rows of the warehouse tables (Parquet in the CLI);
//! [`captures`] turns answers captured from an assistant's app into an `app` run, all or nothing.

pub mod captures;
pub mod catalog;
pub mod csv;
pub mod import;
pub mod json;
mod location;
pub mod markdown;
pub mod overwrite;
pub mod problem;
pub mod validate;
pub mod warehouse;

pub use captures::{
    build_app_run, import_captures, parse_captures, Capture, CaptureError, CaptureErrorKind, CaptureImport,
    CaptureOptions, CapturedLink,
};
pub use catalog::{
    default_run, find_probe, find_project, find_run, project_summaries, run_summaries, top_domains, CatalogError,
    ProjectSummary, RunListing,
};
pub use csv::{parse_csv, probes_csv, sources_csv, CsvParseError, CsvWriter};
pub use import::{
    merge_into, parse_export, prepare_import, summarize, ImportError, ImportErrorKind, ImportLimits, KindCount,
    MergeReport,
};
pub use json::{
    full_export, full_export_with_checks, indent_json, run_export, sort_link_checks, to_json_pretty, ExportError,
};
pub use location::BUDGET_FIELDS;
pub use overwrite::{probe_overwrite, prompt_overwrite, reanalysed, run_overwrite, Overwrite};
pub use problem::Problem;
pub use validate::validate_against;
