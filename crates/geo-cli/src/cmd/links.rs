//! `geo-probe links FILE --out OUT`: does every answer link of a run exist?
//!
//! geo-core's [`LinkChecker`] decides everything (which URL is asked next, with which
//! method, what a reply means, the per-host delay); this file only performs its requests:
//! worker threads, each with one blocking HTTP request at a time, and a loop that hands the
//! replies back with the time they came. The record is written into OUT with the rest of
//! FILE, atomically, once every link is checked or the time budget (`--max-secs`) is spent
//! (an interrupted check writes nothing).
//!
//! The links are third-party text, so no request goes to an address that is not public
//! unless `--allow-private` (security-3 M2): geo-core refuses IP literals and loopback names,
//! and the HTTP client's resolver here drops every address geo-core's
//! [`is_public`](geo_core::actions::address::is_public) refuses. ureq connects only to the
//! addresses its resolver returns, and keeps no idle connection to reuse, so the rule holds
//! for the address actually connected to, at every hop, whatever the name answers next.
//!
//! What a hostile server can do is bounded here (`docs/security.md`): every request has one
//! deadline for the name lookup, the connection, TLS and the whole reply head (ureq reads
//! no byte past it, so a slow-loris reply ends with it), the reply head is capped by ureq
//! (100 KB a line, 100 header lines), no body is ever read (a 10 GB body is never
//! downloaded: the connection is dropped after the head), redirects are never followed by
//! the client (geo-core follows at most 5, never to a non-http(s) URL), and no cookie,
//! credential or proxy from the environment is ever used.

use crate::args::{Args, Arity};
use crate::io::{input_error, print, write_atomic_with};
use crate::terminal;
use anyhow::Result;
use geo_core::actions::address::is_public;
use geo_core::actions::check::{CheckConfig, CheckRequest, LinkChecker, Method, Poll, Reply};
use geo_core::actions::links_counts_line;
use geo_core::limits::{
    DEFAULT_LINK_CHECK_SECS, MAX_LINK_CHECK_SECS, MAX_LINK_CONCURRENCY, MAX_LINK_HOST_DELAY_MS, MAX_LINK_TIMEOUT_SECS,
};
use geo_core::model::{ExportEnvelope, LinkCheck, ProbeStatus};
use std::net::{SocketAddr, ToSocketAddrs};
use std::process::ExitCode;
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Requests in flight by default.
const DEFAULT_CONCURRENCY: usize = 4;
/// Seconds one request may take by default (lookup, connection, TLS and the reply head).
const DEFAULT_TIMEOUT_SECS: u64 = 15;

/// The `User-Agent` of every check: the tool, its version, what it does and where to read more.
pub const USER_AGENT: &str =
    concat!("geo-probe/", env!("CARGO_PKG_VERSION"), " (answer-link check; +https://github.com/geo-probe/geo-probe)");

/// How one check is run.
#[derive(Debug, Clone, Copy)]
pub struct Settings {
    /// Requests in flight at most.
    pub concurrency: usize,
    /// Seconds per request.
    pub timeout: Duration,
    /// Politeness delay per host.
    pub host_delay_ms: u64,
    /// The time budget of the whole check.
    pub max_time: Duration,
    /// Whether addresses that are not public are requested too (`--allow-private`).
    pub allow_private: bool,
}

/// The distinct answer links (`canonicalUrl`) of the run's successful probes, in probe order.
pub fn answer_links(env: &ExportEnvelope, run_id: &str) -> Vec<String> {
    let mut seen = std::collections::BTreeSet::new();
    let mut probes: Vec<_> = env.probes_of(run_id).filter(|p| p.status == ProbeStatus::Success).collect();
    geo_core::export::json::sort_probes(&mut probes, &env.runs);
    probes
        .into_iter()
        .flat_map(|p| p.answer_links.iter().map(|l| l.canonical_url.clone()))
        .filter(|u| seen.insert(u.clone()))
        .collect()
}

/// `--name N` as a whole number within `range` (`default` when absent).
fn number<T>(args: &Args, name: &str, default: T, range: std::ops::RangeInclusive<T>) -> Result<T>
where
    T: std::str::FromStr + PartialOrd + std::fmt::Display + Copy,
{
    let Some(raw) = args.value(name) else { return Ok(default) };
    match raw.trim().parse::<T>() {
        Ok(v) if range.contains(&v) => Ok(v),
        _ => Err(input_error(format!(
            "--{name} takes a whole number from {} to {}, got {raw:?}",
            range.start(),
            range.end()
        ))),
    }
}

/// `geo-probe links FILE --out OUT [--run ID] [--concurrency N] [--timeout-secs S]
/// [--max-secs S] [--allow-private] [--host-delay-ms MS]`.
pub fn links(raw: &[String]) -> Result<ExitCode> {
    let spec = [
        ("out", Arity::One),
        ("run", Arity::One),
        ("concurrency", Arity::One),
        ("timeout-secs", Arity::One),
        ("max-secs", Arity::One),
        ("allow-private", Arity::Flag),
        ("host-delay-ms", Arity::One),
    ];
    let args = super::parse(raw, &spec, &["FILE"])?;
    let out = args
        .value("out")
        .ok_or_else(|| input_error("links needs --out OUT, the file to write FILE and the check to"))?;
    let settings = Settings {
        concurrency: number(&args, "concurrency", DEFAULT_CONCURRENCY, 1..=MAX_LINK_CONCURRENCY)?,
        timeout: Duration::from_secs(number(&args, "timeout-secs", DEFAULT_TIMEOUT_SECS, 1..=MAX_LINK_TIMEOUT_SECS)?),
        host_delay_ms: number(&args, "host-delay-ms", MAX_LINK_HOST_DELAY_MS, 0..=MAX_LINK_HOST_DELAY_MS)?,
        max_time: Duration::from_secs(number(&args, "max-secs", DEFAULT_LINK_CHECK_SECS, 1..=MAX_LINK_CHECK_SECS)?),
        allow_private: args.flag("allow-private"),
    };
    let mut env = super::export::load_export(&args.positionals[0])?;
    let run_id = match args.value("run") {
        Some(id) => geo_core::export::find_run(&env, id).map_err(|e| input_error(e.to_string()))?.id.clone(),
        None => geo_core::export::default_run(&env)
            .map(|r| r.id.clone())
            .ok_or_else(|| input_error("the export has no runs; start one with `geo-probe run`"))?,
    };
    let urls = answer_links(&env, &run_id);
    terminal::eprint_line(&format!(
        "checking {} answer link(s) of run {run_id}: {} at a time, one at a time per host with {} ms between, {} s each and {} s in all at most, {}",
        urls.len(),
        settings.concurrency,
        settings.host_delay_ms,
        settings.timeout.as_secs(),
        settings.max_time.as_secs(),
        if settings.allow_private { "private addresses too (--allow-private)" } else { "public addresses only" }
    ));
    let started = Instant::now();
    let check = check_links(urls, settings, &run_id, |done, total, line| {
        terminal::eprint_line(&format!("[{done}/{total}] {line}"));
    });
    terminal::eprint_line(&format!("checked in {:.1} s", started.elapsed().as_secs_f64()));
    let counts = geo_core::model::LinkCounts::of(&check);
    env.link_checks.retain(|c| c.run_id != run_id);
    env.link_checks.push(check);
    geo_core::export::sort_link_checks(&mut env.link_checks, &env.runs);
    let text = geo_core::export::to_json_pretty(&env);
    let redacted = terminal::redact(&text);
    write_atomic_with(std::path::Path::new(out), |w| w.write_all(redacted.as_bytes()))?;
    print(&format!("{}\n", links_counts_line(&counts)))?;
    Ok(ExitCode::SUCCESS)
}

/// Checks `urls` with `settings`, calling `progress(done, total, line)` after each link, and
/// returns the run's `linkChecks` record.
pub fn check_links(
    urls: Vec<String>,
    settings: Settings,
    run_id: &str,
    mut progress: impl FnMut(usize, usize, &str),
) -> LinkCheck {
    let config = CheckConfig {
        concurrency: settings.concurrency,
        host_delay_ms: settings.host_delay_ms,
        budget_ms: u64::try_from(settings.max_time.as_millis()).unwrap_or(u64::MAX),
        allow_private: settings.allow_private,
    };
    let mut checker = LinkChecker::new(urls, config);
    let total = checker.total();
    let agent = agent(settings.timeout, settings.allow_private);
    let (job_tx, job_rx) = mpsc::channel::<CheckRequest>();
    let (reply_tx, reply_rx) = mpsc::channel::<(usize, Reply)>();
    let job_rx = Arc::new(Mutex::new(job_rx));
    // The workers are never joined: the idle ones end when the jobs channel closes, and one
    // still in a request when the time budget runs out is not waited for (its reply has
    // nowhere to go, and the process ends once OUT is written).
    for _ in 0..settings.concurrency.clamp(1, MAX_LINK_CONCURRENCY) {
        let (jobs, replies, agent) = (job_rx.clone(), reply_tx.clone(), agent.clone());
        std::thread::spawn(move || loop {
            let job = match jobs.lock() {
                Ok(rx) => rx.recv(),
                Err(_) => return,
            };
            let Ok(job) = job else { return };
            let reply = perform(&agent, &job);
            if replies.send((job.id, reply)).is_err() {
                return;
            }
        });
    }
    drop(reply_tx);
    let start = Instant::now();
    let now = || start.elapsed().as_millis() as u64;
    let mut done = checker.done();
    loop {
        let reply = match checker.poll(now()) {
            Poll::Start(request) => {
                if job_tx.send(request).is_err() {
                    break;
                }
                continue;
            }
            Poll::Done => break,
            Poll::Wait(at) => match reply_rx.recv_timeout(Duration::from_millis(at.saturating_sub(now()))) {
                Ok(reply) => Some(reply),
                Err(mpsc::RecvTimeoutError::Timeout) => None,
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            },
        };
        if let Some((id, reply)) = reply {
            let line = describe(&reply);
            checker.on_reply(id, now(), reply);
            let now_done = checker.done();
            if now_done > done {
                done = now_done;
                progress(done, total, &line);
            }
        }
    }
    if checker.done() > done {
        let line = format!("time budget of {} s spent, the rest not checked", settings.max_time.as_secs());
        progress(checker.done(), total, &line);
    }
    drop(job_tx);
    checker.finish(run_id, &crate::clock::now_iso())
}

/// A progress line for a reply.
fn describe(reply: &Reply) -> String {
    match reply {
        Reply::Response { status, .. } => format!("http {status}"),
        Reply::Failed { error } => error.clone(),
        Reply::PrivateAddress => geo_core::actions::check::PRIVATE_ADDRESS.to_string(),
    }
}

/// The HTTP client of the check: no redirects, no proxy, no cookies (ureq's cookie store is
/// not built in), one deadline per request, a name lookup bounded by the same deadline and
/// filtered to public addresses unless `allow_private`, and no idle connection kept (a
/// reused connection would skip the resolver's check).
fn agent(timeout: Duration, allow_private: bool) -> ureq::Agent {
    ureq::AgentBuilder::new()
        .redirects(0)
        .timeout(timeout)
        .max_idle_connections(0)
        .user_agent(USER_AGENT)
        .resolver(move |addr: &str| lookup(addr, timeout, allow_private))
        .build()
}

/// Why the resolver gave no address: every one it found is not public (security-3 M2).
#[derive(Debug)]
struct PrivateAddress;

impl std::fmt::Display for PrivateAddress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(geo_core::actions::check::PRIVATE_ADDRESS)
    }
}

impl std::error::Error for PrivateAddress {}

/// The addresses of `host:port`, given up after `timeout` (the system's resolver has no time
/// limit of its own; a stuck lookup is left to finish on its own thread). Unless
/// `allow_private`, only the public ones: a name with public and private answers is
/// connected to at its public ones, a name with private answers only is [`PrivateAddress`].
fn lookup(addr: &str, timeout: Duration, allow_private: bool) -> std::io::Result<Vec<SocketAddr>> {
    let (tx, rx) = mpsc::channel();
    let addr = addr.to_string();
    std::thread::spawn(move || {
        let _ = tx.send(addr.to_socket_addrs().map(Iterator::collect::<Vec<_>>));
    });
    let mut found = rx
        .recv_timeout(timeout)
        .unwrap_or_else(|_| Err(std::io::Error::new(std::io::ErrorKind::TimedOut, "the name lookup took too long")))?;
    if allow_private || found.is_empty() {
        return Ok(found);
    }
    found.retain(|a| is_public(a.ip()));
    if found.is_empty() {
        return Err(std::io::Error::new(std::io::ErrorKind::PermissionDenied, PrivateAddress));
    }
    Ok(found)
}

/// Whether a failed request was refused by [`lookup`] because its addresses are not public.
fn refused_as_private(t: &ureq::Transport) -> bool {
    std::error::Error::source(t)
        .and_then(|e| e.downcast_ref::<std::io::Error>())
        .and_then(std::io::Error::get_ref)
        .is_some_and(|inner| inner.is::<PrivateAddress>())
}

/// Performs one request: the status and `Location` of its reply head, never its body.
pub fn perform(agent: &ureq::Agent, request: &CheckRequest) -> Reply {
    let call = match request.method {
        Method::Head => agent.head(&request.url),
        Method::Get => agent.get(&request.url),
    };
    match call.call() {
        Ok(response) | Err(ureq::Error::Status(_, response)) => {
            Reply::Response { status: response.status(), location: response.header("location").map(str::to_string) }
        }
        Err(ureq::Error::Transport(t)) if refused_as_private(&t) => Reply::PrivateAddress,
        Err(ureq::Error::Transport(t)) => Reply::Failed { error: transport_error(&t) },
    }
}

/// What failed, in words that name the class of failure (the URL has no userinfo, and the
/// text is cut by geo-core before it is kept).
fn transport_error(t: &ureq::Transport) -> String {
    use ureq::ErrorKind::*;
    let what = match t.kind() {
        Dns => "dns lookup failed",
        ConnectionFailed => "connection failed",
        BadStatus => "not an http reply",
        BadHeader => "a malformed reply header",
        InvalidUrl | UnknownScheme => "not a requestable url",
        Io => {
            let io = std::error::Error::source(t).and_then(|e| e.downcast_ref::<std::io::Error>());
            let text = t.to_string().to_ascii_lowercase();
            if io.is_some_and(|e| matches!(e.kind(), std::io::ErrorKind::TimedOut | std::io::ErrorKind::WouldBlock))
                || text.contains("timed out")
            {
                "timed out"
            } else if text.contains("tls") || text.contains("certificate") {
                "tls failed"
            } else {
                "connection error"
            }
        }
        _ => "request failed",
    };
    match t.message() {
        Some(m) => format!("{what}: {m}"),
        None => what.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};
    use std::net::TcpListener;

    /// Whether `lookup` refused `addr` as private.
    fn refused(addr: &str, allow_private: bool) -> bool {
        match lookup(addr, Duration::from_secs(10), allow_private) {
            Ok(found) => {
                assert!(!found.is_empty(), "{addr}: an empty answer");
                assert!(allow_private || found.iter().all(|a| is_public(a.ip())), "{addr}: {found:?}");
                false
            }
            Err(e) => e.get_ref().is_some_and(|inner| inner.is::<PrivateAddress>()),
        }
    }

    // security-3 M2: the resolver ureq connects with drops what is not public, names included.
    #[test]
    fn the_resolver_refuses_private_answers() {
        for addr in
            ["localhost:80", "127.0.0.1:80", "[::1]:80", "0.0.0.0:80", "169.254.169.254:80", "[::ffff:10.0.0.1]:80"]
        {
            assert!(refused(addr, false), "{addr}");
        }
        assert!(!refused("8.8.8.8:53", false), "a public address passes");
        for addr in ["localhost:80", "127.0.0.1:80", "169.254.169.254:80"] {
            assert!(!refused(addr, true), "--allow-private: {addr}");
        }
    }

    // security-3 M2: through ureq, a name that resolves to loopback is refused before any
    // connection (the listener has none pending afterwards); with --allow-private it is asked.
    #[test]
    fn a_private_name_is_never_connected_to() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://localhost:{}/admin", listener.local_addr().unwrap().port());
        let request = CheckRequest { id: 0, method: Method::Head, url };
        let reply = perform(&agent(Duration::from_secs(10), false), &request);
        assert_eq!(reply, Reply::PrivateAddress);
        listener.set_nonblocking(true).unwrap();
        let pending = listener.accept().map(|_| ()).map_err(|e| e.kind());
        assert_eq!(pending, Err(std::io::ErrorKind::WouldBlock), "no connection was made");
        listener.set_nonblocking(false).unwrap();
        let server = std::thread::spawn(move || {
            let (mut stream, _) = listener.accept().unwrap();
            let mut head = [0u8; 1024];
            let n = stream.read(&mut head).unwrap();
            let _ = stream.write_all(b"HTTP/1.1 204 No Content\r\nconnection: close\r\n\r\n");
            String::from_utf8_lossy(&head[..n]).into_owned()
        });
        let reply = perform(&agent(Duration::from_secs(10), true), &request);
        assert_eq!(reply, Reply::Response { status: 204, location: None });
        assert!(server.join().unwrap().starts_with("HEAD /admin "));
    }
}
