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

use crate::args::{Args, Arity};
use crate::io::input_error;
use geo_core::model::{ExportEnvelope, Lang};

/// The arguments of a command: `spec`'s flags and exactly the `positionals` named (a usage
/// error otherwise).
pub fn parse(raw: &[String], spec: &[(&str, Arity)], positionals: &[&str]) -> anyhow::Result<Args> {
    let args = Args::parse(raw, spec).map_err(input_error)?;
    args.expect_positionals(positionals).map_err(input_error)?;
    Ok(args)
}

/// What a report over an export reads: its arguments (`FILE` and `spec`'s flags, among them
/// `--format` and `--lang`), the two flags read, and the export, loaded.
pub struct ReportInput {
    /// The arguments.
    pub args: Args,
    /// `--format markdown`.
    pub markdown: bool,
    /// `--lang`.
    pub lang: Lang,
    /// `FILE`, loaded.
    pub env: ExportEnvelope,
}

impl ReportInput {
    /// Reads a report command's arguments and its export, flags first.
    pub fn read(raw: &[String], spec: &[(&str, Arity)]) -> anyhow::Result<ReportInput> {
        let args = parse(raw, spec, &["FILE"])?;
        let markdown = markdown_flag(&args)?;
        let lang = lang_flag(&args)?;
        let env = export::load_export(&args.positionals[0])?;
        Ok(ReportInput { args, markdown, lang, env })
    }
}

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
