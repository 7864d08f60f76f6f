//! The app-wide state, one reducer handed down by context: interface language, the open
//! repository, a data version that every write bumps, the selected project and toasts.

use crate::repo::idb::IdbRepo;
use crate::repo::RepoError;
use geo_core::model::Lang;
use std::rc::Rc;
use yew::prelude::*;

/// How a toast looks and is announced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToastKind {
    /// Something worked.
    Ok,
    /// Something failed; nothing was saved.
    Error,
}

/// A short message in the corner.
#[derive(Debug, Clone, PartialEq)]
pub struct Toast {
    /// Unique within the session.
    pub id: u32,
    /// Success or error.
    pub kind: ToastKind,
    /// Text in the current language.
    pub text: String,
}

/// Where the repository is.
#[derive(Debug, Clone, PartialEq)]
pub enum RepoState {
    /// Being opened.
    Opening,
    /// Open and usable.
    Ready(IdbRepo),
    /// Could not be opened: the message says what to do.
    Failed(RepoError),
}

/// The shared state.
#[derive(Debug, Clone, PartialEq)]
pub struct AppState {
    /// Interface language.
    pub lang: Lang,
    /// The storage.
    pub repo: RepoState,
    /// Bumped after every write here or in another tab; queries re-run when it changes.
    pub data_version: u32,
    /// The selected project id.
    pub project_id: Option<String>,
    /// The selected run of the selected project (the newest when none was chosen).
    pub run_id: Option<String>,
    /// Toasts on screen, oldest first.
    pub toasts: Vec<Toast>,
    /// The start-up work after opening storage (the demo seed of a first visit) has ended.
    pub started: bool,
    next_toast: u32,
}

/// Everything that changes [`AppState`].
#[derive(Debug, Clone)]
pub enum Action {
    /// Switch the interface language.
    SetLang(Lang),
    /// The repository opened.
    RepoReady(IdbRepo),
    /// The repository could not be opened.
    RepoFailed(RepoError),
    /// Stored data changed.
    DataChanged,
    /// Select a project (or none); clears the selected run.
    SelectProject(Option<String>),
    /// Select a run of the selected project (or none).
    SelectRun(Option<String>),
    /// Show a toast.
    Toast(ToastKind, String),
    /// Remove a toast by id.
    Dismiss(u32),
    /// The start-up work after opening storage has ended (seeded, skipped or failed).
    Started,
}

impl AppState {
    /// The state at start-up.
    pub fn new(lang: Lang, project_id: Option<String>) -> Self {
        AppState {
            lang,
            repo: RepoState::Opening,
            data_version: 0,
            project_id,
            run_id: None,
            toasts: Vec::new(),
            started: false,
            next_toast: 1,
        }
    }

    /// The open repository, if any.
    pub fn repo(&self) -> Option<&IdbRepo> {
        match &self.repo {
            RepoState::Ready(r) => Some(r),
            _ => None,
        }
    }

    /// Id the next toast will get.
    pub fn next_toast_id(&self) -> u32 {
        self.next_toast
    }
}

impl Reducible for AppState {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        let mut next = (*self).clone();
        match action {
            Action::SetLang(lang) => next.lang = lang,
            Action::RepoReady(repo) => next.repo = RepoState::Ready(repo),
            Action::RepoFailed(e) => next.repo = RepoState::Failed(e),
            Action::DataChanged => next.data_version = next.data_version.wrapping_add(1),
            Action::SelectProject(id) => {
                if next.project_id != id {
                    next.run_id = None;
                }
                next.project_id = id;
            }
            Action::SelectRun(id) => next.run_id = id,
            Action::Toast(kind, text) => {
                next.toasts.push(Toast { id: next.next_toast, kind, text });
                next.next_toast += 1;
                // Keep the corner readable: at most four at once.
                let excess = next.toasts.len().saturating_sub(4);
                next.toasts.drain(..excess);
            }
            Action::Dismiss(id) => next.toasts.retain(|t| t.id != id),
            Action::Started => next.started = true,
        }
        Rc::new(next)
    }
}

/// The context value: the reducer handle.
pub type AppHandle = UseReducerHandle<AppState>;

/// What a header selector does when a freshly read list of ids arrives: `None` keeps the
/// current selection (it is listed), `Some(next)` replaces it with the first listed id (or
/// nothing when the list is empty).
///
/// Only a *fresh* list may overrule the selection: a selection made right after a write (a
/// project just saved, a run just started) is newer than the list still on screen, which is
/// re-read after that write. Callers therefore run this when the list changes, never when
/// only the selection does.
pub fn reconcile_selection(ids: &[String], selected: Option<&str>) -> Option<Option<String>> {
    if selected.is_some_and(|s| ids.iter().any(|id| id == s)) {
        return None;
    }
    let first = ids.first().cloned();
    (first.as_deref() != selected).then_some(first)
}

/// What one of the header's list reads has given so far.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListRead<'a> {
    /// Not read yet, or being read for the first time.
    Pending,
    /// The read failed.
    Failed,
    /// The ids read.
    Done {
        /// The data version they were read at.
        version: u32,
        /// The project they were read for (runs; `None` for the project list).
        project: Option<&'a str>,
        /// The ids, in the list's order.
        ids: &'a [String],
    },
}

/// The header's `data-state` (`shared/spec/ui-testids.md` extensions): `ready` once storage
/// is open, the start-up work has ended and both selectors show a list read at the current
/// data version (the runs of the selected project) with a selection that list has settled;
/// `failed` when storage or a list read failed; `loading` otherwise. A test (or a user
/// tabbing early) waits for `ready` instead of a moment.
pub fn header_state(state: &AppState, projects: ListRead<'_>, runs: ListRead<'_>) -> &'static str {
    header_state_of(state.repo.phase(), state, projects, runs)
}

/// The phase of [`RepoState`] alone (what [`header_state`] needs of it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RepoPhase {
    /// Being opened.
    Opening,
    /// Open.
    Ready,
    /// Could not be opened.
    Failed,
}

impl RepoState {
    /// Its phase.
    pub fn phase(&self) -> RepoPhase {
        match self {
            RepoState::Opening => RepoPhase::Opening,
            RepoState::Ready(_) => RepoPhase::Ready,
            RepoState::Failed(_) => RepoPhase::Failed,
        }
    }
}

/// [`header_state`] with the repository's phase given apart (so it can be tested natively).
fn header_state_of(phase: RepoPhase, state: &AppState, projects: ListRead<'_>, runs: ListRead<'_>) -> &'static str {
    match phase {
        RepoPhase::Failed => return "failed",
        RepoPhase::Opening => return "loading",
        RepoPhase::Ready => {}
    }
    if projects == ListRead::Failed || runs == ListRead::Failed {
        return "failed";
    }
    let settled = |read: ListRead<'_>, project: Option<&str>, selected: Option<&str>| match read {
        ListRead::Done { version, project: read_for, ids } => {
            version == state.data_version && read_for == project && reconcile_selection(ids, selected).is_none()
        }
        _ => false,
    };
    let project = state.project_id.as_deref();
    if state.started && settled(projects, None, project) && settled(runs, project, state.run_id.as_deref()) {
        "ready"
    } else {
        "loading"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_header_is_ready_only_when_both_lists_are_current_and_settled() {
        let ids = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let (projects, runs) = (ids(&["demo"]), ids(&["r2", "r1"]));
        let mut s = AppState::new(Lang::Zh, Some("demo".into()));
        let p = |version| ListRead::Done { version, project: None, ids: &projects };
        let r = |version, project| ListRead::Done { version, project, ids: &runs };
        let mut phase = RepoPhase::Opening;
        // Storage still opening.
        assert_eq!(header_state_of(phase, &s, p(0), r(0, Some("demo"))), "loading");
        phase = RepoPhase::Failed;
        assert_eq!(header_state_of(phase, &s, p(0), r(0, Some("demo"))), "failed");
        phase = RepoPhase::Ready;
        // The demo seed has not ended yet.
        assert_eq!(header_state_of(phase, &s, p(0), r(0, Some("demo"))), "loading");
        s.started = true;
        // The run list is settled once its selection is one of its runs.
        assert_eq!(header_state_of(phase, &s, p(0), r(0, Some("demo"))), "loading");
        s.run_id = Some("r2".into());
        assert_eq!(header_state_of(phase, &s, p(0), r(0, Some("demo"))), "ready");
        assert_eq!(header_state_of(phase, &s, ListRead::Pending, r(0, Some("demo"))), "loading");
        assert_eq!(header_state_of(phase, &s, p(0), ListRead::Failed), "failed");
        // A write bumped the version: the lists on screen are stale until read again.
        s.data_version = 1;
        assert_eq!(header_state_of(phase, &s, p(0), r(1, Some("demo"))), "loading");
        assert_eq!(header_state_of(phase, &s, p(1), r(0, Some("demo"))), "loading");
        assert_eq!(header_state_of(phase, &s, p(1), r(1, Some("demo"))), "ready");
        // Runs read for another project do not count.
        assert_eq!(header_state_of(phase, &s, p(1), r(1, Some("other"))), "loading");
        // No project at all: an empty list read for no project is settled.
        let none: Vec<String> = Vec::new();
        s.project_id = None;
        s.run_id = None;
        let empty = |project| ListRead::Done { version: 1, project, ids: &none };
        assert_eq!(header_state_of(phase, &s, empty(None), empty(None)), "ready");
        // A selection the list does not hold is about to change.
        s.project_id = Some("gone".into());
        assert_eq!(header_state_of(phase, &s, empty(None), empty(Some("gone"))), "loading");
    }

    #[test]
    fn toasts_get_ids_and_are_capped_and_dismissed() {
        let mut s = Rc::new(AppState::new(Lang::Zh, None));
        for i in 0..6 {
            s = s.reduce(Action::Toast(ToastKind::Ok, format!("t{i}")));
        }
        assert_eq!(s.toasts.iter().map(|t| t.id).collect::<Vec<_>>(), [3, 4, 5, 6]);
        s = s.reduce(Action::Dismiss(4));
        assert_eq!(s.toasts.len(), 3);
        s = s.reduce(Action::DataChanged);
        assert_eq!(s.data_version, 1);
    }

    #[track_caller]
    fn check(ids: &[&str], selected: Option<&str>, expect: Option<Option<&str>>) {
        let ids: Vec<String> = ids.iter().map(|s| s.to_string()).collect();
        assert_eq!(reconcile_selection(&ids, selected), expect.map(|e| e.map(str::to_string)), "{ids:?} {selected:?}");
    }

    #[test]
    fn a_listed_selection_is_kept_and_a_missing_one_falls_back_to_the_first() {
        check(&["demo", "mine"], Some("mine"), None);
        // The current project was deleted: another one is selected.
        check(&["demo"], Some("mine"), Some(Some("demo")));
        // Nothing selected yet (first visit): the first project.
        check(&["demo", "mine"], None, Some(Some("demo")));
        // The last project was deleted.
        check(&[], Some("mine"), Some(None));
        check(&[], None, None);
    }

    #[test]
    fn changing_project_forgets_the_run() {
        let mut s = Rc::new(AppState::new(Lang::Zh, Some("a".into())));
        s = s.reduce(Action::SelectRun(Some("r1".into())));
        s = s.reduce(Action::SelectProject(Some("a".into())));
        assert_eq!(s.run_id.as_deref(), Some("r1"));
        s = s.reduce(Action::SelectProject(Some("b".into())));
        assert_eq!(s.run_id, None);
    }
}
