//! The one Markdown-link scanner: inline links and images `[text](dest "title")`, reference
//! links `[text][ref]`, read the way the answer-link extraction (`analysis::links`) and the
//! list-title cleaning (`analysis::lists`) both need them.
//!
//! Inline links follow CommonMark's shape closely enough for model answers: the text may hold
//! nested brackets (`[[1]](…)`) and escapes, ends at the first unescaped `]` of its depth at
//! most [`MAX_LINK_TEXT_BYTES`] away and without a blank line; the destination is `<…>` or
//! a run without spaces or control characters whose parentheses balance; a title (`"…"`,
//! `'…'`, `(…)`) may follow. [`LinkIndex`] answers every lookup by binary search from a few
//! passes over the text, so trying a link at every `[` of hostile input stays linear
//! (`tests/it/analysis_linear.rs`).

use std::collections::HashMap;

/// Longest Markdown link text (in bytes) looked through for its closing `]`.
pub(crate) const MAX_LINK_TEXT_BYTES: usize = 2000;

/// What the Markdown-link parser looks up, computed in a few passes over the answer so that
/// trying a link at every `[` costs a binary search each instead of a rescan of the text
/// after it (a rescan made `[a](` × n, `[` × n and `[a](x (` × n quadratic).
pub(crate) struct LinkIndex {
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
    /// Indexes the links of `s`.
    pub(crate) fn new(s: &str) -> Self {
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

/// Parses an inline Markdown link (or image, without its `!`) whose `[` is at `start`:
/// `(text, destination, end)`.
pub(crate) fn markdown_link<'s>(s: &'s str, start: usize, index: &LinkIndex) -> Option<(&'s str, &'s str, usize)> {
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

/// Parses a reference link `[text][ref]` whose first `[` is at `start`: `(text, end)`.
pub(crate) fn reference_link<'s>(s: &'s str, start: usize, index: &LinkIndex) -> Option<(&'s str, usize)> {
    let close = index.text_close(start)?;
    if s.as_bytes().get(close + 1) != Some(&b'[') {
        return None;
    }
    let end = index.text_close(close + 1)?;
    Some((&s[start + 1..close], end + 1))
}

/// `s` with every Markdown link replaced by its text (`[text](url)`, `[text][ref]` → `text`)
/// and every image (`![alt](url)`) dropped; other brackets stay.
pub(crate) fn strip_links(s: &str) -> String {
    if !s.contains('[') {
        return s.to_string();
    }
    let index = LinkIndex::new(s);
    let b = s.as_bytes();
    let mut out = String::with_capacity(s.len());
    let (mut i, mut copied) = (0, 0);
    while i < b.len() {
        if b[i] == b'[' {
            let found =
                markdown_link(s, i, &index).map(|(text, _, end)| (text, end)).or_else(|| reference_link(s, i, &index));
            if let Some((text, end)) = found {
                out.push_str(&s[copied..i]);
                if out.ends_with('!') {
                    out.pop();
                } else {
                    out.push_str(text);
                }
                i = end;
                copied = end;
                continue;
            }
        }
        i += 1;
    }
    out.push_str(&s[copied..]);
    out
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

    #[track_caller]
    fn check_strip(input: &str, expect: &str) {
        assert_eq!(strip_links(input), expect, "{input:?}");
    }

    #[test]
    fn links_keep_their_text_and_images_go() {
        check_strip("[Acme](https://acme.com) 公司", "Acme 公司");
        check_strip("![logo](https://a.b/l.png)Acme", "Acme");
        check_strip("[Acme][1] and [Beta] [x]", "Acme and [Beta] [x]");
        check_strip("[[1]](https://a.b/) 元构场", "[1] 元构场");
        check_strip("[Wiki](https://w.org/Foo_(bar) \"t\")!", "Wiki!");
        check_strip("[a](b c d)", "[a](b c d)");
        check_strip("no links (here)", "no links (here)");
        check_strip("[unclosed](", "[unclosed](");
    }
}
