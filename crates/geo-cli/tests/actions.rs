//! `geo-probe actions` on the fixture exports: the output is geo-core's golden
//! (`crates/geo-core/tests/it/snapshots/it__actions_goldens__*`) byte for byte, in JSON and
//! in Markdown (zh, en), for the runs the goldens were made for.

use std::path::{Path, PathBuf};
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_geo-probe");

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The body of geo-core's insta snapshot `name` (after its front matter).
fn golden(name: &str) -> String {
    let path = root().join(format!("crates/geo-core/tests/it/snapshots/it__actions_goldens__{name}.snap"));
    let snap = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    snap.splitn(3, "---\n").nth(2).expect("a snapshot with front matter").to_string()
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
