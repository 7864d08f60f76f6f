//! Settings: each engine's API key and where the keys are kept (Web Storage only), each
//! engine's custom API base URL (application settings in IndexedDB), importing a full export,
//! and clearing all data.

mod data;
mod fields;
mod form;

use crate::components::ConfirmDialog;
use crate::hooks::use_app;
use crate::i18n::t;
use data::{DataCard, DemoSection};
use fields::{deepseek_fields, other_engine_fields, proxy_fields};
use form::{clear_all, save_engines, use_engine_form};
use yew::prelude::*;

/// The settings page.
#[function_component]
pub fn SettingsPage() -> Html {
    let app = use_app();
    let lang = app.lang;
    let form = use_engine_form();
    let confirm_clear = use_state(|| false);
    let on_save = save_engines(&app, &form);
    let open_clear = {
        let confirm_clear = confirm_clear.clone();
        Callback::from(move |_: MouseEvent| confirm_clear.set(true))
    };
    let cancel_clear = {
        let confirm_clear = confirm_clear.clone();
        Callback::from(move |_| confirm_clear.set(false))
    };
    let do_clear = clear_all(&app, &form, &confirm_clear);

    html! {
        <section>
            <h1>{ t(lang, "settings.title") }</h1>
            <form class="card" onsubmit={on_save} aria-labelledby="key-heading">
                { deepseek_fields(&app, &form) }
                { proxy_fields(&app, &form) }
                { other_engine_fields(&app, &form) }
            </form>
            <DataCard on_clear={open_clear} />
            <DemoSection />
            if *confirm_clear {
                <ConfirmDialog title={t(lang, "settings.clear_title").to_string()} body={t(lang, "settings.clear_body").to_string()}
                    confirm_label={t(lang, "settings.clear").to_string()} cancel_label={t(lang, "common.cancel").to_string()}
                    on_confirm={do_clear} on_cancel={cancel_clear} />
            }
        </section>
    }
}
