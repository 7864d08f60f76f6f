//! What the lists page shows of a run's probes besides its metrics: the brand's list
//! position in each probe, by prompt and repeat, and the successful probes in the order the
//! page lists their parsed lists.
//!
//! Computed once from the run's probes with its metrics (the web app stores them beside the
//! run's summary, `docs/adr/0023-stored-page-figures.md`), so the page reads one record and
//! the 50 probes it shows instead of every probe of the run.

use super::RunMetrics;
use crate::model::{Probe, ProbeStatus, Run};
use serde::{Deserialize, Serialize};

/// The brand's list positions of a run and the order of its listed probes.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListPositions {
    /// One row per prompt of the run's metrics (`prompts`, in their order).
    pub prompts: Vec<PromptPositions>,
    /// The ids of the successful probes in those rows' cells, by row, then repeat: the
    /// probes whose lists the page shows, in its order.
    pub listed: Vec<String>,
    /// Whether some successful probe of the run has a parsed list.
    pub has_lists: bool,
}

/// A prompt's row: one cell per repeat the run planned (`config.repeats`, at least one).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PromptPositions {
    /// The prompt.
    pub prompt_id: String,
    /// The cell of each repeat, in repeat order.
    pub cells: Vec<PositionCell>,
}

/// What one repeat of a prompt says about the brand's place in its list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum PositionCell {
    /// The run holds no probe of this repeat.
    NoProbe,
    /// Its probe did not succeed.
    Failed,
    /// Its probe succeeded without the brand in its list (no brand mention with a
    /// `listPosition`).
    NotListed,
    /// The brand's `listPosition` in its probe.
    At(u32),
}

/// The [`ListPositions`] of `run` from its `probes` (those of other runs are ignored) and
/// its `metrics` (the rows and the brand). A repeat with two probes (an imported file can
/// hold them) shows the one whose id sorts last; a repeat beyond `config.repeats` has no cell.
pub fn list_positions(run: &Run, probes: &[&Probe], metrics: &RunMetrics) -> ListPositions {
    let repeats = run.config.repeats.max(1) as usize;
    let mut slots: super::FastMap<&str, Vec<Option<&Probe>>> = super::FastMap::default();
    for &p in probes.iter().filter(|p| p.run_id == run.id) {
        let row = slots.entry(p.prompt_id.as_str()).or_insert_with(|| vec![None; repeats]);
        if let Some(slot) = row.get_mut(p.repeat_index as usize) {
            if slot.is_none_or(|held| held.id < p.id) {
                *slot = Some(p);
            }
        }
    }
    let brand = metrics.brand_id.as_deref();
    let mut out = ListPositions {
        has_lists: probes
            .iter()
            .any(|p| p.run_id == run.id && p.status == ProbeStatus::Success && !p.list_items.is_empty()),
        ..ListPositions::default()
    };
    for pm in &metrics.prompts {
        let row = slots.get(pm.prompt_id.as_str());
        let cells = (0..repeats)
            .map(|r| match row.and_then(|v| v[r]) {
                None => PositionCell::NoProbe,
                Some(p) if p.status != ProbeStatus::Success => PositionCell::Failed,
                Some(p) => {
                    out.listed.push(p.id.clone());
                    let at =
                        p.mentions.iter().find(|m| Some(m.target_id.as_str()) == brand).and_then(|m| m.list_position);
                    at.map_or(PositionCell::NotListed, PositionCell::At)
                }
            })
            .collect();
        out.prompts.push(PromptPositions { prompt_id: pm.prompt_id.clone(), cells });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn run(id: &str) -> Run {
        serde_json::from_value(json!({
            "id": id, "projectId": "p", "status": "completed", "createdAt": "t",
            "config": {"model": "m", "repeats": 3, "concurrency": 1, "maxSearches": 1, "maxTokens": 1,
                       "temperature": 1, "systemPromptVersion": "v"},
            "aliasSnapshot": [{"id": "b", "kind": "brand", "label": "B", "aliases": ["B"]}],
            "promptSnapshot": [{"id": "q1", "projectId": "p", "text": "one", "createdAt": "t", "updatedAt": "t"},
                               {"id": "q2", "projectId": "p", "text": "two", "createdAt": "t", "updatedAt": "t"}]
        }))
        .unwrap()
    }

    /// A probe of `run`; `brand`: none, the brand named without a list position, or at one.
    fn probe(id: &str, run: &str, prompt: &str, repeat: u32, status: &str, brand: Option<Option<u32>>) -> Probe {
        let mentions = match brand {
            None => json!([]),
            Some(at) => json!([{"targetId": "b", "count": 1, "order": 1, "firstIndex": 0, "listPosition": at}]),
        };
        let list =
            if brand.flatten().is_some() { json!([{"position": 1, "title": "B", "text": "B"}]) } else { json!([]) };
        serde_json::from_value(json!({
            "id": id, "runId": run, "projectId": "p", "promptId": prompt, "repeatIndex": repeat, "status": status,
            "createdAt": "t", "rawAnswer": "x", "answer": "x", "mentions": mentions, "listItems": list
        }))
        .unwrap()
    }

    #[test]
    fn each_repeat_says_where_the_brand_stands_and_the_successes_are_listed_in_order() {
        use PositionCell::*;
        let r = run("r");
        let probes = [
            probe("r__q2__0", "r", "q2", 0, "success", None),
            probe("r__q1__1", "r", "q1", 1, "error", None),
            probe("r__q1__0", "r", "q1", 0, "success", Some(Some(2))),
            probe("r__q2__1", "r", "q2", 1, "success", Some(None)),
            // Two probes of one repeat: the one whose id sorts last.
            probe("r__q2__2b", "r", "q2", 2, "success", Some(Some(1))),
            probe("r__q2__2a", "r", "q2", 2, "empty", None),
            // Beyond the planned repeats, and another run's probe: no cell.
            probe("r__q2__5", "r", "q2", 5, "success", Some(Some(3))),
            probe("s__q1__2", "s", "q1", 2, "success", Some(Some(4))),
        ];
        let refs: Vec<&Probe> = probes.iter().collect();
        let metrics = crate::metrics::compute_run_metrics_refs(&r, &refs, None);
        let got = list_positions(&r, &refs, &metrics);
        let rows: Vec<(&str, &[PositionCell])> =
            got.prompts.iter().map(|p| (p.prompt_id.as_str(), &p.cells[..])).collect();
        assert_eq!(rows, [("q1", &[At(2), Failed, NoProbe][..]), ("q2", &[NotListed, NotListed, At(1)][..])]);
        assert_eq!(got.listed, ["r__q1__0", "r__q2__0", "r__q2__1", "r__q2__2b"]);
        assert!(got.has_lists);
        // Through JSON, as the web app stores it.
        let text = serde_json::to_string(&got).unwrap();
        assert!(text.contains(r#""cells":[{"at":2},"failed","noProbe"]"#), "{text}");
        assert_eq!(crate::json::from_str::<ListPositions>(&text).unwrap(), got);
        // Without a list anywhere, and without a brand: nothing is listed as placed.
        let plain: Vec<&Probe> = refs.iter().copied().filter(|p| p.list_items.is_empty()).collect();
        let mut no_brand = metrics.clone();
        no_brand.brand_id = None;
        let got = list_positions(&r, &plain, &no_brand);
        assert!(!got.has_lists);
        assert!(got.prompts.iter().flat_map(|p| &p.cells).all(|c| !matches!(c, At(_))));
    }
}
