//! The one interface every shell uses to probe an engine ([`Endpoint`]: URL, headers, body,
//! `outcome(reply)`, `network_error`), and the engine-generic functions behind it: the URL
//! rule, the headers, the body, the reply's reading and the error mapping of any engine by its
//! id.
//!
//! Every function here reads the engine's spec row and its [`Wire`] from the table; none
//! chooses by engine itself. The web app, the CLI and the tests send and read requests through
//! this code, so nothing downstream of the raw result (analysis, metrics, exports, the UI)
//! knows which engine answered.

use super::engines::wire;
use super::error::transport::{engine_network_error, local_proxy_network_error};
use super::interpret::{EngineReply, Interpret};
use super::local_proxy::EngineRoute;
use super::parsed::{Continuation, ParsedResponse};
use super::spec::{model_or_default, spec, Auth, Caller};
use super::url::{endpoint_url_with, host_for_messages, parse_base_url, BaseUrl, Url};
use super::wire::Wire;
use crate::model::{EngineId, ProbeError, RunConfig};

/// `model` made safe for one URL path segment: everything but ASCII letters, digits, `-`,
/// `.` and `_` is percent-encoded, so a model name can never add a path or a query.
fn path_segment(model: &str) -> String {
    let mut out = String::with_capacity(model.len());
    for b in model.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The engine's path for `model` (`{model}` replaced).
pub fn engine_path(engine: EngineId, model: &str) -> String {
    spec(engine).path.replace("{model}", &path_segment(model_or_default(engine, model)))
}

/// True when a custom base already names the engine's endpoint, so it is used as is: its
/// path ends with the engine's path, or, for a path that names the model (`…/{model}:action`),
/// contains what follows the model (Gemini: `:generateContent`), whatever model it names.
fn names_endpoint(engine: EngineId, base: &Url, model: &str) -> bool {
    let path = spec(engine).path;
    match path.find("{model}").map(|at| &path[at + "{model}".len()..]) {
        Some(action) if !action.is_empty() => base.path().contains(action),
        _ => base.path().ends_with(&engine_path(engine, model)),
    }
}

/// The request URL of `engine` for an optional custom base (engines.md, "Base URL rule"),
/// through the one base-URL rule of [`super::url`]: empty → the default base + path; a base
/// that already names the endpoint → as is; otherwise the path is appended to the base's
/// path (before its query string) without doubling a `/`.
///
/// For text that [`parse_base_url`] refuses (user name or
/// password, a scheme other than http/https …) this falls back to the engine's default; the
/// shells check the base first and never send to a refused one.
pub fn endpoint_url(engine: EngineId, custom_base: Option<&str>, model: &str) -> String {
    let base = parse_base_url(custom_base.unwrap_or("")).ok().flatten();
    endpoint_url_for(engine, base.as_ref(), model)
}

/// [`endpoint_url`] for a base that already passed [`parse_base_url`].
pub fn endpoint_url_for(engine: EngineId, base: Option<&BaseUrl>, model: &str) -> String {
    let path = engine_path(engine, model);
    endpoint_url_with(base, spec(engine).default_base, &path, |url| names_endpoint(engine, url, model)).into()
}

/// The headers of every request to `engine`, in a stable order: `content-type`, the
/// engine's fixed headers (and a browser's), then the key header only for a key that is not
/// blank (the key is trimmed: pasted keys often carry a newline). Without a key no auth header
/// is sent (proxy mode: the proxy adds its own credentials).
pub fn engine_headers(engine: EngineId, api_key: Option<&str>, caller: Caller) -> Vec<(&'static str, String)> {
    let w = wire(engine);
    let mut headers = vec![("content-type", "application/json".to_string())];
    // Plain loops: an iterator chain is code of its own in the web app's module (ADR 0014).
    for &(name, value) in w.headers {
        headers.push((name, value.to_string()));
    }
    if caller == Caller::Browser {
        for &(name, value) in w.browser_headers {
            headers.push((name, value.to_string()));
        }
    }
    if let Some(key) = api_key.map(str::trim).filter(|k| !k.is_empty()) {
        let auth = spec(engine).auth;
        let value = match auth {
            Auth::Bearer => format!("Bearer {key}"),
            Auth::XApiKey | Auth::XGoogApiKey => key.to_string(),
        };
        headers.push((auth.header(), value));
    }
    headers
}

/// The probe request body for `prompt_text` under `config`, serialised in the engine's
/// documented field order: what the shells send (engines.md, "Request bodies").
pub fn engine_request_body(engine: EngineId, prompt_text: &str, config: &RunConfig) -> String {
    (wire(engine).body)(prompt_text, config)
}

/// Parses the body of a successful (2xx) response of `engine` into the raw result.
///
/// Errors: a body that is not the engine's response shape → `invalid_json` (retried); an
/// error envelope inside a 2xx → the mapped provider error without `http_status`.
pub fn parse_engine_response(
    engine: EngineId,
    body: &str,
    requested_model: &str,
) -> Result<ParsedResponse, ProbeError> {
    (wire(engine).parse)(body, requested_model)
}

/// A non-success response (status and body) of `engine` as a probe error, by the engine's own
/// codes first, then the shared rules (`error::kind`): 401→auth, 402→balance, 403→forbidden,
/// 408→timeout, 429→rate_limit, 5xx→server, anything else→http, an out-of-credit body balance
/// whatever the status. `http_status` is always set; the message names the engine and
/// includes the provider's own words.
pub fn map_engine_http_error(engine: EngineId, status: u16, body: &str) -> ProbeError {
    wire(engine).map_error(status, body)
}

/// Where and how one session sends its requests: the engine, the resolved URL and the
/// headers, computed once from the user's base URL and key.
///
/// `Debug` never prints header values (the key is one of them).
#[derive(Clone, PartialEq, Eq)]
pub struct Endpoint {
    /// The engine asked.
    pub engine: EngineId,
    /// The full request URL.
    pub url: String,
    /// The request headers, key included unless in proxy mode.
    pub headers: Vec<(&'static str, String)>,
    /// The model the URL was built for (Gemini names it in the path).
    pub model: String,
    /// Who sends: a browser reports a failed request differently.
    pub caller: Caller,
    /// True when the requests go to `geo-probe proxy` ([`Endpoint::for_route`] of a
    /// [`EngineRoute::LocalProxy`]): a request that gets no answer then says that the proxy did not.
    pub local_proxy: bool,
}

impl std::fmt::Debug for Endpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<&str> = self.headers.iter().map(|(n, _)| *n).collect();
        f.debug_struct("Endpoint")
            .field("engine", &self.engine)
            .field("url", &self.url)
            .field("headers", &names)
            .field("model", &self.model)
            .field("caller", &self.caller)
            .field("local_proxy", &self.local_proxy)
            .finish()
    }
}

impl Endpoint {
    /// The endpoint of a run of `config` (its engine and model) for an optional custom base
    /// and key.
    pub fn new(config: &RunConfig, custom_base: Option<&str>, api_key: Option<&str>, caller: Caller) -> Endpoint {
        let engine = config.engine;
        let model = model_or_default(engine, &config.model).to_string();
        Endpoint {
            engine,
            url: endpoint_url(engine, custom_base, &model),
            headers: engine_headers(engine, api_key, caller),
            model,
            caller,
            local_proxy: false,
        }
    }

    /// The endpoint of a run of `config` sent the way `route` says (`local_proxy::route`):
    /// through the local proxy the token travels in
    /// [`TOKEN_HEADER`](super::local_proxy::TOKEN_HEADER) (when one was given) and nowhere
    /// else.
    pub fn for_route(config: &RunConfig, route: &EngineRoute, caller: Caller) -> Endpoint {
        let mut endpoint = Endpoint::new(config, route.base(), route.key(), caller);
        if let EngineRoute::LocalProxy { token, .. } = route {
            endpoint.local_proxy = true;
            endpoint.add_proxy_token(token);
        }
        endpoint
    }

    /// Adds `geo-probe proxy`'s token to a request without a key header (proxy mode) to this
    /// machine (a loopback host: `127.0.0.0/8`, `[::1]`, `localhost`), where the proxy
    /// listens. A blank token, an endpoint that sends a key (to the engine itself, which must
    /// not see the token) and one on any other host (a remote gateway: security review 3,
    /// finding L3) get nothing.
    pub fn add_proxy_token(&mut self, token: &str) {
        let token = token.trim();
        let loopback = Url::parse(&self.url)
            .ok()
            .and_then(|u| u.host_str().map(|h| crate::origin::is_loopback_host(&h.to_ascii_lowercase())))
            .unwrap_or(false);
        if self.is_proxy_mode() && loopback && !token.is_empty() {
            self.headers.push((super::local_proxy::TOKEN_HEADER, token.to_string()));
        }
    }

    /// `scheme://host[:port]` of the request URL: all of it an error message may show (the
    /// path and query string of a custom base can hold a proxy's token).
    pub fn host_for_messages(&self) -> String {
        match Url::parse(&self.url) {
            Ok(url) => host_for_messages(&url),
            Err(_) => String::new(),
        }
    }

    /// True when no key header is sent (a custom base through a proxy, or the mock).
    pub fn is_proxy_mode(&self) -> bool {
        let auth = spec(self.engine).auth.header();
        !self.headers.iter().any(|(n, _)| *n == auth)
    }

    /// This endpoint's engine's wire format.
    pub fn wire(&self) -> &'static Wire {
        wire(self.engine)
    }

    /// The body of the probe request for `prompt_text` (see [`engine_request_body`]).
    pub fn body(&self, prompt_text: &str, config: &RunConfig) -> String {
        (self.wire().body)(prompt_text, config)
    }

    /// The body of one request of the runner: the probe request, or with `continuation`
    /// (a `pause_turn` of DeepSeek or Anthropic) the same request with the paused content
    /// appended (engines.md, "Fidelity"). The other engines never pause.
    pub fn body_with(&self, prompt_text: &str, config: &RunConfig, continuation: Option<&Continuation>) -> String {
        self.wire().body_with(prompt_text, config, continuation)
    }

    /// What [`interpret`](super::interpret()) needs for this session's replies: the model
    /// and the engine's [`Wire`].
    pub fn interpret(&self) -> Interpret<'_> {
        Interpret { model: &self.model, wire: self.wire() }
    }

    /// The outcome of an HTTP reply to this endpoint: [`interpret`](super::interpret()) with
    /// the engine's wire format (the one mapping both shells use).
    pub fn outcome(&self, reply: &EngineReply) -> Result<ParsedResponse, ProbeError> {
        super::interpret::interpret(reply, &self.interpret())
    }

    /// The outcome of a request that got no HTTP status at all (DNS, refused, CORS …); from
    /// a browser the message says that the engine may not allow browser calls and that a
    /// proxy base URL is the way round.
    pub fn network_error(&self, detail: &str) -> ProbeError {
        if self.local_proxy {
            return local_proxy_network_error(self.engine, &self.host_for_messages(), detail);
        }
        engine_network_error(self.engine, self.caller, detail)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The token goes to the local proxy only; its silence is the proxy's, not the engine's.
    #[test]
    fn through_the_local_proxy_the_token_travels_and_no_key() {
        use super::super::local_proxy::{route, LocalProxy, TOKEN_HEADER};
        let config = RunConfig { engine: EngineId::Qwen, ..RunConfig::default() };
        let proxy = LocalProxy { url: "http://127.0.0.1:8788".into(), token: "tok-9".into() };
        let via =
            Endpoint::for_route(&config, &route(EngineId::Qwen, None, None, Some(&proxy)).unwrap(), Caller::Browser);
        assert_eq!(via.url, "http://127.0.0.1:8788/qwen/api/v1/services/aigc/text-generation/generation");
        assert!(via.local_proxy && via.is_proxy_mode());
        assert!(via.headers.contains(&(TOKEN_HEADER, "tok-9".to_string())));
        assert!(!via.headers.iter().any(|(n, _)| *n == "authorization"));
        assert!(via
            .network_error("Failed to fetch")
            .message
            .starts_with("no response from geo-probe proxy at http://127.0.0.1:8788"));
        let direct = Endpoint::for_route(
            &config,
            &route(EngineId::Qwen, Some("sk-1"), None, Some(&proxy)).unwrap(),
            Caller::Browser,
        );
        assert!(!direct.local_proxy && !direct.headers.iter().any(|(n, _)| *n == TOKEN_HEADER));
        let mut keyed = direct.clone();
        keyed.add_proxy_token("tok-9");
        assert_eq!(keyed, direct, "a request with a key never carries the token");
        let blank = LocalProxy { token: "  ".into(), ..proxy };
        let none =
            Endpoint::for_route(&config, &route(EngineId::Qwen, None, None, Some(&blank)).unwrap(), Caller::Browser);
        assert!(none.local_proxy && !none.headers.iter().any(|(n, _)| *n == TOKEN_HEADER));
    }

    /// security-3 L3: a keyless custom base on another host (a remote gateway) never gets the
    /// local proxy's token; a loopback base in any spelling does.
    #[test]
    fn the_proxy_token_goes_to_loopback_hosts_only() {
        use super::super::local_proxy::TOKEN_HEADER;
        let config = RunConfig { engine: EngineId::Qwen, ..RunConfig::default() };
        let carries = |base: &str| {
            let mut e = Endpoint::new(&config, Some(base), None, Caller::Native);
            e.add_proxy_token("tok-9");
            e.headers.iter().any(|(n, _)| *n == TOKEN_HEADER)
        };
        for base in [
            "http://127.0.0.1:8788/qwen",
            "http://localhost:8788/qwen",
            "http://LOCALHOST:8788/qwen",
            "http://[::1]:8788/qwen",
            "http://127.1:8788/qwen",
            "http://2130706433:8788/qwen",
            "http://127.8.0.1:9/qwen",
        ] {
            assert!(carries(base), "{base}");
        }
        for base in [
            "http://127.0.0.1.nip.io:8788/qwen",
            "https://gw.example/qwen?token=abcd",
            "http://10.0.0.1:8788/qwen",
            "http://localhost.example:8788/qwen",
            "http://[::2]:8788/qwen",
        ] {
            assert!(!carries(base), "{base}");
        }
    }

    #[track_caller]
    fn check(engine: EngineId, base: Option<&str>, model: &str, expect: &str) {
        assert_eq!(endpoint_url(engine, base, model), expect, "{engine} {base:?}");
    }

    #[test]
    fn the_base_url_rule_holds_for_every_engine() {
        use EngineId::*;
        check(Deepseek, None, "", "https://api.deepseek.com/anthropic/v1/messages");
        check(Anthropic, Some(" "), "", "https://api.anthropic.com/v1/messages");
        check(Openai, None, "gpt-5", "https://api.openai.com/v1/responses");
        check(Perplexity, None, "sonar", "https://api.perplexity.ai/chat/completions");
        check(
            Gemini,
            None,
            "gemini-2.5-pro",
            "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-pro:generateContent",
        );
        check(
            Gemini,
            Some(""),
            "",
            "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent",
        );
        // Appended, without doubling a slash.
        check(Openai, Some("http://127.0.0.1:8787/"), "m", "http://127.0.0.1:8787/v1/responses");
        check(Anthropic, Some("https://gw.example.com/claude"), "m", "https://gw.example.com/claude/v1/messages");
        check(Gemini, Some("http://127.0.0.1:9/g//"), "x", "http://127.0.0.1:9/g/v1beta/models/x:generateContent");
        // Already the endpoint: as is.
        check(Perplexity, Some(" https://p.example/chat/completions "), "m", "https://p.example/chat/completions");
        check(
            Gemini,
            Some("https://g.example/v1/models/other:generateContent"),
            "m",
            "https://g.example/v1/models/other:generateContent",
        );
        // DeepSeek's path also ends with Anthropic's: an Anthropic base ending in it is used as is.
        check(
            Anthropic,
            Some("https://x.example/anthropic/v1/messages"),
            "m",
            "https://x.example/anthropic/v1/messages",
        );
        // A model name cannot add a path or a query.
        check(
            Gemini,
            None,
            "../x?key=1",
            "https://generativelanguage.googleapis.com/v1beta/models/..%2Fx%3Fkey%3D1:generateContent",
        );
    }

    /// Security finding (base URLs): every engine's URL comes from the one base-URL rule, so
    /// a query string stays after the path and a base with credentials is never used.
    #[test]
    fn every_engine_uses_the_one_base_url_rule() {
        for engine in EngineId::ALL {
            let path = engine_path(engine, "m");
            let url = endpoint_url(engine, Some("https://gw.example.com/v?token=abc"), "m");
            assert_eq!(url, format!("https://gw.example.com/v{path}?token=abc"), "{engine}");
            let refused = endpoint_url(engine, Some("https://user:pw@gw.example.com"), "m");
            assert_eq!(refused, endpoint_url(engine, None, "m"), "{engine}");
            assert!(!refused.contains("pw@"), "{engine}");
            let config = RunConfig { engine, model: "m".into(), ..RunConfig::default() };
            let e = Endpoint::new(&config, Some("http://127.0.0.1:8787/x?token=abc"), None, Caller::Native);
            assert_eq!(e.host_for_messages(), "http://127.0.0.1:8787", "{engine}");
        }
    }

    #[track_caller]
    fn check_seed(base: Option<&str>, expect: &str) {
        assert_eq!(endpoint_url(EngineId::Deepseek, base, "m"), expect, "base {base:?}");
    }

    /// Seed §4.1's three rules, for the seed's engine.
    #[test]
    fn the_deepseek_url_follows_the_seeds_three_rules() {
        let default = "https://api.deepseek.com/anthropic/v1/messages";
        // Rule 1: empty or blank → default.
        check_seed(None, default);
        check_seed(Some(""), default);
        check_seed(Some("   \n"), default);
        // Rule 2: already the messages path → as is.
        check_seed(
            Some("https://proxy.example.com/anthropic/v1/messages"),
            "https://proxy.example.com/anthropic/v1/messages",
        );
        check_seed(Some(" https://api.deepseek.com/anthropic/v1/messages "), default);
        check_seed(
            Some("http://127.0.0.1:8787/x/anthropic/v1/messages"),
            "http://127.0.0.1:8787/x/anthropic/v1/messages",
        );
        // Rule 3: append, no double slash.
        check_seed(Some("https://api.deepseek.com"), default);
        check_seed(Some("https://api.deepseek.com/"), default);
        check_seed(Some("https://api.deepseek.com//"), default);
        check_seed(Some("http://127.0.0.1:8787"), "http://127.0.0.1:8787/anthropic/v1/messages");
        check_seed(Some("https://gw.example.com/deepseek/"), "https://gw.example.com/deepseek/anthropic/v1/messages");
        // A base ending in /anthropic (the SDK-style base) still gets the full path appended.
        check_seed(
            Some("https://api.deepseek.com/anthropic"),
            "https://api.deepseek.com/anthropic/anthropic/v1/messages",
        );
        // The path goes before the query string.
        check_seed(
            Some("https://gw.example.com/v?token=abc"),
            "https://gw.example.com/v/anthropic/v1/messages?token=abc",
        );
        check_seed(
            Some("https://gw.example.com?token=abc#frag"),
            "https://gw.example.com/anthropic/v1/messages?token=abc",
        );
        check_seed(
            Some("https://gw.example.com/anthropic/v1/messages?token=abc"),
            "https://gw.example.com/anthropic/v1/messages?token=abc",
        );
    }

    fn names(h: &[(&'static str, String)]) -> Vec<&'static str> {
        h.iter().map(|(n, _)| *n).collect()
    }

    #[test]
    fn headers_carry_each_engines_auth() {
        use EngineId::*;
        let h = engine_headers(Openai, Some(" sk-1\n"), Caller::Native);
        assert_eq!(names(&h), ["content-type", "authorization"]);
        assert_eq!(h[1].1, "Bearer sk-1");
        let h = engine_headers(Gemini, Some("g"), Caller::Browser);
        assert_eq!(names(&h), ["content-type", "x-goog-api-key"]);
        let h = engine_headers(Perplexity, Some("p"), Caller::Native);
        assert_eq!(h[1], ("authorization", "Bearer p".to_string()));
        let h = engine_headers(Anthropic, Some("a"), Caller::Browser);
        assert_eq!(
            names(&h),
            ["content-type", "anthropic-version", "anthropic-dangerous-direct-browser-access", "x-api-key"]
        );
        let h = engine_headers(Anthropic, Some("a"), Caller::Native);
        assert_eq!(names(&h), ["content-type", "anthropic-version", "x-api-key"]);
        let h = engine_headers(Deepseek, Some(" sk-abc\n"), Caller::Browser);
        let pairs: Vec<(&str, &str)> = h.iter().map(|(n, v)| (*n, v.as_str())).collect();
        assert_eq!(
            pairs,
            [("content-type", "application/json"), ("anthropic-version", "2023-06-01"), ("x-api-key", "sk-abc")]
        );
        for e in EngineId::ALL {
            for key in [None, Some(""), Some(" \n")] {
                let h = engine_headers(e, key, Caller::Browser);
                assert!(!names(&h).contains(&spec(e).auth.header()), "{e} proxy mode");
            }
        }
    }

    #[test]
    fn endpoints_report_proxy_mode_and_hide_the_key() {
        let config = RunConfig { engine: EngineId::Openai, model: String::new(), ..RunConfig::default() };
        let e = Endpoint::new(&config, None, Some("sk-secret"), Caller::Native);
        assert_eq!(e.model, "gpt-5-mini");
        assert!(!e.is_proxy_mode());
        assert!(!format!("{e:?}").contains("sk-secret"));
        let p = Endpoint::new(&config, Some("http://127.0.0.1:1"), None, Caller::Native);
        assert!(p.is_proxy_mode());
        assert_eq!(p.url, "http://127.0.0.1:1/v1/responses");
    }

    #[test]
    fn every_engines_replies_go_through_interpret() {
        use crate::model::ErrorKind;
        let reply = |status, headers, body| EngineReply { status, headers, body };
        for engine in EngineId::ALL {
            let config = RunConfig { engine, ..RunConfig::default() };
            let e = Endpoint::new(&config, None, Some("k"), Caller::Native);
            // Non-2xx: the engine's own error rules, the status kept.
            let got = e.outcome(&reply(401, &[], "{}")).unwrap_err();
            assert_eq!(got, map_engine_http_error(engine, 401, "{}"), "{engine}");
            // A 2xx HTML page: invalid json, named as an HTML page, in the engine's words.
            let html = e.outcome(&reply(200, &[("content-type", "text/html")], "<html>")).unwrap_err();
            assert_eq!(html.kind, ErrorKind::InvalidJson);
            assert!(html.message.contains("html page"), "{engine}: {}", html.message);
            if engine != EngineId::Deepseek {
                let name = spec(engine).name.to_ascii_lowercase();
                assert!(html.message.contains(&name), "{engine}: {}", html.message);
            }
        }
        // Engine specifics reach the shells through the same call.
        let openai = Endpoint::new(
            &RunConfig { engine: EngineId::Openai, ..RunConfig::default() },
            None,
            Some("k"),
            Caller::Native,
        );
        let quota = r#"{"error":{"message":"You exceeded your current quota","type":"insufficient_quota","code":"insufficient_quota"}}"#;
        assert_eq!(openai.outcome(&reply(429, &[], quota)).unwrap_err().kind, ErrorKind::Balance);
        // A 2xx body without an id takes the header's.
        let body = r#"{"object":"response","status":"completed","model":"gpt-5-mini","output":[{"type":"message","content":[{"type":"output_text","text":"hi","annotations":[]}]}],"usage":{"input_tokens":1,"output_tokens":1}}"#;
        let ok = openai.outcome(&reply(200, &[("x-request-id", "req_7")], body)).unwrap();
        assert_eq!((ok.raw_answer.as_str(), ok.request_id.as_deref()), ("hi", Some("req_7")));
    }

    #[track_caller]
    fn check_engine(engine: EngineId, status: u16, body: &str, kind: crate::model::ErrorKind) -> ProbeError {
        let err = map_engine_http_error(engine, status, body);
        assert_eq!(err.kind, kind, "{engine} {status} {body}");
        assert_eq!(err.http_status, Some(status));
        assert!(err.message.starts_with(|c: char| !c.is_uppercase()) && !err.message.ends_with('.'), "{}", err.message);
        err
    }

    /// Each engine's own codes reach the one mapping through its row of the table (engines.md,
    /// "Errors and retries").
    #[test]
    fn engine_specific_bodies() {
        use crate::model::ErrorKind;
        use EngineId::*;
        let map_envelope =
            |engine, body| crate::provider::error::kind::map_envelope(engine, wire(engine).error_kind, body);
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
            map_envelope(Perplexity, r#"{"error":{"message":"m","type":"x","code":429}}"#).kind,
            ErrorKind::RateLimit
        );
        assert_eq!(map_envelope(Gemini, bad_key).kind, ErrorKind::Auth);
        assert_eq!(map_envelope(Gemini, r#"{"error":{"code":500,"status":"INTERNAL"}}"#).kind, ErrorKind::Server);
    }
}
