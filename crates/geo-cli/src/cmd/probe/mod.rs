//! `geo-probe run`, `resume` and `retry-failed`: the seed §3 runner, driven from a terminal,
//! for any engine of `shared/spec/engines.md` and for several engines at once.
//!
//! The driver loop owns one runner session per run (a *lane*: `run --engine a,b` starts one run
//! per engine, sharing a `groupId`, and drives them side by side); one worker thread per slot
//! of each lane performs the requests with that run's `provider::Endpoint` and sends each
//! outcome back over one channel; Ctrl-C sends a cancel over the same channel and cancels
//! every lane. On every `Action::Write` OUT is rewritten atomically with FILE's content,
//! the runs (status `running` until their session finishes) and every probe so far, so
//! killing the process loses at most the probes in flight. All input checks happen before the
//! first write (every engine's key or proxy, every model, the prompts): bad input exits 2 and
//! leaves no OUT behind.
//!
//! Keys come from each engine's own variable (the engine table's `key_env`: [`keys`]) and
//! travel only in the request headers; with `--base-url` and no key an engine runs in proxy
//! mode (no auth header).
//!
//! The files: [`flags`] (the flags, checked before anything is written), [`keys`] (each
//! engine's key or proxy, shared with `doctor`, `chat` and `proxy`), [`drive`] (the lanes, the
//! workers and the loop), [`summary`] (what is said on standard error, and the exit status).

mod drive;
mod flags;
mod keys;
mod summary;

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use geo_core::model::{ExportEnvelope, Probe, Run, RunStatus};
use geo_core::prng::SplitMix64;
use geo_core::provider;
use geo_core::runner::{iso_timestamp, start_run, Mode, Session, SessionOptions};

use crate::args::Arity;
use crate::clock::now_ms;
use crate::io::input_error;
use drive::{drive, Lane, OutEnvelope};
use flags::{models_flag, parse, required, run_configs, transport_settings, RUN_FLAGS};
use keys::endpoint_for;

pub(crate) use flags::engines_flag;
pub(crate) use keys::{checked_endpoint, checked_key, has_key, key_from_env, some_keyed_engines};

/// Exit status of a cancelled run (128 + SIGINT, as shells report Ctrl-C).
const EXIT_CANCELLED: u8 = 130;

/// Reads FILE (`-` = standard input) as an export envelope.
///
/// The one place input is loaded, so a validating importer can replace it.
pub fn load_input(path: &str) -> Result<ExportEnvelope> {
    super::export::load_export(path)
}

/// `geo-probe run FILE --project ID --out OUT [--engine E[,E…]] [--prompts ID,ID]
/// [--repeats N] [--concurrency N] [--max-searches N] [--model M | E=M,…] [--base-url URL]
/// [--timeout-secs S] [--temperature T] [--max-tokens N] [--reasoning-effort low|medium|high]
/// [--location CC[/REGION[/CITY]]] [--timezone TZ] [--no-location-prompt]`.
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
        let engine = Session::new(
            &run,
            Mode::Fresh,
            SessionOptions { timeout_ms: transport.timeout_ms, ..SessionOptions::default() },
        )
        .map_err(|e| input_error(e.to_string()))?;
        env.runs.push(run);
        lanes.push(Lane::new(env.runs.len() - 1, engine, endpoint));
    }
    // Every input is checked: say what an engine assumes without a location (OpenAI: the
    // United States), once, before the first request.
    for run in &env.runs[first_new..] {
        if let Some(note) = provider::assumed_location_note(run.config.engine, run.config.location.is_some()) {
            crate::terminal::eprint_line(&format!("warning: {}", note.en));
        }
    }
    let live: Vec<usize> = lanes.iter().map(|l| l.run_index).collect();
    drive(OutEnvelope::new(env, &live, out)?, lanes)
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
    // An app run (imported captures) has nothing to send again: said before any key check.
    geo_core::runner::check_method(&env.runs[run_index]).map_err(|e| input_error(e.to_string()))?;
    let engine = env.runs[run_index].config.engine;
    transport.bases.check(&[engine], &format!("the engine of run {run_id} ({engine})"), has_key)?;
    let endpoint = endpoint_for(&env.runs[run_index].config, &transport)?;
    let existing: Vec<Probe> = env.probes_of(&run_id).cloned().collect();
    let engine = Session::new(
        &env.runs[run_index],
        mode(existing),
        SessionOptions { timeout_ms: transport.timeout_ms, ..SessionOptions::default() },
    )
    .map_err(|e| input_error(e.to_string()))?;
    let run = &mut env.runs[run_index];
    run.status = RunStatus::Running;
    run.finished_at = None;
    drive(OutEnvelope::new(env, &[run_index], out)?, vec![Lane::new(run_index, engine, endpoint)])
}

/// `<prefix>_<yyyymmddThhmmss>_<4 hex>` (`run_…`, `grp_…`) from the clock and the OS's randomness.
fn id_with_prefix(prefix: &str, now: u64) -> String {
    let stamp: String = iso_timestamp(now).chars().take(19).filter(|c| *c != '-' && *c != ':').collect();
    format!("{prefix}_{stamp}_{:04x}", os_seeded_random().next_u32() & 0xffff)
}

/// A new `prefix_…` id (see [`id_with_prefix`]) that no run of `runs` has as its id or group.
pub(crate) fn new_id(prefix: &str, now: u64, runs: &[Run]) -> String {
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
