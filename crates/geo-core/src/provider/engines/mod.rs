//! The table of wire functions: each engine's [`Wire`], by [`EngineId`]. The only file that
//! names the engine modules.
//!
//! Adding an engine adds its file here and one arm to [`wire`], a row to the spec table
//! (`spec.rs`) and its fixtures (ARCHITECTURE.md, "Adding an engine"). The engine modules are
//! private: the rest of the crate reaches an engine only through this table, by its id, so an
//! engine's file can change without any other file knowing.

mod anthropic;
mod deepseek;
mod doubao;
mod ernie;
mod gemini;
mod hunyuan;
mod openai;
mod perplexity;
mod qwen;

use super::wire::Wire;
use crate::model::EngineId;

/// The wire format of `engine`: its request body, reply parser, own error codes, key-test body
/// and extra headers.
pub fn wire(engine: EngineId) -> &'static Wire {
    match engine {
        EngineId::Deepseek => &deepseek::WIRE,
        EngineId::Anthropic => &anthropic::WIRE,
        EngineId::Openai => &openai::WIRE,
        EngineId::Gemini => &gemini::WIRE,
        EngineId::Perplexity => &perplexity::WIRE,
        EngineId::Qwen => &qwen::WIRE,
        EngineId::Doubao => &doubao::WIRE,
        EngineId::Ernie => &ernie::WIRE,
        EngineId::Hunyuan => &hunyuan::WIRE,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_row_is_its_engines() {
        for engine in EngineId::ALL {
            assert_eq!(wire(engine).engine, engine);
        }
    }
}
