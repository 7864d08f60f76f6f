//! The dashboard's key findings (seed §7): fixed rules, checked in order, on a run's metrics.
//!
//! No model is asked: the same metrics always give the same findings. They are hints, not
//! causal conclusions. Titles are deduplicated and at most [`MAX_INSIGHTS`] are kept.

use super::RunMetrics;
use crate::model::{tags, Lang, Localized};
use serde::{Deserialize, Serialize};

/// Most findings kept for a run.
pub const MAX_INSIGHTS: usize = 5;

/// Share of a run's probes above which truncated answers get an insight (5 %).
pub const TRUNCATED_SHARE: f64 = 0.05;

/// One finding. `title` and `detail` are Chinese (the contract fields); `titleEn` and
/// `detailEn` are the English texts beside them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Insight {
    /// Stable snake_case key of the rule that produced it.
    pub kind: String,
    /// Chinese title.
    pub title: String,
    /// Chinese detail.
    pub detail: String,
    /// English title.
    pub title_en: String,
    /// English detail.
    pub detail_en: String,
}

impl Insight {
    fn new(kind: &str, title: Localized, detail: Localized) -> Self {
        Insight { kind: kind.to_string(), title: title.zh, detail: detail.zh, title_en: title.en, detail_en: detail.en }
    }

    /// The title in `lang`.
    pub fn title_in(&self, lang: Lang) -> &str {
        match lang {
            Lang::Zh => &self.title,
            Lang::En => &self.title_en,
        }
    }

    /// The detail in `lang`.
    pub fn detail_in(&self, lang: Lang) -> &str {
        match lang {
            Lang::Zh => &self.detail,
            Lang::En => &self.detail_en,
        }
    }
}

/// A ratio as a percentage with one decimal (`66.7%`), or `—` for `None`.
pub fn percent(value: Option<f64>) -> String {
    value.map_or_else(|| "—".to_string(), |v| format!("{:.1}%", v * 100.0))
}

/// A mean with two decimals, or `—` for `None`.
pub fn decimal(value: Option<f64>) -> String {
    value.map_or_else(|| "—".to_string(), |v| format!("{v:.2}"))
}

fn sample(domains: &[String]) -> String {
    let mut s = domains.iter().take(3).cloned().collect::<Vec<_>>().join(", ");
    if domains.len() > 3 {
        s.push_str(", …");
    }
    s
}

/// (successful probes, probes mentioning the brand, prompts) of the prompts tagged `tag`:
/// the run's `tags` row, zeros when no prompt carries it.
fn tagged(m: &RunMetrics, tag: &str) -> (u32, u32, u32) {
    m.tags.iter().find(|t| t.tag == tag).map_or((0, 0, 0), |t| (t.success_count, t.mention_count, t.prompt_count))
}

/// `truncated_answers`: more than [`TRUNCATED_SHARE`] of the run's probes succeeded with an
/// answer cut off by a length limit.
fn truncated_insight(m: &RunMetrics) -> Option<Insight> {
    if m.probe_count == 0 || f64::from(m.truncated_count) <= TRUNCATED_SHARE * f64::from(m.probe_count) {
        return None;
    }
    let (t, n) = (m.truncated_count, m.probe_count);
    let share = percent(Some(f64::from(t) / f64::from(n)));
    Some(Insight::new(
        "truncated_answers",
        Localized::new("回答被长度上限截断", "Answers cut off by the length limit"),
        Localized::new(
            format!(
                "{n} 次探测中 {t} 次成功回答被输出上限截断（{share}），提及和列表可能不完整：请调高输出上限或降低推理强度。"
            ),
            format!(
                "{t} of {n} probes ({share}) were cut off by the output limit, so mentions and lists may be incomplete: raise the max tokens or lower the reasoning effort."
            ),
        ),
    ))
}

/// Builds the findings of a run, checking the nine rules of seed §7 in order:
/// 1. no successful probe (run a batch first);
///
/// then, before the rest (engines.md, "Fidelity"): more than [`TRUNCATED_SHARE`] of the run's
/// probes succeeded with an answer cut off by a length limit (`truncatedCount` ÷ `probeCount`);
///
/// 2. prompts tagged `generic` have successful probes but 0 brand mentions;
/// 3. prompts tagged `brand` have successful probes and > 0 brand mentions;
/// 4. successful probes exist but none retrieved an owned source;
/// 5. a top source exists (platform, occurrence rate, average rank, occurrences);
/// 6. source stability < 0.4;
/// 7. new or lost domains;
/// 8. mention rate ≥ 0.8;
/// 9. mention rate < 0.2.
///
/// Then deduplicates by title (first kept) and keeps at most [`MAX_INSIGHTS`].
pub fn build_insights(m: &RunMetrics) -> Vec<Insight> {
    let mut out: Vec<Insight> = Vec::new();
    let s = m.success_count;

    if s == 0 {
        out.push(Insight::new(
            "no_success",
            Localized::new("还没有成功的探测", "No successful probe yet"),
            Localized::new(
                format!("本批次 {} 次探测中没有成功的结果：先运行一个批次（或重试失败项）再看指标。", m.probe_count),
                format!(
                    "None of the run's {} probes succeeded: run a batch (or retry the failed probes) before reading the metrics.",
                    m.probe_count
                ),
            ),
        ));
    }

    out.extend(truncated_insight(m));

    let (gs, gk, gn) = tagged(m, tags::GENERIC);
    if gs > 0 && gk == 0 {
        out.push(Insight::new(
            "generic_not_mentioned",
            Localized::new("通用词没有被提及", "Not mentioned on generic prompts"),
            Localized::new(
                format!("{gn} 条通用词 Prompt 的 {gs} 次成功探测中，品牌一次也没有被提及。"),
                format!("The brand was not mentioned in any of the {gs} successful probes of {gn} generic prompt(s)."),
            ),
        ));
    }

    let (bs, bk, bn) = tagged(m, tags::BRAND);
    if bs > 0 && bk > 0 {
        out.push(Insight::new(
            "brand_recognized",
            Localized::new("品牌词能被识别", "Recognised on brand prompts"),
            Localized::new(
                format!("{bn} 条品牌词 Prompt 的 {bs} 次成功探测中，有 {bk} 次提及了品牌。"),
                format!("The brand was mentioned in {bk} of the {bs} successful probes of {bn} brand prompt(s)."),
            ),
        ));
    }

    if s > 0 && m.counts.owned_probe_count == 0 {
        out.push(Insight::new(
            "no_owned_source",
            Localized::new("官网未进入检索来源", "Own site not among retrieved sources"),
            Localized::new(
                format!("{s} 次成功探测的检索来源里都没有品牌自有域名。"),
                format!("None of the {s} successful probes retrieved a source on the brand's own domains."),
            ),
        ));
    }

    if let Some(top) = m.domains.first() {
        out.push(Insight::new(
            "top_source",
            Localized::new(format!("Top 来源：{}", top.platform), format!("Top source: {}", top.platform)),
            Localized::new(
                format!(
                    "{}（{}）出现在 {} 的成功探测中（{}/{}），平均位次 {}，来源次数 {}。",
                    top.domain,
                    top.platform,
                    percent(top.occurrence_rate),
                    top.probe_count,
                    s,
                    decimal(top.avg_rank),
                    top.occurrences
                ),
                format!(
                    "{} ({}) was retrieved in {} of successful probes ({}/{}), average rank {}, {} occurrences.",
                    top.domain,
                    top.platform,
                    percent(top.occurrence_rate),
                    top.probe_count,
                    s,
                    decimal(top.avg_rank),
                    top.occurrences
                ),
            ),
        ));
    }

    if let Some(stability) = m.source_stability.filter(|v| *v < 0.4) {
        out.push(Insight::new(
            "low_stability",
            Localized::new("来源稳定性偏低", "Low source stability"),
            Localized::new(
                format!(
                    "同一 Prompt 重复提问时，来源域名集合的平均 Jaccard 相似度只有 {:.2}（{} 条 Prompt 参与计算）。",
                    stability, m.counts.stability_prompt_count
                ),
                format!(
                    "Repeats of the same prompt share few source domains: mean Jaccard {:.2} over {} prompt(s).",
                    stability, m.counts.stability_prompt_count
                ),
            ),
        ));
    }

    if !m.new_domains.is_empty() || !m.lost_domains.is_empty() {
        let (n, l) = (m.new_domains.len(), m.lost_domains.len());
        let mut zh = format!("与上一批次相比新增 {n} 个域名、流失 {l} 个域名。");
        let mut en = format!("Compared with the previous run: {n} new and {l} lost domain(s).");
        if n > 0 {
            zh.push_str(&format!("新增：{}。", sample(&m.new_domains)));
            en.push_str(&format!(" New: {}.", sample(&m.new_domains)));
        }
        if l > 0 {
            zh.push_str(&format!("流失：{}。", sample(&m.lost_domains)));
            en.push_str(&format!(" Lost: {}.", sample(&m.lost_domains)));
        }
        out.push(Insight::new(
            "source_change",
            Localized::new("来源发生变化", "Sources changed"),
            Localized::new(zh, en),
        ));
    }

    if let Some(rate) = m.mention_rate {
        let k = m.counts.mention_count;
        if rate >= 0.8 {
            out.push(Insight::new(
                "high_mention_rate",
                Localized::new("品牌提及率很高", "High brand mention rate"),
                Localized::new(
                    format!("{k}/{s} 次成功探测提及了品牌（{}）。", percent(Some(rate))),
                    format!("{k} of {s} successful probes mentioned the brand ({}).", percent(Some(rate))),
                ),
            ));
        }
        if rate < 0.2 {
            out.push(Insight::new(
                "low_mention_rate",
                Localized::new("品牌提及率偏低", "Low brand mention rate"),
                Localized::new(
                    format!("只有 {k}/{s} 次成功探测提及了品牌（{}）。", percent(Some(rate))),
                    format!("Only {k} of {s} successful probes mentioned the brand ({}).", percent(Some(rate))),
                ),
            ));
        }
    }

    let mut seen = std::collections::HashSet::new();
    out.retain(|i| seen.insert(i.title.clone()));
    out.truncate(MAX_INSIGHTS);
    out
}
