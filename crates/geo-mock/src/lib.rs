//! A mock of every engine GEO Probe probes (DeepSeek, Claude, ChatGPT, Gemini, Perplexity,
//! Qwen, Doubao, ERNIE, Hunyuan),
//! so anyone can try a whole run without a key and every failure of seed §3.4 can be
//! produced on demand, over real sockets.
//!
//! # The one decision: replay recorded bodies, script the faults
//!
//! The mock never invents a response: it answers each engine's path with that engine's
//! bodies recorded in `fixtures/responses/` (DeepSeek) and `fixtures/engines/<engine>/`
//! (embedded at build time), chosen by prompt text — a prompt of `fixtures/project.json` gets
//! its own fixture where the engine has one, any other prompt gets the engine's answering
//! fixtures in turn — with only the model rewritten to the requested one. What varies is *whether* it
//! answers, and that is decided per request by a [`Schedule`]: a `[mock:…]` script in the
//! prompt text (see [`scenario`]), then `--fail-first N`, then a seeded draw against the
//! `--fault KIND:P` table. Draws are derived from (seed, prompt text, attempt index), so a
//! seed gives the same faults whatever order concurrent requests arrive in. Attempts are
//! counted per engine and prompt text, so a run per engine over the same prompts sees the
//! same script in every engine.
//!
//! # Endpoints
//!
//! * `POST …/anthropic/v1/messages` (DeepSeek), `…/v1/messages` (Anthropic), `…/v1/responses`
//!   (OpenAI), `…/models/{model}:generateContent` (Gemini), `…/chat/completions` without
//!   `"stream": true` (Perplexity), `…/api/v1/services/aigc/text-generation/generation`
//!   (Qwen, DashScope native), `…/api/v3/responses` (Doubao, Ark), `…/v2/chat/completions`
//!   (ERNIE, Qianfan), `…/v1/chat/completions` (Hunyuan): recorded responses and faults (401,
//!   402, 403, 408, 429, 500, 503 with each engine's error bodies, at the status the engine
//!   uses; cut-off JSON; an empty or preamble-only answer; a hang that closes after
//!   `--hang-secs`; a failed search in the engine's shape, for Qwen a search that silently did
//!   not run; a content-filter refusal, `refused`, as each Chinese engine sends it). See
//!   [`engines`].
//! * `POST …/chat/completions` with `"stream": true`: the Docs chat's SSE stream (see [`chat`]).
//! * A request's location ([`location`]): each engine's `user_location` checked against its
//!   documented keys, a wrong one (or, with `--reject-location E`, any one) answered 400 naming
//!   it in the engine's error shape.
//! * What the real APIs do beyond a recorded body ([`behave`]): reasoning models spend their
//!   thinking inside the request's output budget (`[think:N]` in a prompt sets how long) and
//!   are cut off `incomplete` / `MAX_TOKENS` / `length` / `max_tokens` when it runs out;
//!   OpenAI lists sources only with the `include`; Claude answers 400 above temperature 1
//!   (DeepSeek above 2); Perplexity's reasoning models write `<think>`; `[mock:pause]`
//!   (`pause=N`) splits a Messages turn with `pause_turn` and wants the paused content back.
//! * `OPTIONS` anything: 204 with CORS headers (every response carries them), allowing every
//!   engine's auth headers.
//!
//! Every request is appended to the in-memory log ([`MockServer::log`]) and, with `--log
//! FILE`, to FILE as one JSON object per line: `seq`, `method`, `path`, `headers` (every
//! header, names lowercased), `body` (text), and for probe requests `engine`, `prompt`,
//! `attempt`, `outcome` and `fixture`. Credentials are never logged: the values of
//! `x-api-key`, `authorization`, `x-goog-api-key`, `api-key`, `proxy-authorization` and
//! `cookie`, and of `key`/`token`-like query parameters, are written as `[redacted]`;
//! `keyOk` says whether the key matched `--require-key`.
//!
//! **Architecture Invariant:** the mock binds 127.0.0.1 only, and answers every probe
//! request from a recorded body or an error body of that engine.

#![warn(missing_docs)]

pub mod behave;
pub mod chat;
pub mod engines;
pub mod fixtures;
pub mod http;
pub mod location;
pub mod prng;
mod probe;
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
pub use engines::MockEngine;
pub use fixtures::Fixtures;
pub use prng::Prng;
pub use scenario::{parse_fault, parse_marker, Fault, Outcome, Schedule};

/// Usage text of the `geo-mock` binary and `cargo xtask mock`.
pub const USAGE: &str = "usage: geo-mock [flags]

Serves every engine's path from its recorded fixtures on 127.0.0.1: POST /anthropic/v1/messages
(DeepSeek), /v1/messages (Claude), /v1/responses (OpenAI), /v1beta/models/M:generateContent
(Gemini), /chat/completions (Perplexity; with \"stream\": true the docs chat's SSE stream),
/api/v1/services/aigc/text-generation/generation (Qwen), /api/v3/responses (Doubao),
/v2/chat/completions (ERNIE), /v1/chat/completions (Hunyuan);
prints `geo-mock listening on http://127.0.0.1:PORT` first.

flags:
  --port N            port to bind (0 = any free port; default 8787)
  --fault KIND:P      fail a request with KIND at probability P (repeatable), e.g. 429:0.2
  --seed N            seed of the fault draws (default 0)
  --fail-first N      each prompt's first N requests fail (with --fail-kind, default 500)
  --fail-kind KIND    the failure of --fail-first
  --latency-ms N      wait N ms before every answer
  --hang-secs N       how long a `hang` keeps the connection before closing it (default 30)
  --require-key KEY   answer 401 unless the engine's key header (x-api-key, authorization:
                      Bearer, x-goog-api-key) is KEY
  --proxy             with --require-key: a request without a key is allowed
  --log FILE          append every request as a JSON line to FILE
  --chat SCENARIO     chat stream: normal, error, cut, slow, hostile or echo (default normal)
  --chat-delay-ms N   pause between events of the slow chat stream (default 400)
  --reject-location E[,E...]
                      answer every user_location sent to engine E (or all) with HTTP 400
                      naming it, as a model or region without located search would

KIND: 401 402 403 408 429 500 503 invalid_json empty preamble hang search_error hostile refused
echo echo=STATUS
(hostile: a 500 whose message echoes the key and holds terminal escapes; echo=STATUS: the
engine's error body for STATUS, its messages quoting the request's auth header and path, as
a gateway that echoes the request; chat echo: the key whole in one event, sent in two writes
split inside it)
A user_location of the wrong shape for its engine (an unknown key, no type approximate, a
country that is not two letters) is answered 400 naming it, in the engine's error shape.
Reasoning models spend their thinking inside the request's output budget; [think:N] in a
prompt makes them think N tokens. [mock:pause] (pause=N) pauses a DeepSeek or Claude turn
N times with pause_turn until the paused content is sent back.
Credentials (x-api-key, authorization, key= …) are logged as [redacted].
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
    /// `--proxy`: a request without a key header is accepted even with `--require-key`.
    pub proxy: bool,
    /// `--log FILE`.
    pub log: Option<PathBuf>,
    /// Default chat scenario (a `[chat:…]` marker wins).
    pub chat: ChatScenario,
    /// Pause between events of the slow chat stream.
    pub chat_delay_ms: u64,
    /// `--reject-location`: the engines whose every `user_location` is answered 400.
    pub reject_location: Vec<MockEngine>,
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
            reject_location: Vec::new(),
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
                "reject-location" => c.reject_location = location::parse_engines(&value)?,
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
    attempts: Mutex<HashMap<(MockEngine, String), u32>>,
    turns: [AtomicU64; 9],
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
            turns: Default::default(),
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

/// Headers whose values are credentials: logged as `[redacted]`.
pub const SECRET_HEADERS: &[&str] =
    &["x-api-key", "authorization", "x-goog-api-key", "api-key", "proxy-authorization", "cookie"];

/// Query parameters whose values are credentials: logged as `[redacted]`.
const SECRET_PARAMS: &[&str] = &["key", "api_key", "apikey", "token", "access_token"];

/// `path` with the values of credential-like query parameters replaced.
fn redacted_path(path: &str) -> String {
    let Some((route, query)) = path.split_once('?') else { return path.to_string() };
    let pairs: Vec<String> = query
        .split('&')
        .map(|pair| match pair.split_once('=') {
            Some((name, _)) if SECRET_PARAMS.contains(&name.to_ascii_lowercase().as_str()) => {
                format!("{name}=[redacted]")
            }
            _ => pair.to_string(),
        })
        .collect();
    format!("{route}?{}", pairs.join("&"))
}

fn handle(shared: &Shared, stream: TcpStream) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(30)));
    let Ok(req) = http::read_request(&stream) else { return };
    let headers: serde_json::Map<String, Value> = req
        .headers
        .iter()
        .map(|(n, v)| {
            let logged = if SECRET_HEADERS.contains(&n.as_str()) { "[redacted]" } else { v.as_str() };
            (n.clone(), json!(logged))
        })
        .collect();
    let mut entry =
        json!({ "method": req.method, "path": redacted_path(&req.path), "headers": headers, "body": req.body });
    let path = req.path.split('?').next().unwrap_or("");
    let body: Value =
        if req.method == "POST" { serde_json::from_str(&req.body).unwrap_or(Value::Null) } else { Value::Null };
    let result = match (req.method.as_str(), MockEngine::route(path, &body)) {
        ("OPTIONS", _) => {
            record(shared, entry);
            http::respond(&stream, 204, "", "")
        }
        ("POST", Some(engine)) => probe::probe(shared, &stream, &req, engine, entry),
        ("POST", None) if path.ends_with("/chat/completions") => {
            let scenario = match ChatScenario::from_marker(&chat::last_user_text(&body)) {
                Some(Ok(s)) => s,
                Some(Err(e)) => {
                    record(shared, entry);
                    let _ = http::respond(&stream, 400, "application/json", &error_json("invalid_request_error", &e));
                    return;
                }
                None => shared.config.chat,
            };
            // DeepSeek answers a chat without its key (`authorization: Bearer KEY`) with 401,
            // as it does a probe: `--require-key` holds here too, `--proxy` lets a keyless one in.
            let bearer = req.header("authorization").and_then(|v| v.strip_prefix("Bearer ")).map(str::trim);
            let key_ok = match (&shared.config.require_key, bearer) {
                (None, _) => true,
                (Some(want), Some(got)) => want == got,
                (Some(_), None) => shared.config.proxy,
            };
            if shared.config.require_key.is_some() {
                entry["keyOk"] = json!(key_ok);
            }
            if !key_ok {
                entry["outcome"] = json!("401");
                record(shared, entry);
                let _ = http::respond(&stream, 401, "application/json", fixtures::error_body(401));
                return;
            }
            entry["outcome"] = json!(scenario.to_string());
            record(shared, entry);
            chat::serve(
                &stream,
                &body,
                scenario,
                Duration::from_millis(shared.config.chat_delay_ms),
                req.header("authorization"),
            )
        }
        ("GET", _) if path == "/" => {
            record(shared, entry);
            http::respond(
                &stream,
                200,
                "text/plain; charset=utf-8",
                "geo-mock: POST /anthropic/v1/messages, /v1/messages, /v1/responses, /v1beta/models/M:generateContent, /chat/completions\n",
            )
        }
        _ => {
            record(shared, entry);
            http::respond(
                &stream,
                404,
                "application/json",
                &error_json(
                    "not_found_error",
                    "the mock serves /anthropic/v1/messages, /v1/messages, /v1/responses, /v1beta/models/M:generateContent and /chat/completions",
                ),
            )
        }
    };
    let _ = result;
}

fn error_json(kind: &str, message: &str) -> String {
    json!({ "type": "error", "error": { "type": kind, "message": message } }).to_string()
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
            "--reject-location",
            "openai,doubao",
        ]))
        .unwrap();
        assert_eq!(c.reject_location, [MockEngine::Openai, MockEngine::Doubao]);
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
    fn search_error_in_every_engines_shape() {
        let f = Fixtures::load().unwrap();
        let mut v = f.engine(MockEngine::Deepseek).get(0).1.clone();
        MockEngine::Deepseek.with_search_error(&mut v);
        let blocks = v["content"].as_array().unwrap();
        let first = blocks.iter().find(|b| b["type"] == "web_search_tool_result").unwrap();
        assert_eq!(first["content"]["type"], "web_search_tool_result_error");
        let openai = f.engine(MockEngine::Openai);
        let mut v = openai.get(openai.by_name("p01_zh_list_url_citations").unwrap()).1.clone();
        MockEngine::Openai.with_search_error(&mut v);
        let call = v["output"].as_array().unwrap().iter().find(|i| i["type"] == "web_search_call").unwrap();
        assert_eq!((call["status"].as_str(), call["action"].get("sources")), (Some("failed"), None));
        let gemini = f.engine(MockEngine::Gemini);
        let mut v = gemini.get(0).1.clone();
        MockEngine::Gemini.with_search_error(&mut v);
        assert!(v.pointer("/candidates/0/groundingMetadata/groundingChunks").is_none());
        let mut v = f.engine(MockEngine::Perplexity).get(0).1.clone();
        MockEngine::Perplexity.with_search_error(&mut v);
        assert_eq!(v["search_results"], json!([]));
    }

    #[test]
    fn prompt_text_reads_blocks_and_strings() {
        let d = MockEngine::Deepseek;
        assert_eq!(
            d.prompt_text(
                &json!({"messages":[{"role":"user","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}]})
            ),
            Some("ab".into())
        );
        assert_eq!(d.prompt_text(&json!({"messages":[{"role":"user","content":"q"}]})), Some("q".into()));
        assert_eq!(d.prompt_text(&json!({})), None);
    }
}
