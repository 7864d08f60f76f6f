//! A crate's file-level import graph and its circles (code review 3 §1: "import circles").
//!
//! A file imports another when its product code (comments, literals and `#[cfg(test)]` items
//! left out) names something the other file defines: `crate::a::b::C`, `super::C`,
//! `self::c::D`, a child module's `c::D`, a name brought in by a `use` (`use crate::a; a::f()`),
//! every item of a grouped `use` tree. A name a facade re-exports (`pub use inner::C;` in
//! `a/mod.rs`, or `pub use inner::*;` when `inner` defines `C`) counts as its defining file's,
//! not the facade's: importing `crate::a::C` does not import the facade's other names. And the
//! facade's `pub use inner::C;` is no import of `inner` by the facade unless its own code says
//! `C`: it passes the name on. Declaring a child module (`mod c;`) is not an import either.
//!
//! A circle is a strongly connected component of two files or more; a file naming itself is
//! not one.

use super::{is_segment, module_of, product_tokens, root, rust_files};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;

/// A module path from the crate root (`["provider", "spec"]`; the root is empty).
type Module = Vec<String>;

/// The items of the use tree or path whose first segment is `toks[i]`, each with the name it
/// binds: `a::b::{c, d::e as f, self}` → (`a::b::c`, `c`), (`a::b::d::e`, `f`), (`a::b`, `b`);
/// a glob binds `*`. Returns them and the index after the tree.
pub(super) fn use_items(toks: &[&str], mut i: usize) -> (Vec<(Vec<String>, String)>, usize) {
    let mut prefix: Vec<String> = Vec::new();
    loop {
        match toks.get(i).copied() {
            Some("{") => {
                let mut out = Vec::new();
                i += 1;
                while let Some(&t) = toks.get(i) {
                    match t {
                        "}" => {
                            i += 1;
                            break;
                        }
                        "," => i += 1,
                        _ => {
                            let (subs, next) = use_items(toks, i);
                            for (sub, name) in subs {
                                let mut path: Vec<String> = prefix.iter().cloned().chain(sub).collect();
                                let mut name = name;
                                if path.last().map(String::as_str) == Some("self") {
                                    path.pop();
                                    if name == "self" {
                                        name = path.last().cloned().unwrap_or_default();
                                    }
                                }
                                out.push((path, name));
                            }
                            // Past anything the item's tree did not read, to the next item.
                            i = next.max(i + 1);
                            while !matches!(toks.get(i).copied(), Some("," | "}") | None) {
                                i += 1;
                            }
                        }
                    }
                }
                return (out, i);
            }
            Some(t) if is_segment(t) => {
                prefix.push(t.to_string());
                i += 1;
                if toks.get(i) == Some(&"::") {
                    i += 1;
                    continue;
                }
                let mut name = t.to_string();
                if toks.get(i) == Some(&"as") {
                    name = toks.get(i + 1).map_or(name, |n| n.to_string());
                    i += 2;
                }
                return (vec![(prefix, name)], i);
            }
            _ => {
                let name = prefix.last().cloned().unwrap_or_default();
                return (vec![(prefix, name)], i);
            }
        }
    }
}

/// A path as written in one module of a file.
struct Named {
    /// The module it is written in (the file's, or an inline `mod x { … }` in it).
    scope: Module,
    /// Its segments as written.
    path: Vec<String>,
    /// From a `use` declaration: the name it binds (`*` for a glob).
    binds: Option<String>,
    /// A `pub use` whose name the file's own code never says: a re-export only, which passes
    /// the name on without importing it.
    passes_on: bool,
}

/// What one file says: its modules (its own and its inline ones), the names each defines, and
/// every path it writes.
struct Scan {
    modules: Vec<Module>,
    defines: Vec<(Module, String)>,
    named: Vec<Named>,
}

/// Keywords after which an item's name follows.
const ITEM_KEYWORDS: &[&str] = &["fn", "struct", "enum", "trait", "type", "union", "static", "const"];

/// Scans one file, the module `module`.
fn scan(module: &[String], src: &str) -> Scan {
    let (_, all) = product_tokens(src);
    let toks: Vec<&str> = all.iter().map(|(_, t)| t.as_str()).collect();
    let mut out = Scan { modules: vec![module.to_vec()], defines: Vec::new(), named: Vec::new() };
    // The modules open at this token, innermost last, with the brace depth of their items.
    let mut scopes: Vec<(Module, usize)> = vec![(module.to_vec(), 0)];
    let mut depth = 0usize;
    // Every token of the file outside its `use` declarations.
    let mut said: HashSet<&str> = HashSet::new();
    let mut k = 0;
    while k < toks.len() {
        let t = toks[k];
        let (scope, items_at) = scopes.last().cloned().expect("the file's own module is never closed");
        let prev = if k == 0 { "" } else { toks[k - 1] };
        match t {
            "{" => depth += 1,
            "}" => {
                depth = depth.saturating_sub(1);
                if scopes.len() > 1 && depth < items_at {
                    scopes.pop();
                }
            }
            "mod" if toks.get(k + 2) == Some(&"{") && depth == items_at => {
                let inner = [scope.as_slice(), &[toks[k + 1].to_string()]].concat();
                out.modules.push(inner.clone());
                scopes.push((inner, depth + 1));
            }
            "use" if toks.get(k + 1).is_some_and(|n| is_segment(n)) => {
                let (items, next) = use_items(&toks, k + 1);
                // `pub use`, `pub(crate) use`, `pub(super) use`.
                let public = prev == "pub" || (prev == ")" && toks[..k].iter().rev().nth(3) == Some(&"pub"));
                for (path, name) in items {
                    out.named.push(Named { scope: scope.clone(), path, binds: Some(name), passes_on: public });
                }
                k = next;
                continue;
            }
            _ if ITEM_KEYWORDS.contains(&t) && depth == items_at => {
                let name = toks.get(k + 1).copied().unwrap_or("");
                if is_segment(name) && !["fn", "_"].contains(&name) {
                    out.defines.push((scope.clone(), name.to_string()));
                }
            }
            _ if is_segment(t) && toks.get(k + 1) == Some(&"::") && prev != "::" => {
                for (path, _) in use_items(&toks, k).0 {
                    out.named.push(Named { scope: scope.clone(), path, binds: None, passes_on: false });
                }
            }
            _ => {}
        }
        said.insert(t);
        k += 1;
    }
    for named in &mut out.named {
        named.passes_on &= named.binds.as_deref().is_some_and(|name| name == "*" || !said.contains(name));
    }
    out
}

/// A crate: which file holds each module, and what each module defines and binds.
struct Crate {
    file_of: HashMap<Module, String>,
    defines: HashSet<(Module, String)>,
    /// `use` bindings: (module, name) → the path as written there.
    uses: HashMap<(Module, String), Vec<String>>,
    /// Glob imports: module → the paths as written there.
    globs: HashMap<Module, Vec<Vec<String>>>,
}

/// How deep alias and re-export chains are followed (a chain longer than this is a cycle of
/// `use`s, which rustc rejects anyway).
const MAX_HOPS: usize = 16;

impl Crate {
    /// `path`, written in module `scope`, as a path from the crate root; `None` for a path into
    /// another crate or to a local item.
    fn absolute(&self, scope: &[String], path: &[String], hops: usize) -> Option<Vec<String>> {
        let first = path.first()?.as_str();
        let (base, rest): (Vec<String>, &[String]) = match first {
            "crate" => (Vec::new(), &path[1..]),
            "self" | "super" => {
                let mut base = scope.to_vec();
                let mut i = 0;
                while let Some(step) = path.get(i).map(String::as_str).filter(|s| ["self", "super"].contains(s)) {
                    if step == "super" {
                        base.pop()?;
                    }
                    i += 1;
                }
                (base, &path[i..])
            }
            _ if self.file_of.contains_key(&[scope, &path[..1]].concat()) => (scope.to_vec(), path),
            _ if hops < MAX_HOPS => {
                let target = self.uses.get(&(scope.to_vec(), first.to_string()))?;
                if target.as_slice() == path {
                    return None;
                }
                (self.absolute(scope, target, hops + 1)?, &path[1..])
            }
            _ => return None,
        };
        Some(base.into_iter().chain(rest.iter().cloned()).collect())
    }

    /// The file that defines what the crate path `path` names: the deepest module of `path`
    /// with a file, unless that module only re-exports the next segment (by name or through a
    /// glob of a module that defines or re-exports it): then the file behind the re-export.
    /// `None` when `path` is a module itself (naming a module is not importing its items).
    fn defining_file(&self, path: &[String], hops: usize) -> Option<String> {
        let n = (0..=path.len()).rev().find(|&n| self.file_of.contains_key(&path[..n]))?;
        if n == path.len() {
            // A module, unless its parent also binds an item of the same name (`pub use
            // spec::spec;` makes `provider::spec` the function too).
            let (parent, name) = path.split_at(n.checked_sub(1)?);
            let parent = parent.to_vec();
            return (hops < MAX_HOPS && self.uses.contains_key(&(parent.clone(), name[0].clone())))
                .then(|| self.through_use(&parent, &name[0], &[], hops))
                .flatten();
        }
        let (module, name, rest) = (&path[..n], &path[n], &path[n + 1..]);
        let own = self.file_of.get(module).cloned();
        if self.defines.contains(&(module.to_vec(), name.clone())) || hops >= MAX_HOPS {
            return own;
        }
        if self.uses.contains_key(&(module.to_vec(), name.clone())) {
            return self.through_use(module, name, rest, hops).or(own);
        }
        for glob in self.globs.get(module).into_iter().flatten() {
            let Some(base) = self.absolute(module, glob, hops + 1) else { continue };
            let key = (base.clone(), name.clone());
            if self.file_of.contains_key(&base) && (self.defines.contains(&key) || self.uses.contains_key(&key)) {
                let through: Vec<String> = base.into_iter().chain([name.clone()]).chain(rest.iter().cloned()).collect();
                return self.defining_file(&through, hops + 1).or(own);
            }
        }
        own
    }

    /// The file behind `module`'s `use` binding of `name`, followed by `rest`.
    fn through_use(&self, module: &[String], name: &str, rest: &[String], hops: usize) -> Option<String> {
        let written = self.uses.get(&(module.to_vec(), name.to_string()))?;
        let target = self.absolute(module, written, hops + 1)?;
        let full: Vec<String> = target.into_iter().chain(rest.iter().cloned()).collect();
        self.defining_file(&full, hops + 1)
    }
}

/// A crate's import graph: each file, the files it imports and, for each, the first path that
/// imports it (as written, `::`-joined).
pub(super) type Graph = BTreeMap<String, BTreeMap<String, String>>;

/// The import graph of a crate given as its files (path below `src/`, text). The crate root is
/// `lib.rs` or `main.rs`.
pub(super) fn import_graph(files: &[(String, String)]) -> Graph {
    let mut krate =
        Crate { file_of: HashMap::new(), defines: HashSet::new(), uses: HashMap::new(), globs: HashMap::new() };
    let mut scans = Vec::new();
    for (rel, src) in files {
        let s = scan(&module_of(rel), src);
        for m in &s.modules {
            krate.file_of.insert(m.clone(), rel.clone());
        }
        krate.defines.extend(s.defines.iter().cloned());
        for named in &s.named {
            match named.binds.as_deref() {
                Some("*") => {
                    let base = named.path[..named.path.len().saturating_sub(1)].to_vec();
                    krate.globs.entry(named.scope.clone()).or_default().push(base);
                }
                Some(name) => {
                    krate.uses.entry((named.scope.clone(), name.to_string())).or_insert_with(|| named.path.clone());
                }
                None => {}
            }
        }
        scans.push((rel.clone(), s));
    }
    let mut graph = Graph::new();
    for (rel, s) in &scans {
        let edges = graph.entry(rel.clone()).or_default();
        for named in s.named.iter().filter(|n| !n.passes_on) {
            let mut path = named.path.clone();
            if named.binds.as_deref() == Some("*") {
                path.pop();
            }
            let Some(absolute) = krate.absolute(&named.scope, &path, 0) else { continue };
            let to = if named.binds.as_deref() == Some("*") {
                krate.file_of.get(&absolute).cloned()
            } else {
                krate.defining_file(&absolute, 0)
            };
            if let Some(to) = to.filter(|to| to != rel) {
                edges.entry(to).or_insert_with(|| named.path.join("::"));
            }
        }
    }
    graph
}

/// The strongly connected components of `graph` with two files or more, each sorted, in
/// order (Tarjan's algorithm).
pub(super) fn circles(graph: &Graph) -> Vec<Vec<String>> {
    struct Tarjan<'a> {
        graph: &'a Graph,
        index: HashMap<&'a str, usize>,
        low: HashMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: HashSet<&'a str>,
        out: Vec<Vec<String>>,
    }
    impl<'a> Tarjan<'a> {
        fn visit(&mut self, v: &'a str) {
            let i = self.index.len();
            self.index.insert(v, i);
            self.low.insert(v, i);
            self.stack.push(v);
            self.on_stack.insert(v);
            for w in self.graph.get(v).into_iter().flat_map(BTreeMap::keys) {
                let w = w.as_str();
                if !self.index.contains_key(w) {
                    self.visit(w);
                    self.low.insert(v, self.low[v].min(self.low[w]));
                } else if self.on_stack.contains(w) {
                    self.low.insert(v, self.low[v].min(self.index[w]));
                }
            }
            if self.low[v] == self.index[v] {
                let mut component = Vec::new();
                while let Some(w) = self.stack.pop() {
                    self.on_stack.remove(w);
                    component.push(w.to_string());
                    if w == v {
                        break;
                    }
                }
                if component.len() > 1 {
                    component.sort();
                    self.out.push(component);
                }
            }
        }
    }
    let mut t = Tarjan {
        graph,
        index: HashMap::new(),
        low: HashMap::new(),
        stack: Vec::new(),
        on_stack: HashSet::new(),
        out: Vec::new(),
    };
    for v in graph.keys() {
        if !t.index.contains_key(v.as_str()) {
            t.visit(v);
        }
    }
    t.out.sort();
    t.out
}

/// The files of the crate whose source directory is `src` (path below `src/`, text). A crate
/// with a `lib.rs` leaves out `main.rs` and `bin/`: those are other crates.
pub(super) fn crate_files(src: &Path) -> Vec<(String, String)> {
    let mut paths = Vec::new();
    rust_files(src, &mut paths);
    let library = src.join("lib.rs").exists();
    let mut out: Vec<(String, String)> = paths
        .iter()
        .map(|f| (f.strip_prefix(src).unwrap().to_string_lossy().replace('\\', "/"), f))
        .filter(|(rel, _)| !library || (rel != "main.rs" && !rel.starts_with("bin/")))
        .map(|(rel, f)| (rel, std::fs::read_to_string(f).unwrap()))
        .collect();
    out.sort();
    out
}

/// The import circles of the crate whose source directory is `src`, with its graph.
pub(super) fn import_circles(src: &Path) -> (Vec<Vec<String>>, Graph) {
    let graph = import_graph(&crate_files(src));
    (circles(&graph), graph)
}

/// The import graph of the little crate `files` (path below `src/`, text), as `from → to` lines.
fn edges_of(files: &[(&str, &str)]) -> Vec<String> {
    let files: Vec<(String, String)> = files.iter().map(|(p, s)| (p.to_string(), s.to_string())).collect();
    import_graph(&files).iter().flat_map(|(from, to)| to.keys().map(move |t| format!("{from} → {t}"))).collect()
}

/// The scanner resolves every spelling of a path to the file that defines what it names
/// (issue 37: "see it fail on a planted violation"), and reads no comment, literal or test.
#[test]
fn the_import_scanner_sees_every_spelling_and_resolves_re_exports() {
    /// The files of `b.rs`'s crate: a facade `a` re-exporting by name and by glob, a module `c`
    /// with a child.
    const CRATE: &[(&str, &str)] = &[
        ("lib.rs", "//! root\npub mod a;\npub mod b;\npub mod c;\n"),
        ("a/mod.rs", "//! a\npub mod inner;\npub mod deep;\npub use inner::Inner;\npub use deep::*;\npub struct A;\n"),
        ("a/inner.rs", "//! a::inner\npub struct Inner;\npub fn helper() {}\n"),
        ("a/deep.rs", "//! a::deep\npub struct Deep;\n"),
        ("c/mod.rs", "//! c\npub mod child;\npub fn c() {}\n"),
        ("c/child.rs", "//! c::child\npub fn f() {}\n"),
    ];
    #[track_caller]
    fn check(b: &str, expect: &[&str]) {
        let mut files = CRATE.to_vec();
        files.push(("b.rs", b));
        let from_b: Vec<String> =
            edges_of(&files).into_iter().filter_map(|e| e.strip_prefix("b.rs → ").map(str::to_string)).collect();
        assert_eq!(from_b, expect, "{b}");
    }
    // Every spelling of an import.
    check("use crate::a::A;", &["a/mod.rs"]);
    check("use crate::a::inner::Inner;", &["a/inner.rs"]);
    check("use crate::a::{A, inner::helper};", &["a/inner.rs", "a/mod.rs"]);
    check("use crate::{a::{self, inner::{helper as h}}, c::child};", &["a/inner.rs"]);
    check("use super::a::A;", &["a/mod.rs"]);
    check("use self::super::c::c;", &["c/mod.rs"]);
    check("fn f() { crate::c::child::f(); }", &["c/child.rs"]);
    check("fn f() { crate :: c :: child :: f(); }", &["c/child.rs"]);
    check("fn f() -> crate::a::A { todo!() }", &["a/mod.rs"]);
    check("use crate::c;\nfn f() { c::child::f(); }", &["c/child.rs"]);
    check("use crate::c::child as kid;\nfn f() { kid::f(); }", &["c/child.rs"]);
    check("pub use crate::a::A;\nfn f(_: A) {}", &["a/mod.rs"]);
    check("mod inline {\n    use super::super::a::A;\n}", &["a/mod.rs"]);
    check("mod inline {\n    fn f() { crate::c::c(); }\n}", &["c/mod.rs"]);
    // A name the facade re-exports is its defining file's, by name or through a glob.
    check("use crate::a::Inner;", &["a/inner.rs"]);
    check("use crate::a::{Inner, Deep};", &["a/deep.rs", "a/inner.rs"]);
    check("fn f() -> crate::a::Deep { todo!() }", &["a/deep.rs"]);
    // What is no import: another crate, a module alone, a re-export only, comments, literals, tests.
    check("use std::fmt;\nuse serde::Serialize;\nfn f() { fmt::Debug; }", &[]);
    check("use crate::a;\nuse crate::c::{self};", &[]);
    check("pub use crate::a::A;\npub(crate) use crate::c::child::f;", &[]);
    check("// use crate::a::A;\n/* crate::c::c() */\n/// crate::a::A\nfn f() {}", &[]);
    check("const S: &str = \"crate::a::A\";\nconst R: &str = r#\"use crate::c::c;\"#;", &[]);
    check("#[cfg(test)]\nmod tests {\n    use crate::a::A;\n}", &[]);
    check("#[cfg(test)]\nfn t() { crate::c::c(); }", &[]);
}

#[test]
fn circles_are_strongly_connected_components_of_two_files_or_more() {
    let files = [
        ("lib.rs", "//! root\nmod x;\nmod y;\nmod z;\nmod w;\nmod solo;\n"),
        ("x.rs", "//! x\nuse crate::y::Y;\npub struct X;\n"),
        ("y.rs", "//! y\nuse crate::z::Z;\npub struct Y;\n"),
        ("z.rs", "//! z\nuse crate::x::X;\npub struct Z;\n"),
        ("w.rs", "//! w\nuse crate::x::X;\n"),
        ("solo.rs", "//! solo, naming itself\npub struct S;\nfn f() -> crate::solo::S { S }\n"),
    ];
    let files: Vec<(String, String)> = files.iter().map(|(p, s)| (p.to_string(), s.to_string())).collect();
    let graph = import_graph(&files);
    assert_eq!(circles(&graph), [["x.rs", "y.rs", "z.rs"]]);
    assert!(graph["solo.rs"].is_empty(), "a file naming itself is no edge");
    let two = [
        ("lib.rs", "//! root\nmod p;\nmod q;\n"),
        ("p.rs", "//! p\nuse crate::q::f;\n"),
        ("q.rs", "//! q\nfn g() { crate::p::h(); }\n"),
    ];
    let two: Vec<(String, String)> = two.iter().map(|(p, s)| (p.to_string(), s.to_string())).collect();
    assert_eq!(circles(&import_graph(&two)), [["p.rs", "q.rs"]]);
}

/// A circle a crate may still have, while the move that closes it is in flight: its files (as
/// [`circles`] lists them) and that move.
type KnownCircle = (&'static [&'static str], &'static str);

/// Checks the crate whose source directory is `src` (below the workspace root): every circle it
/// has must be one of `known`, exactly, and every one of `known` must still be there (a circle
/// closed is deleted from the list). The message shows each circle's imports, with the path that
/// makes each one.
fn check_circles(src: &str, known: &[KnownCircle]) -> Result<(), String> {
    let (found, graph) = import_circles(&root().join(src));
    let edges: usize = graph.values().map(BTreeMap::len).sum();
    if edges < 20 {
        return Err(format!("{src}: found only {edges} imports: the scanner is broken"));
    }
    let mut wrong = Vec::new();
    for circle in &found {
        if !known.iter().any(|(files, _)| files.iter().eq(circle.iter())) {
            let imports = circle.iter().flat_map(|from| {
                graph[from]
                    .iter()
                    .filter(|(to, _)| circle.contains(to))
                    .map(move |(to, path)| format!("    {from} → {to} ({path})"))
            });
            wrong.push(format!("a circle of {} files:\n{}", circle.len(), imports.collect::<Vec<_>>().join("\n")));
        }
    }
    for (files, why) in known {
        if !found.iter().any(|circle| files.iter().eq(circle.iter())) {
            wrong.push(format!("the known circle {files:?} is gone ({why}): delete it from the list"));
        }
    }
    if wrong.is_empty() {
        Ok(())
    } else {
        Err(format!("{src}:\n{}", wrong.join("\n")))
    }
}

/// **Architecture Invariant** (code review 3 §1, issue 37): no file of geo-core is in an import
/// circle. The layers can be read off the import graph: a leaf imports nothing that imports it
/// back, a facade passes names on without importing them, and a module that composes its
/// children holds no vocabulary they need.
#[test]
fn no_geo_core_file_is_in_an_import_circle() {
    if let Err(why) = check_circles("crates/geo-core/src", &[]) {
        panic!("geo-core has import circles (move what both sides need into a file of its own):\n{why}");
    }
}

/// The same for geo-web and xtask (issue 37: geo-web's `routes.rs` and header components,
/// xtask's `sys.rs`): no file imports another that imports it back.
#[test]
fn no_geo_web_or_xtask_file_is_in_an_import_circle() {
    for src in ["crates/geo-web/src", "xtask/src"] {
        if let Err(why) = check_circles(src, &[]) {
            panic!("{src} has import circles (move what both sides need into a file of its own):\n{why}");
        }
    }
}

/// The scanner reads a crate whose root is a `lib.rs` (geo-web) or a `main.rs` (xtask).
#[test]
fn the_import_graphs_of_geo_web_and_xtask_are_read() {
    for (src, crate_root, child) in [("crates/geo-web/src", "lib.rs", "i18n.rs"), ("xtask/src", "main.rs", "test.rs")] {
        let (_, graph) = import_circles(&root().join(src));
        assert!(graph.contains_key(crate_root), "{src}: no {crate_root}");
        let edges: usize = graph.values().map(BTreeMap::len).sum();
        assert!(edges >= 20, "{src}: found only {edges} imports: the scanner is broken");
        let into_child = graph.values().filter(|to| to.contains_key(child)).count();
        assert!(into_child > 0, "{src}: nothing imports {child}: the scanner is broken");
    }
}
