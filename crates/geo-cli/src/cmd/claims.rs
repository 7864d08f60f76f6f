//! `geo-probe claims FILE [--run ID] [--facts FACTS.json] [--format json|markdown]
//! [--lang zh|en]`: what the answers say about the brand and its competitors
//! (`shared/spec/data-model.md`, "What the answers say"), the object of geo-core's
//! `said::claims_for_export`.

use crate::args::{Args, Arity};
use crate::io::{input_error, print};
use anyhow::Result;
use geo_core::said::{claims_for_export, markdown::claims_markdown};
use std::process::ExitCode;

/// `geo-probe claims`. `--lang` (an extension, like `actions`') chooses the Markdown's
/// language, zh by default.
pub fn claims(raw: &[String]) -> Result<ExitCode> {
    let spec = [("run", Arity::One), ("format", Arity::One), ("lang", Arity::One)];
    let args = Args::parse(raw, &spec).map_err(input_error)?;
    args.expect_positionals(&["FILE"]).map_err(input_error)?;
    let markdown = super::markdown_flag(&args)?;
    let lang = super::lang_flag(&args)?;
    let env = super::export::load_export(&args.positionals[0])?;
    let report = claims_for_export(&env, args.value("run"), None).map_err(|e| input_error(e.to_string()))?;
    if markdown {
        let run = env
            .runs
            .iter()
            .find(|r| r.id == report.run_id)
            .ok_or_else(|| input_error(format!("run {:?} is not in the export", report.run_id)))?;
        print(&claims_markdown(&report, run, lang))?;
    } else {
        let mut text = serde_json::to_string_pretty(&report)?;
        text.push('\n');
        print(&text)?;
    }
    Ok(ExitCode::SUCCESS)
}
