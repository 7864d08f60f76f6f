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

use crate::analysis::alias::PreparedAlias;
use crate::analysis::pawc::PreparedAnswer;
use crate::model::{Mention, Target};
use crate::text::{normalize_for_match, normalize_for_match_into};

/// Characters of context kept on each side of the first hit.
pub const CONTEXT_CHARS: usize = 80;

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
    /// metrics would find again; see `analysis::pawc`). A target whose id appears twice
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
    use crate::builders::aliased as target;
    use crate::model::TargetKind;

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
