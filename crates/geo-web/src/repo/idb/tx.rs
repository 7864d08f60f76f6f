//! IndexedDB's requests and transactions as futures: one request awaited ([`request`]), a
//! transaction's end ([`TxDone`]), one read-write transaction around a write
//! ([`write_in`]: committed, or aborted when the write fails) and the reads and writes issued
//! inside a transaction.

use super::codec::{decode, decode_array, encode, error_from, write_error};
use crate::repo::{RepoError, RepoResult};
use js_sys::{Array, Promise};
use serde::de::DeserializeOwned;
use serde::Serialize;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{Event, IdbDatabase, IdbObjectStore, IdbRequest, IdbTransaction, IdbTransactionMode};

/// A transaction over `stores` of `db` in `mode`.
pub(super) fn transaction(db: &IdbDatabase, stores: &[&str], mode: IdbTransactionMode) -> RepoResult<IdbTransaction> {
    let names: Array = stores.iter().map(|s| JsValue::from_str(s)).collect();
    let map = |e| error_from(e, if mode == IdbTransactionMode::Readonly { RepoError::Read } else { RepoError::Write });
    db.transaction_with_str_sequence_and_mode(&names, mode).map_err(map)
}

/// A read-only transaction over `stores` of `db`.
pub(super) fn read_tx(db: &IdbDatabase, stores: &[&str]) -> RepoResult<IdbTransaction> {
    transaction(db, stores, IdbTransactionMode::Readonly)
}

/// Runs `fill` (which issues requests) inside one read-write transaction of `db` and commits
/// it; a failed `fill` aborts it, so nothing is half-written. No change notice: the
/// repository sends it (`IdbRepo::write`), or not, for derived records.
pub(super) async fn write_in<T, F>(db: &IdbDatabase, stores: &[&str], fill: F) -> RepoResult<T>
where
    F: AsyncFnOnce(&IdbTransaction) -> RepoResult<T>,
{
    let tx = transaction(db, stores, IdbTransactionMode::Readwrite)?;
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

/// Every record of `store`.
pub(super) async fn get_all<T: DeserializeOwned>(db: &IdbDatabase, store: &str) -> RepoResult<Vec<T>> {
    let tx = read_tx(db, &[store])?;
    let os = object_store(&tx, store, RepoError::Read)?;
    let req = os.get_all().map_err(|e| error_from(e, RepoError::Read))?;
    decode_array(request(&req).await.map_err(|e| error_from(e, RepoError::Read))?)
}

/// The records of `store` whose `index` is `key`.
pub(super) async fn get_by_index<T: DeserializeOwned>(
    db: &IdbDatabase,
    store: &str,
    index: &str,
    key: &str,
) -> RepoResult<Vec<T>> {
    let tx = read_tx(db, &[store])?;
    let os = object_store(&tx, store, RepoError::Read)?;
    let idx = os.index(index).map_err(|e| error_from(e, RepoError::Read))?;
    let req = idx.get_all_with_key(&JsValue::from_str(key)).map_err(|e| error_from(e, RepoError::Read))?;
    decode_array(request(&req).await.map_err(|e| error_from(e, RepoError::Read))?)
}

/// The record of `store` under `key`, `None` when there is none.
pub(super) async fn get_one<T: DeserializeOwned>(db: &IdbDatabase, store: &str, key: &str) -> RepoResult<Option<T>> {
    get_js(db, store, key).await?.map(|value| decode(&value)).transpose()
}

/// The stored JS object under `key`, `None` when there is none.
pub(super) async fn get_js(db: &IdbDatabase, store: &str, key: &str) -> RepoResult<Option<JsValue>> {
    let tx = read_tx(db, &[store])?;
    let os = object_store(&tx, store, RepoError::Read)?;
    let req = os.get(&JsValue::from_str(key)).map_err(|e| error_from(e, RepoError::Read))?;
    let value = request(&req).await.map_err(|e| error_from(e, RepoError::Read))?;
    Ok((!value.is_undefined() && !value.is_null()).then_some(value))
}

/// One record of `store` in `tx`, as stored (undecoded).
pub(super) async fn tx_get_raw(tx: &IdbTransaction, store: &str, key: &str) -> RepoResult<JsValue> {
    let req = object_store(tx, store, RepoError::Write)?.get(&JsValue::from_str(key)).map_err(write_error)?;
    request(&req).await.map_err(write_error)
}

/// One record of `store` in `tx`.
pub(super) async fn tx_get<T: DeserializeOwned>(tx: &IdbTransaction, store: &str, key: &str) -> RepoResult<Option<T>> {
    let value = tx_get_raw(tx, store, key).await?;
    if value.is_undefined() || value.is_null() {
        return Ok(None);
    }
    decode(&value).map(Some)
}

/// A derived record of `tx` (a summary or metrics): one that no longer decodes (written by
/// another format) counts as missing and is computed again, never failing the write.
pub(super) async fn tx_get_derived<T: DeserializeOwned>(
    tx: &IdbTransaction,
    store: &str,
    key: &str,
) -> RepoResult<Option<T>> {
    Ok(tx_get(tx, store, key).await.ok().flatten())
}

/// The records of `store` in `tx` whose `index` is `key`.
pub(super) async fn tx_by_index(tx: &IdbTransaction, store: &str, index: &str, key: &str) -> RepoResult<JsValue> {
    let idx = object_store(tx, store, RepoError::Write)?.index(index).map_err(write_error)?;
    let req = idx.get_all_with_key(&JsValue::from_str(key)).map_err(write_error)?;
    request(&req).await.map_err(write_error)
}

/// How many records of `store` in `tx` have `index` equal to `key`.
pub(super) async fn tx_count(tx: &IdbTransaction, store: &str, index: &str, key: &str) -> RepoResult<usize> {
    let idx = object_store(tx, store, RepoError::Write)?.index(index).map_err(write_error)?;
    let req = idx.count_with_key(&JsValue::from_str(key)).map_err(write_error)?;
    Ok(request(&req).await.map_err(write_error)?.as_f64().unwrap_or(0.0) as usize)
}

/// The stored records of `ids` in `store` of `tx` (undefined where there is none), all
/// requested before the first is awaited.
pub(super) async fn tx_get_many<'a>(
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

/// [`tx_get_many`] for a batch that is mostly new (an import): first the keys `store` holds
/// between the smallest and the largest of `ids` (one request), then a `get` for those of
/// `ids` among them only, so a first import of 5,000 probes costs one request, not 5,000.
pub(super) async fn tx_get_held<'a>(
    tx: &IdbTransaction,
    store: &str,
    ids: impl Iterator<Item = &'a str> + Clone,
) -> RepoResult<Vec<JsValue>> {
    // IndexedDB orders string keys by UTF-16 code units.
    let utf16 = |a: &&str, b: &&str| a.encode_utf16().cmp(b.encode_utf16());
    let (Some(low), Some(high)) = (ids.clone().min_by(utf16), ids.clone().max_by(utf16)) else {
        return Ok(Vec::new());
    };
    let range = web_sys::IdbKeyRange::bound(&JsValue::from_str(low), &JsValue::from_str(high)).map_err(write_error)?;
    let os = object_store(tx, store, RepoError::Write)?;
    let keys: Array =
        request(&os.get_all_keys_with_key(&range).map_err(write_error)?).await.map_err(write_error)?.unchecked_into();
    let held: std::collections::HashSet<String> = keys.iter().filter_map(|k| k.as_string()).collect();
    let stored = tx_get_many(tx, store, ids.clone().filter(|id| held.contains(*id))).await?;
    let mut stored = stored.into_iter();
    Ok(ids
        .map(|id| if held.contains(id) { stored.next().unwrap_or(JsValue::UNDEFINED) } else { JsValue::UNDEFINED })
        .collect())
}

/// `IDBTransaction.commit()`: standard (Chrome 76, Firefox 74, Safari 15) though web-sys
/// marks it deprecated; where it is missing, the transaction still auto-commits once its
/// requests finish, so the error is ignored by callers.
#[allow(deprecated)]
pub(crate) fn commit(tx: &IdbTransaction) -> Result<(), JsValue> {
    tx.commit()
}

/// Issues a `put` of `value` as contract JSON on `store` of `tx`.
pub(super) fn put<T: Serialize>(tx: &IdbTransaction, store: &str, value: &T) -> RepoResult<()> {
    let os = object_store(tx, store, RepoError::Write)?;
    os.put(&encode(value)?).map_err(|e| error_from(e, RepoError::Write))?;
    Ok(())
}

pub(super) fn object_store(
    tx: &IdbTransaction,
    name: &str,
    kind: fn(String) -> RepoError,
) -> RepoResult<IdbObjectStore> {
    tx.object_store(name).map_err(|e| error_from(e, kind))
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
