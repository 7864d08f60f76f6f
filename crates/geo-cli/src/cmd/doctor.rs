//! `geo-probe doctor [--engine E,…] [--base-url URL | E=URL …] [--json] [--timeout-secs S]`: did
//! search really work? (cli.md; engines.md, "Fidelity").
//!
//! Each engine whose key variable is set (or each one named; with `--base-url` in proxy mode
//! too) is asked geo-core's one short question that needs a web search
//! (geo-core's `doctor`), all engines at once, with the request a run would send. One line
//! per engine on standard output says whether the key was accepted, whether a search ran,
//! how many sources and whether citation data came back, the model, the latency and the
//! cost, with the fix when something failed; `--json` writes the same as one object. Exit 0
//! when every checked engine is ok, 1 otherwise, 2 when no engine can be checked.

use std::process::ExitCode;
use std::time::Instant;

use anyhow::Result;
use geo_core::doctor::{doctor_check, doctor_config, DoctorCheck, DOCTOR_PROMPT};
use geo_core::model::EngineId;
use geo_core::provider::{self, BaseUrl};

use crate::args::{Args, Arity};
use crate::io::input_error;

const FLAGS: &[(&str, Arity)] =
    &[("engine", Arity::One), ("base-url", Arity::One), ("json", Arity::Flag), ("timeout-secs", Arity::One)];

/// How long one check may take (a search and an answer).
const DEFAULT_TIMEOUT_SECS: u64 = 120;

/// The engines to check: those named, else those whose key variable is set.
fn engines_to_check(args: &Args) -> Result<Vec<EngineId>> {
    if args.value("engine").is_some() {
        return super::probe::engines_flag(args);
    }
    super::probe::some_keyed_engines("can be checked", "or name engines with --engine and pass --base-url for a proxy")
}

/// `geo-probe doctor`.
pub fn doctor(rest: &[String]) -> Result<ExitCode> {
    let args = Args::parse(rest, FLAGS).map_err(input_error)?;
    args.expect_positionals(&[]).map_err(input_error)?;
    let engines = engines_to_check(&args)?;
    // One proxy per engine, as for `run`: a bare base shared by several keyed engines is refused.
    let bases = crate::bases::EngineBases::parse(args.values("base-url"))?;
    bases.check(&engines, "in --engine", super::probe::has_key)?;
    let timeout_ms = match args.number::<u64>("timeout-secs").map_err(input_error)? {
        None => DEFAULT_TIMEOUT_SECS * 1000,
        Some(0) => return Err(input_error("--timeout-secs must be at least 1")),
        Some(s) => s.saturating_mul(1000),
    };
    // Every key (or proxy mode) is checked before any request.
    let mut endpoints = Vec::new();
    for engine in engines {
        let spec = provider::spec(engine);
        let base = bases.for_engine(engine);
        let mode = super::probe::checked_key(spec.key_env, spec.name, base)?;
        let config = doctor_config(engine, "");
        let endpoint = crate::transport::endpoint(&config, base.map(BaseUrl::as_str), mode.key());
        endpoints.push((config, endpoint));
    }
    let agent = crate::transport::agent();
    let redactor = crate::terminal::redactor();
    let checks: Vec<DoctorCheck> = std::thread::scope(|scope| {
        let handles: Vec<_> = endpoints
            .iter()
            .map(|(config, endpoint)| {
                let (agent, redactor) = (&agent, &redactor);
                scope.spawn(move || {
                    let body = endpoint.body(DOCTOR_PROMPT, config);
                    let started = Instant::now();
                    let outcome = crate::transport::send(agent, endpoint, &body, timeout_ms, redactor);
                    let latency = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
                    doctor_check(endpoint.engine, &endpoint.model, &outcome, latency)
                })
            })
            .collect();
        handles
            .into_iter()
            .zip(&endpoints)
            .map(|(h, (_, endpoint))| {
                h.join().unwrap_or_else(|_| {
                    let failed = provider::network_error("the check stopped unexpectedly; run it again");
                    doctor_check(endpoint.engine, &endpoint.model, &Err(failed), 0)
                })
            })
            .collect()
    });
    if args.flag("json") {
        crate::io::print_json(&serde_json::json!({ "engines": checks }))?;
    } else {
        let lines: Vec<String> = checks.iter().map(|c| format!("{}\n", c.line())).collect();
        crate::io::print(&lines.concat())?;
    }
    Ok(if checks.iter().all(|c| c.ok) { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}
