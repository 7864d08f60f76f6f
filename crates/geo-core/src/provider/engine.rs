//! The engine table and the one interface every shell uses to probe an engine
//! (`shared/spec/engines.md`).
//!
//! # The one decision: a table of engines, one dispatch per step
//!
//! Every engine differs in five things only: where the request goes (default base URL and
//! path rule), how it authenticates (header names), what the body looks like, how the
//! answer is read into the raw result, and how its error bodies map to the seed's error
//! kinds. [`EngineSpec`] holds the static facts (ids, URLs, key variables, models, browser
//! access) and the `engine_*` functions dispatch the four behaviours on [`EngineId`].
//! [`Endpoint`] bundles what a shell needs for one session (URL and headers resolved once),
//! and [`Wire::of`] gives each engine's reply format to [`interpret`](super::interpret()),
//! so the web app, the CLI and the tests send and read requests through the same code.
//! Nothing downstream of the raw result (analysis, metrics, exports, the UI) knows which
//! engine answered.

use crate::model::{EngineId, ProbeError, RunConfig};

use super::errors::{engine_invalid_json_error, engine_network_error, map_engine_http_error};
use super::interpret::{Interpret, Reply, Wire};
use super::local_proxy::Route;
use super::{doubao, ernie, gemini, hunyuan, openai, perplexity, qwen, request, response};

/// How an engine takes its API key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Auth {
    /// `x-api-key: KEY` (DeepSeek's and Anthropic's Messages API).
    XApiKey,
    /// `authorization: Bearer KEY` (OpenAI, Perplexity).
    Bearer,
    /// `x-goog-api-key: KEY` (Gemini).
    XGoogApiKey,
}

impl Auth {
    /// The header name that carries the key (lowercase).
    pub fn header(self) -> &'static str {
        match self {
            Auth::XApiKey => "x-api-key",
            Auth::Bearer => "authorization",
            Auth::XGoogApiKey => "x-goog-api-key",
        }
    }
}

/// Whether a browser page may call the engine directly.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BrowserAccess {
    /// The engine answers CORS preflights for browser pages (possibly with an opt-in header).
    Direct,
    /// Only if the engine's CORS policy allows it; otherwise through a proxy base URL.
    IfCorsAllows,
    /// Never: the engine refuses browser calls, so a page reaches it only through
    /// `geo-probe proxy` (engines.md, "The local proxy").
    Proxy,
}

/// Who sends the request: a browser page adds what browser calls need.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Caller {
    /// The web app (`fetch` from a page).
    Browser,
    /// The CLI or a test (no CORS).
    Native,
}

/// The static facts of one engine (engines.md, "The engines").
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EngineSpec {
    /// The engine's id.
    pub id: EngineId,
    /// Name shown to users (the same in Chinese and English).
    pub name: &'static str,
    /// Origin used when the user sets no custom base URL.
    pub default_base: &'static str,
    /// Path appended to a base URL; `{model}` stands for the (percent-encoded) model name.
    pub path: &'static str,
    /// How the key is sent.
    pub auth: Auth,
    /// Environment variable the CLI reads the key from.
    pub key_env: &'static str,
    /// Model used when the user picks none.
    pub default_model: &'static str,
    /// Models offered in the UI (the default first); other names are passed through.
    pub models: &'static [&'static str],
    /// Whether a page may call it directly.
    pub browser: BrowserAccess,
    /// Whether the engine says which pages its answer cites (then `rawCitations` is always an
    /// array, possibly empty; DeepSeek's endpoint fills it only when citations are present).
    pub citations: bool,
    /// Whether the request carries a search limit (`maxSearches`).
    pub search_limit: bool,
    /// Where a user gets a key.
    pub console_url: &'static str,
    /// The temperature range the engine accepts, `None` when its requests carry no
    /// temperature (engines.md, "Fidelity": a run outside the range is refused as a whole).
    pub temperature: Option<[f64; 2]>,
}

/// Every engine, in the order of engines.md ([`EngineId::ALL`]).
pub const ENGINES: [EngineSpec; 9] = [
    EngineSpec {
        id: EngineId::Deepseek,
        name: "DeepSeek",
        default_base: "https://api.deepseek.com",
        path: "/anthropic/v1/messages",
        auth: Auth::XApiKey,
        key_env: "DEEPSEEK_API_KEY",
        default_model: "deepseek-v4-flash",
        models: &["deepseek-v4-flash", "deepseek-v4-pro"],
        browser: BrowserAccess::Direct,
        citations: false,
        search_limit: true,
        console_url: "https://platform.deepseek.com/api_keys",
        temperature: Some([0.0, 2.0]),
    },
    EngineSpec {
        id: EngineId::Anthropic,
        name: "Claude",
        default_base: "https://api.anthropic.com",
        path: "/v1/messages",
        auth: Auth::XApiKey,
        key_env: "ANTHROPIC_API_KEY",
        default_model: "claude-sonnet-4-6",
        models: &["claude-sonnet-4-6", "claude-haiku-4-5", "claude-opus-4-6"],
        browser: BrowserAccess::Direct,
        citations: true,
        search_limit: true,
        console_url: "https://platform.claude.com/settings/keys",
        temperature: Some([0.0, 1.0]),
    },
    EngineSpec {
        id: EngineId::Openai,
        name: "ChatGPT",
        default_base: "https://api.openai.com",
        path: "/v1/responses",
        auth: Auth::Bearer,
        key_env: "OPENAI_API_KEY",
        default_model: "gpt-5-mini",
        models: &["gpt-5-mini", "gpt-5", "gpt-4.1"],
        browser: BrowserAccess::Direct,
        citations: true,
        search_limit: true,
        console_url: "https://platform.openai.com/api-keys",
        temperature: None,
    },
    EngineSpec {
        id: EngineId::Gemini,
        name: "Gemini",
        default_base: "https://generativelanguage.googleapis.com",
        path: "/v1beta/models/{model}:generateContent",
        auth: Auth::XGoogApiKey,
        key_env: "GEMINI_API_KEY",
        default_model: "gemini-2.5-flash",
        models: &["gemini-2.5-flash", "gemini-2.5-pro", "gemini-2.5-flash-lite"],
        browser: BrowserAccess::IfCorsAllows,
        citations: true,
        search_limit: false,
        console_url: "https://aistudio.google.com/apikey",
        temperature: Some([0.0, 2.0]),
    },
    EngineSpec {
        id: EngineId::Perplexity,
        name: "Perplexity",
        default_base: "https://api.perplexity.ai",
        path: "/chat/completions",
        auth: Auth::Bearer,
        key_env: "PERPLEXITY_API_KEY",
        default_model: "sonar",
        models: &["sonar", "sonar-pro", "sonar-reasoning-pro"],
        browser: BrowserAccess::IfCorsAllows,
        citations: true,
        search_limit: false,
        console_url: "https://www.perplexity.ai/account/api/keys",
        temperature: None,
    },
    EngineSpec {
        id: EngineId::Qwen,
        name: "Qwen",
        default_base: "https://dashscope.aliyuncs.com",
        path: "/api/v1/services/aigc/text-generation/generation",
        auth: Auth::Bearer,
        key_env: "DASHSCOPE_API_KEY",
        default_model: "qwen-plus",
        models: &["qwen-plus", "qwen3-max", "qwen-turbo"],
        browser: BrowserAccess::Proxy,
        citations: true,
        search_limit: false,
        console_url: "https://bailian.console.aliyun.com/?tab=model#/api-key",
        temperature: Some([0.0, 2.0]),
    },
    EngineSpec {
        id: EngineId::Doubao,
        name: "Doubao",
        default_base: "https://ark.cn-beijing.volces.com",
        path: "/api/v3/responses",
        auth: Auth::Bearer,
        key_env: "ARK_API_KEY",
        default_model: "doubao-seed-2-1-pro-260628",
        models: &["doubao-seed-2-1-pro-260628"],
        browser: BrowserAccess::Proxy,
        citations: true,
        search_limit: true,
        console_url: "https://console.volcengine.com/ark/region:ark+cn-beijing/apiKey",
        temperature: Some([0.0, 2.0]),
    },
    EngineSpec {
        id: EngineId::Ernie,
        name: "ERNIE",
        default_base: "https://qianfan.baidubce.com",
        path: "/v2/chat/completions",
        auth: Auth::Bearer,
        key_env: "QIANFAN_API_KEY",
        default_model: "ernie-4.5-turbo-128k",
        models: &["ernie-4.5-turbo-128k"],
        browser: BrowserAccess::Proxy,
        citations: true,
        search_limit: false,
        console_url: "https://console.bce.baidu.com/iam/#/iam/apikey/list",
        temperature: Some([0.0, 1.0]),
    },
    EngineSpec {
        id: EngineId::Hunyuan,
        name: "Hunyuan",
        default_base: "https://api.hunyuan.cloud.tencent.com",
        path: "/v1/chat/completions",
        auth: Auth::Bearer,
        key_env: "HUNYUAN_API_KEY",
        default_model: "hunyuan-turbos-latest",
        models: &["hunyuan-turbos-latest"],
        browser: BrowserAccess::Proxy,
        citations: true,
        search_limit: false,
        console_url: "https://console.cloud.tencent.com/hunyuan/start",
        temperature: Some([0.0, 2.0]),
    },
];

/// The table row of `engine`.
pub fn spec(engine: EngineId) -> &'static EngineSpec {
    match engine {
        EngineId::Deepseek => &ENGINES[0],
        EngineId::Anthropic => &ENGINES[1],
        EngineId::Openai => &ENGINES[2],
        EngineId::Gemini => &ENGINES[3],
        EngineId::Perplexity => &ENGINES[4],
        EngineId::Qwen => &ENGINES[5],
        EngineId::Doubao => &ENGINES[6],
        EngineId::Ernie => &ENGINES[7],
        EngineId::Hunyuan => &ENGINES[8],
    }
}

/// Whether `engine` is sent a temperature, and the range it accepts: `Err(range)` when
/// `temperature` is outside it (engines.md, "Fidelity"); `Ok(false)` when the engine's
/// requests carry none (OpenAI, Perplexity: the run is not refused, the shells say it does
/// not apply).
pub fn temperature_applies(engine: EngineId, temperature: f64) -> Result<bool, [f64; 2]> {
    match spec(engine).temperature {
        None => Ok(false),
        Some([lo, hi]) if temperature.is_finite() && (lo..=hi).contains(&temperature) => Ok(true),
        Some(range) => Err(range),
    }
}

/// The model a request uses: `model` trimmed, or the engine's default when blank.
pub fn model_or_default(engine: EngineId, model: &str) -> &str {
    let m = model.trim();
    if m.is_empty() {
        spec(engine).default_model
    } else {
        m
    }
}

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

/// True when a custom base already names the engine's endpoint, so it is used as is:
/// its path ends with the engine's path (Gemini: it contains `:generateContent`, whatever
/// model).
fn names_endpoint(engine: EngineId, base: &super::url::Url, model: &str) -> bool {
    match engine {
        EngineId::Gemini => base.path().contains(":generateContent"),
        _ => base.path().ends_with(&engine_path(engine, model)),
    }
}

/// The request URL of `engine` for an optional custom base (engines.md, "Base URL rule"),
/// through the one base-URL rule of [`super::url`]: empty → the default base + path; a base
/// that already names the endpoint → as is; otherwise the path is appended to the base's
/// path (before its query string) without doubling a `/`.
///
/// For text that [`parse_base_url`](super::url::parse_base_url) refuses (user name or
/// password, a scheme other than http/https …) this falls back to the engine's default; the
/// shells check the base first and never send to a refused one.
pub fn endpoint_url(engine: EngineId, custom_base: Option<&str>, model: &str) -> String {
    let base = super::url::parse_base_url(custom_base.unwrap_or("")).ok().flatten();
    endpoint_url_for(engine, base.as_ref(), model)
}

/// [`endpoint_url`] for a base that already passed [`parse_base_url`](super::url::parse_base_url).
pub fn endpoint_url_for(engine: EngineId, base: Option<&super::url::BaseUrl>, model: &str) -> String {
    let path = engine_path(engine, model);
    super::url::endpoint_url_with(base, spec(engine).default_base, &path, |url| names_endpoint(engine, url, model))
        .into()
}

/// The headers of every request to `engine`, in a stable order: `content-type`, the
/// engine's fixed headers, then the key header only for a key that is not blank (the key is
/// trimmed: pasted keys often carry a newline). Without a key no auth header is sent (proxy
/// mode: the proxy adds its own credentials).
pub fn engine_headers(engine: EngineId, api_key: Option<&str>, caller: Caller) -> Vec<(&'static str, String)> {
    let mut headers = vec![("content-type", "application/json".to_string())];
    if matches!(engine, EngineId::Deepseek | EngineId::Anthropic) {
        headers.push(("anthropic-version", super::url::ANTHROPIC_VERSION.to_string()));
    }
    if engine == EngineId::Anthropic && caller == Caller::Browser {
        headers.push(("anthropic-dangerous-direct-browser-access", "true".to_string()));
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
    match engine {
        EngineId::Deepseek | EngineId::Anthropic => request::request_body_json(prompt_text, config),
        EngineId::Openai => openai::request_body_json(prompt_text, config),
        EngineId::Gemini => gemini::request_body_json(prompt_text, config),
        EngineId::Perplexity => perplexity::request_body_json(prompt_text, config),
        EngineId::Qwen => qwen::request_body_json(prompt_text, config),
        EngineId::Doubao => doubao::request_body_json(prompt_text, config),
        EngineId::Ernie => ernie::request_body_json(prompt_text, config),
        EngineId::Hunyuan => hunyuan::request_body_json(prompt_text, config),
    }
}

/// Parses the body of a successful (2xx) response of `engine` into the raw result.
///
/// Errors: a body that is not the engine's response shape → `invalid_json` (retried); an
/// error envelope inside a 2xx → the mapped provider error without `http_status`.
pub fn parse_engine_response(
    engine: EngineId,
    body: &str,
    requested_model: &str,
) -> Result<super::ParsedResponse, ProbeError> {
    match engine {
        EngineId::Deepseek => response::parse_messages(body, requested_model, response::Citations::WhenPresent),
        EngineId::Anthropic => response::parse_messages(body, requested_model, response::Citations::Always),
        EngineId::Openai => openai::parse_response(body, requested_model),
        EngineId::Gemini => gemini::parse_response(body, requested_model),
        EngineId::Perplexity => perplexity::parse_response(body, requested_model),
        EngineId::Qwen => qwen::parse_response(body, requested_model),
        EngineId::Doubao => doubao::parse_response(body, requested_model),
        EngineId::Ernie => ernie::parse_response(body, requested_model),
        EngineId::Hunyuan => hunyuan::parse_response(body, requested_model),
    }
}

impl Wire {
    /// The reply format of `engine`: its parser for a 2xx body, its error rules otherwise
    /// (engines.md, "Errors and retries"), and its wording of an unreadable body.
    /// [`interpret`](super::interpret()) applies it, in the browser and in the CLI alike.
    pub fn of(engine: EngineId) -> Wire {
        match engine {
            EngineId::Deepseek => Wire::MESSAGES,
            EngineId::Anthropic => Wire {
                parse: |body, model| parse_engine_response(EngineId::Anthropic, body, model),
                map_error: |status, body| map_engine_http_error(EngineId::Anthropic, status, body),
                invalid_json: |detail| engine_invalid_json_error(EngineId::Anthropic, detail),
            },
            EngineId::Openai => Wire {
                parse: openai::parse_response,
                map_error: |status, body| map_engine_http_error(EngineId::Openai, status, body),
                invalid_json: |detail| engine_invalid_json_error(EngineId::Openai, detail),
            },
            EngineId::Gemini => Wire {
                parse: gemini::parse_response,
                map_error: |status, body| map_engine_http_error(EngineId::Gemini, status, body),
                invalid_json: |detail| engine_invalid_json_error(EngineId::Gemini, detail),
            },
            EngineId::Perplexity => Wire {
                parse: perplexity::parse_response,
                map_error: |status, body| map_engine_http_error(EngineId::Perplexity, status, body),
                invalid_json: |detail| engine_invalid_json_error(EngineId::Perplexity, detail),
            },
            EngineId::Qwen => Wire {
                parse: qwen::parse_response,
                map_error: |status, body| map_engine_http_error(EngineId::Qwen, status, body),
                invalid_json: |detail| engine_invalid_json_error(EngineId::Qwen, detail),
            },
            EngineId::Doubao => Wire {
                parse: doubao::parse_response,
                map_error: |status, body| map_engine_http_error(EngineId::Doubao, status, body),
                invalid_json: |detail| engine_invalid_json_error(EngineId::Doubao, detail),
            },
            EngineId::Ernie => Wire {
                parse: ernie::parse_response,
                map_error: |status, body| map_engine_http_error(EngineId::Ernie, status, body),
                invalid_json: |detail| engine_invalid_json_error(EngineId::Ernie, detail),
            },
            EngineId::Hunyuan => Wire {
                parse: hunyuan::parse_response,
                map_error: |status, body| map_engine_http_error(EngineId::Hunyuan, status, body),
                invalid_json: |detail| engine_invalid_json_error(EngineId::Hunyuan, detail),
            },
        }
    }
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
    /// [`Route::LocalProxy`]): a request that gets no answer then says that the proxy did not.
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
    pub fn for_route(config: &RunConfig, route: &Route, caller: Caller) -> Endpoint {
        let mut endpoint = Endpoint::new(config, route.base(), route.key(), caller);
        if let Route::LocalProxy { token, .. } = route {
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
        let loopback = super::url::Url::parse(&self.url)
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
        match super::url::Url::parse(&self.url) {
            Ok(url) => super::url::host_for_messages(&url),
            Err(_) => String::new(),
        }
    }

    /// True when no key header is sent (a custom base through a proxy, or the mock).
    pub fn is_proxy_mode(&self) -> bool {
        let auth = spec(self.engine).auth.header();
        !self.headers.iter().any(|(n, _)| *n == auth)
    }

    /// The body of the probe request for `prompt_text` (see [`engine_request_body`]).
    pub fn body(&self, prompt_text: &str, config: &RunConfig) -> String {
        engine_request_body(self.engine, prompt_text, config)
    }

    /// The body of one request of the runner: the probe request, or with `continuation`
    /// (a `pause_turn` of DeepSeek or Anthropic) the same request with the paused content
    /// appended (engines.md, "Fidelity"). The other engines never pause.
    pub fn body_with(
        &self,
        prompt_text: &str,
        config: &RunConfig,
        continuation: Option<&super::Continuation>,
    ) -> String {
        match (self.engine, continuation) {
            (EngineId::Deepseek | EngineId::Anthropic, Some(c)) => {
                request::continuation_body_json(prompt_text, config, c)
            }
            _ => self.body(prompt_text, config),
        }
    }

    /// What [`interpret`](super::interpret()) needs for this session's replies: the model
    /// and the engine's [`Wire`].
    pub fn interpret(&self) -> Interpret<'_> {
        Interpret { model: &self.model, wire: Wire::of(self.engine) }
    }

    /// The outcome of an HTTP reply to this endpoint: [`interpret`](super::interpret()) with
    /// the engine's wire format (the one mapping both shells use).
    pub fn outcome(&self, reply: &Reply) -> Result<super::ParsedResponse, ProbeError> {
        super::interpret(reply, &self.interpret())
    }

    /// The outcome of a request that got no HTTP status at all (DNS, refused, CORS …); from
    /// a browser the message says that the engine may not allow browser calls and that a
    /// proxy base URL is the way round.
    pub fn network_error(&self, detail: &str) -> ProbeError {
        if self.local_proxy {
            return super::errors::local_proxy_network_error(self.engine, &self.host_for_messages(), detail);
        }
        engine_network_error(self.engine, self.caller, detail)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_follows_engines_md() {
        for (i, e) in EngineId::ALL.into_iter().enumerate() {
            assert_eq!(spec(e).id, e);
            assert_eq!(ENGINES[i].id, e, "table order");
            assert_eq!(spec(e).models[0], spec(e).default_model, "{e}: default first");
            assert!(spec(e).key_env.ends_with("_API_KEY"));
        }
        assert_eq!(spec(EngineId::Deepseek).default_model, crate::model::DEFAULT_MODEL);
        assert_eq!(spec(EngineId::Deepseek).models, crate::model::MODEL_OPTIONS);
    }

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

    #[test]
    fn the_deepseek_url_is_the_seed_rule() {
        for base in [None, Some(""), Some("http://127.0.0.1:8787"), Some("https://p.example/anthropic/v1/messages")] {
            assert_eq!(endpoint_url(EngineId::Deepseek, base, "m"), super::super::build_messages_url(base));
        }
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
        assert_eq!(engine_headers(Deepseek, Some("k"), Caller::Browser), super::super::request_headers(Some("k")));
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
        let reply = |status, headers, body| Reply { status, headers, body };
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
}
