//! Records as IndexedDB holds them: the JS object of a record's contract JSON
//! (`JSON.parse` of serde's text, and back through `JSON.stringify`), and a thrown value or
//! `DOMException` as a [`RepoError`] (a full quota recognised).

use crate::repo::{RepoError, RepoResult};
use js_sys::{Array, JSON};
use serde::de::DeserializeOwned;
use serde::Serialize;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::DomException;

/// A record as the JS object of its contract JSON.
pub(crate) fn encode<T: Serialize>(value: &T) -> RepoResult<JsValue> {
    let text = serde_json::to_string(value).map_err(|e| RepoError::Write(e.to_string()))?;
    JSON::parse(&text).map_err(|e| error_from(e, RepoError::Write))
}

/// A stored JS object decoded through its JSON text.
pub(crate) fn decode<T: DeserializeOwned>(value: &JsValue) -> RepoResult<T> {
    let text = JSON::stringify(value).map_err(|e| error_from(e, RepoError::Decode))?;
    let text = text.as_string().unwrap_or_default();
    geo_core::json::from_str(&text).map_err(|e| RepoError::Decode(e.to_string()))
}

pub(super) fn decode_array<T: DeserializeOwned>(value: JsValue) -> RepoResult<Vec<T>> {
    let array: Array = value.dyn_into().map_err(|_| RepoError::Decode("expected an array".into()))?;
    // One record at a time: a bad record is named by its own error, and the many short
    // calls let the browser optimise the decoder early (a long single call stays on its
    // baseline code, measured slower).
    crate::web::measure("geo:idb-decode", || array.iter().map(|v| decode(&v)).collect())
}

/// Decodes the records of an array, skipping those that do not decode (derived records).
pub(super) fn decode_lenient<T: DeserializeOwned>(value: JsValue) -> Vec<T> {
    value.dyn_into::<Array>().map(|a| a.iter().filter_map(|v| decode(&v).ok()).collect()).unwrap_or_default()
}

/// A string field of a stored JS record.
pub(super) fn js_field(record: &JsValue, key: &str) -> Option<String> {
    js_sys::Reflect::get(record, &JsValue::from_str(key)).ok()?.as_string()
}

/// Maps a thrown value or `DOMException` to a [`RepoError`], recognising a full quota.
pub(super) fn error_from(value: JsValue, kind: fn(String) -> RepoError) -> RepoError {
    if let Some(ex) = value.dyn_ref::<DomException>() {
        let name = ex.name();
        if name == "QuotaExceededError" {
            return RepoError::Quota(name);
        }
        return kind(format!("{}: {}", name, ex.message()));
    }
    if let Some(err) = value.dyn_ref::<js_sys::Error>() {
        return kind(String::from(err.message()));
    }
    kind(value.as_string().unwrap_or_else(|| "unknown error".into()))
}

pub(super) fn write_error(e: JsValue) -> RepoError {
    error_from(e, RepoError::Write)
}
