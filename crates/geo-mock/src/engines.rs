//! What differs between the engines the mock stands in for: which path is whose, where the
//! prompt, the model and the key are in a request, and how a recorded answer is adjusted
//! (the requested model written in, a search turned into a failed one).
//!
//! None of this uses geo-core's wire formats, on purpose (the mock takes only geo-core's
//! PRNG): it must answer the way each engine documents, not the way GEO Probe reads it, so a
//! parser bug cannot hide behind a mock that shares its code.

use serde_json::{json, Value};

/// The engine a request is for (`shared/spec/engines.md`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MockEngine {
    /// `POST …/anthropic/v1/messages`.
    Deepseek = 0,
    /// `POST …/v1/messages`.
    Anthropic = 1,
    /// `POST …/v1/responses`.
    Openai = 2,
    /// `POST …/models/{model}:generateContent`.
    Gemini = 3,
    /// `POST …/chat/completions` without `"stream": true` (a streaming one is the docs chat).
    Perplexity = 4,
    /// `POST …/api/v1/services/aigc/text-generation/generation` (DashScope native).
    Qwen = 5,
    /// `POST …/api/v3/responses` (Volcengine Ark).
    Doubao = 6,
    /// `POST …/v2/chat/completions` (Qianfan).
    Ernie = 7,
    /// `POST …/v1/chat/completions` with `enable_enhancement` (Hunyuan).
    Hunyuan = 8,
}

impl MockEngine {
    /// Every engine, in engines.md order.
    pub const ALL: [MockEngine; 9] = [
        MockEngine::Deepseek,
        MockEngine::Anthropic,
        MockEngine::Openai,
        MockEngine::Gemini,
        MockEngine::Perplexity,
        MockEngine::Qwen,
        MockEngine::Doubao,
        MockEngine::Ernie,
        MockEngine::Hunyuan,
    ];

    /// The engine id of engines.md.
    pub fn name(self) -> &'static str {
        match self {
            MockEngine::Deepseek => "deepseek",
            MockEngine::Anthropic => "anthropic",
            MockEngine::Openai => "openai",
            MockEngine::Gemini => "gemini",
            MockEngine::Perplexity => "perplexity",
            MockEngine::Qwen => "qwen",
            MockEngine::Doubao => "doubao",
            MockEngine::Ernie => "ernie",
            MockEngine::Hunyuan => "hunyuan",
        }
    }

    /// The engine of a probe request to `path` (query string removed) with `body`, or `None`
    /// for any other path (and for the docs chat's streaming `chat/completions`). ERNIE's
    /// `/v2/chat/completions` and Hunyuan's `/v1/chat/completions` are told from Perplexity's
    /// by their path or by their search switch (`web_search`, `enable_enhancement`).
    pub fn route(path: &str, body: &Value) -> Option<MockEngine> {
        let chat = path.ends_with("/chat/completions") && body.get("stream").and_then(Value::as_bool) != Some(true);
        if path.ends_with("/api/v1/services/aigc/text-generation/generation") {
            Some(MockEngine::Qwen)
        } else if path.ends_with("/api/v3/responses") {
            Some(MockEngine::Doubao)
        } else if chat && (path.ends_with("/v2/chat/completions") || body.get("web_search").is_some()) {
            Some(MockEngine::Ernie)
        } else if chat && (path.ends_with("/v1/chat/completions") || body.get("enable_enhancement").is_some()) {
            Some(MockEngine::Hunyuan)
        } else if path.ends_with("/anthropic/v1/messages") {
            Some(MockEngine::Deepseek)
        } else if path.ends_with("/v1/messages") {
            Some(MockEngine::Anthropic)
        } else if path.ends_with("/v1/responses") {
            Some(MockEngine::Openai)
        } else if path.ends_with(":generateContent") && path.contains("/models/") {
            Some(MockEngine::Gemini)
        } else if path.ends_with("/chat/completions") && body.get("stream").and_then(Value::as_bool) != Some(true) {
            Some(MockEngine::Perplexity)
        } else {
            None
        }
    }

    /// The folder of the engine's recorded responses, for messages (`fixtures/responses/`
    /// for DeepSeek, `fixtures/engines/<engine>/` for the others).
    pub fn fixture_dir(self) -> String {
        match self {
            MockEngine::Deepseek => "fixtures/responses/".to_string(),
            _ => format!("fixtures/engines/{}/", self.name()),
        }
    }

    /// The header that carries the key, and its value's prefix.
    pub fn auth_header(self) -> (&'static str, &'static str) {
        match self {
            MockEngine::Deepseek | MockEngine::Anthropic => ("x-api-key", ""),
            MockEngine::Openai
            | MockEngine::Perplexity
            | MockEngine::Qwen
            | MockEngine::Doubao
            | MockEngine::Ernie
            | MockEngine::Hunyuan => ("authorization", "Bearer "),
            MockEngine::Gemini => ("x-goog-api-key", ""),
        }
    }

    /// The key a request carries: the engine's header (without `Bearer `), or Gemini's
    /// `?key=` query parameter (its older documented form).
    pub fn key<'a>(self, header: impl Fn(&str) -> Option<&'a str>, path: &'a str) -> Option<&'a str> {
        let (name, prefix) = self.auth_header();
        if let Some(v) = header(name) {
            return Some(v.strip_prefix(prefix).unwrap_or(v));
        }
        if self == MockEngine::Gemini {
            let query = path.split_once('?')?.1;
            return query.split('&').find_map(|kv| kv.strip_prefix("key="));
        }
        None
    }

    /// The prompt a probe request asks: the last user turn's text, in the engine's shape.
    pub fn prompt_text(self, body: &Value) -> Option<String> {
        let text_of = |content: &Value| match content {
            Value::String(s) => Some(s.clone()),
            Value::Array(parts) => {
                Some(parts.iter().filter_map(|b| b.get("text").and_then(Value::as_str)).collect::<Vec<_>>().join(""))
            }
            _ => None,
        };
        let last_user = |list: &Value| -> Option<String> {
            let turn = list.as_array()?.iter().rev().find(|m| m.get("role").and_then(Value::as_str) == Some("user"))?;
            text_of(turn.get("content").or_else(|| turn.get("parts"))?)
        };
        match self {
            MockEngine::Deepseek
            | MockEngine::Anthropic
            | MockEngine::Perplexity
            | MockEngine::Ernie
            | MockEngine::Hunyuan => last_user(body.get("messages")?),
            MockEngine::Qwen => last_user(body.pointer("/input/messages")?),
            MockEngine::Openai | MockEngine::Doubao => match body.get("input")? {
                Value::String(s) => Some(s.clone()),
                list => last_user(list),
            },
            MockEngine::Gemini => last_user(body.get("contents")?),
        }
    }

    /// The model requested: the body's `model`, or for Gemini the path's `models/{model}`.
    pub fn model(self, body: &Value, path: &str) -> String {
        let from_body = body.get("model").and_then(Value::as_str).map(str::to_string);
        let default = match self {
            MockEngine::Deepseek => "deepseek-v4-flash",
            MockEngine::Anthropic => "claude-sonnet-4-6",
            MockEngine::Openai => "gpt-5-mini",
            MockEngine::Gemini => "gemini-2.5-flash",
            MockEngine::Perplexity => "sonar",
            MockEngine::Qwen => "qwen-plus",
            MockEngine::Doubao => "doubao-seed-2-1-pro-260628",
            MockEngine::Ernie => "ernie-4.5-turbo-128k",
            MockEngine::Hunyuan => "hunyuan-turbos-latest",
        };
        let from_path = || {
            let (_, rest) = path.split('?').next()?.rsplit_once("/models/")?;
            Some(rest.trim_end_matches(":generateContent").to_string()).filter(|m| !m.is_empty())
        };
        match self {
            MockEngine::Gemini => from_path(),
            _ => from_body,
        }
        .unwrap_or_else(|| default.to_string())
    }

    /// Writes the requested model into a recorded answer, where the engine names it
    /// (DashScope's native replies name none).
    pub fn set_model(self, answer: &mut Value, model: &str) {
        let key = match self {
            MockEngine::Gemini => "modelVersion",
            MockEngine::Qwen => return,
            _ => "model",
        };
        if let Some(obj) = answer.as_object_mut() {
            obj.insert(key.to_string(), json!(model));
        }
    }

    /// Turns the answer's first search into a failed one, the way the engine reports it:
    /// Messages `web_search_tool_result_error` (`unavailable`), OpenAI and Doubao a
    /// `web_search_call` with `status: failed` and no sources; Gemini and Perplexity document no search error, so
    /// their answer loses its grounding results (and citations) and keeps its text.
    pub fn with_search_error(self, answer: &mut Value) {
        match self {
            MockEngine::Deepseek | MockEngine::Anthropic => {
                let error = json!({ "type": "web_search_tool_result_error", "error_code": "unavailable" });
                let blocks = answer.get_mut("content").and_then(Value::as_array_mut);
                if let Some(b) = blocks.into_iter().flatten().find(|b| b["type"] == "web_search_tool_result") {
                    b["content"] = error;
                }
            }
            // Responses: OpenAI's and Ark's.
            MockEngine::Openai | MockEngine::Doubao => {
                let items = answer.get_mut("output").and_then(Value::as_array_mut);
                if let Some(call) = items.into_iter().flatten().find(|i| i["type"] == "web_search_call") {
                    call["status"] = json!("failed");
                    if let Some(action) = call.get_mut("action").and_then(Value::as_object_mut) {
                        action.remove("sources");
                    }
                }
            }
            MockEngine::Gemini => {
                if let Some(meta) = answer.pointer_mut("/candidates/0/groundingMetadata").and_then(Value::as_object_mut)
                {
                    meta.remove("groundingChunks");
                    meta.remove("groundingSupports");
                }
            }
            MockEngine::Perplexity => {
                if let Some(obj) = answer.as_object_mut() {
                    obj.insert("search_results".into(), json!([]));
                    obj.insert("citations".into(), json!([]));
                }
            }
            // DashScope over its search rate limit answers without searching: no
            // `search_info`, no `usage.plugins` (qwen_dashscope.md, "限流说明").
            MockEngine::Qwen => {
                if let Some(output) = answer.get_mut("output").and_then(Value::as_object_mut) {
                    output.remove("search_info");
                }
                if let Some(usage) = answer.get_mut("usage").and_then(Value::as_object_mut) {
                    usage.remove("plugins");
                }
            }
            MockEngine::Ernie => {
                if let Some(obj) = answer.as_object_mut() {
                    obj.insert("search_results".into(), json!([]));
                }
            }
            MockEngine::Hunyuan => {
                if let Some(obj) = answer.as_object_mut() {
                    obj.remove("search_info");
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_route_to_their_engine() {
        let plain = json!({});
        let cases = [
            ("/anthropic/v1/messages", Some(MockEngine::Deepseek)),
            ("/x/anthropic/v1/messages", Some(MockEngine::Deepseek)),
            ("/v1/messages", Some(MockEngine::Anthropic)),
            ("/claude/v1/messages", Some(MockEngine::Anthropic)),
            ("/v1/responses", Some(MockEngine::Openai)),
            ("/v1beta/models/gemini-2.5-flash:generateContent", Some(MockEngine::Gemini)),
            ("/chat/completions", Some(MockEngine::Perplexity)),
            ("/v1/other", None),
        ];
        for (path, engine) in cases {
            assert_eq!(MockEngine::route(path, &plain), engine, "{path}");
        }
        assert_eq!(MockEngine::route("/chat/completions", &json!({"stream": true})), None, "the docs chat");
    }

    #[test]
    fn prompts_models_and_keys_in_each_shape() {
        let openai = json!({"model": "gpt-5", "input": [{"role": "user", "content": "q1"}]});
        assert_eq!(MockEngine::Openai.prompt_text(&openai).as_deref(), Some("q1"));
        assert_eq!(MockEngine::Openai.prompt_text(&json!({"input": "q2"})).as_deref(), Some("q2"));
        let gemini = json!({"contents": [{"role": "user", "parts": [{"text": "a"}, {"text": "b"}]}]});
        assert_eq!(MockEngine::Gemini.prompt_text(&gemini).as_deref(), Some("ab"));
        assert_eq!(
            MockEngine::Gemini.model(&gemini, "/v1beta/models/gemini-2.5-pro:generateContent?key=k"),
            "gemini-2.5-pro"
        );
        let pplx = json!({"messages": [{"role": "system", "content": "s"}, {"role": "user", "content": "q3"}]});
        assert_eq!(MockEngine::Perplexity.prompt_text(&pplx).as_deref(), Some("q3"));
        assert_eq!(MockEngine::Perplexity.model(&pplx, "/chat/completions"), "sonar");
        let h = |name: &str| (name == "authorization").then_some("Bearer sk-1");
        assert_eq!(MockEngine::Openai.key(h, "/v1/responses"), Some("sk-1"));
        assert_eq!(MockEngine::Gemini.key(|_| None, "/m:generateContent?alt=json&key=g-1"), Some("g-1"));
        assert_eq!(MockEngine::Anthropic.key(|_| None, "/v1/messages?key=x"), None);
    }
}
