//! URL canonicalisation rules of seed §5.2 steps 1–5 (`analysis::urls`).

use geo_core::analysis::urls::{host_matches_domain, normalize_configured_domain, normalize_url, registrable_domain};

#[track_caller]
fn check(raw: &str, canonical: Option<&str>) {
    let got = normalize_url(raw).map(|p| p.canonical);
    assert_eq!(got.as_deref(), canonical, "normalize_url({raw:?})");
}

#[track_caller]
fn check_parts(raw: &str, host: &str, domain: &str) {
    let parts = normalize_url(raw).unwrap_or_else(|| panic!("{raw:?} should parse"));
    assert_eq!((parts.host.as_str(), parts.domain.as_str()), (host, domain), "{raw:?}");
}

#[test]
fn only_http_and_https_are_accepted() {
    check("ftp://example.com/file", None);
    check("mailto:someone@example.com", None);
    check("javascript:alert(1)", None);
    check("data:text/plain,hi", None);
    check("example.com/page", None);
    check("/relative/path", None);
    check("", None);
    check("   ", None);
    check("https://", None);
    check("http://example.com", Some("http://example.com"));
    check("  https://example.com/a  ", Some("https://example.com/a"));
    check("HTTPS://Example.COM/Path", Some("https://example.com/Path"));
}

#[test]
fn fragment_is_dropped() {
    check("https://example.com/a#section-2", Some("https://example.com/a"));
    check("https://example.com/#/spa/route", Some("https://example.com"));
    check("https://example.com/a?x=1#top", Some("https://example.com/a?x=1"));
    check("https://example.com/a?utm_source=x#top", Some("https://example.com/a"));
}

#[test]
fn tracking_parameters_are_dropped() {
    check("https://example.com/a?utm_source=google&utm_medium=cpc&utm_campaign=x", Some("https://example.com/a"));
    check("https://example.com/a?UTM_Source=x", Some("https://example.com/a"));
    check("https://example.com/a?ref=hn", Some("https://example.com/a"));
    check("https://example.com/a?from=timeline", Some("https://example.com/a"));
    check("https://item.taobao.com/item.htm?id=1&spm=a21.b&scm=1007", Some("https://item.taobao.com/item.htm?id=1"));
    check("https://example.com/a?share_source=copy&share_medium=iphone", Some("https://example.com/a"));
    check("https://example.com/a?gclid=1&fbclid=2&msclkid=3&dclid=4&yclid=5&igshid=6", Some("https://example.com/a"));
    check("https://example.com/a?mc_cid=1&mc_eid=2&_hsenc=3&_hsmi=4&mkt_tok=5", Some("https://example.com/a"));
    check(
        "https://example.com/a?vero_id=1&wickedid=2&oly_enc_id=3&__twitter_impression=true",
        Some("https://example.com/a"),
    );
    check(
        "https://example.com/a?bd_vid=1&wfr=spider&isappinstalled=0&xhsshare=WeixinSession",
        Some("https://example.com/a"),
    );
    check("https://example.com/a?sharer_shareid=1&sharer_sharetime=2", Some("https://example.com/a"));
    check(
        "https://www.bilibili.com/video/BV1xx?spm_id_from=333.337&vd_source=abc&p=2",
        Some("https://www.bilibili.com/video/BV1xx?p=2"),
    );
}

#[test]
fn site_scoped_tracking_parameters() {
    check("https://youtu.be/abc?si=XYZ&t=42", Some("https://youtu.be/abc?t=42"));
    check("https://www.youtube.com/watch?v=abc&feature=share&si=q", Some("https://www.youtube.com/watch?v=abc"));
    check("https://open.spotify.com/track/1?si=abc", Some("https://open.spotify.com/track/1"));
    // `si` and `feature` are business parameters elsewhere.
    check("https://example.com/search?si=1&feature=maps", Some("https://example.com/search?si=1&feature=maps"));
    check("https://baike.baidu.com/item/x?fr=aladdin", Some("https://baike.baidu.com/item/x"));
    check("https://example.com/item/x?fr=aladdin", Some("https://example.com/item/x?fr=aladdin"));
    check(
        "https://mp.weixin.qq.com/s?__biz=MzA&mid=26&idx=1&sn=ab&scene=21&sessionid=9&exportkey=k#wechat_redirect",
        Some("https://mp.weixin.qq.com/s?__biz=MzA&mid=26&idx=1&sn=ab"),
    );
}

#[test]
fn business_parameters_are_kept_in_order_and_as_written() {
    check(
        "https://example.com/s?q=geo+probe&page=2&utm_source=x&lang=zh",
        Some("https://example.com/s?q=geo+probe&page=2&lang=zh"),
    );
    check("https://example.com/s?b=2&a=1", Some("https://example.com/s?b=2&a=1"));
    check("https://example.com/s?q=%E5%93%81%E7%89%8C", Some("https://example.com/s?q=%E5%93%81%E7%89%8C"));
    check("https://example.com/s?id=1&&&x", Some("https://example.com/s?id=1&x"));
    check("https://example.com/s?", Some("https://example.com/s"));
    check("https://example.com/s?reference=1&from_date=2", Some("https://example.com/s?reference=1&from_date=2"));
}

#[test]
fn trailing_slash_port_host_and_credentials() {
    check("https://example.com/", Some("https://example.com"));
    check("https://example.com", Some("https://example.com"));
    check("https://example.com/docs/", Some("https://example.com/docs"));
    check("https://example.com/docs//", Some("https://example.com/docs"));
    check("https://example.com/docs/?x=1", Some("https://example.com/docs?x=1"));
    check("https://example.com:443/a", Some("https://example.com/a"));
    check("http://example.com:80/a", Some("http://example.com/a"));
    check("http://example.com:8080/a", Some("http://example.com:8080/a"));
    check("https://EXAMPLE.com./a", Some("https://example.com/a"));
    check("https://user:secret@example.com/a", Some("https://example.com/a"));
    check("https://example.com/a/../b/./c", Some("https://example.com/b/c"));
    check("http://127.0.0.1:3000/x/", Some("http://127.0.0.1:3000/x"));
}

#[test]
fn host_and_registrable_domain() {
    check_parts("https://wapbaike.baidu.com/item/x", "wapbaike.baidu.com", "baidu.com");
    check_parts("https://news.sina.com.cn/c/1.shtml", "news.sina.com.cn", "sina.com.cn");
    check_parts("https://www.bbc.co.uk/news", "www.bbc.co.uk", "bbc.co.uk");
    check_parts("https://Zhuanlan.Zhihu.com/p/1", "zhuanlan.zhihu.com", "zhihu.com");
    check_parts("http://127.0.0.1/", "127.0.0.1", "127.0.0.1");
    check_parts("http://[::1]:8080/", "[::1]", "[::1]");
    check_parts("http://localhost:3000", "localhost", "localhost");
    check_parts("https://例子.中国/", "xn--fsqu00a.xn--fiqs8s", "xn--fsqu00a.xn--fiqs8s");
}

#[test]
fn registrable_domain_examples() {
    for (host, domain) in [
        ("wapbaike.baidu.com", "baidu.com"),
        ("baidu.com", "baidu.com"),
        ("news.sina.com.cn", "sina.com.cn"),
        ("www.bbc.co.uk", "bbc.co.uk"),
        ("a.b.c.example.com", "example.com"),
        ("WWW.Example.COM.", "example.com"),
        ("www.beijing.gov.cn", "beijing.gov.cn"),
        ("me.github.io", "me.github.io"),
        ("github.io", "github.io"),
        ("com.cn", "com.cn"),
        ("192.168.1.1", "192.168.1.1"),
        ("localhost", "localhost"),
        ("intranet.corp", "intranet.corp"),
        // wildcard and exception rules: `*.ck` with `!www.ck`, `*.kawasaki.jp` with `!city.kawasaki.jp`
        ("a.b.ck", "a.b.ck"),
        ("x.a.b.ck", "a.b.ck"),
        ("www.ck", "www.ck"),
        ("shop.www.ck", "www.ck"),
        ("www.city.kawasaki.jp", "city.kawasaki.jp"),
        ("a.b.c.kawasaki.jp", "b.c.kawasaki.jp"),
        // Unicode rules match their punycode form (`公司.cn`)
        ("www.abc.xn--55qx5d.cn", "abc.xn--55qx5d.cn"),
        // private section: `blogspot.com`, `s3.amazonaws.com`-style entries
        ("me.blogspot.com", "me.blogspot.com"),
        ("", ""),
    ] {
        assert_eq!(registrable_domain(host), domain, "registrable_domain({host:?})");
    }
}

#[test]
fn configured_domains_are_normalised() {
    for (raw, expect) in [
        ("example.com", Some("example.com")),
        ("  Example.COM  ", Some("example.com")),
        ("www.example.com", Some("example.com")),
        ("https://www.example.com/about?x=1", Some("example.com")),
        ("http://example.com:8080", Some("example.com")),
        ("*.example.com", Some("example.com")),
        ("shop.example.com/", Some("shop.example.com")),
        ("example.com.", Some("example.com")),
        ("", None),
        ("   ", None),
        ("https://", None),
    ] {
        assert_eq!(normalize_configured_domain(raw).as_deref(), expect, "normalize_configured_domain({raw:?})");
    }
}

#[test]
fn host_matches_configured_domain_and_its_subdomains() {
    for (host, domain, expect) in [
        ("example.com", "example.com", true),
        ("www.example.com", "example.com", true),
        ("docs.example.com", "example.com", true),
        ("a.b.example.com", "https://www.Example.com/", true),
        ("example.com", "www.example.com", true),
        ("notexample.com", "example.com", false),
        ("example.com.cn", "example.com", false),
        ("example.com", "shop.example.com", false),
        ("shop.example.com", "shop.example.com", true),
        ("example.com", "", false),
        ("EXAMPLE.com", "example.com", true),
    ] {
        assert_eq!(host_matches_domain(host, domain), expect, "host_matches_domain({host:?}, {domain:?})");
    }
}
