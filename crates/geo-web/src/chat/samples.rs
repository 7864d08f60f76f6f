//! The sample documents behind "load sample docs": the project's own chat fixtures,
//! which `cargo xtask dist` copies to `samples/` beside the app and the page fetches on
//! demand, so they are not part of the download until someone asks for them
//! (`docs/adr/0014-site-size.md`).

/// File names of the sample documents, fetched from [`SAMPLES_DIR`].
pub const SAMPLE_NAMES: &[&str] = &["rag_zh.md", "geo_en.md"];

/// Where the site keeps them, relative to its base URL.
pub const SAMPLES_DIR: &str = "samples/";

/// Fetches every sample document: `(file name, text)` in [`SAMPLE_NAMES`] order, or what
/// went wrong with the first one that could not be had.
pub async fn fetch_samples() -> Result<Vec<(&'static str, String)>, String> {
    let mut out = Vec::with_capacity(SAMPLE_NAMES.len());
    for name in SAMPLE_NAMES {
        match crate::demo::fetch_text(&format!("{SAMPLES_DIR}{name}")).await {
            Ok(Some(text)) => out.push((*name, text)),
            Ok(None) => return Err(format!("{SAMPLES_DIR}{name}: http 404")),
            Err(e) => return Err(format!("{SAMPLES_DIR}{name}: {e}")),
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The texts the site serves: `cargo xtask dist` copies `fixtures/chat/*.md`.
    const SAMPLES: &[(&str, &str)] = &[
        ("rag_zh.md", include_str!("../../../../fixtures/chat/rag_zh.md")),
        ("geo_en.md", include_str!("../../../../fixtures/chat/geo_en.md")),
    ];

    #[test]
    fn samples_are_retrievable() {
        assert_eq!(SAMPLES.iter().map(|(n, _)| *n).collect::<Vec<_>>(), SAMPLE_NAMES);
        let docs: Vec<_> = SAMPLES.iter().map(|(n, t)| geo_core::chat::load_document(*n, t)).collect();
        assert!(docs.iter().all(|d| !d.chunks.is_empty()));
        let index = geo_core::chat::Index::build(&docs);
        let hits = index.search("RAG 分块和检索有什么关系？", geo_core::chat::TOP_K);
        assert_eq!(hits.first().map(|h| h.source.as_str()), Some("rag_zh.md"));
    }
}
