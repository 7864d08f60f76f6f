//! The progress of computing run summaries (`summary-progress`): shown while a page waits
//! for the summaries of runs stored before summaries existed, or of a large run just probed.

use crate::i18n::tf;
use crate::repo::summaries;
use geo_core::model::Lang;
use std::rc::Rc;
use yew::prelude::*;

/// Props of [`SummaryProgress`].
#[derive(Properties, PartialEq)]
pub struct SummaryProgressProps {
    /// Interface language.
    pub lang: Lang,
}

/// `summary-progress` with `data-done` and `data-total` (runs), or nothing when no
/// computation runs.
#[function_component]
pub fn SummaryProgress(props: &SummaryProgressProps) -> Html {
    let update = use_force_update();
    use_effect_with((), move |_| {
        let id = summaries::subscribe(Rc::new(move || update.force_update()));
        move || summaries::unsubscribe(id)
    });
    let Some((done, total)) = summaries::progress() else { return html! {} };
    let (d, n) = (done.to_string(), total.to_string());
    html! {
        <div class="run-progress" data-testid="summary-progress" data-done={d.clone()} data-total={n.clone()}
            role="status" aria-live="polite">
            <progress max={total.max(1).to_string()} value={d.clone()}></progress>
            <p class="progress-text">{ tf(props.lang, "summaries.progress", &[("done", &d), ("total", &n)]) }</p>
        </div>
    }
}
