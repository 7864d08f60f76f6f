//! JSON export contract, hostile imports, reference checks, merging and the summary.

use crate::export_support::{sample_store, EXPORTED_AT};
use geo_core::export::{
    full_export, merge_into, parse_export, run_export, summarize, to_json_pretty, validate_against, ImportError,
    ImportErrorKind, ImportLimits, KindCount,
};
use geo_core::model::{ExportEnvelope, ProbeStatus, SCHEMA_VERSION};
use serde_json::{json, Value};

fn full() -> ExportEnvelope {
    let s = sample_store();
    full_export(s.projects, s.prompts, s.runs, s.probes, EXPORTED_AT)
}

fn full_json() -> Value {
    serde_json::from_str(&to_json_pretty(&full())).unwrap()
}

#[test]
fn top_level_keys_are_exactly_the_contract() {
    for env in [full(), run_export(&sample_store(), "run_b", EXPORTED_AT).unwrap()] {
        let v: Value = serde_json::from_str(&to_json_pretty(&env)).unwrap();
        let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
        let mut want = vec!["format", "version", "exportedAt", "appVersion", "projects", "prompts", "runs", "probes"];
        want.sort();
        let mut keys = keys;
        keys.sort();
        assert_eq!(keys, want);
        assert_eq!(v["format"], "geo-probe-export");
        assert_eq!(v["version"], SCHEMA_VERSION);
        let text = to_json_pretty(&env).to_lowercase();
        for secret in ["apikey", "api_key", "x-api-key", "settings"] {
            assert!(!text.contains(secret), "export contains {secret}");
        }
    }
}

#[test]
fn run_export_holds_one_run_with_its_prompts() {
    let env = run_export(&sample_store(), "run_b", EXPORTED_AT).unwrap();
    assert_eq!(env.runs.len(), 1);
    assert_eq!(env.projects.iter().map(|p| p.id.as_str()).collect::<Vec<_>>(), ["proj_1"]);
    // pr_1 in its current version, pr_3 (deleted from the store) as its snapshot copy.
    let prompts: Vec<(&str, &str)> = env.prompts.iter().map(|p| (p.id.as_str(), p.text.as_str())).collect();
    assert_eq!(prompts, [("pr_1", "推荐几家 GEO 监测工具（已编辑）"), ("pr_3", "Which tool, in one line?\nExplain")]);
    assert_eq!(env.probes.len(), 4);
    assert!(env.probes.iter().all(|p| p.run_id == "run_b"));
    assert!(validate_against(&env, &ExportEnvelope::new("")).is_empty());
    assert!(run_export(&sample_store(), "missing", EXPORTED_AT).is_err());
}

#[test]
fn full_export_round_trips_and_is_sorted() {
    let env = full();
    let text = to_json_pretty(&env);
    let back = parse_export(&text, &ImportLimits::default()).unwrap();
    assert_eq!(back, env);
    let again = full_export(back.projects, back.prompts, back.runs, back.probes, EXPORTED_AT);
    assert_eq!(to_json_pretty(&again), text);
    let run_ids: Vec<&str> = env.runs.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(run_ids, ["run_a", "run_b"]);
    assert!(validate_against(&env, &ExportEnvelope::new("")).is_empty());
    assert_eq!(summarize(&env), "2 projects, 3 prompts, 2 runs, 5 probes (3 success, 1 error, 1 empty, 0 cancelled)");
}

/// Parses `text` and checks it fails with `kind`, the first problem rendering as
/// `first`, the total count, and a one-line Display.
#[track_caller]
fn check_refused(text: &str, limits: &ImportLimits, kind: ImportErrorKind, first: &str, total: usize) -> ImportError {
    let base = full();
    let mut store = base.clone();
    let err = match parse_export(text, limits) {
        Ok(env) => panic!("accepted: {}", summarize(&env)),
        Err(e) => e,
    };
    assert_eq!(err.kind, kind, "{err}");
    let shown = err.problems.first().map(ToString::to_string).unwrap_or_else(|| err.summary());
    assert_eq!(shown, first, "{err}");
    assert_eq!(err.total, total, "{err}");
    assert!(!err.to_string().contains('\n'), "display is one line: {err}");
    let d = err.describe();
    assert!(!d.zh.is_empty() && !d.en.is_empty());
    // The store is untouched because nothing reached merge_into.
    assert_eq!(store, base);
    store.probes.clear();
    err
}

fn with(mutate: impl FnOnce(&mut Value)) -> String {
    let mut v = full_json();
    mutate(&mut v);
    serde_json::to_string(&v).unwrap()
}

#[test]
fn not_json_is_refused() {
    let err = check_refused(
        "hello",
        &ImportLimits::default(),
        ImportErrorKind::NotJson,
        "expected value at line 1 column 1",
        1,
    );
    assert!(err.to_string().starts_with(
        "the file is not valid json; choose a file exported by GEO Probe: expected value at line 1 column 1"
    ));
    check_refused(
        "",
        &ImportLimits::default(),
        ImportErrorKind::NotJson,
        "EOF while parsing a value at line 1 column 0",
        1,
    );
    check_refused(
        "{\"format\":",
        &ImportLimits::default(),
        ImportErrorKind::NotJson,
        "EOF while parsing a value at line 1 column 10",
        1,
    );
}

#[test]
fn wrong_format_is_refused() {
    let l = ImportLimits::default();
    check_refused("[]", &l, ImportErrorKind::WrongFormat, "expected a json object, got array", 1);
    check_refused("{}", &l, ImportErrorKind::WrongFormat, "format: expected \"geo-probe-export\", got nothing", 1);
    let text = with(|v| v["format"] = json!("other-app"));
    check_refused(
        &text,
        &l,
        ImportErrorKind::WrongFormat,
        "format: expected \"geo-probe-export\", got \"other-app\"",
        1,
    );
}

#[test]
fn future_and_bad_versions_are_refused() {
    let l = ImportLimits::default();
    let text = with(|v| v["version"] = json!(SCHEMA_VERSION + 1));
    let err = check_refused(
        &text,
        &l,
        ImportErrorKind::UnsupportedVersion { found: u64::from(SCHEMA_VERSION) + 1, supported: SCHEMA_VERSION },
        &format!(
            "this file is version {}; this app reads up to version {SCHEMA_VERSION} — update GEO Probe",
            SCHEMA_VERSION + 1
        ),
        1,
    );
    assert!(err.describe().zh.contains("请更新 GEO Probe"));
    check_refused(
        &with(|v| v["version"] = json!(0)),
        &l,
        ImportErrorKind::Invalid,
        "version: expected an integer 1..=1, got number 0",
        1,
    );
    check_refused(
        &with(|v| v["version"] = json!("1")),
        &l,
        ImportErrorKind::Invalid,
        "version: expected an integer 1..=1, got \"1\"",
        1,
    );
    check_refused(
        &with(|v| {
            v.as_object_mut().unwrap().remove("version");
        }),
        &l,
        ImportErrorKind::Invalid,
        "version: required field is missing; expected an integer 1..=1",
        1,
    );
}

#[test]
fn wrong_types_are_reported_with_paths() {
    let l = ImportLimits::default();
    let text = with(|v| {
        v["probes"][3]["status"] = json!("ok");
        v["probes"][0]["repeatIndex"] = json!(-1);
        v["runs"][1]["config"]["temperature"] = json!("hot");
        v["projects"][0]["brand"]["kind"] = json!(1);
        v["prompts"][0]["tags"] = json!("generic");
    });
    let err = check_refused(
        &text,
        &l,
        ImportErrorKind::Invalid,
        "projects[0].brand.kind: expected one of brand|competitor, got number 1",
        5,
    );
    let all: Vec<String> = err.problems.iter().map(ToString::to_string).collect();
    assert_eq!(
        all,
        [
            "projects[0].brand.kind: expected one of brand|competitor, got number 1",
            "prompts[0].tags: expected array, got \"generic\"",
            "runs[1].config.temperature: expected number, got \"hot\"",
            "probes[0].repeatIndex: expected integer 0..=4294967295, got number -1",
            "probes[3].status: expected one of success|error|empty|cancelled, got \"ok\"",
        ]
    );
    assert!(err.to_string().starts_with(
        "the export has 5 problems; fix them and import again (nothing was changed): projects[0].brand.kind"
    ));
}

#[test]
fn only_the_first_ten_problems_are_kept() {
    let text = with(|v| {
        for p in v["probes"].as_array_mut().unwrap() {
            p["status"] = json!("bad");
            p["createdAt"] = json!(5);
            p.as_object_mut().unwrap().remove("runId");
        }
    });
    let err = check_refused(
        &text,
        &ImportLimits::default(),
        ImportErrorKind::Invalid,
        "probes[0].runId: required field is missing or null",
        15,
    );
    assert_eq!(err.problems.len(), 10);
    assert!(err.to_string().ends_with("; … and 5 more"));
    assert!(err.describe().zh.contains("另有 5 处问题"));
}

#[test]
fn missing_required_fields_are_reported() {
    let l = ImportLimits::default();
    check_refused(
        &with(|v| {
            v["projects"][1].as_object_mut().unwrap().remove("name");
        }),
        &l,
        ImportErrorKind::Invalid,
        "projects[1].name: required field is missing or null",
        1,
    );
    check_refused(
        &with(|v| v["runs"][0]["config"] = Value::Null),
        &l,
        ImportErrorKind::Invalid,
        "runs[0].config: required field is missing or null",
        1,
    );
    check_refused(
        &with(|v| {
            v["probes"][1]["rawSources"][0].as_object_mut().unwrap().remove("url");
        }),
        &l,
        ImportErrorKind::Invalid,
        "probes[1].rawSources[0].url: required field is missing or null",
        1,
    );
}

#[test]
fn duplicate_ids_are_refused() {
    let text = with(|v| {
        let dup = v["prompts"][0].clone();
        v["prompts"].as_array_mut().unwrap().push(dup);
        v["projects"][1]["competitors"][0]["id"] = json!("t_brand");
    });
    let err = check_refused(
        &text,
        &ImportLimits::default(),
        ImportErrorKind::Invalid,
        "prompts[3].id: duplicate prompt id \"pr_demo\" (also at prompts[0]); keep one record per id",
        2,
    );
    assert_eq!(err.problems[1].to_string(), "projects[1].competitors[0].id: duplicate target id \"t_brand\" within the project; give each target its own id");
}

#[test]
fn huge_strings_too_many_records_and_big_files_are_refused() {
    let small = ImportLimits { max_string_chars: 200, ..ImportLimits::default() };
    let text = with(|v| v["probes"][3]["rawAnswer"] = json!("长".repeat(201)));
    check_refused(
        &text,
        &small,
        ImportErrorKind::Invalid,
        "probes[3].rawAnswer: text of 201 characters is over the limit of 200; shorten it or raise the limit",
        1,
    );
    let text = with(|v| v["probes"][3]["rawAnswer"] = json!("长".repeat(200)));
    assert!(parse_export(&text, &small).is_ok());
    let few = ImportLimits { max_records: 11, ..ImportLimits::default() };
    check_refused(
        &to_json_pretty(&full()),
        &few,
        ImportErrorKind::Invalid,
        "the file holds 12 records and the limit is 11; split the export",
        1,
    );
    let tiny = ImportLimits { max_bytes: 100, ..ImportLimits::default() };
    let big = to_json_pretty(&full());
    let want = format!(
        "the file is {:.1} KiB and the import limit is 100 bytes; split the export or raise the limit",
        big.len() as f64 / 1024.0
    );
    let err = check_refused(
        &big,
        &tiny,
        ImportErrorKind::TooLarge { bytes: to_json_pretty(&full()).len(), limit: 100 },
        &want,
        1,
    );
    assert!(err.describe().zh.starts_with("文件太大"));
}

#[test]
fn deep_nesting_is_refused_before_parsing() {
    let l = ImportLimits::default();
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    check_refused(
        &deep,
        &l,
        ImportErrorKind::TooDeep { limit: 64 },
        "the json nests deeper than 64 levels; this is not a GEO Probe export",
        1,
    );
    // Brackets inside strings do not count.
    let text = with(|v| v["probes"][0]["rawAnswer"] = json!(format!("\\\"{}", "[{".repeat(200))));
    assert!(parse_export(&text, &l).is_ok());
    // 65 levels of unknown-field nesting is refused, 64 accepted.
    let nest =
        |n: usize| with(|v| v["extra"] = serde_json::from_str(&format!("{}{}", "[".repeat(n), "]".repeat(n))).unwrap());
    assert!(parse_export(&nest(63), &l).is_ok());
    check_refused(
        &nest(64),
        &l,
        ImportErrorKind::TooDeep { limit: 64 },
        "the json nests deeper than 64 levels; this is not a GEO Probe export",
        1,
    );
}

#[test]
fn lenient_inputs_are_accepted() {
    let l = ImportLimits::default();
    // Unknown fields ignored, nulls for optional fields, a BOM, integral floats,
    // fractional latency, and a malformed derived field dropped for recomputation.
    let text = with(|v| {
        v["settings"] = json!({"apiKey": "sk-should-not-matter"});
        v["probes"][0]["requestId"] = Value::Null;
        v["probes"][0]["unknown"] = json!([1, 2]);
        v["probes"][0]["attempts"] = json!(2.0);
        v["probes"][0]["latencyMs"] = json!(1234.6);
        v["probes"][1]["mentions"] = json!([{"target": "old-shape"}]);
    });
    let env = parse_export(&format!("\u{feff}{text}"), &l).unwrap();
    assert_eq!(env.probes[0].attempts, 2);
    assert_eq!(env.probes[0].latency_ms, 1235);
    assert!(env.probes[1].mentions.is_empty());
    assert!(!to_json_pretty(&env).contains("sk-should-not-matter"));
}

#[test]
fn original_web_app_probe_without_raw_result_keeps_its_data() {
    let text = with(|v| {
        let p = v["probes"][1].as_object_mut().unwrap(); // run_b__pr_1__0 with sources
        p.remove("rawAnswer");
        p.remove("rawSources");
        p.remove("queries");
    });
    let env = parse_export(&text, &ImportLimits::default()).unwrap();
    let probe = &env.probes[1];
    assert_eq!(probe.raw_answer, probe.answer);
    let raw: Vec<(u32, u32, &str)> =
        probe.raw_sources.iter().map(|r| (r.query_index, r.rank, r.url.as_str())).collect();
    assert_eq!(
        raw,
        [(1, 1, "https://www.zhihu.com/q/1"), (1, 2, "https://acme.example/blog"), (2, 1, "https://www.zhihu.com/q/1")]
    );
    let queries: Vec<(u32, Option<&str>, bool)> =
        probe.queries.iter().map(|q| (q.index, q.query.as_deref(), q.internal)).collect();
    assert_eq!(queries, [(1, Some("GEO 监测工具, 排名"), false), (2, None, true)]);
}

#[test]
fn references_are_checked_against_file_and_store() {
    let single = run_export(&sample_store(), "run_b", EXPORTED_AT).unwrap();
    let mut probes_only = ExportEnvelope::new(EXPORTED_AT);
    probes_only.probes = single.probes.clone();
    let alone = validate_against(&probes_only, &ExportEnvelope::new(""));
    assert_eq!(alone.len(), 4);
    assert_eq!(
        alone[0].to_string(),
        "probes[0].runId: probe \"run_b__pr_1__0\" refers to run \"run_b\" that is not in the file"
    );
    // The store already has the run: the import is allowed.
    assert!(validate_against(&probes_only, &full()).is_empty());
    let mut empty_store = full();
    empty_store.runs.clear();
    let p = validate_against(&probes_only, &empty_store);
    assert_eq!(
        p[0].message,
        "probe \"run_b__pr_1__0\" refers to run \"run_b\" that is neither in the file nor in the existing data"
    );
    // A probe in another project than its run.
    let mut wrong = single.clone();
    wrong.probes[0].project_id = "proj_0".into();
    let p = validate_against(&wrong, &full());
    assert_eq!(p.len(), 1);
    assert_eq!(p[0].path, "probes[0].projectId");
    // Prompts and runs need their project.
    let mut orphan = single;
    orphan.projects.clear();
    let p = validate_against(&orphan, &ExportEnvelope::new(""));
    let paths: Vec<&str> = p.iter().map(|p| p.path.as_str()).collect();
    assert_eq!(paths, ["prompts[0].projectId", "prompts[1].projectId", "runs[0].projectId"]);
    let err = ImportError::invalid(p);
    assert_eq!(err.total, 3);
}

#[test]
fn merge_adds_and_overwrites_by_id() {
    let mut store = full();
    let mut incoming = run_export(&store, "run_b", EXPORTED_AT).unwrap();
    incoming.probes[0].status = ProbeStatus::Error;
    incoming.projects[0].name = "renamed".into();
    let mut fresh = incoming.prompts[0].clone();
    fresh.id = "pr_new".into();
    incoming.prompts.push(fresh);
    let report = merge_into(&mut store, incoming);
    assert_eq!(report.projects, KindCount { added: 0, updated: 1, unchanged: 0 });
    // pr_3 was deleted from the store: the run export brings it back.
    assert_eq!(report.prompts, KindCount { added: 2, updated: 0, unchanged: 1 });
    assert_eq!(report.runs, KindCount { added: 0, updated: 0, unchanged: 1 });
    assert_eq!(report.probes, KindCount { added: 0, updated: 1, unchanged: 3 });
    assert_eq!(report.to_string(), "merged 1 project (0 new, 1 updated), 3 prompts (2 new, 0 updated, 1 unchanged), 1 run (0 new, 0 updated, 1 unchanged), 4 probes (0 new, 1 updated, 3 unchanged)");
    assert_eq!(report.describe().zh, "已合并 1 个项目（新增 0，更新 1）、3 个提示词（新增 2，更新 0，未变 1）、1 个批次（新增 0，更新 0，未变 1）、4 个探测（新增 0，更新 1，未变 3）");
    assert_eq!(store.projects.iter().find(|p| p.id == "proj_1").unwrap().name, "renamed");
    assert_eq!(store.prompts.len(), 5);
    assert_eq!(store.probes.iter().filter(|p| p.status == ProbeStatus::Error).count(), 2);
    // Merging the same file again changes nothing.
    let before = store.clone();
    let again = merge_into(&mut store, before.clone());
    assert_eq!(store, before);
    assert_eq!(again.probes, KindCount { added: 0, updated: 0, unchanged: 5 });
}
