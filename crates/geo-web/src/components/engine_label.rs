//! An engine's name as a small badge (`run-engine-label`, `data-value` = the engine id), the
//! same on the runs list, the run detail, the run page and the Engines page; beside it, an
//! `app` run's surface badge (`surface-badge`: answers captured from the assistant's app).

use crate::i18n::t;
use geo_core::model::{EngineId, Lang, Surface};
use geo_core::provider::spec;
use yew::prelude::*;

/// Props of [`EngineLabel`].
#[derive(Properties, PartialEq)]
pub struct EngineLabelProps {
    /// The engine shown.
    pub engine: EngineId,
}

/// `<span class="engine-label" data-testid="run-engine-label" data-value="openai">ChatGPT</span>`.
#[function_component]
pub fn EngineLabel(props: &EngineLabelProps) -> Html {
    let id = props.engine.as_str();
    html! {
        <span class={classes!("engine-label", id)} data-testid="run-engine-label" data-value={id}>{ spec(props.engine).name }</span>
    }
}

/// The badge of a run's surface: for an `app` run `<span data-testid="surface-badge"
/// data-value="app">应用</span>` (geo-core's [`Surface::label`]), nothing for an `api` run, the
/// surface every run had before captures.
pub fn surface_badge(surface: Surface, lang: Lang) -> Html {
    if surface.is_api() {
        return html! {};
    }
    html! {
        <span class="chip surface-app" data-testid="surface-badge" data-value={surface.as_str()}
            title={t(lang, "surface.app_title")}>{ surface.label(lang) }</span>
    }
}
