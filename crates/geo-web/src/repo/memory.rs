//! An in-memory [`Repository`]: the same contract as IndexedDB, for native tests of
//! everything above storage (cascade deletes, merges, page logic).
//!
//! A write either applies whole or returns an error: [`MemoryRepo::fail_writes`] makes
//! every later write fail before touching anything, the way an aborted transaction does.

use super::page_figures::{PageFigures, PagePart, StoredPart};
use super::summaries::{
    analyse_again, needs_analysis, order_summaries, records, runs_of_batch, StoredMetrics, RECOMPUTE_LIMIT,
};
use super::{
    order_probes, order_projects, order_prompts, order_runs, Batch, RepoError, RepoResult, Repository, StoredLinkCheck,
};
use geo_core::metrics::{against_previous, RunMetrics, RunSummary};
use geo_core::model::{ExportEnvelope, LinkCheck, Probe, Project, Prompt, Run};
use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;

#[derive(Debug, Default, Clone)]
struct Tables {
    projects: BTreeMap<String, Project>,
    prompts: BTreeMap<String, Prompt>,
    runs: BTreeMap<String, Run>,
    probes: BTreeMap<String, Probe>,
    settings: BTreeMap<String, serde_json::Value>,
    summaries: BTreeMap<String, RunSummary>,
    metrics: BTreeMap<String, StoredMetrics>,
    link_checks: BTreeMap<String, StoredLinkCheck>,
    pages: BTreeMap<String, StoredPart>,
}

impl Tables {
    /// Recomputes run `id`'s summary from its probes and its previous run's stored metrics,
    /// then sets the runs that follow it against it (the rules of [`super::summaries`]).
    fn refresh(&mut self, id: &str) {
        self.refresh_at(id, 0);
    }

    fn refresh_at(&mut self, id: &str, depth: u32) {
        // A run's figures against its previous run need that run's own figures (never its
        // previous run's): bring a stale previous run up to date first, one level deep.
        let previous = self.runs.get(id).and_then(|r| r.previous_run_id.clone());
        if let Some(p) = previous.filter(|p| depth == 0 && self.runs.contains_key(p)) {
            if !self.summaries.get(&p).is_some_and(RunSummary::is_current) {
                self.refresh_at(&p, 1);
            }
        }
        // Probes stored by a release before claims and risk flags: analysed again first.
        if let Some(run) = self.runs.get(id).filter(|_| needs_analysis(self.summaries.get(id))) {
            let mut stored: Vec<Probe> = self.probes.values().filter(|p| p.run_id == id).cloned().collect();
            for i in analyse_again(run, &mut stored) {
                self.probes.insert(stored[i].id.clone(), stored[i].clone());
            }
        }
        let computed = self.runs.get(id).map(|run| {
            let probes: Vec<&Probe> = self.probes.values().filter(|p| p.run_id == id).collect();
            let previous = run.previous_run_id.as_ref().and_then(|p| self.metrics.get(p)).map(|m| &m.metrics);
            let check = self.link_checks.get(id).cloned().map(StoredLinkCheck::into_check);
            records(run, &probes, previous, check.as_ref())
        });
        let followers: Vec<String> = self
            .summaries
            .values()
            .filter(|s| s.previous_run_id.as_deref() == Some(id))
            .map(|s| s.id.clone())
            .collect();
        for f in followers {
            if let Some(m) = self.metrics.get_mut(&f) {
                against_previous(&mut m.metrics, computed.as_ref().map(|(_, m, _)| &m.metrics));
            }
        }
        match computed {
            Some((summary, metrics, pages)) => {
                self.summaries.insert(id.to_string(), summary);
                self.metrics.insert(id.to_string(), metrics);
                for part in pages {
                    self.pages.insert(part.id.clone(), part);
                }
            }
            None => {
                self.summaries.remove(id);
                self.metrics.remove(id);
                for part in PagePart::ALL {
                    self.pages.remove(&part.key(id));
                }
            }
        }
    }

    /// After a probe of run `id` was written: recomputed, or marked stale for a large run.
    fn probe_written(&mut self, id: &str) {
        let count = self.probes.values().filter(|p| p.run_id == id).count();
        match self.summaries.get_mut(id) {
            Some(s) if count > RECOMPUTE_LIMIT as usize => s.fresh = false,
            _ => self.refresh(id),
        }
    }

    /// Computes the summaries of `project_id`'s runs that are missing or stale.
    fn bring_up_to_date(&mut self, project_id: &str) {
        let mut stale: Vec<&Run> = self
            .runs
            .values()
            .filter(|r| r.project_id == project_id)
            .filter(|r| !self.summaries.get(&r.id).is_some_and(RunSummary::is_current))
            .collect();
        // Oldest first, as the IndexedDB repository computes them.
        geo_core::sort::sort_by(&mut stale, |a, b| a.created_at.cmp(&b.created_at).then_with(|| a.id.cmp(&b.id)));
        let stale: Vec<String> = stale.into_iter().map(|r| r.id.clone()).collect();
        for id in stale {
            self.refresh(&id);
        }
    }
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
            t.refresh(&run.id);
        })
    }

    async fn probes_by_run(&self, run_id: &str) -> RepoResult<Vec<Probe>> {
        let t = self.tables.borrow();
        Ok(order_probes(t.probes.values().filter(|p| p.run_id == run_id).cloned().collect()))
    }

    async fn probes_by_id(&self, ids: &[String]) -> RepoResult<Vec<Probe>> {
        let t = self.tables.borrow();
        Ok(ids.iter().filter_map(|id| t.probes.get(id).cloned()).collect())
    }

    async fn put_probe(&self, probe: &Probe) -> RepoResult<()> {
        self.write(|t| {
            t.probes.insert(probe.id.clone(), probe.clone());
            t.probe_written(&probe.run_id);
        })
    }

    async fn link_check(&self, run_id: &str) -> RepoResult<Option<LinkCheck>> {
        Ok(self.tables.borrow().link_checks.get(run_id).cloned().map(StoredLinkCheck::into_check))
    }

    async fn run_summaries(&self, project_id: &str) -> RepoResult<Vec<RunSummary>> {
        let mut t = self.tables.borrow_mut();
        t.bring_up_to_date(project_id);
        Ok(order_summaries(t.summaries.values().filter(|s| s.project_id == project_id).cloned().collect()))
    }

    async fn run_metrics(&self, run_id: &str) -> RepoResult<Option<RunMetrics>> {
        let mut t = self.tables.borrow_mut();
        if !t.summaries.get(run_id).is_some_and(RunSummary::is_current) {
            t.refresh(run_id);
        }
        Ok(t.metrics.get(run_id).map(|m| m.metrics.clone()))
    }

    async fn run_pages(&self, run_id: &str) -> RepoResult<Option<PageFigures>> {
        let mut t = self.tables.borrow_mut();
        if !t.summaries.get(run_id).is_some_and(RunSummary::is_current) {
            t.refresh(run_id);
        }
        let [p, a, k] = PagePart::ALL.map(|part| t.pages.get(&part.key(run_id)));
        let figures = p.zip(a).zip(k).map(|((p, a), k)| PageFigures::from_records([p, a, k])).transpose();
        figures.map_err(|e| RepoError::Decode(e.to_string()))
    }

    async fn put_many(&self, batch: &Batch) -> RepoResult<()> {
        // The overwrite rule (a record never moves; a new alias snapshot re-analyses the
        // run's other stored probes), decided on the tables the write starts from.
        let again: Vec<(Run, Vec<Probe>)> = {
            let t = self.tables.borrow();
            let again = super::overwrites(
                batch,
                |id| t.prompts.get(id).map(|p| p.project_id.clone()),
                |id| t.runs.get(id).cloned(),
                |id| t.probes.get(id).map(|p| (p.run_id.clone(), p.project_id.clone())),
            )?;
            let written: std::collections::HashSet<&str> = batch.probes.iter().map(|p| p.id.as_str()).collect();
            again
                .into_iter()
                .map(|run| {
                    let others = t
                        .probes
                        .values()
                        .filter(|p| p.run_id == run.id && !written.contains(p.id.as_str()))
                        .map(|p| geo_core::export::reanalysed(p.clone(), run))
                        .collect();
                    (run.clone(), others)
                })
                .collect()
        };
        self.write(|t| {
            for (_, probes) in &again {
                for p in probes {
                    t.probes.insert(p.id.clone(), p.clone());
                }
            }
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
            for c in &batch.link_checks {
                // The check's run is in the batch or stored (the import checked it).
                let project = t.runs.get(&c.run_id).map_or(String::new(), |r| r.project_id.clone());
                t.link_checks.insert(c.run_id.clone(), StoredLinkCheck::of(c, &project));
            }
            for id in runs_of_batch(&batch.runs, &batch.probes, &batch.link_checks) {
                t.refresh(&id);
            }
        })
    }

    async fn delete_project(&self, id: &str) -> RepoResult<()> {
        self.write(|t| {
            t.projects.remove(id);
            t.prompts.retain(|_, p| p.project_id != id);
            t.runs.retain(|_, r| r.project_id != id);
            t.probes.retain(|_, p| p.project_id != id);
            t.summaries.retain(|_, s| s.project_id != id);
            t.metrics.retain(|_, m| m.project_id != id);
            t.link_checks.retain(|_, c| c.project_id != id);
            t.pages.retain(|_, p| p.project_id != id);
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
        e.link_checks = t.link_checks.values().cloned().map(StoredLinkCheck::into_check).collect();
        geo_core::export::sort_link_checks(&mut e.link_checks, &e.runs);
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
            ..Batch::default()
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

    /// Security review II, finding 6: a write never moves a stored record to another project
    /// or run (the whole write is refused), and a run written with another alias snapshot
    /// has its other stored probes analysed again in the same write, with its summary.
    #[test]
    fn a_write_never_moves_a_record_and_reanalyses_a_changed_run() {
        let repo = MemoryRepo::new();
        let mut first = probe("r1", "p1", "a");
        first.raw_answer = "Acme is good".into();
        let mut second = probe("r1", "p2", "a");
        second.raw_answer = "Acme again".into();
        let stored = Batch {
            projects: vec![project("a"), project("b")],
            prompts: vec![prompt("p1", "a"), prompt("p2", "a")],
            runs: vec![run("r1", "a")],
            probes: vec![first.clone(), second.clone()],
            ..Batch::default()
        };
        block_on(repo.put_many(&stored)).unwrap();
        let before = block_on(repo.snapshot("t")).unwrap();
        for moved in [
            Batch { runs: vec![run("r1", "b")], ..Batch::default() },
            Batch { prompts: vec![prompt("p1", "b")], ..Batch::default() },
            Batch {
                runs: vec![run("r2", "a")],
                probes: vec![Probe { run_id: "r2".into(), ..first.clone() }],
                ..Batch::default()
            },
        ] {
            let err = block_on(repo.put_many(&moved)).unwrap_err();
            assert!(matches!(&err, RepoError::Refused(m) if m.contains("never moves")), "{err:?}");
            assert_eq!(block_on(repo.snapshot("t")).unwrap(), before, "nothing was written");
        }
        // The brand is now called Acme: the probe the write leaves out is analysed again.
        let mut renamed = run("r1", "a");
        renamed.alias_snapshot = vec![geo_core::model::Target {
            id: "b".into(),
            kind: geo_core::model::TargetKind::Brand,
            label: "Acme".into(),
            aliases: vec!["Acme".into()],
            domains: vec![],
        }];
        // The written probe comes analysed, as `prepare_import` leaves it; the other is stored.
        let first = geo_core::export::reanalysed(first, &renamed);
        block_on(repo.put_many(&Batch { runs: vec![renamed.clone()], probes: vec![first], ..Batch::default() }))
            .unwrap();
        let probes = block_on(repo.probes_by_run("r1")).unwrap();
        assert!(probes.iter().all(|p| p.mentions.len() == 1), "{probes:?}");
        let metrics = block_on(repo.run_metrics("r1")).unwrap().unwrap();
        assert_eq!(metrics.mention_rate, Some(1.0), "the summary sees the analysed probes");
        assert_eq!(metrics, geo_core::metrics::compute_run_metrics(&renamed, &probes, None));
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
            ..Batch::default()
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

    fn fixture(name: &str) -> ExportEnvelope {
        let path = format!("{}/../../fixtures/exports/{name}", env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        let mut env = geo_core::export::parse_export(&text, &geo_core::export::ImportLimits::default()).unwrap();
        assert!(geo_core::analysis::analyze_envelope(&mut env).is_empty());
        env
    }

    /// Every stored summary equals geo-core's metrics of the stored probes (with the
    /// previous run's), its page figures geo-core's list positions and own actions of those
    /// probes, and the light summaries give the trend `project_series` gives.
    #[track_caller]
    fn summaries_match(repo: &MemoryRepo, step: &str) {
        let snap = block_on(repo.snapshot("t")).unwrap();
        for run in &snap.runs {
            let want = geo_core::metrics::metrics_for_export(&snap, Some(&run.id)).unwrap().remove(0);
            // Read before the metrics: a stale summary is recomputed by this read too.
            let pages = block_on(repo.run_pages(&run.id)).unwrap().expect("page figures");
            let probes: Vec<&Probe> = snap.probes_of(&run.id).collect();
            let input = geo_core::actions::RunInput { run, probes: &probes, link_check: snap.link_check(&run.id) };
            assert_eq!(pages.actions, geo_core::actions::own_actions(input), "{step}: actions of {}", run.id);
            assert_eq!(
                pages.keys,
                geo_core::actions::ItemKeys::of(&pages.actions.actions),
                "{step}: keys of {}",
                run.id
            );
            let positions = geo_core::metrics::list_positions(run, &probes, &want);
            assert_eq!(pages.positions, positions, "{step}: positions of {}", run.id);
            assert_eq!(block_on(repo.run_metrics(&run.id)).unwrap().as_ref(), Some(&want), "{step}: run {}", run.id);
        }
        for project in &snap.projects {
            let list = block_on(repo.run_summaries(&project.id)).unwrap();
            let trend = geo_core::metrics::trend_of(&list, None);
            assert_eq!(trend, geo_core::metrics::project_series(&snap.runs, &snap.probes, &project.id), "{step}");
            assert!(list.windows(2).all(|w| w[0].created_at >= w[1].created_at), "newest first");
        }
    }

    #[test]
    fn link_checks_are_stored_counted_exported_and_deleted_with_their_project() {
        let env = fixture("actions.json");
        assert!(!env.link_checks.is_empty());
        let repo = MemoryRepo::new();
        // The runs and probes first, then the check alone (a second import of `geo-probe links`' OUT).
        let checks = env.link_checks.clone();
        block_on(repo.put_many(&Batch::from(ExportEnvelope { link_checks: vec![], ..env.clone() }))).unwrap();
        assert_eq!(block_on(repo.link_check(&checks[0].run_id)).unwrap(), None);
        let mut only_checks = ExportEnvelope::new("t");
        only_checks.link_checks = checks.clone();
        let report = block_on(repo.merge_reported(&only_checks)).unwrap();
        assert_eq!(report.link_checks.added, 1);
        assert!(report.describe().en.ends_with(", 1 link check (1 new, 0 updated)"), "{}", report.describe().en);
        assert_eq!(block_on(repo.link_check(&checks[0].run_id)).unwrap().as_ref(), Some(&checks[0]));
        // The stored metrics carry the counts, as `metrics_for_export` does.
        summaries_match(&repo, "after the check");
        let m = block_on(repo.run_metrics(&checks[0].run_id)).unwrap().unwrap();
        assert_eq!(m.answer_link_check.map(|c| c.not_found), Some(1));
        assert_eq!(block_on(repo.snapshot("t")).unwrap().link_checks, checks);
        // Importing it again changes nothing; deleting the project takes it along.
        let again = block_on(repo.merge_reported(&only_checks)).unwrap();
        assert_eq!((again.link_checks.added, again.link_checks.unchanged), (0, 1));
        block_on(repo.delete_project(&env.projects[0].id)).unwrap();
        assert_eq!(block_on(repo.link_check(&checks[0].run_id)).unwrap(), None);
        assert!(block_on(repo.snapshot("t")).unwrap().link_checks.is_empty());
    }

    #[test]
    fn summaries_follow_every_write_of_runs_and_probes() {
        for name in ["mixed.json", "drop.json", "engines.json"] {
            let env = fixture(name);
            let repo = MemoryRepo::new();
            // The older runs whole, the newest run without its probes, then probe by probe
            // as a run writes them: the summary of the run and of the run after it follow.
            let newest = env.runs.iter().max_by(|a, b| a.created_at.cmp(&b.created_at)).unwrap().id.clone();
            let (later, first): (Vec<Probe>, Vec<Probe>) = env.probes.iter().cloned().partition(|p| p.run_id == newest);
            let batch = Batch {
                projects: env.projects.clone(),
                prompts: env.prompts.clone(),
                runs: env.runs.clone(),
                probes: first,
                ..Batch::default()
            };
            block_on(repo.put_many(&batch)).unwrap();
            summaries_match(&repo, &format!("{name}: batch"));
            for (i, p) in later.iter().enumerate() {
                block_on(repo.put_probe(p)).unwrap();
                if i % 7 == 0 || i + 1 == later.len() {
                    summaries_match(&repo, &format!("{name}: probe {i}"));
                }
            }
            // The previous run re-imported with other probes: the newest run's figures
            // against it change with it.
            let oldest = env.runs.iter().min_by(|a, b| a.created_at.cmp(&b.created_at)).unwrap().id.clone();
            let mut changed: Vec<Probe> = env.probes_of(&oldest).cloned().collect();
            for p in &mut changed {
                p.sources.clear();
            }
            block_on(repo.put_many(&Batch { probes: changed, ..Batch::default() })).unwrap();
            summaries_match(&repo, &format!("{name}: previous run changed"));
            let mut run = env.run(&newest).unwrap().clone();
            run.status = geo_core::model::RunStatus::Cancelled;
            block_on(repo.put_run(&run)).unwrap();
            summaries_match(&repo, &format!("{name}: run rewritten"));
            for project in &env.projects {
                block_on(repo.delete_project(&project.id)).unwrap();
                assert!(block_on(repo.run_summaries(&project.id)).unwrap().is_empty());
            }
            let t = repo.tables.borrow();
            assert!(t.metrics.is_empty() && t.summaries.is_empty() && t.pages.is_empty());
        }
    }

    #[test]
    fn a_large_run_marks_its_summary_stale_and_the_read_recomputes_it() {
        let repo = MemoryRepo::new();
        let mut r = run("big", "a");
        r.planned_probe_count = RECOMPUTE_LIMIT + 5;
        let probes: Vec<Probe> = (0..=RECOMPUTE_LIMIT)
            .map(|i| {
                let mut p = probe("big", &format!("q{i}"), "a");
                p.id = format!("big__q{i}__0");
                p
            })
            .collect();
        block_on(repo.put_many(&Batch { projects: vec![project("a")], runs: vec![r], probes, ..Batch::default() }))
            .unwrap();
        assert!(repo.tables.borrow().summaries["big"].is_current());
        block_on(repo.put_probe(&probe("big", "late", "a"))).unwrap();
        assert!(!repo.tables.borrow().summaries["big"].fresh, "one probe more than the limit defers the work");
        let m = block_on(repo.run_metrics("big")).unwrap().unwrap();
        assert_eq!(m.probe_count, RECOMPUTE_LIMIT + 2);
        assert!(repo.tables.borrow().summaries["big"].is_current());
        summaries_match(&repo, "large run");
    }

    /// A run and its probes as a release before claims and risk flags stored them: the
    /// probes' `claims`/`riskFlags` absent (read as empty), the summary of format 2 without
    /// the `facts`/`riskFlags` rows.
    fn stored_before_claims(repo: &MemoryRepo) -> (Run, Vec<Probe>) {
        let mut r = run("old", "a");
        r.alias_snapshot = project("a").targets();
        r.fact_snapshot = Some(geo_core::model::FactSnapshot { facts: vec![], watch_terms: vec!["限流".into()] });
        let mut p = probe("old", "q1", "a");
        p.raw_answer = "brand 的缺点是价格偏高。brand 曾被用户投诉。\n\nc1 没有限流。".into();
        let mut q = probe("old", "q2", "a");
        q.raw_answer = "brand is fine.".into();
        block_on(repo.put_many(&Batch {
            projects: vec![project("a")],
            runs: vec![r.clone()],
            probes: vec![p, q],
            ..Batch::default()
        }))
        .unwrap();
        let analysed = block_on(repo.probes_by_run("old")).unwrap();
        let mut t = repo.tables.borrow_mut();
        for p in t.probes.values_mut() {
            p.claims.clear();
            p.risk_flags.clear();
        }
        t.summaries.get_mut("old").unwrap().format = 2;
        let m = &mut t.metrics.get_mut("old").unwrap().metrics;
        m.risk_flags.clear();
        m.facts.clear();
        (r, analysed)
    }

    #[test]
    fn probes_stored_before_claims_get_their_risk_flags_when_the_summary_is_recomputed() {
        let repo = MemoryRepo::new();
        let (r, analysed) = stored_before_claims(&repo);
        assert!(analysed.iter().map(|p| p.risk_flags.len()).sum::<usize>() >= 4, "{analysed:?}");
        // The read recomputes the older summary and analyses its probes first.
        let list = block_on(repo.run_summaries("a")).unwrap();
        assert!(list.iter().all(|s| s.format == geo_core::metrics::SUMMARY_FORMAT));
        let probes = block_on(repo.probes_by_run("old")).unwrap();
        assert_eq!(probes, analysed, "the stored probes carry their claims and risk flags again");
        let m = block_on(repo.run_metrics("old")).unwrap().unwrap();
        assert_eq!(m, geo_core::metrics::compute_run_metrics(&r, &probes, None));
        let brand = m.risk_flags.iter().find(|f| f.target_id == "brand").unwrap();
        assert_eq!((brand.flagged_count, brand.negative, brand.caution), (1, 1, 1));
        assert_eq!(m.risk_flags.iter().find(|f| f.target_id == "c1").unwrap().watch, 1);

        // A current summary is read as it is: the probes are not analysed on every read.
        repo.tables.borrow_mut().probes.values_mut().for_each(|p| p.risk_flags.clear());
        block_on(repo.run_summaries("a")).unwrap();
        assert!(block_on(repo.probes_by_run("old")).unwrap().iter().all(|p| p.risk_flags.is_empty()));
    }

    #[test]
    fn summaries_missing_from_an_older_database_are_computed_on_read() {
        let env = fixture("noise.json");
        let repo = MemoryRepo::new();
        block_on(repo.put_many(&Batch::from(env.clone()))).unwrap();
        // As a version-1 database: runs and probes without summaries.
        repo.tables.borrow_mut().summaries.clear();
        repo.tables.borrow_mut().metrics.clear();
        repo.tables.borrow_mut().pages.clear();
        summaries_match(&repo, "computed on read");
        // A summary of an older format is recomputed too, with the page figures that
        // version-4 databases did not have beside it.
        let id = env.runs[0].id.clone();
        repo.tables.borrow_mut().summaries.get_mut(&id).unwrap().format = 4;
        repo.tables.borrow_mut().metrics.get_mut(&id).unwrap().metrics.success_count = 999;
        repo.tables.borrow_mut().pages.remove(&PagePart::Actions.key(&id));
        summaries_match(&repo, "older format");
    }
}
