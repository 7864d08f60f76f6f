//! Tidy checks that keep the architecture honest, run by `cargo test`.
//!
//! - geo-core's direct dependencies are an allow-list, and nothing it pulls in
//!   transitively is a web, async-runtime or HTTP crate;
//! - geo-core's source performs no I/O and reads no clock;
//! - every Rust source file of the workspace opens with a `//!` doc comment.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

const ALLOWED_DEPS: &[&str] = &["serde", "serde_json", "url", "addr", "unicode-normalization", "rustc-hash"];
const FORBIDDEN_TRANSITIVE: &[&str] = &[
    "tokio",
    "async-std",
    "smol",
    "futures",
    "futures-util",
    "reqwest",
    "ureq",
    "hyper",
    "http",
    "wasm-bindgen",
    "wasm-bindgen-futures",
    "web-sys",
    "js-sys",
    "gloo-net",
    "yew",
    "mio",
    "getrandom",
    "rand",
    "chrono",
    "time",
];
const FORBIDDEN_SOURCE: &[&str] = &[
    "std::fs",
    "std::net",
    "std::process",
    "std::env",
    "std::thread",
    "SystemTime",
    "Instant::now",
    "std::time::Instant",
    "tokio",
    "println!",
    "eprintln!",
];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().unwrap()
}

fn section_keys(toml: &str, header: &str) -> Vec<String> {
    let mut keys = Vec::new();
    let mut inside = false;
    for line in toml.lines() {
        let t = line.trim();
        if t.starts_with('[') {
            inside = t == header;
            continue;
        }
        if inside && !t.is_empty() && !t.starts_with('#') {
            if let Some((k, _)) = t.split_once('=') {
                keys.push(k.trim().trim_end_matches(".workspace").to_string());
            }
        }
    }
    keys
}

#[test]
fn geo_core_dependencies_are_allow_listed() {
    let toml = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml")).unwrap();
    let deps = section_keys(&toml, "[dependencies]");
    assert!(!deps.is_empty(), "parsed no dependencies: the tidy parser is broken");
    for d in &deps {
        assert!(ALLOWED_DEPS.contains(&d.as_str()), "geo-core must stay pure: dependency {d} is not allow-listed");
    }
}

/// Walks Cargo.lock from geo-core's normal dependencies (not its dev-dependencies, which
/// only tests and benches use) and returns every package they can reach.
fn reachable_from_geo_core() -> BTreeSet<String> {
    let toml = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml")).unwrap();
    let direct = section_keys(&toml, "[dependencies]");
    let lock = std::fs::read_to_string(root().join("Cargo.lock")).expect("Cargo.lock is committed");
    let mut graph: HashMap<String, Vec<String>> = HashMap::new();
    let mut name = String::new();
    let mut in_deps = false;
    for line in lock.lines() {
        let t = line.trim();
        if t == "[[package]]" {
            name.clear();
            in_deps = false;
        } else if let Some(v) = t.strip_prefix("name = ") {
            name = v.trim_matches('"').to_string();
            graph.entry(name.clone()).or_default();
        } else if t.starts_with("dependencies = [") {
            in_deps = !t.ends_with(']');
        } else if in_deps && t == "]" {
            in_deps = false;
        } else if in_deps {
            let dep = t.trim_matches(|c| c == '"' || c == ',').split(' ').next().unwrap_or("").to_string();
            graph.entry(name.clone()).or_default().push(dep);
        }
    }
    let mut seen = BTreeSet::new();
    let mut stack = direct;
    while let Some(n) = stack.pop() {
        if seen.insert(n.clone()) {
            stack.extend(graph.get(&n).cloned().unwrap_or_default());
        }
    }
    seen
}

#[test]
fn geo_core_pulls_in_no_web_async_or_http_crate() {
    let reachable = reachable_from_geo_core();
    assert!(reachable.contains("serde"), "the Cargo.lock walk found nothing: the tidy parser is broken");
    for f in FORBIDDEN_TRANSITIVE {
        assert!(!reachable.contains(*f), "geo-core reaches {f} through its dependencies");
    }
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        let p = e.path();
        let name = p.file_name().unwrap().to_string_lossy().to_string();
        if p.is_dir() {
            if !["target", "node_modules", ".git", "dist", "snapshots"].contains(&name.as_str()) {
                rust_files(&p, out);
            }
        } else if name.ends_with(".rs") {
            out.push(p);
        }
    }
}

fn strip_comments_and_strings(src: &str) -> String {
    src.lines()
        .map(|l| {
            let t = l.trim_start();
            if t.starts_with("//") {
                ""
            } else {
                l
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn geo_core_source_performs_no_io_and_reads_no_clock() {
    let mut files = Vec::new();
    rust_files(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"), &mut files);
    assert!(files.len() > 5, "found too few source files");
    for f in files {
        let src = strip_comments_and_strings(&std::fs::read_to_string(&f).unwrap());
        // Unit tests inside the crate may build fixtures however they like.
        let code = src.split("#[cfg(test)]").next().unwrap_or("");
        for bad in FORBIDDEN_SOURCE {
            assert!(!code.contains(bad), "{} uses {bad}: geo-core must stay pure", f.display());
        }
    }
}

#[test]
fn every_rust_file_opens_with_a_module_doc() {
    let root = root();
    let mut files = Vec::new();
    rust_files(&root.join("crates"), &mut files);
    rust_files(&root.join("xtask"), &mut files);
    assert!(files.len() > 10);
    for f in files {
        let src = std::fs::read_to_string(&f).unwrap();
        let first = src.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
        assert!(first.starts_with("//!"), "{} must open with a //! doc comment", f.display());
    }
}
