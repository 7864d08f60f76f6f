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
    let groups = build_groups(answer);
    let mut best: Option<(i64, Vec<ListItem>)> = None;
    let mut scratch = String::new();
    for group in groups {
        if group.items.len() < MIN_ITEMS {
            continue;
        }
        let items: Vec<ListItem> = group.items.into_iter().map(|raw| finish_item(raw, matcher, &mut scratch)).collect();
        let score: i64 = items.iter().map(item_score).sum();
        if best.as_ref().is_none_or(|(b, _)| score > *b) {
            best = Some((score, items));
        }
    }
    let Some((_, items)) = best else { return ParsedList::default() };
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
    let s = strip_links(s);
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

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Marker {
    Dot,
    Ideographic,
    Paren,
    FullParen,
    Enclosed,
    FullEnclosed,
}

/// Marker style of a numbered line; `heading` is the heading level, 0 for a plain line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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

fn table_group(header: &[String], rows: &[Vec<String>]) -> Group {
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
            RawItem { position, lines: vec![text], title: Some(clean_title(title_cell)) }
        })
        .collect();
    Group { kind: GroupKind::Table, indent: 0, items }
}

// ---------------------------------------------------------------- grouping

struct RawItem {
    position: u32,
    lines: Vec<String>,
    /// Set for table rows (their title comes from a chosen cell, not the first line).
    title: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum GroupKind {
    Numbered(Style),
    Bullet,
    Table,
}

struct Group {
    kind: GroupKind,
    indent: usize,
    items: Vec<RawItem>,
}

#[derive(Default)]
struct Builder {
    groups: Vec<Group>,
    /// The group receiving lines.
    cur: Option<usize>,
    /// Interrupted numbered groups, most recent last, each with the index in `log` where its
    /// interruption began; one resumes when a line of its style carries its next number.
    suspended: Vec<(usize, usize)>,
    /// Lines seen while some numbered group is suspended (the interrupting content).
    log: Vec<String>,
    /// A blank line (or code block) since the last line given to the current item.
    blank_before: bool,
}

impl Builder {
    fn append(&mut self, line: &str) {
        if let Some(item) = self.cur.and_then(|g| self.groups[g].items.last_mut()) {
            item.lines.push(line.trim().to_string());
        }
        self.blank_before = false;
    }

    fn interrupt(&mut self) {
        if let Some(g) = self.cur.take() {
            if matches!(self.groups[g].kind, GroupKind::Numbered(_)) {
                self.suspended.push((g, self.log.len()));
            }
        }
    }

    fn push_item(&mut self, g: usize, position: u32, content: &str) {
        self.groups[g].items.push(RawItem { position, lines: vec![content.to_string()], title: None });
        self.cur = Some(g);
        self.blank_before = false;
    }

    fn new_group(&mut self, kind: GroupKind, indent: usize, position: u32, content: &str) {
        self.groups.push(Group { kind, indent, items: Vec::new() });
        let g = self.groups.len() - 1;
        self.push_item(g, position, content);
    }

    fn start_numbered(&mut self, n: u32, style: Style, indent: usize, content: &str) {
        self.interrupt();
        let resumes = self.suspended.iter().rposition(|&(r, _)| {
            let group = &self.groups[r];
            let last = group.items.last().map_or(0, |i| i.position);
            group.kind == GroupKind::Numbered(style) && last.checked_add(1) == Some(n)
        });
        if let Some(k) = resumes {
            let (r, from) = self.suspended[k];
            // Groups suspended after `r` were part of its interruption: they cannot resume.
            self.suspended.truncate(k);
            let lines = self.log[from..].to_vec();
            if self.suspended.is_empty() {
                self.log.clear();
            }
            if let Some(item) = self.groups[r].items.last_mut() {
                item.lines.extend(lines);
            }
            self.push_item(r, n, content);
            return;
        }
        self.new_group(GroupKind::Numbered(style), indent, n, content);
    }

    fn numbered(&mut self, line: &str, indent: usize, n: u32, style: Style, content: &str) {
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

    fn bullet(&mut self, line: &str, indent: usize, content: &str) {
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

    fn text(&mut self, line: &str, indent: usize) {
        let Some(g) = self.cur else { return };
        let group = &self.groups[g];
        let heading = matches!(group.kind, GroupKind::Numbered(s) if s.heading > 0);
        if heading || indent >= group.indent + 2 || !self.blank_before {
            self.append(line);
        } else {
            self.interrupt();
        }
    }

    fn heading(&mut self, line: &str, level: u8) {
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

    fn note_pending(&mut self, line: &str) {
        if !self.suspended.is_empty() {
            self.log.push(line.trim().to_string());
        }
    }
}

fn build_groups(answer: &str) -> Vec<Group> {
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
    b.groups
}

// ---------------------------------------------------------------- items and scores

/// Id of the target named first in `text` (earliest hit, ties by snapshot order).
fn first_target(text: &str, matcher: &TargetMatcher, scratch: &mut String) -> Option<String> {
    let first = *matcher.named_targets(text, scratch).first()?;
    Some(matcher.targets()[first].id.clone())
}

fn finish_item(raw: RawItem, matcher: &TargetMatcher, scratch: &mut String) -> ListItem {
    let title = raw.title.unwrap_or_else(|| {
        raw.lines.iter().take(3).map(|l| clean_title(l)).find(|t| !t.is_empty()).unwrap_or_default()
    });
    let text = raw.lines.iter().map(|l| l.trim()).filter(|l| !l.is_empty()).collect::<Vec<_>>().join("\n");
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

fn item_score(item: &ListItem) -> i64 {
    let mut score = 0;
    if item.matched_target_id.is_some() {
        score += SCORE_TARGET;
    }
    if has_company_word(&item.title) {
        score += SCORE_COMPANY_WORD;
    }
    if title_len_ok(&item.title) {
        score += SCORE_TITLE_LENGTH;
    }
    if is_generic(&item.title) {
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

/// `[text](url)` and `[text][ref]` keep their text, `![alt](url)` is dropped; other brackets stay.
fn strip_links(s: &str) -> String {
    let chars: Vec<char> = s.chars().collect();
    let n = chars.len();
    // next_x[i]: index of the first `x` at or after i (n when none); linear, so a line of
    // unmatched brackets stays O(n).
    let mut next_close_square = vec![n; n + 1];
    let mut next_close_paren = vec![n; n + 1];
    for i in (0..n).rev() {
        next_close_square[i] = if chars[i] == ']' { i } else { next_close_square[i + 1] };
        next_close_paren[i] = if chars[i] == ')' { i } else { next_close_paren[i + 1] };
    }
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    while i < n {
        if chars[i] == '[' {
            let j = next_close_square[i + 1];
            if j < n && j + 1 < n {
                let end = match chars[j + 1] {
                    '(' => next_close_paren[j + 1],
                    '[' => next_close_square[j + 1],
                    _ => n,
                };
                if end < n {
                    if out.ends_with('!') {
                        out.pop();
                    } else {
                        out.extend(&chars[i + 1..j]);
                    }
                    i = end + 1;
                    continue;
                }
            }
        }
        out.push(chars[i]);
        i += 1;
    }
    out
}

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
