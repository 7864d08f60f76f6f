//! `geo-probe import-captures FILE --project ID --engine E --captures CAPTURES --out OUT
//! [--add-prompts]`: answers captured from an assistant's consumer app become an `app` run of
//! engine E (`shared/spec/cli.md`), analysed like any run, and FILE plus that run is written to
//! OUT atomically.
//!
//! A thin shell over `geo_core::export::import_captures`: it reads the two files, gives the run
//! an id and the clock's time, prints the core's warnings as `warning:` lines and writes OUT.
//! A broken row or an unknown prompt is exit 2 with the core's one line, and nothing is written.

use std::path::Path;
use std::process::ExitCode;

use anyhow::Result;
use geo_core::export::{import_captures as import, CaptureOptions};
use geo_core::runner::iso_timestamp;

use crate::args::Arity;
use crate::clock::now_ms;
use crate::io::{input_error, print, read_text, write_atomic_with};
use crate::terminal;

const FLAGS: &[(&str, Arity)] = &[
    ("project", Arity::One),
    ("engine", Arity::One),
    ("captures", Arity::One),
    ("out", Arity::One),
    ("add-prompts", Arity::Flag),
];

/// `geo-probe import-captures`.
pub fn import_captures(rest: &[String]) -> Result<ExitCode> {
    let args = super::parse(rest, FLAGS, &["FILE"])?;
    let required = |name: &str, what: &str| {
        args.value(name)
            .map(str::trim)
            .filter(|v| !v.is_empty())
            .ok_or_else(|| input_error(format!("--{name} {what} is required")))
    };
    let project_id = required("project", "ID")?.to_string();
    let engine_name = required("engine", "E")?;
    let engine = geo_core::model::EngineId::parse(&engine_name.to_ascii_lowercase()).ok_or_else(|| {
        let all: Vec<&str> = geo_core::model::EngineId::ALL.iter().map(|e| e.as_str()).collect();
        input_error(format!("unknown engine {engine_name:?} in --engine; use one of {}", all.join(", ")))
    })?;
    let captures_path = required("captures", "CAPTURES")?.to_string();
    let out = required("out", "OUT")?.to_string();
    let file = &args.positionals[0];
    if file == "-" && captures_path == "-" {
        return Err(input_error("FILE and --captures cannot both be standard input; give one of them as a file"));
    }
    let mut env = super::export::load_export(file)?;
    let captures = read_text(&captures_path, geo_core::limits::MAX_EXPORT_BYTES, "a capture file")?;
    let now = now_ms();
    let options = CaptureOptions {
        project_id,
        engine,
        run_id: super::probe::new_id("run", now, &env.runs),
        now: iso_timestamp(now),
        add_prompts: args.flag("add-prompts"),
    };
    let imported = import(&env, &captures, &options).map_err(|e| {
        let name = if captures_path == "-" { "standard input".to_string() } else { captures_path.clone() };
        input_error(format!("{name}: {e}; nothing was imported"))
    })?;
    for warning in &imported.warnings {
        terminal::eprint_line(&format!("warning: {}", warning.en));
    }
    let (run_id, probes, added) = (imported.run.id.clone(), imported.probes.len(), imported.added_prompts.len());
    let status = imported.run.status;
    imported.apply(&mut env);
    env.exported_at = iso_timestamp(now);
    let text = geo_core::export::to_json_pretty(&env);
    let redacted = terminal::redact(&text);
    write_atomic_with(Path::new(&out), |w| w.write_all(redacted.as_bytes()))?;
    let added = if added > 0 { format!(", {added} prompt(s) added to the project") } else { String::new() };
    print(&format!(
        "{run_id}: {probes} captured answer(s) of {engine}'s app, run {status}{added}\n",
        status = status.as_str()
    ))?;
    Ok(ExitCode::SUCCESS)
}
