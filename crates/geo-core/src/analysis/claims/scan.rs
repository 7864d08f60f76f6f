//! One pass over a sentence finds every pattern of a run's rules that occurs in it: the
//! targets' aliases (rule 2), the facts' cues (rule 3), the built-in risk cues and the watch
//! terms (rule 6), each matched like an alias ([`PreparedAlias`]: the matching normal form,
//! ASCII word boundaries).
//!
//! Searching for each of some ninety patterns on its own costs a scan of the sentence per
//! pattern, and a CJK pattern's scan stops at every character that shares its last UTF-8 byte.
//! Here the patterns are indexed by their first character, and each character of the sentence
//! is looked up once: only the patterns that start with it are compared there.

use rustc_hash::FxHashMap;

use crate::analysis::alias::PreparedAlias;

/// The patterns of a run's rules, indexed by first character, each once.
#[derive(Debug, Clone, Default)]
pub(crate) struct Patterns {
    list: Vec<PreparedAlias>,
    /// Pattern ids by their normal form, so that a cue listed twice is one pattern.
    ids: FxHashMap<String, u32>,
    /// Pattern ids by first character: ASCII ones by code, the others in a map.
    ascii: Vec<Vec<u32>>,
    other: FxHashMap<char, Vec<u32>>,
}

impl Patterns {
    /// No pattern yet.
    pub(crate) fn new() -> Self {
        Patterns { ascii: vec![Vec::new(); 128], ..Patterns::default() }
    }

    /// The id of `text` (an alias, a cue) as a pattern; `None` for a blank one.
    pub(crate) fn add(&mut self, text: &str) -> Option<u32> {
        let alias = PreparedAlias::new(0, text)?;
        if let Some(id) = self.ids.get(alias.norm()) {
            return Some(*id);
        }
        let id = self.list.len() as u32;
        let first = alias.norm().chars().next()?;
        match first.is_ascii() {
            true => self.ascii[first as usize].push(id),
            false => self.other.entry(first).or_default().push(id),
        }
        self.ids.insert(alias.norm().to_string(), id);
        self.list.push(alias);
        Some(id)
    }

    /// How many patterns there are (the length of [`Patterns::scan`]'s `found`).
    pub(crate) fn len(&self) -> usize {
        self.list.len()
    }

    /// Sets `found[id]` for every pattern that occurs in `norm` (a text in the matching normal
    /// form); `found` holds [`Patterns::len`] flags, all false on entry.
    pub(crate) fn scan(&self, norm: &str, found: &mut [bool]) {
        for (at, c) in norm.char_indices() {
            let candidates = match c.is_ascii() {
                true => &self.ascii[c as usize],
                false => match self.other.get(&c) {
                    Some(ids) => ids,
                    None => continue,
                },
            };
            for &id in candidates {
                let id = id as usize;
                if !found[id] && self.list[id].match_at(norm, at).is_some() {
                    found[id] = true;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::normalize_for_match;

    /// The patterns found in `text`, in the order they were added.
    #[track_caller]
    fn check(patterns: &[&str], text: &str, expect: &[&str]) {
        let mut p = Patterns::new();
        let ids: Vec<Option<u32>> = patterns.iter().map(|t| p.add(t)).collect();
        let mut found = vec![false; p.len()];
        p.scan(&normalize_for_match(text), &mut found);
        let got: Vec<&str> = patterns
            .iter()
            .zip(&ids)
            .filter(|(_, id)| id.is_some_and(|id| found[id as usize]))
            .map(|(t, _)| *t)
            .collect();
        assert_eq!(got, expect, "{text:?}");
    }

    #[test]
    fn every_pattern_once_by_the_alias_rules() {
        let patterns = ["投诉", "不推荐", "scam", "Scam", "GEO", "元构场", " ", "boost"];
        // `GEO` and `boost` are not words of `GEOBoost`; `Scam` is `scam`; a blank one is none.
        check(&patterns, "元构场有投诉，GEOBoost 不是 SCAM。", &["投诉", "scam", "Scam", "元构场"]);
        check(&patterns, "", &[]);
        check(&patterns, "GEO boost", &["GEO", "boost"]);
    }
}
