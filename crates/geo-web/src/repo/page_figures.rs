//! What the lists and Actions pages read of a run besides its metrics
//! (`docs/adr/0023-stored-page-figures.md`): the run's [`PageFigures`], computed by geo-core
//! with the run's summary and stored beside it in `runPages` ([`StoredPart`]), kept by the
//! rules of [`super::summaries`].

use geo_core::actions::{ItemKeys, OwnActions};
use geo_core::metrics::ListPositions;
use geo_core::model::Run;

/// What the lists and Actions pages read of one run besides its metrics, computed by
/// geo-core from the run's probes (`docs/adr/0023-stored-page-figures.md`): nothing in it
/// depends on another run, so a write to a run changes its own figures only.
#[derive(Debug, Clone, PartialEq)]
pub struct PageFigures {
    /// The brand's list positions by prompt and repeat, and the listed probes' order.
    pub positions: ListPositions,
    /// The run's own actions; the page sets them against the previous run's item keys.
    pub actions: OwnActions,
    /// The keys of the run's items: what the page reads of the run when it is the previous
    /// run of the one shown.
    pub keys: ItemKeys,
}

/// A record of the `runPages` store: one part of a run's [`PageFigures`] as its JSON text.
///
/// One record per part, so a page reads only the part it shows: a 5,000-probe run's own
/// actions are 2.7 MB (tens of thousands of evidence ids), which the browser keeps in a file
/// of their own and reads in tens of milliseconds, while its positions are 0.2 MB and its
/// item keys less. As text, a read copies one string instead of cloning an object of that many
/// parts out of IndexedDB and serialising it again for serde.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StoredPart {
    /// The key: [`PagePart::key`] of the run.
    pub id: String,
    /// The run.
    pub run_id: String,
    /// Its project (indexed, for the cascade delete).
    pub project_id: String,
    /// The part as JSON.
    pub text: String,
}

/// A part of a run's [`PageFigures`], each stored as a [`StoredPart`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PagePart {
    /// [`PageFigures::positions`] (the lists page).
    Positions,
    /// [`PageFigures::actions`] (the Actions page, of the shown run).
    Actions,
    /// [`PageFigures::keys`] (the Actions page, of the previous run).
    Keys,
}

impl PagePart {
    /// Every part.
    pub const ALL: [PagePart; 3] = [PagePart::Positions, PagePart::Actions, PagePart::Keys];

    /// The key of run `run_id`'s record of this part (`positions:ID`; the part's name holds
    /// no colon, so the key names one run and one part).
    pub fn key(self, run_id: &str) -> String {
        let name = match self {
            PagePart::Positions => "positions",
            PagePart::Actions => "actions",
            PagePart::Keys => "keys",
        };
        format!("{name}:{run_id}")
    }
}

impl PageFigures {
    /// The records of `run`'s figures, in [`PagePart::ALL`]'s order.
    pub fn records(&self, run: &Run) -> Vec<StoredPart> {
        // Plain structs of strings, numbers and lists: writing them as JSON cannot fail.
        fn text<T: serde::Serialize>(value: &T) -> String {
            serde_json::to_string(value).unwrap_or_default()
        }
        let texts = [text(&self.positions), text(&self.actions), text(&self.keys)];
        PagePart::ALL
            .into_iter()
            .zip(texts)
            .map(|(part, text)| StoredPart {
                id: part.key(&run.id),
                run_id: run.id.clone(),
                project_id: run.project_id.clone(),
                text,
            })
            .collect()
    }

    /// The figures of a run's records, in [`PagePart::ALL`]'s order.
    pub fn from_records([p, a, k]: [&StoredPart; 3]) -> serde_json::Result<PageFigures> {
        Ok(PageFigures { positions: part(&p.text)?, actions: part(&a.text)?, keys: part(&k.text)? })
    }
}

/// One part of a run's figures from its JSON text.
pub fn part<T: serde::de::DeserializeOwned>(text: &str) -> serde_json::Result<T> {
    geo_core::json::from_str(text)
}
