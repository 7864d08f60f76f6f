//! `cargo xtask test`: every test of the workspace, the way CI runs them.
//!
//! 0. The fast checks first: `cargo fmt --all --check` (the tree's own `rustfmt.toml`) and
//!    `cargo clippy --workspace --all-targets -- -D warnings`, so a formatting slip or a lint
//!    fails in seconds, before the long test build.
//! 1. `cargo test --workspace --locked`: tidy checks, unit tests, goldens (insta; with
//!    `CI=true` a changed golden fails), property tests (`PROPTEST_CASES`, 10,000 in CI),
//!    CLI integration tests against the mock DeepSeek server.
//! 2. `cargo doc -p geo-core` with warnings denied: the library is documented.
//! 3. geo-core builds for `wasm32-unknown-unknown`.
//! 4. The browser tests (see `e2e.rs`) when the web crate is part of the workspace.
//!
//! Tests write only to ignored or temporary paths (`target/`, the system's temporary
//! directory): a clean checkout stays clean after its own tests. The README screenshot is
//! refreshed by `cargo xtask screenshot`, never by a test run.

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
    crate::python::ensure_venv()?;
    run_cmd(cargo().args(["fmt", "--all", "--check"]))
        .context("the tree is not formatted: run `cargo fmt --all` and commit the result")?;
    run_cmd(cargo().args(["clippy", "--workspace", "--all-targets", "--locked", "--", "-D", "warnings"]))
        .context("clippy found warnings: fix them (or explain an `#[allow]` beside it)")?;
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

/// The README screenshot that `cargo xtask screenshot` refreshes (relative to the root).
pub const SCREENSHOT: &str = "docs/screenshots/dashboard.png";

/// Entry point of `cargo xtask screenshot`: runs the dashboard's browser test with
/// `GEO_SCREENSHOT_OUT` set, so that it copies its screenshot over [`SCREENSHOT`]. Without
/// the variable (every `cargo xtask test`) the screenshot stays in `target/e2e-artifacts/`.
pub fn screenshot(args: &[String]) -> Result<()> {
    if let Some(extra) = args.iter().find(|a| a.as_str() != "--dev") {
        bail!("unknown screenshot option {extra:?}: use --dev (a debug build) or nothing");
    }
    let out = crate::workspace_root().join(SCREENSHOT);
    // Inherited by the node process the e2e runner starts (and by nothing else).
    std::env::set_var("GEO_SCREENSHOT_OUT", &out);
    let mut e2e_args: Vec<String> = args.to_vec();
    e2e_args.push("dashboard.test".to_string());
    crate::e2e::run(&e2e_args)?;
    eprintln!("xtask: wrote {}", out.display());
    Ok(())
}
