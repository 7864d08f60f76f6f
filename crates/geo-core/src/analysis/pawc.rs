//! Position-Adjusted Word Count (Aggarwal et al., KDD 2024, "GEO: Generative Engine
//! Optimization"): how much of an answer, weighted towards its start, is about a target.
//!
//! For an answer split into sentences S (|S| of them, `pos` 0-based), a target's score is
//! Σ over sentences s mentioning it of words(s) · exp(−pos(s)/|S|), divided by the words of
//! the whole answer. Sentences, words and alias hits are all taken on the matching normal
//! form (NFKC + lower-case, as `match_targets`), and alias hits follow `match_targets`'s
//! boundary rule, so "mentions the target" means the same thing here as in a Mention.

use crate::analysis::alias::PreparedAlias;
use crate::model::{Mention, Target};
use crate::text::fold::fold_safe;
use crate::text::utf8::{decode_at, first_byte, is_ideograph_at};
use crate::text::{is_cjk, is_joiner, is_word_byte, joins_word, normalize_for_match_into};

/// An answer prepared once for any number of targets: its sentences, word counts and the
/// places where an alias hit may start.
///
/// Most answers are made only of characters that fold on their own (see
/// `text::fold`: ASCII, Latin-1 letters, CJK, kana, Hangul, full-width forms, CJK punctuation); their normal form is
/// the fold of each character, one for one, so they are scanned as written, folding each
/// character on the fly. Any other answer is normalised first. Offsets are bytes of the
/// scanned text: sentences and hits are only compared with each other, and byte order is
/// character order.
pub(crate) struct PreparedAnswer<'a> {
    /// The answer as written (borrowed, not copied).
    answer: &'a str,
    /// Its normal form, when it is not scanned as written.
    normalized: String,
    /// Whether the scanned text is the answer as written (folded on the fly) rather than
    /// `normalized`.
    as_written: bool,
    /// (start byte, words) of each sentence with at least one word, in order.
    sentences: Vec<(usize, u32)>,
    total_words: u32,
    /// Which bytes start an alias of interest (set once, see [`PreparedAnswer::for_aliases`]).
    first_bytes: [bool; 256],
    /// (start, first folded byte) of the characters that may start an alias: the only places
    /// a hit can start, collected during the scan so scoring needs no search of its own. An
    /// ASCII `[a-z0-9]` right after another is left out: the boundary rule rejects it anyway.
    candidates: Vec<(usize, u8)>,
}

/// Whether `c`, followed by `next()`, ends a sentence.
fn is_terminator(c: char, next: impl Fn() -> Option<char>) -> bool {
    match c {
        '。' | '!' | '?' | ';' | '！' | '？' | '；' | '\n' => true,
        '.' => next().is_none_or(char::is_whitespace),
        _ => false,
    }
}

/// What one scan found.
struct Scan {
    total_words: u32,
}

/// Splits `text` into sentences and counts words, recording alias candidates.
///
/// With `AS_WRITTEN`, each character is folded on the fly and the scan gives up (`None`)
/// at the first character that cannot be folded on its own; otherwise `text` is already
/// in the normal form.
fn scan<const AS_WRITTEN: bool>(
    text: &str,
    first_bytes: &[bool; 256],
    sentences: &mut Vec<(usize, u32)>,
    candidates: &mut Vec<(usize, u8)>,
) -> Option<Scan> {
    sentences.clear();
    candidates.clear();
    let fold = |c: char| if AS_WRITTEN { fold_safe(c) } else { Some(c) };
    let bytes = text.as_bytes();
    let (mut start, mut words, mut in_word, mut total_words) = (0, 0u32, false, 0);
    // Whether the previous character (folded) is an ASCII `[a-z0-9]`. An alias whose first
    // byte is such a character always checks its left boundary, so no hit can start right
    // after one: such places are not candidates.
    let mut after_word_byte = false;
    // Whether an alias can start with an ideograph of the fast path below.
    let ideograph_candidates = first_bytes[0xE4..=0xE9].contains(&true);
    let mut at = 0;
    while at < bytes.len() {
        if !ideograph_candidates && is_ideograph_at(bytes, at) {
            // A run of ideographs (U+4E00..U+9FFF, the bulk of a Chinese answer, folding to
            // themselves): one word each, none a terminator nor a candidate. The run's last
            // character goes through the general step below.
            let run_start = at;
            while is_ideograph_at(bytes, at) {
                at += 3;
            }
            at -= 3;
            if at > run_start {
                words += ((at - run_start) / 3) as u32;
                in_word = false;
                after_word_byte = false;
            }
        }
        let (next_at, ends_sentence) = if is_ideograph_at(bytes, at) {
            if first_bytes[usize::from(bytes[at])] {
                candidates.push((at, bytes[at]));
            }
            words += 1;
            in_word = false;
            after_word_byte = false;
            (at + 3, false)
        } else {
            let (raw, len) = decode_at(bytes, at);
            let c = fold(raw)?;
            let lead = first_byte(c);
            if first_bytes[usize::from(lead)] && !(after_word_byte && is_word_byte(lead)) {
                candidates.push((at, lead));
            }
            after_word_byte = is_word_byte(lead);
            let next_at = at + len;
            // Decoded only where it matters: joiners and `.` (rare). A character that cannot
            // be folded on its own stops the scan when it is reached, whatever is decided here.
            let next = || (next_at < bytes.len()).then(|| decode_at(bytes, next_at).0).and_then(fold);
            if c.is_ascii() {
                if c.is_ascii_alphanumeric() {
                    if !in_word {
                        words += 1;
                    }
                    in_word = true;
                } else if !(in_word && is_joiner(c) && joins_word(next())) {
                    in_word = false;
                }
            } else if is_cjk(c) {
                words += 1;
                in_word = false;
            } else if matches!(c, '\u{3000}'..='\u{3004}' | '\u{3008}'..='\u{3020}') {
                // CJK punctuation and symbols: never part of a word (a fast path before the
                // Unicode tables; 々〆〇 U+3005..U+3007 are CJK, above).
                in_word = false;
            } else if c.is_alphanumeric() {
                if !in_word {
                    words += 1;
                }
                in_word = true;
            } else if in_word && is_joiner(c) && joins_word(next()) {
                // Joiners inside a word (`v2.0`, `don't`, `e-commerce`) keep it one word.
            } else {
                in_word = false;
            }
            (next_at, is_terminator(c, next))
        };
        if next_at == bytes.len() || ends_sentence {
            if words > 0 {
                sentences.push((start, words));
                total_words += words;
            }
            start = next_at;
            words = 0;
            in_word = false;
        }
        at = next_at;
    }
    Some(Scan { total_words })
}

impl<'a> PreparedAnswer<'a> {
    /// Splits `answer` into sentences and counts words.
    ///
    /// A sentence is a maximal span ending at a terminator (`。！？；!?;`, a newline, or a `.`
    /// followed by white space or the end); spans without a word are not sentences. A word is
    /// one CJK character or a maximal run of other letters and digits, where `.`, `'`, `’`,
    /// `-` and `_` between two such characters join rather than split (`v2.0` is one word).
    pub(crate) fn new(answer: &'a str) -> Self {
        let mut prepared = Self::for_aliases([]);
        prepared.reset(answer);
        prepared
    }

    /// An empty answer, to be [`reset`](PreparedAnswer::reset), that can score the given
    /// aliases (and only those) with [`PreparedAnswer::score_with`].
    pub(crate) fn for_aliases<'p>(aliases: impl IntoIterator<Item = &'p PreparedAlias>) -> Self {
        let mut first_bytes = [false; 256];
        for alias in aliases {
            first_bytes[usize::from(alias.first_byte())] = true;
        }
        PreparedAnswer {
            answer: "",
            normalized: String::new(),
            as_written: true,
            sentences: Vec::new(),
            total_words: 0,
            first_bytes,
            candidates: Vec::new(),
        }
    }

    /// Prepares `answer` in place, reusing this value's buffers.
    pub(crate) fn reset(&mut self, answer: &'a str) {
        self.answer = answer;
        self.normalized.clear();
        let as_written = scan::<true>(answer, &self.first_bytes, &mut self.sentences, &mut self.candidates);
        let found = match as_written {
            Some(found) => {
                self.as_written = true;
                found
            }
            None => {
                normalize_for_match_into(answer, &mut self.normalized);
                self.as_written = false;
                scan::<false>(&self.normalized, &self.first_bytes, &mut self.sentences, &mut self.candidates)
                    .unwrap_or(Scan { total_words: 0 })
            }
        };
        self.total_words = found.total_words;
    }

    /// Like [`reset`](PreparedAnswer::reset) for an answer already in the matching normal
    /// form (`normalize_for_match`), which the mention analysis has at hand: scanned as is,
    /// never normalised again. Scores equal those of `reset` on the original answer.
    pub(crate) fn reset_normalised(&mut self, normalised: &str) {
        self.answer = "";
        self.normalized.clear();
        self.normalized.push_str(normalised);
        self.as_written = false;
        let found = scan::<false>(&self.normalized, &self.first_bytes, &mut self.sentences, &mut self.candidates)
            .unwrap_or(Scan { total_words: 0 });
        self.total_words = found.total_words;
    }

    /// Words in the whole answer.
    pub(crate) fn total_words(&self) -> u32 {
        self.total_words
    }

    /// The score of one target given its prepared aliases (0 when it is not mentioned or the
    /// answer has no word), using a reusable scratch buffer. The aliases must be among those
    /// this value was made [`for`](PreparedAnswer::for_aliases).
    pub(crate) fn score_with(&self, aliases: &[PreparedAlias], hit_sentences: &mut Vec<usize>) -> f64 {
        if self.total_words == 0 || self.sentences.is_empty() {
            return 0.0;
        }
        hit_sentences.clear();
        for alias in aliases {
            let first = alias.first_byte();
            for &(start, _) in self.candidates.iter().filter(|&&(_, lead)| lead == first) {
                let hit = if self.as_written {
                    alias.matches_unfolded(self.answer, start)
                } else {
                    alias.match_at(&self.normalized, start).is_some()
                };
                if !hit {
                    continue;
                }
                // The sentence whose start is the last one at or before the hit.
                let idx = self.sentences.partition_point(|(s, _)| *s <= start);
                if idx > 0 {
                    hit_sentences.push(idx - 1);
                }
            }
        }
        self.weigh(hit_sentences)
    }

    /// The score given the byte offsets where the target's alias hits start in the text this
    /// value was [`reset_normalised`](PreparedAnswer::reset_normalised) with (the hits
    /// `TargetMatcher` finds there): the same number as [`score_with`](PreparedAnswer::score_with).
    /// `starts` is reused as scratch.
    pub(crate) fn score_starts(&self, starts: &mut Vec<usize>) -> f64 {
        if self.total_words == 0 || self.sentences.is_empty() {
            return 0.0;
        }
        for start in starts.iter_mut() {
            // The sentence whose start is the last one at or before the hit; usize::MAX for none.
            *start = self.sentences.partition_point(|(s, _)| *s <= *start).wrapping_sub(1);
        }
        starts.retain(|&i| i != usize::MAX);
        self.weigh(starts)
    }

    /// Σ words(s) · exp(−pos(s)/|S|) over the distinct sentence indices in `hit_sentences`,
    /// divided by the answer's words.
    fn weigh(&self, hit_sentences: &mut Vec<usize>) -> f64 {
        hit_sentences.sort_unstable();
        hit_sentences.dedup();
        let n = self.sentences.len() as f64;
        let weighted: f64 =
            hit_sentences.iter().map(|&pos| f64::from(self.sentences[pos].1) * (-(pos as f64) / n).exp()).sum();
        weighted / f64::from(self.total_words)
    }
}

/// A run's targets prepared once for scoring answers: one alias set per distinct target id
/// (the first target of an id wins, as in the run metrics), in snapshot order.
pub struct PawcTargets<'t> {
    ids: Vec<&'t str>,
    aliases: Vec<Vec<PreparedAlias>>,
}

impl<'t> PawcTargets<'t> {
    /// Prepares the aliases of `targets` (a run's alias snapshot).
    pub fn new(targets: &'t [Target]) -> Self {
        let mut ids: Vec<&'t str> = Vec::with_capacity(targets.len());
        let mut aliases = Vec::with_capacity(targets.len());
        for t in targets {
            if !ids.contains(&t.id.as_str()) {
                ids.push(t.id.as_str());
                aliases.push(PreparedAlias::for_target(t));
            }
        }
        PawcTargets { ids, aliases }
    }

    /// Sets each mention's `position_adjusted_word_count` to its target's score in `answer`
    /// (the answer the mentions were found in); `None` for a mention of an unknown target.
    /// The answer is scanned once, and not at all without mentions.
    pub fn score_mentions(&self, answer: &str, mentions: &mut [Mention]) {
        if mentions.is_empty() {
            return;
        }
        let mut prepared = PreparedAnswer::for_aliases(self.aliases.iter().flatten());
        prepared.reset(answer);
        let mut scratch = Vec::new();
        for m in mentions {
            m.position_adjusted_word_count = self
                .ids
                .iter()
                .position(|id| *id == m.target_id)
                .map(|i| prepared.score_with(&self.aliases[i], &mut scratch));
        }
    }
}

/// Position-Adjusted Word Count of each target in `answer`, in the order of `targets`.
///
/// For target t: numerator Σ_{s ∈ S, s mentions t} words(s) · exp(−pos(s)/|S|) with `pos`
/// the 0-based sentence index; denominator: the words of the whole answer. Each value is in
/// `[0, 1]`; all are 0 for an answer without words.
pub fn position_adjusted_word_count(answer: &str, targets: &[Target]) -> Vec<f64> {
    let aliases: Vec<Vec<PreparedAlias>> = targets.iter().map(PreparedAlias::for_target).collect();
    let mut prepared = PreparedAnswer::for_aliases(aliases.iter().flatten());
    prepared.reset(answer);
    aliases.iter().map(|a| prepared.score_with(a, &mut Vec::new())).collect()
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

    /// The straightforward form (one `Vec<char>` of the normal form, every alias searched at
    /// every character): the byte-level fast path must give exactly the same floats.
    fn oracle(answer: &str, targets: &[Target]) -> Vec<f64> {
        use crate::text::normalize_for_match;
        let chars: Vec<char> = normalize_for_match(answer).chars().collect();
        let mut sentences: Vec<(usize, u32)> = Vec::new();
        let (mut start, mut words, mut in_word, mut total) = (0, 0u32, false, 0u32);
        for i in 0..chars.len() {
            let c = chars[i];
            let next = chars.get(i + 1).copied();
            let joiner = is_joiner(c) && joins_word(next);
            if is_cjk(c) {
                words += 1;
                in_word = false;
            } else if c.is_alphanumeric() {
                words += u32::from(!in_word);
                in_word = true;
            } else if !(in_word && joiner) {
                in_word = false;
            }
            if is_terminator(c, || next) || i + 1 == chars.len() {
                if words > 0 {
                    sentences.push((start, words));
                    total += words;
                }
                (start, words, in_word) = (i + 1, 0, false);
            }
        }
        let word = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit();
        targets
            .iter()
            .map(|t| {
                if total == 0 {
                    return 0.0;
                }
                let mut hit: Vec<usize> = Vec::new();
                for alias in t.aliases.iter().map(|a| normalize_for_match(a.trim())) {
                    let a: Vec<char> = alias.chars().collect();
                    if a.iter().all(|c| c.is_whitespace()) || a.len() > chars.len() {
                        continue;
                    }
                    let ascii = a.iter().all(char::is_ascii);
                    let (left, right) = (ascii || word(a[0]), ascii || word(a[a.len() - 1]));
                    for s in 0..=chars.len() - a.len() {
                        let e = s + a.len();
                        if chars[s..e] == a[..]
                            && !(left && s > 0 && word(chars[s - 1]))
                            && !(right && e < chars.len() && word(chars[e]))
                        {
                            let idx = sentences.partition_point(|(st, _)| *st <= s);
                            if idx > 0 {
                                hit.push(idx - 1);
                            }
                        }
                    }
                }
                hit.sort_unstable();
                hit.dedup();
                let n = sentences.len() as f64;
                let w: f64 = hit.iter().map(|&p| f64::from(sentences[p].1) * (-(p as f64) / n).exp()).sum();
                w / f64::from(total)
            })
            .collect()
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(
            std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(256)))]

        /// Byte-level scanning and candidate-based hits equal the per-character oracle.
        #[test]
        fn pawc_equals_the_per_character_oracle(
            pieces in proptest::collection::vec(proptest::sample::select(&[
                "Acme", "acme", "ACME", "ａｃｍｅ", "George", "GEO", "geo", "探针", "元构场", "是", "好", "一个", "\u{4DC0}", "\u{4000}", "鿿", "。", "！", ".",
                ". ", "v2.0", "don't", "e-commerce", " ", "\n", "，", "é", "e\u{301}", "ﬁ", "İ", "가", "\u{3000}", "_",
                "Beta", "x", "1", "々", "・", "ア", "À", "ÀCME",
            ][..]), 0..24),
            aliases in proptest::collection::vec(proptest::sample::select(&[
                "acme", "GEO", "探针", "GEO探针", "元构场", "一个", "e", "ﬁ", "beta x", " ", "", "1", ".",
            ][..]), 1..4),
        ) {
            let answer = pieces.concat();
            let targets = vec![target("a", &aliases[..aliases.len() / 2 + 1]), target("b", &aliases)];
            let got = position_adjusted_word_count(&answer, &targets);
            let want = oracle(&answer, &targets);
            proptest::prop_assert_eq!(got.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
                want.iter().map(|v| v.to_bits()).collect::<Vec<_>>());
            // The analysis's path: scored from the matcher's own hits on the normal form.
            let matcher = crate::analysis::mentions::TargetMatcher::new(&targets);
            let mentions = matcher.match_normalised_scored(&crate::text::normalize_for_match(&answer));
            for (t, w) in targets.iter().zip(&want) {
                let stored = mentions.iter().find(|m| m.target_id == t.id).and_then(|m| m.position_adjusted_word_count);
                match stored {
                    Some(v) => proptest::prop_assert_eq!(v.to_bits(), w.to_bits()),
                    // A target the matcher does not name stores nothing; its score is 0.
                    None => proptest::prop_assert_eq!(*w, 0.0),
                }
            }
            // And through the stored-score scorer the metrics' bench uses.
            let mut again = mentions.clone();
            PawcTargets::new(&targets).score_mentions(&answer, &mut again);
            proptest::prop_assert_eq!(
                again.iter().map(|m| m.position_adjusted_word_count.map(f64::to_bits)).collect::<Vec<_>>(),
                mentions.iter().map(|m| m.position_adjusted_word_count.map(f64::to_bits)).collect::<Vec<_>>());
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
        let got = position_adjusted_word_count(text, &[target("a", &["acme"]), target("b", &["Beta"])]);
        let a = (3.0 + 2.0 * (-2.0f64 / 3.0).exp()) / 8.0;
        let b = 3.0 * (-1.0f64 / 3.0).exp() / 8.0;
        assert!((got[0] - a).abs() < 1e-12, "{got:?}");
        assert!((got[1] - b).abs() < 1e-12, "{got:?}");
    }

    #[test]
    fn pawc_respects_ascii_boundaries_and_cjk() {
        let got = position_adjusted_word_count("George 很好。GEO探针第一！", &[target("g", &["GEO"])]);
        // Sentence 0: george + 很 好 = 3 words; sentence 1: geo + 探 针 第 一 = 5 words.
        let expect = 5.0 * (-0.5f64).exp() / 8.0;
        assert!((got[0] - expect).abs() < 1e-12, "{got:?}");
    }
}
