//! `geo-probe run`, `resume` and `retry-failed` against the mock DeepSeek server, over real
//! sockets: the seed §3.4 retry table, proxy mode and the key path, kill + resume, retrying
//! failures, Ctrl-C, bad input, and a seeded fault matrix with no lost or duplicated probe.

mod support;

use std::collections::{BTreeMap, BTreeSet};
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use geo_mock::MockServer;
use serde_json::{json, Value};

use support::{input_with, mock, read_json, run_args, PROJECT};

/// The fixture project, relative to the crate (the tests' working folder).
const FIXTURE: &str = "../../fixtures/project.json";

/// A fresh scratch directory for one test.
fn scratch(name: &str) -> PathBuf {
    support::scratch("it", name)
}

/// `geo-probe ARGS` with `key` as DeepSeek's key and no other engine's.
fn geo_probe<S: AsRef<OsStr>>(args: &[S], key: Option<&str>) -> Output {
    support::with_deepseek_key(args, key).output().unwrap()
}

#[track_caller]
fn exit_0(o: &Output) {
    assert_eq!(o.status.code(), Some(0), "{}", support::stderr(o));
}

/// The single run of OUT that FILE did not have, and its probes by id.
fn new_run(out: &Value) -> (Value, BTreeMap<String, Value>) {
    let runs = out["runs"].as_array().unwrap();
    let run = runs.last().unwrap().clone();
    let probes = out["probes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["runId"] == run["id"])
        .map(|p| (p["id"].as_str().unwrap().to_string(), p.clone()))
        .collect();
    (run, probes)
}

fn probe<'a>(probes: &'a BTreeMap<String, Value>, prompt: &str) -> &'a Value {
    probes.values().find(|p| p["promptId"] == prompt).unwrap_or_else(|| panic!("no probe for {prompt}"))
}

fn messages_requests(m: &MockServer) -> Vec<Value> {
    m.log().into_iter().filter(|e| e["path"].as_str().is_some_and(|p| p.ends_with("/anthropic/v1/messages"))).collect()
}

#[track_caller]
fn check_probe(
    probes: &BTreeMap<String, Value>,
    prompt: &str,
    status: &str,
    kind: Option<&str>,
    http: Option<u64>,
    attempts: u64,
) {
    let p = probe(probes, prompt);
    assert_eq!(p["status"], status, "{prompt}: {p:#}");
    assert_eq!(p["error"]["kind"].as_str(), kind, "{prompt}");
    assert_eq!(p["error"]["httpStatus"].as_u64(), http, "{prompt}");
    assert_eq!(p["attempts"].as_u64(), Some(attempts), "{prompt}");
}

#[test]
fn retry_table_against_the_mock() {
    let dir = scratch("retry");
    let file = input_with(
        &dir,
        &[
            ("a401", "[mock:401,ok] 有哪些AI搜索优化公司值得推荐？"),
            ("a402", "[mock:402,ok] q402"),
            ("a403", "[mock:403,ok] q403"),
            ("r429", "[mock:429,ok] q429"),
            ("r500", "[mock:500,ok] q500"),
            ("r503", "[mock:503,503,ok] q503"),
            ("r408", "[mock:408,ok] q408"),
            ("rjson", "[mock:json,ok] qjson"),
            ("rempty", "[mock:empty,ok] qempty"),
            ("empty", "[mock:empty] always empty"),
            ("preamble", "[mock:preamble] only a preamble"),
            ("search", "[mock:search_error] GEO监测工具哪个好用？"),
            ("hang", "[mock:hang] never answers"),
        ],
    );
    let out = dir.join("out.json");
    let m = mock(&["--hang-secs", "3"]);
    let ids = "a401,a402,a403,r429,r500,r503,r408,rjson,rempty,empty,preamble,search,hang";
    let o = geo_probe(
        &run_args(&file, ids, &out, &["--repeats", "1", "--timeout-secs", "1", "--base-url", &m.url()]),
        None,
    );
    exit_0(&o);
    let (run, probes) = new_run(&read_json(&out));
    assert_eq!(run["status"], "partial");
    assert_eq!(probes.len(), 13);
    // 401/402/403: not retried.
    check_probe(&probes, "a401", "error", Some("auth"), Some(401), 1);
    check_probe(&probes, "a402", "error", Some("balance"), Some(402), 1);
    check_probe(&probes, "a403", "error", Some("forbidden"), Some(403), 1);
    // 408/429/5xx/invalid JSON/empty: retried, then a success.
    check_probe(&probes, "r429", "success", None, None, 2);
    check_probe(&probes, "r500", "success", None, None, 2);
    check_probe(&probes, "r503", "success", None, None, 3);
    check_probe(&probes, "r408", "success", None, None, 2);
    check_probe(&probes, "rjson", "success", None, None, 2);
    check_probe(&probes, "rempty", "success", None, None, 2);
    // Empty (and preamble-only, empty once cleaned) three times → empty.
    check_probe(&probes, "empty", "empty", Some("empty"), None, 3);
    check_probe(&probes, "preamble", "empty", Some("empty"), None, 3);
    // A search error object does not fail the probe; the query records it.
    check_probe(&probes, "search", "success", None, None, 1);
    let queries = probe(&probes, "search")["queries"].as_array().unwrap().clone();
    assert!(queries.iter().any(|q| q["error"].is_string()), "{queries:?}");
    // A hang past the 1 s client timeout, three times → timeout.
    check_probe(&probes, "hang", "error", Some("timeout"), None, 3);
    // Every attempt reached the mock exactly once.
    let attempts: u64 = probes.values().map(|p| p["attempts"].as_u64().unwrap()).sum();
    assert_eq!(messages_requests(&m).len() as u64, attempts);
}

#[test]
fn proxy_mode_sends_no_key() {
    let dir = scratch("proxy");
    let out = dir.join("out.json");
    let m = mock(&["--require-key", "sk-never-sent", "--proxy"]);
    let o = geo_probe(&run_args(FIXTURE, "p01,p09", &out, &["--repeats", "1", "--base-url", &m.url()]), None);
    exit_0(&o);
    let log = messages_requests(&m);
    assert_eq!(log.len(), 2);
    for e in &log {
        assert!(e["headers"].get("x-api-key").is_none(), "{e}");
        assert_eq!(e["headers"]["anthropic-version"], "2023-06-01");
    }
    assert_eq!(new_run(&read_json(&out)).0["status"], "completed");
}

#[test]
fn key_path_request_shape_and_no_key_in_out() {
    let dir = scratch("key");
    let key = "sk-test-SECRET-7f3a91";
    let out = dir.join("out.json");
    let m = mock(&["--require-key", key]);
    let base = format!("{}/", m.url());
    let more = ["--repeats", "1", "--max-searches", "4", "--model", "deepseek-v4-pro", "--base-url", &base];
    let o = geo_probe(&run_args(FIXTURE, "p03", &out, &more), Some(key));
    exit_0(&o);
    let log = messages_requests(&m);
    assert_eq!(log.len(), 1);
    let e = &log[0];
    assert_eq!(e["method"], "POST");
    assert_eq!(e["path"], "/anthropic/v1/messages");
    // The mock logs no credential; `keyOk` says the header carried exactly the key.
    assert_eq!(e["headers"]["x-api-key"], "[redacted]");
    assert_eq!(e["keyOk"], true);
    assert_eq!(e["headers"]["anthropic-version"], "2023-06-01");
    assert_eq!(e["headers"]["content-type"], "application/json");
    // Seed §4.2: exactly these keys, in this order, with these values.
    let raw = e["body"].as_str().unwrap();
    let keys = ["\"model\"", "\"max_tokens\"", "\"system\"", "\"tools\"", "\"messages\"", "\"temperature\""];
    let positions: Vec<usize> =
        keys.iter().map(|k| raw.find(k).unwrap_or_else(|| panic!("{k} missing in {raw}"))).collect();
    assert!(positions.windows(2).all(|w| w[0] < w[1]), "key order of {raw}");
    let mut body: Value = serde_json::from_str(raw).unwrap();
    assert_eq!(body["temperature"].as_f64(), Some(1.0));
    body.as_object_mut().unwrap().remove("temperature");
    assert_eq!(
        body,
        json!({
            "model": "deepseek-v4-pro",
            // The seed's 3,000 left DeepSeek's thinking no room (engines.md "Fidelity", ADR 0016).
            "max_tokens": 16384,
            "system": "你是一个乐于助人的助手。请直接回答用户问题，不要描述你的搜索或思考过程。",
            "tools": [{ "type": "web_search_20250305", "name": "web_search", "max_uses": 4 }],
            "messages": [{ "role": "user", "content": [{ "type": "text", "text": "GEO监测工具哪个好用？" }] }],
        })
    );
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(!text.contains("SECRET"), "the key leaked into OUT");
    assert!(!String::from_utf8_lossy(&o.stderr).contains("SECRET"));
    let (run, probes) = new_run(&read_json(&out));
    assert_eq!(run["config"]["model"], "deepseek-v4-pro");
    assert_eq!(probe(&probes, "p03")["model"], "deepseek-v4-pro");

    // A wrong key: every probe fails with auth, the run fails (exit 1), the key stays out of OUT.
    let bad = "sk-test-WRONGKEY-0000";
    let out2 = dir.join("out2.json");
    let o = geo_probe(&run_args(FIXTURE, "p03", &out2, &["--repeats", "2", "--base-url", &m.url()]), Some(bad));
    assert_eq!(o.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(stderr.lines().last().unwrap().starts_with("error: run "), "{stderr}");
    let (run, probes) = new_run(&read_json(&out2));
    assert_eq!(run["status"], "failed");
    assert!(probes.values().all(|p| p["error"]["kind"] == "auth" && p["attempts"] == 1));
    assert!(!std::fs::read_to_string(&out2).unwrap().contains("WRONGKEY"));
    assert!(!stderr.contains("WRONGKEY"));
}

#[test]
fn bad_input_exits_2_without_out() {
    let dir = scratch("bad");
    let not_json = dir.join("not.json");
    std::fs::write(&not_json, "{ nope").unwrap();
    let mut no_prompts = read_json(Path::new(FIXTURE));
    no_prompts["prompts"] = json!([]);
    let empty = dir.join("empty.json");
    std::fs::write(&empty, no_prompts.to_string()).unwrap();
    let good = FIXTURE;
    let out = dir.join("out.json");
    let o = out.to_str().unwrap();
    let base = "http://127.0.0.1:9";
    let missing = dir.join("missing.json");
    let deepseek_not_set = format!("{} is not set", support::key_var("deepseek"));
    let cases: Vec<(Vec<&str>, Option<&str>, &str)> = vec![
        (
            vec!["run", not_json.to_str().unwrap(), "--project", PROJECT, "--out", o, "--base-url", base],
            None,
            "not a valid GEO Probe export",
        ),
        (
            vec!["run", missing.to_str().unwrap(), "--project", PROJECT, "--out", o, "--base-url", base],
            None,
            "cannot read",
        ),
        (
            vec!["run", good, "--project", "proj_nope", "--out", o, "--base-url", base],
            None,
            "project proj_nope is not in",
        ),
        (
            vec!["run", good, "--project", PROJECT, "--prompts", "p01,p99", "--out", o, "--base-url", base],
            None,
            "prompt p99",
        ),
        (
            vec!["run", empty.to_str().unwrap(), "--project", PROJECT, "--out", o, "--base-url", base],
            None,
            "select at least one prompt",
        ),
        (vec!["run", good, "--project", PROJECT, "--out", o], None, &deepseek_not_set),
        (vec!["run", good, "--project", PROJECT, "--out", o, "--base-url", base, "--repeats", "0"], None, "repeats"),
        (
            vec!["run", good, "--project", PROJECT, "--out", o, "--base-url", base, "--timeout-secs", "x"],
            None,
            "whole number",
        ),
        (vec!["run", good, "--project", PROJECT, "--out", o, "--base-url", "ftp://x"], None, "http://"),
        (vec!["run", good, "--out", o, "--base-url", base], None, "--project"),
        (vec!["run", good, "--project", PROJECT, "--base-url", base], None, "--out"),
        (vec!["run", good, "--project", PROJECT, "--out", o, "--bogus", "1"], Some("k"), "unknown flag --bogus"),
        (vec!["resume", good, "--run", "run_nope", "--out", o, "--base-url", base], None, "run run_nope is not in"),
        (vec!["retry-failed", good, "--run", "run_nope", "--out", o], Some("k"), "run run_nope is not in"),
        (vec!["frobnicate"], None, "unknown command"),
    ];
    for (args, key, needle) in cases {
        let r = geo_probe(&args, key);
        let stderr = String::from_utf8_lossy(&r.stderr);
        assert_eq!(r.status.code(), Some(2), "{args:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
        assert!(stderr.starts_with("error: ") && stderr.contains(needle), "{args:?}: {stderr}");
        assert!(!out.exists(), "{args:?} wrote OUT");
    }
}

fn probe_count(path: &Path, run_id: Option<&str>) -> usize {
    let Ok(text) = std::fs::read_to_string(path) else { return 0 };
    let Ok(v) = serde_json::from_str::<Value>(&text) else { return 0 };
    let Some(id) =
        run_id.map(str::to_string).or_else(|| v["runs"].as_array()?.last()?["id"].as_str().map(str::to_string))
    else {
        return 0;
    };
    v["probes"].as_array().map_or(0, |ps| ps.iter().filter(|p| p["runId"] == id.as_str()).count())
}

fn wait_for_probes(path: &Path, at_least: usize, deadline: Duration) {
    let start = Instant::now();
    while probe_count(path, None) < at_least {
        assert!(start.elapsed() < deadline, "OUT never reached {at_least} probes");
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// `run` of p01–p04 (three repeats each) to `out` against `m`, started in the background
/// with its standard error to `stderr`.
fn spawn_four(out: &Path, m: &MockServer, stderr: Stdio) -> Child {
    let args = run_args(FIXTURE, "p01,p02,p03,p04", out, &["--base-url", &m.url()]);
    support::with_deepseek_key(&args, None).stderr(stderr).spawn().unwrap()
}

#[test]
fn kill_then_resume_completes_without_duplicates() {
    let dir = scratch("kill");
    let out = dir.join("out.json");
    let m = mock(&["--latency-ms", "250"]);
    let mut child = spawn_four(&out, &m, Stdio::null());
    wait_for_probes(&out, 2, Duration::from_secs(20));
    child.kill().unwrap();
    child.wait().unwrap();

    let killed = read_json(&out);
    let (run, before) = new_run(&killed);
    assert_eq!(run["status"], "running");
    assert!(run["finishedAt"].is_null());
    assert!(before.len() >= 2 && before.len() < 12, "{} probes before the kill", before.len());
    assert!(before.values().all(|p| ["success", "error", "empty"].contains(&p["status"].as_str().unwrap())));
    let run_id = run["id"].as_str().unwrap().to_string();
    let run_id = run_id.as_str();

    let out2 = dir.join("out2.json");
    let o = geo_probe(
        &["resume", out.to_str().unwrap(), "--run", run_id, "--out", out2.to_str().unwrap(), "--base-url", &m.url()],
        None,
    );
    exit_0(&o);
    let resumed = read_json(&out2);
    assert_eq!(resumed["runs"].as_array().unwrap().len(), 1);
    let (run, after) = new_run(&resumed);
    assert_eq!(run["status"], "completed");
    assert!(run["finishedAt"].is_string());
    let all_ids: Vec<&str> = resumed["probes"].as_array().unwrap().iter().map(|p| p["id"].as_str().unwrap()).collect();
    let planned: BTreeSet<String> =
        ["p01", "p02", "p03", "p04"].iter().flat_map(|p| (0..3).map(move |r| format!("{run_id}__{p}__{r}"))).collect();
    assert_eq!(all_ids.len(), 12, "duplicates or losses: {all_ids:?}");
    assert_eq!(all_ids.iter().map(|s| s.to_string()).collect::<BTreeSet<_>>(), planned);
    for (id, p) in &before {
        if p["status"] == "success" {
            assert_eq!(&after[id], p, "success {id} was touched");
        }
    }
}

#[test]
fn retry_failed_repairs_failures_under_the_same_ids() {
    let dir = scratch("retryfailed");
    let file = input_with(&dir, &[("flaky", "[mock:500,500,500,ok] 有哪些AI搜索优化公司值得推荐？")]);
    let out = dir.join("out.json");
    let m = mock(&[]);
    let o = geo_probe(&run_args(&file, "p01,flaky", &out, &["--repeats", "1", "--base-url", &m.url()]), None);
    exit_0(&o);
    let (run, before) = new_run(&read_json(&out));
    assert_eq!(run["status"], "partial");
    check_probe(&before, "flaky", "error", Some("server"), Some(500), 3);
    let run_id = run["id"].as_str().unwrap();

    let path = out.to_str().unwrap();
    let o = geo_probe(&["retry-failed", path, "--run", run_id, "--out", path, "--base-url", &m.url()], None);
    exit_0(&o);
    let (run, after) = new_run(&read_json(&out));
    assert_eq!(run["status"], "completed");
    assert_eq!(after.len(), 2);
    check_probe(&after, "flaky", "success", None, None, 1);
    assert_eq!(probe(&after, "flaky")["id"], probe(&before, "flaky")["id"]);
    assert_eq!(probe(&after, "p01"), probe(&before, "p01"));
}

#[test]
fn ctrl_c_cancels_and_keeps_out_consistent() {
    let dir = scratch("sigint");
    let out = dir.join("out.json");
    let m = mock(&["--latency-ms", "300"]);
    let child = spawn_four(&out, &m, Stdio::piped());
    wait_for_probes(&out, 1, Duration::from_secs(20));
    let sent = Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    assert!(sent.success());
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(130), "{}", String::from_utf8_lossy(&o.stderr));
    let (run, probes) = new_run(&read_json(&out));
    assert_eq!(run["status"], "cancelled");
    assert!(run["finishedAt"].is_string());
    assert!(!probes.is_empty() && probes.len() < 12);
    assert!(probes.values().all(|p| p["status"] != "cancelled"));
    assert!(String::from_utf8_lossy(&o.stderr).contains("geo-probe resume"));
}

#[test]
fn fault_matrix_loses_and_duplicates_nothing() {
    let dir = scratch("matrix");
    let out = dir.join("out.json");
    let faults = ["429:0.15", "500:0.10", "503:0.05", "408:0.03", "invalid_json:0.05", "empty:0.05"];
    let mut flags = vec!["--seed", "7"];
    for f in &faults {
        flags.extend(["--fault", f]);
    }
    let m = mock(&flags);
    let prompts = ["p01", "p02", "p03", "p04", "p05", "p06", "p07", "p08", "p09", "p10", "p11"];
    let o = geo_probe(&run_args(FIXTURE, &prompts.join(","), &out, &["--base-url", &m.url()]), None);
    exit_0(&o);
    let env = read_json(&out);
    let (run, probes) = new_run(&env);
    let run_id = run["id"].as_str().unwrap();
    let planned: BTreeSet<String> =
        prompts.iter().flat_map(|p| (0..3).map(move |r| format!("{run_id}__{p}__{r}"))).collect();
    let written: Vec<&str> = env["probes"].as_array().unwrap().iter().map(|p| p["id"].as_str().unwrap()).collect();
    assert_eq!(written.len(), planned.len(), "lost or duplicated probes");
    assert_eq!(written.iter().map(|s| s.to_string()).collect::<BTreeSet<_>>(), planned);
    assert_eq!(run["plannedProbeCount"], 33);

    let log = messages_requests(&m);
    let attempts: u64 = probes.values().map(|p| p["attempts"].as_u64().unwrap()).sum();
    assert_eq!(log.len() as u64, attempts, "every request belongs to exactly one recorded attempt");
    let mut by_outcome: BTreeMap<String, usize> = BTreeMap::new();
    for e in &log {
        *by_outcome.entry(e["outcome"].as_str().unwrap().to_string()).or_default() += 1;
    }
    let mut by_status: BTreeMap<String, usize> = BTreeMap::new();
    for p in probes.values() {
        *by_status.entry(p["status"].as_str().unwrap().to_string()).or_default() += 1;
    }
    eprintln!(
        "fault matrix: {} probes, {} requests, outcomes {by_outcome:?}, probe statuses {by_status:?}, run {}",
        probes.len(),
        log.len(),
        run["status"]
    );
    assert!(by_outcome.len() >= 4, "the seed should produce several kinds of fault: {by_outcome:?}");
    // Deterministic: the same seed gives the same outcomes per prompt and attempt.
    let key = |e: &Value| {
        (
            e["prompt"].as_str().unwrap().to_string(),
            e["attempt"].as_u64().unwrap(),
            e["outcome"].as_str().unwrap().to_string(),
        )
    };
    let schedule =
        geo_mock::MockConfig::from_args(&flags.iter().map(|s| s.to_string()).collect::<Vec<_>>()).unwrap().schedule;
    for e in &log {
        let (prompt_text, attempt, outcome) = key(e);
        let asked = e["body"].as_str().map(|b| serde_json::from_str::<Value>(b).unwrap()).unwrap();
        let full = asked["messages"][0]["content"][0]["text"].as_str().unwrap().to_string();
        assert_eq!(prompt_text, full);
        assert_eq!(schedule.decide(&[], &full, attempt as u32).to_string(), outcome);
    }
}
