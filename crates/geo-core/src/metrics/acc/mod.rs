//! The accumulators behind [`compute_run_metrics`](super::compute_run_metrics): one per
//! concern, each fed the run's probes one at a time with `add(&Probe, &Ctx)` and turned into
//! its figures by `finish`.
//!
//! | accumulator | figures |
//! |---|---|
//! | [`prompts::PromptsAcc`] | probe counts, `prompts`, `tags`, `sourceStability` |
//! | [`mentions::MentionsAcc`] | mention rates, order, list position, share of voice, PAWC |
//! | [`sources::SourcesAcc`] | `domains`, `channels`, owned visibility, new/lost domains, outreach gap, `searchedRate`, citations |
//! | [`lists::ListsAcc`] | `listStability` (overall and per prompt) |
//! | [`entities::EntitiesAcc`] | untracked entities |
//! | [`links::LinksAcc`] | `answerLinkOverlap` |
//! | [`claims::ClaimsAcc`] | `facts`, `riskFlags` |
//! | [`CostAcc`] | `estimatedCostUsd` |
//!
//! [`Ctx`] is what they share: the run's targets (one per id, brand found once), and the
//! facts of the current probe that more than one concern needs (its prompt, the first
//! mention of each target, its interned domains), worked out once per probe by
//! [`Ctx::observe`] before any accumulator sees it. Domains are interned per run as dense
//! `u32` ids (first seen first), so per-probe domain sets, Jaccard, the outreach gap and
//! the domain table compare integers, not strings.
//!
//! Only [`PromptsAcc`](prompts::PromptsAcc) and [`CostAcc`] see every probe; the others see
//! the successful ones only (every figure about mentions, sources and links is over
//! successful probes, seed §6.1). The tests compare the composed result with a naive oracle
//! field by field (`tests/it/metrics_oracle.rs`).

pub(crate) mod claims;
pub(crate) mod entities;
pub(crate) mod links;
pub(crate) mod lists;
pub(crate) mod mentions;
pub(crate) mod prompts;
pub(crate) mod sources;

use super::cost::{add_cost, RunPricer};
use super::{FastMap, Key};
use crate::model::{Mention, Probe, ProbeStatus, Run, Target, TargetKind};
use rustc_hash::FxHashSet;

/// Interns strings of one run as dense `u32` ids (first seen first).
#[derive(Default)]
pub(crate) struct Interner<'a> {
    pub(crate) ids: FastMap<Key<'a>, u32>,
    /// The strings by id.
    pub(crate) names: Vec<&'a str>,
}

impl<'a> Interner<'a> {
    /// The id of `s`, a new one when unseen.
    pub(crate) fn id(&mut self, s: &'a str) -> u32 {
        let next = self.names.len() as u32;
        let id = *self.ids.entry(Key(s)).or_insert(next);
        if id == next {
            self.names.push(s);
        }
        id
    }

    /// How many distinct strings were interned.
    pub(crate) fn len(&self) -> usize {
        self.names.len()
    }
}

/// Lists of interned ids stored end to end: one buffer per prompt rather than one per probe.
#[derive(Default)]
pub(crate) struct IdLists {
    flat: Vec<u32>,
    /// The end of each list in `flat`.
    ends: Vec<usize>,
}

impl IdLists {
    pub(crate) fn push(&mut self, ids: &[u32]) {
        self.flat.extend_from_slice(ids);
        self.ends.push(self.flat.len());
    }

    /// Every list, in the order pushed.
    pub(crate) fn slices(&self) -> Vec<&[u32]> {
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

/// What the accumulators share: the run, its targets, and the facts of the probe being added.
pub(crate) struct Ctx<'a> {
    /// The run.
    pub(crate) run: &'a Run,
    /// Targets in snapshot order, one per id (the first target of an id wins).
    pub(crate) targets: Vec<&'a Target>,
    /// Index of the brand (the first target of kind brand) in `targets`.
    pub(crate) brand: Option<usize>,
    target_index: FastMap<Key<'a>, usize>,
    /// Prompt ids by dense index: the snapshot's (deduplicated) first, in order, then
    /// prompts only the probes know, as first seen.
    pub(crate) prompts: Interner<'a>,
    /// How many prompts the snapshot lists (the first indices of `prompts`).
    pub(crate) snapshot_prompts: usize,
    /// Domains of the successful probes' sources.
    pub(crate) domains: Interner<'a>,

    // ---- the current probe ----
    /// Its prompt's index in `prompts`.
    pub(crate) prompt: usize,
    /// Per target: the probe's first mention of it (successful probes only).
    pub(crate) mention_of: Vec<Option<&'a Mention>>,
    /// Whether it mentions at least one competitor (successful probes only).
    pub(crate) competitor_mentioned: bool,
    /// The interned domain of each of its sources, in order (successful probes only).
    pub(crate) source_domains: Vec<u32>,
    /// Its distinct domains, sorted (successful probes only).
    pub(crate) probe_domains: Vec<u32>,
}

impl<'a> Ctx<'a> {
    /// The context of `run`, before its first probe.
    pub(crate) fn new(run: &'a Run) -> Self {
        // The first target of each id, through a set: linear in the snapshot's size.
        let mut seen: FxHashSet<&str> = FxHashSet::default();
        let targets: Vec<&Target> = run.alias_snapshot.iter().filter(|t| seen.insert(t.id.as_str())).collect();
        let target_index = targets.iter().enumerate().map(|(i, t)| (Key(t.id.as_str()), i)).collect();
        let brand = targets.iter().position(|t| t.kind == TargetKind::Brand);
        let mut prompts = Interner::default();
        for p in &run.prompt_snapshot {
            prompts.id(&p.id);
        }
        let snapshot_prompts = prompts.len();
        Ctx {
            run,
            mention_of: vec![None; targets.len()],
            targets,
            brand,
            target_index,
            prompts,
            snapshot_prompts,
            domains: Interner::default(),
            prompt: 0,
            competitor_mentioned: false,
            source_domains: Vec::new(),
            probe_domains: Vec::new(),
        }
    }

    /// Works out the facts of `probe` that several accumulators need.
    pub(crate) fn observe(&mut self, probe: &'a Probe) {
        self.prompt = self.prompts.id(&probe.prompt_id) as usize;
        if probe.status != ProbeStatus::Success {
            return;
        }
        self.mention_of.iter_mut().for_each(|m| *m = None);
        for m in &probe.mentions {
            if let Some(&i) = self.target_index.get(&Key(m.target_id.as_str())) {
                self.mention_of[i].get_or_insert(m);
            }
        }
        self.competitor_mentioned =
            self.targets.iter().zip(&self.mention_of).any(|(t, m)| m.is_some() && t.kind == TargetKind::Competitor);
        self.source_domains.clear();
        for source in &probe.sources {
            self.source_domains.push(self.domains.id(&source.domain));
        }
        self.probe_domains.clear();
        self.probe_domains.extend_from_slice(&self.source_domains);
        self.probe_domains.sort_unstable();
        self.probe_domains.dedup();
    }

    /// The brand's first mention in the current (successful) probe.
    pub(crate) fn brand_mention(&self) -> Option<&'a Mention> {
        self.brand.and_then(|b| self.mention_of[b])
    }

    /// The index in [`Ctx::targets`] of the target with this id.
    pub(crate) fn target_position(&self, id: &str) -> Option<usize> {
        self.target_index.get(&Key(id)).copied()
    }

    /// The id of target `i`.
    pub(crate) fn target_id(&self, i: usize) -> String {
        self.targets[i].id.clone()
    }
}

/// `estimatedCostUsd`: every probe record of the run, failed ones too (seed §6.2); `None`
/// once a probe's model has no price (engines.md: an unknown model gives no cost).
pub(crate) struct CostAcc<'a> {
    pricer: RunPricer<'a>,
    total: Option<f64>,
}

impl<'a> CostAcc<'a> {
    pub(crate) fn new(run: &'a Run) -> Self {
        CostAcc { pricer: RunPricer::new(run), total: Some(0.0) }
    }

    pub(crate) fn add(&mut self, probe: &'a Probe, _ctx: &Ctx<'a>) {
        self.total = add_cost(self.total, self.pricer.cost(probe));
    }

    pub(crate) fn finish(self) -> Option<f64> {
        self.total
    }
}
