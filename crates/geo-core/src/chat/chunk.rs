//! Fixed-size overlapping chunks of a document, the unit that retrieval scores.
//!
//! The original browser app cut every 900 JavaScript string units with a 120-unit overlap
//! (a step of 780). JavaScript counts UTF-16 code units, so an emoji was two units; we
//! count Unicode scalar values (`char`s) instead, so one Chinese character, one letter and
//! one emoji are each one. `start`/`end` offsets are in the same unit, measured in the
//! *normalised* text (see [`normalize_text`]), which is what the CLI's `retrieve` prints.

use serde::{Deserialize, Serialize};

/// Length of a chunk in characters (Unicode scalar values).
pub const CHUNK_CHARS: usize = 900;
/// Characters shared by two consecutive chunks.
pub const CHUNK_OVERLAP: usize = 120;
/// Distance between the starts of two consecutive chunks (`CHUNK_CHARS - CHUNK_OVERLAP`).
pub const CHUNK_STEP: usize = CHUNK_CHARS - CHUNK_OVERLAP;

/// One window of a document.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Chunk {
    /// 0-based position of the chunk in its document.
    pub index: usize,
    /// Offset of the first character, in characters of the normalised text.
    pub start: usize,
    /// Offset one past the last character (`end - start <= CHUNK_CHARS`).
    pub end: usize,
    /// The characters `start..end` of the normalised text.
    pub text: String,
}

/// A loaded document: its name (usually the file name) and its chunks.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Document {
    /// Name shown with every hit and source, e.g. `rag-notes.md`.
    pub name: String,
    /// The chunks, in order; empty for an empty document.
    pub chunks: Vec<Chunk>,
}

/// Normalises a document before chunking: a leading byte-order mark is dropped and every
/// CRLF becomes LF, so a file saved on Windows gives the same chunks and offsets as the
/// same file saved on Linux. A lone CR is kept as it is.
pub fn normalize_text(text: &str) -> std::borrow::Cow<'_, str> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if text.contains("\r\n") {
        std::borrow::Cow::Owned(text.replace("\r\n", "\n"))
    } else {
        std::borrow::Cow::Borrowed(text)
    }
}

/// Cuts `text` into chunks of [`CHUNK_CHARS`] characters starting every [`CHUNK_STEP`]
/// characters, after [`normalize_text`].
///
/// Consecutive chunks share exactly [`CHUNK_OVERLAP`] characters; the last chunk ends at
/// the end of the text and may be shorter. Empty text gives no chunks. Never panics.
pub fn chunk_document(text: &str) -> Vec<Chunk> {
    let text = normalize_text(text);
    let text: &str = &text;
    let mut chunks = Vec::new();
    if text.is_empty() {
        return chunks;
    }
    let mut start_char = 0usize;
    let mut start_byte = 0usize;
    loop {
        // Walk CHUNK_CHARS characters from the start, noting where the next chunk begins.
        let rest = &text[start_byte..];
        let mut next_start_byte = None;
        let mut end_byte = rest.len();
        let mut taken = 0usize;
        for (offset, _) in rest.char_indices() {
            if taken == CHUNK_STEP {
                next_start_byte = Some(start_byte + offset);
            }
            if taken == CHUNK_CHARS {
                end_byte = offset;
                break;
            }
            taken += 1;
        }
        let end_char = start_char + taken;
        chunks.push(Chunk {
            index: chunks.len(),
            start: start_char,
            end: end_char,
            text: rest[..end_byte].to_string(),
        });
        if end_byte == rest.len() {
            break;
        }
        // The text continues past this chunk, so it is longer than CHUNK_STEP characters
        // and the next start was recorded.
        match next_start_byte {
            Some(next) => {
                start_byte = next;
                start_char += CHUNK_STEP;
            }
            None => break,
        }
    }
    chunks
}

/// Loads a document: chunks `text` under `name`.
pub fn load_document(name: impl Into<String>, text: &str) -> Document {
    Document { name: name.into(), chunks: chunk_document(text) }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (text length in chars) → expected (start, end) of every chunk.
    #[track_caller]
    fn check(len: usize, expect: &[(usize, usize)]) {
        let text: String = (0..len).map(|i| char::from(b'a' + (i % 26) as u8)).collect();
        let got: Vec<(usize, usize)> = chunk_document(&text).iter().map(|c| (c.start, c.end)).collect();
        assert_eq!(got, expect, "len {len}");
    }

    #[test]
    fn windows_follow_the_900_120_rule() {
        check(0, &[]);
        check(1, &[(0, 1)]);
        check(900, &[(0, 900)]);
        check(901, &[(0, 900), (780, 901)]);
        check(1680, &[(0, 900), (780, 1680)]);
        check(1681, &[(0, 900), (780, 1680), (1560, 1681)]);
        check(2000, &[(0, 900), (780, 1680), (1560, 2000)]);
    }

    #[test]
    fn offsets_count_characters_not_bytes_or_utf16_units() {
        // 1000 characters: CJK (3 bytes), emoji (4 bytes, 2 UTF-16 units), ASCII.
        let text: String = "上😀a".repeat(334).chars().take(1000).collect();
        let chunks = chunk_document(&text);
        assert_eq!(chunks.len(), 2);
        assert_eq!(chunks[0].text.chars().count(), 900);
        assert_eq!((chunks[1].start, chunks[1].end), (780, 1000));
        let expect: String = text.chars().skip(780).collect();
        assert_eq!(chunks[1].text, expect);
    }

    #[test]
    fn crlf_and_bom_are_normalised_first() {
        let chunks = chunk_document("\u{feff}a\r\nb\rc\r\n");
        assert_eq!(chunks.len(), 1);
        assert_eq!(chunks[0].text, "a\nb\rc\n");
        assert_eq!(chunks[0].end, 6);
    }

    #[test]
    fn load_document_names_the_chunks() {
        let doc = load_document("notes.md", "hello");
        assert_eq!(doc.name, "notes.md");
        assert_eq!(doc.chunks, vec![Chunk { index: 0, start: 0, end: 5, text: "hello".into() }]);
        assert!(load_document("empty.txt", "").chunks.is_empty());
        assert!(load_document("bom.txt", "\u{feff}").chunks.is_empty());
    }
}
