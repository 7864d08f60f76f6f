//! New, still open or solved: each item of a run against the same items of another run
//! (by default its `previousRunId`, as `geo-probe diff` compares).
//!
//! - A lost prompt is `open` when the other run lost it too, else `new`; a prompt the other
//!   run lost that this run asked (with successful probes) and does not lose is solved.
//! - A query without an owned source is `open` when the other run ran it without one too,
//!   else `new`; a query the other run ran without an owned source that now brings one back
//!   is `solved` (its row says so and it is listed as solved). A query this run did not run
//!   is neither: the engine's searches vary, so its absence proves nothing.
//! - A page to be on is `open` when it was one then too, else `new`; a page to be on then
//!   that is not one now is solved.
//! - A wrong fact is `open` when the other run's answers contradicted it too, else `new`; a
//!   fact contradicted then that this run's answers speak to (a claim on it) without
//!   contradicting it is solved. A fact no answer speaks to now is neither: silence proves
//!   nothing.

use super::{Actions, ItemStatus, Solved};
use serde::{Deserialize, Serialize};

/// What a comparison needs of the compared run: its id and its items' keys, each list sorted
/// and each key once (plain sorted lists rather than sets: the web bundle holds no set type
/// for them, `docs/adr/0006-wasm-size.md`). A few hundred bytes for a daily run where its
/// [`Actions`] hold every item's rows and evidence, so the web app stores it apart.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ItemKeys {
    /// The compared run.
    pub run_id: String,
    /// Its lost prompt ids.
    pub lost_prompt_ids: Vec<String>,
    /// Its queries without an owned source.
    pub unowned_queries: Vec<String>,
    /// Its pages to be on (their `url`).
    pub pages: Vec<String>,
    /// Its wrong facts (their `factId`).
    pub wrong_fact_ids: Vec<String>,
}

impl ItemKeys {
    /// The keys of the items of `actions` (a run's actions; their statuses play no part).
    pub fn of(actions: &Actions) -> ItemKeys {
        let sorted = |mut list: Vec<String>| {
            crate::sort::sort(&mut list);
            list.dedup();
            list
        };
        ItemKeys {
            run_id: actions.run_id.clone(),
            lost_prompt_ids: sorted(actions.lost_prompts.iter().map(|l| l.prompt_id.clone()).collect()),
            unowned_queries: sorted(actions.queries.iter().filter(|q| !q.owned).map(|q| q.query.clone()).collect()),
            pages: sorted(actions.pages.iter().map(|p| p.url.clone()).collect()),
            wrong_fact_ids: sorted(actions.wrong_facts.iter().map(|f| f.fact_id.clone()).collect()),
        }
    }
}

fn has(list: &[String], item: &str) -> bool {
    list.binary_search_by(|x| x.as_str().cmp(item)).is_ok()
}

fn new_or_open(was: bool) -> Option<ItemStatus> {
    Some(if was { ItemStatus::Open } else { ItemStatus::New })
}

/// Marks each of `items` open when `was` (sorted) holds its key, else new, and returns the
/// keys of `was` that no item holds any more and `judged` accepts, in `was`'s order: the
/// solved ones. The items' keys are looked up in a sorted list, not compared pairwise: a
/// large run has thousands of pages to be on.
fn new_open_solved<T>(
    items: &mut [T],
    was: &[String],
    key: fn(&T) -> &str,
    status: fn(&mut T) -> &mut Option<ItemStatus>,
    judged: impl Fn(&str) -> bool,
) -> Vec<String> {
    for item in items.iter_mut() {
        *status(item) = new_or_open(has(was, key(item)));
    }
    let mut now: Vec<&str> = items.iter().map(key).collect();
    crate::sort::sort(&mut now);
    was.iter().filter(|k| now.binary_search(&k.as_str()).is_err() && judged(k)).cloned().collect()
}

/// Sets every item's status in `actions` and lists what was solved; `asked` and `claimed`
/// (sorted) are the prompts of the run's successful probes and the facts they speak to.
pub(crate) fn mark(actions: &mut Actions, asked: &[String], claimed: &[String], previous: &ItemKeys) {
    let mut solved = Solved::default();
    for q in &mut actions.queries {
        let was_open = has(&previous.unowned_queries, &q.query);
        q.status = match (q.owned, was_open) {
            (false, was) => new_or_open(was),
            (true, true) => {
                solved.queries.push(q.query.clone());
                Some(ItemStatus::Solved)
            }
            (true, false) => None,
        };
    }
    crate::sort::sort(&mut solved.queries);
    solved.lost_prompts = new_open_solved(
        &mut actions.lost_prompts,
        &previous.lost_prompt_ids,
        |l| &l.prompt_id,
        |l| &mut l.status,
        |id| has(asked, id),
    );
    solved.pages = new_open_solved(&mut actions.pages, &previous.pages, |p| &p.url, |p| &mut p.status, |_| true);
    solved.wrong_facts = new_open_solved(
        &mut actions.wrong_facts,
        &previous.wrong_fact_ids,
        |f| &f.fact_id,
        |f| &mut f.status,
        |id| has(claimed, id),
    );
    actions.solved = Some(solved);
}
