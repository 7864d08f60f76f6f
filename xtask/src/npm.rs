//! The pinned npm packages of `xtask/e2e` (`package-lock.json`): playwright-core (the browser
//! tests' driver), axe-core (their accessibility checks), binaryen (`wasm-opt`) and terser
//! (the JS glue's minifier), installed with `npm ci` when one is missing. `dist` needs the
//! last two, the browser tests all of them.

use anyhow::{bail, Context, Result};
use std::path::Path;
use std::process::Command;

use crate::sys::{run_cmd, which};

/// The packages of `xtask/e2e/package.json` that the build and the tests need.
const NPM_MARKERS: &[&str] = &[
    "node_modules/playwright-core/package.json",
    "node_modules/axe-core/axe.min.js",
    "node_modules/.bin/wasm-opt",
    "node_modules/.bin/terser",
];

/// Whether `npm ci` has installed every package of `dir` (see [`NPM_MARKERS`]).
fn npm_packages_present(dir: &Path) -> bool {
    NPM_MARKERS.iter().all(|m| dir.join(m).exists())
}

/// How to get Node.js with npm on this machine.
fn npm_missing_message() -> &'static str {
    if cfg!(target_os = "macos") {
        "install Node.js 18+ with npm (`brew install node`)"
    } else {
        "install Node.js 18+ with npm (Debian/Ubuntu: `sudo apt-get install -y nodejs npm`)"
    }
}

/// `npm ci` (or `npm install` without a lock file) in `dir` unless its packages are there:
/// playwright-core (the browser driver), axe-core (accessibility checks) and binaryen
/// (`wasm-opt`). Pinned by `package-lock.json`; no browser is downloaded.
pub fn ensure_npm_packages(dir: &Path) -> Result<()> {
    if npm_packages_present(dir) {
        return Ok(());
    }
    if which("npm").is_none() {
        bail!("npm is not installed: {}", npm_missing_message());
    }
    let sub = if dir.join("package-lock.json").is_file() { "ci" } else { "install" };
    eprintln!("xtask: installing the pinned npm packages of {} (npm {sub})", dir.display());
    run_cmd(Command::new("npm").current_dir(dir).args([sub, "--no-audit", "--no-fund"]))
        .with_context(|| format!("npm {sub} failed in {}: check the network, then run it there by hand", dir.display()))
}
