//! Python for the tests that check the CLI with tools nobody on the team wrote (the MCP Python
//! SDK, DuckDB): each test installs its pinned packages from PyPI into its own venv under
//! `target/tmp/`, so a machine needs only `python3` with its `venv` module. `cargo xtask test`
//! checks that before the long Rust tests and, as root on Debian, installs `python3-venv`
//! itself (as it does Chromium); `GEO_PROBE_PYTHON` names another interpreter.

use anyhow::{bail, Result};
use std::process::{Command, Stdio};

use crate::sys::{apt_install, can_apt_install};

/// The interpreter the tests use: `$GEO_PROBE_PYTHON`, else `python3`.
pub fn interpreter() -> String {
    std::env::var("GEO_PROBE_PYTHON").unwrap_or_else(|_| "python3".into())
}

/// Whether `python` can make a venv with pip in it (Debian's `python3` without `python3-venv`
/// lacks `ensurepip`).
fn makes_venvs(python: &str) -> bool {
    Command::new(python)
        .args(["-c", "import venv, ensurepip"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Fails now, saying what to install, when the Python tests could not make their venvs.
pub fn ensure_venv() -> Result<()> {
    let python = interpreter();
    if makes_venvs(&python) {
        return Ok(());
    }
    if std::env::var_os("GEO_PROBE_PYTHON").is_none() && can_apt_install() {
        eprintln!("xtask: python3 cannot make a venv; installing Debian's python3-venv with apt-get (running as root)");
        apt_install(&["python3", "python3-venv"])?;
        if makes_venvs(&python) {
            return Ok(());
        }
    }
    bail!(
        "`{python}` cannot make a venv with pip, which the MCP and DuckDB tests need (they install their pinned \
         packages from PyPI themselves): install Python 3 with its venv module (Debian/Ubuntu: \
         `sudo apt-get install -y python3 python3-venv`; macOS: `brew install python`) or set GEO_PROBE_PYTHON"
    )
}
