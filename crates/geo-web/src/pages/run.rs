//! Run page: choose prompts and settings, then start a run of the selected project.
//! Shows what is missing first (a project, prompts) and the prompts the run would use.

use crate::app::Route;
use crate::components::{EmptyState, NavLink};
use crate::draft::tag_label;
use crate::hooks::{use_app, use_query, Fetch};
use crate::i18n::{t, tf};
use crate::repo::Repository;
use yew::prelude::*;

/// The run page.
#[function_component]
pub fn RunPage() -> Html {
    let app = use_app();
    let lang = app.lang;
    let prompts = use_query(app.project_id.clone(), |repo, project| async move {
        match project {
            Some(id) => repo.prompts_by_project(&id).await,
            None => Ok(Vec::new()),
        }
    });
    let body = match (&app.project_id, &prompts) {
        (None, _) => html! {
            <EmptyState text={t(lang, "run.no_project").to_string()}>
                <NavLink to={Route::Projects} class="button">{ t(lang, "projects.new") }</NavLink>
            </EmptyState>
        },
        (_, Fetch::Ready(list)) if list.is_empty() => html! {
            <EmptyState text={t(lang, "run.no_prompts").to_string()}>
                <NavLink to={Route::Projects} class="button">{ t(lang, "nav.projects") }</NavLink>
            </EmptyState>
        },
        (_, Fetch::Ready(list)) => html! {
            <>
                <h2>{ tf(lang, "run.prompts", &[("n", &list.len().to_string())]) }</h2>
                <ul class="plain">
                    { for list.iter().map(|p| html! {
                        <li key={p.id.clone()}>
                            { p.text.clone() }
                            { for p.tags.iter().map(|tag| html! { <span class="chip">{ tag_label(tag, lang) }</span> }) }
                        </li>
                    }) }
                </ul>
            </>
        },
        (_, Fetch::Failed(e)) => html! { <p class="error-box" role="alert">{ e.to_string() }</p> },
        _ => html! { <p class="muted">{ t(lang, "common.loading") }</p> },
    };
    html! {
        <section>
            <h1>{ t(lang, "run.title") }</h1>
            { body }
        </section>
    }
}
