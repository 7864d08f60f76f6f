//! GEO Probe's pure core: does an AI assistant mention your brand, in what place, and which
//! web pages did its search pull in?
//!
//! Everything that decides a number lives here and nowhere else: the snapshot model
//! ([`model`]), every engine's wire format ([`provider`]), the five analysis steps
//! ([`analysis`]), metrics, insights and cost ([`metrics`]), noise-aware comparisons of runs
//! and engines ([`compare`]), what to do next ([`actions`]: lost prompts, the searches the
//! engine ran, the pages to be on, answer-link health), exports and import ([`export`]), the
//! runner's decisions ([`runner`]), the check that an engine's search works ([`doctor`]) and the
//! docs-chat retrieval and stream decoding ([`chat`]).
//!
//! # The one decision: a pure core
//!
//! The crate performs no I/O, reads no clock and draws no randomness of its own: time, ids
//! and random numbers are inputs, and the shells (the Yew web app, the `geo-probe` CLI)
//! only send requests, sleep and store records. That is what lets the browser (wasm32) and
//! the terminal share one behaviour, golden-tested natively against recorded responses, and
//! what makes every figure reproducible from an export.
//!
//! Three things are kept apart throughout: a **Mention** (a tracked target's alias in the
//! answer text), a **Retrieved Source** (a page the search tool returned) and an **Answer
//! Link** (a URL the answer wrote out). None of them is a citation.
//!
//! # Example: from a raw Messages response to metrics
//!
//! ```
//! use geo_core::analysis::analyze_probe;
//! use geo_core::model::*;
//! use geo_core::provider::parse_engine_response;
//!
//! // What DeepSeek's Anthropic-compatible endpoint returns for one probe (shortened).
//! let body = r#"{"id":"4b8f…","type":"message","role":"assistant","model":"deepseek-v4-flash",
//!   "content":[
//!     {"type":"thinking","thinking":"搜索一下","signature":"s"},
//!     {"type":"server_tool_use","id":"call_00_a","name":"web_search","input":{"query":"GEO 服务商"}},
//!     {"type":"web_search_tool_result","tool_use_id":"call_00_a","content":[
//!       {"type":"web_search_result","title":"元构场官网","url":"https://www.acme.cn/?utm_source=x","page_age":null},
//!       {"type":"web_search_result","title":"GEO 服务商盘点","url":"https://zhuanlan.zhihu.com/p/1#top"}]},
//!     {"type":"text","text":"推荐如下：\n\n1. 元构场：监测\n2. 智谱营销：内容"}],
//!   "stop_reason":"end_turn",
//!   "usage":{"input_tokens":1200,"output_tokens":300,"server_tool_use":{"web_search_requests":1}}}"#;
//! let parsed = parse_engine_response(EngineId::Deepseek, body, "deepseek-v4-flash").expect("a valid response");
//! assert_eq!(parsed.queries[0].query.as_deref(), Some("GEO 服务商"));
//!
//! // The run's frozen alias snapshot: brand first, then competitors.
//! let target = |id: &str, kind, alias: &str, domain: &str| Target {
//!     id: id.into(), kind, label: alias.into(), aliases: vec![alias.into()], domains: vec![domain.into()],
//! };
//! let targets = vec![
//!     target("brand", TargetKind::Brand, "元构场", "acme.cn"),
//!     target("rival", TargetKind::Competitor, "智谱营销", "rival.com"),
//! ];
//!
//! let mut probe = Probe {
//!     id: probe_id("run_1", "p1", 0), run_id: "run_1".into(), project_id: "proj".into(),
//!     prompt_id: "p1".into(), repeat_index: 0, status: ProbeStatus::Success,
//!     created_at: "2026-11-29T08:00:00.000Z".into(), model: parsed.model, attempts: 1,
//!     latency_ms: 9000, error: None, request_id: parsed.request_id, stop_reason: parsed.stop_reason,
//!     usage: parsed.usage, truncated: false, billed_usage: Some(parsed.usage), continuations: 0, cost_usd: None,
//!     location_applied: LocationApplied::None,
//!     raw_answer: parsed.raw_answer, queries: parsed.queries,
//!     raw_sources: parsed.raw_sources, raw_citations: None, answer: String::new(), sources: vec![], mentions: vec![],
//!     list_items: vec![], other_entities: vec![], answer_links: vec![], claims: vec![], risk_flags: vec![],
//! };
//! analyze_probe(&mut probe, &targets);
//!
//! // Mentions: the brand is named first and is #1 of the parsed list.
//! assert_eq!(probe.mentions[0].target_id, "brand");
//! assert_eq!(probe.mentions[0].order, 1);
//! assert_eq!(probe.mentions[0].list_position, Some(1));
//! // Retrieved sources: canonical URLs, registrable domains, ownership.
//! assert_eq!(probe.sources[0].url, "https://www.acme.cn");
//! assert_eq!(probe.sources[0].ownership, Ownership::Owned);
//! assert_eq!(probe.sources[1].domain, "zhihu.com");
//! ```
//!
//! [`metrics::compute_run_metrics`] then turns a run's analysed probes into the figures of
//! `geo-probe metrics`, with every denominator stated in `docs/metrics.md`.

#![warn(missing_docs)]

// The unit tests share the test builders of `tests/it`, which name the crate `geo_core`.
#[cfg(test)]
extern crate self as geo_core;
#[cfg(test)]
#[path = "../tests/it/builders.rs"]
mod builders;

pub mod actions;
pub mod analysis;
pub mod chat;
pub mod compare;
pub mod doctor;
pub mod export;
pub mod json;
pub mod limits;
pub mod metrics;
pub mod model;
pub mod origin;
pub mod prng;
pub mod project;
pub mod provider;
pub mod runner;
pub mod safe;
pub mod said;
pub mod sort;
pub mod text;
pub mod timestamp;
