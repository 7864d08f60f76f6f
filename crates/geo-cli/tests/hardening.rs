//! Security review II against the real binary (`docs/security.md`, "Hardening II"): no key
//! follows a redirect, one proxy per engine, the webhook URL parsed once and read from
//! `GEO_PROBE_WEBHOOK`, and terminal text from an export sanitised. Every test here failed
//! before its fix.

mod support;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::{json, Value};
use support::{read_json, root, stderr, Receiver, Reply};

fn scratch(name: &str) -> PathBuf {
    support::scratch("hard", name)
}

/// `geo-probe ARGS` with exactly the key variables in `keys` (every engine's other one
/// removed: `support::geo_probe`) and the extra environment `env`.
fn geo_probe(args: &[&str], keys: &[(&str, &str)], env: &[(&str, &str)]) -> Output {
    let mut c = support::geo_probe();
    c.args(args).env_remove("GEO_PROBE_WEBHOOK");
    for (k, v) in keys.iter().chain(env) {
        c.env(k, v);
    }
    c.output().unwrap()
}

/// `run` of prompt `p01` of the fixture project once, to `dir/out.json`, with `extra` flags.
fn run_p01(dir: &Path, extra: &[&str], keys: &[(&str, &str)]) -> (Output, PathBuf) {
    let out = dir.join("out.json");
    let mut more = vec!["--repeats", "1", "--timeout-secs", "10"];
    more.extend_from_slice(extra);
    let args = support::run_args(root().join("fixtures/project.json"), "p01", &out, &more);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    (geo_probe(&args, keys, &[]), out)
}

/// A server on 127.0.0.1 that answers every request with `302 Found` to `location`.
fn redirector(location: String) -> String {
    support::serve(move |mut s, _| {
        let _ =
            write!(s, "HTTP/1.1 302 Found\r\nlocation: {location}\r\ncontent-length: 0\r\nconnection: close\r\n\r\n");
    })
}

/// Finding 3: a 302 to a second local server that logs its headers: the second server hears
/// nothing, the key stays home, and each probe's error names where the redirect pointed.
#[test]
fn no_key_follows_a_redirect() {
    let dir = scratch("redirect");
    let logger = Receiver::start(Reply::Status(200));
    let target = logger.url.replace("/services/T000/B000/SECRET-TOKEN", "/anthropic/v1/messages?token=T0KEN");
    let base = redirector(target.clone());
    let key = "sk-redirect-key-0123456789";
    let (output, out) = run_p01(&dir, &["--base-url", &base], &[(support::key_var("deepseek"), key)]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    assert!(logger.requests().is_empty(), "the redirect was followed: {:?}", logger.requests());
    let env: Value = read_json(&out);
    let probe = &env["probes"][0];
    assert_eq!(probe["error"]["kind"], "http", "{probe}");
    assert_eq!(probe["error"]["httpStatus"], 302, "{probe}");
    assert_eq!(probe["attempts"], 1, "a redirect is not retried: {probe}");
    let host = target.split("/anthropic").next().unwrap();
    let message = probe["error"]["message"].as_str().unwrap();
    assert!(message.contains(&format!("redirected the request to {host}")), "{message}");
    assert!(!message.contains("T0KEN"), "{message}");
    let all = format!("{}{}", stderr(&output), std::fs::read_to_string(&out).unwrap());
    assert!(!all.contains(key));
}

/// Finding 1: no reply is read past 10 MiB: an endless 200 is an `http` error, not retried.
#[test]
fn a_reply_over_10_mib_is_refused_unread() {
    let dir = scratch("large");
    let base = support::serve(|mut s, _| {
        let size = 11 * 1024 * 1024;
        let _ = write!(s, "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {size}\r\n\r\n");
        let chunk = vec![b' '; 64 * 1024];
        for _ in 0..size / chunk.len() {
            if s.write_all(&chunk).is_err() {
                break;
            }
        }
    });
    let (output, out) = run_p01(&dir, &["--base-url", &base], &[]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let env: Value = read_json(&out);
    let probe = &env["probes"][0];
    assert_eq!((probe["error"]["kind"].as_str(), probe["attempts"].as_u64()), (Some("http"), Some(1)), "{probe}");
    assert!(probe["error"]["message"].as_str().unwrap().contains("longer than 10 MiB"), "{probe}");
}

/// Finding 4: one proxy per engine. A bare `--base-url` that two keyed engines would share
/// is refused before any request; `--base-url E=URL` sends each engine's key to its own
/// proxy only.
#[test]
fn each_engine_has_its_own_proxy() {
    let dir = scratch("bases");
    let keys = [
        (support::key_var("openai"), "sk-openai-key-0123456789"),
        (support::key_var("gemini"), "gm-gemini-key-0123456789"),
    ];
    let shared = Receiver::start(Reply::Status(200));
    let (output, out) = run_p01(&dir, &["--engine", "openai,gemini", "--base-url", &shared.url], &keys);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    let message = stderr(&output);
    assert_eq!(message.lines().count(), 1, "{message}");
    assert!(message.contains("would send each engine's api key to the same proxy"), "{message}");
    assert!(message.contains("--base-url ENGINE=URL"), "{message}");
    assert!(shared.requests().is_empty() && !out.exists());

    // One keyed engine beside one in proxy mode may share it: one key reaches it.
    let (output, _) = run_p01(&dir, &["--engine", "openai,gemini", "--base-url", &shared.url], &keys[..1]);
    assert_ne!(output.status.code(), Some(2), "{}", stderr(&output));

    let (openai, gemini) = (Receiver::start(Reply::Status(200)), Receiver::start(Reply::Status(200)));
    let own = |engine: &str, r: &Receiver| format!("{engine}={}", r.url);
    let (output, _) = run_p01(
        &dir,
        &["--engine", "openai,gemini", "--base-url", &own("openai", &openai), "--base-url", &own("gemini", &gemini)],
        &keys,
    );
    assert_ne!(output.status.code(), Some(2), "{}", stderr(&output));
    let heads = |r: &Receiver| r.requests().iter().map(|(head, _)| head.clone()).collect::<Vec<_>>().join("\n");
    let (to_openai, to_gemini) = (heads(&openai), heads(&gemini));
    assert!(to_openai.contains(keys[0].1) && !to_openai.contains(keys[1].1), "{to_openai}");
    assert!(to_gemini.contains(keys[1].1) && !to_gemini.contains(keys[0].1), "{to_gemini}");

    let (output, _) = run_p01(&dir, &["--engine", "openai", "--base-url", &own("gemini", &gemini)], &keys);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(stderr(&output).contains("names gemini, which is not in --engine"), "{}", stderr(&output));
}

/// Finding 7: the webhook comes from `GEO_PROBE_WEBHOOK` when no flag is given, an
/// `http://` one gets a warning, and no line shows more of it than its scheme and host.
#[test]
fn the_webhook_is_read_from_its_variable_and_shown_by_its_host_only() {
    let receiver = Receiver::start(Reply::Status(200));
    let file = root().join("fixtures/exports/drop.json");
    let args = ["diff", file.to_str().unwrap(), "--run", "run_drop_b"];
    let output = geo_probe(&args, &[], &[("GEO_PROBE_WEBHOOK", &receiver.url)]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(receiver.requests().len(), 1, "posted to the variable's webhook");
    let text = stderr(&output);
    let host = receiver.url.split("/services").next().unwrap();
    assert!(text.contains(&format!("warning: the webhook at {host}/… uses http://")), "{text}");
    assert!(text.contains(&format!("posted the regressed comparison to the webhook at {host}/…")), "{text}");
    assert!(!text.contains("SECRET-TOKEN") && !text.contains("services"), "{text}");

    // The flag wins over the variable.
    let other = Receiver::start(Reply::Status(200));
    let output =
        geo_probe(&[&args[..], &["--webhook", &other.url]].concat(), &[], &[("GEO_PROBE_WEBHOOK", &receiver.url)]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!((receiver.requests().len(), other.requests().len()), (1, 1));

    // A bad variable is a usage error naming the variable, not the flag.
    let output = geo_probe(&args, &[], &[("GEO_PROBE_WEBHOOK", "hooks.slack.com/x")]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(stderr(&output).contains("GEO_PROBE_WEBHOOK must be"), "{}", stderr(&output));
}

/// Finding 8: text from an export reaches the terminal sanitised: a run id holding a
/// terminal escape, printed by `diff --allow-no-previous`.
#[test]
fn export_text_never_reaches_the_terminal_raw() {
    let dir = scratch("terminal");
    let mut env = read_json(&root().join("fixtures/exports/drop.json"));
    let hostile = "run_\u{1b}[2J\u{1b}]0;pwned\u{7}";
    env["runs"].as_array_mut().unwrap().retain(|r| r["id"] == "run_drop_a");
    env["runs"][0]["id"] = json!(hostile);
    env["probes"].as_array_mut().unwrap().retain(|p| p["runId"] == "run_drop_a");
    for p in env["probes"].as_array_mut().unwrap() {
        p["runId"] = json!(hostile);
    }
    let file = dir.join("hostile.json");
    std::fs::write(&file, serde_json::to_string(&env).unwrap()).unwrap();
    let output = geo_probe(&["diff", file.to_str().unwrap(), "--allow-no-previous", "--format", "markdown"], &[], &[]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = stderr(&output);
    assert!(text.contains("has no previous run yet"), "{text}");
    assert!(!text.chars().any(|c| c.is_control() && c != '\n'), "a control character reached the terminal: {text:?}");
}
