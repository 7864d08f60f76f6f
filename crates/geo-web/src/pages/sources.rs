//! Sources: the selected run's retrieved domains (geo-core's `domains` metrics) in a
//! sortable, filterable table, the channel distribution, new and lost domains against the
//! previous run, a drill-down from a domain to its URLs (titles, queries, ranks) and the
//! outreach gap (domains competitors are retrieved with but the brand never is). The table
//! and the drill-down show 50 rows a page; a drill-down row opens its probe's drawer. The
//! figures are the run's stored metrics: the page reads the run's probes only when a
//! drill-down opens.

use crate::components::analytics::{analytics_page, empty_with_link};
use crate::components::charts::{Bar, BarChart};
use crate::components::metric_card::{ci_text, dec, pct, ratio_title, raw_f64};
use crate::components::pager::{page_bounds, use_page, Pager, PAGE_SIZE};
use crate::components::probe_drawer::{open_probe_button, OpenProbe, StoredDrawer};
use crate::components::run_data::{use_run_data, use_run_probes, Figures, RunDataProps, SharedRunData};
use crate::hooks::{set_on_change, set_on_input, use_app};
use crate::i18n::{t, tf};
use crate::routes::Route;
use geo_core::analysis::platforms::channel_label;
use geo_core::metrics::{DomainMetrics, RunMetrics};
use geo_core::model::{Lang, Ownership, ProbeStatus};
use yew::prelude::*;

/// A sortable column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SortKey {
    /// Domain name.
    Domain,
    /// Probe rate.
    ProbeRate,
    /// Occurrences.
    Occurrences,
    /// Mean rank.
    AvgRank,
    /// Best rank.
    BestRank,
}

/// Sorts `rows` by `key` (ascending when `asc`); missing values last; ties by domain.
pub fn sort_domains(rows: &mut [&DomainMetrics], key: SortKey, asc: bool) {
    use std::cmp::Ordering;
    fn opt<T: PartialOrd>(a: Option<T>, b: Option<T>, asc: bool) -> Ordering {
        match (a, b) {
            (Some(a), Some(b)) => {
                let o = a.partial_cmp(&b).unwrap_or(Ordering::Equal);
                if asc {
                    o
                } else {
                    o.reverse()
                }
            }
            (Some(_), None) => Ordering::Less,
            (None, Some(_)) => Ordering::Greater,
            (None, None) => Ordering::Equal,
        }
    }
    geo_core::sort::sort_by(rows, |a, b| {
        let o = match key {
            SortKey::Domain => {
                let o = a.domain.cmp(&b.domain);
                if asc {
                    o
                } else {
                    o.reverse()
                }
            }
            SortKey::ProbeRate => opt(a.occurrence_rate, b.occurrence_rate, asc),
            SortKey::Occurrences => opt(Some(a.occurrences), Some(b.occurrences), asc),
            SortKey::AvgRank => opt(a.avg_rank, b.avg_rank, asc),
            SortKey::BestRank => opt(a.best_rank, b.best_rank, asc),
        };
        o.then_with(|| a.domain.cmp(&b.domain))
    });
}

/// Whether `d` passes the filters (`text` a case-insensitive substring of domain or
/// platform; `channel`/`ownership` empty for any).
pub fn keep_domain(d: &DomainMetrics, text: &str, channel: &str, ownership: &str) -> bool {
    let text = text.trim().to_lowercase();
    (text.is_empty() || d.domain.to_lowercase().contains(&text) || d.platform.to_lowercase().contains(&text))
        && (channel.is_empty() || d.channel == channel)
        && (ownership.is_empty() || ownership_key(d.ownership) == ownership)
}

/// The JSON key of an ownership.
pub fn ownership_key(o: Ownership) -> &'static str {
    match o {
        Ownership::Owned => "owned",
        Ownership::Competitor => "competitor",
        Ownership::ThirdParty => "third_party",
    }
}

fn ownership_label(o: Ownership, lang: Lang) -> &'static str {
    match o {
        Ownership::Owned => t(lang, "src.owned"),
        Ownership::Competitor => t(lang, "src.competitor"),
        Ownership::ThirdParty => t(lang, "src.third_party"),
    }
}

/// The page.
#[function_component]
pub fn SourcesPage() -> Html {
    let lang = use_app().lang;
    let data = use_run_data(Figures::Sources);
    let body = data.view(lang, |d| match (**d).as_ref().and_then(|d| d.metrics.as_ref().map(|m| (d, m))) {
        Some((d, m)) if !m.domains.is_empty() => html! { <SourcesBody data={d.clone()} /> },
        Some(_) => empty_with_link(lang, "src.none_in_run", Route::Run, "nav.run"),
        None => empty_with_link(lang, "sources.empty", Route::Projects, "nav.projects"),
    });
    analytics_page(lang, "sources.title", body)
}

#[function_component]
fn SourcesBody(p: &RunDataProps) -> Html {
    let lang = use_app().lang;
    let text = use_state(String::new);
    let channel = use_state(String::new);
    let ownership = use_state(String::new);
    let sort = use_state(|| (SortKey::Occurrences, false));
    let open = use_state(|| None::<String>);
    let probe_open: OpenProbe = use_state(|| None::<String>);
    let (page, set_page) = use_page(((*text).clone(), (*channel).clone(), (*ownership).clone(), *sort));
    let Some(m) = p.data.metrics.as_ref() else { return html! {} };
    // The cited-rate column exists only for runs whose engine gave citation data.
    let cited = m.counts.citation_probe_count > 0;

    let mut rows: Vec<&DomainMetrics> =
        m.domains.iter().filter(|d| keep_domain(d, &text, &channel, &ownership)).collect();
    sort_domains(&mut rows, sort.0, sort.1);
    let (page, row_from, row_to) = page_bounds(rows.len(), page, PAGE_SIZE);
    let mut channels: Vec<&str> = m.domains.iter().map(|d| d.channel.as_str()).collect();
    geo_core::sort::sort(&mut channels);
    channels.dedup();

    let on_text = set_on_input(&text);
    let on_channel = set_on_change(&channel);
    let on_own = set_on_change(&ownership);
    let header = |key: SortKey, label: &str, num: bool| {
        let sort = sort.clone();
        let (cur, asc) = *sort;
        let aria = if cur == key {
            if asc {
                "ascending"
            } else {
                "descending"
            }
        } else {
            "none"
        };
        let arrow = if cur == key {
            if asc {
                " ▲"
            } else {
                " ▼"
            }
        } else {
            ""
        };
        let onclick = Callback::from(move |_: MouseEvent| {
            let (cur, asc) = *sort;
            sort.set(if cur == key {
                (key, !asc)
            } else {
                (key, key == SortKey::Domain || key == SortKey::AvgRank || key == SortKey::BestRank)
            });
        });
        html! {
            <th scope="col" aria-sort={aria} class={classes!(num.then_some("num"))}>
                <button type="button" class="sort" {onclick} data-testid={format!("sort-{key:?}").to_lowercase()}>{ format!("{label}{arrow}") }</button>
            </th>
        }
    };

    html! {
        <>
            <div class="card filters" role="search">
                <label class="field">
                    <span class="label-text">{ t(lang, "src.filter") }</span>
                    <input type="search" data-testid="source-filter" value={(*text).clone()} oninput={on_text} />
                </label>
                <label class="field">
                    <span class="label-text">{ t(lang, "src.channel") }</span>
                    <select data-testid="source-channel" onchange={on_channel}>
                        <option value="" selected={channel.is_empty()}>{ t(lang, "src.all") }</option>
                        { for channels.iter().map(|c| html! { <option value={c.to_string()} selected={*channel == *c}>{ channel_label(c, lang).to_string() }</option> }) }
                    </select>
                </label>
                <label class="field">
                    <span class="label-text">{ t(lang, "src.ownership") }</span>
                    <select data-testid="source-ownership" onchange={on_own}>
                        <option value="" selected={ownership.is_empty()}>{ t(lang, "src.all") }</option>
                        { for [Ownership::Owned, Ownership::Competitor, Ownership::ThirdParty].into_iter().map(|o| html! {
                            <option value={ownership_key(o)} selected={*ownership == ownership_key(o)}>{ ownership_label(o, lang) }</option>
                        }) }
                    </select>
                </label>
                <p class="muted" aria-live="polite">{ tf(lang, "src.shown", &[("n", &rows.len().to_string()), ("m", &m.domains.len().to_string())]) }</p>
            </div>
            <div class="table-wrap card">
                <table data-testid="source-table">
                    <caption class="sr-only">{ t(lang, "src.caption") }</caption>
                    <thead><tr>
                        { header(SortKey::Domain, t(lang, "src.domain"), false) }
                        { header(SortKey::ProbeRate, t(lang, "src.probe_rate"), true) }
                        { header(SortKey::Occurrences, t(lang, "src.occurrences"), true) }
                        <th scope="col" class="num">{ t(lang, "src.share") }</th>
                        { header(SortKey::AvgRank, t(lang, "src.avg_rank"), true) }
                        { header(SortKey::BestRank, t(lang, "src.best_rank"), true) }
                        <th scope="col">{ t(lang, "src.platform") }</th>
                        <th scope="col">{ t(lang, "src.channel") }</th>
                        <th scope="col">{ t(lang, "src.ownership") }</th>
                        if cited { <th scope="col" class="num">{ t(lang, "src.cited_rate") }</th> }
                    </tr></thead>
                    <tbody>
                        { for rows[row_from..row_to].iter().map(|d| {
                            let dom = d.domain.clone();
                            let is_open = open.as_deref() == Some(dom.as_str());
                            let toggle = { let open = open.clone(); let dom = dom.clone(); Callback::from(move |_: MouseEvent| open.set(if is_open { None } else { Some(dom.clone()) })) };
                            // Keyed by domain: rows of another run's table are matched by
                            // domain, never left behind (an unkeyed list kept a stale row).
                            html! {
                                <key={dom.clone()}>
                                { source_row(d, m, is_open, toggle, lang) }
                                if is_open {
                                    <tr class="drill"><td colspan={if cited { "10" } else { "9" }}><DrillDown data={p.data.clone()} domain={dom.clone()} open={probe_open.clone()} /></td></tr>
                                }
                                </>
                            }
                        }) }
                    </tbody>
                </table>
                <Pager total={rows.len()} {page} on_page={set_page} scope="domains" label={t(lang, "pager.domains")} {lang} />
                if rows.is_empty() { <p class="muted">{ t(lang, "src.no_match") }</p> }
            </div>
            <StoredDrawer open={probe_open.clone()} data={p.data.clone()} {lang} />
            <div class="chart-grid">
                { channel_chart(m, lang) }
                { new_lost(m, lang) }
            </div>
            { outreach(m, lang) }
        </>
    }
}

/// One `source-row`: the domain's figures, with `data-cited-rate` (empty without citation
/// data) and, when the run has citation data, its cited rate (successful probes citing a page
/// of the domain ÷ successful probes).
fn source_row(d: &DomainMetrics, m: &RunMetrics, is_open: bool, toggle: Callback<MouseEvent>, lang: Lang) -> Html {
    let dom = d.domain.clone();
    html! {
        <tr data-testid="source-row" data-domain={dom.clone()} data-occurrences={d.occurrences.to_string()}
            data-probe-rate={raw_f64(d.occurrence_rate)} data-cited-rate={raw_f64(d.cited_rate)}
            class={classes!(format!("own-{}", ownership_key(d.ownership)))}>
            <td><button type="button" class="link" onclick={toggle} aria-expanded={is_open.to_string()} data-testid="source-open">{ dom }</button></td>
            <td class="num" title={ratio_title(d.probe_count, m.success_count, d.occurrence_rate_ci, lang)}>
                { pct(d.occurrence_rate) }<div class="muted small">{ ci_text(d.occurrence_rate_ci) }</div>
            </td>
            <td class="num">{ d.occurrences }</td>
            <td class="num" title={ratio_title(d.occurrences, m.counts.occurrence_count, None, lang)}>{ pct(d.occurrence_share) }</td>
            <td class="num">{ dec(d.avg_rank) }</td>
            <td class="num">{ d.best_rank.map_or_else(|| "—".to_string(), |r| r.to_string()) }</td>
            <td>{ d.platform.clone() }</td>
            <td>{ channel_label(&d.channel, lang).to_string() }</td>
            <td>{ ownership_label(d.ownership, lang) }</td>
            if m.counts.citation_probe_count > 0 {
                <td class="num" data-testid="source-cited-rate"
                    title={ratio_title(d.cited_probe_count.unwrap_or(0), m.success_count, None, lang)}>{ pct(d.cited_rate) }</td>
            }
        </tr>
    }
}

#[derive(Properties, PartialEq)]
struct DrillProps {
    data: SharedRunData,
    domain: AttrValue,
    open: OpenProbe,
}

/// The URLs of `domain` in the run's successful probes with their titles, queries and
/// ranks, 50 a page; each names its probe with a button that opens the probe's drawer. The
/// run's probes are read when the first drill-down of the run opens (the table reads none).
#[function_component]
fn DrillDown(p: &DrillProps) -> Html {
    let lang = use_app().lang;
    let (page, set_page) = use_page(p.domain.clone());
    let d = &p.data;
    let probes = use_run_probes(d.metrics.as_ref().map_or_else(String::new, |m| m.run_id.clone()));
    let Some(probes) = probes.ready() else {
        return html! { <p class="muted" role="status">{ t(lang, "common.loading") }</p> };
    };
    let domain = p.domain.as_str();
    let found: Vec<_> = probes
        .iter()
        .filter(|pr| pr.status == ProbeStatus::Success)
        .flat_map(|pr| pr.sources.iter().filter(|s| s.domain == domain).map(move |s| (pr, s)))
        .collect();
    let (page, row_from, row_to) = page_bounds(found.len(), page, PAGE_SIZE);
    html! {
        <>
            <ul class="drill-list" aria-label={tf(lang, "src.urls_of", &[("d", domain)])}>
                { for found[row_from..row_to].iter().map(|(pr, s)| {
                    let in_probe = tf(lang, "src.in_probe", &[("p", &d.prompt_text(&pr.prompt_id)), ("r", &(pr.repeat_index + 1).to_string())]);
                    html! {
                        <li data-testid="source-url" data-url={s.url.clone()} data-probe={pr.id.clone()}>
                            { crate::components::safe_link(&s.url, if s.title.is_empty() { &s.url } else { &s.title }) }
                            <div class="muted small">{ s.url.clone() }</div>
                            <div class="small">{ open_probe_button(&p.open, &pr.id, "probe-link", in_probe.clone(),
                                Some(tf(lang, "pg.open_probe", &[("x", &in_probe)]))) }</div>
                            <ul class="small">
                                { for s.occurrences.iter().map(|o| html! {
                                    <li>{ tf(lang, "src.occurrence", &[("q", o.query.as_deref().unwrap_or("—")), ("r", &o.rank.to_string())]) }</li>
                                }) }
                            </ul>
                        </li>
                    }
                }) }
            </ul>
            <Pager total={found.len()} {page} on_page={set_page} scope="urls" label={tf(lang, "pager.urls", &[("d", domain)])} {lang} />
        </>
    }
}

fn channel_chart(m: &RunMetrics, lang: Lang) -> Html {
    // geo-core's `channels`: the domains' occurrences summed by channel.
    let bars: Vec<Bar> = m
        .channels
        .iter()
        .map(|c| Bar {
            label: channel_label(&c.channel, lang).to_string(),
            fraction: c.occurrence_share.unwrap_or(0.0),
            display: c.occurrences.to_string(),
            testid: "channel-row".into(),
            target: c.channel.clone(),
            raw: c.occurrences.to_string(),
            title: ratio_title(c.occurrences, m.counts.occurrence_count, None, lang),
        })
        .collect();
    html! { <section class="card"><BarChart testid="channel-chart" title={t(lang, "src.channels")} desc={t(lang, "src.channels_desc")} {bars} /></section> }
}

fn new_lost(m: &RunMetrics, lang: Lang) -> Html {
    html! {
        <section class="card" aria-labelledby="newlost-h">
            <h2 id="newlost-h">{ t(lang, "src.new_lost") }</h2>
            if m.previous_run_id.is_none() {
                <p class="muted">{ t(lang, "src.no_previous") }</p>
            } else {
                <div class="two">
                    <div>
                        <h3>{ tf(lang, "src.new", &[("n", &m.new_domains.len().to_string())]) }</h3>
                        <ul class="chips">{ for m.new_domains.iter().map(|d| html! { <li class="chip" data-testid="new-domain" data-domain={d.clone()}>{ d.clone() }</li> }) }</ul>
                    </div>
                    <div>
                        <h3>{ tf(lang, "src.lost", &[("n", &m.lost_domains.len().to_string())]) }</h3>
                        <ul class="chips">{ for m.lost_domains.iter().map(|d| html! { <li class="chip" data-testid="lost-domain" data-domain={d.clone()}>{ d.clone() }</li> }) }</ul>
                    </div>
                </div>
            }
        </section>
    }
}

fn outreach(m: &RunMetrics, lang: Lang) -> Html {
    let g = &m.outreach_gap;
    html! {
        <section class="card" aria-labelledby="gap-h">
            <h2 id="gap-h">{ t(lang, "src.gap") }</h2>
            <p class="muted">{ tf(lang, "src.gap_help", &[("c", &g.competitor_probe_count.to_string()), ("b", &g.brand_probe_count.to_string())]) }</p>
            if g.domains.is_empty() {
                <p class="muted">{ t(lang, "src.gap_none") }</p>
            } else {
                <ol class="gap-list">
                    { for g.domains.iter().map(|d| html! {
                        <li data-testid="gap-domain" data-domain={d.domain.clone()} data-value={d.probe_count.to_string()}>
                            { d.domain.clone() }{ " " }<span class="muted">{ tf(lang, "src.gap_count", &[("n", &d.probe_count.to_string())]) }</span>
                        </li>
                    }) }
                </ol>
            }
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dm(domain: &str, occ: u32, rate: Option<f64>, best: Option<u32>, channel: &str, o: Ownership) -> DomainMetrics {
        DomainMetrics {
            domain: domain.into(),
            platform: String::new(),
            channel: channel.into(),
            ownership: o,
            probe_count: 1,
            occurrence_rate: rate,
            occurrences: occ,
            occurrence_share: None,
            avg_rank: None,
            best_rank: best,
            cited_probe_count: None,
            cited_rate: None,
            occurrence_rate_ci: None,
        }
    }

    #[test]
    fn sorting_and_filtering() {
        let a = dm("a.com", 3, Some(0.5), Some(2), "news", Ownership::Owned);
        let b = dm("b.com", 5, Some(0.2), None, "qa", Ownership::ThirdParty);
        let c = dm("c.com", 3, None, Some(1), "news", Ownership::Competitor);
        let mut rows = vec![&a, &b, &c];
        sort_domains(&mut rows, SortKey::Occurrences, false);
        assert_eq!(rows.iter().map(|d| d.domain.as_str()).collect::<Vec<_>>(), ["b.com", "a.com", "c.com"]);
        sort_domains(&mut rows, SortKey::BestRank, true);
        assert_eq!(rows.iter().map(|d| d.domain.as_str()).collect::<Vec<_>>(), ["c.com", "a.com", "b.com"]);
        sort_domains(&mut rows, SortKey::ProbeRate, false);
        assert_eq!(rows.iter().map(|d| d.domain.as_str()).collect::<Vec<_>>(), ["a.com", "b.com", "c.com"]);
        sort_domains(&mut rows, SortKey::Domain, false);
        assert_eq!(rows[0].domain, "c.com");
        assert!(keep_domain(&a, " A.C ", "", ""));
        assert!(!keep_domain(&a, "", "qa", ""));
        assert!(keep_domain(&c, "", "news", "competitor"));
        assert!(!keep_domain(&c, "", "", "owned"));
    }
}
