//! Retrieved sources by domain over the selected run's successful probes. Shows an empty state until there is data to show.

use crate::app::Route;
use crate::components::{EmptyState, NavLink};
use crate::hooks::use_app;
use crate::i18n::t;
use yew::prelude::*;

/// The page.
#[function_component]
pub fn SourcesPage() -> Html {
    let lang = use_app().lang;
    html! {
        <section>
            <h1>{ t(lang, "sources.title") }</h1>
            <EmptyState text={t(lang, "sources.empty").to_string()}>
                <NavLink to={Route::Projects} class="button">{ t(lang, "nav.projects") }</NavLink>
            </EmptyState>
        </section>
    }
}
