//! The versioned schema of the `geo-probe` database: a list of migrations keyed by the old
//! version.
//!
//! `MIGRATIONS[n]` upgrades a database from version `n` to `n + 1`, so the current version
//! is `MIGRATIONS.len()`. Opening runs, inside the one `versionchange` transaction, every
//! migration from the database's old version up: a fresh database runs them all, a version-1
//! database only the later ones. To change the schema, append a migration; never edit an
//! old one (seed §9.3), and bump `geo_core::model::SCHEMA_VERSION` when the exported shape
//! changes too.

use super::{StoreDef, STORES_V1, STORES_V2, STORES_V3, STORES_V4};
use wasm_bindgen::JsValue;
use web_sys::{IdbDatabase, IdbIndexParameters, IdbObjectStoreParameters, IdbTransaction};

/// One schema step. It runs inside the upgrade transaction, which it may use to reach
/// existing stores (create indexes, rewrite records); returning an error aborts the upgrade
/// and leaves the database at its old version.
pub type Migration = fn(&IdbDatabase, &IdbTransaction) -> Result<(), JsValue>;

/// The migrations of the app's database, indexed by old version.
pub const MIGRATIONS: &[Migration] = &[create_v1, add_summaries_v2, add_link_checks_v3, add_run_pages_v4];

/// Version 0 → 1: the five stores of seed §8.1 with their indexes.
fn create_v1(db: &IdbDatabase, _tx: &IdbTransaction) -> Result<(), JsValue> {
    create_stores(db, STORES_V1)
}

/// Version 1 → 2: the stores of each run's summary and metrics, empty. The summaries of
/// runs already stored are computed from their probes when first read (with progress),
/// not here: the upgrade transaction blocks every other tab and cannot report progress.
fn add_summaries_v2(db: &IdbDatabase, _tx: &IdbTransaction) -> Result<(), JsValue> {
    create_stores(db, STORES_V2)
}

/// Version 2 → 3: the store of each run's answer-link check (`geo-probe links`), empty: an
/// older database has none, they arrive with an import.
fn add_link_checks_v3(db: &IdbDatabase, _tx: &IdbTransaction) -> Result<(), JsValue> {
    create_stores(db, STORES_V3)
}

/// Version 3 → 4: the store of what the lists and Actions pages read of each run, empty.
/// Every stored summary is of an older format then (`SUMMARY_FORMAT` 5 came with it), so the
/// first read of a project's summaries computes each run's records, with progress, as
/// version 2's did.
fn add_run_pages_v4(db: &IdbDatabase, _tx: &IdbTransaction) -> Result<(), JsValue> {
    create_stores(db, STORES_V4)
}

fn create_stores(db: &IdbDatabase, stores: &[StoreDef]) -> Result<(), JsValue> {
    for (name, key_path, indexes) in stores {
        let params = IdbObjectStoreParameters::new();
        params.set_key_path(&JsValue::from_str(key_path));
        let store = db.create_object_store_with_optional_parameters(name, &params)?;
        for index in *indexes {
            let index_params = IdbIndexParameters::new();
            index_params.set_unique(false);
            store.create_index_with_str_and_optional_parameters(index, index, &index_params)?;
        }
    }
    Ok(())
}
