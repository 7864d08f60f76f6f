//! Small readers of response JSON shared by every engine's parser: lenient by design, since a
//! probe must not fail over a field of the wrong type.

use serde_json::{Map, Value};

use super::errors::{engine_invalid_json_error, map_engine_error_envelope};
use crate::model::{EngineId, ProbeError};

/// `obj[key]` when it is a string.
pub(crate) fn str_field<'a>(obj: &'a Map<String, Value>, key: &str) -> Option<&'a str> {
    obj.get(key).and_then(Value::as_str)
}

/// `v` trimmed, unless it is absent or blank.
pub(crate) fn non_blank(v: Option<&str>) -> Option<&str> {
    v.map(str::trim).filter(|s| !s.is_empty())
}

/// A token count: a non-negative number (integral or not), else 0.
pub(crate) fn count(v: Option<&Value>) -> u64 {
    match v {
        Some(Value::Number(n)) => {
            n.as_u64().or_else(|| n.as_f64().filter(|f| *f >= 0.0).map(|f| f as u64)).unwrap_or(0)
        }
        _ => 0,
    }
}

/// True when a 2xx body is an `{"error":{…}}` envelope rather than a response, which would
/// carry the array `payload` (`output`, `candidates`, `choices`).
pub(crate) fn is_error_envelope(obj: &Map<String, Value>, payload: &str) -> bool {
    obj.get("error").is_some_and(Value::is_object) && !obj.get(payload).is_some_and(Value::is_array)
}

/// The opening every chat-style parser shares: `body` as a JSON object holding the array
/// `payload`, or the engine's `invalid_json` error (not JSON, not an object) or its mapped
/// error (an `{"error":{…}}` envelope). A missing `payload` is left to the caller, whose
/// message names what else may stand in for it.
pub(crate) fn response_object(engine: EngineId, body: &str, payload: &str) -> Result<Map<String, Value>, ProbeError> {
    let invalid = |d: &str| engine_invalid_json_error(engine, d);
    let value: Value = serde_json::from_str(body).map_err(|e| invalid(&format!("not json: {e}")))?;
    let Value::Object(obj) = value else { return Err(invalid("the body is not a json object")) };
    if is_error_envelope(&obj, payload) {
        return Err(map_engine_error_envelope(engine, body));
    }
    Ok(obj)
}
