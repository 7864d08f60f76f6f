//! [`RunnerError`]: why a run could not be started or driven, in both interface languages.

use crate::model::{EngineId, Localized, LocationProblem};
use crate::project::FactProblem;

use super::Slot;

/// Why the runner refused an input. Every variant is a user-facing condition or a shell bug
/// reported as a value; the runner never panics on user data.
#[derive(Debug, Clone, PartialEq)]
pub enum RunnerError {
    /// No prompt was selected (or the project has none).
    NoPromptSelected,
    /// A selected prompt id is not one of the project's prompts.
    UnknownPrompt {
        /// The id that was not found.
        prompt_id: String,
    },
    /// `repeats` was 0.
    InvalidRepeats,
    /// `maxSearches` was 0.
    InvalidMaxSearches,
    /// prompts × repeats is above [`crate::limits::MAX_PROBES_PER_RUN`].
    TooManyProbes {
        /// prompts × repeats.
        planned: u64,
    },
    /// `temperature` is not a finite number in 0..=[`crate::limits::MAX_TEMPERATURE`].
    InvalidTemperature {
        /// The value as written.
        value: String,
    },
    /// `temperature` is outside the range of the run's engine (engines.md, "Fidelity").
    TemperatureOutOfRange {
        /// The engine.
        engine: EngineId,
        /// The value as written.
        value: String,
        /// The engine's lowest temperature.
        min: f64,
        /// The engine's highest temperature.
        max: f64,
    },
    /// The run to execute has no prompts in its snapshot or zero repeats.
    EmptySnapshot {
        /// The run.
        run_id: String,
    },
    /// A failed probe to retry names a prompt that is not in its run's prompt snapshot.
    PromptNotInSnapshot {
        /// The probe that cannot be retried.
        probe_id: String,
        /// The prompt id it names.
        prompt_id: String,
    },
    /// A response was reported for a slot that has no request in flight (a shell bug).
    NoRequestInFlight {
        /// The slot named by the shell.
        slot: Slot,
    },
    /// The project has more targets than [`crate::limits::MAX_SNAPSHOT_TARGETS`].
    TooManyTargets {
        /// Brand + competitors.
        targets: usize,
    },
    /// The project's fact sheet breaks a rule of [`crate::project::validate_fact_sheet`]:
    /// a run would freeze it as its `factSnapshot`.
    InvalidFactSheet {
        /// The first problem.
        problem: FactProblem,
    },
    /// The run's `config.location` breaks the rule of [`crate::model::Location::check`]:
    /// nothing is sent.
    InvalidLocation {
        /// What is wrong.
        problem: LocationProblem,
    },
    /// The run is an `app` run (imported captures): there is nothing to send again.
    AppRun {
        /// The run.
        run_id: String,
    },
}

impl RunnerError {
    /// The message in Chinese and English (English is what [`Display`](std::fmt::Display) prints).
    pub fn localized(&self) -> Localized {
        match self {
            RunnerError::NoPromptSelected => Localized::new(
                "请至少选择一条提示词（项目里没有提示词时请先添加）",
                "select at least one prompt (add prompts to the project first if it has none)",
            ),
            RunnerError::UnknownPrompt { prompt_id } => Localized::new(
                format!("提示词 {prompt_id} 不属于该项目，请重新选择提示词"),
                format!("prompt {prompt_id} is not a prompt of this project; select prompts again"),
            ),
            RunnerError::InvalidRepeats => Localized::new(
                "重复次数至少为 1，请修改重复次数",
                "repeats must be at least 1; set a positive number of repeats",
            ),
            RunnerError::InvalidMaxSearches => Localized::new(
                "每次最多搜索次数至少为 1，请修改搜索次数",
                "max searches must be at least 1; set a positive number of searches",
            ),
            RunnerError::TooManyProbes { planned } => {
                let limit = crate::limits::MAX_PROBES_PER_RUN;
                Localized::new(
                    format!("提示词数 × 重复次数为 {planned}，超过每批 {limit} 次探测的上限；请减少提示词或重复次数"),
                    format!(
                        "prompts × repeats is {planned}, above the limit of {limit} probes a run; select fewer prompts or fewer repeats"
                    ),
                )
            }
            RunnerError::InvalidTemperature { value } => {
                let max = crate::limits::MAX_TEMPERATURE;
                Localized::new(
                    format!("temperature 为 {value}，必须是 0 到 {max} 之间的数；请修改批次配置"),
                    format!("temperature is {value}; it must be a number from 0 to {max}, so change the run's config"),
                )
            }
            RunnerError::TemperatureOutOfRange { engine, value, min, max } => {
                let name = crate::provider::spec(*engine).name;
                Localized::new(
                    format!("temperature {value} 超出 {name} 的范围 {min}–{max}，请调整或不选 {name}"),
                    format!(
                        "temperature {value} is outside the range {min} to {max} that {name} ({engine}) accepts; set a temperature in that range or leave {engine} out of the run"
                    ),
                )
            }
            RunnerError::EmptySnapshot { run_id } => Localized::new(
                format!("批次 {run_id} 的快照里没有可运行的提示词，请新建一个批次"),
                format!("run {run_id} has no prompts to run in its snapshot; start a new run instead"),
            ),
            RunnerError::PromptNotInSnapshot { probe_id, prompt_id } => Localized::new(
                format!("Probe {probe_id} 的提示词 {prompt_id} 不在批次快照中，无法重试；请新建一个批次"),
                format!(
                    "probe {probe_id} names prompt {prompt_id}, which is not in the run's prompt snapshot; start a new run instead"
                ),
            ),
            RunnerError::NoRequestInFlight { slot } => Localized::new(
                format!("执行槽 {} 没有进行中的请求，响应已忽略", slot.0),
                format!("slot {} has no request in flight; report a response only for a slot that was sent", slot.0),
            ),
            RunnerError::TooManyTargets { targets } => {
                let limit = crate::limits::MAX_SNAPSHOT_TARGETS;
                Localized::new(
                    format!("项目有 {targets} 个品牌与竞品，超过 {limit} 个的上限；请删减竞品后再运行"),
                    format!(
                        "the project has {targets} brand and competitor targets, above the limit of {limit}; remove competitors, then start the run"
                    ),
                )
            }
            RunnerError::InvalidFactSheet { problem } => {
                let why = problem.localized();
                Localized::new(
                    format!("项目的事实表有误，无法开始批次：{}", why.zh),
                    format!("the project's fact sheet cannot be used for a run: {}", why.en),
                )
            }
            RunnerError::InvalidLocation { problem } => {
                let why = problem.localized();
                Localized::new(format!("批次的位置有误，未发送任何请求：{}", why.zh), why.en)
            }
            RunnerError::AppRun { run_id } => Localized::new(
                format!("批次 {run_id} 是导入的应用回答，无法继续运行或重试；请再导入一次新的回答"),
                format!(
                    "run {run_id} holds answers captured from an app; it cannot be continued or retried: import new captures instead"
                ),
            ),
        }
    }
}

crate::model::localized_error!(RunnerError);
