//! Dashboard: the figures of the selected run (cards with raw values, Wilson intervals and
//! numerator/denominator tooltips), insights, the project's trend across runs, share of
//! voice, top sources and per-prompt results with a breakdown by prompt tag. Every number
//! comes from geo-core's metrics; until there is a project, a run or a success, the page
//! says what to do next.

use crate::components::analytics::empty_with_link;
use crate::components::charts::{Bar, BarChart, LineChart, Mark, Series};
use crate::components::method::field_label;
use crate::components::metric_card::{ci_text, dec, pct, ratio_title, raw_f64, raw_u32, MetricCard};
use crate::components::pager::{page_bounds, use_page, Pager, PAGE_SIZE};
use crate::components::run_data::{use_run_data, Figures, RunData, RunDataProps, SharedRunData};
use crate::components::summary_progress::SummaryProgress;
use crate::components::table::{head_cells, table, Col};
use crate::components::{Deferred, EmptyState, NavLink};
use crate::hooks::{use_app, Fetch};
use crate::i18n::{t, tf};
use crate::routes::{DetailQuery, Route};
use geo_core::compare::{self, RunDiff};
use geo_core::metrics::{wilson_interval, RunMetrics};
use geo_core::model::{tags, Lang, Run};
use yew::prelude::*;
use yew_router::prelude::Link;

/// The dashboard page.
#[function_component]
pub fn DashboardPage() -> Html {
    let app = use_app();
    let lang = app.lang;
    let data = use_run_data(Figures::Dashboard);
    // `ready` once the figures of the shown run are on the page (an outside test waits for it).
    let (state, shown_run) = match &data {
        Fetch::Ready(d) => ("ready", (**d).as_ref().and_then(|d| d.metrics.as_ref()).map(|m| m.run_id.clone())),
        Fetch::Failed(_) => ("ready", None),
        _ => ("loading", None),
    };
    let body = data.view(lang, |d| match (**d).as_ref() {
        None => empty_with_link(lang, "dashboard.no_project", Route::Projects, "projects.new"),
        Some(d) => match &d.metrics {
            None => empty_with_link(lang, "dashboard.empty", Route::Run, "nav.run"),
            Some(m) => dashboard_body(d, m, lang),
        },
    });
    html! {
        <section class="analytics" data-testid="dashboard" data-state={state} data-run={shown_run.unwrap_or_default()}>
            <h1>{ t(lang, "dashboard.title") }</h1>
            if state == "loading" { <SummaryProgress {lang} /> }
            { body }
        </section>
    }
}

fn run_heading(run: Option<&Run>, m: &RunMetrics, lang: Lang) -> Html {
    let when = run.map_or("", |r| r.created_at.as_str());
    let model = run.map_or("", |r| r.config.model.as_str());
    html! {
        <p class="muted">{ tf(lang, "dash.run_line", &[("id", &m.run_id), ("at", when), ("model", model),
            ("n", &m.probe_count.to_string())]) }</p>
    }
}

fn dashboard_body(d: &SharedRunData, m: &RunMetrics, lang: Lang) -> Html {
    let run = d.run();
    if m.success_count == 0 {
        let id = m.run_id.clone();
        return html! {
            <>
                { run_heading(run, m, lang) }
                <EmptyState text={tf(lang, "dash.no_success", &[("n", &m.probe_count.to_string()), ("f", &m.failed_count.to_string())])}>
                    <NavLink to={Route::RunDetail { id }} class="button">{ t(lang, "dash.open_run") }</NavLink>
                </EmptyState>
            </>
        };
    }
    let c = &m.counts;
    let s = m.success_count;
    html! {
        <>
            { run_heading(run, m, lang) }
            <div class="metric-grid">
                <MetricCard testid="metric-mention-rate" label={t(lang, "dash.mention_rate")} display={pct(m.mention_rate)}
                    raw={raw_f64(m.mention_rate)} ci={ci_text(m.mention_rate_ci)} title={ratio_title(c.mention_count, s, m.mention_rate_ci, lang)} />
                <MetricCard testid="metric-first-mention-rate" label={t(lang, "dash.first_mention_rate")} display={pct(m.first_mention_rate)}
                    raw={raw_f64(m.first_mention_rate)} ci={ci_text(m.first_mention_rate_ci)} title={ratio_title(c.first_mention_count, s, m.first_mention_rate_ci, lang)} />
                <MetricCard testid="metric-avg-order" label={t(lang, "dash.avg_order")} display={dec(m.avg_order)}
                    raw={raw_f64(m.avg_order)} title={tf(lang, "dash.mean_over", &[("n", &c.mention_count.to_string())])} hint={t(lang, "dash.avg_order_hint")} />
                <MetricCard testid="metric-avg-list-position" label={t(lang, "dash.avg_list_position")} display={dec(m.avg_list_position)}
                    raw={raw_f64(m.avg_list_position)} title={tf(lang, "dash.mean_over", &[("n", &c.list_position_count.to_string())])} hint={t(lang, "dash.avg_list_hint")} />
                <MetricCard testid="metric-owned-visibility" label={t(lang, "dash.owned_visibility")} display={pct(m.owned_visibility)}
                    raw={raw_f64(m.owned_visibility)} ci={ci_text(m.owned_visibility_ci)} title={ratio_title(c.owned_probe_count, s, m.owned_visibility_ci, lang)} />
                <MetricCard testid="metric-owned-best-rank" label={t(lang, "dash.owned_best_rank")}
                    display={m.owned_best_rank.map_or_else(|| "—".to_string(), |r| format!("#{r}"))}
                    raw={raw_u32(m.owned_best_rank)} hint={t(lang, "dash.owned_best_rank_hint")} />
                <MetricCard testid="metric-source-stability" label={t(lang, "dash.source_stability")} display={pct(m.source_stability)}
                    raw={raw_f64(m.source_stability)} title={tf(lang, "dash.over_prompts", &[("n", &c.stability_prompt_count.to_string())])} hint={t(lang, "dash.source_stability_hint")} />
                <MetricCard testid="metric-unique-domains" label={t(lang, "dash.unique_domains")} display={m.unique_domains.to_string()}
                    raw={m.unique_domains.to_string()} title={tf(lang, "dash.occurrences_total", &[("n", &c.occurrence_count.to_string())])} />
                <MetricCard testid="metric-answer-link-overlap" label={t(lang, "dash.answer_link_overlap")} display={pct(m.answer_link_overlap)}
                    raw={raw_f64(m.answer_link_overlap)} title={ratio_title(c.answer_link_in_sources_count, c.answer_link_count, None, lang)} />
                <MetricCard testid="metric-success-count" label={t(lang, "dash.success_count")}
                    display={format!("{} / {}", m.success_count, m.probe_count)} raw={m.success_count.to_string()}
                    title={tf(lang, "dash.success_title", &[("s", &s.to_string()), ("f", &m.failed_count.to_string()), ("c", &c.cancelled_count.to_string())])}
                    hint={tf(lang, "dash.failed_n", &[("n", &m.failed_count.to_string())])} />
                <MetricCard testid="metric-estimated-cost" label={t(lang, "dash.cost")} display={m.estimated_cost_usd.map_or_else(|| "—".to_string(), |c| format!("${c:.4}"))}
                    raw={raw_f64(m.estimated_cost_usd)}
                    hint={t(lang, if m.estimated_cost_usd.is_some() { "dash.cost_hint" } else { "dash.cost_unknown" })} />
            </div>
            { comparison(d, lang) }
            { insights(m, lang) }
            <div class="chart-grid">
                { trend(d, lang) }
                { share_of_voice(run, m, lang) }
            </div>
            { top_sources(m, lang) }
            { tag_table(m, lang) }
            <PromptTable data={d.clone()} />
        </>
    }
}

/// The comparison's columns: the metric, both runs' values, the change, its interval and its reading.
const DIFF_COLS: &[Col] = &[
    ("diff.metric", false),
    ("diff.previous", true),
    ("diff.current", true),
    ("diff.delta", true),
    ("diff.interval", true),
    ("diff.reading", false),
];

/// The run against its previous run: the verdict, then each headline metric's delta with
/// its 95 % interval and whether it is a real change or within noise (geo-core's comparison,
/// the same as `geo-probe diff`).
fn comparison(d: &RunData, lang: Lang) -> Html {
    let Some(diff) = d.diff.as_ref() else {
        return html! {
            <section class="card" aria-labelledby="diff-h">
                <h2 id="diff-h">{ t(lang, "diff.title") }</h2>
                <p class="muted" data-testid="diff-none">{ t(lang, "diff.none") }</p>
            </section>
        };
    };
    let previous_at =
        diff.context.against_created_at.get(..16).unwrap_or(&diff.context.against_created_at).replace('T', " ");
    let verdict = html! {
        <span class={format!("verdict verdict-{}", diff.verdict)} data-testid="diff-verdict" data-value={diff.verdict.as_str()}>
            { compare::verdict_label(diff.verdict, lang) }
        </span>
    };
    html! {
        <section class="card" aria-labelledby="diff-h">
            <div class="row spread">
                <h2 id="diff-h">{ t(lang, "diff.title") }</h2>
                if diff.comparable { { verdict.clone() } }
            </div>
            // Runs measured differently: said first, above the verdict.
            if !diff.comparable {
                { not_comparable(diff, lang) }
                <div class="row">{ verdict }</div>
            }
            <p class="muted">
                { tf(lang, "diff.against", &[("id", &diff.against_id), ("at", &previous_at)]) }
                { " " }{ compare::verdict_sentence(diff.verdict, lang) }
            </p>
            { table(t(lang, "diff.title"), head_cells(lang, DIFF_COLS), html! {
                { for diff.metrics.iter().map(|c| {
                    let name = c.name.unwrap_or("");
                    let mark = match c.direction() {
                        compare::Direction::Up => "change up",
                        compare::Direction::Down => "change down",
                        compare::Direction::Noise => "change noise",
                    };
                    html! {
                        <tr data-testid="diff-row" data-metric={name} data-delta={raw_f64(c.delta)}
                            data-low={raw_f64(c.low)} data-high={raw_f64(c.high)}
                            data-significant={if c.significant { "true" } else { "false" }}>
                            <th scope="row">{ compare::metric_label(name, lang) }</th>
                            <td class="num" title={ratio_title(c.against_count, c.against_n, None, lang)}>{ pct(c.against) }</td>
                            <td class="num" title={ratio_title(c.current_count, c.current_n, None, lang)}>{ pct(c.current) }</td>
                            <td class="num">{ c.delta.map_or_else(|| "—".to_string(), |v| compare::points_text(v, lang)) }</td>
                            <td class="num">{ compare::interval_text(c, lang) }</td>
                            <td><span class={mark}>{ compare::change_mark(c, lang) }</span></td>
                        </tr>
                    }
                }) }
            }) }
        </section>
    }
}

/// What the comparison says first when the two runs were measured differently (nothing when
/// they are comparable): geo-core's paragraph naming the changed `method` keys, then each
/// change with both runs' values (`diff-method-change`, the rows of `methodChanges`).
fn not_comparable(diff: &RunDiff, lang: Lang) -> Html {
    let Some(paragraph) = compare::not_comparable_paragraph(diff, lang) else { return html! {} };
    html! {
        <div class="method-warning" role="note" data-testid="diff-not-comparable">
            <p>{ strong_spans(&paragraph) }</p>
            <ul class="method-changes">
                { for diff.method_changes.iter().map(|c| html! {
                    <li data-testid="diff-method-change" data-field={c.field}
                        data-against={c.against.to_string()} data-current={c.current.to_string()}>
                        <strong>{ field_label(c.field, lang).to_string() }</strong>{ " " }<code class="small">{ c.field }</code>{ ": " }
                        <span class="method-before">{ compare::value_text(&c.against) }</span>
                        { " → " }
                        <span class="method-after">{ compare::value_text(&c.current) }</span>
                    </li>
                }) }
            </ul>
        </div>
    }
}

/// geo-core's Markdown sentence with its `**bold**` spans as `<strong>` (the rest as text).
fn strong_spans(text: &str) -> Html {
    html! {
        { for text.split("**").enumerate().map(|(i, part)| if i % 2 == 1 {
            html! { <strong>{ part.to_string() }</strong> }
        } else {
            html! { { part.to_string() } }
        }) }
    }
}

fn insights(m: &RunMetrics, lang: Lang) -> Html {
    if m.insights.is_empty() {
        return html! {};
    }
    html! {
        <section class="card" aria-labelledby="insights-h">
            <h2 id="insights-h">{ t(lang, "dash.insights") }</h2>
            <ul class="insights">
                { for m.insights.iter().map(|i| html! {
                    <li data-testid="insight" data-kind={i.kind.clone()} class={format!("insight insight-{}", i.kind)}>
                        <strong>{ i.title_in(lang).to_string() }</strong>
                        <p>{ i.detail_in(lang).to_string() }</p>
                    </li>
                }) }
            </ul>
        </section>
    }
}

fn trend(d: &RunData, lang: Lang) -> Html {
    if d.project().is_none() {
        return html! {};
    }
    let points = &d.trend;
    // Month-day, with the time when two runs share a day.
    let day = |at: &str| at.get(5..10).unwrap_or(at).to_string();
    let same_day = points.windows(2).any(|w| day(&w[0].created_at) == day(&w[1].created_at));
    let labels: Vec<String> = points
        .iter()
        .map(|p| {
            if same_day {
                p.created_at.get(5..16).unwrap_or(&p.created_at).replace('T', " ")
            } else {
                day(&p.created_at)
            }
        })
        .collect();
    let series = vec![
        Series {
            label: t(lang, "dash.mention_rate").to_string(),
            values: points.iter().map(|p| p.mention_rate).collect(),
            // Each run's 95 % Wilson interval: how far its mention rate could be from the truth.
            band: points.iter().map(|p| wilson_interval(p.mention_count, p.success_count)).collect(),
        },
        Series {
            label: t(lang, "dash.first_mention_rate").to_string(),
            values: points.iter().map(|p| p.first_mention_rate).collect(),
            band: Vec::new(),
        },
        Series {
            label: t(lang, "dash.owned_visibility").to_string(),
            values: points.iter().map(|p| p.owned_visibility).collect(),
            band: Vec::new(),
        },
    ];
    // The trend is that of the run's engine and surface (`trend_of_surface`).
    let engine = d.run().map_or_else(String::new, |r| {
        format!("{} {}", geo_core::provider::spec(r.config.engine).name, r.surface.label(lang))
    });
    let engine = engine.as_str();
    let mut desc = tf(lang, "dash.trend_desc", &[("n", &points.len().to_string()), ("engine", engine)]);
    let (marks, breaks_note) = method_marks(d, &labels, lang);
    if let Some(note) = &breaks_note {
        desc = format!("{desc} {note}");
    }
    // A year of daily runs draws hundreds of points: after the cards are on screen.
    let placeholder = html! { <p class="muted" aria-busy="true">{ t(lang, "common.loading") }</p> };
    html! {
        <section class="card">
            <Deferred {placeholder}>
                <LineChart testid="trend-chart" title={t(lang, "dash.trend")} {desc} x_labels={labels} {series} {marks}
                    mark_legend={t(lang, "dash.trend_break_legend")} />
            </Deferred>
            if points.len() < 2 { <p class="muted">{ t(lang, "dash.trend_one") }</p> }
            if let Some(note) = breaks_note { <p class="muted small" data-testid="trend-method-note">{ note }</p> }
            if d.trend_other_runs > 0 {
                <p class="muted" data-testid="trend-engine-note" data-engine={d.run().map(|r| r.config.engine.as_str())}
                   data-other-runs={d.trend_other_runs.to_string()}>
                    { tf(lang, "dash.trend_engine_note", &[("engine", engine), ("n", &d.trend_other_runs.to_string())]) }
                    { " " }<NavLink to={Route::Engines}>{ t(lang, "nav.engines") }</NavLink>
                </p>
            }
        </section>
    }
}

/// The trend's marks where the method changed (geo-core's `method_breaks`), each naming the
/// changed fields, and the sentence that explains them (`None` without a change).
fn method_marks(d: &RunData, labels: &[String], lang: Lang) -> (Vec<Mark>, Option<String>) {
    let mut items = Vec::new();
    let marks: Vec<Mark> = d
        .method_breaks
        .iter()
        .filter_map(|b| {
            let index = d.trend.iter().position(|p| p.run_id == b.run_id)?;
            let names: Vec<&str> = b.fields.iter().map(|f| field_label(f, lang)).collect();
            let names = names.join(lang.pick("、", ", "));
            let at = labels.get(index).map_or("", String::as_str);
            items.push(tf(lang, "dash.trend_break_item", &[("at", at), ("fields", &names)]));
            Some(Mark {
                index,
                title: tf(lang, "dash.trend_break_title", &[("at", at), ("fields", &names)]),
                testid: "trend-method-break",
                run: b.run_id.clone(),
                fields: b.fields.join(","),
            })
        })
        .collect();
    let note =
        (!items.is_empty()).then(|| tf(lang, "dash.trend_breaks", &[("list", &items.join(lang.pick("；", "; ")))]));
    (marks, note)
}

fn target_label(run: Option<&Run>, id: &str) -> String {
    run.and_then(|r| r.alias_snapshot.iter().find(|t| t.id == id)).map_or_else(|| id.to_string(), |t| t.label.clone())
}

fn share_of_voice(run: Option<&Run>, m: &RunMetrics, lang: Lang) -> Html {
    let bars: Vec<Bar> = m
        .share_of_voice
        .0
        .iter()
        .map(|(id, v)| {
            let n = m.share_of_voice_counts.get(id).copied().unwrap_or(0);
            Bar {
                label: target_label(run, id),
                fraction: v.unwrap_or(0.0),
                display: pct(*v),
                testid: "sov-row".into(),
                target: id.clone(),
                raw: raw_f64(*v),
                title: ratio_title(n, m.counts.share_of_voice_total, None, lang),
            }
        })
        .collect();
    html! {
        <section class="card">
            <BarChart testid="sov-chart" title={t(lang, "dash.sov")} desc={t(lang, "dash.sov_desc")} {bars} />
        </section>
    }
}

/// The top sources' columns.
const TOP_SOURCE_COLS: &[Col] =
    &[("src.domain", false), ("src.probe_rate", true), ("src.occurrences", true), ("src.channel", false)];

fn top_sources(m: &RunMetrics, lang: Lang) -> Html {
    html! {
        <section class="card" aria-labelledby="top-src-h">
            <div class="row spread">
                <h2 id="top-src-h">{ t(lang, "dash.top_sources") }</h2>
                <NavLink to={Route::Sources}>{ t(lang, "dash.all_sources") }</NavLink>
            </div>
            if m.domains.is_empty() {
                <p class="muted">{ t(lang, "dash.no_sources") }</p>
            } else {
                { table(t(lang, "dash.top_sources"), head_cells(lang, TOP_SOURCE_COLS), html! {
                    { for m.domains.iter().take(8).map(|dm| html! {
                        <tr data-testid="top-source" data-domain={dm.domain.clone()}>
                            <td>{ dm.domain.clone() }</td>
                            <td class="num">{ pct(dm.occurrence_rate) }</td>
                            <td class="num">{ dm.occurrences }</td>
                            <td>{ geo_core::analysis::platforms::channel_label(&dm.channel, lang).to_string() }</td>
                        </tr>
                    }) }
                }) }
            }
        </section>
    }
}

/// The per-tag figures' columns.
const TAG_COLS: &[Col] = &[
    ("dash.tag", false),
    ("dash.success_count", true),
    ("dash.mention_rate", true),
    ("dash.first_mention_rate", true),
    ("dash.avg_order", true),
];

/// The run's figures by prompt tag: geo-core's `tags` rows (one per tag of the snapshot, in
/// order of first appearance).
fn tag_table(m: &RunMetrics, lang: Lang) -> Html {
    html! {
        <section class="card" aria-labelledby="tags-h">
            <h2 id="tags-h">{ t(lang, "dash.by_tag") }</h2>
            if m.tags.is_empty() {
                <p class="muted">{ t(lang, "dash.no_tags") }</p>
            } else {
                { table(t(lang, "dash.by_tag"), head_cells(lang, TAG_COLS), html! {
                    { for m.tags.iter().map(|tg| html! {
                        <tr data-testid="tag-row" data-tag={tg.tag.clone()} data-value={raw_f64(tg.mention_rate)}>
                            <th scope="row">{ tags::label(&tg.tag, lang).to_string() }</th>
                            <td class="num">{ tg.success_count }</td>
                            <td class="num" title={ratio_title(tg.mention_count, tg.success_count, tg.mention_rate_ci, lang)}>{ pct(tg.mention_rate) }</td>
                            <td class="num">{ pct(tg.first_mention_rate) }</td>
                            <td class="num">{ dec(tg.avg_order) }</td>
                        </tr>
                    }) }
                }) }
            }
        </section>
    }
}

/// The per-prompt figures' columns.
const PROMPT_COLS: &[Col] = &[
    ("dash.prompt", false),
    ("dash.success_count", true),
    ("dash.mention_rate", true),
    ("dash.first_mention_rate", true),
    ("dash.avg_order", true),
];

/// Per-prompt figures of the run, 50 rows a page; each prompt links to its probes.
#[function_component]
fn PromptTable(p: &RunDataProps) -> Html {
    let lang = use_app().lang;
    let (page, set_page) = use_page(());
    let d = &p.data;
    let (Some(run), Some(m)) = (d.run(), d.metrics.as_ref()) else { return html! {} };
    let (page, from, to) = page_bounds(m.prompts.len(), page, PAGE_SIZE);
    html! {
        <>
        <section class="card" aria-labelledby="prompts-h">
            <h2 id="prompts-h">{ t(lang, "dash.prompts") }</h2>
            { table(t(lang, "dash.prompts"), head_cells(lang, PROMPT_COLS), html! {
                { for m.prompts[from..to].iter().map(|p| html! {
                    <tr data-testid="prompt-metric-row" data-prompt={p.prompt_id.clone()} data-value={raw_f64(p.mention_rate)}>
                        <td>
                            <span data-testid="prompt-probes-link">
                                <Link<Route, DetailQuery> to={Route::RunDetail { id: run.id.clone() }}
                                    query={Some(DetailQuery { prompt: Some(p.prompt_id.clone()), probe: None })}>{ p.text.clone() }</Link<Route, DetailQuery>>
                            </span>
                            { for p.tags.iter().map(|tg| html! { <span class="chip">{ tags::label(tg, lang).to_string() }</span> }) }
                        </td>
                        <td class="num">{ format!("{} / {}", p.success_count, p.probe_count) }</td>
                        <td class="num" title={ratio_title(p.mention_count, p.success_count, p.mention_rate_ci, lang)}>
                            { pct(p.mention_rate) }
                            if p.mention_rate_ci.is_some() { <div class="muted small">{ ci_text(p.mention_rate_ci) }</div> }
                        </td>
                        <td class="num" title={ratio_title(p.first_mention_count, p.success_count, None, lang)}>{ pct(p.first_mention_rate) }</td>
                        <td class="num">{ dec(p.avg_order) }</td>
                    </tr>
                }) }
            }) }
            <Pager total={m.prompts.len()} {page} on_page={set_page} scope="prompts" label={t(lang, "pager.prompts")} {lang} />
        </section>
        </>
    }
}
