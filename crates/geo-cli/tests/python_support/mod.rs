//! A Python venv for the tests that check the CLI with tools nobody on the team wrote (the
//! official MCP SDK, DuckDB): created under `target/tmp/<name>/` with a pinned requirements
//! file on first use and re-created when that file changes, so the tests run on a fresh
//! machine and in CI with only `python3` (with its `venv` module) and PyPI.
//! `GEO_PROBE_PYTHON` names another interpreter.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Runs `cmd`, failing the test with its output when it cannot start or fails.
pub fn run(cmd: &mut Command, what: &str) -> Output {
    let out = cmd.output().unwrap_or_else(|e| panic!("cannot {what}: {e}"));
    assert!(
        out.status.success(),
        "{what} failed ({:?}):\n{}\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// The interpreter of the venv `name`, with `requirements` (a path relative to the crate)
/// installed.
pub fn venv_python(name: &str, requirements: &str) -> PathBuf {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join(requirements);
    let wanted = std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("cannot read {}: {e}", file.display()));
    let base = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let venv = base.join("venv");
    let python = venv.join(if cfg!(windows) { "Scripts/python.exe" } else { "bin/python" });
    let stamp = venv.join("geo-probe-requirements.txt");
    if std::fs::read_to_string(&stamp).ok().as_deref() == Some(wanted.as_str()) && python.exists() {
        return python;
    }
    let system = std::env::var("GEO_PROBE_PYTHON").unwrap_or_else(|_| "python3".into());
    let _ = std::fs::remove_dir_all(&venv);
    std::fs::create_dir_all(&base).unwrap();
    run(
        Command::new(&system).arg("-m").arg("venv").arg(&venv),
        &format!("create a venv with `{system} -m venv` (install python3 and python3-venv, or set GEO_PROBE_PYTHON)"),
    );
    run(
        Command::new(&python)
            .args(["-m", "pip", "install", "--disable-pip-version-check", "--no-input", "-q", "-r"])
            .arg(&file),
        &format!("install {requirements} from PyPI into the venv"),
    );
    std::fs::write(&stamp, &wanted).unwrap();
    python
}
