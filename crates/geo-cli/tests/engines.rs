//! `geo-probe run --engine …`, `resume` and `retry-failed` against the mock for every engine,
//! over real sockets: each engine's request shape (path, auth header, body), its answers
//! parsed into the raw result with citations, its retry rules, proxy mode, the key kept out of
//! OUT and standard error, several engines in one command (one run each, one `groupId`) and
//! `geo-probe engines` over the result.

mod support;

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Output;

use geo_mock::MockServer;
use serde_json::Value;
use support::{input_with, mock, read_json, PROJECT};

const ENGINES: [&str; 5] = ["deepseek", "anthropic", "openai", "gemini", "perplexity"];
/// The Chinese engines (engines.md, "Chinese engines").
const CN_ENGINES: [&str; 4] = ["qwen", "doubao", "ernie", "hunyuan"];

fn scratch(name: &str) -> PathBuf {
    support::scratch("engines", name)
}

/// Runs geo-probe with exactly the key variables in `keys` set (every other engine's removed).
fn geo_probe<S: AsRef<OsStr>>(args: &[S], keys: &[(&str, &str)]) -> Output {
    support::with_keys(args, keys).output().unwrap()
}

/// The last run of `out` and its probes by prompt.
fn last_run(out: &Value) -> (&Value, BTreeMap<String, &Value>) {
    let run = out["runs"].as_array().unwrap().last().unwrap();
    (run, probes_of(out, run["id"].as_str().unwrap()))
}

fn probes_of<'a>(out: &'a Value, run_id: &str) -> BTreeMap<String, &'a Value> {
    let probes = out["probes"].as_array().unwrap();
    probes.iter().filter(|p| p["runId"] == run_id).map(|p| (p["promptId"].as_str().unwrap().to_string(), p)).collect()
}

fn engine_requests(m: &MockServer, engine: &str) -> Vec<Value> {
    m.log().into_iter().filter(|e| e["engine"] == engine).collect()
}

/// `geo-probe run FILE --project … --prompts P --out OUT --engine E --repeats N --base-url URL`
/// followed by `extra`.
fn run_args(
    file: impl AsRef<Path>,
    engine: &str,
    prompts: &str,
    repeats: &str,
    out: &Path,
    base: &str,
    extra: &[&str],
) -> Vec<String> {
    let mut more = vec!["--engine", engine, "--repeats", repeats, "--base-url", base];
    more.extend_from_slice(extra);
    support::run_args(file, prompts, out, &more)
}

#[track_caller]
fn ok(o: &Output) {
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
}

/// What `geo-probe COMMAND FILE` prints (exit 0), as JSON.
fn json_of(command: &str, file: &Path) -> Value {
    let o = geo_probe(&[command, file.to_str().unwrap()], &[]);
    ok(&o);
    serde_json::from_slice(&o.stdout).unwrap()
}

/// The documented body keys of each engine's probe request, in order.
fn body_keys(engine: &str) -> &'static [&'static str] {
    match engine {
        "deepseek" | "anthropic" => &["model", "max_tokens", "system", "tools", "messages", "temperature"],
        "openai" => &[
            "model",
            "instructions",
            "input",
            "tools",
            "include",
            "max_output_tokens",
            "max_tool_calls",
            "reasoning",
            "store",
        ],
        "gemini" => &["systemInstruction", "contents", "tools", "generationConfig"],
        "perplexity" => &["model", "messages", "max_tokens"],
        "qwen" => &["model", "input", "parameters"],
        "doubao" => {
            &["model", "input", "tools", "max_tool_calls", "max_output_tokens", "temperature", "thinking", "stream"]
        }
        "ernie" => &["model", "messages", "temperature", "web_search", "max_completion_tokens", "stream"],
        "hunyuan" => &[
            "model",
            "messages",
            "temperature",
            "enable_enhancement",
            "force_search_enhancement",
            "search_info",
            "citation",
            "max_tokens",
            "stream",
        ],
        _ => unreachable!(),
    }
}

/// Each engine's request path at the mock and the header that carries its key.
const ROUTES: [(&str, &str, &str); 9] = [
    ("deepseek", "/anthropic/v1/messages", "x-api-key"),
    ("anthropic", "/v1/messages", "x-api-key"),
    ("openai", "/v1/responses", "authorization"),
    ("gemini", "/v1beta/models/gemini-2.5-flash:generateContent", "x-goog-api-key"),
    ("perplexity", "/chat/completions", "authorization"),
    ("qwen", "/api/v1/services/aigc/text-generation/generation", "authorization"),
    ("doubao", "/api/v3/responses", "authorization"),
    ("ernie", "/v2/chat/completions", "authorization"),
    ("hunyuan", "/v1/chat/completions", "authorization"),
];

#[test]
fn every_engine_request_shape_parse_and_the_key_kept_out() {
    let key = "sk-engine-SECRET-91c3";
    let m = mock(&["--require-key", key]);
    for engine in ENGINES.into_iter().chain(CN_ENGINES) {
        let dir = scratch(&format!("shape-{engine}"));
        let out = dir.join("out.json");
        let o = geo_probe(
            &run_args("../../fixtures/project.json", engine, "p01,p09", "1", &out, &m.url(), &["--max-searches", "4"]),
            &[(engine, key)],
        );
        ok(&o);
        let requests = engine_requests(&m, engine);
        assert_eq!(requests.len(), 2, "{engine}");
        for e in &requests {
            let path = e["path"].as_str().unwrap();
            let &(_, want_path, header) = ROUTES.iter().find(|(e, ..)| *e == engine).unwrap();
            assert_eq!(path, want_path, "{engine}");
            if engine == "anthropic" {
                assert_eq!(e["headers"]["anthropic-version"], "2023-06-01");
                assert!(e["headers"].get("anthropic-dangerous-direct-browser-access").is_none(), "not from a terminal");
            }
            // The mock logs a credential as [redacted] and says whether it matched
            // --require-key: the engine's own header carried exactly the key (`Bearer KEY` for
            // authorization).
            assert_eq!(e["headers"][header], "[redacted]", "{engine}");
            assert_eq!(e["keyOk"], true, "{engine}");
            assert!(!e.to_string().contains("SECRET"), "{engine}: the key reached the mock's log");
            let raw = e["body"].as_str().unwrap();
            let body: Value = serde_json::from_str(raw).unwrap();
            let keys: Vec<&str> = body.as_object().unwrap().keys().map(String::as_str).collect();
            let mut expect = body_keys(engine).to_vec();
            expect.sort_unstable();
            let mut got = keys.clone();
            got.sort_unstable();
            assert_eq!(got, expect, "{engine}: {raw}");
            let positions: Vec<usize> =
                body_keys(engine).iter().map(|k| raw.find(&format!("\"{k}\"")).unwrap()).collect();
            assert!(positions.windows(2).all(|w| w[0] < w[1]), "{engine}: documented key order in {raw}");
            match engine {
                "openai" | "doubao" => assert_eq!(body["max_tool_calls"], 4),
                "qwen" => {
                    assert_eq!(body["parameters"]["search_options"]["citation_format"], "[ref_<number>]");
                    assert_eq!(body["parameters"]["search_options"]["forced_search"], true);
                    assert_eq!(body["parameters"]["enable_thinking"], false);
                }
                "ernie" => assert_eq!(body["web_search"]["search_mode"], "auto"),
                "hunyuan" => assert_eq!(body["force_search_enhancement"], true),
                "deepseek" | "anthropic" => assert_eq!(body["tools"][0]["max_uses"], 4),
                _ => assert!(!raw.contains("\"max_uses\"")),
            }
        }
        let text = std::fs::read_to_string(&out).unwrap();
        assert!(!text.contains("SECRET"), "{engine}: the key leaked into OUT");
        assert!(!String::from_utf8_lossy(&o.stderr).contains("SECRET"), "{engine}: the key leaked into stderr");
        let out = read_json(&out);
        let (run, probes) = last_run(&out);
        assert_eq!(run["config"]["engine"], engine);
        assert_eq!(run["status"], "completed", "{engine}");
        assert!(run.get("groupId").is_none(), "one engine: no group");
        for (prompt, p) in &probes {
            assert_eq!(p["status"], "success", "{engine} {prompt}");
            assert!(!p["sources"].as_array().unwrap().is_empty(), "{engine} {prompt}: sources");
            assert!(!p["mentions"].as_array().unwrap().is_empty(), "{engine} {prompt}: mentions");
            if engine == "deepseek" {
                assert!(p.get("rawCitations").is_none(), "deepseek fixture 01/09 carry no citations");
                assert!(p["sources"].as_array().unwrap().iter().all(|s| s.get("cited").is_none()));
            } else {
                assert!(p["rawCitations"].is_array(), "{engine} {prompt}");
                let cited = p["sources"].as_array().unwrap().iter().filter(|s| s["cited"] == true).count();
                assert!(cited > 0, "{engine} {prompt}: a cited source");
            }
        }
    }
}

#[test]
fn retries_and_error_kinds_follow_each_engines_rules() {
    let m = mock(&[]);
    for engine in ["anthropic", "openai", "gemini", "perplexity"].into_iter().chain(CN_ENGINES) {
        let dir = scratch(&format!("retry-{engine}"));
        let file = input_with(
            &dir,
            &[
                ("r1", "[mock:429,500,ok] 有哪些AI搜索优化公司值得推荐？"),
                ("r2", "[mock:503,json,ok] GEO监测工具哪个好用？"),
                ("a1", "[mock:401,ok] bad key"),
                ("b1", "[mock:402,ok] no credit"),
                ("e1", "[mock:empty] always empty"),
                ("s1", "[mock:search_error] 2026年国内有哪些靠谱的GEO（生成式引擎优化）服务商？"),
            ],
        );
        let out = dir.join("out.json");
        let o = geo_probe(&run_args(&file, engine, "r1,r2,a1,b1,e1,s1", "1", &out, &m.url(), &[]), &[]);
        ok(&o);
        let out = read_json(&out);
        let (run, probes) = last_run(&out);
        assert_eq!(run["status"], "partial", "{engine}");
        let check = |prompt: &str, status: &str, kind: Option<&str>, attempts: u64| {
            let p = probes[prompt];
            assert_eq!(p["status"], status, "{engine} {prompt}: {p:#}");
            assert_eq!(p["error"]["kind"].as_str(), kind, "{engine} {prompt}: {p:#}");
            assert_eq!(p["attempts"].as_u64(), Some(attempts), "{engine} {prompt}");
        };
        check("r1", "success", None, 3);
        check("r2", "success", None, 3);
        // Each engine's "bad key" and "no credit" are never retried, whatever status it uses
        // (Gemini 400 API_KEY_INVALID, OpenAI 429 insufficient_quota, Anthropic 400 no credit).
        check("a1", "error", Some("auth"), 1);
        check("b1", "error", Some("balance"), 1);
        check("e1", "empty", Some("empty"), 3);
        check("s1", "success", None, 1);
        let message = probes["a1"]["error"]["message"].as_str().unwrap();
        let name = match engine {
            "openai" => "chatgpt",
            "anthropic" => "claude",
            other => other,
        };
        assert!(message.contains(name), "{engine}: {message}");
        if engine == "openai" {
            let queries = probes["s1"]["queries"].as_array().unwrap();
            assert!(queries.iter().any(|q| q["error"] == "failed"), "{queries:?}");
        }
    }
}

#[test]
fn proxy_mode_sends_no_auth_header_for_any_engine() {
    let m = mock(&["--require-key", "k", "--proxy"]);
    let dir = scratch("proxy");
    let out = dir.join("out.json");
    let o = geo_probe(
        &run_args("../../fixtures/project.json", "anthropic,openai,gemini,perplexity", "p08", "1", &out, &m.url(), &[]),
        &[],
    );
    ok(&o);
    let log = m.log();
    assert_eq!(log.len(), 4);
    for e in &log {
        for h in ["x-api-key", "authorization", "x-goog-api-key"] {
            assert!(e["headers"].get(h).is_none(), "{e}");
        }
    }
}

#[test]
fn several_engines_one_command_one_group_and_the_engines_comparison() {
    let m = mock(&[]);
    let dir = scratch("group");
    let out = dir.join("out.json");
    let o = geo_probe(
        &run_args(
            "../../fixtures/project.json",
            "deepseek,anthropic,openai,gemini,perplexity",
            "p01,p08,p09,p10",
            "2",
            &out,
            &m.url(),
            &["--model", "openai=gpt-5,gemini=gemini-2.5-pro"],
        ),
        &[],
    );
    ok(&o);
    let stderr = String::from_utf8_lossy(&o.stderr);
    let out_v = read_json(&out);
    let runs = out_v["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 5);
    let group = runs[0]["groupId"].as_str().expect("a group id");
    assert!(group.starts_with("grp_"));
    let engines: Vec<&str> = runs.iter().map(|r| r["config"]["engine"].as_str().unwrap()).collect();
    assert_eq!(engines, ENGINES);
    for r in runs {
        assert_eq!(r["groupId"], group);
        assert_eq!(r["status"], "completed", "{}", r["config"]["engine"]);
        assert_eq!(r["plannedProbeCount"], 8);
        assert_eq!(probes_of(&out_v, r["id"].as_str().unwrap()).len(), 4);
        assert!(stderr.contains(r["id"].as_str().unwrap()), "{stderr}");
    }
    assert_eq!(runs[2]["config"]["model"], "gpt-5");
    assert_eq!(runs[3]["config"]["model"], "gemini-2.5-pro");
    assert_eq!(runs[4]["config"]["model"], "sonar");
    let ids: std::collections::BTreeSet<&str> = runs.iter().map(|r| r["id"].as_str().unwrap()).collect();
    assert_eq!(ids.len(), 5, "distinct run ids");
    let probes = out_v["probes"].as_array().unwrap();
    assert_eq!(probes.len(), 5 * 8);

    // The metrics and the engines comparison read the same runs.
    let (metrics, engines) = (json_of("metrics", &out), json_of("engines", &out));
    let columns = engines["engines"].as_array().unwrap();
    assert_eq!(columns.iter().map(|c| c["engine"].as_str().unwrap()).collect::<Vec<_>>(), ENGINES);
    for column in columns {
        let m = metrics.as_array().unwrap().iter().find(|m| m["runId"] == column["runId"]).unwrap();
        assert_eq!(column["mentionRate"], m["mentionRate"]);
        assert_eq!(column["ownedVisibility"], m["ownedVisibility"]);
        if column["engine"] == "deepseek" {
            assert!(column["ownedCitationRate"].is_null(), "deepseek's fixtures have no citations");
        } else {
            assert!(column["ownedCitationRate"].as_f64().is_some(), "{column}");
        }
    }
}

#[test]
fn resume_and_retry_failed_use_the_runs_own_engine() {
    // --proxy: the first run goes without a key; the retry's key must be Gemini's.
    let m = mock(&["--require-key", "g-key-SECRET", "--proxy"]);
    let dir = scratch("again");
    let file = input_with(&dir, &[("f1", "[mock:503,503,503,ok] 中小企业做GEO优化有哪些服务商可选？")]);
    let out = dir.join("out.json");
    let o = geo_probe(&run_args(&file, "gemini", "f1,p01", "1", &out, &m.url(), &[]), &[]);
    ok(&o);
    let first = read_json(&out);
    let run_id = first["runs"].as_array().unwrap().last().unwrap()["id"].as_str().unwrap().to_string();
    assert_eq!(first["runs"].as_array().unwrap().last().unwrap()["status"], "partial");
    let out2 = dir.join("out2.json");
    // No key and no --base-url: the gemini run needs Gemini's key variable, not DeepSeek's.
    let o = geo_probe(
        &["retry-failed", out.to_str().unwrap(), "--run", &run_id, "--out", out2.to_str().unwrap()],
        &[("deepseek", "sk-ds")],
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains(support::key_var("gemini")),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(!out2.exists());
    let before = m.log().len();
    let o = geo_probe(
        &[
            "retry-failed",
            out.to_str().unwrap(),
            "--run",
            &run_id,
            "--out",
            out2.to_str().unwrap(),
            "--base-url",
            &m.url(),
        ],
        &[("gemini", "g-key-SECRET")],
    );
    ok(&o);
    let log = m.log();
    assert_eq!(log.len(), before + 1);
    assert!(log[before]["path"].as_str().unwrap().ends_with(":generateContent"));
    assert_eq!(log[before]["headers"]["x-goog-api-key"], "[redacted]", "gemini's header, logged redacted");
    assert_eq!(log[before]["keyOk"], true, "the key sent is the one of Gemini's variable");
    let second = read_json(&out2);
    let run = second["runs"].as_array().unwrap().iter().find(|r| r["id"] == run_id.as_str()).unwrap();
    assert_eq!(run["status"], "completed");
    assert_eq!(run["config"]["engine"], "gemini");
    assert!(!std::fs::read_to_string(&out2).unwrap().contains("SECRET"));
    // resume of a completed run sends nothing and keeps the engine.
    let out3 = dir.join("out3.json");
    let o = geo_probe(
        &["resume", out2.to_str().unwrap(), "--run", &run_id, "--out", out3.to_str().unwrap(), "--base-url", &m.url()],
        &[],
    );
    ok(&o);
    assert_eq!(m.log().len(), before + 1);
}

#[test]
fn bad_engine_input_exits_2_without_out() {
    let dir = scratch("bad");
    let out = dir.join("out.json");
    let base = ["run", "../../fixtures/project.json", "--project", PROJECT, "--out", out.to_str().unwrap()];
    let not_set = |engine: &str| format!("{} is not set", support::key_var(engine));
    let (openai, deepseek) = (not_set("openai"), not_set("deepseek"));
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["--engine", "bing", "--base-url", "http://127.0.0.1:9"], "unknown engine"),
        (vec!["--engine", "openai"], &openai),
        (vec!["--engine", "deepseek,perplexity"], &deepseek),
        (vec!["--engine", "openai,gemini", "--model", "gpt-5", "--base-url", "http://127.0.0.1:9"], "engine=model"),
        (
            vec!["--engine", "openai", "--model", "claude=x", "--base-url", "http://127.0.0.1:9"],
            "not one of the --engine",
        ),
    ];
    for (extra, needle) in cases {
        let args: Vec<&str> = base.iter().copied().chain(extra.iter().copied()).collect();
        let o = geo_probe(&args, &[]);
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{extra:?}: {stderr}");
        assert!(stderr.contains(needle), "{extra:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(!out.exists(), "{extra:?}");
    }
}

/// Issue 25's "done when": on the mock, one command asks DeepSeek and the four Chinese engines
/// the demo's Chinese prompts; each engine's run, metrics and cited marks agree with the
/// engines comparison; a content-filter refusal is `refused`, never retried, counted failed.
#[test]
fn the_chinese_engines_run_beside_deepseek_and_refusals_are_not_retried() {
    let m = mock(&[]);
    let dir = scratch("cn");
    let out = dir.join("out.json");
    let engines = "deepseek,qwen,doubao,ernie,hunyuan";
    let o = geo_probe(&run_args("../../fixtures/project.json", engines, "p01,p08,p10", "2", &out, &m.url(), &[]), &[]);
    ok(&o);
    let out_v = read_json(&out);
    let runs = out_v["runs"].as_array().unwrap();
    let names: Vec<&str> = runs.iter().map(|r| r["config"]["engine"].as_str().unwrap()).collect();
    assert_eq!(names, ["deepseek", "qwen", "doubao", "ernie", "hunyuan"]);
    let (metrics, compared) = (json_of("metrics", &out), json_of("engines", &out));
    let columns = compared["engines"].as_array().unwrap();
    assert_eq!(columns.len(), 5);
    for (run, column) in runs.iter().zip(columns) {
        let engine = run["config"]["engine"].as_str().unwrap();
        assert_eq!(run["status"], "completed", "{engine}");
        assert_eq!(column["runId"], run["id"]);
        let m = metrics.as_array().unwrap().iter().find(|m| m["runId"] == run["id"]).unwrap();
        assert_eq!(column["mentionRate"], m["mentionRate"], "{engine}");
        assert_eq!(column["ownedCitationRate"], m["ownedCitationRate"], "{engine}");
        if engine == "deepseek" {
            continue;
        }
        let probes = probes_of(&out_v, run["id"].as_str().unwrap());
        let p01 = probes["p01"];
        assert!(p01["rawCitations"].as_array().is_some_and(|c| !c.is_empty()), "{engine}: citations");
        let own = p01["sources"].as_array().unwrap().iter().find(|s| s["domain"] == "yuangouchang.com").unwrap();
        assert_eq!(own["cited"], true, "{engine}: the brand's own page is cited");
        let brand = p01["mentions"].as_array().unwrap().iter().any(|x| x["targetId"] == "tgt_yuangouchang");
        assert!(brand, "{engine}: the brand directly before a marker is a mention");
        assert!(m["ownedCitationRate"].as_f64().is_some_and(|r| r > 0.0), "{engine}: {m}");
    }

    // Refusals: Qwen and Doubao at HTTP 400, ERNIE and Hunyuan at HTTP 200.
    let file = input_with(&dir, &[("f1", "[mock:refused] 这个问题会被内容审核拒答")]);
    for engine in CN_ENGINES {
        let out = dir.join(format!("refused-{engine}.json"));
        let o = geo_probe(&run_args(&file, engine, "f1,p08", "1", &out, &m.url(), &[]), &[]);
        ok(&o);
        let out = read_json(&out);
        let (run, probes) = last_run(&out);
        assert_eq!(run["status"], "partial", "{engine}");
        let f1 = probes["f1"];
        assert_eq!(f1["status"], "error", "{engine}: {f1:#}");
        assert_eq!(f1["error"]["kind"], "refused", "{engine}: {f1:#}");
        assert_eq!(f1["attempts"], 1, "{engine}: a refusal is never retried");
        let status = if matches!(engine, "qwen" | "doubao") { 400 } else { 200 };
        assert_eq!(f1["error"]["httpStatus"], status, "{engine}");
        let all = json_of("metrics", &dir.join(format!("refused-{engine}.json")));
        let mine = all.as_array().unwrap().iter().find(|x| x["runId"] == run["id"]).unwrap();
        assert_eq!(mine["failedCount"], 1, "{engine}: counted failed: {mine}");
    }
}
