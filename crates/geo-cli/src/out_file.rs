//! OUT of `run`/`resume`/`retry-failed`, rewritten after every finished probe at the cost of
//! that run's own records, not of the whole file.
//!
//! A year of daily runs is an export of about 85 MB; serialising all of it after each of a
//! run's 150 probes would serialise (and write) about 12 GB. [`FrozenEnvelope`] serialises
//! everything the session never changes once, at the start — the projects, the prompts, the
//! other runs and their probes — and keeps those bytes; each write then serialises only the
//! export time, the session's run and its probes, and streams the kept bytes around them.
//! The file is byte for byte what `serde_json::to_vec_pretty` of the whole envelope gives
//! (a test checks it), and it is still replaced atomically (temp file, fsync, rename).

use geo_core::model::{ExportEnvelope, Probe, Run};
use serde::Serialize;
use std::io::Write;

/// One stretch of the `probes` array.
#[derive(Debug)]
enum Segment {
    /// Probes of other runs, serialised once, joined by the array separator.
    Frozen(Vec<u8>),
    /// A probe of the session's run, at this index of `env.probes`.
    Live(usize),
}

/// The serialised unchanging parts of an envelope whose run `run_index` (and its probes) a
/// session is writing.
#[derive(Debug)]
pub struct FrozenEnvelope {
    /// `{` through `"exportedAt": `.
    head: Vec<u8>,
    /// From after the export time through `"runs": [` and the runs before the session's.
    before_run: Vec<u8>,
    /// The runs after the session's, each preceded by the separator.
    after_run: Vec<u8>,
    /// The probes present at the start, in order.
    segments: Vec<Segment>,
    /// `env.probes.len()` at the start: later probes are the session's, appended.
    initial_probes: usize,
    run_index: usize,
    /// The serialised bytes of the session's probes by index in `env.probes`, kept until
    /// [`FrozenEnvelope::changed`] says a probe was replaced: a write serialises only the
    /// probes that changed since the last one.
    live: std::collections::HashMap<usize, Vec<u8>>,
}

/// The separator between elements of a top-level array in `to_vec_pretty` output.
const SEP: &[u8] = b",\n    ";

/// `value` pretty-printed as an element of a top-level field's array (4-space indent).
fn element<T: Serialize>(value: &T, out: &mut Vec<u8>) -> serde_json::Result<()> {
    let text = serde_json::to_vec_pretty(value)?;
    // Raw newlines occur only between tokens (inside strings they are escaped), so indenting
    // every line is a byte replacement, done a line at a time.
    out.reserve(text.len() + text.len() / 8);
    let mut lines = text.split(|b| *b == b'\n');
    if let Some(first) = lines.next() {
        out.extend_from_slice(first);
    }
    for line in lines {
        out.extend_from_slice(b"\n    ");
        out.extend_from_slice(line);
    }
    Ok(())
}

/// `"key": [ … ]` of a top-level array field, as `to_vec_pretty` writes it.
fn array_field<T: Serialize>(key: &str, items: &[T], out: &mut Vec<u8>) -> serde_json::Result<()> {
    out.extend_from_slice(format!("  {}: ", serde_json::to_string(key)?).as_bytes());
    if items.is_empty() {
        out.extend_from_slice(b"[]");
        return Ok(());
    }
    out.extend_from_slice(b"[\n    ");
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.extend_from_slice(SEP);
        }
        element(item, out)?;
    }
    out.extend_from_slice(b"\n  ]");
    Ok(())
}

impl FrozenEnvelope {
    /// Serialises the parts of `env` that a session writing run `run_index` never changes.
    pub fn new(env: &ExportEnvelope, run_index: usize) -> serde_json::Result<FrozenEnvelope> {
        let run_id = &env.runs[run_index].id;
        let mut head = Vec::new();
        head.extend_from_slice(b"{\n  \"format\": ");
        head.extend_from_slice(&serde_json::to_vec(&env.format)?);
        head.extend_from_slice(b",\n  \"version\": ");
        head.extend_from_slice(&serde_json::to_vec(&env.version)?);
        head.extend_from_slice(b",\n  \"exportedAt\": ");

        let mut before_run = Vec::new();
        before_run.extend_from_slice(b",\n  \"appVersion\": ");
        before_run.extend_from_slice(&serde_json::to_vec(&env.app_version)?);
        before_run.extend_from_slice(b",\n");
        array_field("projects", &env.projects, &mut before_run)?;
        before_run.extend_from_slice(b",\n");
        array_field("prompts", &env.prompts, &mut before_run)?;
        before_run.extend_from_slice(b",\n  \"runs\": [\n    ");
        for run in &env.runs[..run_index] {
            element(run, &mut before_run)?;
            before_run.extend_from_slice(SEP);
        }
        let mut after_run = Vec::new();
        for run in &env.runs[run_index + 1..] {
            after_run.extend_from_slice(SEP);
            element(run, &mut after_run)?;
        }

        let mut segments = Vec::new();
        let mut frozen = Vec::new();
        for (i, probe) in env.probes.iter().enumerate() {
            if &probe.run_id == run_id {
                if !frozen.is_empty() {
                    segments.push(Segment::Frozen(std::mem::take(&mut frozen)));
                }
                segments.push(Segment::Live(i));
            } else {
                if !frozen.is_empty() {
                    frozen.extend_from_slice(SEP);
                }
                element(probe, &mut frozen)?;
            }
        }
        if !frozen.is_empty() {
            segments.push(Segment::Frozen(frozen));
        }
        Ok(FrozenEnvelope {
            head,
            before_run,
            after_run,
            segments,
            initial_probes: env.probes.len(),
            run_index,
            live: std::collections::HashMap::new(),
        })
    }

    /// Forgets the kept bytes of `env.probes[index]`, which the session has just replaced.
    pub fn changed(&mut self, index: usize) {
        self.live.remove(&index);
    }

    /// Writes `env` (the envelope this was made from, changed only in its export time, run
    /// `run_index` and that run's probes, new ones appended) to `out`.
    ///
    /// Every probe the session replaces must be reported with [`FrozenEnvelope::changed`].
    pub fn write(&mut self, env: &ExportEnvelope, out: &mut dyn Write) -> std::io::Result<()> {
        let mut run_bytes = Vec::new();
        out.write_all(&self.head)?;
        out.write_all(&serde_json::to_vec(&env.exported_at)?)?;
        out.write_all(&self.before_run)?;
        element::<Run>(&env.runs[self.run_index], &mut run_bytes)?;
        out.write_all(&run_bytes)?;
        out.write_all(&self.after_run)?;
        out.write_all(b"\n  ],\n  \"probes\": ")?;
        if env.probes.is_empty() {
            out.write_all(b"[]\n}")?;
            return Ok(());
        }
        out.write_all(b"[\n    ")?;
        let mut first = true;
        let mut emit = |bytes: &[u8], out: &mut dyn Write| -> std::io::Result<()> {
            if !first {
                out.write_all(SEP)?;
            }
            first = false;
            out.write_all(bytes)
        };
        let live_indices: Vec<usize> = self
            .segments
            .iter()
            .filter_map(|s| match s {
                Segment::Live(i) => Some(*i),
                Segment::Frozen(_) => None,
            })
            .chain(self.initial_probes..env.probes.len())
            .collect();
        for &i in &live_indices {
            if let std::collections::hash_map::Entry::Vacant(slot) = self.live.entry(i) {
                let mut bytes = Vec::new();
                element::<Probe>(&env.probes[i], &mut bytes)?;
                slot.insert(bytes);
            }
        }
        let live = &self.live;
        for segment in &self.segments {
            match segment {
                Segment::Frozen(bytes) => emit(bytes, out)?,
                Segment::Live(i) => emit(&live[i], out)?,
            }
        }
        for i in self.initial_probes..env.probes.len() {
            emit(&live[&i], out)?;
        }
        out.write_all(b"\n  ]\n}")?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use geo_core::model::{ProbeStatus, RunStatus};

    fn fixture(name: &str) -> ExportEnvelope {
        let path = format!("{}/../../fixtures/exports/{name}", env!("CARGO_MANIFEST_DIR"));
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
    }

    #[track_caller]
    fn same_as_serde(env: &ExportEnvelope, frozen: &mut FrozenEnvelope) {
        let mut out = Vec::new();
        frozen.write(env, &mut out).unwrap();
        let want = serde_json::to_vec_pretty(env).unwrap();
        assert!(out == want, "differs at byte {:?}", out.iter().zip(&want).position(|(a, b)| a != b));
    }

    #[test]
    fn writes_exactly_what_serde_writes_as_the_session_changes_its_run() {
        // A run in the middle, with probes before and after those of other runs (engines.json
        // holds six runs); then its status changes, a probe is replaced and one is appended.
        let mut env = fixture("engines.json");
        let run_index = env.runs.iter().position(|r| r.id == "run_ds_new").unwrap();
        let mut frozen = FrozenEnvelope::new(&env, run_index).unwrap();
        same_as_serde(&env, &mut frozen);
        env.exported_at = "2026-12-02T00:00:00.000Z".into();
        env.runs[run_index].status = RunStatus::Running;
        let i = env.probes.iter().position(|p| p.run_id == "run_ds_new").unwrap();
        env.probes[i].status = ProbeStatus::Error;
        env.probes[i].raw_answer = "a \"quoted\"\nline".into();
        frozen.changed(i);
        let mut extra = env.probes[i].clone();
        extra.id = "run_ds_new__p99__0".into();
        env.probes.push(extra);
        same_as_serde(&env, &mut frozen);
        // A replaced probe that is not reported keeps its old bytes: the contract of `changed`.
        let j = env.probes.len() - 1;
        env.probes[j].attempts += 1;
        let mut stale = Vec::new();
        frozen.write(&env, &mut stale).unwrap();
        assert_ne!(stale, serde_json::to_vec_pretty(&env).unwrap());
        frozen.changed(j);
        same_as_serde(&env, &mut frozen);
        // The first and the last run, and an envelope with no probes at all.
        for index in [0, env.runs.len() - 1] {
            same_as_serde(&env, &mut FrozenEnvelope::new(&env, index).unwrap());
        }
        env.probes.clear();
        same_as_serde(&env, &mut FrozenEnvelope::new(&env, 0).unwrap());
        env.projects.clear();
        same_as_serde(&env, &mut FrozenEnvelope::new(&env, 0).unwrap());
    }
}
