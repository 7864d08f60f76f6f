//! `pages`: the pages to be on.
//!
//! The third-party sources (by canonical URL, not only the domain) of the successful probes
//! of the lost prompts: the pages the engine read when it named a competitor over the
//! brand. Gemini gives every source as an opaque redirect, unique per answer, so those are
//! aggregated by the publisher's domain and say so (`byDomain`).

use super::{is_grounding_redirect, LostPrompt, PageRow, Prepared};
use crate::model::{Ownership, SearchSource};

/// The page rows of a prepared run given its lost prompts, by `probeCount` descending, then `url`.
///
/// One flat list of (page, probe, source) entries, sorted and grouped (see `queries`).
pub(crate) fn pages(run: &Prepared<'_>, lost: &[LostPrompt]) -> Vec<PageRow> {
    let mut entries: Vec<(&str, usize, &SearchSource)> = Vec::new();
    for (k, probe) in run.probes.iter().enumerate().filter(|(_, p)| lost.iter().any(|l| l.prompt_id == p.prompt_id)) {
        for s in probe.sources.iter().filter(|s| s.ownership == Ownership::ThirdParty) {
            let key = if is_grounding_redirect(&s.url) { &s.domain } else { &s.url };
            entries.push((key, k, s));
        }
    }
    // By page, then probe; the sort is stable, so a probe's sources keep their order.
    crate::sort::sort_by(&mut entries, |a, b| a.0.cmp(b.0).then(a.1.cmp(&b.1)));
    let mut rows: Vec<PageRow> = Vec::new();
    for group in entries.chunk_by(|a, b| a.0 == b.0) {
        let (key, first) = (group[0].0, group[0].2);
        let by_domain = is_grounding_redirect(&first.url);
        let mut row = PageRow {
            url: key.to_string(),
            domain: first.domain.clone(),
            probe_count: 0,
            cited_count: 0,
            names_competitor: false,
            names_brand: false,
            by_domain,
            title: String::new(),
            status: None,
            probe_ids: Vec::new(),
        };
        let mut title = "";
        // One count per probe, however many of its sources share the page.
        for probe_group in group.chunk_by(|a, b| a.1 == b.1) {
            row.probe_count += 1;
            row.probe_ids.push(run.probes[probe_group[0].1].id.clone());
            row.cited_count += u32::from(probe_group.iter().any(|e| e.2.cited == Some(true)));
            for (_, _, s) in probe_group {
                let names = |id: &str| s.title_mentions.iter().any(|t| t == id);
                row.names_competitor |= run.competitors.iter().any(|c| names(c));
                row.names_brand |= run.brand.is_some_and(names);
                let longer = s.title.chars().count().cmp(&title.chars().count());
                if longer.then_with(|| title.cmp(&s.title)).is_gt() {
                    title = &s.title;
                }
            }
        }
        row.title = if by_domain { row.domain.clone() } else { title.to_string() };
        rows.push(row);
    }
    // The groups come in code-point order and the sort is stable: ties keep it.
    crate::sort::sort_by(&mut rows, |a, b| b.probe_count.cmp(&a.probe_count));
    rows
}
