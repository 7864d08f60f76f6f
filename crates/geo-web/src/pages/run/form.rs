//! The run page's form state and what it plans: the page's read ([`RunData`], with how each
//! engine can be reached), the fields as typed ([`RunForm`]), what they plan ([`Plan`]: the
//! prompts and engines chosen, the numbers read, each engine's estimate and budget, the
//! location, and why the run cannot start yet) and the submit handler that starts one run per
//! ticked engine and remembers its location for the project.

use super::location::{use_location_form, LocationForm, LocationIssue};
use crate::hooks::toast;
use crate::i18n::{t, tf};
use crate::prefs;
use crate::repo::idb::IdbRepo;
use crate::repo::{RepoError, Repository};
use crate::runner;
use crate::settings_store::{read_base_url, read_local_proxy};
use crate::state::{AppHandle, ToastKind};
use geo_core::metrics::cost::{estimate_engine_run, RunEstimate};
use geo_core::model::{EngineId, Lang, Location, Probe, ReasoningEffort, Run, RunConfig};
use geo_core::provider::budget::{self, Budget, BudgetError};
use geo_core::provider::{spec, BrowserAccess};
use geo_core::runner::{check_temperature, clamp_concurrency};
use std::collections::HashMap;
use yew::prelude::*;

/// A positive whole number typed in a field, or `None`.
pub fn parse_count(s: &str) -> Option<u32> {
    s.trim().parse::<u32>().ok().filter(|n| *n >= 1)
}

/// What the page reads: the project, its prompts and runs (newest first), per engine the
/// probes of its newest run (the estimate's history), and which engines the page can reach
/// and how (a key or a custom base URL, or the local proxy).
pub(super) type RunData = (
    geo_core::model::Project,
    Vec<geo_core::model::Prompt>,
    Vec<Run>,
    Vec<(EngineId, Vec<Probe>)>,
    Vec<(EngineId, Reach)>,
);

/// Reads what the run page shows for `project` ([`RunData`]); `None` without a project or
/// when it is gone.
pub(super) async fn read_run_data(repo: IdbRepo, project: Option<String>) -> Result<Option<RunData>, RepoError> {
    let Some(id) = project else { return Ok(None) };
    let project = repo.get_project(&id).await?;
    let prompts = repo.prompts_by_project(&id).await?;
    let runs = repo.runs_by_project(&id).await?;
    let mut last_probes = Vec::new();
    let mut ready = Vec::new();
    let proxy = read_local_proxy(&repo).await?;
    for engine in EngineId::ALL {
        if let Some(r) = runs.iter().find(|r| r.config.engine == engine) {
            last_probes.push((engine, repo.probes_by_run(&r.id).await?));
        }
        let has_base = read_base_url(&repo, engine).await?.is_some();
        if has_base || prefs::api_key_for(engine).is_some() {
            ready.push((engine, Reach::Own));
        } else if proxy.is_some() {
            ready.push((engine, Reach::LocalProxy));
        }
    }
    Ok(project.map(|p| (p, prompts, runs, last_probes, ready)))
}

/// The form's fields: the prompts chosen (`None`: all of the project's), the engines ticked
/// and each engine's model, and the numbers as typed.
#[derive(Clone)]
pub(super) struct RunForm {
    pub(super) selected: UseStateHandle<Option<Vec<String>>>,
    pub(super) engines: UseStateHandle<Vec<EngineId>>,
    pub(super) models: UseStateHandle<HashMap<EngineId, String>>,
    pub(super) repeats: UseStateHandle<String>,
    pub(super) concurrency: UseStateHandle<String>,
    pub(super) max_searches: UseStateHandle<String>,
    /// The output budget as typed; blank: each engine's and model's own (`provider::budget`).
    pub(super) max_tokens: UseStateHandle<String>,
    /// `low` | `medium` | `high`, or blank for each engine's and model's default.
    pub(super) effort: UseStateHandle<String>,
    /// The temperature as typed.
    pub(super) temperature: UseStateHandle<String>,
    /// The location fields and the project's recent locations.
    pub(super) location: LocationForm,
}

/// The form's state, with the defaults of [`RunConfig`]; a choice of prompts belongs to one
/// project, so another project starts with all of its own.
#[hook]
pub(super) fn use_run_form(project_id: Option<String>) -> RunForm {
    let selected = use_state(|| None::<Vec<String>>);
    let engines = use_state(|| vec![EngineId::Deepseek]);
    let models =
        use_state(|| EngineId::ALL.iter().map(|e| (*e, spec(*e).default_model.to_string())).collect::<HashMap<_, _>>());
    {
        let selected = selected.clone();
        use_effect_with(project_id.clone(), move |_| selected.set(None));
    }
    let repeats = use_state(|| RunConfig::default().repeats.to_string());
    let concurrency = use_state(|| RunConfig::default().concurrency.to_string());
    let max_searches = use_state(|| RunConfig::default().max_searches.to_string());
    let max_tokens = use_state(String::new);
    let effort = use_state(String::new);
    let temperature = use_state(|| RunConfig::default().temperature.to_string());
    let location = use_location_form(project_id);
    RunForm { selected, engines, models, repeats, concurrency, max_searches, max_tokens, effort, temperature, location }
}

/// What the form as filled in plans: the prompts chosen, the engines ticked (in engines.md
/// order), the numbers read (`None` when not a positive whole number) and each engine's
/// estimate.
pub(super) struct Plan {
    pub(super) chosen: Vec<String>,
    pub(super) ticked: Vec<EngineId>,
    pub(super) repeats: Option<u32>,
    pub(super) concurrency: Option<u32>,
    pub(super) searches: Option<u32>,
    pub(super) estimates: Vec<(EngineId, RunEstimate)>,
    /// Each ticked engine's budget for the typed output budget and effort.
    pub(super) budgets: Vec<(EngineId, Result<Budget, BudgetError>)>,
    /// The typed temperature, `None` when it is not a number.
    pub(super) temperature: Option<f64>,
    /// The location the fields say (none when they are blank), or what is wrong with them.
    pub(super) location: Result<Option<Location>, LocationIssue>,
    /// Whether engines without a location field get the system prompt's line.
    pub(super) location_prompt: bool,
}

impl Plan {
    pub(super) fn of(form: &RunForm, data: &RunData) -> Plan {
        let (_, prompts, runs, last_probes, _) = data;
        let chosen: Vec<String> = match &*form.selected {
            Some(list) => prompts.iter().filter(|p| list.contains(&p.id)).map(|p| p.id.clone()).collect(),
            None => prompts.iter().map(|p| p.id.clone()).collect(),
        };
        let ticked: Vec<EngineId> = EngineId::ALL.into_iter().filter(|e| form.engines.contains(e)).collect();
        let repeats = parse_count(&form.repeats);
        let concurrency = parse_count(&form.concurrency).map(clamp_concurrency);
        let searches = parse_count(&form.max_searches);
        let estimates = ticked
            .iter()
            .map(|engine| {
                let run = runs.iter().find(|r| r.config.engine == *engine);
                let probes = last_probes.iter().find(|(e, _)| e == engine).map(|(_, p)| &p[..]).unwrap_or(&[]);
                let history = run.map(|r| (r, probes));
                let model = form.models.get(engine).map(String::as_str).unwrap_or("");
                let e = estimate_engine_run(
                    *engine,
                    model,
                    chosen.len(),
                    repeats.unwrap_or(0),
                    concurrency.unwrap_or(1),
                    history,
                );
                (*engine, e)
            })
            .collect();
        let max_tokens = form.max_tokens.trim();
        let max_tokens = if max_tokens.is_empty() { Ok(None) } else { max_tokens.parse::<u32>().map(Some) };
        let effort = ReasoningEffort::parse(form.effort.trim());
        let mut budgets = Vec::with_capacity(ticked.len());
        for engine in &ticked {
            let model = form.models.get(engine).map(String::as_str).unwrap_or("");
            let budget = match max_tokens {
                Ok(max) => budget::resolve(*engine, model, max, effort),
                Err(_) => Err(BudgetError::MaxTokens { value: 0 }),
            };
            budgets.push((*engine, budget));
        }
        let temperature = form.temperature.trim().parse::<f64>().ok().filter(|t| t.is_finite());
        let (location, location_prompt) = (form.location.read(), *form.location.prompt);
        Plan {
            chosen,
            ticked,
            repeats,
            concurrency,
            searches,
            estimates,
            budgets,
            temperature,
            location,
            location_prompt,
        }
    }

    /// Why the temperature cannot be sent to one of the ticked engines (engines.md,
    /// "Fidelity": the run is refused as a whole before any request).
    pub(super) fn temperature_refusal(&self, lang: Lang) -> Option<String> {
        let Some(temp) = self.temperature else { return Some(t(lang, "run.reason_temperature").to_string()) };
        self.ticked.iter().find_map(|e| check_temperature(*e, temp).err()).map(|e| e.localized().get(lang).to_string())
    }

    /// Why the run cannot start yet, if it cannot: a session runs, no prompt or no engine is
    /// chosen, an engine has neither a key nor a base URL, a number is not a count, a budget
    /// or the temperature is refused, or the location is not one (nothing is sent then).
    pub(super) fn reason(&self, busy: bool, missing_transport: Option<EngineId>, lang: Lang) -> Option<String> {
        if busy {
            Some(t(lang, "run.reason_running").to_string())
        } else if self.chosen.is_empty() {
            Some(t(lang, "run.reason_no_prompt").to_string())
        } else if self.ticked.is_empty() {
            Some(t(lang, "run.reason_no_engine").to_string())
        } else if let Some(engine) = missing_transport {
            let key = if spec(engine).browser == BrowserAccess::Proxy {
                "run.need_proxy_engine"
            } else {
                "run.need_key_engine"
            };
            Some(tf(lang, key, &[("engine", spec(engine).name)]))
        } else if self.repeats.is_none() || self.concurrency.is_none() || self.searches.is_none() {
            Some(t(lang, "run.reason_numbers").to_string())
        } else if let Some(why) = self.budgets.iter().find_map(|(_, b)| b.as_ref().err()) {
            Some(why.localized().get(lang).to_string())
        } else if let Err(issue) = &self.location {
            Some(tf(lang, "run.location_reason", &[("why", &issue.message(lang))]))
        } else {
            self.temperature_refusal(lang)
        }
    }

    /// One configuration per ticked engine, with its budget, the temperature and the location.
    pub(super) fn configs(&self, models: &HashMap<EngineId, String>) -> Vec<RunConfig> {
        self.ticked
            .iter()
            .map(|engine| {
                let mut config = RunConfig {
                    engine: *engine,
                    model: models.get(engine).cloned().unwrap_or_default(),
                    repeats: self.repeats.unwrap_or(0),
                    concurrency: self.concurrency.unwrap_or(1),
                    max_searches: self.searches.unwrap_or(0),
                    temperature: self.temperature.unwrap_or(RunConfig::default().temperature),
                    location: self.location.clone().ok().flatten(),
                    location_prompt: self.location_prompt,
                    ..RunConfig::default()
                };
                if let Some((_, Ok(b))) = self.budgets.iter().find(|(e, _)| e == engine) {
                    b.apply(&mut config);
                }
                config
            })
            .collect()
    }
}

/// The submit handler: starts one run per configuration through [`runner::start_fresh`],
/// says how many started, selects the first and remembers the location among the project's
/// `recent` ones.
pub(super) fn start_handler(
    app: &AppHandle,
    data: &RunData,
    chosen: Vec<String>,
    configs: Vec<RunConfig>,
    starting: &UseStateHandle<bool>,
    recent: &UseStateHandle<Vec<Location>>,
) -> Callback<SubmitEvent> {
    let (app, recent) = (app.clone(), recent.clone());
    let (project, prompts, runs, ..) = data;
    let (project, prompts, runs) = (project.clone(), prompts.clone(), runs.clone());
    let starting = starting.clone();
    Callback::from(move |e: SubmitEvent| {
        e.prevent_default();
        let Some(repo) = app.repo().cloned() else { return };
        let (app, starting, recent) = (app.clone(), starting.clone(), recent.clone());
        let (project, prompts, chosen, configs, runs) =
            (project.clone(), prompts.clone(), chosen.clone(), configs.clone(), runs.clone());
        let (project_id, location) = (project.id.clone(), configs.first().and_then(|c| c.location.clone()));
        starting.set(true);
        wasm_bindgen_futures::spawn_local(async move {
            let result = runner::start_fresh(repo, project, prompts, chosen, configs, runs, app.lang).await;
            starting.set(false);
            match result {
                Ok(ids) => {
                    if let Some(location) = &location {
                        recent.set(prefs::remember_location(&project_id, location));
                    }
                    let text = if ids.len() > 1 {
                        tf(app.lang, "run.started_many", &[("n", &ids.len().to_string())])
                    } else {
                        t(app.lang, "run.started").to_string()
                    };
                    toast(&app, ToastKind::Ok, text);
                    app.dispatch(crate::state::Action::SelectRun(ids.into_iter().next()));
                }
                Err(msg) => toast(&app, ToastKind::Error, msg),
            }
        });
    })
}

/// How the page can reach an engine it may start: with what Settings holds for the engine
/// itself (its key or its base URL), or through `geo-probe proxy`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Reach {
    Own,
    LocalProxy,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts() {
        assert_eq!(parse_count(" 3 "), Some(3));
        assert_eq!(parse_count("0"), None);
        assert_eq!(parse_count("x"), None);
        assert_eq!(parse_count("-1"), None);
    }
}
