//! The facts each engine fixture was recorded for, asserted directly (the goldens hold the
//! whole result; these say what must hold and why).

use std::path::PathBuf;

use geo_core::analysis::analyze_probe;
use geo_core::model::{EngineId, ErrorKind, ExportEnvelope, Ownership, Probe};
use geo_core::provider::{map_engine_http_error, parse_engine_response, spec, ParsedResponse};

use crate::support::golden_probe;

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/engines")
}

fn parsed(engine: EngineId, name: &str) -> ParsedResponse {
    let body = std::fs::read_to_string(dir().join(engine.as_str()).join(format!("{name}.json"))).unwrap();
    parse_engine_response(engine, &body, spec(engine).default_model).unwrap_or_else(|e| panic!("{name}: {e:?}"))
}

fn analysed(engine: EngineId, name: &str) -> Probe {
    let text = std::fs::read_to_string(dir().join("../project.json")).unwrap();
    let env: ExportEnvelope = serde_json::from_str(&text).unwrap();
    let mut probe = golden_probe(parsed(engine, name));
    analyze_probe(&mut probe, &env.projects[0].targets());
    probe
}

fn words(p: &ParsedResponse) -> Vec<Option<&str>> {
    p.queries.iter().map(|q| q.query.as_deref()).collect()
}

#[test]
fn every_engine_has_the_recorded_scenarios() {
    for engine in EngineId::ALL.into_iter().filter(|e| *e != EngineId::Deepseek) {
        let names: Vec<String> = std::fs::read_dir(dir().join(engine.as_str()))
            .unwrap()
            .filter_map(|e| e.ok()?.file_name().into_string().ok())
            .collect();
        for prefix in ["p01_", "p08_", "p09_", "p10_", "p12_", "p15_"] {
            assert!(names.iter().any(|n| n.starts_with(prefix)), "{engine} lacks {prefix}");
        }
        let errors = std::fs::read_dir(dir().join(engine.as_str()).join("errors")).unwrap().count();
        assert!(errors >= 2, "{engine} error bodies");
    }
}

#[test]
fn anthropic_citations_and_search_error() {
    let p = analysed(EngineId::Anthropic, "p01_zh_numbered_list_citations");
    assert_eq!(p.queries.len(), 2);
    let cited: Vec<(&str, Option<bool>)> = p.sources.iter().map(|s| (s.domain.as_str(), s.cited)).collect();
    assert!(cited.contains(&("yuangouchang.com", Some(true))), "{cited:?}");
    assert!(cited.contains(&("zhihu.com", Some(true))), "a ?utm_source citation still matches: {cited:?}");
    assert!(cited.contains(&("baidu.com", Some(false))), "{cited:?}");
    assert!(p.raw_citations.as_ref().unwrap().iter().any(|c| c.title.is_none()), "a null title is kept as none");
    let e = parsed(EngineId::Anthropic, "p10_search_error_too_many_requests");
    assert_eq!(e.queries[1].error.as_deref(), Some("too_many_requests"));
    let none = analysed(EngineId::Anthropic, "p08_zh_no_search");
    assert_eq!((none.queries.len(), none.sources.len(), none.raw_citations.clone()), (0, 0, Some(vec![])));
}

#[test]
fn openai_actions_queries_and_titles() {
    let p = parsed(EngineId::Openai, "p09_en_multi_query_open_page");
    // Two search calls: one with two queries, one legacy call with `query` only; open_page,
    // find_in_page and find add nothing.
    assert_eq!(
        words(&p),
        [
            Some("best GEO agencies 2026"),
            Some("generative engine optimization agency"),
            Some("Yuangouchang GEO monitoring")
        ]
    );
    assert_eq!(p.usage.web_search_requests, 2);
    assert!(p.raw_sources.iter().all(|s| s.query_index == 1 || s.query_index == 3));
    assert_eq!(p.raw_sources.iter().filter(|s| s.query_index == 1).count(), 3, "the api source without url is skipped");
    let titled = p.raw_sources.iter().find(|s| s.url == "https://geoboost.io/").unwrap();
    assert_eq!(titled.title, "GEOBoost | AI search visibility platform", "title from the url_citation");
    assert!(p.raw_sources.iter().any(|s| s.title.is_empty()), "uncited sources have no title");
    let a = analysed(EngineId::Openai, "p01_zh_list_url_citations");
    assert_eq!(a.usage.cache_read_input_tokens, 4096);
    assert_eq!(a.usage.input_tokens, 18240 - 4096);
    assert!(a.sources.iter().any(|s| s.ownership == Ownership::Owned && s.cited == Some(true)));
    let failed = parsed(EngineId::Openai, "p10_search_failed");
    assert_eq!(failed.queries[0].error.as_deref(), Some("failed"));
    assert_eq!(
        parsed(EngineId::Openai, "p03_incomplete_max_output_tokens").stop_reason.as_deref(),
        Some("max_output_tokens")
    );
}

#[test]
fn gemini_redirects_thoughts_and_blocks() {
    let p = analysed(EngineId::Gemini, "p01_zh_list_grounding_redirects");
    let hosts: Vec<&str> = p.sources.iter().map(|s| s.host.as_str()).collect();
    assert!(hosts.contains(&"yuangouchang.com") && hosts.contains(&"baike.baidu.com"), "{hosts:?}");
    assert!(p.sources.iter().all(|s| s.url.starts_with("https://vertexaisearch.cloud.google.com/")));
    let brand = p.sources.iter().find(|s| s.domain == "yuangouchang.com").unwrap();
    assert_eq!((brand.ownership, brand.cited), (Ownership::Owned, Some(true)));
    let baidu = p.sources.iter().find(|s| s.domain == "baidu.com").unwrap();
    assert_eq!(baidu.cited, Some(false), "a chunk no support names is not cited");
    let t = parsed(EngineId::Gemini, "p09_en_thought_parts");
    assert!(!t.raw_answer.contains("Considering the agencies"), "thought parts are skipped");
    assert_eq!(t.usage.output_tokens, 256 + 1180, "thought tokens are billed as output");
    let page = analysed(EngineId::Gemini, "p17_page_title_chunk_cached");
    assert_eq!(page.sources[0].host, "vertexaisearch.cloud.google.com", "a page title is not a host");
    assert_eq!(page.usage.cache_read_input_tokens, 2048);
    let blocked = parsed(EngineId::Gemini, "p19_prompt_blocked");
    assert_eq!((blocked.raw_answer.as_str(), blocked.stop_reason.as_deref()), ("", Some("OTHER")));
    let none = parsed(EngineId::Gemini, "p10_queries_without_results");
    assert_eq!((none.queries.len(), none.raw_sources.len()), (2, 0));
}

#[test]
fn perplexity_results_without_queries() {
    let p = analysed(EngineId::Perplexity, "p01_zh_list_citations");
    assert_eq!(p.queries.len(), 1);
    assert!(p.queries[0].internal && p.queries[0].query.is_none());
    assert_eq!(p.usage.web_search_requests, 1);
    assert_eq!(p.sources.iter().filter(|s| s.cited == Some(true)).count(), 4);
    assert_eq!(p.raw_sources[2].page_age, None, "a null date");
    let legacy = parsed(EngineId::Perplexity, "p08_no_citations_legacy");
    assert_eq!((legacy.queries.len(), legacy.raw_citations.clone()), (0, Some(vec![])));
    let outside = analysed(EngineId::Perplexity, "p10_citation_outside_results");
    // `[1]` names the first search result; `[2]` names the second, which has no url, so it
    // cites nothing, whatever the footnote list says (engines.md, "Fidelity").
    assert_eq!(outside.raw_citations.as_ref().unwrap().len(), 1);
    assert_eq!(outside.sources.len(), 1, "a result without url is skipped");
    assert_eq!(outside.sources[0].cited, Some(true));
}

/// Each twin (`tNN_…`) shows what its fixture `pNN_…` hid (engines.md, "Fidelity").
#[test]
fn fidelity_twins_show_what_their_fixtures_hid() {
    // OpenAI: reasoning spent the whole budget: incomplete, no text.
    let o = parsed(EngineId::Openai, "t01_reasoning_spent_budget");
    assert!(o.truncated && o.raw_answer.is_empty());
    assert_eq!((o.stop_reason.as_deref(), o.usage.output_tokens), (Some("max_output_tokens"), 3000));
    assert!(!o.raw_sources.is_empty(), "the search ran and was billed");
    // OpenAI's citations carry the text they cover.
    let p01 = parsed(EngineId::Openai, "p01_zh_list_url_citations");
    assert!(p01
        .raw_citations
        .as_ref()
        .unwrap()
        .iter()
        .all(|c| c.cited_text.as_ref().is_some_and(|t| p01.raw_answer.contains(t.as_str()))));
    // Gemini: 3,071 thinking tokens of 3,072, MAX_TOKENS, no text; tool-use tokens are input.
    let g = parsed(EngineId::Gemini, "t01_max_tokens_thoughts_only");
    assert!(g.truncated && g.raw_answer.is_empty());
    assert_eq!(g.usage.output_tokens, 3071);
    let g01 = parsed(EngineId::Gemini, "p01_zh_list_grounding_redirects");
    assert_eq!(g01.usage.input_tokens, 5210 + 2104, "promptTokenCount + toolUsePromptTokenCount");
    assert!(g01.raw_citations.as_ref().unwrap().iter().any(|c| c.cited_text.is_some()), "segment text");
    // Perplexity: <think> is not the answer, steps name the queries, [n] markers cite.
    let t = analysed(EngineId::Perplexity, "t03_reasoning_think_markers");
    assert!(!t.raw_answer.contains("<think>") && !t.raw_answer.contains("zhipu-marketing.com/blog"));
    assert!(!t.mentions.iter().any(|m| m.target_id == "comp_zhipu"), "a competitor named only while thinking");
    assert_eq!(
        t.queries.iter().filter_map(|q| q.query.as_deref()).collect::<Vec<_>>(),
        ["GEO 监测工具", "智谱营销 GEO 工具", "GEO 监测 报价"]
    );
    assert_eq!(t.usage.web_search_requests, 3);
    let cited: Vec<&str> = t.raw_citations.as_ref().unwrap().iter().map(|c| c.url.as_str()).collect();
    assert_eq!(cited, ["https://www.yuangouchang.com/solutions/geo"], "only [2]; the footnote list is not citing");
    assert_eq!(t.sources.iter().filter(|s| s.cited == Some(true)).count(), 1);
    let stated = parsed(EngineId::Perplexity, "t03_reasoning_think_markers");
    assert_eq!(stated.cost_usd, Some(0.03184));
    assert_eq!(stated.usage.search_context_size, Some(geo_core::model::SearchContextSize::High));
    let unclosed = parsed(EngineId::Perplexity, "t12_think_unclosed_length");
    assert!(unclosed.truncated && unclosed.raw_answer.is_empty());
    // Anthropic: a paused preamble is not an answer on its own.
    let paused = parsed(EngineId::Anthropic, "t12_pause_turn_preamble");
    assert!(paused.paused() && !paused.raw_answer.is_empty());
    assert!(geo_core::runner::is_empty_answer(&paused), "the preamble is cleaned away");
}

#[test]
fn error_bodies_map_to_the_seed_kinds() {
    let read = |engine: EngineId, name: &str| {
        std::fs::read_to_string(dir().join(engine.as_str()).join("errors").join(name)).unwrap()
    };
    let kind = |engine, status, name| map_engine_http_error(engine, status, &read(engine, name)).kind;
    use EngineId::*;
    assert_eq!(kind(Openai, 429, "429_insufficient_quota.json"), ErrorKind::Balance);
    assert_eq!(kind(Openai, 429, "429_insufficient_quota_code_null.json"), ErrorKind::Balance);
    assert_eq!(kind(Openai, 429, "429_rate_limit_exceeded.json"), ErrorKind::RateLimit);
    assert_eq!(kind(Gemini, 400, "400_api_key_invalid.json"), ErrorKind::Auth);
    assert_eq!(kind(Gemini, 429, "429_resource_exhausted.json"), ErrorKind::RateLimit);
    assert_eq!(kind(Gemini, 400, "400_failed_precondition.json"), ErrorKind::Http);
    assert_eq!(kind(Anthropic, 529, "529_overloaded_error.json"), ErrorKind::Server);
    assert_eq!(kind(Anthropic, 400, "400_invalid_request_error_credit_balance.json"), ErrorKind::Balance);
    assert_eq!(kind(Perplexity, 401, "401_openresty.html"), ErrorKind::Auth);
}
