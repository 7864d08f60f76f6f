//! Goldens: the DeepSeek `parse_engine_response` result of every recorded response, as an insta JSON
//! snapshot (`tests/it/snapshots/it__provider_goldens__parsed@<fixture>.json.snap`).

use geo_core::model::EngineId;
use geo_core::provider::parse_engine_response;

#[test]
fn parsed() {
    insta::glob!("../../../../fixtures/responses", "*.json", |path| {
        let body = std::fs::read_to_string(path).expect("fixture readable");
        let result = match parse_engine_response(EngineId::Deepseek, &body, "deepseek-v4-flash") {
            Ok(parsed) => serde_json::to_value(parsed).expect("serialisable"),
            Err(error) => serde_json::json!({ "error": error }),
        };
        insta::assert_json_snapshot!(result);
    });
}
