//! `match_targets` (seed §5.3): literal alias matching of tracked targets in a text.
//!
//! The text and every alias go through NFKC and lower-casing; offsets are counted in
//! Unicode scalar values of that normalised text. An alias made only of ASCII needs a
//! neighbour that is not `[a-z0-9]` on both sides ("George" is not "GEO"); an alias with
//! CJK or other non-ASCII characters has no word boundary (Chinese has no spaces). For a
//! mixed alias such as `GEO探针` the boundary is checked on an edge only when that edge's
//! character is an ASCII letter or digit. Overlapping hits of one target are merged, so
//! `元构场` inside `元构场智能科技` counts once while both aliases are recorded.
//!
//! Matching runs on the bytes of the normalised UTF-8 text: a match of a valid UTF-8 alias
//! always starts and ends on character boundaries, and the `[a-z0-9]` boundary rule only
//! ever looks at ASCII, which is one byte. Byte offsets are turned into character offsets
//! only for the first hit of a target (its `firstIndex` and context).

use crate::metrics::geo_words::PreparedAnswer;
use crate::model::{Mention, Target};
use unicode_normalization::{is_nfkc_quick, IsNormalized, UnicodeNormalization};

/// Characters of context kept on each side of the first hit.
pub const CONTEXT_CHARS: usize = 80;

/// NFKC + lower-case: the normal form every match runs on.
pub fn normalize_for_match(text: &str) -> String {
    let mut out = String::new();
    normalize_for_match_into(text, &mut out);
    out
}

/// [`normalize_for_match`] into a reusable buffer (`out` is cleared first).
///
/// The text is cut before every "safe" character (see `fold_safe`); a piece that is one safe
/// character maps directly, any other piece goes through the full NFKC + lower-case. This
/// equals normalising the whole text because no composition or reordering crosses a safe
/// character (a property test checks it against the whole-text form).
pub fn normalize_for_match_into(text: &str, out: &mut String) {
    out.clear();
    out.reserve(text.len());
    // ASCII is already NFKC: only case folding remains (the common case for URLs, titles
    // and English answers).
    if text.is_ascii() {
        out.push_str(text);
        out.make_ascii_lowercase();
        return;
    }
    // Pieces are a safe character (or the text start) and the unsafe characters after it.
    // A safe character is emitted at once, as if its piece were just itself; when unsafe
    // characters follow, that emission is undone and the whole piece is normalised.
    // Characters that fold to themselves (CJK, punctuation, lower-case ASCII: most of an
    // answer) are not emitted one by one but copied in bulk from `copy_from`.
    let bytes = text.as_bytes();
    let mut copy_from = 0;
    // The previous character, when safe: (its start, its folded form when that was pushed).
    let mut prev_safe: Option<(usize, Option<char>)> = None;
    let mut i = 0;
    while i < bytes.len() {
        if is_ideograph_at(bytes, i) {
            // A run of U+4E00..U+9FFF: safe and folding to itself, no need to decode it.
            let mut last = i;
            while is_ideograph_at(bytes, i) {
                last = i;
                i += 3;
            }
            prev_safe = Some((last, None));
            continue;
        }
        let (c, len) = decode_at(bytes, i);
        if let Some(f) = fold_safe(c) {
            if f == c {
                prev_safe = Some((i, None));
            } else {
                out.push_str(&text[copy_from..i]);
                out.push(f);
                copy_from = i + len;
                prev_safe = Some((i, Some(f)));
            }
            i += len;
            continue;
        }
        let piece_start = match prev_safe {
            Some((start, None)) => {
                out.push_str(&text[copy_from..start]);
                start
            }
            Some((start, Some(f))) => {
                out.truncate(out.len() - f.len_utf8());
                start
            }
            None => {
                out.push_str(&text[copy_from..i]);
                i
            }
        };
        let mut end = i + len;
        while end < bytes.len() {
            let (n, n_len) = decode_at(bytes, end);
            if fold_safe(n).is_some() {
                break;
            }
            end += n_len;
        }
        normalize_whole(&text[piece_start..end], out);
        copy_from = end;
        prev_safe = None;
        i = end;
    }
    out.push_str(&text[copy_from..]);
}

/// Whether a CJK Unified Ideograph U+4E00..U+9FFF starts at byte `at` of valid UTF-8
/// `bytes` (three bytes long, lead byte 0xE4 with a second byte from 0xB8, or 0xE5..0xE9):
/// the bulk of a Chinese text, characters that fold to themselves and are words of their own.
#[inline(always)]
pub(crate) fn is_ideograph_at(bytes: &[u8], at: usize) -> bool {
    match bytes.get(at) {
        Some(0xE5..=0xE9) => true,
        Some(0xE4) => bytes.get(at + 1).is_some_and(|&b| b >= 0xB8),
        _ => false,
    }
}

/// The character starting at byte `i` of valid UTF-8 `bytes`, and its length in bytes.
#[inline(always)]
pub(crate) fn decode_at(bytes: &[u8], i: usize) -> (char, usize) {
    let b0 = u32::from(bytes[i]);
    let cont = |k: usize| u32::from(bytes[i + k] & 0x3F);
    let (u, len) = match b0 {
        0..=0x7F => (b0, 1),
        0xC0..=0xDF => (((b0 & 0x1F) << 6) | cont(1), 2),
        0xE0..=0xEF => (((b0 & 0x0F) << 12) | (cont(1) << 6) | cont(2), 3),
        _ => (((b0 & 0x07) << 18) | (cont(1) << 12) | (cont(2) << 6) | cont(3), 4),
    };
    // Valid UTF-8 always decodes to a scalar value; the fallback is never taken.
    (char::from_u32(u).unwrap_or(char::REPLACEMENT_CHARACTER), len)
}

/// NFKC + lower-case of a whole text, appended to `out`: the definition the fast path of
/// [`normalize_for_match_into`] must agree with.
fn normalize_whole(text: &str, out: &mut String) {
    if is_nfkc_quick(text.chars()) == IsNormalized::Yes {
        out.extend(text.chars().flat_map(char::to_lowercase));
    } else {
        out.extend(text.nfkc().flat_map(char::to_lowercase));
    }
}

/// The single-character form of `c` under NFKC + lower-case when `c` can be folded on its
/// own, else `None`.
///
/// Safe characters are starters that never compose with a preceding character, so a text
/// can be folded piecewise before them: ASCII, CJK Unified Ideographs, CJK punctuation
/// without a decomposition, curly quotes, the ideographic space (→ space) and fullwidth
/// ASCII (U+FF01..U+FF5E → U+0021..U+007E).
#[inline(always)]
pub(crate) fn fold_safe(c: char) -> Option<char> {
    let u = c as u32;
    match u {
        0..=0x7F => Some(c.to_ascii_lowercase()),
        0x4E00..=0x9FFF | 0x3001..=0x3003 | 0x3008..=0x3011 | 0x2018 | 0x2019 | 0x201C | 0x201D => Some(c),
        0x3000 => Some(' '),
        0xFF01..=0xFF5E => char::from_u32(u - 0xFEE0).map(|a| a.to_ascii_lowercase()),
        _ => None,
    }
}

/// Whether the byte is an ASCII `[a-z0-9]` (a whole character in UTF-8).
#[inline(always)]
fn is_word_byte(b: u8) -> bool {
    b.is_ascii_lowercase() || b.is_ascii_digit()
}

/// An alias in the normal form, with its boundary checks precomputed.
#[derive(Debug, Clone)]
pub(crate) struct PreparedAlias {
    /// Index into `Target::aliases`.
    index: usize,
    /// The normalised alias (never blank).
    norm: String,
    check_left: bool,
    check_right: bool,
}

impl PreparedAlias {
    /// Normalises alias number `index` of a target; `None` for a blank one.
    pub(crate) fn new(index: usize, alias: &str) -> Option<Self> {
        let norm = normalize_for_match(alias.trim());
        if norm.chars().all(char::is_whitespace) {
            return None;
        }
        let bytes = norm.as_bytes();
        let all_ascii = norm.is_ascii();
        let check_left = all_ascii || is_word_byte(bytes[0]);
        let check_right = all_ascii || is_word_byte(bytes[bytes.len() - 1]);
        Some(PreparedAlias { index, norm, check_left, check_right })
    }

    /// Every usable alias of `target`.
    pub(crate) fn for_target(target: &Target) -> Vec<Self> {
        target.aliases.iter().enumerate().filter_map(|(i, a)| Self::new(i, a)).collect()
    }

    /// Byte offsets `[start, end)` of every hit of this alias in `text` (normalised), in
    /// order, overlapping hits included, with the boundary rule applied.
    pub(crate) fn hits<'t>(&'t self, text: &'t str) -> impl Iterator<Item = (usize, usize)> + 't {
        let first = self.norm.chars().next().unwrap_or_default();
        let mut from = 0;
        std::iter::from_fn(move || {
            // `str::find` of a char is a memchr: much faster than a byte loop.
            while let Some(found) = text.get(from..).and_then(|rest| rest.find(first)) {
                let start = from + found;
                from = start + first.len_utf8();
                if let Some(end) = self.match_at(text, start) {
                    return Some((start, end));
                }
            }
            None
        })
    }

    /// The first byte of the normalised alias: every hit starts with it.
    pub(crate) fn first_byte(&self) -> u8 {
        self.norm.as_bytes()[0]
    }

    /// Whether a hit of this alias starts at byte `start` of `text`, a text made only of
    /// characters that [`fold_safe`] folds on their own, compared as if it were folded (its
    /// normal form is then the fold of each character, one for one).
    pub(crate) fn matches_unfolded(&self, text: &str, start: usize) -> bool {
        let bytes = text.as_bytes();
        let folded_at = |at: usize| fold_safe(decode_at(bytes, at).0);
        let needle = self.norm.as_bytes();
        let end = match bytes.get(start..start + needle.len()) {
            // ASCII folds by lower-casing alone (the alias is lower-case already).
            Some(window) if window.is_ascii() && needle.is_ascii() => {
                if !window.eq_ignore_ascii_case(needle) {
                    return false;
                }
                start + needle.len()
            }
            _ => {
                let mut at = start;
                for a in self.norm.chars() {
                    if at >= bytes.len() || folded_at(at) != Some(a) {
                        return false;
                    }
                    at += decode_at(bytes, at).1;
                }
                at
            }
        };
        let is_word = |f: Option<char>| f.is_some_and(|f| f.is_ascii() && is_word_byte(f as u8));
        let left_is_word = || match bytes[start - 1] {
            b if b.is_ascii() => is_word_byte(b.to_ascii_lowercase()),
            _ => is_word(text[..start].chars().next_back().and_then(fold_safe)),
        };
        let right_is_word = || match bytes[end] {
            b if b.is_ascii() => is_word_byte(b.to_ascii_lowercase()),
            _ => is_word(folded_at(end)),
        };
        !(self.check_left && start > 0 && left_is_word() || self.check_right && end < bytes.len() && right_is_word())
    }

    /// The end of a hit of this alias starting at byte `start` of `text` (normalised), if
    /// there is one there (boundary rule included).
    #[inline]
    pub(crate) fn match_at(&self, text: &str, start: usize) -> Option<usize> {
        let hay = text.as_bytes();
        let needle = self.norm.as_bytes();
        let end = start + needle.len();
        let found = end <= hay.len()
            && hay[start..end] == *needle
            && !(self.check_left && start > 0 && is_word_byte(hay[start - 1]))
            && !(self.check_right && end < hay.len() && is_word_byte(hay[end]));
        found.then_some(end)
    }
}

/// A hit of one target: `[start, end)` in bytes of the normalised text.
#[derive(Debug, Clone, Copy)]
struct Hit {
    start: usize,
    end: usize,
}

/// Merges overlapping intervals (touching intervals stay separate).
fn merge(hits: &mut Vec<Hit>) {
    hits.sort_unstable_by_key(|h| (h.start, h.end));
    let mut kept = 0;
    for i in 0..hits.len() {
        let h = hits[i];
        if kept > 0 && h.start < hits[kept - 1].end {
            hits[kept - 1].end = hits[kept - 1].end.max(h.end);
        } else {
            hits[kept] = h;
            kept += 1;
        }
    }
    hits.truncate(kept);
}

/// A prepared matcher: the targets' aliases normalised once, matched against many texts
/// (the answer, every source title, every list item).
#[derive(Debug, Clone)]
pub struct TargetMatcher<'a> {
    targets: &'a [Target],
    /// Per target, its usable aliases.
    aliases: Vec<Vec<PreparedAlias>>,
    /// Per target, whether no other target of the snapshot has its id.
    unique_id: Vec<bool>,
}

impl<'a> TargetMatcher<'a> {
    /// Normalises every non-blank alias of `targets` (the run's alias snapshot, brand first).
    pub fn new(targets: &'a [Target]) -> Self {
        let aliases = targets.iter().map(PreparedAlias::for_target).collect();
        let unique_id = targets.iter().map(|t| targets.iter().filter(|o| o.id == t.id).count() == 1).collect();
        TargetMatcher { targets, aliases, unique_id }
    }

    /// The targets this matcher was built from.
    pub fn targets(&self) -> &'a [Target] {
        self.targets
    }

    /// Finds the tracked targets named in `text`; see [`match_targets`].
    pub fn match_text(&self, text: &str) -> Vec<Mention> {
        self.match_normalised(&normalize_for_match(text))
    }

    /// [`match_text`](TargetMatcher::match_text) on a text already in the matching normal
    /// form (`normalize_for_match`), for callers that need that form too.
    pub fn match_normalised(&self, normalised: &str) -> Vec<Mention> {
        self.match_inner(normalised, false)
    }

    /// [`match_normalised`](TargetMatcher::match_normalised), also scoring each mention's
    /// `position_adjusted_word_count` from the alias hits just found (the same hits the
    /// metrics would find again; see `metrics::geo_words`). A target whose id appears twice
    /// in the snapshot gets no stored score: the metrics then compute it from the first one.
    pub fn match_normalised_scored(&self, normalised: &str) -> Vec<Mention> {
        self.match_inner(normalised, true)
    }

    fn match_inner(&self, normalised: &str, score: bool) -> Vec<Mention> {
        let mut found: Vec<(usize, usize, Mention)> = Vec::new();
        let mut hits: Vec<Hit> = Vec::new();
        let mut sentences: Option<PreparedAnswer> = None;
        let mut starts: Vec<usize> = Vec::new();
        for (target_index, (target, aliases)) in self.targets.iter().zip(&self.aliases).enumerate() {
            hits.clear();
            let mut matched_aliases: Vec<String> = Vec::new();
            for alias in aliases {
                let before = hits.len();
                hits.extend(alias.hits(normalised).map(|(start, end)| Hit { start, end }));
                if hits.len() > before {
                    let name = &target.aliases[alias.index];
                    if !matched_aliases.contains(name) {
                        matched_aliases.push(name.clone());
                    }
                }
            }
            if hits.is_empty() {
                continue;
            }
            // Every raw hit start (before merging), as the position-adjusted score counts them.
            let pawc = (score && self.unique_id[target_index]).then(|| {
                let prepared = sentences.get_or_insert_with(|| {
                    let mut p = PreparedAnswer::for_aliases([]);
                    p.reset_normalised(normalised);
                    p
                });
                starts.clear();
                starts.extend(hits.iter().map(|h| h.start));
                prepared.score_starts(&mut starts)
            });
            merge(&mut hits);
            let Some(first) = hits.first().copied() else { continue };
            // Character offsets, counted only for the first hit.
            let head = &normalised[..first.start];
            let from = head.char_indices().rev().nth(CONTEXT_CHARS - 1).map_or(0, |(i, _)| i);
            let tail = &normalised[first.end..];
            let to = first.end + tail.char_indices().nth(CONTEXT_CHARS).map_or(tail.len(), |(i, _)| i);
            found.push((
                first.start,
                target_index,
                Mention {
                    target_id: target.id.clone(),
                    count: hits.len() as u32,
                    order: 0,
                    first_index: head.chars().count() as u32,
                    context: normalised[from..to].trim().to_string(),
                    matched_aliases,
                    list_position: None,
                    position_adjusted_word_count: pawc,
                },
            ));
        }
        crate::sort::sort_by_key(&mut found, |(start, index, _)| (*start, *index));
        found
            .into_iter()
            .enumerate()
            .map(|(i, (_, _, mut m))| {
                m.order = i as u32 + 1;
                m
            })
            .collect()
    }

    /// Indices (into [`TargetMatcher::targets`]) of the targets named in `text`, ordered by
    /// first hit, ties by snapshot order: the order of [`TargetMatcher::match_text`], without
    /// building mentions. `scratch` holds the normalised text between calls.
    pub(crate) fn named_targets(&self, text: &str, scratch: &mut String) -> Vec<usize> {
        normalize_for_match_into(text, scratch);
        let mut firsts: Vec<(usize, usize)> = Vec::new();
        for (target_index, aliases) in self.aliases.iter().enumerate() {
            let first = aliases.iter().filter_map(|a| a.hits(scratch).next()).map(|(start, _)| start).min();
            if let Some(start) = first {
                firsts.push((start, target_index));
            }
        }
        crate::sort::sort(&mut firsts);
        firsts.into_iter().map(|(_, i)| i).collect()
    }

    /// Ids of the targets named in `text`, in snapshot order.
    pub fn mentioned_ids(&self, text: &str) -> Vec<String> {
        let named = self.named_targets(text, &mut String::new());
        self.targets
            .iter()
            .filter(|t| named.iter().any(|&i| self.targets[i].id == t.id))
            .map(|t| t.id.clone())
            .collect()
    }
}

/// Finds the tracked targets named in `text`.
///
/// Returns one [`Mention`] per target with at least one hit, ordered by first position
/// (ties by the targets' order in `targets`, which is the run's alias snapshot) with
/// `order` 1-based in that order. `count` is the number of merged intervals, not of raw
/// alias occurrences. `list_position` is left `None` (see `parse_list_items`).
/// To match many texts against the same targets, build one [`TargetMatcher`].
pub fn match_targets(text: &str, targets: &[Target]) -> Vec<Mention> {
    TargetMatcher::new(targets).match_text(text)
}

/// Ids of the targets named in `text`, in snapshot order (used for `titleMentions`).
pub fn mentioned_target_ids(text: &str, targets: &[Target]) -> Vec<String> {
    TargetMatcher::new(targets).mentioned_ids(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::TargetKind;

    fn target(id: &str, kind: TargetKind, aliases: &[&str]) -> Target {
        Target {
            id: id.into(),
            kind,
            label: aliases.first().copied().unwrap_or(id).into(),
            aliases: aliases.iter().map(|s| s.to_string()).collect(),
            domains: vec![],
        }
    }

    fn whole(text: &str) -> String {
        let mut out = String::new();
        normalize_whole(text, &mut out);
        out
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(
            std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(256)))]

        /// The piecewise fold equals NFKC + lower-case of the whole text.
        #[test]
        fn piecewise_fold_equals_whole_text_normalisation(text in "[a-zA-Z0-9 .,é\u{0301}\u{0308}\u{00C5}\u{212B}\u{FB01}\u{2460}\u{3000}-\u{3012}\u{3131}\u{1100}\u{1161}\u{11A8}\u{AC00}\u{4DBE}-\u{4E05}\u{9FFE}-\u{A001}\u{F900}\u{FF01}-\u{FF5E}\u{FF61}-\u{FF9F}\u{2018}-\u{201D}\u{00B2}\u{0130}\u{03A3}\u{0B47}\u{0B3E}]{0,24}") {
            proptest::prop_assert_eq!(normalize_for_match(&text), whole(&text));
        }

        /// The same for arbitrary characters.
        #[test]
        fn piecewise_fold_equals_whole_text_on_any_text(text in "\\PC{0,16}") {
            proptest::prop_assert_eq!(normalize_for_match(&text), whole(&text));
        }
    }

    #[test]
    fn fold_matches_whole_text_on_fixed_cases() {
        for text in [
            "ＡＣＭＥ，推荐！",
            "e\u{0301}Ａ\u{0301}",
            "ﾊﾟ\u{3000}ｶﾞ",
            "Ω\u{212B}ﬁ①",
            "\u{1100}\u{1161}\u{11A8}가",
            "İx",
            "",
        ] {
            assert_eq!(normalize_for_match(text), whole(text), "{text}");
        }
    }

    #[test]
    fn george_is_not_geo() {
        let t = [target("b", TargetKind::Brand, &["GEO"])];
        assert!(match_targets("George went home", &t).is_empty());
        assert!(match_targets("geography", &t).is_empty());
        let m = match_targets("Best GEO tools: GEO-Probe", &t);
        assert_eq!(m.len(), 1);
        assert_eq!(m[0].count, 2);
    }

    #[test]
    fn nested_cjk_aliases_count_once_with_both_recorded() {
        let t = [target("b", TargetKind::Brand, &["元构场", "元构场智能科技"])];
        let m = match_targets("推荐元构场智能科技。", &t);
        assert_eq!(m.len(), 1);
        assert_eq!(m[0].count, 1);
        assert_eq!(m[0].matched_aliases, vec!["元构场".to_string(), "元构场智能科技".to_string()]);
        assert_eq!(m[0].first_index, 2);
    }

    #[test]
    fn cjk_alias_needs_no_boundary_and_nfkc_folds_fullwidth() {
        let t = [target("b", TargetKind::Brand, &["Acme"])];
        let m = match_targets("我们推荐ＡＣＭＥ公司", &t);
        assert_eq!(m.len(), 1, "fullwidth ACME folds to acme; CJK neighbours are not [a-z0-9]");
        let t = [target("b", TargetKind::Brand, &["探针"])];
        assert_eq!(match_targets("GEO探针很好", &t).len(), 1);
    }

    #[test]
    fn order_by_first_position_ties_by_snapshot_order() {
        let t = [
            target("brand", TargetKind::Brand, &["Acme"]),
            target("c1", TargetKind::Competitor, &["Beta"]),
            target("c2", TargetKind::Competitor, &["Acme Beta"]),
        ];
        let m = match_targets("Beta first, then Acme Beta", &t);
        let ids: Vec<_> = m.iter().map(|m| (m.target_id.as_str(), m.order)).collect();
        assert_eq!(ids, vec![("c1", 1), ("brand", 2), ("c2", 3)]);
        let t2 = [target("x", TargetKind::Brand, &["ab"]), target("y", TargetKind::Competitor, &["ab c"])];
        let m = match_targets("ab c", &t2);
        assert_eq!((m[0].target_id.as_str(), m[1].target_id.as_str()), ("x", "y"));
    }

    #[test]
    fn context_is_about_80_chars_each_side() {
        let t = [target("b", TargetKind::Brand, &["acme"])];
        let text = format!("{} acme {}", "x".repeat(200), "y".repeat(200));
        let m = match_targets(&text, &t);
        assert_eq!(m[0].context.chars().count(), 80 + 4 + 80);
    }

    #[test]
    fn blank_aliases_are_ignored() {
        let t = [target("b", TargetKind::Brand, &["", "  "])];
        assert!(match_targets("anything", &t).is_empty());
    }
}
