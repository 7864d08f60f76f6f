//! The rules of `actions` composed: [`compute_actions`] for one run (against another) and
//! [`actions_for_export`] over an export, as `geo-probe actions` runs them.
//!
//! A comparison needs of the current run its own items and two lists of its own
//! ([`OwnActions`]), and of the compared run only its items' keys ([`ItemKeys`]), so
//! [`compute_actions`] is [`own_actions`] of both runs set against each other by
//! [`actions_against`]: the web app stores each run's [`OwnActions`] and [`ItemKeys`] beside
//! it and compares two stored records, with no probe read, the very same way.

use super::status::ItemKeys;
use super::{
    find, lost, pages, queries, run_or_default, status, wrong_facts, Actions, ActionsError, BrokenLink, LinkCounts,
    Prepared, RunInput,
};
use crate::model::{ExportEnvelope, LinkCheck, LinkClass, Probe, Run};
use serde::{Deserialize, Serialize};

/// The actions of `current`, compared with `against` when given.
pub fn compute_actions(current: RunInput<'_>, against: Option<RunInput<'_>>) -> Actions {
    let keys = against.map(|a| ItemKeys::of(&own_actions(a).actions));
    actions_against(own_actions(current), keys.as_ref())
}

/// A run's actions on their own (every `status` null, no `againstId`, no `solved`), with
/// what comparing a run with it, or it with another run, needs of the run besides its items.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OwnActions {
    /// The run's items, compared with nothing.
    pub actions: Actions,
    /// The prompts of its successful probes, sorted, each once: a prompt lost by the compared
    /// run counts as solved only when this run asked it.
    pub asked_prompt_ids: Vec<String>,
    /// The facts its successful answers speak to (a claim on them, any verdict), sorted, each
    /// once: a fact contradicted then counts as solved only when this run speaks to it.
    pub claimed_fact_ids: Vec<String>,
}

/// [`OwnActions`] of `run`.
pub fn own_actions(run: RunInput<'_>) -> OwnActions {
    let prepared = Prepared::new(run.run, run.probes);
    let sorted = |ids: Vec<&str>| {
        let mut ids: Vec<String> = ids.into_iter().map(str::to_string).collect();
        crate::sort::sort(&mut ids);
        ids.dedup();
        ids
    };
    let asked_prompt_ids = sorted(prepared.probes.iter().map(|p| p.prompt_id.as_str()).collect());
    let claimed_fact_ids =
        sorted(prepared.probes.iter().flat_map(|p| p.claims.iter().map(|c| c.fact_id.as_str())).collect());
    OwnActions { actions: items(&prepared, run.link_check), asked_prompt_ids, claimed_fact_ids }
}

/// The actions of `current`'s run compared with the run whose item keys are `against`
/// (each item new, still open or solved, and what was solved), as [`compute_actions`] gives
/// them.
pub fn actions_against(current: OwnActions, against: Option<&ItemKeys>) -> Actions {
    let OwnActions { mut actions, asked_prompt_ids, claimed_fact_ids } = current;
    if let Some(before) = against {
        status::mark(&mut actions, &asked_prompt_ids, &claimed_fact_ids, before);
        actions.against_id = Some(before.run_id.clone());
    }
    actions
}

/// The items of a prepared run, compared with nothing.
fn items(prepared: &Prepared<'_>, link_check: Option<&LinkCheck>) -> Actions {
    let run = prepared.run;
    let lost_prompts = lost::lost_prompts(prepared);
    let queries = queries::queries(prepared);
    let pages = pages::pages(prepared, &lost_prompts);
    let links = link_check.map(LinkCounts::of);
    let not_found_links = link_check.map_or_else(Vec::new, |c| broken_links(prepared, c));
    let query_probe_count = prepared
        .probes
        .iter()
        .filter(|p| {
            p.queries
                .iter()
                .any(|q| q.query.as_deref().is_some_and(|t| !q.internal && !queries::fold_query(t).is_empty()))
        })
        .count() as u32;
    let source_probe_count = prepared.probes.iter().filter(|p| !p.sources.is_empty()).count() as u32;
    let fact_count = run.fact_snapshot.as_ref().map_or(0, |s| s.facts.len()) as u32;
    Actions {
        run_id: run.id.clone(),
        engine: run.config.engine,
        lost_prompts,
        queries,
        pages,
        links,
        against_id: None,
        success_count: prepared.probes.len() as u32,
        query_probe_count,
        source_probe_count,
        not_found_links,
        fact_count,
        wrong_facts: wrong_facts::wrong_facts(prepared),
        solved: None,
    }
}

/// The `not_found` links of `check` with the successful probes that wrote them.
fn broken_links(prepared: &Prepared<'_>, check: &LinkCheck) -> Vec<BrokenLink> {
    let mut out: Vec<BrokenLink> = check
        .links
        .iter()
        .filter(|l| l.class == LinkClass::NotFound)
        .map(|l| BrokenLink {
            url: l.url.clone(),
            status: l.status,
            probe_ids: prepared
                .probes
                .iter()
                .filter(|p| p.answer_links.iter().any(|a| a.canonical_url == l.url))
                .map(|p| p.id.clone())
                .collect(),
        })
        .collect();
    crate::sort::sort_by(&mut out, |a, b| b.probe_ids.len().cmp(&a.probe_ids.len()).then_with(|| a.url.cmp(&b.url)));
    out
}

/// `geo-probe actions` over an export: run `run_id` (default: the newest completed or partial
/// run, else the newest run) compared with `against_id` (default: the run's `previousRunId`
/// when the export holds it; no comparison otherwise).
pub fn actions_for_export(
    env: &ExportEnvelope,
    run_id: Option<&str>,
    against_id: Option<&str>,
) -> Result<Actions, ActionsError> {
    let run = run_or_default(env, run_id)?;
    let against = match against_id {
        Some(id) => Some(find(env, id)?),
        None => run.previous_run_id.as_deref().and_then(|p| env.run(p)),
    };
    let input = |run: &Run| -> (Vec<&Probe>, Option<&LinkCheck>) {
        (env.probes_of(&run.id).collect(), env.link_check(&run.id))
    };
    let (mine, my_check) = input(run);
    let current = RunInput { run, probes: &mine, link_check: my_check };
    Ok(match against {
        Some(other) => {
            let (theirs, their_check) = input(other);
            compute_actions(current, Some(RunInput { run: other, probes: &theirs, link_check: their_check }))
        }
        None => compute_actions(current, None),
    })
}
