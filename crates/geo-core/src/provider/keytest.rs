//! A key's verdict ([`KeyVerdict`], the words the settings page shows), and the cheapest
//! request that checks a key: one tiny call without tools.
//!
//! The tiny request costs a single output token and no search; the verdict is read from the
//! status and the body with the same rules as a probe's error mapping. The settings page's key
//! test now asks the doctor's question instead ([`crate::doctor`]: did a search run, how many
//! sources came back), and reports its verdict in these words.

use super::engines::{key_test_body, wire};
use super::error::body::parse_error_body;
use super::error::kind::is_balance_message;
use super::spec::{model_or_default, spec, BrowserAccess, Wording, KEY_TEST_PROMPT};
use crate::model::{EngineId, ErrorKind, Localized};

/// The key-test body of `engine` for `model` (blank: the engine's default), serialised: the
/// cheapest request each API accepts, without tools (the engine's key-test template with the
/// model and the prompt written in as JSON strings; Perplexity always searches, so its test
/// costs one request fee).
pub fn build_engine_key_test_body(engine: EngineId, model: &str) -> String {
    let quoted = |s: &str| serde_json::Value::from(s).to_string();
    // The prompt first: a model name holding `{prompt}` stays as it is.
    let body = key_test_body(engine).replace("{prompt}", &quoted(KEY_TEST_PROMPT));
    body.replace("{model}", &quoted(model_or_default(engine, model)))
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

/// Verdict of a key test of `engine` from its HTTP status and body, by the engine's error
/// rules (a Gemini 400 `API_KEY_INVALID` is an invalid key, an OpenAI `insufficient_quota` is
/// no balance); status `0` means "no response" (the body then carries the network error's
/// detail).
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
    let err = wire(engine).map_error(status, body);
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

    /// A zh/en sentence for the settings page about `engine`'s key, in the words of its spec
    /// row ([`Wording`]).
    pub fn describe_for(&self, engine: EngineId) -> Localized {
        let s = spec(engine);
        let (name, lower) = (s.name, s.name.to_lowercase());
        let seed = s.wording == Wording::Seed;
        match self {
            KeyVerdict::Valid => {
                Localized::new(format!("Key 可用，已连通 {name}"), format!("the key works and {lower} is reachable"))
            }
            KeyVerdict::InvalidKey if seed => Localized::new(
                "Key 无效或已失效，请检查后重新输入",
                "the key is invalid or revoked; check it and enter it again",
            ),
            KeyVerdict::InvalidKey => Localized::new(
                format!("{name} 的 Key 无效或已失效，请检查后重新输入"),
                format!("the {lower} key is invalid or revoked; check it and enter it again"),
            ),
            // The seed's sentences name its engine, DeepSeek, as they always did.
            KeyVerdict::NoBalance if seed => Localized::new(
                "Key 有效但账户余额不足，请前往 DeepSeek 开放平台充值",
                "the key is valid but the balance is insufficient; top up on the deepseek platform",
            ),
            KeyVerdict::NoBalance => Localized::new(
                format!("Key 有效但 {name} 账户余额或额度不足，请在其平台充值"),
                format!("the key is valid but the {lower} account is out of credit; add credit on its platform"),
            ),
            KeyVerdict::Forbidden => Localized::new(
                "请求被拒绝，请确认该 Key 有权使用所选模型",
                "the request was refused; check that the key may use the chosen model",
            ),
            KeyVerdict::RateLimited => Localized::new(
                "Key 有效，但当前被限流，请稍后再试",
                "the key works but is rate limited right now; try again in a moment",
            ),
            KeyVerdict::Unreachable(detail) if seed => {
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
            KeyVerdict::Unreachable(detail) => unreachable_words(engine, detail),
            KeyVerdict::Other(message) => {
                Localized::new(format!("测试失败：{message}"), format!("key test failed: {message}"))
            }
        }
    }
}

/// What an unreachable engine of [`Wording::Named`] is told, by how a browser may reach it.
fn unreachable_words(engine: EngineId, detail: &str) -> Localized {
    let (name, lower) = (spec(engine).name, spec(engine).name.to_lowercase());
    let d = if detail.is_empty() { String::new() } else { format!("（{detail}）") };
    let e = if detail.is_empty() { String::new() } else { format!(" ({detail})") };
    let (zh, en) = match spec(engine).browser {
        BrowserAccess::Proxy => (
            format!("无法连接 {name}{d}：它不允许浏览器直接调用（CORS），请启动 geo-probe proxy 并在设置中使用本地代理"),
            format!("{lower} is unreachable{e}: it does not allow browser calls (cors); start geo-probe proxy and use the local proxy in settings"),
        ),
        BrowserAccess::IfCorsAllows => (
            format!("无法连接 {name}{d}：它可能不允许浏览器直接调用（CORS），请填写代理 API 地址，或检查网络"),
            format!("{lower} is unreachable{e}: it may not allow browser calls (cors); set a proxy base url, or check the connection"),
        ),
        BrowserAccess::Direct => (
            format!("无法连接 {name}{d}，请检查网络或 API 地址（浏览器被拦截时可改用代理 API 地址）"),
            format!("{lower} is unreachable{e}; check the connection or the api base url (a proxy base url helps when the browser is blocked)"),
        ),
    };
    Localized::new(zh, en)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The seed engine's verdicts.
    fn interpret_key_test(status: u16, body: &str) -> KeyVerdict {
        interpret_engine_key_test(EngineId::Deepseek, status, body)
    }

    #[track_caller]
    fn check(status: u16, body: &str, expect: KeyVerdict) {
        assert_eq!(interpret_key_test(status, body), expect, "{status} {body}");
    }

    #[test]
    fn key_test_bodies_per_engine() {
        let body = |engine, model| -> serde_json::Value {
            serde_json::from_str(&build_engine_key_test_body(engine, model)).unwrap()
        };
        assert_eq!(
            body(EngineId::Deepseek, ""),
            json!({"model":"deepseek-v4-flash","max_tokens":1,"messages":[{"role":"user","content":[{"type":"text","text":"ping"}]}]})
        );
        assert_eq!(
            body(EngineId::Openai, "gpt-5"),
            json!({"model": "gpt-5", "input": "ping", "max_output_tokens": 16})
        );
        assert_eq!(body(EngineId::Doubao, "d")["max_output_tokens"], 16);
        assert_eq!(body(EngineId::Ernie, "e")["max_completion_tokens"], 2);
        assert_eq!(body(EngineId::Hunyuan, "h")["max_tokens"], 1);
        assert_eq!(body(EngineId::Gemini, "g")["generationConfig"], json!({"maxOutputTokens": 1}));
        assert_eq!(body(EngineId::Qwen, "")["parameters"]["enable_thinking"], false);
        // Compact, keys sorted, the model escaped as a JSON string: what `json!(…).to_string()`
        // wrote before the bodies became templates.
        let hostile = "m\"{prompt}\\";
        assert_eq!(
            build_engine_key_test_body(EngineId::Qwen, hostile),
            r#"{"input":{"messages":[{"content":"ping","role":"user"}]},"model":"m\"{prompt}\\","parameters":{"enable_thinking":false,"max_tokens":1,"result_format":"message"}}"#
        );
        for engine in EngineId::ALL {
            let text = build_engine_key_test_body(engine, hostile);
            let v: serde_json::Value = serde_json::from_str(&text).unwrap();
            assert_eq!(v.to_string(), text, "{engine}: compact and sorted");
            assert!(
                !text.contains(":{model}") && !text.contains(":{prompt}") && text.contains(r#""ping""#),
                "{engine}"
            );
        }
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
            let d = v.describe_for(EngineId::Deepseek);
            assert!(!d.zh.is_empty() && !d.en.is_empty() && !d.en.ends_with('.'), "{v:?}");
        }
        assert!(KeyVerdict::NoBalance.describe_for(EngineId::Deepseek).zh.contains("余额不足"));
        assert!(KeyVerdict::Unreachable("dns".into()).describe_for(EngineId::Deepseek).en.contains("(dns)"));
        assert!(KeyVerdict::Valid.is_valid() && !KeyVerdict::RateLimited.is_valid());
    }
}
