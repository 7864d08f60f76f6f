//! Where a request goes and how it proves who sends it (seed §4.1, `shared/spec/engines.md`
//! "Base URL rule"): the one base-URL rule and the one key-or-proxy rule, for every engine,
//! the docs chat and both shells.
//!
//! - [`parse_base_url`] checks what the user typed as a custom base URL: empty means "the
//!   engine's own", otherwise an `http`/`https` URL with a host and **no user name or
//!   password** (credentials in a URL end up in logs and error messages; a proxy's secret
//!   belongs in the key setting or the proxy itself). A query string is allowed and kept.
//! - [`endpoint_url`] builds the request URL with `url::Url`: a base whose path already
//!   ends with the engine's path is used as is, otherwise the path is appended to the
//!   base's path (never after its query string), without doubling a `/`.
//! - [`check_key`] / [`auth_mode`] check the key once, before any request: it is trimmed,
//!   and a character that cannot travel in an HTTP header (a newline inside it, a
//!   zero-width space that `trim` keeps, any non-ASCII or control character) is a clear
//!   error that names the character and its position, never the key. Without a key, a
//!   custom base URL means proxy mode (no auth header); without either there is nothing
//!   to send.
//!
//! [`BaseUrl`] and [`ApiKey`] print neither the query string nor the key in `Debug`, and
//! [`BaseUrl::host_for_messages`] is all of a base URL an error message may show.

use std::fmt;

/// The URL type every request URL is built with (re-exported so the shells build and read
/// URLs with the same crate).
pub use url::Url;

use crate::limits::{MAX_BASE_URL_BYTES, MAX_KEY_CHARS};
use crate::model::Localized;

/// A custom base URL that passed [`parse_base_url`].
#[derive(Clone, PartialEq, Eq)]
pub struct BaseUrl(Url);

impl BaseUrl {
    /// The URL as stored and shown in the settings (query string included).
    pub fn as_str(&self) -> &str {
        self.0.as_str()
    }

    /// The parsed URL.
    pub fn url(&self) -> &Url {
        &self.0
    }

    /// `scheme://host[:port]`: the only part of a base URL an error message shows.
    pub fn host_for_messages(&self) -> String {
        host_for_messages(&self.0)
    }

    /// The query values that look like a proxy's secret ([`is_secret_query_value`]), and the
    /// whole query when it holds one: what a [`crate::safe::Redactor`] removes from messages
    /// and records. Ordinary values (`?alt=json`, `?api-version=2025-04-01-preview`) are not
    /// secrets, so redaction never eats the words `json` or a date in an answer.
    pub fn secrets(&self) -> Vec<String> {
        let mut out: Vec<String> = self
            .0
            .query_pairs()
            .filter(|(name, value)| is_secret_query_value(name, value))
            .map(|(_, v)| v.into_owned())
            .collect();
        if !out.is_empty() {
            out.extend(self.0.query().map(str::to_string));
        }
        out
    }
}

impl fmt::Debug for BaseUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "BaseUrl({}…)", self.host_for_messages())
    }
}

/// Words that name a secret in a query parameter's name (`api_key`, `access_token`,
/// `client_secret`, `sig`, `X-Amz-Signature`, `auth`, `password`, `pwd`, `credential`).
pub const SECRET_NAME_PARTS: &[&str] = &["key", "token", "secret", "sig", "auth", "pass", "pwd", "credential"];

/// Shortest run of letters and digits that may be taken for a secret by its look alone.
pub const MIN_UNNAMED_SECRET_CHARS: usize = 16;

/// Whether a query parameter of a base URL holds a secret: its name says so
/// ([`SECRET_NAME_PARTS`]), or its value looks like a random token — a run of at least
/// [`MIN_UNNAMED_SECRET_CHARS`] letters and digits (between `-_.~+/=` and the ends) that has
/// both, with at least 3 bits of entropy a character. `alt=json`, `api-version=
/// 2025-04-01-preview`, `model=gemini-2.5-flash-preview-05-20` are not secrets; `token=abc1`
/// and `x=3f9a0c2e7b1d4f6a8c0e2b4d6f8a` are.
pub fn is_secret_query_value(name: &str, value: &str) -> bool {
    let name = name.to_ascii_lowercase();
    SECRET_NAME_PARTS.iter().any(|part| name.contains(part))
        || value.split(|c: char| !c.is_alphanumeric()).any(looks_random)
}

/// A run of letters and digits that reads as a random token (see [`is_secret_query_value`]).
fn looks_random(run: &str) -> bool {
    let n = run.chars().count();
    if n < MIN_UNNAMED_SECRET_CHARS || !run.chars().any(char::is_alphabetic) || !run.chars().any(|c| c.is_ascii_digit())
    {
        return false;
    }
    let mut counts: rustc_hash::FxHashMap<char, u32> = rustc_hash::FxHashMap::default();
    for c in run.chars() {
        *counts.entry(c).or_insert(0) += 1;
    }
    let n = n as f64;
    let entropy: f64 = counts.values().map(|&c| f64::from(c) / n).map(|p| -p * p.log2()).sum();
    entropy >= 3.0
}

/// `scheme://host[:port]` of any URL (no path, no query, no credentials).
pub fn host_for_messages(url: &Url) -> String {
    let host = url.host_str().unwrap_or("");
    match url.port() {
        Some(port) => format!("{}://{host}:{port}", url.scheme()),
        None => format!("{}://{host}", url.scheme()),
    }
}

/// Why a custom base URL was refused. The messages never repeat what was typed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BaseUrlError {
    /// Not a URL at all.
    Invalid,
    /// Spaces or control characters inside it.
    Whitespace,
    /// A scheme other than `http`/`https`.
    Scheme,
    /// No host name.
    NoHost,
    /// `user:password@` in it.
    Userinfo,
    /// Longer than [`MAX_BASE_URL_BYTES`].
    TooLong,
}

impl BaseUrlError {
    /// The message in both interface languages.
    pub fn localized(&self) -> Localized {
        match self {
            BaseUrlError::Invalid => Localized::new(
                "API 地址不是有效的网址，请填写形如 https://proxy.example.com 的地址",
                "the api base url is not a valid url; give one like https://proxy.example.com",
            ),
            BaseUrlError::Whitespace => Localized::new(
                "API 地址含有空格或控制字符，请重新粘贴",
                "the api base url contains spaces or control characters; paste it again",
            ),
            BaseUrlError::Scheme => Localized::new(
                "API 地址必须以 http:// 或 https:// 开头",
                "the api base url must start with http:// or https://",
            ),
            BaseUrlError::NoHost => Localized::new(
                "API 地址缺少主机名，请填写形如 https://proxy.example.com 的地址",
                "the api base url has no host name; give one like https://proxy.example.com",
            ),
            BaseUrlError::Userinfo => Localized::new(
                "API 地址不能包含用户名或密码（user:pass@），请把密钥填在 API Key 中，或由代理自行添加",
                "the api base url must not contain a user name or password (user:pass@); put the secret in the api key, or let the proxy add it",
            ),
            BaseUrlError::TooLong => Localized::new(
                format!("API 地址超过 {MAX_BASE_URL_BYTES} 字节，请检查粘贴的内容"),
                format!("the api base url is longer than {MAX_BASE_URL_BYTES} bytes; check what was pasted"),
            ),
        }
    }
}

crate::model::localized_error!(BaseUrlError);

/// Checks a custom base URL as typed (see the module doc). `Ok(None)`: empty or blank,
/// meaning the engine's default base.
pub fn parse_base_url(input: &str) -> Result<Option<BaseUrl>, BaseUrlError> {
    let s = input.trim();
    if s.is_empty() {
        return Ok(None);
    }
    if s.len() > MAX_BASE_URL_BYTES {
        return Err(BaseUrlError::TooLong);
    }
    if s.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(BaseUrlError::Whitespace);
    }
    // The url crate would take `proxy.example.com:8080` as scheme `proxy.example.com`.
    let lower = s.to_ascii_lowercase();
    if !(lower.starts_with("http://") || lower.starts_with("https://")) {
        return Err(if s.contains("://") { BaseUrlError::Scheme } else { BaseUrlError::Invalid });
    }
    let mut url = Url::parse(s).map_err(|e| match e {
        url::ParseError::EmptyHost => BaseUrlError::NoHost,
        _ => BaseUrlError::Invalid,
    })?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(BaseUrlError::Scheme);
    }
    if url.host_str().is_none_or(str::is_empty) {
        return Err(BaseUrlError::NoHost);
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(BaseUrlError::Userinfo);
    }
    url.set_fragment(None);
    Ok(Some(BaseUrl(url)))
}

/// The request URL: `path` appended to `base` (or to `default_base` when there is no
/// custom base), unless the base's path already ends with `path`.
///
/// `default_base` must be one of the engines' constant origins.
pub fn endpoint_url(base: Option<&BaseUrl>, default_base: &str, path: &str) -> Url {
    endpoint_url_with(base, default_base, path, |url| url.path().ends_with(path))
}

/// [`endpoint_url`] with the engine's own "the base already names the endpoint" test (for
/// example Gemini's: the path contains `:generateContent`, whatever the model).
pub fn endpoint_url_with(
    base: Option<&BaseUrl>,
    default_base: &str,
    path: &str,
    names_endpoint: impl Fn(&Url) -> bool,
) -> Url {
    let mut url = match base {
        Some(b) => b.0.clone(),
        // The engines' default bases are constants that a unit test parses.
        None => Url::parse(default_base).expect("an engine's default base url is a valid url"),
    };
    if base.is_some() && names_endpoint(&url) {
        return url;
    }
    let joined = format!("{}{path}", url.path().trim_end_matches('/'));
    url.set_path(&joined);
    url
}

/// A checked API key: trimmed, 1..=[`MAX_KEY_CHARS`] visible ASCII characters. `Debug`
/// never shows it.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

impl ApiKey {
    /// The key itself, for the one header that carries it.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ApiKey(…)")
    }
}

/// How requests authenticate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeyMode {
    /// The key travels in the engine's auth header.
    Key(ApiKey),
    /// A custom base URL without a key: no auth header, the proxy adds its own credentials.
    Proxy,
}

impl KeyMode {
    /// The key, `None` in proxy mode.
    pub fn key(&self) -> Option<&str> {
        match self {
            KeyMode::Key(k) => Some(k.expose()),
            KeyMode::Proxy => None,
        }
    }
}

/// Why a key cannot be used. The messages never contain the key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeyError {
    /// Neither a key nor a custom base URL.
    Missing,
    /// A character that cannot be sent in an HTTP header.
    BadCharacter {
        /// 1-based position among the trimmed key's characters.
        position: usize,
        /// The character's code point.
        code_point: u32,
    },
    /// Longer than [`MAX_KEY_CHARS`].
    TooLong {
        /// Characters in the trimmed key.
        chars: usize,
    },
}

/// A name for a character that may not be in a key (never the key's own characters:
/// only ones that are invalid in it).
fn describe_char(c: char) -> (&'static str, &'static str) {
    match c {
        '\u{200B}' => ("零宽空格", "a zero-width space"),
        '\u{200C}' | '\u{200D}' | '\u{2060}' | '\u{FEFF}' => ("零宽字符", "a zero-width character"),
        '\u{00A0}' | '\u{3000}' | ' ' => ("空格", "a space"),
        c if c.is_control() => ("控制字符（如换行）", "a control character such as a line break"),
        c if c.is_whitespace() => ("空白字符", "a space character"),
        _ => ("非 ASCII 字符", "a non-ASCII character"),
    }
}

impl KeyError {
    /// The message in both interface languages.
    pub fn localized(&self) -> Localized {
        match self {
            KeyError::Missing => Localized::new(
                "未设置 API Key：请填写 Key，或设置由代理自行鉴权的自定义 API 地址",
                "no api key is set; set the key, or a custom api base url of a proxy that adds its own credentials",
            ),
            KeyError::BadCharacter { position, code_point } => {
                let c = char::from_u32(*code_point).unwrap_or('\u{FFFD}');
                let (zh, en) = describe_char(c);
                Localized::new(
                    format!("API Key 第 {position} 个字符是{zh}（U+{code_point:04X}），无法发送；请重新粘贴 Key"),
                    format!(
                        "the api key holds {en} (U+{code_point:04X}) at character {position}, which cannot be sent; paste the key again"
                    ),
                )
            }
            KeyError::TooLong { chars } => Localized::new(
                format!("API Key 有 {chars} 个字符，超过 {MAX_KEY_CHARS} 的上限；请检查粘贴的内容"),
                format!(
                    "the api key has {chars} characters, more than the limit of {MAX_KEY_CHARS}; check what was pasted"
                ),
            ),
        }
    }
}

crate::model::localized_error!(KeyError);

/// Checks a key as pasted: trimmed; blank → `Ok(None)`; otherwise only visible ASCII
/// (`!`..=`~`) and at most [`MAX_KEY_CHARS`] characters.
pub fn check_key(raw: &str) -> Result<Option<ApiKey>, KeyError> {
    let key = raw.trim();
    if key.is_empty() {
        return Ok(None);
    }
    if let Some((i, c)) = key.chars().enumerate().find(|(_, c)| !c.is_ascii_graphic()) {
        return Err(KeyError::BadCharacter { position: i + 1, code_point: u32::from(c) });
    }
    if key.len() > MAX_KEY_CHARS {
        return Err(KeyError::TooLong { chars: key.len() });
    }
    Ok(Some(ApiKey(key.to_string())))
}

/// The key-or-proxy rule: a usable key → [`KeyMode::Key`]; no key but a custom base URL →
/// [`KeyMode::Proxy`]; neither → [`KeyError::Missing`]. A key with a bad character is an
/// error even with a base URL: the user meant to send it.
pub fn auth_mode(key: Option<&str>, base: Option<&BaseUrl>) -> Result<KeyMode, KeyError> {
    match check_key(key.unwrap_or(""))? {
        Some(k) => Ok(KeyMode::Key(k)),
        None if base.is_some() => Ok(KeyMode::Proxy),
        None => Err(KeyError::Missing),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base_urls_are_checked() {
        let ok = |s: &str| parse_base_url(s).unwrap().map(|b| b.as_str().to_string());
        assert_eq!(ok(""), None);
        assert_eq!(ok("  "), None);
        assert_eq!(ok(" https://proxy.example.com/ ").as_deref(), Some("https://proxy.example.com/"));
        assert_eq!(ok("HTTP://127.0.0.1:8787").as_deref(), Some("http://127.0.0.1:8787/"));
        let err = |s: &str| parse_base_url(s).unwrap_err();
        assert_eq!(err("ftp://x.example"), BaseUrlError::Scheme);
        assert_eq!(err("javascript:alert(1)"), BaseUrlError::Invalid);
        assert_eq!(err("proxy.example.com"), BaseUrlError::Invalid);
        assert_eq!(err("proxy.example.com:8080"), BaseUrlError::Invalid);
        assert_eq!(err("https://"), BaseUrlError::NoHost);
        assert_eq!(err("https://user:PASS@proxy.example.com"), BaseUrlError::Userinfo);
        assert_eq!(err("https://user@proxy.example.com"), BaseUrlError::Userinfo);
        assert_eq!(err("https://:PASS@proxy.example.com"), BaseUrlError::Userinfo);
        assert_eq!(err("https://proxy.example.com/a b"), BaseUrlError::Whitespace);
        assert_eq!(err("https://proxy.example.com/\u{7}"), BaseUrlError::Whitespace);
        assert_eq!(err(&format!("https://a.example/{}", "x".repeat(MAX_BASE_URL_BYTES))), BaseUrlError::TooLong);
        for e in [BaseUrlError::Userinfo, BaseUrlError::Invalid] {
            assert!(!e.to_string().contains("PASS"));
        }
    }

    #[test]
    fn a_base_url_shows_only_its_host_in_messages() {
        let b = parse_base_url("https://gw.example.com:8443/deep/seek?key=SECRET").unwrap().unwrap();
        assert_eq!(b.host_for_messages(), "https://gw.example.com:8443");
        assert!(!format!("{b:?}").contains("SECRET"));
        assert!(b.secrets().iter().any(|s| s == "SECRET"));
    }

    #[track_caller]
    fn check_secrets(base: &str, expect: &[&str]) {
        let b = parse_base_url(base).unwrap().unwrap();
        assert_eq!(b.secrets(), expect, "{base}");
    }

    /// Security review II, finding 2: ordinary query values are not secrets.
    #[test]
    fn only_secret_looking_query_values_are_secrets() {
        check_secrets("https://gw.example/v1beta?alt=json", &[]);
        check_secrets("https://res.openai.azure.com/openai?api-version=2025-04-01-preview", &[]);
        check_secrets("https://gw.example/?region=europe-west&mode=fast&n=3", &[]);
        check_secrets("https://gw.example/?alt=json&token=abc1", &["abc1", "alt=json&token=abc1"]);
        check_secrets("https://gw.example/?key=k-123456", &["k-123456", "key=k-123456"]);
        check_secrets("https://gw.example/?X-Amz-Signature=f00d", &["f00d", "X-Amz-Signature=f00d"]);
        check_secrets(
            "https://gw.example/?access_token=t&pwd=hunter22",
            &["t", "hunter22", "access_token=t&pwd=hunter22"],
        );
        check_secrets(
            "https://gw.example/?x=3f9a0c2e7b1d4f6a8c0e2b4d6f8a",
            &["3f9a0c2e7b1d4f6a8c0e2b4d6f8a", "x=3f9a0c2e7b1d4f6a8c0e2b4d6f8a"],
        );
        check_secrets(
            "https://gw.example/?jwt=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln",
            &["eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln", "jwt=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln"],
        );
        // Long but plain: versions, model names, a letter repeated.
        check_secrets("https://gw.example/?v=2025-04-01-preview-2025-04-01", &[]);
        check_secrets("https://gw.example/?model=gemini-2.5-flash-preview-05-20", &[]);
        check_secrets("https://gw.example/?name=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa1", &[]);
    }

    #[test]
    fn engines_may_bring_their_own_default_path_and_endpoint_test() {
        let gemini = "/v1beta/models/gemini-2.5-flash:generateContent";
        let default = endpoint_url(None, "https://generativelanguage.googleapis.com", gemini);
        assert_eq!(
            default.as_str(),
            "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent"
        );
        let named = parse_base_url("https://gw.example/v1beta/models/other:generateContent?alt=json").unwrap();
        let url = endpoint_url_with(named.as_ref(), "https://unused.example", gemini, |u| {
            u.path().contains(":generateContent")
        });
        assert_eq!(url.as_str(), "https://gw.example/v1beta/models/other:generateContent?alt=json");
    }

    #[test]
    fn keys_are_checked_before_any_request() {
        assert_eq!(check_key("  \n"), Ok(None));
        assert_eq!(check_key(" sk-abc\n").unwrap().unwrap().expose(), "sk-abc");
        let bad = check_key("sk-abc\u{200B}").unwrap_err();
        assert_eq!(bad, KeyError::BadCharacter { position: 7, code_point: 0x200B });
        assert!(bad.to_string().contains("zero-width space"), "{bad}");
        assert!(!bad.to_string().contains("sk-abc"));
        assert_eq!(check_key("sk-a\nbc").unwrap_err(), KeyError::BadCharacter { position: 5, code_point: 0x0A });
        assert_eq!(check_key("sk ab").unwrap_err(), KeyError::BadCharacter { position: 3, code_point: 0x20 });
        assert_eq!(check_key("sk-é").unwrap_err(), KeyError::BadCharacter { position: 4, code_point: 0xE9 });
        assert_eq!(check_key(&"k".repeat(MAX_KEY_CHARS + 1)).unwrap_err(), KeyError::TooLong { chars: 513 });
        assert!(!format!("{:?}", check_key("sk-secret").unwrap()).contains("secret"));
    }

    #[test]
    fn key_or_proxy() {
        let base = parse_base_url("http://127.0.0.1:8787").unwrap();
        assert_eq!(auth_mode(None, None), Err(KeyError::Missing));
        assert_eq!(auth_mode(Some(" "), None), Err(KeyError::Missing));
        assert_eq!(auth_mode(None, base.as_ref()), Ok(KeyMode::Proxy));
        assert_eq!(auth_mode(Some("sk-1"), None).unwrap().key(), Some("sk-1"));
        assert!(matches!(auth_mode(Some("sk\u{200B}"), base.as_ref()), Err(KeyError::BadCharacter { .. })));
    }
}
