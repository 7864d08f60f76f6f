//! A key's verdict ([`KeyVerdict`], the words the settings page shows), and the cheapest
//! request that checks a key: one tiny call without tools.
//!
//! The tiny request costs a single output token and no search; the verdict is read from the
//! status and the body with the same rules as a probe's error mapping. The settings page's key
//! test now asks the doctor's question instead ([`super::doctor`]: did a search run, how many
//! sources came back), and reports its verdict in these words.

use serde::Serialize;

use super::engine::{model_or_default, spec};
use super::errors::{is_balance_message, map_engine_http_error, parse_error_body};
use super::request::{user_message, UserMessage};
use crate::model::{EngineId, ErrorKind, Localized};

/// Text of the key-test message.
pub const KEY_TEST_PROMPT: &str = "ping";

/// The key-test request: model, `max_tokens: 1`, one user message, no tools.
#[derive(Debug, Clone, PartialEq, Serialize)]
struct KeyTestRequest<'a> {
    model: &'a str,
    max_tokens: u32,
    messages: Vec<UserMessage<'a>>,
}

/// The body of the key test for `model`: a 1-token request without tools or system prompt.
pub fn build_key_test_body(model: &str) -> serde_json::Value {
    let request = KeyTestRequest { model, max_tokens: 1, messages: vec![user_message(KEY_TEST_PROMPT)] };
    serde_json::to_value(request).unwrap_or(serde_json::Value::Null)
}

/// The key-test body of `engine` for `model` (blank: the engine's default), serialised: the
/// cheapest request each API accepts, without tools (Perplexity always searches, so its test
/// costs one request fee).
pub fn build_engine_key_test_body(engine: EngineId, model: &str) -> String {
    let model = model_or_default(engine, model);
    let value = match engine {
        EngineId::Deepseek | EngineId::Anthropic => build_key_test_body(model),
        // The Responses API refuses max_output_tokens below 16.
        EngineId::Openai => serde_json::json!({"model": model, "input": KEY_TEST_PROMPT, "max_output_tokens": 16}),
        EngineId::Gemini => serde_json::json!({
            "contents": [{"role": "user", "parts": [{"text": KEY_TEST_PROMPT}]}],
            "generationConfig": {"maxOutputTokens": 1}
        }),
        EngineId::Perplexity | EngineId::Hunyuan => serde_json::json!({
            "model": model, "messages": [{"role": "user", "content": KEY_TEST_PROMPT}], "max_tokens": 1
        }),
        // Qianfan's max_completion_tokens starts at 2.
        EngineId::Ernie => serde_json::json!({
            "model": model, "messages": [{"role": "user", "content": KEY_TEST_PROMPT}], "max_completion_tokens": 2
        }),
        EngineId::Qwen => serde_json::json!({
            "model": model,
            "input": {"messages": [{"role": "user", "content": KEY_TEST_PROMPT}]},
            "parameters": {"result_format": "message", "max_tokens": 1, "enable_thinking": false}
        }),
        // Ark's Responses API, like OpenAI's, is given 16 output tokens.
        EngineId::Doubao => serde_json::json!({"model": model, "input": KEY_TEST_PROMPT, "max_output_tokens": 16}),
    };
    value.to_string()
}

/// What the key test found out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeyVerdict {
    /// The key works: the endpoint answered with a message.
    Valid,
    /// 401: the key is wrong or revoked.
    InvalidKey,
    /// The account has no balance left (402 or an out-of-credit body).
    NoBalance,
    /// 403: the key may not use this endpoint or model.
    Forbidden,
    /// 429: the key is fine but rate limited right now.
    RateLimited,
    /// No HTTP response (status 0); carries the network error's detail.
    Unreachable(String),
    /// Anything else, with a message that includes the status and the provider's words.
    Other(String),
}

/// Verdict of a key test from its HTTP status and body; status `0` means "no response"
/// (the body then carries the network error's detail).
pub fn interpret_key_test(status: u16, body: &str) -> KeyVerdict {
    interpret_engine_key_test(EngineId::Deepseek, status, body)
}

/// [`interpret_key_test`] with `engine`'s error rules (a Gemini 400 `API_KEY_INVALID` is an
/// invalid key, an OpenAI `insufficient_quota` is no balance).
pub fn interpret_engine_key_test(engine: EngineId, status: u16, body: &str) -> KeyVerdict {
    if status == 0 {
        return KeyVerdict::Unreachable(body.trim().to_string());
    }
    if (200..300).contains(&status) {
        let value: Option<serde_json::Value> = serde_json::from_str(body).ok();
        let is_error = value.as_ref().is_some_and(|v| {
            v.get("type").and_then(|t| t.as_str()) == Some("error") || v.get("error").is_some_and(|e| !e.is_null())
        });
        if !is_error {
            return match value {
                Some(serde_json::Value::Object(_)) => KeyVerdict::Valid,
                _ => KeyVerdict::Other(format!(
                    "http {status} with a body that is not a json message; check the api base url"
                )),
            };
        }
    }
    if is_balance_message(&parse_error_body(body)) {
        return KeyVerdict::NoBalance;
    }
    let err = map_engine_http_error(engine, status, body);
    match err.kind {
        ErrorKind::Auth => KeyVerdict::InvalidKey,
        ErrorKind::Balance => KeyVerdict::NoBalance,
        ErrorKind::Forbidden => KeyVerdict::Forbidden,
        ErrorKind::RateLimit => KeyVerdict::RateLimited,
        _ => KeyVerdict::Other(err.message),
    }
}

impl KeyVerdict {
    /// True only for [`KeyVerdict::Valid`].
    pub fn is_valid(&self) -> bool {
        matches!(self, KeyVerdict::Valid)
    }

    /// A zh/en sentence for the settings page (DeepSeek's key).
    pub fn describe(&self) -> Localized {
        self.describe_for(EngineId::Deepseek)
    }

    /// A zh/en sentence for the settings page about `engine`'s key.
    pub fn describe_for(&self, engine: EngineId) -> Localized {
        if engine != EngineId::Deepseek {
            return self.describe_other(engine);
        }
        match self {
            KeyVerdict::Valid => Localized::new("Key 可用，已连通 DeepSeek", "the key works and deepseek is reachable"),
            KeyVerdict::InvalidKey => Localized::new(
                "Key 无效或已失效，请检查后重新输入",
                "the key is invalid or revoked; check it and enter it again",
            ),
            KeyVerdict::NoBalance => Localized::new(
                "Key 有效但账户余额不足，请前往 DeepSeek 开放平台充值",
                "the key is valid but the balance is insufficient; top up on the deepseek platform",
            ),
            KeyVerdict::Forbidden => Localized::new(
                "请求被拒绝，请确认该 Key 有权使用所选模型",
                "the request was refused; check that the key may use the chosen model",
            ),
            KeyVerdict::RateLimited => Localized::new(
                "Key 有效，但当前被限流，请稍后再试",
                "the key works but is rate limited right now; try again in a moment",
            ),
            KeyVerdict::Unreachable(detail) => {
                let (zh, en) = if detail.is_empty() {
                    (
                        "无法连接 DeepSeek，请检查网络或 API 地址".to_string(),
                        "deepseek is unreachable; check the connection or the api base url".to_string(),
                    )
                } else {
                    (
                        format!("无法连接 DeepSeek（{detail}），请检查网络或 API 地址"),
                        format!("deepseek is unreachable ({detail}); check the connection or the api base url"),
                    )
                };
                Localized::new(zh, en)
            }
            KeyVerdict::Other(message) => {
                Localized::new(format!("测试失败：{message}"), format!("key test failed: {message}"))
            }
        }
    }
}

impl KeyVerdict {
    fn describe_other(&self, engine: EngineId) -> Localized {
        let name = spec(engine).name;
        let lower = name.to_lowercase();
        match self {
            KeyVerdict::Valid => {
                Localized::new(format!("Key 可用，已连通 {name}"), format!("the key works and {lower} is reachable"))
            }
            KeyVerdict::InvalidKey => Localized::new(
                format!("{name} 的 Key 无效或已失效，请检查后重新输入"),
                format!("the {lower} key is invalid or revoked; check it and enter it again"),
            ),
            KeyVerdict::NoBalance => Localized::new(
                format!("Key 有效但 {name} 账户余额或额度不足，请在其平台充值"),
                format!("the key is valid but the {lower} account is out of credit; add credit on its platform"),
            ),
            KeyVerdict::Forbidden | KeyVerdict::RateLimited | KeyVerdict::Other(_) => {
                self.describe_for(EngineId::Deepseek)
            }
            KeyVerdict::Unreachable(detail) => {
                let d = if detail.is_empty() { String::new() } else { format!("（{detail}）") };
                let e = if detail.is_empty() { String::new() } else { format!(" ({detail})") };
                let (zh, en) = match spec(engine).browser {
                    super::engine::BrowserAccess::Proxy => (
                        format!("无法连接 {name}{d}：它不允许浏览器直接调用（CORS），请启动 geo-probe proxy 并在设置中使用本地代理"),
                        format!("{lower} is unreachable{e}: it does not allow browser calls (cors); start geo-probe proxy and use the local proxy in settings"),
                    ),
                    super::engine::BrowserAccess::IfCorsAllows => (
                        format!("无法连接 {name}{d}：它可能不允许浏览器直接调用（CORS），请填写代理 API 地址，或检查网络"),
                        format!("{lower} is unreachable{e}: it may not allow browser calls (cors); set a proxy base url, or check the connection"),
                    ),
                    super::engine::BrowserAccess::Direct => (
                        format!("无法连接 {name}{d}，请检查网络或 API 地址（浏览器被拦截时可改用代理 API 地址）"),
                        format!("{lower} is unreachable{e}; check the connection or the api base url (a proxy base url helps when the browser is blocked)"),
                    ),
                };
                Localized::new(zh, en)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[track_caller]
    fn check(status: u16, body: &str, expect: KeyVerdict) {
        assert_eq!(interpret_key_test(status, body), expect, "{status} {body}");
    }

    #[test]
    fn key_test_body_is_minimal() {
        assert_eq!(
            build_key_test_body("deepseek-v4-flash"),
            json!({"model":"deepseek-v4-flash","max_tokens":1,"messages":[{"role":"user","content":[{"type":"text","text":"ping"}]}]})
        );
        assert!(build_key_test_body("m").get("tools").is_none());
    }

    #[test]
    fn verdicts() {
        let ok = r#"{"id":"930c60df-bf64-41c9-a88e-3ec75f81e00e","type":"message","content":[{"type":"text","text":"p"}],"stop_reason":"max_tokens"}"#;
        check(200, ok, KeyVerdict::Valid);
        check(
            401,
            r#"{"error":{"message":"Authentication Fails, Your api key: ****cd15 is invalid","type":"authentication_error"}}"#,
            KeyVerdict::InvalidKey,
        );
        check(402, r#"{"error":{"message":"Insufficient Balance","type":"unknown_error"}}"#, KeyVerdict::NoBalance);
        check(
            400,
            r#"{"type":"error","error":{"type":"invalid_request_error","message":"Your credit balance is too low to access the Anthropic API."}}"#,
            KeyVerdict::NoBalance,
        );
        check(200, r#"{"error":{"message":"Insufficient Balance"}}"#, KeyVerdict::NoBalance);
        check(403, "", KeyVerdict::Forbidden);
        check(429, r#"{"type":"error","error":{"type":"rate_limit_error","message":"slow"}}"#, KeyVerdict::RateLimited);
        check(0, " Failed to fetch ", KeyVerdict::Unreachable("Failed to fetch".into()));
        let KeyVerdict::Other(m) = interpret_key_test(503, "Service Unavailable") else { panic!("503 is other") };
        assert!(m.contains("http 503") && m.contains("Service Unavailable"), "{m}");
        let KeyVerdict::Other(m) = interpret_key_test(400, r#"{"error":{"message":"Model Not Exist"}}"#) else {
            panic!("400 is other")
        };
        assert!(m.contains("Model Not Exist"), "{m}");
        let KeyVerdict::Other(m) = interpret_key_test(200, "<html>proxy login</html>") else { panic!("html is other") };
        assert!(m.contains("check the api base url"), "{m}");
    }

    #[test]
    fn engine_key_tests() {
        for engine in EngineId::ALL {
            let body: serde_json::Value = serde_json::from_str(&build_engine_key_test_body(engine, "")).unwrap();
            assert!(body.get("tools").is_none(), "{engine}");
        }
        let gemini_bad = r#"{"error":{"code":400,"message":"API key not valid.","status":"INVALID_ARGUMENT","details":[{"reason":"API_KEY_INVALID"}]}}"#;
        assert_eq!(interpret_engine_key_test(EngineId::Gemini, 400, gemini_bad), KeyVerdict::InvalidKey);
        let quota = r#"{"error":{"message":"You exceeded your current quota","type":"insufficient_quota","code":"insufficient_quota"}}"#;
        assert_eq!(interpret_engine_key_test(EngineId::Openai, 429, quota), KeyVerdict::NoBalance);
        assert_eq!(interpret_engine_key_test(EngineId::Openai, 429, "{}"), KeyVerdict::RateLimited);
        assert_eq!(interpret_engine_key_test(EngineId::Perplexity, 401, "<html>401</html>"), KeyVerdict::InvalidKey);
        assert_eq!(interpret_engine_key_test(EngineId::Gemini, 200, r#"{"candidates":[]}"#), KeyVerdict::Valid);
        let d = KeyVerdict::Unreachable("Failed to fetch".into()).describe_for(EngineId::Perplexity);
        assert!(d.zh.contains("CORS") && d.en.contains("proxy base url"), "{d:?}");
        assert!(KeyVerdict::Valid.describe_for(EngineId::Gemini).zh.contains("Gemini"));
    }

    #[test]
    fn every_verdict_is_described_in_both_languages() {
        let all = [
            KeyVerdict::Valid,
            KeyVerdict::InvalidKey,
            KeyVerdict::NoBalance,
            KeyVerdict::Forbidden,
            KeyVerdict::RateLimited,
            KeyVerdict::Unreachable(String::new()),
            KeyVerdict::Unreachable("dns".into()),
            KeyVerdict::Other("http 500".into()),
        ];
        for v in &all {
            let d = v.describe();
            assert!(!d.zh.is_empty() && !d.en.is_empty() && !d.en.ends_with('.'), "{v:?}");
        }
        assert!(KeyVerdict::NoBalance.describe().zh.contains("余额不足"));
        assert!(KeyVerdict::Unreachable("dns".into()).describe().en.contains("(dns)"));
        assert!(KeyVerdict::Valid.is_valid() && !KeyVerdict::RateLimited.is_valid());
    }
}
