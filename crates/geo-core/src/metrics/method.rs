//! The method of a run (`shared/spec/data-model.md`, "Method and surface in `metrics`, `diff`
//! and `engines`"): what a run measured with — engine, surface, the model asked and the
//! models that answered, the location and how it was applied, the budgets, the temperature,
//! the reasoning effort and the system prompt's version — and which of those differ between
//! two runs ([`method_changes`]).
//!
//! Two runs whose methods differ in any field are not comparable as measurements of the brand
//! alone: the engine may have re-pointed its model alias, the location or the budget may have
//! changed. A comparison still computes every figure; it says first that the method moved.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::model::{EngineId, Location, LocationApplied, Probe, ProbeStatus, ReasoningEffort, Run, Surface};

/// The `method` keys, in the contract's order: the order of `methodChanges`.
pub const METHOD_FIELDS: [&str; 11] = [
    "engine",
    "surface",
    "requestedModel",
    "servedModels",
    "location",
    "locationApplied",
    "maxTokens",
    "maxSearches",
    "temperature",
    "reasoningEffort",
    "systemPromptVersion",
];

/// What a run measured with (every key always present; `null` where the run has no value).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Method {
    /// The engine (`engine` of the metrics).
    pub engine: EngineId,
    /// The run's surface.
    pub surface: Surface,
    /// `config.model`.
    pub requested_model: String,
    /// The distinct `model` of the run's successful probes, sorted.
    pub served_models: Vec<String>,
    /// `config.location`, or `null`.
    pub location: Option<Location>,
    /// The distinct `locationApplied` of the run's successful probes, sorted by wire name.
    pub location_applied: Vec<LocationApplied>,
    /// `config.maxTokens` (`null` for an `app` run).
    pub max_tokens: Option<u32>,
    /// `config.maxSearches` (`null` for an `app` run).
    pub max_searches: Option<u32>,
    /// `config.temperature` (`null` for an `app` run).
    pub temperature: Option<f64>,
    /// `config.reasoningEffort`, or `null`.
    pub reasoning_effort: Option<ReasoningEffort>,
    /// `config.systemPromptVersion` (`null` for an `app` run).
    pub system_prompt_version: Option<String>,
}

/// The served models and applied locations of a run's successful probes, gathered in the
/// metrics' one pass.
#[derive(Default)]
pub(crate) struct MethodAcc {
    served: BTreeSet<String>,
    applied: BTreeSet<&'static str>,
}

impl MethodAcc {
    /// Adds one probe (only successful probes count).
    pub(crate) fn add(&mut self, probe: &Probe) {
        if probe.status != ProbeStatus::Success {
            return;
        }
        if !self.served.contains(probe.model.as_str()) {
            self.served.insert(probe.model.clone());
        }
        self.applied.insert(probe.location_applied.as_str());
    }

    /// The method of `run` with what its probes said.
    pub(crate) fn finish(self, run: &Run) -> Method {
        let c = &run.config;
        let budget = !c.is_captured();
        Method {
            engine: c.engine,
            surface: run.surface,
            requested_model: c.model.clone(),
            served_models: self.served.into_iter().collect(),
            location: c.location.clone(),
            location_applied: self.applied.into_iter().filter_map(LocationApplied::parse).collect(),
            max_tokens: budget.then_some(c.max_tokens),
            max_searches: budget.then_some(c.max_searches),
            temperature: budget.then_some(c.temperature),
            reasoning_effort: c.reasoning_effort,
            system_prompt_version: budget.then(|| c.system_prompt_version.clone()),
        }
    }
}

/// The method of `run` from `probes` (probes of other runs ignored): what the metrics carry.
pub fn method_of(run: &Run, probes: &[&Probe]) -> Method {
    let mut acc = MethodAcc::default();
    for p in probes.iter().filter(|p| p.run_id == run.id) {
        acc.add(p);
    }
    acc.finish(run)
}

/// One field of `method` that differs between two runs.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MethodChange {
    /// The `method` key.
    pub field: &'static str,
    /// Its value in the other run (`null` = absent).
    pub against: Value,
    /// Its value in the current run.
    pub current: Value,
}

/// The fields of `method` whose values differ between `against` and `current`, in
/// [`METHOD_FIELDS`] order: JSON values compared with `null` as absent and arrays as sets.
pub fn method_changes(against: &Method, current: &Method) -> Vec<MethodChange> {
    let (a, c) = (as_object(against), as_object(current));
    METHOD_FIELDS
        .iter()
        .filter_map(|&field| {
            let (x, y) = (a.get(field).cloned().unwrap_or(Value::Null), c.get(field).cloned().unwrap_or(Value::Null));
            (!same_value(&x, &y)).then_some(MethodChange { field, against: x, current: y })
        })
        .collect()
}

fn as_object(method: &Method) -> serde_json::Map<String, Value> {
    match serde_json::to_value(method) {
        Ok(Value::Object(map)) => map,
        _ => serde_json::Map::new(),
    }
}

/// Equal as JSON, arrays as sets (each element of one is in the other), objects key by key.
fn same_value(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Array(x), Value::Array(y)) => {
            x.iter().all(|v| y.iter().any(|w| same_value(v, w))) && y.iter().all(|w| x.iter().any(|v| same_value(v, w)))
        }
        (Value::Object(x), Value::Object(y)) => {
            let keys: BTreeSet<&String> = x.keys().chain(y.keys()).collect();
            keys.into_iter().all(|k| same_value(x.get(k).unwrap_or(&Value::Null), y.get(k).unwrap_or(&Value::Null)))
        }
        _ => a == b,
    }
}

/// The changed fields' keys joined by `, ` (`servedModels, location`): how a comparison names
/// them first.
pub fn changed_fields(changes: &[MethodChange]) -> String {
    changes.iter().map(|c| c.field).collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn method() -> Method {
        Method {
            engine: EngineId::Openai,
            surface: Surface::Api,
            requested_model: "gpt-5-mini".into(),
            served_models: vec!["gpt-5-mini-2025-08-07".into()],
            location: None,
            location_applied: vec![LocationApplied::None],
            max_tokens: Some(16384),
            max_searches: Some(5),
            temperature: Some(1.0),
            reasoning_effort: None,
            system_prompt_version: Some("neutral-zh-v1".into()),
        }
    }

    #[test]
    fn every_key_is_present_in_the_contracts_order() {
        let v = serde_json::to_value(method()).unwrap();
        let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
        let mut want = METHOD_FIELDS.to_vec();
        want.sort_unstable();
        assert_eq!(keys, want, "every key, null included");
        assert_eq!(v["location"], Value::Null);
        assert_eq!(v["locationApplied"], json!(["none"]));
    }

    #[test]
    fn changes_come_in_the_contracts_order_arrays_as_sets() {
        let a = method();
        assert!(method_changes(&a, &a).is_empty());
        let mut b = method();
        b.served_models = vec!["gpt-5-mini-2026-01-10".into()];
        b.location = Location::from_flags(Some("CN"), None).unwrap();
        b.location_applied = vec![LocationApplied::Request];
        b.max_tokens = Some(4000);
        let changes = method_changes(&a, &b);
        assert_eq!(changed_fields(&changes), "servedModels, location, locationApplied, maxTokens");
        assert_eq!(changes[1].against, Value::Null);
        assert_eq!(changes[1].current, json!({"country": "CN"}));
        // Arrays are sets: the same models in another order (or twice) are no change.
        let mut two = method();
        two.served_models = vec!["x".into(), "y".into()];
        let mut swapped = two.clone();
        swapped.served_models = vec!["y".into(), "x".into(), "y".into()];
        assert!(method_changes(&two, &swapped).is_empty());
        // A field absent on one side is null.
        let mut effort = method();
        effort.reasoning_effort = Some(ReasoningEffort::High);
        let c = method_changes(&a, &effort);
        assert_eq!((c[0].field, &c[0].against, &c[0].current), ("reasoningEffort", &Value::Null, &json!("high")));
    }
}
