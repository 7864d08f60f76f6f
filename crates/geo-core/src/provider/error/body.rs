//! What an error body says, whichever envelope it came in ([`parse_error_body`] →
//! [`ProviderErrorBody`]).
//!
//! Bodies reach us as Anthropic's `{"type":"error","error":{"type","message"}}`, the
//! OpenAI-style `{"error":{"message","type","code"}}` that DeepSeek's `/anthropic` endpoint
//! actually sends, Gemini's google.rpc `{"error":{"code","status","message"}}`, DashScope's flat
//! `{"code","message"}`, Tencent Cloud's `{"Response":{"Error":{"Code","Message"}}}`, an HTML
//! page (a gateway's) or plain text. This file only reads them, the same way for every engine;
//! what a body means is `kind`'s (with each engine's own codes handed in). A leaf: it imports
//! nothing of `provider/`.

/// Longest provider message kept in an error (characters).
pub const MAX_PROVIDER_MESSAGE_CHARS: usize = 300;

/// What an error body says, whichever envelope it came in.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProviderErrorBody {
    /// `error.type` (e.g. `authentication_error`, `overloaded_error`).
    pub error_type: Option<String>,
    /// `error.message`, or the trimmed text of a non-JSON body.
    pub message: Option<String>,
    /// `error.code` (OpenAI-style bodies).
    pub code: Option<String>,
}

/// A string value trimmed, unless absent, not a string or blank.
pub(crate) fn non_empty(v: Option<&serde_json::Value>) -> Option<String> {
    v.and_then(serde_json::Value::as_str).map(str::trim).filter(|s| !s.is_empty()).map(str::to_string)
}

/// An error code as text: a number as written (`429`, Tencent's `4001`), else a non-empty string.
fn code_text(v: Option<&serde_json::Value>) -> Option<String> {
    match v {
        Some(serde_json::Value::Number(n)) => Some(n.to_string()),
        other => non_empty(other),
    }
}

/// `text` cut to its first `max` characters, with `…` when it was longer.
pub(crate) fn truncate_chars(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_string(),
    }
}

/// The words of an HTML error page (a gateway's, such as Perplexity's openresty 401): its
/// `<title>`, else its text without tags, whitespace collapsed. Scripts and styles are dropped.
///
/// Linear in the page's length (security review II, finding 1): one lower-cased copy of the
/// whole page (ASCII lower-casing keeps every byte offset) and a cursor that only moves
/// forward; each tag is looked up from the cursor, never from the start, and nothing is
/// copied per tag.
fn html_text(html: &str) -> String {
    let lower = html.to_ascii_lowercase();
    if let (Some(start), Some(end)) = (lower.find("<title>"), lower.find("</title>")) {
        if start + 7 <= end {
            let title = html[start + 7..end].split_whitespace().collect::<Vec<_>>().join(" ");
            if !title.is_empty() {
                return title;
            }
        }
    }
    let mut text = String::new();
    let mut at = 0;
    while let Some(open) = lower[at..].find('<').map(|i| at + i) {
        text.push_str(&html[at..open]);
        text.push(' ');
        let tail = &lower[open..];
        let skip_to = [("<script", "</script>"), ("<style", "</style>")]
            .iter()
            .find_map(|(start, end)| tail.starts_with(start).then(|| tail.find(end).map(|i| open + i + end.len())));
        at = match skip_to {
            Some(Some(end)) => end,
            Some(None) => html.len(),
            None => tail.find('>').map_or(html.len(), |close| open + close + 1),
        };
    }
    text.push_str(&html[at..]);
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Reads an error body: Anthropic or OpenAI envelope, a bare `{"message"}`, an HTML page
/// (its title), or plain text.
pub fn parse_error_body(body: &str) -> ProviderErrorBody {
    let trimmed = body.trim();
    let Ok(value) = serde_json::from_str::<serde_json::Value>(trimmed) else {
        let text = if trimmed.starts_with('<') { html_text(trimmed) } else { trimmed.to_string() };
        let message = (!text.is_empty()).then(|| truncate_chars(&text, MAX_PROVIDER_MESSAGE_CHARS));
        return ProviderErrorBody { message, ..ProviderErrorBody::default() };
    };
    let mut out = ProviderErrorBody::default();
    // Tencent Cloud API 3.0 (Hunyuan's native envelope): `{"Response":{"Error":{"Code","Message"}}}`.
    if let Some(err) = value.pointer("/Response/Error").filter(|e| e.is_object()) {
        out.code = code_text(err.get("Code"));
        out.message = non_empty(err.get("Message")).map(|m| truncate_chars(&m, MAX_PROVIDER_MESSAGE_CHARS));
        return out;
    }
    match value.get("error") {
        Some(err @ serde_json::Value::Object(_)) => {
            // Gemini's google.rpc.Status has no `type`; its `status` names the same thing.
            out.error_type = non_empty(err.get("type")).or_else(|| non_empty(err.get("status")));
            out.message = non_empty(err.get("message"));
            out.code = code_text(err.get("code"));
        }
        Some(serde_json::Value::String(s)) if !s.trim().is_empty() => out.message = Some(s.trim().to_string()),
        _ => {}
    }
    if out.message.is_none() {
        out.message = non_empty(value.get("message"));
    }
    // DashScope's native bodies are flat: `{"request_id","code","message"}`.
    if out.code.is_none() && !value.get("error").is_some_and(serde_json::Value::is_object) {
        out.code = non_empty(value.get("code"));
    }
    if out.message.is_none() && !value.is_object() {
        out.message = Some(truncate_chars(trimmed, MAX_PROVIDER_MESSAGE_CHARS));
    }
    out.message = out.message.map(|m| truncate_chars(&m, MAX_PROVIDER_MESSAGE_CHARS));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_bodies_are_read_in_every_shape() {
        let p = parse_error_body(r#"{"error":{"message":" m ","type":"t","code":42}}"#);
        assert_eq!(
            p,
            ProviderErrorBody { error_type: Some("t".into()), message: Some("m".into()), code: Some("42".into()) }
        );
        assert_eq!(parse_error_body(r#"{"message":"plain"}"#).message.as_deref(), Some("plain"));
        assert_eq!(parse_error_body("  <html>bad gateway</html> ").message.as_deref(), Some("bad gateway"));
        assert_eq!(
            parse_error_body("<html><head><title>401 Authorization Required</title></head><body>x</body></html>")
                .message
                .as_deref(),
            Some("401 Authorization Required")
        );
        assert_eq!(
            parse_error_body("<html><script>var a = '<b>';</script><p>502  Bad\n Gateway</p><style>p{}</style></html>")
                .message
                .as_deref(),
            Some("502 Bad Gateway")
        );
        assert_eq!(parse_error_body("<html><script>unterminated").message, None);
        assert_eq!(parse_error_body("").message, None);
        assert_eq!(parse_error_body("{}"), ProviderErrorBody::default());
        assert_eq!(parse_error_body("\"quoted\"").message.as_deref(), Some("\"quoted\""));
        let long = "x".repeat(1000);
        assert_eq!(parse_error_body(&long).message.unwrap().chars().count(), MAX_PROVIDER_MESSAGE_CHARS + 1);
        let long_cjk = "错".repeat(1000);
        assert!(parse_error_body(&long_cjk).message.unwrap().ends_with('…'));
    }
}
