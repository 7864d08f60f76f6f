//! The IndexedDB [`Repository`]: database `geo-probe`, values stored as the contract JSON.
//!
//! Each record is written as the object `JSON.parse(serde_json::to_string(record))` and read
//! back through `JSON.stringify` + serde: what DevTools shows is exactly the export format
//! (camelCase, numbers as numbers), with no second serialisation scheme to keep in step.
//!
//! Writes: every call that touches several records opens **one** `readwrite` transaction,
//! issues all requests, calls `commit()` and awaits `complete`. Any failed request aborts
//! the transaction (the browser's default), so a failure leaves nothing half-written; the
//! abort's `DOMException` name tells a full disk (`QuotaExceededError`) from other refusals.
//! After `complete`, the change is announced locally and on the `geo-probe` BroadcastChannel.

mod codec;
mod open;
mod tx;
mod upkeep;

use super::first_view::{FirstView, Overlay};
use super::migrations::MIGRATIONS;
use super::page_figures::{self, PageFigures, PagePart};
use super::summaries::{order_summaries, runs_of_batch, Gate, StoredMetrics, RECOMPUTE_LIMIT};
use super::{
    order_probes, order_projects, order_prompts, order_runs, Batch, RepoError, RepoResult, Repository, StoredLinkCheck,
    CHANNEL, DB_NAME, STORE_NAMES,
};
pub(crate) use codec::{decode, encode};
use codec::{decode_array, error_from, write_error};
use geo_core::actions::{ItemKeys, OwnActions};
use geo_core::metrics::{ListPositions, RunMetrics, RunSummary};
use geo_core::model::{ExportEnvelope, LinkCheck, Probe, Project, Prompt, Run};
use js_sys::{Array, JSON};
use std::rc::Rc;
use tx::{
    get_all, get_by_index, get_js, get_one, object_store, put, read_tx, tx_count, tx_get, tx_get_derived, tx_get_many,
    write_in,
};
use upkeep::{compute_summaries, reanalyse_or_refuse, refresh_in, stale_runs, summaries_and_runs, RUN_STORES};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{BroadcastChannel, IdbDatabase, IdbTransaction, MessageEvent};

pub use open::{delete_database, open_database};
pub(crate) use tx::{commit, request};

/// Called after every committed write (and when another tab reports one).
pub type ChangeListener = Rc<dyn Fn()>;

/// The IndexedDB repository. Cloning shares the same connection.
#[derive(Clone)]
pub struct IdbRepo {
    db: IdbDatabase,
    notify: Rc<Notifier>,
    /// One computation of missing summaries at a time.
    gate: Rc<Gate>,
    /// The demo's first view, shown while the demo is seeded behind it (issue 39).
    overlay: Rc<Overlay>,
}

impl PartialEq for IdbRepo {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.notify, &other.notify)
    }
}

impl std::fmt::Debug for IdbRepo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IdbRepo").field("db", &self.db.name()).finish()
    }
}

struct Notifier {
    on_change: ChangeListener,
    channel: Option<BroadcastChannel>,
    _on_message: Option<Closure<dyn FnMut(MessageEvent)>>,
}

impl Notifier {
    fn new(on_change: ChangeListener) -> Self {
        let channel = BroadcastChannel::new(CHANNEL).ok();
        let on_message = channel.as_ref().map(|ch| {
            let listener = on_change.clone();
            let closure = Closure::<dyn FnMut(MessageEvent)>::new(move |_e: MessageEvent| listener());
            ch.set_onmessage(Some(closure.as_ref().unchecked_ref()));
            closure
        });
        Notifier { on_change, channel, _on_message: on_message }
    }

    fn changed(&self) {
        (self.on_change)();
        if let Some(ch) = &self.channel {
            let _ = ch.post_message(&JsValue::from_str("changed"));
        }
    }
}

impl IdbRepo {
    /// Opens (creating or upgrading) the app database; `on_change` runs after every write
    /// here and whenever another tab announces one.
    pub async fn open(on_change: ChangeListener) -> RepoResult<IdbRepo> {
        let db = open_database(DB_NAME, MIGRATIONS).await?;
        Ok(IdbRepo { db, notify: Rc::new(Notifier::new(on_change)), gate: Rc::default(), overlay: Rc::default() })
    }

    /// Tells this tab's pages that data changed in a write made elsewhere on its behalf
    /// (the import worker, whose BroadcastChannel notice may come later).
    pub fn changed_elsewhere(&self) {
        (self.notify.on_change)();
    }

    /// Wraps an already open database (used by the migration self-test).
    pub fn from_database(db: IdbDatabase, on_change: ChangeListener) -> IdbRepo {
        IdbRepo {
            db,
            notify: Rc::new(Notifier { on_change, channel: None, _on_message: None }),
            gate: Rc::default(),
            overlay: Rc::default(),
        }
    }

    /// Shows `view` in front of the stored data (the demo's records the dashboard reads)
    /// until [`IdbRepo::end_first_view`]: the reads it answers come from it, every other read
    /// and every write waits for its end. Clones share it, except [`IdbRepo::behind_first_view`].
    pub fn show_first_view(&self, view: FirstView) {
        self.overlay.show(view);
    }

    /// Ends the first view (the demo is stored, or its seeding failed): the waiting reads and
    /// writes go on, and the pages read the stored data again.
    pub fn end_first_view(&self) {
        if self.overlay.view().is_some() {
            self.overlay.end();
            self.notify.changed();
        }
    }

    /// The same database without the first view in front: what seeds the demo behind it.
    pub fn behind_first_view(&self) -> IdbRepo {
        IdbRepo { overlay: Rc::default(), ..self.clone() }
    }

    /// Runs `fill` (which issues requests) inside one read-write transaction and commits it,
    /// then announces the change.
    async fn write<T, F>(&self, stores: &[&str], fill: F) -> RepoResult<T>
    where
        F: AsyncFnOnce(&IdbTransaction) -> RepoResult<T>,
    {
        self.overlay.settled().await;
        let out = write_in(&self.db, stores, fill).await?;
        self.notify.changed();
        Ok(out)
    }

    /// The project's prompts and, for each of `runs`, the run and its stored metrics
    /// (`None` when missing or no longer decoding), all requested at once in one
    /// transaction: the dashboard's whole read after the run summaries, which say the
    /// stored metrics are current.
    pub async fn prompts_runs_and_metrics(
        &self,
        project_id: &str,
        runs: &[&str],
    ) -> RepoResult<(Vec<Prompt>, Vec<RunAndMetrics>)> {
        if let Some(view) = self.overlay.view() {
            let records = runs.iter().map(|id| (view.get_run(id), view.run_metrics(id))).collect();
            return Ok((view.prompts_by_project(project_id), records));
        }
        let tx = read_tx(&self.db, &["prompts", "runs", "runMetrics"])?;
        let r = |e| error_from(e, RepoError::Read);
        let prompts_req = object_store(&tx, "prompts", RepoError::Read)?
            .index("projectId")
            .map_err(r)?
            .get_all_with_key(&JsValue::from_str(project_id))
            .map_err(r)?;
        let (run_store, metrics_store) =
            (object_store(&tx, "runs", RepoError::Read)?, object_store(&tx, "runMetrics", RepoError::Read)?);
        let mut requests = Vec::with_capacity(runs.len());
        for id in runs {
            let key = JsValue::from_str(id);
            requests.push((run_store.get(&key).map_err(r)?, metrics_store.get(&key).map_err(r)?));
        }
        let prompts = order_prompts(decode_array(request(&prompts_req).await.map_err(r)?)?);
        let mut out = Vec::with_capacity(runs.len());
        for (run, metrics) in requests {
            let run = request(&run).await.map_err(r)?;
            let run = if run.is_undefined() || run.is_null() { None } else { Some(decode::<Run>(&run)?) };
            let metrics = request(&metrics).await.map_err(r)?;
            out.push((run, decode::<StoredMetrics>(&metrics).ok().map(|m| m.metrics)));
        }
        Ok((prompts, out))
    }
}

impl IdbRepo {
    /// Part `part` of the stored page figures of each of `runs` (`None` for a run that does
    /// not exist), in one transaction; a run whose summary is stale, or whose record is
    /// missing or no longer decodes, has its records computed first, as [`Repository::run_metrics`] does.
    pub async fn page_parts<T: serde::de::DeserializeOwned>(
        &self,
        runs: &[&str],
        part: PagePart,
    ) -> RepoResult<Vec<Option<T>>> {
        self.overlay.settled().await;
        let read = async || -> RepoResult<Vec<(bool, Option<T>)>> {
            let tx = read_tx(&self.db, &["runSummaries", "runPages"])?;
            let r = |e| error_from(e, RepoError::Read);
            let (summaries, pages) =
                (object_store(&tx, "runSummaries", RepoError::Read)?, object_store(&tx, "runPages", RepoError::Read)?);
            let mut requests = Vec::with_capacity(runs.len());
            for id in runs {
                let key = JsValue::from_str(id);
                let part_key = JsValue::from_str(&part.key(id));
                requests.push((summaries.get(&key).map_err(r)?, pages.get(&part_key).map_err(r)?));
            }
            let mut out = Vec::with_capacity(runs.len());
            for (summary, record) in requests {
                let current = decode::<RunSummary>(&request(&summary).await.map_err(r)?).is_ok_and(|s| s.is_current());
                let record = request(&record).await.map_err(r)?;
                // The part's text, copied into wasm and decoded.
                let text = js_sys::Reflect::get(&record, &JsValue::from_str("text")).ok().and_then(|v| v.as_string());
                out.push((current, text.and_then(|t| page_figures::part::<T>(&t).ok())));
            }
            Ok(out)
        };
        let mut found = read().await?;
        let stale: Vec<&str> = runs
            .iter()
            .zip(&found)
            .filter(|(_, (current, part))| !current || part.is_none())
            .map(|(id, _)| *id)
            .collect();
        if stale.is_empty() {
            return Ok(found.into_iter().map(|(_, p)| p).collect());
        }
        let mut rewrote = false;
        for id in stale {
            rewrote |= write_in(&self.db, RUN_STORES, async |tx| refresh_in(tx, id, None).await).await?;
        }
        if rewrote {
            self.notify.changed();
        }
        found = read().await?;
        Ok(found.into_iter().map(|(_, p)| p).collect())
    }
}

/// A run and its stored metrics, as [`IdbRepo::prompts_runs_and_metrics`] reads them.
pub type RunAndMetrics = (Option<Run>, Option<RunMetrics>);

/// Records a batch write issues before it waits for the last of them: between slices the
/// browser runs other tasks (paints, input), while the one transaction stays open.
const PUT_SLICE: usize = 500;

impl Repository for IdbRepo {
    async fn list_projects(&self) -> RepoResult<Vec<Project>> {
        if let Some(view) = self.overlay.view() {
            return Ok(view.list_projects());
        }
        get_all(&self.db, "projects").await.map(order_projects)
    }

    async fn get_project(&self, id: &str) -> RepoResult<Option<Project>> {
        if let Some(view) = self.overlay.view() {
            return Ok(view.get_project(id));
        }
        get_one(&self.db, "projects", id).await
    }

    async fn put_project(&self, project: &Project) -> RepoResult<()> {
        self.write(&["projects"], async |tx| put(tx, "projects", project)).await
    }

    async fn prompts_by_project(&self, project_id: &str) -> RepoResult<Vec<Prompt>> {
        if let Some(view) = self.overlay.view() {
            return Ok(view.prompts_by_project(project_id));
        }
        get_by_index(&self.db, "prompts", "projectId", project_id).await.map(order_prompts)
    }

    async fn put_prompts(&self, prompts: &[Prompt]) -> RepoResult<()> {
        self.write(&["prompts"], async |tx| prompts.iter().try_for_each(|p| put(tx, "prompts", p))).await
    }

    async fn delete_prompt(&self, id: &str) -> RepoResult<()> {
        self.write(&["prompts"], async |tx| {
            object_store(tx, "prompts", RepoError::Write)?
                .delete(&JsValue::from_str(id))
                .map_err(|e| error_from(e, RepoError::Write))?;
            Ok(())
        })
        .await
    }

    async fn runs_by_project(&self, project_id: &str) -> RepoResult<Vec<Run>> {
        if let Some(view) = self.overlay.view() {
            return Ok(view.runs_by_project(project_id));
        }
        get_by_index(&self.db, "runs", "projectId", project_id).await.map(order_runs)
    }

    async fn get_run(&self, id: &str) -> RepoResult<Option<Run>> {
        if let Some(view) = self.overlay.view() {
            return Ok(view.get_run(id));
        }
        get_one(&self.db, "runs", id).await
    }

    async fn put_run(&self, run: &Run) -> RepoResult<()> {
        self.write(RUN_STORES, async |tx| {
            put(tx, "runs", run)?;
            refresh_in(tx, &run.id, None).await.map(drop)
        })
        .await
    }

    async fn probes_by_run(&self, run_id: &str) -> RepoResult<Vec<Probe>> {
        self.overlay.settled().await;
        get_by_index(&self.db, "probes", "runId", run_id).await.map(order_probes)
    }

    async fn probes_by_id(&self, ids: &[String]) -> RepoResult<Vec<Probe>> {
        self.overlay.settled().await;
        let tx = read_tx(&self.db, &["probes"])?;
        let found = tx_get_many(&tx, "probes", ids.iter().map(String::as_str)).await?;
        found.iter().filter(|v| !v.is_undefined() && !v.is_null()).map(decode).collect()
    }

    async fn put_probe(&self, probe: &Probe) -> RepoResult<()> {
        self.write(RUN_STORES, async |tx| {
            put(tx, "probes", probe)?;
            let count = tx_count(tx, "probes", "runId", &probe.run_id).await?;
            match tx_get_derived::<RunSummary>(tx, "runSummaries", &probe.run_id).await? {
                Some(mut s) if count > RECOMPUTE_LIMIT as usize => {
                    if s.fresh {
                        s.fresh = false;
                        put(tx, "runSummaries", &s)?;
                    }
                    Ok(())
                }
                _ => refresh_in(tx, &probe.run_id, None).await.map(drop),
            }
        })
        .await
    }

    async fn link_check(&self, run_id: &str) -> RepoResult<Option<LinkCheck>> {
        self.overlay.settled().await;
        Ok(get_one::<StoredLinkCheck>(&self.db, "linkChecks", run_id).await?.map(StoredLinkCheck::into_check))
    }

    async fn run_summaries(&self, project_id: &str) -> RepoResult<Vec<RunSummary>> {
        if let Some(view) = self.overlay.view() {
            return Ok(view.run_summaries(project_id));
        }
        let (mut list, mut runs) = summaries_and_runs(&self.db, project_id).await?;
        if !stale_runs(&list, &runs).is_empty() {
            let _one_at_a_time = self.gate.enter().await;
            // Another reader may have computed them while this one waited.
            (list, runs) = summaries_and_runs(&self.db, project_id).await?;
            let stale = stale_runs(&list, &runs);
            if !stale.is_empty() {
                if compute_summaries(&self.db, &stale).await? {
                    self.notify.changed();
                }
                (list, runs) = summaries_and_runs(&self.db, project_id).await?;
            }
        }
        let listed: std::collections::BTreeSet<&str> = runs.iter().map(String::as_str).collect();
        list.retain(|s| listed.contains(s.id.as_str()));
        Ok(order_summaries(list))
    }

    async fn run_metrics(&self, run_id: &str) -> RepoResult<Option<RunMetrics>> {
        if let Some(view) = self.overlay.view() {
            return Ok(view.run_metrics(run_id));
        }
        let read = async || -> RepoResult<(Option<RunSummary>, Option<StoredMetrics>)> {
            let tx = read_tx(&self.db, &["runSummaries", "runMetrics"])?;
            let r = |e| error_from(e, RepoError::Read);
            let key = JsValue::from_str(run_id);
            let s = object_store(&tx, "runSummaries", RepoError::Read)?.get(&key).map_err(r)?;
            let m = object_store(&tx, "runMetrics", RepoError::Read)?.get(&key).map_err(r)?;
            let (s, m) = (request(&s).await.map_err(r)?, request(&m).await.map_err(r)?);
            Ok((decode(&s).ok(), decode(&m).ok()))
        };
        if let (Some(s), Some(m)) = read().await? {
            if s.is_current() {
                return Ok(Some(m.metrics));
            }
        }
        if write_in(&self.db, RUN_STORES, async |tx| refresh_in(tx, run_id, None).await).await? {
            self.notify.changed();
        }
        Ok(read().await?.1.map(|m| m.metrics))
    }

    async fn run_pages(&self, run_id: &str) -> RepoResult<Option<PageFigures>> {
        let positions = self.page_parts::<ListPositions>(&[run_id], PagePart::Positions).await?.pop().flatten();
        let actions = self.page_parts::<OwnActions>(&[run_id], PagePart::Actions).await?.pop().flatten();
        let keys = self.page_parts::<ItemKeys>(&[run_id], PagePart::Keys).await?.pop().flatten();
        Ok(match (positions, actions, keys) {
            (Some(positions), Some(actions), Some(keys)) => Some(PageFigures { positions, actions, keys }),
            _ => None,
        })
    }

    async fn put_many(&self, batch: &Batch) -> RepoResult<()> {
        if batch.is_empty() {
            return Ok(());
        }
        self.write(
            &["projects", "prompts", "runs", "probes", "runSummaries", "runMetrics", "linkChecks", "runPages"],
            async |tx| {
                // The parts are timed on the page's own timeline (an import without a
                // worker): the history bench prints them.
                let span = crate::web::Span::start("geo:write-check");
                reanalyse_or_refuse(tx, batch).await?;
                span.end();
                let span = crate::web::Span::start("geo:write-put");
                let mut issued = 0usize;
                let mut put_sliced = async |store: &str, value: JsValue| -> RepoResult<()> {
                    let req = object_store(tx, store, RepoError::Write)?.put(&value).map_err(write_error)?;
                    issued += 1;
                    if issued.is_multiple_of(PUT_SLICE) {
                        request(&req).await.map_err(write_error)?;
                    }
                    Ok(())
                };
                for p in &batch.projects {
                    put_sliced("projects", encode(p)?).await?;
                }
                for p in &batch.prompts {
                    put_sliced("prompts", encode(p)?).await?;
                }
                for r in &batch.runs {
                    put_sliced("runs", encode(r)?).await?;
                }
                for p in &batch.probes {
                    put_sliced("probes", encode(p)?).await?;
                }
                for c in &batch.link_checks {
                    // The check's run is in the batch or already stored (the import checked it).
                    let project = match batch.runs.iter().find(|r| r.id == c.run_id) {
                        Some(r) => r.project_id.clone(),
                        None => tx_get::<Run>(tx, "runs", &c.run_id).await?.map_or(String::new(), |r| r.project_id),
                    };
                    put_sliced("linkChecks", encode(&StoredLinkCheck::of(c, &project))?).await?;
                }
                span.end();
                let span = crate::web::Span::start("geo:write-summaries");
                // Each changed run's summary, from the batch's probes when the store holds
                // exactly those (a new run: nothing to decode), else from the stored ones.
                let mut by_run: std::collections::HashMap<&str, Vec<&Probe>> = std::collections::HashMap::new();
                for p in &batch.probes {
                    by_run.entry(p.run_id.as_str()).or_default().push(p);
                }
                for id in runs_of_batch(&batch.runs, &batch.probes, &batch.link_checks) {
                    let mine = by_run.remove(id.as_str()).unwrap_or_default();
                    let stored = tx_count(tx, "probes", "runId", &id).await?;
                    let known = (stored == mine.len()).then_some(mine);
                    refresh_in(tx, &id, known).await?;
                }
                span.end();
                Ok(())
            },
        )
        .await
    }

    async fn delete_project(&self, id: &str) -> RepoResult<()> {
        let stores = ["prompts", "runs", "probes", "runSummaries", "runMetrics", "linkChecks", "runPages"];
        self.write(
            &["projects", "prompts", "runs", "probes", "runSummaries", "runMetrics", "linkChecks", "runPages"],
            async |tx| {
                let key = JsValue::from_str(id);
                let w = |e| error_from(e, RepoError::Write);
                object_store(tx, "projects", RepoError::Write)?.delete(&key).map_err(w)?;
                for store in stores {
                    let os = object_store(tx, store, RepoError::Write)?;
                    let keys_req = os.index("projectId").map_err(w)?.get_all_keys_with_key(&key).map_err(w)?;
                    // Awaiting inside the transaction is safe: the continuation runs in the
                    // microtask checkpoint of the success event, while the transaction is active.
                    let keys: Array = request(&keys_req).await.map_err(w)?.unchecked_into();
                    for k in keys.iter() {
                        os.delete(&k).map_err(w)?;
                    }
                }
                Ok(())
            },
        )
        .await
    }

    async fn clear_all(&self) -> RepoResult<()> {
        self.write(STORE_NAMES, async |tx| {
            for name in STORE_NAMES {
                object_store(tx, name, RepoError::Write)?.clear().map_err(|e| error_from(e, RepoError::Write))?;
            }
            Ok(())
        })
        .await
    }

    async fn setting(&self, key: &str) -> RepoResult<Option<serde_json::Value>> {
        self.overlay.settled().await;
        // A setting is untyped: read with serde_json's own `Value` reader (the one the
        // engines' replies go through), not `geo_core::json`, so that the module holds one
        // `Value` deserializer (docs/adr/0014-site-size.md).
        let Some(record) = get_js(&self.db, "settings", key).await? else { return Ok(None) };
        let text = JSON::stringify(&record).map_err(|e| error_from(e, RepoError::Decode))?;
        let record: serde_json::Value = serde_json::from_str(&text.as_string().unwrap_or_default())
            .map_err(|e| RepoError::Decode(e.to_string()))?;
        match record {
            serde_json::Value::Object(mut fields) => {
                fields.remove("value").map(Some).ok_or_else(|| RepoError::Decode("missing field `value`".into()))
            }
            _ => Err(RepoError::Decode("invalid type: expected struct SettingRecord".into())),
        }
    }

    async fn set_setting(&self, key: &str, value: Option<serde_json::Value>) -> RepoResult<()> {
        self.write(&["settings"], async |tx| match value {
            Some(value) => put(tx, "settings", &SettingRecord { key: key.to_string(), value }),
            None => {
                object_store(tx, "settings", RepoError::Write)?
                    .delete(&JsValue::from_str(key))
                    .map_err(|e| error_from(e, RepoError::Write))?;
                Ok(())
            }
        })
        .await
    }

    async fn snapshot(&self, exported_at: &str) -> RepoResult<ExportEnvelope> {
        self.overlay.settled().await;
        // One read transaction: the lists are a consistent picture.
        let stores = ["projects", "prompts", "runs", "probes", "linkChecks"];
        let tx = read_tx(&self.db, &stores)?;
        let r = |e| error_from(e, RepoError::Read);
        let mut requests = Vec::new();
        for s in stores {
            requests.push(object_store(&tx, s, RepoError::Read)?.get_all().map_err(r)?);
        }
        let mut values = Vec::new();
        for req in &requests {
            values.push(request(req).await.map_err(r)?);
        }
        let mut env = ExportEnvelope::new(exported_at);
        let mut it = values.into_iter();
        env.projects = order_projects(decode_array(it.next().unwrap_or(JsValue::NULL))?);
        env.prompts = order_prompts(decode_array(it.next().unwrap_or(JsValue::NULL))?);
        env.runs = order_runs(decode_array(it.next().unwrap_or(JsValue::NULL))?);
        env.probes = decode_array(it.next().unwrap_or(JsValue::NULL))?;
        let checks: Vec<StoredLinkCheck> = decode_array(it.next().unwrap_or(JsValue::NULL))?;
        env.link_checks = checks.into_iter().map(StoredLinkCheck::into_check).collect();
        geo_core::export::sort_link_checks(&mut env.link_checks, &env.runs);
        Ok(env)
    }
}

/// A row of the `settings` store (read back by [`IdbRepo::setting`] as a `Value`).
#[derive(serde::Serialize)]
struct SettingRecord {
    key: String,
    value: serde_json::Value,
}
