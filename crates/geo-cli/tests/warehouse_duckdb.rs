//! The proof that the warehouse and the CLI agree: the runs of every fixture export, of the
//! demo and of a generated export (ties in a domain's attribution, a run without probes, one
//! without successes, a duplicate target id, no brand, citations, an offset time, a fact sheet
//! with claims of every verdict, a fact without claims, risk flags) are written
//! with `geo-probe warehouse`, read by DuckDB (the PyPI wheel, pinned in
//! `tests/warehouse_duckdb/requirements.txt`, installed into a venv by `python_support`), and
//! every column of the views of `sql/metrics.sql` is compared with `geo-probe metrics` on the
//! same file (floats within 1e-9). DuckDB also reports each table's rows (equal to the CLI's
//! `TABLE: N rows` lines), the columns' types and the files' Parquet metadata (zstd,
//! statistics on every column chunk, one row group per file).

mod python_support;
mod support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use geo_core::prng::SplitMix64;
use serde_json::{json, Value};
use support::root;

const BIN: &str = env!("CARGO_BIN_EXE_geo-probe");

fn scratch(name: &str) -> PathBuf {
    support::target_scratch("warehouse-duckdb", name)
}

fn cli(args: &[&str]) -> String {
    let out = python_support::run(Command::new(BIN).args(args), &format!("run geo-probe {}", args[0]));
    String::from_utf8(out.stdout).unwrap()
}

/// The `TABLE: N rows, B bytes` lines as (table, rows).
fn printed_rows(stdout: &str) -> BTreeMap<String, u64> {
    stdout
        .lines()
        .map(|l| {
            let (table, rest) = l.split_once(": ").unwrap();
            (table.to_string(), rest.split(' ').next().unwrap().parse().unwrap())
        })
        .collect()
}

#[track_caller]
fn same_number(what: &str, sql: &Value, cli: &Value) {
    match (sql.as_f64(), cli.as_f64()) {
        (Some(a), Some(b)) => assert!((a - b).abs() <= 1e-9, "{what}: DuckDB {a} vs geo-probe metrics {b}"),
        _ => assert!(sql.is_null() && cli.is_null(), "{what}: DuckDB {sql} vs geo-probe metrics {cli}"),
    }
}

/// A view's `row` against the metrics object `want` it comes from: each of `same` (column,
/// field) equal, each of `numbers` the same number, and `columns` columns in all; `at` names
/// a column in a message.
#[track_caller]
fn same_row(
    at: impl Fn(&str) -> String,
    row: &Value,
    want: &Value,
    same: &[(&str, &str)],
    numbers: &[(&str, &str)],
    columns: usize,
) {
    for (column, field) in same {
        assert_eq!(row[column], want[field], "{}", at(column));
    }
    for (column, field) in numbers {
        same_number(&at(column), &row[column], &want[field]);
    }
    assert_eq!(row.as_object().unwrap().len(), columns, "{}: {row}", at("the number of columns"));
}

/// Every column of the views against the metrics of the same runs.
fn compare(name: &str, views: &Value, metrics: &[Value]) {
    let by_run = |view: &str| -> BTreeMap<String, Vec<&Value>> {
        let mut map: BTreeMap<String, Vec<&Value>> = BTreeMap::new();
        for row in views[view].as_array().unwrap() {
            map.entry(row["run_id"].as_str().unwrap().to_string()).or_default().push(row);
        }
        map
    };
    let (runs, shares, domains) = (by_run("run_metrics"), by_run("share_of_voice"), by_run("domain_metrics"));
    let (facts, flags) = (by_run("fact_metrics"), by_run("risk_flag_metrics"));
    assert_eq!(runs.len(), metrics.len(), "{name}: one run_metrics row per run");
    for m in metrics {
        let id = m["runId"].as_str().unwrap();
        let at = |what: &str| format!("{name}/{id}: {what}");
        let row = runs[id][0];
        assert_eq!(runs[id].len(), 1, "{}", at("one row"));
        let numbers = [
            ("probe_count", "probeCount"),
            ("success_count", "successCount"),
            ("failed_count", "failedCount"),
            ("mention_rate", "mentionRate"),
            ("first_mention_rate", "firstMentionRate"),
            ("avg_order", "avgOrder"),
            ("avg_list_position", "avgListPosition"),
            ("owned_visibility", "ownedVisibility"),
            ("owned_best_rank", "ownedBestRank"),
            ("unique_domains", "uniqueDomains"),
            ("searched_rate", "searchedRate"),
        ];
        same_row(|c| at(&format!("run_metrics.{c}")), row, m, &[("engine", "engine")], &numbers, 13);

        let want = m["shareOfVoice"].as_object().unwrap();
        let got = shares.get(id).cloned().unwrap_or_default();
        assert_eq!(got.len(), want.len(), "{}", at("one share_of_voice row per target"));
        for row in got {
            let target = row["target_id"].as_str().unwrap();
            same_number(&at(&format!("share of {target}")), &row["share"], &want[target]);
        }

        let want = m["domains"].as_array().unwrap();
        let got: BTreeMap<&str, &Value> = domains
            .get(id)
            .map(|rows| rows.iter().map(|r| (r["domain"].as_str().unwrap(), *r)).collect())
            .unwrap_or_default();
        assert_eq!(got.len(), want.len(), "{}", at("one domain_metrics row per domain"));
        for d in want {
            let domain = d["domain"].as_str().unwrap();
            let same = [("ownership", "ownership"), ("platform", "platform"), ("channel", "channel")];
            let numbers = [
                ("probe_count", "probeCount"),
                ("occurrences", "occurrences"),
                ("occurrence_rate", "occurrenceRate"),
                ("avg_rank", "avgRank"),
                ("best_rank", "bestRank"),
                ("occurrence_share", "occurrenceShare"),
            ];
            same_row(|c| at(&format!("domain_metrics {domain}.{c}")), got[domain], d, &same, &numbers, 11);
        }

        // fact_metrics and risk_flag_metrics: the rows `facts` and `riskFlags`, in their order.
        fn ordered<'a>(rows: Option<&Vec<&'a Value>>) -> Vec<&'a Value> {
            let mut rows = rows.cloned().unwrap_or_default();
            rows.sort_by_key(|r| r["position"].as_u64().unwrap());
            rows
        }
        let want = m["facts"].as_array().unwrap();
        let got = ordered(facts.get(id));
        assert_eq!(got.len(), want.len(), "{}", at("one fact_metrics row per fact"));
        for (row, f) in got.iter().zip(want) {
            let fact = f["factId"].as_str().unwrap();
            let same = [("fact_id", "factId"), ("target_id", "targetId"), ("label", "label")];
            let numbers = [
                ("probes_with_claim", "probesWithClaim"),
                ("consistent", "consistent"),
                ("contradicts", "contradicts"),
                ("unverified", "unverified"),
                ("contradiction_rate", "contradictionRate"),
            ];
            same_row(|c| at(&format!("fact_metrics {fact}.{c}")), row, f, &same, &numbers, 10);
        }
        let want = m["riskFlags"].as_array().unwrap();
        let got = ordered(flags.get(id));
        assert_eq!(got.len(), want.len(), "{}", at("one risk_flag_metrics row per target"));
        for (row, f) in got.iter().zip(want) {
            let target = f["targetId"].as_str().unwrap();
            let numbers = [
                ("mentioning_count", "mentioningCount"),
                ("flagged_count", "flaggedCount"),
                ("flagged_rate", "flaggedRate"),
                ("flagged_low", "flaggedLow"),
                ("flagged_high", "flaggedHigh"),
                ("negative", "negative"),
                ("caution", "caution"),
                ("watch", "watch"),
            ];
            // The rows come in the order of `riskFlags`: the same target at each place.
            same_row(
                |c| at(&format!("risk_flag_metrics {target}.{c}")),
                row,
                f,
                &[("target_id", "targetId")],
                &numbers,
                11,
            );
        }
    }
}

/// Types a SQL engine must see (data-model.md: snake_case, UTC microsecond timestamps).
fn check_types(name: &str, types: &Value) {
    assert_eq!(types["runs"]["created_at"], "TIMESTAMP WITH TIME ZONE", "{name}");
    assert_eq!(types["runs"]["finished_at"], "TIMESTAMP WITH TIME ZONE", "{name}");
    assert_eq!(types["prompts"]["tags"], "VARCHAR[]", "{name}");
    assert_eq!(types["probes"]["truncated"], "BOOLEAN", "{name}");
    assert_eq!(types["probes"]["cost_usd"], "DOUBLE", "{name}");
    assert_eq!(types["sources"]["cited"], "BOOLEAN", "{name}");
    assert_eq!(types["mentions"]["order"], "BIGINT", "{name}");
    assert_eq!(types["probes"]["run_date"], "DATE", "{name}: the partition key");
    assert_eq!(types["probes"]["engine"], "VARCHAR", "{name}: the partition key");
    assert_eq!(types["claims"]["values"], "VARCHAR[]", "{name}");
    assert_eq!(types["claims"]["source_urls"], "VARCHAR[]", "{name}");
    assert_eq!(types["risk_flags"]["kind"], "VARCHAR", "{name}");
    assert_eq!(types["facts"]["value"], "DOUBLE", "{name}");
}

/// One run of the generated export: its id, engine, `createdAt`, `aliasSnapshot` and the
/// statuses its probes are drawn from.
struct RunSpec {
    id: &'static str,
    engine: &'static str,
    created: &'static str,
    snapshot: Vec<Value>,
    statuses: &'static [&'static str],
}

/// A generated export whose raw results make the cases the fixtures lack (see the module docs).
fn generated_export(path: &Path) {
    let mut rng = SplitMix64::new(27);
    let target = |id: &str, kind: &str, aliases: &[&str], domains: &[&str]| json!({ "id": id, "kind": kind, "label": aliases[0], "aliases": aliases, "domains": domains });
    let brand = target("t_acme", "brand", &["Acme", "艾克米"], &["blog.acme.com"]);
    let beta = target("t_beta", "competitor", &["Beta"], &["beta.io"]);
    let gamma = target("t_gamma", "competitor", &["Gamma"], &[]);
    let prompts: Vec<Value> = (1..=4)
        .map(|i| {
            json!({ "id": format!("p{i}"), "projectId": "proj_g", "text": format!("问题 {i}：推荐一些工具"),
                    "tags": if i % 2 == 0 { json!(["generic", "季节"]) } else { json!([]) },
                    "createdAt": "2026-03-01T00:00:00.000Z", "updatedAt": "2026-03-01T00:00:00.000Z" })
        })
        .collect();
    const URLS: [&str; 8] = [
        "https://blog.acme.com/a",
        "https://www.acme.com/b",
        "https://zhuanlan.zhihu.com/p/1",
        "https://www.zhihu.com/question/2",
        "https://beta.io/x",
        "https://news.example.cn/n",
        "https://m.example.cn/n2?utm_source=x",
        "https://www.36kr.com/p/3",
    ];
    const PARTS: [&str; 12] = [
        "1. Acme：监测\n2. Beta：内容\n",
        "推荐 Gamma 和 艾克米。",
        "Beta 是第一。",
        "\n\n- Gamma\n- Acme\n",
        "没有合适的。",
        "[官网](https://blog.acme.com/a) ",
        "见 https://news.example.cn/n 。",
        "Acme 成立于2015年，价格 ¥99。",
        "艾克米成立于2016年，有投诉。",
        "Beta 成立于2018年，缺点是较贵。",
        "Acme 的价格不详，曾有数据事件。",
        "Gamma 总部在上海。",
    ];
    // The fact sheet: claims of every verdict, a fact no answer speaks to, and a watch term.
    let sheet = json!({
        "facts": [
            { "id": "acme_founded", "targetId": "t_acme", "label": "成立年份", "kind": "year", "cues": ["成立"], "value": 2015 },
            { "id": "acme_price", "targetId": "t_acme", "label": "价格", "kind": "money", "cues": ["价格"], "value": 99, "currency": "CNY" },
            { "id": "beta_founded", "targetId": "t_beta", "label": "Beta 成立", "kind": "year", "cues": ["成立"], "value": 2017 },
            { "id": "acme_staff", "targetId": "t_acme", "label": "员工", "kind": "number", "cues": ["员工"], "value": 50, "tolerance": 0.1 },
        ],
        "watchTerms": ["数据事件"],
    });
    let mut runs = Vec::new();
    let mut probes = Vec::new();
    let spec = |id, engine, created, snapshot: &[&Value], statuses| RunSpec {
        id,
        engine,
        created,
        snapshot: snapshot.iter().map(|t| (*t).clone()).collect(),
        statuses,
    };
    let specs = [
        spec("run_g1", "deepseek", "2026-03-01T02:00:00.000Z", &[&brand, &beta, &gamma], &["success"]),
        spec(
            "run_g2",
            "openai",
            "2026-03-02T07:30:00+08:00",
            &[&brand, &beta, &gamma],
            &["success", "success", "success", "error", "empty"],
        ),
        spec(
            "run_g3",
            "gemini",
            "2026-03-03T02:00:00Z",
            &[&beta, &brand, &beta, &gamma],
            &["success", "success", "cancelled"],
        ),
        spec("run_g4", "perplexity", "2026-03-04T02:00:00.000Z", &[&beta, &gamma], &["success"]),
        spec("run_g5", "anthropic", "2026-03-05T02:00:00.000Z", &[&brand, &beta], &["error"]),
    ];
    for (i, RunSpec { id, engine, created, snapshot, statuses }) in specs.iter().enumerate() {
        let repeats = if *id == "run_g4" { 0 } else { 5 };
        runs.push(json!({
            "id": id, "projectId": "proj_g", "status": "completed", "createdAt": created,
            "finishedAt": if i == 0 { json!("2026-03-01T02:30:00.000Z") } else { Value::Null },
            "previousRunId": if i > 0 { json!(specs[i - 1].id) } else { Value::Null },
            "config": { "engine": engine, "model": "m", "repeats": repeats, "concurrency": 3, "maxSearches": 5,
                        "maxTokens": 3000, "temperature": 1.0, "systemPromptVersion": "neutral-zh-v1" },
            "aliasSnapshot": snapshot, "promptSnapshot": prompts, "plannedProbeCount": 4 * repeats,
        }));
        // run_g4 has no brand, so its sheet names only a competitor's fact; run_g5 has none.
        match *id {
            "run_g4" => runs[i]["factSnapshot"] = json!({ "facts": [sheet["facts"][2].clone()] }),
            "run_g5" => {}
            _ => runs[i]["factSnapshot"] = sheet.clone(),
        }
        for p in 1..=4 {
            for r in 0..repeats {
                let status = statuses[rng.below(statuses.len() as u64) as usize];
                let queries: Vec<Value> = (1..=rng.below(3))
                    .map(|q| json!({ "index": q, "query": format!("工具 {q}"), "internal": q == 2 }))
                    .collect();
                let mut sources = Vec::new();
                for q in 1..=queries.len() {
                    for rank in 1..=rng.below(5) {
                        let url = URLS[rng.below(URLS.len() as u64) as usize];
                        sources
                            .push(json!({ "queryIndex": q, "rank": rank, "title": "Acme 与 Beta 对比", "url": url }));
                    }
                }
                let answer: String =
                    (0..rng.below(4) + 1).map(|_| PARTS[rng.below(PARTS.len() as u64) as usize]).collect();
                let mut probe = json!({
                    "id": format!("{id}__p{p}__{r}"), "runId": id, "projectId": "proj_g", "promptId": format!("p{p}"),
                    "repeatIndex": r, "status": status, "createdAt": created, "model": "m", "attempts": 1, "latencyMs": 900,
                    "usage": { "inputTokens": 1000, "outputTokens": 200, "cacheReadInputTokens": 0, "webSearchRequests": queries.len() },
                    "rawAnswer": if status == "success" { answer } else { String::new() },
                    "queries": queries, "rawSources": sources, "truncated": rng.below(5) == 0,
                });
                if status == "error" {
                    probe["error"] = json!({ "kind": "server", "httpStatus": 500, "message": "boom" });
                }
                if *engine == "openai" && rng.below(2) == 0 {
                    let url = URLS[rng.below(URLS.len() as u64) as usize];
                    probe["rawCitations"] = json!([{ "url": url, "citedText": "Acme 成立于2015年，价格 ¥99。" }]);
                    probe["costUsd"] = json!(0.0125);
                }
                probes.push(probe);
            }
        }
    }
    // A tie: one occurrence of the brand's own page and one of another page of its domain; the
    // first seen (third party) gives the domain its attribution.
    let mut tie = runs[0].clone();
    tie["id"] = "run_g6".into();
    tie["createdAt"] = "2026-03-06T02:00:00.000Z".into();
    tie["previousRunId"] = Value::Null;
    runs.push(tie);
    let mut probe = probes[0].clone();
    probe["id"] = "run_g6__p1__0".into();
    probe["runId"] = "run_g6".into();
    probe["status"] = "success".into();
    probe["rawAnswer"] = "Acme 是第一。".into();
    probe["queries"] = json!([{ "index": 1, "query": "acme", "internal": false }]);
    probe["rawSources"] = json!([
        { "queryIndex": 1, "rank": 1, "title": "Acme", "url": "https://www.acme.com/b" },
        { "queryIndex": 1, "rank": 2, "title": "Acme 博客", "url": "https://blog.acme.com/a" },
    ]);
    probes.push(probe);
    let project = json!({ "id": "proj_g", "name": "生成", "brand": brand, "competitors": [beta, gamma],
                          "createdAt": "2026-03-01T00:00:00.000Z", "updatedAt": "2026-03-01T00:00:00.000Z" });
    let env = json!({ "format": "geo-probe-export", "version": 1, "exportedAt": "2026-03-06T00:00:00.000Z",
                      "appVersion": "test", "projects": [project], "prompts": prompts, "runs": runs, "probes": probes });
    std::fs::write(path, serde_json::to_vec_pretty(&env).unwrap()).unwrap();
}

/// Every `.parquet` file under `dir`.
fn parquet_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(parquet_files(&path));
        } else if path.extension().is_some_and(|x| x == "parquet") {
            out.push(path);
        }
    }
    out
}

#[test]
fn duckdb_over_the_tables_gives_the_figures_of_geo_probe_metrics() {
    let python = python_support::venv_python("warehouse-duckdb", "tests/warehouse_duckdb/requirements.txt");
    let work = scratch("views");
    let generated = work.join("generated.json");
    generated_export(&generated);
    let mut exports: Vec<PathBuf> = std::fs::read_dir(root().join("fixtures/exports"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    exports.sort();
    assert!(exports.len() >= 6, "the fixtures' exports: {exports:?}");
    exports.push(root().join("demo/demo-data.json"));
    exports.push(generated);

    let mut cases = Vec::new();
    for (i, export) in exports.iter().enumerate() {
        let name = export.file_stem().unwrap().to_string_lossy().into_owned();
        let dir = work.join(format!("{i}-{name}"));
        let printed = printed_rows(&cli(&["warehouse", export.to_str().unwrap(), "--out", dir.to_str().unwrap()]));
        let metrics: Value = serde_json::from_str(&cli(&["metrics", export.to_str().unwrap()])).unwrap();
        cases.push((name, dir, printed, metrics));
    }
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/warehouse_duckdb/views.py");
    let mut cmd = Command::new(&python);
    cmd.arg(&script).arg(root().join("sql/metrics.sql"));
    cases.iter().for_each(|(_, dir, _, _)| {
        cmd.arg(dir);
    });
    let report: Value = serde_json::from_slice(&python_support::run(&mut cmd, "run the DuckDB views").stdout).unwrap();

    for (name, dir, printed, metrics) in &cases {
        let views = &report[dir.to_str().unwrap()];
        compare(name, views, metrics.as_array().unwrap());
        let counted: BTreeMap<String, u64> =
            views["counts"].as_object().unwrap().iter().map(|(t, n)| (t.clone(), n.as_u64().unwrap())).collect();
        assert_eq!(&counted, printed, "{name}: DuckDB's rows per table are the CLI's");
        check_types(name, &views["types"]);
        let parquet = &views["parquet"];
        assert_eq!(parquet["compressions"], json!(["ZSTD"]), "{name}");
        assert_eq!(parquet["chunks_without_statistics"], 0, "{name}: statistics on every column chunk");
        let files = parquet_files(dir);
        assert_eq!(files.len(), 11 * metrics.as_array().unwrap().len(), "{name}: one file per run and table");
        assert!(parquet["files"].as_u64().unwrap() <= files.len() as u64, "{name}: files with rows have metadata");
        for file in views["files"].as_array().unwrap() {
            assert!(file["row_groups"].as_u64().unwrap() <= 1, "{name}: one row group per file: {file}");
        }
    }
    let generated = &cases.last().unwrap().3;
    let ids: Vec<&str> = generated.as_array().unwrap().iter().map(|m| m["runId"].as_str().unwrap()).collect();
    assert_eq!(ids, ["run_g1", "run_g2", "run_g3", "run_g4", "run_g5", "run_g6"]);
    let tie = &generated[5]["domains"][0];
    assert_eq!((&tie["domain"], &tie["ownership"]), (&json!("acme.com"), &json!("third_party")), "{tie}");
    assert!(cases.iter().any(|(_, _, printed, _)| printed["answer_links"] > 0 && printed["mentions"] > 0));
    let printed = &cases.last().unwrap().2;
    assert!(printed["facts"] > 0 && printed["claims"] > 0 && printed["risk_flags"] > 0, "{printed:?}");
    let verdicts = |field: &str| {
        generated
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|m| m["facts"].as_array().unwrap())
            .map(|f| f[field].as_u64().unwrap())
            .sum::<u64>()
    };
    assert!(verdicts("consistent") > 0 && verdicts("contradicts") > 0, "claims of both verdicts");
    assert!(
        generated[0]["facts"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["factId"] == "acme_staff" && f["probesWithClaim"] == 0),
        "a fact without claims has its row"
    );
}
