//! The schema the import reads an export with: every record of the snapshot model as its
//! fields (required, optional or derived) and their JSON types, enum strings and integer
//! ranges. It mirrors `crate::model` by hand, and `tests/it/export_hostile.rs` fails when a
//! model field is missing here.

use crate::model::{
    ErrorKind, LinkClass, LocationApplied, Ownership, ProbeStatus, ReasoningEffort, RunStatus, SearchContextSize,
    Surface, TargetKind,
};

/// Expected type of a JSON value.
#[derive(Debug)]
pub(super) enum Ty {
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
pub(super) enum Need {
    Required,
    Optional,
    Derived,
}

#[derive(Debug)]
pub(super) struct Field {
    pub(super) name: &'static str,
    pub(super) ty: Ty,
    pub(super) need: Need,
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
pub(super) const FACT_SNAPSHOT: Ty = Ty::Obj(&[opt("facts", Ty::Arr(&FACT)), opt("watchTerms", STRS)]);

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
pub(super) const ENVELOPE: Ty = Ty::Obj(&[
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn engine_ids_match_the_model() {
        let names: Vec<&str> = crate::model::EngineId::ALL.iter().map(|e| e.as_str()).collect();
        assert_eq!(names, ENGINE_IDS);
    }
}
