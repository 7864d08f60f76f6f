//! [`Deferred`]: children rendered one frame after the rest of the page, so a heavy part
//! (the trend of a year of daily runs: hundreds of points and a table of them) never delays
//! what the user came for (the dashboard's cards).

use yew::prelude::*;

/// Props of [`Deferred`].
#[derive(Properties, PartialEq)]
pub struct DeferredProps {
    /// What to show once the page has painted.
    pub children: Html,
    /// Shown until then (a card with the section's heading keeps the layout still).
    #[prop_or_default]
    pub placeholder: Html,
}

/// Renders `placeholder`, then `children` after the next paint.
#[function_component]
pub fn Deferred(props: &DeferredProps) -> Html {
    let shown = use_state(|| false);
    {
        let shown = shown.clone();
        use_effect_with((), move |_| {
            wasm_bindgen_futures::spawn_local(async move {
                crate::web::after_paint().await;
                shown.set(true);
            });
        });
    }
    if *shown {
        props.children.clone()
    } else {
        props.placeholder.clone()
    }
}
