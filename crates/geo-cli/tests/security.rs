//! The security review's findings against the real binary (`docs/security.md`): keys that
//! cannot be sent, secrets in base URLs, hostile provider bodies and streams, terminal
//! escapes, unbounded reads, atomic writes, crafted run configs, non-UTF-8 arguments.
//! Every test here failed before its fix.

mod support;

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::{json, Value};
use support::{mock, root, run_args, stderr, PROJECT};

fn scratch(name: &str) -> PathBuf {
    support::scratch("sec", name)
}

/// The fixture project with one extra prompt, `px`, written to `dir/in.json`.
fn input(dir: &Path, prompt: &str) -> PathBuf {
    support::input_with(dir, &[("px", prompt)])
}

/// `geo-probe ARGS` with `key` as DeepSeek's key and no other engine's.
fn geo_probe<S: AsRef<OsStr>>(args: &[S], key: Option<&str>) -> Output {
    support::with_deepseek_key(args, key).output().unwrap()
}

/// `run` of the single prompt `px` once, to `dir/out.json`.
fn run_px(dir: &Path, file: &Path, base: &str, key: Option<&str>) -> (Output, PathBuf) {
    let out = dir.join("out.json");
    (geo_probe(&run_args(file, "px", &out, &["--repeats", "1", "--base-url", base]), key), out)
}

#[track_caller]
fn assert_no_control_chars(text: &str) {
    let bad: Vec<char> = text.chars().filter(|c| c.is_control() && *c != '\n').collect();
    assert!(bad.is_empty(), "control characters {bad:?} reached the terminal: {text:?}");
}

/// Finding 1: a key holding a character an HTTP header cannot carry is refused before any
/// request, and neither the message nor any file holds the key.
#[test]
fn a_key_that_cannot_be_sent_is_refused_without_showing_it() {
    let m = mock(&[]);
    for key in ["sk-LEAKME0123456789\u{200B}", "sk-LEAKME01\n23456789", "sk-LEAKMÉ0123456789"] {
        let dir = scratch("badkey");
        let file = input(&dir, "q");
        let (o, out) = run_px(&dir, &file, &m.url(), Some(key));
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert!(err.starts_with(&format!("error: {}: the api key holds", support::key_var("deepseek"))), "{err}");
        assert!(!err.contains("LEAKM"), "{err}");
        assert!(!out.exists(), "no output for a refused key");
    }
    assert!(m.log().is_empty(), "no request was sent");
    let docs = root().join("fixtures/chat/geo_en.md");
    let o = geo_probe(
        &["chat", "--docs", docs.to_str().unwrap(), "--query", "q", "--base-url", &m.url()],
        Some("sk-LEAKME0123456789\u{200B}"),
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(!stderr(&o).contains("LEAKM") && !String::from_utf8_lossy(&o.stdout).contains("LEAKM"));
    assert!(m.log().is_empty());
}

/// Findings 1 and 8: a provider error body that echoes the key and carries terminal escapes
/// reaches neither the terminal nor the output file as it was sent.
#[test]
fn a_hostile_error_body_is_redacted_and_defused() {
    let key = "sk-ECHOED-0123456789";
    let m = mock(&[]);
    let dir = scratch("hostile");
    let file = input(&dir, "[mock:hostile] 有哪些公司？");
    let (o, out) = run_px(&dir, &file, &m.url(), Some(key));
    let err = stderr(&o);
    assert!(!err.contains(key), "{err}");
    assert_no_control_chars(&err);
    assert!(err.contains("[redacted]"), "{err}");
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(!text.contains(key), "the key reached OUT");
    let probes: Value = serde_json::from_str(&text).unwrap();
    let message =
        probes["probes"].as_array().unwrap().last().unwrap()["error"]["message"].as_str().unwrap().to_string();
    assert!(message.contains("[redacted]"), "{message}");
}

/// Code review 3, "the redaction list is a hand copy": the CLI's list of secret variables
/// knew five engines of nine, so a Qwen, Doubao, ERNIE or Hunyuan key that an upstream
/// echoed reached the terminal. Here every variable of geo-core's engine table holds a key,
/// a local upstream echoes them all in its error body, and none reaches standard error or OUT.
#[test]
fn a_key_in_any_engines_variable_is_redacted_when_an_upstream_echoes_it() {
    let keys: Vec<(&str, String)> =
        support::key_vars().enumerate().map(|(i, var)| (var, format!("sk-echoed-{i:02}-Zq8x"))).collect();
    let echoed: Vec<&str> = keys.iter().map(|(_, key)| key.as_str()).collect();
    let body = json!({ "error": { "type": "invalid_request_error", "message": format!("keys {}", echoed.join(" ")) } });
    let upstream = support::Receiver::start(support::Reply::Json(400, body.to_string()));
    let dir = scratch("echo-keys");
    let file = input(&dir, "q");
    let out = dir.join("out.json");
    let mut c = support::geo_probe();
    c.args(run_args(&file, "px", &out, &["--repeats", "1", "--base-url", &upstream.origin]));
    for (var, key) in &keys {
        c.env(var, key);
    }
    let o = c.output().unwrap();
    let err = stderr(&o);
    assert_eq!(upstream.requests().len(), 1, "one request, answered 400 and not retried: {err}");
    let written = std::fs::read_to_string(&out).unwrap();
    let leaked: Vec<&str> = keys.iter().filter(|(_, key)| err.contains(key.as_str())).map(|(var, _)| *var).collect();
    assert!(leaked.is_empty(), "the keys of {leaked:?} reached standard error: {err}");
    let leaked: Vec<&str> =
        keys.iter().filter(|(_, key)| written.contains(key.as_str())).map(|(var, _)| *var).collect();
    assert!(leaked.is_empty(), "the keys of {leaked:?} reached OUT");
    // The echo did reach the terminal, each key replaced.
    assert!(err.matches("[redacted]").count() >= keys.len(), "{err}");
}

/// Finding 4: a base URL with credentials is refused, and a query-string secret never
/// appears in an error message, stderr or OUT; the path goes before the query.
#[test]
fn secrets_in_the_base_url_stay_out_of_messages() {
    let dir = scratch("baseurl");
    let file = input(&dir, "q");
    let (o, out) = run_px(&dir, &file, "http://user:PASS1234@127.0.0.1:9", None);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("must not contain a user name or password"), "{}", stderr(&o));
    assert!(!stderr(&o).contains("PASS1234") && !out.exists());

    // A closed port: the network error names the host only.
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let (o, out) = run_px(&dir, &file, &format!("http://127.0.0.1:{port}/gw?key=QSECRET-42"), None);
    let err = stderr(&o);
    assert!(!err.contains("QSECRET"), "{err}");
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(!text.contains("QSECRET"), "{text}");
    assert!(text.contains(&format!("connection failed to http://127.0.0.1:{port}")), "{text}");

    // The path is appended to the base's path, not after its query.
    let m = mock(&[]);
    let (o, _) = run_px(&dir, &file, &format!("{}/gw?token=T0KEN-9", m.url()), None);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(m.log()[0]["path"], "/gw/anthropic/v1/messages?token=[redacted]");
}

/// Findings 1 and 8: the chat stream's text is shown without terminal escapes and without
/// the key the proxy echoed, even split across chunks.
#[test]
fn a_hostile_chat_stream_is_redacted_and_defused() {
    let key = "sk-CHATKEY-0123456789";
    let m = mock(&[]);
    let docs = root().join("fixtures/chat/geo_en.md");
    let o = geo_probe(
        &["chat", "--docs", docs.to_str().unwrap(), "--query", "GEO [chat:hostile]", "--base-url", &m.url()],
        Some(key),
    );
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(out.contains("your Bearer [redacted] is safe"), "{out}");
    assert!(!out.contains("CHATKEY"), "{out}");
    assert_no_control_chars(&out);
}

/// Finding 10: an argument that is not UTF-8 is bad input (exit 2, one line), not a panic.
#[cfg(unix)]
#[test]
fn a_non_utf8_argument_exits_2() {
    use std::os::unix::ffi::OsStrExt;
    let arg = std::ffi::OsStr::from_bytes(b"export-\xff.json");
    let o = support::geo_probe().arg("validate").arg(arg).output().unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.starts_with("error: argument 2 (export-\u{FFFD}.json) is not valid UTF-8"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
}

/// Finding 9: endless input is refused at a bound instead of read to exhaustion.
#[cfg(unix)]
#[test]
fn endless_inputs_are_refused_at_their_limit() {
    let o = geo_probe(&["validate", "/dev/zero"], None);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("larger than 256 MiB, the limit for an export"), "{}", stderr(&o));
    let o = geo_probe(&["retrieve", "--docs", "/dev/zero", "--query", "q"], None);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("larger than 20 MiB, the limit for a document"), "{}", stderr(&o));
}

/// Finding 5: a crafted `repeats` (in an imported run, or on the command line) is refused
/// with exit 2 before anything is planned or sent; it used to allocate until SIGABRT.
#[test]
fn crafted_repeats_are_refused() {
    let m = mock(&[]);
    let dir = scratch("repeats");
    let file = input(&dir, "q");
    let out = dir.join("out.json");
    // Every prompt of the project (no --prompts), 4,294,967,295 times.
    let (f, o) = (file.to_str().unwrap(), out.to_str().unwrap());
    let o = geo_probe(
        &["run", f, "--project", PROJECT, "--repeats", "4294967295", "--out", o, "--base-url", &m.url()],
        None,
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("above the limit of 10000 probes a run"), "{}", stderr(&o));
    let (o, first) = run_px(&dir, &file, &m.url(), None);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let mut env: Value = serde_json::from_str(&std::fs::read_to_string(&first).unwrap()).unwrap();
    let run = env["runs"].as_array_mut().unwrap().last_mut().unwrap();
    run["config"]["repeats"] = json!(4_294_967_295u64);
    let run_id = run["id"].as_str().unwrap().to_string();
    let crafted = dir.join("crafted.json");
    std::fs::write(&crafted, env.to_string()).unwrap();
    let again = dir.join("again.json");
    let (f, o) = (crafted.to_str().unwrap(), again.to_str().unwrap());
    let o = geo_probe(&["resume", f, "--run", &run_id, "--out", o, "--base-url", &m.url()], None);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("above the limit of 10000 probes a run"), "{}", stderr(&o));
    assert!(!again.exists());
}

/// Findings 1 and the base-URL rule for every engine of `run --engine`: each engine's own key
/// variable is checked before any request (a bad character exits 2 without showing the key),
/// its path goes before the base's query string, and a network error names the host only.
#[test]
fn every_engine_checks_its_key_and_base_url_before_any_request() {
    let m = mock(&[]);
    let engines = [
        ("anthropic", "/gw/v1/messages"),
        ("openai", "/gw/v1/responses"),
        ("gemini", "/gw/v1beta/models/gemini-2.5-flash:generateContent"),
        ("perplexity", "/gw/chat/completions"),
    ];
    for (engine, path) in engines {
        let var = support::key_var(engine);
        let dir = scratch(&format!("engine-{engine}"));
        let file = input(&dir, "q");
        let out = dir.join("out.json");
        let run = |base: &str, key: Option<&str>| {
            let args = run_args(&file, "px", &out, &["--repeats", "1", "--engine", engine, "--base-url", base]);
            let keys: Vec<(&str, &str)> = key.map(|k| (engine, k)).into_iter().collect();
            support::with_keys(&args, &keys).output().unwrap()
        };
        let before = m.log().len();
        let o = run(&m.url(), Some("sk-LEAKME0123456789\u{200B}"));
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{engine}: {err}");
        assert!(err.starts_with(&format!("error: {var}: the api key holds")), "{engine}: {err}");
        assert!(!err.contains("LEAKM") && !out.exists(), "{engine}: {err}");
        assert_eq!(m.log().len(), before, "{engine}: no request was sent");

        let o = run("http://user:PASS1234@127.0.0.1:9", None);
        assert_eq!(o.status.code(), Some(2), "{engine}");
        assert!(stderr(&o).contains("must not contain a user name or password") && !stderr(&o).contains("PASS1234"));

        let o = run(&format!("{}/gw?token=T0KEN-9", m.url()), None);
        assert_eq!(o.status.code(), Some(0), "{engine}: {}", stderr(&o));
        assert_eq!(m.log().last().unwrap()["path"], format!("{path}?token=[redacted]"), "{engine}");
        let _ = std::fs::remove_file(&out);

        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let o = run(&format!("http://127.0.0.1:{port}/gw?key=QSECRET-42"), Some("sk-SECRETKEY-77"));
        let err = stderr(&o);
        let text = std::fs::read_to_string(&out).unwrap();
        for shown in [&err, &text] {
            assert!(!shown.contains("QSECRET") && !shown.contains("SECRETKEY"), "{engine}: {shown}");
        }
        assert!(text.contains(&format!("connection failed to http://127.0.0.1:{port}")), "{engine}: {text}");
    }
}
