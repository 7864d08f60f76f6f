//! `geo-probe warehouse FILE --out DIR [--run ID]…`: the runs of an export as Parquet tables
//! for SQL engines (data-model.md, "Warehouse tables"; the views: `sql/metrics.sql`).
//!
//! The export is loaded and analysed as by every command; then geo-core builds the rows of a
//! few runs at a time (`export::warehouse`), which are written into a staging folder and
//! dropped before the next few, so memory beyond the export itself is that of one batch
//! ([`MAX_RUNS_IN_FLIGHT`] runs, [`MAX_PROBES_IN_FLIGHT`] probes and one run more). Once every
//! run is staged, the files are put in place together (`warehouse::staging`): a failure at any
//! point leaves every table as it was.

use crate::args::Arity;
use crate::cmd::export::load_export;
use crate::io::{input_error, print};
use crate::warehouse::staging::{not_written, Placement, Staging};
use crate::warehouse::{existing_files, TableStat};
use anyhow::{anyhow, Result};
use geo_core::export::warehouse::{file_stem, former_file_stem, warehouse_runs, RunTables, TABLES, TABLE_COUNT};
use std::collections::HashMap;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Most runs written at the same time (a file per table each, on their own threads): their fsyncs
/// overlap, so a day of nine engines is one wait (docs/adr/0018-warehouse-parquet.md).
const MAX_RUNS_IN_FLIGHT: usize = 12;
/// A batch takes no further run once it holds this many probes, which bounds its memory.
const MAX_PROBES_IN_FLIGHT: usize = 20_000;

/// `geo-probe warehouse FILE --out DIR [--run ID]…`.
///
/// The whole command is one all-or-nothing write: every run's files are staged first and put
/// in place together ([`Staging::commit`]), so a failure leaves every table as it was.
pub fn warehouse(raw: &[String]) -> Result<ExitCode> {
    let args = super::parse(raw, &[("out", Arity::One), ("run", Arity::One)], &["FILE"])?;
    let out = args.value("out").ok_or_else(|| input_error("--out DIR is required: the folder of the tables"))?;
    let dir = Path::new(out);
    if dir.exists() && !dir.is_dir() {
        return Err(input_error(format!("--out {out} is a file; name a folder (it is created when absent)")));
    }
    let env = load_export(&args.positionals[0])?;
    let ids: Vec<&str> = args.values("run").iter().map(String::as_str).collect();
    // Every requested run is checked before anything is written.
    let runs = warehouse_runs(&env, &ids).map_err(|e| input_error(e.to_string()))?;
    let total = runs.size_hint().0;
    let ids: Vec<&str> = if ids.is_empty() { env.runs.iter().map(|r| r.id.as_str()).collect() } else { ids };
    // A run's files under its current name and under the one it had before names told case
    // apart: both are its older files.
    let mut stems: HashMap<String, String> = HashMap::new();
    for id in ids {
        let stem = file_stem(id);
        if let Some(former) = former_file_stem(id) {
            stems.insert(former, stem.clone());
        }
        stems.insert(stem.clone(), stem);
    }
    let mut existing = existing_files(dir, &stems).map_err(|e| e.context(not_written(total)))?;
    let staging = Staging::new(dir).map_err(|e| e.context(not_written(total)))?;
    let (sums, placements) = stage(&staging, runs, total).map_err(|e| e.context(not_written(total)))?;
    let older: Vec<PathBuf> = existing.drain().flat_map(|(_, files)| files).collect();
    staging.commit(&placements, &older)?;
    let mut text = String::new();
    for (table, s) in TABLES.iter().zip(sums) {
        text.push_str(&format!("{table}: {} rows, {} bytes\n", s.rows, s.bytes));
    }
    print(&text)?;
    Ok(ExitCode::SUCCESS)
}

/// Writes every run into the staging folder; returns the rows and bytes of each table and
/// where the files go.
fn stage<'a>(
    staging: &Staging,
    runs: impl Iterator<Item = RunTables<'a>>,
    total: usize,
) -> Result<([TableStat; TABLE_COUNT], Vec<Placement>)> {
    let progress = std::io::stderr().is_terminal() && total > 1;
    let mut sums = [TableStat::default(); TABLE_COUNT];
    let mut placements = Vec::new();
    let mut done = 0;
    let mut runs = runs.peekable();
    while runs.peek().is_some() {
        // Runs written side by side, up to a bound in runs and in probes: memory stays that of
        // a batch, whatever the export's size.
        let mut batch = Vec::new();
        let mut probes = 0;
        while batch.len() < MAX_RUNS_IN_FLIGHT && probes < MAX_PROBES_IN_FLIGHT {
            let Some(t) = runs.next() else { break };
            probes += t.probes.len();
            batch.push(t);
        }
        let staged: Vec<Result<_>> = std::thread::scope(|s| {
            let handles: Vec<_> =
                batch.iter().enumerate().map(|(i, t)| s.spawn(move || staging.stage_run(done + i, t))).collect();
            handles.into_iter().map(|h| h.join().unwrap_or_else(|_| Err(anyhow!("a writer thread failed")))).collect()
        });
        for result in staged {
            let (stats, placed) = result?;
            for (sum, s) in sums.iter_mut().zip(stats) {
                sum.rows += s.rows;
                sum.bytes += s.bytes;
            }
            placements.extend(placed);
        }
        done += batch.len();
        if progress {
            crate::terminal::eprint_over(&format!("warehouse: {done}/{total} runs written"), 0);
        }
    }
    if progress {
        crate::terminal::eprint_line("");
    }
    Ok((sums, placements))
}
