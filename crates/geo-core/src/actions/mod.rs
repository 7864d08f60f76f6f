//! What to do next: a run turned into a ranked to-do list with its evidence (the object of
//! `geo-probe actions`, `shared/spec/data-model.md`, "What to do next").
//!
//! The key decision is that nothing here judges: every item follows from the run's probes by
//! a stated rule, carries the ids of the probes behind it (`probeIds`) and is sorted by a
//! stated key, so the web app's Actions page, the Markdown report, the CLI and the MCP tool
//! show the same list for the same data, and a test can check each item against its rule.
//!
//! - `lost`: the prompts the brand loses to a competitor (`lostPrompts`).
//! - `queries`: every search the engine ran, folded, with the domains it brought back and
//!   whether an owned or a competitor page was among them (`queries`).
//! - `pages`: the third-party pages retrieved for the lost prompts (`pages`).
//! - `links`: the counts of the run's answer-link check (`geo-probe links`), with the
//!   answer links that do not exist and the probes that wrote them.
//! - `wrong_facts`: the facts of the run's fact sheet that answers contradict, with the
//!   pages behind the contradicting sentences (`wrongFacts`).
//! - `status`: against another run (by default the run's `previousRunId`), whether each
//!   item is new, still open or solved.
//! - [`check`]: the link checker's decisions (which request next, what a reply means), a
//!   sans-IO state machine the CLI drives with real HTTP; [`address`]: the rule "is this
//!   address public" it and the CLI's resolver share (no request to a private address).
//! - [`markdown`]: the sections in Markdown (zh and en), for `--format markdown` and the report.
//!
//! - `compute`: the rules composed, for one run against another ([`compute_actions`]) or over
//!   an export ([`actions_for_export`]).
//!
//! This file holds the vocabulary the rules share (the rows, [`RunInput`], the prepared run)
//! and no rule: the rules import it, and it imports none of them back.
//!
//! Every rule reads successful probes only, like every figure of `metrics`.

pub mod address;
pub mod check;
mod compute;
mod lost;
pub mod markdown;
mod pages;
mod queries;
mod status;
mod wrong_facts;

pub use compute::{actions_against, actions_for_export, compute_actions, own_actions, OwnActions};
pub use markdown::{actions_markdown, links_counts_line};
pub use queries::fold_query;
pub use status::ItemKeys;

use crate::analysis::sources::GROUNDING_REDIRECT_HOST;
use crate::model::{EngineId, ExportEnvelope, LinkCheck, LinkCounts, Probe, ProbeStatus, Run, TargetKind};
use serde::{Deserialize, Serialize};
use std::fmt;

/// The object of `geo-probe actions` for one run: the contract's fields, then additive extras.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Actions {
    /// The run.
    pub run_id: String,
    /// Its engine.
    pub engine: EngineId,
    /// The prompts the brand loses, by `stake` descending, then `promptId`.
    pub lost_prompts: Vec<LostPrompt>,
    /// Every distinct search query, by `probeCount` descending, then `query`.
    pub queries: Vec<FanOutQuery>,
    /// The third-party pages of the lost prompts, by `probeCount` descending, then `url`.
    pub pages: Vec<PageRow>,
    /// The run's answer-link check by class; `None` when the run has none.
    pub links: Option<LinkCounts>,
    // ---- extras (additive) ----
    /// The run the items are compared with (`None`: no comparison, every `status` is null).
    pub against_id: Option<String>,
    /// The run's successful probes (every rule's universe).
    pub success_count: u32,
    /// Successful probes with at least one search query string: 0 with successful probes
    /// means the engine gives no query strings (Perplexity), not that it never searched.
    pub query_probe_count: u32,
    /// Successful probes with at least one retrieved source.
    pub source_probe_count: u32,
    /// The answer links that do not exist (`not_found`), with the probes that wrote them.
    pub not_found_links: Vec<BrokenLink>,
    /// The facts in the run's fact sheet (`factSnapshot`; 0 without one): with none, no
    /// answer can be checked and `wrongFacts` is empty.
    #[serde(default)]
    pub fact_count: u32,
    /// The facts the answers state wrongly, with the pages behind those sentences, by
    /// `claimCount` descending, then fact-sheet order.
    #[serde(default)]
    pub wrong_facts: Vec<WrongFact>,
    /// What the compared run listed that this run no longer does (`None` without a
    /// comparison).
    pub solved: Option<Solved>,
}

/// A prompt the brand loses: some competitor is named in at least a third of its
/// successful answers and more often than the brand.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LostPrompt {
    /// The prompt.
    pub prompt_id: String,
    /// Its successful probes (the denominator of every rate here).
    pub success_count: u32,
    /// Numerator: its successful probes mentioning the brand; denominator: `successCount`.
    pub brand_mention_rate: f64,
    /// Lower bound of the brand rate's 95 % Wilson interval.
    pub brand_low: f64,
    /// Upper bound of the brand rate's 95 % Wilson interval.
    pub brand_high: f64,
    /// Every competitor named more often than the brand, by rate descending, then `targetId`.
    pub competitors: Vec<CompetitorRate>,
    /// Numerator: its successful probes naming some competitor while the brand is absent or
    /// named after it; denominator: `successCount`.
    pub behind_share: f64,
    /// Probes mentioning the top competitor − probes mentioning the brand (the visibility
    /// at stake: the rate gap × successful probes).
    pub stake: u32,
    // ---- extras ----
    /// Its successful probes mentioning the brand.
    pub brand_mention_count: u32,
    /// Numerator: the sum of the brand's `listPosition` where it has one; denominator: those
    /// mentions (`None` when none).
    pub brand_avg_list_position: Option<f64>,
    /// New or still open against the compared run (`None` without a comparison).
    pub status: Option<ItemStatus>,
    /// The evidence: the probes counted in `behindShare`, in probe order.
    pub probe_ids: Vec<String>,
}

/// One competitor of a [`LostPrompt`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CompetitorRate {
    /// The competitor.
    pub target_id: String,
    /// Numerator: the prompt's successful probes mentioning it; denominator: its successful probes.
    pub mention_rate: f64,
    /// Numerator: the sum of its `listPosition` over its mentions that have one;
    /// denominator: those mentions (`None` when none).
    pub avg_list_position: Option<f64>,
    /// Extra: the prompt's successful probes mentioning it.
    pub mention_count: u32,
}

/// One distinct search query of a run (query fan-out).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FanOutQuery {
    /// The query, folded ([`fold_query`]: NFKC, lower case, white space runs to one space).
    pub query: String,
    /// Successful probes that ran it (once per probe).
    pub probe_count: u32,
    /// The prompts of those probes, in `promptSnapshot` order.
    pub prompt_ids: Vec<String>,
    /// The registrable domains of the sources it returned in those probes, sorted.
    pub domains: Vec<String>,
    /// Whether one of those sources is owned.
    pub owned: bool,
    /// Whether one of those sources is a competitor's.
    pub competitor: bool,
    // ---- extras ----
    /// Against the compared run: `new`/`open` for a query without an owned source,
    /// `solved` for one that now has an owned source and had none then (`None` otherwise).
    pub status: Option<ItemStatus>,
    /// The evidence: the probes that ran it, in probe order.
    pub probe_ids: Vec<String>,
}

/// A third-party page retrieved for the lost prompts: a page to be on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PageRow {
    /// The canonical URL (for a Gemini grounding redirect: the publisher's domain, see
    /// `byDomain`).
    pub url: String,
    /// Registrable domain.
    pub domain: String,
    /// Successful probes of lost prompts retrieving it.
    pub probe_count: u32,
    /// Those where it is a Cited Source (0 without citation data).
    pub cited_count: u32,
    /// Whether one of those sources names a competitor in its title.
    pub names_competitor: bool,
    /// Whether one of those sources names the brand in its title.
    pub names_brand: bool,
    // ---- extras ----
    /// True for Gemini's grounding redirects: opaque per answer, so aggregated by the
    /// publisher's domain only (`url` is then that domain).
    pub by_domain: bool,
    /// The longest title seen (ties: the first in code-point order).
    pub title: String,
    /// New or still open against the compared run (`None` without a comparison).
    pub status: Option<ItemStatus>,
    /// The evidence: the probes retrieving it, in probe order.
    pub probe_ids: Vec<String>,
}

/// A fact of the run's fact sheet that some answers contradict (data-model.md, "What the
/// answers say": a claim with the verdict `contradicts`), with the pages behind those
/// sentences: the pages to get corrected.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WrongFact {
    /// The fact.
    pub fact_id: String,
    /// Its target (the brand or a competitor).
    pub target_id: String,
    /// Its label.
    pub label: String,
    /// Contradicting claims on it in the run's successful probes (one per sentence).
    pub claim_count: u32,
    /// Successful probes with at least one of them.
    pub probe_count: u32,
    /// The values those sentences state, as written, each once, in order of appearance.
    pub values: Vec<String>,
    /// Contradicting claims with no source behind their sentence (no citation names it).
    pub unsourced_count: u32,
    /// The pages behind the contradicting sentences, by `claimCount` descending, then `url`.
    pub pages: Vec<WrongFactPage>,
    /// New or still open against the compared run (`None` without a comparison).
    pub status: Option<ItemStatus>,
    /// The evidence: the probes with a contradicting claim on it, in probe order.
    pub probe_ids: Vec<String>,
}

/// A page behind contradicting sentences about one fact.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WrongFactPage {
    /// The canonical URL (for a Gemini grounding redirect: the publisher's domain).
    pub url: String,
    /// Registrable domain.
    pub domain: String,
    /// Contradicting claims on the fact whose sentence this page is behind.
    pub claim_count: u32,
    /// Whether the answers cite it (one of its sources behind those claims is a Cited
    /// Source).
    pub cited: bool,
    /// True for Gemini's grounding redirects, grouped by the publisher's domain (`url` is
    /// then that domain).
    pub by_domain: bool,
    /// The longest title seen (ties: the first in code-point order).
    pub title: String,
    /// The evidence: the probes of those claims, in probe order.
    pub probe_ids: Vec<String>,
}

/// An answer link that does not exist, with the answers that wrote it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BrokenLink {
    /// The link as checked.
    pub url: String,
    /// The last response's status (404 or 410).
    pub status: Option<u16>,
    /// The successful probes with this canonical URL among their answer links, in probe order.
    pub probe_ids: Vec<String>,
}

/// Where an item stands against the compared run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ItemStatus {
    /// Not an item of the compared run.
    New,
    /// Also an item of the compared run: still to do.
    Open,
    /// An item of the compared run that this run no longer has.
    Solved,
}

impl ItemStatus {
    /// The wire name (`new`, `open`, `solved`).
    pub fn as_str(self) -> &'static str {
        match self {
            ItemStatus::New => "new",
            ItemStatus::Open => "open",
            ItemStatus::Solved => "solved",
        }
    }
}

/// The items of the compared run that are done in this one.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Solved {
    /// Prompts lost then that this run asked (with successful probes) and does not lose.
    pub lost_prompts: Vec<String>,
    /// Queries without an owned source then that now bring one back.
    pub queries: Vec<String>,
    /// Pages to be on then that are not now.
    pub pages: Vec<String>,
    /// Facts contradicted then that this run's answers speak to (with a claim on them)
    /// without contradicting them.
    #[serde(default)]
    pub wrong_facts: Vec<String>,
}

/// One run as the rules read it: the run, its probes (any order, any status; probes of other
/// runs are ignored) and its answer-link check.
#[derive(Debug, Clone, Copy)]
pub struct RunInput<'a> {
    /// The run.
    pub run: &'a Run,
    /// Its probes.
    pub probes: &'a [&'a Probe],
    /// Its `linkChecks` record, if any.
    pub link_check: Option<&'a LinkCheck>,
}

/// What every rule needs of a run: its successful probes in probe order (prompt position in
/// the snapshot, then repeat, then id), the brand and the competitors.
pub(crate) struct Prepared<'a> {
    pub(crate) run: &'a Run,
    pub(crate) probes: Vec<&'a Probe>,
    pub(crate) brand: Option<&'a str>,
    pub(crate) competitors: Vec<&'a str>,
}

impl<'a> Prepared<'a> {
    fn new(run: &'a Run, probes: &[&'a Probe]) -> Prepared<'a> {
        let mut ok: Vec<&Probe> =
            probes.iter().copied().filter(|p| p.run_id == run.id && p.status == ProbeStatus::Success).collect();
        crate::sort::sort_by_cached_key(&mut ok, |p| {
            (prompt_position(run, &p.prompt_id), p.prompt_id.clone(), p.repeat_index, p.id.clone())
        });
        let brand = run.alias_snapshot.iter().find(|t| t.kind == TargetKind::Brand).map(|t| t.id.as_str());
        let mut competitors: Vec<&str> = Vec::new();
        for t in run.alias_snapshot.iter().filter(|t| t.kind == TargetKind::Competitor) {
            if Some(t.id.as_str()) != brand && !competitors.contains(&t.id.as_str()) {
                competitors.push(&t.id);
            }
        }
        Prepared { run, probes: ok, brand, competitors }
    }
}

/// The position of a prompt in the run's `promptSnapshot` (its first entry); prompts
/// outside it after every prompt of it.
pub(crate) fn prompt_position(run: &Run, prompt_id: &str) -> usize {
    run.prompt_snapshot.iter().position(|p| p.id == prompt_id).unwrap_or(usize::MAX)
}

/// Whether a source URL is one of Gemini's grounding redirects (opaque per answer).
pub(crate) fn is_grounding_redirect(url: &str) -> bool {
    let rest = url.strip_prefix("https://").or_else(|| url.strip_prefix("http://")).unwrap_or("");
    let host = rest.split(['/', '?', '#']).next().unwrap_or("");
    host.eq_ignore_ascii_case(GROUNDING_REDIRECT_HOST)
}

/// Why actions could not be computed; each message says what to pass instead.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ActionsError {
    /// A run id asked for (`--run` or `--against`) is not in the export.
    UnknownRun {
        /// The id asked for.
        run_id: String,
        /// Up to ten run ids the export does hold, newest first.
        available: Vec<String>,
    },
    /// The export holds no runs.
    NoRuns,
}

impl fmt::Display for ActionsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ActionsError::UnknownRun { run_id, available } => {
                crate::model::write_not_in_export(f, "run", run_id, available)
            }
            ActionsError::NoRuns => {
                write!(f, "the export has no runs: start one with `geo-probe run` and export it")
            }
        }
    }
}

impl std::error::Error for ActionsError {}

pub(crate) fn find<'a>(env: &'a ExportEnvelope, id: &str) -> Result<&'a Run, ActionsError> {
    env.run(id).ok_or_else(|| ActionsError::UnknownRun {
        run_id: id.to_string(),
        available: env.runs_in_order().iter().rev().take(10).map(|r| r.id.clone()).collect(),
    })
}

/// The run a report over an export reads: `run_id`, else the newest completed or partial run,
/// else the newest run ([`crate::export::default_run`]).
pub(crate) fn run_or_default<'a>(env: &'a ExportEnvelope, run_id: Option<&str>) -> Result<&'a Run, ActionsError> {
    match run_id {
        Some(id) => find(env, id),
        None => crate::export::default_run(env).ok_or(ActionsError::NoRuns),
    }
}
