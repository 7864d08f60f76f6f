//! The run form's fields: the prompts chosen, the engines ticked with each one's model and
//! reach, the three counts, and the output budget, reasoning effort and temperature with
//! what each ticked engine is asked.

use super::form::{Plan, Reach, RunForm};
use crate::components::EngineLabel;
use crate::draft::tag_label;
use crate::hooks::{set_on_change, set_on_input};
use crate::i18n::{t, tf};
use geo_core::model::{EngineId, Lang, Prompt, ReasoningEffort};
use geo_core::provider::budget::{self, Budget};
use geo_core::provider::{spec, BrowserAccess};
use geo_core::runner::check_temperature;
use web_sys::HtmlSelectElement;
use yew::prelude::*;

/// The prompt checkboxes (`run-prompt-toggle`) with a select-all / select-none link.
pub(super) fn prompt_choices(
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
pub(super) fn engine_choices(form: &RunForm, plan: &Plan, with_transport: &[(EngineId, Reach)], lang: Lang) -> Html {
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
pub(super) fn number_fields(form: &RunForm, lang: Lang) -> Html {
    let (repeats, concurrency, max_searches) = (&form.repeats, &form.concurrency, &form.max_searches);
    html! {
        <div class="grid-fields">
            <label class="field"><span class="label-text">{ t(lang, "detail.repeats") }</span>
                <input type="number" min="1" max="20" data-testid="run-repeats" value={(**repeats).clone()} oninput={set_on_input(repeats)} /></label>
            <label class="field"><span class="label-text">{ t(lang, "run.concurrency") }</span>
                <input type="number" min="1" max="3" data-testid="run-concurrency" value={(**concurrency).clone()} oninput={set_on_input(concurrency)} /></label>
            <label class="field"><span class="label-text">{ t(lang, "run.max_searches") }</span>
                <input type="number" min="1" max="20" data-testid="run-max-searches" value={(**max_searches).clone()} oninput={set_on_input(max_searches)} /></label>
        </div>
    }
}

/// The output budget, the reasoning effort and the temperature, with what each ticked engine
/// is asked (`run-budget`), the notes of the budget rules and the engines that ignore or
/// refuse the temperature (`run-temperature-note`).
pub(super) fn budget_fields(form: &RunForm, plan: &Plan, lang: Lang) -> Html {
    let on_effort = set_on_change(&form.effort);
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
                        value={(*form.max_tokens).clone()} oninput={set_on_input(&form.max_tokens)} /></label>
                <label class="field"><span class="label-text">{ t(lang, "run.reasoning_effort") }</span>
                    <select data-testid="run-reasoning-effort" data-value={effort.clone()} onchange={on_effort}>
                        <option value="" selected={effort.is_empty()}>{ t(lang, "run.engine_default") }</option>
                        <option value="low" selected={effort == "low"}>{ t(lang, "run.effort_low") }</option>
                        <option value="medium" selected={effort == "medium"}>{ t(lang, "run.effort_medium") }</option>
                        <option value="high" selected={effort == "high"}>{ t(lang, "run.effort_high") }</option>
                    </select></label>
                <label class="field"><span class="label-text">{ t(lang, "run.temperature") }</span>
                    <input type="number" min="0" max="2" step="0.1" data-testid="run-temperature"
                        value={(*form.temperature).clone()} oninput={set_on_input(&form.temperature)} /></label>
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
