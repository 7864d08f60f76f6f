//! Citation markers (engines.md, "Chinese engines"): a marker is not a word and not a link.
//! Chinese answers in Qwen's `[ref_n]`, ERNIE's `^[n]^` and Hunyuan's `[n]` / `[^n]` styles,
//! with a brand followed directly by a marker, analysed as a live probe is.

use geo_core::analysis::analyze_probe;
use geo_core::model::{Probe, Target, TargetKind};

fn target(id: &str, kind: TargetKind, aliases: &[&str], domain: &str) -> Target {
    Target {
        id: id.into(),
        kind,
        label: aliases[0].into(),
        aliases: aliases.iter().map(|a| a.to_string()).collect(),
        domains: vec![domain.into()],
    }
}

fn targets() -> Vec<Target> {
    vec![
        target("brand", TargetKind::Brand, &["元构场", "Acme"], "acme.example"),
        target("star", TargetKind::Competitor, &["星链营销"], "star.example"),
    ]
}

fn analysed(answer: &str) -> Probe {
    let mut p: Probe = serde_json::from_value(serde_json::json!({
        "id": "r__p__0", "runId": "r", "projectId": "pr", "promptId": "p", "repeatIndex": 0,
        "status": "success", "createdAt": "2026-12-01T00:00:00.000Z", "rawAnswer": answer,
    }))
    .unwrap();
    analyze_probe(&mut p, &targets());
    p
}

const QWEN: &str = "以下是推荐的 GEO 服务商[ref_1]：\n\n\
1. 元构场[ref_1][ref_2]：专注 GEO 优化，官网 https://acme.example/geo[ref_2]。\n\
2. 星链营销[ref_3]：老牌 SEO 服务商。\n\
3. 智推科技[ref_无]：提供监测工具。\n\n\
总体而言，元构场[ref_1]和星链营销[ref_3]更值得关注，详见 https://rank.example/list[ref_4]";

const ERNIE: &str =
    "推荐如下：\n\n1. 元构场^[1][2]^：专注 GEO。\n2. 星链营销^[3]^：老牌服务商，见 https://rank.example/list^[3]^";

const HUNYUAN: &str =
    "推荐如下：\n\n1. 元构场[1]：专注 GEO。\n2. 星链营销[^2]：老牌服务商，见 https://rank.example/list[2]";

#[track_caller]
fn check(answer: &str, titles: &[&str], links: &[&str]) {
    let p = analysed(answer);
    let got: Vec<&str> = p.list_items.iter().map(|i| i.title.as_str()).collect();
    assert_eq!(got, titles, "list titles of {answer:?}");
    let got: Vec<&str> = p.answer_links.iter().map(|l| l.url.as_str()).collect();
    assert_eq!(got, links, "answer links of {answer:?}");
    let brand = p.mentions.iter().find(|m| m.target_id == "brand").expect("the brand is mentioned");
    let star = p.mentions.iter().find(|m| m.target_id == "star").expect("the competitor is mentioned");
    assert_eq!((brand.list_position, star.list_position), (Some(1), Some(2)));
    for text in p
        .list_items
        .iter()
        .flat_map(|i| [&i.title, &i.text])
        .chain(&p.other_entities)
        .chain(p.mentions.iter().map(|m| &m.context))
    {
        assert!(!text.contains("[ref_") && !text.contains("^[") && !text.contains("[^"), "a marker in {text:?}");
    }
    // The answer a user reads keeps its markers.
    assert!(p.answer.contains(if answer.contains("[ref_") { "[ref_" } else { "[" }));
}

#[test]
fn qwen_ref_markers_are_not_words_or_links() {
    check(QWEN, &["元构场", "星链营销", "智推科技"], &["https://acme.example/geo", "https://rank.example/list"]);
    let p = analysed(QWEN);
    assert!(p.other_entities.iter().all(|e| e == "智推科技"), "{:?}", p.other_entities);
}

#[test]
fn ernie_caret_markers_are_not_words_or_links() {
    check(ERNIE, &["元构场", "星链营销"], &["https://rank.example/list"]);
}

#[test]
fn hunyuan_numbered_and_footnote_markers_are_not_words_or_links() {
    check(HUNYUAN, &["元构场", "星链营销"], &["https://rank.example/list"]);
}

#[test]
fn a_marker_between_an_ascii_alias_and_a_word_keeps_them_apart() {
    let p = analysed("Acme[1]Beta and Acme[2].");
    let brand = p.mentions.iter().find(|m| m.target_id == "brand").expect("Acme is mentioned");
    assert_eq!(brand.count, 2);
}
