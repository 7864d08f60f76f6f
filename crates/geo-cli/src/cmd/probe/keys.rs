//! Each engine's key, read from its own variable (the engine table's `key_env`), and the
//! key-or-proxy rule of geo-core with the CLI's wording: `run`, `resume` and `retry-failed`
//! use it, and so do `doctor`, `chat` and `proxy`.
//!
//! A key is checked before any request and registered for redaction at once, so no text the
//! CLI writes afterwards can carry it.

use anyhow::Result;
use geo_core::model::{EngineId, RunConfig};
use geo_core::provider::{self, auth_mode, parse_base_url, BaseUrl, Endpoint, KeyError, KeyMode};
use geo_core::safe::Redactor;

use super::flags::TransportSettings;
use crate::io::input_error;

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

/// [`keyed_engines`], at least one: none is the usage error "no engine `what`: set one of
/// KEY_VARS (`otherwise`)".
pub(crate) fn some_keyed_engines(what: &str, otherwise: &str) -> Result<Vec<EngineId>> {
    let keyed = keyed_engines()?;
    if keyed.is_empty() {
        return Err(input_error(format!("no engine {what}: set one of {} ({otherwise})", key_vars())));
    }
    Ok(keyed)
}

/// Every engine's key variable, comma-separated, for messages.
pub(crate) fn key_vars() -> String {
    EngineId::ALL.iter().map(|e| provider::spec(*e).key_env).collect::<Vec<_>>().join(", ")
}

/// The endpoint of a run of `config`: its engine's key (checked before any request), else
/// proxy mode with `--base-url`.
pub(super) fn endpoint_for(config: &RunConfig, transport: &TransportSettings) -> Result<Endpoint> {
    let spec = provider::spec(config.engine);
    let base = transport.bases.for_engine(config.engine);
    let mode = checked_key(spec.key_env, spec.name, base)?;
    let base = base.map(BaseUrl::as_str);
    Ok(crate::transport::endpoint(config, base, mode.key()))
}
