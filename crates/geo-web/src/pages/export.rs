//! Export: downloads of the stored data. The full JSON export is the backup format of
//! data-model.md (every project, prompt, run and probe; never the key or settings).

use crate::components::EmptyState;
use crate::hooks::{report, toast, use_app, use_query, Fetch};
use crate::i18n::{t, tf};
use crate::repo::Repository;
use crate::state::ToastKind;
use wasm_bindgen::JsCast;
use yew::prelude::*;

/// Offers `text` as a file download named `name`.
pub fn download(name: &str, mime: &str, text: &str) -> Result<(), String> {
    let fail = |_| "the browser refused the download: allow downloads for this page".to_string();
    let parts = js_sys::Array::of1(&wasm_bindgen::JsValue::from_str(text));
    let options = web_sys::BlobPropertyBag::new();
    options.set_type(mime);
    let blob = web_sys::Blob::new_with_str_sequence_and_options(&parts, &options).map_err(fail)?;
    let url = web_sys::Url::create_object_url_with_blob(&blob).map_err(fail)?;
    let document = web_sys::window().and_then(|w| w.document()).ok_or("no document")?;
    let a: web_sys::HtmlAnchorElement = document.create_element("a").map_err(fail)?.unchecked_into();
    a.set_href(&url);
    a.set_download(name);
    a.click();
    let _ = web_sys::Url::revoke_object_url(&url);
    Ok(())
}

/// The export page.
#[function_component]
pub fn ExportPage() -> Html {
    let app = use_app();
    let lang = app.lang;
    let snapshot = use_query((), |repo, _| async move { repo.snapshot("").await });
    let on_full = {
        let app = app.clone();
        Callback::from(move |_: MouseEvent| {
            let app = app.clone();
            let Some(repo) = app.repo().cloned() else { return };
            wasm_bindgen_futures::spawn_local(async move {
                let now = crate::web::now_iso();
                let result = repo.snapshot(&now).await;
                if let Err(e) = &result {
                    report(&app, &Err::<(), _>(e.clone()), None);
                    return;
                }
                let envelope = result.expect("checked above");
                let text = serde_json::to_string_pretty(&envelope).unwrap_or_default();
                let name = format!("geo-probe-export-{}.json", now.get(..10).unwrap_or("now"));
                match download(&name, "application/json", &text) {
                    Ok(()) => toast(&app, ToastKind::Ok, t(app.lang, "export.done").to_string()),
                    Err(e) => toast(&app, ToastKind::Error, e),
                }
            });
        })
    };
    let body = match &snapshot {
        Fetch::Ready(env) if env.projects.is_empty() && env.runs.is_empty() => {
            html! { <EmptyState text={t(lang, "export.empty").to_string()} /> }
        }
        Fetch::Ready(env) => html! {
            <>
                <p>{ tf(lang, "export.counts", &[
                    ("p", &env.projects.len().to_string()), ("q", &env.prompts.len().to_string()),
                    ("r", &env.runs.len().to_string()), ("s", &env.probes.len().to_string()),
                ]) }</p>
                <p class="muted">{ t(lang, "export.full_help") }</p>
                <button type="button" data-testid="export-full-json" onclick={on_full}>{ t(lang, "export.full_json") }</button>
            </>
        },
        Fetch::Failed(e) => html! { <p class="error-box" role="alert">{ e.to_string() }</p> },
        _ => html! { <p class="muted">{ t(lang, "common.loading") }</p> },
    };
    html! {
        <section>
            <h1>{ t(lang, "export.title") }</h1>
            { body }
        </section>
    }
}
