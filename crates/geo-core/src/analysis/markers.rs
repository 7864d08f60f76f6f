//! Citation markers (engines.md, "Chinese engines"): `[ref_1]`, `[3]`, `[^2]`, `^[1][4]^`.
//!
//! Engines that cite in the answer's text write a marker after the sentence or name it
//! supports: Qwen `[ref_<n>]` (also `[ref_无]`, citing nothing), Perplexity and Hunyuan
//! `[<n>]`, Hunyuan also `[^<n>]`, ERNIE `^[<n>]^` and `^[<n>][<m>]^`. A probe's `rawAnswer`
//! and its cleaned `answer` keep them as written (the answer a user reads shows them); the
//! analysis reads the text of [`strip_citation_markers`] when it matches Mentions, parses
//! lists and extracts answer links, because a marker is not a word (`元构场[ref_1]` names
//! 元构场) and not part of a link (`https://a.example/x[1]` links to `https://a.example/x`).
//!
//! What is a marker, exactly:
//! * `[ref_<text>]` — `<text>` up to [`MAX_REF_TEXT_BYTES`] bytes with no bracket or line break;
//! * `[<1–3 digits>]` and `[^<1–3 digits>]` — four or more digits (`[2024]`) are not a marker;
//! * `^` + one to [`MAX_CARET_GROUPS`] groups `[<1–3 digits>]` + `^`;
//! * not a marker: a bracket followed directly by `(` (the text of a Markdown link, `[1](url)`).
//!
//! A run of adjacent markers is removed as one. It is replaced by nothing, except by one space
//! when the character before it is visible ASCII (a word or a URL) and the one after it is
//! neither white space nor punctuation, so that `Acme[1]Beta` stays two words and a URL
//! written directly before a marker ends where the marker started.
//!
//! Each position looks at most a bounded number of bytes ahead, so the whole is linear in the
//! answer's length; an answer without `[` or `^` is returned borrowed, without a copy.

use std::borrow::Cow;

use crate::text::class::{is_cjk_punct, is_trailing_punct};

/// Longest `<text>` of a `[ref_<text>]` marker, in bytes (`[ref_12]`, `[ref_无]`).
pub const MAX_REF_TEXT_BYTES: usize = 32;
/// Most digits of a numbered marker (`[123]`; `[2024]` is a year, not a marker).
pub const MAX_MARKER_DIGITS: usize = 3;
/// Most `[n]` groups between the carets of one `^[n][m]…^` marker.
pub const MAX_CARET_GROUPS: usize = 16;

/// The positive numbers of the `[n]` markers of `answer` (1–3 digits) and, with `carets`, of the
/// `[^n]` markers (1–9 digits), in order of first appearance, once each: which search results
/// an answer cites (Perplexity `[n]`; Hunyuan both forms).
pub fn bracket_numbers(answer: &str, carets: bool) -> Vec<u32> {
    let mut out: Vec<u32> = Vec::new();
    let bytes = answer.as_bytes();
    let mut i = 0;
    while let Some(open) = bytes[i..].iter().position(|b| *b == b'[').map(|p| p + i) {
        let caret = carets && bytes.get(open + 1) == Some(&b'^');
        let start = open + 1 + usize::from(caret);
        let digits = bytes[start..].iter().take_while(|b| b.is_ascii_digit()).count();
        let close = start + digits;
        let max_digits = if caret { 9 } else { MAX_MARKER_DIGITS };
        if (1..=max_digits).contains(&digits) && bytes.get(close) == Some(&b']') {
            let n: u32 = answer[start..close].parse().unwrap_or(0);
            if n > 0 && !out.contains(&n) {
                out.push(n);
            }
            i = close + 1;
        } else {
            i = open + 1;
        }
    }
    out
}

/// The indexes named by Qwen's `[ref_n]` markers of `answer` (1 to 4 digits), in order of first
/// appearance, once each. `[ref_无]`, `[1]` and anything else are not counted.
pub fn ref_numbers(answer: &str) -> Vec<u32> {
    const OPEN: &str = "[ref_";
    let mut out: Vec<u32> = Vec::new();
    let mut seen: rustc_hash::FxHashSet<u32> = rustc_hash::FxHashSet::default();
    let mut rest = answer;
    while let Some(at) = rest.find(OPEN) {
        let tail = &rest[at + OPEN.len()..];
        let digits = tail.bytes().take_while(u8::is_ascii_digit).count();
        if (1..=4).contains(&digits) && tail.as_bytes().get(digits) == Some(&b']') {
            if let Ok(n) = tail[..digits].parse::<u32>() {
                if seen.insert(n) {
                    out.push(n);
                }
            }
            rest = &tail[digits + 1..];
        } else {
            rest = tail;
        }
    }
    out
}

/// The numbers of ERNIE's `^[n]^` / `^[n][m]…^` markers of `answer` (1 to 4 digits each), in
/// order of first appearance, once each. A marker's closing `^` may open the next one.
pub fn caret_numbers(answer: &str) -> Vec<u64> {
    let bytes = answer.as_bytes();
    let mut out: Vec<u64> = Vec::new();
    let mut i = 0;
    while let Some(open) = bytes[i..].iter().position(|b| *b == b'^').map(|p| p + i) {
        let mut at = open + 1;
        let mut numbers: Vec<u64> = Vec::new();
        while bytes.get(at) == Some(&b'[') {
            let digits = bytes[at + 1..].iter().take_while(|b| b.is_ascii_digit()).count();
            let close = at + 1 + digits;
            if !(1..=4).contains(&digits) || bytes.get(close) != Some(&b']') {
                break;
            }
            numbers.push(answer[at + 1..close].parse().unwrap_or(0));
            at = close + 1;
        }
        if !numbers.is_empty() && bytes.get(at) == Some(&b'^') {
            for n in numbers {
                if !out.contains(&n) {
                    out.push(n);
                }
            }
            i = at;
        } else {
            i = open + 1;
        }
    }
    out
}

pub use crate::provider::spec::MarkerRule;

/// Reading an engine's markers. Which rule an engine follows is a fact of its row in the engine
/// table (`provider::spec`, `EngineSpec::markers`); this file knows only what each rule's
/// markers look like.
impl MarkerRule {
    /// The rule of `engine`'s answers (its spec row's).
    pub fn of(engine: crate::model::EngineId) -> MarkerRule {
        crate::provider::spec(engine).markers
    }

    /// The numbers the markers of `text` name under this rule, in order of first appearance,
    /// once each.
    pub fn numbers(self, text: &str) -> Vec<u32> {
        match self {
            MarkerRule::Brackets => bracket_numbers(text, true),
            MarkerRule::Ref => ref_numbers(text),
            MarkerRule::Caret => caret_numbers(text).into_iter().filter_map(|n| u32::try_from(n).ok()).collect(),
            MarkerRule::None => Vec::new(),
        }
    }
}

/// `text` without its citation markers (see the module documentation).
pub fn strip_citation_markers(text: &str) -> Cow<'_, str> {
    let b = text.as_bytes();
    let mut out: Option<String> = None;
    let mut copied = 0;
    let mut i = 0;
    while i < b.len() {
        if !matches!(b[i], b'[' | b'^') {
            i += 1;
            continue;
        }
        let mut end = i;
        while let Some(n) = marker_len(&b[end..]) {
            end += n;
        }
        if end == i {
            i += 1;
            continue;
        }
        let o = out.get_or_insert_with(|| String::with_capacity(text.len()));
        o.push_str(&text[copied..i]);
        if needs_space(text[..i].chars().next_back(), text[end..].chars().next()) {
            o.push(' ');
        }
        copied = end;
        i = end;
    }
    match out {
        None => Cow::Borrowed(text),
        Some(mut o) => {
            o.push_str(&text[copied..]);
            Cow::Owned(o)
        }
    }
}

/// The length in bytes of the citation marker that starts `s`, if one does.
pub(crate) fn marker_len(s: &[u8]) -> Option<usize> {
    let len = match s.first()? {
        b'[' => bracket_marker(s)?,
        b'^' => caret_marker(s)?,
        _ => return None,
    };
    // `[1](https://…)` is the text of a Markdown link, not a marker.
    (s.get(len) != Some(&b'(')).then_some(len)
}

/// Leading ASCII digits of `s`, counting at most `MAX_MARKER_DIGITS + 1`.
fn digits(s: &[u8]) -> usize {
    s.iter().take(MAX_MARKER_DIGITS + 1).take_while(|b| b.is_ascii_digit()).count()
}

/// `[n]` of one to three digits at the start of `s`: its length.
fn numbered(s: &[u8]) -> Option<usize> {
    let n = digits(s.get(1..)?);
    ((1..=MAX_MARKER_DIGITS).contains(&n) && s.get(1 + n) == Some(&b']')).then_some(n + 2)
}

/// `[ref_<text>]`, `[n]` or `[^n]` at the start of `s` (which starts with `[`).
fn bracket_marker(s: &[u8]) -> Option<usize> {
    if let Some(body) = s.strip_prefix(b"[ref_") {
        let end = body.iter().take(MAX_REF_TEXT_BYTES + 1).position(|&c| matches!(c, b']' | b'[' | b'\n' | b'\r'))?;
        return (body[end] == b']').then_some(5 + end + 1);
    }
    if s.get(1) == Some(&b'^') {
        let n = digits(&s[2..]);
        return ((1..=MAX_MARKER_DIGITS).contains(&n) && s.get(2 + n) == Some(&b']')).then_some(n + 3);
    }
    numbered(s)
}

/// `^[n]…[m]^` at the start of `s` (which starts with `^`).
fn caret_marker(s: &[u8]) -> Option<usize> {
    let mut i = 1;
    let mut groups = 0;
    while groups < MAX_CARET_GROUPS && s.get(i) == Some(&b'[') {
        i += numbered(&s[i..])?;
        groups += 1;
    }
    (groups > 0 && s.get(i) == Some(&b'^')).then_some(i + 1)
}

/// Whether the removed markers leave a space: between visible ASCII before them (a word or
/// a URL) and a character after them that is neither white space nor punctuation that ends
/// a clause or closes a bracket (`Acme[1].` stays `Acme.`, `Acme[1]Beta` becomes two words,
/// `https://a.example/x[1]/y` a URL that ends at `x`).
fn needs_space(before: Option<char>, after: Option<char>) -> bool {
    let (Some(before), Some(after)) = (before, after) else { return false };
    before.is_ascii_graphic()
        && !after.is_whitespace()
        && !matches!(after, ')' | ']' | '}')
        && !is_trailing_punct(after)
        && !is_cjk_punct(after)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bracket_numbers_read_carets_only_when_asked() {
        let text = "元构场[2]领先[^1]，[2][^10] [2024] [0] [x] [^1234567890]";
        assert_eq!(bracket_numbers(text, false), [2]);
        assert_eq!(bracket_numbers(text, true), [2, 1, 10]);
        assert_eq!(bracket_numbers("没有角标", true), Vec::<u32>::new());
    }

    #[track_caller]
    fn check(input: &str, expect: &str) {
        assert_eq!(strip_citation_markers(input), expect, "input {input:?}");
    }

    #[test]
    fn removes_every_marker_form() {
        check("元构场[ref_1]是首选", "元构场是首选");
        check("元构场[ref_1][ref_2]。", "元构场。");
        check("元构场[ref_无]。", "元构场。");
        check("Acme [1] and Beta[2][13].", "Acme  and Beta.");
        check("Acme[^3] leads", "Acme leads");
        check("元构场^[1]^，星链^[2][5]^。", "元构场，星链。");
        check("[123]", "");
    }

    #[test]
    fn keeps_what_is_not_a_marker() {
        for s in [
            "in [2024] the",
            "[a] [ref] [ref_1 [1",
            "[1](https://a.example/) is a link",
            "[^1234] and ^^ and [^] and []",
            "x^2 [x]",
            "no brackets at all",
        ] {
            assert!(matches!(strip_citation_markers(s), Cow::Borrowed(_)), "{s:?} was changed");
        }
        check("^[1] alone", "^ alone");
        check(&format!("[ref_{}]", "x".repeat(MAX_REF_TEXT_BYTES)), "");
        let long = format!("[ref_{}]", "x".repeat(MAX_REF_TEXT_BYTES + 1));
        check(&long, &long);
        check("[ref_a\nb]", "[ref_a\nb]");
    }

    #[test]
    fn words_and_urls_stay_apart() {
        check("Acme[1]Beta", "Acme Beta");
        check("Acme[1]'s", "Acme's");
        check("见 https://a.example/x[ref_2]中文", "见 https://a.example/x 中文");
        check("见 https://a.example/x[3]，更多", "见 https://a.example/x，更多");
        check("https://a.example/x[1]/y", "https://a.example/x /y");
        check("品牌[1]推荐", "品牌推荐");
        check("[Acme[1]](https://a.example/)", "[Acme](https://a.example/)");
    }

    #[test]
    fn a_long_run_of_markers_and_half_markers_is_linear_work() {
        // Each position looks a bounded distance ahead; this is only a smoke test of that
        // (the timing test is tests/it/analysis_linear.rs).
        let s = "[ref_".repeat(10_000) + &"^[1] ".repeat(10_000) + &"[1]".repeat(10_000);
        assert_eq!(strip_citation_markers(&s), "[ref_".repeat(10_000) + &"^ ".repeat(10_000));
    }
}
