//! The demo's first view (issue 39): the records the dashboard's first render reads of the
//! seeded demo, computed ahead of time, so that a first visit shows its figures before the
//! demo is parsed, analysed and written (`docs/adr/0024-first-view-without-seeding.md`).
//!
//! `demo/demo-first-view.json` holds a [`FirstView`]: the demo's projects, prompts and runs
//! (no probe), every run's stored summary and metrics, as the repository holds them once
//! [`crate::demo::ensure_demo_seed`] has seeded `demo/demo-data.json`, and the fingerprint of
//! that file. It is made by [`FirstView::read_from`] over a repository seeded by that very
//! code; the test `the_committed_first_view_is_what_seeding_stores` fails while the file
//! differs from it, and writes it anew with `GEO_FIRST_VIEW_UPDATE=1` (as `cargo xtask demo`
//! does after regenerating the demo).
//!
//! At start-up the app shows these records through an [`Overlay`] of the IndexedDB
//! repository only when the demo is to be seeded and the file fits the demo file the page
//! names (`<meta name="geo-demo-fingerprint">`, [`crate::demo_fingerprint`]), or the demo file
//! fetched on a page that names none ([`FirstView::accept`]: same fingerprint, summaries of
//! the current format, every project a demo); otherwise it seeds first, as before. On the
//! page's word the demo file is fetched after the first figures and seeded behind the view
//! only when it is the file the view was made from. While the overlay is shown, the
//! reads it cannot answer (probes, page figures, settings) and every write wait for the
//! seeding to end, so nothing is read from a half-seeded store or written before the demo.

use super::{RepoResult, Repository};
use geo_core::metrics::{RunMetrics, RunSummary};
use geo_core::model::{Project, Prompt, Run};
use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

/// Path of the first view, relative to the `<base href>` (preloaded by `index.html`).
pub const FIRST_VIEW_URL: &str = "demo/demo-first-view.json";
/// The shape of [`FirstView`]; a file of another format is not used.
pub const FIRST_VIEW_FORMAT: u32 = 1;

/// What the dashboard's first render reads of the seeded demo.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FirstView {
    /// [`FIRST_VIEW_FORMAT`].
    pub format: u32,
    /// [`fingerprint`] of the demo file these records were computed from.
    pub source: String,
    /// The demo's projects, as listed.
    pub projects: Vec<Project>,
    /// Their prompts, per project in the listed order.
    pub prompts: Vec<Prompt>,
    /// Their runs, per project newest first.
    pub runs: Vec<Run>,
    /// The runs' stored summaries, per project as [`Repository::run_summaries`] lists them.
    pub summaries: Vec<RunSummary>,
    /// Every run's stored metrics, in the order of `runs`.
    pub metrics: Vec<RunMetrics>,
}

pub use crate::demo_fingerprint::fingerprint;

impl FirstView {
    /// The first view of what `repo` holds (the demo just seeded from a file of fingerprint
    /// `source`): every demo project with its prompts, runs, summaries and metrics, read
    /// through the repository's own lists.
    pub async fn read_from<R: Repository>(repo: &R, source: String) -> RepoResult<FirstView> {
        let projects: Vec<Project> = repo.list_projects().await?.into_iter().filter(|p| p.is_demo).collect();
        let mut view = FirstView {
            format: FIRST_VIEW_FORMAT,
            source,
            projects: Vec::new(),
            prompts: Vec::new(),
            runs: Vec::new(),
            summaries: Vec::new(),
            metrics: Vec::new(),
        };
        for p in &projects {
            view.prompts.extend(repo.prompts_by_project(&p.id).await?);
            let runs = repo.runs_by_project(&p.id).await?;
            for r in &runs {
                view.metrics.extend(repo.run_metrics(&r.id).await?);
            }
            view.runs.extend(runs);
            view.summaries.extend(repo.run_summaries(&p.id).await?);
        }
        view.projects = projects;
        Ok(view)
    }

    /// The first view in `text` when it may stand for the demo file of fingerprint `source`
    /// (the page's, or the fetched file's [`fingerprint`]): it decodes, is of
    /// [`FIRST_VIEW_FORMAT`], was computed from exactly that file, holds only demo projects
    /// (at least one), a current summary and metrics for every run; `None` otherwise (the
    /// app then seeds before it shows anything).
    pub fn accept(text: &str, source: &str) -> Option<FirstView> {
        let view: FirstView = geo_core::json::from_str(text).ok()?;
        let fits = view.format == FIRST_VIEW_FORMAT
            && view.source == source
            && !view.projects.is_empty()
            && view.projects.iter().all(|p| p.is_demo)
            && view.summaries.len() == view.runs.len()
            && view.summaries.iter().all(RunSummary::is_current)
            && view.runs.iter().all(|r| view.metrics.iter().any(|m| m.run_id == r.id));
        fits.then_some(view)
    }

    /// The projects, as [`Repository::list_projects`] lists them.
    pub fn list_projects(&self) -> Vec<Project> {
        self.projects.clone()
    }

    /// One project.
    pub fn get_project(&self, id: &str) -> Option<Project> {
        self.projects.iter().find(|p| p.id == id).cloned()
    }

    /// The prompts of a project, in the stored order.
    pub fn prompts_by_project(&self, project_id: &str) -> Vec<Prompt> {
        self.prompts.iter().filter(|p| p.project_id == project_id).cloned().collect()
    }

    /// The runs of a project, newest first.
    pub fn runs_by_project(&self, project_id: &str) -> Vec<Run> {
        self.runs.iter().filter(|r| r.project_id == project_id).cloned().collect()
    }

    /// One run.
    pub fn get_run(&self, id: &str) -> Option<Run> {
        self.runs.iter().find(|r| r.id == id).cloned()
    }

    /// The summaries of a project's runs, as listed.
    pub fn run_summaries(&self, project_id: &str) -> Vec<RunSummary> {
        self.summaries.iter().filter(|s| s.project_id == project_id).cloned().collect()
    }

    /// One run's metrics.
    pub fn run_metrics(&self, run_id: &str) -> Option<RunMetrics> {
        self.metrics.iter().find(|m| m.run_id == run_id).cloned()
    }
}

/// The first view shown in front of a repository while the demo is seeded behind it.
/// Clones share it.
#[derive(Default)]
pub struct Overlay {
    view: RefCell<Option<Rc<FirstView>>>,
    waiting: RefCell<Vec<Waker>>,
}

impl Overlay {
    /// Shows `view` until [`Overlay::end`].
    pub fn show(&self, view: FirstView) {
        *self.view.borrow_mut() = Some(Rc::new(view));
    }

    /// The view shown, if any.
    pub fn view(&self) -> Option<Rc<FirstView>> {
        self.view.borrow().clone()
    }

    /// Stops showing the view (the seeding ended, stored or failed) and wakes every read or
    /// write that waited for it.
    pub fn end(&self) {
        self.view.borrow_mut().take();
        for waker in self.waiting.borrow_mut().drain(..) {
            waker.wake();
        }
    }

    /// Resolves once no view is shown (at once when none is).
    pub fn settled(self: &Rc<Self>) -> Settled {
        Settled(self.clone())
    }
}

/// The future of [`Overlay::settled`].
pub struct Settled(Rc<Overlay>);

impl Future for Settled {
    type Output = ();
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.0.view.borrow().is_none() {
            return Poll::Ready(());
        }
        self.0.waiting.borrow_mut().push(cx.waker().clone());
        Poll::Pending
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::demo::{ensure_demo_seed, DemoError, SeedOutcome};
    use crate::repo::memory::MemoryRepo;
    use crate::repo::test_support::block_on;
    use std::path::PathBuf;

    const DEMO: &str = include_str!("../../../../demo/demo-data.json");

    fn committed_path() -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../demo/demo-first-view.json")
    }

    /// The first view of the demo as seeding stores it: `demo/demo-data.json` seeded into the
    /// memory repository by the app's own seeding code, then read back.
    fn seeded_view() -> FirstView {
        let repo = MemoryRepo::new();
        let seeded = block_on(ensure_demo_seed(&repo, || async { Ok::<_, DemoError>(DEMO.to_string()) })).unwrap();
        assert!(matches!(seeded, SeedOutcome::Seeded(_)), "{seeded:?}");
        block_on(FirstView::read_from(&repo, fingerprint(DEMO))).unwrap()
    }

    #[test]
    fn the_committed_first_view_is_what_seeding_stores() {
        let want = seeded_view();
        let text = serde_json::to_string(&want).unwrap() + "\n";
        let path = committed_path();
        if std::env::var_os("GEO_FIRST_VIEW_UPDATE").is_some() {
            std::fs::write(&path, &text).unwrap();
        }
        let committed = std::fs::read_to_string(&path).unwrap_or_default();
        let got = FirstView::accept(&committed, &fingerprint(DEMO));
        assert!(
            got.as_ref() == Some(&want),
            "demo/demo-first-view.json is missing or differs from what seeding demo/demo-data.json stores: \
             write it again with `GEO_FIRST_VIEW_UPDATE=1 cargo test -p geo-web --lib first_view`"
        );
        // Nothing of the demo is left out: every project, prompt and run the seeding stored.
        let repo = MemoryRepo::new();
        block_on(ensure_demo_seed(&repo, || async { Ok::<_, DemoError>(DEMO.to_string()) })).unwrap();
        let stored = block_on(repo.snapshot("")).unwrap();
        assert_eq!((want.projects.len(), want.prompts.len(), want.runs.len()), (1, stored.prompts.len(), 10));
        assert_eq!(want.runs.len(), stored.runs.len());
        assert_eq!((want.summaries.len(), want.metrics.len()), (want.runs.len(), want.runs.len()));
    }

    #[test]
    fn a_first_view_is_used_only_for_the_demo_file_it_was_made_from() {
        let view = seeded_view();
        let text = serde_json::to_string(&view).unwrap();
        assert_eq!(FirstView::accept(&text, &fingerprint(DEMO)).as_ref(), Some(&view));
        // Another demo file, one changed byte included.
        assert_eq!(FirstView::accept(&text, &fingerprint(&DEMO.replacen('1', "2", 1))), None);
        assert_eq!(FirstView::accept(&text, &fingerprint("")), None);
        // A page that names no fingerprint, or another file's.
        assert_eq!(FirstView::accept(&text, ""), None);
        assert_eq!(FirstView::accept(&text, "fnv1a64:0000000000000000"), None);
        // Not a first view, or of another format.
        assert_eq!(FirstView::accept("", &fingerprint(DEMO)), None);
        assert_eq!(FirstView::accept("[]", &fingerprint(DEMO)), None);
        assert_eq!(FirstView::accept(&text.replacen("\"format\":1", "\"format\":2", 1), &fingerprint(DEMO)), None);
        // A summary computed by another release (an older format) or a run without metrics.
        let mut old = view.clone();
        old.summaries[0].format -= 1;
        assert_eq!(FirstView::accept(&serde_json::to_string(&old).unwrap(), &fingerprint(DEMO)), None);
        let mut short = view.clone();
        short.metrics.pop();
        assert_eq!(FirstView::accept(&serde_json::to_string(&short).unwrap(), &fingerprint(DEMO)), None);
        let mut mine = view;
        mine.projects[0].is_demo = false;
        assert_eq!(FirstView::accept(&serde_json::to_string(&mine).unwrap(), &fingerprint(DEMO)), None);
    }

    #[test]
    fn the_view_answers_as_the_seeded_repository_does() {
        let repo = MemoryRepo::new();
        block_on(ensure_demo_seed(&repo, || async { Ok::<_, DemoError>(DEMO.to_string()) })).unwrap();
        let view = block_on(FirstView::read_from(&repo, fingerprint(DEMO))).unwrap();
        assert_eq!(view.list_projects(), block_on(repo.list_projects()).unwrap());
        let project = &view.projects[0].id;
        assert_eq!(view.get_project(project), block_on(repo.get_project(project)).unwrap());
        assert_eq!(view.prompts_by_project(project), block_on(repo.prompts_by_project(project)).unwrap());
        assert_eq!(view.runs_by_project(project), block_on(repo.runs_by_project(project)).unwrap());
        assert_eq!(view.run_summaries(project), block_on(repo.run_summaries(project)).unwrap());
        for r in &view.runs {
            assert_eq!(view.get_run(&r.id), block_on(repo.get_run(&r.id)).unwrap());
            assert_eq!(view.run_metrics(&r.id), block_on(repo.run_metrics(&r.id)).unwrap());
        }
        assert_eq!((view.get_project("nope"), view.run_metrics("nope")), (None, None));
        assert!(view.runs_by_project("nope").is_empty());
    }

    #[test]
    fn waiting_ends_when_the_overlay_ends() {
        let overlay = Rc::new(Overlay::default());
        let mut cx = Context::from_waker(Waker::noop());
        assert!(Pin::new(&mut overlay.settled()).poll(&mut cx).is_ready(), "nothing shown: no wait");
        overlay.show(seeded_view());
        let mut waiting = overlay.settled();
        assert!(Pin::new(&mut waiting).poll(&mut cx).is_pending());
        assert!(overlay.view().is_some());
        overlay.end();
        assert!(overlay.view().is_none());
        assert!(Pin::new(&mut waiting).poll(&mut cx).is_ready());
    }

    #[test]
    fn the_fingerprint_is_fnv1a_64() {
        // The published FNV-1a test vectors.
        assert_eq!(fingerprint(""), "fnv1a64:cbf29ce484222325");
        assert_eq!(fingerprint("a"), "fnv1a64:af63dc4c8601ec8c");
        assert_eq!(fingerprint("foobar"), "fnv1a64:85944171f73967e8");
    }
}
