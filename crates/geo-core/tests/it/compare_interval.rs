//! Newcombe's hybrid score interval: Newcombe's own published values, an independent
//! implementation (statsmodels' grid, `fixtures/newcombe/`), and its properties.
//!
//! Case count: `PROPTEST_CASES` (CI sets 10,000), 256 by default.

use geo_core::compare::{newcombe_interval, Change, Direction};
use geo_core::metrics::wilson_interval;
use proptest::prelude::*;

/// Newcombe (1998), Table II, method 10: the eight worked examples `(x₁, n₁, x₂, n₂)`, the
/// difference and the interval as printed (four decimals).
const TABLE_II: &[(u32, u32, u32, u32, f64, f64, f64)] = &[
    (56, 70, 48, 80, 0.2000, 0.0524, 0.3339),
    (9, 10, 3, 10, 0.6000, 0.1705, 0.8090),
    (6, 7, 2, 7, 0.5714, 0.0582, 0.8062),
    (5, 56, 0, 29, 0.0893, -0.0381, 0.1926),
    (0, 10, 0, 20, 0.0000, -0.1611, 0.2775),
    (0, 10, 0, 10, 0.0000, -0.2775, 0.2775),
    (10, 10, 0, 20, 1.0000, 0.6791, 1.0000),
    (10, 10, 0, 10, 1.0000, 0.6075, 1.0000),
];

#[test]
fn reproduces_the_published_values() {
    for &(x1, n1, x2, n2, d, lo, hi) in TABLE_II {
        let c = Change::new(x1, n1, x2, n2);
        let round = |v: f64| (v * 10_000.0).round() / 10_000.0;
        assert_eq!(
            (round(c.delta.unwrap()), round(c.low.unwrap()), round(c.high.unwrap())),
            (d, lo, hi),
            "{x1}/{n1} − {x2}/{n2}"
        );
        assert_eq!(c.significant, lo > 0.0 || hi < 0.0, "{x1}/{n1} − {x2}/{n2}");
    }
}

#[test]
fn matches_statsmodels() {
    let text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/newcombe/statsmodels_grid.json"))
            .expect("fixtures/newcombe/statsmodels_grid.json");
    let grid: serde_json::Value = serde_json::from_str(&text).unwrap();
    let rows = grid["rows"].as_array().unwrap();
    assert!(rows.len() >= 1000, "the grid holds {} rows", rows.len());
    let mut worst = 0.0f64;
    for row in rows {
        let n = |i: usize| row[i].as_u64().unwrap() as u32;
        let f = |i: usize| row[i].as_f64().unwrap();
        let [lo, hi] = newcombe_interval(n(0), n(1), n(2), n(3)).unwrap();
        worst = worst.max((lo - f(4)).abs()).max((hi - f(5)).abs());
        assert!((lo - f(4)).abs() < 1e-12 && (hi - f(5)).abs() < 1e-12, "{row}: {lo}, {hi}");
    }
    eprintln!("largest difference from statsmodels over {} cases: {worst:e}", rows.len());
}

#[test]
fn direction_and_missing_sides() {
    assert_eq!(Change::new(6, 20, 19, 20).direction(), Direction::Down);
    assert_eq!(Change::new(19, 20, 6, 20).direction(), Direction::Up);
    assert_eq!(Change::new(10, 20, 11, 20).direction(), Direction::Noise);
    for c in [Change::new(0, 0, 3, 5), Change::new(3, 5, 0, 0), Change::new(0, 0, 0, 0)] {
        assert_eq!((c.delta, c.low, c.high, c.significant), (None, None, None, false));
        assert_eq!(c.direction(), Direction::Noise);
    }
    let one_side = Change::new(3, 5, 0, 0);
    assert_eq!((one_side.current, one_side.against), (Some(0.6), None));
}

/// `(x, n)` with `x ≤ n`, `1 ≤ n ≤ 400`.
fn proportion() -> impl Strategy<Value = (u32, u32)> {
    (1u32..=400).prop_flat_map(|n| (0..=n, Just(n)))
}

proptest! {
    #![proptest_config(crate::config())]

    /// The interval contains the point difference and stays within [−1, 1].
    #[test]
    fn contains_the_point_difference((x1, n1) in proportion(), (x2, n2) in proportion()) {
        let [lo, hi] = newcombe_interval(x1, n1, x2, n2).unwrap();
        let d = f64::from(x1) / f64::from(n1) - f64::from(x2) / f64::from(n2);
        prop_assert!(-1.0 <= lo && lo <= d && d <= hi && hi <= 1.0, "{lo} ≤ {d} ≤ {hi}");
    }

    /// Swapping the runs negates the interval exactly.
    #[test]
    fn swapping_negates((x1, n1) in proportion(), (x2, n2) in proportion()) {
        let [lo, hi] = newcombe_interval(x1, n1, x2, n2).unwrap();
        let [lo2, hi2] = newcombe_interval(x2, n2, x1, n1).unwrap();
        prop_assert_eq!((lo2.to_bits(), hi2.to_bits()), ((-hi).to_bits(), (-lo).to_bits()));
        let (a, b) = (Change::new(x1, n1, x2, n2), Change::new(x2, n2, x1, n1));
        prop_assert_eq!(a.significant, b.significant);
    }

    /// The same proportions measured on k times the probes give a strictly narrower interval.
    #[test]
    fn shrinks_as_n_grows((x1, n1) in proportion(), (x2, n2) in proportion(), k in 2u32..=20) {
        let [lo, hi] = newcombe_interval(x1, n1, x2, n2).unwrap();
        let [lo_k, hi_k] = newcombe_interval(x1 * k, n1 * k, x2 * k, n2 * k).unwrap();
        prop_assert!(hi_k - lo_k < hi - lo, "width {} at n, {} at {k}·n", hi - lo, hi_k - lo_k);
    }

    /// The interval is built from the metrics' own Wilson intervals: with the other side
    /// fixed at 0/n it is bounded by the first proportion's Wilson interval.
    #[test]
    fn built_on_the_wilson_interval((x1, n1) in proportion()) {
        let [wl, wh] = wilson_interval(x1, n1).unwrap();
        let [lo, hi] = newcombe_interval(x1, n1, 0, 1_000_000).unwrap();
        prop_assert!((lo - (wl - 0.0)).abs() < 1e-5 && (hi - wh).abs() < 1e-5, "{lo} {hi} vs {wl} {wh}");
    }
}
