//! `extract_answer_links` (seed §5.5).

use geo_core::analysis::links::{extract_answer_links, MAX_ANSWER_LINKS};
use geo_core::analysis::sources::normalize_sources;
use geo_core::model::{AnswerLink, Query, SearchSource};

/// `(url as written, canonical, text)` of every extracted link.
#[track_caller]
fn check(answer: &str, expect: &[(&str, &str, Option<&str>)]) {
    let got: Vec<(String, String, Option<String>)> =
        extract_answer_links(answer, &[]).into_iter().map(|l| (l.url, l.canonical_url, l.text)).collect();
    let want: Vec<(String, String, Option<String>)> =
        expect.iter().map(|(u, c, t)| (u.to_string(), c.to_string(), t.map(str::to_string))).collect();
    assert_eq!(got, want, "extract_answer_links({answer:?})");
}

#[test]
fn markdown_links() {
    check("见 [官网](https://example.com/) 了解。", &[("https://example.com/", "https://example.com", Some("官网"))]);
    check(
        "[a [nested] text](https://example.com/a)",
        &[("https://example.com/a", "https://example.com/a", Some("a [nested] text"))],
    );
    check("[[1]](https://example.com/1)", &[("https://example.com/1", "https://example.com/1", Some("[1]"))]);
    check(
        "[Mercury](https://en.wikipedia.org/wiki/Mercury_(planet))。",
        &[(
            "https://en.wikipedia.org/wiki/Mercury_(planet)",
            "https://en.wikipedia.org/wiki/Mercury_(planet)",
            Some("Mercury"),
        )],
    );
    check("[t](https://example.com/a \"Title\")", &[("https://example.com/a", "https://example.com/a", Some("t"))]);
    check("[t](<https://example.com/a b>)", &[("https://example.com/a b", "https://example.com/a%20b", Some("t"))]);
    check(
        "![logo](https://example.com/logo.png)",
        &[("https://example.com/logo.png", "https://example.com/logo.png", Some("logo"))],
    );
    check("[ ](https://example.com/x)", &[("https://example.com/x", "https://example.com/x", None)]);
    // Other schemes are not links, and the construct is consumed whole.
    check("[mail](mailto:a@example.com) [rel](/docs)", &[]);
    check(
        "[**元构场**](HTTPS://Example.com/About?utm_source=ai)",
        &[("HTTPS://Example.com/About?utm_source=ai", "https://example.com/About", Some("**元构场**"))],
    );
}

#[test]
fn autolinks_and_bare_urls() {
    check("<https://example.com/a>", &[("https://example.com/a", "https://example.com/a", None)]);
    check("访问 https://example.com/a 了解", &[("https://example.com/a", "https://example.com/a", None)]);
    check("访问https://example.com了解更多", &[("https://example.com", "https://example.com", None)]);
    check(
        "https://zh.wikipedia.org/wiki/北京 是维基页面",
        &[("https://zh.wikipedia.org/wiki/北京", "https://zh.wikipedia.org/wiki/%E5%8C%97%E4%BA%AC", None)],
    );
    check("xhttps://example.com", &[]);
    check("http://", &[]);
    check("**https://example.com/b**", &[("https://example.com/b", "https://example.com/b", None)]);
    check("`https://example.com/c`", &[("https://example.com/c", "https://example.com/c", None)]);
    check(
        "see https://a.example.com/x?u=https://b.example.com/y and http://c.example.com",
        &[
            (
                "https://a.example.com/x?u=https://b.example.com/y",
                "https://a.example.com/x?u=https://b.example.com/y",
                None,
            ),
            ("http://c.example.com", "http://c.example.com", None),
        ],
    );
}

#[test]
fn trailing_punctuation_english_and_chinese() {
    for (answer, written) in [
        ("See https://example.com/a.", "https://example.com/a"),
        ("See https://example.com/a, then", "https://example.com/a"),
        ("Is it https://example.com/a?", "https://example.com/a"),
        ("Go: https://example.com/a!", "https://example.com/a"),
        ("'https://example.com/a'", "https://example.com/a"),
        ("\"https://example.com/a\";", "https://example.com/a"),
        ("(see https://example.com/a)", "https://example.com/a"),
        ("(see https://en.wikipedia.org/wiki/Foo_(bar))", "https://en.wikipedia.org/wiki/Foo_(bar)"),
        ("[ref: https://example.com/a]", "https://example.com/a"),
        ("{https://example.com/a}", "https://example.com/a"),
        ("详见https://example.com/a。", "https://example.com/a"),
        ("官网：https://example.com/a，电话", "https://example.com/a"),
        ("（官网https://example.com/a）", "https://example.com/a"),
        ("【https://example.com/a】", "https://example.com/a"),
        ("《https://example.com/a》", "https://example.com/a"),
        ("「https://example.com/a」", "https://example.com/a"),
        ("https://example.com/a；https://example.com/a！", "https://example.com/a"),
        ("https://example.com/a、", "https://example.com/a"),
        ("https://example.com/a...", "https://example.com/a"),
    ] {
        let links = extract_answer_links(answer, &[]);
        assert_eq!(links.len(), 1, "{answer:?}: {links:?}");
        assert_eq!(links[0].url, written, "{answer:?}");
    }
}

#[test]
fn dedupe_by_canonical_url_first_wins_and_keeps_text() {
    let answer = "来源：https://example.com/a?utm_source=x，以及 [示例页面](https://example.com/a/#top) 和 \
                  [另一个名字](https://example.com/a)，再看 [B](https://example.com/b) https://example.com/b";
    let links = extract_answer_links(answer, &[]);
    let got: Vec<(&str, &str, Option<&str>)> =
        links.iter().map(|l| (l.url.as_str(), l.canonical_url.as_str(), l.text.as_deref())).collect();
    assert_eq!(
        got,
        vec![
            ("https://example.com/a?utm_source=x", "https://example.com/a", Some("示例页面")),
            ("https://example.com/b", "https://example.com/b", Some("B")),
        ]
    );
    assert_eq!(links[0].domain, "example.com");
}

#[test]
fn in_sources_compares_canonical_urls() {
    let raws = vec![crate::builders::raw_source(1, 1, "百科", "https://baike.baidu.com/item/GEO?fr=aladdin", None)];
    let queries = vec![Query { index: 1, query: Some("geo".into()), internal: false, error: None }];
    let sources: Vec<SearchSource> = normalize_sources(&queries, &raws, &[]);
    let answer = "参考 [百度百科](https://baike.baidu.com/item/GEO/) 与 https://wapbaike.baidu.com/item/GEO";
    let links = extract_answer_links(answer, &sources);
    let flags: Vec<(&str, bool, &str)> =
        links.iter().map(|l| (l.canonical_url.as_str(), l.in_sources, l.domain.as_str())).collect();
    assert_eq!(
        flags,
        vec![
            ("https://baike.baidu.com/item/GEO", true, "baidu.com"),
            ("https://wapbaike.baidu.com/item/GEO", false, "baidu.com"),
        ]
    );
}

#[test]
fn at_most_fifty_distinct_links() {
    let answer: String = (0..80).map(|i| format!("- https://example.com/p{i}\n")).collect();
    let links: Vec<AnswerLink> = extract_answer_links(&answer, &[]);
    assert_eq!(links.len(), MAX_ANSWER_LINKS);
    assert_eq!(links[0].canonical_url, "https://example.com/p0");
    assert_eq!(links[49].canonical_url, "https://example.com/p49");
    // Duplicates do not use up the budget.
    let repeated: String = (0..60).map(|i| format!("https://example.com/p{} ", i % 3)).collect();
    assert_eq!(extract_answer_links(&repeated, &[]).len(), 3);
}

#[test]
fn malformed_markdown_falls_back_to_bare_urls() {
    check("[t](https://example.com/a", &[("https://example.com/a", "https://example.com/a", None)]);
    check("[unclosed https://example.com/b", &[("https://example.com/b", "https://example.com/b", None)]);
    check("<https://example.com/c", &[("https://example.com/c", "https://example.com/c", None)]);
    check("[t]\n\n(https://example.com/d)", &[("https://example.com/d", "https://example.com/d", None)]);
    check("", &[]);
    check("没有链接的回答。", &[]);
}

/// Security review, finding 10: a link's `url` never keeps credentials.
#[test]
fn credentials_are_dropped_from_the_url_as_written() {
    check(
        "登录 https://user:pw@example.com/a?x=1 或 [后台](http://admin:s3cret@example.com:8080/p@q)",
        &[
            ("https://example.com/a?x=1", "https://example.com/a?x=1", None),
            ("http://example.com:8080/p@q", "http://example.com:8080/p@q", Some("后台")),
        ],
    );
}
