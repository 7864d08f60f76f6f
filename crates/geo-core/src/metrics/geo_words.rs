//! Position-Adjusted Word Count (Aggarwal et al., KDD 2024, "GEO: Generative Engine
//! Optimization"): how much of an answer, weighted towards its start, is about a target.
//!
//! For an answer split into sentences S (|S| of them, `pos` 0-based), a target's score is
//! Σ over sentences s mentioning it of words(s) · exp(−pos(s)/|S|), divided by the words of
//! the whole answer. Sentences, words and alias hits are all taken on the matching normal
//! form (NFKC + lower-case, as `match_targets`), and alias hits follow `match_targets`'s
//! boundary rule, so "mentions the target" means the same thing here as in a Mention.

use crate::analysis::mentions::normalize_for_match;
use crate::model::Target;

/// An answer prepared once for any number of targets: normal-form characters and sentences.
pub(crate) struct PreparedAnswer {
    chars: Vec<char>,
    /// (start char, words) of each sentence with at least one word, in order.
    sentences: Vec<(usize, u32)>,
    total_words: u32,
}

/// An alias in the normal form, with its boundary checks precomputed.
pub(crate) struct PreparedAlias {
    chars: Vec<char>,
    check_left: bool,
    check_right: bool,
}

/// The single-character form of `c` under NFKC + lower-case when `c` can be folded on its
/// own, else `None`.
///
/// Safe characters are starters that never compose with a neighbour, so a text can be
/// folded piecewise at them: ASCII, CJK Unified Ideographs, CJK punctuation without a
/// decomposition, curly quotes, the ideographic space (→ space) and fullwidth ASCII
/// (U+FF01..U+FF5E → U+0021..U+007E).
fn fold_safe(c: char) -> Option<char> {
    let u = c as u32;
    match u {
        0..=0x7F => Some(c.to_ascii_lowercase()),
        0x4E00..=0x9FFF | 0x3001..=0x3003 | 0x3008..=0x3011 | 0x2018 | 0x2019 | 0x201C | 0x201D => {
            Some(c)
        }
        0x3000 => Some(' '),
        0xFF01..=0xFF5E => char::from_u32(u - 0xFEE0).map(|a| a.to_ascii_lowercase()),
        _ => None,
    }
}

/// The normal form of `match_targets` (NFKC, then lower-case), exactly, but fast on the
/// common characters of Chinese and English answers.
///
/// The text is cut before every safe character (see [`fold_safe`]); a piece that is one safe
/// character maps directly, any other piece goes through the full normalisation. This equals
/// normalising the whole text because no composition or reordering crosses a safe character.
pub(crate) fn fold_chars(text: &str, out: &mut Vec<char>) {
    out.clear();
    out.reserve(text.len());
    if text.is_ascii() {
        out.extend(text.bytes().map(|b| char::from(b.to_ascii_lowercase())));
        return;
    }
    let mut piece_start: Option<usize> = None;
    let mut iter = text.char_indices().peekable();
    while let Some((i, c)) = iter.next() {
        let next_is_cut = iter.peek().is_none_or(|(_, n)| fold_safe(*n).is_some());
        match (piece_start, fold_safe(c)) {
            (None, Some(folded)) if next_is_cut => out.push(folded),
            (None, _) => piece_start = Some(i),
            (Some(_), _) => {}
        }
        if let (Some(start), true) = (piece_start, next_is_cut) {
            let end = iter.peek().map_or(text.len(), |(j, _)| *j);
            out.extend(normalize_for_match(&text[start..end]).chars());
            piece_start = None;
        }
    }
}

/// [`fold_chars`] as a string.
pub(crate) fn fold_string(text: &str) -> String {
    let mut chars = Vec::new();
    fold_chars(text, &mut chars);
    chars.into_iter().collect()
}

/// Whether `c` is a CJK character, counted as one word on its own.
pub(crate) fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF      // Hiragana, Katakana
        | 0x3400..=0x4DBF    // CJK Extension A
        | 0x4E00..=0x9FFF    // CJK Unified Ideographs
        | 0xAC00..=0xD7AF    // Hangul syllables
        | 0xF900..=0xFAFF    // CJK Compatibility Ideographs
        | 0x20000..=0x2FFFF) // CJK Extensions B..
}

fn is_terminator(chars: &[char], i: usize) -> bool {
    match chars[i] {
        '。' | '!' | '?' | ';' | '！' | '？' | '；' | '\n' => true,
        '.' => chars.get(i + 1).is_none_or(|c| c.is_whitespace()),
        _ => false,
    }
}

impl PreparedAnswer {
    /// Splits `answer` into sentences and counts words.
    ///
    /// A sentence is a maximal span ending at a terminator (`。！？；!?;`, a newline, or a `.`
    /// followed by white space or the end); spans without a word are not sentences. A word is
    /// one CJK character or a maximal run of other letters and digits, where `.`, `'`, `’`,
    /// `-` and `_` between two such characters join rather than split (`v2.0` is one word).
    pub(crate) fn new(answer: &str) -> Self {
        let mut prepared = PreparedAnswer {
            chars: Vec::new(),
            sentences: Vec::new(),
            total_words: 0,
        };
        prepared.reset(answer);
        prepared
    }

    /// Prepares `answer` in place, reusing this value's buffers.
    pub(crate) fn reset(&mut self, answer: &str) {
        fold_chars(answer, &mut self.chars);
        let chars = &self.chars;
        let sentences = &mut self.sentences;
        sentences.clear();
        let mut start = 0;
        let mut words = 0u32;
        let mut in_word = false;
        let mut total_words = 0;
        for i in 0..chars.len() {
            let c = chars[i];
            if c.is_ascii() {
                if c.is_ascii_alphanumeric() {
                    if !in_word {
                        words += 1;
                    }
                    in_word = true;
                } else if !(in_word
                    && matches!(c, '.' | '\'' | '-' | '_')
                    && chars
                        .get(i + 1)
                        .is_some_and(|n| n.is_alphanumeric() && !is_cjk(*n)))
                {
                    in_word = false;
                }
            } else if is_cjk(c) {
                words += 1;
                in_word = false;
            } else if matches!(c, '\u{3000}'..='\u{3006}' | '\u{3008}'..='\u{3020}') {
                // CJK punctuation: never part of a word (a fast path before the Unicode tables).
                in_word = false;
            } else if c.is_alphanumeric() {
                if !in_word {
                    words += 1;
                }
                in_word = true;
            } else if in_word
                && matches!(c, '.' | '\'' | '’' | '-' | '_')
                && chars
                    .get(i + 1)
                    .is_some_and(|n| n.is_alphanumeric() && !is_cjk(*n))
            {
                // Joiners inside a word (`v2.0`, `don't`, `e-commerce`) keep it one word.
            } else {
                in_word = false;
            }
            if is_terminator(chars, i) || i + 1 == chars.len() {
                if words > 0 {
                    sentences.push((start, words));
                    total_words += words;
                }
                start = i + 1;
                words = 0;
                in_word = false;
            }
        }
        self.total_words = total_words;
    }

    /// Words in the whole answer.
    pub(crate) fn total_words(&self) -> u32 {
        self.total_words
    }

    /// The score of one target given its prepared aliases (0 when it is not mentioned or the
    /// answer has no word).
    pub(crate) fn score(&self, aliases: &[PreparedAlias]) -> f64 {
        self.score_with(aliases, &mut Vec::new())
    }

    /// [`PreparedAnswer::score`] with a reusable scratch buffer.
    pub(crate) fn score_with(
        &self,
        aliases: &[PreparedAlias],
        hit_sentences: &mut Vec<usize>,
    ) -> f64 {
        if self.total_words == 0 || self.sentences.is_empty() {
            return 0.0;
        }
        hit_sentences.clear();
        for alias in aliases {
            for start in alias_hits(&self.chars, alias) {
                // The sentence whose start is the last one at or before the hit.
                let idx = self.sentences.partition_point(|(s, _)| *s <= start);
                if idx > 0 {
                    hit_sentences.push(idx - 1);
                }
            }
        }
        hit_sentences.sort_unstable();
        hit_sentences.dedup();
        let n = self.sentences.len() as f64;
        let weighted: f64 = hit_sentences
            .iter()
            .map(|&pos| f64::from(self.sentences[pos].1) * (-(pos as f64) / n).exp())
            .sum();
        weighted / f64::from(self.total_words)
    }
}

impl PreparedAlias {
    /// Normalises one alias; `None` for a blank one.
    pub(crate) fn new(alias: &str) -> Option<Self> {
        let chars: Vec<char> = normalize_for_match(alias.trim()).chars().collect();
        if chars.iter().all(|c| c.is_whitespace()) {
            return None;
        }
        let all_ascii = chars.iter().all(char::is_ascii);
        let check_left = all_ascii || is_word_char(chars[0]);
        let check_right = all_ascii || is_word_char(chars[chars.len() - 1]);
        Some(PreparedAlias {
            chars,
            check_left,
            check_right,
        })
    }

    /// Every usable alias of `target`.
    pub(crate) fn for_target(target: &Target) -> Vec<Self> {
        target.aliases.iter().filter_map(|a| Self::new(a)).collect()
    }
}

fn is_word_char(c: char) -> bool {
    c.is_ascii_lowercase() || c.is_ascii_digit()
}

/// Start offsets of the hits of `alias` in `chars`, with `match_targets`'s boundary rule.
fn alias_hits<'a>(chars: &'a [char], alias: &'a PreparedAlias) -> impl Iterator<Item = usize> + 'a {
    let len = alias.chars.len();
    let last = chars.len().checked_sub(len).map_or(0, |n| n + 1);
    (0..last).filter(move |&start| {
        let end = start + len;
        chars[start] == alias.chars[0]
            && chars[start..end] == alias.chars[..]
            && !(alias.check_left && start > 0 && is_word_char(chars[start - 1]))
            && !(alias.check_right && end < chars.len() && is_word_char(chars[end]))
    })
}

/// Position-Adjusted Word Count of each target in `answer`, in the order of `targets`.
///
/// For target t: numerator Σ_{s ∈ S, s mentions t} words(s) · exp(−pos(s)/|S|) with `pos`
/// the 0-based sentence index; denominator: the words of the whole answer. Each value is in
/// `[0, 1]`; all are 0 for an answer without words.
pub fn position_adjusted_word_count(answer: &str, targets: &[Target]) -> Vec<f64> {
    let prepared = PreparedAnswer::new(answer);
    targets
        .iter()
        .map(|t| prepared.score(&PreparedAlias::for_target(t)))
        .collect()
}

/// Number of words in `text`: each CJK character is a word, and so is each maximal run of
/// other letters and digits, joined across `.`, `'`, `’`, `-` and `_` (taken on the matching
/// normal form).
pub fn word_count(text: &str) -> u32 {
    PreparedAnswer::new(text).total_words()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::TargetKind;

    fn target(id: &str, aliases: &[&str]) -> Target {
        Target {
            id: id.into(),
            kind: TargetKind::Brand,
            label: id.into(),
            aliases: aliases.iter().map(|s| s.to_string()).collect(),
            domains: vec![],
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(
            std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(256)))]

        /// The piecewise fold equals NFKC + lower-case of the whole text.
        #[test]
        fn fold_equals_full_normalisation(text in "[a-zA-Z0-9 .,é\u{0301}\u{0308}\u{00C5}\u{212B}\u{FB01}\u{2460}\u{3000}-\u{3012}\u{3131}\u{1100}\u{1161}\u{11A8}\u{AC00}\u{4E00}-\u{4E05}\u{F900}\u{FF01}-\u{FF5E}\u{FF61}-\u{FF9F}\u{2018}-\u{201D}\u{00B2}\u{0130}\u{03A3}]{0,24}") {
            proptest::prop_assert_eq!(fold_string(&text), normalize_for_match(&text));
        }
    }

    #[test]
    fn fold_matches_on_fixed_cases() {
        for text in [
            "ＡＣＭＥ，推荐！",
            "e\u{0301}Ａ\u{0301}",
            "ﾊﾟ\u{3000}ｶﾞ",
            "Ω\u{212B}ﬁ①",
            "\u{1100}\u{1161}\u{11A8}가",
        ] {
            assert_eq!(fold_string(text), normalize_for_match(text), "{text}");
        }
    }

    #[test]
    fn words_count_cjk_characters_and_latin_runs() {
        assert_eq!(word_count("推荐 Acme 工具 v2.0"), 6);
        assert_eq!(word_count("e-commerce, don't stop. Go"), 4);
        assert_eq!(word_count(""), 0);
        assert_eq!(word_count("--- ***"), 0);
    }

    #[test]
    fn pawc_weights_sentences_by_position() {
        // Sentences: "Acme is good." (3 words, pos 0), "Beta is fine." (3, pos 1),
        // "Acme wins." (2, pos 2); total 8 words, |S| = 3.
        let text = "Acme is good. Beta is fine. Acme wins.";
        let got =
            position_adjusted_word_count(text, &[target("a", &["acme"]), target("b", &["Beta"])]);
        let a = (3.0 + 2.0 * (-2.0f64 / 3.0).exp()) / 8.0;
        let b = 3.0 * (-1.0f64 / 3.0).exp() / 8.0;
        assert!((got[0] - a).abs() < 1e-12, "{got:?}");
        assert!((got[1] - b).abs() < 1e-12, "{got:?}");
    }

    #[test]
    fn pawc_respects_ascii_boundaries_and_cjk() {
        let got =
            position_adjusted_word_count("George 很好。GEO探针第一！", &[target("g", &["GEO"])]);
        // Sentence 0: george + 很 好 = 3 words; sentence 1: geo + 探 针 第 一 = 5 words.
        let expect = 5.0 * (-0.5f64).exp() / 8.0;
        assert!((got[0] - expect).abs() < 1e-12, "{got:?}");
    }
}
