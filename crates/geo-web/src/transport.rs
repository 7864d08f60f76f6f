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
//! header; with a custom base URL and no key (proxy mode) no key header is sent. No request
//! follows a redirect (`redirect: "manual"`: the browser stops at the 3xx, so the key never
//! travels to the address it names, and the opaque answer says that a redirect happened,
//! which `redirect: "error"` would hide behind the same `TypeError` as a refused
//! connection), and no reply is read past [`geo_core::limits::MAX_REPLY_BYTES`], as the
//! CLI does (security review II, findings 1 and 3). Every message and record is cleaned
//! by the endpoint's [`Redactor`](geo_core::safe::Redactor): its key and its base URL's
//! secret-looking query values.
//!
//! The settings page's key test ([`test_key`]) is the check of `geo-probe doctor`
//! (`geo_core::doctor`): one short question that needs a search, read like a probe.

use geo_core::doctor::{doctor_check, doctor_config, DoctorCheck, DOCTOR_PROMPT};
use geo_core::model::EngineId;
use geo_core::provider::local_proxy::EngineRoute;
use geo_core::provider::{self, Caller, Endpoint};
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
    /// The server answered with a redirect, which was not followed.
    Redirected,
    /// The reply was longer than [`geo_core::limits::MAX_REPLY_BYTES`] and was not read.
    TooLarge,
}

/// Maps a fetch result of a request to `endpoint` to the runner's outcome; `None` for a
/// request the user aborted. The endpoint's header values (the key) are removed from every
/// error message (a provider error body or the browser's own words may echo the key).
pub fn outcome_of(
    endpoint: &Endpoint,
    result: Result<HttpReply, FetchFailure>,
    timeout_ms: u64,
) -> Option<AttemptOutcome> {
    let redactor = geo_core::safe::Redactor::for_endpoint(endpoint);
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
            Some(endpoint.outcome(&provider::EngineReply {
                status: reply.status,
                headers: &headers,
                body: &reply.body,
            }))
        }
        Err(FetchFailure::Timeout) => Some(Err(provider::timeout_error(timeout_ms))),
        Err(FetchFailure::Network(detail)) => Some(Err(endpoint.network_error(&detail))),
        Err(FetchFailure::Redirected) => Some(Err(provider::redirect_error(None, None))),
        Err(FetchFailure::TooLarge) => Some(Err(provider::reply_too_large_error(geo_core::limits::MAX_REPLY_BYTES))),
        Err(FetchFailure::Aborted) => None,
    }
}

mod fetch {
    use super::{FetchFailure, HttpReply};
    use std::cell::Cell;
    use std::rc::Rc;
    use wasm_bindgen::{JsCast, JsValue};
    use wasm_bindgen_futures::JsFuture;
    use web_sys::{
        AbortController, Headers, ReadableStreamDefaultReader, Request, RequestInit, RequestRedirect, Response,
        ResponseType,
    };

    /// Whether `response` is the opaque answer of a redirect that was not followed.
    pub fn is_redirect(response: &Response) -> bool {
        response.type_() == ResponseType::Opaqueredirect
    }

    /// The body of `response` as text, at most `limit` bytes of it: `None` (the rest
    /// cancelled, never read) when it is longer. A declared `content-length` over the limit
    /// is refused before reading.
    pub async fn capped_text(response: &Response, limit: usize) -> Result<Option<String>, JsValue> {
        let declared = response.headers().get("content-length").ok().flatten();
        if declared.and_then(|v| v.trim().parse::<u64>().ok()).is_some_and(|n| n > limit as u64) {
            return Ok(None);
        }
        let Some(body) = response.body() else { return Ok(Some(String::new())) };
        let reader: ReadableStreamDefaultReader = body.get_reader().dyn_into()?;
        let mut bytes: Vec<u8> = Vec::new();
        loop {
            let chunk = JsFuture::from(reader.read()).await?;
            if js_sys::Reflect::get(&chunk, &"done".into())?.as_bool().unwrap_or(true) {
                break;
            }
            let part = js_sys::Uint8Array::new(&js_sys::Reflect::get(&chunk, &"value".into())?);
            if bytes.len() + part.length() as usize > limit {
                let _ = reader.cancel();
                return Ok(None);
            }
            bytes.extend(part.to_vec());
        }
        // As `Response.text()` decodes: UTF-8, a leading byte-order mark dropped.
        let text = String::from_utf8_lossy(&bytes);
        Ok(Some(text.strip_prefix('\u{feff}').unwrap_or(&text).to_string()))
    }

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
        // Never follow a redirect: the key would go to the address it names.
        init.set_redirect(RequestRedirect::Manual);
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
            if is_redirect(&response) {
                return Ok(Err(FetchFailure::Redirected));
            }
            let status = response.status();
            let headers = geo_core::provider::INTERPRETED_HEADERS
                .iter()
                .filter_map(|&name| Some((name, response.headers().get(name).ok().flatten()?)))
                .collect();
            let Some(body) = capped_text(&response, geo_core::limits::MAX_REPLY_BYTES).await? else {
                return Ok(Err(FetchFailure::TooLarge));
            };
            Ok::<_, JsValue>(Ok(HttpReply { status, headers, body }))
        }
        .await;
        done.set(true);
        match result {
            Ok(reply) => reply,
            Err(_) if timed_out.get() => Err(FetchFailure::Timeout),
            Err(_) if controller.signal().aborted() => Err(FetchFailure::Aborted),
            Err(e) => Err(FetchFailure::Network(js_text(&e))),
        }
    }
}

pub use fetch::{capped_text, is_redirect, post};

/// How long the settings page's check may take: a search and an answer.
const CHECK_TIMEOUT_MS: u64 = 120_000;

/// Sends the settings page's key test of `engine`: the check of `geo-probe doctor`
/// (`geo_core::doctor`: one short question that needs a web search, with the engine's run
/// request) the way `route` says (its key, its base URL or the local proxy), and what it
/// found (key accepted, searched, sources …). Every message is free of the key and the token.
pub async fn test_key(engine: EngineId, route: &EngineRoute) -> DoctorCheck {
    let config = doctor_config(engine, "");
    let endpoint = Endpoint::for_route(&config, route, Caller::Browser);
    let body = endpoint.body(DOCTOR_PROMPT, &config);
    let outcome = match web_sys::AbortController::new() {
        Ok(controller) => {
            let started = js_sys::Date::now();
            let result = post(&endpoint.url, &endpoint.headers, &body, CHECK_TIMEOUT_MS, &controller).await;
            let latency = (js_sys::Date::now() - started).max(0.0) as u64;
            let outcome = outcome_of(&endpoint, result, CHECK_TIMEOUT_MS)
                .unwrap_or_else(|| Err(provider::network_error("the check was aborted")));
            (outcome, latency)
        }
        Err(_) => (Err(provider::network_error("abortcontroller is not available")), 0),
    };
    doctor_check(engine, &endpoint.model, &outcome.0, outcome.1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use geo_core::model::{ErrorKind, RunConfig};

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
        check(reply(500, "oops"), Some(Err(provider::map_engine_http_error(EngineId::Deepseek, 500, "oops").kind)));
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

    /// The settings page's check reads a reply like `geo-probe doctor`: the verdict, whether
    /// a search ran and the sources, from the same outcome mapping as a probe's.
    #[test]
    fn key_checks() {
        let reply = |status, body: &str| Ok(HttpReply { status, headers: vec![], body: body.into() });
        let check = |engine: EngineId, result| {
            let config = doctor_config(engine, "");
            let endpoint = Endpoint::new(&config, None, Some("k"), Caller::Browser);
            let outcome = outcome_of(&endpoint, result, 1).unwrap();
            doctor_check(engine, &endpoint.model, &outcome, 5)
        };
        let bad = check(EngineId::Deepseek, reply(401, "{}"));
        assert_eq!((bad.verdict, bad.key_accepted), (provider::KeyVerdict::InvalidKey, false));
        let gone = check(EngineId::Deepseek, Err(FetchFailure::Network("x".into())));
        assert!(matches!(gone.verdict, provider::KeyVerdict::Unreachable(_)));
        let no_search =
            check(EngineId::Deepseek, reply(200, r#"{"type":"message","content":[{"type":"text","text":"hi"}]}"#));
        assert!(no_search.key_accepted && !no_search.searched && !no_search.ok);
        let searched = r#"{"type":"message","content":[{"type":"server_tool_use","id":"s","name":"web_search","input":{"query":"q"}},
            {"type":"web_search_tool_result","tool_use_id":"s","content":[{"type":"web_search_result","url":"https://a.example","title":"A"}]},
            {"type":"text","text":"hi"}]}"#;
        let ok = check(EngineId::Deepseek, reply(200, searched));
        assert!(ok.ok && ok.searched && ok.source_count == 1, "{ok:?}");
        let bad_key = r#"{"error":{"code":400,"status":"INVALID_ARGUMENT","details":[{"reason":"API_KEY_INVALID"}]}}"#;
        assert_eq!(check(EngineId::Gemini, reply(400, bad_key)).verdict, provider::KeyVerdict::InvalidKey);
    }
}
