//! `lostPrompts`: the prompts the brand loses.
//!
//! A prompt of the run's `promptSnapshot` is lost when it has successful probes and some
//! competitor's mention rate on it (its successful probes mentioning the competitor ÷ its
//! successful probes) is at least 1/3 and greater than the brand's. Both comparisons are
//! made on counts (3·k ≥ n, k > brand's k), so no rounding decides a loss.

use super::{CompetitorRate, LostPrompt, Prepared};
use crate::metrics::wilson_interval;
use crate::model::{Mention, Probe};

/// One target's tally over a prompt's successful probes.
#[derive(Default, Clone, Copy)]
struct Tally {
    /// Probes mentioning it.
    probes: u32,
    /// The sum of its list positions, and how many of its mentions have one.
    position_sum: u64,
    positioned: u32,
}

impl Tally {
    fn add(&mut self, mention: Option<&Mention>) {
        if let Some(m) = mention {
            self.probes += 1;
            if let Some(p) = m.list_position {
                self.position_sum += u64::from(p);
                self.positioned += 1;
            }
        }
    }

    fn avg_position(&self) -> Option<f64> {
        (self.positioned > 0).then(|| self.position_sum as f64 / f64::from(self.positioned))
    }
}

/// The probe's first Mention of `target` (repeated Mentions of one target count once).
pub(crate) fn mention<'p>(probe: &'p Probe, target: &str) -> Option<&'p Mention> {
    probe.mentions.iter().find(|m| m.target_id == target)
}

/// Whether the probe names some competitor while the brand is absent or named after it.
pub(crate) fn behind(probe: &Probe, brand: Option<&str>, competitors: &[&str]) -> bool {
    let brand_order = brand.and_then(|b| mention(probe, b)).map(|m| m.order);
    competitors.iter().filter_map(|c| mention(probe, c)).any(|c| brand_order.is_none_or(|b| b > c.order))
}

/// Whether a competitor mentioned `k` times in `n` probes beats a brand mentioned `brand`
/// times: k/n ≥ 1/3 and k > brand.
pub(crate) fn beats(k: u32, brand: u32, n: u32) -> bool {
    n > 0 && 3 * u64::from(k) >= u64::from(n) && k > brand
}

/// The lost prompts of a prepared run, by `stake` descending, then `promptId`.
pub(crate) fn lost_prompts(run: &Prepared<'_>) -> Vec<LostPrompt> {
    let mut out = Vec::new();
    let mut seen: Vec<&str> = Vec::new();
    for prompt in &run.run.prompt_snapshot {
        if seen.contains(&prompt.id.as_str()) {
            continue;
        }
        seen.push(&prompt.id);
        let probes: Vec<&Probe> = run.probes.iter().copied().filter(|p| p.prompt_id == prompt.id).collect();
        if let Some(lost) = lost_prompt(run, &prompt.id, &probes) {
            out.push(lost);
        }
    }
    crate::sort::sort_by(&mut out, |a, b| b.stake.cmp(&a.stake).then_with(|| a.prompt_id.cmp(&b.prompt_id)));
    out
}

/// The prompt `prompt_id` with its successful `probes`, when it is lost.
fn lost_prompt(run: &Prepared<'_>, prompt_id: &str, probes: &[&Probe]) -> Option<LostPrompt> {
    let n = probes.len() as u32;
    let mut brand = Tally::default();
    let mut rivals: Vec<Tally> = vec![Tally::default(); run.competitors.len()];
    let mut behind_ids = Vec::new();
    for p in probes {
        brand.add(run.brand.and_then(|b| mention(p, b)));
        for (tally, c) in rivals.iter_mut().zip(&run.competitors) {
            tally.add(mention(p, c));
        }
        if behind(p, run.brand, &run.competitors) {
            behind_ids.push(p.id.clone());
        }
    }
    if !rivals.iter().any(|t| beats(t.probes, brand.probes, n)) {
        return None;
    }
    let rate = |k: u32| f64::from(k) / f64::from(n);
    let mut competitors: Vec<CompetitorRate> = rivals
        .iter()
        .zip(&run.competitors)
        .filter(|(t, _)| t.probes > brand.probes)
        .map(|(t, c)| CompetitorRate {
            target_id: c.to_string(),
            mention_rate: rate(t.probes),
            avg_list_position: t.avg_position(),
            mention_count: t.probes,
        })
        .collect();
    crate::sort::sort_by(&mut competitors, |a, b| {
        b.mention_count.cmp(&a.mention_count).then_with(|| a.target_id.cmp(&b.target_id))
    });
    let top = competitors.first().map_or(0, |c| c.mention_count);
    let [low, high] = wilson_interval(brand.probes, n)?;
    Some(LostPrompt {
        prompt_id: prompt_id.to_string(),
        success_count: n,
        brand_mention_rate: rate(brand.probes),
        brand_low: low,
        brand_high: high,
        competitors,
        behind_share: rate(behind_ids.len() as u32),
        stake: top - brand.probes,
        brand_mention_count: brand.probes,
        brand_avg_list_position: brand.avg_position(),
        status: None,
        probe_ids: behind_ids,
    })
}

#[cfg(test)]
mod tests {
    use super::beats;

    #[test]
    fn a_loss_needs_a_third_and_more_than_the_brand() {
        // (competitor, brand, n, lost)
        let table = [
            (1, 0, 3, true),
            (1, 0, 4, false),
            (2, 1, 6, true),
            (2, 2, 6, false),
            (3, 2, 9, true),
            (3, 2, 10, false),
            (1, 0, 1, true),
            (0, 0, 0, false),
            (0, 0, 3, false),
        ];
        for (k, b, n, lost) in table {
            assert_eq!(beats(k, b, n), lost, "{k} vs {b} of {n}");
        }
    }
}
