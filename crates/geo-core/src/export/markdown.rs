//! The Markdown report of one run (seed §8.3): core metrics with their denominators, prompt
//! performance, top sources, source changes, findings and the limits of §9.2.
//!
//! Every piece of text that came from the user or the model (project and prompt names,
//! platforms, domains, insight details) goes through [`escape_cell`]: `|` and line breaks
//! cannot break a table, and HTML is shown as text rather than rendered.

use crate::metrics::insights::{decimal, percent};
use crate::metrics::{find_run, run, MetricsError, RunMetrics};
use crate::model::{ExportEnvelope, Lang, Ownership, Probe};

/// Sources listed in the report's top-sources table.
pub const TOP_SOURCES: usize = 10;

/// Escapes text for a Markdown table cell or line: HTML-significant characters become
/// entities, Markdown punctuation that could start a link, emphasis or code is
/// backslash-escaped, `|` is escaped and every line break becomes a space.
pub fn escape_cell(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '|' | '\\' | '`' | '*' | '_' | '[' | ']' => {
                out.push('\\');
                out.push(c);
            }
            '\r' => {
                if chars.peek() == Some(&'\n') {
                    chars.next();
                }
                out.push(' ');
            }
            '\n' | '\u{2028}' | '\u{2029}' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

struct Text {
    lang: Lang,
}

impl Text {
    fn t<'a>(&self, zh: &'a str, en: &'a str) -> &'a str {
        match self.lang {
            Lang::Zh => zh,
            Lang::En => en,
        }
    }
}

fn frac(num: u32, den: u32) -> String {
    format!("{num}/{den}")
}

fn ownership(t: &Text, o: Ownership) -> &'static str {
    match o {
        Ownership::Owned => t.t("自有", "owned"),
        Ownership::Competitor => t.t("竞品", "competitor"),
        Ownership::ThirdParty => t.t("第三方", "third party"),
    }
}

const LIMITS_ZH: &[&str] = &[
    "来源不是引用：搜索工具返回了这些网页，不说明模型逐句使用了它们。",
    "首位不是全场第一：只统计已追踪的品牌和竞品，回答里可能先提到未追踪公司。",
    "提及不是推荐：词面匹配不区分正面、负面、否定或比较语境。",
    "榜单是启发式：只对结构化列表/表格有效，可能漏掉散文式推荐。",
    "结果会波动：同一问题多次提问答案可能不同，重复提问正是为了看波动。",
    "来源可能失效：标题和 URL 由搜索工具返回，可能缺失、过期或无法访问；本报告不抓取正文。",
    "平台分类是静态规则：未收录的站点归入“其他”，不影响来源计数，但影响渠道分布。",
    "费用是估算：模型价格和搜索单价会变化，实际以 DeepSeek 账单为准。",
];

const LIMITS_EN: &[&str] = &[
    "Sources are not citations: the search tool returned these pages; that does not mean the model used them sentence by sentence.",
    "First is not first overall: only tracked targets count; the answer may name an untracked company first.",
    "A mention is not a recommendation: literal matching does not tell positive, negative, negated or comparative context apart.",
    "Lists are heuristic: only structured lists and tables are parsed; recommendations in prose may be missed.",
    "Results vary: the same question asked again may get a different answer; repeats exist to show that variation.",
    "Sources may be stale: titles and URLs come from the search tool and may be missing, outdated or unreachable; pages are not fetched.",
    "Platform classification is a static table: unknown sites fall under \"other\", which changes the channel mix but not source counts.",
    "Cost is an estimate: model and search prices change; DeepSeek's bill is what counts.",
];

/// The Markdown report of run `run_id` of `env`, in `lang`.
///
/// Sections: title (project and run date), run facts, core metrics with numerator/denominator,
/// prompt table, top [`TOP_SOURCES`] sources, source changes, findings and the limits.
/// An unknown run id gives [`MetricsError::UnknownRun`].
pub fn markdown_report(env: &ExportEnvelope, run_id: &str, lang: Lang) -> Result<String, MetricsError> {
    let target_run = find_run(env, run_id)?;
    let own: Vec<&Probe> = env.probes.iter().filter(|p| p.run_id == target_run.id).collect();
    let previous = target_run.previous_run_id.as_deref().and_then(|pid| env.runs.iter().find(|r| r.id == pid));
    let prev_probes: Vec<&Probe> =
        previous.map_or_else(Vec::new, |prev| env.probes.iter().filter(|p| p.run_id == prev.id).collect());
    let m = run::compute(target_run, &own, previous.map(|prev| (prev, &prev_probes[..])));
    let project_name = env
        .projects
        .iter()
        .find(|p| p.id == target_run.project_id)
        .map_or(target_run.project_id.as_str(), |p| p.name.as_str());
    Ok(render(&m, project_name, target_run, lang))
}

fn render(m: &RunMetrics, project: &str, run: &crate::model::Run, lang: Lang) -> String {
    let t = Text { lang };
    let date = run.created_at.get(..10).unwrap_or(&run.created_at);
    let mut md = String::new();
    let s = m.success_count;
    let c = &m.counts;

    md.push_str(&format!(
        "# {} · {} · {}\n\n",
        t.t("GEO Probe 报告", "GEO Probe report"),
        escape_cell(project),
        escape_cell(date)
    ));
    md.push_str(&format!(
        "- {}: `{}`\n- {}: {}\n- {}: {}\n- {}: {}\n- {}: {}\n\n",
        t.t("批次", "Run"),
        run.id.replace('`', "'"),
        t.t("开始时间", "Started"),
        escape_cell(&run.created_at),
        t.t("模型", "Model"),
        escape_cell(&run.config.model),
        t.t("状态", "Status"),
        serde_json::to_value(run.status).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default(),
        t.t("估算费用", "Estimated cost"),
        match m.estimated_cost_usd {
            Some(cost) => format!("${cost:.4}"),
            None => t.t("无（价格表中没有该模型）", "none (no price for this model)").to_string(),
        },
    ));

    md.push_str(&format!("## {}\n\n", t.t("核心指标", "Core metrics")));
    md.push_str(&format!(
        "| {} | {} | {} |\n|---|---:|---|\n",
        t.t("指标", "Metric"),
        t.t("值", "Value"),
        t.t("分子/分母", "Numerator/denominator")
    ));
    let rows: Vec<(&str, String, String)> = vec![
        (
            t.t("成功 Probe", "Successful probes"),
            frac(s, m.probe_count),
            t.t("成功 / 全部记录", "success / all records").into(),
        ),
        (t.t("失败 Probe", "Failed probes"), m.failed_count.to_string(), t.t("error + empty", "error + empty").into()),
        (t.t("提及率", "Mention rate"), percent(m.mention_rate), frac(c.mention_count, s)),
        (t.t("首位提及率", "First-mention rate"), percent(m.first_mention_rate), frac(c.first_mention_count, s)),
        (
            t.t("平均位次", "Average order"),
            decimal(m.avg_order),
            format!("{} {}", c.mention_count, t.t("次有提及的 Probe", "mentioning probes")),
        ),
        (
            t.t("平均榜单位次", "Average list position"),
            decimal(m.avg_list_position),
            format!("{} {}", c.list_position_count, t.t("个有榜单位次的提及", "mentions with a list position")),
        ),
        (t.t("官网检索可见度", "Owned visibility"), percent(m.owned_visibility), frac(c.owned_probe_count, s)),
        (
            t.t("官网最佳位次", "Owned best rank"),
            m.owned_best_rank.map_or("—".into(), |r| r.to_string()),
            t.t("自有来源的最小位次", "smallest owned rank").into(),
        ),
        (
            t.t("唯一来源域名数", "Unique domains"),
            m.unique_domains.to_string(),
            t.t("成功 Probe 的来源", "sources of successful probes").into(),
        ),
        (
            t.t("来源稳定性", "Source stability"),
            decimal(m.source_stability),
            format!("{} {}", c.stability_prompt_count, t.t("条 Prompt（≥ 2 次成功）", "prompts (≥ 2 successes)")),
        ),
        (
            t.t("榜单稳定性 (RBO)", "List stability (RBO)"),
            decimal(m.list_stability),
            format!("{} {}", c.list_stability_prompt_count, t.t("条 Prompt（≥ 2 个榜单）", "prompts (≥ 2 lists)")),
        ),
        (
            t.t("Answer Link 重合率", "Answer link overlap"),
            percent(m.answer_link_overlap),
            frac(c.answer_link_in_sources_count, c.answer_link_count),
        ),
    ];
    for (name, value, basis) in rows {
        md.push_str(&format!("| {} | {} | {} |\n", escape_cell(name), escape_cell(&value), escape_cell(&basis)));
    }
    md.push('\n');
    if !m.share_of_voice.0.is_empty() {
        md.push_str(&format!("### {}\n\n", t.t("声量份额 SoV", "Share of voice")));
        md.push_str(&format!(
            "| {} | SoV | {} |\n|---|---:|---:|\n",
            t.t("Target", "Target"),
            t.t("有提及的 Probe", "Mentioning probes")
        ));
        for ((id, sov), (_, n)) in m.share_of_voice.0.iter().zip(&m.share_of_voice_counts.0) {
            let label = run.alias_snapshot.iter().find(|t| &t.id == id).map_or(id.as_str(), |t| t.label.as_str());
            md.push_str(&format!(
                "| {} | {} | {} |\n",
                escape_cell(label),
                percent(*sov),
                frac(*n, c.share_of_voice_total)
            ));
        }
        md.push('\n');
    }

    md.push_str(&format!("## {}\n\n", t.t("Prompt 表现", "Prompt performance")));
    md.push_str(&format!(
        "| Prompt | {} | {} | {} | {} | {} |\n|---|---|---:|---:|---:|---:|\n",
        t.t("标签", "Tags"),
        t.t("成功", "Successes"),
        t.t("提及率", "Mention rate"),
        t.t("首位提及率", "First-mention rate"),
        t.t("平均位次", "Average order")
    ));
    for p in &m.prompts {
        let name = if p.text.is_empty() { &p.prompt_id } else { &p.text };
        md.push_str(&format!(
            "| {} | {} | {} | {} ({}) | {} ({}) | {} |\n",
            escape_cell(name),
            escape_cell(&p.tags.join(", ")),
            frac(p.success_count, p.probe_count),
            percent(p.mention_rate),
            frac(p.mention_count, p.success_count),
            percent(p.first_mention_rate),
            frac(p.first_mention_count, p.success_count),
            decimal(p.avg_order)
        ));
    }
    md.push('\n');

    md.push_str(&format!("## {}\n\n", t.t("Top 来源", "Top sources")));
    if m.domains.is_empty() {
        md.push_str(t.t("成功 Probe 中没有检索来源。\n\n", "No retrieved source in successful probes.\n\n"));
    } else {
        md.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} | {} |\n|---|---|---|---|---:|---:|---:|---:|\n",
            t.t("域名", "Domain"),
            t.t("平台", "Platform"),
            t.t("渠道", "Channel"),
            t.t("归属", "Ownership"),
            t.t("出现率", "Occurrence rate"),
            t.t("来源次数", "Occurrences"),
            t.t("平均位次", "Average rank"),
            t.t("最佳位次", "Best rank")
        ));
        for d in m.domains.iter().take(TOP_SOURCES) {
            md.push_str(&format!(
                "| {} | {} | {} | {} | {} ({}) | {} | {} | {} |\n",
                escape_cell(&d.domain),
                escape_cell(&d.platform),
                escape_cell(&d.channel),
                ownership(&t, d.ownership),
                percent(d.occurrence_rate),
                frac(d.probe_count, s),
                d.occurrences,
                decimal(d.avg_rank),
                d.best_rank.map_or("—".into(), |r| r.to_string())
            ));
        }
        md.push('\n');
    }

    md.push_str(&format!("## {}\n\n", t.t("来源变化", "Source changes")));
    if m.previous_run_id.is_none() || c.previous_success_count == 0 || s == 0 {
        md.push_str(t.t(
            "没有可比较的上一批次（需要两个批次都有成功 Probe）。\n\n",
            "No previous run to compare with (both runs need successful probes).\n\n",
        ));
    } else {
        let list = |v: &[String]| {
            if v.is_empty() {
                "—".to_string()
            } else {
                v.iter().map(|d| escape_cell(d)).collect::<Vec<_>>().join(", ")
            }
        };
        md.push_str(&format!(
            "- {} ({}): {}\n- {} ({}): {}\n\n",
            t.t("新增", "New"),
            m.new_domains.len(),
            list(&m.new_domains),
            t.t("流失", "Lost"),
            m.lost_domains.len(),
            list(&m.lost_domains)
        ));
    }

    md.push_str(&format!("## {}\n\n", t.t("关键发现", "Key findings")));
    if m.insights.is_empty() {
        md.push_str(t.t("没有触发任何规则。\n\n", "No rule fired.\n\n"));
    } else {
        for i in &m.insights {
            md.push_str(&format!("- **{}**: {}\n", escape_cell(i.title_in(lang)), escape_cell(i.detail_in(lang))));
        }
        md.push('\n');
    }

    md.push_str(&format!("## {}\n\n", t.t("口径与局限", "Limits")));
    md.push_str(t.t(
        "比例只在成功 Probe 上计算（error 和 empty 不进分母）；先看分母，再看小数点。\n\n",
        "Ratios are taken over successful probes only (error and empty are excluded); read the denominator before the decimals.\n\n",
    ));
    for line in if lang == Lang::Zh { LIMITS_ZH } else { LIMITS_EN } {
        md.push_str(&format!("- {line}\n"));
    }
    md
}
