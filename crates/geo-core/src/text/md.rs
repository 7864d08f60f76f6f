//! The one Markdown writer of every report GEO Probe writes: the run report
//! (`export::markdown`), the run comparison (`compare::markdown`), the actions
//! (`actions::markdown`) and the claims (`said::markdown`); and the number formats they and
//! the findings (`metrics::insights`) share.
//!
//! Every piece of text that came from the user, the model or a web page goes through
//! [`escape_cell`]: `|` and line breaks cannot break a table, and HTML is shown as text rather
//! than rendered. `table` escapes every cell it writes.
//!
//! Reading Markdown (the links an answer writes) is `text::markdown`'s job, not this one's.

/// Escapes text for a Markdown table cell or line: HTML-significant characters become
/// entities, Markdown punctuation that could start a link, emphasis or code is
/// backslash-escaped, `|` is escaped and every line break becomes a space.
pub fn escape_cell(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '|' | '\\' | '`' | '*' | '_' | '[' | ']' => {
                out.push('\\');
                out.push(c);
            }
            '\r' => {
                if chars.peek() == Some(&'\n') {
                    chars.next();
                }
                out.push(' ');
            }
            '\n' | '\u{2028}' | '\u{2029}' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// `items` escaped with [`escape_cell`] and joined by `separator` for a line or a cell, or `—`
/// when there are none.
pub(crate) fn cell_list<S: AsRef<str>>(items: &[S], separator: &str) -> String {
    if items.is_empty() {
        return "—".to_string();
    }
    items.iter().map(|i| escape_cell(i.as_ref())).collect::<Vec<_>>().join(separator)
}

/// Column alignment.
#[derive(Clone, Copy)]
pub(crate) enum Align {
    Left,
    Right,
}

/// A Markdown table: the header cells with their alignment, then the rows; every cell is
/// escaped with [`escape_cell`].
pub(crate) fn table(md: &mut String, head: &[(&str, Align)], rows: impl IntoIterator<Item = Vec<String>>) {
    let line = |cells: &mut dyn Iterator<Item = String>| {
        let cells: Vec<String> = cells.collect();
        format!("| {} |\n", cells.join(" | "))
    };
    md.push_str(&line(&mut head.iter().map(|(h, _)| escape_cell(h))));
    let rule: Vec<&str> = head.iter().map(|(_, a)| if matches!(a, Align::Right) { "---:" } else { "---" }).collect();
    md.push_str(&format!("|{}|\n", rule.join("|")));
    for row in rows {
        md.push_str(&line(&mut row.iter().map(|c| escape_cell(c))));
    }
    md.push('\n');
}

/// A heading at `level` (`##`, `###` …) and the blank line after it.
pub(crate) fn heading(md: &mut String, level: &str, text: &str) {
    md.push_str(&format!("{level} {text}\n\n"));
}

/// A count over its denominator: `3/12`.
pub(crate) fn frac(num: u32, den: u32) -> String {
    format!("{num}/{den}")
}

/// A ratio as a percentage with one decimal (`66.7%`), or `—` for `None`.
pub fn percent(value: Option<f64>) -> String {
    value.map_or_else(|| "—".to_string(), |v| format!("{:.1}%", v * 100.0))
}

/// A mean with two decimals, or `—` for `None`.
pub fn decimal(value: Option<f64>) -> String {
    value.map_or_else(|| "—".to_string(), |v| format!("{v:.2}"))
}
