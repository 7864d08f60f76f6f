//! `queries`: the searches the engine ran ("query fan-out").
//!
//! Every non-internal query of the run's successful probes, folded ([`fold_query`]), once per
//! probe however often the probe ran it; with the prompts that led to it, the domains it
//! brought back and whether an owned or a competitor page was among them. A query whose
//! search returned an error counts: the engine did run it.

use super::{prompt_position, FanOutQuery, Prepared};
use crate::model::{Ownership, Probe};

/// A query in the form the fan-out compares: NFKC, lower case, every run of white space one
/// space, trimmed (empty for a blank query, which is not counted).
pub fn fold_query(query: &str) -> String {
    let folded = crate::text::fold::normalize_for_match(query);
    let mut out = String::with_capacity(folded.len());
    for word in folded.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

/// The probe's folded queries by query index (internal and blank ones left out).
pub(crate) fn probe_queries(probe: &Probe) -> Vec<(u32, String)> {
    probe
        .queries
        .iter()
        .filter(|q| !q.internal)
        .filter_map(|q| Some((q.index, fold_query(q.query.as_deref()?))))
        .filter(|(_, q)| !q.is_empty())
        .collect()
}

/// The query rows of a prepared run, by `probeCount` descending, then `query`.
///
/// One flat list of (query, probe) pairs, sorted and grouped: the crate's one sort rather
/// than a map type of its own, for the web bundle's size (`docs/adr/0006-wasm-size.md`).
pub(crate) fn queries(run: &Prepared<'_>) -> Vec<FanOutQuery> {
    let folded: Vec<Vec<(u32, String)>> = run.probes.iter().map(|p| probe_queries(p)).collect();
    let mut pairs: Vec<(&str, usize)> =
        folded.iter().enumerate().flat_map(|(k, f)| f.iter().map(move |(_, q)| (q.as_str(), k))).collect();
    crate::sort::sort(&mut pairs);
    pairs.dedup();
    let mut rows: Vec<FanOutQuery> = Vec::new();
    for group in pairs.chunk_by(|a, b| a.0 == b.0) {
        let query = group[0].0;
        let (mut domains, mut prompts): (Vec<&str>, Vec<&str>) = (Vec::new(), Vec::new());
        let (mut owned, mut competitor) = (false, false);
        for &(_, k) in group {
            let probe = run.probes[k];
            prompts.push(&probe.prompt_id);
            let indices: Vec<u32> = folded[k].iter().filter(|(_, q)| q == query).map(|(i, _)| *i).collect();
            for source in
                probe.sources.iter().filter(|s| s.occurrences.iter().any(|o| indices.contains(&o.query_index)))
            {
                domains.push(&source.domain);
                owned |= source.ownership == Ownership::Owned;
                competitor |= source.ownership == Ownership::Competitor;
            }
        }
        crate::sort::sort(&mut domains);
        domains.dedup();
        crate::sort::sort_by_cached_key(&mut prompts, |id| (prompt_position(run.run, id), id.to_string()));
        prompts.dedup();
        rows.push(FanOutQuery {
            query: query.to_string(),
            probe_count: group.len() as u32,
            prompt_ids: prompts.into_iter().map(str::to_string).collect(),
            domains: domains.into_iter().map(str::to_string).collect(),
            owned,
            competitor,
            status: None,
            probe_ids: group.iter().map(|&(_, k)| run.probes[k].id.clone()).collect(),
        });
    }
    // The groups come in code-point order and the sort is stable: ties keep it.
    crate::sort::sort_by(&mut rows, |a, b| b.probe_count.cmp(&a.probe_count));
    rows
}

#[cfg(test)]
mod tests {
    use super::fold_query;

    #[track_caller]
    fn check(input: &str, expect: &str) {
        assert_eq!(fold_query(input), expect);
    }

    #[test]
    fn queries_fold_width_case_and_space() {
        check("GEO 服务商", "geo 服务商");
        check("  ＧＥＯ\t\u{3000}服务商  推荐 ", "geo 服务商 推荐");
        check("Best  GEO\nTools", "best geo tools");
        check(" \t ", "");
        check("", "");
    }
}
