//! A command's files written whole or not at all (shared/spec/cli.md, `geo-probe warehouse`;
//! security review 3, finding L4).
//!
//! Every new file is written and fsynced into a staging folder inside the output folder,
//! `DIR/.staging-<16 hex>` (hidden, private to the user, outside every table's folder, and
//! holding no `*.parquet` name, so no reader of the tables ever sees it). Only once every
//! table's file of every run is there does [`Staging::commit`] put them in place, in three
//! passes: it makes the partition folders; it renames each new file over its target, keeping
//! the file it replaces as a hard link in the staging folder (moved there where the file system
//! has no hard links); then it moves the runs' older files in other partitions into the staging
//! folder too. Each step is journalled. When one fails, the journal is undone in reverse (the
//! older files renamed back, the new files and the new folders removed), so every table is as
//! it was, byte for byte; otherwise the staging folder goes, with the files replaced.
//!
//! No step goes through a symbolic link: every folder below DIR is checked with
//! `symlink_metadata` (never following) during the commit, right before it is used, and a
//! link is refused (exit 2). std has no `openat`/`renameat`, so a user who can write into DIR
//! while the command runs could still swap a checked folder for a link within those
//! milliseconds; docs/warehouse.md says what is covered.

use super::{link_refused, parquet, TableStat, EXTENSION};
use crate::io::os_random_u64;
use anyhow::{anyhow, bail, Context, Result};
use geo_core::export::warehouse::{Row, RunTables, TABLES, TABLE_COUNT};
use std::collections::HashSet;
use std::io::Write;
use std::path::{Path, PathBuf};

/// A new file in the staging folder and where it goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placement {
    staged: PathBuf,
    /// Below DIR: `TABLE/engine=E/run_date=D/STEM.parquet`.
    target: PathBuf,
}

/// One step of a commit, undone in reverse when a later one fails.
#[derive(Debug)]
enum Step {
    /// A folder made: removed (it is empty again once the later steps are undone).
    Folder(PathBuf),
    /// A new file put where there was none: removed.
    Added(PathBuf),
    /// The file at `path` kept at `backup` (a hard link, or the file itself moved there):
    /// renamed back over `path`.
    Kept { path: PathBuf, backup: PathBuf },
}

/// The staging folder of one command; dropped without a commit, it goes with every file in it
/// (and DIR too, when the command made it and it is empty).
#[derive(Debug)]
pub struct Staging {
    dir: PathBuf,
    root: PathBuf,
    made_dir: bool,
    /// Committed, or kept because an undo left files in it.
    finished: bool,
}

/// What a failure that leaves every table as it was says first.
pub fn not_written(runs: usize) -> String {
    match runs {
        1 => "the run was not written (every table is as it was)".to_string(),
        n => format!("none of the {n} runs was written (every table is as it was)"),
    }
}

impl Staging {
    /// Makes DIR when absent and a new staging folder inside it.
    pub fn new(dir: &Path) -> Result<Staging> {
        let made_dir = std::fs::symlink_metadata(dir).is_err();
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
        let mut last = None;
        for _ in 0..16 {
            let root = dir.join(format!(".staging-{:016x}", os_random_u64()));
            let mut builder = std::fs::DirBuilder::new();
            #[cfg(unix)]
            std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
            match builder.create(&root) {
                Ok(()) => return Ok(Staging { dir: dir.to_path_buf(), root, made_dir, finished: false }),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => last = Some(e),
                Err(e) => {
                    last = Some(e);
                    break;
                }
            }
        }
        if made_dir {
            let _ = std::fs::remove_dir(dir);
        }
        Err(anyhow!(
            "cannot create a staging folder in {}: {}",
            dir.display(),
            last.map(|e| e.to_string()).unwrap_or_default()
        ))
    }

    /// Writes every table of one run into the staging folder (`index` tells the command's
    /// runs apart); returns the rows and bytes of each table, in [`TABLES`] order, and where
    /// the files go.
    ///
    /// The files are encoded and written on a thread each: most of a file's time is its
    /// fsync, which the threads wait for side by side (docs/adr/0018-warehouse-parquet.md).
    pub fn stage_run(&self, index: usize, t: &RunTables<'_>) -> Result<([TableStat; TABLE_COUNT], Vec<Placement>)> {
        let name = |table: &str| format!("{index}.{table}.new");
        let results: Vec<Result<TableStat>> = std::thread::scope(|s| {
            let handles = [
                s.spawn(|| self.put(&name("runs"), &t.runs)),
                s.spawn(|| self.put(&name("targets"), &t.targets)),
                s.spawn(|| self.put(&name("prompts"), &t.prompts)),
                s.spawn(|| self.put(&name("probes"), &t.probes)),
                s.spawn(|| self.put(&name("mentions"), &t.mentions)),
                s.spawn(|| self.put(&name("queries"), &t.queries)),
                s.spawn(|| self.put(&name("sources"), &t.sources)),
                s.spawn(|| self.put(&name("answer_links"), &t.answer_links)),
                s.spawn(|| self.put(&name("facts"), &t.facts)),
                s.spawn(|| self.put(&name("claims"), &t.claims)),
                s.spawn(|| self.put(&name("risk_flags"), &t.risk_flags)),
            ];
            handles.into_iter().map(|h| h.join().unwrap_or_else(|_| Err(anyhow!("a writer thread failed")))).collect()
        });
        let mut stats = [TableStat::default(); TABLE_COUNT];
        for (stat, result) in stats.iter_mut().zip(results) {
            *stat = result.with_context(|| format!("cannot write run {}", t.file_stem))?;
        }
        let partition = t.partition();
        let placements = TABLES
            .iter()
            .map(|table| Placement {
                staged: self.root.join(name(table)),
                target: Path::new(table).join(&partition).join(format!("{}.{EXTENSION}", t.file_stem)),
            })
            .collect();
        Ok((stats, placements))
    }

    /// Encodes `rows` into the staging folder's new file `name`, fsynced.
    fn put<R: Row + Sync>(&self, name: &str, rows: &[R]) -> Result<TableStat> {
        debug_assert!(name.ends_with(&format!(".{}.new", R::TABLE)), "{name}");
        let bytes = parquet::encode(rows)?;
        let path = self.root.join(name);
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
            .with_context(|| format!("cannot create {}", path.display()))?;
        file.write_all(&bytes)
            .and_then(|()| file.sync_all())
            .with_context(|| format!("cannot write {}", path.display()))?;
        Ok(TableStat { rows: rows.len() as u64, bytes: bytes.len() as u64 })
    }

    /// Puts every new file in place and removes `older` (the files already in DIR of the runs
    /// written, found by `existing_files`) but those replaced, all or nothing; then removes the
    /// staging folder. On a failure every table is as it was, and the error says so.
    pub fn commit(mut self, placements: &[Placement], older: &[PathBuf]) -> Result<()> {
        let targets: HashSet<PathBuf> = placements.iter().map(|p| self.dir.join(&p.target)).collect();
        let stale: Vec<&PathBuf> = older.iter().filter(|p| !targets.contains(*p)).collect();
        let mut journal = Vec::new();
        if let Err(e) = self.apply(placements, &stale, &mut journal) {
            let left = self.undo(journal);
            if left.is_empty() {
                let runs: HashSet<_> = placements.iter().map(|p| p.target.file_name()).collect();
                return Err(e.context(not_written(runs.len())));
            }
            self.finished = true;
            return Err(anyhow!(
                "the runs are only partly written: {e:#}; and {} steps could not be undone ({}): \
                 write the runs again, then remove {}",
                left.len(),
                left.join(", "),
                self.root.display()
            ));
        }
        self.finished = true;
        sync_folders(targets.iter().chain(stale.iter().copied()).filter_map(|p| p.parent()).collect());
        if let Err(e) = std::fs::remove_dir_all(&self.root) {
            crate::terminal::eprint_line(&format!(
                "warning: cannot remove {}, which holds only the replaced files: {e}; remove it by hand",
                self.root.display()
            ));
        }
        Ok(())
    }

    /// The three passes of a commit: the folders, the new files, the older files set aside.
    fn apply(&self, placements: &[Placement], stale: &[&PathBuf], journal: &mut Vec<Step>) -> Result<()> {
        let mut checked = HashSet::new();
        for p in placements {
            self.folders(p.target.parent().unwrap_or(Path::new("")), true, &mut checked, journal)?;
        }
        for (k, p) in placements.iter().enumerate() {
            self.place(p, k, journal)?;
        }
        for (k, old) in stale.iter().enumerate() {
            let below = old.strip_prefix(&self.dir).unwrap_or(old);
            if !self.folders(below.parent().unwrap_or(Path::new("")), false, &mut checked, journal)? {
                continue;
            }
            let backup = self.root.join(format!("{}.old", placements.len() + k));
            match std::fs::rename(old, &backup) {
                Ok(()) => journal.push(Step::Kept { path: old.to_path_buf(), backup }),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => {
                    return Err(e).with_context(|| {
                        format!("cannot remove {}, an older file of a run: make its folder writable", old.display())
                    })
                }
            }
        }
        Ok(())
    }

    /// Checks each folder of `below` (a path below DIR) from the top, refusing a symbolic link
    /// or a file, and makes the absent ones when `make`; false when one is absent and not made.
    fn folders(
        &self,
        below: &Path,
        make: bool,
        checked: &mut HashSet<PathBuf>,
        journal: &mut Vec<Step>,
    ) -> Result<bool> {
        let mut path = self.dir.clone();
        for part in below.components() {
            path.push(part);
            if checked.contains(&path) {
                continue;
            }
            match std::fs::symlink_metadata(&path) {
                Ok(m) if m.file_type().is_symlink() => return Err(link_refused(&path)),
                Ok(m) if m.is_dir() => {}
                Ok(_) => bail!(
                    "{} is a file where a folder of the tables must be: move it away and run the command again",
                    path.display()
                ),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound && make => {
                    std::fs::create_dir(&path).with_context(|| format!("cannot create {}", path.display()))?;
                    journal.push(Step::Folder(path.clone()));
                }
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(false),
                Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
            }
            checked.insert(path.clone());
        }
        Ok(true)
    }

    /// Renames one new file over its target, the file it replaces kept in the staging folder.
    fn place(&self, p: &Placement, k: usize, journal: &mut Vec<Step>) -> Result<()> {
        let target = self.dir.join(&p.target);
        let put =
            || std::fs::rename(&p.staged, &target).with_context(|| format!("cannot put {} in place", target.display()));
        match std::fs::symlink_metadata(&target) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                put()?;
                journal.push(Step::Added(target));
            }
            Err(e) => return Err(e).with_context(|| format!("cannot read {}", target.display())),
            Ok(m) if m.file_type().is_symlink() => return Err(link_refused(&target)),
            Ok(m) if m.is_file() => {
                let backup = self.root.join(format!("{k}.old"));
                // A hard link keeps the old file in place until the new one replaces it.
                if std::fs::hard_link(&target, &backup).is_err() {
                    std::fs::rename(&target, &backup)
                        .with_context(|| format!("cannot replace {}: make its folder writable", target.display()))?;
                }
                journal.push(Step::Kept { path: target.clone(), backup });
                // The new file keeps the permission bits of the one it replaces (a `600` stays `600`).
                std::fs::set_permissions(&p.staged, m.permissions())
                    .with_context(|| format!("cannot set the permissions of {}", p.staged.display()))?;
                put()?;
            }
            Ok(_) => bail!(
                "{} is a folder where a table file must be: move it away and run the command again",
                target.display()
            ),
        }
        Ok(())
    }

    /// Undoes `journal` in reverse; returns what could not be undone.
    fn undo(&self, journal: Vec<Step>) -> Vec<String> {
        let mut left = Vec::new();
        for step in journal.into_iter().rev() {
            let (done, what) = match &step {
                Step::Folder(path) => (std::fs::remove_dir(path), format!("{} is a new folder", path.display())),
                Step::Added(path) => (std::fs::remove_file(path), format!("{} is a new file", path.display())),
                Step::Kept { path, backup } => {
                    (std::fs::rename(backup, path), format!("{} is kept as {}", path.display(), backup.display()))
                }
            };
            if let Err(e) = done {
                left.push(format!("{what}: {e}"));
            }
        }
        left
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        if !self.finished {
            let _ = std::fs::remove_dir_all(&self.root);
            if self.made_dir {
                let _ = std::fs::remove_dir(&self.dir);
            }
        }
    }
}

/// Fsyncs each folder, so that the renames in it are durable; several at a time, as the
/// files' own fsyncs are.
fn sync_folders(folders: HashSet<&Path>) {
    let folders: Vec<&Path> = folders.into_iter().collect();
    for chunk in folders.chunks(64) {
        std::thread::scope(|s| {
            for folder in chunk {
                s.spawn(move || {
                    if let Ok(d) = std::fs::File::open(folder) {
                        let _ = d.sync_all();
                    }
                });
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::tests::scratch;
    use std::collections::BTreeMap;

    /// Every entry under `dir` (links not followed) with a file's text.
    fn listing(dir: &Path) -> BTreeMap<String, String> {
        let mut out = BTreeMap::new();
        let mut todo = vec![dir.to_path_buf()];
        while let Some(d) = todo.pop() {
            for entry in std::fs::read_dir(&d).unwrap() {
                let path = entry.unwrap().path();
                let rel = path.strip_prefix(dir).unwrap().to_string_lossy().into_owned();
                if std::fs::symlink_metadata(&path).unwrap().is_dir() {
                    out.insert(rel, "folder".into());
                    todo.push(path);
                } else {
                    out.insert(rel, std::fs::read_to_string(&path).unwrap());
                }
            }
        }
        out
    }

    /// A folder with a file to replace and two older files in other partitions, and a staging
    /// folder holding a replacement and a file for a new partition.
    fn planted(name: &str) -> (PathBuf, Staging, Vec<Placement>, Vec<PathBuf>) {
        let dir = scratch(&format!("staging-{name}"));
        let file = |rel: &str, text: &str| {
            let path = dir.join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, text).unwrap();
            path
        };
        file("runs/engine=e/run_date=d/a.parquet", "old a");
        let older = vec![
            file("runs/engine=x/run_date=d/b.parquet", "old b"),
            file("runs/engine=y/run_date=d/b.parquet", "old b"),
        ];
        let staging = Staging::new(&dir).unwrap();
        let placements: Vec<Placement> = [("a", "e"), ("b", "z")]
            .iter()
            .enumerate()
            .map(|(i, (run, engine))| {
                let staged = staging.root.join(format!("{i}.runs.new"));
                std::fs::write(&staged, format!("new {run}")).unwrap();
                Placement { staged, target: PathBuf::from(format!("runs/engine={engine}/run_date=d/{run}.parquet")) }
            })
            .collect();
        (dir, staging, placements, older)
    }

    #[test]
    fn a_commit_puts_every_file_in_place_and_removes_the_older_ones() {
        let (dir, staging, placements, older) = planted("commit");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let a = dir.join("runs/engine=e/run_date=d/a.parquet");
            std::fs::set_permissions(&a, std::fs::Permissions::from_mode(0o600)).unwrap();
        }
        staging.commit(&placements, &older).unwrap();
        let after = listing(&dir);
        let files: Vec<(&str, &str)> =
            after.iter().filter(|(_, v)| *v != "folder").map(|(k, v)| (k.as_str(), v.as_str())).collect();
        assert_eq!(
            files,
            [("runs/engine=e/run_date=d/a.parquet", "new a"), ("runs/engine=z/run_date=d/b.parquet", "new b")]
        );
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(dir.join("runs/engine=e/run_date=d/a.parquet")).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600, "the replaced file's permission bits are kept");
        }
    }

    /// A failure in the last pass (an older file that cannot be set aside) undoes the passes
    /// before it: the replaced file is back, the new file and its new folders are gone, the
    /// older file already set aside is back, and so is nothing of the staging folder.
    #[test]
    fn a_failure_in_the_last_pass_undoes_every_pass_before() {
        let (dir, staging, placements, older) = planted("undo");
        // The second older file's place in the staging folder is taken by a folder.
        std::fs::create_dir_all(staging.root.join(format!("{}.old/taken", placements.len() + 1))).unwrap();
        let before: BTreeMap<String, String> =
            listing(&dir).into_iter().filter(|(k, _)| !k.starts_with(".staging-")).collect();
        let e = staging.commit(&placements, &older).unwrap_err();
        assert!(format!("{e:#}").starts_with("none of the 2 runs was written (every table is as it was): "), "{e:#}");
        assert_eq!(listing(&dir), before);
    }

    /// What cannot be undone is named with where it is kept.
    #[test]
    fn what_cannot_be_undone_is_named() {
        let dir = scratch("staging-left");
        let staging = Staging::new(&dir).unwrap();
        let path = dir.join("runs/engine=e/run_date=d/a.parquet");
        let backup = staging.root.join("0.old");
        let left = staging.undo(vec![Step::Kept { path: path.clone(), backup: backup.clone() }]);
        assert_eq!(left.len(), 1);
        assert!(left[0].starts_with(&format!("{} is kept as {}: ", path.display(), backup.display())), "{left:?}");
    }
}
