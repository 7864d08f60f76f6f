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

use crate::analysis::markers::marker_len;
use crate::analysis::urls::normalize_url;
use crate::model::{AnswerLink, SearchSource};
use crate::text::class::{is_cjk_punct, is_trailing_punct};
use crate::text::markdown::{markdown_link, LinkIndex};

/// At most this many distinct links are kept per answer.
pub const MAX_ANSWER_LINKS: usize = 50;

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
    let authority_start = s[start..].find("://").map_or(0, |k| k + 3);
    bare_end_after(s, start, authority_start)
}

/// [`bare_end`] for a URL whose authority (host) starts `authority_start` bytes after `start`.
fn bare_end_after(s: &str, start: usize, authority_start: usize) -> usize {
    let rest = &s[start..];
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

/// End (byte offset in `s`) of the bare URL that starts at byte `start`, if one does: as
/// [`extract_answer_links`] ends a bare URL (white space, CJK punctuation …, then trailing
/// punctuation and unmatched closing brackets stripped), also ending at a citation marker.
/// What "What the answers say" removes from a sentence's text and never cuts.
pub(crate) fn bare_url_end(s: &str, start: usize) -> Option<usize> {
    if !starts_with_http(&s[start..]) {
        return None;
    }
    let b = s.as_bytes();
    let mut end = bare_end(s, start);
    if let Some(k) = (start..end).find(|&k| matches!(b[k], b'[' | b'^') && marker_len(&b[k..]).is_some()) {
        end = k;
    }
    Some(start + strip_trailing(&s[start..end]).len())
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

/// A link written as plain text, which a Markdown renderer turns into a link (GitHub's
/// "extended autolinks"): see [`bare_links`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BareLink {
    /// Byte range of the link's text in the scanned text.
    pub start: usize,
    /// End of that range (exclusive).
    pub end: usize,
    /// Where it points: the URL as written, `http://` + a `www.` name, or `mailto:` + an
    /// address. Not yet checked: the renderer passes it through `safe::safe_href`.
    pub href: String,
}

fn is_email_local(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'_' | b'+')
}

fn is_email_domain(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'_')
}

/// The address around the `@` at `at` that starts at or after `floor`: its range.
fn email_at(b: &[u8], at: usize, floor: usize) -> Option<(usize, usize)> {
    let mut start = at;
    while start > floor && is_email_local(b[start - 1]) {
        start -= 1;
    }
    let mut end = at + 1;
    while end < b.len() && is_email_domain(b[end]) {
        end += 1;
    }
    while end > at + 1 && b[end - 1] == b'.' {
        end -= 1;
    }
    let domain = &b[at + 1..end];
    let ok = start < at
        && domain.contains(&b'.')
        && domain.first().is_some_and(u8::is_ascii_alphanumeric)
        && !matches!(domain.last(), Some(b'-' | b'_'));
    ok.then_some((start, end))
}

/// The bare links of `text`, a run of plain text (no Markdown syntax left in it), in order:
///
/// * `http://` / `https://` URLs, found and ended exactly as [`extract_answer_links`] reads
///   bare URLs (not glued to a preceding letter or digit; CJK punctuation and spaces end them;
///   trailing punctuation and unmatched closing brackets are not part of them);
/// * `www.` names under the same rules, pointing to `http://` + the name;
/// * e-mail addresses (`name@example.com`), pointing to `mailto:` + the address.
///
/// One pass: every byte is looked at a bounded number of times.
pub fn bare_links(text: &str) -> Vec<BareLink> {
    let b = text.as_bytes();
    let mut out: Vec<BareLink> = Vec::new();
    let mut floor = 0;
    let mut i = 0;
    while i < b.len() {
        let glued = i > 0 && b[i - 1].is_ascii_alphanumeric();
        let www = !glued && b.len() - i > 4 && b[i..i + 4].eq_ignore_ascii_case(b"www.");
        if www || (!glued && matches!(b[i], b'h' | b'H') && starts_with_http(&text[i..])) {
            let authority = if www { 0 } else { text[i..].find("://").map_or(0, |k| k + 3) };
            let end = bare_end_after(text, i, authority);
            let url = strip_trailing(&text[i..end]);
            let host = &url[authority.min(url.len())..];
            if host.len() > usize::from(www) * 4 && host.contains(|c: char| c.is_alphanumeric()) {
                let href = if www { format!("http://{url}") } else { url.to_string() };
                out.push(BareLink { start: i, end: i + url.len(), href });
                i += url.len();
                floor = i;
                continue;
            }
            i = end.max(i + 1);
            continue;
        }
        if b[i] == b'@' {
            if let Some((start, end)) = email_at(b, i, floor) {
                out.push(BareLink { start, end, href: format!("mailto:{}", &text[start..end]) });
                i = end;
                floor = end;
                continue;
            }
            floor = i + 1;
        }
        i += 1;
    }
    out
}

/// `url` as written, but without `user:password@` in its authority: credentials are never
/// stored (the canonical URL drops them too). The authority ends where a URL parser ends it
/// for `http(s)`: at `/`, `?`, `#` or `\` (read as `/`), so an `@` after a `\` is part of
/// the path, not a credential (`https://a.example\x@y` keeps its host `a.example`).
fn without_credentials(url: &str) -> String {
    let Some(scheme_end) = url.find("://") else { return url.to_string() };
    let authority_start = scheme_end + 3;
    let authority_len = url[authority_start..].find(['/', '?', '#', '\\']).unwrap_or(url.len() - authority_start);
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
    fn an_at_sign_after_a_backslash_is_not_a_credential() {
        // Found by sources_props::extract_answer_links_never_panics: the authority was read up
        // to the `@`, so the stored URL lost its host ("https://") and no longer parsed.
        for (answer, url) in [
            ("https://**\\[@", "https://**\\[@"),
            ("see https://a.example\\x@y ok", "https://a.example\\x@y"),
            ("https://user:pw@a.example\\p", "https://a.example\\p"),
        ] {
            let links = extract_answer_links(answer, &[]);
            assert_eq!(links.iter().map(|l| l.url.as_str()).collect::<Vec<_>>(), [url], "{answer:?}");
            let parts = normalize_url(&links[0].url).expect("the stored URL parses");
            assert_eq!(parts.canonical, links[0].canonical_url);
        }
    }

    fn spans(text: &str) -> Vec<(&str, String)> {
        bare_links(text).into_iter().map(|l| (&text[l.start..l.end], l.href)).collect()
    }

    #[test]
    fn bare_links_are_urls_www_names_and_addresses() {
        assert_eq!(
            spans("see https://a.com/x, www.b.org/y. or mail me@c.cn."),
            vec![
                ("https://a.com/x", "https://a.com/x".to_string()),
                ("www.b.org/y", "http://www.b.org/y".to_string()),
                ("me@c.cn", "mailto:me@c.cn".to_string()),
            ]
        );
        assert_eq!(
            spans("访问https://example.com了解更多"),
            vec![("https://example.com", "https://example.com".into())]
        );
        assert_eq!(
            spans("(https://a.com/Foo_(bar))"),
            vec![("https://a.com/Foo_(bar)", "https://a.com/Foo_(bar)".into())]
        );
        assert!(spans("xhttps://a.com awww.b.com https:// www. a@b a@b- @c.com").is_empty());
        assert_eq!(spans("a@b.com@c.org").len(), 1);
    }

    #[test]
    fn strip_keeps_balanced_brackets() {
        assert_eq!(strip_trailing("https://a.com/Foo_(bar))"), "https://a.com/Foo_(bar)");
        assert_eq!(strip_trailing("https://a.com/x。）"), "https://a.com/x");
        assert_eq!(strip_trailing("https://a.com/x]"), "https://a.com/x");
        assert_eq!(strip_trailing("https://a.com/[x]"), "https://a.com/[x]");
    }
}
