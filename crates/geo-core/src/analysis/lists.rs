//! `parse_list_items` (seed §5.4): finds the recommendation list in an answer, the list that
//! says "who is recommended, and in which place".
//!
//! Hand-written line scanner, no regex. The answer is read line by line (fenced code blocks
//! opened by ```` ``` ```` or `~~~` are skipped and act as a blank line), every list-looking run
//! of lines becomes a candidate group, each group is scored, and the best group with at
//! least [`MIN_ITEMS`] items wins (ties: the first in the answer).
//!
//! Line shapes, decided here:
//! - numbered: `1.` `1、` `1)` `1）` `(1)` `（1）`, numbers 1..=999. `1.` and `1)` need a space,
//!   `*`, `_` or a non-ASCII character after them, so `3.14` and `v1.2` are not items; `1.元构场`
//!   is. The number may be bold: `**1. 公司名**`, `**1.** 公司名`, and the title too: `1. **公司名**`.
//! - numbered headings: `### 1. 公司名` is a numbered item; the item's text runs until the next
//!   heading of the same or a higher level, so bullets and paragraphs under it are its body.
//!   Unnumbered headings are never items.
//! - bullets: `-` `*` `+` followed by a space, and `•` `·` `●` `▪` (space optional). A line of
//!   three or more `-`, `*` or `_` is a thematic break, not a bullet.
//! - Markdown tables: a row with `|`, a separator row (`|---|:--:|`), then at least two data
//!   rows. The title comes from the column whose header names a company/name/brand, else the
//!   first column whose cells are mostly non-numeric; the position from a rank column (header
//!   like 排名/序号/Rank/#, or a column whose every cell is a rank number) else row order.
//! - not supported: Chinese numerals (`一、`), letters (`a.`), emoji digits, block quotes,
//!   Markdown's all-`1.` auto-numbering (each `1.` restarts), and unnumbered bold lines used
//!   as item headers (`**元构场**` on its own line).
//!
//! Grouping: items of one group share the marker style (`1.` vs `1、` vs heading level) and
//! indentation; blank lines between items are allowed. Lines indented at least two columns
//! deeper than the item, nested bullets, and lines that follow an item without a blank line
//! belong to the current item's text. Inside one run of lines numbers must increase; a
//! restart (`1.` after `3.`) starts a new group. A numbered list interrupted by a paragraph,
//! a table, an unnumbered heading or another list is resumed when a later line of the same
//! style carries the next number (n+1); when several interrupted lists fit, the most recent
//! wins, and the interrupting lines are appended to the text of item n (they describe it).
//!
//! Scoring per item: +5 when a target matches (title, else the first [`MATCH_PREFIX_CHARS`]
//! characters of the text), +2 for a company-like word in the title, +1 for a title of 2–40
//! characters, −5 for a generic title (总结, 建议, Tips, Pros…). There is no minimum score: the
//! seed picks the best group with at least two items; a list of generic titles matches no
//! target and yields no `otherEntities`, so it cannot fake a list position.

use std::collections::HashMap;

use crate::analysis::mentions::TargetMatcher;
use crate::model::{ListItem, Mention, Target};
use crate::text::normalize_for_match;

/// A list needs at least this many items to count as a recommendation list.
pub const MIN_ITEMS: usize = 2;
/// Cleaned titles are cut to this many characters.
pub const MAX_TITLE_CHARS: usize = 80;
/// Characters of an item's text (after its title) searched for a target.
pub const MATCH_PREFIX_CHARS: usize = 160;
/// At most this many `otherEntities` are kept.
pub const MAX_OTHER_ENTITIES: usize = 20;

/// Score of an item that names a tracked target.
pub const SCORE_TARGET: i64 = 5;
/// Score of a title with a company-like word.
pub const SCORE_COMPANY_WORD: i64 = 2;
/// Score of a title of 2–40 characters.
pub const SCORE_TITLE_LENGTH: i64 = 1;
/// Score of a generic title such as 总结 or Tips (a penalty).
pub const SCORE_GENERIC: i64 = -5;

/// Company-like words in Chinese (substring match).
#[rustfmt::skip]
pub const COMPANY_WORDS_ZH: &[&str] = &[
    "公司", "科技", "营销", "集团", "股份", "有限", "技术", "网络", "信息", "传媒", "广告", "咨询", "数字", "智能", "软件",
    "工作室", "实验室", "机构", "平台", "品牌", "互联网",
];

/// Company-like words in English (whole ASCII words, case-insensitive).
#[rustfmt::skip]
pub const COMPANY_WORDS_EN: &[&str] = &[
    "inc", "ltd", "llc", "co", "corp", "corporation", "company", "gmbh", "plc", "group", "geo", "ai", "seo",
    "technologies", "technology", "tech", "labs", "lab", "software", "agency", "media", "digital", "marketing",
    "studio", "solutions", "systems", "cloud", "io", "com", "analytics", "ventures", "partners", "holdings",
];

/// Generic section titles in Chinese: a title equal to one, or of at most
/// [`GENERIC_ZH_MAX_CHARS`] characters starting or ending with one, is generic.
#[rustfmt::skip]
pub const GENERIC_WORDS_ZH: &[&str] = &[
    "总结", "小结", "建议", "结论", "来源", "参考", "优势", "劣势", "优点", "缺点", "注意事项", "注意", "提示", "说明",
    "备注", "概述", "简介", "背景", "特点", "亮点", "价格", "费用", "收费", "案例", "步骤", "方法", "原因", "理由",
    "风险", "局限", "其他", "选择", "对比", "评价", "总评", "适用", "适合", "联系方式", "官网", "地址", "问题", "方案",
    "要点", "综上",
];

/// Longest Chinese title that can be generic by prefix or suffix (e.g. 选择建议, 核心优势).
pub const GENERIC_ZH_MAX_CHARS: usize = 6;

/// Generic words in English: a title of at most four words containing one is generic.
#[rustfmt::skip]
pub const GENERIC_WORDS_EN: &[&str] = &[
    "summary", "conclusion", "conclusions", "tip", "tips", "pros", "cons", "note", "notes", "source", "sources",
    "reference", "references", "advantages", "disadvantages", "benefits", "drawbacks", "overview", "introduction",
    "recommendation", "recommendations", "considerations", "pricing", "price", "cost", "features", "strengths",
    "weaknesses", "limitations", "caveats", "verdict", "takeaways", "faq", "steps", "step", "why", "how",
    "example", "examples", "background", "criteria", "comparison", "thoughts", "tldr",
];

/// Table headers that name the rank column (ASCII: whole header; Chinese: contained).
#[rustfmt::skip]
const RANK_HEADERS_EN: &[&str] = &["rank", "ranking", "no", "no.", "#", "position", "pos", "top", "place"];
const RANK_HEADERS_ZH: &[&str] = &["排名", "名次", "排序", "序号", "编号", "顺序", "位次", "序"];
/// Table headers that name the name/company column.
#[rustfmt::skip]
const NAME_HEADERS_EN: &[&str] = &[
    "company", "name", "brand", "vendor", "tool", "product", "provider", "agency", "platform", "service", "firm",
    "organization", "organisation",
];
#[rustfmt::skip]
const NAME_HEADERS_ZH: &[&str] =
    &["公司", "名称", "品牌", "机构", "服务商", "企业", "厂商", "供应商", "平台", "工具", "产品", "代理商", "名字"];

/// The recommendation list of one answer.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ParsedList {
    /// Items of the winning group, in answer order (empty when no group has two items).
    pub items: Vec<ListItem>,
    /// Titles of unmatched items that look like a company or product name, deduplicated, at
    /// most [`MAX_OTHER_ENTITIES`].
    pub other_entities: Vec<String>,
}

/// Parses the recommendation list of `answer` (seed §5.4, steps 1–7 and 9).
///
/// `matchedTargetId` is the target named first in the title (earliest hit, ties by snapshot
/// order), else the first named in the first [`MATCH_PREFIX_CHARS`] characters of the text.
/// Step 8 (list positions on mentions) is [`apply_list_positions`].
pub fn parse_list_items(answer: &str, targets: &[Target]) -> ParsedList {
    parse_list_items_with(answer, &TargetMatcher::new(targets))
}

/// [`parse_list_items`] with a prepared matcher.
pub(crate) fn parse_list_items_with(answer: &str, matcher: &TargetMatcher) -> ParsedList {
    let Builder { groups, log, .. } = build_groups(answer);
    let mut best: Option<(i64, usize)> = None;
    let mut scratch = String::new();
    // Losing groups are scored from their titles and text prefixes only: a line logged while
    // lists were interrupted can sit in many groups' texts, so joining every group's whole
    // text would be quadratic on a hostile answer.
    for (g, group) in groups.iter().enumerate() {
        if group.items.len() < MIN_ITEMS {
            continue;
        }
        let score: i64 = group
            .items
            .iter()
            .map(|raw| {
                let title = raw.title(&log);
                let text = raw.text(&log, Some(MATCH_PREFIX_CHARS));
                let matched = first_target(&title, matcher, &mut scratch)
                    .or_else(|| first_target(prefix(&text, MATCH_PREFIX_CHARS), matcher, &mut scratch));
                item_score(&title, matched.is_some())
            })
            .sum();
        if best.is_none_or(|(b, _)| score > b) {
            best = Some((score, g));
        }
    }
    let Some((_, g)) = best else { return ParsedList::default() };
    let items: Vec<ListItem> =
        groups[g].items.iter().map(|raw| finish_item(raw, &log, matcher, &mut scratch)).collect();
    let other_entities = other_entities(&items);
    ParsedList { items, other_entities }
}

/// Sets `Mention::list_position` from the parsed list (seed §5.4 step 8).
///
/// Every `list_position` is first cleared, then for each item every target named in its
/// title or in the first [`MATCH_PREFIX_CHARS`] characters of its text gets the item's
/// position. When a target is on several items the lowest position wins (it is the place
/// where the list first recommends it). A matched target with no mention is skipped: it
/// cannot happen for a list parsed from the same answer, but other inputs must not panic.
pub fn apply_list_positions(mentions: &mut [Mention], items: &[ListItem], targets: &[Target]) {
    apply_list_positions_with(mentions, items, &TargetMatcher::new(targets));
}

/// [`apply_list_positions`] with a prepared matcher.
pub(crate) fn apply_list_positions_with(mentions: &mut [Mention], items: &[ListItem], matcher: &TargetMatcher) {
    for m in mentions.iter_mut() {
        m.list_position = None;
    }
    let targets = matcher.targets();
    let mut scratch = String::new();
    for item in items {
        let mut ids: Vec<&str> =
            matcher.named_targets(&item.title, &mut scratch).into_iter().map(|i| targets[i].id.as_str()).collect();
        for i in matcher.named_targets(prefix(&item.text, MATCH_PREFIX_CHARS), &mut scratch) {
            let id = targets[i].id.as_str();
            if !ids.contains(&id) {
                ids.push(id);
            }
        }
        for id in ids {
            if let Some(m) = mentions.iter_mut().find(|m| m.target_id == id) {
                m.list_position = Some(m.list_position.map_or(item.position, |p| p.min(item.position)));
            }
        }
    }
}

/// Cleans a list title: strips Markdown (bold, italics, strike-through, inline code, heading
/// marks; links keep their text, images are dropped), drops a leading bracketed tag such as 【推荐】,
/// cuts at the first colon (`:` `：`, but not `://`), dash separator (` - ` ` — ` `——` ` – `) or
/// opening bracket (`(` `（` `[` `【`), trims (with a trailing `,` `，` `、` `;` `；`), and keeps at most [`MAX_TITLE_CHARS`] characters.
pub fn clean_title(raw: &str) -> String {
    let mut s = raw.trim();
    let hashes = s.len() - s.trim_start_matches('#').len();
    if (1..=6).contains(&hashes) && s[hashes..].starts_with(char::is_whitespace) {
        s = s[hashes..].trim_start();
    }
    let s = crate::text::markdown::strip_links(s);
    let s: String = s.chars().filter(|&c| c != '`' && c != '*').collect();
    let s = strip_underscores(&s.replace("__", "").replace("~~", ""));
    let s = drop_leading_bracket(s.trim());
    let cut = cut_at_separator(s);
    let cut = if cut.trim().is_empty() { s } else { cut };
    // A final 。 stays: it marks a sentence, which `otherEntities` must not take for a name.
    let t = cut.trim().trim_end_matches([',', '，', '、', ';', '；']).trim_end();
    let t: String = t.chars().take(MAX_TITLE_CHARS).collect();
    t.trim_end().to_string()
}

/// The first `chars` characters of `s`.
fn prefix(s: &str, chars: usize) -> &str {
    s.char_indices().nth(chars).map_or(s, |(end, _)| &s[..end])
}

// ---------------------------------------------------------------- line shapes

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Marker {
    Dot,
    Ideographic,
    Paren,
    FullParen,
    Enclosed,
    FullEnclosed,
}

/// Marker style of a numbered line; `heading` is the heading level, 0 for a plain line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct Style {
    marker: Marker,
    heading: u8,
}

#[derive(Debug)]
enum Kind<'a> {
    Blank,
    Break,
    Heading(u8),
    Numbered { n: u32, style: Style, content: &'a str },
    Bullet(&'a str),
    Text,
}

fn indent_of(line: &str) -> usize {
    let mut width = 0;
    for b in line.bytes() {
        match b {
            b' ' => width += 1,
            b'\t' => width += 4,
            _ => break,
        }
    }
    width
}

fn classify(line: &str) -> Kind<'_> {
    let s = line.trim();
    if s.is_empty() {
        return Kind::Blank;
    }
    if is_thematic_break(s) {
        return Kind::Break;
    }
    let hashes = s.len() - s.trim_start_matches('#').len();
    if hashes > 0 {
        let rest = &s[hashes..];
        if hashes <= 6 && (rest.is_empty() || rest.starts_with(char::is_whitespace)) {
            let rest = rest.trim_start();
            if let Some((n, marker, content)) = parse_numbered(rest) {
                return Kind::Numbered { n, style: Style { marker, heading: hashes as u8 }, content };
            }
            return Kind::Heading(hashes as u8);
        }
        return Kind::Text;
    }
    if let Some((n, marker, content)) = parse_numbered(s) {
        return Kind::Numbered { n, style: Style { marker, heading: 0 }, content };
    }
    if let Some(content) = parse_bullet(s) {
        return Kind::Bullet(content);
    }
    Kind::Text
}

fn is_thematic_break(s: &str) -> bool {
    let mut mark = None;
    let mut count = 0;
    for c in s.chars() {
        match c {
            '-' | '*' | '_' => {
                if mark.is_some_and(|m| m != c) {
                    return false;
                }
                mark = Some(c);
                count += 1;
            }
            ' ' | '\t' => {}
            _ => return false,
        }
    }
    count >= 3
}

/// `1.` `1、` `1)` `1）` `(1)` `（1）`, optionally wrapped in `**`/`__`; returns the content.
fn parse_numbered(s: &str) -> Option<(u32, Marker, &str)> {
    let mut rest = s;
    let mut bold = false;
    for b in ["**", "__"] {
        if let Some(r) = rest.strip_prefix(b) {
            rest = r;
            bold = true;
            break;
        }
    }
    let mut enclosed = None;
    if let Some(r) = rest.strip_prefix('(') {
        rest = r;
        enclosed = Some(Marker::Enclosed);
    } else if let Some(r) = rest.strip_prefix('（') {
        rest = r;
        enclosed = Some(Marker::FullEnclosed);
    }
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 || digits > 3 {
        return None;
    }
    let n: u32 = rest[..digits].parse().ok()?;
    if n == 0 {
        return None;
    }
    rest = &rest[digits..];
    let marker = if let Some(m) = enclosed {
        rest = rest.strip_prefix(')').or_else(|| rest.strip_prefix('）'))?;
        m
    } else {
        let c = rest.chars().next()?;
        let m = match c {
            '.' => Marker::Dot,
            '、' => Marker::Ideographic,
            ')' => Marker::Paren,
            '）' => Marker::FullParen,
            _ => return None,
        };
        rest = &rest[c.len_utf8()..];
        if matches!(m, Marker::Dot | Marker::Paren) {
            match rest.chars().next() {
                None => {}
                Some(c) if c.is_whitespace() || c == '*' || c == '_' || !c.is_ascii() => {}
                Some(_) => return None,
            }
        }
        m
    };
    if bold {
        if let Some(r) = rest.strip_prefix("**").or_else(|| rest.strip_prefix("__")) {
            rest = r;
        }
    }
    Some((n, marker, rest.trim()))
}

fn parse_bullet(s: &str) -> Option<&str> {
    let c = s.chars().next()?;
    let rest = &s[c.len_utf8()..];
    match c {
        '-' | '*' | '+' if rest.starts_with(char::is_whitespace) => Some(rest.trim()),
        '•' | '·' | '●' | '▪' => Some(rest.trim()),
        _ => None,
    }
}

fn fence_marker(s: &str) -> Option<(char, usize)> {
    let t = s.trim_start();
    let c = t.chars().next()?;
    if c != '`' && c != '~' {
        return None;
    }
    let n = t.chars().take_while(|&x| x == c).count();
    (n >= 3).then_some((c, n))
}

// ---------------------------------------------------------------- tables

fn is_table_separator(s: &str) -> bool {
    let t = s.trim();
    if !t.contains('|') || !t.contains('-') {
        return false;
    }
    let t = t.strip_prefix('|').unwrap_or(t);
    let t = t.strip_suffix('|').unwrap_or(t);
    t.split('|').all(|cell| {
        let c = cell.trim();
        let inner = c.strip_prefix(':').unwrap_or(c);
        let inner = inner.strip_suffix(':').unwrap_or(inner);
        !inner.is_empty() && inner.chars().all(|ch| ch == '-')
    })
}

fn split_row(s: &str) -> Vec<String> {
    let t = s.trim();
    let t = t.strip_prefix('|').unwrap_or(t);
    let t = t.strip_suffix('|').filter(|r| !r.ends_with('\\')).unwrap_or(t);
    let mut cells = Vec::new();
    let mut cur = String::new();
    let mut escaped = false;
    for c in t.chars() {
        if escaped {
            cur.push(c);
            escaped = false;
        } else if c == '\\' {
            escaped = true;
        } else if c == '|' {
            cells.push(cur.trim().to_string());
            cur.clear();
        } else {
            cur.push(c);
        }
    }
    cells.push(cur.trim().to_string());
    cells
}

/// A rank number written in a cell: `1`, `#1`, `No.1`, `Top 1`, `第1名`, `1.`.
fn parse_rank(cell: &str) -> Option<u32> {
    let c: String = cell.chars().filter(|&c| c != '*' && c != '`').collect();
    let lower = c.trim().to_lowercase();
    let mut s = lower.as_str();
    for p in ["#", "no.", "no", "top", "第"] {
        if let Some(r) = s.strip_prefix(p) {
            s = r.trim_start();
            break;
        }
    }
    for p in ["名", "位", "."] {
        if let Some(r) = s.strip_suffix(p) {
            s = r.trim_end();
            break;
        }
    }
    if s.is_empty() || s.len() > 3 || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok().filter(|&n| n > 0)
}

fn is_numeric_cell(cell: &str) -> bool {
    parse_rank(cell).is_some() || !cell.chars().any(char::is_alphabetic)
}

fn header_is(header: &str, en: &[&str], zh: &[&str]) -> bool {
    let h = clean_title(header).to_lowercase();
    let h = h.trim();
    en.contains(&h) || en.contains(&h.trim_end_matches('.')) || zh.iter().any(|w| h.contains(w))
}

fn cell(row: &[String], col: usize) -> &str {
    row.get(col).map(String::as_str).unwrap_or("")
}

fn table_group<'a>(header: &[String], rows: &[Vec<String>]) -> Group<'a> {
    let width = rows.iter().map(Vec::len).chain([header.len()]).max().unwrap_or(0);
    let rank_col = (0..header.len())
        .find(|&c| header_is(&header[c], RANK_HEADERS_EN, RANK_HEADERS_ZH))
        .or_else(|| (0..width).find(|&c| rows.iter().all(|r| parse_rank(cell(r, c)).is_some())));
    let name_col = (0..header.len())
        .filter(|&c| Some(c) != rank_col)
        .find(|&c| header_is(&header[c], NAME_HEADERS_EN, NAME_HEADERS_ZH))
        .or_else(|| {
            (0..width).filter(|&c| Some(c) != rank_col).find(|&c| {
                let named = rows.iter().filter(|r| !is_numeric_cell(cell(r, c))).count();
                named * 2 > rows.len()
            })
        });
    let items = rows
        .iter()
        .enumerate()
        .map(|(i, row)| {
            let from_name = name_col.map(|c| cell(row, c)).filter(|v| !is_numeric_cell(v));
            let title_cell =
                from_name.or_else(|| row.iter().map(String::as_str).find(|v| !is_numeric_cell(v))).unwrap_or("");
            let position = rank_col.and_then(|c| parse_rank(cell(row, c))).unwrap_or(i as u32 + 1);
            let text = row.iter().map(String::as_str).filter(|c| !c.is_empty()).collect::<Vec<_>>().join(" | ");
            RawItem { position, pieces: vec![Piece::Owned(text)], title: Some(clean_title(title_cell)) }
        })
        .collect();
    Group { kind: GroupKind::Table, indent: 0, items }
}

// ---------------------------------------------------------------- grouping

/// A line of an item's text, or the lines logged while its list was interrupted.
enum Piece<'a> {
    /// A line of the answer (trimmed).
    Line(&'a str),
    /// A table row's cells joined.
    Owned(String),
    /// `Builder::log[from..to]`, shared rather than copied: the same logged lines may belong
    /// to several resumed lists.
    Log(usize, usize),
}

struct RawItem<'a> {
    position: u32,
    pieces: Vec<Piece<'a>>,
    /// Set for table rows (their title comes from a chosen cell, not the first line).
    title: Option<String>,
}

impl<'a> RawItem<'a> {
    /// The item's lines in order.
    fn lines<'s>(&'s self, log: &'s [&'a str]) -> impl Iterator<Item = &'s str> + use<'a, 's> {
        self.pieces.iter().flat_map(move |p| {
            let (one, many): (Option<&str>, &[&'a str]) = match p {
                Piece::Line(l) => (Some(l), &[]),
                Piece::Owned(s) => (Some(s.as_str()), &[]),
                Piece::Log(from, to) => (None, &log[*from..*to]),
            };
            one.into_iter().chain(many.iter().copied())
        })
    }

    /// The table cell's title, else the first non-empty cleaned title of the first three lines.
    fn title(&self, log: &[&'a str]) -> String {
        self.title
            .clone()
            .unwrap_or_else(|| self.lines(log).take(3).map(clean_title).find(|t| !t.is_empty()).unwrap_or_default())
    }

    /// The non-empty lines joined by `\n`; with `limit`, stops once `limit` characters are in.
    fn text(&self, log: &[&'a str], limit: Option<usize>) -> String {
        let mut text = String::new();
        let mut chars = 0;
        for line in self.lines(log).map(str::trim).filter(|l| !l.is_empty()) {
            if limit.is_some_and(|l| chars >= l) {
                break;
            }
            if !text.is_empty() {
                text.push('\n');
                chars += 1;
            }
            text.push_str(line);
            if limit.is_some() {
                chars += line.chars().count();
            }
        }
        text
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum GroupKind {
    Numbered(Style),
    Bullet,
    Table,
}

struct Group<'a> {
    kind: GroupKind,
    indent: usize,
    items: Vec<RawItem<'a>>,
}

/// An interrupted numbered group.
#[derive(Clone, Copy)]
struct Suspended {
    group: usize,
    /// Index in `Builder::log` where its interruption began.
    from: usize,
    /// Increases with every suspension: `Builder::suspended` is sorted by it.
    seq: u64,
}

#[derive(Default)]
struct Builder<'a> {
    groups: Vec<Group<'a>>,
    /// The group receiving lines.
    cur: Option<usize>,
    /// Interrupted numbered groups, most recent last; one resumes when a line of its style
    /// carries its next number.
    suspended: Vec<Suspended>,
    /// `seq`s of suspensions by (style, next number), oldest first; entries no longer in
    /// `suspended` are dropped lazily, so finding the group a line resumes is amortised O(1)
    /// instead of a scan of every suspended group per line.
    resumable: HashMap<(Style, u32), Vec<u64>>,
    next_seq: u64,
    /// Lines seen while some numbered group is suspended (the interrupting content).
    log: Vec<&'a str>,
    /// A blank line (or code block) since the last line given to the current item.
    blank_before: bool,
}

impl<'a> Builder<'a> {
    fn append(&mut self, line: &'a str) {
        if let Some(item) = self.cur.and_then(|g| self.groups[g].items.last_mut()) {
            item.pieces.push(Piece::Line(line.trim()));
        }
        self.blank_before = false;
    }

    fn interrupt(&mut self) {
        if let Some(g) = self.cur.take() {
            if let GroupKind::Numbered(style) = self.groups[g].kind {
                let last = self.groups[g].items.last().map_or(0, |i| i.position);
                let seq = self.next_seq;
                self.next_seq += 1;
                if let Some(next) = last.checked_add(1) {
                    self.resumable.entry((style, next)).or_default().push(seq);
                }
                self.suspended.push(Suspended { group: g, from: self.log.len(), seq });
            }
        }
    }

    /// Index in `suspended` of the most recent group of `style` whose next number is `n`.
    fn resumable_index(&mut self, style: Style, n: u32) -> Option<usize> {
        let seqs = self.resumable.get_mut(&(style, n))?;
        while let Some(&seq) = seqs.last() {
            if let Ok(k) = self.suspended.binary_search_by_key(&seq, |s| s.seq) {
                return Some(k);
            }
            seqs.pop();
        }
        None
    }

    fn push_item(&mut self, g: usize, position: u32, content: &'a str) {
        self.groups[g].items.push(RawItem { position, pieces: vec![Piece::Line(content)], title: None });
        self.cur = Some(g);
        self.blank_before = false;
    }

    fn new_group(&mut self, kind: GroupKind, indent: usize, position: u32, content: &'a str) {
        self.groups.push(Group { kind, indent, items: Vec::new() });
        let g = self.groups.len() - 1;
        self.push_item(g, position, content);
    }

    fn start_numbered(&mut self, n: u32, style: Style, indent: usize, content: &'a str) {
        self.interrupt();
        if let Some(k) = self.resumable_index(style, n) {
            let Suspended { group, from, .. } = self.suspended[k];
            // Groups suspended after `group` were part of its interruption: they cannot resume.
            self.suspended.truncate(k);
            let to = self.log.len();
            if let Some(item) = self.groups[group].items.last_mut() {
                item.pieces.push(Piece::Log(from, to));
            }
            self.push_item(group, n, content);
            return;
        }
        self.new_group(GroupKind::Numbered(style), indent, n, content);
    }

    fn numbered(&mut self, line: &'a str, indent: usize, n: u32, style: Style, content: &'a str) {
        let Some(g) = self.cur else { return self.start_numbered(n, style, indent, content) };
        let group = &self.groups[g];
        let base = group.indent;
        let last = group.items.last().map_or(0, |i| i.position);
        match group.kind {
            GroupKind::Numbered(gs) if gs.heading > 0 => {
                if style.heading == gs.heading && n > last {
                    self.push_item(g, n, content);
                } else if style.heading == 0 || style.heading > gs.heading {
                    self.append(line);
                } else {
                    self.start_numbered(n, style, indent, content);
                }
            }
            GroupKind::Numbered(gs) => {
                let sibling = style == gs && indent < base + 2;
                if sibling && n > last {
                    self.push_item(g, n, content);
                } else if !sibling && style.heading == 0 && (indent >= base + 2 || !self.blank_before) {
                    self.append(line);
                } else {
                    self.start_numbered(n, style, indent, content);
                }
            }
            GroupKind::Bullet if style.heading == 0 && indent >= base + 2 => self.append(line),
            _ => self.start_numbered(n, style, indent, content),
        }
    }

    fn bullet(&mut self, line: &'a str, indent: usize, content: &'a str) {
        if let Some(g) = self.cur {
            let group = &self.groups[g];
            let base = group.indent;
            match group.kind {
                GroupKind::Numbered(gs) if gs.heading > 0 || indent >= base + 2 || !self.blank_before => {
                    return self.append(line);
                }
                GroupKind::Bullet if indent >= base + 2 => return self.append(line),
                GroupKind::Bullet if indent + 2 > base => {
                    let position = self.groups[g].items.len() as u32 + 1;
                    return self.push_item(g, position, content);
                }
                _ => {}
            }
        }
        self.interrupt();
        self.new_group(GroupKind::Bullet, indent, 1, content);
    }

    fn text(&mut self, line: &'a str, indent: usize) {
        let Some(g) = self.cur else { return };
        let group = &self.groups[g];
        let heading = matches!(group.kind, GroupKind::Numbered(s) if s.heading > 0);
        if heading || indent >= group.indent + 2 || !self.blank_before {
            self.append(line);
        } else {
            self.interrupt();
        }
    }

    fn heading(&mut self, line: &'a str, level: u8) {
        match self.cur.map(|g| self.groups[g].kind) {
            Some(GroupKind::Numbered(s)) if s.heading > 0 && level > s.heading => self.append(line),
            _ => self.interrupt(),
        }
    }

    fn thematic_break(&mut self) {
        match self.cur.map(|g| self.groups[g].kind) {
            Some(GroupKind::Numbered(s)) if s.heading > 0 => self.blank_before = true,
            _ => self.interrupt(),
        }
    }

    fn note_pending(&mut self, line: &'a str) {
        if !self.suspended.is_empty() {
            self.log.push(line.trim());
        }
    }
}

fn build_groups(answer: &str) -> Builder<'_> {
    let lines: Vec<&str> = answer.lines().collect();
    let mut b = Builder::default();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        if let Some((fc, fn_)) = fence_marker(line) {
            i += 1;
            while i < lines.len() {
                let closes = fence_marker(lines[i])
                    .is_some_and(|(c, n)| c == fc && n >= fn_ && lines[i].trim().chars().all(|x| x == c));
                i += 1;
                if closes {
                    break;
                }
            }
            b.blank_before = true;
            continue;
        }
        if line.contains('|') && lines.get(i + 1).is_some_and(|l| is_table_separator(l)) {
            let header = split_row(line);
            let mut rows = Vec::new();
            let mut j = i + 2;
            while j < lines.len()
                && lines[j].contains('|')
                && !lines[j].trim().is_empty()
                && fence_marker(lines[j]).is_none()
            {
                rows.push(split_row(lines[j]));
                j += 1;
            }
            b.interrupt();
            for l in &lines[i..j] {
                b.note_pending(l);
            }
            b.groups.push(table_group(&header, &rows));
            b.blank_before = false;
            i = j;
            continue;
        }
        let indent = indent_of(line);
        let kind = classify(line);
        let content_line = !matches!(kind, Kind::Blank | Kind::Break);
        match kind {
            Kind::Blank => b.blank_before = true,
            Kind::Break => b.thematic_break(),
            Kind::Heading(level) => b.heading(line, level),
            Kind::Numbered { n, style, content } => b.numbered(line, indent, n, style, content),
            Kind::Bullet(content) => b.bullet(line, indent, content),
            Kind::Text => b.text(line, indent),
        }
        if content_line {
            b.note_pending(line);
        }
        i += 1;
    }
    b
}

// ---------------------------------------------------------------- items and scores

/// Id of the target named first in `text` (earliest hit, ties by snapshot order).
fn first_target(text: &str, matcher: &TargetMatcher, scratch: &mut String) -> Option<String> {
    let first = *matcher.named_targets(text, scratch).first()?;
    Some(matcher.targets()[first].id.clone())
}

fn finish_item(raw: &RawItem, log: &[&str], matcher: &TargetMatcher, scratch: &mut String) -> ListItem {
    let title = raw.title(log);
    let text = raw.text(log, None);
    let matched_target_id = first_target(&title, matcher, scratch)
        .or_else(|| first_target(prefix(&text, MATCH_PREFIX_CHARS), matcher, scratch));
    ListItem { position: raw.position, title, text, matched_target_id }
}

fn ascii_words(lower: &str) -> Vec<&str> {
    lower.split(|c: char| !c.is_ascii_alphanumeric()).filter(|w| !w.is_empty()).collect()
}

fn has_company_word(title: &str) -> bool {
    let lower = title.to_lowercase();
    COMPANY_WORDS_ZH.iter().any(|w| lower.contains(w))
        || ascii_words(&lower).iter().any(|w| COMPANY_WORDS_EN.contains(w))
}

fn is_generic(title: &str) -> bool {
    let lower = title.to_lowercase();
    let t = lower.trim().trim_end_matches(|c: char| c.is_ascii_punctuation() || "：，。！？；、".contains(c));
    let len = t.chars().count();
    let zh = GENERIC_WORDS_ZH
        .iter()
        .any(|w| t == *w || (len <= GENERIC_ZH_MAX_CHARS && (t.starts_with(w) || t.ends_with(w))));
    let words = t.split_whitespace().count();
    let en = words <= 4 && ascii_words(t).iter().any(|w| GENERIC_WORDS_EN.contains(w));
    zh || en || t.starts_with("bottom line") || t.starts_with("final thoughts")
}

fn title_len_ok(title: &str) -> bool {
    (2..=40).contains(&title.chars().count())
}

fn item_score(title: &str, matched: bool) -> i64 {
    let mut score = 0;
    if matched {
        score += SCORE_TARGET;
    }
    if has_company_word(title) {
        score += SCORE_COMPANY_WORD;
    }
    if title_len_ok(title) {
        score += SCORE_TITLE_LENGTH;
    }
    if is_generic(title) {
        score += SCORE_GENERIC;
    }
    score
}

/// A sentence rather than a name: sentence punctuation, a long run of words, or a final
/// full stop after more than four words (`Acme Inc.` stays a name).
fn is_sentence(title: &str) -> bool {
    let words = title.split_whitespace().count();
    title.contains(['。', '！', '？', '!', '?', '；', ';', '…', '，'])
        || words > 6
        || (words > 4 && title.ends_with('.'))
}

fn looks_like_entity(title: &str) -> bool {
    title_len_ok(title) && title.chars().any(char::is_alphabetic) && !is_generic(title) && !is_sentence(title)
}

/// Company-like titles of unmatched items, but only from a list that is about entities:
/// one where at least one item names a tracked target or carries a company word. A list of
/// metrics or steps ("提及率", "内容优化") is a parsed list, yet its titles are no candidates
/// for new competitors.
fn other_entities(items: &[ListItem]) -> Vec<String> {
    let about_entities = items.iter().any(|i| i.matched_target_id.is_some() || has_company_word(&i.title));
    if !about_entities {
        return Vec::new();
    }
    let mut out: Vec<String> = Vec::new();
    let mut seen: Vec<String> = Vec::new();
    for item in items {
        if out.len() >= MAX_OTHER_ENTITIES {
            break;
        }
        if item.matched_target_id.is_some() || !looks_like_entity(&item.title) {
            continue;
        }
        let key = normalize_for_match(&item.title);
        if !seen.contains(&key) {
            seen.push(key);
            out.push(item.title.clone());
        }
    }
    out
}

// ---------------------------------------------------------------- title cleaning

/// Drops `_` used as emphasis (next to a space or an end) and keeps `snake_case`.
fn strip_underscores(s: &str) -> String {
    let chars: Vec<char> = s.chars().collect();
    let mut out = String::with_capacity(s.len());
    for (i, &c) in chars.iter().enumerate() {
        if c == '_' {
            let before = i.checked_sub(1).map(|p| chars[p]);
            let after = chars.get(i + 1).copied();
            if before.is_none_or(char::is_whitespace) || after.is_none_or(char::is_whitespace) {
                continue;
            }
        }
        out.push(c);
    }
    out
}

const OPEN_BRACKETS: [char; 4] = ['(', '（', '[', '【'];
const CLOSE_BRACKETS: [char; 4] = [')', '）', ']', '】'];

/// `【推荐】元构场` → `元构场`; a title that is only a bracket keeps its content.
fn drop_leading_bracket(s: &str) -> &str {
    let Some(first) = s.chars().next() else { return s };
    if !OPEN_BRACKETS.contains(&first) {
        return s;
    }
    let inner = &s[first.len_utf8()..];
    let Some(close) = inner.find(CLOSE_BRACKETS) else { return s };
    let after = inner[close..].chars().next().map_or(0, char::len_utf8);
    let rest = inner[close + after..].trim();
    if rest.is_empty() {
        inner[..close].trim()
    } else {
        rest
    }
}

const SEPARATORS: &[&str] = &["：", " - ", " — ", "——", " – ", "(", "（", "[", "【"];

fn cut_at_separator(s: &str) -> &str {
    for (i, c) in s.char_indices() {
        let rest = &s[i..];
        if (c == ':' && !rest.starts_with("://")) || SEPARATORS.iter().any(|sep| rest.starts_with(sep)) {
            return &s[..i];
        }
    }
    s
}
