//! Small statistics used by the metrics: Wilson score intervals, Jaccard similarity of
//! sets and Rank-Biased Overlap of ranked lists.
//!
//! Every function here is total: empty inputs give a defined value or `None`, never a panic
//! or a NaN. `docs/metrics.md` states each formula.

use super::FastMap;
use std::collections::HashSet;
use std::hash::Hash;

/// z for a two-sided 95 % interval (the 0.975 quantile of the standard normal).
pub const Z_95: f64 = 1.959963984540054;

/// Persistence of Rank-Biased Overlap used for `listStability`.
pub const RBO_P: f64 = 0.9;

/// `successes / n`, or `None` when `n == 0`.
///
/// Numerator: `successes`; denominator: `n`.
pub fn ratio(successes: u32, n: u32) -> Option<f64> {
    (n > 0).then(|| f64::from(successes) / f64::from(n))
}

/// Mean of `values`, or `None` when there are none.
///
/// Numerator: the sum of `values`; denominator: their count.
pub fn mean(values: &[f64]) -> Option<f64> {
    (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64)
}

/// Wilson score 95 % interval `[lo, hi]` of the proportion `successes / n`.
///
/// `None` when `n == 0` or `successes > n`. With `p = successes / n` and `z = Z_95`:
/// centre = (p + z²/2n) / (1 + z²/n), half-width = z·√(p(1−p)/n + z²/4n²) / (1 + z²/n).
/// The bounds are clamped to `[0, 1]` and widened by rounding error only so that the
/// interval always contains `p`, which it does exactly in real arithmetic.
pub fn wilson_interval(successes: u32, n: u32) -> Option<[f64; 2]> {
    if n == 0 || successes > n {
        return None;
    }
    let n_f = f64::from(n);
    let p = f64::from(successes) / n_f;
    let z2 = Z_95 * Z_95;
    let denom = 1.0 + z2 / n_f;
    let centre = (p + z2 / (2.0 * n_f)) / denom;
    let half = Z_95 * (p * (1.0 - p) / n_f + z2 / (4.0 * n_f * n_f)).sqrt() / denom;
    let lo = (centre - half).clamp(0.0, 1.0).min(p);
    let hi = (centre + half).clamp(0.0, 1.0).max(p);
    Some([lo, hi])
}

/// Jaccard similarity |A ∩ B| / |A ∪ B| of two sets given as sorted, duplicate-free slices.
///
/// Numerator: the size of the intersection; denominator: the size of the union.
/// Two empty sets are identical and score 1.
pub fn jaccard_sorted<T: Ord>(a: &[T], b: &[T]) -> f64 {
    let (mut i, mut j, mut inter) = (0, 0, 0usize);
    // Branch-free merge: the comparison's outcome is unpredictable, its arithmetic is not.
    while i < a.len() && j < b.len() {
        let order = a[i].cmp(&b[j]);
        inter += usize::from(order.is_eq());
        i += usize::from(order.is_le());
        j += usize::from(order.is_ge());
    }
    let union = a.len() + b.len() - inter;
    if union == 0 {
        1.0
    } else {
        inter as f64 / union as f64
    }
}

/// Jaccard similarity of two collections taken as sets (order and duplicates ignored).
///
/// Numerator: |A ∩ B|; denominator: |A ∪ B|; 1 when both are empty.
pub fn jaccard<T: Ord + Clone>(a: &[T], b: &[T]) -> f64 {
    let mut a = a.to_vec();
    let mut b = b.to_vec();
    crate::sort::sort(&mut a);
    a.dedup();
    crate::sort::sort(&mut b);
    b.dedup();
    jaccard_sorted(&a, &b)
}

/// Mean pairwise Jaccard similarity of the sets (sorted, duplicate-free), or `None` with
/// fewer than two sets.
///
/// Numerator: the sum of J over unordered pairs; denominator: the number of pairs n(n−1)/2.
pub fn mean_pairwise_jaccard<T: Ord>(sets: &[Vec<T>]) -> Option<f64> {
    mean_pairwise(sets, |a, b| jaccard_sorted(a, b))
}

/// Reusable buffers of [`mean_pairwise_jaccard_ids`].
#[derive(Debug, Default)]
pub(crate) struct JaccardScratch {
    /// Indexed by id: its bit in the sets' bitsets, `u32::MAX` when unassigned.
    local: Vec<u32>,
    /// One bitset of `words` 64-bit words per set, end to end.
    bits: Vec<u64>,
    /// The size of each set.
    sizes: Vec<usize>,
}

/// [`mean_pairwise_jaccard`] of sets of small dense ids (each set duplicate-free), computed
/// on bitsets: the ids the sets use are renumbered densely, so each pair's intersection is
/// a popcount. The integers |A ∩ B| and |A ∪ B| are those of [`jaccard_sorted`], so every
/// score and the mean are the same floats.
///
/// Numerator: the sum of J over unordered pairs; denominator: the number of pairs n(n−1)/2.
pub(crate) fn mean_pairwise_jaccard_ids(sets: &[&[u32]], scratch: &mut JaccardScratch) -> Option<f64> {
    if sets.len() < 2 {
        return None;
    }
    let JaccardScratch { local, bits, sizes } = scratch;
    let mut next = 0u32;
    for &id in sets.iter().flat_map(|s| s.iter()) {
        let id = id as usize;
        if id >= local.len() {
            local.resize(id + 1, u32::MAX);
        }
        if local[id] == u32::MAX {
            local[id] = next;
            next += 1;
        }
    }
    let words = (next as usize).div_ceil(64).max(1);
    bits.clear();
    bits.resize(sets.len() * words, 0);
    for (set, row) in sets.iter().zip(bits.chunks_exact_mut(words)) {
        for &id in set.iter() {
            let bit = local[id as usize] as usize;
            row[bit / 64] |= 1 << (bit % 64);
        }
    }
    for &id in sets.iter().flat_map(|s| s.iter()) {
        local[id as usize] = u32::MAX;
    }
    sizes.clear();
    sizes.extend(bits.chunks_exact(words).map(|row| row.iter().map(|w| w.count_ones() as usize).sum::<usize>()));
    let score = |inter: usize, size_a: usize, size_b: usize| {
        let union = size_a + size_b - inter;
        if union == 0 {
            1.0
        } else {
            inter as f64 / union as f64
        }
    };
    let mut sum = 0.0;
    let mut pairs = 0u64;
    if words == 1 {
        // At most 64 distinct domains in the prompt (the usual case): one word a set.
        for (i, (&a, &size_a)) in bits.iter().zip(sizes.iter()).enumerate() {
            for (&b, &size_b) in bits[i + 1..].iter().zip(&sizes[i + 1..]) {
                sum += score((a & b).count_ones() as usize, size_a, size_b);
                pairs += 1;
            }
        }
    } else {
        for (i, (a, &size_a)) in bits.chunks_exact(words).zip(sizes.iter()).enumerate() {
            for (b, &size_b) in bits.chunks_exact(words).skip(i + 1).zip(&sizes[i + 1..]) {
                let inter: usize = a.iter().zip(b).map(|(x, y)| (x & y).count_ones() as usize).sum();
                sum += score(inter, size_a, size_b);
                pairs += 1;
            }
        }
    }
    Some(sum / pairs as f64)
}

/// Reusable buffers of [`mean_pairwise_rbo_ids`].
#[derive(Debug, Default)]
pub(crate) struct RboScratch {
    /// Indexed by id: its 1-based rank in the current first list, 0 when absent.
    rank: Vec<u32>,
    /// Indexed by depth d: the shared items that join the overlap at depth d.
    joins: Vec<u32>,
    /// p^d for d = 0..=L, by repeated multiplication as in [`rbo_distinct`].
    powers: Vec<f64>,
    /// `x / d · p^d` for depth d and overlap x ≤ d, row d of width L + 1.
    weights: Vec<f64>,
    /// Each list's class (lists with the same items in order share one).
    classes: Vec<usize>,
    /// Each class's first list.
    firsts: Vec<usize>,
    /// The score of each pair of classes, k × k.
    scores: Vec<f64>,
}

/// At most this many distinct lists in a prompt are scored once per pair of distinct lists
/// (a table of their squared number of scores); beyond, every pair is scored.
const RBO_MEMO_MAX: usize = 512;

/// Sets (`on`) or clears the 1-based rank of each item of `list` in `rank`.
fn mark_ranks(rank: &mut [u32], list: &[u32], on: bool) {
    for (r, &id) in list.iter().enumerate() {
        rank[id as usize] = if on { r as u32 + 1 } else { 0 };
    }
}

/// The tables of [`mean_pairwise_rbo_ids`] for one group of lists.
struct RboTables<'t> {
    width: usize,
    powers: &'t [f64],
    weights: &'t [f64],
    /// (1 − p)/p.
    scale: f64,
}

impl RboTables<'_> {
    /// [`rbo_distinct`] of a list of `a_len` items whose ranks are in `rank` and `b`, with
    /// `joins` all zero (and left so).
    fn pair(&self, a_len: usize, b: &[u32], rank: &[u32], joins: &mut [u32]) -> f64 {
        let (l, s) = (a_len.max(b.len()), a_len.min(b.len()));
        if l == 0 {
            return 1.0;
        }
        if s == 0 {
            return 0.0;
        }
        for (r, &id) in b.iter().enumerate() {
            let in_a = rank[id as usize] as usize;
            if in_a != 0 {
                joins[in_a.max(r + 1)] += 1;
            }
        }
        let (mut x, mut x_s, mut total) = (0usize, 0usize, 0.0);
        for (d, join) in joins.iter_mut().enumerate().take(l + 1).skip(1) {
            x += *join as usize;
            *join = 0;
            if d == s {
                x_s = x;
            }
            total += self.weights[d * self.width + x];
            if d > s {
                total += x_s as f64 * (d - s) as f64 / (s * d) as f64 * self.powers[d];
            }
        }
        let tail = ((x - x_s) as f64 / l as f64 + x_s as f64 / s as f64) * self.powers[l];
        (self.scale * total + tail).clamp(0.0, 1.0)
    }
}

/// Lists longer than this are scored by [`rbo_distinct`] itself (the weight table grows
/// with the square of the longest list).
const RBO_TABLE_MAX: usize = 256;

/// The mean pairwise [`rbo_distinct`] of lists of small ids (each list without repeats), or
/// `None` with fewer than two lists: the same floats, computed faster.
///
/// A shared item joins the overlap X_d at the depth where the later of its two ranks is
/// reached, so each pair is one pass over one list against the ranks of the other, and the
/// per-depth terms `X_d/d · p^d` (numerator X_d, denominator d) come from a table built
/// once, with the very operations `rbo_distinct` performs, in the same order.
///
/// Numerator: the sum of RBO over unordered pairs; denominator: the number of pairs.
pub(crate) fn mean_pairwise_rbo_ids(lists: &[&[u32]], p: f64, scratch: &mut RboScratch) -> Option<f64> {
    if lists.len() < 2 {
        return None;
    }
    let longest = lists.iter().map(|l| l.len()).max().unwrap_or(0);
    if longest > RBO_TABLE_MAX {
        return mean_pairwise(lists, |a, b| rbo_distinct(a, b, p));
    }
    let p = if p.is_nan() { RBO_P } else { p.clamp(1e-9, 1.0 - 1e-9) };
    let RboScratch { rank, joins, powers, weights, classes, firsts, scores } = scratch;
    let width = longest + 1;
    powers.clear();
    let mut p_d = 1.0;
    powers.push(p_d);
    for _ in 1..=longest {
        p_d *= p;
        powers.push(p_d);
    }
    weights.clear();
    weights.resize(width * width, 0.0);
    for d in 1..=longest {
        for x in 0..=d {
            weights[d * width + x] = x as f64 / d as f64 * powers[d];
        }
    }
    let top = lists.iter().flat_map(|l| l.iter()).max().map_or(0, |&m| m as usize + 1);
    if rank.len() < top {
        rank.resize(top, 0);
    }
    joins.clear();
    joins.resize(width, 0);
    let scale = (1.0 - p) / p;
    let tables = RboTables { width, powers, weights, scale };
    // Each list's class: lists with the same items in the same order share one, and a pair of
    // classes is scored once. The sum still runs over the pairs of lists, in order.
    classes.clear();
    firsts.clear();
    let mut class_of: FastMap<&[u32], usize> = FastMap::default();
    for (i, list) in lists.iter().enumerate() {
        let next = firsts.len();
        let class = *class_of.entry(*list).or_insert(next);
        if class == next {
            firsts.push(i);
        }
        classes.push(class);
    }
    let k = firsts.len();
    let mut sum = 0.0;
    let mut pairs = 0u64;
    if k < lists.len() && k <= RBO_MEMO_MAX {
        scores.clear();
        scores.resize(k * k, 0.0);
        for (ca, &first_a) in firsts.iter().enumerate() {
            let a = lists[first_a];
            mark_ranks(rank, a, true);
            for (cb, &first_b) in firsts.iter().enumerate().skip(ca) {
                let v = tables.pair(a.len(), lists[first_b], rank, joins);
                scores[ca * k + cb] = v;
                scores[cb * k + ca] = v;
            }
            mark_ranks(rank, a, false);
        }
        for (i, &ci) in classes.iter().enumerate() {
            for &cj in &classes[i + 1..] {
                sum += scores[ci * k + cj];
                pairs += 1;
            }
        }
    } else {
        for (i, a) in lists.iter().enumerate() {
            mark_ranks(rank, a, true);
            for b in &lists[i + 1..] {
                sum += tables.pair(a.len(), b, rank, joins);
                pairs += 1;
            }
            mark_ranks(rank, a, false);
        }
    }
    Some(sum / pairs as f64)
}

/// Mean of `f` over the unordered pairs of `items`, or `None` with fewer than two items.
pub(crate) fn mean_pairwise<T>(items: &[T], f: impl Fn(&T, &T) -> f64) -> Option<f64> {
    if items.len() < 2 {
        return None;
    }
    let mut sum = 0.0;
    let mut pairs = 0u64;
    for i in 0..items.len() {
        for j in i + 1..items.len() {
            sum += f(&items[i], &items[j]);
            pairs += 1;
        }
    }
    Some(sum / pairs as f64)
}

/// Extrapolated Rank-Biased Overlap (Webber, Moffat and Zobel 2010, eq. 32) of two ranked
/// lists with persistence `p` (expected in `(0, 1)`; [`RBO_P`] is 0.9).
///
/// Repeated items keep their first rank. With `L` the longer list (length `l`), `S` the
/// shorter (length `s`) and `X_d` the number of items shared by the depth-`d` prefixes
/// (`S` counted whole once `d > s`):
/// RBO = (1−p)/p · (Σ_{d=1..l} X_d/d · p^d + Σ_{d=s+1..l} X_s·(d−s)/(s·d) · p^d)
///       + ((X_l − X_s)/l + X_s/s) · p^l.
/// The agreement at each depth, X_d/d, has numerator X_d and denominator d.
/// Identical non-empty lists score 1, disjoint lists 0; two empty lists score 1 and one
/// empty list against a non-empty one scores 0. The result is clamped to `[0, 1]` against
/// rounding error. An out-of-range `p` is clamped into `[1e-9, 1 − 1e-9]`.
pub fn rbo<T: Eq + Hash>(a: &[T], b: &[T], p: f64) -> f64 {
    rbo_distinct(&dedup_keep_first(a), &dedup_keep_first(b), p)
}

/// [`rbo`] of two lists that hold no repeated item (as [`dedup_keep_first`] leaves them),
/// for callers that deduplicate each list once rather than once per pair.
pub(crate) fn rbo_distinct<T: Eq + Hash>(a: &[T], b: &[T], p: f64) -> f64 {
    let p = if p.is_nan() { RBO_P } else { p.clamp(1e-9, 1.0 - 1e-9) };
    let (long, short) = if a.len() >= b.len() { (a, b) } else { (b, a) };
    let (l, s) = (long.len(), short.len());
    if l == 0 {
        return 1.0;
    }
    if s == 0 {
        return 0.0;
    }
    // Membership in a prefix: a linear scan for short lists (the common case: parsed lists
    // have a handful of items), a hash set beyond that.
    let small = l <= 32;
    let mut seen_long: HashSet<&T> = HashSet::new();
    let mut seen_short: HashSet<&T> = HashSet::new();
    let mut x = 0usize;
    let mut x_s = 0usize;
    let mut sum = 0.0;
    let mut p_d = 1.0;
    for d in 1..=l {
        p_d *= p;
        let item = &long[d - 1];
        let in_short = if small { short[..(d - 1).min(s)].contains(item) } else { seen_short.contains(item) };
        if in_short {
            x += 1;
        }
        if !small {
            seen_long.insert(item);
        }
        if d <= s {
            let other = &short[d - 1];
            let in_long = if small { long[..d].contains(other) } else { seen_long.contains(other) };
            if in_long {
                x += 1;
            }
            if !small {
                seen_short.insert(other);
            }
        }
        if d == s {
            x_s = x;
        }
        sum += x as f64 / d as f64 * p_d;
        if d > s {
            sum += x_s as f64 * (d - s) as f64 / (s * d) as f64 * p_d;
        }
    }
    let x_l = x;
    let tail = ((x_l - x_s) as f64 / l as f64 + x_s as f64 / s as f64) * p_d;
    ((1.0 - p) / p * sum + tail).clamp(0.0, 1.0)
}

/// `items` without repeats, each kept at its first position.
pub(crate) fn dedup_keep_first<T: Eq + Hash>(items: &[T]) -> Vec<&T> {
    if items.len() <= 32 {
        let mut out: Vec<&T> = Vec::with_capacity(items.len());
        for item in items {
            if !out.contains(&item) {
                out.push(item);
            }
        }
        return out;
    }
    let mut seen = HashSet::with_capacity(items.len());
    items.iter().filter(|item| seen.insert(*item)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn close(actual: f64, expect: f64) {
        assert!((actual - expect).abs() < 1e-12, "{actual} != {expect}");
    }

    #[test]
    fn wilson_matches_hand_computation() {
        // 2 of 3: centre (2/3 + z²/6)/(1 + z²/3), checked with a separate calculation.
        let [lo, hi] = wilson_interval(2, 3).unwrap();
        assert!((lo - 0.2076596).abs() < 1e-6, "{lo}");
        assert!((hi - 0.9385081).abs() < 1e-6, "{hi}");
        assert_eq!(wilson_interval(0, 0), None);
        assert_eq!(wilson_interval(4, 3), None);
        assert_eq!(wilson_interval(0, 5).unwrap()[0], 0.0);
        assert_eq!(wilson_interval(5, 5).unwrap()[1], 1.0);
    }

    #[test]
    fn jaccard_counts_sets() {
        close(jaccard(&["a", "b", "b"], &["b", "c"]), 1.0 / 3.0);
        close(jaccard::<&str>(&[], &[]), 1.0);
        close(jaccard(&["a"], &[]), 0.0);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(
            std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(256)))]

        /// The bitset path gives the very floats of the sorted-merge path, across one and
        /// several 64-bit words.
        #[test]
        fn bitset_jaccard_equals_sorted_merge(
            sets in proptest::collection::vec(proptest::collection::btree_set(0u32..150, 0..40), 0..8),
        ) {
            let sets: Vec<Vec<u32>> = sets.into_iter().map(|s| s.into_iter().collect()).collect();
            let slices: Vec<&[u32]> = sets.iter().map(Vec::as_slice).collect();
            let mut scratch = JaccardScratch::default();
            let got = mean_pairwise_jaccard_ids(&slices, &mut scratch);
            proptest::prop_assert_eq!(got.map(f64::to_bits), mean_pairwise_jaccard(&sets).map(f64::to_bits));
            // The scratch is left clean for the next prompt.
            proptest::prop_assert!(scratch.local.iter().all(|&l| l == u32::MAX));
        }

        /// The rank-and-table path gives the very floats of `rbo_distinct` pair by pair,
        /// including empty lists and lists of different lengths.
        #[test]
        fn table_rbo_equals_rbo_distinct(
            pool in proptest::collection::vec(proptest::collection::vec(0u32..24, 0..14), 1..7),
            picks in proptest::collection::vec(0usize..7, 0..10),
        ) {
            // Lists picked from a small pool, so that some repeat (scored once per class).
            let lists: Vec<Vec<u32>> = picks
                .iter()
                .map(|&i| dedup_keep_first(&pool[i % pool.len()]).into_iter().copied().collect())
                .collect();
            let slices: Vec<&[u32]> = lists.iter().map(Vec::as_slice).collect();
            let mut scratch = RboScratch::default();
            let got = mean_pairwise_rbo_ids(&slices, RBO_P, &mut scratch);
            let want = mean_pairwise(&slices, |a, b| rbo_distinct(a, b, RBO_P));
            proptest::prop_assert_eq!(got.map(f64::to_bits), want.map(f64::to_bits));
            // The scratch is left clean for the next prompt.
            proptest::prop_assert!(scratch.rank.iter().chain(&scratch.joins).all(|&v| v == 0));
        }
    }

    #[test]
    fn rbo_hand_cases() {
        close(rbo(&["a", "b", "c"], &["a", "b", "c"], 0.9), 1.0);
        close(rbo(&["a", "b"], &["c", "d"], 0.9), 0.0);
        // [a,b] vs [b,a]: X_1 = 0, X_2 = 2; (0.1/0.9)·(0 + 1·0.81) + 1·0.81 = 0.9.
        close(rbo(&["a", "b"], &["b", "a"], 0.9), 0.9);
        // A prefix extrapolates to agreement: [a] vs [a, b] scores 1.
        close(rbo(&["a"], &["a", "b"], 0.9), 1.0);
        close(rbo::<&str>(&[], &[], 0.9), 1.0);
        close(rbo(&["a"], &[], 0.9), 0.0);
    }
}
