//! The browser transport: one `fetch` POST per attempt, with an `AbortController` that both
//! the request timeout and the user's cancel use, mapped into the runner's
//! [`AttemptOutcome`] with `geo_core::provider`'s pure functions.
//!
//! Mapping (seed §3.4, the same as the CLI's native transport): no HTTP response → `network`,
//! whose message says that the engine may not allow browser calls (CORS) and that a proxy
//! base URL is the way round; the per-request deadline passed → `timeout` (the controller is
//! aborted); any reply → [`Endpoint::outcome`], that is [`provider::interpret`] with the
//! engine's wire format (geo-core's one mapping of status, headers and body). A request
//! aborted by the user (cancel) has no outcome at all: the engine drops it.
//!
//! The API key comes only from Web Storage (`prefs`) and travels only in the engine's auth
//! header; with a custom base URL and no key (proxy mode) no key header is sent.

use geo_core::model::{EngineId, RunConfig};
use geo_core::provider::{self, Caller, Endpoint, KeyVerdict};
use geo_core::runner::AttemptOutcome;

/// A complete HTTP reply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpReply {
    /// HTTP status.
    pub status: u16,
    /// The headers geo-core reads ([`provider::INTERPRETED_HEADERS`]) that the reply had.
    pub headers: Vec<(&'static str, String)>,
    /// The body as text.
    pub body: String,
}

/// Why no reply arrived.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FetchFailure {
    /// The request timeout aborted it.
    Timeout,
    /// Someone else aborted it (the user cancelled the run).
    Aborted,
    /// The browser reported a network failure (CORS, DNS, refused …), with its words.
    Network(String),
}

/// Maps a fetch result of a request to `endpoint` to the runner's outcome; `None` for a
/// request the user aborted. The endpoint's header values (the key) are removed from every
/// error message (a provider error body or the browser's own words may echo the key).
pub fn outcome_of(
    endpoint: &Endpoint,
    result: Result<HttpReply, FetchFailure>,
    timeout_ms: u64,
) -> Option<AttemptOutcome> {
    let redactor = geo_core::safe::Redactor::for_headers(&endpoint.headers);
    outcome_unredacted(endpoint, result, timeout_ms).map(|o| o.map_err(|e| redactor.redact_error(e)))
}

fn outcome_unredacted(
    endpoint: &Endpoint,
    result: Result<HttpReply, FetchFailure>,
    timeout_ms: u64,
) -> Option<AttemptOutcome> {
    match result {
        Ok(reply) => {
            let headers: Vec<(&str, &str)> = reply.headers.iter().map(|(n, v)| (*n, v.as_str())).collect();
            Some(endpoint.outcome(&provider::Reply { status: reply.status, headers: &headers, body: &reply.body }))
        }
        Err(FetchFailure::Timeout) => Some(Err(provider::timeout_error(timeout_ms))),
        Err(FetchFailure::Network(detail)) => Some(Err(endpoint.network_error(&detail))),
        Err(FetchFailure::Aborted) => None,
    }
}

/// The key test's verdict for `engine` from a fetch result (status 0 = no response, as
/// [`provider::interpret_engine_key_test`] expects).
pub fn key_verdict_of(engine: EngineId, result: Result<HttpReply, FetchFailure>) -> KeyVerdict {
    let verdict = |status, body: &str| provider::interpret_engine_key_test(engine, status, body);
    match result {
        Ok(reply) => verdict(reply.status, &reply.body),
        Err(FetchFailure::Timeout) => verdict(0, "the request timed out"),
        Err(FetchFailure::Aborted) => verdict(0, "the request was aborted"),
        Err(FetchFailure::Network(detail)) => verdict(0, &detail),
    }
}

mod fetch {
    use super::{FetchFailure, HttpReply};
    use std::cell::Cell;
    use std::rc::Rc;
    use wasm_bindgen::{JsCast, JsValue};
    use wasm_bindgen_futures::JsFuture;
    use web_sys::{AbortController, Headers, Request, RequestInit, Response};

    fn js_text(v: &JsValue) -> String {
        v.as_string()
            .or_else(|| js_sys::Reflect::get(v, &"message".into()).ok().and_then(|m| m.as_string()))
            .unwrap_or_else(|| "fetch failed".to_string())
    }

    /// POSTs `body` (the exact JSON string) to `url` with `headers`; aborts after
    /// `timeout_ms`, or when `controller` is aborted by the caller.
    pub async fn post(
        url: &str,
        headers: &[(&str, String)],
        body: &str,
        timeout_ms: u64,
        controller: &AbortController,
    ) -> Result<HttpReply, FetchFailure> {
        // The browser's words, without any header's secret value (Firefox quotes a refused
        // header value in its TypeError).
        let redactor = geo_core::safe::Redactor::for_headers(headers);
        let js_text = |v: &JsValue| redactor.redact(&js_text(v)).into_owned();
        let network = |v: JsValue| FetchFailure::Network(js_text(&v));
        let window = web_sys::window().ok_or_else(|| FetchFailure::Network("no window".into()))?;
        let h = Headers::new().map_err(network)?;
        for (name, value) in headers {
            // Never the browser's text here: it may hold the value.
            h.set(name, value).map_err(|_| {
                FetchFailure::Network(format!("the browser refused the {name} header; check the api key"))
            })?;
        }
        let init = RequestInit::new();
        init.set_method("POST");
        init.set_headers(&h);
        init.set_body(&JsValue::from_str(body));
        init.set_signal(Some(&controller.signal()));
        let request = Request::new_with_str_and_init(url, &init).map_err(network)?;
        let done = Rc::new(Cell::new(false));
        let timed_out = Rc::new(Cell::new(false));
        {
            let (done, timed_out, controller) = (done.clone(), timed_out.clone(), controller.clone());
            wasm_bindgen_futures::spawn_local(async move {
                yew::platform::time::sleep(std::time::Duration::from_millis(timeout_ms)).await;
                if !done.get() {
                    timed_out.set(true);
                    controller.abort();
                }
            });
        }
        let result = async {
            let response = JsFuture::from(window.fetch_with_request(&request)).await?;
            let response: Response = response.dyn_into()?;
            let status = response.status();
            let headers = geo_core::provider::INTERPRETED_HEADERS
                .iter()
                .filter_map(|&name| Some((name, response.headers().get(name).ok().flatten()?)))
                .collect();
            let text = JsFuture::from(response.text()?).await?;
            Ok::<_, JsValue>(HttpReply { status, headers, body: text.as_string().unwrap_or_default() })
        }
        .await;
        done.set(true);
        match result {
            Ok(reply) => Ok(reply),
            Err(_) if timed_out.get() => Err(FetchFailure::Timeout),
            Err(_) if controller.signal().aborted() => Err(FetchFailure::Aborted),
            Err(e) => Err(FetchFailure::Network(js_text(&e))),
        }
    }
}

pub use fetch::post;

/// Sends the settings page's key test of `engine`: its smallest request without tools
/// (`build_engine_key_test_body`) to its endpoint for `base` with `key`, with a 30 s timeout.
pub async fn test_key(engine: EngineId, base: Option<&str>, key: Option<&str>) -> KeyVerdict {
    let config = RunConfig { engine, model: String::new(), ..RunConfig::default() };
    let endpoint = Endpoint::new(&config, base, key, Caller::Browser);
    let body = provider::build_engine_key_test_body(engine, &endpoint.model);
    let controller = match web_sys::AbortController::new() {
        Ok(c) => c,
        Err(_) => return key_verdict_of(engine, Err(FetchFailure::Network("abortcontroller is not available".into()))),
    };
    let redactor = geo_core::safe::Redactor::for_headers(&endpoint.headers);
    let result = post(&endpoint.url, &endpoint.headers, &body, 30_000, &controller).await;
    let result = match result {
        Ok(mut reply) => {
            reply.body = redactor.redact(&reply.body).into_owned();
            Ok(reply)
        }
        Err(FetchFailure::Network(detail)) => Err(FetchFailure::Network(redactor.redact(&detail).into_owned())),
        Err(other) => Err(other),
    };
    key_verdict_of(engine, result)
}

#[cfg(test)]
mod tests {
    use super::*;
    use geo_core::model::ErrorKind;

    fn deepseek() -> Endpoint {
        Endpoint::new(&RunConfig::default(), None, Some("k"), Caller::Browser)
    }

    #[track_caller]
    fn check(result: Result<HttpReply, FetchFailure>, expect: Option<Result<(), ErrorKind>>) {
        let got = outcome_of(&deepseek(), result, 180_000).map(|o| o.map(|_| ()).map_err(|e| e.kind));
        assert_eq!(got, expect);
    }

    #[test]
    fn fetch_results_map_to_outcomes() {
        let reply = |status, body: &str| Ok(HttpReply { status, headers: vec![], body: body.to_string() });
        check(Err(FetchFailure::Timeout), Some(Err(ErrorKind::Timeout)));
        check(Err(FetchFailure::Network("failed to fetch".into())), Some(Err(ErrorKind::Network)));
        check(Err(FetchFailure::Aborted), None);
        check(
            reply(401, r#"{"type":"error","error":{"type":"authentication_error","message":"bad key"}}"#),
            Some(Err(ErrorKind::Auth)),
        );
        check(reply(429, "{}"), Some(Err(ErrorKind::RateLimit)));
        check(reply(500, "oops"), Some(Err(provider::map_http_error(500, "oops").kind)));
        let html =
            Ok(HttpReply { status: 200, headers: vec![("content-type", "text/html".into())], body: "<p>".into() });
        check(html, Some(Err(ErrorKind::InvalidJson)));
        check(
            reply(
                200,
                r#"{"id":"m1","type":"message","model":"deepseek-v4-flash","content":[{"type":"text","text":"hi"}],"stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":1}}"#,
            ),
            Some(Ok(())),
        );
    }

    /// Finding 1: a provider error body or a browser message that echoes the key loses it,
    /// for every engine.
    #[test]
    fn error_messages_never_carry_the_key() {
        let secret = "sk-web-secret-123";
        let body = format!(r#"{{"type":"error","error":{{"type":"api_error","message":"bad key {secret}"}}}}"#);
        for engine in EngineId::ALL {
            let config = RunConfig { engine, ..RunConfig::default() };
            let endpoint = Endpoint::new(&config, None, Some(secret), Caller::Browser);
            let reply = Ok(HttpReply { status: 500, headers: vec![], body: body.clone() });
            let e = outcome_of(&endpoint, reply, 1000).unwrap().unwrap_err();
            assert!(!e.message.contains(secret), "{engine}: {}", e.message);
            let browser = Err(FetchFailure::Network(format!("Headers.set: '{secret}' is an invalid header value")));
            let e = outcome_of(&endpoint, browser, 1000).unwrap().unwrap_err();
            assert!(!e.message.contains(secret) && e.message.contains("[redacted]"), "{engine}: {}", e.message);
        }
        let e = outcome_of(
            &Endpoint::new(&RunConfig::default(), None, Some(secret), Caller::Browser),
            Ok(HttpReply { status: 500, headers: vec![], body }),
            1000,
        )
        .unwrap()
        .unwrap_err();
        assert!(e.message.contains("[redacted]"), "{}", e.message);
    }

    #[test]
    fn a_blocked_browser_request_points_to_the_proxy_base_url() {
        for engine in EngineId::ALL {
            let config = RunConfig { engine, ..RunConfig::default() };
            let endpoint = Endpoint::new(&config, None, Some("k"), Caller::Browser);
            let Some(Err(e)) = outcome_of(&endpoint, Err(FetchFailure::Network("Failed to fetch".into())), 1) else {
                panic!("a network error")
            };
            assert_eq!(e.kind, ErrorKind::Network);
            assert!(e.message.contains("proxy base url") && e.message.contains("cors"), "{}", e.message);
        }
        let gemini = Endpoint::new(
            &RunConfig { engine: EngineId::Gemini, ..RunConfig::default() },
            None,
            Some("k"),
            Caller::Browser,
        );
        let bad_key = r#"{"error":{"code":400,"message":"API key not valid.","status":"INVALID_ARGUMENT","details":[{"reason":"API_KEY_INVALID"}]}}"#;
        let got = outcome_of(&gemini, Ok(HttpReply { status: 400, headers: vec![], body: bad_key.into() }), 1);
        assert_eq!(got.map(|o| o.map(|_| ()).map_err(|e| e.kind)), Some(Err(ErrorKind::Auth)));
    }

    #[test]
    fn key_verdicts() {
        let d = EngineId::Deepseek;
        let reply = |status, body: &str| Ok(HttpReply { status, headers: vec![], body: body.into() });
        assert_eq!(key_verdict_of(d, reply(401, "{}")), KeyVerdict::InvalidKey);
        assert!(matches!(key_verdict_of(d, Err(FetchFailure::Network("x".into()))), KeyVerdict::Unreachable(_)));
        assert!(key_verdict_of(d, reply(200, r#"{"type":"message","content":[]}"#)).is_valid());
        let bad = r#"{"error":{"code":400,"status":"INVALID_ARGUMENT","details":[{"reason":"API_KEY_INVALID"}]}}"#;
        assert_eq!(key_verdict_of(EngineId::Gemini, reply(400, bad)), KeyVerdict::InvalidKey);
    }
}
