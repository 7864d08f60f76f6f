//! The recorded bodies the mock answers with, embedded at build time so the binary runs
//! from any directory: the recorded Messages responses of `fixtures/responses/`, the error bodies of
//! `fixtures/errors/`, and the prompts of `fixtures/project.json` that map to them.

use serde_json::Value;

/// `(name, body)` of every recorded Messages response, in file-name order (`01_…` first).
pub const RESPONSES: &[(&str, &str)] = &[
    ("01_zh_numbered_list", include_str!("../../../fixtures/responses/01_zh_numbered_list.json")),
    ("02_zh_dunhao_list", include_str!("../../../fixtures/responses/02_zh_dunhao_list.json")),
    ("03_zh_paren_list", include_str!("../../../fixtures/responses/03_zh_paren_list.json")),
    ("04_zh_bold_numbered", include_str!("../../../fixtures/responses/04_zh_bold_numbered.json")),
    ("05_zh_bullet_list", include_str!("../../../fixtures/responses/05_zh_bullet_list.json")),
    ("06_zh_markdown_table", include_str!("../../../fixtures/responses/06_zh_markdown_table.json")),
    ("07_zh_interrupted_list", include_str!("../../../fixtures/responses/07_zh_interrupted_list.json")),
    ("08_zh_plain_prose", include_str!("../../../fixtures/responses/08_zh_plain_prose.json")),
    ("09_en_numbered_list", include_str!("../../../fixtures/responses/09_en_numbered_list.json")),
    ("10_search_error_max_uses", include_str!("../../../fixtures/responses/10_search_error_max_uses.json")),
    ("11_internal_id_query", include_str!("../../../fixtures/responses/11_internal_id_query.json")),
    ("12_empty_no_text", include_str!("../../../fixtures/responses/12_empty_no_text.json")),
    ("13_empty_whitespace", include_str!("../../../fixtures/responses/13_empty_whitespace.json")),
    ("14_preamble_then_answer", include_str!("../../../fixtures/responses/14_preamble_then_answer.json")),
    ("15_preamble_only", include_str!("../../../fixtures/responses/15_preamble_only.json")),
    ("16_duplicate_url_two_queries", include_str!("../../../fixtures/responses/16_duplicate_url_two_queries.json")),
    ("17_tracking_params_subdomains", include_str!("../../../fixtures/responses/17_tracking_params_subdomains.json")),
    ("18_answer_links", include_str!("../../../fixtures/responses/18_answer_links.json")),
    ("19_html_script_in_answer", include_str!("../../../fixtures/responses/19_html_script_in_answer.json")),
    ("20_citations_split_text", include_str!("../../../fixtures/responses/20_citations_split_text.json")),
    ("21_en_preamble_citations", include_str!("../../../fixtures/responses/21_en_preamble_citations.json")),
    ("22_zh_generic_brand_absent", include_str!("../../../fixtures/responses/22_zh_generic_brand_absent.json")),
    ("23_zh_generic_brand_gained", include_str!("../../../fixtures/responses/23_zh_generic_brand_gained.json")),
    ("24_zh_generic_competitor_first", include_str!("../../../fixtures/responses/24_zh_generic_competitor_first.json")),
    ("25_zh_generic_sources_shift", include_str!("../../../fixtures/responses/25_zh_generic_sources_shift.json")),
    ("26_zh_brand_profile_variant", include_str!("../../../fixtures/responses/26_zh_brand_profile_variant.json")),
];

/// The fixture project (an export envelope): prompt `pNN` was asked to get fixture `NN_…`.
pub const PROJECT: &str = include_str!("../../../fixtures/project.json");

/// Fixtures without a usable answer: round-robin skips them (ask for `empty` or `preamble`).
const NO_ANSWER: &[&str] = &["12_empty_no_text", "13_empty_whitespace", "15_preamble_only"];

/// The recorded error body for an HTTP status the mock fails with.
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

/// The parsed fixtures and the prompt → fixture table.
#[derive(Debug, Clone)]
pub struct Fixtures {
    responses: Vec<(String, Value)>,
    prompts: Vec<(String, usize)>,
    rotation: Vec<usize>,
}

impl Fixtures {
    /// Parses the embedded files (they are part of the repository and checked by tests).
    pub fn load() -> Result<Fixtures, String> {
        let mut responses = Vec::new();
        for (name, body) in RESPONSES {
            let value: Value = serde_json::from_str(body).map_err(|e| format!("fixture {name} is not json: {e}"))?;
            responses.push((name.to_string(), value));
        }
        let project: Value = serde_json::from_str(PROJECT).map_err(|e| format!("fixture project is not json: {e}"))?;
        let mut prompts = Vec::new();
        for p in project.get("prompts").and_then(Value::as_array).into_iter().flatten() {
            let (Some(id), Some(text)) = (p.get("id").and_then(Value::as_str), p.get("text").and_then(Value::as_str))
            else {
                continue;
            };
            // Prompt pNN belongs to fixture NN_….
            let number = id.trim_start_matches('p');
            if let Some(i) = responses.iter().position(|(n, _)| n.split('_').next() == Some(number)) {
                prompts.push((text.trim().to_string(), i));
            }
        }
        let rotation = (0..responses.len()).filter(|i| !NO_ANSWER.contains(&responses[*i].0.as_str())).collect();
        Ok(Fixtures { responses, prompts, rotation })
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

    /// The index of fixture number `n` (the file `NN_…`).
    pub fn by_number(&self, n: u16) -> Option<usize> {
        let prefix = format!("{n:02}_");
        self.responses.iter().position(|(name, _)| name.starts_with(&prefix))
    }

    /// Name and body of fixture `i`.
    pub fn get(&self, i: usize) -> (&str, &Value) {
        let (n, v) = &self.responses[i];
        (n, v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_fixture_prompt_maps_to_its_fixture() {
        let f = Fixtures::load().unwrap();
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
        }
    }
}
