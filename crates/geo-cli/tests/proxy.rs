//! `geo-probe proxy` over real sockets, against geo-mock (engines.md, "The local proxy";
//! `docs/adr/0020-local-proxy-threat-model.md`): every engine forwarded with its own key in
//! its own header, the token required, CORS for the named origins only, a wrong `Host`, other
//! methods and paths and a 5 MB body refused with nothing forwarded, the docs chat's SSE
//! stream passed on chunk by chunk, a redirect passed on unfollowed, a dead upstream a 502,
//! and no key or token (past its one line) on standard error.
//!
//! Every wait is on state (a line printed, a byte received); the deadline is only a safety net.

use std::ffi::OsStr;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::Duration;

use geo_core::model::{EngineId, RunConfig};
use geo_core::provider::{self, Caller, Endpoint, EngineReply};
use geo_mock::MockServer;
use serde_json::{json, Value};

mod support;

use support::mock;

const BIN: &str = env!("CARGO_BIN_EXE_geo-probe");
/// A safety net only: no test waits this long unless something is broken.
const DEADLINE: Duration = Duration::from_secs(60);
const TOKEN_HEADER: &str = "x-geo-probe-proxy-token";
const SERVE_ORIGIN: &str = "http://127.0.0.1:8080";

fn key_of(engine: EngineId) -> String {
    format!("sk-{engine}-SECRET-{}", engine as usize + 1)
}

/// A port nothing listens on (bound, then closed).
fn closed_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

// ------------------------------------------------------------------ the proxy process

/// A running `geo-probe proxy` and every standard-error line read so far.
struct Proxy {
    child: Child,
    lines: mpsc::Receiver<String>,
    seen: Vec<String>,
    port: u16,
    token: String,
}

/// Spawns `geo-probe proxy --port 0 ARGS` with exactly the key variables of `keys` set.
fn spawn<S: AsRef<OsStr>>(args: &[S], keys: &[(EngineId, String)]) -> (Child, mpsc::Receiver<String>) {
    let mut c = support::geo_probe();
    c.arg("proxy").args(["--port", "0"]).args(args);
    c.stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::piped());
    for (e, k) in keys {
        c.env(provider::spec(*e).key_env, k);
    }
    let mut child = c.spawn().unwrap();
    let stderr = child.stderr.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    (child, rx)
}

/// `geo-probe proxy --engine ENGINE --base-url ENGINE=BASE` and the flags `more`, with the
/// engine's key ([`key_of`]).
fn proxy_for(engine: EngineId, base: &str, more: &[&str]) -> Proxy {
    let own = format!("{engine}={base}");
    let mut args = vec!["--engine", engine.as_str(), "--base-url", &own];
    args.extend_from_slice(more);
    Proxy::start(&args, &[(engine, key_of(engine))])
}

impl Proxy {
    /// Starts the proxy and reads its first lines up to `token:`.
    fn start<S: AsRef<OsStr>>(args: &[S], keys: &[(EngineId, String)]) -> Proxy {
        let (child, lines) = spawn(args, keys);
        let mut p = Proxy { child, lines, seen: Vec::new(), port: 0, token: String::new() };
        let first = p.next_line();
        let addr = first.strip_prefix("geo-probe proxy: listening on http://127.0.0.1:").unwrap_or_else(|| {
            panic!("first line: {first:?}");
        });
        p.port = addr.split(' ').next().unwrap().parse().unwrap();
        assert!(first.contains("(engines: "), "{first}");
        let second = p.next_line();
        p.token = second.strip_prefix("token: ").unwrap_or_else(|| panic!("second line: {second:?}")).to_string();
        assert_eq!(p.token.len(), 43, "base64url of 32 bytes, no padding");
        assert!(p.token.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'), "{}", p.token);
        p
    }

    fn next_line(&mut self) -> String {
        let line = self.lines.recv_timeout(DEADLINE).expect("the proxy printed the expected line");
        self.seen.push(line.clone());
        line
    }

    /// The per-request lines so far: `TIME ENGINE STATUS LATENCYms`.
    fn request_lines(&self) -> Vec<String> {
        self.seen.iter().filter(|l| is_request_line(l)).cloned().collect()
    }

    /// Waits until `n` request lines have been printed.
    fn wait_for_requests(&mut self, n: usize) -> Vec<String> {
        while self.request_lines().len() < n {
            self.next_line();
        }
        self.request_lines()
    }

    /// Stops the proxy and returns its whole standard error.
    fn finish(&mut self) -> Vec<String> {
        let _ = self.child.kill();
        let _ = self.child.wait();
        while let Ok(line) = self.lines.recv_timeout(DEADLINE) {
            self.seen.push(line);
        }
        self.seen.clone()
    }

    /// Finishes and checks standard error: the token once (its own line), none of `secrets`,
    /// exactly `requests` request lines.
    fn finish_clean(&mut self, secrets: &[String], requests: usize) -> Vec<String> {
        let token = self.token.clone();
        let all = self.finish();
        let text = all.join("\n");
        for s in secrets {
            assert!(!text.contains(s.as_str()), "standard error holds the secret {s:?}:\n{text}");
        }
        assert_eq!(text.matches(&token).count(), 1, "the token appears once:\n{text}");
        assert_eq!(all[1], format!("token: {token}"));
        let lines: Vec<String> = all.iter().filter(|l| is_request_line(l)).cloned().collect();
        assert_eq!(lines.len(), requests, "one line per request:\n{text}");
        lines
    }

    fn send(&self, method: &str, path: &str, headers: &[(&str, &str)], body: &[u8]) -> Reply {
        send(self.port, method, path, headers, body)
    }

    fn token_header(&self) -> (&str, &str) {
        (TOKEN_HEADER, self.token.as_str())
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `2026-12-01T10:00:00.000Z ENGINE STATUS 12ms`.
fn is_request_line(line: &str) -> bool {
    let parts: Vec<&str> = line.split(' ').collect();
    parts.len() == 4
        && parts[0].len() == 24
        && parts[0].ends_with('Z')
        && parts[0].as_bytes()[10] == b'T'
        && parts[2].len() == 3
        && parts[2].parse::<u16>().is_ok()
        && parts[3].strip_suffix("ms").is_some_and(|n| n.parse::<u64>().is_ok())
}

// ------------------------------------------------------------------ a plain HTTP client

struct Reply {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
    /// A chunked body ended with its last chunk (or the body was not chunked).
    complete: bool,
}

impl Reply {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }

    fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

/// One request on a new connection; the whole answer (read until the proxy closes).
fn send(port: u16, method: &str, path: &str, headers: &[(&str, &str)], body: &[u8]) -> Reply {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(DEADLINE)).unwrap();
    let mut head = format!("{method} {path} HTTP/1.1\r\n");
    if !headers.iter().any(|(n, _)| n.eq_ignore_ascii_case("host")) {
        head.push_str(&format!("Host: 127.0.0.1:{port}\r\n"));
    }
    for (n, v) in headers {
        head.push_str(&format!("{n}: {v}\r\n"));
    }
    if method == "POST" && !headers.iter().any(|(n, _)| n.eq_ignore_ascii_case("transfer-encoding")) {
        head.push_str(&format!("Content-Length: {}\r\n", body.len()));
    }
    head.push_str("Connection: close\r\n\r\n");
    // A refused body may not be read in full: write errors are not the test's concern.
    let _ = s.write_all(head.as_bytes()).and_then(|()| s.write_all(body));
    let mut raw = Vec::new();
    let _ = s.read_to_end(&mut raw);
    parse_reply(&raw)
}

fn parse_reply(raw: &[u8]) -> Reply {
    let end = raw.windows(4).position(|w| w == b"\r\n\r\n").unwrap_or_else(|| {
        panic!("no complete answer head in {:?}", String::from_utf8_lossy(raw));
    });
    let head = String::from_utf8_lossy(&raw[..end]).into_owned();
    let mut lines = head.split("\r\n");
    let status = lines.next().unwrap().split(' ').nth(1).unwrap().parse().unwrap();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let rest = &raw[end + 4..];
    let chunked = headers.iter().any(|(n, v)| n == "transfer-encoding" && v.eq_ignore_ascii_case("chunked"));
    let (body, complete) = if chunked { dechunk(rest) } else { (rest.to_vec(), true) };
    Reply { status, headers, body, complete }
}

/// A chunked body's data, and whether its last (empty) chunk came.
fn dechunk(mut raw: &[u8]) -> (Vec<u8>, bool) {
    let mut out = Vec::new();
    loop {
        let Some(eol) = raw.windows(2).position(|w| w == b"\r\n") else { return (out, false) };
        let size = usize::from_str_radix(String::from_utf8_lossy(&raw[..eol]).trim(), 16).unwrap();
        if size == 0 {
            return (out, true);
        }
        let data = &raw[eol + 2..];
        if data.len() < size + 2 {
            out.extend_from_slice(data);
            return (out, false);
        }
        out.extend_from_slice(&data[..size]);
        raw = &data[size + 2..];
    }
}

/// The text of a `chat/completions` SSE stream: every event's `delta.content`, joined.
fn streamed_answer(stream: &str) -> String {
    stream
        .lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .filter_map(|d| serde_json::from_str::<Value>(d).ok())
        .filter_map(|v| v["choices"][0]["delta"]["content"].as_str().map(str::to_string))
        .collect()
}

/// The probe request of `engine` as the app sends it: its path under `/{engine}` and body.
fn probe_request(engine: EngineId) -> (String, RunConfig, String) {
    let config = RunConfig { engine, model: provider::spec(engine).default_model.to_string(), ..RunConfig::default() };
    let path = format!("/{engine}{}", provider::engine_path(engine, &config.model));
    let body = provider::engine_request_body(engine, "元构厂 proxy check", &config);
    (path, config, body)
}

// ------------------------------------------------------------------ the tests

/// Decisions 5 and 6: each engine's request reaches that engine's upstream with that engine's
/// key in its own header (`--require-key` per mock), the page's own key headers, cookie,
/// origin and token dropped; the answer comes back whole with the allowed origin's CORS header.
#[test]
fn every_engine_is_forwarded_with_its_own_key_only() {
    let mocks: Vec<(EngineId, MockServer)> =
        EngineId::ALL.into_iter().map(|e| (e, mock(&["--require-key", &key_of(e)]))).collect();
    let names: Vec<&str> = EngineId::ALL.iter().map(|e| e.as_str()).collect();
    let mut args = vec!["--engine".to_string(), names.join(",")];
    for (e, m) in &mocks {
        args.extend(["--base-url".to_string(), format!("{e}={}", m.url())]);
    }
    let keys: Vec<(EngineId, String)> = EngineId::ALL.iter().map(|e| (*e, key_of(*e))).collect();
    let mut proxy = Proxy::start(&args, &keys);
    assert!(proxy.seen[0].ends_with(&format!("(engines: {})", names.join(", "))), "{}", proxy.seen[0]);
    let smuggled = "sk-page-SMUGGLED-0";
    let bearer = format!("Bearer {smuggled}");
    let cookie = format!("session={smuggled}");
    for (engine, m) in &mocks {
        let (path, config, body) = probe_request(*engine);
        let reply = proxy.send(
            "POST",
            &path,
            &[
                proxy.token_header(),
                ("Content-Type", "application/json"),
                ("Origin", SERVE_ORIGIN),
                ("Authorization", bearer.as_str()),
                ("X-Api-Key", smuggled),
                ("X-Goog-Api-Key", smuggled),
                ("Cookie", cookie.as_str()),
            ],
            body.as_bytes(),
        );
        assert_eq!(reply.status, 200, "{engine}: {}", reply.text());
        assert!(reply.complete, "{engine}: the chunked answer ended with its last chunk");
        assert_eq!(reply.header("access-control-allow-origin"), Some(SERVE_ORIGIN), "{engine}");
        // The answer is the mock's recorded answer of that engine, read by geo-core.
        let endpoint = Endpoint::new(&config, Some(m.url().as_str()), None, Caller::Native);
        let parsed = endpoint
            .outcome(&EngineReply {
                status: 200,
                headers: &[("content-type", "application/json")],
                body: &reply.text(),
            })
            .unwrap_or_else(|e| panic!("{engine}: {e:?}"));
        assert!(!parsed.raw_answer.is_empty(), "{engine}");
        let log = m.log();
        assert_eq!(log.len(), 1, "{engine}: {log:?}");
        let entry = &log[0];
        assert_eq!(entry["engine"], engine.as_str());
        assert_eq!(entry["path"], provider::engine_path(*engine, &config.model));
        assert_eq!(entry["keyOk"], true, "{engine}: its own header carried its own key");
        let own = provider::spec(*engine).auth.header();
        let headers = entry["headers"].as_object().unwrap();
        assert_eq!(headers.get(own), Some(&json!("[redacted]")), "{engine}");
        for other in ["authorization", "x-api-key", "x-goog-api-key"].into_iter().filter(|h| *h != own) {
            assert!(!headers.contains_key(other), "{engine}: the page's {other} was forwarded");
        }
        for dropped in ["cookie", "origin", TOKEN_HEADER] {
            assert!(!headers.contains_key(dropped), "{engine}: {dropped} was forwarded");
        }
        assert_eq!(headers.get("content-type"), Some(&json!("application/json")), "{engine}");
    }
    let mut secrets: Vec<String> = keys.iter().map(|(_, k)| k.clone()).collect();
    secrets.push(smuggled.to_string());
    let lines = proxy.finish_clean(&secrets, EngineId::ALL.len());
    for (line, engine) in lines.iter().zip(EngineId::ALL) {
        assert!(line.contains(&format!(" {engine} 200 ")), "{line}");
    }
}

/// Decisions 2–5 and 7: without the token, with a wrong token, from another origin, with a
/// wrong `Host`, on another method or path, with a 5 MB or chunked body: refused, nothing
/// forwarded. CORS preflights only for the named origins.
#[test]
fn refused_requests_reach_no_engine() {
    let key = key_of(EngineId::Qwen);
    let m = mock(&["--require-key", &key]);
    let origins = ["--allow-origin", "http://localhost:5173", "--allow-origin", "http://127.0.0.1:8080/"];
    let mut proxy = proxy_for(EngineId::Qwen, &m.url(), &origins);
    let (path, _, body) = probe_request(EngineId::Qwen);
    let json_type = ("Content-Type", "application/json");
    let mut sent = 0;
    let mut check = |reply: Reply, status: u16, what: &str| {
        sent += 1;
        assert_eq!(reply.status, status, "{what}: {}", reply.text());
        assert!(m.log().is_empty(), "{what}: the mock got {:?}", m.log());
        reply
    };
    let right = proxy.token.clone();
    let mut wrong = right.clone().into_bytes();
    wrong[20] = if wrong[20] == b'A' { b'B' } else { b'A' };
    let wrong = String::from_utf8(wrong).unwrap();
    check(proxy.send("POST", &path, &[json_type], body.as_bytes()), 401, "no token");
    let r =
        check(proxy.send("POST", &path, &[json_type, (TOKEN_HEADER, wrong.as_str())], body.as_bytes()), 401, "wrong");
    assert!(!r.text().contains(&right) && !r.text().contains(&wrong));
    check(proxy.send("POST", &path, &[json_type, (TOKEN_HEADER, "short")], body.as_bytes()), 401, "short token");
    check(proxy.send("POST", &format!("{path}?x-geo-probe-proxy-token={right}"), &[json_type], b"{}"), 401, "query");
    // Preflights: the named origins only, never `*`.
    for origin in ["http://localhost:5173", SERVE_ORIGIN] {
        let r = check(
            proxy.send(
                "OPTIONS",
                &path,
                &[
                    ("Origin", origin),
                    ("Access-Control-Request-Method", "POST"),
                    ("Access-Control-Request-Headers", "content-type,x-geo-probe-proxy-token"),
                ],
                b"",
            ),
            204,
            origin,
        );
        assert_eq!(r.header("access-control-allow-origin"), Some(origin));
        let allowed = r.header("access-control-allow-headers").unwrap().to_ascii_lowercase();
        for h in [TOKEN_HEADER, "content-type"] {
            assert!(allowed.split(',').any(|a| a.trim() == h), "{h} in {allowed}");
        }
        assert!(r.header("access-control-allow-methods").unwrap().contains("POST"));
    }
    let evil = [("Origin", "http://evil.example"), ("Access-Control-Request-Method", "POST")];
    let r = check(proxy.send("OPTIONS", &path, &evil, b""), 403, "other origin's preflight");
    assert_eq!(r.header("access-control-allow-origin"), None);
    let r = check(
        proxy.send("POST", &path, &[json_type, proxy.token_header(), ("Origin", "http://evil.example")], b"{}"),
        403,
        "other origin's request",
    );
    assert!(r.headers.iter().all(|(n, v)| n != "access-control-allow-origin" && v != "*"));
    check(proxy.send("OPTIONS", &path, &[("Access-Control-Request-Method", "POST")], b""), 403, "no origin");
    // A 5 MB body: 413 before it is read, nothing forwarded.
    let big = vec![b'x'; 5 * 1024 * 1024];
    check(proxy.send("POST", &path, &[json_type, proxy.token_header()], &big), 413, "5 MB body");
    let chunked = [json_type, proxy.token_header(), ("Transfer-Encoding", "chunked")];
    check(proxy.send("POST", &path, &chunked, b"2\r\n{}\r\n0\r\n\r\n"), 411, "chunked body");
    // Other methods and paths: 404.
    check(proxy.send("GET", &path, &[proxy.token_header()], b""), 404, "GET");
    for other in ["/qwen/api/v1/other", "/qwen", "/qwen/", &format!("{path}/x"), "/doubao/api/v3/responses", "/"] {
        check(proxy.send("POST", other, &[json_type, proxy.token_header()], body.as_bytes()), 404, other);
    }
    // A Host that is not the proxy (DNS rebinding): 403, token or not.
    let port = proxy.port;
    for host in [format!("evil.example:{port}"), "127.0.0.1:1".to_string(), "localhost".to_string()] {
        let h = [json_type, proxy.token_header(), ("Host", host.as_str())];
        check(proxy.send("POST", &path, &h, body.as_bytes()), 403, &host);
    }
    // The same request, right: forwarded (so the silence above was the proxy's doing).
    let host = format!("localhost:{port}");
    let ok = proxy.send("POST", &path, &[json_type, proxy.token_header(), ("Host", host.as_str())], body.as_bytes());
    assert_eq!(ok.status, 200, "{}", ok.text());
    assert_eq!(m.log().len(), 1);
    assert_eq!(m.log()[0]["keyOk"], true);
    let lines = proxy.finish_clean(&[key, wrong], sent + 1);
    assert!(lines.iter().filter(|l| l.contains(" 401 ")).count() == 4, "{lines:?}");
    assert!(lines.last().unwrap().contains(" qwen 200 "), "{lines:?}");
}

/// Opens a docs-chat request through the proxy and sends it; the answer is left to read.
/// The docs chat's streamed request asking `question`.
fn chat_body(question: &str) -> String {
    json!({
        "model": "deepseek-v4-flash", "stream": true,
        "messages": [{ "role": "user", "content": question }]
    })
    .to_string()
}

fn open_chat(proxy: &Proxy, body: &str) -> TcpStream {
    let mut s = TcpStream::connect(("127.0.0.1", proxy.port)).unwrap();
    s.set_read_timeout(Some(DEADLINE)).unwrap();
    let head = format!(
        "POST /deepseek/chat/completions HTTP/1.1\r\nHost: 127.0.0.1:{}\r\n{TOKEN_HEADER}: {}\r\n\
         Content-Type: application/json\r\nAccept: text/event-stream\r\nContent-Length: {}\r\n\r\n",
        proxy.port,
        proxy.token,
        body.len()
    );
    s.write_all(head.as_bytes()).unwrap();
    s.write_all(body.as_bytes()).unwrap();
    s
}

/// Reads from `s` into `raw` until `needle` has arrived; what had arrived then.
fn read_until(s: &mut TcpStream, raw: &mut Vec<u8>, needle: &str) -> String {
    let mut buf = vec![0u8; 64 * 1024];
    while !String::from_utf8_lossy(raw).contains(needle) {
        let n = s.read(&mut buf).unwrap();
        assert!(n > 0, "the stream ended before {needle:?}: {:?}", String::from_utf8_lossy(raw));
        raw.extend_from_slice(&buf[..n]);
    }
    String::from_utf8_lossy(raw).into_owned()
}

/// Decision 9, deterministically: an upstream that sends its first event and then waits until
/// the client has it before it sends the rest. A proxy that held the reply back would never
/// pass the first event on (the upstream's wait would end only at the safety deadline).
#[test]
fn a_stream_is_passed_on_before_it_ends() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let gate = listener.local_addr().unwrap().port();
    let (got_first, first_arrived) = mpsc::channel::<()>();
    let upstream = std::thread::spawn(move || {
        let (mut s, _) = listener.accept().unwrap();
        let (head, _body) = support::read_request(&s);
        s.write_all(
            b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nConnection: close\r\n\r\ndata: {\"n\":1}\n\n",
        )
        .unwrap();
        // Safety net only: the client says when the first event reached it.
        let passed_on = first_arrived.recv_timeout(Duration::from_secs(20)).is_ok();
        s.write_all(b"data: {\"n\":2}\n\ndata: [DONE]\n\n").unwrap();
        (head, passed_on)
    });
    let key = key_of(EngineId::Deepseek);
    let mut proxy = proxy_for(EngineId::Deepseek, &format!("http://127.0.0.1:{gate}"), &[]);
    let mut s = open_chat(&proxy, r#"{"model":"deepseek-v4-flash","stream":true,"messages":[]}"#);
    let mut raw = Vec::new();
    let first = read_until(&mut s, &mut raw, "data: {\"n\":1}");
    assert!(!first.contains("[DONE]"), "{first}");
    got_first.send(()).unwrap();
    s.read_to_end(&mut raw).unwrap();
    let (head, passed_on) = upstream.join().unwrap();
    assert!(passed_on, "the first event reached the client only after the upstream gave up waiting");
    let reply = parse_reply(&raw);
    assert!(reply.complete);
    assert_eq!(reply.text(), "data: {\"n\":1}\n\ndata: {\"n\":2}\n\ndata: [DONE]\n\n");
    let head = head.to_ascii_lowercase();
    assert!(head.starts_with("post /chat/completions http/1.1"), "{head}");
    assert!(head.contains(&format!("authorization: bearer {}", key.to_ascii_lowercase())), "{head}");
    proxy.finish_clean(&[key], 1);
}

/// Decision 9 with the mock's docs chat (`--chat slow`): the SSE stream reaches the client
/// while the mock is still writing it, whole, with DeepSeek's key as `authorization: Bearer`
/// (the hostile scenario echoes the header it received).
#[test]
fn the_docs_chat_streams_chunk_by_chunk() {
    let key = key_of(EngineId::Deepseek);
    let m = mock(&["--chat", "slow", "--chat-delay-ms", "60"]);
    let mut proxy = proxy_for(EngineId::Deepseek, &m.url(), &[]);
    let mut s = open_chat(&proxy, &chat_body("GEO Probe 怎么保存 Key？"));
    // Read until the first event with data: the end of the stream must still be to come.
    let mut raw = Vec::new();
    let first = read_until(&mut s, &mut raw, "data: {");
    assert!(first.starts_with("HTTP/1.1 200 "), "{first}");
    assert!(!first.contains("[DONE]"), "the whole stream came at once: {first}");
    s.read_to_end(&mut raw).unwrap();
    let reply = parse_reply(&raw);
    assert!(reply.complete, "the chunked stream ended with its last chunk");
    assert!(reply.header("content-type").unwrap().starts_with("text/event-stream"));
    let text = reply.text();
    assert!(text.ends_with("data: [DONE]\n\n"), "{text}");
    assert_eq!(streamed_answer(&text), geo_mock::chat::ANSWER);
    assert_eq!(m.log().len(), 1);
    assert_eq!(m.log()[0]["path"], "/chat/completions");
    assert_eq!(m.log()[0]["headers"]["authorization"], "[redacted]");
    // The hostile scenario echoes the authorization header the mock received.
    let hostile = chat_body("echo [chat:hostile]");
    let r = proxy.send(
        "POST",
        "/deepseek/chat/completions",
        &[proxy.token_header(), ("Content-Type", "application/json"), ("Authorization", "Bearer sk-page-SMUGGLED-1")],
        hostile.as_bytes(),
    );
    assert_eq!(r.status, 200);
    let answer = streamed_answer(&r.text());
    assert!(answer.contains(&format!("Bearer {key}")), "DeepSeek's key as Bearer: {answer}");
    assert!(!answer.contains("SMUGGLED"));
    proxy.finish_clean(&[key, "sk-page-SMUGGLED-1".to_string()], 2);
}

/// Decision 8 and the failure path: an upstream 3xx goes back with its `Location`, never
/// followed; an upstream that does not answer is a 502 naming the engine, without the base's
/// query or any key.
#[test]
fn redirects_pass_through_and_dead_upstreams_are_502() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let tiny = listener.local_addr().unwrap().port();
    let heads: Arc<Mutex<Vec<String>>> = Arc::default();
    let count = Arc::new(AtomicUsize::new(0));
    {
        let (heads, count) = (Arc::clone(&heads), Arc::clone(&count));
        std::thread::spawn(move || {
            for conn in listener.incoming() {
                let Ok(mut s) = conn else { continue };
                let (head, _body) = support::read_request(&s);
                heads.lock().unwrap().push(head);
                count.fetch_add(1, Ordering::SeqCst);
                let answer = format!(
                    "HTTP/1.1 302 Found\r\nLocation: http://127.0.0.1:{tiny}/followed\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                );
                let _ = s.write_all(answer.as_bytes());
            }
        });
    }
    let dead = closed_port();
    let args: Vec<String> = [
        "--engine".to_string(),
        "openai,perplexity".to_string(),
        "--base-url".to_string(),
        format!("openai=http://127.0.0.1:{tiny}"),
        "--base-url".to_string(),
        format!("perplexity=http://127.0.0.1:{dead}/p?token=QUERYSECRET-77"),
    ]
    .to_vec();
    let keys = [(EngineId::Openai, key_of(EngineId::Openai)), (EngineId::Perplexity, key_of(EngineId::Perplexity))];
    let mut proxy = Proxy::start(&args, &keys);
    let (path, _, body) = probe_request(EngineId::Openai);
    let r = proxy.send("POST", &path, &[proxy.token_header(), ("Content-Type", "application/json")], body.as_bytes());
    assert_eq!(r.status, 302, "{}", r.text());
    assert_eq!(r.header("location"), Some(format!("http://127.0.0.1:{tiny}/followed").as_str()));
    assert_eq!(count.load(Ordering::SeqCst), 1, "exactly one request upstream: {:?}", heads.lock().unwrap());
    let head = heads.lock().unwrap()[0].to_ascii_lowercase();
    assert!(head.starts_with("post /v1/responses http/1.1"), "{head}");
    assert!(head.contains(&format!("authorization: bearer {}", key_of(EngineId::Openai).to_ascii_lowercase())));
    let (path, _, body) = probe_request(EngineId::Perplexity);
    let r = proxy.send("POST", &path, &[proxy.token_header(), ("Content-Type", "application/json")], body.as_bytes());
    assert_eq!(r.status, 502, "{}", r.text());
    let error: Value = serde_json::from_slice(&r.body).unwrap();
    let message = error["error"]["message"].as_str().unwrap();
    assert!(message.contains("perplexity"), "{message}");
    assert!(!message.contains("QUERYSECRET") && !message.contains("SECRET-"), "{message}");
    let mut secrets: Vec<String> = keys.iter().map(|(_, k)| k.clone()).collect();
    secrets.push("QUERYSECRET-77".to_string());
    let lines = proxy.finish_clean(&secrets, 2);
    assert!(lines[0].contains(" openai 302 ") && lines[1].contains(" perplexity 502 "), "{lines:?}");
    assert_eq!(count.load(Ordering::SeqCst), 1, "the redirect was never followed");
}

/// Flags, key variables set, and what the one `error:` line must name.
type StartCase<'a> = (&'a [&'a str], &'a [(EngineId, String)], &'a str);

/// Start-up refusals (exit 2, one `error:` line): an engine named without its key and
/// without `--base-url E=URL`; `--allow-origin *`; no engine at all; a bare `--base-url`.
#[test]
fn start_is_refused_without_a_key_or_with_a_star_origin() {
    let qwen_key = [(EngineId::Qwen, key_of(EngineId::Qwen))];
    let cases: [StartCase; 4] = [
        (&["--engine", "ernie"], &[], support::key_var("ernie")),
        (&["--allow-origin", "*"], &qwen_key, "--allow-origin"),
        (&[], &[], support::key_var("qwen")),
        (&["--base-url", "http://127.0.0.1:9"], &qwen_key, "ENGINE=URL"),
    ];
    for (args, keys, names) in cases {
        let (mut child, lines) = spawn(args, keys);
        let mut out = Vec::new();
        while let Ok(line) = lines.recv_timeout(DEADLINE) {
            let started = line.starts_with("token:");
            out.push(line);
            if started {
                let _ = child.kill();
            }
        }
        let status = child.wait().unwrap();
        assert_eq!(status.code(), Some(2), "{args:?}: {out:?}");
        assert_eq!(out.len(), 1, "{args:?}: {out:?}");
        assert!(out[0].starts_with("error: ") && out[0].contains(names), "{args:?}: {out:?}");
        assert!(!out[0].contains("SECRET"), "{out:?}");
    }
    // Named without a key but with its own base: it starts (forwarding without a key).
    let m = mock(&[]);
    let mut proxy = Proxy::start(&["--engine", "ernie", "--base-url", &format!("ernie={}", m.url())], &[]);
    let (path, _, body) = probe_request(EngineId::Ernie);
    let r = proxy.send("POST", &path, &[proxy.token_header(), ("Content-Type", "application/json")], body.as_bytes());
    assert_eq!(r.status, 200, "{}", r.text());
    assert!(!m.log()[0]["headers"].as_object().unwrap().contains_key("authorization"));
    proxy.wait_for_requests(1);
    proxy.finish_clean(&[], 1);
}

// ------------------------------------------------------------------ the CLI through the proxy

/// `geo-probe run` with `--engine qwen,doubao` through the proxy (issue 25's "done when" in a
/// terminal): no key variable in the run's environment, the token from
/// `GEO_PROBE_PROXY_TOKEN`, each engine's key added by the proxy (the mock accepts only it).
/// Without the token every probe fails `auth` at the proxy, once, and nothing reaches the mock.
#[test]
fn the_cli_runs_qwen_and_doubao_through_the_proxy_with_its_token() {
    let secret = "sk-cn-SECRET-7";
    let m = mock(&["--require-key", secret]);
    let keys = [(EngineId::Qwen, secret.to_string()), (EngineId::Doubao, secret.to_string())];
    let args: Vec<String> = ["--engine", "qwen,doubao", "--base-url"]
        .iter()
        .map(|s| s.to_string())
        .chain([format!("qwen={}", m.url()), "--base-url".into(), format!("doubao={}", m.url())])
        .collect();
    let mut proxy = Proxy::start(&args, &keys);
    let dir = std::env::temp_dir().join(format!("geo-cli-proxy-{}-cli", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let run = |out: &std::path::Path, token: Option<&str>| {
        let mut c = Command::new(BIN);
        c.args(["run", "../../fixtures/project.json", "--project", "proj_yuangouchang", "--engine", "qwen,doubao"]);
        c.args(["--prompts", "p01,p08", "--repeats", "1", "--out", out.to_str().unwrap()]);
        for e in ["qwen", "doubao"] {
            c.args(["--base-url", &format!("{e}=http://127.0.0.1:{}/{e}", proxy.port)]);
        }
        for e in EngineId::ALL {
            c.env_remove(provider::spec(e).key_env);
        }
        c.env_remove("GEO_PROBE_PROXY_TOKEN");
        if let Some(t) = token {
            c.env("GEO_PROBE_PROXY_TOKEN", t);
        }
        c.output().unwrap()
    };
    let out = dir.join("with-token.json");
    let o = run(&out, Some(&proxy.token.clone()));
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let runs = v["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 2);
    for r in runs {
        assert_eq!(r["status"], "completed", "{}", r["config"]["engine"]);
    }
    let log = m.log();
    assert_eq!(log.len(), 4, "two prompts for each engine");
    assert!(log.iter().all(|e| e["keyOk"] == true), "the proxy added the engine's key: {log:?}");
    let text = String::from_utf8_lossy(&o.stderr).to_string() + &std::fs::read_to_string(&out).unwrap();
    assert!(!text.contains(&proxy.token) && !text.contains(secret), "no token or key in the run's output");

    let out = dir.join("without-token.json");
    let o = run(&out, None);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && stderr.contains("no probe succeeded"), "{stderr}");
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    for p in v["probes"].as_array().unwrap().iter().filter(|p| p["status"] == "error") {
        assert_eq!(p["error"]["kind"], "auth", "{p}");
        assert_eq!(p["attempts"], 1, "{p}");
    }
    assert_eq!(v["probes"].as_array().unwrap().iter().filter(|p| p["status"] == "error").count(), 4);
    assert_eq!(m.log().len(), 4, "nothing reached the mock without the token");
    proxy.finish_clean(&[secret.to_string()], 8);
}

// ------------------------------------------------------------------ hardening III (security-3)

/// The probe request of `engine` for `prompt` (a prompt may carry a `[mock:…]` script).
fn probe_request_for(engine: EngineId, prompt: &str) -> (String, String) {
    let config = RunConfig { engine, model: provider::spec(engine).default_model.to_string(), ..RunConfig::default() };
    let path = format!("/{engine}{}", provider::engine_path(engine, &config.model));
    (path, provider::engine_request_body(engine, prompt, &config))
}

/// security-3 M1: an upstream that echoes the request (its auth header and path) in a 401, a
/// 400 and in an SSE event split across two network writes inside the key hands no key, and
/// no secret of the base URL's query, back through the proxy; what it said apart from them
/// arrives unchanged, `[redacted]` in their place.
#[test]
fn an_echoing_upstream_hands_no_key_back() {
    let engines = [EngineId::Deepseek, EngineId::Qwen, EngineId::Gemini];
    let m = mock(&[]);
    let query_secret = "QUERY-SECRET-4242";
    let mut args = vec!["--engine".to_string(), "deepseek,qwen,gemini".to_string()];
    for e in engines {
        let base = if e == EngineId::Qwen { format!("{}/?token={query_secret}", m.url()) } else { m.url() };
        args.extend(["--base-url".to_string(), format!("{e}={base}")]);
    }
    let keys: Vec<(EngineId, String)> = engines.iter().map(|e| (*e, key_of(*e))).collect();
    let mut proxy = Proxy::start(&args, &keys);
    let mut requests = 0;
    for (engine, key) in &keys {
        for status in [401u16, 400] {
            let (path, body) = probe_request_for(*engine, &format!("echo {status} [mock:echo={status}]"));
            let r = proxy.send(
                "POST",
                &path,
                &[proxy.token_header(), ("Content-Type", "application/json"), ("Origin", SERVE_ORIGIN)],
                body.as_bytes(),
            );
            requests += 1;
            let text = r.text();
            assert_eq!(r.status, status, "{engine}: {text}");
            assert!(r.complete, "{engine} {status}");
            assert!(!text.contains(key.as_str()), "{engine} {status}: the key came back: {text}");
            assert!(!text.contains(query_secret), "{engine} {status}: the base's secret came back: {text}");
            assert!(text.contains("echo: ") && text.contains("[redacted]"), "{engine} {status}: {text}");
            // Only the secret went: the rest of the echo (the path) is as the upstream wrote it.
            assert!(text.contains(&provider::engine_path(*engine, provider::spec(*engine).default_model)), "{text}");
        }
    }
    // The docs chat's stream: the key whole in one event, written in two pieces inside it.
    let mut s = open_chat(&proxy, &chat_body("echo [chat:echo]"));
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).unwrap();
    requests += 1;
    let reply = parse_reply(&raw);
    assert!(reply.complete);
    let answer = streamed_answer(&reply.text());
    let deepseek_key = key_of(EngineId::Deepseek);
    assert!(!String::from_utf8_lossy(&raw).contains(&deepseek_key), "{answer}");
    assert!(answer.starts_with(geo_mock::chat::ANSWER) && answer.ends_with(" [echo: authorization=Bearer [redacted]]"));
    let mut secrets: Vec<String> = keys.iter().map(|(_, k)| k.clone()).collect();
    secrets.push(query_secret.to_string());
    proxy.finish_clean(&secrets, requests);
}

/// A `geo-probe` command in proxy mode: no key variable set, the token from the environment.
fn cli_through(proxy: &Proxy, args: &[String]) -> std::process::Output {
    let mut c = Command::new(BIN);
    c.args(args);
    for e in EngineId::ALL {
        c.env_remove(provider::spec(e).key_env);
    }
    c.env("GEO_PROBE_PROXY_TOKEN", &proxy.token);
    c.output().unwrap()
}

/// security-3 M1 from the CLI's side: `run` and `doctor` through the proxy in front of an
/// upstream that echoes the key in every error leave it in neither OUT, standard error nor
/// standard output (the CLI does not know the key: only the proxy could remove it).
#[test]
fn run_and_doctor_through_the_proxy_print_and_keep_no_echoed_key() {
    let secret = "sk-echoed-SECRET-31";
    for fault in ["echo=401:1", "echo=400:1"] {
        let m = mock(&["--fault", fault]);
        let mut proxy = Proxy::start(
            &["--engine", "qwen", "--base-url", &format!("qwen={}", m.url())],
            &[(EngineId::Qwen, secret.to_string())],
        );
        let base = format!("qwen=http://127.0.0.1:{}/qwen", proxy.port);
        let dir = std::env::temp_dir().join(format!("geo-cli-proxy-{}-echo-{}", std::process::id(), &fault[5..8]));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let out = dir.join("run.json");
        let run: Vec<String> =
            ["run", "../../fixtures/project.json", "--project", "proj_yuangouchang", "--engine", "qwen"]
                .iter()
                .map(|s| s.to_string())
                .chain(["--prompts".into(), "p01".into(), "--repeats".into(), "1".into(), "--out".into()])
                .chain([out.to_str().unwrap().to_string(), "--base-url".into(), base.clone()])
                .collect();
        let o = cli_through(&proxy, &run);
        let file = std::fs::read_to_string(&out).unwrap();
        let text = format!("{}{}{file}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
        assert!(!text.contains(secret), "{fault}: the key reached run's output:\n{text}");
        let v: Value = serde_json::from_str(&file).unwrap();
        let error = v["probes"][0]["error"]["message"].as_str().unwrap_or_default().to_string();
        assert!(error.contains("[redacted]"), "{fault}: the echo reached the probe, without the key: {error}");
        let doctor: Vec<String> =
            ["doctor", "--engine", "qwen", "--base-url", &base].iter().map(|s| s.to_string()).collect();
        let o = cli_through(&proxy, &doctor);
        let text = format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
        assert!(!text.contains(secret), "{fault}: the key reached doctor's output:\n{text}");
        // A refused key is said in doctor's own words; any other error quotes the reply.
        assert!(fault.starts_with("echo=401") || text.contains("[redacted]"), "{fault}: doctor shows the echo: {text}");
        assert!(m.log().len() >= 2, "both commands reached the upstream");
        let _ = std::fs::remove_dir_all(&dir);
        let lines = proxy.finish();
        assert!(!lines.join("\n").contains(secret));
    }
}

/// security-3 L2: connections that send nothing (or half a request line) never keep a real
/// request out: all [`MAX_CONNECTIONS`](64) slots held idle, the next request is still served.
#[test]
fn idle_connections_do_not_keep_a_request_out() {
    let m = mock(&[]);
    let key = key_of(EngineId::Qwen);
    let mut proxy = proxy_for(EngineId::Qwen, &m.url(), &[]);
    let idle: Vec<TcpStream> = (0..64)
        .map(|i| {
            let mut s = TcpStream::connect(("127.0.0.1", proxy.port)).unwrap();
            if i % 2 == 0 {
                s.write_all(b"POST ").unwrap();
            }
            s
        })
        .collect();
    for round in 0..3 {
        let (path, _, body) = probe_request(EngineId::Qwen);
        let r =
            proxy.send("POST", &path, &[proxy.token_header(), ("Content-Type", "application/json")], body.as_bytes());
        assert_eq!(r.status, 200, "round {round}: {}", r.text());
    }
    assert_eq!(m.log().len(), 3);
    drop(idle);
    // The idle connections that sent half a line are logged as bad requests (400) when closed.
    let lines = proxy.finish();
    assert_eq!(lines.iter().filter(|l| l.contains(" qwen 200 ")).count(), 3, "{lines:?}");
    assert!(!lines.join("\n").contains(&key));
}

/// security-3 L2: when every slot serves a request (64 requests waiting on a slow upstream),
/// one more connection is answered 503 at once, and the 64 are answered when the upstream is.
#[test]
fn a_connection_over_the_limit_is_answered_503_at_once() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let (release_tx, release_rx) = mpsc::channel::<()>();
    let arrived = Arc::new(AtomicUsize::new(0));
    {
        let arrived = Arc::clone(&arrived);
        std::thread::spawn(move || {
            let mut held = Vec::new();
            for conn in listener.incoming() {
                let Ok(s) = conn else { continue };
                let _ = support::read_request(&s);
                held.push(s);
                if arrived.fetch_add(1, Ordering::SeqCst) + 1 == 64 {
                    break;
                }
            }
            // Safety net only: the test releases the upstream once the 65th connection is answered.
            let _ = release_rx.recv_timeout(DEADLINE);
            for mut s in held {
                let _ =
                    s.write_all(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}");
            }
        });
    }
    let key = key_of(EngineId::Openai);
    let mut proxy = proxy_for(EngineId::Openai, &format!("http://127.0.0.1:{port}"), &[]);
    let (path, _, body) = probe_request(EngineId::Openai);
    let token = proxy.token.clone();
    let proxy_port = proxy.port;
    let busy: Vec<_> = (0..64)
        .map(|_| {
            let (path, body, token) = (path.clone(), body.clone(), token.clone());
            std::thread::spawn(move || {
                send(
                    proxy_port,
                    "POST",
                    &path,
                    &[(TOKEN_HEADER, token.as_str()), ("Content-Type", "application/json")],
                    body.as_bytes(),
                )
            })
        })
        .collect();
    while arrived.load(Ordering::SeqCst) < 64 {
        std::thread::sleep(Duration::from_millis(10));
    }
    let over =
        proxy.send("POST", &path, &[proxy.token_header(), ("Content-Type", "application/json")], body.as_bytes());
    assert_eq!(over.status, 503, "{}", over.text());
    release_tx.send(()).unwrap();
    for t in busy {
        assert_eq!(t.join().unwrap().status, 200);
    }
    proxy.wait_for_requests(65);
    let lines = proxy.finish_clean(&[key], 65);
    assert_eq!(lines.iter().filter(|l| l.contains(" 503 ")).count(), 1, "{lines:?}");
}

/// security-3 L2: a client that sends its request line slower than the first-line deadline
/// (5 s) gets 408, although the whole request would have arrived within the 30 s budget.
#[test]
fn a_request_line_must_arrive_within_five_seconds() {
    let m = mock(&[]);
    let key = key_of(EngineId::Qwen);
    let mut proxy = proxy_for(EngineId::Qwen, &m.url(), &[]);
    let (path, _, _) = probe_request(EngineId::Qwen);
    let mut s = TcpStream::connect(("127.0.0.1", proxy.port)).unwrap();
    s.set_read_timeout(Some(DEADLINE)).unwrap();
    let mut w = s.try_clone().unwrap();
    let port = proxy.port;
    // About 12 s for the line, one byte at a time; then the rest at once. The answer is read
    // meanwhile, so it is in before the writing stops.
    let writer = std::thread::spawn(move || {
        let line = format!("POST {path} HTTP/1.1\r\n");
        let step = Duration::from_millis(12_000 / line.len() as u64);
        for b in line.bytes() {
            if w.write_all(&[b]).is_err() {
                return; // the proxy gave up on the line and closed
            }
            std::thread::sleep(step);
        }
        let _ = w.write_all(format!("Host: 127.0.0.1:{port}\r\nContent-Length: 0\r\n\r\n").as_bytes());
    });
    let mut raw = Vec::new();
    let _ = s.read_to_end(&mut raw);
    writer.join().unwrap();
    assert_eq!(parse_reply(&raw).status, 408, "{}", String::from_utf8_lossy(&raw));
    assert!(m.log().is_empty());
    proxy.wait_for_requests(1);
    proxy.finish_clean(&[key], 1);
}

/// security-3 L1: the proxy answers on `[::1]` too (so `localhost` reaches it whichever
/// loopback a browser tries first) and will not start when another program holds `[::1]` at
/// its port, where it could take the token.
#[test]
fn both_loopbacks_are_the_proxys_or_it_does_not_start() {
    if TcpListener::bind("[::1]:0").is_err() {
        return; // no IPv6 loopback on this machine: nobody can listen there either
    }
    let m = mock(&[]);
    let key = key_of(EngineId::Qwen);
    let base = format!("qwen={}", m.url());
    let mut proxy = proxy_for(EngineId::Qwen, &m.url(), &[]);
    let (path, _, body) = probe_request(EngineId::Qwen);
    let mut s = TcpStream::connect(("::1", proxy.port)).unwrap();
    s.set_read_timeout(Some(DEADLINE)).unwrap();
    let head = format!(
        "POST {path} HTTP/1.1\r\nHost: [::1]:{}\r\n{TOKEN_HEADER}: {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        proxy.port,
        proxy.token,
        body.len()
    );
    s.write_all(head.as_bytes()).unwrap();
    s.write_all(body.as_bytes()).unwrap();
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).unwrap();
    assert_eq!(parse_reply(&raw).status, 200, "{}", String::from_utf8_lossy(&raw));
    proxy.wait_for_requests(1);
    proxy.finish_clean(std::slice::from_ref(&key), 1);

    // Another program on [::1] at the port: the proxy refuses to start.
    let squatter = TcpListener::bind("[::1]:0").unwrap();
    let port = squatter.local_addr().unwrap().port();
    if TcpListener::bind(("127.0.0.1", port)).is_err() {
        return; // the port is taken on 127.0.0.1 as well: nothing to learn
    }
    let mut c = Command::new(BIN);
    c.args(["proxy", "--port", &port.to_string(), "--engine", "qwen", "--base-url", &base]);
    for e in EngineId::ALL {
        c.env_remove(provider::spec(e).key_env);
    }
    let o = c.env(provider::spec(EngineId::Qwen).key_env, &key).output().unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{stderr}");
    assert!(stderr.starts_with("error: cannot listen on [::1]:"), "{stderr}");
    assert!(!stderr.contains("token:") && !stderr.contains(&key), "{stderr}");
}

/// security-3 L6: an allowed origin that other content shares (a GitHub Pages user site, plain
/// `http://` away from this machine) is warned about at start; a loopback origin is not.
#[test]
fn origins_that_other_content_shares_are_warned_about_at_start() {
    let m = mock(&[]);
    let key = key_of(EngineId::Qwen);
    let origins = ["https://octo.github.io", "http://geo.example:8080", "http://127.0.0.1:5173"];
    let mut proxy = proxy_for(EngineId::Qwen, &m.url(), &origins.map(|o| ["--allow-origin", o]).concat());
    let allowed = proxy.next_line();
    assert!(allowed.contains("pages allowed from https://octo.github.io, http://geo.example:8080"), "{allowed}");
    let (pages, plain) = (proxy.next_line(), proxy.next_line());
    assert!(pages.starts_with("warning: ") && pages.contains("octo"), "{pages}");
    assert!(plain.starts_with("warning: ") && plain.contains("http://"), "{plain}");
    let lines = proxy.finish_clean(&[key], 0);
    assert!(lines.is_empty());
    let all = proxy.seen.join("\n");
    assert_eq!(all.matches("warning: ").count(), 2, "no warning for the loopback origin:\n{all}");
}
