//! Runs of the selected project, newest first, with their engine (and the `app` badge of a run
//! of captured app answers), status badge, a link to each run's detail and, for the runs going
//! on in this tab, their live progress bars; above them, the import of a capture file
//! (`captures-import`: `docs/captures.md`) as a new `app` run, through the import worker.

use crate::components::analytics::empty_with_link;
use crate::components::progress::RunProgress;
use crate::components::run_status::{status_label, status_value};
use crate::components::table::{head_cells_and_hidden, table, Col};
use crate::components::{surface_badge, EngineLabel, NavLink};
use crate::hooks::{set_on_check, toast, use_app, use_query, Fetch};
use crate::i18n::{t, tf};
use crate::import_worker::{Job, Stage};
use crate::repo::Repository;
use crate::routes::Route;
use crate::runner::use_live_run;
use crate::state::{AppHandle, ToastKind};
use geo_core::model::{EngineId, Lang};
use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

/// The runs table's columns, before the one of the links to each run.
const RUN_COLS: &[Col] = &[
    ("runs.created", false),
    ("runs.engine", false),
    ("runs.status", false),
    ("runs.model", false),
    ("runs.planned", true),
    ("detail.truncated", true),
];

/// The runs page.
#[function_component]
pub fn RunsPage() -> Html {
    let app = use_app();
    let lang = app.lang;
    let live: Vec<_> =
        use_live_run().into_iter().filter(|l| l.running && Some(&l.project_id) == app.project_id.as_ref()).collect();
    // The runs and their stored summaries (truncated answers): no probe is read.
    let runs = use_query(app.project_id.clone(), |repo, project| async move {
        match project {
            Some(id) => {
                let runs = repo.runs_by_project(&id).await?;
                let summaries = repo.run_summaries(&id).await?;
                let mut rows = Vec::with_capacity(runs.len());
                for r in runs {
                    let s = summaries.iter().find(|s| s.id == r.id);
                    rows.push((r, s.map(|s| s.truncated_count)));
                }
                Ok(rows)
            }
            None => Ok(Vec::new()),
        }
    });
    let body = match &runs {
        Fetch::Ready(list) if list.is_empty() => match app.project_id {
            Some(_) => empty_with_link(lang, "runs.empty", Route::Run, "nav.run"),
            None => empty_with_link(lang, "runs.empty", Route::Projects, "projects.new"),
        },
        Fetch::Ready(list) => html! {
            { table(t(lang, "nav.runs"), head_cells_and_hidden(lang, RUN_COLS, "runs.open"), html! {
                    { for list.iter().map(|(r, figures)| html! {
                        <tr key={r.id.clone()} data-testid="run-row" data-id={r.id.clone()} data-status={status_value(r.status)}
                            data-surface={r.surface.as_str()}>
                            <td><time datetime={r.created_at.clone()}>{ r.created_at.replace('T', " ").chars().take(16).collect::<String>() }</time></td>
                            <td><EngineLabel engine={r.config.engine} />{ " " }{ surface_badge(r.surface, lang) }</td>
                            <td><span class={classes!("status", status_value(r.status))}>{ status_label(lang, r.status) }</span></td>
                            <td>{ r.config.model.clone() }</td>
                            <td class="num">{ r.planned_probe_count }</td>
                            <td class="num">{ match figures {
                                Some(n) => html! { <span data-testid="run-truncated" data-value={n.to_string()}
                                    class={classes!((*n > 0).then_some("chip warn"))}>{ n }</span> },
                                None => html! { { "—" } },
                            } }</td>

                            <td><NavLink to={Route::RunDetail { id: r.id.clone() }}>{ t(lang, "runs.open") }</NavLink></td>
                        </tr>
                    }) }
            }) }
        },
        Fetch::Failed(e) => html! { <p class="error-box" role="alert">{ e.message(lang) }</p> },
        _ => html! { <p class="muted">{ t(lang, "common.loading") }</p> },
    };
    html! {
        <section>
            <h1>{ t(lang, "runs.title") }</h1>
            { for live.iter().map(|l| html! {
                <div class="card" key={l.run_id.clone()}>
                    <p><EngineLabel engine={l.engine} /></p>
                    <RunProgress progress={l.progress} {lang} running={true} />
                    <NavLink to={Route::RunDetail { id: l.run_id.clone() }}>{ t(lang, "run.open_detail") }</NavLink>
                </div>
            }) }
            { body }
            if let Some(project) = app.project_id.clone() {
                <CapturesCard {project} />
            }
        </section>
    }
}

/// Props of [`CapturesCard`].
#[derive(Properties, PartialEq)]
struct CapturesCardProps {
    /// The current project, which the captures are imported into.
    project: String,
}

/// The outcome or stage of a capture import: `data-status` (`pending`, `ok`, `error`) and
/// its text.
type Outcome = Option<(&'static str, String)>;

/// The import of a capture file (`captures-import`) into the current project as an `app` run
/// of the engine chosen beside it (`captures-engine`), optionally adding the prompts the
/// project lacks (`captures-add-prompts`, the CLI's `--add-prompts`); each stage and the
/// outcome in `captures-result`.
#[function_component]
fn CapturesCard(p: &CapturesCardProps) -> Html {
    let app = use_app();
    let lang = app.lang;
    let engine = use_state(|| None::<EngineId>);
    let add_prompts = use_state(|| false);
    let outcome = use_state(|| None::<(&'static str, String)>);
    // How many imports have ended (`data-done`), so that a test waits for the next one.
    let done = use_mut_ref(|| 0u32);
    let on_engine = {
        let engine = engine.clone();
        Callback::from(move |e: Event| {
            engine.set(EngineId::parse(&e.target_unchecked_into::<HtmlSelectElement>().value()))
        })
    };
    let on_add = set_on_check(&add_prompts);
    let on_file = {
        let (app, outcome, engine, add_prompts, project, done) =
            (app.clone(), outcome.clone(), engine.clone(), add_prompts.clone(), p.project.clone(), done.clone());
        Callback::from(move |e: Event| {
            let input: HtmlInputElement = e.target_unchecked_into();
            let Some(file) = input.files().and_then(|f| f.get(0)) else { return };
            input.set_value("");
            let Some(engine) = *engine else {
                *done.borrow_mut() += 1;
                outcome.set(Some(("error", t(app.lang, "captures.no_engine").to_string())));
                return;
            };
            let job = crate::capture_import::CaptureJob {
                project_id: project.clone(),
                engine,
                run_id: crate::web::new_id("run"),
                now: crate::web::now_iso(),
                add_prompts: *add_prompts,
            };
            import_captures(&app, file, job, &outcome, done.clone());
        })
    };
    let importing = matches!(*outcome, Some(("pending", _)));
    html! {
        <section class="card captures" id="captures" aria-labelledby="captures-h" data-testid="captures-card"
            data-done={done.borrow().to_string()}>
            <h2 id="captures-h">{ t(lang, "captures.title") }</h2>
            <p class="muted">{ t(lang, "captures.help") }</p>
            <div class="row captures-fields">
                <label class="field">
                    <span class="label-text">{ t(lang, "captures.engine") }</span>
                    <select data-testid="captures-engine" onchange={on_engine} disabled={importing}>
                        <option value="" selected={engine.is_none()}>{ t(lang, "captures.engine_choose") }</option>
                        { for EngineId::ALL.iter().map(|e| html! {
                            <option value={e.as_str()} selected={*engine == Some(*e)}>{ geo_core::provider::spec(*e).name }</option>
                        }) }
                    </select>
                </label>
                <label class="field">
                    <span class="label-text">{ t(lang, "captures.file") }</span>
                    <input type="file" accept=".json,.csv,application/json,text/csv" data-testid="captures-import"
                        onchange={on_file} disabled={importing} aria-describedby="captures-result" />
                </label>
            </div>
            <label class="check">
                <input type="checkbox" data-testid="captures-add-prompts" checked={*add_prompts} onchange={on_add} disabled={importing} />
                <span>{ t(lang, "captures.add_prompts") }</span>
            </label>
            if let Some((status, text)) = (*outcome).clone() {
                <p id="captures-result" data-testid="captures-result" data-status={status} aria-busy={importing.to_string()}
                    class={match status { "ok" => "ok-box import-result", "error" => "error-box import-result", _ => "muted import-result" }}
                    role="status">{ text }</p>
            }
        </section>
    }
}

/// What the page says while `stage` of a capture import of `name` (`mb` MB) runs.
fn stage_text(stage: Stage, lang: Lang, name: &str, mb: &str) -> String {
    match stage {
        Stage::Reading => tf(lang, "import.reading", &[("f", name), ("mb", mb)]),
        Stage::Checking => tf(lang, "captures.checking", &[("f", name), ("mb", mb)]),
        Stage::Analysing(n) => tf(lang, "captures.analysing", &[("n", &n.to_string())]),
        Stage::Saving(n) => tf(lang, "captures.saving", &[("n", &n.to_string())]),
    }
}

/// Imports the capture `file` as `job` says: refused from its size before reading, then read,
/// checked, analysed and saved in one transaction in the import worker, each stage shown in
/// `outcome`, the outcome also as a toast; `done` counts the imports that ended.
fn import_captures(
    app: &AppHandle,
    file: web_sys::File,
    job: crate::capture_import::CaptureJob,
    outcome: &UseStateHandle<Outcome>,
    done: std::rc::Rc<std::cell::RefCell<u32>>,
) {
    let (app, outcome) = (app.clone(), outcome.clone());
    let Some(repo) = app.repo().cloned() else { return };
    let lang = app.lang;
    if let Some(msg) = crate::capture_import::size_refusal(file.size(), lang) {
        *done.borrow_mut() += 1;
        return outcome.set(Some(("error", msg)));
    }
    let (name, mb) = (file.name(), format!("{:.1}", file.size() / 1e6));
    outcome.set(Some(("pending", stage_text(Stage::Reading, lang, &name, &mb))));
    wasm_bindgen_futures::spawn_local(async move {
        let shown = outcome.clone();
        let on_stage = std::rc::Rc::new(move |s: Stage| shown.set(Some(("pending", stage_text(s, lang, &name, &mb)))));
        let result = crate::import_worker::import_file_as(&repo, file, &Job::Captures(job), lang, on_stage).await;
        let (status, kind, text) = match result {
            Ok(text) => ("ok", ToastKind::Ok, text),
            Err(text) => ("error", ToastKind::Error, text),
        };
        toast(&app, kind, text.clone());
        *done.borrow_mut() += 1;
        outcome.set(Some((status, text)));
    });
}
