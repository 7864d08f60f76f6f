//! Creating a run (seed §3.2): validate the selection, freeze the snapshots, pick `previousRunId`.
//!
//! Here too are the checks of "can this configuration run", [`check_temperature`],
//! [`check_probe_count`] and [`check_method`]: `plan` applies them again to a stored run (an
//! imported one may break them), so it imports this file and never the reverse.

use crate::model::{EngineId, Project, Prompt, Run, RunConfig, RunStatus, Surface, APP_VERSION, SCHEMA_VERSION};

use super::error::RunnerError;
use crate::limits::{MAX_PROBES_PER_RUN, MAX_TEMPERATURE};

/// A temperature `engine` accepts: finite, 0..=[`MAX_TEMPERATURE`], and inside the engine's
/// own range (engines.md, "Fidelity": Claude 0–1). An engine whose requests carry no
/// temperature (OpenAI, Perplexity) accepts any such number: it is not sent.
pub fn check_temperature(engine: EngineId, temperature: f64) -> Result<(), RunnerError> {
    if !(temperature.is_finite() && (0.0..=MAX_TEMPERATURE).contains(&temperature)) {
        return Err(RunnerError::InvalidTemperature { value: temperature.to_string() });
    }
    match crate::provider::temperature_applies(engine, temperature) {
        Ok(_) => Ok(()),
        Err([min, max]) => Err(RunnerError::TemperatureOutOfRange { engine, value: temperature.to_string(), min, max }),
    }
}

/// What a run can send: not an `app` run (imported captures), and a location that keeps the
/// rule of [`crate::model::Location::check`] (engines.md, "Where and how an answer was
/// measured": refused before anything is sent).
pub fn check_method(run: &Run) -> Result<(), RunnerError> {
    if run.surface == Surface::App {
        return Err(RunnerError::AppRun { run_id: run.id.clone() });
    }
    check_location(&run.config)
}

/// The config's location, when it has one, against [`crate::model::Location::check`].
pub fn check_location(config: &RunConfig) -> Result<(), RunnerError> {
    match &config.location {
        Some(location) => location.check().map_err(|problem| RunnerError::InvalidLocation { problem }),
        None => Ok(()),
    }
}

/// prompts × repeats within [`MAX_PROBES_PER_RUN`]: the planned probe count, or the refusal
/// of a run that would ask more.
pub fn check_probe_count(prompts: usize, repeats: u32) -> Result<u32, RunnerError> {
    let planned = (prompts as u64).saturating_mul(u64::from(repeats));
    if planned > u64::from(MAX_PROBES_PER_RUN) {
        return Err(RunnerError::TooManyProbes { planned });
    }
    Ok(planned as u32)
}

/// Largest number of requests a run keeps in flight (seed §3.3).
pub const MAX_CONCURRENCY: u32 = 3;

/// `Math.max(1, Math.min(concurrency, 3))`: the concurrency a run actually uses.
pub fn clamp_concurrency(concurrency: u32) -> u32 {
    concurrency.clamp(1, MAX_CONCURRENCY)
}

/// The newest (by `createdAt`) `completed` or `partial` run of `project_id` that asked
/// `engine`, if any (engines.md: a run is compared with the previous run of the same engine).
///
/// Runs that are `running`, `failed` or `cancelled`, runs of other projects and runs of
/// other engines are ignored, and so are `app` runs (imported captures: a run points only at
/// runs of its own surface); a run without `config.engine` (an older export) is DeepSeek's.
/// `createdAt` strings are compared as text, which orders the data model's fixed-width ISO
/// 8601 UTC format chronologically; on equal times the later run in `runs` wins.
pub fn previous_run_id(project_id: &str, engine: EngineId, runs: &[Run]) -> Option<String> {
    runs.iter()
        .filter(|r| r.project_id == project_id && r.config.engine == engine && r.surface == Surface::Api)
        .filter(|r| matches!(r.status, RunStatus::Completed | RunStatus::Partial))
        .fold(None::<&Run>, |best, r| match best {
            Some(b) if b.created_at > r.created_at => Some(b),
            _ => Some(r),
        })
        .map(|r| r.id.clone())
}

/// Creates the `running` run of seed §3.2 with its frozen snapshots.
///
/// * `prompts` may hold prompts of any project; only `project`'s are considered, and the
///   `promptSnapshot` keeps their order in `prompts` (the project order), whatever the order
///   or duplication of `selected_prompt_ids`.
/// * An empty selection is [`RunnerError::NoPromptSelected`]; an id that is not one of the
///   project's prompts is [`RunnerError::UnknownPrompt`].
/// * `concurrency` is clamped to 1..=3 as the seed does; `repeats` and `maxSearches` of 0 are
///   errors rather than clamped, because silently running a different amount of work than
///   the user asked for is worse than saying so.
/// * prompts × repeats above [`crate::limits::MAX_PROBES_PER_RUN`] is [`RunnerError::TooManyProbes`], and a
///   `temperature` outside 0..=[`MAX_TEMPERATURE`] (or not finite) is
///   [`RunnerError::InvalidTemperature`], outside the engine's own range
///   [`RunnerError::TemperatureOutOfRange`]: none is ever sent.
/// * a project whose fact sheet breaks a rule of [`crate::project::validate_fact_sheet`] is
///   [`RunnerError::InvalidFactSheet`]: a run never freezes an invalid `factSnapshot`.
/// * `aliasSnapshot` is `project.targets()` (brand first); `previousRunId` is
///   [`previous_run_id`] over `existing_runs`; `plannedProbeCount` = prompts × repeats.
pub fn start_run(
    project: &Project,
    prompts: &[Prompt],
    selected_prompt_ids: &[String],
    config: RunConfig,
    existing_runs: &[Run],
    run_id: String,
    created_at: String,
) -> Result<Run, RunnerError> {
    if selected_prompt_ids.is_empty() {
        return Err(RunnerError::NoPromptSelected);
    }
    let own: Vec<&Prompt> = prompts.iter().filter(|p| p.project_id == project.id).collect();
    if let Some(unknown) = selected_prompt_ids.iter().find(|id| !own.iter().any(|p| &p.id == *id)) {
        return Err(RunnerError::UnknownPrompt { prompt_id: unknown.clone() });
    }
    let mut prompt_snapshot: Vec<Prompt> = Vec::new();
    let selected: rustc_hash::FxHashSet<&str> = selected_prompt_ids.iter().map(String::as_str).collect();
    let mut frozen: rustc_hash::FxHashSet<&str> = rustc_hash::FxHashSet::default();
    for p in own {
        // A prompt id repeated in `prompts` is frozen once: probe ids must stay unique.
        if selected.contains(p.id.as_str()) && frozen.insert(p.id.as_str()) {
            prompt_snapshot.push(p.clone());
        }
    }
    if config.repeats == 0 {
        return Err(RunnerError::InvalidRepeats);
    }
    if config.max_searches == 0 {
        return Err(RunnerError::InvalidMaxSearches);
    }
    let planned_probe_count = check_probe_count(prompt_snapshot.len(), config.repeats)?;
    let targets = 1 + project.competitors.len();
    if targets > crate::limits::MAX_SNAPSHOT_TARGETS {
        return Err(RunnerError::TooManyTargets { targets });
    }
    check_temperature(config.engine, config.temperature)?;
    check_location(&config)?;
    let alias_snapshot = project.targets();
    crate::project::validate_fact_sheet(&project.facts, &project.watch_terms, &alias_snapshot)
        .map_err(|problem| RunnerError::InvalidFactSheet { problem })?;
    let model = crate::provider::model_or_default(config.engine, &config.model).to_string();
    let config = RunConfig { concurrency: clamp_concurrency(config.concurrency), model, ..config };
    Ok(Run {
        previous_run_id: previous_run_id(&project.id, config.engine, existing_runs),
        id: run_id,
        project_id: project.id.clone(),
        status: RunStatus::Running,
        created_at,
        finished_at: None,
        app_version: APP_VERSION.to_string(),
        schema_version: SCHEMA_VERSION,
        config,
        alias_snapshot,
        prompt_snapshot,
        planned_probe_count,
        group_id: None,
        fact_snapshot: project.fact_snapshot(),
        surface: Surface::Api,
    })
}
