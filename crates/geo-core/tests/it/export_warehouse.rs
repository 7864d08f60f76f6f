//! The warehouse rows (`export::warehouse`) on generated runs: every table holds as many rows
//! as the export has records of its kind, and the rows carry what the metrics read — the
//! views of `sql/metrics.sql`, evaluated here over the rows the way the SQL does (group, count,
//! sum, the first-seen tie of a domain's attribution, a probe once per fact with its strongest
//! verdict, a flag counted where the probe mentions its target), equal `metrics_for_export`.
//!
//! The generated runs (`metrics_oracle::two_runs`) mix every status, duplicate and unknown
//! target ids, a probe naming a target twice, sources with and without occurrences and with
//! several platforms, channels and ownerships per domain: the cases where the rows could
//! drift from the metrics. The SQL itself is run in DuckDB by `geo-cli`'s
//! `tests/warehouse_duckdb.rs`.

use std::collections::{BTreeMap, BTreeSet};

use geo_core::export::warehouse::{run_tables, warehouse_runs, RunTables, WarehouseError, TABLES, TABLE_COUNT};
use geo_core::metrics::{metrics_for_export, FactMetrics, RiskFlagMetrics, RunMetrics};
use geo_core::model::*;
use proptest::prelude::*;

use crate::metrics_oracle::{risk_row, two_runs};

/// The row counts the export itself gives for `run`, in `TABLES` order.
fn export_counts(run: &Run, probes: &[&Probe]) -> [usize; TABLE_COUNT] {
    let own: Vec<&Probe> = probes.iter().copied().filter(|p| p.run_id == run.id).collect();
    let ok: Vec<&Probe> = own.iter().copied().filter(|p| p.status == ProbeStatus::Success).collect();
    let targets: BTreeSet<&str> = run.alias_snapshot.iter().map(|t| t.id.as_str()).collect();
    // One row per probe and target: a Mention of a target the probe already named is not a row.
    let mentions: usize =
        ok.iter().map(|p| p.mentions.iter().map(|m| m.target_id.as_str()).collect::<BTreeSet<_>>().len()).sum();
    [
        1,
        targets.len(),
        run.prompt_snapshot.len(),
        own.len(),
        mentions,
        own.iter().map(|p| p.queries.len()).sum(),
        ok.iter().map(|p| p.sources.len()).sum(),
        ok.iter().map(|p| p.answer_links.len()).sum(),
        run.fact_snapshot.as_ref().map_or(0, |s| s.facts.len()),
        ok.iter().map(|p| p.claims.len()).sum(),
        ok.iter().map(|p| p.risk_flags.len()).sum(),
    ]
}

fn ratio(k: usize, n: usize) -> Option<f64> {
    (n > 0).then(|| k as f64 / n as f64)
}

/// `run_metrics` and `share_of_voice` of `sql/metrics.sql`, over one run's rows.
fn check_run_view(t: &RunTables<'_>, m: &RunMetrics) -> Result<(), TestCaseError> {
    let success: Vec<&Probe> = t.probes.iter().map(|r| r.probe).filter(|p| p.status == ProbeStatus::Success).collect();
    let brand = t.targets.iter().filter(|r| r.target.kind == TargetKind::Brand).min_by_key(|r| r.position);
    prop_assert_eq!(t.runs[0].brand_id, brand.map(|b| b.target.id.as_str()));
    prop_assert_eq!(t.runs[0].brand_id, m.brand_id.as_deref(), "the brand the metrics read");
    let brand_rows: Vec<_> =
        t.mentions.iter().filter(|r| t.runs[0].brand_id.is_some_and(|b| b == r.mention.target_id)).collect();
    let orders: Vec<u64> = brand_rows.iter().map(|r| u64::from(r.mention.order)).collect();
    let positions: Vec<u64> = brand_rows.iter().filter_map(|r| r.mention.list_position.map(u64::from)).collect();
    let owned: Vec<_> = t.sources.iter().filter(|r| r.source.ownership == Ownership::Owned).collect();
    let owned_probes: BTreeSet<&str> = owned.iter().map(|r| r.probe.id.as_str()).collect();
    let domains: BTreeSet<&str> = t.sources.iter().map(|r| r.source.domain.as_str()).collect();
    let n = success.len();
    prop_assert_eq!(m.probe_count as usize, t.probes.len());
    prop_assert_eq!(m.success_count as usize, n);
    let failed = t.probes.iter().filter(|r| r.probe.status.is_failure()).count();
    prop_assert_eq!(m.failed_count as usize, failed);
    prop_assert_eq!(m.mention_rate, ratio(brand_rows.len(), n));
    prop_assert_eq!(m.first_mention_rate, ratio(orders.iter().filter(|&&o| o == 1).count(), n));
    prop_assert_eq!(m.avg_order, (!orders.is_empty()).then(|| orders.iter().sum::<u64>() as f64 / orders.len() as f64));
    let avg_position = (!positions.is_empty()).then(|| positions.iter().sum::<u64>() as f64 / positions.len() as f64);
    prop_assert_eq!(m.avg_list_position, avg_position);
    prop_assert_eq!(m.owned_visibility, ratio(owned_probes.len(), n));
    prop_assert_eq!(m.owned_best_rank, owned.iter().map(|r| r.best_rank).min());
    prop_assert_eq!(m.unique_domains as usize, domains.len());
    prop_assert_eq!(m.searched_rate, ratio(success.iter().filter(|p| !p.queries.is_empty()).count(), n));

    let mentioning: Vec<(&str, usize)> = t
        .targets
        .iter()
        .map(|r| (r.target.id.as_str(), t.mentions.iter().filter(|m| m.mention.target_id == r.target.id).count()))
        .collect();
    let total: usize = mentioning.iter().map(|(_, k)| k).sum();
    let share: Vec<(String, Option<f64>)> =
        mentioning.iter().map(|(id, k)| (id.to_string(), ratio(*k, total))).collect();
    prop_assert_eq!(&share, &m.share_of_voice.0);
    Ok(())
}

/// One domain of `domain_metrics`, as the view computes it.
#[derive(Debug, PartialEq)]
struct DomainView {
    domain: String,
    ownership: Ownership,
    platform: String,
    channel: String,
    probe_count: usize,
    occurrences: u64,
    occurrence_rate: Option<f64>,
    avg_rank: Option<f64>,
    best_rank: Option<u32>,
    occurrence_share: Option<f64>,
}

/// `domain_metrics` of `sql/metrics.sql`, over one run's rows, sorted as `geo-probe metrics`.
fn domain_view(t: &RunTables<'_>) -> Vec<DomainView> {
    let success = t.probes.iter().filter(|r| r.probe.status == ProbeStatus::Success).count();
    let all: u64 = t.sources.iter().map(|r| u64::from(r.occurrences)).sum();
    let mut by_domain: BTreeMap<&str, Vec<_>> = BTreeMap::new();
    for r in &t.sources {
        by_domain.entry(r.source.domain.as_str()).or_default().push(r);
    }
    let mut out: Vec<DomainView> = by_domain
        .into_iter()
        .map(|(domain, mut rows)| {
            rows.sort_by_key(|r| (r.probe_index, r.source_index));
            // (platform, channel, ownership) → (occurrences, first sighting)
            let mut attributions: BTreeMap<(&str, &str, &str), (u64, usize)> = BTreeMap::new();
            for (seen, r) in rows.iter().enumerate() {
                let key = (r.source.platform.as_str(), r.source.channel.as_str(), r.source.ownership.as_str());
                let e = attributions.entry(key).or_insert((0, seen));
                e.0 += u64::from(r.occurrences);
            }
            let ((platform, channel, ownership), _) =
                attributions.into_iter().min_by_key(|(_, (occ, first))| (std::cmp::Reverse(*occ), *first)).unwrap();
            let probes: BTreeSet<&str> = rows.iter().map(|r| r.probe.id.as_str()).collect();
            let occurrences: u64 = rows.iter().map(|r| u64::from(r.occurrences)).sum();
            let rank_sum: u64 = rows.iter().map(|r| r.rank_sum).sum();
            DomainView {
                domain: domain.to_string(),
                ownership: Ownership::parse(ownership).unwrap(),
                platform: platform.to_string(),
                channel: channel.to_string(),
                probe_count: probes.len(),
                occurrences,
                occurrence_rate: ratio(probes.len(), success),
                avg_rank: (occurrences > 0).then(|| rank_sum as f64 / occurrences as f64),
                best_rank: rows.iter().map(|r| r.best_rank).min(),
                occurrence_share: (all > 0).then(|| occurrences as f64 / all as f64),
            }
        })
        .collect();
    out.sort_by(|a, b| b.occurrences.cmp(&a.occurrences).then_with(|| a.domain.cmp(&b.domain)));
    out
}

fn metrics_domains(m: &RunMetrics) -> Vec<DomainView> {
    m.domains
        .iter()
        .map(|d| DomainView {
            domain: d.domain.clone(),
            ownership: d.ownership,
            platform: d.platform.clone(),
            channel: d.channel.clone(),
            probe_count: d.probe_count as usize,
            occurrences: u64::from(d.occurrences),
            occurrence_rate: d.occurrence_rate,
            avg_rank: d.avg_rank,
            best_rank: d.best_rank,
            occurrence_share: d.occurrence_share,
        })
        .collect()
}

/// `fact_metrics` of `sql/metrics.sql`, over one run's rows: per `facts` row, its claims
/// grouped by probe, each probe counted once with its strongest verdict.
fn fact_view(t: &RunTables<'_>) -> Vec<FactMetrics> {
    let mut rows: Vec<_> = t.facts.iter().collect();
    rows.sort_by_key(|r| r.position);
    rows.iter()
        .map(|r| {
            let mut per_probe: BTreeMap<&str, u8> = BTreeMap::new();
            for c in t.claims.iter().filter(|c| c.claim.fact_id == r.fact.id) {
                let rank = match c.claim.verdict {
                    Verdict::Contradicts => 3,
                    Verdict::Consistent => 2,
                    Verdict::Unverified => 1,
                };
                let e = per_probe.entry(c.probe.id.as_str()).or_insert(0);
                *e = (*e).max(rank);
            }
            let count = |rank: u8| per_probe.values().filter(|&&v| v == rank).count() as u32;
            let with_claim = per_probe.len() as u32;
            FactMetrics {
                fact_id: r.fact.id.clone(),
                target_id: r.fact.target_id.clone(),
                label: r.fact.label.clone(),
                probes_with_claim: with_claim,
                consistent: count(2),
                contradicts: count(3),
                unverified: count(1),
                contradiction_rate: ratio(count(3) as usize, with_claim as usize),
            }
        })
        .collect()
}

/// `risk_flag_metrics` of `sql/metrics.sql`, over one run's rows: per `targets` row, the
/// probes of its `mentions` rows, and of those the ones with a `risk_flags` row on it.
fn risk_flag_view(t: &RunTables<'_>) -> Vec<RiskFlagMetrics> {
    t.targets
        .iter()
        .map(|r| {
            let id = r.target.id.as_str();
            let mentioning: BTreeSet<&str> =
                t.mentions.iter().filter(|m| m.mention.target_id == id).map(|m| m.probe.id.as_str()).collect();
            let flags: Vec<_> = t
                .risk_flags
                .iter()
                .filter(|f| f.flag.target_id == id && mentioning.contains(f.probe.id.as_str()))
                .collect();
            let probes = |kind: Option<RiskKind>| {
                flags
                    .iter()
                    .filter(|f| kind.is_none_or(|k| f.flag.kind == k))
                    .map(|f| f.probe.id.as_str())
                    .collect::<BTreeSet<_>>()
                    .len() as u32
            };
            risk_row(id, mentioning.len() as u32, probes)
        })
        .collect()
}

fn check(env: &ExportEnvelope) -> Result<(), TestCaseError> {
    let metrics = metrics_for_export(env, None).unwrap();
    let probes: Vec<&Probe> = env.probes.iter().collect();
    let built: Vec<RunTables<'_>> = warehouse_runs(env, &[]).unwrap().collect();
    prop_assert_eq!(built.len(), env.runs.len());
    for (t, m) in built.iter().zip(&metrics) {
        let run = t.runs[0].run;
        prop_assert_eq!(&run.id, &m.run_id, "runs in createdAt order, as `geo-probe metrics`");
        prop_assert_eq!(t.row_counts(), export_counts(run, &probes), "{:?}", TABLES);
        check_run_view(t, m)?;
        prop_assert_eq!(domain_view(t), metrics_domains(m));
        prop_assert_eq!(&fact_view(t), &m.facts);
        prop_assert_eq!(&risk_flag_view(t), &m.risk_flags);
        for c in &t.claims {
            let urls: Vec<&str> = c
                .claim
                .source_ids
                .iter()
                .filter_map(|id| c.probe.sources.iter().find(|s| &s.id == id))
                .map(|s| s.url.as_str())
                .collect();
            prop_assert_eq!(&c.source_urls, &urls, "canonical URLs in sourceIds order");
        }
        prop_assert_eq!(
            t.partition(),
            format!("engine={}/run_date={}", run.config.engine.as_str(), &run.created_at[..10])
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(crate::config())]

    /// Row counts equal the export's, and the views over the rows equal the metrics.
    #[test]
    fn rows_count_the_export_and_carry_its_metrics(env in two_runs()) {
        check(&env)?;
    }
}

#[test]
fn the_demo_fills_every_table_and_equals_its_metrics() {
    let mut env: ExportEnvelope = serde_json::from_str(include_str!("../../../../demo/demo-data.json")).unwrap();
    // A fact sheet the demo's answers speak to (the brand was founded in 2023 in Hangzhou; the
    // sheet says 2022, so some claims contradict it) and a watch term they hold.
    let sheet: FactSnapshot = serde_json::from_value(serde_json::json!({
        "facts": [
            { "id": "founded", "targetId": "tgt_demo_yuangouchang", "label": "成立年份", "kind": "year",
              "cues": ["成立"], "value": 2022 },
            { "id": "hq", "targetId": "tgt_demo_yuangouchang", "label": "总部", "kind": "text",
              "cues": ["总部"], "accepted": ["杭州"] },
            { "id": "unsaid", "targetId": "tgt_demo_geoboost", "label": "员工", "kind": "number",
              "cues": ["员工"], "value": 80 },
        ],
        "watchTerms": ["官网"],
    }))
    .unwrap();
    env.runs.iter_mut().for_each(|r| r.fact_snapshot = Some(sheet.clone()));
    assert!(geo_core::analysis::analyze_envelope(&mut env).is_empty());
    check(&env).unwrap();
    let counts = warehouse_runs(&env, &[]).unwrap().map(|t| t.row_counts()).fold([0; TABLE_COUNT], |mut sum, c| {
        sum.iter_mut().zip(c).for_each(|(s, n)| *s += n);
        sum
    });
    assert!(counts.iter().all(|&n| n > 0), "{counts:?}");
    let metrics = metrics_for_export(&env, None).unwrap();
    let founded = metrics.iter().flat_map(|m| &m.facts).filter(|f| f.fact_id == "founded");
    assert!(founded.clone().any(|f| f.contradicts > 0), "the demo's answers contradict the sheet");
    assert!(metrics.iter().flat_map(|m| &m.facts).any(|f| f.fact_id == "unsaid" && f.probes_with_claim == 0));
}

/// `TABLES`, the one list of the tables in the contract's order, is the one the user reads:
/// the `CREATE VIEW` lines of the DuckDB session in `docs/warehouse.md` (geo-cli's warehouse
/// test holds the CLI's output to `TABLES`).
#[test]
fn the_tables_are_the_documented_ones_in_their_order() {
    let doc = include_str!("../../../../docs/warehouse.md");
    let documented: Vec<&str> = doc
        .lines()
        .filter_map(|l| l.strip_prefix("CREATE VIEW "))
        .filter(|l| l.contains("read_parquet('lake/"))
        .map(|l| l.split(' ').next().unwrap())
        .collect();
    assert_eq!(documented, TABLES);
}

#[test]
fn runs_are_picked_by_id_once_each_and_checked_before_any_row() {
    let mut env = crate::metrics_support::sample_envelope();
    let ids: Vec<String> = env.runs.iter().map(|r| r.id.clone()).collect();
    let picked: Vec<String> =
        warehouse_runs(&env, &[&ids[1], &ids[0], &ids[1]]).unwrap().map(|t| t.runs[0].run.id.clone()).collect();
    assert_eq!(picked, [ids[1].clone(), ids[0].clone()]);

    let unknown = warehouse_runs(&env, &[&ids[0], "no_such_run"]).err().unwrap();
    assert!(matches!(unknown, WarehouseError::UnknownRun(_)));
    assert!(unknown.to_string().contains("no_such_run"), "{unknown}");

    env.runs[1].created_at = "last tuesday".into();
    let bad = warehouse_runs(&env, &[]).err().unwrap();
    assert!(bad.to_string().contains("last tuesday") && bad.to_string().contains(&ids[1]), "{bad}");
    assert!(warehouse_runs(&env, &[&ids[0]]).is_ok(), "only the selected runs are read");
    let probes: Vec<&Probe> = env.probes.iter().collect();
    assert!(run_tables(&env.runs[1], &probes).is_err());
}

#[test]
fn times_and_partitions_follow_utc() {
    let mut env = crate::metrics_support::sample_envelope();
    env.runs[0].created_at = "2026-11-30T01:30:00+08:00".into();
    env.runs[0].finished_at = Some("not a time".into());
    env.runs[0].config.engine = EngineId::Gemini;
    let probes: Vec<&Probe> = env.probes.iter().collect();
    let t = run_tables(&env.runs[0], &probes).unwrap();
    assert_eq!(t.partition(), "engine=gemini/run_date=2026-11-29");
    assert_eq!(t.runs[0].created_at, geo_core::runner::parse_iso_micros("2026-11-29T17:30:00Z").unwrap());
    assert_eq!(t.runs[0].finished_at, None, "an unreadable finishedAt is NULL");
}

#[test]
fn claim_rows_name_their_sources_by_canonical_url_in_source_ids_order() {
    let mut env = crate::metrics_support::sample_envelope();
    let probe = env
        .probes
        .iter_mut()
        .find(|p| p.status == ProbeStatus::Success && p.sources.len() >= 2)
        .expect("a successful probe with two sources");
    let (first, second) = (probe.sources[0].clone(), probe.sources[1].clone());
    probe.claims = vec![Claim {
        fact_id: "f".into(),
        target_id: "t".into(),
        verdict: Verdict::Contradicts,
        sentence: "s".into(),
        start: 0,
        end: 1,
        values: vec!["2019".into(), "2020".into()],
        source_ids: vec![second.id.clone(), "src_gone".into(), first.id.clone()],
    }];
    probe.risk_flags = vec![RiskFlag {
        target_id: "t".into(),
        kind: RiskKind::Watch,
        cue: "事件".into(),
        sentence: "s".into(),
        start: 0,
        end: 1,
    }];
    let (run_id, probe_id) = (probe.run_id.clone(), probe.id.clone());
    let mut failed = env.probes.iter().find(|p| p.run_id == run_id && p.id == probe_id).unwrap().clone();
    failed.id = format!("{probe_id}_failed");
    failed.status = ProbeStatus::Error;
    env.probes.push(failed);
    let run = env.run(&run_id).unwrap();
    let probes: Vec<&Probe> = env.probes.iter().collect();
    let t = run_tables(run, &probes).unwrap();
    assert_eq!(t.claims.len(), 1, "a failed probe's claims are no rows");
    assert_eq!(t.claims[0].source_urls, [second.url, first.url]);
    assert_eq!(t.claims[0].probe.id, probe_id);
    assert_eq!(t.risk_flags.len(), 1);
    assert_eq!((t.risk_flags[0].flag.kind, t.risk_flags[0].probe.id.as_str()), (RiskKind::Watch, probe_id.as_str()));
}
