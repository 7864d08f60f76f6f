//! Docs chat: chunking, tokenising, BM25 retrieval, message building and SSE decoding.
//!
//! The flow of one question (seed 001): the loaded documents are cut into overlapping
//! 900-character [`chunk`]s; the question and the chunks are [`tokenize`](fn@tokenize)d (words and CJK
//! bigrams) and scored with [`bm25`]; at most [`TOP_K`] hits become numbered sources in
//! the [`messages`] sent to DeepSeek `chat/completions`; the streamed response is decoded by
//! [`sse`] and interpreted by [`stream`], which alone decides whether an answer is complete.
//! [`export`] writes the conversation as Markdown. The same retrieval searches a run's
//! answers ([`answers`]: one hit per probe, with a snippet). Everything here is pure: the
//! shells read the files, perform the request, run the timer and feed the bytes in.

pub mod answers;
pub mod bm25;
pub mod chunk;
pub mod export;
pub mod messages;
pub mod sse;
pub mod stream;
pub mod tokenize;

pub use answers::{search_answers, AnswerHit, DEFAULT_ANSWER_HITS, SNIPPET_CHARS};
pub use bm25::{Hit, Index, TOP_K};
pub use chunk::{chunk_document, load_document, Chunk, Document, CHUNK_CHARS, CHUNK_OVERLAP};
pub use export::{export_conversation_markdown, ExportTurn};
pub use messages::{
    build_messages, build_request_body, chat_endpoint, chat_url, ChatError, ChatMessage, Role, Turn,
    CHAT_COMPLETIONS_URL, MAX_HISTORY_CHARS, MAX_HISTORY_MESSAGES, MAX_QUESTION_CHARS,
};
pub use sse::{SseDecoder, SseEvent};
pub use stream::{http_error_state, AnswerState, ChatDelta, ChatOutcome, ChatStream, ChatUsage, StreamEnd};
pub use tokenize::tokenize;
