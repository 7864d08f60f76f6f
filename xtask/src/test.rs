//! `cargo xtask test`: every test of the workspace, the way CI runs them.

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

/// Entry point of `cargo xtask test`.
pub fn run(_args: &[String]) -> Result<()> {
    run_cmd(Command::new(env!("CARGO")).args(["test", "--workspace", "--locked"]))?;
    Ok(())
}
