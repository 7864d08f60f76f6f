//! An in-memory [`Repository`]: the same contract as IndexedDB, for native tests of
//! everything above storage (cascade deletes, merges, page logic).
//!
//! A write either applies whole or returns an error: [`MemoryRepo::fail_writes`] makes
//! every later write fail before touching anything, the way an aborted transaction does.

use super::{order_probes, order_projects, order_prompts, order_runs, Batch, RepoError, RepoResult, Repository};
use geo_core::model::{ExportEnvelope, Probe, Project, Prompt, Run};
use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;

#[derive(Debug, Default, Clone)]
struct Tables {
    projects: BTreeMap<String, Project>,
    prompts: BTreeMap<String, Prompt>,
    runs: BTreeMap<String, Run>,
    probes: BTreeMap<String, Probe>,
    settings: BTreeMap<String, serde_json::Value>,
}

/// Repository held in memory; `changes()` counts successful writes (the change notices).
#[derive(Debug, Default)]
pub struct MemoryRepo {
    tables: RefCell<Tables>,
    changes: Cell<u32>,
    fail_writes: Cell<bool>,
}

impl MemoryRepo {
    /// An empty repository.
    pub fn new() -> Self {
        Self::default()
    }

    /// Number of change notices sent so far (one per successful write call).
    pub fn changes(&self) -> u32 {
        self.changes.get()
    }

    /// Makes every later write fail with a quota error (to test error paths).
    pub fn fail_writes(&self, fail: bool) {
        self.fail_writes.set(fail);
    }

    fn write(&self, f: impl FnOnce(&mut Tables)) -> RepoResult<()> {
        if self.fail_writes.get() {
            return Err(RepoError::Quota("QuotaExceededError".into()));
        }
        // Work on a copy and swap it in: all or nothing, like one transaction.
        let mut next = self.tables.borrow().clone();
        f(&mut next);
        *self.tables.borrow_mut() = next;
        self.changes.set(self.changes.get() + 1);
        Ok(())
    }
}

impl Repository for MemoryRepo {
    async fn list_projects(&self) -> RepoResult<Vec<Project>> {
        Ok(order_projects(self.tables.borrow().projects.values().cloned().collect()))
    }

    async fn get_project(&self, id: &str) -> RepoResult<Option<Project>> {
        Ok(self.tables.borrow().projects.get(id).cloned())
    }

    async fn put_project(&self, project: &Project) -> RepoResult<()> {
        self.write(|t| {
            t.projects.insert(project.id.clone(), project.clone());
        })
    }

    async fn prompts_by_project(&self, project_id: &str) -> RepoResult<Vec<Prompt>> {
        let t = self.tables.borrow();
        Ok(order_prompts(t.prompts.values().filter(|p| p.project_id == project_id).cloned().collect()))
    }

    async fn put_prompts(&self, prompts: &[Prompt]) -> RepoResult<()> {
        self.write(|t| {
            for p in prompts {
                t.prompts.insert(p.id.clone(), p.clone());
            }
        })
    }

    async fn delete_prompt(&self, id: &str) -> RepoResult<()> {
        self.write(|t| {
            t.prompts.remove(id);
        })
    }

    async fn runs_by_project(&self, project_id: &str) -> RepoResult<Vec<Run>> {
        let t = self.tables.borrow();
        Ok(order_runs(t.runs.values().filter(|r| r.project_id == project_id).cloned().collect()))
    }

    async fn get_run(&self, id: &str) -> RepoResult<Option<Run>> {
        Ok(self.tables.borrow().runs.get(id).cloned())
    }

    async fn put_run(&self, run: &Run) -> RepoResult<()> {
        self.write(|t| {
            t.runs.insert(run.id.clone(), run.clone());
        })
    }

    async fn probes_by_run(&self, run_id: &str) -> RepoResult<Vec<Probe>> {
        let t = self.tables.borrow();
        Ok(order_probes(t.probes.values().filter(|p| p.run_id == run_id).cloned().collect()))
    }

    async fn put_probe(&self, probe: &Probe) -> RepoResult<()> {
        self.write(|t| {
            t.probes.insert(probe.id.clone(), probe.clone());
        })
    }

    async fn put_many(&self, batch: &Batch) -> RepoResult<()> {
        self.write(|t| {
            for p in &batch.projects {
                t.projects.insert(p.id.clone(), p.clone());
            }
            for p in &batch.prompts {
                t.prompts.insert(p.id.clone(), p.clone());
            }
            for r in &batch.runs {
                t.runs.insert(r.id.clone(), r.clone());
            }
            for p in &batch.probes {
                t.probes.insert(p.id.clone(), p.clone());
            }
        })
    }

    async fn delete_project(&self, id: &str) -> RepoResult<()> {
        self.write(|t| {
            t.projects.remove(id);
            t.prompts.retain(|_, p| p.project_id != id);
            t.runs.retain(|_, r| r.project_id != id);
            t.probes.retain(|_, p| p.project_id != id);
        })
    }

    async fn clear_all(&self) -> RepoResult<()> {
        self.write(|t| *t = Tables::default())
    }

    async fn setting(&self, key: &str) -> RepoResult<Option<serde_json::Value>> {
        Ok(self.tables.borrow().settings.get(key).cloned())
    }

    async fn set_setting(&self, key: &str, value: Option<serde_json::Value>) -> RepoResult<()> {
        self.write(|t| match value {
            Some(v) => {
                t.settings.insert(key.to_string(), v);
            }
            None => {
                t.settings.remove(key);
            }
        })
    }

    async fn snapshot(&self, exported_at: &str) -> RepoResult<ExportEnvelope> {
        let t = self.tables.borrow();
        let mut e = ExportEnvelope::new(exported_at);
        e.projects = order_projects(t.projects.values().cloned().collect());
        e.prompts = order_prompts(t.prompts.values().cloned().collect());
        e.runs = order_runs(t.runs.values().cloned().collect());
        e.probes = t.probes.values().cloned().collect();
        Ok(e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::repo::test_support::{block_on, probe, project, prompt, run};
    use geo_core::model::Lang;

    #[test]
    fn delete_project_cascades_to_its_records_only() {
        let repo = MemoryRepo::new();
        let batch = Batch {
            projects: vec![project("a"), project("b")],
            prompts: vec![prompt("pa", "a"), prompt("pb", "b")],
            runs: vec![run("ra", "a"), run("rb", "b")],
            probes: vec![probe("ra", "pa", "a"), probe("rb", "pb", "b")],
        };
        block_on(repo.put_many(&batch)).unwrap();
        block_on(repo.delete_project("a")).unwrap();
        let snap = block_on(repo.snapshot("t")).unwrap();
        assert_eq!(snap.projects.iter().map(|p| p.id.as_str()).collect::<Vec<_>>(), ["b"]);
        assert_eq!(snap.prompts.len(), 1);
        assert_eq!(snap.runs[0].id, "rb");
        assert_eq!(snap.probes[0].run_id, "rb");
        assert_eq!(repo.changes(), 2);
    }

    #[test]
    fn merge_overwrites_same_ids_and_keeps_others() {
        let repo = MemoryRepo::new();
        block_on(repo.put_many(&Batch { projects: vec![project("a"), project("b")], ..Batch::default() })).unwrap();
        let mut env = ExportEnvelope::new("t");
        let mut renamed = project("a");
        renamed.name = "renamed".into();
        env.projects = vec![renamed];
        env.prompts = vec![prompt("p1", "a")];
        block_on(repo.merge(&env)).unwrap();
        let projects = block_on(repo.list_projects()).unwrap();
        assert_eq!(projects.len(), 2);
        assert_eq!(projects[0].name, "renamed");
        assert_eq!(block_on(repo.prompts_by_project("a")).unwrap().len(), 1);
    }

    #[test]
    fn merge_reports_what_it_added_updated_and_left_unchanged() {
        let repo = MemoryRepo::new();
        let stored = Batch {
            projects: vec![project("a"), project("other")],
            prompts: vec![prompt("p1", "a"), prompt("p2", "a")],
            runs: vec![run("r1", "a")],
            probes: vec![probe("r1", "p1", "a")],
        };
        block_on(repo.put_many(&stored)).unwrap();
        let mut env = ExportEnvelope::new("t");
        env.projects = vec![project("a")];
        let mut edited = prompt("p2", "a");
        edited.text = "edited".into();
        env.prompts = vec![prompt("p1", "a"), edited, prompt("p3", "a")];
        env.runs = vec![run("r1", "a"), run("r2", "a")];
        let mut changed = probe("r1", "p1", "a");
        changed.raw_answer = "another answer".into();
        env.probes = vec![changed, probe("r2", "p1", "a")];
        let report = block_on(repo.merge_reported(&env)).unwrap();
        let count = |k: geo_core::export::KindCount| (k.added, k.updated, k.unchanged);
        assert_eq!(count(report.projects), (0, 0, 1));
        assert_eq!(count(report.prompts), (1, 1, 1));
        assert_eq!(count(report.runs), (1, 0, 1));
        assert_eq!(count(report.probes), (1, 1, 0));
        assert_eq!(block_on(repo.prompts_by_project("a")).unwrap().len(), 3, "merged as well as reported");
        assert_eq!(block_on(repo.list_projects()).unwrap().len(), 2);
        assert!(report.describe().get(Lang::Zh).starts_with("已合并 1 个项目"));

        // A failed write reports nothing merged: the error comes back instead.
        repo.fail_writes(true);
        assert!(block_on(repo.merge_reported(&env)).is_err());
    }

    #[test]
    fn failed_write_changes_nothing_and_sends_no_notice() {
        let repo = MemoryRepo::new();
        block_on(repo.put_project(&project("a"))).unwrap();
        repo.fail_writes(true);
        let err = block_on(repo.put_many(&Batch { projects: vec![project("b")], ..Batch::default() })).unwrap_err();
        assert!(matches!(err, RepoError::Quota(_)));
        assert!(err.to_string().starts_with("browser storage is full"));
        assert_eq!(block_on(repo.list_projects()).unwrap().len(), 1);
        assert_eq!(repo.changes(), 1);
    }

    #[test]
    fn settings_round_trip_and_clear_all_empties_everything() {
        let repo = MemoryRepo::new();
        block_on(repo.set_setting("baseUrl", Some(serde_json::json!("http://127.0.0.1:9")))).unwrap();
        block_on(repo.put_project(&project("a"))).unwrap();
        assert_eq!(block_on(repo.setting("baseUrl")).unwrap(), Some(serde_json::json!("http://127.0.0.1:9")));
        block_on(repo.clear_all()).unwrap();
        assert_eq!(block_on(repo.setting("baseUrl")).unwrap(), None);
        assert!(block_on(repo.list_projects()).unwrap().is_empty());
    }

    #[test]
    fn runs_are_listed_newest_first() {
        let repo = MemoryRepo::new();
        let mut old = run("r1", "a");
        old.created_at = "2026-01-01T00:00:00.000Z".into();
        let mut new = run("r2", "a");
        new.created_at = "2026-02-01T00:00:00.000Z".into();
        block_on(repo.put_many(&Batch { runs: vec![old, new], ..Batch::default() })).unwrap();
        let ids: Vec<_> = block_on(repo.runs_by_project("a")).unwrap().into_iter().map(|r| r.id).collect();
        assert_eq!(ids, ["r2", "r1"]);
    }
}
