//! Linear time of `analyze_probe` on hostile answers (security review, finding 2).
//!
//! Each case builds one answer shape at two sizes, `n` and `16n`, and compares the time of
//! sixteen analyses of the small answer with one analysis of the large one: linear work
//! gives a ratio near 1, quadratic work a ratio near 16. The test asserts a ratio below
//! [`MAX_RATIO`] (4) between the best samples of each size, a factor of four from either
//! side, so cache effects of the larger input (linear code measures up to about 1.7 here)
//! and a loaded machine do not fail it while quadratic code still does; it measures no
//! absolute time. Time is the thread's own time on a CPU
//! (`/proc/thread-self/schedstat` on Linux, else the wall clock), so the other tests running
//! beside it on a busy machine do not count.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use geo_core::analysis::analyze_probe;
use geo_core::model::{Probe, Target, TargetKind};

/// Factor between the two sizes.
const FACTOR: usize = 16;
/// Largest accepted ratio of one large analysis to `FACTOR` small ones (linear: about 1,
/// quadratic: about `FACTOR`; the geometric middle of the two).
const MAX_RATIO: f64 = 4.0;
/// Rounds of one small and one large sample, interleaved so that both see the same load
/// from the tests running beside them; the minimum of each size is compared.
const ROUNDS: usize = 15;
/// Rounds always taken before the test may pass.
const MIN_ROUNDS: usize = 3;
/// Each sample is repeated until it takes at least this long, so that the clock's
/// granularity (a scheduler tick for the thread's CPU time) is small beside it.
const MIN_SAMPLE: Duration = Duration::from_millis(40);

fn targets() -> Vec<Target> {
    vec![Target {
        id: "brand".into(),
        kind: TargetKind::Brand,
        label: "元构场".into(),
        aliases: vec!["元构场".into(), "Acme".into()],
        domains: vec!["acme.example".into()],
    }]
}

fn probe(answer: &str) -> Probe {
    serde_json::from_value(serde_json::json!({
        "id": "r__p__0", "runId": "r", "projectId": "pr", "promptId": "p", "repeatIndex": 0,
        "status": "success", "createdAt": "2026-12-01T00:00:00.000Z", "rawAnswer": answer,
    }))
    .unwrap()
}

/// Nanoseconds this thread has spent on a CPU, when the system says.
fn cpu_ns() -> Option<u64> {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    stat.split_whitespace().next()?.parse().ok()
}

fn time(answer: &str, times: usize, targets: &[Target]) -> Duration {
    let mut p = probe(answer);
    let (cpu, wall) = (cpu_ns(), Instant::now());
    for _ in 0..times {
        analyze_probe(&mut p, targets);
    }
    match (cpu, cpu_ns()) {
        (Some(a), Some(b)) if b > a => Duration::from_nanos(b - a),
        _ => wall.elapsed(),
    }
}

/// Asserts that analysing `make(FACTOR * n)` costs about `FACTOR` times `make(n)`.
///
/// Each sample analyses the large input `reps` times and the small one `FACTOR * reps` times;
/// `reps` starts at `min_reps` and doubles until a small sample takes [`MIN_SAMPLE`].
fn assert_linear(name: &str, n: usize, min_reps: usize, make: impl Fn(usize) -> String) {
    // One timing test at a time: two of them side by side would load each other unevenly.
    static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());
    let _guard = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let targets = targets();
    let small = make(n);
    let large = make(FACTOR * n);
    assert!(large.len() > (FACTOR - 1) * small.len(), "{name}: the large input must be about {FACTOR}x the small one");
    let mut reps = min_reps;
    while reps < 4096 && time(&small, FACTOR * reps, &targets) < MIN_SAMPLE {
        reps *= 2;
    }
    let (mut small_min, mut large_min) = (Duration::MAX, Duration::MAX);
    let mut ratio = f64::INFINITY;
    for round in 1..=ROUNDS {
        small_min = small_min.min(time(&small, FACTOR * reps, &targets));
        large_min = large_min.min(time(&large, reps, &targets));
        ratio = large_min.as_secs_f64() / small_min.as_secs_f64().max(1e-9);
        if round >= MIN_ROUNDS && ratio < MAX_RATIO {
            return;
        }
    }
    panic!(
        "{name}: analysing {} bytes took {ratio:.1} times as long as analysing {} bytes {FACTOR} times \
         (best of {ROUNDS}): not linear",
        large.len(),
        small.len()
    );
}

#[test]
fn url_followed_by_closing_parentheses() {
    assert_linear("url + `)` x n", 10_000, 1, |n| format!("https://a.example/{}", ")".repeat(n)));
}

#[test]
fn numbered_lines_that_all_restart() {
    assert_linear("`1. x` x n", 4_000, 1, |n| "1. x\n".repeat(n));
}

#[test]
fn markdown_destinations_that_never_close() {
    assert_linear("`[a](` x n", 1_000, 1, |n| "[a](".repeat(n));
}

#[test]
fn open_brackets() {
    // Each `[` used to look up to 2,000 bytes ahead for its `]`: quadratic up to that length.
    assert_linear("`[` x n", 250, 40, |n| "[".repeat(n));
}

#[test]
fn link_titles_that_never_close() {
    assert_linear("`[a](x (` x n", 1_500, 1, |n| "[a](x (".repeat(n));
}

#[test]
fn lists_resumed_after_one_long_interruption() {
    // n/200 numbered lists (2., 4., 6., …) are interrupted, one long paragraph follows, then
    // each list resumes in turn (3., 5., 7., …), and each resumption takes the paragraph into
    // its item's text: joining every candidate list's text was (lists × paragraph). (With
    // n/400 the old code's ratio was only 5.4: its linear part hid the quadratic one.)
    assert_linear("lists resumed", 20_000, 1, |n| {
        let lists = n / 200;
        let mut s = String::new();
        for k in (1..=lists).rev() {
            s.push_str(&format!("{}. x\n\np\n", 2 * k));
        }
        s.push_str(&"L".repeat(n));
        s.push('\n');
        for k in 1..=lists {
            s.push_str(&format!("{}. y\n\np\n", 2 * k + 1));
        }
        s
    });
}
