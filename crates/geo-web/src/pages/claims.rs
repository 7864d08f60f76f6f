//! What they say (「说了什么」): for the selected run, what its answers say about the brand and
//! its competitors, from geo-core's `said::claims_report` over the run's stored probes (the
//! object of `geo-probe claims`): each fact of the run's frozen fact sheet with its counts
//! and every contradicting and unverified sentence quoted, with the engine, the prompt and the
//! pages behind it (cited ones marked); the review queue of flagged sentences by target and
//! kind; the share of answers mentioning each target that flag a sentence about it, with its
//! Wilson interval. Every quote opens the probe drawer with its sentence marked.
//!
//! A run made before the project had a fact sheet can take the current one ("apply",
//! [`apply_fact_sheet`]): the run is written with it as its `factSnapshot`, and the write
//! analyses its stored probes again in the same transaction, as a new alias snapshot does
//! (`geo_core::export::overwrite`).

use crate::components::analytics::{empty_with_link, run_analytics_page};
use crate::components::metric_card::{ci_text, pct, raw_f64};
use crate::components::pager::{page_bounds, use_page, Pager, PAGE_SIZE};
use crate::components::probe_drawer::{drawer_marked, mark_attr, OpenProbe};
use crate::components::run_data::{use_run_data, without_run, Figures, RunData, SharedRunData};
use crate::components::table::captioned_table;
use crate::components::{safe_link, EmptyState};
use crate::hooks::{toast, use_app};
use crate::i18n::{t, tf};
use crate::repo::{Batch, Repository};
use crate::routes::Route;
use crate::state::ToastKind;
use geo_core::model::{Lang, Localized, Probe, Project, RiskKind, Run, Verdict};
use geo_core::said::markdown::{kind_label, verdict_label};
use geo_core::said::{claims_report, ClaimRow, ClaimsReport, FactReport, FactsFrom, FlagRow};
use yew::prelude::*;

/// Claims quoted per fact before "show all".
const QUOTES_SHOWN: usize = 20;

/// What the shown run's answers say, as `geo-probe claims --run ID` reports it from the
/// same records.
pub fn report_of(d: &RunData) -> Option<ClaimsReport> {
    let run = d.run()?;
    let probes: Vec<&Probe> = d.run_probes().collect();
    Some(claims_report(run, &probes, None))
}

/// Freezes project's current fact sheet into run `run_id`, which has none, and writes the
/// run: the write analyses its stored probes again with it and recomputes its summary, in one
/// transaction. Refused when the run already has a sheet, the project has none, or the
/// sheet does not fit the run's targets (geo-core's rules against its `aliasSnapshot`).
pub async fn apply_fact_sheet<R: Repository>(repo: &R, run_id: &str) -> Result<(), Localized> {
    let stored = |e: crate::repo::RepoError| Localized::new(e.message(Lang::Zh), e.message(Lang::En));
    let run =
        repo.get_run(run_id).await.map_err(stored)?.ok_or_else(|| {
            Localized::new("这个批次已不存在：请刷新页面", "this run no longer exists: reload the page")
        })?;
    if run.fact_snapshot.is_some() {
        return Err(Localized::new(
            "这个批次已有冻结的事实表，不会被替换",
            "this run already has its own fact sheet, which is never replaced",
        ));
    }
    let project = repo.get_project(&run.project_id).await.map_err(stored)?;
    let Some(sheet) = project.as_ref().and_then(Project::fact_snapshot) else {
        return Err(Localized::new(
            "项目还没有事实表：请先在项目页添加事实",
            "the project has no fact sheet: add facts on the projects page first",
        ));
    };
    geo_core::project::validate_fact_sheet(&sheet.facts, &sheet.watch_terms, &run.alias_snapshot)
        .map_err(|p| p.localized())?;
    let applied = Run { fact_snapshot: Some(sheet), ..run };
    repo.put_many(&Batch { runs: vec![applied], ..Batch::default() }).await.map_err(stored)
}

/// The page.
#[function_component]
pub fn ClaimsPage() -> Html {
    let app = use_app();
    let lang = app.lang;
    let data = use_run_data(Figures::Claims);
    let open: OpenProbe = use_state(|| None::<String>);
    let marked = use_state(|| None::<(u32, u32)>);
    let expanded = use_state(Vec::<String>::new);
    let filter = use_state(|| (String::new(), String::new()));
    let (flag_page, set_flag_page) = use_page((*filter).clone());
    let shown: Option<SharedRunData> = data.ready().and_then(|d| d.clone());
    let claims = use_memo(shown.clone(), |d| d.as_ref().and_then(|d| report_of(d)));
    let run = shown.as_ref().and_then(|d| d.run().cloned());
    let on_apply = {
        let app = app.clone();
        let run_id = run.as_ref().map(|r| r.id.clone());
        Callback::from(move |_: MouseEvent| {
            let (Some(repo), Some(id)) = (app.repo().cloned(), run_id.clone()) else { return };
            let app = app.clone();
            wasm_bindgen_futures::spawn_local(async move {
                match apply_fact_sheet(&repo, &id).await {
                    Ok(()) => toast(&app, ToastKind::Ok, t(app.lang, "said.applied").to_string()),
                    Err(m) => toast(&app, ToastKind::Error, m.get(app.lang).to_string()),
                }
            });
        })
    };
    let body = match (&shown, &run, (*claims).as_ref()) {
        (Some(d), Some(run), Some(r)) => {
            let v = View { r, d, run, open: &open, marked: &marked, lang };
            html! {
                <>
                    <p class="muted" data-testid="claims-sheet" data-value={facts_from(r.facts_from)}>
                        { format!("{} · {}", geo_core::provider::spec(r.engine).name, t(lang, sheet_key(r.facts_from))) }
                    </p>
                    { facts_section(&v, &expanded, on_apply.clone()) }
                    { flags_section(&v, &filter, flag_page, set_flag_page.clone()) }
                    { rates_section(&v) }
                    { drawer_marked(&open, *marked, d.run_probes(), run, lang) }
                </>
            }
        }
        _ => without_run(&data, lang),
    };
    run_analytics_page(lang, "claims", data.ready().is_some(), run.map(|r| r.id), "said.title", "said.help", body)
}

/// The contract's word for where the sheet came from.
fn facts_from(f: FactsFrom) -> &'static str {
    match f {
        FactsFrom::Run => "run",
        FactsFrom::File => "file",
        FactsFrom::None => "none",
    }
}

fn sheet_key(f: FactsFrom) -> &'static str {
    match f {
        FactsFrom::None => "said.sheet_none",
        _ => "said.sheet_run",
    }
}

/// What every section reads.
struct View<'a> {
    r: &'a ClaimsReport,
    d: &'a RunData,
    run: &'a Run,
    open: &'a OpenProbe,
    marked: &'a UseStateHandle<Option<(u32, u32)>>,
    lang: Lang,
}

impl View<'_> {
    fn target(&self, id: &str) -> String {
        self.run.alias_snapshot.iter().find(|t| t.id == id).map_or_else(|| id.to_string(), |t| t.label.clone())
    }

    /// Whether the run has a successful probe (geo-core's count).
    fn has_success(&self) -> bool {
        self.d.metrics.as_ref().is_some_and(|m| m.success_count > 0)
    }

    /// A quoted sentence of probe `probe` that opens its drawer with `start..end` marked.
    fn quote(&self, probe: &str, sentence: &str, span: (u32, u32), testid: &'static str) -> Html {
        let (open, marked) = (self.open.clone(), self.marked.clone());
        let id = probe.to_string();
        let onclick = Callback::from(move |_: MouseEvent| {
            marked.set(Some(span));
            open.set(Some(id.clone()));
        });
        // The accessible name starts with the visible text (WCAG 2.5.3).
        let name = tf(self.lang, "said.open_quote", &[("s", sentence)]);
        html! {
            <button type="button" class="link quote" data-testid={testid} data-open-probe={probe.to_string()}
                data-open-mark={mark_attr(span)} aria-label={name} {onclick}>{ format!("「{sentence}」") }</button>
        }
    }

    /// Engine, prompt and answer of probe `probe_id` (prompt `prompt_id`).
    fn origin(&self, probe_id: &str, prompt_id: &str) -> Html {
        let repeat = self.d.run_probes().find(|p| p.id == probe_id).map(|p| (p.repeat_index + 1).to_string());
        html! {
            <div class="muted small">
                { geo_core::provider::spec(self.r.engine).name }{ " · " }{ self.d.prompt_text(prompt_id) }
                if let Some(r) = repeat { { " · " }{ tf(self.lang, "act.answer", &[("r", &r)]) } }
            </div>
        }
    }
}

/// One claim: its verdict, the quote, where it comes from, its values and the pages behind it.
fn claim_row(v: &View<'_>, c: &ClaimRow) -> Html {
    let lang = v.lang;
    html! {
        <li data-testid="claim-row" data-probe={c.probe_id.clone()} data-verdict={c.claim.verdict.as_str()} data-fact={c.claim.fact_id.clone()}>
            <span class={classes!("chip", format!("verdict-{}", c.claim.verdict.as_str()))}>{ verdict_label(c.claim.verdict, lang) }</span>
            { " " }{ v.quote(&c.probe_id, &c.claim.sentence, (c.claim.start, c.claim.end), "claim-quote") }
            { v.origin(&c.probe_id, &c.prompt_id) }
            if !c.claim.values.is_empty() {
                <div class="small">{ tf(lang, "drawer.values", &[("v", &c.claim.values.join(", "))]) }</div>
            }
            if !c.sources.is_empty() {
                <ul class="plain small claim-sources" aria-label={t(lang, "said.sources")}>
                    { for c.sources.iter().map(|s| html! {
                        <li data-testid="claim-source" data-url={s.url.clone()} data-cited={s.cited.map_or("", |c| if c { "true" } else { "false" })}>
                            { safe_link(&s.url, &s.domain) }
                            if s.cited == Some(true) { { " " }<span class="chip cited-mark">{ t(lang, "drawer.cited_yes") }</span> }
                        </li>
                    }) }
                </ul>
            }
        </li>
    }
}

/// One fact's counts, each with its denominator (`claims-fact-row`).
fn fact_row(v: &View<'_>, f: &FactReport) -> Html {
    let (row, lang) = (&f.row, v.lang);
    let of = |n: u32| tf(lang, "said.n_of", &[("n", &n.to_string()), ("d", &row.probes_with_claim.to_string())]);
    html! {
        <tr data-testid="claims-fact-row" data-fact={row.fact_id.clone()} data-with-claim={row.probes_with_claim.to_string()}
            data-contradicts={row.contradicts.to_string()} data-consistent={row.consistent.to_string()}
            data-unverified={row.unverified.to_string()} data-value={raw_f64(row.contradiction_rate)}>
            <th scope="row">{ row.label.clone() }<div class="muted small">{ v.target(&row.target_id) }</div></th>
            <td class="num" data-label={t(lang, "said.with_claim")}>{ row.probes_with_claim }</td>
            <td class="num" data-label={t(lang, "said.consistent")}>{ of(row.consistent) }</td>
            <td class="num" data-label={t(lang, "said.contradicts")}>{ of(row.contradicts) }</td>
            <td class="num" data-label={t(lang, "said.unverified")}>{ of(row.unverified) }</td>
            <td class="num" data-label={t(lang, "said.rate")}>{ pct(row.contradiction_rate) }</td>
        </tr>
    }
}

/// A fact's contradicting, then unverified claims, quoted (the first [`QUOTES_SHOWN`] until
/// "show all").
fn fact_quotes(v: &View<'_>, f: &FactReport, expanded: &UseStateHandle<Vec<String>>) -> Html {
    let lang = v.lang;
    let quoted: Vec<&ClaimRow> = [Verdict::Contradicts, Verdict::Unverified]
        .into_iter()
        .flat_map(|verdict| f.claims.iter().filter(move |c| c.claim.verdict == verdict))
        .collect();
    if quoted.is_empty() {
        return html! {};
    }
    let all = expanded.contains(&f.row.fact_id);
    let more = quoted.len().saturating_sub(QUOTES_SHOWN);
    let show_all = {
        let (expanded, id) = (expanded.clone(), f.row.fact_id.clone());
        Callback::from(move |_: MouseEvent| {
            let mut next = (*expanded).clone();
            next.push(id.clone());
            expanded.set(next);
        })
    };
    html! {
        <section class="fact-quotes" aria-label={tf(lang, "said.quotes_of", &[("f", &f.row.label)])}>
            <h3>{ tf(lang, "said.quotes_of", &[("f", &f.row.label)]) }</h3>
            <ul class="plain quotes">
                { for quoted.iter().take(if all { quoted.len() } else { QUOTES_SHOWN }).map(|c| claim_row(v, c)) }
            </ul>
            if more > 0 && !all {
                <button type="button" class="secondary" data-testid="claims-show-all" data-fact={f.row.fact_id.clone()} onclick={show_all}>
                    { tf(lang, "said.show_all", &[("n", &quoted.len().to_string())]) }</button>
            }
        </section>
    }
}

fn facts_section(v: &View<'_>, expanded: &UseStateHandle<Vec<String>>, on_apply: Callback<MouseEvent>) -> Html {
    let lang = v.lang;
    let body = if v.r.facts_from == FactsFrom::None {
        let project_sheet = v.d.project().and_then(Project::fact_snapshot);
        match project_sheet {
            Some(sheet) => html! {
                <EmptyState text={tf(lang, "said.apply_help", &[("n", &sheet.facts.len().to_string()), ("w", &sheet.watch_terms.len().to_string())])}>
                    <button type="button" data-testid="claims-apply-facts" onclick={on_apply}>{ t(lang, "said.apply") }</button>
                </EmptyState>
            },
            None => empty_with_link(lang, "said.no_sheet", Route::Projects, "said.to_projects"),
        }
    } else if v.r.facts.is_empty() {
        html! { <p class="muted" data-testid="claims-no-facts">{ t(lang, "said.watch_only") }</p> }
    } else if !v.has_success() {
        html! { <p class="muted" data-testid="claims-no-success">{ t(lang, "act.no_success") }</p> }
    } else {
        let cols = [
            ("said.fact", false),
            ("said.with_claim", true),
            ("said.consistent", true),
            ("said.contradicts", true),
            ("said.unverified", true),
            ("said.rate", true),
        ];
        html! {
            <>
                { captioned_table(lang, "claims-facts", "said.facts", &cols, html! {
                    <tbody>{ for v.r.facts.iter().map(|f| fact_row(v, f)) }</tbody>
                }) }
                { for v.r.facts.iter().map(|f| fact_quotes(v, f, expanded)) }
            </>
        }
    };
    html! {
        <section class="card" aria-labelledby="said-facts-h">
            <h2 id="said-facts-h">{ t(lang, "said.facts") }</h2>
            <p class="muted">{ t(lang, "said.facts_help") }</p>
            { body }
        </section>
    }
}

/// The flags in the review queue's order: by target (the run's order), then kind
/// (negative, caution, watch), then as reported (probe order, then sentence).
fn queue<'a>(r: &'a ClaimsReport, run: &Run, kind: &str, target: &str) -> Vec<&'a FlagRow> {
    let mut out = Vec::new();
    for t in run.alias_snapshot.iter().map(|t| t.id.as_str()).filter(|t| target.is_empty() || *t == target) {
        for k in RiskKind::ALL.into_iter().filter(|k| kind.is_empty() || k.as_str() == kind) {
            out.extend(r.risk_flags.iter().filter(|f| f.flag.target_id == t && f.flag.kind == k));
        }
    }
    out
}

fn flags_section(
    v: &View<'_>,
    filter: &UseStateHandle<(String, String)>,
    page: usize,
    set_page: Callback<usize>,
) -> Html {
    let lang = v.lang;
    let (kind, target) = (**filter).clone();
    let title = t(lang, "said.queue").to_string();
    if v.r.risk_flags.is_empty() {
        let why = if v.has_success() { "said.queue_none" } else { "act.no_success" };
        return html! {
            <section class="card" aria-labelledby="said-queue-h">
                <h2 id="said-queue-h">{ title }</h2>
                <p class="muted" data-testid="claims-no-flags">{ t(lang, why) }</p>
            </section>
        };
    }
    let rows = queue(v.r, v.run, &kind, &target);
    let (page, from, to) = page_bounds(rows.len(), page, PAGE_SIZE);
    let on_kind = {
        let filter = filter.clone();
        Callback::from(move |e: Event| {
            let value = e.target_unchecked_into::<web_sys::HtmlSelectElement>().value();
            filter.set((value, filter.1.clone()));
        })
    };
    let on_target = {
        let filter = filter.clone();
        Callback::from(move |e: Event| {
            let value = e.target_unchecked_into::<web_sys::HtmlSelectElement>().value();
            filter.set((filter.0.clone(), value));
        })
    };
    html! {
        <section class="card" aria-labelledby="said-queue-h">
            <h2 id="said-queue-h">{ title }</h2>
            <p class="muted">{ t(lang, "said.queue_help") }</p>
            <div class="row filters">
                <label class="field inline">
                    <span class="label-text">{ t(lang, "said.kind") }</span>
                    <select data-testid="risk-kind-filter" onchange={on_kind}>
                        <option value="" selected={kind.is_empty()}>{ t(lang, "said.all") }</option>
                        { for RiskKind::ALL.iter().map(|k| html! { <option value={k.as_str()} selected={kind == k.as_str()}>{ kind_label(*k, lang) }</option> }) }
                    </select>
                </label>
                <label class="field inline">
                    <span class="label-text">{ t(lang, "said.target") }</span>
                    <select data-testid="risk-target-filter" onchange={on_target}>
                        <option value="" selected={target.is_empty()}>{ t(lang, "said.all") }</option>
                        { for v.run.alias_snapshot.iter().map(|t| html! { <option value={t.id.clone()} selected={target == t.id}>{ t.label.clone() }</option> }) }
                    </select>
                </label>
            </div>
            <ul class="plain quotes">
                { for rows[from..to].iter().map(|f| html! {
                    <li data-testid="risk-flag-row" data-probe={f.probe_id.clone()} data-target={f.flag.target_id.clone()}
                        data-kind={f.flag.kind.as_str()} data-cue={f.flag.cue.clone()}>
                        <span class={classes!("chip", format!("risk-{}", f.flag.kind.as_str()))}>{ kind_label(f.flag.kind, lang) }</span>
                        { " " }<strong>{ v.target(&f.flag.target_id) }</strong>{ " · " }{ tf(lang, "said.cue", &[("c", &f.flag.cue)]) }
                        <div>{ v.quote(&f.probe_id, &f.flag.sentence, (f.flag.start, f.flag.end), "risk-quote") }</div>
                        { v.origin(&f.probe_id, &f.prompt_id) }
                    </li>
                }) }
            </ul>
            <Pager total={rows.len()} {page} on_page={set_page} scope="flags" label={t(lang, "said.queue")} {lang} />
        </section>
    }
}

/// Per target: the answers mentioning it that flag a sentence about it (`flagCounts`).
fn rates_section(v: &View<'_>) -> Html {
    let lang = v.lang;
    let cols = [
        ("said.target", false),
        ("said.flagged", true),
        ("said.negative", true),
        ("said.caution", true),
        ("said.watch", true),
    ];
    html! {
        <section class="card" aria-labelledby="said-rates-h">
            <h2 id="said-rates-h">{ t(lang, "said.rates") }</h2>
            <p class="muted">{ t(lang, "said.rates_help") }</p>
            { captioned_table(lang, "risk-rates", "said.rates", &cols, html! {
                <tbody>
                    { for v.r.flag_counts.iter().map(|c| {
                        let of = |n: u32| tf(lang, "said.n_of", &[("n", &n.to_string()), ("d", &c.mentioning_count.to_string())]);
                        let ci = c.flagged_low.zip(c.flagged_high).map(|(lo, hi)| [lo, hi]);
                        html! {
                            <tr data-testid="risk-target-row" data-target={c.target_id.clone()} data-value={raw_f64(c.flagged_rate)}
                                data-low={raw_f64(c.flagged_low)} data-high={raw_f64(c.flagged_high)}
                                data-mentioning={c.mentioning_count.to_string()} data-flagged={c.flagged_count.to_string()}>
                                <th scope="row">{ v.target(&c.target_id) }</th>
                                <td class="num" data-label={t(lang, "said.flagged")}>
                                    { format!("{} ({})", pct(c.flagged_rate), of(c.flagged_count)) }
                                    if ci.is_some() { <div class="muted small">{ format!("95% CI {}", ci_text(ci)) }</div> }
                                </td>
                                <td class="num" data-label={t(lang, "said.negative")}>{ of(c.negative) }</td>
                                <td class="num" data-label={t(lang, "said.caution")}>{ of(c.caution) }</td>
                                <td class="num" data-label={t(lang, "said.watch")}>{ of(c.watch) }</td>
                            </tr>
                        }
                    }) }
                </tbody>
            }) }
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::repo::memory::MemoryRepo;
    use crate::repo::test_support::block_on;
    use geo_core::model::FactSnapshot;

    fn demo() -> geo_core::model::ExportEnvelope {
        let text = include_str!("../../../../demo/demo-data.json");
        let mut env = geo_core::export::parse_export(text, &Default::default()).unwrap();
        assert!(geo_core::analysis::analyze_envelope(&mut env).is_empty());
        env
    }

    /// A sheet about the demo brand: when it was founded and where it is.
    fn sheet(brand: &str) -> FactSnapshot {
        serde_json::from_value(serde_json::json!({
            "facts": [
                {"id": "founded", "targetId": brand, "label": "founded", "kind": "year", "cues": ["成立", "founded"], "value": 2021},
                {"id": "hq", "targetId": brand, "label": "hq", "kind": "text", "cues": ["总部"], "accepted": ["上海"], "rejected": ["杭州"]}
            ],
            "watchTerms": ["价格"]
        }))
        .unwrap()
    }

    #[test]
    fn the_page_shows_the_cli_object_for_the_demo() {
        let env = demo();
        let run_id = geo_core::export::default_run(&env).unwrap().id.clone();
        let data = RunData {
            env: std::rc::Rc::new(env.clone()),
            has_probes: true,
            metrics: Some(geo_core::metrics::metrics_for_export(&env, Some(&run_id)).unwrap().remove(0)),
            trend: vec![],
            trend_other_runs: 0,
            method_breaks: vec![],
            diff: None,
            positions: None,
            actions: None,
        };
        let page = report_of(&data).unwrap();
        assert_eq!(page, geo_core::said::claims_for_export(&env, Some(&run_id), None).unwrap());
        assert_eq!(page.facts_from, FactsFrom::Run, "the demo's runs carry its starter sheet");
        assert!(page.facts.iter().any(|f| f.row.probes_with_claim > 0), "the demo's answers speak of its facts");
    }

    #[test]
    fn applying_the_sheet_reanalyses_the_run_and_its_summary_in_one_write() {
        // The demo as it was before it had a fact sheet.
        let mut env = demo();
        env.projects[0].facts.clear();
        env.projects[0].watch_terms.clear();
        env.runs.iter_mut().for_each(|r| r.fact_snapshot = None);
        assert!(geo_core::analysis::analyze_envelope(&mut env).is_empty());
        let repo = MemoryRepo::new();
        let mut project = env.projects[0].clone();
        let run = env.runs.iter().find(|r| r.project_id == project.id).unwrap().clone();
        assert!(run.fact_snapshot.is_none());
        block_on(repo.put_many(&crate::repo::Batch::from(env.clone()))).unwrap();
        // No sheet in the project: refused, nothing written.
        let changes = repo.changes();
        assert!(block_on(apply_fact_sheet(&repo, &run.id)).unwrap_err().en.contains("no fact sheet"));
        // A fact about a target outside the run's alias snapshot: refused by geo-core's rules.
        let mut elsewhere = sheet("tgt_unknown");
        elsewhere.facts.truncate(1);
        project.facts = elsewhere.facts;
        block_on(repo.put_project(&project)).unwrap();
        assert!(block_on(apply_fact_sheet(&repo, &run.id)).unwrap_err().en.contains("tgt_unknown"));
        assert_eq!(repo.changes(), changes + 1, "only the project was written");

        let good = sheet(&project.brand.id);
        project.facts = good.facts.clone();
        project.watch_terms = good.watch_terms.clone();
        block_on(repo.put_project(&project)).unwrap();
        block_on(apply_fact_sheet(&repo, &run.id)).unwrap();
        let stored = block_on(repo.get_run(&run.id)).unwrap().unwrap();
        assert_eq!(stored.fact_snapshot.as_ref(), Some(&good));
        let probes = block_on(repo.probes_by_run(&run.id)).unwrap();
        assert!(probes.iter().any(|p| !p.claims.is_empty()), "the stored answers were analysed with the sheet");
        let snapshot = block_on(repo.snapshot("t")).unwrap();
        let want = geo_core::metrics::metrics_for_export(&snapshot, Some(&run.id)).unwrap().remove(0);
        let got = block_on(repo.run_metrics(&run.id)).unwrap().unwrap();
        assert_eq!(got, want);
        assert_eq!(got.facts.len(), 2);
        // A run with a sheet keeps it.
        assert!(block_on(apply_fact_sheet(&repo, &run.id)).unwrap_err().en.contains("already has"));
    }
}
