//! Linear time of `analyze_probe` on hostile answers (security review, finding 2).
//!
//! Each case builds one answer shape at two sizes, `n` and `8n`, and compares the time of
//! eight analyses of the small answer with one analysis of the large one: linear work gives
//! a ratio near 1, quadratic work a ratio near 8. The test asserts a ratio below
//! [`MAX_RATIO`] between the best samples of each size; it measures no absolute time, so a
//! slow or loaded machine does not fail it.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use geo_core::analysis::analyze_probe;
use geo_core::model::{Probe, Target, TargetKind};

/// Factor between the two sizes.
const FACTOR: usize = 8;
/// Largest accepted ratio of one large analysis to `FACTOR` small ones (linear: about 1,
/// quadratic: about `FACTOR`).
const MAX_RATIO: f64 = 3.0;
/// Rounds of one small and one large sample, interleaved so that both see the same load
/// from the tests running beside them; the minimum of each size is compared.
const ROUNDS: usize = 15;
/// Rounds always taken before the test may pass.
const MIN_ROUNDS: usize = 3;

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

fn time(answer: &str, times: usize, targets: &[Target]) -> Duration {
    let mut p = probe(answer);
    let start = Instant::now();
    for _ in 0..times {
        analyze_probe(&mut p, targets);
    }
    start.elapsed()
}

/// Asserts that analysing `make(FACTOR * n)` costs about `FACTOR` times `make(n)`.
///
/// Each sample analyses the large input `reps` times and the small one `FACTOR * reps` times,
/// so that small inputs still give samples long enough to time.
fn assert_linear(name: &str, n: usize, reps: usize, make: impl Fn(usize) -> String) {
    // One timing test at a time: two of them side by side would load each other unevenly.
    static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());
    let _guard = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let targets = targets();
    let small = make(n);
    let large = make(FACTOR * n);
    assert!(large.len() > (FACTOR - 1) * small.len(), "{name}: the large input must be about {FACTOR}x the small one");
    time(&small, 1, &targets);
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
    // n/400 numbered lists (2., 4., 6., …) are interrupted, one long paragraph follows, then
    // each list resumes in turn (3., 5., 7., …), and each resumption takes the paragraph into
    // its item's text: joining every candidate list's text was (lists × paragraph).
    assert_linear("lists resumed", 20_000, 1, |n| {
        let lists = n / 400;
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
