//! Proof that the upgrade path keeps data: a scratch database is created at version 1 with
//! one project, then reopened through [`MIGRATIONS`] plus a test-only version-2 migration
//! (a `name` index on `projects`), and the project is read back through that new index.
//!
//! The browser test calls the exported `migration_self_test(name)` from the app's own JS
//! module. It refuses the app's real database name, so it can never touch user data.

use super::idb::{commit, decode, delete_database, encode, open_database, request};
use super::migrations::{Migration, MIGRATIONS};
use super::DB_NAME;
use geo_core::model::{Project, Target, TargetKind};
use wasm_bindgen::prelude::*;
use web_sys::{IdbDatabase, IdbIndexParameters, IdbTransaction, IdbTransactionMode};

/// The app's migrations followed by the test-only version-2 step.
static WITH_TEST_V2: &[Migration] = &[MIGRATIONS[0], add_name_index];

/// Test-only version 1 → 2: an index on `projects.name`, built over the existing records.
fn add_name_index(_db: &IdbDatabase, tx: &IdbTransaction) -> Result<(), JsValue> {
    let store = tx.object_store("projects")?;
    store.create_index_with_str_and_optional_parameters("name", "name", &IdbIndexParameters::new())?;
    Ok(())
}

fn sample_project() -> Project {
    let brand = Target {
        id: "brand".into(),
        kind: TargetKind::Brand,
        label: "元构场".into(),
        aliases: vec!["元构场".into(), "yuangouchang".into()],
        domains: vec!["yuangouchang.com".into()],
    };
    Project {
        id: "proj_migration".into(),
        name: "migration-check".into(),
        brand,
        competitors: vec![],
        is_demo: false,
        created_at: "2026-11-29T08:00:00.000Z".into(),
        updated_at: "2026-11-29T08:00:00.000Z".into(),
        facts: Vec::new(),
        watch_terms: Vec::new(),
    }
}

/// Runs the check on the scratch database `db_name` (deleted first and last) and returns
/// `{ "versionBefore", "versionAfter", "project" }` where `project` was read via the
/// version-2 index. Rejects with a message on any failure.
#[wasm_bindgen(js_name = migrationSelfTest)]
pub async fn migration_self_test(db_name: String) -> Result<JsValue, JsValue> {
    if db_name == DB_NAME || db_name.is_empty() {
        return Err(JsValue::from_str("use a scratch database name, not the app's database"));
    }
    let err = |e: super::RepoError| JsValue::from_str(&e.to_string());
    delete_database(&db_name).await.map_err(err)?;

    let v1 = open_database(&db_name, &WITH_TEST_V2[..1]).await.map_err(err)?;
    let version_before = v1.version();
    let tx = v1.transaction_with_str_and_mode("projects", IdbTransactionMode::Readwrite)?;
    tx.object_store("projects")?.put(&encode(&sample_project()).map_err(err)?)?;
    commit(&tx)?;
    // Read it back in a fresh transaction: resolves only after the write committed.
    let check = v1.transaction_with_str("projects")?;
    request(&check.object_store("projects")?.get(&JsValue::from_str("proj_migration"))?).await?;
    v1.close();

    let v2 = open_database(&db_name, WITH_TEST_V2).await.map_err(err)?;
    let version_after = v2.version();
    let tx = v2.transaction_with_str("projects")?;
    let found =
        request(&tx.object_store("projects")?.index("name")?.get(&JsValue::from_str("migration-check"))?).await?;
    let project: Project = decode(&found).map_err(err)?;
    v2.close();
    delete_database(&db_name).await.map_err(err)?;

    if project != sample_project() {
        return Err(JsValue::from_str("the project read after the upgrade differs from the one written"));
    }
    let out = serde_json::json!({
        "versionBefore": version_before,
        "versionAfter": version_after,
        "project": project,
    });
    encode(&out).map_err(err)
}
