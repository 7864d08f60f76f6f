//! "Did search really work?": `geo-probe doctor` and the settings page's key test
//! (engines.md, "Fidelity"; cli.md).
//!
//! Each engine with a key is asked one short question that needs a web search, with the
//! run's own request ([`doctor_config`]: the engine's default budget, one search), and the
//! reply is read by the engine's wire format like any probe. [`DoctorCheck`] says whether the
//! key was accepted, whether a search ran, how many sources came back, whether citation data
//! came back (`None` for an engine that offers none), which model answered, the latency and
//! the cost of the check, and what to do when something failed. A key that works but never
//! searches is the failure this exists to catch.
//!
//! A check reads an engine's reply (`provider`) and prices it (`metrics::cost`), so it sits
//! above both rather than inside either: the wire format never reads the price table.

use serde::Serialize;

use crate::metrics::cost::{cost_at_price, price_for_engine};
use crate::model::{EngineId, ErrorKind, Localized, ProbeError, RunConfig};
use crate::provider::budget::default_config;
use crate::provider::error::words::describe_local_proxy;
use crate::provider::keytest::KeyVerdict;
use crate::provider::parsed::ParsedResponse;
use crate::provider::spec::{model_or_default, spec};

/// The question every check asks: short, and answerable only with a search.
pub const DOCTOR_PROMPT: &str = "请联网搜索：今天有哪一条关于人工智能的新闻？用一句话回答并注明来源。";

/// The run config of a check of `engine`'s `model` (blank: its default): the default budget
/// of the engine and model, one search, one probe.
pub fn doctor_config(engine: EngineId, model: &str) -> RunConfig {
    RunConfig { repeats: 1, concurrency: 1, max_searches: 1, ..default_config(engine, model) }
}

/// What one engine's check found (the `engines[]` entries of `geo-probe doctor --json`).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DoctorCheck {
    /// The engine checked.
    pub engine: EngineId,
    /// Key accepted, a search ran and sources came back.
    pub ok: bool,
    /// The engine answered the request (any reply other than a refused key or no reply).
    pub key_accepted: bool,
    /// The reply ran at least one search (queries > 0).
    pub searched: bool,
    /// `rawSources` of the reply.
    pub source_count: u32,
    /// Whether citation data came back; `None` for an engine that offers none (DeepSeek).
    pub citations: Option<bool>,
    /// The model that answered (the requested one when no reply came).
    pub model: String,
    /// Time to the reply in milliseconds.
    pub latency_ms: u64,
    /// The check's cost in USD (the engine's stated cost, else the price table); `None`
    /// when the model has no price or nothing was billed.
    pub cost_usd: Option<f64>,
    /// Why it is not ok (lowercase, says what to do); absent when ok.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The key test's verdict (the settings page's words), not serialised.
    #[serde(skip)]
    pub verdict: KeyVerdict,
    /// When `geo-probe proxy` itself refused or did not answer: its words, which the
    /// settings page shows instead of the verdict's (the engine's key was never tried).
    #[serde(skip)]
    pub proxy_words: Option<Localized>,
}

/// The verdict of a failed request (its error kind), as the key test names it.
fn verdict_of(error: &ProbeError) -> KeyVerdict {
    match error.kind {
        ErrorKind::Auth => KeyVerdict::InvalidKey,
        ErrorKind::Balance => KeyVerdict::NoBalance,
        ErrorKind::Forbidden => KeyVerdict::Forbidden,
        ErrorKind::RateLimit => KeyVerdict::RateLimited,
        ErrorKind::Network | ErrorKind::Timeout => KeyVerdict::Unreachable(error.message.clone()),
        _ => KeyVerdict::Other(error.message.clone()),
    }
}

/// The check of `engine` from the outcome of its request for `requested_model` (as the
/// endpoint resolved it) and the time it took.
pub fn doctor_check(
    engine: EngineId,
    requested_model: &str,
    outcome: &Result<ParsedResponse, ProbeError>,
    latency_ms: u64,
) -> DoctorCheck {
    let s = spec(engine);
    let requested = model_or_default(engine, requested_model).to_string();
    let reply = match outcome {
        Ok(reply) => reply,
        Err(e) => {
            let verdict = verdict_of(e);
            let key_accepted = !matches!(verdict, KeyVerdict::InvalidKey | KeyVerdict::Unreachable(_));
            let fix = match e.kind {
                ErrorKind::Auth => {
                    format!("the key was refused: set {} to a working key (get one at {})", s.key_env, s.console_url)
                }
                ErrorKind::Balance => format!("the account has no credit left: add credit at {}", s.console_url),
                _ => e.message.clone(),
            };
            let proxy_words = describe_local_proxy(engine, e);
            let fix = proxy_words.as_ref().map_or(fix, |w| w.en.clone());
            return DoctorCheck {
                engine,
                ok: false,
                key_accepted,
                searched: false,
                source_count: 0,
                citations: None,
                model: requested,
                latency_ms,
                cost_usd: None,
                error: Some(fix),
                verdict,
                proxy_words,
            };
        }
    };
    let searched = !reply.queries.is_empty();
    let source_count = u32::try_from(reply.raw_sources.len()).unwrap_or(u32::MAX);
    let citations = s.citations.then(|| reply.raw_citations.as_ref().is_some_and(|c| !c.is_empty()));
    let model = if reply.model.is_empty() { requested } else { reply.model.clone() };
    let price = price_for_engine(engine, &model).or_else(|| price_for_engine(engine, requested_model));
    let cost_usd = reply.cost_usd.or_else(|| price.map(|p| cost_at_price(p, &reply.usage, 1)));
    let error = if !searched {
        Some(format!(
            "{} answered without searching the web: check that web search is enabled for this key and model ({})",
            s.name.to_lowercase(),
            s.console_url
        ))
    } else if source_count == 0 {
        Some(format!(
            "{} searched but returned no sources: try again, or check the model and the base url",
            s.name.to_lowercase()
        ))
    } else {
        None
    };
    DoctorCheck {
        engine,
        ok: error.is_none(),
        key_accepted: true,
        searched,
        source_count,
        citations,
        model,
        latency_ms,
        cost_usd,
        error,
        verdict: KeyVerdict::Valid,
        proxy_words: None,
    }
}

impl DoctorCheck {
    /// One line for a terminal: `engine  ok|FAIL  key accepted · searched · N sources ·
    /// citations … · model · latency · cost`, then ` — fix` when not ok.
    pub fn line(&self) -> String {
        let yes = |b: bool, y: &str, n: &str| if b { y.to_string() } else { n.to_string() };
        let citations = match self.citations {
            None => "citations not offered".to_string(),
            Some(c) => yes(c, "citations returned", "no citations"),
        };
        let cost = self.cost_usd.map_or("cost unknown".to_string(), |c| format!("${c:.4}"));
        let mut line = format!(
            "{:<10} {:<4} {} · {} · {} source(s) · {} · {} · {} ms · {}",
            self.engine.as_str(),
            if self.ok { "ok" } else { "FAIL" },
            yes(self.key_accepted, "key accepted", "key not accepted"),
            yes(self.searched, "searched", "no search"),
            self.source_count,
            citations,
            self.model,
            self.latency_ms,
            cost
        );
        if let Some(e) = &self.error {
            line.push_str(" — ");
            line.push_str(e);
        }
        line
    }

    /// What the settings page shows: the key test's verdict, then (once the key works) what
    /// the search did.
    pub fn describe(&self) -> Localized {
        if let Some(words) = &self.proxy_words {
            return words.clone();
        }
        let verdict = self.verdict.describe_for(self.engine);
        if !self.key_accepted || !matches!(self.verdict, KeyVerdict::Valid) {
            return verdict;
        }
        let n = self.source_count;
        let (zh, en) = match (self.searched, n) {
            (false, _) => ("但没有联网搜索".to_string(), "but it did not search the web".to_string()),
            (true, 0) => ("已搜索，但没有来源".to_string(), "it searched but returned no sources".to_string()),
            (true, n) => (format!("已搜索，{n} 个来源"), format!("it searched and returned {n} source(s)")),
        };
        Localized::new(format!("{}；{zh}", verdict.zh), format!("{}; {en}", verdict.en))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Query, RawSource, Usage};

    fn reply(queries: usize, sources: usize) -> ParsedResponse {
        ParsedResponse {
            raw_answer: "a".into(),
            queries: (0..queries)
                .map(|i| Query { index: i as u32 + 1, query: None, internal: true, error: None })
                .collect(),
            raw_sources: (0..sources)
                .map(|i| RawSource {
                    query_index: 1,
                    rank: i as u32 + 1,
                    title: String::new(),
                    url: format!("https://{i}.example"),
                    page_age: None,
                    site_name: None,
                })
                .collect(),
            raw_citations: Some(vec![]),
            usage: Usage { input_tokens: 1_000, output_tokens: 100, web_search_requests: 1, ..Usage::default() },
            model: "gpt-5-mini-2025-08-07".into(),
            ..ParsedResponse::default()
        }
    }

    /// The proxy's own refusal is told as the proxy's, in the settings page and the terminal.
    #[test]
    fn a_check_refused_by_the_local_proxy_says_so() {
        let body = r#"{"error":{"type":"geo_probe_proxy","message":"geo-probe proxy: missing or wrong x-geo-probe-proxy-token"}}"#;
        let e = crate::provider::map_engine_http_error(EngineId::Qwen, 401, body);
        let c = doctor_check(EngineId::Qwen, "", &Err(e), 3);
        assert_eq!(c.verdict, KeyVerdict::InvalidKey);
        assert!(c.describe().en.starts_with("geo-probe proxy refused the request"), "{:?}", c.describe());
        assert!(c.error.as_deref().unwrap().contains("token"), "{:?}", c.error);
        let own = crate::provider::map_engine_http_error(EngineId::Qwen, 401, r#"{"code":"InvalidApiKey"}"#);
        assert!(doctor_check(EngineId::Qwen, "", &Err(own), 3).proxy_words.is_none());
    }

    #[test]
    fn a_check_says_what_worked() {
        let c = doctor_check(EngineId::Openai, "", &Ok(reply(1, 3)), 1200);
        assert!(c.ok && c.key_accepted && c.searched);
        assert_eq!((c.source_count, c.citations, c.model.as_str()), (3, Some(false), "gpt-5-mini-2025-08-07"));
        assert!(c.cost_usd.unwrap() > 0.0);
        let v = serde_json::to_value(&c).unwrap();
        for key in
            ["engine", "ok", "keyAccepted", "searched", "sourceCount", "citations", "model", "latencyMs", "costUsd"]
        {
            assert!(v.get(key).is_some(), "{key}");
        }
        assert!(v.get("error").is_none());
        assert!(c.line().starts_with("openai     ok"), "{}", c.line());
        assert!(c.describe().en.contains("3 source(s)"), "{:?}", c.describe());
        // DeepSeek offers no citations.
        assert_eq!(doctor_check(EngineId::Deepseek, "", &Ok(reply(1, 1)), 1).citations, None);
    }

    #[test]
    fn no_search_no_sources_and_refused_keys_are_not_ok() {
        let c = doctor_check(EngineId::Gemini, "", &Ok(reply(0, 0)), 1);
        assert!(!c.ok && c.key_accepted && !c.searched);
        assert!(c.error.as_deref().unwrap().contains("without searching"), "{:?}", c.error);
        let c = doctor_check(EngineId::Gemini, "", &Ok(reply(2, 0)), 1);
        assert!(!c.ok && c.searched && c.error.as_deref().unwrap().contains("no sources"));
        let refused = crate::provider::map_engine_http_error(EngineId::Anthropic, 401, "{}");
        let c = doctor_check(EngineId::Anthropic, "", &Err(refused), 5);
        assert!(!c.ok && !c.key_accepted && c.verdict == KeyVerdict::InvalidKey);
        assert!(c.error.as_deref().unwrap().contains("ANTHROPIC_API_KEY"), "{:?}", c.error);
        assert_eq!((c.model.as_str(), c.cost_usd), ("claude-sonnet-4-6", None));
        assert_eq!(serde_json::to_value(&c).unwrap()["costUsd"], serde_json::Value::Null);
        let config = doctor_config(EngineId::Openai, "");
        assert_eq!((config.max_searches, config.max_tokens, config.repeats), (1, 16_384, 1));
    }
}
