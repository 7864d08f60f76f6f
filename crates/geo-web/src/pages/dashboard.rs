//! Dashboard: metrics of the selected project's latest run. Until a run exists it says
//! what to do first.

use crate::app::Route;
use crate::components::{EmptyState, NavLink};
use crate::hooks::{use_app, use_query, Fetch};
use crate::i18n::{t, tf};
use crate::repo::Repository;
use yew::prelude::*;

/// The dashboard page.
#[function_component]
pub fn DashboardPage() -> Html {
    let app = use_app();
    let lang = app.lang;
    let runs = use_query(app.project_id.clone(), |repo, project| async move {
        match project {
            Some(id) => repo.runs_by_project(&id).await,
            None => Ok(Vec::new()),
        }
    });
    let body = match (&app.project_id, &runs) {
        (None, _) => html! {
            <EmptyState text={t(lang, "dashboard.no_project").to_string()}>
                <NavLink to={Route::Projects} class="button">{ t(lang, "projects.new") }</NavLink>
            </EmptyState>
        },
        (_, Fetch::Ready(runs)) if runs.is_empty() => html! {
            <EmptyState text={t(lang, "dashboard.empty").to_string()}>
                <NavLink to={Route::Run} class="button">{ t(lang, "nav.run") }</NavLink>
            </EmptyState>
        },
        (_, Fetch::Ready(runs)) => html! {
            <p>
                { tf(lang, "dashboard.runs_count", &[("n", &runs.len().to_string())]) }{ " " }
                <NavLink to={Route::Runs}>{ t(lang, "dashboard.open_runs") }</NavLink>
            </p>
        },
        (_, Fetch::Failed(e)) => html! { <p class="error-box" role="alert">{ e.to_string() }</p> },
        _ => html! { <p class="muted">{ t(lang, "common.loading") }</p> },
    };
    html! {
        <section>
            <h1>{ t(lang, "dashboard.title") }</h1>
            { body }
        </section>
    }
}
