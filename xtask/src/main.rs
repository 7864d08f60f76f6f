//! Project automation: `cargo xtask <command>`; run without a command for the list.

mod mock;
mod test;

use std::path::PathBuf;
use std::process::ExitCode;

/// The workspace root (xtask lives one level below it).
pub fn workspace_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).parent().expect("xtask sits inside the workspace").to_path_buf()
}

/// The browser tests of `cargo xtask test`.
pub fn browser_tests(_args: &[String]) -> anyhow::Result<()> {
    eprintln!("xtask: the web crate is not in this tree yet; no browser tests to run");
    Ok(())
}

const USAGE: &str = "usage: cargo xtask <command>

commands:
  test     run every test: tidy, unit, golden, property, CLI and browser tests
  mock     run the mock DeepSeek server (flags: cargo xtask mock --help)";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("test") => test::run(&args[1..]),
        Some("mock") => mock::run(&args[1..]),
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
