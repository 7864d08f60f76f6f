//! Docs-chat retrieval benchmark: indexing 10 MB of synthetic mixed Chinese/English text
//! and a top-8 query over it.

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use geo_core::chat::{load_document, Document, Index, TOP_K};

const TARGET_BYTES: usize = 10 * 1024 * 1024;

/// Deterministic mixed zh/en text of about `bytes` bytes, as ten documents.
fn corpus(bytes: usize) -> Vec<(String, String)> {
    const EN: &[&str] = &[
        "retrieval",
        "augmented",
        "generation",
        "chunk",
        "overlap",
        "brand",
        "mention",
        "rate",
        "source",
        "domain",
        "citation",
        "model",
        "answer",
        "prompt",
        "probe",
        "search",
        "ranking",
        "BM25",
        "keyword",
        "the",
        "of",
        "and",
        "to",
        "in",
        "GEO",
        "RAG",
        "2026",
        "visibility",
    ];
    const ZH: &[&str] = &[
        "检索增强生成",
        "上下文压缩",
        "关键词",
        "分块",
        "重叠",
        "品牌提及率",
        "来源域名",
        "引用",
        "模型回答",
        "搜索",
        "排序",
        "可见度",
        "资料",
        "片段",
        "问题",
        "历史对话",
        "流式输出",
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
    group.bench_function("load_and_index_10MB", |b| b.iter(|| Index::from_documents(load(black_box(&texts)))));
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
    report_cpu_time(&texts, total, &load);
    let mut group = c.benchmark_group("chat_query");
    group.bench_function("top8_query", |b| {
        b.iter(|| index.search(black_box("RAG 上下文压缩 brand mention rate"), TOP_K))
    });
    group.finish();
}

/// Turns (name, text) pairs into documents.
type Loader = dyn Fn(&[(String, String)]) -> Vec<Document>;

/// On a shared machine wall-clock throughput depends on the other processes; this prints
/// the throughput per second of this process's CPU time (Linux `/proc/self/stat`).
fn report_cpu_time(texts: &[(String, String)], total: usize, load: &Loader) {
    fn cpu_seconds() -> Option<f64> {
        let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
        let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
        let utime: f64 = fields.get(11)?.parse().ok()?;
        let stime: f64 = fields.get(12)?.parse().ok()?;
        Some((utime + stime) / 100.0)
    }
    const RUNS: usize = 5;
    let mb = total as f64 / (1024.0 * 1024.0) * RUNS as f64;
    let measure = |what: &str, f: &dyn Fn()| {
        let (Some(before), wall) = (cpu_seconds(), std::time::Instant::now()) else {
            return;
        };
        for _ in 0..RUNS {
            f();
        }
        let Some(after) = cpu_seconds() else { return };
        eprintln!(
            "{what}: {:.1} MiB/s of CPU time ({:.3} s CPU, {:.3} s wall per 10 MiB)",
            mb / (after - before),
            (after - before) / RUNS as f64,
            wall.elapsed().as_secs_f64() / RUNS as f64
        );
    };
    let docs = load(texts);
    measure("load (chunking) only", &|| {
        black_box(load(black_box(texts)));
    });
    measure("tokenize all chunks only", &|| {
        let mut n = 0usize;
        for c in docs.iter().flat_map(|d| &d.chunks) {
            geo_core::chat::tokenize::for_each_token(black_box(&c.text), |_| n += 1);
        }
        black_box(n);
    });
    measure("index only", &|| {
        black_box(Index::build(black_box(&docs)));
    });
    measure("load_and_index (Index::from_documents)", &|| {
        black_box(Index::from_documents(load(black_box(texts))));
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
