//! Data-driven tests of `parse_list_items`, `clean_title` and `apply_list_positions`
//! (seed §5.4): every supported line shape in Chinese and English, code fences, merged
//! interrupted lists, scoring, tables, title cleaning, `otherEntities` and list positions.

use geo_core::analysis::lists::{apply_list_positions, clean_title, parse_list_items, ParsedList, MAX_OTHER_ENTITIES};
use geo_core::analysis::mentions::match_targets;
use geo_core::model::{ListItem, Target, TargetKind};

fn target(id: &str, kind: TargetKind, aliases: &[&str]) -> Target {
    crate::support::target(id, kind, aliases[0], aliases, &[])
}

fn targets() -> Vec<Target> {
    vec![
        target("yg", TargetKind::Brand, &["元构场", "元构场智能科技", "Yuangouchang"]),
        target("acme", TargetKind::Competitor, &["Acme"]),
        target("beta", TargetKind::Competitor, &["Beta Labs", "贝塔"]),
    ]
}

/// `(position, title, matchedTargetId)` of every parsed item.
type Expect<'a> = &'a [(u32, &'a str, Option<&'a str>)];

#[track_caller]
fn check(answer: &str, expect: Expect) -> ParsedList {
    let parsed = parse_list_items(answer, &targets());
    let got: Vec<(u32, &str, Option<&str>)> =
        parsed.items.iter().map(|i| (i.position, i.title.as_str(), i.matched_target_id.as_deref())).collect();
    assert_eq!(got, expect, "answer:\n{answer}");
    parsed
}

#[track_caller]
fn check_entities(answer: &str, expect: &[&str]) {
    assert_eq!(parse_list_items(answer, &targets()).other_entities, expect, "answer:\n{answer}");
}

#[test]
fn numbered_shapes_zh() {
    let expect: Expect = &[(1, "元构场智能科技", Some("yg")), (2, "贝塔营销", Some("beta")), (3, "星河数字", None)];
    check("推荐以下几家 GEO 服务商：\n1. 元构场智能科技：专注 GEO 优化\n2. 贝塔营销（北京）：老牌公司\n3. 星河数字 - 新锐\n\n以上仅供参考。", expect);
    check("1、元构场智能科技：专注 GEO\n2、贝塔营销（北京）\n3、星河数字——新锐", expect);
    check("1) 元构场智能科技：专注\n2) 贝塔营销(北京)\n3) 星河数字 – 新锐", expect);
    check("1）元构场智能科技：专注\n2）贝塔营销【北京】\n3）星河数字", expect);
    check("(1) 元构场智能科技：专注\n(2) 贝塔营销\n(3) 星河数字", expect);
    check("（1）元构场智能科技：专注\n（2）贝塔营销\n（3）星河数字", expect);
    check("1.元构场智能科技：专注\n2.贝塔营销\n3.星河数字", expect);
}

#[test]
fn numbered_shapes_en() {
    let expect: Expect = &[(1, "Acme", Some("acme")), (2, "Beta Labs", Some("beta")), (3, "Gamma Media", None)];
    check("Top picks:\n1. Acme: full-service GEO\n2. Beta Labs - analytics first\n3. Gamma Media (London)", expect);
    check("1) Acme: full-service\n2) Beta Labs — analytics\n3) Gamma Media", expect);
    check("(1) Acme\n(2) Beta Labs\n(3) Gamma Media", expect);
}

#[test]
fn bold_numbered_shapes() {
    let expect: Expect = &[(1, "元构场", Some("yg")), (2, "Acme", Some("acme")), (3, "星河数字", None)];
    check("**1. 元构场**：GEO 服务商\n**2. Acme**：海外\n**3. 星河数字**", expect);
    check("**1.** 元构场：GEO 服务商\n**2.** Acme - 海外\n**3.** 星河数字", expect);
    check("1. **元构场**：GEO 服务商\n2. **Acme** - 海外\n3. **星河数字**", expect);
    check("1. **[元构场](https://yg.example.com)** - GEO\n2. [Acme](https://acme.example.com)\n3. `星河数字`", expect);
}

#[test]
fn numbered_headings_own_their_section() {
    let answer = "## 推荐榜单\n\n### 1. 元构场智能科技\n\n- **优势**：懂 GEO\n- **价格**：中等\n\n---\n\n### 2. 星河数字\n\n- **优势**：便宜\n- **不足**：Acme 更大\n\n### 3. Gamma Media\n\n一段说明。\n\n## 总结\n\n- 建议先试用\n- 注意合同";
    let parsed =
        check(answer, &[(1, "元构场智能科技", Some("yg")), (2, "星河数字", Some("acme")), (3, "Gamma Media", None)]);
    assert!(parsed.items[0].text.contains("**价格**：中等"), "bullets under a heading are its body");
    assert!(parsed.items[2].text.contains("一段说明"));
    assert!(!parsed.items[2].text.contains("建议先试用"), "an h2 ends the h3 section");
}

#[test]
fn typical_sectioned_answer_picks_the_vendor_headings_over_the_advice_steps() {
    let answer = "根据搜索结果，以下是几家值得关注的GEO服务商：\n\n## 一、综合实力较强的服务商\n\n### 1. 元构场智能科技\n**核心优势**：懂GEO\n**适合客户**：中小企业\n\n### 2. 蓝色光标\n- 优势：大\n\n### 3. 某某营销有限公司（上海）\n\n## 二、选择建议\n\n1. **明确需求**：先想清楚\n2. **考察案例**：看案例\n3. **比较价格**：货比三家\n\n## 总结\n\n综上所述。";
    let parsed =
        check(answer, &[(1, "元构场智能科技", Some("yg")), (2, "蓝色光标", None), (3, "某某营销有限公司", None)]);
    assert_eq!(parsed.other_entities, ["蓝色光标", "某某营销有限公司"]);
    assert_eq!(parsed.items[0].text, "元构场智能科技\n**核心优势**：懂GEO\n**适合客户**：中小企业");
}

#[test]
fn bullet_shapes() {
    let expect: Expect = &[(1, "元构场", Some("yg")), (2, "Acme", Some("acme")), (3, "星河数字", None)];
    for m in ["-", "*", "+", "•"] {
        check(&format!("推荐：\n{m} 元构场：GEO\n{m} Acme（海外）\n{m} 星河数字"), expect);
    }
    check("• 元构场\n•Acme\n• 星河数字", expect);
    check(
        "- **Acme** — the original\n- **Beta Labs**: data\n- Gamma Media",
        &[(1, "Acme", Some("acme")), (2, "Beta Labs", Some("beta")), (3, "Gamma Media", None)],
    );
}

#[test]
fn nested_bullets_and_continuations_belong_to_the_item() {
    let parsed = check(
        "1. 元构场\n   - 优势：本地团队\n   - 价格：中等\n2. 星河数字\n   说明：Acme 的前团队\n3. Gamma\nlazy continuation",
        &[(1, "元构场", Some("yg")), (2, "星河数字", Some("acme")), (3, "Gamma", None)],
    );
    assert_eq!(parsed.items[0].text, "元构场\n- 优势：本地团队\n- 价格：中等");
    assert_eq!(parsed.items[2].text, "Gamma\nlazy continuation");
    check(
        "- Acme\n  - sub one\n  - sub two\n- Beta Labs\n\n  indented paragraph\n- Gamma",
        &[(1, "Acme", Some("acme")), (2, "Beta Labs", Some("beta")), (3, "Gamma", None)],
    );
}

#[test]
fn code_fences_are_skipped() {
    check("```\n1. 元构场\n2. Acme\n3. 贝塔\n```\n正文没有列表。", &[]);
    check("~~~markdown\n- 元构场\n- Acme\n~~~\n", &[]);
    check("````\n```\n- 元构场\n- Acme\n```\n````", &[]);
    check(
        "```\n1. Acme\n2. Beta Labs\n```\n\n1. 星河数字\n2. 元构场",
        &[(1, "星河数字", None), (2, "元构场", Some("yg"))],
    );
    check("1. 元构场\n```\n- not an item\n```\n2. Acme", &[(1, "元构场", Some("yg")), (2, "Acme", Some("acme"))]);
}

#[test]
fn interrupted_numbered_list_is_merged() {
    let parsed = check(
        "以下是推荐：\n\n1. 元构场：本地\n\n元构场成立于 2020 年，团队 50 人。\n\n2. Acme：海外\n\n这一家更贵。\n\n| a | b |\n|---|---|\n| x | y |\n\n3. 星河数字\n\n总之各有千秋。",
        &[(1, "元构场", Some("yg")), (2, "Acme", Some("acme")), (3, "星河数字", None)],
    );
    assert!(parsed.items[0].text.contains("团队 50 人"), "the interrupting paragraph describes item 1");
    assert!(!parsed.items[2].text.contains("各有千秋"), "trailing text after the last item is not merged");
    check(
        "1. **Acme**\n\n- detail a\n- detail b\n\n2. **Beta Labs**\n\n- detail c\n- detail d",
        &[(1, "Acme", Some("acme")), (2, "Beta Labs", Some("beta"))],
    );
    // A numbered sub-list of another style inside the interruption does not hide the outer list.
    let parsed = check(
        "1. 元构场\n\n原因：\n\n（1）本地\n（2）便宜\n\n2. Acme\n\n说明。\n\n1) 步骤一\n2) 步骤二\n\n3. 星河数字",
        &[(1, "元构场", Some("yg")), (2, "Acme", Some("acme")), (3, "星河数字", None)],
    );
    assert_eq!(parsed.items[0].text, "元构场\n原因：\n（1）本地\n（2）便宜");
    assert_eq!(parsed.items[1].text, "Acme\n说明。\n1) 步骤一\n2) 步骤二");
    // Numbering that does not continue (n+1) is not merged: two lists, the first wins the tie.
    check(
        "1. 星河数字\n2. 火山数字\n\n说明段落。\n\n5. 甲数字\n6. 乙数字",
        &[(1, "星河数字", None), (2, "火山数字", None)],
    );
}

#[test]
fn restarted_numbering_starts_a_new_group() {
    check("1. 明确目标\n2. 对比报价\n1. 元构场\n2. Acme", &[(1, "元构场", Some("yg")), (2, "Acme", Some("acme"))]);
}

#[test]
fn generic_lists_lose_to_the_company_list() {
    let answer = "推荐：\n1. 元构场\n2. 星河数字\n\n注意事项：\n- 总结：看预算\n- 建议：先试用\n- 优势：不必迷信\n- 参考：官网\n- 来源：公开资料";
    check(answer, &[(1, "元构场", Some("yg")), (2, "星河数字", None)]);
    let en = "## Tips\n- Summary\n- Pros\n- Cons\n- Conclusion\n\n## Vendors\n- Gamma Media\n- Delta Labs";
    check(en, &[(1, "Gamma Media", None), (2, "Delta Labs", None)]);
    // Alone, a generic list is still the best (only) list, but it names no entity.
    let parsed = check("- 总结\n- 建议", &[(1, "总结", None), (2, "建议", None)]);
    assert!(parsed.other_entities.is_empty());
}

#[test]
fn target_matches_outweigh_longer_lists() {
    check(
        "- 甲方\n- 乙方\n- 丙方\n- 丁方\n\n1. Acme\n2. 元构场",
        &[(1, "Acme", Some("acme")), (2, "元构场", Some("yg"))],
    );
}

#[test]
fn single_item_lists_and_non_lists_are_ignored() {
    check("1. 元构场 is the only one.", &[]);
    check("- 元构场\n\n正文。\n\n- Acme", &[]);
    check("圆周率约为\n3.14 左右\n2.5 倍\nv1.2 版本", &[]);
    check("", &[]);
    check("---\n***\n___", &[]);
    check("#hashtag one\n#hashtag two", &[]);
}

#[test]
fn tables_with_a_rank_column() {
    let answer = "| 排名 | 公司 | 特点 |\n|:---:|---|---|\n| 1 | **元构场智能科技** | 本地 |\n| 2 | Acme（海外） | 贵 |\n| 3 | 星河数字 | 新 |";
    let parsed = check(answer, &[(1, "元构场智能科技", Some("yg")), (2, "Acme", Some("acme")), (3, "星河数字", None)]);
    assert_eq!(parsed.items[2].text, "3 | 星河数字 | 新");
    // The rank column decides the position even out of order; `#` header and `No.` cells.
    check(
        "| # | Tool | Notes |\n|---|---|---|\n| No.2 | Beta Labs | data |\n| No.1 | Gamma Media | cheap |",
        &[(2, "Beta Labs", Some("beta")), (1, "Gamma Media", None)],
    );
    // A column whose every cell is a rank number is the rank column, whatever its header.
    check(
        "| 名称 | 推荐度 | 位 |\n|---|---|---|\n| 星河数字 | 高 | 2 |\n| 元构场 | 高 | 1 |",
        &[(2, "星河数字", None), (1, "元构场", Some("yg"))],
    );
}

#[test]
fn tables_without_a_rank_column() {
    check(
        "推荐如下：\n\n| Company | Pricing | Best for |\n| --- | --- | --- |\n| Acme | $$$ | enterprise |\n| Gamma Media | $ | startups |\n\n以上。",
        &[(1, "Acme", Some("acme")), (2, "Gamma Media", None)],
    );
    // No name header: the first mostly non-numeric column gives the title.
    check(
        "| 价格 | 服务商 | 评分 |\n|---|---|---|\n| 5000 | 星河数字 | 4.5 |\n| 8000 | 元构场 | 4.8 |",
        &[(1, "星河数字", None), (2, "元构场", Some("yg"))],
    );
    check(
        "| 9.5 | x |\n|---|---|\n| 9.1 | Gamma Media |\n| 8.7 | Delta Labs |",
        &[(1, "Gamma Media", None), (2, "Delta Labs", None)],
    );
}

#[test]
fn tables_with_too_few_rows_are_ignored() {
    check("| 公司 | 说明 |\n|---|---|\n| 元构场 | 本地 |", &[]);
    check("| 公司 | 说明 |\n|---|---|", &[]);
    check("| 公司 | 说明 |\n| 元构场 | 本地 |\n| Acme | 海外 |", &[]);
}

#[test]
fn table_loses_to_a_better_list() {
    check(
        "| 维度 | 说明 |\n|---|---|\n| 价格 | 看预算 |\n| 优势 | 看案例 |\n\n1. 元构场\n2. Acme",
        &[(1, "元构场", Some("yg")), (2, "Acme", Some("acme"))],
    );
}

#[track_caller]
fn title(raw: &str, expect: &str) {
    assert_eq!(clean_title(raw), expect, "raw: {raw}");
}

#[test]
fn title_cleaning() {
    title("**元构场智能科技**：专注 GEO", "元构场智能科技");
    title("元构场: GEO", "元构场");
    title("Acme - the best", "Acme");
    title("Acme — the best", "Acme");
    title("Acme – the best", "Acme");
    title("星河数字——新锐", "星河数字");
    title("贝塔营销（北京）", "贝塔营销");
    title("Gamma (London)", "Gamma");
    title("Delta [beta]", "Delta");
    title("星河【推荐】", "星河");
    title("【首选】元构场：好", "元构场");
    title("（推荐）", "推荐");
    title("[Acme](https://acme.example.com/a:b) - x", "Acme");
    title("![logo](x.png)Acme", "Acme");
    title("[Acme][1]", "Acme");
    title("`code_name`", "code_name");
    title("*Acme* _Labs_", "Acme Labs");
    title("__Acme__ ~~Old~~", "Acme Old");
    title("### Acme", "Acme");
    title("#1 Acme", "#1 Acme");
    title("GEO-Probe", "GEO-Probe");
    title("https://acme.example.com", "https://acme.example.com");
    title("Acme, Inc.", "Acme, Inc.");
    title("元构场，", "元构场");
    title("   ", "");
    title("[unclosed bracket", "[unclosed bracket");
    let long = "很".repeat(100);
    assert_eq!(clean_title(&long).chars().count(), 80);
}

#[test]
fn other_entities_are_company_like_deduped_and_capped() {
    check_entities(
        "1. 元构场\n2. 星河数字\n3. 星河数字\n4. 总结\n5. 这是一个完整的句子。\n6. Gamma Media\n7. x\n8. ⭐⭐\n9. gamma media",
        &["星河数字", "Gamma Media"],
    );
    let many: String = (1..=30).map(|i| format!("{i}. 公司{i}号\n")).collect();
    let parsed = parse_list_items(&many, &targets());
    assert_eq!(parsed.items.len(), 30);
    assert_eq!(parsed.other_entities.len(), MAX_OTHER_ENTITIES);
    assert_eq!(parsed.other_entities[0], "公司1号");
    assert_eq!(parsed.other_entities[19], "公司20号");
    check_entities(
        "- This is a long sentence about many vendors today\n- Acme Inc.\n- Gamma Media Group Ltd.",
        &["Gamma Media Group Ltd."],
    );
}

#[test]
fn matched_target_prefers_the_title_then_the_text_prefix() {
    let parsed = check(
        "1. Acme：元构场的对手\n2. 某公司：由元构场团队创办\n3. 另一家",
        &[(1, "Acme", Some("acme")), (2, "某公司", Some("yg")), (3, "另一家", None)],
    );
    assert!(parsed.other_entities == ["另一家"]);
    let far = format!("1. 甲公司：{}Acme\n2. 乙公司", "很".repeat(200));
    check(&far, &[(1, "甲公司", None), (2, "乙公司", None)]);
}

fn item(position: u32, title: &str, text: &str) -> ListItem {
    ListItem { position, title: title.into(), text: text.into(), matched_target_id: None }
}

#[test]
fn apply_list_positions_back_fills_mentions() {
    let t = targets();
    let answer = "1. 星河数字：Acme 的前团队\n2. 元构场\n3. Acme";
    let parsed = parse_list_items(answer, &t);
    let mut mentions = match_targets(answer, &t);
    apply_list_positions(&mut mentions, &parsed.items, &t);
    let got: Vec<(&str, Option<u32>)> = mentions.iter().map(|m| (m.target_id.as_str(), m.list_position)).collect();
    assert_eq!(got, vec![("acme", Some(1)), ("yg", Some(2))], "the lowest position wins for Acme");

    // A target on the list without a mention is skipped; stale positions are cleared.
    let mut mentions = match_targets("元构场", &t);
    mentions[0].list_position = Some(9);
    apply_list_positions(&mut mentions, &[item(4, "Beta Labs", "Beta Labs"), item(5, "x", "")], &t);
    assert_eq!(mentions[0].list_position, None);
    apply_list_positions(&mut [], &[item(1, "Acme", "")], &t);

    // Positions come from item numbers, not the index, and the text prefix counts.
    let mut mentions = match_targets("Acme 元构场", &t);
    apply_list_positions(
        &mut mentions,
        &[item(7, "甲", "甲：元构场"), item(3, "乙", &format!("{}Acme", "x ".repeat(100)))],
        &t,
    );
    let got: Vec<(&str, Option<u32>)> = mentions.iter().map(|m| (m.target_id.as_str(), m.list_position)).collect();
    assert_eq!(got, vec![("acme", None), ("yg", Some(7))]);
}

#[test]
fn a_list_of_metrics_yields_no_untracked_entities() {
    let parsed =
        geo_core::analysis::lists::parse_list_items("关注这些指标：\n\n1. 提及率\n2. 首位提及率\n3. 来源占比\n", &[]);
    assert_eq!(parsed.items.len(), 3);
    assert!(parsed.other_entities.is_empty(), "{:?}", parsed.other_entities);
    let parsed = geo_core::analysis::lists::parse_list_items("推荐：\n\n1. 蓝鲸科技\n2. 星图数智\n", &[]);
    assert_eq!(parsed.other_entities, vec!["蓝鲸科技".to_string(), "星图数智".to_string()]);
}
