//! The recorded bodies the mock answers with, embedded at build time so the binary runs
//! from any directory: DeepSeek's Messages responses of `fixtures/responses/` and error
//! bodies of `fixtures/errors/`, every other engine's responses and error bodies of
//! `fixtures/engines/<engine>/`, and the prompts of `fixtures/project.json` that map to them.

use serde_json::Value;

use crate::engines::MockEngine;

/// `(name, body)` of the recorded files `fixtures/$dir/$name.json`, in the order given: each
/// file named once.
macro_rules! recorded {
    ($dir:literal: $($name:literal,)*) => {
        &[$(($name, include_str!(concat!("../../../fixtures/", $dir, "/", $name, ".json")))),*]
    };
}

/// `(name, body)` of every recorded Messages response, in file-name order (`01_…` first).
pub const RESPONSES: &[(&str, &str)] = recorded!("responses":
    "01_zh_numbered_list",
    "02_zh_dunhao_list",
    "03_zh_paren_list",
    "04_zh_bold_numbered",
    "05_zh_bullet_list",
    "06_zh_markdown_table",
    "07_zh_interrupted_list",
    "08_zh_plain_prose",
    "09_en_numbered_list",
    "10_search_error_max_uses",
    "11_internal_id_query",
    "12_empty_no_text",
    "13_empty_whitespace",
    "14_preamble_then_answer",
    "15_preamble_only",
    "16_duplicate_url_two_queries",
    "17_tracking_params_subdomains",
    "18_answer_links",
    "19_html_script_in_answer",
    "20_citations_split_text",
    "21_en_preamble_citations",
    "22_zh_generic_brand_absent",
    "23_zh_generic_brand_gained",
    "24_zh_generic_competitor_first",
    "25_zh_generic_sources_shift",
    "26_zh_brand_profile_variant",
);

/// `(name, body)` of every recorded anthropic response (`fixtures/engines/anthropic/`), in file-name order.
pub const ANTHROPIC_RESPONSES: &[(&str, &str)] = recorded!("engines/anthropic":
    "p01_zh_numbered_list_citations",
    "p08_zh_no_search",
    "p09_en_numbered_list",
    "p10_search_error_too_many_requests",
    "p12_empty_pause_turn",
    "p15_preamble_only",
    "t12_pause_turn_continued",
    "t12_pause_turn_preamble",
);

/// `(name, body)` of every recorded openai response (`fixtures/engines/openai/`), in file-name order.
pub const OPENAI_RESPONSES: &[(&str, &str)] = recorded!("engines/openai":
    "p01_zh_list_url_citations",
    "p03_incomplete_max_output_tokens",
    "p08_zh_no_search",
    "p09_en_multi_query_open_page",
    "p10_search_failed",
    "p12_empty_text",
    "p15_preamble_only",
    "t01_reasoning_spent_budget",
);

/// `(name, body)` of every recorded gemini response (`fixtures/engines/gemini/`), in file-name order.
pub const GEMINI_RESPONSES: &[(&str, &str)] = recorded!("engines/gemini":
    "p01_zh_list_grounding_redirects",
    "p08_zh_no_search",
    "p09_en_thought_parts",
    "p10_queries_without_results",
    "p12_empty_thought_only",
    "p15_preamble_only",
    "p17_page_title_chunk_cached",
    "p19_prompt_blocked",
    "p22_zh_generic_brand_absent",
    "t01_max_tokens_thoughts_only",
);

/// `(name, body)` of every recorded perplexity response (`fixtures/engines/perplexity/`), in file-name order.
pub const PERPLEXITY_RESPONSES: &[(&str, &str)] = recorded!("engines/perplexity":
    "p01_zh_list_citations",
    "p03_reasoning_steps",
    "p08_no_citations_legacy",
    "p09_en_list",
    "p10_citation_outside_results",
    "p12_empty_content",
    "p15_preamble_only",
    "t03_reasoning_think_markers",
    "t12_think_unclosed_length",
);

// --- generated: the Chinese engines' recorded responses ---
/// `(name, body)` of every recorded qwen response, in file-name order.
pub const QWEN_RESPONSES: &[(&str, &str)] = recorded!("engines/qwen":
    "p01_zh_list_ref_citations",
    "p03_length_truncated",
    "p08_zh_no_search",
    "p09_en_list_ref_citations",
    "p10_marker_naming_no_result",
    "p12_empty_content",
    "p13_zh_search_skipped",
    "p15_preamble_only",
);

/// `(name, body)` of every recorded doubao response, in file-name order.
pub const DOUBAO_RESPONSES: &[(&str, &str)] = recorded!("engines/doubao":
    "p01_zh_list_web_search_annotations",
    "p03_incomplete_max_output_tokens",
    "p08_zh_company_no_search",
    "p09_en_agencies_list",
    "p10_search_incomplete_marker_without_annotation",
    "p12_empty_text",
    "p15_preamble_only",
);

/// `(name, body)` of every recorded ernie response, in file-name order.
pub const ERNIE_RESPONSES: &[(&str, &str)] = recorded!("engines/ernie":
    "p01_zh_list_citations",
    "p03_zh_index_gaps_empty_url",
    "p08_zh_no_search",
    "p09_en_list",
    "p10_marker_without_result",
    "p12_empty_content",
    "p13_search_without_trace",
    "p14_length_truncated",
    "p15_preamble_only",
);

/// `(name, body)` of every recorded hunyuan response, in file-name order.
pub const HUNYUAN_RESPONSES: &[(&str, &str)] = recorded!("engines/hunyuan":
    "p01_zh_list_brand_markers",
    "p08_zh_no_search",
    "p09_en_caret_markers",
    "p10_marker_naming_no_result",
    "p12_empty_content",
    "p13_search_skipped_canned_reply",
    "p15_preamble_only",
);
// --- end generated ---

/// The fixture project (an export envelope): prompt `pNN` was asked to get fixture `NN_…`.
pub const PROJECT: &str = include_str!("../../../fixtures/project.json");

/// DeepSeek's fixtures without a usable answer: round-robin skips them (ask for `empty` or
/// `preamble`). The other engines' `p12_…` and `p15_…` files play the same roles.
const NO_ANSWER: &[&str] = &["12_empty_no_text", "13_empty_whitespace", "15_preamble_only"];

/// The recorded responses of `engine`.
pub fn responses(engine: MockEngine) -> &'static [(&'static str, &'static str)] {
    match engine {
        MockEngine::Deepseek => RESPONSES,
        MockEngine::Anthropic => ANTHROPIC_RESPONSES,
        MockEngine::Openai => OPENAI_RESPONSES,
        MockEngine::Gemini => GEMINI_RESPONSES,
        MockEngine::Perplexity => PERPLEXITY_RESPONSES,
        MockEngine::Qwen => QWEN_RESPONSES,
        MockEngine::Doubao => DOUBAO_RESPONSES,
        MockEngine::Ernie => ERNIE_RESPONSES,
        MockEngine::Hunyuan => HUNYUAN_RESPONSES,
    }
}

/// The number a fixture answers: `NN` of DeepSeek's `NN_…`, of the others' `pNN_…`.
fn prompt_number(name: &str) -> &str {
    name.trim_start_matches('p').split('_').next().unwrap_or("")
}

/// True for a fixture the round-robin skips: one that gives no usable answer (the `empty`
/// and `preamble` roles) and every twin (`tNN_…`: a recorded finding of engines.md
/// "Fidelity", for the goldens; the mock produces those behaviours from the request).
fn is_no_answer(engine: MockEngine, name: &str) -> bool {
    name.starts_with('t')
        || match engine {
            MockEngine::Deepseek => NO_ANSWER.contains(&name),
            _ => name.starts_with("p12_") || name.starts_with("p15_"),
        }
}

/// The error body of `engine` for an HTTP status the mock fails with: the engine's recorded
/// body where one exists, else the engine's documented envelope with the documented error
/// type or status name for that status (no capture of it was found; see
/// `fixtures/engines/README.md`).
pub fn engine_error_body(engine: MockEngine, status: u16) -> &'static str {
    macro_rules! file {
        ($engine:literal, $name:literal) => {
            include_str!(concat!("../../../fixtures/engines/", $engine, "/errors/", $name))
        };
    }
    match (engine, status) {
        (MockEngine::Deepseek, s) => error_body(s),
        (MockEngine::Anthropic, 401) => file!("anthropic", "401_authentication_error.json"),
        (MockEngine::Anthropic, 402) => file!("anthropic", "400_invalid_request_error_credit_balance.json"),
        (MockEngine::Anthropic, 403) => file!("anthropic", "403_permission_error.json"),
        (MockEngine::Anthropic, 429) => file!("anthropic", "429_rate_limit_error.json"),
        (MockEngine::Anthropic, 500) => file!("anthropic", "500_api_error.json"),
        (MockEngine::Anthropic, 503) => file!("anthropic", "529_overloaded_error.json"),
        (MockEngine::Anthropic, _) => error_body(status),
        (MockEngine::Openai, 401) => file!("openai", "401_invalid_api_key.json"),
        (MockEngine::Openai, 402) => file!("openai", "429_insufficient_quota.json"),
        (MockEngine::Openai, 429) => file!("openai", "429_rate_limit_exceeded.json"),
        (MockEngine::Openai, 500 | 503) => file!("openai", "500_server_error.json"),
        (MockEngine::Openai, 403) => {
            r#"{"error":{"message":"Country, region, or territory not supported","type":"request_forbidden","param":null,"code":"unsupported_country_region_territory"}}"#
        }
        (MockEngine::Openai, _) => r#"{"error":{"message":"Request timed out.","type":"timeout","param":null,"code":null}}"#,
        (MockEngine::Gemini, 401) => file!("gemini", "400_api_key_invalid.json"),
        (MockEngine::Gemini, 403) => file!("gemini", "403_permission_denied.json"),
        (MockEngine::Gemini, 429) => file!("gemini", "429_resource_exhausted.json"),
        (MockEngine::Gemini, 500) => file!("gemini", "500_internal.json"),
        (MockEngine::Gemini, 503) => file!("gemini", "503_unavailable.json"),
        (MockEngine::Gemini, 402) => {
            r#"{"error":{"code":402,"message":"Your prepaid credit balance is exhausted.","status":"RESOURCE_EXHAUSTED"}}"#
        }
        (MockEngine::Gemini, _) => {
            r#"{"error":{"code":504,"message":"The service is unable to finish processing within the deadline.","status":"DEADLINE_EXCEEDED"}}"#
        }
        (MockEngine::Perplexity, 401) => file!("perplexity", "401_openresty.html"),
        (MockEngine::Perplexity, 402) => r#"{"error":{"message":"Insufficient credits","type":"insufficient_quota","code":402}}"#,
        (MockEngine::Perplexity, 403) => r#"{"error":{"message":"Forbidden","type":"forbidden","code":403}}"#,
        (MockEngine::Perplexity, 429) => r#"{"error":{"message":"Rate limit exceeded","type":"rate_limit_exceeded","code":429}}"#,
        (MockEngine::Perplexity, _) => "<html>\n<head><title>503 Service Temporarily Unavailable</title></head>\n<body><center><h1>503 Service Temporarily Unavailable</h1></center><hr><center>openresty/1.27.4</center></body>\n</html>\n",
        (MockEngine::Qwen, 401) => file!("qwen", "401_invalid_api_key.json"),
        (MockEngine::Qwen, 402) => file!("qwen", "400_arrearage.json"),
        (MockEngine::Qwen, 403) => {
            r#"{"request_id":"5b9c1f0e-6a3d-4c1e-9d52-7f3a1c2b8e40","code":"AccessDenied.Unpurchased","message":"Access to model denied. Please make sure you are eligible for using the model."}"#
        }
        (MockEngine::Qwen, 429) => file!("qwen", "429_throttling_rate_quota.json"),
        (MockEngine::Qwen, _) => file!("qwen", "500_internal_error.json"),
        (MockEngine::Doubao, 401) => file!("doubao", "401_authentication_error.json"),
        (MockEngine::Doubao, 402) => file!("doubao", "403_account_overdue.json"),
        (MockEngine::Doubao, 403) => {
            r#"{"error":{"code":"AccessDenied","message":"The request failed because you do not have access to the requested resource.","param":"","type":"Forbidden"}}"#
        }
        (MockEngine::Doubao, 429) => file!("doubao", "429_rate_limit_exceeded.json"),
        (MockEngine::Doubao, _) => file!("doubao", "500_internal_service_error.json"),
        (MockEngine::Ernie, 401) => file!("ernie", "401_invalid_iam_token.json"),
        (MockEngine::Ernie, 402) => file!("ernie", "403_account_overdue.json"),
        (MockEngine::Ernie, 403) => {
            r#"{"error":{"code":"no_permission","message":"You do not have permission to access this resource","type":"access_denied"},"id":"as-mock403"}"#
        }
        (MockEngine::Ernie, 429) => file!("ernie", "429_rpm_rate_limit_exceeded.json"),
        (MockEngine::Ernie, _) => {
            r#"{"error":{"code":"internal_error","message":"Internal error","type":"internal_error"},"id":"as-mock500"}"#
        }
        (MockEngine::Hunyuan, 401) => {
            r#"{"error":{"message":"The provided credentials could not be validated.","type":"invalid_request_error","param":null,"code":"AuthFailure.SignatureFailure"}}"#
        }
        (MockEngine::Hunyuan, 402) => {
            r#"{"error":{"message":"Your account is in arrears; the service has been stopped.","type":"invalid_request_error","param":null,"code":"FailedOperation.ServiceStopArrears"}}"#
        }
        (MockEngine::Hunyuan, 403) => {
            r#"{"error":{"message":"The Hunyuan service is not activated for this account.","type":"invalid_request_error","param":null,"code":"FailedOperation.ServiceNotActivated"}}"#
        }
        (MockEngine::Hunyuan, 429) => {
            r#"{"error":{"message":"Request limit exceeded.","type":"invalid_request_error","param":null,"code":"LimitExceeded"}}"#
        }
        (MockEngine::Hunyuan, _) => {
            r#"{"error":{"message":"The engine server returned an error.","type":"invalid_request_error","param":null,"code":"FailedOperation.EngineServerError"}}"#
        }
    }
}

/// How `engine`'s content filter declines (the `refused` outcome): its status and body, or
/// `None` for an engine that documents no such refusal (it answers as `ok`).
pub fn refusal(engine: MockEngine) -> Option<(u16, &'static str)> {
    match engine {
        MockEngine::Qwen => {
            Some((400, include_str!("../../../fixtures/engines/qwen/errors/400_data_inspection_failed.json")))
        }
        MockEngine::Doubao => {
            Some((400, include_str!("../../../fixtures/engines/doubao/errors/400_sensitive_content_detected.json")))
        }
        MockEngine::Ernie => Some((200, include_str!("../../../fixtures/engines/ernie/r01_content_filter.json"))),
        MockEngine::Hunyuan => {
            Some((200, include_str!("../../../fixtures/engines/hunyuan/r01_finish_reason_sensitive.json")))
        }
        _ => None,
    }
}

/// The status the mock answers a fault with for `engine`: Gemini says "bad key" with a 400
/// (`API_KEY_INVALID`), Anthropic "no credit" with a 400 and "overloaded" with 529, OpenAI
/// "no quota" with a 429.
pub fn engine_status(engine: MockEngine, status: u16) -> u16 {
    match (engine, status) {
        (MockEngine::Gemini, 401) | (MockEngine::Anthropic, 402) => 400,
        (MockEngine::Anthropic, 503) => 529,
        (MockEngine::Openai, 402) => 429,
        (MockEngine::Gemini, 408) => 504,
        (MockEngine::Perplexity, 408 | 500) => 503,
        (MockEngine::Qwen | MockEngine::Hunyuan, 402) => 400,
        (MockEngine::Doubao | MockEngine::Ernie, 402) => 403,
        (MockEngine::Qwen | MockEngine::Doubao | MockEngine::Ernie | MockEngine::Hunyuan, 408) => 500,
        (_, s) => s,
    }
}

/// The recorded error body for an HTTP status the mock fails with (DeepSeek's).
pub fn error_body(status: u16) -> &'static str {
    match status {
        401 => include_str!("../../../fixtures/errors/401_deepseek_auth.json"),
        402 => include_str!("../../../fixtures/errors/402_deepseek_insufficient_balance.json"),
        403 => include_str!("../../../fixtures/errors/403_anthropic_permission.json"),
        // No 408 body was ever captured; this is the Anthropic envelope with its error type.
        408 => r#"{"type":"error","error":{"type":"timeout_error","message":"Request timed out"}}"#,
        429 => include_str!("../../../fixtures/errors/429_rate_limit.json"),
        500 => include_str!("../../../fixtures/errors/500_anthropic_api_error.json"),
        503 => include_str!("../../../fixtures/errors/503_deepseek_server_overloaded.json"),
        _ => r#"{"type":"error","error":{"type":"api_error","message":"mock error"}}"#,
    }
}

/// The parsed fixtures of one engine and its prompt → fixture table.
#[derive(Debug, Clone)]
pub struct EngineFixtures {
    engine: MockEngine,
    responses: Vec<(String, Value)>,
    prompts: Vec<(String, usize)>,
    rotation: Vec<usize>,
}

/// Every engine's fixtures.
#[derive(Debug, Clone)]
pub struct Fixtures {
    engines: Vec<EngineFixtures>,
}

impl Fixtures {
    /// Parses the embedded files (they are part of the repository and checked by tests).
    pub fn load() -> Result<Fixtures, String> {
        let project: Value = serde_json::from_str(PROJECT).map_err(|e| format!("fixture project is not json: {e}"))?;
        let engines = MockEngine::ALL.iter().map(|e| EngineFixtures::load(*e, &project)).collect::<Result<_, _>>()?;
        Ok(Fixtures { engines })
    }

    /// The fixtures of `engine`.
    pub fn engine(&self, engine: MockEngine) -> &EngineFixtures {
        &self.engines[engine as usize]
    }
}

impl EngineFixtures {
    fn load(engine: MockEngine, project: &Value) -> Result<EngineFixtures, String> {
        let mut responses = Vec::new();
        for (name, body) in responses_of(engine) {
            let value: Value = serde_json::from_str(body).map_err(|e| format!("fixture {name} is not json: {e}"))?;
            responses.push((name.to_string(), value));
        }
        let mut prompts = Vec::new();
        for p in project.get("prompts").and_then(Value::as_array).into_iter().flatten() {
            let (Some(id), Some(text)) = (p.get("id").and_then(Value::as_str), p.get("text").and_then(Value::as_str))
            else {
                continue;
            };
            // Prompt pNN belongs to fixture NN_… (DeepSeek) or pNN_… (the others).
            let number = id.trim_start_matches('p');
            if let Some(i) = responses.iter().position(|(n, _)| prompt_number(n) == number) {
                prompts.push((text.trim().to_string(), i));
            }
        }
        let rotation = (0..responses.len()).filter(|i| !is_no_answer(engine, &responses[*i].0)).collect();
        Ok(EngineFixtures { engine, responses, prompts, rotation })
    }

    /// The fixture recorded for this prompt text (marker already removed), if any.
    pub fn for_prompt(&self, text: &str) -> Option<usize> {
        self.prompts.iter().find(|(t, _)| t == text.trim()).map(|(_, i)| *i)
    }

    /// The `turn`-th fixture of the round-robin over fixtures that have an answer.
    pub fn in_turn(&self, turn: usize) -> usize {
        self.rotation[turn % self.rotation.len()]
    }

    /// The index of a fixture by name.
    pub fn by_name(&self, name: &str) -> Option<usize> {
        self.responses.iter().position(|(n, _)| n == name)
    }

    /// The fixture playing the `empty` role (DeepSeek's `12_empty_no_text`, the others' `p12_…`).
    pub fn empty(&self) -> Option<usize> {
        match self.engine {
            MockEngine::Deepseek => self.by_name("12_empty_no_text"),
            _ => self.responses.iter().position(|(n, _)| n.starts_with("p12_")),
        }
    }

    /// The fixture playing the `preamble` role (DeepSeek's `15_preamble_only`, the others' `p15_…`).
    pub fn preamble(&self) -> Option<usize> {
        match self.engine {
            MockEngine::Deepseek => self.by_name("15_preamble_only"),
            _ => self.responses.iter().position(|(n, _)| n.starts_with("p15_")),
        }
    }

    /// The index of fixture number `n` (DeepSeek's file `NN_…`, the others' `pNN_…`).
    pub fn by_number(&self, n: u16) -> Option<usize> {
        self.responses.iter().position(|(name, _)| prompt_number(name).parse::<u16>() == Ok(n))
    }

    /// Name and body of fixture `i`.
    pub fn get(&self, i: usize) -> (&str, &Value) {
        let (n, v) = &self.responses[i];
        (n, v)
    }

    /// How many fixtures the engine has.
    pub fn len(&self) -> usize {
        self.responses.len()
    }

    /// True when the engine has no fixture (never, for the embedded files).
    pub fn is_empty(&self) -> bool {
        self.responses.is_empty()
    }
}

fn responses_of(engine: MockEngine) -> &'static [(&'static str, &'static str)] {
    responses(engine)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_fixture_prompt_maps_to_its_fixture() {
        let all = Fixtures::load().unwrap();
        let f = all.engine(MockEngine::Deepseek);
        assert_eq!(f.responses.len(), 26);
        assert_eq!(f.prompts.len(), 26);
        let i = f.for_prompt("GEO监测工具哪个好用？").unwrap();
        assert_eq!(f.get(i).0, "03_zh_paren_list");
        assert_eq!(f.for_prompt("something else"), None);
        assert_eq!(f.by_number(23).map(|i| f.get(i).0), Some("23_zh_generic_brand_gained"));
        assert_eq!(f.by_number(3).map(|i| f.get(i).0), Some("03_zh_paren_list"));
        assert_eq!(f.by_number(99), None);
        // Every fixture with an answer (26 less the 3 without one) in turn, then again.
        let turns: Vec<&str> = (0..24).map(|t| f.get(f.in_turn(t)).0).collect();
        assert!(!turns.iter().any(|n| NO_ANSWER.contains(n)));
        assert_eq!(turns[0], turns[23]);
        assert_ne!(turns[0], turns[18]);
    }

    #[test]
    fn error_bodies_exist_for_every_status() {
        for s in crate::scenario::STATUSES {
            assert!(error_body(*s).contains("error"), "{s}");
            for e in MockEngine::ALL {
                let body = engine_error_body(e, *s);
                // DashScope's native bodies are flat `{"request_id","code","message"}`.
                assert!(body.contains("error") || body.contains("<title>") || body.contains("\"code\""), "{e:?} {s}");
                assert!((400..600).contains(&engine_status(e, *s)));
            }
        }
    }

    #[test]
    fn every_engine_fixture_file_is_embedded_and_every_role_is_there() {
        let all = Fixtures::load().unwrap();
        for e in MockEngine::ALL.into_iter().filter(|e| *e != MockEngine::Deepseek) {
            let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/engines").join(e.name());
            let on_disk = std::fs::read_dir(dir)
                .unwrap()
                .filter(|f| f.as_ref().unwrap().path().extension().is_some_and(|x| x == "json"))
                // A refusal at HTTP 200 (`rNN_…`) is no answer: the `refused` outcome serves it.
                .filter(|f| !f.as_ref().unwrap().file_name().to_string_lossy().starts_with('r'));
            let f = all.engine(e);
            assert_eq!(on_disk.count(), f.len(), "{e:?}: a fixture file is not embedded");
            assert!(f.empty().is_some() && f.preamble().is_some(), "{e:?}");
            let p01 = f.for_prompt("2026年国内有哪些靠谱的GEO（生成式引擎优化）服务商？").unwrap();
            assert!(f.get(p01).0.starts_with("p01_"), "{e:?}");
            assert_eq!(f.by_number(1), Some(p01), "{e:?}: ok=N names pNN_ files");
            assert_eq!(f.by_number(23), None, "{e:?}");
            let turns: Vec<&str> = (0..f.len()).map(|t| f.get(f.in_turn(t)).0).collect();
            assert!(!turns.iter().any(|n| n.starts_with("p12_") || n.starts_with("p15_")), "{turns:?}");
            assert!(!turns.iter().any(|n| n.starts_with('t')), "twins are not answers in turn: {turns:?}");
        }
        for e in [MockEngine::Qwen, MockEngine::Doubao, MockEngine::Ernie, MockEngine::Hunyuan] {
            let (status, body) = refusal(e).unwrap();
            assert!(
                body.contains("DataInspection") || body.contains("Sensitive") || body.contains("\"finish_reason\"")
            );
            assert!(status == 200 || status == 400, "{e:?}");
        }
        assert_eq!(refusal(MockEngine::Openai), None);
    }
}
