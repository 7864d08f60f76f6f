//! `geo-probe diff` (two runs, noise-aware) and `geo-probe engines` (the newest run per
//! engine side by side), for terminals and CI jobs.
//!
//! geo-core's `compare` module decides every figure, the verdict and the report's text; this
//! file picks the output format, maps the verdict to the exit status of `--fail-on` and
//! delivers the webhook. The comparison is printed before the webhook is tried, so a failed
//! delivery (exit 3) never loses the report.

use crate::args::{Args, Arity};
use crate::io::{input_error, print};
use crate::webhook;
use anyhow::Result;
use geo_core::compare::{self, RunDiff, Verdict};
use geo_core::model::Lang;
use std::process::ExitCode;

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

fn lang(args: &Args) -> Result<Lang> {
    match args.value("lang") {
        None | Some("zh") => Ok(Lang::Zh),
        Some("en") => Ok(Lang::En),
        Some(other) => Err(input_error(format!("--lang must be zh or en, got {other:?}"))),
    }
}

fn pretty_json<T: serde::Serialize>(value: &T) -> Result<String> {
    let mut text = serde_json::to_string_pretty(value)?;
    text.push('\n');
    Ok(text)
}

/// `geo-probe diff FILE [--run ID] [--against ID] [--format json|markdown]
/// [--fail-on regression|change] [--webhook URL] [--lang zh|en]`.
pub fn diff(raw: &[String]) -> Result<ExitCode> {
    let spec = [
        ("run", Arity::One),
        ("against", Arity::One),
        ("format", Arity::One),
        ("fail-on", Arity::One),
        ("webhook", Arity::One),
        ("lang", Arity::One),
    ];
    let args = Args::parse(raw, &spec).map_err(input_error)?;
    args.expect_positionals(&["FILE"]).map_err(input_error)?;
    let markdown = match args.value("format") {
        None | Some("json") => false,
        Some("markdown") => true,
        Some(other) => return Err(input_error(format!("--format takes `json` or `markdown`, got {other:?}"))),
    };
    let fail_on = args.value("fail-on").map(FailOn::parse).transpose()?;
    let lang = lang(&args)?;
    // Checked before anything is read, so a mistyped URL is a usage error, not a late warning.
    let hook = args.value("webhook").map(webhook::Target::parse).transpose().map_err(input_error)?;

    let env = super::export::load_export(&args.positionals[0])?;
    let diff =
        compare::diff_export(&env, args.value("run"), args.value("against")).map_err(|e| input_error(e.to_string()))?;
    if markdown {
        print(&compare::diff_markdown(&diff, lang))?;
    } else {
        print(&pretty_json(&diff)?)?;
    }

    if let Some(hook) = hook.filter(|_| diff.verdict != Verdict::Stable) {
        if let Err(problem) = deliver(&hook, &diff, lang) {
            eprintln!("warning: {problem}");
            return Ok(ExitCode::from(EXIT_WEBHOOK));
        }
        eprintln!("posted the {} comparison to the webhook at {}", diff.verdict, hook.redacted());
    }
    Ok(match fail_on {
        Some(rule) if rule.fails(diff.verdict) => {
            eprintln!("the verdict is {}: failing as --fail-on asks", diff.verdict);
            ExitCode::from(EXIT_FAIL_ON)
        }
        _ => ExitCode::SUCCESS,
    })
}

fn deliver(hook: &webhook::Target, diff: &RunDiff, lang: Lang) -> std::result::Result<(), String> {
    let body = webhook::body(&compare::diff_summary(diff, lang), diff).map_err(|e| e.to_string())?;
    hook.post(&body)
}

/// `geo-probe engines FILE [--project ID]`.
pub fn engines(raw: &[String]) -> Result<ExitCode> {
    let args = Args::parse(raw, &[("project", Arity::One)]).map_err(input_error)?;
    args.expect_positionals(&["FILE"]).map_err(input_error)?;
    let env = super::export::load_export(&args.positionals[0])?;
    let comparison =
        compare::engines_for_export(&env, args.value("project")).map_err(|e| input_error(e.to_string()))?;
    print(&pretty_json(&comparison)?)?;
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
