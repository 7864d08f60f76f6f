//! `geo-probe warehouse FILE --out DIR [--run ID]…`: the runs of an export as Parquet tables
//! for SQL engines (data-model.md, "Warehouse tables"; the views: `sql/metrics.sql`).
//!
//! The export is loaded and analysed as by every command; then geo-core builds the rows of a
//! few runs at a time (`export::warehouse`), which are written and dropped before the next
//! few, so memory beyond the export itself is that of one batch ([`MAX_RUNS_IN_FLIGHT`] runs,
//! [`MAX_PROBES_IN_FLIGHT`] probes and one run more).

use crate::args::{Args, Arity};
use crate::cmd::export::load_export;
use crate::io::{input_error, print};
use crate::warehouse::{existing_files, write_run, TableStat};
use anyhow::{anyhow, Context, Result};
use geo_core::export::warehouse::{file_stem, warehouse_runs, TABLES};
use std::collections::HashSet;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Most runs written at the same time (eight files each, on their own threads): their fsyncs
/// overlap, so a day of nine engines is one wait (docs/adr/0018-warehouse-parquet.md).
const MAX_RUNS_IN_FLIGHT: usize = 12;
/// A batch takes no further run once it holds this many probes, which bounds its memory.
const MAX_PROBES_IN_FLIGHT: usize = 20_000;

/// `geo-probe warehouse FILE --out DIR [--run ID]…`.
pub fn warehouse(raw: &[String]) -> Result<ExitCode> {
    let args = Args::parse(raw, &[("out", Arity::One), ("run", Arity::One)]).map_err(input_error)?;
    args.expect_positionals(&["FILE"]).map_err(input_error)?;
    let out = args.value("out").ok_or_else(|| input_error("--out DIR is required: the folder of the tables"))?;
    let dir = Path::new(out);
    if dir.exists() && !dir.is_dir() {
        return Err(input_error(format!("--out {out} is a file; name a folder (it is created when absent)")));
    }
    let env = load_export(&args.positionals[0])?;
    let ids: Vec<&str> = args.values("run").iter().map(String::as_str).collect();
    // Every requested run is checked before anything is written.
    let runs = warehouse_runs(&env, &ids).map_err(|e| input_error(e.to_string()))?;
    let stems: HashSet<String> = if ids.is_empty() {
        env.runs.iter().map(|r| file_stem(&r.id)).collect()
    } else {
        ids.iter().map(|id| file_stem(id)).collect()
    };
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {out}"))?;
    let mut existing = existing_files(dir, &stems)?;
    let total = runs.size_hint().0;
    let progress = std::io::stderr().is_terminal() && total > 1;
    let mut sums = [TableStat::default(); 8];
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
        let stale: Vec<Vec<PathBuf>> =
            batch.iter().map(|t| existing.remove(&t.file_stem).unwrap_or_default()).collect();
        let written: Vec<Result<[TableStat; 8]>> = std::thread::scope(|s| {
            let handles: Vec<_> =
                batch.iter().zip(&stale).map(|(t, stale)| s.spawn(move || write_run(dir, t, stale))).collect();
            handles.into_iter().map(|h| h.join().unwrap_or_else(|_| Err(anyhow!("a writer thread failed")))).collect()
        });
        for stats in written {
            for (sum, s) in sums.iter_mut().zip(stats?) {
                sum.rows += s.rows;
                sum.bytes += s.bytes;
            }
        }
        done += batch.len();
        if progress {
            crate::terminal::eprint_over(&format!("warehouse: {done}/{total} runs written"), 0);
        }
    }
    if progress {
        crate::terminal::eprint_line("");
    }
    let mut text = String::new();
    for (table, s) in TABLES.iter().zip(sums) {
        text.push_str(&format!("{table}: {} rows, {} bytes\n", s.rows, s.bytes));
    }
    print(&text)?;
    Ok(ExitCode::SUCCESS)
}
