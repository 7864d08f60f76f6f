//! Markdown tables as lists: a header row, a separator row, data rows; the title from the
//! column whose header names a company (else the first mostly non-numeric one), the position
//! from a rank column (else row order).

use super::title::clean_title;

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

pub(super) fn is_table_separator(s: &str) -> bool {
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

pub(super) fn split_row(s: &str) -> Vec<String> {
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

/// One data row of a table list.
pub(super) struct TableRow {
    /// From the rank column, else the row's place (1-based).
    pub(super) position: u32,
    /// The cleaned title from the name column, else the first non-numeric cell.
    pub(super) title: String,
    /// The non-empty cells joined by ` | `.
    pub(super) text: String,
}

/// The items of a table list, one per row in order: the rank and name columns are found
/// from the headers, else from the cells.
pub(super) fn table_rows<'r>(header: &[String], rows: &'r [Vec<String>]) -> impl Iterator<Item = TableRow> + 'r {
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
    rows.iter().enumerate().map(move |(i, row)| {
        let from_name = name_col.map(|c| cell(row, c)).filter(|v| !is_numeric_cell(v));
        let title_cell =
            from_name.or_else(|| row.iter().map(String::as_str).find(|v| !is_numeric_cell(v))).unwrap_or("");
        let position = rank_col.and_then(|c| parse_rank(cell(row, c))).unwrap_or(i as u32 + 1);
        let text = row.iter().map(String::as_str).filter(|c| !c.is_empty()).collect::<Vec<_>>().join(" | ");
        TableRow { position, title: clean_title(title_cell), text }
    })
}
