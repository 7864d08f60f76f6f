//! Pure form logic of the projects page's fact editor: the editable text of a fact sheet
//! (each fact's fields as typed, the watch terms one a line), read into the model's
//! [`Fact`]s, with every problem tied to the field it is shown beside. No browser here, so
//! it is tested natively.
//!
//! Two kinds of problem: what the text cannot be read as (a value that is not a number: the
//! draft's own, since geo-core only ever sees typed values), and what geo-core's rules of a
//! fact sheet refuse (`geo_core::project::validate_fact_sheet`: no cue, a year out of range,
//! a target that is not the project's, the limits …), asked per fact so that every fact's
//! first problem shows at once, then for the whole sheet.

use geo_core::model::{Currency, Fact, FactKind, FactSnapshot, Localized, Project, Target};

/// The editable text of one fact. Every kind's fields are kept while the kind changes, so
/// switching back loses nothing; only the chosen kind's fields are read.
#[derive(Debug, Clone, PartialEq)]
pub struct FactDraft {
    /// Its id (a new fact gets one when it is added).
    pub id: String,
    /// The brand's or a competitor's id.
    pub target_id: String,
    /// Free text.
    pub label: String,
    /// Its kind.
    pub kind: FactKind,
    /// Cues, separated by commas (`,` `，` `、`) or lines.
    pub cues: String,
    /// `year`, `number`, `money`: the value as typed.
    pub value: String,
    /// `money`: the currency.
    pub currency: Currency,
    /// `number`, `money`: the relative tolerance as typed (empty: 0).
    pub tolerance: String,
    /// `text`: accepted values, separated as cues are.
    pub accepted: String,
    /// `text`: rejected values, separated as cues are.
    pub rejected: String,
}

/// The editable text of a project's fact sheet.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SheetDraft {
    /// The facts, in the project's order.
    pub facts: Vec<FactDraft>,
    /// Watch terms, one a line.
    pub watch_terms: String,
}

/// Which field a problem is shown beside.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    /// The fact as a whole (its id, which is not typed).
    Fact,
    /// `label`.
    Label,
    /// `targetId`.
    Target,
    /// `kind`.
    Kind,
    /// `cues`.
    Cues,
    /// `value`.
    Value,
    /// `currency`.
    Currency,
    /// `tolerance`.
    Tolerance,
    /// `accepted`.
    Accepted,
    /// `rejected`.
    Rejected,
    /// The watch terms.
    WatchTerms,
    /// The sheet as a whole (a limit on all facts together).
    Sheet,
}

impl Field {
    /// The field's name in the contract's JSON (`data-field` of a problem; empty for the
    /// whole fact or sheet).
    pub fn as_str(self) -> &'static str {
        match self {
            Field::Fact | Field::Sheet => "",
            Field::Label => "label",
            Field::Target => "targetId",
            Field::Kind => "kind",
            Field::Cues => "cues",
            Field::Value => "value",
            Field::Currency => "currency",
            Field::Tolerance => "tolerance",
            Field::Accepted => "accepted",
            Field::Rejected => "rejected",
            Field::WatchTerms => "watchTerms",
        }
    }

    /// The field of a JSON name (the part after `facts[n].`).
    fn of_json(name: &str) -> Field {
        match name {
            "label" => Field::Label,
            "targetId" => Field::Target,
            "kind" => Field::Kind,
            "cues" => Field::Cues,
            "value" => Field::Value,
            "currency" => Field::Currency,
            "tolerance" => Field::Tolerance,
            "accepted" => Field::Accepted,
            "rejected" => Field::Rejected,
            _ => Field::Fact,
        }
    }
}

/// A problem of the draft: which fact (its place; `None` for the watch terms and the whole
/// sheet), which field, and the message in both languages.
#[derive(Debug, Clone, PartialEq)]
pub struct FieldProblem {
    /// The fact's place in the draft.
    pub fact: Option<usize>,
    /// The field.
    pub field: Field,
    /// What is wrong and what to do.
    pub message: Localized,
}

/// The terms of a cue or value list: split at commas (`,` `，` `、`) and line breaks,
/// trimmed, blanks and repeats dropped, in the order typed.
pub fn split_terms(text: &str) -> Vec<String> {
    unique(text.split([',', '，', '、', '\n']))
}

/// The watch terms: one a line, trimmed, blanks and repeats dropped.
pub fn split_lines(text: &str) -> Vec<String> {
    unique(text.lines())
}

fn unique<'a>(parts: impl Iterator<Item = &'a str>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for part in parts.map(str::trim).filter(|p| !p.is_empty()) {
        if !out.iter().any(|o| o == part) {
            out.push(part.to_string());
        }
    }
    out
}

/// A number as typed: digits with an optional `.` decimal part; `,`, spaces and `_` between
/// digits are group separators; full-width digits read as digits. `None` when it is not one.
fn parse_number(text: &str) -> Option<f64> {
    let folded: String = text
        .trim()
        .chars()
        .map(|c| match c {
            '０'..='９' => char::from_u32(c as u32 - '０' as u32 + '0' as u32).unwrap_or(c),
            '．' => '.',
            other => other,
        })
        .filter(|c| !matches!(c, ',' | '，' | '_' | ' '))
        .collect();
    let ok = !folded.is_empty()
        && folded.chars().all(|c| c.is_ascii_digit() || c == '.' || c == '-')
        && folded.chars().any(|c| c.is_ascii_digit());
    ok.then(|| folded.parse::<f64>().ok()).flatten().filter(|v| v.is_finite())
}

/// A number written the way [`parse_number`] reads it back (`2015`, not `2015.0`).
fn number_text(value: f64) -> String {
    if value.fract() == 0.0 && value.abs() < 9.0e15 {
        format!("{}", value as i64)
    } else {
        value.to_string()
    }
}

impl FactDraft {
    /// A new fact about `target_id` with id `id`: a year, nothing typed yet.
    pub fn new(id: String, target_id: String) -> Self {
        FactDraft {
            id,
            target_id,
            label: String::new(),
            kind: FactKind::Year,
            cues: String::new(),
            value: String::new(),
            currency: Currency::Cny,
            tolerance: String::new(),
            accepted: String::new(),
            rejected: String::new(),
        }
    }

    /// The draft of a stored fact.
    pub fn from_fact(f: &Fact) -> Self {
        FactDraft {
            id: f.id.clone(),
            target_id: f.target_id.clone(),
            label: f.label.clone(),
            kind: f.kind,
            cues: f.cues.join("\n"),
            value: f.value.map(number_text).unwrap_or_default(),
            currency: f.currency.unwrap_or(Currency::Cny),
            tolerance: f.tolerance.map(number_text).unwrap_or_default(),
            accepted: f.accepted.join("\n"),
            rejected: f.rejected.join("\n"),
        }
    }

    /// The fact, or the fields its text cannot be read from (the fact at place `at`).
    fn to_fact(&self, at: usize) -> Result<Fact, Vec<FieldProblem>> {
        let mut problems = Vec::new();
        let mut number = |field: Field, text: &str, what: Localized| -> Option<f64> {
            if text.trim().is_empty() {
                return None;
            }
            let parsed = parse_number(text);
            if parsed.is_none() {
                problems.push(FieldProblem { fact: Some(at), field, message: what });
            }
            parsed
        };
        let (value, tolerance) = match self.kind {
            FactKind::Year => (number(Field::Value, &self.value, not_a_year(&self.value)), None),
            FactKind::Number | FactKind::Money => (
                number(Field::Value, &self.value, not_a_number(&self.value)),
                number(Field::Tolerance, &self.tolerance, not_a_tolerance(&self.tolerance)),
            ),
            FactKind::Text => (None, None),
        };
        if self.kind == FactKind::Year && value.is_some_and(|v| v.fract() != 0.0) {
            problems.push(FieldProblem { fact: Some(at), field: Field::Value, message: not_a_year(&self.value) });
        }
        if !problems.is_empty() {
            return Err(problems);
        }
        let text = self.kind == FactKind::Text;
        Ok(Fact {
            id: self.id.clone(),
            target_id: self.target_id.clone(),
            label: self.label.trim().to_string(),
            kind: self.kind,
            cues: split_terms(&self.cues),
            value,
            currency: (self.kind == FactKind::Money).then_some(self.currency),
            tolerance,
            accepted: if text { split_terms(&self.accepted) } else { Vec::new() },
            rejected: if text { split_terms(&self.rejected) } else { Vec::new() },
        })
    }
}

fn not_a_year(text: &str) -> Localized {
    Localized::new(
        format!("「{}」不是年份：请填写四位数的年份，如 2015", text.trim()),
        format!("{:?} is not a year: enter a year of four digits, such as 2015", text.trim()),
    )
}

fn not_a_number(text: &str) -> Localized {
    Localized::new(
        format!("「{}」不是数字：请只填写数字，如 1200 或 3.5（单位写在名称里）", text.trim()),
        format!(
            "{:?} is not a number: enter digits only, such as 1200 or 3.5 (put the unit in the label)",
            text.trim()
        ),
    )
}

fn not_a_tolerance(text: &str) -> Localized {
    Localized::new(
        format!("「{}」不是数字：容差是相对值，如 0.1 表示 ±10%", text.trim()),
        format!("{:?} is not a number: the tolerance is relative, such as 0.1 for ±10 %", text.trim()),
    )
}

/// Where a problem of geo-core's fact-sheet rules is shown: its JSON path (`facts[2].value`,
/// `facts[0].cues[1]`, `watchTerms[0]`) as a fact's place and field; `offset` is added to a
/// fact's place (a fact checked alone is `facts[0]`).
fn placed(path: &str, offset: usize, message: Localized) -> FieldProblem {
    if let Some(rest) = path.strip_prefix("facts[") {
        if let Some((index, tail)) = rest.split_once(']') {
            if let Ok(i) = index.parse::<usize>() {
                let name = tail.trim_start_matches('.');
                let name = name.split('[').next().unwrap_or(name);
                return FieldProblem { fact: Some(i + offset), field: Field::of_json(name), message };
            }
        }
    }
    let field = if path.starts_with("watchTerms") { Field::WatchTerms } else { Field::Sheet };
    FieldProblem { fact: None, field, message }
}

impl SheetDraft {
    /// The draft of a project's sheet.
    pub fn from_project(p: &Project) -> Self {
        SheetDraft { facts: p.facts.iter().map(FactDraft::from_fact).collect(), watch_terms: p.watch_terms.join("\n") }
    }

    /// The sheet as typed, without geo-core's rules: `None` when a value cannot be read.
    pub fn read(&self) -> Option<FactSnapshot> {
        let facts: Result<Vec<Fact>, _> = self.facts.iter().enumerate().map(|(i, f)| f.to_fact(i)).collect();
        Some(FactSnapshot { facts: facts.ok()?, watch_terms: split_lines(&self.watch_terms) })
    }

    /// The sheet to store, or every problem found: what cannot be read, then each fact's
    /// first problem by geo-core's rules against `targets` (the project's brand and
    /// competitors), then the whole sheet's (ids, limits) when no fact has one.
    pub fn check(&self, targets: &[Target]) -> Result<FactSnapshot, Vec<FieldProblem>> {
        let mut problems = Vec::new();
        let mut facts = Vec::new();
        for (i, f) in self.facts.iter().enumerate() {
            match f.to_fact(i) {
                Ok(fact) => {
                    let alone = std::slice::from_ref(&fact);
                    if let Err(p) = geo_core::project::validate_fact_sheet(alone, &[], targets) {
                        problems.push(placed(&p.path(), i, p.localized()));
                    }
                    facts.push(fact);
                }
                Err(mut p) => problems.append(&mut p),
            }
        }
        let watch_terms = split_lines(&self.watch_terms);
        if problems.is_empty() {
            if let Err(p) = geo_core::project::validate_fact_sheet(&facts, &watch_terms, targets) {
                problems.push(placed(&p.path(), 0, p.localized()));
            }
        }
        if problems.is_empty() {
            Ok(FactSnapshot { facts, watch_terms })
        } else {
            Err(problems)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use geo_core::model::{Lang, TargetKind};

    fn targets() -> Vec<Target> {
        let t = |id: &str, kind| Target {
            id: id.into(),
            kind,
            label: id.into(),
            aliases: vec![id.into()],
            domains: vec![],
        };
        vec![t("brand", TargetKind::Brand), t("rival", TargetKind::Competitor)]
    }

    fn fact(kind: FactKind) -> FactDraft {
        FactDraft {
            label: "成立年份".into(),
            cues: "成立, 创立\nfounded".into(),
            kind,
            ..FactDraft::new("f1".into(), "brand".into())
        }
    }

    #[track_caller]
    fn check(draft: &SheetDraft, expect: &[(Option<usize>, Field)]) {
        let got: Vec<(Option<usize>, Field)> = match draft.check(&targets()) {
            Ok(_) => Vec::new(),
            Err(problems) => problems.iter().map(|p| (p.fact, p.field)).collect(),
        };
        assert_eq!(got, expect, "{draft:?}");
    }

    #[test]
    fn terms_split_at_commas_and_lines() {
        assert_eq!(
            split_terms("成立，创立、 founded,\n\n成立\nestablished "),
            ["成立", "创立", "founded", "established"]
        );
        assert_eq!(split_lines("限流, 宕机\n\n 2024 年数据泄露 \n限流, 宕机"), ["限流, 宕机", "2024 年数据泄露"]);
    }

    #[test]
    fn numbers_read_as_typed() {
        for (text, want) in [
            ("2015", Some(2015.0)),
            (" 1,299.5 ", Some(1299.5)),
            ("１２００", Some(1200.0)),
            ("10 000", Some(10000.0)),
            ("0.1", Some(0.1)),
            ("-3", Some(-3.0)),
            ("12万", None),
            ("abc", None),
            ("", None),
            (".", None),
        ] {
            assert_eq!(parse_number(text), want, "{text:?}");
        }
        assert_eq!(number_text(2015.0), "2015");
        assert_eq!(number_text(0.15), "0.15");
    }

    #[test]
    fn a_draft_reads_into_the_fact_of_its_kind_and_back() {
        let mut money = fact(FactKind::Money);
        money.label = " 基础版年费 ".into();
        money.cues = "年费、价格".into();
        money.value = "19,800".into();
        money.currency = Currency::Usd;
        money.tolerance = "0.05".into();
        money.accepted = "kept while the kind is money".into();
        let draft = SheetDraft { facts: vec![money], watch_terms: "限流\n\n数据泄露\n".into() };
        let sheet = draft.check(&targets()).unwrap();
        let f = &sheet.facts[0];
        assert_eq!(
            (f.label.as_str(), f.kind, f.value, f.currency, f.tolerance),
            ("基础版年费", FactKind::Money, Some(19800.0), Some(Currency::Usd), Some(0.05))
        );
        assert_eq!(f.cues, ["年费", "价格"]);
        assert!(f.accepted.is_empty(), "only the chosen kind's fields are read");
        assert_eq!(sheet.watch_terms, ["限流", "数据泄露"]);
        // A stored sheet comes back as the same draft text and the same facts.
        let project = Project {
            facts: sheet.facts.clone(),
            watch_terms: sheet.watch_terms.clone(),
            ..crate::repo::test_support::project("p")
        };
        let again = SheetDraft::from_project(&project);
        assert_eq!(again.facts[0].value, "19800");
        assert_eq!(again.check(&targets()).unwrap(), sheet);
        assert_eq!(again.read(), Some(sheet));

        let mut text = fact(FactKind::Text);
        text.accepted = "杭州\n浙江杭州".into();
        text.rejected = "北京".into();
        text.value = "ignored for text".into();
        let f = &SheetDraft { facts: vec![text], watch_terms: String::new() }.check(&targets()).unwrap().facts[0];
        assert_eq!((f.accepted.len(), f.rejected.len(), f.value), (2, 1, None));
    }

    #[test]
    fn problems_are_placed_beside_their_fields() {
        let mut year = fact(FactKind::Year);
        year.value = "二〇一五".into();
        let mut number = fact(FactKind::Number);
        number.id = "f2".into();
        number.value = "3.5x".into();
        number.tolerance = "ten".into();
        check(
            &SheetDraft { facts: vec![year.clone(), number], watch_terms: String::new() },
            &[(Some(0), Field::Value), (Some(1), Field::Value), (Some(1), Field::Tolerance)],
        );
        year.value = "2015.5".into();
        check(&SheetDraft { facts: vec![year.clone()], watch_terms: String::new() }, &[(Some(0), Field::Value)]);
        // geo-core's rules, per fact: no cue, a year out of range, a text fact without an
        // accepted value, a target that is not the project's.
        let mut no_cue = fact(FactKind::Year);
        no_cue.value = "2015".into();
        no_cue.cues = " , \n".into();
        let mut old = fact(FactKind::Year);
        old.id = "f2".into();
        old.value = "999".into();
        let mut text = fact(FactKind::Text);
        text.id = "f3".into();
        let mut elsewhere = fact(FactKind::Year);
        elsewhere.id = "f4".into();
        elsewhere.value = "2015".into();
        elsewhere.target_id = "gone".into();
        let draft = SheetDraft { facts: vec![no_cue, old, text, elsewhere], watch_terms: String::new() };
        check(
            &draft,
            &[(Some(0), Field::Cues), (Some(1), Field::Value), (Some(2), Field::Accepted), (Some(3), Field::Target)],
        );
        let problems = draft.check(&targets()).unwrap_err();
        assert!(problems.iter().all(|p| !p.message.get(Lang::Zh).is_empty() && !p.message.get(Lang::En).is_empty()));
        // A year without a value.
        let mut empty = fact(FactKind::Year);
        empty.value = "  ".into();
        check(&SheetDraft { facts: vec![empty], watch_terms: String::new() }, &[(Some(0), Field::Value)]);
        // The whole sheet's rules once every fact passes: a repeated id.
        let mut a = fact(FactKind::Year);
        a.value = "2015".into();
        check(&SheetDraft { facts: vec![a.clone(), a], watch_terms: String::new() }, &[(Some(1), Field::Fact)]);
    }

    #[test]
    fn geo_core_paths_name_a_fact_and_a_field() {
        let m = || Localized::new("x", "x");
        let at = |path: &str, offset| {
            let p = placed(path, offset, m());
            (p.fact, p.field)
        };
        assert_eq!(at("facts[0].value", 3), (Some(3), Field::Value));
        assert_eq!(at("facts[12].cues[4]", 0), (Some(12), Field::Cues));
        assert_eq!(at("facts[1].id", 0), (Some(1), Field::Fact));
        assert_eq!(at("watchTerms[2]", 0), (None, Field::WatchTerms));
        assert_eq!(at("facts", 0), (None, Field::Sheet));
        assert_eq!(at("", 0), (None, Field::Sheet));
    }
}
