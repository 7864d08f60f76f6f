//! `geo-probe warehouse` as a daily job uses it (shared/spec/cli.md, data-model.md "Warehouse
//! tables"): the folder layout and the printed lines, a run written again replacing its files
//! wherever they are (its engine or date changed) while other runs' files stay untouched, an
//! unknown `--run` or an unreadable `createdAt` writing nothing (exit 2), a hostile run id
//! kept inside the folder, and the Parquet files' own metadata (zstd, statistics, UTC
//! microsecond timestamps) read back with the `parquet` crate.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use parquet::file::reader::{FileReader, SerializedFileReader};
use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_geo-probe");
const TABLES: [&str; 8] = ["runs", "targets", "prompts", "probes", "mentions", "queries", "sources", "answer_links"];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("warehouse").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn geo_probe(args: &[&str]) -> Output {
    Command::new(BIN).args(args).output().unwrap()
}

#[track_caller]
fn ok(o: &Output) -> String {
    assert!(o.status.success(), "exit {:?}: {}", o.status.code(), String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout.clone()).unwrap()
}

#[track_caller]
fn refused(o: &Output, needle: &str) {
    assert_eq!(o.status.code(), Some(2), "{}", String::from_utf8_lossy(&o.stderr));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err.lines().count(), 1, "one line: {err}");
    assert!(err.starts_with("error: ") && err.contains(needle), "{err}");
    assert!(o.stdout.is_empty());
}

/// Every file under `dir` with its bytes, by path relative to `dir`.
fn tree(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    fn walk(base: &Path, dir: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(base, &path, out);
            } else {
                let rel = path.strip_prefix(base).unwrap().to_string_lossy().replace('\\', "/");
                out.insert(rel, std::fs::read(&path).unwrap());
            }
        }
    }
    let mut out = BTreeMap::new();
    if dir.exists() {
        walk(dir, dir, &mut out);
    }
    out
}

fn demo() -> Value {
    serde_json::from_str(&std::fs::read_to_string(root().join("demo/demo-data.json")).unwrap()).unwrap()
}

fn write(path: &Path, env: &Value) -> String {
    std::fs::write(path, serde_json::to_vec(env).unwrap()).unwrap();
    path.to_str().unwrap().to_string()
}

#[test]
fn the_demo_makes_one_file_per_run_and_table_and_says_so() {
    let dir = scratch("demo").join("out");
    let file = root().join("demo/demo-data.json");
    let stdout = ok(&geo_probe(&["warehouse", file.to_str().unwrap(), "--out", dir.to_str().unwrap()]));
    let files = tree(&dir);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), TABLES.len(), "{stdout}");
    for (line, table) in lines.iter().zip(TABLES) {
        let (name, rest) = line.split_once(": ").unwrap();
        assert_eq!(name, table);
        let (rows, bytes) = rest.split_once(" rows, ").unwrap();
        let bytes: usize = bytes.strip_suffix(" bytes").unwrap().parse().unwrap();
        let on_disk: usize =
            files.iter().filter(|(p, _)| p.starts_with(&format!("{table}/"))).map(|(_, b)| b.len()).sum();
        assert_eq!(bytes, on_disk, "{table}: the bytes printed are the files'");
        let read: i64 = files
            .keys()
            .filter(|p| p.starts_with(&format!("{table}/")))
            .map(|p| {
                SerializedFileReader::new(std::fs::File::open(dir.join(p)).unwrap())
                    .unwrap()
                    .metadata()
                    .file_metadata()
                    .num_rows()
            })
            .sum();
        assert_eq!(rows, read.to_string(), "{table}: the rows printed are the files'");
    }
    // Two DeepSeek weeks and the eight other engines' runs of 2026-11-28, 21 probes each.
    assert!(stdout.starts_with("runs: 10 rows, ") && stdout.contains("\nprobes: 210 rows, "), "{stdout}");
    let mut runs = vec![
        ("deepseek", "2026-11-22", "run_20261122T020000_demo".to_string()),
        ("deepseek", "2026-11-29", "run_20261129T020000_demo".to_string()),
    ];
    for engine in ["anthropic", "openai", "gemini", "perplexity", "qwen", "doubao", "ernie", "hunyuan"] {
        runs.push((engine, "2026-11-28", format!("run_20261128T020000_{engine}_demo")));
    }
    let mut expected: Vec<String> = Vec::new();
    for (engine, date, run) in &runs {
        for table in TABLES {
            expected.push(format!("{table}/engine={engine}/run_date={date}/{run}.parquet"));
        }
    }
    expected.sort();
    assert_eq!(files.keys().cloned().collect::<Vec<_>>(), expected, "no temp file is left either");

    // The files' own metadata: zstd, statistics, one row group, UTC microsecond timestamps.
    let open = |path: &str| SerializedFileReader::new(std::fs::File::open(dir.join(path)).unwrap()).unwrap();
    let probes = open("probes/engine=deepseek/run_date=2026-11-29/run_20261129T020000_demo.parquet");
    let meta = probes.metadata();
    assert_eq!(meta.num_row_groups(), 1);
    for column in meta.row_group(0).columns() {
        assert!(matches!(column.compression(), parquet::basic::Compression::ZSTD(_)), "{}", column.column_path());
        assert!(column.statistics().is_some(), "statistics of {}", column.column_path());
    }
    let runs = open("runs/engine=deepseek/run_date=2026-11-29/run_20261129T020000_demo.parquet");
    let schema = runs.metadata().file_metadata().schema_descr();
    let created = schema.columns().iter().find(|c| c.name() == "created_at").unwrap();
    match created.logical_type_ref() {
        Some(parquet::basic::LogicalType::Timestamp(t)) => {
            assert!(t.is_adjusted_to_u_t_c);
            assert!(matches!(t.unit, parquet::basic::TimeUnit::MICROS), "{:?}", t.unit);
        }
        other => panic!("created_at is {other:?}"),
    }
}

#[test]
fn a_run_written_again_replaces_its_files_wherever_they_are() {
    let work = scratch("again");
    let dir = work.join("out");
    let out = dir.to_str().unwrap();
    let mut env = demo();
    let first = write(&work.join("day1.json"), &env);
    ok(&geo_probe(&["warehouse", &first, "--out", out]));
    let before = tree(&dir);
    // The same export again: the same bytes (files are deterministic), nothing else appears.
    ok(&geo_probe(&["warehouse", &first, "--out", out]));
    assert_eq!(tree(&dir), before);

    // The newer run moves: another engine and another day; only it is written.
    let moved = "run_20261129T020000_demo";
    let run = env["runs"].as_array_mut().unwrap().iter_mut().find(|r| r["id"] == moved).unwrap();
    run["config"]["engine"] = "openai".into();
    run["createdAt"] = "2026-11-30T23:30:00-02:00".into();
    let second = write(&work.join("day2.json"), &env);
    let stdout = ok(&geo_probe(&["warehouse", &second, "--out", out, "--run", moved]));
    assert!(stdout.starts_with("runs: 1 rows, "), "{stdout}");
    let after = tree(&dir);
    for table in TABLES {
        assert!(!after.contains_key(&format!("{table}/engine=deepseek/run_date=2026-11-29/{moved}.parquet")));
        assert!(after.contains_key(&format!("{table}/engine=openai/run_date=2026-12-01/{moved}.parquet")), "{table}");
        let other = format!("{table}/engine=deepseek/run_date=2026-11-22/run_20261122T020000_demo.parquet");
        assert_eq!(after[&other], before[&other], "{other} is not touched");
    }
    assert_eq!(after.len(), before.len());
}

#[test]
fn bad_requests_write_nothing() {
    let work = scratch("bad");
    let dir = work.join("out");
    let out = dir.to_str().unwrap();
    let file = root().join("demo/demo-data.json");
    let file = file.to_str().unwrap();
    refused(
        &geo_probe(&["warehouse", file, "--out", out, "--run", "run_20261122T020000_demo", "--run", "no_such_run"]),
        "no_such_run",
    );
    assert!(!dir.exists(), "an unknown run creates nothing");
    ok(&geo_probe(&["warehouse", file, "--out", out, "--run", "run_20261122T020000_demo"]));
    let before = tree(&dir);
    refused(&geo_probe(&["warehouse", file, "--out", out, "--run", "no_such_run"]), "no_such_run");
    assert_eq!(tree(&dir), before);

    let mut env = demo();
    env["runs"][1]["createdAt"] = "yesterday".into();
    let broken = write(&work.join("broken.json"), &env);
    refused(&geo_probe(&["warehouse", &broken, "--out", out]), "yesterday");
    assert_eq!(tree(&dir), before, "an unreadable createdAt writes nothing");

    refused(&geo_probe(&["warehouse", file]), "--out");
    refused(&geo_probe(&["warehouse", file, "--out", &broken]), "is a file");
    refused(&geo_probe(&["warehouse", work.join("missing.json").to_str().unwrap(), "--out", out]), "missing.json");
    assert_eq!(tree(&dir), before);
}

#[test]
fn a_hostile_run_id_stays_inside_the_folder() {
    let work = scratch("hostile");
    let dir = work.join("deep/out");
    let mut env = demo();
    let old = env["runs"][0]["id"].as_str().unwrap().to_string();
    let hostile = "../../escaped/..\\x";
    env["runs"][0]["id"] = hostile.into();
    for p in env["probes"].as_array_mut().unwrap().iter_mut().filter(|p| p["runId"] == old.as_str()) {
        p["runId"] = hostile.into();
        p["id"] = p["id"].as_str().unwrap().replace(&old, hostile).into();
    }
    let file = write(&work.join("hostile.json"), &env);
    ok(&geo_probe(&["warehouse", &file, "--out", dir.to_str().unwrap()]));
    let names: Vec<String> = tree(&work).into_keys().collect();
    assert!(names.iter().all(|n| n == "hostile.json" || n.starts_with("deep/out/")), "{names:?}");
    assert!(names.iter().any(|n| n.ends_with("/%2E.%2F..%2Fescaped%2F..%5Cx.parquet")), "{names:?}");
}

/// A partition folder planted as a symbolic link is not followed: a file of the same name
/// outside the folder is never removed as one of the run's older files.
#[cfg(unix)]
#[test]
fn a_planted_link_is_not_followed_when_older_files_are_removed() {
    let work = scratch("link");
    let outside = work.join("outside/run_date=2026-11-29");
    std::fs::create_dir_all(&outside).unwrap();
    let victim = outside.join("run_20261129T020000_demo.parquet");
    std::fs::write(&victim, "precious").unwrap();
    let dir = work.join("out");
    std::fs::create_dir_all(dir.join("probes")).unwrap();
    std::os::unix::fs::symlink(work.join("outside"), dir.join("probes/engine=openai")).unwrap();
    let file = root().join("demo/demo-data.json");
    ok(&geo_probe(&["warehouse", file.to_str().unwrap(), "--out", dir.to_str().unwrap()]));
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
    assert!(dir.join("probes/engine=deepseek/run_date=2026-11-29/run_20261129T020000_demo.parquet").is_file());
}
