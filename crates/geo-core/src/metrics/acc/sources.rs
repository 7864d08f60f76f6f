//! [`SourcesAcc`]: the figures about Retrieved Sources of a run's successful probes — the
//! domain table, the channel distribution, owned visibility, new and lost domains against
//! the previous run, the outreach gap, how often the assistant searched, and Cited Sources.

use super::{Ctx, Interner};
use crate::metrics::stats::{ratio, wilson_interval};
use crate::metrics::{short_eq, ChannelMetrics, DomainMetrics, FastMap, GapDomain, Key, OutreachGap};
use crate::model::{Ownership, Probe, ProbeStatus, SearchSource};

/// One domain being accumulated.
struct DomainAcc<'a> {
    probes: u32,
    occurrences: u32,
    rank_sum: u64,
    best_rank: Option<u32>,
    /// (platform, channel, ownership, occurrences), first seen first.
    attributions: Vec<(&'a str, &'a str, Ownership, u32)>,
    /// Successful probes with a cited source of this domain.
    cited_probes: u32,
    /// Whether a probe mentioning the brand retrieved it.
    with_brand: bool,
    /// Probes mentioning a competitor that retrieved it.
    with_competitor: u32,
}

/// The sums behind the source figures; domains are indexed by [`Ctx::domains`]' ids.
#[derive(Default)]
pub(crate) struct SourcesAcc<'a> {
    domains: Vec<DomainAcc<'a>>,
    success: u32,
    /// Source occurrences over successful probes.
    pub(crate) occurrence_count: u32,
    /// Successful probes with an owned source.
    pub(crate) owned_probe_count: u32,
    owned_best_rank: Option<u32>,
    brand_probe_count: u32,
    competitor_probe_count: u32,
    /// Successful probes with at least one query.
    pub(crate) searched_count: u32,
    /// Successful probes with citation data (`rawCitations` present).
    pub(crate) citation_probe_count: u32,
    /// Successful probes with a cited owned source.
    pub(crate) owned_cited_count: u32,
    /// Scratch: the domains of the current probe with a cited source.
    cited_here: Vec<u32>,
}

/// What one source adds to its domain: (occurrences, the sum of their ranks, the smallest rank);
/// a source that lists no occurrence counts once, at its `bestRank`. The warehouse's `sources`
/// rows carry the same tally, so that SQL over them gives these figures.
pub fn source_tally(source: &SearchSource) -> (u32, u64, u32) {
    if source.occurrences.is_empty() {
        (1, u64::from(source.best_rank), source.best_rank)
    } else {
        (
            source.occurrences.len() as u32,
            source.occurrences.iter().map(|o| u64::from(o.rank)).sum(),
            source.occurrences.iter().map(|o| o.rank).min().unwrap_or(source.best_rank),
        )
    }
}

/// The domains of a run's successful probes, kept so that the next run, whose previous run
/// this is, need not collect them again.
pub(crate) struct RunDomains<'a> {
    pub(crate) run_id: &'a str,
    /// Successful probes of the run.
    pub(crate) success: u32,
    /// Every domain of their sources (the values are interned ids).
    pub(crate) domains: FastMap<Key<'a>, u32>,
}

impl<'a> RunDomains<'a> {
    /// Collects the domains of the successful probes among `probes` (those of run `run_id`).
    pub(crate) fn collect(run_id: &'a str, probes: &[&'a Probe]) -> Self {
        let mut ids = Interner::default();
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

/// The source figures of a run.
pub(crate) struct SourceFigures {
    pub(crate) domains: Vec<DomainMetrics>,
    pub(crate) channels: Vec<ChannelMetrics>,
    pub(crate) unique_domains: u32,
    pub(crate) occurrence_count: u32,
    pub(crate) owned_probe_count: u32,
    pub(crate) owned_visibility: Option<f64>,
    pub(crate) owned_visibility_ci: Option<[f64; 2]>,
    pub(crate) owned_best_rank: Option<u32>,
    pub(crate) searched_count: u32,
    pub(crate) searched_rate: Option<f64>,
    pub(crate) citation_probe_count: u32,
    pub(crate) owned_cited_count: u32,
    pub(crate) owned_citation_rate: Option<f64>,
    pub(crate) new_domains: Vec<String>,
    pub(crate) lost_domains: Vec<String>,
    pub(crate) previous_success_count: u32,
    pub(crate) outreach_gap: OutreachGap,
}

impl<'a> SourcesAcc<'a> {
    /// Adds a successful probe.
    pub(crate) fn add(&mut self, probe: &'a Probe, ctx: &Ctx<'a>) {
        self.success += 1;
        while self.domains.len() < ctx.domains.len() {
            self.domains.push(DomainAcc {
                probes: 0,
                occurrences: 0,
                rank_sum: 0,
                best_rank: None,
                attributions: Vec::new(),
                cited_probes: 0,
                with_brand: false,
                with_competitor: 0,
            });
        }
        let mut has_owned = false;
        let mut owned_cited = false;
        self.cited_here.clear();
        for (source, &id) in probe.sources.iter().zip(&ctx.source_domains) {
            let acc = &mut self.domains[id as usize];
            let (occ, rank_sum, best) = source_tally(source);
            acc.occurrences += occ;
            acc.rank_sum += rank_sum;
            acc.best_rank = Some(acc.best_rank.map_or(best, |b| b.min(best)));
            self.occurrence_count += occ;
            let key = (source.platform.as_str(), source.channel.as_str(), source.ownership);
            match acc.attributions.iter_mut().find(|a| a.2 == key.2 && short_eq(a.1, key.1) && short_eq(a.0, key.0)) {
                Some(a) => a.3 += occ,
                None => acc.attributions.push((key.0, key.1, key.2, occ)),
            }
            let cited = source.cited == Some(true);
            if cited && !self.cited_here.contains(&id) {
                self.cited_here.push(id);
            }
            if source.ownership == Ownership::Owned {
                has_owned = true;
                owned_cited |= cited;
                self.owned_best_rank = Some(self.owned_best_rank.map_or(best, |b| b.min(best)));
            }
        }
        for &d in &self.cited_here {
            self.domains[d as usize].cited_probes += 1;
        }
        let brand = ctx.brand_mention().is_some();
        for &d in &ctx.probe_domains {
            let acc = &mut self.domains[d as usize];
            acc.probes += 1;
            acc.with_brand |= brand;
            acc.with_competitor += u32::from(ctx.competitor_mentioned);
        }
        self.owned_probe_count += u32::from(has_owned);
        self.brand_probe_count += u32::from(brand);
        self.competitor_probe_count += u32::from(ctx.competitor_mentioned);
        self.searched_count += u32::from(!probe.queries.is_empty());
        if probe.raw_citations.is_some() {
            self.citation_probe_count += 1;
            self.owned_cited_count += u32::from(owned_cited);
        }
    }

    /// The figures; `previous` holds the domains of the run named by `previousRunId`.
    pub(crate) fn finish(self, ctx: &Ctx<'a>, previous: Option<&RunDomains<'a>>) -> SourceFigures {
        let success = self.success;
        let names = &ctx.domains.names;
        // Citation figures exist only when some successful probe came with citation data.
        let cited = self.citation_probe_count > 0;
        let mut domains: Vec<DomainMetrics> = self
            .domains
            .iter()
            .zip(names)
            .map(|(acc, domain)| {
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
                    occurrence_share: ratio(acc.occurrences, self.occurrence_count),
                    avg_rank: (acc.occurrences > 0).then(|| acc.rank_sum as f64 / f64::from(acc.occurrences)),
                    best_rank: acc.best_rank,
                    cited_probe_count: cited.then_some(acc.cited_probes),
                    cited_rate: if cited { ratio(acc.cited_probes, success) } else { None },
                    occurrence_rate_ci: wilson_interval(acc.probes, success),
                }
            })
            .collect();
        crate::sort::sort_by(&mut domains, |a, b| {
            b.occurrences.cmp(&a.occurrences).then_with(|| a.domain.cmp(&b.domain))
        });
        let channels = channels_of(&domains, self.occurrence_count);

        let (mut new_domains, mut lost_domains, mut previous_success_count) = (Vec::new(), Vec::new(), 0);
        if let Some(prev) = previous {
            previous_success_count = prev.success;
            if success > 0 && prev.success > 0 {
                new_domains =
                    names.iter().filter(|d| !prev.domains.contains_key(&Key(d))).map(|d| d.to_string()).collect();
                lost_domains = prev
                    .domains
                    .keys()
                    .filter(|d| !ctx.domains.ids.contains_key(*d))
                    .map(|d| d.0.to_string())
                    .collect();
                crate::sort::sort(&mut new_domains);
                crate::sort::sort(&mut lost_domains);
            }
        }

        let mut gap_domains: Vec<GapDomain> = self
            .domains
            .iter()
            .zip(names)
            .filter(|(acc, _)| acc.with_competitor > 0 && !acc.with_brand)
            .map(|(acc, d)| GapDomain { domain: d.to_string(), probe_count: acc.with_competitor })
            .collect();
        crate::sort::sort_by(&mut gap_domains, |a, b| {
            b.probe_count.cmp(&a.probe_count).then_with(|| a.domain.cmp(&b.domain))
        });

        SourceFigures {
            unique_domains: names.len() as u32,
            occurrence_count: self.occurrence_count,
            owned_probe_count: self.owned_probe_count,
            owned_visibility: ratio(self.owned_probe_count, success),
            owned_visibility_ci: wilson_interval(self.owned_probe_count, success),
            owned_best_rank: self.owned_best_rank,
            searched_count: self.searched_count,
            searched_rate: ratio(self.searched_count, success),
            citation_probe_count: self.citation_probe_count,
            owned_cited_count: self.owned_cited_count,
            owned_citation_rate: if cited { ratio(self.owned_cited_count, success) } else { None },
            new_domains,
            lost_domains,
            previous_success_count,
            outreach_gap: OutreachGap {
                competitor_probe_count: self.competitor_probe_count,
                brand_probe_count: self.brand_probe_count,
                domains: gap_domains,
            },
            domains,
            channels,
        }
    }
}

/// `channels`: the domains' occurrences summed by their channel, by occurrences descending
/// then channel ascending; the share is over every occurrence of the run.
fn channels_of(domains: &[DomainMetrics], occurrence_count: u32) -> Vec<ChannelMetrics> {
    let mut by: Vec<(&str, u32)> = Vec::new();
    for d in domains {
        match by.iter_mut().find(|(c, _)| short_eq(c, &d.channel)) {
            Some((_, n)) => *n += d.occurrences,
            None => by.push((&d.channel, d.occurrences)),
        }
    }
    crate::sort::sort_by(&mut by, |a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(b.0)));
    by.into_iter()
        .map(|(channel, occurrences)| ChannelMetrics {
            channel: channel.to_string(),
            occurrences,
            occurrence_share: ratio(occurrences, occurrence_count),
        })
        .collect()
}
