//! The native transport: one blocking HTTPS request per attempt (ureq + rustls), its result
//! mapped into the runner's [`AttemptOutcome`] with the provider's pure functions.
//!
//! Mapping (seed §3.4): no HTTP response at all → `network`; the per-request deadline passed
//! → `timeout`; any reply → [`provider::interpret`] (geo-core's one mapping of status,
//! headers and body, shared with the browser). The API key travels only in the `x-api-key` header handed
//! in by the caller; nothing here logs headers, and error texts carry no header values.

use std::time::Duration;

use geo_core::provider;
use geo_core::runner::AttemptOutcome;

/// A reusable HTTP client (connection pool, TLS config). Cheap to clone and share.
pub fn agent() -> ureq::Agent {
    ureq::AgentBuilder::new().user_agent(concat!("geo-probe/", env!("CARGO_PKG_VERSION"))).build()
}

/// POSTs `body_json` to `url` with `headers`, giving up after `timeout_ms` (connect, send and
/// the whole response), and maps the result. `model` is the requested model, used when the
/// response names none.
pub fn send(
    agent: &ureq::Agent,
    url: &str,
    headers: &[(&str, String)],
    body_json: &str,
    timeout_ms: u64,
    model: &str,
) -> AttemptOutcome {
    let mut request = agent.post(url).timeout(Duration::from_millis(timeout_ms));
    for (name, value) in headers {
        request = request.set(name, value);
    }
    let how = provider::Interpret::messages(model);
    match request.send_string(body_json) {
        Ok(response) => {
            let (status, headers) = (response.status(), interpreted_headers(&response));
            let body = response.into_string().map_err(|e| io_failure(&e, timeout_ms))?;
            interpret(status, &headers, &body, &how)
        }
        Err(ureq::Error::Status(status, response)) => {
            let headers = interpreted_headers(&response);
            // A body cut off mid-way still says enough through its status.
            let body = response.into_string().unwrap_or_default();
            interpret(status, &headers, &body, &how)
        }
        Err(ureq::Error::Transport(t)) => Err(transport_failure(&t, timeout_ms)),
    }
}

/// The headers geo-core reads, as (name, value).
fn interpreted_headers(response: &ureq::Response) -> Vec<(&'static str, String)> {
    provider::INTERPRETED_HEADERS.iter().filter_map(|&name| Some((name, response.header(name)?.to_string()))).collect()
}

/// [`provider::interpret`] over a reply whose header values are owned.
fn interpret(status: u16, headers: &[(&str, String)], body: &str, how: &provider::Interpret) -> AttemptOutcome {
    let pairs: Vec<(&str, &str)> = headers.iter().map(|(n, v)| (*n, v.as_str())).collect();
    provider::interpret(&provider::Reply { status, headers: &pairs, body }, how)
}

fn is_timeout(e: &std::io::Error) -> bool {
    matches!(e.kind(), std::io::ErrorKind::TimedOut | std::io::ErrorKind::WouldBlock)
}

/// Reading the body failed: the deadline or the connection.
fn io_failure(e: &std::io::Error, timeout_ms: u64) -> geo_core::model::ProbeError {
    if is_timeout(e) {
        provider::timeout_error(timeout_ms)
    } else {
        provider::network_error(&e.to_string())
    }
}

/// No response: a timeout when any cause in the chain is one, else a network error.
fn transport_failure(t: &ureq::Transport, timeout_ms: u64) -> geo_core::model::ProbeError {
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
    provider::network_error(&t.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use geo_core::model::ErrorKind;

    #[test]
    fn refused_connection_is_a_network_error() {
        // Bind then drop a listener: its port is very likely closed now.
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let url = format!("http://127.0.0.1:{port}/anthropic/v1/messages");
        let err = send(&agent(), &url, &[], "{}", 2_000, "m").unwrap_err();
        assert_eq!(err.kind, ErrorKind::Network, "{err:?}");
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
        let err = send(&agent(), &url, &[], "{}", 300, "m").unwrap_err();
        assert_eq!(err.kind, ErrorKind::Timeout, "{err:?}");
        hold.join().unwrap();
    }
}
