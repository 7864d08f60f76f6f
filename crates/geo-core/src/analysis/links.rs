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
fn strip_trailing(url: &str) -> &str {
    let mut s = url;
    while let Some(c) = s.chars().next_back() {
        let strip = if is_trailing_punct(c) {
            true
        } else {
            let open = match c {
                ')' => '(',
                ']' => '[',
                '}' => '{',
                '>' => '<',
                _ => break,
            };
            s.matches(c).count() > s.matches(open).count()
        };
        if !strip {
            break;
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

/// Parses a Markdown link whose `[` is at `start`: `(text, destination, end)`.
fn markdown_link(s: &str, start: usize) -> Option<(&str, &str, usize)> {
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
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'[' => {
                if let Some((text, dest, end)) = markdown_link(answer, i) {
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

    #[test]
    fn strip_keeps_balanced_brackets() {
        assert_eq!(strip_trailing("https://a.com/Foo_(bar))"), "https://a.com/Foo_(bar)");
        assert_eq!(strip_trailing("https://a.com/x。）"), "https://a.com/x");
        assert_eq!(strip_trailing("https://a.com/x]"), "https://a.com/x");
        assert_eq!(strip_trailing("https://a.com/[x]"), "https://a.com/[x]");
    }
}
