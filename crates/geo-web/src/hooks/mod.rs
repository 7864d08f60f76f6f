//! Hooks: [`use_app`] for the shared state, [`use_query`] for live repository reads
//! ([`shared`]: one read for every component asking the same) and
//! [`use_focus_after_render`] for moving the focus to what a click just added; beside them
//! [`field_value`], what a form field holds, and [`set_on_input`], [`set_on_change`] and
//! [`set_on_check`], a form field bound to its state.

pub mod shared;

use crate::i18n::t;
use crate::repo::idb::IdbRepo;
use crate::repo::RepoError;
use crate::state::{Action, AppHandle, ToastKind};
use geo_core::model::Lang;
use std::cell::Cell;
use std::future::Future;
use std::rc::Rc;
use yew::prelude::*;

/// The shared state; panics only if a page is rendered outside `App` (a programming error).
#[hook]
pub fn use_app() -> AppHandle {
    use_context::<AppHandle>().expect("pages are rendered inside App's context provider")
}

/// A repository read in flight or done (`Idle` until the repository is open).
#[derive(Debug, PartialEq)]
pub enum Fetch<T> {
    /// The repository is not open yet.
    Idle,
    /// Reading.
    Loading,
    /// Read.
    Ready(Rc<T>),
    /// The read failed.
    Failed(RepoError),
}

impl<T> Clone for Fetch<T> {
    fn clone(&self) -> Self {
        match self {
            Fetch::Idle => Fetch::Idle,
            Fetch::Loading => Fetch::Loading,
            Fetch::Ready(v) => Fetch::Ready(v.clone()),
            Fetch::Failed(e) => Fetch::Failed(e.clone()),
        }
    }
}

impl<T> Fetch<T> {
    /// The value when ready.
    pub fn ready(&self) -> Option<&T> {
        match self {
            Fetch::Ready(v) => Some(v),
            _ => None,
        }
    }
}

impl<T> Fetch<T> {
    /// What a page shows for this read: `ready(value)` once read, else the read error in
    /// the interface language, or a loading line.
    pub fn view(&self, lang: Lang, ready: impl FnOnce(&Rc<T>) -> Html) -> Html {
        match self {
            Fetch::Ready(v) => ready(v),
            Fetch::Failed(e) => html! { <p class="error-box" role="alert">{ e.message(lang) }</p> },
            _ => html! { <p class="muted">{ t(lang, "common.loading") }</p> },
        }
    }
}

/// Runs `query(repo, deps)` when the repository opens, when `deps` change and after every
/// write (here or in another tab), keeping the latest answer. An older answer that arrives
/// after a newer request is dropped.
#[hook]
pub fn use_query<T, D, F, Fut>(deps: D, query: F) -> Fetch<T>
where
    T: 'static,
    D: PartialEq + Clone + 'static,
    F: FnOnce(IdbRepo, D) -> Fut + 'static,
    Fut: Future<Output = Result<T, RepoError>> + 'static,
{
    let app = use_app();
    let state = use_state(|| Fetch::<T>::Idle);
    let generation = use_mut_ref(|| Rc::new(Cell::new(0u32)));
    let repo = app.repo().cloned();
    {
        let state = state.clone();
        let generation = generation.borrow().clone();
        use_effect_with((deps, app.data_version, repo), move |(deps, _, repo)| {
            if let Some(repo) = repo.clone() {
                let mine = generation.get() + 1;
                generation.set(mine);
                if matches!(*state, Fetch::Idle) {
                    state.set(Fetch::Loading);
                }
                let deps = deps.clone();
                wasm_bindgen_futures::spawn_local(async move {
                    let result = query(repo, deps).await;
                    if generation.get() == mine {
                        state.set(match result {
                            Ok(v) => Fetch::Ready(Rc::new(v)),
                            Err(e) => Fetch::Failed(e),
                        });
                    }
                });
            }
        });
    }
    (*state).clone()
}

/// The value of the field an event came from: its `value` property, which an `<input>`, a
/// `<select>` and a `<textarea>` all have (empty for a target without one). One property read,
/// not a type test per kind of field: the entries link one function.
pub fn field_value(e: &Event) -> String {
    e.target()
        .and_then(|t| js_sys::Reflect::get(&t, &"value".into()).ok())
        .and_then(|v| v.as_string())
        .unwrap_or_default()
}

/// A text field's or text area's `oninput`: its value becomes `state`.
pub fn set_on_input(state: &UseStateHandle<String>) -> Callback<InputEvent> {
    let state = state.clone();
    Callback::from(move |e: InputEvent| state.set(field_value(&e)))
}

/// A `<select>`'s `onchange`: the chosen value becomes `state`.
pub fn set_on_change(state: &UseStateHandle<String>) -> Callback<Event> {
    let state = state.clone();
    Callback::from(move |e: Event| state.set(field_value(&e)))
}

/// A checkbox's `onchange`: whether it is ticked becomes `state`.
pub fn set_on_check(state: &UseStateHandle<bool>) -> Callback<Event> {
    let state = state.clone();
    Callback::from(move |e: Event| state.set(e.target_unchecked_into::<web_sys::HtmlInputElement>().checked()))
}

/// Shows the outcome of a write: the success text, or the error (in the interface language)
/// as an error toast.
pub fn report<T>(app: &AppHandle, result: &Result<T, RepoError>, ok_text: Option<String>) {
    match result {
        Ok(_) => {
            if let Some(text) = ok_text {
                toast(app, ToastKind::Ok, text);
            }
        }
        Err(e) => toast(app, ToastKind::Error, e.message(app.lang)),
    }
}

/// Shows a toast that disappears after a few seconds.
pub fn toast(app: &AppHandle, kind: ToastKind, text: String) {
    let id = app.next_toast_id();
    app.dispatch(Action::Toast(kind, text));
    let dispatcher = app.dispatcher();
    let seconds = if kind == ToastKind::Error { 10 } else { 4 };
    wasm_bindgen_futures::spawn_local(async move {
        yew::platform::time::sleep(std::time::Duration::from_secs(seconds)).await;
        dispatcher.dispatch(Action::Dismiss(id));
    });
}

/// Focuses the element matching `selector`; false when there is none (yet).
pub fn focus(selector: &str) -> bool {
    use wasm_bindgen::JsCast;
    let el = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.query_selector(selector).ok().flatten())
        .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok());
    el.is_some_and(|el| el.focus().is_ok())
}

/// A selector to focus as soon as the component's next render is in the DOM: a callback
/// stores it, and the effect that follows that render (in the same scheduler pass, before the
/// browser handles the next key press) focuses it. A timer would fire later, and on a slow
/// device could take the focus away from a field the user had already moved on to.
#[hook]
pub fn use_focus_after_render() -> std::rc::Rc<std::cell::RefCell<Option<String>>> {
    let pending = use_mut_ref(|| None::<String>);
    {
        let pending = pending.clone();
        use_effect(move || {
            let selector = pending.borrow_mut().take();
            if let Some(selector) = selector {
                if !focus(&selector) {
                    // A child component that renders in a later pass: try once after it.
                    wasm_bindgen_futures::spawn_local(async move {
                        yew::platform::time::sleep(std::time::Duration::from_millis(0)).await;
                        focus(&selector);
                    });
                }
            }
        });
    }
    pending
}
