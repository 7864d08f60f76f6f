//! Actions: what to do next for the selected run, geo-core's `actions` (the object of
//! `geo-probe actions`): the prompts the brand loses with their competitors, the searches
//! the engine ran and whether the own site came back, the pages to be on, and how many
//! answer links do not exist (after `geo-probe links` and an import). Against the previous
//! run each item says whether it is new, still open or solved. Every item's evidence opens
//! the answers behind it in the probe drawer; long tables show 50 rows a page. The page reads
//! the run's own actions and its previous run's item keys, stored beside their summaries, and
//! sets one against the other with geo-core's `actions_against`: no probe is read until an
//! answer opens.

use crate::components::analytics::run_analytics_page;
use crate::components::metric_card::{dec, pct, raw_f64};
use crate::components::pager::{page_bounds, use_page, Pager, PAGE_SIZE};
use crate::components::probe_drawer::{open_probe_button, OpenProbe, StoredDrawer};
use crate::components::run_data::{use_run_data, without_run, Figures, SharedRunData};
use crate::components::table::captioned_table;
use crate::components::{safe_link, EmptyState};
use crate::hooks::{set_on_check, use_app};
use crate::i18n::{t, tf};
use geo_core::actions::markdown::{links_sentence, status_label};
use geo_core::actions::{Actions, ItemStatus};
use geo_core::model::{Lang, Run};
use yew::prelude::*;
use yew::virtual_dom::{VTag, VText};

/// Evidence buttons shown per item before "+N".
const EVIDENCE_SHOWN: usize = 6;

/// The page (one component: its parts are plain functions, for the bundle's size).
#[function_component]
pub fn ActionsPage() -> Html {
    let lang = use_app().lang;
    let data = use_run_data(Figures::Actions);
    let open: OpenProbe = use_state(|| None::<String>);
    let unowned_only = use_state(|| false);
    let (query_page, set_query_page) = use_page(*unowned_only);
    let (page_page, set_page_page) = use_page(());
    let shown: Option<SharedRunData> = data.ready().and_then(|d| d.clone());
    let run = shown.as_ref().and_then(|d| d.run().cloned());
    let body = match (&shown, &run, shown.as_ref().and_then(|d| d.actions.as_ref())) {
        (Some(d), Some(run), Some(a)) => {
            let v = View { a, run, open: &open, lang };
            let against = a.against_id.as_ref().and_then(|id| d.env.run(id));
            let on_unowned = set_on_check(&unowned_only);
            let compared = match against {
                Some(r) => tf(
                    lang,
                    "act.against",
                    &[("d", &r.created_at.replace('T', " ").chars().take(16).collect::<String>())],
                ),
                None => t(lang, "act.no_previous").to_string(),
            };
            html! {
                <>
                    <p class="muted" data-testid="actions-against" data-value={a.against_id.clone().unwrap_or_default()}>
                        { format!("{} · {compared}", geo_core::provider::spec(a.engine).name) }
                    </p>
                    { lost_section(&v) }
                    { queries_section(&v, *unowned_only, on_unowned, query_page, set_query_page) }
                    { pages_section(&v, page_page, set_page_page) }
                    { wrong_facts_section(&v) }
                    { links_section(&v) }
                    { solved_section(&v) }
                    <StoredDrawer open={open.clone()} data={d.clone()} {lang} />
                </>
            }
        }
        _ => without_run(&data, lang),
    };
    run_analytics_page(lang, "actions", data.ready().is_some(), run.map(|r| r.id), "act.title", "act.help", body)
}

/// What every section reads.
struct View<'a> {
    a: &'a Actions,
    run: &'a Run,
    open: &'a OpenProbe,
    lang: Lang,
}

impl View<'_> {
    fn label(&self, id: &str) -> String {
        self.run.alias_snapshot.iter().find(|t| t.id == id).map_or_else(|| id.to_string(), |t| t.label.clone())
    }

    fn prompt(&self, id: &str) -> String {
        self.run.prompt_snapshot.iter().find(|p| p.id == id).map_or_else(|| id.to_string(), |p| p.text.clone())
    }

    /// The status badge of an item (nothing without a comparison).
    fn status(&self, status: Option<ItemStatus>) -> Html {
        match (status, &self.a.against_id) {
            (Some(s), Some(_)) => html! {
                <span class={classes!("badge", format!("status-{}", s.as_str()))} data-testid="action-status" data-value={s.as_str()}>
                    { status_label(Some(s), self.lang) }</span>
            },
            _ => html! {},
        }
    }

    /// Buttons opening the first probes of `ids` in the drawer, and how many more there are.
    fn evidence(&self, ids: &[String]) -> Html {
        let lang = self.lang;
        html! {
            <span class="evidence">
                { for ids.iter().take(EVIDENCE_SHOWN).map(|id| {
                    let (prompt, repeat) = probe_parts(self.run, id);
                    let text = tf(lang, "act.answer", &[("r", &repeat)]);
                    // The accessible name starts with the visible text (WCAG 2.5.3).
                    let name = tf(lang, "act.open_answer", &[("a", &text), ("p", &self.prompt(&prompt))]);
                    open_probe_button(self.open, id, "probe-link", text, Some(name))
                }) }
                if ids.len() > EVIDENCE_SHOWN {
                    <span class="muted">{ format!(" +{}", ids.len() - EVIDENCE_SHOWN) }</span>
                }
            </span>
        }
    }
}

/// A probe id's prompt id and 1-based repeat, for labels (`{runId}__{promptId}__{repeat}`).
fn probe_parts(run: &Run, id: &str) -> (String, String) {
    let rest = id.strip_prefix(&format!("{}__", run.id)).unwrap_or(id);
    match rest.rsplit_once("__") {
        Some((prompt, repeat)) => {
            (prompt.to_string(), repeat.parse::<u32>().map_or_else(|_| repeat.to_string(), |r| (r + 1).to_string()))
        }
        None => (rest.to_string(), String::new()),
    }
}

/// The label of a fact of the run's sheet (its id when unknown).
fn fact_label(run: &Run, id: &str) -> String {
    run.fact_snapshot
        .iter()
        .flat_map(|s| &s.facts)
        .find(|f| f.id == id)
        .map_or_else(|| id.to_string(), |f| f.label.clone())
}

/// One row of an actions table: its attributes (`data-testid` and the `data-*` values of
/// `docs/ui-testids-extensions.md`), its header cell and its other cells.
struct Row {
    attrs: Vec<(&'static str, String)>,
    head: Html,
    cells: Vec<Html>,
}

/// An actions table: the columns (interface-text key, numeric or not; the first is the row
/// header's) and the rows. Every cell says its column (`data-label`) for the phone layout.
/// Built node by node in one place rather than by one `html!` per table, for the bundle's size.
fn table(
    lang: Lang,
    testid: &'static str,
    caption: &'static str,
    cols: &[(&'static str, bool)],
    rows: Vec<Row>,
) -> Html {
    let mut body = VTag::new("tbody");
    for row in rows {
        let mut tr = VTag::new("tr");
        for (name, value) in row.attrs {
            tr.add_attribute(name, value);
        }
        let mut th = VTag::new("th");
        th.add_attribute("scope", "row");
        th.add_child(row.head);
        tr.add_child(th.into());
        for ((key, num), cell) in cols[1..].iter().zip(row.cells) {
            let mut td = VTag::new("td");
            td.add_attribute("data-label", t(lang, key));
            if *num {
                td.add_attribute("class", "num");
            }
            td.add_child(cell);
            tr.add_child(td.into());
        }
        body.add_child(tr.into());
    }
    captioned_table(lang, testid, caption, cols, Html::from(body))
}

/// A cell of text.
fn text(s: impl Into<AttrValue>) -> Html {
    Html::from(VText::new(s))
}

/// `data-status` of an item: its status, empty without a comparison.
fn status_attr(status: Option<ItemStatus>) -> (&'static str, String) {
    ("data-status", status.map_or("", ItemStatus::as_str).to_string())
}

/// A section: its heading, its help line, and either its table or why there is none.
fn section(id: &'static str, title: String, help: Option<&str>, body: Html) -> Html {
    html! {
        <section class="card" aria-labelledby={id}>
            <h2 {id}>{ title }</h2>
            if let Some(help) = help { <p class="muted">{ help.to_string() }</p> }
            { body }
        </section>
    }
}

/// A note in place of a table (`data-testid` says which).
fn note(testid: &'static str, text: &str) -> Html {
    html! { <p class="muted" data-testid={testid}>{ text.to_string() }</p> }
}

fn lost_section(v: &View<'_>) -> Html {
    let lang = v.lang;
    let body = if v.a.lost_prompts.is_empty() {
        note("lost-none", if v.a.success_count == 0 { t(lang, "act.no_success") } else { t(lang, "act.lost_none") })
    } else {
        let rows = v.a.lost_prompts.iter().map(|l| Row {
            attrs: vec![
                ("data-testid", "lost-prompt-row".into()),
                ("data-prompt", l.prompt_id.clone()),
                ("data-stake", l.stake.to_string()),
                ("data-brand-rate", raw_f64(Some(l.brand_mention_rate))),
                ("data-behind", raw_f64(Some(l.behind_share))),
                status_attr(l.status),
            ],
            head: html! { <>{ v.prompt(&l.prompt_id) }{ " " }{ v.status(l.status) }</> },
            cells: vec![
                text(format!("{} ({}–{})", pct(Some(l.brand_mention_rate)), pct(Some(l.brand_low)), pct(Some(l.brand_high)))),
                html! {
                    <ul class="plain">
                        { for l.competitors.iter().map(|c| html! {
                            <li data-testid="lost-competitor" data-target={c.target_id.clone()} data-value={raw_f64(Some(c.mention_rate))}>
                                { format!("{} {}", v.label(&c.target_id), pct(Some(c.mention_rate))) }
                                if let Some(pos) = c.avg_list_position {
                                    <span class="muted">{ " · " }{ tf(lang, "act.list_pos", &[("p", &dec(Some(pos)))]) }</span>
                                }
                            </li>
                        }) }
                    </ul>
                },
                text(pct(Some(l.behind_share))),
                text(l.stake.to_string()),
                v.evidence(&l.probe_ids),
            ],
        });
        let cols = [
            ("act.prompt", false),
            ("act.brand_rate", true),
            ("act.competitors", false),
            ("act.behind", true),
            ("act.stake", true),
            ("act.evidence", false),
        ];
        table(lang, "lost-table", "act.lost_caption", &cols, rows.collect())
    };
    let title = tf(lang, "act.lost", &[("n", &v.a.lost_prompts.len().to_string())]);
    section("lost-h", title, Some(t(lang, "act.lost_help")), body)
}

fn yes_no(flag: bool, lang: Lang) -> Html {
    html! { <span class={if flag { "yes" } else { "no" }}>{ if flag { t(lang, "act.yes") } else { t(lang, "act.no") } }</span> }
}

fn queries_section(
    v: &View<'_>,
    unowned_only: bool,
    on_unowned: Callback<Event>,
    page: usize,
    set_page: Callback<usize>,
) -> Html {
    let (a, lang) = (v.a, v.lang);
    let why = if a.success_count == 0 {
        Some(t(lang, "act.no_success"))
    } else if a.query_probe_count == 0 {
        Some(if a.source_probe_count > 0 { t(lang, "act.no_query_strings") } else { t(lang, "act.no_searches") })
    } else {
        None
    };
    let title = t(lang, "act.queries").to_string();
    if let Some(why) = why {
        return section("fanout-h", title, None, note("fanout-note", why));
    }
    let shown: Vec<_> = a.queries.iter().filter(|q| !unowned_only || !q.owned).collect();
    let (page, from, to) = page_bounds(shown.len(), page, PAGE_SIZE);
    let unowned = a.queries.iter().filter(|q| !q.owned).count();
    let rows = shown[from..to].iter().map(|q| Row {
        attrs: vec![
            ("data-testid", "fanout-query-row".into()),
            ("data-query", q.query.clone()),
            ("data-probes", q.probe_count.to_string()),
            ("data-owned", q.owned.to_string()),
            status_attr(q.status),
        ],
        head: html! { <>{ q.query.clone() }{ " " }{ v.status(q.status) }</> },
        cells: vec![
            text(q.probe_count.to_string()),
            text(tf(lang, "act.n_prompts", &[("n", &q.prompt_ids.len().to_string())])),
            text(list_some(&q.domains, 4)),
            yes_no(q.owned, lang),
            yes_no(q.competitor, lang),
            v.evidence(&q.probe_ids),
        ],
    });
    let cols = [
        ("act.query", false),
        ("act.probes", true),
        ("act.prompts", false),
        ("act.domains", false),
        ("act.owned", false),
        ("act.competitor", false),
        ("act.evidence", false),
    ];
    let help = tf(lang, "act.queries_help", &[("n", &a.queries.len().to_string()), ("u", &unowned.to_string())]);
    let body = html! {
        <>
            <label class="inline">
                <input type="checkbox" data-testid="fanout-unowned" checked={unowned_only} onchange={on_unowned} />
                { " " }{ t(lang, "act.unowned_only") }
            </label>
            { table(lang, "fanout-table", "act.queries", &cols, rows.collect()) }
            <Pager total={shown.len()} {page} on_page={set_page} scope="queries" label={t(lang, "act.queries")} {lang} />
        </>
    };
    section("fanout-h", title, Some(&help), body)
}

/// The first `n` items joined, with `…` when there are more.
fn list_some(items: &[String], n: usize) -> String {
    let mut s = items.iter().take(n).cloned().collect::<Vec<_>>().join(", ");
    if items.len() > n {
        s.push_str(", …");
    }
    s
}

fn pages_section(v: &View<'_>, page: usize, set_page: Callback<usize>) -> Html {
    let (a, lang) = (v.a, v.lang);
    let title = tf(lang, "act.pages", &[("n", &a.pages.len().to_string())]);
    let help = Some(t(lang, "act.pages_help"));
    if a.lost_prompts.is_empty() || a.pages.is_empty() {
        let why = if a.lost_prompts.is_empty() { "act.pages_no_lost" } else { "act.pages_none" };
        return section("pages-h", title, help, note("pages-none", t(lang, why)));
    }
    let (page, from, to) = page_bounds(a.pages.len(), page, PAGE_SIZE);
    let rows = a.pages[from..to].iter().map(|pg| Row {
        attrs: vec![
            ("data-testid", "page-to-be-on-row".into()),
            ("data-url", pg.url.clone()),
            ("data-probes", pg.probe_count.to_string()),
            status_attr(pg.status),
        ],
        head: if pg.by_domain {
            html! { <>{ format!("{} · {} ", pg.domain, t(lang, "act.by_domain_short")) }{ v.status(pg.status) }</> }
        } else {
            html! {
                <>
                    { safe_link(&pg.url, if pg.title.is_empty() { &pg.url } else { &pg.title }) }{ " " }{ v.status(pg.status) }
                    <div class="muted small url">{ pg.url.clone() }</div>
                </>
            }
        },
        cells: vec![
            text(pg.probe_count.to_string()),
            text(pg.cited_count.to_string()),
            yes_no(pg.names_competitor, lang),
            yes_no(pg.names_brand, lang),
            v.evidence(&pg.probe_ids),
        ],
    });
    let cols = [
        ("act.page", false),
        ("act.probes", true),
        ("act.cited", true),
        ("act.names_competitor", false),
        ("act.names_brand", false),
        ("act.evidence", false),
    ];
    let body = html! {
        <>
            if a.pages.iter().any(|p| p.by_domain) { { note("pages-by-domain", t(lang, "act.by_domain")) } }
            { table(lang, "pages-table", "act.pages_caption", &cols, rows.collect()) }
            <Pager total={a.pages.len()} {page} on_page={set_page} scope="pages" label={t(lang, "act.pages_caption")} {lang} />
        </>
    };
    section("pages-h", title, help, body)
}

/// The facts the answers contradict and the pages behind those sentences (`wrong-fact-row`).
fn wrong_facts_section(v: &View<'_>) -> Html {
    let (a, lang) = (v.a, v.lang);
    let title = tf(lang, "act.wrong_facts", &[("n", &a.wrong_facts.len().to_string())]);
    let help = Some(t(lang, "act.wrong_facts_help"));
    if a.fact_count == 0 || a.wrong_facts.is_empty() {
        let why = if a.fact_count == 0 { "act.wrong_facts_no_sheet" } else { "act.wrong_facts_none" };
        return section("wrong-facts-h", title, help, note("wrong-facts-none", t(lang, why)));
    }
    let rows = a.wrong_facts.iter().map(|f| Row {
        attrs: vec![
            ("data-testid", "wrong-fact-row".into()),
            ("data-fact", f.fact_id.clone()),
            ("data-claims", f.claim_count.to_string()),
            ("data-probes", f.probe_count.to_string()),
            status_attr(f.status),
        ],
        head: html! { <>{ format!("{} · {} ", f.label, v.label(&f.target_id)) }{ v.status(f.status) }</> },
        cells: vec![
            text(f.claim_count.to_string()),
            text(f.values.join(lang.pick("、", ", "))),
            html! {
                <ul class="plain">
                    { for f.pages.iter().take(5).map(|pg| html! {
                        <li data-testid="wrong-fact-page" data-url={pg.url.clone()} data-value={pg.claim_count.to_string()}>
                            if pg.by_domain { { pg.domain.clone() } } else { { safe_link(&pg.url, if pg.title.is_empty() { &pg.url } else { &pg.title }) } }
                            { format!(" ({}{})", pg.claim_count, if pg.cited { lang.pick("，已引用", ", cited") } else { "" }) }
                        </li>
                    }) }
                    if f.unsourced_count > 0 {
                        <li class="muted">{ tf(lang, "act.unsourced", &[("n", &f.unsourced_count.to_string())]) }</li>
                    }
                </ul>
            },
            v.evidence(&f.probe_ids),
        ],
    });
    let cols = [
        ("act.fact", false),
        ("act.claims", true),
        ("act.values", false),
        ("act.pages_behind", false),
        ("act.evidence", false),
    ];
    section(
        "wrong-facts-h",
        title,
        help,
        table(lang, "wrong-facts-table", "act.wrong_facts_caption", &cols, rows.collect()),
    )
}

fn links_section(v: &View<'_>) -> Html {
    let (a, lang) = (v.a, v.lang);
    let Some(c) = a.links else {
        return html! {
            <section class="card" aria-labelledby="links-h">
                <h2 id="links-h">{ t(lang, "act.links") }</h2>
                <EmptyState text={t(lang, "act.links_none").to_string()}>
                    <code class="command">{ "geo-probe links export.json --out checked.json" }</code>
                </EmptyState>
            </section>
        };
    };
    let count = |key: &'static str, n: u32| html! { <li>{ t(lang, key) }{ ": " }<strong>{ n }</strong></li> };
    html! {
        <section class="card" aria-labelledby="links-h">
            <h2 id="links-h">{ t(lang, "act.links") }</h2>
            <div data-testid="links-health" data-checked={c.checked.to_string()} data-ok={c.ok.to_string()}
                data-not-found={c.not_found.to_string()} data-blocked={c.blocked.to_string()} data-error={c.error.to_string()}
                data-redirect={c.redirect.to_string()}>
                <p class="links-big">{ format!("{} · {}", geo_core::provider::spec(a.engine).name, links_sentence(c.not_found, c.checked, lang)) }</p>
                <ul class="plain counts">
                    { count("act.link_ok", c.ok) }{ count("act.link_redirect", c.redirect) }{ count("act.link_not_found", c.not_found) }
                    { count("act.link_blocked", c.blocked) }{ count("act.link_error", c.error) }
                </ul>
            </div>
            if !a.not_found_links.is_empty() {
                <h3>{ t(lang, "act.not_found_list") }</h3>
                <ul class="plain">
                    { for a.not_found_links.iter().map(|l| html! {
                        <li data-testid="not-found-link" data-url={l.url.clone()}>
                            <span class="url">{ l.url.clone() }</span>{ " " }
                            <span class="muted">{ l.status.map_or_else(String::new, |s| format!("HTTP {s} · ")) }</span>
                            { v.evidence(&l.probe_ids) }
                        </li>
                    }) }
                </ul>
            }
        </section>
    }
}

fn solved_section(v: &View<'_>) -> Html {
    let lang = v.lang;
    let Some(s) = v.a.solved.as_ref() else { return html! {} };
    if s.lost_prompts.is_empty() && s.queries.is_empty() && s.pages.is_empty() && s.wrong_facts.is_empty() {
        return html! { <p class="muted" data-testid="solved-none">{ t(lang, "act.solved_none") }</p> };
    }
    let list = |key: &'static str, items: Vec<String>| {
        html! {
            if !items.is_empty() {
                <h3>{ t(lang, key) }</h3>
                <ul class="plain">{ for items.into_iter().map(|i| html! { <li class="url" data-testid="solved-item">{ i }</li> }) }</ul>
            }
        }
    };
    html! {
        <section class="card" aria-labelledby="solved-h" data-testid="solved">
            <h2 id="solved-h">{ t(lang, "act.solved") }</h2>
            { list("act.solved_lost", s.lost_prompts.iter().map(|id| v.prompt(id)).collect()) }
            { list("act.solved_queries", s.queries.clone()) }
            { list("act.solved_pages", s.pages.clone()) }
            { list("act.solved_facts", s.wrong_facts.iter().map(|id| fact_label(v.run, id)).collect()) }
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the page shows (the stored own actions of the run set against the stored item
    /// keys of its previous run) is `geo-probe actions`' object, on the demo and on the actions
    /// fixture (a link check, lost prompts, queries solved).
    #[test]
    fn the_page_shows_the_cli_object_from_the_stored_figures() {
        use crate::repo::memory::MemoryRepo;
        use crate::repo::test_support::block_on;
        use crate::repo::{Batch, Repository};
        let demo = include_str!("../../../../demo/demo-data.json");
        let fixture = include_str!("../../../../fixtures/exports/actions.json");
        for text in [demo, fixture] {
            let mut env = geo_core::export::parse_export(text, &Default::default()).unwrap();
            assert!(geo_core::analysis::analyze_envelope(&mut env).is_empty());
            let repo = MemoryRepo::new();
            block_on(repo.put_many(&Batch::from(env.clone()))).unwrap();
            let mut compared = 0;
            for run in &env.runs {
                let stored = |id: &str| block_on(repo.run_pages(id)).unwrap();
                let previous = run.previous_run_id.as_deref().and_then(stored).map(|f| f.keys);
                let page = geo_core::actions::actions_against(stored(&run.id).unwrap().actions, previous.as_ref());
                let cli = geo_core::actions::actions_for_export(&env, Some(&run.id), None).unwrap();
                assert_eq!(page, cli, "run {}", run.id);
                compared += usize::from(page.against_id.is_some());
            }
            assert!(compared > 0, "some run follows another");
        }
    }

    #[test]
    fn probe_ids_read_as_prompt_and_repeat() {
        let text = include_str!("../../../../demo/demo-data.json");
        let env = geo_core::export::parse_export(text, &Default::default()).unwrap();
        let run = &env.runs[0];
        let id = geo_core::model::probe_id(&run.id, "p__x", 2);
        assert_eq!(probe_parts(run, &id), ("p__x".to_string(), "3".to_string()));
    }
}
