//! [`LinksAcc`]: Answer Links of successful probes and how many of them are among the
//! probe's own Retrieved Sources (`answerLinkOverlap`).

use super::Ctx;
use crate::model::Probe;

/// Link counts.
#[derive(Default)]
pub(crate) struct LinksAcc {
    /// Answer links of successful probes.
    pub(crate) link_count: u32,
    /// Those with `inSources`.
    pub(crate) in_sources_count: u32,
}

impl LinksAcc {
    /// Adds a successful probe.
    pub(crate) fn add(&mut self, probe: &Probe, _ctx: &Ctx<'_>) {
        self.link_count += probe.answer_links.len() as u32;
        self.in_sources_count += probe.answer_links.iter().filter(|l| l.in_sources).count() as u32;
    }

    /// Numerator: links with `inSources`; denominator: links.
    pub(crate) fn overlap(&self) -> Option<f64> {
        crate::metrics::stats::ratio(self.in_sources_count, self.link_count)
    }
}
