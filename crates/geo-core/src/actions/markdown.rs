//! The actions as Markdown, in Chinese or English: `geo-probe actions --format markdown`
//! and the "what to do next" sections of the run report. Every piece of text from the user,
//! the model or a web page goes through the writer's cell escaping (`text::md`).
//!
//! The run report (`export::markdown`) calls `sections`; this module imports only the
//! writer, never the report. The engine's display name is passed in by the caller (it lives
//! in the engine table, `provider::spec`), so the actions need nothing of `provider`.

use super::{Actions, FanOutQuery, ItemStatus, LinkCounts, LostPrompt, PageRow, WrongFact};
use crate::model::{Lang, Run};
use crate::text::md::{cell_list, decimal, escape_cell, frac, heading, percent, table, Align};

/// The label of a target of the run (its id when unknown).
fn label<'a>(run: &'a Run, id: &'a str) -> &'a str {
    run.alias_snapshot.iter().find(|t| t.id == id).map_or(id, |t| t.label.as_str())
}

/// The text of a prompt of the run (its id when unknown).
fn prompt_text<'a>(run: &'a Run, id: &'a str) -> &'a str {
    run.prompt_snapshot.iter().find(|p| p.id == id && !p.text.is_empty()).map_or(id, |p| p.text.as_str())
}

/// The word for an item's status.
pub fn status_label(status: Option<ItemStatus>, lang: Lang) -> &'static str {
    match status {
        Some(ItemStatus::New) => lang.pick("新出现", "new"),
        Some(ItemStatus::Open) => lang.pick("仍未解决", "still open"),
        Some(ItemStatus::Solved) => lang.pick("已解决", "solved"),
        None => "—",
    }
}

fn yes(flag: bool) -> String {
    if flag { "✓" } else { "—" }.to_string()
}

/// The rows shown, and a line saying how many more there are.
fn shown<T>(rows: &[T], limit: usize, t: Lang) -> (&[T], Option<String>) {
    if rows.len() <= limit {
        return (rows, None);
    }
    let more = rows.len() - limit;
    (
        &rows[..limit],
        Some(format!("{}\n\n", t.pick(&format!("…另有 {more} 行。"), &format!("… and {more} more rows.")))),
    )
}

/// `actions` as a Markdown document: a title, then every section with every row. `engine`
/// is the display name of the run's engine (`provider::spec(actions.engine).name`).
pub fn actions_markdown(actions: &Actions, run: &Run, project: &str, engine: &str, lang: Lang) -> String {
    let t = lang;
    let date = run.created_at.get(..10).unwrap_or(&run.created_at);
    let mut md =
        format!("# {} · {} · {}\n\n", t.pick("下一步行动", "What to do next"), escape_cell(project), escape_cell(date));
    md.push_str(&format!("- {}: `{}` ({})\n", t.pick("批次", "Run"), run.id.replace('`', "'"), engine));
    if let Some(against) = &actions.against_id {
        md.push_str(&format!("- {}: `{}`\n", t.pick("对比批次", "Compared with"), against.replace('`', "'")));
    }
    md.push('\n');
    sections(&mut md, actions, run, engine, lang, usize::MAX);
    md
}

/// The sections (`##` headings) with at most `limit` rows per table; `engine` is the display
/// name of the run's engine.
pub(crate) fn sections(md: &mut String, a: &Actions, run: &Run, engine: &str, lang: Lang, limit: usize) {
    let t = lang;
    lost_section(md, a, run, t, limit);
    queries_section(md, a, run, t, limit);
    pages_section(md, a, t, limit);
    wrong_facts_section(md, a, run, t, limit);
    links_section(md, a, engine, t, limit);
    solved_section(md, a, run, t);
}

/// The first `limit` of `items` as a table under `head` (and the status column when the run is
/// compared with another), one `row` each, then how many more there are; the rows shown.
fn item_table<'r, T>(
    md: &mut String,
    a: &Actions,
    t: Lang,
    limit: usize,
    head: Vec<(&'static str, Align)>,
    items: &'r [T],
    row: impl Fn(&T) -> Vec<String>,
) -> &'r [T] {
    let head = with_status(head, a, t);
    let (rows, more) = shown(items, limit, t);
    table(md, &head, rows.iter().map(row));
    md.push_str(more.as_deref().unwrap_or(""));
    rows
}

fn with_status(mut head: Vec<(&'static str, Align)>, a: &Actions, t: Lang) -> Vec<(&'static str, Align)> {
    if a.against_id.is_some() {
        head.push((t.pick("状态", "Status"), Align::Left));
    }
    head
}

fn lost_section(md: &mut String, a: &Actions, run: &Run, t: Lang, limit: usize) {
    heading(md, "##", t.pick("失分的提示词", "Prompts you lose"));
    md.push_str(t.pick(
        "竞品在至少三分之一的成功回答中被提到、且比品牌更常被提到的提示词，按可争取的回答数（竞品与品牌的提及差）排序。\n\n",
        "Prompts where a competitor is named in at least a third of the successful answers and more often than the brand, by the answers at stake (the competitor's mentions minus the brand's).\n\n",
    ));
    if a.lost_prompts.is_empty() {
        md.push_str(t.pick("没有失分的提示词。\n\n", "No prompt is lost.\n\n"));
        return;
    }
    let head = vec![
        ("Prompt", Align::Left),
        (t.pick("品牌提及率（95% 区间）", "Brand mention rate (95% interval)"), Align::Right),
        (t.pick("领先的竞品", "Competitors ahead"), Align::Left),
        (t.pick("品牌落后的回答", "Answers with the brand behind"), Align::Right),
        (t.pick("可争取", "At stake"), Align::Right),
    ];
    item_table(md, a, t, limit, head, &a.lost_prompts, |l| lost_row(l, a, run, t));
}

fn lost_row(l: &LostPrompt, a: &Actions, run: &Run, t: Lang) -> Vec<String> {
    let competitors = l
        .competitors
        .iter()
        .map(|c| {
            let position = c.avg_list_position.map_or(String::new(), |p| format!(", #{}", decimal(Some(p))));
            format!(
                "{} {} ({}{position})",
                label(run, &c.target_id),
                percent(Some(c.mention_rate)),
                frac(c.mention_count, l.success_count)
            )
        })
        .collect::<Vec<_>>()
        .join("; ");
    let behind = (l.behind_share * f64::from(l.success_count)).round() as u32;
    let mut row = vec![
        prompt_text(run, &l.prompt_id).to_string(),
        format!(
            "{} ({}; {}–{})",
            percent(Some(l.brand_mention_rate)),
            frac(l.brand_mention_count, l.success_count),
            percent(Some(l.brand_low)),
            percent(Some(l.brand_high))
        ),
        competitors,
        format!("{} ({})", percent(Some(l.behind_share)), frac(behind, l.success_count)),
        l.stake.to_string(),
    ];
    if a.against_id.is_some() {
        row.push(status_label(l.status, t).to_string());
    }
    row
}

fn queries_section(md: &mut String, a: &Actions, run: &Run, t: Lang, limit: usize) {
    heading(md, "##", t.pick("引擎运行的搜索", "The searches the engine ran"));
    if a.success_count == 0 {
        md.push_str(t.pick("没有成功的探测。\n\n", "No successful probe.\n\n"));
        return;
    }
    if a.query_probe_count == 0 {
        md.push_str(if a.source_probe_count > 0 {
            t.pick(
                "这些回答没有附带搜索词（例如 Perplexity 不提供）：只能看到带回的来源，看不到搜了什么。\n\n",
                "No search query strings came with these answers (Perplexity, for one, gives none): their sources are known, what was searched for is not.\n\n",
            )
        } else {
            t.pick("这个批次的成功回答没有运行任何搜索。\n\n", "The successful answers of this run ran no search.\n\n")
        });
        return;
    }
    let unowned = a.queries.iter().filter(|q| !q.owned).count();
    md.push_str(t.pick(
        &format!("{} 条不同的搜索词（已归一化），其中 {unowned} 条从未带回自有网站的页面。\n\n", a.queries.len()),
        &format!(
            "{} distinct searches (normalised); {unowned} of them never brought back a page of the own site.\n\n",
            a.queries.len()
        ),
    ));
    let head = vec![
        (t.pick("搜索词", "Query"), Align::Left),
        (t.pick("探测", "Probes"), Align::Right),
        ("Prompt", Align::Left),
        (t.pick("来源域名", "Domains"), Align::Left),
        (t.pick("自有", "Owned"), Align::Left),
        (t.pick("竞品", "Competitor"), Align::Left),
    ];
    item_table(md, a, t, limit, head, &a.queries, |q| query_row(q, a, run, t));
}

/// The first five of `items`, comma-separated, with `…` when there are more.
fn first_five<'a>(items: impl ExactSizeIterator<Item = &'a str>) -> String {
    let n = items.len();
    let mut s = items.take(5).collect::<Vec<_>>().join(", ");
    if n > 5 {
        s.push_str(", …");
    }
    s
}

/// A page's cell: its title and URL (its domain for Gemini's redirects, counted by domain).
fn page_cell(by_domain: bool, domain: &str, title: &str, url: &str, t: Lang) -> String {
    if by_domain {
        format!("{domain} ({})", t.pick("按域名汇总", "by domain"))
    } else if title.is_empty() {
        url.to_string()
    } else {
        format!("{title} — {url}")
    }
}

fn query_row(q: &FanOutQuery, a: &Actions, run: &Run, t: Lang) -> Vec<String> {
    let list = |items: Vec<&str>| first_five(items.into_iter());
    let mut row = vec![
        q.query.clone(),
        q.probe_count.to_string(),
        list(q.prompt_ids.iter().map(|p| prompt_text(run, p)).collect()),
        list(q.domains.iter().map(String::as_str).collect()),
        yes(q.owned),
        yes(q.competitor),
    ];
    if a.against_id.is_some() {
        row.push(status_label(q.status, t).to_string());
    }
    row
}

fn pages_section(md: &mut String, a: &Actions, t: Lang, limit: usize) {
    heading(md, "##", t.pick("值得出现的页面", "Pages to be on"));
    md.push_str(t.pick(
        "失分提示词的成功回答所检索的第三方页面：引擎推荐竞品时读过的页面，按检索到它的回答数排序。\n\n",
        "The third-party pages the successful answers of the lost prompts retrieved: what the engine read when it named a competitor, by the answers that retrieved them.\n\n",
    ));
    if a.lost_prompts.is_empty() {
        md.push_str(
            t.pick("没有失分的提示词，也就没有要争取的页面。\n\n", "No prompt is lost, so no page to win.\n\n"),
        );
        return;
    }
    if a.pages.is_empty() {
        md.push_str(t.pick(
            "失分提示词的回答没有检索到第三方页面。\n\n",
            "The answers of the lost prompts retrieved no third-party page.\n\n",
        ));
        return;
    }
    if a.pages.iter().any(|p| p.by_domain) {
        md.push_str(t.pick(
            "Gemini 只给出每次回答各不相同的跳转链接，这些页面按发布者的域名汇总。\n\n",
            "Gemini gives only redirect links that differ in every answer: those pages are counted by the publisher's domain.\n\n",
        ));
    }
    let head = vec![
        (t.pick("页面", "Page"), Align::Left),
        (t.pick("域名", "Domain"), Align::Left),
        (t.pick("探测", "Probes"), Align::Right),
        (t.pick("被引用", "Cited"), Align::Right),
        (t.pick("标题提到竞品", "Title names a competitor"), Align::Left),
        (t.pick("标题提到品牌", "Title names the brand"), Align::Left),
    ];
    item_table(md, a, t, limit, head, &a.pages, |p| page_row(p, a, t));
}

fn page_row(p: &PageRow, a: &Actions, t: Lang) -> Vec<String> {
    let mut row = vec![
        page_cell(p.by_domain, &p.domain, &p.title, &p.url, t),
        p.domain.clone(),
        p.probe_count.to_string(),
        p.cited_count.to_string(),
        yes(p.names_competitor),
        yes(p.names_brand),
    ];
    if a.against_id.is_some() {
        row.push(status_label(p.status, t).to_string());
    }
    row
}

/// The wrong facts: one table of the facts, one of the pages behind them. Only for a run
/// with a fact sheet, so a report of a run without one is as it was.
fn wrong_facts_section(md: &mut String, a: &Actions, run: &Run, t: Lang, limit: usize) {
    if a.fact_count == 0 {
        return;
    }
    heading(md, "##", t.pick("说错的事实及其背后的页面", "Wrong facts and the pages behind them"));
    md.push_str(t.pick(
        "回答中与事实表矛盾的陈述，按矛盾的句子数排序；页面是这些句子引用的来源：请它们更正，或在引擎读到的地方发布正确的信息。\n\n",
        "The facts of the fact sheet that answers contradict, by the contradicting sentences; the pages are the sources those sentences cite: ask them for a correction, or publish the right figure where the engines read.\n\n",
    ));
    if a.wrong_facts.is_empty() {
        md.push_str(t.pick("没有与事实表矛盾的句子。\n\n", "No sentence contradicts the fact sheet.\n\n"));
        return;
    }
    let head = vec![
        (t.pick("事实", "Fact"), Align::Left),
        (t.pick("对象", "Target"), Align::Left),
        (t.pick("矛盾的句子", "Contradicting sentences"), Align::Right),
        (t.pick("回答", "Answers"), Align::Right),
        (t.pick("说出的值", "Values stated"), Align::Left),
        (t.pick("无来源的句子", "Without a source"), Align::Right),
    ];
    let rows = item_table(md, a, t, limit, head, &a.wrong_facts, |f| wrong_fact_row(f, a, run, t));
    let pages: Vec<(&WrongFact, &super::WrongFactPage)> =
        rows.iter().flat_map(|f| f.pages.iter().map(move |p| (f, p))).collect();
    if pages.is_empty() {
        md.push_str(t.pick(
            "这些句子没有引用任何来源页面（引擎没有给出它们的引用）。\n\n",
            "No source page is behind these sentences (the engine gave no citation for them).\n\n",
        ));
        return;
    }
    let head = [
        (t.pick("事实", "Fact"), Align::Left),
        (t.pick("页面", "Page"), Align::Left),
        (t.pick("域名", "Domain"), Align::Left),
        (t.pick("矛盾的句子", "Contradicting sentences"), Align::Right),
        (t.pick("被引用", "Cited"), Align::Left),
    ];
    let (shown_pages, more) = shown(&pages, limit, t);
    table(
        md,
        &head,
        shown_pages.iter().map(|(f, p)| {
            let page = page_cell(p.by_domain, &p.domain, &p.title, &p.url, t);
            vec![f.label.clone(), page, p.domain.clone(), p.claim_count.to_string(), yes(p.cited)]
        }),
    );
    md.push_str(more.as_deref().unwrap_or(""));
}

fn wrong_fact_row(f: &WrongFact, a: &Actions, run: &Run, t: Lang) -> Vec<String> {
    let values = first_five(f.values.iter().map(String::as_str));
    let mut row = vec![
        f.label.clone(),
        label(run, &f.target_id).to_string(),
        f.claim_count.to_string(),
        f.probe_count.to_string(),
        if values.is_empty() { "—".to_string() } else { values },
        f.unsourced_count.to_string(),
    ];
    if a.against_id.is_some() {
        row.push(status_label(f.status, t).to_string());
    }
    row
}

/// "answer links that do not exist: N of M", in the report's language.
pub fn links_sentence(not_found: u32, checked: u32, lang: Lang) -> String {
    match lang {
        Lang::Zh => format!("不存在的回答链接：{not_found} / {checked}"),
        Lang::En => format!("answer links that do not exist: {not_found} of {checked}"),
    }
}

/// One line of counts: `answer links that do not exist: N of M (ok …, redirect …, not_found
/// …, blocked …, error …)`, what `geo-probe links` prints.
pub fn links_counts_line(c: &LinkCounts) -> String {
    format!(
        "{} (ok {}, redirect {}, not_found {}, blocked {}, error {})",
        links_sentence(c.not_found, c.checked, Lang::En),
        c.ok,
        c.redirect,
        c.not_found,
        c.blocked,
        c.error
    )
}

fn links_section(md: &mut String, a: &Actions, engine: &str, t: Lang, limit: usize) {
    heading(md, "##", t.pick("回答链接是否存在", "Do the answer links exist?"));
    let Some(c) = a.links else {
        md.push_str(t.pick(
            "尚未检查：运行 `geo-probe links FILE --out OUT` 后使用 OUT（或在设置页导入它）。\n\n",
            "Not checked yet: run `geo-probe links FILE --out OUT`, then use OUT (or import it on the settings page).\n\n",
        ));
        return;
    };
    md.push_str(&format!("**{}** ({})\n\n", links_sentence(c.not_found, c.checked, t), engine));
    let counts = [
        (t.pick("正常", "ok"), c.ok),
        (t.pick("跳转后正常", "ok after a redirect"), c.redirect),
        (t.pick("不存在（404/410）", "not found (404/410)"), c.not_found),
        (t.pick("被拦截（401/403/429）", "blocked (401/403/429)"), c.blocked),
        (t.pick("出错（DNS、TLS、超时等）", "error (DNS, TLS, timeout, …)"), c.error),
    ];
    for (name, n) in counts {
        md.push_str(&format!("- {name}: {}\n", frac(n, c.checked)));
    }
    md.push('\n');
    if a.not_found_links.is_empty() {
        return;
    }
    let head = [
        (t.pick("不存在的链接", "Link that does not exist"), Align::Left),
        (t.pick("状态码", "Status"), Align::Right),
        (t.pick("写出它的回答", "Answers that wrote it"), Align::Right),
    ];
    let (rows, more) = shown(&a.not_found_links, limit, t);
    table(
        md,
        &head,
        rows.iter().map(|l| {
            vec![l.url.clone(), l.status.map_or("—".into(), |s| s.to_string()), l.probe_ids.len().to_string()]
        }),
    );
    md.push_str(more.as_deref().unwrap_or(""));
}

fn solved_section(md: &mut String, a: &Actions, run: &Run, t: Lang) {
    let (Some(solved), Some(against)) = (&a.solved, &a.against_id) else { return };
    heading(md, "##", t.pick("已解决", "Solved"));
    md.push_str(t.pick(
        &format!("与批次 `{}` 相比：\n\n", against.replace('`', "'")),
        &format!("Against run `{}`:\n\n", against.replace('`', "'")),
    ));
    let list = |items: Vec<String>| cell_list(&items, "; ");
    md.push_str(&format!(
        "- {}: {}\n- {}: {}\n- {}: {}\n",
        t.pick("不再失分的提示词", "Prompts no longer lost"),
        list(solved.lost_prompts.iter().map(|p| prompt_text(run, p).to_string()).collect()),
        t.pick("现在带回自有页面的搜索", "Searches that now bring back an owned page"),
        list(solved.queries.clone()),
        t.pick("不再需要争取的页面", "Pages no longer to be on"),
        list(solved.pages.clone()),
    ));
    if a.fact_count > 0 {
        let fact_label = |id: &String| {
            run.fact_snapshot
                .iter()
                .flat_map(|s| &s.facts)
                .find(|f| &f.id == id)
                .map_or(id.clone(), |f| f.label.clone())
        };
        md.push_str(&format!(
            "- {}: {}\n",
            t.pick("不再被说错的事实", "Facts no longer stated wrongly"),
            list(solved.wrong_facts.iter().map(fact_label).collect()),
        ));
    }
    md.push('\n');
}
