//! The table of wire functions: each engine's [`Wire`], by [`EngineId`]. The only file that
//! names the engine modules.
//!
//! Adding an engine adds its file here and its arms to [`wire`] and [`key_test_body`], a row to
//! the spec table (`spec.rs`) and its fixtures (ARCHITECTURE.md, "Adding an engine"). The engine
//! modules are private: the rest of the crate reaches an engine only through this table, by its
//! id, so an engine's file can change without any other file knowing.

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

/// The wire format of `engine`: its request body, continuation, reply parser, own error codes
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

/// The key test's body of `engine` (`keytest::build_engine_key_test_body`): the cheapest
/// request its API accepts, without tools, as compact JSON (keys sorted) in which `{model}` and
/// `{prompt}` stand for the model and the key-test prompt as JSON strings. Apart from the
/// [`Wire`] so that only the key test links the nine templates (the web app never runs it).
pub fn key_test_body(engine: EngineId) -> &'static str {
    match engine {
        EngineId::Deepseek => deepseek::KEY_TEST_BODY,
        EngineId::Anthropic => anthropic::KEY_TEST_BODY,
        EngineId::Openai => openai::KEY_TEST_BODY,
        EngineId::Gemini => gemini::KEY_TEST_BODY,
        EngineId::Perplexity => perplexity::KEY_TEST_BODY,
        EngineId::Qwen => qwen::KEY_TEST_BODY,
        EngineId::Doubao => doubao::KEY_TEST_BODY,
        EngineId::Ernie => ernie::KEY_TEST_BODY,
        EngineId::Hunyuan => hunyuan::KEY_TEST_BODY,
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
