//! Platform table, `classify_source` and `normalize_sources` (seed §5.2).

use crate::builders::raw_source as raw;
use geo_core::analysis::platforms::{channel_label, lookup_platform, CHANNELS};
use geo_core::analysis::sources::{classify_source, normalize_sources, Classification};
use geo_core::analysis::urls::registrable_domain;
use geo_core::model::{Lang, Ownership, Query, Target, TargetKind};

use crate::support::target;

fn targets() -> Vec<Target> {
    vec![
        target(
            "t_brand",
            TargetKind::Brand,
            "元构场",
            &["元构场", "Yuangouchang"],
            &["https://www.yuangouchang.com/", "acme.github.io", "36kr.com"],
        ),
        target("t_c1", TargetKind::Competitor, "对手一", &["对手一", "Rival"], &["rival.cn"]),
        target("t_c2", TargetKind::Competitor, "对手二", &["对手二"], &["other-rival.com", "zhuanlan.zhihu.com"]),
    ]
}

#[track_caller]
fn check_platform(host: &str, expect: Option<(&str, &str)>) {
    let got = lookup_platform(host, &registrable_domain(host)).map(|p| (p.name_zh, p.channel));
    assert_eq!(got, expect, "lookup_platform({host:?})");
}

#[test]
fn platform_table_most_specific_suffix_wins() {
    check_platform("mp.weixin.qq.com", Some(("微信公众号", "wechat")));
    check_platform("baike.baidu.com", Some(("百度百科", "encyclopedia")));
    check_platform("wapbaike.baidu.com", Some(("百度百科", "encyclopedia")));
    check_platform("baijiahao.baidu.com", Some(("百家号", "media_platform")));
    check_platform("zhidao.baidu.com", Some(("百度知道", "qa")));
    check_platform("aiqicha.baidu.com", Some(("爱企查", "business_info")));
    check_platform("www.baidu.com", None);
    check_platform("zhuanlan.zhihu.com", Some(("知乎", "qa")));
    check_platform("www.zhihu.com", Some(("知乎", "qa")));
    check_platform("www.xiaohongshu.com", Some(("小红书", "social")));
    check_platform("xhslink.com", Some(("小红书", "social")));
    check_platform("www.douyin.com", Some(("抖音", "video")));
    check_platform("b23.tv", Some(("哔哩哔哩", "video")));
    check_platform("m.weibo.cn", Some(("微博", "social")));
    check_platform("blog.csdn.net", Some(("CSDN", "tech_community")));
    check_platform("juejin.cn", Some(("稀土掘金", "tech_community")));
    check_platform("news.qq.com", Some(("腾讯新闻", "news")));
    check_platform("new.qq.com", Some(("腾讯新闻", "news")));
    check_platform("v.qq.com", Some(("腾讯视频", "video")));
    check_platform("sj.qq.com", Some(("应用宝", "app_store")));
    check_platform("news.163.com", Some(("网易", "news")));
    check_platform("finance.sina.com.cn", Some(("新浪", "news")));
    check_platform("www.qcc.com", Some(("企查查", "business_info")));
    check_platform("www.tianyancha.com", Some(("天眼查", "business_info")));
    check_platform("apps.apple.com", Some(("App Store", "app_store")));
    check_platform("play.google.com", Some(("Google Play", "app_store")));
    check_platform("app.mi.com", Some(("小米应用商店", "app_store")));
    check_platform("appgallery.huawei.com", Some(("华为应用市场", "app_store")));
    check_platform("www.beijing.gov.cn", Some(("政府网站", "gov_edu")));
    check_platform("www.gsxt.gov.cn", Some(("国家企业信用信息公示系统", "business_info")));
    check_platform("www.tsinghua.edu.cn", Some(("教育机构", "gov_edu")));
    check_platform("www.nasa.gov", Some(("政府网站", "gov_edu")));
    check_platform("www.mit.edu", Some(("教育机构", "gov_edu")));
    check_platform("zh.wikipedia.org", Some(("维基百科", "encyclopedia")));
    check_platform("old.reddit.com", Some(("Reddit", "forum")));
    check_platform("youtu.be", Some(("YouTube", "video")));
    check_platform("github.com", Some(("GitHub", "code")));
    check_platform("www.linkedin.com", Some(("领英", "social")));
    check_platform("medium.com", Some(("Medium", "blog")));
    check_platform("www.g2.com", Some(("G2", "review")));
    check_platform("www.reuters.com", Some(("路透社", "news")));
    check_platform("www.bbc.co.uk", Some(("BBC", "news")));
    check_platform("www.toutiao.com", Some(("今日头条", "media_platform")));
    check_platform("baike.sogou.com", Some(("搜狗百科", "encyclopedia")));
    check_platform("guba.eastmoney.com", Some(("东方财富股吧", "forum")));
    check_platform("www.eastmoney.com", Some(("东方财富", "news")));
    // Label boundaries: a rule never matches the middle of a label.
    check_platform("notzhihu.com", None);
    check_platform("mybilibili.com", None);
    check_platform("example.com", None);
    check_platform("", None);
}

#[test]
fn lookup_uses_domain_only_when_host_is_not_under_it() {
    assert_eq!(lookup_platform("", "zhihu.com").map(|p| p.name_en), Some("Zhihu"));
    assert_eq!(lookup_platform("cdn.example.net", "zhihu.com").map(|p| p.name_en), Some("Zhihu"));
    assert_eq!(lookup_platform("www.example.com", "example.com"), None);
}

#[test]
fn channel_labels_in_both_languages() {
    assert_eq!(channel_label("wechat", Lang::Zh), "微信公众号");
    assert_eq!(channel_label("official", Lang::En), "Official site");
    assert_eq!(channel_label("other", Lang::Zh), "其他");
    assert_eq!(channel_label("no_such_channel", Lang::En), "no_such_channel");
    for key in [
        "wechat",
        "encyclopedia",
        "qa",
        "social",
        "video",
        "news",
        "media_platform",
        "tech_community",
        "blog",
        "code",
        "review",
        "business_info",
        "app_store",
        "gov_edu",
        "forum",
        "official",
        "other",
    ] {
        assert!(CHANNELS.iter().any(|(k, _, _)| *k == key), "missing channel {key}");
    }
}

#[track_caller]
fn check_class(host: &str, expect: (&str, &str, Ownership, Option<&str>)) {
    let got = classify_source(host, &registrable_domain(host), &targets());
    let want = Classification {
        platform: expect.0.into(),
        channel: expect.1.into(),
        ownership: expect.2,
        competitor_id: expect.3.map(str::to_string),
    };
    assert_eq!(got, want, "classify_source({host:?})");
}

#[test]
fn classification_order_brand_competitor_platform_fallback() {
    check_class("www.yuangouchang.com", ("元构场", "official", Ownership::Owned, None));
    check_class("yuangouchang.com", ("元构场", "official", Ownership::Owned, None));
    check_class("docs.yuangouchang.com", ("元构场", "official", Ownership::Owned, None));
    // Owned beats the platform table: the brand's own page on a platform-looking host.
    check_class("acme.github.io", ("元构场", "official", Ownership::Owned, None));
    check_class("other.github.io", ("GitHub Pages", "blog", Ownership::ThirdParty, None));
    check_class("www.36kr.com", ("元构场", "official", Ownership::Owned, None));
    check_class("m.rival.cn", ("对手一", "official", Ownership::Competitor, Some("t_c1")));
    check_class("other-rival.com", ("对手二", "official", Ownership::Competitor, Some("t_c2")));
    // Competitor beats the platform table, only on the configured host.
    check_class("zhuanlan.zhihu.com", ("对手二", "official", Ownership::Competitor, Some("t_c2")));
    check_class("www.zhihu.com", ("知乎", "qa", Ownership::ThirdParty, None));
    check_class("baike.baidu.com", ("百度百科", "encyclopedia", Ownership::ThirdParty, None));
    check_class("blog.unknown-site.co.uk", ("unknown-site.co.uk", "other", Ownership::ThirdParty, None));
}

#[test]
fn kind_not_position_decides_the_brand() {
    let mut ts = targets();
    ts.reverse();
    let got = classify_source("www.yuangouchang.com", "yuangouchang.com", &ts);
    assert_eq!(got.ownership, Ownership::Owned);
    // A domain configured on both the brand and a competitor is owned.
    ts.push(target("t_c3", TargetKind::Competitor, "对手三", &[], &["yuangouchang.com"]));
    assert_eq!(classify_source("yuangouchang.com", "yuangouchang.com", &ts).ownership, Ownership::Owned);
}

fn q(index: u32, words: Option<&str>, internal: bool) -> Query {
    Query { index, query: words.map(str::to_string), internal, error: None }
}

#[test]
fn normalize_sources_dedupes_sorts_and_numbers() {
    let queries = vec![q(1, Some("GEO 服务商 推荐"), false), q(2, Some("元构场 评价"), false), q(3, None, true)];
    let raws = vec![
        raw(1, 3, "GEO 是什么 - 知乎", "https://www.zhihu.com/question/1?utm_source=wechat#answer", None),
        raw(1, 1, "元构场官网", "https://www.yuangouchang.com/", Some("")),
        raw(1, 2, "不是网址", "ftp://files.example.com/a", None),
        raw(2, 2, "GEO 是什么？一文读懂 - 知乎", "https://www.zhihu.com/question/1", Some("2025-03-01")),
        raw(2, 1, "Rival 介绍", "https://rival.cn/about/", Some("2024-01-01")),
        raw(3, 5, "GEO", "https://www.zhihu.com/question/1/", Some("2026-01-01")),
        raw(3, 4, "xx", "not a url", None),
        raw(3, 1, "元构场 首页", "https://yuangouchang.com", Some("2025-05-05")),
    ];
    let sources = normalize_sources(&queries, &raws, &targets());
    let summary: Vec<(&str, &str, u32, &str)> =
        sources.iter().map(|s| (s.id.as_str(), s.url.as_str(), s.best_rank, s.title.as_str())).collect();
    assert_eq!(
        summary,
        vec![
            ("src_1", "https://rival.cn/about", 1, "Rival 介绍"),
            ("src_2", "https://yuangouchang.com", 1, "元构场 首页"),
            ("src_3", "https://www.yuangouchang.com", 1, "元构场官网"),
            ("src_4", "https://www.zhihu.com/question/1", 2, "GEO 是什么？一文读懂 - 知乎"),
        ]
    );
    let zhihu = &sources[3];
    assert_eq!(zhihu.page_age.as_deref(), Some("2025-03-01"), "first non-empty page age");
    let occ: Vec<(u32, Option<&str>, u32)> =
        zhihu.occurrences.iter().map(|o| (o.query_index, o.query.as_deref(), o.rank)).collect();
    assert_eq!(occ, vec![(1, Some("GEO 服务商 推荐"), 3), (2, Some("元构场 评价"), 2), (3, None, 5)]);
    assert_eq!((zhihu.host.as_str(), zhihu.domain.as_str()), ("www.zhihu.com", "zhihu.com"));
    assert_eq!(
        (zhihu.platform.as_str(), zhihu.channel.as_str(), zhihu.ownership),
        ("知乎", "qa", Ownership::ThirdParty)
    );
    assert!(zhihu.title_mentions.is_empty());

    let rival = &sources[0];
    assert_eq!((rival.ownership, rival.competitor_id.as_deref()), (Ownership::Competitor, Some("t_c1")));
    assert_eq!(rival.title_mentions, vec!["t_c1".to_string()]);
    let owned = &sources[2];
    assert_eq!(
        (owned.ownership, owned.channel.as_str(), owned.platform.as_str()),
        (Ownership::Owned, "official", "元构场")
    );
    assert_eq!(owned.page_age, None, "an empty page age is no page age");
    assert_eq!(owned.title_mentions, vec!["t_brand".to_string()]);
}

#[test]
fn longer_title_wins_and_ties_keep_the_first() {
    let queries = vec![q(1, Some("a"), false)];
    let raws = vec![
        raw(1, 2, "短标题", "https://example.com/p", None),
        raw(1, 3, "一个更长的标题", "https://example.com/p?utm_medium=x", None),
        raw(1, 4, "同样长度标题", "https://example.com/p#x", None),
        raw(1, 1, "  ", "https://example.com/p/", None),
    ];
    let sources = normalize_sources(&queries, &raws, &[]);
    assert_eq!(sources.len(), 1);
    assert_eq!(sources[0].title, "一个更长的标题");
    assert_eq!(sources[0].best_rank, 1);
    assert_eq!(sources[0].occurrences.len(), 4);
}

#[test]
fn ties_on_rank_and_title_fall_back_to_url() {
    let queries = vec![q(1, Some("a"), false), q(2, Some("b"), false)];
    let raws = vec![
        raw(1, 1, "Same", "https://b.example.com", None),
        raw(2, 1, "Same", "https://a.example.com", None),
        raw(1, 2, "Alpha", "https://c.example.com", None),
    ];
    let ids: Vec<(String, String)> =
        normalize_sources(&queries, &raws, &[]).into_iter().map(|s| (s.id, s.url)).collect();
    assert_eq!(
        ids,
        vec![
            ("src_1".into(), "https://a.example.com".into()),
            ("src_2".into(), "https://b.example.com".into()),
            ("src_3".into(), "https://c.example.com".into()),
        ]
    );
}

#[test]
fn unknown_query_index_and_empty_input() {
    let sources = normalize_sources(&[], &[raw(9, 1, "t", "https://example.com", None)], &[]);
    assert_eq!(sources[0].occurrences[0].query, None);
    assert_eq!(sources[0].platform, "example.com");
    assert_eq!(sources[0].channel, "other");
    assert!(normalize_sources(&[], &[], &targets()).is_empty());
}
