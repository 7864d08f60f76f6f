//! What the pages around the figures share: the analytics page's shell (`section.analytics`
//! under its title) and the empty state that says what is missing, with a link to the page
//! that fills it (create a project, start a run).

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

/// The empty state (`empty-state`) saying `text_key` with one thing to do next: a link
/// styled as a button to `to`, labelled `link_key`.
pub fn empty_with_link(lang: Lang, text_key: &str, to: Route, link_key: &str) -> Html {
    html! {
        <EmptyState text={t(lang, text_key).to_string()}>
            <NavLink {to} class="button">{ t(lang, link_key) }</NavLink>
        </EmptyState>
    }
}
