//! `extract_answer_links` (seed §5.5): the URLs the final answer itself writes out.
//!
//! A hand-written scanner (no regex: wasm size) finds, in order of appearance:
//!
//! * Markdown links and images `[text](https://...)`, `![alt](https://...)`: the text may
//!   contain nested brackets (`[[1]](...)`), the destination may contain balanced
//!   parentheses (`.../Foo_(disambiguation)`) or be written `<...>`, and a title
//!   (`"..."`, `'...'`, `(...)`) may follow it. A Markdown construct is consumed whole, so
//!   its URL is not counted again as a bare URL;
//! * autolinks `<https://...>`;
//! * bare `http://` / `https://` URLs (scheme case-insensitive, not glued to a preceding
//!   letter or digit). A bare URL ends at whitespace, at `<`, `>`, `"`, `` ` ``, at `](`, at
//!   full-width/CJK punctuation (`。，；：！？、“”‘’「」『』《》（）【】…`), and, inside its host,
//!   at any other non-ASCII character, so "访问https://example.com了解更多" yields
//!   `https://example.com` while `https://zh.wikipedia.org/wiki/北京` stays whole.
//!
//! Trailing punctuation is then stripped from every URL: `.,;:!?'"*` and
//! `。，；：！？、」』》）】`, and a closing `)`, `]`, `}` or `>` only while it is unmatched inside
//! the URL. What is left goes through `normalize_url` (the sources' canonicalisation; other
//! schemes and unparsable URLs are dropped), links are deduplicated by canonical URL (the
//! first occurrence wins and borrows the link text of a later duplicate when it has none),
//! at most [`MAX_ANSWER_LINKS`] are kept, and each is marked `inSources` when its canonical
//! URL is the `url` of one of the probe's sources.

use std::collections::{HashMap, HashSet};

use crate::analysis::urls::normalize_url;
use crate::model::{AnswerLink, SearchSource};

/// At most this many distinct links are kept per answer.
pub const MAX_ANSWER_LINKS: usize = 50;

/// Longest Markdown link text (in bytes) looked through for its closing `]`.
const MAX_LINK_TEXT_BYTES: usize = 2000;

/// Full-width and CJK punctuation that ends a bare URL.
fn is_cjk_punct(c: char) -> bool {
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

/// Trailing characters always stripped from a URL.
fn is_trailing_punct(c: char) -> bool {
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

/// Strips trailing punctuation and unmatched closing brackets.
///
/// Linear: the brackets are counted once, and each stripped closer lowers its count, so a
/// URL followed by 100,000 `)` costs one pass, not one recount per stripped character.
fn strip_trailing(url: &str) -> &str {
    const CLOSERS: [u8; 4] = [b')', b']', b'}', b'>'];
    const OPENERS: [u8; 4] = [b'(', b'[', b'{', b'<'];
    // unmatched[k]: closers of kind k minus openers of kind k in what is left of the URL.
    let mut unmatched = [0isize; 4];
    for &b in url.as_bytes() {
        if let Some(k) = CLOSERS.iter().position(|&c| c == b) {
            unmatched[k] += 1;
        } else if let Some(k) = OPENERS.iter().position(|&o| o == b) {
            unmatched[k] -= 1;
        }
    }
    let mut s = url;
    while let Some(c) = s.chars().next_back() {
        if !is_trailing_punct(c) {
            let Some(k) = CLOSERS.iter().position(|&b| c == char::from(b)) else { break };
            if unmatched[k] <= 0 {
                break;
            }
            unmatched[k] -= 1;
        }
        s = &s[..s.len() - c.len_utf8()];
    }
    s
}

fn starts_with_http(s: &str) -> bool {
    let b = s.as_bytes();
    let ci = |prefix: &[u8]| b.len() >= prefix.len() && b[..prefix.len()].eq_ignore_ascii_case(prefix);
    ci(b"http://") || ci(b"https://")
}

/// What the Markdown-link parser looks up, computed in a few passes over the answer so that
/// trying a link at every `[` costs a binary search each instead of a rescan of the text
/// after it (a rescan made `[a](` × n, `[` × n and `[a](x (` × n quadratic).
struct LinkIndex {
    /// Every `[` (byte offset, ascending) and the `]` that closes it as a link text: the
    /// first unescaped `]` at the same bracket depth, at most [`MAX_LINK_TEXT_BYTES`] away and
    /// with no blank line in between.
    opens: Vec<usize>,
    closes: Vec<Option<usize>>,
    /// Ends of plain destinations, by their start (ascending).
    dest_starts: Vec<usize>,
    dest_ends: Vec<usize>,
    /// Offsets of `"`, `'` and `)` (title ends) and of `>`, `<`, `\n` (`<…>` destination ends).
    double_quotes: Vec<usize>,
    single_quotes: Vec<usize>,
    close_parens: Vec<usize>,
    angle_stops: Vec<usize>,
}

/// First element of the ascending `v` at or after `from`.
fn next_at(v: &[usize], from: usize) -> Option<usize> {
    v.get(v.partition_point(|&x| x < from)).copied()
}

impl LinkIndex {
    fn new(s: &str) -> Self {
        let b = s.as_bytes();
        let mut index = LinkIndex {
            opens: Vec::new(),
            closes: Vec::new(),
            dest_starts: Vec::new(),
            dest_ends: Vec::new(),
            double_quotes: Vec::new(),
            single_quotes: Vec::new(),
            close_parens: Vec::new(),
            angle_stops: Vec::new(),
        };
        // Link texts. A link text's parse from any `[` reads escapes the same way as one parse
        // from the start of the answer (a `[` is never the backslash of a pair), so `depth` is
        // counted once: `]` at j closes the `[` at i when it is unescaped and the depth before j
        // equals the depth after i (the `[` at i counts as an opener even when escaped).
        let mut brackets: Vec<(usize, bool, i64)> = Vec::new(); // (offset, is_open, depth)
        let mut blank_lines = Vec::new();
        let mut depth = 0i64;
        let mut i = 0;
        while i < b.len() {
            match b[i] {
                b'\\' if i + 1 < b.len() && b[i + 1].is_ascii_punctuation() => {
                    if b[i + 1] == b'[' {
                        brackets.push((i + 1, true, depth));
                    }
                    i += 2;
                    continue;
                }
                b'[' => {
                    depth += 1;
                    brackets.push((i, true, depth));
                }
                b']' => {
                    brackets.push((i, false, depth));
                    depth -= 1;
                }
                b'\n' if b.get(i + 1) == Some(&b'\n') => blank_lines.push(i),
                _ => {}
            }
            i += 1;
        }
        let mut nearest_close: HashMap<i64, usize> = HashMap::new();
        let mut closes_rev = Vec::new();
        for &(at, open, depth) in brackets.iter().rev() {
            if !open {
                nearest_close.insert(depth, at);
                continue;
            }
            let close = nearest_close.get(&depth).copied().filter(|&j| {
                j - at <= MAX_LINK_TEXT_BYTES && next_at(&blank_lines, at + 1).is_none_or(|blank| blank > j)
            });
            closes_rev.push((at, close));
        }
        closes_rev.reverse();
        (index.opens, index.closes) = closes_rev.into_iter().unzip();

        // Plain destinations: from `p` to the first whitespace or control character, or the
        // first `)` not matched inside it, which is the first `)` at or after `p` at the paren
        // depth of `p` (depth = `(` minus `)` before an offset). Swept right to left.
        let mut starts: Vec<usize> = index
            .closes
            .iter()
            .flatten()
            .filter(|&&close| b.get(close + 1) == Some(&b'('))
            .map(|&close| skip_blanks(b, close + 2))
            .filter(|&p| b.get(p) != Some(&b'<'))
            .collect();
        starts.sort_unstable();
        starts.dedup();
        let total: i64 = b.iter().map(|&c| i64::from(c == b'(') - i64::from(c == b')')).sum();
        // `(` minus `)` at or after the current offset; the depth before offset k is
        // `total - after` once `after` counts the character at k.
        let mut after = 0i64;
        let mut next_stop = b.len();
        let mut paren_at_depth: HashMap<i64, usize> = HashMap::new();
        let mut pending = starts.len();
        let mut ends = vec![0; starts.len()];
        if pending > 0 && starts[pending - 1] >= b.len() {
            ends[pending - 1] = b.len();
            pending -= 1;
        }
        for (k, c) in s.char_indices().rev() {
            if pending == 0 {
                break;
            }
            after += i64::from(c == '(') - i64::from(c == ')');
            let depth_before = total - after;
            if c.is_whitespace() || c.is_control() {
                next_stop = k;
            }
            if c == ')' {
                // The nearest `)` at or after k with this depth before it.
                paren_at_depth.insert(depth_before, k);
            }
            while pending > 0 && starts[pending - 1] == k {
                let paren = paren_at_depth.get(&depth_before).copied().unwrap_or(b.len());
                ends[pending - 1] = next_stop.min(paren);
                pending -= 1;
            }
        }
        index.dest_starts = starts;
        index.dest_ends = ends;

        for (k, &c) in b.iter().enumerate() {
            match c {
                b'"' => index.double_quotes.push(k),
                b'\'' => index.single_quotes.push(k),
                b')' => index.close_parens.push(k),
                b'>' | b'<' | b'\n' => index.angle_stops.push(k),
                _ => {}
            }
        }
        index
    }

    fn text_close(&self, start: usize) -> Option<usize> {
        let k = self.opens.binary_search(&start).ok()?;
        self.closes[k]
    }

    fn dest_end(&self, p: usize) -> Option<usize> {
        let k = self.dest_starts.binary_search(&p).ok()?;
        Some(self.dest_ends[k])
    }
}

/// Parses a Markdown link whose `[` is at `start`: `(text, destination, end)`.
fn markdown_link<'s>(s: &'s str, start: usize, index: &LinkIndex) -> Option<(&'s str, &'s str, usize)> {
    let b = s.as_bytes();
    let close = index.text_close(start)?;
    if b.get(close + 1) != Some(&b'(') {
        return None;
    }
    let mut p = skip_blanks(b, close + 2);
    let dest;
    if b.get(p) == Some(&b'<') {
        let end = next_at(&index.angle_stops, p + 1)?;
        if b[end] != b'>' {
            return None;
        }
        dest = &s[p + 1..end];
        p = end + 1;
    } else {
        let end = index.dest_end(p)?;
        dest = &s[p..end];
        p = end;
    }
    p = skip_blanks(b, p);
    if let Some(&q) = b.get(p) {
        let closing = match q {
            b'"' => Some(&index.double_quotes),
            b'\'' => Some(&index.single_quotes),
            b'(' => Some(&index.close_parens),
            _ => None,
        };
        if let Some(closing) = closing {
            let at = next_at(closing, p + 1)?;
            p = skip_blanks(b, at + 1);
        }
    }
    if b.get(p) != Some(&b')') {
        return None;
    }
    Some((&s[start + 1..close], dest, p + 1))
}

fn skip_blanks(b: &[u8], mut p: usize) -> usize {
    while p < b.len() && (b[p] == b' ' || b[p] == b'\t' || b[p] == b'\n' || b[p] == b'\r') {
        p += 1;
    }
    p
}

/// Parses an autolink whose `<` is at `start`: `(url, end)`.
fn autolink(s: &str, start: usize) -> Option<(&str, usize)> {
    let rest = &s[start + 1..];
    if !starts_with_http(rest) {
        return None;
    }
    let end = rest.find(|c: char| c == '>' || c == '<' || c.is_whitespace())?;
    if rest.as_bytes()[end] != b'>' {
        return None;
    }
    Some((&rest[..end], start + 1 + end + 1))
}

/// End (byte offset in `s`) of the bare URL starting at `start`.
fn bare_end(s: &str, start: usize) -> usize {
    let rest = &s[start..];
    let authority_start = rest.find("://").map_or(0, |k| k + 3);
    let mut in_authority = true;
    let mut prev = '\0';
    for (k, c) in rest.char_indices() {
        if k >= authority_start && in_authority && matches!(c, '/' | '?' | '#') {
            in_authority = false;
        }
        let stop = c.is_whitespace()
            || c.is_control()
            || matches!(c, '<' | '>' | '"' | '`')
            || is_cjk_punct(c)
            || (prev == ']' && c == '(')
            || (in_authority && k >= authority_start && !c.is_ascii());
        if stop {
            let end = if prev == ']' && c == '(' { k - 1 } else { k };
            return start + end;
        }
        prev = c;
    }
    s.len()
}

/// Walks `answer` and calls `emit(url, text)` for every candidate link in order.
fn scan(answer: &str, mut emit: impl FnMut(&str, Option<&str>)) {
    let b = answer.as_bytes();
    let index = answer.contains('[').then(|| LinkIndex::new(answer));
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'[' => {
                if let Some((text, dest, end)) = index.as_ref().and_then(|index| markdown_link(answer, i, index)) {
                    let dest = dest.trim();
                    if starts_with_http(dest) {
                        emit(strip_trailing(dest), Some(text));
                    }
                    i = end;
                    continue;
                }
            }
            b'<' => {
                if let Some((url, end)) = autolink(answer, i) {
                    emit(strip_trailing(url), None);
                    i = end;
                    continue;
                }
            }
            b'h' | b'H' if starts_with_http(&answer[i..]) && (i == 0 || !b[i - 1].is_ascii_alphanumeric()) => {
                let end = bare_end(answer, i);
                emit(strip_trailing(&answer[i..end]), None);
                i = end.max(i + 1);
                continue;
            }
            _ => {}
        }
        i += 1;
    }
}

/// Extracts the links written in `answer` (see the module doc), marking those whose
/// canonical URL is among `sources` (the same probe's retrieved sources).
pub fn extract_answer_links(answer: &str, sources: &[SearchSource]) -> Vec<AnswerLink> {
    let source_urls: HashSet<&str> = sources.iter().map(|s| s.url.as_str()).collect();
    let mut links: Vec<AnswerLink> = Vec::new();
    let mut seen: HashMap<String, usize> = HashMap::new();
    scan(answer, |url, text| {
        let text = text.map(str::trim).filter(|t| !t.is_empty());
        let Some(parts) = normalize_url(url) else {
            return;
        };
        if let Some(&i) = seen.get(&parts.canonical) {
            if links[i].text.is_none() {
                links[i].text = text.map(str::to_string);
            }
            return;
        }
        if links.len() >= MAX_ANSWER_LINKS {
            return;
        }
        seen.insert(parts.canonical.clone(), links.len());
        links.push(AnswerLink {
            url: url.to_string(),
            in_sources: source_urls.contains(parts.canonical.as_str()),
            canonical_url: parts.canonical,
            domain: parts.domain,
            text: text.map(str::to_string),
        });
    });
    links
}

#[cfg(test)]
mod tests {
    use super::*;

    // The scanning parser this module had before `LinkIndex` (quadratic on hostile input):
    // the oracle the indexed parser must agree with at every `[`.
    /// Parses a Markdown link whose `[` is at `start`: `(text, destination, end)`.
    fn naive_markdown_link(s: &str, start: usize) -> Option<(&str, &str, usize)> {
        let b = s.as_bytes();
        let mut depth = 0usize;
        let mut j = start;
        let close = loop {
            if j >= b.len() || j - start > MAX_LINK_TEXT_BYTES {
                return None;
            }
            match b[j] {
                b'\\' if j + 1 < b.len() && b[j + 1].is_ascii_punctuation() => j += 1,
                b'[' => depth += 1,
                b']' => {
                    depth -= 1;
                    if depth == 0 {
                        break j;
                    }
                }
                b'\n' if b.get(j + 1) == Some(&b'\n') => return None,
                _ => {}
            }
            j += 1;
        };
        if b.get(close + 1) != Some(&b'(') {
            return None;
        }
        let mut p = skip_blanks(b, close + 2);
        let dest;
        if b.get(p) == Some(&b'<') {
            let rest = &s[p + 1..];
            let end = rest.find(['>', '<', '\n'])?;
            if rest.as_bytes()[end] != b'>' {
                return None;
            }
            dest = &rest[..end];
            p = p + 1 + end + 1;
        } else {
            let rest = &s[p..];
            let mut parens = 0usize;
            let mut end = rest.len();
            for (k, c) in rest.char_indices() {
                if c.is_whitespace() || c.is_control() {
                    end = k;
                    break;
                }
                if c == '(' {
                    parens += 1;
                } else if c == ')' {
                    if parens == 0 {
                        end = k;
                        break;
                    }
                    parens -= 1;
                }
            }
            dest = &rest[..end];
            p += end;
        }
        p = skip_blanks(b, p);
        if let Some(&q) = b.get(p) {
            let closing = match q {
                b'"' => Some(b'"'),
                b'\'' => Some(b'\''),
                b'(' => Some(b')'),
                _ => None,
            };
            if let Some(closing) = closing {
                let rel = b[p + 1..].iter().position(|&x| x == closing)?;
                p = skip_blanks(b, p + 1 + rel + 1);
            }
        }
        if b.get(p) != Some(&b')') {
            return None;
        }
        Some((&s[start + 1..close], dest, p + 1))
    }

    const FRAGMENTS: &[&str] = &[
        "[",
        "]",
        "(",
        ")",
        "\\",
        "\\[",
        "\\]",
        "\\\\",
        "<",
        ">",
        "\"",
        "'",
        " ",
        "\n",
        "\n\n",
        "\t",
        "\u{3000}",
        "\u{7}",
        "a",
        "é",
        "https://a.example/x",
        "](",
        "[a](",
        "x \"t\"",
        "(b)",
        "元",
    ];

    fn soup() -> impl proptest::strategy::Strategy<Value = String> {
        proptest::collection::vec(proptest::sample::select(FRAGMENTS), 0..40).prop_map(|v| v.concat())
    }

    use proptest::strategy::Strategy as _;

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(
            std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(256)))]

        /// The indexed parser finds exactly the links the scanning parser found, at every `[`.
        #[test]
        fn indexed_markdown_link_equals_the_scanning_parser(s in soup()) {
            let index = LinkIndex::new(&s);
            for (i, _) in s.match_indices('[') {
                proptest::prop_assert_eq!(markdown_link(&s, i, &index), naive_markdown_link(&s, i), "at {} in {:?}", i, s);
            }
        }
    }

    #[test]
    fn link_text_limit_and_blank_line_match_the_scanning_parser() {
        for s in [
            format!("[{}](https://a.example/)", "x".repeat(MAX_LINK_TEXT_BYTES - 1)),
            format!("[{}](https://a.example/)", "x".repeat(MAX_LINK_TEXT_BYTES)),
            "[a\n\nb](https://a.example/)".to_string(),
            "[a\nb](https://a.example/)".to_string(),
            "\\[a](https://a.example/)".to_string(),
        ] {
            let index = LinkIndex::new(&s);
            for (i, _) in s.match_indices('[') {
                assert_eq!(markdown_link(&s, i, &index), naive_markdown_link(&s, i), "at {i} in {s:?}");
            }
        }
    }

    #[test]
    fn strip_keeps_balanced_brackets() {
        assert_eq!(strip_trailing("https://a.com/Foo_(bar))"), "https://a.com/Foo_(bar)");
        assert_eq!(strip_trailing("https://a.com/x。）"), "https://a.com/x");
        assert_eq!(strip_trailing("https://a.com/x]"), "https://a.com/x");
        assert_eq!(strip_trailing("https://a.com/[x]"), "https://a.com/[x]");
    }
}
