//! What the answers say (data-model.md, "What the answers say: facts, claims and risk
//! flags"): the sentences of a successful probe's answer about one target, checked against
//! the run's fact sheet ([`crate::model::Claim`]) and against the risk cues
//! ([`crate::model::RiskFlag`]), each finding with the sentence behind it.
//!
//! The six rules, one step each:
//! 1. sentences ([`sentences`]);
//! 2. the subject of a sentence: the one target whose alias it holds, else the subject of the
//!    sentence before it when no blank line lies between them; a sentence that names two
//!    targets has none and passes none on;
//! 3. cues matched like aliases (`PreparedAlias`: NFKC, lower-case, ASCII word boundaries);
//! 4. a claim per fact of the subject whose cue the sentence holds, with the values of its
//!    kind ([`values`]) and a verdict;
//! 5. the sources behind a claim's sentence: those of the citations its markers name (by
//!    the engine's marker rule) or whose cited text holds it or is held by it;
//! 6. a risk flag per cue of [`cues`] and of the watch terms that the sentence holds.
//!
//! No language model judges anything, and the rules do not read negation: a flag is a
//! sentence to read, not a verdict (`docs/metrics.md`, "What the answers say").
//! Linear in the answer's length (times the number of cues and aliases), and bounded: at most
//! [`MAX_CLAIMS_PER_PROBE`] claims and [`MAX_RISK_FLAGS_PER_PROBE`] flags per probe, each
//! sentence cut to [`MAX_SENTENCE_CHARS`] characters, each claim keeping at most
//! [`MAX_VALUES_PER_CLAIM`] values.

pub mod cues;
mod scan;
pub mod sentences;
pub mod values;

use rustc_hash::FxHashSet;

use super::alias::PreparedAlias;
use super::markers::MarkerRule;
use super::urls::normalize_url;
use crate::model::{
    Claim, EngineId, Fact, FactKind, FactSnapshot, RawCitation, RiskFlag, RiskKind, SearchSource, Target, Verdict,
};
use crate::text::normalize_for_match;
use scan::Patterns;
use values::Money;

/// The longest sentence a claim or flag keeps, in characters: longer ones keep their first
/// 299 characters and `…`.
pub const MAX_SENTENCE_CHARS: usize = 300;
/// At most this many claims per probe (in order); the rest are dropped.
pub const MAX_CLAIMS_PER_PROBE: usize = 500;
/// At most this many risk flags per probe (in order); the rest are dropped.
pub const MAX_RISK_FLAGS_PER_PROBE: usize = 500;
/// At most this many values are kept per claim, the first ones in order; the verdict reads
/// every value (a sentence of 100,000 numbers keeps 20 of them).
pub const MAX_VALUES_PER_CLAIM: usize = 20;
/// A `citedText` shorter than this (white space collapsed) is not compared with sentences.
pub const MIN_CITED_TEXT_CHARS: usize = 8;
/// The relative slack of a numeric match: |x − value| ≤ (tolerance + this) × |value|.
pub const MATCH_SLACK: f64 = 1e-9;

/// One fact with its cues (pattern ids) and text values prepared.
#[derive(Debug, Clone)]
struct PreparedFact<'a> {
    fact: &'a Fact,
    cues: Vec<u32>,
    accepted: Vec<PreparedAlias>,
    rejected: Vec<PreparedAlias>,
}

/// A risk cue: its kind, the cue as listed, its pattern id.
#[derive(Debug, Clone)]
struct RiskCue<'a> {
    kind: RiskKind,
    cue: &'a str,
    pattern: u32,
}

/// A run's alias snapshot and fact snapshot (or none) prepared once for all its probes, with
/// the built-in risk cues: every alias and cue is one pattern of `scan::Patterns`, which finds
/// them all in one pass over a sentence.
#[derive(Debug, Clone)]
pub struct FactRules<'a> {
    /// Per target of the alias snapshot (in its order): its id and its aliases' patterns.
    targets: Vec<(&'a str, Vec<u32>)>,
    facts: Vec<PreparedFact<'a>>,
    risk: Vec<RiskCue<'a>>,
    patterns: Patterns,
    markers: MarkerRule,
}

fn prepare(list: &[String]) -> Vec<PreparedAlias> {
    list.iter().enumerate().filter_map(|(i, s)| PreparedAlias::new(i, s)).collect()
}

/// Whom a sentence names (rule 2).
enum Named<'a> {
    /// No target.
    Nobody,
    /// Exactly one target: its id.
    One(&'a str),
    /// Two or more.
    Several,
}

impl<'a> FactRules<'a> {
    /// The rules of a run of `engine` with the alias snapshot `targets` and `snapshot` (its
    /// `factSnapshot`; `None` for a run without one: only the built-in risk cues apply).
    pub fn new(targets: &'a [Target], snapshot: Option<&'a FactSnapshot>, engine: EngineId) -> Self {
        let mut patterns = Patterns::new();
        let targets = targets
            .iter()
            .map(|t| (t.id.as_str(), t.aliases.iter().filter_map(|a| patterns.add(a)).collect()))
            .collect();
        let facts = snapshot
            .map(|s| {
                s.facts
                    .iter()
                    .map(|fact| PreparedFact {
                        fact,
                        cues: fact.cues.iter().filter_map(|c| patterns.add(c)).collect(),
                        accepted: prepare(&fact.accepted),
                        rejected: prepare(&fact.rejected),
                    })
                    .collect()
            })
            .unwrap_or_default();
        let mut risk: Vec<RiskCue<'a>> = Vec::new();
        let mut seen: FxHashSet<u32> = FxHashSet::default();
        let built_in = cues::NEGATIVE
            .iter()
            .map(|c| (RiskKind::Negative, *c))
            .chain(cues::CAUTION.iter().map(|c| (RiskKind::Caution, *c)));
        let watch = snapshot.into_iter().flat_map(|s| &s.watch_terms).map(|c| (RiskKind::Watch, c.as_str()));
        for (kind, cue) in built_in.chain(watch) {
            // A watch term equal to a built-in cue (the same pattern) flags once, as its
            // built-in kind.
            if let Some(pattern) = patterns.add(cue).filter(|p| seen.insert(*p)) {
                risk.push(RiskCue { kind, cue, pattern });
            }
        }
        FactRules { targets, facts, risk, patterns, markers: MarkerRule::of(engine) }
    }

    /// Whom a sentence whose patterns are `found` names.
    fn named(&self, found: &[bool]) -> Named<'a> {
        let mut named = Named::Nobody;
        for (id, aliases) in &self.targets {
            if !aliases.iter().any(|p| found[*p as usize]) {
                continue;
            }
            named = match named {
                Named::Nobody => Named::One(id),
                Named::One(first) if first == *id => Named::One(first),
                _ => return Named::Several,
            };
        }
        named
    }
}

/// What one successful probe says ([`derive()`]'s result).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Findings {
    /// Ordered by `start`, then fact-sheet order.
    pub claims: Vec<Claim>,
    /// Ordered by `start`, then kind, then list order.
    pub risk_flags: Vec<RiskFlag>,
}

/// The sentence as kept: its first 299 characters and `…` when it is longer than
/// [`MAX_SENTENCE_CHARS`].
fn kept_sentence(sentence: &str) -> String {
    match sentence.char_indices().nth(MAX_SENTENCE_CHARS) {
        None => sentence.to_string(),
        Some(_) => {
            let cut = sentence.char_indices().nth(MAX_SENTENCE_CHARS - 1).map_or(sentence.len(), |(i, _)| i);
            format!("{}…", &sentence[..cut])
        }
    }
}

/// Rules 1–6 over `answer` (a successful probe's cleaned answer) with its `sources` and
/// `citations`, and the run's `rules` (its alias snapshot and fact snapshot).
pub fn derive(
    answer: &str,
    rules: &FactRules<'_>,
    sources: &[SearchSource],
    citations: Option<&[RawCitation]>,
) -> Findings {
    let mut out = Findings::default();
    let behind = SourcesBehind::new(sources, citations, rules.markers);
    let mut subject: Option<&str> = None;
    let mut found = vec![false; rules.patterns.len()];
    let mut norm = String::new();
    // Character offsets, counted once along the answer.
    let (mut chars_done, mut bytes_done) = (0usize, 0usize);
    let mut char_at = |byte: usize| {
        chars_done += answer[bytes_done..byte].chars().count();
        bytes_done = byte;
        chars_done as u32
    };
    for s in sentences::split_sentences(answer) {
        crate::text::normalize_for_match_into(&s.text, &mut norm);
        found.fill(false);
        rules.patterns.scan(&norm, &mut found);
        subject = match rules.named(&found) {
            Named::One(id) => Some(id),
            Named::Nobody if !s.after_blank_line => subject,
            _ => None,
        };
        let (start, end) = (char_at(s.start), char_at(s.end));
        let Some(target) = subject else { continue };
        let raw = &answer[s.start..s.end];
        let mut kept: Option<String> = None;
        let mut numbers: Option<values::SentenceNumbers<'_>> = None;
        for f in rules.facts.iter().filter(|f| f.fact.target_id == target) {
            if out.claims.len() >= MAX_CLAIMS_PER_PROBE || !f.cues.iter().any(|p| found[*p as usize]) {
                continue;
            }
            let numbers = numbers.get_or_insert_with(|| values::sentence_numbers(&s.text, &norm));
            let (values, verdict) = check(f, &norm, numbers);
            out.claims.push(Claim {
                fact_id: f.fact.id.clone(),
                target_id: target.to_string(),
                verdict,
                sentence: kept.get_or_insert_with(|| kept_sentence(raw)).clone(),
                start,
                end,
                values,
                source_ids: behind.of(raw, &s.text),
            });
        }
        for r in rules.risk.iter() {
            if out.risk_flags.len() < MAX_RISK_FLAGS_PER_PROBE && found[r.pattern as usize] {
                out.risk_flags.push(RiskFlag {
                    target_id: target.to_string(),
                    kind: r.kind,
                    cue: r.cue.to_string(),
                    sentence: kept.get_or_insert_with(|| kept_sentence(raw)).clone(),
                    start,
                    end,
                });
            }
        }
    }
    out
}

/// Whether `x` matches the fact's `value` within its tolerance (rule 4).
fn matches_value(fact: &Fact, x: f64) -> bool {
    let Some(v) = fact.value else { return false };
    match fact.kind {
        FactKind::Year => x == v,
        _ => (x - v).abs() <= (fact.tolerance.unwrap_or(0.0) + MATCH_SLACK) * v.abs(),
    }
}

/// The ranges `ranges` of `norm` (the matching normal form of `text`) as written in `text`:
/// from the character the range's first folded character comes from to the last one's
/// (`２０１５` stays `２０１５`, `5000 RMB` stays upper case). Values are read in the normal form
/// and reported as the answer writes them.
fn as_written(text: &str, norm: &str, ranges: &[(usize, usize)]) -> Vec<String> {
    if ranges.is_empty() {
        return Vec::new();
    }
    if text.is_ascii() {
        // ASCII folds by lower-casing alone, byte for byte.
        return ranges.iter().map(|&(s, e)| text[s..e].to_string()).collect();
    }
    // Each character folded on its own, with (its first byte in the fold, its bytes in `text`).
    let mut spans: Vec<(usize, usize, usize)> = Vec::with_capacity(text.len());
    let mut folded = String::with_capacity(norm.len());
    let mut buf = [0u8; 4];
    for (i, c) in text.char_indices() {
        spans.push((folded.len(), i, i + c.len_utf8()));
        match crate::text::fold::fold_safe(c) {
            Some(f) => folded.push(f),
            None => folded.push_str(&normalize_for_match(c.encode_utf8(&mut buf))),
        }
    }
    let written = |s: usize, e: usize| {
        let first = spans[..spans.partition_point(|x| x.0 <= s)].last()?;
        let last = spans[..spans.partition_point(|x| x.0 < e)].last()?;
        text.get(first.1..last.2).map(str::to_string)
    };
    // Characters that compose with their neighbours fold differently together: then the
    // normal form is kept.
    let same = folded == norm;
    ranges.iter().map(|&(s, e)| written(s, e).filter(|_| same).unwrap_or_else(|| norm[s..e].to_string())).collect()
}

/// Rule 4 for one fact and one sentence (`norm`, its text in the matching normal form, and its
/// `numbers`): the values found, as written, and the verdict.
fn check(f: &PreparedFact<'_>, norm: &str, numbers: &values::SentenceNumbers<'_>) -> (Vec<String>, Verdict) {
    let fact = f.fact;
    if fact.kind == FactKind::Text {
        let mut found: Vec<(usize, usize, bool, &str)> = Vec::new();
        for (rank, (aliases, listed, wrong)) in
            [(&f.accepted, &fact.accepted, false), (&f.rejected, &fact.rejected, true)].into_iter().enumerate()
        {
            for a in aliases {
                for (start, _) in a.hits(norm) {
                    found.push((start, rank * 1_000_000 + a.index, wrong, listed[a.index].as_str()));
                }
            }
        }
        crate::sort::sort_by_key(&mut found, |(start, order, _, _)| (*start, *order));
        let verdict = if found.iter().any(|x| x.2) {
            Verdict::Contradicts
        } else if !found.is_empty() {
            Verdict::Consistent
        } else {
            Verdict::Unverified
        };
        return (found.into_iter().take(MAX_VALUES_PER_CLAIM).map(|x| x.3.to_string()).collect(), verdict);
    }
    let wanted = |n: &&values::Number| match fact.kind {
        FactKind::Year => n.year,
        FactKind::Number => n.money.is_none(),
        FactKind::Money => fact.currency.is_some_and(|c| n.money == Some(Money::Known(c))),
        FactKind::Text => false,
    };
    let chosen: Vec<&values::Number> = numbers.numbers.iter().filter(wanted).collect();
    let verdict = if chosen.iter().any(|n| matches_value(fact, n.value)) {
        Verdict::Consistent
    } else if chosen.is_empty() {
        Verdict::Unverified
    } else {
        Verdict::Contradicts
    };
    let ranges: Vec<(usize, usize)> = chosen.iter().take(MAX_VALUES_PER_CLAIM).map(|n| (n.start, n.end)).collect();
    (as_written(&numbers.text, &numbers.norm, &ranges), verdict)
}

/// Rule 5: the sources behind a sentence, found through the probe's citations.
struct SourcesBehind<'s> {
    sources: &'s [SearchSource],
    /// Per citation: its `index` and its canonical URL (when it has one).
    citations: Vec<(Option<u32>, Option<String>)>,
    /// Per citation: its cited text, white space collapsed, when at least
    /// [`MIN_CITED_TEXT_CHARS`] long.
    cited_texts: Vec<Option<String>>,
    markers: MarkerRule,
}

/// `text` with every run of white space one space, trimmed.
fn collapsed(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

impl<'s> SourcesBehind<'s> {
    fn new(sources: &'s [SearchSource], citations: Option<&[RawCitation]>, markers: MarkerRule) -> Self {
        let citations = citations.unwrap_or_default();
        SourcesBehind {
            sources,
            citations: citations.iter().map(|c| (c.index, normalize_url(&c.url).map(|p| p.canonical))).collect(),
            cited_texts: citations
                .iter()
                .map(|c| c.cited_text.as_deref().map(collapsed).filter(|t| t.chars().count() >= MIN_CITED_TEXT_CHARS))
                .collect(),
            markers,
        }
    }

    /// The ids of the sources behind the sentence `raw` (as in the answer) whose text is
    /// `text`, in `sources` order.
    fn of(&self, raw: &str, text: &str) -> Vec<String> {
        if self.citations.is_empty() || self.sources.is_empty() {
            return Vec::new();
        }
        let numbers = self.markers.numbers(raw);
        let text = collapsed(text);
        let mut urls: FxHashSet<&str> = FxHashSet::default();
        for (i, (index, url)) in self.citations.iter().enumerate() {
            let Some(url) = url else { continue };
            let by_marker = index.is_some_and(|n| numbers.contains(&n));
            let by_text = !text.is_empty()
                && self.cited_texts[i].as_deref().is_some_and(|c| c.contains(text.as_str()) || text.contains(c));
            if by_marker || by_text {
                urls.insert(url.as_str());
            }
        }
        self.sources.iter().filter(|s| urls.contains(s.url.as_str())).map(|s| s.id.clone()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builders::{aliased as target, fact};
    use crate::model::{Currency, TargetKind};

    fn targets() -> Vec<Target> {
        vec![
            target("brand", TargetKind::Brand, &["元构场", "Yuangou"]),
            target("zp", TargetKind::Competitor, &["智谱营销"]),
            target("gb", TargetKind::Competitor, &["GEOBoost"]),
        ]
    }

    fn sheet() -> FactSnapshot {
        let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        FactSnapshot {
            facts: vec![
                Fact {
                    value: Some(2015.0), ..fact("founded", "brand", FactKind::Year, &["成立", "创立", "founded"])
                },
                Fact {
                    value: Some(4999.0),
                    currency: Some(Currency::Cny),
                    ..fact("price", "brand", FactKind::Money, &["价格", "收费", "price"])
                },
                Fact {
                    value: Some(120.0),
                    tolerance: Some(0.1),
                    ..fact("staff", "brand", FactKind::Number, &["员工", "employees"])
                },
                Fact {
                    accepted: s(&["杭州", "Hangzhou"]),
                    rejected: s(&["上海", "Shanghai"]),
                    ..fact("hq", "brand", FactKind::Text, &["总部", "headquartered"])
                },
                Fact { value: Some(2018.0), ..fact("zp-founded", "zp", FactKind::Year, &["成立"]) },
            ],
            watch_terms: s(&["数据泄露事件", "投诉"]),
        }
    }

    fn findings(answer: &str) -> Findings {
        let (t, f) = (targets(), sheet());
        derive(answer, &FactRules::new(&t, Some(&f), EngineId::Deepseek), &[], None)
    }

    /// Each claim as `fact verdict [values] «sentence»`.
    #[track_caller]
    fn check(answer: &str, expect: &[&str]) {
        let got: Vec<String> = findings(answer)
            .claims
            .iter()
            .map(|c| format!("{} {} {:?} «{}»", c.fact_id, c.verdict.as_str(), c.values, c.sentence))
            .collect();
        assert_eq!(got, expect, "{answer:?}");
    }

    /// Each flag as `target kind cue`.
    #[track_caller]
    fn flags(answer: &str, expect: &[&str]) {
        let got: Vec<String> = findings(answer)
            .risk_flags
            .iter()
            .map(|f| format!("{} {} {}", f.target_id, f.kind.as_str(), f.cue))
            .collect();
        assert_eq!(got, expect, "{answer:?}");
    }

    #[test]
    fn years() {
        check("元构场成立于2015年。", &[r#"founded consistent ["2015"] «元构场成立于2015年。»"#]);
        check(
            "元构场成立于2016年，2018年融资。",
            &[r#"founded contradicts ["2016", "2018"] «元构场成立于2016年，2018年融资。»"#],
        );
        check("元构场的成立时间不详。", &[r#"founded unverified [] «元构场的成立时间不详。»"#]);
        check("Yuangou was founded in 2015.", &[r#"founded consistent ["2015"] «Yuangou was founded in 2015.»"#]);
        // Values as written, not in the matching normal form (tests/it/claims_oracle.rs).
        check("元构场成立于２０１５年。", &[r#"founded consistent ["２０１５"] «元构场成立于２０１５年。»"#]);
    }

    #[test]
    fn money_numbers_and_text() {
        check("元构场的价格是¥4,999/年。", &[r#"price consistent ["¥4,999"] «元构场的价格是¥4,999/年。»"#]);
        check("元构场收费 $699 或 5000元。", &[r#"price contradicts ["5000元"] «元构场收费 $699 或 5000元。»"#]);
        check(
            "Yuangou price: ￥4,999 or 5000 RMB.",
            &[r#"price consistent ["￥4,999", "5000 RMB"] «Yuangou price: ￥4,999 or 5000 RMB.»"#],
        );
        check("元构场员工约130人。", &[r#"staff consistent ["130"] «元构场员工约130人。»"#]);
        check("元构场员工超过1.5万人。", &[r#"staff contradicts ["1.5万"] «元构场员工超过1.5万人。»"#]);
        check("元构场总部位于杭州。", &[r#"hq consistent ["杭州"] «元构场总部位于杭州。»"#]);
        check(
            "元构场总部在上海，也有杭州办公室。",
            &[r#"hq contradicts ["上海", "杭州"] «元构场总部在上海，也有杭州办公室。»"#],
        );
        check("Yuangou is headquartered in Berlin.", &[r#"hq unverified [] «Yuangou is headquartered in Berlin.»"#]);
    }

    #[test]
    fn subjects_are_inherited_until_a_blank_line_or_another_target() {
        check("元构场是一家GEO公司。它成立于2015年。", &[r#"founded consistent ["2015"] «它成立于2015年。»"#]);
        check("元构场是一家GEO公司。\n\n它成立于2015年。", &[]);
        // Two targets: no subject, and none passed on.
        check("元构场和智谱营销都成立于2015年。后者总部在上海。", &[]);
        check(
            "智谱营销成立于2018年。元构场总部在杭州。",
            &[
                r#"zp-founded consistent ["2018"] «智谱营销成立于2018年。»"#,
                r#"hq consistent ["杭州"] «元构场总部在杭州。»"#,
            ],
        );
    }

    #[test]
    fn cues_match_like_aliases() {
        // `founded` is a whole word: `cofounded` is not it; the cue is case-folded.
        check("Yuangou was cofounded in 2015.", &[]);
        check("Yuangou FOUNDED: 2015", &[r#"founded consistent ["2015"] «Yuangou FOUNDED: 2015»"#]);
    }

    #[test]
    fn risk_flags_per_sentence_about_a_target() {
        flags("元构场有用户投诉，不推荐新手使用。", &["brand negative 不推荐", "brand negative 投诉"]);
        flags("GEOBoost is expensive and has had an outage.", &["gb negative outage", "gb caution expensive"]);
        flags("元构场曾发生数据泄露事件。", &["brand negative 泄露", "brand watch 数据泄露事件"]);
        // Negation is not read: a flag is a sentence to read.
        flags("元构场没有投诉。", &["brand negative 投诉"]);
        // No target, no flag.
        flags("这类服务普遍较贵。", &[]);
    }

    #[test]
    fn long_sentences_are_cut_and_offsets_are_characters() {
        let long = format!("元构场成立于2015年{}。", "很".repeat(400));
        let f = findings(&format!("前言。{long}"));
        let c = &f.claims[0];
        assert_eq!(c.sentence.chars().count(), 300);
        assert!(c.sentence.ends_with('…'));
        assert_eq!((c.start, c.end), (3, 3 + long.chars().count() as u32));
    }

    #[test]
    fn sources_behind_a_sentence_by_marker_and_by_cited_text() {
        use crate::model::RawCitation;
        let t = targets();
        let f = sheet();
        let answer = "元构场成立于2015年[ref_2]。元构场总部在杭州。";
        let source = |id: &str, url: &str| SearchSource {
            id: id.into(),
            url: url.into(),
            host: String::new(),
            domain: String::new(),
            title: String::new(),
            page_age: None,
            platform: String::new(),
            channel: String::new(),
            ownership: crate::model::Ownership::ThirdParty,
            competitor_id: None,
            occurrences: vec![],
            best_rank: 1,
            title_mentions: vec![],
            cited: None,
        };
        let sources = [source("src_1", "https://a.example/x"), source("src_2", "https://b.example/y")];
        let citations = [
            RawCitation { url: "https://b.example/y".into(), title: None, cited_text: None, index: Some(2) },
            RawCitation {
                url: "https://a.example/x/".into(),
                title: None,
                cited_text: Some("据报道， 元构场总部在杭州。 它有120名员工".into()),
                index: Some(1),
            },
        ];
        let rules = FactRules::new(&t, Some(&f), EngineId::Qwen);
        let out = derive(answer, &rules, &sources, Some(&citations));
        let ids: Vec<(&str, &Vec<String>)> = out.claims.iter().map(|c| (c.fact_id.as_str(), &c.source_ids)).collect();
        assert_eq!(ids, [("founded", &vec!["src_2".to_string()]), ("hq", &vec!["src_1".to_string()])]);
        // DeepSeek writes no markers: only the cited text counts.
        let rules = FactRules::new(&t, Some(&f), EngineId::Deepseek);
        let out = derive(answer, &rules, &sources, Some(&citations));
        assert!(out.claims[0].source_ids.is_empty());
    }

    #[test]
    fn a_claim_keeps_its_first_values_and_reads_them_all() {
        let many = format!("元构场员工{}和120人。", "1,".repeat(100));
        let c = &findings(&many).claims[0];
        assert_eq!((c.values.len(), c.verdict), (MAX_VALUES_PER_CLAIM, Verdict::Consistent), "{:?}", c.values);
    }

    #[test]
    fn a_hostile_answer_is_bounded() {
        let answer = "元构场成立于2015年，价格4999元，员工120人，总部杭州，有投诉。".repeat(2000);
        let f = findings(&answer);
        assert_eq!(f.claims.len(), MAX_CLAIMS_PER_PROBE);
        assert_eq!(f.risk_flags.len(), MAX_RISK_FLAGS_PER_PROBE);
    }
}
