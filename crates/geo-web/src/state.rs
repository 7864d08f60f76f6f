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

#[cfg(test)]
mod tests {
    use super::*;

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
