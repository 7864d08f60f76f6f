//! Goldens of the run comparison (`geo-probe diff`) and the engines comparison
//! (`geo-probe engines`) on the fixture exports of `fixtures/exports/`, loaded the way every
//! command loads a file (parse, validate, re-analyse).

use crate::support::diff_goldens;
use geo_core::compare::{diff_export, diff_runs, engines_for_export, CompareError, RunDiff, Verdict};
use geo_core::metrics::compute_run_metrics;
use geo_core::model::{EngineId, ExportEnvelope, Lang};

fn load(name: &str) -> ExportEnvelope {
    crate::support::fixture_export(name)
}

fn pretty<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_string_pretty(value).unwrap()
}

#[track_caller]
fn golden(name: &str, diff: &RunDiff, verdict: Verdict) {
    assert_eq!(diff.verdict, verdict, "{name}");
    diff_goldens!(name, diff);
}

#[test]
fn a_significant_drop_regresses() {
    let diff = diff_export(&load("drop.json"), None, None).unwrap();
    assert_eq!((diff.run_id.as_str(), diff.against_id.as_str()), ("run_drop_b", "run_drop_a"));
    assert!(diff.metrics.iter().all(|c| c.significant && c.delta.unwrap() < 0.0));
    assert_eq!(diff.domains.gained, ["csdn.net"]);
    assert_eq!(diff.domains.lost, ["sohu.com"]);
    golden("drop", &diff, Verdict::Regressed);
}

#[test]
fn noise_only_is_stable() {
    let diff = diff_export(&load("noise.json"), None, None).unwrap();
    assert!(diff.metrics.iter().all(|c| !c.significant && c.delta.unwrap() != 0.0));
    golden("noise", &diff, Verdict::Stable);
}

#[test]
fn improved() {
    let diff = diff_export(&load("improved.json"), None, None).unwrap();
    let sig: Vec<bool> = diff.metrics.iter().map(|c| c.significant).collect();
    assert_eq!(sig, [true, true, false]);
    golden("improved", &diff, Verdict::Improved);
}

#[test]
fn mixed() {
    let diff = diff_export(&load("mixed.json"), None, None).unwrap();
    golden("mixed", &diff, Verdict::Mixed);
}

#[test]
fn a_previous_run_without_successes_is_null_and_stable() {
    let env = load("no-successes.json");
    assert_eq!(
        diff_export(&env, None, None).unwrap_err(),
        CompareError::NoPreviousRun { run_id: "run_nosuccess_b".into() }
    );
    let diff = diff_export(&env, Some("run_nosuccess_b"), Some("run_nosuccess_a")).unwrap();
    for c in diff.metrics.iter().chain(diff.targets.iter().map(|t| &t.mention_rate)) {
        assert_eq!((c.against, c.against_n, c.delta, c.low, c.high, c.significant), (None, 0, None, None, None, false));
        assert!(c.current.is_some());
    }
    golden("no_successes", &diff, Verdict::Stable);
}

#[test]
fn runs_of_different_engines() {
    let env = load("engines.json");
    let diff = diff_export(&env, Some("run_openai"), Some("run_ds_new")).unwrap();
    assert_eq!((diff.engine, diff.against_engine), (EngineId::Openai, EngineId::Deepseek));
    // The OpenAI run asked three prompts: p04 comes from the other run's snapshot, empty here.
    let p04 = diff.prompts.iter().find(|p| p.prompt_id == "p04").unwrap();
    assert_eq!((p04.mention_rate.current_n, p04.mention_rate.current), (0, None));
    assert_eq!(diff.prompts.iter().map(|p| p.prompt_id.as_str()).collect::<Vec<_>>(), ["p01", "p02", "p03", "p04"]);
    golden("engines_diff", &diff, diff.verdict);
}

#[test]
fn engines_comparison() {
    let env = load("engines.json");
    let all = engines_for_export(&env, None).unwrap();
    assert_eq!(all.project_id, "proj_yuangouchang");
    let listed: Vec<(EngineId, &str)> = all.engines.iter().map(|e| (e.engine, e.run_id.as_str())).collect();
    // Gemini's only run failed; DeepSeek's newest run wins over its older one.
    assert_eq!(
        listed,
        [(EngineId::Deepseek, "run_ds_new"), (EngineId::Anthropic, "run_anthropic"), (EngineId::Openai, "run_openai")]
    );
    // p05 is a prompt of the project that no run asked.
    assert_eq!(all.prompts.iter().map(|p| p.prompt_id.as_str()).collect::<Vec<_>>(), ["p01", "p02", "p03", "p04"]);
    for row in &all.prompts {
        assert_eq!(row.mention_rate.0.len(), all.engines.len(), "every prompt row has a key per engine");
    }
    insta::assert_snapshot!("engines_json", pretty(&all));

    let other = engines_for_export(&env, Some("proj_other")).unwrap();
    insta::assert_snapshot!("engines_other_project_json", pretty(&other));
    assert!(matches!(engines_for_export(&env, Some("nope")), Err(CompareError::UnknownProject { .. })));
    assert_eq!(engines_for_export(&ExportEnvelope::new(""), None).unwrap_err(), CompareError::NoRuns);
}

#[test]
fn unknown_runs_and_no_comparable_run_say_what_to_pass() {
    let env = load("drop.json");
    let e = diff_export(&env, Some("run_x"), None).unwrap_err();
    assert_eq!(e.to_string(), "run `run_x` is not in the export: use one of `run_drop_b`, `run_drop_a`");
    let e = diff_export(&env, None, Some("run_y")).unwrap_err();
    assert!(e.to_string().contains("run `run_y` is not in the export"), "{e}");
    assert_eq!(diff_export(&ExportEnvelope::new(""), None, None).unwrap_err(), CompareError::NoComparableRun);
    let mut orphan = env.clone();
    orphan.runs.retain(|r| r.id != "run_drop_a");
    orphan.probes.retain(|p| p.run_id != "run_drop_a");
    let e = diff_export(&orphan, None, None).unwrap_err();
    assert!(e.to_string().contains("pass --against ID"), "{e}");
}

/// Every fixture, both ways round: swapping the runs negates every change exactly.
#[test]
fn swapping_the_runs_negates_every_change() {
    for (name, a, b) in [
        ("drop.json", "run_drop_b", "run_drop_a"),
        ("noise.json", "run_noise_b", "run_noise_a"),
        ("improved.json", "run_improved_b", "run_improved_a"),
        ("mixed.json", "run_mixed_b", "run_mixed_a"),
        ("engines.json", "run_openai", "run_ds_new"),
    ] {
        let env = load(name);
        let ab = diff_export(&env, Some(a), Some(b)).unwrap();
        let ba = diff_export(&env, Some(b), Some(a)).unwrap();
        for (x, y) in ab.metrics.iter().zip(&ba.metrics) {
            assert_eq!(x.delta.map(|d| -d), y.delta, "{name}");
            assert_eq!((x.low.map(|v| -v), x.high.map(|v| -v)), (y.high, y.low), "{name}");
            assert_eq!(x.significant, y.significant, "{name}");
        }
        assert_eq!(ab.domains.gained, ba.domains.lost, "{name}");
        let flipped = match ab.verdict {
            Verdict::Improved => Verdict::Regressed,
            Verdict::Regressed => Verdict::Improved,
            v => v,
        };
        assert_eq!(ba.verdict, flipped, "{name}");
    }
}

/// The comparison of stored metrics (the web's summaries) equals the one of the export.
#[test]
fn stored_metrics_give_the_same_diff() {
    let env = load("drop.json");
    let run = |id: &str| env.run(id).unwrap();
    let (b, a) = (run("run_drop_b"), run("run_drop_a"));
    // Metrics computed against their own previous run, as the dashboard stores them.
    let mb = compute_run_metrics(b, &env.probes, Some((a, &env.probes)));
    let ma = compute_run_metrics(a, &env.probes, None);
    assert_eq!(diff_runs((b, &mb), (a, &ma)), diff_export(&env, None, None).unwrap());
}

#[test]
fn the_verdict_sentence_stands_on_its_own() {
    use geo_core::compare::verdict_sentence;
    for v in [Verdict::Improved, Verdict::Regressed, Verdict::Mixed, Verdict::Stable] {
        let en = verdict_sentence(v, Lang::En);
        assert!(en.starts_with(|c: char| c.is_ascii_uppercase()), "{en}");
        assert!(en.ends_with('.'), "{en}");
        assert!(verdict_sentence(v, Lang::Zh).ends_with('。'));
    }
    assert_eq!(
        verdict_sentence(Verdict::Stable, Lang::En),
        "Every change of the three headline metrics is within noise."
    );
}
