//! Rule 1 of "What the answers say" (data-model.md): an answer cut into sentences, each with
//! its offsets in `answer` and its *text* (citation markers and URLs removed).
//!
//! A sentence ends after `。！？；!?;`, after a newline, and after a `.` followed by white
//! space, a citation marker or the end of the text; cut characters directly after a cut
//! (`？！`, `...`) end the same sentence, and every citation marker and white space after
//! them, however many, joins it. A URL is never cut. One pass over the answer; each position
//! looks a bounded number of bytes ahead.

use crate::analysis::links::bare_url_end;
use crate::analysis::markers::marker_len;

/// One sentence of an answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sentence {
    /// Byte range of the trimmed sentence in the answer.
    pub start: usize,
    /// End of that range (exclusive).
    pub end: usize,
    /// Its text: citation markers and URLs each replaced by one space (never blank).
    pub text: String,
    /// Whether a blank line (a line holding only white space) lies between the sentence
    /// before it (a kept one) and this one.
    pub after_blank_line: bool,
}

/// A cut character: `。！？；!?;` (a `.` and a newline are decided by [`cut_len`]).
fn is_cut_char(c: char) -> bool {
    matches!(c, '。' | '！' | '？' | '；' | '!' | '?' | ';')
}

/// Whether a URL starts at byte `i` of `s` (`http://` or `https://`, not glued to a letter
/// or digit before it): the bytes it spans, never cut.
fn url_at(s: &str, i: usize) -> Option<usize> {
    let b = s.as_bytes();
    if !matches!(b[i], b'h' | b'H') || (i > 0 && b[i - 1].is_ascii_alphanumeric()) {
        return None;
    }
    bare_url_end(s, i).filter(|end| *end > i).map(|end| end - i)
}

/// The length of the cut that starts at byte `i` (its cut character), or `None`.
fn cut_len(s: &str, i: usize, c: char) -> Option<usize> {
    let b = s.as_bytes();
    let after = i + c.len_utf8();
    let is_cut = is_cut_char(c)
        || c == '\n'
        || (c == '.'
            && (after == b.len()
                || s[after..].chars().next().is_some_and(char::is_whitespace)
                || marker_len(&b[after..]).is_some()));
    is_cut.then_some(c.len_utf8())
}

/// Where the sentence whose cut character ends at byte `i` ends: after the cut characters
/// directly following it (not after a newline: a line break is no punctuation to repeat, and
/// a sentence does not reach into the next line for one), then every marker and white space.
fn absorb(s: &str, mut i: usize, after_newline: bool) -> usize {
    let b = s.as_bytes();
    while let Some(c) = s[i..].chars().next().filter(|c| !after_newline && (is_cut_char(*c) || *c == '.')) {
        i += c.len_utf8();
    }
    loop {
        if let Some(n) = marker_len(&b[i..]) {
            i += n;
            continue;
        }
        match s[i..].chars().next() {
            Some(c) if c.is_whitespace() => i += c.len_utf8(),
            _ => return i,
        }
    }
}

/// `answer` cut into sentences (rule 1), blank ones dropped.
pub fn split_sentences(answer: &str) -> Vec<Sentence> {
    let mut spans: Vec<(usize, usize)> = Vec::new();
    let mut start = 0;
    let mut i = 0;
    while i < answer.len() {
        if let Some(n) = url_at(answer, i) {
            i += n;
            continue;
        }
        let c = answer[i..].chars().next().unwrap_or('\0');
        match cut_len(answer, i, c) {
            Some(n) => {
                let end = absorb(answer, i + n, c == '\n');
                spans.push((start, end));
                start = end;
                i = end;
            }
            None => i += c.len_utf8(),
        }
    }
    if start < answer.len() {
        spans.push((start, answer.len()));
    }
    let mut out: Vec<Sentence> = Vec::with_capacity(spans.len());
    let mut previous_end: Option<usize> = None;
    for (s, e) in spans {
        let raw = &answer[s..e];
        let lead = raw.len() - raw.trim_start().len();
        let trimmed = raw.trim();
        if trimmed.is_empty() {
            continue;
        }
        let (start, end) = (s + lead, s + lead + trimmed.len());
        let text = sentence_text(trimmed);
        if text.trim().is_empty() {
            continue;
        }
        let after_blank_line = previous_end.is_some_and(|p| has_blank_line(&answer[p..start]));
        previous_end = Some(end);
        out.push(Sentence { start, end, text, after_blank_line });
    }
    out
}

/// A sentence's text: each citation marker and each URL replaced by one space (a run of
/// three markers is three spaces: the contract's "each removed marker … becomes one space").
pub fn sentence_text(sentence: &str) -> String {
    let b = sentence.as_bytes();
    let mut out = String::with_capacity(sentence.len());
    let mut copied = 0;
    let mut i = 0;
    while i < b.len() {
        let skip = match b[i] {
            b'[' | b'^' => marker_len(&b[i..]).unwrap_or(0),
            b'h' | b'H' => url_at(sentence, i).unwrap_or(0),
            _ => 0,
        };
        if skip == 0 {
            i += 1;
            continue;
        }
        out.push_str(&sentence[copied..i]);
        out.push(' ');
        i += skip;
        copied = i;
    }
    out.push_str(&sentence[copied..]);
    out
}

/// Whether `between` (the text between two sentences) holds a blank line: two line breaks
/// with only white space between them.
fn has_blank_line(between: &str) -> bool {
    let mut seen_break = false;
    for c in between.chars() {
        if c == '\n' {
            if seen_break {
                return true;
            }
            seen_break = true;
        } else if !c.is_whitespace() {
            seen_break = false;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn check(answer: &str, expect: &[&str]) {
        let got: Vec<&str> = split_sentences(answer).iter().map(|s| &answer[s.start..s.end]).collect();
        assert_eq!(got, expect, "{answer:?}");
    }

    #[test]
    fn cuts() {
        check("元构场成立于2015年。总部在杭州！", &["元构场成立于2015年。", "总部在杭州！"]);
        check("Acme was founded in 2015. It is in Berlin", &["Acme was founded in 2015.", "It is in Berlin"]);
        check("version 2.5 is out. ok", &["version 2.5 is out.", "ok"]);
        check("真的吗？！是的。", &["真的吗？！", "是的。"]);
        check("Wait... what? Yes", &["Wait...", "what?", "Yes"]);
        check("第一行\n第二行", &["第一行", "第二行"]);
        check("a; b", &["a;", "b"]);
        // After a newline no cut character joins: `！` on the next line is its own sentence
        // (found by tests/it/claims_oracle.rs).
        check("元构场不推荐\n！好", &["元构场不推荐", "！", "好"]);
        check("A。\n。B", &["A。", "。", "B"]);
    }

    #[test]
    fn markers_and_white_space_join_the_sentence_before() {
        check("元构场成立于2015年。[1][2] 总部在杭州[ref_3]。", &["元构场成立于2015年。[1][2]", "总部在杭州[ref_3]。"]);
        check("It was founded in 2015.[3] Next", &["It was founded in 2015.[3]", "Next"]);
        check("结论^[1][2]^。下一句", &["结论^[1][2]^。", "下一句"]);
        check("Founded 2015.[^2]\n\nNext.", &["Founded 2015.[^2]", "Next."]);
    }

    #[test]
    fn urls_are_never_cut_and_leave_the_text() {
        let a = "见 https://a.example/x.html?q=1;b=2 的说明。好";
        check(a, &["见 https://a.example/x.html?q=1;b=2 的说明。", "好"]);
        assert_eq!(split_sentences(a)[0].text, "见   的说明。");
        check("See https://a.example/x. Next", &["See https://a.example/x.", "Next"]);
        // A sentence that is only a URL or markers is dropped.
        check("好。\nhttps://a.example/\n[1]\n再见", &["好。", "再见"]);
        // Each marker is one space (data-model.md: "each removed marker and URL becomes one
        // space"), so `5[1][2]million` is not `5 million`.
        assert_eq!(sentence_text("5[1][2]million^[3][4]^。"), "5  million 。");
    }

    #[test]
    fn blank_lines_are_remembered() {
        let s = split_sentences("A 公司。\n\nB 句。\nC 句。\n  \nD");
        let blanks: Vec<bool> = s.iter().map(|x| x.after_blank_line).collect();
        assert_eq!(blanks, [false, true, false, true]);
    }

    #[test]
    fn offsets_are_of_the_trimmed_sentence() {
        let a = "  甲。 \n 乙";
        let s = split_sentences(a);
        assert_eq!((&a[s[0].start..s[0].end], &a[s[1].start..s[1].end]), ("甲。", "乙"));
    }
}
