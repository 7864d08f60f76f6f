//! Shared by the integration tests: `geo-probe` with no engine key in its environment (or
//! with the keys a test names), the mock on a free port, scratch folders, the fixture project
//! with extra prompts, and a local HTTP receiver on 127.0.0.1 (a webhook, or an upstream that
//! echoes what it is told).
#![allow(dead_code)]

use std::ffi::OsStr;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Arc, Mutex};

use geo_core::model::{EngineId, ExportEnvelope};
use geo_core::provider::{spec, ENGINES};
use geo_mock::{MockConfig, MockServer};
use serde_json::{json, Value};

/// The fixture project's id (`fixtures/project.json`).
pub const PROJECT: &str = "proj_yuangouchang";

/// Every engine's key variable, from geo-core's engine table.
///
/// Never a hand copy: code review 3 found test lists that cleared five engines of nine, so a
/// Qwen, Doubao, ERNIE or Hunyuan key in the developer's environment reached the binary.
pub fn key_vars() -> impl Iterator<Item = &'static str> {
    ENGINES.iter().map(|s| s.key_env)
}

/// The key variable of the engine named `engine` (`qwen` → `DASHSCOPE_API_KEY`).
#[track_caller]
pub fn key_var(engine: &str) -> &'static str {
    let id = EngineId::parse(engine).unwrap_or_else(|| panic!("no engine is named {engine:?}"));
    spec(id).key_env
}

/// The `geo-probe` under test with none of the engines' key variables in its environment;
/// a test sets the ones it means.
pub fn geo_probe() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_geo-probe"));
    for var in key_vars() {
        c.env_remove(var);
    }
    c
}

/// `geo-probe ARGS` with exactly the keys `(engine, key)` set (every other engine's removed).
pub fn with_keys<S: AsRef<OsStr>>(args: &[S], keys: &[(&str, &str)]) -> Command {
    let mut c = geo_probe();
    c.args(args);
    for (engine, key) in keys {
        c.env(key_var(engine), key);
    }
    c
}

/// `geo-probe ARGS` with `key` as DeepSeek's key and no other engine's.
pub fn with_deepseek_key<S: AsRef<OsStr>>(args: &[S], key: Option<&str>) -> Command {
    let keys: Vec<(&str, &str)> = key.map(|k| ("deepseek", k)).into_iter().collect();
    with_keys(args, &keys)
}

/// The workspace root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The mock on a free port of 127.0.0.1, started with the command-line `flags`.
pub fn mock(flags: &[&str]) -> MockServer {
    let mut args: Vec<String> = vec!["--port".into(), "0".into()];
    args.extend(flags.iter().map(|s| s.to_string()));
    MockServer::start(MockConfig::from_args(&args).unwrap()).unwrap()
}

/// `dir`, made empty.
fn fresh(dir: PathBuf) -> PathBuf {
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A fresh scratch folder `geo-cli-AREA-PID-NAME` in the system's temporary folder.
pub fn scratch(area: &str, name: &str) -> PathBuf {
    fresh(std::env::temp_dir().join(format!("geo-cli-{area}-{}-{name}", std::process::id())))
}

/// A fresh scratch folder `AREA/NAME` in Cargo's temporary folder of the integration tests.
pub fn target_scratch(area: &str, name: &str) -> PathBuf {
    fresh(Path::new(env!("CARGO_TARGET_TMPDIR")).join(area).join(name))
}

/// The JSON file at `path`.
pub fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The fixture project plus the prompts `(id, text)`, written to `dir/in.json`.
pub fn input_with(dir: &Path, extra: &[(&str, &str)]) -> PathBuf {
    let mut env = read_json(&root().join("fixtures/project.json"));
    let prompts = env["prompts"].as_array_mut().unwrap();
    for (id, text) in extra {
        prompts.push(json!({
            "id": id, "projectId": PROJECT, "text": text, "tags": [],
            "createdAt": "2026-11-29T08:00:00.000Z", "updatedAt": "2026-11-29T08:00:00.000Z"
        }));
    }
    let path = dir.join("in.json");
    std::fs::write(&path, serde_json::to_string_pretty(&env).unwrap()).unwrap();
    path
}

/// `run FILE --project PROJECT --prompts PROMPTS --out OUT`, then the flags `more`.
pub fn run_args(file: impl AsRef<Path>, prompts: &str, out: &Path, more: &[&str]) -> Vec<String> {
    let (file, out) = (file.as_ref().to_str().unwrap(), out.to_str().unwrap());
    let mut args = vec!["run", file, "--project", PROJECT, "--prompts", prompts, "--out", out];
    args.extend_from_slice(more);
    args.into_iter().map(String::from).collect()
}

/// The export at `path` as every command loads it, in geo-core (parse, validate, analyse).
pub fn loaded(path: &str) -> ExportEnvelope {
    let text = std::fs::read_to_string(path).unwrap();
    let mut env = geo_core::export::parse_export(&text, &Default::default()).unwrap();
    assert!(geo_core::export::validate_against(&env, &ExportEnvelope::new("")).is_empty());
    assert!(geo_core::analysis::analyze_envelope(&mut env).is_empty());
    env
}

/// Standard error, as text.
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Standard output of a command that succeeded (exit 0; else its standard error is shown).
#[track_caller]
pub fn ok(o: &Output) -> String {
    assert!(o.status.success(), "exit {:?}: {}", o.status.code(), stderr(o));
    String::from_utf8(o.stdout.clone()).unwrap()
}

/// The body of geo-core's insta snapshot `it__MODULE__NAME` (after its front matter).
pub fn golden(module: &str, name: &str) -> String {
    let path = root().join(format!("crates/geo-core/tests/it/snapshots/it__{module}__{name}.snap"));
    let snap = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    snap.splitn(3, "---\n").nth(2).expect("a snapshot with front matter").to_string()
}

/// What the local receiver does with a request.
#[derive(Clone)]
pub enum Reply {
    /// A two-byte `ok` body with this status.
    Status(u16),
    /// This status and this JSON body (an upstream that echoes what the test gave it).
    Json(u16, String),
    /// Accept, read the request, never answer: the connection is held until the client
    /// closes it (its timeout, or its exit).
    Silent,
}

/// A one-thread HTTP receiver on 127.0.0.1 recording every request's head and body.
pub struct Receiver {
    /// A webhook-like URL whose path is a secret (`/services/T000/B000/SECRET-TOKEN`).
    pub url: String,
    /// `http://127.0.0.1:PORT`, for a base URL.
    pub origin: String,
    seen: Arc<Mutex<Vec<(String, String)>>>,
}

impl Receiver {
    pub fn start(reply: Reply) -> Receiver {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let log = seen.clone();
        let origin = serve(move |mut s, request| {
            log.lock().unwrap().push(request);
            match &reply {
                Reply::Status(code) => {
                    let _ = write!(s, "HTTP/1.1 {code} X\r\ncontent-length: 2\r\nconnection: close\r\n\r\nok");
                }
                Reply::Json(code, body) => {
                    let _ = write!(
                        s,
                        "HTTP/1.1 {code} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                        body.len()
                    );
                }
                // Waits on the client, not on a clock: a read ends when it closes.
                Reply::Silent => while s.read(&mut [0; 64]).is_ok_and(|n| n > 0) {},
            }
        });
        let url = format!("{origin}/services/T000/B000/SECRET-TOKEN");
        Receiver { url, origin, seen }
    }

    pub fn requests(&self) -> Vec<(String, String)> {
        self.seen.lock().unwrap().clone()
    }
}

/// A one-thread server on 127.0.0.1 that reads each request (head, body) and has `answer`
/// write the reply on the connection; its origin, `http://127.0.0.1:PORT`.
pub fn serve(answer: impl Fn(&TcpStream, (String, String)) + Send + 'static) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let origin = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let request = read_request(&stream);
            answer(&stream, request);
        }
    });
    origin
}

/// One request's head and body.
pub fn read_request(stream: &TcpStream) -> (String, String) {
    let mut reader = BufReader::new(stream);
    let mut head = String::new();
    let mut length = 0usize;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
            break;
        }
        if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
            length = v.trim().parse().unwrap_or(0);
        }
        head.push_str(&line);
    }
    let mut body = vec![0; length];
    let _ = reader.read_exact(&mut body);
    (head, String::from_utf8_lossy(&body).into_owned())
}
