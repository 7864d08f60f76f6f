//! The browser driver of `geo_core::runner::Session`: the shell loop of the runner's module
//! documentation, written with callbacks and `spawn_local` instead of a blocking loop.
//!
//! * `pump` polls the engine until it has nothing to do: `Send` spawns a fetch (its own
//!   `AbortController`), `Write` queues the probe for IndexedDB (one `put_probe`, one
//!   transaction, written in order by a single writer task), `Progress` updates the shared
//!   [`LiveRun`] and repaints subscribers, `Finished` stores the run and ends the session.
//!   The engine's next back-off deadline gets one timer that pumps again.
//! * A response comes back through [`runner::Session::on_response`] then pumps; a request the user
//!   aborted (cancel) reports nothing.
//! * [`cancel`] aborts every request in flight and calls [`runner::Session::cancel`]; finished probes
//!   are still written and the run ends `cancelled`.
//! * One batch per tab: [`start_fresh`] starts one run per engine chosen (one session each,
//!   driven side by side, sharing a `groupId` when there are several); it and [`resume`]
//!   refuse while a session runs. A `beforeunload` guard asks before the tab is closed during
//!   a session.
//!
//! Each engine's API key is read from Web Storage only ([`crate::prefs::api_key_for`]); its
//! custom base URL (the `baseUrl` setting for DeepSeek, `baseUrl.ENGINE` for the others)
//! without a key is proxy mode and sends no key header; with neither, and "use a local
//! proxy" on, the requests go to `geo-probe proxy` with its token and no key — for a fresh
//! run, a continue and a retry of failures alike. Every request goes through the run's
//! [`Endpoint`].

use crate::prefs;
use crate::repo::idb::IdbRepo;
use crate::repo::Repository;
use crate::settings_store::engine_route;
use crate::transport::{outcome_of, post};
use crate::web::{new_id, now_iso};
use geo_core::model::{EngineId, Lang, Probe, Project, Prompt, Run, RunConfig, RunStatus};
use geo_core::provider::{self, Caller, Endpoint};
use geo_core::runner::{self, start_run, Action, AttemptOutcome, Mode, Progress, SendRequest, Slot};
use std::cell::RefCell;
use std::collections::{HashMap, VecDeque};
use std::rc::Rc;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use web_sys::AbortController;

/// What the progress bars show: a session running (or last run) in this tab.
#[derive(Debug, Clone, PartialEq)]
pub struct LiveRun {
    /// The run of the session.
    pub run_id: String,
    /// The engine it asks.
    pub engine: EngineId,
    /// Its project.
    pub project_id: String,
    /// The session's counters.
    pub progress: Progress,
    /// True until the session finished.
    pub running: bool,
    /// The final status once finished.
    pub status: Option<RunStatus>,
    /// A storage or engine failure, as text in the language the session started in.
    pub error: Option<String>,
}

enum Write {
    Probe(Box<Probe>),
    Run(Box<Run>),
}

struct Session {
    engine: runner::Session,
    run: Run,
    repo: IdbRepo,
    endpoint: Endpoint,
    controllers: HashMap<usize, AbortController>,
    writes: VecDeque<Write>,
    writing: bool,
    timer_at: Option<u64>,
    /// The language of the session's error messages (the interface language at its start).
    lang: Lang,
    /// The session's secrets (the endpoint's key and its base URL's secret-looking query
    /// values), removed from every probe before it is stored and every error shown: the
    /// CLI's rule (security review II, finding 2).
    redactor: geo_core::safe::Redactor,
}

type Shared = Rc<RefCell<Session>>;
type Listener = (u32, Rc<dyn Fn()>);
type UnloadGuard = Closure<dyn FnMut(web_sys::BeforeUnloadEvent)>;

thread_local! {
    static SESSIONS: RefCell<Vec<Shared>> = const { RefCell::new(Vec::new()) };
    static STARTING: RefCell<bool> = const { RefCell::new(false) };
    static LIVE: RefCell<Vec<LiveRun>> = const { RefCell::new(Vec::new()) };
    static LISTENERS: RefCell<Vec<Listener>> = RefCell::new(Vec::new());
    static NEXT_LISTENER: RefCell<u32> = const { RefCell::new(0) };
    static UNLOAD: RefCell<Option<UnloadGuard>> = const { RefCell::new(None) };
}

/// The live (or last) batch of this tab: one entry per run, in the order they started.
pub fn live() -> Vec<LiveRun> {
    LIVE.with(|l| l.borrow().clone())
}

/// True while a session runs (or is being started) in this tab.
pub fn is_busy() -> bool {
    SESSIONS.with(|s| !s.borrow().is_empty()) || STARTING.with(|s| *s.borrow())
}

/// Calls `f` after every change of [`live`]; returns the id for [`unsubscribe`].
pub fn subscribe(f: Rc<dyn Fn()>) -> u32 {
    let id = NEXT_LISTENER.with(|n| {
        let mut n = n.borrow_mut();
        *n += 1;
        *n
    });
    LISTENERS.with(|l| l.borrow_mut().push((id, f)));
    id
}

/// Stops calling a subscriber.
pub fn unsubscribe(id: u32) {
    LISTENERS.with(|l| l.borrow_mut().retain(|(i, _)| *i != id));
}

fn set_live(f: impl FnOnce(&mut Vec<LiveRun>)) {
    LIVE.with(|l| f(&mut l.borrow_mut()));
    let listeners: Vec<Rc<dyn Fn()>> = LISTENERS.with(|l| l.borrow().iter().map(|(_, f)| f.clone()).collect());
    for f in listeners {
        f();
    }
}

fn now_ms() -> u64 {
    js_sys::Date::now().max(0.0) as u64
}

fn random_u32() -> u32 {
    (js_sys::Math::random() * 4_294_967_296.0) as u32
}

/// Where the requests of a run of `config` go: its engine's endpoint with the saved key, the
/// engine's own base URL, or the local proxy (`settings_store::engine_route`, geo-core's one
/// rule). Errors (in `lang`, naming the engine) when none is set.
///
/// geo-core's one base-URL rule and key-or-proxy rule are checked here, before any request
/// and for every engine: a base URL with a user name or password is refused, and a key with
/// a character no header can carry never reaches `fetch` (whose error would quote it).
pub async fn transport(repo: &IdbRepo, config: &RunConfig, lang: Lang) -> Result<Endpoint, String> {
    let key = prefs::api_key_for(config.engine);
    let route = engine_route(repo, config.engine, key.as_deref(), lang).await?;
    Ok(Endpoint::for_route(config, &route, Caller::Browser))
}

fn reserve(lang: Lang) -> Result<(), String> {
    if is_busy() {
        return Err(crate::i18n::t(lang, "run.already_running").to_string());
    }
    STARTING.with(|s| *s.borrow_mut() = true);
    Ok(())
}

fn release() {
    STARTING.with(|s| *s.borrow_mut() = false);
}

/// Starts one fresh run of `selected` prompts per config (one config per engine): checks
/// every engine's transport and creates every run before any request, stores them
/// (`running`, sharing a `groupId` when there are several), then drives them side by side.
/// Returns the run ids in the order of `configs`.
pub async fn start_fresh(
    repo: IdbRepo,
    project: Project,
    prompts: Vec<Prompt>,
    selected: Vec<String>,
    configs: Vec<RunConfig>,
    existing_runs: Vec<Run>,
    lang: Lang,
) -> Result<Vec<String>, String> {
    reserve(lang)?;
    let result = async {
        let mut prepared = Vec::new();
        for config in &configs {
            prepared.push((config.clone(), transport(&repo, config, lang).await?));
        }
        let group_id = (configs.len() > 1).then(|| new_id("grp"));
        let created_at = now_iso();
        let mut sessions = Vec::new();
        for (config, endpoint) in prepared {
            let mut run =
                start_run(&project, &prompts, &selected, config, &existing_runs, new_id("run"), created_at.clone())
                    .map_err(|e| e.localized().get(lang).to_string())?;
            run.group_id = group_id.clone();
            let engine = runner::Session::new(&run, Mode::Fresh, runner::SessionOptions::default())
                .map_err(|e| e.localized().get(lang).to_string())?;
            sessions.push((run, engine, endpoint));
        }
        for (run, _, _) in &sessions {
            repo.put_run(run).await.map_err(|e| e.message(lang))?;
        }
        Ok::<_, String>(sessions)
    }
    .await;
    release();
    let sessions = result?;
    let ids = sessions.iter().map(|(run, _, _)| run.id.clone()).collect();
    set_live(Vec::clear);
    for (run, engine, endpoint) in sessions {
        begin(new_session(engine, run, repo.clone(), endpoint, lang));
    }
    Ok(ids)
}

fn new_session(engine: runner::Session, run: Run, repo: IdbRepo, endpoint: Endpoint, lang: Lang) -> Session {
    let redactor = geo_core::safe::Redactor::for_endpoint(&endpoint);
    Session {
        engine,
        run,
        repo,
        endpoint,
        controllers: HashMap::new(),
        writes: VecDeque::new(),
        writing: false,
        timer_at: None,
        lang,
        redactor,
    }
}

/// Continues a run (继续运行, `retry == false`) or retries its failures (重试失败项): sets the
/// stored run back to `running` and drives a [`Mode::Continue`] / [`Mode::RetryFailed`]
/// session over its stored probes. Works in proxy mode without a key.
pub async fn resume(repo: IdbRepo, run_id: String, retry: bool, lang: Lang) -> Result<(), String> {
    reserve(lang)?;
    let result = async {
        let mut run = repo
            .get_run(&run_id)
            .await
            .map_err(|e| e.message(lang))?
            .ok_or_else(|| crate::i18n::t(lang, "detail.not_found").to_string())?;
        let endpoint = transport(&repo, &run.config, lang).await?;
        let existing = repo.probes_by_run(&run_id).await.map_err(|e| e.message(lang))?;
        let mode = if retry { Mode::RetryFailed { existing } } else { Mode::Continue { existing } };
        let engine = runner::Session::new(&run, mode, runner::SessionOptions::default())
            .map_err(|e| e.localized().get(lang).to_string())?;
        run.status = RunStatus::Running;
        run.finished_at = None;
        repo.put_run(&run).await.map_err(|e| e.message(lang))?;
        Ok::<_, String>((run, engine, endpoint))
    }
    .await;
    release();
    let (run, engine, endpoint) = result?;
    set_live(Vec::clear);
    begin(new_session(engine, run, repo, endpoint, lang));
    Ok(())
}

/// Cancels every running session: aborts requests in flight; finished probes are kept and
/// each run ends `cancelled`.
pub fn cancel() {
    cancel_where(|_| true);
}

/// Cancels the session of one run (the run detail page's cancel).
pub fn cancel_run(run_id: &str) {
    cancel_where(|run| run.id == run_id);
}

fn cancel_where(pick: impl Fn(&Run) -> bool) {
    let sessions: Vec<Shared> =
        SESSIONS.with(|s| s.borrow().iter().filter(|x| pick(&x.borrow().run)).cloned().collect());
    for shared in sessions {
        {
            let mut s = shared.borrow_mut();
            s.engine.cancel();
            for (_, c) in s.controllers.drain() {
                c.abort();
            }
        }
        pump(&shared);
    }
}

fn begin(session: Session) {
    let progress = session.engine.progress();
    let live = LiveRun {
        run_id: session.run.id.clone(),
        engine: session.run.config.engine,
        project_id: session.run.project_id.clone(),
        progress,
        running: true,
        status: None,
        error: None,
    };
    let shared = Rc::new(RefCell::new(session));
    SESSIONS.with(|s| s.borrow_mut().push(shared.clone()));
    set_live(|l| {
        l.retain(|x| x.run_id != live.run_id);
        l.push(live);
    });
    guard_unload(true);
    pump(&shared);
}

/// Updates the live entry of `shared`'s run.
fn update_live(shared: &Shared, f: impl FnOnce(&mut LiveRun)) {
    let id = shared.borrow().run.id.clone();
    set_live(|l| {
        if let Some(x) = l.iter_mut().find(|x| x.run_id == id) {
            f(x);
        }
    });
}

/// Whether a run of this tab is in flight (its `beforeunload` guard is on). A link to another
/// document (the Docs chat's, ADR 0025) then opens it in a new tab, so the run goes on.
pub fn in_flight() -> bool {
    UNLOAD.with(|u| u.borrow().is_some())
}

fn guard_unload(on: bool) {
    let Some(window) = web_sys::window() else { return };
    UNLOAD.with(|u| {
        let mut u = u.borrow_mut();
        if let Some(old) = u.take() {
            let _ = window.remove_event_listener_with_callback("beforeunload", old.as_ref().unchecked_ref());
        }
        if on {
            let closure = Closure::<dyn FnMut(web_sys::BeforeUnloadEvent)>::new(|e: web_sys::BeforeUnloadEvent| {
                e.prevent_default();
                e.set_return_value("a run is in progress");
            });
            let _ = window.add_event_listener_with_callback("beforeunload", closure.as_ref().unchecked_ref());
            *u = Some(closure);
        }
    });
}

fn pump(shared: &Shared) {
    loop {
        let action = shared.borrow_mut().engine.poll(now_ms());
        match action {
            None => break,
            Some(Action::Send(req)) => send(shared, &req),
            Some(Action::Sleep { .. }) => {}
            Some(Action::Write(probe)) => store_probe(shared, *probe),
            Some(Action::Progress(p)) => update_live(shared, |l| l.progress = p),
            Some(Action::Finished(outcome)) => {
                let run = {
                    let mut s = shared.borrow_mut();
                    outcome.apply(&mut s.run);
                    for (_, c) in s.controllers.drain() {
                        c.abort();
                    }
                    s.run.clone()
                };
                enqueue(shared, Write::Run(Box::new(run)));
                let none_left = SESSIONS.with(|s| {
                    let mut s = s.borrow_mut();
                    s.retain(|x| !Rc::ptr_eq(x, shared));
                    s.is_empty()
                });
                if none_left {
                    guard_unload(false);
                }
                update_live(shared, |l| {
                    l.running = false;
                    l.status = Some(outcome.status);
                });
                return;
            }
        }
    }
    let wake = {
        let mut s = shared.borrow_mut();
        match s.engine.next_wakeup() {
            Some(at) if s.timer_at.is_none_or(|t| at < t) => {
                s.timer_at = Some(at);
                Some(at)
            }
            _ => None,
        }
    };
    if let Some(at) = wake {
        let shared = shared.clone();
        wasm_bindgen_futures::spawn_local(async move {
            let wait = at.saturating_sub(now_ms()) + 1;
            yew::platform::time::sleep(std::time::Duration::from_millis(wait)).await;
            {
                let mut s = shared.borrow_mut();
                if s.timer_at == Some(at) {
                    s.timer_at = None;
                }
            }
            if !shared.borrow().engine.is_finished() {
                pump(&shared);
            }
        });
    }
}

/// Sends one request of the session: an attempt, or a `pause_turn` continuation carrying the
/// paused content (`Endpoint::body_with`).
fn send(shared: &Shared, req: &SendRequest) {
    let (slot, timeout_ms) = (req.slot, req.timeout_ms);
    let (endpoint, body, controller) = {
        let mut s = shared.borrow_mut();
        let body = s.endpoint.body_with(&req.prompt_text, s.engine.config(), req.continuation.as_ref());
        let Ok(controller) = AbortController::new() else {
            drop(s);
            deliver(shared, slot, Err(provider::network_error("abortcontroller is not available")));
            return;
        };
        s.controllers.insert(slot.0, controller.clone());
        (s.endpoint.clone(), body, controller)
    };
    let shared = shared.clone();
    wasm_bindgen_futures::spawn_local(async move {
        let result = post(&endpoint.url, &endpoint.headers, &body, timeout_ms, &controller).await;
        shared.borrow_mut().controllers.remove(&slot.0);
        if let Some(outcome) = outcome_of(&endpoint, result, timeout_ms) {
            deliver(&shared, slot, outcome);
        }
    });
}

fn deliver(shared: &Shared, slot: Slot, outcome: AttemptOutcome) {
    let failed = {
        let mut s = shared.borrow_mut();
        if s.engine.is_finished() {
            return;
        }
        let lang = s.lang;
        s.engine.on_response(slot, now_ms(), outcome, random_u32()).err().map(|e| e.localized().get(lang).to_string())
    };
    if let Some(e) = failed {
        update_live(shared, |l| l.error = Some(e));
    }
    pump(shared);
}

/// Queues a finished probe for IndexedDB without any of the session's secrets; a probe they
/// cannot be removed from is not stored at all (the run shows why, and "retry failed" asks
/// it again), never stored as it is.
fn store_probe(shared: &Shared, probe: Probe) {
    let cleaned = shared.borrow().redactor.try_redact_value(probe);
    match cleaned {
        Ok(probe) => enqueue(shared, Write::Probe(Box::new(probe))),
        Err(refused) => {
            let lang = shared.borrow().lang;
            update_live(shared, |l| l.error = Some(refused.localized().get(lang).to_string()));
        }
    }
}

fn enqueue(shared: &Shared, write: Write) {
    let start = {
        let mut s = shared.borrow_mut();
        s.writes.push_back(write);
        !std::mem::replace(&mut s.writing, true)
    };
    if !start {
        return;
    }
    let shared = shared.clone();
    wasm_bindgen_futures::spawn_local(async move {
        loop {
            let (job, repo, lang, redactor) = {
                let mut s = shared.borrow_mut();
                match s.writes.pop_front() {
                    Some(job) => (job, s.repo.clone(), s.lang, s.redactor.clone()),
                    None => {
                        s.writing = false;
                        break;
                    }
                }
            };
            let result = match &job {
                Write::Probe(p) => repo.put_probe(p).await,
                Write::Run(r) => repo.put_run(r).await,
            };
            if let Err(e) = result {
                update_live(&shared, |l| l.error = Some(redactor.redact(&e.message(lang)).into_owned()));
            }
        }
    });
}

/// The live batch as Yew state (one entry per run): re-renders the component on every change.
#[yew::hook]
pub fn use_live_run() -> Vec<LiveRun> {
    let update = yew::use_force_update();
    yew::use_effect_with((), move |_| {
        let id = subscribe(Rc::new(move || update.force_update()));
        move || unsubscribe(id)
    });
    live()
}
