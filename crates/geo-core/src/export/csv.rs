//! The Probe CSV and Source CSV (seed §8.3), an RFC 4180 writer and a strict reader.
//!
//! Files are UTF-8 with a byte-order mark (so Excel opens Chinese text correctly),
//! CRLF after every record including the last, and fields quoted only when they contain
//! `,`, `"`, CR or LF (quotes doubled inside).
//!
//! Formula injection: a spreadsheet treats a cell starting with `=`, `+`, `-`, `@`, tab or
//! CR as a formula, and answers and titles come from the web. Every text cell starting
//! with one of those characters gets a leading `'`, which spreadsheets show as text.
//! Numbers the exporter writes itself go through [`CsvWriter::number`], which bypasses the
//! neutralisation (they are non-negative, so they never start with `-` anyway).
//!
//! Headers are the stable camelCase column names listed on [`probes_csv`] and
//! [`sources_csv`], for scripts; the rows of one run follow the JSON export's probe order.

use std::borrow::Cow;
use std::collections::HashMap;

use rustc_hash::FxHashSet;
use std::fmt;

use crate::export::json::{sort_probes, ExportError};
use crate::model::{ExportEnvelope, Probe, ProbeStatus, Run, Target, TargetKind};

/// UTF-8 byte-order mark written at the start of every CSV file.
pub const BOM: char = '\u{feff}';

/// Characters that make a spreadsheet read a cell as a formula.
const FORMULA_STARTS: &[char] = &['=', '+', '-', '@', '\t', '\r'];

/// The cell as a spreadsheet should show it: prefixed with `'` when it starts with a
/// formula character (`=`, `+`, `-`, `@`, tab, CR), unchanged otherwise.
pub fn neutralize(cell: &str) -> Cow<'_, str> {
    if cell.starts_with(FORMULA_STARTS) {
        Cow::Owned(format!("'{cell}"))
    } else {
        Cow::Borrowed(cell)
    }
}

/// The field as RFC 4180 writes it: in double quotes with inner quotes doubled when it
/// contains `,`, `"`, CR or LF; unchanged otherwise.
pub fn quote(field: &str) -> Cow<'_, str> {
    if field.contains([',', '"', '\r', '\n']) {
        Cow::Owned(format!("\"{}\"", field.replace('"', "\"\"")))
    } else {
        Cow::Borrowed(field)
    }
}

/// Builds a CSV file row by row: BOM first, cells separated by commas, CRLF after each row.
#[derive(Debug, Clone)]
pub struct CsvWriter {
    out: String,
    row_has_cells: bool,
}

impl Default for CsvWriter {
    fn default() -> Self {
        Self::new()
    }
}

impl CsvWriter {
    /// A writer whose output starts with the UTF-8 byte-order mark.
    pub fn new() -> Self {
        let mut out = String::new();
        out.push(BOM);
        CsvWriter { out, row_has_cells: false }
    }

    fn sep(&mut self) {
        if self.row_has_cells {
            self.out.push(',');
        }
        self.row_has_cells = true;
    }

    /// Appends a text cell, neutralised against formula injection and quoted as needed.
    pub fn text(&mut self, cell: &str) -> &mut Self {
        self.sep();
        let safe = neutralize(cell);
        self.out.push_str(&quote(&safe));
        self
    }

    /// Appends a number written by the exporter itself; never neutralised.
    pub fn number(&mut self, n: u64) -> &mut Self {
        self.sep();
        self.out.push_str(&n.to_string());
        self
    }

    /// Appends a number, or an empty cell for `None`.
    pub fn opt_number(&mut self, n: Option<u64>) -> &mut Self {
        match n {
            Some(n) => self.number(n),
            None => self.empty(),
        }
    }

    /// Appends an empty cell.
    pub fn empty(&mut self) -> &mut Self {
        self.sep();
        self
    }

    /// Appends one text cell per item: a header row, typically.
    pub fn texts(&mut self, cells: &[&str]) -> &mut Self {
        for c in cells {
            self.text(c);
        }
        self
    }

    /// Ends the current row with CRLF.
    pub fn end_row(&mut self) -> &mut Self {
        self.out.push_str("\r\n");
        self.row_has_cells = false;
        self
    }

    /// The file's text.
    pub fn finish(self) -> String {
        self.out
    }
}

/// Why [`parse_csv`] refused a text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CsvParseError {
    /// 1-based record number where the problem was found.
    pub record: usize,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for CsvParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "csv record {}: {}", self.record, self.message)
    }
}

impl std::error::Error for CsvParseError {}

/// A strict RFC 4180 reader: strips a leading BOM; records end with CRLF (the last one
/// may omit it); a quoted field may hold anything with `""` for a quote; an unquoted field
/// may hold neither `"` nor a bare CR or LF; every record has as many fields as the first.
pub fn parse_csv(text: &str) -> Result<Vec<Vec<String>>, CsvParseError> {
    let text = text.strip_prefix(BOM).unwrap_or(text);
    let mut records: Vec<Vec<String>> = Vec::new();
    let mut record: Vec<String> = Vec::new();
    let mut field = String::new();
    let mut chars = text.chars().peekable();
    let err = |records: &Vec<Vec<String>>, message: String| CsvParseError { record: records.len() + 1, message };
    if chars.peek().is_none() {
        return Ok(records);
    }
    loop {
        // At the start of a field.
        if chars.peek() == Some(&'"') {
            chars.next();
            loop {
                match chars.next() {
                    None => return Err(err(&records, "a quoted field is not closed".into())),
                    Some('"') => {
                        if chars.peek() == Some(&'"') {
                            chars.next();
                            field.push('"');
                        } else {
                            break;
                        }
                    }
                    Some(c) => field.push(c),
                }
            }
        } else {
            while let Some(&c) = chars.peek() {
                match c {
                    ',' | '\r' => break,
                    '"' => return Err(err(&records, "a quote inside an unquoted field".into())),
                    '\n' => return Err(err(&records, "a bare LF; records end with CRLF".into())),
                    _ => {
                        field.push(c);
                        chars.next();
                    }
                }
            }
        }
        // After a field: a comma, CRLF or the end.
        match chars.next() {
            Some(',') => record.push(std::mem::take(&mut field)),
            Some('\r') => {
                if chars.next() != Some('\n') {
                    return Err(err(&records, "a bare CR; records end with CRLF".into()));
                }
                record.push(std::mem::take(&mut field));
                push_record(&mut records, std::mem::take(&mut record))?;
                if chars.peek().is_none() {
                    return Ok(records);
                }
            }
            None => {
                record.push(std::mem::take(&mut field));
                push_record(&mut records, record)?;
                return Ok(records);
            }
            Some(c) => return Err(err(&records, format!("unexpected {c:?} after a quoted field"))),
        }
    }
}

fn push_record(records: &mut Vec<Vec<String>>, record: Vec<String>) -> Result<(), CsvParseError> {
    if let Some(first) = records.first() {
        if first.len() != record.len() {
            return Err(CsvParseError {
                record: records.len() + 1,
                message: format!("{} fields, expected {}", record.len(), first.len()),
            });
        }
    }
    records.push(record);
    Ok(())
}

/// Columns of the Probe CSV, in order.
pub const PROBE_COLUMNS: &[&str] = &[
    "probeId",
    "runId",
    "promptId",
    "prompt",
    "repeatIndex",
    "status",
    "errorKind",
    "brandMentioned",
    "brandOrder",
    "brandListPosition",
    "mentionedTargets",
    "sourceCount",
    "uniqueDomains",
    "answerLinkCount",
    "inputTokens",
    "outputTokens",
    "cacheReadInputTokens",
    "webSearchRequests",
    "latencyMs",
    "attempts",
    "model",
    "createdAt",
    "answer",
];

/// Columns of the Source CSV, in order.
pub const SOURCE_COLUMNS: &[&str] = &[
    "probeId",
    "promptId",
    "repeatIndex",
    "queryIndex",
    "query",
    "internal",
    "rank",
    "title",
    "url",
    "domain",
    "host",
    "platform",
    "channel",
    "ownership",
    "competitorId",
    "pageAge",
];

fn find_run<'a>(env: &'a ExportEnvelope, run_id: &str) -> Result<&'a Run, ExportError> {
    env.run(run_id).ok_or_else(|| ExportError::RunNotFound { run_id: run_id.to_string() })
}

/// The run's probes in export order.
fn run_probes<'a>(env: &'a ExportEnvelope, run: &Run) -> Vec<&'a Probe> {
    let mut probes: Vec<&Probe> = env.probes_of(&run.id).collect();
    sort_probes(&mut probes, std::slice::from_ref(run));
    probes
}

/// The run's targets: its alias snapshot, or the project's current targets when the
/// snapshot is empty (an old export).
fn run_targets(env: &ExportEnvelope, run: &Run) -> Vec<Target> {
    if !run.alias_snapshot.is_empty() {
        return run.alias_snapshot.clone();
    }
    env.projects.iter().find(|p| p.id == run.project_id).map(|p| p.targets()).unwrap_or_default()
}

/// The Probe CSV of run `run_id`: one row per probe, columns [`PROBE_COLUMNS`].
///
/// `prompt` is the text from the run's `promptSnapshot` (the current prompt when the
/// snapshot lacks it). `brandMentioned` is 1/0; `brandOrder` and `brandListPosition` are
/// the brand mention's `order` and `listPosition`; `mentionedTargets` joins the labels of
/// the mentioned targets in order of appearance with `; `; `sourceCount` counts retrieved
/// sources (deduplicated URLs); `uniqueDomains` counts their distinct registrable domains.
/// The analysis columns (`brandMentioned` … `answerLinkCount`) are empty for probes that
/// are not `success`, because every mention and source figure is defined over successful
/// probes only: an empty cell keeps spreadsheet averages equal to the dashboard's.
pub fn probes_csv(env: &ExportEnvelope, run_id: &str) -> Result<String, ExportError> {
    let run = find_run(env, run_id)?;
    let targets = run_targets(env, run);
    let brand_id = targets.iter().find(|t| t.kind == TargetKind::Brand).or(targets.first()).map(|t| t.id.clone());
    let label: HashMap<&str, &str> = targets.iter().map(|t| (t.id.as_str(), t.label.as_str())).collect();
    // The first text of each prompt id (the snapshot's, then the current prompts'), looked
    // up once per probe.
    let mut texts: HashMap<&str, &str> = HashMap::new();
    for q in run.prompt_snapshot.iter().chain(env.prompts.iter()) {
        texts.entry(q.id.as_str()).or_insert(q.text.as_str());
    }
    let mut w = CsvWriter::new();
    w.texts(PROBE_COLUMNS).end_row();
    for p in run_probes(env, run) {
        let prompt_text = texts.get(p.prompt_id.as_str()).copied().unwrap_or("");
        w.text(&p.id).text(&p.run_id).text(&p.prompt_id).text(prompt_text);
        w.number(p.repeat_index.into()).text(p.status.as_str());
        w.text(p.error.as_ref().map_or("", |e| e.kind.as_str()));
        if p.status == ProbeStatus::Success {
            let brand = brand_id.as_deref().and_then(|b| p.mentions.iter().find(|m| m.target_id == b));
            w.number(brand.is_some().into());
            w.opt_number(brand.map(|m| m.order.into()));
            w.opt_number(brand.and_then(|m| m.list_position).map(u64::from));
            let mut ms: Vec<_> = p.mentions.iter().collect();
            crate::sort::sort_by_key(&mut ms, |m| (m.order, m.first_index));
            let labels: Vec<&str> =
                ms.iter().map(|m| label.get(m.target_id.as_str()).copied().unwrap_or(&m.target_id)).collect();
            w.text(&labels.join("; "));
            w.number(p.sources.len() as u64);
            let domains: FxHashSet<&str> = p.sources.iter().map(|s| s.domain.as_str()).collect();
            w.number(domains.len() as u64);
            w.number(p.answer_links.len() as u64);
        } else {
            for _ in 0..7 {
                w.empty();
            }
        }
        let u = &p.usage;
        w.number(u.input_tokens).number(u.output_tokens);
        w.number(u.cache_read_input_tokens).number(u.web_search_requests);
        w.number(p.latency_ms).number(p.attempts.into());
        w.text(&p.model).text(&p.created_at).text(&p.answer);
        w.end_row();
    }
    Ok(w.finish())
}

/// The Source CSV of run `run_id`: one row per occurrence (a source returned by one
/// query at one rank), columns [`SOURCE_COLUMNS`].
///
/// Only successful probes are listed, matching the dashboard's source figures. Within a
/// probe, rows follow `queryIndex`, then `rank`. `query` is the search words (empty for an
/// internal query) and `internal` is 1 for a query shown as 「内部检索」, else 0.
pub fn sources_csv(env: &ExportEnvelope, run_id: &str) -> Result<String, ExportError> {
    let run = find_run(env, run_id)?;
    let mut w = CsvWriter::new();
    w.texts(SOURCE_COLUMNS).end_row();
    for p in run_probes(env, run) {
        if p.status != ProbeStatus::Success {
            continue;
        }
        let mut rows: Vec<_> = p.sources.iter().flat_map(|s| s.occurrences.iter().map(move |o| (s, o))).collect();
        crate::sort::sort_by_key(&mut rows, |(_, o)| (o.query_index, o.rank));
        for (s, o) in rows {
            let q = p.queries.iter().find(|q| q.index == o.query_index);
            let internal = q.map_or(o.query.is_none(), |q| q.internal);
            let query = o.query.as_deref().or(q.and_then(|q| q.query.as_deref())).unwrap_or("");
            w.text(&p.id).text(&p.prompt_id).number(p.repeat_index.into());
            w.number(o.query_index.into()).text(if internal { "" } else { query });
            w.number(internal.into()).number(o.rank.into());
            w.text(&s.title).text(&s.url).text(&s.domain).text(&s.host);
            w.text(&s.platform).text(&s.channel).text(s.ownership.as_str());
            w.text(s.competitor_id.as_deref().unwrap_or(""));
            w.text(s.page_age.as_deref().unwrap_or(""));
            w.end_row();
        }
    }
    Ok(w.finish())
}
