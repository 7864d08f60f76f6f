//! `geo-probe run`, `resume` and `retry-failed`: the seed §3 runner, driven from a terminal.
//!
//! The driver loop owns the [`Engine`]; one worker thread per slot performs the requests and
//! sends each outcome back over a channel; Ctrl-C sends a cancel over the same channel. On
//! every [`Action::Write`] OUT is rewritten atomically with FILE's content, the run (status
//! `running` until the session finishes) and every probe so far, so killing the process
//! loses at most the probes in flight. All input checks happen before the first write: bad
//! input exits 2 and leaves no OUT behind.

use std::collections::HashMap;
use std::io::{IsTerminal, Read};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use anyhow::{anyhow, Context, Result};
use geo_core::model::{ExportEnvelope, Probe, ProbeStatus, Run, RunConfig, RunStatus, DEFAULT_MODEL};
use geo_core::prng::SplitMix64;
use geo_core::provider;
use geo_core::runner::{
    iso_timestamp, start_run, Action, AttemptOutcome, Engine, EngineOptions, Mode, Progress, Slot, DEFAULT_TIMEOUT_MS,
};

use crate::args::{Args, Arity};
use crate::io::{input_error, write_atomic};
use crate::transport;

/// Environment variable holding the DeepSeek API key (the only place it is read from).
pub const KEY_ENV: &str = "DEEPSEEK_API_KEY";

/// Exit status of a cancelled run (128 + SIGINT, as shells report Ctrl-C).
const EXIT_CANCELLED: u8 = 130;

const TRANSPORT_FLAGS: &[(&str, Arity)] =
    &[("out", Arity::One), ("base-url", Arity::One), ("timeout-secs", Arity::One)];

const RUN_FLAGS: &[(&str, Arity)] = &[
    ("project", Arity::One),
    ("prompts", Arity::One),
    ("repeats", Arity::One),
    ("concurrency", Arity::One),
    ("max-searches", Arity::One),
    ("model", Arity::One),
];

/// Reads FILE (`-` = standard input) as an export envelope.
///
/// The one place input is loaded, so a validating importer can replace it.
pub fn load_input(path: &str) -> Result<ExportEnvelope> {
    super::export::load_export(path)
}

/// Where and how requests are sent.
struct TransportSettings {
    url: String,
    api_key: Option<String>,
    timeout_ms: u64,
}

fn transport_settings(args: &Args) -> Result<TransportSettings> {
    let base = args.value("base-url").map(str::trim).filter(|b| !b.is_empty());
    let api_key = std::env::var(KEY_ENV).ok().map(|k| k.trim().to_string()).filter(|k| !k.is_empty());
    if api_key.is_none() && base.is_none() {
        return Err(input_error(format!(
            "{KEY_ENV} is not set; export your DeepSeek api key, or pass --base-url to run through a proxy (or the mock) without one"
        )));
    }
    let url = provider::build_messages_url(base);
    if !(url.starts_with("http://") || url.starts_with("https://")) {
        return Err(input_error(format!(
            "--base-url must start with http:// or https://, got {:?}",
            base.unwrap_or("")
        )));
    }
    let timeout_ms = match args.number::<u64>("timeout-secs").map_err(input_error)? {
        None => DEFAULT_TIMEOUT_MS,
        Some(0) => return Err(input_error("--timeout-secs must be at least 1")),
        Some(s) => s.saturating_mul(1000),
    };
    Ok(TransportSettings { url, api_key, timeout_ms })
}

fn required<'a>(args: &'a Args, name: &str, what: &str) -> Result<&'a str> {
    args.value(name).filter(|v| !v.trim().is_empty()).ok_or_else(|| input_error(format!("--{name} {what} is required")))
}

fn parse(rest: &[String], extra: &[(&'static str, Arity)]) -> Result<Args> {
    let spec: Vec<(&str, Arity)> = TRANSPORT_FLAGS.iter().chain(extra).copied().collect();
    let args = Args::parse(rest, &spec).map_err(input_error)?;
    args.expect_positionals(&["FILE"]).map_err(input_error)?;
    Ok(args)
}

/// `geo-probe run FILE --project ID --out OUT [--prompts ID,ID] [--repeats N]
/// [--concurrency N] [--max-searches N] [--model M] [--base-url URL] [--timeout-secs S]`.
pub fn run(rest: &[String]) -> Result<ExitCode> {
    let args = parse(rest, RUN_FLAGS)?;
    let file = &args.positionals[0];
    let project_id = required(&args, "project", "ID")?.trim().to_string();
    let out = PathBuf::from(required(&args, "out", "OUT")?);
    let number = |name: &str, default: u32| -> Result<u32> {
        Ok(args.number::<u32>(name).map_err(input_error)?.unwrap_or(default))
    };
    let defaults = RunConfig::default();
    let config = RunConfig {
        model: args.value("model").map(str::trim).filter(|m| !m.is_empty()).unwrap_or(DEFAULT_MODEL).to_string(),
        repeats: number("repeats", defaults.repeats)?,
        concurrency: number("concurrency", defaults.concurrency)?,
        max_searches: number("max-searches", defaults.max_searches)?,
        ..defaults
    };
    let transport = transport_settings(&args)?;
    let mut env = load_input(file)?;
    let project = env.projects.iter().find(|p| p.id == project_id).ok_or_else(|| {
        input_error(format!("project {project_id} is not in {file}; pass the id of one of its projects"))
    })?;
    let selected: Vec<String> = match args.value("prompts") {
        Some(list) => list.split(',').map(str::trim).filter(|s| !s.is_empty()).map(str::to_string).collect(),
        None => env.prompts.iter().filter(|p| p.project_id == project.id).map(|p| p.id.clone()).collect(),
    };
    let now = now_ms();
    let run_id = new_run_id(now);
    let run = start_run(project, &env.prompts, &selected, config, &env.runs, run_id, iso_timestamp(now))
        .map_err(|e| input_error(e.to_string()))?;
    let engine =
        Engine::new(&run, Mode::Fresh, EngineOptions { timeout_ms: transport.timeout_ms, ..EngineOptions::default() })
            .map_err(|e| input_error(e.to_string()))?;
    env.runs.push(run);
    let run_index = env.runs.len() - 1;
    drive(Session::new(env, run_index, out), engine, &transport)
}

/// `geo-probe resume FILE --run ID --out OUT [--base-url URL] [--timeout-secs S]`: 继续运行.
pub fn resume(rest: &[String]) -> Result<ExitCode> {
    again(rest, |existing| Mode::Continue { existing })
}

/// `geo-probe retry-failed FILE --run ID --out OUT [--base-url URL] [--timeout-secs S]`: 重试失败项.
pub fn retry_failed(rest: &[String]) -> Result<ExitCode> {
    again(rest, |existing| Mode::RetryFailed { existing })
}

fn again(rest: &[String], mode: fn(Vec<Probe>) -> Mode) -> Result<ExitCode> {
    let args = parse(rest, &[("run", Arity::One)])?;
    let file = &args.positionals[0];
    let run_id = required(&args, "run", "ID")?.trim().to_string();
    let out = PathBuf::from(required(&args, "out", "OUT")?);
    let transport = transport_settings(&args)?;
    let mut env = load_input(file)?;
    let run_index = env
        .runs
        .iter()
        .rposition(|r| r.id == run_id)
        .ok_or_else(|| input_error(format!("run {run_id} is not in {file}; pass the id of one of its runs")))?;
    let existing: Vec<Probe> = env.probes.iter().filter(|p| p.run_id == run_id).cloned().collect();
    let engine = Engine::new(
        &env.runs[run_index],
        mode(existing),
        EngineOptions { timeout_ms: transport.timeout_ms, ..EngineOptions::default() },
    )
    .map_err(|e| input_error(e.to_string()))?;
    let run = &mut env.runs[run_index];
    run.status = RunStatus::Running;
    run.finished_at = None;
    drive(Session::new(env, run_index, out), engine, &transport)
}

/// The envelope being written: FILE's content, the run, and every probe so far.
struct Session {
    env: ExportEnvelope,
    run_index: usize,
    probe_index: HashMap<String, usize>,
    out: PathBuf,
}

impl Session {
    fn new(env: ExportEnvelope, run_index: usize, out: PathBuf) -> Session {
        // The store overwrites by id: the last record of an id is the one to replace.
        let probe_index = env.probes.iter().enumerate().map(|(i, p)| (p.id.clone(), i)).collect();
        Session { env, run_index, probe_index, out }
    }

    fn run(&self) -> &Run {
        &self.env.runs[self.run_index]
    }

    fn store(&mut self, probe: Probe) {
        match self.probe_index.get(&probe.id) {
            Some(&i) => self.env.probes[i] = probe,
            None => {
                self.probe_index.insert(probe.id.clone(), self.env.probes.len());
                self.env.probes.push(probe);
            }
        }
    }

    fn write(&mut self, now: u64) -> Result<()> {
        self.env.exported_at = iso_timestamp(now);
        let bytes = serde_json::to_vec_pretty(&self.env).context("cannot serialise the export")?;
        write_atomic(&self.out, &bytes)
    }
}

/// What reaches the driver loop.
enum Event {
    Response { slot: Slot, outcome: Box<AttemptOutcome>, at_ms: u64 },
    Cancel,
}

/// One request for a worker.
struct Job {
    body: String,
    timeout_ms: u64,
}

fn drive(mut session: Session, mut engine: Engine, transport: &TransportSettings) -> Result<ExitCode> {
    session.write(now_ms()).map_err(|e| input_error(format!("{e:#}; check the --out path")))?;
    let (events, inbox) = mpsc::channel::<Event>();
    install_ctrl_c(events.clone());
    let headers = provider::request_headers(transport.api_key.as_deref());
    let agent = transport::agent();
    let model = engine.config().model.clone();
    let workers: Vec<mpsc::Sender<Job>> = (0..engine.concurrency())
        .map(|slot| {
            let (jobs, queue) = mpsc::channel::<Job>();
            let (events, agent, headers, url, model) =
                (events.clone(), agent.clone(), headers.clone(), transport.url.clone(), model.clone());
            std::thread::spawn(move || {
                for job in queue {
                    let outcome = transport::send(&agent, &url, &headers, &job.body, job.timeout_ms, &model);
                    if events
                        .send(Event::Response { slot: Slot(slot), outcome: Box::new(outcome), at_ms: now_ms() })
                        .is_err()
                    {
                        break;
                    }
                }
            });
            jobs
        })
        .collect();
    drop(events);
    let mut bar = Bar::new(session.run().id.clone());
    let mut random = os_seeded_random();
    loop {
        while let Some(action) = engine.poll(now_ms()) {
            match action {
                Action::Send(req) => {
                    let job = Job {
                        body: provider::request_body_json(&req.prompt_text, engine.config()),
                        timeout_ms: req.timeout_ms,
                    };
                    workers[req.slot.0]
                        .send(job)
                        .map_err(|_| anyhow!("worker {} stopped; run the command again", req.slot.0))?;
                }
                Action::Sleep { .. } => {}
                Action::Write(probe) => {
                    bar.probe(&probe);
                    session.store(*probe);
                    session.write(now_ms())?;
                }
                Action::Progress(p) => bar.progress(p),
                Action::Finished(outcome) => {
                    outcome.apply(&mut session.env.runs[session.run_index]);
                    session.write(now_ms())?;
                    return finish(&session, &mut bar);
                }
            }
        }
        let event = match engine.next_wakeup() {
            Some(at) => match inbox.recv_timeout(Duration::from_millis(at.saturating_sub(now_ms()))) {
                Ok(e) => Some(e),
                Err(mpsc::RecvTimeoutError::Timeout) => None,
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    return Err(anyhow!("every worker stopped; run the command again"))
                }
            },
            None => Some(inbox.recv().map_err(|_| anyhow!("every worker stopped; run the command again"))?),
        };
        match event {
            Some(Event::Response { slot, outcome, at_ms }) => {
                engine.on_response(slot, at_ms, *outcome, random.next_u32()).map_err(|e| anyhow!("{e}"))?
            }
            Some(Event::Cancel) => {
                bar.note("cancelling: requests in flight are abandoned, finished probes are kept");
                engine.cancel();
            }
            None => {}
        }
    }
}

fn finish(session: &Session, bar: &mut Bar) -> Result<ExitCode> {
    let run = session.run();
    let probes: Vec<&Probe> = session.env.probes.iter().filter(|p| p.run_id == run.id).collect();
    let success = probes.iter().filter(|p| p.status == ProbeStatus::Success).count();
    let failed = probes.iter().filter(|p| p.status.is_failure()).count();
    bar.done(&format!(
        "run {} {}: {success} success, {failed} failed of {} planned; wrote {}",
        run.id,
        status_name(run.status),
        run.planned_probe_count,
        session.out.display()
    ));
    match run.status {
        RunStatus::Completed | RunStatus::Partial | RunStatus::Running => Ok(ExitCode::SUCCESS),
        RunStatus::Cancelled => {
            bar.note(&format!(
                "continue it with: geo-probe resume {} --run {} --out {}",
                session.out.display(),
                run.id,
                session.out.display()
            ));
            Ok(ExitCode::from(EXIT_CANCELLED))
        }
        RunStatus::Failed => Err(anyhow!(
            "run {} failed: no probe succeeded; see each probe's error in {}",
            run.id,
            session.out.display()
        )),
    }
}

/// The JSON name of a status (`completed`, `error` …).
fn status_name<T: serde::Serialize>(s: T) -> String {
    serde_json::to_value(s).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default()
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

/// The progress display on standard error: one `\r` line on a terminal, plain lines otherwise.
struct Bar {
    run_id: String,
    tty: bool,
    pending: Option<String>,
    width: usize,
}

impl Bar {
    fn new(run_id: String) -> Bar {
        Bar { run_id, tty: std::io::stderr().is_terminal(), pending: None, width: 0 }
    }

    fn probe(&mut self, p: &Probe) {
        let mark = if p.status == ProbeStatus::Success { "✓" } else { "✗" };
        let mut line =
            format!("{mark} {} {} ({} attempt(s), {} ms)", p.id, status_name(p.status), p.attempts, p.latency_ms);
        if let Some(e) = &p.error {
            line.push_str(&format!(": {}", e.message));
        }
        self.pending = Some(line);
    }

    fn progress(&mut self, p: Progress) {
        let counters =
            format!("{}/{} done  ✓ {}  ✗ {}  {} in flight", p.done, p.planned, p.success, p.failed, p.in_flight);
        if self.tty {
            let line = format!("{}  {counters}", self.run_id);
            let pad = self.width.saturating_sub(line.chars().count());
            self.width = line.chars().count();
            eprint!("\r{line}{}", " ".repeat(pad));
        } else if let Some(line) = self.pending.take() {
            eprintln!("[{}/{}] {line}", p.done, p.planned);
        }
    }

    fn note(&mut self, text: &str) {
        if self.tty && self.width > 0 {
            eprintln!();
            self.width = 0;
        }
        eprintln!("{text}");
    }

    fn done(&mut self, text: &str) {
        self.note(text);
    }
}

/// Unix time in milliseconds.
fn now_ms() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_millis() as u64).unwrap_or(0)
}

/// `run_<yyyymmddThhmmss>_<4 hex>` from the clock and the OS's randomness.
fn new_run_id(now: u64) -> String {
    let stamp: String = iso_timestamp(now).chars().take(19).filter(|c| *c != '-' && *c != ':').collect();
    format!("run_{stamp}_{:04x}", os_seeded_random().next_u32() & 0xffff)
}

/// The workspace's one PRNG ([`SplitMix64`]) seeded from `/dev/urandom` (or the clock and
/// pid where that is missing): the back-off jitter and the run id suffix.
fn os_seeded_random() -> SplitMix64 {
    let mut seed = [0u8; 8];
    let from_os = std::fs::File::open("/dev/urandom").and_then(|mut f| f.read_exact(&mut seed)).is_ok();
    let mut s = u64::from_le_bytes(seed);
    if !from_os {
        let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_nanos() as u64).unwrap_or(0);
        s = nanos ^ (u64::from(std::process::id()) << 32);
    }
    SplitMix64::new(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_ids_have_the_documented_shape() {
        // 2026-11-29T08:00:00.000Z
        let id = new_run_id(1_795_939_200_000);
        assert!(id.starts_with("run_20261129T080000_"), "{id}");
        let suffix = &id["run_20261129T080000_".len()..];
        assert_eq!(suffix.len(), 4);
        assert!(suffix.chars().all(|c| c.is_ascii_hexdigit()));
    }

    #[test]
    fn unreadable_or_foreign_input_is_an_input_error() {
        let dir = std::env::temp_dir().join(format!("geo-cli-load-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let not_json = dir.join("a.json");
        std::fs::write(&not_json, "nope").unwrap();
        let foreign = dir.join("b.json");
        std::fs::write(&foreign, r#"{"format":"other","version":1}"#).unwrap();
        for p in [not_json, foreign, dir.join("missing.json")] {
            let e = load_input(p.to_str().unwrap()).unwrap_err();
            assert!(e.downcast_ref::<crate::io::InputError>().is_some(), "{e}");
        }
    }
}
