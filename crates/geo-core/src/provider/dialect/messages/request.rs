//! The Messages request body (seed §4.2), shared by DeepSeek's `/anthropic` endpoint and
//! Anthropic: one user message and the server-side search tool, the `pause_turn` continuation,
//! the key test's body and the `anthropic-version` header.
//!
//! The body is a `Serialize` struct, so its field order is the seed's order whenever it is
//! serialised directly ([`request_body_json`]). `serde_json::Value` (returned by
//! [`build_request_body`] for inspection and tests) sorts object keys, because the crate
//! does not enable serde_json's `preserve_order`; send the string, not the value.

use std::borrow::Cow;

use serde::Serialize;

use crate::model::RunConfig;
use crate::provider::budget::{row_for, ReasoningParam};
use crate::provider::location::{system_prompt, user_location, UserLocation};
use crate::provider::parsed::Continuation;

/// Value of the `anthropic-version` header (DeepSeek ignores it; Anthropic proxies need it).
pub const ANTHROPIC_VERSION: &str = "2023-06-01";

/// The headers every Messages request carries besides `content-type` and the key.
pub const HEADERS: &[(&str, &str)] = &[("anthropic-version", ANTHROPIC_VERSION)];

/// Type of the server-side web search tool.
pub const WEB_SEARCH_TOOL_TYPE: &str = "web_search_20250305";

/// Name of the server-side web search tool.
pub const WEB_SEARCH_TOOL_NAME: &str = "web_search";

/// The Messages request body, fields in the order of seed §4.2.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MessagesRequest<'a> {
    /// Requested model.
    pub model: &'a str,
    /// Output token limit.
    pub max_tokens: u32,
    /// The system prompt (with the `User location:` line for an engine without a field).
    pub system: Cow<'a, str>,
    /// The search tool (exactly one).
    pub tools: Vec<WebSearchTool<'a>>,
    /// The user message, then (a `pause_turn` continuation) the paused content.
    pub messages: Vec<Message<'a>>,
    /// Sampling temperature.
    pub temperature: f64,
    /// DeepSeek's `output_config: {"effort": …}` when the run asks a reasoning effort.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output_config: Option<OutputConfig>,
}

/// One message of the request.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Message<'a> {
    /// The prompt.
    User(UserMessage<'a>),
    /// The paused replies' content, sent back as is (engines.md, "Fidelity").
    Assistant(AssistantMessage<'a>),
}

/// `{"role":"assistant","content":[…]}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AssistantMessage<'a> {
    /// Always `assistant`.
    pub role: &'static str,
    /// The paused content blocks.
    pub content: &'a [serde_json::Value],
}

/// `{"effort":"low|medium|high"}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OutputConfig {
    /// The run's reasoning effort.
    pub effort: &'static str,
}

/// `{"type":"web_search_20250305","name":"web_search","max_uses":N}`, and Anthropic's
/// `user_location` when the run has a location.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WebSearchTool<'a> {
    /// Always [`WEB_SEARCH_TOOL_TYPE`].
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// Always [`WEB_SEARCH_TOOL_NAME`].
    pub name: &'static str,
    /// Searches allowed in one probe.
    pub max_uses: u32,
    /// `{"type":"approximate", country, region?, city?, timezone?}` for an engine whose tool
    /// takes the location (Anthropic); DeepSeek's endpoint documents none and gets the
    /// system prompt's line instead.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub user_location: Option<UserLocation<'a>>,
}

/// `{"role":"user","content":[{"type":"text","text":...}]}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct UserMessage<'a> {
    /// Always `user`.
    pub role: &'static str,
    /// One text block.
    pub content: Vec<TextBlock<'a>>,
}

/// `{"type":"text","text":...}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TextBlock<'a> {
    /// Always `text`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// The text.
    pub text: &'a str,
}

/// A user message holding `text` as its only content block.
pub fn user_message(text: &str) -> UserMessage<'_> {
    UserMessage { role: "user", content: vec![TextBlock { kind: "text", text }] }
}

/// The probe request for `prompt_text` under `config` (model, max tokens, searches, temperature).
pub fn build_request<'a>(prompt_text: &'a str, config: &'a RunConfig) -> MessagesRequest<'a> {
    let effort = match row_for(config.engine, &config.model).param {
        ReasoningParam::DeepseekEffort => config.reasoning_effort,
        _ => None,
    };
    MessagesRequest {
        model: &config.model,
        max_tokens: config.max_tokens,
        system: system_prompt(config),
        tools: vec![WebSearchTool {
            kind: WEB_SEARCH_TOOL_TYPE,
            name: WEB_SEARCH_TOOL_NAME,
            max_uses: config.max_searches,
            user_location: user_location(config, true),
        }],
        messages: vec![Message::User(user_message(prompt_text))],
        temperature: config.temperature,
        output_config: effort.map(|e| OutputConfig { effort: e.as_str() }),
    }
}

/// The request of a `pause_turn` continuation: the same request with the paused content
/// appended as one assistant message.
pub fn build_continuation<'a>(
    prompt_text: &'a str,
    config: &'a RunConfig,
    continuation: &'a Continuation,
) -> MessagesRequest<'a> {
    let mut request = build_request(prompt_text, config);
    request
        .messages
        .push(Message::Assistant(AssistantMessage { role: "assistant", content: &continuation.assistant_content }));
    request
}

/// The probe request body as a JSON value (keys sorted; see the module note).
pub fn build_request_body(prompt_text: &str, config: &RunConfig) -> serde_json::Value {
    serde_json::to_value(build_request(prompt_text, config)).unwrap_or(serde_json::Value::Null)
}

/// The probe request body serialised in the seed's field order: what the shells send.
pub fn request_body_json(prompt_text: &str, config: &RunConfig) -> String {
    // Serialising plain strings and numbers cannot fail; a non-finite temperature becomes null.
    serde_json::to_string(&build_request(prompt_text, config)).unwrap_or_default()
}

/// The body of a `pause_turn` continuation (see [`build_continuation`]).
pub fn continuation_body_json(prompt_text: &str, config: &RunConfig, continuation: &Continuation) -> String {
    serde_json::to_string(&build_continuation(prompt_text, config, continuation)).unwrap_or_default()
}

/// The key test's body (`Wire::key_test_body`): one user message, one output token, no tools
/// and no system prompt.
pub const KEY_TEST_BODY: &str =
    r#"{"max_tokens":1,"messages":[{"content":[{"text":{prompt},"type":"text"}],"role":"user"}],"model":{model}}"#;

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn body_has_the_seed_shape() {
        let config = RunConfig::default();
        let body = build_request_body("2026年有哪些GEO服务商？", &config);
        assert_eq!(
            body,
            json!({
                "model": "deepseek-v4-flash",
                "max_tokens": 16384,
                "system": "你是一个乐于助人的助手。请直接回答用户问题，不要描述你的搜索或思考过程。",
                "tools": [{"type": "web_search_20250305", "name": "web_search", "max_uses": 5}],
                "messages": [{"role": "user", "content": [{"type": "text", "text": "2026年有哪些GEO服务商？"}]}],
                "temperature": 1.0
            })
        );
    }

    #[test]
    fn body_takes_model_tokens_searches_and_temperature_from_config() {
        let config = RunConfig {
            model: "deepseek-v4-pro".into(),
            max_tokens: 1234,
            max_searches: 2,
            temperature: 0.3,
            ..RunConfig::default()
        };
        let body = build_request_body("q", &config);
        assert_eq!(body["model"], "deepseek-v4-pro");
        assert_eq!(body["max_tokens"], 1234);
        assert_eq!(body["tools"][0]["max_uses"], 2);
        assert_eq!(body["temperature"], 0.3);
    }

    #[test]
    fn serialised_body_keeps_the_seed_key_order() {
        let text = request_body_json("hi \"there\"", &RunConfig::default());
        let keys = ["\"model\"", "\"max_tokens\"", "\"system\"", "\"tools\"", "\"messages\"", "\"temperature\""];
        let positions: Vec<usize> = keys.iter().map(|k| text.find(k).expect(k)).collect();
        assert!(positions.windows(2).all(|w| w[0] < w[1]), "{text}");
        assert!(text.starts_with("{\"model\":\"deepseek-v4-flash\",\"max_tokens\":16384,"), "{text}");
        assert!(text.contains("{\"type\":\"web_search_20250305\",\"name\":\"web_search\",\"max_uses\":5}"), "{text}");
        assert!(
            text.contains("{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"hi \\\"there\\\"\"}]}"),
            "{text}"
        );
        let parsed: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(parsed, build_request_body("hi \"there\"", &RunConfig::default()));
    }

    #[test]
    fn effort_and_continuation() {
        let config = RunConfig { reasoning_effort: Some(crate::model::ReasoningEffort::High), ..RunConfig::default() };
        let body = build_request_body("q", &config);
        assert_eq!(body["output_config"], json!({"effort": "high"}));
        // Claude takes no effort: nothing is sent even if a config names one.
        let claude = RunConfig { engine: crate::model::EngineId::Anthropic, ..config.clone() };
        assert!(build_request_body("q", &claude).get("output_config").is_none());
        let paused = Continuation {
            assistant_content: vec![json!({"type": "server_tool_use", "id": "s1", "name": "web_search", "input": {}})],
        };
        let text = continuation_body_json("q", &config, &paused);
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["messages"][1], json!({"role": "assistant", "content": paused.assistant_content}));
        // Nothing else changes.
        let mut plain = v.clone();
        plain["messages"].as_array_mut().unwrap().pop();
        assert_eq!(plain, body);
    }
}
