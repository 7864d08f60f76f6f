//! NFKC folding: the matching normal form (NFKC + lower-case) every Mention, list title and
//! untracked entity is compared in, and plain NFKC for the retrieval tokenizer.
//!
//! Both run on the same idea: most characters of an answer (ASCII, Latin-1 letters, CJK
//! ideographs, kana, Hangul syllables, CJK and full-width punctuation) are starters whose
//! normal form needs no context. A text is cut just before each such "safe" character; a
//! piece that is one safe character maps directly, any other piece goes through the general
//! — slower — normaliser. This equals normalising the whole text because no composition or
//! reordering crosses a safe character (property tests check it against the whole-text form,
//! and an exhaustive test checks every safe character against the general normaliser).

use icu_normalizer::ComposingNormalizerBorrowed;

use super::utf8::{decode_at, is_ideograph_at};

/// NFKC of `text`, one character at a time, by the general normaliser: ICU4X's, whose data
/// the `url` crate's IDNA mapping already links in, so the web bundle carries one set of
/// Unicode normalisation tables, not two (`docs/adr/0014-site-size.md`; the tests check it
/// against `unicode-normalization`).
///
/// The normaliser is made here at run time (a few references, no work), not held in a
/// `const`: a `const` is evaluated in this crate, which then gets its own copy of the
/// decomposition tables that `icu_normalizer` already holds for the IDNA mapping (13 KB).
fn nfkc(text: &str) -> impl Iterator<Item = char> + '_ {
    ComposingNormalizerBorrowed::new_nfkc().normalize_iter(text.chars())
}

/// NFKC of `text`, trimmed: how a typed prompt is compared with a project's prompts (a capture
/// file's `prompt`, `import-captures --add-prompts`). Case is kept.
pub fn nfkc_trimmed(text: &str) -> String {
    nfkc(text.trim()).collect::<String>().trim().to_string()
}

/// NFKC + lower-case: the normal form every match runs on.
pub fn normalize_for_match(text: &str) -> String {
    let mut out = String::new();
    normalize_for_match_into(text, &mut out);
    out
}

/// [`normalize_for_match`] into a reusable buffer (`out` is cleared first).
pub fn normalize_for_match_into(text: &str, out: &mut String) {
    out.clear();
    out.reserve(text.len());
    // ASCII is already NFKC: only case folding remains (the common case for URLs, titles
    // and English answers).
    if text.is_ascii() {
        out.push_str(text);
        out.make_ascii_lowercase();
        return;
    }
    // Pieces are a safe character (or the text start) and the unsafe characters after it.
    // A safe character is emitted at once, as if its piece were just itself; when unsafe
    // characters follow, that emission is undone and the whole piece is normalised.
    // Characters that fold to themselves (CJK, punctuation, lower-case ASCII: most of an
    // answer) are not emitted one by one but copied in bulk from `copy_from`.
    let bytes = text.as_bytes();
    let mut copy_from = 0;
    // The previous character, when safe: (its start, its folded form when that was pushed).
    let mut prev_safe: Option<(usize, Option<char>)> = None;
    let mut i = 0;
    while i < bytes.len() {
        if is_ideograph_at(bytes, i) {
            // A run of U+4E00..U+9FFF: safe and folding to itself, no need to decode it.
            let mut last = i;
            while is_ideograph_at(bytes, i) {
                last = i;
                i += 3;
            }
            prev_safe = Some((last, None));
            continue;
        }
        let (c, len) = decode_at(bytes, i);
        if let Some(f) = fold_safe(c) {
            if f == c {
                prev_safe = Some((i, None));
            } else {
                out.push_str(&text[copy_from..i]);
                out.push(f);
                copy_from = i + len;
                prev_safe = Some((i, Some(f)));
            }
            i += len;
            continue;
        }
        let piece_start = match prev_safe {
            Some((start, None)) => {
                out.push_str(&text[copy_from..start]);
                start
            }
            Some((start, Some(f))) => {
                out.truncate(out.len() - f.len_utf8());
                start
            }
            None => {
                out.push_str(&text[copy_from..i]);
                i
            }
        };
        let mut end = i + len;
        while end < bytes.len() {
            let (n, n_len) = decode_at(bytes, end);
            if fold_safe(n).is_some() {
                break;
            }
            end += n_len;
        }
        normalize_whole(&text[piece_start..end], out);
        copy_from = end;
        prev_safe = None;
        i = end;
    }
    out.push_str(&text[copy_from..]);
}

/// NFKC + lower-case of a whole text, appended to `out`: the definition the fast path of
/// [`normalize_for_match_into`] must agree with.
pub(crate) fn normalize_whole(text: &str, out: &mut String) {
    out.extend(nfkc(text).flat_map(char::to_lowercase));
}

/// NFKC of `c` for the characters that need no context: each is a starter that neither
/// composes nor reorders with any other character, so a text can be normalised piecewise
/// before them. `None` for any other character. Full-width ASCII forms U+FF01–FF5E become
/// ASCII and the ideographic space U+3000 a space; the rest map to themselves.
#[inline(always)]
pub(crate) fn nfkc_safe(c: char) -> Option<char> {
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

/// The single-character form of `c` under NFKC + lower-case when `c` is [`nfkc_safe`]
/// (its lower case is then one character too), else `None`.
#[inline(always)]
pub(crate) fn fold_safe(c: char) -> Option<char> {
    let u = c as u32;
    match u {
        0..=0x7F => Some(c.to_ascii_lowercase()),
        // Latin-1 capitals (not ×) lower-case by +0x20.
        0xC0..=0xD6 | 0xD8..=0xDE => char::from_u32(u + 0x20),
        0xFF01..=0xFF5E => char::from_u32(u - 0xFEE0).map(|a| a.to_ascii_lowercase()),
        // Every other safe character has no case.
        _ => nfkc_safe(c),
    }
}

/// Calls `f` with every character of the NFKC form of `text` (no case folding), in one pass,
/// and the character offsets `start..end` of `text` it comes from: a safe character's own
/// position, or the whole segment the general normaliser turned into it (so a span never
/// ends inside the source of what it yields).
///
/// [`nfkc_safe`] characters are mapped one by one; the general normaliser runs only on the
/// segments that need it. A safe character followed by unsafe ones (e.g. `e` + U+0301)
/// stays in their segment, since it may combine with them.
pub(crate) fn for_each_nfkc_char_span(text: &str, mut f: impl FnMut(char, usize, usize)) {
    let mut seg_start = 0;
    let mut seg_start_char = 0;
    let mut seg_slow = false;
    let mut pending: Option<char> = None;
    let mut chars = 0usize;
    for (i, c) in text.char_indices() {
        match nfkc_safe(c) {
            Some(mapped) => {
                if seg_slow {
                    nfkc(&text[seg_start..i]).for_each(|n| f(n, seg_start_char, chars));
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
        nfkc(&text[seg_start..]).for_each(|n| f(n, seg_start_char, chars));
    } else if let Some(p) = pending {
        f(p, seg_start_char, chars);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    // The independent oracle: the normaliser geo-core used before ICU4X's.
    use unicode_normalization::UnicodeNormalization;

    fn whole(text: &str) -> String {
        let mut out = String::new();
        normalize_whole(text, &mut out);
        out
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(
            std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(256)))]

        /// The piecewise fold equals NFKC + lower-case of the whole text.
        #[test]
        fn piecewise_fold_equals_whole_text_normalisation(text in "[a-zA-Z0-9 .,é\u{0301}\u{0308}\u{00C5}\u{00C0}-\u{00FF}\u{212B}\u{FB01}\u{2460}\u{3000}-\u{3012}\u{3041}-\u{3049}\u{3099}\u{309A}\u{30A1}-\u{30A9}\u{30FC}-\u{30FF}\u{3131}\u{1100}\u{1161}\u{11A8}\u{AC00}\u{4DBE}-\u{4E05}\u{9FFE}-\u{A001}\u{F900}\u{FF01}-\u{FF5E}\u{FF61}-\u{FF9F}\u{2013}\u{2014}\u{2018}-\u{201D}\u{00B2}\u{0130}\u{03A3}\u{0B47}\u{0B3E}]{0,24}") {
            proptest::prop_assert_eq!(normalize_for_match(&text), whole(&text));
        }

        /// The same for arbitrary characters.
        #[test]
        fn piecewise_fold_equals_whole_text_on_any_text(text in "\\PC{0,16}") {
            proptest::prop_assert_eq!(normalize_for_match(&text), whole(&text));
        }

        /// ICU4X's NFKC equals `unicode-normalization`'s on any text.
        #[test]
        fn icu_nfkc_equals_the_oracle(chars in proptest::collection::vec(mixed_char(), 0..24)) {
            let text: String = chars.into_iter().collect();
            proptest::prop_assert_eq!(nfkc(&text).collect::<String>(), text.nfkc().collect::<String>());
        }

        /// Segment-wise NFKC equals NFKC of the whole text.
        #[test]
        fn segment_wise_nfkc_equals_whole_text_nfkc(chars in proptest::collection::vec(mixed_char(), 0..24)) {
            let text: String = chars.into_iter().collect();
            let mut got = String::new();
            for_each_nfkc_char_span(&text, |c, _, _| got.push(c));
            let expect: String = text.nfkc().collect();
            proptest::prop_assert_eq!(got, expect);
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

    #[test]
    fn icu_nfkc_equals_the_oracle_on_every_character() {
        let mut differ = Vec::new();
        for u in 0..=0x10FFFFu32 {
            let Some(c) = char::from_u32(u) else { continue };
            let text = c.to_string();
            if nfkc(&text).collect::<String>() != text.nfkc().collect::<String>() {
                differ.push(format!("U+{u:04X}"));
            }
        }
        assert!(differ.is_empty(), "{} characters differ: {:?}", differ.len(), &differ[..differ.len().min(20)]);
    }

    #[test]
    fn every_safe_character_maps_as_the_general_normaliser_does() {
        for u in 0..=0x10FFFFu32 {
            let Some(c) = char::from_u32(u) else { continue };
            if let Some(mapped) = nfkc_safe(c) {
                let full: String = c.to_string().nfkc().collect();
                assert_eq!(full, mapped.to_string(), "nfkc U+{u:04X}");
            }
            assert_eq!(fold_safe(c).is_some(), nfkc_safe(c).is_some(), "U+{u:04X}");
            if let Some(folded) = fold_safe(c) {
                assert_eq!(whole(&c.to_string()), folded.to_string(), "fold U+{u:04X}");
            }
        }
        // Pairs: no safe character composes with another one.
        let sample: Vec<char> = "aZ9 ,À ÿ上㐀あアーー가힣、。《》「」【】–—‘’“”\u{3000}！ｚ".chars().collect();
        for &a in &sample {
            for &b in &sample {
                let pair: String = [a, b].iter().collect();
                let fast: String = [a, b].iter().map(|&c| nfkc_safe(c).unwrap_or(c)).collect();
                assert_eq!(pair.nfkc().collect::<String>(), fast, "{pair:?}");
            }
        }
    }

    #[test]
    fn fold_matches_whole_text_on_fixed_cases() {
        for text in [
            "ＡＣＭＥ，推荐！",
            "e\u{0301}Ａ\u{0301}",
            "ﾊﾟ\u{3000}ｶﾞ",
            "Ω\u{212B}ﬁ①",
            "\u{1100}\u{1161}\u{11A8}가",
            "가\u{11A8}",
            "か\u{3099}ÀÉ",
            "İx",
            "",
        ] {
            assert_eq!(normalize_for_match(text), whole(text), "{text}");
        }
    }
}
