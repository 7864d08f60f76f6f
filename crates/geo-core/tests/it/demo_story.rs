//! The demo project (`demo/demo-data.json`, made by `cargo xtask demo`) tells the story a
//! newcomer should see: every dashboard card has a value, the insights differ between the
//! weeks, the second week gains and loses source domains, competitors leave an outreach gap,
//! one probe failed and one stayed empty, and the recorded latencies are those of web-search
//! answers (tens of seconds), so the run page's estimate is realistic; and in the newest
//! week the eight other engines answer the same prompts in their own shapes, so the Engines
//! page has something to compare, and Gemini is the one that leaves the brand out; and "What
//! the answers say" has claims of every verdict and watch flags to show.

use geo_core::compare::engines_for_export;
use geo_core::metrics::cost::estimate_engine_run;
use geo_core::metrics::{metrics_for_export, RunMetrics};
use geo_core::model::{EngineId, ExportEnvelope, ProbeStatus, RiskKind, Verdict};

fn demo() -> ExportEnvelope {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../demo/demo-data.json"))
        .expect("demo/demo-data.json is readable");
    let mut env = geo_core::export::import::parse_export(&text, &Default::default()).expect("the demo export parses");
    geo_core::analysis::analyze_envelope(&mut env);
    env
}

/// The metrics of the DeepSeek runs (week one, week two).
fn deepseek_weeks(env: &ExportEnvelope) -> Vec<RunMetrics> {
    let all = metrics_for_export(env, None).unwrap();
    all.into_iter()
        .filter(|m| env.runs.iter().any(|r| r.id == m.run_id && r.config.engine == EngineId::Deepseek))
        .collect()
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
    let all = deepseek_weeks(&env);
    let [week1, week2] = &all[..] else { panic!("two DeepSeek runs, got {}", all.len()) };
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
    // Those are the demo's only failures: every other engine answered every probe.
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
    assert_eq!(last.config.engine, EngineId::Deepseek, "the newest run is DeepSeek's week two");
    let ok: Vec<u64> = env
        .probes
        .iter()
        .filter(|p| p.run_id == last.id && p.status == ProbeStatus::Success)
        .map(|p| p.latency_ms)
        .collect();
    assert!(ok.iter().all(|ms| (15_000..=90_000).contains(ms)), "{ok:?}");
    // The run page's default: every prompt, 3 repeats, 3 at a time.
    let e = estimate_engine_run(
        EngineId::Deepseek,
        "deepseek-v4-flash",
        env.prompts.len(),
        3,
        3,
        Some((last, &env.probes)),
    );
    assert_eq!(e.waves, (env.prompts.len() as u64 * 3).div_ceil(3));
    assert!((20_000.0..=60_000.0).contains(&e.profile.latency_ms), "{}", e.profile.latency_ms);
    assert!((120..=900).contains(&e.seconds), "{} s", e.seconds);
    assert_eq!(e.history_probes as usize, ok.len());
}

/// Every engine has one run in the newest week, between DeepSeek's two weeks (so the
/// dashboard opens on DeepSeek's week two and compares it with week one), started together,
/// each analysed in its own shape; the Engines page compares all nine, and Gemini is the
/// engine that leaves the brand out.
#[test]
fn the_newest_week_compares_every_engine_and_gemini_leaves_the_brand_out() {
    let env = demo();
    let by_engine = |e: EngineId| env.runs.iter().filter(|r| r.config.engine == e).collect::<Vec<_>>();
    let (week1, week2) = {
        let ds = by_engine(EngineId::Deepseek);
        (ds[0].created_at.clone(), ds[1].created_at.clone())
    };
    for engine in EngineId::ALL {
        let runs = by_engine(engine);
        if engine == EngineId::Deepseek {
            assert_eq!(runs.len(), 2);
            continue;
        }
        let [run] = &runs[..] else { panic!("{engine:?}: one run, got {}", runs.len()) };
        assert!(run.created_at > week1 && run.created_at < week2, "{engine:?} runs in the newest week");
        assert!(run.previous_run_id.is_none(), "{engine:?}: no earlier run of its own");
        assert_eq!(run.group_id.as_deref(), Some("grp_20261128T020000_demo"), "started together");
        assert_eq!(run.prompt_snapshot.len(), env.prompts.len());
    }

    let cmp = engines_for_export(&env, Some("proj_demo")).unwrap();
    let engines: Vec<EngineId> = cmp.engines.iter().map(|e| e.engine).collect();
    assert_eq!(engines.len(), 9, "{engines:?}");
    let rate = |e: EngineId| cmp.engines.iter().find(|x| x.engine == e).and_then(|x| x.mention_rate).unwrap();
    // Gemini leaves the brand out: its lowest mention rate, below DeepSeek's.
    let lowest = cmp.engines.iter().min_by(|a, b| a.mention_rate.partial_cmp(&b.mention_rate).unwrap()).unwrap();
    assert_eq!(lowest.engine, EngineId::Gemini);
    assert!(rate(EngineId::Gemini) < rate(EngineId::Deepseek) && rate(EngineId::Gemini) < 0.6);
    // The comparison says so: Gemini leaves the brand out on those three prompts, and its
    // interval lies wholly below those of the seven engines that always name it; DeepSeek
    // still leaves it out of the second generic prompt, within the noise.
    let [gap, deepseek] = &cmp.brand_gaps[..] else { panic!("two engines leave the brand out: {:?}", cmp.brand_gaps) };
    assert_eq!(gap.engine, EngineId::Gemini);
    assert_eq!(gap.prompt_ids, ["prm_demo_01", "prm_demo_02", "prm_demo_04"]);
    assert_eq!(gap.clearly_below.len(), 7);
    assert!(!gap.clearly_below.contains(&EngineId::Deepseek));
    assert_eq!((deepseek.engine, &deepseek.prompt_ids[..]), (EngineId::Deepseek, &["prm_demo_02".to_string()][..]));
    assert!(deepseek.clearly_below.is_empty());
    // ... on both generic prompts and the scenario prompt, every repeat.
    let gemini = &by_engine(EngineId::Gemini)[0].id;
    let brand = "tgt_demo_yuangouchang";
    for prompt in ["prm_demo_01", "prm_demo_02", "prm_demo_04"] {
        let probes: Vec<_> = env.probes_of(gemini).filter(|p| p.prompt_id == prompt).collect();
        assert_eq!(probes.len(), 3);
        for p in probes {
            assert!(!p.mentions.is_empty() && p.mentions.iter().all(|m| m.target_id != brand), "{}", p.id);
            assert!(p.sources.iter().all(|s| s.domain != "yuangouchang.com"), "{}: no own page", p.id);
        }
    }

    // Each engine's own shape: cited sources (Gemini's through its redirects, by domain),
    // the Chinese engines' markers kept as citations, a search and none.
    for e in &cmp.engines {
        let run = &by_engine(e.engine).last().unwrap().id;
        let probes: Vec<_> = env.probes_of(run).collect();
        let cited = probes.iter().flat_map(|p| &p.sources).filter(|s| s.cited == Some(true)).count();
        if e.engine == EngineId::Deepseek {
            assert_eq!(cited, 0, "DeepSeek marks nothing cited");
        } else {
            assert!(cited > 0, "{:?} marks cited sources", e.engine);
        }
        assert!(probes.iter().any(|p| p.queries.is_empty()), "{:?}: the brand prompt needs no search", e.engine);
    }
    // Qwen writes 「**元构场**[ref_1]」: the marker is not part of the name.
    let qwen = &by_engine(EngineId::Qwen)[0].id;
    let marked =
        env.probes.iter().find(|p| &p.run_id == qwen && p.raw_answer.contains("[ref_")).expect("Qwen's [ref_n]");
    assert!(marked.mentions.iter().any(|m| m.target_id == brand && m.list_position == Some(1)), "{}", marked.id);
    let gemini_domains: Vec<&str> = env.probes_of(gemini).flat_map(|p| &p.sources).map(|s| s.domain.as_str()).collect();
    assert!(!gemini_domains.iter().any(|d| d.contains("vertexaisearch")), "redirects shown by their domain");
}

/// "What the answers say" has something to show on a first visit: every run froze the project's
/// starter fact sheet; DeepSeek's newest week confirms the founding year and the headquarters,
/// leaves the prices unverified (no amount in the answers) and flags watch terms; of the other
/// engines, ERNIE and Hunyuan contradict the report cadence (monthly, where the sheet says weekly).
#[test]
fn what_the_answers_say_has_something_to_show() {
    // Read as the model stores it, so this story rests on the demo file, not on the import.
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../demo/demo-data.json")).unwrap();
    let mut env: ExportEnvelope = serde_json::from_str(&text).expect("the demo file is an export");
    geo_core::analysis::analyze_envelope(&mut env);
    let sheet = env.projects[0].fact_snapshot().expect("the demo project has a fact sheet");
    assert!(env.runs.iter().all(|r| r.fact_snapshot.as_ref() == Some(&sheet)), "every run froze the sheet");
    let claims = |run: &str, verdict: Verdict| -> Vec<String> {
        let probes = env.probes_of(run);
        probes.flat_map(|p| &p.claims).filter(|c| c.verdict == verdict).map(|c| c.fact_id.clone()).collect()
    };
    let newest = env.runs.iter().max_by_key(|r| &r.created_at).unwrap();
    assert_eq!(newest.config.engine, EngineId::Deepseek);
    let confirmed = claims(&newest.id, Verdict::Consistent);
    assert!(confirmed.contains(&"fact_founded".into()) && confirmed.contains(&"fact_hq".into()), "{confirmed:?}");
    assert!(claims(&newest.id, Verdict::Unverified).contains(&"fact_price".into()));
    assert!(claims(&newest.id, Verdict::Contradicts).is_empty());
    let watched: Vec<&str> = env
        .probes
        .iter()
        .filter(|p| p.run_id == newest.id)
        .flat_map(|p| &p.risk_flags)
        .filter(|f| f.kind == RiskKind::Watch)
        .map(|f| f.cue.as_str())
        .collect();
    assert!(watched.contains(&"免费") && watched.contains(&"融资"), "{watched:?}");
    for run in env.runs.iter().filter(|r| r.config.engine != EngineId::Deepseek) {
        let contradicted = claims(&run.id, Verdict::Contradicts);
        let expected = matches!(run.config.engine, EngineId::Ernie | EngineId::Hunyuan);
        assert_eq!(contradicted.iter().any(|f| f == "fact_report_cadence"), expected, "{}: {contradicted:?}", run.id);
    }
}
