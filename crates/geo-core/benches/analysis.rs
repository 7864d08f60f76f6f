//! Benchmark: analysing a 1,000-probe synthetic export versus plain serde parse + serialise
//! of the same export (target: analysis ≤ 2× serde).
//!
//! The export cycles over the recorded responses in `fixtures/responses/` with the fixture
//! project's targets, so the text, sources and lists are realistic.

use criterion::{criterion_group, criterion_main, Criterion};
use geo_core::analysis::analyze_envelope;
use geo_core::model::{EngineId, ExportEnvelope, Probe, ProbeStatus, Run, RunConfig, RunStatus};
use geo_core::provider::parse_engine_response;
use std::hint::black_box;

fn synthetic_export(probes: usize) -> ExportEnvelope {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures");
    let mut env: ExportEnvelope =
        serde_json::from_str(&std::fs::read_to_string(format!("{root}/project.json")).unwrap()).unwrap();
    let mut bodies: Vec<_> = std::fs::read_dir(format!("{root}/responses"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    bodies.sort();
    let parsed: Vec<_> = bodies
        .iter()
        .filter_map(|p| {
            parse_engine_response(EngineId::Deepseek, &std::fs::read_to_string(p).unwrap(), "deepseek-v4-flash").ok()
        })
        .collect();
    let project = env.projects[0].clone();
    let run = Run {
        id: "run_bench".into(),
        project_id: project.id.clone(),
        status: RunStatus::Completed,
        created_at: "2026-11-29T08:00:00.000Z".into(),
        finished_at: None,
        previous_run_id: None,
        app_version: "bench".into(),
        schema_version: 1,
        config: RunConfig::default(),
        alias_snapshot: project.targets(),
        prompt_snapshot: env.prompts.clone(),
        planned_probe_count: probes as u32,
        group_id: None,
        fact_snapshot: None,
        surface: Default::default(),
    };
    for i in 0..probes {
        let p = &parsed[i % parsed.len()];
        env.probes.push(Probe {
            id: format!("run_bench__p{}__{}", i % parsed.len(), i),
            run_id: run.id.clone(),
            project_id: project.id.clone(),
            prompt_id: format!("p{:02}", i % parsed.len() + 1),
            repeat_index: i as u32,
            status: ProbeStatus::Success,
            created_at: "2026-11-29T08:00:00.000Z".into(),
            model: p.model.clone(),
            attempts: 1,
            latency_ms: 12_000,
            error: None,
            request_id: p.request_id.clone(),
            stop_reason: p.stop_reason.clone(),
            usage: p.usage,
            truncated: false,
            billed_usage: None,
            continuations: 0,
            cost_usd: None,
            raw_answer: p.raw_answer.clone(),
            queries: p.queries.clone(),
            raw_sources: p.raw_sources.clone(),
            raw_citations: None,
            answer: String::new(),
            sources: vec![],
            mentions: vec![],
            list_items: vec![],
            other_entities: vec![],
            answer_links: vec![],
            claims: Vec::new(),
            risk_flags: Vec::new(),
            location_applied: Default::default(),
        });
    }
    env.runs.push(run);
    analyze_envelope(&mut env);
    env
}

fn bench(c: &mut Criterion) {
    let env = synthetic_export(1000);
    let json = serde_json::to_string(&env).unwrap();
    eprintln!("synthetic export: {} probes, {:.1} MB of JSON", env.probes.len(), json.len() as f64 / 1e6);
    let mut group = c.benchmark_group("export_1000_probes");
    group.sample_size(20);
    group.bench_function("serde_parse_and_serialise", |b| {
        b.iter(|| {
            let parsed: ExportEnvelope = serde_json::from_str(black_box(&json)).unwrap();
            black_box(serde_json::to_string(&parsed).unwrap())
        })
    });
    group.bench_function("analyze_envelope", |b| {
        b.iter_batched(
            || env.clone(),
            |mut e| {
                analyze_envelope(&mut e);
                e
            },
            criterion::BatchSize::LargeInput,
        )
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
