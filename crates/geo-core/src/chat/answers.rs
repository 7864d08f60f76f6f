//! Searching a run's answers with the docs-chat retrieval: which probes said something about
//! a query, and where.
//!
//! Each successful probe's cleaned `answer` is one document, chunked like a docs-chat file
//! ([`chunk`](super::chunk): 900 characters, 120 overlapping) and scored with the same BM25
//! ([`bm25`](super::bm25): word and CJK-bigram tokens, K1 = 1.2, B = 0.75), so "search the
//! answers" ranks exactly as docs chat ranks a document. A probe gives at most one hit, its
//! best-scoring chunk; hits are best first, equal scores in the order the probes were given.
//!
//! The snippet is at most [`SNIPPET_CHARS`] characters of the answer centred on the first
//! occurrence, in the hit's chunk, of the query term that adds most to the chunk's score
//! (ties: the earlier query term). `geo-probe mcp`'s `search_answers` tool is this function.

use serde::Serialize;

use super::bm25::Index;
use super::chunk::{chunk_document, normalize_text, Document};
use super::tokenize::for_each_token_span;
use crate::model::{Probe, ProbeStatus};

/// Longest snippet, in characters.
pub const SNIPPET_CHARS: usize = 200;
/// How many hits [`search_answers`] returns by default (docs chat's `TOP_K`).
pub const DEFAULT_ANSWER_HITS: usize = super::bm25::TOP_K;

/// One probe whose answer matches the query.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AnswerHit {
    /// The probe.
    pub probe_id: String,
    /// Its prompt.
    pub prompt_id: String,
    /// BM25 score of its best chunk (greater is better; always > 0).
    pub score: f64,
    /// At most [`SNIPPET_CHARS`] characters of the answer around the best-matching term.
    pub snippet: String,
}

/// The best `limit` successful probes of `probes` for `query`, one hit per probe, best
/// first (see the module docs). Probes of other statuses and empty answers are skipped; an
/// empty query, a query without a term in any answer, or `limit == 0` gives no hits.
pub fn search_answers<'a>(probes: impl IntoIterator<Item = &'a Probe>, query: &str, limit: usize) -> Vec<AnswerHit> {
    let searched: Vec<&Probe> =
        probes.into_iter().filter(|p| p.status == ProbeStatus::Success && !p.answer.trim().is_empty()).collect();
    if limit == 0 || searched.is_empty() {
        return Vec::new();
    }
    let docs: Vec<Document> =
        searched.iter().map(|p| Document { name: p.id.clone(), chunks: chunk_document(&p.answer) }).collect();
    let index = Index::from_documents(docs);
    let mut seen = vec![false; searched.len()];
    let mut hits = Vec::new();
    // Every matching chunk, best first: the first chunk seen of a probe is its best one.
    for hit in index.search(query, index.chunk_count()) {
        if std::mem::replace(&mut seen[hit.doc], true) {
            continue;
        }
        let probe = searched[hit.doc];
        let best_term = index
            .term_scores(query, &hit)
            .into_iter()
            .fold(None::<(String, f64)>, |best, (term, score)| match best {
                Some((_, s)) if s >= score => best,
                _ => Some((term, score)),
            })
            .map(|(term, _)| term);
        let focus = best_term
            .and_then(|term| first_span(&hit.text, &term))
            .map_or(hit.start..hit.start, |span| hit.start + span.start..hit.start + span.end);
        hits.push(AnswerHit {
            probe_id: probe.id.clone(),
            prompt_id: probe.prompt_id.clone(),
            score: hit.score,
            snippet: snippet(&normalize_text(&probe.answer), focus, SNIPPET_CHARS),
        });
        if hits.len() == limit {
            break;
        }
    }
    hits
}

/// Character offsets in `text` of the first token equal to `term`.
fn first_span(text: &str, term: &str) -> Option<std::ops::Range<usize>> {
    let mut found = None;
    for_each_token_span(text, |token, span| {
        if found.is_none() && token == term {
            found = Some(span);
        }
    });
    found
}

/// At most `max` characters of `text` around the characters `focus`: the focus is centred
/// (kept whole when it fits), the window slides inward at either end of the text, and
/// surrounding white space is trimmed.
pub fn snippet(text: &str, focus: std::ops::Range<usize>, max: usize) -> String {
    let total = text.chars().count();
    let focus_len = focus.end.saturating_sub(focus.start).min(max);
    let before = (max - focus_len) / 2;
    let mut start = focus.start.saturating_sub(before);
    let end = (start + max).min(total);
    if end - start < max {
        start = end.saturating_sub(max);
    }
    let window: String = text.chars().skip(start).take(end - start).collect();
    window.trim().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn check_snippet(text: &str, focus: std::ops::Range<usize>, max: usize, expect: &str) {
        assert_eq!(snippet(text, focus.clone(), max), expect, "{text:?} {focus:?}");
    }

    #[test]
    fn snippet_centres_the_focus_and_slides_at_the_ends() {
        check_snippet("abcdefghij", 4..5, 4, "defg");
        check_snippet("abcdefghij", 4..5, 5, "cdefg");
        check_snippet("abcdefghij", 0..1, 4, "abcd");
        check_snippet("abcdefghij", 9..10, 4, "ghij");
        check_snippet("abc", 1..2, 200, "abc");
        check_snippet("  上下文压缩  ", 2..4, 200, "上下文压缩");
        check_snippet("", 0..0, 200, "");
        // A focus longer than the window keeps its beginning.
        check_snippet("abcdefghij", 2..9, 3, "cde");
    }

    #[test]
    fn first_span_finds_whole_tokens_only() {
        assert_eq!(first_span("geography and GEO tools", "geo"), Some(14..17));
        assert_eq!(first_span("用上下文压缩", "压缩"), Some(4..6));
        assert_eq!(first_span("ＧＥＯ 工具", "geo"), Some(0..3));
        assert_eq!(first_span("nothing", "geo"), None);
    }
}
