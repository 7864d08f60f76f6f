//! Shared by the integration tests: a local webhook receiver on 127.0.0.1.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// What the local receiver does with a request.
#[derive(Clone, Copy)]
pub enum Reply {
    Status(u16),
    /// Accept, read the request, never answer.
    Silent,
}

/// A one-thread HTTP receiver on 127.0.0.1 recording every request's head and body.
pub struct Receiver {
    pub url: String,
    seen: Arc<Mutex<Vec<(String, String)>>>,
}

impl Receiver {
    pub fn start(reply: Reply) -> Receiver {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/services/T000/B000/SECRET-TOKEN", listener.local_addr().unwrap());
        let seen = Arc::new(Mutex::new(Vec::new()));
        let log = seen.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let request = read_request(&stream);
                log.lock().unwrap().push(request);
                match reply {
                    Reply::Status(code) => {
                        let mut s = &stream;
                        let _ = write!(s, "HTTP/1.1 {code} X\r\ncontent-length: 2\r\nconnection: close\r\n\r\nok");
                    }
                    Reply::Silent => std::thread::sleep(Duration::from_secs(30)),
                }
            }
        });
        Receiver { url, seen }
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
