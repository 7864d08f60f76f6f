//! Docs chat: chunking, tokenising, BM25 retrieval, message building and SSE decoding.
