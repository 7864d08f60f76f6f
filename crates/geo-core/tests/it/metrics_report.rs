//! Goldens of the Markdown report (both languages) and its escaping rules.

use crate::metrics_support::*;
use geo_core::export::markdown::markdown_report;
use geo_core::metrics::MetricsError;
use geo_core::model::Lang;
use geo_core::text::md::escape_cell;

#[track_caller]
fn check(input: &str, expect: &str) {
    assert_eq!(escape_cell(input), expect);
}

#[test]
fn cells_escape_pipes_newlines_and_html() {
    check("a | b", "a \\| b");
    check("line1\nline2\r\nline3\rline4", "line1 line2 line3 line4");
    check("<script>alert(1)</script>", "&lt;script&gt;alert(1)&lt;/script&gt;");
    check("[x](javascript:y) *b* _i_ `c` \\", "\\[x\\](javascript:y) \\*b\\* \\_i\\_ \\`c\\` \\\\");
    check("A&B 公司", "A&amp;B 公司");
}

#[test]
fn report_has_every_section_and_no_raw_html() {
    let env = sample_envelope();
    let md = markdown_report(&env, "r2", Lang::Zh).unwrap();
    for heading in ["## 核心指标", "## Prompt 表现", "## Top 来源", "## 来源变化", "## 关键发现", "## 口径与局限"]
    {
        assert!(md.contains(heading), "missing {heading}");
    }
    assert!(!md.contains("<b>"), "project name HTML must be neutralised");
    assert!(md.contains("| 提及率 | 60.0% | 3/5 |"));
    // The prompt text with `|` and a newline stays in one table row.
    assert!(md.contains("| 推荐 \\| 一些 工具 |"));
}

#[test]
fn unknown_run_is_an_error() {
    let env = sample_envelope();
    assert!(matches!(markdown_report(&env, "zzz", Lang::En), Err(MetricsError::UnknownRun { .. })));
}

#[test]
fn golden_report_zh() {
    insta::assert_snapshot!("report_r2_zh", markdown_report(&sample_envelope(), "r2", Lang::Zh).unwrap());
}

#[test]
fn golden_report_en_first_run() {
    insta::assert_snapshot!("report_r1_en", markdown_report(&sample_envelope(), "r1", Lang::En).unwrap());
}

/// engines.md "Fidelity": the report prices the billed usage and says how many answers a
/// length limit cut off.
#[test]
fn the_report_says_truncated_answers_and_prices_billed_usage() {
    let mut env = sample_envelope();
    let before = markdown_report(&env, "r2", Lang::En).unwrap();
    assert!(!before.contains("Truncated answers"));
    let p =
        env.probes.iter_mut().find(|p| p.run_id == "r2" && p.status == geo_core::model::ProbeStatus::Success).unwrap();
    p.truncated = true;
    p.billed_usage = Some(p.usage.plus(p.usage));
    p.attempts = 2;
    let after = markdown_report(&env, "r2", Lang::En).unwrap();
    assert!(after.contains("- Truncated answers: 1 (they hit the output limit and may be incomplete)"), "{after}");
    let cost = |md: &str| md.lines().find(|l| l.starts_with("- Estimated cost: $")).map(str::to_string);
    assert_ne!(cost(&before), cost(&after), "the retried attempt is billed");
    assert!(markdown_report(&env, "r2", Lang::Zh).unwrap().contains("- 被截断的回答: 1"));
}
