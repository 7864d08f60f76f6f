//! Benchmark: what "What the answers say" (`analysis::claims`, rules 1–6) costs inside
//! `analyze`, on the 5,040 probes of `cargo xtask bench-analyze`'s export. Target: the claims
//! step stays under 15 % of analyze's time.
//!
//! The probes are that export's, made here without the mock: prompts p01–p21 of
//! `fixtures/project.json` answered by their recorded responses `fixtures/responses/01…21_…`
//! (the mock's mapping), two repeats each, the run copied 120 times (42 × 120 = 5,040); a
//! response without an answer is an `empty` probe, as the runner records it. The run carries the
//! fixture project's starter fact sheet (its `factSnapshot`).
//!
//! The criterion group times, per pass over the 5,040 probes: `analyze` with the fact sheet,
//! `analyze` without one (the built-in risk cues still run), and the claims step alone
//! (`claims::derive` on the analysed probes, as `analyze` calls it). After it, one run of
//! interleaved rounds (analyze, claims, analyze, claims, …) prints both medians and their ratio,
//! so that the ratio comes from one measurement on one machine state. Not a test: a speed
//! target is a benchmark, never a timed test.

mod support;

use std::hint::black_box;
use std::time::Instant;

use criterion::Criterion;
use geo_core::analysis::claims::{derive, FactRules};
use geo_core::analysis::RunAnalyzer;
use geo_core::model::{EngineId, ExportEnvelope, FactSnapshot, Probe, ProbeStatus, Target};
use geo_core::provider::parse_engine_response;
use support::{raw_probe, Place};

/// Copies of the 42-probe run, as in `xtask/src/bench.rs`.
const COPIES: usize = 120;
/// Repeats per prompt.
const REPEATS: usize = 2;
/// Prompts p01–p21.
const PROMPTS: usize = 21;
/// Interleaved rounds of the ratio.
const ROUNDS: usize = 15;

/// The fixture project's targets and fact sheet, and the 5,040 probes (raw results only).
fn bench_probes() -> (Vec<Target>, FactSnapshot, Vec<Probe>) {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures");
    let env: ExportEnvelope =
        serde_json::from_str(&std::fs::read_to_string(format!("{root}/project.json")).unwrap()).unwrap();
    let project = &env.projects[0];
    let sheet = project.fact_snapshot().expect("the fixture project has a fact sheet");
    let mut bodies: Vec<_> = std::fs::read_dir(format!("{root}/responses"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.extension().is_some_and(|e| e == "json")
                && p.file_name().unwrap().to_string_lossy().as_bytes()[0].is_ascii_digit()
        })
        .collect();
    bodies.sort();
    bodies.truncate(PROMPTS);
    let mut probes = Vec::with_capacity(COPIES * PROMPTS * REPEATS);
    for copy in 0..COPIES {
        for (n, path) in bodies.iter().enumerate() {
            let parsed = parse_engine_response(
                geo_core::model::EngineId::Deepseek,
                &std::fs::read_to_string(path).unwrap(),
                "deepseek-v4-flash",
            )
            .ok();
            for repeat in 0..REPEATS {
                let run = format!("run_bench__c{copy:03}");
                let prompt = format!("p{:02}", n + 1);
                let answered = parsed.as_ref().is_some_and(|p| !p.raw_answer.trim().is_empty());
                let status = if answered { ProbeStatus::Success } else { ProbeStatus::Empty };
                let id = format!("{run}__{prompt}__{repeat}");
                let place = Place { id, run, project: project.id.clone(), prompt, repeat: repeat as u32 };
                probes.push(raw_probe(place, status, parsed.clone().unwrap_or_default()));
            }
        }
    }
    (project.targets(), sheet, probes)
}

/// `analyze` over every probe.
fn analyze_all(analyzer: &RunAnalyzer<'_>, probes: &mut [Probe]) {
    for p in probes.iter_mut() {
        analyzer.analyze(black_box(p));
    }
}

/// The claims step alone over every (analysed) probe, as `analyze` runs it: successful probes
/// only. Returns the number of claims and flags, so nothing is optimised away.
fn claims_all(rules: &FactRules<'_>, probes: &[Probe]) -> usize {
    let mut found = 0;
    for p in probes.iter().filter(|p| p.status == ProbeStatus::Success) {
        let f = derive(black_box(&p.answer), rules, &p.sources, p.raw_citations.as_deref());
        found += f.claims.len() + f.risk_flags.len();
    }
    found
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

fn main() {
    let (targets, sheet, mut probes) = bench_probes();
    let with_sheet = RunAnalyzer::with_facts(&targets, Some(&sheet), EngineId::Deepseek);
    let without = RunAnalyzer::with_facts(&targets, None, EngineId::Deepseek);
    let rules = FactRules::new(&targets, Some(&sheet), EngineId::Deepseek);
    analyze_all(&with_sheet, &mut probes);
    let successes = probes.iter().filter(|p| p.status == ProbeStatus::Success).count();
    let claims: usize = probes.iter().map(|p| p.claims.len()).sum();
    let flags: usize = probes.iter().map(|p| p.risk_flags.len()).sum();
    eprintln!("{} probes ({successes} successful): {claims} claims, {flags} risk flags", probes.len());

    let mut c = Criterion::default().configure_from_args();
    let mut group = c.benchmark_group("claims_5040_probes");
    group.sample_size(10);
    group.bench_function("analyze_with_fact_sheet", |b| b.iter(|| analyze_all(&with_sheet, &mut probes)));
    group.bench_function("analyze_without_fact_sheet", |b| b.iter(|| analyze_all(&without, &mut probes)));
    analyze_all(&with_sheet, &mut probes);
    group.bench_function("claims_step", |b| b.iter(|| claims_all(&rules, &probes)));
    group.finish();

    // The ratio, measured in one run: rounds interleaved so that a machine that speeds up or
    // slows down affects both alike.
    let (mut analyze, mut step) = (Vec::new(), Vec::new());
    for _ in 0..ROUNDS {
        let t = Instant::now();
        analyze_all(&with_sheet, &mut probes);
        analyze.push(t.elapsed().as_secs_f64());
        let t = Instant::now();
        black_box(claims_all(&rules, &probes));
        step.push(t.elapsed().as_secs_f64());
    }
    let ratios: Vec<f64> = step.iter().zip(&analyze).map(|(s, a)| s / a).collect();
    let (a, s) = (median(analyze), median(step));
    println!(
        "claims step / analyze over {} probes, {ROUNDS} interleaved rounds: analyze (fact sheet) median {:.1} ms, \
         claims step median {:.1} ms, ratio {:.1} % (medians), {:.1} % (median of per-round ratios); target < 15 %",
        probes.len(),
        a * 1e3,
        s * 1e3,
        100.0 * s / a,
        100.0 * median(ratios)
    );
}
