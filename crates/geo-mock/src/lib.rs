//! A mock DeepSeek server for GEO Probe, so anyone can try a whole run without a key and
//! every failure of seed §3.4 can be produced on demand, over real sockets.
//!
//! # The one decision: replay recorded bodies, script the faults
//!
//! The mock never invents a Messages response: it answers with the bodies recorded in
//! `fixtures/responses/` (embedded at build time), chosen by prompt text — a prompt of
//! `fixtures/project.json` gets its own fixture, any other prompt gets the answering fixtures
//! in turn — with only `model` rewritten to the requested model. What varies is *whether* it
//! answers, and that is decided per request by a [`Schedule`]: a `[mock:…]` script in the
//! prompt text (see [`scenario`]), then `--fail-first N`, then a seeded draw against the
//! `--fault KIND:P` table. Draws are derived from (seed, prompt text, attempt index), so a
//! seed gives the same faults whatever order concurrent requests arrive in.
//!
//! # Endpoints
//!
//! * `POST …/anthropic/v1/messages`: recorded responses and faults (401, 402, 403, 408, 429,
//!   500, 503 with recorded bodies; cut-off JSON; an empty or preamble-only answer; a hang
//!   that closes after `--hang-secs`; a search error object).
//! * `POST …/chat/completions`: the Docs chat's SSE stream (see [`chat`]).
//! * `OPTIONS` anything: 204 with CORS headers (every response carries them).
//!
//! Every request is appended to the in-memory log ([`MockServer::log`]) and, with `--log
//! FILE`, to FILE as one JSON object per line: `seq`, `method`, `path`, `headers` (every
//! header, names lowercased), `body` (text), and for Messages requests `prompt`, `attempt`,
//! `outcome` and `fixture`.
//!
//! **Architecture Invariant:** the mock binds 127.0.0.1 only, and answers every Messages
//! request from a recorded body or a recorded error body.

#![warn(missing_docs)]

pub mod chat;
pub mod fixtures;
pub mod http;
pub mod prng;
pub mod scenario;

use std::collections::HashMap;
use std::fs::OpenOptions;
use std::io::{self, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use serde_json::{json, Value};

pub use chat::ChatScenario;
pub use fixtures::Fixtures;
pub use prng::Prng;
pub use scenario::{parse_fault, parse_marker, Fault, Outcome, Schedule};

/// Usage text of the `geo-mock` binary and `cargo xtask mock`.
pub const USAGE: &str = "usage: geo-mock [flags]

Serves POST /anthropic/v1/messages from the recorded fixtures and POST /chat/completions (SSE)
on 127.0.0.1; prints `geo-mock listening on http://127.0.0.1:PORT` first.

flags:
  --port N            port to bind (0 = any free port; default 8787)
  --fault KIND:P      fail a request with KIND at probability P (repeatable), e.g. 429:0.2
  --seed N            seed of the fault draws (default 0)
  --fail-first N      each prompt's first N requests fail (with --fail-kind, default 500)
  --fail-kind KIND    the failure of --fail-first
  --latency-ms N      wait N ms before every answer
  --hang-secs N       how long a `hang` keeps the connection before closing it (default 30)
  --require-key KEY   answer 401 unless x-api-key is KEY
  --proxy             with --require-key: a request without x-api-key is allowed
  --log FILE          append every request as a JSON line to FILE
  --chat SCENARIO     chat stream: normal, error, cut or slow (default normal)
  --chat-delay-ms N   pause between events of the slow chat stream (default 400)

KIND: 401 402 403 408 429 500 503 invalid_json empty preamble hang search_error
A prompt containing [mock:429,429,ok] is answered by that script, one entry per request
for that prompt text, the last entry repeating (ok=N answers with fixture N); [chat:cut] in the last user message picks
the chat scenario.";

/// How the mock behaves.
#[derive(Debug, Clone, PartialEq)]
pub struct MockConfig {
    /// Port on 127.0.0.1; 0 picks a free one.
    pub port: u16,
    /// Faults by probability, `--fail-first`, seed.
    pub schedule: Schedule,
    /// Delay before every Messages answer.
    pub latency_ms: u64,
    /// How long a `hang` keeps the connection open before closing it without a response.
    pub hang_secs: u64,
    /// `--require-key`.
    pub require_key: Option<String>,
    /// `--proxy`: no `x-api-key` header is accepted even with `--require-key`.
    pub proxy: bool,
    /// `--log FILE`.
    pub log: Option<PathBuf>,
    /// Default chat scenario (a `[chat:…]` marker wins).
    pub chat: ChatScenario,
    /// Pause between events of the slow chat stream.
    pub chat_delay_ms: u64,
}

impl Default for MockConfig {
    fn default() -> Self {
        MockConfig {
            port: 8787,
            schedule: Schedule::default(),
            latency_ms: 0,
            hang_secs: 30,
            require_key: None,
            proxy: false,
            log: None,
            chat: ChatScenario::Normal,
            chat_delay_ms: 400,
        }
    }
}

impl MockConfig {
    /// Parses the flags of [`USAGE`] (`--flag value` or `--flag=value`).
    pub fn from_args(args: &[String]) -> Result<MockConfig, String> {
        let mut c = MockConfig::default();
        let mut i = 0;
        while i < args.len() {
            let raw = &args[i];
            i += 1;
            let Some(flag) = raw.strip_prefix("--") else {
                return Err(format!("unexpected argument {raw:?}; every option is a --flag"));
            };
            let (name, inline) = match flag.split_once('=') {
                Some((n, v)) => (n, Some(v.to_string())),
                None => (flag, None),
            };
            if name == "proxy" {
                c.proxy = true;
                continue;
            }
            if name == "help" {
                return Err(USAGE.to_string());
            }
            let value = match inline {
                Some(v) => v,
                None if i < args.len() => {
                    i += 1;
                    args[i - 1].clone()
                }
                None => return Err(format!("--{name} needs a value")),
            };
            let number =
                |v: &str| v.trim().parse::<u64>().map_err(|_| format!("--{name} must be a whole number, got {v:?}"));
            match name {
                "port" => {
                    c.port = u16::try_from(number(&value)?).map_err(|_| format!("--port {value} is out of range"))?
                }
                "fault" => c.schedule.faults.push(parse_fault(&value)?),
                "seed" => c.schedule.seed = number(&value)?,
                "fail-first" => c.schedule.fail_first = u32::try_from(number(&value)?).unwrap_or(u32::MAX),
                "fail-kind" => c.schedule.fail_kind = Some(Outcome::parse(&value)?),
                "latency-ms" => c.latency_ms = number(&value)?,
                "hang-secs" => c.hang_secs = number(&value)?,
                "require-key" => c.require_key = Some(value),
                "log" => c.log = Some(PathBuf::from(value)),
                "chat" => c.chat = ChatScenario::parse(&value)?,
                "chat-delay-ms" => c.chat_delay_ms = number(&value)?,
                _ => return Err(format!("unknown flag --{name}; run geo-mock --help")),
            }
        }
        c.schedule.validate()?;
        Ok(c)
    }
}

struct Shared {
    config: MockConfig,
    fixtures: Fixtures,
    attempts: Mutex<HashMap<String, u32>>,
    turn: AtomicU64,
    seq: AtomicU64,
    log: Mutex<Vec<Value>>,
    log_file: Option<Mutex<std::fs::File>>,
}

/// A running mock server; it stops when dropped.
pub struct MockServer {
    addr: SocketAddr,
    shared: Arc<Shared>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl MockServer {
    /// Binds 127.0.0.1 on the configured port and serves on background threads.
    pub fn start(config: MockConfig) -> io::Result<MockServer> {
        let fixtures = Fixtures::load().map_err(io::Error::other)?;
        let listener = TcpListener::bind(("127.0.0.1", config.port))?;
        let addr = listener.local_addr()?;
        let log_file = match &config.log {
            Some(p) => Some(Mutex::new(OpenOptions::new().create(true).append(true).open(p)?)),
            None => None,
        };
        let shared = Arc::new(Shared {
            config,
            fixtures,
            attempts: Mutex::new(HashMap::new()),
            turn: AtomicU64::new(0),
            seq: AtomicU64::new(0),
            log: Mutex::new(Vec::new()),
            log_file,
        });
        let stop = Arc::new(AtomicBool::new(false));
        let (s, st) = (Arc::clone(&shared), Arc::clone(&stop));
        let thread = std::thread::spawn(move || {
            for conn in listener.incoming() {
                if st.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(stream) = conn else { continue };
                let s = Arc::clone(&s);
                std::thread::spawn(move || handle(&s, stream));
            }
        });
        Ok(MockServer { addr, shared, stop, thread: Some(thread) })
    }

    /// `http://127.0.0.1:PORT`: the base URL to give `geo-probe --base-url`.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The bound port.
    pub fn port(&self) -> u16 {
        self.addr.port()
    }

    /// Every request received so far, as the JSON objects of the request log.
    pub fn log(&self) -> Vec<Value> {
        self.shared.log.lock().map(|l| l.clone()).unwrap_or_default()
    }

    /// Blocks until the server stops (never, for the binary).
    pub fn wait(mut self) {
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for MockServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wake the accept loop so it sees the flag.
        let _ = TcpStream::connect(self.addr);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn record(shared: &Shared, mut entry: Value) {
    entry["seq"] = json!(shared.seq.fetch_add(1, Ordering::SeqCst));
    if let Some(f) = &shared.log_file {
        if let Ok(mut f) = f.lock() {
            let _ = writeln!(f, "{entry}");
            let _ = f.flush();
        }
    }
    if let Ok(mut l) = shared.log.lock() {
        l.push(entry);
    }
}

fn handle(shared: &Shared, stream: TcpStream) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(30)));
    let Ok(req) = http::read_request(&stream) else { return };
    let headers: serde_json::Map<String, Value> = req.headers.iter().map(|(n, v)| (n.clone(), json!(v))).collect();
    let mut entry = json!({ "method": req.method, "path": req.path, "headers": headers, "body": req.body });
    let path = req.path.split('?').next().unwrap_or("");
    let result = match (req.method.as_str(), path) {
        ("OPTIONS", _) => {
            record(shared, entry);
            http::respond(&stream, 204, "", "")
        }
        ("POST", p) if p.ends_with("/anthropic/v1/messages") => messages(shared, &stream, &req, entry),
        ("POST", p) if p.ends_with("/chat/completions") => {
            let body: Value = serde_json::from_str(&req.body).unwrap_or(Value::Null);
            let scenario = match ChatScenario::from_marker(&chat::last_user_text(&body)) {
                Some(Ok(s)) => s,
                Some(Err(e)) => {
                    record(shared, entry);
                    let _ = http::respond(&stream, 400, "application/json", &error_json("invalid_request_error", &e));
                    return;
                }
                None => shared.config.chat,
            };
            entry["outcome"] = json!(scenario.to_string());
            record(shared, entry);
            chat::serve(&stream, &body, scenario, Duration::from_millis(shared.config.chat_delay_ms))
        }
        ("GET", "/") => {
            record(shared, entry);
            http::respond(
                &stream,
                200,
                "text/plain; charset=utf-8",
                "geo-mock: POST /anthropic/v1/messages, POST /chat/completions\n",
            )
        }
        _ => {
            record(shared, entry);
            http::respond(
                &stream,
                404,
                "application/json",
                &error_json("not_found_error", "the mock serves /anthropic/v1/messages and /chat/completions"),
            )
        }
    };
    let _ = result;
}

fn error_json(kind: &str, message: &str) -> String {
    json!({ "type": "error", "error": { "type": kind, "message": message } }).to_string()
}

/// The text of the user message of a Messages request body (text blocks joined).
fn prompt_text(body: &Value) -> Option<String> {
    let msg = body
        .get("messages")?
        .as_array()?
        .iter()
        .rev()
        .find(|m| m.get("role").and_then(Value::as_str) == Some("user"))?;
    match msg.get("content")? {
        Value::String(s) => Some(s.clone()),
        Value::Array(blocks) => {
            Some(blocks.iter().filter_map(|b| b.get("text").and_then(Value::as_str)).collect::<Vec<_>>().join(""))
        }
        _ => None,
    }
}

fn messages(shared: &Shared, stream: &TcpStream, req: &http::Request, mut entry: Value) -> io::Result<()> {
    let bad = |entry: Value, msg: &str| {
        record(shared, entry);
        http::respond(stream, 400, "application/json", &error_json("invalid_request_error", msg))
    };
    let Ok(body) = serde_json::from_str::<Value>(&req.body) else {
        return bad(entry, "the request body is not json");
    };
    let Some(prompt) = prompt_text(&body) else {
        return bad(entry, "the request has no user message");
    };
    let marked = match parse_marker(&prompt) {
        Ok(m) => m,
        Err(e) => return bad(entry, &e),
    };
    let model = body.get("model").and_then(Value::as_str).unwrap_or("deepseek-v4-flash").to_string();
    let key = req.header("x-api-key");
    let key_ok = match (&shared.config.require_key, key) {
        (None, _) => true,
        (Some(want), Some(got)) => want == got,
        (Some(_), None) => shared.config.proxy,
    };
    let attempt = {
        let mut a = shared.attempts.lock().map_err(|_| io::Error::other("poisoned"))?;
        let n = a.entry(prompt.clone()).or_insert(0);
        *n += 1;
        *n - 1
    };
    let outcome =
        if key_ok { shared.config.schedule.decide(&marked.script, &prompt, attempt) } else { Outcome::Status(401) };
    let fixture = match outcome {
        Outcome::Empty => shared.fixtures.by_name("12_empty_no_text"),
        Outcome::Preamble => shared.fixtures.by_name("15_preamble_only"),
        Outcome::Answer(n) => match shared.fixtures.by_number(n) {
            Some(i) => Some(i),
            None => {
                return bad(entry, &format!("no recorded response numbered {n}: use a number of fixtures/responses/"))
            }
        },
        _ => None,
    }
    .or_else(|| shared.fixtures.for_prompt(&marked.text))
    .unwrap_or_else(|| shared.fixtures.in_turn(shared.turn.fetch_add(1, Ordering::SeqCst) as usize));
    let (name, recorded) = shared.fixtures.get(fixture);
    entry["prompt"] = json!(marked.text);
    entry["attempt"] = json!(attempt);
    entry["outcome"] = json!(outcome.to_string());
    entry["fixture"] =
        if outcome.is_fault() && !matches!(outcome, Outcome::Empty | Outcome::Preamble | Outcome::SearchError) {
            Value::Null
        } else {
            json!(name)
        };
    record(shared, entry);
    if shared.config.latency_ms > 0 {
        std::thread::sleep(Duration::from_millis(shared.config.latency_ms));
    }
    let mut answer = recorded.clone();
    answer["model"] = json!(model);
    match outcome {
        Outcome::Ok | Outcome::Answer(_) | Outcome::Empty | Outcome::Preamble => {
            http::respond(stream, 200, "application/json", &answer.to_string())
        }
        Outcome::SearchError => {
            with_search_error(&mut answer);
            http::respond(stream, 200, "application/json", &answer.to_string())
        }
        Outcome::Status(s) => http::respond(stream, s, "application/json", fixtures::error_body(s)),
        Outcome::InvalidJson => {
            let text = answer.to_string();
            let cut = text.char_indices().nth(text.chars().count() / 2).map_or(0, |(i, _)| i);
            http::respond(stream, 200, "application/json", &text[..cut])
        }
        Outcome::Hang => {
            std::thread::sleep(Duration::from_secs(shared.config.hang_secs));
            Ok(())
        }
    }
}

/// Replaces the results of the first `web_search_tool_result` block with the error object
/// (`max_uses_exceeded` shape of fixture 10, code `unavailable`).
fn with_search_error(answer: &mut Value) {
    let error = json!({ "type": "web_search_tool_result_error", "error_code": "unavailable" });
    if let Some(blocks) = answer.get_mut("content").and_then(Value::as_array_mut) {
        if let Some(b) =
            blocks.iter_mut().find(|b| b.get("type").and_then(Value::as_str) == Some("web_search_tool_result"))
        {
            b["content"] = error;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn flags_parse() {
        let c = MockConfig::from_args(&s(&[
            "--port",
            "0",
            "--fault",
            "429:0.2",
            "--fault=500:0.1",
            "--seed",
            "7",
            "--fail-first",
            "2",
            "--fail-kind",
            "503",
            "--latency-ms",
            "50",
            "--require-key",
            "k",
            "--proxy",
            "--log",
            "/tmp/x.jsonl",
            "--chat",
            "cut",
            "--hang-secs",
            "3",
        ]))
        .unwrap();
        assert_eq!(c.port, 0);
        assert_eq!(c.schedule.faults.len(), 2);
        assert_eq!(c.schedule.seed, 7);
        assert_eq!(c.schedule.fail_first, 2);
        assert_eq!(c.schedule.fail_kind, Some(Outcome::Status(503)));
        assert_eq!((c.latency_ms, c.hang_secs), (50, 3));
        assert_eq!(c.require_key.as_deref(), Some("k"));
        assert!(c.proxy);
        assert_eq!(c.chat, ChatScenario::Cut);
        for bad in [
            &["--nope", "1"][..],
            &["--port"],
            &["--port", "x"],
            &["--fault", "429:0.8", "--fault", "500:0.8"],
            &["stray"],
        ] {
            assert!(MockConfig::from_args(&s(bad)).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn search_error_replaces_the_first_result_list() {
        let f = Fixtures::load().unwrap();
        let mut v = f.get(0).1.clone();
        with_search_error(&mut v);
        let blocks = v["content"].as_array().unwrap();
        let first = blocks.iter().find(|b| b["type"] == "web_search_tool_result").unwrap();
        assert_eq!(first["content"]["type"], "web_search_tool_result_error");
    }

    #[test]
    fn prompt_text_reads_blocks_and_strings() {
        assert_eq!(
            prompt_text(
                &json!({"messages":[{"role":"user","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}]})
            ),
            Some("ab".into())
        );
        assert_eq!(prompt_text(&json!({"messages":[{"role":"user","content":"q"}]})), Some("q".into()));
        assert_eq!(prompt_text(&json!({})), None);
    }
}
