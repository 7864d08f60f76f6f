//! The export behind `geo-probe mcp`: loaded once, checked on every tool call, re-read when
//! it changes on disk.
//!
//! A change is any difference in modification time, size, inode or device, so both an
//! in-place rewrite and the usual "write a temp file, rename it over" are seen. A new file
//! that cannot be used (half-written, invalid, deleted) never replaces the last good data:
//! every call gets an error naming the problem until the file is usable again, and the
//! server keeps running. The signature is taken *before* reading, so a file that changes
//! while it is being read is read again on the next call.

use crate::cmd::export::load_export;
use anyhow::Result;
use geo_core::model::ExportEnvelope;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

/// What identifies one version of the file on disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Signature {
    modified: Option<SystemTime>,
    len: u64,
    inode: u64,
    device: u64,
}

impl Signature {
    fn of(meta: &std::fs::Metadata) -> Signature {
        #[cfg(unix)]
        let (inode, device) = {
            use std::os::unix::fs::MetadataExt;
            (meta.ino(), meta.dev())
        };
        #[cfg(not(unix))]
        let (inode, device) = (0, 0);
        Signature { modified: meta.modified().ok(), len: meta.len(), inode, device }
    }
}

struct State {
    /// The version of the file last looked at (good or not).
    seen: Signature,
    /// The last good data.
    data: Arc<ExportEnvelope>,
    /// Why the version `seen` is not in use, if it is not.
    problem: Option<String>,
}

/// The export file and its last good data.
pub struct ExportSource {
    path: PathBuf,
    state: Mutex<State>,
}

impl ExportSource {
    /// Loads `path` (errors are input errors: `geo-probe mcp` exits 2 before serving).
    pub fn open(path: &str) -> Result<ExportSource> {
        let meta = std::fs::metadata(path).map_err(|e| crate::io::input_error(format!("cannot read {path}: {e}")))?;
        let seen = Signature::of(&meta);
        let data = Arc::new(load_export(path)?);
        Ok(ExportSource { path: PathBuf::from(path), state: Mutex::new(State { seen, data, problem: None }) })
    }

    /// The file's path as given.
    pub fn path(&self) -> String {
        self.path.display().to_string()
    }

    /// The data to answer from: the file's current version, re-read if it changed since the
    /// last call, or the reason it cannot be used (the last good data stays loaded).
    pub fn current(&self) -> Result<Arc<ExportEnvelope>, String> {
        let mut state = self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let path = self.path();
        let sig = match std::fs::metadata(&self.path) {
            Ok(meta) => Signature::of(&meta),
            Err(e) => {
                return Err(format!(
                    "cannot read {path}: {e}; the last good version stays loaded, restore the file to use it again"
                ))
            }
        };
        if sig != state.seen {
            state.seen = sig;
            match load_export(&path) {
                Ok(env) => {
                    crate::terminal::eprint_line(&format!(
                        "geo-probe mcp: {path} changed on disk; re-read it ({})",
                        geo_core::export::summarize(&env)
                    ));
                    state.data = Arc::new(env);
                    state.problem = None;
                }
                Err(e) => {
                    let line = format!("{e:#}").replace(['\n', '\r'], " ");
                    crate::terminal::eprint_line(&format!(
                        "geo-probe mcp: {path} changed on disk and cannot be used: {line}"
                    ));
                    state.problem = Some(format!(
                        "{path} changed on disk and cannot be used: {line}; the previous version stays loaded until the file is a valid export again: fix or re-export it"
                    ));
                }
            }
        }
        match &state.problem {
            Some(problem) => Err(problem.clone()),
            None => Ok(Arc::clone(&state.data)),
        }
    }
}
