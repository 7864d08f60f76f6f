//! The dialects several engines speak, each in one place: [`messages`] (DeepSeek, Anthropic),
//! [`chat`] (chat completions: Perplexity, Qwen, ERNIE, Hunyuan) and [`responses`] (the
//! Responses API: OpenAI, Doubao).
//!
//! A dialect holds what its engines share and nothing an engine alone does; an engine's file
//! composes its dialect's pieces with its own. Like the engines, a dialect imports only the
//! spec, the parsed result, the JSON readers, the error body and kinds and the budget (the
//! tidy test `engines_and_dialects_import_only_the_leaves` holds it), so it never needs to know
//! which engines speak it.

pub mod chat;
pub mod messages;
pub mod responses;
