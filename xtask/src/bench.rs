//! `cargo xtask bench-analyze [--rounds N]`: how long `geo-probe analyze` takes on a
//! 5,040-probe export, measured side by side with `jq -c .` merely parsing and re-serialising
//! the same file — the bar re-analysis must clear (issue 14: the ratio must be ≤ 1).
//!
//! The export is made by the real probing path, then multiplied: `geo-probe run` asks the
//! prompts of `fixtures/project.json` twice each against the mock DeepSeek server, the
//! probes of its first 21 prompts are kept (42 probes over the recorded responses: lists,
//! tables, prose, search errors, internal queries, empty answers, links; the fixture has
//! grown since, and the bench keeps the size issue 14 measured), and the run is copied 120
//! times under new ids (5,040 probes, every derived field filled in as a real export has
//! it). It is written once to `target/bench-analyze/` and reused.
//!
//! Both commands run as whole processes with their output sent to `/dev/null`, in turns
//! (analyze, jq, analyze, jq, …) after one warm-up each, so a machine that speeds up or
//! slows down during the bench affects both alike. Printed: each command's wall time
//! (median, min, max over the rounds) and the ratio analyze ÷ jq of the medians and the
//! median of the per-round ratios. Not part of `cargo xtask test`: a speed target is a
//! benchmark, never a timed test.

use anyhow::{bail, Context, Result};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use crate::sys::{number_flag, run_cmd, workspace_root};

/// Copies of the run in the bench export.
const COPIES: usize = 120;
/// Probes of the run kept for each copy: the first 21 prompts, twice each.
const PER_COPY: usize = 42;
/// Rounds timed by default.
const ROUNDS: usize = 9;

/// Entry point of `cargo xtask bench-analyze`.
pub fn analyze(args: &[String]) -> Result<()> {
    let rounds = number_flag(args, "--rounds", ROUNDS, "cargo xtask bench-analyze [--rounds N]")?;
    if Command::new("jq").arg("--version").stdout(Stdio::null()).status().is_err() {
        bail!("jq is not installed: apt-get install -y jq (it is the yardstick of this bench)");
    }
    let root = workspace_root();
    run_cmd(Command::new(env!("CARGO")).current_dir(&root).args(["build", "-q", "--release", "-p", "geo-cli"]))?;
    let cli = root.join("target/release/geo-probe");
    let file = bench_export(&root)?;
    let size = std::fs::metadata(&file)?.len();
    eprintln!("xtask: {} ({:.1} MB, {} probes)", file.display(), size as f64 / 1e6, COPIES * PER_COPY);

    let analyze = |path: &Path| timed(Command::new(&cli).arg("analyze").arg(path));
    let jq = |path: &Path| timed(Command::new("jq").arg("-c").arg(".").arg(path));
    analyze(&file)?;
    jq(&file)?;
    let (mut a, mut j) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        a.push(analyze(&file)?);
        j.push(jq(&file)?);
    }
    let ratios: Vec<f64> = a.iter().zip(&j).map(|(x, y)| x / y).collect();
    println!(
        "bench-analyze: {} probes, {:.1} MB, {rounds} rounds (after one warm-up each)",
        COPIES * PER_COPY,
        size as f64 / 1e6
    );
    println!("  geo-probe analyze  {}", spread(&a));
    println!("  jq -c .            {}", spread(&j));
    println!(
        "  ratio analyze / jq: {:.2} (medians), {:.2} (median of per-round ratios; min {:.2}, max {:.2})",
        median(&a) / median(&j),
        median(&ratios),
        min(&ratios),
        max(&ratios)
    );
    Ok(())
}

/// Runs `cmd` with its output discarded and returns its wall time in seconds.
fn timed(cmd: &mut Command) -> Result<f64> {
    let started = Instant::now();
    let status = cmd.stdout(Stdio::null()).status().with_context(|| format!("cannot start {cmd:?}"))?;
    let secs = started.elapsed().as_secs_f64();
    if !status.success() {
        bail!("{cmd:?} failed with {status}");
    }
    Ok(secs)
}

fn sorted(v: &[f64]) -> Vec<f64> {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    s
}

/// The median; the mean of the middle two for an even count (NaN for none): every bench's.
pub fn median(v: &[f64]) -> f64 {
    let s = sorted(v);
    match s.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => s[n / 2],
        n => (s[n / 2 - 1] + s[n / 2]) / 2.0,
    }
}

fn min(v: &[f64]) -> f64 {
    sorted(v).first().copied().unwrap_or(f64::NAN)
}

fn max(v: &[f64]) -> f64 {
    sorted(v).last().copied().unwrap_or(f64::NAN)
}

fn spread(v: &[f64]) -> String {
    format!("median {:.3} s (min {:.3}, max {:.3})", median(v), min(v), max(v))
}

/// The 5,040-probe export, made on first use (see the module docs).
fn bench_export(root: &Path) -> Result<PathBuf> {
    let dir = root.join("target/bench-analyze");
    // `v2`: made of the first 42 probes (the fixture grew past 21 prompts).
    let file = dir.join(format!("export-{}-v2.json", COPIES * PER_COPY));
    if file.is_file() {
        return Ok(file);
    }
    std::fs::create_dir_all(&dir)?;
    run_cmd(Command::new(env!("CARGO")).current_dir(root).args(["build", "-q", "-p", "geo-mock"]))?;
    let mock = crate::demo::start_mock(&root.join("target/debug"), &[])?;
    let base = dir.join("base.json");
    let cli = root.join("target/release/geo-probe");
    let project = root.join("fixtures/project.json");
    run_cmd(
        Command::new(&cli)
            .arg("run")
            .arg(&project)
            .args(["--project", "proj_yuangouchang", "--repeats", "2", "--concurrency", "3", "--base-url", &mock.url])
            .arg("--out")
            .arg(&base)
            .env_remove(crate::demo::deepseek_key_var()),
    )?;
    drop(mock);
    let env: Value = serde_json::from_str(&std::fs::read_to_string(&base)?)?;
    let text = serde_json::to_string_pretty(&multiplied(&env, COPIES)?)?;
    std::fs::write(&file, text + "\n").with_context(|| format!("cannot write {}", file.display()))?;
    Ok(file)
}

/// `env` with its one run and that run's probes copied `copies` times under new ids
/// (`run_…__c007`), each copy a day apart and naming the one before as `previousRunId`.
fn multiplied(env: &Value, copies: usize) -> Result<Value> {
    let run = env["runs"].get(0).context("the base export has no run")?;
    let run_id = run["id"].as_str().context("the run has no id")?.to_string();
    let mut probes: Vec<&Value> = env["probes"].as_array().context("no probes")?.iter().collect();
    // Ids end in `__pNN__R`: sorted, the first 42 are prompts 1 to 21, both repeats.
    probes.sort_by_key(|p| p["id"].as_str().unwrap_or_default().to_string());
    if probes.len() < PER_COPY {
        bail!("the base run has {} probes, the bench needs {PER_COPY}", probes.len());
    }
    probes.truncate(PER_COPY);
    let mut out = env.clone();
    let (mut runs, mut all) = (Vec::new(), Vec::new());
    for c in 0..copies {
        let id = format!("{run_id}__c{c:03}");
        let mut r = run.clone();
        r["id"] = id.clone().into();
        r["createdAt"] = crate::demo::format_iso(1_796_000_000_000 + c as i64 * 86_400_000).into();
        r["previousRunId"] = if c == 0 { Value::Null } else { format!("{run_id}__c{:03}", c - 1).into() };
        runs.push(r);
        for p in &probes {
            let mut p = (*p).clone();
            let own = p["id"].as_str().unwrap_or_default().replacen(&run_id, &id, 1);
            p["id"] = own.into();
            p["runId"] = id.clone().into();
            all.push(p);
        }
    }
    out["runs"] = runs.into();
    out["probes"] = all.into();
    Ok(out)
}
