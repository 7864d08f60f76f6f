//! `geo-probe warehouse` as a daily job uses it (shared/spec/cli.md, data-model.md "Warehouse
//! tables"): the folder layout and the printed lines, a run written again replacing its files
//! wherever they are (its engine or date changed) while other runs' files stay untouched, an
//! unknown `--run` or an unreadable `createdAt` writing nothing (exit 2), a hostile run id
//! kept inside the folder, and the Parquet files' own metadata (zstd, statistics, UTC
//! microsecond timestamps) read back with the `parquet` crate. Security review 3: a planted
//! symbolic link at any level is refused (exit 2) and never written through (L4), a failed
//! table leaves every table as it was, byte for byte (L4), and ids differing only in case get
//! files of their own (I3). The tables are geo-core's `TABLES`, which geo-core's tests hold to
//! the documented list (`docs/warehouse.md`).

mod support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Output;

use geo_core::export::warehouse::TABLES;
use parquet::file::reader::{FileReader, SerializedFileReader};
use serde_json::Value;
use support::{ok, read_json, root};

fn scratch(name: &str) -> PathBuf {
    support::target_scratch("warehouse", name)
}

fn geo_probe(args: &[&str]) -> Output {
    support::geo_probe().args(args).output().unwrap()
}

/// Exit 2 and one line `error: …` holding `needle` (bad input).
#[track_caller]
fn refused(o: &Output, needle: &str) {
    error_line(o, 2, needle);
}

/// Exit `code`, one line `error: …` holding `needle` and nothing on standard output.
#[track_caller]
fn error_line(o: &Output, code: i32, needle: &str) {
    assert_eq!(o.status.code(), Some(code), "{}", String::from_utf8_lossy(&o.stderr));
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

/// The demo export (`demo/demo-data.json`), its path.
fn demo_file() -> String {
    root().join("demo/demo-data.json").to_str().unwrap().to_string()
}

fn demo() -> Value {
    read_json(Path::new(&demo_file()))
}

fn write(path: &Path, env: &Value) -> String {
    std::fs::write(path, serde_json::to_vec(env).unwrap()).unwrap();
    path.to_str().unwrap().to_string()
}

#[test]
fn the_demo_makes_one_file_per_run_and_table_and_says_so() {
    let dir = scratch("demo").join("out");
    let stdout = ok(&geo_probe(&["warehouse", &demo_file(), "--out", dir.to_str().unwrap()]));
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
    let file = &demo_file();
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

/// Every entry under `dir`, links never followed: a folder, a file's bytes or a link's target.
fn listing(dir: &Path) -> BTreeMap<String, String> {
    fn walk(base: &Path, dir: &Path, out: &mut BTreeMap<String, String>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let rel = path.strip_prefix(base).unwrap().to_string_lossy().replace('\\', "/");
            let kind = std::fs::symlink_metadata(&path).unwrap().file_type();
            if kind.is_symlink() {
                out.insert(rel, format!("link to {}", std::fs::read_link(&path).unwrap().display()));
            } else if kind.is_dir() {
                out.insert(rel, "folder".into());
                walk(base, &path, out);
            } else {
                let bytes = std::fs::read(&path).unwrap();
                let hash = bytes
                    .iter()
                    .fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ u64::from(*b)).wrapping_mul(0x100_0000_01b3));
                out.insert(rel, format!("{} bytes, {hash:016x}", bytes.len()));
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

/// Asserts that two listings are equal, naming only the entries that differ.
#[track_caller]
fn same_listing(after: &BTreeMap<String, String>, before: &BTreeMap<String, String>, what: &str) {
    let keys: std::collections::BTreeSet<&String> = after.keys().chain(before.keys()).collect();
    let changed: Vec<String> = keys
        .into_iter()
        .filter(|k| after.get(*k) != before.get(*k))
        .map(|k| format!("{k}: {:?} -> {:?}", before.get(k), after.get(k)))
        .collect();
    assert!(changed.is_empty(), "{what}: {changed:#?}");
}

/// Security review 3, L4: a symbolic link planted as a table folder, an `engine=` or a
/// `run_date=` folder, or a file of a run being written, in a new folder or over a written
/// one, is refused (exit 2) with one line naming it; nothing is written or removed in the
/// folder or through the link, and no staging folder is left. `--out` itself may be a link.
#[cfg(unix)]
#[test]
fn a_planted_link_at_any_level_is_refused_and_never_written_through() {
    let work = scratch("links");
    let file = &demo_file();
    // The review's case: a table folder of a new output folder links elsewhere.
    let elsewhere = work.join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    let fresh = work.join("fresh");
    std::fs::create_dir_all(&fresh).unwrap();
    std::os::unix::fs::symlink(&elsewhere, fresh.join("sources")).unwrap();
    let before = listing(&fresh);
    refused(&geo_probe(&["warehouse", file, "--out", fresh.to_str().unwrap()]), "fresh/sources is a symbolic link");
    same_listing(&listing(&fresh), &before, "the new folder is as it was");
    assert!(listing(&elsewhere).is_empty(), "nothing is written through the link");

    // `--out` itself may be a link: the user named it.
    let real = work.join("real");
    std::fs::create_dir_all(&real).unwrap();
    std::os::unix::fs::symlink(&real, work.join("linked")).unwrap();
    ok(&geo_probe(&["warehouse", file, "--out", work.join("linked").to_str().unwrap()]));
    assert_eq!(tree(&real).len(), 10 * TABLES.len(), "the tables are written into the folder --out links to");

    // Over a written folder: each level in turn, pointing at a copy holding a victim file.
    let written = work.join("written");
    ok(&geo_probe(&["warehouse", file, "--out", written.to_str().unwrap()]));
    let levels = [
        "probes",
        "probes/engine=openai",
        "mentions/engine=deepseek/run_date=2026-11-22",
        "runs/engine=deepseek/run_date=2026-11-29/run_20261129T020000_demo.parquet",
    ];
    for (i, level) in levels.iter().enumerate() {
        let dir = work.join(format!("out{i}"));
        copy_tree(&written, &dir);
        let planted = dir.join(level);
        let target = work.join(format!("target{i}"));
        std::fs::rename(&planted, &target).unwrap();
        std::os::unix::fs::symlink(&target, &planted).unwrap();
        let inside = listing(&dir);
        let outside = if target.is_dir() { listing(&target) } else { BTreeMap::new() };
        let o = geo_probe(&["warehouse", file, "--out", dir.to_str().unwrap()]);
        refused(&o, &format!("out{i}/{level} is a symbolic link"));
        same_listing(&listing(&dir), &inside, &format!("{level}: the folder is as it was"));
        if target.is_dir() {
            same_listing(
                &listing(&target),
                &outside,
                &format!("{level}: nothing is written or removed through the link"),
            );
        } else {
            assert_eq!(std::fs::read(&target).unwrap(), std::fs::read(written.join(level)).unwrap(), "{level}");
        }
    }
}

/// Security review 3, L4: a table that cannot be written fails the whole command (exit 1, one
/// line saying no run was written) and leaves every table as it was, byte for byte — in a new
/// folder (a file where a partition folder must go: the review's case) and over a written one
/// where the runs are being replaced and one moves to another partition (a folder where the
/// last table file must go, so every other file was already in place and is put back). Once
/// the obstacle is gone, the same command writes the folder a fresh write makes.
#[test]
fn a_failed_table_leaves_every_table_as_it_was() {
    let work = scratch("failed");
    let file = &demo_file();
    let fresh = work.join("fresh");
    std::fs::create_dir_all(fresh.join("sources")).unwrap();
    std::fs::write(fresh.join("sources/engine=deepseek"), "not a folder").unwrap();
    let before = listing(&fresh);
    error_line(
        &geo_probe(&["warehouse", file, "--out", fresh.to_str().unwrap()]),
        1,
        "none of the 10 runs was written (every table is as it was): ",
    );
    same_listing(&listing(&fresh), &before, "no table, partition, file or staging folder is left");

    let dir = work.join("out");
    let out = dir.to_str().unwrap();
    ok(&geo_probe(&["warehouse", file, "--out", out]));
    // The runs change (another model each), and the newer DeepSeek run moves to another
    // engine and day: its old files are removed only once the new ones are in place.
    let mut env = demo();
    for run in env["runs"].as_array_mut().unwrap() {
        run["config"]["model"] = "another-model".into();
    }
    let moved = "run_20261129T020000_demo";
    let run = env["runs"].as_array_mut().unwrap().iter_mut().find(|r| r["id"] == moved).unwrap();
    run["config"]["engine"] = "openai".into();
    run["createdAt"] = "2026-12-01T02:00:00.000Z".into();
    let changed = write(&work.join("changed.json"), &env);
    let last = "risk_flags/engine=openai/run_date=2026-12-01/run_20261129T020000_demo.parquet";
    std::fs::create_dir_all(dir.join(last).join("a folder")).unwrap();
    let before = listing(&dir);
    error_line(&geo_probe(&["warehouse", &changed, "--out", out]), 1, "is a folder where a table file must be");
    same_listing(&listing(&dir), &before, "every table is as it was, the moved run's old files too");

    std::fs::remove_dir_all(dir.join(last)).unwrap();
    ok(&geo_probe(&["warehouse", &changed, "--out", out]));
    let again = work.join("again");
    ok(&geo_probe(&["warehouse", &changed, "--out", again.to_str().unwrap()]));
    let expected = listing(&again);
    let after = listing(&dir);
    let empty: Vec<&String> = after.keys().filter(|k| !expected.contains_key(*k)).collect();
    assert!(empty.iter().all(|k| after[*k] == "folder"), "only emptied folders differ: {empty:?}");
    let files = |l: &BTreeMap<String, String>| -> BTreeMap<String, String> {
        l.iter().filter(|(_, v)| *v != "folder").map(|(k, v)| (k.clone(), v.clone())).collect()
    };
    same_listing(&files(&after), &files(&expected), "the runs are written whole, the moved run's old files gone");
}

/// Security review 3, I3: two runs whose ids differ only in case get files whose names differ
/// once case is folded (macOS and Windows fold it), the ids geo-probe makes keep their names,
/// and a file a run had under its former name is replaced, not left beside the new one.
#[test]
fn runs_differing_only_in_case_get_files_of_their_own() {
    let work = scratch("case");
    let mut env = demo();
    let renames = [("run_20261122T020000_demo", "Run_A"), ("run_20261128T020000_openai_demo", "run_a")];
    for (old, new) in renames {
        env["runs"].as_array_mut().unwrap().iter_mut().find(|r| r["id"] == old).unwrap()["id"] = new.into();
        for p in env["probes"].as_array_mut().unwrap().iter_mut().filter(|p| p["runId"] == old) {
            p["runId"] = new.into();
            p["id"] = p["id"].as_str().unwrap().replace(old, new).into();
        }
    }
    let file = write(&work.join("case.json"), &env);
    let dir = work.join("out");
    // A file of `Run_A` under the name it had before names told case apart.
    let former = dir.join("probes/engine=deepseek/run_date=2026-11-22/Run_A.parquet");
    std::fs::create_dir_all(former.parent().unwrap()).unwrap();
    std::fs::write(&former, "written by an older geo-probe").unwrap();
    ok(&geo_probe(&["warehouse", &file, "--out", dir.to_str().unwrap()]));
    let names: Vec<String> = tree(&dir).into_keys().collect();
    assert_eq!(names.len(), 10 * TABLES.len(), "{names:?}");
    let folded: std::collections::BTreeSet<String> = names.iter().map(|n| n.to_lowercase()).collect();
    assert_eq!(folded.len(), names.len(), "{names:?}");
    assert!(names.contains(&"runs/engine=openai/run_date=2026-11-28/run_a.parquet".to_string()), "{names:?}");
    assert!(names.contains(&"runs/engine=deepseek/run_date=2026-11-29/run_20261129T020000_demo.parquet".to_string()));
    let upper: Vec<&String> = names.iter().filter(|n| n.contains("/Run_A~")).collect();
    assert_eq!(upper.len(), TABLES.len(), "{names:?}");
    assert!(!former.exists(), "the former name's file is replaced");
}

/// A copy of the folder `from` at `to` (files and folders; the output holds no links).
fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let path = entry.unwrap().path();
        let dest = to.join(path.file_name().unwrap());
        if path.is_dir() {
            copy_tree(&path, &dest);
        } else {
            std::fs::copy(&path, &dest).unwrap();
        }
    }
}
