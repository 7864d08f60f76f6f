//! `cargo xtask mock [flags]`: runs the mock of every engine (`geo-mock`) in the foreground.
//!
//! The flags are geo-mock's own (`cargo xtask mock --help`); the first line on standard
//! output is `geo-mock listening on http://127.0.0.1:PORT`.

use anyhow::{bail, Context, Result};
use std::process::Command;

/// Builds and runs `geo-mock` with `args`, until it exits or is interrupted.
pub fn run(args: &[String]) -> Result<()> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let status = Command::new(cargo)
        .args(["run", "-q", "-p", "geo-mock", "--"])
        .args(args)
        .status()
        .context("cannot start cargo to run geo-mock")?;
    if !status.success() {
        bail!("geo-mock exited with {status}");
    }
    Ok(())
}
