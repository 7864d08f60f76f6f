//! Newcombe's hybrid score interval for a difference of two proportions, and [`Change`]:
//! one compared proportion as `geo-probe diff` prints it.
//!
//! Newcombe (1998, "Interval estimation for the difference between independent proportions:
//! comparison of eleven methods", Statistics in Medicine 17, 873–890), method 10: with
//! Wilson intervals `[l₁, u₁]` of `p₁` and `[l₂, u₂]` of `p₂` and `d = p₁ − p₂`,
//!
//! ```text
//! low  = d − √((p₁ − l₁)² + (u₂ − p₂)²)
//! high = d + √((u₁ − p₁)² + (p₂ − l₂)²)
//! ```
//!
//! It keeps the Wilson interval's good coverage at small counts and at 0 % or 100 %, where
//! the textbook Wald interval collapses to a point, and it never leaves `[−1, 1]`.

use crate::metrics::stats::{ratio, wilson_interval};
use serde::Serialize;

/// The 95 % interval `[low, high]` of `x₁/n₁ − x₂/n₂` by Newcombe's hybrid score method, with
/// the Wilson intervals of [`wilson_interval`] (z = [`crate::metrics::stats::Z_95`]).
///
/// `None` when either denominator is 0 or a count exceeds its denominator. The bounds are
/// clamped to `[−1, 1]` and always contain the point difference. Swapping the two
/// proportions negates the interval exactly (`[−high, −low]`), bit for bit.
pub fn newcombe_interval(x1: u32, n1: u32, x2: u32, n2: u32) -> Option<[f64; 2]> {
    let [l1, u1] = wilson_interval(x1, n1)?;
    let [l2, u2] = wilson_interval(x2, n2)?;
    let p1 = f64::from(x1) / f64::from(n1);
    let p2 = f64::from(x2) / f64::from(n2);
    let d = p1 - p2;
    // Each bound combines the near side of one Wilson interval with the far side of the
    // other. IEEE addition is commutative, so a swap exchanges `below` and `above` exactly
    // and negates the interval bit for bit.
    let sq = |v: f64| v * v;
    let below = (sq(p1 - l1) + sq(u2 - p2)).sqrt();
    let above = (sq(u1 - p1) + sq(p2 - l2)).sqrt();
    let low = (d - below).clamp(-1.0, 1.0).min(d);
    let high = (d + above).clamp(-1.0, 1.0).max(d);
    Some([low, high])
}

/// One proportion of the current run against the same proportion of the other run
/// (`shared/spec/data-model.md`, "Comparing runs").
///
/// A side with denominator 0 makes that side's proportion, `delta`, `low` and `high` null
/// and `significant` false.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Change {
    /// The metric's name (`mentionRate`, `firstMentionRate`, `ownedVisibility`); only on the
    /// rows of `metrics`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<&'static str>,
    /// The other run's proportion: numerator `against_count`, denominator `against_n`.
    pub against: Option<f64>,
    /// The current run's proportion: numerator `current_count`, denominator `current_n`.
    pub current: Option<f64>,
    /// The other run's denominator (its successful probes, of that prompt for prompt rows).
    pub against_n: u32,
    /// The current run's denominator.
    pub current_n: u32,
    /// `current − against`.
    pub delta: Option<f64>,
    /// Lower bound of the 95 % Newcombe interval of `delta`.
    pub low: Option<f64>,
    /// Upper bound of the 95 % Newcombe interval of `delta`.
    pub high: Option<f64>,
    /// The interval excludes 0: a real change rather than noise.
    pub significant: bool,
    /// The other run's numerator (not in the JSON: the contract gives proportions).
    #[serde(skip)]
    pub against_count: u32,
    /// The current run's numerator (not in the JSON).
    #[serde(skip)]
    pub current_count: u32,
}

/// Which way a change went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// Significantly up.
    Up,
    /// Significantly down.
    Down,
    /// Within noise (or not comparable).
    Noise,
}

impl Change {
    /// `current_count / current_n` against `against_count / against_n`.
    ///
    /// A count above its denominator (impossible for figures of geo-core's metrics) is
    /// treated like a missing side rather than trusted.
    pub fn new(current_count: u32, current_n: u32, against_count: u32, against_n: u32) -> Change {
        let current = ratio(current_count, current_n).filter(|_| current_count <= current_n);
        let against = ratio(against_count, against_n).filter(|_| against_count <= against_n);
        let interval = match (current, against) {
            (Some(_), Some(_)) => newcombe_interval(current_count, current_n, against_count, against_n),
            _ => None,
        };
        let delta = interval.and(current.zip(against).map(|(c, a)| c - a));
        let low = interval.map(|i| i[0]);
        let high = interval.map(|i| i[1]);
        let significant = interval.is_some_and(|[lo, hi]| lo > 0.0 || hi < 0.0);
        Change {
            name: None,
            against,
            current,
            against_n,
            current_n,
            delta,
            low,
            high,
            significant,
            against_count,
            current_count,
        }
    }

    /// The same change with its metric name.
    pub fn named(self, name: &'static str) -> Change {
        Change { name: Some(name), ..self }
    }

    /// Up, down or within noise.
    pub fn direction(&self) -> Direction {
        match (self.significant, self.delta) {
            (true, Some(d)) if d > 0.0 => Direction::Up,
            (true, Some(d)) if d < 0.0 => Direction::Down,
            _ => Direction::Noise,
        }
    }
}

/// Half-width of the 95 % Wilson interval at p = 0.5 with `n` probes: the widest interval
/// a mention rate of `n` successful probes can have, so a plan's worst-case precision.
/// `None` for `n == 0`.
pub fn half_width_at_half(n: u32) -> Option<f64> {
    // An even n gives p = 0.5 exactly; for an odd n the formula is evaluated at p = 0.5
    // directly rather than at the nearest count.
    (n > 0).then(|| {
        let z = crate::metrics::stats::Z_95;
        let n = f64::from(n);
        let z2 = z * z;
        z * (0.25 / n + z2 / (4.0 * n * n)).sqrt() / (1.0 + z2 / n)
    })
}

/// The fewest repeats per prompt for which `prompts × repeats` probes give a 95 % half-width
/// at p = 0.5 of at most `target` (for example 0.10 for ±10 points).
///
/// `None` when `prompts == 0`, when `target` is not in `(0, 0.5]`, or when more than
/// `max_repeats` repeats would be needed.
pub fn repeats_for_half_width(prompts: u32, target: f64, max_repeats: u32) -> Option<u32> {
    if prompts == 0 || !(target > 0.0 && target <= 0.5) {
        return None;
    }
    // The half-width falls as n grows, so the first repeat count that reaches the target is
    // the answer; a binary search over repeats keeps it cheap for tiny targets.
    let fits = |r: u32| half_width_at_half(prompts.saturating_mul(r)).is_some_and(|h| h <= target);
    if !fits(max_repeats) {
        return None;
    }
    let (mut lo, mut hi) = (1u32, max_repeats);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if fits(mid) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    Some(lo)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn check(x1: u32, n1: u32, x2: u32, n2: u32, expect: [f64; 2]) {
        let [lo, hi] = newcombe_interval(x1, n1, x2, n2).expect("an interval");
        assert!((lo - expect[0]).abs() < 5e-5 && (hi - expect[1]).abs() < 5e-5, "{x1}/{n1} − {x2}/{n2}: {lo}, {hi}");
    }

    #[test]
    fn reproduces_newcombes_table_ii_method_10() {
        check(56, 70, 48, 80, [0.0524, 0.3339]);
        check(9, 10, 3, 10, [0.1705, 0.8090]);
        check(6, 7, 2, 7, [0.0582, 0.8062]);
        check(5, 56, 0, 29, [-0.0381, 0.1926]);
        check(0, 10, 0, 20, [-0.1611, 0.2775]);
        check(0, 10, 0, 10, [-0.2775, 0.2775]);
        check(10, 10, 0, 20, [0.6791, 1.0000]);
        check(10, 10, 0, 10, [0.6075, 1.0000]);
    }

    #[test]
    fn a_missing_side_is_null_and_never_significant() {
        let c = Change::new(3, 10, 0, 0);
        assert_eq!(
            (c.current, c.against, c.delta, c.low, c.high, c.significant),
            (Some(0.3), None, None, None, None, false)
        );
        assert_eq!(newcombe_interval(1, 0, 1, 1), None);
        assert_eq!(newcombe_interval(2, 1, 1, 1), None);
    }

    #[test]
    fn precision_at_half() {
        // 10 prompts × 3 repeats: ±17 points, the issue's own example.
        assert!((half_width_at_half(30).unwrap() - 0.1685).abs() < 1e-4);
        assert_eq!(half_width_at_half(0), None);
        // ±10 points needs n ≥ 93 (Wilson at p = 0.5): 10 prompts need 10 repeats.
        assert_eq!(repeats_for_half_width(10, 0.10, 1000), Some(10));
        assert!(half_width_at_half(90).unwrap() > 0.10 && half_width_at_half(100).unwrap() <= 0.10);
        assert_eq!(repeats_for_half_width(0, 0.10, 1000), None);
        assert_eq!(repeats_for_half_width(1, 0.001, 1000), None);
    }
}
