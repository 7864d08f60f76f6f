//! `cargo xtask bench-first-visit [--rounds N] [--dev]`: how fast the site is for a first
//! visitor and for one coming back (issue 39), on a slow connection.
//!
//! The measure, as the issue states it: a fresh browser profile (cold cache, empty storage)
//! under network emulation of 5 Mbps down, 1 Mbps up and 150 ms latency, the site served
//! gzip-encoded as GitHub Pages serves it; the time from navigation start to the
//! dashboard's `metric-mention-rate` carrying its value, median of three; the bytes
//! transferred before it; the same on a return visit. Targets: ≤ 2,000 ms and ≤ 750 KB
//! (1 KB = 1,024 bytes, as `cargo xtask dist` prints sizes), a return visit < 1,000 ms.
//!
//! Steps: build the site as `cargo xtask dist` does (release wasm and `wasm-opt`; `--dev`: the
//! debug build, to check the bench itself quickly), serve it on a free loopback port with
//! [`Caching::Pages`] (gzip, `max-age=600`, `ETag`), and run `xtask/e2e/first-visit.mjs`
//! (Chromium through playwright-core, a fresh context per round, CDP's network emulation),
//! which writes every round's raw figures to `target/bench-first-visit/rounds.json`. This
//! file turns them into the printed figures: per round and as medians, the bytes before the
//! figure, where the time went ([`phases`]: the page, the wasm download, compile and
//! instantiate, the app's start, storage, the demo's fetch, its first view, and its parse,
//! analysis and write when they came before the figure, the dashboard's figures), the demo's
//! fetch and seeding after the figure ([`after_figure`]), and each target met or missed. It exits 0 either way: a benchmark,
//! not a timed test; the figures are the result.

use anyhow::{bail, Context, Result};
use serde_json::Value;
use std::process::Command;

use crate::bench::median;
use crate::dist::{self, DistOptions};
use crate::e2e::ensure_chrome;
use crate::npm::ensure_npm_packages;
use crate::serve::{self, Caching};
use crate::sys::{run_cmd, workspace_root};

/// Rounds by default: the issue's median of three.
const ROUNDS: usize = 3;
/// Issue 39's targets: first visit to the first figure, bytes before it, return visit.
const TARGET_FIRST_MS: f64 = 2000.0;
const TARGET_BYTES: f64 = 750.0 * 1024.0;
const TARGET_RETURN_MS: f64 = 1000.0;

/// Entry point of `cargo xtask bench-first-visit`.
pub fn run(args: &[String]) -> Result<()> {
    let opts = Options::parse(args)?;
    let chromium = ensure_chrome()?;
    let root = workspace_root();
    let e2e = root.join("xtask/e2e");
    ensure_npm_packages(&e2e)?;
    dist::build(&DistOptions { base_path: "/".into(), dev: opts.dev, converge: true })?;
    let server = serve::start_with(&root.join("dist"), 0, "/", Caching::Pages)?;
    let started = std::time::Instant::now();
    let files = server.precompress()?;
    eprintln!(
        "xtask: serving dist/ as GitHub Pages does (gzip, max-age=600) at {} ({files} files compressed in {:.1} s, before the first round)",
        server.url,
        started.elapsed().as_secs_f64()
    );
    let dir = root.join("target/bench-first-visit");
    std::fs::create_dir_all(&dir)?;
    let out = dir.join("rounds.json");
    let _ = std::fs::remove_file(&out);
    run_cmd(
        Command::new("node")
            .current_dir(&e2e)
            .arg("first-visit.mjs")
            .env("BASE_URL", &server.url)
            .env("CHROMIUM", &chromium)
            .env("ROUNDS", opts.rounds.to_string())
            .env("OUT", &out),
    )?;
    let text = std::fs::read_to_string(&out).with_context(|| format!("first-visit.mjs wrote no {}", out.display()))?;
    let rounds = parse_rounds(&text)?;
    if opts.dev {
        println!(
            "bench-first-visit --dev: the debug build, not the optimised site: these figures only check the bench"
        );
    }
    print!("{}", report(&rounds));
    Ok(())
}

/// The flags of `cargo xtask bench-first-visit`.
#[derive(Debug, PartialEq)]
struct Options {
    rounds: usize,
    dev: bool,
}

impl Options {
    fn parse(args: &[String]) -> Result<Options> {
        let mut o = Options { rounds: ROUNDS, dev: false };
        let mut it = args.iter();
        while let Some(a) = it.next() {
            match a.as_str() {
                "--dev" => o.dev = true,
                "--rounds" => {
                    let v = it.next().context("--rounds needs a number")?;
                    o.rounds = v.parse().with_context(|| format!("--rounds takes a whole number, not {v:?}"))?;
                    if o.rounds == 0 {
                        bail!("--rounds takes a number of at least 1");
                    }
                }
                other => bail!("unknown bench-first-visit option {other:?}: use --rounds N and/or --dev"),
            }
        }
        Ok(o)
    }
}

/// One response of a visit: bytes on the wire and when it finished (ms after navigation start).
#[derive(Debug, Clone, PartialEq)]
struct Response {
    url: String,
    bytes: f64,
    end: f64,
}

/// One visit's raw figures, on the page's clock (ms after navigation start).
#[derive(Debug, Clone, PartialEq, Default)]
struct Visit {
    /// When `metric-mention-rate` first carried its value.
    figure: f64,
    /// The wasm module's request start and response end, and its bytes (encoded body, and
    /// transferred: 0 from the HTTP cache).
    wasm: Option<(f64, f64, f64, f64)>,
    /// The marks `geo:start` and `geo:first-render`.
    start: Option<f64>,
    first_render: Option<f64>,
    /// The measures `geo:demo-fetch`, `-parse`, `-analyse`, `-write`: (start, end).
    demo: [Option<(f64, f64)>; 4],
    /// The measure `geo:first-view`: the demo's first view fetched and checked (issue 39).
    first_view: Option<(f64, f64)>,
    responses: Vec<Response>,
    errors: Vec<String>,
}

/// A round: the first visit and the return visit in the same context.
#[derive(Debug, Clone, PartialEq)]
struct Round {
    first: Visit,
    again: Visit,
}

fn parse_visit(v: &Value) -> Result<Visit> {
    let figure = v["figure"].as_f64().context("a visit without its figure time")?;
    let wasm = v["wasm"].as_object().map(|w| {
        let n = |k: &str| w.get(k).and_then(Value::as_f64).unwrap_or(0.0);
        (n("start"), n("end"), n("encoded"), n("transfer"))
    });
    let span = |name: &str| {
        let s = &v["measures"][name];
        Some((s[0].as_f64()?, s[1].as_f64()?))
    };
    let responses = v["responses"]
        .as_array()
        .context("a visit without its responses")?
        .iter()
        .map(|r| Response {
            url: r["url"].as_str().unwrap_or_default().to_string(),
            bytes: r["bytes"].as_f64().unwrap_or(0.0),
            end: r["end"].as_f64().unwrap_or(f64::INFINITY),
        })
        .collect();
    Ok(Visit {
        figure,
        wasm,
        start: v["marks"]["geo:start"].as_f64(),
        first_render: v["marks"]["geo:first-render"].as_f64(),
        demo: ["geo:demo-fetch", "geo:demo-parse", "geo:demo-analyse", "geo:demo-write"].map(span),
        first_view: span("geo:first-view"),
        responses,
        errors: v["errors"].as_array().into_iter().flatten().filter_map(|e| e.as_str().map(String::from)).collect(),
    })
}

/// The rounds of `first-visit.mjs`'s output.
fn parse_rounds(text: &str) -> Result<Vec<Round>> {
    let v: Value = serde_json::from_str(text).context("first-visit.mjs wrote something that is not JSON")?;
    let rounds = v["rounds"].as_array().context("first-visit.mjs wrote no rounds")?;
    if rounds.is_empty() {
        bail!("first-visit.mjs measured no round");
    }
    rounds.iter().map(|r| Ok(Round { first: parse_visit(&r["first"])?, again: parse_visit(&r["again"])? })).collect()
}

/// Bytes of the responses that finished before the figure showed.
fn bytes_before(v: &Visit) -> f64 {
    v.responses.iter().filter(|r| r.end <= v.figure).map(|r| r.bytes).fold(0.0, |a, b| a + b)
}

/// How many responses finished before the figure showed.
fn responses_before(v: &Visit) -> usize {
    v.responses.iter().filter(|r| r.end <= v.figure).count()
}

/// The names of [`phases`], in order.
const PHASES: [&str; 11] = [
    "page",
    "wasm download",
    "compile + instantiate",
    "app start",
    "storage",
    "demo fetch",
    "first view",
    "demo parse",
    "demo analyse",
    "demo write",
    "figures",
];

/// Where a visit's time went, in order from navigation start to the figure; each phase ends
/// at a moment of the visit:
/// the page (HTML and what precedes the module's request), the wasm download (the module's
/// response; its compile streams meanwhile), compile + instantiate (the rest, until
/// `geo:start`), the app's start (until its first render, `geo:first-render`), storage
/// (opening IndexedDB and the demo decision, until the demo's first file is asked for: its
/// first view on a page that names the demo's fingerprint, the demo file on one that does
/// not), the demo's fetch (`geo:demo-fetch`) when it ended before the figure, its first view
/// (`geo:first-view`: fetched and checked), the demo's parse, analysis and write
/// (`geo:demo-*`) when they ended before the figure (without a first view that fits), and
/// the figures (reading the run and rendering the dashboard, until the figure shows). A moment the visit did not have (no demo on a return visit, a
/// seeding after the figure) leaves its phase out: its time counts in the next phase. The
/// phases add up to the figure's time; a moment earlier than the one before counts 0.
fn phases(v: &Visit) -> Vec<(&'static str, f64)> {
    let [fetch, parse, analyse, write] = v.demo.map(|s| s.filter(|s| s.1 <= v.figure));
    let asked = [fetch.map(|s| s.0), v.first_view.map(|s| s.0)].into_iter().flatten().reduce(f64::min);
    let moments = [
        v.wasm.map(|w| w.0),
        v.wasm.map(|w| w.1),
        v.start,
        v.first_render,
        asked,
        fetch.map(|s| s.1),
        v.first_view.map(|s| s.1),
        parse.map(|s| s.1),
        analyse.map(|s| s.1),
        write.map(|s| s.1),
        Some(v.figure),
    ];
    let mut at = 0.0f64;
    let mut out = Vec::new();
    for (name, moment) in PHASES.iter().zip(moments) {
        if let Some(t) = moment {
            let end = t.min(v.figure).max(at);
            out.push((*name, end - at));
            at = end;
        }
    }
    out
}

/// The four parts of issue 39's "where the time goes", each the sum of its [`phases`]:
/// download (the page and the wasm module), compile (and instantiate), demo seeding (what of
/// the demo came before the figure: its fetch, its first view, and its parse, analysis and
/// write when they did) and first render (the app's start, storage, the figures).
fn groups(phases: &[(&str, f64)]) -> [(&'static str, f64); 4] {
    let sum =
        |names: &[&str]| phases.iter().filter(|(n, _)| names.contains(n)).map(|(_, t)| *t).fold(0.0, |a, b| a + b);
    [
        ("download", sum(&["page", "wasm download"])),
        ("compile", sum(&["compile + instantiate"])),
        ("demo seeding", sum(&["demo fetch", "first view", "demo parse", "demo analyse", "demo write"])),
        ("first render", sum(&["app start", "storage", "figures"])),
    ]
}

/// What of the demo came after the figure (the first view was shown).
#[derive(Debug, Clone, Copy, PartialEq)]
struct AfterFigure {
    /// The demo file's fetch, when it ended after the figure (a page that names the demo's
    /// fingerprint fetches it only then).
    fetch: Option<f64>,
    /// Its parse, analysis and write.
    seeding: f64,
    /// When it was stored (ms after navigation start).
    stored: f64,
}

/// The demo's seeding when it ended after the figure (the first view was shown): how long its
/// fetch (when that came after the figure too) and its parse, analysis and write took, and
/// when it was stored.
fn after_figure(v: &Visit) -> Option<AfterFigure> {
    let [fetch, parse, _, write] = v.demo;
    let (parse, write) = (parse?, write?);
    let fetch = fetch.filter(|s| s.1 > v.figure).map(|s| s.1 - s.0);
    (write.1 > v.figure).then_some(AfterFigure { fetch, seeding: write.1 - parse.0, stored: write.1 })
}

/// `demo fetch 50 ms, seeding 350 ms` or, without a fetch after the figure, `demo seeding 350 ms`.
fn after_figure_line(fetch: Option<f64>, seeding: f64) -> String {
    match fetch {
        Some(fetch) => format!("demo fetch {}, seeding {}", ms(fetch), ms(seeding)),
        None => format!("demo seeding {}", ms(seeding)),
    }
}

/// The difference between the module's end on the page's clock (Resource Timing) and on the
/// network's (CDP, moved onto the page's clock): how far the bytes' cut-off can be off.
fn clock_skew(v: &Visit) -> Option<f64> {
    let (_, end, _, _) = v.wasm?;
    let network = v.responses.iter().find(|r| r.url.ends_with(".wasm"))?.end;
    Some(network - end)
}

/// `1234.4` → `1,234`: whole milliseconds with thousands separators.
fn ms(v: f64) -> String {
    let n = v.round() as i64;
    let digits = n.unsigned_abs().to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    if n < 0 {
        out.insert(0, '-');
    }
    format!("{out} ms")
}

/// Bytes as KB of 1,024 with one decimal.
fn kb(bytes: f64) -> String {
    format!("{:.1} KB", bytes / 1024.0)
}

/// One line of where a visit's time went: `page 312 ms · wasm download 2,100 ms · …`.
fn phase_line(phases: &[(&str, f64)]) -> String {
    phases.iter().map(|(name, t)| format!("{name} {}", ms(*t))).collect::<Vec<_>>().join(" · ")
}

/// Each phase's median over the visits that had it, in [`PHASES`] order.
fn median_phases(visits: &[&Visit]) -> Vec<(&'static str, f64)> {
    let all: Vec<Vec<(&str, f64)>> = visits.iter().map(|v| phases(v)).collect();
    PHASES
        .iter()
        .filter_map(|name| {
            let values: Vec<f64> =
                all.iter().filter_map(|p| p.iter().find(|(n, _)| n == name).map(|(_, t)| *t)).collect();
            (!values.is_empty()).then(|| (*name, median(&values)))
        })
        .collect()
}

/// Each of the [`groups`]' median over the visits.
fn median_groups(visits: &[&Visit]) -> Vec<(&'static str, f64)> {
    let all: Vec<[(&str, f64); 4]> = visits.iter().map(|v| groups(&phases(v))).collect();
    (0..4).map(|i| (all[0][i].0, median(&all.iter().map(|g| g[i].1).collect::<Vec<_>>()))).collect()
}

/// A visit's line in a round: its time, its bytes and the module's.
fn visit_line(what: &str, v: &Visit) -> String {
    let wasm = match v.wasm {
        Some((start, end, _, transfer)) if transfer > 0.0 => {
            format!("; the module {} on the wire in {}", kb(transfer), ms(end - start))
        }
        Some(_) => "; the module from the HTTP cache".to_string(),
        None => String::new(),
    };
    let phases = phases(v);
    let after = match after_figure(v) {
        Some(a) => format!(
            "    after the figure: {} (parse, analyse, write), stored at {}\n",
            after_figure_line(a.fetch, a.seeding),
            ms(a.stored)
        ),
        None => String::new(),
    };
    format!(
        "  {what}: {} to the first figure, {} in {} responses before it{wasm}\n    {}\n    = {}\n{after}",
        ms(v.figure),
        kb(bytes_before(v)),
        responses_before(v),
        phase_line(&phases),
        phase_line(&groups(&phases))
    )
}

/// A median against its target: `  label   value   target ≤ …   met` (or `MISSED`).
fn target_line(label: &str, value: String, target: &str, met: bool) -> String {
    format!("  {label:<32} {value:>12}   target {target:<12} {}\n", if met { "met" } else { "MISSED" })
}

/// Everything the bench prints: each round, then the medians against the targets.
fn report(rounds: &[Round]) -> String {
    let mut out = format!(
        "bench-first-visit: {} round(s), each a fresh browser context; 5 Mbps down, 1 Mbps up, 150 ms latency; \
         gzip, max-age=600 and ETag as GitHub Pages serves\n",
        rounds.len()
    );
    for (i, r) in rounds.iter().enumerate() {
        out.push_str(&format!("round {}\n", i + 1));
        out.push_str(&visit_line("first visit", &r.first));
        out.push_str(&visit_line("return visit", &r.again));
        for (what, v) in [("first", &r.first), ("return", &r.again)] {
            if !v.errors.is_empty() {
                out.push_str(&format!("    page errors on the {what} visit: {}\n", v.errors.join(" | ")));
            }
            if let Some(skew) = clock_skew(v).filter(|s| s.abs() > 50.0) {
                out.push_str(&format!(
                    "    note: the {what} visit's network and page clocks differ by {} at the module\n",
                    ms(skew)
                ));
            }
        }
    }
    let firsts: Vec<&Visit> = rounds.iter().map(|r| &r.first).collect();
    let agains: Vec<&Visit> = rounds.iter().map(|r| &r.again).collect();
    let first = median(&firsts.iter().map(|v| v.figure).collect::<Vec<_>>());
    let bytes = median(&firsts.iter().map(|v| bytes_before(v)).collect::<Vec<_>>());
    let again = median(&agains.iter().map(|v| v.figure).collect::<Vec<_>>());
    let again_bytes = median(&agains.iter().map(|v| bytes_before(v)).collect::<Vec<_>>());
    out.push_str(&format!("medians of {} round(s) (each phase's median alone: they need not add up)\n", rounds.len()));
    for (what, visits) in [("first visit: ", &firsts), ("return visit:", &agains)] {
        out.push_str(&format!("  {what} {}\n", phase_line(&median_phases(visits))));
        out.push_str(&format!("                = {}\n", phase_line(&median_groups(visits))));
    }
    let after: Vec<AfterFigure> = firsts.iter().filter_map(|v| after_figure(v)).collect();
    if !after.is_empty() {
        let fetches: Vec<f64> = after.iter().filter_map(|a| a.fetch).collect();
        out.push_str(&format!(
            "  first visit, after the figure: {}, stored at {} ({} of {} visits)\n",
            after_figure_line(
                (!fetches.is_empty()).then(|| median(&fetches)),
                median(&after.iter().map(|a| a.seeding).collect::<Vec<_>>())
            ),
            ms(median(&after.iter().map(|a| a.stored).collect::<Vec<_>>())),
            after.len(),
            firsts.len()
        ));
    }
    out.push_str(&target_line(
        "first visit to the first figure",
        ms(first),
        &format!("≤ {}", ms(TARGET_FIRST_MS)),
        first <= TARGET_FIRST_MS,
    ));
    out.push_str(&target_line("bytes before it", kb(bytes), &format!("≤ {}", kb(TARGET_BYTES)), bytes <= TARGET_BYTES));
    out.push_str(&target_line(
        "return visit",
        ms(again),
        &format!("< {}", ms(TARGET_RETURN_MS)),
        again < TARGET_RETURN_MS,
    ));
    out.push_str(&format!("  (the return visit's bytes before its figure: {})\n", kb(again_bytes)));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn options_take_rounds_and_dev() {
        assert_eq!(Options::parse(&[]).unwrap(), Options { rounds: 3, dev: false });
        assert_eq!(Options::parse(&args(&["--rounds", "5", "--dev"])).unwrap(), Options { rounds: 5, dev: true });
        assert!(Options::parse(&args(&["--rounds"])).is_err());
        assert!(Options::parse(&args(&["--rounds", "0"])).is_err());
        assert!(Options::parse(&args(&["--rounds", "x"])).is_err());
        assert!(Options::parse(&args(&["--fast"])).is_err());
    }

    #[test]
    fn the_median_of_odd_and_even_counts() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), 2.5);
        assert_eq!(median(&[7.0]), 7.0);
        assert!(median(&[]).is_nan());
    }

    #[test]
    fn figures_are_formatted_as_the_report_prints_them() {
        assert_eq!(ms(1234.4), "1,234 ms");
        assert_eq!(ms(999.5), "1,000 ms");
        assert_eq!(ms(12.0), "12 ms");
        assert_eq!(ms(1_234_567.0), "1,234,567 ms");
        assert_eq!(ms(-1500.0), "-1,500 ms");
        assert_eq!(kb(768_000.0), "750.0 KB");
        assert_eq!(kb(0.0), "0.0 KB");
    }

    /// A first visit: the module requested at 300 ms and in at 2,300, started at 2,400,
    /// rendered at 2,450; the demo fetched 2,500–2,800, parsed by 2,850, analysed by 3,050,
    /// written by 3,150; the figure at 3,400.
    fn first_visit() -> Visit {
        Visit {
            figure: 3400.0,
            wasm: Some((300.0, 2300.0, 1_000_000.0, 1_000_300.0)),
            start: Some(2400.0),
            first_render: Some(2450.0),
            demo: [Some((2500.0, 2800.0)), Some((2800.0, 2850.0)), Some((2850.0, 3050.0)), Some((3060.0, 3150.0))],
            first_view: None,
            responses: vec![
                Response { url: "http://127.0.0.1:1/".into(), bytes: 1000.0, end: 200.0 },
                Response { url: "http://127.0.0.1:1/geo_web_bg-1.wasm".into(), bytes: 1_000_300.0, end: 2310.0 },
                Response { url: "http://127.0.0.1:1/demo/demo-data.json".into(), bytes: 30_000.0, end: 2790.0 },
                Response { url: "http://127.0.0.1:1/favicon.svg".into(), bytes: 500.0, end: 3400.0 },
                Response { url: "http://127.0.0.1:1/late.js".into(), bytes: 9_999.0, end: 3400.5 },
            ],
            errors: vec![],
        }
    }

    #[test]
    fn only_responses_finished_by_the_figure_count() {
        let v = first_visit();
        assert_eq!(bytes_before(&v), 1000.0 + 1_000_300.0 + 30_000.0 + 500.0);
        assert_eq!(responses_before(&v), 4);
        assert_eq!(clock_skew(&v), Some(10.0));
    }

    /// The phases of [`first_visit`] up to the demo's fetch, then `rest`.
    fn after_the_demo_fetch(rest: &[(&'static str, f64)]) -> Vec<(&'static str, f64)> {
        let start = [
            ("page", 300.0),
            ("wasm download", 2000.0),
            ("compile + instantiate", 100.0),
            ("app start", 50.0),
            ("storage", 50.0),
            ("demo fetch", 300.0),
        ];
        start.iter().chain(rest).copied().collect()
    }

    #[test]
    fn the_phases_run_from_navigation_start_to_the_figure() {
        let v = first_visit();
        let got = phases(&v);
        assert_eq!(
            got,
            after_the_demo_fetch(&[
                ("demo parse", 50.0),
                ("demo analyse", 200.0),
                ("demo write", 100.0),
                ("figures", 250.0)
            ])
        );
        assert_eq!(got.iter().map(|(_, t)| t).sum::<f64>(), v.figure);
        // A return visit has no demo: its storage and reading count as the figures' phase.
        let again = Visit {
            demo: [None; 4],
            figure: 600.0,
            wasm: Some((20.0, 40.0, 0.0, 0.0)),
            start: Some(200.0),
            first_render: Some(230.0),
            ..v.clone()
        };
        assert_eq!(
            phases(&again),
            [
                ("page", 20.0),
                ("wasm download", 20.0),
                ("compile + instantiate", 160.0),
                ("app start", 30.0),
                ("figures", 370.0)
            ]
        );
        // Without marks (an app that sets none) the time after the module is one phase; a
        // moment out of order counts 0 and never makes the sum differ from the figure.
        let bare = Visit { start: None, first_render: Some(100.0), demo: [None; 4], ..v.clone() };
        let p = phases(&bare);
        assert_eq!(p[2], ("app start", 0.0));
        assert_eq!(p.iter().map(|(_, t)| t).sum::<f64>(), 3400.0);
        assert_eq!(after_figure(&v), None);
    }

    #[test]
    fn a_seeding_after_the_figure_is_told_apart() {
        // The first view fetched and checked 2,800–2,830, the figure at 2,900, then the demo
        // parsed from 2,950 and stored at 3,300.
        let v = Visit {
            figure: 2900.0,
            first_view: Some((2800.0, 2830.0)),
            demo: [Some((2500.0, 2800.0)), Some((2950.0, 3000.0)), Some((3000.0, 3200.0)), Some((3210.0, 3300.0))],
            ..first_visit()
        };
        let got = phases(&v);
        assert_eq!(got, after_the_demo_fetch(&[("first view", 30.0), ("figures", 70.0)]));
        assert_eq!(got.iter().map(|(_, t)| t).sum::<f64>(), v.figure);
        assert_eq!(groups(&got)[2], ("demo seeding", 330.0));
        assert_eq!(after_figure(&v), Some(AfterFigure { fetch: None, seeding: 350.0, stored: 3300.0 }));
        let report = report(&[Round { first: v.clone(), again: v }]);
        assert!(
            report.contains("    after the figure: demo seeding 350 ms (parse, analyse, write), stored at 3,300 ms\n"),
            "{report}"
        );
        assert!(
            report
                .contains("  first visit, after the figure: demo seeding 350 ms, stored at 3,300 ms (1 of 1 visits)\n"),
            "{report}"
        );
    }

    #[test]
    fn a_demo_file_fetched_after_the_figure_is_left_out_of_its_time_and_bytes() {
        // A page that names the demo's fingerprint: the first view asked for at 2,500 and
        // checked by 2,530, the figure at 2,600; only then the demo file, fetched 2,650–2,700
        // (in at 2,690 on the network's clock), parsed from 2,700 and stored at 3,050.
        let mut v = Visit {
            figure: 2600.0,
            first_view: Some((2500.0, 2530.0)),
            demo: [Some((2650.0, 2700.0)), Some((2700.0, 2750.0)), Some((2750.0, 2950.0)), Some((2960.0, 3050.0))],
            ..first_visit()
        };
        v.responses[2].end = 2690.0;
        v.responses.retain(|r| r.end <= 2600.0 || r.url.ends_with("demo-data.json"));
        let got = phases(&v);
        assert_eq!(
            got,
            [
                ("page", 300.0),
                ("wasm download", 2000.0),
                ("compile + instantiate", 100.0),
                ("app start", 50.0),
                ("storage", 50.0),
                ("first view", 30.0),
                ("figures", 70.0)
            ]
        );
        assert_eq!(got.iter().map(|(_, t)| t).sum::<f64>(), v.figure);
        assert_eq!(groups(&got)[2], ("demo seeding", 30.0));
        assert_eq!(bytes_before(&v), 1000.0 + 1_000_300.0, "the demo file's 30,000 bytes came after the figure");
        assert_eq!(after_figure(&v), Some(AfterFigure { fetch: Some(50.0), seeding: 350.0, stored: 3050.0 }));
        let report = report(&[Round { first: v.clone(), again: v }]);
        assert!(
            report.contains(
                "    after the figure: demo fetch 50 ms, seeding 350 ms (parse, analyse, write), stored at 3,050 ms\n"
            ),
            "{report}"
        );
        assert!(
            report.contains(
                "  first visit, after the figure: demo fetch 50 ms, seeding 350 ms, stored at 3,050 ms (1 of 1 visits)\n"
            ),
            "{report}"
        );
    }

    /// The JSON of one visit as first-visit.mjs writes it.
    fn visit_json(figure: f64, demo: bool) -> String {
        let measures = if demo {
            r#""geo:demo-fetch":[2500,2800],"geo:demo-parse":[2800,2850],"geo:demo-analyse":[2850,3050],"geo:demo-write":[3060,3150]"#
        } else {
            r#""geo:demo-fetch":null,"geo:demo-parse":null,"geo:demo-analyse":null,"geo:demo-write":null"#
        };
        format!(
            r#"{{"figure":{figure},"timeOrigin":1e12,"wasm":{{"start":300,"end":2300,"encoded":1000000,"transfer":1000300}},
            "marks":{{"geo:start":2400,"geo:first-render":2450}},"measures":{{{measures}}},
            "responses":[{{"url":"http://x/a.wasm","bytes":1000300,"end":2310}},{{"url":"http://x/late","bytes":5,"end":{}}}],
            "errors":["boom"]}}"#,
            figure + 1.0
        )
    }

    #[test]
    fn the_report_gives_each_round_the_medians_and_the_targets() {
        let text = format!(
            r#"{{"network":{{}},"rounds":[{{"first":{},"again":{}}},{{"first":{},"again":{}}},{{"first":{},"again":{}}}]}}"#,
            visit_json(3400.0, true),
            visit_json(600.0, false),
            visit_json(1900.0, true),
            visit_json(900.0, false),
            visit_json(5000.0, true),
            visit_json(1200.0, false)
        );
        let rounds = parse_rounds(&text).unwrap();
        assert_eq!(rounds.len(), 3);
        assert_eq!(rounds[0].first.demo[3], Some((3060.0, 3150.0)));
        assert_eq!(rounds[0].again.demo, [None; 4]);
        assert_eq!(rounds[0].first.errors, ["boom"]);
        let report = report(&rounds);
        assert!(report.contains("round 3\n"), "{report}");
        assert!(report.contains("  first visit: 3,400 ms to the first figure, 976.9 KB in 1 responses before it; the module 976.9 KB on the wire in 2,000 ms\n"), "{report}");
        assert!(report.contains("    page 300 ms · wasm download 2,000 ms · compile + instantiate 100 ms"), "{report}");
        assert!(
            report.contains("    = download 2,300 ms · compile 100 ms · demo seeding 650 ms · first render 350 ms\n"),
            "{report}"
        );
        assert!(report.contains("page errors on the first visit: boom"), "{report}");
        // Each group's median alone: round 2's figure came before its module was in.
        assert!(
            report.contains(
                "\n                = download 2,300 ms · compile 100 ms · demo seeding 650 ms · first render 350 ms\n"
            ),
            "{report}"
        );
        // Medians: first visits 1,900 / 3,400 / 5,000 → 3,400; returns 600 / 900 / 1,200 → 900.
        assert!(
            report.contains("  first visit to the first figure      3,400 ms   target ≤ 2,000 ms   MISSED\n"),
            "{report}"
        );
        assert!(
            report.contains("  bytes before it                      976.9 KB   target ≤ 750.0 KB   MISSED\n"),
            "{report}"
        );
        assert!(
            report.contains("  return visit                           900 ms   target < 1,000 ms   met\n"),
            "{report}"
        );
        assert!(report.ends_with("  (the return visit's bytes before its figure: 0.0 KB)\n"), "{report}");
        assert!(parse_rounds(r#"{"rounds":[]}"#).is_err());
        assert!(parse_rounds("not json").is_err());
    }
}
