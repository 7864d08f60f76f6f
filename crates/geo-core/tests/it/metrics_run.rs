//! Hand-computed run metrics: one case per denominator rule of seed §6.1, the previous-run
//! comparison, the extras, and an insta JSON golden of the sample run.

use crate::metrics_support::*;
use geo_core::metrics::{compute_run_metrics, metrics_for_export, MetricsError, RunMetrics};
use geo_core::model::*;

#[track_caller]
fn close(actual: Option<f64>, expect: Option<f64>) {
    match (actual, expect) {
        (Some(a), Some(e)) => assert!((a - e).abs() < 1e-9, "{a} != {e}"),
        (a, e) => assert_eq!(a, e),
    }
}

fn sample_metrics() -> RunMetrics {
    let (_, r1, p1, r2, p2) = sample();
    compute_run_metrics(&r2, &p2, Some((&r1, &p1)))
}

#[test]
fn error_and_empty_are_excluded_from_rate_denominators() {
    let m = sample_metrics();
    assert_eq!((m.probe_count, m.success_count, m.failed_count), (7, 5, 2));
    close(m.mention_rate, Some(3.0 / 5.0));
    close(m.first_mention_rate, Some(2.0 / 5.0));
    close(m.owned_visibility, Some(3.0 / 5.0));
    assert_eq!(m.counts.mention_count, 3);
    let zhihu = &m.domains[0];
    assert_eq!((zhihu.domain.as_str(), zhihu.probe_count), ("zhihu.com", 3));
    close(zhihu.occurrence_rate, Some(3.0 / 5.0));
}

#[test]
fn a_failed_probe_that_mentions_the_brand_does_not_count() {
    let r = run("r", "2026-11-29T08:00:00.000Z", vec![prompt("p", "q", &[])], None);
    let mut bad = failed("r", "p", 0, ProbeStatus::Error);
    bad.mentions = vec![mention(BRAND, 1, Some(1))];
    bad.sources = vec![third("x.com", &[1])];
    let mut cancelled = probe("r", "p", 1, ProbeStatus::Cancelled);
    cancelled.mentions = vec![mention(BRAND, 1, None)];
    let m = compute_run_metrics(&r, &[bad, cancelled], None);
    assert_eq!((m.probe_count, m.success_count, m.failed_count, m.counts.cancelled_count), (2, 0, 1, 1));
    assert_eq!(m.mention_rate, None);
    assert_eq!(m.mention_rate_ci, None);
    assert_eq!(m.unique_domains, 0);
    assert!(m.share_of_voice.0.iter().all(|(_, v)| v.is_none()));
    assert_eq!(m.insights[0].kind, "no_success");
    let json = serde_json::to_value(&m).unwrap();
    for key in ["mentionRate", "avgOrder", "avgListPosition", "sourceStability", "answerLinkOverlap", "ownedBestRank"] {
        assert!(json.get(key).unwrap().is_null(), "{key} must be present and null");
    }
}

#[test]
fn avg_order_is_over_mentioning_probes_only() {
    close(sample_metrics().avg_order, Some(4.0 / 3.0));
}

#[test]
fn avg_list_position_is_over_mentions_with_a_list_position_only() {
    let m = sample_metrics();
    // p1#0 at 2, p2#1 at 1; p2#0 mentions the brand without a list position.
    close(m.avg_list_position, Some(1.5));
    assert_eq!(m.counts.list_position_count, 2);
}

#[test]
fn share_of_voice_counts_a_probe_once_per_target_it_names() {
    let m = sample_metrics();
    // acme 3, beta 2, gamma 1: denominator 6 > 5 successful probes.
    assert_eq!(m.counts.share_of_voice_total, 6);
    close(*m.share_of_voice.get(BRAND).unwrap(), Some(0.5));
    close(*m.share_of_voice.get(BETA).unwrap(), Some(2.0 / 6.0));
    close(*m.share_of_voice.get(GAMMA).unwrap(), Some(1.0 / 6.0));
    let keys: Vec<_> = m.share_of_voice.0.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(keys, [BRAND, BETA, GAMMA], "snapshot order");

    // One probe naming two targets (and the brand twice) adds one to each.
    let r = run("r", "2026-11-29T08:00:00.000Z", vec![prompt("p", "q", &[])], None);
    let mut p = probe("r", "p", 0, ProbeStatus::Success);
    p.mentions = vec![mention(BRAND, 1, None), mention(BETA, 2, None), mention(BRAND, 1, None)];
    let m = compute_run_metrics(&r, &[p], None);
    assert_eq!(m.share_of_voice_counts.0.iter().map(|(_, n)| *n).collect::<Vec<_>>(), [1, 1, 0]);
    close(*m.share_of_voice.get(BETA).unwrap(), Some(0.5));
    close(*m.share_of_voice.get(GAMMA).unwrap(), Some(0.0));
}

#[test]
fn stability_skips_prompts_with_one_success() {
    let m = sample_metrics();
    // p1: J({acme, zhihu}, {csdn, zhihu}) = 1/3; p2: J({acme, zhihu}, {acme}) = 1/2; p3 skipped.
    close(m.source_stability, Some((1.0 / 3.0 + 0.5) / 2.0));
    assert_eq!(m.counts.stability_prompt_count, 2);
    close(m.prompts[2].source_stability, None);
}

#[test]
fn stability_is_null_when_no_prompt_qualifies() {
    let r = run("r", "2026-11-29T08:00:00.000Z", vec![prompt("p", "q", &[])], None);
    let mut a = probe("r", "p", 0, ProbeStatus::Success);
    a.sources = vec![third("x.com", &[1])];
    let b = failed("r", "p", 1, ProbeStatus::Error);
    let m = compute_run_metrics(&r, &[a, b], None);
    assert_eq!(m.source_stability, None);
    assert_eq!(m.list_stability, None);
}

#[test]
fn answer_link_overlap_is_null_without_links() {
    let m = sample_metrics();
    close(m.answer_link_overlap, Some(0.5));
    assert_eq!((m.counts.answer_link_in_sources_count, m.counts.answer_link_count), (1, 2));
    let r = run("r", "2026-11-29T08:00:00.000Z", vec![prompt("p", "q", &[])], None);
    let m = compute_run_metrics(&r, &[probe("r", "p", 0, ProbeStatus::Success)], None);
    assert_eq!(m.answer_link_overlap, None);
}

#[test]
fn domains_share_rank_and_order() {
    let m = sample_metrics();
    let got: Vec<(&str, u32, u32)> =
        m.domains.iter().map(|d| (d.domain.as_str(), d.occurrences, d.probe_count)).collect();
    assert_eq!(got, [("zhihu.com", 4, 3), ("acme.com", 3, 3), ("baidu.com", 1, 1), ("csdn.net", 1, 1)]);
    assert_eq!(m.unique_domains, 4);
    assert_eq!(m.counts.occurrence_count, 9);
    close(m.domains[0].occurrence_share, Some(4.0 / 9.0));
    close(m.domains[0].avg_rank, Some(2.5));
    assert_eq!(m.domains[0].best_rank, Some(1));
    assert_eq!(m.domains[1].ownership, Ownership::Owned);
    assert_eq!(m.owned_best_rank, Some(1));
}

#[test]
fn new_and_lost_domains_compare_with_previous_successful_probes() {
    let m = sample_metrics();
    // r1's error probe retrieved gone.cn: not part of the comparison.
    assert_eq!(m.new_domains, ["acme.com", "baidu.com", "csdn.net"]);
    assert_eq!(m.lost_domains, ["oldsite.cn"]);
    let (_, _, _, r2, p2) = sample();
    let alone = compute_run_metrics(&r2, &p2, None);
    assert!(alone.new_domains.is_empty() && alone.lost_domains.is_empty());
    assert_eq!(alone.previous_run_id.as_deref(), Some("r1"));
}

#[test]
fn prompts_follow_snapshot_order() {
    let m = sample_metrics();
    let got: Vec<(&str, u32, Option<f64>, Option<f64>)> =
        m.prompts.iter().map(|p| (p.prompt_id.as_str(), p.success_count, p.mention_rate, p.avg_order)).collect();
    assert_eq!(got, [("p1", 2, Some(0.5), Some(2.0)), ("p2", 2, Some(1.0), Some(1.0)), ("p3", 1, Some(0.0), None)]);
    assert_eq!(m.prompts[0].tags, ["generic"]);
}

#[test]
fn extras_list_stability_gap_entities_and_pawc() {
    let m = sample_metrics();
    // [beta, acme, otherco] vs [beta, otherco, delta]: X = 1, 1, 2.
    let p: f64 = 0.9;
    let sum = p + 0.5 * p * p + 2.0 / 3.0 * p.powi(3);
    close(m.list_stability, Some((1.0 - p) / p * sum + 2.0 / 3.0 * p.powi(3)));
    assert_eq!(m.outreach_gap.domains.iter().map(|d| d.domain.as_str()).collect::<Vec<_>>(), ["csdn.net"]);
    assert_eq!((m.outreach_gap.competitor_probe_count, m.outreach_gap.brand_probe_count), (3, 3));
    let ents: Vec<(&str, u32)> = m.untracked_entities.iter().map(|e| (e.name.as_str(), e.count)).collect();
    assert_eq!(ents, [("OtherCo", 2), ("Delta", 1)]);
    let e = (-0.5f64).exp();
    close(*m.position_adjusted_word_count.get(BRAND).unwrap(), Some((0.5 * e + 1.0 + 4.0 / 7.0) / 5.0));
    close(*m.position_adjusted_word_count.get(BETA).unwrap(), Some(1.5 / 5.0));
    close(*m.position_adjusted_word_count.get(GAMMA).unwrap(), Some(3.0 * e / 7.0 / 5.0));
    let [lo, hi] = m.mention_rate_ci.unwrap();
    assert!(lo < 0.6 && 0.6 < hi);
}

#[test]
fn cost_sums_every_probe_record() {
    // 5 successes × (10,000 × 0.30 + 1,000 × 1.20) / 1e6 + 2 × 0.00075 = 5 × 0.0057.
    close(sample_metrics().estimated_cost_usd, Some(0.0285));
}

#[test]
fn export_metrics_are_in_created_at_order_and_unknown_runs_fail() {
    let env = sample_envelope();
    let all = metrics_for_export(&env, None).unwrap();
    assert_eq!(all.iter().map(|m| m.run_id.as_str()).collect::<Vec<_>>(), ["r1", "r2"]);
    assert_eq!(all[1], sample_metrics());
    let one = metrics_for_export(&env, Some("r1")).unwrap();
    assert_eq!(one.len(), 1);
    let err = metrics_for_export(&env, Some("nope")).unwrap_err();
    assert!(matches!(err, MetricsError::UnknownRun { .. }));
    assert_eq!(err.to_string(), "run `nope` is not in the export: use one of `r1`, `r2`");
}

#[test]
fn contract_keys_are_all_present() {
    let json = serde_json::to_value(sample_metrics()).unwrap();
    for key in [
        "runId",
        "previousRunId",
        "probeCount",
        "successCount",
        "failedCount",
        "mentionRate",
        "firstMentionRate",
        "avgOrder",
        "avgListPosition",
        "shareOfVoice",
        "ownedVisibility",
        "ownedBestRank",
        "uniqueDomains",
        "sourceStability",
        "answerLinkOverlap",
        "newDomains",
        "lostDomains",
        "domains",
        "prompts",
        "estimatedCostUsd",
        "insights",
        "surface",
        "method",
    ] {
        assert!(json.get(key).is_some(), "missing {key}");
    }
    assert_eq!(json["surface"], "api");
    for key in geo_core::metrics::METHOD_FIELDS {
        assert!(json["method"].get(key).is_some(), "missing method.{key}");
    }
    for key in [
        "domain",
        "platform",
        "channel",
        "ownership",
        "probeCount",
        "occurrenceRate",
        "occurrences",
        "occurrenceShare",
        "avgRank",
        "bestRank",
    ] {
        assert!(json["domains"][0].get(key).is_some(), "missing domains[].{key}");
    }
    for key in ["promptId", "successCount", "mentionRate", "firstMentionRate", "avgOrder"] {
        assert!(json["prompts"][0].get(key).is_some(), "missing prompts[].{key}");
    }
    for key in ["kind", "title", "detail"] {
        assert!(json["insights"][0].get(key).is_some(), "missing insights[].{key}");
    }
}

#[test]
fn golden_sample_metrics_json() {
    insta::assert_json_snapshot!("sample_run_metrics", sample_metrics());
}

/// The analysis stores each mention's position-adjusted word count; the metrics read it and
/// give exactly what they compute from the answers when it is absent, and ignore a stored
/// value outside [0, 1] (a hand-edited export) rather than trust it.
#[test]
fn stored_position_adjusted_scores_give_the_computed_metrics() {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../demo/demo-data.json"))
        .expect("demo/demo-data.json is readable");
    let mut env = geo_core::export::import::parse_export(&text, &Default::default()).expect("the demo export parses");
    geo_core::analysis::analyze_envelope(&mut env);
    let scored =
        env.probes.iter().flat_map(|p| &p.mentions).filter(|m| m.position_adjusted_word_count.is_some()).count();
    assert!(scored > 10, "the analysis stores scores ({scored} mentions)");
    let stored = metrics_for_export(&env, None).unwrap();
    assert!(stored.iter().any(|m| serde_json::to_value(m).unwrap()["positionAdjustedWordCount"]
        .as_object()
        .is_some_and(|o| o.values().any(|v| v.as_f64().is_some_and(|x| x > 0.0)))));

    let mut stripped = env.clone();
    stripped.probes.iter_mut().flat_map(|p| &mut p.mentions).for_each(|m| m.position_adjusted_word_count = None);
    assert_eq!(metrics_for_export(&stripped, None).unwrap(), stored);

    let mut tampered = env.clone();
    for (k, m) in tampered.probes.iter_mut().flat_map(|p| &mut p.mentions).enumerate() {
        m.position_adjusted_word_count = Some(if k % 2 == 0 { 7.5 } else { -1.0 });
    }
    assert_eq!(metrics_for_export(&tampered, None).unwrap(), stored);
}

#[test]
fn borrowed_probes_give_the_same_metrics() {
    let (_, run, probes, prev, prev_probes) = sample();
    let refs: Vec<&Probe> = probes.iter().collect();
    let prev_refs: Vec<&Probe> = prev_probes.iter().collect();
    assert_eq!(
        geo_core::metrics::compute_run_metrics_refs(&run, &refs, Some((&prev, &prev_refs))),
        compute_run_metrics(&run, &probes, Some((&prev, &prev_probes)))
    );
    // Probes of another run are ignored in both.
    let mixed: Vec<&Probe> = probes.iter().chain(&prev_probes).collect();
    assert_eq!(
        geo_core::metrics::compute_run_metrics_refs(&run, &mixed, None),
        compute_run_metrics(&run, &probes, None)
    );
}

/// An export written before engines existed (no `config.engine`, no `rawCitations`) reads as
/// DeepSeek's and re-analyses to the figures it had: naming the engine explicitly changes no
/// derived field and no figure, the citation figures are null (no citation data), and the
/// cost is priced as DeepSeek's. (The goldens of `compare_runs` over the same fixtures were
/// made before engines existed and still hold.)
#[test]
fn an_export_without_engines_reads_as_deepseek_and_keeps_its_figures() {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/exports/improved.json"))
        .expect("fixtures/exports/improved.json is readable");
    assert!(!text.contains("\"engine\"") && !text.contains("rawCitations"), "the fixture predates engines");
    let parse = |text: &str| {
        let mut env = geo_core::export::import::parse_export(text, &Default::default()).expect("the export parses");
        geo_core::analysis::analyze_envelope(&mut env);
        env
    };
    let old = parse(&text);
    let mut named: serde_json::Value = serde_json::from_str(&text).unwrap();
    for run in named["runs"].as_array_mut().unwrap() {
        run["config"]["engine"] = "deepseek".into();
    }
    let named = parse(&named.to_string());
    assert!(old.runs.iter().all(|r| r.config.engine == EngineId::Deepseek));
    assert_eq!(serde_json::to_value(&old.probes).unwrap(), serde_json::to_value(&named.probes).unwrap());
    assert!(old.probes.iter().flat_map(|p| &p.sources).all(|s| s.cited.is_none()), "no citation data, no mark");
    let (a, b) = (metrics_for_export(&old, None).unwrap(), metrics_for_export(&named, None).unwrap());
    assert_eq!(serde_json::to_value(&a).unwrap(), serde_json::to_value(&b).unwrap());
    assert_eq!(a.len(), 2);
    assert_eq!(a[1].previous_run_id.as_deref(), Some(a[0].run_id.as_str()), "the previous run is still found");
    for m in &a {
        assert_eq!(m.engine, EngineId::Deepseek);
        assert_eq!(m.owned_citation_rate, None);
        assert!(m.domains.iter().all(|d| d.cited_probe_count.is_none() && d.cited_rate.is_none()));
        assert!(m.searched_rate.is_some());
        assert!(m.estimated_cost_usd.is_some_and(|c| c > 0.0), "deepseek-v4-flash has a price");
    }
}
