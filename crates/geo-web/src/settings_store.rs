//! The application settings kept in IndexedDB's `settings` store that more than one module
//! reads: each engine's custom API base URL, under one key per engine, and the one way a
//! typed base URL is checked (geo-core's rule) before it is saved or used.
//!
//! The settings page writes these keys; the run page, the runner and the docs chat read them.

use geo_core::model::{EngineId, Lang};

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

    #[test]
    fn every_engine_has_its_own_key_and_deepseek_keeps_the_original() {
        assert_eq!(base_url_setting(EngineId::Deepseek), "baseUrl");
        assert_eq!(base_url_setting(EngineId::Openai), "baseUrl.openai");
        let keys: std::collections::BTreeSet<String> = EngineId::ALL.iter().map(|e| base_url_setting(*e)).collect();
        assert_eq!(keys.len(), EngineId::ALL.len());
    }
}
