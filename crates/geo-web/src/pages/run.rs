//! Run page: choose prompts, engines and settings, see the estimate, start one run per engine
//! of the selected project (sharing a `groupId` when there are several), follow their
//! progress and cancel them. The runs themselves are driven by [`crate::runner`]; they go on
//! when the user leaves this page (but not the tab).

use crate::app::Route;
use crate::components::progress::RunProgress;
use crate::components::{EmptyState, EngineLabel, NavLink};
use crate::draft::tag_label;
use crate::hooks::{toast, use_app, use_query, Fetch};
use crate::i18n::{t, tf};
use crate::prefs;
use crate::repo::idb::IdbRepo;
use crate::repo::{RepoError, Repository};
use crate::runner::{self, use_live_run};
use crate::settings_store::{read_base_url, read_local_proxy};
use crate::state::{AppHandle, ToastKind};
use geo_core::compare;
use geo_core::metrics::cost::{estimate_engine_run, EstimateBasis, RunEstimate};
use geo_core::model::{EngineId, Lang, Probe, Prompt, ReasoningEffort, Run, RunConfig};
use geo_core::provider::budget::{self, Budget, BudgetError};
use geo_core::provider::{spec, BrowserAccess};
use geo_core::runner::{check_temperature, clamp_concurrency};
use std::collections::HashMap;
use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

/// A positive whole number typed in a field, or `None`.
pub fn parse_count(s: &str) -> Option<u32> {
    s.trim().parse::<u32>().ok().filter(|n| *n >= 1)
}

/// The estimate of a batch of runs (one per engine), which run side by side: the cost is the
/// sum (unknown when one engine's model has no price), the duration the longest run's.
pub fn batch_estimate(estimates: &[(EngineId, RunEstimate)]) -> (Option<f64>, u64, u64) {
    let cost = estimates.iter().try_fold(0.0, |sum, (_, e)| Some(sum + e.cost_usd?));
    let seconds = estimates.iter().map(|(_, e)| e.seconds).max().unwrap_or(0);
    let probes = estimates.iter().map(|(_, e)| e.probes).sum();
    (cost, seconds, probes)
}

/// What the page reads: the project, its prompts and runs (newest first), per engine the
/// probes of its newest run (the estimate's history), and which engines the page can reach
/// and how (a key or a custom base URL, or the local proxy).
type RunData = (
    geo_core::model::Project,
    Vec<geo_core::model::Prompt>,
    Vec<Run>,
    Vec<(EngineId, Vec<Probe>)>,
    Vec<(EngineId, Reach)>,
);

/// How precise the planned run will be (`run-precision`): the 95 % half-width at p = 0.5 for
/// `prompts × repeats` probes, and the repeats that would bring it to ±10 points.
fn precision(prompts: u32, repeats: u32, lang: geo_core::model::Lang) -> Html {
    let planned = prompts.saturating_mul(repeats);
    let half = compare::half_width_at_half(planned);
    let raw = crate::components::metric_card::raw_f64(half);
    let Some(h) = half else {
        return html! { <p class="muted" data-testid="run-precision" data-half-width={raw}>{ t(lang, "run.precision_none") }</p> };
    };
    let points = format!("{:.1}", h * 100.0);
    let needed = compare::repeats_for_half_width(prompts, 0.10, 10_000);
    let advice = match needed {
        Some(r) if r <= repeats => t(lang, "run.precision_enough").to_string(),
        Some(r) => tf(lang, "run.precision_needs", &[("r", &r.to_string())]),
        None => String::new(),
    };
    html! {
        <p class="precision" data-testid="run-precision" data-half-width={raw}
            data-repeats-for-ten={needed.map(|r| r.to_string()).unwrap_or_default()}>
            { tf(lang, "run.precision", &[("n", &planned.to_string()), ("hw", &points)]) }
            { " " }{ advice }
        </p>
    }
}

/// `data-basis` of the estimate: `last_run` or `defaults`.
fn basis_value(basis: EstimateBasis) -> &'static str {
    match basis {
        EstimateBasis::LastRun => "last_run",
        EstimateBasis::Defaults => "defaults",
    }
}

/// `3 min 24 s` / `3 分 24 秒`; seconds alone under a minute, hours above 59 minutes.
pub fn duration_text(seconds: u64, lang: Lang) -> String {
    let (h, m, s) = (seconds / 3600, seconds / 60 % 60, seconds % 60);
    let (hu, mu, su) = if lang == Lang::Zh { (" 小时", " 分", " 秒") } else { (" h", " min", " s") };
    let mut parts = Vec::new();
    if h > 0 {
        parts.push(format!("{h}{hu}"));
    }
    if m > 0 {
        parts.push(format!("{m}{mu}"));
    }
    if s > 0 || parts.is_empty() {
        parts.push(format!("{s}{su}"));
    }
    parts.join(" ")
}

/// A mean with at most one decimal (`3`, `2.5`).
fn one_decimal(v: f64) -> String {
    let text = format!("{v:.1}");
    text.strip_suffix(".0").map(str::to_string).unwrap_or(text)
}

/// What the estimate rests on: the last run's successful probes or the defaults, the
/// per-probe latency and searches, and how many run at once.
fn basis_text(e: &RunEstimate, lang: Lang) -> String {
    let latency = duration_text((e.profile.latency_ms / 1000.0).round() as u64, lang);
    let args = [
        ("n", e.history_probes.to_string()),
        ("latency", latency),
        ("searches", one_decimal(e.profile.web_search_requests)),
        ("workers", e.workers.to_string()),
        ("waves", e.waves.to_string()),
    ];
    let args: Vec<(&str, &str)> = args.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let key = match e.basis {
        EstimateBasis::LastRun => "run.estimate_history",
        EstimateBasis::Defaults => "run.estimate_defaults",
    };
    tf(lang, key, &args)
}

/// The estimate that decides the batch's duration (runs go side by side: the longest one),
/// whose basis the page explains.
fn governing(estimates: &[(EngineId, RunEstimate)]) -> Option<&RunEstimate> {
    estimates.iter().map(|(_, e)| e).max_by_key(|e| e.seconds)
}

/// The estimate box: the batch's probes, cost (or that a model has no price) and time, one
/// line per engine when several are ticked, and what the figures rest on.
fn estimate_view(estimates: &[(EngineId, RunEstimate)], lang: Lang) -> Html {
    let (total_cost, total_seconds, total_probes) = batch_estimate(estimates);
    let basis = governing(estimates);
    let time = duration_text(total_seconds, lang);
    let headline = match total_cost {
        Some(cost) => tf(
            lang,
            "run.estimate",
            &[("probes", &total_probes.to_string()), ("cost", &format!("{cost:.4}")), ("time", &time)],
        ),
        None => tf(lang, "run.estimate_no_price", &[("probes", &total_probes.to_string()), ("time", &time)]),
    };
    html! {
        <div class="estimate" data-testid="run-estimate" data-cost-usd={total_cost.map(|c| c.to_string()).unwrap_or_default()}
            data-seconds={total_seconds.to_string()} data-engines={estimates.len().to_string()}
            data-basis={basis.map(|e| basis_value(e.basis)).unwrap_or_default()}
            data-latency-ms={basis.map(|e| e.profile.latency_ms.round().to_string()).unwrap_or_default()}
            data-history-probes={basis.map(|e| e.history_probes.to_string()).unwrap_or_default()} aria-live="polite">
            <p>{ headline }</p>
            if estimates.len() > 1 {
                <ul class="plain estimate-engines">
                    { for estimates.iter().map(|(engine, e)| html! {
                        <li key={engine.as_str()} data-testid="run-estimate-engine" data-engine={engine.as_str()}
                            data-cost-usd={e.cost_usd.map(|c| c.to_string()).unwrap_or_default()} data-seconds={e.seconds.to_string()}>
                            <EngineLabel engine={*engine} />{ " " }
                            { match e.cost_usd { Some(c) => format!("~${c:.4}"), None => t(lang, "run.no_price").to_string() } }
                            { " · " }{ tf(lang, "run.duration", &[("time", &duration_text(e.seconds, lang))]) }
                            if let Some(p) = e.price { <span class="muted">{ " · " }{ tf(lang, "run.price_as_of", &[("d", p.as_of)]) }</span> }
                        </li>
                    }) }
                </ul>
            }
            if let Some(e) = basis {
                <p class="muted small" data-testid="run-estimate-basis">{ basis_text(e, lang) }</p>
            }
        </div>
    }
}

/// Reads what the run page shows for `project` ([`RunData`]); `None` without a project or
/// when it is gone.
async fn read_run_data(repo: IdbRepo, project: Option<String>) -> Result<Option<RunData>, RepoError> {
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

/// What the page shows instead of the form: a loading line, the read's error, or what to do
/// first when there is no project or the project has no prompt.
fn placeholder(data: &Fetch<Option<RunData>>, lang: Lang) -> Option<Html> {
    let body = match data {
        Fetch::Failed(e) => html! { <p class="error-box" role="alert">{ e.message(lang) }</p> },
        Fetch::Ready(ready) => match ready.as_ref() {
            None => html! {
                <EmptyState text={t(lang, "run.no_project").to_string()}>
                    <NavLink to={Route::Projects} class="button">{ t(lang, "projects.new") }</NavLink>
                </EmptyState>
            },
            Some((_, prompts, ..)) if prompts.is_empty() => html! {
                <EmptyState text={t(lang, "run.no_prompts").to_string()}>
                    <NavLink to={Route::Projects} class="button">{ t(lang, "nav.projects") }</NavLink>
                </EmptyState>
            },
            Some(_) => return None,
        },
        _ => html! { <p class="muted">{ t(lang, "common.loading") }</p> },
    };
    Some(html! { <section><h1>{ t(lang, "run.title") }</h1>{ body }</section> })
}

/// The form's fields: the prompts chosen (`None`: all of the project's), the engines ticked
/// and each engine's model, and the numbers as typed.
#[derive(Clone)]
struct RunForm {
    selected: UseStateHandle<Option<Vec<String>>>,
    engines: UseStateHandle<Vec<EngineId>>,
    models: UseStateHandle<HashMap<EngineId, String>>,
    repeats: UseStateHandle<String>,
    concurrency: UseStateHandle<String>,
    max_searches: UseStateHandle<String>,
    /// The output budget as typed; blank: each engine's and model's own (`provider::budget`).
    max_tokens: UseStateHandle<String>,
    /// `low` | `medium` | `high`, or blank for each engine's and model's default.
    effort: UseStateHandle<String>,
    /// The temperature as typed.
    temperature: UseStateHandle<String>,
}

/// The form's state, with the defaults of [`RunConfig`]; a choice of prompts belongs to one
/// project, so another project starts with all of its own.
#[hook]
fn use_run_form(project_id: Option<String>) -> RunForm {
    let selected = use_state(|| None::<Vec<String>>);
    let engines = use_state(|| vec![EngineId::Deepseek]);
    let models =
        use_state(|| EngineId::ALL.iter().map(|e| (*e, spec(*e).default_model.to_string())).collect::<HashMap<_, _>>());
    {
        let selected = selected.clone();
        use_effect_with(project_id, move |_| selected.set(None));
    }
    let repeats = use_state(|| RunConfig::default().repeats.to_string());
    let concurrency = use_state(|| RunConfig::default().concurrency.to_string());
    let max_searches = use_state(|| RunConfig::default().max_searches.to_string());
    let max_tokens = use_state(String::new);
    let effort = use_state(String::new);
    let temperature = use_state(|| RunConfig::default().temperature.to_string());
    RunForm { selected, engines, models, repeats, concurrency, max_searches, max_tokens, effort, temperature }
}

/// What the form as filled in plans: the prompts chosen, the engines ticked (in engines.md
/// order), the numbers read (`None` when not a positive whole number) and each engine's
/// estimate.
struct Plan {
    chosen: Vec<String>,
    ticked: Vec<EngineId>,
    repeats: Option<u32>,
    concurrency: Option<u32>,
    searches: Option<u32>,
    estimates: Vec<(EngineId, RunEstimate)>,
    /// Each ticked engine's budget for the typed output budget and effort.
    budgets: Vec<(EngineId, Result<Budget, BudgetError>)>,
    /// The typed temperature, `None` when it is not a number.
    temperature: Option<f64>,
}

impl Plan {
    fn of(form: &RunForm, data: &RunData) -> Plan {
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
        Plan { chosen, ticked, repeats, concurrency, searches, estimates, budgets, temperature }
    }

    /// Why the temperature cannot be sent to one of the ticked engines (engines.md,
    /// "Fidelity": the run is refused as a whole before any request).
    fn temperature_refusal(&self, lang: Lang) -> Option<String> {
        let Some(temp) = self.temperature else { return Some(t(lang, "run.reason_temperature").to_string()) };
        self.ticked.iter().find_map(|e| check_temperature(*e, temp).err()).map(|e| e.localized().get(lang).to_string())
    }

    /// Why the run cannot start yet, if it cannot: a session runs, no prompt or no engine is
    /// chosen, an engine has neither a key nor a base URL, or a number is not a count.
    fn reason(&self, busy: bool, missing_transport: Option<EngineId>, lang: Lang) -> Option<String> {
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
        } else {
            self.temperature_refusal(lang)
        }
    }

    /// One configuration per ticked engine, with its budget and the temperature.
    fn configs(&self, models: &HashMap<EngineId, String>) -> Vec<RunConfig> {
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
/// says how many started and selects the first.
fn start_handler(
    app: &AppHandle,
    data: &RunData,
    chosen: Vec<String>,
    configs: Vec<RunConfig>,
    starting: &UseStateHandle<bool>,
) -> Callback<SubmitEvent> {
    let app = app.clone();
    let (project, prompts, runs, ..) = data;
    let (project, prompts, runs) = (project.clone(), prompts.clone(), runs.clone());
    let starting = starting.clone();
    Callback::from(move |e: SubmitEvent| {
        e.prevent_default();
        let Some(repo) = app.repo().cloned() else { return };
        let (app, starting) = (app.clone(), starting.clone());
        let (project, prompts, chosen, configs, runs) =
            (project.clone(), prompts.clone(), chosen.clone(), configs.clone(), runs.clone());
        starting.set(true);
        wasm_bindgen_futures::spawn_local(async move {
            let result = runner::start_fresh(repo, project, prompts, chosen, configs, runs, app.lang).await;
            starting.set(false);
            match result {
                Ok(ids) => {
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

/// The prompt checkboxes (`run-prompt-toggle`) with a select-all / select-none link.
fn prompt_choices(
    prompts: &[Prompt],
    chosen: &[String],
    selected: &UseStateHandle<Option<Vec<String>>>,
    lang: Lang,
) -> Html {
    let toggle = {
        let (selected, chosen) = (selected.clone(), chosen.to_vec());
        Callback::from(move |id: String| {
            let mut list = chosen.clone();
            if let Some(i) = list.iter().position(|x| *x == id) {
                list.remove(i);
            } else {
                list.push(id);
            }
            selected.set(Some(list));
        })
    };
    let everything = chosen.len() == prompts.len();
    let select_all = {
        let (selected, all) = (selected.clone(), prompts.iter().map(|p| p.id.clone()).collect::<Vec<_>>());
        Callback::from(move |_: MouseEvent| selected.set(Some(if everything { Vec::new() } else { all.clone() })))
    };
    html! {
        <fieldset>
            <legend>{ tf(lang, "run.prompts", &[("n", &prompts.len().to_string())]) }</legend>
            <button type="button" class="link" onclick={select_all}>
                { t(lang, if everything { "run.select_none" } else { "run.select_all" }) }
            </button>
            <ul class="plain prompt-choices">
                { for prompts.iter().map(|p| {
                    let id = p.id.clone();
                    let toggle = toggle.clone();
                    html! {
                        <li key={p.id.clone()}>
                            <label class="check">
                                <input type="checkbox" data-testid="run-prompt-toggle" data-id={p.id.clone()}
                                    checked={chosen.contains(&p.id)} onchange={Callback::from(move |_: Event| toggle.emit(id.clone()))} />
                                <span>{ p.text.clone() }
                                    { for p.tags.iter().map(|tag| html! { <>{ " " }<span class="chip">{ tag_label(tag, lang) }</span></> }) }</span>
                            </label>
                        </li>
                    }
                }) }
            </ul>
        </fieldset>
    }
}

/// The engine checkboxes (`run-engine`), each with its model select (`run-model` for
/// DeepSeek, `run-model-ENGINE` for the others) and whether it lacks a key or may be
/// blocked by the browser.
fn engine_choices(form: &RunForm, plan: &Plan, with_transport: &[(EngineId, Reach)], lang: Lang) -> Html {
    let ticked = &plan.ticked[..];
    let toggle_engine = {
        let engines = form.engines.clone();
        Callback::from(move |engine: EngineId| {
            let mut list = (*engines).clone();
            match list.iter().position(|e| *e == engine) {
                Some(i) => {
                    list.remove(i);
                }
                None => list.push(engine),
            }
            engines.set(list);
        })
    };
    html! {
        <fieldset class="engine-choices">
            <legend>{ t(lang, "run.engines") }</legend>
            <p class="muted">{ t(lang, "run.engines_help") }</p>
            <ul class="plain">
                { for EngineId::ALL.iter().map(|engine| {
                    let engine = *engine;
                    let id = engine.as_str();
                    let on = ticked.contains(&engine);
                    let reach = with_transport.iter().find(|(e, _)| *e == engine).map(|(_, r)| *r);
                    let toggle = toggle_engine.clone();
                    let on_model = {
                        let models = form.models.clone();
                        Callback::from(move |e: Event| {
                            let mut all = (*models).clone();
                            all.insert(engine, e.target_unchecked_into::<HtmlSelectElement>().value());
                            models.set(all);
                        })
                    };
                    let current = form.models.get(&engine).cloned().unwrap_or_default();
                    // DeepSeek's select keeps the contract's `run-model`.
                    let model_testid = if engine == EngineId::Deepseek { "run-model".to_string() } else { format!("run-model-{id}") };
                    html! {
                        <li key={id} class="engine-choice" data-engine={id}>
                            <label class="check">
                                <input type="checkbox" data-testid="run-engine" data-engine={id} checked={on}
                                    onchange={Callback::from(move |_: Event| toggle.emit(engine))} />
                                <EngineLabel {engine} />
                            </label>
                            <label class="field inline"><span class="sr-only">{ tf(lang, "run.model_of", &[("engine", spec(engine).name)]) }</span>
                                <select data-testid={model_testid} onchange={on_model} disabled={!on}>
                                    { for spec(engine).models.iter().map(|m| html! { <option value={*m} selected={current == *m}>{ *m }</option> }) }
                                </select></label>
                            if reach.is_none() && spec(engine).browser == BrowserAccess::Proxy {
                                <span class="muted" data-testid="run-engine-missing" data-engine={id}>{ t(lang, "run.engine_needs_proxy") }</span>
                            } else if reach.is_none() {
                                <span class="muted" data-testid="run-engine-missing" data-engine={id}>{ t(lang, "run.engine_no_key") }</span>
                            } else if reach == Some(Reach::LocalProxy) {
                                <span class="muted" data-testid="run-engine-proxy" data-engine={id}>{ t(lang, "run.engine_via_proxy") }</span>
                            } else if spec(engine).browser == BrowserAccess::IfCorsAllows {
                                <span class="muted">{ t(lang, "run.engine_cors") }</span>
                            }
                            // What a ticked engine will be asked (provider::budget).
                            if let Some((_, Ok(b))) = plan.budgets.iter().find(|(e, _)| *e == engine) {
                                <span class="muted small" data-testid="run-budget" data-engine={id}
                                    data-max-tokens={b.max_tokens.to_string()}
                                    data-effort={b.reasoning_effort.map(|e| e.as_str()).unwrap_or_default()}
                                    data-thinking-budget={b.thinking_budget.map(|t| t.to_string()).unwrap_or_default()}>
                                    { budget_text(b, lang) }</span>
                            }
                        </li>
                    }
                }) }
            </ul>
        </fieldset>
    }
}

/// The three numbers: repeats, concurrency and searches per probe.
fn number_fields(form: &RunForm, lang: Lang) -> Html {
    let text_input = |state: &UseStateHandle<String>| {
        let state = state.clone();
        Callback::from(move |e: InputEvent| state.set(e.target_unchecked_into::<HtmlInputElement>().value()))
    };
    let (repeats, concurrency, max_searches) = (&form.repeats, &form.concurrency, &form.max_searches);
    html! {
        <div class="grid-fields">
            <label class="field"><span class="label-text">{ t(lang, "detail.repeats") }</span>
                <input type="number" min="1" max="20" data-testid="run-repeats" value={(**repeats).clone()} oninput={text_input(repeats)} /></label>
            <label class="field"><span class="label-text">{ t(lang, "run.concurrency") }</span>
                <input type="number" min="1" max="3" data-testid="run-concurrency" value={(**concurrency).clone()} oninput={text_input(concurrency)} /></label>
            <label class="field"><span class="label-text">{ t(lang, "run.max_searches") }</span>
                <input type="number" min="1" max="20" data-testid="run-max-searches" value={(**max_searches).clone()} oninput={text_input(max_searches)} /></label>
        </div>
    }
}

/// The output budget, the reasoning effort and the temperature, with what each ticked engine
/// is asked (`run-budget`), the notes of the budget rules and the engines that ignore or
/// refuse the temperature (`run-temperature-note`).
fn budget_fields(form: &RunForm, plan: &Plan, lang: Lang) -> Html {
    let text_input = |state: &UseStateHandle<String>| {
        let state = state.clone();
        Callback::from(move |e: InputEvent| state.set(e.target_unchecked_into::<HtmlInputElement>().value()))
    };
    let on_effort = {
        let effort = form.effort.clone();
        Callback::from(move |e: Event| effort.set(e.target_unchecked_into::<HtmlSelectElement>().value()))
    };
    let effort = (*form.effort).clone();
    // Plain loops: every iterator chain is code of its own in the wasm module (ADR 0014).
    let mut notes = String::new();
    for b in plan.budgets.iter().filter_map(|(_, b)| b.as_ref().ok()) {
        for n in &b.notes {
            notes.push_str(if notes.is_empty() { "" } else { " " });
            notes.push_str(n.localized().get(lang));
        }
    }
    let (mut ignoring, mut refusing, mut noted) = (String::new(), String::new(), String::new());
    for e in &plan.ticked {
        let refused = plan.temperature.is_some_and(|t| check_temperature(*e, t).is_err());
        let list = match (spec(*e).temperature, refused) {
            (None, _) => &mut ignoring,
            (_, true) => &mut refusing,
            _ => continue,
        };
        if !list.is_empty() {
            list.push_str(", ");
        }
        list.push_str(spec(*e).name);
    }
    for e in plan.ticked.iter().filter(|e| spec(**e).temperature.is_none()) {
        noted.push_str(if noted.is_empty() { "" } else { "," });
        noted.push_str(e.as_str());
    }
    for e in plan.ticked.iter().filter(|e| plan.temperature.is_some_and(|t| check_temperature(**e, t).is_err())) {
        noted.push_str(if noted.is_empty() { "" } else { "," });
        noted.push_str(e.as_str());
    }
    html! {
        <fieldset class="budget">
            <legend>{ t(lang, "run.budget") }</legend>
            <div class="grid-fields">
                <label class="field"><span class="label-text">{ t(lang, "run.max_tokens") }</span>
                    <input type="number" min="1" max={budget::MAX_OUTPUT_TOKENS.to_string()} data-testid="run-max-tokens"
                        data-value={(*form.max_tokens).clone()} placeholder={t(lang, "run.engine_default").to_string()}
                        value={(*form.max_tokens).clone()} oninput={text_input(&form.max_tokens)} /></label>
                <label class="field"><span class="label-text">{ t(lang, "run.reasoning_effort") }</span>
                    <select data-testid="run-reasoning-effort" data-value={effort.clone()} onchange={on_effort}>
                        <option value="" selected={effort.is_empty()}>{ t(lang, "run.engine_default") }</option>
                        <option value="low" selected={effort == "low"}>{ t(lang, "run.effort_low") }</option>
                        <option value="medium" selected={effort == "medium"}>{ t(lang, "run.effort_medium") }</option>
                        <option value="high" selected={effort == "high"}>{ t(lang, "run.effort_high") }</option>
                    </select></label>
                <label class="field"><span class="label-text">{ t(lang, "run.temperature") }</span>
                    <input type="number" min="0" max="2" step="0.1" data-testid="run-temperature"
                        value={(*form.temperature).clone()} oninput={text_input(&form.temperature)} /></label>
            </div>
            if !notes.is_empty() { <p class="muted small" data-testid="run-budget-note">{ notes }</p> }
            if !noted.is_empty() {
                <p class={classes!("small", if refusing.is_empty() { "muted" } else { "error-text" })} data-testid="run-temperature-note" data-engines={noted}>
                    if !ignoring.is_empty() { { tf(lang, "run.temperature_ignored", &[("engines", &ignoring)]) } }
                    if !refusing.is_empty() {
                        { " " }{ plan.temperature_refusal(lang).unwrap_or_default() }
                    }
                </p>
            }
        </fieldset>
    }
}

/// The i18n key of an effort's name.
fn effort_key(e: ReasoningEffort) -> &'static str {
    match e {
        ReasoningEffort::Low => "run.effort_low",
        ReasoningEffort::Medium => "run.effort_medium",
        ReasoningEffort::High => "run.effort_high",
    }
}

/// `16384 tokens · effort medium · thinking 8192` in the interface language.
fn budget_text(b: &Budget, lang: Lang) -> String {
    let mut text = tf(lang, "run.budget_tokens", &[("n", &b.max_tokens.to_string())]);
    if let Some(e) = b.reasoning_effort {
        text.push_str(" · ");
        text.push_str(&tf(lang, "run.budget_effort", &[("e", t(lang, effort_key(e)))]));
    }
    if let Some(thinking) = b.thinking_budget {
        text.push_str(" · ");
        text.push_str(&tf(lang, "run.budget_thinking", &[("n", &thinking.to_string())]));
    }
    text
}

/// One card per run of this project being driven in this tab (`run-live`): its engine,
/// progress, error and a link to its detail page.
fn live_cards(live_here: &[&runner::LiveRun], lang: Lang) -> Html {
    html! {
        { for live_here.iter().map(|l| html! {
            <div class="card" key={l.run_id.clone()} data-testid="run-live" data-engine={l.engine.as_str()} data-run={l.run_id.clone()}>
                <p><EngineLabel engine={l.engine} /></p>
                <RunProgress progress={l.progress} lang={lang} running={l.running} />
                if let Some(e) = &l.error { <p class="error-box" role="alert">{ e.clone() }</p> }
                <p><NavLink to={Route::RunDetail { id: l.run_id.clone() }}>{ t(lang, "run.open_detail") }</NavLink></p>
            </div>
        }) }
    }
}

/// The run page.
#[function_component]
pub fn RunPage() -> Html {
    let app = use_app();
    let lang = app.lang;
    let live = use_live_run();
    let data = use_query(app.project_id.clone(), read_run_data);
    let form = use_run_form(app.project_id.clone());
    let starting = use_state(|| false);

    if let Some(shown) = placeholder(&data, lang) {
        return shown;
    }
    let Some(Some(run_data)) = data.ready() else { return html! {} };
    let (project, prompts, _, _, with_transport) = run_data;
    let plan = Plan::of(&form, run_data);
    let missing_transport = plan.ticked.iter().find(|e| !with_transport.iter().any(|(w, _)| w == *e)).copied();
    let busy = live.iter().any(|l| l.running) || runner::is_busy() || *starting;
    let reason = plan.reason(busy, missing_transport, lang);
    let on_start = start_handler(&app, run_data, plan.chosen.clone(), plan.configs(&form.models), &starting);
    let on_cancel = Callback::from(|_: MouseEvent| runner::cancel());
    let live_here: Vec<&runner::LiveRun> = live.iter().filter(|l| l.project_id == project.id).collect();
    let ticked = plan.ticked.len();

    html! {
        <section>
            <h1>{ t(lang, "run.title") }</h1>
            <form class="card run-form" onsubmit={on_start}>
                { prompt_choices(prompts, &plan.chosen, &form.selected, lang) }
                { engine_choices(&form, &plan, with_transport, lang) }
                { number_fields(&form, lang) }
                { budget_fields(&form, &plan, lang) }
                { estimate_view(&plan.estimates, lang) }
                { precision(plan.chosen.len() as u32, plan.repeats.unwrap_or(0), lang) }
                <div class="actions">
                    <button type="submit" data-testid="run-start" disabled={reason.is_some()}
                        aria-describedby="run-start-reason">{ if ticked > 1 { tf(lang, "run.start_many", &[("n", &ticked.to_string())]) } else { t(lang, "run.start").to_string() } }</button>
                    if live_here.iter().any(|l| l.running) {
                        <button type="button" class="danger" data-testid="run-cancel" onclick={on_cancel}>{ t(lang, "run.cancel") }</button>
                    }
                </div>
                if let Some(text) = reason.clone() {
                    <p id="run-start-reason" class="muted" data-testid="run-start-reason">{ text }
                        if missing_transport.is_some() && !busy { { " " }<NavLink to={Route::Settings}>{ t(lang, "nav.settings") }</NavLink> }</p>
                }
            </form>
            { live_cards(&live_here, lang) }
        </section>
    }
}

/// How the page can reach an engine it may start: with what Settings holds for the engine
/// itself (its key or its base URL), or through `geo-probe proxy`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reach {
    Own,
    LocalProxy,
}

#[cfg(test)]
mod tests {
    use super::*;
    use geo_core::metrics::cost::estimate_engine_run;

    #[test]
    fn durations_read_as_minutes_and_seconds() {
        assert_eq!(duration_text(0, Lang::En), "0 s");
        assert_eq!(duration_text(45, Lang::En), "45 s");
        assert_eq!(duration_text(204, Lang::En), "3 min 24 s");
        assert_eq!(duration_text(180, Lang::Zh), "3 分");
        assert_eq!(duration_text(3725, Lang::Zh), "1 小时 2 分 5 秒");
        assert_eq!(one_decimal(3.0), "3");
        assert_eq!(one_decimal(2.46), "2.5");
    }

    #[test]
    fn counts() {
        assert_eq!(parse_count(" 3 "), Some(3));
        assert_eq!(parse_count("0"), None);
        assert_eq!(parse_count("x"), None);
        assert_eq!(parse_count("-1"), None);
    }

    #[test]
    fn a_batch_costs_the_sum_and_takes_the_longest() {
        let a = estimate_engine_run(EngineId::Deepseek, "", 2, 3, 3, None);
        let b = estimate_engine_run(EngineId::Openai, "", 4, 3, 1, None);
        let (cost, seconds, probes) = batch_estimate(&[(EngineId::Deepseek, a), (EngineId::Openai, b)]);
        assert!((cost.unwrap() - (a.cost_usd.unwrap() + b.cost_usd.unwrap())).abs() < 1e-12);
        assert_eq!((seconds, probes), (a.seconds.max(b.seconds), 18));
        let unknown = estimate_engine_run(EngineId::Gemini, "gemini-9", 1, 1, 1, None);
        assert_eq!(batch_estimate(&[(EngineId::Deepseek, a), (EngineId::Gemini, unknown)]).0, None);
        assert_eq!(batch_estimate(&[]), (Some(0.0), 0, 0));
    }
}
