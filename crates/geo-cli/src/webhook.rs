//! The `--webhook URL` of `geo-probe diff`: one JSON POST that Slack and Discord incoming
//! webhooks both read (`text` for Slack, `content` for Discord) and that carries the whole
//! comparison (`diff`) for anything else.
//!
//! A webhook URL is itself a secret (Slack and Discord put the token in the path), so no
//! message ever shows more of it than the scheme and host ([`Target::redacted`]), and the
//! error texts are built here rather than taken from the HTTP client, whose messages name
//! the full URL. The body holds the comparison and its summary only: no key, no header, no
//! environment.
//!
//! The delivery's timeout is an argument of [`Target::post`], as the engine transport's is:
//! [`TIMEOUT`] unless [`TIMEOUT_ENV`] asks for less, so a test of a silent receiver waits for
//! the outcome of a short timeout instead of ten seconds of wall time (code review 3).

use geo_core::compare::RunDiff;
use geo_core::provider::url::{host_for_messages, Url};
use std::env::VarError;
use std::time::Duration;

/// How long one delivery may take, connection to response.
pub const TIMEOUT: Duration = Duration::from_secs(10);

/// The environment variable that shortens [`TIMEOUT`]: a whole number of milliseconds from 1
/// to 10,000. Not in the usage text: the tests set it, a user has no need to.
pub const TIMEOUT_ENV: &str = "GEO_PROBE_WEBHOOK_TIMEOUT_MS";

/// The delivery timeout given the value of [`TIMEOUT_ENV`] (`std::env::var`'s answer).
pub fn timeout(value: Result<String, VarError>) -> Result<Duration, String> {
    let most = TIMEOUT.as_millis() as u64;
    let text = match value {
        Err(VarError::NotPresent) => return Ok(TIMEOUT),
        Ok(text) => text,
        Err(VarError::NotUnicode(_)) => String::new(),
    };
    match text.trim().parse::<u64>() {
        Ok(ms) if (1..=most).contains(&ms) => Ok(Duration::from_millis(ms)),
        _ => Err(format!("{TIMEOUT_ENV} must be a whole number of milliseconds from 1 to {most}; unset it for {most}")),
    }
}

/// The delivery timeout of this process: [`timeout`] of [`TIMEOUT_ENV`].
pub fn timeout_from_env() -> Result<Duration, String> {
    timeout(std::env::var(TIMEOUT_ENV))
}

/// A timeout as a message says it: `10 s`, or `300 ms` when it is not whole seconds.
fn duration_text(d: Duration) -> String {
    if d.subsec_millis() == 0 {
        format!("{} s", d.as_secs())
    } else {
        format!("{} ms", d.as_millis())
    }
}

/// Discord refuses a `content` longer than 2,000 characters; the summary is far shorter,
/// but run ids come from the export.
const MAX_TEXT_CHARS: usize = 1_900;

/// The environment variable that holds the webhook URL when `--webhook` is not given (a
/// flag is visible to every user of the machine in the process list; a variable is not).
pub const WEBHOOK_ENV: &str = "GEO_PROBE_WEBHOOK";

/// A validated webhook URL.
#[derive(Debug, Clone)]
pub struct Target {
    url: Url,
    redacted: String,
}

impl Target {
    /// Accepts an `http://` or `https://` URL with a host, parsed by `url::Url` (the parser
    /// the HTTP client uses, so the host shown is the host posted to: `https://a.example\@b`
    /// posts to `a.example`, and says so).
    pub fn parse(url: &str) -> Result<Target, String> {
        let text = url.trim();
        let usage = "--webhook must be an http:// or https:// URL with a host and no spaces, like https://hooks.slack.com/services/…";
        // `https:///x` would be read as the host `x`: an empty authority is a typo.
        let empty_authority = text.split_once("://").is_some_and(|(_, rest)| rest.starts_with(['/', '\\']));
        if empty_authority || text.chars().any(|c| c.is_whitespace() || c.is_control()) {
            return Err(usage.into());
        }
        let url = Url::parse(text).map_err(|_| usage.to_string())?;
        if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none_or(str::is_empty) {
            return Err(usage.into());
        }
        // Only the scheme, host and port: the path, query and any user name are the secret.
        let redacted = format!("{}/…", host_for_messages(&url));
        Ok(Target { url, redacted })
    }

    /// The webhook of `diff`: `--webhook` when given, else [`WEBHOOK_ENV`] when set and not
    /// blank; `None` when neither.
    pub fn from_flag_or_env(flag: Option<&str>) -> Result<Option<Target>, String> {
        let from_env = || match std::env::var(WEBHOOK_ENV) {
            Ok(v) if !v.trim().is_empty() => Ok(Some(v)),
            Ok(_) | Err(std::env::VarError::NotPresent) => Ok(None),
            Err(std::env::VarError::NotUnicode(_)) => {
                Err(format!("{WEBHOOK_ENV} is not valid UTF-8 text; set it to the webhook URL again"))
            }
        };
        let text = match flag {
            Some(f) => Some(f.to_string()),
            None => from_env()?,
        };
        let Some(text) = text else { return Ok(None) };
        Target::parse(&text).map(Some).map_err(|e| match flag {
            Some(_) => e,
            None => e.replacen("--webhook", WEBHOOK_ENV, 1),
        })
    }

    /// A warning when the webhook is not encrypted: its secret path and the comparison would
    /// cross the network in clear text.
    pub fn insecure_warning(&self) -> Option<String> {
        (self.url.scheme() == "http").then(|| {
            format!(
                "the webhook at {} uses http://, so its secret path and the comparison travel unencrypted; use its https:// address",
                self.redacted
            )
        })
    }

    /// The URL with nothing but its scheme and host.
    pub fn redacted(&self) -> &str {
        &self.redacted
    }

    /// POSTs `body` (JSON), giving up after `timeout`; `Err` says what went wrong without the
    /// URL's secret parts.
    pub fn post(&self, body: &str, timeout: Duration) -> Result<(), String> {
        let agent = ureq::AgentBuilder::new()
            .user_agent(concat!("geo-probe/", env!("CARGO_PKG_VERSION")))
            .timeout(timeout)
            // A redirect would send the comparison to a host the user did not name.
            .redirects(0)
            .build();
        let failed = |why: String| format!("the webhook at {} was not delivered: {why}", self.redacted);
        match agent.post(self.url.as_str()).set("content-type", "application/json").send_string(body) {
            Ok(response) if (200..300).contains(&response.status()) => Ok(()),
            Ok(response) => Err(failed(format!(
                "it answered HTTP {}; check that the URL is the webhook's own address",
                response.status()
            ))),
            Err(ureq::Error::Status(status, _)) => {
                Err(failed(format!("it answered HTTP {status}; check that the webhook still exists and try again")))
            }
            Err(ureq::Error::Transport(t)) => {
                Err(failed(format!("{}; check the URL and the network", describe(&t, timeout))))
            }
        }
    }
}

/// What went wrong below HTTP, in words that name no URL.
fn describe(t: &ureq::Transport, timeout: Duration) -> String {
    let mut cause: Option<&(dyn std::error::Error + 'static)> = std::error::Error::source(t);
    while let Some(c) = cause {
        if let Some(io) = c.downcast_ref::<std::io::Error>() {
            if matches!(io.kind(), std::io::ErrorKind::TimedOut | std::io::ErrorKind::WouldBlock) {
                return format!("no answer within {}", duration_text(timeout));
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
        assert_eq!(t.insecure_warning(), None);
        let t = Target::parse("http://user:pa55@127.0.0.1:9/hook").unwrap();
        assert_eq!(t.redacted(), "http://127.0.0.1:9/…");
        let warning = t.insecure_warning().unwrap();
        assert!(warning.contains("http://127.0.0.1:9/…") && !warning.contains("/hook") && !warning.contains("pa55"));
        for bad in
            ["ftp://x", "hooks.slack.com/x", "https://", "https:///path", "https://a b/c", "https://a.example/\u{7}"]
        {
            assert!(Target::parse(bad).is_err(), "{bad}");
        }
    }

    /// Code review 3: the timeout is injected, as the transport's is, so a silent receiver is
    /// a timeout after 300 ms here and the message names no part of the URL's secret.
    #[test]
    fn a_silent_receiver_is_a_timeout_that_names_its_length() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/services/T000/B000/SECRET-TOKEN", listener.local_addr().unwrap());
        // Holds the connection until the client gives up and closes it: waits on state.
        let hold = std::thread::spawn(move || {
            let (mut s, _) = listener.accept().unwrap();
            while std::io::Read::read(&mut s, &mut [0; 64]).is_ok_and(|n| n > 0) {}
        });
        let err = Target::parse(&url).unwrap().post("{}", Duration::from_millis(300)).unwrap_err();
        assert!(err.contains("no answer within 300 ms"), "{err}");
        assert!(!err.contains("SECRET") && !err.contains("/services"), "{err}");
        hold.join().unwrap();
    }

    #[test]
    fn the_timeout_is_ten_seconds_unless_the_variable_asks_for_less() {
        assert_eq!(timeout(Err(VarError::NotPresent)), Ok(TIMEOUT));
        assert_eq!(timeout(Ok(" 300 ".into())), Ok(Duration::from_millis(300)));
        assert_eq!(timeout(Ok("10000".into())), Ok(TIMEOUT));
        for bad in ["0", "10001", "1.5", "", "-3"] {
            let err = timeout(Ok(bad.into())).unwrap_err();
            assert!(err.starts_with("GEO_PROBE_WEBHOOK_TIMEOUT_MS must be a whole number"), "{bad}: {err}");
        }
        assert_eq!(duration_text(TIMEOUT), "10 s");
        assert_eq!(duration_text(Duration::from_millis(1_500)), "1500 ms");
    }

    /// Security review II, finding 7: the host shown is the host the URL parser (and so the
    /// HTTP client) posts to, whatever tricks the text plays.
    #[test]
    fn the_host_shown_is_the_host_posted_to() {
        for (text, host) in [
            ("https://evil.example\\@hooks.slack.com/services/x", "https://evil.example/…"),
            ("https://hooks.slack.com@evil.example/services/x", "https://evil.example/…"),
            ("https://HOOKS.slack.com:443/x", "https://hooks.slack.com/…"),
            ("https://evil.example#@hooks.slack.com/x", "https://evil.example/…"),
            ("https://evil.example?@hooks.slack.com/x", "https://evil.example/…"),
        ] {
            let t = Target::parse(text).unwrap();
            assert_eq!(t.redacted(), host, "{text}");
            assert_eq!(
                Url::parse(t.url.as_str()).unwrap().host_str(),
                host.strip_prefix("https://").and_then(|h| h.strip_suffix("/…"))
            );
        }
    }
}
