//! A run: one batch of probes of one engine ([`EngineId`]), with the configuration
//! ([`RunConfig`]) and the snapshots it froze when it started, and its lifecycle
//! ([`RunStatus`]). An `app` run's config, of captured answers, has no budget
//! ([`RunConfig::for_app`]: written `null`, `docs/adr/0022-location-surface-method.md`).

use serde::{Deserialize, Serialize};

use super::location::{Location, Surface};
use super::{FactSnapshot, Prompt, Target, SCHEMA_VERSION};

/// The assistant a run asks (`shared/spec/engines.md`); `deepseek` when a stored run
/// names none, so every older export stays valid.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EngineId {
    /// DeepSeek's Anthropic-compatible Messages endpoint (the seed's engine).
    #[default]
    Deepseek,
    /// Anthropic's Claude Messages API.
    Anthropic,
    /// OpenAI's Responses API.
    Openai,
    /// Google's Gemini `generateContent`.
    Gemini,
    /// Perplexity's chat completions.
    Perplexity,
    /// Alibaba's Qwen through DashScope's native text generation (engines.md, "Chinese engines").
    Qwen,
    /// ByteDance's Doubao through Volcengine Ark's Responses API.
    Doubao,
    /// Baidu's ERNIE through Qianfan's chat completions.
    Ernie,
    /// Tencent's Hunyuan through its OpenAI-compatible chat completions.
    Hunyuan,
}

impl EngineId {
    /// Every engine in the order of `shared/spec/engines.md` (the order of every engine list).
    pub const ALL: [EngineId; 9] = [
        EngineId::Deepseek,
        EngineId::Anthropic,
        EngineId::Openai,
        EngineId::Gemini,
        EngineId::Perplexity,
        EngineId::Qwen,
        EngineId::Doubao,
        EngineId::Ernie,
        EngineId::Hunyuan,
    ];

    /// The wire name (`deepseek`, `anthropic`, `openai`, `gemini`, `perplexity`, `qwen`,
    /// `doubao`, `ernie`, `hunyuan`).
    pub fn as_str(self) -> &'static str {
        match self {
            EngineId::Deepseek => "deepseek",
            EngineId::Anthropic => "anthropic",
            EngineId::Openai => "openai",
            EngineId::Gemini => "gemini",
            EngineId::Perplexity => "perplexity",
            EngineId::Qwen => "qwen",
            EngineId::Doubao => "doubao",
            EngineId::Ernie => "ernie",
            EngineId::Hunyuan => "hunyuan",
        }
    }

    /// The engine with this wire name (exact, lowercase), if any.
    pub fn parse(name: &str) -> Option<EngineId> {
        EngineId::ALL.into_iter().find(|e| e.as_str() == name)
    }
}

impl std::fmt::Display for EngineId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The configuration frozen into a run when it starts. Its `Default`, the default run, is
/// built from the engine and budget tables (`provider::budget`). Written through
/// `RunConfigOut`: an `app` run's config has no budget, and its budget fields are written
/// `null` ([`RunConfig::for_app`]); compared field by field, two configs without a budget as
/// equal.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", into = "RunConfigOut")]
pub struct RunConfig {
    /// The engine asked (absent in older exports: DeepSeek).
    #[serde(default)]
    pub engine: EngineId,
    /// Requested model name.
    pub model: String,
    /// Probes per prompt.
    pub repeats: u32,
    /// Parallel requests, clamped to 1..=3 (`null` in an `app` run: read as 0).
    #[serde(default, deserialize_with = "u32_or_null")]
    pub concurrency: u32,
    /// `max_uses` of the web search tool (`null` in an `app` run: read as 0).
    #[serde(default, deserialize_with = "u32_or_null")]
    pub max_searches: u32,
    /// `max_tokens` of the request (`null` in an `app` run: read as 0).
    #[serde(default, deserialize_with = "u32_or_null")]
    pub max_tokens: u32,
    /// `temperature` of the request (`null` in an `app` run: read as NaN, the mark of a
    /// config without a budget, [`RunConfig::is_captured`]).
    #[serde(default = "no_temperature", deserialize_with = "f64_or_nan")]
    pub temperature: f64,
    /// Version of the system prompt used (`null` in an `app` run: read as empty).
    #[serde(default, deserialize_with = "string_or_null")]
    pub system_prompt_version: String,
    /// The reasoning effort the request asked for (OpenAI `reasoning.effort`, DeepSeek
    /// `output_config.effort`, Gemini's thinking budget chosen by it): absent when the
    /// engine's model has no such setting, and in older exports (`docs/adr/0016-…`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning_effort: Option<ReasoningEffort>,
    /// Gemini's `thinkingConfig.thinkingBudget` as sent (tokens of thinking allowed inside
    /// `maxTokens`); absent for other engines and in older exports.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thinking_budget: Option<u32>,
    /// Where the asker is (engines.md, "Where and how an answer was measured"); absent = no
    /// location.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub location: Option<Location>,
    /// Whether an engine without a location field gets the system prompt's `User location:`
    /// line (absent = `true`; only `false` is written).
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub location_prompt: bool,
}

/// `true`: what an absent `locationPrompt` means.
fn yes() -> bool {
    true
}

impl RunConfig {
    /// The config of an `app` run of `engine` (engines.md, "Precise rules"): model `app`,
    /// `repeats` (the most captures of one prompt), the captures' common location, and no
    /// budget — concurrency, searches, tokens, temperature and system-prompt version are
    /// written `null` (held as 0, NaN and empty: [`RunConfig::is_captured`]).
    pub fn for_app(engine: EngineId, repeats: u32, location: Option<Location>) -> RunConfig {
        RunConfig {
            engine,
            model: APP_MODEL.to_string(),
            repeats,
            concurrency: 0,
            max_searches: 0,
            max_tokens: 0,
            temperature: f64::NAN,
            system_prompt_version: String::new(),
            reasoning_effort: None,
            thinking_budget: None,
            location,
            location_prompt: true,
        }
    }

    /// Whether this is the config of captured answers ([`RunConfig::for_app`]): it has no
    /// budget. A run this program makes always has a finite temperature (`start_run` refuses
    /// any other), and JSON cannot write NaN, so the mark is unambiguous.
    pub fn is_captured(&self) -> bool {
        self.temperature.is_nan()
    }
}

/// Field by field, with the temperatures of two configs without a budget (NaN) equal: an `app`
/// run equals its own copy, so a page holding it does not see a change where there is none.
impl PartialEq for RunConfig {
    fn eq(&self, o: &Self) -> bool {
        let same_temperature = self.temperature == o.temperature || (self.is_captured() && o.is_captured());
        self.engine == o.engine
            && self.model == o.model
            && self.repeats == o.repeats
            && self.concurrency == o.concurrency
            && self.max_searches == o.max_searches
            && self.max_tokens == o.max_tokens
            && same_temperature
            && self.system_prompt_version == o.system_prompt_version
            && self.reasoning_effort == o.reasoning_effort
            && self.thinking_budget == o.thinking_budget
            && self.location == o.location
            && self.location_prompt == o.location_prompt
    }
}

/// `config.model` (and a probe's `model` without one of its own) of an `app` run.
pub const APP_MODEL: &str = "app";

/// How a [`RunConfig`] is written: as its fields, except that a config without a budget
/// ([`RunConfig::is_captured`]) writes `null` for concurrency, searches, tokens, temperature
/// and system-prompt version. Field order and skipped fields are those of the model.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct RunConfigOut {
    engine: EngineId,
    model: String,
    repeats: u32,
    concurrency: Option<u32>,
    max_searches: Option<u32>,
    max_tokens: Option<u32>,
    temperature: Option<f64>,
    system_prompt_version: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reasoning_effort: Option<ReasoningEffort>,
    #[serde(skip_serializing_if = "Option::is_none")]
    thinking_budget: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    location: Option<Location>,
    #[serde(skip_serializing_if = "is_true")]
    location_prompt: bool,
}

impl From<RunConfig> for RunConfigOut {
    fn from(c: RunConfig) -> Self {
        let budget = !c.is_captured();
        RunConfigOut {
            engine: c.engine,
            model: c.model,
            repeats: c.repeats,
            concurrency: budget.then_some(c.concurrency),
            max_searches: budget.then_some(c.max_searches),
            max_tokens: budget.then_some(c.max_tokens),
            temperature: budget.then_some(c.temperature),
            system_prompt_version: budget.then_some(c.system_prompt_version),
            reasoning_effort: c.reasoning_effort,
            thinking_budget: c.thinking_budget,
            location: c.location,
            location_prompt: c.location_prompt,
        }
    }
}

/// A whole number, or `null` read as 0 (an `app` run's budget fields).
fn u32_or_null<'de, D: serde::Deserializer<'de>>(d: D) -> Result<u32, D::Error> {
    Ok(Option::<u32>::deserialize(d)?.unwrap_or(0))
}

/// A number, or `null` read as NaN (an `app` run's temperature).
fn f64_or_nan<'de, D: serde::Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    Ok(Option::<f64>::deserialize(d)?.unwrap_or(f64::NAN))
}

/// A string, or `null` read as empty (an `app` run's system-prompt version).
fn string_or_null<'de, D: serde::Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    Ok(Option::<String>::deserialize(d)?.unwrap_or_default())
}

/// The temperature of a config that names none: NaN, no budget ([`RunConfig::is_captured`]).
fn no_temperature() -> f64 {
    f64::NAN
}

/// Whether `value` is `true` (an explicit `locationPrompt: true` is not written).
fn is_true(value: &bool) -> bool {
    *value
}

/// How hard a reasoning model is asked to think (`run --reasoning-effort`; engines.md
/// "Fidelity"). OpenAI refuses `minimal` together with `web_search`, so there is none.
///
/// Read through a `String` ([`ReasoningEffort::parse`]): no enum visitor of its own in the
/// web app's module (ADR 0014).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", try_from = "String")]
pub enum ReasoningEffort {
    /// `low`.
    Low,
    /// `medium`.
    Medium,
    /// `high`.
    High,
}

wire_names!(ReasoningEffort "reasoning effort" { Low => "low", Medium => "medium", High => "high" });

/// Lifecycle state of a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunStatus {
    /// Probes are being executed.
    Running,
    /// Every probe succeeded.
    Completed,
    /// Some probes succeeded, some failed.
    Partial,
    /// No probe succeeded.
    Failed,
    /// The user cancelled the run.
    Cancelled,
}

wire_names!(RunStatus {
    Running => "running",
    Completed => "completed",
    Partial => "partial",
    Failed => "failed",
    Cancelled => "cancelled",
});

/// One batch of probes with its frozen snapshots.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Run {
    /// Stable id.
    pub id: String,
    /// Owning project.
    pub project_id: String,
    /// Current status.
    pub status: RunStatus,
    /// ISO 8601 UTC.
    pub created_at: String,
    /// ISO 8601 UTC, set when the run stops.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finished_at: Option<String>,
    /// Newest completed or partial run of the project when this one started.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub previous_run_id: Option<String>,
    /// [`APP_VERSION`](super::APP_VERSION) at creation.
    #[serde(default)]
    pub app_version: String,
    /// [`SCHEMA_VERSION`] at creation.
    #[serde(default = "default_schema_version")]
    pub schema_version: u32,
    /// Frozen configuration.
    pub config: RunConfig,
    /// Brand first, then competitors, as they were when the run started.
    #[serde(default)]
    pub alias_snapshot: Vec<Target>,
    /// The prompts of the run, as they were when it started.
    #[serde(default)]
    pub prompt_snapshot: Vec<Prompt>,
    /// prompts × repeats.
    #[serde(default)]
    pub planned_probe_count: u32,
    /// Shared by the runs started together (one per engine) so they can be compared.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group_id: Option<String>,
    /// The project's fact sheet as it was when the run started (absent in older runs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fact_snapshot: Option<FactSnapshot>,
    /// What the run measured: `api` (absent: every run this program made) or `app` (captured
    /// answers, `geo-probe import-captures`).
    #[serde(default, skip_serializing_if = "Surface::is_api")]
    pub surface: Surface,
}

fn default_schema_version() -> u32 {
    SCHEMA_VERSION
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn engine_ids_match_their_wire_names_and_default_to_deepseek() {
        for engine in EngineId::ALL {
            assert_eq!(serde_json::to_value(engine).unwrap(), engine.as_str());
            assert_eq!(EngineId::parse(engine.as_str()), Some(engine));
        }
        assert_eq!(EngineId::parse("DeepSeek"), None);
        let config: RunConfig = serde_json::from_str(
            r#"{"model":"m","repeats":1,"concurrency":1,"maxSearches":5,"maxTokens":3000,"temperature":1,"systemPromptVersion":"v"}"#,
        )
        .unwrap();
        assert_eq!(config.engine, EngineId::Deepseek);
    }

    #[test]
    fn an_app_config_writes_its_budget_null_and_reads_it_back() {
        let api = RunConfig {
            engine: EngineId::Openai,
            model: "gpt-5-mini".into(),
            repeats: 3,
            concurrency: 3,
            max_searches: 5,
            max_tokens: 16384,
            temperature: 1.0,
            system_prompt_version: "neutral-zh-v1".into(),
            reasoning_effort: Some(ReasoningEffort::Low),
            thinking_budget: None,
            location: None,
            location_prompt: true,
        };
        assert_eq!(
            serde_json::to_string(&api).unwrap(),
            r#"{"engine":"openai","model":"gpt-5-mini","repeats":3,"concurrency":3,"maxSearches":5,"maxTokens":16384,"temperature":1.0,"systemPromptVersion":"neutral-zh-v1","reasoningEffort":"low"}"#
        );
        let off =
            RunConfig { location_prompt: false, location: Location::from_flags(Some("CN"), None).unwrap(), ..api };
        assert!(serde_json::to_string(&off)
            .unwrap()
            .ends_with(r#""location":{"country":"CN"},"locationPrompt":false}"#));
        let app = RunConfig::for_app(EngineId::Deepseek, 2, None);
        let text = serde_json::to_string(&app).unwrap();
        assert_eq!(
            text,
            r#"{"engine":"deepseek","model":"app","repeats":2,"concurrency":null,"maxSearches":null,"maxTokens":null,"temperature":null,"systemPromptVersion":null}"#
        );
        let back: RunConfig = serde_json::from_str(&text).unwrap();
        assert!(back.is_captured() && !api_like(&back));
        assert_eq!(back, app, "two configs without a budget are equal");
        let absent: RunConfig = serde_json::from_str(r#"{"engine":"deepseek","model":"app","repeats":2}"#).unwrap();
        assert_eq!(absent, app);
    }

    fn api_like(c: &RunConfig) -> bool {
        c.max_tokens > 0 && c.temperature.is_finite()
    }
}
