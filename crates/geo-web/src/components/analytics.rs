//! What the pages around the figures share: the analytics page's shell (`section.analytics`
//! under its title; a run's page also with its help, loading state and run) and the empty state
//! that says what is missing, with a link to the page that fills it (create a project, start a run).

use super::empty::EmptyState;
use super::nav_link::NavLink;
use crate::i18n::t;
use crate::routes::Route;
use geo_core::model::Lang;
use yew::prelude::*;

/// An analytics page: the title (`title_key`) over `body`, in `section.analytics`.
pub fn analytics_page(lang: Lang, title_key: &str, body: Html) -> Html {
    html! {
        <section class="analytics">
            <h1>{ t(lang, title_key) }</h1>
            { body }
        </section>
    }
}

/// An analytics page of the shown run (`section.analytics`, test id `testid`): `data-state` is
/// `ready` once its data is read and `loading` before, `data-run` the run's id (empty without
/// one); the title (`title_key`) and its help (`help_key`) over `body`.
pub fn run_analytics_page(
    lang: Lang,
    testid: &'static str,
    ready: bool,
    run_id: Option<String>,
    title_key: &str,
    help_key: &str,
    body: Html,
) -> Html {
    html! {
        <section class="analytics" data-testid={testid} data-state={if ready { "ready" } else { "loading" }}
            data-run={run_id.unwrap_or_default()}>
            <h1>{ t(lang, title_key) }</h1>
            <p class="muted">{ t(lang, help_key) }</p>
            { body }
        </section>
    }
}

/// The empty state (`empty-state`) saying `text_key` with one thing to do next: a link
/// styled as a button to `to`, labelled `link_key`.
pub fn empty_with_link(lang: Lang, text_key: &str, to: Route, link_key: &str) -> Html {
    html! {
        <EmptyState text={t(lang, text_key).to_string()}>
            <NavLink {to} class="button">{ t(lang, link_key) }</NavLink>
        </EmptyState>
    }
}
