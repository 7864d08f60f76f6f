//! Run page: choose prompts and settings, see the estimate, start a run of the selected
//! project, follow its progress and cancel it. The run itself is driven by
//! [`crate::runner`]; it goes on when the user leaves this page (but not the tab).

use crate::app::Route;
use crate::components::progress::RunProgress;
use crate::components::{EmptyState, NavLink};
use crate::draft::tag_label;
use crate::hooks::{toast, use_app, use_query, Fetch};
use crate::i18n::{t, tf};
use crate::pages::settings::BASE_URL_SETTING;
use crate::prefs;
use crate::repo::Repository;
use crate::runner::{self, use_live_run};
use crate::state::ToastKind;
use geo_core::compare;
use geo_core::metrics::cost::{estimate_run, EstimateBasis, RunEstimate};
use geo_core::model::{Lang, RunConfig, MODEL_OPTIONS};
use geo_core::runner::clamp_concurrency;
use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

/// A positive whole number typed in a field, or `None`.
pub fn parse_count(s: &str) -> Option<u32> {
    s.trim().parse::<u32>().ok().filter(|n| *n >= 1)
}

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

/// The run page.
#[function_component]
pub fn RunPage() -> Html {
    let app = use_app();
    let lang = app.lang;
    let live = use_live_run();
    let data = use_query(app.project_id.clone(), |repo, project| async move {
        let Some(id) = project else { return Ok(None) };
        let project = repo.get_project(&id).await?;
        let prompts = repo.prompts_by_project(&id).await?;
        let runs = repo.runs_by_project(&id).await?;
        let last_probes = match runs.first() {
            Some(r) => repo.probes_by_run(&r.id).await?,
            None => Vec::new(),
        };
        let base = repo
            .setting(BASE_URL_SETTING)
            .await?
            .and_then(|v| v.as_str().map(str::to_string))
            .filter(|s| !s.trim().is_empty());
        Ok(project.map(|p| (p, prompts, runs, last_probes, base)))
    });
    let selected = use_state(|| None::<Vec<String>>);
    {
        // A choice of prompts belongs to one project: another project starts with all of its own.
        let selected = selected.clone();
        use_effect_with(app.project_id.clone(), move |_| selected.set(None));
    }
    let model = use_state(|| RunConfig::default().model);
    let repeats = use_state(|| RunConfig::default().repeats.to_string());
    let concurrency = use_state(|| RunConfig::default().concurrency.to_string());
    let max_searches = use_state(|| RunConfig::default().max_searches.to_string());
    let starting = use_state(|| false);

    let Some(ready) = data.ready() else {
        return match &data {
            Fetch::Failed(e) => {
                html! { <section><h1>{ t(lang, "run.title") }</h1><p class="error-box" role="alert">{ e.message(lang) }</p></section> }
            }
            _ => {
                html! { <section><h1>{ t(lang, "run.title") }</h1><p class="muted">{ t(lang, "common.loading") }</p></section> }
            }
        };
    };
    let Some((project, prompts, runs, last_probes, base)) = ready.as_ref() else {
        return html! {
            <section><h1>{ t(lang, "run.title") }</h1>
                <EmptyState text={t(lang, "run.no_project").to_string()}>
                    <NavLink to={Route::Projects} class="button">{ t(lang, "projects.new") }</NavLink>
                </EmptyState></section>
        };
    };
    if prompts.is_empty() {
        return html! {
            <section><h1>{ t(lang, "run.title") }</h1>
                <EmptyState text={t(lang, "run.no_prompts").to_string()}>
                    <NavLink to={Route::Projects} class="button">{ t(lang, "nav.projects") }</NavLink>
                </EmptyState></section>
        };
    }
    let chosen: Vec<String> = match &*selected {
        Some(list) => prompts.iter().filter(|p| list.contains(&p.id)).map(|p| p.id.clone()).collect(),
        None => prompts.iter().map(|p| p.id.clone()).collect(),
    };
    let repeats_n = parse_count(&repeats);
    let conc_n = parse_count(&concurrency).map(clamp_concurrency);
    let searches_n = parse_count(&max_searches);
    let history = runs.first().map(|r| (r, &last_probes[..]));
    let estimate = estimate_run(&model, chosen.len(), repeats_n.unwrap_or(0), conc_n.unwrap_or(1), history);
    let has_transport = prefs::api_key().is_some() || base.is_some();
    let busy = live.as_ref().is_some_and(|l| l.running) || runner::is_busy() || *starting;
    let reason: Option<&str> = if busy {
        Some("run.reason_running")
    } else if chosen.is_empty() {
        Some("run.reason_no_prompt")
    } else if !has_transport {
        Some("run.need_key")
    } else if repeats_n.is_none() || conc_n.is_none() || searches_n.is_none() {
        Some("run.reason_numbers")
    } else {
        None
    };

    let toggle = {
        let (selected, chosen) = (selected.clone(), chosen.clone());
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
    let select_all = {
        let (selected, all) = (selected.clone(), prompts.iter().map(|p| p.id.clone()).collect::<Vec<_>>());
        let everything = chosen.len() == prompts.len();
        Callback::from(move |_: MouseEvent| selected.set(Some(if everything { Vec::new() } else { all.clone() })))
    };
    let text_input = |state: &UseStateHandle<String>| {
        let state = state.clone();
        Callback::from(move |e: InputEvent| state.set(e.target_unchecked_into::<HtmlInputElement>().value()))
    };
    let on_model = {
        let model = model.clone();
        Callback::from(move |e: Event| model.set(e.target_unchecked_into::<HtmlSelectElement>().value()))
    };
    let on_start = {
        let app = app.clone();
        let (project, prompts, runs) = (project.clone(), prompts.clone(), runs.clone());
        let (chosen, starting) = (chosen.clone(), starting.clone());
        let config = RunConfig {
            model: (*model).clone(),
            repeats: repeats_n.unwrap_or(0),
            concurrency: conc_n.unwrap_or(1),
            max_searches: searches_n.unwrap_or(0),
            ..RunConfig::default()
        };
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            let Some(repo) = app.repo().cloned() else { return };
            let (app, starting) = (app.clone(), starting.clone());
            let (project, prompts, chosen, config, runs) =
                (project.clone(), prompts.clone(), chosen.clone(), config.clone(), runs.clone());
            starting.set(true);
            wasm_bindgen_futures::spawn_local(async move {
                let result = runner::start_fresh(repo, project, prompts, chosen, config, runs, app.lang).await;
                starting.set(false);
                match result {
                    Ok(id) => {
                        toast(&app, ToastKind::Ok, t(app.lang, "run.started").to_string());
                        app.dispatch(crate::state::Action::SelectRun(Some(id)));
                    }
                    Err(msg) => toast(&app, ToastKind::Error, msg),
                }
            });
        })
    };
    let on_cancel = Callback::from(|_: MouseEvent| runner::cancel());
    let live_here = live.as_ref().filter(|l| l.project_id == project.id);

    html! {
        <section>
            <h1>{ t(lang, "run.title") }</h1>
            <form class="card run-form" onsubmit={on_start}>
                <fieldset>
                    <legend>{ tf(lang, "run.prompts", &[("n", &prompts.len().to_string())]) }</legend>
                    <button type="button" class="link" onclick={select_all}>
                        { t(lang, if chosen.len() == prompts.len() { "run.select_none" } else { "run.select_all" }) }
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
                <div class="grid-fields">
                    <label class="field"><span class="label-text">{ t(lang, "runs.model") }</span>
                        <select data-testid="run-model" onchange={on_model}>
                            { for MODEL_OPTIONS.iter().map(|m| html! { <option value={*m} selected={*model == *m}>{ *m }</option> }) }
                        </select></label>
                    <label class="field"><span class="label-text">{ t(lang, "detail.repeats") }</span>
                        <input type="number" min="1" max="20" data-testid="run-repeats" value={(*repeats).clone()} oninput={text_input(&repeats)} /></label>
                    <label class="field"><span class="label-text">{ t(lang, "run.concurrency") }</span>
                        <input type="number" min="1" max="3" data-testid="run-concurrency" value={(*concurrency).clone()} oninput={text_input(&concurrency)} /></label>
                    <label class="field"><span class="label-text">{ t(lang, "run.max_searches") }</span>
                        <input type="number" min="1" max="20" data-testid="run-max-searches" value={(*max_searches).clone()} oninput={text_input(&max_searches)} /></label>
                </div>
                <div class="estimate" data-testid="run-estimate" data-cost-usd={estimate.cost_usd.to_string()} data-seconds={estimate.seconds.to_string()}
                    data-basis={basis_value(estimate.basis)} data-latency-ms={estimate.profile.latency_ms.round().to_string()}
                    data-history-probes={estimate.history_probes.to_string()} aria-live="polite">
                    <p>{ tf(lang, "run.estimate", &[
                        ("probes", &estimate.probes.to_string()),
                        ("cost", &format!("{:.4}", estimate.cost_usd)),
                        ("time", &duration_text(estimate.seconds, lang)),
                    ]) }</p>
                    <p class="muted small" data-testid="run-estimate-basis">{ basis_text(&estimate, lang) }</p>
                </div>
                { precision(chosen.len() as u32, repeats_n.unwrap_or(0), lang) }
                <div class="actions">
                    <button type="submit" data-testid="run-start" disabled={reason.is_some()}
                        aria-describedby="run-start-reason">{ t(lang, "run.start") }</button>
                    if live_here.is_some_and(|l| l.running) {
                        <button type="button" class="danger" data-testid="run-cancel" onclick={on_cancel}>{ t(lang, "run.cancel") }</button>
                    }
                </div>
                if let Some(key) = reason {
                    <p id="run-start-reason" class="muted" data-testid="run-start-reason">{ t(lang, key) }
                        if key == "run.need_key" { { " " }<NavLink to={Route::Settings}>{ t(lang, "nav.settings") }</NavLink> }</p>
                }
            </form>
            if let Some(l) = live_here {
                <div class="card">
                    <RunProgress progress={l.progress} lang={lang} running={l.running} />
                    if let Some(e) = &l.error { <p class="error-box" role="alert">{ e.clone() }</p> }
                    <p><NavLink to={Route::RunDetail { id: l.run_id.clone() }}>{ t(lang, "run.open_detail") }</NavLink></p>
                </div>
            }
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
