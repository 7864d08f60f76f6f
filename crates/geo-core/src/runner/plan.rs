//! Task expansion (seed §3.2, §3.6): which probes a session runs, in pick-up order.

use rustc_hash::{FxHashMap, FxHashSet};

use crate::model::{probe_id, Probe, ProbeStatus, Run};

use super::error::RunnerError;

/// What an engine session does with a run.
#[derive(Debug, Clone, PartialEq)]
pub enum Mode {
    /// A new run: every prompt × repeat of the snapshot.
    Fresh,
    /// 继续运行: the run's own snapshot and config again, skipping probes already `success`.
    Continue {
        /// The probe records already stored (records of other runs are ignored).
        existing: Vec<Probe>,
    },
    /// 重试失败项: every `error`/`empty` probe of the run, serially, under the same ids.
    RetryFailed {
        /// The probe records already stored (records of other runs are ignored).
        existing: Vec<Probe>,
    },
}

impl Mode {
    /// The stored probe records this mode starts from (none for [`Mode::Fresh`]).
    pub fn existing(&self) -> &[Probe] {
        match self {
            Mode::Fresh => &[],
            Mode::Continue { existing } | Mode::RetryFailed { existing } => existing,
        }
    }
}

/// One probe to execute.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Task {
    /// `{runId}__{promptId}__{repeatIndex}`.
    pub probe_id: String,
    /// The prompt asked.
    pub prompt_id: String,
    /// 0-based repeat.
    pub repeat_index: u32,
    /// Index of the prompt in the run's `promptSnapshot`.
    pub prompt_index: usize,
}

/// The tasks of a session, in the order workers pick them up: prompt outer, repeat inner,
/// prompts in `promptSnapshot` order.
///
/// Only the run's own snapshot and config are read, never the project's current prompts.
/// [`Mode::Continue`] drops tasks whose id already has a `success` record; [`Mode::RetryFailed`]
/// keeps only ids whose record is `error` or `empty` (a failed probe outside the snapshot's
/// prompt × repeat grid is retried too, as long as its prompt is in the snapshot). No id
/// appears twice.
pub fn plan_tasks(run: &Run, mode: &Mode) -> Result<Vec<Task>, RunnerError> {
    if run.prompt_snapshot.is_empty() || run.config.repeats == 0 {
        return Err(RunnerError::EmptySnapshot { run_id: run.id.clone() });
    }
    let existing = latest_records(&run.id, mode.existing());
    let grid = run.prompt_snapshot.iter().enumerate().flat_map(|(prompt_index, prompt)| {
        (0..run.config.repeats).map(move |repeat_index| Task {
            probe_id: probe_id(&run.id, &prompt.id, repeat_index),
            prompt_id: prompt.id.clone(),
            repeat_index,
            prompt_index,
        })
    });
    // An imported snapshot could list a prompt id twice; its probes would share ids.
    let mut seen: FxHashSet<String> = FxHashSet::default();
    let grid = grid.filter(move |t| seen.insert(t.probe_id.clone()));
    match mode {
        Mode::Fresh => Ok(grid.collect()),
        Mode::Continue { .. } => {
            let done: FxHashSet<&str> =
                existing.iter().filter(|p| p.status == ProbeStatus::Success).map(|p| p.id.as_str()).collect();
            Ok(grid.filter(|t| !done.contains(t.probe_id.as_str())).collect())
        }
        Mode::RetryFailed { .. } => {
            let mut tasks = Vec::new();
            for p in existing.into_iter().filter(|p| p.status.is_failure()) {
                let prompt_index = run.prompt_snapshot.iter().position(|q| q.id == p.prompt_id).ok_or_else(|| {
                    RunnerError::PromptNotInSnapshot { probe_id: p.id.clone(), prompt_id: p.prompt_id.clone() }
                })?;
                tasks.push(Task {
                    probe_id: p.id.clone(),
                    prompt_id: p.prompt_id.clone(),
                    repeat_index: p.repeat_index,
                    prompt_index,
                });
            }
            crate::sort::sort_by(&mut tasks, |a, b| {
                (a.prompt_index, a.repeat_index, &a.probe_id).cmp(&(b.prompt_index, b.repeat_index, &b.probe_id))
            });
            Ok(tasks)
        }
    }
}

/// The records of `run_id` in `probes`, one per id: when an id appears more than once the
/// later record wins (the store overwrites by id). First-appearance order is kept.
pub fn latest_records<'a>(run_id: &str, probes: &'a [Probe]) -> Vec<&'a Probe> {
    let mut out: Vec<&Probe> = Vec::new();
    let mut index: FxHashMap<&str, usize> = FxHashMap::default();
    for p in probes.iter().filter(|p| p.run_id == run_id) {
        match index.get(p.id.as_str()) {
            Some(&i) => out[i] = p,
            None => {
                index.insert(p.id.as_str(), out.len());
                out.push(p);
            }
        }
    }
    out
}
