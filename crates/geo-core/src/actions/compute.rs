//! The rules of `actions` composed: [`compute_actions`] for one run (against another) and
//! [`actions_for_export`] over an export, as `geo-probe actions` runs them.

use super::{
    find, lost, pages, queries, run_or_default, status, wrong_facts, Actions, ActionsError, BrokenLink, LinkCounts,
    Prepared, RunInput,
};
use crate::model::{ExportEnvelope, LinkCheck, LinkClass, Probe, Run};

/// The actions of `current`, compared with `against` when given.
pub fn compute_actions(current: RunInput<'_>, against: Option<RunInput<'_>>) -> Actions {
    let prepared = Prepared::new(current.run, current.probes);
    let lost_prompts = lost::lost_prompts(&prepared);
    let queries = queries::queries(&prepared);
    let pages = pages::pages(&prepared, &lost_prompts);
    let links = current.link_check.map(LinkCounts::of);
    let not_found_links = current.link_check.map_or_else(Vec::new, |c| broken_links(&prepared, c));
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
    let fact_count = current.run.fact_snapshot.as_ref().map_or(0, |s| s.facts.len()) as u32;
    let mut actions = Actions {
        run_id: current.run.id.clone(),
        engine: current.run.config.engine,
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
        wrong_facts: wrong_facts::wrong_facts(&prepared),
        solved: None,
    };
    if let Some(other) = against {
        let before = Prepared::new(other.run, other.probes);
        let lost_before = lost::lost_prompts(&before);
        let previous = status::Previous::new(
            lost_before.iter().map(|l| l.prompt_id.clone()).collect(),
            queries::queries(&before).into_iter().filter(|q| !q.owned).map(|q| q.query).collect(),
            pages::pages(&before, &lost_before).into_iter().map(|p| p.url).collect(),
            wrong_facts::wrong_facts(&before).into_iter().map(|f| f.fact_id).collect(),
        );
        status::mark(&mut actions, &prepared, &previous);
        actions.against_id = Some(other.run.id.clone());
    }
    actions
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
