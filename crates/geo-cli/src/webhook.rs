//! The `--webhook URL` of `geo-probe diff`: one JSON POST that Slack and Discord incoming
//! webhooks both read (`text` for Slack, `content` for Discord) and that carries the whole
//! comparison (`diff`) for anything else.
//!
//! A webhook URL is itself a secret (Slack and Discord put the token in the path), so no
//! message ever shows more of it than the scheme and host ([`Target::redacted`]), and the
//! error texts are built here rather than taken from the HTTP client, whose messages name
//! the full URL. The body holds the comparison and its summary only: no key, no header, no
//! environment.

use geo_core::compare::RunDiff;
use std::time::Duration;

/// How long one delivery may take, connection to response.
pub const TIMEOUT: Duration = Duration::from_secs(10);

/// Discord refuses a `content` longer than 2,000 characters; the summary is far shorter,
/// but run ids come from the export.
const MAX_TEXT_CHARS: usize = 1_900;

/// A validated webhook URL.
#[derive(Debug, Clone)]
pub struct Target {
    url: String,
    redacted: String,
}

impl Target {
    /// Accepts an `http://` or `https://` URL with a host.
    pub fn parse(url: &str) -> Result<Target, String> {
        let url = url.trim();
        let rest = url
            .strip_prefix("https://")
            .map(|r| ("https", r))
            .or_else(|| url.strip_prefix("http://").map(|r| ("http", r)));
        let Some((scheme, rest)) = rest else {
            return Err("--webhook must be an http:// or https:// URL (a Slack or Discord incoming webhook)".into());
        };
        let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
        // Whatever stands before `@` is a user name or password: never shown.
        let host = authority.rsplit('@').next().unwrap_or("");
        if host.is_empty() || url.chars().any(char::is_whitespace) {
            return Err(
                "--webhook must be a URL with a host and no spaces, like https://hooks.slack.com/services/…".into()
            );
        }
        Ok(Target { url: url.to_string(), redacted: format!("{scheme}://{host}/…") })
    }

    /// The URL with nothing but its scheme and host.
    pub fn redacted(&self) -> &str {
        &self.redacted
    }

    /// POSTs `body` (JSON); `Err` says what went wrong without the URL's secret parts.
    pub fn post(&self, body: &str) -> Result<(), String> {
        let agent = ureq::AgentBuilder::new()
            .user_agent(concat!("geo-probe/", env!("CARGO_PKG_VERSION")))
            .timeout(TIMEOUT)
            // A redirect would send the comparison to a host the user did not name.
            .redirects(0)
            .build();
        let failed = |why: String| format!("the webhook at {} was not delivered: {why}", self.redacted);
        match agent.post(&self.url).set("content-type", "application/json").send_string(body) {
            Ok(response) if (200..300).contains(&response.status()) => Ok(()),
            Ok(response) => Err(failed(format!(
                "it answered HTTP {}; check that the URL is the webhook's own address",
                response.status()
            ))),
            Err(ureq::Error::Status(status, _)) => {
                Err(failed(format!("it answered HTTP {status}; check that the webhook still exists and try again")))
            }
            Err(ureq::Error::Transport(t)) => Err(failed(format!("{}; check the URL and the network", describe(&t)))),
        }
    }
}

/// What went wrong below HTTP, in words that name no URL.
fn describe(t: &ureq::Transport) -> String {
    let mut cause: Option<&(dyn std::error::Error + 'static)> = std::error::Error::source(t);
    while let Some(c) = cause {
        if let Some(io) = c.downcast_ref::<std::io::Error>() {
            if matches!(io.kind(), std::io::ErrorKind::TimedOut | std::io::ErrorKind::WouldBlock) {
                return format!("no answer within {} s", TIMEOUT.as_secs());
            }
        }
        cause = c.source();
    }
    match t.kind() {
        ureq::ErrorKind::Dns => "its host name did not resolve".into(),
        ureq::ErrorKind::ConnectionFailed => "the connection was refused or failed".into(),
        ureq::ErrorKind::InvalidUrl | ureq::ErrorKind::UnknownScheme => "the URL is not valid".into(),
        ureq::ErrorKind::Io => "the connection broke".into(),
        other => other.to_string().to_lowercase(),
    }
}

/// The JSON body: `{"text", "content", "diff"}`.
pub fn body(summary: &str, diff: &RunDiff) -> serde_json::Result<String> {
    let text: String = if summary.chars().count() > MAX_TEXT_CHARS {
        summary.chars().take(MAX_TEXT_CHARS - 1).chain(std::iter::once('…')).collect()
    } else {
        summary.to_string()
    };
    serde_json::to_string(&serde_json::json!({ "text": text, "content": text, "diff": diff }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_keeps_secrets_out_of_the_redacted_form() {
        let t = Target::parse("https://hooks.slack.com/services/T000/B000/XXXX?x=1").unwrap();
        assert_eq!(t.redacted(), "https://hooks.slack.com/…");
        let t = Target::parse("http://user:pa55@127.0.0.1:9/hook").unwrap();
        assert_eq!(t.redacted(), "http://127.0.0.1:9/…");
        for bad in ["ftp://x", "hooks.slack.com/x", "https://", "https:///path", "https://a b/c"] {
            assert!(Target::parse(bad).is_err(), "{bad}");
        }
    }
}
