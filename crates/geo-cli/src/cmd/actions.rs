//! `geo-probe actions FILE [--run ID] [--against ID] [--format json|markdown] [--lang zh|en]`:
//! what to do next for a run (`shared/spec/data-model.md`, "What to do next"), every item
//! computed by geo-core's `actions` module.

use crate::args::Arity;
use crate::io::{input_error, print, print_json};
use anyhow::Result;
use geo_core::actions::{actions_for_export, actions_markdown};
use std::process::ExitCode;

/// `geo-probe actions`. Extensions of the contract: `--against ID` compares with another run
/// than the run's `previousRunId`; `--lang` chooses the Markdown's language (zh by default,
/// like `report`).
pub fn actions(raw: &[String]) -> Result<ExitCode> {
    let spec = [("run", Arity::One), ("against", Arity::One), ("format", Arity::One), ("lang", Arity::One)];
    let super::ReportInput { args, markdown, lang, env } = super::ReportInput::read(raw, &spec)?;
    let actions =
        actions_for_export(&env, args.value("run"), args.value("against")).map_err(|e| input_error(e.to_string()))?;
    if markdown {
        let run = env
            .run(&actions.run_id)
            .ok_or_else(|| input_error(format!("run {:?} is not in the export", actions.run_id)))?;
        let project = env.projects.iter().find(|p| p.id == run.project_id).map_or(run.project_id.as_str(), |p| &p.name);
        print(&actions_markdown(&actions, run, project, geo_core::provider::spec(actions.engine).name, lang))?;
    } else {
        print_json(&actions)?;
    }
    Ok(ExitCode::SUCCESS)
}
