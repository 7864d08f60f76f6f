//! [`EntitiesAcc`]: untracked entities — company-like list titles that match no tracked
//! target (`otherEntities`), counted once per successful probe, folded by case and width.

use super::Ctx;
use crate::metrics::{FastMap, Key, UntrackedEntity};
use crate::model::Probe;
use crate::text::normalize_for_match_into;

/// Entities by first-seen order.
#[derive(Default)]
pub(crate) struct EntitiesAcc<'a> {
    /// (name as first seen, trimmed; successful probes naming it), by first-seen order.
    entities: Vec<(String, u32)>,
    /// Folded name → order.
    orders: FastMap<String, usize>,
    /// The same for names as written (`None`: blank), so a name seen before is neither
    /// trimmed nor folded again.
    orders_raw: FastMap<Key<'a>, Option<usize>>,
    /// The orders counted for the current probe (an order is unique, so it marks "already
    /// counted in this probe").
    here: Vec<usize>,
    folded: String,
}

impl<'a> EntitiesAcc<'a> {
    /// Adds a successful probe.
    pub(crate) fn add(&mut self, probe: &'a Probe, _ctx: &Ctx<'a>) {
        self.here.clear();
        for name in &probe.other_entities {
            let (entities, orders, folded) = (&mut self.entities, &mut self.orders, &mut self.folded);
            let order = *self.orders_raw.entry(Key(name)).or_insert_with(|| {
                let trimmed = name.trim();
                if trimmed.is_empty() {
                    return None;
                }
                normalize_for_match_into(trimmed, folded);
                Some(match orders.get(folded.as_str()) {
                    Some(&order) => order,
                    None => {
                        let order = entities.len();
                        orders.insert(folded.clone(), order);
                        entities.push((trimmed.to_string(), 0));
                        order
                    }
                })
            });
            if let Some(order) = order {
                if !self.here.contains(&order) {
                    self.entities[order].1 += 1;
                    self.here.push(order);
                }
            }
        }
    }

    /// By count descending, then name, then first seen.
    pub(crate) fn finish(self) -> Vec<UntrackedEntity> {
        let mut untracked: Vec<(String, u32, usize)> =
            self.entities.into_iter().enumerate().map(|(order, (name, count))| (name, count, order)).collect();
        crate::sort::sort_by(&mut untracked, |a, b| {
            b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)).then_with(|| a.2.cmp(&b.2))
        });
        untracked.into_iter().map(|(name, count, _)| UntrackedEntity { name, count }).collect()
    }
}
