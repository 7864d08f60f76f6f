//! What every command of xtask may need from the machine: the workspace root, running a
//! command, finding a program on `PATH`, whether this runs as root.
//!
//! The bottom of xtask's import graph: it imports no other file of xtask, and every command
//! imports it rather than another command for these helpers (code review 3, §1f), so the
//! commands form a DAG: test → e2e → {dist, serve} → npm → sys.

use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The workspace root (the parent of `xtask/`).
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("xtask lives in the workspace").to_path_buf()
}

/// Runs one command, saying so first, and fails on a non-zero exit.
pub fn run_cmd(cmd: &mut Command) -> Result<()> {
    eprintln!("xtask: {cmd:?}");
    let status = cmd.status().with_context(|| format!("cannot start {cmd:?}"))?;
    if !status.success() {
        bail!("{cmd:?} failed with {status}");
    }
    Ok(())
}

/// The first file called `name` on `PATH`.
pub fn which(name: &str) -> Option<PathBuf> {
    std::env::var_os("PATH").and_then(|paths| std::env::split_paths(&paths).map(|p| p.join(name)).find(|p| p.is_file()))
}

/// Whether this process runs as root (where apt-get may install packages).
pub fn is_root() -> bool {
    Command::new("id").arg("-u").output().is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}

/// Whether Debian's packages can be installed now: running as root with apt-get on `PATH`.
pub fn can_apt_install() -> bool {
    is_root() && which("apt-get").is_some()
}

/// Installs Debian's `packages` with apt-get (after `apt-get update`), without questions.
pub fn apt_install(packages: &[&str]) -> Result<()> {
    run_cmd(Command::new("apt-get").arg("update"))?;
    run_cmd(Command::new("apt-get").args(["install", "-y"]).args(packages).env("DEBIAN_FRONTEND", "noninteractive"))
}

/// The whole number after `flag` when `args` is `[flag, N]`, `default` when `args` is empty;
/// otherwise an error showing `usage`.
pub fn number_flag<T>(args: &[String], flag: &str, default: T, usage: &str) -> Result<T>
where
    T: std::str::FromStr,
    T::Err: std::error::Error + Send + Sync + 'static,
{
    match args {
        [] => Ok(default),
        [f, n] if f == flag => n.parse().with_context(|| format!("{flag} takes a whole number")),
        _ => bail!("usage: {usage}"),
    }
}
