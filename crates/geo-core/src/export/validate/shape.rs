//! The shape check: the schema steers the JSON parser (an unknown field is skipped, never
//! built) and then walks the parsed value, reporting each wrong type, enum string or
//! integer range at its path and normalising on the way (nulls dropped, integral floats
//! made integers, a malformed derived field removed).

use std::fmt;

use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::{Map, Value};

use super::schema::{Field, Need, Ty, ENVELOPE, FACT_SNAPSHOT};
use crate::export::problem::{describe_value, Seg, Sink};

/// Parses export text into a `Value`, keeping only the fields the schema names (unknown
/// fields are skipped by the parser, never built). A value of an unexpected type is kept as
/// it is, for the shape check to report.
pub(crate) fn parse_shaped(text: &str) -> Result<Value, serde_json::Error> {
    let mut de = serde_json::Deserializer::from_str(text);
    let value = Shaped(&ENVELOPE).deserialize(&mut de)?;
    de.end()?;
    Ok(value)
}

/// The schema type steering the parser.
struct Shaped<'t>(&'t Ty);

impl<'de> DeserializeSeed<'de> for Shaped<'_> {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        match self.0 {
            Ty::Obj(_) | Ty::Arr(_) => d.deserialize_any(ShapedVisitor(self.0)),
            _ => Value::deserialize(d),
        }
    }
}

struct ShapedVisitor<'t>(&'t Ty);

impl<'de> Visitor<'de> for ShapedVisitor<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a json value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_string()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        match self.0 {
            Ty::Arr(inner) => {
                while let Some(v) = seq.next_element_seed(Shaped(inner))? {
                    items.push(v);
                }
            }
            _ => {
                while let Some(v) = seq.next_element::<Value>()? {
                    items.push(v);
                }
            }
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let field = match self.0 {
                Ty::Obj(fields) => match fields.iter().find(|f| f.name == key) {
                    Some(f) => Some(&f.ty),
                    None => {
                        map.next_value::<IgnoredAny>()?;
                        continue;
                    }
                },
                _ => None,
            };
            let value = match field {
                Some(ty) => map.next_value_seed(Shaped(ty))?,
                None => map.next_value::<Value>()?,
            };
            out.insert(key, value);
        }
        Ok(Value::Object(out))
    }
}

fn check(v: &mut Value, ty: &Ty, path: &Seg<'_>, sink: &mut Sink) {
    match ty {
        Ty::Str => {
            if !v.is_string() {
                sink.push(path, format!("expected string, got {}", describe_value(v)));
            }
        }
        Ty::Bool => {
            if !v.is_boolean() {
                sink.push(path, format!("expected true or false, got {}", describe_value(v)));
            }
        }
        Ty::UInt(max) => match v.as_u64() {
            Some(n) if n <= *max => {}
            Some(_) => sink.push(path, format!("expected integer 0..={max}, got {}", describe_value(v))),
            None => match v.as_f64() {
                Some(f) if f >= 0.0 && f.fract() == 0.0 && f <= *max as f64 => {
                    *v = Value::from(f as u64);
                }
                _ => sink.push(path, format!("expected integer 0..={max}, got {}", describe_value(v))),
            },
        },
        Ty::Millis => match (v.as_u64(), v.as_f64()) {
            (Some(_), _) => {}
            (None, Some(f)) if f.is_finite() && f >= 0.0 && f < u64::MAX as f64 => {
                *v = Value::from(f.round() as u64);
            }
            _ => sink.push(path, format!("expected a non-negative number of milliseconds, got {}", describe_value(v))),
        },
        Ty::Float => {
            if !v.is_number() {
                sink.push(path, format!("expected number, got {}", describe_value(v)));
            }
        }
        Ty::Enum(values) => {
            if !v.as_str().is_some_and(|s| values.contains(&s)) {
                sink.push(path, format!("expected one of {}, got {}", values.join("|"), describe_value(v)));
            }
        }
        Ty::Obj(fields) => match v.as_object_mut() {
            Some(map) => check_object(map, fields, path, sink),
            None => sink.push(path, format!("expected object, got {}", describe_value(v))),
        },
        Ty::Arr(inner) => match v.as_array_mut() {
            Some(items) => {
                for (i, item) in items.iter_mut().enumerate() {
                    check(item, inner, &Seg::Index(path, i), sink);
                }
            }
            None => sink.push(path, format!("expected array, got {}", describe_value(v))),
        },
    }
}

fn check_object(map: &mut Map<String, Value>, fields: &[Field], path: &Seg<'_>, sink: &mut Sink) {
    map.retain(|_, v| !v.is_null());
    for field in fields {
        let here = Seg::Field(path, field.name);
        match (map.get_mut(field.name), field.need) {
            (None, Need::Required) => sink.push(&here, "required field is missing or null".to_string()),
            (None, _) => {}
            (Some(v), Need::Derived) => {
                let mut scratch = Sink::default();
                check(v, &field.ty, &here, &mut scratch);
                if scratch.total > 0 {
                    map.remove(field.name);
                }
            }
            (Some(v), _) => check(v, &field.ty, &here, sink),
        }
    }
}

/// Checks the record arrays of an envelope value against the model's shape, normalising
/// on the way (nulls removed, integral floats made integers, malformed derived fields
/// dropped). `root` must be the envelope object.
pub(crate) fn check_envelope_shape(root: &mut Value, sink: &mut Sink) {
    check(root, &ENVELOPE, &Seg::Root, sink);
}

/// Checks a `--facts` file's value (`{facts, watchTerms}`, a run's `factSnapshot`) against the
/// model's shape, normalising it as [`check_envelope_shape`] does.
pub(crate) fn check_fact_snapshot_shape(root: &mut Value, sink: &mut Sink) {
    check(root, &FACT_SNAPSHOT, &Seg::Root, sink);
}
