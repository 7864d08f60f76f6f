//! [`MentionsAcc`]: the figures about Mentions of a run's successful probes — the brand's
//! mention rate, first-mention rate, average order and list position, share of voice and
//! the position-adjusted word count of every target.

use super::Ctx;
use crate::analysis::alias::PreparedAlias;
use crate::analysis::pawc::PreparedAnswer;
use crate::metrics::stats::ratio;
use crate::metrics::TargetMap;
use crate::model::Probe;

/// The sums behind the mention figures.
pub(crate) struct MentionsAcc<'a> {
    /// Successful probes with a brand Mention.
    pub(crate) mention_count: u32,
    /// Successful probes whose brand Mention has order 1.
    pub(crate) first_mention_count: u32,
    order_sum: u64,
    /// Brand Mentions with a list position.
    pub(crate) list_position_count: u32,
    list_position_sum: u64,
    /// Per target: successful probes mentioning it.
    share_of_voice: Vec<u32>,
    /// Per target: the sum of its per-probe position-adjusted word counts.
    pawc_sum: Vec<f64>,
    /// Per target: its aliases, for the answers whose mentions store no score.
    aliases: Vec<Vec<PreparedAlias>>,
    prepared: PreparedAnswer<'a>,
    scratch: Vec<usize>,
    success: u32,
}

/// The mention figures of a run.
pub(crate) struct MentionFigures {
    pub(crate) mention_count: u32,
    pub(crate) first_mention_count: u32,
    pub(crate) list_position_count: u32,
    pub(crate) mention_rate: Option<f64>,
    pub(crate) first_mention_rate: Option<f64>,
    pub(crate) avg_order: Option<f64>,
    pub(crate) avg_list_position: Option<f64>,
    pub(crate) share_of_voice_total: u32,
    pub(crate) share_of_voice: TargetMap<Option<f64>>,
    pub(crate) share_of_voice_counts: TargetMap<u32>,
    pub(crate) position_adjusted_word_count: TargetMap<Option<f64>>,
}

impl<'a> MentionsAcc<'a> {
    pub(crate) fn new(ctx: &Ctx<'a>) -> Self {
        let aliases: Vec<Vec<PreparedAlias>> = ctx.targets.iter().map(|t| PreparedAlias::for_target(t)).collect();
        let prepared = PreparedAnswer::for_aliases(aliases.iter().flatten());
        let n = ctx.targets.len();
        MentionsAcc {
            mention_count: 0,
            first_mention_count: 0,
            order_sum: 0,
            list_position_count: 0,
            list_position_sum: 0,
            share_of_voice: vec![0; n],
            pawc_sum: vec![0.0; n],
            aliases,
            prepared,
            scratch: Vec::new(),
            success: 0,
        }
    }

    /// Adds a successful probe.
    pub(crate) fn add(&mut self, probe: &'a Probe, ctx: &Ctx<'a>) {
        self.success += 1;
        if let Some(m) = ctx.brand_mention() {
            self.mention_count += 1;
            self.order_sum += u64::from(m.order);
            if m.order == 1 {
                self.first_mention_count += 1;
            }
            if let Some(pos) = m.list_position {
                self.list_position_count += 1;
                self.list_position_sum += u64::from(pos);
            }
        }
        // The position-adjusted word count, only for the targets the probe names: the score
        // the analysis stored in the mention, else (exports from before it was stored, or a
        // value outside [0, 1]) computed here, scanning the answer at most once, without its
        // citation markers as the analysis reads it (a `[ref_1]` is not a word).
        let mut scanned = false;
        for (i, m) in ctx.mention_of.iter().enumerate() {
            let Some(m) = m else { continue };
            self.share_of_voice[i] += 1;
            self.pawc_sum[i] += match m.position_adjusted_word_count.filter(|v| (0.0..=1.0).contains(v)) {
                Some(score) => score,
                None => {
                    if !scanned {
                        match crate::analysis::markers::strip_citation_markers(&probe.answer) {
                            std::borrow::Cow::Borrowed(_) => self.prepared.reset(&probe.answer),
                            std::borrow::Cow::Owned(text) => {
                                self.prepared.reset_normalised(&crate::text::normalize_for_match(&text))
                            }
                        }
                        scanned = true;
                    }
                    self.prepared.score_with(&self.aliases[i], &mut self.scratch)
                }
            };
        }
    }

    pub(crate) fn finish(self, ctx: &Ctx<'a>) -> MentionFigures {
        let n = ctx.targets.len();
        let total: u32 = self.share_of_voice.iter().sum();
        let success = self.success;
        MentionFigures {
            mention_count: self.mention_count,
            first_mention_count: self.first_mention_count,
            list_position_count: self.list_position_count,
            mention_rate: ratio(self.mention_count, success),
            first_mention_rate: ratio(self.first_mention_count, success),
            avg_order: (self.mention_count > 0).then(|| self.order_sum as f64 / f64::from(self.mention_count)),
            avg_list_position: (self.list_position_count > 0)
                .then(|| self.list_position_sum as f64 / f64::from(self.list_position_count)),
            share_of_voice_total: total,
            share_of_voice: TargetMap(
                (0..n).map(|i| (ctx.target_id(i), ratio(self.share_of_voice[i], total))).collect(),
            ),
            share_of_voice_counts: TargetMap((0..n).map(|i| (ctx.target_id(i), self.share_of_voice[i])).collect()),
            position_adjusted_word_count: TargetMap(
                (0..n)
                    .map(|i| (ctx.target_id(i), (success > 0).then(|| self.pawc_sum[i] / f64::from(success))))
                    .collect(),
            ),
        }
    }
}
