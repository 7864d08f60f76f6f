//! The demo project (seed §8.2): seeding on a first visit, restoring and deleting it.
//!
//! `demo/demo-data.json` (relative to the `<base href>`) holds raw probe results only. Seeding
//! parses it with [`geo_core::export::parse_export`], recomputes every derived field with
//! [`geo_core::analysis::analyze_envelope`] — the same code as a live probe — and merges it
//! into storage in one transaction. Two application settings remember what happened:
//! [`SEEDED_SETTING`] (seeded once; do not seed again) and [`DELETED_SETTING`] (the user
//! deleted the demo; a reload must not bring it back).
//!
//! Every step that can fail (fetch, parse) runs before the first write, so an error changes
//! nothing. The logic is generic over [`Repository`] and the loader, and tested natively.

use crate::i18n::t;
use crate::repo::first_view::{FirstView, FIRST_VIEW_URL};
use crate::repo::{RepoError, Repository};
use geo_core::export::{parse_export, ImportLimits};
use geo_core::model::{ExportEnvelope, Lang};
use std::future::Future;

/// Path of the demo file, relative to the `<base href>`.
pub const DEMO_URL: &str = "demo/demo-data.json";
/// Settings key set to `true` once the demo was seeded.
pub const SEEDED_SETTING: &str = "demoSeeded";
/// Settings key set to `true` when the user deleted the demo.
pub const DELETED_SETTING: &str = "demoDeleted";

/// What start-up does about the demo, in the order of seed §8.2.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SeedDecision {
    /// (1) The user deleted the demo: leave it out.
    SkipDeleted,
    /// (2) A demo project is already stored: reuse it.
    Reuse,
    /// (3) Seeded before (the demo project was since removed another way): leave it out.
    SkipSeeded,
    /// (4) Fetch the file and seed it.
    Seed,
}

/// The seed §8.2 decision from the two flags and whether an `isDemo` project exists.
pub fn decide(deleted: bool, demo_exists: bool, seeded: bool) -> SeedDecision {
    if deleted {
        SeedDecision::SkipDeleted
    } else if demo_exists {
        SeedDecision::Reuse
    } else if seeded {
        SeedDecision::SkipSeeded
    } else {
        SeedDecision::Seed
    }
}

/// Why the demo could not be loaded or stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DemoError {
    /// The deployment has no demo file (HTTP 404).
    Missing,
    /// The request failed or answered another error status.
    Fetch(String),
    /// The file is not a valid demo export.
    BadFile(String),
    /// Storage refused the write.
    Store(RepoError),
}

impl DemoError {
    /// The message for a toast, in `lang`, saying what to do.
    pub fn message(&self, lang: Lang) -> String {
        match self {
            DemoError::Missing => t(lang, "demo.missing").to_string(),
            DemoError::Fetch(detail) => format!("{} ({detail})", t(lang, "demo.fetch_failed")),
            DemoError::BadFile(detail) => format!("{} ({detail})", t(lang, "demo.bad_file")),
            DemoError::Store(e) => e.message(lang),
        }
    }
}

impl From<RepoError> for DemoError {
    fn from(e: RepoError) -> Self {
        DemoError::Store(e)
    }
}

/// Parses the demo file and re-analyses it: every project must be an `isDemo` project (at
/// least one), and every probe's run must be in the file.
pub fn prepare(text: &str) -> Result<ExportEnvelope, DemoError> {
    let mut env = crate::web::measure("geo:demo-parse", || parse_export(text, &ImportLimits::default()))
        .map_err(|e| DemoError::BadFile(e.to_string()))?;
    if env.projects.is_empty() {
        return Err(DemoError::BadFile("the file holds no project".to_string()));
    }
    if let Some(p) = env.projects.iter().find(|p| !p.is_demo) {
        return Err(DemoError::BadFile(format!("project {} is not marked isDemo", p.id)));
    }
    let orphans = crate::web::measure("geo:demo-analyse", || geo_core::analysis::analyze_envelope(&mut env));
    if let Some(id) = orphans.first() {
        return Err(DemoError::BadFile(format!("probe {id} belongs to no run in the file")));
    }
    Ok(env)
}

/// What [`ensure_demo_seed`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SeedOutcome {
    /// Nothing was written, for this reason.
    Skipped(SeedDecision),
    /// The demo was seeded: its record counts.
    Seeded(Counts),
    /// The deployment has no demo file; nothing was written (tried again next start).
    NoDemoFile,
}

/// Record counts of a seeded demo.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Counts {
    /// Projects.
    pub projects: usize,
    /// Prompts.
    pub prompts: usize,
    /// Runs.
    pub runs: usize,
    /// Probes.
    pub probes: usize,
}

impl Counts {
    fn of(env: &ExportEnvelope) -> Counts {
        Counts {
            projects: env.projects.len(),
            prompts: env.prompts.len(),
            runs: env.runs.len(),
            probes: env.probes.len(),
        }
    }
}

/// The seed §8.2 decision over what `repo` holds.
pub async fn decision<R: Repository>(repo: &R) -> Result<SeedDecision, RepoError> {
    Ok(decide(flag(repo, DELETED_SETTING).await?, demo_exists(repo).await?, flag(repo, SEEDED_SETTING).await?))
}

async fn flag<R: Repository>(repo: &R, key: &str) -> Result<bool, RepoError> {
    Ok(repo.setting(key).await?.and_then(|v| v.as_bool()).unwrap_or(false))
}

async fn demo_exists<R: Repository>(repo: &R) -> Result<bool, RepoError> {
    Ok(repo.list_projects().await?.iter().any(|p| p.is_demo))
}

/// Fetches, prepares and merges the demo (one transaction), then marks it seeded.
async fn seed<R, F, Fut>(repo: &R, load: F) -> Result<Counts, DemoError>
where
    R: Repository,
    F: FnOnce() -> Fut,
    Fut: Future<Output = Result<String, DemoError>>,
{
    // The measures `geo:demo-fetch` ([`fetch_demo`]), `-parse`, `-analyse` and `-write` are
    // the demo's share of a first visit in `cargo xtask bench-first-visit`.
    let text = load().await?;
    let env = prepare(&text)?;
    let write = crate::web::Span::start("geo:demo-write");
    repo.merge(&env).await?;
    repo.set_setting(SEEDED_SETTING, Some(serde_json::Value::Bool(true))).await?;
    write.end();
    Ok(Counts::of(&env))
}

/// `ensureDemoSeed()` of seed §8.2, run once at start-up: skip when deleted, reuse an
/// existing demo project, skip when seeded before, otherwise load and seed. A missing demo
/// file (a deployment without `demo/`) is not an error.
pub async fn ensure_demo_seed<R, F, Fut>(repo: &R, load: F) -> Result<SeedOutcome, DemoError>
where
    R: Repository,
    F: FnOnce() -> Fut,
    Fut: Future<Output = Result<String, DemoError>>,
{
    let decision = decision(repo).await?;
    if decision != SeedDecision::Seed {
        return Ok(SeedOutcome::Skipped(decision));
    }
    match seed(repo, load).await {
        Ok(counts) => Ok(SeedOutcome::Seeded(counts)),
        Err(DemoError::Missing) => Ok(SeedOutcome::NoDemoFile),
        Err(e) => Err(e),
    }
}

/// `restoreDemo()`: loads the demo again and overwrites its records by id, then clears the
/// deleted flag. On any error nothing changes.
pub async fn restore_demo<R, F, Fut>(repo: &R, load: F) -> Result<Counts, DemoError>
where
    R: Repository,
    F: FnOnce() -> Fut,
    Fut: Future<Output = Result<String, DemoError>>,
{
    let counts = seed(repo, load).await?;
    repo.set_setting(DELETED_SETTING, None).await?;
    Ok(counts)
}

/// `deleteDemo()`: deletes every `isDemo` project with its prompts, runs and probes (one
/// transaction each) and sets the deleted flag so a reload does not seed it again. Returns
/// how many projects were deleted.
pub async fn delete_demo<R: Repository>(repo: &R) -> Result<usize, RepoError> {
    let demos: Vec<String> = repo.list_projects().await?.into_iter().filter(|p| p.is_demo).map(|p| p.id).collect();
    for id in &demos {
        repo.delete_project(id).await?;
    }
    repo.set_setting(DELETED_SETTING, Some(serde_json::Value::Bool(true))).await?;
    Ok(demos.len())
}

/// Fetches [`DEMO_URL`] relative to the document's base URL (the `<base href>`).
pub async fn fetch_demo() -> Result<String, DemoError> {
    let span = crate::web::Span::start("geo:demo-fetch");
    let text = fetch_text(DEMO_URL).await;
    span.end();
    match text {
        Ok(Some(text)) => Ok(text),
        Ok(None) => Err(DemoError::Missing),
        Err(detail) => Err(DemoError::Fetch(detail)),
    }
}

/// Fetches the demo's first view ([`FIRST_VIEW_URL`], preloaded by `index.html`) and keeps
/// it when it may stand for the demo file of fingerprint `source` ([`FirstView::accept`]);
/// `None` when it is missing, fails, does not decode or was made from another demo file.
pub async fn fetch_first_view(source: &str) -> Option<FirstView> {
    let span = crate::web::Span::start("geo:first-view");
    let view = fetch_text(FIRST_VIEW_URL).await.ok().flatten().and_then(|text| FirstView::accept(&text, source));
    span.end();
    view
}

/// The demo file's fingerprint as the page names it (`<meta name="geo-demo-fingerprint">`,
/// written by `cargo xtask dist`): `None` without the meta or with an empty one (an older or
/// hand-made page), or natively.
pub fn page_fingerprint() -> Option<String> {
    if !cfg!(target_arch = "wasm32") {
        return None;
    }
    let selector = format!("meta[name=\"{}\"]", crate::demo_fingerprint::META_NAME);
    let meta = web_sys::window()?.document()?.query_selector(&selector).ok()??;
    meta.get_attribute("content").map(|c| c.trim().to_string()).filter(|c| !c.is_empty())
}

/// Whether the demo file `text` is the one a first view of fingerprint `source` was made
/// from: checked before the file is seeded behind that view.
pub fn is_source_of(text: &str, source: &str) -> bool {
    crate::demo_fingerprint::fingerprint(text) == source
}

/// How long a file of the site may take to come in whole ([`fetch_text`]). The demo file is
/// about 150 KB on the wire, so a request still unfinished after this has stalled. Its abort
/// ends the demo's seeding with an error toast, so the start-up work settles and what waits
/// for it (a handover, a link to another document) goes on.
pub const FETCH_TIMEOUT_MS: i32 = 30_000;

/// Fetches a text file of the site, `url` relative to the document's base URL (the
/// `<base href>`): `Ok(None)` when the deployment has no such file (HTTP 404), `Err` with
/// what went wrong for a failed request, another error status, or no whole answer within
/// [`FETCH_TIMEOUT_MS`].
pub async fn fetch_text(url: &str) -> Result<Option<String>, String> {
    use wasm_bindgen::{closure::Closure, JsCast};
    let window = web_sys::window().ok_or_else(|| "no window".to_string())?;
    let controller = web_sys::AbortController::new().ok();
    let init = web_sys::RequestInit::new();
    let timer = controller.as_ref().and_then(|c| {
        init.set_signal(Some(&c.signal()));
        let c = c.clone();
        let abort = Closure::once_into_js(move || c.abort());
        window.set_timeout_with_callback_and_timeout_and_arguments_0(abort.unchecked_ref(), FETCH_TIMEOUT_MS).ok()
    });
    let text = fetch_text_with(&window, url, &init).await;
    if let Some(timer) = timer {
        window.clear_timeout_with_handle(timer);
    }
    // Only a request the bound cut short is a timeout: a timer that fires between a finished
    // body and this line leaves the text as it came.
    match text {
        Err(_) if controller.is_some_and(|c| c.signal().aborted()) => {
            Err(format!("no answer in {} s", FETCH_TIMEOUT_MS / 1000))
        }
        text => text,
    }
}

/// [`fetch_text`]'s request and body, with `init` (its abort signal).
async fn fetch_text_with(
    window: &web_sys::Window,
    url: &str,
    init: &web_sys::RequestInit,
) -> Result<Option<String>, String> {
    use js_sys::{Function, Reflect};
    use wasm_bindgen::{JsCast, JsValue};
    use wasm_bindgen_futures::JsFuture;
    let describe =
        |e: JsValue| e.as_string().or_else(|| js_sys::Error::from(e).message().as_string()).unwrap_or_default();
    let response = JsFuture::from(window.fetch_with_str_and_init(url, init)).await.map_err(describe)?;
    let status = Reflect::get(&response, &"status".into()).ok().and_then(|s| s.as_f64()).unwrap_or(0.0) as u16;
    if status == 404 {
        return Ok(None);
    }
    if !(200..300).contains(&status) {
        return Err(format!("http {status}"));
    }
    let text_fn: Function = Reflect::get(&response, &"text".into())
        .ok()
        .and_then(|f| f.dyn_into().ok())
        .ok_or_else(|| "the response has no body".to_string())?;
    let promise: js_sys::Promise = text_fn
        .call0(&response)
        .ok()
        .and_then(|p| p.dyn_into().ok())
        .ok_or_else(|| "the response has no body".to_string())?;
    let text = JsFuture::from(promise).await.map_err(describe)?;
    text.as_string().map(Some).ok_or_else(|| "the body is not text".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::repo::memory::MemoryRepo;
    use crate::repo::test_support::block_on;

    const DEMO: &str = include_str!("../../../demo/demo-data.json");

    #[track_caller]
    fn check(deleted: bool, exists: bool, seeded: bool, expect: SeedDecision) {
        assert_eq!(decide(deleted, exists, seeded), expect, "deleted={deleted} exists={exists} seeded={seeded}");
    }

    #[test]
    fn decisions_follow_the_seed_order() {
        use SeedDecision::*;
        check(false, false, false, Seed);
        check(true, false, false, SkipDeleted);
        check(true, true, true, SkipDeleted);
        check(false, true, false, Reuse);
        check(false, true, true, Reuse);
        check(false, false, true, SkipSeeded);
    }

    async fn ok_loader() -> Result<String, DemoError> {
        Ok(DEMO.to_string())
    }

    #[test]
    fn the_committed_demo_file_prepares_with_analysed_fields() {
        let env = prepare(DEMO).unwrap();
        assert_eq!(env.projects.len(), 1);
        assert!(env.projects[0].is_demo);
        assert!(env.probes.len() >= 30);
        // The file is raw; preparing derived mentions and sources for successful probes.
        let raw: serde_json::Value = serde_json::from_str(DEMO).unwrap();
        assert!(raw["probes"].as_array().unwrap().iter().all(|p| p.get("mentions").is_none()));
        let analysed = env.probes.iter().filter(|p| !p.mentions.is_empty() && !p.sources.is_empty()).count();
        assert!(analysed >= 30, "{analysed} probes with mentions and sources");
    }

    #[test]
    fn bad_files_are_refused() {
        assert!(matches!(prepare("nope"), Err(DemoError::BadFile(_))));
        let no_project =
            r#"{"format":"geo-probe-export","version":1,"projects":[],"prompts":[],"runs":[],"probes":[]}"#;
        assert!(matches!(prepare(no_project), Err(DemoError::BadFile(m)) if m.contains("no project")));
        let not_demo = DEMO.replacen("\"isDemo\": true", "\"isDemo\": false", 1);
        assert!(matches!(prepare(&not_demo), Err(DemoError::BadFile(m)) if m.contains("isDemo")));
    }

    #[test]
    fn first_start_seeds_once_then_reuses() {
        let repo = MemoryRepo::new();
        let first = block_on(ensure_demo_seed(&repo, ok_loader)).unwrap();
        let SeedOutcome::Seeded(counts) = first else { panic!("{first:?}") };
        assert_eq!(counts.projects, 1);
        let env = block_on(repo.snapshot("x")).unwrap();
        assert_eq!(env.probes.len(), counts.probes);
        assert!(env.probes.iter().any(|p| !p.mentions.is_empty()), "stored probes are analysed");
        assert_eq!(block_on(repo.setting(SEEDED_SETTING)).unwrap(), Some(serde_json::Value::Bool(true)));
        // A second start reuses the project and never calls the loader.
        let again = block_on(ensure_demo_seed(&repo, || async { Err::<String, _>(DemoError::Fetch("unused".into())) }))
            .unwrap();
        assert_eq!(again, SeedOutcome::Skipped(SeedDecision::Reuse));
        assert_eq!(block_on(repo.snapshot("x")).unwrap().probes.len(), counts.probes);
    }

    #[test]
    fn errors_change_nothing_and_a_missing_file_is_quiet() {
        let repo = MemoryRepo::new();
        let failed =
            block_on(ensure_demo_seed(&repo, || async { Err::<String, _>(DemoError::Fetch("offline".into())) }));
        assert_eq!(failed, Err(DemoError::Fetch("offline".into())));
        let bad = block_on(ensure_demo_seed(&repo, || async { Ok("{".to_string()) }));
        assert!(matches!(bad, Err(DemoError::BadFile(_))));
        let missing = block_on(ensure_demo_seed(&repo, || async { Err::<String, _>(DemoError::Missing) })).unwrap();
        assert_eq!(missing, SeedOutcome::NoDemoFile);
        assert_eq!(repo.changes(), 0, "no write at all");
        assert!(block_on(repo.snapshot("x")).unwrap().projects.is_empty());
    }

    #[test]
    fn delete_keeps_it_away_and_restore_brings_it_back() {
        let repo = MemoryRepo::new();
        block_on(ensure_demo_seed(&repo, ok_loader)).unwrap();
        assert_eq!(block_on(delete_demo(&repo)).unwrap(), 1);
        let env = block_on(repo.snapshot("x")).unwrap();
        assert!(env.projects.is_empty() && env.runs.is_empty() && env.probes.is_empty());
        let next = block_on(ensure_demo_seed(&repo, ok_loader)).unwrap();
        assert_eq!(next, SeedOutcome::Skipped(SeedDecision::SkipDeleted));
        // A failed restore leaves the deletion in place.
        assert!(block_on(restore_demo(&repo, || async { Ok("{".to_string()) })).is_err());
        assert_eq!(block_on(repo.setting(DELETED_SETTING)).unwrap(), Some(serde_json::Value::Bool(true)));
        let counts = block_on(restore_demo(&repo, ok_loader)).unwrap();
        assert_eq!(block_on(repo.snapshot("x")).unwrap().probes.len(), counts.probes);
        assert_eq!(block_on(repo.setting(DELETED_SETTING)).unwrap(), None);
        // Restoring over an existing demo overwrites by id: no duplicates.
        block_on(restore_demo(&repo, ok_loader)).unwrap();
        let env = block_on(repo.snapshot("x")).unwrap();
        assert_eq!((env.projects.len(), env.probes.len()), (1, counts.probes));
    }

    #[test]
    fn a_fetched_demo_file_is_checked_against_the_first_views_fingerprint() {
        let source = crate::demo_fingerprint::fingerprint(DEMO);
        assert!(is_source_of(DEMO, &source));
        assert!(!is_source_of(&DEMO.replacen('1', "2", 1), &source), "one changed byte");
        assert!(!is_source_of(DEMO, ""));
        // Natively there is no page, so no fingerprint: the path of before.
        assert_eq!(page_fingerprint(), None);
    }

    #[test]
    fn messages_say_what_happened() {
        assert!(DemoError::Fetch("http 500".into()).message(Lang::En).contains("http 500"));
        assert!(!DemoError::Missing.message(Lang::Zh).is_empty());
    }
}
