//! The last step before text leaves the program: every line written to the terminal, and
//! every output file, goes through here.
//!
//! Two things happen (security review, findings 1 and 8; `docs/security.md`):
//! - every known secret is removed ([`geo_core::safe::Redactor`]): the value of every
//!   engine's key variable, read once, and what a command registers (a base URL's query
//!   values), whatever text carried it (an HTTP library's error, a provider error body);
//! - for a terminal, control characters are replaced ([`geo_core::safe::terminal_text`]), so
//!   a provider's error body or a streamed answer cannot clear the screen, move the cursor
//!   or print a fake line.

use std::borrow::Cow;
use std::sync::{Mutex, OnceLock};

use geo_core::provider::ENGINES;
use geo_core::safe::{terminal_text, Redactor};

/// The environment variables whose values are secrets: every engine's key variable, read
/// from geo-core's engine table ([`ENGINES`]), then `geo-probe proxy`'s token
/// (docs/adr/0020-local-proxy-threat-model.md).
///
/// Derived, never copied (code review 3 found a hand copy that knew five engines of nine):
/// an engine added to the table is redacted here without a change to the CLI.
pub fn secret_vars() -> impl Iterator<Item = &'static str> {
    ENGINES.iter().map(|spec| spec.key_env).chain([crate::transport::PROXY_TOKEN_VAR])
}

fn global() -> &'static Mutex<Redactor> {
    static REDACTOR: OnceLock<Mutex<Redactor>> = OnceLock::new();
    REDACTOR.get_or_init(|| {
        let mut r = Redactor::new();
        for var in secret_vars() {
            if let Some(value) = std::env::var_os(var) {
                r.add(&value.to_string_lossy());
            }
        }
        Mutex::new(r)
    })
}

/// Adds a session's secrets to those removed everywhere.
pub fn register(secrets: &Redactor) {
    if let Ok(mut r) = global().lock() {
        r.extend(secrets);
    }
}

/// Every secret known so far.
pub fn redactor() -> Redactor {
    global().lock().map(|r| r.clone()).unwrap_or_default()
}

/// `text` without any known secret (for files and pipes: the data itself is kept).
pub fn redact(text: &str) -> Cow<'_, str> {
    match global().lock() {
        Ok(r) => Cow::Owned(r.redact(text).into_owned()),
        // A poisoned lock means a panic elsewhere; say nothing rather than risk a secret.
        Err(_) => Cow::Borrowed("[output withheld]"),
    }
}

/// One terminal line: secrets removed, line breaks and tabs made spaces, every other
/// control character replaced.
pub fn line(text: &str) -> String {
    terminal_text(&redact(text), false).into_owned()
}

/// Terminal text of several lines: secrets removed, control characters but `\n` and `\t`
/// replaced.
pub fn text(text: &str) -> String {
    terminal_text(&redact(text), true).into_owned()
}

/// Prints one line to standard error through [`line`].
///
/// With [`eprint_text`] and [`eprint_over`], the only way the CLI writes text to standard
/// error: a tidy test (`crates/geo-core/tests/it/tidy.rs`,
/// `the_cli_prints_no_formatted_value_past_the_sanitiser`) fails on an `eprintln!` or
/// `eprint!` with a formatted value anywhere else in `crates/geo-cli/src`.
pub fn eprint_line(text: &str) {
    eprintln!("{}", line(text));
}

/// Prints text of several lines to standard error through [`text`].
pub fn eprint_text(body: &str) {
    eprintln!("{}", text(body));
}

/// Rewrites the current terminal line with `text` through [`line`] (a progress bar),
/// padded with `pad` spaces to clear what was longer before.
pub fn eprint_over(text: &str, pad: usize) {
    eprint!("\r{}{}", line(text), " ".repeat(pad));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registered_secrets_and_controls_never_reach_a_line() {
        let mut r = Redactor::new();
        r.add("sk-registered-1");
        register(&r);
        assert_eq!(line("key sk-registered-1\u{1b}[2J\r\nok"), "key [redacted]\u{FFFD}[2J  ok");
        assert_eq!(text("a\nb\tc\u{7}"), "a\nb\tc\u{FFFD}");
    }

    /// Code review 3: the redaction list was a hand copy of the engines' key variables.
    #[test]
    fn every_engine_key_variable_and_the_proxy_token_are_secret() {
        let vars: Vec<&str> = secret_vars().collect();
        for engine in geo_core::model::EngineId::ALL {
            let var = geo_core::provider::spec(engine).key_env;
            assert!(vars.contains(&var), "{engine:?}: {var} is not redacted");
        }
        assert!(vars.contains(&"GEO_PROBE_PROXY_TOKEN"), "{vars:?}");
        assert_eq!(vars.len(), geo_core::model::EngineId::ALL.len() + 1, "{vars:?}");
    }
}
