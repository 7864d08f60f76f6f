//! Hostile export files (security review, findings 3, 6 and 9) and the schema's coverage of
//! the model: every field the model has survives `parse_export`, every field it does not
//! have is dropped while parsing, and no message grows with the file.

use crate::builders::usage;
use geo_core::export::{parse_export, ImportLimits};
use geo_core::model::*;
use serde_json::{json, Value};

/// One of every record with **every field set** (struct literals without `..`, so adding
/// a field to the model does not compile until it is added here, and the round trip below
/// then fails until the import schema (`export/validate/schema.rs`) knows it too).
pub(crate) fn everything() -> ExportEnvelope {
    let target = |id: &str, kind| Target {
        id: id.into(),
        kind,
        label: format!("{id} label"),
        aliases: vec![format!("{id} alias")],
        domains: vec![format!("{id}.example")],
    };
    // Every field set (fields of other kinds are kept and not read).
    let fact = Fact {
        id: "price".into(),
        target_id: "brand".into(),
        label: "价格".into(),
        kind: FactKind::Money,
        cues: vec!["售价".into()],
        value: Some(199.5),
        currency: Some(Currency::Cny),
        tolerance: Some(0.1),
        accepted: vec!["199".into()],
        rejected: vec!["299".into()],
    };
    let project = Project {
        id: "proj".into(),
        name: "全字段".into(),
        brand: target("brand", TargetKind::Brand),
        competitors: vec![target("rival", TargetKind::Competitor)],
        is_demo: true,
        created_at: "2026-12-01T00:00:00.000Z".into(),
        updated_at: "2026-12-01T00:00:01.000Z".into(),
        facts: vec![fact.clone()],
        watch_terms: vec!["跑路".into()],
    };
    let prompt = Prompt {
        id: "p1".into(),
        project_id: "proj".into(),
        text: "哪家好？".into(),
        tags: vec!["tag".into()],
        created_at: "2026-12-01T00:00:00.000Z".into(),
        updated_at: "2026-12-01T00:00:00.000Z".into(),
    };
    let run = Run {
        id: "run1".into(),
        project_id: "proj".into(),
        status: RunStatus::Partial,
        created_at: "2026-12-01T01:00:00.000Z".into(),
        finished_at: Some("2026-12-01T01:10:00.000Z".into()),
        previous_run_id: Some("run0".into()),
        app_version: "9.9.9".into(),
        schema_version: 1,
        config: RunConfig {
            engine: EngineId::Gemini,
            model: "m".into(),
            repeats: 2,
            concurrency: 1,
            max_searches: 4,
            max_tokens: 1000,
            temperature: 0.5,
            system_prompt_version: "v9".into(),
            reasoning_effort: Some(ReasoningEffort::High),
            thinking_budget: Some(4096),
            location: None,
            location_prompt: true,
        },
        alias_snapshot: vec![target("brand", TargetKind::Brand)],
        prompt_snapshot: vec![prompt.clone()],
        planned_probe_count: 2,
        group_id: Some("group1".into()),
        fact_snapshot: Some(FactSnapshot { facts: vec![fact], watch_terms: vec!["跑路".into()] }),
        surface: Default::default(),
    };
    let probe = Probe {
        id: "run1__p1__0".into(),
        run_id: "run1".into(),
        project_id: "proj".into(),
        prompt_id: "p1".into(),
        repeat_index: 0,
        status: ProbeStatus::Error,
        created_at: "2026-12-01T01:01:00.000Z".into(),
        model: "m".into(),
        attempts: 3,
        latency_ms: 1234,
        error: Some(ProbeError { kind: ErrorKind::Server, http_status: Some(500), message: "boom".into() }),
        request_id: Some("req".into()),
        stop_reason: Some("end_turn".into()),
        usage: usage(1, 2, 3, 4),
        truncated: true,
        billed_usage: Some(Usage {
            input_tokens: 5,
            output_tokens: 6,
            cache_read_input_tokens: 7,
            web_search_requests: 8,
            search_context_size: Some(SearchContextSize::Medium),
        }),
        continuations: 2,
        cost_usd: Some(0.0125),
        raw_answer: "raw".into(),
        queries: vec![Query { index: 1, query: Some("q".into()), internal: true, error: Some("e".into()) }],
        raw_sources: vec![RawSource {
            query_index: 1,
            rank: 1,
            title: "t".into(),
            url: "https://a.example/".into(),
            page_age: Some("2 days".into()),
            site_name: None,
        }],
        raw_citations: Some(vec![RawCitation {
            url: "https://a.example/".into(),
            title: Some("t".into()),
            cited_text: Some("c".into()),
            index: Some(3),
        }]),
        answer: "answer".into(),
        sources: vec![SearchSource {
            id: "s1".into(),
            url: "https://a.example".into(),
            host: "a.example".into(),
            domain: "a.example".into(),
            title: "t".into(),
            page_age: Some("2 days".into()),
            platform: "web".into(),
            channel: "other".into(),
            ownership: Ownership::Competitor,
            competitor_id: Some("rival".into()),
            occurrences: vec![Occurrence { query_index: 1, query: Some("q".into()), rank: 1 }],
            best_rank: 1,
            title_mentions: vec!["rival".into()],
            cited: Some(true),
        }],
        mentions: vec![Mention {
            target_id: "brand".into(),
            count: 1,
            order: 1,
            first_index: 0,
            context: "ctx".into(),
            matched_aliases: vec!["brand alias".into()],
            list_position: Some(1),
            position_adjusted_word_count: Some(0.5),
        }],
        list_items: vec![ListItem {
            position: 1,
            title: "t".into(),
            text: "x".into(),
            matched_target_id: Some("brand".into()),
        }],
        other_entities: vec!["Other".into()],
        answer_links: vec![AnswerLink {
            url: "https://a.example/x".into(),
            canonical_url: "https://a.example/x".into(),
            domain: "a.example".into(),
            text: Some("x".into()),
            in_sources: false,
        }],
        claims: Vec::new(),
        risk_flags: Vec::new(),
        location_applied: Default::default(),
    };
    ExportEnvelope {
        format: EXPORT_FORMAT.into(),
        version: SCHEMA_VERSION,
        exported_at: "2026-12-01T02:00:00.000Z".into(),
        app_version: "9.9.9".into(),
        projects: vec![project],
        prompts: vec![prompt],
        runs: vec![run],
        probes: vec![probe],
        link_checks: vec![LinkCheck {
            run_id: "run1".into(),
            checked_at: "2026-12-01T03:00:00.000Z".into(),
            links: vec![LinkResult {
                url: "https://a.example/x".into(),
                class: LinkClass::Redirect,
                status: Some(200),
                final_url: Some("https://a.example/y".into()),
                hops: vec![LinkHop { url: "https://a.example/x".into(), status: 301, location: Some("/y".into()) }],
                error: Some("none".into()),
            }],
        }],
    }
}

#[test]
fn every_field_of_the_model_survives_the_import() {
    let env = everything();
    let text = serde_json::to_string(&env).unwrap();
    assert_eq!(parse_export(&text, &ImportLimits::default()).unwrap(), env);
}

/// Finding 9: unknown fields are dropped while parsing, at every level, before any check
/// or copy (an unknown string over the size limit is not even looked at; it used to be
/// kept through re-encoding: a 64 MiB file took 1.2 GB).
#[test]
fn unknown_fields_are_dropped_at_every_level() {
    let mut v: Value = serde_json::to_value(everything()).unwrap();
    v["probes"][0]["futureField"] = json!("x".repeat(1_000_001));
    v["padding"] = json!(vec![1; 1000]);
    v["projects"][0]["extra"] = json!({"deep": [1, 2, 3]});
    v["runs"][0]["config"]["unknown"] = json!("x");
    v["probes"][0]["sources"][0]["mystery"] = json!(true);
    v["probes"][0]["usage"]["futureTokens"] = json!(5);
    let env = parse_export(&v.to_string(), &ImportLimits::default()).unwrap();
    assert_eq!(env, everything());
}

/// Findings 6 and 9: a file of mostly one enormous unknown key, and keys full of control
/// characters, give short messages (it was a 200 MB stderr line for a 30 MB file).
#[test]
fn messages_do_not_grow_with_the_file() {
    let huge_key = "k".repeat(3_000_000);
    let text = format!(
        r#"{{"format":"geo-probe-export","version":1,"{huge_key}":1,"projects":[{{"id":7,"{huge_key}":2}}],"prompts":[{{"id":"{}","\u001b[2J":1}}]}}"#,
        "i".repeat(900_000)
    );
    let e = parse_export(&text, &ImportLimits::default()).unwrap_err();
    let shown = e.to_string();
    assert!(shown.len() < 4_000, "{} bytes: {}", shown.len(), &shown[..200.min(shown.len())]);
    let both = e.describe();
    assert!(both.zh.len() < 4_000 && both.en.len() < 4_000);
    assert!(!shown.contains('\u{1b}'), "{shown}");
    // An unknown field is no problem at all; the wrong type of a known one is.
    assert!(shown.contains("projects[0].id: expected string"), "{shown}");
}

/// A long id in a reference problem is quoted short.
#[test]
fn reference_problems_quote_ids_short() {
    let mut env = everything();
    env.probes[0].run_id = "r".repeat(500_000);
    let problems = geo_core::export::validate_against(&env, &ExportEnvelope::new(""));
    let text: String = problems.iter().map(|p| p.to_string()).collect();
    assert!(text.len() < 1_000, "{}", text.len());
}

/// Finding 3: a file whose probe belongs to a run that is only in the store, carrying a
/// forged `javascript:` source marked owned, forged mentions and links: `prepare_import`
/// recomputes them all from the raw answer with the stored run's aliases; a probe whose run
/// is nowhere is refused with its path, never kept with the file's analysis.
#[test]
fn prepare_import_never_keeps_file_supplied_analysis() {
    let mut honest = everything();
    geo_core::analysis::analyze_envelope(&mut honest);
    let mut stored = ExportEnvelope::new("");
    stored.projects = honest.projects.clone();
    stored.runs = honest.runs.clone();
    let mut file = ExportEnvelope::new("");
    let mut probe = honest.probes[0].clone();
    probe.sources = everything().probes[0].sources.clone();
    probe.sources[0].url = "javascript:alert(1)".into();
    probe.sources[0].ownership = Ownership::Owned;
    probe.mentions = everything().probes[0].mentions.clone();
    probe.answer_links = everything().probes[0].answer_links.clone();
    file.probes.push(probe);
    let mut env = parse_export(&serde_json::to_string(&file).unwrap(), &ImportLimits::default()).unwrap();
    geo_core::export::prepare_import(&mut env, &stored).unwrap();
    assert_eq!(env.probes[0], honest.probes[0]);
    assert!(env.probes[0].sources.iter().all(|s| !s.url.starts_with("javascript:")));

    let mut orphan = parse_export(&serde_json::to_string(&file).unwrap(), &ImportLimits::default()).unwrap();
    let e = geo_core::export::prepare_import(&mut orphan, &ExportEnvelope::new("")).unwrap_err();
    let shown = e.describe();
    assert!(shown.en.contains("probes[0].runId") && shown.en.contains("nothing was changed"), "{}", shown.en);
    assert!(shown.zh.starts_with("导入失败"), "{}", shown.zh);
}

/// Security review II, finding 5: a run's snapshots and a project's targets past their
/// limits are refused with their paths, before anything is compared.
#[test]
fn snapshots_past_their_limits_are_refused() {
    use geo_core::limits::{MAX_SNAPSHOT_PROMPTS, MAX_SNAPSHOT_TARGETS};
    let env = everything();
    // `n` copies of `record`, each with its own id.
    let copies = |record: &Value, n: usize| -> Value {
        Value::Array(
            (0..n)
                .map(|i| {
                    let mut r = record.clone();
                    r["id"] = json!(format!("x{i}"));
                    r
                })
                .collect(),
        )
    };
    let mut file = serde_json::to_value(&env).unwrap();
    file["runs"][0]["aliasSnapshot"] = copies(&file["runs"][0]["aliasSnapshot"][0], MAX_SNAPSHOT_TARGETS + 1);
    file["runs"][0]["promptSnapshot"] = copies(&file["runs"][0]["promptSnapshot"][0], MAX_SNAPSHOT_PROMPTS + 1);
    file["projects"][0]["competitors"] = copies(&file["projects"][0]["competitors"][0], MAX_SNAPSHOT_TARGETS);
    let err = parse_export(&file.to_string(), &ImportLimits::default()).unwrap_err();
    let paths: Vec<&str> = err.problems.iter().map(|p| p.path.as_str()).collect();
    assert!(paths.contains(&"runs[0].aliasSnapshot"), "{err}");
    assert!(paths.contains(&"runs[0].promptSnapshot"), "{err}");
    assert!(paths.contains(&"projects[0].competitors"), "{err}");
    // At the limit, the file is taken.
    let mut file = serde_json::to_value(&env).unwrap();
    file["runs"][0]["promptSnapshot"] = copies(&file["runs"][0]["promptSnapshot"][0], MAX_SNAPSHOT_PROMPTS);
    parse_export(&file.to_string(), &ImportLimits::default()).unwrap();
}

/// Security review II, finding 6: a run (or prompt) already stored under one project is never
/// moved to another by an import.
#[test]
fn a_run_never_moves_to_another_project() {
    use geo_core::export::prepare_import;
    let stored = everything();
    let mut moved = everything();
    moved.projects[0].id = "elsewhere".into();
    moved.prompts[0].project_id = "elsewhere".into();
    moved.runs[0].project_id = "elsewhere".into();
    for p in &mut moved.probes {
        p.project_id = "elsewhere".into();
    }
    let err = prepare_import(&mut moved, &stored).unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains("run \"run1\" is stored in project \"proj\" but the file puts it in project \"elsewhere\""),
        "{text}"
    );
    assert!(text.contains("prompt \"p1\" is stored in project \"proj\""), "{text}");
    // The same records in their own project import cleanly.
    let mut again = everything();
    prepare_import(&mut again, &stored).unwrap();
}
