//! Importing an export off the page's main thread (`docs/adr/0015-import-worker.md`).
//!
//! Checking a 31 MB export (`geo_core::export::parse_export`) and re-analysing its probes
//! (`prepare_import`) take seconds of pure computation; on the main thread they froze the
//! page for 3–4 s. The settings page therefore hands the file to a dedicated module Web
//! Worker (`import-worker-*.js`, written by `cargo xtask dist`) that instantiates **this same
//! wasm module** (the page posts its compiled `WebAssembly.Module`, so nothing is downloaded
//! or compiled again), opens the same IndexedDB database and runs [`import_text`]: read,
//! check, re-analyse and save in one transaction, the very code the page ran before. The
//! worker posts each [`Stage`] as it begins and then the outcome text; the page only shows
//! them. Other tabs and this one hear about the write on the `geo-probe` BroadcastChannel.
//!
//! When no worker can be started (no worker script named at start-up, a browser without
//! module workers, a worker that fails before it begins), the page runs [`import_text`]
//! itself, so an import always happens and always the same way. A tab closed mid-import
//! ends the worker with it; its transaction was never committed, so nothing is half-written.
//!
//! The runs page's import of captured app answers ([`import_captures_text`],
//! `crate::capture_import`) takes the same path: the page posts a [`Job`] with the file, so
//! 10,000 captures are read, analysed and saved off the main thread too.

use crate::capture_import::CaptureJob;
use crate::i18n::tf;
use crate::repo::{RepoError, Repository};
use geo_core::export::{parse_export, ImportLimits};
use geo_core::model::{ExportEnvelope, Lang};
use serde_json::Value;

/// A stage of an import, in order; each is posted as it begins.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// Reading the file's text.
    Reading,
    /// Checking it as an export (geo-core's `parse_export`).
    Checking,
    /// Re-analysing this many probes against the stored data (`prepare_import`).
    Analysing(usize),
    /// Saving this many probes, with everything else, in one transaction.
    Saving(usize),
}

impl Stage {
    /// The stage's name in a [`Message`] (`"stage"`), and its probe count (`"probes"`).
    fn wire(self) -> (&'static str, Option<usize>) {
        match self {
            Stage::Reading => ("reading", None),
            Stage::Checking => ("checking", None),
            Stage::Analysing(n) => ("analysing", Some(n)),
            Stage::Saving(n) => ("saving", Some(n)),
        }
    }

    /// The User Timing measure of this stage (`geo:import-*`, read by the history bench).
    pub fn measure_name(self) -> &'static str {
        match self {
            Stage::Reading => "geo:import-read",
            Stage::Checking => "geo:import-parse",
            Stage::Analysing(_) => "geo:import-analyse",
            Stage::Saving(_) => "geo:import-write",
        }
    }

    /// What the page says while this stage runs, for a file called `name` of `mb` MB.
    pub fn text(self, lang: Lang, name: &str, mb: &str) -> String {
        match self {
            Stage::Reading => tf(lang, "import.reading", &[("f", name), ("mb", mb)]),
            Stage::Checking => tf(lang, "import.checking", &[("mb", mb)]),
            Stage::Analysing(n) => tf(lang, "import.analysing", &[("n", &n.to_string())]),
            Stage::Saving(n) => tf(lang, "import.saving", &[("n", &n.to_string())]),
        }
    }
}

/// A message from the worker to the page, posted as a JSON string: `{"kind":"stage",
/// "stage":"saving","probes":5}`, `{"kind":"done","ok":true,"text":"…"}`,
/// `{"kind":"failed","message":"…"}`.
///
/// Written and read by hand ([`Message::to_json`], [`Message::from_json`]) rather than by
/// serde's derive: an internally tagged enum with a flattened field needs serde's buffering
/// deserializer, several KB of wasm for three small shapes (`docs/adr/0014-site-size.md`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Message {
    /// A stage began.
    Stage {
        /// The stage.
        stage: Stage,
    },
    /// The import ended: the merge report (`ok`) or the refusal, in the interface language.
    Done {
        /// Whether it was saved.
        ok: bool,
        /// The text shown in `import-result`.
        text: String,
    },
    /// The worker failed outside the import (its module would not start, or it trapped);
    /// the worker script posts this shape itself.
    Failed {
        /// What the browser said.
        message: String,
    },
}

impl Message {
    /// The JSON text posted for this message.
    pub fn to_json(&self) -> String {
        // A JSON string literal: serde_json escapes it as everywhere else.
        let quoted = |text: &str| serde_json::to_string(text).unwrap_or_else(|_| "\"\"".into());
        match self {
            Message::Stage { stage } => match stage.wire() {
                (name, Some(n)) => format!(r#"{{"kind":"stage","stage":"{name}","probes":{n}}}"#),
                (name, None) => format!(r#"{{"kind":"stage","stage":"{name}"}}"#),
            },
            Message::Done { ok, text } => format!(r#"{{"kind":"done","ok":{ok},"text":{}}}"#, quoted(text)),
            Message::Failed { message } => format!(r#"{{"kind":"failed","message":{}}}"#, quoted(message)),
        }
    }

    /// The message a JSON text holds; `None` for anything else (every field must be there,
    /// of its type; other fields are ignored).
    pub fn from_json(text: &str) -> Option<Message> {
        let value: Value = serde_json::from_str(text).ok()?;
        let text = |key: &str| value.get(key).and_then(Value::as_str);
        let probes = || value.get("probes").and_then(Value::as_u64).and_then(|n| usize::try_from(n).ok());
        Some(match text("kind")? {
            "stage" => Message::Stage {
                stage: match text("stage")? {
                    "reading" => Stage::Reading,
                    "checking" => Stage::Checking,
                    "analysing" => Stage::Analysing(probes()?),
                    "saving" => Stage::Saving(probes()?),
                    _ => return None,
                },
            },
            "done" => Message::Done { ok: value.get("ok")?.as_bool()?, text: text("text")?.to_string() },
            "failed" => Message::Failed { message: text("message")?.to_string() },
            _ => return None,
        })
    }
}

/// Checks an uploaded file with geo-core's import (envelope, version, shapes, limits,
/// duplicate ids; exports of the original web app get their raw result rebuilt), then
/// [`geo_core::export::prepare_import`] against `stored` (the projects and runs already
/// kept): every reference must resolve, and every derived field of every probe is
/// recomputed with the same analysis as a live probe (its run's alias snapshot from the file
/// or from the store), so no file-supplied source, mention or link survives, and imported
/// and probed data give the same figures (and the same as `geo-probe metrics`). The error is
/// the whole report in the interface language: a headline, then the first problems, one a
/// line.
pub fn parse_import(text: &str, stored: &ExportEnvelope, lang: Lang) -> Result<ExportEnvelope, String> {
    let mut env = check(text, lang)?;
    analyse(&mut env, stored, lang)?;
    Ok(env)
}

fn check(text: &str, lang: Lang) -> Result<ExportEnvelope, String> {
    parse_export(text, &ImportLimits::default()).map_err(|e| e.describe().get(lang).to_string())
}

fn analyse(env: &mut ExportEnvelope, stored: &ExportEnvelope, lang: Lang) -> Result<(), String> {
    geo_core::export::prepare_import(env, stored).map_err(|e| e.describe().get(lang).to_string())
}

/// The projects and runs already stored: what an import's references may point to and the
/// alias snapshots its probes are analysed with when their run is not in the file.
pub async fn stored_projects_and_runs(repo: &impl Repository) -> Result<ExportEnvelope, RepoError> {
    let mut base = ExportEnvelope::new("");
    base.projects = repo.list_projects().await?;
    for p in &base.projects {
        let runs = repo.runs_by_project(&p.id).await?;
        base.runs.extend(runs);
        base.prompts.extend(repo.prompts_by_project(&p.id).await?);
    }
    Ok(base)
}

/// The whole import of an export's `text` into `repo`: checked ([`parse_import`]) against
/// what is stored, then merged in one transaction; `Ok` is the merge report and `Err` the
/// refusal, both in `lang`. `stage` hears [`Stage::Checking`], [`Stage::Analysing`] and
/// [`Stage::Saving`] as each begins. The worker and the page's fallback both run this.
pub async fn import_text(
    repo: &impl Repository,
    text: &str,
    lang: Lang,
    stage: &dyn Fn(Stage),
) -> Result<String, String> {
    stage(Stage::Checking);
    // On the page (the fallback) checking holds the thread: let the stage paint first.
    crate::web::after_paint().await;
    let stored = stored_projects_and_runs(repo).await.map_err(|e: RepoError| e.message(lang))?;
    let mut env = check(text, lang)?;
    stage(Stage::Analysing(env.probes.len()));
    analyse(&mut env, &stored, lang)?;
    stage(Stage::Saving(env.probes.len()));
    let report = repo.merge_reported(&env).await.map_err(|e: RepoError| e.message(lang))?;
    Ok(report.describe().get(lang).to_string())
}

/// What a file is imported as: a full export (the settings page) or a capture file of an
/// assistant's app (the runs page, [`CaptureJob`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Job {
    /// An export, merged by id ([`import_text`]).
    Export,
    /// Captured app answers, a new `app` run ([`import_captures_text`]).
    Captures(CaptureJob),
}

impl Job {
    /// The job of the worker message's `job` field: a [`CaptureJob`]'s JSON, or none for an
    /// export; `None` for a text that is neither.
    pub fn from_message(job: Option<&str>) -> Option<Job> {
        match job {
            None => Some(Job::Export),
            Some(text) => CaptureJob::from_json(text).map(Job::Captures),
        }
    }

    /// The worker message's `job` field of this job (`None`: an export).
    pub fn to_message(&self) -> Option<String> {
        match self {
            Job::Export => None,
            Job::Captures(c) => Some(c.to_json()),
        }
    }
}

/// The whole import of a capture file's `text` as `job` says: checked row by row
/// (`parse_captures`), matched against the project's prompts and analysed
/// (`build_app_run`, geo-core's `import_captures` in two steps so that each is a stage), then
/// the prompts added, the run and its probes saved in one transaction (the run's summary
/// with them). `Ok` is [`capture_import::imported_text`], `Err` the refusal with the row or
/// path and why, both in `lang`; nothing is written unless all of it is.
pub async fn import_captures_text(
    repo: &impl Repository,
    text: &str,
    job: &CaptureJob,
    lang: Lang,
    stage: &dyn Fn(Stage),
) -> Result<String, String> {
    use crate::capture_import::{batch_of, imported_text, project_envelope, refused_text};
    stage(Stage::Checking);
    crate::web::after_paint().await;
    let captures = geo_core::export::parse_captures(text).map_err(|e| refused_text(&e, lang))?;
    stage(Stage::Analysing(captures.len()));
    crate::web::after_paint().await;
    let stored = project_envelope(repo, &job.project_id).await.map_err(|e: RepoError| e.message(lang))?;
    let imported =
        geo_core::export::build_app_run(&stored, &captures, &job.options()).map_err(|e| refused_text(&e, lang))?;
    stage(Stage::Saving(imported.probes.len()));
    let text = imported_text(&imported, lang);
    repo.put_many(&batch_of(imported)).await.map_err(|e: RepoError| e.message(lang))?;
    Ok(text)
}

/// [`import_text`] or [`import_captures_text`], as `job` says.
async fn import_job(
    repo: &impl Repository,
    text: &str,
    job: &Job,
    lang: Lang,
    stage: &dyn Fn(Stage),
) -> Result<String, String> {
    match job {
        Job::Export => import_text(repo, text, lang, stage).await,
        Job::Captures(c) => import_captures_text(repo, text, c, lang, stage).await,
    }
}

#[cfg(feature = "full")]
pub use browser::import_in_worker;
pub use browser::{import_file, import_file_as, set_worker_url};

mod browser {
    use super::{import_job, Job, Message, Stage};
    use crate::i18n::tf;
    use crate::repo::idb::IdbRepo;
    use geo_core::model::Lang;
    use js_sys::{Object, Promise, Reflect};
    use std::cell::{Cell, RefCell};
    use std::rc::Rc;
    use wasm_bindgen::prelude::*;
    use wasm_bindgen::JsCast;
    use wasm_bindgen_futures::JsFuture;
    #[cfg(feature = "full")]
    use web_sys::DedicatedWorkerGlobalScope;
    use web_sys::{Event, File, MessageEvent, Worker, WorkerOptions, WorkerType};

    thread_local! {
        static WORKER_URL: RefCell<Option<String>> = const { RefCell::new(None) };
    }

    /// Names the worker script (`import-worker-*.js`, absolute); the bootstrap calls it
    /// through `start_app` before the app renders.
    pub fn set_worker_url(url: Option<String>) {
        WORKER_URL.with(|u| *u.borrow_mut() = url);
    }

    /// Imports `file` into `repo` in a worker, or on the page when none starts; `on_stage`
    /// hears every [`Stage`] (each also timed as its `geo:import-*` measure). `Ok` is the
    /// merge report, `Err` the refusal, both in `lang`. Only a worker that fails after it
    /// began gives a message of its own (`import.stopped`).
    pub async fn import_file(
        repo: &IdbRepo,
        file: File,
        lang: Lang,
        on_stage: Rc<dyn Fn(Stage)>,
    ) -> Result<String, String> {
        import_file_as(repo, file, &Job::Export, lang, on_stage).await
    }

    /// [`import_file`] of `file` as `job` says: an export, or a capture file
    /// ([`super::import_captures_text`]), in the worker or on the page.
    pub async fn import_file_as(
        repo: &IdbRepo,
        file: File,
        job: &Job,
        lang: Lang,
        on_stage: Rc<dyn Fn(Stage)>,
    ) -> Result<String, String> {
        let spans = Rc::new(Spans::default());
        let staged: Rc<dyn Fn(Stage)> = {
            let spans = spans.clone();
            Rc::new(move |stage: Stage| {
                spans.begin(stage);
                on_stage(stage);
            })
        };
        let outcome = match in_worker(&file, job, lang, staged.clone()).await {
            Some(outcome) => {
                // The worker's write reaches this tab's pages on the BroadcastChannel too,
                // but perhaps after the outcome: show fresh figures with the outcome.
                if outcome.is_ok() {
                    repo.changed_elsewhere();
                }
                outcome
            }
            None => {
                staged(Stage::Reading);
                let text = JsFuture::from(file.text()).await.ok().and_then(|v| v.as_string()).unwrap_or_default();
                import_job(repo, &text, job, lang, &*staged).await
            }
        };
        spans.end();
        outcome
    }

    /// The measure of the stage that runs now, ended when the next begins.
    #[derive(Default)]
    struct Spans(RefCell<Option<crate::web::Span>>);

    impl Spans {
        fn begin(&self, stage: Stage) {
            self.end();
            *self.0.borrow_mut() = Some(crate::web::Span::start(stage.measure_name()));
        }

        fn end(&self) {
            if let Some(span) = self.0.borrow_mut().take() {
                span.end();
            }
        }
    }

    /// The import in a worker: `None` when no worker could begin it (the caller then runs
    /// it here), else its outcome.
    async fn in_worker(
        file: &File,
        job: &Job,
        lang: Lang,
        on_stage: Rc<dyn Fn(Stage)>,
    ) -> Option<Result<String, String>> {
        let url = WORKER_URL.with(|u| u.borrow().clone())?;
        let options = WorkerOptions::new();
        options.set_type(WorkerType::Module);
        let worker = Worker::new_with_options(&url, &options).ok()?;
        let began = Rc::new(Cell::new(false));
        let mut handlers = None;
        // Resolves with the last message's JSON text, or `undefined` on a worker error event.
        let ended = Promise::new(&mut |resolve, _reject| {
            let on_message = {
                let (resolve, began, on_stage) = (resolve.clone(), began.clone(), on_stage.clone());
                Closure::<dyn FnMut(MessageEvent)>::new(move |e: MessageEvent| {
                    let Some(text) = e.data().as_string() else { return };
                    match Message::from_json(&text) {
                        Some(Message::Stage { stage }) => {
                            began.set(true);
                            on_stage(stage);
                        }
                        Some(_) => {
                            let _ = resolve.call1(&JsValue::NULL, &JsValue::from_str(&text));
                        }
                        None => {}
                    }
                })
            };
            let on_error = Closure::<dyn FnMut(Event)>::new(move |e: Event| {
                e.prevent_default();
                let _ = resolve.call1(&JsValue::NULL, &JsValue::UNDEFINED);
            });
            worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
            worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
            handlers = Some((on_message, on_error));
        });
        let request = Object::new();
        let lang_code = JsValue::from_str(lang.as_str());
        let set = |k: &str, v: &JsValue| Reflect::set(&request, &JsValue::from_str(k), v).is_ok();
        let job = job.to_message().map_or(JsValue::UNDEFINED, |j| JsValue::from_str(&j));
        let posted = set("module", &wasm_bindgen::module())
            && set("file", file)
            && set("lang", &lang_code)
            && set("job", &job)
            && worker.post_message(&request).is_ok();
        let last = if posted { JsFuture::from(ended).await.ok() } else { None };
        worker.terminate();
        worker.set_onmessage(None);
        worker.set_onerror(None);
        drop(handlers);
        let message = last.and_then(|v| v.as_string()).and_then(|t| Message::from_json(&t));
        match message {
            Some(Message::Done { ok, text }) => Some(if ok { Ok(text) } else { Err(text) }),
            Some(Message::Failed { message }) if began.get() => {
                Some(Err(tf(lang, "import.stopped", &[("e", &message)])))
            }
            _ if began.get() => Some(Err(tf(lang, "import.stopped", &[("e", "worker error")]))),
            _ => None,
        }
    }

    /// The worker's side: called by `import-worker-*.js` once the module is instantiated
    /// there, with the file, the interface language (`zh`/`en`) and the job (none for an
    /// export, a [`super::CaptureJob`]'s JSON for a capture file) the page posted. Opens the
    /// database, runs the import ([`super::import_text`] or [`super::import_captures_text`])
    /// and posts every [`Message`] to the page. Only the app entry has it (its pages import;
    /// the worker's script names the app entry's glue, `crate::entries`).
    #[cfg(feature = "full")]
    #[wasm_bindgen]
    pub async fn import_in_worker(file: File, lang: String, job: Option<String>) {
        let lang = Lang::parse(&lang).unwrap_or_default();
        let scope: DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
        let post = |m: &Message| {
            let _ = scope.post_message(&JsValue::from_str(&m.to_json()));
        };
        post(&Message::Stage { stage: Stage::Reading });
        let outcome = async {
            // This context's writes are announced to the page on the BroadcastChannel.
            let repo = IdbRepo::open(Rc::new(|| {})).await.map_err(|e| e.message(lang))?;
            let job = Job::from_message(job.as_deref()).ok_or_else(|| tf(lang, "import.stopped", &[("e", "job")]))?;
            let text = JsFuture::from(file.text()).await.ok().and_then(|v| v.as_string()).unwrap_or_default();
            import_job(&repo, &text, &job, lang, &|stage| post(&Message::Stage { stage })).await
        }
        .await;
        let (ok, text) = match outcome {
            Ok(text) => (true, text),
            Err(text) => (false, text),
        };
        post(&Message::Done { ok, text });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::repo::memory::MemoryRepo;
    use crate::repo::test_support::block_on;

    #[test]
    fn messages_have_the_shapes_the_worker_script_posts() {
        let check = |m: Message, json: &str| {
            assert_eq!(m.to_json(), json);
            assert_eq!(Message::from_json(json), Some(m));
        };
        check(Message::Stage { stage: Stage::Reading }, r#"{"kind":"stage","stage":"reading"}"#);
        check(Message::Stage { stage: Stage::Checking }, r#"{"kind":"stage","stage":"checking"}"#);
        check(Message::Stage { stage: Stage::Analysing(0) }, r#"{"kind":"stage","stage":"analysing","probes":0}"#);
        check(Message::Stage { stage: Stage::Saving(5) }, r#"{"kind":"stage","stage":"saving","probes":5}"#);
        check(Message::Done { ok: true, text: "x".into() }, r#"{"kind":"done","ok":true,"text":"x"}"#);
        check(
            Message::Done { ok: false, text: "第 1 行: \"坏\"\n\\ </script>".into() },
            r#"{"kind":"done","ok":false,"text":"第 1 行: \"坏\"\n\\ </script>"}"#,
        );
        // The shape `import-worker-*.js` posts from its own catch (xtask/src/dist.rs).
        check(
            Message::Failed { message: "RuntimeError: unreachable".into() },
            r#"{"kind":"failed","message":"RuntimeError: unreachable"}"#,
        );
        // JSON.stringify's key order, white space and extra fields read the same.
        assert_eq!(
            Message::from_json(r#"{ "probes": 7, "stage": "analysing", "kind": "stage", "x": 1 }"#),
            Some(Message::Stage { stage: Stage::Analysing(7) })
        );
    }

    #[test]
    fn anything_but_a_message_is_not_one() {
        for text in [
            "",
            "changed",
            "[]",
            r#"{"kind":"stage"}"#,
            r#"{"kind":"stage","stage":"saving"}"#,
            r#"{"kind":"stage","stage":"saving","probes":-1}"#,
            r#"{"kind":"stage","stage":"saving","probes":"5"}"#,
            r#"{"kind":"stage","stage":"writing"}"#,
            r#"{"kind":"done","ok":"yes","text":"x"}"#,
            r#"{"kind":"done","ok":true}"#,
            r#"{"kind":"failed"}"#,
            r#"{"kind":"other","message":"x"}"#,
            r#"{"stage":"reading"}"#,
        ] {
            assert_eq!(Message::from_json(text), None, "{text}");
        }
    }

    #[test]
    fn the_import_reports_its_stages_and_saves_what_parse_import_checked() {
        let text = include_str!("../../../demo/demo-data.json");
        let repo = MemoryRepo::default();
        let stages = std::cell::RefCell::new(Vec::new());
        let report = block_on(import_text(&repo, text, Lang::En, &|s| stages.borrow_mut().push(s))).unwrap();
        let env = parse_import(text, &ExportEnvelope::new(""), Lang::En).unwrap();
        let n = env.probes.len();
        assert_eq!(*stages.borrow(), [Stage::Checking, Stage::Analysing(n), Stage::Saving(n)]);
        let fresh = MemoryRepo::default();
        let expected = block_on(fresh.merge_reported(&env)).unwrap().describe().get(Lang::En).to_string();
        assert_eq!(report, expected);
        let (a, b) = (block_on(repo.snapshot("t")).unwrap(), block_on(fresh.snapshot("t")).unwrap());
        assert_eq!(serde_json::to_string(&a).unwrap(), serde_json::to_string(&b).unwrap());
        // The same file again changes nothing, and says so.
        let again = block_on(import_text(&repo, text, Lang::Zh, &|_| {})).unwrap();
        assert_eq!(again, block_on(fresh.merge_reported(&env)).unwrap().describe().get(Lang::Zh).to_string());
    }

    const PROJECT: &str = "proj_yuangouchang";
    const CAPTURES_JSON: &str = include_str!("../../../fixtures/captures/doubao-app.json");
    const CAPTURES_CSV: &str = include_str!("../../../fixtures/captures/doubao-app.csv");

    /// A repository holding `fixtures/exports/method.json` (the fixture project's prompts p01–p04,
    /// DeepSeek's and OpenAI's API runs), and that export.
    fn method_repo() -> (MemoryRepo, ExportEnvelope) {
        let env =
            parse_import(include_str!("../../../fixtures/exports/method.json"), &ExportEnvelope::new(""), Lang::En)
                .expect("the fixture imports");
        let repo = MemoryRepo::default();
        block_on(repo.merge(&env)).unwrap();
        (repo, env)
    }

    fn job(engine: geo_core::model::EngineId, run_id: &str, add_prompts: bool) -> CaptureJob {
        CaptureJob {
            project_id: PROJECT.into(),
            engine,
            run_id: run_id.into(),
            now: "2026-12-06T00:00:00.000Z".into(),
            add_prompts,
        }
    }

    fn import(repo: &MemoryRepo, text: &str, job: &CaptureJob, lang: Lang) -> (Result<String, String>, Vec<Stage>) {
        let stages = std::cell::RefCell::new(Vec::new());
        let outcome = block_on(import_captures_text(repo, text, job, lang, &|s| stages.borrow_mut().push(s)));
        (outcome, stages.into_inner())
    }

    /// The runs page's import is `geo-probe import-captures` with its default options: the same
    /// run and probes, written whole with the run's summary, and the Engines page's comparison
    /// then equals `geo-probe engines` over the CLI's output.
    #[test]
    fn captures_import_as_the_cli_imports_them() {
        use geo_core::model::EngineId;
        let (repo, env) = method_repo();
        let job = job(EngineId::Deepseek, "run_cap", false);
        let (outcome, stages) = import(&repo, CAPTURES_JSON, &job, Lang::En);
        let cli = geo_core::export::import_captures(&env, CAPTURES_JSON, &job.options()).unwrap();
        assert_eq!(stages, [Stage::Checking, Stage::Analysing(4), Stage::Saving(4)]);
        let text = outcome.unwrap();
        assert_eq!(text, crate::capture_import::imported_text(&cli, Lang::En));
        assert!(text.starts_with("4 captured answer(s) imported as DeepSeek's app run (Completed): run_cap"), "{text}");
        let mut want = env.clone();
        cli.apply(&mut want);
        let got = block_on(repo.snapshot("t")).unwrap();
        let run = |e: &ExportEnvelope| e.run("run_cap").cloned();
        assert_eq!(run(&got), run(&want));
        assert_eq!(got.probes_of("run_cap").count(), 4);
        assert!(got.probes_of("run_cap").eq(want.probes_of("run_cap")));
        assert_eq!(run(&got).unwrap().surface, geo_core::model::Surface::App);
        // The run's summary is computed as any run's is.
        let summary = block_on(repo.run_summaries(PROJECT)).unwrap().into_iter().find(|s| s.id == "run_cap").unwrap();
        let metrics = geo_core::metrics::metrics_for_export(&want, Some("run_cap")).unwrap().remove(0);
        assert_eq!(block_on(repo.run_metrics("run_cap")).unwrap(), Some(metrics));
        assert_eq!(summary.surface, geo_core::model::Surface::App);
        let engines = |e: &ExportEnvelope| geo_core::compare::engines_for_export(e, Some(PROJECT)).unwrap();
        let cmp = engines(&got);
        assert_eq!(cmp, engines(&want));
        // DeepSeek's gap is now against the imported run (OpenAI's against the fixture's).
        let gap = cmp.surface_gaps.iter().find(|g| g.engine == EngineId::Deepseek).expect("DeepSeek has both surfaces");
        assert_eq!(gap.app_run_id, "run_cap");
    }

    /// A broken row, an unknown prompt or a file that is not a capture file writes nothing and
    /// says where and why; `add_prompts` adds the unknown prompt, named, in the same write.
    #[test]
    fn a_refused_capture_file_writes_nothing_and_names_the_row() {
        use geo_core::model::EngineId;
        let (repo, _) = method_repo();
        let before = serde_json::to_string(&block_on(repo.snapshot("t")).unwrap()).unwrap();
        let unchanged = |step: &str| {
            let now = serde_json::to_string(&block_on(repo.snapshot("t")).unwrap()).unwrap();
            assert!(now == before, "{step}: something was written");
        };
        let bad_time = CAPTURES_CSV.replacen("2026-12-01T10:05:00+08:00", "2026-12-01 10:05", 1);
        let (outcome, stages) = import(&repo, &bad_time, &job(EngineId::Doubao, "run_x", false), Lang::En);
        let en = outcome.unwrap_err();
        assert!(en.starts_with("row 3, captured_at: time \"2026-12-01 10:05\""), "{en}");
        assert!(en.ends_with("; nothing was imported"), "{en}");
        assert_eq!(stages, [Stage::Checking]);
        unchanged("bad time");
        let (zh, _) = import(&repo, &bad_time, &job(EngineId::Doubao, "run_x", false), Lang::Zh);
        assert!(zh.unwrap_err().ends_with("；未导入任何内容"));
        // A row without its answer column.
        let short = "prompt,answer,captured_at,source_urls,cited_urls\r\np01,2026-12-01T01:00:00Z,,\r\n";
        let (outcome, _) = import(&repo, short, &job(EngineId::Doubao, "run_x", false), Lang::En);
        assert!(outcome.unwrap_err().starts_with("row 2"));
        unchanged("short row");
        // The CSV names a prompt method.json does not have (fixtures/project.json's p04).
        let (outcome, stages) = import(&repo, CAPTURES_CSV, &job(EngineId::Doubao, "run_x", false), Lang::En);
        let en = outcome.unwrap_err();
        assert!(en.contains("unknown prompt \"帮我推荐几家做品牌AI可见度优化的公司，并说明理由\""), "{en}");
        assert_eq!(stages, [Stage::Checking, Stage::Analysing(4)]);
        unchanged("unknown prompt");
        // Asked to, the import adds it to the project with the run, in one write.
        let (outcome, _) = import(&repo, CAPTURES_CSV, &job(EngineId::Doubao, "run_y", true), Lang::En);
        let text = outcome.unwrap();
        // Added as geo-core adds it: its text in NFKC (the full-width comma folded).
        assert!(
            text.contains("\n1 prompt(s) added to the project: “帮我推荐几家做品牌AI可见度优化的公司,并说明理由”"),
            "{text}"
        );
        let after = block_on(repo.snapshot("t")).unwrap();
        assert_eq!(after.probes_of("run_y").count(), 4);
        assert!(after.prompts.iter().any(|p| p.id == "run_y_p1" && p.project_id == PROJECT));
    }

    #[test]
    fn a_capture_job_travels_to_the_worker_and_an_export_has_none() {
        let captures = Job::Captures(job(geo_core::model::EngineId::Qwen, "run_q", true));
        assert_eq!(Job::from_message(captures.to_message().as_deref()), Some(captures));
        assert_eq!(Job::Export.to_message(), None);
        assert_eq!(Job::from_message(None), Some(Job::Export));
        assert_eq!(Job::from_message(Some("nonsense")), None);
    }

    #[test]
    fn a_refused_file_saves_nothing_and_says_why_in_the_interface_language() {
        let repo = MemoryRepo::default();
        let stages = std::cell::RefCell::new(Vec::new());
        let zh = block_on(import_text(&repo, "{", Lang::Zh, &|s| stages.borrow_mut().push(s))).unwrap_err();
        assert_eq!(zh, parse_import("{", &ExportEnvelope::new(""), Lang::Zh).unwrap_err());
        assert_eq!(*stages.borrow(), [Stage::Checking]);
        assert!(block_on(repo.list_projects()).unwrap().is_empty());
        assert_eq!(Stage::Saving(3).text(Lang::En, "f.json", "1.0"), "Checked; saving 3 probes…");
    }
}
