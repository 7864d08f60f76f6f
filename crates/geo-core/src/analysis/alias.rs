//! [`PreparedAlias`]: one alias of a tracked target in the matching normal form, with its
//! word-boundary checks decided once. `match_targets` finds its hits and the
//! position-adjusted word count weighs them; both take "is this a hit" from here.
//!
//! An alias made only of ASCII needs a neighbour outside `[a-z0-9]` on both sides; a mixed
//! alias (`GEO探针`) checks an edge only where that edge's character is an ASCII letter or
//! digit; a CJK alias checks none (Chinese has no spaces).

use crate::model::Target;
use crate::text::fold::fold_safe;
use crate::text::utf8::decode_at;
use crate::text::{is_word_byte, normalize_for_match};

/// An alias in the normal form, with its boundary checks precomputed.
#[derive(Debug, Clone)]
pub(crate) struct PreparedAlias {
    /// Index into `Target::aliases`.
    pub(crate) index: usize,
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

    /// The normalised alias.
    pub(crate) fn norm(&self) -> &str {
        &self.norm
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
