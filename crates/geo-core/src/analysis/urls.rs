//! URL canonicalisation (seed §5.2 steps 1–5): the one path shared by retrieved sources
//! and answer links, so that "is this answer link among the sources" compares like with like.
//!
//! [`normalize_url`] turns a raw URL into its canonical form:
//!
//! 1. Surrounding whitespace is trimmed; only `http` and `https` are accepted (anything
//!    else, or a URL the `url` crate cannot parse, gives `None`).
//! 2. The fragment (`#...`) is dropped, and so are credentials (`user:pass@`): neither
//!    identifies a page, and credentials must never be stored.
//! 3. Tracking parameters are dropped (see below); every other parameter is a business
//!    parameter and is kept exactly as written, in its original order. Empty `&&` pieces
//!    go, and a query left empty loses its `?`.
//! 4. The host is lower-cased (the `url` crate also turns internationalised names into
//!    punycode), a trailing dot on the host is dropped, default ports are dropped.
//! 5. Trailing `/` of the path are dropped, for bare origins too: `https://example.com/`
//!    and `https://example.com/a/?x=1` become `https://example.com` and
//!    `https://example.com/a?x=1`.
//!
//! The result is a fixed point: normalising a canonical URL gives it back unchanged.
//!
//! # Tracking parameters
//!
//! Parameter names are compared case-insensitively after percent-decoding.
//!
//! * Prefixes: `utm_`, `share_`, `sharer` (WeChat's `sharer_shareid`, `sharer_sharetime`, …),
//!   `oly_` (Omeda), `hsa_` (HubSpot ads), `pk_` (Piwik), `mtm_` (Matomo).
//! * Exact names, everywhere: `ref`, `ref_src`, `ref_url`, `from`, `spm`, `spm_id_from`,
//!   `from_spmid`, `scm`, `vd_source`, `gclid`, `gclsrc`, `gbraid`, `wbraid`, `gad_source`,
//!   `dclid`, `fbclid`, `msclkid`, `yclid`, `twclid`, `ttclid`, `li_fat_id`, `igshid`, `igsh`,
//!   `srsltid`, `mc_cid`, `mc_eid`, `_hsenc`, `_hsmi`, `__hssc`, `__hstc`, `__hsfp`,
//!   `hsctatracking`, `mkt_tok`, `vero_id`, `vero_conv`, `wickedid`, `_ga`, `_gl`,
//!   `_openstat`, `__twitter_impression`, `trk`, `wt.mc_id`, `wt_mc_id`, `bd_vid`, `wfr`,
//!   `isappinstalled`, `xhsshare`, `tt_from`, `ali_trackid`, `ali_refid`,
//!   `_branch_match_id`, `_branch_referrer`.
//! * Only on some sites, because the same name is a business parameter elsewhere:
//!   `si` and `feature` on YouTube (`youtube.com`, `youtu.be`) and `si` on Spotify
//!   (`spotify.com`) — share ids; `fr` and `frommodule` on `baidu.com` (`fr=aladdin`);
//!   `appuid`, `apptime` on `xiaohongshu.com`; on `mp.weixin.qq.com` the share/session
//!   noise `scene`, `subscene`, `sessionid`, `clicktime`, `enterid`, `srcid`, `exportkey`,
//!   `pass_ticket`, `ascene`, `devicetype`, `version`, `nettype`, `lang`, `fontscale`,
//!   `abtest_cookie`, `wx_header` (the article itself is `__biz`, `mid`, `idx`, `sn`, which stay).

use addr::parser::DomainName;
use addr::publicsuffix::List;
use core::net::IpAddr;
use std::borrow::Cow;
use std::sync::OnceLock;
use url::Url;

/// The Public Suffix List text (ICANN and private sections, comments stripped), embedded
/// at build time; its date and how to update it are in `crates/geo-core/data/README.md`.
///
/// Embedding the text (about 40 KB gzip) instead of compiling the list to code (`addr`'s
/// default `psl` feature, about 280 KB gzip of wasm) is what keeps the web app's download
/// small; the list is parsed once, on first use.
pub const PUBLIC_SUFFIX_LIST: &str = include_str!("../../data/public_suffix_list.dat");

/// The parsed list, built on first use. `None` only if the embedded text failed to parse,
/// which a unit test rules out; domains then fall back to the host itself.
fn suffix_list() -> Option<&'static List> {
    static LIST: OnceLock<Option<List>> = OnceLock::new();
    LIST.get_or_init(|| PUBLIC_SUFFIX_LIST.parse().ok()).as_ref()
}

/// A URL after canonicalisation, with the two keys sources are grouped by.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UrlParts {
    /// Canonical URL: `scheme://host[:port][path][?query]`, no fragment, no trailing `/`.
    pub canonical: String,
    /// Lower-cased host without port (IPv6 in brackets).
    pub host: String,
    /// Registrable domain of the host (see [`registrable_domain`]).
    pub domain: String,
}

/// Name prefixes of tracking parameters (lower-case).
pub const TRACKING_PREFIXES: &[&str] = &["utm_", "share_", "sharer", "oly_", "hsa_", "pk_", "mtm_"];

/// Exact names of tracking parameters dropped on every site (lower-case).
pub const TRACKING_PARAMS: &[&str] = &[
    "ref",
    "ref_src",
    "ref_url",
    "from",
    "spm",
    "spm_id_from",
    "from_spmid",
    "scm",
    "vd_source",
    "gclid",
    "gclsrc",
    "gbraid",
    "wbraid",
    "gad_source",
    "dclid",
    "fbclid",
    "msclkid",
    "yclid",
    "twclid",
    "ttclid",
    "li_fat_id",
    "igshid",
    "igsh",
    "srsltid",
    "mc_cid",
    "mc_eid",
    "_hsenc",
    "_hsmi",
    "__hssc",
    "__hstc",
    "__hsfp",
    "hsctatracking",
    "mkt_tok",
    "vero_id",
    "vero_conv",
    "wickedid",
    "_ga",
    "_gl",
    "_openstat",
    "__twitter_impression",
    "trk",
    "wt.mc_id",
    "wt_mc_id",
    "bd_vid",
    "wfr",
    "isappinstalled",
    "xhsshare",
    "tt_from",
    "ali_trackid",
    "ali_refid",
    "_branch_match_id",
    "_branch_referrer",
];

/// Tracking parameters that are dropped only under a domain (the domain also covers its
/// subdomains), because elsewhere the same name can be a business parameter.
pub const SITE_TRACKING_PARAMS: &[(&str, &[&str])] = &[
    ("youtube.com", &["si", "feature"]),
    ("youtu.be", &["si", "feature"]),
    ("spotify.com", &["si"]),
    ("baidu.com", &["fr", "frommodule"]),
    ("xiaohongshu.com", &["appuid", "apptime"]),
    (
        "mp.weixin.qq.com",
        &[
            "scene",
            "subscene",
            "sessionid",
            "clicktime",
            "enterid",
            "srcid",
            "exportkey",
            "pass_ticket",
            "ascene",
            "devicetype",
            "version",
            "nettype",
            "lang",
            "fontscale",
            "abtest_cookie",
            "wx_header",
        ],
    ),
];

/// Whether a query parameter named `name` (as written, possibly percent-encoded) is a
/// tracking parameter on `host` (lower-case).
pub fn is_tracking_param(name: &str, host: &str) -> bool {
    let decoded: String =
        url::form_urlencoded::parse(name.as_bytes()).next().map(|(k, _)| k.into_owned()).unwrap_or_default();
    let key = decoded.to_lowercase();
    if key.is_empty() {
        return false;
    }
    if TRACKING_PREFIXES.iter().any(|p| key.starts_with(p)) || TRACKING_PARAMS.contains(&key.as_str()) {
        return true;
    }
    SITE_TRACKING_PARAMS.iter().any(|(site, names)| host_is_under(host, site) && names.contains(&key.as_str()))
}

/// `host` equals `domain` or is one of its subdomains (both already lower-case).
pub(crate) fn host_is_under(host: &str, domain: &str) -> bool {
    host == domain
        || (host.len() > domain.len()
            && host.ends_with(domain)
            && host.as_bytes()[host.len() - domain.len() - 1] == b'.')
}

/// Canonicalises `raw` (see the module doc); `None` for anything but a parsable
/// `http`/`https` URL with a host.
pub fn normalize_url(raw: &str) -> Option<UrlParts> {
    let trimmed = raw.trim();
    let url = Url::parse(trimmed).ok()?;
    let scheme = url.scheme();
    if scheme != "http" && scheme != "https" {
        return None;
    }
    let host = url.host_str()?.trim_end_matches('.').to_ascii_lowercase();
    if host.is_empty() {
        return None;
    }
    let mut canonical = String::with_capacity(trimmed.len());
    canonical.push_str(scheme);
    canonical.push_str("://");
    canonical.push_str(&host);
    if let Some(port) = url.port() {
        canonical.push(':');
        canonical.push_str(&port.to_string());
    }
    canonical.push_str(url.path().trim_end_matches('/'));
    if let Some(query) = url.query() {
        let mut first = true;
        for piece in query.split('&') {
            if piece.is_empty() {
                continue;
            }
            let name = piece.split('=').next().unwrap_or_default();
            if is_tracking_param(name, &host) {
                continue;
            }
            canonical.push(if first { '?' } else { '&' });
            canonical.push_str(piece);
            first = false;
        }
    }
    let domain = registrable_domain(&host);
    Some(UrlParts { canonical, host, domain })
}

/// The registrable domain of `host` by the public suffix list (ICANN and private
/// sections, see [`PUBLIC_SUFFIX_LIST`]): `wapbaike.baidu.com` → `baidu.com`,
/// `news.sina.com.cn` → `sina.com.cn`, `www.bbc.co.uk` → `bbc.co.uk`, `me.github.io` →
/// `me.github.io` (`github.io` is a private suffix).
///
/// Falls back to the (lower-cased) host itself for IP addresses, for hosts whose suffix
/// is not on the list (`localhost`, `intranet.corp`), for hosts that are themselves a
/// public suffix, and for anything the parser rejects.
pub fn registrable_domain(host: &str) -> String {
    let host = host.trim().trim_end_matches('.').to_ascii_lowercase();
    let unbracketed = host.trim_start_matches('[').trim_end_matches(']');
    if unbracketed.parse::<IpAddr>().is_ok() {
        return host;
    }
    let Some(list) = suffix_list() else {
        return host;
    };
    match list.parse_domain_name(&host) {
        Ok(name) if name.has_known_suffix() => name.root().map(str::to_string).unwrap_or_else(|| host.clone()),
        _ => host.clone(),
    }
}

/// True when `host` ends in a suffix of the public suffix list and is not itself a public
/// suffix (so it has a registrable domain of its own): `uefa.com`, `www.bbc.co.uk`, but
/// not `node.js`, `co.uk` or `localhost`.
pub fn has_registrable_domain(host: &str) -> bool {
    let host = host.trim().trim_end_matches('.').to_ascii_lowercase();
    let Some(list) = suffix_list() else { return false };
    list.parse_domain_name(&host).is_ok_and(|name| name.has_known_suffix() && name.root().is_some())
}

/// Normalises a configured domain (`Target.domains`) to a bare lower-case host.
///
/// Tolerates what people paste: a scheme, `www.`, a leading `*.`, a port, a path, a query,
/// upper case and surrounding whitespace (`HTTPS://www.Example.com/about` → `example.com`).
/// Internationalised names become punycode, like the hosts of canonical URLs. `None` when
/// nothing host-like is left.
pub fn normalize_configured_domain(s: &str) -> Option<String> {
    let trimmed = s.trim();
    if trimmed.is_empty() {
        return None;
    }
    let with_scheme = if trimmed.contains("://") {
        trimmed.to_string()
    } else {
        format!("http://{}", trimmed.trim_start_matches("//"))
    };
    let url = Url::parse(&with_scheme).ok()?;
    let host = url.host_str()?.trim_end_matches('.').to_ascii_lowercase();
    let host = host.strip_prefix("*.").unwrap_or(&host);
    let host = host.strip_prefix("www.").unwrap_or(host);
    if host.is_empty() || host.starts_with('.') {
        return None;
    }
    Some(host.to_string())
}

/// Whether `host` belongs to the configured `domain`: the same host or a subdomain of it
/// (`example.com` matches `example.com`, `www.example.com`, `docs.example.com`, never
/// `notexample.com`). `domain` is normalised with [`normalize_configured_domain`]; a
/// value that normalises to nothing matches nothing.
pub fn host_matches_domain(host: &str, domain: &str) -> bool {
    let Some(domain) = normalize_configured_domain(domain) else {
        return false;
    };
    host_is_under(&comparable_host(host), &domain)
}

/// `host` trimmed, without trailing dots, lower-cased: the form [`host_matches_domain`]
/// compares. Borrowed when `host` is already in that form (as `UrlParts::host` is).
pub(crate) fn comparable_host(host: &str) -> Cow<'_, str> {
    let trimmed = host.trim().trim_end_matches('.');
    if trimmed.bytes().any(|b| b.is_ascii_uppercase()) {
        Cow::Owned(trimmed.to_ascii_lowercase())
    } else {
        Cow::Borrowed(trimmed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_suffix_list_parses_with_both_sections() {
        assert!(PUBLIC_SUFFIX_LIST.contains("===BEGIN ICANN DOMAINS==="));
        assert!(PUBLIC_SUFFIX_LIST.contains("===BEGIN PRIVATE DOMAINS==="));
        let list = suffix_list().expect("the embedded public suffix list parses");
        let name = list.parse_domain_name("me.github.io").expect("a valid name");
        assert_eq!(name.suffix(), "github.io");
        assert!(!name.is_icann());
        assert_eq!(list.parse_domain_name("a.com.cn").expect("a valid name").root(), Some("a.com.cn"));
    }

    #[test]
    fn host_is_under_needs_a_label_boundary() {
        assert!(host_is_under("a.example.com", "example.com"));
        assert!(host_is_under("example.com", "example.com"));
        assert!(!host_is_under("notexample.com", "example.com"));
        assert!(!host_is_under("com", "example.com"));
    }

    #[test]
    fn tracking_names_are_decoded_and_case_insensitive() {
        assert!(is_tracking_param("UTM_Source", "example.com"));
        assert!(is_tracking_param("utm%5Fsource", "example.com"));
        assert!(!is_tracking_param("si", "example.com"));
        assert!(is_tracking_param("si", "www.youtube.com"));
        assert!(!is_tracking_param("", "example.com"));
    }
}
