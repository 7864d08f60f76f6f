//! Toasts: a polite live region for successes, an assertive one for errors.

use crate::state::{Toast, ToastKind};
use yew::prelude::*;

/// Props of [`Toasts`].
#[derive(Properties, PartialEq)]
pub struct ToastsProps {
    /// Toasts to show, oldest first.
    pub toasts: Vec<Toast>,
    /// Label of the dismiss button.
    pub dismiss_label: AttrValue,
    /// Label of the region.
    pub region_label: AttrValue,
    /// Called with a toast id when dismissed.
    pub on_dismiss: Callback<u32>,
}

/// The toast corner (`data-testid="toast"`, `data-kind` = `ok` | `error`).
#[function_component]
pub fn Toasts(props: &ToastsProps) -> Html {
    let item = |t: &Toast| {
        let id = t.id;
        let dismiss = props.on_dismiss.reform(move |_: MouseEvent| id);
        let kind = if t.kind == ToastKind::Error { "error" } else { "ok" };
        html! {
            <div class={classes!("toast", kind)} data-testid="toast" data-kind={kind} key={id.to_string()}>
                <span>{ t.text.clone() }</span>
                <button type="button" class="icon" onclick={dismiss} aria-label={props.dismiss_label.clone()}>{ "×" }</button>
            </div>
        }
    };
    let (errors, oks): (Vec<&Toast>, Vec<&Toast>) = props.toasts.iter().partition(|t| t.kind == ToastKind::Error);
    html! {
        <section class="toasts" aria-label={props.region_label.clone()}>
            <div role="alert" aria-live="assertive">{ for errors.into_iter().map(item) }</div>
            <div role="status" aria-live="polite">{ for oks.into_iter().map(item) }</div>
        </section>
    }
}
