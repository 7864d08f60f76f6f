//! A [`ClaimsReport`] as Markdown, in Chinese or English: `geo-probe claims --format markdown`
//! and the run report's section "What the answers say". Every sentence, label and domain goes
//! through the writer's cell escaping (`text::md`); sentences are quoted, never rendered.
//!
//! The run report (`export::markdown`) calls [`sections`]; this module imports only the
//! writer, never the report.

use super::{ClaimRow, ClaimsReport, FactsFrom};
use crate::model::{Lang, RiskKind, Run, Verdict};
use crate::text::md::{escape_cell, frac, heading, percent, table, Align};

/// Claims quoted per fact and verdict, and flagged sentences per target and kind; the rest is
/// counted (`geo-probe claims` in JSON lists them all).
pub const QUOTED: usize = 10;

/// The word for a verdict.
pub fn verdict_label(verdict: Verdict, lang: Lang) -> &'static str {
    match verdict {
        Verdict::Consistent => lang.pick("一致", "consistent"),
        Verdict::Contradicts => lang.pick("矛盾", "contradicts"),
        Verdict::Unverified => lang.pick("无法核对", "unverified"),
    }
}

/// The word for a risk kind.
pub fn kind_label(kind: RiskKind, lang: Lang) -> &'static str {
    match kind {
        RiskKind::Negative => lang.pick("负面", "negative"),
        RiskKind::Caution => lang.pick("谨慎", "caution"),
        RiskKind::Watch => lang.pick("关注词", "watch term"),
    }
}

/// The label of a target of the run (its id when unknown).
fn target_label<'a>(run: &'a Run, id: &'a str) -> &'a str {
    run.alias_snapshot.iter().find(|t| t.id == id).map_or(id, |t| t.label.as_str())
}

/// One quoted sentence: «sentence» — probe, and the domains behind it (cited ones marked).
fn quote(t: Lang, c: &ClaimRow) -> String {
    let mut line = format!("- 「{}」 — `{}`", escape_cell(&c.claim.sentence), c.probe_id.replace('`', "'"));
    if !c.sources.is_empty() {
        let sources: Vec<String> = c
            .sources
            .iter()
            .map(|s| {
                let cited = if s.cited == Some(true) { t.pick("（已引用）", " (cited)") } else { "" };
                format!("{}{cited}", escape_cell(&s.domain))
            })
            .collect();
        line.push_str(&format!(" · {}{}", t.pick("来源：", "sources: "), sources.join(t.pick("、", ", "))));
    }
    if !c.claim.values.is_empty() {
        let values: Vec<String> = c.claim.values.iter().map(|v| escape_cell(v)).collect();
        line.push_str(&format!(" · {}{}", t.pick("取值：", "values: "), values.join(t.pick("、", ", "))));
    }
    line.push('\n');
    line
}

/// "… and N more" when `total` exceeds what is shown.
fn more(md: &mut String, t: Lang, total: usize, shown: usize) {
    if total > shown {
        let n = total - shown;
        md.push_str(&format!("- {}\n", t.pick(&format!("…另有 {n} 条。"), &format!("… and {n} more."))));
    }
}

/// The fact-check part: the table of facts and the contradicting and unverified sentences.
fn facts_part(md: &mut String, report: &ClaimsReport, run: &Run, t: Lang, level: &str) {
    heading(md, level, t.pick("事实核对", "Fact check"));
    if report.facts_from == FactsFrom::None {
        md.push_str(t.pick(
            "这个批次没有事实表：在项目页添加事实（成立年份、价格、总部……）后，新批次会据此核对每句相关陈述。\n\n",
            "This run has no fact sheet: add facts on the projects page (founding year, price, headquarters …) and new runs check every sentence on their topic.\n\n",
        ));
        return;
    }
    let lang = t;
    table(
        md,
        &[
            (t.pick("事实", "Fact"), Align::Left),
            (t.pick("对象", "Target"), Align::Left),
            (t.pick("有相关陈述的回答", "Answers with a claim"), Align::Right),
            (verdict_label(Verdict::Consistent, lang), Align::Right),
            (verdict_label(Verdict::Contradicts, lang), Align::Right),
            (verdict_label(Verdict::Unverified, lang), Align::Right),
            (t.pick("矛盾率", "Contradiction rate"), Align::Right),
        ],
        report.facts.iter().map(|f| {
            let r = &f.row;
            vec![
                r.label.clone(),
                target_label(run, &r.target_id).to_string(),
                r.probes_with_claim.to_string(),
                r.consistent.to_string(),
                r.contradicts.to_string(),
                r.unverified.to_string(),
                format!("{} ({})", percent(r.contradiction_rate), frac(r.contradicts, r.probes_with_claim)),
            ]
        }),
    );
    let sub = format!("{level}#");
    for f in &report.facts {
        for verdict in [Verdict::Contradicts, Verdict::Unverified] {
            let rows: Vec<&ClaimRow> = f.claims.iter().filter(|c| c.claim.verdict == verdict).collect();
            if rows.is_empty() {
                continue;
            }
            let title = format!("{} · {}", escape_cell(&f.row.label), verdict_label(verdict, lang));
            heading(md, &sub, &title);
            for c in rows.iter().take(QUOTED) {
                md.push_str(&quote(t, c));
            }
            more(md, t, rows.len(), QUOTED);
            md.push('\n');
        }
    }
}

/// The review queue: the flagged share per target, then the sentences by kind and target.
fn flags_part(md: &mut String, report: &ClaimsReport, run: &Run, t: Lang, level: &str) {
    heading(md, level, t.pick("待读的句子", "Sentences to read"));
    let lang = t;
    table(
        md,
        &[
            (t.pick("对象", "Target"), Align::Left),
            (t.pick("提及它的回答", "Answers naming it"), Align::Right),
            (t.pick("含待读句子", "With a flagged sentence"), Align::Right),
            (t.pick("95% 区间", "95% interval"), Align::Right),
            (kind_label(RiskKind::Negative, lang), Align::Right),
            (kind_label(RiskKind::Caution, lang), Align::Right),
            (kind_label(RiskKind::Watch, lang), Align::Right),
        ],
        report.flag_counts.iter().map(|r| {
            let ci = match (r.flagged_low, r.flagged_high) {
                (Some(lo), Some(hi)) => format!("{}–{}", percent(Some(lo)), percent(Some(hi))),
                _ => "—".to_string(),
            };
            vec![
                target_label(run, &r.target_id).to_string(),
                r.mentioning_count.to_string(),
                format!("{} ({})", percent(r.flagged_rate), frac(r.flagged_count, r.mentioning_count)),
                ci,
                r.negative.to_string(),
                r.caution.to_string(),
                r.watch.to_string(),
            ]
        }),
    );
    let sub = format!("{level}#");
    for kind in [RiskKind::Negative, RiskKind::Caution, RiskKind::Watch] {
        for target in &report.flag_counts {
            let rows: Vec<_> = report
                .risk_flags
                .iter()
                .filter(|f| f.flag.kind == kind && f.flag.target_id == target.target_id)
                .collect();
            if rows.is_empty() {
                continue;
            }
            let title = format!("{} · {}", escape_cell(target_label(run, &target.target_id)), kind_label(kind, lang));
            heading(md, &sub, &title);
            for f in rows.iter().take(QUOTED) {
                md.push_str(&format!(
                    "- [{}] 「{}」 — `{}`\n",
                    escape_cell(&f.flag.cue),
                    escape_cell(&f.flag.sentence),
                    f.probe_id.replace('`', "'")
                ));
            }
            more(md, t, rows.len(), QUOTED);
            md.push('\n');
        }
    }
    md.push_str(&format!(
        "> {}\n\n",
        t.pick(
            "标记只表示“这句话值得读一读”，不是结论：规则不读否定（“没有投诉”也会因“投诉”被标记），也看不出讽刺和比较。",
            "A flag is a sentence to read, not a verdict: the rules do not read negation (\"no complaints\" is flagged for \"complaints\"), irony or comparison."
        )
    ));
}

/// The report's sections at heading `level` (`##` or `###`): the fact check, then the
/// sentences to read.
pub fn sections(md: &mut String, report: &ClaimsReport, run: &Run, lang: Lang, level: &str) {
    let t = lang;
    facts_part(md, report, run, t, level);
    flags_part(md, report, run, t, level);
}

/// `geo-probe claims --format markdown`: a title, then [`sections`].
pub fn claims_markdown(report: &ClaimsReport, run: &Run, lang: Lang) -> String {
    let t = lang;
    let mut md = format!(
        "# {} · `{}` · {}\n\n",
        t.pick("回答说了什么", "What the answers say"),
        report.run_id.replace('`', "'"),
        report.engine.as_str()
    );
    let from = match report.facts_from {
        FactsFrom::Run => t.pick("事实表：批次开始时冻结的事实表", "Fact sheet: the run's own, frozen when it started"),
        FactsFrom::File => t.pick("事实表：--facts 指定的文件", "Fact sheet: the file given with --facts"),
        FactsFrom::None => t.pick("事实表：无（只有内置的风险词）", "Fact sheet: none (built-in risk cues only)"),
    };
    md.push_str(&format!("- {from}\n\n"));
    sections(&mut md, report, run, lang, "##");
    md
}
