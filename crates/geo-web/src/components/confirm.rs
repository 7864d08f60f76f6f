//! A modal confirmation built on `<dialog>`: focus moves into it, Escape cancels, focus goes
//! back to whatever opened it when it closes, and the confirm button carries `data-testid="confirm-ok"` (cancel: `confirm-cancel`).

use wasm_bindgen::JsCast;
use web_sys::{HtmlDialogElement, HtmlElement};
use yew::prelude::*;

/// Props of [`ConfirmDialog`].
#[derive(Properties, PartialEq)]
pub struct ConfirmDialogProps {
    /// Question in the heading.
    pub title: AttrValue,
    /// What will happen.
    pub body: AttrValue,
    /// Text of the confirm button.
    pub confirm_label: AttrValue,
    /// Text of the cancel button.
    pub cancel_label: AttrValue,
    /// Called when the user confirms.
    pub on_confirm: Callback<()>,
    /// Called when the user cancels (button, Escape).
    pub on_cancel: Callback<()>,
}

/// A confirmation shown as a modal dialog while it is rendered.
#[function_component]
pub fn ConfirmDialog(props: &ConfirmDialogProps) -> Html {
    let node = use_node_ref();
    {
        let node = node.clone();
        use_effect_with((), move |_| {
            // Whatever had the focus when the dialog opened (the button that asked) gets it
            // back when it closes: a dialog taken out of the page restores nothing by itself.
            let document = web_sys::window().and_then(|w| w.document());
            let opener = document.as_ref().and_then(|d| d.active_element());
            if let Some(dialog) = node.cast::<HtmlDialogElement>() {
                let _ = dialog.show_modal();
            }
            move || {
                if let Some(dialog) = node.cast::<HtmlDialogElement>() {
                    dialog.close();
                }
                let back = opener
                    .filter(|el| el.is_connected())
                    .or_else(|| document.as_ref().and_then(|d| d.get_element_by_id("main")));
                if let Some(el) = back.and_then(|el| el.dyn_into::<HtmlElement>().ok()) {
                    let _ = el.focus();
                }
            }
        });
    }
    let on_cancel_event = {
        let cb = props.on_cancel.clone();
        Callback::from(move |e: Event| {
            e.prevent_default();
            cb.emit(());
        })
    };
    let confirm = props.on_confirm.reform(|_: MouseEvent| ());
    let cancel = props.on_cancel.reform(|_: MouseEvent| ());
    let stop_submit = Callback::from(|e: SubmitEvent| e.prevent_default());
    html! {
        <dialog ref={node} class="dialog" aria-labelledby="confirm-title" aria-describedby="confirm-body"
            oncancel={on_cancel_event} data-testid="confirm-dialog">
            <form method="dialog" onsubmit={stop_submit}>
                <h2 id="confirm-title">{ props.title.clone() }</h2>
                <p id="confirm-body">{ props.body.clone() }</p>
                <div class="row end">
                    <button type="button" class="secondary" onclick={cancel} data-testid="confirm-cancel" autofocus=true>
                        { props.cancel_label.clone() }
                    </button>
                    <button type="button" class="danger" onclick={confirm} data-testid="confirm-ok">
                        { props.confirm_label.clone() }
                    </button>
                </div>
            </form>
        </dialog>
    }
}
