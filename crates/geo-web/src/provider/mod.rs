//! The browser transport: one `fetch` POST per attempt, with an `AbortController` that both
//! the request timeout and the user's cancel use, mapped into the runner's
//! [`AttemptOutcome`] with `geo_core::provider`'s pure functions.
//!
//! Mapping (seed §3.4, the same as the CLI's native transport): no HTTP response → `network`;
//! the per-request deadline passed → `timeout` (the controller is aborted); any reply →
//! [`provider::interpret`] (geo-core's one mapping of status, headers and body).
//! A request aborted by the user (cancel) has no outcome at all: the engine drops it.
//!
//! The API key comes only from Web Storage (`prefs`) and travels only in the `x-api-key`
//! header; with a custom base URL and no key (proxy mode) no key header is sent.

use geo_core::model::ProbeError;
use geo_core::provider::{self, KeyVerdict};
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

/// Maps a fetch result to the runner's outcome; `None` for a request the user aborted.
/// `model` is the requested model (used when the response names none).
pub fn outcome_of(result: Result<HttpReply, FetchFailure>, timeout_ms: u64, model: &str) -> Option<AttemptOutcome> {
    match result {
        Ok(reply) => {
            let headers: Vec<(&str, &str)> = reply.headers.iter().map(|(n, v)| (*n, v.as_str())).collect();
            let reply = provider::Reply { status: reply.status, headers: &headers, body: &reply.body };
            Some(provider::interpret(&reply, &provider::Interpret::messages(model)))
        }
        Err(FetchFailure::Timeout) => Some(Err(provider::timeout_error(timeout_ms))),
        Err(FetchFailure::Network(detail)) => Some(Err(network(&detail))),
        Err(FetchFailure::Aborted) => None,
    }
}

fn network(detail: &str) -> ProbeError {
    provider::network_error(detail)
}

/// The key test's verdict from a fetch result (status 0 = no response, as
/// [`provider::interpret_key_test`] expects).
pub fn key_verdict_of(result: Result<HttpReply, FetchFailure>) -> KeyVerdict {
    match result {
        Ok(reply) => provider::interpret_key_test(reply.status, &reply.body),
        Err(FetchFailure::Timeout) => provider::interpret_key_test(0, "the request timed out"),
        Err(FetchFailure::Aborted) => provider::interpret_key_test(0, "the request was aborted"),
        Err(FetchFailure::Network(detail)) => provider::interpret_key_test(0, &detail),
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
        let network = |v: JsValue| FetchFailure::Network(js_text(&v));
        let window = web_sys::window().ok_or_else(|| FetchFailure::Network("no window".into()))?;
        let h = Headers::new().map_err(network)?;
        for (name, value) in headers {
            h.set(name, value).map_err(network)?;
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

/// Sends the settings page's key test: `build_key_test_body(model)` to
/// `build_messages_url(base)` with `key`, with a 30 s timeout.
pub async fn test_key(base: Option<&str>, key: Option<&str>, model: &str) -> KeyVerdict {
    let url = provider::build_messages_url(base);
    let headers = provider::request_headers(key);
    let body = provider::build_key_test_body(model).to_string();
    let controller = match web_sys::AbortController::new() {
        Ok(c) => c,
        Err(_) => return key_verdict_of(Err(FetchFailure::Network("abortcontroller is not available".into()))),
    };
    key_verdict_of(post(&url, &headers, &body, 30_000, &controller).await)
}

#[cfg(test)]
mod tests {
    use super::*;
    use geo_core::model::ErrorKind;

    #[track_caller]
    fn check(result: Result<HttpReply, FetchFailure>, expect: Option<Result<(), ErrorKind>>) {
        let got = outcome_of(result, 180_000, "deepseek-v4-flash").map(|o| o.map(|_| ()).map_err(|e| e.kind));
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

    #[test]
    fn key_verdicts() {
        assert_eq!(
            key_verdict_of(Ok(HttpReply { status: 401, headers: vec![], body: "{}".into() })),
            KeyVerdict::InvalidKey
        );
        assert!(matches!(key_verdict_of(Err(FetchFailure::Network("x".into()))), KeyVerdict::Unreachable(_)));
        assert!(key_verdict_of(Ok(HttpReply {
            status: 200,
            headers: vec![],
            body: r#"{"type":"message","content":[]}"#.into()
        }))
        .is_valid());
    }
}
