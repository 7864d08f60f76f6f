//! The offline commands over a real export made by `geo-probe run` against the mock:
//! `analyze` (stable when run twice), `validate`, `metrics` (the contract shape), `report`,
//! `csv probes|sources`; and docs chat's `retrieve` and `chat` against the mock's SSE
//! endpoint. Bad input always exits 2 with one line on stderr.

mod support;

use std::path::PathBuf;
use std::process::Output;

use serde_json::Value;
use support::{mock, ok as stdout, root};

fn geo_probe(args: &[&str]) -> Output {
    support::geo_probe().args(args).output().unwrap()
}

/// Two runs of three prompts × 2 repeats of the fixture project, written to a scratch file.
fn export_with_two_runs() -> PathBuf {
    let dir = support::scratch("offline", "two-runs");
    let server = mock(&[]);
    let input = root().join("fixtures/project.json");
    let first = dir.join("one.json");
    let out = dir.join("two.json");
    for (from, to) in [(&input, &first), (&first, &out)] {
        let args = support::run_args(from, "p01,p06,p09", to, &["--repeats", "2", "--base-url", &server.url()]);
        stdout(&support::geo_probe().args(args).output().unwrap());
    }
    out
}

#[test]
fn offline_commands_over_a_real_export() {
    let file = export_with_two_runs();
    let f = file.to_str().unwrap();

    let once = stdout(&geo_probe(&["analyze", f]));
    let analysed = file.with_extension("analysed.json");
    std::fs::write(&analysed, &once).unwrap();
    let twice = stdout(&geo_probe(&["analyze", analysed.to_str().unwrap()]));
    assert_eq!(once, twice, "analyze must be stable when run twice");

    let summary = stdout(&geo_probe(&["validate", f]));
    assert!(summary.starts_with("1 project, 26 prompts, 2 runs, 12 probes"), "{summary}");

    let metrics: Value = serde_json::from_str(&stdout(&geo_probe(&["metrics", f]))).unwrap();
    let runs = metrics.as_array().unwrap();
    assert_eq!(runs.len(), 2);
    // geo-core's figures of the file, whose contract keys geo-core's own tests check
    // (`metrics_run::contract_keys_are_all_present`).
    let library = geo_core::metrics::metrics_for_export(&support::loaded(f), None).unwrap();
    assert_eq!(metrics, serde_json::to_value(library).unwrap(), "the metrics are geo-core's");
    assert_eq!(runs[1]["previousRunId"], runs[0]["runId"], "the second run compares against the first");
    assert_eq!(runs[1]["probeCount"], 6);
    assert_eq!(runs[1]["shareOfVoice"].as_object().unwrap().len(), 3);
    let one: Value =
        serde_json::from_str(&stdout(&geo_probe(&["metrics", f, "--run", runs[0]["runId"].as_str().unwrap()])))
            .unwrap();
    assert_eq!(one.as_array().unwrap().len(), 1);

    let report = stdout(&geo_probe(&["report", f, "--lang", "en"]));
    assert!(report.starts_with('#') && report.contains("Mention rate"), "{report}");

    let probes_csv = stdout(&geo_probe(&["csv", "probes", f]));
    assert!(probes_csv.starts_with('\u{feff}'), "BOM for Excel");
    assert_eq!(probes_csv.matches("\r\n").count(), 7, "header + 6 probes of the newest run");
    let sources_csv = stdout(&geo_probe(&["csv", "sources", f]));
    assert!(sources_csv.lines().count() > 6);
}

#[test]
fn bad_input_exits_2_with_one_line() {
    let dir = support::scratch("offline", "bad");
    let not_json = dir.join("x.json");
    std::fs::write(&not_json, "{not json").unwrap();
    let project = root().join("fixtures/project.json");
    let cases: Vec<Vec<String>> = vec![
        vec!["analyze".into(), not_json.to_str().unwrap().into()],
        vec!["validate".into(), dir.join("missing.json").to_str().unwrap().into()],
        vec!["metrics".into(), project.to_str().unwrap().into(), "--run".into(), "nope".into()],
        vec!["report".into(), project.to_str().unwrap().into()],
        vec!["csv".into(), "things".into(), project.to_str().unwrap().into()],
        vec!["metrics".into(), project.to_str().unwrap().into(), "--bogus".into()],
        vec!["retrieve".into(), "--query".into(), "x".into()],
        vec!["frobnicate".into()],
    ];
    for args in cases {
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        let o = geo_probe(&refs);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.starts_with("error: ") && err.trim_end().lines().count() == 1, "{args:?}: {err}");
        assert!(o.stdout.is_empty(), "{args:?} wrote output");
    }
}

#[test]
fn retrieve_and_chat_against_the_mock() {
    let zh = root().join("fixtures/chat/rag_zh.md");
    let en = root().join("fixtures/chat/geo_en.md");
    let (zh, en) = (zh.to_str().unwrap(), en.to_str().unwrap());
    let hits: Value = serde_json::from_str(&stdout(&geo_probe(&[
        "retrieve",
        "--docs",
        zh,
        en,
        "--query",
        "RAG 分块和检索有什么关系？",
        "--top",
        "3",
    ])))
    .unwrap();
    let hits = hits.as_array().unwrap();
    assert_eq!(hits.len(), 3);
    assert_eq!(hits[0]["source"], "rag_zh.md");
    for key in ["source", "chunk", "start", "end", "score", "text"] {
        assert!(hits[0].get(key).is_some(), "hit lacks {key}");
    }
    assert!(hits[0]["score"].as_f64() >= hits[1]["score"].as_f64());

    let server = mock(&[]);
    let ok = geo_probe(&["chat", "--docs", zh, "--query", "RAG 分块和检索有什么关系？", "--base-url", &server.url()]);
    let text = stdout(&ok);
    assert!(text.contains("[S1]") && text.contains("Sources:"), "{text}");
    let log = server.log();
    let body: Value = serde_json::from_str(log.last().unwrap()["body"].as_str().unwrap()).unwrap();
    assert_eq!(body["stream"], true);
    assert!(log.last().unwrap()["headers"].get("authorization").is_none(), "proxy mode sends no key");

    let cut = geo_probe(&["chat", "--docs", zh, "--query", "RAG 分块 [chat:cut]", "--base-url", &server.url()]);
    assert_eq!(cut.status.code(), Some(1), "a cut stream is not a complete answer");
    assert!(String::from_utf8_lossy(&cut.stderr).contains("incomplete"));

    let no_key = geo_probe(&["chat", "--docs", zh, "--query", "x"]);
    assert_eq!(no_key.status.code(), Some(2));
}
