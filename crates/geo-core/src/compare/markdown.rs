//! A [`RunDiff`] as a Markdown report (a CI job summary, a pull request comment) and as one
//! paragraph (a webhook's text), in Chinese or English.
//!
//! Every change shows both proportions with their counts, the delta in percentage points,
//! its 95 % interval and whether it is a real change or within noise, so a reader never has
//! to guess whether a drop matters. Text from the export (ids, labels, prompts, domains)
//! goes through [`escape_cell`].

use super::interval::{Change, Direction};
use super::runs::{RunDiff, Verdict};
use crate::model::Lang;
use crate::text::md::escape_cell;

/// Domains listed in the report's table of changed domains (significant ones are always
/// listed).
pub const TOP_CHANGED_DOMAINS: usize = 10;

/// Domains named in the gained/lost lines before "and N more".
const LISTED_DOMAINS: usize = 20;

/// What a verdict means, in lower case (it follows a dash in the report).
fn verdict_explained(v: Verdict, lang: Lang) -> &'static str {
    match v {
        Verdict::Improved => lang.pick(
            "至少一项核心指标确有上升，没有指标确有下降。",
            "at least one headline metric really went up and none really went down.",
        ),
        Verdict::Regressed => lang.pick(
            "至少一项核心指标确有下降，没有指标确有上升。",
            "at least one headline metric really went down and none really went up.",
        ),
        Verdict::Mixed => lang.pick(
            "有核心指标确有上升，也有确有下降。",
            "some headline metrics really went up and some really went down.",
        ),
        Verdict::Stable => lang.pick(
            "三项核心指标的变化都在随机波动范围内。",
            "every change of the three headline metrics is within noise.",
        ),
    }
}

/// A difference of proportions in percentage points in `lang`: `+12.3 pts`, `−4.0 个百分点`.
pub fn points_text(delta: f64, lang: Lang) -> String {
    format!("{}{}", signed(delta * 100.0), lang.pick(" 个百分点", " pts"))
}

/// A change's 95 % interval in points in `lang` (`−81.0 to −36.3`), `—` without one.
pub fn interval_text(change: &Change, lang: Lang) -> String {
    match (change.low, change.high) {
        (Some(lo), Some(hi)) => format!("{} {} {}", signed(lo * 100.0), lang.pick("至", "to"), signed(hi * 100.0)),
        _ => "—".to_string(),
    }
}

/// `↑ real change`, `↓ real change`, `within noise` or `not comparable`, in `lang`.
pub fn change_mark(change: &Change, lang: Lang) -> &'static str {
    match (change.direction(), change.delta.is_some()) {
        (Direction::Up, _) => lang.pick("↑ 确有变化", "↑ real change"),
        (Direction::Down, _) => lang.pick("↓ 确有变化", "↓ real change"),
        (Direction::Noise, true) => lang.pick("在噪声内", "within noise"),
        (Direction::Noise, false) => lang.pick("无法比较", "not comparable"),
    }
}

/// A verdict's name in `lang` (`下降`, `regressed` …).
pub fn verdict_label(verdict: Verdict, lang: Lang) -> &'static str {
    match verdict {
        Verdict::Improved => lang.pick("上升", "improved"),
        Verdict::Regressed => lang.pick("下降", "regressed"),
        Verdict::Mixed => lang.pick("有升有降", "mixed"),
        Verdict::Stable => lang.pick("稳定", "stable"),
    }
}

/// What a verdict means, one sentence in `lang`, capitalised to stand on its own (the
/// Markdown report writes it after the verdict's dash, in lower case). The English
/// sentences start with an ASCII letter: `char::to_uppercase` would link Unicode's case
/// tables into the web app for them (7 KB of gzip).
pub fn verdict_sentence(verdict: Verdict, lang: Lang) -> String {
    let mut sentence = verdict_explained(verdict, lang).to_string();
    if let Some(first) = sentence.get_mut(..1) {
        first.make_ascii_uppercase();
    }
    sentence
}

/// A headline metric's name in `lang` (`mentionRate` → `提及率` / `Mention rate`).
pub fn metric_label(name: &str, lang: Lang) -> &'static str {
    match name {
        "mentionRate" => lang.pick("提及率", "Mention rate"),
        "firstMentionRate" => lang.pick("首位提及率", "First-mention rate"),
        "ownedVisibility" => lang.pick("自有来源可见度", "Owned visibility"),
        _ => lang.pick("指标", "Metric"),
    }
}

/// `+12.3`, `−4.0`, `0.0` (a true minus sign; no sign for zero).
fn signed(v: f64) -> String {
    let rounded = format!("{:.1}", v.abs());
    if rounded == "0.0" {
        rounded
    } else if v > 0.0 {
        format!("+{rounded}")
    } else {
        format!("−{rounded}")
    }
}

fn share(value: Option<f64>, count: u32, n: u32) -> String {
    match value {
        Some(v) => format!("{:.1}% ({count}/{n})", v * 100.0),
        None => "—".to_string(),
    }
}

fn row(t: Lang, label: &str, c: &Change) -> String {
    format!(
        "| {label} | {} | {} | {} | {} | {} |\n",
        share(c.against, c.against_count, c.against_n),
        share(c.current, c.current_count, c.current_n),
        c.delta.map_or_else(|| "—".to_string(), |d| points_text(d, t)),
        interval_text(c, t),
        change_mark(c, t)
    )
}

/// A section `heading` of one row per (label, change) of `rows`, the labels' column headed
/// `column`.
fn change_table<'a>(
    md: &mut String,
    t: Lang,
    (heading, column): (&str, &str),
    rows: impl Iterator<Item = (String, &'a Change)>,
) {
    md.push_str(&format!("## {heading}\n\n"));
    md.push_str(&header(t, column));
    for (label, change) in rows {
        md.push_str(&row(t, &label, change));
    }
    md.push('\n');
}

fn header(t: Lang, first: &str) -> String {
    format!(
        "| {first} | {} | {} | {} | {} | {} |\n|---|---:|---:|---:|---:|---|\n",
        t.pick("对照批次", "Against"),
        t.pick("本批次", "Current"),
        t.pick("变化", "Change"),
        t.pick("95% 区间", "95% interval"),
        t.pick("判断", "Assessment")
    )
}

fn code(id: &str) -> String {
    format!("`{}`", id.replace('`', "'").replace(['\n', '\r'], " "))
}

fn date(iso: &str) -> &str {
    iso.get(..10).unwrap_or(iso)
}

fn domain_list(domains: &[String], t: Lang) -> String {
    if domains.is_empty() {
        return t.pick("无", "none").to_string();
    }
    let mut s = domains.iter().take(LISTED_DOMAINS).map(|d| escape_cell(d)).collect::<Vec<_>>().join(", ");
    if domains.len() > LISTED_DOMAINS {
        s.push_str(&match t {
            Lang::Zh => format!(" 等 {} 个", domains.len()),
            Lang::En => format!(" and {} more", domains.len() - LISTED_DOMAINS),
        });
    }
    s
}

/// The comparison as a Markdown report in `lang`: first, when the runs are not comparable, a
/// paragraph naming the changed `method` fields (and, after the runs, each change); the
/// verdict, the headline metrics, every target, every prompt, the domains gained and lost and
/// the domains that changed most.
pub fn diff_markdown(diff: &RunDiff, lang: Lang) -> String {
    let t = lang;
    let ctx = &diff.context;
    let mut md = String::new();
    md.push_str(&format!(
        "# {} · {} {} {}\n\n",
        t.pick("GEO Probe 批次对比", "GEO Probe run comparison"),
        escape_cell(date(&ctx.created_at)),
        t.pick("对比", "vs"),
        escape_cell(date(&ctx.against_created_at)),
    ));
    if let Some(first) = super::method::not_comparable_paragraph(diff, lang) {
        md.push_str(&format!("{first}\n\n"));
    }
    md.push_str(&format!(
        "**{}: {}** — {}\n\n",
        t.pick("结论", "Verdict"),
        verdict_label(diff.verdict, t),
        verdict_explained(diff.verdict, t)
    ));
    md.push_str(&format!(
        "- {}: {} · {} · {} · {}\n- {}: {} · {} · {} · {}\n\n",
        t.pick("本批次", "Current run"),
        code(&diff.run_id),
        diff.engine,
        escape_cell(&ctx.model),
        escape_cell(&ctx.created_at),
        t.pick("对照批次", "Against"),
        code(&diff.against_id),
        diff.against_engine,
        escape_cell(&ctx.against_model),
        escape_cell(&ctx.against_created_at),
    ));
    md.push_str(&super::method::method_section(diff, lang));

    let metrics = diff.metrics.iter().map(|c| (metric_label(c.name.unwrap_or(""), t).to_string(), c));
    change_table(&mut md, t, (t.pick("核心指标", "Headline metrics"), t.pick("指标", "Metric")), metrics);
    if !diff.targets.is_empty() {
        let title = (t.pick("各追踪对象的提及率", "Mention rate per tracked target"), t.pick("对象", "Target"));
        let targets = diff
            .targets
            .iter()
            .map(|x| (escape_cell(if x.label.is_empty() { &x.target_id } else { &x.label }), &x.mention_rate));
        change_table(&mut md, t, title, targets);
    }
    if !diff.prompts.is_empty() {
        let title = (t.pick("各问题的品牌提及率", "Brand mention rate per prompt"), t.pick("问题", "Prompt"));
        let prompts = diff
            .prompts
            .iter()
            .map(|p| (escape_cell(if p.text.is_empty() { &p.prompt_id } else { &p.text }), &p.mention_rate));
        change_table(&mut md, t, title, prompts);
    }

    md.push_str(&format!("## {}\n\n", t.pick("来源域名", "Source domains")));
    md.push_str(&format!(
        "- {} ({}): {}\n- {} ({}): {}\n\n",
        t.pick("新出现", "Gained"),
        diff.domains.gained.len(),
        domain_list(&diff.domains.gained, t),
        t.pick("消失", "Lost"),
        diff.domains.lost.len(),
        domain_list(&diff.domains.lost, t),
    ));
    let listed: Vec<_> = diff
        .domains
        .changed
        .iter()
        .enumerate()
        .filter(|(i, d)| *i < TOP_CHANGED_DOMAINS || d.probe_rate.significant)
        .map(|(_, d)| d)
        .collect();
    if !listed.is_empty() {
        md.push_str(&format!(
            "### {}\n\n",
            t.pick(
                "检索到该域名的成功探测占比（变化最大的）",
                "Share of successful probes retrieving each domain (largest changes)"
            )
        ));
        md.push_str(&header(t, t.pick("域名", "Domain")));
        for d in listed {
            md.push_str(&row(t, &escape_cell(&d.domain), &d.probe_rate));
        }
        md.push('\n');
    }

    let d = &diff.descriptions;
    if d.brand_flagged.current_n > 0 || d.brand_flagged.against_n > 0 || !d.facts.is_empty() {
        md.push_str(&format!(
            "## {}\n\n",
            t.pick("回答说了什么（不计入结论）", "What the answers say (not in the verdict)")
        ));
        md.push_str(&header(t, t.pick("比率", "Rate")));
        let flagged =
            t.pick("提及品牌的回答中被标记待读的占比", "Brand-mentioning answers with a sentence flagged to read");
        md.push_str(&row(t, flagged, &d.brand_flagged));
        for f in &d.facts {
            let label = if f.label.is_empty() { &f.fact_id } else { &f.label };
            let name = format!("{}{}", t.pick("与事实矛盾：", "Contradicting: "), escape_cell(label));
            md.push_str(&row(t, &name, &f.contradiction));
        }
        md.push('\n');
    }

    md.push_str(&format!(
        "> {}\n",
        t.pick(
            "区间是两批次之差的 95% 置信区间（Newcombe 混合 score 法，基于各自的 Wilson 区间）；只有不含 0 的区间才算“确有变化”，其余差异可能只是重复提问的随机波动。比率的分母都是成功探测。",
            "Intervals are 95% confidence intervals of the difference (Newcombe's hybrid score method, from each run's Wilson interval); only an interval that excludes 0 is a real change, anything else may be the random variation of repeated asking. Every rate is over successful probes."
        )
    ));
    md
}

/// The comparison in one paragraph of plain text in `lang` (a webhook's `text`): first, when
/// the runs are not comparable, the changed `method` fields; then the verdict, each headline
/// metric that really changed with its interval, the ones within noise, the ones that cannot
/// be compared, and how many source domains were gained and lost.
pub fn diff_summary(diff: &RunDiff, lang: Lang) -> String {
    let t = lang;
    let flat = |s: &str| s.replace(['\n', '\r'], " ");
    let name = |c: &Change| {
        let label = metric_label(c.name.unwrap_or(""), t);
        match lang {
            // Mid-sentence in English: "mention rate", not "Mention rate".
            Lang::En => label.to_lowercase(),
            Lang::Zh => label.to_string(),
        }
    };
    let real: Vec<String> = diff
        .metrics
        .iter()
        .filter(|c| c.significant)
        .map(|c| {
            let (from, to) = (c.against.unwrap_or(0.0) * 100.0, c.current.unwrap_or(0.0) * 100.0);
            let delta = c.delta.map_or_else(String::new, |d| points_text(d, t));
            match lang {
                Lang::Zh => format!("{} {from:.1}% → {to:.1}%（{delta}，95% 区间 {}）", name(c), interval_text(c, t)),
                Lang::En => {
                    format!("{} {from:.1}% → {to:.1}% ({delta}, 95% interval {})", name(c), interval_text(c, t))
                }
            }
        })
        .collect();
    let noise: Vec<String> = diff.metrics.iter().filter(|c| !c.significant && c.delta.is_some()).map(name).collect();
    let missing: Vec<String> = diff.metrics.iter().filter(|c| c.delta.is_none()).map(name).collect();
    let engines = |a: crate::model::EngineId, b: crate::model::EngineId| {
        if a == b {
            a.to_string()
        } else {
            format!("{a} / {b}")
        }
    };
    let head = match lang {
        Lang::Zh => format!(
            "GEO Probe：批次 {} 对比 {}（{}），结论为「{}」",
            flat(&diff.run_id),
            flat(&diff.against_id),
            engines(diff.engine, diff.against_engine),
            verdict_label(diff.verdict, t)
        ),
        Lang::En => format!(
            "GEO Probe: {} — run {} against {} ({})",
            verdict_label(diff.verdict, t),
            flat(&diff.run_id),
            flat(&diff.against_id),
            engines(diff.engine, diff.against_engine)
        ),
    };
    let listed =
        |label: &str, items: &[String], sep: &str| (!items.is_empty()).then(|| format!("{label}{}", items.join(sep)));
    let (gained, lost) = (diff.domains.gained.len(), diff.domains.lost.len());
    let domains = (gained + lost > 0).then(|| match lang {
        Lang::Zh => format!("来源域名新增 {gained} 个、消失 {lost} 个"),
        Lang::En => format!("Source domains: {gained} gained, {lost} lost"),
    });
    let sentences: Vec<String> = [
        super::method::not_comparable_sentence(diff, lang),
        Some(head),
        listed(t.pick("确有变化：", "Real changes: "), &real, t.pick("；", "; ")),
        listed(t.pick("在噪声内：", "Within noise: "), &noise, t.pick("、", ", ")),
        listed(
            t.pick("无法比较（有一方没有成功探测）：", "Not comparable (a run without successful probes): "),
            &missing,
            t.pick("、", ", "),
        ),
        domains,
    ]
    .into_iter()
    .flatten()
    .collect();
    let end = t.pick("。", ".");
    sentences.iter().map(|s| format!("{s}{end}")).collect::<Vec<_>>().join(t.pick("", " "))
}

/// The report for a run that has nothing to compare with yet (its engine's first completed
/// run): what was measured, and when a comparison will appear.
pub fn first_run_markdown(run: &crate::model::Run, lang: Lang) -> String {
    let t = lang;
    format!(
        "# {} · {}\n\n{}\n\n- {}: {} · {} · {} · {}\n",
        t.pick("GEO Probe 批次对比", "GEO Probe run comparison"),
        escape_cell(date(&run.created_at)),
        t.pick(
            "这是该引擎第一个完成的批次，还没有可对比的上一批次；下一次运行后会出现对比。",
            "This is the engine's first completed run: there is no previous run to compare with yet; the next run will be compared with it."
        ),
        t.pick("本批次", "Current run"),
        code(&run.id),
        run.config.engine,
        escape_cell(&run.config.model),
        escape_cell(&run.created_at),
    )
}
