//! The five analysis steps of seed §5, one module each, all pure functions, and the one
//! entry point [`analyze_probe`] that derives every analysed field from a probe's raw result.
//!
//! Besides the steps: `alias` (an alias in the matching normal form with its boundary
//! checks, shared by matching and scoring), [`pawc`] (the position-adjusted word count each
//! Mention stores), [`urls`], [`platforms`] and [`markers`] (citation markers such as
//! `[ref_1]`, which Mentions, lists and answer links do not see). No module here imports `metrics`: metrics
//! read what the analysis derived.

pub(crate) mod alias;
pub mod claims;
pub mod clean;
pub mod links;
pub mod lists;
pub mod markers;
pub mod mentions;
pub mod pawc;
pub mod platforms;
pub mod sources;
pub mod urls;

use crate::model::{EngineId, FactSnapshot, Probe, ProbeStatus, Run, Target};
use claims::FactRules;
use mentions::TargetMatcher;
use sources::TargetDomains;

/// One alias snapshot prepared for analysis: aliases normalised and configured domains
/// parsed once, then reused for every probe of the run.
///
/// It holds no mutable state, so one analyzer may analyse many probes at once from several
/// threads (the CLI's `analyze` does); each probe's result is the same as [`analyze_probe`]'s.
#[derive(Debug, Clone)]
pub struct RunAnalyzer<'a> {
    matcher: TargetMatcher<'a>,
    domains: TargetDomains<'a>,
    facts: FactRules<'a>,
}

impl<'a> RunAnalyzer<'a> {
    /// Prepares an alias snapshot `targets` (brand first) without a fact sheet: claims stay
    /// empty, risk flags come from the built-in cues, and citation markers name no source.
    pub fn new(targets: &'a [Target]) -> Self {
        Self::with_facts(targets, None, EngineId::Deepseek)
    }

    /// Prepares `run`: its alias snapshot, its fact snapshot and its engine's marker rule.
    pub fn for_run(run: &'a Run) -> Self {
        Self::with_facts(&run.alias_snapshot, run.fact_snapshot.as_ref(), run.config.engine)
    }

    /// Prepares an alias snapshot with a fact snapshot (or none) for a run of `engine`.
    pub fn with_facts(targets: &'a [Target], facts: Option<&'a FactSnapshot>, engine: EngineId) -> Self {
        RunAnalyzer {
            matcher: TargetMatcher::new(targets),
            domains: TargetDomains::new(targets),
            facts: FactRules::new(targets, facts, engine),
        }
    }

    /// Recomputes every derived field of `probe` (a probe of this analyzer's run).
    pub fn analyze(&self, probe: &mut Probe) {
        probe.answer = clean::clean_answer(&probe.raw_answer);
        probe.sources =
            sources::normalize_sources_with(&probe.queries, &probe.raw_sources, &self.matcher, &self.domains);
        sources::mark_cited(&mut probe.sources, probe.raw_citations.as_deref());
        // Mentions, lists and answer links read the answer without its citation markers.
        let text = markers::strip_citation_markers(&probe.answer);
        let normalised = crate::text::normalize_for_match(&text);
        probe.mentions = self.matcher.match_normalised_scored(&normalised);
        let parsed = lists::parse_list_items_with(&text, &self.matcher);
        lists::apply_list_positions_with(&mut probe.mentions, &parsed.items, &self.matcher);
        probe.list_items = parsed.items;
        probe.other_entities = parsed.other_entities;
        probe.answer_links = links::extract_answer_links(&text, &probe.sources);
        let findings = if probe.status == ProbeStatus::Success {
            let citations = probe.raw_citations.as_deref();
            claims::derive(&probe.answer, &self.facts, &probe.sources, citations)
        } else {
            claims::Findings::default()
        };
        probe.claims = findings.claims;
        probe.risk_flags = findings.risk_flags;
    }
}

/// Recomputes every derived field of `probe` from its raw result and the run's alias
/// snapshot (brand first), without a fact sheet (see [`RunAnalyzer::new`]). Idempotent:
/// analysing twice gives the same probe.
pub fn analyze_probe(probe: &mut Probe, targets: &[Target]) {
    RunAnalyzer::new(targets).analyze(probe);
}

/// Recomputes every derived field of `probe`, a probe of `run`, with all of the run's
/// snapshots (aliases, facts) and its engine.
pub fn analyze_probe_in_run(probe: &mut Probe, run: &Run) {
    RunAnalyzer::for_run(run).analyze(probe);
}

/// Re-analyses every probe of `env` with its run's alias snapshot (prepared once per run).
///
/// Probes whose run is not in the envelope keep their derived fields untouched and are
/// returned by id so the caller can report them.
pub fn analyze_envelope(env: &mut crate::model::ExportEnvelope) -> Vec<String> {
    analyze_envelope_with(env, &[])
}

/// [`analyze_envelope`] for a file merged into stored data: a probe whose run is not in
/// the file is analysed with the stored run's alias snapshot (`stored_runs`; the file's
/// run wins for the same id, as in the merge). Returns the probes whose run is in neither.
pub fn analyze_envelope_with(env: &mut crate::model::ExportEnvelope, stored_runs: &[crate::model::Run]) -> Vec<String> {
    use std::collections::HashMap;
    let analyzers: HashMap<&str, RunAnalyzer> =
        stored_runs.iter().chain(&env.runs).map(|r| (r.id.as_str(), RunAnalyzer::for_run(r))).collect();
    let mut orphans = Vec::new();
    for probe in &mut env.probes {
        match analyzers.get(probe.run_id.as_str()) {
            Some(analyzer) => analyzer.analyze(probe),
            None => orphans.push(probe.id.clone()),
        }
    }
    orphans
}
