//! Builders for the metrics tests: runs, probes, mentions and sources made directly from the
//! model structs, as an analysed probe would carry them.
#![allow(dead_code)]

use geo_core::model::*;

pub use crate::builders::probe;

pub const BRAND: &str = "acme";
pub const BETA: &str = "beta";
pub const GAMMA: &str = "gamma";

/// A target whose label is its first alias.
pub fn target(id: &str, kind: TargetKind, aliases: &[&str], domains: &[&str]) -> Target {
    crate::support::target(id, kind, aliases.first().copied().unwrap_or(id), aliases, domains)
}

pub fn targets() -> Vec<Target> {
    vec![
        target(BRAND, TargetKind::Brand, &["Acme", "艾克米"], &["acme.com"]),
        target(BETA, TargetKind::Competitor, &["Beta"], &["beta.io"]),
        target(GAMMA, TargetKind::Competitor, &["Gamma"], &[]),
    ]
}

pub fn prompt(id: &str, text: &str, tags: &[&str]) -> Prompt {
    Prompt {
        id: id.into(),
        project_id: "proj".into(),
        text: text.into(),
        tags: tags.iter().map(|s| s.to_string()).collect(),
        created_at: "2026-11-01T00:00:00.000Z".into(),
        updated_at: "2026-11-01T00:00:00.000Z".into(),
    }
}

pub fn run(id: &str, created_at: &str, prompts: Vec<Prompt>, previous: Option<&str>) -> Run {
    Run {
        id: id.into(),
        project_id: "proj".into(),
        status: RunStatus::Completed,
        created_at: created_at.into(),
        finished_at: None,
        previous_run_id: previous.map(str::to_string),
        app_version: APP_VERSION.into(),
        schema_version: SCHEMA_VERSION,
        config: RunConfig::default(),
        alias_snapshot: targets(),
        planned_probe_count: prompts.len() as u32 * 3,
        prompt_snapshot: prompts,
        group_id: None,
        fact_snapshot: None,
        surface: Default::default(),
    }
}

/// `probes` as the repeats of run `run`, in order: repeat k gets index k and its id.
pub fn numbered(run: &str, probes: Vec<Probe>) -> Vec<Probe> {
    probes
        .into_iter()
        .enumerate()
        .map(|(k, mut p)| {
            p.run_id = run.into();
            p.repeat_index = k as u32;
            p.id = probe_id(run, &p.prompt_id, k as u32);
            p
        })
        .collect()
}

pub fn failed(run: &str, prompt: &str, repeat: u32, status: ProbeStatus) -> Probe {
    let mut p = probe(run, prompt, repeat, status);
    p.usage = Usage::default();
    p.error = Some(ProbeError { kind: ErrorKind::Server, http_status: Some(500), message: "server error".into() });
    p
}

pub fn mention(target: &str, order: u32, list_position: Option<u32>) -> Mention {
    Mention {
        target_id: target.into(),
        count: 1,
        order,
        first_index: 0,
        context: String::new(),
        matched_aliases: vec![],
        list_position,
        position_adjusted_word_count: None,
    }
}

pub fn source(domain: &str, ownership: Ownership, ranks: &[u32]) -> SearchSource {
    SearchSource {
        id: format!("src_{domain}"),
        url: format!("https://{domain}/page"),
        host: domain.into(),
        domain: domain.into(),
        title: format!("title of {domain}"),
        page_age: None,
        platform: domain.split('.').next().unwrap_or(domain).into(),
        channel: "other".into(),
        ownership,
        competitor_id: None,
        occurrences: ranks
            .iter()
            .enumerate()
            .map(|(i, &rank)| Occurrence { query_index: i as u32 + 1, query: Some("q".into()), rank })
            .collect(),
        best_rank: ranks.iter().copied().min().unwrap_or(1),
        title_mentions: vec![],
        cited: None,
    }
}

pub fn third(domain: &str, ranks: &[u32]) -> SearchSource {
    source(domain, Ownership::ThirdParty, ranks)
}

pub fn link(url: &str, in_sources: bool) -> AnswerLink {
    AnswerLink {
        url: url.into(),
        canonical_url: url.into(),
        domain: url.trim_start_matches("https://").split('/').next().unwrap_or("").into(),
        text: None,
        in_sources,
    }
}

pub fn list(titles: &[&str]) -> Vec<ListItem> {
    titles
        .iter()
        .enumerate()
        .map(|(i, t)| ListItem {
            position: i as u32 + 1,
            title: t.to_string(),
            text: t.to_string(),
            matched_target_id: None,
        })
        .collect()
}

pub fn project() -> Project {
    let t = targets();
    Project {
        id: "proj".into(),
        name: "Acme | 艾克米 <b>".into(),
        brand: t[0].clone(),
        competitors: t[1..].to_vec(),
        is_demo: false,
        created_at: "2026-11-01T00:00:00.000Z".into(),
        updated_at: "2026-11-01T00:00:00.000Z".into(),
        facts: Vec::new(),
        watch_terms: Vec::new(),
    }
}

/// A small hand-built pair of runs used by the goldens and several hand-computed tests.
///
/// Run `r2` (previous `r1`), prompts p1 (generic), p2 (brand), p3 (generic, one success):
/// - p1#0 success: answer mentions Acme (order 2, list 2) and Beta (order 1); sources zhihu.com
///   (ranks 1, 3), acme.com owned (rank 2); links: one in sources, one not.
/// - p1#1 success: mentions Beta only; sources zhihu.com (2), csdn.net (1).
/// - p1#2 error.
/// - p2#0 success: Acme order 1 (no list position); sources acme.com owned (1), zhihu.com (4).
/// - p2#1 success: Acme order 1, list 1; Gamma order 2; sources acme.com (3).
/// - p2#2 empty.
/// - p3#0 success: no mention; sources baidu.com (1); no links.
///
/// Run `r1`: p1#0 success with sources zhihu.com, oldsite.cn; p1#1 error with source gone.cn.
pub fn sample() -> (Project, Run, Vec<Probe>, Run, Vec<Probe>) {
    let prompts = vec![
        prompt("p1", "最好的 GEO 工具有哪些？", &["generic"]),
        prompt("p2", "Acme 怎么样？", &["brand"]),
        prompt("p3", "推荐 | 一些\n工具", &["generic", "scenario"]),
    ];
    let r1 = run("r1", "2026-11-20T08:00:00.000Z", prompts.clone(), None);
    let mut a = probe("r1", "p1", 0, ProbeStatus::Success);
    a.sources = vec![third("zhihu.com", &[1]), third("oldsite.cn", &[2])];
    let mut b = failed("r1", "p1", 1, ProbeStatus::Error);
    b.sources = vec![third("gone.cn", &[1])];
    let r1_probes = vec![a, b];

    let r2 = run("r2", "2026-11-29T08:00:00.000Z", prompts, Some("r1"));
    let mut p10 = probe("r2", "p1", 0, ProbeStatus::Success);
    p10.answer = "Beta 是第一。Acme 也不错。".into();
    p10.mentions = vec![mention(BETA, 1, Some(1)), mention(BRAND, 2, Some(2))];
    p10.sources = vec![third("zhihu.com", &[1, 3]), source("acme.com", Ownership::Owned, &[2])];
    p10.answer_links = vec![link("https://acme.com/page", true), link("https://example.org/x", false)];
    p10.list_items = list(&["Beta", "Acme", "OtherCo"]);
    p10.other_entities = vec!["OtherCo".into()];
    let mut p11 = probe("r2", "p1", 1, ProbeStatus::Success);
    p11.answer = "Beta 很好。".into();
    p11.mentions = vec![mention(BETA, 1, None)];
    p11.sources = vec![third("zhihu.com", &[2]), third("csdn.net", &[1])];
    p11.list_items = list(&["Beta", "ＯＴＨＥＲＣＯ", "Delta"]);
    p11.other_entities = vec!["ＯＴＨＥＲＣＯ".into(), "Delta".into()];
    let p12 = failed("r2", "p1", 2, ProbeStatus::Error);
    let mut p20 = probe("r2", "p2", 0, ProbeStatus::Success);
    p20.answer = "Acme 是一家公司。".into();
    p20.mentions = vec![mention(BRAND, 1, None)];
    p20.sources = vec![source("acme.com", Ownership::Owned, &[1]), third("zhihu.com", &[4])];
    let mut p21 = probe("r2", "p2", 1, ProbeStatus::Success);
    p21.answer = "Acme 排第一。Gamma 第二。".into();
    p21.mentions = vec![mention(BRAND, 1, Some(1)), mention(GAMMA, 2, Some(2))];
    p21.sources = vec![source("acme.com", Ownership::Owned, &[3])];
    let p22 = failed("r2", "p2", 2, ProbeStatus::Empty);
    let mut p30 = probe("r2", "p3", 0, ProbeStatus::Success);
    p30.answer = "没有推荐。".into();
    p30.sources = vec![third("baidu.com", &[1])];
    let r2_probes = vec![p10, p11, p12, p20, p21, p22, p30];
    (project(), r1, r1_probes, r2, r2_probes)
}

pub fn sample_envelope() -> ExportEnvelope {
    let (project, r1, p1, r2, p2) = sample();
    let mut env = ExportEnvelope::new("2026-11-30T00:00:00.000Z");
    env.app_version = "test".into();
    env.prompts = r2.prompt_snapshot.clone();
    env.projects = vec![project];
    env.runs = vec![r2, r1];
    env.probes = p2.into_iter().chain(p1).collect();
    env
}
