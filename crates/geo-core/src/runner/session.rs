//! [`Session`]: the poll-style state machine that executes a session of probes.

use std::collections::VecDeque;

use rustc_hash::FxHashMap;

use crate::analysis::RunAnalyzer;
use crate::model::{ErrorKind, FactSnapshot, Probe, ProbeError, ProbeStatus, Run, RunConfig, RunStatus, Target, Usage};
use crate::provider::merge_turn;
use crate::provider::{Continuation, ParsedResponse, MAX_CONTINUATIONS};

use super::error::RunnerError;
use super::plan::{latest_records, plan, Mode, Task, TaskPlan};
use super::retry::{next_step, AttemptOutcome, Step, DEFAULT_TIMEOUT_MS, MAX_ATTEMPTS};
use super::start::clamp_concurrency;
use super::status::final_status_of;
use super::Slot;
use crate::timestamp::iso_timestamp;

/// Tunables of a session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SessionOptions {
    /// Per-request timeout handed to the shell in every [`SendRequest`].
    pub timeout_ms: u64,
    /// Attempts per probe (values below 1 are treated as 1).
    pub max_attempts: u32,
}

impl Default for SessionOptions {
    fn default() -> Self {
        SessionOptions { timeout_ms: DEFAULT_TIMEOUT_MS, max_attempts: MAX_ATTEMPTS }
    }
}

/// A request the shell must perform now.
#[derive(Debug, Clone, PartialEq)]
pub struct SendRequest {
    /// The slot to report the outcome for.
    pub slot: Slot,
    /// The probe this attempt belongs to.
    pub probe_id: String,
    /// The prompt asked.
    pub prompt_id: String,
    /// The question text from the run's `promptSnapshot`; the shell builds the body with
    /// `provider::Endpoint::body(&prompt_text, session.config())`.
    pub prompt_text: String,
    /// 1-based attempt number.
    pub attempt: u32,
    /// Abort the request after this long and report a `timeout` error.
    pub timeout_ms: u64,
    /// A `pause_turn` continuation of the attempt (engines.md, "Fidelity"): the shell sends
    /// the same request with this paused content appended
    /// (`provider::Endpoint::body_with`). `None` for the attempt's first request.
    pub continuation: Option<Continuation>,
}

/// Counters of the current session, for the progress bar.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Progress {
    /// Tasks of this session that have finished (written probes).
    pub done: u32,
    /// Tasks of this session (prompts × repeats for a fresh run; fewer for continue/retry).
    pub planned: u32,
    /// Finished tasks with status `success`.
    pub success: u32,
    /// Finished tasks with status `error` or `empty` (both give no usable answer).
    pub failed: u32,
    /// Tasks started and not finished: a request in flight or a back-off under way.
    pub in_flight: u32,
}

/// How the run ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunOutcome {
    /// The run's final status (seed §3.5), over every probe record of the run.
    pub status: RunStatus,
    /// ISO 8601 UTC time of the [`Session::poll`] that finished the session.
    pub finished_at: String,
}

impl RunOutcome {
    /// Writes the status and `finishedAt` into the run record.
    pub fn apply(&self, run: &mut Run) {
        run.status = self.status;
        run.finished_at = Some(self.finished_at.clone());
    }
}

/// What the shell must do next.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// Perform this request and later report it with [`Session::on_response`].
    Send(SendRequest),
    /// The slot backs off until `until_ms`; the session resends by itself from the first
    /// [`Session::poll`] at or after that time. For logs and per-slot timers only.
    Sleep {
        /// The slot that waits.
        slot: Slot,
        /// The probe that will be retried.
        probe_id: String,
        /// Unix milliseconds at which the next attempt is due.
        until_ms: u64,
    },
    /// A finished probe: store it now (overwriting any record with the same id).
    Write(Box<Probe>),
    /// Updated counters.
    Progress(Progress),
    /// The session is over: update the run with [`RunOutcome::apply`] and store it; abort any
    /// request still running. [`Session::poll`] returns `None` from now on.
    Finished(RunOutcome),
}

/// What a probe's attempts have been billed for so far (engines.md, "Fidelity": every
/// attempt that returned usage was paid for).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
struct Spent {
    /// Usage summed over every reply (continuations included).
    usage: Usage,
    /// The engine's stated costs summed, `None` once a reply stated none.
    cost_usd: Option<f64>,
    /// Whether any reply came back.
    billed: bool,
}

impl Spent {
    fn add(&mut self, reply: &ParsedResponse) {
        self.cost_usd = match (self.billed, self.cost_usd, reply.cost_usd) {
            (false, _, stated) => stated,
            (true, Some(sum), Some(c)) => Some(sum + c),
            _ => None,
        };
        self.usage = self.usage.plus(reply.usage);
        self.billed = true;
    }
}

/// An attempt under way: its first request's time and the paused replies of its turn.
#[derive(Debug, Clone, PartialEq)]
struct Attempt {
    number: u32,
    sent_at_ms: u64,
    /// Replies that stopped with `pause_turn`, in order (each answered by a continuation).
    paused: Vec<ParsedResponse>,
}

/// What a slot is doing; a busy slot owns its task (tasks are planned one at a time).
#[derive(Debug, Clone, PartialEq)]
enum SlotState {
    Idle,
    InFlight {
        task: Task,
        attempt: Attempt,
        spent: Spent,
    },
    /// A `pause_turn` reply came back: the next poll sends the continuation.
    Continuing {
        task: Task,
        attempt: Attempt,
        spent: Spent,
    },
    BackingOff {
        task: Task,
        next_attempt: u32,
        until_ms: u64,
        spent: Spent,
    },
}

/// How a probe ended: what [`Session::build_probe`] records besides the raw result.
struct Done {
    status: ProbeStatus,
    attempts: u32,
    latency_ms: u64,
    continuations: u32,
    spent: Spent,
}

/// The sans-IO runner of one session (a fresh run, a continue or a retry of failures).
///
/// See the [module documentation](super) for the driving loop.
#[derive(Debug, Clone)]
pub struct Session {
    run_id: String,
    project_id: String,
    config: RunConfig,
    alias_snapshot: Vec<Target>,
    fact_snapshot: Option<FactSnapshot>,
    prompt_texts: Vec<String>,
    options: SessionOptions,
    /// The tasks not started yet, produced on demand.
    plan: TaskPlan,
    /// The whole plan as it was at the start, for [`Session::tasks`].
    initial_plan: TaskPlan,
    slots: Vec<SlotState>,
    /// Newest status per probe id of the run: the stored records, overwritten as probes finish.
    /// Hashed, not a B-tree: only counted, never listed in order (and the wasm bundle
    /// then needs no B-tree code for this key type).
    statuses: FxHashMap<String, ProbeStatus>,
    queue: VecDeque<Action>,
    progress: Progress,
    cancelled: bool,
    finished: bool,
}

impl Session {
    /// Plans the session (see `runner::plan::plan`: lazily, and refused for a run above
    /// [`crate::limits::MAX_PROBES_PER_RUN`] probes or with an invalid temperature) and
    /// queues the first [`Action::Progress`].
    ///
    /// Concurrency is the run's, clamped to 1..=3, except in [`Mode::RetryFailed`], which runs
    /// serially. Only the run's own snapshots and config are used.
    pub fn new(run: &Run, mode: Mode, options: SessionOptions) -> Result<Session, RunnerError> {
        let tasks = plan(run, &mode)?;
        let concurrency = match mode {
            Mode::RetryFailed { .. } => 1,
            _ => clamp_concurrency(run.config.concurrency),
        };
        let statuses = latest_records(&run.id, mode.existing()).into_iter().map(|p| (p.id.clone(), p.status)).collect();
        let planned = u32::try_from(tasks.remaining()).unwrap_or(u32::MAX);
        let progress = Progress { planned, ..Progress::default() };
        Ok(Session {
            run_id: run.id.clone(),
            project_id: run.project_id.clone(),
            config: run.config.clone(),
            alias_snapshot: run.alias_snapshot.clone(),
            fact_snapshot: run.fact_snapshot.clone(),
            prompt_texts: run.prompt_snapshot.iter().map(|p| p.text.clone()).collect(),
            options: SessionOptions { max_attempts: options.max_attempts.max(1), ..options },
            initial_plan: tasks.clone(),
            plan: tasks,
            slots: vec![SlotState::Idle; concurrency as usize],
            statuses,
            queue: VecDeque::from([Action::Progress(progress)]),
            progress,
            cancelled: false,
            finished: false,
        })
    }

    /// The run's frozen config (for building request bodies).
    pub fn config(&self) -> &RunConfig {
        &self.config
    }

    /// Every task of this session in pick-up order (built on demand from the plan).
    pub fn tasks(&self) -> Vec<Task> {
        self.initial_plan.clone().collect()
    }

    /// Number of slots: the most requests this session ever has in flight.
    pub fn concurrency(&self) -> usize {
        self.slots.len()
    }

    /// Current counters.
    pub fn progress(&self) -> Progress {
        self.progress
    }

    /// Whether [`Action::Finished`] has been returned.
    pub fn is_finished(&self) -> bool {
        self.finished
    }

    /// Whether [`Session::cancel`] was called.
    pub fn is_cancelled(&self) -> bool {
        self.cancelled
    }

    /// The earliest time at which a back-off ends, so a shell that has drained [`Session::poll`]
    /// knows when to poll again if no response arrives first. `None` when nothing is backing off.
    pub fn next_wakeup(&self) -> Option<u64> {
        if self.cancelled || self.finished {
            return None;
        }
        self.slots
            .iter()
            .filter_map(|s| match s {
                SlotState::BackingOff { until_ms, .. } => Some(*until_ms),
                _ => None,
            })
            .min()
    }

    /// The next action at `now_ms` (Unix milliseconds), or `None` when the session waits for a
    /// response or a back-off. Call it in a loop until `None` after every input.
    pub fn poll(&mut self, now_ms: u64) -> Option<Action> {
        if let Some(action) = self.queue.pop_front() {
            return Some(action);
        }
        if self.finished {
            return None;
        }
        if self.cancelled {
            return Some(self.finish(RunStatus::Cancelled, now_ms));
        }
        // Continuations go out at once, then back-offs that ended resume: their slot
        // already owns its task.
        for i in 0..self.slots.len() {
            let due = match &self.slots[i] {
                SlotState::Continuing { .. } => true,
                SlotState::BackingOff { until_ms, .. } => *until_ms <= now_ms,
                _ => false,
            };
            if due {
                return match std::mem::replace(&mut self.slots[i], SlotState::Idle) {
                    SlotState::Continuing { task, attempt, spent } => Some(self.send(i, task, attempt, spent)),
                    SlotState::BackingOff { task, next_attempt, spent, .. } => {
                        let attempt = Attempt { number: next_attempt, sent_at_ms: now_ms, paused: Vec::new() };
                        Some(self.send(i, task, attempt, spent))
                    }
                    _ => unreachable!("matched above"),
                };
            }
        }
        if let Some(i) = self.slots.iter().position(|s| *s == SlotState::Idle) {
            if let Some(task) = self.plan.next() {
                self.progress.in_flight += 1;
                let attempt = Attempt { number: 1, sent_at_ms: now_ms, paused: Vec::new() };
                return Some(self.send(i, task, attempt, Spent::default()));
            }
        } else {
            return None;
        }
        if self.slots.iter().all(|s| *s == SlotState::Idle) {
            let status = final_status_of(self.statuses.values().copied(), false);
            return Some(self.finish(status, now_ms));
        }
        None
    }

    /// Reports the outcome of the request sent on `slot`, received at `now_ms`.
    ///
    /// `random` is any fresh random number; it becomes the back-off jitter (0..=400 ms) if
    /// this outcome is a retryable error. After [`Session::cancel`] or once finished, every
    /// response is dropped without effect (no half-made probe is written). A response for a
    /// slot with no request in flight is [`RunnerError::NoRequestInFlight`].
    pub fn on_response(
        &mut self,
        slot: Slot,
        now_ms: u64,
        outcome: AttemptOutcome,
        random: u32,
    ) -> Result<(), RunnerError> {
        if self.cancelled || self.finished {
            return Ok(());
        }
        if !matches!(self.slots.get(slot.0), Some(SlotState::InFlight { .. })) {
            return Err(RunnerError::NoRequestInFlight { slot });
        }
        let SlotState::InFlight { task, mut attempt, mut spent } =
            std::mem::replace(&mut self.slots[slot.0], SlotState::Idle)
        else {
            unreachable!("checked above")
        };
        if let Ok(reply) = &outcome {
            spent.add(reply);
        }
        // A paused turn is continued on the same slot: a new request, not a new attempt.
        let continuations = attempt.paused.len() as u32;
        let outcome = match outcome {
            Ok(reply) if reply.paused() && (attempt.paused.len() as u32) < MAX_CONTINUATIONS => {
                attempt.paused.push(reply);
                self.slots[slot.0] = SlotState::Continuing { task, attempt, spent };
                return Ok(());
            }
            Ok(reply) => {
                let mut turn = std::mem::take(&mut attempt.paused);
                turn.push(reply);
                let mut whole = merge_turn(turn);
                // Still paused after the last continuation: the answer was cut short.
                whole.truncated |= whole.paused();
                Ok(whole)
            }
            Err(e) => Err(e),
        };
        let latency_ms = now_ms.saturating_sub(attempt.sent_at_ms);
        match next_step(attempt.number, self.options.max_attempts, &outcome, random) {
            Step::Retry { backoff_ms } => {
                let until_ms = now_ms.saturating_add(backoff_ms);
                let probe_id = task.probe_id.clone();
                self.slots[slot.0] = SlotState::BackingOff { task, next_attempt: attempt.number + 1, until_ms, spent };
                self.queue.push_back(Action::Sleep { slot, probe_id, until_ms });
            }
            Step::Finish(status) => {
                let done = Done { status, attempts: attempt.number, latency_ms, continuations, spent };
                let probe = self.build_probe(&task, done, now_ms, outcome);
                self.statuses.insert(probe.id.clone(), probe.status);
                self.progress.in_flight = self.progress.in_flight.saturating_sub(1);
                self.progress.done += 1;
                if status == ProbeStatus::Success {
                    self.progress.success += 1;
                } else {
                    self.progress.failed += 1;
                }
                self.queue.push_back(Action::Write(Box::new(probe)));
                self.queue.push_back(Action::Progress(self.progress));
            }
        }
        Ok(())
    }

    /// Stops the session: no new request is sent, pending back-offs are abandoned, responses
    /// still in flight will be dropped, and the next [`Session::poll`] calls (after any probe
    /// already finished has been handed out for writing) end with status `cancelled`.
    pub fn cancel(&mut self) {
        if self.finished || self.cancelled {
            return;
        }
        self.cancelled = true;
        self.queue.retain(|a| !matches!(a, Action::Sleep { .. }));
        self.slots.iter_mut().for_each(|s| *s = SlotState::Idle);
        self.progress.in_flight = 0;
        self.queue.push_back(Action::Progress(self.progress));
    }

    fn send(&mut self, slot: usize, task: Task, attempt: Attempt, spent: Spent) -> Action {
        let continuation = (!attempt.paused.is_empty()).then(|| Continuation::of(&attempt.paused));
        let request = SendRequest {
            slot: Slot(slot),
            probe_id: task.probe_id.clone(),
            prompt_id: task.prompt_id.clone(),
            prompt_text: self.prompt_texts.get(task.prompt_index).cloned().unwrap_or_default(),
            attempt: attempt.number,
            timeout_ms: self.options.timeout_ms,
            continuation,
        };
        self.slots[slot] = SlotState::InFlight { task, attempt, spent };
        Action::Send(request)
    }

    fn finish(&mut self, status: RunStatus, now_ms: u64) -> Action {
        self.finished = true;
        Action::Finished(RunOutcome { status, finished_at: iso_timestamp(now_ms) })
    }

    fn build_probe(&self, t: &Task, done: Done, now_ms: u64, outcome: AttemptOutcome) -> Probe {
        let Done { status, attempts, latency_ms, continuations, spent } = done;
        let (response, error) = match (status, outcome) {
            (ProbeStatus::Empty, Ok(r)) => (
                r,
                Some(ProbeError {
                    kind: ErrorKind::Empty,
                    http_status: None,
                    message: format!(
                        "the answer was empty after {attempts} attempts; run the probe again or switch the model"
                    ),
                }),
            ),
            (_, Ok(r)) => (r, None),
            (_, Err(e)) => (ParsedResponse::default(), Some(e)),
        };
        let model = if response.model.is_empty() { self.config.model.clone() } else { response.model };
        let mut probe = Probe {
            model,
            attempts,
            latency_ms,
            error,
            request_id: response.request_id,
            stop_reason: response.stop_reason,
            usage: response.usage,
            truncated: response.truncated,
            billed_usage: Some(spent.usage),
            continuations,
            cost_usd: spent.cost_usd.filter(|_| spent.billed),
            raw_answer: response.raw_answer,
            queries: response.queries,
            raw_sources: response.raw_sources,
            raw_citations: response.raw_citations,
            location_applied: crate::provider::location_applied(&self.config),
            ..Probe::unanalysed(
                t.probe_id.clone(),
                &self.run_id,
                &self.project_id,
                &t.prompt_id,
                t.repeat_index,
                status,
                iso_timestamp(now_ms),
            )
        };
        // Every written probe equals its own re-analysis, whatever its status.
        RunAnalyzer::with_facts(&self.alias_snapshot, self.fact_snapshot.as_ref(), self.config.engine)
            .analyze(&mut probe);
        probe
    }
}
