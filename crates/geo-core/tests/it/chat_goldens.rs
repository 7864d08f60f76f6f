//! Goldens for docs-chat chunking and ranking over the sample documents in fixtures/chat/.

use std::path::Path;

use geo_core::chat::{load_document, Document, Index, TOP_K};
use serde_json::{json, Value};

fn fixtures_dir() -> std::path::PathBuf {
    crate::support::fixtures_dir().join("chat")
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

fn head(text: &str, n: usize) -> String {
    text.chars().take(n).collect()
}

fn tail(text: &str, n: usize) -> String {
    let count = text.chars().count();
    text.chars().skip(count.saturating_sub(n)).collect()
}

fn sample_documents() -> Vec<Document> {
    ["rag_zh.md", "geo_en.md"].iter().map(|name| load_document(*name, &read(&fixtures_dir().join(name)))).collect()
}

#[test]
fn chunking_goldens() {
    insta::glob!("../../../../fixtures/chat", "*.md", |path| {
        let doc = load_document("doc", &read(path));
        let chunks: Vec<Value> = doc
            .chunks
            .iter()
            .map(|c| {
                json!({
                    "index": c.index,
                    "start": c.start,
                    "end": c.end,
                    "chars": c.text.chars().count(),
                    "head": head(&c.text, 40),
                    "tail": tail(&c.text, 40),
                })
            })
            .collect();
        insta::assert_json_snapshot!(chunks);
    });
}

#[test]
fn ranking_golden() {
    let docs = sample_documents();
    let index = Index::build(&docs);
    let queries: Vec<String> = serde_json::from_str(&read(&fixtures_dir().join("queries.json"))).unwrap_or_default();
    assert!(queries.len() >= 5, "fixtures/chat/queries.json should list the golden queries");
    let results: Vec<Value> = queries
        .iter()
        .map(|q| {
            let hits: Vec<Value> = index
                .search(q, TOP_K)
                .iter()
                .map(|h| {
                    json!({
                        "source": h.source,
                        "chunk": h.chunk,
                        "start": h.start,
                        "end": h.end,
                        "score": (h.score * 1e6).round() / 1e6,
                        "head": head(&h.text, 40),
                    })
                })
                .collect();
            json!({ "query": q, "hits": hits })
        })
        .collect();
    insta::assert_json_snapshot!(results);
}

#[test]
fn seed_walkthrough_question_finds_the_chunking_section() {
    let index = Index::build(&sample_documents());
    let hits = index.search("RAG 分块和检索有什么关系？", TOP_K);
    assert!(!hits.is_empty() && hits.len() <= TOP_K);
    assert_eq!(hits[0].source, "rag_zh.md");
    assert!(hits.windows(2).all(|w| w[0].score >= w[1].score));
    assert!(index.search("quantum chromodynamics", TOP_K).is_empty());
}
