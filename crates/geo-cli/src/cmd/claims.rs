//! `geo-probe claims FILE [--run ID] [--facts FACTS.json] [--format json|markdown]
//! [--lang zh|en]`: what the answers say about the brand and its competitors
//! (`shared/spec/data-model.md`, "What the answers say"), the object of geo-core's
//! `said::claims_for_export`; a `--facts` file is read and checked by geo-core's
//! `project::parse_facts_file` against the run's `aliasSnapshot`.

use crate::args::Arity;
use crate::io::{input_error, print, print_json, read_text};
use anyhow::Result;
use geo_core::export::{default_run, find_run};
use geo_core::limits::MAX_FACTS_FILE_BYTES;
use geo_core::model::{ExportEnvelope, FactSnapshot, Run};
use geo_core::project::parse_facts_file;
use geo_core::said::{claims_for_export, markdown::claims_markdown};
use std::process::ExitCode;

/// `geo-probe claims`. `--lang` (an extension, like `actions`') chooses the Markdown's
/// language, zh by default.
pub fn claims(raw: &[String]) -> Result<ExitCode> {
    let spec = [("run", Arity::One), ("facts", Arity::One), ("format", Arity::One), ("lang", Arity::One)];
    let super::ReportInput { args, markdown, lang, env } = super::ReportInput::read(raw, &spec)?;
    let run = pick(&env, args.value("run"))?;
    let sheet = match args.value("facts") {
        Some(path) => Some(facts_file(path, run)?),
        None => None,
    };
    let report = claims_for_export(&env, Some(&run.id), sheet.as_ref()).map_err(|e| input_error(e.to_string()))?;
    if markdown {
        print(&claims_markdown(&report, run, lang))?;
    } else {
        print_json(&report)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The run: `--run ID`, else the newest completed or partial run (else the newest).
fn pick<'a>(env: &'a ExportEnvelope, id: Option<&str>) -> Result<&'a Run> {
    match id {
        Some(id) => find_run(env, id).map_err(|e| input_error(e.to_string())),
        None => default_run(env).ok_or_else(|| input_error("the export has no runs; start one with `geo-probe run`")),
    }
}

/// The fact sheet of a `--facts` file, checked against `run`'s targets (exit 2 naming the
/// first problem, and the fact by its id where it is one fact's).
fn facts_file(path: &str, run: &Run) -> Result<FactSnapshot> {
    let text = read_text(path, MAX_FACTS_FILE_BYTES, "a facts file")?;
    let name = if path == "-" { "standard input" } else { path };
    parse_facts_file(&text, &run.alias_snapshot)
        .map_err(|problem| input_error(format!("{name} is not a usable fact sheet for run `{}`: {problem}", run.id)))
}
