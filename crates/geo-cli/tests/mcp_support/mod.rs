//! Shared by the MCP tests (`mcp.rs`, `mcp_python.rs`): the sample export, scratch
//! directories, and the CLI's own view of a file to compare the tools' answers with.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{json, Value};

/// The built `geo-probe` binary.
pub const BIN: &str = env!("CARGO_BIN_EXE_geo-probe");

pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

pub fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("mcp-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The demo export's two DeepSeek runs (its other engines' runs left out) plus a third run:
/// the demo's second run asked of another engine, so the file has a previous run to diff
/// against and two engines to compare. Every run holds a fact sheet the demo's answers speak
/// to (the brand was founded in 2023 in Hangzhou; the sheet says 2022), so `list_claims` has
/// claims of every kind to list.
pub fn sample_export() -> Value {
    let text = std::fs::read_to_string(root().join("demo/demo-data.json")).unwrap();
    let mut env: Value = serde_json::from_str(&text).unwrap();
    env["runs"].as_array_mut().unwrap().retain(|r| r["config"]["engine"] == "deepseek");
    let kept: Vec<Value> = env["runs"].as_array().unwrap().iter().map(|r| r["id"].clone()).collect();
    env["probes"].as_array_mut().unwrap().retain(|p| kept.contains(&p["runId"]));
    assert_eq!(kept.len(), 2, "the demo has two DeepSeek runs");
    let brand = env["projects"][0]["brand"]["id"].clone();
    for run in env["runs"].as_array_mut().unwrap() {
        run["factSnapshot"] = json!({
            "facts": [
                { "id": "founded", "targetId": brand, "label": "成立年份", "kind": "year", "cues": ["成立"], "value": 2022 },
                { "id": "hq", "targetId": brand, "label": "总部", "kind": "text", "cues": ["总部"], "accepted": ["杭州"] },
            ],
            "watchTerms": ["官网"],
        });
    }
    let runs = env["runs"].as_array().unwrap().clone();
    let last = runs.iter().max_by_key(|r| r["createdAt"].as_str().unwrap().to_string()).unwrap();
    let old_id = last["id"].as_str().unwrap().to_string();
    let new_id = format!("{old_id}_openai");
    let mut run = last.clone();
    run["id"] = json!(new_id);
    run["createdAt"] = json!("2026-12-01T02:00:00.000Z");
    run["config"]["engine"] = json!("openai");
    run["config"]["model"] = json!("gpt-5.1");
    run.as_object_mut().unwrap().remove("previousRunId");
    let probes: Vec<Value> = env["probes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["runId"] == json!(old_id))
        .map(|p| {
            let mut p = p.clone();
            p["id"] = json!(p["id"].as_str().unwrap().replace(&old_id, &new_id));
            p["runId"] = json!(new_id);
            p
        })
        .collect();
    env["runs"].as_array_mut().unwrap().push(run);
    env["probes"].as_array_mut().unwrap().extend(probes);
    env
}

pub fn write_json(path: &Path, value: &Value) {
    // Replace atomically, as `geo-probe run` and most exporters do.
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, serde_json::to_string_pretty(value).unwrap()).unwrap();
    std::fs::rename(&tmp, path).unwrap();
}

/// `export.json` in the fresh scratch directory `name`, holding [`sample_export`].
pub fn sample_file(name: &str) -> PathBuf {
    let file = scratch(name).join("export.json");
    write_json(&file, &sample_export());
    file
}

pub fn cli_json(args: &[&str]) -> Value {
    let out = Command::new(BIN).args(args).output().unwrap();
    assert!(out.status.success(), "geo-probe {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}
