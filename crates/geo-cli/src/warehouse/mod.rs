//! The folder of `geo-probe warehouse` (data-model.md, "Warehouse tables"): one folder per
//! table, Hive partitions `engine=E/run_date=YYYY-MM-DD/`, one file `RUN.parquet` per run
//! and table.
//!
//! A command's files appear together or not at all ([`staging`]): they are written into a
//! hidden staging folder inside the folder and put in place only once every table's file of
//! every run is there, and a failure leaves every table as it was. A run's older files in other
//! partitions (its engine or date changed) are removed only after its new files are in place.
//! Other runs' files are never touched, so daily jobs can append to one folder; the folder is
//! never read beyond its directory names, so memory stays flat as it grows.
//!
//! Nothing is written or removed through a symbolic link: a link as a table folder, a partition
//! folder or a file of a run being written is refused (exit 2). The folder named by `--out` may
//! itself be a link: the user named it, as they name every other path of every command.

pub mod parquet;
pub mod staging;

use crate::io::input_error;
use anyhow::{Context, Result};
use geo_core::export::warehouse::TABLES;
use std::collections::HashMap;
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

/// The files already in `dir`, in any partition of any table, of the runs whose file stems
/// (current or former) are the keys of `stems`, gathered under the run's current stem (the
/// value). The folder's other files are not looked at.
///
/// A symbolic link as a table folder, an `engine=` or `run_date=` folder, or one of those
/// files is refused (exit 2) before anything is written: nothing is ever removed through one.
pub fn existing_files(dir: &Path, stems: &HashMap<String, String>) -> Result<HashMap<String, Vec<PathBuf>>> {
    let mut found: HashMap<String, Vec<PathBuf>> = HashMap::new();
    for table in TABLES {
        for engine in partitions(&dir.join(table), "engine=")? {
            for date in partitions(&engine, "run_date=")? {
                for entry in read_dir(&date)? {
                    let name = entry.file_name();
                    let stem = name.to_str().and_then(|n| n.strip_suffix(".parquet"));
                    let Some(run) = stem.and_then(|s| stems.get(s)) else { continue };
                    let kind = entry.file_type().with_context(|| format!("cannot read {}", entry.path().display()))?;
                    if kind.is_symlink() {
                        return Err(link_refused(&entry.path()));
                    }
                    if kind.is_file() {
                        found.entry(run.clone()).or_default().push(entry.path());
                    }
                }
            }
        }
    }
    Ok(found)
}

/// The sub-folders of `dir` named `KEY=…` (none when `dir` is absent or not a folder); `dir`
/// or one of them being a symbolic link is refused.
fn partitions(dir: &Path, key: &str) -> Result<Vec<PathBuf>> {
    match std::fs::symlink_metadata(dir) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", dir.display())),
        Ok(m) if m.file_type().is_symlink() => return Err(link_refused(dir)),
        Ok(m) if !m.is_dir() => return Ok(Vec::new()),
        Ok(_) => {}
    }
    let mut out = Vec::new();
    for entry in read_dir(dir)? {
        if !entry.file_name().to_str().is_some_and(|n| n.starts_with(key)) {
            continue;
        }
        let kind = entry.file_type().with_context(|| format!("cannot read {}", entry.path().display()))?;
        if kind.is_symlink() {
            return Err(link_refused(&entry.path()));
        }
        if kind.is_dir() {
            out.push(entry.path());
        }
    }
    Ok(out)
}

fn read_dir(dir: &Path) -> Result<Vec<std::fs::DirEntry>> {
    std::fs::read_dir(dir)
        .with_context(|| format!("cannot list {}", dir.display()))?
        .collect::<std::io::Result<Vec<_>>>()
        .with_context(|| format!("cannot list {}", dir.display()))
}

/// The refusal of a symbolic link below `--out` (exit 2).
pub(crate) fn link_refused(path: &Path) -> anyhow::Error {
    input_error(format!(
        "{} is a symbolic link, and geo-probe warehouse writes and removes nothing through one: \
         replace it with the folder or file itself and run the command again",
        path.display()
    ))
}
