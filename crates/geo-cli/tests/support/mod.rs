//! Shared by the integration tests: `geo-probe` with no engine key in its environment, and a
//! local HTTP receiver on 127.0.0.1 (a webhook, or an upstream that echoes what it is told).
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::Command;
use std::sync::{Arc, Mutex};

use geo_core::model::EngineId;
use geo_core::provider::{spec, ENGINES};

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
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let origin = format!("http://{}", listener.local_addr().unwrap());
        let url = format!("{origin}/services/T000/B000/SECRET-TOKEN");
        let seen = Arc::new(Mutex::new(Vec::new()));
        let log = seen.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let request = read_request(&stream);
                log.lock().unwrap().push(request);
                let mut s = &stream;
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
            }
        });
        Receiver { url, origin, seen }
    }

    pub fn requests(&self) -> Vec<(String, String)> {
        self.seen.lock().unwrap().clone()
    }
}

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
