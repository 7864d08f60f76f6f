//! The probe drawer: one probe in full — the answer as sanitised Markdown (with a sentence
//! marked when a claim or a flagged sentence opened it), what it says against the run's fact
//! sheet (each claim with its verdict, each flagged sentence), the tracked
//! mentions with their contexts (aliases highlighted as text, never as HTML), where the run
//! asked from and how the location reached the engine (`probe-location`), the searches,
//! the sources with platform, channel, ownership and ranks, the parsed list and the links
//! written in the answer. It is a modal `<dialog>`: the page behind is inert, Esc or a click
//! outside closes it, focus moves into it when it opens and back to its opener when it closes.

use crate::components::markdown::Markdown;
use crate::components::run_data::{use_probes_by_id, SharedRunData};
use crate::components::safe_link;
use crate::components::table::{head_cells, table, Col};
use crate::i18n::{t, tf};
use geo_core::analysis::platforms::channel_label;
use geo_core::model::{
    EngineId, Fact, Lang, Location, LocationApplied, Ownership, Probe, ProbeStatus, Run, Surface, Target,
};
use geo_core::provider::describe_engine_error;
use geo_core::provider::location::assumed_location_note;
use geo_core::said::markdown::{kind_label, verdict_label};
use yew::prelude::*;

/// The JSON name of a probe status (`success`, `error`, `empty`, `cancelled`).
pub fn probe_status_value(s: ProbeStatus) -> &'static str {
    match s {
        ProbeStatus::Success => "success",
        ProbeStatus::Error => "error",
        ProbeStatus::Empty => "empty",
        ProbeStatus::Cancelled => "cancelled",
    }
}

/// Splits `text` into pieces, marking (true) every case-insensitive occurrence of one of
/// `needles` (longest first). Works on characters, so any Unicode text is safe.
pub fn highlight_segments(text: &str, needles: &[String]) -> Vec<(String, bool)> {
    let mut needles: Vec<Vec<char>> = needles
        .iter()
        .map(|n| n.trim().chars().flat_map(char::to_lowercase).collect::<Vec<char>>())
        .filter(|n| !n.is_empty())
        .collect();
    geo_core::sort::sort_by_key(&mut needles, |n| std::cmp::Reverse(n.len()));
    let chars: Vec<char> = text.chars().collect();
    let lower: Vec<char> = chars.iter().map(|c| c.to_lowercase().next().unwrap_or(*c)).collect();
    let mut out: Vec<(String, bool)> = Vec::new();
    let mut plain = String::new();
    let mut i = 0;
    while i < chars.len() {
        let hit = needles.iter().find(|n| lower.len() >= i + n.len() && lower[i..i + n.len()] == n[..]);
        match hit {
            Some(n) => {
                if !plain.is_empty() {
                    out.push((std::mem::take(&mut plain), false));
                }
                out.push((chars[i..i + n.len()].iter().collect(), true));
                i += n.len();
            }
            None => {
                plain.push(chars[i]);
                i += 1;
            }
        }
    }
    if !plain.is_empty() {
        out.push((plain, false));
    }
    out
}

fn ownership_key(o: Ownership) -> &'static str {
    match o {
        Ownership::Owned => "drawer.owned",
        Ownership::Competitor => "drawer.competitor",
        Ownership::ThirdParty => "drawer.third_party",
    }
}

/// Which probe's drawer is open (its id), shared by the buttons that open it and
/// [`drawer_for`].
pub type OpenProbe = UseStateHandle<Option<String>>;

/// A button opening probe `probe_id`'s drawer (`data-open-probe` lets focus come back to it
/// when the drawer closes).
pub fn open_probe_button(
    open: &OpenProbe,
    probe_id: &str,
    testid: &'static str,
    text: String,
    aria_label: Option<String>,
) -> Html {
    let open = open.clone();
    let id = probe_id.to_string();
    let aria_label = aria_label.map(AttrValue::from);
    html! {
        <button type="button" class="link" data-testid={testid} data-open-probe={probe_id.to_string()} aria-label={aria_label}
            onclick={Callback::from(move |_: MouseEvent| open.set(Some(id.clone())))}>{ text }</button>
    }
}

/// The drawer of the probe `open` names, found among `probes` of `run`; nothing when none is
/// open or the id is unknown. Closing it clears `open` and moves focus back to the button
/// that opened it (or to the page's main region when that button is no longer shown).
pub fn drawer_for<'a>(open: &OpenProbe, probes: impl IntoIterator<Item = &'a Probe>, run: &Run, lang: Lang) -> Html {
    drawer_marked(open, None, probes, run, lang)
}

/// Props of [`StoredDrawer`].
#[derive(Properties, PartialEq)]
pub struct StoredDrawerProps {
    /// Which probe is open.
    pub open: OpenProbe,
    /// The shown run (the probe's run).
    pub data: SharedRunData,
    /// Interface language.
    pub lang: Lang,
}

/// [`drawer_for`] on a page that holds no probe (sources, lists, Actions: they show stored
/// figures): the probe `open` names is read from storage when it opens, one record whatever
/// the run's size.
#[function_component]
pub fn StoredDrawer(p: &StoredDrawerProps) -> Html {
    let probe = use_probes_by_id((*p.open).iter().cloned().collect());
    let Some(run) = p.data.run() else { return html! {} };
    let probes = probe.ready().map(|v| &v.1[..]).unwrap_or_default();
    drawer_for(&p.open, probes, run, p.lang)
}

/// The value of `data-open-mark` on a button that opens a drawer with the characters
/// `start..end` of the answer marked: focus comes back to that very button.
pub fn mark_attr((start, end): (u32, u32)) -> String {
    format!("{start}-{end}")
}

/// [`drawer_for`] with the characters `marked` (`start..end`) of the answer marked and
/// scrolled to; focus comes back to the opener that names them (`data-open-mark`).
pub fn drawer_marked<'a>(
    open: &OpenProbe,
    marked: Option<(u32, u32)>,
    probes: impl IntoIterator<Item = &'a Probe>,
    run: &Run,
    lang: Lang,
) -> Html {
    let Some(id) = (**open).as_ref() else { return html! {} };
    let Some(p) = probes.into_iter().find(|p| &p.id == id) else { return html! {} };
    let prompt_text = run
        .prompt_snapshot
        .iter()
        .find(|q| q.id == p.prompt_id)
        .map_or_else(|| p.prompt_id.clone(), |q| q.text.clone());
    let on_close = {
        let open = open.clone();
        let pid = p.id.clone();
        Callback::from(move |_| {
            open.set(None);
            let doc = web_sys::window().and_then(|w| w.document());
            // Close the modal first: while it is open the page behind is inert and cannot
            // take the focus.
            let dialog =
                doc.as_ref().and_then(|d| d.query_selector("dialog[data-testid=\"probe-drawer\"]").ok().flatten());
            if let Some(dialog) =
                dialog.and_then(|el| wasm_bindgen::JsCast::dyn_into::<web_sys::HtmlDialogElement>(el).ok())
            {
                dialog.close();
            }
            let back = doc.as_ref().and_then(|d| {
                let probe = format!("[data-open-probe=\"{}\"]", pid.replace(['"', '\\'], ""));
                let exact = marked.and_then(|m| {
                    d.query_selector(&format!("{probe}[data-open-mark=\"{}\"]", mark_attr(m))).ok().flatten()
                });
                let button = exact.or_else(|| d.query_selector(&probe).ok().flatten());
                button.or_else(|| d.get_element_by_id("main"))
            });
            if let Some(el) = back.and_then(|el| wasm_bindgen::JsCast::dyn_into::<web_sys::HtmlElement>(el).ok()) {
                let _ = el.focus();
            }
        })
    };
    let cost_usd = geo_core::metrics::cost::probe_cost_usd(run, p);
    let facts = run.fact_snapshot.as_ref().map(|s| s.facts.clone()).unwrap_or_default();
    let (location, surface) = (run.config.location.clone(), run.surface);
    html! { <ProbeDrawer probe={p.clone()} prompt_text={AttrValue::from(prompt_text)} targets={run.alias_snapshot.clone()} engine={run.config.engine} {cost_usd} {facts} {marked} {location} {surface} {lang} {on_close} /> }
}

/// Props of [`ProbeDrawer`].
#[derive(Properties, PartialEq)]
pub struct ProbeDrawerProps {
    /// The probe shown.
    pub probe: Probe,
    /// The prompt text (from the run's snapshot).
    pub prompt_text: AttrValue,
    /// The run's alias snapshot (target labels).
    pub targets: Vec<Target>,
    /// The run's engine: its error wording (a balance error names its platform).
    pub engine: EngineId,
    /// The probe's estimated cost (geo-core's `probe_cost_usd`: stated, else priced from
    /// `billedUsage`); `None` without a price.
    pub cost_usd: Option<f64>,
    /// The run's fact sheet (the claims' fact labels).
    #[prop_or_default]
    pub facts: Vec<Fact>,
    /// The characters of the answer to mark (`start..end`): the sentence that opened it.
    #[prop_or_default]
    pub marked: Option<(u32, u32)>,
    /// The run's location (`config.location`).
    #[prop_or_default]
    pub location: Option<Location>,
    /// The run's surface: an `app` run's location is where its answers were captured.
    #[prop_or_default]
    pub surface: Surface,
    /// Interface language.
    pub lang: Lang,
    /// Closes the drawer.
    pub on_close: Callback<()>,
}

/// Shows the `<dialog>` behind `panel` as a modal while the component is mounted: the page
/// behind is inert (Tab stays in the drawer), Escape fires `cancel`, and focus moves to its
/// first control (the close button).
#[hook]
fn use_modal(panel: &NodeRef) {
    let panel = panel.clone();
    use_effect_with((), move |_| {
        if let Some(dialog) = panel.cast::<web_sys::HtmlDialogElement>() {
            if !dialog.open() {
                let _ = dialog.show_modal();
            }
        }
        move || {
            if let Some(dialog) = panel.cast::<web_sys::HtmlDialogElement>() {
                dialog.close();
            }
        }
    });
}

/// Where the run asked from and how it reached the engine (`probe-location`): the location's
/// label and how the probe's `locationApplied` says it was sent; without a location, what the
/// engine assumes then (OpenAI: the United States) or that the run set none.
pub fn location_text(
    location: Option<&Location>,
    applied: LocationApplied,
    surface: Surface,
    engine: EngineId,
    lang: Lang,
) -> String {
    let Some(location) = location else {
        return assumed_location_note(engine, false)
            .map_or_else(|| t(lang, "drawer.location_none").to_string(), |n| n.get(lang).to_string());
    };
    let how = match (surface, applied) {
        (Surface::App, _) => "drawer.location_app",
        (_, LocationApplied::Request) => "drawer.location_request",
        (_, LocationApplied::Prompt) => "drawer.location_prompt",
        (_, LocationApplied::None) => "drawer.location_not_sent",
    };
    format!("{} · {}", location.label(), t(lang, how))
}

/// The columns of a probe's retrieved sources.
const SOURCE_COLS: &[Col] = &[
    ("drawer.source", false),
    ("drawer.platform", false),
    ("drawer.channel", false),
    ("drawer.ownership", false),
    ("drawer.ranks", true),
    ("drawer.cited", false),
];

/// The drawer's sources: how many are cited (when the engine gave citation data) and one row
/// per source with its cited mark (`probe-source[data-cited]`).
fn sources_view(p: &Probe, lang: Lang, label_of: &dyn Fn(&str) -> String) -> Html {
    let cited = p.sources.iter().filter(|s| s.cited == Some(true)).count().to_string();
    html! {
        <>
            <h3>{ tf(lang, "drawer.sources", &[("n", &p.sources.len().to_string())]) }</h3>
            if p.raw_citations.is_some() {
                <p class="muted" data-testid="probe-cited-count" data-value={cited.clone()}>
                    { tf(lang, "drawer.cited_count", &[
                        ("n", &cited),
                        ("m", &p.sources.len().to_string()),
                    ]) }</p>
            } else if !p.sources.is_empty() {
                <p class="muted">{ t(lang, "drawer.no_citation_data") }</p>
            }
            if !p.sources.is_empty() {
                { table(tf(lang, "drawer.sources", &[("n", &p.sources.len().to_string())]), head_cells(lang, SOURCE_COLS), html! {
                    { for p.sources.iter().map(|s| html! {
                        <tr data-testid="probe-source" data-url={s.url.clone()}
                            data-cited={s.cited.map_or("", |c| if c { "true" } else { "false" })}
                            class={classes!((s.cited == Some(true)).then_some("cited"))}>
                            <td>{ safe_link(&s.url, if s.title.is_empty() { &s.url } else { &s.title }) }<br /><small class="muted">{ s.domain.clone() }</small></td>
                            <td>{ s.platform.clone() }</td>
                            <td>{ channel_label(&s.channel, lang).to_string() }</td>
                            <td>{ t(lang, ownership_key(s.ownership)) }
                                if let Some(c) = &s.competitor_id { { " · " }{ label_of(c) } }</td>
                            <td class="num">{ s.occurrences.iter().map(|o| format!("#{}", o.rank)).collect::<Vec<_>>().join(" ") }</td>
                            <td>{ match s.cited {
                                Some(true) => html! { <span class="chip cited-mark">{ t(lang, "drawer.cited_yes") }</span> },
                                Some(false) => html! { <span class="muted">{ t(lang, "drawer.cited_no") }</span> },
                                None => html! { <span class="muted">{ "—" }</span> },
                            } }</td>
                        </tr>
                    }) }
                }) }
            }
        </>
    }
}

/// What the answer says against the run's fact sheet: a `probe-claim` per claim (its
/// verdict, fact, sentence and values) and a `probe-risk-flag` per flagged sentence; the one
/// whose sentence is `marked` stands out. Nothing for a probe with neither.
fn said_view(
    p: &Probe,
    facts: &[Fact],
    marked: Option<(u32, u32)>,
    lang: Lang,
    label_of: &dyn Fn(&str) -> String,
) -> Html {
    if p.claims.is_empty() && p.risk_flags.is_empty() {
        return html! {};
    }
    let current = |start: u32, end: u32| (marked == Some((start, end))).then_some("current");
    let fact_label = |id: &str| facts.iter().find(|f| f.id == id).map_or_else(|| id.to_string(), |f| f.label.clone());
    html! {
        <>
            <h3>{ t(lang, "drawer.said") }</h3>
            <ul class="plain said">
                { for p.claims.iter().map(|c| html! {
                    <li data-testid="probe-claim" data-verdict={c.verdict.as_str()} data-fact={c.fact_id.clone()}
                        data-start={c.start.to_string()} data-end={c.end.to_string()} class={classes!(current(c.start, c.end))}>
                        <span class={classes!("chip", format!("verdict-{}", c.verdict.as_str()))}>{ verdict_label(c.verdict, lang) }</span>
                        { " " }<strong>{ fact_label(&c.fact_id) }</strong>{ " · " }{ label_of(&c.target_id) }
                        if !c.values.is_empty() {
                            <span class="muted">{ " · " }{ tf(lang, "drawer.values", &[("v", &c.values.join(", "))]) }</span>
                        }
                        <blockquote>{ c.sentence.clone() }</blockquote>
                    </li>
                }) }
                { for p.risk_flags.iter().map(|f| html! {
                    <li data-testid="probe-risk-flag" data-kind={f.kind.as_str()} data-cue={f.cue.clone()} data-target={f.target_id.clone()}
                        class={classes!(current(f.start, f.end))}>
                        <span class={classes!("chip", format!("risk-{}", f.kind.as_str()))}>{ kind_label(f.kind, lang) }</span>
                        { " " }<strong>{ f.cue.clone() }</strong>{ " · " }{ label_of(&f.target_id) }
                        <blockquote>{ for highlight_segments(&f.sentence, std::slice::from_ref(&f.cue)).into_iter().map(|(s, hit)| if hit {
                            html! { <mark>{ s }</mark> }
                        } else { html! { <>{ s }</> } }) }</blockquote>
                    </li>
                }) }
            </ul>
        </>
    }
}

/// `probe-drawer`: a modal side panel.
#[function_component]
pub fn ProbeDrawer(props: &ProbeDrawerProps) -> Html {
    let lang = props.lang;
    let p = &props.probe;
    let panel = use_node_ref();
    use_modal(&panel);
    let oncancel = {
        let on_close = props.on_close.clone();
        Callback::from(move |e: Event| {
            e.prevent_default();
            on_close.emit(());
        })
    };
    let close = {
        let on_close = props.on_close.clone();
        Callback::from(move |_: MouseEvent| on_close.emit(()))
    };
    // A click on the dimmed area outside the panel lands on the <dialog> itself.
    let on_backdrop = {
        let on_close = props.on_close.clone();
        Callback::from(move |e: MouseEvent| {
            if e.target().is_some() && e.target() == e.current_target() {
                on_close.emit(());
            }
        })
    };
    let label_of =
        |id: &str| props.targets.iter().find(|t| t.id == id).map(|t| t.label.clone()).unwrap_or_else(|| id.to_string());
    let answer = if p.answer.trim().is_empty() { p.raw_answer.clone() } else { p.answer.clone() };
    let billed = p.billed();
    html! {
        <dialog class="drawer" data-testid="probe-drawer" data-id={p.id.clone()} aria-labelledby="drawer-title"
            ref={panel} {oncancel} onclick={on_backdrop}>
        <div class="drawer-body">
            <header class="drawer-head">
                <h2 id="drawer-title">{ props.prompt_text.clone() }</h2>
                <button type="button" class="icon" data-testid="probe-drawer-close" onclick={close}
                    aria-label={t(lang, "drawer.close")}>{ "×" }</button>
            </header>
            <dl class="facts">
                <dt>{ t(lang, "drawer.status") }</dt><dd><span class={classes!("status", probe_status_value(p.status))}>{ probe_status_value(p.status) }</span></dd>
                <dt>{ t(lang, "drawer.repeat") }</dt><dd>{ p.repeat_index + 1 }</dd>
                <dt>{ t(lang, "drawer.attempts") }</dt><dd>{ p.attempts }</dd>
                <dt>{ t(lang, "drawer.latency") }</dt><dd>{ format!("{} ms", p.latency_ms) }</dd>
                <dt>{ t(lang, "runs.model") }</dt><dd>{ p.model.clone() }</dd>
                <dt>{ t(lang, "drawer.location") }</dt>
                <dd data-testid="probe-location" data-value={p.location_applied.as_str()}>
                    { location_text(props.location.as_ref(), p.location_applied, props.surface, props.engine, lang) }</dd>
                <dt>{ t(lang, "drawer.billed") }</dt>
                <dd data-testid="probe-billed" data-input={billed.input_tokens.to_string()}
                    data-output={billed.output_tokens.to_string()}
                    data-cost={props.cost_usd.map(|c| c.to_string()).unwrap_or_default()}>
                    { tf(lang, "drawer.billed_tokens", &[
                        ("input", &(billed.input_tokens + billed.cache_read_input_tokens).to_string()),
                        ("output", &billed.output_tokens.to_string()),
                    ]) }
                    { " · " }{ match props.cost_usd { Some(c) => format!("${c:.4}"), None => t(lang, "run.no_price").to_string() } }
                    if p.continuations > 0 { { " · " }{ tf(lang, "drawer.continuations", &[("n", &p.continuations.to_string())]) } }
                </dd>
            </dl>
            if p.truncated {
                <p class="badge warn" data-testid="probe-truncated">{ t(lang, "drawer.truncated") }</p>
            }
            if let Some(err) = &p.error {
                <p class="error-box" role="note">{ describe_engine_error(props.engine, err).get(lang).to_string() }</p>
            }
            <h3>{ t(lang, "drawer.answer") }</h3>
            if answer.trim().is_empty() {
                <p class="muted" data-testid="probe-answer">{ t(lang, "drawer.no_answer") }</p>
            } else {
                <Markdown text={AttrValue::from(answer)} testid={AttrValue::from("probe-answer")} mark={props.marked.filter(|_| !p.answer.trim().is_empty())} />
            }
            { said_view(p, &props.facts, props.marked, lang, &label_of) }
            <h3>{ t(lang, "drawer.mentions") }</h3>
            if p.mentions.is_empty() {
                <p class="muted">{ t(lang, "drawer.no_mentions") }</p>
            } else {
                <ul class="plain mentions">
                    { for p.mentions.iter().map(|m| html! {
                        <li data-testid="probe-mention" data-target={m.target_id.clone()}>
                            <strong>{ label_of(&m.target_id) }</strong>
                            { " " }{ tf(lang, "drawer.mention_facts", &[("order", &m.order.to_string()), ("count", &m.count.to_string())]) }
                            if let Some(pos) = m.list_position { { " · " }{ tf(lang, "drawer.list_pos", &[("n", &pos.to_string())]) } }
                            <blockquote>
                                { for highlight_segments(&m.context, &m.matched_aliases).into_iter().map(|(s, hit)| if hit {
                                    html! { <mark>{ s }</mark> }
                                } else { html! { <>{ s }</> } }) }
                            </blockquote>
                        </li>
                    }) }
                </ul>
            }
            <h3>{ t(lang, "drawer.queries") }</h3>
            if p.queries.is_empty() {
                <p class="muted">{ t(lang, "drawer.no_queries") }</p>
            } else {
                <ol class="queries">
                    { for p.queries.iter().map(|q| html! {
                        <li data-testid="probe-query">
                            { if q.internal || q.query.is_none() { t(lang, "drawer.internal").to_string() } else { q.query.clone().unwrap_or_default() } }
                            if let Some(e) = &q.error { <span class="error-text">{ " — " }{ e.clone() }</span> }
                        </li>
                    }) }
                </ol>
            }
            { sources_view(p, lang, &label_of) }
            <h3>{ t(lang, "drawer.list") }</h3>
            if p.list_items.is_empty() {
                <p class="muted">{ t(lang, "drawer.no_list") }</p>
            } else {
                <ol class="plain">
                    { for p.list_items.iter().map(|li| html! {
                        <li>{ format!("{}. {}", li.position, li.title) }
                            if let Some(tid) = &li.matched_target_id { { " " }<span class="chip">{ label_of(tid) }</span> }</li>
                    }) }
                </ol>
            }
            <h3>{ t(lang, "drawer.links") }</h3>
            if p.answer_links.is_empty() {
                <p class="muted">{ t(lang, "drawer.no_links") }</p>
            } else {
                <ul class="plain">
                    { for p.answer_links.iter().map(|l| html! {
                        <li>{ safe_link(&l.url, l.text.as_deref().unwrap_or(&l.url)) }
                            { " " }<span class={classes!("chip", l.in_sources.then_some("ok"))}>
                                { t(lang, if l.in_sources { "drawer.in_sources" } else { "drawer.not_in_sources" }) }</span></li>
                    }) }
                </ul>
            }
        </div>
        </dialog>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn check(text: &str, needles: &[&str], expect: &[(&str, bool)]) {
        let needles: Vec<String> = needles.iter().map(|s| s.to_string()).collect();
        let got = highlight_segments(text, &needles);
        let want: Vec<(String, bool)> = expect.iter().map(|(s, b)| (s.to_string(), *b)).collect();
        assert_eq!(got, want, "{text}");
    }

    #[test]
    fn the_location_says_how_it_was_sent() {
        let cn = Location::from_flags(Some("CN/Zhejiang/Hangzhou"), Some("Asia/Shanghai")).unwrap();
        let text = |applied, surface, engine| location_text(cn.as_ref(), applied, surface, engine, Lang::En);
        let request = text(LocationApplied::Request, Surface::Api, EngineId::Openai);
        assert_eq!(request, "Hangzhou, Zhejiang, CN (Asia/Shanghai) · sent in the request's user_location field");
        assert!(text(LocationApplied::Prompt, Surface::Api, EngineId::Deepseek).ends_with("“User location: …”"));
        assert!(text(LocationApplied::None, Surface::Api, EngineId::Deepseek).contains("not sent"));
        assert!(text(LocationApplied::None, Surface::App, EngineId::Doubao).contains("captured"));
        let none = |engine| location_text(None, LocationApplied::None, Surface::Api, engine, Lang::Zh);
        assert_eq!(none(EngineId::Deepseek), "本批次未设置位置");
        assert!(none(EngineId::Openai).contains("美国"), "OpenAI assumes the United States");
    }

    #[test]
    fn highlights() {
        check(
            "我推荐 Acme 和 acme云",
            &["Acme", "acme云"],
            &[("我推荐 ", false), ("Acme", true), (" 和 ", false), ("acme云", true)],
        );
        check("nothing", &["x"], &[("nothing", false)]);
        check("", &["x"], &[]);
        check("<b>Acme</b>", &["acme", ""], &[("<b>", false), ("Acme", true), ("</b>", false)]);
    }
}
