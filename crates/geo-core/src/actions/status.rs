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

use super::{Actions, ItemStatus, Prepared, Solved};

/// The items of the compared run, each list sorted (plain sorted lists rather than sets: the
/// web bundle holds no set type for them, `docs/adr/0006-wasm-size.md`).
pub(crate) struct Previous {
    /// Its lost prompt ids.
    pub(crate) lost: Vec<String>,
    /// Its queries without an owned source.
    pub(crate) unowned_queries: Vec<String>,
    /// Its pages to be on (their `url`).
    pub(crate) pages: Vec<String>,
    /// Its wrong facts (their `factId`).
    pub(crate) wrong_facts: Vec<String>,
}

impl Previous {
    /// The compared run's items from its lists (sorted here).
    pub(crate) fn new(
        mut lost: Vec<String>,
        mut unowned_queries: Vec<String>,
        mut pages: Vec<String>,
        mut wrong_facts: Vec<String>,
    ) -> Previous {
        for list in [&mut lost, &mut unowned_queries, &mut pages, &mut wrong_facts] {
            crate::sort::sort(list);
            list.dedup();
        }
        Previous { lost, unowned_queries, pages, wrong_facts }
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
/// solved ones.
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
    was.iter().filter(|k| items.iter().all(|i| key(i) != k.as_str()) && judged(k)).cloned().collect()
}

/// Sets every item's status in `actions` and lists what was solved.
pub(crate) fn mark(actions: &mut Actions, run: &Prepared<'_>, previous: &Previous) {
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
        &previous.lost,
        |l| &l.prompt_id,
        |l| &mut l.status,
        |id| run.probes.iter().any(|p| p.prompt_id == id),
    );
    solved.pages = new_open_solved(&mut actions.pages, &previous.pages, |p| &p.url, |p| &mut p.status, |_| true);
    solved.wrong_facts = new_open_solved(
        &mut actions.wrong_facts,
        &previous.wrong_facts,
        |f| &f.fact_id,
        |f| &mut f.status,
        |id| run.probes.iter().any(|p| p.claims.iter().any(|c| c.fact_id == id)),
    );
    actions.solved = Some(solved);
}
