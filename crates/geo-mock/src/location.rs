//! What the real APIs do with a request's location (`shared/spec/engines.md`, "Where and how
//! an answer was measured"): OpenAI's and Anthropic's search tools take `user_location:
//! {"type":"approximate", country, region?, city?, timezone?}`, Doubao's tool the same without a
//! timezone, Perplexity `web_search_options.user_location: {country, region?, city?}` (and
//! coordinates); an engine without such a field knows no `user_location`. A location of the
//! wrong shape — an unknown key, a type other than `approximate`, a country that is not two
//! letters — is answered HTTP 400 naming the field, in the engine's own error shape, as a
//! strict API answers an unknown or invalid parameter. With `--reject-location E` the mock
//! answers every `user_location` of engine E that way (a model or region whose search takes no
//! location), so that the shells show it as the error it is.
//!
//! Written apart from geo-core on purpose, like the rest of the mock: it checks what GEO Probe
//! sends against the engines' documented keys, not against GEO Probe's own rule.

use serde_json::{json, Value};

use crate::engines::MockEngine;

/// Where an engine's request carries `user_location` (a JSON pointer to the object holding it,
/// per tool), the keys it takes and whether `type: approximate` is required; `None` for an
/// engine without the field.
fn field_of(engine: MockEngine) -> Option<(&'static [&'static str], bool)> {
    match engine {
        MockEngine::Openai | MockEngine::Anthropic => Some((&["type", "country", "region", "city", "timezone"], true)),
        MockEngine::Doubao => Some((&["type", "country", "region", "city"], true)),
        MockEngine::Perplexity => Some((&["country", "region", "city", "latitude", "longitude"], false)),
        _ => None,
    }
}

/// Every `user_location` of a request with its path as the engine names parameters
/// (`tools[0].user_location`, `web_search_options.user_location`, or where else one is).
pub fn user_locations(body: &Value) -> Vec<(String, &Value)> {
    let mut found = Vec::new();
    for (i, tool) in body.get("tools").and_then(Value::as_array).into_iter().flatten().enumerate() {
        if let Some(u) = tool.get("user_location") {
            found.push((format!("tools[{i}].user_location"), u));
        }
    }
    if let Some(u) = body.pointer("/web_search_options/user_location") {
        found.push(("web_search_options.user_location".to_string(), u));
    }
    if let Some(u) = body.get("user_location") {
        found.push(("user_location".to_string(), u));
    }
    found
}

/// What is wrong with the location `value` at `path` for `engine`, in words; `None` when the
/// engine takes it as it is.
fn problem(engine: MockEngine, path: &str, value: &Value) -> Option<String> {
    let Some((keys, typed)) = field_of(engine) else {
        return Some(format!("Unknown parameter: '{path}'."));
    };
    let expected_place = if engine == MockEngine::Perplexity {
        path == "web_search_options.user_location"
    } else {
        path.starts_with("tools[")
    };
    if !expected_place {
        return Some(format!("Unknown parameter: '{path}'."));
    }
    let Some(obj) = value.as_object() else {
        return Some(format!("Invalid type for '{path}': expected an object."));
    };
    if let Some(key) = obj.keys().find(|k| !keys.contains(&k.as_str())) {
        return Some(format!("Unknown parameter: '{path}.{key}'."));
    }
    if typed && obj.get("type").and_then(Value::as_str) != Some("approximate") {
        return Some(format!("Invalid value for '{path}.type': expected 'approximate'."));
    }
    // Ark's own example names the country in words (`"country": "中国"`); the others document
    // a two-letter ISO code. Every key is optional.
    match obj.get("country") {
        None => {}
        Some(Value::String(c)) if engine == MockEngine::Doubao && !c.trim().is_empty() => {}
        Some(Value::String(c)) if c.len() == 2 && c.bytes().all(|b| b.is_ascii_uppercase()) => {}
        _ => return Some(format!("Invalid value for '{path}.country': expected a two-letter ISO country code.")),
    }
    for key in ["region", "city", "timezone"] {
        match obj.get(key) {
            None => {}
            Some(Value::String(s)) if !s.trim().is_empty() => {}
            Some(_) => return Some(format!("Invalid value for '{path}.{key}': expected a non-empty string.")),
        }
    }
    let tz_ok = |tz: &str| tz == "UTC" || tz.split_once('/').is_some_and(|(a, p)| !a.is_empty() && !p.is_empty());
    match obj.get("timezone").and_then(Value::as_str) {
        Some(tz) if !tz_ok(tz) => Some(format!("Invalid value for '{path}.timezone': expected an IANA timezone.")),
        _ => None,
    }
}

/// The 400 a request gets for its location, as `(status, body)`: a `user_location` of the wrong
/// shape for `engine`, or any `user_location` when `reject` (the `--reject-location` mode);
/// `None` when the location (or its absence) is fine.
pub fn location_error(engine: MockEngine, body: &Value, reject: bool) -> Option<(u16, String)> {
    let (path, message) = user_locations(body).into_iter().find_map(|(path, value)| {
        let why = if reject {
            Some(format!("Unsupported parameter: '{path}' is not supported with this model or region."))
        } else {
            problem(engine, &path, value)
        };
        why.map(|w| (path, w))
    })?;
    Some((400, error_body(engine, &path, &message)))
}

/// A 400 naming `path` in `engine`'s error shape (its reference's envelope).
fn error_body(engine: MockEngine, path: &str, message: &str) -> String {
    match engine {
        MockEngine::Openai => json!({"error": {"message": message, "type": "invalid_request_error", "param": path,
            "code": "invalid_value"}}),
        MockEngine::Anthropic | MockEngine::Deepseek => json!({"type": "error", "error": {
            "type": "invalid_request_error", "message": format!("{path}: {message}")}, "request_id": "req_mock_location"}),
        MockEngine::Doubao => json!({"error": {"code": "InvalidParameter", "message":
            format!("The parameter `{path}` specified in the request are not valid: {message}"), "param": path,
            "type": "BadRequest"}}),
        MockEngine::Gemini => json!({"error": {"code": 400, "message": format!("Invalid JSON payload received. {message}"),
            "status": "INVALID_ARGUMENT"}}),
        MockEngine::Qwen => json!({"request_id": "mock-location", "code": "InvalidParameter", "message": message}),
        _ => json!({"error": {"message": message, "type": "invalid_request_error", "code": 400}}),
    }
    .to_string()
}

/// Parses `--reject-location E[,E…]` (engine ids, or `all`).
pub fn parse_engines(list: &str) -> Result<Vec<MockEngine>, String> {
    let mut engines = Vec::new();
    for name in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        if name == "all" {
            return Ok(MockEngine::ALL.to_vec());
        }
        let engine = MockEngine::ALL.into_iter().find(|e| e.name() == name).ok_or_else(|| {
            format!("--reject-location: unknown engine {name:?}; use engine ids such as openai,doubao or all")
        })?;
        engines.push(engine);
    }
    if engines.is_empty() {
        return Err("--reject-location needs an engine id, e.g. --reject-location openai".to_string());
    }
    Ok(engines)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn check(engine: MockEngine, body: Value, reject: bool, expect: Option<&str>) {
        let got = location_error(engine, &body, reject);
        match (got, expect) {
            (None, None) => {}
            (Some((400, text)), Some(needle)) => assert!(text.contains(needle), "{engine:?}: {text}"),
            (got, want) => panic!("{engine:?} {body}: got {got:?}, want {want:?}"),
        }
    }

    #[test]
    fn each_engine_takes_its_documented_keys() {
        use MockEngine::*;
        let full = json!({"type": "approximate", "country": "CN", "region": "Zhejiang", "city": "Hangzhou", "timezone": "Asia/Shanghai"});
        check(Openai, json!({"tools": [{"type": "web_search", "user_location": full}]}), false, None);
        check(Anthropic, json!({"tools": [{"type": "web_search_20250305", "user_location": full}]}), false, None);
        check(
            Doubao,
            json!({"tools": [{"type": "web_search", "user_location": full}]}),
            false,
            Some("tools[0].user_location.timezone"),
        );
        let no_tz = json!({"type": "approximate", "country": "CN", "city": "杭州"});
        check(Doubao, json!({"tools": [{"type": "web_search", "user_location": no_tz}]}), false, None);
        let words = json!({"type": "approximate", "country": "中国", "region": "浙江", "city": "杭州"});
        check(Doubao, json!({"tools": [{"type": "web_search", "user_location": words}]}), false, None);
        check(
            Perplexity,
            json!({"web_search_options": {"user_location": {"country": "CN", "region": "Zhejiang"}}}),
            false,
            None,
        );
        check(
            Perplexity,
            json!({"web_search_options": {"user_location": full}}),
            false,
            Some("Unknown parameter: 'web_search_options.user_location.t"),
        );
        check(
            Openai,
            json!({"tools": [{"type": "web_search", "user_location": {"country": "CN"}}]}),
            false,
            Some("'approximate'"),
        );
        check(
            Openai,
            json!({"tools": [{"type": "web_search", "user_location": {"type": "approximate", "country": "CHN"}}]}),
            false,
            Some("country"),
        );
        check(
            Openai,
            json!({"tools": [{"type": "web_search", "user_location": {"type": "approximate", "country": "CN", "timezone": "Beijing"}}]}),
            false,
            Some("IANA"),
        );
        check(
            Deepseek,
            json!({"tools": [{"type": "web_search_20250305", "user_location": full}]}),
            false,
            Some("Unknown parameter: 'tools[0].user_location'"),
        );
        check(Deepseek, json!({"system": "…\nUser location: Hangzhou, Zhejiang, CN (Asia/Shanghai)."}), false, None);
        check(Qwen, json!({"user_location": full}), false, Some("user_location"));
    }

    #[test]
    fn the_reject_mode_names_the_field_in_the_engines_shape() {
        use MockEngine::*;
        let loc = json!({"type": "approximate", "country": "CN"});
        let (status, body) =
            location_error(Openai, &json!({"tools": [{"type": "web_search", "user_location": loc}]}), true).unwrap();
        let v: Value = serde_json::from_str(&body).unwrap();
        assert_eq!((status, v["error"]["param"].as_str()), (400, Some("tools[0].user_location")));
        let (_, body) =
            location_error(Doubao, &json!({"tools": [{"type": "web_search", "user_location": loc}]}), true).unwrap();
        let v: Value = serde_json::from_str(&body).unwrap();
        assert_eq!(v["error"]["code"], "InvalidParameter");
        assert!(v["error"]["message"].as_str().unwrap().contains("`tools[0].user_location`"));
        let (_, body) = location_error(Anthropic, &json!({"tools": [{"user_location": loc}]}), true).unwrap();
        assert!(body.contains("\"type\":\"invalid_request_error\"") && body.contains("tools[0].user_location"));
        // Without a location there is nothing to reject.
        assert!(location_error(Openai, &json!({"tools": [{"type": "web_search"}]}), true).is_none());
        assert_eq!(parse_engines("openai, doubao").unwrap(), [Openai, Doubao]);
        assert_eq!(parse_engines("all").unwrap().len(), 9);
        assert!(parse_engines("bing").is_err() && parse_engines("").is_err());
    }
}
