//! Storage behind one trait: the pages ask a [`Repository`]; the browser answers with
//! IndexedDB ([`idb::IdbRepo`]), native tests with [`memory::MemoryRepo`].
//!
//! Contract of every implementation:
//! - a write of several records (a bulk prompt paste, a cascade delete, an import, "clear
//!   all") is **one transaction**: it applies whole or not at all;
//! - a failed write (quota, refused) returns a [`RepoError`] and leaves no partial data;
//! - after every successful write the repository announces the change (the app bumps its
//!   data version; other tabs hear it on the `BroadcastChannel` named [`CHANNEL`]);
//! - settings here are application settings only: the API key never enters a repository.

pub mod first_view;
pub mod idb;
pub mod memory;
pub mod migrations;
pub mod page_figures;
pub mod self_test;
pub mod summaries;

use crate::i18n::tf;
use geo_core::export::{merge_into, MergeReport};
use geo_core::metrics::{RunMetrics, RunSummary};
use geo_core::model::{ExportEnvelope, Lang, LinkCheck, LinkResult, Probe, Project, Prompt, Run};
use std::fmt;

/// Name of the IndexedDB database.
pub const DB_NAME: &str = "geo-probe";
/// Name of the `BroadcastChannel` that tells other tabs about writes.
pub const CHANNEL: &str = "geo-probe";

/// An object store: its name, key path and indexes (each on the field of the same name).
pub type StoreDef = (&'static str, &'static str, &'static [&'static str]);

/// The object stores of schema version 1 (seed §8.1). Every store's key path is `id`, except
/// `settings` whose key path is `key`. Frozen: the version-1 migration creates exactly these.
pub const STORES_V1: &[StoreDef] = &[
    ("projects", "id", &["updatedAt"]),
    ("prompts", "id", &["projectId", "createdAt", "updatedAt"]),
    ("runs", "id", &["projectId", "createdAt", "status"]),
    ("probes", "id", &["runId", "projectId", "promptId", "status", "createdAt"]),
    ("settings", "key", &[]),
];

/// The stores version 2 adds: each run's light summary and its full metrics
/// ([`summaries`]), derived from the runs and probes and kept with them.
pub const STORES_V2: &[StoreDef] =
    &[("runSummaries", "id", &["projectId", "previousRunId"]), ("runMetrics", "runId", &["projectId"])];

/// The store version 3 adds: each run's answer-link check (`geo-probe links`, imported with
/// an export), keyed by run id, with its project for the cascade delete.
pub const STORES_V3: &[StoreDef] = &[("linkChecks", "runId", &["projectId"])];

/// The store version 4 adds: what the lists and Actions pages read of each run besides its
/// metrics ([`page_figures::StoredPart`]: one record per run and part), derived and kept with
/// the summaries.
pub const STORES_V4: &[StoreDef] = &[("runPages", "id", &["projectId"])];

/// Every store of the current schema.
pub const STORE_NAMES: &[&str] =
    &["projects", "prompts", "runs", "probes", "settings", "runSummaries", "runMetrics", "linkChecks", "runPages"];

/// A record of the `linkChecks` store: a run's `linkChecks` record of the export with the
/// run's project (indexed, for the cascade delete).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StoredLinkCheck {
    /// The run (the key).
    pub run_id: String,
    /// Its project.
    pub project_id: String,
    /// When the check ended.
    pub checked_at: String,
    /// Every checked link.
    #[serde(default)]
    pub links: Vec<LinkResult>,
}

impl StoredLinkCheck {
    /// The record for `check` of a run of `project_id`.
    pub fn of(check: &LinkCheck, project_id: &str) -> StoredLinkCheck {
        StoredLinkCheck {
            run_id: check.run_id.clone(),
            project_id: project_id.to_string(),
            checked_at: check.checked_at.clone(),
            links: check.links.clone(),
        }
    }

    /// The export's record.
    pub fn into_check(self) -> LinkCheck {
        LinkCheck { run_id: self.run_id, checked_at: self.checked_at, links: self.links }
    }
}

/// What went wrong in storage; `Display` gives a lowercase message that says what to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RepoError {
    /// The database could not be opened (private mode, blocked, or storage disabled).
    Open(String),
    /// The browser's storage quota is exhausted.
    Quota(String),
    /// A write was refused or its transaction aborted.
    Write(String),
    /// A read failed.
    Read(String),
    /// A stored or imported record does not have the expected shape.
    Decode(String),
    /// A write would move a stored record to another project or run
    /// (`geo_core::export::overwrite`); nothing was written.
    Refused(String),
}

impl RepoError {
    /// The message in `lang`: what failed and what to do. A full quota carries no browser
    /// detail (the exception name would only confuse); the other kinds keep theirs.
    pub fn message(&self, lang: Lang) -> String {
        let (key, detail) = match self {
            RepoError::Open(m) => ("repo.open", m.as_str()),
            RepoError::Quota(_) => ("repo.quota", ""),
            RepoError::Write(m) => ("repo.write", m.as_str()),
            RepoError::Read(m) => ("repo.read", m.as_str()),
            RepoError::Decode(m) => ("repo.decode", m.as_str()),
            RepoError::Refused(m) => ("repo.refused", m.as_str()),
        };
        tf(lang, key, &[("m", detail)])
    }
}

impl fmt::Display for RepoError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message(Lang::En))
    }
}

impl std::error::Error for RepoError {}

/// What writing `batch` over the stored records of the same ids asks (geo-core's
/// `export::overwrite` rule, which both repositories apply inside the write's transaction):
/// the runs whose other stored probes must be analysed again, or the refusal of a record
/// that would move. `stored_prompt` gives the project of the stored prompt of an id,
/// `stored_run` the stored run, `stored_probe` the run and project of the stored probe.
pub(crate) fn overwrites(
    batch: &Batch,
    stored_prompt: impl Fn(&str) -> Option<String>,
    stored_run: impl Fn(&str) -> Option<Run>,
    stored_probe: impl Fn(&str) -> Option<(String, String)>,
) -> RepoResult<Vec<&Run>> {
    use geo_core::export::{probe_overwrite, prompt_overwrite, run_overwrite, Overwrite};
    let refused = |p: geo_core::export::Problem| RepoError::Refused(p.message);
    for p in &batch.prompts {
        if let Some(stored) = stored_prompt(&p.id) {
            prompt_overwrite(p, &stored).map_err(refused)?;
        }
    }
    let mut again = Vec::new();
    for r in &batch.runs {
        if let Some(stored) = stored_run(&r.id) {
            if run_overwrite(r, &stored).map_err(refused)? == Overwrite::Reanalyse {
                again.push(r);
            }
        }
    }
    for p in &batch.probes {
        if let Some((run, project)) = stored_probe(&p.id) {
            probe_overwrite(p, &run, &project).map_err(refused)?;
        }
    }
    Ok(again)
}

/// Records to write together in one transaction.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Batch {
    /// Projects to put.
    pub projects: Vec<Project>,
    /// Prompts to put.
    pub prompts: Vec<Prompt>,
    /// Runs to put.
    pub runs: Vec<Run>,
    /// Probes to put.
    pub probes: Vec<Probe>,
    /// Answer-link checks to put (each replaces its run's).
    pub link_checks: Vec<LinkCheck>,
}

impl Batch {
    /// True when there is nothing to write.
    pub fn is_empty(&self) -> bool {
        self.projects.is_empty()
            && self.prompts.is_empty()
            && self.runs.is_empty()
            && self.probes.is_empty()
            && self.link_checks.is_empty()
    }
}

impl From<ExportEnvelope> for Batch {
    fn from(e: ExportEnvelope) -> Self {
        Batch { projects: e.projects, prompts: e.prompts, runs: e.runs, probes: e.probes, link_checks: e.link_checks }
    }
}

/// Result of a storage call.
pub type RepoResult<T> = Result<T, RepoError>;

/// Everything the app reads and writes. Lists come back in a stable order: projects and
/// prompts by `createdAt` ascending, runs by `createdAt` descending (newest first), probes by prompt id then repeat index.
#[allow(async_fn_in_trait)]
pub trait Repository {
    /// Every project.
    async fn list_projects(&self) -> RepoResult<Vec<Project>>;
    /// One project by id.
    async fn get_project(&self, id: &str) -> RepoResult<Option<Project>>;
    /// Inserts or replaces a project.
    async fn put_project(&self, project: &Project) -> RepoResult<()>;
    /// The prompts of a project.
    async fn prompts_by_project(&self, project_id: &str) -> RepoResult<Vec<Prompt>>;
    /// Inserts or replaces prompts, all in one transaction.
    async fn put_prompts(&self, prompts: &[Prompt]) -> RepoResult<()>;
    /// Deletes one prompt (its runs keep their frozen `promptSnapshot`).
    async fn delete_prompt(&self, id: &str) -> RepoResult<()>;
    /// The runs of a project, newest first.
    async fn runs_by_project(&self, project_id: &str) -> RepoResult<Vec<Run>>;
    /// One run by id.
    async fn get_run(&self, id: &str) -> RepoResult<Option<Run>>;
    /// Inserts or replaces a run.
    async fn put_run(&self, run: &Run) -> RepoResult<()>;
    /// The probes of a run.
    async fn probes_by_run(&self, run_id: &str) -> RepoResult<Vec<Probe>>;
    /// The stored probes among `ids`, in the order of `ids` (one read, whatever the run's size).
    async fn probes_by_id(&self, ids: &[String]) -> RepoResult<Vec<Probe>>;
    /// Inserts or replaces one probe.
    async fn put_probe(&self, probe: &Probe) -> RepoResult<()>;
    /// The answer-link check of a run (`geo-probe links`), if one was imported.
    async fn link_check(&self, run_id: &str) -> RepoResult<Option<LinkCheck>>;
    /// The summaries of a project's runs, newest first, every one current: the runs without
    /// one (data stored before summaries existed) or with a stale one are computed first
    /// ([`summaries`]; the computation reports its [`summaries::progress`]).
    async fn run_summaries(&self, project_id: &str) -> RepoResult<Vec<RunSummary>>;
    /// The metrics of one run as stored beside it (recomputed first when stale); `None` when
    /// the run does not exist.
    async fn run_metrics(&self, run_id: &str) -> RepoResult<Option<RunMetrics>>;
    /// What the lists and Actions pages read of one run, as stored beside its summary
    /// (recomputed first when stale); `None` when the run does not exist.
    async fn run_pages(&self, run_id: &str) -> RepoResult<Option<page_figures::PageFigures>>;
    /// Puts every record of the batch in one transaction.
    async fn put_many(&self, batch: &Batch) -> RepoResult<()>;
    /// Deletes a project with its prompts, runs and probes, in one transaction.
    async fn delete_project(&self, id: &str) -> RepoResult<()>;
    /// Empties every store, settings included, in one transaction.
    async fn clear_all(&self) -> RepoResult<()>;
    /// An application setting (never the API key).
    async fn setting(&self, key: &str) -> RepoResult<Option<serde_json::Value>>;
    /// Sets (or, for `None`, removes) an application setting.
    async fn set_setting(&self, key: &str, value: Option<serde_json::Value>) -> RepoResult<()>;
    /// All projects, prompts, runs, probes and link checks in an export envelope (no
    /// settings, no key).
    async fn snapshot(&self, exported_at: &str) -> RepoResult<ExportEnvelope>;
    /// Imports an envelope by id (same id overwrites), in one transaction.
    async fn merge(&self, envelope: &ExportEnvelope) -> RepoResult<()> {
        self.put_many(&Batch::from(envelope.clone())).await
    }
    /// [`Repository::merge`], saying what it changed per kind (new, updated, unchanged),
    /// as geo-core's [`merge_into`] counts it. The stored records the envelope can replace
    /// are read first: those of the projects it names, the link checks of the runs its
    /// checks name and the probes of the runs it names
    /// (ids are unique per store and every record carries its project, so nothing outside
    /// them can share an id with an incoming record).
    async fn merge_reported(&self, envelope: &ExportEnvelope) -> RepoResult<MergeReport> {
        let mut base = ExportEnvelope::new("");
        let mut projects: Vec<&str> = envelope
            .projects
            .iter()
            .map(|p| p.id.as_str())
            .chain(envelope.prompts.iter().map(|p| p.project_id.as_str()))
            .chain(envelope.runs.iter().map(|r| r.project_id.as_str()))
            .chain(envelope.probes.iter().map(|p| p.project_id.as_str()))
            .collect();
        geo_core::sort::sort(&mut projects);
        projects.dedup();
        for id in projects {
            base.projects.extend(self.get_project(id).await?);
            base.prompts.extend(self.prompts_by_project(id).await?);
            base.runs.extend(self.runs_by_project(id).await?);
        }
        let mut runs: Vec<&str> = envelope
            .runs
            .iter()
            .map(|r| r.id.as_str())
            .chain(envelope.probes.iter().map(|p| p.run_id.as_str()))
            .collect();
        geo_core::sort::sort(&mut runs);
        runs.dedup();
        for id in runs {
            base.probes.extend(self.probes_by_run(id).await?);
        }
        for check in &envelope.link_checks {
            base.link_checks.extend(self.link_check(&check.run_id).await?);
        }
        let report = merge_into(&mut base, envelope.clone());
        self.merge(envelope).await?;
        Ok(report)
    }
}

/// Sorts projects or prompts by `createdAt`, then id, for a stable display order.
fn sort_by_created<T>(items: &mut [T], key: impl Fn(&T) -> (&str, &str)) {
    geo_core::sort::sort_by(items, |a, b| key(a).cmp(&key(b)));
}

/// Applies the documented list orders; shared by every implementation.
pub(crate) fn order_projects(mut v: Vec<Project>) -> Vec<Project> {
    sort_by_created(&mut v, |p| (&p.created_at, &p.id));
    v
}

pub(crate) fn order_prompts(mut v: Vec<Prompt>) -> Vec<Prompt> {
    sort_by_created(&mut v, |p| (&p.created_at, &p.id));
    v
}

pub(crate) fn order_runs(mut v: Vec<Run>) -> Vec<Run> {
    geo_core::sort::sort_by(&mut v, |a, b| b.created_at.cmp(&a.created_at).then_with(|| b.id.cmp(&a.id)));
    v
}

pub(crate) fn order_probes(mut v: Vec<Probe>) -> Vec<Probe> {
    geo_core::sort::sort_by(&mut v, |a, b| (&a.prompt_id, a.repeat_index).cmp(&(&b.prompt_id, b.repeat_index)));
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn check(e: RepoError, zh: &str, en: &str) {
        assert_eq!(e.message(Lang::Zh), zh);
        assert_eq!(e.message(Lang::En), en);
        assert_eq!(e.to_string(), en);
    }

    #[test]
    fn messages_in_both_languages() {
        check(
            RepoError::Quota("QuotaExceededError".into()),
            "浏览器存储空间已满，未保存任何内容：请导出并删除旧批次后重试",
            "browser storage is full, nothing was saved: export and delete old runs, then try again",
        );
        check(
            RepoError::Write("AbortError: x".into()),
            "未保存任何内容（AbortError: x）：请重试",
            "nothing was saved (AbortError: x): try again",
        );
        check(
            RepoError::Read("r".into()),
            "无法读取本地数据（r）：请刷新页面",
            "cannot read local data (r): reload the page",
        );
        check(
            RepoError::Open("o".into()),
            "无法打开本地存储（o）：请允许此网站保存数据后刷新页面",
            "cannot open local storage (o): allow site data for this page and reload",
        );
        check(
            RepoError::Decode("d".into()),
            "存储的数据格式异常（d）：请导出数据并报告此问题",
            "stored data has an unexpected shape (d): export it and report the problem",
        );
    }
}

/// Fixtures and a tiny executor for native tests of repositories.
#[cfg(test)]
pub(crate) mod test_support {
    use geo_core::model::*;
    use std::future::Future;
    use std::pin::pin;
    use std::task::{Context, Poll, Waker};

    /// Polls a future that never waits (the memory repository's) to completion.
    pub fn block_on<F: Future>(f: F) -> F::Output {
        let mut f = pin!(f);
        let mut cx = Context::from_waker(Waker::noop());
        loop {
            if let Poll::Ready(v) = f.as_mut().poll(&mut cx) {
                return v;
            }
        }
    }

    fn target(id: &str, kind: TargetKind) -> Target {
        Target { id: id.into(), kind, label: id.into(), aliases: vec![id.into()], domains: vec![] }
    }

    pub fn project(id: &str) -> Project {
        Project {
            id: id.into(),
            name: format!("project {id}"),
            brand: target("brand", TargetKind::Brand),
            competitors: vec![target("c1", TargetKind::Competitor)],
            is_demo: false,
            created_at: format!("2026-01-01T00:00:00.000Z{id}"),
            updated_at: "2026-01-01T00:00:00.000Z".into(),
            facts: Vec::new(),
            watch_terms: Vec::new(),
        }
    }

    pub fn prompt(id: &str, project_id: &str) -> Prompt {
        Prompt {
            id: id.into(),
            project_id: project_id.into(),
            text: format!("question {id}"),
            tags: vec![tags::GENERIC.into()],
            created_at: "2026-01-01T00:00:00.000Z".into(),
            updated_at: "2026-01-01T00:00:00.000Z".into(),
        }
    }

    pub fn run(id: &str, project_id: &str) -> Run {
        Run {
            id: id.into(),
            project_id: project_id.into(),
            status: RunStatus::Completed,
            created_at: "2026-01-01T00:00:00.000Z".into(),
            finished_at: None,
            previous_run_id: None,
            app_version: APP_VERSION.into(),
            schema_version: SCHEMA_VERSION,
            config: RunConfig::default(),
            alias_snapshot: vec![],
            prompt_snapshot: vec![],
            planned_probe_count: 1,
            group_id: None,
            fact_snapshot: None,
            surface: Default::default(),
        }
    }

    pub fn probe(run_id: &str, prompt_id: &str, project_id: &str) -> Probe {
        let json = serde_json::json!({
            "id": probe_id(run_id, prompt_id, 0), "runId": run_id, "projectId": project_id,
            "promptId": prompt_id, "repeatIndex": 0, "status": "success",
            "createdAt": "2026-01-01T00:00:00.000Z", "rawAnswer": "answer"
        });
        serde_json::from_value(json).expect("fixture probe is valid")
    }
}
