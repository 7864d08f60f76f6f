//! Property tests of `parse_list_items` and `apply_list_positions`: no panic on arbitrary
//! Unicode or on Markdown-like line soup, and the output invariants always hold.
//! Case count from `PROPTEST_CASES` (CI sets 10,000), 256 by default.

use geo_core::analysis::lists::{
    apply_list_positions, clean_title, parse_list_items, ParsedList, MAX_OTHER_ENTITIES, MAX_TITLE_CHARS, MIN_ITEMS,
};
use geo_core::analysis::mentions::match_targets;
use geo_core::model::{Target, TargetKind};
use geo_core::text::normalize_for_match;
use proptest::prelude::*;

fn targets() -> Vec<Target> {
    let t = |id: &str, kind, aliases: &[&str]| crate::support::target(id, kind, aliases[0], aliases, &[]);
    vec![
        t("yg", TargetKind::Brand, &["元构场", "元构场智能科技", "GEO"]),
        t("acme", TargetKind::Competitor, &["Acme", "ａｃｍｅ"]),
        t("beta", TargetKind::Competitor, &["Beta Labs", "贝塔"]),
    ]
}

#[rustfmt::skip]
const FRAGMENTS: &[&str] = &[
    "1. ", "2. ", "3.", "10、", "2) ", "3）", "(1) ", "（2）", "**1. ", "**2.** ", "### 1. ", "## 2. ", "#### ", "# ",
    "- ", "* ", "+ ", "• ", "  - ", "    ", "\t", "|", " | ", "|---|---|", "| :-: |", "```", "~~~", "---", "***",
    "元构场", "Acme", "ａｃｍｅ", "贝塔", "Beta Labs", "GEO", "George", "公司", "总结", "Tips", "：", ":", " - ", "——",
    "(", "（", "[", "]", "【", "】", "](http://x.y)", "`", "**", "_", "~~", "。", ".", "!", "é", "\u{3000}", "👍",
    "\u{200b}", "İ", "ﬁ", "\r", "x", "9", "999", "1000. ",
];

fn line_soup() -> impl Strategy<Value = String> {
    let line = prop::collection::vec(prop::sample::select(FRAGMENTS), 0..6).prop_map(|parts| parts.concat());
    prop::collection::vec(line, 0..24).prop_map(|lines| lines.join("\n"))
}

fn check_invariants(answer: &str, parsed: &ParsedList, targets: &[Target]) {
    assert!(parsed.items.is_empty() || parsed.items.len() >= MIN_ITEMS);
    assert!(parsed.other_entities.len() <= MAX_OTHER_ENTITIES);
    let ids: Vec<&str> = targets.iter().map(|t| t.id.as_str()).collect();
    for item in &parsed.items {
        assert!(item.position >= 1);
        assert!(item.title.chars().count() <= MAX_TITLE_CHARS);
        assert_eq!(item.title, item.title.trim());
        if let Some(id) = &item.matched_target_id {
            assert!(ids.contains(&id.as_str()));
        }
    }
    let mut keys: Vec<String> = parsed.other_entities.iter().map(|e| normalize_for_match(e)).collect();
    keys.sort();
    keys.dedup();
    assert_eq!(keys.len(), parsed.other_entities.len(), "otherEntities are deduplicated");
    // An entity is the title of an unmatched item; a matched item may share that title
    // ("- 公司：元构场" matches the brand by its text, "- 公司" does not).
    for e in &parsed.other_entities {
        assert!(
            parsed.items.iter().any(|i| &i.title == e && i.matched_target_id.is_none()),
            "{e:?} is the title of an unmatched item"
        );
    }
    assert_eq!(&parse_list_items(answer, targets), parsed, "deterministic");

    let mut mentions = match_targets(answer, targets);
    apply_list_positions(&mut mentions, &parsed.items, targets);
    let positions: Vec<u32> = parsed.items.iter().map(|i| i.position).collect();
    for m in &mentions {
        if let Some(p) = m.list_position {
            assert!(positions.contains(&p));
        }
        // A matched item always gives its target a position no later than the item's.
        for item in parsed.items.iter().filter(|i| i.matched_target_id.as_deref() == Some(m.target_id.as_str())) {
            assert!(m.list_position.is_some_and(|p| p <= item.position), "{m:?} vs {item:?}");
        }
    }
}

proptest! {
    #![proptest_config(crate::config())]

    #[test]
    fn never_panics_on_arbitrary_unicode(answer in any::<String>()) {
        let t = targets();
        let parsed = parse_list_items(&answer, &t);
        check_invariants(&answer, &parsed, &t);
        clean_title(&answer);
    }

    #[test]
    fn never_panics_on_markdown_like_line_soup(answer in line_soup()) {
        let t = targets();
        let parsed = parse_list_items(&answer, &t);
        check_invariants(&answer, &parsed, &t);
    }

    #[test]
    fn generated_numbered_lists_are_found(names in prop::collection::vec(prop::collection::vec(prop::char::range('a', 'z'), 3..9).prop_map(String::from_iter), 2..12)) {
        let answer: String = names.iter().enumerate().map(|(i, n)| format!("{}. Vendor{n}: text\n", i + 1)).collect();
        let parsed = parse_list_items(&format!("Intro.\n\n{answer}\nOutro."), &targets());
        let got: Vec<(u32, String)> = parsed.items.iter().map(|i| (i.position, i.title.clone())).collect();
        let want: Vec<(u32, String)> = names.iter().enumerate().map(|(i, n)| (i as u32 + 1, format!("Vendor{n}"))).collect();
        prop_assert_eq!(got, want);
    }
}

/// CI's case at 10,000 cases (stop 19): two items titled 公司, the first matched by its text.
#[test]
fn an_entity_may_share_its_title_with_a_matched_item() {
    let t = targets();
    let answer = "- 公司：元构场\n - 公司";
    let parsed = parse_list_items(answer, &t);
    assert_eq!(parsed.items.len(), 2);
    assert_eq!(parsed.items[0].matched_target_id.as_deref(), Some("yg"));
    assert_eq!(parsed.other_entities, vec!["公司".to_string()]);
    check_invariants(answer, &parsed, &t);
}
