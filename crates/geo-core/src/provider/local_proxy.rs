//! The app's side of `geo-probe proxy` (engines.md "The local proxy", ADR 0020): where the
//! proxy listens, the header of its per-start token, the base URL an engine gets through it,
//! the one check of the proxy address a user types, the command the settings page shows to
//! start it, and the one routing rule of both shells.
//!
//! The rule ([`route`]), per engine:
//! 1. a key → the engine itself (or the engine's own custom base URL) with the key;
//! 2. no key but the engine's own custom base URL → that base, no auth header (proxy mode);
//! 3. neither, and the local proxy is on → `{proxy}/{engine}`, no auth header, the token in
//!    [`TOKEN_HEADER`];
//! 4. else the key is missing.
//!
//! The token goes only to the local proxy: never with a key (the request goes to the engine,
//! which must not see it) and never to an engine's own base URL (someone else's server).

use super::url::{auth_mode, parse_base_url, BaseUrl, KeyError, KeyMode, Url};
use crate::model::{EngineId, Localized};

/// The header that carries the proxy's per-start token.
pub const TOKEN_HEADER: &str = "x-geo-probe-proxy-token";

/// The proxy's port without `--port`.
pub const DEFAULT_PORT: u16 = 8788;

/// The proxy's address without `--port`: what the settings page proposes.
pub const DEFAULT_URL: &str = "http://127.0.0.1:8788";

/// The page origin the proxy allows without `--allow-origin`: `cargo xtask serve` on its
/// default port.
pub const DEFAULT_ORIGIN: &str = "http://127.0.0.1:8080";

/// The local proxy as the user set it up: its checked address ([`parse_proxy_url`]) and the
/// token it printed at start.
#[derive(Clone, PartialEq, Eq)]
pub struct LocalProxy {
    /// `http://127.0.0.1:PORT` (or `localhost`), no path.
    pub url: String,
    /// The token, trimmed; empty when the user has not pasted it yet.
    pub token: String,
}

impl std::fmt::Debug for LocalProxy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LocalProxy").field("url", &self.url).field("token", &"[redacted]").finish()
    }
}

/// `engine`'s base URL through the proxy at `proxy_url`: `{proxy_url}/{engine}`.
pub fn engine_base(proxy_url: &str, engine: EngineId) -> String {
    format!("{}/{}", proxy_url.trim_end_matches('/'), engine.as_str())
}

/// Why a typed proxy address was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProxyUrlError {
    /// Not an `http://` URL with a host (or it holds a user name, spaces …).
    Invalid,
    /// A host other than `127.0.0.1`, `[::1]` or `localhost`: the proxy listens only there
    /// (on both loopbacks, so `localhost` reaches it whichever a browser tries first), and
    /// the token must not travel anywhere else.
    NotLoopback,
    /// A path, query or fragment: the address is `http://127.0.0.1:PORT`, the app adds the
    /// engine's prefix itself.
    HasPath,
}

impl ProxyUrlError {
    /// The message in both interface languages.
    pub fn localized(&self) -> Localized {
        match self {
            ProxyUrlError::Invalid => Localized::new(
                "本地代理地址无效：请填写形如 http://127.0.0.1:8788 的地址",
                "the local proxy address is not valid; give one like http://127.0.0.1:8788",
            ),
            ProxyUrlError::NotLoopback => Localized::new(
                "本地代理地址只能是本机（127.0.0.1、[::1] 或 localhost）：geo-probe proxy 只监听本机，口令不应发往别处",
                "the local proxy address must be this machine (127.0.0.1, [::1] or localhost): geo-probe proxy listens only there, and its token must go nowhere else",
            ),
            ProxyUrlError::HasPath => Localized::new(
                "本地代理地址不带路径：请填写形如 http://127.0.0.1:8788 的地址，引擎的前缀由应用添加",
                "the local proxy address takes no path; give one like http://127.0.0.1:8788, the app adds each engine's prefix",
            ),
        }
    }
}

/// Checks a proxy address as typed: blank → [`DEFAULT_URL`]; otherwise `http://` with host
/// `127.0.0.1`, `[::1]` or `localhost`, an optional port, and nothing after it (a trailing `/` is
/// dropped). Returns `scheme://host[:port]`.
pub fn parse_proxy_url(input: &str) -> Result<String, ProxyUrlError> {
    let input = input.trim();
    if input.is_empty() {
        return Ok(DEFAULT_URL.to_string());
    }
    let base = parse_base_url(input).map_err(|_| ProxyUrlError::Invalid)?.ok_or(ProxyUrlError::Invalid)?;
    let url: &Url = base.url();
    if url.scheme() != "http" {
        return Err(ProxyUrlError::Invalid);
    }
    let host = url.host_str().unwrap_or_default();
    if host != "127.0.0.1" && host != "[::1]" && !host.eq_ignore_ascii_case("localhost") {
        return Err(ProxyUrlError::NotLoopback);
    }
    if (url.path() != "/" && !url.path().is_empty()) || url.query().is_some() || url.fragment().is_some() {
        return Err(ProxyUrlError::HasPath);
    }
    Ok(match url.port() {
        Some(port) => format!("http://{}:{port}", host.to_ascii_lowercase()),
        None => format!("http://{}", host.to_ascii_lowercase()),
    })
}

/// The command that starts the proxy for a page at `page_origin` listening at `proxy_url`
/// (checked): `geo-probe proxy`, with `--port` when the port is not [`DEFAULT_PORT`] and
/// `--allow-origin` when the page is not at [`DEFAULT_ORIGIN`]. The keys are read from the
/// engines' variables, never written in the command.
pub fn start_command(proxy_url: &str, page_origin: &str) -> String {
    let mut cmd = String::from("geo-probe proxy");
    let port = Url::parse(proxy_url).ok().and_then(|u| u.port_or_known_default()).unwrap_or(DEFAULT_PORT);
    if port != DEFAULT_PORT {
        cmd.push_str(&format!(" --port {port}"));
    }
    let origin = page_origin.trim().trim_end_matches('/');
    let is_origin = Url::parse(origin).is_ok_and(|u| matches!(u.scheme(), "http" | "https") && u.host().is_some());
    if is_origin && origin != DEFAULT_ORIGIN {
        cmd.push_str(&format!(" --allow-origin {origin}"));
    }
    cmd
}

/// Where one engine's requests go ([`route`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EngineRoute {
    /// The engine itself, or its own custom base (`base`), with the key.
    Key {
        /// The engine's own custom base URL, if set.
        base: Option<String>,
        /// The checked key.
        mode: KeyMode,
    },
    /// The engine's own custom base URL without a key (proxy mode).
    OwnBase(String),
    /// `geo-probe proxy`: `{proxy}/{engine}` and the token.
    LocalProxy {
        /// `{proxy}/{engine}`.
        base: String,
        /// The proxy's token (may be empty: the proxy then answers 401, which says so).
        token: String,
    },
}

impl EngineRoute {
    /// The base URL the endpoint is built with (`None`: the engine's default).
    pub fn base(&self) -> Option<&str> {
        match self {
            EngineRoute::Key { base, .. } => base.as_deref(),
            EngineRoute::OwnBase(base) | EngineRoute::LocalProxy { base, .. } => Some(base),
        }
    }

    /// The key sent, if any.
    pub fn key(&self) -> Option<&str> {
        match self {
            EngineRoute::Key { mode, .. } => mode.key(),
            _ => None,
        }
    }

    /// The proxy's token, for the local proxy only.
    pub fn token(&self) -> Option<&str> {
        match self {
            EngineRoute::LocalProxy { token, .. } => Some(token),
            _ => None,
        }
    }
}

/// The routing rule of this module's documentation for `engine`, given its key, its own
/// custom base URL (checked) and the local proxy when it is on.
pub fn route(
    engine: EngineId,
    key: Option<&str>,
    own_base: Option<&BaseUrl>,
    proxy: Option<&LocalProxy>,
) -> Result<EngineRoute, KeyError> {
    match (auth_mode(key, own_base), own_base, proxy) {
        (Ok(mode @ KeyMode::Key(_)), base, _) => {
            Ok(EngineRoute::Key { base: base.map(|b| b.as_str().to_string()), mode })
        }
        (Ok(KeyMode::Proxy), Some(base), _) => Ok(EngineRoute::OwnBase(base.as_str().to_string())),
        (Ok(KeyMode::Proxy), None, _) => Err(KeyError::Missing),
        (Err(KeyError::Missing), _, Some(proxy)) => {
            Ok(EngineRoute::LocalProxy { base: engine_base(&proxy.url, engine), token: proxy.token.trim().to_string() })
        }
        (Err(e), _, _) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn base(s: &str) -> BaseUrl {
        parse_base_url(s).unwrap().unwrap()
    }

    fn proxy() -> LocalProxy {
        LocalProxy { url: "http://127.0.0.1:8788".into(), token: " tok-1 ".into() }
    }

    #[test]
    fn proxy_addresses_are_loopback_http_without_a_path() {
        assert_eq!(parse_proxy_url("").unwrap(), DEFAULT_URL);
        assert_eq!(parse_proxy_url(" http://127.0.0.1:9000/ ").unwrap(), "http://127.0.0.1:9000");
        assert_eq!(parse_proxy_url("http://LOCALHOST:8788").unwrap(), "http://localhost:8788");
        assert_eq!(parse_proxy_url("http://127.0.0.1").unwrap(), "http://127.0.0.1");
        assert_eq!(parse_proxy_url("http://[::1]:8788").unwrap(), "http://[::1]:8788");
        assert_eq!(parse_proxy_url("https://127.0.0.1:8788"), Err(ProxyUrlError::Invalid));
        assert_eq!(parse_proxy_url("127.0.0.1:8788"), Err(ProxyUrlError::Invalid));
        assert_eq!(parse_proxy_url("http://u:p@127.0.0.1:8788"), Err(ProxyUrlError::Invalid));
        assert_eq!(parse_proxy_url("http://proxy.example.com:8788"), Err(ProxyUrlError::NotLoopback));
        assert_eq!(parse_proxy_url("http://192.168.1.2:8788"), Err(ProxyUrlError::NotLoopback));
        assert_eq!(parse_proxy_url("http://127.0.0.1:8788/qwen"), Err(ProxyUrlError::HasPath));
        assert_eq!(parse_proxy_url("http://127.0.0.1:8788/?t=1"), Err(ProxyUrlError::HasPath));
        for e in [ProxyUrlError::Invalid, ProxyUrlError::NotLoopback, ProxyUrlError::HasPath] {
            let m = e.localized();
            assert!(m.en.contains("proxy") && m.zh.contains("代理"), "{m:?}");
        }
    }

    #[test]
    fn the_start_command_names_only_what_differs_from_the_defaults() {
        assert_eq!(start_command(DEFAULT_URL, DEFAULT_ORIGIN), "geo-probe proxy");
        assert_eq!(start_command("http://127.0.0.1:9000", "http://127.0.0.1:8080/"), "geo-probe proxy --port 9000");
        assert_eq!(
            start_command(DEFAULT_URL, "https://acme.github.io"),
            "geo-probe proxy --allow-origin https://acme.github.io"
        );
        assert_eq!(start_command("http://127.0.0.1", "null"), "geo-probe proxy --port 80");
    }

    #[test]
    fn engines_get_their_prefix() {
        assert_eq!(engine_base("http://127.0.0.1:8788/", EngineId::Qwen), "http://127.0.0.1:8788/qwen");
        assert_eq!(engine_base("http://127.0.0.1:8788", EngineId::Doubao), "http://127.0.0.1:8788/doubao");
    }

    #[test]
    fn a_key_wins_then_the_engines_own_base_then_the_local_proxy() {
        let own = base("https://gw.example.com");
        let p = proxy();
        let r = route(EngineId::Qwen, Some(" sk-1 "), None, Some(&p)).unwrap();
        assert_eq!((r.base(), r.key(), r.token()), (None, Some("sk-1"), None));
        let r = route(EngineId::Qwen, Some("sk-1"), Some(&own), Some(&p)).unwrap();
        assert_eq!((r.base(), r.key(), r.token()), (Some("https://gw.example.com/"), Some("sk-1"), None));
        let r = route(EngineId::Qwen, None, Some(&own), Some(&p)).unwrap();
        assert_eq!((r.base(), r.key(), r.token()), (Some("https://gw.example.com/"), None, None));
        let r = route(EngineId::Doubao, Some("  "), None, Some(&p)).unwrap();
        assert_eq!((r.base(), r.key(), r.token()), (Some("http://127.0.0.1:8788/doubao"), None, Some("tok-1")));
        assert_eq!(route(EngineId::Qwen, None, None, None), Err(KeyError::Missing));
        // A key no header can carry is refused even when the proxy could have taken over.
        assert!(matches!(route(EngineId::Qwen, Some("sk\n1"), None, Some(&p)), Err(KeyError::BadCharacter { .. })));
        assert!(!format!("{p:?}").contains("tok-1"));
    }
}
