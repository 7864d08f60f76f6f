//! Property test of "What the answers say" (data-model.md, "What the answers say: facts,
//! claims and risk flags"; `analysis::claims`) against a naive oracle written here from the
//! contract's text, sharing no code with the engine:
//!
//! * rule 1 by brute force: every character outside a URL is tested against the cut rule, the
//!   end of a sentence is then pushed over consecutive cut characters, markers and white space;
//!   markers and URLs are found by regular expressions and a char-by-char URL scan;
//! * subjects and cues by a plain substring search of the NFKC + lower-case text
//!   (`unicode-normalization`) with the ASCII word-boundary rule of seed §5.3 re-implemented;
//! * every value of rule 4 by regular expressions and look-arounds written from the precise
//!   readings, verdicts and risk flags by the contract's words, the built-in cue lists copied
//!   from the contract.
//!
//! Answers are drawn from a small alphabet of meaningful pieces (aliases in Chinese and
//! English, fact and risk cues, numbers with and without multipliers, signs and currency
//! words, years, `%`, URLs, every engine's citation markers, cut characters, newlines, blank
//! lines, white space, long filler), fact sheets and watch terms from a pool, sources and
//! citations (with `index` and `citedText`) from a few URLs, the engine from all nine. The
//! engine's `Probe.claims` and `Probe.riskFlags` (through `RunAnalyzer::analyze`) must equal
//! the oracle's exactly: offsets, the 300-character cut, values as written, order, sourceIds.
//! `the_generator_exercises_every_rule` keeps the alphabet honest.

use std::sync::LazyLock;

use geo_core::analysis::urls::normalize_url;
use geo_core::analysis::RunAnalyzer;
use geo_core::model::*;
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::TestRunner;
use regex::Regex;
use unicode_normalization::UnicodeNormalization;

use crate::metrics_support::probe;
use crate::support::fact;

// ---------------------------------------------------------------------------------------
// The oracle.
// ---------------------------------------------------------------------------------------

/// The built-in `negative` cues, as the contract lists them.
#[rustfmt::skip]
const NEGATIVE: &[&str] = &[
    "不推荐", "不建议", "避免", "慎选", "投诉", "维权", "骗局", "诈骗", "跑路", "倒闭", "破产", "差评", "负面", "争议",
    "纠纷", "诉讼", "起诉", "被罚", "处罚", "违规", "虚假宣传", "泄露", "故障", "not recommended", "avoid", "beware",
    "complaint", "complaints", "scam", "fraud", "lawsuit", "sued", "fined", "penalty", "breach", "outage", "bankrupt",
    "bankruptcy", "controversy", "controversial", "misleading", "unreliable",
];

/// The built-in `caution` cues, as the contract lists them.
#[rustfmt::skip]
const CAUTION: &[&str] = &[
    "缺点", "不足", "劣势", "局限", "风险", "价格偏高", "较贵", "收费高", "门槛高", "不适合", "drawback", "drawbacks",
    "downside", "downsides", "weakness", "weaknesses", "limitation", "limitations", "expensive", "overpriced",
    "not suitable", "worse than",
];

/// The answer-link rule's CJK punctuation, which ends a bare URL.
const URL_STOPS: &str = "。，；：！？、“”‘’「」『』《》（）【】…〈〉｜";
/// The answer-link rule's trailing punctuation, stripped from the end of a URL.
const URL_TRAILING: &str = ".,;:!?'\"*。，；：！？、」』》）】";

/// A citation marker (engines.md) at byte `i` of `s`: its length. `[ref_<text>]` (text up to
/// 32 bytes, no bracket or line break), `[n]` and `[^n]` (1–3 digits), `^[n]…[m]^` (1–16
/// groups); not one when `(` follows (the text of a Markdown link).
fn marker_at(s: &str, i: usize) -> Option<usize> {
    static MARKER: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"\A(?:\[ref_([^\[\]\n\r]*)\]|\[\^?[0-9]{1,3}\]|\^(?:\[[0-9]{1,3}\]){1,16}\^)").unwrap()
    });
    let m = MARKER.captures(&s[i..])?;
    if m.get(1).is_some_and(|t| t.len() > 32) {
        return None;
    }
    let len = m.get(0)?.end();
    (!s[i + len..].starts_with('(')).then_some(len)
}

/// A URL starting at byte `i` of `s` (`http://` or `https://`, no ASCII letter or digit
/// before it): its end, where an answer link's URL ends.
fn url_at(s: &str, i: usize) -> Option<usize> {
    let head: String = s[i..].chars().take(8).collect::<String>().to_ascii_lowercase();
    let glued = s[..i].chars().next_back().is_some_and(|c| c.is_ascii_alphanumeric());
    if glued || !(head.starts_with("http://") || head.starts_with("https://")) {
        return None;
    }
    let authority = i + s[i..].find("://")? + 3;
    let mut end = s.len();
    let mut in_authority = true;
    let mut prev = '\0';
    for (at, c) in s[i..].char_indices().map(|(k, c)| (i + k, c)) {
        if at >= authority && matches!(c, '/' | '?' | '#') {
            in_authority = false;
        }
        let stop = c.is_whitespace()
            || c.is_control()
            || "<>\"`".contains(c)
            || URL_STOPS.contains(c)
            || (in_authority && at >= authority && !c.is_ascii())
            || (matches!(c, '[' | '^') && marker_at(s, at).is_some());
        if prev == ']' && c == '(' {
            end = at - 1;
            break;
        }
        if stop {
            end = at;
            break;
        }
        prev = c;
    }
    let mut url = &s[i..end];
    while let Some(c) = url.chars().next_back() {
        let opener = match c {
            ')' => '(',
            ']' => '[',
            '}' => '{',
            '>' => '<',
            _ => '\0',
        };
        let unmatched = opener != '\0' && url.matches(c).count() > url.matches(opener).count();
        if !URL_TRAILING.contains(c) && !unmatched {
            break;
        }
        url = &url[..url.len() - c.len_utf8()];
    }
    (!url.is_empty()).then_some(i + url.len())
}

/// Byte spans of every URL of `answer`, left to right.
fn url_spans(answer: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < answer.len() {
        match url_at(answer, i) {
            Some(end) => {
                out.push((i, end));
                i = end;
            }
            None => i += answer[i..].chars().next().map_or(1, char::len_utf8),
        }
    }
    out
}

/// One sentence of rule 1.
#[derive(Debug)]
struct OSentence {
    /// Byte range of the trimmed sentence in the answer.
    start: usize,
    end: usize,
    /// Its text: each marker and each URL one space.
    text: String,
    /// Whether a blank line lies between the sentence before (a kept one) and it.
    after_blank: bool,
}

/// Whether `gap` holds a line with only white space between two line breaks.
fn has_blank_line(gap: &str) -> bool {
    let lines: Vec<&str> = gap.split('\n').collect();
    lines.len() > 2 && lines[1..lines.len() - 1].iter().any(|l| l.chars().all(char::is_whitespace))
}

/// Rule 1: every character outside a URL is a cut or not, by the rule's words; a sentence
/// ends after its cut, the consecutive cut characters after it (not after a newline), and
/// every marker and white space after those.
fn o_sentences(answer: &str) -> Vec<OSentence> {
    const CUTS: &str = "。！？；!?;";
    let urls = url_spans(answer);
    let next = |at: usize| answer[at..].chars().next();
    let mut spans = Vec::new();
    let (mut start, mut i) = (0, 0);
    while i < answer.len() {
        if let Some(&(_, end)) = urls.iter().find(|(s, _)| *s == i) {
            i = end;
            continue;
        }
        let c = next(i).unwrap();
        let after = i + c.len_utf8();
        let dot_cut = c == '.'
            && (after == answer.len()
                || next(after).is_some_and(char::is_whitespace)
                || marker_at(answer, after).is_some());
        if !(CUTS.contains(c) || c == '\n' || dot_cut) {
            i = after;
            continue;
        }
        let mut end = after;
        if c != '\n' {
            while let Some(d) = next(end).filter(|d| CUTS.contains(*d) || *d == '.') {
                end += d.len_utf8();
            }
        }
        loop {
            if let Some(n) = marker_at(answer, end) {
                end += n;
            } else if let Some(w) = next(end).filter(|w| w.is_whitespace()) {
                end += w.len_utf8();
            } else {
                break;
            }
        }
        spans.push((start, end));
        (start, i) = (end, end);
    }
    if start < answer.len() {
        spans.push((start, answer.len()));
    }
    let mut out: Vec<OSentence> = Vec::new();
    for (s, e) in spans {
        let raw = &answer[s..e];
        let trimmed = raw.trim();
        if trimmed.is_empty() {
            continue;
        }
        let start = s + (raw.len() - raw.trim_start().len());
        let end = start + trimmed.len();
        let mut text = String::new();
        let mut k = start;
        while k < end {
            if let Some(&(_, url_end)) = urls.iter().find(|(u, _)| *u == k) {
                text.push(' ');
                k = url_end;
            } else if let Some(n) = marker_at(answer, k) {
                text.push(' ');
                k += n;
            } else {
                let c = next(k).unwrap();
                text.push(c);
                k += c.len_utf8();
            }
        }
        if text.chars().all(char::is_whitespace) {
            continue;
        }
        let after_blank = out.last().is_some_and(|p| has_blank_line(&answer[p.end..start]));
        out.push(OSentence { start, end, text, after_blank });
    }
    out
}

/// NFKC + lower-case, each character on its own, with the byte range of `text` that each
/// character of the result comes from.
fn fold_with_map(text: &str) -> (String, Vec<(usize, usize, usize)>) {
    let mut norm = String::new();
    let mut map = Vec::new();
    for (i, c) in text.char_indices() {
        for n in c.to_string().nfkc().flat_map(char::to_lowercase) {
            map.push((norm.len(), i, i + c.len_utf8()));
            norm.push(n);
        }
    }
    (norm, map)
}

/// [`fold_with_map`] for reading values: a character other than `,` that folds to `,` (the
/// full-width `，`, the small `﹐`) stays itself, since "groups use `,` only (a full-width `，`
/// ends the number)".
fn fold_for_values(text: &str) -> (String, Vec<(usize, usize, usize)>) {
    let mut norm = String::new();
    let mut map = Vec::new();
    for (i, c) in text.char_indices() {
        let folded = fold(&c.to_string());
        let kept = if folded == "," && c != ',' { c.to_string() } else { folded };
        for n in kept.chars() {
            map.push((norm.len(), i, i + c.len_utf8()));
            norm.push(n);
        }
    }
    (norm, map)
}

fn fold(text: &str) -> String {
    text.nfkc().flat_map(char::to_lowercase).collect()
}

fn is_word(c: Option<char>) -> bool {
    c.is_some_and(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
}

/// Rule 3 (seed §5.3): where `listed` (an alias, a cue, an accepted value …) occurs in `norm`,
/// overlapping hits included. An all-ASCII needle needs a neighbour outside `[a-z0-9]` on both
/// sides; any other needle only on an edge whose character is in `[a-z0-9]`.
fn hits(norm: &str, listed: &str) -> Vec<usize> {
    let needle = fold(listed.trim());
    if needle.chars().all(char::is_whitespace) {
        return Vec::new();
    }
    let ascii = needle.is_ascii();
    let check_left = ascii || is_word(needle.chars().next());
    let check_right = ascii || is_word(needle.chars().next_back());
    norm.char_indices()
        .map(|(i, _)| i)
        .filter(|&i| norm[i..].starts_with(&needle))
        .filter(|&i| !(check_left && is_word(norm[..i].chars().next_back())))
        .filter(|&i| !(check_right && is_word(norm[i + needle.len()..].chars().next())))
        .collect()
}

fn occurs(norm: &str, listed: &str) -> bool {
    !hits(norm, listed).is_empty()
}

/// A number of rule 4 in the folded text.
#[derive(Debug)]
struct ONumber {
    start: usize,
    end: usize,
    value: f64,
    /// `None`: not money; `Some(None)`: another currency (`HK$` …).
    money: Option<Option<Currency>>,
    year: bool,
}

/// Whether an ASCII letter is at byte `k` of `t` (folded: lower case).
fn letter_at(t: &str, k: usize) -> bool {
    t.as_bytes().get(k).is_some_and(u8::is_ascii_lowercase)
}

/// The multiplier right after the number ending at `j`: its end and factor.
fn o_multiplier(t: &str, j: usize) -> (usize, f64) {
    for (w, factor, word) in [
        ("万", 1e4, false),
        ("亿", 1e8, false),
        ("千", 1e3, false),
        ("k", 1e3, true),
        (" million", 1e6, true),
        (" billion", 1e9, true),
    ] {
        if t[j..].starts_with(w) && !(word && letter_at(t, j + w.len())) {
            return (j + w.len(), factor);
        }
    }
    (j, 1.0)
}

/// A currency word after optional spaces from `at`: (its start, its end, currency).
fn o_currency_word(t: &str, at: usize) -> Option<(usize, usize, Currency)> {
    use Currency::*;
    let at = at + t[at..].chars().take_while(|c| c.is_whitespace()).map(char::len_utf8).sum::<usize>();
    #[rustfmt::skip]
    let words = [
        ("元", Cny), ("块", Cny), ("人民币", Cny), ("rmb", Cny), ("cny", Cny), ("美元", Usd), ("usd", Usd),
        ("dollars", Usd), ("dollar", Usd), ("欧元", Eur), ("eur", Eur), ("euros", Eur), ("euro", Eur),
    ];
    words.into_iter().find_map(|(w, c)| {
        let whole = !w.is_ascii() || !letter_at(t, at + w.len());
        (t[at..].starts_with(w) && whole).then_some((at, at + w.len(), c))
    })
}

/// A currency sign before the number at `i`, spaces between allowed: where the value starts
/// and its currency (`None` for another dollar).
fn o_sign(t: &str, i: usize) -> Option<(usize, Option<Currency>)> {
    let head = t[..i].trim_end();
    let sign = head.chars().next_back()?;
    let at = head.len() - sign.len_utf8();
    match sign {
        '¥' => Some((at, Some(Currency::Cny))),
        '€' => Some((at, Some(Currency::Eur))),
        '$' => {
            let before = &head[..at];
            let word = |w: &str| {
                before.strip_suffix(w).filter(|rest| !is_word(rest.chars().next_back())).map(|rest| rest.len())
            };
            if let Some(s) = word("us") {
                return Some((s, Some(Currency::Usd)));
            }
            if let Some(s) = ["hk", "c", "a", "s", "nt", "nz", "r", "mx"].into_iter().find_map(word) {
                return Some((s, None));
            }
            Some((at, Some(Currency::Usd)))
        }
        _ => None,
    }
}

/// Every number of rule 4 in `t` (folded), in order.
fn o_numbers(t: &str) -> Vec<ONumber> {
    static NUMBER: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\A[0-9]+(?:,[0-9]{3})*(?:\.[0-9]+)?").unwrap());
    static YEAR: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\A[12][0-9]{3}\z").unwrap());
    let b = t.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if !b[i].is_ascii_digit() || (i > 0 && (b[i - 1].is_ascii_lowercase() || b[i - 1].is_ascii_digit())) {
            i += 1;
            continue;
        }
        let j = i + NUMBER.find(&t[i..]).unwrap().end();
        let (m_end, factor) = o_multiplier(t, j);
        let word = o_currency_word(t, m_end);
        // What follows the number may be a letter only when its multiplier or currency word
        // starts there, and never a digit.
        let ok = match t[j..].chars().next() {
            Some(c) if c.is_ascii_digit() => false,
            Some(c) if c.is_ascii_alphabetic() => m_end > j || word.is_some_and(|w| w.0 == j),
            _ => true,
        };
        if !ok {
            i = j;
            continue;
        }
        let sign = o_sign(t, i);
        let money = sign.map(|s| s.1).or(word.map(|w| Some(w.2)));
        let after = t[j..].trim_start();
        let excluded = after.starts_with(['%', '万', '亿']) || (after.starts_with('k') && !letter_at(after, 1));
        let year = money.is_none() && m_end == j && YEAR.is_match(&t[i..j]) && !excluded;
        let value = t[i..j].replace(',', "").parse::<f64>().unwrap() * factor;
        let end = word.map_or(m_end, |w| w.1);
        out.push(ONumber { start: sign.map_or(i, |s| s.0), end, value, money, year });
        i = end;
    }
    out
}

/// Rule 4 for one fact and one sentence: the values as written in `text` and the verdict.
fn o_check(fact: &Fact, text: &str) -> (Vec<String>, Verdict) {
    if fact.kind == FactKind::Text {
        let norm = fold(text);
        let mut found: Vec<(usize, usize, usize, bool, &str)> = Vec::new();
        for (rank, list) in [&fact.accepted, &fact.rejected].into_iter().enumerate() {
            for (k, listed) in list.iter().enumerate() {
                found.extend(hits(&norm, listed).into_iter().map(|at| (at, rank, k, rank == 1, listed.as_str())));
            }
        }
        found.sort_by_key(|f| (f.0, f.1, f.2));
        let verdict = if found.iter().any(|f| f.3) {
            Verdict::Contradicts
        } else if found.is_empty() {
            Verdict::Unverified
        } else {
            Verdict::Consistent
        };
        return (found.iter().map(|f| f.4.to_string()).collect(), verdict);
    }
    let (norm, map) = fold_for_values(text);
    let value = fact.value.unwrap();
    let chosen: Vec<ONumber> = o_numbers(&norm)
        .into_iter()
        .filter(|n| match fact.kind {
            FactKind::Year => n.year,
            FactKind::Number => n.money.is_none(),
            _ => n.money == Some(fact.currency),
        })
        .collect();
    let matches = |x: f64| match fact.kind {
        FactKind::Year => x == value,
        _ => (x - value).abs() <= (fact.tolerance.unwrap_or(0.0) + 1e-9) * value.abs(),
    };
    let verdict = if chosen.iter().any(|n| matches(n.value)) {
        Verdict::Consistent
    } else if chosen.is_empty() {
        Verdict::Unverified
    } else {
        Verdict::Contradicts
    };
    // As written: from the first character the value's first folded character comes from to
    // the last one's.
    let src = |from: usize, to: usize| {
        let first = map.iter().find(|m| m.0 == from).unwrap().1;
        let last = map.iter().rev().find(|m| m.0 < to).unwrap().2;
        text[first..last].to_string()
    };
    (chosen.iter().map(|n| src(n.start, n.end)).collect(), verdict)
}

/// The numbers the markers of `raw` name under `engine`'s marker rule (engines.md).
fn o_named(engine: EngineId, raw: &str) -> Vec<u32> {
    static BRACKET: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\[(\^?)([0-9]+)\]").unwrap());
    static REF: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\[ref_([0-9]{1,4})\]").unwrap());
    static CARET: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\^((?:\[[0-9]{1,4}\])+)\^").unwrap());
    static GROUP: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"[0-9]+").unwrap());
    match engine {
        EngineId::Perplexity | EngineId::Hunyuan => BRACKET
            .captures_iter(raw)
            .filter(|c| c[2].len() <= if c[1].is_empty() { 3 } else { 9 })
            .map(|c| c[2].parse().unwrap())
            .filter(|n| *n > 0)
            .collect(),
        EngineId::Qwen => REF.captures_iter(raw).map(|c| c[1].parse().unwrap()).collect(),
        EngineId::Ernie => {
            // A marker's closing `^` may open the next one.
            let mut out = Vec::new();
            let mut at = 0;
            while let Some(c) = CARET.captures_at(raw, at) {
                out.extend(GROUP.find_iter(&c[1]).map(|g| g.as_str().parse::<u32>().unwrap()));
                at = c.get(0).unwrap().end() - 1;
            }
            out
        }
        _ => Vec::new(),
    }
}

fn collapse(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Rule 5: the ids of the sources behind the sentence `raw` whose text is `text`.
fn o_sources(engine: EngineId, raw: &str, text: &str, probe: &Probe) -> Vec<String> {
    let named = o_named(engine, raw);
    let text = collapse(text);
    let urls: Vec<String> = probe
        .raw_citations
        .iter()
        .flatten()
        .filter(|c| {
            let by_marker = c.index.is_some_and(|n| named.contains(&n));
            let cited = c.cited_text.as_deref().map(collapse).unwrap_or_default();
            let by_text = cited.chars().count() >= 8 && (cited.contains(&text) || text.contains(&cited));
            by_marker || by_text
        })
        .filter_map(|c| normalize_url(&c.url).map(|p| p.canonical))
        .collect();
    probe.sources.iter().filter(|s| urls.contains(&s.url)).map(|s| s.id.clone()).collect()
}

/// The sentence as kept: at most 300 characters, cut to 299 and `…`.
fn kept(sentence: &str) -> String {
    if sentence.chars().count() > 300 {
        sentence.chars().take(299).chain(['…']).collect()
    } else {
        sentence.to_string()
    }
}

/// What the oracle found, and what the generator check counts.
#[derive(Debug, Default)]
struct OFindings {
    claims: Vec<Claim>,
    risk_flags: Vec<RiskFlag>,
    /// Claims whose sentence names no target (an inherited subject).
    inherited: usize,
    /// Sentences that name no target right after a blank line that follow one with a subject.
    cut_off_by_blank_line: usize,
    /// Sentences naming two or more targets.
    several_targets: usize,
}

/// Rules 1–6 over a successful probe's answer, by the contract's words.
fn oracle(probe: &Probe, targets: &[Target], sheet: Option<&FactSnapshot>, engine: EngineId) -> OFindings {
    let answer = probe.answer.as_str();
    let facts: &[Fact] = sheet.map_or(&[], |s| &s.facts);
    let mut cues: Vec<(RiskKind, &str)> = NEGATIVE.iter().map(|c| (RiskKind::Negative, *c)).collect();
    cues.extend(CAUTION.iter().map(|c| (RiskKind::Caution, *c)));
    for w in sheet.map_or(&[][..], |s| &s.watch_terms) {
        let blank = w.trim().is_empty();
        if !blank && !cues.iter().any(|(_, c)| fold(c.trim()) == fold(w.trim())) {
            cues.push((RiskKind::Watch, w));
        }
    }
    let mut out = OFindings::default();
    let mut subject: Option<&str> = None;
    for s in o_sentences(answer) {
        let norm = fold(&s.text);
        let named: Vec<&str> =
            targets.iter().filter(|t| t.aliases.iter().any(|a| occurs(&norm, a))).map(|t| t.id.as_str()).collect();
        if named.is_empty() && s.after_blank && subject.is_some() {
            out.cut_off_by_blank_line += 1;
        }
        out.several_targets += usize::from(named.len() > 1);
        subject = match named.len() {
            1 => Some(named[0]),
            0 if !s.after_blank => subject,
            _ => None,
        };
        let Some(target) = subject else { continue };
        let raw = &answer[s.start..s.end];
        let (start, end) = (answer[..s.start].chars().count() as u32, answer[..s.end].chars().count() as u32);
        for fact in facts.iter().filter(|f| f.target_id == target && f.cues.iter().any(|c| occurs(&norm, c))) {
            let (mut values, verdict) = o_check(fact, &s.text);
            // A claim keeps its first 20 values; the verdict read them all.
            values.truncate(20);
            out.inherited += usize::from(named.is_empty());
            out.claims.push(Claim {
                fact_id: fact.id.clone(),
                target_id: target.to_string(),
                verdict,
                sentence: kept(raw),
                start,
                end,
                values,
                source_ids: o_sources(engine, raw, &s.text, probe),
            });
        }
        for (kind, cue) in cues.iter().filter(|(_, c)| occurs(&norm, c)) {
            out.risk_flags.push(RiskFlag {
                target_id: target.to_string(),
                kind: *kind,
                cue: cue.to_string(),
                sentence: kept(raw),
                start,
                end,
            });
        }
    }
    out.claims.truncate(500);
    out.risk_flags.truncate(500);
    out
}

// ---------------------------------------------------------------------------------------
// The generator.
// ---------------------------------------------------------------------------------------

const BRAND: &str = "tgt_brand";
const ZHIPU: &str = "tgt_zhipu";
const BOOST: &str = "tgt_boost";

fn targets() -> Vec<Target> {
    use crate::support::target;
    vec![
        target(BRAND, TargetKind::Brand, "元构场", &["元构场", "元构场智能科技", "Yuangouchang"], &[]),
        target(ZHIPU, TargetKind::Competitor, "智谱营销", &["智谱营销", "ZhipuMarketing"], &[]),
        target(BOOST, TargetKind::Competitor, "GEOBoost", &["GEOBoost", "GEO Boost"], &[]),
    ]
}

#[rustfmt::skip]
const ALIASES: &[&str] = &[
    "元构场", "元构场智能科技", "Yuangouchang", "YUANGOUCHANG", "ｙｕａｎｇｏｕｃｈａｎｇ", "智谱营销", "ZhipuMarketing", "GEOBoost",
    "GEO Boost", "geoboost", "GEOBoosts",
];
#[rustfmt::skip]
const FACT_CUES: &[&str] = &[
    "成立", "创立", "founded", "Founded", "总部", "headquartered", "价格", "price", "收费", "员工", "employees", "旗下",
];
const WATCH: &[&str] = &["数据泄露事件", "融资", "Scam", "投诉", " 较贵 ", "代运营"];
#[rustfmt::skip]
const NUMBERS: &[&str] = &[
    "2015", "2016", "1998", "２０１５", "4,999", "4999", "5000", "1.5", "120", "130", "0999", "3000", "2,015", "12",
    "15000", "699", "3.5", "1,2345", "4，999", "2015，2016",
];
/// What may follow a number directly: multipliers, and what is not one.
#[rustfmt::skip]
const AFTER_NUMBER: &[&str] = &[
    "万", "亿", "千", "k", "K", " million", " billion", "million", "km", " known", "x", "5", "%", " %", ",", ".5", "，",
    ",000", "，000", "﹐000",
];
/// Currency words, and words that are not one.
#[rustfmt::skip]
const WORDS: &[&str] = &[
    "元", " 元", "块", "人民币", "RMB", " rmb", "CNY", "美元", "USD", " USD", "dollars", " dollar", "欧元", "EUR",
    " euros", "euro", "年", "人", " kilometers", "Pro", " eurostar", "usd5",
];
#[rustfmt::skip]
const SIGNS: &[&str] = &["¥", "￥", "$", "US$", "us$ ", "HK$", "A$", "€", "\\$", "¥ ", "Pixel 9a$", "＄"];
const TEXT_VALUES: &[&str] = &["杭州", "Hangzhou", "HANGZHOU", "上海", "Shanghai", "北京"];
#[rustfmt::skip]
const URLS: &[&str] = &[
    " https://a.example/x", "https://a.example/x", "http://b.example/y.html", "https://c.example/p?q=1;b=2",
    "https://d.example", "https://www.yuangouchang.com/cases", "https://a.example/x)",
];
#[rustfmt::skip]
const MARKERS: &[&str] = &[
    "[1]", "[2]", "[^2]", "[ref_3]", "[ref_1]", "[ref_2]", "^[4]^", "^[4][5]^", "[ref_无]", "[12]", "[2024]", "[^3]", "^[1]^",
];
const CUTS: &[&str] = &["。", "！", "？", "；", "!", "?", ";", ".", "...", "？！", ". "];
const NEWLINES: &[&str] = &["\n", "\n\n", " \n \n", "\r\n", "\n\t\n"];
const SPACES: &[&str] = &[" ", "  ", "\u{3000}", "\t"];
#[rustfmt::skip]
const FILLER: &[&str] = &["的", "是", "公司", "a", "x", "和", "and", "it", "，", "、", ")", "：", "-", "很好", "这家", "没有"];

/// An amount: a number with, perhaps, a sign before it and words after it, and now and then
/// citation markers inside it (`1万^[2]^元`).
fn amount() -> impl Strategy<Value = String> {
    let s = |list: &'static [&'static str]| prop::sample::select(list);
    let o = |list: &'static [&'static str]| prop::option::of(s(list)).prop_map(Option::unwrap_or_default);
    let markers = prop_oneof![3 => Just(""), 1 => s(MARKERS), 1 => Just("[1][2]")];
    (o(SIGNS), s(NUMBERS), markers, o(AFTER_NUMBER), o(WORDS))
        .prop_map(|(sign, number, markers, after, word)| [sign, number, markers, after, word].concat())
}

/// A target, a cue and an amount or a text value: what a claim is made of.
fn claim_phrase() -> impl Strategy<Value = String> {
    let s = |list: &'static [&'static str]| prop::sample::select(list).prop_map(str::to_string);
    let marker = prop::option::of(prop::sample::select(MARKERS)).prop_map(Option::unwrap_or_default);
    (s(ALIASES), s(FILLER), s(FACT_CUES), prop_oneof![3 => amount(), 1 => s(TEXT_VALUES)], marker, s(CUTS)).prop_map(
        |(alias, filler, cue, value, marker, cut)| [alias, filler, cue, value, marker.to_string(), cut].concat(),
    )
}

fn piece() -> impl Strategy<Value = String> {
    let s = |list: &'static [&'static str]| prop::sample::select(list).prop_map(str::to_string);
    let risk: Vec<&'static str> = NEGATIVE.iter().chain(CAUTION).chain(WATCH).copied().collect();
    prop_oneof![
        10 => claim_phrase(),
        10 => amount(),
        8 => s(ALIASES),
        12 => s(FACT_CUES),
        8 => prop::sample::select(risk).prop_map(str::to_string),
        14 => s(NUMBERS),
        5 => s(AFTER_NUMBER),
        5 => s(WORDS),
        5 => s(SIGNS),
        5 => s(TEXT_VALUES),
        3 => s(URLS),
        10 => s(MARKERS),
        16 => s(CUTS),
        5 => s(NEWLINES),
        6 => s(SPACES),
        8 => s(FILLER),
        2 => Just("很".repeat(310)),
    ]
}

/// The values of `sheet` as answers write them (`¥4999`, `4999元`, `2015年`, `杭州` …), so that
/// every verdict comes up.
fn sheet_values(sheet: Option<&FactSnapshot>) -> Vec<String> {
    let mut out = Vec::new();
    for f in sheet.map_or(&[][..], |s| &s.facts) {
        let v = f.value.map(|v| if v.fract() == 0.0 { format!("{}", v as i64) } else { v.to_string() });
        match (f.kind, v, f.currency) {
            (FactKind::Year, Some(v), _) => out.extend([v.clone(), format!("{v}年")]),
            (FactKind::Number, Some(v), _) => out.extend([v.clone(), format!("{v}人")]),
            (FactKind::Money, Some(v), Some(Currency::Cny)) => out.extend([format!("¥{v}"), format!("{v}元")]),
            (FactKind::Money, Some(v), Some(Currency::Usd)) => out.extend([format!("${v}"), format!("{v} USD")]),
            (FactKind::Money, Some(v), Some(Currency::Eur)) => out.extend([format!("€{v}"), format!("{v} euros")]),
            _ => out.extend(f.accepted.iter().chain(&f.rejected).cloned()),
        }
    }
    out
}

fn answer(values: Vec<String>) -> impl Strategy<Value = String> {
    let piece = if values.is_empty() {
        piece().boxed()
    } else {
        prop_oneof![9 => piece(), 1 => prop::sample::select(values)].boxed()
    };
    prop::collection::vec(piece, 0..50).prop_map(|v| v.concat())
}

/// A fact sheet: a subset of a pool of facts in any order, with drawn values, and watch terms.
fn sheet() -> impl Strategy<Value = Option<FactSnapshot>> {
    let strings = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let currency = prop::sample::select(vec![Currency::Cny, Currency::Usd, Currency::Eur]);
    let tolerance = prop::sample::select(vec![None, Some(0.0), Some(0.1), Some(0.5)]);
    let params = (
        prop::sample::select(vec![2015.0, 2016.0, 1998.0]),
        prop::sample::select(vec![4999.0, 5000.0, 50_000.0, 699.0, 15_000.0, 1.5e6]),
        currency,
        tolerance.clone(),
        prop::sample::select(vec![120.0, 130.0, 15_000.0, 1.5, 3.5e8]),
        tolerance,
        any::<bool>(),
    );
    let pool = params.prop_map(move |(year, price, currency, price_tol, staff, staff_tol, with_rejected)| {
        vec![
            Fact { value: Some(year), ..fact("f_founded", BRAND, FactKind::Year, &["成立", "创立", "founded"]) },
            Fact {
                value: Some(price),
                currency: Some(currency),
                tolerance: price_tol,
                ..fact("f_price", BRAND, FactKind::Money, &["价格", "收费", "price"])
            },
            Fact {
                value: Some(staff),
                tolerance: staff_tol,
                ..fact("f_staff", BRAND, FactKind::Number, &["员工", "employees"])
            },
            Fact {
                accepted: strings(&["杭州", "Hangzhou"]),
                rejected: if with_rejected { strings(&["上海", "Shanghai"]) } else { vec![] },
                ..fact("f_hq", BRAND, FactKind::Text, &["总部", "headquartered"])
            },
            Fact { value: Some(2018.0), ..fact("f_zp_founded", ZHIPU, FactKind::Year, &["成立"]) },
            Fact {
                accepted: strings(&["上海"]),
                rejected: strings(&["北京"]),
                ..fact("f_zp_parent", ZHIPU, FactKind::Text, &["旗下", "总部"])
            },
            Fact {
                value: Some(699.0),
                currency: Some(Currency::Usd),
                ..fact("f_gb_price", BOOST, FactKind::Money, &["price", "价格"])
            },
            Fact { value: Some(120.0), ..fact("f_gb_staff", BOOST, FactKind::Number, &["员工", "employees"]) },
        ]
    });
    let facts = pool.prop_flat_map(|pool| {
        let n = pool.len();
        prop::sample::subsequence(pool, 0..=n).prop_shuffle()
    });
    let watch = prop::sample::subsequence(WATCH.to_vec(), 0..=WATCH.len()).prop_shuffle();
    prop_oneof![
        1 => Just(None),
        6 => (facts, watch).prop_map(move |(facts, watch)| Some(FactSnapshot { facts, watch_terms: strings(&watch) })),
    ]
}

const SOURCE_URLS: &[&str] = &[
    "https://a.example/x",
    "http://b.example/y.html",
    "https://c.example/p?q=1;b=2",
    "https://www.yuangouchang.com/cases",
];
const CITED_URLS: &[&str] = &[
    "https://a.example/x",
    "https://a.example/x/",
    "http://b.example/y.html",
    "https://c.example/p?q=1;b=2",
    "https://www.yuangouchang.com/cases",
    "https://e.example/not-a-source",
];

/// One generated case: an engine, a fact sheet and a successful probe's raw result.
#[derive(Debug, Clone)]
struct Case {
    engine: EngineId,
    sheet: Option<FactSnapshot>,
    answer: String,
    sources: Vec<&'static str>,
    citations: Vec<RawCitation>,
}

/// A citation's cited text: a piece of the answer (so that it holds a sentence or is held by
/// one), some pieces of the alphabet, or none.
fn cited_text(answer: &str, from: usize, len: usize, pieces: Vec<String>, pick: u8) -> Option<String> {
    let chars: Vec<char> = answer.chars().collect();
    match pick % 3 {
        0 if !chars.is_empty() => {
            let from = from % chars.len();
            Some(chars[from..(from + len).min(chars.len())].iter().collect())
        }
        1 => Some(pieces.concat()),
        _ => None,
    }
}

fn case() -> impl Strategy<Value = Case> {
    let citation = (
        prop::sample::select(CITED_URLS),
        prop::option::of(1u32..=6),
        (any::<usize>(), 0usize..80, prop::collection::vec(piece(), 0..6), any::<u8>()),
    );
    let sheet_and_answer = sheet().prop_flat_map(|sheet| {
        let values = sheet_values(sheet.as_ref());
        (Just(sheet), answer(values))
    });
    (
        prop::sample::select(EngineId::ALL.to_vec()),
        sheet_and_answer,
        prop::sample::subsequence(SOURCE_URLS.to_vec(), 0..=SOURCE_URLS.len()),
        prop::collection::vec(citation, 0..6),
    )
        .prop_map(|(engine, (sheet, answer), sources, citations)| {
            let citations = citations
                .into_iter()
                .map(|(url, index, (from, len, pieces, pick))| RawCitation {
                    url: url.to_string(),
                    title: None,
                    cited_text: cited_text(&answer, from, len, pieces, pick),
                    index,
                })
                .collect();
            Case { engine, sheet, answer, sources, citations }
        })
}

/// The case's run and its probe, analysed by the engine (`RunAnalyzer::for_run`).
fn analysed(case: &Case) -> (Run, Probe) {
    let mut run = crate::metrics_support::run("run_claims", "2026-11-29T08:00:00.000Z", vec![], None);
    run.alias_snapshot = targets();
    run.fact_snapshot = case.sheet.clone();
    run.config.engine = case.engine;
    let mut p = probe("run_claims", "p", 0, ProbeStatus::Success);
    p.raw_answer = case.answer.clone();
    p.queries = vec![Query { index: 1, query: Some("q".into()), internal: false, error: None }];
    p.raw_sources = case
        .sources
        .iter()
        .enumerate()
        .map(|(i, url)| crate::builders::raw_source(1, i as u32 + 1, &format!("title {i}"), url, None))
        .collect();
    p.raw_citations = Some(case.citations.clone());
    RunAnalyzer::for_run(&run).analyze(&mut p);
    (run, p)
}

proptest! {
    #![proptest_config(crate::config())]

    /// The engine's claims and risk flags equal the oracle's, field for field.
    #[test]
    fn claims_and_risk_flags_follow_the_contract(case in case()) {
        let (run, p) = analysed(&case);
        prop_assert_eq!(
            fold_with_map(&p.answer).0,
            fold(&p.answer),
            "the alphabet folds character by character"
        );
        let want = oracle(&p, &run.alias_snapshot, run.fact_snapshot.as_ref(), run.config.engine);
        prop_assert_eq!(&p.claims, &want.claims, "claims of {:?}", p.answer);
        prop_assert_eq!(&p.risk_flags, &want.risk_flags, "risk flags of {:?}", p.answer);
    }
}

/// The alphabet reaches every rule: over 5,000 generated cases (a fixed seed), the oracle
/// finds each verdict of each fact kind, each risk kind, sources by marker and by cited text,
/// inherited subjects and subjects cut off by a blank line, sentences naming two targets,
/// the 300-character cut, and values with each currency, multiplier and sign.
#[test]
fn the_generator_exercises_every_rule() {
    let mut runner = TestRunner::deterministic();
    let strategy = case();
    let mut seen: std::collections::BTreeMap<String, usize> = Default::default();
    let mut count = |key: String| *seen.entry(key).or_default() += 1;
    for _ in 0..5_000 {
        let case = strategy.new_tree(&mut runner).unwrap().current();
        let (run, p) = analysed(&case);
        let found = oracle(&p, &run.alias_snapshot, run.fact_snapshot.as_ref(), run.config.engine);
        let facts = &run.fact_snapshot.as_ref().map_or(vec![], |s| s.facts.clone());
        for c in &found.claims {
            let kind = facts.iter().find(|f| f.id == c.fact_id).unwrap().kind;
            count(format!("{} {}", kind.as_str(), c.verdict.as_str()));
            if c.sentence.ends_with('…') {
                count("cut at 300".into());
            }
            if !c.source_ids.is_empty() && !o_named(case.engine, &c.sentence).is_empty() {
                count(format!("sources {}", case.engine.as_str()));
            }
            if !c.source_ids.is_empty() && o_named(case.engine, &c.sentence).is_empty() {
                count("sources by cited text".to_string());
            }
            for v in &c.values {
                for mark in [
                    "¥", "￥", "$", "€", "元", "美元", "欧元", "万", "亿", "千", "k", "million", "usd", "rmb", "dollar",
                ] {
                    if v.to_lowercase().contains(mark) {
                        count(format!("value with {mark}"));
                    }
                }
            }
        }
        for f in &found.risk_flags {
            count(format!("flag {}", f.kind.as_str()));
        }
        for (key, n) in [
            ("inherited", found.inherited),
            ("blank line", found.cut_off_by_blank_line),
            ("two targets", found.several_targets),
        ] {
            if n > 0 {
                count(key.to_string());
            }
        }
    }
    let mut expected: Vec<String> = Vec::new();
    for kind in ["year", "number", "money", "text"] {
        for verdict in ["consistent", "contradicts", "unverified"] {
            expected.push(format!("{kind} {verdict}"));
        }
    }
    expected.extend(["flag negative", "flag caution", "flag watch"].map(String::from));
    expected.extend(
        ["sources perplexity", "sources hunyuan", "sources qwen", "sources ernie", "sources by cited text"]
            .map(String::from),
    );
    expected.extend(["inherited", "blank line", "two targets", "cut at 300"].map(String::from));
    for mark in ["¥", "￥", "$", "€", "元", "美元", "欧元", "万", "亿", "千", "k", "million", "usd", "rmb", "dollar"]
    {
        expected.push(format!("value with {mark}"));
    }
    let missing: Vec<&String> = expected.iter().filter(|k| !seen.contains_key(*k)).collect();
    assert!(missing.is_empty(), "the generator never reached {missing:?}; seen {seen:?}");
}

/// The disagreements the property found, each decided by the contract and kept as a case:
/// (answer, the fact sheet's fact, the values the engine must report).
#[test]
fn what_the_oracle_found_stays_fixed() {
    let price = Fact {
        value: Some(4999.0),
        currency: Some(Currency::Cny),
        ..fact("f_price", BRAND, FactKind::Money, &["价格", "price"])
    };
    let staff = Fact { value: Some(120.0), ..fact("f_staff", BRAND, FactKind::Number, &["员工"]) };
    let founded = Fact { value: Some(2015.0), ..fact("f_founded", BRAND, FactKind::Year, &["成立", "founded"]) };
    #[rustfmt::skip]
    let cases: [(&str, &Fact, &[&str]); 10] = [
        // Values as written, not in the matching normal form.
        ("元构场员工２０１５人。", &staff, &["２０１５"]),
        ("Yuangouchang price: 4999 RMB.", &price, &["4999 RMB"]),
        ("元构场的价格是￥4,999。", &price, &["￥4,999"]),
        // Each marker is one space: two markers leave two, and ` million` takes one.
        ("元构场员工5[1][2]million。", &staff, &["5"]),
        // `k` excludes a year only as the multiplier.
        ("Yuangouchang was founded in 2015 known then as Yuangou.", &founded, &["2015"]),
        // What follows a number's currency word or multiplier is not read.
        ("元构场价格99元Pro版。", &price, &["99元"]),
        ("元构场员工5万2人。", &staff, &["5万", "2"]),
        ("元构场员工5k2。", &staff, &["5k"]),
        // A full-width comma ends a number, though NFKC folds it to `,`.
        ("元构场的价格是¥4，999元。", &price, &["¥4", "999元"]),
        ("元构场成立于2015，2016年融资。", &founded, &["2015", "2016"]),
    ];
    for (answer, fact, values) in cases {
        let case = Case {
            engine: EngineId::Deepseek,
            sheet: Some(FactSnapshot { facts: vec![fact.clone()], watch_terms: vec![] }),
            answer: answer.to_string(),
            sources: vec![],
            citations: vec![],
        };
        let (run, p) = analysed(&case);
        let want = oracle(&p, &run.alias_snapshot, run.fact_snapshot.as_ref(), run.config.engine);
        assert_eq!(p.claims, want.claims, "{answer}");
        assert_eq!(p.claims.iter().map(|c| c.values.clone()).collect::<Vec<_>>(), [values.to_vec()], "{answer}");
    }
    // A line break is no punctuation to repeat: `！` on the next line is a sentence of its own.
    let case = Case {
        engine: EngineId::Deepseek,
        sheet: None,
        answer: "元构场不推荐\n！".into(),
        sources: vec![],
        citations: vec![],
    };
    let (run, p) = analysed(&case);
    assert_eq!(p.risk_flags, oracle(&p, &run.alias_snapshot, None, run.config.engine).risk_flags);
    assert_eq!(p.risk_flags.iter().map(|f| (f.sentence.as_str(), f.end)).collect::<Vec<_>>(), [("元构场不推荐", 6)]);
}
