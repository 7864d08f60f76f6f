//! Offline commands over an export: `analyze`, `validate`, `metrics`, `report`, `csv`.

use crate::args::Arity;
use crate::io::{input_error, print, print_json, read_text};
use anyhow::Result;
use geo_core::analysis::RunAnalyzer;
use geo_core::export::{self, ImportLimits};
use geo_core::model::{ExportEnvelope, Lang};
use rayon::prelude::*;
use std::collections::HashMap;
use std::process::ExitCode;

/// Reads, validates and re-analyses an export (the only way commands load one).
pub fn load_export(path: &str) -> Result<ExportEnvelope> {
    let text = read_text(path, geo_core::limits::MAX_EXPORT_BYTES, "an export")?;
    let mut env = export::parse_export(&text, &ImportLimits::default())
        .map_err(|e| input_error(format!("{} is not a valid GEO Probe export: {e}", display_name(path))))?;
    let problems = export::validate_against(&env, &ExportEnvelope::new(""));
    if let Some(first) = problems.first() {
        return Err(input_error(format!(
            "{} is not self-contained: {first}{}",
            display_name(path),
            if problems.len() > 1 { format!(" (and {} more problem(s))", problems.len() - 1) } else { String::new() }
        )));
    }
    analyze_in_parallel(&mut env);
    Ok(env)
}

/// Recomputes every probe's derived fields, probes spread over all cores: each run's alias
/// snapshot is prepared once ([`RunAnalyzer`], shared read-only by the threads) and every
/// probe goes through the same single-threaded geo-core path as `analyze_envelope`, so the
/// result is the same, byte for byte, as a serial pass. `validate_against` has made sure
/// every probe's run is in the export.
fn analyze_in_parallel(env: &mut ExportEnvelope) {
    let ExportEnvelope { runs, probes, .. } = env;
    let analyzers: HashMap<&str, RunAnalyzer> = runs.iter().map(|r| (r.id.as_str(), RunAnalyzer::for_run(r))).collect();
    probes.par_iter_mut().with_min_len(16).for_each(|probe| {
        if let Some(analyzer) = analyzers.get(probe.run_id.as_str()) {
            analyzer.analyze(probe);
        }
    });
}

fn display_name(path: &str) -> &str {
    if path == "-" {
        "standard input"
    } else {
        path
    }
}

/// The run to report on: `--run ID`, else the newest run of the export.
pub fn pick_run(env: &ExportEnvelope, run: Option<&str>) -> Result<String> {
    match run {
        Some(id) => {
            if env.run(id).is_some() {
                Ok(id.to_string())
            } else {
                Err(input_error(format!("no run {id:?} in the export; `geo-probe validate` lists what is there")))
            }
        }
        None => env
            .newest_run()
            .map(|r| r.id.clone())
            .ok_or_else(|| input_error("the export has no runs; start one with `geo-probe run`")),
    }
}

/// `geo-probe analyze FILE`.
pub fn analyze(raw: &[String]) -> Result<ExitCode> {
    let args = super::parse(raw, &[], &["FILE"])?;
    let env = load_export(&args.positionals[0])?;
    print(&export::to_json_pretty(&env))?;
    Ok(ExitCode::SUCCESS)
}

/// `geo-probe validate FILE`.
pub fn validate(raw: &[String]) -> Result<ExitCode> {
    let args = super::parse(raw, &[], &["FILE"])?;
    let env = load_export(&args.positionals[0])?;
    print(&format!("{}\n", export::summarize(&env)))?;
    Ok(ExitCode::SUCCESS)
}

/// `geo-probe metrics FILE [--run ID]`.
pub fn metrics(raw: &[String]) -> Result<ExitCode> {
    let args = super::parse(raw, &[("run", Arity::One)], &["FILE"])?;
    let env = load_export(&args.positionals[0])?;
    let metrics =
        geo_core::metrics::metrics_for_export(&env, args.value("run")).map_err(|e| input_error(e.to_string()))?;
    print_json(&metrics)?;
    Ok(ExitCode::SUCCESS)
}

/// `geo-probe report FILE [--run ID] [--lang zh|en]`.
pub fn report(raw: &[String]) -> Result<ExitCode> {
    let args = super::parse(raw, &[("run", Arity::One), ("lang", Arity::One)], &["FILE"])?;
    let lang = match args.value("lang") {
        None | Some("zh") => Lang::Zh,
        Some("en") => Lang::En,
        Some(other) => return Err(input_error(format!("--lang must be zh or en, got {other:?}"))),
    };
    let env = load_export(&args.positionals[0])?;
    let run_id = pick_run(&env, args.value("run"))?;
    let text = export::markdown::markdown_report(&env, &run_id, lang).map_err(|e| input_error(e.to_string()))?;
    print(&text)?;
    Ok(ExitCode::SUCCESS)
}

/// `geo-probe csv probes|sources FILE [--run ID]`.
pub fn csv(raw: &[String]) -> Result<ExitCode> {
    let args = super::parse(raw, &[("run", Arity::One)], &["probes|sources", "FILE"])?;
    let env = load_export(&args.positionals[1])?;
    let run_id = pick_run(&env, args.value("run"))?;
    let text = match args.positionals[0].as_str() {
        "probes" => export::probes_csv(&env, &run_id),
        "sources" => export::sources_csv(&env, &run_id),
        other => return Err(input_error(format!("csv takes `probes` or `sources`, got {other:?}"))),
    }
    .map_err(|e| input_error(e.to_string()))?;
    print(&text)?;
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parallel_reanalysis_equals_the_serial_one() {
        let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../demo/demo-data.json")).unwrap();
        let raw = export::parse_export(&text, &ImportLimits::default()).unwrap();
        assert!(raw.probes.len() > 20 && raw.runs.len() > 1);
        let mut serial = raw.clone();
        assert!(geo_core::analysis::analyze_envelope(&mut serial).is_empty());
        let mut parallel = raw.clone();
        analyze_in_parallel(&mut parallel);
        assert_eq!(parallel, serial);
        assert_ne!(parallel, raw, "the demo file holds raw results: analysis fills the derived fields");
    }
}
