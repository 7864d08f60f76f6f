//! [`PromptsAcc`]: the run's probe counts and the per-prompt and per-tag figures — success
//! and failure counts, the brand's mention rate, first-mention rate and average order within
//! each prompt and each prompt tag, and source stability (mean pairwise Jaccard of each
//! prompt's domain sets).

use super::{Ctx, IdLists};
use crate::metrics::stats::{mean, mean_pairwise_jaccard_ids, ratio, wilson_interval, JaccardScratch};
use crate::metrics::{PromptMetrics, TagMetrics};
use crate::model::{Probe, ProbeStatus, Prompt};

/// One prompt's counters.
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
}

/// Run totals and per-prompt counters (by [`Ctx::prompts`] index).
#[derive(Default)]
pub(crate) struct PromptsAcc {
    /// Probe records of the run.
    pub(crate) probe_count: u32,
    /// Probes with status `success`.
    pub(crate) success_count: u32,
    /// Probes with status `error` or `empty`.
    pub(crate) failed_count: u32,
    /// Probes with status `cancelled`.
    pub(crate) cancelled_count: u32,
    /// Successful probes with `truncated: true` (`truncatedCount`).
    pub(crate) truncated_count: u32,
    prompts: Vec<PromptAcc>,
}

/// The prompt figures of a run.
pub(crate) struct PromptFigures {
    pub(crate) prompts: Vec<PromptMetrics>,
    pub(crate) tags: Vec<TagMetrics>,
    pub(crate) source_stability: Option<f64>,
    pub(crate) stability_prompt_count: u32,
}

/// The order prompts are reported in: the snapshot's, then prompts only the probes know, by id.
pub(crate) fn prompt_order(ctx: &Ctx<'_>) -> Vec<usize> {
    let mut order: Vec<usize> = (0..ctx.prompts.len()).collect();
    let names = &ctx.prompts.names;
    crate::sort::sort_by(&mut order[ctx.snapshot_prompts..], |&a, &b| names[a].cmp(names[b]));
    order
}

impl PromptsAcc {
    /// Adds any probe of the run.
    pub(crate) fn add(&mut self, probe: &Probe, ctx: &Ctx<'_>) {
        self.probe_count += 1;
        if self.prompts.len() <= ctx.prompt {
            self.prompts.resize_with(ctx.prompt + 1, PromptAcc::default);
        }
        let acc = &mut self.prompts[ctx.prompt];
        acc.probes += 1;
        match probe.status {
            ProbeStatus::Success => {}
            ProbeStatus::Error | ProbeStatus::Empty => {
                self.failed_count += 1;
                acc.failed += 1;
                return;
            }
            ProbeStatus::Cancelled => {
                self.cancelled_count += 1;
                return;
            }
        }
        self.success_count += 1;
        self.truncated_count += u32::from(probe.truncated);
        acc.success += 1;
        if let Some(m) = ctx.brand_mention() {
            acc.mention += 1;
            acc.order_sum += u64::from(m.order);
            acc.first += u32::from(m.order == 1);
        }
        acc.domain_sets.push(&ctx.probe_domains);
    }

    /// The figures, prompts in `order` (see [`prompt_order`]), with each prompt's list
    /// stability from `list_stability` (by prompt index).
    pub(crate) fn finish(self, ctx: &Ctx<'_>, order: &[usize], list_stability: &[Option<f64>]) -> PromptFigures {
        let empty = PromptAcc::default();
        let acc_of = |p: usize| self.prompts.get(p).unwrap_or(&empty);
        // The snapshot entry of each prompt (the first of an id), `None` for the others.
        let mut snapshot: Vec<Option<&Prompt>> = vec![None; ctx.prompts.len()];
        for p in &ctx.run.prompt_snapshot {
            let i = ctx.prompts.ids[&crate::metrics::Key(p.id.as_str())] as usize;
            snapshot[i].get_or_insert(p);
        }
        let mut scratch = JaccardScratch::default();
        let mut stability_scores = Vec::new();
        let prompts: Vec<PromptMetrics> = order
            .iter()
            .map(|&p| {
                let acc = acc_of(p);
                let stability = mean_pairwise_jaccard_ids(&acc.domain_sets.slices(), &mut scratch);
                stability_scores.extend(stability);
                PromptMetrics {
                    prompt_id: ctx.prompts.names[p].to_string(),
                    success_count: acc.success,
                    mention_rate: ratio(acc.mention, acc.success),
                    first_mention_rate: ratio(acc.first, acc.success),
                    avg_order: (acc.mention > 0).then(|| acc.order_sum as f64 / f64::from(acc.mention)),
                    text: snapshot[p].map(|s| s.text.clone()).unwrap_or_default(),
                    tags: snapshot[p].map(|s| s.tags.clone()).unwrap_or_default(),
                    probe_count: acc.probes,
                    failed_count: acc.failed,
                    mention_count: acc.mention,
                    first_mention_count: acc.first,
                    mention_rate_ci: wilson_interval(acc.mention, acc.success),
                    source_stability: stability,
                    list_stability: list_stability.get(p).copied().flatten(),
                }
            })
            .collect();
        let tags = tag_figures(&snapshot, |p| acc_of(p));
        PromptFigures {
            prompts,
            tags,
            source_stability: mean(&stability_scores),
            stability_prompt_count: stability_scores.len() as u32,
        }
    }
}

/// One row per distinct tag of the snapshot's prompts (first appearance first), summed over
/// the prompts carrying it (each prompt once, however often it lists the tag).
fn tag_figures<'p>(snapshot: &[Option<&Prompt>], acc_of: impl Fn(usize) -> &'p PromptAcc) -> Vec<TagMetrics> {
    let mut tags: Vec<(&str, [u32; 6], u64)> = Vec::new();
    for (p, prompt) in snapshot.iter().enumerate() {
        let Some(prompt) = prompt else { continue };
        let acc = acc_of(p);
        for (k, tag) in prompt.tags.iter().enumerate() {
            if prompt.tags[..k].contains(tag) {
                continue;
            }
            let row = match tags.iter().position(|(t, _, _)| t == tag) {
                Some(i) => &mut tags[i],
                None => {
                    tags.push((tag, [0; 6], 0));
                    tags.last_mut().expect("just pushed")
                }
            };
            let [prompts, probes, failed, success, mention, first] = &mut row.1;
            *prompts += 1;
            *probes += acc.probes;
            *failed += acc.failed;
            *success += acc.success;
            *mention += acc.mention;
            *first += acc.first;
            row.2 += acc.order_sum;
        }
    }
    tags.into_iter()
        .map(|(tag, [prompts, probes, failed, success, mention, first], order_sum)| TagMetrics {
            tag: tag.to_string(),
            success_count: success,
            mention_rate: ratio(mention, success),
            first_mention_rate: ratio(first, success),
            avg_order: (mention > 0).then(|| order_sum as f64 / f64::from(mention)),
            prompt_count: prompts,
            probe_count: probes,
            failed_count: failed,
            mention_count: mention,
            first_mention_count: first,
            mention_rate_ci: wilson_interval(mention, success),
        })
        .collect()
}
