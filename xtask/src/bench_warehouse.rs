//! `cargo xtask bench-warehouse [--days N]`: a year of daily monitoring written the way a daily
//! job writes it — nine engines, one export per day, `geo-probe warehouse DAY.json --out LAKE`
//! one day after another into one folder — then DuckDB over the whole year (issue 27).
//!
//! The year is synthetic and deterministic: every probe is a stateless hash of (day, engine,
//! prompt, repeat) choosing among the demo's recorded raw results (`demo/demo-data.json`), joined
//! and varied into answers and source lists of a realistic size (two to five recorded answers
//! and a paragraph of its own drawn from their characters, about 1,500 characters in all; two to
//! four searches' results, a third of the URLs made distinct; the brand sometimes left out), with
//! 3 % errors and 2 % empty answers; 61 prompts × 5 repeats × 9 engines × 365 days is 1,001,925
//! probes. Each day's export is written to `target/bench-warehouse/day.json` and replaced by the
//! next day's, so the disk holds one day of JSON and the year of Parquet.
//!
//! Per day, `geo-probe warehouse` and then `geo-probe analyze` (output to `/dev/null`) run on the
//! same file as whole processes; printed: the probes per second each handled over the year and
//! their ratio (the target: writing at least as fast as `analyze` reads), the peak memory of
//! each day's write (`wait4`'s maximum resident set; the target: under 500 MB and flat — the
//! last 30 days' median within 10 % of the first 30 days'), the bytes per probe on disk, and
//! DuckDB's time for `SELECT * FROM run_metrics` over the year (the views of `sql/metrics.sql`;
//! the target: under 5 s). The engines the export reader does not know yet are written as the
//! known engines in turn (said in the output), so there are still nine runs a day.
//! Not part of `cargo xtask test`: a speed target is a benchmark, never a timed test.

use anyhow::{bail, Context, Result};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use crate::bench::median;
use crate::sys::{number_flag, run_cmd, workspace_root};

/// The nine engines of the contract (shared/spec/engines.md), in its order.
const ENGINES: [&str; 9] =
    ["deepseek", "anthropic", "openai", "gemini", "perplexity", "qwen", "doubao", "ernie", "hunyuan"];
/// Prompts per run and repeats per prompt: 305 probes per run, 2,745 a day.
const PROMPTS: u64 = 61;
const REPEATS: u64 = 5;
/// Days of the year.
const DAYS: u64 = 365;
/// 2026-01-01T02:00:00Z in Unix milliseconds: the first day's runs.
const FIRST_DAY_MS: i64 = 1_767_232_800_000;

/// Entry point of `cargo xtask bench-warehouse`.
pub fn run(args: &[String]) -> Result<()> {
    let days = number_flag(args, "--days", DAYS, "cargo xtask bench-warehouse [--days N]")?;
    let root = workspace_root();
    run_cmd(Command::new(env!("CARGO")).current_dir(&root).args(["build", "-q", "--release", "-p", "geo-cli"]))?;
    let cli = root.join("target/release/geo-probe");
    let python = duckdb_python(&root)?;
    let work = root.join("target/bench-warehouse");
    let lake = work.join("lake");
    let _ = std::fs::remove_dir_all(&lake);
    std::fs::create_dir_all(&work)?;
    let day_file = work.join("day.json");
    let templates = Templates::load(&root)?;
    let engines = engine_ids(&cli, &work)?;

    let load_before = load_average();
    let (mut write_s, mut analyze_s, mut probes) = (0.0, 0.0, 0u64);
    let mut peaks: Vec<f64> = Vec::new();
    for day in 0..days {
        let (export, n) = templates.day(day, &engines);
        std::fs::write(&day_file, serde_json::to_vec(&export)?)?;
        let (secs, peak) = measured(Command::new(&cli).arg("warehouse").arg(&day_file).arg("--out").arg(&lake))?;
        write_s += secs;
        peaks.push(peak);
        analyze_s += measured(Command::new(&cli).arg("analyze").arg(&day_file))?.0;
        probes += n;
        if day % 30 == 29 || day + 1 == days {
            eprintln!("xtask: day {}/{days}: {probes} probes, peak {peak:.0} MB", day + 1);
        }
    }
    let bytes = folder_bytes(&lake)?;
    let duck = duckdb_time(&python, &root, &lake)?;
    let load = format!("{} at the start, {} at the end", load_before, load_average());
    report(&Figures { days, probes, write_s, analyze_s, peaks, bytes, duck, engines, load });
    Ok(())
}

/// What the bench measured.
struct Figures {
    days: u64,
    probes: u64,
    write_s: f64,
    analyze_s: f64,
    /// Peak resident memory of each day's `geo-probe warehouse`, MB.
    peaks: Vec<f64>,
    bytes: u64,
    duck: Value,
    engines: Vec<(String, String)>,
    /// The machine's load average when the bench started and ended.
    load: String,
}

/// The 1-minute load average (`/proc/loadavg`), or `?` where there is none.
fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|s| s.split_whitespace().next().map(str::to_string))
        .unwrap_or_else(|| "?".into())
}

fn report(f: &Figures) {
    let written = f.probes as f64 / f.write_s;
    let read = f.probes as f64 / f.analyze_s;
    let window = (f.peaks.len() / 12).clamp(1, 30);
    let first = median(&f.peaks[..window]);
    let last = median(&f.peaks[f.peaks.len() - window..]);
    let max = f.peaks.iter().copied().fold(0.0, f64::max);
    let flat = last <= first * 1.10;
    let metrics_s = f.duck["run_metrics_s"].as_f64().unwrap_or(f64::NAN);
    let mark = |ok: bool| if ok { "meets the target" } else { "MISSES the target" };
    println!(
        "bench-warehouse: {} days × 9 engines × {PROMPTS} prompts × {REPEATS} repeats = {} probes ({} runs)",
        f.days, f.probes, f.duck["runs"]
    );
    println!(
        "  machine: {} cores, load average {}",
        std::thread::available_parallelism().map_or(0, |n| n.get()),
        f.load
    );
    let renamed: Vec<String> = f.engines.iter().filter(|(a, b)| a != b).map(|(a, b)| format!("{a} as {b}")).collect();
    if !renamed.is_empty() {
        println!("  engines the export reader does not know yet, written as known ones: {}", renamed.join(", "));
    }
    println!(
        "  geo-probe warehouse  {written:>9.0} probes/s ({:.1} s)   geo-probe analyze {read:>9.0} probes/s ({:.1} s)   ratio {:.2}: {}",
        f.write_s,
        f.analyze_s,
        written / read,
        mark(written >= read)
    );
    println!(
        "  peak memory of one day's write: max {max:.0} MB, median of the first {window} days {first:.0} MB, of the last {window} {last:.0} MB: {} (< 500 MB), {}",
        mark(max < 500.0),
        if flat { "flat" } else { "NOT flat" }
    );
    println!("  on disk: {:.1} MB, {:.0} bytes per probe", f.bytes as f64 / 1e6, f.bytes as f64 / f.probes as f64);
    println!(
        "  DuckDB {}: SELECT * FROM run_metrics over the year {metrics_s:.2} s (first {:.2} s; share_of_voice {:.2} s, domain_metrics {:.2} s): {} (< 5 s)",
        f.duck["version"].as_str().unwrap_or("?"),
        f.duck["run_metrics_first_s"].as_f64().unwrap_or(f64::NAN),
        f.duck["share_of_voice_s"].as_f64().unwrap_or(f64::NAN),
        f.duck["domain_metrics_s"].as_f64().unwrap_or(f64::NAN),
        mark(metrics_s < 5.0)
    );
}

/// Runs `cmd` with its output discarded; its wall time in seconds and peak resident memory in MB.
fn measured(cmd: &mut Command) -> Result<(f64, f64)> {
    let started = Instant::now();
    let child = cmd.stdout(Stdio::null()).spawn().with_context(|| format!("cannot start {cmd:?}"))?;
    let (ok, peak) = wait_with_peak(child)?;
    let secs = started.elapsed().as_secs_f64();
    if !ok {
        bail!("{cmd:?} failed");
    }
    Ok((secs, peak))
}

/// Waits for `child`; whether it succeeded and its peak resident memory in MB (`wait4`).
#[cfg(unix)]
fn wait_with_peak(child: std::process::Child) -> Result<(bool, f64)> {
    let mut status = 0;
    // SAFETY: `rusage` is plain data, filled by `wait4` for our own child's pid.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let pid = child.id() as libc::pid_t;
    // SAFETY: a valid pid of our child, valid pointers to our locals.
    let got = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    if got != pid {
        bail!("wait4 failed: {}", std::io::Error::last_os_error());
    }
    // Linux reports kilobytes, macOS bytes.
    let kb = if cfg!(target_os = "macos") { usage.ru_maxrss as f64 / 1024.0 } else { usage.ru_maxrss as f64 };
    Ok((libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0, kb / 1024.0))
}

#[cfg(not(unix))]
fn wait_with_peak(mut child: std::process::Child) -> Result<(bool, f64)> {
    Ok((child.wait()?.success(), f64::NAN))
}

fn folder_bytes(dir: &Path) -> Result<u64> {
    let mut sum = 0;
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        sum += if entry.file_type()?.is_dir() { folder_bytes(&entry.path())? } else { entry.metadata()?.len() };
    }
    Ok(sum)
}

/// Each of the nine engine ids and the id its runs are written under: itself when the export
/// reader (`geo-probe validate`) accepts it, else the known engines in turn.
fn engine_ids(cli: &Path, work: &Path) -> Result<Vec<(String, String)>> {
    let probe = work.join("engine-check.json");
    let mut known = Vec::new();
    for engine in ENGINES {
        let run = json!({ "id": "r", "projectId": "p", "status": "completed", "createdAt": "2026-01-01T00:00:00.000Z",
            "config": { "engine": engine, "model": "m", "repeats": 1, "concurrency": 1, "maxSearches": 5,
                        "maxTokens": 3000, "temperature": 1.0, "systemPromptVersion": "neutral-zh-v1" } });
        let project = json!({ "id": "p", "name": "p", "brand": { "id": "b", "kind": "brand", "label": "b" },
            "createdAt": "2026-01-01T00:00:00.000Z", "updatedAt": "2026-01-01T00:00:00.000Z" });
        let env = json!({ "format": "geo-probe-export", "version": 1, "projects": [project], "runs": [run] });
        std::fs::write(&probe, env.to_string())?;
        let status =
            Command::new(cli).arg("validate").arg(&probe).stdout(Stdio::null()).stderr(Stdio::null()).status()?;
        if status.success() {
            known.push(engine);
        }
    }
    if known.is_empty() {
        bail!("geo-probe validate accepts none of the engine ids");
    }
    let mut next = 0;
    Ok(ENGINES
        .iter()
        .map(|&e| {
            let written = if known.contains(&e) {
                e
            } else {
                next += 1;
                known[(next - 1) % known.len()]
            };
            (e.to_string(), written.to_string())
        })
        .collect())
}

/// A stateless hash of the probe's coordinates (SplitMix64's finaliser): the bench's only
/// source of variation, so every run of it writes the same year.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The demo's recorded raw results and project, from which every day is made.
struct Templates {
    project: Value,
    brand: String,
    /// The raw results of the successful probes of the demo's DeepSeek runs (the other
    /// engines' runs, added later, are left out so the figures of ADR 0018 stay comparable).
    probes: Vec<Value>,
    /// The demo's prompts (text, tags), cycled into [`PROMPTS`] prompts.
    prompts: Vec<Value>,
    /// The distinct CJK characters of the demo's answers and the Chinese docs-chat sample: the
    /// alphabet of each answer's own paragraph, so that answers compress as text does, not as
    /// copies of a few recorded ones.
    alphabet: Vec<char>,
}

impl Templates {
    fn load(root: &Path) -> Result<Templates> {
        let demo: Value = serde_json::from_str(&std::fs::read_to_string(root.join("demo/demo-data.json"))?)?;
        let project = demo["projects"][0].clone();
        let brand = project["brand"]["label"].as_str().context("the demo's brand")?.to_string();
        let deepseek: Vec<&Value> = demo["runs"]
            .as_array()
            .context("runs")?
            .iter()
            .filter(|r| r["config"]["engine"] == "deepseek")
            .map(|r| &r["id"])
            .collect();
        let probes: Vec<Value> = demo["probes"]
            .as_array()
            .context("probes")?
            .iter()
            .filter(|p| p["status"] == "success" && deepseek.contains(&&p["runId"]))
            .cloned()
            .collect();
        let prompts = demo["prompts"].as_array().context("prompts")?.clone();
        if probes.is_empty() || prompts.is_empty() {
            bail!("the demo has no successful probe or no prompt");
        }
        let mut alphabet: Vec<char> = probes
            .iter()
            .filter_map(|p| p["rawAnswer"].as_str())
            .chain([std::fs::read_to_string(root.join("fixtures/chat/rag_zh.md"))?.as_str()])
            .flat_map(str::chars)
            .filter(|c| ('\u{4e00}'..='\u{9fff}').contains(c))
            .collect();
        alphabet.sort_unstable();
        alphabet.dedup();
        Ok(Templates { project, brand, probes, prompts, alphabet })
    }

    /// Day `day`'s export (one run per engine) and its probe count.
    fn day(&self, day: u64, engines: &[(String, String)]) -> (Value, u64) {
        let at = FIRST_DAY_MS + day as i64 * 86_400_000;
        let date = crate::demo::format_iso(at)[..10].replace('-', "");
        let prompts: Vec<Value> = (0..PROMPTS)
            .map(|i| {
                let t = &self.prompts[i as usize % self.prompts.len()];
                json!({ "id": format!("p{i:02}"), "projectId": self.project["id"], "text": format!("{}（{i}）", t["text"].as_str().unwrap_or("")),
                        "tags": t["tags"], "createdAt": "2026-01-01T00:00:00.000Z", "updatedAt": "2026-01-01T00:00:00.000Z" })
            })
            .collect();
        let mut targets = vec![self.project["brand"].clone()];
        targets.extend(self.project["competitors"].as_array().cloned().unwrap_or_default());
        let (mut runs, mut probes) = (Vec::new(), Vec::new());
        for (slot, (name, engine)) in engines.iter().enumerate() {
            let id = format!("run_{date}_{name}");
            let previous = (day > 0)
                .then(|| format!("run_{}_{name}", crate::demo::format_iso(at - 86_400_000)[..10].replace('-', "")));
            runs.push(json!({
                "id": id, "projectId": self.project["id"], "status": "completed",
                "createdAt": crate::demo::format_iso(at + slot as i64 * 60_000),
                "finishedAt": crate::demo::format_iso(at + slot as i64 * 60_000 + 1_800_000),
                "previousRunId": previous,
                "config": { "engine": engine, "model": format!("{name}-default"), "repeats": REPEATS, "concurrency": 3,
                            "maxSearches": 5, "maxTokens": 3000, "temperature": 1.0, "systemPromptVersion": "neutral-zh-v1" },
                "aliasSnapshot": targets,
                "promptSnapshot": prompts, "plannedProbeCount": PROMPTS * REPEATS,
            }));
            for p in 0..PROMPTS {
                for r in 0..REPEATS {
                    let seed = mix(mix(mix(day) ^ slot as u64) ^ p) ^ r;
                    probes.push(self.probe(&id, &format!("p{p:02}"), r, at + slot as i64 * 60_000, seed));
                }
            }
        }
        let n = probes.len() as u64;
        let env = json!({ "format": "geo-probe-export", "version": 1, "exportedAt": crate::demo::format_iso(at + 86_000_000),
                          "appVersion": "bench", "projects": [self.project], "prompts": prompts, "runs": runs, "probes": probes });
        (env, n)
    }

    /// One probe: an error, an empty answer, or a success made of 2–5 recorded results.
    fn probe(&self, run: &str, prompt: &str, repeat: u64, at: i64, seed: u64) -> Value {
        let mut p = json!({
            "id": format!("{run}__{prompt}__{repeat}"), "runId": run, "projectId": self.project["id"], "promptId": prompt,
            "repeatIndex": repeat, "createdAt": crate::demo::format_iso(at + (seed % 1_800_000) as i64),
            "model": "bench-model", "attempts": 1 + seed % 2, "latencyMs": 4000 + seed % 20_000,
            "usage": { "inputTokens": 20_000 + seed % 15_000, "outputTokens": 800 + seed % 1500, "cacheReadInputTokens": 0, "webSearchRequests": 0 },
            "status": "success", "rawAnswer": "", "queries": [], "rawSources": [], "truncated": seed.is_multiple_of(97),
        });
        match seed % 100 {
            0..=2 => {
                p["status"] = "error".into();
                p["error"] = json!({ "kind": "rate_limit", "httpStatus": 429, "message": "rate limit reached" });
                return p;
            }
            3..=4 => {
                p["status"] = "empty".into();
                p["error"] = json!({ "kind": "empty", "message": "the answer was empty after 3 attempts" });
                return p;
            }
            _ => {}
        }
        let picks: Vec<&Value> =
            (0..2 + mix(seed) % 4).map(|i| &self.probes[(mix(seed ^ i) % self.probes.len() as u64) as usize]).collect();
        let mut answer: Vec<String> = picks.iter().map(|t| t["rawAnswer"].as_str().unwrap_or("").to_string()).collect();
        if mix(seed ^ 7).is_multiple_of(4) {
            answer.iter_mut().for_each(|a| *a = a.replace(&self.brand, "某服务商"));
        }
        let (mut queries, mut sources) = (Vec::new(), Vec::new());
        for t in picks.iter().take(4) {
            for q in t["queries"].as_array().into_iter().flatten() {
                let index = queries.len() + 1;
                let mut q = q.clone();
                let old = q["index"].clone();
                q["index"] = index.into();
                queries.push(q);
                for s in t["rawSources"].as_array().into_iter().flatten().filter(|s| s["queryIndex"] == old) {
                    let mut s = s.clone();
                    s["queryIndex"] = index.into();
                    let n = mix(seed ^ sources.len() as u64);
                    if n.is_multiple_of(3) {
                        let url = s["url"]
                            .as_str()
                            .unwrap_or("")
                            .split('?')
                            .next()
                            .unwrap_or("")
                            .trim_end_matches('/')
                            .to_string();
                        s["url"] = format!("{url}/{}", n % 5000).into();
                    }
                    sources.push(s);
                }
            }
        }
        p["usage"]["webSearchRequests"] = queries.len().into();
        answer.push(self.paragraph(mix(seed ^ 11)));
        p["rawAnswer"] = answer.join("\n\n").into();
        p["queries"] = queries.into();
        p["rawSources"] = sources.into();
        p
    }
}

impl Templates {
    /// 400 to 1,100 characters of the alphabet in clauses of 6 to 21, each ending in `，` or `。`.
    fn paragraph(&self, seed: u64) -> String {
        let n = 400 + seed % 700;
        let mut out = String::with_capacity(n as usize * 3);
        let (mut k, mut clause) = (0u64, 6 + mix(seed) % 16);
        for i in 0..n {
            let h = mix(seed ^ (i << 20));
            out.push(self.alphabet[(h % self.alphabet.len() as u64) as usize]);
            k += 1;
            if k == clause {
                out.push(if h.is_multiple_of(3) { '。' } else { '，' });
                (k, clause) = (0, 6 + (h >> 8) % 16);
            }
        }
        out.push('。');
        out
    }
}

/// The venv of the DuckDB test (its pinned requirements), made here when the test has not made it.
fn duckdb_python(root: &Path) -> Result<PathBuf> {
    let requirements = root.join("crates/geo-cli/tests/warehouse_duckdb/requirements.txt");
    let wanted = std::fs::read_to_string(&requirements)?;
    let venv = root.join("target/bench-warehouse/venv");
    let python = venv.join("bin/python");
    let stamp = venv.join("geo-probe-requirements.txt");
    if std::fs::read_to_string(&stamp).ok().as_deref() == Some(wanted.as_str()) && python.exists() {
        return Ok(python);
    }
    let _ = std::fs::remove_dir_all(&venv);
    crate::python::ensure_venv()?;
    run_cmd(Command::new(crate::python::interpreter()).arg("-m").arg("venv").arg(&venv))?;
    run_cmd(
        Command::new(&python)
            .args(["-m", "pip", "install", "-q", "--disable-pip-version-check", "-r"])
            .arg(&requirements),
    )?;
    std::fs::write(&stamp, wanted)?;
    Ok(python)
}

/// DuckDB's timings over the lake (`xtask/tools/duckdb_time.py`), as JSON.
fn duckdb_time(python: &Path, root: &Path, lake: &Path) -> Result<Value> {
    let out = Command::new(python)
        .arg(root.join("xtask/tools/duckdb_time.py"))
        .arg(root.join("sql/metrics.sql"))
        .arg(lake)
        .stderr(Stdio::inherit())
        .output()
        .context("cannot run xtask/tools/duckdb_time.py")?;
    if !out.status.success() {
        bail!("xtask/tools/duckdb_time.py failed");
    }
    Ok(serde_json::from_slice(&out.stdout)?)
}
