//! `cargo xtask e2e [--dev] [FILTER]`: the browser tests.
//!
//! Ensures Debian's Chromium (installs it with apt when running as root, otherwise says
//! what to install), installs the pinned npm packages of `xtask/e2e` (playwright-core as
//! the driver, binaryen for `wasm-opt`), builds `dist/`, serves it on a free loopback port
//! from a thread of this process, and runs `node --test` over `xtask/e2e/*.test.mjs` with
//! `BASE_URL`, `CHROMIUM`, `GEO_MOCK_BIN` (the mock DeepSeek server, which a test starts
//! with `--port 0` and the faults it needs) and `FIXTURES_DIR` in the environment. `FILTER` keeps test files whose name
//! contains it. `--bench` runs the browser benchmarks instead (`xtask/e2e/*.bench.mjs`,
//! printing figures; never part of `cargo xtask test`).

use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use crate::dist::{self, DistOptions};
use crate::serve;
use crate::test::run_cmd;

const CHROMIUM_CANDIDATES: &[&str] = &["/usr/bin/chromium", "/usr/bin/chromium-browser"];

/// Entry point of `cargo xtask e2e`; the lead's `cargo xtask test` calls it too.
pub fn run(args: &[String]) -> Result<()> {
    let started = Instant::now();
    let mut dev = false;
    let mut suffix = ".test.mjs";
    let mut filter = None;
    for a in args {
        match a.as_str() {
            "--dev" => dev = true,
            "--bench" => suffix = ".bench.mjs",
            s if s.starts_with("--") => bail!("unknown e2e option {s:?}: use --dev, --bench and/or a file-name filter"),
            s => filter = Some(s.to_string()),
        }
    }
    let chromium = ensure_chromium()?;
    let root = dist::workspace_root();
    let e2e = root.join("xtask/e2e");
    ensure_npm_packages(&e2e)?;
    dist::build(&DistOptions { base_path: "/".into(), dev })?;
    // Browser tests that need the mock DeepSeek server start their own from this binary
    // (`GEO_MOCK_BIN`), on a free port, with the faults they want.
    run_cmd(Command::new(env!("CARGO")).current_dir(&root).args(["build", "-q", "-p", "geo-mock", "--locked"]))?;
    let mock_bin = root.join("target/debug/geo-mock");
    let server = serve::start(&root.join("dist"), 0, "/")?;
    eprintln!("xtask: serving dist/ at {} (port {})", server.url, server.port);

    let mut files: Vec<PathBuf> = std::fs::read_dir(&e2e)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.ends_with(suffix)))
        .filter(|p| {
            filter
                .as_ref()
                .is_none_or(|f| p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.contains(f.as_str())))
        })
        .collect();
    files.sort();
    if files.is_empty() {
        bail!("no xtask/e2e/*{suffix} matches {filter:?}");
    }
    let mut cmd = Command::new("node");
    cmd.current_dir(&e2e)
        .arg("--test")
        .arg("--test-concurrency=1")
        .args(files.iter().map(|f| f.file_name().expect("listed files have names")))
        .env("BASE_URL", &server.url)
        .env("CHROMIUM", &chromium)
        .env("GEO_MOCK_BIN", &mock_bin)
        .env("FIXTURES_DIR", root.join("fixtures"));
    let result = run_cmd(&mut cmd);
    eprintln!("xtask: e2e finished in {:.1} s", started.elapsed().as_secs_f64());
    result
}

/// The Chromium binary: `$CHROMIUM`, Debian's path, or installed now with apt as root.
fn ensure_chromium() -> Result<PathBuf> {
    if let Some(p) = std::env::var_os("CHROMIUM").map(PathBuf::from).filter(|p| p.is_file()) {
        return Ok(p);
    }
    if let Some(p) = CHROMIUM_CANDIDATES.iter().map(PathBuf::from).find(|p| p.is_file()) {
        return Ok(p);
    }
    let uid = Command::new("id").arg("-u").output().map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string());
    if uid.as_deref().ok() != Some("0") {
        bail!("chromium is not installed: run `sudo apt-get update && sudo apt-get install -y chromium fonts-noto-cjk` (or set CHROMIUM=/path/to/chrome)");
    }
    run_cmd(Command::new("apt-get").arg("update"))?;
    // The CJK font only makes the screenshots readable; the tests do not depend on it.
    run_cmd(
        Command::new("apt-get")
            .args(["install", "-y", "chromium", "fonts-noto-cjk"])
            .env("DEBIAN_FRONTEND", "noninteractive"),
    )?;
    CHROMIUM_CANDIDATES
        .iter()
        .map(PathBuf::from)
        .find(|p| p.is_file())
        .context("apt-get installed chromium but /usr/bin/chromium is missing")
}

/// `npm ci` (or `npm install` without a lock file) unless the packages are already there.
pub fn ensure_npm_packages(dir: &Path) -> Result<()> {
    if dir.join("node_modules/playwright-core/package.json").is_file()
        && dir.join("node_modules/.bin/wasm-opt").exists()
    {
        return Ok(());
    }
    let sub = if dir.join("package-lock.json").is_file() { "ci" } else { "install" };
    run_cmd(Command::new("npm").current_dir(dir).args([sub, "--no-audit", "--no-fund"]))
        .context("npm failed: install Node.js 18+ with npm (Debian: apt-get install -y nodejs npm)")
}
