//! `geo-probe mcp` with a client nobody on the team wrote: the official MCP Python SDK
//! (`mcp` on PyPI) connects over stdio, checks every input schema against the JSON Schema
//! 2020-12 meta-schema and calls the tools; its answers must be the CLI's objects.
//!
//! The test installs what it needs itself (`python_support`): a venv under
//! `target/tmp/mcp-python/` with the pinned `tests/mcp_python/requirements.txt`, created on
//! first use and re-created when the requirements change, so it runs on a fresh machine and in
//! CI with only `python3` (with its `venv` module) and PyPI. `GEO_PROBE_PYTHON` names another
//! interpreter.

mod mcp_support;
mod python_support;

use std::path::Path;
use std::process::Command;

use mcp_support::{cli_json, sample_export, scratch, write_json, BIN};
use python_support::run;
use serde_json::{json, Value};

/// The venv's interpreter, with the SDK installed (created or refreshed when needed).
fn python_with_sdk() -> std::path::PathBuf {
    python_support::venv_python("mcp-python", "tests/mcp_python/requirements.txt")
}

#[test]
fn the_official_python_sdk_gets_the_clis_figures() {
    let python = python_with_sdk();
    let dir = scratch("python");
    let file = dir.join("export.json");
    let env = sample_export();
    write_json(&file, &env);
    let path = file.to_str().unwrap();
    let metrics = cli_json(&["metrics", path]);
    let runs = metrics.as_array().unwrap();
    let (first, second) = (runs[0]["runId"].as_str().unwrap(), runs[1]["runId"].as_str().unwrap());
    let probe_id = env["probes"][0]["id"].as_str().unwrap();
    let calls = json!([
        { "key": "projects", "tool": "list_projects", "arguments": {} },
        { "key": "runs", "tool": "list_runs", "arguments": {} },
        { "key": "metrics", "tool": "run_metrics", "arguments": { "runId": first } },
        { "key": "diff", "tool": "diff_runs", "arguments": { "runId": second } },
        { "key": "engines", "tool": "compare_engines", "arguments": {} },
        { "key": "sources", "tool": "top_sources", "arguments": { "runId": first, "ownership": "third_party", "limit": 5 } },
        { "key": "search", "tool": "search_answers", "arguments": { "query": env["projects"][0]["brand"]["label"], "runId": first } },
        { "key": "probe", "tool": "get_probe", "arguments": { "probeId": probe_id } },
        { "key": "actions", "tool": "list_actions", "arguments": { "runId": second } },
        { "key": "claims", "tool": "list_claims", "arguments": { "runId": second } },
        { "key": "unknown", "tool": "get_probe", "arguments": { "probeId": "no_such_probe" }, "valid": false },
    ]);
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp_python/client.py");
    let out =
        run(Command::new(&python).arg(&script).arg(BIN).arg(path).arg(calls.to_string()), "run the Python client");
    let report: Value = serde_json::from_slice(&out.stdout).expect("the client's JSON report");

    assert!(report["protocolVersion"].as_str().unwrap() >= "2025-06-18", "structuredContent needs 2025-06-18+");
    assert_eq!(report["serverName"], "geo-probe");
    let mut names: Vec<&str> =
        report["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    names.sort();
    assert_eq!(
        names,
        [
            "compare_engines",
            "diff_runs",
            "get_probe",
            "list_actions",
            "list_claims",
            "list_projects",
            "list_runs",
            "run_metrics",
            "search_answers",
            "top_sources"
        ]
    );
    assert!(report["tools"].as_array().unwrap().iter().all(|t| t["readOnlyHint"] == json!(true)));

    let call = |key: &str| {
        let c = &report["calls"][key];
        assert_eq!(c["isError"], json!(false), "{key}: {c}");
        let text: Value = serde_json::from_str(c["text"][0].as_str().unwrap()).unwrap();
        assert_eq!(text, c["structuredContent"], "{key}: the text block holds the same JSON");
        c["structuredContent"].clone()
    };
    // The same figures as `geo-probe metrics`, `diff` and `engines` on the file.
    assert_eq!(call("metrics"), runs[0]);
    assert_eq!(call("diff"), cli_json(&["diff", path, "--run", second]));
    assert_eq!(call("engines"), cli_json(&["engines", path]));
    assert_eq!(call("actions"), cli_json(&["actions", path, "--run", second]));
    assert_eq!(call("claims"), cli_json(&["claims", path, "--run", second]));
    let third: Vec<Value> = runs[0]["domains"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["ownership"] == "third_party")
        .take(5)
        .cloned()
        .collect();
    assert_eq!(call("sources"), json!({ "runId": first, "domains": third }));
    assert_eq!(call("projects")["projects"][0]["id"], env["projects"][0]["id"]);
    assert_eq!(call("runs")["runs"].as_array().unwrap().len(), env["runs"].as_array().unwrap().len());
    assert!(!call("search")["hits"].as_array().unwrap().is_empty());
    let analyzed = cli_json(&["analyze", path]);
    assert_eq!(call("probe")["probe"], analyzed["probes"][0]);

    let unknown = &report["calls"]["unknown"];
    assert_eq!(unknown["isError"], json!(true), "{unknown}");
    assert!(unknown["text"][0].as_str().unwrap().contains("no_such_probe"), "{unknown}");
}
