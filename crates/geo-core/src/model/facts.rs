//! What the answers say (`shared/spec/data-model.md`, "What the answers say: facts, claims
//! and risk flags"): a project's fact sheet ([`Fact`], watch terms), frozen into each run as
//! its [`FactSnapshot`], and what the analysis derives from an answer with it: a [`Claim`]
//! per sentence on a fact's topic and a [`RiskFlag`] per sentence that holds a risk cue.
//!
//! The enums are read through a `String` (`try_from`), as [`super::ReasoningEffort`] is, so
//! the web app's module holds no enum visitor of their own (`docs/adr/0014-site-size.md`).

use serde::{Deserialize, Serialize, Serializer};

/// The kind of value a fact holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", try_from = "String")]
pub enum FactKind {
    /// A year (1000–2999): founded, launched.
    Year,
    /// A number, with a relative tolerance: employees, customers.
    Number,
    /// An amount of money in one currency, with a relative tolerance: a price.
    Money,
    /// A text with accepted and known-wrong values: headquarters, founder, flagship product.
    Text,
}

wire_names!(FactKind "fact kind" { Year => "year", Number => "number", Money => "money", Text => "text" });

/// The currency of a `money` fact.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "String")]
pub enum Currency {
    /// Renminbi: `¥`, `￥`, `元`, `块`, `人民币`, `RMB`, `CNY`.
    #[serde(rename = "CNY")]
    Cny,
    /// US dollars: `$`, `US$`, `美元`, `USD`, `dollars`.
    #[serde(rename = "USD")]
    Usd,
    /// Euros: `€`, `欧元`, `EUR`, `euros`.
    #[serde(rename = "EUR")]
    Eur,
}

wire_names!(Currency "currency" { Cny => "CNY", Usd => "USD", Eur => "EUR" });

/// Writes a whole number as an integer (`2015`, not `2015.0`), any other as it is.
fn integral<S: Serializer>(value: &Option<f64>, s: S) -> Result<S::Ok, S::Error> {
    match value {
        Some(v) if v.fract() == 0.0 && v.abs() < 9.0e15 => s.serialize_i64(*v as i64),
        Some(v) => s.serialize_f64(*v),
        None => s.serialize_none(),
    }
}

/// One fact about a target that answers can be checked against (data-model.md, "Fact").
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Fact {
    /// Stable id, unique within the project.
    pub id: String,
    /// The brand's or a competitor's id.
    pub target_id: String,
    /// Free text, e.g. 「成立年份」.
    pub label: String,
    /// What kind of value it holds.
    pub kind: FactKind,
    /// The words that put a sentence on this fact's topic (at least one), matched like aliases.
    #[serde(default)]
    pub cues: Vec<String>,
    /// `year`: the year; `number` and `money`: the value.
    #[serde(default, skip_serializing_if = "Option::is_none", serialize_with = "integral")]
    pub value: Option<f64>,
    /// `money`: its currency.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub currency: Option<Currency>,
    /// `number` and `money`: how far a value may be from [`Fact::value`], relative (0.1 = within
    /// 10 %); absent = 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tolerance: Option<f64>,
    /// `text`: the values that are right (at least one).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub accepted: Vec<String>,
    /// `text`: values known to be wrong.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rejected: Vec<String>,
}

/// A project's fact sheet as frozen into a run when it starts, like its `aliasSnapshot`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FactSnapshot {
    /// The facts, in the project's order.
    #[serde(default)]
    pub facts: Vec<Fact>,
    /// Terms to flag wherever a target is discussed (a past incident, a rival's slogan).
    #[serde(default)]
    pub watch_terms: Vec<String>,
}

/// What a sentence says of a fact, by the contract's rule 4.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", try_from = "String")]
pub enum Verdict {
    /// A value matches the fact (a `text` fact: an accepted value occurs, no rejected one).
    Consistent,
    /// Values were found and none matches (a `text` fact: a rejected value occurs).
    Contradicts,
    /// On the fact's topic, but no value to compare.
    Unverified,
}

wire_names!(Verdict "verdict" { Consistent => "consistent", Contradicts => "contradicts", Unverified => "unverified" });

/// A sentence of an answer on a fact's topic, about the fact's target, with its verdict.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Claim {
    /// The fact it is about.
    pub fact_id: String,
    /// The fact's target.
    pub target_id: String,
    /// Consistent, contradicts or unverified.
    pub verdict: Verdict,
    /// The sentence as it stands in `answer` (citation markers kept), trimmed, at most 300
    /// characters (cut with `…`).
    pub sentence: String,
    /// Offset of the sentence in `answer`, in characters (Unicode code points).
    pub start: u32,
    /// End offset of the sentence in `answer`, in characters.
    pub end: u32,
    /// The values found, as written, in order.
    #[serde(default)]
    pub values: Vec<String>,
    /// The probe's `SearchSource` ids behind the sentence, in `sources` order.
    #[serde(default)]
    pub source_ids: Vec<String>,
}

/// The kind of a risk cue.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", try_from = "String")]
pub enum RiskKind {
    /// A built-in negative cue (投诉, scam, …).
    Negative,
    /// A built-in caution cue (缺点, expensive, …).
    Caution,
    /// One of the run's watch terms.
    Watch,
}

wire_names!(RiskKind "risk kind" { Negative => "negative", Caution => "caution", Watch => "watch" });

/// A sentence about a target that holds a risk cue: a sentence to read, not a verdict.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RiskFlag {
    /// The target the sentence is about.
    pub target_id: String,
    /// Negative, caution or watch.
    pub kind: RiskKind,
    /// The cue as listed.
    pub cue: String,
    /// The sentence (as for [`Claim::sentence`]).
    pub sentence: String,
    /// Offset of the sentence in `answer`, in characters.
    pub start: u32,
    /// End offset of the sentence in `answer`, in characters.
    pub end: u32,
}
