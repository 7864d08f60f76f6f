//! `cargo xtask test`: every test of the workspace, the way CI runs them.
//!
//! 0. The fast checks first: `cargo fmt --all --check` (the tree's own `rustfmt.toml`) and
//!    `cargo clippy --workspace --all-targets -- -D warnings`, so a formatting slip or a lint
//!    fails in seconds, before the long test build.
//! 1. `cargo test --workspace --locked`: tidy checks, unit tests, goldens (insta; with
//!    `CI=true` a changed golden fails), property tests (`PROPTEST_CASES`, 10,000 in CI),
//!    CLI integration tests against the mock engines (`geo-mock`).
//! 2. `cargo doc -p geo-core` with warnings denied: the library is documented.
//! 3. geo-core builds for `wasm32-unknown-unknown`.
//! 4. The browser tests (see `e2e.rs`) when the web crate is part of the workspace.
//!
//! Tests write only to ignored or temporary paths (`target/`, the system's temporary
//! directory): a clean checkout stays clean after its own tests. The README screenshot is
//! refreshed by `cargo xtask screenshot`, never by a test run.

use anyhow::{bail, Context, Result};
use std::process::Command;

use crate::sys::{run_cmd, workspace_root};

fn cargo() -> Command {
    let mut c = Command::new(env!("CARGO"));
    c.current_dir(workspace_root());
    c
}

/// Entry point of `cargo xtask test`.
pub fn run(args: &[String]) -> Result<()> {
    let skip_browser = args.iter().any(|a| a == "--no-browser");
    if !skip_browser {
        // Before the long Rust tests: a missing browser or npm fails now, saying what to install.
        crate::e2e::preflight()?;
    }
    crate::python::ensure_venv()?;
    warn_if_disk_is_short();
    run_cmd(cargo().args(["fmt", "--all", "--check"]))
        .context("the tree is not formatted: run `cargo fmt --all` and commit the result")?;
    run_cmd(cargo().args(["clippy", "--workspace", "--all-targets", "--locked", "--", "-D", "warnings"]))
        .context("clippy found warnings: fix them (or explain an `#[allow]` beside it)")?;
    run_cmd(cargo().args(["test", "--workspace", "--locked"]))?;
    run_cmd(cargo().args(["doc", "-p", "geo-core", "--no-deps", "--locked"]).env("RUSTDOCFLAGS", "-D warnings"))?;
    run_cmd(Command::new("rustup").args(["target", "add", "wasm32-unknown-unknown"]))?;
    run_cmd(cargo().args(["build", "-p", "geo-core", "--target", "wasm32-unknown-unknown", "--locked"]))?;
    if !skip_browser {
        crate::e2e::run(&[])?;
    }
    eprintln!("xtask: every test passed");
    Ok(())
}

/// What a clean `.ci/run` (`CARGO_INCREMENTAL=0`) wrote to `target/` at its peak, in GiB,
/// rounded up: 2.74 GiB on a clean clone (docs/adr/0021-build-footprint.md). Incremental
/// caches, a developer's default, add to it.
const CLEAN_TARGET_GIB: u64 = 3;

/// Says, before the long build, when the disk that holds `target/` has less room than a clean
/// run writes there: otherwise the first sign is rustc's "No space left on device" minutes in.
/// A warning, not a stop: a warm `target/` needs only what changed.
fn warn_if_disk_is_short() {
    let root = workspace_root();
    let Some(free_kib) = free_kib(&root) else { return };
    let used_kib = kib_under(&root.join("target"));
    if short_of_disk(free_kib, used_kib) {
        eprintln!(
            "xtask: warning: {:.1} GiB free beside target/ ({:.1} GiB already in it); a clean \
             `cargo xtask test` writes about {CLEAN_TARGET_GIB} GiB there, more with incremental \
             caches. Free some space (old \
             checkouts' target/ folders, `cargo clean`) if the build stops with \
             \"No space left on device\".",
            gib(free_kib),
            gib(used_kib)
        );
    }
}

/// True when `free_kib` cannot hold what a clean run writes beyond the `used_kib` already there.
fn short_of_disk(free_kib: u64, used_kib: u64) -> bool {
    free_kib < (CLEAN_TARGET_GIB << 20).saturating_sub(used_kib)
}

fn gib(kib: u64) -> f64 {
    kib as f64 / (1u64 << 20) as f64
}

/// Free KiB on the file system of `path`, from POSIX `df -Pk` (Linux, macOS); `None` where
/// `df` is missing or prints something else.
fn free_kib(path: &std::path::Path) -> Option<u64> {
    let out = Command::new("df").arg("-Pk").arg(path).output().ok()?;
    parse_df_available(&String::from_utf8_lossy(&out.stdout))
}

/// The "Available" column of `df -P`'s second line.
fn parse_df_available(text: &str) -> Option<u64> {
    text.lines().nth(1)?.split_whitespace().nth(3)?.parse().ok()
}

/// KiB of the files under `dir` (0 when it does not exist).
fn kib_under(dir: &std::path::Path) -> u64 {
    fn walk(dir: &std::path::Path, total: &mut u64) {
        let Ok(entries) = std::fs::read_dir(dir) else { return };
        for entry in entries.flatten() {
            match entry.file_type() {
                Ok(t) if t.is_dir() => walk(&entry.path(), total),
                Ok(t) if t.is_file() => *total += entry.metadata().map(|m| m.len()).unwrap_or(0),
                _ => {}
            }
        }
    }
    let mut bytes = 0;
    walk(dir, &mut bytes);
    bytes >> 10
}

/// The README screenshot that `cargo xtask screenshot` refreshes (relative to the root).
pub const SCREENSHOT: &str = "docs/screenshots/dashboard.png";

/// Entry point of `cargo xtask screenshot`: runs the dashboard's browser test with
/// `GEO_SCREENSHOT_OUT` set, so that it copies its screenshot over [`SCREENSHOT`]. Without
/// the variable (every `cargo xtask test`) the screenshot stays in `target/e2e-artifacts/`.
pub fn screenshot(args: &[String]) -> Result<()> {
    if let Some(extra) = args.iter().find(|a| a.as_str() != "--dev") {
        bail!("unknown screenshot option {extra:?}: use --dev (a debug build) or nothing");
    }
    let out = workspace_root().join(SCREENSHOT);
    // Inherited by the node process the e2e runner starts (and by nothing else).
    std::env::set_var("GEO_SCREENSHOT_OUT", &out);
    let mut e2e_args: Vec<String> = args.to_vec();
    e2e_args.push("dashboard.test".to_string());
    crate::e2e::run(&e2e_args)?;
    eprintln!("xtask: wrote {}", out.display());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn df_available_column_on_linux_and_macos() {
        let linux = "Filesystem     1024-blocks     Used Available Capacity Mounted on\n\
                     /dev/vda         263174212 92274688   3565320      97% /\n";
        assert_eq!(parse_df_available(linux), Some(3_565_320));
        let macos = "Filesystem    1024-blocks      Used Available Capacity  Mounted on\n\
                     /dev/disk3s5    971350180 512345678 401234567    57%    /System/Volumes/Data\n";
        assert_eq!(parse_df_available(macos), Some(401_234_567));
        assert_eq!(parse_df_available("df: /nope: No such file or directory\n"), None);
        assert_eq!(parse_df_available(""), None);
    }

    #[test]
    fn short_of_disk_counts_what_target_already_holds() {
        let gib = 1u64 << 20;
        assert!(short_of_disk(287 * 1024, 0), "287 MB free and an empty target/");
        assert!(!short_of_disk(40 * gib, 0));
        assert!(!short_of_disk(gib, (CLEAN_TARGET_GIB - 1) * gib), "a warm target/ needs less");
        assert!(!short_of_disk(0, 20 * gib));
    }

    #[test]
    fn kib_under_counts_nested_files_and_a_missing_folder_is_empty() {
        let dir = std::env::temp_dir().join(format!("xtask-kib-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("a/b")).unwrap();
        std::fs::write(dir.join("one"), vec![0u8; 4096]).unwrap();
        std::fs::write(dir.join("a/b/two"), vec![0u8; 8192]).unwrap();
        assert_eq!(kib_under(&dir), 12);
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(kib_under(&dir), 0);
    }
}
