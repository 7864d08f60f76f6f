//! An export GEO Probe wrote is always read back: a year of daily monitoring (365 runs of 40
//! probes, about 90 MB as `geo-probe run` writes it) is read by `validate`, extended by
//! `run` (read + atomic rewrite of OUT) against the mock, and the new OUT is read again, with
//! the peak memory of the CLI bounded (a few times the file, read once, never copied whole
//! per probe). Security review 3's I5 (memory: the ceiling of every command is `load_export`
//! at the 256 MiB export limit) is this bound: it holds for the largest real history.

mod support;

use std::path::Path;
use std::process::Output;

use geo_core::analysis::analyze_envelope;
use geo_core::model::{ExportEnvelope, Probe, Run};
use support::{mock, ok, root};

/// Repeats of each of the fixture's 4 prompts per daily run.
const REPEATS: u32 = 10;

fn geo_probe(args: &[&str]) -> Output {
    support::geo_probe().args(args).output().unwrap()
}

/// 365 daily runs of 4 prompts × 10 repeats (copies of the fixture's analysed probes), each run the
/// previous run of the next, written as `geo-probe` writes an export.
fn year(path: &Path) -> u64 {
    let text = std::fs::read_to_string(root().join("fixtures/exports/drop.json")).unwrap();
    let mut seed: ExportEnvelope = serde_json::from_str(&text).unwrap();
    assert!(analyze_envelope(&mut seed).is_empty());
    let template: Run = seed.runs[0].clone();
    let probes: Vec<Probe> = seed.probes_of(&template.id).cloned().collect();
    let mut env = ExportEnvelope { runs: Vec::new(), probes: Vec::new(), ..seed };
    for day in 0..365u32 {
        let id = format!("run_day_{day:03}");
        let previous = env.runs.last().map(|r: &Run| r.id.clone());
        env.runs.push(Run {
            id: id.clone(),
            created_at: date_of(day),
            previous_run_id: previous,
            planned_probe_count: 4 * REPEATS,
            config: geo_core::model::RunConfig { repeats: REPEATS, ..template.config.clone() },
            ..template.clone()
        });
        // The fixture run has 5 repeats of its 4 prompts: copy it, shifting the repeats.
        for copy in 0..REPEATS.div_ceil(5) {
            for t in probes.iter().filter(|t| t.repeat_index + copy * 5 < REPEATS) {
                let repeat = t.repeat_index + copy * 5;
                env.probes.push(Probe {
                    id: format!("{id}__{}__{repeat}", t.prompt_id),
                    run_id: id.clone(),
                    repeat_index: repeat,
                    ..t.clone()
                });
            }
        }
    }
    let bytes = serde_json::to_vec_pretty(&env).unwrap();
    std::fs::write(path, &bytes).unwrap();
    bytes.len() as u64
}

/// Day `day` (0-based) of 2025 at 02:00 UTC, as an ISO timestamp.
fn date_of(day: u32) -> String {
    const MONTHS: [u32; 12] = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
    let (mut month, mut rest) = (0, day);
    while rest >= MONTHS[month] {
        rest -= MONTHS[month];
        month += 1;
    }
    format!("2025-{:02}-{:02}T02:00:00.000Z", month + 1, rest + 1)
}

/// The largest resident set of any child this process waited for, in bytes.
fn children_peak_rss() -> u64 {
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: getrusage fills the struct it is given; RUSAGE_CHILDREN needs nothing else.
    assert_eq!(unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage) }, 0);
    usage.ru_maxrss as u64 * 1024
}

#[test]
fn a_year_of_daily_runs_is_read_extended_and_read_again() {
    let dir = std::env::temp_dir().join(format!("geo-cli-year-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("year.json");
    let out = dir.join("year-plus-one.json");
    let size = year(&file);
    assert!(size > 80_000_000, "a year-sized export: {size} bytes");
    assert!(size > 64 * 1024 * 1024, "above the old 64 MiB limit");

    let summary = ok(&geo_probe(&["validate", file.to_str().unwrap()]));
    assert!(summary.contains("365 runs, 14600 probes"), "{summary}");

    let server = mock(&[]);
    ok(&geo_probe(&[
        "run",
        file.to_str().unwrap(),
        "--project",
        "proj_yuangouchang",
        "--prompts",
        "p01,p02",
        "--repeats",
        "2",
        "--base-url",
        &server.url(),
        "--out",
        out.to_str().unwrap(),
    ]));
    let summary = ok(&geo_probe(&["validate", out.to_str().unwrap()]));
    assert!(summary.contains("366 runs, 14604 probes"), "{summary}");
    let written = std::fs::metadata(&out).unwrap().len();
    assert!(written > size, "OUT holds the year and the new run");

    let peak = children_peak_rss();
    eprintln!("year export: {size} bytes read, {written} bytes written; peak memory of geo-probe {} MB", peak >> 20);
    assert!(peak < 12 * size, "peak memory {peak} bytes for a {size}-byte export");
    let _ = std::fs::remove_dir_all(&dir);
}
