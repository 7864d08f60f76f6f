//! [`ListsAcc`]: list-order stability — per prompt, the mean pairwise RBO (p = 0.9) of the
//! parsed list titles of its successful probes with a list, and the mean of that over the
//! prompts that have one.

use super::{Ctx, IdLists};
use crate::metrics::stats::{mean, mean_pairwise_rbo_ids, RboScratch, RBO_P};
use crate::metrics::{FastMap, Key};
use crate::model::{ListItem, Probe};
use crate::text::normalize_for_match_into;

/// Folded list titles interned as ids, and each prompt's lists of ids.
#[derive(Default)]
pub(crate) struct ListsAcc<'a> {
    /// Folded title → id.
    title_ids: FastMap<String, u32>,
    /// The same for titles as written, so a title seen before is neither trimmed nor folded again.
    title_ids_raw: FastMap<Key<'a>, u32>,
    /// By prompt index: the lists of its successful probes with a list.
    lists: Vec<IdLists>,
    /// Indexed by title id: whether the title is already in `list`.
    title_in_list: Vec<bool>,
    folded: String,
    items: Vec<&'a ListItem>,
    list: Vec<u32>,
}

/// The list figures of a run.
pub(crate) struct ListFigures {
    /// By prompt index: its list stability.
    pub(crate) by_prompt: Vec<Option<f64>>,
    pub(crate) list_stability: Option<f64>,
    pub(crate) prompt_count: u32,
}

impl<'a> ListsAcc<'a> {
    /// Adds a successful probe: its titles folded and interned, by position (a stable sort,
    /// skipped when the items are in order already), repeats dropped (RBO keeps an item's
    /// first rank).
    pub(crate) fn add(&mut self, probe: &'a Probe, ctx: &Ctx<'a>) {
        if probe.list_items.is_empty() {
            return;
        }
        self.items.clear();
        self.items.extend(probe.list_items.iter());
        if !probe.list_items.is_sorted_by_key(|i| i.position) {
            crate::sort::sort_by_key(&mut self.items, |i| i.position);
        }
        self.list.clear();
        for item in &self.items {
            let (title_ids, folded, title_in_list) = (&mut self.title_ids, &mut self.folded, &mut self.title_in_list);
            let id = *self.title_ids_raw.entry(Key(&item.title)).or_insert_with(|| {
                normalize_for_match_into(item.title.trim(), folded);
                match title_ids.get(folded.as_str()) {
                    Some(&id) => id,
                    None => {
                        let id = title_ids.len() as u32;
                        title_ids.insert(folded.clone(), id);
                        title_in_list.push(false);
                        id
                    }
                }
            });
            if !self.title_in_list[id as usize] {
                self.title_in_list[id as usize] = true;
                self.list.push(id);
            }
        }
        for &id in &self.list {
            self.title_in_list[id as usize] = false;
        }
        if self.lists.len() <= ctx.prompt {
            self.lists.resize_with(ctx.prompt + 1, IdLists::default);
        }
        self.lists[ctx.prompt].push(&self.list);
    }

    /// The figures, for prompts in `order` (indices of [`Ctx::prompts`]).
    pub(crate) fn finish(self, ctx: &Ctx<'a>, order: &[usize]) -> ListFigures {
        let mut scratch = RboScratch::default();
        let empty = IdLists::default();
        let mut by_prompt = vec![None; ctx.prompts.len()];
        let mut scores = Vec::new();
        for &p in order {
            let lists = self.lists.get(p).unwrap_or(&empty);
            let s = mean_pairwise_rbo_ids(&lists.slices(), RBO_P, &mut scratch);
            by_prompt[p] = s;
            scores.extend(s);
        }
        ListFigures { by_prompt, list_stability: mean(&scores), prompt_count: scores.len() as u32 }
    }
}
