//! Shared fixture of the export tests: a small, hand-analysed store with Chinese text,
//! quotes, commas, newlines and a formula-like answer.

#![allow(dead_code)]

use crate::builders::{raw_source, usage};
use geo_core::model::*;

/// Fixed export timestamp of the goldens.
pub const EXPORTED_AT: &str = "2026-11-30T09:00:00.000Z";

/// The appVersion the goldens show instead of the real [`APP_VERSION`].
pub fn redact_app_version(text: &str) -> String {
    text.replace(&format!("\"appVersion\": \"{APP_VERSION}\""), "\"appVersion\": \"[app-version]\"")
}

/// CSV made visible for a golden: BOM and record ends shown, embedded LFs kept.
pub fn visible_csv(text: &str) -> String {
    text.replace('\u{feff}', "<BOM>").replace("\r\n", "␍␊\n")
}

pub use crate::support::target;

pub fn prompt(id: &str, project: &str, text: &str, tags: &[&str], at: &str) -> Prompt {
    Prompt {
        id: id.into(),
        project_id: project.into(),
        text: text.into(),
        tags: tags.iter().map(|s| s.to_string()).collect(),
        created_at: at.into(),
        updated_at: at.into(),
    }
}

/// A probe of `run` with nothing derived, no usage and no stop reason, one attempt of
/// 12,345 ms, created at a time of its prompt and repeat.
pub fn bare_probe(run: &Run, prompt_id: &str, repeat: u32, status: ProbeStatus) -> Probe {
    Probe {
        project_id: run.project_id.clone(),
        created_at: format!("2026-11-29T08:0{}:0{repeat}.000Z", prompt_id.len() % 10),
        model: RunConfig::default().model,
        latency_ms: 12_345,
        stop_reason: None,
        usage: Usage::default(),
        ..crate::metrics_support::probe(&run.id, prompt_id, repeat, status)
    }
}

pub fn source(id: &str, url: &str, domain: &str, title: &str, occ: &[(u32, Option<&str>, u32)]) -> SearchSource {
    SearchSource {
        id: id.into(),
        url: url.into(),
        host: url.split('/').nth(2).unwrap_or(domain).into(),
        domain: domain.into(),
        title: title.into(),
        page_age: None,
        platform: domain.into(),
        channel: "other".into(),
        ownership: Ownership::ThirdParty,
        competitor_id: None,
        occurrences: occ
            .iter()
            .map(|(qi, q, rank)| Occurrence { query_index: *qi, query: q.map(String::from), rank: *rank })
            .collect(),
        best_rank: occ.iter().map(|o| o.2).min().unwrap_or(1),
        title_mentions: Vec::new(),
        cited: None,
    }
}

/// The fixture store, records deliberately out of export order.
pub fn sample_store() -> ExportEnvelope {
    let brand = target("t_brand", TargetKind::Brand, "元构场", &["元构场", "GEO Probe"], &["yuangou.example"]);
    let rival = target("t_acme", TargetKind::Competitor, "Acme, \"Inc\"", &["Acme"], &["acme.example"]);
    let p1 = Project {
        id: "proj_1".into(),
        name: "元构场 GEO 监测".into(),
        brand: brand.clone(),
        competitors: vec![rival.clone()],
        is_demo: false,
        created_at: "2026-11-01T00:00:00.000Z".into(),
        updated_at: "2026-11-02T00:00:00.000Z".into(),
        facts: Vec::new(),
        watch_terms: Vec::new(),
    };
    let p0 = Project {
        id: "proj_0".into(),
        name: "Demo".into(),
        brand: target("t_demo", TargetKind::Brand, "Demo", &["Demo"], &[]),
        competitors: vec![],
        is_demo: true,
        created_at: "2026-10-01T00:00:00.000Z".into(),
        updated_at: "2026-10-01T00:00:00.000Z".into(),
        facts: Vec::new(),
        watch_terms: Vec::new(),
    };
    let snap_pr1 =
        prompt("pr_1", "proj_1", "推荐几家 GEO 监测工具，哪家\"最好\"？", &["generic"], "2026-11-01T01:00:00.000Z");
    let mut current_pr1 = snap_pr1.clone();
    current_pr1.text = "推荐几家 GEO 监测工具（已编辑）".into();
    current_pr1.updated_at = "2026-11-29T12:00:00.000Z".into();
    let deleted_pr3 = prompt(
        "pr_3",
        "proj_1",
        "Which tool, in one line?\nExplain",
        &["scenario", "custom"],
        "2026-11-01T02:00:00.000Z",
    );
    let unused_pr2 = prompt("pr_2", "proj_1", "元构场 怎么样", &["brand"], "2026-11-01T01:30:00.000Z");
    let demo_pr = prompt("pr_demo", "proj_0", "Demo question", &[], "2026-10-01T00:00:00.000Z");

    let r1 = Run {
        id: "run_b".into(),
        project_id: "proj_1".into(),
        status: RunStatus::Partial,
        created_at: "2026-11-29T08:00:00.000Z".into(),
        finished_at: Some("2026-11-29T08:05:00.000Z".into()),
        previous_run_id: Some("run_a".into()),
        app_version: "0.0.9-test".into(),
        schema_version: SCHEMA_VERSION,
        config: RunConfig { repeats: 2, ..RunConfig::default() },
        alias_snapshot: vec![brand.clone(), rival.clone()],
        prompt_snapshot: vec![snap_pr1.clone(), deleted_pr3.clone()],
        planned_probe_count: 4,
        group_id: None,
        fact_snapshot: None,
        surface: Default::default(),
    };
    // The previous run: of the same project, app version and targets as `r1`.
    let r0 = Run {
        id: "run_a".into(),
        status: RunStatus::Completed,
        created_at: "2026-11-20T08:00:00.000Z".into(),
        finished_at: Some("2026-11-20T08:01:00.000Z".into()),
        previous_run_id: None,
        config: RunConfig { repeats: 1, concurrency: 1, temperature: 0.7, ..RunConfig::default() },
        prompt_snapshot: vec![snap_pr1.clone()],
        planned_probe_count: 1,
        ..r1.clone()
    };

    let mut a = bare_probe(&r1, "pr_1", 0, ProbeStatus::Success);
    a.raw_answer =
        "推荐：\n1. **Acme, \"Inc\"**：老牌\n2. **元构场**：GEO Probe 开源 [官网](https://yuangou.example/)".into();
    a.answer = a.raw_answer.clone();
    a.request_id = Some("msg_01".into());
    a.stop_reason = Some("end_turn".into());
    a.usage = usage(1200, 340, 64, 2);
    a.queries = vec![
        Query { index: 1, query: Some("GEO 监测工具, 排名".into()), internal: false, error: None },
        Query { index: 2, query: None, internal: true, error: None },
    ];
    a.raw_sources = vec![
        raw_source(1, 1, "十大 GEO 工具，\"权威\"榜单", "https://www.zhihu.com/q/1", Some("2026-11-01")),
        raw_source(1, 2, "=cmd|' /C calc'!A0", "https://acme.example/blog", None),
        raw_source(2, 1, "十大 GEO 工具", "https://zhihu.com/q/1", None),
    ];
    let mut s1 = source(
        "src_1",
        "https://www.zhihu.com/q/1",
        "zhihu.com",
        "十大 GEO 工具，\"权威\"榜单",
        &[(1, Some("GEO 监测工具, 排名"), 1), (2, None, 1)],
    );
    s1.platform = "知乎".into();
    s1.channel = "qa".into();
    s1.page_age = Some("2026-11-01".into());
    let mut s2 = source(
        "src_2",
        "https://acme.example/blog",
        "acme.example",
        "=cmd|' /C calc'!A0",
        &[(1, Some("GEO 监测工具, 排名"), 2)],
    );
    s2.ownership = Ownership::Competitor;
    s2.competitor_id = Some("t_acme".into());
    a.sources = vec![s1, s2];
    a.mentions = vec![
        Mention {
            target_id: "t_brand".into(),
            count: 2,
            order: 2,
            first_index: 30,
            context: "元构场：GEO Probe 开源".into(),
            matched_aliases: vec!["元构场".into(), "GEO Probe".into()],
            list_position: Some(2),
            position_adjusted_word_count: None,
        },
        Mention {
            target_id: "t_acme".into(),
            count: 1,
            order: 1,
            first_index: 7,
            context: "Acme, \"Inc\"：老牌".into(),
            matched_aliases: vec!["Acme".into()],
            list_position: Some(1),
            position_adjusted_word_count: None,
        },
    ];
    a.list_items = vec![
        ListItem {
            position: 1,
            title: "Acme, \"Inc\"".into(),
            text: "Acme, \"Inc\"：老牌".into(),
            matched_target_id: Some("t_acme".into()),
        },
        ListItem {
            position: 2,
            title: "元构场".into(),
            text: "元构场：GEO Probe 开源".into(),
            matched_target_id: Some("t_brand".into()),
        },
    ];
    a.answer_links = vec![AnswerLink {
        url: "https://yuangou.example/".into(),
        canonical_url: "https://yuangou.example/".into(),
        domain: "yuangou.example".into(),
        text: Some("官网".into()),
        in_sources: false,
    }];

    let mut b = bare_probe(&r1, "pr_1", 1, ProbeStatus::Success);
    b.raw_answer = "=HYPERLINK(\"http://evil.example\",\"点我\")\n-1 分，@all".into();
    b.answer = b.raw_answer.clone();
    b.attempts = 2;
    b.usage = usage(900, 20, 0, 0);

    let mut c = bare_probe(&r1, "pr_3", 0, ProbeStatus::Error);
    c.attempts = 3;
    c.latency_ms = 180_000;
    c.error = Some(ProbeError {
        kind: ErrorKind::RateLimit,
        http_status: Some(429),
        message: "rate limited, retry later".into(),
    });

    let mut d = bare_probe(&r1, "pr_3", 1, ProbeStatus::Empty);
    d.error = Some(ProbeError { kind: ErrorKind::Empty, http_status: None, message: "empty answer".into() });

    let mut old = bare_probe(&r0, "pr_1", 0, ProbeStatus::Success);
    old.raw_answer = "元构场 is fine".into();
    old.answer = old.raw_answer.clone();
    old.mentions = vec![Mention {
        target_id: "t_brand".into(),
        count: 1,
        order: 1,
        first_index: 0,
        context: "元构场 is fine".into(),
        matched_aliases: vec!["元构场".into()],
        list_position: None,
        position_adjusted_word_count: None,
    }];

    let mut env = ExportEnvelope::new("2026-11-29T00:00:00.000Z");
    env.projects = vec![p1, p0];
    env.prompts = vec![unused_pr2, demo_pr, current_pr1];
    env.runs = vec![r1, r0];
    env.probes = vec![d, b, old, c, a];
    env
}
