//! Endpoint and headers of the Messages request (seed §4.1).
//!
//! The user may point GEO Probe at a proxy: an empty base means DeepSeek itself, a base
//! that already names the Messages path is used verbatim, anything else gets the path
//! appended. Without an API key the request carries no `x-api-key` (proxy mode: the proxy
//! adds its own credentials).

/// DeepSeek's API origin, used when the user sets no custom base URL.
pub const DEFAULT_API_BASE_URL: &str = "https://api.deepseek.com";

/// Path of the Anthropic-compatible Messages endpoint, appended to a base URL.
pub const MESSAGES_PATH: &str = "/anthropic/v1/messages";

/// Value of the `anthropic-version` header (DeepSeek ignores it; Anthropic proxies need it).
pub const ANTHROPIC_VERSION: &str = "2023-06-01";

/// The full Messages URL for an optional custom base.
///
/// - empty or whitespace-only (or absent) → `DEFAULT_API_BASE_URL` + `MESSAGES_PATH`;
/// - already ending with `/anthropic/v1/messages` → used as is (trimmed);
/// - otherwise the path is appended, without doubling a trailing `/` of the base.
pub fn build_messages_url(custom_base: Option<&str>) -> String {
    let base = custom_base.map(str::trim).unwrap_or("");
    if base.is_empty() {
        return format!("{DEFAULT_API_BASE_URL}{MESSAGES_PATH}");
    }
    if base.ends_with(MESSAGES_PATH) {
        return base.to_string();
    }
    format!("{}{MESSAGES_PATH}", base.trim_end_matches('/'))
}

/// Headers of every Messages request, in a stable order.
///
/// `content-type` and `anthropic-version` always; `x-api-key` only for a key that is not
/// blank (the key is trimmed, since pasted keys often carry a newline).
pub fn request_headers(api_key: Option<&str>) -> Vec<(&'static str, String)> {
    let mut headers =
        vec![("content-type", "application/json".to_string()), ("anthropic-version", ANTHROPIC_VERSION.to_string())];
    if let Some(key) = api_key.map(str::trim).filter(|k| !k.is_empty()) {
        headers.push(("x-api-key", key.to_string()));
    }
    headers
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn check(base: Option<&str>, expect: &str) {
        assert_eq!(build_messages_url(base), expect, "base {base:?}");
    }

    #[test]
    fn messages_url_follows_the_three_rules() {
        let default = "https://api.deepseek.com/anthropic/v1/messages";
        // Rule 1: empty or blank → default.
        check(None, default);
        check(Some(""), default);
        check(Some("   \n"), default);
        // Rule 2: already the messages path → as is.
        check(
            Some("https://proxy.example.com/anthropic/v1/messages"),
            "https://proxy.example.com/anthropic/v1/messages",
        );
        check(Some(" https://api.deepseek.com/anthropic/v1/messages "), default);
        check(Some("http://127.0.0.1:8787/x/anthropic/v1/messages"), "http://127.0.0.1:8787/x/anthropic/v1/messages");
        // Rule 3: append, no double slash.
        check(Some("https://api.deepseek.com"), default);
        check(Some("https://api.deepseek.com/"), default);
        check(Some("https://api.deepseek.com//"), default);
        check(Some("http://127.0.0.1:8787"), "http://127.0.0.1:8787/anthropic/v1/messages");
        check(Some("https://gw.example.com/deepseek/"), "https://gw.example.com/deepseek/anthropic/v1/messages");
        // A base ending in /anthropic (the SDK-style base) still gets the full path appended.
        check(Some("https://api.deepseek.com/anthropic"), "https://api.deepseek.com/anthropic/anthropic/v1/messages");
    }

    #[test]
    fn headers_carry_the_key_only_when_given() {
        let names = |h: &[(&'static str, String)]| h.iter().map(|(n, _)| *n).collect::<Vec<_>>();
        let with = request_headers(Some(" sk-abc\n"));
        assert_eq!(names(&with), ["content-type", "anthropic-version", "x-api-key"]);
        assert_eq!(with[0].1, "application/json");
        assert_eq!(with[1].1, "2023-06-01");
        assert_eq!(with[2].1, "sk-abc");
        for proxy in [None, Some(""), Some("  ")] {
            assert_eq!(names(&request_headers(proxy)), ["content-type", "anthropic-version"], "{proxy:?}");
        }
    }
}
