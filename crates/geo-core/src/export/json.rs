//! The full and single-run JSON exports.
//!
//! Both use the one [`ExportEnvelope`] shape of the data-model contract. Records are
//! sorted so that the same store always gives the same bytes:
//!
//! - projects by `createdAt`, then `id`;
//! - prompts by `projectId`, then `createdAt`, then `id`;
//! - runs by `createdAt`, then `id`;
//! - probes grouped by run in run order (probes of runs absent from the export last, by
//!   `runId`), then by the position of their prompt in the run's `promptSnapshot`
//!   (prompts missing from the snapshot last, by `promptId`), then `repeatIndex`, then `id`;
//! - link checks by their run's place in the run order (checks of runs absent from the
//!   export last), then `runId`.
//!
//! The sorts are stable and depend on record content only, so exporting an already
//! sorted envelope again changes nothing.

use std::borrow::Borrow;
use std::collections::{HashMap, HashSet};
use std::fmt;

use crate::model::{ExportEnvelope, LinkCheck, Localized, Probe, Project, Prompt, Run};

/// Why an export could not be produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExportError {
    /// The requested run id is not in the data.
    RunNotFound {
        /// The id that was asked for.
        run_id: String,
    },
}

impl fmt::Display for ExportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ExportError::RunNotFound { run_id } => {
                write!(f, "run {run_id:?} is not in the data; choose one of its runs")
            }
        }
    }
}

impl std::error::Error for ExportError {}

impl ExportError {
    /// The message in both interface languages.
    pub fn describe(&self) -> Localized {
        match self {
            ExportError::RunNotFound { run_id } => {
                Localized::new(format!("找不到批次 {run_id:?}，请选择已有的批次"), self.to_string())
            }
        }
    }
}

/// Sorts projects by `createdAt`, then `id`.
pub fn sort_projects(projects: &mut [Project]) {
    crate::sort::sort_by(projects, |a, b| (&a.created_at, &a.id).cmp(&(&b.created_at, &b.id)));
}

/// Sorts prompts by `projectId`, then `createdAt`, then `id`.
pub fn sort_prompts(prompts: &mut [Prompt]) {
    crate::sort::sort_by(prompts, |a, b| {
        (&a.project_id, &a.created_at, &a.id).cmp(&(&b.project_id, &b.created_at, &b.id))
    });
}

/// Sorts runs by `createdAt`, then `id`.
pub fn sort_runs(runs: &mut [Run]) {
    crate::sort::sort_by(runs, |a, b| (&a.created_at, &a.id).cmp(&(&b.created_at, &b.id)));
}

/// Sorts probes (or references to probes) in the order described in the module
/// documentation; `runs` gives the run order and each run's `promptSnapshot`.
pub fn sort_probes<P: Borrow<Probe>>(probes: &mut [P], runs: &[Run]) {
    let rank: HashMap<&str, (usize, &Run)> =
        runs.iter().enumerate().rev().map(|(i, r)| (r.id.as_str(), (i, r))).collect();
    let mut prompt_pos: HashMap<(&str, &str), usize> = HashMap::new();
    for run in runs {
        for (i, p) in run.prompt_snapshot.iter().enumerate().rev() {
            prompt_pos.insert((run.id.as_str(), p.id.as_str()), i);
        }
    }
    crate::sort::sort_by_cached_key(probes, |p| {
        let p: &Probe = p.borrow();
        let run_rank = rank.get(p.run_id.as_str()).map_or(usize::MAX, |(i, _)| *i);
        let pos = prompt_pos.get(&(p.run_id.as_str(), p.prompt_id.as_str())).copied().unwrap_or(usize::MAX);
        (run_rank, p.run_id.clone(), pos, p.prompt_id.clone(), p.repeat_index, p.id.clone())
    });
}

/// Sorts link checks by their run's place in `runs` (checks of other runs last), then `runId`.
pub fn sort_link_checks(checks: &mut [LinkCheck], runs: &[Run]) {
    let rank: HashMap<&str, usize> = runs.iter().enumerate().rev().map(|(i, r)| (r.id.as_str(), i)).collect();
    crate::sort::sort_by_cached_key(checks, |c| {
        (rank.get(c.run_id.as_str()).copied().unwrap_or(usize::MAX), c.run_id.clone())
    });
}

/// [`full_export`] with the answer-link checks of `geo-probe links` (`linkChecks`), sorted
/// by their runs (see the module documentation).
pub fn full_export_with_checks(
    projects: Vec<Project>,
    prompts: Vec<Prompt>,
    runs: Vec<Run>,
    probes: Vec<Probe>,
    mut link_checks: Vec<LinkCheck>,
    exported_at: &str,
) -> ExportEnvelope {
    let mut env = full_export(projects, prompts, runs, probes, exported_at);
    sort_link_checks(&mut link_checks, &env.runs);
    env.link_checks = link_checks;
    env
}

/// The full export: every project, prompt, run and probe, sorted (see the module
/// documentation), stamped with `exported_at` and this program's versions.
pub fn full_export(
    mut projects: Vec<Project>,
    mut prompts: Vec<Prompt>,
    mut runs: Vec<Run>,
    mut probes: Vec<Probe>,
    exported_at: &str,
) -> ExportEnvelope {
    sort_projects(&mut projects);
    sort_prompts(&mut prompts);
    sort_runs(&mut runs);
    sort_probes(&mut probes, &runs);
    let mut env = ExportEnvelope::new(exported_at);
    env.projects = projects;
    env.prompts = prompts;
    env.runs = runs;
    env.probes = probes;
    env
}

/// The single-run export: the run `run_id`, its probes, its answer-link check (when `env`
/// holds one), its project (when `env` still holds it) and the prompts it used.
///
/// "The prompts it used" are the ids of the run's `promptSnapshot`: the current version
/// from `env.prompts` when the prompt still exists, otherwise the snapshot copy, so that
/// a deleted prompt still travels with the run. Sorting follows [`full_export`].
pub fn run_export(env: &ExportEnvelope, run_id: &str, exported_at: &str) -> Result<ExportEnvelope, ExportError> {
    let run = env.run(run_id).ok_or_else(|| ExportError::RunNotFound { run_id: run_id.to_string() })?;
    let projects: Vec<Project> = env.projects.iter().filter(|p| p.id == run.project_id).take(1).cloned().collect();
    let mut seen: HashSet<&str> = HashSet::new();
    let mut prompts = Vec::new();
    for snap in &run.prompt_snapshot {
        if !seen.insert(snap.id.as_str()) {
            continue;
        }
        let current = env.prompts.iter().find(|p| p.id == snap.id);
        prompts.push(current.unwrap_or(snap).clone());
    }
    let probes: Vec<Probe> = env.probes_of(&run.id).cloned().collect();
    let checks: Vec<LinkCheck> = env.link_check(&run.id).into_iter().cloned().collect();
    Ok(full_export_with_checks(projects, prompts, vec![run.clone()], probes, checks, exported_at))
}

/// The envelope as pretty-printed JSON (two-space indent) with a final newline.
pub fn to_json_pretty(env: &ExportEnvelope) -> String {
    // Serialising plain structs of strings, integers and f64 cannot fail with serde_json.
    let mut out = indent_json(&serde_json::to_string(env).unwrap_or_default());
    out.push('\n');
    out
}

/// `compact` (JSON text as `serde_json::to_string` writes it, with no whitespace outside
/// strings) laid out with a two-space indent: byte for byte what
/// `serde_json::to_string_pretty` writes for the same value.
///
/// Why not `to_string_pretty`: it compiles a second serializer for every model type (the
/// compact one stores records in IndexedDB), which costs the web bundle more than this
/// one pass over the text (`docs/adr/0006-wasm-size.md`).
pub fn indent_json(compact: &str) -> String {
    let bytes = compact.as_bytes();
    let mut out = String::with_capacity(compact.len() + compact.len() / 2);
    let mut depth = 0usize;
    // Start of the text not yet copied to `out`; everything is copied in runs between the
    // structural bytes, which are all ASCII, so every cut is on a char boundary.
    let mut from = 0;
    // Set after an opening bracket whose closing one follows at once: `{}` / `[]` stay.
    let mut empty_close: Option<usize> = None;
    let newline = |out: &mut String, depth: usize| {
        out.push('\n');
        for _ in 0..depth {
            out.push_str("  ");
        }
    };
    for (i, b) in outside_strings(compact) {
        if empty_close.take() == Some(i) {
            continue;
        }
        match b {
            b'{' | b'[' => {
                let close = if b == b'{' { b'}' } else { b']' };
                if bytes.get(i + 1) == Some(&close) {
                    out.push_str(&compact[from..=i + 1]);
                    empty_close = Some(i + 1);
                    from = i + 2;
                } else {
                    out.push_str(&compact[from..=i]);
                    depth += 1;
                    newline(&mut out, depth);
                    from = i + 1;
                }
            }
            b'}' | b']' => {
                out.push_str(&compact[from..i]);
                depth = depth.saturating_sub(1);
                newline(&mut out, depth);
                out.push(b as char);
                from = i + 1;
            }
            b',' => {
                out.push_str(&compact[from..=i]);
                newline(&mut out, depth);
                from = i + 1;
            }
            b':' => {
                out.push_str(&compact[from..=i]);
                out.push(' ');
                from = i + 1;
            }
            _ => {}
        }
    }
    out.push_str(&compact[from..]);
    out
}

/// Whether the nesting of `[`/`{` outside strings goes deeper than `limit` (stopping early once
/// past it): the first check of an export and of a `--facts` file, before any parse.
pub(crate) fn nesting_exceeds(text: &str, limit: usize) -> bool {
    let mut depth = 0usize;
    for (_, b) in outside_strings(text) {
        match b {
            b'[' | b'{' => {
                depth += 1;
                if depth > limit {
                    return true;
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    false
}

/// The structural bytes of JSON text (`{ } [ ] , :`) that stand outside string literals,
/// with their byte offsets. Escapes inside strings (`\"`, `\\`) are honoured; the text
/// need not be valid JSON (an unterminated string simply hides the rest).
pub(crate) fn outside_strings(text: &str) -> impl Iterator<Item = (usize, u8)> + '_ {
    let mut in_string = false;
    let mut escaped = false;
    text.bytes().enumerate().filter(move |&(_, b)| {
        if in_string {
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
            }
            return false;
        }
        if b == b'"' {
            in_string = true;
            return false;
        }
        matches!(b, b'{' | b'}' | b'[' | b']' | b',' | b':')
    })
}

#[cfg(test)]
mod tests {
    use super::indent_json;
    use serde_json::{json, Value};

    #[track_caller]
    fn check(value: Value) {
        let compact = serde_json::to_string(&value).unwrap();
        assert_eq!(indent_json(&compact), serde_json::to_string_pretty(&value).unwrap());
    }

    #[test]
    fn indents_exactly_like_to_string_pretty() {
        check(json!(null));
        check(json!("a string"));
        check(json!(-1.5e300));
        check(json!({}));
        check(json!([]));
        check(json!({"a": {}, "b": [], "c": [{}], "d": [[]]}));
        check(json!([1, [2, [3, {"x": null}]], {"y": [true, false]}]));
        check(json!({"tricky": "{[,:]}\"\\\" \\ ,\n\t 元构场 \u{1}", "k:{,}": ["\\", "\"", ""]}));
        check(json!({"nested": {"deep": {"deeper": {"deepest": [0.1, 2, -3, 1e-7]}}}}));
        check(json!([{}, [], {"a": [{}, []]}, [[], {}]]));
    }

    #[test]
    fn structural_bytes_skip_strings_and_escapes() {
        let text = r#"{"a\"{":[1,"]\\"],"b":{}}"#;
        let got: String = super::outside_strings(text).map(|(_, b)| b as char).collect();
        assert_eq!(got, "{:[,],:{}}");
        assert_eq!(super::outside_strings(r#""{unterminated"#).count(), 0);
    }
}
