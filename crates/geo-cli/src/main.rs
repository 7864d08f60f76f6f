//! `geo-probe`: the GEO Probe core driven from a terminal (see `shared/spec/cli.md`).
//!
//! Every command is `cmd::<module>::<fn>(rest) -> anyhow::Result<ExitCode>`; an error is
//! printed as one line `error: …` and exits 2 when it is an [`io::InputError`] (bad input),
//! else 1.

#![warn(missing_docs)]

mod args;
mod cmd;
mod io;
mod transport;

use std::process::ExitCode;

const USAGE: &str = "usage: geo-probe <command> [args]

commands:
  run FILE --project ID --out OUT [--prompts ID,ID] [--repeats N] [--concurrency N]
      [--max-searches N] [--model M] [--base-url URL] [--timeout-secs S]
                 start a new run of a project and write FILE plus the run to OUT
  resume FILE --run ID --out OUT [--base-url URL] [--timeout-secs S]
                 continue a run: re-run every probe that is not yet a success
  retry-failed FILE --run ID --out OUT [--base-url URL] [--timeout-secs S]
                 re-run the run's error/empty probes serially under the same ids

The api key is read from DEEPSEEK_API_KEY only; with --base-url and no key, requests
carry no x-api-key (proxy mode).";

fn main() -> ExitCode {
    let raw: Vec<String> = std::env::args().skip(1).collect();
    let Some((command, rest)) = raw.split_first() else {
        eprintln!("{USAGE}");
        return ExitCode::from(2);
    };
    let result = match command.as_str() {
        "run" => cmd::probe::run(rest),
        "resume" => cmd::probe::resume(rest),
        "retry-failed" => cmd::probe::retry_failed(rest),
        "help" | "--help" | "-h" => {
            println!("{USAGE}");
            Ok(ExitCode::SUCCESS)
        }
        other => Err(io::input_error(format!("unknown command {other:?}; run `geo-probe help` for the list"))),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            let line = format!("{e:#}").replace(['\n', '\r'], " ");
            eprintln!("error: {line}");
            if e.downcast_ref::<io::InputError>().is_some() {
                ExitCode::from(2)
            } else {
                ExitCode::FAILURE
            }
        }
    }
}
