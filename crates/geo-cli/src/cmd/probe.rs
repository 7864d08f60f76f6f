//! `geo-probe run`, `resume` and `retry-failed`: the seed §3 runner, driven from a terminal,
//! for any engine of `shared/spec/engines.md` and for several engines at once.
//!
//! The driver loop owns one [`runner::Session`] per run (a *lane*: `run --engine a,b` starts one run
//! per engine, sharing a `groupId`, and drives them side by side); one worker thread per slot
//! of each lane performs the requests with that run's [`provider::Endpoint`] and sends each
//! outcome back over one channel; Ctrl-C sends a cancel over the same channel and cancels
//! every lane. On every [`Action::Write`] OUT is rewritten atomically with FILE's content,
//! the runs (status `running` until their session finishes) and every probe so far, so
//! killing the process loses at most the probes in flight. All input checks happen before the
//! first write (every engine's key or proxy, every model, the prompts): bad input exits 2 and
//! leaves no OUT behind.
//!
//! Keys come from each engine's own variable (`DEEPSEEK_API_KEY`, `ANTHROPIC_API_KEY`,
//! `OPENAI_API_KEY`, `GEMINI_API_KEY`, `PERPLEXITY_API_KEY`) and travel only in the request
//! headers; with `--base-url` and no key an engine runs in proxy mode (no auth header).

use std::collections::HashMap;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use anyhow::{anyhow, Context, Result};
use geo_core::model::{EngineId, ExportEnvelope, Probe, ProbeStatus, ReasoningEffort, Run, RunConfig, RunStatus};
use geo_core::prng::SplitMix64;
use geo_core::provider::{self, auth_mode, budget, parse_base_url, BaseUrl, Endpoint, KeyError, KeyMode};
use geo_core::runner::{
    self, iso_timestamp, start_run, Action, AttemptOutcome, Mode, Progress, Slot, DEFAULT_TIMEOUT_MS,
};

use crate::args::{Args, Arity};
use crate::bases::EngineBases;
use crate::io::{input_error, write_atomic_with};
use crate::out_file::FrozenEnvelope;
use crate::transport;
use geo_core::safe::Redactor;

/// Exit status of a cancelled run (128 + SIGINT, as shells report Ctrl-C).
const EXIT_CANCELLED: u8 = 130;

const TRANSPORT_FLAGS: &[(&str, Arity)] =
    &[("out", Arity::One), ("base-url", Arity::One), ("timeout-secs", Arity::One)];

const RUN_FLAGS: &[(&str, Arity)] = &[
    ("project", Arity::One),
    ("engine", Arity::One),
    ("prompts", Arity::One),
    ("repeats", Arity::One),
    ("concurrency", Arity::One),
    ("max-searches", Arity::One),
    ("model", Arity::One),
    ("temperature", Arity::One),
    ("max-tokens", Arity::One),
    ("reasoning-effort", Arity::One),
];

/// Reads FILE (`-` = standard input) as an export envelope.
///
/// The one place input is loaded, so a validating importer can replace it.
pub fn load_input(path: &str) -> Result<ExportEnvelope> {
    super::export::load_export(path)
}

/// The transport flags every engine of the command shares.
struct TransportSettings {
    /// Every `--base-url` (`E=URL` per engine, or one bare URL), each checked by geo-core's
    /// one base-URL rule (no user name or password).
    bases: EngineBases,
    timeout_ms: u64,
}

/// Whether `engine`'s key variable holds a key (which a request would send).
pub(crate) fn has_key(engine: EngineId) -> bool {
    key_from_env(provider::spec(engine).key_env).ok().flatten().is_some_and(|k| !k.trim().is_empty())
}

/// The key variable's value: `None` when unset; not UTF-8 is an input error (never shown).
pub fn key_from_env(var: &str) -> Result<Option<String>> {
    match std::env::var(var) {
        Ok(v) => Ok(Some(v)),
        Err(std::env::VarError::NotPresent) => Ok(None),
        Err(std::env::VarError::NotUnicode(_)) => {
            Err(input_error(format!("{var} is not valid UTF-8 text; set it to the key again")))
        }
    }
}

/// The base URL and key rules of geo-core (`provider::url`), with the CLI's wording; the
/// session's secrets are registered for redaction before any request.
pub fn checked_endpoint(base_flag: Option<&str>, var: &str) -> Result<(Option<BaseUrl>, KeyMode)> {
    let base = checked_base(base_flag)?;
    let mode = checked_key(var, "", base.as_ref())?;
    Ok((base, mode))
}

/// `--base-url` through geo-core's one base-URL rule, for every engine.
pub fn checked_base(base_flag: Option<&str>) -> Result<Option<BaseUrl>> {
    parse_base_url(base_flag.unwrap_or("")).map_err(|e| input_error(format!("--base-url: {e}")))
}

/// The key in `var` through geo-core's key-or-proxy rule (`engine`: the engine's name for
/// the message, empty for none); the key and the base's secrets are registered for
/// redaction before any request.
pub fn checked_key(var: &str, engine: &str, base: Option<&BaseUrl>) -> Result<KeyMode> {
    let key = key_from_env(var)?;
    let mode = auth_mode(key.as_deref(), base).map_err(|e| match e {
        KeyError::Missing => {
            let which = if engine.is_empty() { String::new() } else { format!("{engine} ") };
            input_error(format!(
                "{var} is not set; export your {which}api key, or pass --base-url to run through a proxy (or the mock) without one"
            ))
        }
        e => input_error(format!("{var}: {e}")),
    })?;
    crate::terminal::register(&Redactor::for_session(&mode, base));
    Ok(mode)
}

fn transport_settings(args: &Args) -> Result<TransportSettings> {
    let bases = EngineBases::parse(args.values("base-url"))?;
    let timeout_ms = match args.number::<u64>("timeout-secs").map_err(input_error)? {
        None => DEFAULT_TIMEOUT_MS,
        Some(0) => return Err(input_error("--timeout-secs must be at least 1")),
        Some(s) => s.saturating_mul(1000),
    };
    Ok(TransportSettings { bases, timeout_ms })
}

/// Every engine whose key variable holds something, in engines.md's order (`doctor` and
/// `proxy` without `--engine`).
pub(crate) fn keyed_engines() -> Result<Vec<EngineId>> {
    let mut keyed = Vec::new();
    for engine in EngineId::ALL {
        if key_from_env(provider::spec(engine).key_env)?.is_some_and(|k| !k.trim().is_empty()) {
            keyed.push(engine);
        }
    }
    Ok(keyed)
}

/// Every engine's key variable, comma-separated, for messages.
pub(crate) fn key_vars() -> String {
    EngineId::ALL.iter().map(|e| provider::spec(*e).key_env).collect::<Vec<_>>().join(", ")
}

/// The endpoint of a run of `config`: its engine's key (checked before any request), else
/// proxy mode with `--base-url`.
fn endpoint_for(config: &RunConfig, transport: &TransportSettings) -> Result<Endpoint> {
    let spec = provider::spec(config.engine);
    let base = transport.bases.for_engine(config.engine);
    let mode = checked_key(spec.key_env, spec.name, base)?;
    let base = base.map(BaseUrl::as_str);
    Ok(crate::transport::endpoint(config, base, mode.key()))
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

/// The engines of `--engine E[,E…]` in the order given, each once (default: DeepSeek).
pub(crate) fn engines_flag(args: &Args) -> Result<Vec<EngineId>> {
    let Some(list) = args.value("engine") else { return Ok(vec![EngineId::Deepseek]) };
    let mut engines = Vec::new();
    for name in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let engine = EngineId::parse(&name.to_ascii_lowercase()).ok_or_else(|| {
            let all: Vec<&str> = EngineId::ALL.iter().map(|e| e.as_str()).collect();
            input_error(format!("unknown engine {name:?} in --engine; use one or more of {}", all.join(", ")))
        })?;
        if !engines.contains(&engine) {
            engines.push(engine);
        }
    }
    if engines.is_empty() {
        return Err(input_error("--engine needs at least one engine id"));
    }
    Ok(engines)
}

/// The model of each engine from `--model`: a bare `M` (one engine only) or `E=M[,E=M…]`;
/// an engine without one gets its default model.
fn models_flag(args: &Args, engines: &[EngineId]) -> Result<HashMap<EngineId, String>> {
    let mut models: HashMap<EngineId, String> =
        engines.iter().map(|e| (*e, provider::spec(*e).default_model.to_string())).collect();
    let Some(value) = args.value("model").map(str::trim).filter(|m| !m.is_empty()) else { return Ok(models) };
    if !value.contains('=') {
        if engines.len() > 1 {
            return Err(input_error(
                "--model with several engines takes engine=model pairs, e.g. --model openai=gpt-5,gemini=gemini-2.5-pro",
            ));
        }
        models.insert(engines[0], value.to_string());
        return Ok(models);
    }
    for pair in value.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let (name, model) = pair
            .split_once('=')
            .map(|(n, m)| (n.trim(), m.trim()))
            .filter(|(_, m)| !m.is_empty())
            .ok_or_else(|| input_error(format!("--model {pair:?} is not engine=model")))?;
        let engine = EngineId::parse(&name.to_ascii_lowercase())
            .filter(|e| engines.contains(e))
            .ok_or_else(|| input_error(format!("--model names {name:?}, which is not one of the --engine list")))?;
        models.insert(engine, model.to_string());
    }
    Ok(models)
}

/// Each engine's run config from the flags: its model, the counts, and the budget of
/// `provider::budget` for `--max-tokens` and `--reasoning-effort` (notes printed as
/// `warning:` lines); `--temperature` is checked against each engine's range when the run
/// starts, and engines whose requests carry no temperature get one `warning:` line.
fn run_configs(args: &Args, engines: &[EngineId], models: &HashMap<EngineId, String>) -> Result<Vec<RunConfig>> {
    let number = |name: &str, default: u32| -> Result<u32> {
        Ok(args.number::<u32>(name).map_err(input_error)?.unwrap_or(default))
    };
    let defaults = RunConfig::default();
    let (repeats, concurrency, max_searches) = (
        number("repeats", defaults.repeats)?,
        number("concurrency", defaults.concurrency)?,
        number("max-searches", defaults.max_searches)?,
    );
    let max_tokens = args.number::<u32>("max-tokens").map_err(input_error)?;
    let effort = match args.value("reasoning-effort").map(|v| v.trim().to_ascii_lowercase()) {
        None => None,
        Some(v) => Some(ReasoningEffort::parse(&v).ok_or_else(|| {
            input_error(format!("--reasoning-effort {v:?} is not one of low, medium, high; pick one of them"))
        })?),
    };
    let temperature = match args.value("temperature") {
        None => None,
        Some(v) => Some(
            v.trim()
                .parse::<f64>()
                .ok()
                .filter(|t| t.is_finite())
                .ok_or_else(|| input_error(format!("--temperature {v:?} is not a number; pass one such as 0.7")))?,
        ),
    };
    let mut configs = Vec::new();
    for e in engines {
        let mut config = RunConfig {
            engine: *e,
            model: models[e].clone(),
            repeats,
            concurrency,
            max_searches,
            temperature: temperature.unwrap_or(defaults.temperature),
            ..defaults.clone()
        };
        let b = budget::resolve(*e, &config.model, max_tokens, effort)
            .map_err(|e| input_error(format!("--max-tokens: {e}")))?;
        for note in &b.notes {
            crate::terminal::eprint_line(&format!("warning: {}", note.localized().en));
        }
        b.apply(&mut config);
        configs.push(config);
    }
    if temperature.is_some() {
        let ignoring: Vec<String> = engines
            .iter()
            .filter(|e| provider::spec(**e).temperature.is_none())
            .map(|e| format!("{} ({e})", provider::spec(*e).name))
            .collect();
        if !ignoring.is_empty() {
            crate::terminal::eprint_line(&format!(
                "warning: {} send no temperature, so --temperature does not apply to {}",
                ignoring.join(" and "),
                if ignoring.len() == 1 { "it" } else { "them" }
            ));
        }
    }
    Ok(configs)
}

/// `geo-probe run FILE --project ID --out OUT [--engine E[,E…]] [--prompts ID,ID]
/// [--repeats N] [--concurrency N] [--max-searches N] [--model M | E=M,…] [--base-url URL]
/// [--timeout-secs S] [--temperature T] [--max-tokens N] [--reasoning-effort low|medium|high]`.
pub fn run(rest: &[String]) -> Result<ExitCode> {
    let args = parse(rest, RUN_FLAGS)?;
    let file = &args.positionals[0];
    let project_id = required(&args, "project", "ID")?.trim().to_string();
    let out = PathBuf::from(required(&args, "out", "OUT")?);
    let engines = engines_flag(&args)?;
    let models = models_flag(&args, &engines)?;
    let configs = run_configs(&args, &engines, &models)?;
    // Every engine's temperature range, before any key check or request (engines.md, "Fidelity").
    for config in &configs {
        geo_core::runner::check_temperature(config.engine, config.temperature)
            .map_err(|e| input_error(e.to_string()))?;
    }
    let transport = transport_settings(&args)?;
    transport.bases.check(&engines, "in --engine", has_key)?;
    let endpoints = configs.iter().map(|c| endpoint_for(c, &transport)).collect::<Result<Vec<_>>>()?;
    let mut env = load_input(file)?;
    let project = env.projects.iter().find(|p| p.id == project_id).cloned().ok_or_else(|| {
        input_error(format!("project {project_id} is not in {file}; pass the id of one of its projects"))
    })?;
    let selected: Vec<String> = match args.value("prompts") {
        Some(list) => list.split(',').map(str::trim).filter(|s| !s.is_empty()).map(str::to_string).collect(),
        None => env.prompts.iter().filter(|p| p.project_id == project.id).map(|p| p.id.clone()).collect(),
    };
    let now = now_ms();
    let group_id = (engines.len() > 1).then(|| new_id("grp", now, &env.runs));
    let mut lanes = Vec::new();
    let first_new = env.runs.len();
    for (config, endpoint) in configs.into_iter().zip(endpoints) {
        let run_id = new_id("run", now, &env.runs);
        let mut run =
            start_run(&project, &env.prompts, &selected, config, &env.runs[..first_new], run_id, iso_timestamp(now))
                .map_err(|e| input_error(e.to_string()))?;
        run.group_id = group_id.clone();
        let engine = runner::Session::new(
            &run,
            Mode::Fresh,
            runner::SessionOptions { timeout_ms: transport.timeout_ms, ..runner::SessionOptions::default() },
        )
        .map_err(|e| input_error(e.to_string()))?;
        env.runs.push(run);
        lanes.push(Lane::new(env.runs.len() - 1, engine, endpoint));
    }
    let live: Vec<usize> = lanes.iter().map(|l| l.run_index).collect();
    drive(Session::new(env, &live, out)?, lanes)
}

/// `geo-probe resume FILE --run ID --out OUT [--base-url URL] [--timeout-secs S]`: 继续运行,
/// with the run's own engine, model and config.
pub fn resume(rest: &[String]) -> Result<ExitCode> {
    again(rest, |existing| Mode::Continue { existing })
}

/// `geo-probe retry-failed FILE --run ID --out OUT [--base-url URL] [--timeout-secs S]`:
/// 重试失败项, with the run's own engine.
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
    let engine = env.runs[run_index].config.engine;
    transport.bases.check(&[engine], &format!("the engine of run {run_id} ({engine})"), has_key)?;
    let endpoint = endpoint_for(&env.runs[run_index].config, &transport)?;
    let existing: Vec<Probe> = env.probes.iter().filter(|p| p.run_id == run_id).cloned().collect();
    let engine = runner::Session::new(
        &env.runs[run_index],
        mode(existing),
        runner::SessionOptions { timeout_ms: transport.timeout_ms, ..runner::SessionOptions::default() },
    )
    .map_err(|e| input_error(e.to_string()))?;
    let run = &mut env.runs[run_index];
    run.status = RunStatus::Running;
    run.finished_at = None;
    drive(Session::new(env, &[run_index], out)?, vec![Lane::new(run_index, engine, endpoint)])
}

/// The envelope being written: FILE's content, the runs, and every probe so far.
struct Session {
    env: ExportEnvelope,
    probe_index: HashMap<String, usize>,
    out: PathBuf,
    /// Everything but the session's runs and their probes, serialised once (`out_file`).
    frozen: FrozenEnvelope,
}

impl Session {
    fn new(env: ExportEnvelope, run_indices: &[usize], out: PathBuf) -> Result<Session> {
        // The store overwrites by id: the last record of an id is the one to replace.
        let probe_index = env.probes.iter().enumerate().map(|(i, p)| (p.id.clone(), i)).collect();
        let frozen = FrozenEnvelope::new(&env, run_indices).context("cannot serialise the export")?;
        Ok(Session { env, probe_index, out, frozen })
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

/// One run being driven: its engine session, where its requests go, and its workers.
struct Lane {
    run_index: usize,
    engine: runner::Session,
    endpoint: Endpoint,
    workers: Vec<mpsc::Sender<Job>>,
    finished: bool,
}

impl Lane {
    fn new(run_index: usize, engine: runner::Session, endpoint: Endpoint) -> Lane {
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

fn drive(mut session: Session, mut lanes: Vec<Lane>) -> Result<ExitCode> {
    session.write(now_ms()).map_err(|e| input_error(format!("{e:#}; check the --out path")))?;
    let (events, inbox) = mpsc::channel::<Event>();
    install_ctrl_c(events.clone());
    let agent = transport::agent();
    // Every engine's key and base were registered when its endpoint was checked.
    let redactor = crate::terminal::redactor();
    for (index, lane) in lanes.iter_mut().enumerate() {
        lane.workers = (0..lane.engine.concurrency())
            .map(|slot| {
                let (jobs, queue) = mpsc::channel::<Job>();
                let (events, agent, endpoint, redactor) =
                    (events.clone(), agent.clone(), lane.endpoint.clone(), redactor.clone());
                std::thread::spawn(move || {
                    for job in queue {
                        let outcome = transport::send(&agent, &endpoint, &job.body, job.timeout_ms, &redactor);
                        let event = Event::Response {
                            lane: index,
                            slot: Slot(slot),
                            outcome: Box::new(outcome),
                            at_ms: now_ms(),
                        };
                        if events.send(event).is_err() {
                            break;
                        }
                    }
                });
                jobs
            })
            .collect();
    }
    drop(events);
    let labels: Vec<String> =
        lanes.iter().map(|l| format!("{} {}", session.env.runs[l.run_index].id, l.endpoint.engine)).collect();
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
                        session.store(*probe);
                        session.write(now_ms())?;
                    }
                    Action::Progress(p) => bar.progress(index, p),
                    Action::Finished(outcome) => {
                        outcome.apply(&mut session.env.runs[lane.run_index]);
                        session.write(now_ms())?;
                        lane.finished = true;
                        lane.workers.clear();
                        bar.note(&summary(&session, lane.run_index));
                        break;
                    }
                }
            }
        }
        if lanes.iter().all(|l| l.finished) {
            return finish(&session, &lanes, &mut bar);
        }
        let wakeup = lanes.iter().filter(|l| !l.finished).filter_map(|l| l.engine.next_wakeup()).min();
        let event = match wakeup {
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

/// One line about a finished run: its engine, status and counts, the answers a length limit
/// cut off and the estimated cost of every billed attempt.
fn summary(session: &Session, run_index: usize) -> String {
    let run = &session.env.runs[run_index];
    let probes: Vec<Probe> = session.env.probes.iter().filter(|p| p.run_id == run.id).cloned().collect();
    let (success, failed, truncated) = probes.iter().fold((0, 0, 0), |(s, f, t), p| {
        let ok = p.status == ProbeStatus::Success;
        (s + usize::from(ok), f + usize::from(p.status.is_failure()), t + usize::from(ok && p.truncated))
    });
    let mut line = format!(
        "run {} ({}) {}: {success} success, {failed} failed of {} planned",
        run.id,
        run.config.engine,
        status_name(run.status),
        run.planned_probe_count
    );
    if truncated > 0 {
        line.push_str(&format!(", {truncated} truncated (raise --max-tokens or lower --reasoning-effort)"));
    }
    if let Some(cost) = geo_core::metrics::run_cost(run, &probes) {
        line.push_str(&format!(", estimated cost ${cost:.4}"));
    }
    line
}

fn finish(session: &Session, lanes: &[Lane], bar: &mut Bar) -> Result<ExitCode> {
    let runs: Vec<&Run> = lanes.iter().map(|l| &session.env.runs[l.run_index]).collect();
    let ids: Vec<&str> = runs.iter().map(|r| r.id.as_str()).collect();
    bar.done(&format!("wrote {} ({})", session.out.display(), ids.join(", ")));
    let cancelled: Vec<&&Run> = runs.iter().filter(|r| r.status == RunStatus::Cancelled).collect();
    if !cancelled.is_empty() {
        for run in cancelled {
            bar.note(&format!(
                "continue it with: geo-probe resume {} --run {} --out {}",
                session.out.display(),
                run.id,
                session.out.display()
            ));
        }
        return Ok(ExitCode::from(EXIT_CANCELLED));
    }
    let failed: Vec<String> = runs
        .iter()
        .filter(|r| r.status == RunStatus::Failed)
        .map(|r| format!("{} ({})", r.id, r.config.engine))
        .collect();
    if failed.is_empty() {
        return Ok(ExitCode::SUCCESS);
    }
    Err(anyhow!(
        "run {} failed: no probe succeeded; see each probe's error in {}",
        failed.join(", "),
        session.out.display()
    ))
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

/// The progress display on standard error: one `\r` line on a terminal (every run's counters
/// side by side), plain lines otherwise (each prefixed with its run's engine when there are
/// several).
struct Bar {
    labels: Vec<String>,
    tty: bool,
    pending: Option<(usize, String)>,
    progress: Vec<Progress>,
    width: usize,
}

impl Bar {
    fn new(labels: Vec<String>) -> Bar {
        let progress = vec![Progress::default(); labels.len()];
        Bar { labels, tty: std::io::stderr().is_terminal(), pending: None, progress, width: 0 }
    }

    fn probe(&mut self, lane: usize, p: &Probe) {
        let mark = if p.status == ProbeStatus::Success { "✓" } else { "✗" };
        let mut line =
            format!("{mark} {} {} ({} attempt(s), {} ms)", p.id, status_name(p.status), p.attempts, p.latency_ms);
        if p.truncated {
            line.push_str(" [truncated: the answer hit the output limit]");
        }
        if let Some(e) = &p.error {
            line.push_str(&format!(": {}", e.message));
        }
        self.pending = Some((lane, line));
    }

    fn progress(&mut self, lane: usize, p: Progress) {
        self.progress[lane] = p;
        if self.tty {
            let line = self
                .labels
                .iter()
                .zip(&self.progress)
                .map(|(label, p)| {
                    format!(
                        "{label}  {}/{} done  ✓ {}  ✗ {}  {} in flight",
                        p.done, p.planned, p.success, p.failed, p.in_flight
                    )
                })
                .collect::<Vec<_>>()
                .join("  |  ");
            let pad = self.width.saturating_sub(line.chars().count());
            self.width = line.chars().count();
            crate::terminal::eprint_over(&line, pad);
        } else if let Some((lane, line)) = self.pending.take() {
            let p = self.progress[lane];
            if self.labels.len() > 1 {
                crate::terminal::eprint_line(&format!("[{} {}/{}] {line}", self.labels[lane], p.done, p.planned));
            } else {
                crate::terminal::eprint_line(&format!("[{}/{}] {line}", p.done, p.planned));
            }
        }
    }

    fn note(&mut self, text: &str) {
        if self.tty && self.width > 0 {
            eprintln!();
            self.width = 0;
        }
        crate::terminal::eprint_line(text);
    }

    fn done(&mut self, text: &str) {
        self.note(text);
    }
}

/// Unix time in milliseconds.
fn now_ms() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_millis() as u64).unwrap_or(0)
}

/// `<prefix>_<yyyymmddThhmmss>_<4 hex>` (`run_…`, `grp_…`) from the clock and the OS's randomness.
fn id_with_prefix(prefix: &str, now: u64) -> String {
    let stamp: String = iso_timestamp(now).chars().take(19).filter(|c| *c != '-' && *c != ':').collect();
    format!("{prefix}_{stamp}_{:04x}", os_seeded_random().next_u32() & 0xffff)
}

/// A new `prefix_…` id (see [`id_with_prefix`]) that no run of `runs` has as its id or group.
fn new_id(prefix: &str, now: u64, runs: &[Run]) -> String {
    loop {
        let id = id_with_prefix(prefix, now);
        if !runs.iter().any(|r| r.id == id || r.group_id.as_deref() == Some(&id)) {
            return id;
        }
    }
}

/// The workspace's one PRNG ([`SplitMix64`]) seeded from `/dev/urandom` (or the clock and
/// pid where that is missing): the back-off jitter and the run id suffix.
fn os_seeded_random() -> SplitMix64 {
    SplitMix64::new(crate::io::os_random_u64())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_ids_have_the_documented_shape() {
        // 2026-11-29T08:00:00.000Z
        let id = new_id("run", 1_795_939_200_000, &[]);
        assert!(id.starts_with("run_20261129T080000_"), "{id}");
        let suffix = &id["run_20261129T080000_".len()..];
        assert_eq!(suffix.len(), 4);
        assert!(suffix.chars().all(|c| c.is_ascii_hexdigit()));
    }

    #[test]
    fn engine_and_model_flags() {
        let args = |raw: &[&str]| {
            let raw: Vec<String> = raw.iter().map(|s| s.to_string()).collect();
            Args::parse(&raw, RUN_FLAGS).unwrap()
        };
        assert_eq!(engines_flag(&args(&[])).unwrap(), [EngineId::Deepseek]);
        let a = args(&["--engine", " OpenAI, gemini,openai "]);
        assert_eq!(engines_flag(&a).unwrap(), [EngineId::Openai, EngineId::Gemini]);
        for bad in [&["--engine", "bing"][..], &["--engine", " , "]] {
            assert!(engines_flag(&args(bad)).is_err(), "{bad:?}");
        }
        let both = [EngineId::Openai, EngineId::Gemini];
        let m = models_flag(&args(&[]), &both).unwrap();
        assert_eq!((m[&EngineId::Openai].as_str(), m[&EngineId::Gemini].as_str()), ("gpt-5-mini", "gemini-2.5-flash"));
        let m = models_flag(&args(&["--model", "openai=gpt-5"]), &both).unwrap();
        assert_eq!((m[&EngineId::Openai].as_str(), m[&EngineId::Gemini].as_str()), ("gpt-5", "gemini-2.5-flash"));
        assert_eq!(models_flag(&args(&["--model", "x"]), &[EngineId::Perplexity]).unwrap()[&EngineId::Perplexity], "x");
        for bad in ["gpt-5", "claude=x", "openai=", "nope"] {
            assert!(models_flag(&args(&["--model", bad]), &both).is_err(), "{bad}");
        }
    }

    #[test]
    fn group_and_run_ids_never_collide() {
        let id = new_id("grp", 1_795_939_200_000, &[]);
        assert!(id.starts_with("grp_20261129T080000_"), "{id}");
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
