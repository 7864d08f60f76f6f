//! The fact sheet's rules (data-model.md, "What the answers say"): what makes a project's
//! `facts` and `watchTerms`, a run's `factSnapshot` and a `--facts` file usable, decided once
//! for every entry: the project editor, [`crate::runner::start_run`], the import (and so
//! `geo-probe validate` and the web import) and `geo-probe claims --facts`
//! ([`parse_facts_file`]).
//!
//! It lives in `project` because a fact sheet is part of a project and this module holds
//! the editor's rules; a run's snapshot is a frozen copy of a project's sheet, checked the
//! same way against the run's own `aliasSnapshot`.
//!
//! Every [`FactProblem`] names the fact by its id (by its place when it has none) and the
//! field at fault, in Chinese and English, and says what to do; [`FactProblem::path`] is its
//! JSON path inside the object that holds `facts` and `watchTerms`. An unknown `kind` or
//! `currency` cannot be read into a [`Fact`] at all, so the JSON readers look at those
//! strings first ([`json_fact_problems`]) to name them.
//!
//! The limits ([`crate::limits::MAX_FACTS`] and the five after it) bound what the claims
//! engine does with a hostile answer: it compares each sentence about a target with each cue,
//! value and watch term, so its work is linear in the answer's length with a factor of at
//! most [`MAX_FACT_SHEET_TERMS`] comparisons of at most [`MAX_FACT_TEXT_CHARS`] characters.

use std::fmt;

use rustc_hash::{FxHashMap, FxHashSet};
use serde_json::Value;

use crate::analysis::alias::PreparedAlias;
use crate::export::problem::{describe_value, quoted, Sink};
use crate::export::validate::check_fact_snapshot_shape;
use crate::limits::{
    MAX_EXPORT_DEPTH, MAX_FACTS, MAX_FACTS_FILE_BYTES, MAX_FACT_CUES, MAX_FACT_SHEET_TERMS, MAX_FACT_TEXT_CHARS,
    MAX_FACT_TOLERANCE, MAX_FACT_VALUES, MAX_WATCH_TERMS,
};
use crate::model::{Currency, Fact, FactKind, FactSnapshot, Localized, Target};

/// The years a `year` fact may hold (data-model.md, "Fact"), the range rule 4 reads.
const YEARS: std::ops::RangeInclusive<f64> = 1000.0..=2999.0;

/// A field of a fact that holds text with a length limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FactField {
    /// `id`.
    Id,
    /// `label`.
    Label,
    /// `cues`.
    Cues,
    /// `accepted`.
    Accepted,
    /// `rejected`.
    Rejected,
}

impl FactField {
    /// The JSON field name.
    pub fn json_name(self) -> &'static str {
        match self {
            FactField::Id => "id",
            FactField::Label => "label",
            FactField::Cues => "cues",
            FactField::Accepted => "accepted",
            FactField::Rejected => "rejected",
        }
    }

    /// What the field is called in messages: Chinese, English singular, English plural.
    fn words(self) -> (&'static str, &'static str, &'static str) {
        match self {
            FactField::Id => ("id", "id", "ids"),
            FactField::Label => ("名称", "label", "labels"),
            FactField::Cues => ("线索词", "cue", "cues"),
            FactField::Accepted => ("正确值", "accepted value", "accepted values"),
            FactField::Rejected => ("错误值", "rejected value", "rejected values"),
        }
    }
}

/// Why a fact sheet (or a `--facts` file) was refused. Fact-level variants carry the fact's
/// place in `facts` (`at`, from 0) and its id as written (`id`, cut to
/// [`MAX_FACT_TEXT_CHARS`] characters).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FactProblem {
    /// A `--facts` file larger than [`MAX_FACTS_FILE_BYTES`].
    FileTooLarge {
        /// Its size.
        bytes: usize,
    },
    /// A `--facts` file nesting deeper than [`MAX_EXPORT_DEPTH`].
    FileTooDeep,
    /// A `--facts` file that is not JSON.
    NotJson {
        /// The JSON reader's message.
        message: String,
    },
    /// A value of the wrong type in a `--facts` file (the import's shape check, in English).
    Shape {
        /// Its JSON path.
        path: String,
        /// What is wrong.
        message: String,
    },
    /// More facts than [`MAX_FACTS`].
    TooManyFacts {
        /// How many.
        count: usize,
    },
    /// More watch terms than [`MAX_WATCH_TERMS`].
    TooManyWatchTerms {
        /// How many.
        count: usize,
    },
    /// More cues, values and watch terms in all than [`MAX_FACT_SHEET_TERMS`].
    TooManyTerms {
        /// How many.
        count: usize,
    },
    /// A watch term longer than [`MAX_FACT_TEXT_CHARS`] characters.
    LongWatchTerm {
        /// Its place in `watchTerms`, from 0.
        index: usize,
        /// Its length in characters.
        chars: usize,
    },
    /// A fact with a blank id.
    BlankId {
        /// Its place.
        at: usize,
    },
    /// A fact whose id an earlier fact has.
    DuplicateId {
        /// Its place.
        at: usize,
        /// Its id.
        id: String,
        /// The place of the first fact with that id.
        first: usize,
    },
    /// A missing or unknown `kind` (only JSON can hold one).
    UnknownKind {
        /// Its place.
        at: usize,
        /// Its id.
        id: String,
        /// The kind as written; `None` when absent.
        kind: Option<String>,
    },
    /// A `targetId` that is not one of the targets (the project's brand and competitors, or
    /// a run's `aliasSnapshot`).
    UnknownTarget {
        /// Its place.
        at: usize,
        /// Its id.
        id: String,
        /// The `targetId` as written.
        target: String,
    },
    /// No cue that is not blank.
    NoCue {
        /// Its place.
        at: usize,
        /// Its id.
        id: String,
    },
    /// A `text` fact without an accepted value that is not blank.
    NoAccepted {
        /// Its place.
        at: usize,
        /// Its id.
        id: String,
    },
    /// A `year`, `number` or `money` fact without `value`.
    MissingValue {
        /// Its place.
        at: usize,
        /// Its id.
        id: String,
        /// Its kind.
        kind: FactKind,
    },
    /// A `year` that is not a whole number from 1000 to 2999.
    BadYear {
        /// Its place.
        at: usize,
        /// Its id.
        id: String,
        /// The value as Rust prints it.
        value: String,
    },
    /// A `number` or `money` value that is not finite.
    NotFinite {
        /// Its place.
        at: usize,
        /// Its id.
        id: String,
        /// The value as Rust prints it.
        value: String,
    },
    /// A missing (`money`) or unknown (any kind, only JSON can hold one) `currency`.
    UnknownCurrency {
        /// Its place.
        at: usize,
        /// Its id.
        id: String,
        /// The currency as written; `None` when absent.
        currency: Option<String>,
    },
    /// A `tolerance` that is negative, above [`MAX_FACT_TOLERANCE`] or not a number.
    BadTolerance {
        /// Its place.
        at: usize,
        /// Its id.
        id: String,
        /// The tolerance as Rust prints it.
        value: String,
    },
    /// More cues than [`MAX_FACT_CUES`], or accepted or rejected values than
    /// [`MAX_FACT_VALUES`].
    TooMany {
        /// Its place.
        at: usize,
        /// Its id.
        id: String,
        /// The list.
        field: FactField,
        /// Its length.
        count: usize,
    },
    /// An id, label, cue or value longer than [`MAX_FACT_TEXT_CHARS`] characters.
    TooLong {
        /// Its place.
        at: usize,
        /// Its id.
        id: String,
        /// The field.
        field: FactField,
        /// The place in the list (cues, accepted, rejected), from 0.
        item: Option<usize>,
        /// Its length in characters.
        chars: usize,
    },
}

/// The file's shape for messages.
const FILE_SHAPE: &str = r#"{"facts": [...], "watchTerms": [...]}"#;

impl FactProblem {
    /// The JSON path of the value at fault, inside the object that holds `facts` and
    /// `watchTerms` (`facts[2].kind`, `watchTerms[0]`; empty for the whole file or sheet).
    pub fn path(&self) -> String {
        use FactProblem::*;
        match self {
            FileTooLarge { .. } | FileTooDeep | NotJson { .. } | TooManyTerms { .. } => String::new(),
            Shape { path, .. } => path.clone(),
            TooManyFacts { .. } => "facts".into(),
            TooManyWatchTerms { .. } => "watchTerms".into(),
            LongWatchTerm { index, .. } => format!("watchTerms[{index}]"),
            BlankId { at } | DuplicateId { at, .. } => format!("facts[{at}].id"),
            UnknownKind { at, .. } => format!("facts[{at}].kind"),
            UnknownTarget { at, .. } => format!("facts[{at}].targetId"),
            NoCue { at, .. } => format!("facts[{at}].cues"),
            NoAccepted { at, .. } => format!("facts[{at}].accepted"),
            MissingValue { at, .. } | BadYear { at, .. } | NotFinite { at, .. } => format!("facts[{at}].value"),
            UnknownCurrency { at, .. } => format!("facts[{at}].currency"),
            BadTolerance { at, .. } => format!("facts[{at}].tolerance"),
            TooMany { at, field, .. } => format!("facts[{at}].{}", field.json_name()),
            TooLong { at, field, item: None, .. } => format!("facts[{at}].{}", field.json_name()),
            TooLong { at, field, item: Some(i), .. } => format!("facts[{at}].{}[{i}]", field.json_name()),
        }
    }

    /// The place in `facts` of the fact at fault, if the problem is one fact's.
    pub fn fact_index(&self) -> Option<usize> {
        use FactProblem::*;
        match self {
            BlankId { at }
            | DuplicateId { at, .. }
            | UnknownKind { at, .. }
            | UnknownTarget { at, .. }
            | NoCue { at, .. }
            | NoAccepted { at, .. }
            | MissingValue { at, .. }
            | BadYear { at, .. }
            | NotFinite { at, .. }
            | UnknownCurrency { at, .. }
            | BadTolerance { at, .. }
            | TooMany { at, .. }
            | TooLong { at, .. } => Some(*at),
            _ => None,
        }
    }

    /// The message in both interface languages (English is what [`Display`](fmt::Display)
    /// prints after the path).
    pub fn localized(&self) -> Localized {
        match self.fact_index() {
            Some(_) => self.fact_message(),
            None => self.sheet_message(),
        }
    }

    /// The messages of the file and the sheet as a whole.
    fn sheet_message(&self) -> Localized {
        use FactProblem::*;
        let text = MAX_FACT_TEXT_CHARS;
        match self {
            FileTooLarge { bytes } => Localized::new(
                format!("事实表文件有 {bytes} 字节，超过 {MAX_FACTS_FILE_BYTES} 字节的上限；请精简事实表"),
                format!(
                    "the facts file is {bytes} bytes, above the limit of {MAX_FACTS_FILE_BYTES}; shorten the fact sheet"
                ),
            ),
            FileTooDeep => Localized::new(
                format!("事实表文件的 JSON 嵌套超过 {MAX_EXPORT_DEPTH} 层；请写成 {FILE_SHAPE} 的形式"),
                format!("the facts file nests deeper than {MAX_EXPORT_DEPTH} levels; write it as {FILE_SHAPE}"),
            ),
            NotJson { message } => Localized::new(
                format!("事实表文件不是有效的 JSON（{message}）；请修正后重试"),
                format!("the facts file is not valid json ({message}); fix it and try again"),
            ),
            Shape { message, .. } => Localized::new(
                format!("事实表文件格式有误：{message}；事实表文件形如 {FILE_SHAPE}"),
                format!("{message}; a facts file is {FILE_SHAPE}"),
            ),
            TooManyFacts { count } => Localized::new(
                format!("事实表有 {count} 条事实，超过 {MAX_FACTS} 条的上限；请删减事实"),
                format!("the fact sheet has {count} facts, above the limit of {MAX_FACTS}; remove facts"),
            ),
            TooManyWatchTerms { count } => Localized::new(
                format!("事实表有 {count} 个关注词，超过 {MAX_WATCH_TERMS} 个的上限；请删减关注词"),
                format!(
                    "the fact sheet has {count} watch terms, above the limit of {MAX_WATCH_TERMS}; remove watch terms"
                ),
            ),
            TooManyTerms { count } => Localized::new(
                format!(
                    "事实表的线索词、正确值、错误值和关注词共 {count} 个，超过 {MAX_FACT_SHEET_TERMS} 个的上限；请删减"
                ),
                format!(
                    "the fact sheet has {count} cues, accepted and rejected values and watch terms in all, above the limit of {MAX_FACT_SHEET_TERMS}; remove some"
                ),
            ),
            LongWatchTerm { index, chars } => Localized::new(
                format!("第 {} 个关注词有 {chars} 个字符，超过 {text} 个的上限；请缩短", index + 1),
                format!("watch term {} has {chars} characters, above the limit of {text}; shorten it", index + 1),
            ),
            // A fact's problem: `fact_message` (every variant's message is tested).
            _ => self.fact_message(),
        }
    }

    /// The messages of one fact: named by its id (by its place when it has none).
    fn fact_message(&self) -> Localized {
        use FactProblem::*;
        let text = MAX_FACT_TEXT_CHARS;
        let kinds = ("year、number、money 或 text", "year, number, money or text");
        let currencies = ("CNY、USD 或 EUR", "CNY, USD or EUR");
        match self {
            BlankId { at } => Localized::new(
                format!("第 {} 条事实没有 id；请为每条事实设置 id", at + 1),
                format!("fact {} has no id; give every fact an id", at + 1),
            ),
            DuplicateId { id, first, .. } => Localized::new(
                format!("事实 id {} 重复（第 {} 条事实也用了它）；请为每条事实设置不同的 id", quoted(id), first + 1),
                format!("fact id {} is used twice (also by fact {}); give every fact its own id", quoted(id), first + 1),
            ),
            UnknownKind { id, kind: None, .. } => Localized::new(
                format!("事实 {} 没有类型（kind）；请使用 {}", quoted(id), kinds.0),
                format!("fact {} has no kind; use {}", quoted(id), kinds.1),
            ),
            UnknownKind { id, kind: Some(kind), .. } => Localized::new(
                format!("事实 {} 的类型 {} 无法识别；请使用 {}", quoted(id), quoted(kind), kinds.0),
                format!("fact {} has the unknown kind {}; use {}", quoted(id), quoted(kind), kinds.1),
            ),
            UnknownTarget { id, target, .. } => Localized::new(
                format!("事实 {} 指向的 {} 既不是品牌也不是竞品；请选择品牌或某个竞品", quoted(id), quoted(target)),
                format!(
                    "fact {} is about {}, which is neither the brand nor a competitor; choose the brand or a competitor",
                    quoted(id),
                    quoted(target)
                ),
            ),
            NoCue { id, .. } => Localized::new(
                format!("事实 {} 没有线索词；请至少填写一个把句子归到这条事实的词，如「成立」或 founded", quoted(id)),
                format!(
                    "fact {} has no cue; give at least one word that puts a sentence on its topic, such as 成立 or founded",
                    quoted(id)
                ),
            ),
            NoAccepted { id, .. } => Localized::new(
                format!("文本事实 {} 没有正确值；请至少填写一个正确值", quoted(id)),
                format!("text fact {} has no accepted value; give at least one", quoted(id)),
            ),
            MissingValue { id, kind, .. } => {
                let (zh, en) = match kind {
                    FactKind::Year => ("年份", "year"),
                    FactKind::Money => ("金额", "amount"),
                    FactKind::Number | FactKind::Text => ("数值", "number"),
                };
                Localized::new(
                    format!("事实 {}（{}）没有取值（value）；请填写{zh}", quoted(id), kind.as_str()),
                    format!("fact {} ({}) has no value; give its {en}", quoted(id), kind.as_str()),
                )
            }
            BadYear { id, value, .. } => Localized::new(
                format!("事实 {} 的年份为 {value}；年份须为 1000 到 2999 之间的整数", quoted(id)),
                format!("fact {} has the year {value}; give a whole number from 1000 to 2999", quoted(id)),
            ),
            NotFinite { id, value, .. } => Localized::new(
                format!("事实 {} 的取值为 {value}；请填写一个有限的数", quoted(id)),
                format!("fact {} has the value {value}; give a finite number", quoted(id)),
            ),
            UnknownCurrency { id, currency: None, .. } => Localized::new(
                format!("金额事实 {} 没有币种（currency）；请使用 {}", quoted(id), currencies.0),
                format!("money fact {} has no currency; use {}", quoted(id), currencies.1),
            ),
            UnknownCurrency { id, currency: Some(c), .. } => Localized::new(
                format!("事实 {} 的币种 {} 无法识别；请使用 {}", quoted(id), quoted(c), currencies.0),
                format!("fact {} has the unknown currency {}; use {}", quoted(id), quoted(c), currencies.1),
            ),
            BadTolerance { id, value, .. } => Localized::new(
                format!(
                    "事实 {} 的容差为 {value}；容差是相对值，须在 0 到 {MAX_FACT_TOLERANCE} 之间（0.1 即相差 10% 以内）",
                    quoted(id)
                ),
                format!(
                    "fact {} has the tolerance {value}; give a relative tolerance from 0 to {MAX_FACT_TOLERANCE} (0.1 = within 10 %)",
                    quoted(id)
                ),
            ),
            TooMany { id, field, count, .. } => {
                let limit = if *field == FactField::Cues { MAX_FACT_CUES } else { MAX_FACT_VALUES };
                let (zh, _, en) = field.words();
                Localized::new(
                    format!("事实 {} 有 {count} 个{zh}，超过 {limit} 个的上限；请删减", quoted(id)),
                    format!("fact {} has {count} {en}, above the limit of {limit}; remove some", quoted(id)),
                )
            }
            TooLong { id, field, item, chars, .. } => {
                let (zh, en, _) = field.words();
                let (zh_which, en_which) = match item {
                    Some(i) => (format!("第 {} 个{zh}", i + 1), format!("{en} {}", i + 1)),
                    None => (zh.to_string(), en.to_string()),
                };
                Localized::new(
                    format!("事实 {} 的{zh_which}有 {chars} 个字符，超过 {text} 个的上限；请缩短", quoted(id)),
                    format!(
                        "{en_which} of fact {} has {chars} characters, above the limit of {text}; shorten it",
                        quoted(id)
                    ),
                )
            }
            FileTooLarge { .. }
            | FileTooDeep
            | NotJson { .. }
            | Shape { .. }
            | TooManyFacts { .. }
            | TooManyWatchTerms { .. }
            | TooManyTerms { .. }
            | LongWatchTerm { .. } => self.sheet_message(),
        }
    }
}

impl fmt::Display for FactProblem {
    /// `path: message` in English (the message alone when the path is empty).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = self.path();
        if path.is_empty() {
            f.write_str(&self.localized().en)
        } else {
            write!(f, "{path}: {}", self.localized().en)
        }
    }
}

impl std::error::Error for FactProblem {}

/// Checks a fact sheet against the rules of data-model.md ("Fact") and the limits of
/// [`crate::limits`]: every fact has a unique id that is not blank, a `targetId` among
/// `targets` (a project's brand and competitors, or a run's `aliasSnapshot`), at least one
/// cue that is not blank and, by kind, `year`: a whole `value` from 1000 to 2999; `number`:
/// a finite `value`; `money`: a finite `value` and a `currency`; `text`: at least one
/// accepted value that is not blank; a `tolerance`, where given, from 0 to
/// [`MAX_FACT_TOLERANCE`]. Returns the first problem: the sheet's own (counts, watch terms)
/// first, then fact by fact in the order of the list.
pub fn validate_fact_sheet(facts: &[Fact], watch_terms: &[String], targets: &[Target]) -> Result<(), FactProblem> {
    let ids: FxHashSet<&str> = targets.iter().map(|t| t.id.as_str()).collect();
    match fact_sheet_problems(facts, watch_terms, &ids).into_iter().next() {
        Some(problem) => Err(problem),
        None => Ok(()),
    }
}

/// Characters of `s` when it is longer than [`MAX_FACT_TEXT_CHARS`] characters.
fn too_long(s: &str) -> Option<usize> {
    (s.len() > MAX_FACT_TEXT_CHARS).then(|| s.chars().count()).filter(|&n| n > MAX_FACT_TEXT_CHARS)
}

/// A string the claims engine can match: not blank in the matching normal form.
fn usable(s: &str) -> bool {
    PreparedAlias::new(0, s).is_some()
}

/// `s` cut to [`MAX_FACT_TEXT_CHARS`] characters, for a problem to carry.
fn cut(s: &str) -> String {
    s.chars().take(MAX_FACT_TEXT_CHARS).collect()
}

/// Every problem of a fact sheet, in the order of [`validate_fact_sheet`]; `targets` are the
/// ids a fact may name. Past [`MAX_FACTS`] facts (or [`MAX_WATCH_TERMS`] terms) only the
/// counts are reported, so the list stays short whatever the input: at most one problem per
/// rule and fact.
pub(crate) fn fact_sheet_problems(
    facts: &[Fact],
    watch_terms: &[String],
    targets: &FxHashSet<&str>,
) -> Vec<FactProblem> {
    let mut out = Vec::new();
    if watch_terms.len() > MAX_WATCH_TERMS {
        out.push(FactProblem::TooManyWatchTerms { count: watch_terms.len() });
    } else if let Some((index, chars)) = watch_terms.iter().enumerate().find_map(|(i, t)| too_long(t).map(|n| (i, n))) {
        out.push(FactProblem::LongWatchTerm { index, chars });
    }
    if facts.len() > MAX_FACTS {
        out.insert(0, FactProblem::TooManyFacts { count: facts.len() });
        return out;
    }
    let terms =
        watch_terms.len() + facts.iter().map(|f| f.cues.len() + f.accepted.len() + f.rejected.len()).sum::<usize>();
    if terms > MAX_FACT_SHEET_TERMS {
        out.push(FactProblem::TooManyTerms { count: terms });
    }
    let mut seen: FxHashMap<&str, usize> = FxHashMap::default();
    for (at, fact) in facts.iter().enumerate() {
        let id = cut(&fact.id);
        if fact.id.trim().is_empty() {
            out.push(FactProblem::BlankId { at });
        } else if let Some(chars) = too_long(&fact.id) {
            out.push(FactProblem::TooLong { at, id: id.clone(), field: FactField::Id, item: None, chars });
        } else if let Some(&first) = seen.get(fact.id.as_str()) {
            out.push(FactProblem::DuplicateId { at, id: id.clone(), first });
        } else {
            seen.insert(&fact.id, at);
        }
        if !targets.contains(fact.target_id.as_str()) {
            out.push(FactProblem::UnknownTarget { at, id: id.clone(), target: cut(&fact.target_id) });
        }
        if let Some(chars) = too_long(&fact.label) {
            out.push(FactProblem::TooLong { at, id: id.clone(), field: FactField::Label, item: None, chars });
        }
        fact_problems(fact, at, &id, &mut out);
    }
    out
}

/// The problems of one fact's cues, value, currency, tolerance and values.
fn fact_problems(fact: &Fact, at: usize, id: &str, out: &mut Vec<FactProblem>) {
    let id = || id.to_string();
    list_problems(&fact.cues, FactField::Cues, MAX_FACT_CUES, at, id(), out);
    if !fact.cues.iter().any(|c| usable(c)) && fact.cues.len() <= MAX_FACT_CUES {
        out.push(FactProblem::NoCue { at, id: id() });
    }
    match (fact.kind, fact.value) {
        (FactKind::Text, _) => {}
        (kind, None) => out.push(FactProblem::MissingValue { at, id: id(), kind }),
        (FactKind::Year, Some(v)) if !(v.fract() == 0.0 && YEARS.contains(&v)) => {
            out.push(FactProblem::BadYear { at, id: id(), value: v.to_string() })
        }
        (_, Some(v)) if !v.is_finite() => out.push(FactProblem::NotFinite { at, id: id(), value: v.to_string() }),
        _ => {}
    }
    if fact.kind == FactKind::Money && fact.currency.is_none() {
        out.push(FactProblem::UnknownCurrency { at, id: id(), currency: None });
    }
    if let Some(t) = fact.tolerance.filter(|t| !(0.0..=MAX_FACT_TOLERANCE).contains(t)) {
        out.push(FactProblem::BadTolerance { at, id: id(), value: t.to_string() });
    }
    list_problems(&fact.accepted, FactField::Accepted, MAX_FACT_VALUES, at, id(), out);
    if fact.kind == FactKind::Text && !fact.accepted.iter().any(|a| usable(a)) && fact.accepted.len() <= MAX_FACT_VALUES
    {
        out.push(FactProblem::NoAccepted { at, id: id() });
    }
    list_problems(&fact.rejected, FactField::Rejected, MAX_FACT_VALUES, at, id(), out);
}

/// A list past its `limit`, else its first string past [`MAX_FACT_TEXT_CHARS`] characters.
fn list_problems(list: &[String], field: FactField, limit: usize, at: usize, id: String, out: &mut Vec<FactProblem>) {
    if list.len() > limit {
        out.push(FactProblem::TooMany { at, id, field, count: list.len() });
    } else if let Some((i, chars)) = list.iter().enumerate().find_map(|(i, s)| too_long(s).map(|n| (i, n))) {
        out.push(FactProblem::TooLong { at, id, field, item: Some(i), chars });
    }
}

/// The problems of fact number `at`, written as JSON, that reading it into a [`Fact`] could
/// not name: a missing or unknown `kind`, an unknown `currency` (serde would only say
/// "unknown variant" without the fact). Run after the shape check, before typed reading;
/// a value that is not an object, or a `kind` that is not a string, is the shape check's.
pub(crate) fn json_fact_problems(fact: &Value, at: usize) -> Vec<FactProblem> {
    let Some(map) = fact.as_object() else { return Vec::new() };
    let id = || cut(map.get("id").and_then(Value::as_str).unwrap_or_default());
    let mut out = Vec::new();
    match map.get("kind") {
        None | Some(Value::Null) => out.push(FactProblem::UnknownKind { at, id: id(), kind: None }),
        Some(Value::String(k)) if FactKind::parse(k).is_none() => {
            out.push(FactProblem::UnknownKind { at, id: id(), kind: Some(cut(k)) })
        }
        _ => {}
    }
    if let Some(Value::String(c)) = map.get("currency") {
        if Currency::parse(c).is_none() {
            out.push(FactProblem::UnknownCurrency { at, id: id(), currency: Some(cut(c)) });
        }
    }
    out
}

/// Reads a `--facts` file, `{ "facts": [Fact], "watchTerms": [string] }` (either absent =
/// `[]`, unknown fields ignored), for a run whose targets are `targets` (its
/// `aliasSnapshot`): bounded like an export (at most [`MAX_FACTS_FILE_BYTES`], nesting at
/// most [`MAX_EXPORT_DEPTH`]), every value of the right type, every kind and currency known
/// by name, and the sheet valid by [`validate_fact_sheet`]. Returns the first problem.
pub fn parse_facts_file(text: &str, targets: &[Target]) -> Result<FactSnapshot, FactProblem> {
    if text.len() > MAX_FACTS_FILE_BYTES {
        return Err(FactProblem::FileTooLarge { bytes: text.len() });
    }
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if crate::export::json::nesting_exceeds(text, MAX_EXPORT_DEPTH) {
        return Err(FactProblem::FileTooDeep);
    }
    let not_json = |e: serde_json::Error| FactProblem::NotJson { message: e.to_string() };
    let mut root: Value = serde_json::from_str(text).map_err(not_json)?;
    if !root.is_object() {
        let message = format!("expected an object, got {}", describe_value(&root));
        return Err(FactProblem::Shape { path: String::new(), message });
    }
    let mut sink = Sink::default();
    check_fact_snapshot_shape(&mut root, &mut sink);
    if let Some(p) = sink.first.into_iter().next() {
        return Err(FactProblem::Shape { path: p.path, message: p.message });
    }
    let facts = root.get("facts").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
    if let Some(problem) = facts.iter().enumerate().flat_map(|(at, f)| json_fact_problems(f, at)).next() {
        return Err(problem);
    }
    // Through text, as the import does: the model has one deserializer (`crate::json`).
    let snapshot: FactSnapshot = serde_json::to_string(&root)
        .map_err(not_json)
        .and_then(|checked| crate::json::from_str(&checked).map_err(not_json))?;
    validate_fact_sheet(&snapshot.facts, &snapshot.watch_terms, targets)?;
    Ok(snapshot)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builders::aliased;
    use crate::model::TargetKind;

    fn targets() -> Vec<Target> {
        vec![aliased("brand", TargetKind::Brand, &["brand"]), aliased("rival", TargetKind::Competitor, &["rival"])]
    }

    fn strings(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    /// A valid fact of each kind: `founded` (year), `staff` (number), `price` (money),
    /// `hq` (text).
    fn sheet() -> Vec<Fact> {
        let fact = |id: &str, kind, value| Fact {
            id: id.into(),
            target_id: "brand".into(),
            label: format!("{id} label"),
            kind,
            cues: strings(&["成立", "founded"]),
            value,
            currency: None,
            tolerance: None,
            accepted: vec![],
            rejected: vec![],
        };
        let mut price = fact("price", FactKind::Money, Some(199.0));
        price.currency = Some(Currency::Cny);
        price.tolerance = Some(0.1);
        let mut hq = fact("hq", FactKind::Text, None);
        hq.accepted = strings(&["北京"]);
        hq.rejected = strings(&["上海"]);
        hq.target_id = "rival".into();
        vec![fact("founded", FactKind::Year, Some(2015.0)), fact("staff", FactKind::Number, Some(120.0)), price, hq]
    }

    /// The sheet with fact `at` changed by `edit`.
    fn edited(at: usize, edit: impl FnOnce(&mut Fact)) -> Vec<Fact> {
        let mut facts = sheet();
        edit(&mut facts[at]);
        facts
    }

    /// `ok`, or the first problem as `path: english` and its Chinese on a second line.
    fn outcome(result: Result<(), FactProblem>) -> String {
        match result {
            Ok(()) => "ok".into(),
            Err(p) => format!("{p}\n{}", p.localized().zh),
        }
    }

    #[track_caller]
    fn check(facts: Vec<Fact>, watch_terms: &[&str], expect: &str) {
        assert_eq!(outcome(validate_fact_sheet(&facts, &strings(watch_terms), &targets())), expect);
    }

    #[test]
    fn a_sheet_by_the_rules_is_taken() {
        check(sheet(), &[], "ok");
        check(sheet(), &["2019 数据泄露", "  "], "ok");
        check(vec![], &[], "ok");
        // Blank entries beside a usable one are ignored (the claims engine skips them).
        check(edited(0, |f| f.cues = strings(&["", " ", "成立"])), &[], "ok");
        check(edited(0, |f| f.value = Some(1000.0)), &[], "ok");
        check(edited(0, |f| f.value = Some(2999.0)), &[], "ok");
        check(edited(1, |f| f.tolerance = Some(0.0)), &[], "ok");
        check(edited(1, |f| f.tolerance = Some(MAX_FACT_TOLERANCE)), &[], "ok");
        check(edited(1, |f| f.value = Some(-3.5)), &[], "ok");
        // Fields of another kind are not read: a text fact's value, a year's currency.
        check(edited(3, |f| f.value = Some(f64::NAN)), &[], "ok");
        check(edited(0, |f| f.currency = Some(Currency::Eur)), &[], "ok");
    }

    #[test]
    fn every_fact_has_a_cue() {
        let expect = "facts[0].cues: fact \"founded\" has no cue; give at least one word that puts a sentence on its topic, such as 成立 or founded\n事实 \"founded\" 没有线索词；请至少填写一个把句子归到这条事实的词，如「成立」或 founded";
        check(edited(0, |f| f.cues.clear()), &[], expect);
        check(edited(0, |f| f.cues = strings(&["", " \t", "\u{3000}"])), &[], expect);
    }

    #[test]
    fn a_text_fact_has_an_accepted_value() {
        let expect = "facts[3].accepted: text fact \"hq\" has no accepted value; give at least one\n文本事实 \"hq\" 没有正确值；请至少填写一个正确值";
        check(edited(3, |f| f.accepted.clear()), &[], expect);
        check(edited(3, |f| f.accepted = strings(&["  "])), &[], expect);
    }

    #[test]
    fn a_year_is_a_whole_number_from_1000_to_2999() {
        #[track_caller]
        fn year(value: f64, shown: &str) {
            check(
                edited(0, |f| f.value = Some(value)),
                &[],
                &format!("facts[0].value: fact \"founded\" has the year {shown}; give a whole number from 1000 to 2999\n事实 \"founded\" 的年份为 {shown}；年份须为 1000 到 2999 之间的整数"),
            );
        }
        year(999.0, "999");
        year(3000.0, "3000");
        year(2015.5, "2015.5");
        year(-2015.0, "-2015");
        year(f64::NAN, "NaN");
        year(f64::INFINITY, "inf");
        check(
            edited(0, |f| f.value = None),
            &[],
            "facts[0].value: fact \"founded\" (year) has no value; give its year\n事实 \"founded\"（year）没有取值（value）；请填写年份",
        );
    }

    #[test]
    fn a_number_or_money_has_a_finite_value() {
        check(
            edited(1, |f| f.value = None),
            &[],
            "facts[1].value: fact \"staff\" (number) has no value; give its number\n事实 \"staff\"（number）没有取值（value）；请填写数值",
        );
        check(
            edited(2, |f| f.value = None),
            &[],
            "facts[2].value: fact \"price\" (money) has no value; give its amount\n事实 \"price\"（money）没有取值（value）；请填写金额",
        );
        check(
            edited(1, |f| f.value = Some(f64::NEG_INFINITY)),
            &[],
            "facts[1].value: fact \"staff\" has the value -inf; give a finite number\n事实 \"staff\" 的取值为 -inf；请填写一个有限的数",
        );
        check(
            edited(2, |f| f.value = Some(f64::NAN)),
            &[],
            "facts[2].value: fact \"price\" has the value NaN; give a finite number\n事实 \"price\" 的取值为 NaN；请填写一个有限的数",
        );
    }

    #[test]
    fn money_has_a_currency() {
        check(
            edited(2, |f| f.currency = None),
            &[],
            "facts[2].currency: money fact \"price\" has no currency; use CNY, USD or EUR\n金额事实 \"price\" 没有币种（currency）；请使用 CNY、USD 或 EUR",
        );
    }

    #[test]
    fn a_tolerance_is_from_0_to_1() {
        #[track_caller]
        fn tolerance(value: f64, shown: &str) {
            check(
                edited(2, |f| f.tolerance = Some(value)),
                &[],
                &format!("facts[2].tolerance: fact \"price\" has the tolerance {shown}; give a relative tolerance from 0 to 1 (0.1 = within 10 %)\n事实 \"price\" 的容差为 {shown}；容差是相对值，须在 0 到 1 之间（0.1 即相差 10% 以内）"),
            );
        }
        tolerance(-0.1, "-0.1");
        tolerance(-1e-12, "-0.000000000001");
        tolerance(10.0, "10");
        tolerance(f64::NAN, "NaN");
        tolerance(f64::INFINITY, "inf");
    }

    #[test]
    fn a_fact_is_about_a_target_of_the_project() {
        check(
            edited(3, |f| f.target_id = "ghost".into()),
            &[],
            "facts[3].targetId: fact \"hq\" is about \"ghost\", which is neither the brand nor a competitor; choose the brand or a competitor\n事实 \"hq\" 指向的 \"ghost\" 既不是品牌也不是竞品；请选择品牌或某个竞品",
        );
        check(edited(3, |f| f.target_id = "Rival".into()), &[], "facts[3].targetId: fact \"hq\" is about \"Rival\", which is neither the brand nor a competitor; choose the brand or a competitor\n事实 \"hq\" 指向的 \"Rival\" 既不是品牌也不是竞品；请选择品牌或某个竞品");
        // The targets are the caller's: a run's aliasSnapshot may hold fewer.
        let brand_only = &targets()[..1];
        assert_eq!(validate_fact_sheet(&sheet(), &[], brand_only).unwrap_err().path(), "facts[3].targetId");
    }

    #[test]
    fn ids_are_unique_and_not_blank() {
        check(
            edited(2, |f| f.id = " ".into()),
            &[],
            "facts[2].id: fact 3 has no id; give every fact an id\n第 3 条事实没有 id；请为每条事实设置 id",
        );
        check(
            edited(3, |f| f.id = "staff".into()),
            &[],
            "facts[3].id: fact id \"staff\" is used twice (also by fact 2); give every fact its own id\n事实 id \"staff\" 重复（第 2 条事实也用了它）；请为每条事实设置不同的 id",
        );
    }

    #[test]
    fn lists_are_bounded() {
        let many = |n: usize| (0..n).map(|i| format!("w{i}")).collect::<Vec<String>>();
        check(
            edited(0, |f| f.cues = many(MAX_FACT_CUES + 1)),
            &[],
            "facts[0].cues: fact \"founded\" has 21 cues, above the limit of 20; remove some\n事实 \"founded\" 有 21 个线索词，超过 20 个的上限；请删减",
        );
        check(edited(0, |f| f.cues = many(MAX_FACT_CUES)), &[], "ok");
        check(
            edited(3, |f| f.accepted = many(MAX_FACT_VALUES + 1)),
            &[],
            "facts[3].accepted: fact \"hq\" has 21 accepted values, above the limit of 20; remove some\n事实 \"hq\" 有 21 个正确值，超过 20 个的上限；请删减",
        );
        check(
            edited(3, |f| f.rejected = many(MAX_FACT_VALUES + 1)),
            &[],
            "facts[3].rejected: fact \"hq\" has 21 rejected values, above the limit of 20; remove some\n事实 \"hq\" 有 21 个错误值，超过 20 个的上限；请删减",
        );
        check(edited(3, |f| (f.accepted, f.rejected) = (many(20), many(20))), &[], "ok");
        let terms = many(MAX_WATCH_TERMS + 1);
        let terms: Vec<&str> = terms.iter().map(String::as_str).collect();
        check(
            sheet(),
            &terms,
            "watchTerms: the fact sheet has 201 watch terms, above the limit of 200; remove watch terms\n事实表有 201 个关注词，超过 200 个的上限；请删减关注词",
        );
        check(sheet(), &terms[..MAX_WATCH_TERMS], "ok");
        let facts =
            |n: usize| -> Vec<Fact> { (0..n).map(|i| Fact { id: format!("f{i}"), ..sheet()[0].clone() }).collect() };
        check(
            facts(MAX_FACTS + 1),
            &[],
            "facts: the fact sheet has 201 facts, above the limit of 200; remove facts\n事实表有 201 条事实，超过 200 条的上限；请删减事实",
        );
        check(facts(MAX_FACTS), &[], "ok");
    }

    #[test]
    fn the_whole_sheet_is_bounded() {
        // 100 facts of 20 cues: 2,000 terms, the limit; one watch term more is past it.
        let facts: Vec<Fact> = (0..100)
            .map(|i| Fact {
                id: format!("f{i}"),
                cues: (0..20).map(|c| format!("c{c}")).collect(),
                ..sheet()[0].clone()
            })
            .collect();
        check(facts.clone(), &[], "ok");
        check(
            facts,
            &["x"],
            "the fact sheet has 2001 cues, accepted and rejected values and watch terms in all, above the limit of 2000; remove some\n事实表的线索词、正确值、错误值和关注词共 2001 个，超过 2000 个的上限；请删减",
        );
    }

    #[test]
    fn texts_are_bounded_in_characters() {
        let long = "成".repeat(MAX_FACT_TEXT_CHARS + 1);
        let at_limit = "成".repeat(MAX_FACT_TEXT_CHARS);
        check(
            edited(0, |f| (f.id, f.label, f.cues) = (at_limit.clone(), at_limit.clone(), vec![at_limit.clone()])),
            &[&at_limit],
            "ok",
        );
        check(
            edited(0, |f| f.cues.push(long.clone())),
            &[],
            "facts[0].cues[2]: cue 3 of fact \"founded\" has 101 characters, above the limit of 100; shorten it\n事实 \"founded\" 的第 3 个线索词有 101 个字符，超过 100 个的上限；请缩短",
        );
        check(
            edited(0, |f| f.label = long.clone()),
            &[],
            "facts[0].label: label of fact \"founded\" has 101 characters, above the limit of 100; shorten it\n事实 \"founded\" 的名称有 101 个字符，超过 100 个的上限；请缩短",
        );
        check(
            edited(3, |f| f.rejected = vec!["a".into(), long.clone()]),
            &[],
            "facts[3].rejected[1]: rejected value 2 of fact \"hq\" has 101 characters, above the limit of 100; shorten it\n事实 \"hq\" 的第 2 个错误值有 101 个字符，超过 100 个的上限；请缩短",
        );
        check(
            sheet(),
            &["ok", &long],
            "watchTerms[1]: watch term 2 has 101 characters, above the limit of 100; shorten it\n第 2 个关注词有 101 个字符，超过 100 个的上限；请缩短",
        );
        // A long id is quoted short (64 characters) and named by its path.
        let id = "i".repeat(500);
        let got = outcome(validate_fact_sheet(&edited(0, |f| f.id = id.clone()), &[], &targets()));
        assert!(got.starts_with("facts[0].id: id of fact \""), "{got}");
        assert!(got.contains("has 500 characters") && got.len() < 400, "{got}");
    }

    /// Every problem a sheet can have, once each.
    fn every_problem() -> Vec<FactProblem> {
        let (at, id) = (1, "staff".to_string());
        vec![
            FactProblem::FileTooLarge { bytes: 5_000_000 },
            FactProblem::FileTooDeep,
            FactProblem::NotJson { message: "expected value at line 1 column 1".into() },
            FactProblem::Shape { path: "facts[0].cues[0]".into(), message: "expected string, got number 3".into() },
            FactProblem::TooManyFacts { count: 201 },
            FactProblem::TooManyWatchTerms { count: 201 },
            FactProblem::TooManyTerms { count: 2001 },
            FactProblem::LongWatchTerm { index: 0, chars: 101 },
            FactProblem::BlankId { at },
            FactProblem::DuplicateId { at, id: id.clone(), first: 0 },
            FactProblem::UnknownKind { at, id: id.clone(), kind: None },
            FactProblem::UnknownKind { at, id: id.clone(), kind: Some("date".into()) },
            FactProblem::UnknownTarget { at, id: id.clone(), target: "ghost".into() },
            FactProblem::NoCue { at, id: id.clone() },
            FactProblem::NoAccepted { at, id: id.clone() },
            FactProblem::MissingValue { at, id: id.clone(), kind: FactKind::Number },
            FactProblem::BadYear { at, id: id.clone(), value: "999".into() },
            FactProblem::NotFinite { at, id: id.clone(), value: "inf".into() },
            FactProblem::UnknownCurrency { at, id: id.clone(), currency: None },
            FactProblem::UnknownCurrency { at, id: id.clone(), currency: Some("GBP".into()) },
            FactProblem::BadTolerance { at, id: id.clone(), value: "-1".into() },
            FactProblem::TooMany { at, id: id.clone(), field: FactField::Cues, count: 21 },
            FactProblem::TooLong { at, id: id.clone(), field: FactField::Id, item: None, chars: 101 },
        ]
    }

    #[test]
    fn every_problem_speaks_both_languages_and_names_its_fact() {
        for p in every_problem() {
            let text = p.localized();
            assert!(text.zh.chars().any(|c| c > '\u{2e80}'), "{text:?}");
            assert!(!text.en.chars().next().unwrap().is_uppercase(), "lowercase: {}", text.en);
            for m in [&text.zh, &text.en] {
                assert!(!m.ends_with('.') && !m.ends_with('。'), "no trailing period: {m}");
                assert!(m.contains('；') || m.contains(';'), "says what to do: {m}");
            }
            assert_eq!(
                p.to_string(),
                if p.path().is_empty() { text.en.clone() } else { format!("{}: {}", p.path(), text.en) }
            );
            if p.fact_index().is_some() && !matches!(p, FactProblem::BlankId { .. }) {
                assert!(text.en.contains("\"staff\"") && text.zh.contains("\"staff\""), "{text:?}");
                assert!(p.path().starts_with("facts[1]."), "{}", p.path());
            }
        }
    }

    #[test]
    fn json_names_an_unknown_kind_or_currency_by_the_fact_id() {
        #[track_caller]
        fn check(fact: Value, expect: &[&str]) {
            let got: Vec<String> = json_fact_problems(&fact, 4).iter().map(|p| p.to_string()).collect();
            assert_eq!(got, expect);
        }
        let founded = serde_json::json!({"id": "founded", "kind": "year", "currency": "CNY"});
        check(founded, &[]);
        check(
            serde_json::json!({"id": "founded", "kind": "date"}),
            &["facts[4].kind: fact \"founded\" has the unknown kind \"date\"; use year, number, money or text"],
        );
        check(
            serde_json::json!({"id": "founded", "kind": "Year", "currency": "RMB"}),
            &[
                "facts[4].kind: fact \"founded\" has the unknown kind \"Year\"; use year, number, money or text",
                "facts[4].currency: fact \"founded\" has the unknown currency \"RMB\"; use CNY, USD or EUR",
            ],
        );
        check(
            serde_json::json!({"id": "x", "kind": null}),
            &["facts[4].kind: fact \"x\" has no kind; use year, number, money or text"],
        );
        // Not an object, or a kind that is not a string: the shape check's.
        check(serde_json::json!([1]), &[]);
        check(serde_json::json!({"id": "x", "kind": 3}), &[]);
    }

    #[track_caller]
    fn check_file(text: &str, expect: &str) {
        let got = match parse_facts_file(text, &targets()) {
            Ok(s) => format!("ok {} facts, watch terms {:?}", s.facts.len(), s.watch_terms),
            Err(p) => p.to_string(),
        };
        assert_eq!(got, expect);
    }

    #[test]
    fn a_facts_file_is_read_with_its_defaults() {
        let facts = serde_json::to_string(&sheet()).unwrap();
        check_file(&format!(r#"{{"facts": {facts}}}"#), "ok 4 facts, watch terms []");
        check_file(&format!(r#"{{"facts": {facts}, "watchTerms": null}}"#), "ok 4 facts, watch terms []");
        check_file(r#"{"watchTerms": ["跑路"]}"#, r#"ok 0 facts, watch terms ["跑路"]"#);
        check_file("\u{feff}{}", "ok 0 facts, watch terms []");
        let file = r#"{"note": "x", "facts": [{"id": "f", "targetId": "brand", "label": "l", "kind": "money",
            "cues": ["售价"], "value": 199, "currency": "USD", "tolerance": null, "extra": [1]}]}"#;
        let got = parse_facts_file(file, &targets()).unwrap();
        assert_eq!(got.facts[0].currency, Some(Currency::Usd));
        assert_eq!((got.facts[0].value, got.facts[0].tolerance), (Some(199.0), None));
    }

    #[test]
    fn a_bad_facts_file_is_refused_naming_the_fact() {
        let fact = |extra: &str| {
            format!(
                r#"{{"facts": [{{"id": "founded", "targetId": "brand", "label": "成立", "cues": ["成立"]{extra}}}]}}"#
            )
        };
        check_file(&fact(r#", "kind": "year", "value": 2015"#), "ok 1 facts, watch terms []");
        check_file(
            &fact(r#", "kind": "date", "value": 2015"#),
            r#"facts[0].kind: fact "founded" has the unknown kind "date"; use year, number, money or text"#,
        );
        check_file(
            &fact(r#", "value": 2015"#),
            r#"facts[0].kind: fact "founded" has no kind; use year, number, money or text"#,
        );
        check_file(
            &fact(r#", "kind": "money", "value": 9, "currency": "GBP""#),
            r#"facts[0].currency: fact "founded" has the unknown currency "GBP"; use CNY, USD or EUR"#,
        );
        check_file(
            &fact(r#", "kind": "year", "value": 3015"#),
            r#"facts[0].value: fact "founded" has the year 3015; give a whole number from 1000 to 2999"#,
        );
        check_file(
            &fact(r#", "kind": "number", "value": 5, "tolerance": -0.5"#),
            r#"facts[0].tolerance: fact "founded" has the tolerance -0.5; give a relative tolerance from 0 to 1 (0.1 = within 10 %)"#,
        );
        check_file(
            &fact(r#", "kind": "text""#),
            r#"facts[0].accepted: text fact "founded" has no accepted value; give at least one"#,
        );
        check_file(
            &fact(r#", "kind": "year", "value": 2015, "targetId": "ghost""#).replacen(
                r#""targetId": "brand", "#,
                "",
                1,
            ),
            r#"facts[0].targetId: fact "founded" is about "ghost", which is neither the brand nor a competitor; choose the brand or a competitor"#,
        );
        check_file(
            &fact(r#", "kind": "year", "value": "2015""#),
            r#"facts[0].value: expected number, got "2015"; a facts file is {"facts": [...], "watchTerms": [...]}"#,
        );
        check_file(
            r#"{"watchTerms": "跑路"}"#,
            r#"watchTerms: expected array, got "跑路"; a facts file is {"facts": [...], "watchTerms": [...]}"#,
        );
        check_file(
            r#"{"facts": [{"id": "f", "kind": "year"}]}"#,
            r#"facts[0].targetId: required field is missing or null; a facts file is {"facts": [...], "watchTerms": [...]}"#,
        );
    }

    #[test]
    fn a_facts_file_is_bounded_and_json() {
        check_file("[]", r#"expected an object, got array; a facts file is {"facts": [...], "watchTerms": [...]}"#);
        check_file(
            "{",
            "the facts file is not valid json (EOF while parsing an object at line 1 column 1); fix it and try again",
        );
        check_file(
            "",
            "the facts file is not valid json (EOF while parsing a value at line 1 column 0); fix it and try again",
        );
        let deep = format!("{{\"facts\": {}{}}}", "[".repeat(100), "]".repeat(100));
        check_file(
            &deep,
            r#"the facts file nests deeper than 64 levels; write it as {"facts": [...], "watchTerms": [...]}"#,
        );
        let big = format!("{{\"pad\": \"{}\"}}", " ".repeat(MAX_FACTS_FILE_BYTES));
        check_file(&big, "the facts file is 4194315 bytes, above the limit of 4194304; shorten the fact sheet");
    }
}
