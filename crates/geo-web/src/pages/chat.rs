//! Chat over local documents (seed 001). Shows an empty state until there is data to show.

use crate::components::EmptyState;
use crate::hooks::use_app;
use crate::i18n::t;
use yew::prelude::*;

/// The page.
#[function_component]
pub fn ChatPage() -> Html {
    let lang = use_app().lang;
    html! {
        <section>
            <h1>{ t(lang, "chat.title") }</h1>
            <EmptyState text={t(lang, "chat.empty").to_string()} />
        </section>
    }
}
