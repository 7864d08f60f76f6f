//! Checks of an export before it is imported: its shape, with JSON paths, and its
//! references against the data it is merged into.
//!
//! The shape check walks the parsed `serde_json::Value` with a small schema that mirrors
//! the snapshot model (required fields, types, enum strings, integer ranges), so every
//! problem names its place: `probes[3].status: expected one of
//! success|error|empty|cancelled, got "ok"`. `null` counts as absent everywhere (the
//! contract allows either for optional fields).
//!
//! Unknown fields are dropped while the text is parsed (`parse_shaped`: the same schema
//! steers the parser, which skips a field it does not name without building it), so a
//! file padded with unknown data costs no memory beyond its text and no problem path ever
//! holds a file's own key. Paths and quoted values in messages are bounded anyway: a
//! segment keeps [`crate::limits::MAX_PATH_SEGMENT_CHARS`] characters, a path
//! [`crate::limits::MAX_PROBLEM_PATH_CHARS`], and control characters are escaped.
//!
//! Derived fields of a probe (`answer`, `sources`, `mentions`, `listItems`,
//! `otherEntities`, `answerLinks`) are recomputable from the raw result, and exports of
//! the original web app may shape them differently; a derived field that does not match
//! this program's shape is dropped (the caller recomputes it), never reported.

use std::collections::{HashMap, HashSet};
use std::fmt;

use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::{Map, Value};

use crate::export::overwrite::{prompt_overwrite, run_overwrite};
use crate::limits;
use crate::model::{
    ErrorKind, ExportEnvelope, LinkClass, LocationApplied, Ownership, ProbeStatus, ReasoningEffort, Run, RunStatus,
    SearchContextSize, Surface, TargetKind,
};

/// One thing wrong with an import, at a JSON path such as `probes[3].status`
/// (empty for the file as a whole).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// JSON path of the offending value; empty for the whole file.
    pub path: String,
    /// What is wrong and, where possible, what to do.
    pub message: String,
}

impl Problem {
    /// A problem at `path`.
    pub fn new(path: impl Into<String>, message: impl Into<String>) -> Self {
        Problem { path: path.into(), message: message.into() }
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

/// How many problems an [`crate::export::ImportError`] keeps; the rest are only counted.
pub const MAX_PROBLEMS: usize = 10;

/// Collects the first [`MAX_PROBLEMS`] problems and counts all of them.
#[derive(Debug, Default)]
pub(crate) struct Sink {
    pub(crate) first: Vec<Problem>,
    pub(crate) total: usize,
}

impl Sink {
    pub(crate) fn push(&mut self, path: &Seg<'_>, message: String) {
        self.total += 1;
        if self.first.len() < MAX_PROBLEMS {
            self.first.push(Problem::new(path.render(), message));
        }
    }

    pub(crate) fn push_problem(&mut self, p: Problem) {
        self.total += 1;
        if self.first.len() < MAX_PROBLEMS {
            self.first.push(p);
        }
    }
}

/// A JSON path built on the stack and rendered only when a problem needs it.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Seg<'a> {
    Root,
    Field(&'a Seg<'a>, &'a str),
    Index(&'a Seg<'a>, usize),
}

impl Seg<'_> {
    pub(crate) fn render(&self) -> String {
        bounded_path(&self.render_full())
    }

    fn render_full(&self) -> String {
        match self {
            Seg::Root => String::new(),
            Seg::Field(parent, name) => {
                let p = parent.render_full();
                let name = path_segment(name);
                if p.is_empty() {
                    name
                } else if name.starts_with('[') {
                    format!("{p}{name}")
                } else {
                    format!("{p}.{name}")
                }
            }
            Seg::Index(parent, i) => format!("{}[{i}]", parent.render_full()),
        }
    }
}

/// A field name for a path: as is when it is a plain name (`rawAnswer`), else quoted like
/// JavaScript (`["a.b"]`) with control characters escaped; at most
/// [`limits::MAX_PATH_SEGMENT_CHARS`] characters of it.
fn path_segment(name: &str) -> String {
    let plain = name.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    let cut: String = name.chars().take(limits::MAX_PATH_SEGMENT_CHARS).collect();
    let more = if cut.len() < name.len() { "…" } else { "" };
    if plain {
        format!("{cut}{more}")
    } else {
        format!("[{}{more}]", serde_json::to_string(&cut).unwrap_or_default())
    }
}

/// A path of at most [`limits::MAX_PROBLEM_PATH_CHARS`] characters: its start and its end.
fn bounded_path(path: &str) -> String {
    let n = path.chars().count();
    if n <= limits::MAX_PROBLEM_PATH_CHARS {
        return path.to_string();
    }
    let half = limits::MAX_PROBLEM_PATH_CHARS / 2;
    let head: String = path.chars().take(half).collect();
    let tail: String = path.chars().skip(n - half).collect();
    format!("{head}…{tail}")
}

/// An id or other file text quoted for a message: at most 64 characters, escaped.
pub(crate) fn quoted(text: &str) -> String {
    let cut: String = text.chars().take(64).collect();
    if cut.len() < text.len() {
        format!("{cut:?}…")
    } else {
        format!("{cut:?}")
    }
}

/// A short description of a JSON value for messages: `"ok"`, `number 3`, `null`, `array`.
pub(crate) fn describe_value(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => format!("number {n}"),
        Value::String(s) => {
            let short: String = s.chars().take(40).collect();
            if short.len() < s.len() {
                format!("{short:?}…")
            } else {
                format!("{s:?}")
            }
        }
        Value::Array(_) => "array".into(),
        Value::Object(_) => "object".into(),
    }
}

/// Expected type of a JSON value.
#[derive(Debug)]
enum Ty {
    Str,
    Bool,
    /// Non-negative integer up to the bound; an integral float such as `3.0` is accepted.
    UInt(u64),
    /// A duration in milliseconds: any non-negative finite number, rounded (the original
    /// web app may have measured with fractional milliseconds).
    Millis,
    Float,
    Enum(&'static [&'static str]),
    Obj(&'static [Field]),
    Arr(&'static Ty),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Need {
    Required,
    Optional,
    Derived,
}

#[derive(Debug)]
struct Field {
    name: &'static str,
    ty: Ty,
    need: Need,
}

const fn req(name: &'static str, ty: Ty) -> Field {
    Field { name, ty, need: Need::Required }
}
const fn opt(name: &'static str, ty: Ty) -> Field {
    Field { name, ty, need: Need::Optional }
}
const fn derived(name: &'static str, ty: Ty) -> Field {
    Field { name, ty, need: Need::Derived }
}

const U16: Ty = Ty::UInt(u16::MAX as u64);
const U32: Ty = Ty::UInt(u32::MAX as u64);
const U64: Ty = Ty::UInt(u64::MAX);
const STRS: Ty = Ty::Arr(&Ty::Str);

/// `Target.kind` strings.
pub const TARGET_KINDS: &[&str] = TargetKind::NAMES;
/// `Run.status` strings.
pub const RUN_STATUSES: &[&str] = RunStatus::NAMES;
/// `Probe.status` strings.
pub const PROBE_STATUSES: &[&str] = ProbeStatus::NAMES;
/// `error.kind` strings.
pub const ERROR_KINDS: &[&str] = ErrorKind::NAMES;
/// `SearchSource.ownership` strings.
pub const OWNERSHIPS: &[&str] = Ownership::NAMES;
/// `usage.searchContextSize` strings (Perplexity).
pub const SEARCH_CONTEXT_SIZES: &[&str] = SearchContextSize::NAMES;
/// `RunConfig.reasoningEffort` strings.
pub const REASONING_EFFORTS: &[&str] = ReasoningEffort::NAMES;
/// `linkChecks[].links[].class` strings.
pub const LINK_CLASSES: &[&str] = LinkClass::NAMES;
/// `Run.surface` strings.
pub const SURFACES: &[&str] = Surface::NAMES;
/// `Probe.locationApplied` strings.
pub const LOCATIONS_APPLIED: &[&str] = LocationApplied::NAMES;
/// `RunConfig.engine` strings (`shared/spec/engines.md`).
pub const ENGINE_IDS: &[&str] =
    &["deepseek", "anthropic", "openai", "gemini", "perplexity", "qwen", "doubao", "ernie", "hunyuan"];

const TARGET: Ty = Ty::Obj(&[
    req("id", Ty::Str),
    req("kind", Ty::Enum(TARGET_KINDS)),
    req("label", Ty::Str),
    opt("aliases", STRS),
    opt("domains", STRS),
]);

/// A fact: `kind` and `currency` are read as strings here, so that an unknown one is
/// named with its fact's id (`check_fact_names`), not only by its path.
const FACT: Ty = Ty::Obj(&[
    req("id", Ty::Str),
    req("targetId", Ty::Str),
    req("label", Ty::Str),
    opt("kind", Ty::Str),
    opt("cues", STRS),
    opt("value", Ty::Float),
    opt("currency", Ty::Str),
    opt("tolerance", Ty::Float),
    opt("accepted", STRS),
    opt("rejected", STRS),
]);

/// A run's `factSnapshot`, and the whole of a `--facts` file.
const FACT_SNAPSHOT: Ty = Ty::Obj(&[opt("facts", Ty::Arr(&FACT)), opt("watchTerms", STRS)]);

const PROJECT: Ty = Ty::Obj(&[
    req("id", Ty::Str),
    req("name", Ty::Str),
    req("brand", TARGET),
    opt("competitors", Ty::Arr(&TARGET)),
    opt("isDemo", Ty::Bool),
    req("createdAt", Ty::Str),
    req("updatedAt", Ty::Str),
    opt("facts", Ty::Arr(&FACT)),
    opt("watchTerms", STRS),
]);

const PROMPT: Ty = Ty::Obj(&[
    req("id", Ty::Str),
    req("projectId", Ty::Str),
    req("text", Ty::Str),
    opt("tags", STRS),
    req("createdAt", Ty::Str),
    req("updatedAt", Ty::Str),
]);

/// `RunConfig.location`; its values are checked by `model::Location::check` once typed
/// (`export::location`).
const LOCATION: Ty =
    Ty::Obj(&[req("country", Ty::Str), opt("region", Ty::Str), opt("city", Ty::Str), opt("timezone", Ty::Str)]);

/// The budget fields are required of every run but an `app` run, whose config has none
/// (`export::location::check_budget_fields`).
const RUN_CONFIG: Ty = Ty::Obj(&[
    opt("engine", Ty::Enum(ENGINE_IDS)),
    req("model", Ty::Str),
    req("repeats", U32),
    opt("concurrency", U32),
    opt("maxSearches", U32),
    opt("maxTokens", U32),
    opt("temperature", Ty::Float),
    opt("systemPromptVersion", Ty::Str),
    opt("reasoningEffort", Ty::Enum(REASONING_EFFORTS)),
    opt("thinkingBudget", U32),
    opt("location", LOCATION),
    opt("locationPrompt", Ty::Bool),
]);

const RUN: Ty = Ty::Obj(&[
    req("id", Ty::Str),
    req("projectId", Ty::Str),
    req("status", Ty::Enum(RUN_STATUSES)),
    req("createdAt", Ty::Str),
    opt("finishedAt", Ty::Str),
    opt("previousRunId", Ty::Str),
    opt("appVersion", Ty::Str),
    opt("schemaVersion", U32),
    req("config", RUN_CONFIG),
    opt("aliasSnapshot", Ty::Arr(&TARGET)),
    opt("promptSnapshot", Ty::Arr(&PROMPT)),
    opt("plannedProbeCount", U32),
    opt("groupId", Ty::Str),
    opt("factSnapshot", FACT_SNAPSHOT),
    opt("surface", Ty::Enum(SURFACES)),
]);

const PROBE_ERROR: Ty = Ty::Obj(&[req("kind", Ty::Enum(ERROR_KINDS)), opt("httpStatus", U16), opt("message", Ty::Str)]);

const USAGE: Ty = Ty::Obj(&[
    opt("inputTokens", U64),
    opt("outputTokens", U64),
    opt("cacheReadInputTokens", U64),
    opt("webSearchRequests", U64),
    opt("searchContextSize", Ty::Enum(SEARCH_CONTEXT_SIZES)),
]);

const QUERY: Ty =
    Ty::Obj(&[req("index", U32), opt("query", Ty::Str), opt("internal", Ty::Bool), opt("error", Ty::Str)]);

const RAW_SOURCE: Ty = Ty::Obj(&[
    req("queryIndex", U32),
    req("rank", U32),
    opt("title", Ty::Str),
    req("url", Ty::Str),
    opt("pageAge", Ty::Str),
]);

const RAW_CITATION: Ty =
    Ty::Obj(&[req("url", Ty::Str), opt("title", Ty::Str), opt("citedText", Ty::Str), opt("index", U32)]);

const OCCURRENCE: Ty = Ty::Obj(&[req("queryIndex", U32), opt("query", Ty::Str), req("rank", U32)]);

const SEARCH_SOURCE: Ty = Ty::Obj(&[
    req("id", Ty::Str),
    req("url", Ty::Str),
    req("host", Ty::Str),
    req("domain", Ty::Str),
    opt("title", Ty::Str),
    opt("pageAge", Ty::Str),
    req("platform", Ty::Str),
    req("channel", Ty::Str),
    req("ownership", Ty::Enum(OWNERSHIPS)),
    opt("competitorId", Ty::Str),
    opt("occurrences", Ty::Arr(&OCCURRENCE)),
    req("bestRank", U32),
    opt("titleMentions", STRS),
    opt("cited", Ty::Bool),
]);

const MENTION: Ty = Ty::Obj(&[
    req("targetId", Ty::Str),
    req("count", U32),
    req("order", U32),
    req("firstIndex", U32),
    opt("context", Ty::Str),
    opt("matchedAliases", STRS),
    opt("listPosition", U32),
    opt("positionAdjustedWordCount", Ty::Float),
]);

const LIST_ITEM: Ty =
    Ty::Obj(&[req("position", U32), req("title", Ty::Str), opt("text", Ty::Str), opt("matchedTargetId", Ty::Str)]);

const ANSWER_LINK: Ty = Ty::Obj(&[
    req("url", Ty::Str),
    req("canonicalUrl", Ty::Str),
    req("domain", Ty::Str),
    opt("text", Ty::Str),
    req("inSources", Ty::Bool),
]);

const PROBE: Ty = Ty::Obj(&[
    req("id", Ty::Str),
    req("runId", Ty::Str),
    req("projectId", Ty::Str),
    req("promptId", Ty::Str),
    req("repeatIndex", U32),
    req("status", Ty::Enum(PROBE_STATUSES)),
    req("createdAt", Ty::Str),
    opt("model", Ty::Str),
    opt("attempts", U32),
    opt("latencyMs", Ty::Millis),
    opt("error", PROBE_ERROR),
    opt("requestId", Ty::Str),
    opt("stopReason", Ty::Str),
    opt("usage", USAGE),
    opt("truncated", Ty::Bool),
    opt("billedUsage", USAGE),
    opt("continuations", U32),
    opt("costUsd", Ty::Float),
    opt("locationApplied", Ty::Enum(LOCATIONS_APPLIED)),
    opt("rawAnswer", Ty::Str),
    opt("queries", Ty::Arr(&QUERY)),
    opt("rawSources", Ty::Arr(&RAW_SOURCE)),
    opt("rawCitations", Ty::Arr(&RAW_CITATION)),
    derived("answer", Ty::Str),
    derived("sources", Ty::Arr(&SEARCH_SOURCE)),
    derived("mentions", Ty::Arr(&MENTION)),
    derived("listItems", Ty::Arr(&LIST_ITEM)),
    derived("otherEntities", STRS),
    derived("answerLinks", Ty::Arr(&ANSWER_LINK)),
]);

const LINK_HOP: Ty = Ty::Obj(&[req("url", Ty::Str), req("status", U16), opt("location", Ty::Str)]);

const LINK_RESULT: Ty = Ty::Obj(&[
    req("url", Ty::Str),
    req("class", Ty::Enum(LINK_CLASSES)),
    opt("status", U16),
    opt("finalUrl", Ty::Str),
    opt("hops", Ty::Arr(&LINK_HOP)),
    opt("error", Ty::Str),
]);

const LINK_CHECK: Ty =
    Ty::Obj(&[req("runId", Ty::Str), req("checkedAt", Ty::Str), opt("links", Ty::Arr(&LINK_RESULT))]);

/// The record arrays of the envelope (and the answer-link checks); `format` and `version` are checked first by
/// the importer. `exportedAt` and `appVersion` are informational.
const ENVELOPE: Ty = Ty::Obj(&[
    opt("format", Ty::Str),
    opt("version", U32),
    opt("exportedAt", Ty::Str),
    opt("appVersion", Ty::Str),
    opt("projects", Ty::Arr(&PROJECT)),
    opt("prompts", Ty::Arr(&PROMPT)),
    opt("runs", Ty::Arr(&RUN)),
    opt("probes", Ty::Arr(&PROBE)),
    opt("linkChecks", Ty::Arr(&LINK_CHECK)),
]);

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

/// The object paths of every fact sheet in an envelope value (or record): each project's
/// (`projects[i]`, holding `facts` and `watchTerms`) and each run's `factSnapshot`.
fn fact_sheets(root: &Value) -> impl Iterator<Item = (String, &Value)> {
    let of = |kind: &'static str| root.get(kind).and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
    let projects = of("projects").iter().enumerate().map(|(i, p)| (format!("projects[{i}]"), p));
    let runs = of("runs")
        .iter()
        .enumerate()
        .filter_map(|(i, r)| r.get("factSnapshot").map(|s| (format!("runs[{i}].factSnapshot"), s)));
    projects.chain(runs)
}

/// A fact sheet's problem at `prefix.path` (`prefix` alone for a problem of the whole sheet),
/// in English like every import problem.
fn push_fact_problem(sink: &mut Sink, prefix: &str, problem: &crate::project::FactProblem) {
    let path = problem.path();
    let path = if path.is_empty() { prefix.to_string() } else { format!("{prefix}.{path}") };
    sink.push_problem(Problem::new(path, problem.localized().en));
}

/// A missing or unknown fact `kind` and an unknown `currency`, named with the fact's id, in
/// every project and every run's `factSnapshot` (data-model.md: "an invalid fact is named by
/// its id, in `validate` also inside a run's `factSnapshot`"). Runs after the shape check,
/// before the typed reading that could not name them.
pub(crate) fn check_fact_names(root: &Value, sink: &mut Sink) {
    for (prefix, sheet) in fact_sheets(root) {
        let facts = sheet.get("facts").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
        for (at, fact) in facts.iter().enumerate() {
            for problem in crate::project::json_fact_problems(fact, at) {
                push_fact_problem(sink, &prefix, &problem);
            }
        }
    }
}

/// Every project's fact sheet against its brand and competitors, and every run's
/// `factSnapshot` against its `aliasSnapshot` (`crate::project::validate_fact_sheet`'s rules).
pub(crate) fn check_fact_sheets(env: &ExportEnvelope, sink: &mut Sink) {
    let mut report = |prefix: String, problems: Vec<crate::project::FactProblem>| {
        for problem in &problems {
            push_fact_problem(sink, &prefix, problem);
        }
    };
    for (i, project) in env.projects.iter().enumerate() {
        let targets = std::iter::once(&project.brand).chain(&project.competitors).map(|t| t.id.as_str()).collect();
        let problems = crate::project::fact_sheet_problems(&project.facts, &project.watch_terms, &targets);
        report(format!("projects[{i}]"), problems);
    }
    for (i, run) in env.runs.iter().enumerate() {
        let Some(snapshot) = &run.fact_snapshot else { continue };
        let targets = run.alias_snapshot.iter().map(|t| t.id.as_str()).collect();
        let problems = crate::project::fact_sheet_problems(&snapshot.facts, &snapshot.watch_terms, &targets);
        report(format!("runs[{i}].factSnapshot"), problems);
    }
}

/// Reports every string (and object key) longer than `max_chars` characters.
pub(crate) fn check_string_sizes(v: &Value, max_chars: usize, path: &Seg<'_>, sink: &mut Sink) {
    let too_long = |s: &str| s.len() > max_chars && s.chars().count() > max_chars;
    match v {
        Value::String(s) if too_long(s) => sink.push(
            path,
            format!(
                "text of {} characters is over the limit of {max_chars}; shorten it or raise the limit",
                s.chars().count()
            ),
        ),
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                check_string_sizes(item, max_chars, &Seg::Index(path, i), sink);
            }
        }
        Value::Object(map) => {
            for (k, item) in map {
                let here = Seg::Field(path, k);
                if too_long(k) {
                    sink.push(&here, format!("field name over the limit of {max_chars} characters"));
                }
                check_string_sizes(item, max_chars, &here, sink);
            }
        }
        _ => {}
    }
}

/// Duplicate ids within one file: per kind, and target ids within one project.
pub(crate) fn check_duplicates(env: &ExportEnvelope, sink: &mut Sink) {
    fn dup<'a>(kind: &str, ids: impl Iterator<Item = &'a str>, sink: &mut Sink, what: &str) {
        let mut seen: HashMap<&str, usize> = HashMap::new();
        for (i, id) in ids.enumerate() {
            if let Some(first) = seen.get(id) {
                sink.push_problem(Problem::new(
                    format!("{kind}[{i}].id"),
                    format!("duplicate {what} id {} (also at {kind}[{first}]); keep one record per id", quoted(id)),
                ));
            } else {
                seen.insert(id, i);
            }
        }
    }
    dup("projects", env.projects.iter().map(|p| p.id.as_str()), sink, "project");
    dup("prompts", env.prompts.iter().map(|p| p.id.as_str()), sink, "prompt");
    dup("runs", env.runs.iter().map(|p| p.id.as_str()), sink, "run");
    dup("probes", env.probes.iter().map(|p| p.id.as_str()), sink, "probe");
    let mut checked: HashMap<&str, usize> = HashMap::new();
    for (i, check) in env.link_checks.iter().enumerate() {
        if let Some(first) = checked.insert(check.run_id.as_str(), i) {
            sink.push_problem(Problem::new(
                format!("linkChecks[{i}].runId"),
                format!(
                    "a second link check of run {} (also at linkChecks[{first}]); keep one record per run",
                    quoted(&check.run_id)
                ),
            ));
        }
    }
    for (i, project) in env.projects.iter().enumerate() {
        let mut seen = HashSet::new();
        seen.insert(project.brand.id.as_str());
        for (j, c) in project.competitors.iter().enumerate() {
            if !seen.insert(c.id.as_str()) {
                sink.push_problem(Problem::new(
                    format!("projects[{i}].competitors[{j}].id"),
                    format!("duplicate target id {} within the project; give each target its own id", quoted(&c.id)),
                ));
            }
        }
    }
}

/// Runs and projects past the snapshot limits (`limits::MAX_SNAPSHOT_TARGETS`,
/// `limits::MAX_SNAPSHOT_PROMPTS`): every comparison stays linear up to them, and nothing
/// past them is taken in.
pub(crate) fn check_snapshot_sizes(env: &ExportEnvelope, sink: &mut Sink) {
    use crate::limits::{MAX_SNAPSHOT_PROMPTS, MAX_SNAPSHOT_TARGETS};
    for (i, project) in env.projects.iter().enumerate() {
        let targets = 1 + project.competitors.len();
        if targets > MAX_SNAPSHOT_TARGETS {
            sink.push_problem(Problem::new(
                format!("projects[{i}].competitors"),
                format!("{targets} targets, above the limit of {MAX_SNAPSHOT_TARGETS}; remove competitors"),
            ));
        }
    }
    for (i, run) in env.runs.iter().enumerate() {
        if run.alias_snapshot.len() > MAX_SNAPSHOT_TARGETS {
            sink.push_problem(Problem::new(
                format!("runs[{i}].aliasSnapshot"),
                format!(
                    "{} targets, above the limit of {MAX_SNAPSHOT_TARGETS}; a run never tracks that many",
                    run.alias_snapshot.len()
                ),
            ));
        }
        if run.prompt_snapshot.len() > MAX_SNAPSHOT_PROMPTS {
            sink.push_problem(Problem::new(
                format!("runs[{i}].promptSnapshot"),
                format!(
                    "{} prompts, above the limit of {MAX_SNAPSHOT_PROMPTS}; a run never asks that many",
                    run.prompt_snapshot.len()
                ),
            ));
        }
    }
}

/// Reference problems of `incoming` when merged into `base`: a prompt's or run's
/// project, a probe's run, a link check's run and a probe's project must be in `incoming` or `base`, and a probe's
/// project must be its run's project (`incoming` wins over `base` for the same id, as in
/// the merge). Pass an empty envelope as `base` to require a self-contained file (what
/// `geo-probe validate` does). A run's `previousRunId` is not checked: the previous run
/// may have been deleted, which only means "no comparison". Returns every problem.
pub fn validate_against(incoming: &ExportEnvelope, base: &ExportEnvelope) -> Vec<Problem> {
    let base_empty =
        base.projects.is_empty() && base.prompts.is_empty() && base.runs.is_empty() && base.probes.is_empty();
    let nowhere = if base_empty { "not in the file" } else { "neither in the file nor in the existing data" };
    let projects: HashSet<&str> = incoming.projects.iter().chain(&base.projects).map(|p| p.id.as_str()).collect();
    let mut runs: HashMap<&str, &str> = HashMap::new();
    for r in base.runs.iter().chain(&incoming.runs) {
        runs.insert(r.id.as_str(), r.project_id.as_str());
    }
    let mut out = Vec::new();
    for (i, p) in incoming.prompts.iter().enumerate() {
        if !projects.contains(p.project_id.as_str()) {
            out.push(Problem::new(
                format!("prompts[{i}].projectId"),
                format!("prompt {} refers to project {} that is {nowhere}", quoted(&p.id), quoted(&p.project_id)),
            ));
        }
    }
    // A stored run or prompt never moves to another project (security review II, finding 6):
    // its stored probes and summary would stay behind. The rule is `export::overwrite`'s.
    let stored_runs: HashMap<&str, &Run> = base.runs.iter().map(|r| (r.id.as_str(), r)).collect();
    let stored_prompts: HashMap<&str, &str> =
        base.prompts.iter().map(|p| (p.id.as_str(), p.project_id.as_str())).collect();
    let at = |path: String, problem: Problem| Problem { path, ..problem };
    for (i, p) in incoming.prompts.iter().enumerate() {
        if let Some(Err(problem)) = stored_prompts.get(p.id.as_str()).map(|s| prompt_overwrite(p, s)) {
            out.push(at(format!("prompts[{i}].projectId"), problem));
        }
    }
    for (i, r) in incoming.runs.iter().enumerate() {
        if !projects.contains(r.project_id.as_str()) {
            out.push(Problem::new(
                format!("runs[{i}].projectId"),
                format!("run {} refers to project {} that is {nowhere}", quoted(&r.id), quoted(&r.project_id)),
            ));
        }
        if let Some(Err(problem)) = stored_runs.get(r.id.as_str()).map(|s| run_overwrite(r, s)) {
            out.push(at(format!("runs[{i}].projectId"), problem));
        }
    }
    for (i, p) in incoming.probes.iter().enumerate() {
        match runs.get(p.run_id.as_str()) {
            None => out.push(Problem::new(
                format!("probes[{i}].runId"),
                format!("probe {} refers to run {} that is {nowhere}", quoted(&p.id), quoted(&p.run_id)),
            )),
            Some(run_project) if *run_project != p.project_id => out.push(Problem::new(
                format!("probes[{i}].projectId"),
                format!(
                    "probe {} is in project {} but its run {} is in project {}",
                    quoted(&p.id),
                    quoted(&p.project_id),
                    quoted(&p.run_id),
                    quoted(run_project)
                ),
            )),
            Some(_) => {}
        }
    }
    for (i, check) in incoming.link_checks.iter().enumerate() {
        if !runs.contains_key(check.run_id.as_str()) {
            out.push(Problem::new(
                format!("linkChecks[{i}].runId"),
                format!("the link check refers to run {} that is {nowhere}", quoted(&check.run_id)),
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn engine_ids_match_the_model() {
        let names: Vec<&str> = crate::model::EngineId::ALL.iter().map(|e| e.as_str()).collect();
        assert_eq!(names, ENGINE_IDS);
    }

    #[test]
    fn paths_render_like_javascript() {
        let root = Seg::Root;
        let probes = Seg::Field(&root, "probes");
        let third = Seg::Index(&probes, 3);
        let status = Seg::Field(&third, "status");
        assert_eq!(status.render(), "probes[3].status");
    }

    #[test]
    fn paths_are_bounded_and_escaped() {
        let root = Seg::Root;
        let long = "k".repeat(10_000);
        let field = Seg::Field(&root, &long);
        let rendered = field.render();
        assert_eq!(rendered.chars().count(), limits::MAX_PATH_SEGMENT_CHARS + 1, "{rendered}");
        let odd = Seg::Field(&root, "a\u{1b}[2J.b");
        assert_eq!(odd.render(), r#"["a\u001b[2J.b"]"#);
        let mut deep = vec![Seg::Root];
        for i in 0..200 {
            deep.push(Seg::Index(Box::leak(Box::new(deep[i])), i));
        }
        let path = deep.last().unwrap().render();
        assert!(path.chars().count() <= limits::MAX_PROBLEM_PATH_CHARS + 1, "{path}");
        assert!(path.starts_with("[0][1]") && path.ends_with("[199]"), "{path}");
    }
}
