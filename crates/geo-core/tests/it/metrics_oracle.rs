//! The metrics of a run against a naive oracle, field for field, on generated runs.
//!
//! The oracle is the plain reading of every definition in `RunMetrics`' docs and
//! `docs/metrics.md`: plain strings, B-tree maps and sets, one loop per figure, no interning,
//! no caches, no reuse of the previous run's domains. Only the leaf formulas (Jaccard, RBO,
//! Wilson, the position-adjusted word count of one answer, a probe's price) are taken from
//! the library, each checked against its own oracle elsewhere. The findings (`insights`) are
//! the oracle's own too: the nine rules of seed §7 and the truncation rule, read from
//! `docs/metrics.md` and checked on the oracle's figures (code review 3 found them computed
//! with the library's `build_insights`, so that field could never differ); only their
//! wording is the library's, restated here. The real figures come from
//! `metrics_for_export` (so the reuse of a previous run's domains is exercised too) and must
//! equal the oracle's exactly, floats included.
//!
//! Generated runs mix every status, duplicate and unknown target ids, prompts outside the
//! snapshot, duplicate tags, stored scores outside [0, 1], sources with and without
//! occurrences, cited and uncited sources, probes with and without `rawCitations`, case and
//! width variants of list titles and entity names, and a previous run.

use std::collections::{BTreeMap, BTreeSet};

use geo_core::analysis::pawc::position_adjusted_word_count;
use geo_core::metrics::cost::{price_for, ModelPrice, SearchBilling};
use geo_core::metrics::{
    jaccard, metrics_for_export, rbo, wilson_interval, ChannelMetrics, DomainMetrics, FactMetrics, GapDomain, Insight,
    Method, MetricCounts, OutreachGap, PromptMetrics, RiskFlagMetrics, RunMetrics, TagMetrics, TargetMap,
    UntrackedEntity,
};
use geo_core::model::*;
use geo_core::text::normalize_for_match;
use proptest::prelude::*;

use crate::metrics_support::{mention, numbered, probe, prompt, run, target};
use crate::support::fact;

// ------------------------------------------------------------------ the oracle

fn ratio(k: u32, n: u32) -> Option<f64> {
    if n == 0 {
        None
    } else {
        Some(k as f64 / n as f64)
    }
}

fn mean(values: &[f64]) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    let mut sum = 0.0;
    for v in values {
        sum += v;
    }
    Some(sum / values.len() as f64)
}

/// The mean of `f` over the unordered pairs (i < j) of `items`; `None` with fewer than two.
fn mean_over_pairs<T>(items: &[T], f: impl Fn(&T, &T) -> f64) -> Option<f64> {
    let mut scores = Vec::new();
    for i in 0..items.len() {
        for j in i + 1..items.len() {
            scores.push(f(&items[i], &items[j]));
        }
    }
    mean(&scores)
}

/// (occurrences, sum of ranks, best rank) of one source: its occurrences, or one at
/// `bestRank` when it has none.
fn occurrences_of(s: &SearchSource) -> (u32, u64, u32) {
    if s.occurrences.is_empty() {
        return (1, s.best_rank as u64, s.best_rank);
    }
    let ranks: Vec<u32> = s.occurrences.iter().map(|o| o.rank).collect();
    (ranks.len() as u32, ranks.iter().map(|&r| r as u64).sum(), *ranks.iter().min().unwrap())
}

struct Targets {
    /// One per id, the first of an id.
    list: Vec<Target>,
    brand: Option<String>,
}

fn targets_of(run: &Run) -> Targets {
    let mut list: Vec<Target> = Vec::new();
    for t in &run.alias_snapshot {
        if !list.iter().any(|s| s.id == t.id) {
            list.push(t.clone());
        }
    }
    let brand = list.iter().find(|t| t.kind == TargetKind::Brand).map(|t| t.id.clone());
    Targets { list, brand }
}

/// The first mention of target `id` in a probe.
fn mention_of<'p>(p: &'p Probe, id: &str) -> Option<&'p Mention> {
    p.mentions.iter().find(|m| m.target_id == id)
}

/// The brand's first mention in `p`.
fn brand_mention<'p>(p: &'p Probe, t: &Targets) -> Option<&'p Mention> {
    t.brand.as_deref().and_then(|b| mention_of(p, b))
}

fn successes<'p>(probes: &[&'p Probe]) -> Vec<&'p Probe> {
    probes.iter().copied().filter(|p| p.status == ProbeStatus::Success).collect()
}

fn domain_set(p: &Probe) -> BTreeSet<String> {
    p.sources.iter().map(|s| s.domain.clone()).collect()
}

/// Prompt ids in report order with their snapshot entry: the snapshot's (first of an id),
/// then ids only the probes know, sorted.
fn prompt_rows<'r>(run: &'r Run, probes: &[&Probe]) -> Vec<(String, Option<&'r Prompt>)> {
    let mut rows: Vec<(String, Option<&Prompt>)> = Vec::new();
    for p in &run.prompt_snapshot {
        if !rows.iter().any(|(id, _)| *id == p.id) {
            rows.push((p.id.clone(), Some(p)));
        }
    }
    let extra: BTreeSet<String> =
        probes.iter().map(|p| p.prompt_id.clone()).filter(|id| !rows.iter().any(|(r, _)| r == id)).collect();
    rows.extend(extra.into_iter().map(|id| (id, None)));
    rows
}

/// The folded titles of a probe's list, by position (stable).
fn folded_list(p: &Probe) -> Vec<String> {
    let mut items: Vec<&ListItem> = p.list_items.iter().collect();
    items.sort_by_key(|i| i.position);
    items.iter().map(|i| normalize_for_match(i.title.trim())).collect()
}

fn source_stability_of(ok: &[&Probe]) -> Option<f64> {
    let sets: Vec<Vec<String>> = ok.iter().map(|p| domain_set(p).into_iter().collect()).collect();
    mean_over_pairs(&sets, |a, b| jaccard(a, b))
}

fn list_stability_of(ok: &[&Probe]) -> Option<f64> {
    let lists: Vec<Vec<String>> = ok.iter().filter(|p| !p.list_items.is_empty()).map(|p| folded_list(p)).collect();
    mean_over_pairs(&lists, |a, b| rbo(a, b, 0.9))
}

/// (success, mention, first, order sum) of probes.
fn brand_counts(probes: &[&Probe], t: &Targets) -> (u32, u32, u32, u64) {
    let (mut success, mut mention, mut first, mut order_sum) = (0, 0, 0, 0u64);
    for p in successes(probes) {
        success += 1;
        if let Some(m) = brand_mention(p, t) {
            mention += 1;
            order_sum += m.order as u64;
            if m.order == 1 {
                first += 1;
            }
        }
    }
    (success, mention, first, order_sum)
}

fn avg(sum: u64, n: u32) -> Option<f64> {
    if n == 0 {
        None
    } else {
        Some(sum as f64 / n as f64)
    }
}

fn prompt_figures(run: &Run, probes: &[&Probe], t: &Targets) -> Vec<PromptMetrics> {
    prompt_rows(run, probes)
        .into_iter()
        .map(|(id, snapshot)| {
            let of_prompt: Vec<&Probe> = probes.iter().copied().filter(|p| p.prompt_id == id).collect();
            let ok = successes(&of_prompt);
            let (success, mention, first, order_sum) = brand_counts(&of_prompt, t);
            let failed =
                of_prompt.iter().filter(|p| matches!(p.status, ProbeStatus::Error | ProbeStatus::Empty)).count();
            PromptMetrics {
                prompt_id: id.clone(),
                success_count: success,
                mention_rate: ratio(mention, success),
                first_mention_rate: ratio(first, success),
                avg_order: avg(order_sum, mention),
                text: snapshot.map(|p| p.text.clone()).unwrap_or_default(),
                tags: snapshot.map(|p| p.tags.clone()).unwrap_or_default(),
                probe_count: of_prompt.len() as u32,
                failed_count: failed as u32,
                mention_count: mention,
                first_mention_count: first,
                mention_rate_ci: wilson_interval(mention, success),
                source_stability: source_stability_of(&ok),
                list_stability: list_stability_of(&ok),
            }
        })
        .collect()
}

fn tag_figures(run: &Run, probes: &[&Probe], t: &Targets) -> Vec<TagMetrics> {
    let rows = prompt_rows(run, probes);
    let mut tags: Vec<String> = Vec::new();
    for (_, snapshot) in &rows {
        for tag in snapshot.map(|p| &p.tags[..]).unwrap_or(&[]) {
            if !tags.contains(tag) {
                tags.push(tag.clone());
            }
        }
    }
    tags.into_iter()
        .map(|tag| {
            let carrying: BTreeSet<&str> = rows
                .iter()
                .filter(|(_, s)| s.is_some_and(|p| p.tags.contains(&tag)))
                .map(|(id, _)| id.as_str())
                .collect();
            let of_tag: Vec<&Probe> =
                probes.iter().copied().filter(|p| carrying.contains(p.prompt_id.as_str())).collect();
            let (success, mention, first, order_sum) = brand_counts(&of_tag, t);
            let failed = of_tag.iter().filter(|p| matches!(p.status, ProbeStatus::Error | ProbeStatus::Empty)).count();
            TagMetrics {
                tag,
                success_count: success,
                mention_rate: ratio(mention, success),
                first_mention_rate: ratio(first, success),
                avg_order: avg(order_sum, mention),
                prompt_count: carrying.len() as u32,
                probe_count: of_tag.len() as u32,
                failed_count: failed as u32,
                mention_count: mention,
                first_mention_count: first,
                mention_rate_ci: wilson_interval(mention, success),
            }
        })
        .collect()
}

fn domain_figures(ok: &[&Probe], total_occurrences: u32) -> Vec<DomainMetrics> {
    let success = ok.len() as u32;
    let any_citations = ok.iter().any(|p| p.raw_citations.is_some());
    let mut first_seen: Vec<String> = Vec::new();
    for p in ok {
        for s in &p.sources {
            if !first_seen.contains(&s.domain) {
                first_seen.push(s.domain.clone());
            }
        }
    }
    let mut rows: Vec<DomainMetrics> = first_seen
        .into_iter()
        .map(|domain| {
            let (mut occurrences, mut rank_sum, mut best) = (0u32, 0u64, None::<u32>);
            // (platform, channel, ownership) → occurrences, in first-seen order.
            let mut attributions: Vec<((String, String, Ownership), u32)> = Vec::new();
            for s in ok.iter().flat_map(|p| &p.sources).filter(|s| s.domain == domain) {
                let (occ, sum, b) = occurrences_of(s);
                occurrences += occ;
                rank_sum += sum;
                best = Some(best.map_or(b, |x| x.min(b)));
                let key = (s.platform.clone(), s.channel.clone(), s.ownership);
                match attributions.iter_mut().find(|(k, _)| *k == key) {
                    Some((_, n)) => *n += occ,
                    None => attributions.push((key, occ)),
                }
            }
            let top = attributions.iter().map(|(_, n)| *n).max().unwrap();
            let ((platform, channel, ownership), _) = attributions.into_iter().find(|(_, n)| *n == top).unwrap();
            let probes = ok.iter().filter(|p| p.sources.iter().any(|s| s.domain == domain)).count() as u32;
            let cited =
                ok.iter().filter(|p| p.sources.iter().any(|s| s.domain == domain && s.cited == Some(true))).count()
                    as u32;
            DomainMetrics {
                platform,
                channel,
                ownership,
                probe_count: probes,
                occurrence_rate: ratio(probes, success),
                occurrences,
                occurrence_share: ratio(occurrences, total_occurrences),
                avg_rank: avg(rank_sum, occurrences),
                best_rank: best,
                cited_probe_count: any_citations.then_some(cited),
                cited_rate: if any_citations { ratio(cited, success) } else { None },
                occurrence_rate_ci: wilson_interval(probes, success),
                domain,
            }
        })
        .collect();
    rows.sort_by(|a, b| b.occurrences.cmp(&a.occurrences).then(a.domain.cmp(&b.domain)));
    rows
}

fn channel_figures(domains: &[DomainMetrics], total_occurrences: u32) -> Vec<ChannelMetrics> {
    let mut by: BTreeMap<String, u32> = BTreeMap::new();
    for d in domains {
        *by.entry(d.channel.clone()).or_default() += d.occurrences;
    }
    let mut rows: Vec<ChannelMetrics> = by
        .into_iter()
        .map(|(channel, occurrences)| ChannelMetrics {
            channel,
            occurrences,
            occurrence_share: ratio(occurrences, total_occurrences),
        })
        .collect();
    rows.sort_by(|a, b| b.occurrences.cmp(&a.occurrences).then(a.channel.cmp(&b.channel)));
    rows
}

fn outreach_gap(ok: &[&Probe], t: &Targets) -> OutreachGap {
    let mentions_competitor = |p: &Probe| {
        t.list.iter().any(|target| target.kind == TargetKind::Competitor && mention_of(p, &target.id).is_some())
    };
    let c: Vec<&Probe> = ok.iter().copied().filter(|p| mentions_competitor(p)).collect();
    let b: Vec<&Probe> = ok.iter().copied().filter(|p| brand_mention(p, t).is_some()).collect();
    let with_brand: BTreeSet<String> = b.iter().flat_map(|p| domain_set(p)).collect();
    let mut counts: BTreeMap<String, u32> = BTreeMap::new();
    for p in &c {
        for d in domain_set(p) {
            if !with_brand.contains(&d) {
                *counts.entry(d).or_default() += 1;
            }
        }
    }
    let mut domains: Vec<GapDomain> =
        counts.into_iter().map(|(domain, probe_count)| GapDomain { domain, probe_count }).collect();
    domains.sort_by(|a, b| b.probe_count.cmp(&a.probe_count).then(a.domain.cmp(&b.domain)));
    OutreachGap { competitor_probe_count: c.len() as u32, brand_probe_count: b.len() as u32, domains }
}

fn untracked_entities(ok: &[&Probe]) -> Vec<UntrackedEntity> {
    // (folded) → (name as first seen, count, first-seen order)
    let mut seen: BTreeMap<String, (String, u32, usize)> = BTreeMap::new();
    for p in ok {
        let mut here: BTreeSet<String> = BTreeSet::new();
        for name in &p.other_entities {
            let trimmed = name.trim();
            if trimmed.is_empty() {
                continue;
            }
            let folded = normalize_for_match(trimmed);
            let order = seen.len();
            let entry = seen.entry(folded.clone()).or_insert((trimmed.to_string(), 0, order));
            if here.insert(folded) {
                entry.1 += 1;
            }
        }
    }
    let mut rows: Vec<(String, u32, usize)> = seen.into_values().collect();
    rows.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)).then(a.2.cmp(&b.2)));
    rows.into_iter().map(|(name, count, _)| UntrackedEntity { name, count }).collect()
}

/// The position-adjusted word count of target `t` in a probe: the stored score of its first
/// mention when in [0, 1], else computed from the answer.
fn pawc_of(p: &Probe, t: &Target) -> f64 {
    match mention_of(p, &t.id).and_then(|m| m.position_adjusted_word_count) {
        Some(v) if (0.0..=1.0).contains(&v) => v,
        _ => position_adjusted_word_count(&p.answer, std::slice::from_ref(t))[0],
    }
}

fn domains_of_successes(probes: &[&Probe]) -> BTreeSet<String> {
    successes(probes).iter().flat_map(|p| domain_set(p)).collect()
}

/// Every figure of `run` from its probes, the plain way.
/// `facts`: per fact of the snapshot, the successful probes with a claim on it, each once by
/// its strongest verdict (contradicts, then consistent, then unverified).
fn fact_rows(run: &Run, ok: &[&Probe]) -> Vec<FactMetrics> {
    let Some(sheet) = &run.fact_snapshot else { return vec![] };
    sheet
        .facts
        .iter()
        .map(|f| {
            let (mut with, mut consistent, mut contradicts, mut unverified) = (0, 0, 0, 0);
            for p in ok {
                let verdicts: Vec<Verdict> = p.claims.iter().filter(|c| c.fact_id == f.id).map(|c| c.verdict).collect();
                if verdicts.is_empty() {
                    continue;
                }
                with += 1;
                if verdicts.contains(&Verdict::Contradicts) {
                    contradicts += 1;
                } else if verdicts.contains(&Verdict::Consistent) {
                    consistent += 1;
                } else {
                    unverified += 1;
                }
            }
            FactMetrics {
                fact_id: f.id.clone(),
                target_id: f.target_id.clone(),
                label: f.label.clone(),
                probes_with_claim: with,
                consistent,
                contradicts,
                unverified,
                contradiction_rate: ratio(contradicts, with),
            }
        })
        .collect()
}

/// `riskFlags`: per target, the successful probes mentioning it, and of those the ones with a
/// flag on it (any, and of each kind).
fn risk_rows(t: &Targets, ok: &[&Probe]) -> Vec<RiskFlagMetrics> {
    t.list
        .iter()
        .map(|x| {
            let mentioning: Vec<&&Probe> = ok.iter().filter(|p| mention_of(p, &x.id).is_some()).collect();
            let with = |kind: Option<RiskKind>| {
                mentioning
                    .iter()
                    .filter(|p| p.risk_flags.iter().any(|f| f.target_id == x.id && kind.is_none_or(|k| f.kind == k)))
                    .count() as u32
            };
            risk_row(&x.id, mentioning.len() as u32, with)
        })
        .collect()
}

/// The `riskFlags` row of `target_id`: `n` probes mention it, `flagged(kind)` of them have a
/// flag of that kind on it (of any kind for `None`).
pub(crate) fn risk_row(target_id: &str, n: u32, flagged: impl Fn(Option<RiskKind>) -> u32) -> RiskFlagMetrics {
    let k = flagged(None);
    let ci = wilson_interval(k, n);
    RiskFlagMetrics {
        target_id: target_id.to_string(),
        mentioning_count: n,
        flagged_count: k,
        flagged_rate: ratio(k, n),
        flagged_low: ci.map(|c| c[0]),
        flagged_high: ci.map(|c| c[1]),
        negative: flagged(Some(RiskKind::Negative)),
        caution: flagged(Some(RiskKind::Caution)),
        watch: flagged(Some(RiskKind::Watch)),
    }
}

/// `method` (data-model.md, "Method and surface"): the config's fields (`null` for a config
/// without a budget), the distinct models and `locationApplied` of the successful probes, sorted.
fn method_oracle(run: &Run, ok: &[&Probe]) -> Method {
    let c = &run.config;
    let budget = c.temperature.is_finite();
    let served: BTreeSet<String> = ok.iter().map(|p| p.model.clone()).collect();
    let mut applied: Vec<LocationApplied> = Vec::new();
    for p in ok {
        if !applied.contains(&p.location_applied) {
            applied.push(p.location_applied);
        }
    }
    applied.sort_by_key(|a| a.as_str());
    Method {
        engine: c.engine,
        surface: run.surface,
        requested_model: c.model.clone(),
        served_models: served.into_iter().collect(),
        location: c.location.clone(),
        location_applied: applied,
        max_tokens: budget.then_some(c.max_tokens),
        max_searches: budget.then_some(c.max_searches),
        temperature: budget.then_some(c.temperature),
        reasoning_effort: c.reasoning_effort,
        system_prompt_version: budget.then(|| c.system_prompt_version.clone()),
    }
}

fn oracle(run: &Run, probes: &[&Probe], previous: Option<(&Run, Vec<&Probe>)>) -> RunMetrics {
    let t = targets_of(run);
    let ok = successes(probes);
    let success = ok.len() as u32;
    let failed = probes.iter().filter(|p| matches!(p.status, ProbeStatus::Error | ProbeStatus::Empty)).count() as u32;
    let cancelled = probes.iter().filter(|p| p.status == ProbeStatus::Cancelled).count() as u32;
    let (_, mention, first, order_sum) = brand_counts(probes, &t);
    let with_position: Vec<u32> =
        ok.iter().filter_map(|p| brand_mention(p, &t).and_then(|m| m.list_position)).collect();
    let position_sum: u64 = with_position.iter().map(|&x| x as u64).sum();
    let mentioning = |id: &str| ok.iter().filter(|p| mention_of(p, id).is_some()).count() as u32;
    let sov_total: u32 = t.list.iter().map(|x| mentioning(&x.id)).sum();
    let owned = |s: &SearchSource| s.ownership == Ownership::Owned;
    let owned_probes = ok.iter().filter(|p| p.sources.iter().any(owned)).count() as u32;
    let owned_best_rank = ok.iter().flat_map(|p| &p.sources).filter(|s| owned(s)).map(|s| occurrences_of(s).2).min();
    let total_occurrences: u32 = ok.iter().flat_map(|p| &p.sources).map(|s| occurrences_of(s).0).sum();
    let links: Vec<&AnswerLink> = ok.iter().flat_map(|p| &p.answer_links).collect();
    let in_sources = links.iter().filter(|l| l.in_sources).count() as u32;
    let searched = ok.iter().filter(|p| !p.queries.is_empty()).count() as u32;
    let with_citations = ok.iter().filter(|p| p.raw_citations.is_some()).count() as u32;
    let owned_cited = ok
        .iter()
        .filter(|p| p.raw_citations.is_some() && p.sources.iter().any(|s| owned(s) && s.cited == Some(true)))
        .count() as u32;

    let prompts = prompt_figures(run, probes, &t);
    let stability: Vec<f64> = prompts.iter().filter_map(|p| p.source_stability).collect();
    let list_stability: Vec<f64> = prompts.iter().filter_map(|p| p.list_stability).collect();
    let domains = domain_figures(&ok, total_occurrences);

    let here = domains_of_successes(probes);
    let (mut new_domains, mut lost_domains, mut previous_success) = (vec![], vec![], 0);
    if let Some((_, prev_probes)) = &previous {
        previous_success = successes(prev_probes).len() as u32;
        let before = domains_of_successes(prev_probes);
        if success > 0 && previous_success > 0 {
            new_domains = here.difference(&before).cloned().collect();
            lost_domains = before.difference(&here).cloned().collect();
        }
    }

    // A price is the run's engine's (engines.md: a price table per engine and model); a probe
    // billed at no known price leaves the whole run without a cost.
    // A probe's cost is its stated `costUsd`, else its `billedUsage` (its `usage` in an older
    // export) priced with one searching-request fee per attempt at most (engines.md "Fidelity").
    let engine_price = |model: &str| price_for(model).filter(|price| price.engine == run.config.engine);
    let naive = |price: &ModelPrice, u: &Usage, attempts: u32| {
        let fee = match (price.per_request_by_context, u.search_context_size) {
            (Some(f), Some(SearchContextSize::Medium)) => f[1],
            (Some(f), Some(SearchContextSize::High)) => f[2],
            (Some(f), _) => f[0],
            (None, _) => price.per_search,
        };
        let searches = u.web_search_requests as f64;
        let search_fee = match price.search_billing {
            SearchBilling::PerSearch => searches * price.per_search,
            SearchBilling::PerSearchingRequest => searches.min(f64::from(attempts.max(1))) * fee,
        };
        u.input_tokens as f64 / 1e6 * price.input_cache_miss_per_million
            + u.cache_read_input_tokens as f64 / 1e6 * price.input_cache_hit_per_million
            + u.output_tokens as f64 / 1e6 * price.output_per_million
            + search_fee
    };
    let mut cost = Some(0.0);
    for p in probes {
        let model = if engine_price(&p.model).is_some() { &p.model } else { &run.config.model };
        let billed = p.billed_usage.unwrap_or(p.usage);
        // An older probe's `usage` is one attempt's: one request, so its cost does not move.
        let requests = if p.billed_usage.is_some() { p.attempts } else { 1 };
        let this = p.cost_usd.or_else(|| engine_price(model).map(|price| naive(price, &billed, requests)));
        cost = match (cost, this) {
            (Some(total), Some(c)) => Some(total + c),
            _ => None,
        };
    }
    let truncated_count = ok.iter().filter(|p| p.truncated).count() as u32;

    let mut m = RunMetrics {
        run_id: run.id.clone(),
        engine: run.config.engine,
        previous_run_id: run.previous_run_id.clone(),
        probe_count: probes.len() as u32,
        success_count: success,
        failed_count: failed,
        mention_rate: ratio(mention, success),
        first_mention_rate: ratio(first, success),
        avg_order: avg(order_sum, mention),
        avg_list_position: avg(position_sum, with_position.len() as u32),
        share_of_voice: TargetMap(t.list.iter().map(|x| (x.id.clone(), ratio(mentioning(&x.id), sov_total))).collect()),
        owned_visibility: ratio(owned_probes, success),
        owned_best_rank,
        unique_domains: here.len() as u32,
        source_stability: mean(&stability),
        answer_link_overlap: ratio(in_sources, links.len() as u32),
        searched_rate: ratio(searched, success),
        owned_citation_rate: if with_citations > 0 { ratio(owned_cited, success) } else { None },
        truncated_count,
        new_domains,
        lost_domains,
        channels: channel_figures(&domains, total_occurrences),
        domains,
        tags: tag_figures(run, probes, &t),
        estimated_cost_usd: cost,
        insights: vec![],
        facts: fact_rows(run, &ok),
        risk_flags: risk_rows(&t, &ok),
        surface: run.surface,
        method: method_oracle(run, &ok),
        brand_id: t.brand.clone(),
        counts: MetricCounts {
            cancelled_count: cancelled,
            mention_count: mention,
            first_mention_count: first,
            list_position_count: with_position.len() as u32,
            owned_probe_count: owned_probes,
            occurrence_count: total_occurrences,
            answer_link_count: links.len() as u32,
            answer_link_in_sources_count: in_sources,
            share_of_voice_total: sov_total,
            stability_prompt_count: stability.len() as u32,
            list_stability_prompt_count: list_stability.len() as u32,
            previous_success_count: previous_success,
            searched_count: searched,
            citation_probe_count: with_citations,
            owned_cited_count: owned_cited,
        },
        mention_rate_ci: wilson_interval(mention, success),
        first_mention_rate_ci: wilson_interval(first, success),
        owned_visibility_ci: wilson_interval(owned_probes, success),
        share_of_voice_counts: TargetMap(t.list.iter().map(|x| (x.id.clone(), mentioning(&x.id))).collect()),
        list_stability: mean(&list_stability),
        position_adjusted_word_count: TargetMap(
            t.list
                .iter()
                .map(|x| {
                    let mut sum = 0.0;
                    for p in ok.iter().filter(|p| mention_of(p, &x.id).is_some()) {
                        sum += pawc_of(p, x);
                    }
                    (x.id.clone(), if success == 0 { None } else { Some(sum / success as f64) })
                })
                .collect(),
        ),
        outreach_gap: outreach_gap(&ok, &t),
        untracked_entities: untracked_entities(&ok),
        answer_link_check: None,
        prompts,
    };
    m.insights = insights_of(&m);
    m
}

/// `v` as a percentage with one decimal, `—` for none.
fn percent_text(v: Option<f64>) -> String {
    match v {
        Some(v) => format!("{:.1}%", v * 100.0),
        None => "—".to_string(),
    }
}

/// The first three of `domains`, then `…` when there are more.
fn first_three(domains: &[String]) -> String {
    let mut shown: Vec<&str> = domains.iter().take(3).map(String::as_str).collect();
    if domains.len() > 3 {
        shown.push("…");
    }
    shown.join(", ")
}

/// The findings of a run from its figures, the plain way: each rule of `docs/metrics.md`
/// ("Insights", seed §7) in its order, then the first of each title, then the first five.
fn insights_of(m: &RunMetrics) -> Vec<Insight> {
    let mut all: Vec<Insight> = Vec::new();
    let mut say = |kind: &str, title: [String; 2], detail: [String; 2]| {
        let [title, title_en] = title;
        let [detail, detail_en] = detail;
        all.push(Insight { kind: kind.to_string(), title, detail, title_en, detail_en });
    };
    let (n, s) = (m.probe_count, m.success_count);
    let tag = |name: &str| m.tags.iter().find(|row| row.tag == name);

    // 1. No successful probe.
    if s == 0 {
        say(
            "no_success",
            ["还没有成功的探测".into(), "No successful probe yet".into()],
            [
                format!("本批次 {n} 次探测中没有成功的结果：先运行一个批次（或重试失败项）再看指标。"),
                format!("None of the run's {n} probes succeeded: run a batch (or retry the failed probes) before reading the metrics."),
            ],
        );
    }
    // Then: truncated answers are more than 5 % of the probes.
    if n > 0 && f64::from(m.truncated_count) / f64::from(n) > 0.05 {
        let (t, share) = (m.truncated_count, percent_text(Some(f64::from(m.truncated_count) / f64::from(n))));
        say(
            "truncated_answers",
            ["回答被长度上限截断".into(), "Answers cut off by the length limit".into()],
            [
                format!("{n} 次探测中 {t} 次成功回答被输出上限截断（{share}），提及和列表可能不完整：请调高输出上限或降低推理强度。"),
                format!("{t} of {n} probes ({share}) were cut off by the output limit, so mentions and lists may be incomplete: raise the max tokens or lower the reasoning effort."),
            ],
        );
    }
    // 2. Generic prompts have successful probes, and together no brand mention.
    if let Some(row) = tag("generic").filter(|row| row.success_count > 0 && row.mention_count == 0) {
        let (p, ok) = (row.prompt_count, row.success_count);
        say(
            "generic_not_mentioned",
            ["通用词没有被提及".into(), "Not mentioned on generic prompts".into()],
            [
                format!("{p} 条通用词 Prompt 的 {ok} 次成功探测中，品牌一次也没有被提及。"),
                format!("The brand was not mentioned in any of the {ok} successful probes of {p} generic prompt(s)."),
            ],
        );
    }
    // 3. Brand prompts have successful probes, and together a brand mention.
    if let Some(row) = tag("brand").filter(|row| row.success_count > 0 && row.mention_count > 0) {
        let (p, ok, k) = (row.prompt_count, row.success_count, row.mention_count);
        say(
            "brand_recognized",
            ["品牌词能被识别".into(), "Recognised on brand prompts".into()],
            [
                format!("{p} 条品牌词 Prompt 的 {ok} 次成功探测中，有 {k} 次提及了品牌。"),
                format!("The brand was mentioned in {k} of the {ok} successful probes of {p} brand prompt(s)."),
            ],
        );
    }
    // 4. Successful probes, and none retrieved an owned source.
    if s > 0 && m.counts.owned_probe_count == 0 {
        say(
            "no_owned_source",
            ["官网未进入检索来源".into(), "Own site not among retrieved sources".into()],
            [
                format!("{s} 次成功探测的检索来源里都没有品牌自有域名。"),
                format!("None of the {s} successful probes retrieved a source on the brand's own domains."),
            ],
        );
    }
    // 5. The top source: its platform, occurrence rate, average rank and occurrences.
    if let Some(top) = m.domains.first() {
        let (domain, platform, rate) = (&top.domain, &top.platform, percent_text(top.occurrence_rate));
        let rank = top.avg_rank.map_or("—".to_string(), |r| format!("{r:.2}"));
        let (probes, occurrences) = (top.probe_count, top.occurrences);
        say(
            "top_source",
            [format!("Top 来源：{platform}"), format!("Top source: {platform}")],
            [
                format!("{domain}（{platform}）出现在 {rate} 的成功探测中（{probes}/{s}），平均位次 {rank}，来源次数 {occurrences}。"),
                format!("{domain} ({platform}) was retrieved in {rate} of successful probes ({probes}/{s}), average rank {rank}, {occurrences} occurrences."),
            ],
        );
    }
    // 6. Source stability under 0.4.
    if let Some(v) = m.source_stability.filter(|v| *v < 0.4) {
        let over = m.counts.stability_prompt_count;
        say(
            "low_stability",
            ["来源稳定性偏低".into(), "Low source stability".into()],
            [
                format!("同一 Prompt 重复提问时，来源域名集合的平均 Jaccard 相似度只有 {v:.2}（{over} 条 Prompt 参与计算）。"),
                format!("Repeats of the same prompt share few source domains: mean Jaccard {v:.2} over {over} prompt(s)."),
            ],
        );
    }
    // 7. New or lost domains.
    let (new, lost) = (&m.new_domains, &m.lost_domains);
    if !new.is_empty() || !lost.is_empty() {
        let mut zh = format!("与上一批次相比新增 {} 个域名、流失 {} 个域名。", new.len(), lost.len());
        let mut en = format!("Compared with the previous run: {} new and {} lost domain(s).", new.len(), lost.len());
        if !new.is_empty() {
            zh += &format!("新增：{}。", first_three(new));
            en += &format!(" New: {}.", first_three(new));
        }
        if !lost.is_empty() {
            zh += &format!("流失：{}。", first_three(lost));
            en += &format!(" Lost: {}.", first_three(lost));
        }
        say("source_change", ["来源发生变化".into(), "Sources changed".into()], [zh, en]);
    }
    // 8 and 9. The mention rate at least 0.8, or under 0.2.
    if let Some(rate) = m.mention_rate {
        let (k, shown) = (m.counts.mention_count, percent_text(Some(rate)));
        if rate >= 0.8 {
            say(
                "high_mention_rate",
                ["品牌提及率很高".into(), "High brand mention rate".into()],
                [
                    format!("{k}/{s} 次成功探测提及了品牌（{shown}）。"),
                    format!("{k} of {s} successful probes mentioned the brand ({shown})."),
                ],
            );
        }
        if rate < 0.2 {
            say(
                "low_mention_rate",
                ["品牌提及率偏低".into(), "Low brand mention rate".into()],
                [
                    format!("只有 {k}/{s} 次成功探测提及了品牌（{shown}）。"),
                    format!("Only {k} of {s} successful probes mentioned the brand ({shown})."),
                ],
            );
        }
    }

    let mut kept: Vec<Insight> = Vec::new();
    for insight in all {
        if kept.len() < 5 && !kept.iter().any(|k| k.title == insight.title) {
            kept.push(insight);
        }
    }
    kept
}

/// Asserts equality field by field, naming the first field that differs.
fn assert_same(got: &RunMetrics, want: &RunMetrics) -> Result<(), TestCaseError> {
    macro_rules! same {
        ($($field:ident),*) => {$(
            prop_assert_eq!(&got.$field, &want.$field, "field `{}` of run {}", stringify!($field), want.run_id);
        )*};
    }
    same!(run_id, engine, previous_run_id, probe_count, success_count, failed_count, counts);
    same!(mention_rate, first_mention_rate, avg_order, avg_list_position, share_of_voice, share_of_voice_counts);
    same!(owned_visibility, owned_best_rank, unique_domains, source_stability, answer_link_overlap);
    same!(
        searched_rate,
        owned_citation_rate,
        truncated_count,
        new_domains,
        lost_domains,
        channels,
        tags,
        estimated_cost_usd
    );
    for (g, w) in got.domains.iter().zip(&want.domains) {
        prop_assert_eq!(g, w, "domain row {}", w.domain);
    }
    for (g, w) in got.prompts.iter().zip(&want.prompts) {
        prop_assert_eq!(g, w, "prompt row {}", w.prompt_id);
    }
    same!(domains, prompts, brand_id, mention_rate_ci, first_mention_rate_ci, owned_visibility_ci);
    same!(list_stability, position_adjusted_word_count, outreach_gap, untracked_entities, insights);
    same!(facts, risk_flags, surface, method);
    prop_assert_eq!(got, want);
    Ok(())
}

// ------------------------------------------------------------------ generated runs

const TARGET_IDS: [&str; 4] = ["acme", "beta", "gamma", "ghost"];
/// Fact ids: three of the generated sheets and one no sheet has.
const FACT_IDS: [&str; 4] = ["founded", "price", "hq", "unknown"];
const ALIASES: [&str; 4] = ["Acme", "Beta", "甘马", "Ghost"];
const DOMAINS: [&str; 7] = ["acme.com", "beta.io", "zhihu.com", "csdn.net", "baidu.com", "x.cn", "y.org"];
const CHANNELS: [&str; 4] = ["official", "qa", "news", "other"];
const TAGS: [&str; 5] = ["generic", "brand", "scenario", "季节", "Generic"];
const TITLES: [&str; 7] = ["Acme", " acme ", "ＡＣＭＥ", "Beta", "Delta", "", "元构场"];
const ENTITIES: [&str; 6] = ["OtherCo", "ＯＴＨＥＲＣＯ", " otherco ", "Delta", "  ", "新公司"];
const WORDS: [&str; 8] = ["Acme", " 是第一。", "Beta", " good. ", "甘马", "很好！", "\n", "ACME"];
const MODELS: [&str; 6] =
    ["deepseek-v4-flash", "deepseek-v4-pro", "unknown-model", "sonar", "sonar-pro", "gemini-2.5-flash"];

fn pick<T: Clone + std::fmt::Debug + 'static>(pool: &[T]) -> impl Strategy<Value = T> + Clone {
    prop::sample::select(pool.to_vec())
}

fn source_strategy() -> impl Strategy<Value = SearchSource> {
    (
        pick(&DOMAINS),
        0usize..3,
        pick(&CHANNELS),
        0u8..3,
        prop::collection::vec(1u32..9, 0..3),
        1u32..9,
        prop::option::of(any::<bool>()),
    )
        .prop_map(|(domain, platform, channel, ownership, ranks, best_rank, cited)| SearchSource {
            id: String::new(),
            url: format!("https://{domain}/p"),
            host: domain.to_string(),
            domain: domain.to_string(),
            title: String::new(),
            page_age: None,
            platform: ["平台甲", "平台乙", "z"][platform].to_string(),
            channel: channel.to_string(),
            ownership: [Ownership::Owned, Ownership::Competitor, Ownership::ThirdParty][ownership as usize],
            competitor_id: None,
            occurrences: ranks
                .iter()
                .enumerate()
                .map(|(i, &rank)| Occurrence { query_index: i as u32 + 1, query: None, rank })
                .collect(),
            best_rank,
            title_mentions: vec![],
            cited,
        })
}

fn mention_strategy() -> impl Strategy<Value = Mention> {
    let stored = prop_oneof![
        Just(None),
        (0.0f64..=1.0).prop_map(Some),
        Just(Some(1.5)),
        Just(Some(-0.25)),
        Just(Some(f64::NAN))
    ];
    (0usize..5, 1u32..5, prop::option::of(1u32..6), stored).prop_map(|(t, order, list_position, stored)| {
        let id = TARGET_IDS.get(t).copied().unwrap_or("unknown");
        let mut m = mention(id, order, list_position);
        m.position_adjusted_word_count = stored;
        m
    })
}

fn probe_strategy() -> impl Strategy<Value = Probe> {
    (
        (0usize..6, 0u8..7, pick(&MODELS), 0u32..30_000, 0u32..3),
        (any::<bool>(), 0u8..4, 1u32..4, 0u8..4),
        prop::collection::vec(mention_strategy(), 0..4),
        prop::collection::vec(source_strategy(), 0..5),
        prop::collection::vec((0u32..5, pick(&TITLES)), 0..4),
        prop::collection::vec(pick(&ENTITIES), 0..3),
        (prop::collection::vec(any::<bool>(), 0..3), 0u8..3, 0usize..3),
        prop::collection::vec(pick(&WORDS), 0..8),
        (prop::collection::vec((0usize..4, 0u8..3), 0..4), prop::collection::vec((0usize..4, 0u8..3, 0usize..3), 0..4)),
    )
        .prop_map(
            |(
                (prompt, status, model, tokens, searches),
                (truncated, billed, attempts, fidelity),
                mentions,
                sources,
                items,
                entities,
                (links, citations, queries),
                words,
                (claims, flags),
            )| {
                let status = match status {
                    0 => ProbeStatus::Error,
                    1 => ProbeStatus::Empty,
                    2 => ProbeStatus::Cancelled,
                    _ => ProbeStatus::Success,
                };
                let mut p = probe("r", &format!("p{prompt}"), 0, status);
                p.model = model.to_string();
                p.usage = Usage {
                    input_tokens: u64::from(tokens),
                    output_tokens: u64::from(tokens / 7),
                    cache_read_input_tokens: u64::from(tokens / 3),
                    web_search_requests: u64::from(searches),
                    search_context_size: match fidelity {
                        1 => Some(SearchContextSize::Medium),
                        2 => Some(SearchContextSize::High),
                        _ => None,
                    },
                };
                // Fidelity fields: an older probe (no billedUsage), a retried one, a stated cost.
                p.truncated = truncated;
                p.attempts = attempts;
                p.billed_usage = match billed {
                    0 => None,
                    1 => Some(p.usage),
                    _ => Some(p.usage.plus(Usage { input_tokens: u64::from(tokens / 2), ..p.usage })),
                };
                p.cost_usd = (fidelity == 3).then(|| f64::from(tokens) / 1e7);
                p.location_applied = LocationApplied::ALL[(searches % 3) as usize];
                p.answer = words.concat();
                p.mentions = mentions;
                p.sources = sources;
                p.list_items = items
                    .into_iter()
                    .map(|(position, title)| ListItem {
                        position,
                        title: title.to_string(),
                        text: String::new(),
                        matched_target_id: None,
                    })
                    .collect();
                p.other_entities = entities.into_iter().map(str::to_string).collect();
                p.answer_links = links
                    .into_iter()
                    .map(|in_sources| AnswerLink {
                        url: "https://a.b/".into(),
                        canonical_url: "https://a.b".into(),
                        domain: "a.b".into(),
                        text: None,
                        in_sources,
                    })
                    .collect();
                p.raw_citations = match citations {
                    0 => None,
                    1 => Some(vec![]),
                    _ => Some(vec![RawCitation {
                        url: "https://acme.com/p".into(),
                        title: None,
                        cited_text: None,
                        index: None,
                    }]),
                };
                let verdict = |v: u8| [Verdict::Consistent, Verdict::Contradicts, Verdict::Unverified][v as usize];
                let kind = |k: u8| [RiskKind::Negative, RiskKind::Caution, RiskKind::Watch][k as usize];
                p.claims = claims
                    .into_iter()
                    .map(|(f, v)| Claim {
                        fact_id: FACT_IDS[f].into(),
                        target_id: TARGET_IDS[f].into(),
                        verdict: verdict(v),
                        sentence: "s".into(),
                        start: 0,
                        end: 1,
                        values: vec![],
                        source_ids: vec![],
                    })
                    .collect();
                p.risk_flags = flags
                    .into_iter()
                    .map(|(t, k, cue)| RiskFlag {
                        target_id: TARGET_IDS[t].into(),
                        kind: kind(k),
                        cue: ["投诉", "expensive", "事件"][cue].into(),
                        sentence: "s".into(),
                        start: 0,
                        end: 1,
                    })
                    .collect();
                p.queries = (0..queries as u32)
                    .map(|i| Query { index: i + 1, query: Some("q".into()), internal: false, error: None })
                    .collect();
                p
            },
        )
}

fn run_strategy(id: &'static str, previous: Option<&'static str>) -> impl Strategy<Value = (Run, Vec<Probe>)> {
    let targets = prop::collection::vec((0usize..4, any::<bool>()), 0..5);
    let prompts = prop::collection::vec((0usize..5, prop::collection::vec(pick(&TAGS), 0..3)), 0..5);
    let engines = pick(&EngineId::ALL);
    // A fact sheet or none; its facts drawn from the first three ids, a repeated id allowed.
    let sheet = prop::option::of(prop::collection::vec(0usize..3, 0..4));
    // How it measured: an API run without or with a location (its line on or off), or an app run.
    let how = 0u8..4;
    (targets, prompts, engines, pick(&MODELS), prop::collection::vec(probe_strategy(), 0..14), sheet, how).prop_map(
        move |(targets, prompts, engine, model, probes, sheet, how)| {
            let prompts =
                prompts.into_iter().map(|(i, tags)| prompt(&format!("p{i}"), &format!("问题 {i}"), &tags)).collect();
            let mut r = run(id, "2026-11-29T08:00:00.000Z", prompts, previous);
            r.config.engine = engine;
            r.config.model = model.to_string();
            match how {
                1 | 2 => {
                    r.config.location = Location::from_flags(Some("CN/浙江/杭州"), Some("Asia/Shanghai")).unwrap();
                    r.config.location_prompt = how == 1;
                }
                3 => {
                    r.config = RunConfig::for_app(engine, r.config.repeats, None);
                    r.surface = Surface::App;
                }
                _ => {}
            }
            r.fact_snapshot = sheet.map(|facts| FactSnapshot {
                facts: facts
                    .into_iter()
                    .map(|i| Fact {
                        label: format!("事实 {i}"),
                        value: Some(2015.0),
                        ..fact(FACT_IDS[i], TARGET_IDS[i], FactKind::Year, &["成立"])
                    })
                    .collect(),
                watch_terms: vec![],
            });
            r.alias_snapshot = targets
                .into_iter()
                .map(|(i, brand)| {
                    let kind = if brand { TargetKind::Brand } else { TargetKind::Competitor };
                    target(TARGET_IDS[i], kind, &[ALIASES[i]], &[])
                })
                .collect();
            (r, numbered(id, probes))
        },
    )
}

fn envelope((r1, p1): (Run, Vec<Probe>), (r2, p2): (Run, Vec<Probe>)) -> ExportEnvelope {
    let mut env = ExportEnvelope::new("2026-11-30T00:00:00.000Z");
    let mut r1 = r1;
    r1.created_at = "2026-11-20T08:00:00.000Z".into();
    env.runs = vec![r2, r1];
    // Interleaved, as a store may return them.
    let mut probes: Vec<Probe> = Vec::new();
    let (mut a, mut b) = (p1.into_iter(), p2.into_iter());
    loop {
        match (a.next(), b.next()) {
            (None, None) => break,
            (x, y) => probes.extend(x.into_iter().chain(y)),
        }
    }
    env.probes = probes;
    env
}

/// Two generated runs as one export: `r2`, whose previous run is `r1`, and `r1`.
pub(crate) fn two_runs() -> impl Strategy<Value = ExportEnvelope> {
    (run_strategy("r1", None), run_strategy("r2", Some("r1"))).prop_map(|(first, second)| envelope(first, second))
}

fn check_envelope(env: &ExportEnvelope) -> Result<(), TestCaseError> {
    let got = metrics_for_export(env, None).unwrap();
    let of = |id: &str| env.probes_of(id).collect::<Vec<_>>();
    let (r1, r2) = (&env.runs[1], &env.runs[0]);
    prop_assert_eq!(got.len(), 2);
    assert_same(&got[0], &oracle(r1, &of("r1"), None))?;
    assert_same(&got[1], &oracle(r2, &of("r2"), Some((r1, of("r1")))))?;
    Ok(())
}

proptest! {
    #![proptest_config(crate::config())]

    /// The real metrics of generated runs equal the oracle's, field for field.
    #[test]
    fn run_metrics_equal_the_naive_oracle(env in two_runs()) {
        check_envelope(&env)?;
    }
}

#[test]
fn the_oracle_agrees_on_the_hand_built_sample() {
    let env = crate::metrics_support::sample_envelope();
    let got = metrics_for_export(&env, Some("r2")).unwrap().remove(0);
    let of = |id: &str| env.probes_of(id).collect::<Vec<_>>();
    let r1 = env.run("r1").unwrap();
    let r2 = env.run("r2").unwrap();
    assert_same(&got, &oracle(r2, &of("r2"), Some((r1, of("r1"))))).unwrap();
}

#[test]
fn citation_figures_are_null_without_citation_data_and_counted_with_it() {
    let (_, _, _, r2, mut p2) = crate::metrics_support::sample();
    let m = geo_core::metrics::compute_run_metrics(&r2, &p2, None);
    assert_eq!(m.owned_citation_rate, None);
    assert!(m.domains.iter().all(|d| d.cited_probe_count.is_none() && d.cited_rate.is_none()));
    // The first successful probe cites its owned source: 1 of 5 successes.
    p2[0].raw_citations = Some(vec![]);
    p2[0].sources[1].cited = Some(true);
    let m = geo_core::metrics::compute_run_metrics(&r2, &p2, None);
    assert_eq!(m.owned_citation_rate, Some(0.2));
    let acme = m.domains.iter().find(|d| d.domain == "acme.com").unwrap();
    assert_eq!((acme.cited_probe_count, acme.cited_rate), (Some(1), Some(0.2)));
    let zhihu = m.domains.iter().find(|d| d.domain == "zhihu.com").unwrap();
    assert_eq!((zhihu.cited_probe_count, zhihu.cited_rate), (Some(0), Some(0.0)));
}
