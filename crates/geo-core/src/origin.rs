//! Who else can run script on a page's origin, and so read what the page keeps in its
//! storage (the engines' keys, `geo-probe proxy`'s token) or send requests as it: the one rule
//! behind the settings page's origin note and token warning and `geo-probe proxy`'s warning
//! about the origins it allows (security review 3, finding L6; `docs/security.md`, "A shared
//! origin").
//!
//! Storage and CORS belong to an origin (scheme, host, port), not to a path: every page served
//! on the same origin shares them.

use crate::model::Localized;

/// Who shares an origin with the app.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SharedOrigin {
    /// A GitHub Pages user site (`OWNER.github.io`): every Pages site of the owner is served
    /// on it.
    GithubPages {
        /// The account whose sites share the origin.
        owner: String,
    },
    /// Plain `http://` on a host other than this machine: anyone on the network path (a
    /// café's Wi-Fi, a proxy) can change the page and run script on the origin.
    PlainHttp,
    /// This machine (`127.0.0.1`, `localhost`, `[::1]`): whatever is served on that port later
    /// (another development server, a folder of downloaded HTML) is the same origin.
    Loopback,
    /// The app is served under a path (`/REPO/`): whatever else the host serves on the same
    /// origin shares its storage.
    Path,
    /// The app has its origin to itself (a custom domain, or served at `/`).
    Own,
}

impl SharedOrigin {
    /// The wire name (`data-shared`): `github-pages`, `plain-http`, `loopback`, `path` or
    /// `own`.
    pub fn as_str(&self) -> &'static str {
        match self {
            SharedOrigin::GithubPages { .. } => "github-pages",
            SharedOrigin::PlainHttp => "plain-http",
            SharedOrigin::Loopback => "loopback",
            SharedOrigin::Path => "path",
            SharedOrigin::Own => "own",
        }
    }

    /// What to say before `geo-probe proxy`'s token is kept on, or allowed for, this origin:
    /// `Some` for a GitHub Pages user site and for plain `http://` away from this machine,
    /// where other content can read the token and spend the user's credits through the proxy.
    pub fn token_warning(&self) -> Option<Localized> {
        match self {
            SharedOrigin::GithubPages { owner } => Some(Localized::new(
                format!("这个页面的来源由 {owner} 的所有 GitHub Pages 站点共用：其中任何一个都能读取保存在这里的本地代理口令，并通过 geo-probe proxy 花费你的额度。请把本应用部署到自己的域名，或只在本次会话保存口令。"),
                format!("this page's origin is shared by every GitHub Pages site of {owner}: any of them can read the local proxy token kept here and spend your credits through geo-probe proxy; deploy the app on a domain of its own, or keep the token for this session only"),
            )),
            SharedOrigin::PlainHttp => Some(Localized::new(
                "这个页面通过不加密的 http:// 提供：网络上的任何人都能改写页面、读取保存在这里的本地代理口令。请通过 https:// 或本机地址（127.0.0.1）打开本应用。",
                "this page is served over plain http://: anyone on the network can change it and read the local proxy token kept here; open the app over https:// or on this machine (127.0.0.1)",
            )),
            SharedOrigin::Loopback | SharedOrigin::Path | SharedOrigin::Own => None,
        }
    }
}

/// Who shares `origin` (`scheme://host[:port]`, as `location.origin` or `--allow-origin`
/// give it) with the app served at `base_path` (`/` or `/REPO/`). The scheme is `https` when
/// `origin` names none.
pub fn shared_origin(origin: &str, base_path: &str) -> SharedOrigin {
    let origin = origin.trim().to_ascii_lowercase();
    let (scheme, rest) = origin.split_once("://").unwrap_or(("https", origin.as_str()));
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let host = host_of(authority);
    if let Some(owner) = host.strip_suffix(".github.io").filter(|o| !o.is_empty() && !o.contains('.')) {
        return SharedOrigin::GithubPages { owner: owner.to_string() };
    }
    if is_loopback_host(host) {
        return SharedOrigin::Loopback;
    }
    if scheme == "http" {
        return SharedOrigin::PlainHttp;
    }
    if base_path.trim_matches('/').is_empty() {
        SharedOrigin::Own
    } else {
        SharedOrigin::Path
    }
}

/// The host of an authority (`host[:port]`, `[v6]:port`), without user info.
fn host_of(authority: &str) -> &str {
    let authority = authority.rsplit('@').next().unwrap_or(authority);
    if let Some(v6) = authority.strip_prefix('[') {
        return v6.split(']').next().map_or("", |h| &authority[..h.len() + 2]);
    }
    authority.split(':').next().unwrap_or("")
}

/// Whether a host (as a URL spells it, lower-case) is this machine: `localhost`, an address
/// of `127.0.0.0/8` in dotted form, or `[::1]`.
pub fn is_loopback_host(host: &str) -> bool {
    let host = host.trim_end_matches('.');
    if host == "localhost" || host == "[::1]" {
        return true;
    }
    let parts: Vec<&str> = host.split('.').collect();
    parts.len() == 4
        && parts[0] == "127"
        && parts.iter().all(|p| !p.is_empty() && p.len() <= 3 && p.bytes().all(|b| b.is_ascii_digit()))
        && parts.iter().all(|p| p.parse::<u16>().is_ok_and(|n| n <= 255))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn check(origin: &str, base: &str, expect: &str) {
        assert_eq!(shared_origin(origin, base).as_str(), expect, "{origin} at {base}");
    }

    #[test]
    fn who_shares_an_origin() {
        check("https://octo.github.io", "/geo-probe/", "github-pages");
        check("https://OCTO.github.io:443", "/", "github-pages");
        check("http://octo.github.io", "/", "github-pages");
        check("https://a.b.github.io", "/", "own");
        check("https://github.io", "/", "own");
        check("http://geo.example", "/", "plain-http");
        check("http://geo.example:8080", "/x/", "plain-http");
        check("http://10.0.0.5:8080", "/", "plain-http");
        check("http://127.0.0.1:8080", "/", "loopback");
        check("http://127.9.0.1:1", "/", "loopback");
        check("http://localhost:8080", "/", "loopback");
        check("http://[::1]:8080", "/", "loopback");
        check("http://127.0.0.1.evil.example", "/", "plain-http");
        check("https://geo.example", "/", "own");
        check("https://geo.example", "/geo-probe/", "path");
        check("geo.example", "/", "own");
    }

    #[test]
    fn the_token_is_warned_about_on_pages_and_plain_http_only() {
        // security-3 L6 / issue 35 deliver 5.
        for (origin, warned) in [
            ("https://octo.github.io", true),
            ("http://geo.example", true),
            ("http://127.0.0.1:8080", false),
            ("https://geo.example", false),
        ] {
            let w = shared_origin(origin, "/").token_warning();
            assert_eq!(w.is_some(), warned, "{origin}");
        }
        let pages = shared_origin("https://octo.github.io", "/").token_warning().unwrap();
        assert!(pages.en.contains("octo") && pages.zh.contains("octo"));
    }

    #[test]
    fn loopback_hosts() {
        for host in ["localhost", "127.0.0.1", "127.255.255.254", "[::1]", "localhost."] {
            assert!(is_loopback_host(host), "{host}");
        }
        for host in ["128.0.0.1", "127.0.0", "127.0.0.256", "localhost.example", "[::2]", "", "127.0.0.1x"] {
            assert!(!is_loopback_host(host), "{host}");
        }
    }
}
