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

/// Sets every item's status in `actions` and lists what was solved; `asked` and `claimed`
/// (sorted) are the prompts of the run's successful probes and the facts they speak to.
pub(crate) fn mark(actions: &mut Actions, asked: &[String], claimed: &[String], previous: &ItemKeys) {
    for l in &mut actions.lost_prompts {
        l.status = new_or_open(has(&previous.lost_prompt_ids, &l.prompt_id));
    }
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
    for p in &mut actions.pages {
        p.status = new_or_open(has(&previous.pages, &p.url));
    }
    solved.lost_prompts = previous
        .lost_prompt_ids
        .iter()
        .filter(|id| actions.lost_prompts.iter().all(|l| &l.prompt_id != *id))
        .filter(|id| has(asked, id))
        .cloned()
        .collect();
    // Thousands of pages on a large run: looked up in a sorted list, not compared pairwise.
    let mut now: Vec<&str> = actions.pages.iter().map(|p| p.url.as_str()).collect();
    crate::sort::sort(&mut now);
    let is_page_now = |u: &str| now.binary_search(&u).is_ok();
    solved.pages = previous.pages.iter().filter(|u| !is_page_now(u)).cloned().collect();
    for f in &mut actions.wrong_facts {
        f.status = new_or_open(has(&previous.wrong_fact_ids, &f.fact_id));
    }
    solved.wrong_facts = previous
        .wrong_fact_ids
        .iter()
        .filter(|id| actions.wrong_facts.iter().all(|f| &f.fact_id != *id))
        .filter(|id| has(claimed, id))
        .cloned()
        .collect();
    actions.solved = Some(solved);
}
