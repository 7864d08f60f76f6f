//! What the answers say, for one run (`geo-probe claims`, the MCP tool `list_claims`, the
//! "What they say" page and the report's section; data-model.md, "What the answers say"):
//! each fact of the fact sheet with its counts and every claim on it, the sources behind each
//! claim, and every sentence flagged for review.
//!
//! The sheet is the run's own `factSnapshot` (`factsFrom: "run"`), or one given instead
//! (`--facts`: `"file"`; the run's probes are then analysed again with it), or none (`"none"`:
//! only the built-in risk cues). Claims and flags are listed in probe order (the run's
//! `promptSnapshot` order, then `repeatIndex`), then by their sentence's `start`.

pub mod markdown;

use std::collections::HashMap;

use serde::Serialize;

use crate::actions::ActionsError;
use crate::analysis::RunAnalyzer;
use crate::metrics::{claims_tables, FactMetrics, RiskFlagMetrics};
use crate::model::{Claim, EngineId, ExportEnvelope, FactSnapshot, Probe, ProbeStatus, RiskFlag, Run, SearchSource};

/// Where the fact sheet of a [`ClaimsReport`] came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FactsFrom {
    /// The run's own `factSnapshot`.
    Run,
    /// A sheet given instead (`--facts FACTS.json`).
    File,
    /// No sheet: only the built-in risk cues apply.
    None,
}

/// The object of `geo-probe claims`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ClaimsReport {
    /// The run.
    pub run_id: String,
    /// Its engine.
    pub engine: EngineId,
    /// Where the fact sheet came from.
    pub facts_from: FactsFrom,
    /// Per fact of the sheet, in its order: the `facts` row of `geo-probe metrics` and its
    /// claims.
    pub facts: Vec<FactReport>,
    /// Every risk flag of the run's successful probes.
    pub risk_flags: Vec<FlagRow>,
    /// The `riskFlags` rows of `geo-probe metrics` (per target), for the page and the report
    /// (not in the contract's object: an extra).
    pub flag_counts: Vec<RiskFlagMetrics>,
}

/// One fact: its figures and every claim on it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FactReport {
    /// The metrics row.
    #[serde(flatten)]
    pub row: FactMetrics,
    /// Its claims, in probe order, then by `start`.
    pub claims: Vec<ClaimRow>,
}

/// A claim with the probe it is in and the sources behind its sentence.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ClaimRow {
    /// The probe.
    pub probe_id: String,
    /// Its prompt.
    pub prompt_id: String,
    /// The claim.
    #[serde(flatten)]
    pub claim: Claim,
    /// The sources of `claim.sourceIds`, in that order.
    pub sources: Vec<ClaimSource>,
}

/// A source behind a claim's sentence.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ClaimSource {
    /// Its id in the probe (`src_1`, …).
    pub id: String,
    /// Its canonical URL.
    pub url: String,
    /// Its registrable domain.
    pub domain: String,
    /// Whether the answer cites it (`null` without citation data).
    pub cited: Option<bool>,
}

/// A risk flag with the probe it is in.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FlagRow {
    /// The probe.
    pub probe_id: String,
    /// Its prompt.
    pub prompt_id: String,
    /// The flag.
    #[serde(flatten)]
    pub flag: RiskFlag,
}

/// The run's probes in report order: the `promptSnapshot`'s order (prompts it does not list
/// after, as first seen), then `repeatIndex`.
fn in_order<'a>(run: &Run, probes: &[&'a Probe]) -> Vec<&'a Probe> {
    let position: HashMap<&str, usize> =
        run.prompt_snapshot.iter().enumerate().rev().map(|(i, p)| (p.id.as_str(), i)).collect();
    let mut out: Vec<&Probe> = probes.to_vec();
    let last = run.prompt_snapshot.len();
    crate::sort::sort_by_key(&mut out, |p| {
        (position.get(p.prompt_id.as_str()).copied().unwrap_or(last), p.repeat_index)
    });
    out
}

/// The sources a claim names, from its probe.
fn sources_of(claim: &Claim, sources: &[SearchSource]) -> Vec<ClaimSource> {
    claim
        .source_ids
        .iter()
        .filter_map(|id| sources.iter().find(|s| &s.id == id))
        .map(|s| ClaimSource { id: s.id.clone(), url: s.url.clone(), domain: s.domain.clone(), cited: s.cited })
        .collect()
}

/// What the answers of `run` say: its probes (`probes`; others are ignored) as analysed, or
/// analysed again with `sheet` when one is given instead of the run's own.
pub fn claims_report(run: &Run, probes: &[&Probe], sheet: Option<&FactSnapshot>) -> ClaimsReport {
    let own: Vec<&Probe> = probes.iter().copied().filter(|p| p.run_id == run.id).collect();
    let (facts_from, run, reanalysed) = match sheet {
        Some(sheet) => {
            let run = Run { fact_snapshot: Some(sheet.clone()), ..run.clone() };
            let analyzer = RunAnalyzer::for_run(&run);
            let again: Vec<Probe> = own
                .iter()
                .map(|p| {
                    let mut p = (*p).clone();
                    analyzer.analyze(&mut p);
                    p
                })
                .collect();
            (FactsFrom::File, std::borrow::Cow::Owned(run), Some(again))
        }
        None if run.fact_snapshot.is_some() => (FactsFrom::Run, std::borrow::Cow::Borrowed(run), None),
        None => (FactsFrom::None, std::borrow::Cow::Borrowed(run), None),
    };
    let probes: Vec<&Probe> = match &reanalysed {
        Some(again) => again.iter().collect(),
        None => own,
    };
    let ordered = in_order(&run, &probes);
    let ok: Vec<&Probe> = ordered.into_iter().filter(|p| p.status == ProbeStatus::Success).collect();
    let (fact_rows, flag_counts) = claims_tables(&run, &probes);
    let facts = fact_rows
        .into_iter()
        .map(|row| {
            let claims = ok
                .iter()
                .flat_map(|p| p.claims.iter().filter(|c| c.fact_id == row.fact_id).map(move |c| (p, c)))
                .map(|(p, c)| ClaimRow {
                    probe_id: p.id.clone(),
                    prompt_id: p.prompt_id.clone(),
                    claim: c.clone(),
                    sources: sources_of(c, &p.sources),
                })
                .collect();
            FactReport { row, claims }
        })
        .collect();
    let risk_flags = ok
        .iter()
        .flat_map(|p| {
            p.risk_flags.iter().map(|f| FlagRow {
                probe_id: p.id.clone(),
                prompt_id: p.prompt_id.clone(),
                flag: f.clone(),
            })
        })
        .collect();
    ClaimsReport { run_id: run.id.clone(), engine: run.config.engine, facts_from, facts, risk_flags, flag_counts }
}

/// `geo-probe claims` over an export: run `run_id` (default: the newest completed or partial
/// run, else the newest run), with `sheet` instead of its own fact sheet when given.
pub fn claims_for_export(
    env: &ExportEnvelope,
    run_id: Option<&str>,
    sheet: Option<&FactSnapshot>,
) -> Result<ClaimsReport, ActionsError> {
    let run = crate::actions::run_or_default(env, run_id)?;
    let probes: Vec<&Probe> = env.probes_of(&run.id).collect();
    Ok(claims_report(run, &probes, sheet))
}
