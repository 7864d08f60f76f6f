//! The five analysis steps of seed §5, one module each, all pure functions, and the one
//! entry point [`analyze_probe`] that derives every analysed field from a probe's raw result.

pub mod clean;
pub mod links;
pub mod lists;
pub mod mentions;
pub mod platforms;
pub mod sources;
pub mod urls;

use crate::model::{Probe, Target};

/// Recomputes every derived field of `probe` from its raw result and the run's alias
/// snapshot (brand first). Idempotent: analysing twice gives the same probe.
pub fn analyze_probe(probe: &mut Probe, targets: &[Target]) {
    probe.answer = clean::clean_answer(&probe.raw_answer);
    probe.sources = sources::normalize_sources(&probe.queries, &probe.raw_sources, targets);
    probe.mentions = mentions::match_targets(&probe.answer, targets);
    let parsed = lists::parse_list_items(&probe.answer, targets);
    lists::apply_list_positions(&mut probe.mentions, &parsed.items, targets);
    probe.list_items = parsed.items;
    probe.other_entities = parsed.other_entities;
    probe.answer_links = links::extract_answer_links(&probe.answer, &probe.sources);
}

/// Re-analyses every probe of `env` with its run's alias snapshot.
///
/// Probes whose run is not in the envelope keep their derived fields untouched and are
/// returned by id so the caller can report them.
pub fn analyze_envelope(env: &mut crate::model::ExportEnvelope) -> Vec<String> {
    use std::collections::HashMap;
    let snapshots: HashMap<&str, &[Target]> =
        env.runs.iter().map(|r| (r.id.as_str(), r.alias_snapshot.as_slice())).collect();
    let mut orphans = Vec::new();
    for probe in &mut env.probes {
        match snapshots.get(probe.run_id.as_str()) {
            Some(targets) => analyze_probe(probe, targets),
            None => orphans.push(probe.id.clone()),
        }
    }
    orphans
}
