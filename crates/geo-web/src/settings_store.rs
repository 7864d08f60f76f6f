//! The application settings kept in IndexedDB's `settings` store that more than one module
//! reads: each engine's custom API base URL, under one key per engine, and the one way a
//! typed base URL is checked (geo-core's rule) before it is saved or used; the local proxy
//! (`geo-probe proxy`: on or off and its address, its token in Web Storage) and where each
//! engine's requests go ([`engine_route`], geo-core's `local_proxy::route`).
//!
//! A base URL whose query holds a secret (`?token=…`: geo-core's
//! `provider::url::is_secret_query_value`) is kept like the keys, in Web Storage
//! (`prefs::secret_base_url_for`), never in IndexedDB, where an export, a backup or any page
//! of the origin would find it (security review II, finding 2). [`read_base_url`] and
//! [`save_base_url`] are the one way in and out.
//!
//! The settings page writes these keys; the run page, the runner and the docs chat read them.

use crate::prefs::{self, KeyStorage};
use crate::repo::{RepoError, RepoResult, Repository};
use geo_core::model::{EngineId, Lang};
use geo_core::provider::local_proxy::{self, EngineRoute, LocalProxy};
use geo_core::provider::url::KeyError;
use geo_core::provider::BrowserAccess;

/// `engine`'s custom base URL: the secret-bearing one from Web Storage, else the setting.
pub async fn read_base_url(repo: &impl Repository, engine: EngineId) -> RepoResult<Option<String>> {
    if let Some(secret) = prefs::secret_base_url_for(engine) {
        return Ok(Some(secret));
    }
    let value = repo.setting(&base_url_setting(engine)).await?;
    Ok(value.and_then(|v| v.as_str().map(str::to_string)).filter(|s| !s.trim().is_empty()))
}

/// Whether a checked base URL holds a secret in its query.
pub fn holds_secret(base: &str) -> bool {
    geo_core::provider::url::parse_base_url(base).ok().flatten().is_some_and(|b| !b.secrets().is_empty())
}

/// Saves `engine`'s base URL (checked by [`parse_base_url`]; `None` clears it): one holding a
/// secret goes to Web Storage (`storage`, the keys' choice) and leaves IndexedDB; any other
/// goes to IndexedDB and leaves Web Storage.
pub async fn save_base_url(
    repo: &impl Repository,
    engine: EngineId,
    base: Option<String>,
    storage: KeyStorage,
) -> RepoResult<()> {
    let secret = base.as_deref().filter(|b| holds_secret(b));
    prefs::save_secret_base_url(engine, secret, storage).map_err(RepoError::Write)?;
    let plain = base.filter(|b| !holds_secret(b)).map(serde_json::Value::String);
    repo.set_setting(&base_url_setting(engine), plain).await
}

/// Settings key of the local proxy (`geo-probe proxy`): `{"enabled": bool, "url": "http://127.0.0.1:8788"}`.
/// Its token is kept like a key, in Web Storage ([`prefs::proxy_token`]).
pub const LOCAL_PROXY_SETTING: &str = "localProxy";

/// The local proxy as saved: whether it is on and its address (checked when saved; the
/// default address when none was saved).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProxySettings {
    /// "Use a local proxy" is ticked.
    pub enabled: bool,
    /// The proxy's address.
    pub url: String,
}

/// The local proxy's saved settings.
pub async fn read_proxy_settings(repo: &impl Repository) -> RepoResult<ProxySettings> {
    let value = repo.setting(LOCAL_PROXY_SETTING).await?.unwrap_or_default();
    let url = value.get("url").and_then(|u| u.as_str()).and_then(|u| local_proxy::parse_proxy_url(u).ok());
    Ok(ProxySettings {
        enabled: value.get("enabled").and_then(|e| e.as_bool()).unwrap_or(false),
        url: url.unwrap_or_else(|| local_proxy::DEFAULT_URL.to_string()),
    })
}

/// Saves the local proxy's settings (`url` already checked; off at the default address
/// removes the setting) and its token (in `storage`, the keys' choice; blank removes it).
pub async fn save_proxy_settings(
    repo: &impl Repository,
    settings: &ProxySettings,
    token: &str,
    storage: KeyStorage,
) -> RepoResult<()> {
    prefs::save_proxy_token(token, storage).map_err(RepoError::Write)?;
    // Off at the default address is what nothing saved reads as: nothing is stored.
    let unused = !settings.enabled && settings.url == local_proxy::DEFAULT_URL;
    let value = serde_json::json!({ "enabled": settings.enabled, "url": settings.url });
    repo.set_setting(LOCAL_PROXY_SETTING, (!unused).then_some(value)).await
}

/// The local proxy with its token when "use a local proxy" is on, else `None`.
pub async fn read_local_proxy(repo: &impl Repository) -> RepoResult<Option<LocalProxy>> {
    let settings = read_proxy_settings(repo).await?;
    Ok(settings.enabled.then(|| LocalProxy { url: settings.url, token: prefs::proxy_token().unwrap_or_default() }))
}

/// Where `engine`'s requests go with `key` (the saved one, or one typed on the settings page),
/// its saved base URL and the local proxy (geo-core's one rule, `local_proxy::route`); the
/// error, in `lang`, names the engine and what to set.
pub async fn engine_route(
    repo: &impl Repository,
    engine: EngineId,
    key: Option<&str>,
    lang: Lang,
) -> Result<EngineRoute, String> {
    let base = read_base_url(repo, engine).await.map_err(|e| e.message(lang))?;
    let proxy = read_local_proxy(repo).await.map_err(|e| e.message(lang))?;
    route_of(engine, key, base.as_deref(), proxy.as_ref(), lang)
}

/// [`engine_route`] of values at hand: the base URL as typed (checked here) and the proxy.
pub fn route_of(
    engine: EngineId,
    key: Option<&str>,
    base: Option<&str>,
    proxy: Option<&LocalProxy>,
    lang: Lang,
) -> Result<EngineRoute, String> {
    let name = geo_core::provider::spec(engine).name;
    let checked = geo_core::provider::url::parse_base_url(base.unwrap_or(""))
        .map_err(|e| format!("{name}: {}", e.localized().get(lang)))?;
    local_proxy::route(engine, key, checked.as_ref(), proxy).map_err(|e| match e {
        KeyError::Missing if geo_core::provider::spec(engine).browser == BrowserAccess::Proxy => {
            crate::i18n::tf(lang, "run.need_proxy_engine", &[("engine", name)])
        }
        KeyError::Missing => crate::i18n::tf(lang, "run.need_key_engine", &[("engine", name)]),
        e => format!("{name}: {}", e.localized().get(lang)),
    })
}

/// Settings key of DeepSeek's custom API base URL (a JSON string).
pub const BASE_URL_SETTING: &str = "baseUrl";

/// Settings key of `engine`'s custom API base URL: [`BASE_URL_SETTING`] for DeepSeek,
/// `baseUrl.ENGINE` for the others.
pub fn base_url_setting(engine: EngineId) -> String {
    match engine {
        EngineId::Deepseek => BASE_URL_SETTING.to_string(),
        other => format!("{BASE_URL_SETTING}.{}", other.as_str()),
    }
}

/// A base URL as typed, checked by geo-core's one rule ([`geo_core::provider::url::parse_base_url`]:
/// http(s) with a host, no `user:password@`, no spaces, at most 2 KiB), then kept trimmed with
/// trailing slashes dropped; `Ok(None)` when empty, else the refusal in `lang`.
pub fn parse_base_url(input: &str, lang: Lang) -> Result<Option<String>, String> {
    match geo_core::provider::url::parse_base_url(input) {
        Ok(None) => Ok(None),
        Ok(Some(_)) => Ok(Some(input.trim().trim_end_matches('/').to_string())),
        Err(e) => Err(e.localized().get(lang).to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn check(input: &str, expect: Result<Option<&str>, ()>) {
        let got = parse_base_url(input, Lang::En);
        assert_eq!(
            got.map(|o| o.map(|s| s.to_string())).map_err(|_| ()),
            expect.map(|o| o.map(String::from)),
            "{input}"
        );
    }

    #[test]
    fn base_urls() {
        // Finding 4: credentials in the base URL are refused, and the message never repeats them.
        let e = parse_base_url("https://user:s3cret-pass@proxy.example.com", Lang::En).unwrap_err();
        assert!(e.contains("user:pass@") && !e.contains("s3cret"), "{e}");
        check("https://proxy.example.com/v1?key=x", Ok(Some("https://proxy.example.com/v1?key=x")));
        check("", Ok(None));
        check("  https://proxy.example.com/ ", Ok(Some("https://proxy.example.com")));
        check("http://127.0.0.1:8787", Ok(Some("http://127.0.0.1:8787")));
        check("ftp://x", Err(()));
        check("proxy.example.com", Err(()));
        check("https://", Err(()));
    }

    /// Security review II, finding 2: only a base URL with a secret in its query is kept out
    /// of IndexedDB.
    #[test]
    fn base_urls_with_a_secret_are_kept_like_keys() {
        assert!(holds_secret("https://proxy.example.com/v1?token=abc1"));
        assert!(holds_secret("https://proxy.example.com/?alt=json&key=k-1"));
        assert!(!holds_secret("https://proxy.example.com/v1beta?alt=json"));
        assert!(!holds_secret("http://127.0.0.1:8787"));
        assert!(!holds_secret("not a url"));
        assert_eq!(crate::prefs::secret_base_name(EngineId::Gemini), "geo-probe.baseUrl.gemini");
    }

    /// The run page, the runner and the key tests route every engine the same way: its key,
    /// its own base URL, then the local proxy; an engine that needs the proxy says so.
    #[test]
    fn engines_without_key_or_base_go_through_the_local_proxy_when_it_is_on() {
        let proxy = LocalProxy { url: "http://127.0.0.1:8788".into(), token: "tok".into() };
        let r = route_of(EngineId::Qwen, None, Some(""), Some(&proxy), Lang::En).unwrap();
        assert_eq!((r.base(), r.token()), (Some("http://127.0.0.1:8788/qwen"), Some("tok")));
        let r = route_of(EngineId::Openai, Some("sk-1"), None, Some(&proxy), Lang::En).unwrap();
        assert_eq!((r.base(), r.key(), r.token()), (None, Some("sk-1"), None));
        let r = route_of(EngineId::Doubao, None, Some("http://127.0.0.1:9"), Some(&proxy), Lang::En).unwrap();
        assert_eq!((r.base(), r.token()), (Some("http://127.0.0.1:9/"), None));
        let qwen = route_of(EngineId::Qwen, None, None, None, Lang::En).unwrap_err();
        assert!(qwen.contains("Qwen") && qwen.contains("geo-probe proxy"), "{qwen}");
        let openai = route_of(EngineId::Openai, None, None, None, Lang::Zh).unwrap_err();
        assert!(openai.contains("ChatGPT") || openai.contains("OpenAI"), "{openai}");
        assert!(!openai.contains("geo-probe proxy"), "{openai}");
        let bad = route_of(EngineId::Qwen, None, Some("https://u:p@x.example"), Some(&proxy), Lang::En).unwrap_err();
        assert!(bad.starts_with("Qwen:") && !bad.contains(":p@"), "{bad}");
    }

    /// The proxy's address and whether it is on are settings; a stored address that no longer
    /// passes the check reads as the default, and nothing saved reads as off.
    #[test]
    fn proxy_settings_round_trip() {
        use crate::repo::memory::MemoryRepo;
        use crate::repo::test_support::block_on;
        let repo = MemoryRepo::new();
        let off = block_on(read_proxy_settings(&repo)).unwrap();
        assert_eq!(off, ProxySettings { enabled: false, url: local_proxy::DEFAULT_URL.into() });
        // (The token's side is Web Storage, which only a browser has: the browser test.)
        let on = ProxySettings { enabled: true, url: "http://127.0.0.1:9100".into() };
        block_on(repo.set_setting(LOCAL_PROXY_SETTING, Some(serde_json::json!({"enabled": true, "url": on.url}))))
            .unwrap();
        assert_eq!(block_on(read_proxy_settings(&repo)).unwrap(), on);
        block_on(repo.set_setting(
            LOCAL_PROXY_SETTING,
            Some(serde_json::json!({"enabled": true, "url": "http://evil.example"})),
        ))
        .unwrap();
        assert_eq!(block_on(read_proxy_settings(&repo)).unwrap().url, local_proxy::DEFAULT_URL);
    }

    #[test]
    fn every_engine_has_its_own_key_and_deepseek_keeps_the_original() {
        assert_eq!(base_url_setting(EngineId::Deepseek), "baseUrl");
        assert_eq!(base_url_setting(EngineId::Openai), "baseUrl.openai");
        let keys: std::collections::BTreeSet<String> = EngineId::ALL.iter().map(|e| base_url_setting(*e)).collect();
        assert_eq!(keys.len(), EngineId::ALL.len());
    }
}
