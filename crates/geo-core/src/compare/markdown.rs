//! A [`RunDiff`] as a Markdown report (a CI job summary, a pull request comment) and as one
//! paragraph (a webhook's text), in Chinese or English.
//!
//! Every change shows both proportions with their counts, the delta in percentage points,
//! its 95 % interval and whether it is a real change or within noise, so a reader never has
//! to guess whether a drop matters. Text from the export (ids, labels, prompts, domains)
//! goes through [`escape_cell`].

use super::interval::{Change, Direction};
use super::runs::{RunDiff, Verdict};
use crate::export::markdown::escape_cell;
use crate::model::Lang;

/// Domains listed in the report's table of changed domains (significant ones are always
/// listed).
pub const TOP_CHANGED_DOMAINS: usize = 10;

/// Domains named in the gained/lost lines before "and N more".
const LISTED_DOMAINS: usize = 20;

struct Text {
    lang: Lang,
}

impl Text {
    fn t<'a>(&self, zh: &'a str, en: &'a str) -> &'a str {
        self.lang.pick(zh, en)
    }

    fn metric(&self, name: &str) -> &'static str {
        match (name, self.lang) {
            ("mentionRate", Lang::Zh) => "提及率",
            ("mentionRate", Lang::En) => "Mention rate",
            ("firstMentionRate", Lang::Zh) => "首位提及率",
            ("firstMentionRate", Lang::En) => "First-mention rate",
            ("ownedVisibility", Lang::Zh) => "自有来源可见度",
            ("ownedVisibility", Lang::En) => "Owned visibility",
            (_, Lang::Zh) => "指标",
            (_, Lang::En) => "Metric",
        }
    }

    fn verdict(&self, v: Verdict) -> &'static str {
        match (v, self.lang) {
            (Verdict::Improved, Lang::Zh) => "上升",
            (Verdict::Improved, Lang::En) => "improved",
            (Verdict::Regressed, Lang::Zh) => "下降",
            (Verdict::Regressed, Lang::En) => "regressed",
            (Verdict::Mixed, Lang::Zh) => "有升有降",
            (Verdict::Mixed, Lang::En) => "mixed",
            (Verdict::Stable, Lang::Zh) => "稳定",
            (Verdict::Stable, Lang::En) => "stable",
        }
    }

    fn verdict_explained(&self, v: Verdict) -> &'static str {
        match (v, self.lang) {
            (Verdict::Improved, Lang::Zh) => "至少一项核心指标确有上升，没有指标确有下降。",
            (Verdict::Improved, Lang::En) => "at least one headline metric really went up and none really went down.",
            (Verdict::Regressed, Lang::Zh) => "至少一项核心指标确有下降，没有指标确有上升。",
            (Verdict::Regressed, Lang::En) => "at least one headline metric really went down and none really went up.",
            (Verdict::Mixed, Lang::Zh) => "有核心指标确有上升，也有确有下降。",
            (Verdict::Mixed, Lang::En) => "some headline metrics really went up and some really went down.",
            (Verdict::Stable, Lang::Zh) => "三项核心指标的变化都在随机波动范围内。",
            (Verdict::Stable, Lang::En) => "every change of the three headline metrics is within noise.",
        }
    }

    fn mark(&self, c: &Change) -> &'static str {
        match (c.direction(), c.delta.is_some(), self.lang) {
            (Direction::Up, _, Lang::Zh) => "↑ 确有变化",
            (Direction::Up, _, Lang::En) => "↑ real change",
            (Direction::Down, _, Lang::Zh) => "↓ 确有变化",
            (Direction::Down, _, Lang::En) => "↓ real change",
            (Direction::Noise, true, Lang::Zh) => "在噪声内",
            (Direction::Noise, true, Lang::En) => "within noise",
            (Direction::Noise, false, Lang::Zh) => "无法比较",
            (Direction::Noise, false, Lang::En) => "not comparable",
        }
    }

    fn points(&self, v: f64) -> String {
        format!("{}{}", signed(v * 100.0), self.t(" 个百分点", " pts"))
    }
}

/// A difference of proportions in percentage points in `lang`: `+12.3 pts`, `−4.0 个百分点`.
pub fn points_text(delta: f64, lang: Lang) -> String {
    Text { lang }.points(delta)
}

/// A change's 95 % interval in points in `lang` (`−81.0 to −36.3`), `—` without one.
pub fn interval_text(change: &Change, lang: Lang) -> String {
    interval(&Text { lang }, change)
}

/// `↑ real change`, `↓ real change`, `within noise` or `not comparable`, in `lang`.
pub fn change_mark(change: &Change, lang: Lang) -> &'static str {
    Text { lang }.mark(change)
}

/// A verdict's name in `lang` (`下降`, `regressed` …).
pub fn verdict_label(verdict: Verdict, lang: Lang) -> &'static str {
    Text { lang }.verdict(verdict)
}

/// What a verdict means, one sentence in `lang`, capitalised to stand on its own (the
/// Markdown report writes it after the verdict's dash, in lower case). The English
/// sentences start with an ASCII letter: `char::to_uppercase` would link Unicode's case
/// tables into the web app for them (7 KB of gzip).
pub fn verdict_sentence(verdict: Verdict, lang: Lang) -> String {
    let mut sentence = Text { lang }.verdict_explained(verdict).to_string();
    if let Some(first) = sentence.get_mut(..1) {
        first.make_ascii_uppercase();
    }
    sentence
}

/// A headline metric's name in `lang` (`mentionRate` → `提及率` / `Mention rate`).
pub fn metric_label(name: &str, lang: Lang) -> &'static str {
    Text { lang }.metric(name)
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

fn interval(t: &Text, c: &Change) -> String {
    match (c.low, c.high) {
        (Some(lo), Some(hi)) => format!("{} {} {}", signed(lo * 100.0), t.t("至", "to"), signed(hi * 100.0)),
        _ => "—".to_string(),
    }
}

fn row(t: &Text, label: &str, c: &Change) -> String {
    format!(
        "| {label} | {} | {} | {} | {} | {} |\n",
        share(c.against, c.against_count, c.against_n),
        share(c.current, c.current_count, c.current_n),
        c.delta.map_or_else(|| "—".to_string(), |d| t.points(d)),
        interval(t, c),
        t.mark(c)
    )
}

fn header(t: &Text, first: &str) -> String {
    format!(
        "| {first} | {} | {} | {} | {} | {} |\n|---|---:|---:|---:|---:|---|\n",
        t.t("对照批次", "Against"),
        t.t("本批次", "Current"),
        t.t("变化", "Change"),
        t.t("95% 区间", "95% interval"),
        t.t("判断", "Assessment")
    )
}

fn code(id: &str) -> String {
    format!("`{}`", id.replace('`', "'").replace(['\n', '\r'], " "))
}

fn date(iso: &str) -> &str {
    iso.get(..10).unwrap_or(iso)
}

fn domain_list(domains: &[String], t: &Text) -> String {
    if domains.is_empty() {
        return t.t("无", "none").to_string();
    }
    let mut s = domains.iter().take(LISTED_DOMAINS).map(|d| escape_cell(d)).collect::<Vec<_>>().join(", ");
    if domains.len() > LISTED_DOMAINS {
        s.push_str(&match t.lang {
            Lang::Zh => format!(" 等 {} 个", domains.len()),
            Lang::En => format!(" and {} more", domains.len() - LISTED_DOMAINS),
        });
    }
    s
}

/// The comparison as a Markdown report in `lang`: first, when the runs are not comparable, a
/// paragraph naming the changed `method` fields (and, after the runs, each change); the verdict, the headline metrics, every
/// target, every prompt, the domains gained and lost and the domains that changed most.
pub fn diff_markdown(diff: &RunDiff, lang: Lang) -> String {
    let t = Text { lang };
    let ctx = &diff.context;
    let mut md = String::new();
    md.push_str(&format!(
        "# {} · {} {} {}\n\n",
        t.t("GEO Probe 批次对比", "GEO Probe run comparison"),
        escape_cell(date(&ctx.created_at)),
        t.t("对比", "vs"),
        escape_cell(date(&ctx.against_created_at)),
    ));
    if let Some(first) = super::method::not_comparable_paragraph(diff, lang) {
        md.push_str(&format!("{first}\n\n"));
    }
    md.push_str(&format!(
        "**{}: {}** — {}\n\n",
        t.t("结论", "Verdict"),
        t.verdict(diff.verdict),
        t.verdict_explained(diff.verdict)
    ));
    md.push_str(&format!(
        "- {}: {} · {} · {} · {}\n- {}: {} · {} · {} · {}\n\n",
        t.t("本批次", "Current run"),
        code(&diff.run_id),
        diff.engine,
        escape_cell(&ctx.model),
        escape_cell(&ctx.created_at),
        t.t("对照批次", "Against"),
        code(&diff.against_id),
        diff.against_engine,
        escape_cell(&ctx.against_model),
        escape_cell(&ctx.against_created_at),
    ));
    md.push_str(&super::method::method_section(diff, lang));

    md.push_str(&format!("## {}\n\n", t.t("核心指标", "Headline metrics")));
    md.push_str(&header(&t, t.t("指标", "Metric")));
    for c in &diff.metrics {
        md.push_str(&row(&t, t.metric(c.name.unwrap_or("")), c));
    }
    md.push('\n');

    if !diff.targets.is_empty() {
        md.push_str(&format!("## {}\n\n", t.t("各追踪对象的提及率", "Mention rate per tracked target")));
        md.push_str(&header(&t, t.t("对象", "Target")));
        for target in &diff.targets {
            let label = if target.label.is_empty() { &target.target_id } else { &target.label };
            md.push_str(&row(&t, &escape_cell(label), &target.mention_rate));
        }
        md.push('\n');
    }

    if !diff.prompts.is_empty() {
        md.push_str(&format!("## {}\n\n", t.t("各问题的品牌提及率", "Brand mention rate per prompt")));
        md.push_str(&header(&t, t.t("问题", "Prompt")));
        for p in &diff.prompts {
            let label = if p.text.is_empty() { &p.prompt_id } else { &p.text };
            md.push_str(&row(&t, &escape_cell(label), &p.mention_rate));
        }
        md.push('\n');
    }

    md.push_str(&format!("## {}\n\n", t.t("来源域名", "Source domains")));
    md.push_str(&format!(
        "- {} ({}): {}\n- {} ({}): {}\n\n",
        t.t("新出现", "Gained"),
        diff.domains.gained.len(),
        domain_list(&diff.domains.gained, &t),
        t.t("消失", "Lost"),
        diff.domains.lost.len(),
        domain_list(&diff.domains.lost, &t),
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
            t.t(
                "检索到该域名的成功探测占比（变化最大的）",
                "Share of successful probes retrieving each domain (largest changes)"
            )
        ));
        md.push_str(&header(&t, t.t("域名", "Domain")));
        for d in listed {
            md.push_str(&row(&t, &escape_cell(&d.domain), &d.probe_rate));
        }
        md.push('\n');
    }

    let d = &diff.descriptions;
    if d.brand_flagged.current_n > 0 || d.brand_flagged.against_n > 0 || !d.facts.is_empty() {
        md.push_str(&format!(
            "## {}\n\n",
            t.t("回答说了什么（不计入结论）", "What the answers say (not in the verdict)")
        ));
        md.push_str(&header(&t, t.t("比率", "Rate")));
        let flagged =
            t.t("提及品牌的回答中被标记待读的占比", "Brand-mentioning answers with a sentence flagged to read");
        md.push_str(&row(&t, flagged, &d.brand_flagged));
        for f in &d.facts {
            let label = if f.label.is_empty() { &f.fact_id } else { &f.label };
            let name = format!("{}{}", t.t("与事实矛盾：", "Contradicting: "), escape_cell(label));
            md.push_str(&row(&t, &name, &f.contradiction));
        }
        md.push('\n');
    }

    md.push_str(&format!(
        "> {}\n",
        t.t(
            "区间是两批次之差的 95% 置信区间（Newcombe 混合 score 法，基于各自的 Wilson 区间）；只有不含 0 的区间才算“确有变化”，其余差异可能只是重复提问的随机波动。比率的分母都是成功探测。",
            "Intervals are 95% confidence intervals of the difference (Newcombe's hybrid score method, from each run's Wilson interval); only an interval that excludes 0 is a real change, anything else may be the random variation of repeated asking. Every rate is over successful probes."
        )
    ));
    md
}

/// The comparison in one paragraph of plain text in `lang` (a webhook's `text`): first, when
/// the runs are not comparable, the changed `method` fields; then the verdict, each headline metric that really changed with its interval, the ones within
/// noise, the ones that cannot be compared, and how many source domains were gained and lost.
pub fn diff_summary(diff: &RunDiff, lang: Lang) -> String {
    let t = Text { lang };
    let flat = |s: &str| s.replace(['\n', '\r'], " ");
    let name = |c: &Change| {
        let label = t.metric(c.name.unwrap_or(""));
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
            let delta = c.delta.map_or_else(String::new, |d| t.points(d));
            match lang {
                Lang::Zh => format!("{} {from:.1}% → {to:.1}%（{delta}，95% 区间 {}）", name(c), interval(&t, c)),
                Lang::En => format!("{} {from:.1}% → {to:.1}% ({delta}, 95% interval {})", name(c), interval(&t, c)),
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
            t.verdict(diff.verdict)
        ),
        Lang::En => format!(
            "GEO Probe: {} — run {} against {} ({})",
            t.verdict(diff.verdict),
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
        listed(t.t("确有变化：", "Real changes: "), &real, t.t("；", "; ")),
        listed(t.t("在噪声内：", "Within noise: "), &noise, t.t("、", ", ")),
        listed(
            t.t("无法比较（有一方没有成功探测）：", "Not comparable (a run without successful probes): "),
            &missing,
            t.t("、", ", "),
        ),
        domains,
    ]
    .into_iter()
    .flatten()
    .collect();
    let end = t.t("。", ".");
    sentences.iter().map(|s| format!("{s}{end}")).collect::<Vec<_>>().join(t.t("", " "))
}

/// The report for a run that has nothing to compare with yet (its engine's first completed
/// run): what was measured, and when a comparison will appear.
pub fn first_run_markdown(run: &crate::model::Run, lang: Lang) -> String {
    let t = Text { lang };
    format!(
        "# {} · {}\n\n{}\n\n- {}: {} · {} · {} · {}\n",
        t.t("GEO Probe 批次对比", "GEO Probe run comparison"),
        escape_cell(date(&run.created_at)),
        t.t(
            "这是该引擎第一个完成的批次，还没有可对比的上一批次；下一次运行后会出现对比。",
            "This is the engine's first completed run: there is no previous run to compare with yet; the next run will be compared with it."
        ),
        t.t("本批次", "Current run"),
        code(&run.id),
        run.config.engine,
        escape_cell(&run.config.model),
        escape_cell(&run.created_at),
    )
}
