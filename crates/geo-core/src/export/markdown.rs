//! The Markdown report of one run (seed §8.3): core metrics with their denominators, prompt
//! and tag performance, top sources, the channel mix, source changes, what to do next (the
//! sections of `geo-probe actions`), findings and the limits of §9.2.
//!
//! The report is data: `SECTIONS` lists its sections in order, each a function of the
//! run's metrics, and the core-metrics table is the row table `CORE_ROWS`; every table is
//! written by the one Markdown writer (`text::md`'s `table`), which escapes every cell.
//!
//! The report sits above the documents it quotes: its "what to do next" and "what the
//! answers say" sections are `actions::markdown::sections` and `said::markdown::sections`,
//! called from here. Those modules import only the writer below them (`text::md`), never
//! the report, so the report and its sections form no circle.
//!
//! Every piece of text that came from the user or the model (project and prompt names,
//! platforms, domains, insight details) goes through [`escape_cell`]: `|` and line breaks
//! cannot break a table, and HTML is shown as text rather than rendered.

use crate::analysis::platforms::channel_label;
use crate::metrics::{find_run, run, MetricsError, RunMetrics};
use crate::model::{tags as tag_names, ExportEnvelope, Lang, Ownership, Probe, Run};
use crate::text::md::{cell_list, decimal, escape_cell, frac, heading, percent, table, Align};

/// Sources listed in the report's top-sources table.
pub const TOP_SOURCES: usize = 10;

/// Rows of each "what to do next" table in the report (`geo-probe actions` lists them all).
pub const TOP_ACTIONS: usize = 20;

/// The limits of §9.2, each as (zh, en).
const LIMITS: &[(&str, &str)] = &[
    (
        "来源不是引用：搜索工具返回了这些网页，不说明模型逐句使用了它们。",
        "Sources are not citations: the search tool returned these pages; that does not mean the model used them sentence by sentence.",
    ),
    (
        "首位不是全场第一：只统计已追踪的品牌和竞品，回答里可能先提到未追踪公司。",
        "First is not first overall: only tracked targets count; the answer may name an untracked company first.",
    ),
    (
        "提及不是推荐：词面匹配不区分正面、负面、否定或比较语境。",
        "A mention is not a recommendation: literal matching does not tell positive, negative, negated or comparative context apart.",
    ),
    (
        "榜单是启发式：只对结构化列表/表格有效，可能漏掉散文式推荐。",
        "Lists are heuristic: only structured lists and tables are parsed; recommendations in prose may be missed.",
    ),
    (
        "结果会波动：同一问题多次提问答案可能不同，重复提问正是为了看波动。",
        "Results vary: the same question asked again may get a different answer; repeats exist to show that variation.",
    ),
    (
        "来源可能失效：标题和 URL 由搜索工具返回，可能缺失、过期或无法访问；本报告不抓取正文。",
        "Sources may be stale: titles and URLs come from the search tool and may be missing, outdated or unreachable; pages are not fetched.",
    ),
    (
        "平台分类是静态规则：未收录的站点归入“其他”，不影响来源计数，但影响渠道分布。",
        "Platform classification is a static table: unknown sites fall under \"other\", which changes the channel mix but not source counts.",
    ),
    (
        "费用是估算：模型价格和搜索单价会变化，实际以 DeepSeek 账单为准。",
        "Cost is an estimate: model and search prices change; DeepSeek's bill is what counts.",
    ),
];

/// The Markdown report of run `run_id` of `env`, in `lang`.
///
/// Sections (`SECTIONS`): title (project and run date), run facts, core metrics with
/// numerator/denominator, share of voice, prompt table, tag table, top [`TOP_SOURCES`]
/// sources, the channel mix, source changes, what to do next (lost prompts, the searches the
/// engine ran, the pages to be on and answer-link health, at most [`TOP_ACTIONS`] rows each,
/// against the previous run), findings and the limits.
/// An unknown run id gives [`MetricsError::UnknownRun`].
pub fn markdown_report(env: &ExportEnvelope, run_id: &str, lang: Lang) -> Result<String, MetricsError> {
    let target_run = find_run(env, run_id)?;
    let own: Vec<&Probe> = env.probes_of(&target_run.id).collect();
    let previous = target_run.previous_run_id.as_deref().and_then(|pid| env.run(pid));
    let prev_probes: Vec<&Probe> = previous.map_or_else(Vec::new, |prev| env.probes_of(&prev.id).collect());
    let m = run::compute(target_run, &own, previous.map(|prev| (prev, &prev_probes[..])));
    let project = env
        .projects
        .iter()
        .find(|p| p.id == target_run.project_id)
        .map_or(target_run.project_id.as_str(), |p| p.name.as_str());
    let actions = crate::actions::actions_for_export(env, Some(&target_run.id), None)
        .map_err(|_| MetricsError::UnknownRun { run_id: target_run.id.clone(), available: Vec::new() })?;
    let said = crate::said::claims_report(target_run, &own, None);
    let report = Report { m: &m, project, run: target_run, lang, actions: &actions, said: &said };
    let mut md = String::new();
    for section in SECTIONS {
        section(&mut md, &report);
    }
    Ok(md)
}

/// What every section reads.
struct Report<'a> {
    m: &'a RunMetrics,
    project: &'a str,
    run: &'a Run,
    lang: Lang,
    actions: &'a crate::actions::Actions,
    said: &'a crate::said::ClaimsReport,
}

/// One section: appends its Markdown.
type Section = fn(&mut String, &Report);

/// The report's sections, in order.
const SECTIONS: &[Section] = &[
    title,
    facts,
    core,
    share_of_voice,
    prompts,
    tags,
    top_sources,
    channels,
    changes,
    next_steps,
    what_they_say,
    findings,
    limits,
];

fn title(md: &mut String, r: &Report) {
    let date = r.run.created_at.get(..10).unwrap_or(&r.run.created_at);
    let name = r.lang.pick("GEO Probe 报告", "GEO Probe report");
    md.push_str(&format!("# {name} · {} · {}\n\n", escape_cell(r.project), escape_cell(date)));
}

fn facts(md: &mut String, r: &Report) {
    let t = r.lang;
    let lines = [
        (t.pick("批次", "Run"), format!("`{}`", r.run.id.replace('`', "'"))),
        (t.pick("开始时间", "Started"), escape_cell(&r.run.created_at)),
        (t.pick("引擎", "Engine"), r.m.engine.as_str().to_string()),
        (t.pick("模型", "Model"), escape_cell(&r.run.config.model)),
        (t.pick("状态", "Status"), r.run.status.as_str().to_string()),
        (
            t.pick("估算费用", "Estimated cost"),
            match r.m.estimated_cost_usd {
                Some(cost) => format!("${cost:.4}"),
                None => t.pick("无（价格表中没有该模型）", "none (no price for this model)").to_string(),
            },
        ),
    ];
    for (name, value) in lines {
        md.push_str(&format!("- {name}: {value}\n"));
    }
    // Answers cut off by the output limit (engines.md, "Fidelity"), said only when there are some.
    if r.m.truncated_count > 0 {
        let name = t.pick("被截断的回答", "Truncated answers");
        let why = t.pick("达到输出上限，内容可能不完整", "they hit the output limit and may be incomplete");
        md.push_str(&format!("- {name}: {} ({why})\n", r.m.truncated_count));
    }
    md.push('\n');
}

/// What the answers say (`geo-probe claims`): the fact check and the sentences to read.
fn what_they_say(md: &mut String, r: &Report) {
    heading(md, "##", r.lang.pick("回答说了什么", "What the answers say"));
    crate::said::markdown::sections(md, r.said, r.run, r.lang, "###");
}

/// A count with its unit, in the report's language.
fn counted(t: Lang, n: u32, zh: &str, en: &str) -> String {
    format!("{n} {}", t.pick(zh, en))
}

/// One row of the core-metrics table.
struct CoreRow {
    /// The metric's name (zh, en).
    name: (&'static str, &'static str),
    /// Its value as shown.
    value: fn(&RunMetrics) -> String,
    /// Its numerator/denominator, or what it is taken over.
    basis: fn(&RunMetrics, Lang) -> String,
    /// Whether the row applies to the run (rows about citation data need some).
    shown: fn(&RunMetrics) -> bool,
}

const fn row(
    name: (&'static str, &'static str),
    value: fn(&RunMetrics) -> String,
    basis: fn(&RunMetrics, Lang) -> String,
) -> CoreRow {
    CoreRow { name, value, basis, shown: |_| true }
}

/// The core metrics, in the order of the table.
const CORE_ROWS: &[CoreRow] = &[
    row(
        ("成功 Probe", "Successful probes"),
        |m| frac(m.success_count, m.probe_count),
        |_, t| t.pick("成功 / 全部记录", "success / all records").into(),
    ),
    row(("失败 Probe", "Failed probes"), |m| m.failed_count.to_string(), |_, _| "error + empty".into()),
    row(("提及率", "Mention rate"), |m| percent(m.mention_rate), |m, _| frac(m.counts.mention_count, m.success_count)),
    row(
        ("首位提及率", "First-mention rate"),
        |m| percent(m.first_mention_rate),
        |m, _| frac(m.counts.first_mention_count, m.success_count),
    ),
    row(
        ("平均位次", "Average order"),
        |m| decimal(m.avg_order),
        |m, t| counted(t, m.counts.mention_count, "次有提及的 Probe", "mentioning probes"),
    ),
    row(
        ("平均榜单位次", "Average list position"),
        |m| decimal(m.avg_list_position),
        |m, t| counted(t, m.counts.list_position_count, "个有榜单位次的提及", "mentions with a list position"),
    ),
    row(
        ("官网检索可见度", "Owned visibility"),
        |m| percent(m.owned_visibility),
        |m, _| frac(m.counts.owned_probe_count, m.success_count),
    ),
    row(
        ("官网最佳位次", "Owned best rank"),
        |m| m.owned_best_rank.map_or("—".into(), |r| r.to_string()),
        |_, t| t.pick("自有来源的最小位次", "smallest owned rank").into(),
    ),
    row(
        ("唯一来源域名数", "Unique domains"),
        |m| m.unique_domains.to_string(),
        |_, t| t.pick("成功 Probe 的来源", "sources of successful probes").into(),
    ),
    row(
        ("来源稳定性", "Source stability"),
        |m| decimal(m.source_stability),
        |m, t| counted(t, m.counts.stability_prompt_count, "条 Prompt（≥ 2 次成功）", "prompts (≥ 2 successes)"),
    ),
    row(
        ("榜单稳定性 (RBO)", "List stability (RBO)"),
        |m| decimal(m.list_stability),
        |m, t| counted(t, m.counts.list_stability_prompt_count, "条 Prompt（≥ 2 个榜单）", "prompts (≥ 2 lists)"),
    ),
    row(
        ("Answer Link 重合率", "Answer link overlap"),
        |m| percent(m.answer_link_overlap),
        |m, _| frac(m.counts.answer_link_in_sources_count, m.counts.answer_link_count),
    ),
    row(
        ("检索率", "Searched rate"),
        |m| percent(m.searched_rate),
        |m, _| frac(m.counts.searched_count, m.success_count),
    ),
    CoreRow {
        name: ("官网被引用率", "Owned citation rate"),
        value: |m| percent(m.owned_citation_rate),
        basis: |m, _| frac(m.counts.owned_cited_count, m.success_count),
        shown: |m| m.counts.citation_probe_count > 0,
    },
];

fn core(md: &mut String, r: &Report) {
    let t = r.lang;
    heading(md, "##", t.pick("核心指标", "Core metrics"));
    let head = [
        (t.pick("指标", "Metric"), Align::Left),
        (t.pick("值", "Value"), Align::Right),
        (t.pick("分子/分母", "Numerator/denominator"), Align::Left),
    ];
    let rows = CORE_ROWS
        .iter()
        .filter(|row| (row.shown)(r.m))
        .map(|row| vec![t.pick(row.name.0, row.name.1).to_string(), (row.value)(r.m), (row.basis)(r.m, t)]);
    table(md, &head, rows);
}

fn share_of_voice(md: &mut String, r: &Report) {
    let (m, t) = (r.m, r.lang);
    if m.share_of_voice.0.is_empty() {
        return;
    }
    heading(md, "###", t.pick("声量份额 SoV", "Share of voice"));
    let head =
        [("Target", Align::Left), ("SoV", Align::Right), (t.pick("有提及的 Probe", "Mentioning probes"), Align::Right)];
    let mut labels = std::collections::HashMap::new();
    for t in &r.run.alias_snapshot {
        labels.entry(t.id.as_str()).or_insert(t.label.as_str());
    }
    let rows = m.share_of_voice.0.iter().zip(&m.share_of_voice_counts.0).map(|((id, sov), (_, n))| {
        let label = labels.get(id.as_str()).copied().unwrap_or(id.as_str());
        vec![label.to_string(), percent(*sov), frac(*n, m.counts.share_of_voice_total)]
    });
    table(md, &head, rows);
}

/// The rate columns shared by the prompt and tag tables (one copy for both: inlined, it
/// would be written into each, and the web app is the larger for it).
#[inline(never)]
fn rate_head(t: Lang) -> [(&'static str, Align); 4] {
    [
        (t.pick("成功", "Successes"), Align::Right),
        (t.pick("提及率", "Mention rate"), Align::Right),
        (t.pick("首位提及率", "First-mention rate"), Align::Right),
        (t.pick("平均位次", "Average order"), Align::Right),
    ]
}

fn prompts(md: &mut String, r: &Report) {
    let t = r.lang;
    heading(md, "##", t.pick("Prompt 表现", "Prompt performance"));
    let mut head = vec![("Prompt", Align::Left), (t.pick("标签", "Tags"), Align::Left)];
    head.extend(rate_head(t));
    let rows = r.m.prompts.iter().map(|p| {
        vec![
            if p.text.is_empty() { p.prompt_id.clone() } else { p.text.clone() },
            p.tags.iter().map(|g| tag_names::label(g, t)).collect::<Vec<_>>().join(", "),
            frac(p.success_count, p.probe_count),
            format!("{} ({})", percent(p.mention_rate), frac(p.mention_count, p.success_count)),
            format!("{} ({})", percent(p.first_mention_rate), frac(p.first_mention_count, p.success_count)),
            decimal(p.avg_order),
        ]
    });
    table(md, &head, rows);
}

fn tags(md: &mut String, r: &Report) {
    let t = r.lang;
    if r.m.tags.is_empty() {
        return;
    }
    heading(md, "##", t.pick("标签表现", "Tag performance"));
    let mut head = vec![(t.pick("标签", "Tag"), Align::Left), ("Prompt", Align::Right)];
    head.extend(rate_head(t));
    let rows = r.m.tags.iter().map(|g| {
        vec![
            tag_names::label(&g.tag, t).to_string(),
            g.prompt_count.to_string(),
            frac(g.success_count, g.probe_count),
            format!("{} ({})", percent(g.mention_rate), frac(g.mention_count, g.success_count)),
            format!("{} ({})", percent(g.first_mention_rate), frac(g.first_mention_count, g.success_count)),
            decimal(g.avg_order),
        ]
    });
    table(md, &head, rows);
}

fn ownership(t: Lang, o: Ownership) -> &'static str {
    match o {
        Ownership::Owned => t.pick("自有", "owned"),
        Ownership::Competitor => t.pick("竞品", "competitor"),
        Ownership::ThirdParty => t.pick("第三方", "third party"),
    }
}

fn top_sources(md: &mut String, r: &Report) {
    let (m, t) = (r.m, r.lang);
    heading(md, "##", t.pick("Top 来源", "Top sources"));
    if m.domains.is_empty() {
        md.push_str(t.pick("成功 Probe 中没有检索来源。\n\n", "No retrieved source in successful probes.\n\n"));
        return;
    }
    let cited = m.counts.citation_probe_count > 0;
    let mut head = vec![
        (t.pick("域名", "Domain"), Align::Left),
        (t.pick("平台", "Platform"), Align::Left),
        (t.pick("渠道", "Channel"), Align::Left),
        (t.pick("归属", "Ownership"), Align::Left),
        (t.pick("出现率", "Occurrence rate"), Align::Right),
        (t.pick("来源次数", "Occurrences"), Align::Right),
        (t.pick("平均位次", "Average rank"), Align::Right),
        (t.pick("最佳位次", "Best rank"), Align::Right),
    ];
    if cited {
        head.push((t.pick("被引用率", "Cited rate"), Align::Right));
    }
    let rows = m.domains.iter().take(TOP_SOURCES).map(|d| {
        let mut row = vec![
            d.domain.clone(),
            d.platform.clone(),
            channel_label(&d.channel, t).to_string(),
            ownership(t, d.ownership).to_string(),
            format!("{} ({})", percent(d.occurrence_rate), frac(d.probe_count, m.success_count)),
            d.occurrences.to_string(),
            decimal(d.avg_rank),
            d.best_rank.map_or("—".into(), |r| r.to_string()),
        ];
        if cited {
            row.push(format!(
                "{} ({})",
                percent(d.cited_rate),
                frac(d.cited_probe_count.unwrap_or(0), m.success_count)
            ));
        }
        row
    });
    table(md, &head, rows);
}

fn channels(md: &mut String, r: &Report) {
    let (m, t) = (r.m, r.lang);
    if m.channels.is_empty() {
        return;
    }
    heading(md, "##", t.pick("渠道分布", "Channels"));
    let head = [
        (t.pick("渠道", "Channel"), Align::Left),
        (t.pick("来源次数", "Occurrences"), Align::Right),
        (t.pick("占比", "Share"), Align::Right),
    ];
    let rows = m.channels.iter().map(|c| {
        vec![
            channel_label(&c.channel, t).to_string(),
            c.occurrences.to_string(),
            format!("{} ({})", percent(c.occurrence_share), frac(c.occurrences, m.counts.occurrence_count)),
        ]
    });
    table(md, &head, rows);
}

fn changes(md: &mut String, r: &Report) {
    let (m, t) = (r.m, r.lang);
    heading(md, "##", t.pick("来源变化", "Source changes"));
    if m.previous_run_id.is_none() || m.counts.previous_success_count == 0 || m.success_count == 0 {
        md.push_str(t.pick(
            "没有可比较的上一批次（需要两个批次都有成功 Probe）。\n\n",
            "No previous run to compare with (both runs need successful probes).\n\n",
        ));
        return;
    }
    let list = |v: &[String]| cell_list(v, ", ");
    md.push_str(&format!(
        "- {} ({}): {}\n- {} ({}): {}\n\n",
        t.pick("新增", "New"),
        m.new_domains.len(),
        list(&m.new_domains),
        t.pick("流失", "Lost"),
        m.lost_domains.len(),
        list(&m.lost_domains)
    ));
}

/// The sections of `geo-probe actions` for the run, against its previous run.
fn next_steps(md: &mut String, r: &Report) {
    let engine = crate::provider::spec(r.actions.engine).name;
    crate::actions::markdown::sections(md, r.actions, r.run, engine, r.lang, TOP_ACTIONS);
}

fn findings(md: &mut String, r: &Report) {
    let (m, t) = (r.m, r.lang);
    heading(md, "##", t.pick("关键发现", "Key findings"));
    if m.insights.is_empty() {
        md.push_str(t.pick("没有触发任何规则。\n\n", "No rule fired.\n\n"));
        return;
    }
    for i in &m.insights {
        md.push_str(&format!("- **{}**: {}\n", escape_cell(i.title_in(t)), escape_cell(i.detail_in(t))));
    }
    md.push('\n');
}

fn limits(md: &mut String, r: &Report) {
    let t = r.lang;
    heading(md, "##", t.pick("口径与局限", "Limits"));
    md.push_str(t.pick(
        "比例只在成功 Probe 上计算（error 和 empty 不进分母）；先看分母，再看小数点。\n\n",
        "Ratios are taken over successful probes only (error and empty are excluded); read the denominator before the decimals.\n\n",
    ));
    for (zh, en) in LIMITS {
        md.push_str(&format!("- {}\n", t.pick(zh, en)));
    }
}
