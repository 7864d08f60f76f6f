//! `parse_list_items` (seed §5.4): finds the recommendation list in an answer, the list that
//! says "who is recommended, and in which place".
//!
//! Hand-written line scanner, no regex. The answer is read line by line (fenced code blocks
//! opened by ```` ``` ```` or `~~~` are skipped and act as a blank line), every list-looking run
//! of lines becomes a candidate group, each group is scored, and the best group with at
//! least [`MIN_ITEMS`] items wins (ties: the first in the answer).
//!
//! Line shapes, decided here:
//! - numbered: `1.` `1、` `1)` `1）` `(1)` `（1）`, numbers 1..=999. `1.` and `1)` need a space,
//!   `*`, `_` or a non-ASCII character after them, so `3.14` and `v1.2` are not items; `1.元构场`
//!   is. The number may be bold: `**1. 公司名**`, `**1.** 公司名`, and the title too: `1. **公司名**`.
//! - numbered headings: `### 1. 公司名` is a numbered item; the item's text runs until the next
//!   heading of the same or a higher level, so bullets and paragraphs under it are its body.
//!   Unnumbered headings are never items.
//! - bullets: `-` `*` `+` followed by a space, and `•` `·` `●` `▪` (space optional). A line of
//!   three or more `-`, `*` or `_` is a thematic break, not a bullet.
//! - Markdown tables: a row with `|`, a separator row (`|---|:--:|`), then at least two data
//!   rows. The title comes from the column whose header names a company/name/brand, else the
//!   first column whose cells are mostly non-numeric; the position from a rank column (header
//!   like 排名/序号/Rank/#, or a column whose every cell is a rank number) else row order.
//! - not supported: Chinese numerals (`一、`), letters (`a.`), emoji digits, block quotes,
//!   Markdown's all-`1.` auto-numbering (each `1.` restarts), and unnumbered bold lines used
//!   as item headers (`**元构场**` on its own line).
//!
//! Grouping: items of one group share the marker style (`1.` vs `1、` vs heading level) and
//! indentation; blank lines between items are allowed. Lines indented at least two columns
//! deeper than the item, nested bullets, and lines that follow an item without a blank line
//! belong to the current item's text. Inside one run of lines numbers must increase; a
//! restart (`1.` after `3.`) starts a new group. A numbered list interrupted by a paragraph,
//! a table, an unnumbered heading or another list is resumed when a later line of the same
//! style carries the next number (n+1); when several interrupted lists fit, the most recent
//! wins, and the interrupting lines are appended to the text of item n (they describe it).
//!
//! Scoring per item: +5 when a target matches (title, else the first [`MATCH_PREFIX_CHARS`]
//! characters of the text), +2 for a company-like word in the title, +1 for a title of 2–40
//! characters, −5 for a generic title (总结, 建议, Tips, Pros…). There is no minimum score: the
//! seed picks the best group with at least two items; a list of generic titles matches no
//! target and yields no `otherEntities`, so it cannot fake a list position.
//!
//! The pieces, one stage each: `lines` (line shapes), `table` (tables), `group` (candidate
//! lists), `score` (item scores and `otherEntities`) and `title` ([`clean_title`]).

mod group;
mod lines;
mod score;
mod table;
mod title;

pub use score::{
    COMPANY_WORDS_EN, COMPANY_WORDS_ZH, GENERIC_WORDS_EN, GENERIC_WORDS_ZH, GENERIC_ZH_MAX_CHARS, MAX_OTHER_ENTITIES,
    SCORE_COMPANY_WORD, SCORE_GENERIC, SCORE_TARGET, SCORE_TITLE_LENGTH,
};
pub use title::{clean_title, MAX_TITLE_CHARS};

use crate::analysis::mentions::TargetMatcher;
use crate::model::{ListItem, Mention, Target};
use group::{build_groups, Builder, RawItem};
use score::{item_score, other_entities};

/// A list needs at least this many items to count as a recommendation list.
pub const MIN_ITEMS: usize = 2;
/// Characters of an item's text (after its title) searched for a target.
pub const MATCH_PREFIX_CHARS: usize = 160;

/// The recommendation list of one answer.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ParsedList {
    /// Items of the winning group, in answer order (empty when no group has two items).
    pub items: Vec<ListItem>,
    /// Titles of unmatched items that look like a company or product name, deduplicated, at
    /// most [`MAX_OTHER_ENTITIES`].
    pub other_entities: Vec<String>,
}

/// Parses the recommendation list of `answer` (seed §5.4, steps 1–7 and 9).
///
/// `matchedTargetId` is the target named first in the title (earliest hit, ties by snapshot
/// order), else the first named in the first [`MATCH_PREFIX_CHARS`] characters of the text.
/// Step 8 (list positions on mentions) is [`apply_list_positions`].
pub fn parse_list_items(answer: &str, targets: &[Target]) -> ParsedList {
    parse_list_items_with(answer, &TargetMatcher::new(targets))
}

/// [`parse_list_items`] with a prepared matcher.
pub(crate) fn parse_list_items_with(answer: &str, matcher: &TargetMatcher) -> ParsedList {
    let Builder { groups, log, .. } = build_groups(answer);
    let mut best: Option<(i64, usize)> = None;
    let mut scratch = String::new();
    // Losing groups are scored from their titles and text prefixes only: a line logged while
    // lists were interrupted can sit in many groups' texts, so joining every group's whole
    // text would be quadratic on a hostile answer.
    for (g, group) in groups.iter().enumerate() {
        if group.items.len() < MIN_ITEMS {
            continue;
        }
        let score: i64 = group
            .items
            .iter()
            .map(|raw| {
                let title = raw.title(&log);
                let text = raw.text(&log, Some(MATCH_PREFIX_CHARS));
                let matched = first_target(&title, matcher, &mut scratch)
                    .or_else(|| first_target(prefix(&text, MATCH_PREFIX_CHARS), matcher, &mut scratch));
                item_score(&title, matched.is_some())
            })
            .sum();
        if best.is_none_or(|(b, _)| score > b) {
            best = Some((score, g));
        }
    }
    let Some((_, g)) = best else { return ParsedList::default() };
    let items: Vec<ListItem> =
        groups[g].items.iter().map(|raw| finish_item(raw, &log, matcher, &mut scratch)).collect();
    let other_entities = other_entities(&items);
    ParsedList { items, other_entities }
}

/// Sets `Mention::list_position` from the parsed list (seed §5.4 step 8).
///
/// Every `list_position` is first cleared, then for each item every target named in its
/// title or in the first [`MATCH_PREFIX_CHARS`] characters of its text gets the item's
/// position. When a target is on several items the lowest position wins (it is the place
/// where the list first recommends it). A matched target with no mention is skipped: it
/// cannot happen for a list parsed from the same answer, but other inputs must not panic.
pub fn apply_list_positions(mentions: &mut [Mention], items: &[ListItem], targets: &[Target]) {
    apply_list_positions_with(mentions, items, &TargetMatcher::new(targets));
}

/// [`apply_list_positions`] with a prepared matcher.
pub(crate) fn apply_list_positions_with(mentions: &mut [Mention], items: &[ListItem], matcher: &TargetMatcher) {
    for m in mentions.iter_mut() {
        m.list_position = None;
    }
    let targets = matcher.targets();
    let mut scratch = String::new();
    for item in items {
        let mut ids: Vec<&str> =
            matcher.named_targets(&item.title, &mut scratch).into_iter().map(|i| targets[i].id.as_str()).collect();
        for i in matcher.named_targets(prefix(&item.text, MATCH_PREFIX_CHARS), &mut scratch) {
            let id = targets[i].id.as_str();
            if !ids.contains(&id) {
                ids.push(id);
            }
        }
        for id in ids {
            if let Some(m) = mentions.iter_mut().find(|m| m.target_id == id) {
                m.list_position = Some(m.list_position.map_or(item.position, |p| p.min(item.position)));
            }
        }
    }
}

/// The first `chars` characters of `s`.
fn prefix(s: &str, chars: usize) -> &str {
    s.char_indices().nth(chars).map_or(s, |(end, _)| &s[..end])
}

/// Id of the target named first in `text` (earliest hit, ties by snapshot order).
fn first_target(text: &str, matcher: &TargetMatcher, scratch: &mut String) -> Option<String> {
    let first = *matcher.named_targets(text, scratch).first()?;
    Some(matcher.targets()[first].id.clone())
}

/// A winning group's item as a [`ListItem`], with its whole text.
fn finish_item(raw: &RawItem, log: &[&str], matcher: &TargetMatcher, scratch: &mut String) -> ListItem {
    let title = raw.title(log);
    let text = raw.text(log, None);
    let matched_target_id = first_target(&title, matcher, scratch)
        .or_else(|| first_target(prefix(&text, MATCH_PREFIX_CHARS), matcher, scratch));
    ListItem { position: raw.position, title, text, matched_target_id }
}
