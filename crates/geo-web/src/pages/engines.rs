//! Engines page: for the current project, the newest completed or partial run of each engine
//! and surface side by side (an engine's API run, then its `app` run of captured answers: mention
//! rate with its 95 % interval, first-mention rate, owned visibility, owned citation rate, share
//! of voice, top domains, the served model), a prompt × engine matrix of mention rates, and
//! "app vs API": per engine with both surfaces, the gap between them (`surfaceGaps`).
//!
//! Every figure is geo-core's `compare::engines_for_export` over the project's stored runs and
//! probes: the very object `geo-probe engines FILE --project ID` prints for the same data, so
//! the page's `data-value`s equal the CLI's numbers.

use crate::components::analytics::empty_with_link;
use crate::components::charts::{Bar, BarChart};
use crate::components::metric_card::{pct, raw_f64};
use crate::components::{surface_badge, EngineLabel, NavLink};
use crate::hooks::{use_app, use_query, Fetch};
use crate::i18n::{t, tf};
use crate::repo::Repository;
use crate::routes::Route;
use geo_core::compare::{
    change_mark, engines_for_export, interval_text, newest_run_per_engine, points_text, EngineColumn, EngineComparison,
    SurfaceGap,
};
use geo_core::model::{ExportEnvelope, Lang, Surface, Target};
use yew::prelude::*;

/// The export of one project that the comparison reads: the project, its prompts, the newest
/// comparable run of each engine and those runs' probes.
pub fn comparison_of(env: &ExportEnvelope, project_id: &str) -> Option<EngineComparison> {
    let comparison = engines_for_export(env, Some(project_id)).ok()?;
    (!comparison.engines.is_empty()).then_some(comparison)
}

/// The CSS class of a mention rate in the matrix: five steps from none to all.
pub fn heat_class(rate: Option<f64>) -> &'static str {
    match rate {
        None => "heat-none",
        Some(r) if r < 0.2 => "heat-0",
        Some(r) if r < 0.4 => "heat-1",
        Some(r) if r < 0.6 => "heat-2",
        Some(r) if r < 0.8 => "heat-3",
        Some(_) => "heat-4",
    }
}

/// The Engines page.
#[function_component]
pub fn EnginesPage() -> Html {
    let app = use_app();
    let lang = app.lang;
    let data = use_query(app.project_id.clone(), |repo, project| async move {
        let Some(id) = project else { return Ok(None) };
        let Some(project) = repo.get_project(&id).await? else { return Ok(None) };
        let prompts = repo.prompts_by_project(&id).await?;
        let all_runs = repo.runs_by_project(&id).await?;
        let runs: Vec<_> = newest_run_per_engine(&all_runs, &id).into_iter().cloned().collect();
        let (mut probes, mut link_checks) = (Vec::new(), Vec::new());
        for r in &runs {
            probes.extend(repo.probes_by_run(&r.id).await?);
            link_checks.extend(repo.link_check(&r.id).await?);
        }
        let targets = project.targets();
        let mut env = ExportEnvelope::new("");
        env.projects = vec![project];
        env.prompts = prompts;
        env.runs = runs;
        env.probes = probes;
        env.link_checks = link_checks;
        let comparison = crate::web::measure("geo:engines-compare", || comparison_of(&env, &id));
        Ok(Some((comparison, targets, all_runs.len())))
    });
    let body = match &data {
        Fetch::Ready(value) => match value.as_ref() {
            None => empty_with_link(lang, "engines.no_project", Route::Projects, "projects.new"),
            Some((None, _, _)) => empty_with_link(lang, "engines.empty", Route::Run, "nav.run"),
            Some((Some(c), targets, _)) => view(c, targets, lang),
        },
        Fetch::Failed(e) => html! { <p class="error-box" role="alert">{ e.message(lang) }</p> },
        _ => html! { <p class="muted">{ t(lang, "common.loading") }</p> },
    };
    html! {
        <section data-testid="engines-page" data-state={if data.ready().is_some() { "ready" } else { "loading" }}>
            <h1>{ t(lang, "engines.title") }</h1>
            <p class="muted">{ t(lang, "engines.help") }</p>
            { body }
        </section>
    }
}

/// Who leaves the brand out (`brandGaps`): each engine that never names the brand on prompts
/// where another engine does, those prompts, and whether its mention rate is clearly below
/// other engines' or within the noise. Nothing when no engine does.
fn gaps(c: &EngineComparison, targets: &[Target], lang: Lang) -> Html {
    if c.brand_gaps.is_empty() {
        return html! {};
    }
    let brand = targets.first().map(|t| t.label.as_str()).unwrap_or_default();
    let name = |e: geo_core::model::EngineId| geo_core::provider::spec(e).name;
    let sep = if lang == Lang::Zh { "、" } else { ", " };
    html! {
        <div class="card engine-gaps" data-testid="engine-gaps">
            <h2>{ tf(lang, "engines.gaps", &[("brand", brand)]) }</h2>
            <ul class="gap-list">
                { for c.brand_gaps.iter().map(|g| {
                    let below: Vec<&str> = g.clearly_below.iter().map(|e| e.as_str()).collect();
                    let below_names: Vec<&str> = g.clearly_below.iter().map(|e| name(*e)).collect();
                    let texts = g.prompt_ids.iter().filter_map(|id| c.prompts.iter().find(|p| &p.prompt_id == id));
                    html! {
                        <li key={g.engine.as_str()} data-testid="engine-gap" data-engine={g.engine.as_str()}
                            data-prompts={g.prompt_ids.len().to_string()} data-clearly-below={below.join(",")}>
                            <strong>{ name(g.engine) }</strong>{ " " }
                            { tf(lang, "engines.gap_line", &[("brand", brand), ("n", &g.prompt_ids.len().to_string())]) }
                            <ul>{ for texts.map(|p| html! { <li data-prompt={p.prompt_id.clone()}>{ p.text.clone() }</li> }) }</ul>
                            <p class="muted">
                                { if below_names.is_empty() {
                                    t(lang, "engines.gap_noise").to_string()
                                } else {
                                    tf(lang, "engines.gap_real", &[("engines", &below_names.join(sep))])
                                } }
                            </p>
                        </li>
                    }
                }) }
            </ul>
        </div>
    }
}

fn view(c: &EngineComparison, targets: &[Target], lang: Lang) -> Html {
    let brand = targets.first().map(|t| t.id.clone()).unwrap_or_default();
    let bars: Vec<Bar> = c
        .engines
        .iter()
        .map(|e| Bar {
            label: column_name(e, lang),
            fraction: e.mention_rate.unwrap_or(0.0),
            display: format!("{} ({})", pct(e.mention_rate), interval(e.mention_rate_low, e.mention_rate_high)),
            testid: "engine-bar".into(),
            target: e.key().name(),
            raw: raw_f64(e.mention_rate),
            title: tf(lang, "engines.bar_title", &[("n", &e.success_count.to_string())]),
        })
        .collect();
    html! {
        <>
            { gaps(c, targets, lang) }
            <div class="card engines-chart">
                <BarChart testid="engines-chart" title={t(lang, "engines.chart")} desc={t(lang, "engines.chart_desc")} {bars} />
            </div>
            { engines_table(c, &brand, lang) }
            { surface_card(c, lang) }
            <div class="card">
            <h2>{ t(lang, "engines.sov") }</h2>
            // Nine engines scroll sideways on a narrow screen: the region takes the focus, so
            // the keyboard can scroll it too.
            <div class="table-wrap" tabindex="0" role="region" aria-label={t(lang, "engines.sov")}>
                <table class="sov-matrix">
                    <thead><tr>
                        <th scope="col">{ t(lang, "engines.target") }</th>
                        { for c.engines.iter().map(|e| html! { <th scope="col" class="num"><EngineLabel engine={e.engine} />{ " " }{ surface_badge(e.surface, lang) }</th> }) }
                    </tr></thead>
                    <tbody>
                        { for targets.iter().map(|target| html! {
                            <tr key={target.id.clone()}>
                                <th scope="row">{ target.label.clone() }</th>
                                { for c.engines.iter().map(|e| {
                                    let v = e.share_of_voice.get(&target.id).copied().flatten();
                                    html! { <td class="num" data-testid="engine-sov-cell" data-engine={e.key().name()} data-surface={e.surface.as_str()}
                                        data-target={target.id.clone()} data-value={raw_f64(v)}>{ pct(v) }</td> }
                                }) }
                            </tr>
                        }) }
                    </tbody>
                </table>
            </div>
            </div>
            <div class="card">
            <h2>{ t(lang, "engines.matrix") }</h2>
            <p class="muted">{ t(lang, "engines.matrix_help") }</p>
            <div class="table-wrap" tabindex="0" role="region" aria-label={t(lang, "engines.matrix")}>
                <table class="engine-matrix">
                    <thead><tr>
                        <th scope="col">{ t(lang, "engines.prompt") }</th>
                        { for c.engines.iter().map(|e| html! { <th scope="col" class="num"><EngineLabel engine={e.engine} />{ " " }{ surface_badge(e.surface, lang) }</th> }) }
                    </tr></thead>
                    <tbody>
                        { for c.prompts.iter().map(|row| html! {
                            <tr key={row.prompt_id.clone()} data-testid="engine-prompt-row" data-prompt={row.prompt_id.clone()}>
                                <th scope="row">{ row.text.clone() }</th>
                                { for c.engines.iter().map(|e| {
                                    let v = row.mention_rate.get_column(e.key()).copied().flatten();
                                    html! {
                                        <td class={classes!("num", heat_class(v))} data-testid="engine-prompt-cell" data-engine={e.key().name()}
                                            data-surface={e.surface.as_str()} data-prompt={row.prompt_id.clone()} data-value={raw_f64(v)}
                                            title={column_name(e, lang)}>{ pct(v) }</td>
                                    }
                                }) }
                            </tr>
                        }) }
                    </tbody>
                </table>
            </div>
            </div>
        </>
    }
}

/// One row per engine and surface (`engine-row`, `data-surface`): the run's figures, its
/// served model and, for an `app` run, its badge.
fn engines_table(c: &EngineComparison, brand: &str, lang: Lang) -> Html {
    html! {
        <div class="card table-wrap">
            <table class="engines-table">
                <caption class="sr-only">{ t(lang, "engines.table") }</caption>
                <thead><tr>
                    <th scope="col">{ t(lang, "runs.engine") }{ " · " }{ t(lang, "runs.model") }</th>
                    <th scope="col" class="num">{ t(lang, "engines.mention_rate") }</th>
                    <th scope="col" class="num">{ t(lang, "engines.first_mention") }</th>
                    <th scope="col" class="num">{ t(lang, "engines.owned_visibility") }</th>
                    <th scope="col" class="num">{ t(lang, "engines.owned_citation") }</th>
                    <th scope="col" class="num">{ t(lang, "engines.sov_brand") }</th>
                    <th scope="col" class="num">{ t(lang, "engines.brand_flagged") }</th>
                    <th scope="col">{ t(lang, "engines.top_domains") }</th>
                    <th scope="col" class="num">{ t(lang, "detail.cost") }</th>
                    <th scope="col" class="num">{ t(lang, "engines.links") }</th>
                </tr></thead>
                <tbody>
                    { for c.engines.iter().map(|e| {
                        let sov = e.share_of_voice.get(brand).copied().flatten();
                        html! {
                            <tr key={e.key().name()} data-testid="engine-row" data-engine={e.engine.as_str()} data-run={e.run_id.clone()}
                                data-surface={e.surface.as_str()} data-model={e.model.clone()}
                                data-mention-rate={raw_f64(e.mention_rate)} data-first-mention-rate={raw_f64(e.first_mention_rate)}
                                data-owned-visibility={raw_f64(e.owned_visibility)} data-owned-citation-rate={raw_f64(e.owned_citation_rate)}
                                data-success={e.success_count.to_string()} data-cost-usd={raw_f64(e.estimated_cost_usd)}
                                data-truncated={e.truncated_count.to_string()} data-brand-flagged-rate={raw_f64(e.brand_flagged_rate)}>
                                <th scope="row">
                                    <EngineLabel engine={e.engine} />{ " " }{ surface_badge(e.surface, lang) }<br />
                                    <small class="muted">{ e.model.clone() }{ " · " }
                                        <NavLink to={Route::RunDetail { id: e.run_id.clone() }}>{ e.created_at.replace('T', " ").chars().take(16).collect::<String>() }</NavLink>
                                        { " · " }{ tf(lang, "engines.success_n", &[("n", &e.success_count.to_string())]) }</small>
                                </th>
                                <td class="num" data-label={t(lang, "engines.mention_rate")} title={t(lang, "engines.interval_title")}>{ pct(e.mention_rate) }<br />
                                    <small class="muted" data-testid="engine-interval" data-low={raw_f64(e.mention_rate_low)} data-high={raw_f64(e.mention_rate_high)}>
                                        { interval(e.mention_rate_low, e.mention_rate_high) }</small></td>
                                <td class="num" data-label={t(lang, "engines.first_mention")}>{ pct(e.first_mention_rate) }</td>
                                <td class="num" data-label={t(lang, "engines.owned_visibility")}>{ pct(e.owned_visibility) }</td>
                                <td class="num" data-label={t(lang, "engines.owned_citation")} title={if e.owned_citation_rate.is_none() { t(lang, "engines.no_citations") } else { "" }}>
                                    { if e.owned_citation_rate.is_some() { pct(e.owned_citation_rate) } else { t(lang, "engines.no_citation_data").to_string() } }</td>
                                <td class="num" data-label={t(lang, "engines.sov_brand")}>{ pct(sov) }</td>
                                <td class="num" data-label={t(lang, "engines.brand_flagged")} title={t(lang, "engines.brand_flagged_title")}>{ pct(e.brand_flagged_rate) }</td>
                                <td data-label={t(lang, "engines.top_domains")}>
                                    <ol class="plain top-domains">
                                        { for e.top_domains.iter().map(|d| html! {
                                            <li data-testid="engine-top-domain" data-domain={d.domain.clone()} data-value={raw_f64(d.occurrence_rate)}>
                                                { d.domain.clone() }{ " " }<span class="muted">{ pct(d.occurrence_rate) }</span></li>
                                        }) }
                                    </ol>
                                </td>
                                <td class="num" data-label={t(lang, "detail.cost")} data-testid="engine-cost" data-value={raw_f64(e.estimated_cost_usd)}>
                                    { e.estimated_cost_usd.map_or_else(|| t(lang, "run.no_price").to_string(), |c| format!("${c:.4}")) }</td>
                                { links_cell(e.answer_link_check, lang) }
                            </tr>
                        }
                    }) }
                </tbody>
            </table>
        </div>
    }
}

/// A column's name: the engine's, with the surface for an `app` column (`豆包 · 应用`).
fn column_name(e: &EngineColumn, lang: Lang) -> String {
    let name = geo_core::provider::spec(e.engine).name;
    match e.surface {
        Surface::Api => name.to_string(),
        Surface::App => format!("{name} · {}", e.surface.label(lang)),
    }
}

/// How many of an engine's prompts that differ most between its surfaces are shown.
const GAP_PROMPTS: usize = 3;

/// "App vs API" (`surface-gaps`): one `surface-gap-row` per engine with both an API and an app
/// run (geo-core's `surfaceGaps`), or what to do when there is none: import captures on the
/// runs page, or run the API of an engine that only has app runs.
fn surface_card(c: &EngineComparison, lang: Lang) -> Html {
    let apps: Vec<&EngineColumn> = c.engines.iter().filter(|e| e.surface == Surface::App).collect();
    let body = if apps.is_empty() {
        html! { <div data-testid="surface-gaps-none">{ empty_with_link(lang, "engines.surface_none", Route::Runs, "engines.surface_import") }</div> }
    } else if c.surface_gaps.is_empty() {
        let names: Vec<&str> = apps.iter().map(|e| geo_core::provider::spec(e.engine).name).collect();
        let sep = lang.pick("、", ", ");
        html! { <p class="muted" data-testid="surface-gaps-unpaired">{ tf(lang, "engines.surface_unpaired", &[("engines", &names.join(sep))]) }</p> }
    } else {
        html! {
            // Scrolls sideways on a narrow window: the region takes the focus for the keyboard.
            <div class="table-wrap" tabindex="0" role="region" aria-label={t(lang, "engines.surface_gaps")}>
                <table class="engines-table surface-gaps">
                    <caption class="sr-only">{ t(lang, "engines.surface_gaps") }</caption>
                    <thead><tr>
                        <th scope="col">{ t(lang, "runs.engine") }</th>
                        <th scope="col" class="num">{ t(lang, "engines.surface_api") }</th>
                        <th scope="col" class="num">{ t(lang, "engines.surface_app") }</th>
                        <th scope="col" class="num">{ t(lang, "diff.delta") }</th>
                        <th scope="col">{ t(lang, "diff.reading") }</th>
                        <th scope="col" class="num">{ t(lang, "engines.surface_overlap") }</th>
                        <th scope="col">{ t(lang, "engines.surface_prompts") }</th>
                    </tr></thead>
                    <tbody>{ for c.surface_gaps.iter().map(|g| surface_gap_row(c, g, lang)) }</tbody>
                </table>
            </div>
        }
    };
    html! {
        <section class="card" data-testid="surface-gaps" aria-labelledby="surface-gaps-h">
            <h2 id="surface-gaps-h">{ t(lang, "engines.surface_gaps") }</h2>
            <p class="muted">{ t(lang, "engines.surface_help") }</p>
            { body }
        </section>
    }
}

/// One engine's gap between its API and app runs: the brand's mention rate on each, the
/// change with its 95 % interval and geo-core's reading of it (real or noise), the overlap of
/// their source domains and the prompts whose rates differ most.
fn surface_gap_row(c: &EngineComparison, g: &SurfaceGap, lang: Lang) -> Html {
    let m = &g.mention_rate;
    let direction = match m.direction() {
        geo_core::compare::Direction::Up => "up",
        geo_core::compare::Direction::Down => "down",
        geo_core::compare::Direction::Noise => "noise",
    };
    let text_of = |id: &str| c.prompts.iter().find(|p| p.prompt_id == id).map_or(id, |p| p.text.as_str()).to_string();
    html! {
        <tr key={g.engine.as_str()} data-testid="surface-gap-row" data-engine={g.engine.as_str()}
            data-delta={raw_f64(m.delta)} data-overlap={raw_f64(g.domain_overlap)} data-low={raw_f64(m.low)}
            data-high={raw_f64(m.high)} data-significant={m.significant.to_string()} data-api={raw_f64(m.against)}
            data-app={raw_f64(m.current)} data-api-run={g.api_run_id.clone()} data-app-run={g.app_run_id.clone()}>
            <th scope="row"><EngineLabel engine={g.engine} /></th>
            <td class="num" data-label={t(lang, "engines.surface_api")}>{ pct(m.against) }</td>
            <td class="num" data-label={t(lang, "engines.surface_app")}>{ pct(m.current) }</td>
            <td class="num" data-label={t(lang, "diff.delta")}>{ m.delta.map_or_else(|| "—".to_string(), |d| points_text(d, lang)) }<br />
                <small class="muted" title={t(lang, "diff.interval")}>{ interval_text(m, lang) }</small></td>
            <td data-label={t(lang, "diff.reading")}>
                <span class={classes!("change", direction)} data-testid="surface-gap-verdict" data-value={direction}>{ change_mark(m, lang) }</span></td>
            <td class="num" data-label={t(lang, "engines.surface_overlap")}>{ pct(g.domain_overlap) }</td>
            <td class="surface-prompts-cell" data-label={t(lang, "engines.surface_prompts")}>
                if g.prompts.is_empty() {
                    <span class="muted">{ t(lang, "engines.surface_no_prompts") }</span>
                } else {
                    <ol class="plain surface-prompts">
                        { for g.prompts.iter().take(GAP_PROMPTS).map(|p| html! {
                            <li data-testid="surface-gap-prompt" data-prompt={p.prompt_id.clone()} data-api={raw_f64(Some(p.api))}
                                data-app={raw_f64(Some(p.app))} data-delta={raw_f64(Some(p.delta))}>
                                { text_of(&p.prompt_id) }<br />
                                <small class="muted">{ tf(lang, "engines.surface_prompt", &[("api", &pct(Some(p.api))),
                                    ("app", &pct(Some(p.app))), ("delta", &points_text(p.delta, lang))]) }</small>
                            </li>
                        }) }
                    </ol>
                }
            </td>
        </tr>
    }
}

/// "answer links that do not exist: N of M" of an engine's run (`engine-links`, with
/// `data-not-found` and `data-checked`; empty when the run was never checked).
fn links_cell(check: Option<geo_core::model::LinkCounts>, lang: Lang) -> Html {
    let (not_found, checked) =
        check.map_or((String::new(), String::new()), |c| (c.not_found.to_string(), c.checked.to_string()));
    html! {
        <td class="num" data-label={t(lang, "engines.links")} data-testid="engine-links" data-not-found={not_found}
            data-checked={checked}>
            { match check {
                Some(c) => tf(lang, "engines.links_value", &[("n", &c.not_found.to_string()), ("m", &c.checked.to_string())]),
                None => t(lang, "engines.links_unchecked").to_string(),
            } }
        </td>
    }
}

/// `41.2%–78.9%`, or `—` without an interval.
fn interval(low: Option<f64>, high: Option<f64>) -> String {
    match (low, high) {
        (Some(l), Some(h)) => format!("{}–{}", pct(Some(l)), pct(Some(h))),
        _ => "—".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heat_steps() {
        assert_eq!(heat_class(None), "heat-none");
        assert_eq!(heat_class(Some(0.0)), "heat-0");
        assert_eq!(heat_class(Some(0.5)), "heat-2");
        assert_eq!(heat_class(Some(1.0)), "heat-4");
    }

    #[test]
    fn the_page_shows_the_cli_object() {
        let text = include_str!("../../../../fixtures/exports/engines.json");
        let env: ExportEnvelope = serde_json::from_str(text).unwrap();
        let project = env.projects[0].id.clone();
        let page = comparison_of(&env, &project).expect("runs to compare");
        assert_eq!(page, engines_for_export(&env, Some(&project)).unwrap());
        assert!(page.engines.len() >= 2);
        let empty = ExportEnvelope { runs: vec![], probes: vec![], ..env };
        assert_eq!(comparison_of(&empty, &project), None);
    }
}
