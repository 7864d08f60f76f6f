//! An engine's name as a small badge (`run-engine-label`, `data-value` = the engine id), the
//! same on the runs list, the run detail, the run page and the Engines page.

use geo_core::model::EngineId;
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
