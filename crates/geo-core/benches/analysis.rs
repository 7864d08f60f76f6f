//! Benchmark: analysing a 1,000-probe synthetic export versus plain serde parse + serialise
//! of the same export (target: analysis ≤ 2× serde).
//!
//! The export cycles over the recorded responses in `fixtures/responses/` with the fixture
//! project's targets, so the text, sources and lists are realistic.

mod support;

use criterion::{criterion_group, criterion_main, Criterion};
use geo_core::analysis::analyze_envelope;
use geo_core::model::{EngineId, ExportEnvelope, ProbeStatus, Run, RunConfig, RunStatus};
use geo_core::provider::{parse_engine_response, ParsedResponse};
use std::hint::black_box;
use support::{raw_probe, Place};

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
        let place = Place {
            id: format!("run_bench__p{}__{}", i % parsed.len(), i),
            run: run.id.clone(),
            project: project.id.clone(),
            prompt: format!("p{:02}", i % parsed.len() + 1),
            repeat: i as u32,
        };
        // Without the response's citations.
        let p = ParsedResponse { raw_citations: None, ..parsed[i % parsed.len()].clone() };
        env.probes.push(raw_probe(place, ProbeStatus::Success, p));
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
