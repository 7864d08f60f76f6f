//! One module per command family; each command is `fn(rest: &[String]) -> Result<ExitCode>`.

pub mod actions;
pub mod chat;
pub mod claims;
pub mod compare;
pub mod doctor;
pub mod export;
pub mod import_captures;
pub mod links;
pub mod mcp;
pub mod probe;
pub mod proxy;
pub mod warehouse;

use crate::args::Args;
use crate::io::input_error;
use geo_core::model::Lang;

/// `--lang zh|en` (zh when absent), the language of a Markdown output.
pub fn lang_flag(args: &Args) -> anyhow::Result<Lang> {
    match args.value("lang") {
        None | Some("zh") => Ok(Lang::Zh),
        Some("en") => Ok(Lang::En),
        Some(other) => Err(input_error(format!("--lang must be zh or en, got {other:?}"))),
    }
}

/// `--format json|markdown` (json when absent): whether Markdown was asked for.
pub fn markdown_flag(args: &Args) -> anyhow::Result<bool> {
    match args.value("format") {
        None | Some("json") => Ok(false),
        Some("markdown") => Ok(true),
        Some(other) => Err(input_error(format!("--format takes `json` or `markdown`, got {other:?}"))),
    }
}
