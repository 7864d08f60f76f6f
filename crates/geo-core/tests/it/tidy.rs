//! Tidy checks that keep the architecture honest, run by `cargo test`.
//!
//! - geo-core's direct dependencies are an allow-list, and nothing it pulls in
//!   transitively is a web, async-runtime or HTTP crate;
//! - geo-core's source performs no I/O and reads no clock;
//! - every Rust source file of the workspace opens with a `//!` doc comment;
//! - no function of product code is over 150 lines;
//! - no geo-web page imports another page;
//! - every geo-web module is named on ARCHITECTURE.md's code map;
//! - the copies of the engines' key variables that cannot read the engine table agree with it;
//! - `provider/` as data: an engine or dialect module imports only the leaves, only the table
//!   names the engine modules, and an engine is named only by the tables and its own file;
//! - no geo-core file is in an import circle (`imports`: a crate's file-level import graph,
//!   names resolved to the file that defines them).

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

mod imports;

const ALLOWED_DEPS: &[&str] = &["serde", "serde_json", "url", "addr", "icu_normalizer", "rustc-hash"];
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
/// The modules of `std` that reach the world outside the process's memory.
const IMPURE_STD_MODULES: &[&str] = &["fs", "io", "net", "os", "process", "env", "thread"];
/// Names geo-core's product code never says, whatever path leads to them: the clocks and an
/// async runtime.
const IMPURE_NAMES: &[&str] = &["Instant", "SystemTime", "UNIX_EPOCH", "tokio"];
/// Macros that write to the terminal.
const IMPURE_MACROS: &[&str] = &["print", "println", "eprint", "eprintln", "dbg"];

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

/// The tokens of `code` (as [`code_only`] leaves it, comments and literals blank): each
/// identifier or keyword, `::`, and every other non-space byte alone, with its byte offset.
fn tokens(code: &[u8]) -> Vec<(usize, String)> {
    let word = |c: u8| is_ident(c) || c >= 0x80;
    let mut out = Vec::new();
    let mut i = 0;
    while i < code.len() {
        if code[i].is_ascii_whitespace() {
            i += 1;
            continue;
        }
        let len = if word(code[i]) {
            code[i..].iter().take_while(|&&b| word(b)).count()
        } else if code[i..].starts_with(b"::") {
            2
        } else {
            1
        };
        out.push((i, String::from_utf8_lossy(&code[i..i + len]).into_owned()));
        i += len;
    }
    out
}

/// The tokens of `src`'s product code ([`tokens`] of [`code_only`], `#[cfg(test)]` items left
/// out), with `src` as [`code_only`] leaves it.
fn product_tokens(src: &str) -> (Vec<u8>, Vec<(usize, String)>) {
    let code = code_only(src);
    let text = String::from_utf8_lossy(&code).into_owned();
    let tests = test_items(&text, &code);
    let toks = tokens(&code).into_iter().filter(|(at, _)| !tests.iter().any(|&(a, b)| (a..=b).contains(at))).collect();
    (code, toks)
}

/// The first token of each item of the `use` group opening at `toks[open]` (`{`), nested
/// groups included: what `std::{…}` names directly.
fn group_heads(toks: &[&str], open: usize) -> Vec<String> {
    let (mut heads, mut depth, mut item_start) = (Vec::new(), 0usize, true);
    for (k, &t) in toks.iter().enumerate().skip(open + 1) {
        if depth > 0 {
            match t {
                "{" => depth += 1,
                "}" => depth -= 1,
                _ => {}
            }
            continue;
        }
        match t {
            "}" => break,
            "," => {
                item_start = true;
                continue;
            }
            "{" if item_start => {
                heads.extend(group_heads(toks, k));
                depth += 1;
            }
            "{" => depth += 1,
            _ if item_start => heads.push(t.to_string()),
            _ => {}
        }
        item_start = false;
    }
    heads
}

/// Where `src`, outside `#[cfg(test)]` items, could perform I/O or read a clock, as
/// `line N: what`: a path of `std` into one of [`IMPURE_STD_MODULES`] however it is spelt
/// (`std::fs`, `std :: fs`, `::std::net`, `use std::{fs, io}`), `std` renamed or
/// glob-imported (its paths would then hide from this scan), any of [`IMPURE_NAMES`], any of
/// [`IMPURE_MACROS`]. Comments and string literals are not code and never count.
fn impurities(src: &str) -> Vec<String> {
    let (code, all) = product_tokens(src);
    let line_of = |at: usize| code[..at].iter().filter(|&&c| c == b'\n').count() + 1;
    let toks: Vec<&str> = all.iter().map(|(_, t)| t.as_str()).collect();
    let mut out = Vec::new();
    for (k, (at, t)) in all.iter().enumerate() {
        let next = toks.get(k + 1).copied().unwrap_or("");
        let mut found: Vec<String> = Vec::new();
        if IMPURE_NAMES.contains(&t.as_str()) {
            found.push(format!("`{t}`"));
        }
        if IMPURE_MACROS.contains(&t.as_str()) && next == "!" {
            found.push(format!("`{t}!`"));
        }
        if t == "std" && next == "as" {
            found.push("`std as …` (a renamed std hides its paths)".into());
        }
        if t == "std" && next == "::" {
            let heads = match toks.get(k + 2).copied() {
                Some("{") => group_heads(&toks, k + 2),
                Some(head) => vec![head.to_string()],
                None => vec![],
            };
            for head in heads {
                match head.as_str() {
                    "self" => found.push("`std::{self …}` (a renamed std hides its paths)".into()),
                    "*" => found.push("`std::*` (a glob import hides std's paths)".into()),
                    m if IMPURE_STD_MODULES.contains(&m) => found.push(format!("`std::{m}`")),
                    _ => {}
                }
            }
        }
        out.extend(found.into_iter().map(|what| format!("line {}: {what}", line_of(*at))));
    }
    out
}

/// Code review 3, "the purity tidy test matches substrings": it skipped only lines that
/// start with `//`, stopped at a file's first `#[cfg(test)]` and looked for `std::fs` as a
/// substring, so `use std::{fs, io}` passed. Every spelling below must be caught, and no
/// comment or string literal.
#[test]
fn the_purity_scanner_reads_tokens_not_substrings() {
    for bad in [
        "use std::fs;",
        "use std::{fs, io};",
        "use std::{collections::BTreeMap, net::TcpStream};",
        "use std::{{fmt}, process};",
        "use std::{self as s};\nfn f() { s::fs::read(\"x\"); }",
        "use std as s;",
        "extern crate std as s;",
        "use std::*;",
        "fn f() { let _ = std :: fs :: read(\"x\"); }",
        "fn f() { let _ = std::\n    env::var(\"X\"); }",
        "fn f() { let _ = ::std::net::TcpStream::connect(\"a:1\"); }",
        "use std::time::{Instant};",
        "use std::{time::Instant as T};",
        "fn f() { let _ = SystemTime::now(); }",
        "fn f() { std::thread::spawn(|| {}); }",
        "fn f() { println!(\"x\"); }",
        "fn f() { eprintln ! (\"x\"); }",
        "fn f() { dbg!(1); }",
        "async fn f() { tokio::spawn(async {}); }",
        "fn f() -> i32 { 1 } // a comment, then\nuse std::process;",
        "#[cfg(test)]\nmod tests {}\nfn later() { let _ = std::fs::read(\"x\"); }",
    ] {
        assert!(!impurities(bad).is_empty(), "not caught: {bad}");
    }
    for fine in [
        "// use std::fs;\nuse std::collections::BTreeMap;",
        "let x = 1; // std::net::TcpStream and SystemTime::now()",
        "/* std::process::exit(1) */ fn f() {}",
        "/// Never `println!`: see std::io.\nfn f() {}",
        "const S: &str = \"std::fs::read and println!\";",
        "const R: &str = r#\"use std::{fs, io};\"#;",
        "use std::{fmt, collections::{BTreeMap, BTreeSet}};",
        "use core::time::Duration;\nuse std::time::Duration as D;",
        "fn instant_of(fs: &str, env: u8) -> usize { fs.len() + env as usize }",
        "const V: &str = env!(\"CARGO_PKG_VERSION\");",
        "#[cfg(test)]\nmod tests {\n    use std::fs;\n}",
    ] {
        assert_eq!(impurities(fine), Vec::<String>::new(), "{fine}");
    }
    assert_eq!(impurities("//! doc\nuse std::{fmt,\n    fs};\n"), vec!["line 2: `std::fs`".to_string()]);
}

#[test]
fn geo_core_source_performs_no_io_and_reads_no_clock() {
    let mut files = Vec::new();
    rust_files(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"), &mut files);
    assert!(files.len() > 5, "found too few source files");
    let (mut impure, mut std_paths) = (Vec::new(), 0);
    for f in files {
        let name = f.strip_prefix(root()).unwrap_or(&f).display().to_string();
        let src = std::fs::read_to_string(&f).unwrap();
        std_paths += tokens(&code_only(&src)).windows(2).filter(|w| w[0].1 == "std" && w[1].1 == "::").count();
        impure.extend(impurities(&src).into_iter().map(|i| format!("{name} {i}")));
    }
    assert!(std_paths > 10, "saw only {std_paths} paths of std: the token scanner is broken");
    assert!(impure.is_empty(), "geo-core must stay pure (no I/O, no clock):\n{}", impure.join("\n"));
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

// ------------------------------------------------------------------ function length

/// The longest a function of product code may be, in lines from `fn` to its closing brace.
const MAX_FUNCTION_LINES: usize = 150;

/// `src` with every comment and the contents of every string and character literal blanked
/// (newlines kept), so braces and keywords can be counted on what is left.
fn code_only(src: &str) -> Vec<u8> {
    let b = src.as_bytes();
    let mut out = b.to_vec();
    let blank = |out: &mut Vec<u8>, from: usize, to: usize| {
        for c in &mut out[from..to.min(b.len())] {
            if *c != b'\n' {
                *c = b' ';
            }
        }
    };
    let mut i = 0;
    while i < b.len() {
        let ident_before = i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_');
        if b[i..].starts_with(b"//") {
            let end = b[i..].iter().position(|&c| c == b'\n').map_or(b.len(), |k| i + k);
            blank(&mut out, i, end);
            i = end;
        } else if b[i..].starts_with(b"/*") {
            let (mut depth, mut j) = (0usize, i);
            while j < b.len() {
                if b[j..].starts_with(b"/*") {
                    depth += 1;
                    j += 2;
                } else if b[j..].starts_with(b"*/") {
                    depth -= 1;
                    j += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    j += 1;
                }
            }
            blank(&mut out, i, j);
            i = j;
        } else if !ident_before && raw_string_start(&b[i..]).is_some() {
            let (open, hashes) = raw_string_start(&b[i..]).unwrap_or((0, 0));
            let mut close = vec![b'"'];
            close.extend(std::iter::repeat_n(b'#', hashes));
            let body = i + open;
            let end = b[body..]
                .windows(close.len())
                .position(|w| w == close.as_slice())
                .map_or(b.len(), |k| body + k + close.len());
            blank(&mut out, i, end);
            i = end;
        } else if b[i] == b'"' {
            let mut j = i + 1;
            while j < b.len() && b[j] != b'"' {
                j += if b[j] == b'\\' { 2 } else { 1 };
            }
            blank(&mut out, i, j + 1);
            i = j + 1;
        } else if b[i] == b'\'' {
            // A character literal ('x', '\n', '\u{1F600}', a multi-byte 'é'), not a lifetime.
            let rest = &src[i + 1..];
            let end = if rest.starts_with('\\') {
                // Past the escaped character, so that '\'' ends at its last quote.
                rest.get(2..).and_then(|r| r.find('\'')).map(|k| i + 1 + 2 + k + 1)
            } else {
                let mut chars = rest.char_indices();
                match (chars.next(), chars.next()) {
                    (Some(_), Some((k, '\''))) => Some(i + 1 + k + 1),
                    _ => None,
                }
            };
            match end {
                Some(end) => {
                    blank(&mut out, i, end);
                    i = end;
                }
                None => i += 1,
            }
        } else {
            i += 1;
        }
    }
    out
}

/// `(length of the opening, number of #)` when a raw string (`r"`, `r#"`, `br##"` …) starts here.
fn raw_string_start(b: &[u8]) -> Option<(usize, usize)> {
    let skip = usize::from(b.first() == Some(&b'b'));
    if b.get(skip) != Some(&b'r') {
        return None;
    }
    let hashes = b[skip + 1..].iter().take_while(|&&c| c == b'#').count();
    (b.get(skip + 1 + hashes) == Some(&b'"')).then_some((skip + 2 + hashes, hashes))
}

/// The index of the brace closing the one at `open`.
fn closing_brace(code: &[u8], open: usize) -> usize {
    let mut depth = 0usize;
    for (j, &c) in code.iter().enumerate().skip(open) {
        match c {
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return j;
                }
            }
            _ => {}
        }
    }
    code.len().saturating_sub(1)
}

fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// The byte ranges of `text`'s test-only items (`code` is its [`code_only`] bytes): a
/// `#[cfg(test)]` module, function or impl, braces and all. A `#[cfg(test)] mod tests;` has
/// no braces here and no range.
fn test_items(text: &str, code: &[u8]) -> Vec<(usize, usize)> {
    let mut excluded: Vec<(usize, usize)> = Vec::new();
    for (at, _) in text.match_indices("#[cfg(test)]") {
        let mut rest = text[at + 12..].trim_start();
        while rest.starts_with("#[") {
            rest = rest.find(']').map_or("", |k| rest[k + 1..].trim_start());
        }
        let rest = rest.strip_prefix("pub ").unwrap_or(rest);
        let declared_elsewhere =
            rest.starts_with("mod ") && rest.find(['{', ';']).is_some_and(|k| rest.as_bytes()[k] == b';');
        if !declared_elsewhere && ["mod ", "fn ", "impl"].iter().any(|k| rest.starts_with(k)) {
            if let Some(open) = text[at..].find('{') {
                excluded.push((at, closing_brace(code, at + open)));
            }
        }
    }
    excluded
}

/// Every function with a body in `src` outside `#[cfg(test)]` items: (name, first line,
/// length in lines).
fn functions(src: &str) -> Vec<(String, usize, usize)> {
    let code = code_only(src);
    let text = String::from_utf8_lossy(&code).into_owned();
    let line_of = |at: usize| code[..at].iter().filter(|&&c| c == b'\n').count() + 1;
    let excluded = test_items(&text, &code);
    let mut out = Vec::new();
    for (at, _) in text.match_indices("fn ") {
        if (at > 0 && is_ident(code[at - 1])) || excluded.iter().any(|&(a, b)| (a..=b).contains(&at)) {
            continue;
        }
        let name: String = text[at + 3..].trim_start().bytes().take_while(|&c| is_ident(c)).map(char::from).collect();
        if name.is_empty() {
            continue; // `fn(…)`: a function pointer type
        }
        // The body starts at the first `{` outside parentheses and brackets; a `;` first
        // means a declaration without a body.
        let mut depth = 0i32;
        let Some(open) = (at..code.len()).find(|&j| {
            match code[j] {
                b'(' | b'[' => depth += 1,
                b')' | b']' => depth -= 1,
                b'{' | b';' if depth == 0 => return true,
                _ => {}
            }
            false
        }) else {
            continue;
        };
        if code[open] == b';' {
            continue;
        }
        let (first, last) = (line_of(at), line_of(closing_brace(&code, open)));
        out.push((name, first, last - first + 1));
    }
    out
}

#[test]
fn the_function_scanner_sees_bodies_and_skips_tests_and_literals() {
    let src = "//! doc\nfn short() {\n    let s = \"}{ fn fake() {\";\n    let c = '}'; let q = '\\''; let e = '\\u{7D}';\n    let l: &'static str = r#\"}\"#;\n}\n\
               struct S { f: fn(u8) -> u8 }\ntrait T { fn decl(&self); }\n/* fn commented() { } */\n\
               fn long<'a>(x: &'a str) -> &'a str {\n    if x.is_empty() {\n        x\n    } else {\n        x\n    }\n}\n\
               #[cfg(test)]\n#[allow(unused)]\nmod tests {\n    fn hidden() {}\n}\n";
    let got: Vec<(String, usize, usize)> = functions(src);
    assert_eq!(got, vec![("short".into(), 2, 5), ("long".into(), 10, 7)]);
}

#[test]
fn no_product_function_is_over_150_lines() {
    let root = root();
    let mut files = Vec::new();
    for dir in ["crates/geo-core/src", "crates/geo-cli/src", "crates/geo-mock/src", "crates/geo-web/src", "xtask/src"] {
        rust_files(&root.join(dir), &mut files);
    }
    assert!(files.len() > 50, "found too few product files");
    let (mut seen, mut long) = (0usize, Vec::new());
    for f in files {
        let src = std::fs::read_to_string(&f).unwrap();
        for (name, line, len) in functions(&src) {
            seen += 1;
            if len > MAX_FUNCTION_LINES {
                long.push(format!("{}:{line} `{name}` is {len} lines", f.strip_prefix(&root).unwrap_or(&f).display()));
            }
        }
    }
    assert!(seen > 500, "found only {seen} functions: the scanner is broken");
    assert!(
        long.is_empty(),
        "functions over {MAX_FUNCTION_LINES} lines (split them into smaller functions or components):\n{}",
        long.join("\n")
    );
}

// ------------------------------------------------------------------ page imports

/// The page a file under `src/` belongs to and how deep its module sits below `pages`:
/// `pages/run.rs` and `pages/run/mod.rs` are the page `run` at depth 1, `pages/run/form.rs`
/// is a piece of it at depth 2. `None` outside `pages/` and for `pages/mod.rs` itself.
fn page_of(rel: &str) -> Option<(String, usize)> {
    let rest = rel.strip_prefix("pages/")?;
    let rest = rest.strip_suffix(".rs")?;
    let rest = rest.strip_suffix("/mod").unwrap_or(rest);
    if rest == "mod" {
        return None;
    }
    let page = rest.split('/').next()?.to_string();
    Some((page, rest.split('/').count()))
}

/// Where `code` (as [`code_only`] leaves it) of the file `rel` (its path under `src/`)
/// reaches into another page: a path through `pages::` that names anything but the file's
/// own page, or, from a file of `pages/`, a `super::` chain that climbs up to the `pages`
/// module itself (one `super` from `pages/run.rs`, two from `pages/run/form.rs`). A page
/// folder's files reach each other through `super::` freely; a test module's `use super::*;`
/// is its own file.
fn page_imports(rel: &str, code: &str) -> Vec<String> {
    let own = page_of(rel);
    let mut out = Vec::new();
    for (n, line) in code.lines().enumerate() {
        let b = line.as_bytes();
        let other_page = line.match_indices("pages::").any(|(at, _)| {
            let named: String = line[at + 7..].bytes().take_while(|&c| is_ident(c)).map(char::from).collect();
            (at == 0 || !is_ident(b[at - 1])) && own.as_ref().is_none_or(|(page, _)| *page != named)
        });
        let climbs = own.as_ref().is_some_and(|(_, depth)| {
            line.trim() != "use super::*;"
                && line.match_indices("super::").any(|(at, _)| {
                    let chain_start = at == 0 || !(is_ident(b[at - 1]) || line[..at].ends_with("::"));
                    chain_start && line[at..].split("super::").take_while(|s| s.is_empty()).count() >= *depth
                })
        });
        if other_page || climbs {
            out.push(format!("{}: {}", n + 1, line.trim()));
        }
    }
    out
}

/// The numbers of the lines of `src` (the file `rel`) that [`page_imports`] reports.
fn page_import_lines(rel: &str, src: &str) -> Vec<usize> {
    let code = String::from_utf8_lossy(&code_only(src)).into_owned();
    page_imports(rel, &code).iter().map(|l| l.split(':').next().unwrap().parse().unwrap()).collect()
}

#[test]
fn the_page_import_scanner_sees_paths_and_skips_comments_and_tests() {
    let src = "//! a page\nuse crate::pages::settings::parse_base_url;\n// crate::pages::x in a comment\n\
               use crate::{hooks::use_app, pages::export};\nlet s = \"crate::pages::y\";\nuse super::status_label;\n\
               use geo_core::pages_of;\nmod tests {\n    use super::*;\n}\n";
    assert_eq!(page_import_lines("pages/run.rs", src), vec![2, 4, 6]);
    // Outside pages/, `super::` is some other module's parent: only `pages::` counts.
    assert_eq!(page_import_lines("components/widget.rs", src), vec![2, 4]);
}

#[test]
fn the_page_import_scanner_lets_a_page_folder_reach_its_own_files_only() {
    let src = "//! a piece of the settings page\nuse super::form::{EngineForm, OTHER_ENGINES};\n\
               use crate::pages::settings::data::DataCard;\nuse super::super::run::parse_count;\n\
               use crate::pages::run::Plan;\nuse super::super::NotFoundPage;\nlet x = super::data::f();\n\
               use crate::pages::settings_extra::X;\nmod tests {\n    use super::*;\n}\n";
    assert_eq!(page_import_lines("pages/settings/fields.rs", src), vec![4, 5, 6, 8]);
    // From the folder's `mod.rs` (the page module itself), one `super` is already `pages`.
    assert_eq!(page_import_lines("pages/settings/mod.rs", src), vec![2, 4, 5, 6, 7, 8]);
    // A file two folders down climbs three times to reach `pages`.
    assert_eq!(page_import_lines("pages/settings/data/import.rs", src), vec![5, 8]);
    assert_eq!(page_of("pages/mod.rs"), None);
    assert_eq!(page_of("pages/run.rs"), Some(("run".into(), 1)));
    assert_eq!(page_of("pages/run/mod.rs"), Some(("run".into(), 1)));
    assert_eq!(page_of("pages/run/form.rs"), Some(("run".into(), 2)));
}

/// A page imports no other page (ARCHITECTURE.md's geo-web invariant): what two pages share
/// lives in `components/`, `hooks/` or a top-level module. A page may be a folder
/// (`pages/settings/mod.rs` and its pieces beside it, reaching each other through `super::`).
/// Only the router (`app.rs`) and `pages/mod.rs` name the pages.
#[test]
fn no_page_imports_another_page() {
    let src = root().join("crates/geo-web/src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let pages = files.iter().filter(|f| f.starts_with(src.join("pages"))).count();
    assert!(pages > 5, "found too few page files");
    let mut found = Vec::new();
    for f in &files {
        let rel = f.strip_prefix(&src).unwrap_or(f).to_string_lossy().replace('\\', "/");
        if rel == "app.rs" || rel == "pages/mod.rs" {
            continue;
        }
        let code = String::from_utf8_lossy(&code_only(&std::fs::read_to_string(f).unwrap())).into_owned();
        for hit in page_imports(&rel, &code) {
            found.push(format!("crates/geo-web/src/{rel}:{hit}"));
        }
    }
    assert!(
        found.is_empty(),
        "these reach into another page (move what they share into components/, hooks/ or a top-level module):\n{}",
        found.join("\n")
    );
}

// ------------------------------------------------------------------ terminal text

/// Where `src` calls `eprintln!` or `eprint!` with anything inside the parentheses (text that
/// does not pass the CLI's terminal sanitiser), up to its first `#[cfg(test)]`. The calls and
/// their parentheses are found in `src` as [`code_only`] leaves it (comments and literals
/// blanked, every offset kept); what is inside is read from `src` itself.
fn raw_stderr_prints(src: &str) -> Vec<String> {
    let blanked = String::from_utf8_lossy(&code_only(src)).into_owned();
    let code = blanked.split("#[cfg(test)]").next().unwrap_or("");
    let mut out = Vec::new();
    for mac in ["eprintln!", "eprint!"] {
        for (at, _) in code.match_indices(mac) {
            if at > 0 && is_ident(code.as_bytes()[at - 1]) {
                continue;
            }
            let after = at + mac.len();
            let open = after + (code[after..].len() - code[after..].trim_start().len());
            let args = match code[open..].strip_prefix('(') {
                Some(r) => src.get(open + 1..open + 1 + closing_paren(r)).unwrap_or("?").trim(),
                None => "?",
            };
            if !args.is_empty() {
                let line = code[..at].matches('\n').count() + 1;
                out.push(format!("{line}: {mac}(…)"));
            }
        }
    }
    out
}

/// Index of the `)` that closes the text after an opening `(`.
fn closing_paren(after_open: &str) -> usize {
    let mut depth = 0usize;
    for (i, c) in after_open.char_indices() {
        match c {
            '(' => depth += 1,
            ')' if depth == 0 => return i,
            ')' => depth -= 1,
            _ => {}
        }
    }
    after_open.len()
}

#[test]
fn the_stderr_scanner_sees_formatted_prints_and_skips_tests() {
    let src = "//! doc\nfn a() {\n    eprintln!();\n    eprintln!(\"{x}\");\n    eprint!(\"\\r{}\", f(1));\n    \
               // eprintln!(\"{in a comment}\");\n    terminal::eprint_line(&format!(\"{x}\"));\n}\n\
               #[cfg(test)]\nmod tests {\n    fn t() { eprintln!(\"{y}\"); }\n}\n";
    assert_eq!(raw_stderr_prints(src), ["4: eprintln!(…)", "5: eprint!(…)"]);
}

/// Security review II, finding 8: every message the CLI writes to standard error passes the
/// terminal sanitiser (`crates/geo-cli/src/terminal.rs`: secrets removed, control
/// characters replaced), so no text from an export, a reply or an argument reaches the
/// terminal raw. Only `terminal.rs` itself calls `eprintln!`/`eprint!` with a value.
#[test]
fn the_cli_prints_no_formatted_value_past_the_sanitiser() {
    let src = root().join("crates/geo-cli/src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    assert!(files.len() > 10, "found too few geo-cli files");
    let mut found = Vec::new();
    for f in &files {
        let rel = f.strip_prefix(&src).unwrap_or(f).to_string_lossy().replace('\\', "/");
        if rel == "terminal.rs" {
            continue;
        }
        let src = std::fs::read_to_string(f).unwrap();
        found.extend(raw_stderr_prints(&src).into_iter().map(|hit| format!("crates/geo-cli/src/{rel}:{hit}")));
    }
    assert!(
        found.is_empty(),
        "these print to standard error past the terminal sanitiser (use terminal::eprint_line):\n{}",
        found.join("\n")
    );
}

// ------------------------------------------------------------------ the code map

/// The `### …` section of ARCHITECTURE.md whose heading names `heading`.
fn architecture_section(heading: &str) -> String {
    let text = std::fs::read_to_string(root().join("ARCHITECTURE.md")).expect("ARCHITECTURE.md");
    let mut out = String::new();
    let mut inside = false;
    for line in text.lines() {
        if line.starts_with("### ") || line.starts_with("## ") {
            inside = line.starts_with("### ") && line.contains(heading);
        } else if inside {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// Every module of a crate's `src/` as the path the code map names it by: `runner`,
/// `pages/chat`, `components/chat/input`; a directory module (`mod.rs`) as its directory.
fn module_paths(src: &Path) -> Vec<String> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let mut out: Vec<String> = files
        .iter()
        .filter_map(|f| {
            let rel = f.strip_prefix(src).ok()?.with_extension("");
            let rel = rel.to_string_lossy().replace('\\', "/");
            match rel.as_str() {
                "lib" | "main" => None,
                r => Some(r.strip_suffix("/mod").unwrap_or(r).to_string()),
            }
        })
        .collect();
    out.sort();
    out
}

/// The paragraphs of a code-map section, each with the folders it speaks of: a bullet with
/// its continuation lines, under the `#### …` heading (if any) whose folders it inherits.
/// A module is named by its full path, or by its own name in a paragraph that names its
/// folder as `` `folder/` `` — the map lists `lists/` (`lines`, `table`) without repeating
/// `analysis/lists/` before every file.
fn map_paragraphs(section: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut heading = String::new();
    for line in section.lines() {
        if let Some(h) = line.strip_prefix("#### ") {
            heading = h.to_string();
        } else if line.starts_with("- ") || out.is_empty() {
            out.push(format!("{heading}\n{line}"));
        } else if line.starts_with("  ") {
            let last = out.last_mut().expect("a paragraph");
            last.push('\n');
            last.push_str(line);
        } else {
            out.push(format!("{heading}\n{line}"));
        }
    }
    out
}

/// The modules of `src` that `section` does not name (see [`map_paragraphs`]).
fn modules_missing_from_map(section: &str, src: &Path) -> Vec<String> {
    let paragraphs = map_paragraphs(section);
    let named = |text: &str, name: &str| {
        [format!("`{name}`"), format!("`{name}.rs`"), format!("`{name}/`")].iter().any(|n| text.contains(n.as_str()))
    };
    module_paths(src)
        .into_iter()
        .filter(|m| {
            if named(section, m) {
                return false;
            }
            let (parent, leaf) = match m.rsplit_once('/') {
                Some((parent, leaf)) => (parent.rsplit('/').next().unwrap_or(parent), leaf),
                None => return true,
            };
            !paragraphs.iter().any(|p| p.contains(&format!("`{parent}/`")) && named(p, leaf))
        })
        .collect()
}

#[test]
fn the_code_map_check_sees_a_missing_module_and_a_folder_listing() {
    let dir = std::env::temp_dir().join(format!("geo-tidy-map-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    for f in ["lib.rs", "a/mod.rs", "a/b.rs", "a/c.rs", "d.rs", "e/mod.rs", "e/f.rs"] {
        let path = dir.join(f);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, "//! x\n").unwrap();
    }
    let section = "- `a/` — things: `b`, and\n  on the next line `c`\n- `d` — a leaf\n#### More (`e/`)\n- `f` — under the heading\n";
    assert_eq!(modules_missing_from_map(section, &dir), Vec::<String>::new());
    // `c` named outside its folder's paragraph does not count; `e` missing entirely fails.
    let section = "- `a/` — things: `b`\n- `d` — and `c`\n- `f`\n";
    assert_eq!(modules_missing_from_map(section, &dir), vec!["a/c".to_string(), "e".to_string(), "e/f".to_string()]);
    let _ = std::fs::remove_dir_all(&dir);
}

/// `crates/{krate}`'s section of ARCHITECTURE.md states its invariants and names each of its
/// modules (more than `at_least` of them, so a wrong folder cannot pass).
#[track_caller]
fn check_code_map(krate: &str, at_least: usize) {
    let section = architecture_section(&format!("crates/{krate}"));
    assert!(section.contains("Architecture Invariant"), "ARCHITECTURE.md has no {krate} section with its invariants");
    let src = root().join(format!("crates/{krate}/src"));
    assert!(module_paths(&src).len() > at_least, "found too few {krate} modules");
    let missing = modules_missing_from_map(&section, &src);
    assert!(missing.is_empty(), "ARCHITECTURE.md's {krate} section does not name these modules: {missing:?}");
}

#[test]
fn every_geo_web_module_is_on_the_code_map() {
    check_code_map("geo-web", 20);
}

/// Code review 3: the map covered geo-web only, so geo-core modules drifted off it.
#[test]
fn every_geo_core_module_is_on_the_code_map() {
    check_code_map("geo-core", 60);
}

/// ARCHITECTURE.md is a map, not an inventory (code review 3: one line had 2,227 characters).
#[test]
fn the_code_map_has_no_line_over_200_characters() {
    let text = std::fs::read_to_string(root().join("ARCHITECTURE.md")).expect("ARCHITECTURE.md");
    let long: Vec<String> = text
        .lines()
        .enumerate()
        .filter(|(_, l)| l.chars().count() > 200)
        .map(|(i, l)| format!("line {}: {} characters", i + 1, l.chars().count()))
        .collect();
    assert!(long.is_empty(), "ARCHITECTURE.md has lines over 200 characters: {long:?}");
}

/// geo-mock depends on geo-core for the workspace's one PRNG only: a mock that shared the
/// wire formats could hide a parser bug behind the same code (ARCHITECTURE.md, geo-mock).
#[test]
fn the_mock_shares_no_wire_format() {
    let mut files = Vec::new();
    rust_files(&root().join("crates/geo-mock"), &mut files);
    let mut found = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        let mut rest = text.as_str();
        while let Some(i) = rest.find("geo_core::") {
            let path: String =
                rest[i..].chars().take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':').collect();
            if !path.starts_with("geo_core::prng") {
                found.push(format!("{}: {path}", f.display()));
            }
            rest = &rest[i + "geo_core::".len()..];
        }
    }
    assert!(found.is_empty(), "geo-mock uses geo-core beyond its PRNG: {found:?}");
}

// ------------------------------------------------------------------ key variables

/// Code review 3 found hand copies of the engines' key variables that knew five engines of
/// nine. The Rust code reads `provider::ENGINES`, xtask's demo included (`EngineRun::key_var`),
/// so xtask spells no key variable; the copies that cannot read it, the browser tests' helpers
/// (JavaScript), must pair every engine with its variable as the table does, so an engine
/// added there fails here until they know it.
#[test]
fn the_copies_of_the_key_variables_outside_rust_agree_with_the_engine_table() {
    use geo_core::model::EngineId;
    use geo_core::provider::spec;
    let read = |path: &str| std::fs::read_to_string(root().join(path)).unwrap();
    let helpers = read("xtask/e2e/helpers.mjs");
    let key_vars = helpers.split("export const KEY_VARS").nth(1).and_then(|t| t.split("];").next()).unwrap_or("");
    assert!(!key_vars.is_empty(), "xtask/e2e/helpers.mjs has no KEY_VARS list");
    let run_helpers = read("xtask/e2e/run-helpers.mjs");
    let mut wrong = Vec::new();
    for engine in EngineId::ALL {
        let (name, var) = (engine.as_str(), spec(engine).key_env);
        if !key_vars.contains(&format!("'{var}'")) {
            wrong.push(format!("xtask/e2e/helpers.mjs KEY_VARS lacks {var}"));
        }
        if !run_helpers.contains(&format!("{name}: '{var}'")) {
            wrong.push(format!("xtask/e2e/run-helpers.mjs does not pair {name} with {var}"));
        }
    }
    // xtask reads every key variable from the table: it spells none as a string.
    let mut files = Vec::new();
    rust_files(&root().join("xtask/src"), &mut files);
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        for (at, _) in text.match_indices("_API_KEY\"") {
            let name = text[..at].rsplit('"').next().unwrap_or("").to_string() + "_API_KEY";
            if name.bytes().all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_') {
                wrong.push(format!("{} spells {name}: read it from geo-core's engine table", file.display()));
            }
        }
    }
    assert!(wrong.is_empty(), "key variables out of step with provider::ENGINES:\n{}", wrong.join("\n"));
}

/// security-3 I2: a documented command never puts `geo-probe proxy`'s token on a command line
/// (`GEO_PROBE_PROXY_TOKEN=… cmd`), where the shell's history keeps it; the docs read it with
/// `read -rs`.
#[test]
fn no_documented_command_puts_the_proxy_token_on_a_command_line() {
    let mut docs = vec![root().join("README.md")];
    for dir in ["docs", "docs/adr", "demo"] {
        for entry in std::fs::read_dir(root().join(dir)).unwrap().flatten() {
            if entry.path().extension().is_some_and(|e| e == "md") {
                docs.push(entry.path());
            }
        }
    }
    let mut found = Vec::new();
    for path in docs {
        let text = std::fs::read_to_string(&path).unwrap();
        for (n, line) in text.lines().enumerate() {
            let assigned = line.find("GEO_PROBE_PROXY_TOKEN=").map(|i| &line[i + "GEO_PROBE_PROXY_TOKEN=".len()..]);
            if assigned.is_some_and(|rest| !rest.is_empty() && !rest.starts_with(['`', ' ', '"', '\''])) {
                found.push(format!("{}:{}: {line}", path.display(), n + 1));
            }
        }
    }
    assert!(found.is_empty(), "the proxy token on a command line:\n{}", found.join("\n"));
}

// ------------------------------------------------------------------ provider as data

/// What an engine or dialect module of `provider/` may import, by module path (code review 3
/// §1a, issue 37): the leaves — the engine table, the parsed result, the JSON readers, an
/// error body and its kinds, the budget, the location pieces — and the model; the marker scanners and the one URL
/// canonicalisation of `analysis` (text rules, leaves themselves); an engine also the `Wire`
/// type it fills in and the dialects. A dialect imports no other dialect. External crates
/// (`serde`, `serde_json`, `rustc_hash`, `std`) cannot reach back into geo-core and are not
/// listed.
const LEAVES: &[&[&str]] = &[
    &["model"],
    &["analysis", "markers"],
    &["analysis", "urls"],
    &["provider", "spec"],
    &["provider", "parsed"],
    &["provider", "read"],
    &["provider", "budget"],
    &["provider", "location"],
    &["provider", "error", "body"],
    &["provider", "error", "kind"],
];

/// A Rust file's module path from its path below `src/`: `provider/engines/qwen.rs` →
/// `provider::engines::qwen`, `provider/error/mod.rs` → `provider::error`, `lib.rs` → the root.
fn module_of(rel: &str) -> Vec<String> {
    let rel = rel.trim_end_matches(".rs");
    let mut parts: Vec<String> = rel.split('/').map(str::to_string).collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib" | "main")) {
        parts.pop();
    }
    parts
}

/// Whether `t` can be a segment of a path.
fn is_segment(t: &str) -> bool {
    t == "*" || t.bytes().all(|c| is_ident(c) || c >= 0x80) && !t.is_empty()
}

/// Every path `src` (product code: comments, literals and `#[cfg(test)]` items left out) names
/// inside the crate, resolved from the module `module` to a path from the crate root:
/// `crate::a::b`, `super::b` (one `super` per level up), `self::b`, and `b::c` where `b` is a
/// child module of `module` (`children`). Paths into other crates are not returned.
fn crate_paths(module: &[String], src: &str, children: &dyn Fn(&[String]) -> bool) -> Vec<Vec<String>> {
    let (_, all) = product_tokens(src);
    let toks: Vec<&str> = all.iter().map(|(_, t)| t.as_str()).collect();
    let mut out = Vec::new();
    for k in 0..toks.len() {
        let starts = toks.get(k + 1) == Some(&"::") && (k == 0 || toks[k - 1] != "::") && is_segment(toks[k]);
        if !starts {
            continue;
        }
        for (path, _) in imports::use_items(&toks, k).0 {
            let mut resolved: Vec<String> = module.to_vec();
            let mut rest = path.as_slice();
            match rest.first().map(String::as_str) {
                Some("crate") => {
                    resolved.clear();
                    rest = &rest[1..];
                }
                Some("self") => rest = &rest[1..],
                Some("super") => {
                    while rest.first().map(String::as_str) == Some("super") {
                        resolved.pop();
                        rest = &rest[1..];
                    }
                }
                Some(first) if children(&[module, &[first.to_string()]].concat()) => {}
                _ => continue,
            }
            resolved.extend(rest.iter().filter(|s| *s != "self").cloned());
            out.push(resolved);
        }
    }
    out
}

/// geo-core's source files as (module path, path below `src/`, text).
fn geo_core_modules() -> Vec<(Vec<String>, String, String)> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut out: Vec<_> = files
        .iter()
        .map(|f| {
            let rel = f.strip_prefix(&src).unwrap().to_string_lossy().replace('\\', "/");
            (module_of(&rel), rel, std::fs::read_to_string(f).unwrap())
        })
        .collect();
    out.sort();
    out
}

/// Why `path`, named in the engine or dialect module `module`, breaks the provider's import
/// rule (`None`: it keeps it).
fn provider_rule(module: &[String], path: &[String]) -> Option<String> {
    let is = |prefix: &[&str]| path.len() >= prefix.len() && prefix.iter().zip(path).all(|(a, b)| a == b);
    let engine = module.get(1).map(String::as_str) == Some("engines");
    let own_dialect = |p: &[String]| module.len() >= 3 && p.len() >= 3 && p[..3] == module[..3];
    let fine = LEAVES.iter().any(|leaf| is(leaf))
        || (engine && (is(&["provider", "wire"]) || is(&["provider", "dialect"])))
        || (!engine && is(&["provider", "dialect"]) && own_dialect(path))
        || path.starts_with(module);
    (!fine).then(|| format!("{} names {}", module.join("::"), path.join("::")))
}

/// The violations of the provider's import rule in `src`, the text of the module `module`.
fn provider_violations(module: &[String], src: &str) -> Vec<String> {
    let no_children = |_: &[String]| false;
    crate_paths(module, src, &no_children).iter().filter_map(|p| provider_rule(module, p)).collect()
}

fn module(path: &str) -> Vec<String> {
    path.split("::").map(str::to_string).collect()
}

/// The provider rule's scanner, fed planted violations in every spelling and the imports
/// the rule allows (issue 37: "see it fail on a planted violation").
#[test]
fn the_provider_import_scanner_sees_every_spelling() {
    let qwen = module("provider::engines::qwen");
    let chat = module("provider::dialect::chat");
    let turn = module("provider::dialect::messages::turn");
    for (m, bad) in [
        (&qwen, "use crate::provider::error::words::describe_engine_error;"),
        (&qwen, "use crate::provider::{spec::spec, endpoint::Endpoint};"),
        (&qwen, "use crate::provider::{error::{body::ProviderErrorBody, transport::network_error}};"),
        (&qwen, "use crate::provider::ParsedResponse;"),
        (&qwen, "use crate::provider::*;"),
        (&qwen, "use super::perplexity::content_text;"),
        (&qwen, "use super::super::interpret::EngineReply;"),
        (&qwen, "use crate::metrics::cost::price_for;"),
        (&qwen, "fn f() { let _ = crate::provider::engines::wire(x); }"),
        (&qwen, "fn f() -> String { crate::provider::endpoint::engine_path(e, m) }"),
        (&chat, "use crate::provider::dialect::responses::usage;"),
        (&chat, "use crate::provider::wire::Wire;"),
        (&chat, "use super::messages::request::HEADERS;"),
        (&turn, "use crate::provider::dialect::chat::content_text;"),
    ] {
        assert!(!provider_violations(m, bad).is_empty(), "not caught in {}: {bad}", m.join("::"));
    }
    for (m, fine) in [
        (&qwen, "use crate::provider::error::{body::ProviderErrorBody, kind::{self, OwnKind}};"),
        (&qwen, "use crate::provider::{parsed::ParsedResponse, read::str_field, spec::spec, wire::Wire};"),
        (&qwen, "use super::super::budget::row_for;\nuse crate::model::{EngineId, RunConfig};"),
        (&qwen, "use crate::provider::dialect::chat::{self, Take};\nuse serde_json::{Map, Value};"),
        (&qwen, "fn f() { crate::analysis::markers::ref_numbers(a) }"),
        (&qwen, "// use crate::provider::endpoint::Endpoint;\nconst S: &str = \"super::qwen\";"),
        (&qwen, "#[cfg(test)]\nmod tests {\n    use crate::provider::map_engine_http_error;\n}"),
        (&chat, "use crate::provider::read::count;\nuse crate::provider::spec::SYSTEM_PROMPT;"),
        (&turn, "use super::response::{Citations, Walk};\nuse crate::provider::parsed::ParsedResponse;"),
    ] {
        assert_eq!(provider_violations(m, fine), Vec::<String>::new(), "{fine}");
    }
}

/// **Architecture Invariant** (ARCHITECTURE.md, `provider/`): an engine or dialect module
/// imports only the spec, the parsed result, the JSON readers, an error body and its kinds, the
/// budget and the model ([`LEAVES`]); an engine also its `Wire` type and the dialects. So no
/// engine reaches the dispatcher, the shells' interface or another engine, and a tenth engine
/// is a file of its own.
#[test]
fn engines_and_dialects_import_only_the_leaves() {
    let mut checked = 0;
    let mut wrong = Vec::new();
    for (m, rel, src) in geo_core_modules() {
        let engine_or_dialect = rel.starts_with("provider/engines/") || rel.starts_with("provider/dialect/");
        if !engine_or_dialect || rel == "provider/engines/mod.rs" {
            continue;
        }
        checked += 1;
        wrong.extend(provider_violations(&m, &src).into_iter().map(|v| format!("{rel}: {v}")));
    }
    assert!(checked >= 14, "checked only {checked} engine and dialect files: the walk is broken");
    assert!(wrong.is_empty(), "an engine or dialect imports more than the leaves:\n{}", wrong.join("\n"));
}

/// The engine modules (the files of `provider/engines/` but its `mod.rs`).
fn engine_modules() -> Vec<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/provider/engines");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.strip_suffix(".rs").map(str::to_string))
        .filter(|n| n != "mod")
        .collect();
    names.sort();
    names
}

/// Only the table (`provider/engines/mod.rs`) names an engine module: everything else reaches
/// an engine by its id through `engines::wire`.
#[test]
fn only_the_table_names_the_engine_modules() {
    let engines = engine_modules();
    assert_eq!(engines.len(), geo_core::model::EngineId::ALL.len(), "one file per engine: {engines:?}");
    let modules: BTreeSet<Vec<String>> = geo_core_modules().into_iter().map(|(m, _, _)| m).collect();
    let children = |m: &[String]| modules.contains(m);
    let mut wrong = Vec::new();
    for (m, rel, src) in geo_core_modules() {
        if rel == "provider/engines/mod.rs" {
            continue;
        }
        for p in crate_paths(&m, &src, &children) {
            let named = p.len() >= 3 && p[0] == "provider" && p[1] == "engines" && engines.contains(&p[2]);
            if named && !p.starts_with(&m) {
                wrong.push(format!("{rel}: {}", p.join("::")));
            }
        }
    }
    assert!(wrong.is_empty(), "only provider/engines/mod.rs may name an engine module:\n{}", wrong.join("\n"));
    let planted = crate_paths(&module("provider"), "pub use engines::qwen::WIRE;", &children);
    assert_eq!(planted, [module("provider::engines::qwen::WIRE")], "the scanner sees a relative path");
}

/// Issue 37's measure of "provider as data": adding an engine touches its own file, the tables
/// and the fixtures. In geo-core's product code, an engine other than the seed's (`EngineId::
/// default()`, which the default run and the docs chat name) is named only by the enum itself
/// (`model/run.rs`), the rows of the tables — the spec (`provider/spec.rs`), the budget
/// (`provider/budget.rs`), the prices (`metrics/cost.rs`), the wire functions
/// (`provider/engines/mod.rs`) — and its own file. ARCHITECTURE.md ("Adding an engine") lists
/// the steps outside geo-core.
#[test]
fn an_engine_is_named_only_by_the_tables_and_its_own_file() {
    use geo_core::model::EngineId;
    const TABLES: &[&str] =
        &["model/run.rs", "provider/spec.rs", "provider/budget.rs", "metrics/cost.rs", "provider/engines/mod.rs"];
    let variant = |e: EngineId| format!("{e:?}");
    let mut wrong = Vec::new();
    let mut seen = 0;
    for (_, rel, src) in geo_core_modules() {
        let toks: Vec<String> = product_tokens(&src).1.into_iter().map(|(_, t)| t).collect();
        for e in EngineId::ALL.into_iter().filter(|e| *e != EngineId::default()) {
            let own = format!("provider/engines/{}.rs", e.as_str());
            let names = toks.windows(3).any(|w| w[0] == "EngineId" && w[1] == "::" && w[2] == variant(e));
            seen += usize::from(names);
            if names && !TABLES.contains(&rel.as_str()) && rel != own {
                wrong.push(format!("{rel} names EngineId::{}", variant(e)));
            }
        }
        if toks.windows(3).any(|w| w[0] == "EngineId" && w[1] == "::" && w[2] == "*") {
            wrong.push(format!("{rel} glob-imports EngineId's variants (they would hide from this count)"));
        }
    }
    assert!(seen >= 8 * 4, "saw the engines named only {seen} times: the scan is broken");
    assert!(wrong.is_empty(), "an engine is named outside the tables and its own file:\n{}", wrong.join("\n"));
}
