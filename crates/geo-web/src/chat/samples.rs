//! The sample documents behind "load sample docs": the project's own chat fixtures,
//! embedded in the wasm module (`cargo xtask dist` copies only top-level files of `web/`,
//! so they are compiled in rather than fetched).

/// `(file name, text)` of each sample document.
pub const SAMPLES: &[(&str, &str)] = &[
    ("rag_zh.md", include_str!("../../../../fixtures/chat/rag_zh.md")),
    ("geo_en.md", include_str!("../../../../fixtures/chat/geo_en.md")),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samples_are_retrievable() {
        let docs: Vec<_> = SAMPLES.iter().map(|(n, t)| geo_core::chat::load_document(*n, t)).collect();
        assert!(docs.iter().all(|d| !d.chunks.is_empty()));
        let index = geo_core::chat::Index::build(&docs);
        let hits = index.search("RAG 分块和检索有什么关系？", geo_core::chat::TOP_K);
        assert_eq!(hits.first().map(|h| h.source.as_str()), Some("rag_zh.md"));
    }
}
