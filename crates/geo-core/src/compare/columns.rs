//! The columns of the engines comparison (`geo-probe engines`, `engines.rs`) and what the
//! surface gaps (`surface_gaps.rs`) read of them: a column's key, an engine and a surface
//! ([`ColumnKey`], written `openai` or `openai:app`), the run behind it ([`EngineRun`]) and a
//! prompt's row keyed by column ([`EnginePromptRow`], [`EngineMap`]). Both files import this one,
//! and it neither of them.

use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;

use crate::metrics::RunMetrics;
use crate::model::{EngineId, Run, Surface};

/// A column of the comparison: an engine and a surface, written `<engine>` for `api` and
/// `<engine>:app` for `app` (the keys of a prompt row's `mentionRate`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ColumnKey {
    /// The engine.
    pub engine: EngineId,
    /// The surface.
    pub surface: Surface,
}

impl ColumnKey {
    /// `openai` or `openai:app`.
    pub fn name(self) -> String {
        match self.surface {
            Surface::Api => self.engine.as_str().to_string(),
            Surface::App => format!("{}:app", self.engine.as_str()),
        }
    }
}

/// One prompt across the engines.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EnginePromptRow {
    /// The prompt.
    pub prompt_id: String,
    /// Its text (the project's current text).
    pub text: String,
    /// Per listed column (`<engine>`, `<engine>:app`): the prompt's brand mention rate in that
    /// column's run; null where the run did not ask it or had no successful probe of it.
    pub mention_rate: EngineMap<Option<f64>>,
}

/// A JSON object keyed by column (`<engine>`, `<engine>:app`), in the order of the listed
/// columns.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct EngineMap<T>(pub Vec<(ColumnKey, T)>);

impl<T> EngineMap<T> {
    /// The value of `engine`'s `api` column.
    pub fn get(&self, engine: EngineId) -> Option<&T> {
        self.get_column(ColumnKey { engine, surface: Surface::Api })
    }

    /// The value of the column `key`.
    pub fn get_column(&self, key: ColumnKey) -> Option<&T> {
        self.0.iter().find(|(k, _)| *k == key).map(|(_, v)| v)
    }
}

impl<T: Serialize> Serialize for EngineMap<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            map.serialize_entry(&k.name(), v)?;
        }
        map.end()
    }
}

/// One engine's run and its metrics, the input of [`compare_engines`](super::compare_engines).
#[derive(Debug, Clone, Copy)]
pub struct EngineRun<'a> {
    /// The run.
    pub run: &'a Run,
    /// Its metrics (computed now or stored).
    pub metrics: &'a RunMetrics,
}
