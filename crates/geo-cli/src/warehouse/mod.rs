//! The folder of `geo-probe warehouse` (data-model.md, "Warehouse tables"): one folder per
//! table, Hive partitions `engine=E/run_date=YYYY-MM-DD/`, one file `RUN.parquet` per run
//! and table.
//!
//! A run is written whole, file by file, each file atomically (a temp file beside it, then a
//! rename: a reader never sees half a file), and only then are its older files in other
//! partitions removed (its engine or date changed), so a crash leaves the old or the new
//! files, never none. Other runs' files are never touched, so daily jobs can append to one
//! folder; the folder is never read beyond its directory names, so memory stays flat as it
//! grows.

pub mod parquet;

use crate::io::write_atomic_with;
use anyhow::{bail, Context, Result};
use geo_core::export::warehouse::{Row, RunTables, TABLES};
use std::collections::{HashMap, HashSet};
use std::io::Write;
use std::path::{Path, PathBuf};

/// The extension of every table file.
pub const EXTENSION: &str = "parquet";

/// Rows and bytes written to one table.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TableStat {
    /// Rows.
    pub rows: u64,
    /// Bytes of the files.
    pub bytes: u64,
}

/// The files already in `dir` of the runs whose file stems are `stems`, in any partition of
/// any table (the folder's other files are not looked at).
pub fn existing_files(dir: &Path, stems: &HashSet<String>) -> Result<HashMap<String, Vec<PathBuf>>> {
    let mut found: HashMap<String, Vec<PathBuf>> = HashMap::new();
    for table in TABLES {
        for engine in partitions(&dir.join(table), "engine=")? {
            for date in partitions(&engine, "run_date=")? {
                for entry in read_dir(&date)? {
                    let name = entry.file_name();
                    let Some(stem) = name.to_str().and_then(|n| n.strip_suffix(".parquet")) else { continue };
                    if stems.contains(stem) {
                        found.entry(stem.to_string()).or_default().push(entry.path());
                    }
                }
            }
        }
    }
    Ok(found)
}

/// The sub-folders of `dir` named `KEY=…` (none when `dir` is absent); a symbolic link is not
/// followed, so no file outside the folder is ever removed as a run's older file.
fn partitions(dir: &Path, key: &str) -> Result<Vec<PathBuf>> {
    if !dir.is_dir() {
        return Ok(Vec::new());
    }
    Ok(read_dir(dir)?
        .into_iter()
        .filter(|e| {
            e.file_name().to_str().is_some_and(|n| n.starts_with(key)) && e.file_type().is_ok_and(|t| t.is_dir())
        })
        .map(|e| e.path())
        .collect())
}

fn read_dir(dir: &Path) -> Result<Vec<std::fs::DirEntry>> {
    std::fs::read_dir(dir)
        .with_context(|| format!("cannot list {}", dir.display()))?
        .collect::<std::io::Result<Vec<_>>>()
        .with_context(|| format!("cannot list {}", dir.display()))
}

/// Writes every table of one run under `dir`, then removes `stale` files of the run that the
/// new ones did not replace; returns the rows and bytes of each table, in [`TABLES`] order.
///
/// The eight files are encoded and written on eight threads: most of a file's time is its
/// fsync, which the threads wait for side by side (docs/adr/0018-warehouse-parquet.md).
pub fn write_run(dir: &Path, t: &RunTables<'_>, stale: &[PathBuf]) -> Result<[TableStat; 8]> {
    let partition = t.partition();
    let file = |table: &str| dir.join(table).join(&partition).join(format!("{}.{EXTENSION}", t.file_stem));
    let results: Vec<Result<TableStat>> = std::thread::scope(|s| {
        let handles = [
            s.spawn(|| put(&file("runs"), &t.runs)),
            s.spawn(|| put(&file("targets"), &t.targets)),
            s.spawn(|| put(&file("prompts"), &t.prompts)),
            s.spawn(|| put(&file("probes"), &t.probes)),
            s.spawn(|| put(&file("mentions"), &t.mentions)),
            s.spawn(|| put(&file("queries"), &t.queries)),
            s.spawn(|| put(&file("sources"), &t.sources)),
            s.spawn(|| put(&file("answer_links"), &t.answer_links)),
        ];
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|_| Err(anyhow::anyhow!("a writer thread failed"))))
            .collect()
    });
    let mut stats = [TableStat::default(); 8];
    for (stat, result) in stats.iter_mut().zip(results) {
        *stat = result?;
    }
    let written: Vec<PathBuf> = TABLES.iter().map(|table| file(table)).collect();
    for old in stale.iter().filter(|p| !written.contains(p)) {
        match std::fs::remove_file(old) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => bail!("cannot remove {}, an older file of the run: {e}", old.display()),
        }
    }
    Ok(stats)
}

/// Encodes `rows` and replaces `path` with them atomically.
fn put<R: Row + Sync>(path: &Path, rows: &[R]) -> Result<TableStat> {
    debug_assert_eq!(
        path.parent().and_then(Path::parent).and_then(Path::parent).and_then(Path::file_name),
        Some(std::ffi::OsStr::new(R::TABLE))
    );
    let bytes = parquet::encode(rows)?;
    let folder = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(folder).with_context(|| format!("cannot create {}", folder.display()))?;
    write_atomic_with(path, |w: &mut dyn Write| w.write_all(&bytes))?;
    Ok(TableStat { rows: rows.len() as u64, bytes: bytes.len() as u64 })
}
