//! Reading inputs (`FILE` or `-` for stdin) and writing outputs atomically.

use anyhow::{Context, Result};
use std::io::{IsTerminal, Read, Write};
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

/// Reads `path` as UTF-8, `-` meaning standard input, refusing more than `limit` bytes
/// (`what` names the limit in the message, e.g. "an export"). A regular file's size is
/// checked first; every source (pipes, devices such as `/dev/zero`) is read through a
/// bound, so nothing is read past the limit.
pub fn read_text(path: &str, limit: usize, what: &str) -> Result<String> {
    let name = if path == "-" { "standard input" } else { path };
    let too_large = || {
        input_error(format!(
            "{name} is larger than {} MiB, the limit for {what}; split it or check that it is the right file",
            limit / (1024 * 1024)
        ))
    };
    let mut bytes = Vec::new();
    let read = if path == "-" {
        std::io::stdin().lock().take(limit as u64 + 1).read_to_end(&mut bytes)
    } else {
        let file = std::fs::File::open(path).map_err(|e| input_error(format!("cannot read {path}: {e}")))?;
        if file.metadata().is_ok_and(|m| m.is_file() && m.len() > limit as u64) {
            return Err(too_large());
        }
        file.take(limit as u64 + 1).read_to_end(&mut bytes)
    };
    read.map_err(|e| input_error(format!("cannot read {name}: {e}")))?;
    if bytes.len() > limit {
        return Err(too_large());
    }
    String::from_utf8(bytes).map_err(|e| {
        input_error(format!("{name} is not UTF-8 text (invalid byte at offset {})", e.utf8_error().valid_up_to()))
    })
}

/// Writes `text` to standard output: without any known secret, and on a terminal with
/// control characters but `\n` and `\t` replaced (a report of a hostile export must not
/// drive the terminal; a file or a pipe gets the data as it is).
pub fn print(text: &str) -> Result<()> {
    let mut out = std::io::stdout().lock();
    let shown =
        if out.is_terminal() { crate::terminal::text(text) } else { crate::terminal::redact(text).into_owned() };
    match out.write_all(shown.as_bytes()).and_then(|_| out.flush()) {
        Ok(()) => Ok(()),
        // A closed pipe (`| head`) is not an error of ours.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(e).context("cannot write to standard output"),
    }
}

/// `value` as pretty JSON and a line break: the JSON a command prints.
pub fn pretty_json<T: serde::Serialize>(value: &T) -> Result<String> {
    let mut text = serde_json::to_string_pretty(value)?;
    text.push('\n');
    Ok(text)
}

/// Prints `value` as pretty JSON ([`pretty_json`]) through [`print`].
pub fn print_json<T: serde::Serialize>(value: &T) -> Result<()> {
    print(&pretty_json(value)?)
}

/// 64 random bits from the operating system (`/dev/urandom`), or from the clock, the
/// process id and a counter where that is missing: temp-file names and run ids.
pub fn os_random_u64() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut seed = [0u8; 8];
    if std::fs::File::open("/dev/urandom").and_then(|mut f| f.read_exact(&mut seed)).is_ok() {
        return u64::from_le_bytes(seed);
    }
    let nanos = crate::clock::now_nanos();
    nanos ^ (u64::from(std::process::id()) << 32) ^ COUNTER.fetch_add(0x9e37_79b9, Ordering::Relaxed)
}

/// Replaces `path` atomically with what `fill` writes: a temp file beside it (through a
/// buffer, so a large file made of kept pieces is never assembled in memory first), fsync,
/// rename, fsync the directory.
///
/// A reader (or a crash) sees either the old file or the new one, never half of one. The
/// temp file is created with `create_new` under a random name, so a file or symlink planted
/// under a predictable name is never written through; it gets the permission bits of the
/// file it replaces (a `600` OUT stays `600`).
pub fn write_atomic_with(path: &Path, fill: impl FnOnce(&mut dyn Write) -> std::io::Result<()>) -> Result<()> {
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "out".into());
    let permissions = std::fs::metadata(path).ok().filter(|m| m.is_file()).map(|m| m.permissions());
    let (tmp, mut file) = create_temp(dir, &name)?;
    let result = (|| -> Result<()> {
        if let Some(p) = permissions {
            file.set_permissions(p).with_context(|| format!("cannot set the permissions of {}", tmp.display()))?;
        }
        let mut w = std::io::BufWriter::with_capacity(1 << 20, &mut file);
        fill(&mut w).and_then(|()| w.flush()).with_context(|| format!("cannot write {}", tmp.display()))?;
        drop(w);
        file.sync_all().with_context(|| format!("cannot flush {}", tmp.display()))?;
        drop(file);
        std::fs::rename(&tmp, path).with_context(|| format!("cannot replace {}", path.display()))?;
        // The rename itself is only durable once the directory is.
        if let Ok(d) = std::fs::File::open(dir) {
            let _ = d.sync_all();
        }
        Ok(())
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// A new, exclusively created temp file `.<name>.<16 hex>.tmp` in `dir`.
fn create_temp(dir: &Path, name: &str) -> Result<(PathBuf, std::fs::File)> {
    let mut last = None;
    for _ in 0..16 {
        let tmp = dir.join(format!(".{name}.{:016x}.tmp", os_random_u64()));
        match std::fs::OpenOptions::new().write(true).create_new(true).open(&tmp) {
            Ok(f) => return Ok((tmp, f)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => last = Some(e),
            Err(e) => return Err(e).with_context(|| format!("cannot create {}", tmp.display())),
        }
    }
    Err(anyhow::anyhow!(
        "cannot create a temp file in {}: {}",
        dir.display(),
        last.map(|e| e.to_string()).unwrap_or_default()
    ))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A new, empty folder for one unit test of the binary.
    pub(crate) fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("geo-cli-io-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    /// Security review, finding 7: a link planted under the temp name the old code used
    /// (`.NAME.PID.tmp`) is never written through.
    #[cfg(unix)]
    #[test]
    fn a_planted_symlink_is_not_followed() {
        let dir = scratch("symlink");
        let victim = dir.join("victim.txt");
        std::fs::write(&victim, "precious").unwrap();
        let out = dir.join("out.json");
        std::os::unix::fs::symlink(&victim, dir.join(format!(".out.json.{}.tmp", std::process::id()))).unwrap();
        write_atomic_with(&out, |w| w.write_all(b"new")).unwrap();
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
        assert_eq!(std::fs::read_to_string(&out).unwrap(), "new");
        let left: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp") && e.file_type().is_ok_and(|t| t.is_file()))
            .collect();
        assert!(left.is_empty(), "temp files left: {left:?}");
    }

    /// Finding 7: the replaced file keeps its permission bits.
    #[cfg(unix)]
    #[test]
    fn the_permission_bits_are_kept() {
        use std::os::unix::fs::PermissionsExt;
        let dir = scratch("mode");
        let out = dir.join("out.json");
        std::fs::write(&out, "old").unwrap();
        std::fs::set_permissions(&out, std::fs::Permissions::from_mode(0o600)).unwrap();
        write_atomic_with(&out, |w| w.write_all(b"new")).unwrap();
        assert_eq!(std::fs::metadata(&out).unwrap().permissions().mode() & 0o777, 0o600);
        assert_eq!(std::fs::read_to_string(&out).unwrap(), "new");
    }

    /// Finding 9: an endless source is read only up to the limit.
    #[cfg(unix)]
    #[test]
    fn an_endless_file_is_refused_at_the_limit() {
        let err = read_text("/dev/zero", 1024 * 1024, "an export").unwrap_err();
        assert!(err.to_string().contains("larger than 1 MiB, the limit for an export"), "{err}");
        let dir = scratch("big");
        let big = dir.join("big.json");
        std::fs::write(&big, vec![b' '; 2 * 1024 * 1024]).unwrap();
        assert!(read_text(big.to_str().unwrap(), 1024 * 1024, "an export").is_err());
        assert_eq!(read_text(big.to_str().unwrap(), 2 * 1024 * 1024, "an export").unwrap().len(), 2 * 1024 * 1024);
    }
}
