//! Character classes and word boundaries, defined once for every step that needs them.
//!
//! - [`is_cjk`]: the scripts written without spaces. The retrieval tokenizer makes bigrams of
//!   them and the position-adjusted word count counts each as one word.
//! - [`is_word_byte`]: the `[a-z0-9]` of the matching normal form. An ASCII alias needs a
//!   neighbour outside it on both sides ("George" is not "GEO"), in a Mention and in the
//!   position-adjusted word count alike.
//! - [`is_joiner`] / [`joins_word`]: `.`, `'`, `’`, `-`, `_` between two letters or digits
//!   keep one word (`v2.0`, `don't`, `e-commerce`).
//! - `is_cjk_punct` / `is_trailing_punct`: the full-width punctuation that ends a bare URL,
//!   and the clause-ending punctuation stripped from a URL's end; where a removed citation
//!   marker leaves no space.

/// Whether `c` belongs to a CJK script that is written without spaces.
///
/// Ranges: Han — CJK Unified Ideographs U+4E00–9FFF, Extension A U+3400–4DBF,
/// Extensions B–H and the supplementary compatibility block U+20000–323AF, compatibility
/// ideographs U+F900–FAFF, and the ideographic marks 々〆〇 U+3005–3007; Hiragana
/// U+3041–309F; Katakana U+30A1–30FA and U+30FC–30FF (the middle dot ・ U+30FB and the
/// double hyphen ゠ U+30A0 are punctuation), phonetic extensions U+31F0–31FF; Hangul —
/// syllables U+AC00–D7AF, Jamo U+1100–11FF, compatibility Jamo U+3131–318E, Jamo
/// extensions A U+A960–A97F and B U+D7B0–D7FF.
#[inline]
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

/// Whether `b` is an ASCII `[a-z0-9]`: a word character of the matching normal form (which
/// is lower-case), one whole character in UTF-8.
#[inline(always)]
pub fn is_word_byte(b: u8) -> bool {
    b.is_ascii_lowercase() || b.is_ascii_digit()
}

/// Whether `c` may join two parts of one word (`v2.0`, `don't`, `it’s`, `e-commerce`, `snake_case`).
#[inline]
pub fn is_joiner(c: char) -> bool {
    matches!(c, '.' | '\'' | '’' | '-' | '_')
}

/// Whether a joiner followed by `next` continues the current word: `next` is a letter or
/// digit outside the CJK scripts.
#[inline]
pub fn joins_word(next: Option<char>) -> bool {
    next.is_some_and(|n| n.is_alphanumeric() && !is_cjk(n))
}

/// Full-width and CJK punctuation: it ends a bare URL (`analysis::links`), and a citation
/// marker removed before it leaves no space (`analysis::markers`).
pub(crate) fn is_cjk_punct(c: char) -> bool {
    matches!(
        c,
        '。' | '，'
            | '；'
            | '：'
            | '！'
            | '？'
            | '、'
            | '“'
            | '”'
            | '‘'
            | '’'
            | '「'
            | '」'
            | '『'
            | '』'
            | '《'
            | '》'
            | '（'
            | '）'
            | '【'
            | '】'
            | '…'
            | '〈'
            | '〉'
            | '｜'
    )
}

/// Punctuation that ends a clause, ASCII and CJK: always stripped from the end of a URL
/// (`analysis::links`), and a citation marker removed before it leaves no space
/// (`analysis::markers`).
pub(crate) fn is_trailing_punct(c: char) -> bool {
    matches!(
        c,
        '.' | ','
            | ';'
            | ':'
            | '!'
            | '?'
            | '\''
            | '"'
            | '*'
            | '。'
            | '，'
            | '；'
            | '：'
            | '！'
            | '？'
            | '、'
            | '」'
            | '』'
            | '》'
            | '）'
            | '】'
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cjk_ranges() {
        for c in ['上', '㐀', '𠀀', '々', 'ぁ', 'ア', 'ー', 'ㇰ', '가', 'ᄀ', 'ㄱ', '\u{323AF}'] {
            assert!(is_cjk(c), "{c:?} should be CJK");
        }
        for c in ['a', '1', '・', '゠', '。', '，', '😀', 'é', '\u{3000}', '\u{323B0}'] {
            assert!(!is_cjk(c), "{c:?} should not be CJK");
        }
    }

    #[test]
    fn word_bytes_and_joiners() {
        assert!(is_word_byte(b'a') && is_word_byte(b'9') && !is_word_byte(b'A') && !is_word_byte(b'-'));
        assert!(is_joiner('’') && !is_joiner(','));
        assert!(joins_word(Some('x')) && joins_word(Some('é')) && !joins_word(Some('上')) && !joins_word(None));
    }
}
