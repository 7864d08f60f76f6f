//! Run page: choose prompts, engines, a location and settings, see the estimate, start one run per engine
//! of the selected project (sharing a `groupId` when there are several), follow their
//! progress and cancel them. The runs themselves are driven by [`crate::runner`]; they go on
//! when the user leaves this page (but not the tab).

mod estimate;
mod fields;
mod form;
mod location;

use crate::components::analytics::empty_with_link;
use crate::components::progress::RunProgress;
use crate::components::{EngineLabel, NavLink};
use crate::hooks::{use_app, use_query, Fetch};
use crate::i18n::{t, tf};
use crate::routes::Route;
use crate::runner::{self, use_live_run};
use estimate::{estimate_view, precision};
use fields::{budget_fields, engine_choices, number_fields, prompt_choices};
use form::{read_run_data, start_handler, use_run_form, Plan, RunData};
use geo_core::model::Lang;
use location::location_fields;
use yew::prelude::*;

/// What the page shows instead of the form: a loading line, the read's error, or what to do
/// first when there is no project or the project has no prompt.
fn placeholder(data: &Fetch<Option<RunData>>, lang: Lang) -> Option<Html> {
    let body = match data {
        Fetch::Failed(e) => html! { <p class="error-box" role="alert">{ e.message(lang) }</p> },
        Fetch::Ready(ready) => match ready.as_ref() {
            None => empty_with_link(lang, "run.no_project", Route::Projects, "projects.new"),
            Some((_, prompts, ..)) if prompts.is_empty() => {
                empty_with_link(lang, "run.no_prompts", Route::Projects, "nav.projects")
            }
            Some(_) => return None,
        },
        _ => html! { <p class="muted">{ t(lang, "common.loading") }</p> },
    };
    Some(html! { <section><h1>{ t(lang, "run.title") }</h1>{ body }</section> })
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
    let configs = plan.configs(&form.models);
    let on_start = start_handler(&app, run_data, plan.chosen.clone(), configs, &starting, &form.location.recent);
    let on_cancel = Callback::from(|_: MouseEvent| runner::cancel());
    let live_here: Vec<&runner::LiveRun> = live.iter().filter(|l| l.project_id == project.id).collect();
    let ticked = plan.ticked.len();

    html! {
        <section>
            <h1>{ t(lang, "run.title") }</h1>
            <form class="card run-form" onsubmit={on_start}>
                { prompt_choices(prompts, &plan.chosen, &form.selected, lang) }
                { engine_choices(&form, &plan, with_transport, lang) }
                { location_fields(&form.location, &plan.location, &plan.ticked, lang) }
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
