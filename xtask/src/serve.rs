//! `cargo xtask serve [--port N] [--base-path P] [--dev] [--pages] [--mock [--mock-port N]]`: builds
//! `dist/` and serves it on 127.0.0.1 with the SPA fallback (a path without a file extension that is not a file
//! gets `404.html`, as on GitHub Pages, or `index.html` without one) and correct MIME types (`application/wasm`
//! for streaming compile).
//!
//! A deliberately small std-only HTTP/1.1 server: GET and HEAD, one request per
//! connection, a thread per connection. It is for local use and the browser tests only.
//! Like GitHub Pages it sends text, JS, CSS, JSON and wasm gzip-encoded when the request
//! accepts gzip (each file compressed once, at gzip -9 as `cargo xtask dist` measures it, and
//! kept while it is unchanged), sends an `ETag` and answers a matching `If-None-Match` with
//! `304 Not Modified`, so a reload revalidates the module instead of downloading it again.
//! `Cache-Control: no-cache` keeps a rebuilt site from ever being served stale; `--pages`
//! sends GitHub Pages' `max-age=600` instead (`serve_headers.rs`), as
//! `cargo xtask bench-first-visit` does.
//!
//! `--mock` also starts the mock of every engine (`geo-mock`, default port 8787) so a newcomer
//! can run probes end to end without a key: put its URL into Settings as the custom API base
//! URL and leave the key empty (proxy mode).

use anyhow::{bail, Context, Result};
use std::collections::HashMap;
use std::fs;
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::thread;

use crate::dist::{self, DistOptions, CSP};
pub use crate::serve_headers::Caching;
use crate::serve_headers::{accepts_gzip, compressible, representation_tag, Head};
use crate::sys::workspace_root;

/// A running static server.
pub struct Server {
    /// `http://127.0.0.1:PORT` plus the base path (ends with `/`).
    pub url: String,
    /// The bound port.
    pub port: u16,
    site: Arc<Site>,
}

impl Server {
    /// Compresses every file of the site that goes gzip-encoded now, before any request
    /// (the first request for a file otherwise waits while it is compressed: seconds for the
    /// module); returns how many files.
    pub fn precompress(&self) -> Result<usize> {
        let mut files = Vec::new();
        list_files(&self.site.dir, &mut files)?;
        let mut n = 0;
        for file in files {
            let name = file.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default();
            if compressible(mime(&name)) {
                let body = fs::read(&file)?;
                self.site.gzipped(&file, &etag(&body), &body)?;
                n += 1;
            }
        }
        Ok(n)
    }
}

/// Every file below `dir`, recursively.
fn list_files(dir: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
    for entry in fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            list_files(&path, out)?;
        } else {
            out.push(path);
        }
    }
    Ok(())
}

/// Entry point of `cargo xtask serve`.
pub fn run(args: &[String]) -> Result<()> {
    let mut port = 8080u16;
    let mut opts = DistOptions::default();
    let mut mock_port: Option<u16> = None;
    let mut caching = Caching::Revalidate;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--port" => port = it.next().context("--port needs a number")?.parse().context("--port needs a number")?,
            "--base-path" => {
                opts.base_path = dist::normalize_base_path(it.next().context("--base-path needs a value")?)?
            }
            "--dev" => opts.dev = true,
            "--pages" => caching = Caching::Pages,
            "--mock" => mock_port = Some(mock_port.unwrap_or(8787)),
            "--mock-port" => {
                mock_port = Some(
                    it.next().context("--mock-port needs a number")?.parse().context("--mock-port needs a number")?,
                )
            }
            other => {
                bail!("unknown serve option {other:?}: use --port N, --base-path PATH, --dev, --pages, --mock [--mock-port N]")
            }
        }
    }
    dist::build(&opts)?;
    // Started before the static server so a busy mock port fails before anything is served.
    let _mock = mock_port.map(start_mock).transpose()?;
    let server = start_with(&workspace_root().join("dist"), port, &opts.base_path, caching)?;
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
/// background thread and returns at once; every response says `no-cache`.
pub fn start(dir: &Path, port: u16, base_path: &str) -> Result<Server> {
    start_with(dir, port, base_path, Caching::Revalidate)
}

/// [`start`] with the given caching policy.
pub fn start_with(dir: &Path, port: u16, base_path: &str, caching: Caching) -> Result<Server> {
    let listener = TcpListener::bind(("127.0.0.1", port))
        .with_context(|| format!("cannot listen on 127.0.0.1:{port}: choose another --port"))?;
    let port = listener.local_addr()?.port();
    let site = Arc::new(Site { dir: dir.to_path_buf(), base: base_path.to_string(), caching, gzip: Mutex::default() });
    let shared = site.clone();
    thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let site = shared.clone();
            thread::spawn(move || {
                let _ = handle(stream, &site);
            });
        }
    });
    Ok(Server { url: format!("http://127.0.0.1:{port}{base_path}"), port, site })
}

/// What a server serves and how, shared by its connections.
struct Site {
    dir: PathBuf,
    base: String,
    caching: Caching,
    /// Each file's gzip body: a file is compressed once while it stays unchanged (the debug
    /// module is 13 MB).
    gzip: Mutex<HashMap<PathBuf, Gzipped>>,
}

/// A file's gzip body with the validator of the bytes it was made from.
type Gzipped = (String, Arc<Vec<u8>>);

impl Site {
    /// The gzip -9 body of `file`, whose bytes are `body` with validator `tag`.
    fn gzipped(&self, file: &Path, tag: &str, body: &[u8]) -> Result<Arc<Vec<u8>>> {
        // Held while compressing: two loads of a page at once compress the module once.
        let mut cache = self.gzip.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((made_from, gz)) = cache.get(file) {
            if made_from == tag {
                return Ok(gz.clone());
            }
        }
        let gz = Arc::new(dist::gzip(body)?);
        cache.insert(file.to_path_buf(), (tag.to_string(), gz.clone()));
        Ok(gz)
    }
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
    // SPA fallback: routes have no extension; missing assets stay 404. Like GitHub Pages,
    // `404.html` when there is one (it preloads the entry of its path; ADR 0025), else `index.html`.
    let fallback = [dir.join("404.html"), dir.join("index.html")].into_iter().find(|p| p.is_file());
    fallback.filter(|_| !last.contains('.'))
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

/// The request line and the two headers the server reads.
struct Request {
    method: String,
    path: String,
    if_none_match: Option<String>,
    accept_encoding: Option<String>,
}

fn read_request(stream: &TcpStream) -> Result<Request> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut line = String::new();
    reader.read_line(&mut line)?;
    let (mut if_none_match, mut accept_encoding) = (None, None);
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header)? == 0 || header == "\r\n" || header == "\n" {
            break;
        }
        if let Some((name, value)) = header.split_once(':') {
            let name = name.trim();
            if name.eq_ignore_ascii_case("if-none-match") {
                if_none_match = Some(value.trim().to_string());
            } else if name.eq_ignore_ascii_case("accept-encoding") {
                accept_encoding = Some(value.trim().to_string());
            }
        }
    }
    let mut parts = line.split_whitespace();
    let (method, path) = (parts.next().unwrap_or("").to_string(), parts.next().unwrap_or("/").to_string());
    Ok(Request { method, path, if_none_match, accept_encoding })
}

fn handle(stream: TcpStream, site: &Site) -> Result<()> {
    let request = read_request(&stream)?;
    let mut out = stream;
    let head_only = request.method == "HEAD";
    let plain = |status| Head {
        status,
        mime: "text/plain; charset=utf-8",
        length: None,
        etag: None,
        gzip: false,
        vary: false,
        caching: site.caching,
        csp: CSP,
    };
    if request.method != "GET" && !head_only {
        return respond(&mut out, plain("405 Method Not Allowed"), b"method not allowed", false);
    }
    let Some(file) = resolve(&site.dir, &site.base, &request.path) else {
        return respond(&mut out, plain("404 Not Found"), b"not found", head_only);
    };
    let body = fs::read(&file)?;
    let name = file.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default();
    let mime = mime(&name);
    let file_tag = etag(&body);
    let vary = compressible(mime);
    let gzip = vary && accepts_gzip(request.accept_encoding.as_deref());
    let tag = representation_tag(&file_tag, gzip);
    let head =
        Head { status: "200 OK", mime, length: None, etag: Some(&tag), gzip, vary, caching: site.caching, csp: CSP };
    if request.if_none_match.as_deref().is_some_and(|m| matches_etag(m, &file_tag)) {
        return respond(&mut out, Head { status: "304 Not Modified", gzip: false, ..head }, &[], true);
    }
    if gzip {
        let gz = site.gzipped(&file, &file_tag, &body)?;
        return respond(&mut out, head, &gz, head_only);
    }
    respond(&mut out, head, &body, head_only)
}

/// A strong validator of `body`: its 64-bit FNV-1a hash, quoted.
fn etag(body: &[u8]) -> String {
    format!("\"{}\"", geo_core::text::fnv1a64_hex(body))
}

/// Whether an `If-None-Match` value (`*`, or a list of tags, weak ones included) names `tag`.
fn matches_etag(header: &str, tag: &str) -> bool {
    header.split(',').map(str::trim).any(|t| t == "*" || t.trim_start_matches("W/") == tag)
}

/// Writes a response: `head` with the length of `body` (none for a 304), then `body` unless
/// `head_only` (a HEAD request, or a 304).
fn respond(out: &mut TcpStream, mut head: Head, body: &[u8], head_only: bool) -> Result<()> {
    if !head.status.starts_with("304") {
        head.length = Some(body.len());
    }
    out.write_all(head.text().as_bytes())?;
    if !head_only {
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
        // With a 404.html (as `cargo xtask dist` writes), deep links get it, the root index.html.
        fs::write(dir.join("404.html"), "<html>").unwrap();
        check(&dir, "/", "/", Some("index.html"));
        check(&dir, "/", "/chat", Some("404.html"));
        check(&dir, "/geo-probe/", "/geo-probe/runs/run_1?x=1", Some("404.html"));
        check(&dir, "/", "/missing.js", None);
        fs::remove_file(dir.join("404.html")).unwrap();
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
        // The tag is the body's 64-bit FNV-1a, quoted.
        assert_eq!(etag(b"hello"), "\"a430d84680aabd0b\"");
        let _ = fs::remove_dir_all(&dir);
    }

    /// The headers and the body of a response, the body as bytes.
    fn get_bytes(port: u16, request: &str) -> (String, Vec<u8>) {
        let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
        s.write_all(request.as_bytes()).unwrap();
        let mut buf = Vec::new();
        std::io::Read::read_to_end(&mut s, &mut buf).unwrap();
        let split = buf.windows(4).position(|w| w == b"\r\n\r\n").expect("a head") + 4;
        (String::from_utf8_lossy(&buf[..split]).into_owned(), buf[split..].to_vec())
    }

    fn gunzip(bytes: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(bytes), &mut out).unwrap();
        out
    }

    #[test]
    fn text_and_wasm_go_gzip_encoded_when_accepted_as_github_pages_sends_them() {
        let dir = site();
        let script = "console.log('geo');\n".repeat(200);
        fs::write(dir.join("app.js"), &script).unwrap();
        fs::write(dir.join("icon.png"), [137u8, 80, 78, 71]).unwrap();
        let server = start_with(&dir, 0, "/", Caching::Pages).unwrap();
        // index.html, app.js, app.wasm and demo/demo-data.json; not the PNG.
        assert_eq!(server.precompress().unwrap(), 4);
        let gzip = "Accept-Encoding: gzip, deflate, br, zstd\r\n";
        let (head, body) = get_bytes(server.port, &format!("GET /app.js HTTP/1.1\r\nHost: x\r\n{gzip}\r\n"));
        assert!(head.contains("Content-Encoding: gzip\r\n"), "{head}");
        assert!(head.contains(&format!("Content-Length: {}\r\n", body.len())), "{head}");
        assert!(head.contains("Cache-Control: max-age=600\r\n"), "{head}");
        assert!(head.contains("Vary: Accept-Encoding\r\n"), "{head}");
        assert!(body.len() < script.len() / 10, "{} bytes sent for {}", body.len(), script.len());
        assert_eq!(gunzip(&body), script.as_bytes());
        // The gzip body's validator is weak; naming it gets a 304 without a body or coding.
        let tag = head.lines().find_map(|l| l.strip_prefix("ETag: ")).expect("an ETag").to_string();
        assert!(tag.starts_with("W/\""), "{tag}");
        let again = get(server.port, &format!("GET /app.js HTTP/1.1\r\nHost: x\r\n{gzip}If-None-Match: {tag}\r\n\r\n"));
        assert!(again.starts_with("HTTP/1.1 304 Not Modified"), "{again}");
        assert!(!again.contains("Content-Encoding") && again.ends_with("\r\n\r\n"), "{again}");
        // Without gzip in the request, the bytes of the file, with its strong validator.
        let (head, body) =
            get_bytes(server.port, "GET /app.js HTTP/1.1\r\nHost: x\r\nAccept-Encoding: identity\r\n\r\n");
        assert!(!head.contains("Content-Encoding"), "{head}");
        assert!(head.contains(&format!("ETag: {}\r\n", tag.trim_start_matches("W/"))), "{head}");
        assert_eq!(body, script.as_bytes());
        // A changed file is compressed again, not served from the old gzip body.
        fs::write(dir.join("app.js"), "changed").unwrap();
        let (_, body) = get_bytes(server.port, &format!("GET /app.js HTTP/1.1\r\nHost: x\r\n{gzip}\r\n"));
        assert_eq!(gunzip(&body), b"changed");
        // The wasm module is compressed too; a PNG is sent as it is.
        let (head, body) = get_bytes(server.port, &format!("GET /app.wasm HTTP/1.1\r\nHost: x\r\n{gzip}\r\n"));
        assert!(head.contains("Content-Encoding: gzip"), "{head}");
        assert_eq!(gunzip(&body), [0u8, 97, 115, 109]);
        let (head, body) = get_bytes(server.port, &format!("GET /icon.png HTTP/1.1\r\nHost: x\r\n{gzip}\r\n"));
        assert!(!head.contains("Content-Encoding") && !head.contains("Vary"), "{head}");
        assert_eq!(body, [137u8, 80, 78, 71]);
        // A HEAD request gets the GET's head, with the gzip length, and no body.
        let (head, body) = get_bytes(server.port, &format!("HEAD /app.wasm HTTP/1.1\r\nHost: x\r\n{gzip}\r\n"));
        assert!(head.contains("Content-Encoding: gzip") && head.contains("Content-Length: "), "{head}");
        assert!(body.is_empty());
        // `cargo xtask serve` without --pages keeps revalidating every load.
        let revalidating = start(&dir, 0, "/").unwrap();
        let (head, _) = get_bytes(revalidating.port, &format!("GET /app.js HTTP/1.1\r\nHost: x\r\n{gzip}\r\n"));
        assert!(head.contains("Cache-Control: no-cache\r\n") && head.contains("Content-Encoding: gzip"), "{head}");
        let _ = fs::remove_dir_all(&dir);
    }
}
