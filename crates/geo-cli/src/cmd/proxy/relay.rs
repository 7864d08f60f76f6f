//! A request the gate let through, sent upstream, and the reply passed back: only the
//! allowed request headers and the engine's own key header go up; the status, the allowed
//! reply headers and the body come back chunk by chunk, capped, with the upstream's secrets
//! replaced by `[redacted]` (security review 3, finding M1).

use std::io::{self, Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use geo_core::chat::chat_endpoint;
use geo_core::limits::MAX_REPLY_BYTES;
use geo_core::provider::{self, endpoint_url_for, ApiKey, Caller, REQUEST_TIMEOUT_MS};
use geo_core::safe::ByteStreamRedactor;

use super::gate::Target;
use super::http::{cors, reason, respond_json, Head};
use super::{Proxy, Upstream, MAX_ERROR_REPLY_BYTES};

/// Request headers passed upstream when present; every other header is dropped.
const FORWARDED_HEADERS: &[&str] = &["content-type", "accept", "anthropic-version", "anthropic-beta"];

/// Reply headers passed back when present (the body is re-framed, so no length or encoding).
const RETURNED_HEADERS: &[&str] =
    &["content-type", "cache-control", "location", "retry-after", "request-id", "x-request-id"];

/// A header value that can be written on one line as it is.
fn plain_value(value: &str) -> bool {
    value.bytes().all(|b| b == b'\t' || (b' '..=b'~').contains(&b))
}

/// Sends the request upstream and passes the reply back; the status for the log line.
pub(super) fn forward(
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
