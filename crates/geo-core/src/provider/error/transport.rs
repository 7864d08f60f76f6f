//! Errors of a request that got no reply to read: no HTTP status at all (network, CORS, the
//! local proxy silent), a timeout, a redirect no transport follows, a reply too large to read.
//!
//! Both shells call these where their transport fails; every engine's messages say the same
//! thing, naming the engine where a browser's blocked request needs the engine's browser access
//! (a spec fact) to be explained.

use super::body::{truncate_chars, MAX_PROVIDER_MESSAGE_CHARS};
use crate::model::{EngineId, ErrorKind, ProbeError};
use crate::provider::spec::{spec, BrowserAccess, Caller};

/// The request never got an HTTP response (DNS, TLS, CORS, connection reset …).
pub fn network_error(detail: &str) -> ProbeError {
    let detail = truncate_chars(detail.trim(), MAX_PROVIDER_MESSAGE_CHARS);
    let message = if detail.is_empty() {
        "network error; check the connection or the api base url".to_string()
    } else {
        format!("network error ({detail}); check the connection or the api base url")
    };
    ProbeError { kind: ErrorKind::Network, http_status: None, message }
}

/// The server answered with a redirect (`status` 3xx, to `location` when the shell saw it),
/// which no transport follows: the key would travel with the request to an address the
/// user never named (security review II, finding 3). The message names only the scheme
/// and host of where it pointed (its path and query may hold a secret). An `http` error,
/// never retried.
pub fn redirect_error(status: Option<u16>, location: Option<&str>) -> ProbeError {
    let to = location
        .and_then(|l| crate::provider::url::Url::parse(l.trim()).ok())
        .filter(|u| u.host_str().is_some())
        .map(|u| format!(" to {}", crate::provider::url::host_for_messages(&u)))
        .unwrap_or_default();
    let code = status.map(|s| format!(", http {s}")).unwrap_or_default();
    ProbeError {
        kind: ErrorKind::Http,
        http_status: status,
        message: format!(
            "the server redirected the request{to} (not followed{code}): redirects are never followed, so the api key stays with the address you set; set the api base url to the final address"
        ),
    }
}

/// A reply longer than `limit` bytes, refused unread past the limit (security review II,
/// finding 1: no parser ever sees more than [`crate::limits::MAX_REPLY_BYTES`]). An `http`
/// error, never retried.
pub fn reply_too_large_error(limit: usize) -> ProbeError {
    ProbeError {
        kind: ErrorKind::Http,
        http_status: None,
        message: format!(
            "the reply is longer than {} MiB and was not read; check the api base url or proxy",
            limit / (1024 * 1024)
        ),
    }
}

/// The client gave up after `timeout_ms` without a response.
pub fn timeout_error(timeout_ms: u64) -> ProbeError {
    let secs = timeout_ms / 1000;
    let span = if timeout_ms.is_multiple_of(1000) { format!("{secs} s") } else { format!("{timeout_ms} ms") };
    ProbeError {
        kind: ErrorKind::Timeout,
        http_status: None,
        message: format!("no response within {span}; retry in a moment"),
    }
}

/// A request of `engine` that got no HTTP status at all (DNS, refused, offline, CORS).
///
/// From a browser the message also says that the engine may not allow browser calls and
/// that a proxy base URL is the way round (engines.md): the browser hides which of these it
/// was, and CORS is the one cause the user cannot see in the network panel's status.
pub fn engine_network_error(engine: EngineId, caller: Caller, detail: &str) -> ProbeError {
    let mut err = network_error(detail);
    if caller == Caller::Browser {
        let name = spec(engine).name.to_lowercase();
        let may = match spec(engine).browser {
            BrowserAccess::Direct => "may block calls from this page (cors)",
            BrowserAccess::IfCorsAllows => "may not allow calls from a browser (cors)",
            BrowserAccess::Proxy => "does not allow calls from a browser (cors)",
        };
        let detail = truncate_chars(detail.trim(), MAX_PROVIDER_MESSAGE_CHARS);
        let detail = if detail.is_empty() { String::new() } else { format!(" ({detail})") };
        err.message = format!(
            "no response from {name}{detail}: {name} {may}, or the connection failed; start geo-probe proxy and turn on the local proxy in settings, or set a proxy base url for {name}, or check the connection"
        );
    }
    err
}

/// A request to `geo-probe proxy` (at `host`, for `engine`) that got no HTTP status: the
/// proxy is not running, or it refused this page's origin at the CORS preflight (the browser
/// hides which).
pub fn local_proxy_network_error(engine: EngineId, host: &str, detail: &str) -> ProbeError {
    let mut err = network_error(detail);
    let detail = truncate_chars(detail.trim(), MAX_PROVIDER_MESSAGE_CHARS);
    let detail = if detail.is_empty() { String::new() } else { format!(" ({detail})") };
    err.message = format!(
        "{LOCAL_PROXY_SILENT} {host} for {}{detail}: it is not running, or it was started without --allow-origin for this page; start it with the command settings shows",
        spec(engine).name.to_lowercase()
    );
    err
}

/// How [`local_proxy_network_error`]'s message starts.
pub(crate) const LOCAL_PROXY_SILENT: &str = "no response from geo-probe proxy at";

/// The `error.type` of the bodies `geo-probe proxy` answers itself (401 token, 403 origin or
/// host, 404 path, 413 body, 502/504 upstream unreachable).
pub const LOCAL_PROXY_ERROR_TYPE: &str = "geo_probe_proxy";

/// True when a network error's message is the browser one of [`engine_network_error`].
pub fn is_browser_block_message(message: &str) -> bool {
    message.contains("(cors)")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::spec::REQUEST_TIMEOUT_MS;

    #[test]
    fn local_errors() {
        let n = network_error("Failed to fetch");
        assert_eq!((n.kind, n.http_status), (ErrorKind::Network, None));
        assert_eq!(n.message, "network error (Failed to fetch); check the connection or the api base url");
        assert_eq!(network_error("  ").message, "network error; check the connection or the api base url");
        let t = timeout_error(REQUEST_TIMEOUT_MS);
        assert_eq!((t.kind, t.message.as_str()), (ErrorKind::Timeout, "no response within 180 s; retry in a moment"));
        assert_eq!(timeout_error(1500).message, "no response within 1500 ms; retry in a moment");
    }
}
