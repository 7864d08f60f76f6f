//! engines.md "Fidelity" end to end: `geo-probe run` and `geo-probe doctor` against the mock,
//! which behaves like the real APIs (reasoning spends the output budget, `pause_turn`,
//! Perplexity's `<think>`, Claude's temperature range).
//!
//! The acceptance: with the default run config, every engine's models that think
//! 8,000 tokens answer completely on the first attempt; the pause_turn, think,
//! empty-then-answer and truncated scenarios give the contract's raw results, `billedUsage`
//! and costs; `doctor` reports each engine truthfully.

mod support;

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Output;

use geo_mock::MockServer;
use serde_json::{json, Value};
use support::{mock, read_json};

const ENGINES: [&str; 5] = ["deepseek", "anthropic", "openai", "gemini", "perplexity"];
/// Prompt p01 of the fixture project (every engine has a recorded answer to it).
const P01: &str = "2026年国内有哪些靠谱的GEO（生成式引擎优化）服务商？";

/// One case of `run` against a mock that answers every engine: a scratch folder `name`
/// holding `in.json` (the fixture project with the prompts `(id, text)`), the run writing
/// `out.json` beside it.
struct Case {
    mock: MockServer,
    dir: PathBuf,
    file: PathBuf,
    out: PathBuf,
}

impl Case {
    fn new(name: &str, prompts: &[(&str, &str)]) -> Case {
        let dir = support::scratch("fidelity", name);
        let file = support::input_with(&dir, prompts);
        Case { mock: mock(&[]), out: dir.join("out.json"), dir, file }
    }

    /// [`run`] of `prompts` with `extra`, writing `out`.
    fn run_into(&self, out: &Path, prompts: &str, extra: &[&str]) -> Output {
        run(&self.file, out, &self.mock.url(), prompts, extra)
    }

    /// [`run`] of `prompts` with `extra`, writing `out.json`.
    fn run(&self, prompts: &str, extra: &[&str]) -> Output {
        self.run_into(&self.out, prompts, extra)
    }
}

/// geo-probe with no engine key in its environment but `keys` (engine, key): every variable
/// of the engine table is removed (`support::geo_probe`), not only those of `ENGINES`.
fn geo_probe<S: AsRef<OsStr>>(args: &[S], keys: &[(&str, &str)]) -> Output {
    support::with_keys(args, keys).output().unwrap()
}

/// `run FILE --project … --prompts P --out OUT --repeats 1 --base-url URL` and `extra`.
fn run(file: &Path, out: &Path, base: &str, prompts: &str, extra: &[&str]) -> Output {
    let mut more = vec!["--repeats", "1", "--base-url", base];
    more.extend_from_slice(extra);
    geo_probe(&support::run_args(file, prompts, out, &more), &[])
}

#[track_caller]
fn ok(o: &Output) -> String {
    let stderr = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(o.status.code(), Some(0), "{stderr}");
    stderr
}

/// The probes of the run of `engine` in `out`, and that run.
fn run_of<'a>(out: &'a Value, engine: &str) -> (&'a Value, Vec<&'a Value>) {
    let runs = out["runs"].as_array().unwrap();
    let run = runs.iter().rev().find(|r| r["config"]["engine"] == engine).unwrap_or_else(|| panic!("{engine} run"));
    let probes = out["probes"].as_array().unwrap().iter().filter(|p| p["runId"] == run["id"]).collect();
    (run, probes)
}

fn requests(m: &MockServer, engine: &str) -> Vec<Value> {
    m.log().into_iter().filter(|e| e["engine"] == engine).collect()
}

fn body(entry: &Value) -> Value {
    serde_json::from_str(entry["body"].as_str().unwrap()).unwrap()
}

fn usage_sum(a: &Value, b: &Value) -> Value {
    let f = |v: &Value, k: &str| v[k].as_u64().unwrap_or(0);
    json!({
        "inputTokens": f(a, "inputTokens") + f(b, "inputTokens"),
        "outputTokens": f(a, "outputTokens") + f(b, "outputTokens"),
    })
}

/// The acceptance: no budget flag, every engine and every offered model, prompts whose
/// models think 8,000 tokens: every probe `success`, complete, in one attempt.
#[test]
fn models_that_think_8000_tokens_answer_in_one_attempt_with_the_default_config() {
    let think = format!("[think:8000] {P01}");
    let c = Case::new(
        "default",
        &[
            ("think1", &think),
            ("think2", "[think:8000] What are the best GEO (generative engine optimization) agencies in 2026?"),
        ],
    );
    let models: [(&str, &[&str]); 5] = [
        ("deepseek", &["deepseek-v4-flash", "deepseek-v4-pro"]),
        ("anthropic", &["claude-sonnet-4-6", "claude-haiku-4-5", "claude-opus-4-6"]),
        ("openai", &["gpt-5-mini", "gpt-5", "gpt-4.1"]),
        ("gemini", &["gemini-2.5-flash", "gemini-2.5-pro", "gemini-2.5-flash-lite"]),
        ("perplexity", &["sonar", "sonar-reasoning-pro", "sonar-pro"]),
    ];
    for round in 0..3 {
        let pick = |ms: &[&'static str]| ms[round.min(ms.len() - 1)];
        let pairs: Vec<String> = models.iter().map(|(e, ms)| format!("{e}={}", pick(ms))).collect();
        let out = c.dir.join(format!("out{round}.json"));
        let model_flag = pairs.join(",");
        let o = c.run_into(&out, "think1,think2", &["--engine", &ENGINES.join(","), "--model", &model_flag]);
        ok(&o);
        let out = read_json(&out);
        for (engine, ms) in models {
            let (run, probes) = run_of(&out, engine);
            assert_eq!(run["status"], "completed", "{engine} {}", pick(ms));
            assert_eq!(probes.len(), 2);
            for p in probes {
                let what = format!("{engine} {} {}", pick(ms), p["promptId"]);
                assert_eq!((p["status"].as_str(), p["attempts"].as_u64()), (Some("success"), Some(1)), "{what}");
                assert_eq!(p["truncated"], false, "{what}");
                assert!(!p["answer"].as_str().unwrap().is_empty(), "{what}");
                assert_eq!(p["billedUsage"], p["usage"], "{what}: one attempt billed");
            }
        }
    }
    // What each engine was asked, as the run's config records it.
    let out = read_json(&c.dir.join("out0.json"));
    let config = |e: &str| run_of(&out, e).0["config"].clone();
    assert_eq!(config("openai")["maxTokens"], 16384);
    assert_eq!(config("openai")["reasoningEffort"], "medium");
    assert_eq!(
        (config("gemini")["maxTokens"].as_u64(), config("gemini")["thinkingBudget"].as_u64()),
        (Some(16384), Some(8192))
    );
    assert_eq!(config("deepseek")["maxTokens"], 16384);
    assert!(config("anthropic").get("reasoningEffort").is_none());
    let openai = body(&requests(&c.mock, "openai")[0]);
    assert_eq!((openai["reasoning"]["effort"].as_str(), openai["store"].as_bool()), (Some("medium"), Some(false)));
    assert!(openai.get("temperature").is_none());
    let gemini = body(&requests(&c.mock, "gemini")[0]);
    assert_eq!(gemini["generationConfig"]["thinkingConfig"]["thinkingBudget"], 8192);
}

/// `--max-tokens 3000` with 8,000 tokens of thinking: no answer fits, every attempt is
/// billed, the probe ends `empty` and `truncated`; with room for part of the answer it is a
/// truncated success. `metrics` counts and prices them.
#[test]
fn a_small_budget_truncates_bills_every_attempt_and_is_reported() {
    let c = Case::new("small", &[("spent", &format!("[think:8000] {P01}")), ("cut", &format!("[think:2800] {P01}"))]);
    let o = c.run("spent,cut", &["--engine", "openai,gemini", "--max-tokens", "3000"]);
    let stderr = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(o.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("thinking budget of 8192"), "gemini's thinking budget fills the output budget: {stderr}");
    let out_json = read_json(&c.out);
    for engine in ["openai", "gemini"] {
        let (_, probes) = run_of(&out_json, engine);
        let spent = probes.iter().find(|p| p["promptId"] == "spent").unwrap();
        assert_eq!((spent["status"].as_str(), spent["attempts"].as_u64()), (Some("empty"), Some(3)), "{engine}");
        assert_eq!(spent["truncated"], true, "{engine}");
        let out_tokens = spent["billedUsage"]["outputTokens"].as_u64().unwrap();
        assert_eq!(out_tokens, 3 * spent["usage"]["outputTokens"].as_u64().unwrap(), "{engine}: three attempts billed");
        assert!(out_tokens >= 3 * 3000 - 3, "{engine}: {out_tokens}");
    }
    let (_, probes) = run_of(&out_json, "openai");
    let cut = probes.iter().find(|p| p["promptId"] == "cut").unwrap();
    assert_eq!(
        (cut["status"].as_str(), cut["attempts"].as_u64(), cut["truncated"].as_bool()),
        (Some("success"), Some(1), Some(true))
    );
    assert_eq!(cut["stopReason"], "max_output_tokens");
    let out = c.out.to_str().unwrap();
    let metrics = geo_probe(&["metrics", out], &[]);
    let metrics: Value = serde_json::from_slice(&metrics.stdout).unwrap();
    let openai = metrics.as_array().unwrap().iter().find(|r| r["engine"] == "openai").unwrap();
    assert_eq!(openai["truncatedCount"], 1);
    assert!(openai["insights"].as_array().unwrap().iter().any(|i| i["kind"] == "truncated_answers"), "{openai}");
    assert!(openai["estimatedCostUsd"].as_f64().unwrap() > 0.0);
    let report = geo_probe(&["report", out, "--run", openai["runId"].as_str().unwrap()], &[]);
    assert!(String::from_utf8_lossy(&report.stdout).contains('$'), "the report prices the run");
}

/// A Claude and a DeepSeek turn paused by `pause_turn` is continued with the paused content
/// (the mock refuses anything else) and becomes one raw result; one paused more often than 4
/// continuations allow is truncated, and retried when it holds no answer.
#[test]
fn pause_turn_is_continued_and_a_turn_paused_too_long_is_truncated() {
    let c = Case::new("pause", &[("once", &format!("[mock:pause] {P01}")), ("long", &format!("[mock:pause=5] {P01}"))]);
    ok(&c.run("once,long", &["--engine", "anthropic,deepseek"]));
    let out = read_json(&c.out);
    for engine in ["anthropic", "deepseek"] {
        let (_, probes) = run_of(&out, engine);
        let once = probes.iter().find(|p| p["promptId"] == "once").unwrap();
        assert_eq!(
            (once["status"].as_str(), once["attempts"].as_u64(), once["continuations"].as_u64()),
            (Some("success"), Some(1), Some(1)),
            "{engine}"
        );
        assert_eq!(once["truncated"], false);
        assert!(once["queries"].as_array().unwrap().len() >= 2, "{engine}: the queries of both replies");
        assert_eq!(once["stopReason"], "end_turn");
        let long = probes.iter().find(|p| p["promptId"] == "long").unwrap();
        assert_eq!(long["continuations"], 4, "{engine}");
        assert_eq!(long["truncated"], true, "{engine}");
        let billed = long["billedUsage"]["inputTokens"].as_u64().unwrap();
        let one = long["usage"]["inputTokens"].as_u64().unwrap();
        if engine == "anthropic" {
            // Claude's first reply opens with a sentence: the cut-short turn holds text.
            assert_eq!((long["status"].as_str(), long["attempts"].as_u64()), (Some("success"), Some(1)));
            assert_eq!(billed, one, "{engine}: 5 replies billed");
        } else {
            // DeepSeek's paused replies hold thinking and searches only: empty, retried.
            assert_eq!((long["status"].as_str(), long["attempts"].as_u64()), (Some("empty"), Some(3)));
            assert_eq!(billed, 3 * one, "{engine}: 15 replies billed");
        }
    }
    // The continuation carried the paused content, as one assistant message.
    let sent: Vec<Value> = requests(&c.mock, "anthropic")
        .iter()
        .map(body)
        .filter(|b| b["messages"].as_array().unwrap().len() == 2)
        .collect();
    assert!(!sent.is_empty());
    assert!(sent.iter().all(|b| b["messages"][1]["role"] == "assistant"));
    assert!(requests(&c.mock, "anthropic").iter().all(|e| e["outcome"] != "temperature"));
}

/// An empty answer then an answer: both billed, the answer's usage kept; Perplexity's
/// reasoning model's `<think>` is not the answer and its `[n]` markers are the citations;
/// its stated cost is the probe's cost.
#[test]
fn empty_then_answer_and_perplexitys_think() {
    let c = Case::new("think", &[("retry", &format!("[mock:empty,ok] {P01}"))]);
    ok(&c.run("retry,p01", &["--engine", "perplexity", "--model", "sonar-reasoning-pro"]));
    let out = read_json(&c.out);
    let (_, probes) = run_of(&out, "perplexity");
    let retry = probes.iter().find(|p| p["promptId"] == "retry").unwrap();
    assert_eq!((retry["status"].as_str(), retry["attempts"].as_u64()), (Some("success"), Some(2)));
    let empty_fixture: Value = serde_json::from_str(
        &std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/engines/perplexity/p12_empty_content.json"),
        )
        .unwrap(),
    )
    .unwrap();
    let empty_usage = json!({"inputTokens": empty_fixture["usage"]["prompt_tokens"], "outputTokens": empty_fixture["usage"]["completion_tokens"]});
    let billed = &retry["billedUsage"];
    assert_eq!(
        json!({"inputTokens": billed["inputTokens"], "outputTokens": billed["outputTokens"]}),
        usage_sum(&retry["usage"], &empty_usage)
    );
    let p01 = probes.iter().find(|p| p["promptId"] == "p01").unwrap();
    let raw = p01["rawAnswer"].as_str().unwrap();
    assert!(!raw.contains("<think>") && !raw.contains("think.example"), "{raw}");
    assert!(!p01["answerLinks"].to_string().contains("think.example"));
    let cited: Vec<&str> = p01["rawCitations"].as_array().unwrap().iter().map(|c| c["url"].as_str().unwrap()).collect();
    assert_eq!(cited.len(), 4, "the results [1]..[4] the answer names, not the fifth: {cited:?}");
    assert_eq!(p01["costUsd"].as_f64(), Some(0.007222), "the engine's stated cost");
    assert_eq!(p01["usage"]["searchContextSize"], "low");
}

/// A temperature outside an engine's range refuses the whole run before any request;
/// engines that send none get one warning; an effort that does not apply gets one too.
#[test]
fn temperature_and_effort_are_checked_before_the_run() {
    let c = Case::new("temperature", &[]);
    let o = c.run("p01", &["--engine", "openai,anthropic", "--temperature", "1.5"]);
    assert_eq!(o.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&o.stderr);
    let errors: Vec<&str> = stderr.lines().filter(|l| l.starts_with("error:")).collect();
    assert_eq!(errors.len(), 1, "{stderr}");
    assert!(errors[0].contains("anthropic") && errors[0].contains("0 to 1"), "{stderr}");
    assert!(!c.out.exists(), "no OUT");
    assert!(c.mock.log().is_empty(), "no request");
    let o = c.run("p01", &["--engine", "openai,anthropic", "--temperature", "0.4", "--reasoning-effort", "high"]);
    let stderr = ok(&o);
    let warnings: Vec<&str> = stderr.lines().filter(|l| l.starts_with("warning:")).collect();
    // The third: OpenAI without a location searches as a user in the United States (engines.md).
    assert_eq!(warnings.len(), 3, "{stderr}");
    assert!(warnings.iter().any(|w| w.contains("United States")), "{stderr}");
    assert!(warnings.iter().any(|w| w.contains("chatgpt") || w.contains("ChatGPT")), "{stderr}");
    assert!(warnings.iter().any(|w| w.contains("Claude") && w.contains("effort")), "{stderr}");
    let claude = body(&requests(&c.mock, "anthropic")[0]);
    assert_eq!(claude["temperature"], 0.4);
    let openai = body(&requests(&c.mock, "openai")[0]);
    assert_eq!(
        (openai["reasoning"]["effort"].as_str(), openai["max_output_tokens"].as_u64()),
        (Some("high"), Some(32768))
    );
    assert!(openai.get("temperature").is_none());
    let out = read_json(&c.out);
    assert_eq!(run_of(&out, "openai").0["config"]["reasoningEffort"], "high");
    for bad in [&["--max-tokens", "0"][..], &["--reasoning-effort", "extreme"], &["--temperature", "warm"]] {
        let o = c.run_into(&c.dir.join("bad.json"), "p01", bad);
        assert_eq!(o.status.code(), Some(2), "{bad:?}");
    }
}

/// `--base-url E=URL` for each of `engines`, all to `url` (the mock answers every engine).
fn own_bases(url: &str, engines: &[&str]) -> Vec<String> {
    engines.iter().flat_map(|e| ["--base-url".to_string(), format!("{e}={url}")]).collect()
}

/// `fixed` then `more`, as the arguments of one command.
fn with<'a>(fixed: &[&'a str], more: &'a [String]) -> Vec<&'a str> {
    fixed.iter().copied().chain(more.iter().map(String::as_str)).collect()
}

/// `doctor`: each engine's check against the mock, a rejected key exits 1 with the fix, the
/// JSON has the contract's fields, and nothing to check exits 2.
#[test]
fn doctor_reports_each_engine_truthfully() {
    let m = mock(&["--require-key", "good-key"]);
    let keys: Vec<(&str, &str)> =
        ENGINES.iter().map(|e| (*e, if *e == "anthropic" { "wrong-key" } else { "good-key" })).collect();
    // One proxy would receive every key: refused before any request (security review II, finding 4).
    let o = geo_probe(&["doctor", "--base-url", &m.url(), "--json"], &keys);
    assert_eq!(o.status.code(), Some(2), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--base-url ENGINE=URL"));
    assert!(m.log().is_empty(), "no request before the refusal");
    let bases = own_bases(&m.url(), &ENGINES);
    let o = geo_probe(&with(&["doctor", "--json"], &bases), &keys);
    assert_eq!(o.status.code(), Some(1), "{}", String::from_utf8_lossy(&o.stderr));
    let report: Value = serde_json::from_slice(&o.stdout).unwrap();
    let checks = report["engines"].as_array().unwrap();
    assert_eq!(checks.len(), 5);
    for c in checks {
        let engine = c["engine"].as_str().unwrap();
        for key in ["ok", "keyAccepted", "searched", "sourceCount", "citations", "model", "latencyMs", "costUsd"] {
            assert!(c.get(key).is_some(), "{engine}: {key}");
        }
        if engine == "anthropic" {
            assert_eq!((c["ok"].as_bool(), c["keyAccepted"].as_bool()), (Some(false), Some(false)));
            assert!(c["error"].as_str().unwrap().contains(support::key_var("anthropic")), "{c}");
        } else {
            assert_eq!((c["ok"].as_bool(), c["searched"].as_bool()), (Some(true), Some(true)), "{c}");
            assert!(c["sourceCount"].as_u64().unwrap() > 0);
            assert!(c["costUsd"].as_f64().unwrap() > 0.0, "{c}");
        }
        if engine == "deepseek" {
            assert_eq!(c["citations"], Value::Null, "deepseek offers no citations");
        }
    }
    // Every check asked one question that needs a search.
    assert!(m
        .log()
        .iter()
        .filter(|e| e.get("engine").is_some())
        .all(|e| e["prompt"].as_str().unwrap().contains("搜索")));
    // A fresh mock: its first answer to an unknown prompt is each engine's p01 (a search).
    let fresh = mock(&["--require-key", "good-key"]);
    let bases = own_bases(&fresh.url(), &["openai", "gemini"]);
    let o = geo_probe(
        &with(&["doctor", "--engine", "openai,gemini"], &bases),
        &[("openai", "good-key"), ("gemini", "good-key")],
    );
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8_lossy(&o.stdout);
    assert_eq!(text.lines().count(), 2, "{text}");
    assert!(text.lines().all(|l| l.contains(" ok ") && l.contains("searched")), "{text}");
    let o = geo_probe(&["doctor"], &[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).starts_with("error: no engine can be checked"));
    // A search that returns no sources is not ok, and says what to do.
    let broken = mock(&["--fault", "search_error:1"]);
    let o = geo_probe(&["doctor", "--engine", "gemini", "--base-url", &broken.url()], &[]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stdout).contains("no sources"), "{}", String::from_utf8_lossy(&o.stdout));
}
