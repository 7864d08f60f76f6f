//! The dashboard's key findings (seed §7): fixed rules, checked in order, on a run's metrics.
//!
//! No model is asked: the same metrics always give the same findings. They are hints, not
//! causal conclusions. The rules are data, `RULES`, one function each (the pattern of the
//! report's `SECTIONS`); each writes its figures once, into local names both its Chinese and
//! its English template read. Titles are deduplicated and at most [`MAX_INSIGHTS`] are kept.

use super::{Insight, RunMetrics};
use crate::model::{tags, Localized};
use crate::text::md::{decimal, percent};

/// Most findings kept for a run.
pub const MAX_INSIGHTS: usize = 5;

/// Share of a run's probes above which truncated answers get an insight (5 %).
pub const TRUNCATED_SHARE: f64 = 0.05;

/// One rule: the finding it makes about a run's metrics, if any.
type Rule = fn(&RunMetrics) -> Option<Insight>;

/// The rules, in the order they are checked (seed §7's nine, with the truncation rule of
/// engines.md, "Fidelity", after the first):
/// 1. no successful probe (run a batch first);
///
///    then more than [`TRUNCATED_SHARE`] of the run's probes succeeded with an answer cut off
///    by a length limit (`truncatedCount` ÷ `probeCount`);
/// 2. prompts tagged `generic` have successful probes but 0 brand mentions;
/// 3. prompts tagged `brand` have successful probes and > 0 brand mentions;
/// 4. successful probes exist but none retrieved an owned source;
/// 5. a top source exists (platform, occurrence rate, average rank, occurrences);
/// 6. source stability < 0.4;
/// 7. new or lost domains;
/// 8. mention rate ≥ 0.8;
/// 9. mention rate < 0.2.
const RULES: &[Rule] = &[
    no_success,
    truncated_answers,
    generic_not_mentioned,
    brand_recognized,
    no_owned_source,
    top_source,
    low_stability,
    source_change,
    high_mention_rate,
    low_mention_rate,
];

/// Builds the findings of a run: every rule of `RULES` in order (see there), deduplicated by title
/// (first kept), at most [`MAX_INSIGHTS`].
pub fn build_insights(m: &RunMetrics) -> Vec<Insight> {
    let mut out: Vec<Insight> = Vec::new();
    for rule in RULES {
        if let Some(insight) = rule(m) {
            out.push(insight);
        }
    }
    let mut seen = std::collections::HashSet::new();
    out.retain(|i| seen.insert(i.title.clone()));
    out.truncate(MAX_INSIGHTS);
    out
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

/// `no_success`: the run has no successful probe.
fn no_success(m: &RunMetrics) -> Option<Insight> {
    if m.success_count != 0 {
        return None;
    }
    let n = m.probe_count;
    Some(Insight::new(
        "no_success",
        Localized::new("还没有成功的探测", "No successful probe yet"),
        Localized::new(
            format!("本批次 {n} 次探测中没有成功的结果：先运行一个批次（或重试失败项）再看指标。"),
            format!("None of the run's {n} probes succeeded: run a batch (or retry the failed probes) before reading the metrics."),
        ),
    ))
}

/// `truncated_answers`: more than [`TRUNCATED_SHARE`] of the run's probes succeeded with an
/// answer cut off by a length limit.
fn truncated_answers(m: &RunMetrics) -> Option<Insight> {
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

/// `generic_not_mentioned`: prompts tagged `generic` have successful probes, none naming the brand.
fn generic_not_mentioned(m: &RunMetrics) -> Option<Insight> {
    let (s, k, n) = tagged(m, tags::GENERIC);
    (s > 0 && k == 0).then(|| {
        Insight::new(
            "generic_not_mentioned",
            Localized::new("通用词没有被提及", "Not mentioned on generic prompts"),
            Localized::new(
                format!("{n} 条通用词 Prompt 的 {s} 次成功探测中，品牌一次也没有被提及。"),
                format!("The brand was not mentioned in any of the {s} successful probes of {n} generic prompt(s)."),
            ),
        )
    })
}

/// `brand_recognized`: prompts tagged `brand` have successful probes, some naming the brand.
fn brand_recognized(m: &RunMetrics) -> Option<Insight> {
    let (s, k, n) = tagged(m, tags::BRAND);
    (s > 0 && k > 0).then(|| {
        Insight::new(
            "brand_recognized",
            Localized::new("品牌词能被识别", "Recognised on brand prompts"),
            Localized::new(
                format!("{n} 条品牌词 Prompt 的 {s} 次成功探测中，有 {k} 次提及了品牌。"),
                format!("The brand was mentioned in {k} of the {s} successful probes of {n} brand prompt(s)."),
            ),
        )
    })
}

/// `no_owned_source`: successful probes exist, none retrieved a source on the brand's domains.
fn no_owned_source(m: &RunMetrics) -> Option<Insight> {
    let s = m.success_count;
    (s > 0 && m.counts.owned_probe_count == 0).then(|| {
        Insight::new(
            "no_owned_source",
            Localized::new("官网未进入检索来源", "Own site not among retrieved sources"),
            Localized::new(
                format!("{s} 次成功探测的检索来源里都没有品牌自有域名。"),
                format!("None of the {s} successful probes retrieved a source on the brand's own domains."),
            ),
        )
    })
}

/// `top_source`: the domain retrieved most, with its platform, rate, rank and occurrences.
fn top_source(m: &RunMetrics) -> Option<Insight> {
    let top = m.domains.first()?;
    let (domain, platform, s) = (&top.domain, &top.platform, m.success_count);
    let (rate, n, rank, occurrences) =
        (percent(top.occurrence_rate), top.probe_count, decimal(top.avg_rank), top.occurrences);
    Some(Insight::new(
        "top_source",
        Localized::new(format!("Top 来源：{platform}"), format!("Top source: {platform}")),
        Localized::new(
            format!("{domain}（{platform}）出现在 {rate} 的成功探测中（{n}/{s}），平均位次 {rank}，来源次数 {occurrences}。"),
            format!(
                "{domain} ({platform}) was retrieved in {rate} of successful probes ({n}/{s}), average rank {rank}, {occurrences} occurrences."
            ),
        ),
    ))
}

/// `low_stability`: repeats of a prompt share few source domains (stability < 0.4).
fn low_stability(m: &RunMetrics) -> Option<Insight> {
    let stability = m.source_stability.filter(|v| *v < 0.4)?;
    let n = m.counts.stability_prompt_count;
    Some(Insight::new(
        "low_stability",
        Localized::new("来源稳定性偏低", "Low source stability"),
        Localized::new(
            format!("同一 Prompt 重复提问时，来源域名集合的平均 Jaccard 相似度只有 {stability:.2}（{n} 条 Prompt 参与计算）。"),
            format!("Repeats of the same prompt share few source domains: mean Jaccard {stability:.2} over {n} prompt(s)."),
        ),
    ))
}

/// `source_change`: domains gained or lost against the previous run.
fn source_change(m: &RunMetrics) -> Option<Insight> {
    if m.new_domains.is_empty() && m.lost_domains.is_empty() {
        return None;
    }
    let (n, l) = (m.new_domains.len(), m.lost_domains.len());
    let (new, lost) = (sample(&m.new_domains), sample(&m.lost_domains));
    let mut zh = format!("与上一批次相比新增 {n} 个域名、流失 {l} 个域名。");
    let mut en = format!("Compared with the previous run: {n} new and {l} lost domain(s).");
    if n > 0 {
        zh.push_str(&format!("新增：{new}。"));
        en.push_str(&format!(" New: {new}."));
    }
    if l > 0 {
        zh.push_str(&format!("流失：{lost}。"));
        en.push_str(&format!(" Lost: {lost}."));
    }
    Some(Insight::new("source_change", Localized::new("来源发生变化", "Sources changed"), Localized::new(zh, en)))
}

/// `high_mention_rate`: the brand is named in at least 80 % of the successful probes.
fn high_mention_rate(m: &RunMetrics) -> Option<Insight> {
    let rate = m.mention_rate.filter(|r| *r >= 0.8)?;
    let (k, s, rate) = (m.counts.mention_count, m.success_count, percent(Some(rate)));
    Some(Insight::new(
        "high_mention_rate",
        Localized::new("品牌提及率很高", "High brand mention rate"),
        Localized::new(
            format!("{k}/{s} 次成功探测提及了品牌（{rate}）。"),
            format!("{k} of {s} successful probes mentioned the brand ({rate})."),
        ),
    ))
}

/// `low_mention_rate`: the brand is named in under 20 % of the successful probes.
fn low_mention_rate(m: &RunMetrics) -> Option<Insight> {
    let rate = m.mention_rate.filter(|r| *r < 0.2)?;
    let (k, s, rate) = (m.counts.mention_count, m.success_count, percent(Some(rate)));
    Some(Insight::new(
        "low_mention_rate",
        Localized::new("品牌提及率偏低", "Low brand mention rate"),
        Localized::new(
            format!("只有 {k}/{s} 次成功探测提及了品牌（{rate}）。"),
            format!("Only {k} of {s} successful probes mentioned the brand ({rate})."),
        ),
    ))
}
