//! `cargo xtask serve [--port N] [--base-path P] [--dev] [--mock [--mock-port N]]`: builds
//! `dist/` and serves it on 127.0.0.1 with the SPA fallback (a path without a file extension that is not a file
//! gets `index.html`) and correct MIME types (`application/wasm` for streaming compile).
//!
//! A deliberately small std-only HTTP/1.1 server: GET and HEAD, one request per
//! connection, a thread per connection. It is for local use and the browser tests only.
//! Like GitHub Pages it sends an `ETag` and answers a matching `If-None-Match` with
//! `304 Not Modified`, so a reload revalidates the 2 MB module instead of downloading it
//! again (`Cache-Control: no-cache` keeps a rebuilt site from ever being served stale).
//!
//! `--mock` also starts the mock of every engine (`geo-mock`, default port 8787) so a newcomer
//! can run probes end to end without a key: put its URL into Settings as the custom API base
//! URL and leave the key empty (proxy mode).

use anyhow::{bail, Context, Result};
use std::fs;
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::thread;

use crate::dist::{self, DistOptions, CSP};
use crate::sys::workspace_root;

/// A running static server.
pub struct Server {
    /// `http://127.0.0.1:PORT` plus the base path (ends with `/`).
    pub url: String,
    /// The bound port.
    pub port: u16,
}

/// Entry point of `cargo xtask serve`.
pub fn run(args: &[String]) -> Result<()> {
    let mut port = 8080u16;
    let mut opts = DistOptions::default();
    let mut mock_port: Option<u16> = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--port" => port = it.next().context("--port needs a number")?.parse().context("--port needs a number")?,
            "--base-path" => {
                opts.base_path = dist::normalize_base_path(it.next().context("--base-path needs a value")?)?
            }
            "--dev" => opts.dev = true,
            "--mock" => mock_port = Some(mock_port.unwrap_or(8787)),
            "--mock-port" => {
                mock_port = Some(
                    it.next().context("--mock-port needs a number")?.parse().context("--mock-port needs a number")?,
                )
            }
            other => {
                bail!("unknown serve option {other:?}: use --port N, --base-path PATH, --dev, --mock [--mock-port N]")
            }
        }
    }
    dist::build(&opts)?;
    // Started before the static server so a busy mock port fails before anything is served.
    let _mock = mock_port.map(start_mock).transpose()?;
    let server = start(&workspace_root().join("dist"), port, &opts.base_path)?;
    println!("serving dist/ at {}  (Ctrl-C to stop)", server.url);
    loop {
        thread::park();
    }
}

/// `--mock`: builds and starts `geo-mock --port PORT` (0 = any free port) as a child process,
/// prints its address and how to use it from Settings. The child shares the terminal's
/// process group, so Ctrl-C stops it together with this server; dropping the guard kills it.
fn start_mock(port: u16) -> Result<MockChild> {
    let root = workspace_root();
    let status = std::process::Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .current_dir(&root)
        .args(["build", "-q", "-p", "geo-mock"])
        .status()
        .context("cannot start cargo to build geo-mock")?;
    if !status.success() {
        bail!("building geo-mock failed");
    }
    let mut child = std::process::Command::new(root.join("target/debug/geo-mock"))
        .args(["--port", &port.to_string()])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .context("cannot start geo-mock")?;
    let mut lines = BufReader::new(child.stdout.take().context("geo-mock has no stdout")?).lines();
    let first = lines.next().transpose()?.unwrap_or_default();
    let Some(url) = first.trim().strip_prefix("geo-mock listening on ").map(str::to_string) else {
        let _ = child.kill();
        let _ = child.wait();
        bail!("the mock engine server (geo-mock) did not start on port {port} (is it in use? pick another with --mock-port N)");
    };
    // Keep draining its output so the pipe never fills.
    thread::spawn(move || lines.map_while(|l| l.ok()).for_each(|l| println!("{l}")));
    println!("mock engine server (geo-mock) at {url}");
    println!("  to probe without a key: Settings (设置) → custom API base URL (自定义 API 地址) = {url}, leave the API key empty (proxy mode)");
    Ok(MockChild(child))
}

/// The mock server child process, killed when dropped.
struct MockChild(std::process::Child);

impl Drop for MockChild {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Serves `dir` under `base_path` on 127.0.0.1:`port` (0 = any free port) from a
/// background thread and returns at once.
pub fn start(dir: &Path, port: u16, base_path: &str) -> Result<Server> {
    let listener = TcpListener::bind(("127.0.0.1", port))
        .with_context(|| format!("cannot listen on 127.0.0.1:{port}: choose another --port"))?;
    let port = listener.local_addr()?.port();
    let dir = dir.to_path_buf();
    let base = base_path.to_string();
    thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let (dir, base) = (dir.clone(), base.clone());
            thread::spawn(move || {
                let _ = handle(stream, &dir, &base);
            });
        }
    });
    Ok(Server { url: format!("http://127.0.0.1:{port}{base_path}"), port })
}

/// The MIME type of a file name.
pub fn mime(path: &str) -> &'static str {
    let ext = path.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase()).unwrap_or_default();
    match ext.as_str() {
        "html" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "wasm" => "application/wasm",
        "css" => "text/css; charset=utf-8",
        "json" | "map" => "application/json",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "ico" => "image/x-icon",
        "webmanifest" => "application/manifest+json",
        "txt" | "md" => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}

/// What to send for a request path: `Some(file)` or `None` (404).
pub fn resolve(dir: &Path, base: &str, raw_path: &str) -> Option<PathBuf> {
    let path = raw_path.split(['?', '#']).next().unwrap_or("");
    let path = percent_decode(path)?;
    let rel = path.strip_prefix(base).or_else(|| path.strip_prefix(base.trim_end_matches('/')))?;
    let rel = rel.trim_start_matches('/');
    if rel.split('/').any(|seg| seg == ".." || seg.starts_with('.') && seg.len() > 1 && seg != ".nojekyll")
        || rel.contains('\\')
    {
        return None;
    }
    let candidate = if rel.is_empty() { dir.join("index.html") } else { dir.join(rel) };
    if candidate.is_file() {
        return Some(candidate);
    }
    if candidate.is_dir() && candidate.join("index.html").is_file() {
        return Some(candidate.join("index.html"));
    }
    let last = rel.rsplit('/').next().unwrap_or("");
    // SPA fallback: routes have no extension; missing assets stay 404.
    (!last.contains('.')).then(|| dir.join("index.html")).filter(|p| p.is_file())
}

fn percent_decode(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = s.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

fn handle(stream: TcpStream, dir: &Path, base: &str) -> Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut line = String::new();
    reader.read_line(&mut line)?;
    let mut if_none_match = None;
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header)? == 0 || header == "\r\n" || header == "\n" {
            break;
        }
        if let Some((name, value)) = header.split_once(':') {
            if name.trim().eq_ignore_ascii_case("if-none-match") {
                if_none_match = Some(value.trim().to_string());
            }
        }
    }
    let mut parts = line.split_whitespace();
    let (method, path) = (parts.next().unwrap_or(""), parts.next().unwrap_or("/"));
    let mut out = stream;
    if method != "GET" && method != "HEAD" {
        return respond(&mut out, "405 Method Not Allowed", "text/plain", "", b"method not allowed", method == "HEAD");
    }
    match resolve(dir, base, path) {
        Some(file) => {
            let body = fs::read(&file)?;
            let name = file.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default();
            let tag = etag(&body);
            if if_none_match.as_deref().is_some_and(|m| matches_etag(m, &tag)) {
                return respond(&mut out, "304 Not Modified", mime(&name), &tag, &[], true);
            }
            respond(&mut out, "200 OK", mime(&name), &tag, &body, method == "HEAD")
        }
        None => respond(&mut out, "404 Not Found", "text/plain; charset=utf-8", "", b"not found", method == "HEAD"),
    }
}

/// A strong validator of `body`: its 64-bit FNV-1a hash, quoted.
fn etag(body: &[u8]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in body {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("\"{h:016x}\"")
}

/// Whether an `If-None-Match` value (`*`, or a list of tags, weak ones included) names `tag`.
fn matches_etag(header: &str, tag: &str) -> bool {
    header.split(',').map(str::trim).any(|t| t == "*" || t.trim_start_matches("W/") == tag)
}

/// Writes a response; `head` (a HEAD request, or a 304) sends the headers only, with the
/// length of the body a GET would get.
fn respond(out: &mut TcpStream, status: &str, mime: &str, etag: &str, body: &[u8], head: bool) -> Result<()> {
    let etag = if etag.is_empty() { String::new() } else { format!("ETag: {etag}\r\n") };
    let length = if status.starts_with("304") { String::new() } else { format!("Content-Length: {}\r\n", body.len()) };
    let header = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {mime}\r\n{length}Cache-Control: no-cache\r\n{etag}\
         X-Content-Type-Options: nosniff\r\nContent-Security-Policy: {CSP}; frame-ancestors 'none'\r\nConnection: close\r\n\r\n"
    );
    out.write_all(header.as_bytes())?;
    if !head {
        out.write_all(body)?;
    }
    out.flush()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fresh site per call: tests run in parallel and must not rewrite each other's files.
    fn site() -> PathBuf {
        static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("xtask-serve-test-{}-{n}", std::process::id()));
        fs::create_dir_all(dir.join("demo")).unwrap();
        fs::write(dir.join("index.html"), "<html>").unwrap();
        fs::write(dir.join("app.wasm"), [0u8, 97, 115, 109]).unwrap();
        fs::write(dir.join("demo/demo-data.json"), "{}").unwrap();
        dir
    }

    #[track_caller]
    fn check(dir: &Path, base: &str, path: &str, expect: Option<&str>) {
        let got = resolve(dir, base, path).map(|p| p.strip_prefix(dir).unwrap().to_string_lossy().replace('\\', "/"));
        assert_eq!(got.as_deref(), expect, "{base} {path}");
    }

    #[test]
    fn files_routes_and_misses() {
        let dir = site();
        check(&dir, "/", "/", Some("index.html"));
        check(&dir, "/", "/app.wasm", Some("app.wasm"));
        check(&dir, "/", "/projects", Some("index.html"));
        check(&dir, "/", "/runs/run_1?x=1", Some("index.html"));
        check(&dir, "/", "/missing.js", None);
        check(&dir, "/", "/demo/demo-data.json", Some("demo/demo-data.json"));
        check(&dir, "/", "/../etc/passwd", None);
        check(&dir, "/", "/%2e%2e/secret", None);
        check(&dir, "/geo-probe/", "/geo-probe/projects", Some("index.html"));
        check(&dir, "/geo-probe/", "/geo-probe", Some("index.html"));
        check(&dir, "/geo-probe/", "/geo-probe/app.wasm", Some("app.wasm"));
        check(&dir, "/geo-probe/", "/other/", None);
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn mime_types() {
        assert_eq!(mime("a.wasm"), "application/wasm");
        assert_eq!(mime("geo_web-1.js"), "text/javascript; charset=utf-8");
        assert_eq!(mime("index.HTML"), "text/html; charset=utf-8");
        assert_eq!(mime("x"), "application/octet-stream");
    }

    #[test]
    fn serves_over_tcp() {
        let dir = site();
        let server = start(&dir, 0, "/").unwrap();
        let mut s = TcpStream::connect(("127.0.0.1", server.port)).unwrap();
        s.write_all(b"GET /app.wasm HTTP/1.1\r\nHost: x\r\n\r\n").unwrap();
        let mut buf = Vec::new();
        std::io::Read::read_to_end(&mut s, &mut buf).unwrap();
        let text = String::from_utf8_lossy(&buf);
        assert!(text.starts_with("HTTP/1.1 200 OK"), "{text}");
        assert!(text.contains("Content-Type: application/wasm"));
        assert!(buf.ends_with(&[0, 97, 115, 109]));
        let _ = fs::remove_dir_all(&dir);
    }

    /// One request to `server`, the whole response as text.
    fn get(port: u16, request: &str) -> String {
        let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
        s.write_all(request.as_bytes()).unwrap();
        let mut buf = Vec::new();
        std::io::Read::read_to_end(&mut s, &mut buf).unwrap();
        String::from_utf8_lossy(&buf).into_owned()
    }

    #[test]
    fn a_matching_etag_is_not_sent_again() {
        let dir = site();
        let server = start(&dir, 0, "/").unwrap();
        let first = get(server.port, "GET /app.wasm HTTP/1.1\r\nHost: x\r\n\r\n");
        let tag = first.lines().find_map(|l| l.strip_prefix("ETag: ")).expect("an ETag").to_string();
        let again = get(server.port, &format!("GET /app.wasm HTTP/1.1\r\nHost: x\r\nIf-None-Match: {tag}\r\n\r\n"));
        assert!(again.starts_with("HTTP/1.1 304 Not Modified"), "{again}");
        assert!(again.ends_with("\r\n\r\n"), "a 304 has no body: {again:?}");
        // A changed file has a new tag: the old one gets the new body.
        fs::write(dir.join("app.wasm"), [0u8, 97, 115, 109, 1]).unwrap();
        let changed = get(server.port, &format!("GET /app.wasm HTTP/1.1\r\nHost: x\r\nif-none-match: W/{tag}\r\n\r\n"));
        assert!(changed.starts_with("HTTP/1.1 200 OK"), "{changed}");
        assert!(!changed.contains(&tag));
        assert!(matches_etag("\"a\", *", "\"b\""));
        assert!(!matches_etag("\"a\"", "\"b\""));
        let _ = fs::remove_dir_all(&dir);
    }
}
