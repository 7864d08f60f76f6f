//! One connection, one request: read its head within the deadlines, ask the [`Gate`](super::gate::Gate), then
//! do what it decided (refuse, answer the preflight, or read the body and forward it), log
//! one line, and close without resetting.
//!
//! This is the shell around the pure decision of `gate.rs`: every read, write and clock
//! reading of a request happens here.

use std::io::{BufReader, Read, Write};
use std::net::{Shutdown, TcpStream};
use std::time::{Duration, Instant};

use geo_core::model::EngineId;
use geo_core::provider::REQUEST_TIMEOUT_MS;

use super::gate::{Decision, Refusal};
use super::http::{preflight, read_body, read_head, respond_json};
use super::relay::forward;
use super::slots::SlotGuard;
use super::{Proxy, DRAIN_BYTES, DRAIN_TIME, FIRST_LINE_TIME, REQUEST_READ_TIME};
use crate::terminal;

/// What one request came to, for its log line.
struct Served {
    engine: Option<EngineId>,
    status: u16,
}

/// Serves the one request of `stream`, logs it, gives its slot back to the idle ones and
/// closes the connection gently.
pub(super) fn serve_connection(proxy: &Proxy, stream: TcpStream, slot: SlotGuard) {
    let started = Instant::now();
    let _ = stream.set_write_timeout(Some(Duration::from_millis(REQUEST_TIMEOUT_MS)));
    if let Some(s) = handle(proxy, &stream, &slot) {
        log_request(s.engine, s.status, started.elapsed());
    }
    slot.idle();
    close_gently(&stream);
}

/// One line on standard error: time, engine, status, latency; nothing from the request.
pub(super) fn log_request(engine: Option<EngineId>, status: u16, elapsed: Duration) {
    let engine = engine.map_or("-", EngineId::as_str);
    terminal::eprint_line(&format!("{} {engine} {status} {}ms", crate::clock::now_iso(), elapsed.as_millis()));
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

/// Reads one request and answers it as the gate decides; `None` when the client sent no
/// request at all.
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
    let verdict = proxy.gate.check(&head);
    let (named, origin) = (verdict.engine, verdict.origin);
    let refuse = |status: u16, message: &str| {
        let _ = respond_json(stream, status, origin, message);
        Some(Served { engine: named, status })
    };
    let (engine, target, length) = match verdict.decision {
        Decision::Refuse(why) => return refuse(why.status(), why.message()),
        Decision::Preflight { origin, private_network } => {
            let _ = preflight(stream, origin, private_network);
            return Some(Served { engine: named, status: 204 });
        }
        Decision::Forward { engine, target, length } => (engine, target, length),
    };
    // The gate routes to the engines of `proxy.upstreams` only.
    let Some(upstream) = proxy.upstreams.iter().find(|u| u.engine == engine) else {
        return refuse(Refusal::Route.status(), Refusal::Route.message());
    };
    if head.header("expect").is_some_and(|e| e.eq_ignore_ascii_case("100-continue")) && !head.http10 {
        let _ = (&*stream).write_all(b"HTTP/1.1 100 Continue\r\n\r\n");
    }
    let Some(body) = read_body(&mut reader, length, deadline) else {
        return refuse(400, "geo-probe proxy: the request body ended early or came too slowly");
    };
    let status = forward(proxy, upstream, &target, &head, &body, stream, origin);
    Some(Served { engine: Some(engine), status })
}
