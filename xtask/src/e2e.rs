//! `cargo xtask e2e [--dev] [FILTER…]`: the browser tests.
//!
//! Finds an installed Chrome or Chromium ([`find_chrome`]: `CHROME_PATH`, the usual names on
//! `PATH`, the usual install paths including the macOS application bundles), installs
//! Debian's Chromium with apt only when none is found and this runs as root, and otherwise
//! says exactly what to install; installs the pinned npm packages of `xtask/e2e`
//! (playwright-core as the driver, axe-core for the accessibility checks, binaryen for
//! `wasm-opt`), builds `dist/`, serves it on a free loopback port
//! from a thread of this process, and runs `node --test` over `xtask/e2e/*.test.mjs` with
//! `BASE_URL`, `CHROMIUM`, `GEO_MOCK_BIN` (the mock of every engine, which a test starts
//! with `--port 0` and the faults it needs) and `FIXTURES_DIR` in the environment. `FILTER` keeps test files whose name
//! contains it (any of several). `--bench` runs the browser benchmarks instead (`xtask/e2e/*.bench.mjs`,
//! printing figures; never part of `cargo xtask test`). `--repeat N` runs the chosen tests N
//! times on the one build and server, and `--busy K` keeps K threads spinning meanwhile (a
//! loaded machine); it prints, per test, how many of the runs failed, and fails when any did.

use anyhow::{bail, Context, Result};
use std::path::PathBuf;
use std::process::Command;
use std::time::Instant;

use crate::dist::{self, DistOptions};
use crate::npm::ensure_npm_packages;
use crate::serve;
use crate::sys::{apt_install, can_apt_install, run_cmd, workspace_root};

/// Entry point of `cargo xtask e2e`; the lead's `cargo xtask test` calls it too.
pub fn run(args: &[String]) -> Result<()> {
    let started = Instant::now();
    let opts = Options::parse(args)?;
    let (dev, suffix, filter) = (opts.dev, opts.suffix, opts.filter.clone());
    let chromium = ensure_chrome()?;
    let root = workspace_root();
    let e2e = root.join("xtask/e2e");
    ensure_npm_packages(&e2e)?;
    // The tests check behaviour, not the last kilobytes: `--converge` is left to the site
    // that is served and deployed (ADR 0021).
    dist::build(&DistOptions { base_path: "/".into(), dev, converge: false })?;
    // Browser tests that need the mock engines start their own from this binary
    // (`GEO_MOCK_BIN`), on a free port, with the faults they want.
    run_cmd(Command::new(env!("CARGO")).current_dir(&root).args(["build", "-q", "-p", "geo-mock", "--locked"]))?;
    let mock_bin = root.join("target/debug/geo-mock");
    let server = serve::start(&root.join("dist"), 0, "/")?;
    eprintln!("xtask: serving dist/ at {} (port {})", server.url, server.port);

    let mut files: Vec<PathBuf> = std::fs::read_dir(&e2e)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.ends_with(suffix)))
        .filter(|p| {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or_default();
            filter.is_empty() || filter.iter().any(|f| name.contains(f.as_str()))
        })
        .collect();
    files.sort();
    if files.is_empty() {
        bail!("no xtask/e2e/*{suffix} matches {filter:?}");
    }
    let results_dir = root.join("target/e2e-results");
    std::fs::create_dir_all(&results_dir)?;
    let busy = Busy::start(opts.busy);
    let mut rounds = Vec::new();
    for round in 1..=opts.repeat {
        if opts.repeat > 1 {
            eprintln!("xtask: e2e run {round} of {} ({} busy threads)", opts.repeat, opts.busy);
        }
        let results = results_dir.join(format!("run-{round}.ndjson"));
        let _ = std::fs::remove_file(&results);
        let mut cmd = Command::new("node");
        cmd.current_dir(&e2e)
            .arg("--test")
            .arg("--test-concurrency=1")
            .args(["--test-reporter=spec", "--test-reporter-destination=stdout"])
            .arg("--test-reporter=./results-reporter.mjs")
            .arg(format!("--test-reporter-destination={}", results.display()))
            .args(files.iter().map(|f| f.file_name().expect("listed files have names")))
            .env("BASE_URL", &server.url)
            .env("CHROMIUM", &chromium)
            .env("GEO_MOCK_BIN", &mock_bin)
            .env("FIXTURES_DIR", root.join("fixtures"));
        let status = run_cmd(&mut cmd);
        let outcomes = std::fs::read_to_string(&results).map(|t| parse_results(&t)).unwrap_or_default();
        rounds.push(Round { ok: status.is_ok(), outcomes });
    }
    drop(busy);
    eprintln!("xtask: e2e finished in {:.1} s", started.elapsed().as_secs_f64());
    let tally = tally(&rounds);
    if opts.repeat > 1 {
        print!("{}", tally_table(&tally, opts.repeat, opts.busy));
    }
    let failed_rounds = rounds.iter().filter(|r| !r.ok).count();
    if failed_rounds > 0 {
        let failing: Vec<String> =
            tally.iter().filter(|t| t.failed > 0).map(|t| format!("{} › {}", t.file, t.name)).collect();
        bail!(
            "browser tests failed in {failed_rounds} of {} run(s){}",
            opts.repeat,
            if failing.is_empty() { String::new() } else { format!(": {}", failing.join("; ")) }
        );
    }
    Ok(())
}

/// The flags of `cargo xtask e2e`.
#[derive(Debug, PartialEq)]
struct Options {
    dev: bool,
    suffix: &'static str,
    filter: Vec<String>,
    repeat: usize,
    busy: usize,
}

impl Options {
    fn parse(args: &[String]) -> Result<Options> {
        let mut o = Options { dev: false, suffix: ".test.mjs", filter: Vec::new(), repeat: 1, busy: 0 };
        let mut it = args.iter();
        while let Some(a) = it.next() {
            let mut count = |flag: &str| -> Result<usize> {
                let v = it.next().with_context(|| format!("{flag} needs a number"))?;
                v.parse().with_context(|| format!("{flag} takes a whole number, not {v:?}"))
            };
            match a.as_str() {
                "--dev" => o.dev = true,
                "--bench" => o.suffix = ".bench.mjs",
                "--repeat" => o.repeat = count("--repeat")?.max(1),
                "--busy" => o.busy = count("--busy")?,
                s if s.starts_with("--") => {
                    bail!(
                        "unknown e2e option {s:?}: use --dev, --bench, --repeat N, --busy K and/or a file-name filter"
                    )
                }
                s => o.filter.push(s.to_string()),
            }
        }
        Ok(o)
    }
}

/// `K` threads that spin until dropped: the load of `--busy K`.
struct Busy {
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    threads: Vec<std::thread::JoinHandle<()>>,
}

impl Busy {
    fn start(k: usize) -> Busy {
        use std::sync::atomic::{AtomicBool, Ordering};
        let stop = std::sync::Arc::new(AtomicBool::new(false));
        let threads = (0..k)
            .map(|_| {
                let stop = stop.clone();
                std::thread::spawn(move || {
                    let mut x = 0u64;
                    while !stop.load(Ordering::Relaxed) {
                        x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
                    }
                })
            })
            .collect();
        Busy { stop, threads }
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}

/// One run of the browser tests: whether `node --test` passed and each test's outcome.
struct Round {
    ok: bool,
    outcomes: Vec<(String, String, bool)>,
}

/// The outcomes (file, test name, passed) of the reporter's lines (`results-reporter.mjs`);
/// unreadable lines are skipped.
fn parse_results(text: &str) -> Vec<(String, String, bool)> {
    text.lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter_map(|v| {
            let name = v["name"].as_str()?.to_string();
            let file = v["file"].as_str().unwrap_or("?").to_string();
            Some((file, name, v["outcome"] == "pass"))
        })
        .collect()
}

/// A test's failures over the runs.
#[derive(Debug, PartialEq)]
struct Tally {
    file: String,
    name: String,
    runs: usize,
    failed: usize,
}

/// Every test seen in any round, in order of first appearance, with its runs and failures.
fn tally(rounds: &[Round]) -> Vec<Tally> {
    let mut out: Vec<Tally> = Vec::new();
    for r in rounds {
        for (file, name, passed) in &r.outcomes {
            let i = match out.iter().position(|t| &t.file == file && &t.name == name) {
                Some(i) => i,
                None => {
                    out.push(Tally { file: file.clone(), name: name.clone(), runs: 0, failed: 0 });
                    out.len() - 1
                }
            };
            out[i].runs += 1;
            out[i].failed += usize::from(!passed);
        }
    }
    out
}

/// The table `--repeat` prints: one line per test, its failures of its runs.
fn tally_table(tally: &[Tally], repeat: usize, busy: usize) -> String {
    let failed: usize = tally.iter().filter(|t| t.failed > 0).count();
    let mut out = format!(
        "e2e stress: {} tests × {repeat} runs with {busy} busy threads: {failed} test(s) failed at least once\n",
        tally.len()
    );
    for t in tally {
        out.push_str(&format!("{:>2} of {:>2} failed  {} › {}\n", t.failed, t.runs, t.file, t.name));
    }
    out
}

/// Names of Chrome and Chromium looked up on `PATH`, in order.
const CHROME_NAMES: &[&str] =
    &["chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome", "microsoft-edge"];

/// Where packages put Chrome or Chromium when it is not on `PATH` (Debian/Ubuntu, snap, Google's
/// `.deb`, the macOS application bundles).
const CHROME_PATHS: &[&str] = &[
    "/usr/bin/chromium",
    "/usr/bin/chromium-browser",
    "/snap/bin/chromium",
    "/usr/bin/google-chrome",
    "/opt/google/chrome/chrome",
    "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
    "/Applications/Chromium.app/Contents/MacOS/Chromium",
    "/Applications/Google Chrome for Testing.app/Contents/MacOS/Google Chrome for Testing",
];

/// An installed Chrome or Chromium, found the usual ways: the `CHROME_PATH` variable (also
/// `CHROMIUM` and `CHROME_BIN`, which CI images set), the names of [`CHROME_NAMES`] on
/// `PATH`, then the paths of [`CHROME_PATHS`] (and `~/Applications` on macOS).
pub fn find_chrome() -> Option<PathBuf> {
    let home_apps = std::env::var_os("HOME")
        .map(|h| PathBuf::from(h).join("Applications/Google Chrome.app/Contents/MacOS/Google Chrome"));
    let fixed: Vec<PathBuf> = CHROME_PATHS.iter().map(PathBuf::from).chain(home_apps).collect();
    find_chrome_with(&|v| std::env::var_os(v), std::env::var_os("PATH"), &fixed)
}

/// [`find_chrome`] over a given environment, `PATH` and fixed paths (so it can be tested).
fn find_chrome_with(
    var: &dyn Fn(&str) -> Option<std::ffi::OsString>,
    path: Option<std::ffi::OsString>,
    fixed: &[PathBuf],
) -> Option<PathBuf> {
    for name in ["CHROME_PATH", "CHROMIUM", "CHROME_BIN"] {
        if let Some(p) = var(name).map(PathBuf::from).filter(|p| p.is_file()) {
            return Some(p);
        }
    }
    let dirs: Vec<PathBuf> = path.map(|p| std::env::split_paths(&p).collect()).unwrap_or_default();
    let on_path = CHROME_NAMES.iter().find_map(|n| dirs.iter().map(|d| d.join(n)).find(|p| p.is_file()));
    on_path.or_else(|| fixed.iter().find(|p| p.is_file()).cloned())
}

/// What the browser tests need, found or installed before `cargo xtask test` starts its long
/// Rust tests: Chrome or Chromium and the npm packages of `xtask/e2e`.
pub fn preflight() -> Result<()> {
    ensure_chrome()?;
    ensure_npm_packages(&workspace_root().join("xtask/e2e"))
}

/// What to install when no browser is found, for this machine.
pub fn chrome_missing_message() -> String {
    let how = if cfg!(target_os = "macos") {
        "install Google Chrome (https://www.google.com/chrome/) or `brew install --cask chromium`"
    } else {
        "on Debian run `sudo apt-get install -y chromium`; on Ubuntu install Google Chrome's .deb \
         (`wget https://dl.google.com/linux/direct/google-chrome-stable_current_amd64.deb && sudo apt-get install -y ./google-chrome-stable_current_amd64.deb`)"
    };
    format!(
        "no Chrome or Chromium found (looked at $CHROME_PATH, {} on PATH and {}): {how}, \
         or set CHROME_PATH=/path/to/chrome",
        CHROME_NAMES.join(", "),
        CHROME_PATHS.join(", ")
    )
}

/// The browser of the tests: [`find_chrome`], else Debian's Chromium installed now with apt
/// when running as root on a machine with apt-get; otherwise an error saying what to install.
pub fn ensure_chrome() -> Result<PathBuf> {
    if let Some(p) = find_chrome() {
        eprintln!("xtask: browser {}", p.display());
        return Ok(p);
    }
    if !can_apt_install() {
        bail!("{}", chrome_missing_message());
    }
    eprintln!("xtask: no Chrome or Chromium found; installing Debian's chromium with apt-get (running as root)");
    // The CJK font only makes the screenshots readable; the tests do not depend on it.
    apt_install(&["chromium", "fonts-noto-cjk"])?;
    find_chrome()
        .with_context(|| format!("apt-get installed chromium but it was not found: {}", chrome_missing_message()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_take_repeat_busy_and_a_filter() {
        let args = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let o = Options::parse(&args(&["--repeat", "5", "--busy", "2", "a11y"])).unwrap();
        assert_eq!((o.repeat, o.busy, o.filter.clone(), o.dev), (5, 2, vec!["a11y".to_string()], false));
        assert_eq!(Options::parse(&args(&["--dev"])).unwrap().repeat, 1);
        assert!(Options::parse(&args(&["--repeat"])).is_err());
        assert!(Options::parse(&args(&["--repeat", "x"])).is_err());
        assert!(Options::parse(&args(&["--fast"])).is_err());
    }

    #[test]
    fn results_are_tallied_per_test_over_the_runs() {
        let line = |outcome: &str, name: &str| {
            format!(r#"{{"outcome":"{outcome}","file":"a.test.mjs","name":"{name}","nesting":0}}"#)
        };
        let one = parse_results(&format!("{}\n{}\nnot json\n", line("pass", "x"), line("fail", "y")));
        let two = parse_results(&format!("{}\n{}\n", line("pass", "x"), line("pass", "y")));
        let tally = tally(&[Round { ok: false, outcomes: one }, Round { ok: true, outcomes: two }]);
        assert_eq!(
            tally,
            [
                Tally { file: "a.test.mjs".into(), name: "x".into(), runs: 2, failed: 0 },
                Tally { file: "a.test.mjs".into(), name: "y".into(), runs: 2, failed: 1 },
            ]
        );
        let table = tally_table(&tally, 2, 2);
        assert!(
            table.starts_with("e2e stress: 2 tests × 2 runs with 2 busy threads: 1 test(s) failed at least once\n"),
            "{table}"
        );
        assert!(table.contains(" 1 of  2 failed  a.test.mjs › y\n"), "{table}");
    }

    #[test]
    fn chrome_is_found_by_variable_then_path_then_fixed_paths() {
        let dir = std::env::temp_dir().join(format!("xtask-chrome-{}", std::process::id()));
        let (bin, apps) = (dir.join("bin"), dir.join("apps"));
        std::fs::create_dir_all(&bin).unwrap();
        std::fs::create_dir_all(&apps).unwrap();
        let chrome = bin.join("google-chrome");
        let bundle = apps.join("Google Chrome");
        let custom = dir.join("my-chrome");
        for f in [&chrome, &bundle, &custom] {
            std::fs::write(f, "").unwrap();
        }
        let path = Some(std::env::join_paths([dir.join("empty"), bin.clone()]).unwrap());
        let none = |_: &str| None;
        assert_eq!(find_chrome_with(&none, path.clone(), std::slice::from_ref(&bundle)), Some(chrome.clone()));
        assert_eq!(find_chrome_with(&none, None, &[dir.join("missing"), bundle.clone()]), Some(bundle.clone()));
        assert_eq!(find_chrome_with(&none, None, &[dir.join("missing")]), None);
        let set = |v: &str| (v == "CHROME_PATH").then(|| custom.clone().into_os_string());
        assert_eq!(find_chrome_with(&set, path.clone(), std::slice::from_ref(&bundle)), Some(custom.clone()));
        // A variable naming no file is passed over.
        let stale = |v: &str| (v == "CHROME_PATH").then(|| dir.join("gone").into_os_string());
        assert_eq!(find_chrome_with(&stale, path, &[]), Some(chrome));
        let _ = std::fs::remove_dir_all(&dir);
        assert!(chrome_missing_message().contains("CHROME_PATH"));
    }
}
