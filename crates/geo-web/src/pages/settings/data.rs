//! The settings page's data cards: importing a full export (refused from its size first,
//! then run in the import worker, each stage shown), clearing all data, and restoring or
//! deleting the demo project.

use crate::components::ConfirmDialog;
use crate::hooks::{report, toast, use_app};
use crate::i18n::{t, tf};
use crate::prefs;
use crate::repo::Repository;
use crate::state::{Action, AppHandle, ToastKind};
use geo_core::model::Lang;
use web_sys::HtmlInputElement;
use yew::prelude::*;

/// The refusal of a file of `bytes` bytes before reading it, when it is over the import
/// limit ([`geo_core::limits::MAX_EXPORT_BYTES`]); the browser would otherwise read it all.
pub fn import_size_refusal(bytes: f64, lang: Lang) -> Option<String> {
    let limit = geo_core::limits::MAX_EXPORT_BYTES;
    (bytes > limit as f64).then(|| {
        let bytes = if bytes.is_finite() { bytes as usize } else { usize::MAX };
        geo_core::export::ImportError::too_large(bytes, limit).describe().get(lang).to_string()
    })
}

#[derive(Properties, PartialEq)]
pub(super) struct DataCardProps {
    /// Asks to clear all data (the page confirms first).
    pub(super) on_clear: Callback<MouseEvent>,
}

/// The data card: importing a full export (`settings-import-file`, its stages and outcome in
/// `import-result`) and the button that clears all data (`data-clear`).
#[function_component]
pub(super) fn DataCard(p: &DataCardProps) -> Html {
    let app = use_app();
    let lang = app.lang;
    // The import's outcome or stage: `data-status` (`pending`, `ok`, `error`: the contract's names) and its text.
    let import_result = use_state(|| None::<(&'static str, String)>);
    let on_import = {
        let (app, import_result) = (app.clone(), import_result.clone());
        Callback::from(move |e: Event| {
            let input: HtmlInputElement = e.target_unchecked_into();
            let Some(file) = input.files().and_then(|f| f.get(0)) else { return };
            input.set_value("");
            import_file(&app, file, &import_result);
        })
    };
    let importing = matches!(*import_result, Some(("pending", _)));
    html! {
        <div class="card">
            <h2>{ t(lang, "settings.data") }</h2>
            <p class="muted">{ t(lang, "settings.data_help") }</p>
            <label class="field">
                <span class="label-text">{ t(lang, "settings.import") }</span>
                <input type="file" accept="application/json,.json" data-testid="settings-import-file" onchange={on_import}
                    disabled={importing} aria-describedby="import-result" />
            </label>
            if let Some((status, text)) = (*import_result).clone() {
                <p id="import-result" data-testid="import-result" data-status={status} aria-busy={importing.to_string()}
                    class={match status { "ok" => "ok-box import-result", "error" => "error-box import-result", _ => "muted import-result" }}
                    role="status">{ text }</p>
            }
            <button type="button" class="danger" data-testid="data-clear" onclick={p.on_clear.clone()}>{ t(lang, "settings.clear") }</button>
        </div>
    }
}

/// Imports `file`: refused from its size before reading, then read, checked and analysed
/// and merged in the import worker ([`crate::import_worker::import_file`]), each stage shown in
/// `import_result` and the outcome as a toast.
fn import_file(app: &AppHandle, file: web_sys::File, import_result: &UseStateHandle<Option<(&'static str, String)>>) {
    let (app, import_result) = (app.clone(), import_result.clone());
    let Some(repo) = app.repo().cloned() else { return };
    let lang = app.lang;
    if let Some(msg) = import_size_refusal(file.size(), lang) {
        toast(&app, ToastKind::Error, msg.clone());
        return import_result.set(Some(("error", msg)));
    }
    let mb = format!("{:.1}", file.size() / 1e6);
    import_result.set(Some(("pending", tf(lang, "import.reading", &[("f", &file.name()), ("mb", &mb)]))));
    wasm_bindgen_futures::spawn_local(async move {
        // Read, checked, re-analysed and saved off the main thread; each stage shown.
        let (name, shown_stage) = (file.name(), import_result.clone());
        let on_stage = std::rc::Rc::new(move |s: crate::import_worker::Stage| {
            shown_stage.set(Some(("pending", s.text(lang, &name, &mb))))
        });
        let outcome = crate::import_worker::import_file(&repo, file, lang, on_stage).await;
        let shown = match outcome {
            Ok(report) => (true, report),
            Err(msg) => (false, msg),
        };
        toast(&app, if shown.0 { ToastKind::Ok } else { ToastKind::Error }, shown.1.clone());
        import_result.set(Some((if shown.0 { "ok" } else { "error" }, shown.1)));
    });
}

/// The demo data card: restore (`demo-restore`) and delete (`demo-delete`, after a
/// confirmation) the example project of seed §8.2.
#[function_component]
pub(super) fn DemoSection() -> Html {
    let app = use_app();
    let lang = app.lang;
    let confirm = use_state(|| false);
    let busy = use_state(|| false);
    // How many restores and deletions have ended (`data-done`), so that a test waits for one.
    let done = use_mut_ref(|| 0u32);
    let on_restore = {
        let (app, busy, done) = (app.clone(), busy.clone(), done.clone());
        Callback::from(move |_: MouseEvent| {
            let Some(repo) = app.repo().cloned() else { return };
            let (app, busy, done) = (app.clone(), busy.clone(), done.clone());
            busy.set(true);
            wasm_bindgen_futures::spawn_local(async move {
                match crate::demo::restore_demo(&repo, crate::demo::fetch_demo).await {
                    Ok(counts) => {
                        let project = repo
                            .list_projects()
                            .await
                            .ok()
                            .and_then(|ps| ps.into_iter().find(|p| p.is_demo))
                            .map(|p| p.id);
                        if project.is_some() {
                            prefs::save_project(project.as_deref());
                            app.dispatch(Action::SelectProject(project));
                        }
                        let text = format!(
                            "{} · {} {}",
                            t(app.lang, "demo.restored"),
                            counts.probes,
                            if app.lang == Lang::Zh { "条探测" } else { "probes" }
                        );
                        toast(&app, ToastKind::Ok, text);
                    }
                    Err(e) => toast(&app, ToastKind::Error, e.message(app.lang)),
                }
                *done.borrow_mut() += 1;
                busy.set(false);
            });
        })
    };
    let open_confirm = {
        let confirm = confirm.clone();
        Callback::from(move |_: MouseEvent| confirm.set(true))
    };
    let cancel = {
        let confirm = confirm.clone();
        Callback::from(move |_| confirm.set(false))
    };
    let on_delete = {
        let (app, confirm, busy, done) = (app.clone(), confirm.clone(), busy.clone(), done.clone());
        Callback::from(move |_| {
            confirm.set(false);
            let Some(repo) = app.repo().cloned() else { return };
            let (app, busy, done) = (app.clone(), busy.clone(), done.clone());
            busy.set(true);
            wasm_bindgen_futures::spawn_local(async move {
                let result = crate::demo::delete_demo(&repo).await;
                report(&app, &result, Some(t(app.lang, "demo.deleted").to_string()));
                *done.borrow_mut() += 1;
                busy.set(false);
            });
        })
    };
    html! {
        <section class="card" aria-labelledby="demo-heading" data-testid="demo-card"
            data-state={if *busy { "busy" } else { "idle" }} data-done={done.borrow().to_string()}>
            <h2 id="demo-heading">{ t(lang, "demo.section") }</h2>
            <p class="muted">{ t(lang, "demo.help") }</p>
            <div class="row">
                <button type="button" class="secondary" data-testid="demo-restore" onclick={on_restore} disabled={*busy}>{ t(lang, "demo.restore") }</button>
                <button type="button" class="danger" data-testid="demo-delete" onclick={open_confirm} disabled={*busy}>{ t(lang, "demo.delete") }</button>
            </div>
            if *confirm {
                <ConfirmDialog title={t(lang, "demo.delete_title").to_string()} body={t(lang, "demo.delete_body").to_string()}
                    confirm_label={t(lang, "demo.delete").to_string()} cancel_label={t(lang, "common.cancel").to_string()}
                    on_confirm={on_delete} on_cancel={cancel} />
            }
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import_worker::parse_import;
    use geo_core::model::ExportEnvelope;

    fn empty() -> ExportEnvelope {
        ExportEnvelope::new("")
    }

    #[test]
    fn imports_are_checked_before_merging() {
        let ok = serde_json::json!({"format": "geo-probe-export", "version": 1, "projects": []}).to_string();
        assert!(parse_import(&ok, &empty(), Lang::En).is_ok());
        let wrong = serde_json::json!({"format": "other", "version": 1}).to_string();
        assert!(
            parse_import(&wrong, &empty(), Lang::En).unwrap_err().contains("not a GEO Probe export"),
            "{}",
            parse_import(&wrong, &empty(), Lang::En).unwrap_err()
        );
        assert!(parse_import(&wrong, &empty(), Lang::Zh).unwrap_err().starts_with("这不是 GEO Probe 导出文件"));
        let newer = serde_json::json!({"format": "geo-probe-export", "version": 99}).to_string();
        assert!(parse_import(&newer, &empty(), Lang::En).unwrap_err().contains("99"));
        assert!(parse_import("{", &empty(), Lang::En).is_err());
        // Wrong types are reported with where they are.
        let bad = serde_json::json!({"format": "geo-probe-export", "version": 1, "projects": [{"id": 7}]}).to_string();
        assert!(
            parse_import(&bad, &empty(), Lang::En).unwrap_err().contains("projects[0]"),
            "{}",
            parse_import(&bad, &empty(), Lang::En).unwrap_err()
        );
    }

    /// Finding 3: a crafted file plants a `javascript:` source marked owned, forged mentions
    /// and links on a probe whose run is only in the store (the demo run): they are all
    /// recomputed from the raw answer; a probe whose run is nowhere is refused.
    #[test]
    fn file_supplied_analysis_never_survives_an_import() {
        let demo = parse_import(include_str!("../../../../../demo/demo-data.json"), &empty(), Lang::Zh).unwrap();
        let mut stored = empty();
        stored.projects = demo.projects.clone();
        stored.runs = demo.runs.clone();
        let mut probe = demo.probes[0].clone();
        let honest = probe.clone();
        probe.id = "forged".into();
        let mut forged_source = probe.sources.first().cloned().unwrap_or_else(|| {
            serde_json::from_value(serde_json::json!({"id": "s", "url": "x", "host": "x", "domain": "x",
                "title": "t", "platform": "web", "channel": "other", "ownership": "owned", "bestRank": 1}))
            .unwrap()
        });
        forged_source.url = "javascript:alert(1)".into();
        forged_source.ownership = geo_core::model::Ownership::Owned;
        probe.sources.push(forged_source);
        probe.mentions.clear();
        probe.answer_links.push(geo_core::model::AnswerLink {
            url: "javascript:alert(1)".into(),
            canonical_url: "javascript:alert(1)".into(),
            domain: "x".into(),
            text: None,
            in_sources: true,
        });
        let mut file = empty();
        file.probes.push(probe);
        let text = serde_json::to_string(&file).unwrap();
        let env = parse_import(&text, &stored, Lang::En).expect("a probe of a stored run imports");
        let got = &env.probes[0];
        assert!(got.sources.iter().all(|s| !s.url.starts_with("javascript:")), "{:?}", got.sources);
        assert!(got.answer_links.iter().all(|l| !l.url.starts_with("javascript:")));
        assert_eq!(
            (&got.sources, &got.mentions, &got.answer_links),
            (&honest.sources, &honest.mentions, &honest.answer_links)
        );
        // Without the stored run the probe is an orphan: refused, in both languages.
        let en = parse_import(&text, &empty(), Lang::En).unwrap_err();
        assert!(en.contains("probes[0].runId") && en.contains("nothing was changed"), "{en}");
        let zh = parse_import(&text, &empty(), Lang::Zh).unwrap_err();
        assert!(zh.starts_with("导入失败") && zh.contains("probes[0].runId"), "{zh}");
    }

    /// Finding 9: a file over the limit is refused from its size, before it is read.
    #[test]
    fn oversized_files_are_refused_before_reading() {
        assert_eq!(import_size_refusal(1e6, Lang::En), None);
        let msg = import_size_refusal(3e9, Lang::En).unwrap();
        assert!(msg.contains("import limit is 256.0 MiB"), "{msg}");
        assert!(import_size_refusal(f64::INFINITY, Lang::Zh).unwrap().starts_with("文件太大"));
    }

    #[test]
    fn imported_probes_are_analysed_again() {
        let text = include_str!("../../../../../demo/demo-data.json");
        let env = parse_import(text, &empty(), Lang::Zh).expect("the demo export imports");
        assert!(env.probes.iter().any(|p| !p.mentions.is_empty() && !p.answer.is_empty()), "derived fields recomputed");
    }
}
