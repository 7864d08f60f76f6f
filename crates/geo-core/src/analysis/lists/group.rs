//! Grouping: the candidate lists of an answer. [`build_groups`] reads the answer line by
//! line (code blocks skipped, tables read whole) and a `Builder` decides, per line shape,
//! whether a line starts an item, continues the current item's text, or interrupts its list;
//! an interrupted numbered list resumes when a later line of its style carries its next
//! number, taking the interrupting lines into its item's text (shared, not copied).

use std::collections::HashMap;

use super::lines::{classify, fence_marker, indent_of, Kind, Style};
use super::table::{is_table_separator, split_row, table_rows};
use super::title::clean_title;

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

/// An item of a candidate list, as lines of the answer (finished into a `ListItem` only
/// when its list wins).
pub(super) struct RawItem<'a> {
    pub(super) position: u32,
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
    pub(super) fn title(&self, log: &[&'a str]) -> String {
        self.title
            .clone()
            .unwrap_or_else(|| self.lines(log).take(3).map(clean_title).find(|t| !t.is_empty()).unwrap_or_default())
    }

    /// The non-empty lines joined by `\n`; with `limit`, stops once `limit` characters are in.
    pub(super) fn text(&self, log: &[&'a str], limit: Option<usize>) -> String {
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

/// A candidate list: items of one marker style and indentation, or the rows of a table.
pub(super) struct Group<'a> {
    kind: GroupKind,
    indent: usize,
    pub(super) items: Vec<RawItem<'a>>,
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

/// The candidate lists of an answer as they are built, line by line.
#[derive(Default)]
pub(super) struct Builder<'a> {
    pub(super) groups: Vec<Group<'a>>,
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
    pub(super) log: Vec<&'a str>,
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

/// Every candidate list of `answer`, in answer order, with the log their resumed items share.
pub(super) fn build_groups(answer: &str) -> Builder<'_> {
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

/// A table list as a group of items, each row's text one piece.
fn table_group<'a>(header: &[String], rows: &[Vec<String>]) -> Group<'a> {
    let items = table_rows(header, rows)
        .map(|row| RawItem { position: row.position, pieces: vec![Piece::Owned(row.text)], title: Some(row.title) })
        .collect();
    Group { kind: GroupKind::Table, indent: 0, items }
}
