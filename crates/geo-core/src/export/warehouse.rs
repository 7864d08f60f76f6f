//! The warehouse tables (`shared/spec/data-model.md`, "Warehouse tables" and "What the answers
//! say"): every run of an analysed export as rows of eleven flat tables — `runs`, `targets`,
//! `prompts`, `probes`, `mentions`, `queries`, `sources`, `answer_links`, `facts` (an extra: the
//! run's `factSnapshot`), `claims`, `risk_flags` — that `geo-probe warehouse` writes as Parquet
//! and the web app could offer as CSV.
//!
//! The one decision: the rows are a pure function of one run and its analysed probes
//! ([`run_tables`]), built one run at a time ([`warehouse_runs`]), so a shell streams an export
//! of any size run by run and holds one run's rows at a time; the column names, their types and
//! their order live here once ([`Row::COLUMNS`]), so every file format agrees on them.
//!
//! The rows carry exactly what the metrics read, so that the views of `sql/metrics.sql` equal
//! `geo-probe metrics`: `mentions`, `sources`, `answer_links`, `claims` and `risk_flags` hold
//! the rows of successful probes only (`queries` those of every probe); `facts` holds one row
//! per fact of the `factSnapshot`, in its order, so that a fact without claims still has its
//! row of counts; `targets` holds one row per target id of the
//! `aliasSnapshot` (the first target of an id, as the metrics count it), `runs.brand_id` the
//! first of kind brand among them, and `mentions` one row per probe and target (the probe's
//! first Mention of that id); a source's `occurrences`,
//! `rank_sum` and `best_rank` are the metrics' own tally (`metrics::source_tally`); and
//! `probe_index`/`source_index` (the probe's place among its run's probes in the export, the
//! source's place in the probe) keep the order in which the metrics first see a domain, which
//! breaks ties of its platform, channel and ownership.

use super::problem::quoted;
use crate::metrics::{source_tally, MetricsError};
use crate::model::{Claim, ExportEnvelope, Fact, Probe, ProbeStatus, RiskFlag, Run, TargetKind};
use crate::timestamp::{parse_iso_micros, utc_date};
use std::fmt;

/// The table names, in the order of the contract (and of `geo-probe warehouse`'s output);
/// `facts` is an extra, the run's fact sheet, beside `targets` and `prompts`.
pub const TABLES: [&str; TABLE_COUNT] = [
    "runs",
    "targets",
    "prompts",
    "probes",
    "mentions",
    "queries",
    "sources",
    "answer_links",
    "facts",
    "claims",
    "risk_flags",
];

/// How many tables there are.
pub const TABLE_COUNT: usize = 11;

/// The type of a column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColumnType {
    /// UTF-8 text.
    Str,
    /// A 64-bit signed integer (counts above `i64::MAX` saturate).
    Int,
    /// A 64-bit float.
    Float,
    /// A boolean.
    Bool,
    /// An instant: microseconds since 1970-01-01 UTC.
    Timestamp,
    /// A list of strings.
    StrList,
}

/// One column of a table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Column {
    /// The snake_case name.
    pub name: &'static str,
    /// Its type.
    pub ty: ColumnType,
    /// Whether a cell may be [`Value::Null`].
    pub nullable: bool,
}

const fn col(name: &'static str, ty: ColumnType) -> Column {
    Column { name, ty, nullable: false }
}

const fn opt(name: &'static str, ty: ColumnType) -> Column {
    Column { name, ty, nullable: true }
}

/// One cell, borrowed from the export.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Value<'a> {
    /// A missing value.
    Null,
    /// [`ColumnType::Str`].
    Str(&'a str),
    /// [`ColumnType::Int`].
    Int(i64),
    /// [`ColumnType::Float`].
    Float(f64),
    /// [`ColumnType::Bool`].
    Bool(bool),
    /// [`ColumnType::Timestamp`], microseconds since 1970-01-01 UTC.
    Timestamp(i64),
    /// [`ColumnType::StrList`].
    StrList(&'a [String]),
}

impl<'a> Value<'a> {
    fn int(n: impl Into<u64>) -> Value<'a> {
        Value::Int(i64::try_from(n.into()).unwrap_or(i64::MAX))
    }

    fn opt_str(s: Option<&'a str>) -> Value<'a> {
        s.map_or(Value::Null, Value::Str)
    }
}

/// A row of one of the tables: its columns and the value of each.
pub trait Row {
    /// The table's name (one of [`TABLES`]).
    const TABLE: &'static str;
    /// The columns, in order.
    const COLUMNS: &'static [Column];
    /// The value of column `column` (an index into [`Row::COLUMNS`]); `Null` past the end.
    fn value(&self, column: usize) -> Value<'_>;
}

/// A row of `runs`.
#[derive(Debug, Clone, PartialEq)]
pub struct RunRow<'a> {
    /// The run.
    pub run: &'a Run,
    /// Its `createdAt`.
    pub created_at: i64,
    /// Its `finishedAt`, when present and readable.
    pub finished_at: Option<i64>,
    /// The id of its brand: the first target of kind brand among its `targets` rows.
    pub brand_id: Option<&'a str>,
}

impl Row for RunRow<'_> {
    const TABLE: &'static str = "runs";
    const COLUMNS: &'static [Column] = &[
        col("run_id", ColumnType::Str),
        col("project_id", ColumnType::Str),
        col("engine", ColumnType::Str),
        col("model", ColumnType::Str),
        col("status", ColumnType::Str),
        col("created_at", ColumnType::Timestamp),
        opt("finished_at", ColumnType::Timestamp),
        opt("previous_run_id", ColumnType::Str),
        opt("group_id", ColumnType::Str),
        col("repeats", ColumnType::Int),
        col("planned_probe_count", ColumnType::Int),
        // Extra: the brand the metrics read, so the views need not scan `targets` for it.
        opt("brand_id", ColumnType::Str),
    ];

    fn value(&self, column: usize) -> Value<'_> {
        let r = self.run;
        match column {
            0 => Value::Str(&r.id),
            1 => Value::Str(&r.project_id),
            2 => Value::Str(r.config.engine.as_str()),
            3 => Value::Str(&r.config.model),
            4 => Value::Str(r.status.as_str()),
            5 => Value::Timestamp(self.created_at),
            6 => self.finished_at.map_or(Value::Null, Value::Timestamp),
            7 => Value::opt_str(r.previous_run_id.as_deref()),
            8 => Value::opt_str(r.group_id.as_deref()),
            9 => Value::int(r.config.repeats),
            10 => Value::int(r.planned_probe_count),
            11 => Value::opt_str(self.brand_id),
            _ => Value::Null,
        }
    }
}

/// A row of `targets`: one per target id of the run's `aliasSnapshot` (the first of an id).
#[derive(Debug, Clone, PartialEq)]
pub struct TargetRow<'a> {
    /// The run.
    pub run_id: &'a str,
    /// The target.
    pub target: &'a crate::model::Target,
    /// 0-based place among the run's distinct targets (0 = the brand in a well-formed run).
    pub position: u32,
}

impl Row for TargetRow<'_> {
    const TABLE: &'static str = "targets";
    const COLUMNS: &'static [Column] = &[
        col("run_id", ColumnType::Str),
        col("target_id", ColumnType::Str),
        col("kind", ColumnType::Str),
        col("label", ColumnType::Str),
        col("position", ColumnType::Int),
    ];

    fn value(&self, column: usize) -> Value<'_> {
        match column {
            0 => Value::Str(self.run_id),
            1 => Value::Str(&self.target.id),
            2 => Value::Str(self.target.kind.as_str()),
            3 => Value::Str(&self.target.label),
            4 => Value::int(self.position),
            _ => Value::Null,
        }
    }
}

/// A row of `prompts`: one per prompt of the `promptSnapshot`, in its order.
#[derive(Debug, Clone, PartialEq)]
pub struct PromptRow<'a> {
    /// The run.
    pub run_id: &'a str,
    /// The prompt as frozen into the run.
    pub prompt: &'a crate::model::Prompt,
    /// 0-based place in the `promptSnapshot`.
    pub position: u32,
}

impl Row for PromptRow<'_> {
    const TABLE: &'static str = "prompts";
    const COLUMNS: &'static [Column] = &[
        col("run_id", ColumnType::Str),
        col("prompt_id", ColumnType::Str),
        col("text", ColumnType::Str),
        col("tags", ColumnType::StrList),
        col("position", ColumnType::Int),
    ];

    fn value(&self, column: usize) -> Value<'_> {
        match column {
            0 => Value::Str(self.run_id),
            1 => Value::Str(&self.prompt.id),
            2 => Value::Str(&self.prompt.text),
            3 => Value::StrList(&self.prompt.tags),
            4 => Value::int(self.position),
            _ => Value::Null,
        }
    }
}

/// A row of `probes`: one per probe record of the run.
#[derive(Debug, Clone, PartialEq)]
pub struct ProbeRow<'a> {
    /// The probe.
    pub probe: &'a Probe,
    /// 0-based place among the run's probes, in export order.
    pub probe_index: u32,
    /// Its `createdAt`, when readable.
    pub created_at: Option<i64>,
}

impl Row for ProbeRow<'_> {
    const TABLE: &'static str = "probes";
    const COLUMNS: &'static [Column] = &[
        col("probe_id", ColumnType::Str),
        col("run_id", ColumnType::Str),
        col("project_id", ColumnType::Str),
        col("prompt_id", ColumnType::Str),
        col("repeat_index", ColumnType::Int),
        col("status", ColumnType::Str),
        opt("error_kind", ColumnType::Str),
        col("attempts", ColumnType::Int),
        col("latency_ms", ColumnType::Int),
        col("truncated", ColumnType::Bool),
        col("input_tokens", ColumnType::Int),
        col("output_tokens", ColumnType::Int),
        col("cache_read_input_tokens", ColumnType::Int),
        col("web_search_requests", ColumnType::Int),
        col("billed_input_tokens", ColumnType::Int),
        col("billed_output_tokens", ColumnType::Int),
        opt("cost_usd", ColumnType::Float),
        col("query_count", ColumnType::Int),
        col("source_count", ColumnType::Int),
        opt("answer", ColumnType::Str),
        // Extras: the export order the metrics' ties follow, the answering model, the time.
        col("probe_index", ColumnType::Int),
        col("model", ColumnType::Str),
        opt("created_at", ColumnType::Timestamp),
    ];

    fn value(&self, column: usize) -> Value<'_> {
        let p = self.probe;
        let billed = p.billed();
        match column {
            0 => Value::Str(&p.id),
            1 => Value::Str(&p.run_id),
            2 => Value::Str(&p.project_id),
            3 => Value::Str(&p.prompt_id),
            4 => Value::int(p.repeat_index),
            5 => Value::Str(p.status.as_str()),
            6 => p.error.as_ref().map_or(Value::Null, |e| Value::Str(e.kind.as_str())),
            7 => Value::int(p.attempts),
            8 => Value::int(p.latency_ms),
            9 => Value::Bool(p.truncated),
            10 => Value::int(p.usage.input_tokens),
            11 => Value::int(p.usage.output_tokens),
            12 => Value::int(p.usage.cache_read_input_tokens),
            13 => Value::int(p.usage.web_search_requests),
            14 => Value::int(billed.input_tokens),
            15 => Value::int(billed.output_tokens),
            16 => p.cost_usd.map_or(Value::Null, Value::Float),
            17 => Value::int(p.queries.len() as u64),
            18 => Value::int(p.sources.len() as u64),
            19 if p.status == ProbeStatus::Success => Value::Str(&p.answer),
            20 => Value::int(self.probe_index),
            21 => Value::Str(&p.model),
            22 => self.created_at.map_or(Value::Null, Value::Timestamp),
            _ => Value::Null,
        }
    }
}

/// A row of `mentions`: a successful probe's first Mention of a target id.
#[derive(Debug, Clone, PartialEq)]
pub struct MentionRow<'a> {
    /// The probe.
    pub probe: &'a Probe,
    /// The Mention.
    pub mention: &'a crate::model::Mention,
}

impl Row for MentionRow<'_> {
    const TABLE: &'static str = "mentions";
    const COLUMNS: &'static [Column] = &[
        col("probe_id", ColumnType::Str),
        col("run_id", ColumnType::Str),
        col("target_id", ColumnType::Str),
        col("count", ColumnType::Int),
        col("order", ColumnType::Int),
        opt("list_position", ColumnType::Int),
    ];

    fn value(&self, column: usize) -> Value<'_> {
        let m = self.mention;
        match column {
            0 => Value::Str(&self.probe.id),
            1 => Value::Str(&self.probe.run_id),
            2 => Value::Str(&m.target_id),
            3 => Value::int(m.count),
            4 => Value::int(m.order),
            5 => m.list_position.map_or(Value::Null, Value::int),
            _ => Value::Null,
        }
    }
}

/// A row of `queries`: one per search of every probe.
#[derive(Debug, Clone, PartialEq)]
pub struct QueryRow<'a> {
    /// The probe.
    pub probe: &'a Probe,
    /// The search.
    pub query: &'a crate::model::Query,
}

impl Row for QueryRow<'_> {
    const TABLE: &'static str = "queries";
    const COLUMNS: &'static [Column] = &[
        col("probe_id", ColumnType::Str),
        col("run_id", ColumnType::Str),
        col("query_index", ColumnType::Int),
        opt("query", ColumnType::Str),
        col("internal", ColumnType::Bool),
        // Extra: the error code when the search returned an error instead of results.
        opt("error", ColumnType::Str),
    ];

    fn value(&self, column: usize) -> Value<'_> {
        let q = self.query;
        match column {
            0 => Value::Str(&self.probe.id),
            1 => Value::Str(&self.probe.run_id),
            2 => Value::int(q.index),
            3 => Value::opt_str(q.query.as_deref()),
            4 => Value::Bool(q.internal),
            5 => Value::opt_str(q.error.as_deref()),
            _ => Value::Null,
        }
    }
}

/// A row of `sources`: one per Retrieved Source (after URL dedupe) of a successful probe.
#[derive(Debug, Clone, PartialEq)]
pub struct SourceRow<'a> {
    /// The probe.
    pub probe: &'a Probe,
    /// The source.
    pub source: &'a crate::model::SearchSource,
    /// Its occurrences (one when it lists none, as the metrics count it).
    pub occurrences: u32,
    /// The sum of their ranks.
    pub rank_sum: u64,
    /// The smallest of their ranks.
    pub best_rank: u32,
    /// The probe's place among its run's probes (as [`ProbeRow::probe_index`]).
    pub probe_index: u32,
    /// The source's 0-based place among the probe's sources.
    pub source_index: u32,
}

impl Row for SourceRow<'_> {
    const TABLE: &'static str = "sources";
    const COLUMNS: &'static [Column] = &[
        col("probe_id", ColumnType::Str),
        col("run_id", ColumnType::Str),
        col("url", ColumnType::Str),
        col("host", ColumnType::Str),
        col("domain", ColumnType::Str),
        col("ownership", ColumnType::Str),
        opt("competitor_id", ColumnType::Str),
        col("platform", ColumnType::Str),
        col("channel", ColumnType::Str),
        col("best_rank", ColumnType::Int),
        col("occurrences", ColumnType::Int),
        col("rank_sum", ColumnType::Int),
        opt("cited", ColumnType::Bool),
        // Extras: the order in which the metrics see sources (ties of a domain's attribution).
        col("probe_index", ColumnType::Int),
        col("source_index", ColumnType::Int),
    ];

    fn value(&self, column: usize) -> Value<'_> {
        let s = self.source;
        match column {
            0 => Value::Str(&self.probe.id),
            1 => Value::Str(&self.probe.run_id),
            2 => Value::Str(&s.url),
            3 => Value::Str(&s.host),
            4 => Value::Str(&s.domain),
            5 => Value::Str(s.ownership.as_str()),
            6 => Value::opt_str(s.competitor_id.as_deref()),
            7 => Value::Str(&s.platform),
            8 => Value::Str(&s.channel),
            9 => Value::int(self.best_rank),
            10 => Value::int(self.occurrences),
            11 => Value::int(self.rank_sum),
            12 => s.cited.map_or(Value::Null, Value::Bool),
            13 => Value::int(self.probe_index),
            14 => Value::int(self.source_index),
            _ => Value::Null,
        }
    }
}

/// A row of `answer_links`: one per Answer Link of a successful probe.
#[derive(Debug, Clone, PartialEq)]
pub struct AnswerLinkRow<'a> {
    /// The probe.
    pub probe: &'a Probe,
    /// The link.
    pub link: &'a crate::model::AnswerLink,
}

impl Row for AnswerLinkRow<'_> {
    const TABLE: &'static str = "answer_links";
    const COLUMNS: &'static [Column] = &[
        col("probe_id", ColumnType::Str),
        col("run_id", ColumnType::Str),
        col("url", ColumnType::Str),
        col("canonical_url", ColumnType::Str),
        col("domain", ColumnType::Str),
        col("in_sources", ColumnType::Bool),
    ];

    fn value(&self, column: usize) -> Value<'_> {
        let l = self.link;
        match column {
            0 => Value::Str(&self.probe.id),
            1 => Value::Str(&self.probe.run_id),
            2 => Value::Str(&l.url),
            3 => Value::Str(&l.canonical_url),
            4 => Value::Str(&l.domain),
            5 => Value::Bool(l.in_sources),
            _ => Value::Null,
        }
    }
}

/// A row of `facts` (an extra table): one per fact of the run's `factSnapshot`, in its order.
#[derive(Debug, Clone, PartialEq)]
pub struct FactRow<'a> {
    /// The run.
    pub run_id: &'a str,
    /// The fact as frozen into the run.
    pub fact: &'a Fact,
    /// 0-based place in the `factSnapshot`.
    pub position: u32,
}

impl Row for FactRow<'_> {
    const TABLE: &'static str = "facts";
    const COLUMNS: &'static [Column] = &[
        col("run_id", ColumnType::Str),
        col("fact_id", ColumnType::Str),
        col("target_id", ColumnType::Str),
        col("label", ColumnType::Str),
        col("kind", ColumnType::Str),
        col("position", ColumnType::Int),
        col("cues", ColumnType::StrList),
        opt("value", ColumnType::Float),
        opt("currency", ColumnType::Str),
        opt("tolerance", ColumnType::Float),
        col("accepted", ColumnType::StrList),
        col("rejected", ColumnType::StrList),
    ];

    fn value(&self, column: usize) -> Value<'_> {
        let f = self.fact;
        match column {
            0 => Value::Str(self.run_id),
            1 => Value::Str(&f.id),
            2 => Value::Str(&f.target_id),
            3 => Value::Str(&f.label),
            4 => Value::Str(f.kind.as_str()),
            5 => Value::int(self.position),
            6 => Value::StrList(&f.cues),
            7 => f.value.map_or(Value::Null, Value::Float),
            8 => f.currency.map_or(Value::Null, |c| Value::Str(c.as_str())),
            9 => f.tolerance.map_or(Value::Null, Value::Float),
            10 => Value::StrList(&f.accepted),
            11 => Value::StrList(&f.rejected),
            _ => Value::Null,
        }
    }
}

/// A row of `claims`: one per Claim of a successful probe.
#[derive(Debug, Clone, PartialEq)]
pub struct ClaimRow<'a> {
    /// The probe.
    pub probe: &'a Probe,
    /// The claim.
    pub claim: &'a Claim,
    /// The canonical URLs of its `sourceIds`, in that order.
    pub source_urls: Vec<String>,
}

impl Row for ClaimRow<'_> {
    const TABLE: &'static str = "claims";
    const COLUMNS: &'static [Column] = &[
        col("probe_id", ColumnType::Str),
        col("run_id", ColumnType::Str),
        col("fact_id", ColumnType::Str),
        col("target_id", ColumnType::Str),
        col("verdict", ColumnType::Str),
        col("sentence", ColumnType::Str),
        col("values", ColumnType::StrList),
        col("source_urls", ColumnType::StrList),
    ];

    fn value(&self, column: usize) -> Value<'_> {
        let c = self.claim;
        match column {
            0 => Value::Str(&self.probe.id),
            1 => Value::Str(&self.probe.run_id),
            2 => Value::Str(&c.fact_id),
            3 => Value::Str(&c.target_id),
            4 => Value::Str(c.verdict.as_str()),
            5 => Value::Str(&c.sentence),
            6 => Value::StrList(&c.values),
            7 => Value::StrList(&self.source_urls),
            _ => Value::Null,
        }
    }
}

/// A row of `risk_flags`: one per RiskFlag of a successful probe.
#[derive(Debug, Clone, PartialEq)]
pub struct RiskFlagRow<'a> {
    /// The probe.
    pub probe: &'a Probe,
    /// The flag.
    pub flag: &'a RiskFlag,
}

impl Row for RiskFlagRow<'_> {
    const TABLE: &'static str = "risk_flags";
    const COLUMNS: &'static [Column] = &[
        col("probe_id", ColumnType::Str),
        col("run_id", ColumnType::Str),
        col("target_id", ColumnType::Str),
        col("kind", ColumnType::Str),
        col("cue", ColumnType::Str),
        col("sentence", ColumnType::Str),
    ];

    fn value(&self, column: usize) -> Value<'_> {
        let f = self.flag;
        match column {
            0 => Value::Str(&self.probe.id),
            1 => Value::Str(&self.probe.run_id),
            2 => Value::Str(&f.target_id),
            3 => Value::Str(f.kind.as_str()),
            4 => Value::Str(&f.cue),
            5 => Value::Str(&f.sentence),
            _ => Value::Null,
        }
    }
}

/// The canonical URLs of `claim`'s sources, in `sourceIds` order (an id the probe does not
/// hold is skipped).
fn source_urls(probe: &Probe, claim: &Claim) -> Vec<String> {
    claim.source_ids.iter().filter_map(|id| probe.sources.iter().find(|s| &s.id == id)).map(|s| s.url.clone()).collect()
}

/// The rows of one run in every table, with where its files go.
#[derive(Debug, Clone, PartialEq)]
pub struct RunTables<'a> {
    /// The run's engine (the partition `engine=…`).
    pub engine: &'static str,
    /// The UTC date of its `createdAt` (the partition `run_date=…`).
    pub run_date: String,
    /// The name of the run's file in each table, without extension ([`file_stem`]).
    pub file_stem: String,
    /// `runs`: one row.
    pub runs: Vec<RunRow<'a>>,
    /// `targets`.
    pub targets: Vec<TargetRow<'a>>,
    /// `prompts`.
    pub prompts: Vec<PromptRow<'a>>,
    /// `probes`.
    pub probes: Vec<ProbeRow<'a>>,
    /// `mentions`.
    pub mentions: Vec<MentionRow<'a>>,
    /// `queries`.
    pub queries: Vec<QueryRow<'a>>,
    /// `sources`.
    pub sources: Vec<SourceRow<'a>>,
    /// `answer_links`.
    pub answer_links: Vec<AnswerLinkRow<'a>>,
    /// `facts`.
    pub facts: Vec<FactRow<'a>>,
    /// `claims`.
    pub claims: Vec<ClaimRow<'a>>,
    /// `risk_flags`.
    pub risk_flags: Vec<RiskFlagRow<'a>>,
}

impl RunTables<'_> {
    /// The Hive partition folder of the run's files in every table:
    /// `engine=E/run_date=YYYY-MM-DD`.
    pub fn partition(&self) -> String {
        format!("engine={}/run_date={}", self.engine, self.run_date)
    }

    /// The number of rows of each table, in [`TABLES`] order.
    pub fn row_counts(&self) -> [usize; TABLE_COUNT] {
        [
            self.runs.len(),
            self.targets.len(),
            self.prompts.len(),
            self.probes.len(),
            self.mentions.len(),
            self.queries.len(),
            self.sources.len(),
            self.answer_links.len(),
            self.facts.len(),
            self.claims.len(),
            self.risk_flags.len(),
        ]
    }
}

/// Why the tables of an export cannot be built.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WarehouseError {
    /// A run asked for is not in the export.
    UnknownRun(MetricsError),
    /// A run's `createdAt` is not an ISO 8601 time, so it has no partition.
    BadCreatedAt {
        /// The run.
        run_id: String,
        /// What its `createdAt` holds.
        created_at: String,
    },
}

impl fmt::Display for WarehouseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WarehouseError::UnknownRun(e) => e.fmt(f),
            WarehouseError::BadCreatedAt { run_id, created_at } => write!(
                f,
                "run {} has createdAt {}, which is not an ISO 8601 time such as 2026-11-29T08:00:00.000Z: fix it in the export",
                quoted(run_id),
                quoted(created_at)
            ),
        }
    }
}

impl std::error::Error for WarehouseError {}

/// The rows of `run` in every table; `probes` are the run's probes in export order (probes of
/// other runs are skipped), analysed. Fails only when the run's `createdAt` is unreadable.
pub fn run_tables<'a>(run: &'a Run, probes: &[&'a Probe]) -> Result<RunTables<'a>, WarehouseError> {
    let created_at = parse_iso_micros(&run.created_at)
        .ok_or_else(|| WarehouseError::BadCreatedAt { run_id: run.id.clone(), created_at: run.created_at.clone() })?;
    let finished_at = run.finished_at.as_deref().and_then(parse_iso_micros);
    let mut t = RunTables {
        engine: run.config.engine.as_str(),
        run_date: utc_date(created_at),
        file_stem: file_stem(&run.id),
        runs: vec![RunRow { run, created_at, finished_at, brand_id: None }],
        targets: Vec::new(),
        prompts: Vec::new(),
        probes: Vec::new(),
        mentions: Vec::new(),
        queries: Vec::new(),
        sources: Vec::new(),
        answer_links: Vec::new(),
        facts: Vec::new(),
        claims: Vec::new(),
        risk_flags: Vec::new(),
    };
    for target in &run.alias_snapshot {
        if !t.targets.iter().any(|seen| seen.target.id == target.id) {
            t.targets.push(TargetRow { run_id: &run.id, target, position: t.targets.len() as u32 });
        }
    }
    t.runs[0].brand_id = t.targets.iter().find(|r| r.target.kind == TargetKind::Brand).map(|r| r.target.id.as_str());
    t.prompts = (run.prompt_snapshot.iter().enumerate())
        .map(|(i, prompt)| PromptRow { run_id: &run.id, prompt, position: i as u32 })
        .collect();
    let facts = run.fact_snapshot.as_ref().map_or(&[][..], |s| &s.facts[..]);
    t.facts =
        (facts.iter().enumerate()).map(|(i, fact)| FactRow { run_id: &run.id, fact, position: i as u32 }).collect();
    for (probe_index, &probe) in probes.iter().filter(|p| p.run_id == run.id).enumerate() {
        let probe_index = probe_index as u32;
        t.probes.push(ProbeRow { probe, probe_index, created_at: parse_iso_micros(&probe.created_at) });
        t.queries.extend(probe.queries.iter().map(|query| QueryRow { probe, query }));
        if probe.status != ProbeStatus::Success {
            continue;
        }
        let first = t.mentions.len();
        for mention in &probe.mentions {
            if !t.mentions[first..].iter().any(|m| m.mention.target_id == mention.target_id) {
                t.mentions.push(MentionRow { probe, mention });
            }
        }
        for (i, source) in probe.sources.iter().enumerate() {
            let (occurrences, rank_sum, best_rank) = source_tally(source);
            t.sources.push(SourceRow {
                probe,
                source,
                occurrences,
                rank_sum,
                best_rank,
                probe_index,
                source_index: i as u32,
            });
        }
        t.answer_links.extend(probe.answer_links.iter().map(|link| AnswerLinkRow { probe, link }));
        t.claims.extend(probe.claims.iter().map(|claim| ClaimRow {
            probe,
            claim,
            source_urls: source_urls(probe, claim),
        }));
        t.risk_flags.extend(probe.risk_flags.iter().map(|flag| RiskFlagRow { probe, flag }));
    }
    Ok(t)
}

/// The runs of an export, built into [`RunTables`] one at a time (see [`warehouse_runs`]).
pub struct WarehouseRuns<'a> {
    runs: std::vec::IntoIter<&'a Run>,
    probes: rustc_hash::FxHashMap<&'a str, Vec<&'a Probe>>,
}

impl<'a> Iterator for WarehouseRuns<'a> {
    type Item = RunTables<'a>;

    fn next(&mut self) -> Option<RunTables<'a>> {
        let run = self.runs.next()?;
        let probes = self.probes.remove(run.id.as_str()).unwrap_or_default();
        // `warehouse_runs` has read every selected run's `createdAt`.
        run_tables(run, &probes).ok()
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.runs.size_hint()
    }
}

/// The tables of the runs `run_ids` of `env` (every run, in `createdAt` order, when empty;
/// else in the order given, each once), built lazily, one run at a time. Every selected run is
/// checked first — an unknown id ([`WarehouseError::UnknownRun`]) or an unreadable `createdAt`
/// fails before any row is built, so a shell writes all or nothing of a bad request.
pub fn warehouse_runs<'a>(env: &'a ExportEnvelope, run_ids: &[&str]) -> Result<WarehouseRuns<'a>, WarehouseError> {
    let runs: Vec<&Run> = if run_ids.is_empty() {
        env.runs_in_order()
    } else {
        let mut picked: Vec<&Run> = Vec::with_capacity(run_ids.len());
        for id in run_ids {
            let run = crate::metrics::find_run(env, id).map_err(WarehouseError::UnknownRun)?;
            if !picked.iter().any(|r| r.id == run.id) {
                picked.push(run);
            }
        }
        picked
    };
    if let Some(bad) = runs.iter().find(|r| parse_iso_micros(&r.created_at).is_none()) {
        return Err(WarehouseError::BadCreatedAt { run_id: bad.id.clone(), created_at: bad.created_at.clone() });
    }
    let mut probes: rustc_hash::FxHashMap<&str, Vec<&Probe>> =
        runs.iter().map(|r| (r.id.as_str(), Vec::new())).collect();
    for p in &env.probes {
        if let Some(list) = probes.get_mut(p.run_id.as_str()) {
            list.push(p);
        }
    }
    Ok(WarehouseRuns { runs: runs.into_iter(), probes })
}

/// Longest [`file_stem`] in bytes (file systems allow 255 per name; room for `.parquet` and a
/// temp-file prefix and suffix).
pub const MAX_FILE_STEM_BYTES: usize = 200;

/// The file name (without extension) of a run's files: the run id with every byte outside
/// `A-Z a-z 0-9 - _ .` (and a leading `.`) written as `%XX`, so different ids never share a
/// name and no id can name a path. It ends in `~` and the 64-bit FNV-1a hash of the whole id
/// (`~` never appears otherwise) when the id is longer than [`MAX_FILE_STEM_BYTES`] once
/// encoded, where it is cut, and when the id is not [case-plain](is_case_plain), so that two
/// ids differing only in case (`Run_A`, `run_a`) never share a file where the file system
/// folds case (macOS, Windows; security review 3, I3). Ids such as `run_20261129T020000_4f2a`,
/// the shape geo-probe makes, keep their name as it is.
pub fn file_stem(run_id: &str) -> String {
    stem(run_id, !is_case_plain(run_id))
}

/// The stem a run's files had before [`file_stem`] told ids apart by case (up to issue 35),
/// where it differs: its older files, to be replaced when the run is written again.
pub fn former_file_stem(run_id: &str) -> Option<String> {
    let former = stem(run_id, false);
    (former != file_stem(run_id)).then_some(former)
}

/// True when every ASCII letter of `run_id` is lower-case, except that a `t` between two
/// digits is an upper-case `T` (the date-time separator of the ids geo-probe makes). No two
/// case-plain ids differ only in case, so their stems stay distinct when case is folded.
pub fn is_case_plain(run_id: &str) -> bool {
    let b = run_id.as_bytes();
    b.iter().enumerate().all(|(i, &c)| {
        let between_digits = i > 0 && b[i - 1].is_ascii_digit() && b.get(i + 1).is_some_and(u8::is_ascii_digit);
        match c {
            b'T' => between_digits,
            b't' => !between_digits,
            _ => !c.is_ascii_uppercase(),
        }
    })
}

/// The `%XX`-escaped id, ending in `~` and its hash when `hashed` or when it is too long.
fn stem(run_id: &str, hashed: bool) -> String {
    let mut out = String::with_capacity(run_id.len());
    for (i, b) in run_id.bytes().enumerate() {
        if b.is_ascii_alphanumeric() || b == b'-' || b == b'_' || (b == b'.' && i > 0) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    if !hashed && out.len() <= MAX_FILE_STEM_BYTES {
        return out;
    }
    let hash = crate::text::fnv1a64_hex(run_id.as_bytes());
    let mut cut = out.len().min(MAX_FILE_STEM_BYTES - 17);
    // Never end inside a `%XX`.
    if cut < out.len() {
        if let Some(pct) = out[cut.saturating_sub(2)..cut].rfind('%') {
            cut = cut - 2 + pct;
        }
    }
    format!("{}~{hash}", &out[..cut])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_stems_are_safe_and_distinct() {
        assert_eq!(file_stem("run_20261129T020000_demo"), "run_20261129T020000_demo");
        assert_eq!(file_stem("run.v2"), "run.v2");
        assert_eq!(file_stem(".."), "%2E.");
        assert_eq!(file_stem("../etc/passwd"), "%2E.%2Fetc%2Fpasswd");
        assert_eq!(file_stem("a b%"), "a%20b%25");
        assert_eq!(file_stem("运行"), "%E8%BF%90%E8%A1%8C");
        assert_ne!(file_stem("a/b"), file_stem("a%2Fb"));
        let long = "x".repeat(500);
        let stem = file_stem(&long);
        assert!(stem.len() <= MAX_FILE_STEM_BYTES && stem.contains('~'), "{stem}");
        assert_ne!(stem, file_stem(&format!("{long}y")));
        for tricky in ["%".repeat(100), format!("a{}", "/".repeat(100)), format!("ab{}", "é".repeat(60))] {
            let s = file_stem(&tricky);
            assert!(s.len() <= MAX_FILE_STEM_BYTES, "{s}");
            let head = s.split('~').next().unwrap();
            assert!(!head.ends_with('%') && !head[head.len() - 2..].starts_with('%'), "{s}");
        }
    }

    /// Security review 3, I3: where the file system folds case, no two ids share a file. Every
    /// id of up to four characters over letters of both cases, `t`/`T` beside digits, `%`, `~`
    /// and `/` gets a stem of its own once case is folded; the ids geo-probe makes keep theirs.
    #[test]
    fn file_stems_stay_distinct_when_case_is_folded() {
        assert_eq!(file_stem("run_20261129T080000_4f2a"), "run_20261129T080000_4f2a");
        assert_eq!(file_stem("run_a"), "run_a");
        assert_eq!(former_file_stem("run_20261129T080000_4f2a"), None);
        let upper = file_stem("Run_A");
        assert!(upper.starts_with("Run_A~") && upper.len() == "Run_A".len() + 17, "{upper}");
        // The hash is the 64-bit FNV-1a of the id: written files keep their names.
        assert_eq!(upper, "Run_A~399a72d0a5734dca");
        assert_eq!(former_file_stem("Run_A").as_deref(), Some("Run_A"));
        let lower_t = file_stem("run_20261129t080000_4f2a");
        assert!(lower_t.starts_with("run_20261129t080000_4f2a~"), "{lower_t}");
        assert!(!is_case_plain("T1") && !is_case_plain("1T") && is_case_plain("1T2") && !is_case_plain("1t2"));
        let long = "R".repeat(500);
        assert_eq!(file_stem(&long).len(), MAX_FILE_STEM_BYTES);
        assert_eq!(former_file_stem(&long), None, "a long id was already cut and hashed");

        let alphabet = ['a', 'A', 't', 'T', '1', '%', '~', '/'];
        let mut ids = vec![String::new()];
        let mut level = vec![String::new()];
        for _ in 0..4 {
            level = level.iter().flat_map(|id| alphabet.iter().map(move |c| format!("{id}{c}"))).collect();
            ids.extend(level.iter().cloned());
        }
        let mut seen: std::collections::HashMap<String, &str> = std::collections::HashMap::new();
        for id in &ids {
            if let Some(other) = seen.insert(file_stem(id).to_ascii_lowercase(), id) {
                panic!("{id:?} and {other:?} share a file once case is folded");
            }
        }
        assert_eq!(seen.len(), ids.len());
    }

    #[test]
    fn every_column_has_a_value_of_its_type() {
        fn check<R: Row>(row: &R) {
            for (i, c) in R::COLUMNS.iter().enumerate() {
                let v = row.value(i);
                let ok = match (v, c.ty) {
                    (Value::Null, _) => c.nullable,
                    (Value::Str(_), ColumnType::Str)
                    | (Value::Int(_), ColumnType::Int)
                    | (Value::Float(_), ColumnType::Float)
                    | (Value::Bool(_), ColumnType::Bool)
                    | (Value::Timestamp(_), ColumnType::Timestamp)
                    | (Value::StrList(_), ColumnType::StrList) => true,
                    _ => false,
                };
                assert!(ok, "{}.{}: {v:?}", R::TABLE, c.name);
            }
            assert_eq!(row.value(R::COLUMNS.len()), Value::Null);
            assert!(TABLES.contains(&R::TABLE));
        }
        let text = include_str!("../../../../demo/demo-data.json");
        let mut env: ExportEnvelope = serde_json::from_str(text).unwrap();
        // A fact sheet the demo's answers speak to (founded in 2023, headquartered in Hangzhou).
        let sheet: crate::model::FactSnapshot = serde_json::from_value(serde_json::json!({
            "facts": [
                { "id": "founded", "targetId": "tgt_demo_yuangouchang", "label": "成立年份", "kind": "year",
                  "cues": ["成立"], "value": 2022 },
                { "id": "hq", "targetId": "tgt_demo_yuangouchang", "label": "总部", "kind": "text",
                  "cues": ["总部"], "accepted": ["杭州"], "rejected": ["上海"] },
            ],
            "watchTerms": ["官网"],
        }))
        .unwrap();
        env.runs.iter_mut().for_each(|r| r.fact_snapshot = Some(sheet.clone()));
        crate::analysis::analyze_envelope(&mut env);
        let mut seen = [0usize; TABLE_COUNT];
        for t in warehouse_runs(&env, &[]).unwrap() {
            t.runs.iter().for_each(check);
            t.targets.iter().for_each(check);
            t.prompts.iter().for_each(check);
            t.probes.iter().for_each(check);
            t.mentions.iter().for_each(check);
            t.queries.iter().for_each(check);
            t.sources.iter().for_each(check);
            t.answer_links.iter().for_each(check);
            t.facts.iter().for_each(check);
            t.claims.iter().for_each(check);
            t.risk_flags.iter().for_each(check);
            for (s, n) in seen.iter_mut().zip(t.row_counts()) {
                *s += n;
            }
        }
        assert!(seen.iter().all(|&n| n > 0), "the demo fills every table: {seen:?}");
    }
}
