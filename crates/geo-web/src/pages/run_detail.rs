//! One run: its status, headline figures (from `geo_core::metrics::compute_run_metrics`),
//! where it asked from and which surface answered (`detail-location`),
//! continue / retry-failed with a progress bar, the probe table filterable by prompt and
//! status (in pages of 50 rows), and the probe drawer. The query `?prompt=ID` preselects
//! the prompt filter and `?probe=ID` opens that probe's drawer (links from other pages).

use crate::components::pager::{page_bounds, use_page, Pager, PAGE_SIZE};
use crate::components::probe_drawer::{drawer_for, open_probe_button, probe_status_value, OpenProbe};
use crate::components::progress::RunProgress;
use crate::components::run_status::{status_label, status_value};
use crate::components::table::{head_cells_and_hidden, table, Col};
use crate::components::{surface_badge, EmptyState, EngineLabel};
use crate::hooks::{set_on_change, toast, use_app, use_query};
use crate::i18n::{t, tf};
use crate::repo::Repository;
use crate::routes::DetailQuery;
use crate::runner::{self, use_live_run};
use crate::state::ToastKind;
use geo_core::metrics::{compute_run_metrics, RunMetrics};
use geo_core::model::{Lang, Probe, ProbeStatus, RunStatus};
use yew::prelude::*;
use yew_router::prelude::use_location;

/// The probe table's columns, before the one of the open buttons.
const PROBE_COLS: &[Col] = &[
    ("detail.prompt", false),
    ("drawer.repeat", true),
    ("drawer.status", false),
    ("detail.mentions", true),
    ("detail.sources", true),
];

/// Props of [`RunDetailPage`].
#[derive(Properties, PartialEq)]
pub struct RunDetailProps {
    /// The run id from the path.
    pub id: AttrValue,
}

/// A ratio as a percentage with one decimal, `—` for none.
pub fn percent(v: Option<f64>) -> String {
    match v {
        Some(x) if x.is_finite() => format!("{:.1}%", x * 100.0),
        _ => "—".to_string(),
    }
}

fn raw(v: Option<f64>) -> String {
    v.map(|x| x.to_string()).unwrap_or_default()
}

/// The run's headline figures: mention rate, first-mention rate, owned visibility and
/// successful / failed probes.
fn figures(m: &RunMetrics, lang: Lang) -> Html {
    html! {
        <div class="figures">
            <div class="figure" data-testid="detail-mention-rate" data-value={raw(m.mention_rate)}>
                <span class="label-text">{ t(lang, "detail.mention_rate") }</span><strong>{ percent(m.mention_rate) }</strong></div>
            <div class="figure" data-testid="detail-first-mention-rate" data-value={raw(m.first_mention_rate)}>
                <span class="label-text">{ t(lang, "detail.first_mention") }</span><strong>{ percent(m.first_mention_rate) }</strong></div>
            <div class="figure" data-testid="detail-owned-visibility" data-value={raw(m.owned_visibility)}>
                <span class="label-text">{ t(lang, "detail.owned_visibility") }</span><strong>{ percent(m.owned_visibility) }</strong></div>
            <div class="figure" data-testid="detail-success" data-value={m.success_count.to_string()} data-failed={m.failed_count.to_string()}>
                <span class="label-text">{ t(lang, "detail.success_failed") }</span>
                <strong>{ format!("{} / {}", m.success_count, m.failed_count) }</strong></div>
            <div class="figure" data-testid="run-truncated" data-value={m.truncated_count.to_string()}>
                <span class="label-text">{ t(lang, "detail.truncated") }</span><strong>{ m.truncated_count }</strong></div>
        </div>
    }
}

/// One probe of the table, with the button opening its drawer.
fn probe_row(p: &Probe, prompt_text: &str, open: &OpenProbe, lang: Lang) -> Html {
    html! {
        <tr key={p.id.clone()} data-testid="probe-row" data-id={p.id.clone()} data-status={probe_status_value(p.status)}>
            <td>{ prompt_text.to_string() }</td>
            <td class="num">{ p.repeat_index + 1 }</td>
            <td><span class={classes!("status", probe_status_value(p.status))}>{ t(lang, match p.status {
                ProbeStatus::Success => "detail.st_success", ProbeStatus::Error => "detail.st_error",
                ProbeStatus::Empty => "detail.st_empty", ProbeStatus::Cancelled => "status.cancelled" }) }</span>
                if p.truncated { { " " }<span class="chip warn" data-testid="probe-truncated-badge">{ t(lang, "detail.truncated_badge") }</span> }</td>
            <td class="num">{ p.mentions.len() }</td>
            <td class="num">{ p.sources.len() }</td>
            <td>{ open_probe_button(open, &p.id, "probe-open", t(lang, "detail.open").to_string(), None) }</td>
        </tr>
    }
}

/// The run detail page.
#[function_component]
pub fn RunDetailPage(props: &RunDetailProps) -> Html {
    let app = use_app();
    let lang = app.lang;
    let live = use_live_run();
    let data = use_query(props.id.to_string(), |repo, id| async move {
        let run = repo.get_run(&id).await?;
        let probes = match &run {
            Some(_) => repo.probes_by_run(&id).await?,
            None => Vec::new(),
        };
        let previous = match run.as_ref().and_then(|r| r.previous_run_id.clone()) {
            Some(pid) => match repo.get_run(&pid).await? {
                Some(prev) => {
                    let pp = repo.probes_by_run(&pid).await?;
                    Some((prev, pp))
                }
                None => None,
            },
            None => None,
        };
        // Computed once per read, not on every render (paging, filtering, the drawer).
        let metrics = run.as_ref().map(|r| {
            crate::web::measure("geo:run-detail-metrics", || {
                compute_run_metrics(r, &probes, previous.as_ref().map(|(r, p)| (r, &p[..])))
            })
        });
        Ok((run, probes, metrics))
    });
    let query = use_location().and_then(|l| l.query::<DetailQuery>().ok()).unwrap_or_default();
    let filter_prompt = use_state(|| query.prompt.clone().unwrap_or_default());
    let filter_status = use_state(String::new);
    let open = use_state(|| query.probe.clone());
    let (page, set_page) = use_page(((*filter_prompt).clone(), (*filter_status).clone()));

    let body = data.view(lang, |triple| match triple.as_ref() {
            (Some(run), probes, Some(m)) => {
                let live_here = live.iter().find(|l| l.run_id == run.id);
                let running_here = live_here.is_some_and(|l| l.running);
                let busy = running_here || runner::is_busy();
                let has_failed = probes.iter().any(|p| p.status.is_failure());
                let complete = run.status == RunStatus::Completed;
                let start = |retry: bool| {
                    let app = app.clone();
                    let id = run.id.clone();
                    Callback::from(move |_: MouseEvent| {
                        let Some(repo) = app.repo().cloned() else { return };
                        let (app, id) = (app.clone(), id.clone());
                        wasm_bindgen_futures::spawn_local(async move {
                            if let Err(msg) = runner::resume(repo, id, retry, app.lang).await {
                                toast(&app, ToastKind::Error, msg);
                            }
                        });
                    })
                };
                let prompt_text = |id: &str| run.prompt_snapshot.iter().find(|p| p.id == id).map(|p| p.text.clone()).unwrap_or_else(|| id.to_string());
                let shown: Vec<_> = probes
                    .iter()
                    .filter(|p| filter_prompt.is_empty() || p.prompt_id == *filter_prompt)
                    .filter(|p| filter_status.is_empty() || probe_status_value(p.status) == filter_status.as_str()
                        || (*filter_status == "failed" && p.status.is_failure()))
                    .collect();
                let on_prompt = set_on_change(&filter_prompt);
                let on_status = set_on_change(&filter_status);
                let drawer = drawer_for(&open, probes.iter(), run, lang);
                let (page, row_from, row_to) = page_bounds(shown.len(), page, PAGE_SIZE);
                html! {
                    <>
                        <p>
                            <span data-testid="run-status" data-value={status_value(run.status)}
                                class={classes!("status", status_value(run.status))}>{ status_label(lang, run.status) }</span>
                        </p>
                        { figures(m, lang) }
                        <dl class="facts">
                            <dt>{ t(lang, "runs.engine") }</dt>
                            <dd><EngineLabel engine={run.config.engine} /></dd>
                            <dt>{ t(lang, "runs.created") }</dt><dd>{ run.created_at.clone() }</dd>
                            <dt>{ t(lang, "runs.model") }</dt><dd>{ run.config.model.clone() }</dd>
                            <dt>{ t(lang, "detail.repeats") }</dt><dd>{ run.config.repeats }</dd>
                            <dt>{ t(lang, "detail.location") }</dt>
                            <dd data-testid="detail-location" data-value={run.config.location.as_ref().map(|l| l.label()).unwrap_or_default()}
                                data-surface={run.surface.as_str()}>
                                { run.config.location.as_ref().map_or_else(|| t(lang, "detail.no_location").to_string(), |l| l.label()) }
                                { " · " }{ run.surface.label(lang) }</dd>
                        </dl>
                        <crate::components::method::RunMethod method={m.method.clone()} />
                        <p>{ tf(lang, "detail.probes", &[("n", &probes.len().to_string()), ("m", &run.planned_probe_count.to_string())]) }</p>
                        if !run.surface.is_api() {
                            <p class="muted" data-testid="run-app-note">{ t(lang, "detail.app_run") }</p>
                        } else {
                        <div class="actions">
                            <button type="button" data-testid="run-continue" onclick={start(false)} disabled={busy || complete}
                                title={t(lang, "detail.continue_help")}>{ t(lang, "detail.continue") }</button>
                            <button type="button" data-testid="run-retry-failed" onclick={start(true)} disabled={busy || !has_failed}
                                title={t(lang, "detail.retry_help")}>{ t(lang, "detail.retry_failed") }</button>
                            if running_here {
                                <button type="button" class="danger" data-testid="run-cancel" onclick={{ let id = run.id.clone(); Callback::from(move |_: MouseEvent| runner::cancel_run(&id)) }}>{ t(lang, "run.cancel") }</button>
                            }
                        </div>
                        }
                        if let Some(l) = live_here {
                            <RunProgress progress={l.progress} {lang} running={l.running} />
                            if let Some(e) = &l.error { <p class="error-box" role="alert">{ e.clone() }</p> }
                        }
                        if probes.is_empty() {
                            <EmptyState text={t(lang, "detail.no_probes").to_string()} />
                        } else {
                            <div class="filters">
                                <label class="field"><span class="label-text">{ t(lang, "detail.filter_prompt") }</span>
                                    <select data-testid="probe-filter-prompt" onchange={on_prompt}>
                                        <option value="" selected={filter_prompt.is_empty()}>{ t(lang, "detail.all") }</option>
                                        { for run.prompt_snapshot.iter().map(|p| html! {
                                            <option value={p.id.clone()} selected={*filter_prompt == p.id}>{ p.text.chars().take(40).collect::<String>() }</option>
                                        }) }
                                    </select></label>
                                <label class="field"><span class="label-text">{ t(lang, "detail.filter_status") }</span>
                                    <select data-testid="probe-filter-status" onchange={on_status}>
                                        { for [("", "detail.all"), ("success", "detail.st_success"), ("failed", "detail.st_failed"), ("error", "detail.st_error"), ("empty", "detail.st_empty")]
                                            .iter().map(|(v, k)| html! { <option value={*v} selected={filter_status.as_str() == *v}>{ t(lang, k) }</option> }) }
                                    </select></label>
                            </div>
                            { table(t(lang, "detail.probe_table"), head_cells_and_hidden(lang, PROBE_COLS, "detail.open"), html! {
                                { for shown[row_from..row_to].iter().map(|p| probe_row(p, &prompt_text(&p.prompt_id), &open, lang)) }
                            }) }
                            <Pager total={shown.len()} {page} on_page={set_page.clone()} scope="probes" label={t(lang, "pager.probes")} {lang} />
                            if shown.is_empty() { <p class="muted">{ t(lang, "detail.no_match") }</p> }
                        }
                        { drawer }
                    </>
                }
            }
            _ => html! { <EmptyState text={t(lang, "detail.not_found").to_string()} /> },
        });
    // An `app` run (captured answers) carries its badge in the title.
    let surface = data.ready().and_then(|(run, _, _)| run.as_ref()).map(|r| r.surface);
    html! {
        <section>
            <h1>{ t(lang, "detail.title") }
                if let Some(surface) = surface { { " " }{ surface_badge(surface, lang) } }</h1>
            { body }
        </section>
    }
}
