//! The engine table: what is true of every engine before a request is made
//! (`shared/spec/engines.md`, "The engines").
//!
//! # The one decision: an engine is a row of data
//!
//! Nine engines differ in where a request goes, how it proves who sends it, which models they
//! offer, the temperatures they take, whether a page may call them and how their answers cite.
//! [`EngineSpec`] holds those facts as one row per engine ([`ENGINES`]); everything that reads
//! them (the URL rule, the headers, the error words, the key test, the doctor, the shells)
//! reads the row, so no function outside this file and the table of wire functions
//! (`engines/mod.rs`) chooses by engine. What a request looks like and how a reply is read are
//! functions, not facts: they are each engine's [`Wire`](super::wire::Wire).
//!
//! This file imports only the model: every other file of `provider/` may read it, and it reads
//! none of them back.

use crate::model::EngineId;

/// The fixed neutral system prompt every engine is sent (version `model::SYSTEM_PROMPT_VERSION`).
pub const SYSTEM_PROMPT: &str = "你是一个乐于助人的助手。请直接回答用户问题，不要描述你的搜索或思考过程。";

/// Text of the key test's one message.
pub const KEY_TEST_PROMPT: &str = "ping";

/// Client-side timeout of one request, in milliseconds (180 s).
pub const REQUEST_TIMEOUT_MS: u64 = 180_000;

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

/// How an engine's answer names the search results it cites (engines.md, "Chinese engines"):
/// `[n]` and `[^n]` (Perplexity, Hunyuan), `[ref_n]` (Qwen), `^[n]^` and `^[n][m]^` (ERNIE),
/// or not at all. `analysis::markers` reads the numbers ([`MarkerRule::numbers`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MarkerRule {
    /// `[n]` and `[^n]`.
    Brackets,
    /// `[ref_n]`.
    Ref,
    /// `^[n]^`, `^[n][m]^`.
    Caret,
    /// No markers.
    None,
}

/// Which words an engine's errors and key verdicts are told in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wording {
    /// The seed's sentences, written when DeepSeek was the only engine and kept as they were
    /// (`the api key is invalid or revoked; …`, a Messages body that cannot be read is "not a
    /// valid messages response").
    Seed,
    /// The sentences of every later engine, each naming the engine (`the qwen api key is
    /// invalid or revoked; …`).
    Named,
}

/// What a rejected key should make the user check besides the key itself, in both interface
/// languages (lowercase English, as in an error message).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AuthHint {
    /// English.
    pub en: &'static str,
    /// Chinese.
    pub zh: &'static str,
}

/// DashScope keys are bound to their region (qwen_dashscope.md).
const DASHSCOPE_REGION_HINT: AuthHint = AuthHint {
    en: "dashscope keys work only in their own region: a china key needs https://dashscope.aliyuncs.com, an international key https://dashscope-intl.aliyuncs.com as the api base url",
    zh: "百炼 API Key 仅在所属地域有效：中国内地 Key 请用 https://dashscope.aliyuncs.com，国际站 Key 请用 https://dashscope-intl.aliyuncs.com 作为 API 地址",
};

/// How an engine takes the run's location (engines.md, "Where and how an answer was measured").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LocationField {
    /// A documented field of its request (`user_location` of the search tool or of the search
    /// options); its file says which keys it takes.
    Request,
    /// No documented field: the system prompt's `User location: …` line, unless the run
    /// switches it off (`locationPrompt: false`).
    Prompt,
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
    /// How its answers cite search results in their text.
    pub markers: MarkerRule,
    /// Which words its errors and key verdicts are told in.
    pub wording: Wording,
    /// What a rejected key should make the user check besides the key itself.
    pub auth_hint: Option<&'static AuthHint>,
    /// How it takes the run's location.
    pub location: LocationField,
    /// The country its web search assumes when a request gives no location (OpenAI: the
    /// United States), when its documentation says so.
    pub assumed_country: Option<&'static str>,
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
        markers: MarkerRule::None,
        wording: Wording::Seed,
        auth_hint: None,
        location: LocationField::Prompt,
        assumed_country: None,
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
        markers: MarkerRule::None,
        wording: Wording::Named,
        auth_hint: None,
        location: LocationField::Request,
        assumed_country: None,
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
        markers: MarkerRule::None,
        wording: Wording::Named,
        auth_hint: None,
        location: LocationField::Request,
        assumed_country: Some("US"),
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
        markers: MarkerRule::None,
        wording: Wording::Named,
        auth_hint: None,
        location: LocationField::Prompt,
        assumed_country: None,
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
        markers: MarkerRule::Brackets,
        wording: Wording::Named,
        auth_hint: None,
        location: LocationField::Request,
        assumed_country: None,
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
        markers: MarkerRule::Ref,
        wording: Wording::Named,
        auth_hint: Some(&DASHSCOPE_REGION_HINT),
        location: LocationField::Prompt,
        assumed_country: None,
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
        markers: MarkerRule::None,
        wording: Wording::Named,
        auth_hint: None,
        location: LocationField::Request,
        assumed_country: None,
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
        markers: MarkerRule::Caret,
        wording: Wording::Named,
        auth_hint: None,
        location: LocationField::Prompt,
        assumed_country: None,
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
        markers: MarkerRule::Brackets,
        wording: Wording::Named,
        auth_hint: None,
        location: LocationField::Prompt,
        assumed_country: None,
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
    }

    #[test]
    fn the_system_prompt_is_the_seeds() {
        assert_eq!(REQUEST_TIMEOUT_MS, 180_000);
        assert_eq!(SYSTEM_PROMPT.chars().count(), 36);
        assert!(SYSTEM_PROMPT.ends_with("不要描述你的搜索或思考过程。"));
    }
}
