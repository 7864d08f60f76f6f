//! The Messages dialect (seed §4.2–4.3): the request, the reply's reading and the
//! `pause_turn` continuation that DeepSeek's `/anthropic` endpoint and Anthropic share.
//!
//! The two engines differ only in facts (URL, models, whether citations are always an array,
//! a browser's opt-in header), which their own files state; everything else is here once.

pub mod request;
pub mod response;
pub mod turn;
