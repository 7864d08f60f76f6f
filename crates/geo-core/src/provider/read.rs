//! Small readers of response JSON shared by every engine's parser: lenient by design, since a
//! probe must not fail over a field of the wrong type.
//!
//! A leaf: it reads JSON values and knows nothing of engines or errors (the opening of a reply,
//! "an object, or the error it carries", is `error::kind::reply_object`).

use serde_json::{Map, Value};

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

/// `obj[key]` trimmed and owned, unless absent or blank (a reply's id).
pub(crate) fn text(obj: &Map<String, Value>, key: &str) -> Option<String> {
    non_blank(str_field(obj, key)).map(str::to_string)
}

/// The model that answered: `obj.model` trimmed, else the requested one.
pub(crate) fn model_of(obj: &Map<String, Value>, requested_model: &str) -> String {
    non_blank(str_field(obj, "model")).unwrap_or(requested_model).to_string()
}
