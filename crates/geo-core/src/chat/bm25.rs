//! BM25 keyword retrieval over document chunks.
//!
//! Every chunk of every document is one BM25 "document". For a query with distinct terms
//! `q₁…qₘ` (duplicates removed, first occurrence kept — so `压缩压缩` weighs the same as
//! `压缩`; Lucene would sum a repeated clause twice, we prefer a query that cannot be
//! inflated by repetition), the score of chunk `D` is
//!
//! ```text
//! score(D) = Σᵢ idf(qᵢ) · tf(qᵢ, D) · (K1 + 1) / (tf(qᵢ, D) + K1 · (1 − B + B · |D| / avgdl))
//! idf(q)   = ln(1 + (N − n(q) + 0.5) / (n(q) + 0.5))          (Lucene's non-negative idf)
//! ```
//!
//! where `tf` counts the term's tokens in the chunk, `|D|` is the chunk's length in tokens,
//! `avgdl` the mean chunk length in tokens over all `N` chunks, and `n(q)` the number of
//! chunks containing `q`. Only chunks containing at least one query term can hit. Hits are
//! ranked by score, descending; equal scores keep document order, then chunk order. The
//! sum runs over the query terms in query order, so the result is bit-for-bit
//! deterministic.

use rustc_hash::FxHashMap;

use serde::Serialize;

use super::chunk::Document;
use super::tokenize::{for_each_token, tokenize};

/// BM25 term-frequency saturation.
pub const K1: f64 = 1.2;
/// BM25 length normalisation.
pub const B: f64 = 0.75;
/// How many hits retrieval returns by default.
pub const TOP_K: usize = 8;

/// One retrieved chunk.
///
/// Serialises to the CLI's `retrieve` shape `{ source, chunk, start, end, score, text }`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Hit {
    /// Position of the document in the slice given to [`Index::build`].
    #[serde(skip)]
    pub doc: usize,
    /// Name of the document.
    pub source: String,
    /// 0-based chunk index in the document.
    pub chunk: usize,
    /// Character offset of the chunk's start in the (normalised) document.
    pub start: usize,
    /// Character offset one past the chunk's end.
    pub end: usize,
    /// BM25 score (greater is better; always > 0).
    pub score: f64,
    /// The chunk's text.
    pub text: String,
}

/// A posting: the chunk (global id) and how often the term occurs in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Posting {
    chunk: u32,
    tf: u32,
}

/// Where a global chunk id points.
#[derive(Debug, Clone, Copy)]
struct ChunkRef {
    doc: u32,
    chunk: u32,
}

/// An inverted index over the chunks of a set of documents.
#[derive(Debug, Clone)]
pub struct Index {
    docs: Vec<Document>,
    chunks: Vec<ChunkRef>,
    /// Term ids of tokens of at most 8 bytes, keyed by [`short_key`].
    short_terms: FxHashMap<u64, u32>,
    /// Term ids of longer tokens.
    long_terms: FxHashMap<Box<str>, u32>,
    postings: Vec<Vec<Posting>>,
    /// Chunk lengths in tokens.
    lengths: Vec<u32>,
    /// `K1 · (1 − B + B · |D| / avgdl)` per chunk.
    norms: Vec<f64>,
    avgdl: f64,
}

impl Index {
    /// Builds the index of every chunk of `docs` (documents keep their order; chunk ids
    /// run through document 0's chunks, then document 1's, …).
    pub fn build(docs: &[Document]) -> Index {
        Index::from_documents(docs.to_vec())
    }

    /// [`Index::build`] taking ownership of the documents (no copy of their text).
    pub fn from_documents(docs: Vec<Document>) -> Index {
        let mut index = Index {
            docs: Vec::new(),
            chunks: Vec::new(),
            short_terms: FxHashMap::default(),
            long_terms: FxHashMap::default(),
            postings: Vec::new(),
            lengths: Vec::new(),
            norms: Vec::new(),
            avgdl: 0.0,
        };
        // Per-chunk term counts, indexed by term id; `touched` lists the non-zero ones.
        let mut counts: Vec<u32> = Vec::new();
        let mut touched: Vec<u32> = Vec::new();
        let mut total_tokens: u64 = 0;
        for (d, doc) in docs.iter().enumerate() {
            for chunk in &doc.chunks {
                let id = index.chunks.len() as u32;
                index.chunks.push(ChunkRef { doc: d as u32, chunk: chunk.index as u32 });
                let mut length = 0u32;
                let short_terms = &mut index.short_terms;
                let long_terms = &mut index.long_terms;
                let postings = &mut index.postings;
                for_each_token(&chunk.text, |token| {
                    length += 1;
                    let next = postings.len() as u32;
                    let term = match short_key(token) {
                        Some(key) => *short_terms.entry(key).or_insert(next),
                        None => match long_terms.get(token) {
                            Some(&t) => t,
                            None => {
                                long_terms.insert(token.into(), next);
                                next
                            }
                        },
                    };
                    if term == next {
                        postings.push(Vec::new());
                        counts.push(0);
                    }
                    let count = &mut counts[term as usize];
                    if *count == 0 {
                        touched.push(term);
                    }
                    *count += 1;
                });
                for &term in &touched {
                    let tf = std::mem::take(&mut counts[term as usize]);
                    index.postings[term as usize].push(Posting { chunk: id, tf });
                }
                touched.clear();
                index.lengths.push(length);
                total_tokens += u64::from(length);
            }
        }
        index.docs = docs;
        let n = index.chunks.len();
        index.avgdl = if n == 0 { 0.0 } else { total_tokens as f64 / n as f64 };
        let avgdl = index.avgdl;
        index.norms = index.lengths.iter().map(|&len| length_norm(len, avgdl)).collect();
        index
    }

    fn term_id(&self, token: &str) -> Option<u32> {
        match short_key(token) {
            Some(key) => self.short_terms.get(&key).copied(),
            None => self.long_terms.get(token).copied(),
        }
    }

    /// The documents, in the order given to [`Index::build`].
    pub fn documents(&self) -> &[Document] {
        &self.docs
    }

    /// Number of chunks over all documents (BM25's `N`).
    pub fn chunk_count(&self) -> usize {
        self.chunks.len()
    }

    /// Number of distinct terms.
    pub fn term_count(&self) -> usize {
        self.postings.len()
    }

    /// Mean chunk length in tokens (0 when there are no chunks).
    pub fn avgdl(&self) -> f64 {
        self.avgdl
    }

    /// The best `top` chunks for `query`, best first (see the module docs). An empty
    /// query, a query without indexed terms or `top == 0` gives no hits.
    pub fn search(&self, query: &str, top: usize) -> Vec<Hit> {
        if top == 0 || self.chunks.is_empty() {
            return Vec::new();
        }
        let n = self.chunks.len() as f64;
        let mut scores = vec![0.0f64; self.chunks.len()];
        let mut hit = vec![false; self.chunks.len()];
        let mut candidates: Vec<u32> = Vec::new();
        for term in query_terms(query) {
            let Some(t) = self.term_id(&term) else {
                continue;
            };
            let postings = &self.postings[t as usize];
            let idf = idf(n, postings.len() as f64);
            for p in postings {
                let c = p.chunk as usize;
                scores[c] += term_score(idf, p.tf, self.norms[c]);
                if !hit[c] {
                    hit[c] = true;
                    candidates.push(p.chunk);
                }
            }
        }
        let by_rank = |a: &u32, b: &u32| scores[*b as usize].total_cmp(&scores[*a as usize]).then(a.cmp(b));
        if candidates.len() > top {
            candidates.select_nth_unstable_by(top - 1, by_rank);
            candidates.truncate(top);
        }
        crate::sort::sort_by(&mut candidates, by_rank);
        candidates
            .into_iter()
            .map(|id| {
                let r = self.chunks[id as usize];
                let doc = &self.docs[r.doc as usize];
                let chunk = &doc.chunks[r.chunk as usize];
                Hit {
                    doc: r.doc as usize,
                    source: doc.name.clone(),
                    chunk: chunk.index,
                    start: chunk.start,
                    end: chunk.end,
                    score: scores[id as usize],
                    text: chunk.text.clone(),
                }
            })
            .collect()
    }
}

impl Index {
    /// What each query term adds to `hit`'s score: the distinct terms of `query` found in
    /// the hit's chunk, in query order, with their BM25 contributions. The contributions
    /// are the very terms [`Index::search`] summed, so they add up to `hit.score`. A hit
    /// that is not from this index gives an empty list.
    pub fn term_scores(&self, query: &str, hit: &Hit) -> Vec<(String, f64)> {
        let key = (hit.doc as u64, hit.chunk as u64);
        let Ok(id) = self.chunks.binary_search_by(|r| (u64::from(r.doc), u64::from(r.chunk)).cmp(&key)) else {
            return Vec::new();
        };
        let n = self.chunks.len() as f64;
        let mut out = Vec::new();
        for term in query_terms(query) {
            let Some(t) = self.term_id(&term) else {
                continue;
            };
            let postings = &self.postings[t as usize];
            // Postings are pushed in chunk-id order while building.
            if let Ok(at) = postings.binary_search_by(|p| p.chunk.cmp(&(id as u32))) {
                let score = term_score(idf(n, postings.len() as f64), postings[at].tf, self.norms[id]);
                out.push((term, score));
            }
        }
        out
    }
}

/// The distinct tokens of `query`, in order of first occurrence.
pub fn query_terms(query: &str) -> Vec<String> {
    let mut terms: Vec<String> = Vec::new();
    for token in tokenize(query) {
        if !terms.contains(&token) {
            terms.push(token);
        }
    }
    terms
}

/// A token of at most 8 bytes packed into a `u64` (little-endian, zero-padded). Tokens never
/// contain NUL (it is not alphanumeric), so the padding cannot make two tokens collide.
fn short_key(token: &str) -> Option<u64> {
    let bytes = token.as_bytes();
    if bytes.len() > 8 {
        return None;
    }
    let mut buf = [0u8; 8];
    buf[..bytes.len()].copy_from_slice(bytes);
    Some(u64::from_le_bytes(buf))
}

/// Lucene's BM25 idf for a term found in `df` of `n` chunks.
pub fn idf(n: f64, df: f64) -> f64 {
    (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
}

/// `K1 · (1 − B + B · len / avgdl)`.
fn length_norm(len: u32, avgdl: f64) -> f64 {
    K1 * (1.0 - B + B * f64::from(len) / avgdl)
}

/// One term's contribution to a chunk's score.
fn term_score(idf: f64, tf: u32, norm: f64) -> f64 {
    let tf = f64::from(tf);
    idf * tf * (K1 + 1.0) / (tf + norm)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chat::chunk::load_document;

    fn index(docs: &[(&str, &str)]) -> Index {
        let docs: Vec<Document> = docs.iter().map(|(n, t)| load_document(*n, t)).collect();
        Index::build(&docs)
    }

    /// Query → expected (source, chunk) of the hits, best first.
    #[track_caller]
    fn check(index: &Index, query: &str, top: usize, expect: &[(&str, usize)]) {
        let got: Vec<(String, usize)> = index.search(query, top).into_iter().map(|h| (h.source, h.chunk)).collect();
        let expect: Vec<(String, usize)> = expect.iter().map(|(s, c)| (s.to_string(), *c)).collect();
        assert_eq!(got, expect, "query {query:?}");
    }

    #[test]
    fn only_chunks_with_a_query_term_hit() {
        let ix = index(&[("a", "rag chunking splits text"), ("b", "geo measures brand mentions"), ("c", "")]);
        check(&ix, "chunking", 8, &[("a", 0)]);
        check(&ix, "brand", 8, &[("b", 0)]);
        check(&ix, "vector", 8, &[]);
        check(&ix, "", 8, &[]);
        check(&ix, "  ,, ", 8, &[]);
        check(&ix, "chunking brand", 0, &[]);
    }

    #[test]
    fn rarer_terms_and_higher_tf_rank_first() {
        let ix = index(&[
            ("a", "rag rag rag retrieval"),
            ("b", "rag retrieval"),
            ("c", "rag generation"),
            ("d", "unrelated words entirely here"),
        ]);
        // tf 3 beats tf 1; b and c tie on "rag" and keep document order.
        check(&ix, "rag", 8, &[("a", 0), ("b", 0), ("c", 0)]);
        // "generation" is rarer than "rag", so c ranks first.
        check(&ix, "rag generation", 8, &[("c", 0), ("a", 0), ("b", 0)]);
        check(&ix, "rag", 2, &[("a", 0), ("b", 0)]);
    }

    #[test]
    fn ties_keep_document_then_chunk_order() {
        let ix = index(&[("z", "same words"), ("a", "same words"), ("m", "same words")]);
        check(&ix, "same", 8, &[("z", 0), ("a", 0), ("m", 0)]);
        check(&ix, "words", 2, &[("z", 0), ("a", 0)]);
    }

    #[test]
    fn repeated_query_terms_count_once() {
        let ix = index(&[("a", "上下文压缩 is context compression"), ("b", "other text")]);
        let once = ix.search("压缩", 8);
        let twice = ix.search("压缩 压缩 压缩", 8);
        assert_eq!(once, twice);
        assert_eq!(query_terms("压缩 压缩 RAG rag"), ["压缩", "rag"]);
    }

    #[test]
    fn seed_example_finds_the_chinese_term() {
        let ix = index(&[
            ("zh.md", "长对话需要上下文压缩，否则会超过模型窗口。"),
            ("en.md", "Context compression keeps long chats inside the window."),
        ]);
        let hits = ix.search("上下文压缩", 8);
        assert_eq!(hits.len(), 1);
        assert_eq!(hits[0].source, "zh.md");
        assert!(hits[0].score > 0.0);
        check(&ix, "CONTEXT Compression", 8, &[("en.md", 0)]);
    }

    #[test]
    fn term_scores_add_up_to_the_hit_score() {
        let ix = index(&[("a", "rag rag retrieval chunking"), ("b", "rag generation"), ("c", "chunking")]);
        for hit in ix.search("rag chunking missing rag", 8) {
            let parts = ix.term_scores("rag chunking missing rag", &hit);
            let sum: f64 = parts.iter().map(|(_, s)| s).sum();
            assert_eq!(sum, hit.score, "{hit:?}");
            assert!(parts.iter().all(|(t, s)| t != "missing" && *s > 0.0));
        }
        let a = &ix.search("rag chunking", 8)[0];
        let terms: Vec<String> = ix.term_scores("chunking rag", a).into_iter().map(|(t, _)| t).collect();
        assert_eq!(terms, ["chunking", "rag"]);
        let foreign = Hit { doc: 9, source: "x".into(), chunk: 0, start: 0, end: 0, score: 1.0, text: String::new() };
        assert!(ix.term_scores("rag", &foreign).is_empty());
    }

    #[test]
    fn score_matches_the_formula_by_hand() {
        // Two chunks: "a b" (2 tokens) and "a" (1 token). avgdl = 1.5, N = 2.
        let ix = index(&[("d1", "a b"), ("d2", "a")]);
        let hits = ix.search("b", 8);
        let idf_b = (1.0f64 + (2.0 - 1.0 + 0.5) / (1.0 + 0.5)).ln();
        let norm = 1.2 * (1.0 - 0.75 + 0.75 * 2.0 / 1.5);
        let expect = idf_b * 1.0 * 2.2 / (1.0 + norm);
        assert_eq!(hits.len(), 1);
        assert!((hits[0].score - expect).abs() < 1e-12, "{} vs {expect}", hits[0].score);
        assert_eq!(ix.chunk_count(), 2);
        assert_eq!(ix.term_count(), 2);
        assert!((ix.avgdl() - 1.5).abs() < 1e-12);
    }

    #[test]
    fn short_and_long_terms_are_both_found() {
        let ix = index(&[("a", "abcdefgh abcdefghi 上下文压缩"), ("b", "abcdefg")]);
        check(&ix, "abcdefgh", 8, &[("a", 0)]);
        check(&ix, "abcdefghi", 8, &[("a", 0)]);
        check(&ix, "abcdefg", 8, &[("b", 0)]);
        check(&ix, "文压", 8, &[("a", 0)]);
        assert_eq!(ix.term_count(), 7);
        assert_eq!(short_key("ab"), Some(u64::from(b'a') | u64::from(b'b') << 8));
        assert_eq!(short_key("abcdefghi"), None);
    }

    #[test]
    fn empty_index_has_no_hits() {
        let ix = Index::build(&[]);
        assert!(ix.search("anything", 8).is_empty());
        assert_eq!(ix.avgdl(), 0.0);
    }

    #[test]
    fn hit_serialises_to_the_cli_shape() {
        let ix = index(&[("notes.md", "bm25 ranking")]);
        let hit = &ix.search("bm25", 1)[0];
        let json = serde_json::to_value(hit).unwrap_or_default();
        let keys: Vec<&str> = json.as_object().map(|o| o.keys().map(|k| k.as_str()).collect()).unwrap_or_default();
        assert_eq!(keys, ["chunk", "end", "score", "source", "start", "text"]);
    }
}
