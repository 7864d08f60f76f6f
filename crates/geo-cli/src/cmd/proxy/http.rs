//! The proxy's own HTTP/1.1: reading a request (its head within deadlines and
//! [`MAX_HEAD_BYTES`], then exactly its `Content-Length` body) and writing the proxy's own
//! answers (a short JSON error, a CORS preflight).
//!
//! A deliberately small parser, one request per connection: a request line of three parts
//! (`HTTP/1.1` or `HTTP/1.0`, a path starting with `/`), header names of token characters
//! (so no folded line), no chunked body. Reading is over a [`Source`], the socket in the
//! proxy and a byte slice in the property tests below, so the reader's limits are tested
//! without a socket.

use std::io::{self, BufRead, BufReader, Write};
use std::net::TcpStream;
use std::time::Instant;

use serde_json::json;

use super::MAX_HEAD_BYTES;

/// What a page may send (the app's headers in proxy mode: no key header).
const ALLOWED_HEADERS: &str = "content-type, accept, anthropic-version, anthropic-beta, \
                               anthropic-dangerous-direct-browser-access, x-geo-probe-proxy-token";

/// Reply headers a page may read.
const EXPOSED_HEADERS: &str = "request-id, x-request-id, retry-after, location";

/// A request line and its headers.
pub(super) struct Head {
    pub(super) method: String,
    pub(super) target: String,
    pub(super) http10: bool,
    /// Names lowercased, values trimmed, in arrival order.
    pub(super) headers: Vec<(String, String)>,
}

impl Head {
    pub(super) fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }

    pub(super) fn count(&self, name: &str) -> usize {
        self.headers.iter().filter(|(n, _)| n == name).count()
    }

    /// The path without its query string.
    pub(super) fn path(&self) -> &str {
        self.target.split('?').next().unwrap_or("")
    }

    /// The body length: 0 without the header, `None` when the values disagree or are not
    /// numbers.
    pub(super) fn content_length(&self) -> Option<u64> {
        let mut values = self.headers.iter().filter(|(n, _)| n == "content-length").map(|(_, v)| v.as_str());
        let Some(first) = values.next() else { return Some(0) };
        if values.any(|v| v != first) || first.is_empty() || !first.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        first.parse().ok()
    }
}

/// Buffered bytes with a deadline: the connection's socket (its read timeout set to what is
/// left), or bytes in memory in the tests.
pub(super) trait Source: BufRead {
    /// Makes the next read give up at `deadline`; false when nothing is left until it.
    fn arm(&mut self, deadline: Instant) -> bool;
}

impl Source for BufReader<&TcpStream> {
    fn arm(&mut self, deadline: Instant) -> bool {
        let left = deadline.saturating_duration_since(Instant::now());
        !left.is_zero() && self.get_ref().set_read_timeout(Some(left)).is_ok()
    }
}

/// Reads the request line (by `first_line`) and headers (by `deadline`): `Ok(None)` when the
/// connection closed before any byte, `Err(status)` for a request that cannot be read (400,
/// 431 over [`MAX_HEAD_BYTES`], 408 when the client stalls). Never reads past the blank line
/// that ends the head.
pub(super) fn read_head(reader: &mut impl Source, first_line: Instant, deadline: Instant) -> Result<Option<Head>, u16> {
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
fn read_line(reader: &mut impl Source, total: &mut usize, by: Instant) -> Result<Vec<u8>, LineError> {
    let mut line = Vec::new();
    loop {
        if !reader.arm(by) {
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

/// Exactly `length` body bytes (never more), all before `deadline`.
pub(super) fn read_body(reader: &mut impl Source, length: usize, deadline: Instant) -> Option<Vec<u8>> {
    let mut body = vec![0u8; length];
    let mut filled = 0;
    while filled < length {
        if !reader.arm(deadline) {
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
pub(super) fn parse_head(lines: &[String]) -> Option<Head> {
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

// ------------------------------------------------------------------ answers

pub(super) fn reason(status: u16) -> &'static str {
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
pub(super) fn cors(head: &mut String, origin: Option<&str>) {
    if let Some(origin) = origin {
        head.push_str(&format!(
            "Access-Control-Allow-Origin: {origin}\r\nVary: Origin\r\nAccess-Control-Expose-Headers: {EXPOSED_HEADERS}\r\n"
        ));
    }
}

/// A whole answer of the proxy itself: a short JSON error.
pub(super) fn respond_json(mut stream: &TcpStream, status: u16, origin: Option<&str>, message: &str) -> io::Result<()> {
    let body =
        json!({ "error": { "type": geo_core::provider::LOCAL_PROXY_ERROR_TYPE, "message": message } }).to_string();
    let mut head = format!("HTTP/1.1 {status} {}\r\nContent-Type: application/json\r\n", reason(status));
    cors(&mut head, origin);
    head.push_str(&format!("Cache-Control: no-store\r\nContent-Length: {}\r\nConnection: close\r\n\r\n", body.len()));
    stream.write_all(head.as_bytes())?;
    stream.write_all(body.as_bytes())?;
    stream.flush()
}

/// The answer to an allowed origin's CORS preflight: 204 with what the app may send.
pub(super) fn preflight(mut stream: &TcpStream, origin: &str, private_network: bool) -> io::Result<()> {
    let mut out = format!(
        "HTTP/1.1 204 No Content\r\nAccess-Control-Allow-Origin: {origin}\r\nVary: Origin\r\n\
         Access-Control-Allow-Methods: POST\r\nAccess-Control-Allow-Headers: {ALLOWED_HEADERS}\r\n\
         Access-Control-Max-Age: 600\r\n"
    );
    // A page of an allowed origin on the public internet asks Chrome's Private Network Access.
    if private_network {
        out.push_str("Access-Control-Allow-Private-Network: true\r\n");
    }
    out.push_str("Connection: close\r\n\r\n");
    stream.write_all(out.as_bytes())?;
    stream.flush()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::time::Duration;

    /// Bytes in memory as a [`Source`]: every read is at once, so only a deadline already
    /// passed stops it.
    impl Source for &[u8] {
        fn arm(&mut self, deadline: Instant) -> bool {
            Instant::now() < deadline
        }
    }

    fn later() -> Instant {
        Instant::now() + Duration::from_secs(600)
    }

    /// [`read_head`] over `bytes`, and the bytes it left unread.
    fn read(bytes: &[u8]) -> (Result<Option<Head>, u16>, &[u8]) {
        let mut rest = bytes;
        let head = read_head(&mut rest, later(), later());
        (head, rest)
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
    fn the_reader_answers_each_unreadable_head_with_its_status() {
        assert!(matches!(read(b""), (Ok(None), _)));
        // Stray line breaks before the request line are skipped; a close after them is a 400.
        assert!(matches!(read(b"\r\n\r\nGET / HTTP/1.1\r\n\r\n"), (Ok(Some(_)), b"")));
        assert!(matches!(read(b"\r\n"), (Err(400), _)));
        assert!(matches!(read(b"GET / HTTP/1.1\r\nHost: x"), (Err(400), _)));
        assert!(matches!(read(b"GET / HTTP/1.1\r\nX: \xff\r\n\r\n"), (Err(400), _)));
        let mut big = b"GET / HTTP/1.1\r\n".to_vec();
        big.extend(vec![b'a'; MAX_HEAD_BYTES]);
        assert!(matches!(read(&big), (Err(431), _)));
        // A deadline already passed: 408, whatever the bytes.
        let mut bytes: &[u8] = b"GET / HTTP/1.1\r\n\r\n";
        assert!(matches!(read_head(&mut bytes, Instant::now(), later()), Err(408)));
        let mut bytes: &[u8] = b"GET / HTTP/1.1\r\n\r\n";
        let past = Instant::now();
        assert!(matches!(read_head(&mut bytes, later(), past), Err(408)));
    }

    /// A header name: token characters (RFC 9110), any case.
    fn name() -> impl Strategy<Value = String> {
        "[A-Za-z0-9!#$%&'*+.^_`|~-]{1,20}"
    }

    /// A header value as it arrives: visible ASCII and inner spaces, trimmed.
    fn value() -> impl Strategy<Value = String> {
        "[!-~]([ -~]{0,40}[!-~])?|"
    }

    proptest! {
        /// Whatever a client sends, the reader answers with a head, a status or nothing, and
        /// never reads past the head's limit.
        #[test]
        fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..2048)) {
            let (head, rest) = read(&bytes);
            prop_assert!(bytes.len() - rest.len() <= MAX_HEAD_BYTES);
            match head {
                Ok(Some(h)) => {
                    prop_assert!(!h.method.is_empty() && h.target.starts_with('/'));
                    prop_assert!(h.headers.iter().all(|(n, v)| *n == n.to_ascii_lowercase() && v.trim() == v));
                }
                Ok(None) => prop_assert!(bytes.is_empty()),
                Err(status) => prop_assert!([400, 431].contains(&status)),
            }
        }

        /// Bytes that look like a request (a request line and header lines, any of them
        /// mangled) never panic either.
        #[test]
        fn near_requests_never_panic(lines in proptest::collection::vec("[ -~\t\u{80}-\u{10ffff}]{0,30}", 0..8), crlf: bool) {
            let text = lines.iter().map(|l| format!("{l}{}", if crlf { "\r\n" } else { "\n" })).collect::<String>();
            let _ = read(text.as_bytes());
        }

        /// A well-formed head comes back as it was sent (names lowercased, values trimmed),
        /// and the body after it is left unread for [`read_body`], which reads exactly its
        /// length.
        #[test]
        fn a_well_formed_head_round_trips(
            method in "[A-Z]{1,10}",
            path in "/[A-Za-z0-9._~/?=&%-]{0,60}",
            http10: bool,
            headers in proptest::collection::vec((name(), value()), 0..12),
            crlf: bool,
            body in proptest::collection::vec(any::<u8>(), 0..64),
            extra in proptest::collection::vec(any::<u8>(), 0..16),
        ) {
            let eol = if crlf { "\r\n" } else { "\n" };
            let version = if http10 { "HTTP/1.0" } else { "HTTP/1.1" };
            let mut text = format!("{method} {path} {version}{eol}");
            for (n, v) in &headers {
                text.push_str(&format!("{n}: {v}{eol}"));
            }
            text.push_str(eol);
            let mut bytes = text.into_bytes();
            bytes.extend(&body);
            bytes.extend(&extra);
            let (head, mut rest) = read(&bytes);
            let head = head.unwrap().unwrap();
            prop_assert_eq!((&head.method, &head.target, head.http10), (&method, &path, http10));
            let sent: Vec<(String, String)> = headers.iter().map(|(n, v)| (n.to_ascii_lowercase(), v.clone())).collect();
            prop_assert_eq!(&head.headers, &sent);
            prop_assert_eq!(rest.len(), body.len() + extra.len());
            prop_assert_eq!(read_body(&mut rest, body.len(), later()), Some(body.clone()));
            prop_assert_eq!(rest, &extra[..]);
        }

        /// A body is never read past its length, and a body cut short is `None`.
        #[test]
        fn a_body_is_read_to_its_length_only(body in proptest::collection::vec(any::<u8>(), 0..256), cut in 1usize..8) {
            let mut rest: &[u8] = &body;
            prop_assert_eq!(read_body(&mut rest, body.len(), later()), Some(body.clone()));
            prop_assert!(rest.is_empty());
            let mut short: &[u8] = &body[..body.len().saturating_sub(cut)];
            prop_assert_eq!(read_body(&mut short, body.len().max(1), later()), None);
        }
    }

    proptest! {
        // Each case reads about 64 KiB: at most 256 of them, whatever PROPTEST_CASES says.
        #![proptest_config(ProptestConfig { cases: ProptestConfig::default().cases.min(256), ..ProptestConfig::default() })]

        /// A head is read up to [`MAX_HEAD_BYTES`] and refused with 431 past it, wherever the
        /// limit falls: in the request line, in a header line, or on the blank line.
        #[test]
        fn the_head_limit_is_enforced(
            size in (MAX_HEAD_BYTES - 64)..(MAX_HEAD_BYTES + 64),
            split in 1usize..200,
            in_path: bool,
        ) {
            // `size` bytes in all: a request line, header lines `x:` + `split` bytes, one last
            // header line taking what is left, the blank line.
            let mut text = if in_path {
                format!("GET /{} HTTP/1.1\r\n", "a".repeat(size - 2 - "GET / HTTP/1.1\r\n".len()))
            } else {
                String::from("GET / HTTP/1.1\r\n")
            };
            while size - text.len() - 2 >= split + 8 {
                text.push_str(&format!("x:{}\r\n", "v".repeat(split)));
            }
            let room = size - text.len() - 2;
            if room >= 4 {
                text.push_str(&format!("x:{}\r\n", "v".repeat(room - 4)));
            }
            text.push_str("\r\n");
            prop_assert_eq!(text.len(), size);
            let (head, _) = read(text.as_bytes());
            if size <= MAX_HEAD_BYTES {
                prop_assert!(matches!(head, Ok(Some(_))), "{} bytes: {:?}", size, head.err());
            } else {
                prop_assert_eq!(head.err(), Some(431));
            }
        }
    }
}
