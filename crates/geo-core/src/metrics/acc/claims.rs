//! `facts` and `riskFlags` (data-model.md, "What the answers say"): per fact of the run's
//! `factSnapshot`, how the successful probes with a claim on it came out; per target of the
//! `aliasSnapshot`, how many of the successful probes mentioning it flag a sentence about it.

use super::Ctx;
use crate::metrics::stats::wilson_interval;
use crate::metrics::{FactMetrics, RiskFlagMetrics};
use crate::model::{Probe, RiskKind, Verdict};
use rustc_hash::FxHashMap;

/// One fact's counts.
#[derive(Default, Clone, Copy)]
struct FactCounts {
    with_claim: u32,
    consistent: u32,
    contradicts: u32,
    unverified: u32,
}

/// One target's counts over the successful probes mentioning it.
#[derive(Default, Clone, Copy)]
struct FlagCounts {
    mentioning: u32,
    flagged: u32,
    by_kind: [u32; 3],
}

/// The accumulator of both tables.
pub(crate) struct ClaimsAcc<'a> {
    fact_index: FxHashMap<&'a str, usize>,
    facts: Vec<FactCounts>,
    /// Per fact, the current probe's outcome: 0 none, 1 unverified, 2 consistent, 3 contradicts.
    seen: Vec<u8>,
    touched: Vec<usize>,
    targets: Vec<FlagCounts>,
    /// Per target, the kinds flagged in the current probe (bits 0–2) and bit 3: any flag.
    flags: Vec<u8>,
}

fn kind_bit(kind: RiskKind) -> usize {
    match kind {
        RiskKind::Negative => 0,
        RiskKind::Caution => 1,
        RiskKind::Watch => 2,
    }
}

impl<'a> ClaimsAcc<'a> {
    pub(crate) fn new(ctx: &Ctx<'a>) -> Self {
        let facts = ctx.run.fact_snapshot.as_ref().map_or(&[][..], |s| &s.facts[..]);
        let mut fact_index = FxHashMap::default();
        for (i, f) in facts.iter().enumerate() {
            fact_index.entry(f.id.as_str()).or_insert(i);
        }
        ClaimsAcc {
            fact_index,
            facts: vec![FactCounts::default(); facts.len()],
            seen: vec![0; facts.len()],
            touched: Vec::new(),
            targets: vec![FlagCounts::default(); ctx.targets.len()],
            flags: vec![0; ctx.targets.len()],
        }
    }

    /// A successful probe.
    pub(crate) fn add(&mut self, probe: &'a Probe, ctx: &Ctx<'a>) {
        for c in &probe.claims {
            let Some(&i) = self.fact_index.get(c.fact_id.as_str()) else { continue };
            let rank = match c.verdict {
                Verdict::Unverified => 1,
                Verdict::Consistent => 2,
                Verdict::Contradicts => 3,
            };
            if self.seen[i] == 0 {
                self.touched.push(i);
            }
            self.seen[i] = self.seen[i].max(rank);
        }
        for i in self.touched.drain(..) {
            let f = &mut self.facts[i];
            f.with_claim += 1;
            match self.seen[i] {
                3 => f.contradicts += 1,
                2 => f.consistent += 1,
                _ => f.unverified += 1,
            }
            self.seen[i] = 0;
        }
        self.flags.iter_mut().for_each(|b| *b = 0);
        for flag in &probe.risk_flags {
            if let Some(t) = ctx.target_position(&flag.target_id) {
                self.flags[t] |= 1 << kind_bit(flag.kind) | 1 << 3;
            }
        }
        for (t, counts) in self.targets.iter_mut().enumerate() {
            if ctx.mention_of[t].is_none() {
                continue;
            }
            counts.mentioning += 1;
            let bits = self.flags[t];
            if bits & 1 << 3 != 0 {
                counts.flagged += 1;
            }
            for (k, n) in counts.by_kind.iter_mut().enumerate() {
                if bits & 1 << k != 0 {
                    *n += 1;
                }
            }
        }
    }

    pub(crate) fn finish(self, ctx: &Ctx<'a>) -> (Vec<FactMetrics>, Vec<RiskFlagMetrics>) {
        let facts = ctx.run.fact_snapshot.as_ref().map_or(&[][..], |s| &s.facts[..]);
        let fact_rows = facts
            .iter()
            .map(|f| {
                // A repeated id counts into its first fact's row, shown for each.
                let c = self.facts[self.fact_index[f.id.as_str()]];
                FactMetrics {
                    fact_id: f.id.clone(),
                    target_id: f.target_id.clone(),
                    label: f.label.clone(),
                    probes_with_claim: c.with_claim,
                    consistent: c.consistent,
                    contradicts: c.contradicts,
                    unverified: c.unverified,
                    contradiction_rate: (c.with_claim > 0).then(|| f64::from(c.contradicts) / f64::from(c.with_claim)),
                }
            })
            .collect();
        let flag_rows = ctx
            .targets
            .iter()
            .zip(&self.targets)
            .map(|(t, c)| {
                let ci = wilson_interval(c.flagged, c.mentioning);
                RiskFlagMetrics {
                    target_id: t.id.clone(),
                    mentioning_count: c.mentioning,
                    flagged_count: c.flagged,
                    flagged_rate: (c.mentioning > 0).then(|| f64::from(c.flagged) / f64::from(c.mentioning)),
                    flagged_low: ci.map(|[lo, _]| lo),
                    flagged_high: ci.map(|[_, hi]| hi),
                    negative: c.by_kind[0],
                    caution: c.by_kind[1],
                    watch: c.by_kind[2],
                }
            })
            .collect();
        (fact_rows, flag_rows)
    }
}
