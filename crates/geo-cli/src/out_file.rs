//! OUT of `run`/`resume`/`retry-failed`, rewritten after every finished probe at the cost of
//! the session's own runs and their records (one run, or one per engine), not of the whole
//! file.
//!
//! A year of daily runs is an export of about 85 MB; serialising all of it after each of a
//! run's 150 probes would serialise (and write) about 12 GB. [`FrozenEnvelope`] serialises
//! everything the session never changes once, at the start — the projects, the prompts, the
//! other runs and their probes — and keeps those bytes; each write then serialises only the
//! export time, the session's runs and their probes, and streams the kept bytes around them.
//! The file is byte for byte what `serde_json::to_vec_pretty` of the whole envelope gives
//! (a test checks it), and it is still replaced atomically (temp file, fsync, rename).

use geo_core::model::{ExportEnvelope, Probe, Run};
use serde::Serialize;
use std::io::Write;

/// One stretch of the `runs` or the `probes` array.
#[derive(Debug)]
enum Segment {
    /// Records of other runs, serialised once, joined by the array separator.
    Frozen(Vec<u8>),
    /// A record the session writes, at this index of `env.runs` / `env.probes`.
    Live(usize),
}

/// The serialised unchanging parts of an envelope whose runs `run_indices` (and their probes)
/// a session is writing: one run for `resume`/`retry-failed`, one per engine for `run`.
#[derive(Debug)]
pub struct FrozenEnvelope {
    /// `{` through `"exportedAt": `.
    head: Vec<u8>,
    /// From after the export time through `"runs": `.
    before_runs: Vec<u8>,
    /// The runs, the session's live.
    runs: Vec<Segment>,
    /// The probes present at the start, in order.
    segments: Vec<Segment>,
    /// `env.probes.len()` at the start: later probes are the session's, appended.
    initial_probes: usize,
    /// From after the probes to the end: the `linkChecks` of FILE (a session never changes
    /// them) and the closing brace.
    tail: Vec<u8>,
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
    let mut bytes = Vec::with_capacity(items.len());
    for item in items {
        let mut b = Vec::new();
        element(item, &mut b)?;
        bytes.push(b);
    }
    write_array(out, bytes.iter().map(Vec::as_slice)).map_err(serde_json::Error::io)
}

/// A top-level array of already serialised elements (each may be several elements joined by
/// [`SEP`]), as `to_vec_pretty` writes it.
fn write_array<'a>(out: &mut dyn Write, items: impl Iterator<Item = &'a [u8]>) -> std::io::Result<()> {
    let mut first = true;
    for item in items {
        out.write_all(if first { b"[\n    " } else { SEP })?;
        first = false;
        out.write_all(item)?;
    }
    out.write_all(if first { b"[]" } else { b"\n  ]" })
}

/// `records` split into segments: the live ones by index, the runs of others serialised and
/// joined.
fn segments<T: Serialize>(records: &[T], is_live: impl Fn(&T) -> bool) -> serde_json::Result<Vec<Segment>> {
    let mut segments = Vec::new();
    let mut frozen = Vec::new();
    for (i, record) in records.iter().enumerate() {
        if is_live(record) {
            if !frozen.is_empty() {
                segments.push(Segment::Frozen(std::mem::take(&mut frozen)));
            }
            segments.push(Segment::Live(i));
        } else {
            if !frozen.is_empty() {
                frozen.extend_from_slice(SEP);
            }
            element(record, &mut frozen)?;
        }
    }
    if !frozen.is_empty() {
        segments.push(Segment::Frozen(frozen));
    }
    Ok(segments)
}

impl FrozenEnvelope {
    /// Serialises the parts of `env` that a session writing the runs `run_indices` never
    /// changes.
    pub fn new(env: &ExportEnvelope, run_indices: &[usize]) -> serde_json::Result<FrozenEnvelope> {
        let run_ids: Vec<&str> = run_indices.iter().map(|&i| env.runs[i].id.as_str()).collect();
        let mut head = Vec::new();
        head.extend_from_slice(b"{\n  \"format\": ");
        head.extend_from_slice(&serde_json::to_vec(&env.format)?);
        head.extend_from_slice(b",\n  \"version\": ");
        head.extend_from_slice(&serde_json::to_vec(&env.version)?);
        head.extend_from_slice(b",\n  \"exportedAt\": ");

        let mut before_runs = Vec::new();
        before_runs.extend_from_slice(b",\n  \"appVersion\": ");
        before_runs.extend_from_slice(&serde_json::to_vec(&env.app_version)?);
        before_runs.extend_from_slice(b",\n");
        array_field("projects", &env.projects, &mut before_runs)?;
        before_runs.extend_from_slice(b",\n");
        array_field("prompts", &env.prompts, &mut before_runs)?;
        before_runs.extend_from_slice(b",\n  \"runs\": ");
        let runs = segments(&env.runs, |r| run_ids.contains(&r.id.as_str()))?;
        let probes = segments(&env.probes, |p| run_ids.contains(&p.run_id.as_str()))?;
        let mut tail = Vec::new();
        if !env.link_checks.is_empty() {
            tail.extend_from_slice(b",\n");
            array_field("linkChecks", &env.link_checks, &mut tail)?;
        }
        tail.extend_from_slice(b"\n}");
        Ok(FrozenEnvelope {
            head,
            before_runs,
            runs,
            segments: probes,
            initial_probes: env.probes.len(),
            tail,
            live: std::collections::HashMap::new(),
        })
    }

    /// Forgets the kept bytes of `env.probes[index]`, which the session has just replaced.
    pub fn changed(&mut self, index: usize) {
        self.live.remove(&index);
    }

    /// Writes `env` (the envelope this was made from, changed only in its export time, the
    /// session's runs and their probes, new ones appended) to `out`.
    ///
    /// Every probe the session replaces must be reported with [`FrozenEnvelope::changed`].
    pub fn write(&mut self, env: &ExportEnvelope, out: &mut dyn Write) -> std::io::Result<()> {
        out.write_all(&self.head)?;
        out.write_all(&serde_json::to_vec(&env.exported_at)?)?;
        out.write_all(&self.before_runs)?;
        // The session's runs are few and change on every write: serialised each time.
        let mut runs: Vec<std::borrow::Cow<[u8]>> = Vec::with_capacity(self.runs.len());
        for segment in &self.runs {
            runs.push(match segment {
                Segment::Frozen(bytes) => bytes.into(),
                Segment::Live(i) => {
                    let mut bytes = Vec::new();
                    element::<Run>(&env.runs[*i], &mut bytes)?;
                    bytes.into()
                }
            });
        }
        write_array(out, runs.iter().map(|b| &b[..]))?;
        out.write_all(b",\n  \"probes\": ")?;
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
        let existing = self.segments.iter().map(|segment| match segment {
            Segment::Frozen(bytes) => bytes.as_slice(),
            Segment::Live(i) => live[i].as_slice(),
        });
        let appended = (self.initial_probes..env.probes.len()).map(|i| live[&i].as_slice());
        write_array(out, existing.chain(appended))?;
        out.write_all(&self.tail)?;
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
        let mut frozen = FrozenEnvelope::new(&env, &[run_index]).unwrap();
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
            same_as_serde(&env, &mut FrozenEnvelope::new(&env, &[index]).unwrap());
        }
        env.probes.clear();
        same_as_serde(&env, &mut FrozenEnvelope::new(&env, &[0]).unwrap());
        env.projects.clear();
        same_as_serde(&env, &mut FrozenEnvelope::new(&env, &[0]).unwrap());
    }

    #[test]
    fn keeps_the_link_checks_of_file_after_the_probes() {
        use geo_core::model::{LinkCheck, LinkClass, LinkHop, LinkResult};
        let mut env = fixture("engines.json");
        let result = |url: &str, class| LinkResult {
            url: url.into(),
            class,
            status: Some(301),
            final_url: Some("https://b.example/x".into()),
            hops: vec![LinkHop { url: url.into(), status: 301, location: Some("/x \"quoted\"".into()) }],
            error: None,
        };
        env.link_checks = vec![
            LinkCheck { run_id: env.runs[0].id.clone(), checked_at: "2026-12-02T00:00:00.000Z".into(), links: vec![] },
            LinkCheck {
                run_id: env.runs[1].id.clone(),
                checked_at: "2026-12-02T00:00:00.000Z".into(),
                links: vec![
                    result("https://a.example/", LinkClass::Redirect),
                    result("https://c.example/", LinkClass::Error),
                ],
            },
        ];
        let index = env.runs.len() - 1;
        let mut frozen = FrozenEnvelope::new(&env, &[index]).unwrap();
        same_as_serde(&env, &mut frozen);
        env.runs[index].status = RunStatus::Partial;
        let mut extra = env.probes[0].clone();
        extra.run_id = env.runs[index].id.clone();
        extra.id = format!("{}__p97__0", extra.run_id);
        env.probes.push(extra);
        same_as_serde(&env, &mut frozen);
    }

    #[test]
    fn writes_exactly_what_serde_writes_for_several_runs_at_once() {
        // `run --engine a,b,c`: runs appended at the end, and runs scattered among others.
        let mut env = fixture("engines.json");
        let n = env.runs.len();
        for indices in [vec![n - 2, n - 1], vec![0, 2, n - 1], (0..n).collect()] {
            let mut frozen = FrozenEnvelope::new(&env, &indices).unwrap();
            same_as_serde(&env, &mut frozen);
            for &r in &indices {
                env.runs[r].status = RunStatus::Partial;
                let mut extra = env.probes[0].clone();
                extra.run_id = env.runs[r].id.clone();
                extra.id = format!("{}__p98__0", env.runs[r].id);
                env.probes.push(extra);
            }
            same_as_serde(&env, &mut frozen);
            let i = env.probes.iter().position(|p| p.run_id == env.runs[indices[0]].id).unwrap();
            env.probes[i].attempts += 7;
            frozen.changed(i);
            same_as_serde(&env, &mut frozen);
        }
    }
}
