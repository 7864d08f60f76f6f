//! Project automation: `cargo xtask <command>`; run without a command for the list.

mod dist;
mod e2e;
mod serve;
mod test;

use std::process::ExitCode;

const USAGE: &str = "usage: cargo xtask <command>

commands:
  test     run every test: tidy, unit, golden, property, CLI and browser tests
  dist     build the web app into dist/   [--base-path /geo-probe/] [--dev]
  serve    build dist/ and serve it on 127.0.0.1   [--port 8080] [--base-path P] [--dev]
  e2e      browser tests in headless Chromium   [--dev] [FILE-FILTER]";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("test") => test::run(&args[1..]),
        Some("dist") => dist::run(&args[1..]),
        Some("serve") => serve::run(&args[1..]),
        Some("e2e") => e2e::run(&args[1..]),
        _ => {
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
