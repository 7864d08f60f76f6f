//! Opening the app database at its current version (running the migrations from the
//! version found: `repo::migrations`) and deleting a database (the migration self test's
//! scratch one).

use super::codec::error_from;
use super::tx::request;
use crate::repo::migrations::Migration;
use crate::repo::{RepoError, RepoResult};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{Event, IdbDatabase, IdbOpenDbRequest, IdbVersionChangeEvent};

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
