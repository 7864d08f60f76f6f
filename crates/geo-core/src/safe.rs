//! What untrusted text may become: a message without secrets, a terminal line, a link
//! target, a file name. Both shells use these and nothing else (`docs/security.md`).
//!
//! - [`Redactor`]: the backstop that removes the API key (and a base URL's query values)
//!   from every error message, terminal line and output file, whatever put it there (an
//!   HTTP library's error text, a provider error body that echoes the key).
//!   [`StreamRedactor`] does the same for text that arrives in pieces.
//! - [`terminal_text`]: C0/C1 control characters (and bidirectional overrides) replaced, so
//!   a provider's error body or a streamed answer cannot move the cursor, clear the screen
//!   or print a fake line.
//! - [`safe_href`]: the one rule for a link a page renders: `http`/`https` only, parsed by
//!   `url::Url`, credentials dropped.
//! - [`file_name`]: a download or output name from imported text.

use std::borrow::Cow;

use crate::model::ProbeError;
use crate::provider::url::{BaseUrl, KeyMode};

/// Request headers whose values are secrets (`x-geo-probe-proxy-token`: security review 3,
/// finding I1, so a session through the local proxy redacts its token too).
pub const SECRET_HEADERS: &[&str] =
    &["x-api-key", "x-goog-api-key", "authorization", "api-key", crate::provider::local_proxy::TOKEN_HEADER];

/// What a secret is replaced with.
pub const REDACTED: &str = "[redacted]";

/// Secrets shorter than this are not searched for (they would match ordinary words);
/// [`crate::provider::url::check_key`] accepts any length, but real keys are 30+ characters.
pub const MIN_SECRET_CHARS: usize = 4;

/// Removes known secrets from text (see the module doc).
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Redactor {
    /// Every secret and its escaped spellings, longest first.
    needles: Vec<String>,
}

impl std::fmt::Debug for Redactor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Redactor({} secrets)", self.needles.len())
    }
}

/// `s` percent-encoded the way a URL query would carry it.
fn percent_encoded(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

impl Redactor {
    /// A redactor that knows no secret yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// A redactor for a session's key and base URL.
    pub fn for_session(mode: &KeyMode, base: Option<&BaseUrl>) -> Self {
        let mut r = Self::new();
        if let Some(key) = mode.key() {
            r.add(key);
        }
        if let Some(b) = base {
            for s in b.secrets() {
                r.add(&s);
            }
        }
        r
    }

    /// A redactor for everything secret an [`Endpoint`](crate::provider::Endpoint) sends:
    /// its auth header's key ([`Redactor::for_headers`]) and the secret-looking values of
    /// its URL's query ([`crate::provider::url::is_secret_query_value`], the same rule as
    /// [`BaseUrl::secrets`]). What a browser session and the settings page's key test apply
    /// to every record and message (security review II, finding 2).
    pub fn for_endpoint(endpoint: &crate::provider::Endpoint) -> Self {
        let mut r = Self::for_headers(&endpoint.headers);
        if let Ok(url) = url::Url::parse(&endpoint.url) {
            let mut any = false;
            for (name, value) in url.query_pairs() {
                if crate::provider::url::is_secret_query_value(&name, &value) {
                    r.add(&value);
                    any = true;
                }
            }
            if let Some(query) = url.query().filter(|_| any) {
                r.add(query);
            }
        }
        r
    }

    /// A redactor for the secret values among request `headers` (the auth headers of every
    /// engine: `x-api-key`, `x-goog-api-key`, `authorization` without its `Bearer ` word), for
    /// a transport that only sees the headers it sends.
    pub fn for_headers<N: AsRef<str>, V: AsRef<str>>(headers: &[(N, V)]) -> Self {
        let mut r = Self::new();
        for (name, value) in headers {
            let (name, value) = (name.as_ref(), value.as_ref());
            if SECRET_HEADERS.iter().any(|h| h.eq_ignore_ascii_case(name)) {
                let v = value.trim();
                r.add(v);
                if let Some(token) = v.strip_prefix("Bearer ").or_else(|| v.strip_prefix("bearer ")) {
                    r.add(token);
                }
            }
        }
        r
    }

    /// Adds a secret (trimmed; ignored when shorter than [`MIN_SECRET_CHARS`]), with the
    /// spellings it takes inside JSON text and inside a URL.
    pub fn add(&mut self, secret: &str) {
        let s = secret.trim();
        if s.chars().count() < MIN_SECRET_CHARS {
            return;
        }
        let json = serde_json::to_string(s).unwrap_or_default();
        let json = json.get(1..json.len().saturating_sub(1)).unwrap_or("").to_string();
        for needle in [s.to_string(), json, percent_encoded(s)] {
            if needle.chars().count() >= MIN_SECRET_CHARS && !self.needles.contains(&needle) {
                self.needles.push(needle);
            }
        }
        // Longest first, so a secret that contains another is replaced whole.
        self.needles.sort_by_key(|n| std::cmp::Reverse(n.len()));
    }

    /// Adds every secret of `other`.
    pub fn extend(&mut self, other: &Redactor) {
        for n in &other.needles {
            if !self.needles.contains(n) {
                self.needles.push(n.clone());
            }
        }
        self.needles.sort_by_key(|n| std::cmp::Reverse(n.len()));
    }

    /// Whether no secret is known.
    pub fn is_empty(&self) -> bool {
        self.needles.is_empty()
    }

    /// `text` with every secret replaced by [`REDACTED`].
    pub fn redact<'a>(&self, text: &'a str) -> Cow<'a, str> {
        let mut out = Cow::Borrowed(text);
        for needle in &self.needles {
            if out.contains(needle.as_str()) {
                out = Cow::Owned(out.replace(needle.as_str(), REDACTED));
            }
        }
        out
    }

    /// `bytes` with every secret replaced by [`REDACTED`] (a reply body, which need not be
    /// text).
    pub fn redact_bytes<'a>(&self, bytes: &'a [u8]) -> Cow<'a, [u8]> {
        let mut out = Cow::Borrowed(bytes);
        for needle in self.needles.iter().map(String::as_bytes) {
            let Some(mut at) = find_bytes(&out, needle, 0) else { continue };
            let mut clean = Vec::with_capacity(out.len());
            let mut done = 0;
            loop {
                clean.extend_from_slice(&out[done..at]);
                clean.extend_from_slice(REDACTED.as_bytes());
                done = at + needle.len();
                match find_bytes(&out, needle, done) {
                    Some(next) => at = next,
                    None => break,
                }
            }
            clean.extend_from_slice(&out[done..]);
            out = Cow::Owned(clean);
        }
        out
    }

    /// The length of the longest end of `bytes` that is the start of a secret but not all of
    /// it: what a stream must hold back until its next piece.
    pub fn secret_start_at_end(&self, bytes: &[u8]) -> usize {
        let mut best = 0;
        for needle in self.needles.iter().map(String::as_bytes) {
            let longest = (needle.len() - 1).min(bytes.len());
            if let Some(k) = (best + 1..=longest).rev().find(|&k| bytes.ends_with(&needle[..k])) {
                best = k;
            }
        }
        best
    }

    /// `value` with every secret removed from every string in it (a record before it is
    /// kept or written: a proxy may echo the key into an answer). `value` comes back as it
    /// is when no string holds a secret.
    ///
    /// `Err` when a secret cannot be removed: the value no longer fits its type after
    /// redaction (an enum string that held the secret) or cannot be written as JSON. The
    /// caller then refuses to keep the record (security review II, finding 2): nothing is
    /// ever stored unredacted.
    pub fn try_redact_value<T: serde::Serialize + serde::de::DeserializeOwned>(
        &self,
        value: T,
    ) -> Result<T, Unredactable> {
        if self.is_empty() {
            return Ok(value);
        }
        let mut tree = serde_json::to_value(&value).map_err(|_| Unredactable)?;
        if !self.redact_strings(&mut tree) {
            return Ok(value);
        }
        serde_json::from_value(tree).map_err(|_| Unredactable)
    }

    fn redact_strings(&self, v: &mut serde_json::Value) -> bool {
        use serde_json::Value;
        match v {
            Value::String(s) => match self.redact(s) {
                Cow::Owned(clean) => {
                    *s = clean;
                    true
                }
                Cow::Borrowed(_) => false,
            },
            Value::Array(items) => items.iter_mut().fold(false, |any, x| self.redact_strings(x) | any),
            Value::Object(map) => map.values_mut().fold(false, |any, x| self.redact_strings(x) | any),
            _ => false,
        }
    }

    /// The error with its message redacted.
    pub fn redact_error(&self, mut error: ProbeError) -> ProbeError {
        if let Cow::Owned(m) = self.redact(&error.message) {
            error.message = m;
        }
        error
    }
}

/// A record from which a secret could not be removed ([`Redactor::try_redact_value`]): it
/// is not kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Unredactable;

impl Unredactable {
    /// What the shells say when a probe is refused for it.
    pub fn localized(&self) -> crate::model::Localized {
        crate::model::Localized::new(
            "一条回答中含有无法移除的密钥，未保存该条结果；请检查代理或 API 地址后重试失败项",
            "a reply held a secret that could not be removed, so it was not stored; check the proxy or api base url, then retry the failed probes",
        )
    }
}

impl std::fmt::Display for Unredactable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.localized().en)
    }
}

/// A [`Redactor`] over text that arrives in pieces: it holds back just enough of the end
/// that a secret split across two pieces is still found ([`ByteStreamRedactor`] on the
/// text's bytes).
#[derive(Debug, Clone, Default)]
pub struct StreamRedactor {
    bytes: ByteStreamRedactor,
}

impl StreamRedactor {
    /// A stream redactor with `redactor`'s secrets.
    pub fn new(redactor: Redactor) -> Self {
        StreamRedactor { bytes: ByteStreamRedactor::new(redactor) }
    }

    /// Takes the next piece; returns the text that is safe to show now.
    pub fn push(&mut self, piece: &str) -> String {
        // What is held back is the start of a secret, which starts on a character boundary,
        // so what comes out is whole characters.
        String::from_utf8_lossy(&self.bytes.push(piece.as_bytes())).into_owned()
    }

    /// Ends the stream; returns what was held back.
    pub fn finish(&mut self) -> String {
        String::from_utf8_lossy(&self.bytes.finish()).into_owned()
    }
}

/// A [`Redactor`] over bytes that arrive in pieces (a reply `geo-probe proxy` passes on as it
/// streams in): each piece comes out redacted at once, except its end when that end could be
/// the start of a secret; that end waits for the next piece. A secret split across pieces is
/// replaced whole, and a stream without a secret is delayed by nothing but such an end.
#[derive(Debug, Clone, Default)]
pub struct ByteStreamRedactor {
    redactor: Redactor,
    held: Vec<u8>,
}

impl ByteStreamRedactor {
    /// A stream redactor with `redactor`'s secrets.
    pub fn new(redactor: Redactor) -> Self {
        ByteStreamRedactor { redactor, held: Vec::new() }
    }

    /// Takes the next piece; returns the bytes that are safe to pass on now.
    pub fn push(&mut self, piece: &[u8]) -> Vec<u8> {
        if self.redactor.is_empty() {
            return piece.to_vec();
        }
        self.held.extend_from_slice(piece);
        if let Cow::Owned(clean) = self.redactor.redact_bytes(&self.held) {
            self.held = clean;
        }
        // Every secret wholly inside `held` is gone; one that starts in what goes out now
        // would make a longer end of `held` the start of a secret than the end kept.
        let keep = self.redactor.secret_start_at_end(&self.held);
        let rest = self.held.split_off(self.held.len() - keep);
        std::mem::replace(&mut self.held, rest)
    }

    /// Ends the stream; returns what was held back (never a secret: it is incomplete).
    pub fn finish(&mut self) -> Vec<u8> {
        let held = std::mem::take(&mut self.held);
        self.redactor.redact_bytes(&held).into_owned()
    }
}

/// The first index at or after `from` where `needle` (not empty) starts in `hay`.
fn find_bytes(hay: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    let first = *needle.first()?;
    let last = hay.len().checked_sub(needle.len())?;
    (from..=last).find(|&i| hay[i] == first && hay[i..i + needle.len()] == *needle)
}

/// Whether `c` must not reach a terminal: C0 and C1 controls (and DEL), and the
/// bidirectional embedding, override and isolate characters that reorder what is shown.
fn is_terminal_hazard(c: char) -> bool {
    c.is_control() || matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// `text` ready for a terminal. With `multiline`, `\n` and `\t` stay and every other control
/// character becomes U+FFFD (a carriage return never survives: it rewrites the line); on
/// one line, `\n`, `\r` and `\t` become spaces and the other controls U+FFFD.
pub fn terminal_text(text: &str, multiline: bool) -> Cow<'_, str> {
    if !text.chars().any(|c| is_terminal_hazard(c) && !(multiline && (c == '\n' || c == '\t'))) {
        return Cow::Borrowed(text);
    }
    Cow::Owned(
        text.chars()
            .map(|c| match c {
                '\n' | '\t' if multiline => c,
                '\n' | '\r' | '\t' if !multiline => ' ',
                c if is_terminal_hazard(c) => '\u{FFFD}',
                c => c,
            })
            .collect(),
    )
}

/// True when `url` (ignoring surrounding whitespace and case) is `http:`/`https:`, or
/// `mailto:` when `allow_mailto`.
pub fn link_scheme_allowed(url: &str, allow_mailto: bool) -> bool {
    let head: String = url.trim().chars().take(8).collect::<String>().to_ascii_lowercase();
    head.starts_with("http://") || head.starts_with("https://") || (allow_mailto && head.starts_with("mailto:"))
}

/// The `href` a page may render for `url`: an `http`/`https` URL as `url::Url` serialises it,
/// without credentials; `None` for anything else (`javascript:`, `data:`, unparsable text).
pub fn safe_href(url: &str) -> Option<String> {
    if !link_scheme_allowed(url, false) {
        return None;
    }
    let mut parsed = url::Url::parse(url.trim()).ok()?;
    if !matches!(parsed.scheme(), "http" | "https") || parsed.host_str().is_none_or(str::is_empty) {
        return None;
    }
    let _ = parsed.set_username("");
    let _ = parsed.set_password(None);
    Some(parsed.into())
}

/// Longest file-name part [`file_name`] returns, in characters.
pub const MAX_FILE_NAME_CHARS: usize = 80;

/// A file-name part from untrusted text (a project name, a run id): letters, digits, `-`,
/// `_` and `.` are kept, any other run of characters (slashes, spaces, controls, `:`)
/// becomes one `-`, leading dots and dashes go, at most [`MAX_FILE_NAME_CHARS`]
/// characters; `fallback` when nothing is left.
pub fn file_name(text: &str, fallback: &str) -> String {
    let mut out = String::new();
    let mut dash = false;
    for c in text.chars() {
        if c.is_alphanumeric() || matches!(c, '-' | '_' | '.') {
            if c == '-' && dash {
                continue;
            }
            out.push(c);
            dash = c == '-';
        } else if !dash {
            out.push('-');
            dash = true;
        }
    }
    let trimmed: String = out.trim_start_matches(['.', '-']).chars().take(MAX_FILE_NAME_CHARS).collect::<String>();
    let trimmed = trimmed.trim_end_matches(['.', '-']);
    if trimmed.is_empty() {
        fallback.to_string()
    } else {
        trimmed.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::url::{auth_mode, parse_base_url};

    #[test]
    fn records_lose_every_secret_in_every_string() {
        let mut r = Redactor::new();
        r.add("sk-echoed-key-1");
        let mut probe: crate::model::Probe = serde_json::from_value(serde_json::json!({
            "id": "p", "runId": "r", "projectId": "x", "promptId": "q", "repeatIndex": 0, "status": "success",
            "createdAt": "t", "model": "m", "attempts": 1, "latencyMs": 1,
            "usage": {"inputTokens": 0, "outputTokens": 0, "cacheReadInputTokens": 0, "webSearchRequests": 0},
            "rawAnswer": "the key is sk-echoed-key-1", "answer": "", "sources": [], "mentions": [],
            "listItems": [], "otherEntities": [], "answerLinks": []
        }))
        .unwrap();
        probe.queries.push(crate::model::Query {
            index: 1,
            query: Some("sk-echoed-key-1".into()),
            internal: false,
            error: None,
        });
        let clean = r.try_redact_value(probe.clone()).unwrap();
        let text = serde_json::to_string(&clean).unwrap();
        assert!(!text.contains("sk-echoed-key-1") && text.contains("the key is [redacted]"), "{text}");
        assert_eq!(clean.id, probe.id);
        assert_eq!(Redactor::new().try_redact_value(probe.clone()), Ok(probe.clone()));
        // A secret that an enum value spells cannot be removed: the record is refused.
        let mut odd = Redactor::new();
        odd.add("success");
        assert_eq!(odd.try_redact_value(probe), Err(Unredactable));
    }

    #[test]
    fn header_redactor_knows_only_the_secret_headers() {
        let headers =
            [("content-type", "application/json".to_string()), ("authorization", "Bearer sk-secret-1".into())];
        let r = Redactor::for_headers(&headers);
        assert_eq!(r.redact("bad header sk-secret-1 application/json"), "bad header [redacted] application/json");
        let r = Redactor::for_headers(&[("X-Api-Key", " sk-other\u{200b}")]);
        assert_eq!(r.redact("'x-api-key: sk-other\u{200b}'"), "'x-api-key: [redacted]'");
        // security-3 I1: the local proxy's token is a secret header too.
        let r = Redactor::for_headers(&[("x-geo-probe-proxy-token", "tok-PROXY-1")]);
        assert_eq!(r.redact("echo tok-PROXY-1"), "echo [redacted]");
    }

    #[test]
    fn redaction_removes_every_spelling_of_the_key() {
        let mut r = Redactor::new();
        r.add("sk-live/key+1\"x");
        let text = r#"invalid header 'x-api-key: sk-live/key+1"x' json "sk-live/key+1\"x" url sk-live%2Fkey%2B1%22x"#;
        let out = r.redact(text);
        assert!(!out.contains("sk-live"), "{out}");
        assert_eq!(out.matches(REDACTED).count(), 3, "{out}");
        assert!(matches!(r.redact("nothing here"), Cow::Borrowed(_)));
        let mut short = Redactor::new();
        short.add("ab");
        assert!(short.is_empty());
    }

    #[test]
    fn an_endpoint_redacts_its_key_and_its_secret_query_values_only() {
        use crate::model::{EngineId, RunConfig};
        use crate::provider::{Caller, Endpoint};
        for engine in EngineId::ALL {
            let config = RunConfig { engine, ..RunConfig::default() };
            let e = Endpoint::new(
                &config,
                Some("https://gw.example/v1?alt=json&api-version=2025-04-01-preview&token=T0KEN-9"),
                Some("sk-endpoint-key-1"),
                Caller::Browser,
            );
            let r = Redactor::for_endpoint(&e);
            let out = r.redact("key sk-endpoint-key-1, token T0KEN-9, json 2025-04-01-preview");
            assert_eq!(out, "key [redacted], token [redacted], json 2025-04-01-preview", "{engine}");
            let proxy = Endpoint::new(&config, Some("https://gw.example/?alt=json"), None, Caller::Browser);
            assert!(Redactor::for_endpoint(&proxy).is_empty(), "{engine}: nothing secret to remove");
        }
    }

    #[test]
    fn a_session_redacts_its_key_and_its_base_urls_query() {
        let base = parse_base_url("https://gw.example/x?token=T0KEN-1").unwrap();
        let mode = auth_mode(Some("sk-0123456789"), base.as_ref()).unwrap();
        let r = Redactor::for_session(&mode, base.as_ref());
        let out = r.redact("error: Bearer sk-0123456789 at https://gw.example/x?token=T0KEN-1");
        assert!(!out.contains("sk-0123456789") && !out.contains("T0KEN-1"), "{out}");
    }

    #[test]
    fn stream_redaction_finds_a_key_split_across_pieces() {
        let mut r = Redactor::new();
        r.add("sk-SPLITKEY");
        let text = "answer: sk-SPLITKEY and more text, 元构场 sk-SPLITKEY end";
        for size in 1..text.len() {
            let mut s = StreamRedactor::new(r.clone());
            let mut out = String::new();
            let mut rest = text;
            while !rest.is_empty() {
                let mut cut = size.min(rest.len());
                while !rest.is_char_boundary(cut) {
                    cut += 1;
                }
                out.push_str(&s.push(&rest[..cut]));
                rest = &rest[cut..];
            }
            out.push_str(&s.finish());
            assert_eq!(out, "answer: [redacted] and more text, 元构场 [redacted] end", "pieces of {size}");
        }
    }

    #[test]
    fn byte_streams_lose_a_secret_split_anywhere_and_keep_everything_else() {
        // security-3 M1: what geo-probe proxy passes back, split as the network splits it.
        let mut r = Redactor::new();
        r.add("sk-PROXYKEY-0123");
        r.add("T0KEN/9");
        let body: Vec<u8> = [
            &b"HTTP echo \xff\xfe auth=Bearer sk-PROXYKEY-0123; q=T0KEN%2F9 "[..],
            "元构场 sk-PROXYKEY-0".as_bytes(),
            b" sk-PROXYKEY-0123sk-PROXYKEY-0123 end T0KEN/9",
        ]
        .concat();
        let whole = r.redact_bytes(&body).into_owned();
        assert!(find_bytes(&whole, b"PROXYKEY-0123", 0).is_none() && find_bytes(&whole, b"T0KEN", 0).is_none());
        assert_eq!(whole.windows(REDACTED.len()).filter(|w| *w == REDACTED.as_bytes()).count(), 5);
        assert!(find_bytes(&whole, "元构场 sk-PROXYKEY-0 ".as_bytes(), 0).is_some(), "an unfinished key stays");
        for size in 1..body.len() {
            let mut s = ByteStreamRedactor::new(r.clone());
            let mut out = Vec::new();
            for piece in body.chunks(size) {
                out.extend(s.push(piece));
            }
            out.extend(s.finish());
            assert_eq!(out, whole, "pieces of {size}");
        }
    }

    #[test]
    fn a_byte_stream_holds_back_only_what_could_start_a_secret() {
        let mut r = Redactor::new();
        r.add("sk-HELD-KEY");
        let mut s = ByteStreamRedactor::new(r);
        // An event that cannot be the start of the key goes out at once (SSE keeps flowing).
        assert_eq!(s.push(b"data: {\"a\":1}\n\n"), b"data: {\"a\":1}\n\n");
        assert_eq!(s.push(b"data: sk-HE"), b"data: ");
        assert_eq!(s.push(b"LD-KEY!"), b"[redacted]!");
        assert_eq!(s.push(b"x sk"), b"x ");
        assert_eq!(s.finish(), b"sk");
        let mut none = ByteStreamRedactor::new(Redactor::new());
        assert_eq!(none.push(b"sk"), b"sk");
    }

    #[test]
    fn terminal_text_replaces_controls() {
        assert_eq!(terminal_text("a\u{1b}[2Jb\rc\u{9b}d\u{7f}", false), "a\u{FFFD}[2Jb c\u{FFFD}d\u{FFFD}");
        assert_eq!(terminal_text("line\nnext\tcol\r\n", true), "line\nnext\tcol\u{FFFD}\n");
        assert_eq!(terminal_text("line\nnext\tx", false), "line next x");
        assert_eq!(terminal_text("abc\u{202E}txt.exe", true), "abc\u{FFFD}txt.exe");
        assert!(matches!(terminal_text("元构场 ok", false), Cow::Borrowed(_)));
    }

    #[test]
    fn only_http_links_become_hrefs() {
        assert_eq!(safe_href(" https://a.example/x?y=1 ").as_deref(), Some("https://a.example/x?y=1"));
        assert_eq!(safe_href("HTTP://A.example").as_deref(), Some("http://a.example/"));
        assert_eq!(safe_href("https://user:pw@a.example/p").as_deref(), Some("https://a.example/p"));
        for bad in [
            "javascript:alert(1)",
            " JavaScript:alert(1)",
            "data:text/html,x",
            "mailto:a@b.example",
            "https://",
            "/x",
            "",
        ] {
            assert_eq!(safe_href(bad), None, "{bad}");
        }
        assert!(link_scheme_allowed("mailto:a@b.example", true));
        assert!(!link_scheme_allowed("mailto:a@b.example", false));
    }

    #[test]
    fn file_names_from_imported_text() {
        assert_eq!(file_name("元构场 GEO/监测", "export"), "元构场-GEO-监测");
        assert_eq!(file_name("../../etc/passwd", "export"), "etc-passwd");
        assert_eq!(file_name("a\u{0}b\r\nc", "export"), "a-b-c");
        assert_eq!(file_name("...", "export"), "export");
        assert_eq!(file_name("run_2026-11-29", "export"), "run_2026-11-29");
        assert_eq!(file_name(&"x".repeat(200), "export").chars().count(), MAX_FILE_NAME_CHARS);
    }
}
