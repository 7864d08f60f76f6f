//! Where and how an answer was measured, through the binary (engines.md, "Where and how an
//! answer was measured"; cli.md `run --location/--timezone/--no-location-prompt`,
//! `import-captures`): what the mock receives with a location, what each probe records, the
//! input refused before anything is sent, a `user_location` the engine rejects shown as an
//! error, `diff` and `engines` with the method and the surfaces (geo-core's goldens byte for
//! byte), and captured app answers imported beside an API run.

mod support;

use std::path::Path;
use std::process::Output;

use geo_mock::MockServer;
use serde_json::Value;
use support::{mock, ok, read_json, root, stderr, PROJECT};

/// A fresh scratch folder of this file's tests.
fn scratch(name: &str) -> std::path::PathBuf {
    support::scratch("method", name)
}

fn project_file() -> String {
    root().join("fixtures/project.json").to_str().unwrap().to_string()
}

fn geo_probe(args: &[&str]) -> Output {
    support::geo_probe().args(args).output().unwrap()
}

/// The request bodies the mock received for `engine`.
fn bodies(m: &MockServer, engine: &str) -> Vec<Value> {
    m.log()
        .into_iter()
        .filter(|e| e["engine"] == engine)
        .map(|e| serde_json::from_str(e["body"].as_str().unwrap()).unwrap())
        .collect()
}

/// `geo-probe run FILE --project P --prompts p01 --repeats 1 --out OUT --base-url URL` + `extra`.
fn run(file: &str, out: &Path, base: &str, extra: &[&str]) -> Output {
    let mut args = vec!["run", file, "--project", PROJECT, "--prompts", "p01", "--repeats", "1"];
    args.extend(["--out", out.to_str().unwrap(), "--base-url", base]);
    args.extend_from_slice(extra);
    geo_probe(&args)
}

fn warnings(o: &Output) -> Vec<String> {
    stderr(o).lines().filter(|l| l.starts_with("warning:")).map(str::to_string).collect()
}

/// The issue's Done-when: OpenAI gets `user_location`, DeepSeek the system-prompt line, and
/// both probes record how.
#[test]
fn a_location_reaches_openai_in_its_field_and_deepseek_as_a_line() {
    let m = mock(&[]);
    let dir = scratch("done");
    let out = dir.join("out.json");
    let o =
        run(&project_file(), &out, &m.url(), &["--location", "CN/Zhejiang/Hangzhou", "--engine", "openai,deepseek"]);
    ok(&o);
    assert!(warnings(&o).iter().all(|w| !w.contains("United States")), "a location was given: {:?}", warnings(&o));
    let openai = bodies(&m, "openai");
    assert_eq!(openai.len(), 1);
    assert_eq!(
        openai[0]["tools"][0]["user_location"],
        serde_json::json!({"type": "approximate", "country": "CN", "region": "Zhejiang", "city": "Hangzhou"})
    );
    assert!(!openai[0]["instructions"].as_str().unwrap().contains("User location"));
    let deepseek = bodies(&m, "deepseek");
    let system = deepseek[0]["system"].as_str().unwrap();
    assert!(system.ends_with("\nUser location: Hangzhou, Zhejiang, CN."), "{system:?}");
    assert!(deepseek[0]["tools"][0].get("user_location").is_none());
    let env = read_json(&out);
    let applied = |engine: &str| {
        let run = env["runs"].as_array().unwrap().iter().find(|r| r["config"]["engine"] == engine).unwrap();
        assert_eq!(
            run["config"]["location"],
            serde_json::json!({"country": "CN", "region": "Zhejiang", "city": "Hangzhou"})
        );
        let probe = env["probes"].as_array().unwrap().iter().find(|p| p["runId"] == run["id"]).unwrap();
        probe["locationApplied"].as_str().unwrap().to_string()
    };
    assert_eq!((applied("openai").as_str(), applied("deepseek").as_str()), ("request", "prompt"));
}

#[test]
fn bad_location_input_exits_2_and_sends_nothing() {
    let m = mock(&[]);
    let dir = scratch("bad");
    let out = dir.join("out.json");
    for (extra, says) in [
        (&["--timezone", "Asia/Shanghai"][..], "--timezone needs a location"),
        (&["--location", "China/Zhejiang"], "country \"China\""),
        (&["--location", "CN//Hangzhou"], "one to three non-empty parts"),
        (&["--location", "CN/a/b/c"], "one to three non-empty parts"),
        (&["--location", "CN", "--timezone", "Beijing"], "timezone \"Beijing\" is not an IANA"),
        (&["--location", "CN", "--timezone", "asia/shanghai"], "not an IANA"),
    ] {
        let o = run(&project_file(), &out, &m.url(), extra);
        assert_eq!(o.status.code(), Some(2), "{extra:?}: {}", stderr(&o));
        let errors: Vec<&str> = stderr(&o).lines().filter(|l| l.starts_with("error:")).map(|_| "").collect();
        assert_eq!(errors.len(), 1, "{extra:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(says), "{extra:?}: {}", stderr(&o));
        assert!(!out.exists(), "{extra:?}: no OUT");
    }
    assert!(m.log().is_empty(), "nothing sent");
}

#[test]
fn openai_without_a_location_warns_once_and_the_line_can_be_switched_off() {
    let m = mock(&[]);
    let dir = scratch("warn");
    let o = run(&project_file(), &dir.join("a.json"), &m.url(), &["--engine", "openai"]);
    ok(&o);
    let w = warnings(&o);
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(w[0].contains("assumes a user in the United States"), "{w:?}");
    assert!(bodies(&m, "openai")[0]["tools"][0].get("user_location").is_none());
    let o = run(&project_file(), &dir.join("b.json"), &m.url(), &["--engine", "deepseek"]);
    ok(&o);
    assert!(warnings(&o).is_empty(), "only OpenAI assumes a country: {:?}", warnings(&o));
    // --no-location-prompt: DeepSeek gets no line and its probe records none.
    let out = dir.join("c.json");
    let o = run(&project_file(), &out, &m.url(), &["--engine", "deepseek", "--location", "US", "--no-location-prompt"]);
    ok(&o);
    let last = bodies(&m, "deepseek").pop().unwrap();
    assert!(!last["system"].as_str().unwrap().contains("User location"), "{last}");
    let env = read_json(&out);
    let run = env["runs"].as_array().unwrap().last().unwrap();
    assert_eq!(
        (run["config"]["locationPrompt"].as_bool(), run["config"]["location"]["country"].as_str()),
        (Some(false), Some("US"))
    );
    let probe = env["probes"].as_array().unwrap().iter().find(|p| p["runId"] == run["id"]).unwrap();
    assert!(probe.get("locationApplied").is_none(), "none is not written: {probe}");
}

#[test]
fn a_rejected_user_location_is_an_error_like_any_other() {
    let m = mock(&["--reject-location", "doubao"]);
    let dir = scratch("reject");
    let out = dir.join("out.json");
    let o = run(&project_file(), &out, &m.url(), &["--engine", "doubao", "--location", "CN/浙江/杭州"]);
    assert_eq!(o.status.code(), Some(1), "the run failed: {}", stderr(&o));
    assert!(stderr(&o).contains("failed"), "{}", stderr(&o));
    let env = read_json(&out);
    let probe = &env["probes"][0];
    assert_eq!((probe["status"].as_str(), probe["error"]["httpStatus"].as_u64()), (Some("error"), Some(400)));
    assert!(probe["error"]["message"].as_str().unwrap().contains("user_location"), "{probe}");
    assert_eq!(probe["locationApplied"], "request", "how the last attempt sent it");
    assert_eq!(m.log().len(), 1, "a 400 is not retried");
}

/// `golden(name)`: the body of geo-core's snapshot `it__compare_method__NAME`.
fn golden(name: &str) -> String {
    support::golden("compare_method", name).trim_end().to_string()
}

#[test]
fn diff_says_a_changed_served_model_first_and_engines_shows_both_surfaces() {
    let file = root().join("fixtures/exports/method.json");
    let file = file.to_str().unwrap();
    let json = ok(&geo_probe(&["diff", file, "--run", "run_m_b"]));
    assert_eq!(json.trim_end(), golden("served_model_json"));
    let v: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(
        (v["comparable"].as_bool(), v["methodChanges"][0]["field"].as_str()),
        (Some(false), Some("servedModels"))
    );
    for (lang, name) in [("en", "served_model_en"), ("zh", "served_model_zh")] {
        let md = ok(&geo_probe(&["diff", file, "--run", "run_m_b", "--format", "markdown", "--lang", lang]));
        assert_eq!(md.trim_end(), golden(name), "{lang}");
    }
    let engines = ok(&geo_probe(&["engines", file]));
    assert_eq!(engines.trim_end(), golden("engines_surfaces_json"));
}

fn import(file: &str, captures: &str, out: &Path, extra: &[&str]) -> Output {
    let mut args = vec!["import-captures", file, "--project", PROJECT, "--engine", "doubao", "--captures", captures];
    args.extend(["--out", out.to_str().unwrap()]);
    args.extend_from_slice(extra);
    geo_probe(&args)
}

#[test]
fn captured_app_answers_import_beside_an_api_run() {
    let m = mock(&[]);
    let dir = scratch("captures");
    let api = dir.join("api.json");
    ok(&run(
        &project_file(),
        &api,
        &m.url(),
        &["--engine", "doubao", "--prompts", "p01,p02,p03,p04", "--location", "CN"],
    ));
    let json = root().join("fixtures/captures/doubao-app.json");
    let csv = root().join("fixtures/captures/doubao-app.csv");
    let with_json = dir.join("json.json");
    let said = ok(&import(api.to_str().unwrap(), json.to_str().unwrap(), &with_json, &[]));
    assert!(said.contains("4 captured answer(s) of doubao's app, run completed"), "{said}");
    let with_both = dir.join("both.json");
    ok(&import(with_json.to_str().unwrap(), csv.to_str().unwrap(), &with_both, &[]));
    let env = read_json(&with_both);
    let app: Vec<&Value> = env["runs"].as_array().unwrap().iter().filter(|r| r["surface"] == "app").collect();
    assert_eq!(app.len(), 2);
    assert_eq!(app[1]["previousRunId"], app[0]["id"], "the CSV's run follows the JSON's, both app runs");
    assert_eq!(app[0]["config"]["maxTokens"], Value::Null);
    let multi = env["probes"].as_array().unwrap().iter().find(|p| p["runId"] == app[1]["id"]).unwrap();
    assert!(multi["rawAnswer"].as_str().unwrap().contains("\n\n1. 元构场"), "line breaks kept: {multi}");
    // `engines`: Doubao's API run beside its newest app run, with the gap.
    let engines: Value = serde_json::from_str(&ok(&geo_probe(&["engines", with_both.to_str().unwrap()]))).unwrap();
    let rows: Vec<(&str, &str)> = engines["engines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["engine"].as_str().unwrap(), e["surface"].as_str().unwrap()))
        .collect();
    assert_eq!(rows, [("doubao", "api"), ("doubao", "app")]);
    let gap = &engines["surfaceGaps"][0];
    assert_eq!((gap["engine"].as_str(), gap["appRunId"].as_str()), (Some("doubao"), app[1]["id"].as_str()));
    assert!(gap["mentionRate"]["against"].is_number() && gap.get("domainOverlap").is_some(), "{gap}");
    assert!(engines["prompts"][0]["mentionRate"].get("doubao:app").is_some());
    // An app run cannot be continued.
    let o = geo_probe(&[
        "resume",
        with_both.to_str().unwrap(),
        "--run",
        app[0]["id"].as_str().unwrap(),
        "--out",
        dir.join("r.json").to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("captured from an app"), "{}", stderr(&o));
}

#[test]
fn a_broken_capture_file_imports_nothing() {
    let dir = scratch("broken");
    let out = dir.join("out.json");
    let bad_row = dir.join("bad.csv");
    std::fs::write(
        &bad_row,
        "prompt,answer,captured_at,source_urls,cited_urls\r\np01,好,2026-12-01T01:00:00Z,,\r\np02,好,soon,,\r\n",
    )
    .unwrap();
    let o = import(&project_file(), bad_row.to_str().unwrap(), &out, &[]);
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(e.starts_with("error: ") && e.lines().count() == 1, "{e}");
    assert!(e.contains("row 3, captured_at: time \"soon\"") && e.contains("nothing was imported"), "{e}");
    assert!(!out.exists(), "no OUT");
    let unknown = dir.join("unknown.json");
    std::fs::write(
        &unknown,
        r#"{"captures": [{"prompt": "一个新问题", "answer": "元构场", "capturedAt": "2026-12-01T01:00:00Z"}]}"#,
    )
    .unwrap();
    let o = import(&project_file(), unknown.to_str().unwrap(), &out, &[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("unknown prompt \"一个新问题\""), "{}", stderr(&o));
    assert!(!out.exists());
    let said = ok(&import(&project_file(), unknown.to_str().unwrap(), &out, &["--add-prompts"]));
    assert!(said.contains("1 prompt(s) added"), "{said}");
    let env = read_json(&out);
    assert!(env["prompts"]
        .as_array()
        .unwrap()
        .iter()
        .any(|p| p["text"] == "一个新问题" && p["tags"] == serde_json::json!([])));
    // Text every answer shares: one warning line, imported as it is.
    let tail = "以上内容由 AI 生成，仅供参考，请注意甄别。你对这个回答满意吗？赞 踩 复制 分享 重新生成";
    let shared = dir.join("shared.csv");
    std::fs::write(
        &shared,
        format!("prompt,answer,captured_at,source_urls,cited_urls\r\np01,元构场{tail},2026-12-01T01:00:00Z,,\r\np02,智谱{tail},2026-12-01T01:01:00Z,,\r\n"),
    )
    .unwrap();
    let o = import(&project_file(), shared.to_str().unwrap(), &dir.join("shared.json"), &[]);
    ok(&o);
    assert_eq!(warnings(&o).len(), 1, "{}", stderr(&o));
    assert!(warnings(&o)[0].contains("ends with the same text"), "{:?}", warnings(&o));
}
