//! `geo-probe links` against local servers on 127.0.0.1: every class (ok, redirect,
//! not_found, blocked, error), HEAD then GET, the hops, what is never sent (credentials,
//! cookies), the User-Agent, the per-host delay; and a hostile server (an endless redirect
//! loop, a 10 GB body, a slow-loris reply, a redirect to `file:`) with bounded time and
//! memory. Then `geo-probe actions` and `metrics` read the check from OUT.
//!
//! The servers are on loopback, which `links` never asks unless `--allow-private`
//! (security-3 M2): without it, not one request reaches them; with it, they are checked like
//! an intranet's. Then what security-3 asked besides: no query of a redirect's URL in OUT,
//! and the time budget of the whole check (`--max-secs`).

mod support;

use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use support::{ok, read_json};

/// One request as the server saw it.
#[derive(Debug, Clone)]
struct Seen {
    at: Instant,
    method: String,
    path: String,
    head: String,
}

/// A local HTTP server answering by path, recording every request; `sent` counts the body
/// bytes it managed to write to clients (the 10 GB body).
struct Server {
    base: String,
    seen: Arc<Mutex<Vec<Seen>>>,
    sent: Arc<AtomicU64>,
}

fn write_head(mut s: &TcpStream, status: u16, extra: &str) {
    let _ = write!(s, "HTTP/1.1 {status} X\r\n{extra}content-length: 0\r\nconnection: close\r\n\r\n");
}

fn serve(stream: TcpStream, base: &str, seen: &Mutex<Vec<Seen>>, sent: &AtomicU64) {
    let mut reader = BufReader::new(&stream);
    let mut head = String::new();
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
            break;
        }
        head.push_str(&line);
    }
    let mut words = head.split_whitespace();
    let (method, path) = (words.next().unwrap_or("").to_string(), words.next().unwrap_or("").to_string());
    seen.lock().unwrap().push(Seen {
        at: Instant::now(),
        method: method.clone(),
        path: path.clone(),
        head: head.clone(),
    });
    let head_only = method == "HEAD";
    match path.split('?').next().unwrap_or("") {
        "/ok" | "/final" | "/cookie-check" => write_head(&stream, 200, ""),
        "/gone" => write_head(&stream, 404, ""),
        "/deleted" => write_head(&stream, 410, ""),
        "/login" => write_head(&stream, 401, ""),
        "/forbidden" => write_head(&stream, 403, ""),
        "/slow-down" => write_head(&stream, 429, ""),
        "/broken" => write_head(&stream, 500, ""),
        "/head-refused" if head_only => write_head(&stream, 405, ""),
        "/head-refused" => write_head(&stream, 200, ""),
        "/moved" => write_head(&stream, 301, "location: /hop1\r\n"),
        "/to-credentials" => {
            let with_user = base.replace("http://", "http://user:secret@");
            write_head(&stream, 302, &format!("location: {with_user}/final\r\n"))
        }
        "/hop1" => write_head(&stream, 302, &format!("location: {base}/final\r\n")),
        "/to-sso" => {
            write_head(&stream, 302, &format!("location: {base}/cb?code=INTERNAL-OAUTH-CODE-123&state=s#f\r\n"))
        }
        "/cb" => write_head(&stream, 200, ""),
        "/hang" | "/hang-too" => {
            // Never answers: holds the connection until the client goes away.
            let _ = std::io::copy(&mut reader, &mut std::io::sink());
        }
        "/cookie" => write_head(&stream, 302, "location: /cookie-check\r\nset-cookie: session=abc123; Path=/\r\n"),
        "/loop" => write_head(&stream, 302, "location: /loop\r\n"),
        "/to-file" => write_head(&stream, 302, "location: file:///etc/passwd\r\n"),
        "/huge" if head_only => write_head(&stream, 405, ""),
        "/huge" => {
            // 10 GB announced and streamed until the client goes away.
            let mut s = &stream;
            let _ = write!(
                s,
                "HTTP/1.1 200 OK\r\ncontent-length: 10737418240\r\ncontent-type: application/octet-stream\r\n\r\n"
            );
            let chunk = vec![b'x'; 64 * 1024];
            while s.write_all(&chunk).is_ok() {
                if sent.fetch_add(chunk.len() as u64, Ordering::Relaxed) > 10_737_418_240 {
                    break;
                }
            }
        }
        "/slowloris" => {
            // A status line, then one header byte every 100 ms, for ever.
            let mut s = &stream;
            let _ = write!(s, "HTTP/1.1 200 OK\r\nx-slow: ");
            for _ in 0..100_000 {
                if s.write_all(b"a").and_then(|_| s.flush()).is_err() {
                    break;
                }
                std::thread::sleep(Duration::from_millis(100));
            }
        }
        _ => write_head(&stream, 404, ""),
    }
}

impl Server {
    fn start() -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let seen = Arc::new(Mutex::new(Vec::new()));
        let sent = Arc::new(AtomicU64::new(0));
        let (b, log, count) = (base.clone(), seen.clone(), sent.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let (b, log, count) = (b.clone(), log.clone(), count.clone());
                std::thread::spawn(move || serve(stream, &b, &log, &count));
            }
        });
        Server { base, seen, sent }
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    fn requests(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }

    /// The path (and query) of every request so far.
    fn paths(&self) -> Vec<String> {
        self.requests().into_iter().map(|s| s.path).collect()
    }
}

fn scratch(name: &str) -> PathBuf {
    support::scratch("links", name)
}

/// An export of one project and one run whose successful answers write `links` (one a line,
/// split over two probes), saved as `dir/in.json`.
fn export_with_links(dir: &Path, links: &[String]) -> PathBuf {
    let target = |id: &str, kind: &str, alias: &str| json!({"id": id, "kind": kind, "label": alias, "aliases": [alias], "domains": []});
    let prompt = json!({"id": "p1", "projectId": "proj", "text": "哪家好？", "tags": [], "createdAt": "2026-11-01T00:00:00.000Z", "updatedAt": "2026-11-01T00:00:00.000Z"});
    let half = links.len() / 2;
    let probe = |repeat: usize, part: &[String]| {
        let answer = format!("推荐元构场。\n\n{}", part.join("\n"));
        json!({"id": format!("run_1__p1__{repeat}"), "runId": "run_1", "projectId": "proj", "promptId": "p1",
               "repeatIndex": repeat, "status": "success", "createdAt": "2026-11-29T08:00:00.000Z", "rawAnswer": answer})
    };
    let env = json!({
        "format": "geo-probe-export", "version": 1, "exportedAt": "2026-11-30T00:00:00.000Z", "appVersion": "0.1.0",
        "projects": [{"id": "proj", "name": "P", "brand": target("b", "brand", "元构场"), "competitors": [target("c", "competitor", "智谱")],
                      "createdAt": "2026-11-01T00:00:00.000Z", "updatedAt": "2026-11-01T00:00:00.000Z"}],
        "prompts": [prompt.clone()],
        "runs": [{"id": "run_1", "projectId": "proj", "status": "completed", "createdAt": "2026-11-29T08:00:00.000Z",
                  "config": {"model": "m", "repeats": 2, "concurrency": 1, "maxSearches": 1, "maxTokens": 100, "temperature": 1.0, "systemPromptVersion": "v"},
                  "aliasSnapshot": [target("b", "brand", "元构场"), target("c", "competitor", "智谱")], "promptSnapshot": [prompt], "plannedProbeCount": 2}],
        "probes": [probe(0, &links[..half]), probe(1, &links[half..])]
    });
    let path = dir.join("in.json");
    std::fs::write(&path, serde_json::to_string_pretty(&env).unwrap()).unwrap();
    path
}

/// A local server, a scratch folder `name`, and an export there whose answers write the
/// server's `paths`.
fn serve_links(name: &str, paths: &[&str]) -> (Server, PathBuf, PathBuf) {
    let server = Server::start();
    let dir = scratch(name);
    let links: Vec<String> = paths.iter().map(|p| server.url(p)).collect();
    let input = export_with_links(&dir, &links);
    (server, dir, input)
}

fn geo_probe(args: &[&str]) -> Output {
    support::geo_probe()
        .args(args)
        .env("HTTP_PROXY", "http://127.0.0.1:9")
        .env("http_proxy", "http://127.0.0.1:9")
        .output()
        .unwrap()
}

/// Runs `geo-probe links` on `input` into `dir/out.json` and returns the run's record.
fn check(input: &Path, dir: &Path, extra: &[&str]) -> (Value, String) {
    let out = dir.join("out.json");
    let mut args = vec!["links", input.to_str().unwrap(), "--out", out.to_str().unwrap()];
    args.extend_from_slice(extra);
    let stdout = ok(&geo_probe(&args));
    let env = read_json(&out);
    let checks = env["linkChecks"].as_array().unwrap().clone();
    assert_eq!(checks.len(), 1);
    (checks[0].clone(), stdout)
}

fn by_url<'a>(record: &'a Value, url: &str) -> &'a Value {
    record["links"].as_array().unwrap().iter().find(|l| l["url"] == url).unwrap_or_else(|| panic!("{url} in {record}"))
}

#[test]
fn every_class_against_a_local_server() {
    let server = Server::start();
    let dir = scratch("classes");
    let closed = {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        format!("http://{}/x", l.local_addr().unwrap())
    };
    let paths = [
        "/ok",
        "/gone",
        "/deleted",
        "/login",
        "/forbidden",
        "/slow-down",
        "/broken",
        "/head-refused",
        "/moved",
        "/cookie",
        "/to-credentials",
    ];
    let mut links: Vec<String> = paths.iter().map(|p| server.url(p)).collect();
    links.push(closed.clone());
    let credentials = server.url("/ok").replace("http://", "http://user:secret@") + "?cred=1";
    links.push(credentials);
    let input = export_with_links(&dir, &links);
    let (record, stdout) = check(&input, &dir, &["--allow-private", "--host-delay-ms", "0", "--concurrency", "3"]);
    assert_eq!(record["runId"], "run_1");
    let class = |path: &str| by_url(&record, &server.url(path))["class"].as_str().unwrap().to_string();
    let table = [
        ("/ok", "ok"),
        ("/gone", "not_found"),
        ("/deleted", "not_found"),
        ("/login", "blocked"),
        ("/forbidden", "blocked"),
        ("/slow-down", "blocked"),
        ("/broken", "error"),
        ("/head-refused", "ok"),
        ("/moved", "redirect"),
        ("/cookie", "redirect"),
        ("/to-credentials", "redirect"),
    ];
    for (path, want) in table {
        assert_eq!(class(path), want, "{path}");
    }
    assert_eq!(by_url(&record, &server.url("/gone"))["status"], 404);
    let moved = by_url(&record, &server.url("/moved"));
    assert_eq!(moved["finalUrl"], server.url("/final"));
    let hops: Vec<(String, u64, String)> = moved["hops"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| {
            (h["url"].as_str().unwrap().into(), h["status"].as_u64().unwrap(), h["location"].as_str().unwrap().into())
        })
        .collect();
    assert_eq!(hops, [(server.url("/moved"), 301, "/hop1".into()), (server.url("/hop1"), 302, server.url("/final"))]);
    let refused = by_url(&record, &closed);
    assert_eq!(refused["class"], "error");
    assert!(refused["error"].as_str().unwrap().contains("connection"), "{refused}");
    // A link with credentials, and a redirect to one, are requested, and recorded, without them.
    assert_eq!(by_url(&record, &server.url("/to-credentials"))["finalUrl"], server.url("/final"));
    let plain = by_url(&record, &format!("{}?cred=1", server.url("/ok")));
    assert_eq!(plain["class"], "ok");
    assert!(!record.to_string().contains("secret"), "the record holds no credentials");

    let seen = server.requests();
    let methods: Vec<&str> = seen.iter().filter(|s| s.path == "/head-refused").map(|s| s.method.as_str()).collect();
    assert_eq!(methods, ["HEAD", "GET"]);
    assert!(seen.iter().filter(|s| s.path != "/head-refused").all(|s| s.method == "HEAD"));
    for s in &seen {
        let head = s.head.to_ascii_lowercase();
        assert!(!head.contains("authorization") && !head.contains("cookie:"), "nothing sent: {}", s.head);
        assert!(head.contains("user-agent: geo-probe/"), "the tool names itself: {}", s.head);
    }
    assert!(seen.iter().any(|s| s.path == "/cookie-check"), "the cookie's redirect was followed, without the cookie");
    assert!(stdout.starts_with("answer links that do not exist: 2 of 13"), "{stdout}");
}

#[test]
fn a_hostile_server_costs_bounded_time_and_memory() {
    let (server, dir, input) = serve_links("hostile", &["/loop", "/huge", "/slowloris", "/to-file"]);
    let started = Instant::now();
    let (record, _) =
        check(&input, &dir, &["--allow-private", "--host-delay-ms", "0", "--timeout-secs", "2", "--concurrency", "4"]);
    let took = started.elapsed();
    let looped = by_url(&record, &server.url("/loop"));
    assert_eq!(looped["class"], "error");
    assert_eq!(looped["hops"].as_array().unwrap().len(), 6);
    assert!(looped["error"].as_str().unwrap().contains("more than 5 redirects"));
    assert_eq!(server.requests().iter().filter(|s| s.path == "/loop").count(), 6, "the 6th redirect is not followed");
    // The 10 GB body: the head is read, the body never.
    assert_eq!(by_url(&record, &server.url("/huge"))["class"], "ok");
    let sent = server.sent.load(Ordering::Relaxed);
    assert!(sent < 64 * 1024 * 1024, "the client stopped reading at once: {sent} bytes went out");
    // The slow-loris reply ends with the request's deadline.
    let slow = by_url(&record, &server.url("/slowloris"));
    assert_eq!(slow["class"], "error");
    assert!(slow["error"].as_str().unwrap().contains("timed out"), "{slow}");
    // Never followed to a non-http(s) URL.
    let file = by_url(&record, &server.url("/to-file"));
    assert_eq!(file["class"], "error");
    assert!(file["error"].as_str().unwrap().contains("non-http(s)"));
    assert_eq!(file["hops"][0]["location"], "file:///etc/passwd");
    assert!(took < Duration::from_secs(60), "bounded time: {took:?}");
    // Bounded memory: the largest child (every geo-probe of this test binary) stayed small.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: getrusage fills the struct it is given; RUSAGE_CHILDREN needs nothing else.
    assert_eq!(unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage) }, 0);
    let peak = usage.ru_maxrss as u64 * 1024;
    assert!(peak < 200 * 1024 * 1024, "peak resident memory {peak} bytes");
}

#[test]
fn one_host_is_asked_with_the_delay_between() {
    let (server, dir, input) = serve_links("delay", &["/ok", "/gone", "/forbidden"]);
    let (record, _) = check(&input, &dir, &["--allow-private", "--host-delay-ms", "400", "--concurrency", "8"]);
    assert_eq!(record["links"].as_array().unwrap().len(), 3);
    let mut at: Vec<Instant> = server.requests().iter().map(|s| s.at).collect();
    at.sort();
    // The checker starts the requests 400 ms apart; the server sees when each arrived, and a
    // busy machine can delay one arrival more than the next (a 399.6 ms gap was seen). Without
    // the delay the eight workers send all three within milliseconds, so a 100 ms margin
    // still tells the two apart.
    for w in at.windows(2) {
        assert!(w[1] - w[0] >= Duration::from_millis(300), "{:?}", w[1] - w[0]);
    }
}

#[test]
fn the_check_travels_into_actions_and_metrics_and_replaces_itself() {
    let (server, dir, input) = serve_links("travel", &["/ok", "/gone", "/moved"]);
    let (record, _) = check(&input, &dir, &["--allow-private", "--host-delay-ms", "0"]);
    assert_eq!(record["links"].as_array().unwrap().len(), 3);
    let out = dir.join("out.json");
    let out = out.to_str().unwrap();
    let actions: Value = serde_json::from_str(&ok(&geo_probe(&["actions", out]))).unwrap();
    assert_eq!(
        actions["links"],
        json!({"checked": 3, "ok": 1, "redirect": 1, "notFound": 1, "blocked": 0, "error": 0})
    );
    assert_eq!(actions["notFoundLinks"][0]["url"], server.url("/gone"));
    let metrics: Value = serde_json::from_str(&ok(&geo_probe(&["metrics", out]))).unwrap();
    assert_eq!(metrics[0]["answerLinkCheck"]["notFound"], 1);
    let report = ok(&geo_probe(&["report", out, "--lang", "en"]));
    assert!(report.contains("answer links that do not exist: 1 of 3"), "{report}");
    // Checking again replaces the run's record; validate and analyze keep it.
    let again = dir.join("again.json");
    ok(&geo_probe(&["links", out, "--out", again.to_str().unwrap(), "--allow-private", "--host-delay-ms", "0"]));
    let env = read_json(&again);
    assert_eq!(env["linkChecks"].as_array().unwrap().len(), 1);
    assert!(ok(&geo_probe(&["validate", again.to_str().unwrap()])).contains("1 run"));
    let analyzed: Value = serde_json::from_str(&ok(&geo_probe(&["analyze", again.to_str().unwrap()]))).unwrap();
    assert_eq!(analyzed["linkChecks"], env["linkChecks"]);
}

#[test]
fn bad_flags_and_runs_exit_2_and_write_nothing() {
    let dir = scratch("flags");
    let input = export_with_links(&dir, &["http://127.0.0.1:9/x".to_string()]);
    let input = input.to_str().unwrap();
    let out = dir.join("out.json");
    let out_s = out.to_str().unwrap();
    for args in [
        vec!["links", input],
        vec!["links", input, "--out", out_s, "--concurrency", "0"],
        vec!["links", input, "--out", out_s, "--concurrency", "99"],
        vec!["links", input, "--out", out_s, "--timeout-secs", "0"],
        vec!["links", input, "--out", out_s, "--host-delay-ms", "5000"],
        vec!["links", input, "--out", out_s, "--max-secs", "0"],
        vec!["links", input, "--out", out_s, "--max-secs", "86401"],
        vec!["links", input, "--out", out_s, "--allow-private=yes"],
        vec!["links", input, "--out", out_s, "--run", "nope"],
        vec!["actions", input, "--run", "nope"],
        vec!["actions", input, "--format", "html"],
    ] {
        let o = geo_probe(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.starts_with("error: ") && err.lines().count() == 1, "{args:?}: {err}");
        assert!(!out.exists(), "{args:?} wrote OUT");
    }
}

/// Every record of `record` as `(class, error)`.
fn outcomes(record: &Value) -> Vec<(String, String)> {
    let text = |v: &Value| v.as_str().unwrap_or_default().to_string();
    record["links"].as_array().unwrap().iter().map(|l| (text(&l["class"]), text(&l["error"]))).collect()
}

// security-3 M2: the review's spellings of one loopback server. Without --allow-private the
// server logs no request at all; with it, it is checked like an intranet server.
#[test]
fn private_addresses_are_never_asked_without_allow_private() {
    let server = Server::start();
    let dir = scratch("private");
    let port = server.base.rsplit(':').next().unwrap().to_string();
    let links: Vec<String> = [
        "127.0.0.1:{P}/admin/direct",
        "2130706433:{P}/decimal",
        "0x7f000001:{P}/hex",
        "127.1:{P}/short",
        "[::ffff:127.0.0.1]:{P}/mapped",
        "localhost:{P}/name",
        "0.0.0.0:{P}/zero",
    ]
    .iter()
    .map(|l| format!("[看这里](http://{})", l.replace("{P}", &port)))
    .collect();
    let input = export_with_links(&dir, &links);
    let (record, stdout) = check(&input, &dir, &["--host-delay-ms", "0"]);
    let refused = ("error".to_string(), "private address".to_string());
    assert_eq!(outcomes(&record), vec![refused; links.len()], "{record}");
    assert!(server.requests().is_empty(), "not one request: {:?}", server.requests());
    assert!(stdout.starts_with(&format!("answer links that do not exist: 0 of {}", links.len())), "{stdout}");

    let (record, _) = check(&input, &dir, &["--allow-private", "--host-delay-ms", "0"]);
    let paths = server.paths();
    for path in ["/admin/direct", "/decimal", "/hex", "/short", "/name", "/zero"] {
        assert!(paths.iter().any(|p| p == path), "{path} asked with --allow-private: {paths:?}");
    }
    // The IPv4-mapped form is asked too; whether it connects depends on the machine's IPv6.
    assert!(outcomes(&record).iter().all(|(_, error)| error != "private address"), "{record}");
}

// security-3 M2: an internal Location with a code in its query is requested whole, and OUT
// keeps it without the query (the hop's location, finalUrl).
#[test]
fn redirect_urls_are_recorded_without_their_query() {
    let server = Server::start();
    let dir = scratch("query");
    let input = export_with_links(&dir, &[server.url("/to-sso"), server.url("/ok")]);
    let (record, _) = check(&input, &dir, &["--allow-private", "--host-delay-ms", "0"]);
    let sso = by_url(&record, &server.url("/to-sso"));
    assert_eq!(sso["class"], "redirect");
    assert_eq!(sso["hops"][0]["location"], server.url("/cb"));
    assert_eq!(sso["finalUrl"], server.url("/cb"));
    let out = std::fs::read_to_string(dir.join("out.json")).unwrap();
    assert!(!out.contains("INTERNAL-OAUTH-CODE") && !out.contains("state=s"), "OUT keeps no redirect query");
    let paths = server.paths();
    assert!(paths.iter().any(|p| p == "/cb?code=INTERNAL-OAUTH-CODE-123&state=s"), "requested whole: {paths:?}");
}

// security-3 L5: the whole check stops at --max-secs; the link in flight (to a server that
// never answers, with a 120 s request deadline) and the links queued behind it are errors,
// and OUT is written.
#[test]
fn the_time_budget_ends_the_check_and_out_is_still_written() {
    let (_server, dir, input) = serve_links("budget", &["/hang", "/hang-too", "/ok"]);
    let budget = ["--allow-private", "--host-delay-ms", "0", "--timeout-secs", "120", "--max-secs", "1"];
    let (record, stdout) = check(&input, &dir, &budget);
    let late = ("error".to_string(), "not checked: time budget".to_string());
    assert_eq!(outcomes(&record), vec![late; 3], "{record}");
    assert!(stdout.starts_with("answer links that do not exist: 0 of 3"), "{stdout}");
}
