//! Importing an export: limits, parsing with clear errors, merging and a summary.
//!
//! [`parse_export`] refuses oversized or hostile input before doing real work: the byte
//! size is checked first, then the bracket nesting by a scan that skips strings (before
//! serde_json, whose own recursion limit is 128), then the JSON is parsed into a
//! `serde_json::Value`, `format` and `version` are checked, and the record arrays are
//! validated structurally with JSON paths (see [`crate::export::validate`]; a fact's unknown
//! `kind` or `currency` named with the fact's id). Only a clean value is turned into an
//! [`ExportEnvelope`], whose ids, snapshot sizes and fact sheets
//! ([`crate::project::validate_fact_sheet`]) are checked last.
//!
//! Exports of the original GEO Probe web app use the same names. When such a probe lacks
//! the raw result but carries derived fields, the raw result is rebuilt from them so no
//! data is lost: `rawAnswer` from `answer`, `rawSources` from the sources' occurrences
//! and `queries` from the occurrences' query words. The caller recomputes every derived
//! field after import anyway.

use std::collections::HashMap;
use std::fmt;

use serde_json::{Map, Value};

use crate::export::problem::{describe_value, quoted, Problem, Seg, Sink, MAX_PROBLEMS};
use crate::export::validate::{
    check_duplicates, check_envelope_shape, check_fact_names, check_fact_sheets, check_snapshot_sizes,
    check_string_sizes, parse_shaped,
};
use crate::limits;
use crate::model::{ExportEnvelope, Localized, ProbeStatus, EXPORT_FORMAT, SCHEMA_VERSION};

/// Bounds on what [`parse_export`] accepts; the defaults are [`crate::limits`]'.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ImportLimits {
    /// Largest file in bytes (default [`limits::MAX_EXPORT_BYTES`], 256 MiB).
    pub max_bytes: usize,
    /// Deepest nesting of arrays and objects (default [`limits::MAX_EXPORT_DEPTH`], 64; a
    /// valid export needs 7).
    pub max_depth: usize,
    /// Longest string in characters (default [`limits::MAX_STRING_CHARS`], 1,000,000).
    pub max_string_chars: usize,
    /// Most records: projects + prompts + runs + probes + link checks (default
    /// [`limits::MAX_RECORDS`], 200,000).
    pub max_records: usize,
}

impl Default for ImportLimits {
    fn default() -> Self {
        ImportLimits {
            max_bytes: limits::MAX_EXPORT_BYTES,
            max_depth: limits::MAX_EXPORT_DEPTH,
            max_string_chars: limits::MAX_STRING_CHARS,
            max_records: limits::MAX_RECORDS,
        }
    }
}

/// What kind of failure an [`ImportError`] is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ImportErrorKind {
    /// The file is larger than [`ImportLimits::max_bytes`].
    TooLarge {
        /// Size of the file in bytes.
        bytes: usize,
        /// The limit in bytes.
        limit: usize,
    },
    /// Arrays and objects nest deeper than [`ImportLimits::max_depth`].
    TooDeep {
        /// The limit.
        limit: usize,
    },
    /// The text is not JSON.
    NotJson,
    /// The JSON is not a GEO Probe export (`format` is not `geo-probe-export`).
    WrongFormat,
    /// The file was written by a newer GEO Probe.
    UnsupportedVersion {
        /// `version` of the file.
        found: u64,
        /// Newest version this program reads ([`SCHEMA_VERSION`]).
        supported: u32,
    },
    /// The export has problems at the listed paths.
    Invalid,
}

/// Why an import was refused: the first [`MAX_PROBLEMS`] problems and how many there are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportError {
    /// What kind of failure.
    pub kind: ImportErrorKind,
    /// The first problems found, at most [`MAX_PROBLEMS`].
    pub problems: Vec<Problem>,
    /// Number of problems found in total.
    pub total: usize,
}

impl ImportError {
    fn single(kind: ImportErrorKind, path: &str, message: String) -> Self {
        ImportError { kind, problems: vec![Problem::new(path, message)], total: 1 }
    }

    fn from_sink(sink: Sink) -> Self {
        ImportError { kind: ImportErrorKind::Invalid, problems: sink.first, total: sink.total }
    }

    /// An [`ImportErrorKind::Invalid`] error from a list of problems (for example from
    /// [`crate::export::validate_against`]); keeps the first [`MAX_PROBLEMS`].
    pub fn invalid(problems: Vec<Problem>) -> Self {
        let total = problems.len();
        let problems = problems.into_iter().take(MAX_PROBLEMS).collect();
        ImportError { kind: ImportErrorKind::Invalid, problems, total }
    }

    /// The error for a file of `bytes` bytes over the `limit` (a shell that knows the size
    /// before reading the file refuses it without reading it).
    pub fn too_large(bytes: usize, limit: usize) -> Self {
        ImportError { kind: ImportErrorKind::TooLarge { bytes, limit }, problems: Vec::new(), total: 1 }
    }

    /// One-line summary without the problems.
    pub fn summary(&self) -> String {
        match &self.kind {
            ImportErrorKind::TooLarge { bytes, limit } => format!(
                "the file is {} and the import limit is {}; split the export or raise the limit",
                mib(*bytes),
                mib(*limit)
            ),
            ImportErrorKind::TooDeep { limit } => format!(
                "the json nests deeper than {limit} levels; this is not a GEO Probe export"
            ),
            ImportErrorKind::NotJson => {
                "the file is not valid json; choose a file exported by GEO Probe".to_string()
            }
            ImportErrorKind::WrongFormat => format!(
                "the file is not a GEO Probe export (format must be {EXPORT_FORMAT:?}); choose a file exported by GEO Probe"
            ),
            ImportErrorKind::UnsupportedVersion { found, supported } => format!(
                "this file is version {found}; this app reads up to version {supported} — update GEO Probe"
            ),
            ImportErrorKind::Invalid => format!(
                "the export has {} {}; fix {} and import again (nothing was changed)",
                self.total,
                plural(self.total, "problem", "problems"),
                if self.total == 1 { "it" } else { "them" }
            ),
        }
    }

    fn shows_problems(&self) -> bool {
        matches!(self.kind, ImportErrorKind::Invalid | ImportErrorKind::NotJson | ImportErrorKind::WrongFormat)
    }

    /// The error in both interface languages: a headline, then one problem per line.
    pub fn describe(&self) -> Localized {
        let zh_head = match &self.kind {
            ImportErrorKind::TooLarge { bytes, limit } => {
                format!("文件太大（{}），导入上限为 {}；请拆分导出文件", mib(*bytes), mib(*limit))
            }
            ImportErrorKind::TooDeep { limit } => {
                format!("JSON 嵌套超过 {limit} 层，这不是 GEO Probe 导出文件")
            }
            ImportErrorKind::NotJson => "文件不是有效的 JSON，请选择 GEO Probe 导出的文件".to_string(),
            ImportErrorKind::WrongFormat => {
                format!("这不是 GEO Probe 导出文件（format 应为 {EXPORT_FORMAT:?}）")
            }
            ImportErrorKind::UnsupportedVersion { found, supported } => {
                format!("此文件为版本 {found}，本应用最多读取版本 {supported}，请更新 GEO Probe")
            }
            ImportErrorKind::Invalid => {
                format!("导入失败：文件有 {} 处问题，未做任何更改", self.total)
            }
        };
        let mut zh = zh_head;
        let mut en = self.summary();
        if self.shows_problems() {
            for p in &self.problems {
                zh.push_str(&format!("\n• {p}"));
                en.push_str(&format!("\n• {p}"));
            }
            let more = self.total.saturating_sub(self.problems.len());
            if more > 0 {
                zh.push_str(&format!("\n…另有 {more} 处问题"));
                en.push_str(&format!("\n… and {more} more"));
            }
        }
        Localized::new(zh, en)
    }
}

impl fmt::Display for ImportError {
    /// One line: the summary, then the first problems separated by `; `.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.summary())?;
        if self.shows_problems() && !self.problems.is_empty() {
            let shown: Vec<String> = self.problems.iter().map(|p| p.to_string().replace(['\r', '\n'], " ")).collect();
            write!(f, ": {}", shown.join("; "))?;
            let more = self.total.saturating_sub(self.problems.len());
            if more > 0 {
                write!(f, "; … and {more} more")?;
            }
        }
        Ok(())
    }
}

impl std::error::Error for ImportError {}

/// A byte count for messages: `812 bytes`, `3.4 KiB`, `70.0 MiB`.
fn mib(bytes: usize) -> String {
    const KIB: f64 = 1024.0;
    let b = bytes as f64;
    if b >= KIB * KIB {
        format!("{:.1} MiB", b / (KIB * KIB))
    } else if b >= KIB {
        format!("{:.1} KiB", b / KIB)
    } else {
        format!("{bytes} bytes")
    }
}

fn plural<'a>(n: usize, one: &'a str, many: &'a str) -> &'a str {
    if n == 1 {
        one
    } else {
        many
    }
}

/// Parses and validates an export (full, single-run or demo file) of this program or of
/// the original web app. See the module documentation for the order of the checks.
/// References between records are not checked here: call
/// [`crate::export::validate_against`] with the data the file will be merged into.
pub fn parse_export(text: &str, limits: &ImportLimits) -> Result<ExportEnvelope, ImportError> {
    if text.len() > limits.max_bytes {
        return Err(ImportError::too_large(text.len(), limits.max_bytes));
    }
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if crate::export::json::nesting_exceeds(text, limits.max_depth) {
        let kind = ImportErrorKind::TooDeep { limit: limits.max_depth };
        return Err(ImportError { kind, problems: Vec::new(), total: 1 });
    }
    // Unknown fields are dropped by the parser itself (`validate::parse_shaped`).
    let mut root: Value =
        parse_shaped(text).map_err(|e| ImportError::single(ImportErrorKind::NotJson, "", e.to_string()))?;
    let Some(obj) = root.as_object() else {
        return Err(ImportError::single(
            ImportErrorKind::WrongFormat,
            "",
            format!("expected a json object, got {}", describe_value(&root)),
        ));
    };
    match obj.get("format") {
        Some(Value::String(s)) if s == EXPORT_FORMAT => {}
        other => {
            let got = other.map_or("nothing".to_string(), describe_value);
            return Err(ImportError::single(
                ImportErrorKind::WrongFormat,
                "format",
                format!("expected {EXPORT_FORMAT:?}, got {got}"),
            ));
        }
    }
    let range = format!("expected an integer 1..={SCHEMA_VERSION}");
    match obj.get("version") {
        Some(v) => match v.as_u64() {
            Some(n) if n > u64::from(SCHEMA_VERSION) => {
                let kind = ImportErrorKind::UnsupportedVersion { found: n, supported: SCHEMA_VERSION };
                return Err(ImportError { kind, problems: Vec::new(), total: 1 });
            }
            Some(n) if n >= 1 => {}
            _ => {
                return Err(ImportError::invalid(vec![Problem::new(
                    "version",
                    format!("{range}, got {}", describe_value(v)),
                )]))
            }
        },
        None => {
            return Err(ImportError::invalid(vec![Problem::new(
                "version",
                format!("required field is missing; {range}"),
            )]))
        }
    }
    let records: usize = ["projects", "prompts", "runs", "probes", "linkChecks"]
        .iter()
        .filter_map(|k| obj.get(*k).and_then(Value::as_array).map(Vec::len))
        .sum();
    if records > limits.max_records {
        return Err(ImportError::invalid(vec![Problem::new(
            "",
            format!("the file holds {records} records and the limit is {}; split the export", limits.max_records),
        )]));
    }
    let mut sink = Sink::default();
    check_string_sizes(&root, limits.max_string_chars, &Seg::Root, &mut sink);
    check_envelope_shape(&mut root, &mut sink);
    crate::export::location::check_budget_fields(&root, &mut sink);
    if sink.total == 0 {
        check_fact_names(&root, &mut sink);
    }
    if sink.total > 0 {
        return Err(ImportError::from_sink(sink));
    }
    if let Some(probes) = root.get_mut("probes").and_then(Value::as_array_mut) {
        for probe in probes.iter_mut().filter_map(Value::as_object_mut) {
            rebuild_raw_result(probe);
        }
    }
    // Through text rather than `from_value`: the model then has one deserializer (the one
    // every other reader uses, `crate::json`) instead of a second one for `Value`, which
    // keeps the wasm small.
    let text = serde_json::to_string(&root)
        .map_err(|e| ImportError::invalid(vec![Problem::new("", format!("the export cannot be re-encoded: {e}"))]))?;
    let env: ExportEnvelope = crate::json::from_str(&text).map_err(|e| {
        ImportError::invalid(vec![Problem::new(
            "",
            // The position would point into the re-encoded text, not the user's file.
            format!("the export does not fit the data model: {}", without_position(&e.to_string())),
        )])
    })?;
    check_duplicates(&env, &mut sink);
    check_snapshot_sizes(&env, &mut sink);
    check_fact_sheets(&env, &mut sink);
    crate::export::location::check_locations(&env, &mut sink);
    if sink.total > 0 {
        return Err(ImportError::from_sink(sink));
    }
    Ok(env)
}

/// Everything an import needs after [`parse_export`], for every shell: the references are
/// checked against `base` (the stored data the file is merged into: its projects and runs
/// are enough), and every derived field of every probe is recomputed from the raw result
/// with its run's alias snapshot (from the file, else from `base`), so a file can never
/// plant sources, mentions, list items or links of its own. A probe whose run is nowhere is
/// refused by the reference check, never kept with the file's analysis.
pub fn prepare_import(env: &mut ExportEnvelope, base: &ExportEnvelope) -> Result<(), ImportError> {
    let problems = crate::export::validate_against(env, base);
    if !problems.is_empty() {
        return Err(ImportError::invalid(problems));
    }
    let orphans = crate::analysis::analyze_envelope_with(env, &base.runs);
    if !orphans.is_empty() {
        // Unreachable after the reference check; refused rather than kept unanalysed.
        let problems = orphans
            .iter()
            .map(|id| Problem::new("probes", format!("probe {} has no run to analyse it with", quoted(id))))
            .collect();
        return Err(ImportError::invalid(problems));
    }
    Ok(())
}

/// `serde_json`'s message without its trailing ` at line L column C`.
fn without_position(message: &str) -> &str {
    match message.rfind(" at line ") {
        Some(i) if message[i..].contains(" column ") => &message[..i],
        _ => message,
    }
}

/// Fills a probe's missing raw result from its derived fields (original web-app exports).
/// Runs after the shape check, so every present field has the model's shape.
fn rebuild_raw_result(probe: &mut Map<String, Value>) {
    if !probe.contains_key("rawAnswer") {
        if let Some(answer) = probe.get("answer").cloned() {
            probe.insert("rawAnswer".into(), answer);
        }
    }
    let Some(sources) = probe.get("sources").and_then(Value::as_array) else {
        return;
    };
    // (queryIndex, rank) → raw source; queryIndex → query words. Collected in order of
    // appearance, then stably sorted by key and folded to one entry per key (the first
    // source; the first query words given): a key-ordered map without B-tree code.
    let mut raw: Vec<((u64, u64), Value)> = Vec::new();
    let mut queries: Vec<(u64, Option<String>)> = Vec::new();
    for s in sources {
        let occurrences = s.get("occurrences").and_then(Value::as_array);
        for o in occurrences.into_iter().flatten() {
            let qi = o.get("queryIndex").and_then(Value::as_u64).unwrap_or(0);
            let rank = o.get("rank").and_then(Value::as_u64).unwrap_or(0);
            let mut r = Map::new();
            r.insert("queryIndex".into(), qi.into());
            r.insert("rank".into(), rank.into());
            r.insert("title".into(), s.get("title").cloned().unwrap_or_else(|| "".into()));
            r.insert("url".into(), s.get("url").cloned().unwrap_or_else(|| "".into()));
            if let Some(age) = s.get("pageAge") {
                r.insert("pageAge".into(), age.clone());
            }
            raw.push(((qi, rank), Value::Object(r)));
            let words = o.get("query").and_then(Value::as_str).map(str::to_string);
            queries.push((qi, words));
        }
    }
    crate::sort::sort_by_key(&mut raw, |e| e.0);
    raw.dedup_by_key(|e| e.0);
    crate::sort::sort_by_key(&mut queries, |q| q.0);
    queries.dedup_by(|later, kept| {
        let same = later.0 == kept.0;
        if same && kept.1.is_none() {
            kept.1 = later.1.take();
        }
        same
    });
    if !probe.contains_key("rawSources") && !raw.is_empty() {
        probe.insert("rawSources".into(), Value::Array(raw.into_iter().map(|(_, source)| source).collect()));
    }
    if !probe.contains_key("queries") && !queries.is_empty() {
        let list = queries
            .into_iter()
            .map(|(index, words)| {
                let mut q = Map::new();
                q.insert("index".into(), index.into());
                q.insert("internal".into(), words.is_none().into());
                q.insert("query".into(), words.map_or(Value::Null, Value::String));
                Value::Object(q)
            })
            .collect();
        probe.insert("queries".into(), Value::Array(list));
    }
}

/// Added / updated / unchanged records of one kind in a merge.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct KindCount {
    /// Records whose id was new.
    pub added: usize,
    /// Records that replaced a different record with the same id.
    pub updated: usize,
    /// Records identical to the one already stored with the same id.
    pub unchanged: usize,
}

impl KindCount {
    /// added + updated + unchanged.
    pub fn total(&self) -> usize {
        self.added + self.updated + self.unchanged
    }

    fn en(&self, one: &str, many: &str) -> String {
        let mut s = format!(
            "{} {} ({} new, {} updated",
            self.total(),
            plural(self.total(), one, many),
            self.added,
            self.updated
        );
        if self.unchanged > 0 {
            s.push_str(&format!(", {} unchanged", self.unchanged));
        }
        s.push(')');
        s
    }

    fn zh(&self, noun: &str) -> String {
        let mut s = format!("{} 个{noun}（新增 {}，更新 {}", self.total(), self.added, self.updated);
        if self.unchanged > 0 {
            s.push_str(&format!("，未变 {}", self.unchanged));
        }
        s.push('）');
        s
    }
}

/// What [`merge_into`] did, per kind.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MergeReport {
    /// Projects.
    pub projects: KindCount,
    /// Prompts.
    pub prompts: KindCount,
    /// Runs.
    pub runs: KindCount,
    /// Probes.
    pub probes: KindCount,
    /// Answer-link checks (one per run; `runId` is their id).
    pub link_checks: KindCount,
}

impl MergeReport {
    /// The summary in both interface languages, for the UI.
    pub fn describe(&self) -> Localized {
        let mut zh = format!(
            "已合并 {}、{}、{}、{}",
            self.projects.zh("项目"),
            self.prompts.zh("提示词"),
            self.runs.zh("批次"),
            self.probes.zh("探测")
        );
        if self.link_checks.total() > 0 {
            zh.push_str(&format!("、{}", self.link_checks.zh("链接检查")));
        }
        Localized::new(zh, self.to_string())
    }
}

impl fmt::Display for MergeReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "merged {}, {}, {}, {}",
            self.projects.en("project", "projects"),
            self.prompts.en("prompt", "prompts"),
            self.runs.en("run", "runs"),
            self.probes.en("probe", "probes")
        )?;
        if self.link_checks.total() > 0 {
            write!(f, ", {}", self.link_checks.en("link check", "link checks"))?;
        }
        Ok(())
    }
}

trait HasId {
    fn id(&self) -> &str;
}
macro_rules! has_id {
    ($($t:ty),*) => {$(impl HasId for $t { fn id(&self) -> &str { &self.id } })*};
}
has_id!(crate::model::Project, crate::model::Prompt, crate::model::Run, crate::model::Probe);

/// A link check's id is its run's: one record per run, a second check replaces the first.
impl HasId for crate::model::LinkCheck {
    fn id(&self) -> &str {
        &self.run_id
    }
}

fn merge_kind<T: HasId + PartialEq>(base: &mut Vec<T>, incoming: Vec<T>) -> KindCount {
    let mut count = KindCount::default();
    let mut index: HashMap<String, usize> = HashMap::new();
    for (i, r) in base.iter().enumerate() {
        index.entry(r.id().to_string()).or_insert(i);
    }
    for record in incoming {
        match index.get(record.id()) {
            Some(&i) => {
                if base[i] == record {
                    count.unchanged += 1;
                } else {
                    count.updated += 1;
                    base[i] = record;
                }
            }
            None => {
                index.insert(record.id().to_string(), base.len());
                base.push(record);
                count.added += 1;
            }
        }
    }
    count
}

/// Merges `incoming` into `base` by id, per kind (a link check by its `runId`): a new id is
/// appended, an existing id is overwritten in place. `base`'s own `format`, `version`, `exportedAt` and
/// `appVersion` are kept. Cannot fail: validate first with [`parse_export`] and
/// [`crate::export::validate_against`], and the import is all-or-nothing.
pub fn merge_into(base: &mut ExportEnvelope, incoming: ExportEnvelope) -> MergeReport {
    MergeReport {
        projects: merge_kind(&mut base.projects, incoming.projects),
        prompts: merge_kind(&mut base.prompts, incoming.prompts),
        runs: merge_kind(&mut base.runs, incoming.runs),
        probes: merge_kind(&mut base.probes, incoming.probes),
        link_checks: merge_kind(&mut base.link_checks, incoming.link_checks),
    }
}

/// One-line summary for `geo-probe validate`: records per kind and probes per status,
/// e.g. `2 projects, 5 prompts, 1 run, 9 probes (7 success, 1 error, 1 empty, 0 cancelled)`.
pub fn summarize(env: &ExportEnvelope) -> String {
    let by = |s: ProbeStatus| env.probes.iter().filter(|p| p.status == s).count();
    let n = |k: usize, one: &str, many: &str| format!("{k} {}", plural(k, one, many));
    format!(
        "{}, {}, {}, {} ({} success, {} error, {} empty, {} cancelled)",
        n(env.projects.len(), "project", "projects"),
        n(env.prompts.len(), "prompt", "prompts"),
        n(env.runs.len(), "run", "runs"),
        n(env.probes.len(), "probe", "probes"),
        by(ProbeStatus::Success),
        by(ProbeStatus::Error),
        by(ProbeStatus::Empty),
        by(ProbeStatus::Cancelled)
    )
}

#[cfg(test)]
mod tests {
    use super::rebuild_raw_result;
    use serde_json::{json, Value};

    #[test]
    fn rebuilt_raw_result_is_key_ordered_and_keeps_the_first_entry_per_key() {
        let mut probe = json!({"answer": "a", "sources": [
            {"title": "t2", "url": "u2", "occurrences": [
                {"queryIndex": 2, "rank": 1},
                {"queryIndex": 1, "rank": 2, "query": "first words"}]},
            {"title": "t1", "url": "u1", "occurrences": [
                {"queryIndex": 1, "rank": 2, "query": "later words"},
                {"queryIndex": 2, "rank": 1, "query": "given later"},
                {"queryIndex": 1, "rank": 1}]}
        ]});
        let Value::Object(map) = &mut probe else { unreachable!() };
        rebuild_raw_result(map);
        let raw: Vec<(u64, u64, &str)> = probe["rawSources"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| (r["queryIndex"].as_u64().unwrap(), r["rank"].as_u64().unwrap(), r["url"].as_str().unwrap()))
            .collect();
        assert_eq!(raw, [(1, 1, "u1"), (1, 2, "u2"), (2, 1, "u2")]);
        let queries: Vec<(u64, Option<&str>)> = probe["queries"]
            .as_array()
            .unwrap()
            .iter()
            .map(|q| (q["index"].as_u64().unwrap(), q["query"].as_str()))
            .collect();
        assert_eq!(queries, [(1, Some("first words")), (2, Some("given later"))]);
    }
}
