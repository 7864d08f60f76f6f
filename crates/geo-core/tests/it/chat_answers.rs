//! `chat::answers::search_answers`: BM25 over a run's successful answers, one hit per probe.

use crate::metrics_support::{failed, probe, sample_envelope};
use geo_core::chat::{search_answers, Index, SNIPPET_CHARS};
use geo_core::model::*;

fn run_probes(env: &ExportEnvelope, run: &str) -> Vec<Probe> {
    env.probes_of(run).cloned().collect()
}

#[test]
fn hits_are_successful_probes_best_first_with_snippets() {
    let env = sample_envelope();
    let probes = run_probes(&env, "r2");
    let hits = search_answers(&probes, "Acme", 8);
    let ids: Vec<&str> = hits.iter().map(|h| h.probe_id.as_str()).collect();
    // Exactly the three successful answers that name Acme.
    let mut sorted = ids.clone();
    sorted.sort();
    assert_eq!(sorted, ["r2__p1__0", "r2__p2__0", "r2__p2__1"]);
    assert!(hits.windows(2).all(|w| w[0].score >= w[1].score), "{hits:?}");
    for h in &hits {
        let p = probes.iter().find(|p| p.id == h.probe_id).unwrap();
        assert_eq!(h.prompt_id, p.prompt_id);
        assert!(h.snippet.contains("Acme"), "{h:?}");
        assert!(h.score > 0.0);
    }
    assert_eq!(search_answers(&probes, "Acme", 2).len(), 2);
    assert!(search_answers(&probes, "Acme", 0).is_empty());
    assert!(search_answers(&probes, "", 8).is_empty());
    assert!(search_answers(&probes, "zzz", 8).is_empty());
}

#[test]
fn scores_are_the_docs_chat_bm25_of_the_answers() {
    let env = sample_envelope();
    let probes = run_probes(&env, "r2");
    let docs: Vec<_> = probes
        .iter()
        .filter(|p| p.status == ProbeStatus::Success && !p.answer.trim().is_empty())
        .map(|p| geo_core::chat::load_document(p.id.clone(), &p.answer))
        .collect();
    let expect = Index::build(&docs).search("第一 Beta", 8);
    let got = search_answers(&probes, "第一 Beta", 8);
    let pairs: Vec<(String, f64)> = got.iter().map(|h| (h.probe_id.clone(), h.score)).collect();
    let want: Vec<(String, f64)> = expect.iter().map(|h| (h.source.clone(), h.score)).collect();
    assert_eq!(pairs, want);
}

#[test]
fn one_hit_per_probe_from_its_best_chunk_and_a_bounded_snippet() {
    // A long answer: the query term sits only in its third chunk; filler everywhere else.
    let mut long = probe("r", "p1", 0, ProbeStatus::Success);
    long.answer = format!("{}关键词压缩在这里{}", "填充文字".repeat(450), "后文".repeat(300));
    let mut short = probe("r", "p2", 0, ProbeStatus::Success);
    short.answer = "这里也提到压缩。".into();
    let mut err = failed("r", "p3", 0, ProbeStatus::Error);
    err.answer = "压缩 压缩 压缩".into();
    let hits = search_answers([&long, &short, &err], "压缩", 8);
    let ids: Vec<&str> = hits.iter().map(|h| h.probe_id.as_str()).collect();
    assert_eq!(ids.len(), 2, "{ids:?}");
    assert!(ids.contains(&"r__p1__0") && ids.contains(&"r__p2__0"));
    let long_hit = hits.iter().find(|h| h.probe_id == "r__p1__0").unwrap();
    assert!(long_hit.snippet.chars().count() <= SNIPPET_CHARS);
    assert!(long_hit.snippet.contains("关键词压缩在这里"), "{}", long_hit.snippet);
    // The term sits near the middle of the window.
    let at = long_hit.snippet.chars().collect::<Vec<_>>().windows(2).position(|w| w == ['压', '缩']).unwrap();
    assert!((80..=110).contains(&at), "term at {at} in {}", long_hit.snippet);
}

#[test]
fn the_snippet_centres_the_term_that_weighs_most() {
    // "rare" occurs in one answer only, "common" in all: the snippet follows "rare".
    let filler = "word ".repeat(60);
    let mut a = probe("r", "p1", 0, ProbeStatus::Success);
    a.answer = format!("common {filler} rare {filler}");
    let mut b = probe("r", "p2", 0, ProbeStatus::Success);
    b.answer = "common text".into();
    let mut c = probe("r", "p3", 0, ProbeStatus::Success);
    c.answer = "more common text".into();
    let hits = search_answers([&a, &b, &c], "common rare", 8);
    assert_eq!(hits[0].probe_id, "r__p1__0");
    assert!(hits[0].snippet.contains("rare") && !hits[0].snippet.contains("common"), "{}", hits[0].snippet);
}
