//! Lists (推荐榜): each successful probe's parsed recommendation list, the brand's list
//! positions per prompt across repeats, list-order stability (RBO, from geo-core) per prompt
//! and overall, and the untracked entities found in lists with an "add as competitor" action
//! that updates the project (never a past run: runs keep their alias snapshot). The
//! per-probe lists come 50 probes a page, each with a button opening the probe's drawer.
//! The positions and the order of the lists are stored beside the run's summary (geo-core's
//! `list_positions`); the page reads only the probes of the page of lists it shows.

use crate::components::analytics::{analytics_page, empty_with_link};
use crate::components::metric_card::{pct, raw_f64};
use crate::components::pager::{page_bounds, use_page, Pager, PAGE_SIZE};
use crate::components::probe_drawer::{open_probe_button, OpenProbe, StoredDrawer};
use crate::components::run_data::{use_probes_by_id, use_run_data, Figures, RunDataProps, SharedRunData};
use crate::components::EmptyState;
use crate::hooks::{report, use_app};
use crate::i18n::{t, tf};
use crate::repo::Repository;
use crate::routes::Route;
use geo_core::metrics::{ListPositions, PositionCell, RunMetrics};
use geo_core::model::{Lang, Probe, Run};
use yew::prelude::*;

/// The page.
#[function_component]
pub fn ListsPage() -> Html {
    let lang = use_app().lang;
    let data = use_run_data(Figures::Lists);
    let body = data.view(lang, |d| match (**d).as_ref().filter(|d| d.metrics.is_some() && d.positions.is_some()) {
        Some(d) => html! { <ListsBody data={d.clone()} /> },
        None => empty_with_link(lang, "lists.empty", Route::Projects, "nav.projects"),
    });
    analytics_page(lang, "lists.title", body)
}

#[function_component]
fn ListsBody(p: &RunDataProps) -> Html {
    let app = use_app();
    let lang = app.lang;
    let probe_open: OpenProbe = use_state(|| None::<String>);
    let (page, set_page) = use_page(());
    let (pos_page, set_pos_page) = use_page(());
    let add = use_add_competitor();
    let d = &p.data;
    let (Some(m), Some(run), Some(positions)) = (d.metrics.as_ref(), d.run(), d.positions.as_ref()) else {
        return html! {};
    };
    let brand_id = m.brand_id.clone().unwrap_or_default();
    let repeats = run.config.repeats.max(1);
    // The per-probe lists: successful probes in prompt order, then repeat (geo-core's
    // `list_positions`), 50 a page, read when shown.
    let listed = &positions.listed;
    let (page, row_from, row_to) = page_bounds(listed.len(), page, PAGE_SIZE);
    let (pos_page, pos_from, pos_to) = page_bounds(positions.prompts.len(), pos_page, PAGE_SIZE);

    html! {
        <>
            <div class="metric-grid">
                <div class="metric-card" data-testid="list-stability" data-value={raw_f64(m.list_stability)}
                     title={tf(lang, "dash.over_prompts", &[("n", &m.counts.list_stability_prompt_count.to_string())])}>
                    <div class="metric-label">{ t(lang, "lst.stability") }</div>
                    <div class="metric-value">{ pct(m.list_stability) }</div>
                    <div class="metric-hint muted">{ t(lang, "lst.stability_hint") }</div>
                </div>
            </div>
            if !positions.has_lists {
                <EmptyState text={t(lang, "lst.no_lists").to_string()} />
            }
            { brand_positions(m, positions, &label_of(run, &brand_id), (pos_page, pos_from, pos_to), set_pos_page, repeats, lang) }
            { untracked(m, &add, lang) }
            <section aria-labelledby="probelists-h">
                <h2 id="probelists-h">{ t(lang, "lst.per_probe") }</h2>
                <ProbeLists data={d.clone()} ids={listed[row_from..row_to].to_vec()} open={probe_open.clone()} />
                <Pager total={listed.len()} {page} on_page={set_page} scope="lists" label={t(lang, "pager.lists")} {lang} />
            </section>
            <StoredDrawer open={probe_open.clone()} data={d.clone()} {lang} />
        </>
    }
}

/// The label of target `id` in `run`'s alias snapshot (the id when unknown).
fn label_of(run: &Run, id: &str) -> String {
    run.alias_snapshot.iter().find(|t| t.id == id).map_or_else(|| id.to_string(), |t| t.label.clone())
}

#[derive(Properties, PartialEq)]
struct ProbeListsProps {
    data: SharedRunData,
    /// The probes of this page of lists, in order.
    ids: Vec<String>,
    open: OpenProbe,
}

/// One page of per-probe lists: its probes read from storage, consecutive probes of one
/// prompt in one section.
#[function_component]
fn ProbeLists(p: &ProbeListsProps) -> Html {
    let lang = use_app().lang;
    let read = use_probes_by_id(p.ids.clone());
    let d = &p.data;
    let (Some(m), Some(run)) = (d.metrics.as_ref(), d.run()) else { return html! {} };
    let probes = match read.ready() {
        Some(r) if r.0 == p.ids => &r.1,
        _ => return html! { <p class="muted" role="status">{ t(lang, "common.loading") }</p> },
    };
    let brand_id = m.brand_id.clone().unwrap_or_default();
    let label_of = |id: &str| label_of(run, id);
    let mut groups: Vec<(&str, Vec<&Probe>)> = Vec::new();
    for pr in probes {
        match groups.last_mut() {
            Some((id, v)) if *id == pr.prompt_id => v.push(pr),
            _ => groups.push((pr.prompt_id.as_str(), vec![pr])),
        }
    }
    html! {
        { for groups.iter().map(|(prompt_id, probes)| html! {
            <details class="card" open={true}>
                <summary>{ d.prompt_text(prompt_id) }</summary>
                <div class="list-grid">
                { for probes.iter().map(|pr| probe_list(pr, &p.open, d, prompt_id, &brand_id, &label_of, lang)) }
                </div>
            </details>
        }) }
    }
}

/// Adds an untracked entity to the current project as a competitor (never to a past run:
/// runs keep their alias snapshot), with a toast saying what happened.
#[hook]
fn use_add_competitor() -> Callback<String> {
    let app = use_app();
    Callback::from(move |name: String| {
        let app = app.clone();
        let Some(repo) = app.repo().cloned() else { return };
        let Some(project_id) = app.project_id.clone() else { return };
        wasm_bindgen_futures::spawn_local(async move {
            let project = match repo.get_project(&project_id).await {
                Ok(Some(p)) => p,
                Ok(None) => return,
                Err(e) => return report(&app, &Err::<(), _>(e), None),
            };
            let now = crate::web::now_iso();
            match geo_core::project::with_competitor(&project, &name, crate::web::new_id("tgt"), &now) {
                Some(next) => {
                    let result = repo.put_project(&next).await;
                    report(&app, &result, Some(tf(app.lang, "lst.added", &[("n", &name)])));
                }
                None => {
                    crate::hooks::toast(&app, crate::state::ToastKind::Ok, tf(app.lang, "lst.already", &[("n", &name)]))
                }
            }
        });
    })
}

/// The brand's list position per prompt and repeat (geo-core's `list_positions`), with each
/// prompt's list stability.
fn brand_positions(
    m: &RunMetrics,
    positions: &ListPositions,
    brand_label: &str,
    (page, from, to): (usize, usize, usize),
    on_page: Callback<usize>,
    repeats: u32,
    lang: Lang,
) -> Html {
    html! {
        <section class="card" aria-labelledby="brandpos-h">
            <h2 id="brandpos-h">{ tf(lang, "lst.brand_positions", &[("b", brand_label)]) }</h2>
            <div class="table-wrap" tabindex="0" role="region" aria-labelledby="brandpos-h"><table>
                <thead><tr>
                    <th scope="col">{ t(lang, "dash.prompt") }</th>
                    { for (1..=repeats).map(|r| html! { <th scope="col" class="num">{ tf(lang, "lst.repeat", &[("n", &r.to_string())]) }</th> }) }
                    <th scope="col" class="num">{ t(lang, "lst.rbo") }</th>
                </tr></thead>
                <tbody>
                    { for positions.prompts[from..to].iter().map(|row| {
                        // The rows are the metrics' prompts, in their order.
                        let pm = m.prompts.iter().find(|pm| pm.prompt_id == row.prompt_id);
                        let stability = pm.and_then(|pm| pm.list_stability);
                        html! {
                            <tr data-testid="list-prompt-row" data-prompt={row.prompt_id.clone()} data-value={raw_f64(stability)}>
                                <td>{ pm.map_or_else(String::new, |pm| pm.text.clone()) }</td>
                                { for row.cells.iter().map(|cell| {
                                    let text = match cell {
                                        PositionCell::NoProbe => "·".to_string(),
                                        PositionCell::Failed => t(lang, "lst.failed").to_string(),
                                        PositionCell::NotListed => "—".to_string(),
                                        PositionCell::At(n) => format!("#{n}"),
                                    };
                                    html! { <td class="num">{ text }</td> }
                                }) }
                                <td class="num">{ pct(stability) }</td>
                            </tr>
                        }
                    }) }
                </tbody>
            </table></div>
            <Pager total={positions.prompts.len()} {page} {on_page} scope="brand-positions" label={t(lang, "pager.brand_positions")} {lang} />
        </section>
    }
}

/// Entities found in lists that no target matches, each with an "add as competitor" button.
fn untracked(m: &RunMetrics, add: &Callback<String>, lang: Lang) -> Html {
    html! {
        <section class="card" aria-labelledby="untracked-h">
            <h2 id="untracked-h">{ t(lang, "lst.untracked") }</h2>
            <p class="muted">{ t(lang, "lst.untracked_help") }</p>
            if m.untracked_entities.is_empty() {
                <p class="muted">{ t(lang, "lst.untracked_none") }</p>
            } else {
                <ul class="untracked">
                    { for m.untracked_entities.iter().map(|u| {
                        let name = u.name.clone();
                        let onclick = { let add = add.clone(); let name = name.clone(); Callback::from(move |_: MouseEvent| add.emit(name.clone())) };
                        html! {
                            <li data-testid="untracked-entity" data-name={name.clone()} data-value={u.count.to_string()}>
                                <span>{ name.clone() }</span>{ " " }
                                <span class="muted">{ tf(lang, "lst.times", &[("n", &u.count.to_string())]) }</span>{ " " }
                                <button type="button" class="secondary small" data-testid="add-competitor" {onclick}
                                    aria-label={tf(lang, "lst.add_label", &[("n", &name)])}>{ t(lang, "lst.add") }</button>
                            </li>
                        }
                    }) }
                </ul>
            }
        </section>
    }
}

/// One probe's parsed list, every position written out (not left to the list marker), so a
/// highlighted item shows its number like every other one.
fn probe_list(
    p: &Probe,
    probe_open: &OpenProbe,
    d: &SharedRunData,
    prompt_id: &str,
    brand_id: &str,
    label_of: &dyn Fn(&str) -> String,
    lang: Lang,
) -> Html {
    let repeat = tf(lang, "lst.repeat", &[("n", &(p.repeat_index + 1).to_string())]);
    html! {
        <div class="probe-list" data-probe={p.id.clone()}>
            <h3 class="small">{ open_probe_button(probe_open, &p.id, "probe-link", repeat.clone(),
                Some(tf(lang, "pg.open_probe", &[("x", &format!("{} · {repeat}", d.prompt_text(prompt_id)))]))) }</h3>
            if p.list_items.is_empty() {
                <p class="muted small">{ t(lang, "lst.no_list") }</p>
            } else {
                // The position is written out (not left to the list marker), so
                // a highlighted item shows its number like every other one.
                <ol class="ranked">
                    { for p.list_items.iter().map(|li| {
                        let target = li.matched_target_id.clone().unwrap_or_default();
                        html! {
                            <li data-testid="list-row" data-probe={p.id.clone()} data-position={li.position.to_string()}
                                data-target={target.clone()}
                                class={classes!((!target.is_empty()).then_some("tracked"), (target == brand_id && !target.is_empty()).then_some("is-brand"))}>
                                <span class="rank">{ format!("{}.", li.position) }</span>{ " " }
                                <span class="item-title">{ li.title.clone() }</span>
                                if !target.is_empty() { <span class="chip">{ label_of(&target) }</span> }
                            </li>
                        }
                    }) }
                </ol>
            }
        </div>
    }
}
