//! A problem with an import, at a JSON path: the one error value of the import checks
//! (`validate`), the overwrite rule (`overwrite`) and the fact-sheet file reader, and the
//! pieces that keep every message bounded however hostile the file: [`Problem`], the
//! collecting `Sink` (the first [`MAX_PROBLEMS`], all counted), the stack-built path `Seg`,
//! `quoted` file text and `describe_value`.

use std::fmt;

use serde_json::Value;

use crate::limits;

/// One thing wrong with an import, at a JSON path such as `probes[3].status`
/// (empty for the file as a whole).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// JSON path of the offending value; empty for the whole file.
    pub path: String,
    /// What is wrong and, where possible, what to do.
    pub message: String,
}

impl Problem {
    /// A problem at `path`.
    pub fn new(path: impl Into<String>, message: impl Into<String>) -> Self {
        Problem { path: path.into(), message: message.into() }
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

/// How many problems an [`crate::export::ImportError`] keeps; the rest are only counted.
pub const MAX_PROBLEMS: usize = 10;

/// Collects the first [`MAX_PROBLEMS`] problems and counts all of them.
#[derive(Debug, Default)]
pub(crate) struct Sink {
    pub(crate) first: Vec<Problem>,
    pub(crate) total: usize,
}

impl Sink {
    pub(crate) fn push(&mut self, path: &Seg<'_>, message: String) {
        self.total += 1;
        if self.first.len() < MAX_PROBLEMS {
            self.first.push(Problem::new(path.render(), message));
        }
    }

    pub(crate) fn push_problem(&mut self, p: Problem) {
        self.total += 1;
        if self.first.len() < MAX_PROBLEMS {
            self.first.push(p);
        }
    }
}

/// A JSON path built on the stack and rendered only when a problem needs it.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Seg<'a> {
    Root,
    Field(&'a Seg<'a>, &'a str),
    Index(&'a Seg<'a>, usize),
}

impl Seg<'_> {
    pub(crate) fn render(&self) -> String {
        bounded_path(&self.render_full())
    }

    fn render_full(&self) -> String {
        match self {
            Seg::Root => String::new(),
            Seg::Field(parent, name) => {
                let p = parent.render_full();
                let name = path_segment(name);
                if p.is_empty() {
                    name
                } else if name.starts_with('[') {
                    format!("{p}{name}")
                } else {
                    format!("{p}.{name}")
                }
            }
            Seg::Index(parent, i) => format!("{}[{i}]", parent.render_full()),
        }
    }
}

/// A field name for a path: as is when it is a plain name (`rawAnswer`), else quoted like
/// JavaScript (`["a.b"]`) with control characters escaped; at most
/// [`limits::MAX_PATH_SEGMENT_CHARS`] characters of it.
fn path_segment(name: &str) -> String {
    let plain = name.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    let cut: String = name.chars().take(limits::MAX_PATH_SEGMENT_CHARS).collect();
    let more = if cut.len() < name.len() { "…" } else { "" };
    if plain {
        format!("{cut}{more}")
    } else {
        format!("[{}{more}]", serde_json::to_string(&cut).unwrap_or_default())
    }
}

/// A path of at most [`limits::MAX_PROBLEM_PATH_CHARS`] characters: its start and its end.
fn bounded_path(path: &str) -> String {
    let n = path.chars().count();
    if n <= limits::MAX_PROBLEM_PATH_CHARS {
        return path.to_string();
    }
    let half = limits::MAX_PROBLEM_PATH_CHARS / 2;
    let head: String = path.chars().take(half).collect();
    let tail: String = path.chars().skip(n - half).collect();
    format!("{head}…{tail}")
}

/// An id or other file text quoted for a message: at most 64 characters, escaped.
pub(crate) fn quoted(text: &str) -> String {
    let cut: String = text.chars().take(64).collect();
    if cut.len() < text.len() {
        format!("{cut:?}…")
    } else {
        format!("{cut:?}")
    }
}

/// A short description of a JSON value for messages: `"ok"`, `number 3`, `null`, `array`.
pub(crate) fn describe_value(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => format!("number {n}"),
        Value::String(s) => {
            let short: String = s.chars().take(40).collect();
            if short.len() < s.len() {
                format!("{short:?}…")
            } else {
                format!("{s:?}")
            }
        }
        Value::Array(_) => "array".into(),
        Value::Object(_) => "object".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_render_like_javascript() {
        let root = Seg::Root;
        let probes = Seg::Field(&root, "probes");
        let third = Seg::Index(&probes, 3);
        let status = Seg::Field(&third, "status");
        assert_eq!(status.render(), "probes[3].status");
    }

    #[test]
    fn paths_are_bounded_and_escaped() {
        let root = Seg::Root;
        let long = "k".repeat(10_000);
        let field = Seg::Field(&root, &long);
        let rendered = field.render();
        assert_eq!(rendered.chars().count(), limits::MAX_PATH_SEGMENT_CHARS + 1, "{rendered}");
        let odd = Seg::Field(&root, "a\u{1b}[2J.b");
        assert_eq!(odd.render(), r#"["a\u001b[2J.b"]"#);
        let mut deep = vec![Seg::Root];
        for i in 0..200 {
            deep.push(Seg::Index(Box::leak(Box::new(deep[i])), i));
        }
        let path = deep.last().unwrap().render();
        assert!(path.chars().count() <= limits::MAX_PROBLEM_PATH_CHARS + 1, "{path}");
        assert!(path.starts_with("[0][1]") && path.ends_with("[199]"), "{path}");
    }
}
