//! What each engine and model is asked to spend: the output budget (`maxTokens`), the
//! reasoning effort and Gemini's thinking budget (engines.md, "Fidelity";
//! `docs/adr/0016-what-each-engine-is-asked.md`).
//!
//! # The one decision: one table row per engine and model family
//!
//! Reasoning models spend their thinking inside the output budget (OpenAI's
//! `max_output_tokens`, Gemini 2.5's `maxOutputTokens`, the `<think>` section of Perplexity's
//! reasoning models, DeepSeek's thinking blocks), so one number for every engine either cuts
//! a reasoning model's answer off or asks a plain model for nothing it will use.
//! [`BUDGETS`] says, per engine and model prefix, which request field carries a reasoning
//! setting ([`ReasoningParam`]), which effort is asked when the user names none, and the
//! output budget with and without an effort. A model that thinks up to 8,000 tokens before a
//! 1,000-token answer fits every default with room to spare; the budget is a ceiling, not a
//! spend (the engines bill the tokens used).
//!
//! [`resolve`] applies a row to a run's flags (`--max-tokens`, `--reasoning-effort`, the run
//! page's fields), so both shells ask the same; the result is written into the run's config
//! (`maxTokens`, `reasoningEffort`, `thinkingBudget`) and the request builders read only the
//! config, so a resumed run asks exactly what it asked before. New engines add rows.

use super::spec::{model_or_default, spec};
use crate::model::{EngineId, Localized, ReasoningEffort, RunConfig, SYSTEM_PROMPT_VERSION};

/// The request field that carries a reasoning setting.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReasoningParam {
    /// The model has no reasoning setting the request can carry (it may still think, as
    /// Perplexity's reasoning models do, inside the output budget).
    None,
    /// OpenAI Responses `reasoning: {"effort": …}`.
    OpenAiEffort,
    /// DeepSeek's Anthropic endpoint `output_config: {"effort": …}` (its only documented
    /// `output_config` field; `thinking.budget_tokens` is ignored there).
    DeepseekEffort,
    /// Gemini `generationConfig.thinkingConfig.thinkingBudget`, chosen by the effort.
    GeminiThinkingBudget,
}

/// One row of [`BUDGETS`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BudgetRow {
    /// The engine.
    pub engine: EngineId,
    /// Model-name prefix (ASCII case-insensitive; the longest matching row wins); `""`
    /// matches every other model of the engine.
    pub prefix: &'static str,
    /// Where a reasoning effort goes.
    pub param: ReasoningParam,
    /// The effort asked when the user names none (`None`: nothing is sent).
    pub default_effort: Option<ReasoningEffort>,
    /// `maxTokens` when no effort is asked.
    pub max_tokens: u32,
    /// `maxTokens` per effort (low, medium, high).
    pub max_tokens_by_effort: [u32; 3],
    /// Gemini's thinking budget per effort (low, medium, high); zeros elsewhere.
    pub thinking_by_effort: [u32; 3],
}

/// DeepSeek's default output budget: its models think before they answer on the Anthropic
/// endpoint (every recorded body opens with a `thinking` block), inside `max_tokens`.
pub const DEEPSEEK_MAX_TOKENS: u32 = 16_384;

/// The output budget of an answer without reasoning (a long list after several searches
/// fits with room).
pub const ANSWER_MAX_TOKENS: u32 = 8_192;

/// `maxTokens` per effort of a reasoning model whose thinking shares the output budget.
const REASONING_BY_EFFORT: [u32; 3] = [8_192, 16_384, 32_768];

const fn row(
    engine: EngineId,
    prefix: &'static str,
    param: ReasoningParam,
    default_effort: Option<ReasoningEffort>,
    max_tokens: u32,
    max_tokens_by_effort: [u32; 3],
    thinking_by_effort: [u32; 3],
) -> BudgetRow {
    BudgetRow { engine, prefix, param, default_effort, max_tokens, max_tokens_by_effort, thinking_by_effort }
}

const MEDIUM: Option<ReasoningEffort> = Some(ReasoningEffort::Medium);

/// Every engine's rows, engines in engines.md order (why each value: ADR 0016).
///
/// * DeepSeek: its models think by default; 16,384 tokens (an effort, when asked, goes in
///   `output_config.effort` and picks 8,192 / 16,384 / 32,768).
/// * Claude: no extended thinking (Claude's apps answer without it unless the user turns it
///   on); 8,192 tokens; an effort does not apply.
/// * OpenAI `gpt-5*` and the `o` series: `reasoning.effort` medium (the API's default;
///   ChatGPT reasons), 16,384 tokens (8,192 / 32,768 at low / high); other models (`gpt-4.1`)
///   do not reason: 8,192.
/// * Gemini 2.5 Flash and Pro: thinking on (as in the Gemini app), medium = a thinking budget
///   of 8,192 inside 16,384 tokens (low 2,048 in 10,240; high the model's largest budget,
///   24,576 / 32,768, plus 8,192 for the answer); Flash-Lite does not think unless an
///   effort is asked; other Gemini models keep their own thinking default in 16,384 tokens.
/// * Perplexity `sonar-reasoning*`: no reasoning setting, the `<think>` section shares
///   16,384 tokens; other Sonar models 8,192.
/// * Qwen, Doubao, ERNIE, Hunyuan: answered without a reasoning setting (Qwen is sent
///   `enable_thinking: false`: DashScope searches with thinking only when streamed), 8,192.
pub const BUDGETS: &[BudgetRow] = &[
    row(EngineId::Deepseek, "", ReasoningParam::DeepseekEffort, None, DEEPSEEK_MAX_TOKENS, REASONING_BY_EFFORT, [0; 3]),
    row(EngineId::Anthropic, "", ReasoningParam::None, None, ANSWER_MAX_TOKENS, [ANSWER_MAX_TOKENS; 3], [0; 3]),
    row(EngineId::Openai, "gpt-5", ReasoningParam::OpenAiEffort, MEDIUM, 16_384, REASONING_BY_EFFORT, [0; 3]),
    row(EngineId::Openai, "o1", ReasoningParam::OpenAiEffort, MEDIUM, 16_384, REASONING_BY_EFFORT, [0; 3]),
    row(EngineId::Openai, "o3", ReasoningParam::OpenAiEffort, MEDIUM, 16_384, REASONING_BY_EFFORT, [0; 3]),
    row(EngineId::Openai, "o4", ReasoningParam::OpenAiEffort, MEDIUM, 16_384, REASONING_BY_EFFORT, [0; 3]),
    row(EngineId::Openai, "", ReasoningParam::None, None, ANSWER_MAX_TOKENS, [ANSWER_MAX_TOKENS; 3], [0; 3]),
    row(
        EngineId::Gemini,
        "gemini-2.5-flash-lite",
        ReasoningParam::GeminiThinkingBudget,
        None,
        ANSWER_MAX_TOKENS,
        [10_240, 16_384, 32_768],
        [2_048, 8_192, 24_576],
    ),
    row(
        EngineId::Gemini,
        "gemini-2.5-flash",
        ReasoningParam::GeminiThinkingBudget,
        MEDIUM,
        16_384,
        [10_240, 16_384, 32_768],
        [2_048, 8_192, 24_576],
    ),
    row(
        EngineId::Gemini,
        "gemini-2.5-pro",
        ReasoningParam::GeminiThinkingBudget,
        MEDIUM,
        16_384,
        [10_240, 16_384, 40_960],
        [2_048, 8_192, 32_768],
    ),
    row(EngineId::Gemini, "", ReasoningParam::None, None, 16_384, [16_384; 3], [0; 3]),
    row(EngineId::Perplexity, "sonar-reasoning", ReasoningParam::None, None, 16_384, [16_384; 3], [0; 3]),
    row(EngineId::Perplexity, "", ReasoningParam::None, None, ANSWER_MAX_TOKENS, [ANSWER_MAX_TOKENS; 3], [0; 3]),
    row(EngineId::Qwen, "", ReasoningParam::None, None, ANSWER_MAX_TOKENS, [ANSWER_MAX_TOKENS; 3], [0; 3]),
    row(EngineId::Doubao, "", ReasoningParam::None, None, ANSWER_MAX_TOKENS, [ANSWER_MAX_TOKENS; 3], [0; 3]),
    row(EngineId::Ernie, "", ReasoningParam::None, None, ANSWER_MAX_TOKENS, [ANSWER_MAX_TOKENS; 3], [0; 3]),
    row(EngineId::Hunyuan, "", ReasoningParam::None, None, ANSWER_MAX_TOKENS, [ANSWER_MAX_TOKENS; 3], [0; 3]),
];

/// The largest `maxTokens` a run may ask (above every engine's largest output).
pub const MAX_OUTPUT_TOKENS: u32 = 131_072;

/// `name` starts with `prefix`, ASCII case-insensitively.
fn starts_with_ignore_case(name: &str, prefix: &str) -> bool {
    name.len() >= prefix.len() && name.as_bytes()[..prefix.len()].eq_ignore_ascii_case(prefix.as_bytes())
}

/// The row of `engine` and `model` (blank: the engine's default model): the longest
/// matching prefix, else the engine's `""` row.
pub fn row_for(engine: EngineId, model: &str) -> &'static BudgetRow {
    let model = model_or_default(engine, model);
    let mut best = &BUDGETS[0];
    let mut found = false;
    for r in BUDGETS {
        if r.engine == engine
            && starts_with_ignore_case(model, r.prefix)
            && (!found || r.prefix.len() > best.prefix.len())
        {
            (best, found) = (r, true);
        }
    }
    best
}

/// Whether `engine`'s `model` takes a reasoning effort (the run page enables its field).
pub fn takes_effort(engine: EngineId, model: &str) -> bool {
    row_for(engine, model).param != ReasoningParam::None
}

/// What a run of one engine and model asks, from the user's flags and the table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Budget {
    /// `maxTokens`.
    pub max_tokens: u32,
    /// `reasoningEffort` (`None`: nothing sent).
    pub reasoning_effort: Option<ReasoningEffort>,
    /// `thinkingBudget` (Gemini only).
    pub thinking_budget: Option<u32>,
    /// What the user should know (an effort that does not apply …).
    pub notes: Vec<BudgetNote>,
}

/// Something a shell tells the user about a budget (a `warning:` line, a note on the run page).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BudgetNote {
    /// The user asked for an effort the engine's model has no setting for; nothing is sent.
    EffortNotApplicable {
        /// The engine.
        engine: EngineId,
        /// Its model.
        model: String,
    },
    /// Gemini's thinking budget is not below `maxTokens`: an answer may be cut off.
    ThinkingFillsBudget {
        /// The thinking budget.
        thinking: u32,
        /// `maxTokens`.
        max_tokens: u32,
    },
}

impl BudgetNote {
    /// The note in both interface languages (lowercase English, as a `warning:` line).
    pub fn localized(&self) -> Localized {
        match self {
            BudgetNote::EffortNotApplicable { engine, model } => {
                let name = spec(*engine).name;
                Localized::new(
                    format!("{name}（{model}）不支持推理强度，不发送"),
                    format!("{name} ({model}) takes no reasoning effort; none is sent"),
                )
            }
            BudgetNote::ThinkingFillsBudget { thinking, max_tokens } => Localized::new(
                format!("思考预算 {thinking} 占满输出上限 {max_tokens}，回答可能被截断"),
                format!(
                    "the thinking budget of {thinking} tokens fills the output budget of {max_tokens}: raise --max-tokens or lower the effort"
                ),
            ),
        }
    }
}

/// Why a budget was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BudgetError {
    /// `maxTokens` outside 1..=[`MAX_OUTPUT_TOKENS`].
    MaxTokens {
        /// The value asked.
        value: u32,
    },
}

impl BudgetError {
    /// The message in both interface languages.
    pub fn localized(&self) -> Localized {
        match self {
            BudgetError::MaxTokens { value } => Localized::new(
                format!("输出上限须为 1 到 {MAX_OUTPUT_TOKENS} 的整数（{value}）"),
                format!("max tokens {value} is out of range; use a whole number from 1 to {MAX_OUTPUT_TOKENS}"),
            ),
        }
    }
}

crate::model::localized_error!(BudgetError);

/// The budget of a run of `engine`'s `model` for the user's `max_tokens` and `effort`
/// (each `None` when not given): the effort where the model takes one (else the row's
/// default; an effort the model cannot take is dropped with a note), Gemini's thinking
/// budget of that effort, and `max_tokens` as given or the row's for that effort.
pub fn resolve(
    engine: EngineId,
    model: &str,
    max_tokens: Option<u32>,
    effort: Option<ReasoningEffort>,
) -> Result<Budget, BudgetError> {
    let row = row_for(engine, model);
    let mut notes = Vec::new();
    let effort = match (row.param, effort) {
        (ReasoningParam::None, Some(_)) => {
            let model = model_or_default(engine, model).to_string();
            notes.push(BudgetNote::EffortNotApplicable { engine, model });
            None
        }
        (ReasoningParam::None, None) => None,
        (_, Some(e)) => Some(e),
        (_, None) => row.default_effort,
    };
    let index = |e: ReasoningEffort| e as usize;
    let thinking_budget = match (row.param, effort) {
        (ReasoningParam::GeminiThinkingBudget, Some(e)) => Some(row.thinking_by_effort[index(e)]),
        _ => None,
    };
    let max_tokens = match max_tokens {
        Some(v) if v == 0 || v > MAX_OUTPUT_TOKENS => return Err(BudgetError::MaxTokens { value: v }),
        Some(v) => v,
        None => effort.map_or(row.max_tokens, |e| row.max_tokens_by_effort[index(e)]),
    };
    if let Some(thinking) = thinking_budget.filter(|t| *t >= max_tokens) {
        notes.push(BudgetNote::ThinkingFillsBudget { thinking, max_tokens });
    }
    Ok(Budget { max_tokens, reasoning_effort: effort, thinking_budget, notes })
}

impl Budget {
    /// Writes the budget into a run's config.
    pub fn apply(&self, config: &mut RunConfig) {
        config.max_tokens = self.max_tokens;
        config.reasoning_effort = self.reasoning_effort;
        config.thinking_budget = self.thinking_budget;
    }
}

/// A new run's config for `engine` and `model` with the table's budget (no flags): the
/// default run config of engines.md "Fidelity".
pub fn default_config(engine: EngineId, model: &str) -> RunConfig {
    let model = model_or_default(engine, model).to_string();
    let mut config = RunConfig {
        engine,
        max_tokens: row_for(engine, &model).max_tokens,
        model,
        repeats: 3,
        concurrency: 3,
        max_searches: 5,
        temperature: 1.0,
        system_prompt_version: SYSTEM_PROMPT_VERSION.to_string(),
        reasoning_effort: None,
        thinking_budget: None,
        location: None,
        location_prompt: true,
    };
    // No flag given: nothing to refuse.
    if let Ok(budget) = resolve(engine, &config.model, None, None) {
        budget.apply(&mut config);
    }
    config
}

/// The default run: the seed's engine (`EngineId::default()`, DeepSeek), its default model and
/// its budget, three repeats of every prompt, three in flight, five searches, temperature 1.
/// Defined here, not in the model, because every value of it comes from the engine and budget
/// tables (the model imports neither).
impl Default for RunConfig {
    fn default() -> Self {
        default_config(EngineId::default(), "")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ReasoningEffort::*;

    #[track_caller]
    fn check(
        engine: EngineId,
        model: &str,
        flags: (Option<u32>, Option<ReasoningEffort>),
        expect: (u32, Option<ReasoningEffort>, Option<u32>),
    ) {
        let b = resolve(engine, model, flags.0, flags.1).unwrap();
        assert_eq!((b.max_tokens, b.reasoning_effort, b.thinking_budget), expect, "{engine} {model} {flags:?}");
    }

    /// The acceptance rule: with no flag, every engine's every offered model leaves room for
    /// 8,000 tokens of thinking and a 1,000-token answer.
    #[test]
    fn every_offered_model_fits_8000_thinking_and_a_1000_token_answer() {
        for engine in EngineId::ALL {
            for model in spec(engine).models {
                let b = resolve(engine, model, None, None).unwrap();
                // The models that think by default: DeepSeek's, those asked an effort, Gemini's
                // (but Flash-Lite) and Perplexity's reasoning models.
                let thinks = b.reasoning_effort.is_some()
                    || engine == EngineId::Deepseek
                    || model.contains("reasoning")
                    || (engine == EngineId::Gemini && !model.contains("lite"));
                let room = if thinks { 8_000 + 1_000 } else { 1_000 };
                assert!(b.max_tokens >= room.max(8_192), "{engine} {model}: {b:?}");
                if let Some(t) = b.thinking_budget {
                    assert!(t >= 8_000 && b.max_tokens - t >= 1_000, "{engine} {model}: {b:?}");
                }
                assert!(b.notes.is_empty(), "{engine} {model}");
            }
        }
    }

    #[test]
    fn the_table_per_engine_and_model() {
        use EngineId::*;
        check(Deepseek, "", (None, None), (16_384, None, None));
        check(Deepseek, "deepseek-v4-pro", (None, Some(High)), (32_768, Some(High), None));
        check(Anthropic, "claude-sonnet-4-6", (None, None), (8_192, None, None));
        check(Openai, "", (None, None), (16_384, Some(Medium), None));
        check(Openai, "GPT-5-2025-08-07", (None, Some(Low)), (8_192, Some(Low), None));
        check(Openai, "o4-mini", (None, None), (16_384, Some(Medium), None));
        check(Openai, "gpt-4.1", (None, None), (8_192, None, None));
        check(Gemini, "", (None, None), (16_384, Some(Medium), Some(8_192)));
        check(Gemini, "gemini-2.5-pro", (None, Some(High)), (40_960, Some(High), Some(32_768)));
        check(Gemini, "gemini-2.5-flash-lite", (None, None), (8_192, None, None));
        check(Gemini, "gemini-2.5-flash-lite", (None, Some(Low)), (10_240, Some(Low), Some(2_048)));
        check(Gemini, "gemini-3-pro", (None, None), (16_384, None, None));
        check(Perplexity, "sonar-reasoning-pro", (None, None), (16_384, None, None));
        check(Perplexity, "", (None, None), (8_192, None, None));
        // A flag wins over the table.
        check(Openai, "gpt-5", (Some(3_000), None), (3_000, Some(Medium), None));
    }

    #[test]
    fn notes_and_refusals() {
        let b = resolve(EngineId::Anthropic, "", None, Some(High)).unwrap();
        assert_eq!(b.reasoning_effort, None);
        assert!(
            matches!(&b.notes[..], [BudgetNote::EffortNotApplicable { engine: EngineId::Anthropic, model }] if model == "claude-sonnet-4-6")
        );
        assert!(b.notes[0].localized().en.contains("claude"));
        let b = resolve(EngineId::Gemini, "", Some(4_000), None).unwrap();
        assert_eq!(b.notes, [BudgetNote::ThinkingFillsBudget { thinking: 8_192, max_tokens: 4_000 }]);
        for bad in [0, MAX_OUTPUT_TOKENS + 1] {
            assert_eq!(resolve(EngineId::Openai, "", Some(bad), None), Err(BudgetError::MaxTokens { value: bad }));
        }
        let config = default_config(EngineId::Gemini, "");
        assert_eq!(
            (config.model.as_str(), config.max_tokens, config.thinking_budget),
            ("gemini-2.5-flash", 16_384, Some(8_192))
        );
        assert_eq!(RunConfig::default().max_tokens, resolve(EngineId::Deepseek, "", None, None).unwrap().max_tokens);
    }
}
