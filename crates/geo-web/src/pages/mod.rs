//! One file per route (or one folder, its `mod.rs` and the page's own pieces beside it), and
//! the not-found page. Pages read through `use_query` and write through the repository,
//! reporting every write's outcome as a toast. A page imports no other page: what two pages
//! share lives in `components/`, `hooks/` or a top-level module.

pub mod actions;
pub mod chat;
pub mod claims;
pub mod dashboard;
pub mod engines;
pub mod export;
pub mod lists;
pub mod projects;
pub mod run;
pub mod run_detail;
pub mod runs;
pub mod settings;
pub mod sources;

use crate::components::NavLink;
use crate::hooks::use_app;
use crate::i18n::t;
use crate::routes::Route;
use yew::prelude::*;

/// Shown for unknown paths.
#[function_component]
pub fn NotFoundPage() -> Html {
    let lang = use_app().lang;
    html! {
        <section>
            <h1>{ t(lang, "common.not_found") }</h1>
            <NavLink to={Route::Dashboard}>{ t(lang, "common.go_home") }</NavLink>
        </section>
    }
}
