//! The comparison of two runs: the object of `geo-probe diff` (`shared/spec/data-model.md`,
//! "Comparing runs").
//!
//! Everything is read from the two runs' [`RunMetrics`] (counts and denominators are
//! already there), so a comparison costs no pass over probes and works on stored metric
//! summaries as well as on a freshly analysed export.

use super::interval::{Change, Direction};
use super::CompareError;
use crate::metrics::{compute_run_metrics, method_changes, MethodChange, RunMetrics};
use crate::model::{EngineId, ExportEnvelope, Run, RunStatus};
use serde::Serialize;
use std::collections::{BTreeSet, HashMap, HashSet};

/// The names of the headline metrics, in the contract's order.
pub const METRIC_NAMES: [&str; 3] = ["mentionRate", "firstMentionRate", "ownedVisibility"];

/// A run compared with another.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RunDiff {
    /// The current run.
    pub run_id: String,
    /// The run it is compared with.
    pub against_id: String,
    /// The current run's engine.
    pub engine: EngineId,
    /// The other run's engine (runs of different engines may be compared).
    pub against_engine: EngineId,
    /// Whether the two runs measured the same way: no field of their `method` differs.
    pub comparable: bool,
    /// The fields of `method` that differ (data-model.md, "Method and surface …"), in the
    /// order of `METHOD_FIELDS`: `null` is absent, arrays compare as sets.
    pub method_changes: Vec<MethodChange>,
    /// `mentionRate`, `firstMentionRate`, `ownedVisibility`, in this order, each over the
    /// runs' successful probes.
    pub metrics: Vec<Change>,
    /// Every target of the current run's `aliasSnapshot`: its mention rate.
    pub targets: Vec<TargetChange>,
    /// The union of both prompt snapshots (the current run's order, then the other run's
    /// extra prompts in its order): each prompt's brand mention rate.
    pub prompts: Vec<PromptChange>,
    /// Source domains gained, lost and changed.
    pub domains: DomainChanges,
    /// What the three headline metrics say together.
    pub verdict: Verdict,
    /// What the answers say about the brand (data-model.md, "What the answers say"): its
    /// flagged rate and each shared fact's contradiction rate, compared; not in the verdict.
    pub descriptions: Descriptions,
    /// What a report shows beside the ids (not in the JSON).
    #[serde(skip)]
    pub context: DiffContext,
}

/// What the answers say, compared between the two runs.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Descriptions {
    /// The brand's `flaggedRate` (numerator: its mentioning probes with a flag on it;
    /// denominator: its mentioning probes) in both runs.
    pub brand_flagged: Change,
    /// Each fact of the current run's `factSnapshot` that the other run's has too (by id), in
    /// the current run's order: its `contradictionRate` (numerator: probes counted
    /// `contradicts`; denominator: `probesWithClaim`) in both runs.
    pub facts: Vec<FactChange>,
}

/// One fact's contradiction rate in both runs.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FactChange {
    /// The fact.
    pub fact_id: String,
    /// Its `contradictionRate`, compared.
    pub contradiction: Change,
    /// Its label in the current run (not in the JSON).
    #[serde(skip)]
    pub label: String,
}

/// [`Descriptions`] of `m` against `o`.
fn descriptions(run: &Run, m: &RunMetrics, other: &Run, o: &RunMetrics) -> Descriptions {
    let brand_row = |metrics: &RunMetrics| {
        let brand = metrics.brand_id.as_deref()?;
        metrics.risk_flags.iter().find(|r| r.target_id == brand).map(|r| (r.flagged_count, r.mentioning_count))
    };
    let ((x, n), (y, k)) = (brand_row(m).unwrap_or((0, 0)), brand_row(o).unwrap_or((0, 0)));
    let ids =
        |r: &Run| -> HashSet<String> { r.fact_snapshot.iter().flat_map(|s| &s.facts).map(|f| f.id.clone()).collect() };
    let (here, there) = (ids(run), ids(other));
    let row = |metrics: &RunMetrics, id: &str| {
        metrics.facts.iter().find(|f| f.fact_id == id).map_or((0, 0), |f| (f.contradicts, f.probes_with_claim))
    };
    let mut seen = HashSet::new();
    let facts = m
        .facts
        .iter()
        .filter(|f| here.contains(&f.fact_id) && there.contains(&f.fact_id) && seen.insert(f.fact_id.clone()))
        .map(|f| {
            let (c, w) = row(o, &f.fact_id);
            FactChange {
                fact_id: f.fact_id.clone(),
                contradiction: Change::new(f.contradicts, f.probes_with_claim, c, w),
                label: f.label.clone(),
            }
        })
        .collect();
    Descriptions { brand_flagged: Change::new(x, n, y, k), facts }
}

/// Labels and dates for rendering a [`RunDiff`]; not part of the contract's JSON.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct DiffContext {
    /// The current run's `createdAt`.
    pub created_at: String,
    /// The other run's `createdAt`.
    pub against_created_at: String,
    /// The current run's model.
    pub model: String,
    /// The other run's model.
    pub against_model: String,
}

/// One target's mention rate in both runs.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TargetChange {
    /// The target.
    pub target_id: String,
    /// Numerator: successful probes mentioning the target; denominator: successful probes.
    /// The other side is null when the other run did not track the target.
    pub mention_rate: Change,
    /// The target's label (not in the JSON).
    #[serde(skip)]
    pub label: String,
}

/// One prompt's brand mention rate in both runs.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PromptChange {
    /// The prompt.
    pub prompt_id: String,
    /// Numerator: the prompt's successful probes with a brand Mention; denominator: its
    /// successful probes (a run that did not ask the prompt has denominator 0).
    pub mention_rate: Change,
    /// The prompt's text (not in the JSON).
    #[serde(skip)]
    pub text: String,
}

/// Source domains of the two runs' successful probes.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DomainChanges {
    /// Domains of the current run absent from the other, sorted.
    pub gained: Vec<String>,
    /// Domains of the other run absent from the current one, sorted.
    pub lost: Vec<String>,
    /// Every domain of either run, by |delta| descending then domain (rows without a delta
    /// last).
    pub changed: Vec<DomainChange>,
}

/// One domain's probe rate in both runs.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DomainChange {
    /// Registrable domain.
    pub domain: String,
    /// Numerator: successful probes retrieving the domain (its `occurrenceRate`; 0 where
    /// absent); denominator: successful probes.
    pub probe_rate: Change,
}

/// The verdict of a comparison, from the three headline metrics only.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Some metric significantly up, none significantly down.
    Improved,
    /// Some metric significantly down, none significantly up.
    Regressed,
    /// Some significantly up and some significantly down.
    Mixed,
    /// No significant change.
    Stable,
}

impl Verdict {
    /// The wire name (`improved`, `regressed`, `mixed`, `stable`).
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Improved => "improved",
            Verdict::Regressed => "regressed",
            Verdict::Mixed => "mixed",
            Verdict::Stable => "stable",
        }
    }

    /// The verdict of these changes: down and none up → regressed, up and none down →
    /// improved, both → mixed, none → stable.
    pub fn of(changes: &[Change]) -> Verdict {
        let up = changes.iter().any(|c| c.direction() == Direction::Up);
        let down = changes.iter().any(|c| c.direction() == Direction::Down);
        match (up, down) {
            (true, true) => Verdict::Mixed,
            (true, false) => Verdict::Improved,
            (false, true) => Verdict::Regressed,
            (false, false) => Verdict::Stable,
        }
    }
}

impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Compares `current` (a run and its metrics) with `against`.
///
/// The metrics must be those of the runs given (as [`compute_run_metrics`] returns them, or
/// a stored copy); which previous run they were computed against does not matter.
pub fn diff_runs(current: (&Run, &RunMetrics), against: (&Run, &RunMetrics)) -> RunDiff {
    let (run, m) = current;
    let (other, o) = against;

    let metrics = vec![
        Change::new(m.counts.mention_count, m.success_count, o.counts.mention_count, o.success_count)
            .named(METRIC_NAMES[0]),
        Change::new(m.counts.first_mention_count, m.success_count, o.counts.first_mention_count, o.success_count)
            .named(METRIC_NAMES[1]),
        Change::new(m.counts.owned_probe_count, m.success_count, o.counts.owned_probe_count, o.success_count)
            .named(METRIC_NAMES[2]),
    ];
    let verdict = Verdict::of(&metrics);

    // Maps and sets by id, so a run of `limits::MAX_SNAPSHOT_TARGETS` targets and prompts
    // compares in linear time (security review II, finding 5).
    let tracked_there: HashSet<&str> = other.alias_snapshot.iter().map(|x| x.id.as_str()).collect();
    let (counts_here, counts_there) = (first_counts(m), first_counts(o));
    let mut seen_targets = HashSet::new();
    let targets = run
        .alias_snapshot
        .iter()
        .filter(|t| seen_targets.insert(t.id.as_str()))
        .map(|t| {
            let count = counts_here.get(t.id.as_str()).copied().unwrap_or(0);
            // A target the other run did not track was not measured there: that side is empty.
            let tracked = tracked_there.contains(t.id.as_str());
            let (other_count, other_n) =
                if tracked { (counts_there.get(t.id.as_str()).copied().unwrap_or(0), o.success_count) } else { (0, 0) };
            TargetChange {
                target_id: t.id.clone(),
                mention_rate: Change::new(count, m.success_count, other_count, other_n),
                label: t.label.clone(),
            }
        })
        .collect();

    let prompt_counts = |metrics: &RunMetrics| -> HashMap<String, (u32, u32)> {
        metrics.prompts.iter().map(|p| (p.prompt_id.clone(), (p.mention_count, p.success_count))).collect()
    };
    let (mine, theirs) = (prompt_counts(m), prompt_counts(o));
    let mut seen_prompts = HashSet::new();
    let prompts = run
        .prompt_snapshot
        .iter()
        .chain(other.prompt_snapshot.iter())
        .filter(|p| seen_prompts.insert(p.id.as_str()))
        .map(|p| {
            let (x, n) = mine.get(&p.id).copied().unwrap_or((0, 0));
            let (y, k) = theirs.get(&p.id).copied().unwrap_or((0, 0));
            PromptChange { prompt_id: p.id.clone(), mention_rate: Change::new(x, n, y, k), text: p.text.clone() }
        })
        .collect();

    let changes = method_changes(&o.method, &m.method);
    RunDiff {
        run_id: run.id.clone(),
        against_id: other.id.clone(),
        engine: run.config.engine,
        against_engine: other.config.engine,
        comparable: changes.is_empty(),
        method_changes: changes,
        metrics,
        targets,
        prompts,
        domains: domain_changes(m, o),
        verdict,
        descriptions: descriptions(run, m, other, o),
        context: DiffContext {
            created_at: run.created_at.clone(),
            against_created_at: other.created_at.clone(),
            model: run.config.model.clone(),
            against_model: other.config.model.clone(),
        },
    }
}

/// Each target's share-of-voice count by id (the first entry of an id), for lookups in
/// constant time.
fn first_counts(metrics: &RunMetrics) -> HashMap<&str, u32> {
    let mut by_id = HashMap::new();
    for (id, n) in &metrics.share_of_voice_counts.0 {
        by_id.entry(id.as_str()).or_insert(*n);
    }
    by_id
}

fn domain_changes(m: &RunMetrics, o: &RunMetrics) -> DomainChanges {
    let mine: HashMap<&str, u32> = m.domains.iter().map(|d| (d.domain.as_str(), d.probe_count)).collect();
    let theirs: HashMap<&str, u32> = o.domains.iter().map(|d| (d.domain.as_str(), d.probe_count)).collect();
    let all: BTreeSet<&str> = mine.keys().chain(theirs.keys()).copied().collect();
    let gained = all.iter().filter(|d| !theirs.contains_key(*d)).map(|d| d.to_string()).collect();
    let lost = all.iter().filter(|d| !mine.contains_key(*d)).map(|d| d.to_string()).collect();
    let mut changed: Vec<DomainChange> = all
        .iter()
        .map(|d| DomainChange {
            domain: d.to_string(),
            probe_rate: Change::new(
                mine.get(d).copied().unwrap_or(0),
                m.success_count,
                theirs.get(d).copied().unwrap_or(0),
                o.success_count,
            ),
        })
        .collect();
    // `all` is sorted by domain and the sort is stable: ties keep domain order.
    crate::sort::sort_by(&mut changed, |a, b| {
        let size = |c: &DomainChange| c.probe_rate.delta.map(f64::abs);
        match (size(a), size(b)) {
            (Some(x), Some(y)) => y.total_cmp(&x),
            (Some(_), None) => std::cmp::Ordering::Less,
            (None, Some(_)) => std::cmp::Ordering::Greater,
            (None, None) => std::cmp::Ordering::Equal,
        }
    });
    DomainChanges { gained, lost, changed }
}

/// Whether a run's figures can be compared (completed or partial).
pub fn is_comparable(run: &Run) -> bool {
    matches!(run.status, RunStatus::Completed | RunStatus::Partial)
}

/// The newest completed or partial run of `runs` (by `createdAt`, then id).
pub fn newest_comparable<'a>(runs: impl IntoIterator<Item = &'a Run>) -> Option<&'a Run> {
    runs.into_iter()
        .filter(|r| is_comparable(r))
        .max_by(|a, b| a.created_at.cmp(&b.created_at).then_with(|| a.id.cmp(&b.id)))
}

/// `geo-probe diff` over an export: run `run_id` (default: the newest completed or partial
/// run) against `against_id` (default: the run's `previousRunId`).
///
/// Errors name what is missing and what to pass instead.
pub fn diff_export(
    env: &ExportEnvelope,
    run_id: Option<&str>,
    against_id: Option<&str>,
) -> Result<RunDiff, CompareError> {
    let run = match run_id {
        Some(id) => find(env, id)?,
        None => newest_comparable(&env.runs).ok_or(CompareError::NoComparableRun)?,
    };
    let other = match against_id {
        Some(id) => find(env, id)?,
        None => {
            let previous =
                run.previous_run_id.as_deref().ok_or_else(|| CompareError::NoPreviousRun { run_id: run.id.clone() })?;
            env.run(previous).ok_or_else(|| CompareError::PreviousRunMissing {
                run_id: run.id.clone(),
                previous_id: previous.to_string(),
            })?
        }
    };
    let m = compute_run_metrics(run, &env.probes, None);
    let o = compute_run_metrics(other, &env.probes, None);
    Ok(diff_runs((run, &m), (other, &o)))
}

fn find<'a>(env: &'a ExportEnvelope, id: &str) -> Result<&'a Run, CompareError> {
    env.run(id).ok_or_else(|| CompareError::UnknownRun {
        run_id: id.to_string(),
        available: env.runs_in_order().iter().rev().take(10).map(|r| r.id.clone()).collect(),
    })
}
