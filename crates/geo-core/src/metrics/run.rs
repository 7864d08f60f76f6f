//! [`compute_run_metrics`]: the metrics of one run in one pass over its probes.
//!
//! The pass fills per-run, per-prompt, per-domain and per-target accumulators keyed by
//! borrowed strings; the only pairwise work is within a prompt (stability and RBO).
//! Domains and folded list titles are interned per run (a `u32` each), so per-probe domain
//! sets, Jaccard, RBO, the outreach gap and the domain table compare integers, not strings.
//! A prompt's id lists are stored end to end; Jaccard runs on bitsets and RBO on ranks with
//! a weight table, each giving the very floats of the plain formulas (`stats`' proptests).

use super::cost::{add_cost, RunPricer};
use super::insights::build_insights;
use super::stats::{
    mean, mean_pairwise_jaccard_ids, mean_pairwise_rbo_ids, ratio, wilson_interval, JaccardScratch, RboScratch, RBO_P,
};
use super::{
    short_eq, DomainMetrics, FastMap, FastSet, GapDomain, Key, MetricCounts, OutreachGap, PromptMetrics, RunMetrics,
    TargetMap, UntrackedEntity,
};
use crate::analysis::alias::PreparedAlias;
use crate::analysis::pawc::PreparedAnswer;
use crate::model::{Ownership, Probe, ProbeStatus, Run, Target, TargetKind};
use crate::text::normalize_for_match_into;

/// Computes the metrics of `run` from its probes (probes of other runs in `probes` are
/// ignored), comparing sources with `previous` (the run named by `previousRunId` and its
/// probes) when given.
///
/// See [`RunMetrics`] for each field's numerator and denominator and `docs/metrics.md` for
/// the formulas. `newDomains`/`lostDomains` are `[]` unless both this run and `previous` have
/// successful probes.
pub fn compute_run_metrics(run: &Run, probes: &[Probe], previous: Option<(&Run, &[Probe])>) -> RunMetrics {
    let own: Vec<&Probe> = probes.iter().filter(|p| p.run_id == run.id).collect();
    let prev: Option<(&Run, Vec<&Probe>)> =
        previous.map(|(r, ps)| (r, ps.iter().filter(|p| p.run_id == r.id).collect()));
    compute(run, &own, prev.as_ref().map(|(r, ps)| (*r, &ps[..])))
}

/// [`compute_run_metrics`] over borrowed probes: the same figures without cloning a subset
/// (the web's per-tag breakdown). Probes of other runs are ignored, as there.
pub fn compute_run_metrics_refs(run: &Run, probes: &[&Probe], previous: Option<(&Run, &[&Probe])>) -> RunMetrics {
    let own: Vec<&Probe> = probes.iter().copied().filter(|p| p.run_id == run.id).collect();
    let prev: Option<(&Run, Vec<&Probe>)> =
        previous.map(|(r, ps)| (r, ps.iter().copied().filter(|p| p.run_id == r.id).collect()));
    compute(run, &own, prev.as_ref().map(|(r, ps)| (*r, &ps[..])))
}

#[derive(Default)]
struct PromptAcc {
    probes: u32,
    failed: u32,
    success: u32,
    mention: u32,
    first: u32,
    order_sum: u64,
    /// Per successful probe: its interned domains, sorted and deduplicated.
    domain_sets: IdLists,
    /// Per successful probe with a parsed list: its interned folded titles by position,
    /// repeats dropped (RBO keeps an item's first rank).
    lists: IdLists,
}

/// Lists of interned ids stored end to end: one buffer per prompt rather than one per probe.
#[derive(Default)]
struct IdLists {
    flat: Vec<u32>,
    /// The end of each list in `flat`.
    ends: Vec<usize>,
}

impl IdLists {
    fn push(&mut self, ids: &[u32]) {
        self.flat.extend_from_slice(ids);
        self.ends.push(self.flat.len());
    }

    /// Every list, in the order pushed.
    fn slices(&self) -> Vec<&[u32]> {
        let mut start = 0;
        self.ends
            .iter()
            .map(|&end| {
                let list = &self.flat[start..end];
                start = end;
                list
            })
            .collect()
    }
}

/// Interns strings of one run as dense `u32` ids (first seen first).
struct Interner<'a> {
    ids: FastMap<Key<'a>, u32>,
}

impl<'a> Interner<'a> {
    fn id(&mut self, s: &'a str) -> u32 {
        let next = self.ids.len() as u32;
        *self.ids.entry(Key(s)).or_insert(next)
    }
}

struct DomainAcc<'a> {
    domain: &'a str,
    probes: u32,
    occurrences: u32,
    rank_sum: u64,
    best_rank: Option<u32>,
    /// (platform, channel, ownership, occurrences), first seen first.
    attributions: Vec<(&'a str, &'a str, Ownership, u32)>,
}

/// The domains of a run's successful probes, kept so that the next run, whose previous run
/// this is, need not collect them again.
pub(crate) struct RunDomains<'a> {
    run_id: &'a str,
    /// Successful probes of the run.
    success: u32,
    /// Every domain of their sources (the values are interned ids).
    domains: FastMap<Key<'a>, u32>,
}

impl<'a> RunDomains<'a> {
    /// Collects the domains of the successful probes among `probes` (those of run `run_id`).
    fn collect(run_id: &'a str, probes: &[&'a Probe]) -> Self {
        let mut ids = Interner { ids: FastMap::default() };
        let mut success = 0;
        for p in probes.iter().filter(|p| p.status == ProbeStatus::Success) {
            success += 1;
            for s in &p.sources {
                ids.id(s.domain.as_str());
            }
        }
        RunDomains { run_id, success, domains: ids.ids }
    }
}

/// The computation behind [`compute_run_metrics`]; `probes` are the run's own.
pub(crate) fn compute(run: &Run, probes: &[&Probe], previous: Option<(&Run, &[&Probe])>) -> RunMetrics {
    compute_reusing(run, probes, previous, None).0
}

/// [`compute`], taking the previous run's domains from `known` when it holds that run's
/// (collected from the same probes), and returning this run's domains for the next run.
pub(crate) fn compute_reusing<'a>(
    run: &'a Run,
    probes: &[&'a Probe],
    previous: Option<(&'a Run, &[&'a Probe])>,
    known: Option<RunDomains<'a>>,
) -> (RunMetrics, RunDomains<'a>) {
    // Targets in snapshot order, one per id.
    let mut targets: Vec<&Target> = Vec::with_capacity(run.alias_snapshot.len());
    for t in &run.alias_snapshot {
        if !targets.iter().any(|seen| seen.id == t.id) {
            targets.push(t);
        }
    }
    let target_index: FastMap<Key, usize> = targets.iter().enumerate().map(|(i, t)| (Key(t.id.as_str()), i)).collect();
    // Ids are unique in `targets`, so "the brand's mention" is "the mention of this index".
    let brand_index = targets.iter().position(|t| t.kind == TargetKind::Brand);
    let brand_id: Option<&str> = targets.iter().find(|t| t.kind == TargetKind::Brand).map(|t| t.id.as_str());
    let aliases: Vec<Vec<PreparedAlias>> = targets.iter().map(|t| PreparedAlias::for_target(t)).collect();

    let mut counts = MetricCounts::default();
    let (mut probe_count, mut success, mut failed) = (0u32, 0u32, 0u32);
    let mut order_sum = 0u64;
    let mut list_pos_sum = 0u64;
    let mut owned_best_rank: Option<u32> = None;
    let mut sov = vec![0u32; targets.len()];
    let mut pawc_sum = vec![0f64; targets.len()];
    let mut cost = Some(0.0);
    let mut prompts: FastMap<&str, PromptAcc> = FastMap::default();
    // Indexed by interned domain id.
    let mut domain_ids = Interner { ids: FastMap::default() };
    let mut domains: Vec<DomainAcc> = Vec::new();
    let mut brand_domains: Vec<bool> = Vec::new();
    let mut competitor_domains: Vec<u32> = Vec::new();
    let mut gap = OutreachGap::default();
    // Untracked entities by first-seen order: (name as first seen, trimmed; probes naming it).
    let mut entities: Vec<(String, u32)> = Vec::new();
    // Folded name → order; and the same for names as written (`None`: blank), so a name seen
    // before is neither trimmed nor folded again.
    let mut entity_orders: FastMap<String, usize> = FastMap::default();
    let mut entity_orders_raw: FastMap<Key, Option<usize>> = FastMap::default();
    let mut entity_orders_here: Vec<usize> = Vec::new();
    // Folded title → id; and the same for titles as written.
    let mut title_ids: FastMap<String, u32> = FastMap::default();
    let mut title_ids_raw: FastMap<Key, u32> = FastMap::default();
    let mut folded = String::new();
    let mut mentioned = vec![false; targets.len()];
    let mut stored_pawc: Vec<Option<f64>> = vec![None; targets.len()];
    let mut prepared = PreparedAnswer::for_aliases(aliases.iter().flatten());
    let mut hit_scratch: Vec<usize> = Vec::new();
    let mut probe_domains: Vec<u32> = Vec::new();
    let mut items: Vec<&crate::model::ListItem> = Vec::new();
    let mut list: Vec<u32> = Vec::new();
    // Indexed by interned title id: whether the title is already in `list`.
    let mut title_in_list: Vec<bool> = Vec::new();

    let mut pricer = RunPricer::new(run);
    for probe in probes {
        probe_count += 1;
        cost = add_cost(cost, pricer.cost(probe));
        let pacc = prompts.entry(probe.prompt_id.as_str()).or_default();
        pacc.probes += 1;
        match probe.status {
            ProbeStatus::Success => {}
            ProbeStatus::Error | ProbeStatus::Empty => {
                failed += 1;
                pacc.failed += 1;
                continue;
            }
            ProbeStatus::Cancelled => {
                counts.cancelled_count += 1;
                continue;
            }
        }
        success += 1;
        pacc.success += 1;

        // Mentions: the brand's, and which targets are named (once per probe).
        mentioned.iter_mut().for_each(|m| *m = false);
        let mut brand_mentioned = false;
        for m in &probe.mentions {
            let Some(&i) = target_index.get(&Key(m.target_id.as_str())) else {
                continue;
            };
            if mentioned[i] {
                continue;
            }
            mentioned[i] = true;
            stored_pawc[i] = m.position_adjusted_word_count.filter(|v| (0.0..=1.0).contains(v));
            sov[i] += 1;
            if Some(i) == brand_index {
                brand_mentioned = true;
                counts.mention_count += 1;
                pacc.mention += 1;
                order_sum += u64::from(m.order);
                pacc.order_sum += u64::from(m.order);
                if m.order == 1 {
                    counts.first_mention_count += 1;
                    pacc.first += 1;
                }
                if let Some(pos) = m.list_position {
                    counts.list_position_count += 1;
                    list_pos_sum += u64::from(pos);
                }
            }
        }
        let competitor_mentioned = targets.iter().zip(&mentioned).any(|(t, &m)| m && t.kind == TargetKind::Competitor);

        // Position-adjusted word count, only for the targets the probe names: the score the
        // analysis stored in the mention, else (exports from before it was stored, or a value
        // outside [0, 1]) computed here, scanning the answer at most once.
        let mut scanned = false;
        for (i, &m) in mentioned.iter().enumerate() {
            if !m {
                continue;
            }
            pawc_sum[i] += match stored_pawc[i] {
                Some(score) => score,
                None => {
                    if !scanned {
                        prepared.reset(&probe.answer);
                        scanned = true;
                    }
                    prepared.score_with(&aliases[i], &mut hit_scratch)
                }
            };
        }

        // Sources.
        probe_domains.clear();
        let mut has_owned = false;
        for source in &probe.sources {
            let domain = source.domain.as_str();
            let id = domain_ids.id(domain);
            probe_domains.push(id);
            if id as usize == domains.len() {
                domains.push(DomainAcc {
                    domain,
                    probes: 0,
                    occurrences: 0,
                    rank_sum: 0,
                    best_rank: None,
                    attributions: Vec::new(),
                });
                brand_domains.push(false);
                competitor_domains.push(0);
            }
            let acc = &mut domains[id as usize];
            let (occ, rank_sum, best) = if source.occurrences.is_empty() {
                (1u32, u64::from(source.best_rank), source.best_rank)
            } else {
                (
                    source.occurrences.len() as u32,
                    source.occurrences.iter().map(|o| u64::from(o.rank)).sum(),
                    source.occurrences.iter().map(|o| o.rank).min().unwrap_or(source.best_rank),
                )
            };
            acc.occurrences += occ;
            acc.rank_sum += rank_sum;
            acc.best_rank = Some(acc.best_rank.map_or(best, |b| b.min(best)));
            counts.occurrence_count += occ;
            let key = (source.platform.as_str(), source.channel.as_str(), source.ownership);
            match acc.attributions.iter_mut().find(|a| a.2 == key.2 && short_eq(a.1, key.1) && short_eq(a.0, key.0)) {
                Some(a) => a.3 += occ,
                None => acc.attributions.push((key.0, key.1, key.2, occ)),
            }
            if source.ownership == Ownership::Owned {
                has_owned = true;
                owned_best_rank = Some(owned_best_rank.map_or(best, |b| b.min(best)));
            }
        }
        probe_domains.sort_unstable();
        probe_domains.dedup();
        for &d in &probe_domains {
            domains[d as usize].probes += 1;
        }
        if has_owned {
            counts.owned_probe_count += 1;
        }
        if brand_mentioned {
            gap.brand_probe_count += 1;
            for &d in &probe_domains {
                brand_domains[d as usize] = true;
            }
        }
        if competitor_mentioned {
            gap.competitor_probe_count += 1;
            for &d in &probe_domains {
                competitor_domains[d as usize] += 1;
            }
        }

        // Answer links.
        counts.answer_link_count += probe.answer_links.len() as u32;
        counts.answer_link_in_sources_count += probe.answer_links.iter().filter(|l| l.in_sources).count() as u32;

        // Untracked entities, once per probe, folded by case and width. An entity's
        // first-seen order is unique, so it also marks "already counted in this probe".
        entity_orders_here.clear();
        for name in &probe.other_entities {
            let order = *entity_orders_raw.entry(Key(name)).or_insert_with(|| {
                let trimmed = name.trim();
                if trimmed.is_empty() {
                    return None;
                }
                normalize_for_match_into(trimmed, &mut folded);
                Some(match entity_orders.get(folded.as_str()) {
                    Some(&order) => order,
                    None => {
                        let order = entities.len();
                        entity_orders.insert(folded.clone(), order);
                        entities.push((trimmed.to_string(), 0));
                        order
                    }
                })
            });
            if let Some(order) = order {
                if !entity_orders_here.contains(&order) {
                    entities[order].1 += 1;
                    entity_orders_here.push(order);
                }
            }
        }

        // Parsed list titles for listStability, folded and interned, by position (a stable
        // sort, skipped when the items are in order already), repeats dropped.
        if !probe.list_items.is_empty() {
            items.clear();
            items.extend(probe.list_items.iter());
            if !probe.list_items.is_sorted_by_key(|i| i.position) {
                crate::sort::sort_by_key(&mut items, |i| i.position);
            }
            list.clear();
            for item in &items {
                let id = *title_ids_raw.entry(Key(&item.title)).or_insert_with(|| {
                    normalize_for_match_into(item.title.trim(), &mut folded);
                    match title_ids.get(folded.as_str()) {
                        Some(&id) => id,
                        None => {
                            let id = title_ids.len() as u32;
                            title_ids.insert(folded.clone(), id);
                            title_in_list.push(false);
                            id
                        }
                    }
                });
                if !title_in_list[id as usize] {
                    title_in_list[id as usize] = true;
                    list.push(id);
                }
            }
            for &id in &list {
                title_in_list[id as usize] = false;
            }
            pacc.lists.push(&list);
        }
        pacc.domain_sets.push(&probe_domains);
    }

    // Prompts: snapshot order, then prompts only the probes know, by id.
    let mut prompt_order: Vec<(&str, Option<&crate::model::Prompt>)> = Vec::new();
    let mut listed: FastSet<&str> = FastSet::default();
    for p in &run.prompt_snapshot {
        if listed.insert(p.id.as_str()) {
            prompt_order.push((p.id.as_str(), Some(p)));
        }
    }
    let mut extra: Vec<&str> = prompts.keys().copied().filter(|id| !listed.contains(id)).collect();
    crate::sort::sort(&mut extra);
    prompt_order.extend(extra.into_iter().map(|id| (id, None)));

    let mut stability_scores = Vec::new();
    let mut list_scores = Vec::new();
    let empty_acc = PromptAcc::default();
    let mut jaccard_scratch = JaccardScratch::default();
    let mut rbo_scratch = RboScratch::default();
    let prompt_metrics: Vec<PromptMetrics> = prompt_order
        .iter()
        .map(|(id, snapshot)| {
            let acc = prompts.get(id).unwrap_or(&empty_acc);
            let stability = mean_pairwise_jaccard_ids(&acc.domain_sets.slices(), &mut jaccard_scratch);
            if let Some(s) = stability {
                stability_scores.push(s);
            }
            let list_stability = mean_pairwise_rbo_ids(&acc.lists.slices(), RBO_P, &mut rbo_scratch);
            if let Some(s) = list_stability {
                list_scores.push(s);
            }
            PromptMetrics {
                prompt_id: id.to_string(),
                success_count: acc.success,
                mention_rate: ratio(acc.mention, acc.success),
                first_mention_rate: ratio(acc.first, acc.success),
                avg_order: (acc.mention > 0).then(|| acc.order_sum as f64 / f64::from(acc.mention)),
                text: snapshot.map(|p| p.text.clone()).unwrap_or_default(),
                tags: snapshot.map(|p| p.tags.clone()).unwrap_or_default(),
                probe_count: acc.probes,
                failed_count: acc.failed,
                mention_count: acc.mention,
                first_mention_count: acc.first,
                mention_rate_ci: wilson_interval(acc.mention, acc.success),
                source_stability: stability,
                list_stability,
            }
        })
        .collect();
    counts.stability_prompt_count = stability_scores.len() as u32;
    counts.list_stability_prompt_count = list_scores.len() as u32;

    // Domains.
    let mut domain_metrics: Vec<DomainMetrics> = domains
        .iter()
        .map(|acc| {
            let domain = acc.domain;
            let mut best = &acc.attributions[0];
            for a in &acc.attributions[1..] {
                if a.3 > best.3 {
                    best = a;
                }
            }
            DomainMetrics {
                domain: domain.to_string(),
                platform: best.0.to_string(),
                channel: best.1.to_string(),
                ownership: best.2,
                probe_count: acc.probes,
                occurrence_rate: ratio(acc.probes, success),
                occurrences: acc.occurrences,
                occurrence_share: ratio(acc.occurrences, counts.occurrence_count),
                avg_rank: (acc.occurrences > 0).then(|| acc.rank_sum as f64 / f64::from(acc.occurrences)),
                best_rank: acc.best_rank,
                occurrence_rate_ci: wilson_interval(acc.probes, success),
            }
        })
        .collect();
    crate::sort::sort_by(&mut domain_metrics, |a, b| {
        b.occurrences.cmp(&a.occurrences).then_with(|| a.domain.cmp(&b.domain))
    });

    // New and lost domains against the previous run's successful probes.
    let mut new_domains = Vec::new();
    let mut lost_domains = Vec::new();
    if let Some((prev_run, prev_probes)) = previous {
        let prev = match known {
            Some(known) if known.run_id == prev_run.id => known,
            _ => RunDomains::collect(&prev_run.id, prev_probes),
        };
        counts.previous_success_count = prev.success;
        if success > 0 && counts.previous_success_count > 0 {
            new_domains = domains
                .iter()
                .filter(|acc| !prev.domains.contains_key(&Key(acc.domain)))
                .map(|acc| acc.domain.to_string())
                .collect();
            lost_domains =
                prev.domains.keys().filter(|d| !domain_ids.ids.contains_key(*d)).map(|d| d.0.to_string()).collect();
            crate::sort::sort(&mut new_domains);
            crate::sort::sort(&mut lost_domains);
        }
    }

    // Outreach gap.
    let mut gap_domains: Vec<GapDomain> = competitor_domains
        .iter()
        .enumerate()
        .filter(|&(d, &n)| n > 0 && !brand_domains[d])
        .map(|(d, &n)| GapDomain { domain: domains[d].domain.to_string(), probe_count: n })
        .collect();
    crate::sort::sort_by(&mut gap_domains, |a, b| {
        b.probe_count.cmp(&a.probe_count).then_with(|| a.domain.cmp(&b.domain))
    });
    gap.domains = gap_domains;

    // Untracked entities.
    let mut untracked: Vec<(String, u32, usize)> =
        entities.into_iter().enumerate().map(|(order, (name, count))| (name, count, order)).collect();
    crate::sort::sort_by(&mut untracked, |a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)).then_with(|| a.2.cmp(&b.2)));

    counts.share_of_voice_total = sov.iter().sum();
    let ids = |i: usize| targets[i].id.clone();
    let mention_count = counts.mention_count;
    let mut metrics = RunMetrics {
        run_id: run.id.clone(),
        previous_run_id: run.previous_run_id.clone(),
        probe_count,
        success_count: success,
        failed_count: failed,
        mention_rate: ratio(mention_count, success),
        first_mention_rate: ratio(counts.first_mention_count, success),
        avg_order: (mention_count > 0).then(|| order_sum as f64 / f64::from(mention_count)),
        avg_list_position: (counts.list_position_count > 0)
            .then(|| list_pos_sum as f64 / f64::from(counts.list_position_count)),
        share_of_voice: TargetMap(
            (0..targets.len()).map(|i| (ids(i), ratio(sov[i], counts.share_of_voice_total))).collect(),
        ),
        owned_visibility: ratio(counts.owned_probe_count, success),
        owned_best_rank,
        unique_domains: domains.len() as u32,
        source_stability: mean(&stability_scores),
        answer_link_overlap: ratio(counts.answer_link_in_sources_count, counts.answer_link_count),
        new_domains,
        lost_domains,
        domains: domain_metrics,
        prompts: prompt_metrics,
        estimated_cost_usd: cost,
        insights: Vec::new(),
        brand_id: brand_id.map(str::to_string),
        mention_rate_ci: wilson_interval(mention_count, success),
        first_mention_rate_ci: wilson_interval(counts.first_mention_count, success),
        owned_visibility_ci: wilson_interval(counts.owned_probe_count, success),
        share_of_voice_counts: TargetMap((0..targets.len()).map(|i| (ids(i), sov[i])).collect()),
        list_stability: mean(&list_scores),
        position_adjusted_word_count: TargetMap(
            (0..targets.len()).map(|i| (ids(i), (success > 0).then(|| pawc_sum[i] / f64::from(success)))).collect(),
        ),
        outreach_gap: gap,
        untracked_entities: untracked.into_iter().map(|(name, count, _)| UntrackedEntity { name, count }).collect(),
        counts,
    };
    metrics.insights = build_insights(&metrics);
    let own_domains = RunDomains { run_id: &run.id, success, domains: domain_ids.ids };
    (metrics, own_domains)
}
