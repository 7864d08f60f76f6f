//! Docs-chat retrieval benchmark: indexing 10 MB of synthetic mixed Chinese/English text
//! and a top-8 query over it.

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use geo_core::chat::{load_document, Document, Index, TOP_K};

const TARGET_BYTES: usize = 10 * 1024 * 1024;

/// Deterministic mixed zh/en text of about `bytes` bytes, as ten documents.
fn corpus(bytes: usize) -> Vec<(String, String)> {
    const EN: &[&str] = &[
        "retrieval", "augmented", "generation", "chunk", "overlap", "brand", "mention", "rate",
        "source", "domain", "citation", "model", "answer", "prompt", "probe", "search", "ranking",
        "BM25", "keyword", "the", "of", "and", "to", "in", "GEO", "RAG", "2026", "visibility",
    ];
    const ZH: &[&str] = &[
        "检索增强生成", "上下文压缩", "关键词", "分块", "重叠", "品牌提及率", "来源域名", "引用",
        "模型回答", "搜索", "排序", "可见度", "资料", "片段", "问题", "历史对话", "流式输出",
    ];
    let mut state: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let per_doc = bytes / 10;
    (0..10)
        .map(|d| {
            let mut text = String::with_capacity(per_doc + 64);
            while text.len() < per_doc {
                let r = next();
                if r % 2 == 0 {
                    text.push_str(EN[(r >> 8) as usize % EN.len()]);
                    text.push(' ');
                } else {
                    text.push_str(ZH[(r >> 8) as usize % ZH.len()]);
                    text.push(if r % 7 == 1 { '。' } else { '，' });
                }
                if r % 97 == 0 {
                    text.push_str("\n\n");
                }
            }
            (format!("doc{d}.md"), text)
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let texts = corpus(TARGET_BYTES);
    let total: usize = texts.iter().map(|(_, t)| t.len()).sum();
    let load = |texts: &[(String, String)]| -> Vec<Document> {
        texts.iter().map(|(name, text)| load_document(name.clone(), text)).collect()
    };
    let docs = load(&texts);
    let mut group = c.benchmark_group("chat");
    group.sample_size(10);
    group.throughput(Throughput::Bytes(total as u64));
    group.bench_function("load_and_index_10MB", |b| b.iter(|| Index::build(&load(black_box(&texts)))));
    group.bench_function("index_10MB", |b| b.iter(|| Index::build(black_box(&docs))));
    group.finish();
    let index = Index::build(&docs);
    eprintln!(
        "corpus: {total} bytes in {} documents, {} chunks, {} terms, avgdl {:.1} tokens",
        docs.len(),
        index.chunk_count(),
        index.term_count(),
        index.avgdl()
    );
    let mut group = c.benchmark_group("chat_query");
    group.bench_function("top8_query", |b| {
        b.iter(|| index.search(black_box("RAG 上下文压缩 brand mention rate"), TOP_K))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
