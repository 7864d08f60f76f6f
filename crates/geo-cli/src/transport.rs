//! The native transport: one blocking HTTPS request per attempt (ureq + rustls), its result
//! mapped into the runner's [`AttemptOutcome`] with the provider's pure functions, for
//! whichever engine the [`Endpoint`] names.
//!
//! Mapping (seed §3.4): no HTTP response at all → `network`; the per-request deadline passed
//! → `timeout`; any reply → [`Endpoint::outcome`], that is [`provider::interpret`] with the
//! engine's wire format (geo-core's one mapping of status, headers and body, shared with the
//! browser). The API key travels only in the endpoint's auth header, handed in by the caller
//! and checked before ([`provider::url::auth_mode`]); nothing here logs headers. An error
//! message names only what failed and the host (`network error (connection failed to
//! http://127.0.0.1:9)`): never the HTTP library's own text, which can quote a header value
//! or the whole URL, and every message passes the session's [`Redactor`] (a provider error
//! body may echo the key).
//!
//! No redirect is followed (security review II, finding 3): a 3xx is an `http` error naming
//! the host it pointed to ([`provider::redirect_error`], through `interpret`), so the key in
//! the auth header never reaches an address the user did not set. No reply is read past
//! [`MAX_REPLY_BYTES`] (10 MiB, the browser's bound too).

use std::io::Read;
use std::time::Duration;

use geo_core::limits::MAX_REPLY_BYTES;
use geo_core::model::RunConfig;
use geo_core::provider::{self, Caller, Endpoint};
use geo_core::runner::AttemptOutcome;
use geo_core::safe::Redactor;

/// A reusable HTTP client (connection pool, TLS config) that follows no redirect. Cheap to
/// clone and share.
pub fn agent() -> ureq::Agent {
    ureq::AgentBuilder::new().user_agent(concat!("geo-probe/", env!("CARGO_PKG_VERSION"))).redirects(0).build()
}

/// The body as text, at most [`MAX_REPLY_BYTES`] of it: `None` when it is longer (the rest
/// is never read).
fn capped_body(response: ureq::Response) -> std::io::Result<Option<String>> {
    let mut bytes = Vec::new();
    response.into_reader().take(MAX_REPLY_BYTES as u64 + 1).read_to_end(&mut bytes)?;
    Ok((bytes.len() <= MAX_REPLY_BYTES).then(|| String::from_utf8_lossy(&bytes).into_owned()))
}

/// The variable holding `geo-probe proxy`'s token (cli.md).
pub const PROXY_TOKEN_VAR: &str = "GEO_PROBE_PROXY_TOKEN";

/// The endpoint of a run of `config` for the CLI: [`Endpoint::new`], and in proxy mode (no
/// key header) `geo-probe proxy`'s token in `x-geo-probe-proxy-token` when
/// `GEO_PROBE_PROXY_TOKEN` is set (never printed: it is one of the redactor's secrets). With
/// a key the request goes to the engine itself, which must not see the token.
pub fn endpoint(config: &RunConfig, base: Option<&str>, key: Option<&str>) -> Endpoint {
    let mut endpoint = Endpoint::new(config, base, key, Caller::Native);
    endpoint.add_proxy_token(&std::env::var(PROXY_TOKEN_VAR).unwrap_or_default());
    endpoint
}

/// POSTs `body_json` to the endpoint's URL with its headers, giving up after `timeout_ms`
/// (connect, send and the whole response), and maps the result with the endpoint's engine;
/// `redactor` cleans every error message.
pub fn send(
    agent: &ureq::Agent,
    endpoint: &Endpoint,
    body_json: &str,
    timeout_ms: u64,
    redactor: &Redactor,
) -> AttemptOutcome {
    exchange(agent, endpoint, body_json, timeout_ms).map_err(|e| redactor.redact_error(e))
}

fn exchange(agent: &ureq::Agent, endpoint: &Endpoint, body_json: &str, timeout_ms: u64) -> AttemptOutcome {
    let mut request = agent.post(&endpoint.url).timeout(Duration::from_millis(timeout_ms));
    for (name, value) in &endpoint.headers {
        request = request.set(name, value);
    }
    match request.send_string(body_json) {
        Ok(response) => {
            let (status, headers) = (response.status(), interpreted_headers(&response));
            let body = capped_body(response).map_err(|e| io_failure(endpoint, &e, timeout_ms))?;
            let body = body.ok_or_else(|| provider::reply_too_large_error(MAX_REPLY_BYTES))?;
            outcome(endpoint, status, &headers, &body)
        }
        Err(ureq::Error::Status(status, response)) => {
            let headers = interpreted_headers(&response);
            // A body cut off mid-way (or too long) still says enough through its status.
            let body = capped_body(response).ok().flatten().unwrap_or_default();
            outcome(endpoint, status, &headers, &body)
        }
        Err(ureq::Error::Transport(t)) => Err(transport_failure(endpoint, &t, timeout_ms)),
    }
}

/// The headers geo-core reads, as (name, value).
fn interpreted_headers(response: &ureq::Response) -> Vec<(&'static str, String)> {
    provider::INTERPRETED_HEADERS.iter().filter_map(|&name| Some((name, response.header(name)?.to_string()))).collect()
}

/// [`Endpoint::outcome`] over a reply whose header values are owned.
fn outcome(endpoint: &Endpoint, status: u16, headers: &[(&str, String)], body: &str) -> AttemptOutcome {
    let pairs: Vec<(&str, &str)> = headers.iter().map(|(n, v)| (*n, v.as_str())).collect();
    endpoint.outcome(&provider::EngineReply { status, headers: &pairs, body })
}

fn is_timeout(e: &std::io::Error) -> bool {
    matches!(e.kind(), std::io::ErrorKind::TimedOut | std::io::ErrorKind::WouldBlock)
}

/// Reading the body failed: the deadline or the connection.
fn io_failure(endpoint: &Endpoint, e: &std::io::Error, timeout_ms: u64) -> geo_core::model::ProbeError {
    if is_timeout(e) {
        provider::timeout_error(timeout_ms)
    } else {
        endpoint.network_error(&format!(
            "{} while reading the response from {}",
            e.kind(),
            endpoint.host_for_messages()
        ))
    }
}

/// What failed and where, without the library's text: `connection failed to https://host`
/// (`host` is `scheme://host[:port]`, see [`Endpoint::host_for_messages`]).
pub fn describe_transport(t: &ureq::Transport, host: &str) -> String {
    format!("{} to {host}", t.kind().to_string().to_lowercase())
}

/// No response: a timeout when any cause in the chain is one, else a network error.
fn transport_failure(endpoint: &Endpoint, t: &ureq::Transport, timeout_ms: u64) -> geo_core::model::ProbeError {
    let mut cause: Option<&(dyn std::error::Error + 'static)> = std::error::Error::source(t);
    while let Some(c) = cause {
        if c.downcast_ref::<std::io::Error>().is_some_and(is_timeout) {
            return provider::timeout_error(timeout_ms);
        }
        cause = c.source();
    }
    if t.to_string().contains("timed out") {
        return provider::timeout_error(timeout_ms);
    }
    endpoint.network_error(&describe_transport(t, &endpoint.host_for_messages()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use geo_core::model::{ErrorKind, RunConfig};
    use geo_core::provider::Caller;

    fn endpoint(url: &str) -> Endpoint {
        let mut e = Endpoint::new(&RunConfig::default(), Some(url), None, Caller::Native);
        e.url = url.to_string();
        e
    }

    #[test]
    fn refused_connection_is_a_network_error() {
        // Bind then drop a listener: its port is very likely closed now.
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let url = format!("http://127.0.0.1:{port}/anthropic/v1/messages?token=SECRET");
        let err = send(&agent(), &endpoint(&url), "{}", 2_000, &Redactor::new()).unwrap_err();
        assert_eq!(err.kind, ErrorKind::Network, "{err:?}");
        // Only the kind of failure and the host: no path, no query.
        assert!(err.message.contains(&format!("connection failed to http://127.0.0.1:{port}")), "{err:?}");
        assert!(!err.message.contains("SECRET") && !err.message.contains("/anthropic"), "{err:?}");
    }

    #[test]
    fn silent_server_is_a_timeout() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/anthropic/v1/messages", listener.local_addr().unwrap());
        let hold = std::thread::spawn(move || {
            let (s, _) = listener.accept().unwrap();
            std::thread::sleep(Duration::from_millis(1_500));
            drop(s);
        });
        let err = send(&agent(), &endpoint(&url), "{}", 300, &Redactor::new()).unwrap_err();
        assert_eq!(err.kind, ErrorKind::Timeout, "{err:?}");
        hold.join().unwrap();
    }
}
