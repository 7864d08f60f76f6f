//! `geo-probe actions` and `geo-probe claims` on fixture exports. `actions`: the output is
//! geo-core's golden (`crates/geo-core/tests/it/snapshots/it__actions_goldens__*`) byte for
//! byte, in JSON and in Markdown (zh, en), for the runs the goldens were made for, and its
//! `wrongFacts` on a run with a fact sheet. `claims`: on the actions fixture given a fact sheet
//! and answers that speak to it (`claims_export`), the object and Markdown of geo-core's
//! `said` byte for byte, `factsFrom`, the order of claims and flags, the sources of each claim,
//! and every exit 2; and the same sheet's figures end to end in `metrics` (`facts`,
//! `riskFlags`), `diff` (`descriptions`) and `engines` (`brandFlaggedRate`).

mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use geo_core::model::{ExportEnvelope, Lang};
use serde_json::{json, Value};
use support::{loaded, root};

const BIN: &str = env!("CARGO_BIN_EXE_geo-probe");

/// The body of geo-core's insta snapshot `it__actions_goldens__NAME`.
fn golden(name: &str) -> String {
    support::golden("actions_goldens", name)
}

#[test]
fn actions_prints_the_goldens() {
    let fixture = root().join("fixtures/exports/actions.json");
    let demo = root().join("demo/demo-data.json");
    for (file, run, name) in [
        (&fixture, Some("run_act_b"), "actions_fixture_b"),
        (&fixture, Some("run_act_gemini"), "actions_fixture_gemini"),
        (&fixture, Some("run_act_perplexity"), "actions_fixture_perplexity"),
        (&demo, None, "actions_demo"),
    ] {
        for (format, lang, suffix) in [("json", "zh", "json"), ("markdown", "zh", "zh"), ("markdown", "en", "en")] {
            let mut args = vec!["actions", file.to_str().unwrap(), "--format", format, "--lang", lang];
            if let Some(run) = run {
                args.extend(["--run", run]);
            }
            let out = Command::new(BIN).args(&args).output().unwrap();
            assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
            let mut want = golden(&format!("{name}_{suffix}"));
            if !want.ends_with('\n') {
                want.push('\n');
            }
            let got = String::from_utf8(out.stdout).unwrap();
            assert_eq!(got.trim_end(), want.trim_end(), "{name} {suffix}");
        }
    }
}

/// `geo-probe ARGS`.
fn geo_probe(args: &[&str]) -> Output {
    Command::new(BIN).args(args).output().unwrap()
}

#[track_caller]
fn stdout(args: &[&str]) -> String {
    let out = geo_probe(args);
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    assert!(out.stderr.is_empty(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

#[track_caller]
fn json_of(args: &[&str]) -> Value {
    serde_json::from_str(&stdout(args)).unwrap()
}

/// Exit 2, one line `error: …` holding every one of `needles`, nothing on standard output.
#[track_caller]
fn refused(args: &[&str], needles: &[&str]) {
    let out = geo_probe(args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert_eq!(err.lines().count(), 1, "{args:?}: one line: {err}");
    assert!(err.starts_with("error: "), "{err}");
    for needle in needles {
        assert!(err.contains(needle), "{args:?}: {needle:?} in {err}");
    }
    assert!(out.stdout.is_empty(), "{args:?}");
}

fn scratch(name: &str) -> PathBuf {
    support::target_scratch("claims", name)
}

fn write(path: &Path, value: &Value) -> String {
    std::fs::write(path, serde_json::to_vec_pretty(value).unwrap()).unwrap();
    path.to_str().unwrap().to_string()
}

const KR: &str = "https://www.36kr.com/p/geo-review";
const ZHIHU: &str = "https://zhuanlan.zhihu.com/p/730";

/// The fact sheet of [`claims_export`]: two facts the answers speak to, one they never
/// mention, and a watch term.
fn sheet() -> Value {
    json!({
        "facts": [
            { "id": "founded", "targetId": "tgt_yuangouchang", "label": "成立年份", "kind": "year",
              "cues": ["成立"], "value": 2021 },
            { "id": "hq", "targetId": "tgt_yuangouchang", "label": "总部", "kind": "text", "cues": ["总部"],
              "accepted": ["杭州"], "rejected": ["上海"] },
            { "id": "staff", "targetId": "tgt_yuangouchang", "label": "员工", "kind": "number", "cues": ["员工"],
              "value": 80 },
        ],
        "watchTerms": ["数据事件"],
    })
}

/// The actions fixture with [`sheet`] frozen into `run_act_a` and `run_act_b` and answers of
/// `run_act_b` that speak to it (founded contradicted three times, twice citing 36kr and once
/// a Zhihu column, stated rightly twice; the headquarters wrong once, right once; a complaint,
/// a competitor's drawback and the watch term), its probes in reverse file order so that the
/// file's order is not the probe order.
fn claims_export() -> Value {
    let text = std::fs::read_to_string(root().join("fixtures/exports/actions.json")).unwrap();
    let mut env: Value = serde_json::from_str(&text).unwrap();
    for run in env["runs"].as_array_mut().unwrap() {
        if run["id"] == "run_act_a" || run["id"] == "run_act_b" {
            run["factSnapshot"] = sheet();
        }
    }
    let cite = |url: &str, text: &str| json!([{ "url": url, "citedText": text }]);
    let answers = [
        ("run_act_a__p01__0", "元构场成立于2019年。".to_string(), json!([])),
        (
            "run_act_b__p02__1",
            "元构场成立于2018年。智谱营销的缺点是较贵。另有报道称元构场成立于2021年。".to_string(),
            cite(ZHIHU, "元构场成立于2018年。"),
        ),
        ("run_act_b__p02__0", "元构场成立于2021年，总部在杭州。".to_string(), json!([])),
        ("run_act_b__p01__1", "元构场成立于2019年，团队在杭州。".to_string(), cite(KR, "元构场成立于2019年")),
        (
            "run_act_b__p01__0",
            "元构场成立于2019年。元构场总部位于上海，曾有投诉。".to_string(),
            cite(KR, "元构场成立于2019年。"),
        ),
        ("run_act_b__p04__0", "元构场曾有数据事件。".to_string(), json!([])),
    ];
    for (id, answer, citations) in answers {
        let probe = env["probes"].as_array_mut().unwrap().iter_mut().find(|p| p["id"] == id).unwrap();
        probe["rawAnswer"] = json!(answer);
        probe["rawCitations"] = citations;
    }
    env["probes"].as_array_mut().unwrap().reverse();
    env
}

/// geo-core's object and Markdown of `geo-probe claims` for `run`.
fn said(env: &ExportEnvelope, run: &str, lang: Lang) -> (String, String) {
    let report = geo_core::said::claims_for_export(env, Some(run), None).unwrap();
    let run = env.run(run).unwrap();
    let mut json = serde_json::to_string_pretty(&report).unwrap();
    json.push('\n');
    (json, geo_core::said::markdown::claims_markdown(&report, run, lang))
}

#[test]
fn claims_prints_what_the_answers_say() {
    let dir = scratch("report");
    let file = write(&dir.join("claims.json"), &claims_export());
    let env = loaded(&file);

    // The object and the Markdown are geo-core's, byte for byte (the default run: the newest
    // completed or partial, `run_act_perplexity`, without a sheet).
    for (run, args) in [
        ("run_act_b", vec!["--run", "run_act_b"]),
        ("run_act_perplexity", vec![]),
        ("run_act_gemini", vec!["--run", "run_act_gemini", "--format", "json"]),
    ] {
        let mut all = vec!["claims", file.as_str()];
        all.extend(&args);
        let (json, zh) = said(&env, run, Lang::Zh);
        assert_eq!(stdout(&all), json, "{run}");
        all.extend(["--format", "markdown"]);
        assert_eq!(stdout(&all), zh, "{run}");
        all.extend(["--lang", "en"]);
        assert_eq!(stdout(&all), said(&env, run, Lang::En).1, "{run}");
    }

    let report = json_of(&["claims", &file, "--run", "run_act_b"]);
    assert_eq!(
        (&report["runId"], &report["engine"], &report["factsFrom"]),
        (&json!("run_act_b"), &json!("anthropic"), &json!("run"))
    );
    let facts = report["facts"].as_array().unwrap();
    let ids: Vec<&str> = facts.iter().map(|f| f["factId"].as_str().unwrap()).collect();
    assert_eq!(ids, ["founded", "hq", "staff"], "the sheet's order");
    // Each fact row is the `facts` row of `geo-probe metrics`, plus its claims.
    let metrics = json_of(&["metrics", &file, "--run", "run_act_b"]);
    for (row, m) in facts.iter().zip(metrics[0]["facts"].as_array().unwrap()) {
        let mut row = row.clone();
        row.as_object_mut().unwrap().remove("claims");
        assert_eq!(&row, m);
    }
    let founded = &facts[0];
    assert_eq!(
        (&founded["probesWithClaim"], &founded["consistent"], &founded["contradicts"], &founded["contradictionRate"]),
        (&json!(4), &json!(1), &json!(3), &json!(0.75)),
        "a probe counts once per fact, contradicting when any of its claims does"
    );
    assert_eq!((&facts[2]["probesWithClaim"], &facts[2]["contradictionRate"]), (&json!(0), &Value::Null));
    // Claims in probe order (promptSnapshot order, then repeatIndex), then by start.
    let claims: Vec<(&str, &str, u64)> = founded["claims"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["probeId"].as_str().unwrap(), c["verdict"].as_str().unwrap(), c["start"].as_u64().unwrap()))
        .collect();
    assert_eq!(
        claims,
        [
            ("run_act_b__p01__0", "contradicts", 0),
            ("run_act_b__p01__1", "contradicts", 0),
            ("run_act_b__p02__0", "consistent", 0),
            ("run_act_b__p02__1", "contradicts", 0),
            ("run_act_b__p02__1", "consistent", 23),
        ]
    );
    // The sources behind each claim's sentence: the cited 36kr page behind the first two, the
    // Zhihu column behind the third; none behind a sentence no citation holds.
    let first = &founded["claims"][0];
    assert_eq!(first["promptId"], "p01");
    assert_eq!(first["values"], json!(["2019"]));
    assert_eq!(first["sentence"], "元构场成立于2019年。");
    let sources = first["sources"].as_array().unwrap();
    assert_eq!(sources.len(), 1, "{first}");
    assert_eq!(
        (&sources[0]["url"], &sources[0]["domain"], &sources[0]["cited"]),
        (&json!(KR), &json!("36kr.com"), &json!(true))
    );
    assert_eq!(first["sourceIds"], json!([sources[0]["id"].clone()]));
    assert_eq!(founded["claims"][3]["sources"][0]["url"], ZHIHU);
    assert_eq!(founded["claims"][2]["sources"], json!([]));
    // Risk flags: in probe order, then by start, then kind and list order.
    let flags: Vec<(&str, &str, &str, &str)> = report["riskFlags"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["probeId"].as_str().unwrap(),
                f["targetId"].as_str().unwrap(),
                f["kind"].as_str().unwrap(),
                f["cue"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        flags,
        [
            ("run_act_b__p01__0", "tgt_yuangouchang", "negative", "投诉"),
            ("run_act_b__p02__1", "tgt_zhipu_marketing", "caution", "缺点"),
            ("run_act_b__p02__1", "tgt_zhipu_marketing", "caution", "较贵"),
            ("run_act_b__p04__0", "tgt_yuangouchang", "watch", "数据事件"),
        ]
    );
    assert_eq!(report["flagCounts"], metrics[0]["riskFlags"], "the extra is the metrics' rows");

    // A run without a sheet: only the built-in cues, `factsFrom: none`.
    let none = json_of(&["claims", &file, "--run", "run_act_gemini"]);
    assert_eq!((&none["factsFrom"], &none["facts"]), (&json!("none"), &json!([])));
    let zh = stdout(&["claims", &file, "--run", "run_act_b", "--format", "markdown"]);
    assert!(zh.starts_with("# 回答说了什么 · `run_act_b` · anthropic\n") && zh.contains("## 事实核对"), "{zh}");
    assert!(zh.contains("「元构场成立于2019年。」"), "{zh}");
    let en = stdout(&["claims", &file, "--run", "run_act_b", "--format", "markdown", "--lang", "en"]);
    assert!(
        en.starts_with("# What the answers say · `run_act_b` · anthropic\n") && en.contains("## Fact check"),
        "{en}"
    );
    assert!(en.contains("Fact sheet: the run's own"), "{en}");
}

#[test]
fn claims_refuses_bad_input_with_exit_2() {
    let dir = scratch("refused");
    let file = write(&dir.join("claims.json"), &claims_export());
    let f = file.as_str();
    refused(&["claims", f, "--run", "run_nope"], &["run `run_nope` is not in the export", "`run_act_b`"]);
    refused(&["claims", f, "--format", "yaml"], &["--format", "yaml"]);
    refused(&["claims", f, "--lang", "fr"], &["--lang", "fr"]);
    refused(&["claims", f, "--bogus"], &["--bogus"]);
    refused(&["claims"], &["FILE"]);
    refused(&["claims", dir.join("absent.json").to_str().unwrap()], &["cannot read"]);

    // --facts: unreadable, not JSON, too large, not the shape, an invalid fact, a fact about a
    // target the run does not track; every message names what is wrong, a fact by its id.
    let facts = |name: &str, text: &str| {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path.to_str().unwrap().to_string()
    };
    let run_b = ["claims", f, "--run", "run_act_b", "--facts"];
    let with = |path: &str| -> Vec<String> { run_b.iter().map(|s| s.to_string()).chain([path.to_string()]).collect() };
    let refused_with = |path: &str, needles: &[&str]| {
        let args = with(path);
        refused(&args.iter().map(String::as_str).collect::<Vec<_>>(), needles);
    };
    refused_with(dir.join("no-such-facts.json").to_str().unwrap(), &["cannot read", "no-such-facts.json"]);
    refused_with(&facts("not-json.json", "{ facts: "), &["not-json.json", "run `run_act_b`", "not valid json"]);
    refused_with(
        &facts("huge.json", &" ".repeat(4 * 1024 * 1024 + 1)),
        &["huge.json", "larger than 4 MiB", "a facts file"],
    );
    refused_with(&facts("shape.json", r#"{ "facts": {} }"#), &["shape.json", "facts"]);
    let fact = |extra: Value| {
        let mut f = json!({ "id": "f_bad", "targetId": "tgt_yuangouchang", "label": "x", "kind": "year", "cues": ["成立"], "value": 2015 });
        f.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        json!({ "facts": [f] }).to_string()
    };
    refused_with(&facts("year.json", &fact(json!({ "value": 3000 }))), &["\"f_bad\"", "3000", "1000 to 2999"]);
    refused_with(&facts("kind.json", &fact(json!({ "kind": "colour" }))), &["\"f_bad\"", "colour"]);
    refused_with(&facts("cue.json", &fact(json!({ "cues": [] }))), &["\"f_bad\"", "no cue"]);
    refused_with(
        &facts("target.json", &fact(json!({ "targetId": "tgt_not_tracked" }))),
        &["\"f_bad\"", "tgt_not_tracked", "run `run_act_b`"],
    );
    // A bad --format is refused before the file is read.
    refused(&["claims", f, "--facts", dir.join("no-such-facts.json").to_str().unwrap(), "--format", "csv"], &["csv"]);
}

#[test]
fn claims_applies_a_facts_file_instead_of_the_runs_sheet() {
    let dir = scratch("facts-file");
    let file = write(&dir.join("claims.json"), &claims_export());
    // Founded in 2019 after all, and no watch terms (absent means none).
    let mut sheet = sheet();
    sheet["facts"][0]["value"] = json!(2019);
    sheet.as_object_mut().unwrap().remove("watchTerms");
    let facts = write(&dir.join("facts.json"), &sheet);
    let report = json_of(&["claims", &file, "--run", "run_act_b", "--facts", &facts]);
    assert_eq!(report["factsFrom"], "file");
    let founded = &report["facts"][0];
    assert_eq!((&founded["consistent"], &founded["contradicts"]), (&json!(2), &json!(2)), "{founded}");
    let watch = report["riskFlags"].as_array().unwrap().iter().filter(|f| f["kind"] == "watch").count();
    assert_eq!(watch, 0, "the file's sheet, without the run's watch term");
    // The run's other figures are the run's own: the file changes what this command reads.
    let own = json_of(&["claims", &file, "--run", "run_act_b"]);
    assert_eq!((&own["factsFrom"], &own["facts"][0]["contradicts"]), (&json!("run"), &json!(3)));
    // A run without a sheet of its own gets one from the file (and from standard input).
    let gemini = json_of(&["claims", &file, "--run", "run_act_gemini", "--facts", &facts]);
    assert_eq!(gemini["factsFrom"], "file");
    assert_eq!(gemini["facts"].as_array().unwrap().len(), 3);
    let mut piped = Command::new(BIN)
        .args(["claims", &file, "--run", "run_act_b", "--facts", "-", "--format", "markdown", "--lang", "en"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(&mut piped.stdin.take().unwrap(), &std::fs::read(&facts).unwrap()).unwrap();
    let out = piped.wait_with_output().unwrap();
    assert!(out.status.success());
    let md = String::from_utf8(out.stdout).unwrap();
    assert!(md.contains("Fact sheet: the file given with --facts"), "{md}");
}

#[test]
fn metrics_diff_and_engines_show_what_the_answers_say() {
    let dir = scratch("figures");
    let file = write(&dir.join("claims.json"), &claims_export());
    let env = loaded(&file);
    let metrics = json_of(&["metrics", &file, "--run", "run_act_b"]);
    let m = &metrics[0];
    let core = geo_core::metrics::metrics_for_export(&env, Some("run_act_b")).unwrap();
    assert_eq!(m["facts"], serde_json::to_value(&core[0].facts).unwrap());
    assert_eq!(m["facts"].as_array().unwrap().len(), 3);
    let brand = m["riskFlags"].as_array().unwrap().iter().find(|r| r["targetId"] == "tgt_yuangouchang").unwrap();
    assert_eq!((&brand["negative"], &brand["watch"], &brand["caution"]), (&json!(1), &json!(1), &json!(0)));
    assert!(brand["flaggedLow"].as_f64() < brand["flaggedRate"].as_f64());

    // diff: the descriptions against run_act_a (its previous run), outside the verdict.
    let diff = json_of(&["diff", &file, "--run", "run_act_b"]);
    let d = &diff["descriptions"];
    assert_eq!(d["brandFlagged"]["current"], brand["flaggedRate"]);
    assert_eq!(d["brandFlagged"]["currentN"], brand["mentioningCount"]);
    let facts: Vec<&str> = d["facts"].as_array().unwrap().iter().map(|f| f["factId"].as_str().unwrap()).collect();
    assert_eq!(facts, ["founded", "hq", "staff"], "the facts both runs' sheets hold");
    let founded = &d["facts"][0]["contradiction"];
    assert_eq!((&founded["against"], &founded["current"]), (&json!(1.0), &json!(0.75)));
    assert_eq!((&founded["againstN"], &founded["currentN"]), (&json!(1), &json!(4)));
    let core = geo_core::compare::diff_export(&env, Some("run_act_b"), None).unwrap();
    assert_eq!(diff, serde_json::to_value(&core).unwrap());

    // engines: the brand's flagged rate on each engine's row.
    let engines = json_of(&["engines", &file]);
    let claude = engines["engines"].as_array().unwrap().iter().find(|e| e["engine"] == "anthropic").unwrap();
    assert_eq!(claude["runId"], "run_act_b");
    assert_eq!(claude["brandFlaggedRate"], brand["flaggedRate"]);
    assert!(claude["brandFlaggedRate"].as_f64().is_some_and(|r| r > 0.0));
}

#[test]
fn actions_lists_the_wrong_facts_and_the_pages_behind_them() {
    let dir = scratch("wrong-facts");
    let file = write(&dir.join("claims.json"), &claims_export());
    let actions = json_of(&["actions", &file, "--run", "run_act_b"]);
    assert_eq!(actions["factCount"], 3);
    let wrong = actions["wrongFacts"].as_array().unwrap();
    let rows: Vec<(&str, u64, &str)> = wrong
        .iter()
        .map(|f| (f["factId"].as_str().unwrap(), f["claimCount"].as_u64().unwrap(), f["status"].as_str().unwrap()))
        .collect();
    assert_eq!(rows, [("founded", 3, "open"), ("hq", 1, "new")]);
    let pages: Vec<(&str, u64, bool)> = wrong[0]["pages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["url"].as_str().unwrap(), p["claimCount"].as_u64().unwrap(), p["cited"].as_bool().unwrap()))
        .collect();
    assert_eq!(pages, [(KR, 2, true), (ZHIHU, 1, true)]);
    let en = stdout(&["actions", &file, "--run", "run_act_b", "--format", "markdown", "--lang", "en"]);
    assert!(en.contains("## Wrong facts and the pages behind them"), "{en}");
    assert!(en.contains(&format!("{KR} | 36kr.com | 2 | ✓ |")), "{en}");
}
