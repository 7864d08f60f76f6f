//! Properties of URL canonicalisation, source normalisation and link extraction.
//!
//! Case count: `PROPTEST_CASES` (CI sets 10,000), 256 by default.

use geo_core::analysis::links::{extract_answer_links, MAX_ANSWER_LINKS};
use geo_core::analysis::sources::normalize_sources;
use geo_core::analysis::urls::{is_tracking_param, normalize_url, UrlParts};
use geo_core::model::{Query, RawSource, Target, TargetKind};
use proptest::prelude::*;

use crate::support::target;

/// URL-ish strings: real hosts (platform, site-scoped tracking, IDN, IP), odd paths,
/// a mix of tracking and business parameters, fragments.
fn url_like() -> impl Strategy<Value = String> {
    let scheme = prop::sample::select(vec!["http://", "https://", "HTTPS://", "ftp://", "", "https:"]);
    let userinfo = prop::sample::select(vec!["", "user:pw@", "a@"]);
    let host = prop::sample::select(vec![
        "example.com",
        "WWW.Example.COM",
        "example.com.",
        "wapbaike.baidu.com",
        "mp.weixin.qq.com",
        "www.youtube.com",
        "youtu.be",
        "open.spotify.com",
        "news.sina.com.cn",
        "www.bbc.co.uk",
        "127.0.0.1",
        "[::1]",
        "例子.中国",
        "localhost",
        "me.github.io",
        "a..b",
        "xn--fiqs8s",
    ]);
    let port = prop::sample::select(vec!["", ":80", ":443", ":8080", ":0"]);
    let segment = prop::sample::select(vec![
        "",
        "a",
        "Docs",
        "x.html",
        "..",
        ".",
        "北京",
        "%2F",
        "%2e",
        "Foo_(bar)",
        "a b",
        "~u",
        "!$'*+,;=:@-",
        "%zz",
    ]);
    let path = prop::collection::vec(segment, 0..5).prop_map(|s| s.join("/"));
    let trailing = prop::sample::select(vec!["", "/", "//"]);
    let name = prop::sample::select(vec![
        "utm_source",
        "UTM_Medium",
        "utm%5Fcampaign",
        "ref",
        "from",
        "spm",
        "share_id",
        "sharer_x",
        "si",
        "feature",
        "fr",
        "scene",
        "gclid",
        "id",
        "q",
        "page",
        "lang",
        "p",
        "",
        "a b",
        "%E5%93%81",
    ]);
    let value = prop::sample::select(vec!["", "1", "a+b", "%20", "x=y", "#", "?", "/", "品牌", "a b"]);
    let param = (name, prop::option::of(value)).prop_map(|(n, v)| match v {
        Some(v) => format!("{n}={v}"),
        None => n.to_string(),
    });
    let query = prop::option::of(prop::collection::vec(param, 0..5).prop_map(|ps| ps.join("&")));
    let fragment = prop::option::of(prop::sample::select(vec!["", "top", "/spa/route", "a#b", "?x=1&utm_source=y"]));
    (scheme, userinfo, host, port, path, trailing, query, fragment).prop_map(|(s, u, h, p, path, t, q, f)| {
        let mut out = format!("{s}{u}{h}{p}/{path}{t}");
        if let Some(q) = q {
            out.push('?');
            out.push_str(&q);
        }
        if let Some(f) = f {
            out.push('#');
            out.push_str(f);
        }
        out
    })
}

#[track_caller]
fn assert_canonical(parts: &UrlParts) {
    let again = normalize_url(&parts.canonical);
    assert_eq!(again.as_ref(), Some(parts), "not a fixed point");
    assert!(!parts.canonical.contains('#'), "fragment kept: {}", parts.canonical);
    assert!(parts.canonical.starts_with("http://") || parts.canonical.starts_with("https://"));
    if let Some((_, query)) = parts.canonical.split_once('?') {
        assert!(!query.is_empty(), "empty query kept: {}", parts.canonical);
        for piece in query.split('&') {
            assert!(!piece.is_empty(), "empty piece kept: {}", parts.canonical);
            let name = piece.split('=').next().unwrap_or_default();
            assert!(!is_tracking_param(name, &parts.host), "tracking parameter kept: {}", parts.canonical);
        }
    }
    let path_end = parts.canonical.find('?').unwrap_or(parts.canonical.len());
    assert!(!parts.canonical[..path_end].ends_with('/'), "trailing slash kept: {}", parts.canonical);
}

fn targets() -> Vec<Target> {
    vec![
        target("b", TargetKind::Brand, "品牌", &["品牌", "geo"], &["example.com"]),
        target("c", TargetKind::Competitor, "对手", &["对手"], &["HTTPS://www.Rival.cn/x", ""]),
    ]
}

/// Arbitrary Unicode (any scalar value, controls included), a few characters long.
fn short_text() -> impl Strategy<Value = String> {
    prop::collection::vec(any::<char>(), 0..12).prop_map(|v| v.into_iter().collect())
}

/// Answer-like text: fragments that stress the link scanner, glued at random.
fn answer_like() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        prop::sample::select(vec![
            "[",
            "]",
            "(",
            ")",
            "<",
            ">",
            "](",
            "![",
            "https://",
            "http://",
            "HTTP://",
            "example.com",
            "/a",
            "_(b)",
            "?utm_source=x",
            "#f",
            "。",
            "，",
            "）",
            "】",
            "**",
            "`",
            "\"",
            " ",
            "\n",
            "\n\n",
            "\\[",
            "[[1]]",
            "mailto:",
            "北京",
            "例子.中国",
            "...",
            "'",
        ])
        .prop_map(str::to_string),
        short_text(),
    ];
    prop::collection::vec(piece, 0..24).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(crate::config())]

    #[test]
    fn normalize_url_is_idempotent_on_url_like_input(raw in url_like()) {
        if let Some(parts) = normalize_url(&raw) {
            assert_canonical(&parts);
        }
    }

    #[test]
    fn normalize_url_is_idempotent_on_arbitrary_input(raw in any::<String>()) {
        if let Some(parts) = normalize_url(&raw) {
            assert_canonical(&parts);
        }
        if let Some(parts) = normalize_url(&format!("https://{raw}")) {
            assert_canonical(&parts);
        }
    }

    #[test]
    fn extract_answer_links_never_panics(answer in answer_like()) {
        let links = extract_answer_links(&answer, &[]);
        prop_assert!(links.len() <= MAX_ANSWER_LINKS);
        for (i, link) in links.iter().enumerate() {
            // The link as written, less any `user:password@` (credentials are never stored).
            let (scheme, rest) = link.url.split_once("://").expect("an absolute URL");
            let authority = &rest[..rest.find(['/', '?', '#', '\\']).unwrap_or(rest.len())];
            prop_assert!(!authority.contains('@'), "{}", link.url);
            prop_assert!(answer.contains(&link.url) || (answer.contains(&format!("{scheme}://")) && answer.contains(rest)), "{}", link.url);
            let parts = normalize_url(&link.url).expect("extracted links are valid");
            prop_assert_eq!(&parts.canonical, &link.canonical_url);
            prop_assert!(links[..i].iter().all(|l| l.canonical_url != link.canonical_url));
            prop_assert!(!link.in_sources);
        }
    }

    #[test]
    fn normalize_sources_never_panics(
        raws in prop::collection::vec(
            (0u32..4, 0u32..6, short_text(), prop_oneof![url_like(), short_text()], prop::option::of(short_text())),
            0..6,
        ),
        words in prop::collection::vec(prop::option::of(short_text()), 0..4),
    ) {
        let queries: Vec<Query> = words
            .into_iter()
            .enumerate()
            .map(|(i, w)| Query { index: i as u32 + 1, internal: w.is_none(), query: w, error: None })
            .collect();
        let raw: Vec<RawSource> = raws
            .into_iter()
            .map(|(query_index, rank, title, url, page_age)| RawSource { query_index, rank, title, url, page_age, site_name: None })
            .collect();
        let sources = normalize_sources(&queries, &raw, &targets());
        let accepted = raw.iter().filter(|r| normalize_url(&r.url).is_some()).count();
        prop_assert_eq!(sources.iter().map(|s| s.occurrences.len()).sum::<usize>(), accepted);
        for (i, s) in sources.iter().enumerate() {
            prop_assert_eq!(&s.id, &format!("src_{}", i + 1));
            prop_assert!(sources[..i].iter().all(|o| o.url != s.url));
            prop_assert_eq!(Some(s.best_rank), s.occurrences.iter().map(|o| o.rank).min());
            if i > 0 {
                let p = &sources[i - 1];
                prop_assert!((p.best_rank, &p.title, &p.url) <= (s.best_rank, &s.title, &s.url));
            }
        }
        // Links found in the answer are flagged against these sources.
        let answer: String = raw.iter().map(|r| format!("{} ", r.url)).collect();
        for link in extract_answer_links(&answer, &sources) {
            prop_assert_eq!(link.in_sources, sources.iter().any(|s| s.url == link.canonical_url));
        }
    }
}

/// CI's case at 10,000 cases: `https://@A` is stored as `https://A` (empty credentials dropped).
#[test]
fn an_answer_link_loses_its_credentials() {
    let links = extract_answer_links("see https://@A and https://user:pw@b.example/x", &[]);
    let urls: Vec<&str> = links.iter().map(|l| l.url.as_str()).collect();
    assert_eq!(urls, ["https://A", "https://b.example/x"]);
}
