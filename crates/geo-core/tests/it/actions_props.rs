//! Property tests of `geo_core::actions` on generated pairs of runs: every item's evidence
//! probes exist, are successful probes of the run and satisfy the item's rule; every item the
//! rules call for is listed (checked against a plain recomputation), in the stated order; and
//! against the previous run each status follows its definition.

use geo_core::actions::{compute_actions, Actions, ItemStatus, RunInput};
use geo_core::model::*;
use proptest::prelude::*;
use std::collections::{BTreeMap, BTreeSet};
use unicode_normalization::UnicodeNormalization;

const TARGETS: [(&str, TargetKind); 4] = [
    ("acme", TargetKind::Brand),
    ("beta", TargetKind::Competitor),
    ("gamma", TargetKind::Competitor),
    ("ghost", TargetKind::Competitor),
];
const QUERIES: [&str; 7] =
    ["GEO tools", "geo  TOOLS", "ＧＥＯ\u{3000}tools", "best geo", " best GEO ", "元构场 官网", "  "];
const URLS: [&str; 6] = [
    "https://zhihu.com/p/1",
    "https://zhihu.com/p/2",
    "https://36kr.com/a",
    "https://acme.com/",
    "https://beta.io/x",
    "https://vertexaisearch.cloud.google.com/grounding-api-redirect/A",
];
const LINKS: [&str; 4] = ["https://a.example/x", "https://b.example/y", "https://a.example/z", "http://c.example/"];

fn source(
    url: &str,
    domain: usize,
    ownership: u8,
    occurrences: Vec<u32>,
    titles: Vec<usize>,
    cited: bool,
) -> SearchSource {
    let domain = ["zhihu.com", "36kr.com", "acme.com", "beta.io"][domain].to_string();
    SearchSource {
        id: String::new(),
        url: url.to_string(),
        host: domain.clone(),
        domain,
        title: format!("title {}", url.len() % 3),
        page_age: None,
        platform: String::new(),
        channel: "other".into(),
        ownership: [Ownership::Owned, Ownership::Competitor, Ownership::ThirdParty][ownership as usize % 3],
        competitor_id: None,
        occurrences: occurrences.into_iter().map(|i| Occurrence { query_index: i, query: None, rank: 1 }).collect(),
        best_rank: 1,
        title_mentions: titles.into_iter().map(|t| TARGETS[t].0.to_string()).collect(),
        cited: Some(cited),
    }
}

prop_compose! {
    fn probe_strategy()(
        prompt in 0usize..4,
        status in 0u8..5,
        mentions in prop::collection::vec((0usize..4, 1u32..5, prop::option::of(1u32..6)), 0..5),
        queries in prop::collection::vec(prop::option::of(0usize..QUERIES.len()), 0..4),
        sources in prop::collection::vec(
            (0usize..URLS.len(), 0usize..4, 0u8..3, prop::collection::vec(0u32..5, 0..3), prop::collection::vec(0usize..4, 0..3), any::<bool>()),
            0..5),
        links in prop::collection::vec(0usize..LINKS.len(), 0..3),
    ) -> Probe {
        let mut p = crate::metrics_support::probe("r", &format!("p{prompt}"), 0, if status == 0 { ProbeStatus::Error } else { ProbeStatus::Success });
        p.mentions = mentions.into_iter().map(|(t, order, pos)| crate::metrics_support::mention(TARGETS[t].0, order, pos)).collect();
        p.queries = queries.into_iter().enumerate().map(|(i, q)| Query {
            index: i as u32 + 1,
            query: q.map(|q| QUERIES[q].to_string()),
            internal: q.is_none(),
            error: None,
        }).collect();
        p.sources = sources.into_iter().map(|(u, d, o, occ, titles, cited)| source(URLS[u], d, o, occ, titles, cited)).collect();
        p.answer_links = links.into_iter().map(|l| AnswerLink {
            url: LINKS[l].into(), canonical_url: LINKS[l].into(), domain: "x".into(), text: None, in_sources: false,
        }).collect();
        p
    }
}

fn run_strategy(
    id: &'static str,
    previous: Option<&'static str>,
) -> impl Strategy<Value = (Run, Vec<Probe>, Option<LinkCheck>)> {
    (
        prop::collection::vec(0usize..4, 0..5),
        prop::collection::vec(0usize..4, 0..6),
        prop::collection::vec(probe_strategy(), 0..16),
        prop::option::of(prop::collection::vec((0usize..LINKS.len(), 0u8..5), 0..5)),
    )
        .prop_map(move |(targets, prompts, probes, check)| {
            let prompts = prompts
                .into_iter()
                .map(|i| crate::metrics_support::prompt(&format!("p{i}"), &format!("问题 {i}"), &[]))
                .collect();
            let mut run = crate::metrics_support::run(id, "2026-11-29T08:00:00.000Z", prompts, previous);
            run.alias_snapshot = targets
                .into_iter()
                .map(|t| crate::metrics_support::target(TARGETS[t].0, TARGETS[t].1, &[TARGETS[t].0], &[]))
                .collect();
            let probes = crate::metrics_support::numbered(id, probes);
            let check = check.map(|links| LinkCheck {
                run_id: id.into(),
                checked_at: "2026-11-29T09:00:00.000Z".into(),
                links: links
                    .into_iter()
                    .map(|(l, c)| LinkResult {
                        url: LINKS[l].into(),
                        class: LinkClass::ALL[c as usize],
                        status: Some(404),
                        final_url: None,
                        hops: vec![],
                        error: None,
                    })
                    .collect(),
            });
            (run, probes, check)
        })
}

/// The plain form of a query: NFKC, lower case, single spaces.
fn fold(q: &str) -> String {
    q.nfkc().collect::<String>().to_lowercase().split_whitespace().collect::<Vec<_>>().join(" ")
}

struct Facts<'a> {
    run: &'a Run,
    ok: Vec<&'a Probe>,
    brand: Option<&'a str>,
    competitors: Vec<&'a str>,
}

impl<'a> Facts<'a> {
    fn new(run: &'a Run, probes: &'a [Probe]) -> Self {
        let brand = run.alias_snapshot.iter().find(|t| t.kind == TargetKind::Brand).map(|t| t.id.as_str());
        let competitors: BTreeSet<&str> = run
            .alias_snapshot
            .iter()
            .filter(|t| t.kind == TargetKind::Competitor && Some(t.id.as_str()) != brand)
            .map(|t| t.id.as_str())
            .collect();
        Facts {
            run,
            ok: probes.iter().filter(|p| p.run_id == run.id && p.status == ProbeStatus::Success).collect(),
            brand,
            competitors: competitors.into_iter().collect(),
        }
    }

    fn probe(&self, id: &str) -> Option<&'a Probe> {
        self.ok.iter().copied().find(|p| p.id == id)
    }

    fn mentions(p: &Probe, target: Option<&str>) -> Option<u32> {
        p.mentions.iter().find(|m| Some(m.target_id.as_str()) == target).map(|m| m.order)
    }

    fn behind(&self, p: &Probe) -> bool {
        let brand = Self::mentions(p, self.brand);
        self.competitors.iter().filter_map(|c| Self::mentions(p, Some(c))).any(|c| brand.is_none_or(|b| b > c))
    }

    fn of_prompt(&self, prompt: &str) -> Vec<&'a Probe> {
        self.ok.iter().copied().filter(|p| p.prompt_id == prompt).collect()
    }

    fn count(probes: &[&Probe], target: Option<&str>) -> u32 {
        probes.iter().filter(|p| Self::mentions(p, target).is_some()).count() as u32
    }

    /// The lost prompts by the rule, computed plainly.
    fn lost(&self) -> BTreeSet<String> {
        let snapshot: BTreeSet<&str> = self.run.prompt_snapshot.iter().map(|p| p.id.as_str()).collect();
        snapshot
            .into_iter()
            .filter(|id| {
                let probes = self.of_prompt(id);
                let (n, kb) = (probes.len() as u32, Self::count(&probes, self.brand));
                n > 0
                    && self.competitors.iter().any(|c| {
                        let k = Self::count(&probes, Some(c));
                        3 * k >= n && k > kb
                    })
            })
            .map(str::to_string)
            .collect()
    }

    /// query → (probe ids, domains, owned, competitor), computed plainly.
    fn queries(&self) -> BTreeMap<String, (BTreeSet<String>, BTreeSet<String>, bool, bool)> {
        let mut out: BTreeMap<String, (BTreeSet<String>, BTreeSet<String>, bool, bool)> = BTreeMap::new();
        for p in &self.ok {
            for q in p.queries.iter().filter(|q| !q.internal) {
                let Some(text) = q.query.as_deref().map(fold).filter(|t| !t.is_empty()) else { continue };
                let row = out.entry(text.clone()).or_default();
                row.0.insert(p.id.clone());
                let indices: Vec<u32> = p
                    .queries
                    .iter()
                    .filter(|x| !x.internal && x.query.as_deref().map(fold).as_deref() == Some(text.as_str()))
                    .map(|x| x.index)
                    .collect();
                for s in p.sources.iter().filter(|s| s.occurrences.iter().any(|o| indices.contains(&o.query_index))) {
                    row.1.insert(s.domain.clone());
                    row.2 |= s.ownership == Ownership::Owned;
                    row.3 |= s.ownership == Ownership::Competitor;
                }
            }
        }
        out
    }

    fn page_key(s: &SearchSource) -> String {
        if s.url.contains("vertexaisearch.cloud.google.com") {
            s.domain.clone()
        } else {
            s.url.clone()
        }
    }

    /// page key → probe ids, over the lost prompts' probes.
    fn pages(&self, lost: &BTreeSet<String>) -> BTreeMap<String, BTreeSet<String>> {
        let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for p in self.ok.iter().filter(|p| lost.contains(&p.prompt_id)) {
            for s in p.sources.iter().filter(|s| s.ownership == Ownership::ThirdParty) {
                out.entry(Self::page_key(s)).or_default().insert(p.id.clone());
            }
        }
        out
    }
}

fn check_actions(a: &Actions, f: &Facts<'_>, check: Option<&LinkCheck>) -> Result<(), TestCaseError> {
    prop_assert_eq!(a.success_count as usize, f.ok.len());
    // Lost prompts: each by its rule with its evidence, all of them, in order.
    let lost = f.lost();
    prop_assert_eq!(a.lost_prompts.iter().map(|l| l.prompt_id.clone()).collect::<BTreeSet<_>>(), lost.clone());
    for w in a.lost_prompts.windows(2) {
        prop_assert!(w[0].stake > w[1].stake || (w[0].stake == w[1].stake && w[0].prompt_id < w[1].prompt_id));
    }
    for l in &a.lost_prompts {
        let probes = f.of_prompt(&l.prompt_id);
        let (n, kb) = (probes.len() as u32, Facts::count(&probes, f.brand));
        prop_assert_eq!((l.success_count, l.brand_mention_count), (n, kb));
        let ahead: Vec<(&str, u32)> =
            f.competitors.iter().map(|c| (*c, Facts::count(&probes, Some(c)))).filter(|(_, k)| *k > kb).collect();
        prop_assert_eq!(l.competitors.len(), ahead.len());
        for c in &l.competitors {
            prop_assert!(ahead.contains(&(c.target_id.as_str(), c.mention_count)));
            prop_assert_eq!(c.mention_rate, f64::from(c.mention_count) / f64::from(n));
        }
        prop_assert_eq!(l.stake, l.competitors[0].mention_count - kb);
        let behind: BTreeSet<String> = probes.iter().filter(|p| f.behind(p)).map(|p| p.id.clone()).collect();
        prop_assert_eq!(l.probe_ids.iter().cloned().collect::<BTreeSet<_>>(), behind);
        prop_assert_eq!(l.behind_share, l.probe_ids.len() as f64 / f64::from(n));
        for id in &l.probe_ids {
            let p = f.probe(id).ok_or_else(|| TestCaseError::fail(format!("evidence {id} is no successful probe")))?;
            prop_assert!(p.prompt_id == l.prompt_id && f.behind(p));
        }
        prop_assert!(l.brand_low <= l.brand_mention_rate && l.brand_mention_rate <= l.brand_high);
    }
    // Queries: every folded query, each probe that ran it, what it brought back.
    let queries = f.queries();
    prop_assert_eq!(a.queries.iter().map(|q| q.query.clone()).collect::<Vec<_>>().len(), queries.len());
    for w in a.queries.windows(2) {
        prop_assert!(
            w[0].probe_count > w[1].probe_count || (w[0].probe_count == w[1].probe_count && w[0].query < w[1].query)
        );
    }
    for q in &a.queries {
        let (ids, domains, owned, competitor) =
            queries.get(&q.query).ok_or_else(|| TestCaseError::fail(format!("no probe ran {:?}", q.query)))?;
        prop_assert_eq!(&q.probe_ids.iter().cloned().collect::<BTreeSet<_>>(), ids);
        prop_assert_eq!(q.probe_count as usize, q.probe_ids.len());
        prop_assert_eq!(&q.domains.iter().cloned().collect::<BTreeSet<_>>(), domains);
        prop_assert_eq!((q.owned, q.competitor), (*owned, *competitor));
        for id in &q.probe_ids {
            let p = f.probe(id).ok_or_else(|| TestCaseError::fail(format!("evidence {id} is no successful probe")))?;
            prop_assert!(p
                .queries
                .iter()
                .any(|x| !x.internal && x.query.as_deref().map(fold) == Some(q.query.clone())));
            prop_assert!(q.prompt_ids.contains(&p.prompt_id));
        }
    }
    // Pages: the third-party sources of the lost prompts' probes.
    let pages = f.pages(&lost);
    prop_assert_eq!(a.pages.len(), pages.len());
    for p in &a.pages {
        let ids = pages.get(&p.url).ok_or_else(|| TestCaseError::fail(format!("{} is no page to be on", p.url)))?;
        prop_assert_eq!(&p.probe_ids.iter().cloned().collect::<BTreeSet<_>>(), ids);
        prop_assert_eq!(p.probe_count as usize, ids.len());
        prop_assert!(p.cited_count <= p.probe_count);
        for id in &p.probe_ids {
            let probe =
                f.probe(id).ok_or_else(|| TestCaseError::fail(format!("evidence {id} is no successful probe")))?;
            prop_assert!(lost.contains(&probe.prompt_id));
            let mine: Vec<&SearchSource> = probe
                .sources
                .iter()
                .filter(|s| s.ownership == Ownership::ThirdParty && Facts::page_key(s) == p.url)
                .collect();
            prop_assert!(!mine.is_empty());
        }
    }
    // Links: the counts add up; every link that does not exist names the answers that wrote it.
    match (a.links, check) {
        (None, None) => {}
        (Some(c), Some(check)) => {
            prop_assert_eq!(c.checked as usize, check.links.len());
            prop_assert_eq!(c.ok + c.redirect + c.not_found + c.blocked + c.error, c.checked);
            prop_assert_eq!(a.not_found_links.len() as u32, c.not_found);
            for l in &a.not_found_links {
                for id in &l.probe_ids {
                    let p = f
                        .probe(id)
                        .ok_or_else(|| TestCaseError::fail(format!("evidence {id} is no successful probe")))?;
                    prop_assert!(p.answer_links.iter().any(|x| x.canonical_url == l.url));
                }
            }
        }
        (got, want) => prop_assert!(false, "links {got:?} for a check {want:?}"),
    }
    Ok(())
}

proptest! {
    #![proptest_config(crate::config())]

    /// Every item of generated runs follows its rule, with existing evidence; against the
    /// previous run, each status follows its definition.
    #[test]
    fn every_item_follows_its_rule_with_existing_evidence(
        (r1, p1, c1) in run_strategy("r1", None),
        (r2, p2, c2) in run_strategy("r2", Some("r1")),
    ) {
        let refs1: Vec<&Probe> = p1.iter().chain(&p2).collect();
        let first = RunInput { run: &r1, probes: &refs1, link_check: c1.as_ref() };
        let alone = compute_actions(first, None);
        check_actions(&alone, &Facts::new(&r1, &p1), c1.as_ref())?;
        prop_assert!(alone.solved.is_none() && alone.lost_prompts.iter().all(|l| l.status.is_none()));

        let refs2: Vec<&Probe> = p2.iter().collect();
        let second = RunInput { run: &r2, probes: &refs2, link_check: c2.as_ref() };
        let a = compute_actions(second, Some(first));
        let f2 = Facts::new(&r2, &p2);
        check_actions(&a, &f2, c2.as_ref())?;
        let f1 = Facts::new(&r1, &p1);
        let lost_before = f1.lost();
        for l in &a.lost_prompts {
            let want = if lost_before.contains(&l.prompt_id) { ItemStatus::Open } else { ItemStatus::New };
            prop_assert_eq!(l.status, Some(want));
        }
        let solved = a.solved.as_ref().unwrap();
        for id in &solved.lost_prompts {
            prop_assert!(lost_before.contains(id) && !f2.lost().contains(id) && !f2.of_prompt(id).is_empty());
        }
        let unowned_before: BTreeSet<String> =
            f1.queries().into_iter().filter(|(_, r)| !r.2).map(|(q, _)| q).collect();
        for q in &a.queries {
            let want = match (q.owned, unowned_before.contains(&q.query)) {
                (false, true) => Some(ItemStatus::Open),
                (false, false) => Some(ItemStatus::New),
                (true, true) => Some(ItemStatus::Solved),
                (true, false) => None,
            };
            prop_assert_eq!(q.status, want);
        }
        let pages_before = f1.pages(&lost_before);
        for p in &a.pages {
            let want = if pages_before.contains_key(&p.url) { ItemStatus::Open } else { ItemStatus::New };
            prop_assert_eq!(p.status, Some(want));
        }
        for url in &solved.pages {
            prop_assert!(pages_before.contains_key(url) && a.pages.iter().all(|p| &p.url != url));
        }
    }
}
