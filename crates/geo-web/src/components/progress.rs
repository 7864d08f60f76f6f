//! The run progress bar: done of planned, successes and failures of the current session.

use crate::i18n::tf;
use geo_core::model::Lang;
use geo_core::runner::Progress;
use yew::prelude::*;

/// Props of [`RunProgress`].
#[derive(Properties, PartialEq)]
pub struct RunProgressProps {
    /// The session's counters.
    pub progress: Progress,
    /// Interface language.
    pub lang: Lang,
    /// Still running (shows the in-flight count).
    pub running: bool,
}

/// `run-progress` with `data-done`, `data-planned`, `data-failed` (error + empty) and
/// `data-in-flight` (requests sent and not answered yet).
#[function_component]
pub fn RunProgress(props: &RunProgressProps) -> Html {
    let p = props.progress;
    let lang = props.lang;
    html! {
        <div class="run-progress" data-testid="run-progress" data-done={p.done.to_string()}
            data-planned={p.planned.to_string()} data-failed={p.failed.to_string()} data-in-flight={p.in_flight.to_string()}
            data-running={if props.running { "true" } else { "false" }} role="status" aria-live="polite">
            <progress max={p.planned.max(1).to_string()} value={p.done.to_string()}
                aria-label={tf(lang, "run.progress_label", &[("done", &p.done.to_string()), ("planned", &p.planned.to_string())])}></progress>
            <p class="progress-text">
                { tf(lang, "run.progress_text", &[
                    ("done", &p.done.to_string()), ("planned", &p.planned.to_string()),
                    ("ok", &p.success.to_string()), ("failed", &p.failed.to_string()),
                ]) }
                if props.running {
                    { " · " }{ tf(lang, "run.in_flight", &[("n", &p.in_flight.to_string())]) }
                }
            </p>
        </div>
    }
}
