//! App answers beside API answers: capture files (`fixtures/captures/`, JSON and CSV) become an
//! `app` run by the rules of engines.md "Precise rules" and cli.md `import-captures`; a broken
//! row, an unknown prompt or a wrong header refuses the whole file, naming where and why.

use crate::support::fixtures_dir;
use geo_core::export::{
    full_export, import_captures, parse_export, to_json_pretty, CaptureErrorKind, CaptureOptions, ImportLimits,
};
use geo_core::metrics::compute_run_metrics;
use geo_core::model::{
    EngineId, ErrorKind, ExportEnvelope, Location, LocationApplied, ProbeStatus, RunStatus, Surface, APP_MODEL,
};

fn project() -> ExportEnvelope {
    let text = std::fs::read_to_string(fixtures_dir().join("project.json")).unwrap();
    parse_export(&text, &ImportLimits::default()).unwrap()
}

fn example(name: &str) -> String {
    std::fs::read_to_string(fixtures_dir().join("captures").join(name)).unwrap()
}

fn options(run_id: &str) -> CaptureOptions {
    CaptureOptions {
        project_id: "proj_yuangouchang".into(),
        engine: EngineId::Doubao,
        run_id: run_id.into(),
        now: "2026-12-02T00:00:00.000Z".into(),
        add_prompts: false,
    }
}

/// The error an import must fail with: its kind and its one-line English text.
#[track_caller]
fn refused(text: &str, opts: &CaptureOptions) -> (CaptureErrorKind, String) {
    match import_captures(&project(), text, opts) {
        Ok(_) => panic!("imported"),
        Err(e) => (e.kind.clone(), e.to_string()),
    }
}

/// A CSV of the header and `rows` (cells as written, CRLF).
fn csv(rows: &[&str]) -> String {
    let mut text = "prompt,answer,captured_at,source_urls,cited_urls\r\n".to_string();
    for r in rows {
        text.push_str(r);
        text.push_str("\r\n");
    }
    text
}

#[test]
fn the_json_example_becomes_an_app_run() {
    let env = project();
    let import = import_captures(&env, &example("doubao-app.json"), &options("run_app_1")).unwrap();
    let run = &import.run;
    assert_eq!((run.surface, run.status, run.planned_probe_count), (Surface::App, RunStatus::Completed, 4));
    assert_eq!(run.created_at, "2026-12-01T01:30:00.000Z", "the earliest capturedAt, in UTC");
    assert_eq!(run.previous_run_id, None);
    let c = &run.config;
    assert_eq!((c.engine, c.model.as_str(), c.repeats), (EngineId::Doubao, APP_MODEL, 2));
    assert!(c.is_captured(), "no budget");
    assert_eq!(c.location.as_ref().map(Location::label).as_deref(), Some("Hangzhou, Zhejiang, CN (Asia/Shanghai)"));
    let snapshot: Vec<&str> = run.prompt_snapshot.iter().map(|p| p.id.as_str()).collect();
    assert_eq!(snapshot, ["p01", "p03"], "the captured prompts in project order; p03 named by its text");
    let p = &import.probes;
    let ids: Vec<&str> = p.iter().map(|p| p.id.as_str()).collect();
    assert_eq!(ids, ["run_app_1__p01__0", "run_app_1__p01__1", "run_app_1__p03__0", "run_app_1__p03__1"]);
    assert_eq!((p[0].model.as_str(), p[1].model.as_str()), ("doubao-app", APP_MODEL));
    assert_eq!(p[0].created_at, "2026-12-01T01:30:00.000Z");
    assert_eq!((p[0].queries.len(), p[0].raw_sources.len(), p[0].raw_sources[1].rank), (1, 2, 2));
    assert!(p[0].queries[0].internal && p[0].queries[0].query.is_none());
    assert_eq!(p[0].raw_citations.as_ref().map(Vec::len), Some(1));
    assert_eq!(p[1].raw_citations, None, "\"citations\": [] counts as none");
    assert!(p[2].queries.is_empty() && p[2].raw_sources.is_empty(), "no sources: no query");
    assert_eq!((p[3].status, p[3].error.as_ref().map(|e| e.kind)), (ProbeStatus::Empty, Some(ErrorKind::Empty)));
    assert!(p.iter().all(|p| p.attempts == 1 && p.location_applied == LocationApplied::None));
    // Analysed like any run: the brand is named, the sources classified, the citation marked.
    assert!(p[0].mentions.iter().any(|m| m.target_id == "tgt_yuangouchang"));
    assert_eq!(p[0].sources.iter().filter(|s| s.cited == Some(true)).count(), 1);
    assert!(import.warnings.is_empty());
}

#[test]
fn the_csv_example_keeps_line_breaks_quotes_and_blank_answers() {
    let text = example("doubao-app.csv");
    assert!(text.starts_with('\u{feff}'), "the example has a BOM");
    let import = import_captures(&project(), &text, &options("run_app_csv")).unwrap();
    let p = &import.probes;
    assert_eq!(p.len(), 4);
    assert!(p[0].raw_answer.contains("推荐以下几家：\n\n1. 元构场"), "{:?}", p[0].raw_answer);
    assert!(p[0].raw_answer.contains("\"口碑\""));
    assert_eq!(p[0].raw_sources.len(), 2);
    assert_eq!(p[0].raw_citations.as_ref().unwrap()[0].url, "https://www.36kr.com/p/301231");
    assert_eq!(p[1].raw_sources.len(), 0);
    assert_eq!(p[2].prompt_id, "p04", "matched by its exact text");
    assert_eq!(p[3].status, ProbeStatus::Empty);
    assert_eq!(p[0].created_at, "2026-12-01T02:00:00.000Z", "+08:00 in UTC");
    assert_eq!(import.run.config.location, None, "a CSV names no location");
    assert_eq!(import.run.prompt_snapshot.iter().map(|p| p.id.as_str()).collect::<Vec<_>>(), ["p02", "p04"]);
}

#[test]
fn a_broken_row_names_the_row_and_why() {
    let o = options("run_x");
    let good = "p01,答案,2026-12-01T01:00:00Z,,";
    let (kind, msg) = refused(&csv(&[good, "p01,答案,yesterday,,"]), &o);
    assert_eq!(kind, CaptureErrorKind::Capture);
    assert!(msg.starts_with("row 3, captured_at: time \"yesterday\" is not an ISO 8601 time"), "{msg}");
    let (_, msg) = refused(&csv(&["p01,答案,2026-12-01,,"]), &o);
    assert!(msg.starts_with("row 2, captured_at:"), "a date alone has no offset: {msg}");
    let (_, msg) = refused(&csv(&["p01,答案,2026-12-01T09:00:00,,"]), &o);
    assert!(msg.contains("with an offset or Z"), "a time without a zone: {msg}");
    let (_, msg) = refused(&csv(&["p01,答案,2026-12-01T01:00:00Z,ftp://x.cn/a,"]), &o);
    assert!(msg.starts_with("row 2, source_urls: \"ftp://x.cn/a\" is not an http(s) url"), "{msg}");
    let (_, msg) = refused(&csv(&[good, "p01,\"open quote,2026-12-01T01:00:00Z,,"]), &o);
    assert!(msg.starts_with("row 3: the csv is malformed"), "{msg}");
    let (_, msg) = refused(&csv(&["p01,too,few"]), &o);
    assert!(msg.starts_with("row 2: the csv is malformed: 3 fields, expected 5"), "{msg}");
    let (kind, msg) =
        refused("prompt,answer,capturedAt,source_urls,cited_urls\r\np01,a,2026-12-01T01:00:00Z,,\r\n", &o);
    assert_eq!(kind, CaptureErrorKind::Format);
    assert!(
        msg.starts_with("row 1: the csv header must be exactly prompt,answer,captured_at,source_urls,cited_urls"),
        "{msg}"
    );
    let (_, msg) =
        refused(r#"{"captures": [{"prompt": "p01", "answer": 5, "capturedAt": "2026-12-01T01:00:00Z"}]}"#, &o);
    assert_eq!(msg, "captures[0].answer: expected a string");
    let (_, msg) = refused(
        r#"{"captures": [{"prompt": "p01", "answer": "a", "capturedAt": "2026-12-01T01:00:00Z",
            "sources": [{"url": "not a url"}]}]}"#,
        &o,
    );
    assert!(msg.starts_with("captures[0].sources[0].url: \"not a url\" is not an http(s) url"), "{msg}");
    let (_, msg) = refused(
        r#"{"captures": [{"prompt": "p01", "answer": "a", "capturedAt": "2026-12-01T01:00:00Z",
            "location": {"country": "CN", "timezone": "Beijing"}}]}"#,
        &o,
    );
    assert!(msg.starts_with("captures[0].location.timezone: timezone \"Beijing\" is not an IANA"), "{msg}");
    let (kind, _) = refused(r#"{"answers": []}"#, &o);
    assert_eq!(kind, CaptureErrorKind::Format);
    let (_, msg) = refused(&csv(&[]), &o);
    assert!(msg.contains("holds no captures"), "{msg}");
}

#[test]
fn an_unknown_prompt_is_named_unless_it_is_added() {
    let text = csv(&[
        "p01,答案,2026-12-01T01:00:00Z,,",
        "\u{ff27}\u{ff25}\u{ff2f} 新问题 ,答案一,2026-12-01T01:01:00Z,,",
        "GEO 新问题,答案二,2026-12-01T01:02:00Z,,",
    ]);
    let (kind, msg) = refused(&text, &options("run_x"));
    assert_eq!(kind, CaptureErrorKind::UnknownPrompt);
    assert!(
        msg.starts_with("row 3: unknown prompt \"ＧＥＯ 新问题\": project proj_yuangouchang has no prompt"),
        "{msg}"
    );
    assert!(msg.contains("--add-prompts"), "{msg}");
    let import = import_captures(&project(), &text, &CaptureOptions { add_prompts: true, ..options("run_x") }).unwrap();
    assert_eq!(import.added_prompts.len(), 1, "one prompt, its NFKC-trimmed text matching twice");
    let added = &import.added_prompts[0];
    assert_eq!((added.id.as_str(), added.text.as_str(), added.tags.len()), ("run_x_p1", "GEO 新问题", 0));
    assert_eq!(added.created_at, "2026-12-02T00:00:00.000Z");
    let snapshot: Vec<&str> = import.run.prompt_snapshot.iter().map(|p| p.id.as_str()).collect();
    assert_eq!(snapshot, ["p01", "run_x_p1"]);
    assert_eq!(import.probes[2].id, "run_x__run_x_p1__1", "its second capture is its second repeat");
    // Applied, the export still imports and the run's figures are computed like any run's.
    let mut env = project();
    import.apply(&mut env);
    let text =
        to_json_pretty(&full_export(env.projects, env.prompts, env.runs, env.probes, "2026-12-02T00:00:00.000Z"));
    let back = parse_export(&text, &ImportLimits::default()).unwrap();
    let run = back.run("run_x").unwrap();
    assert!(run.config.is_captured() && run.surface == Surface::App);
    let m = compute_run_metrics(run, &back.probes, None);
    assert_eq!((m.surface, m.success_count, m.method.max_tokens), (Surface::App, 3, None));
}

#[test]
fn the_previous_run_is_the_newest_earlier_app_run_of_the_engine() {
    let mut env = project();
    let first = import_captures(&env, &csv(&["p01,a,2026-12-01T01:00:00Z,,"]), &options("run_a")).unwrap();
    first.apply(&mut env);
    // An API run of the same engine, newer: runs point only at runs of their own surface.
    let mut api = env.runs[0].clone();
    api.id = "run_api".into();
    api.surface = Surface::Api;
    api.created_at = "2026-12-05T00:00:00.000Z".into();
    env.runs.push(api);
    let later = import_captures(&env, &csv(&["p01,b,2026-12-08T01:00:00Z,,"]), &options("run_b")).unwrap();
    assert_eq!(later.run.previous_run_id.as_deref(), Some("run_a"));
    let earlier = import_captures(&env, &csv(&["p01,c,2026-11-01T01:00:00Z,,"]), &options("run_c")).unwrap();
    assert_eq!(earlier.run.previous_run_id, None, "created before every other app run");
    let other_engine = import_captures(
        &env,
        &csv(&["p01,d,2026-12-08T01:00:00Z,,"]),
        &CaptureOptions { engine: EngineId::Qwen, ..options("run_d") },
    )
    .unwrap();
    assert_eq!(other_engine.run.previous_run_id, None);
    let (kind, msg) = refused(
        &csv(&["p01,a,2026-12-01T01:00:00Z,,"]),
        &CaptureOptions { project_id: "nope".into(), ..options("run_e") },
    );
    assert_eq!(kind, CaptureErrorKind::Input);
    assert!(msg.contains("project nope is not in the export"), "{msg}");
}

#[test]
fn text_every_answer_shares_is_named_but_imported() {
    let tail = "以上内容由 AI 生成，仅供参考，请注意甄别。你对这个回答满意吗？赞 踩 复制 分享 重新生成";
    assert!(tail.chars().count() >= 40);
    let text = csv(&[
        &format!("p01,元构场很好。{tail},2026-12-01T01:00:00Z,,"),
        &format!("p02,智谱营销也可以。{tail},2026-12-01T01:01:00Z,,"),
    ]);
    let import = import_captures(&project(), &text, &options("run_w")).unwrap();
    assert_eq!(import.warnings.len(), 1);
    assert!(
        import.warnings[0].en.starts_with("every captured answer ends with the same text, \"。以上内容由 AI 生成"),
        "{:?}",
        import.warnings
    );
    assert!(import.probes[0].raw_answer.ends_with(tail), "imported as it is");
    // Shorter than 40 characters in common: nothing to say.
    let short =
        csv(&["p01,元构场很好。点个赞吧,2026-12-01T01:00:00Z,,", "p02,智谱营销。点个赞吧,2026-12-01T01:01:00Z,,"]);
    assert!(import_captures(&project(), &short, &options("run_s")).unwrap().warnings.is_empty());
}
