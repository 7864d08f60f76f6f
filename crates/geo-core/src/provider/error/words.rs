//! The interface's words for a failed probe: what happened and what the user can do, in Chinese
//! and English ([`describe_engine_error`]), including what `geo-probe proxy` itself refused.
//!
//! Every engine's row says which words it gets ([`Wording`]): the seed's sentences for the seed's
//! engine, sentences naming the engine for every later one; a rejected key adds the engine's own
//! hint ([`AuthHint`](crate::provider::spec::AuthHint)). This file reads the spec and the
//! transport errors' markers, never an engine module.

use super::transport::{is_browser_block_message, LOCAL_PROXY_ERROR_TYPE, LOCAL_PROXY_SILENT};
use crate::model::{EngineId, ErrorKind, Localized, ProbeError};
use crate::provider::spec::{spec, Wording};

/// What [`describe_engine_error`] says of an error that `geo-probe proxy` itself caused, or
/// `None` for any other.
pub(crate) fn describe_local_proxy(engine: EngineId, err: &ProbeError) -> Option<Localized> {
    let name = spec(engine).name;
    if err.kind == ErrorKind::Network && err.message.starts_with(LOCAL_PROXY_SILENT) {
        return Some(Localized::new(
            "本地代理 geo-probe proxy 没有响应：它没有运行，或启动时没有用 --allow-origin 允许本页面；请用设置页给出的命令启动它",
            "geo-probe proxy did not answer: it is not running, or it was started without --allow-origin for this page; start it with the command settings shows",
        ));
    }
    if !err.message.contains(LOCAL_PROXY_ERROR_TYPE) {
        return None;
    }
    let (zh, en) = match err.http_status {
        Some(401) => (
            "本地代理 geo-probe proxy 拒绝了请求：口令缺失或错误。请把它启动时打印的 token 粘贴到设置中".to_string(),
            "geo-probe proxy refused the request: its token is missing or wrong; paste the token it printed at start into settings".to_string(),
        ),
        Some(404) => (
            format!("本地代理 geo-probe proxy 不转发 {name}：请设置 {} 后重新启动它", spec(engine).key_env),
            format!("geo-probe proxy does not serve {}: set {} and start it again", spec(engine).name.to_lowercase(), spec(engine).key_env),
        ),
        _ => (
            "本地代理 geo-probe proxy 未能完成请求，详见它的终端输出".to_string(),
            "geo-probe proxy could not complete the request; see its terminal".to_string(),
        ),
    };
    Some(with_status(err, zh, en))
}

/// A short zh/en message for the UI about a failed probe of `engine`: what happened and what
/// to do, the engine named where the wording depends on it; a browser's blocked request points
/// to the proxy base URL, and what `geo-probe proxy` itself refused is told as the proxy's.
pub fn describe_engine_error(engine: EngineId, err: &ProbeError) -> Localized {
    if let Some(words) = describe_local_proxy(engine, err) {
        return words;
    }
    if spec(engine).wording == Wording::Named
        || (err.kind == ErrorKind::Network && is_browser_block_message(&err.message))
    {
        return describe_named(engine, err);
    }
    describe_seed(err)
}

/// The seed's wording of [`describe_engine_error`] ([`Wording::Seed`]): the sentences written
/// when DeepSeek was the only engine, kept as they were (three of them name it).
fn describe_seed(err: &ProbeError) -> Localized {
    let (zh, en) = match err.kind {
        ErrorKind::Auth => {
            ("API Key 无效或已失效，请在设置中检查 Key", "the api key is invalid or revoked; check it in settings")
        }
        ErrorKind::Balance => (
            "DeepSeek 账户余额不足，请前往 DeepSeek 开放平台充值后重试",
            "insufficient balance on the deepseek account; top up on the deepseek platform, then retry",
        ),
        ErrorKind::Forbidden => (
            "请求被拒绝，请确认该 Key 有权使用所选模型和接口",
            "request refused; check that the key may use the chosen model and endpoint",
        ),
        ErrorKind::RateLimit => {
            ("请求过于频繁（限流），请降低并发或稍后重试", "rate limited; lower the concurrency or retry in a moment")
        }
        ErrorKind::Server => {
            ("DeepSeek 服务端异常或过载，请稍后重试", "deepseek server error or overload; retry in a moment")
        }
        ErrorKind::Timeout => ("请求超时，请稍后重试", "the request timed out; retry in a moment"),
        ErrorKind::Network => (
            "网络错误，无法连接 DeepSeek，请检查网络或 API 地址",
            "network error, deepseek unreachable; check the connection or the api base url",
        ),
        ErrorKind::InvalidJson => (
            "响应不是合法的 JSON，请检查 API 地址或代理设置",
            "the response is not valid json; check the api base url or proxy",
        ),
        ErrorKind::Empty => ("模型返回了空回答，可重试该 Probe", "the model returned an empty answer; retry the probe"),
        ErrorKind::Http => {
            ("请求失败，请检查模型名称和 API 地址", "the request failed; check the model name and the api base url")
        }
        ErrorKind::Refused => ("内容审核拒答", "refused by the engine's content filter"),
    };
    with_status(err, zh.to_string(), en.to_string())
}

fn with_status(err: &ProbeError, zh: String, en: String) -> Localized {
    match err.http_status {
        Some(s) => Localized::new(format!("{zh}（HTTP {s}）"), format!("{en} (http {s})")),
        None => Localized::new(zh, en),
    }
}

/// The wording of [`describe_engine_error`] for an engine of [`Wording::Named`], and for a
/// browser's blocked request of any engine.
fn describe_named(engine: EngineId, err: &ProbeError) -> Localized {
    let s = spec(engine);
    let (name, lower) = (s.name, s.name.to_lowercase());
    let (zh, en) = match err.kind {
        ErrorKind::Auth => match s.auth_hint {
            Some(hint) => (
                format!("{name} 的 API Key 无效或已失效：{}", hint.zh),
                format!("the {lower} api key is invalid or revoked: {}", hint.en),
            ),
            None => (
                format!("{name} 的 API Key 无效或已失效，请在设置中检查 Key"),
                format!("the {lower} api key is invalid or revoked; check it in settings"),
            ),
        },
        ErrorKind::Balance => (
            format!("{name} 账户余额或额度不足，请在其平台充值或提高额度后重试"),
            format!("the {lower} account is out of credit or quota; add credit on its platform, then retry"),
        ),
        ErrorKind::Forbidden => (
            format!("{name} 拒绝了请求，请确认该 Key 有权使用所选模型和接口"),
            format!("{lower} refused the request; check that the key may use the chosen model and endpoint"),
        ),
        ErrorKind::RateLimit => (
            format!("{name} 请求过于频繁（限流），请降低并发或稍后重试"),
            format!("{lower} rate limited the request; lower the concurrency or retry in a moment"),
        ),
        ErrorKind::Server => {
            (format!("{name} 服务端异常或过载，请稍后重试"), format!("{lower} server error or overload; retry in a moment"))
        }
        ErrorKind::Timeout => ("请求超时，请稍后重试".to_string(), "the request timed out; retry in a moment".to_string()),
        ErrorKind::Network if is_browser_block_message(&err.message) => (
            format!("无法从浏览器连接 {name}：它可能不允许浏览器直接调用（CORS）。请启动 geo-probe proxy 并在设置中开启“使用本地代理”，或为 {name} 填写代理 API 地址，或检查网络"),
            format!("{lower} could not be reached from the browser: it may not allow browser calls (cors); start geo-probe proxy and turn on the local proxy in settings, or set a proxy base url for {lower}, or check the connection"),
        ),
        ErrorKind::Network => (
            format!("网络错误，无法连接 {name}，请检查网络或 API 地址"),
            format!("network error, {lower} unreachable; check the connection or the api base url"),
        ),
        ErrorKind::InvalidJson => (
            format!("{name} 的响应无法解析，请检查 API 地址或代理设置"),
            format!("the {lower} response could not be read; check the api base url or proxy"),
        ),
        ErrorKind::Empty => ("模型返回了空回答，可重试该 Probe".to_string(), "the model returned an empty answer; retry the probe".to_string()),
        ErrorKind::Http => (
            format!("{name} 请求失败，请检查模型名称和 API 地址"),
            format!("the {lower} request failed; check the model name and the api base url"),
        ),
        ErrorKind::Refused => (
            format!("内容审核拒答：{name} 的内容审核拒绝回答该 Prompt，不会重试"),
            format!("refused by the engine's content filter: {lower} declined this prompt; it is not retried"),
        ),
    };
    with_status(err, zh, en)
}

#[cfg(test)]
mod tests {
    use super::super::kind::{map_http, no_own_codes};
    use super::super::transport::{engine_network_error, local_proxy_network_error, network_error, timeout_error};
    use super::*;
    use crate::provider::spec::Caller;

    /// `engine`'s mapping by the shared rules (the codes of its own change none of these).
    fn map(engine: EngineId, status: u16, body: &str) -> ProbeError {
        map_http(engine, no_own_codes, status, body)
    }

    #[test]
    fn the_local_proxys_own_refusals_and_silence_name_it() {
        let body = |m: &str| format!(r#"{{"error":{{"type":"geo_probe_proxy","message":"geo-probe proxy: {m}"}}}}"#);
        let token = map(EngineId::Qwen, 401, &body("missing or wrong x-geo-probe-proxy-token"));
        assert_eq!(token.kind, ErrorKind::Auth);
        let d = describe_engine_error(EngineId::Qwen, &token);
        assert!(
            d.en.starts_with("geo-probe proxy refused the request: its token") && d.en.ends_with("(http 401)"),
            "{}",
            d.en
        );
        assert!(d.zh.contains("token"), "{}", d.zh);
        let unserved = map(EngineId::Doubao, 404, &body("only POST on an engine's own path"));
        let d = describe_engine_error(EngineId::Doubao, &unserved);
        assert!(d.en.contains("ARK_API_KEY") && d.zh.contains("ARK_API_KEY"), "{}", d.en);
        let upstream = map(EngineId::Ernie, 502, &body("qianfan.baidubce.com did not answer"));
        assert!(describe_engine_error(EngineId::Ernie, &upstream).en.contains("see its terminal"));
        // The engine's own 401 is still the key's.
        let own = map(EngineId::Qwen, 401, r#"{"code":"InvalidApiKey","message":"Invalid API-key"}"#);
        assert!(!describe_engine_error(EngineId::Qwen, &own).en.contains("geo-probe proxy"));
        let silent = local_proxy_network_error(EngineId::Qwen, "http://127.0.0.1:8788", "Failed to fetch");
        assert_eq!((silent.kind, silent.http_status), (ErrorKind::Network, None));
        assert!(silent.message.contains("http://127.0.0.1:8788") && silent.message.contains("Failed to fetch"));
        for engine in EngineId::ALL {
            let d = describe_engine_error(engine, &silent);
            assert!(d.en.starts_with("geo-probe proxy did not answer") && d.zh.contains("--allow-origin"), "{}", d.en);
        }
    }

    #[test]
    fn a_browser_network_error_points_to_the_proxy_base_url() {
        for engine in EngineId::ALL {
            let e = engine_network_error(engine, Caller::Browser, "Failed to fetch");
            assert_eq!((e.kind, e.http_status), (ErrorKind::Network, None));
            assert!(e.message.contains("proxy base url") && e.message.contains("(cors)"), "{}", e.message);
            assert!(e.message.contains("Failed to fetch"));
            let d = describe_engine_error(engine, &e);
            assert!(d.zh.contains("CORS") && d.zh.contains("代理"), "{}", d.zh);
            assert!(d.en.contains("proxy base url") && d.en.contains("geo-probe proxy"), "{}", d.en);
            assert!(d.zh.contains("geo-probe proxy"), "{}", d.zh);
            let native = engine_network_error(engine, Caller::Native, "refused");
            assert!(!native.message.contains("cors"), "{}", native.message);
        }
        assert!(engine_network_error(EngineId::Gemini, Caller::Browser, "")
            .message
            .contains("may not allow calls from a browser"));
    }

    #[test]
    fn other_engines_are_named_in_descriptions() {
        let e = map(EngineId::Gemini, 429, "");
        let d = describe_engine_error(EngineId::Gemini, &e);
        assert!(d.zh.starts_with("Gemini") && d.zh.ends_with("（HTTP 429）"), "{}", d.zh);
        assert!(d.en.starts_with("gemini rate limited"), "{}", d.en);
        // The seed's engine keeps the seed's words.
        assert_eq!(
            describe_engine_error(EngineId::Deepseek, &e).en,
            "rate limited; lower the concurrency or retry in a moment (http 429)"
        );
    }

    #[test]
    fn described_errors_say_what_to_do_in_both_languages() {
        let balance = describe_engine_error(
            EngineId::Deepseek,
            &map(EngineId::Deepseek, 402, r#"{"error":{"message":"Insufficient Balance"}}"#),
        );
        assert_eq!(balance.zh, "DeepSeek 账户余额不足，请前往 DeepSeek 开放平台充值后重试（HTTP 402）");
        assert_eq!(
            balance.en,
            "insufficient balance on the deepseek account; top up on the deepseek platform, then retry (http 402)"
        );
        assert_eq!(
            describe_engine_error(EngineId::Deepseek, &timeout_error(crate::provider::spec::REQUEST_TIMEOUT_MS)).zh,
            "请求超时，请稍后重试"
        );
        assert_eq!(
            describe_engine_error(EngineId::Deepseek, &network_error("x")).en,
            "network error, deepseek unreachable; check the connection or the api base url"
        );
        let kinds = [
            ErrorKind::Auth,
            ErrorKind::Balance,
            ErrorKind::Forbidden,
            ErrorKind::RateLimit,
            ErrorKind::Server,
            ErrorKind::Timeout,
            ErrorKind::Network,
            ErrorKind::InvalidJson,
            ErrorKind::Empty,
            ErrorKind::Http,
        ];
        let mut seen = std::collections::HashSet::new();
        for kind in kinds {
            let d = describe_engine_error(
                EngineId::Deepseek,
                &ProbeError { kind, http_status: None, message: String::new() },
            );
            assert!(d.zh.contains('请') || d.zh.contains("可"), "{kind:?}: {}", d.zh);
            assert!(d.en.contains(';') && !d.en.ends_with('.'), "{kind:?}: {}", d.en);
            assert!(seen.insert(d.zh.clone()), "duplicate wording for {kind:?}");
        }
    }
}
