//! Every recorded response in `fixtures/responses/` parsed, with its key facts checked
//! (data-driven), plus the fixture project in `fixtures/project.json`.

use geo_core::analysis::clean::clean_answer;
use geo_core::model::{tags, EngineId, ExportEnvelope, TargetKind};
use geo_core::provider::{parse_engine_response, ParsedResponse};

const REQUESTED: &str = "deepseek-v4-flash";

use crate::support::{fixtures_dir, response_files};

/// Key facts of one fixture.
struct Expect {
    file: &'static str,
    /// Queries in order: `Some(words)` or `None` for internal ones.
    queries: &'static [Option<&'static str>],
    /// (query index, error code) of searches that returned an error object.
    errors: &'static [(u32, &'static str)],
    /// Raw sources per query, in query order.
    sources_per_query: &'static [u32],
    /// Substrings of the raw answer.
    contains: &'static [&'static str],
    /// Whether `clean_answer` leaves nothing (empty answer / preamble only).
    cleaned_empty: bool,
    model: &'static str,
    stop: &'static str,
    /// `usage.server_tool_use.web_search_requests`.
    searches: u64,
}

const EXPECT: &[Expect] = &[
    Expect {
        file: "01_zh_numbered_list",
        queries: &[Some("2026 GEO 生成式引擎优化 服务商 推荐"), Some("GEO优化公司 排名 口碑")],
        errors: &[],
        sources_per_query: &[5, 3],
        contains: &["\n\n1. 元构场：", "\n3. GEOBoost：", "\n5. 星图数智："],
        cleaned_empty: false,
        model: "deepseek-v4-flash",
        stop: "end_turn",
        searches: 2,
    },
    Expect {
        file: "02_zh_dunhao_list",
        queries: &[Some("AI搜索优化公司 推荐")],
        errors: &[],
        sources_per_query: &[4],
        contains: &["1、智谱营销", "2、元构场智能科技", "3、GEO Boost"],
        cleaned_empty: false,
        model: "deepseek-v4-flash",
        stop: "end_turn",
        searches: 1,
    },
    Expect {
        file: "03_zh_paren_list",
        queries: &[Some("GEO 监测工具 对比")],
        errors: &[],
        sources_per_query: &[3],
        contains: &["1) GEOBoost Monitor", "2) 元构场 GEO 探针", "3) 智谱营销 AI 雷达"],
        cleaned_empty: false,
        model: "deepseek-v4-flash",
        stop: "end_turn",
        searches: 1,
    },
    Expect {
        file: "04_zh_bold_numbered",
        queries: &[Some("品牌 AI 可见度 优化 公司"), Some("智谱营销 GEO 服务 评价")],
        errors: &[],
        sources_per_query: &[2, 2],
        contains: &["**1. 元构场智能科技**", "**2. 智谱营销**", "**3. GEOBoost**"],
        cleaned_empty: false,
        model: "deepseek-v4-flash",
        stop: "end_turn",
        searches: 2,
    },
    Expect {
        file: "05_zh_bullet_list",
        queries: &[Some("中小企业 GEO 优化 服务商 价格")],
        errors: &[],
        sources_per_query: &[3],
        contains: &["- **智谱营销**：", "- **GEOBoost**：", "- **元构场**："],
        cleaned_empty: false,
        model: "deepseek-v4-flash",
        stop: "end_turn",
        searches: 1,
    },
    Expect {
        file: "06_zh_markdown_table",
        queries: &[Some("元构场 智谱营销 GEOBoost 对比"), Some("GEOBoost 中国 客户")],
        errors: &[],
        sources_per_query: &[2, 1],
        contains: &["| 排名 | 服务商 |", "| 1 | 元构场 |", "| 3 | GEOBoost |", "| 4 | 蓝鲸问答优化 |"],
        cleaned_empty: false,
        model: "deepseek-v4-flash",
        stop: "end_turn",
        searches: 2,
    },
    Expect {
        file: "07_zh_interrupted_list",
        queries: &[Some("GEO 优化 服务商 排名 前五")],
        errors: &[],
        sources_per_query: &[3],
        contains: &["2. 智谱营销", "> 注：", "以下几家更侧重国内平台", "3. 元构场"],
        cleaned_empty: false,
        model: "deepseek-v4-flash",
        stop: "end_turn",
        searches: 1,
    },
    Expect {
        file: "08_zh_plain_prose",
        queries: &[Some("元构场智能科技 公司 介绍"), Some("元构场智能科技 工商信息")],
        errors: &[],
        sources_per_query: &[2, 2],
        contains: &["元构场智能科技（Yuangouchang）是一家"],
        cleaned_empty: false,
        model: "deepseek-v4-flash",
        stop: "end_turn",
        searches: 2,
    },
    Expect {
        file: "09_en_numbered_list",
        queries: &[Some("best generative engine optimization agencies 2026"), Some("GEO agency review ZhipuMarketing")],
        errors: &[],
        sources_per_query: &[3, 2],
        contains: &["1. **GEOBoost**", "[GEOBoost](https://geoboost.io/?utm_source=deepseek)", "https://www.bbc.co.uk/news/articles/c0geo2026xyz."],
        cleaned_empty: false,
        model: "deepseek-v4-flash",
        stop: "end_turn",
        searches: 2,
    },
    Expect {
        file: "10_search_error_max_uses",
        queries: &[Some("GEO 和 SEO 的区别"), Some("元构场 GEO 服务 内容"), Some("元构场 GEO 服务 价格")],
        errors: &[(3, "max_uses_exceeded")],
        sources_per_query: &[2, 1, 0],
        contains: &["元构场提供的GEO服务主要包括", "- AI可见度监测"],
        cleaned_empty: false,
        model: "deepseek-v4-flash",
        stop: "end_turn",
        searches: 2,
    },
    Expect {
        file: "11_internal_id_query",
        queries: &[None, None, Some("智谱营销 B2B GEO 案例"), None],
        errors: &[],
        sources_per_query: &[1, 2, 1, 1],
        contains: &["1. 元构场：", "2. 智谱营销："],
        cleaned_empty: false,
        model: "deepseek-v4-flash",
        stop: "end_turn",
        searches: 4,
    },
    Expect {
        file: "12_empty_no_text",
        queries: &[Some("GEOBoost 收费标准")],
        errors: &[],
        sources_per_query: &[2],
        contains: &[],
        cleaned_empty: true,
        model: "deepseek-v4-flash",
        stop: "end_turn",
        searches: 1,
    },
    Expect {
        file: "13_empty_whitespace",
        queries: &[Some("元构场 客服电话")],
        errors: &[],
        sources_per_query: &[1],
        contains: &["\n\n  \n"],
        cleaned_empty: true,
        model: "deepseek-v4-flash",
        stop: "end_turn",
        searches: 1,
    },
    Expect {
        file: "14_preamble_then_answer",
        queries: &[Some("2026 GEO 优化 服务 报价")],
        errors: &[],
        sources_per_query: &[3],
        contains: &["我先搜索一下2026年GEO优化服务的最新报价情况。\n\n根据公开报价，"],
        cleaned_empty: false,
        model: "deepseek-v4-flash",
        stop: "end_turn",
        searches: 1,
    },
    Expect {
        file: "15_preamble_only",
        queries: &[Some("免费 GEO 监测 工具")],
        errors: &[],
        sources_per_query: &[2],
        contains: &["让我先搜索一下目前可用的免费GEO监测工具。"],
        cleaned_empty: true,
        model: "deepseek-v4-flash",
        stop: "end_turn",
        searches: 1,
    },
    Expect {
        file: "16_duplicate_url_two_queries",
        queries: &[Some("元构场 GEO 监测报告 指标"), Some("GEO 提及率 来源占比 指标 定义")],
        errors: &[],
        sources_per_query: &[2, 3],
        contains: &["- 提及率：", "- 来源占比："],
        cleaned_empty: false,
        model: "deepseek-v4-flash",
        stop: "end_turn",
        searches: 2,
    },
    Expect {
        file: "17_tracking_params_subdomains",
        queries: &[Some("AI 搜索 品牌 内容 布局 平台"), Some("generative engine optimisation brands publishers")],
        errors: &[],
        sources_per_query: &[5, 5],
        contains: &["- 百科类：", "- 微信公众号："],
        cleaned_empty: false,
        model: "deepseek-v4-flash",
        stop: "end_turn",
        searches: 2,
    },
    Expect {
        file: "18_answer_links",
        queries: &[Some("元构场 官网 案例")],
        errors: &[],
        sources_per_query: &[3],
        contains: &[
            "[元构场官网](https://www.yuangouchang.com/?utm_source=deepseek)",
            "https://www.yuangouchang.com/cases。",
            "（https://zhuanlan.zhihu.com/p/7243210987）。",
            "[天眼查](https://www.tianyancha.com/company/3291234567)",
        ],
        cleaned_empty: false,
        model: "deepseek-v4-flash",
        stop: "end_turn",
        searches: 1,
    },
    Expect {
        file: "19_html_script_in_answer",
        queries: &[Some("GEOBoost 产品页面")],
        errors: &[],
        sources_per_query: &[2],
        contains: &["<script>alert(1)</script>", "<img src=x onerror=alert(document.cookie)>", "<div onclick=\"steal()\">"],
        cleaned_empty: false,
        model: "deepseek-v4-flash",
        stop: "end_turn",
        searches: 1,
    },
    Expect {
        file: "20_citations_split_text",
        queries: &[Some("智谱营销 母公司")],
        errors: &[],
        sources_per_query: &[2],
        contains: &["根据公开资料，智谱营销是上海智谱文化传媒有限公司旗下的GEO服务品牌，与元构场、GEOBoost一样主要服务品牌客户。"],
        cleaned_empty: false,
        model: "deepseek-v4-pro",
        stop: "max_tokens",
        searches: 1,
    },
    Expect {
        file: "21_en_preamble_citations",
        queries: &[Some("Yuangouchang founded year")],
        errors: &[],
        sources_per_query: &[1],
        contains: &["I'll search for when Yuangouchang was founded.\n\nBased on the search results, Yuangouchang was founded in 2023 in Hangzhou. It builds"],
        cleaned_empty: false,
        model: REQUESTED,
        stop: "end_turn",
        searches: 1,
    },
    Expect {
        file: "22_zh_generic_brand_absent",
        queries: &[Some("国内 AI搜索优化 GEO 服务商"), Some("GEO服务商 评价 口碑")],
        errors: &[],
        sources_per_query: &[3, 2],
        contains: &["\n\n1. 智谱营销：", "\n4. 星图数智："],
        cleaned_empty: false,
        model: "deepseek-v4-flash",
        stop: "end_turn",
        searches: 2,
    },
    Expect {
        file: "23_zh_generic_brand_gained",
        queries: &[Some("国内 AI搜索优化 服务商 有哪些"), Some("GEO 监测 优化 公司 2026")],
        errors: &[],
        sources_per_query: &[3, 2],
        contains: &["\n3. 元构场智能科技：据[36氪的报道](https://36kr.com/p/3021456789012345)"],
        cleaned_empty: false,
        model: "deepseek-v4-flash",
        stop: "end_turn",
        searches: 2,
    },
    Expect {
        file: "24_zh_generic_competitor_first",
        queries: &[Some("让品牌出现在AI回答里 GEO 公司 推荐")],
        errors: &[],
        sources_per_query: &[4],
        contains: &["\n\n- **GEOBoost**：", "\n- **云雀内容工场**："],
        cleaned_empty: false,
        model: "deepseek-v4-flash",
        stop: "end_turn",
        searches: 1,
    },
    Expect {
        file: "25_zh_generic_sources_shift",
        queries: &[Some("GEO公司 对比 横评"), Some("智谱营销 GEOBoost 案例")],
        errors: &[],
        sources_per_query: &[2, 3],
        contains: &["\n\n1. 智谱营销：", "\n3. 星图数智："],
        cleaned_empty: false,
        model: "deepseek-v4-flash",
        stop: "end_turn",
        searches: 2,
    },
    Expect {
        file: "26_zh_brand_profile_variant",
        queries: &[Some("元构场智能科技 是做什么的")],
        errors: &[],
        sources_per_query: &[3],
        contains: &["元构场智能科技是一家杭州的营销科技公司", "[公司介绍](https://yuangouchang.cn/about)"],
        cleaned_empty: false,
        model: "deepseek-v4-flash",
        stop: "end_turn",
        searches: 1,
    },
    // Twins of 01 (engines.md, "Fidelity"): no `usage.server_tool_use`, so its two result
    // lists are its searches; the budget ran out while thinking: no search, no text.
    Expect {
        file: "t01_no_server_tool_use_usage",
        queries: &[Some("2026 GEO 生成式引擎优化 服务商 推荐"), Some("GEO优化公司 排名 口碑")],
        errors: &[],
        sources_per_query: &[5, 3],
        contains: &["\n\n1. 元构场："],
        cleaned_empty: false,
        model: "deepseek-v4-flash",
        stop: "end_turn",
        searches: 2,
    },
    Expect {
        file: "t01_thinking_max_tokens",
        queries: &[],
        errors: &[],
        sources_per_query: &[],
        contains: &[],
        cleaned_empty: true,
        model: "deepseek-v4-flash",
        stop: "max_tokens",
        searches: 0,
    },
];

#[track_caller]
fn check(expect: &Expect, body: &str) {
    let file = expect.file;
    let p: ParsedResponse =
        parse_engine_response(EngineId::Deepseek, body, REQUESTED).unwrap_or_else(|e| panic!("{file}: {e:?}"));
    let queries: Vec<Option<&str>> = p.queries.iter().map(|q| q.query.as_deref()).collect();
    assert_eq!(queries, expect.queries, "{file}: queries");
    for (i, q) in p.queries.iter().enumerate() {
        assert_eq!(q.index as usize, i + 1, "{file}: query numbering");
        assert_eq!(q.internal, q.query.is_none(), "{file}: internal flag of query {}", q.index);
    }
    let errors: Vec<(u32, &str)> = p.queries.iter().filter_map(|q| q.error.as_deref().map(|e| (q.index, e))).collect();
    assert_eq!(errors, expect.errors, "{file}: search errors");
    let per_query: Vec<u32> =
        p.queries.iter().map(|q| p.raw_sources.iter().filter(|s| s.query_index == q.index).count() as u32).collect();
    assert_eq!(per_query, expect.sources_per_query, "{file}: sources per query");
    for q in &p.queries {
        let ranks: Vec<u32> = p.raw_sources.iter().filter(|s| s.query_index == q.index).map(|s| s.rank).collect();
        assert_eq!(
            ranks,
            (1..=ranks.len() as u32).collect::<Vec<_>>(),
            "{file}: ranks restart at 1 for query {}",
            q.index
        );
    }
    for needle in expect.contains {
        assert!(p.raw_answer.contains(needle), "{file}: answer lacks {needle:?}\n{}", p.raw_answer);
    }
    assert_eq!(
        clean_answer(&p.raw_answer).is_empty(),
        expect.cleaned_empty,
        "{file}: cleaned answer {:?}",
        clean_answer(&p.raw_answer)
    );
    assert_eq!(p.model, expect.model, "{file}: model");
    assert_eq!(p.stop_reason.as_deref(), Some(expect.stop), "{file}: stop reason");
    assert_eq!(p.usage.web_search_requests, expect.searches, "{file}: web_search_requests");
    assert!(p.usage.input_tokens > 0 && p.usage.output_tokens > 0, "{file}: usage");
    assert!(p.request_id.is_some(), "{file}: request id");
}

#[test]
fn every_fixture_parses_with_its_key_facts() {
    let files = response_files();
    let names: Vec<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
    let expected: Vec<&str> = EXPECT.iter().map(|e| e.file).collect();
    assert_eq!(names, expected, "every fixture has exactly one expectation");
    assert!(files.len() >= 16);
    for (expect, (_, body)) in EXPECT.iter().zip(&files) {
        check(expect, body);
    }
}

#[test]
fn deepseek_shapes_are_exercised() {
    let all: String = response_files().into_iter().map(|(_, b)| b).collect();
    for shape in [
        "\"caller\"",
        "\"signature\"",
        "\"encrypted_content\"",
        "\"page_age\": null",
        "\"call_00_",
        "\"service_tier\"",
        "\"cache_read_input_tokens\"",
        "\"redacted_thinking\"",
        "\"tool_use\"",
        "\"citations\"",
        "web_search_tool_result_error",
        "ws_call_id=",
        "wapbaike.baidu.com",
        "baike.baidu.com",
        "zhuanlan.zhihu.com",
        "news.sina.com.cn",
        "mp.weixin.qq.com",
        "www.bbc.co.uk",
        ".com.cn",
        ".co.uk",
        "utm_",
        "spm=",
        "from=",
        "ref=",
        "share_",
        "gclid=",
        "fbclid=",
    ] {
        assert!(all.contains(shape), "no fixture contains {shape}");
    }
}

#[test]
fn one_url_returned_by_two_queries_with_different_titles() {
    let body = std::fs::read_to_string(fixtures_dir().join("responses/16_duplicate_url_two_queries.json")).unwrap();
    let p = parse_engine_response(EngineId::Deepseek, &body, REQUESTED).unwrap();
    let zhihu: Vec<_> =
        p.raw_sources.iter().filter(|s| s.url.starts_with("https://zhuanlan.zhihu.com/p/7265432109")).collect();
    assert_eq!(zhihu.len(), 2);
    assert_ne!(zhihu[0].query_index, zhihu[1].query_index);
    assert_ne!(zhihu[0].title, zhihu[1].title);
    assert_eq!((zhihu[0].rank, zhihu[1].rank), (2, 1));
}

#[test]
fn the_fixture_project_matches_the_fixtures() {
    let text = std::fs::read_to_string(fixtures_dir().join("project.json")).unwrap();
    let env: ExportEnvelope = serde_json::from_str(&text).expect("project.json is an export envelope");
    assert_eq!((env.format.as_str(), env.version), ("geo-probe-export", 1));
    assert_eq!(env.projects.len(), 1);
    let project = &env.projects[0];
    assert_eq!(project.brand.kind, TargetKind::Brand);
    assert_eq!(project.brand.aliases, ["元构场", "元构场智能科技", "Yuangouchang"]);
    assert_eq!(project.brand.domains, ["yuangouchang.com", "yuangouchang.cn"]);
    let competitors: Vec<&str> = project.competitors.iter().map(|c| c.label.as_str()).collect();
    assert_eq!(competitors, ["智谱营销", "GEOBoost"]);
    assert!(project.competitors.iter().all(|c| c.kind == TargetKind::Competitor));
    // Twins (`tNN_…`) answer no prompt of their own.
    let files: Vec<(String, String)> = response_files().into_iter().filter(|(n, _)| !n.starts_with('t')).collect();
    assert_eq!(env.prompts.len(), files.len(), "one prompt per fixture");
    for (prompt, (name, _)) in env.prompts.iter().zip(&files) {
        assert_eq!(prompt.id, format!("p{}", &name[..2]), "prompt {} ↔ fixture {name}", prompt.id);
        assert_eq!(prompt.project_id, project.id);
        assert!(
            !prompt.tags.is_empty() && prompt.tags.iter().all(|t| tags::ALL.contains(&t.as_str())),
            "{}",
            prompt.id
        );
    }
}
