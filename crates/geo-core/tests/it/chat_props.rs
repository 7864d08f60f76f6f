//! Property tests for docs chat: SSE split invariance, BM25 against a naive scorer, and
//! chunk coverage. Case count from `PROPTEST_CASES` (CI sets 10,000; 256 locally).

use geo_core::chat::bm25::{B, K1};
use geo_core::chat::chunk::{normalize_text, CHUNK_STEP};
use geo_core::chat::sse::{decode_all, SseDecoder, SseEvent};
use geo_core::chat::{chunk_document, load_document, tokenize, Document, Index, CHUNK_CHARS, CHUNK_OVERLAP};
use proptest::prelude::*;
use proptest::sample::Index as Cut;

// ---------- SSE ----------

/// One item of a generated stream.
#[derive(Debug, Clone)]
enum Item {
    Event { name: Option<String>, lines: Vec<String> },
    Comment(String),
    Done,
}

/// Text without line ends, with multibyte characters, colons and spaces.
fn line_text() -> impl Strategy<Value = String> {
    "[a-z :{}\"上下文压缩检索😀é]{0,12}"
}

fn item() -> impl Strategy<Value = Item> {
    prop_oneof![
        4 => (proptest::option::of("[a-z]{1,6}"), proptest::collection::vec(line_text(), 1..4))
            .prop_map(|(name, lines)| Item::Event { name, lines }),
        1 => line_text().prop_map(Item::Comment),
        1 => Just(Item::Done),
    ]
}

const EOLS: [&str; 3] = ["\n", "\r\n", "\r"];

/// Serialises items with one line-end style per item; returns the bytes and the events
/// they must decode to.
fn serialise(items: &[(Item, usize)]) -> (Vec<u8>, Vec<SseEvent>) {
    let mut out = String::new();
    let mut expect = Vec::new();
    for (item, style) in items {
        let eol = EOLS[*style % 3];
        match item {
            Item::Event { name, lines } => {
                if let Some(n) = name {
                    out.push_str(&format!("event: {n}{eol}"));
                }
                for l in lines {
                    out.push_str(&format!("data: {l}{eol}"));
                }
                out.push_str(eol);
                expect.push(SseEvent::Message { event: name.clone(), data: lines.join("\n") });
            }
            Item::Comment(text) => {
                out.push_str(&format!(":{text}{eol}"));
                expect.push(SseEvent::Comment(text.clone()));
            }
            Item::Done => {
                out.push_str(&format!("data: [DONE]{eol}{eol}"));
                expect.push(SseEvent::Done);
            }
        }
    }
    (out.into_bytes(), expect)
}

fn decode_split(bytes: &[u8], cuts: &[Cut]) -> Vec<SseEvent> {
    let mut positions: Vec<usize> = cuts.iter().map(|c| c.index(bytes.len() + 1)).collect();
    positions.sort_unstable();
    let mut decoder = SseDecoder::new();
    let mut events = Vec::new();
    let mut from = 0;
    for p in positions {
        events.extend(decoder.push(&bytes[from..p]));
        from = p;
    }
    events.extend(decoder.push(&bytes[from..]));
    events.extend(decoder.finish());
    events
}

proptest! {
    #![proptest_config(crate::config())]

    #[test]
    fn every_split_of_a_stream_gives_the_same_events(
        items in proptest::collection::vec((item(), 0usize..3), 0..8),
        cuts in proptest::collection::vec(any::<Cut>(), 0..10),
    ) {
        let (bytes, expect) = serialise(&items);
        prop_assert_eq!(&decode_all(&bytes), &expect);
        prop_assert_eq!(&decode_split(&bytes, &cuts), &expect);
    }

    #[test]
    fn arbitrary_bytes_decode_the_same_whatever_the_split(
        bytes in proptest::collection::vec(
            prop_oneof![
                3 => proptest::sample::select(vec![
                    b'\r', b'\n', b':', b' ', b'd', b'a', b't', 0xe4, 0xb8, 0x8a, 0xf0, 0x9f, 0xff,
                ]),
                1 => any::<u8>(),
            ],
            0..48,
        ),
        cuts in proptest::collection::vec(any::<Cut>(), 0..10),
    ) {
        prop_assert_eq!(decode_split(&bytes, &cuts), decode_all(&bytes));
    }
}

// ---------- BM25 ----------

const VOCAB: &[&str] = &["rag", "geo", "bm25", "上下文", "压缩", "检索", "a", "B", "x1", "分块", "Ünï", "字"];
const SEPS: &[&str] = &[" ", "，", "\n", "", "、"];

fn text_from(words: &[(usize, usize)]) -> String {
    words.iter().map(|(w, s)| format!("{}{}", VOCAB[w % VOCAB.len()], SEPS[s % SEPS.len()])).collect()
}

/// Scores every chunk straight from the formula, with nothing precomputed or shared.
fn naive_search(docs: &[Document], query: &str, top: usize) -> Vec<(usize, usize, f64)> {
    let chunks: Vec<(usize, usize, Vec<String>)> = docs
        .iter()
        .enumerate()
        .flat_map(|(d, doc)| doc.chunks.iter().map(move |c| (d, c.index, tokenize(&c.text))))
        .collect();
    if chunks.is_empty() || top == 0 {
        return Vec::new();
    }
    let n = chunks.len() as f64;
    let avgdl = chunks.iter().map(|c| c.2.len()).sum::<usize>() as f64 / n;
    let mut terms: Vec<String> = Vec::new();
    for t in tokenize(query) {
        if !terms.contains(&t) {
            terms.push(t);
        }
    }
    let mut scored = Vec::new();
    for (d, c, tokens) in &chunks {
        let mut score = 0.0f64;
        let mut matched = false;
        for term in &terms {
            let tf = tokens.iter().filter(|t| *t == term).count();
            if tf == 0 {
                continue;
            }
            matched = true;
            let df = chunks.iter().filter(|c| c.2.contains(term)).count() as f64;
            let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
            let tf = tf as f64;
            let norm = K1 * (1.0 - B + B * tokens.len() as f64 / avgdl);
            score += idf * tf * (K1 + 1.0) / (tf + norm);
        }
        if matched {
            scored.push((*d, *c, score));
        }
    }
    // Stable sort: equal scores keep (doc, chunk) order.
    scored.sort_by(|a, b| b.2.total_cmp(&a.2));
    scored.truncate(top);
    scored
}

proptest! {
    #![proptest_config(crate::config())]

    #[test]
    fn bm25_equals_the_naive_scorer(
        docs in proptest::collection::vec(proptest::collection::vec((0usize..64, 0usize..8), 0..300), 0..4),
        query in proptest::collection::vec((0usize..64, 0usize..8), 0..6),
        extra in "[a-z]{0,4}",
        top in 0usize..10,
    ) {
        let docs: Vec<Document> =
            docs.iter().enumerate().map(|(i, w)| load_document(format!("d{i}"), &text_from(w))).collect();
        let query = format!("{} {extra}", text_from(&query));
        let fast: Vec<(usize, usize, f64)> =
            Index::build(&docs).search(&query, top).into_iter().map(|h| (h.doc, h.chunk, h.score)).collect();
        prop_assert_eq!(fast, naive_search(&docs, &query, top));
    }
}

// ---------- chunking ----------

fn doc_char() -> impl Strategy<Value = char> {
    prop_oneof![any::<char>(), Just('\r'), Just('\n'), Just('上'), Just('a'), Just('😀'), Just('\u{feff}')]
}

proptest! {
    #![proptest_config(crate::config())]

    /// The text is a short random pattern (any characters, CR, LF, BOM) repeated to a
    /// random length: cheap to generate, yet it reaches every chunk-count boundary.
    #[test]
    fn chunks_cover_the_text_with_exact_overlap(
        pattern in proptest::collection::vec(doc_char(), 1..24),
        len in prop_oneof![0usize..2600, 895usize..905, 1675usize..1690],
    ) {
        let text: String = pattern.iter().cycle().take(len).collect();
        let normal: Vec<char> = normalize_text(&text).chars().collect();
        let chunks = chunk_document(&text);
        prop_assert_eq!(chunks.is_empty(), normal.is_empty());
        for (i, c) in chunks.iter().enumerate() {
            prop_assert_eq!(c.index, i);
            prop_assert_eq!(c.start, i * CHUNK_STEP);
            prop_assert!(c.end > c.start && c.end - c.start <= CHUNK_CHARS);
            let expect: String = normal[c.start..c.end].iter().collect();
            prop_assert_eq!(&c.text, &expect);
            if i + 1 < chunks.len() {
                prop_assert_eq!(c.end - c.start, CHUNK_CHARS);
                prop_assert_eq!(c.end - chunks[i + 1].start, CHUNK_OVERLAP);
            } else {
                prop_assert_eq!(c.end, normal.len());
            }
        }
    }
}
