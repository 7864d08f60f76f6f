//! Export: downloads of the stored data. The full JSON export is the backup format of
//! data-model.md (every project, prompt, run and probe; never the key or settings); the
//! selected run can also be downloaded as a single-run JSON, the Probe and Source CSVs and a
//! Markdown report in the interface language, all produced by geo-core's export module.

use crate::components::run_data::{use_run_data, Figures, RunData, SharedRunData};
use crate::components::EmptyState;
use crate::hooks::{report, toast, use_app, use_query, Fetch};
use crate::i18n::{t, tf};
use crate::repo::Repository;
use crate::state::ToastKind;
use crate::web::download;
use geo_core::export::markdown::markdown_report;
use geo_core::export::{probes_csv, run_export, sources_csv, to_json_pretty};
use geo_core::model::Lang;
use yew::prelude::*;

/// A file-name-safe form of a project name: letters and digits (any script) kept,
/// everything else folded to single dashes, at most 40 characters; `project` when empty.
pub fn slug(name: &str) -> String {
    let mut out = String::new();
    for c in name.chars() {
        if c.is_alphanumeric() {
            out.extend(c.to_lowercase());
        } else if !out.ends_with('-') && !out.is_empty() {
            out.push('-');
        }
    }
    let out: String = out.trim_end_matches('-').chars().take(40).collect();
    let out = out.trim_end_matches('-').to_string();
    if out.is_empty() {
        "project".into()
    } else {
        out
    }
}

/// `geo-probe-<project>-<run date>-<what>.<ext>`; the date comes from stored (maybe imported)
/// text, so it passes geo-core's [`geo_core::safe::file_name`] (no slashes, controls or dots
/// that climb directories; security review, finding 10).
pub fn file_name(project: &str, date: &str, what: &str, ext: &str) -> String {
    format!("geo-probe-{}-{}-{what}.{ext}", slug(project), geo_core::safe::file_name(date, "run"))
}

/// One run download.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    RunJson,
    ProbesCsv,
    SourcesCsv,
    Markdown,
}

/// Builds the file for `kind` from `d` (name, MIME type, text).
fn build(d: &RunData, kind: Kind, lang: Lang, now: &str) -> Result<(String, &'static str, String), String> {
    let run = d.run().ok_or("select a run first")?;
    let project = d.project().map_or(run.project_id.as_str(), |p| p.name.as_str());
    let date = d.run_date();
    let id = run.id.as_str();
    Ok(match kind {
        Kind::RunJson => {
            let env = run_export(&d.env, id, now).map_err(|e| e.to_string())?;
            (file_name(project, &date, "run", "json"), "application/json", to_json_pretty(&env))
        }
        Kind::ProbesCsv => {
            (file_name(project, &date, "probes", "csv"), "text/csv", probes_csv(&d.env, id).map_err(|e| e.to_string())?)
        }
        Kind::SourcesCsv => (
            file_name(project, &date, "sources", "csv"),
            "text/csv",
            sources_csv(&d.env, id).map_err(|e| e.to_string())?,
        ),
        Kind::Markdown => {
            let code = match lang {
                Lang::Zh => "zh",
                Lang::En => "en",
            };
            (
                file_name(project, &date, &format!("report-{code}"), "md"),
                "text/markdown",
                markdown_report(&d.env, id, lang).map_err(|e| e.to_string())?,
            )
        }
    })
}

/// The export page.
#[function_component]
pub fn ExportPage() -> Html {
    let app = use_app();
    let lang = app.lang;
    let snapshot = use_query((), |repo, _| async move { repo.snapshot("").await });
    let data = use_run_data(Figures::Export);
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
                let text = geo_core::export::indent_json(&serde_json::to_string(&envelope).unwrap_or_default());
                let name = format!("geo-probe-export-{}.json", now.get(..10).unwrap_or("now"));
                match download(&name, "application/json", &text) {
                    Ok(()) => toast(&app, ToastKind::Ok, t(app.lang, "export.done").to_string()),
                    Err(e) => toast(&app, ToastKind::Error, e),
                }
            });
        })
    };
    let run_data: Option<SharedRunData> = data.ready().and_then(|d| d.clone()).filter(|d| d.metrics.is_some());
    let run_button = |kind: Kind, testid: &'static str, label: &'static str, help: &'static str| {
        let app = app.clone();
        let d = run_data.clone();
        let onclick = Callback::from(move |_: MouseEvent| {
            let Some(d) = d.as_ref() else { return };
            let now = crate::web::now_iso();
            match build(d, kind, app.lang, &now).and_then(|(name, mime, text)| download(&name, mime, &text)) {
                Ok(()) => toast(&app, ToastKind::Ok, t(app.lang, "export.done").to_string()),
                Err(e) => toast(&app, ToastKind::Error, e),
            }
        });
        html! {
            <li class="export-item">
                <button type="button" data-testid={testid} disabled={run_data.is_none()} {onclick}>{ t(lang, label) }</button>
                <p class="muted small">{ t(lang, help) }</p>
            </li>
        }
    };
    let run_section = html! {
        <section class="card" aria-labelledby="run-exp-h">
            <h2 id="run-exp-h">{ t(lang, "exp.run_title") }</h2>
            if let Some(d) = run_data.as_ref() {
                <p>{ tf(lang, "exp.run_line", &[("p", d.project().map_or("", |p| p.name.as_str())), ("d", &d.run_date()),
                    ("id", d.run().map_or("", |r| r.id.as_str()))]) }</p>
            } else {
                <p class="muted">{ t(lang, "exp.no_run") }</p>
            }
            <ul class="export-list">
                { run_button(Kind::RunJson, "export-run-json", "exp.run_json", "exp.run_json_help") }
                { run_button(Kind::ProbesCsv, "export-probes-csv", "exp.probes_csv", "exp.probes_csv_help") }
                { run_button(Kind::SourcesCsv, "export-sources-csv", "exp.sources_csv", "exp.sources_csv_help") }
                { run_button(Kind::Markdown, "export-markdown", "exp.markdown", "exp.markdown_help") }
            </ul>
        </section>
    };
    let body = match &snapshot {
        Fetch::Ready(env) if env.projects.is_empty() && env.runs.is_empty() => {
            html! { <EmptyState text={t(lang, "export.empty").to_string()} /> }
        }
        Fetch::Ready(env) => html! {
            <>
                <section class="card" aria-labelledby="full-exp-h">
                    <h2 id="full-exp-h">{ t(lang, "exp.full_title") }</h2>
                    <p>{ tf(lang, "export.counts", &[
                        ("p", &env.projects.len().to_string()), ("q", &env.prompts.len().to_string()),
                        ("r", &env.runs.len().to_string()), ("s", &env.probes.len().to_string()),
                    ]) }</p>
                    <p class="muted">{ t(lang, "export.full_help") }</p>
                    <button type="button" data-testid="export-full-json" onclick={on_full}>{ t(lang, "export.full_json") }</button>
                </section>
                { run_section }
                <p class="notice" role="note">{ t(lang, "exp.privacy") }</p>
            </>
        },
        Fetch::Failed(e) => html! { <p class="error-box" role="alert">{ e.message(lang) }</p> },
        _ => html! { <p class="muted">{ t(lang, "common.loading") }</p> },
    };
    html! {
        <section>
            <h1>{ t(lang, "export.title") }</h1>
            { body }
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names_are_safe_and_descriptive() {
        assert_eq!(slug("元构场 GEO 监测"), "元构场-geo-监测");
        assert_eq!(slug("  /../ "), "project");
        assert_eq!(slug("a/b\\c:d"), "a-b-c-d");
        assert_eq!(file_name("Acme Inc.", "2026-11-30", "probes", "csv"), "geo-probe-acme-inc-2026-11-30-probes.csv");
        assert_eq!(file_name("x", "", "run", "json"), "geo-probe-x-run-run.json");
        // Imported text never names another directory or carries a control character.
        assert_eq!(file_name("x", "../../.ssh/\u{1b}[2Jkeys", "run", "json"), "geo-probe-x-ssh-2Jkeys-run.json");
    }
}
