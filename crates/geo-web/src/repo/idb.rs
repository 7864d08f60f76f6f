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

use super::migrations::{Migration, MIGRATIONS};
use super::summaries::{self, order_summaries, records, runs_of_batch, Gate, StoredMetrics, RECOMPUTE_LIMIT};
use super::{
    order_probes, order_projects, order_prompts, order_runs, Batch, RepoError, RepoResult, Repository, StoredLinkCheck,
    CHANNEL, DB_NAME, STORE_NAMES,
};
use geo_core::metrics::{against_previous, RunMetrics, RunSummary};
use geo_core::model::{ExportEnvelope, LinkCheck, Probe, Project, Prompt, Run};
use js_sys::{Array, Promise, JSON};
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{
    BroadcastChannel, DomException, Event, IdbDatabase, IdbObjectStore, IdbOpenDbRequest, IdbRequest, IdbTransaction,
    IdbTransactionMode, IdbVersionChangeEvent, MessageEvent,
};

/// Called after every committed write (and when another tab reports one).
pub type ChangeListener = Rc<dyn Fn()>;

/// The IndexedDB repository. Cloning shares the same connection.
#[derive(Clone)]
pub struct IdbRepo {
    db: IdbDatabase,
    notify: Rc<Notifier>,
    /// One computation of missing summaries at a time.
    gate: Rc<Gate>,
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
        Ok(IdbRepo { db, notify: Rc::new(Notifier::new(on_change)), gate: Rc::default() })
    }

    /// Tells this tab's pages that data changed in a write made elsewhere on its behalf
    /// (the import worker, whose BroadcastChannel notice may come later).
    pub fn changed_elsewhere(&self) {
        (self.notify.on_change)();
    }

    /// Wraps an already open database (used by the migration self-test).
    pub fn from_database(db: IdbDatabase, on_change: ChangeListener) -> IdbRepo {
        IdbRepo { db, notify: Rc::new(Notifier { on_change, channel: None, _on_message: None }), gate: Rc::default() }
    }

    fn tx(&self, stores: &[&str], mode: IdbTransactionMode) -> RepoResult<IdbTransaction> {
        let names: Array = stores.iter().map(|s| JsValue::from_str(s)).collect();
        let map =
            |e| error_from(e, if mode == IdbTransactionMode::Readonly { RepoError::Read } else { RepoError::Write });
        self.db.transaction_with_str_sequence_and_mode(&names, mode).map_err(map)
    }

    fn read_tx(&self, stores: &[&str]) -> RepoResult<IdbTransaction> {
        self.tx(stores, IdbTransactionMode::Readonly)
    }

    /// Runs `fill` (which issues requests) inside one read-write transaction and commits it.
    async fn write<T, F>(&self, stores: &[&str], fill: F) -> RepoResult<T>
    where
        F: AsyncFnOnce(&IdbTransaction) -> RepoResult<T>,
    {
        let out = self.write_quietly(stores, fill).await?;
        self.notify.changed();
        Ok(out)
    }

    /// [`IdbRepo::write`] without the change notice: for derived records (summaries
    /// computed on read), which change no figure a page shows. (When such a computation
    /// rewrites stored probes of an older release, the caller sends the notice itself.)
    async fn write_quietly<T, F>(&self, stores: &[&str], fill: F) -> RepoResult<T>
    where
        F: AsyncFnOnce(&IdbTransaction) -> RepoResult<T>,
    {
        let tx = self.tx(stores, IdbTransactionMode::Readwrite)?;
        let done = TxDone::new(&tx);
        let out = match fill(&tx).await {
            Ok(out) => out,
            Err(e) => {
                let _ = tx.abort();
                let _ = done.wait().await;
                return Err(e);
            }
        };
        // Without an explicit commit a transaction whose last request was awaited could
        // still be active; commit() ends it now and `complete` proves it reached disk.
        let _ = commit(&tx);
        done.wait().await?;
        Ok(out)
    }

    async fn get_all<T: DeserializeOwned>(&self, store: &str) -> RepoResult<Vec<T>> {
        let tx = self.read_tx(&[store])?;
        let os = object_store(&tx, store, RepoError::Read)?;
        let req = os.get_all().map_err(|e| error_from(e, RepoError::Read))?;
        decode_array(request(&req).await.map_err(|e| error_from(e, RepoError::Read))?)
    }

    async fn get_by_index<T: DeserializeOwned>(&self, store: &str, index: &str, key: &str) -> RepoResult<Vec<T>> {
        let tx = self.read_tx(&[store])?;
        let os = object_store(&tx, store, RepoError::Read)?;
        let idx = os.index(index).map_err(|e| error_from(e, RepoError::Read))?;
        let req = idx.get_all_with_key(&JsValue::from_str(key)).map_err(|e| error_from(e, RepoError::Read))?;
        decode_array(request(&req).await.map_err(|e| error_from(e, RepoError::Read))?)
    }

    async fn get_one<T: DeserializeOwned>(&self, store: &str, key: &str) -> RepoResult<Option<T>> {
        self.get_js(store, key).await?.map(|value| decode(&value)).transpose()
    }

    /// The stored JS object under `key`, `None` when there is none.
    async fn get_js(&self, store: &str, key: &str) -> RepoResult<Option<JsValue>> {
        let tx = self.read_tx(&[store])?;
        let os = object_store(&tx, store, RepoError::Read)?;
        let req = os.get(&JsValue::from_str(key)).map_err(|e| error_from(e, RepoError::Read))?;
        let value = request(&req).await.map_err(|e| error_from(e, RepoError::Read))?;
        Ok((!value.is_undefined() && !value.is_null()).then_some(value))
    }
}

/// The stores of a write that changes runs or probes: their summaries change in the same
/// transaction ([`summaries`]), reading the run's answer-link check.
const RUN_STORES: &[&str] = &["runs", "probes", "runSummaries", "runMetrics", "linkChecks"];

/// Records a batch write issues before it waits for the last of them: between slices the
/// browser runs other tasks (paints, input), while the one transaction stays open.
const PUT_SLICE: usize = 500;

fn write_error(e: JsValue) -> RepoError {
    error_from(e, RepoError::Write)
}

/// One record of `store` in `tx`, as stored (undecoded).
async fn tx_get_raw(tx: &IdbTransaction, store: &str, key: &str) -> RepoResult<JsValue> {
    let req = object_store(tx, store, RepoError::Write)?.get(&JsValue::from_str(key)).map_err(write_error)?;
    request(&req).await.map_err(write_error)
}

/// One record of `store` in `tx`.
async fn tx_get<T: DeserializeOwned>(tx: &IdbTransaction, store: &str, key: &str) -> RepoResult<Option<T>> {
    let value = tx_get_raw(tx, store, key).await?;
    if value.is_undefined() || value.is_null() {
        return Ok(None);
    }
    decode(&value).map(Some)
}

/// A derived record of `tx` (a summary or metrics): one that no longer decodes (written by
/// another format) counts as missing and is computed again, never failing the write.
async fn tx_get_derived<T: DeserializeOwned>(tx: &IdbTransaction, store: &str, key: &str) -> RepoResult<Option<T>> {
    Ok(tx_get(tx, store, key).await.ok().flatten())
}

/// The records of `store` in `tx` whose `index` is `key`.
async fn tx_by_index(tx: &IdbTransaction, store: &str, index: &str, key: &str) -> RepoResult<JsValue> {
    let idx = object_store(tx, store, RepoError::Write)?.index(index).map_err(write_error)?;
    let req = idx.get_all_with_key(&JsValue::from_str(key)).map_err(write_error)?;
    request(&req).await.map_err(write_error)
}

/// How many records of `store` in `tx` have `index` equal to `key`.
async fn tx_count(tx: &IdbTransaction, store: &str, index: &str, key: &str) -> RepoResult<usize> {
    let idx = object_store(tx, store, RepoError::Write)?.index(index).map_err(write_error)?;
    let req = idx.count_with_key(&JsValue::from_str(key)).map_err(write_error)?;
    Ok(request(&req).await.map_err(write_error)?.as_f64().unwrap_or(0.0) as usize)
}

/// The stored records of `ids` in `store` of `tx` (undefined where there is none), all
/// requested before the first is awaited.
async fn tx_get_many<'a>(
    tx: &IdbTransaction,
    store: &str,
    ids: impl Iterator<Item = &'a str>,
) -> RepoResult<Vec<JsValue>> {
    let os = object_store(tx, store, RepoError::Write)?;
    let requests: Vec<IdbRequest> =
        ids.map(|id| os.get(&JsValue::from_str(id)).map_err(write_error)).collect::<RepoResult<_>>()?;
    let mut out = Vec::with_capacity(requests.len());
    for r in &requests {
        out.push(request(r).await.map_err(write_error)?);
    }
    Ok(out)
}

/// A string field of a stored JS record.
fn js_field(record: &JsValue, key: &str) -> Option<String> {
    js_sys::Reflect::get(record, &JsValue::from_str(key)).ok()?.as_string()
}

/// geo-core's overwrite rule for `batch` inside `tx`, before anything is written: a prompt,
/// run or probe stored under another project or run refuses the whole write, and each run
/// stored with another alias snapshot has its other stored probes analysed again with the
/// new one (security review II, finding 6; `geo_core::export::overwrite`).
async fn reanalyse_or_refuse(tx: &IdbTransaction, batch: &Batch) -> RepoResult<()> {
    let prompts = tx_get_many(tx, "prompts", batch.prompts.iter().map(|p| p.id.as_str())).await?;
    let prompt_projects: std::collections::HashMap<&str, String> = batch
        .prompts
        .iter()
        .zip(&prompts)
        .filter_map(|(p, stored)| Some((p.id.as_str(), js_field(stored, "projectId")?)))
        .collect();
    let runs = tx_get_many(tx, "runs", batch.runs.iter().map(|r| r.id.as_str())).await?;
    let mut stored_runs: std::collections::HashMap<&str, Run> = std::collections::HashMap::new();
    for (r, stored) in batch.runs.iter().zip(&runs) {
        if !stored.is_undefined() && !stored.is_null() {
            stored_runs.insert(r.id.as_str(), decode(stored)?);
        }
    }
    let probes = tx_get_many(tx, "probes", batch.probes.iter().map(|p| p.id.as_str())).await?;
    let probe_owners: std::collections::HashMap<&str, (String, String)> = batch
        .probes
        .iter()
        .zip(&probes)
        .filter_map(|(p, stored)| Some((p.id.as_str(), (js_field(stored, "runId")?, js_field(stored, "projectId")?))))
        .collect();
    let again = super::overwrites(
        batch,
        |id| prompt_projects.get(id).cloned(),
        |id| stored_runs.get(id).cloned(),
        |id| probe_owners.get(id).cloned(),
    )?;
    let written: std::collections::HashSet<&str> = batch.probes.iter().map(|p| p.id.as_str()).collect();
    for run in again {
        let stored: Vec<Probe> = decode_array(tx_by_index(tx, "probes", "runId", &run.id).await?)?;
        for probe in stored.into_iter().filter(|p| !written.contains(p.id.as_str())) {
            put(tx, "probes", &geo_core::export::reanalysed(probe, run))?;
        }
    }
    Ok(())
}

/// Decodes the records of an array, skipping those that do not decode (derived records).
fn decode_lenient<T: DeserializeOwned>(value: JsValue) -> Vec<T> {
    value.dyn_into::<Array>().map(|a| a.iter().filter_map(|v| decode(&v).ok()).collect()).unwrap_or_default()
}

/// Recomputes run `id`'s summary in `tx` (over [`RUN_STORES`]) from its stored probes — or
/// from `known`, which the caller knows to be exactly the stored ones — and its previous
/// run's stored metrics, then sets the runs that follow it against it. A run that no
/// longer exists loses its summary. Stored probes of a release before claims and risk flags
/// are analysed again first and written back ([`summaries::needs_analysis`]); true when any
/// was.
async fn refresh_in(tx: &IdbTransaction, id: &str, known: Option<Vec<&Probe>>) -> RepoResult<bool> {
    refresh_at(tx, id, known, 0).await
}

/// [`refresh_in`] at `depth`: a run's figures against its previous run need that run's
/// own figures only (never its previous run's), so a stale previous run is brought up to
/// date first, one level deep.
fn refresh_at<'a>(
    tx: &'a IdbTransaction,
    id: &'a str,
    known: Option<Vec<&'a Probe>>,
    depth: u32,
) -> std::pin::Pin<Box<dyn std::future::Future<Output = RepoResult<bool>> + 'a>> {
    Box::pin(async move { refresh_once(tx, id, known, depth).await })
}

async fn refresh_once(tx: &IdbTransaction, id: &str, known: Option<Vec<&Probe>>, depth: u32) -> RepoResult<bool> {
    let run: Option<Run> = tx_get(tx, "runs", id).await?;
    let mut rewrote = false;
    if let Some(p) = run.as_ref().and_then(|r| r.previous_run_id.as_deref()).filter(|_| depth == 0) {
        let current = tx_get_derived::<RunSummary>(tx, "runSummaries", p).await?.is_some_and(|s| s.is_current());
        if !current && !tx_get_raw(tx, "runs", p).await?.is_undefined() {
            rewrote |= refresh_at(tx, p, None, 1).await?;
        }
    }
    let computed = match run {
        Some(run) => {
            let mut stored: Vec<Probe>;
            let probes = match known {
                Some(k) => k,
                None => {
                    stored = decode_array(tx_by_index(tx, "probes", "runId", id).await?)?;
                    let summary = tx_get_derived::<RunSummary>(tx, "runSummaries", id).await?;
                    if summaries::needs_analysis(summary.as_ref()) {
                        let changed =
                            crate::web::measure("geo:analyse-stored", || summaries::analyse_again(&run, &mut stored));
                        for &i in &changed {
                            put(tx, "probes", &stored[i])?;
                        }
                        rewrote |= !changed.is_empty();
                    }
                    stored.iter().collect()
                }
            };
            let previous: Option<StoredMetrics> = match &run.previous_run_id {
                Some(p) => tx_get_derived(tx, "runMetrics", p).await?,
                None => None,
            };
            let check: Option<LinkCheck> =
                tx_get_derived::<StoredLinkCheck>(tx, "linkChecks", id).await?.map(StoredLinkCheck::into_check);
            Some(crate::web::measure("geo:summary", || {
                records(&run, &probes, previous.as_ref().map(|m| &m.metrics), check.as_ref())
            }))
        }
        None => None,
    };
    let followers: Vec<RunSummary> = decode_lenient(tx_by_index(tx, "runSummaries", "previousRunId", id).await?);
    for f in followers {
        if let Some(mut m) = tx_get_derived::<StoredMetrics>(tx, "runMetrics", &f.id).await? {
            against_previous(&mut m.metrics, computed.as_ref().map(|(_, m)| &m.metrics));
            put(tx, "runMetrics", &m)?;
        }
    }
    match computed {
        Some((summary, metrics)) => {
            put(tx, "runSummaries", &summary)?;
            put(tx, "runMetrics", &metrics)?;
        }
        None => {
            for store in ["runSummaries", "runMetrics"] {
                object_store(tx, store, RepoError::Write)?.delete(&JsValue::from_str(id)).map_err(write_error)?;
            }
        }
    }
    Ok(rewrote)
}

/// A run and its stored metrics, as [`IdbRepo::prompts_runs_and_metrics`] reads them.
pub type RunAndMetrics = (Option<Run>, Option<RunMetrics>);

impl IdbRepo {
    /// The project's prompts and, for each of `runs`, the run and its stored metrics
    /// (`None` when missing or no longer decoding), all requested at once in one
    /// transaction: the dashboard's whole read after the run summaries, which say the
    /// stored metrics are current.
    pub async fn prompts_runs_and_metrics(
        &self,
        project_id: &str,
        runs: &[&str],
    ) -> RepoResult<(Vec<Prompt>, Vec<RunAndMetrics>)> {
        let tx = self.read_tx(&["prompts", "runs", "runMetrics"])?;
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

    /// The project's summaries (those that decode) and the ids of its runs, read together.
    async fn summaries_and_runs(&self, project_id: &str) -> RepoResult<(Vec<RunSummary>, Vec<String>)> {
        let tx = self.read_tx(&["runs", "runSummaries"])?;
        let r = |e| error_from(e, RepoError::Read);
        let key = JsValue::from_str(project_id);
        let summaries_req = object_store(&tx, "runSummaries", RepoError::Read)?
            .index("projectId")
            .map_err(r)?
            .get_all_with_key(&key)
            .map_err(r)?;
        let keys_req = object_store(&tx, "runs", RepoError::Read)?
            .index("projectId")
            .map_err(r)?
            .get_all_keys_with_key(&key)
            .map_err(r)?;
        let summaries = decode_lenient(request(&summaries_req).await.map_err(r)?);
        let keys: Array = request(&keys_req).await.map_err(r)?.unchecked_into();
        Ok((summaries, keys.iter().filter_map(|k| k.as_string()).collect()))
    }

    /// Computes the summaries of `ids`, oldest run first (a run's previous run is then
    /// already current), one transaction per run, reporting progress.
    async fn compute_summaries(&self, ids: &[String]) -> RepoResult<()> {
        let tx = self.read_tx(&["runs"])?;
        let r = |e| error_from(e, RepoError::Read);
        let req =
            object_store(&tx, "runs", RepoError::Read)?.index("createdAt").map_err(r)?.get_all_keys().map_err(r)?;
        let by_age: Array = request(&req).await.map_err(r)?.unchecked_into();
        let mut ordered: Vec<String> =
            by_age.iter().filter_map(|k| k.as_string()).filter(|k| ids.contains(k)).collect();
        let unlisted: Vec<String> = ids.iter().filter(|id| !ordered.contains(id)).cloned().collect();
        ordered.extend(unlisted);
        let ids = &ordered[..];
        let total = ids.len() as u32;
        summaries::set_progress(Some((0, total)));
        let span = crate::web::Span::start("geo:summaries-backfill");
        let mut rewrote = false;
        for (i, id) in ids.iter().enumerate() {
            match self.write_quietly(RUN_STORES, async |tx| refresh_in(tx, id, None).await).await {
                Ok(r) => rewrote |= r,
                Err(e) => {
                    summaries::set_progress(None);
                    return Err(e);
                }
            }
            summaries::set_progress(Some((i as u32 + 1, total)));
        }
        span.end();
        summaries::set_progress(None);
        // Probes of an older release now carry their claims and risk flags: the pages that
        // show probes (and other tabs) read them again.
        if rewrote {
            self.notify.changed();
        }
        Ok(())
    }
}

/// The runs among `runs` without a current summary in `summaries`.
fn stale_runs(summaries: &[RunSummary], runs: &[String]) -> Vec<String> {
    // A set: a year of daily runs would otherwise compare 365 × 365 ids on every read.
    let current: std::collections::BTreeSet<&str> =
        summaries.iter().filter(|s| s.is_current()).map(|s| s.id.as_str()).collect();
    runs.iter().filter(|id| !current.contains(id.as_str())).cloned().collect()
}

/// `IDBTransaction.commit()`: standard (Chrome 76, Firefox 74, Safari 15) though web-sys
/// marks it deprecated; where it is missing, the transaction still auto-commits once its
/// requests finish, so the error is ignored by callers.
#[allow(deprecated)]
pub(crate) fn commit(tx: &IdbTransaction) -> Result<(), JsValue> {
    tx.commit()
}

/// Issues a `put` of `value` as contract JSON on `store` of `tx`.
fn put<T: Serialize>(tx: &IdbTransaction, store: &str, value: &T) -> RepoResult<()> {
    let os = object_store(tx, store, RepoError::Write)?;
    os.put(&encode(value)?).map_err(|e| error_from(e, RepoError::Write))?;
    Ok(())
}

fn object_store(tx: &IdbTransaction, name: &str, kind: fn(String) -> RepoError) -> RepoResult<IdbObjectStore> {
    tx.object_store(name).map_err(|e| error_from(e, kind))
}

/// A record as the JS object of its contract JSON.
pub(crate) fn encode<T: Serialize>(value: &T) -> RepoResult<JsValue> {
    let text = serde_json::to_string(value).map_err(|e| RepoError::Write(e.to_string()))?;
    JSON::parse(&text).map_err(|e| error_from(e, RepoError::Write))
}

/// A stored JS object decoded through its JSON text.
pub(crate) fn decode<T: DeserializeOwned>(value: &JsValue) -> RepoResult<T> {
    let text = JSON::stringify(value).map_err(|e| error_from(e, RepoError::Decode))?;
    let text = text.as_string().unwrap_or_default();
    geo_core::json::from_str(&text).map_err(|e| RepoError::Decode(e.to_string()))
}

fn decode_array<T: DeserializeOwned>(value: JsValue) -> RepoResult<Vec<T>> {
    let array: Array = value.dyn_into().map_err(|_| RepoError::Decode("expected an array".into()))?;
    // One record at a time: a bad record is named by its own error, and the many short
    // calls let the browser optimise the decoder early (a long single call stays on its
    // baseline code, measured slower).
    crate::web::measure("geo:idb-decode", || array.iter().map(|v| decode(&v)).collect())
}

/// Maps a thrown value or `DOMException` to a [`RepoError`], recognising a full quota.
pub(crate) fn error_from(value: JsValue, kind: fn(String) -> RepoError) -> RepoError {
    if let Some(ex) = value.dyn_ref::<DomException>() {
        let name = ex.name();
        if name == "QuotaExceededError" {
            return RepoError::Quota(name);
        }
        return kind(format!("{}: {}", name, ex.message()));
    }
    if let Some(err) = value.dyn_ref::<js_sys::Error>() {
        return kind(String::from(err.message()));
    }
    kind(value.as_string().unwrap_or_else(|| "unknown error".into()))
}

/// Awaits one `IDBRequest`: its `result`, or its `error`.
pub(crate) async fn request(req: &IdbRequest) -> Result<JsValue, JsValue> {
    let mut keep: Option<Closure<dyn FnMut(Event)>> = None;
    let promise = Promise::new(&mut |resolve, reject| {
        let r = req.clone();
        let closure = Closure::<dyn FnMut(Event)>::new(move |e: Event| {
            if e.type_() == "success" {
                let _ = resolve.call1(&JsValue::UNDEFINED, &r.result().unwrap_or(JsValue::UNDEFINED));
            } else {
                let err =
                    r.error().ok().flatten().map(JsValue::from).unwrap_or_else(|| JsValue::from_str("request failed"));
                let _ = reject.call1(&JsValue::UNDEFINED, &err);
            }
        });
        req.set_onsuccess(Some(closure.as_ref().unchecked_ref()));
        req.set_onerror(Some(closure.as_ref().unchecked_ref()));
        keep = Some(closure);
    });
    let out = JsFuture::from(promise).await;
    req.set_onsuccess(None);
    req.set_onerror(None);
    drop(keep);
    out
}

/// The end of a transaction: `complete` → `Ok`, `abort` → the transaction's error.
struct TxDone {
    tx: IdbTransaction,
    promise: Promise,
    _closure: Closure<dyn FnMut(Event)>,
}

impl TxDone {
    /// Listens from now on; create it before issuing requests so no event is missed.
    fn new(tx: &IdbTransaction) -> Self {
        let mut keep: Option<Closure<dyn FnMut(Event)>> = None;
        let promise = Promise::new(&mut |resolve, reject| {
            let t = tx.clone();
            let closure = Closure::<dyn FnMut(Event)>::new(move |e: Event| {
                if e.type_() == "complete" {
                    let _ = resolve.call0(&JsValue::UNDEFINED);
                } else {
                    let err = t.error().map(JsValue::from).unwrap_or_else(|| JsValue::from_str("transaction aborted"));
                    let _ = reject.call1(&JsValue::UNDEFINED, &err);
                }
            });
            tx.set_oncomplete(Some(closure.as_ref().unchecked_ref()));
            tx.set_onabort(Some(closure.as_ref().unchecked_ref()));
            keep = Some(closure);
        });
        TxDone { tx: tx.clone(), promise, _closure: keep.expect("Promise::new runs its executor at once") }
    }

    async fn wait(self) -> RepoResult<()> {
        let out = JsFuture::from(self.promise.clone()).await;
        self.tx.set_oncomplete(None);
        self.tx.set_onabort(None);
        out.map(|_| ()).map_err(|e| error_from(e, RepoError::Write))
    }
}

/// The global `indexedDB`: the window's on the page, the worker's in the import worker
/// (`crate::import_worker`), where there is no `window`.
fn idb_factory() -> RepoResult<web_sys::IdbFactory> {
    js_sys::Reflect::get(&js_sys::global(), &JsValue::from_str("indexedDB"))
        .ok()
        .filter(|f| f.is_object())
        .map(|f| f.unchecked_into())
        .ok_or_else(|| RepoError::Open("IndexedDB is not available".into()))
}

/// Opens `name` at version `migrations.len()`, running the migrations from its old version.
pub async fn open_database(name: &str, migrations: &'static [Migration]) -> RepoResult<IdbDatabase> {
    let factory = idb_factory()?;
    let version = migrations.len() as u32;
    let open_req: IdbOpenDbRequest =
        factory.open_with_u32(name, version).map_err(|e| error_from(e, RepoError::Open))?;
    let upgrade_req = open_req.clone();
    let on_upgrade = Closure::<dyn FnMut(IdbVersionChangeEvent)>::new(move |e: IdbVersionChangeEvent| {
        let old = e.old_version() as usize;
        let (Ok(db), Some(tx)) = (upgrade_req.result(), upgrade_req.transaction()) else { return };
        let db: IdbDatabase = db.unchecked_into();
        for migration in migrations.iter().skip(old) {
            if migration(&db, &tx).is_err() {
                let _ = tx.abort();
                return;
            }
        }
    });
    open_req.set_onupgradeneeded(Some(on_upgrade.as_ref().unchecked_ref()));
    let result = request(&open_req).await;
    open_req.set_onupgradeneeded(None);
    drop(on_upgrade);
    let db: IdbDatabase = result.map_err(|e| error_from(e, RepoError::Open))?.unchecked_into();
    // Another tab asking for a newer version: step aside so its upgrade is not blocked.
    let closer = db.clone();
    let on_version_change = Closure::<dyn FnMut(Event)>::new(move |_e: Event| closer.close());
    db.set_onversionchange(Some(on_version_change.as_ref().unchecked_ref()));
    on_version_change.forget();
    Ok(db)
}

/// Deletes a whole database (used by the migration self-test on its scratch database).
pub async fn delete_database(name: &str) -> RepoResult<()> {
    let factory = idb_factory()?;
    let req = factory.delete_database(name).map_err(|e| error_from(e, RepoError::Write))?;
    request(&req).await.map_err(|e| error_from(e, RepoError::Write))?;
    Ok(())
}

impl Repository for IdbRepo {
    async fn list_projects(&self) -> RepoResult<Vec<Project>> {
        self.get_all("projects").await.map(order_projects)
    }

    async fn get_project(&self, id: &str) -> RepoResult<Option<Project>> {
        self.get_one("projects", id).await
    }

    async fn put_project(&self, project: &Project) -> RepoResult<()> {
        self.write(&["projects"], async |tx| put(tx, "projects", project)).await
    }

    async fn prompts_by_project(&self, project_id: &str) -> RepoResult<Vec<Prompt>> {
        self.get_by_index("prompts", "projectId", project_id).await.map(order_prompts)
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
        self.get_by_index("runs", "projectId", project_id).await.map(order_runs)
    }

    async fn get_run(&self, id: &str) -> RepoResult<Option<Run>> {
        self.get_one("runs", id).await
    }

    async fn put_run(&self, run: &Run) -> RepoResult<()> {
        self.write(RUN_STORES, async |tx| {
            put(tx, "runs", run)?;
            refresh_in(tx, &run.id, None).await.map(drop)
        })
        .await
    }

    async fn probes_by_run(&self, run_id: &str) -> RepoResult<Vec<Probe>> {
        self.get_by_index("probes", "runId", run_id).await.map(order_probes)
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
        Ok(self.get_one::<StoredLinkCheck>("linkChecks", run_id).await?.map(StoredLinkCheck::into_check))
    }

    async fn run_summaries(&self, project_id: &str) -> RepoResult<Vec<RunSummary>> {
        let (mut list, mut runs) = self.summaries_and_runs(project_id).await?;
        if !stale_runs(&list, &runs).is_empty() {
            let _one_at_a_time = self.gate.enter().await;
            // Another reader may have computed them while this one waited.
            (list, runs) = self.summaries_and_runs(project_id).await?;
            let stale = stale_runs(&list, &runs);
            if !stale.is_empty() {
                self.compute_summaries(&stale).await?;
                (list, runs) = self.summaries_and_runs(project_id).await?;
            }
        }
        let listed: std::collections::BTreeSet<&str> = runs.iter().map(String::as_str).collect();
        list.retain(|s| listed.contains(s.id.as_str()));
        Ok(order_summaries(list))
    }

    async fn run_metrics(&self, run_id: &str) -> RepoResult<Option<RunMetrics>> {
        let read = async || -> RepoResult<(Option<RunSummary>, Option<StoredMetrics>)> {
            let tx = self.read_tx(&["runSummaries", "runMetrics"])?;
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
        if self.write_quietly(RUN_STORES, async |tx| refresh_in(tx, run_id, None).await).await? {
            self.notify.changed();
        }
        Ok(read().await?.1.map(|m| m.metrics))
    }

    async fn put_many(&self, batch: &Batch) -> RepoResult<()> {
        if batch.is_empty() {
            return Ok(());
        }
        self.write(&["projects", "prompts", "runs", "probes", "runSummaries", "runMetrics", "linkChecks"], async |tx| {
            reanalyse_or_refuse(tx, batch).await?;
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
            Ok(())
        })
        .await
    }

    async fn delete_project(&self, id: &str) -> RepoResult<()> {
        let stores = ["prompts", "runs", "probes", "runSummaries", "runMetrics", "linkChecks"];
        self.write(&["projects", "prompts", "runs", "probes", "runSummaries", "runMetrics", "linkChecks"], async |tx| {
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
        })
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
        // A setting is untyped: read with serde_json's own `Value` reader (the one the
        // engines' replies go through), not `geo_core::json`, so that the module holds one
        // `Value` deserializer (docs/adr/0014-site-size.md).
        let Some(record) = self.get_js("settings", key).await? else { return Ok(None) };
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
        // One read transaction: the lists are a consistent picture.
        let stores = ["projects", "prompts", "runs", "probes", "linkChecks"];
        let tx = self.read_tx(&stores)?;
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
