//! The flags of `run`, `resume` and `retry-failed`: the transport flags every engine of a
//! command shares, the engines and their models, and each engine's run config (counts,
//! budget, temperature, location), all checked before the first request or write.

use std::collections::HashMap;

use anyhow::Result;
use geo_core::model::{EngineId, ReasoningEffort, RunConfig};
use geo_core::provider::{self, budget};
use geo_core::runner::DEFAULT_TIMEOUT_MS;

use crate::args::{Args, Arity};
use crate::bases::EngineBases;
use crate::io::input_error;

pub(super) const TRANSPORT_FLAGS: &[(&str, Arity)] =
    &[("out", Arity::One), ("base-url", Arity::One), ("timeout-secs", Arity::One)];

pub(super) const RUN_FLAGS: &[(&str, Arity)] = &[
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
    ("location", Arity::One),
    ("timezone", Arity::One),
    ("no-location-prompt", Arity::Flag),
];

/// The transport flags every engine of the command shares.
pub(super) struct TransportSettings {
    /// Every `--base-url` (`E=URL` per engine, or one bare URL), each checked by geo-core's
    /// one base-URL rule (no user name or password).
    pub(super) bases: EngineBases,
    pub(super) timeout_ms: u64,
}

pub(super) fn transport_settings(args: &Args) -> Result<TransportSettings> {
    let bases = EngineBases::parse(args.values("base-url"))?;
    let timeout_ms = match args.number::<u64>("timeout-secs").map_err(input_error)? {
        None => DEFAULT_TIMEOUT_MS,
        Some(0) => return Err(input_error("--timeout-secs must be at least 1")),
        Some(s) => s.saturating_mul(1000),
    };
    Ok(TransportSettings { bases, timeout_ms })
}

pub(super) fn required<'a>(args: &'a Args, name: &str, what: &str) -> Result<&'a str> {
    args.value(name).filter(|v| !v.trim().is_empty()).ok_or_else(|| input_error(format!("--{name} {what} is required")))
}

/// The command's flags: the transport flags, `extra`, and FILE.
pub(super) fn parse(rest: &[String], extra: &[(&'static str, Arity)]) -> Result<Args> {
    let spec: Vec<(&str, Arity)> = TRANSPORT_FLAGS.iter().chain(extra).copied().collect();
    crate::cmd::parse(rest, &spec, &["FILE"])
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
pub(super) fn models_flag(args: &Args, engines: &[EngineId]) -> Result<HashMap<EngineId, String>> {
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
/// starts, and engines whose requests carry no temperature get one `warning:` line;
/// `--location`, `--timezone` and `--no-location-prompt` become every config's location.
pub(super) fn run_configs(
    args: &Args,
    engines: &[EngineId],
    models: &HashMap<EngineId, String>,
) -> Result<Vec<RunConfig>> {
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
    // Where the asker is (engines.md, "Where and how an answer was measured"): checked before
    // anything is sent.
    let location = geo_core::model::Location::from_flags(args.value("location"), args.value("timezone"))
        .map_err(|e| input_error(e.to_string()))?;
    let location_prompt = !args.flag("no-location-prompt");
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
        config.location = location.clone();
        config.location_prompt = location_prompt;
        configs.push(config);
    }
    if temperature.is_some() {
        warn_unused_temperature(engines);
    }
    Ok(configs)
}

/// One `warning:` line naming the engines whose requests carry no temperature.
fn warn_unused_temperature(engines: &[EngineId]) {
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
