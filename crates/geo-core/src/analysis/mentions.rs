//! `match_targets` (seed §5.3): literal alias matching of tracked targets in a text.
//!
//! The text and every alias go through NFKC and lower-casing; offsets are counted in
//! Unicode scalar values of that normalised text. An alias made only of ASCII needs a
//! neighbour that is not `[a-z0-9]` on both sides ("George" is not "GEO"); an alias with
//! CJK or other non-ASCII characters has no word boundary (Chinese has no spaces). For a
//! mixed alias such as `GEO探针` the boundary is checked on an edge only when that edge's
//! character is an ASCII letter or digit. Overlapping hits of one target are merged, so
//! `元构场` inside `元构场智能科技` counts once while both aliases are recorded.

use crate::model::{Mention, Target};
use unicode_normalization::{is_nfkc_quick, IsNormalized, UnicodeNormalization};

/// Characters of context kept on each side of the first hit.
pub const CONTEXT_CHARS: usize = 80;

/// NFKC + lower-case: the normal form every match runs on.
pub fn normalize_for_match(text: &str) -> String {
    // ASCII is already NFKC: only case folding remains (the common case for URLs, titles
    // and English answers). Text that is already NFKC skips the decomposition machinery.
    if text.is_ascii() {
        return text.to_ascii_lowercase();
    }
    let mut out = String::with_capacity(text.len());
    if is_nfkc_quick(text.chars()) == IsNormalized::Yes {
        out.extend(text.chars().flat_map(char::to_lowercase));
    } else {
        out.extend(text.nfkc().flat_map(char::to_lowercase));
    }
    out
}

fn is_word_char(c: char) -> bool {
    c.is_ascii_lowercase() || c.is_ascii_digit()
}

/// A hit of one alias: `[start, end)` in chars of the normalised text.
#[derive(Debug, Clone, Copy)]
struct Hit {
    start: usize,
    end: usize,
}

/// All hits of `alias` (already normalised, non-empty) in `chars`.
fn find_alias(chars: &[char], alias: &[char]) -> Vec<Hit> {
    let mut hits = Vec::new();
    if alias.is_empty() || alias.len() > chars.len() {
        return hits;
    }
    let all_ascii = alias.iter().all(char::is_ascii);
    let check_left = all_ascii || is_word_char(alias[0]);
    let check_right = all_ascii || is_word_char(alias[alias.len() - 1]);
    let first = alias[0];
    for start in 0..=(chars.len() - alias.len()) {
        if chars[start] != first || chars[start..start + alias.len()] != *alias {
            continue;
        }
        let end = start + alias.len();
        if check_left && start > 0 && is_word_char(chars[start - 1]) {
            continue;
        }
        if check_right && end < chars.len() && is_word_char(chars[end]) {
            continue;
        }
        hits.push(Hit { start, end });
    }
    hits
}

/// Merges overlapping intervals (touching intervals stay separate).
fn merge(mut hits: Vec<Hit>) -> Vec<Hit> {
    hits.sort_by_key(|h| (h.start, h.end));
    let mut out: Vec<Hit> = Vec::with_capacity(hits.len());
    for h in hits {
        match out.last_mut() {
            Some(last) if h.start < last.end => last.end = last.end.max(h.end),
            _ => out.push(h),
        }
    }
    out
}

/// A prepared matcher: the targets' aliases normalised once, matched against many texts
/// (the answer, every source title, every list item).
#[derive(Debug, Clone)]
pub struct TargetMatcher<'a> {
    targets: &'a [Target],
    /// Per target: (index into `target.aliases`, normalised alias chars).
    aliases: Vec<Vec<(usize, Vec<char>)>>,
}

impl<'a> TargetMatcher<'a> {
    /// Normalises every non-blank alias of `targets` (the run's alias snapshot, brand first).
    pub fn new(targets: &'a [Target]) -> Self {
        let aliases = targets
            .iter()
            .map(|t| {
                t.aliases
                    .iter()
                    .enumerate()
                    .filter_map(|(i, alias)| {
                        let norm: Vec<char> = normalize_for_match(alias.trim()).chars().collect();
                        (!norm.iter().all(|c| c.is_whitespace())).then_some((i, norm))
                    })
                    .collect()
            })
            .collect();
        TargetMatcher { targets, aliases }
    }

    /// The targets this matcher was built from.
    pub fn targets(&self) -> &'a [Target] {
        self.targets
    }

    /// Finds the tracked targets named in `text`; see [`match_targets`].
    pub fn match_text(&self, text: &str) -> Vec<Mention> {
        let normalised = normalize_for_match(text);
        let chars: Vec<char> = normalised.chars().collect();
        let mut found: Vec<(usize, usize, Mention)> = Vec::new();
        for (target_index, (target, aliases)) in self.targets.iter().zip(&self.aliases).enumerate() {
            let mut hits = Vec::new();
            let mut matched_aliases: Vec<String> = Vec::new();
            for (alias_index, norm) in aliases {
                let alias_hits = find_alias(&chars, norm);
                if !alias_hits.is_empty() {
                    let alias = &target.aliases[*alias_index];
                    if !matched_aliases.contains(alias) {
                        matched_aliases.push(alias.clone());
                    }
                    hits.extend(alias_hits);
                }
            }
            let merged = merge(hits);
            let Some(first) = merged.first().copied() else { continue };
            let from = first.start.saturating_sub(CONTEXT_CHARS);
            let to = (first.end + CONTEXT_CHARS).min(chars.len());
            let context: String = chars[from..to].iter().collect();
            found.push((
                first.start,
                target_index,
                Mention {
                    target_id: target.id.clone(),
                    count: merged.len() as u32,
                    order: 0,
                    first_index: first.start as u32,
                    context: context.trim().to_string(),
                    matched_aliases,
                    list_position: None,
                },
            ));
        }
        found.sort_by_key(|(start, index, _)| (*start, *index));
        found
            .into_iter()
            .enumerate()
            .map(|(i, (_, _, mut m))| {
                m.order = i as u32 + 1;
                m
            })
            .collect()
    }

    /// Ids of the targets named in `text`, in snapshot order.
    pub fn mentioned_ids(&self, text: &str) -> Vec<String> {
        let mentions = self.match_text(text);
        self.targets.iter().filter(|t| mentions.iter().any(|m| m.target_id == t.id)).map(|t| t.id.clone()).collect()
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
