//! `cargo xtask test`: every test of the workspace, the way CI runs them.
//!
//! 1. `cargo test --workspace --locked`: tidy checks, unit tests, goldens (insta; with
//!    `CI=true` a changed golden fails), property tests (`PROPTEST_CASES`, 10,000 in CI),
//!    CLI integration tests against the mock DeepSeek server.
//! 2. `cargo doc -p geo-core` with warnings denied: the library is documented.
//! 3. geo-core builds for `wasm32-unknown-unknown`.
//! 4. The browser tests (see `e2e.rs`) when the web crate is part of the workspace.

use anyhow::{bail, Context, Result};
use std::process::Command;

/// Runs one command from the workspace root, failing on a non-zero exit.
pub fn run_cmd(cmd: &mut Command) -> Result<()> {
    eprintln!("xtask: {cmd:?}");
    let status = cmd.status().with_context(|| format!("cannot start {cmd:?}"))?;
    if !status.success() {
        bail!("{cmd:?} failed with {status}");
    }
    Ok(())
}

fn cargo() -> Command {
    let mut c = Command::new(env!("CARGO"));
    c.current_dir(crate::workspace_root());
    c
}

/// Entry point of `cargo xtask test`.
pub fn run(args: &[String]) -> Result<()> {
    let skip_browser = args.iter().any(|a| a == "--no-browser");
    if !skip_browser {
        // Before the long Rust tests: a missing browser or npm fails now, saying what to install.
        crate::browser_preflight()?;
    }
    run_cmd(cargo().args(["test", "--workspace", "--locked"]))?;
    run_cmd(cargo().args(["doc", "-p", "geo-core", "--no-deps", "--locked"]).env("RUSTDOCFLAGS", "-D warnings"))?;
    run_cmd(Command::new("rustup").args(["target", "add", "wasm32-unknown-unknown"]))?;
    run_cmd(cargo().args(["build", "-p", "geo-core", "--target", "wasm32-unknown-unknown", "--locked"]))?;
    if !skip_browser {
        crate::browser_tests(args)?;
    }
    eprintln!("xtask: every test passed");
    Ok(())
}
