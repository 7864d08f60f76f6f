//! Task expansion (seed §3.2, §3.6): which probes a session runs, in pick-up order.

use rustc_hash::{FxHashMap, FxHashSet};

use crate::model::{probe_id, Probe, ProbeStatus, Run};

use super::error::RunnerError;
use super::start::{check_method, check_probe_count, check_temperature};

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

/// The tasks of a session in pick-up order, produced one at a time: a fresh or continued
/// run is a cursor over its prompt × repeat grid, so no task list is built up front (a run
/// is bounded by [`MAX_PROBES_PER_RUN`](crate::limits::MAX_PROBES_PER_RUN) anyway); a retry
/// of failures is the list of its failed records.
#[derive(Debug, Clone)]
pub struct TaskPlan {
    run_id: String,
    /// `(index in promptSnapshot, prompt id)`, each prompt id once (first occurrence).
    prompts: Vec<(usize, String)>,
    repeats: u32,
    /// Next grid cell: (position in `prompts`, repeat).
    cursor: (usize, u32),
    /// Probe ids the grid skips ([`Mode::Continue`]: already `success`).
    skip: FxHashSet<String>,
    /// [`Mode::RetryFailed`]: the tasks, in order, and the next one.
    list: Option<(Vec<Task>, usize)>,
}

impl Iterator for TaskPlan {
    type Item = Task;

    fn next(&mut self) -> Option<Task> {
        if let Some((tasks, next)) = &mut self.list {
            let task = tasks.get(*next).cloned();
            *next += 1;
            return task;
        }
        loop {
            let (p, repeat) = self.cursor;
            let (prompt_index, prompt_id) = self.prompts.get(p)?;
            self.cursor = if repeat + 1 < self.repeats { (p, repeat + 1) } else { (p + 1, 0) };
            let id = probe_id(&self.run_id, prompt_id, repeat);
            if !self.skip.contains(&id) {
                return Some(Task {
                    probe_id: id,
                    prompt_id: prompt_id.clone(),
                    repeat_index: repeat,
                    prompt_index: *prompt_index,
                });
            }
        }
    }
}

impl TaskPlan {
    /// How many tasks are left (a pass over a copy of the plan: at most
    /// [`MAX_PROBES_PER_RUN`](crate::limits::MAX_PROBES_PER_RUN) ids).
    pub fn remaining(&self) -> usize {
        self.clone().count()
    }
}

/// Plans a session (see [`TaskPlan`]): prompt outer, repeat inner, prompts in
/// `promptSnapshot` order.
///
/// Only the run's own snapshot and config are read, never the project's current prompts.
/// [`Mode::Continue`] skips ids that already have a `success` record; [`Mode::RetryFailed`]
/// keeps only ids whose record is `error` or `empty` (a failed probe outside the snapshot's
/// prompt × repeat grid is retried too, as long as its prompt is in the snapshot). No id
/// appears twice. A run whose prompts × repeats exceed
/// [`MAX_PROBES_PER_RUN`](crate::limits::MAX_PROBES_PER_RUN) (a crafted import) is
/// [`RunnerError::TooManyProbes`], whatever the mode, before anything is planned.
pub fn plan(run: &Run, mode: &Mode) -> Result<TaskPlan, RunnerError> {
    if run.prompt_snapshot.is_empty() || run.config.repeats == 0 {
        return Err(RunnerError::EmptySnapshot { run_id: run.id.clone() });
    }
    // An imported snapshot could list a prompt id twice; its probes would share ids.
    let mut seen: FxHashSet<&str> = FxHashSet::default();
    let prompts: Vec<(usize, String)> = run
        .prompt_snapshot
        .iter()
        .enumerate()
        .filter(|(_, p)| seen.insert(p.id.as_str()))
        .map(|(i, p)| (i, p.id.clone()))
        .collect();
    check_probe_count(prompts.len(), run.config.repeats)?;
    check_method(run)?;
    check_temperature(run.config.engine, run.config.temperature)?;
    let existing = latest_records(&run.id, mode.existing());
    let mut plan = TaskPlan {
        run_id: run.id.clone(),
        prompts,
        repeats: run.config.repeats,
        cursor: (0, 0),
        skip: FxHashSet::default(),
        list: None,
    };
    // The first place of each prompt id in the snapshot, looked up once per failed probe.
    let mut position: FxHashMap<&str, usize> = FxHashMap::default();
    for (i, q) in run.prompt_snapshot.iter().enumerate() {
        position.entry(q.id.as_str()).or_insert(i);
    }
    match mode {
        Mode::Fresh => {}
        Mode::Continue { .. } => {
            plan.skip = existing.iter().filter(|p| p.status == ProbeStatus::Success).map(|p| p.id.clone()).collect();
        }
        Mode::RetryFailed { .. } => {
            let mut tasks = Vec::new();
            for p in existing.into_iter().filter(|p| p.status.is_failure()) {
                let prompt_index = position.get(p.prompt_id.as_str()).copied().ok_or_else(|| {
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
            plan.list = Some((tasks, 0));
        }
    }
    Ok(plan)
}

/// Every task of `plan` at once (for tests and previews; the engine pulls them lazily).
pub fn plan_tasks(run: &Run, mode: &Mode) -> Result<Vec<Task>, RunnerError> {
    Ok(plan(run, mode)?.collect())
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
