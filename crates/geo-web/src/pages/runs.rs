//! Runs of the selected project, newest first, with their engine, status badge, a link to
//! each run's detail and, for the runs going on in this tab, their live progress bars.

use crate::components::analytics::empty_with_link;
use crate::components::progress::RunProgress;
use crate::components::run_status::{status_label, status_value};
use crate::components::table::{head_cells_and_hidden, table, Col};
use crate::components::{EngineLabel, NavLink};
use crate::hooks::{use_app, use_query, Fetch};
use crate::i18n::t;
use crate::repo::Repository;
use crate::routes::Route;
use crate::runner::use_live_run;
use yew::prelude::*;

/// The runs table's columns, before the one of the links to each run.
const RUN_COLS: &[Col] = &[
    ("runs.created", false),
    ("runs.engine", false),
    ("runs.status", false),
    ("runs.model", false),
    ("runs.planned", true),
    ("detail.truncated", true),
];

/// The runs page.
#[function_component]
pub fn RunsPage() -> Html {
    let app = use_app();
    let lang = app.lang;
    let live: Vec<_> =
        use_live_run().into_iter().filter(|l| l.running && Some(&l.project_id) == app.project_id.as_ref()).collect();
    // The runs and their stored summaries (truncated answers): no probe is read.
    let runs = use_query(app.project_id.clone(), |repo, project| async move {
        match project {
            Some(id) => {
                let runs = repo.runs_by_project(&id).await?;
                let summaries = repo.run_summaries(&id).await?;
                let mut rows = Vec::with_capacity(runs.len());
                for r in runs {
                    let s = summaries.iter().find(|s| s.id == r.id);
                    rows.push((r, s.map(|s| s.truncated_count)));
                }
                Ok(rows)
            }
            None => Ok(Vec::new()),
        }
    });
    let body = match &runs {
        Fetch::Ready(list) if list.is_empty() => match app.project_id {
            Some(_) => empty_with_link(lang, "runs.empty", Route::Run, "nav.run"),
            None => empty_with_link(lang, "runs.empty", Route::Projects, "projects.new"),
        },
        Fetch::Ready(list) => html! {
            { table(head_cells_and_hidden(lang, RUN_COLS, "runs.open"), html! {
                    { for list.iter().map(|(r, figures)| html! {
                        <tr key={r.id.clone()} data-testid="run-row" data-id={r.id.clone()} data-status={status_value(r.status)}>
                            <td><time datetime={r.created_at.clone()}>{ r.created_at.replace('T', " ").chars().take(16).collect::<String>() }</time></td>
                            <td><EngineLabel engine={r.config.engine} /></td>
                            <td><span class={classes!("status", status_value(r.status))}>{ status_label(lang, r.status) }</span></td>
                            <td>{ r.config.model.clone() }</td>
                            <td class="num">{ r.planned_probe_count }</td>
                            <td class="num">{ match figures {
                                Some(n) => html! { <span data-testid="run-truncated" data-value={n.to_string()}
                                    class={classes!((*n > 0).then_some("chip warn"))}>{ n }</span> },
                                None => html! { { "—" } },
                            } }</td>

                            <td><NavLink to={Route::RunDetail { id: r.id.clone() }}>{ t(lang, "runs.open") }</NavLink></td>
                        </tr>
                    }) }
            }) }
        },
        Fetch::Failed(e) => html! { <p class="error-box" role="alert">{ e.message(lang) }</p> },
        _ => html! { <p class="muted">{ t(lang, "common.loading") }</p> },
    };
    html! {
        <section>
            <h1>{ t(lang, "runs.title") }</h1>
            { for live.iter().map(|l| html! {
                <div class="card" key={l.run_id.clone()}>
                    <p><EngineLabel engine={l.engine} /></p>
                    <RunProgress progress={l.progress} {lang} running={true} />
                    <NavLink to={Route::RunDetail { id: l.run_id.clone() }}>{ t(lang, "run.open_detail") }</NavLink>
                </div>
            }) }
            { body }
        </section>
    }
}
