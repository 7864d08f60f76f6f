//! The retrieval tokenizer: NFKC, lower-case, word runs and CJK bigrams.
//!
//! Stages, in order:
//! 1. NFKC normalisation (full-width `ＲＡＧ` → `RAG`, `①` → `1`, half-width katakana →
//!    full-width), by `text::fold`'s piecewise path: common characters whose NFKC needs no
//!    context are mapped one by one, the rest goes through the general normaliser.
//! 2. Classification of every character:
//!    - CJK ([`crate::text::is_cjk`]: Han, Hiragana, Katakana, Hangul) — a maximal run of them gives its
//!      adjacent-character bigrams (`上下文压缩` → `上下 下文 文压 压缩`); a run of one
//!      character gives that character.
//!    - other alphanumeric characters (ASCII or any other script's letters and digits) —
//!      a maximal run is one word token, lower-cased (`GEO2026` → `geo2026`).
//!    - everything else (spaces, punctuation, symbols, combining marks) separates tokens.
//!
//! Bigrams let a keyword scorer find Chinese terms without a dictionary: a query term
//! matches wherever its character pairs occur. It finds exact terms, not synonyms.

use crate::text::fold::for_each_nfkc_char_span;
use crate::text::is_cjk;
use std::ops::Range;

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
pub fn for_each_token_span(text: &str, mut emit: impl FnMut(&str, Range<usize>)) {
    let emit = &mut emit;
    let mut state = Tokenizer::default();
    if text.is_ascii() {
        for (i, c) in text.chars().enumerate() {
            state.push(c, i, i + 1, emit);
        }
    } else {
        for_each_nfkc_char_span(text, |c, start, end| state.push(c, start, end, emit));
    }
    state.end(emit);
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
    fn push(&mut self, c: char, start: usize, end: usize, emit: &mut impl FnMut(&str, Range<usize>)) {
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

    fn end_word(&mut self, emit: &mut impl FnMut(&str, Range<usize>)) {
        if !self.word.is_empty() {
            emit(&self.word, self.word_span.0..self.word_span.1);
            self.word.clear();
        }
    }

    fn end_cjk(&mut self, emit: &mut impl FnMut(&str, Range<usize>)) {
        if let Some((prev, start, end)) = self.cjk_prev.take() {
            if !self.cjk_emitted {
                self.buf.clear();
                self.buf.push(prev);
                emit(&self.buf, start..end);
            }
            self.cjk_emitted = false;
        }
    }

    fn end(&mut self, emit: &mut impl FnMut(&str, Range<usize>)) {
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

    fn mixed_char() -> impl proptest::strategy::Strategy<Value = char> {
        use proptest::prelude::*;
        prop_oneof![
            proptest::sample::select(vec![
                'a', 'e', 'Z', '1', ' ', 'é', '上', 'か', 'ア', '가', '，', 'Ａ', '\u{3000}', '。'
            ]),
            proptest::sample::select(vec![
                '\u{301}', '\u{327}', '\u{3099}', '\u{309a}', '\u{1161}', '\u{11a8}', 'ﬁ', '①', 'ｶ', 'ﾞ', '\u{212b}'
            ]),
            proptest::char::any(),
        ]
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
            let mut plain = Vec::new();
            for_each_token(&text, |t| plain.push(t.to_string()));
            proptest::prop_assert_eq!(&tokens, &plain);
            // Every span's own text holds its token.
            let chars: Vec<char> = text.chars().collect();
            let mut inside = true;
            for_each_token_span(&text, |t, span| {
                let own: String = chars[span].iter().collect();
                inside &= tokenize(&own).iter().any(|o| o == t);
            });
            proptest::prop_assert!(inside, "a span misses its token in {:?}", text);
        }
    }

    #[test]
    fn chinese_punctuation_takes_the_fast_path_with_the_same_tokens() {
        check("检索，分块！（ＲＡＧ）", &["检索", "分块", "rag"]);
    }
}
