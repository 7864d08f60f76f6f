//! What a write of runs or probes keeps in step inside its own transaction: geo-core's
//! overwrite rule (a record stored under another owner refuses the write; a run stored with
//! another alias snapshot has its other probes analysed again) and each changed run's stored
//! summary and metrics (`repo::summaries`), including the summaries a read finds missing or
//! stale and computes, oldest run first.

use super::codec::{decode, decode_array, decode_lenient, error_from, js_field, write_error};
use super::tx::{
    object_store, put, read_tx, request, tx_by_index, tx_get, tx_get_derived, tx_get_held, tx_get_many, tx_get_raw,
    write_in,
};
use crate::repo::page_figures::PagePart;
use crate::repo::summaries::{self, records, StoredMetrics};
use crate::repo::{Batch, RepoError, RepoResult, StoredLinkCheck};
use geo_core::metrics::{against_previous, RunSummary};
use geo_core::model::{LinkCheck, Probe, Run};
use js_sys::Array;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{IdbDatabase, IdbTransaction};

/// The stores of a write that changes runs or probes: their summaries change in the same
/// transaction ([`summaries`]), reading the run's answer-link check.
pub(super) const RUN_STORES: &[&str] = &["runs", "probes", "runSummaries", "runMetrics", "linkChecks", "runPages"];

/// geo-core's overwrite rule for `batch` inside `tx`, before anything is written: a prompt,
/// run or probe stored under another project or run refuses the whole write, and each run
/// stored with another alias snapshot has its other stored probes analysed again with the
/// new one (security review II, finding 6; `geo_core::export::overwrite`).
pub(super) async fn reanalyse_or_refuse(tx: &IdbTransaction, batch: &Batch) -> RepoResult<()> {
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
    let probes = tx_get_held(tx, "probes", batch.probes.iter().map(|p| p.id.as_str())).await?;
    let probe_owners: std::collections::HashMap<&str, (String, String)> = batch
        .probes
        .iter()
        .zip(&probes)
        .filter_map(|(p, stored)| Some((p.id.as_str(), (js_field(stored, "runId")?, js_field(stored, "projectId")?))))
        .collect();
    let again = crate::repo::overwrites(
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

/// Recomputes run `id`'s summary in `tx` (over [`RUN_STORES`]) from its stored probes — or
/// from `known`, which the caller knows to be exactly the stored ones — and its previous
/// run's stored metrics, then sets the runs that follow it against it. A run that no
/// longer exists loses its summary. Stored probes of a release before claims and risk flags
/// are analysed again first and written back ([`summaries::needs_analysis`]); true when any
/// was.
pub(super) async fn refresh_in(tx: &IdbTransaction, id: &str, known: Option<Vec<&Probe>>) -> RepoResult<bool> {
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
            against_previous(&mut m.metrics, computed.as_ref().map(|(_, m, _)| &m.metrics));
            put(tx, "runMetrics", &m)?;
        }
    }
    match computed {
        Some((summary, metrics, pages)) => {
            put(tx, "runSummaries", &summary)?;
            put(tx, "runMetrics", &metrics)?;
            for part in &pages {
                put(tx, "runPages", part)?;
            }
        }
        None => {
            for store in ["runSummaries", "runMetrics"] {
                object_store(tx, store, RepoError::Write)?.delete(&JsValue::from_str(id)).map_err(write_error)?;
            }
            for part in PagePart::ALL {
                let key = JsValue::from_str(&part.key(id));
                object_store(tx, "runPages", RepoError::Write)?.delete(&key).map_err(write_error)?;
            }
        }
    }
    Ok(rewrote)
}

/// The project's summaries (those that decode) and the ids of its runs, read together.
pub(super) async fn summaries_and_runs(
    db: &IdbDatabase,
    project_id: &str,
) -> RepoResult<(Vec<RunSummary>, Vec<String>)> {
    let tx = read_tx(db, &["runs", "runSummaries"])?;
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
/// already current), one transaction per run, reporting progress; true when stored probes
/// of an older release were analysed again and rewritten (the caller announces the change:
/// the pages that show probes, and other tabs, read them again).
pub(super) async fn compute_summaries(db: &IdbDatabase, ids: &[String]) -> RepoResult<bool> {
    let tx = read_tx(db, &["runs"])?;
    let r = |e| error_from(e, RepoError::Read);
    let req = object_store(&tx, "runs", RepoError::Read)?.index("createdAt").map_err(r)?.get_all_keys().map_err(r)?;
    let by_age: Array = request(&req).await.map_err(r)?.unchecked_into();
    let mut ordered: Vec<String> = by_age.iter().filter_map(|k| k.as_string()).filter(|k| ids.contains(k)).collect();
    let unlisted: Vec<String> = ids.iter().filter(|id| !ordered.contains(id)).cloned().collect();
    ordered.extend(unlisted);
    let ids = &ordered[..];
    let total = ids.len() as u32;
    summaries::set_progress(Some((0, total)));
    let span = crate::web::Span::start("geo:summaries-backfill");
    let mut rewrote = false;
    for (i, id) in ids.iter().enumerate() {
        match write_in(db, RUN_STORES, async |tx| refresh_in(tx, id, None).await).await {
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
    Ok(rewrote)
}

/// The runs among `runs` without a current summary in `summaries`.
pub(super) fn stale_runs(summaries: &[RunSummary], runs: &[String]) -> Vec<String> {
    // A set: a year of daily runs would otherwise compare 365 × 365 ids on every read.
    let current: std::collections::BTreeSet<&str> =
        summaries.iter().filter(|s| s.is_current()).map(|s| s.id.as_str()).collect();
    runs.iter().filter(|id| !current.contains(id.as_str())).cloned().collect()
}
