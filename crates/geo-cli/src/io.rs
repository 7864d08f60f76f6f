//! Reading inputs (`FILE` or `-` for stdin) and writing outputs atomically.

use anyhow::{Context, Result};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// An error in what the user gave us: printed as one line, exit status 2.
#[derive(Debug)]
pub struct InputError(pub String);

impl std::fmt::Display for InputError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for InputError {}

/// Shorthand for an input error.
pub fn input_error(msg: impl Into<String>) -> anyhow::Error {
    anyhow::Error::new(InputError(msg.into()))
}

/// Reads `path` as UTF-8, `-` meaning standard input.
pub fn read_text(path: &str) -> Result<String> {
    let mut bytes = Vec::new();
    if path == "-" {
        std::io::stdin()
            .read_to_end(&mut bytes)
            .map_err(|e| input_error(format!("cannot read standard input: {e}")))?;
    } else {
        bytes = std::fs::read(path).map_err(|e| input_error(format!("cannot read {path}: {e}")))?;
    }
    String::from_utf8(bytes).map_err(|e| {
        input_error(format!(
            "{} is not UTF-8 text (invalid byte at offset {})",
            if path == "-" { "standard input" } else { path },
            e.utf8_error().valid_up_to()
        ))
    })
}

/// Writes `text` to standard output.
pub fn print(text: &str) -> Result<()> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
        Ok(()) => Ok(()),
        // A closed pipe (`| head`) is not an error of ours.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(e).context("cannot write to standard output"),
    }
}

/// Replaces `path` atomically with what `fill` writes: a temp file beside it (through a
/// buffer, so a large file made of kept pieces is never assembled in memory first), fsync,
/// rename.
///
/// A reader (or a crash) sees either the old file or the new one, never half of one.
pub fn write_atomic_with(path: &Path, fill: impl FnOnce(&mut dyn Write) -> std::io::Result<()>) -> Result<()> {
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "out".into());
    let tmp: PathBuf = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let result = (|| -> Result<()> {
        let f = std::fs::File::create(&tmp).with_context(|| format!("cannot create {}", tmp.display()))?;
        let mut w = std::io::BufWriter::with_capacity(1 << 20, f);
        fill(&mut w).and_then(|()| w.flush()).with_context(|| format!("cannot write {}", tmp.display()))?;
        let f =
            w.into_inner().map_err(|e| e.into_error()).with_context(|| format!("cannot write {}", tmp.display()))?;
        f.sync_all().with_context(|| format!("cannot flush {}", tmp.display()))?;
        std::fs::rename(&tmp, path).with_context(|| format!("cannot replace {}", path.display()))?;
        Ok(())
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}
