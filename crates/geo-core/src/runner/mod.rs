//! The probe runner of seed §3, as pure decisions: a poll-style, sans-IO state machine.
//!
//! # The one decision: the core decides, the shells act
//!
//! A run is a small distributed-systems problem: a pool of one to three workers sends
//! requests that may fail, time out, come back empty or arrive after the user pressed
//! cancel; each probe is retried with back-off; every finished probe is stored at once; and
//! the run ends with a status computed from all of its probes.
//! The original web app wove those decisions into `async` workers, `fetch`, `setTimeout`
//! and IndexedDB calls, so they could only be tested in a browser with a mocked network.
//!
//! Here, as in quinn-proto and rustls, the decisions live in a state machine that performs
//! no I/O, reads no clock and draws no random numbers.
//! [`Session`] decides *what* happens next: which task a slot takes, whether an outcome is
//! retried, how long to back off, what probe record to write and what the run's status is.
//! The shells (the Yew app and `geo-probe run`/`resume`/`retry-failed`) only perform what it
//! asks: send the HTTP request, wait, store the probe, repaint the progress bar.
//! Time enters as `now_ms` (Unix milliseconds) and randomness as a `random: u32` argument,
//! so the tests drive every retry-table row, every back-off duration and every cancellation
//! race with a scripted fake transport and a virtual clock, in memory, in microseconds.
//!
//! # Pieces
//!
//! * [`start_run`] creates the `running` [`Run`](crate::model::Run) of §3.2: it validates the
//!   selection, freezes `aliasSnapshot`/`promptSnapshot`/config (concurrency clamped to 1..=3;
//!   `repeats` or `maxSearches` of 0 are errors, not clamped), and picks `previousRunId` with
//!   [`previous_run_id`].
//! * [`Mode`] says what a session does with a run: [`Mode::Fresh`], [`Mode::Continue`]
//!   (继续运行: the run's own snapshot and config, skipping ids already `success`) or
//!   [`Mode::RetryFailed`] (重试失败项: every `error`/`empty` id, serially). [`plan_tasks`]
//!   expands it into [`Task`]s, prompt outer and repeat inner.
//! * [`next_step`] is the retry table of §3.4 for one attempt; [`final_status`] is §3.5.
//! * [`Session`] ties them together.
//!
//! # Driving a session
//!
//! ```text
//! let run = start_run(..)?;                      // Fresh; store `run` (status running)
//! let mut session = Session::new(&run, mode, SessionOptions::default())?;
//! loop {
//!     while let Some(action) = session.poll(now_ms()) {
//!         match action {
//!             Action::Send(req) => spawn request:
//!                 body = endpoint.body_with(&req.prompt_text, session.config(), req.continuation.as_ref());
//!                 POST with req.timeout_ms; map status/transport error/JSON into
//!                 Result<ParsedResponse, ProbeError>; deliver (req.slot, outcome) to the loop
//!             Action::Sleep { .. }   => nothing to do (optionally log it)
//!             Action::Write(probe)   => store *probe (overwrite by id)
//!             Action::Progress(p)    => repaint
//!             Action::Finished(out)  => out.apply(&mut run); store run; abort open requests; return
//!         }
//!     }
//!     wait until a response arrives, the user cancels, or session.next_wakeup() is reached:
//!         response  => session.on_response(slot, now_ms(), outcome, random_u32())?
//!         cancel    => session.cancel()
//!         wakeup    => (nothing: the next poll resends)
//! }
//! ```
//!
//! For [`Mode::Continue`] and [`Mode::RetryFailed`] the shell first sets the stored run back
//! to `running` (and clears `finishedAt`); the outcome then overwrites both.
//!
//! # Choices made, and why
//!
//! * **The session owns the back-off timers.** A slot that backs off stays busy (it keeps its
//!   probe, as a worker of the original pool awaits its own sleep) and the first
//!   [`Session::poll`] at or after the deadline resends.
//!   [`Action::Sleep`] only informs; [`Session::next_wakeup`] tells a single-loop shell how
//!   long it may block. There is no "woke up" input a shell could forget to send.
//! * **The shell enforces the request timeout.** Every [`SendRequest`] carries `timeout_ms`
//!   (180 000 by default); the HTTP client's own timeout or `AbortController` turns it into
//!   a `timeout` [`ProbeError`](crate::model::ProbeError), which is retryable. Keeping the
//!   timer with the request that it aborts avoids a second source of truth.
//! * **`Send` carries the prompt text, not the request body.** The wire format belongs to
//!   [`crate::provider`]; the runner stays independent of it and the shell calls
//!   `endpoint.body_with(&prompt_text, session.config(), continuation)`.
//! * **A `pause_turn` is continued, not retried** (engines.md, "Fidelity"). A reply that
//!   paused the server-side tool loop makes the slot send the same request again with the
//!   paused content ([`SendRequest::continuation`]), up to
//!   [`MAX_CONTINUATIONS`](crate::provider::MAX_CONTINUATIONS) times: a new `Send` of the same
//!   slot and attempt. The whole turn becomes the attempt's outcome
//!   ([`merge_turn`](crate::provider::merge_turn)); a turn still paused after the last
//!   continuation is `truncated`. A cancel drops a turn in flight like any request.
//! * **Every attempt is billed.** Each reply's usage (and the engine's stated cost) is summed
//!   over the probe's attempts and continuations into `billedUsage` (and `costUsd` when every
//!   reply stated one); `usage` stays the answering attempt's.
//! * **Jitter is an argument of [`Session::on_response`].** Any random `u32` is reduced to
//!   0..=400 ms by remainder, so tests pass exact jitter values and the session stays `Clone`.
//! * **`now_ms` is Unix time.** The session formats a probe's `createdAt` (when it finished)
//!   and the run's `finishedAt` from it with [`iso_timestamp`], instead of asking the shell
//!   for a second, possibly inconsistent, clock reading. Latency is response time − send
//!   time of the last attempt, saturating at 0 if the wall clock steps back.
//! * **Cancellation ends the session at once.** After [`Session::cancel`] nothing is sent,
//!   probes already finished are still handed out for writing, responses still in flight are
//!   dropped (never a half-made or `cancelled` probe), and the session finishes `cancelled`.
//! * **Every written probe is analysed**, `empty` and `error` ones too, with
//!   [`analyze_probe`](crate::analysis::analyze_probe) over the run's `aliasSnapshot`, so a
//!   stored probe always equals its own re-analysis. An `empty` probe keeps the raw result
//!   and usage of its last attempt (tokens were spent); an `error` probe has no raw result.
//! * **The status covers the whole run.** The session keeps the newest status of every probe
//!   id of the run (stored records, overwritten as probes finish), so a continue or retry of
//!   failures recomputes the run's status over the union, not over the session.
//!   [`Progress`], in contrast, counts the session's own tasks: that is what its bar shows.
//!
//! **Architecture Invariant:** the runner performs no I/O, reads no clock and draws no
//! random numbers; a probe id is written at most once per session; at most
//! `clamp(concurrency, 1, 3)` requests are in flight (exactly one for a retry of failures);
//! nothing is written after the session finished.

mod error;
mod plan;
mod retry;
mod session;
mod start;
mod status;

pub use error::RunnerError;
pub use plan::{latest_records, plan_tasks, Mode, Task};
pub use retry::{
    empty_backoff_ms, error_backoff_ms, is_empty_answer, is_retryable, jitter_ms, next_step, AttemptOutcome, Step,
    DEFAULT_TIMEOUT_MS, EMPTY_BACKOFF_STEP_MS, ERROR_BACKOFF_STEP_MS, MAX_ATTEMPTS, MAX_JITTER_MS,
};
pub use session::{Action, Progress, RunOutcome, SendRequest, Session, SessionOptions};
pub use start::{
    check_location, check_method, check_temperature, clamp_concurrency, previous_run_id, start_run, MAX_CONCURRENCY,
};

/// A worker of the pool (0-based, below the session's concurrency). A slot runs one probe at
/// a time, through all of its attempts and back-offs, like a worker of the original pool.
/// (Here rather than in `session`, so that `error` can name it without importing the session.)
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Slot(pub usize);
pub use crate::timestamp::{iso_timestamp, parse_iso_micros, utc_date};
pub use status::{final_status, final_status_of};
