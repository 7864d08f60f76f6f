//! `geo-probe proxy [--port N] [--engine E,…] [--allow-origin ORIGIN]… [--base-url E=URL]…`:
//! the local proxy of engines.md ("The local proxy") that lets the web app reach every engine
//! without a key in the browser. Its threat model, followed here decision by decision, is
//! `docs/adr/0020-local-proxy-threat-model.md`.
//!
//! # Design
//!
//! Two plain `std::net::TcpListener`s, on `127.0.0.1` and `[::1]` at the same port (there is
//! no host flag; it refuses to start when either is taken, so that no other user of the
//! machine can own the loopback a browser tries first for `localhost`), and one thread per
//! connection, no async runtime: the proxy serves one person's browser tab. At most
//! [`MAX_CONNECTIONS`] connections are open at once; one still sending its head, or being
//! drained after its answer, is closed to make room for a new one, and a connection beyond
//! those serving requests is answered 503 on the accepting thread ([`Slots`]). Each connection
//! carries exactly one request (every answer says `Connection: close`), read by a minimal
//! HTTP/1.1 parser: the request line within [`FIRST_LINE_TIME`], headers up to
//! [`MAX_HEAD_BYTES`], a `Content-Length` body (a chunked request body is refused, 411), the
//! whole request within [`REQUEST_READ_TIME`] (408 for a client that stalls).
//!
//! The checks run in this order, and nothing goes upstream before all of them passed:
//! 1. the `Host` header names the proxy (`127.0.0.1:PORT`, `localhost:PORT` or `[::1]:PORT`), else 403
//!    (a DNS-rebinding page sends its own host name);
//! 2. an `OPTIONS` preflight is answered here: 204 with the CORS headers for an origin given
//!    with `--allow-origin` (default the `cargo xtask serve` origin), 403 for any other;
//!    a request from any other origin is refused the same way;
//! 3. the per-start token in `x-geo-probe-proxy-token`, compared in constant time, else 401;
//! 4. only `POST /{engine}` + that engine's table path (and `POST /deepseek/chat/completions`,
//!    the docs chat) of an engine this proxy serves, else 404;
//! 5. a body of at most [`MAX_BODY_BYTES`] by its `Content-Length` (checked before reading,
//!    and never read past), else 413.
//!
//! The request then goes to the engine's default base or its `--base-url E=URL` (fixed at
//! start; the request's query string is never forwarded) through geo-core's one base-URL rule,
//! with the engine's own headers from `provider::engine_headers` and its key from its own
//! variable; the request's `authorization`, `x-api-key`, `x-goog-api-key`, `cookie`, `origin`,
//! `host` and token headers are never forwarded, only `content-type`, `accept`,
//! `anthropic-version` and `anthropic-beta`. The upstream agent follows no redirect: a 3xx goes
//! back as it came (status and `Location`). The reply is passed on chunk by chunk as it
//! arrives (HTTP/1.1 chunked encoding, so the docs chat's SSE stream reaches the page as it is
//! written), at most [`MAX_REPLY_BYTES`] of it ([`MAX_ERROR_REPLY_BYTES`] for an error status;
//! a longer declared length is a 502, a longer body is cut off without its last chunk, so the
//! client sees it incomplete), with the upstream's key and base-URL secrets replaced by
//! `[redacted]` in its header values and body, a secret split across chunks included: the page
//! and the CLI in proxy mode do not know the key, so only the proxy can remove it when an
//! upstream echoes the request (security review 3, finding M1). Each upstream
//! request has geo-core's `REQUEST_TIMEOUT_MS` (180 s) for the whole exchange; no answer at all
//! is a 502 (504 after the timeout) whose short JSON body names the engine and the upstream
//! host only. After answering, the proxy stops writing and reads what the client still sends
//! (bounded), so a refused 5 MB body does not reset the connection before the 413 is read.
//!
//! Standard error gets the listening address, one `token: …` line, then one line per request:
//! time, engine (`-` when the path names none), status and latency, never a body, a header
//! value, a key, the token or a query string.
//!
//! # Files
//!
//! This file holds the flags and the start (listeners, upstreams, token); [`slots`] the
//! connection slots; [`connection`] one connection, from its head to its close; [`http`] the
//! request reader and the proxy's own answers; [`gate`] the five checks above as one pure
//! decision over a request head, tested without sockets; [`relay`] the request sent upstream
//! and the reply passed back.

mod connection;
mod gate;
mod http;
mod relay;
mod slots;

use std::io;
use std::net::{Ipv4Addr, Ipv6Addr, TcpListener, TcpStream};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{anyhow, Result};
use geo_core::model::EngineId;
use geo_core::provider::{self, check_key, parse_base_url, ApiKey, BaseUrl};
use geo_core::safe::Redactor;

use crate::args::{Args, Arity};
use crate::bases::EngineBases;
use crate::io::input_error;
use crate::terminal;
use gate::Gate;
use http::respond_json;
use slots::Slots;

const FLAGS: &[(&str, Arity)] =
    &[("port", Arity::One), ("engine", Arity::One), ("allow-origin", Arity::One), ("base-url", Arity::One)];

/// The port without `--port`, the origin allowed without `--allow-origin` (`cargo xtask
/// serve` on its default port, `xtask/src/serve.rs`) and the header that must carry the
/// per-start token: geo-core's, which the web app uses too.
pub use geo_core::provider::local_proxy::{DEFAULT_ORIGIN, DEFAULT_PORT, TOKEN_HEADER};

/// Largest request body forwarded (the probe bodies are a few kilobytes).
pub const MAX_BODY_BYTES: usize = 1024 * 1024;

/// Largest error reply (status 400 and up) passed back: an error body is a short JSON
/// message; a longer one is cut off like a reply over [`MAX_REPLY_BYTES`].
pub const MAX_ERROR_REPLY_BYTES: usize = 1024 * 1024;

/// Largest request line plus headers read.
const MAX_HEAD_BYTES: usize = 64 * 1024;

/// Connections open at once ([`Slots`]): an idle one is closed for a new one; when all of
/// them serve requests, a new connection is answered 503 at once.
pub const MAX_CONNECTIONS: usize = 64;

/// How long a client may take to send its whole request (head and body).
const REQUEST_READ_TIME: Duration = Duration::from_secs(30);

/// How long a client may take to send its request line (security-3 L2: a connection that
/// sends nothing is closed after this, and before it whenever its slot is wanted).
pub const FIRST_LINE_TIME: Duration = Duration::from_secs(5);

/// After answering: how much of what the client still sends is read and dropped, and for how
/// long, so that closing the socket does not reset the answer away (a refused 5 MB body).
const DRAIN_BYTES: u64 = 8 * 1024 * 1024;
const DRAIN_TIME: Duration = Duration::from_secs(2);

/// One engine the proxy serves.
struct Upstream {
    engine: EngineId,
    /// `--base-url E=URL`, else the engine's default base.
    base: Option<BaseUrl>,
    /// From the engine's key variable; `None` only with a base (a proxy or mock in front).
    key: Option<ApiKey>,
    /// This upstream's secrets (its key, its base URL's secret query values): removed from
    /// everything passed back, since the page and the CLI in proxy mode know neither.
    secrets: Redactor,
}

/// Everything a connection thread needs, fixed at start.
struct Proxy {
    /// What the checks compare each request with.
    gate: Gate,
    upstreams: Vec<Upstream>,
    agent: ureq::Agent,
    slots: Arc<Slots>,
}

/// `geo-probe proxy`.
pub fn proxy(rest: &[String]) -> Result<ExitCode> {
    let args = Args::parse(rest, FLAGS).map_err(input_error)?;
    args.expect_positionals(&[]).map_err(input_error)?;
    let port = args.number::<u16>("port").map_err(input_error)?.unwrap_or(DEFAULT_PORT);
    let origins = allowed_origins(&args)?;
    let upstreams = upstreams(&args)?;
    let token = new_token()?;
    let (v4, v6) = listen(port)?;
    let port = v4.local_addr()?.port();
    let names: Vec<&str> = upstreams.iter().map(|u| u.engine.as_str()).collect();
    terminal::eprint_line(&format!(
        "geo-probe proxy: listening on http://127.0.0.1:{port} (engines: {})",
        names.join(", ")
    ));
    terminal::eprint_line(&format!("token: {token}"));
    terminal::eprint_line(&format!("geo-probe proxy: pages allowed from {}; Ctrl-C stops it", origins.join(", ")));
    if v6.is_none() {
        terminal::eprint_line("geo-probe proxy: this machine has no IPv6 loopback, so [::1] is not listened on (nobody else can listen there either)");
    }
    for origin in &origins {
        if let Some(warning) = geo_core::origin::shared_origin(origin, "/").token_warning() {
            terminal::eprint_line(&format!("warning: {}", warning.en));
        }
    }
    let _ = ctrlc::set_handler(|| std::process::exit(130));
    let agent = crate::transport::agent();
    let engines = upstreams.iter().map(|u| u.engine).collect();
    let gate = Gate { port, token, origins, engines };
    let proxy = Arc::new(Proxy { gate, upstreams, agent, slots: Arc::default() });
    if let Some(v6) = v6 {
        let proxy = Arc::clone(&proxy);
        std::thread::Builder::new().spawn(move || accept_all(&proxy, &v6))?;
    }
    accept_all(&proxy, &v4);
    Ok(ExitCode::SUCCESS)
}

/// Binds `127.0.0.1:port` and `[::1]` at the same port, so that no other user of the machine
/// can listen on the loopback a browser tries first for `localhost` and take the token
/// (security-3 L1). Refuses to start when either is taken; `[::1]` is `None` only on a machine
/// without an IPv6 loopback, where nobody can listen on it. With `--port 0` the system's
/// free port for 127.0.0.1 is tried on `[::1]` too, a few times.
fn listen(port: u16) -> Result<(TcpListener, Option<TcpListener>)> {
    let taken = |host: &str, port: u16, e: io::Error| {
        anyhow!("cannot listen on {host}:{port} ({}); stop what uses it or pick another port with --port N", e.kind())
    };
    let tries = if port == 0 { 20 } else { 1 };
    for attempt in 1..=tries {
        let v4 = TcpListener::bind((Ipv4Addr::LOCALHOST, port)).map_err(|e| taken("127.0.0.1", port, e))?;
        let bound = v4.local_addr()?.port();
        match TcpListener::bind((Ipv6Addr::LOCALHOST, bound)) {
            Ok(v6) => return Ok((v4, Some(v6))),
            Err(e) if e.kind() == io::ErrorKind::AddrNotAvailable => return Ok((v4, None)),
            Err(e) if attempt == tries => return Err(taken("[::1]", bound, e)),
            Err(_) => {}
        }
    }
    unreachable!("the last attempt returns")
}

/// Accepts connections on one listener until the process ends; each gets a slot
/// ([`Slots::take`]) and a thread, or a 503 written on this thread.
fn accept_all(proxy: &Arc<Proxy>, listener: &TcpListener) {
    for conn in listener.incoming() {
        let Ok(stream) = conn else {
            // Out of file descriptors or similar: let the other connections finish.
            std::thread::sleep(Duration::from_millis(50));
            continue;
        };
        let Some(slot) = proxy.slots.take(&stream) else {
            refuse_over_limit(stream);
            continue;
        };
        let proxy = Arc::clone(proxy);
        // A thread that cannot be started drops its connection, not the proxy.
        let _ = std::thread::Builder::new().spawn(move || connection::serve_connection(&proxy, stream, slot));
    }
}

/// The answer to a connection over the limit: a 503 written at once on the accepting thread
/// (a short write timeout, no thread, nothing read), then the connection is closed.
fn refuse_over_limit(stream: TcpStream) {
    let _ = stream.set_write_timeout(Some(Duration::from_millis(100)));
    let _ = respond_json(&stream, 503, None, "geo-probe proxy: too many requests at once; try again");
    connection::log_request(None, 503, Duration::ZERO);
}

// ------------------------------------------------------------------ start-up

/// `--allow-origin ORIGIN` (repeatable) as browsers send `Origin`, default [`DEFAULT_ORIGIN`].
fn allowed_origins(args: &Args) -> Result<Vec<String>> {
    let given = args.values("allow-origin");
    if given.is_empty() {
        return Ok(vec![DEFAULT_ORIGIN.to_string()]);
    }
    let mut out = Vec::new();
    for text in given {
        let origin = origin_of(text)?;
        if !out.contains(&origin) {
            out.push(origin);
        }
    }
    Ok(out)
}

/// One `--allow-origin` value: `scheme://host[:port]`, never `*`.
fn origin_of(text: &str) -> Result<String> {
    let t = text.trim();
    if t == "*" {
        return Err(input_error(format!(
            "--allow-origin * is refused: every page could read the engines' answers; name each origin, e.g. --allow-origin {DEFAULT_ORIGIN}"
        )));
    }
    let bad = || {
        input_error(format!(
            "--allow-origin takes an origin, scheme://host[:port] without a path, e.g. {DEFAULT_ORIGIN}; got {:?}",
            t.chars().take(80).collect::<String>()
        ))
    };
    let url = parse_base_url(t).ok().flatten().ok_or_else(bad)?;
    if url.url().path() != "/" || url.url().query().is_some() {
        return Err(bad());
    }
    Ok(url.host_for_messages())
}

/// A `--base-url` value of the form `E=URL` (a bare URL starts with a scheme, or has no `=`).
fn is_engine_pair(value: &str) -> bool {
    let lower = value.trim_start().to_ascii_lowercase();
    !lower.starts_with("http://")
        && !lower.starts_with("https://")
        && value.split_once('=').is_some_and(|(name, _)| {
            let name = name.trim();
            !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        })
}

/// The engines served: those named with `--engine`, else those whose key variable is set;
/// each with its base and key. An engine without its key and without `--base-url E=URL` is
/// refused (exit 2), so the proxy never forwards a request that the engine would refuse.
fn upstreams(args: &Args) -> Result<Vec<Upstream>> {
    let values = args.values("base-url");
    if values.iter().any(|v| !is_engine_pair(v)) {
        return Err(input_error(
            "--base-url takes ENGINE=URL for the proxy (each engine its own upstream), e.g. --base-url qwen=http://127.0.0.1:8787",
        ));
    }
    let bases = EngineBases::parse(values)?;
    let named = args.value("engine").is_some();
    let engines = if named {
        super::probe::engines_flag(args)?
    } else {
        super::probe::some_keyed_engines(
            "to serve",
            "or name engines with --engine and give each --base-url ENGINE=URL",
        )?
    };
    let what = if named { "in --engine" } else { "an engine whose key variable is set (name it with --engine)" };
    bases.check(&engines, what, |_| true)?;
    let mut all = Redactor::new();
    let mut out = Vec::new();
    for engine in engines {
        let spec = provider::spec(engine);
        let raw = super::probe::key_from_env(spec.key_env)?.unwrap_or_default();
        let key = check_key(&raw).map_err(|e| input_error(format!("{}: {e}", spec.key_env)))?;
        let base = bases.for_engine(engine).cloned();
        if key.is_none() && base.is_none() {
            return Err(input_error(format!(
                "{} is not set: the proxy adds {engine}'s key from it; export it, or pass --base-url {engine}=URL to forward to a proxy or mock without a key",
                spec.key_env
            )));
        }
        let mut secrets = Redactor::new();
        if let Some(k) = &key {
            secrets.add(k.expose());
        }
        for s in base.iter().flat_map(BaseUrl::secrets) {
            secrets.add(&s);
        }
        all.extend(&secrets);
        out.push(Upstream { engine, base, key, secrets });
    }
    terminal::register(&all);
    Ok(out)
}

/// 32 bytes of the operating system's random source as base64url: the per-start token.
fn new_token() -> Result<String> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(|e| anyhow!("the operating system's random source failed: {e}"))?;
    Ok(base64url(&bytes))
}

/// Base64url without padding (RFC 4648 §5).
fn base64url(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [chunk[0], chunk.get(1).copied().unwrap_or(0), chunk.get(2).copied().unwrap_or(0)];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..=chunk.len() {
            out.push(char::from(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize]));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64url_follows_rfc_4648() {
        assert_eq!(base64url(b""), "");
        assert_eq!(base64url(b"f"), "Zg");
        assert_eq!(base64url(b"fo"), "Zm8");
        assert_eq!(base64url(b"foo"), "Zm9v");
        assert_eq!(base64url(b"foobar"), "Zm9vYmFy");
        assert_eq!(base64url(&[0xfb, 0xff, 0xbf]), "-_-_");
        assert_eq!(base64url(&[0u8; 32]).len(), 43);
        let a = new_token().unwrap();
        assert_eq!(a.len(), 43);
        assert_ne!(a, new_token().unwrap());
    }

    #[test]
    fn origins_are_scheme_host_port_only() {
        assert_eq!(origin_of("http://127.0.0.1:8080/").unwrap(), "http://127.0.0.1:8080");
        assert_eq!(origin_of("HTTPS://App.Example").unwrap(), "https://app.example");
        assert_eq!(origin_of("https://app.example:443").unwrap(), "https://app.example");
        for bad in ["*", "null", "http://a.example/path", "http://a.example/?q=1", "a.example", "file:///x"] {
            assert!(origin_of(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn base_url_values_must_name_an_engine() {
        assert!(is_engine_pair("qwen=http://127.0.0.1:1"));
        assert!(!is_engine_pair("http://127.0.0.1:1/?a=b"));
        assert!(!is_engine_pair("http://x"));
        assert!(!is_engine_pair(""));
    }
}
