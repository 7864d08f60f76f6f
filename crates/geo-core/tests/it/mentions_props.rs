//! Property tests of `match_targets` (seed §5.3) against a naive oracle: merged intervals
//! (count), first position, ASCII word boundaries, `order` a permutation, determinism.
//! Case count from `PROPTEST_CASES` (CI sets 10,000), 256 by default.

use geo_core::analysis::mentions::match_targets;
use geo_core::model::{Target, TargetKind};
use geo_core::text::normalize_for_match;
use proptest::prelude::*;

#[rustfmt::skip]
const ALIASES: &[&str] = &[
    "geo", "GEO", "Acme", "ac", "a", "aa", "aba", "元构场", "元构场智能科技", "探针", "GEO探针", "ｇｅｏ", "Beta Labs",
    "ß", "İ", "ﬁ", "1", "x-y", " ", "", "Ａ1",
];

#[rustfmt::skip]
const PIECES: &[&str] = &[
    "geo", "George", "GEO", "acme", "Acme", "ac", "a", "b", "aba", "元构场", "智能科技", "探针", "ｇｅｏ", "Beta",
    " Labs", "ß", "ss", "İ", "i", "ﬁ", "fi", "1", "x-y", "-", " ", "，", "。", "é", "\u{301}", "Ａ", "\u{3000}", "_",
];

fn targets_strategy() -> impl Strategy<Value = Vec<Target>> {
    let aliases = prop::collection::vec(
        prop_oneof![prop::sample::select(ALIASES).prop_map(String::from), "[a-c元构 ]{1,3}"],
        0..4,
    );
    prop::collection::vec(aliases, 1..5).prop_map(|all| {
        all.into_iter()
            .enumerate()
            .map(|(i, aliases)| Target {
                id: format!("t{i}"),
                kind: if i == 0 { TargetKind::Brand } else { TargetKind::Competitor },
                label: format!("T{i}"),
                aliases,
                domains: vec![],
            })
            .collect()
    })
}

fn text_strategy() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![prop::sample::select(PIECES).prop_map(String::from), any::<char>().prop_map(String::from)],
        0..30,
    )
    .prop_map(|p| p.concat())
}

fn is_word(c: char) -> bool {
    c.is_ascii_lowercase() || c.is_ascii_digit()
}

/// Naive oracle: every occurrence by `starts_with` at each char, boundary rule re-derived,
/// intervals merged as connected components of the "shares a character" graph.
fn oracle(text: &str, target: &Target) -> Vec<(usize, usize)> {
    let norm = normalize_for_match(text);
    let chars: Vec<char> = norm.chars().collect();
    let starts: Vec<usize> = norm.char_indices().map(|(b, _)| b).collect();
    let mut hits = Vec::new();
    for alias in &target.aliases {
        let a = normalize_for_match(alias.trim());
        if a.chars().all(char::is_whitespace) {
            continue;
        }
        let ac: Vec<char> = a.chars().collect();
        let ascii = a.is_ascii();
        for (ci, &b) in starts.iter().enumerate() {
            if !norm[b..].starts_with(&a) {
                continue;
            }
            let end = ci + ac.len();
            let left_ok = !(ascii || is_word(ac[0])) || ci == 0 || !is_word(chars[ci - 1]);
            let right_ok = !(ascii || is_word(ac[ac.len() - 1])) || end == chars.len() || !is_word(chars[end]);
            if left_ok && right_ok {
                hits.push((ci, end));
            }
        }
    }
    // Union-find over overlapping pairs (quadratic on purpose: a different method).
    let mut parent: Vec<usize> = (0..hits.len()).collect();
    fn find(p: &mut [usize], i: usize) -> usize {
        let mut r = i;
        while p[r] != r {
            r = p[r];
        }
        p[i] = r;
        r
    }
    for i in 0..hits.len() {
        for j in 0..hits.len() {
            if hits[i].0 < hits[j].1 && hits[j].0 < hits[i].1 {
                let (a, b) = (find(&mut parent, i), find(&mut parent, j));
                parent[a] = b;
            }
        }
    }
    let mut merged: Vec<(usize, usize)> = Vec::new();
    for i in 0..hits.len() {
        let root = find(&mut parent, i);
        let (lo, hi) = (0..hits.len())
            .filter(|&j| find(&mut parent, j) == root)
            .fold((usize::MAX, 0), |(lo, hi), j| (lo.min(hits[j].0), hi.max(hits[j].1)));
        if !merged.contains(&(lo, hi)) {
            merged.push((lo, hi));
        }
    }
    merged.sort();
    merged
}

proptest! {
    #![proptest_config(crate::config())]

    #[test]
    fn counts_equal_merged_non_overlapping_intervals(text in text_strategy(), targets in targets_strategy()) {
        let mentions = match_targets(&text, &targets);
        for t in &targets {
            let merged = oracle(&text, t);
            for w in merged.windows(2) {
                prop_assert!(w[0].1 <= w[1].0, "merged intervals never overlap: {:?}", merged);
            }
            let m = mentions.iter().find(|m| m.target_id == t.id);
            match (m, merged.first()) {
                (None, None) => {}
                (Some(m), Some(first)) => {
                    prop_assert_eq!(m.count as usize, merged.len());
                    prop_assert_eq!(m.first_index as usize, first.0);
                }
                (m, first) => prop_assert!(false, "mention {:?} vs oracle first {:?}", m, first),
            }
        }
    }

    #[test]
    fn ascii_aliases_never_match_inside_a_word(text in text_strategy(), targets in targets_strategy()) {
        let chars: Vec<char> = normalize_for_match(&text).chars().collect();
        for m in match_targets(&text, &targets) {
            let t = targets.iter().find(|t| t.id == m.target_id).unwrap();
            for alias in &m.matched_aliases {
                prop_assert!(t.aliases.contains(alias));
                let a: Vec<char> = normalize_for_match(alias.trim()).chars().collect();
                if a.is_empty() || !a.iter().all(char::is_ascii) {
                    continue;
                }
                // A recorded ASCII alias has at least one occurrence whose neighbours are not [a-z0-9].
                let clean = (0..chars.len().saturating_sub(a.len() - 1)).filter(|&s| chars[s..s + a.len()] == a[..]).any(|s| {
                    (s == 0 || !is_word(chars[s - 1])) && (s + a.len() == chars.len() || !is_word(chars[s + a.len()]))
                });
                prop_assert!(clean, "alias {:?} recorded without a clean occurrence", alias);
            }
            // The first hit: some ASCII alias starting there has clean edges, or a non-ASCII one starts there.
            let i = m.first_index as usize;
            let starts_here = t.aliases.iter().any(|alias| {
                let a: Vec<char> = normalize_for_match(alias.trim()).chars().collect();
                if a.is_empty() || a.iter().all(|c| c.is_whitespace()) || i + a.len() > chars.len() || chars[i..i + a.len()] != a[..] {
                    return false;
                }
                !a.iter().all(char::is_ascii)
                    || ((i == 0 || !is_word(chars[i - 1])) && (i + a.len() == chars.len() || !is_word(chars[i + a.len()])))
            });
            prop_assert!(starts_here, "first hit of {} at {} has no clean alias", m.target_id, i);
        }
    }

    #[test]
    fn order_is_a_permutation_sorted_by_first_index(text in text_strategy(), targets in targets_strategy()) {
        let mentions = match_targets(&text, &targets);
        let mut orders: Vec<u32> = mentions.iter().map(|m| m.order).collect();
        orders.sort_unstable();
        prop_assert_eq!(orders, (1..=mentions.len() as u32).collect::<Vec<_>>());
        let index_of = |id: &str| targets.iter().position(|t| t.id == id).unwrap();
        let mut by_order = mentions.clone();
        by_order.sort_by_key(|m| m.order);
        for w in by_order.windows(2) {
            prop_assert!((w[0].first_index, index_of(&w[0].target_id)) < (w[1].first_index, index_of(&w[1].target_id)));
        }
        for m in &mentions {
            prop_assert!(m.count >= 1 && !m.matched_aliases.is_empty() && m.list_position.is_none());
        }
    }

    #[test]
    fn results_are_identical_when_run_twice(text in text_strategy(), targets in targets_strategy()) {
        prop_assert_eq!(match_targets(&text, &targets), match_targets(&text, &targets));
    }
}
