//! Error mapping over every recorded error body in `fixtures/errors/` (`<status>_<name>.<ext>`),
//! and the key-test verdict for the same bodies.

use geo_core::model::{EngineId, ErrorKind, Localized, ProbeError};
use geo_core::provider::{describe_engine_error, interpret_engine_key_test, map_engine_http_error, KeyVerdict};
use geo_core::runner::is_retryable;

/// The recorded bodies are DeepSeek's and Anthropic's; they are read as the seed's engine's.
fn map_http_error(status: u16, body: &str) -> ProbeError {
    map_engine_http_error(EngineId::Deepseek, status, body)
}

fn describe_error(err: &ProbeError) -> Localized {
    describe_engine_error(EngineId::Deepseek, err)
}

/// (file, kind, substring of the message, retried?)
const EXPECT: &[(&str, ErrorKind, &str, bool)] = &[
    ("200_error_event_overloaded.json", ErrorKind::Server, "overloaded_error: Overloaded", true),
    ("400_credit_balance.json", ErrorKind::Balance, "credit balance is too low", false),
    ("400_deepseek_deserialize.json", ErrorKind::Http, "unknown variant `system`", false),
    ("400_deepseek_model_not_exist.json", ErrorKind::Http, "Model Not Exist", false),
    ("401_anthropic_auth.json", ErrorKind::Auth, "invalid x-api-key", false),
    ("401_deepseek_auth.json", ErrorKind::Auth, "Authentication Fails", false),
    ("402_deepseek_insufficient_balance.json", ErrorKind::Balance, "Insufficient Balance", false),
    ("403_anthropic_permission.json", ErrorKind::Forbidden, "does not have permission", false),
    ("404_anthropic_not_found.json", ErrorKind::Http, "could not be found", false),
    ("422_deepseek_plain_text.txt", ErrorKind::Http, "missing field `messages`", false),
    ("429_anthropic_rate_limit.json", ErrorKind::RateLimit, "hit a rate limit", true),
    ("429_rate_limit.json", ErrorKind::RateLimit, "exceeds your concurrency limit", true),
    ("500_anthropic_api_error.json", ErrorKind::Server, "api_error", true),
    ("500_server.txt", ErrorKind::Server, "Internal Server Error", true),
    ("503_deepseek_server_overloaded.json", ErrorKind::Server, "Server Overloaded", true),
    ("529_overloaded.json", ErrorKind::Server, "Overloaded", true),
];

fn error_files() -> Vec<(String, String)> {
    crate::support::fixture_files("errors", "")
}

fn status_of(file: &str) -> u16 {
    file.split('_').next().and_then(|s| s.parse().ok()).unwrap_or_else(|| panic!("{file}: name starts with the status"))
}

#[test]
fn every_recorded_error_body_maps_to_its_kind() {
    let files = error_files();
    let names: Vec<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
    let expected: Vec<&str> = EXPECT.iter().map(|e| e.0).collect();
    assert_eq!(names, expected, "every error fixture has exactly one expectation");
    for ((file, body), (_, kind, needle, retried)) in files.iter().zip(EXPECT) {
        let status = status_of(file);
        let err = map_http_error(status, body);
        assert_eq!(err.kind, *kind, "{file}");
        assert_eq!(err.http_status, Some(status), "{file}");
        assert!(err.message.contains(needle), "{file}: {:?} lacks {needle:?}", err.message);
        assert!(err.message.contains(&format!("http {status}")), "{file}: {}", err.message);
        assert!(!err.message.ends_with('.') && !err.message.ends_with('\n'), "{file}: {}", err.message);
        assert_eq!(is_retryable(err.kind), *retried, "{file}");
        let ui = describe_error(&err);
        assert!(
            ui.zh.contains(&format!("HTTP {status}")) && ui.en.contains(&format!("http {status}")),
            "{file}: {ui:?}"
        );
    }
}

#[test]
fn balance_bodies_are_described_as_insufficient_balance() {
    for (file, body) in error_files().iter().filter(|(f, _)| f.contains("balance")) {
        let ui = describe_error(&map_http_error(status_of(file), body));
        assert!(ui.zh.contains("余额不足") && ui.zh.contains("充值"), "{file}: {}", ui.zh);
        assert!(ui.en.contains("insufficient balance") && ui.en.contains("top up"), "{file}: {}", ui.en);
    }
}

#[test]
fn key_test_verdicts_for_the_recorded_bodies() {
    for (file, body) in error_files() {
        let status = status_of(&file);
        let verdict = interpret_engine_key_test(EngineId::Deepseek, status, &body);
        let expect = match map_http_error(status, &body).kind {
            ErrorKind::Auth => KeyVerdict::InvalidKey,
            ErrorKind::Balance => KeyVerdict::NoBalance,
            ErrorKind::Forbidden => KeyVerdict::Forbidden,
            ErrorKind::RateLimit => KeyVerdict::RateLimited,
            _ => {
                assert!(matches!(verdict, KeyVerdict::Other(_)), "{file}: {verdict:?}");
                continue;
            }
        };
        assert_eq!(verdict, expect, "{file}");
    }
}
