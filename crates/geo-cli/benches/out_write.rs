//! What one finished probe costs `geo-probe run` in rewriting OUT, with a small FILE and with a
//! year of daily runs (365 earlier runs, about 85 MB as the issue measures a year): the
//! session's run and its changed probe serialised, the kept bytes of everything else streamed
//! around them ([`FrozenEnvelope`]).
//!
//! Printed per FILE: the time per probe written to a sink (the program's own work: the disk's
//! write time excluded, the target is within 2× of the small FILE), the same written to a file
//! without fsync (the kernel's copy included), and, for reference, the time of the previous
//! approach (`to_vec_pretty` of the whole envelope). Run: `cargo bench -p geo-cli --bench out_write`.

#[path = "../src/out_file.rs"]
#[allow(dead_code, unused_imports)]
mod out_file;

use geo_core::analysis::analyze_envelope;
use geo_core::model::{ExportEnvelope, Probe, Run, RunStatus};
use out_file::FrozenEnvelope;
use std::time::{Duration, Instant};

/// The analysed fixture export every synthetic FILE is made of.
fn base() -> ExportEnvelope {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/exports/drop.json");
    let mut env: ExportEnvelope = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    assert!(analyze_envelope(&mut env).is_empty());
    env
}

/// `runs` runs of `per_run` probes each, copied from the fixture's analysed probes, plus the
/// session's run (index returned) with `done` probes so far.
fn history(runs: usize, per_run: usize, done: usize) -> (ExportEnvelope, usize) {
    let seed = base();
    let template_run = seed.runs[0].clone();
    let probes: Vec<Probe> = seed.probes_of(&template_run.id).cloned().collect();
    let mut env = ExportEnvelope { runs: Vec::new(), probes: Vec::new(), ..seed };
    let add_run = |env: &mut ExportEnvelope, k: usize, n: usize| {
        let id = format!("run_{k:04}");
        env.runs.push(Run { id: id.clone(), ..template_run.clone() });
        for i in 0..n {
            let t = &probes[i % probes.len()];
            env.probes.push(Probe { id: format!("{id}__{}__{}", t.prompt_id, i), run_id: id.clone(), ..t.clone() });
        }
    };
    for k in 0..runs {
        add_run(&mut env, k, per_run);
    }
    add_run(&mut env, runs, done);
    let index = env.runs.len() - 1;
    env.runs[index].status = RunStatus::Running;
    (env, index)
}

/// Median of `rounds` timings of `f`.
fn median(rounds: usize, mut f: impl FnMut()) -> Duration {
    let mut times: Vec<Duration> = (0..rounds)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed()
        })
        .collect();
    times.sort();
    times[rounds / 2]
}

struct Figures {
    bytes: usize,
    sink: Duration,
    file: Duration,
    whole: Duration,
}

/// The figure for a year of daily runs.
const YEAR_BYTES: f64 = 85e6;

fn measure(runs: usize, per_run: usize) -> Figures {
    // Half-way through a 150-probe run: 75 of its probes written so far.
    let (env, run_index) = history(runs, per_run, 75);
    let mut frozen = FrozenEnvelope::new(&env, &[run_index]).unwrap();
    let mut bytes = Vec::new();
    frozen.write(&env, &mut bytes).unwrap();
    let path = std::env::temp_dir().join(format!("geo-out-bench-{}-{runs}.json", std::process::id()));
    // Each finished probe replaces (or adds) one of the session's probes.
    let last = env.probes.len() - 1;
    let sink = median(21, || {
        frozen.changed(last);
        frozen.write(&env, &mut std::io::sink()).unwrap()
    });
    let file = median(5, || {
        let mut f = std::io::BufWriter::with_capacity(1 << 20, std::fs::File::create(&path).unwrap());
        frozen.changed(last);
        frozen.write(&env, &mut f).unwrap();
        std::io::Write::flush(&mut f).unwrap();
    });
    let _ = std::fs::remove_file(&path);
    let whole = median(if runs > 10 { 3 } else { 21 }, || {
        std::hint::black_box(serde_json::to_vec_pretty(&env).unwrap());
    });
    Figures { bytes: bytes.len(), sink, file, whole }
}

fn main() {
    // `cargo test --benches` runs this once with `--test`-like arguments: keep that quick.
    let quick = std::env::args().any(|a| a == "--test");
    let year = if quick { 3 } else { 365 };
    let small = measure(0, 0);
    // The fixture's analysed probes are larger than the average real probe: fewer of them per
    // run make the year's 85 MB.
    let probe_bytes = {
        let (env, _) = history(1, 150, 0);
        serde_json::to_vec_pretty(&env.probes).unwrap().len() as f64 / 150.0
    };
    let per_run = ((YEAR_BYTES / year as f64 / probe_bytes).round() as usize).clamp(1, 150);
    let big = measure(year, per_run);
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!("OUT rewrite per finished probe (session run half done, 75 of 150 probes)");
    for (name, f) in [("small FILE (the project only)", &small), ("year FILE (365 earlier runs)", &big)] {
        println!(
            "  {name:<36} {:>7.1} MB  to a sink {:>8.3} ms  to a file {:>8.2} ms  whole-envelope to_vec_pretty {:>9.1} ms",
            f.bytes as f64 / 1e6,
            ms(f.sink),
            ms(f.file),
            ms(f.whole)
        );
    }
    println!(
        "  ratio year ÷ small, the program's own work (sink): {:.2}× (target ≤ 2×); with the kernel's copy (file): {:.1}×",
        ms(big.sink) / ms(small.sink),
        ms(big.file) / ms(small.file)
    );
    println!("  the previous approach on the year FILE: {:.0}× the new per-probe cost", ms(big.whole) / ms(big.sink));
}
