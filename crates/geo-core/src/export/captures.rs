//! App answers beside API answers: a file of answers captured from an assistant's consumer app
//! becomes an `app` run (`shared/spec/cli.md`, `geo-probe import-captures`; engines.md, "Precise
//! rules"), analysed like any run.
//!
//! A capture file is JSON, `{"captures": [{prompt, answer, capturedAt, sources?, citations?,
//! model?, location?}]}`, or CSV with the header `prompt,answer,captured_at,source_urls,cited_urls`
//! exactly (RFC 4180 through [`parse_csv`]: UTF-8 with or without a BOM, quoted fields may hold
//! line breaks and commas; URLs separated by white space). Each capture is one probe: `success`,
//! or `empty` when its answer is blank; `attempts` 1, usage zeros; its sources those listed (one
//! internal query, ranks in order), its `rawCitations` those listed (absent when none), its
//! `model` the capture's or `app`, its `createdAt` its `capturedAt` (an ISO 8601 time with an
//! offset or `Z`, stored in UTC). The captures of one prompt are its repeats in file order.
//!
//! # The one decision: all or nothing, every problem named where it is
//!
//! [`import_captures`] reads the whole file and builds the whole run before anything is
//! returned: a broken row (`row 4: captured_at …`, `captures[3].sources[0].url: …`) or an unknown
//! prompt (named, unless `add_prompts`) is an error and nothing is imported. The shells only
//! read the two files and write the result ([`CaptureImport::apply`]) atomically.
//!
//! An app's interface text (a feedback question, "sources", buttons) copied with the answer would
//! count as Mentions; when every capture begins (or ends) with the same text of at least
//! [`COMMON_TEXT_CHARS`] characters, the import says so ([`CaptureImport::warnings`]) and keeps
//! the captures as they are.

use std::collections::HashMap;

use serde_json::{Map, Value};

use crate::analysis::clean::clean_answer;
use crate::analysis::RunAnalyzer;
use crate::export::csv::parse_csv;
use crate::limits;
use crate::model::{
    probe_id, EngineId, ErrorKind, ExportEnvelope, Localized, Location, LocationApplied, Probe, ProbeError,
    ProbeStatus, Prompt, Query, RawCitation, RawSource, Run, RunConfig, RunStatus, Surface, Usage, APP_MODEL,
    APP_VERSION, SCHEMA_VERSION,
};
use crate::text::nfkc_trimmed;
use crate::timestamp::{iso_timestamp, parse_iso_micros};

/// The CSV header, exactly.
pub const CSV_HEADER: [&str; 5] = ["prompt", "answer", "captured_at", "source_urls", "cited_urls"];

/// Shortest text every capture must begin or end with for the interface-text warning.
pub const COMMON_TEXT_CHARS: usize = 40;

/// How much of that text the warning quotes.
pub const QUOTED_CHARS: usize = 80;

/// A page a capture lists (`sources`, `citations`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CapturedLink {
    /// An `http` or `https` URL.
    pub url: String,
    /// Its title, when the file gives one.
    pub title: Option<String>,
}

/// One answer captured from an app.
#[derive(Debug, Clone, PartialEq)]
pub struct Capture {
    /// A prompt id of the project, or a prompt's text.
    pub prompt: String,
    /// The assistant's text, with its line breaks.
    pub answer: String,
    /// When it was captured, as an ISO 8601 UTC time of the data model.
    pub captured_at: String,
    /// The pages the app showed as its sources (empty: none).
    pub sources: Vec<CapturedLink>,
    /// The pages the answer cites (empty: none; `"citations": []` counts as none).
    pub citations: Vec<CapturedLink>,
    /// The model the app named.
    pub model: Option<String>,
    /// Where the capture was made.
    pub location: Option<Location>,
    /// Where it is in the file (`captures[3]`, `row 4`), for messages.
    pub place: String,
}

/// What kind of problem refused a capture file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CaptureErrorKind {
    /// The file is not a capture file (not JSON of that shape, or CSV without the header).
    Format,
    /// A capture (a row) is broken.
    Capture,
    /// A capture names a prompt the project does not have.
    UnknownPrompt,
    /// The project, or the file's size or number of captures, is not one that can be imported.
    Input,
}

/// Why a capture file was refused: nothing was imported.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CaptureError {
    /// What kind of problem.
    pub kind: CaptureErrorKind,
    /// Where (`captures[3].capturedAt`, `row 4`), empty for the file as a whole.
    pub place: String,
    /// What is wrong and what to do.
    pub message: Localized,
}

impl CaptureError {
    fn new(kind: CaptureErrorKind, place: impl Into<String>, zh: impl Into<String>, en: impl Into<String>) -> Self {
        CaptureError { kind, place: place.into(), message: Localized::new(zh, en) }
    }

    /// The error in both interface languages, its place first.
    pub fn localized(&self) -> Localized {
        if self.place.is_empty() {
            return self.message.clone();
        }
        Localized::new(format!("{}：{}", self.place, self.message.zh), format!("{}: {}", self.place, self.message.en))
    }
}

crate::model::localized_error!(CaptureError);

/// A quoted value for a message: at most 60 characters, line breaks shown as `\n`.
fn quoted(text: &str) -> String {
    let short: String = text.chars().take(60).collect();
    let dots = if short.len() < text.len() { "…" } else { "" };
    format!("{short:?}{dots}")
}

fn broken(place: &str, zh: String, en: String) -> CaptureError {
    CaptureError::new(CaptureErrorKind::Capture, place, zh, en)
}

/// Reads a capture file: JSON when its first character (after a BOM and white space) is `{`,
/// else CSV. Every capture is checked (its time, its URLs, its location); nothing is matched
/// against a project yet.
pub fn parse_captures(text: &str) -> Result<Vec<Capture>, CaptureError> {
    if text.len() > limits::MAX_EXPORT_BYTES {
        return Err(CaptureError::new(
            CaptureErrorKind::Input,
            "",
            format!("采集文件超过 {} MiB 的上限，请拆分后再导入", limits::MAX_EXPORT_BYTES >> 20),
            format!("the capture file is over the limit of {} MiB; split it", limits::MAX_EXPORT_BYTES >> 20),
        ));
    }
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let captures = if text.trim_start().starts_with('{') { parse_json(text)? } else { parse_csv_captures(text)? };
    if captures.is_empty() {
        return Err(CaptureError::new(
            CaptureErrorKind::Format,
            "",
            "采集文件里没有回答",
            "the capture file holds no captures; add at least one",
        ));
    }
    let limit = limits::MAX_PROBES_PER_RUN as usize;
    if captures.len() > limit {
        return Err(CaptureError::new(
            CaptureErrorKind::Input,
            "",
            format!("采集文件有 {} 条回答，超过一个批次 {limit} 条的上限；请拆成几个文件", captures.len()),
            format!(
                "the file holds {} captures, above the limit of {limit} a run; split it into several files",
                captures.len()
            ),
        ));
    }
    Ok(captures)
}

fn parse_json(text: &str) -> Result<Vec<Capture>, CaptureError> {
    let root: Value = serde_json::from_str(text).map_err(|e| {
        CaptureError::new(
            CaptureErrorKind::Format,
            "",
            format!("采集文件不是有效的 JSON：{e}"),
            format!("the capture file is not valid json: {e}"),
        )
    })?;
    let Some(items) = root.get("captures").and_then(Value::as_array) else {
        return Err(CaptureError::new(
            CaptureErrorKind::Format,
            "",
            "JSON 采集文件应为 {\"captures\": [...]}",
            "a json capture file is an object {\"captures\": [...]}; put the captures in that array",
        ));
    };
    items.iter().enumerate().map(|(i, item)| json_capture(item, &format!("captures[{i}]"))).collect()
}

/// One JSON capture, every field checked at its path.
fn json_capture(item: &Value, place: &str) -> Result<Capture, CaptureError> {
    let Some(obj) = item.as_object() else {
        return Err(broken(place, "应为对象".into(), "expected an object {prompt, answer, capturedAt, …}".into()));
    };
    let text = |key: &str, required: bool| -> Result<Option<String>, CaptureError> {
        match obj.get(key) {
            None | Some(Value::Null) if required => Err(broken(
                &format!("{place}.{key}"),
                "缺少必填字段".into(),
                "required field is missing or null".into(),
            )),
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(_) => Err(broken(&format!("{place}.{key}"), "应为字符串".into(), "expected a string".into())),
        }
    };
    let prompt = text("prompt", true)?.unwrap_or_default();
    let answer = text("answer", true)?.unwrap_or_default();
    let captured_at = captured_at(&text("capturedAt", true)?.unwrap_or_default(), &format!("{place}.capturedAt"))?;
    let model = text("model", false)?.map(|m| m.trim().to_string()).filter(|m| !m.is_empty());
    let location = match obj.get("location") {
        None | Some(Value::Null) => None,
        Some(v) => Some(json_location(v, &format!("{place}.location"))?),
    };
    Ok(Capture {
        prompt,
        answer,
        captured_at,
        sources: json_links(obj, "sources", place)?,
        citations: json_links(obj, "citations", place)?,
        model,
        location,
        place: place.to_string(),
    })
}

fn json_links(obj: &Map<String, Value>, key: &str, place: &str) -> Result<Vec<CapturedLink>, CaptureError> {
    let items = match obj.get(key) {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Array(items)) => items,
        Some(_) => {
            return Err(broken(
                &format!("{place}.{key}"),
                "应为数组".into(),
                "expected an array of {url, title?}".into(),
            ))
        }
    };
    items
        .iter()
        .enumerate()
        .map(|(i, link)| {
            let at = format!("{place}.{key}[{i}]");
            let url = link.get("url").and_then(Value::as_str).ok_or_else(|| {
                broken(
                    &at,
                    "应为 {url, title?}，url 为字符串".into(),
                    "expected {url, title?} with a url string".into(),
                )
            })?;
            let title = match link.get("title") {
                None | Some(Value::Null) => None,
                Some(Value::String(t)) => Some(t.clone()),
                Some(_) => return Err(broken(&format!("{at}.title"), "应为字符串".into(), "expected a string".into())),
            };
            Ok(CapturedLink { url: checked_url(url, &format!("{at}.url"))?, title })
        })
        .collect()
}

fn json_location(v: &Value, place: &str) -> Result<Location, CaptureError> {
    let part = |k: &str| v.get(k).and_then(Value::as_str);
    let Some(country) = part("country").filter(|_| v.is_object()) else {
        return Err(broken(
            place,
            "应为 {country, region?, city?, timezone?}".into(),
            "expected {country, region?, city?, timezone?} with a country code".into(),
        ));
    };
    Location::new(country, part("region"), part("city"), part("timezone")).map_err(|problem| {
        let field = problem.field();
        let at = if field.is_empty() { place.to_string() } else { format!("{place}.{field}") };
        let why = problem.localized();
        broken(&at, why.zh, why.en)
    })
}

fn parse_csv_captures(text: &str) -> Result<Vec<Capture>, CaptureError> {
    let records = parse_csv(text).map_err(|e| {
        CaptureError::new(
            CaptureErrorKind::Capture,
            format!("row {}", e.record),
            format!("CSV 格式有误：{}（RFC 4180：字段含逗号、引号或换行时加英文双引号，行尾为 CRLF）", e.message),
            format!(
                "the csv is malformed: {} (RFC 4180: quote a field that holds a comma, a quote or a line break; end rows with CRLF)",
                e.message
            ),
        )
    })?;
    let Some((header, rows)) = records.split_first() else { return Ok(Vec::new()) };
    if header.iter().map(String::as_str).ne(CSV_HEADER) {
        return Err(CaptureError::new(
            CaptureErrorKind::Format,
            "row 1",
            format!("CSV 表头应为 {}，实际为 {}", CSV_HEADER.join(","), quoted(&header.join(","))),
            format!("the csv header must be exactly {}, got {}", CSV_HEADER.join(","), quoted(&header.join(","))),
        ));
    }
    rows.iter()
        .enumerate()
        .map(|(i, row)| {
            // Row 1 is the header: a data row's number is the spreadsheet's.
            let place = format!("row {}", i + 2);
            let links = |cell: &str, column: &str| -> Result<Vec<CapturedLink>, CaptureError> {
                cell.split_whitespace()
                    .map(|u| Ok(CapturedLink { url: checked_url(u, &format!("{place}, {column}"))?, title: None }))
                    .collect()
            };
            Ok(Capture {
                prompt: row[0].clone(),
                answer: row[1].clone(),
                captured_at: captured_at(&row[2], &format!("{place}, captured_at"))?,
                sources: links(&row[3], "source_urls")?,
                citations: links(&row[4], "cited_urls")?,
                model: None,
                location: None,
                place,
            })
        })
        .collect()
}

/// An ISO 8601 time with an offset or `Z` as the data model's UTC time.
fn captured_at(text: &str, place: &str) -> Result<String, CaptureError> {
    let t = text.trim();
    let has_time = t.len() > 10 && matches!(t.as_bytes()[10], b'T' | b't' | b' ');
    let ms = parse_iso_micros(t).filter(|_| has_time).and_then(|us| u64::try_from(us.div_euclid(1000)).ok());
    ms.map(iso_timestamp).ok_or_else(|| {
        broken(
            place,
            format!("时间 {} 不是带时区的 ISO 8601 时间，例如 2026-12-01T09:30:00+08:00 或 2026-12-01T01:30:00Z", quoted(t)),
            format!(
                "time {} is not an ISO 8601 time with an offset or Z, such as 2026-12-01T09:30:00+08:00 or 2026-12-01T01:30:00Z",
                quoted(t)
            ),
        )
    })
}

/// An `http`/`https` URL as given (trimmed).
fn checked_url(url: &str, place: &str) -> Result<String, CaptureError> {
    let u = url.trim();
    match url::Url::parse(u) {
        Ok(parsed) if matches!(parsed.scheme(), "http" | "https") && parsed.host().is_some() => Ok(u.to_string()),
        _ => Err(broken(
            place,
            format!("{} 不是 http(s) 网址", quoted(u)),
            format!("{} is not an http(s) url; write it whole, such as https://example.com/page", quoted(u)),
        )),
    }
}

/// How [`import_captures`] makes the run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CaptureOptions {
    /// The project the captures belong to.
    pub project_id: String,
    /// The engine whose app answered.
    pub engine: EngineId,
    /// The new run's id (ids are the shell's: geo-core draws none).
    pub run_id: String,
    /// Now, as the data model's UTC time: the `createdAt`/`updatedAt` of added prompts.
    pub now: String,
    /// Add a prompt the project does not have (its NFKC-trimmed text, tags `[]`) instead of
    /// refusing the file.
    pub add_prompts: bool,
}

/// An `app` run made of captures, ready to be added to an export.
#[derive(Debug, Clone, PartialEq)]
pub struct CaptureImport {
    /// The run (`surface: app`).
    pub run: Run,
    /// Its probes, analysed.
    pub probes: Vec<Probe>,
    /// The prompts added to the project (`add_prompts`), in file order.
    pub added_prompts: Vec<Prompt>,
    /// What the user should know (the common interface text), in both languages.
    pub warnings: Vec<Localized>,
}

impl CaptureImport {
    /// Adds the prompts, the run and its probes to `env` (nothing of `env` is replaced: the
    /// run id is new).
    pub fn apply(self, env: &mut ExportEnvelope) {
        env.prompts.extend(self.added_prompts);
        env.runs.push(self.run);
        env.probes.extend(self.probes);
    }
}

/// Reads `text` ([`parse_captures`]) and builds the `app` run of `options.engine` for project
/// `options.project_id` of `env` (see the module documentation; engines.md, "Precise rules"):
/// all or nothing.
pub fn import_captures(
    env: &ExportEnvelope,
    text: &str,
    options: &CaptureOptions,
) -> Result<CaptureImport, CaptureError> {
    let captures = parse_captures(text)?;
    build_app_run(env, &captures, options)
}

/// [`import_captures`] from captures already read.
pub fn build_app_run(
    env: &ExportEnvelope,
    captures: &[Capture],
    options: &CaptureOptions,
) -> Result<CaptureImport, CaptureError> {
    let project = env.projects.iter().find(|p| p.id == options.project_id).ok_or_else(|| {
        CaptureError::new(
            CaptureErrorKind::Input,
            "",
            format!("导出文件里没有项目 {}", options.project_id),
            format!("project {} is not in the export; pass the id of one of its projects", options.project_id),
        )
    })?;
    if env.run(&options.run_id).is_some() {
        return Err(CaptureError::new(
            CaptureErrorKind::Input,
            "",
            format!("批次 id {} 已存在", options.run_id),
            format!("run id {} is taken; pass another", options.run_id),
        ));
    }
    let Matched { ids: prompt_of, prompts: mut snapshot_order, added } = match_prompts(env, captures, options)?;
    // Repeats in file order, per prompt.
    let mut repeats: HashMap<&str, u32> = HashMap::new();
    let alias_snapshot = project.targets();
    let fact_snapshot = project.fact_snapshot();
    let analyzer = RunAnalyzer::with_facts(&alias_snapshot, fact_snapshot.as_ref(), options.engine);
    let mut probes = Vec::with_capacity(captures.len());
    for (capture, prompt_id) in captures.iter().zip(&prompt_of) {
        let n = repeats.entry(prompt_id.as_str()).or_insert(0);
        let mut probe = capture_probe(&options.run_id, &options.project_id, prompt_id, *n, capture);
        *n += 1;
        analyzer.analyze(&mut probe);
        probes.push(probe);
    }
    // The snapshot in project order (existing prompts, then the added ones): those captured.
    snapshot_order.retain(|p| repeats.contains_key(p.id.as_str()));
    let most = repeats.values().copied().max().unwrap_or(1);
    let first = captures.first().and_then(|c| c.location.clone());
    let location = first.filter(|l| captures.iter().all(|c| c.location.as_ref() == Some(l)));
    let created_at = probes.iter().map(|p| p.created_at.as_str()).min().unwrap_or_default().to_string();
    let finished_at = probes.iter().map(|p| p.created_at.as_str()).max().map(str::to_string);
    let status =
        if probes.iter().any(|p| p.status == ProbeStatus::Success) { RunStatus::Completed } else { RunStatus::Failed };
    let run = Run {
        previous_run_id: previous_app_run(env, &options.project_id, options.engine, &created_at),
        id: options.run_id.clone(),
        project_id: options.project_id.clone(),
        status,
        created_at,
        finished_at,
        app_version: APP_VERSION.to_string(),
        schema_version: SCHEMA_VERSION,
        config: RunConfig::for_app(options.engine, most, location),
        alias_snapshot,
        prompt_snapshot: snapshot_order,
        planned_probe_count: captures.len() as u32,
        group_id: None,
        fact_snapshot,
        surface: Surface::App,
    };
    Ok(CaptureImport { run, probes, added_prompts: added, warnings: common_text_warnings(captures) })
}

/// The captures' prompts: each capture's prompt id, the project's prompts (existing, then
/// added) and the prompts added.
struct Matched {
    ids: Vec<String>,
    prompts: Vec<Prompt>,
    added: Vec<Prompt>,
}

/// [`Matched`] of `captures` in the project of `options`.
fn match_prompts(
    env: &ExportEnvelope,
    captures: &[Capture],
    options: &CaptureOptions,
) -> Result<Matched, CaptureError> {
    let mut prompts: Vec<Prompt> = Vec::new();
    let mut by_id: HashMap<String, usize> = HashMap::new();
    let mut by_text: HashMap<String, usize> = HashMap::new();
    for p in env.prompts.iter().filter(|p| p.project_id == options.project_id) {
        if by_id.contains_key(&p.id) {
            continue;
        }
        by_id.insert(p.id.clone(), prompts.len());
        by_text.entry(nfkc_trimmed(&p.text)).or_insert(prompts.len());
        prompts.push(p.clone());
    }
    let taken: std::collections::HashSet<&str> = env.prompts.iter().map(|p| p.id.as_str()).collect();
    let mut added = Vec::new();
    let mut ids = Vec::with_capacity(captures.len());
    for c in captures {
        let key = nfkc_trimmed(&c.prompt);
        if key.is_empty() {
            return Err(broken(
                &c.place,
                "提示词为空".into(),
                "the prompt is blank; give a prompt id or its text".into(),
            ));
        }
        let found = by_id.get(c.prompt.trim()).or_else(|| by_text.get(&key)).copied();
        let at = match found {
            Some(at) => at,
            None if options.add_prompts => {
                let mut n = added.len() + 1;
                let mut id = format!("{}_p{n}", options.run_id);
                while taken.contains(id.as_str()) || by_id.contains_key(&id) {
                    n += 1;
                    id = format!("{}_p{n}", options.run_id);
                }
                let prompt = Prompt {
                    id: id.clone(),
                    project_id: options.project_id.clone(),
                    text: key.clone(),
                    tags: Vec::new(),
                    created_at: options.now.clone(),
                    updated_at: options.now.clone(),
                };
                by_id.insert(id, prompts.len());
                by_text.insert(key, prompts.len());
                prompts.push(prompt.clone());
                added.push(prompt);
                prompts.len() - 1
            }
            None => {
                return Err(CaptureError::new(
                    CaptureErrorKind::UnknownPrompt,
                    c.place.clone(),
                    format!("项目 {} 没有提示词 {}；请用项目里的提示词 id 或原文，或加 --add-prompts 把它加入项目", options.project_id, quoted(c.prompt.trim())),
                    format!(
                        "unknown prompt {}: project {} has no prompt with that id or text; use a prompt id or its exact text, or pass --add-prompts to add it",
                        quoted(c.prompt.trim()),
                        options.project_id
                    ),
                ))
            }
        };
        ids.push(prompts[at].id.clone());
    }
    Ok(Matched { ids, prompts, added })
}

/// The probe of one capture (engines.md, "Precise rules"), not yet analysed.
fn capture_probe(run_id: &str, project_id: &str, prompt_id: &str, repeat: u32, c: &Capture) -> Probe {
    let blank = clean_answer(&c.answer).trim().is_empty();
    let (status, error) = if blank {
        let message = "the captured answer is blank; capture the assistant's text again".to_string();
        (ProbeStatus::Empty, Some(ProbeError { kind: ErrorKind::Empty, http_status: None, message }))
    } else {
        (ProbeStatus::Success, None)
    };
    let searched = !c.sources.is_empty();
    Probe {
        model: c.model.clone().unwrap_or_else(|| APP_MODEL.to_string()),
        attempts: 1,
        latency_ms: 0,
        error,
        request_id: None,
        stop_reason: None,
        usage: Usage::default(),
        truncated: false,
        billed_usage: Some(Usage::default()),
        continuations: 0,
        cost_usd: None,
        location_applied: LocationApplied::None,
        raw_answer: c.answer.clone(),
        queries: if searched { vec![Query { index: 1, query: None, internal: true, error: None }] } else { Vec::new() },
        raw_sources: c
            .sources
            .iter()
            .enumerate()
            .map(|(i, s)| RawSource {
                query_index: 1,
                rank: i as u32 + 1,
                title: s.title.clone().unwrap_or_default(),
                url: s.url.clone(),
                page_age: None,
                site_name: None,
            })
            .collect(),
        raw_citations: (!c.citations.is_empty()).then(|| {
            c.citations
                .iter()
                .map(|l| RawCitation { url: l.url.clone(), title: l.title.clone(), cited_text: None, index: None })
                .collect()
        }),
        ..Probe::unanalysed(
            probe_id(run_id, prompt_id, repeat),
            run_id,
            project_id,
            prompt_id,
            repeat,
            status,
            c.captured_at.clone(),
        )
    }
}

/// The newest completed or partial `app` run of the project and engine created before
/// `created_at` (runs point only at runs of their own surface): the last such run of
/// [`ExportEnvelope::runs_in_order`].
fn previous_app_run(env: &ExportEnvelope, project_id: &str, engine: EngineId, created_at: &str) -> Option<String> {
    env.runs_in_order()
        .into_iter()
        .rev()
        .filter(|r| r.project_id == project_id && r.config.engine == engine && r.surface == Surface::App)
        .find(|r| matches!(r.status, RunStatus::Completed | RunStatus::Partial) && r.created_at.as_str() < created_at)
        .map(|r| r.id.clone())
}

/// One warning per side (beginning, end) when every capture's answer has the same text of at
/// least [`COMMON_TEXT_CHARS`] characters there (two captures or more).
pub fn common_text_warnings(captures: &[Capture]) -> Vec<Localized> {
    if captures.len() < 2 {
        return Vec::new();
    }
    let answers: Vec<&str> = captures.iter().map(|c| c.answer.as_str()).collect();
    let mut warnings = Vec::new();
    let prefix = common_chars(&answers, false);
    let suffix = common_chars(&answers, true);
    for (common, zh_side, en_side) in [(prefix, "开头", "begins"), (suffix, "结尾", "ends")] {
        if common.chars().count() >= COMMON_TEXT_CHARS {
            let quote = quoted_text(&common);
            warnings.push(Localized::new(
                format!("每条回答的{zh_side}都相同：{quote}；这可能是应用的界面文字（会被当作提及计算），已按原样导入"),
                format!(
                    "every captured answer {en_side} with the same text, {quote}: interface text of the app would count as Mentions; the captures were imported as they are"
                ),
            ));
        }
    }
    warnings
}

/// The first [`QUOTED_CHARS`] characters of `text`, quoted.
fn quoted_text(text: &str) -> String {
    let short: String = text.chars().take(QUOTED_CHARS).collect();
    format!("{short:?}")
}

/// The longest text all `answers` begin (or, with `from_end`, end) with.
fn common_chars(answers: &[&str], from_end: bool) -> String {
    let Some((first, rest)) = answers.split_first() else { return String::new() };
    let mut len = first.len();
    for a in rest {
        let common = if from_end {
            first.bytes().rev().zip(a.bytes().rev()).take_while(|(x, y)| x == y).count()
        } else {
            first.bytes().zip(a.bytes()).take_while(|(x, y)| x == y).count()
        };
        len = len.min(common);
        if len == 0 {
            return String::new();
        }
    }
    // Back to a character boundary of `first`.
    if from_end {
        let mut start = first.len() - len;
        while !first.is_char_boundary(start) {
            start += 1;
        }
        first[start..].to_string()
    } else {
        let mut end = len;
        while !first.is_char_boundary(end) {
            end -= 1;
        }
        first[..end].to_string()
    }
}
