//! The retrieval tokenizer: NFKC, lower-case, word runs and CJK bigrams.
//!
//! Stages, in order:
//! 1. NFKC normalisation (full-width `ＲＡＧ` → `RAG`, `①` → `1`, half-width katakana →
//!    full-width). Common characters whose NFKC needs no context (ASCII, Latin-1, CJK,
//!    kana, Hangul syllables, full-width punctuation) are mapped one by one; only the
//!    segments around other characters go through the general — slower — normaliser.
//! 2. Classification of every character:
//!    - CJK ([`is_cjk`]: Han, Hiragana, Katakana, Hangul) — a maximal run of them gives its
//!      adjacent-character bigrams (`上下文压缩` → `上下 下文 文压 压缩`); a run of one
//!      character gives that character.
//!    - other alphanumeric characters (ASCII or any other script's letters and digits) —
//!      a maximal run is one word token, lower-cased (`GEO2026` → `geo2026`).
//!    - everything else (spaces, punctuation, symbols, combining marks) separates tokens.
//!
//! Bigrams let a keyword scorer find Chinese terms without a dictionary: a query term
//! matches wherever its character pairs occur. It finds exact terms, not synonyms.

use unicode_normalization::UnicodeNormalization;

/// Whether `c` belongs to a CJK script that is written without spaces and therefore
/// tokenized as bigrams.
///
/// Ranges: Han — CJK Unified Ideographs U+4E00–9FFF, Extension A U+3400–4DBF,
/// Extensions B–H and the supplementary compatibility block U+20000–323AF, compatibility
/// ideographs U+F900–FAFF, and the ideographic marks 々〆〇 U+3005–3007; Hiragana
/// U+3041–309F; Katakana U+30A1–30FA and U+30FC–30FF (the middle dot ・ U+30FB and the
/// double hyphen ゠ U+30A0 are punctuation), phonetic extensions U+31F0–31FF; Hangul —
/// syllables U+AC00–D7AF, Jamo U+1100–11FF, compatibility Jamo U+3131–318E, Jamo
/// extensions A U+A960–A97F and B U+D7B0–D7FF.
pub fn is_cjk(c: char) -> bool {
    let c = c as u32;
    if c < 0x1100 {
        return false;
    }
    matches!(c,
        0x4E00..=0x9FFF
        | 0x3400..=0x4DBF
        | 0x20000..=0x323AF
        | 0xF900..=0xFAFF
        | 0x3005..=0x3007
        | 0x3041..=0x309F
        | 0x30A1..=0x30FA
        | 0x30FC..=0x30FF
        | 0x31F0..=0x31FF
        | 0xAC00..=0xD7AF
        | 0x1100..=0x11FF
        | 0x3131..=0x318E
        | 0xA960..=0xA97F
        | 0xD7B0..=0xD7FF)
}

/// Tokenizes `text` for retrieval (see the module docs for the rules).
///
/// ```
/// use geo_core::chat::tokenize::tokenize;
/// assert_eq!(tokenize("上下文压缩"), ["上下", "下文", "文压", "压缩"]);
/// assert_eq!(tokenize("GEO 优化, RAG2!"), ["geo", "优化", "rag2"]);
/// ```
pub fn tokenize(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for_each_token(text, |t| out.push(t.to_string()));
    out
}

/// Calls `emit` with every token of `text`, in order, without allocating per token.
///
/// This is what the index builder uses; [`tokenize`] collects the same tokens.
pub fn for_each_token(text: &str, mut emit: impl FnMut(&str)) {
    for_each_token_span(text, |token, _| emit(token));
}

/// Calls `emit` with every token of `text` and the characters of `text` it came from, as a
/// range of character offsets (not bytes), in order.
///
/// The tokens are exactly those of [`tokenize`]. Where NFKC needs the general normaliser
/// (a character with a combining mark, a ligature, half-width kana…), every token drawn
/// from that stretch spans the whole stretch, so a span always covers its token's source
/// characters and never ends inside one.
///
/// ```
/// use geo_core::chat::tokenize::for_each_token_span;
/// let mut spans = Vec::new();
/// for_each_token_span("GEO 优化!", |t, span| spans.push((t.to_string(), span)));
/// assert_eq!(spans, [("geo".to_string(), 0..3), ("优化".to_string(), 4..6)]);
/// ```
pub fn for_each_token_span(text: &str, mut emit: impl FnMut(&str, std::ops::Range<usize>)) {
    let emit = &mut emit;
    let mut state = Tokenizer::default();
    if text.is_ascii() {
        for (i, c) in text.chars().enumerate() {
            state.push(c, i, i + 1, emit);
        }
    } else {
        for_each_nfkc_char(text, |c, start, end| state.push(c, start, end, emit));
    }
    state.end(emit);
}

/// Calls `f` with every character of the NFKC form of `text`, in one pass, and the range
/// of character offsets of `text` it comes from.
///
/// Common characters ([`fast_nfkc`]) are mapped one by one; the general normaliser runs
/// only on the segments that need it, and each character it yields is given the whole
/// segment as its origin. The text is cut just before each fast character:
/// a fast character is a starter that never combines with what precedes it, so NFKC of
/// the whole equals the concatenation of NFKC of the segments. A fast character followed
/// by others (e.g. `e` + U+0301) stays in their segment, since it may combine with them.
fn for_each_nfkc_char(text: &str, mut f: impl FnMut(char, usize, usize)) {
    let mut seg_start = 0;
    let mut seg_start_char = 0;
    let mut seg_slow = false;
    let mut pending: Option<char> = None;
    let mut chars = 0usize;
    for (i, c) in text.char_indices() {
        match fast_nfkc(c) {
            Some(mapped) => {
                if seg_slow {
                    text[seg_start..i].nfkc().for_each(|n| f(n, seg_start_char, chars));
                    seg_slow = false;
                } else if let Some(p) = pending {
                    f(p, seg_start_char, chars);
                }
                pending = Some(mapped);
                seg_start = i;
                seg_start_char = chars;
            }
            None => {
                seg_slow = true;
                pending = None;
            }
        }
        chars += 1;
    }
    if seg_slow {
        text[seg_start..].nfkc().for_each(|n| f(n, seg_start_char, chars));
    } else if let Some(p) = pending {
        f(p, seg_start_char, chars);
    }
}

/// NFKC of `c` for the characters that need no context: each is a starter that neither
/// composes nor reorders with any other character of this set, so mapping a text made only
/// of them character by character equals NFKC of the whole text. `None` for any other
/// character. Full-width ASCII forms U+FF01–FF5E become ASCII and the ideographic space
/// U+3000 a space; the rest map to themselves.
fn fast_nfkc(c: char) -> Option<char> {
    let u = c as u32;
    match u {
        0x00..=0x7F | 0xC0..=0xFF => Some(c),
        0x4E00..=0x9FFF | 0x3400..=0x4DBF => Some(c),
        0x3041..=0x3096 | 0x30A1..=0x30FA | 0x30FC..=0x30FE | 0xAC00..=0xD7A3 => Some(c),
        0x3001..=0x3003 | 0x3008..=0x3011 | 0x2013 | 0x2014 | 0x2018 | 0x2019 | 0x201C | 0x201D => Some(c),
        0x3000 => Some(' '),
        0xFF01..=0xFF5E => char::from_u32(u - 0xFEE0),
        _ => None,
    }
}

/// Incremental state: the current word or CJK run, with where each began.
#[derive(Default)]
struct Tokenizer {
    /// Lower-cased characters of the current word run.
    word: String,
    /// Character offsets of the current word run's source.
    word_span: (usize, usize),
    /// The previous character of the current CJK run and its source offsets, if any.
    cjk_prev: Option<(char, usize, usize)>,
    /// Whether the current CJK run has produced a bigram already.
    cjk_emitted: bool,
    /// Scratch space for a bigram or a lone CJK character.
    buf: String,
}

impl Tokenizer {
    fn push(&mut self, c: char, start: usize, end: usize, emit: &mut impl FnMut(&str, std::ops::Range<usize>)) {
        if c.is_ascii() {
            if c.is_ascii_alphanumeric() {
                self.end_cjk(emit);
                self.extend_word(start, end);
                self.word.push(c.to_ascii_lowercase());
            } else {
                self.end(emit);
            }
        } else if is_cjk(c) {
            self.end_word(emit);
            if let Some((prev, prev_start, _)) = self.cjk_prev {
                self.buf.clear();
                self.buf.push(prev);
                self.buf.push(c);
                emit(&self.buf, prev_start..end);
                self.cjk_emitted = true;
            }
            self.cjk_prev = Some((c, start, end));
        } else if c.is_alphanumeric() {
            self.end_cjk(emit);
            self.extend_word(start, end);
            self.word.extend(c.to_lowercase());
        } else {
            self.end(emit);
        }
    }

    fn extend_word(&mut self, start: usize, end: usize) {
        if self.word.is_empty() {
            self.word_span.0 = start;
        }
        self.word_span.1 = end;
    }

    fn end_word(&mut self, emit: &mut impl FnMut(&str, std::ops::Range<usize>)) {
        if !self.word.is_empty() {
            emit(&self.word, self.word_span.0..self.word_span.1);
            self.word.clear();
        }
    }

    fn end_cjk(&mut self, emit: &mut impl FnMut(&str, std::ops::Range<usize>)) {
        if let Some((prev, start, end)) = self.cjk_prev.take() {
            if !self.cjk_emitted {
                self.buf.clear();
                self.buf.push(prev);
                emit(&self.buf, start..end);
            }
            self.cjk_emitted = false;
        }
    }

    fn end(&mut self, emit: &mut impl FnMut(&str, std::ops::Range<usize>)) {
        self.end_word(emit);
        self.end_cjk(emit);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn check(input: &str, expect: &[&str]) {
        assert_eq!(tokenize(input), expect, "input {input:?}");
    }

    #[test]
    fn tokenizer_rules() {
        check("", &[]);
        check("  ,. ", &[]);
        check("上下文压缩", &["上下", "下文", "文压", "压缩"]);
        check("RAG 分块和检索", &["rag", "分块", "块和", "和检", "检索"]);
        check("GEO优化", &["geo", "优化"]);
        check("优化GEO", &["优化", "geo"]);
        check("字", &["字"]);
        check("a字b", &["a", "字", "b"]);
        check("字,词", &["字", "词"]);
        check("BM25 top-8", &["bm25", "top", "8"]);
        check("Straße Ünïcode", &["straße", "ünïcode"]);
        check("Привет мир", &["привет", "мир"]);
        check("ＲＡＧ２０２６", &["rag2026"]);
        check("①②", &["12"]);
        check("ｶﾀｶﾅ", &["カタ", "タカ", "カナ"]);
        check("ひらがな・カタカナ", &["ひら", "らが", "がな", "カタ", "タカ", "カナ"]);
        check("한국어 검색", &["한국", "국어", "검색"]);
        check("𠀀𠀁", &["𠀀𠀁"]);
        check("emoji😀here", &["emoji", "here"]);
        check("3.14", &["3", "14"]);
        check("e\u{301}", &["é"]);
        check("İ", &["i\u{307}"]);
    }

    #[test]
    fn fast_nfkc_agrees_with_full_nfkc() {
        for u in 0..=0x10FFFFu32 {
            let Some(c) = char::from_u32(u) else { continue };
            if let Some(mapped) = fast_nfkc(c) {
                let full: String = c.to_string().nfkc().collect();
                assert_eq!(full, mapped.to_string(), "U+{u:04X}");
            }
        }
        // Pairs: no character of the fast set composes with another one.
        let sample: Vec<char> = "aZ9 ,À ÿ上㐀あアーー가힣、。《》「」【】–—‘’“”\u{3000}！ｚ".chars().collect();
        for &a in &sample {
            for &b in &sample {
                let pair: String = [a, b].iter().collect();
                let fast: String = [a, b].iter().map(|&c| fast_nfkc(c).unwrap_or(c)).collect();
                assert_eq!(pair.nfkc().collect::<String>(), fast, "{pair:?}");
            }
        }
    }

    fn mixed_char() -> impl proptest::strategy::Strategy<Value = char> {
        use proptest::prelude::*;
        prop_oneof![
            proptest::sample::select(vec![
                'a', 'e', 'Z', '1', ' ', 'é', '上', 'か', 'ア', '가', '，', 'Ａ', '\u{3000}', '。'
            ]),
            proptest::sample::select(vec![
                '\u{301}', '\u{327}', '\u{3099}', '\u{309a}', '\u{1161}', '\u{11a8}', '\u{1100}', 'ﬁ', '①', 'ｶ', 'ﾞ',
                '\u{212b}', '\u{f900}', 'Å', '\u{0b47}', '\u{0b3e}', '\u{2026}'
            ]),
            proptest::char::any(),
        ]
    }

    proptest::proptest! {
        #[test]
        fn segment_wise_nfkc_equals_whole_text_nfkc(chars in proptest::collection::vec(mixed_char(), 0..24)) {
            let text: String = chars.into_iter().collect();
            let mut got = String::new();
            for_each_nfkc_char(&text, |c, _, _| got.push(c));
            let expect: String = text.nfkc().collect();
            proptest::prop_assert_eq!(got, expect);
        }
    }

    /// Text → expected (token, span text) pairs.
    #[track_caller]
    fn check_spans(input: &str, expect: &[(&str, &str)]) {
        let chars: Vec<char> = input.chars().collect();
        let mut got = Vec::new();
        for_each_token_span(input, |t, span| got.push((t.to_string(), chars[span].iter().collect::<String>())));
        let expect: Vec<(String, String)> = expect.iter().map(|(t, s)| (t.to_string(), s.to_string())).collect();
        assert_eq!(got, expect, "input {input:?}");
    }

    #[test]
    fn spans_point_at_the_source_characters() {
        check_spans("", &[]);
        check_spans("GEO 优化, RAG2!", &[("geo", "GEO"), ("优化", "优化"), ("rag2", "RAG2")]);
        check_spans("上下文压缩", &[("上下", "上下"), ("下文", "下文"), ("文压", "文压"), ("压缩", "压缩")]);
        check_spans("a字b", &[("a", "a"), ("字", "字"), ("b", "b")]);
        check_spans("检索，ＲＡＧ！", &[("检索", "检索"), ("rag", "ＲＡＧ")]);
        // The general normaliser's stretch is the span of what it yields.
        check_spans("x cafe\u{301} y", &[("x", "x"), ("café", "cafe\u{301}"), ("y", "y")]);
        check_spans("①② 😀Ünï", &[("12", "①②"), ("ünï", "Ünï")]);
    }

    proptest::proptest! {
        #[test]
        fn spans_give_the_same_tokens_in_bounds_and_in_order(chars in proptest::collection::vec(mixed_char(), 0..24)) {
            let text: String = chars.into_iter().collect();
            let total = text.chars().count();
            let mut tokens = Vec::new();
            let mut last_start = 0;
            let mut ok = true;
            for_each_token_span(&text, |t, span| {
                ok &= span.start < span.end && span.end <= total && span.start >= last_start;
                last_start = span.start;
                tokens.push(t.to_string());
            });
            proptest::prop_assert!(ok, "bad span in {:?}", text);
            proptest::prop_assert_eq!(tokens, tokenize(&text));
        }
    }

    #[test]
    fn chinese_punctuation_takes_the_fast_path_with_the_same_tokens() {
        check("检索，分块！（ＲＡＧ）", &["检索", "分块", "rag"]);
    }

    #[test]
    fn cjk_ranges() {
        for c in ['上', '㐀', '𠀀', '々', 'ぁ', 'ア', 'ー', 'ㇰ', '가', 'ᄀ', 'ㄱ'] {
            assert!(is_cjk(c), "{c:?} should be CJK");
        }
        for c in ['a', '1', '・', '゠', '。', '，', '😀', 'é', '\u{3000}'] {
            assert!(!is_cjk(c), "{c:?} should not be CJK");
        }
    }
}
