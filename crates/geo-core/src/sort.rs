//! One stable sort for geo-core and geo-web, compiled once.
//!
//! `slice::sort_by` is generic over the element type and the comparator, so every call
//! site with its own closure gets its own copy of the standard library's driftsort (the
//! web bundle had 27 of them, several KB each before `wasm-opt`). The
//! functions here sort a permutation of indices instead, with the comparator behind a
//! `dyn` reference: the sorting code exists once, and each call site adds only its
//! comparator and a small permutation loop. Why the bundle size matters:
//! `docs/adr/0006-wasm-size.md`.
//!
//! The result is exactly the standard stable sort's: a stable sort of the indices orders
//! equal elements by their original position, which is the order `sort_by` keeps.

use std::cmp::Ordering;

/// Sorts `v` stably by `compare`: the same order as `v.sort_by(compare)`.
pub fn sort_by<T>(v: &mut [T], mut compare: impl FnMut(&T, &T) -> Ordering) {
    if v.len() < 2 {
        return;
    }
    let mut perm: Vec<usize> = (0..v.len()).collect();
    {
        let items: &[T] = v;
        sort_indices(&mut perm, &mut |a, b| compare(&items[a], &items[b]));
    }
    apply_permutation(v, &mut perm);
}

/// Sorts `v` stably by the key `f` returns: the same order as `v.sort_by_key(f)`.
pub fn sort_by_key<T, K: Ord>(v: &mut [T], mut f: impl FnMut(&T) -> K) {
    sort_by(v, |a, b| f(a).cmp(&f(b)));
}

/// Sorts `v` stably by the key `f` returns, calling `f` once per element: the same order
/// as `v.sort_by_cached_key(f)`.
pub fn sort_by_cached_key<T, K: Ord>(v: &mut [T], f: impl FnMut(&T) -> K) {
    if v.len() < 2 {
        return;
    }
    let keys: Vec<K> = v.iter().map(f).collect();
    let mut perm: Vec<usize> = (0..v.len()).collect();
    sort_indices(&mut perm, &mut |a, b| keys[a].cmp(&keys[b]));
    apply_permutation(v, &mut perm);
}

/// Sorts `v` stably in ascending order: the same order as `v.sort()`, and as
/// `v.sort_unstable()` wherever equal elements are indistinguishable (integers, strings).
pub fn sort<T: Ord>(v: &mut [T]) {
    sort_by(v, T::cmp);
}

/// The one instantiation of the standard stable sort: indices compared through `compare`.
#[inline(never)]
fn sort_indices(perm: &mut [usize], compare: &mut dyn FnMut(usize, usize) -> Ordering) {
    perm.sort_by(|&a, &b| compare(a, b));
}

/// Moves `v[perm[i]]` to position `i` for every `i`, following each cycle of the
/// permutation with swaps; `perm` is left as the identity.
fn apply_permutation<T>(v: &mut [T], perm: &mut [usize]) {
    for start in 0..perm.len() {
        let mut at = start;
        while perm[at] != start {
            let next = perm[at];
            v.swap(at, next);
            perm[at] = at;
            at = next;
        }
        perm[at] = at;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn check(input: &[(u8, u8)]) {
        let mut expect = input.to_vec();
        expect.sort_by_key(|p| p.0);
        let mut got = input.to_vec();
        sort_by_key(&mut got, |p| p.0);
        assert_eq!(got, expect, "input {input:?}");
    }

    #[test]
    fn matches_the_standard_stable_sort() {
        check(&[]);
        check(&[(1, 0)]);
        check(&[(2, 0), (1, 1)]);
        check(&[(1, 0), (1, 1), (0, 2), (1, 3), (0, 4)]);
        check(&[(3, 0), (2, 1), (1, 2), (0, 3), (3, 4), (2, 5), (1, 6), (0, 7)]);
        // Pseudo-random inputs over a five-key alphabet: many equal keys and long cycles.
        let mut x: u32 = 1;
        for len in 0..40 {
            let input: Vec<(u8, u8)> = (0..len)
                .map(|i| {
                    x = x.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                    (((x >> 16) % 5) as u8, i as u8)
                })
                .collect();
            check(&input);
        }
    }

    #[test]
    fn cached_key_matches_the_standard_sort() {
        let input = [(3u8, 0u8), (1, 1), (3, 2), (0, 3), (1, 4)];
        let mut expect = input.to_vec();
        expect.sort_by_cached_key(|p| p.0);
        let mut got = input.to_vec();
        sort_by_cached_key(&mut got, |p| p.0);
        assert_eq!(got, expect);
    }

    #[test]
    fn sort_matches_slice_sort() {
        let mut a = vec!["b", "a", "c", "a", "b"];
        sort(&mut a);
        assert_eq!(a, ["a", "a", "b", "b", "c"]);
    }
}
