//! One file per route. Pages read through `use_query` and write through the repository,
//! reporting every write's outcome as a toast.

pub mod chat;
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

use crate::app::Route;
use crate::components::NavLink;
use crate::hooks::use_app;
use crate::i18n::t;
use geo_core::model::{Lang, RunStatus};
use yew::prelude::*;

/// The label of a run status in `lang`.
pub fn status_label(lang: Lang, status: RunStatus) -> &'static str {
    let key = match status {
        RunStatus::Running => "status.running",
        RunStatus::Completed => "status.completed",
        RunStatus::Partial => "status.partial",
        RunStatus::Failed => "status.failed",
        RunStatus::Cancelled => "status.cancelled",
    };
    crate::i18n::t(lang, key)
}

/// The contract string of a run status (`data-value`).
pub fn status_value(status: RunStatus) -> &'static str {
    match status {
        RunStatus::Running => "running",
        RunStatus::Completed => "completed",
        RunStatus::Partial => "partial",
        RunStatus::Failed => "failed",
        RunStatus::Cancelled => "cancelled",
    }
}

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
