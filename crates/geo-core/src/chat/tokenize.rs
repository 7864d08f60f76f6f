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

/// Calls `f` with every character of the NFKC form of `text`, in one pass.
///
/// Common characters ([`fast_nfkc`]) are mapped one by one; the general normaliser runs
/// only on the segments that need it. The text is cut just before each fast character:
/// a fast character is a starter that never combines with what precedes it, so NFKC of
/// the whole equals the concatenation of NFKC of the segments. A fast character followed
/// by others (e.g. `e` + U+0301) stays in their segment, since it may combine with them.
fn for_each_nfkc_char(text: &str, mut f: impl FnMut(char)) {
    let mut seg_start = 0;
    let mut seg_slow = false;
    let mut pending: Option<char> = None;
    for (i, c) in text.char_indices() {
        match fast_nfkc(c) {
            Some(mapped) => {
                if seg_slow {
                    text[seg_start..i].nfkc().for_each(&mut f);
                    seg_slow = false;
                } else if let Some(p) = pending {
                    f(p);
                }
                pending = Some(mapped);
                seg_start = i;
            }
            None => {
                seg_slow = true;
                pending = None;
            }
        }
    }
    if seg_slow {
        text[seg_start..].nfkc().for_each(&mut f);
    } else if let Some(p) = pending {
        f(p);
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
            for_each_nfkc_char(&text, |c| got.push(c));
            let expect: String = text.nfkc().collect();
            proptest::prop_assert_eq!(got, expect);
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
