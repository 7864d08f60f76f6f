//! The nine insight rules of seed §7, one at a time, then order, dedupe and the cap of five.

use crate::metrics_support::*;
use geo_core::metrics::{build_insights, compute_run_metrics, RunMetrics, TagMetrics};

/// Rebuilds `m.tags` from the (mutated) prompt rows, so a test can retag a prompt: the
/// insight rules read the tag rows.
fn retag(m: &mut RunMetrics) {
    let mut tags: Vec<TagMetrics> = Vec::new();
    for p in &m.prompts {
        for tag in &p.tags {
            let row = match tags.iter().position(|t| &t.tag == tag) {
                Some(i) => &mut tags[i],
                None => {
                    tags.push(TagMetrics {
                        tag: tag.clone(),
                        success_count: 0,
                        mention_rate: None,
                        first_mention_rate: None,
                        avg_order: None,
                        prompt_count: 0,
                        probe_count: 0,
                        failed_count: 0,
                        mention_count: 0,
                        first_mention_count: 0,
                        mention_rate_ci: None,
                    });
                    tags.last_mut().unwrap()
                }
            };
            row.prompt_count += 1;
            row.success_count += p.success_count;
            row.mention_count += p.mention_count;
        }
    }
    m.tags = tags;
}

/// A baseline on which no rule fires: successes, an owned source, mid mention rate, stable
/// sources, no previous run, no tagged prompts, no domains.
fn quiet() -> RunMetrics {
    let (_, _, _, r2, p2) = sample();
    let mut m = compute_run_metrics(&r2, &p2, None);
    m.domains.clear();
    m.source_stability = Some(0.9);
    m.mention_rate = Some(0.5);
    for p in &mut m.prompts {
        p.tags.clear();
    }
    retag(&mut m);
    m
}

fn kinds(m: &RunMetrics) -> Vec<String> {
    build_insights(m).into_iter().map(|i| i.kind).collect()
}

#[track_caller]
fn check(mutate: impl FnOnce(&mut RunMetrics), expect: &[&str]) {
    let mut m = quiet();
    mutate(&mut m);
    retag(&mut m);
    assert_eq!(kinds(&m), expect);
}

#[test]
fn baseline_is_quiet() {
    check(|_| {}, &[]);
}

#[test]
fn rule_1_no_success() {
    check(
        |m| {
            m.success_count = 0;
            m.mention_rate = None;
        },
        &["no_success"],
    );
}

#[test]
fn rule_2_generic_prompts_without_mentions() {
    check(|m| m.prompts[2].tags = vec!["generic".into()], &["generic_not_mentioned"]);
    // p1 is generic and mentions the brand once: the rule looks at all generic prompts together.
    check(|m| m.prompts[0].tags = vec!["generic".into()], &[]);
    check(
        |m| {
            m.prompts[2].tags = vec!["generic".into()];
            m.prompts[2].success_count = 0;
        },
        &[],
    );
}

#[test]
fn rule_3_brand_prompts_recognised() {
    check(|m| m.prompts[1].tags = vec!["brand".into()], &["brand_recognized"]);
    check(|m| m.prompts[2].tags = vec!["brand".into()], &[]);
}

#[test]
fn rule_4_no_owned_source() {
    check(|m| m.counts.owned_probe_count = 0, &["no_owned_source"]);
}

#[test]
fn rule_5_top_source() {
    let (_, _, _, r2, p2) = sample();
    let full = compute_run_metrics(&r2, &p2, None);
    let mut m = quiet();
    m.domains = full.domains.clone();
    let insights = build_insights(&m);
    assert_eq!(insights.len(), 1);
    assert_eq!(insights[0].kind, "top_source");
    assert_eq!(insights[0].title, "Top 来源：zhihu");
    assert_eq!(insights[0].detail, "zhihu.com（zhihu）出现在 60.0% 的成功探测中（3/5），平均位次 2.50，来源次数 4。");
    assert_eq!(
        insights[0].detail_en,
        "zhihu.com (zhihu) was retrieved in 60.0% of successful probes (3/5), average rank 2.50, 4 occurrences."
    );
}

#[test]
fn rule_6_low_stability() {
    check(|m| m.source_stability = Some(0.39), &["low_stability"]);
    check(|m| m.source_stability = Some(0.4), &[]);
    check(|m| m.source_stability = None, &[]);
}

#[test]
fn rule_7_source_change() {
    check(|m| m.new_domains = vec!["a.com".into()], &["source_change"]);
    check(|m| m.lost_domains = vec!["b.com".into()], &["source_change"]);
}

#[test]
fn rules_8_and_9_mention_rate_thresholds() {
    check(|m| m.mention_rate = Some(0.8), &["high_mention_rate"]);
    check(|m| m.mention_rate = Some(0.79), &[]);
    check(|m| m.mention_rate = Some(0.19), &["low_mention_rate"]);
    check(|m| m.mention_rate = Some(0.2), &[]);
}

#[test]
fn order_is_the_rule_order_and_at_most_five_are_kept() {
    let (_, _, _, r2, p2) = sample();
    let full = compute_run_metrics(&r2, &p2, None);
    check(
        |m| {
            m.prompts[2].tags = vec!["generic".into()];
            m.prompts[1].tags = vec!["brand".into()];
            m.counts.owned_probe_count = 0;
            m.domains = full.domains.clone();
            m.source_stability = Some(0.1);
            m.new_domains = vec!["a.com".into()];
            m.mention_rate = Some(0.1);
        },
        &["generic_not_mentioned", "brand_recognized", "no_owned_source", "top_source", "low_stability"],
    );
}

#[test]
fn titles_are_chinese_with_english_beside() {
    let mut m = quiet();
    m.counts.owned_probe_count = 0;
    let insights = build_insights(&m);
    assert_eq!(insights[0].title, "官网未进入检索来源");
    assert_eq!(insights[0].title_en, "Own site not among retrieved sources");
    let json = serde_json::to_value(&insights[0]).unwrap();
    assert_eq!(json["titleEn"], "Own site not among retrieved sources");
    assert_eq!(json["detail"], "5 次成功探测的检索来源里都没有品牌自有域名。");
}
