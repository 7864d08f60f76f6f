//! Error mapping: HTTP status and error body → [`ProbeError`], and the UI's wording of it.
//!
//! Two body shapes reach us. Anthropic's `{"type":"error","error":{"type","message"}}` and
//! the OpenAI-style `{"error":{"message","type","code"}}` that DeepSeek's `/anthropic`
//! endpoint actually sends (see the reference captures); proxies may also answer with plain
//! text. The status decides the kind, with one exception: an out-of-credit body
//! ("Insufficient Balance", "credit balance is too low") is a balance error whatever the
//! status, because Anthropic reports it as 400 and proxies may relay it as anything.
//!
//! The other engines add their own rules on top (engines.md, "Errors and retries"):
//! OpenAI's `429` with `insufficient_quota` is `balance`, Gemini's `400` with the reason
//! `API_KEY_INVALID` is `auth`, and Gemini/Perplexity bodies carry the status as a number
//! in `error.code` and Gemini's status name in `error.status`. Every message names the
//! engine that failed.

use super::engine::{spec, BrowserAccess, Caller};
use crate::model::{EngineId, ErrorKind, Localized, ProbeError};

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

fn non_empty(v: Option<&serde_json::Value>) -> Option<String> {
    v.and_then(serde_json::Value::as_str).map(str::trim).filter(|s| !s.is_empty()).map(str::to_string)
}

/// An error code as text: a number as written (`429`, Tencent's `4001`), else a non-empty string.
fn code_text(v: Option<&serde_json::Value>) -> Option<String> {
    match v {
        Some(serde_json::Value::Number(n)) => Some(n.to_string()),
        other => non_empty(other),
    }
}

fn truncate_chars(text: &str, max: usize) -> String {
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

/// True when the body says the account is out of credit, whatever the HTTP status.
pub fn is_balance_message(parsed: &ProviderErrorBody) -> bool {
    let message = parsed.message.as_deref().unwrap_or("").to_lowercase();
    parsed.error_type.as_deref() == Some("billing_error")
        || ["insufficient balance", "credit balance is too low", "insufficient_balance", "余额不足"]
            .iter()
            .any(|needle| message.contains(needle))
}

/// The kind named by an error `type` alone (used when no status says more, e.g. a 200 body).
fn kind_from_error_type(error_type: Option<&str>) -> ErrorKind {
    match error_type {
        Some("authentication_error") => ErrorKind::Auth,
        Some("permission_error") => ErrorKind::Forbidden,
        Some("billing_error") => ErrorKind::Balance,
        Some("rate_limit_error") => ErrorKind::RateLimit,
        Some("api_error" | "overloaded_error") => ErrorKind::Server,
        Some("timeout_error") => ErrorKind::Timeout,
        // OpenAI.
        Some("insufficient_quota") => ErrorKind::Balance,
        // google.rpc status names (Gemini).
        Some("UNAUTHENTICATED") => ErrorKind::Auth,
        Some("PERMISSION_DENIED") => ErrorKind::Forbidden,
        Some("RESOURCE_EXHAUSTED") => ErrorKind::RateLimit,
        Some("INTERNAL" | "UNAVAILABLE") => ErrorKind::Server,
        Some("DEADLINE_EXCEEDED") => ErrorKind::Timeout,
        _ => ErrorKind::Http,
    }
}

/// The `details[].reason` values of a google.rpc error body (Gemini), in order.
fn rpc_reasons(body: &str) -> Vec<String> {
    let Ok(value) = serde_json::from_str::<serde_json::Value>(body.trim()) else { return Vec::new() };
    let details = value.get("error").and_then(|e| e.get("details")).and_then(serde_json::Value::as_array);
    details
        .into_iter()
        .flatten()
        .filter_map(|d| d.get("reason").and_then(serde_json::Value::as_str))
        .map(str::to_string)
        .collect()
}

/// The kind an engine's own rules give a body, before the status table (engines.md):
/// OpenAI's `insufficient_quota` (in `code` or `type`) is balance whatever the status;
/// Gemini's `API_KEY_INVALID` reason is auth although the status is 400; the Chinese
/// engines' codes are read by their own modules (`status` is 0 for an envelope inside a 2xx).
fn engine_kind(engine: EngineId, status: u16, body: &str, parsed: &ProviderErrorBody) -> Option<ErrorKind> {
    match engine {
        EngineId::Openai => (parsed.code.as_deref() == Some("insufficient_quota")
            || parsed.error_type.as_deref() == Some("insufficient_quota"))
        .then_some(ErrorKind::Balance),
        EngineId::Gemini => rpc_reasons(body).iter().any(|r| r == "API_KEY_INVALID").then_some(ErrorKind::Auth),
        EngineId::Qwen => super::qwen::error_kind(status, parsed),
        EngineId::Doubao => super::doubao::error_kind(status, parsed),
        EngineId::Ernie => super::ernie::error_kind(status, parsed),
        EngineId::Hunyuan => super::hunyuan::error_kind(status, parsed),
        EngineId::Deepseek | EngineId::Anthropic | EngineId::Perplexity => None,
    }
}

/// The numeric HTTP status some engines repeat in `error.code` (Gemini, Perplexity).
fn status_in_body(parsed: &ProviderErrorBody) -> Option<u16> {
    parsed.code.as_deref().and_then(|c| c.parse::<u16>().ok()).filter(|s| (400..600).contains(s))
}

/// The kind for an HTTP status (seed §3.4 table).
pub fn kind_for_status(status: u16) -> ErrorKind {
    match status {
        401 => ErrorKind::Auth,
        402 => ErrorKind::Balance,
        403 => ErrorKind::Forbidden,
        408 => ErrorKind::Timeout,
        429 => ErrorKind::RateLimit,
        500..=599 => ErrorKind::Server,
        _ => ErrorKind::Http,
    }
}

/// The engine's name as it appears in lowercase messages.
fn lower_name(engine: EngineId) -> String {
    spec(engine).name.to_lowercase()
}

/// What happened and what to do, in English, for a mapped error kind of `engine`.
fn headline(engine: EngineId, kind: ErrorKind) -> (String, &'static str) {
    let name = lower_name(engine);
    let balance_todo = match engine {
        EngineId::Deepseek => "top up on the deepseek platform, then retry",
        _ => "add credit or raise the quota on the engine's platform, then retry",
    };
    match kind {
        ErrorKind::Auth if engine == EngineId::Qwen => {
            (format!("{name} rejected the api key"), super::qwen::AUTH_REGION_HINT)
        }
        ErrorKind::Auth => (format!("{name} rejected the api key"), "check the key in settings"),
        ErrorKind::Balance => (format!("the {name} account balance is insufficient"), balance_todo),
        ErrorKind::Forbidden => {
            (format!("{name} refused the request"), "check that the key may use this model and endpoint")
        }
        ErrorKind::RateLimit => {
            (format!("{name} rate limit reached"), "lower the concurrency or wait a moment, then retry")
        }
        ErrorKind::Server => (format!("{name} server error or overload"), "retry in a moment"),
        ErrorKind::Timeout => ("the request timed out".to_string(), "retry in a moment"),
        ErrorKind::Network => ("network error".to_string(), "check the connection or the api base url"),
        // DeepSeek's wording predates the other engines and is kept.
        ErrorKind::InvalidJson if engine == EngineId::Deepseek => {
            ("the response is not a valid messages response".to_string(), "check the api base url or proxy")
        }
        ErrorKind::InvalidJson => {
            (format!("the response is not a valid {name} response"), "check the api base url or proxy")
        }
        ErrorKind::Empty => ("the model returned an empty answer".to_string(), "retry the probe"),
        ErrorKind::Http => ("the request failed".to_string(), "check the model name and the api base url"),
        ErrorKind::Refused => (
            format!("refused by the {name} content filter"),
            "rephrase the prompt if it should be answered; a refusal is not retried",
        ),
    }
}

/// A content-filter refusal of `engine` (engines.md, "Chinese engines"): `refused`, never
/// retried; `status` is the HTTP status it came with (200 when the filter answered inside a
/// successful reply), `detail` the engine's own words (finish reason, code).
pub fn refused_error(engine: EngineId, status: Option<u16>, detail: &str) -> ProbeError {
    let parsed = ProviderErrorBody {
        message: non_empty(Some(&serde_json::Value::String(detail.to_string())))
            .map(|m| truncate_chars(&m, MAX_PROVIDER_MESSAGE_CHARS)),
        ..ProviderErrorBody::default()
    };
    compose(engine, ErrorKind::Refused, status, &parsed)
}

fn compose(engine: EngineId, kind: ErrorKind, status: Option<u16>, parsed: &ProviderErrorBody) -> ProbeError {
    let (what, todo) = headline(engine, kind);
    let mut detail = Vec::new();
    if let Some(s) = status {
        detail.push(format!("http {s}"));
    }
    let mut provider = String::new();
    // DashScope's flat bodies and Tencent's envelope name the error by `code` alone.
    if let Some(t) = parsed.error_type.as_deref().or(parsed.code.as_deref().filter(|c| c.parse::<u16>().is_err())) {
        provider.push_str(t);
    }
    if let Some(m) = parsed.message.as_deref() {
        if !provider.is_empty() {
            provider.push_str(": ");
        }
        provider.push_str(m);
    }
    if !provider.is_empty() {
        detail.push(provider);
    }
    let message =
        if detail.is_empty() { format!("{what}; {todo}") } else { format!("{what} ({}); {todo}", detail.join(", ")) };
    ProbeError { kind, http_status: status, message }
}

/// Maps a non-success response (status and body) to a probe error.
///
/// 401→auth, 402→balance, 403→forbidden, 408→timeout, 429→rate_limit, 5xx (incl. 529
/// overloaded)→server, anything else→http; an out-of-credit body is balance regardless
/// of status. `http_status` is always set; the message includes the provider's own words.
pub fn map_http_error(status: u16, body: &str) -> ProbeError {
    map_engine_http_error(EngineId::Deepseek, status, body)
}

/// [`map_http_error`] with `engine`'s own rules and name: its specific bodies first
/// (OpenAI `insufficient_quota` → balance, Gemini `API_KEY_INVALID` → auth), then an
/// out-of-credit message, then the status table. A body that is not JSON (Perplexity's
/// HTML 401 page) is classified by its status alone.
pub fn map_engine_http_error(engine: EngineId, status: u16, body: &str) -> ProbeError {
    let parsed = parse_error_body(body);
    let kind = if let Some(kind) = engine_kind(engine, status, body, &parsed) {
        kind
    } else if is_balance_message(&parsed) {
        ErrorKind::Balance
    } else if (200..300).contains(&status) {
        envelope_kind(&parsed)
    } else {
        kind_for_status(status)
    };
    compose(engine, kind, Some(status), &parsed)
}

/// The kind of an error envelope without a useful HTTP status: by its type or status name,
/// else by the status number some engines repeat in `error.code`.
fn envelope_kind(parsed: &ProviderErrorBody) -> ErrorKind {
    match kind_from_error_type(parsed.error_type.as_deref()) {
        ErrorKind::Http => status_in_body(parsed).map_or(ErrorKind::Http, kind_for_status),
        kind => kind,
    }
}

/// Maps an error envelope that arrived where a Messages response was expected (no status known).
pub(crate) fn map_error_envelope(body: &str) -> ProbeError {
    map_engine_error_envelope(EngineId::Deepseek, body)
}

/// Maps an error envelope of `engine` that arrived inside a 2xx response (no status known).
pub(crate) fn map_engine_error_envelope(engine: EngineId, body: &str) -> ProbeError {
    let parsed = parse_error_body(body);
    let kind = if let Some(kind) = engine_kind(engine, 0, body, &parsed) {
        kind
    } else if is_balance_message(&parsed) {
        ErrorKind::Balance
    } else {
        envelope_kind(&parsed)
    };
    compose(engine, kind, None, &parsed)
}

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
        .and_then(|l| super::url::Url::parse(l.trim()).ok())
        .filter(|u| u.host_str().is_some())
        .map(|u| format!(" to {}", super::url::host_for_messages(&u)))
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
        let name = lower_name(engine);
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
        lower_name(engine)
    );
    err
}

/// How [`local_proxy_network_error`]'s message starts.
const LOCAL_PROXY_SILENT: &str = "no response from geo-probe proxy at";

/// The `error.type` of the bodies `geo-probe proxy` answers itself (401 token, 403 origin or
/// host, 404 path, 413 body, 502/504 upstream unreachable).
pub const LOCAL_PROXY_ERROR_TYPE: &str = "geo_probe_proxy";

/// What [`describe_engine_error`] says of an error that `geo-probe proxy` itself caused, or
/// `None` for any other.
pub(crate) fn describe_local_proxy(engine: EngineId, err: &ProbeError) -> Option<Localized> {
    let name = spec(engine).name;
    if err.kind == ErrorKind::Network && err.message.starts_with(LOCAL_PROXY_SILENT) {
        return Some(Localized::new(
            "本地代理 geo-probe proxy 没有响应：它没有运行，或启动时没有用 --allow-origin 允许本页面；请用设置页给出的命令启动它",
            "geo-probe proxy did not answer: it is not running, or it was started without --allow-origin for this page; start it with the command settings shows",
        ));
    }
    if !err.message.contains(LOCAL_PROXY_ERROR_TYPE) {
        return None;
    }
    let (zh, en) = match err.http_status {
        Some(401) => (
            "本地代理 geo-probe proxy 拒绝了请求：口令缺失或错误。请把它启动时打印的 token 粘贴到设置中".to_string(),
            "geo-probe proxy refused the request: its token is missing or wrong; paste the token it printed at start into settings".to_string(),
        ),
        Some(404) => (
            format!("本地代理 geo-probe proxy 不转发 {name}：请设置 {} 后重新启动它", spec(engine).key_env),
            format!("geo-probe proxy does not serve {}: set {} and start it again", lower_name(engine), spec(engine).key_env),
        ),
        _ => (
            "本地代理 geo-probe proxy 未能完成请求，详见它的终端输出".to_string(),
            "geo-probe proxy could not complete the request; see its terminal".to_string(),
        ),
    };
    Some(with_status(err, zh, en))
}

/// True when a network error's message is the browser one of [`engine_network_error`].
pub fn is_browser_block_message(message: &str) -> bool {
    message.contains("(cors)")
}

/// The request succeeded but the cleaned answer was empty.
pub fn empty_answer_error() -> ProbeError {
    let (what, todo) = headline(EngineId::Deepseek, ErrorKind::Empty);
    ProbeError { kind: ErrorKind::Empty, http_status: None, message: format!("{what}; {todo}") }
}

/// The body of a successful response could not be read as a Messages response.
pub fn invalid_json_error(detail: &str) -> ProbeError {
    engine_invalid_json_error(EngineId::Deepseek, detail)
}

/// The body of a successful response could not be read as `engine`'s response.
pub fn engine_invalid_json_error(engine: EngineId, detail: &str) -> ProbeError {
    let (what, todo) = headline(engine, ErrorKind::InvalidJson);
    let detail = truncate_chars(detail.trim(), MAX_PROVIDER_MESSAGE_CHARS);
    ProbeError { kind: ErrorKind::InvalidJson, http_status: None, message: format!("{what} ({detail}); {todo}") }
}

/// A short zh/en message for the UI: what happened and what the user can do (DeepSeek).
pub fn describe_error(err: &ProbeError) -> Localized {
    describe_engine_error(EngineId::Deepseek, err)
}

/// [`describe_error`] for a probe of `engine`: the engine is named where the wording
/// depends on it, and a browser's blocked request points to the proxy base URL.
pub fn describe_engine_error(engine: EngineId, err: &ProbeError) -> Localized {
    if let Some(words) = describe_local_proxy(engine, err) {
        return words;
    }
    if engine != EngineId::Deepseek || (err.kind == ErrorKind::Network && is_browser_block_message(&err.message)) {
        return describe_other_engine(engine, err);
    }
    let (zh, en) = match err.kind {
        ErrorKind::Auth => {
            ("API Key 无效或已失效，请在设置中检查 Key", "the api key is invalid or revoked; check it in settings")
        }
        ErrorKind::Balance => (
            "DeepSeek 账户余额不足，请前往 DeepSeek 开放平台充值后重试",
            "insufficient balance on the deepseek account; top up on the deepseek platform, then retry",
        ),
        ErrorKind::Forbidden => (
            "请求被拒绝，请确认该 Key 有权使用所选模型和接口",
            "request refused; check that the key may use the chosen model and endpoint",
        ),
        ErrorKind::RateLimit => {
            ("请求过于频繁（限流），请降低并发或稍后重试", "rate limited; lower the concurrency or retry in a moment")
        }
        ErrorKind::Server => {
            ("DeepSeek 服务端异常或过载，请稍后重试", "deepseek server error or overload; retry in a moment")
        }
        ErrorKind::Timeout => ("请求超时，请稍后重试", "the request timed out; retry in a moment"),
        ErrorKind::Network => (
            "网络错误，无法连接 DeepSeek，请检查网络或 API 地址",
            "network error, deepseek unreachable; check the connection or the api base url",
        ),
        ErrorKind::InvalidJson => (
            "响应不是合法的 JSON，请检查 API 地址或代理设置",
            "the response is not valid json; check the api base url or proxy",
        ),
        ErrorKind::Empty => ("模型返回了空回答，可重试该 Probe", "the model returned an empty answer; retry the probe"),
        ErrorKind::Http => {
            ("请求失败，请检查模型名称和 API 地址", "the request failed; check the model name and the api base url")
        }
        ErrorKind::Refused => ("内容审核拒答", "refused by the engine's content filter"),
    };
    with_status(err, zh.to_string(), en.to_string())
}

fn with_status(err: &ProbeError, zh: String, en: String) -> Localized {
    match err.http_status {
        Some(s) => Localized::new(format!("{zh}（HTTP {s}）"), format!("{en} (http {s})")),
        None => Localized::new(zh, en),
    }
}

/// The wording of [`describe_engine_error`] for an engine other than DeepSeek, and for a
/// browser's blocked request of any engine.
fn describe_other_engine(engine: EngineId, err: &ProbeError) -> Localized {
    let name = spec(engine).name;
    let lower = lower_name(engine);
    let (zh, en) = match err.kind {
        ErrorKind::Auth if engine == EngineId::Qwen => (
            format!("{name} 的 API Key 无效或已失效：{}", super::qwen::AUTH_REGION_HINT_ZH),
            format!("the {lower} api key is invalid or revoked: {}", super::qwen::AUTH_REGION_HINT),
        ),
        ErrorKind::Auth => (
            format!("{name} 的 API Key 无效或已失效，请在设置中检查 Key"),
            format!("the {lower} api key is invalid or revoked; check it in settings"),
        ),
        ErrorKind::Balance => (
            format!("{name} 账户余额或额度不足，请在其平台充值或提高额度后重试"),
            format!("the {lower} account is out of credit or quota; add credit on its platform, then retry"),
        ),
        ErrorKind::Forbidden => (
            format!("{name} 拒绝了请求，请确认该 Key 有权使用所选模型和接口"),
            format!("{lower} refused the request; check that the key may use the chosen model and endpoint"),
        ),
        ErrorKind::RateLimit => (
            format!("{name} 请求过于频繁（限流），请降低并发或稍后重试"),
            format!("{lower} rate limited the request; lower the concurrency or retry in a moment"),
        ),
        ErrorKind::Server => {
            (format!("{name} 服务端异常或过载，请稍后重试"), format!("{lower} server error or overload; retry in a moment"))
        }
        ErrorKind::Timeout => ("请求超时，请稍后重试".to_string(), "the request timed out; retry in a moment".to_string()),
        ErrorKind::Network if is_browser_block_message(&err.message) => (
            format!("无法从浏览器连接 {name}：它可能不允许浏览器直接调用（CORS）。请启动 geo-probe proxy 并在设置中开启“使用本地代理”，或为 {name} 填写代理 API 地址，或检查网络"),
            format!("{lower} could not be reached from the browser: it may not allow browser calls (cors); start geo-probe proxy and turn on the local proxy in settings, or set a proxy base url for {lower}, or check the connection"),
        ),
        ErrorKind::Network => (
            format!("网络错误，无法连接 {name}，请检查网络或 API 地址"),
            format!("network error, {lower} unreachable; check the connection or the api base url"),
        ),
        ErrorKind::InvalidJson => (
            format!("{name} 的响应无法解析，请检查 API 地址或代理设置"),
            format!("the {lower} response could not be read; check the api base url or proxy"),
        ),
        ErrorKind::Empty => ("模型返回了空回答，可重试该 Probe".to_string(), "the model returned an empty answer; retry the probe".to_string()),
        ErrorKind::Http => (
            format!("{name} 请求失败，请检查模型名称和 API 地址"),
            format!("the {lower} request failed; check the model name and the api base url"),
        ),
        ErrorKind::Refused => (
            format!("内容审核拒答：{name} 的内容审核拒绝回答该 Prompt，不会重试"),
            format!("refused by the engine's content filter: {lower} declined this prompt; it is not retried"),
        ),
    };
    with_status(err, zh, en)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::REQUEST_TIMEOUT_MS;

    #[track_caller]
    fn check(status: u16, body: &str, kind: ErrorKind, needles: &[&str]) {
        let err = map_http_error(status, body);
        assert_eq!(err.kind, kind, "{status} {body}");
        assert_eq!(err.http_status, Some(status));
        for n in needles {
            assert!(err.message.contains(n), "{:?} lacks {n:?}", err.message);
        }
        assert!(!err.message.ends_with('.'), "{}", err.message);
        assert!(err.message.starts_with(|c: char| !c.is_uppercase()), "{}", err.message);
    }

    #[test]
    fn status_table() {
        let anthropic = |t: &str, m: &str| {
            format!(r#"{{"type":"error","error":{{"type":"{t}","message":"{m}"}},"request_id":"req_1"}}"#)
        };
        check(
            401,
            &anthropic("authentication_error", "invalid x-api-key"),
            ErrorKind::Auth,
            &["http 401", "invalid x-api-key", "check the key"],
        );
        check(402, "", ErrorKind::Balance, &["http 402", "top up"]);
        check(403, &anthropic("permission_error", "no access"), ErrorKind::Forbidden, &["no access"]);
        check(408, "", ErrorKind::Timeout, &["http 408"]);
        check(429, &anthropic("rate_limit_error", "slow down"), ErrorKind::RateLimit, &["slow down", "concurrency"]);
        check(500, &anthropic("api_error", "boom"), ErrorKind::Server, &["api_error: boom"]);
        check(503, "Service Unavailable", ErrorKind::Server, &["Service Unavailable"]);
        check(529, &anthropic("overloaded_error", "Overloaded"), ErrorKind::Server, &["overloaded_error: Overloaded"]);
        check(599, "", ErrorKind::Server, &[]);
        check(400, &anthropic("invalid_request_error", "bad"), ErrorKind::Http, &["http 400", "bad"]);
        check(
            404,
            &anthropic("not_found_error", "The requested resource could not be found."),
            ErrorKind::Http,
            &["not_found_error"],
        );
        check(422, "Failed to deserialize the JSON body", ErrorKind::Http, &["http 422", "Failed to deserialize"]);
        check(418, "", ErrorKind::Http, &[]);
    }

    #[test]
    fn openai_shaped_deepseek_bodies() {
        check(
            401,
            r#"{"error":{"message":"Authentication Fails, Your api key: ****cd15 is invalid","type":"authentication_error","param":null,"code":"invalid_request_error"}}"#,
            ErrorKind::Auth,
            &["Authentication Fails", "authentication_error"],
        );
        check(
            402,
            r#"{"error":{"message":"Insufficient Balance","type":"unknown_error","param":null,"code":"invalid_request_error"}}"#,
            ErrorKind::Balance,
            &["Insufficient Balance"],
        );
        check(
            400,
            r#"{"error":{"message":"Model Not Exist","type":"invalid_request_error"}}"#,
            ErrorKind::Http,
            &["Model Not Exist"],
        );
    }

    #[test]
    fn balance_bodies_win_over_status() {
        let credit = r#"{"type": "error", "error": {"type": "invalid_request_error", "message": "Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits."}, "request_id": "req_011CavdrVQpjrm2rc6uA6oQw"}"#;
        check(400, credit, ErrorKind::Balance, &["credit balance is too low", "http 400"]);
        check(400, r#"{"error":{"message":"Insufficient Balance"}}"#, ErrorKind::Balance, &[]);
        check(403, r#"{"error":"账户余额不足"}"#, ErrorKind::Balance, &["余额不足"]);
        check(400, r#"{"type":"error","error":{"type":"billing_error","message":"x"}}"#, ErrorKind::Balance, &[]);
        // The concurrency message mentions the balance but is a rate limit.
        check(
            429,
            r#"{"error":{"message":"Your current concurrency is 40, which exceeds your concurrency limit of 39 based on your remaining balance. Please top up your balance to restore your concurrency."}}"#,
            ErrorKind::RateLimit,
            &["concurrency is 40"],
        );
    }

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

    #[test]
    fn a_success_status_with_an_error_body_maps_by_type() {
        let err = map_http_error(200, r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#);
        assert_eq!((err.kind, err.http_status), (ErrorKind::Server, Some(200)));
        assert_eq!(map_http_error(200, r#"{"error":{"type":"whatever"}}"#).kind, ErrorKind::Http);
        assert_eq!(
            map_error_envelope(r#"{"type":"error","error":{"type":"rate_limit_error","message":"m"}}"#).kind,
            ErrorKind::RateLimit
        );
        assert_eq!(map_error_envelope(r#"{"type":"error","error":{"type":"rate_limit_error"}}"#).http_status, None);
    }

    #[track_caller]
    fn check_engine(engine: EngineId, status: u16, body: &str, kind: ErrorKind) -> ProbeError {
        let err = map_engine_http_error(engine, status, body);
        assert_eq!(err.kind, kind, "{engine} {status} {body}");
        assert_eq!(err.http_status, Some(status));
        assert!(err.message.starts_with(|c: char| !c.is_uppercase()) && !err.message.ends_with('.'), "{}", err.message);
        err
    }

    #[test]
    fn engine_specific_bodies() {
        use EngineId::*;
        // OpenAI: quota exhaustion is a 429 like the rate limit; only the body tells them apart.
        let quota = r#"{"error":{"message":"You exceeded your current quota, please check your plan and billing details.","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}"#;
        let e = check_engine(Openai, 429, quota, ErrorKind::Balance);
        assert!(e.message.starts_with("the chatgpt account balance is insufficient"), "{}", e.message);
        check_engine(
            Openai,
            429,
            r#"{"error":{"message":"old","type":"insufficient_quota","code":null}}"#,
            ErrorKind::Balance,
        );
        check_engine(
            Openai,
            429,
            r#"{"error":{"message":"Rate limit reached for o4-mini","type":"tokens","param":null,"code":"rate_limit_exceeded"}}"#,
            ErrorKind::RateLimit,
        );
        check_engine(
            Openai,
            401,
            r#"{"error":{"message":"Incorrect API key provided: sk-VK***wjh3.","type":"invalid_request_error","code":"invalid_api_key"}}"#,
            ErrorKind::Auth,
        );
        // Gemini: a bad key is 400 INVALID_ARGUMENT with the reason API_KEY_INVALID.
        let bad_key = r#"{"error":{"code":400,"message":"API key not valid. Please pass a valid API key.","status":"INVALID_ARGUMENT","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"API_KEY_INVALID","domain":"googleapis.com"}]}}"#;
        let e = check_engine(Gemini, 400, bad_key, ErrorKind::Auth);
        assert!(e.message.contains("INVALID_ARGUMENT: API key not valid"), "{}", e.message);
        check_engine(
            Gemini,
            400,
            r#"{"error":{"code":400,"message":"free tier","status":"FAILED_PRECONDITION"}}"#,
            ErrorKind::Http,
        );
        check_engine(
            Gemini,
            429,
            r#"{"error":{"code":429,"message":"Resource has been exhausted (e.g. check quota).","status":"RESOURCE_EXHAUSTED"}}"#,
            ErrorKind::RateLimit,
        );
        check_engine(Gemini, 402, r#"{"error":{"code":402,"status":"RESOURCE_EXHAUSTED"}}"#, ErrorKind::Balance);
        check_engine(Gemini, 403, r#"{"error":{"code":403,"status":"PERMISSION_DENIED"}}"#, ErrorKind::Forbidden);
        check_engine(Gemini, 503, r#"{"error":{"code":503,"status":"UNAVAILABLE"}}"#, ErrorKind::Server);
        // The same Gemini reason means nothing to another engine's rules.
        check_engine(Openai, 400, bad_key, ErrorKind::Http);
        // Anthropic: 529 overloaded is a server error; no credit is a 400 with a message.
        check_engine(
            Anthropic,
            529,
            r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
            ErrorKind::Server,
        );
        check_engine(
            Anthropic,
            400,
            r#"{"type":"error","error":{"type":"invalid_request_error","message":"Your credit balance is too low to access the Anthropic API."}}"#,
            ErrorKind::Balance,
        );
        // Perplexity: a 401 is an HTML page; the status decides.
        let html = "<html>\n<head><title>401 Authorization Required</title></head>\n<body><center><h1>401 Authorization Required</h1></center></body></html>";
        let e = check_engine(Perplexity, 401, html, ErrorKind::Auth);
        assert!(e.message.starts_with("perplexity rejected the api key"), "{}", e.message);
        check_engine(
            Perplexity,
            400,
            r#"{"error":{"message":"Invalid model 'x'","type":"invalid_model","code":400}}"#,
            ErrorKind::Http,
        );
        // Error envelopes in a 2xx: the status in `error.code` decides when the type says nothing.
        assert_eq!(
            map_engine_error_envelope(Perplexity, r#"{"error":{"message":"m","type":"x","code":429}}"#).kind,
            ErrorKind::RateLimit
        );
        assert_eq!(map_engine_error_envelope(Gemini, bad_key).kind, ErrorKind::Auth);
        assert_eq!(
            map_engine_error_envelope(Gemini, r#"{"error":{"code":500,"status":"INTERNAL"}}"#).kind,
            ErrorKind::Server
        );
    }

    /// What `geo-probe proxy` itself answers (its own `geo_probe_proxy` bodies) and its
    /// silence are told as the proxy's, not as the engine's key or network.
    #[test]
    fn the_local_proxys_own_refusals_and_silence_name_it() {
        let body = |m: &str| format!(r#"{{"error":{{"type":"geo_probe_proxy","message":"geo-probe proxy: {m}"}}}}"#);
        let token = map_engine_http_error(EngineId::Qwen, 401, &body("missing or wrong x-geo-probe-proxy-token"));
        assert_eq!(token.kind, ErrorKind::Auth);
        let d = describe_engine_error(EngineId::Qwen, &token);
        assert!(
            d.en.starts_with("geo-probe proxy refused the request: its token") && d.en.ends_with("(http 401)"),
            "{}",
            d.en
        );
        assert!(d.zh.contains("token"), "{}", d.zh);
        let unserved = map_engine_http_error(EngineId::Doubao, 404, &body("only POST on an engine's own path"));
        let d = describe_engine_error(EngineId::Doubao, &unserved);
        assert!(d.en.contains("ARK_API_KEY") && d.zh.contains("ARK_API_KEY"), "{}", d.en);
        let upstream = map_engine_http_error(EngineId::Ernie, 502, &body("qianfan.baidubce.com did not answer"));
        assert!(describe_engine_error(EngineId::Ernie, &upstream).en.contains("see its terminal"));
        // The engine's own 401 is still the key's.
        let own = map_engine_http_error(EngineId::Qwen, 401, r#"{"code":"InvalidApiKey","message":"Invalid API-key"}"#);
        assert!(!describe_engine_error(EngineId::Qwen, &own).en.contains("geo-probe proxy"));
        let silent = local_proxy_network_error(EngineId::Qwen, "http://127.0.0.1:8788", "Failed to fetch");
        assert_eq!((silent.kind, silent.http_status), (ErrorKind::Network, None));
        assert!(silent.message.contains("http://127.0.0.1:8788") && silent.message.contains("Failed to fetch"));
        for engine in EngineId::ALL {
            let d = describe_engine_error(engine, &silent);
            assert!(d.en.starts_with("geo-probe proxy did not answer") && d.zh.contains("--allow-origin"), "{}", d.en);
        }
    }

    #[test]
    fn a_browser_network_error_points_to_the_proxy_base_url() {
        for engine in EngineId::ALL {
            let e = engine_network_error(engine, Caller::Browser, "Failed to fetch");
            assert_eq!((e.kind, e.http_status), (ErrorKind::Network, None));
            assert!(e.message.contains("proxy base url") && e.message.contains("(cors)"), "{}", e.message);
            assert!(e.message.contains("Failed to fetch"));
            let d = describe_engine_error(engine, &e);
            assert!(d.zh.contains("CORS") && d.zh.contains("代理"), "{}", d.zh);
            assert!(d.en.contains("proxy base url") && d.en.contains("geo-probe proxy"), "{}", d.en);
            assert!(d.zh.contains("geo-probe proxy"), "{}", d.zh);
            let native = engine_network_error(engine, Caller::Native, "refused");
            assert!(!native.message.contains("cors"), "{}", native.message);
        }
        assert!(engine_network_error(EngineId::Gemini, Caller::Browser, "")
            .message
            .contains("may not allow calls from a browser"));
    }

    #[test]
    fn other_engines_are_named_in_descriptions() {
        let e = map_engine_http_error(EngineId::Gemini, 429, "");
        let d = describe_engine_error(EngineId::Gemini, &e);
        assert!(d.zh.starts_with("Gemini") && d.zh.ends_with("（HTTP 429）"), "{}", d.zh);
        assert!(d.en.starts_with("gemini rate limited"), "{}", d.en);
        // DeepSeek keeps its wording.
        assert_eq!(describe_engine_error(EngineId::Deepseek, &e), describe_error(&e));
    }

    #[test]
    fn local_errors() {
        let n = network_error("Failed to fetch");
        assert_eq!((n.kind, n.http_status), (ErrorKind::Network, None));
        assert_eq!(n.message, "network error (Failed to fetch); check the connection or the api base url");
        assert_eq!(network_error("  ").message, "network error; check the connection or the api base url");
        let t = timeout_error(REQUEST_TIMEOUT_MS);
        assert_eq!((t.kind, t.message.as_str()), (ErrorKind::Timeout, "no response within 180 s; retry in a moment"));
        assert_eq!(timeout_error(1500).message, "no response within 1500 ms; retry in a moment");
        let e = empty_answer_error();
        assert_eq!(
            (e.kind, e.message.as_str()),
            (ErrorKind::Empty, "the model returned an empty answer; retry the probe")
        );
        assert_eq!(invalid_json_error("expected value").kind, ErrorKind::InvalidJson);
    }

    #[test]
    fn described_errors_say_what_to_do_in_both_languages() {
        let balance = describe_error(&map_http_error(402, r#"{"error":{"message":"Insufficient Balance"}}"#));
        assert_eq!(balance.zh, "DeepSeek 账户余额不足，请前往 DeepSeek 开放平台充值后重试（HTTP 402）");
        assert_eq!(
            balance.en,
            "insufficient balance on the deepseek account; top up on the deepseek platform, then retry (http 402)"
        );
        assert_eq!(describe_error(&timeout_error(REQUEST_TIMEOUT_MS)).zh, "请求超时，请稍后重试");
        assert_eq!(
            describe_error(&network_error("x")).en,
            "network error, deepseek unreachable; check the connection or the api base url"
        );
        let kinds = [
            ErrorKind::Auth,
            ErrorKind::Balance,
            ErrorKind::Forbidden,
            ErrorKind::RateLimit,
            ErrorKind::Server,
            ErrorKind::Timeout,
            ErrorKind::Network,
            ErrorKind::InvalidJson,
            ErrorKind::Empty,
            ErrorKind::Http,
        ];
        let mut seen = std::collections::HashSet::new();
        for kind in kinds {
            let d = describe_error(&ProbeError { kind, http_status: None, message: String::new() });
            assert!(d.zh.contains('请') || d.zh.contains("可"), "{kind:?}: {}", d.zh);
            assert!(d.en.contains(';') && !d.en.ends_with('.'), "{kind:?}: {}", d.en);
            assert!(seen.insert(d.zh.clone()), "duplicate wording for {kind:?}");
        }
    }
}
