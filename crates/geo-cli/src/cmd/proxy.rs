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

use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{Ipv4Addr, Ipv6Addr, Shutdown, TcpListener, TcpStream};
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use anyhow::{anyhow, Result};
use geo_core::chat::chat_endpoint;
use geo_core::limits::MAX_REPLY_BYTES;
use geo_core::model::EngineId;
use geo_core::provider::endpoint_url_for;
use geo_core::provider::{self, check_key, parse_base_url, ApiKey, BaseUrl, Caller, REQUEST_TIMEOUT_MS};
use geo_core::runner::iso_timestamp;
use geo_core::safe::{ByteStreamRedactor, Redactor};
use serde_json::json;

use crate::args::{Args, Arity};
use crate::bases::EngineBases;
use crate::io::input_error;
use crate::terminal;

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

/// Request headers passed upstream when present; every other header is dropped.
const FORWARDED_HEADERS: &[&str] = &["content-type", "accept", "anthropic-version", "anthropic-beta"];

/// Reply headers passed back when present (the body is re-framed, so no length or encoding).
const RETURNED_HEADERS: &[&str] =
    &["content-type", "cache-control", "location", "retry-after", "request-id", "x-request-id"];

/// What a page may send (the app's headers in proxy mode: no key header).
const ALLOWED_HEADERS: &str = "content-type, accept, anthropic-version, anthropic-beta, \
                               anthropic-dangerous-direct-browser-access, x-geo-probe-proxy-token";

/// Reply headers a page may read.
const EXPOSED_HEADERS: &str = "request-id, x-request-id, retry-after, location";

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
    port: u16,
    token: String,
    origins: Vec<String>,
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
    let proxy = Arc::new(Proxy { port, token, origins, upstreams, agent, slots: Arc::default() });
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
        let _ = std::thread::Builder::new().spawn(move || serve_connection(&proxy, stream, slot));
    }
}

/// The answer to a connection over the limit: a 503 written at once on the accepting thread
/// (a short write timeout, no thread, nothing read), then the connection is closed.
fn refuse_over_limit(stream: TcpStream) {
    let _ = stream.set_write_timeout(Some(Duration::from_millis(100)));
    let _ = respond_json(&stream, 503, None, "geo-probe proxy: too many requests at once; try again");
    log_request(None, 503, Duration::ZERO);
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
    let engines = if named { super::probe::engines_flag(args)? } else { keyed_engines()? };
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

/// Every engine whose key variable holds something, in engines.md's order.
fn keyed_engines() -> Result<Vec<EngineId>> {
    let keyed = super::probe::keyed_engines()?;
    if keyed.is_empty() {
        return Err(input_error(format!(
            "no engine to serve: set one of {} (or name engines with --engine and give each --base-url ENGINE=URL)",
            super::probe::key_vars()
        )));
    }
    Ok(keyed)
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

/// Whether `given` is the token, in a time that does not depend on where they differ.
fn same_token(given: &[u8], token: &[u8]) -> bool {
    if given.len() != token.len() {
        // The length is public: every token is 43 characters.
        return false;
    }
    let diff = given.iter().zip(token).fold(0u8, |acc, (a, b)| acc | (a ^ b));
    std::hint::black_box(diff) == 0
}

// ------------------------------------------------------------------ one connection

/// A request line and its headers.
struct Head {
    method: String,
    target: String,
    http10: bool,
    /// Names lowercased, values trimmed, in arrival order.
    headers: Vec<(String, String)>,
}

impl Head {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }

    fn count(&self, name: &str) -> usize {
        self.headers.iter().filter(|(n, _)| n == name).count()
    }

    /// The path without its query string.
    fn path(&self) -> &str {
        self.target.split('?').next().unwrap_or("")
    }
}

/// What one request came to, for its log line.
struct Served {
    engine: Option<EngineId>,
    status: u16,
}

/// The proxy's connection slots: at most [`MAX_CONNECTIONS`] at once. A connection is
/// *idle* while it has not sent a whole request head yet and again once it is answered (its
/// drain); an idle one is closed to make room for a new connection when every slot is taken,
/// the one idle longest first. So idle connections never keep a request from being served
/// (security-3 L2), and only requests being forwarded (which carried the token) can fill the
/// proxy; a connection beyond those is answered 503 at once ([`refuse_over_limit`]).
#[derive(Default)]
struct Slots {
    open: Mutex<Vec<Slot>>,
    next: AtomicU64,
}

/// One open connection: a handle to close it and whether it may be closed for another.
struct Slot {
    id: u64,
    stream: TcpStream,
    idle_since: Option<Instant>,
}

impl Slots {
    /// A slot for a new connection (idle until its head is read), closing the longest-idle
    /// connection when all are taken; `None` when every slot serves a request.
    fn take(self: &Arc<Self>, stream: &TcpStream) -> Option<SlotGuard> {
        let handle = stream.try_clone().ok()?;
        let mut open = self.open.lock().ok()?;
        if open.len() >= MAX_CONNECTIONS {
            let oldest =
                open.iter().enumerate().filter_map(|(i, s)| s.idle_since.map(|t| (t, i))).min().map(|(_, i)| i)?;
            let evicted = open.swap_remove(oldest);
            let _ = evicted.stream.shutdown(Shutdown::Both);
        }
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        open.push(Slot { id, stream: handle, idle_since: Some(Instant::now()) });
        Some(SlotGuard { slots: Arc::clone(self), id })
    }

    fn set_idle(&self, id: u64, idle: bool) {
        if let Ok(mut open) = self.open.lock() {
            if let Some(slot) = open.iter_mut().find(|s| s.id == id) {
                slot.idle_since = idle.then(Instant::now);
            }
        }
    }
}

/// A connection's slot, given back when the connection ends.
struct SlotGuard {
    slots: Arc<Slots>,
    id: u64,
}

impl SlotGuard {
    /// The request head is in: this connection is serving a request and is not closed for
    /// another.
    fn busy(&self) {
        self.slots.set_idle(self.id, false);
    }

    /// The answer is written: the drain that follows may be closed for another connection.
    fn idle(&self) {
        self.slots.set_idle(self.id, true);
    }
}

impl Drop for SlotGuard {
    fn drop(&mut self) {
        if let Ok(mut open) = self.slots.open.lock() {
            open.retain(|s| s.id != self.id);
        }
    }
}

fn serve_connection(proxy: &Proxy, stream: TcpStream, slot: SlotGuard) {
    let started = Instant::now();
    let _ = stream.set_write_timeout(Some(Duration::from_millis(REQUEST_TIMEOUT_MS)));
    if let Some(s) = handle(proxy, &stream, &slot) {
        log_request(s.engine, s.status, started.elapsed());
    }
    slot.idle();
    close_gently(&stream);
}

/// One line on standard error: time, engine, status, latency; nothing from the request.
fn log_request(engine: Option<EngineId>, status: u16, elapsed: Duration) {
    let now = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_millis() as u64).unwrap_or(0);
    let engine = engine.map_or("-", EngineId::as_str);
    terminal::eprint_line(&format!("{} {engine} {status} {}ms", iso_timestamp(now), elapsed.as_millis()));
}

/// Ends the connection without resetting it: no more writing, then what the client still
/// sends is read and dropped (bounded), so it reads the whole answer first.
fn close_gently(stream: &TcpStream) {
    let _ = stream.shutdown(Shutdown::Write);
    let deadline = Instant::now() + DRAIN_TIME;
    let _ = stream.set_read_timeout(Some(DRAIN_TIME));
    let mut rest = stream.take(DRAIN_BYTES);
    let mut buf = [0u8; 16 * 1024];
    while Instant::now() < deadline {
        match rest.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
    }
}

/// Reads one request and answers it; `None` when the client sent no request at all.
fn handle(proxy: &Proxy, stream: &TcpStream, slot: &SlotGuard) -> Option<Served> {
    let mut reader = BufReader::new(stream);
    let now = Instant::now();
    let deadline = now + REQUEST_READ_TIME;
    let head = match read_head(&mut reader, now + FIRST_LINE_TIME, deadline) {
        Ok(Some(head)) => {
            slot.busy();
            head
        }
        Ok(None) => return None,
        Err(status) => {
            let _ = respond_json(stream, status, None, "geo-probe proxy: malformed or oversized request");
            return Some(Served { engine: None, status });
        }
    };
    let origin = head.header("origin");
    let allowed = origin.filter(|o| proxy.origins.iter().any(|a| a == o));
    let named = named_engine(proxy, head.path());
    let refuse = |status: u16, message: &str| {
        let _ = respond_json(stream, status, allowed, message);
        Some(Served { engine: named, status })
    };
    if !host_ok(proxy, &head) {
        return refuse(403, "geo-probe proxy: the Host header must be 127.0.0.1:PORT or localhost:PORT");
    }
    if origin.is_some() && allowed.is_none() {
        return refuse(403, "geo-probe proxy: this origin is not allowed; start the proxy with --allow-origin ORIGIN");
    }
    if head.method == "OPTIONS" {
        let _ = preflight(stream, &head, allowed);
        return Some(Served { engine: named, status: if allowed.is_some() { 204 } else { 403 } });
    }
    let token = (head.count(TOKEN_HEADER) == 1).then(|| head.header(TOKEN_HEADER)).flatten();
    if !token.is_some_and(|t| same_token(t.as_bytes(), proxy.token.as_bytes())) {
        return refuse(401, "geo-probe proxy: missing or wrong x-geo-probe-proxy-token (printed as `token:` at start)");
    }
    let route = if head.method == "POST" { route(proxy, head.path()) } else { None };
    let Some((upstream, target)) = route else {
        return refuse(404, "geo-probe proxy: only POST on an engine's own path is forwarded");
    };
    if head.header("transfer-encoding").is_some() {
        return refuse(411, "geo-probe proxy: send the body with a Content-Length");
    }
    let length = match content_length(&head) {
        Some(n) if n > MAX_BODY_BYTES as u64 => return refuse(413, "geo-probe proxy: request body over 1 MiB"),
        Some(n) => n as usize,
        None => return refuse(400, "geo-probe proxy: bad Content-Length"),
    };
    if head.header("expect").is_some_and(|e| e.eq_ignore_ascii_case("100-continue")) && !head.http10 {
        let _ = (&*stream).write_all(b"HTTP/1.1 100 Continue\r\n\r\n");
    }
    let Some(body) = read_body(&mut reader, length, deadline) else {
        return refuse(400, "geo-probe proxy: the request body ended early or came too slowly");
    };
    let status = forward(proxy, upstream, &target, &head, &body, stream, allowed);
    Some(Served { engine: Some(upstream.engine), status })
}

/// Reads the request line (by `first_line`) and headers (by `deadline`): `Ok(None)` when the
/// connection closed before any byte, `Err(status)` for a request that cannot be read (400,
/// 431 over [`MAX_HEAD_BYTES`], 408 when the client stalls).
fn read_head(reader: &mut BufReader<&TcpStream>, first_line: Instant, deadline: Instant) -> Result<Option<Head>, u16> {
    let mut lines: Vec<String> = Vec::new();
    let mut total = 0usize;
    loop {
        let by = if lines.is_empty() { first_line.min(deadline) } else { deadline };
        let line = match read_line(reader, &mut total, by) {
            Ok(line) => line,
            Err(LineError::Closed) if total == 0 => return Ok(None),
            Err(LineError::Closed) => return Err(400),
            Err(LineError::Status(status)) => return Err(status),
        };
        if line.is_empty() {
            if lines.is_empty() {
                continue; // a stray line break before the request line
            }
            break;
        }
        lines.push(String::from_utf8(line).map_err(|_| 400u16)?);
    }
    parse_head(&lines).map(Some).ok_or(400)
}

/// Why [`read_line`] read no line.
enum LineError {
    /// The connection ended (or failed) before the line did.
    Closed,
    /// 408 when `by` passed, 431 past [`MAX_HEAD_BYTES`].
    Status(u16),
}

/// One line of the head without its line break, all of it before `by`: the deadline is
/// checked before every read, so a client that sends a byte at a time cannot stretch it.
/// `total` counts the head's bytes.
fn read_line(reader: &mut BufReader<&TcpStream>, total: &mut usize, by: Instant) -> Result<Vec<u8>, LineError> {
    let mut line = Vec::new();
    loop {
        if !arm(reader.get_ref(), by) {
            return Err(LineError::Status(408));
        }
        let buf = match reader.fill_buf() {
            Ok([]) => return Err(LineError::Closed),
            Ok(buf) => buf,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) if matches!(e.kind(), io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut) => {
                return Err(LineError::Status(408))
            }
            Err(_) => return Err(LineError::Closed),
        };
        let (take, done) = match buf.iter().position(|b| *b == b'\n') {
            Some(i) => (i + 1, true),
            None => (buf.len(), false),
        };
        *total += take;
        if *total > MAX_HEAD_BYTES {
            return Err(LineError::Status(431));
        }
        line.extend_from_slice(&buf[..take]);
        reader.consume(take);
        if done {
            while line.last().is_some_and(|c| *c == b'\n' || *c == b'\r') {
                line.pop();
            }
            return Ok(line);
        }
    }
}

/// Sets the socket's read timeout to what is left until `deadline`; false when nothing is.
fn arm(stream: &TcpStream, deadline: Instant) -> bool {
    let left = deadline.saturating_duration_since(Instant::now());
    !left.is_zero() && stream.set_read_timeout(Some(left)).is_ok()
}

/// Exactly `length` body bytes (never more), all before `deadline`.
fn read_body(reader: &mut BufReader<&TcpStream>, length: usize, deadline: Instant) -> Option<Vec<u8>> {
    let mut body = vec![0u8; length];
    let mut filled = 0;
    while filled < length {
        if !arm(reader.get_ref(), deadline) {
            return None;
        }
        match reader.read(&mut body[filled..]) {
            Ok(0) => return None,
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(_) => return None,
        }
    }
    Some(body)
}

/// The request line and headers of [`read_head`]'s lines.
fn parse_head(lines: &[String]) -> Option<Head> {
    let (first, rest) = lines.split_first()?;
    let mut parts = first.split(' ');
    let (method, target, version) = (parts.next()?, parts.next()?, parts.next()?);
    if parts.next().is_some() || method.is_empty() || !target.starts_with('/') {
        return None;
    }
    let http10 = match version {
        "HTTP/1.1" => false,
        "HTTP/1.0" => true,
        _ => return None,
    };
    let mut headers = Vec::with_capacity(rest.len());
    for line in rest {
        let (name, value) = line.split_once(':')?;
        let token_char = |c: char| c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c);
        if name.is_empty() || !name.chars().all(token_char) {
            return None; // also a folded line, which starts with a space
        }
        headers.push((name.to_ascii_lowercase(), value.trim().to_string()));
    }
    Some(Head { method: method.to_string(), target: target.to_string(), http10, headers })
}

/// Exactly one `Host` header, naming this proxy (`127.0.0.1`, `localhost` or `[::1]` with
/// its port).
fn host_ok(proxy: &Proxy, head: &Head) -> bool {
    let Some(host) = head.header("host").filter(|_| head.count("host") == 1) else { return false };
    let host = host.to_ascii_lowercase();
    ["127.0.0.1", "localhost", "[::1]"].iter().any(|name| host == format!("{name}:{}", proxy.port))
}

/// The body length: 0 without the header, `None` when the values disagree or are not numbers.
fn content_length(head: &Head) -> Option<u64> {
    let mut values = head.headers.iter().filter(|(n, _)| n == "content-length").map(|(_, v)| v.as_str());
    let Some(first) = values.next() else { return Some(0) };
    if values.any(|v| v != first) || first.is_empty() || !first.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    first.parse().ok()
}

/// Where a request goes.
enum Target {
    /// The engine's table path, for this model (Gemini names it in the path).
    Probe { model: String },
    /// DeepSeek's `chat/completions` (the docs chat).
    DocsChat,
}

/// The served engine a path's first segment names, for the log line.
fn named_engine(proxy: &Proxy, path: &str) -> Option<EngineId> {
    let first = path.strip_prefix('/')?.split('/').next()?;
    proxy.upstreams.iter().map(|u| u.engine).find(|e| e.as_str() == first)
}

/// `/{engine}` + the engine's table path (or DeepSeek's docs chat) of a served engine.
fn route<'a>(proxy: &'a Proxy, path: &str) -> Option<(&'a Upstream, Target)> {
    let engine = named_engine(proxy, path)?;
    let upstream = proxy.upstreams.iter().find(|u| u.engine == engine)?;
    let tail = &path[1 + engine.as_str().len()..];
    if engine == EngineId::Deepseek && tail == geo_core::chat::messages::CHAT_COMPLETIONS_PATH {
        return Some((upstream, Target::DocsChat));
    }
    let model = match provider::spec(engine).path.split_once("{model}") {
        Some((before, after)) => {
            let model = tail.strip_prefix(before)?.strip_suffix(after)?;
            let safe = model.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_'));
            if !safe || !model.starts_with(|c: char| c.is_ascii_alphanumeric()) || model.len() > 128 {
                return None;
            }
            model.to_string()
        }
        None => String::new(),
    };
    (provider::engine_path(engine, &model) == tail).then_some((upstream, Target::Probe { model }))
}

// ------------------------------------------------------------------ answers

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        204 => "No Content",
        301 => "Moved Permanently",
        302 => "Found",
        303 => "See Other",
        307 => "Temporary Redirect",
        308 => "Permanent Redirect",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        408 => "Request Timeout",
        411 => "Length Required",
        413 => "Content Too Large",
        429 => "Too Many Requests",
        431 => "Request Header Fields Too Large",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        _ => "Status",
    }
}

/// The CORS headers of an answer to an allowed origin (none for any other).
fn cors(head: &mut String, origin: Option<&str>) {
    if let Some(origin) = origin {
        head.push_str(&format!(
            "Access-Control-Allow-Origin: {origin}\r\nVary: Origin\r\nAccess-Control-Expose-Headers: {EXPOSED_HEADERS}\r\n"
        ));
    }
}

/// A whole answer of the proxy itself: a short JSON error.
fn respond_json(mut stream: &TcpStream, status: u16, origin: Option<&str>, message: &str) -> io::Result<()> {
    let body =
        json!({ "error": { "type": geo_core::provider::LOCAL_PROXY_ERROR_TYPE, "message": message } }).to_string();
    let mut head = format!("HTTP/1.1 {status} {}\r\nContent-Type: application/json\r\n", reason(status));
    cors(&mut head, origin);
    head.push_str(&format!("Cache-Control: no-store\r\nContent-Length: {}\r\nConnection: close\r\n\r\n", body.len()));
    stream.write_all(head.as_bytes())?;
    stream.write_all(body.as_bytes())?;
    stream.flush()
}

/// A CORS preflight: 204 with what the app may send for an allowed origin, else 403.
fn preflight(mut stream: &TcpStream, head: &Head, origin: Option<&str>) -> io::Result<()> {
    let Some(origin) = origin else {
        return respond_json(
            stream,
            403,
            None,
            "geo-probe proxy: this origin is not allowed; start the proxy with --allow-origin ORIGIN",
        );
    };
    let mut out = format!(
        "HTTP/1.1 204 No Content\r\nAccess-Control-Allow-Origin: {origin}\r\nVary: Origin\r\n\
         Access-Control-Allow-Methods: POST\r\nAccess-Control-Allow-Headers: {ALLOWED_HEADERS}\r\n\
         Access-Control-Max-Age: 600\r\n"
    );
    // A page of an allowed origin on the public internet asks Chrome's Private Network Access.
    if head.header("access-control-request-private-network").is_some_and(|v| v.eq_ignore_ascii_case("true")) {
        out.push_str("Access-Control-Allow-Private-Network: true\r\n");
    }
    out.push_str("Connection: close\r\n\r\n");
    stream.write_all(out.as_bytes())?;
    stream.flush()
}

/// A header value that can be written on one line as it is.
fn plain_value(value: &str) -> bool {
    value.bytes().all(|b| b == b'\t' || (b' '..=b'~').contains(&b))
}

/// Sends the request upstream and passes the reply back; the status for the log line.
fn forward(
    proxy: &Proxy,
    upstream: &Upstream,
    target: &Target,
    head: &Head,
    body: &[u8],
    stream: &TcpStream,
    origin: Option<&str>,
) -> u16 {
    let engine = upstream.engine;
    let key = upstream.key.as_ref().map(ApiKey::expose);
    let (url, mut headers) = match target {
        Target::Probe { model } => (
            endpoint_url_for(engine, upstream.base.as_ref(), model),
            provider::engine_headers(engine, key, Caller::Native),
        ),
        Target::DocsChat => {
            let mut h = vec![("content-type", "application/json".to_string())];
            h.extend(key.map(|k| ("authorization", format!("Bearer {k}"))));
            (chat_endpoint(upstream.base.as_ref()), h)
        }
    };
    for name in FORWARDED_HEADERS {
        if let Some(value) = head.header(name).filter(|v| plain_value(v)) {
            headers.retain(|(n, _)| *n != *name);
            headers.push((name, value.to_string()));
        }
    }
    let mut request = proxy.agent.post(&url).timeout(Duration::from_millis(REQUEST_TIMEOUT_MS));
    for (name, value) in &headers {
        request = request.set(name, value);
    }
    match request.send_bytes(body) {
        Ok(reply) | Err(ureq::Error::Status(_, reply)) => relay(reply, upstream, stream, origin, head.http10),
        Err(ureq::Error::Transport(t)) => {
            let host = match &upstream.base {
                Some(b) => b.host_for_messages(),
                None => provider::spec(engine).default_base.to_string(),
            };
            let (status, what) =
                if timed_out(&t) { (504, "timed out".to_string()) } else { (502, t.kind().to_string().to_lowercase()) };
            let message = format!("geo-probe proxy: {engine} did not answer ({what} to {host})");
            let _ = respond_json(stream, status, origin, &message);
            status
        }
    }
}

/// Whether a transport failure was the request timeout.
fn timed_out(t: &ureq::Transport) -> bool {
    let mut cause: Option<&(dyn std::error::Error + 'static)> = std::error::Error::source(t);
    while let Some(c) = cause {
        if c.downcast_ref::<io::Error>()
            .is_some_and(|e| matches!(e.kind(), io::ErrorKind::TimedOut | io::ErrorKind::WouldBlock))
        {
            return true;
        }
        cause = c.source();
    }
    t.to_string().contains("timed out")
}

/// Passes an upstream reply on: its status and [`RETURNED_HEADERS`], then the body chunk by
/// chunk as it arrives, cut off (without the last chunk) past [`MAX_REPLY_BYTES`] (an error
/// status: [`MAX_ERROR_REPLY_BYTES`]). The upstream's secrets are replaced by `[redacted]` in
/// every header value and in the body as it streams ([`ByteStreamRedactor`]: a secret split
/// across chunks is still caught), so an upstream that echoes the request hands no key back.
fn relay(
    reply: ureq::Response,
    upstream: &Upstream,
    mut stream: &TcpStream,
    origin: Option<&str>,
    http10: bool,
) -> u16 {
    let status = reply.status();
    let cap = if status >= 400 { MAX_ERROR_REPLY_BYTES } else { MAX_REPLY_BYTES };
    let declared = reply.header("content-length").and_then(|v| v.trim().parse::<u64>().ok());
    if declared.is_some_and(|n| n > cap as u64) {
        let message = format!("geo-probe proxy: the reply is larger than {} MiB", cap / (1024 * 1024));
        let _ = respond_json(stream, 502, origin, &message);
        return 502;
    }
    let bodyless = status < 200 || status == 204 || status == 304;
    let chunked = !http10 && !bodyless;
    let mut head = format!("HTTP/1.1 {status} {}\r\n", reason(status));
    for name in RETURNED_HEADERS {
        if let Some(value) = reply.header(name).filter(|v| plain_value(v)) {
            head.push_str(&format!("{name}: {}\r\n", upstream.secrets.redact(value)));
        }
    }
    cors(&mut head, origin);
    if chunked {
        head.push_str("Transfer-Encoding: chunked\r\n");
    }
    head.push_str("Connection: close\r\n\r\n");
    if stream.write_all(head.as_bytes()).is_err() || bodyless {
        return status;
    }
    let _ = stream.set_nodelay(true);
    let mut body = reply.into_reader();
    let mut clean = ByteStreamRedactor::new(upstream.secrets.clone());
    let mut buf = vec![0u8; 16 * 1024];
    let mut total = 0usize;
    loop {
        let n = match body.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(_) => return status, // cut off upstream: the client sees no last chunk
        };
        total += n;
        if total > cap {
            return status;
        }
        if write_piece(stream, &clean.push(&buf[..n]), chunked).is_err() {
            return status;
        }
    }
    if write_piece(stream, &clean.finish(), chunked).is_ok() && chunked {
        let _ = stream.write_all(b"0\r\n\r\n");
    }
    status
}

/// Writes one piece of a relayed body (nothing when it is empty: an empty chunk would end a
/// chunked body) and flushes it.
fn write_piece(mut stream: &TcpStream, piece: &[u8], chunked: bool) -> io::Result<()> {
    if piece.is_empty() {
        return Ok(());
    }
    if chunked {
        stream.write_all(format!("{:x}\r\n", piece.len()).as_bytes())?;
        stream.write_all(piece)?;
        stream.write_all(b"\r\n")?;
    } else {
        stream.write_all(piece)?;
    }
    stream.flush()
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
    fn tokens_compare_whole() {
        assert!(same_token(b"abc", b"abc"));
        assert!(!same_token(b"abd", b"abc"));
        assert!(!same_token(b"ab", b"abc"));
        assert!(!same_token(b"", b"abc"));
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
    fn heads_parse_strictly() {
        let lines = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let h = parse_head(&lines(&["POST /qwen/x?a=1 HTTP/1.1", "Host: 127.0.0.1:1", "X-A:  v "])).unwrap();
        assert_eq!((h.method.as_str(), h.path(), h.http10), ("POST", "/qwen/x", false));
        assert_eq!(h.header("x-a"), Some("v"));
        for bad in [
            &["GET / HTTP/2"][..],
            &["GET http://x/ HTTP/1.1"],
            &["GET  / HTTP/1.1"],
            &["GET / HTTP/1.1", " folded: x"],
            &["GET / HTTP/1.1", "no colon"],
        ] {
            assert!(parse_head(&lines(bad)).is_none(), "{bad:?}");
        }
    }

    #[test]
    fn routes_are_the_engines_own_paths_only() {
        let upstream = |engine| Upstream { engine, base: None, key: None, secrets: Redactor::new() };
        let proxy = Proxy {
            port: 1,
            token: String::new(),
            origins: Vec::new(),
            upstreams: vec![upstream(EngineId::Deepseek), upstream(EngineId::Gemini)],
            agent: ureq::agent(),
            slots: Arc::default(),
        };
        let probe = |path: &str| match route(&proxy, path) {
            Some((u, Target::Probe { model })) => Some((u.engine, model)),
            _ => None,
        };
        assert_eq!(probe("/deepseek/anthropic/v1/messages"), Some((EngineId::Deepseek, String::new())));
        assert!(matches!(route(&proxy, "/deepseek/chat/completions"), Some((_, Target::DocsChat))));
        assert_eq!(
            probe("/gemini/v1beta/models/gemini-2.5-pro:generateContent"),
            Some((EngineId::Gemini, "gemini-2.5-pro".to_string()))
        );
        for bad in [
            "/gemini/v1beta/models/:generateContent",
            "/gemini/v1beta/models/..%2Fx:generateContent",
            "/gemini/v1beta/models/a/b:generateContent",
            "/gemini/v1beta/models/.x:generateContent",
            "/gemini/chat/completions",
            "/deepseek/v1/messages",
            "/deepseek/anthropic/v1/messages/",
            "/deepseek",
            "/qwen/api/v1/services/aigc/text-generation/generation",
            "/",
        ] {
            assert!(route(&proxy, bad).is_none(), "{bad}");
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
