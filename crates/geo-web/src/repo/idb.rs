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
use super::{
    order_probes, order_projects, order_prompts, order_runs, Batch, RepoError, RepoResult, Repository, CHANNEL,
    DB_NAME, STORES,
};
use geo_core::model::{ExportEnvelope, Probe, Project, Prompt, Run};
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
        Ok(IdbRepo { db, notify: Rc::new(Notifier::new(on_change)) })
    }

    /// Wraps an already open database (used by the migration self-test).
    pub fn from_database(db: IdbDatabase, on_change: ChangeListener) -> IdbRepo {
        IdbRepo { db, notify: Rc::new(Notifier { on_change, channel: None, _on_message: None }) }
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
    async fn write<F>(&self, stores: &[&str], fill: F) -> RepoResult<()>
    where
        F: AsyncFnOnce(&IdbTransaction) -> RepoResult<()>,
    {
        let tx = self.tx(stores, IdbTransactionMode::Readwrite)?;
        let done = TxDone::new(&tx);
        if let Err(e) = fill(&tx).await {
            let _ = tx.abort();
            let _ = done.wait().await;
            return Err(e);
        }
        // Without an explicit commit a transaction whose last request was awaited could
        // still be active; commit() ends it now and `complete` proves it reached disk.
        let _ = commit(&tx);
        done.wait().await?;
        self.notify.changed();
        Ok(())
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
        let tx = self.read_tx(&[store])?;
        let os = object_store(&tx, store, RepoError::Read)?;
        let req = os.get(&JsValue::from_str(key)).map_err(|e| error_from(e, RepoError::Read))?;
        let value = request(&req).await.map_err(|e| error_from(e, RepoError::Read))?;
        if value.is_undefined() || value.is_null() {
            return Ok(None);
        }
        decode(&value).map(Some)
    }
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
    serde_json::from_str(&text).map_err(|e| RepoError::Decode(e.to_string()))
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

/// Opens `name` at version `migrations.len()`, running the migrations from its old version.
pub async fn open_database(name: &str, migrations: &'static [Migration]) -> RepoResult<IdbDatabase> {
    let factory = web_sys::window()
        .and_then(|w| w.indexed_db().ok().flatten())
        .ok_or_else(|| RepoError::Open("IndexedDB is not available".into()))?;
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
    let factory = web_sys::window()
        .and_then(|w| w.indexed_db().ok().flatten())
        .ok_or_else(|| RepoError::Open("IndexedDB is not available".into()))?;
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
        self.write(&["runs"], async |tx| put(tx, "runs", run)).await
    }

    async fn probes_by_run(&self, run_id: &str) -> RepoResult<Vec<Probe>> {
        self.get_by_index("probes", "runId", run_id).await.map(order_probes)
    }

    async fn put_probe(&self, probe: &Probe) -> RepoResult<()> {
        self.write(&["probes"], async |tx| put(tx, "probes", probe)).await
    }

    async fn put_many(&self, batch: &Batch) -> RepoResult<()> {
        if batch.is_empty() {
            return Ok(());
        }
        self.write(&["projects", "prompts", "runs", "probes"], async |tx| {
            batch.projects.iter().try_for_each(|p| put(tx, "projects", p))?;
            batch.prompts.iter().try_for_each(|p| put(tx, "prompts", p))?;
            batch.runs.iter().try_for_each(|r| put(tx, "runs", r))?;
            batch.probes.iter().try_for_each(|p| put(tx, "probes", p))
        })
        .await
    }

    async fn delete_project(&self, id: &str) -> RepoResult<()> {
        self.write(&["projects", "prompts", "runs", "probes"], async |tx| {
            let key = JsValue::from_str(id);
            let w = |e| error_from(e, RepoError::Write);
            object_store(tx, "projects", RepoError::Write)?.delete(&key).map_err(w)?;
            for store in ["prompts", "runs", "probes"] {
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
        let names: Vec<&str> = STORES.iter().map(|(n, _, _)| *n).collect();
        self.write(&names, async |tx| {
            for name in &names {
                object_store(tx, name, RepoError::Write)?.clear().map_err(|e| error_from(e, RepoError::Write))?;
            }
            Ok(())
        })
        .await
    }

    async fn setting(&self, key: &str) -> RepoResult<Option<serde_json::Value>> {
        let record: Option<SettingRecord> = self.get_one("settings", key).await?;
        Ok(record.map(|r| r.value))
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
        // One read transaction: the four lists are a consistent picture.
        let stores = ["projects", "prompts", "runs", "probes"];
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
        Ok(env)
    }
}

/// A row of the `settings` store.
#[derive(serde::Serialize, serde::Deserialize)]
struct SettingRecord {
    key: String,
    value: serde_json::Value,
}
