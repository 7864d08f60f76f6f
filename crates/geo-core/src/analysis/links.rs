//! `extract_answer_links` (seed §5.5): the URLs the final answer itself writes out.
//!
//! A hand-written scanner (no regex: wasm size) finds, in order of appearance:
//!
//! * Markdown links and images `[text](https://...)`, `![alt](https://...)` (read by the one
//!   Markdown-link scanner, `text::markdown`, which list titles are cleaned with too): the text may
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
//! URL is the `url` of one of the probe's sources. A link's `url` is kept as written except
//! for credentials (`user:password@`), which are dropped.

use std::collections::{HashMap, HashSet};

use crate::analysis::urls::normalize_url;
use crate::model::{AnswerLink, SearchSource};
use crate::text::markdown::{markdown_link, LinkIndex};

/// At most this many distinct links are kept per answer.
pub const MAX_ANSWER_LINKS: usize = 50;

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

/// `url` as written, but without `user:password@` in its authority: credentials are never
/// stored (the canonical URL drops them too).
fn without_credentials(url: &str) -> String {
    let Some(scheme_end) = url.find("://") else { return url.to_string() };
    let authority_start = scheme_end + 3;
    let authority_len = url[authority_start..].find(['/', '?', '#']).unwrap_or(url.len() - authority_start);
    match url[authority_start..authority_start + authority_len].rfind('@') {
        Some(at) => format!("{}{}", &url[..authority_start], &url[authority_start + at + 1..]),
        None => url.to_string(),
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
            url: without_credentials(url),
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
