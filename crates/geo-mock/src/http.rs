//! Just enough HTTP/1.1 for the mock: read one request (headers + `Content-Length` body),
//! write one response with CORS headers, then close the connection.
//!
//! Every response carries `Connection: close`, so a body without a length (the SSE stream)
//! ends when the socket closes, and no client ever reuses a connection the mock is about to
//! drop in a fault scenario.

use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::TcpStream;

/// Largest header block or body the mock reads.
const MAX_BYTES: usize = 8 * 1024 * 1024;

/// One received request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    /// `GET`, `POST`, `OPTIONS` …
    pub method: String,
    /// The request target, e.g. `/anthropic/v1/messages`.
    pub path: String,
    /// Headers in arrival order, names lowercased.
    pub headers: Vec<(String, String)>,
    /// The body as text (lossy UTF-8).
    pub body: String,
}

impl Request {
    /// The first header named `name` (lowercase).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }
}

/// Reads one request from `stream`.
pub fn read_request(stream: &TcpStream) -> io::Result<Request> {
    let mut reader = BufReader::new(stream);
    let mut line = String::new();
    reader.read_line(&mut line)?;
    let mut parts = line.split_whitespace();
    let (Some(method), Some(path)) = (parts.next(), parts.next()) else {
        return Err(io::Error::new(io::ErrorKind::InvalidData, "malformed request line"));
    };
    let (method, path) = (method.to_string(), path.to_string());
    let mut headers = Vec::new();
    let mut total = line.len();
    loop {
        let mut h = String::new();
        let n = reader.read_line(&mut h)?;
        total += n;
        if n == 0 || total > MAX_BYTES {
            return Err(io::Error::new(io::ErrorKind::InvalidData, "truncated or oversized headers"));
        }
        let h = h.trim_end_matches(['\r', '\n']);
        if h.is_empty() {
            break;
        }
        if let Some((name, value)) = h.split_once(':') {
            headers.push((name.trim().to_ascii_lowercase(), value.trim().to_string()));
        }
    }
    let length =
        headers.iter().find(|(n, _)| n == "content-length").and_then(|(_, v)| v.parse::<usize>().ok()).unwrap_or(0);
    if length > MAX_BYTES {
        return Err(io::Error::new(io::ErrorKind::InvalidData, "body too large"));
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body)?;
    Ok(Request { method, path, headers, body: String::from_utf8_lossy(&body).into_owned() })
}

/// The CORS headers sent on every response (the web app calls the mock from another origin).
pub const CORS: &[(&str, &str)] = &[
    ("Access-Control-Allow-Origin", "*"),
    (
        "Access-Control-Allow-Headers",
        "content-type, x-api-key, anthropic-version, anthropic-dangerous-direct-browser-access, authorization, x-goog-api-key",
    ),
    ("Access-Control-Allow-Methods", "POST, OPTIONS"),
    ("Access-Control-Max-Age", "600"),
];

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        204 => "No Content",
        400 => "Bad Request",
        401 => "Unauthorized",
        402 => "Payment Required",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        _ => "Status",
    }
}

/// The status line and headers (CORS included, then `extra`) of a response; `length` None =
/// the body runs until the connection closes.
pub fn head(status: u16, content_type: &str, length: Option<usize>, extra: &[(&str, &str)]) -> String {
    let mut h = format!("HTTP/1.1 {status} {}\r\n", reason(status));
    for (n, v) in CORS {
        h.push_str(&format!("{n}: {v}\r\n"));
    }
    if !content_type.is_empty() {
        h.push_str(&format!("Content-Type: {content_type}\r\n"));
    }
    for (n, v) in extra {
        h.push_str(&format!("{n}: {v}\r\n"));
    }
    if let Some(len) = length {
        h.push_str(&format!("Content-Length: {len}\r\n"));
    }
    h.push_str("Connection: close\r\n\r\n");
    h
}

/// Writes a whole response and flushes it.
pub fn respond(mut stream: &TcpStream, status: u16, content_type: &str, body: &str) -> io::Result<()> {
    let mut bytes = head(status, content_type, Some(body.len()), &[]).into_bytes();
    bytes.extend_from_slice(body.as_bytes());
    stream.write_all(&bytes)?;
    stream.flush()
}
