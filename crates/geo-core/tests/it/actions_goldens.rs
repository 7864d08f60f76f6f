//! Goldens of `geo-probe actions` (`geo_core::actions`) on the demo data and on the
//! purpose-built `fixtures/exports/actions.json`, loaded the way every command loads a file
//! (parse, validate, re-analyse), with the facts each fixture was built for asserted by name.

use geo_core::actions::{actions_for_export, actions_markdown, Actions, ActionsError, ItemStatus};
use geo_core::analysis::analyze_envelope;
use geo_core::export::markdown::markdown_report;
use geo_core::export::{parse_export, validate_against, ImportLimits};
use geo_core::model::{ExportEnvelope, FactSnapshot, Lang, RawCitation};
use geo_core::provider::spec;

fn load_text(text: &str) -> ExportEnvelope {
    let mut env = parse_export(text, &ImportLimits::default()).unwrap();
    assert!(validate_against(&env, &ExportEnvelope::new("")).is_empty());
    assert!(analyze_envelope(&mut env).is_empty());
    env
}

fn fixture() -> ExportEnvelope {
    let path = crate::support::fixtures_dir().join("exports/actions.json");
    load_text(&std::fs::read_to_string(path).unwrap())
}

fn demo() -> ExportEnvelope {
    let path = crate::support::fixtures_dir().join("../demo/demo-data.json");
    load_text(&std::fs::read_to_string(path).unwrap())
}

#[track_caller]
fn golden(name: &str, env: &ExportEnvelope, a: &Actions) {
    let run = env.run(&a.run_id).unwrap();
    let project = env.projects.iter().find(|p| p.id == run.project_id).map_or("", |p| p.name.as_str());
    insta::assert_snapshot!(format!("{name}_json"), serde_json::to_string_pretty(a).unwrap());
    insta::assert_snapshot!(format!("{name}_zh"), actions_markdown(a, run, project, spec(a.engine).name, Lang::Zh));
    insta::assert_snapshot!(format!("{name}_en"), actions_markdown(a, run, project, spec(a.engine).name, Lang::En));
}

fn ids(v: impl IntoIterator<Item = impl AsRef<str>>) -> Vec<String> {
    v.into_iter().map(|s| s.as_ref().to_string()).collect()
}

#[test]
fn a_prompt_lost_to_two_competitors_and_one_lost_anew() {
    let env = fixture();
    let a = actions_for_export(&env, Some("run_act_b"), None).unwrap();
    assert_eq!(a.against_id.as_deref(), Some("run_act_a"), "the previous run by default");
    let lost: Vec<(&str, u32, Option<ItemStatus>)> =
        a.lost_prompts.iter().map(|l| (l.prompt_id.as_str(), l.stake, l.status)).collect();
    assert_eq!(lost, [("p01", 2, Some(ItemStatus::Open)), ("p03", 2, Some(ItemStatus::New))]);
    let p01 = &a.lost_prompts[0];
    let rivals: Vec<(&str, f64)> = p01.competitors.iter().map(|c| (c.target_id.as_str(), c.mention_rate)).collect();
    assert_eq!(rivals, [("tgt_geoboost", 1.0), ("tgt_zhipu_marketing", 1.0)], "both ahead, ties by id");
    assert_eq!((p01.brand_mention_count, p01.success_count, p01.behind_share), (1, 3, 1.0));
    assert_eq!(p01.probe_ids.len(), 3);
    assert!(p01.brand_low < p01.brand_mention_rate && p01.brand_mention_rate < p01.brand_high);
    assert_eq!(p01.competitors[0].avg_list_position, Some(5.0 / 3.0), "GEOBoost at 2, 1, 2");
    let solved = a.solved.as_ref().unwrap();
    assert_eq!(solved.lost_prompts, ["p02"]);
    golden("actions_fixture_b", &env, &a);
}

#[test]
fn a_query_shared_by_three_prompts_spelt_three_ways() {
    let env = fixture();
    let a = actions_for_export(&env, Some("run_act_b"), None).unwrap();
    let shared = a.queries.iter().find(|q| q.query == "geo 服务商 推荐").expect("the folded query");
    assert_eq!(shared.prompt_ids, ["p01", "p02", "p03"]);
    assert_eq!(shared.probe_count, 7);
    assert!(!shared.owned && shared.competitor, "never the own site, a competitor's page once");
    assert_eq!(shared.status, Some(ItemStatus::Open));
    let own = a.queries.iter().find(|q| q.query == "元构场 官网").unwrap();
    assert!(own.owned);
    assert_eq!(own.status, Some(ItemStatus::Solved));
    let failed = a.queries.iter().find(|q| q.query == "geo 服务商 排名").expect("a failed search counts");
    assert_eq!((failed.probe_count, failed.domains.len()), (1, 0));
    assert_eq!(a.solved.as_ref().unwrap().queries, ["元构场 官网"]);
    assert_eq!(a.query_probe_count, a.success_count);
}

#[test]
fn a_cited_page_naming_the_competitors_is_a_page_to_be_on() {
    let env = fixture();
    let a = actions_for_export(&env, Some("run_act_b"), None).unwrap();
    let page = a.pages.iter().find(|p| p.domain == "36kr.com").unwrap();
    assert_eq!(page.url, "https://www.36kr.com/p/geo-review", "the canonical URL, not the one with utm_source");
    assert_eq!((page.probe_count, page.cited_count), (3, 2), "p01's two answers cite it, p03's does not");
    assert!(page.names_competitor && !page.names_brand);
    let case = a.pages.iter().find(|p| p.domain == "woshipm.com").unwrap();
    assert!(case.names_brand && !case.names_competitor);
    assert!(a.pages.iter().all(|p| p.domain != "yuangouchang.com" && p.domain != "zhipu-marketing.com"));
    assert!(a.pages.windows(2).all(|w| w[0].probe_count >= w[1].probe_count));
}

#[test]
fn the_link_check_counts_and_names_the_links_that_do_not_exist() {
    let env = fixture();
    let a = actions_for_export(&env, Some("run_act_b"), None).unwrap();
    let c = a.links.unwrap();
    assert_eq!((c.checked, c.ok, c.redirect, c.not_found, c.blocked, c.error), (4, 1, 1, 1, 1, 0));
    assert_eq!(a.not_found_links.len(), 1);
    assert_eq!(a.not_found_links[0].probe_ids, ids(["run_act_b__p01__0", "run_act_b__p01__1"]));
    let metrics = geo_core::metrics::metrics_for_export(&env, Some("run_act_b")).unwrap();
    assert_eq!(metrics[0].answer_link_check, Some(c), "`metrics` shows the same counts");
    let engines = geo_core::compare::engines_for_export(&env, None).unwrap();
    let claude = engines.engines.iter().find(|e| e.engine == geo_core::model::EngineId::Anthropic).unwrap();
    assert_eq!((claude.run_id.as_str(), claude.answer_link_check), ("run_act_b", Some(c)), "and `engines` per engine");
    let none = actions_for_export(&env, Some("run_act_a"), None).unwrap();
    assert_eq!(none.links, None);
}

#[test]
fn gemini_redirects_count_by_domain_and_perplexity_says_it_gives_no_queries() {
    let env = fixture();
    let gemini = actions_for_export(&env, Some("run_act_gemini"), None).unwrap();
    assert_eq!(gemini.against_id, None);
    let pages: Vec<(&str, bool, u32)> =
        gemini.pages.iter().map(|p| (p.url.as_str(), p.by_domain, p.probe_count)).collect();
    assert_eq!(pages, [("36kr.com", true, 2), ("zhihu.com", true, 2)]);
    golden("actions_fixture_gemini", &env, &gemini);
    let perplexity = actions_for_export(&env, Some("run_act_perplexity"), None).unwrap();
    assert!(perplexity.queries.is_empty());
    assert_eq!((perplexity.success_count, perplexity.query_probe_count, perplexity.source_probe_count), (2, 0, 2));
    golden("actions_fixture_perplexity", &env, &perplexity);
}

#[test]
fn the_demo_project() {
    let env = demo();
    let a = actions_for_export(&env, None, None).unwrap();
    assert_eq!(a.run_id, "run_20261129T020000_demo");
    assert_eq!(a.against_id.as_deref(), Some("run_20261122T020000_demo"));
    assert!(!a.lost_prompts.is_empty(), "the demo brand loses some prompts");
    assert!(a.queries.iter().any(|q| !q.owned), "some searches never bring back the own site");
    assert!(!a.pages.is_empty());
    golden("actions_demo", &env, &a);
    let first = actions_for_export(&env, Some("run_20261122T020000_demo"), None).unwrap();
    assert_eq!((first.against_id, first.solved), (None, None));
    assert!(first.lost_prompts.iter().all(|l| l.status.is_none()));
}

#[test]
fn the_report_holds_the_same_sections() {
    let env = fixture();
    let a = actions_for_export(&env, Some("run_act_b"), None).unwrap();
    let run = env.run("run_act_b").unwrap();
    let report = markdown_report(&env, "run_act_b", Lang::En).unwrap();
    let sections = actions_markdown(&a, run, "x", spec(a.engine).name, Lang::En);
    let body = &sections[sections.find("## Prompts you lose").unwrap()..];
    assert!(report.contains(body), "the report carries the actions' sections");
    assert!(report.contains("answer links that do not exist: 1 of 4"));
}

#[test]
fn unknown_runs_are_named() {
    let env = fixture();
    let err = actions_for_export(&env, Some("nope"), None).unwrap_err();
    assert!(matches!(&err, ActionsError::UnknownRun { run_id, available } if run_id == "nope" && available.len() == 4));
    assert!(err.to_string().contains("`run_act_perplexity`"), "{err}");
    let err = actions_for_export(&env, Some("run_act_b"), Some("gone")).unwrap_err();
    assert!(err.to_string().starts_with("run `gone` is not in the export"), "{err}");
    assert_eq!(actions_for_export(&ExportEnvelope::new(""), None, None).unwrap_err(), ActionsError::NoRuns);
}

/// The actions fixture with a fact sheet in runs `run_act_a` and `run_act_b` and answers that
/// speak to it: in `run_act_b` the founding year is contradicted three times (twice citing
/// 36kr, once a Zhihu column), the headquarters once without a citation, the founding year of
/// 智谱营销 (contradicted in `run_act_a`) now stated rightly; the staff count, contradicted in
/// `run_act_a`, not spoken of in `run_act_b`.
fn with_fact_sheet() -> ExportEnvelope {
    let mut env = fixture();
    let sheet: FactSnapshot = serde_json::from_value(serde_json::json!({
        "facts": [
            { "id": "hq", "targetId": "tgt_yuangouchang", "label": "总部", "kind": "text", "cues": ["总部"],
              "accepted": ["杭州"], "rejected": ["上海"] },
            { "id": "founded", "targetId": "tgt_yuangouchang", "label": "成立年份", "kind": "year", "cues": ["成立"],
              "value": 2021 },
            { "id": "zp_founded", "targetId": "tgt_zhipu_marketing", "label": "智谱营销成立", "kind": "year",
              "cues": ["成立"], "value": 2015 },
            { "id": "staff", "targetId": "tgt_yuangouchang", "label": "员工", "kind": "number", "cues": ["员工"],
              "value": 80 },
        ],
    }))
    .unwrap();
    for run in env.runs.iter_mut().filter(|r| r.id == "run_act_a" || r.id == "run_act_b") {
        run.fact_snapshot = Some(sheet.clone());
    }
    let kr = "https://www.36kr.com/p/geo-review";
    let zhihu = "https://zhuanlan.zhihu.com/p/730";
    let cite = |url: &str, text: &str| RawCitation {
        url: url.into(),
        title: None,
        cited_text: Some(text.into()),
        index: None,
    };
    let answers: [(&str, &str, Vec<RawCitation>); 7] = [
        ("run_act_a__p01__0", "元构场成立于2019年。", vec![]),
        ("run_act_a__p01__2", "元构场员工数为 200。", vec![]),
        ("run_act_a__p01__1", "智谱营销成立于2010年。", vec![]),
        ("run_act_b__p01__0", "元构场成立于2019年。元构场总部位于上海。", vec![cite(kr, "元构场成立于2019年。")]),
        ("run_act_b__p01__1", "元构场成立于2019年，团队在杭州。", vec![cite(kr, "元构场成立于2019年")]),
        ("run_act_b__p02__1", "元构场成立于2018年。智谱营销成立于2015年。", vec![cite(zhihu, "元构场成立于2018年。")]),
        ("run_act_b__p02__0", "元构场成立于2021年。", vec![]),
    ];
    for (id, answer, citations) in answers {
        let p = env.probes.iter_mut().find(|p| p.id == id).unwrap();
        p.raw_answer = answer.into();
        p.raw_citations = Some(citations);
    }
    assert!(analyze_envelope(&mut env).is_empty());
    env
}

#[test]
fn wrong_facts_name_the_pages_behind_the_contradicting_sentences() {
    let env = with_fact_sheet();
    let a = actions_for_export(&env, Some("run_act_b"), None).unwrap();
    assert_eq!(a.fact_count, 4);
    let rows: Vec<(&str, u32, u32, u32, Option<ItemStatus>)> = a
        .wrong_facts
        .iter()
        .map(|f| (f.fact_id.as_str(), f.claim_count, f.probe_count, f.unsourced_count, f.status))
        .collect();
    assert_eq!(
        rows,
        [("founded", 3, 3, 0, Some(ItemStatus::Open)), ("hq", 1, 1, 1, Some(ItemStatus::New))],
        "by contradicting sentences; a fact stated rightly or not at all is not listed"
    );
    let founded = &a.wrong_facts[0];
    assert_eq!((founded.label.as_str(), founded.target_id.as_str()), ("成立年份", "tgt_yuangouchang"));
    assert_eq!(founded.values, ["2019", "2018"], "each value once, in order of appearance");
    assert_eq!(founded.probe_ids, ids(["run_act_b__p01__0", "run_act_b__p01__1", "run_act_b__p02__1"]));
    let pages: Vec<(&str, &str, u32, bool, Vec<String>)> = founded
        .pages
        .iter()
        .map(|p| (p.url.as_str(), p.domain.as_str(), p.claim_count, p.cited, p.probe_ids.clone()))
        .collect();
    assert_eq!(
        pages,
        [
            ("https://www.36kr.com/p/geo-review", "36kr.com", 2, true, ids(["run_act_b__p01__0", "run_act_b__p01__1"])),
            ("https://zhuanlan.zhihu.com/p/730", "zhihu.com", 1, true, ids(["run_act_b__p02__1"])),
        ]
    );
    assert!(a.wrong_facts[1].pages.is_empty() && a.wrong_facts[1].values == ["上海"]);
    let solved = a.solved.as_ref().unwrap();
    assert_eq!(solved.wrong_facts, ["zp_founded"], "contradicted then, stated rightly now; silence proves nothing");

    // The JSON names of the item (the Actions page reads them), sorted.
    let json = serde_json::to_value(&a).unwrap();
    let keys = |v: &serde_json::Value| v.as_object().unwrap().keys().cloned().collect::<Vec<_>>();
    assert_eq!(
        keys(&json["wrongFacts"][0]),
        [
            "claimCount",
            "factId",
            "label",
            "pages",
            "probeCount",
            "probeIds",
            "status",
            "targetId",
            "unsourcedCount",
            "values"
        ]
    );
    assert_eq!(
        keys(&json["wrongFacts"][0]["pages"][0]),
        ["byDomain", "cited", "claimCount", "domain", "probeIds", "title", "url"]
    );
    assert_eq!(json["solved"]["wrongFacts"], serde_json::json!(["zp_founded"]));

    let run = env.run("run_act_b").unwrap();
    let en = actions_markdown(&a, run, "x", spec(a.engine).name, Lang::En);
    let section = &en[en.find("## Wrong facts and the pages behind them").expect("the section")..];
    let section = &section[..section.find("\n## ").unwrap()];
    assert!(section.contains("| 成立年份 | 元构场 | 3 | 3 | 2019, 2018 | 0 | still open |"), "{section}");
    assert!(section.contains("| 总部 | 元构场 | 1 | 1 | 上海 | 1 | new |"), "{section}");
    assert!(section.contains("https://www.36kr.com/p/geo-review | 36kr.com | 2 | ✓ |"), "{section}");
    assert!(en.contains("- Facts no longer stated wrongly: 智谱营销成立\n"), "{en}");
    let zh = actions_markdown(&a, run, "x", spec(a.engine).name, Lang::Zh);
    assert!(zh.contains("## 说错的事实及其背后的页面") && zh.contains("- 不再被说错的事实: 智谱营销成立\n"), "{zh}");
    let report = markdown_report(&env, "run_act_b", Lang::En).unwrap();
    assert!(report.contains(section), "the report carries the section");

    // A run without a fact sheet has no such section (its report is as it was).
    let gemini = actions_for_export(&env, Some("run_act_gemini"), None).unwrap();
    assert_eq!((gemini.fact_count, gemini.wrong_facts.len()), (0, 0));
    let run = env.run("run_act_gemini").unwrap();
    assert!(!actions_markdown(&gemini, run, "x", spec(gemini.engine).name, Lang::En).contains("Wrong facts"));
    // With a sheet and no contradiction: the section says so.
    let first = actions_for_export(&env, Some("run_act_a"), None).unwrap();
    let run = env.run("run_act_a").unwrap();
    let ties: Vec<&str> = first.wrong_facts.iter().map(|f| f.fact_id.as_str()).collect();
    assert_eq!(ties, ["founded", "zp_founded", "staff"], "ties in the fact sheet's order");
    let mut clean = first.clone();
    clean.wrong_facts.clear();
    assert!(actions_markdown(&clean, run, "x", spec(clean.engine).name, Lang::En)
        .contains("No sentence contradicts the fact sheet."));
}
