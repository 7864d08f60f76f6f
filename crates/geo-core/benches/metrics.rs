//! Metrics of 50 runs / 5,000 probes (synthetic, deterministic): the budget is < 20 ms for
//! every run's metrics, previous-run comparison included. Also one run of 5,000 probes (the
//! dashboard's worst case: its figures come from one run's metrics) and the project series.

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use geo_core::analysis::pawc::PawcTargets;
use geo_core::metrics::{compute_run_metrics, metrics_for_export, project_series};
use geo_core::model::*;
use geo_core::prng::SplitMix64;

fn target(id: &str, kind: TargetKind, alias: &str, domain: &str) -> Target {
    Target { id: id.into(), kind, label: alias.into(), aliases: vec![alias.into()], domains: vec![domain.into()] }
}

const RUNS: usize = 50;
const PROMPTS: usize = 10;
const REPEATS: u32 = 10;
const NAMES: [&str; 5] = ["Acme", "Beta", "Gamma", "Delta", "Epsilon"];
const CHANNELS: [&str; 8] =
    ["news", "qa", "encyclopedia", "blog", "tech_community", "media_platform", "forum", "review"];

fn envelope() -> ExportEnvelope {
    // The workspace's one PRNG with a fixed seed: every bench run sees the same data.
    let mut rng = SplitMix64::new(42);
    let targets: Vec<Target> = NAMES
        .iter()
        .enumerate()
        .map(|(i, n)| {
            let kind = if i == 0 { TargetKind::Brand } else { TargetKind::Competitor };
            target(&n.to_lowercase(), kind, n, &format!("{}.com", n.to_lowercase()))
        })
        .collect();
    let prompts: Vec<Prompt> = (0..PROMPTS)
        .map(|i| Prompt {
            id: format!("p{i}"),
            project_id: "proj".into(),
            text: format!("问题 {i}"),
            tags: match i % 4 {
                0 => vec!["generic".into()],
                1 => vec!["brand".into(), "product".into()],
                2 => vec!["scenario".into(), "generic".into()],
                _ => vec![],
            },
            created_at: "2026-01-01T00:00:00.000Z".into(),
            updated_at: "2026-01-01T00:00:00.000Z".into(),
        })
        .collect();
    let mut env = ExportEnvelope::new("2026-12-01T00:00:00.000Z");
    for r in 0..RUNS {
        let run_id = format!("run_{r:02}");
        env.runs.push(Run {
            id: run_id.clone(),
            project_id: "proj".into(),
            status: RunStatus::Completed,
            created_at: format!("2026-10-{:02}T08:00:00.000Z", r % 28 + 1),
            finished_at: None,
            previous_run_id: (r > 0).then(|| format!("run_{:02}", r - 1)),
            app_version: APP_VERSION.into(),
            schema_version: SCHEMA_VERSION,
            config: RunConfig::default(),
            alias_snapshot: targets.clone(),
            prompt_snapshot: prompts.clone(),
            planned_probe_count: (PROMPTS as u32) * REPEATS,
            group_id: None,
            fact_snapshot: None,
            surface: Default::default(),
        });
        for prompt in &prompts {
            for rep in 0..REPEATS {
                env.probes.push(probe(&mut rng, &run_id, &prompt.id, rep));
            }
        }
    }
    env
}

fn probe(rng: &mut SplitMix64, run_id: &str, prompt_id: &str, rep: u32) -> Probe {
    let status = if rng.below(20) == 0 { ProbeStatus::Error } else { ProbeStatus::Success };
    // ~600 characters: 12 sentences, some naming targets.
    let mut answer = String::new();
    let mut order: Vec<usize> = Vec::new();
    // Half the probes come from an engine with citation data: their sources carry `cited`.
    let has_citations = rng.below(2) == 0;
    for s in 0..12 {
        let t = rng.below(8) as usize;
        if t < NAMES.len() {
            answer.push_str(&format!("{} 是一个值得考虑的选择，适合中小企业的内容优化需求", NAMES[t]));
            if !order.contains(&t) {
                order.push(t);
            }
        } else {
            answer.push_str(&format!("第 {s} 点：生成式搜索引擎优化需要关注来源质量与回答结构"));
        }
        answer.push_str(if s % 3 == 2 { "。\n" } else { "。" });
    }
    let mentions = order
        .iter()
        .enumerate()
        .map(|(i, &t)| Mention {
            target_id: NAMES[t].to_lowercase(),
            count: 1,
            order: i as u32 + 1,
            first_index: 0,
            context: String::new(),
            matched_aliases: vec![NAMES[t].into()],
            list_position: (i < 3).then_some(i as u32 + 1),
            position_adjusted_word_count: None,
        })
        .collect();
    let sources: Vec<SearchSource> = (0..8)
        .map(|k| {
            let d = rng.below(40);
            let domain =
                if d < 5 { format!("{}.com", NAMES[d as usize].to_lowercase()) } else { format!("site{d}.cn") };
            SearchSource {
                id: format!("src_{}", k + 1),
                url: format!("https://{domain}/a/{k}"),
                host: domain.clone(),
                domain: domain.clone(),
                title: format!("页面 {k}"),
                page_age: None,
                platform: domain.clone(),
                channel: if d < 5 { "official".into() } else { CHANNELS[(d % 8) as usize].into() },
                ownership: match d {
                    0 => Ownership::Owned,
                    1..=4 => Ownership::Competitor,
                    _ => Ownership::ThirdParty,
                },
                competitor_id: None,
                occurrences: (0..=rng.below(2))
                    .map(|q| Occurrence {
                        query_index: q as u32 + 1,
                        query: Some("搜索".into()),
                        rank: rng.below(10) as u32 + 1,
                    })
                    .collect(),
                best_rank: 1,
                title_mentions: vec![],
                cited: has_citations.then(|| rng.below(3) == 0),
            }
        })
        .collect();
    let list_items = (0..5)
        .map(|i| ListItem {
            position: i + 1,
            title: NAMES[rng.below(5) as usize].into(),
            text: String::new(),
            matched_target_id: None,
        })
        .collect();
    Probe {
        id: probe_id(run_id, prompt_id, rep),
        run_id: run_id.into(),
        project_id: "proj".into(),
        prompt_id: prompt_id.into(),
        repeat_index: rep,
        status,
        created_at: "2026-10-01T08:00:00.000Z".into(),
        model: RunConfig::default().model,
        attempts: 1,
        latency_ms: 20_000 + rng.below(10_000),
        error: None,
        request_id: None,
        stop_reason: None,
        usage: Usage {
            input_tokens: 20_000,
            output_tokens: 1_500,
            cache_read_input_tokens: 0,
            web_search_requests: 3,
            search_context_size: None,
        },
        truncated: false,
        billed_usage: None,
        continuations: 0,
        cost_usd: None,
        raw_answer: answer.clone(),
        // One probe in ten answered without searching.
        queries: if rng.below(10) == 0 {
            vec![]
        } else {
            vec![Query { index: 1, query: Some("搜索".into()), internal: false, error: None }]
        },
        raw_sources: vec![],
        raw_citations: has_citations.then(|| {
            sources
                .iter()
                .filter(|s| s.cited == Some(true))
                .map(|s| RawCitation { url: s.url.clone(), title: None, cited_text: None, index: None })
                .collect()
        }),
        answer,
        sources,
        mentions,
        list_items,
        other_entities: vec![format!("公司{}", rng.below(30)), "Foo Inc".into()],
        answer_links: vec![AnswerLink {
            url: "https://site1.cn/a/0".into(),
            canonical_url: "https://site1.cn/a/0".into(),
            domain: "site1.cn".into(),
            text: None,
            in_sources: rng.below(2) == 0,
        }],
        claims: Vec::new(),
        risk_flags: Vec::new(),
        location_applied: Default::default(),
    }
}

/// The envelope as the analysis leaves it: every mention carries its position-adjusted word
/// count (scored by the same code as `analyze_probe`, outside the timed loop).
fn analysed(mut env: ExportEnvelope) -> ExportEnvelope {
    let targets = env.runs[0].alias_snapshot.clone();
    let scorer = PawcTargets::new(&targets);
    for p in &mut env.probes {
        scorer.score_mentions(&p.answer, &mut p.mentions);
    }
    env
}

fn bench(c: &mut Criterion) {
    let raw = envelope();
    assert_eq!(raw.probes.len(), 5_000);
    let env = analysed(raw.clone());
    assert_eq!(
        metrics_for_export(&env, None).unwrap(),
        metrics_for_export(&raw, None).unwrap(),
        "stored and recomputed scores give the same metrics"
    );
    c.bench_function("metrics_for_export 50 runs / 5000 probes", |b| {
        b.iter(|| metrics_for_export(black_box(&env), None).unwrap())
    });
    // Exports written before the analysis stored the score: metrics scan every answer.
    c.bench_function("metrics_for_export 50 runs / 5000 probes, scores not stored", |b| {
        b.iter(|| metrics_for_export(black_box(&raw), None).unwrap())
    });
    // The same probes as one run of 10 prompts × 500 repeats, compared with no previous run.
    let mut big = env.runs[0].clone();
    big.planned_probe_count = 5_000;
    let probes: Vec<Probe> = env.probes.iter().map(|p| Probe { run_id: big.id.clone(), ..p.clone() }).collect();
    c.bench_function("compute_run_metrics 1 run / 5000 probes", |b| {
        b.iter(|| compute_run_metrics(black_box(&big), black_box(&probes), None))
    });
    c.bench_function("project_series 50 runs / 5000 probes", |b| {
        b.iter(|| project_series(black_box(&env.runs), black_box(&env.probes), "proj"))
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
