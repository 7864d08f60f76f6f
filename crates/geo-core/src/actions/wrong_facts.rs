//! `wrongFacts`: the facts the answers state wrongly, and the pages behind those sentences.
//!
//! From the run's own claims (its `factSnapshot`, `analysis::claims`): per fact of the sheet,
//! the successful probes' claims whose verdict is `contradicts`, the values they state, and
//! the sources behind their sentences (a claim's `sourceIds`, rule 5 of "What the answers
//! say"), grouped by page. Those pages are where the engine read the wrong figure: the ones
//! to get corrected. Gemini's sources are opaque redirects, unique per answer, so they are
//! grouped by the publisher's domain, as in `pages`.

use super::{is_grounding_redirect, Prepared, WrongFact, WrongFactPage};
use crate::model::{Claim, Probe, SearchSource, Verdict};

/// One (page, probe, source) entry per contradicting claim and page behind it.
type Entry<'a> = (String, usize, &'a SearchSource);

/// The wrong facts of a prepared run, by `claimCount` descending, then fact-sheet order;
/// each fact's pages by `claimCount` descending, then `url`.
pub(crate) fn wrong_facts(run: &Prepared<'_>) -> Vec<WrongFact> {
    let Some(sheet) = &run.run.fact_snapshot else { return Vec::new() };
    let mut out: Vec<WrongFact> = Vec::new();
    for (i, fact) in sheet.facts.iter().enumerate() {
        // A repeated id is one fact: its first entry (as the metrics count it).
        if sheet.facts[..i].iter().any(|f| f.id == fact.id) {
            continue;
        }
        let mut row = WrongFact {
            fact_id: fact.id.clone(),
            target_id: fact.target_id.clone(),
            label: fact.label.clone(),
            claim_count: 0,
            probe_count: 0,
            values: Vec::new(),
            unsourced_count: 0,
            pages: Vec::new(),
            status: None,
            probe_ids: Vec::new(),
        };
        let mut entries: Vec<Entry<'_>> = Vec::new();
        for (k, probe) in run.probes.iter().enumerate() {
            let wrong = probe.claims.iter().filter(|c| c.fact_id == fact.id && c.verdict == Verdict::Contradicts);
            let before = row.claim_count;
            for claim in wrong {
                row.claim_count += 1;
                for v in &claim.values {
                    if !row.values.contains(v) {
                        row.values.push(v.clone());
                    }
                }
                let pages = pages_behind(probe, claim);
                row.unsourced_count += u32::from(pages.is_empty());
                entries.extend(pages.into_iter().map(|(key, s)| (key, k, s)));
            }
            if row.claim_count > before {
                row.probe_count += 1;
                row.probe_ids.push(probe.id.clone());
            }
        }
        if row.claim_count > 0 {
            row.pages = group(run, entries);
            out.push(row);
        }
    }
    // Stable: ties keep the fact sheet's order.
    crate::sort::sort_by(&mut out, |a, b| b.claim_count.cmp(&a.claim_count));
    out
}

/// The pages behind one claim's sentence, each once: (its key — the canonical URL, or the
/// domain of a grounding redirect —, the first of the probe's sources with that key).
fn pages_behind<'a>(probe: &'a Probe, claim: &Claim) -> Vec<(String, &'a SearchSource)> {
    let mut pages: Vec<(String, &SearchSource)> = Vec::new();
    for s in claim.source_ids.iter().filter_map(|id| probe.sources.iter().find(|s| &s.id == id)) {
        let key = if is_grounding_redirect(&s.url) { s.domain.clone() } else { s.url.clone() };
        if pages.iter().all(|(k, _)| *k != key) {
            pages.push((key, s));
        }
    }
    pages
}

/// The page rows of one fact's entries.
fn group(run: &Prepared<'_>, mut entries: Vec<Entry<'_>>) -> Vec<WrongFactPage> {
    // By page, then probe; the sort is stable, so a probe's claims keep their order.
    crate::sort::sort_by(&mut entries, |a, b| a.0.cmp(&b.0).then(a.1.cmp(&b.1)));
    let mut pages: Vec<WrongFactPage> = Vec::new();
    for group in entries.chunk_by(|a, b| a.0 == b.0) {
        let (key, first) = (&group[0].0, group[0].2);
        let by_domain = is_grounding_redirect(&first.url);
        let mut title = "";
        for (_, _, s) in group {
            let longer = s.title.chars().count().cmp(&title.chars().count());
            if longer.then_with(|| title.cmp(&s.title)).is_gt() {
                title = &s.title;
            }
        }
        let mut probe_ids: Vec<String> = Vec::new();
        for probe_group in group.chunk_by(|a, b| a.1 == b.1) {
            probe_ids.push(run.probes[probe_group[0].1].id.clone());
        }
        pages.push(WrongFactPage {
            url: key.clone(),
            domain: first.domain.clone(),
            claim_count: group.len() as u32,
            cited: group.iter().any(|e| e.2.cited == Some(true)),
            by_domain,
            title: if by_domain { first.domain.clone() } else { title.to_string() },
            probe_ids,
        });
    }
    // The groups come in code-point order and the sort is stable: ties keep it.
    crate::sort::sort_by(&mut pages, |a, b| b.claim_count.cmp(&a.claim_count));
    pages
}
