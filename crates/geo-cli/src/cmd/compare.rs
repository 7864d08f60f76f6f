//! `geo-probe diff` (two runs, noise-aware) and `geo-probe engines` (the newest run per
//! engine side by side), for terminals and CI jobs.
//!
//! geo-core's `compare` module decides every figure, the verdict and the report's text; this
//! file picks the output format, maps the verdict to the exit status of `--fail-on` and
//! delivers the webhook. The comparison is printed before the webhook is tried, so a failed
//! delivery (exit 3) never loses the report.

use crate::args::Arity;
use crate::io::{input_error, print, print_json};
use crate::terminal;
use crate::webhook;
use anyhow::Result;
use geo_core::compare::{self, CompareError, RunDiff, Verdict};
use geo_core::model::{EngineId, Lang};
use std::process::ExitCode;
use std::time::Duration;

/// Exit status when `--fail-on` matches the verdict.
const EXIT_FAIL_ON: u8 = 1;
/// Exit status when the webhook could not be delivered.
const EXIT_WEBHOOK: u8 = 3;

/// What `--fail-on` fails the command on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FailOn {
    /// `regressed` or `mixed`: something really went down.
    Regression,
    /// Anything but `stable`.
    Change,
}

impl FailOn {
    fn parse(value: &str) -> Result<FailOn> {
        match value {
            "regression" => Ok(FailOn::Regression),
            "change" => Ok(FailOn::Change),
            other => Err(input_error(format!("--fail-on takes `regression` or `change`, got {other:?}"))),
        }
    }

    fn fails(self, verdict: Verdict) -> bool {
        match self {
            FailOn::Regression => matches!(verdict, Verdict::Regressed | Verdict::Mixed),
            FailOn::Change => verdict != Verdict::Stable,
        }
    }
}

/// `geo-probe diff FILE [--run ID | --engine E] [--against ID] [--format json|markdown]
/// [--fail-on regression|change] [--webhook URL] [--lang zh|en] [--allow-no-previous]`.
///
/// Extensions of the contract: `--engine E` compares that engine's newest completed or
/// partial run; `--allow-no-previous` makes "no previous run yet" a note and exit 0 (a
/// schedule's first run); `--lang` chooses the Markdown report's and the webhook text's
/// language (zh by default, like `report`).
pub fn diff(raw: &[String]) -> Result<ExitCode> {
    let spec = [
        ("run", Arity::One),
        ("against", Arity::One),
        ("format", Arity::One),
        ("fail-on", Arity::One),
        ("webhook", Arity::One),
        ("lang", Arity::One),
        ("engine", Arity::One),
        ("allow-no-previous", Arity::Flag),
    ];
    let args = super::parse(raw, &spec, &["FILE"])?;
    let markdown = super::markdown_flag(&args)?;
    let fail_on = args.value("fail-on").map(FailOn::parse).transpose()?;
    let lang = super::lang_flag(&args)?;
    // Checked before anything is read, so a mistyped URL is a usage error, not a late warning.
    // `GEO_PROBE_WEBHOOK` stands in for the flag (a flag shows in every process listing).
    let hook = webhook::Target::from_flag_or_env(args.value("webhook")).map_err(input_error)?;
    let timeout = webhook::timeout_from_env().map_err(input_error)?;
    if let Some(warning) = hook.as_ref().and_then(webhook::Target::insecure_warning) {
        terminal::eprint_line(&format!("warning: {warning}"));
    }

    let engine = args
        .value("engine")
        .map(|e| {
            EngineId::parse(e.trim()).ok_or_else(|| {
                let names: Vec<&str> = EngineId::ALL.iter().map(|e| e.as_str()).collect();
                input_error(format!("--engine takes one of {}, got {e:?}", names.join(", ")))
            })
        })
        .transpose()?;
    if engine.is_some() && args.value("run").is_some() {
        return Err(input_error("pass --run ID or --engine E, not both (--engine picks that engine's newest run)"));
    }

    let env = super::export::load_export(&args.positionals[0])?;
    let run_id = match engine {
        Some(engine) => Some(
            compare::newest_comparable(env.runs.iter().filter(|r| r.config.engine == engine))
                .map(|r| r.id.clone())
                .ok_or_else(|| {
                    input_error(format!(
                        "the export has no completed or partial {engine} run: run `geo-probe run` for it first"
                    ))
                })?,
        ),
        None => args.value("run").map(str::to_string),
    };
    let diff = match compare::diff_export(&env, run_id.as_deref(), args.value("against")) {
        Ok(diff) => diff,
        Err(CompareError::NoPreviousRun { run_id }) if args.flag("allow-no-previous") => {
            // The first run of a schedule: nothing to compare yet is not a failure.
            terminal::eprint_line(&format!("run {run_id} has no previous run yet: nothing to compare"));
            if markdown {
                if let Some(run) = env.run(&run_id) {
                    print(&compare::first_run_markdown(run, lang))?;
                }
            }
            return Ok(ExitCode::SUCCESS);
        }
        Err(e) => return Err(input_error(e.to_string())),
    };
    if markdown {
        print(&compare::diff_markdown(&diff, lang))?;
    } else {
        print_json(&diff)?;
    }

    if let Some(hook) = hook.filter(|_| diff.verdict != Verdict::Stable) {
        if let Err(problem) = deliver(&hook, &diff, lang, timeout) {
            terminal::eprint_line(&format!("warning: {problem}"));
            return Ok(ExitCode::from(EXIT_WEBHOOK));
        }
        terminal::eprint_line(&format!("posted the {} comparison to the webhook at {}", diff.verdict, hook.redacted()));
    }
    Ok(match fail_on {
        Some(rule) if rule.fails(diff.verdict) => {
            terminal::eprint_line(&format!("the verdict is {}: failing as --fail-on asks", diff.verdict));
            ExitCode::from(EXIT_FAIL_ON)
        }
        _ => ExitCode::SUCCESS,
    })
}

fn deliver(hook: &webhook::Target, diff: &RunDiff, lang: Lang, timeout: Duration) -> std::result::Result<(), String> {
    let body = webhook::body(&compare::diff_summary(diff, lang), diff).map_err(|e| e.to_string())?;
    hook.post(&body, timeout)
}

/// `geo-probe engines FILE [--project ID]`.
pub fn engines(raw: &[String]) -> Result<ExitCode> {
    let args = super::parse(raw, &[("project", Arity::One)], &["FILE"])?;
    let env = super::export::load_export(&args.positionals[0])?;
    let comparison =
        compare::engines_for_export(&env, args.value("project")).map_err(|e| input_error(e.to_string()))?;
    print_json(&comparison)?;
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fail_on_rules() {
        use Verdict::*;
        let table = [
            (FailOn::Regression, [(Regressed, true), (Mixed, true), (Improved, false), (Stable, false)]),
            (FailOn::Change, [(Regressed, true), (Mixed, true), (Improved, true), (Stable, false)]),
        ];
        for (rule, rows) in table {
            for (verdict, fails) in rows {
                assert_eq!(rule.fails(verdict), fails, "{rule:?} on {verdict}");
            }
        }
        assert!(FailOn::parse("regressions").is_err());
    }
}
