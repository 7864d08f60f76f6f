//! The retrieval tokenizer: NFKC, lower-case, word runs and CJK bigrams.
//!
//! Stages, in order:
//! 1. NFKC normalisation (full-width `ＲＡＧ` → `RAG`, `①` → `1`, half-width katakana →
//!    full-width), by `text::fold`'s piecewise path: common characters whose NFKC needs no
//!    context are mapped one by one, the rest goes through the general normaliser.
//! 2. Classification of every character:
//!    - CJK ([`is_cjk`](crate::text::is_cjk): Han, Hiragana, Katakana, Hangul) — a maximal run of them gives its
//!      adjacent-character bigrams (`上下文压缩` → `上下 下文 文压 压缩`); a run of one
//!      character gives that character.
//!    - other alphanumeric characters (ASCII or any other script's letters and digits) —
//!      a maximal run is one word token, lower-cased (`GEO2026` → `geo2026`).
//!    - everything else (spaces, punctuation, symbols, combining marks) separates tokens.
//!
//! Bigrams let a keyword scorer find Chinese terms without a dictionary: a query term
//! matches wherever its character pairs occur. It finds exact terms, not synonyms.

use crate::text::fold::for_each_nfkc_char;
use crate::text::is_cjk;

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
    let emit = &mut emit;
    let mut state = Tokenizer::default();
    if text.is_ascii() {
        for c in text.chars() {
            state.push(c, emit);
        }
    } else {
        for_each_nfkc_char(text, |c| state.push(c, emit));
    }
    state.end(emit);
}

/// Incremental state: the current word or CJK run.
#[derive(Default)]
struct Tokenizer {
    /// Lower-cased characters of the current word run.
    word: String,
    /// The previous character of the current CJK run, if any.
    cjk_prev: Option<char>,
    /// Whether the current CJK run has produced a bigram already.
    cjk_emitted: bool,
    /// Scratch space for a bigram or a lone CJK character.
    buf: String,
}

impl Tokenizer {
    fn push(&mut self, c: char, emit: &mut impl FnMut(&str)) {
        if c.is_ascii() {
            if c.is_ascii_alphanumeric() {
                self.end_cjk(emit);
                self.word.push(c.to_ascii_lowercase());
            } else {
                self.end(emit);
            }
        } else if is_cjk(c) {
            self.end_word(emit);
            if let Some(prev) = self.cjk_prev {
                self.buf.clear();
                self.buf.push(prev);
                self.buf.push(c);
                emit(&self.buf);
                self.cjk_emitted = true;
            }
            self.cjk_prev = Some(c);
        } else if c.is_alphanumeric() {
            self.end_cjk(emit);
            self.word.extend(c.to_lowercase());
        } else {
            self.end(emit);
        }
    }

    fn end_word(&mut self, emit: &mut impl FnMut(&str)) {
        if !self.word.is_empty() {
            emit(&self.word);
            self.word.clear();
        }
    }

    fn end_cjk(&mut self, emit: &mut impl FnMut(&str)) {
        if let Some(prev) = self.cjk_prev.take() {
            if !self.cjk_emitted {
                self.buf.clear();
                self.buf.push(prev);
                emit(&self.buf);
            }
            self.cjk_emitted = false;
        }
    }

    fn end(&mut self, emit: &mut impl FnMut(&str)) {
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
    fn chinese_punctuation_takes_the_fast_path_with_the_same_tokens() {
        check("检索，分块！（ＲＡＧ）", &["检索", "分块", "rag"]);
    }
}
