//! The documents card of the Docs chat: files picked or dropped (checked, read, indexed),
//! the sample documents, one message per refused file, and the loaded documents with a
//! remove button each.

use super::state::{Docs, DocsAction};
use crate::chat::files::{check_file, looks_binary};
use crate::chat::samples::fetch_samples;
use crate::hooks::use_app;
use crate::i18n::{t, tf};
use geo_core::chat::{load_document, Document};
use geo_core::model::Lang;
use web_sys::HtmlInputElement;
use yew::prelude::*;

/// Reads picked or dropped files: checks each (type, size, total), reads the accepted ones
/// and returns the documents plus one message per refused file.
async fn read_files(files: Vec<web_sys::File>, already: u64, lang: Lang) -> (Vec<(Document, u64)>, Vec<String>) {
    let mut loaded = already;
    let mut docs = Vec::new();
    let mut errors = Vec::new();
    for file in files {
        let (name, size) = (file.name(), file.size().max(0.0) as u64);
        if let Err(msg) = check_file(&name, &file.type_(), size, loaded, lang) {
            errors.push(msg);
            continue;
        }
        let text = wasm_bindgen_futures::JsFuture::from(file.text()).await.ok().and_then(|v| v.as_string());
        match text {
            Some(text) if !looks_binary(&text) => {
                loaded += size;
                docs.push((load_document(name, &text), size));
            }
            Some(_) => errors.push(tf(lang, "chat.file_not_text", &[("name", &name)])),
            None => errors.push(tf(lang, "chat.file_unreadable", &[("name", &name)])),
        }
    }
    (docs, errors)
}

/// `FileList` → `Vec<File>`.
fn file_vec(list: Option<web_sys::FileList>) -> Vec<web_sys::File> {
    let Some(list) = list else { return Vec::new() };
    (0..list.length()).filter_map(|i| list.get(i)).collect()
}

/// Props of [`DocsCard`].
#[derive(Properties, PartialEq)]
pub(super) struct DocsCardProps {
    pub(super) docs: UseReducerHandle<Docs>,
}

/// The documents card: pick or drop files (checked, read, indexed), the sample documents,
/// one message per refused file, and the loaded documents with a remove button each.
#[function_component]
pub(super) fn DocsCard(props: &DocsCardProps) -> Html {
    let lang = use_app().lang;
    let docs = props.docs.clone();
    let file_errors = use_state(Vec::<String>::new);
    let dragging = use_state(|| false);
    let add_files = {
        let (docs, file_errors) = (docs.clone(), file_errors.clone());
        Callback::from(move |files: Vec<web_sys::File>| {
            if files.is_empty() {
                return;
            }
            let (docs, file_errors) = (docs.clone(), file_errors.clone());
            let already = docs.bytes();
            wasm_bindgen_futures::spawn_local(async move {
                let (new, errors) = read_files(files, already, lang).await;
                if !new.is_empty() {
                    docs.dispatch(DocsAction::Add(new));
                }
                file_errors.set(errors);
            });
        })
    };
    let on_pick = {
        let add_files = add_files.clone();
        Callback::from(move |e: Event| {
            let input: HtmlInputElement = e.target_unchecked_into();
            let files = file_vec(input.files());
            input.set_value("");
            add_files.emit(files);
        })
    };
    let on_drag_over = {
        let dragging = dragging.clone();
        Callback::from(move |e: DragEvent| {
            e.prevent_default();
            if !*dragging {
                dragging.set(true);
            }
        })
    };
    let on_drag_leave = {
        let dragging = dragging.clone();
        Callback::from(move |_: DragEvent| dragging.set(false))
    };
    let on_drop = {
        let (add_files, dragging) = (add_files.clone(), dragging.clone());
        Callback::from(move |e: DragEvent| {
            e.prevent_default();
            dragging.set(false);
            add_files.emit(file_vec(e.data_transfer().and_then(|d| d.files())));
        })
    };
    let on_samples = {
        let (docs, file_errors) = (docs.clone(), file_errors.clone());
        Callback::from(move |_: MouseEvent| {
            let (docs, file_errors) = (docs.clone(), file_errors.clone());
            wasm_bindgen_futures::spawn_local(async move {
                match fetch_samples().await {
                    Ok(samples) => {
                        let new = samples
                            .iter()
                            .map(|(name, text)| (load_document(*name, text), text.len() as u64))
                            .collect();
                        docs.dispatch(DocsAction::Add(new));
                        file_errors.set(Vec::new());
                    }
                    Err(detail) => file_errors.set(vec![tf(lang, "chat.samples_failed", &[("detail", &detail)])]),
                }
            });
        })
    };
    let doc_rows = docs.iter().map(|(doc, bytes)| {
        let remove = {
            let (docs, name) = (docs.clone(), doc.name.clone());
            Callback::from(move |_: MouseEvent| docs.dispatch(DocsAction::Remove(name.clone())))
        };
        html! {
            <li class="chat-doc" data-testid="chat-doc-row" data-name={doc.name.clone()} data-chunks={doc.chunks.len().to_string()}>
                <span class="chat-doc-name">{ doc.name.clone() }</span>
                <span class="muted">{ tf(lang, "chat.doc_meta", &[("chunks", &doc.chunks.len().to_string()), ("kb", &format!("{:.1}", bytes as f64 / 1024.0))]) }</span>
                <button type="button" class="secondary" data-testid="chat-doc-remove" onclick={remove}
                    aria-label={tf(lang, "chat.remove_doc", &[("name", &doc.name)])}>{ t(lang, "chat.remove") }</button>
            </li>
        }
    });
    html! {
        <div class="card">
            <h2>{ t(lang, "chat.docs") }</h2>
            <div class={classes!("dropzone", dragging.then_some("dragging"))} data-testid="chat-drop"
                ondragover={on_drag_over.clone()} ondragenter={on_drag_over} ondragleave={on_drag_leave} ondrop={on_drop}>
                <label class="field">
                    <span class="label-text">{ t(lang, "chat.pick") }</span>
                    <input type="file" multiple=true accept=".txt,.md,.markdown,text/plain,text/markdown"
                        data-testid="chat-file-input" onchange={on_pick} aria-describedby="chat-limits" />
                </label>
                <p id="chat-limits" class="muted">{ t(lang, "chat.drop_help") }</p>
            </div>
            <div class="row">
                <button type="button" class="secondary" data-testid="chat-load-sample" onclick={on_samples}>{ t(lang, "chat.load_sample") }</button>
            </div>
            if !file_errors.is_empty() {
                <ul class="error-box" data-testid="chat-file-errors" role="alert">
                    { for file_errors.iter().map(|m| html! { <li>{ m.clone() }</li> }) }
                </ul>
            }
            if docs.is_empty() {
                <p class="empty" data-testid="empty-state">{ t(lang, "chat.empty") }</p>
            } else {
                <ul class="chat-docs">{ for doc_rows }</ul>
            }
        </div>
    }
}
