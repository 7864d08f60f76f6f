//! The demo project (`demo/demo-data.json`, made by `cargo xtask demo`) tells the story a
//! newcomer should see: every dashboard card has a value, the insights differ between the
//! weeks, the second week gains and loses source domains, competitors leave an outreach gap,
//! one probe failed and one stayed empty, and the recorded latencies are those of web-search
//! answers (tens of seconds), so the run page's estimate is realistic.

use geo_core::metrics::cost::estimate_run;
use geo_core::metrics::{metrics_for_export, RunMetrics};
use geo_core::model::{ExportEnvelope, ProbeStatus};

fn demo() -> ExportEnvelope {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../demo/demo-data.json"))
        .expect("demo/demo-data.json is readable");
    let mut env = geo_core::export::import::parse_export(&text, &Default::default()).expect("the demo export parses");
    geo_core::analysis::analyze_envelope(&mut env);
    env
}

fn kinds(m: &RunMetrics) -> Vec<&str> {
    m.insights.iter().map(|i| i.kind.as_str()).collect()
}

#[track_caller]
fn between(what: &str, v: Option<f64>, low: f64, high: f64) {
    let v = v.unwrap_or_else(|| panic!("{what} has no value"));
    assert!(v > low && v < high, "{what} = {v}, expected in ({low}, {high})");
}

#[test]
fn every_card_has_a_value_and_the_weeks_differ() {
    let env = demo();
    let all = metrics_for_export(&env, None).unwrap();
    let [week1, week2] = &all[..] else { panic!("two runs, got {}", all.len()) };
    for m in [week1, week2] {
        // Neither always nor never mentioned; first on some prompts only.
        between("mention rate", m.mention_rate, 0.2, 0.8);
        between("first-mention rate", m.first_mention_rate, 0.1, 0.9);
        between("owned visibility", m.owned_visibility, 0.1, 0.95);
        between("source stability", m.source_stability, 0.0, 1.0);
        between("answer-link overlap", m.answer_link_overlap, 0.0, 1.01);
        assert!(m.avg_order.is_some() && m.avg_list_position.is_some() && m.owned_best_rank.is_some());
        assert!(m.unique_domains >= 8, "{} domains", m.unique_domains);
        assert!(m.estimated_cost_usd.is_some_and(|c| c > 0.0), "the demo's model has a price");
        assert!(
            !m.outreach_gap.domains.is_empty(),
            "{}: competitors are retrieved with pages the brand never is",
            m.run_id
        );
        assert!(!m.untracked_entities.is_empty());
        assert!(kinds(m).contains(&"brand_recognized") && kinds(m).contains(&"top_source"), "{:?}", kinds(m));
    }
    // Week one: the brand is absent from every generic answer.
    assert!(kinds(week1).contains(&"generic_not_mentioned"), "{:?}", kinds(week1));
    // Week two: a generic answer names it, sources came and went, answers vary more.
    assert!(!kinds(week2).contains(&"generic_not_mentioned"), "{:?}", kinds(week2));
    assert!(kinds(week2).contains(&"source_change"), "{:?}", kinds(week2));
    assert!(
        !week2.new_domains.is_empty() && !week2.lost_domains.is_empty(),
        "{:?} {:?}",
        week2.new_domains,
        week2.lost_domains
    );
    between("week-two list stability", week2.list_stability, 0.0, 1.0);
    assert_ne!(week1.outreach_gap.domains, week2.outreach_gap.domains);
    assert_eq!((week1.failed_count, week2.failed_count), (0, 2));
    let failed: Vec<ProbeStatus> =
        env.probes.iter().filter(|p| p.status != ProbeStatus::Success).map(|p| p.status).collect();
    assert_eq!(failed, [ProbeStatus::Error, ProbeStatus::Empty]);
    // A competitor comes first on some prompts.
    let brand = week1.brand_id.clone().unwrap();
    let competitor_first = env
        .probes
        .iter()
        .filter(|p| p.status == ProbeStatus::Success)
        .any(|p| p.mentions.iter().min_by_key(|m| m.order).is_some_and(|m| m.target_id != brand));
    assert!(competitor_first);
}

#[test]
fn recorded_latencies_give_a_realistic_estimate() {
    let env = demo();
    let last = env.runs.iter().max_by(|a, b| a.created_at.cmp(&b.created_at)).unwrap();
    let ok: Vec<u64> = env
        .probes
        .iter()
        .filter(|p| p.run_id == last.id && p.status == ProbeStatus::Success)
        .map(|p| p.latency_ms)
        .collect();
    assert!(ok.iter().all(|ms| (15_000..=90_000).contains(ms)), "{ok:?}");
    // The run page's default: every prompt, 3 repeats, 3 at a time.
    let e = estimate_run("deepseek-v4-flash", env.prompts.len(), 3, 3, Some((last, &env.probes)));
    assert_eq!(e.waves, (env.prompts.len() as u64 * 3).div_ceil(3));
    assert!((20_000.0..=60_000.0).contains(&e.profile.latency_ms), "{}", e.profile.latency_ms);
    assert!((120..=900).contains(&e.seconds), "{} s", e.seconds);
    assert_eq!(e.history_probes as usize, ok.len());
}
