//! One streamed `chat/completions` request in the browser: `fetch` with an
//! `AbortController`, the body read through a `ReadableStream` reader, every chunk of bytes
//! fed into geo-core's [`ChatStream`] (which buffers split UTF-8 and unfinished SSE lines),
//! and the transport's end — body finished, stop, time limit, network failure — handed to
//! [`ChatStream::finish`], which alone decides the answer's state.

use geo_core::chat::{http_error_state, ChatDelta, ChatOutcome, ChatStream, StreamEnd};
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

/// The seed's limit for one answer: 120 s from sending to the last byte.
pub const CHAT_TIMEOUT_MS: u32 = 120_000;

/// What one request needs. Its `Debug` shows the key as `[redacted]`.
#[derive(Clone, PartialEq, Eq)]
pub struct ChatRequest {
    /// The endpoint (`geo_core::chat::chat_url`).
    pub url: String,
    /// The API key, sent as `Authorization: Bearer …` when present.
    pub key: Option<String>,
    /// `geo-probe proxy`'s token, sent in its header when the chat goes through the local
    /// proxy (which adds the key).
    pub proxy_token: Option<String>,
    /// The JSON body (`geo_core::chat::build_request_body`).
    pub body: String,
    /// The time limit in milliseconds.
    pub timeout_ms: u32,
}

impl std::fmt::Debug for ChatRequest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ChatRequest")
            .field("url", &self.url)
            .field("key", &self.key.as_ref().map(|_| geo_core::safe::REDACTED))
            .field("proxy_token", &self.proxy_token.as_ref().map(|_| geo_core::safe::REDACTED))
            .field("body", &self.body)
            .field("timeout_ms", &self.timeout_ms)
            .finish()
    }
}

/// The handle of a running request: [`StreamHandle::stop`] aborts it as cancelled; the
/// timer aborts it as timed out. Whichever comes first names the end.
#[derive(Clone)]
pub struct StreamHandle {
    controller: Option<web_sys::AbortController>,
    reason: Rc<RefCell<Option<StreamEnd>>>,
}

impl PartialEq for StreamHandle {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.reason, &other.reason)
    }
}

impl StreamHandle {
    /// A handle with a fresh `AbortController` (none outside a browser).
    pub fn new() -> Self {
        StreamHandle { controller: web_sys::AbortController::new().ok(), reason: Rc::new(RefCell::new(None)) }
    }

    /// Aborts the request because of `why`, unless it already ended for another reason.
    fn abort(&self, why: StreamEnd) {
        if self.reason.borrow().is_some() {
            return;
        }
        *self.reason.borrow_mut() = Some(why);
        if let Some(c) = &self.controller {
            c.abort();
        }
    }

    /// The user's stop: aborts the request; the answer ends `cancelled`.
    pub fn stop(&self) {
        self.abort(StreamEnd::Cancelled);
    }

    /// Why the request was aborted, if it was.
    fn aborted(&self) -> Option<StreamEnd> {
        self.reason.borrow().clone()
    }
}

impl Default for StreamHandle {
    fn default() -> Self {
        Self::new()
    }
}

/// A message from a rejected JS promise.
fn js_message(e: &JsValue) -> String {
    e.dyn_ref::<js_sys::Error>()
        .map(|e| String::from(e.message()))
        .or_else(|| e.as_string())
        .unwrap_or_else(|| "the network request failed".to_string())
}

/// Sends `req` and streams the answer, calling `on_text` with the whole answer so far after
/// every increment; returns the final outcome (never `Streaming`).
pub async fn stream_chat(req: ChatRequest, handle: StreamHandle, mut on_text: impl FnMut(&str)) -> ChatOutcome {
    let mut stream = ChatStream::new();
    let Some(window) = web_sys::window() else {
        return stream.finish(StreamEnd::NetworkError("no browser window".into()));
    };
    let timer = {
        let handle = handle.clone();
        Closure::<dyn FnMut()>::new(move || handle.abort(StreamEnd::Timeout))
    };
    let timer_id = window
        .set_timeout_with_callback_and_timeout_and_arguments_0(timer.as_ref().unchecked_ref(), req.timeout_ms as i32)
        .ok();
    let end = transfer(&window, &req, &handle, &mut stream, &mut on_text).await;
    // The browser's words and a provider's error body never carry the key.
    let mut redactor = geo_core::safe::Redactor::new();
    for secret in [&req.key, &req.proxy_token].into_iter().flatten() {
        redactor.add(secret);
    }
    let end = match end {
        Transfer::Ended(StreamEnd::NetworkError(m)) => {
            Transfer::Ended(StreamEnd::NetworkError(redactor.redact(&m).into_owned()))
        }
        Transfer::Http(status, body) => Transfer::Http(status, redactor.redact(&body).into_owned()),
        other => other,
    };
    if let Some(id) = timer_id {
        window.clear_timeout_with_handle(id);
    }
    drop(timer);
    match end {
        Transfer::Ended(how) => stream.finish(how),
        Transfer::Http(status, body) => {
            let mut outcome = stream.finish(StreamEnd::Eof);
            outcome.state = http_error_state(status, &body);
            outcome
        }
    }
}

/// How the transfer ended.
enum Transfer {
    /// The body ended, or the request was aborted or failed.
    Ended(StreamEnd),
    /// A non-2xx response, with its status and body text.
    Http(u16, String),
}

async fn transfer(
    window: &web_sys::Window,
    req: &ChatRequest,
    handle: &StreamHandle,
    stream: &mut ChatStream,
    on_text: &mut impl FnMut(&str),
) -> Transfer {
    let failed =
        |e: JsValue| Transfer::Ended(handle.aborted().unwrap_or_else(|| StreamEnd::NetworkError(js_message(&e))));
    let init = web_sys::RequestInit::new();
    init.set_method("POST");
    init.set_body(&JsValue::from_str(&req.body));
    let headers = match web_sys::Headers::new() {
        Ok(h) => h,
        Err(e) => return failed(e),
    };
    let _ = headers.set("content-type", "application/json");
    let _ = headers.set("accept", "text/event-stream");
    if let Some(key) = req.key.as_deref().map(str::trim).filter(|k| !k.is_empty()) {
        let _ = headers.set("authorization", &format!("Bearer {key}"));
    }
    if let Some(token) = &req.proxy_token {
        let _ = headers.set(geo_core::provider::local_proxy::TOKEN_HEADER, token);
    }
    init.set_headers(&headers);
    if let Some(c) = &handle.controller {
        init.set_signal(Some(&c.signal()));
    }
    // The key never follows a redirect (security review II, finding 3).
    init.set_redirect(web_sys::RequestRedirect::Manual);
    let response = match JsFuture::from(window.fetch_with_str_and_init(&req.url, &init)).await {
        Ok(r) => r,
        Err(e) => return failed(e),
    };
    let Ok(response) = response.dyn_into::<web_sys::Response>() else {
        return Transfer::Ended(StreamEnd::NetworkError("fetch returned no response".into()));
    };
    if crate::transport::is_redirect(&response) {
        let redirect = geo_core::provider::redirect_error(None, None);
        return Transfer::Ended(StreamEnd::NetworkError(redirect.message));
    }
    if !response.ok() {
        // An error body is read up to the transport's bound, like a probe's.
        let body = crate::transport::capped_text(&response, geo_core::limits::MAX_REPLY_BYTES)
            .await
            .ok()
            .flatten()
            .unwrap_or_default();
        if let Some(how) = handle.aborted() {
            return Transfer::Ended(how);
        }
        return Transfer::Http(response.status(), body);
    }
    let Some(body) = response.body() else {
        return Transfer::Ended(StreamEnd::Eof);
    };
    let reader = match body.get_reader().dyn_into::<web_sys::ReadableStreamDefaultReader>() {
        Ok(r) => r,
        Err(_) => return Transfer::Ended(StreamEnd::NetworkError("the response body cannot be read".into())),
    };
    loop {
        let chunk = match JsFuture::from(reader.read()).await {
            Ok(c) => c,
            Err(e) => return failed(e),
        };
        if let Some(how) = handle.aborted() {
            return Transfer::Ended(how);
        }
        let done =
            js_sys::Reflect::get(&chunk, &JsValue::from_str("done")).ok().and_then(|d| d.as_bool()).unwrap_or(true);
        if done {
            return Transfer::Ended(StreamEnd::Eof);
        }
        let value = js_sys::Reflect::get(&chunk, &JsValue::from_str("value")).unwrap_or(JsValue::UNDEFINED);
        let bytes = js_sys::Uint8Array::new(&value).to_vec();
        let deltas = stream.push(&bytes);
        if deltas.iter().any(|d| matches!(d, ChatDelta::Answer(_))) {
            on_text(stream.answer());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_never_shows_the_key() {
        let r = ChatRequest {
            url: "https://api.deepseek.com/chat/completions".into(),
            key: Some("sk-secret-debug-1".into()),
            proxy_token: Some("tok-secret-debug-2".into()),
            body: "{}".into(),
            timeout_ms: CHAT_TIMEOUT_MS,
        };
        let text = format!("{r:?}");
        assert!(!text.contains("sk-secret-debug-1") && text.contains("[redacted]"), "{text}");
        assert!(!text.contains("tok-secret-debug-2"), "{text}");
    }
}
