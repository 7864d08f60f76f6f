//! What the lists and Actions pages read of a run besides its metrics
//! (`docs/adr/0023-stored-page-figures.md`): the run's [`PageFigures`], computed by geo-core
//! with the run's summary and stored beside it in `runPages` ([`StoredPages`]), kept by the
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

/// A record of the `runPages` store: a run's [`PageFigures`], each part as its JSON text, so
/// a page decodes only the part it shows, and reading a 5,000-probe run's actions (tens of
/// thousands of evidence ids) copies one string instead of cloning and re-serialising an
/// object of that many parts.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StoredPages {
    /// The run (the key).
    pub run_id: String,
    /// Its project (indexed, for the cascade delete).
    pub project_id: String,
    /// [`PageFigures::positions`] as JSON.
    pub positions: String,
    /// [`PageFigures::actions`] as JSON.
    pub actions: String,
    /// [`PageFigures::keys`] as JSON.
    pub keys: String,
}

/// A part of [`StoredPages`], by its field's name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PagePart {
    /// `positions` (the lists page).
    Positions,
    /// `actions` (the Actions page, of the shown run).
    Actions,
    /// `keys` (the Actions page, of the previous run).
    Keys,
}

impl PagePart {
    /// The field of the stored record.
    pub fn field(self) -> &'static str {
        match self {
            PagePart::Positions => "positions",
            PagePart::Actions => "actions",
            PagePart::Keys => "keys",
        }
    }
}

impl StoredPages {
    /// The record of `run`'s `figures`.
    pub fn of(run: &Run, figures: &PageFigures) -> StoredPages {
        // Plain structs of strings, numbers and lists: writing them as JSON cannot fail.
        fn text<T: serde::Serialize>(value: &T) -> String {
            serde_json::to_string(value).unwrap_or_default()
        }
        StoredPages {
            run_id: run.id.clone(),
            project_id: run.project_id.clone(),
            positions: text(&figures.positions),
            actions: text(&figures.actions),
            keys: text(&figures.keys),
        }
    }

    /// The figures the record holds.
    pub fn figures(&self) -> serde_json::Result<PageFigures> {
        Ok(PageFigures { positions: part(&self.positions)?, actions: part(&self.actions)?, keys: part(&self.keys)? })
    }
}

/// One part of a [`StoredPages`] record from its JSON text.
pub fn part<T: serde::de::DeserializeOwned>(text: &str) -> serde_json::Result<T> {
    geo_core::json::from_str(text)
}
