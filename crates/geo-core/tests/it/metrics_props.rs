//! Properties of the statistics and of run metrics on generated runs.
//!
//! Case count: `PROPTEST_CASES` (CI sets 10,000), 256 by default.

use crate::metrics_support::*;
use geo_core::metrics::{compute_run_metrics, jaccard, rbo, wilson_interval};
use geo_core::model::*;
use proptest::prelude::*;
use std::collections::BTreeSet;

/// RBO from its definition rather than from eq. 32: RBO = (1 − p) · Σ_{d≥1} p^(d−1) · A_d, the
/// weighted mean of the agreements at every depth, with the lists extrapolated as Webber, Moffat
/// and Zobel do (sec. 5): at a depth `d` past the shorter list's end its unseen items agree at its
/// own rate X_s/s, and past the longer list's end the agreement stays what it is at depth `l`.
/// Each overlap is a set intersection of the two prefixes, and the series is summed term by term
/// until p^d is far below the test's tolerance.
fn rbo_oracle(a: &[u8], b: &[u8], p: f64) -> f64 {
    let first_ranks = |v: &[u8]| (0..v.len()).filter(|&i| !v[..i].contains(&v[i])).map(|i| v[i]).collect::<Vec<_>>();
    let (a, b) = (first_ranks(a), first_ranks(b));
    if a.is_empty() && b.is_empty() {
        return 1.0;
    }
    if a.is_empty() || b.is_empty() {
        return 0.0;
    }
    let (s, l) = (a.len().min(b.len()), a.len().max(b.len()));
    let overlap = |d: usize| {
        let prefix = |v: &[u8]| v.iter().take(d).copied().collect::<BTreeSet<u8>>();
        prefix(&a).intersection(&prefix(&b)).count() as f64
    };
    let agreements: Vec<f64> = (1..=l)
        .map(|d| {
            let seen = overlap(d);
            let extrapolated = if d > s { seen + (d - s) as f64 * overlap(s) / s as f64 } else { seen };
            extrapolated / d as f64
        })
        .collect();
    let mut sum = 0.0;
    for d in 1..=l + 1_000 {
        sum += (1.0 - p) * p.powi(d as i32 - 1) * agreements[d.min(l) - 1];
    }
    sum
}

fn status(code: u8) -> ProbeStatus {
    match code % 6 {
        0 => ProbeStatus::Error,
        1 => ProbeStatus::Empty,
        2 => ProbeStatus::Cancelled,
        _ => ProbeStatus::Success,
    }
}

/// (prompt 0..3, status code, brand order (0 = none), list position, domains as indices, link flags)
type ProbeSpec = (u8, u8, u8, Option<u8>, Vec<u8>, Vec<bool>);

fn build(specs: &[ProbeSpec]) -> (Run, Vec<Probe>) {
    let prompts = vec![prompt("p0", "a", &["generic"]), prompt("p1", "b", &["brand"]), prompt("p2", "c", &[])];
    let r = run("r", "2026-11-29T08:00:00.000Z", prompts, None);
    let probes = specs
        .iter()
        .enumerate()
        .map(|(i, (pr, st, order, list_pos, doms, links))| {
            let mut p = probe("r", &format!("p{}", pr % 3), i as u32, status(*st));
            if *order > 0 {
                p.mentions.push(mention(BRAND, u32::from(*order % 3) + 1, list_pos.map(u32::from)));
            }
            if order % 2 == 1 {
                p.mentions.push(mention(BETA, 1, None));
            }
            p.sources = doms
                .iter()
                .enumerate()
                .map(|(k, d)| {
                    let own = if d % 5 == 0 { Ownership::Owned } else { Ownership::ThirdParty };
                    source(&format!("d{}.com", d % 8), own, &[k as u32 + 1])
                })
                .collect();
            p.answer_links = links.iter().map(|&b| link("https://x.com/a", b)).collect();
            p.list_items = list(&doms.iter().map(|d| ["A", "B", "C", "D"][usize::from(d % 4)]).collect::<Vec<_>>());
            p
        })
        .collect();
    (r, probes)
}

fn in_unit(v: Option<f64>) -> bool {
    v.is_none_or(|x| (0.0..=1.0).contains(&x))
}

fn ci_ok(rate: Option<f64>, ci: Option<[f64; 2]>) -> bool {
    match (rate, ci) {
        (None, None) => true,
        (Some(r), Some([lo, hi])) => 0.0 <= lo && lo <= r && r <= hi && hi <= 1.0,
        _ => false,
    }
}

proptest! {
    #![proptest_config(crate::config())]

    #[test]
    fn wilson_contains_the_estimate(n in 0u32..5000, k in 0u32..5000) {
        let k = if n == 0 { 0 } else { k % (n + 1) };
        let ci = wilson_interval(k, n);
        let rate = (n > 0).then(|| f64::from(k) / f64::from(n));
        prop_assert!(ci_ok(rate, ci), "{k}/{n}: {ci:?}");
    }

    #[test]
    fn jaccard_is_symmetric_bounded_and_one_on_equal_sets(
        a in prop::collection::vec(0u8..12, 0..10),
        b in prop::collection::vec(0u8..12, 0..10),
    ) {
        let j = jaccard(&a, &b);
        prop_assert!((0.0..=1.0).contains(&j));
        prop_assert_eq!(j, jaccard(&b, &a));
        let mut shuffled = a.clone();
        shuffled.reverse();
        prop_assert_eq!(jaccard(&a, &shuffled), 1.0);
    }

    #[test]
    fn rbo_is_symmetric_bounded_one_on_equal_lists_and_matches_the_oracle(
        a in prop::collection::vec(0u8..10, 0..9),
        b in prop::collection::vec(0u8..10, 0..9),
    ) {
        let r = rbo(&a, &b, 0.9);
        prop_assert!((0.0..=1.0).contains(&r), "{r}");
        prop_assert!((r - rbo(&b, &a, 0.9)).abs() < 1e-12);
        let oracle = rbo_oracle(&a, &b, 0.9);
        prop_assert!((r - oracle).abs() < 1e-9, "{r} vs oracle {oracle}");
        prop_assert!((-1e-9..=1.0 + 1e-9).contains(&oracle), "unclamped {oracle}");
        if !a.is_empty() {
            prop_assert!((rbo(&a, &a, 0.9) - 1.0).abs() < 1e-12);
        }
    }

    #[test]
    fn run_rates_and_intervals_stay_in_the_unit_interval(
        specs in prop::collection::vec(
            (0u8..3, 0u8..6, 0u8..4, prop::option::of(1u8..6),
             prop::collection::vec(0u8..10, 0..4), prop::collection::vec(any::<bool>(), 0..3)),
            0..10),
    ) {
        let (r, probes) = build(&specs);
        let m = compute_run_metrics(&r, &probes, None);
        prop_assert_eq!(m.probe_count as usize, specs.len());
        prop_assert!(m.success_count + m.failed_count + m.counts.cancelled_count == m.probe_count);
        prop_assert!(ci_ok(m.mention_rate, m.mention_rate_ci));
        prop_assert!(ci_ok(m.first_mention_rate, m.first_mention_rate_ci));
        prop_assert!(ci_ok(m.owned_visibility, m.owned_visibility_ci));
        for v in [m.source_stability, m.answer_link_overlap, m.list_stability] {
            prop_assert!(in_unit(v));
        }
        let sov: f64 = m.share_of_voice.0.iter().filter_map(|(_, v)| *v).sum();
        prop_assert!(m.counts.share_of_voice_total == 0 || (sov - 1.0).abs() < 1e-9);
        for (_, v) in &m.position_adjusted_word_count.0 {
            prop_assert!(in_unit(*v));
        }
        for d in &m.domains {
            prop_assert!(in_unit(d.occurrence_rate) && in_unit(d.occurrence_share));
            prop_assert!(ci_ok(d.occurrence_rate, d.occurrence_rate_ci));
        }
        for p in &m.prompts {
            prop_assert!(in_unit(p.mention_rate) && in_unit(p.first_mention_rate));
            prop_assert!(ci_ok(p.mention_rate, p.mention_rate_ci));
        }
        let shares: f64 = m.domains.iter().filter_map(|d| d.occurrence_share).sum();
        prop_assert!(m.domains.is_empty() || (shares - 1.0).abs() < 1e-9);
    }
}
