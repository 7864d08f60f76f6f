//! The driver loop: one runner session per run (a *lane*), one worker thread per slot of each
//! lane performing its requests, every outcome and a Ctrl-C back over one channel, and OUT
//! rewritten atomically on every [`Action::Write`].
//!
//! The runner decides what happens next (which request, whether to retry, how long to wait,
//! the run's status); this file only sends, sleeps and writes.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::Duration;

use anyhow::{anyhow, Context, Result};
use geo_core::model::{ExportEnvelope, Probe};
use geo_core::provider::Endpoint;
use geo_core::runner::{iso_timestamp, Action, AttemptOutcome, Session, Slot};
use geo_core::safe::Redactor;

use super::summary::{finish, summary, Bar};
use super::{os_seeded_random, EXIT_CANCELLED};
use crate::clock::now_ms;
use crate::io::{input_error, write_atomic_with};
use crate::out_file::FrozenEnvelope;
use crate::transport;

/// The envelope being written: FILE's content, the runs, and every probe so far.
pub(super) struct OutEnvelope {
    pub(super) env: ExportEnvelope,
    probe_index: HashMap<String, usize>,
    pub(super) out: PathBuf,
    /// Everything but the session's runs and their probes, serialised once (`out_file`).
    frozen: FrozenEnvelope,
}

impl OutEnvelope {
    pub(super) fn new(env: ExportEnvelope, run_indices: &[usize], out: PathBuf) -> Result<OutEnvelope> {
        // The store overwrites by id: the last record of an id is the one to replace.
        let probe_index = env.probes.iter().enumerate().map(|(i, p)| (p.id.clone(), i)).collect();
        let frozen = FrozenEnvelope::new(&env, run_indices).context("cannot serialise the export")?;
        Ok(OutEnvelope { env, probe_index, out, frozen })
    }

    fn store(&mut self, probe: Probe) {
        // The backstop: whatever carried a secret into a record (a proxy that echoes the key
        // into an answer), it is removed before the record is kept or written.
        // A record the secrets cannot be removed from is refused, never kept as it is.
        let Ok(probe) = crate::terminal::redactor().try_redact_value(probe) else {
            crate::terminal::eprint_line(&format!("warning: {}", geo_core::safe::Unredactable));
            return;
        };
        match self.probe_index.get(&probe.id) {
            Some(&i) => {
                self.env.probes[i] = probe;
                self.frozen.changed(i);
            }
            None => {
                self.probe_index.insert(probe.id.clone(), self.env.probes.len());
                self.env.probes.push(probe);
            }
        }
    }

    fn write(&mut self, now: u64) -> Result<()> {
        self.env.exported_at = iso_timestamp(now);
        let (frozen, env) = (&mut self.frozen, &self.env);
        write_atomic_with(&self.out, |w| frozen.write(env, w))
    }
}

/// One run being driven: its runner session, where its requests go, and its workers.
pub(super) struct Lane {
    pub(super) run_index: usize,
    engine: Session,
    pub(super) endpoint: Endpoint,
    workers: Vec<mpsc::Sender<Job>>,
    finished: bool,
}

impl Lane {
    pub(super) fn new(run_index: usize, engine: Session, endpoint: Endpoint) -> Lane {
        Lane { run_index, engine, endpoint, workers: Vec::new(), finished: false }
    }
}

/// What reaches the driver loop.
enum Event {
    Response { lane: usize, slot: Slot, outcome: Box<AttemptOutcome>, at_ms: u64 },
    Cancel,
}

/// One request for a worker.
struct Job {
    body: String,
    timeout_ms: u64,
}

/// Drives every lane until each has finished: OUT is written first (a bad `--out` fails
/// before any request), then after every probe and at each run's end.
pub(super) fn drive(mut envelope: OutEnvelope, mut lanes: Vec<Lane>) -> Result<std::process::ExitCode> {
    envelope.write(now_ms()).map_err(|e| input_error(format!("{e:#}; check the --out path")))?;
    let (events, inbox) = mpsc::channel::<Event>();
    install_ctrl_c(events.clone());
    let agent = transport::agent();
    // Every engine's key and base were registered when its endpoint was checked.
    let redactor = crate::terminal::redactor();
    for (index, lane) in lanes.iter_mut().enumerate() {
        lane.workers = start_workers(index, lane, &events, &agent, &redactor);
    }
    drop(events);
    let labels: Vec<String> =
        lanes.iter().map(|l| format!("{} {}", envelope.env.runs[l.run_index].id, l.endpoint.engine)).collect();
    let mut bar = Bar::new(labels);
    let mut random = os_seeded_random();
    loop {
        for (index, lane) in lanes.iter_mut().enumerate().filter(|(_, l)| !l.finished) {
            while let Some(action) = lane.engine.poll(now_ms()) {
                match action {
                    Action::Send(req) => {
                        let job = Job {
                            body: lane.endpoint.body_with(
                                &req.prompt_text,
                                lane.engine.config(),
                                req.continuation.as_ref(),
                            ),
                            timeout_ms: req.timeout_ms,
                        };
                        lane.workers[req.slot.0]
                            .send(job)
                            .map_err(|_| anyhow!("worker {} stopped; run the command again", req.slot.0))?;
                    }
                    Action::Sleep { .. } => {}
                    Action::Write(probe) => {
                        bar.probe(index, &probe);
                        envelope.store(*probe);
                        envelope.write(now_ms())?;
                    }
                    Action::Progress(p) => bar.progress(index, p),
                    Action::Finished(outcome) => {
                        outcome.apply(&mut envelope.env.runs[lane.run_index]);
                        envelope.write(now_ms())?;
                        lane.finished = true;
                        lane.workers.clear();
                        bar.note(&summary(&envelope, lane.run_index));
                        break;
                    }
                }
            }
        }
        if lanes.iter().all(|l| l.finished) {
            return finish(&envelope, &lanes, &mut bar);
        }
        match next_event(&lanes, &inbox)? {
            Some(Event::Response { lane, slot, outcome, at_ms }) => {
                let lane = &mut lanes[lane];
                // A response for a lane that already finished (cancelled) is dropped.
                if !lane.finished {
                    lane.engine.on_response(slot, at_ms, *outcome, random.next_u32()).map_err(|e| anyhow!("{e}"))?
                }
            }
            Some(Event::Cancel) => {
                bar.note("cancelling: requests in flight are abandoned, finished probes are kept");
                lanes.iter_mut().for_each(|l| l.engine.cancel());
            }
            None => {}
        }
    }
}

/// One worker thread per slot of `lane` (the lane at `index`), each performing the jobs it is
/// sent with the lane's endpoint and sending every outcome back as an [`Event`].
fn start_workers(
    index: usize,
    lane: &Lane,
    events: &mpsc::Sender<Event>,
    agent: &ureq::Agent,
    redactor: &Redactor,
) -> Vec<mpsc::Sender<Job>> {
    (0..lane.engine.concurrency())
        .map(|slot| {
            let (jobs, queue) = mpsc::channel::<Job>();
            let (events, agent, endpoint, redactor) =
                (events.clone(), agent.clone(), lane.endpoint.clone(), redactor.clone());
            std::thread::spawn(move || {
                for job in queue {
                    let outcome = transport::send(&agent, &endpoint, &job.body, job.timeout_ms, &redactor);
                    let event =
                        Event::Response { lane: index, slot: Slot(slot), outcome: Box::new(outcome), at_ms: now_ms() };
                    if events.send(event).is_err() {
                        break;
                    }
                }
            });
            jobs
        })
        .collect()
}

/// The next event, waiting at most until the earliest wake-up a live lane asked for
/// (`None` when that passed first).
fn next_event(lanes: &[Lane], inbox: &mpsc::Receiver<Event>) -> Result<Option<Event>> {
    let wakeup = lanes.iter().filter(|l| !l.finished).filter_map(|l| l.engine.next_wakeup()).min();
    match wakeup {
        Some(at) => match inbox.recv_timeout(Duration::from_millis(at.saturating_sub(now_ms()))) {
            Ok(e) => Ok(Some(e)),
            Err(mpsc::RecvTimeoutError::Timeout) => Ok(None),
            Err(mpsc::RecvTimeoutError::Disconnected) => Err(anyhow!("every worker stopped; run the command again")),
        },
        None => Ok(Some(inbox.recv().map_err(|_| anyhow!("every worker stopped; run the command again"))?)),
    }
}

fn install_ctrl_c(events: mpsc::Sender<Event>) {
    static PRESSED: AtomicUsize = AtomicUsize::new(0);
    // A second Ctrl-C leaves at once; OUT is still whole (every write is atomic).
    let _ = ctrlc::set_handler(move || {
        if PRESSED.fetch_add(1, Ordering::SeqCst) == 0 {
            let _ = events.send(Event::Cancel);
        } else {
            std::process::exit(i32::from(EXIT_CANCELLED));
        }
    });
}
