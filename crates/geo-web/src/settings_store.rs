//! The application settings kept in IndexedDB's `settings` store that more than one module
//! reads: each engine's custom API base URL, under one key per engine, and the one way a
//! typed base URL is checked (geo-core's rule) before it is saved or used.
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

    #[test]
    fn every_engine_has_its_own_key_and_deepseek_keeps_the_original() {
        assert_eq!(base_url_setting(EngineId::Deepseek), "baseUrl");
        assert_eq!(base_url_setting(EngineId::Openai), "baseUrl.openai");
        let keys: std::collections::BTreeSet<String> = EngineId::ALL.iter().map(|e| base_url_setting(*e)).collect();
        assert_eq!(keys.len(), EngineId::ALL.len());
    }
}
