//! `cargo xtask dist [--base-path /geo-probe/] [--dev]`: the static site in `dist/`.
//!
//! Steps: make sure the wasm32 target is installed (rustup does not auto-install here),
//! build `geo-web` for wasm32 with the size-tuned `wasm-release` profile (`dev` with
//! `--dev`), generate the JS glue in-process with `wasm-bindgen-cli-support` (pinned to the
//! exact `wasm-bindgen` of Cargo.lock), shrink with `wasm-opt` (npm's binaryen, installed by
//! `npm ci` in `xtask/e2e` on a fresh checkout; one on `PATH` otherwise),
//! then write `dist/` with content-hashed names (the import worker's script among them),
//! the `<base href>`, the CSP and a `404.html` copy for GitHub Pages deep links, the demo
//! export and the Docs chat's sample documents (`samples/`, fetched on demand), and print
//! raw and gzip sizes: per file, then per entry (what a page of the site loads before it
//! can run: its wasm, JS and CSS; one entry today, the app, which loads all of it).

use anyhow::{bail, Context, Result};
use flate2::write::GzEncoder;
use flate2::Compression;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::demo_fingerprint;
use crate::entries;
use crate::npm::ensure_npm_packages;
use crate::sys::{run_cmd, which, workspace_root};

/// Content-Security-Policy of the app: own scripts, wasm and workers only (the import
/// worker), one inline script (`PRELOAD_SCRIPT`, by its hash), no third-party code, network to any https API (DeepSeek or a proxy) and to
/// loopback mocks.
pub const CSP: &str = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval' \
'sha256-VTlquHx4DDwHSl3L//DhH+2A5Bd/oSavUm0/TORt9rg='; style-src 'self' 'unsafe-inline'; connect-src 'self' https: http://127.0.0.1:* http://localhost:*; \
img-src 'self' data:; worker-src 'self'; object-src 'none'; base-uri 'self'; form-action 'self'";

/// Options of a dist build.
#[derive(Debug, Clone)]
pub struct DistOptions {
    /// Site path prefix with leading and trailing slash (`/` or `/geo-probe/`).
    pub base_path: String,
    /// Debug build without wasm-opt (faster, larger).
    pub dev: bool,
    /// `wasm-opt --converge` on top of `-Oz`: 2.7 KB less for about 2.6 times the time (ADR
    /// 0014, step 9; ADR 0021). The browser tests build without it: same behaviour, sooner.
    pub converge: bool,
}

impl Default for DistOptions {
    fn default() -> Self {
        DistOptions { base_path: "/".into(), dev: false, converge: true }
    }
}

/// One file of the bundle and its sizes.
#[derive(Debug, Clone)]
pub struct SizeRow {
    /// File name in dist/.
    pub name: String,
    /// Bytes on disk.
    pub raw: u64,
    /// Bytes after gzip -9.
    pub gzip: u64,
}

/// `/geo-probe` / `geo-probe/` / `` → `/geo-probe/` / `/geo-probe/` / `/`.
pub fn normalize_base_path(input: &str) -> Result<String> {
    let trimmed = input.trim().trim_matches('/');
    if trimmed.contains(['"', '<', '>', ' ', '?', '#', '\\']) {
        bail!("invalid --base-path {input:?}: use a plain path such as /geo-probe/");
    }
    Ok(if trimmed.is_empty() { "/".into() } else { format!("/{trimmed}/") })
}

fn parse_args(args: &[String]) -> Result<DistOptions> {
    let mut opts = DistOptions::default();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--dev" => opts.dev = true,
            "--base-path" => {
                let v = it.next().context("--base-path needs a value such as /geo-probe/")?;
                opts.base_path = normalize_base_path(v)?;
            }
            s if s.starts_with("--base-path=") => opts.base_path = normalize_base_path(&s["--base-path=".len()..])?,
            other => bail!("unknown dist option {other:?}: use --base-path PATH and/or --dev"),
        }
    }
    Ok(opts)
}

/// Entry point of `cargo xtask dist`.
pub fn run(args: &[String]) -> Result<()> {
    let opts = parse_args(args)?;
    build(&opts)?;
    Ok(())
}

/// Makes sure `rustup` has the wasm32 target (a no-op when it is there or rustup is absent).
pub fn ensure_wasm_target() -> Result<()> {
    let listed = Command::new("rustup").args(["target", "list", "--installed"]).output();
    match listed {
        Ok(out) if String::from_utf8_lossy(&out.stdout).lines().any(|l| l.trim() == "wasm32-unknown-unknown") => Ok(()),
        Ok(_) => run_cmd(Command::new("rustup").args(["target", "add", "wasm32-unknown-unknown"])),
        Err(_) => {
            eprintln!("xtask: rustup not found; assuming the wasm32-unknown-unknown target is installed");
            Ok(())
        }
    }
}

fn target_dir(root: &Path) -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR").map(PathBuf::from).unwrap_or_else(|| root.join("target"))
}

/// Builds the library of `package` for wasm32 (profile `wasm-release`, or `dev`) with the
/// feature arguments `features` and returns the path of its module. Cargo writes every
/// feature set's module to the same path: read it before the next build.
fn build_wasm(root: &Path, package: &str, dev: bool, features: &[&str]) -> Result<PathBuf> {
    ensure_wasm_target()?;
    let profile = if dev { "dev" } else { "wasm-release" };
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    run_cmd(
        Command::new(&cargo)
            .current_dir(root)
            .args(["build", "-p", package, "--lib", "--target", "wasm32-unknown-unknown", "--profile", profile])
            .args(features),
    )?;
    let profile_dir = if dev { "debug" } else { profile };
    let file = format!("{}.wasm", package.replace('-', "_"));
    Ok(target_dir(root).join("wasm32-unknown-unknown").join(profile_dir).join(file))
}

/// The stem of an entry's files in `dist/`: `geo_web` for the app entry (its names of before
/// the split), `geo_web_<name>` for a reduced one.
fn entry_stem(name: &str) -> String {
    if name == entries::APP {
        "geo_web".into()
    } else {
        format!("geo_web_{name}")
    }
}

/// One entry's files once built: its name, the JS glue and the wasm module in `dist/`.
#[derive(Debug, Clone, PartialEq)]
pub struct BuiltEntry {
    /// The entry's name (`crate::entries` of geo-web).
    pub name: &'static str,
    /// Its JS glue's file name.
    pub glue: String,
    /// Its wasm module's file name.
    pub wasm: String,
}

/// Builds each entry of `geo-web` (`entries::ENTRIES`: one `cargo build` per feature set),
/// runs wasm-bindgen on it at once (the next build overwrites the module), and shrinks it
/// (wasm-opt, terser) on a thread while the next entry builds; returns the staged glue and
/// module of each entry, in build order. The app entry is built first: its `wasm-opt` is the
/// longest, and runs beside the other entries' builds.
fn build_entries(root: &Path, dev: bool, converge: bool) -> Result<Vec<(&'static str, PathBuf, PathBuf)>> {
    let mut staged = Vec::new();
    let mut shrinking = Vec::new();
    let mut order: Vec<&entries::Entry> = entries::ENTRIES.iter().collect();
    order.sort_by_key(|e| e.name != entries::APP);
    for entry in order {
        let started = std::time::Instant::now();
        let wasm_in = build_wasm(root, "geo-web", dev, entry.cargo_args)?;
        eprintln!("xtask: entry {}: cargo build {:.0} s", entry.name, started.elapsed().as_secs_f64());
        let (glue, wasm) = bindgen(root, &wasm_in, &format!("xtask-dist-{}", entry.name), dev)?;
        if !dev {
            let (root, glue, wasm, name) = (root.to_path_buf(), glue.clone(), wasm.clone(), entry.name);
            shrinking.push(std::thread::spawn(move || -> Result<()> {
                let started = std::time::Instant::now();
                optimize_wasm(&root, &wasm, converge)?;
                minify_glue(&root, &glue)?;
                eprintln!("xtask: entry {name}: wasm-opt and terser {:.0} s", started.elapsed().as_secs_f64());
                Ok(())
            }));
        }
        staged.push((entry.name, glue, wasm));
    }
    for t in shrinking {
        t.join().map_err(|_| anyhow::anyhow!("shrinking an entry panicked"))??;
    }
    Ok(staged)
}

/// Builds everything into `dist/` and returns the size table.
pub fn build(opts: &DistOptions) -> Result<Vec<SizeRow>> {
    let started = std::time::Instant::now();
    let root = workspace_root();
    let staged = build_entries(&root, opts.dev, opts.converge)?;

    let dist = root.join("dist");
    if dist.exists() {
        fs::remove_dir_all(&dist).with_context(|| format!("cannot empty {}", dist.display()))?;
    }
    fs::create_dir_all(&dist)?;

    let web = root.join("web");
    let mut built = Vec::new();
    for (name, glue_path, wasm_path) in &staged {
        let glue = fs::read(glue_path)?;
        let wasm = fs::read(wasm_path)?;
        let stem = entry_stem(name);
        let entry =
            BuiltEntry { name, glue: hashed(&stem, "js", &glue), wasm: hashed(&format!("{stem}_bg"), "wasm", &wasm) };
        fs::write(dist.join(&entry.glue), &glue)?;
        fs::write(dist.join(&entry.wasm), &wasm)?;
        built.push(entry);
    }
    let app = built.iter().find(|e| e.name == entries::APP).context("the entries table has no app entry")?;
    let css = fs::read_to_string(web.join("styles.css")).context("web/styles.css is missing")?;
    let css = if opts.dev { css } else { minify_css(&css) }.into_bytes();
    let css_name = hashed("styles", "css", &css);
    // The import worker runs the app entry: its pages are the ones that import.
    let worker = import_worker_script(&app.glue);
    let worker_name = hashed("import-worker", "js", worker.as_bytes());
    let boot = boot_script(&built, &worker_name);
    let boot_name = hashed("boot", "js", boot.as_bytes());
    fs::write(dist.join(&worker_name), &worker)?;
    fs::write(dist.join(&css_name), &css)?;
    fs::write(dist.join(&boot_name), &boot)?;

    let demo = root.join("demo");
    if demo.is_dir() {
        copy_dir(&demo, &dist.join("demo"))?;
    }
    // The fingerprint of the demo file just copied: the app accepts the demo's first view
    // when it names the same one, before the demo file has come (ADR 0024).
    let demo_meta = demo_meta(&dist);
    let template = fs::read_to_string(web.join("index.html")).context("web/index.html is missing")?;
    // GitHub Pages answers the root with index.html and every deep link with 404.html: each
    // preloads the entry its path needs, index.html by links (the root's entry), 404.html by a
    // script that reads the path (the chat's or the app's entry; `cargo xtask serve` answers
    // the same way).
    let root_entry =
        built.iter().find(|e| e.name == entries::entry_for_path("/")).context("an entry of the table was not built")?;
    for (page, preload) in [("index.html", preload_links(root_entry)), ("404.html", preload_by_path(&built))] {
        let html = page_html(&template, opts, &css_name, &boot_name, &preload, &demo_meta)?;
        fs::write(dist.join(page), &html)?;
    }
    fs::write(dist.join(".nojekyll"), "")?;
    for entry in fs::read_dir(&web)? {
        let entry = entry?;
        let name = entry.file_name().to_string_lossy().to_string();
        if entry.file_type()?.is_file() && name != "index.html" && name != "styles.css" {
            fs::copy(entry.path(), dist.join(&name))?;
        }
    }
    // The Docs chat's sample documents, fetched by the page on demand (geo-web
    // `chat::samples`): every Markdown file of `fixtures/chat/`.
    let samples = dist.join("samples");
    fs::create_dir_all(&samples)?;
    for entry in fs::read_dir(root.join("fixtures/chat")).context("fixtures/chat is missing")? {
        let path = entry?.path();
        if path.extension().is_some_and(|e| e == "md") {
            fs::copy(&path, samples.join(path.file_name().context("a sample has no file name")?))?;
        }
    }

    let mut rows = Vec::new();
    let mut names: Vec<String> = built.iter().flat_map(|e| [e.wasm.clone(), e.glue.clone()]).collect();
    names.extend([css_name.clone(), boot_name.clone(), worker_name.clone(), "index.html".into(), "404.html".into()]);
    for name in &names {
        let bytes = fs::read(dist.join(name))?;
        rows.push(SizeRow { name: name.clone(), raw: bytes.len() as u64, gzip: gzip_len(&bytes)? });
    }
    print_sizes(&rows, &dist);
    // What a page load of each entry fetches before it runs: its wasm and glue, the boot
    // script and the CSS; the app entry's import worker script too (it starts the same glue
    // and module).
    let table: Vec<Entry> = built
        .iter()
        .map(|e| {
            let mut files = vec![&e.wasm, &e.glue, &boot_name, &css_name];
            if e.name == entries::APP {
                files.push(&worker_name);
            }
            let row = entries::ENTRIES.iter().find(|d| d.name == e.name);
            let mut paths = match row.map(|d| d.paths) {
                Some([]) | None => "every other path".to_string(),
                Some(paths) => paths.join(" "),
            };
            if row.is_some_and(|d| d.own_document) {
                paths.push_str("; own document");
            }
            Entry {
                name: format!("{} ({paths})", e.name),
                files: rows.iter().filter(|r| files.contains(&&r.name)).cloned().collect(),
            }
        })
        .collect();
    print!("{}", entry_table(&table));
    println!("dist built in {:.0} s", started.elapsed().as_secs_f64());
    Ok(rows)
}

/// The `<meta>` that names the fingerprint of `dist/demo/demo-data.json` (geo-web's
/// `demo_fingerprint`), or nothing when the site has no demo file: the app then checks the
/// demo's first view against the demo file once it has fetched it. The fingerprint is of the
/// text the app's `fetch` reads (`Response.text()`: UTF-8, a byte order mark dropped).
fn demo_meta(dist: &Path) -> String {
    match fs::read_to_string(dist.join("demo/demo-data.json")) {
        Ok(text) => format!(
            "<meta name=\"{}\" content=\"{}\">",
            demo_fingerprint::META_NAME,
            demo_fingerprint::fingerprint(text.strip_prefix('\u{feff}').unwrap_or(&text))
        ),
        Err(_) => String::new(),
    }
}

/// `web/index.html` filled in for one page of the site, with what it preloads (`preload_links`
/// or `preload_by_path`) and the demo file's fingerprint (`demo_meta`).
fn page_html(
    template: &str,
    opts: &DistOptions,
    css: &str,
    boot: &str,
    preload: &str,
    demo_meta: &str,
) -> Result<String> {
    let html = template
        .replace("{{DEMO_META}}", demo_meta)
        .replace("{{BASE_PATH}}", &opts.base_path)
        .replace("{{CSP}}", CSP)
        .replace("{{STYLES}}", css)
        .replace("{{BOOT}}", boot)
        .replace("{{PRELOAD}}", preload);
    if html.contains("{{") {
        bail!(
            "web/index.html has an unknown {{{{placeholder}}}}: only BASE_PATH, CSP, STYLES, BOOT, PRELOAD, DEMO_META are filled"
        );
    }
    Ok(html)
}

/// The files a page load of `entry` fetches as the page is parsed, not once the boot script
/// has run: its glue, its module (the bootstrap's `fetch` is a same-origin CORS request, as
/// the preload is) and, when its start-up seeds the demo, the demo's first view.
fn preloads(entry: &BuiltEntry) -> Vec<&str> {
    let mut files = vec![entry.glue.as_str(), entry.wasm.as_str()];
    if entries::ENTRIES.iter().any(|e| e.name == entry.name && e.seeds_demo) {
        files.push(crate::demo::FIRST_VIEW_OUT);
    }
    files
}

/// `preloads` as `<link>`s: index.html's, which serves one path.
fn preload_links(entry: &BuiltEntry) -> String {
    preloads(entry)
        .iter()
        .map(|f| match f.rsplit_once('.').map(|(_, ext)| ext) {
            Some("js") => format!("<link rel=\"modulepreload\" href=\"{f}\">"),
            Some("wasm") => {
                format!("<link rel=\"preload\" href=\"{f}\" as=\"fetch\" type=\"application/wasm\" crossorigin>")
            }
            _ => format!("<link rel=\"preload\" href=\"{f}\" as=\"fetch\" crossorigin>"),
        })
        .collect::<Vec<_>>()
        .join("\n  ")
}

/// The inline script of `preload_by_path` (the CSP allows it by its hash, and nothing else
/// inline): reads the `geo-preload` meta (`PATH FILE…` per entry, `;` between, `*` for every
/// other path), takes the page's path relative to `<base href>` as the bootstrap does, and
/// adds the `<link>`s `preload_links` would write for it. It runs as the parser reaches it,
/// before the stylesheet, so the downloads start as early as links would.
pub const PRELOAD_SCRIPT: &str = "{const d=document,b=new URL(d.baseURI).pathname,\
p=location.pathname.startsWith(b)?location.pathname.slice(b.length-1):'/',t={};\
for(const r of d.querySelector('meta[name=geo-preload]').content.split(';')){const[k,...f]=r.split(' ');t[k]=f}\
for(const h of t[p]??t['*']){const l=d.createElement('link');\
if(h.endsWith('.js'))l.rel='modulepreload';else{l.rel='preload';l.as='fetch';l.crossOrigin='';\
if(h.endsWith('.wasm'))l.type='application/wasm'}l.href=h;d.head.append(l)}}";

/// 404.html's preloads (it answers every deep link): the `geo-preload` meta, each entry's
/// paths and `preloads` (the entry of every other path as `*`), and `PRELOAD_SCRIPT`, which
/// picks the row of the page's path; so a deep link to `/chat` fetches the chat entry and
/// nothing of the app's.
fn preload_by_path(built: &[BuiltEntry]) -> String {
    let rows = entries::ENTRIES
        .iter()
        .filter(|e| e.name != entries::entry_for_path("/"))
        .filter_map(|e| {
            let files = preloads(built.iter().find(|b| b.name == e.name)?).join(" ");
            Some(if e.paths.is_empty() {
                format!("* {files}")
            } else {
                e.paths.iter().map(|p| format!("{p} {files}")).collect::<Vec<_>>().join(";")
            })
        })
        .collect::<Vec<_>>()
        .join(";");
    format!("<meta name=\"geo-preload\" content=\"{rows}\">\n  <script>{PRELOAD_SCRIPT}</script>")
}

/// The bootstrap (`boot-*.js`): picks the entry that owns the page's path (relative to
/// `<base href>`) from the table of geo-web's `entries.rs`, loads its glue and module and
/// starts it, naming the import worker's script. It gives the running entry two functions
/// (geo-web's `handover`): `geoLoadEntry(name)` loads another entry in the same document,
/// stops the running one (`stop_app`: once its start-up has settled, with the selection it
/// carries) and mounts the other with it, once; `geoPrefetchEntry(name)` fetches and compiles an entry at low priority when the
/// browser is idle.
pub fn boot_script(built: &[BuiltEntry], worker_name: &str) -> String {
    let files = built
        .iter()
        .map(|e| format!("{:?}: {{ glue: './{}', wasm: './{}' }}", e.name, e.glue, e.wasm))
        .collect::<Vec<_>>()
        .join(", ");
    let paths = entries::ENTRIES
        .iter()
        .flat_map(|e| e.paths.iter().map(move |p| format!("{p:?}: {:?}", e.name)))
        .collect::<Vec<_>>()
        .join(", ");
    let rest = entries::ENTRIES.iter().find(|e| e.paths.is_empty()).map_or(entries::APP, |e| e.name);
    format!(
        "// Loads the wasm entry this page's path needs and starts it (the table is generated from\n\
         // crates/geo-web/src/entries.rs; the handover is crates/geo-web/src/handover.rs).\n\
         const entries = {{ {files} }};\n\
         const paths = {{ {paths} }};\n\
         const url = (file) => new URL(file, import.meta.url);\n\
         const worker = url('./{worker_name}').href;\n\
         const base = new URL(document.baseURI).pathname;\n\
         const path = location.pathname.startsWith(base) ? location.pathname.slice(base.length - 1) : '/';\n\
         const compiled = {{}};\n\
         const compile = (name, priority) => (compiled[name] ??= WebAssembly.compileStreaming(fetch(url(entries[name].wasm), {{ priority }}))\n\
         \x20 .catch((err) => {{ delete compiled[name]; throw err; }}));\n\
         const load = async (name, module_or_path) => {{\n\
         \x20 const glue = await import(entries[name].glue);\n\
         \x20 await glue.default({{ module_or_path }});\n\
         \x20 return glue;\n\
         }};\n\
         const first = paths[path] ?? {rest:?};\n\
         let running = await load(first, url(entries[first].wasm));\n\
         let handover = null;\n\
         globalThis.geoLoadEntry = (name) => (handover ??= (async () => {{\n\
         \x20 const glue = await load(name, await compile(name, 'high'));\n\
         \x20 const carried = await running.stop_app();\n\
         \x20 running = glue;\n\
         \x20 glue.start_app(worker, carried);\n\
         }})().catch((err) => {{ handover = null; throw err; }}));\n\
         globalThis.geoPrefetchEntry = (name) => {{\n\
         \x20 const go = () => {{ compile(name, 'low').catch(() => {{}}); import(entries[name].glue).catch(() => {{}}); }};\n\
         \x20 if (globalThis.requestIdleCallback) requestIdleCallback(go, {{ timeout: 2000 }}); else setTimeout(go, 0);\n\
         }};\n\
         running.start_app(worker);\n"
    )
}

/// What one entry of the site loads: a page's wasm, JS and CSS files.
#[derive(Debug, Clone)]
pub struct Entry {
    /// What the entry is (`app (index.html)`).
    pub name: String,
    /// Its files and their sizes.
    pub files: Vec<SizeRow>,
}

/// `wasm`, `js` or `css` by a file's extension; `None` for anything else.
fn kind(name: &str) -> Option<&'static str> {
    match name.rsplit_once('.').map(|(_, e)| e) {
        Some("wasm") => Some("wasm"),
        Some("js" | "mjs") => Some("js"),
        Some("css") => Some("css"),
        _ => None,
    }
}

/// The per-entry table of `cargo xtask dist`: each entry's wasm, JS and CSS (gzip -9, then its
/// raw total), one line per entry, so entries split off later each get their line.
pub fn entry_table(entries: &[Entry]) -> String {
    let kb = |n: u64| format!("{:.1} KB", n as f64 / 1024.0);
    let count = match entries.len() {
        1 => "1 entry: everything the site runs loads with the app".to_string(),
        n => format!("{n} entries"),
    };
    let mut out = format!("per entry, wasm + js + css ({count}):\n");
    out.push_str(&format!(
        "{:<28} {:>12} {:>10} {:>10} {:>12} {:>12}\n",
        "entry", "wasm gzip", "js gzip", "css gzip", "total gzip", "total raw"
    ));
    for e in entries {
        let sum = |k: &str, f: fn(&SizeRow) -> u64| -> u64 {
            e.files.iter().filter(|r| kind(&r.name) == Some(k)).map(f).sum()
        };
        let gzip = |k| sum(k, |r| r.gzip);
        let raw: u64 = ["wasm", "js", "css"].iter().map(|k| sum(k, |r| r.raw)).sum();
        out.push_str(&format!(
            "{:<28} {:>12} {:>10} {:>10} {:>12} {:>12}\n",
            e.name,
            kb(gzip("wasm")),
            kb(gzip("js")),
            kb(gzip("css")),
            kb(gzip("wasm") + gzip("js") + gzip("css")),
            kb(raw)
        ));
    }
    out
}

/// The import worker's module script: the page posts it the app's compiled
/// `WebAssembly.Module` (so the wasm is neither downloaded nor compiled again), the file,
/// the language and the job (absent for an export, the capture import's options as JSON for
/// a capture file); it instantiates the module with the same glue (the app does not
/// render: `start_app` is the page's call) and runs `import_in_worker`, posting a
/// `failed` message itself when the module cannot start or traps.
fn import_worker_script(glue_name: &str) -> String {
    format!(
        "// The import worker (crates/geo-web/src/import_worker.rs): one import, off the page's main thread.\n\
         import init, {{ import_in_worker }} from './{glue_name}';\n\
         self.onmessage = (e) => {{\n\
         \x20 self.onmessage = null;\n\
         \x20 const {{ module, file, lang, job }} = e.data;\n\
         \x20 init({{ module_or_path: module }})\n\
         \x20   .then(() => import_in_worker(file, lang, job))\n\
         \x20   .catch((err) => self.postMessage(JSON.stringify({{ kind: 'failed', message: String(err) }})));\n\
         }};\n"
    )
}

/// Runs wasm-bindgen (`--target web`) on `wasm_in` into `target/<stage>` and, unless `dev`,
/// `wasm-opt -Oz --converge` on the result; returns the paths of the JS glue and the wasm module.
fn bindgen_and_optimize(root: &Path, wasm_in: &Path, stage: &str, dev: bool) -> Result<(PathBuf, PathBuf)> {
    let (glue_path, wasm_path) = bindgen(root, wasm_in, stage, dev)?;
    if !dev {
        optimize_wasm(root, &wasm_path, true)?;
    }
    Ok((glue_path, wasm_path))
}

/// Runs wasm-bindgen (`--target web`) on `wasm_in` into `target/<stage>`; returns the paths
/// of the JS glue and the wasm module.
fn bindgen(root: &Path, wasm_in: &Path, stage: &str, dev: bool) -> Result<(PathBuf, PathBuf)> {
    let stage = target_dir(root).join(stage);
    if stage.exists() {
        fs::remove_dir_all(&stage)?;
    }
    fs::create_dir_all(&stage)?;
    eprintln!("xtask: wasm-bindgen --target web {}", wasm_in.display());
    wasm_bindgen_cli_support::Bindgen::new()
        .input_path(wasm_in)
        .web(true)?
        .typescript(false)
        .debug(dev)
        .generate(&stage)
        .context("wasm-bindgen failed")?;
    let stem = wasm_in.file_stem().and_then(|s| s.to_str()).context("the wasm module has no file name")?;
    if dev {
        eprintln!("xtask: wasm-opt skipped (--dev)");
    }
    Ok((stage.join(format!("{stem}.js")), stage.join(format!("{stem}_bg.wasm"))))
}

/// `cargo xtask size-floor`: builds `xtask/size-floor` (every dependency the product
/// requires, used as the product uses it, and no product code) with the web app's release
/// profile, wasm-bindgen and wasm-opt, and prints its sizes: the bundle floor that the
/// 500 KB budget of issue #6 has to hold the product's own code on top of.
pub fn size_floor(args: &[String]) -> Result<()> {
    if let Some(a) = args.first() {
        bail!("size-floor takes no arguments (got {a:?})");
    }
    let root = workspace_root();
    let wasm_in = build_wasm(&root, "size-floor", false, &[])?;
    let (glue_path, wasm_path) = bindgen_and_optimize(&root, &wasm_in, "xtask-floor-stage", false)?;
    let mut rows = Vec::new();
    for path in [&wasm_path, &glue_path] {
        let bytes = fs::read(path)?;
        let name = path.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default();
        rows.push(SizeRow { name, raw: bytes.len() as u64, gzip: gzip_len(&bytes)? });
    }
    println!("size floor: yew + yew-router + pulldown-cmark + url + icu_normalizer (NFKC) + addr (embedded list) + serde_json + IndexedDB/fetch bindings, no product code");
    print_table(&rows);
    Ok(())
}

/// The `wasm-opt` of npm's `binaryen` under `xtask/e2e` (pinned by its lock file).
fn npm_wasm_opt(root: &Path) -> PathBuf {
    root.join("xtask/e2e/node_modules/.bin/wasm-opt")
}

/// Finds a `wasm-opt`: npm's binaryen under `xtask/e2e`, installed now with `npm ci` on a
/// fresh checkout (the tests use the same packages), else one on `PATH`. Says what it did;
/// `Err` carries what the user can run when none can be had.
fn find_wasm_opt(root: &Path) -> std::result::Result<PathBuf, String> {
    let local = npm_wasm_opt(root);
    let mut why = String::from("xtask/e2e/node_modules/.bin/wasm-opt is missing");
    if !local.exists() {
        eprintln!("xtask: wasm-opt not installed yet: getting npm's binaryen (npm ci in xtask/e2e)");
        if let Err(e) = ensure_npm_packages(&root.join("xtask/e2e")) {
            why = format!("{e:#}");
        }
    }
    if local.exists() {
        return Ok(local);
    }
    which("wasm-opt").ok_or_else(|| {
        format!(
            "wasm-opt skipped, so the site is larger than it has to be: {why}; then run the command again \
             (or `npm ci` in xtask/e2e)"
        )
    })
}

/// Runs `wasm-opt -Oz` (with `--converge` when `converge`) in place ([`find_wasm_opt`]); says so,
/// and keeps the unoptimised module (saying why and what to run) when no usable one can be had.
fn optimize_wasm(root: &Path, wasm: &Path, converge: bool) -> Result<()> {
    let tool = match find_wasm_opt(root) {
        Ok(tool) => tool,
        Err(why) => {
            eprintln!("xtask: {why}");
            return Ok(());
        }
    };
    let out = wasm.with_extension("opt.wasm");
    let status = Command::new(&tool)
        .arg("-Oz")
        // Repeats the passes while they still shrink the module (ADR 0014, step 9: 2.7 KB).
        .args(converge.then_some("--converge"))
        .args([
            "--enable-bulk-memory",
            "--enable-nontrapping-float-to-int",
            "--enable-sign-ext",
            "--enable-reference-types",
            "--enable-multivalue",
            "--enable-mutable-globals",
        ])
        // Profiling only (docs/testing.md): keeps the function names, 150 KB gzip more.
        .args(std::env::var_os("GEO_WASM_NAMES").map(|_| "-g"))
        .arg(wasm)
        .arg("-o")
        .arg(&out)
        .status();
    match status {
        Ok(s) if s.success() => {
            fs::rename(&out, wasm)?;
            let flags = if converge { "-Oz --converge" } else { "-Oz" };
            eprintln!("xtask: wasm-opt {flags} applied ({})", tool.display());
        }
        Ok(s) => eprintln!(
            "xtask: wasm-opt skipped: {} failed with {s} (an old binaryen cannot read current wasm: run `npm ci` in xtask/e2e for binaryen 132)",
            tool.display()
        ),
        Err(e) => eprintln!("xtask: wasm-opt skipped: cannot start {}: {e}", tool.display()),
    }
    Ok(())
}

/// Runs npm's `terser` (pinned in `xtask/e2e`, installed with the other packages) on the
/// wasm-bindgen glue in place: local names shortened, dead code dropped, exports and the
/// property names the wasm module imports by kept as they are. Says so; keeps the glue as it
/// is (saying why) when terser cannot be had.
fn minify_glue(root: &Path, glue: &Path) -> Result<()> {
    let tool = root.join("xtask/e2e/node_modules/.bin/terser");
    if !tool.exists() {
        if let Err(e) = ensure_npm_packages(&root.join("xtask/e2e")) {
            eprintln!("xtask: terser skipped, so the JS glue is larger than it has to be: {e:#}");
            return Ok(());
        }
    }
    let out = glue.with_extension("min.js");
    let status = Command::new(&tool).arg(glue).args(["--module", "--compress", "--mangle", "-o"]).arg(&out).status();
    match status {
        Ok(s) if s.success() => {
            fs::rename(&out, glue)?;
            eprintln!("xtask: terser applied to the JS glue");
        }
        Ok(s) => eprintln!("xtask: terser skipped: {} failed with {s}", tool.display()),
        Err(e) => eprintln!("xtask: terser skipped: cannot start {}: {e}", tool.display()),
    }
    Ok(())
}

/// `css` without comments and with every run of white space cut to one space, none at all
/// next to `{`, `}`, `;` and `,` (nothing else: a space before `:` is a descendant
/// selector). Strings are copied untouched.
pub fn minify_css(css: &str) -> String {
    let mut out = String::with_capacity(css.len());
    let mut chars = css.chars().peekable();
    let mut space = false;
    while let Some(c) = chars.next() {
        match c {
            '/' if chars.peek() == Some(&'*') => {
                chars.next();
                let mut prev = '\0';
                for c in chars.by_ref() {
                    if prev == '*' && c == '/' {
                        break;
                    }
                    prev = c;
                }
                space = true;
            }
            '"' | '\'' => {
                if space && !out.is_empty() && !out.ends_with(['{', '}', ';', ',']) {
                    out.push(' ');
                }
                space = false;
                out.push(c);
                let mut escaped = false;
                for s in chars.by_ref() {
                    out.push(s);
                    if s == c && !escaped {
                        break;
                    }
                    escaped = s == '\\' && !escaped;
                }
            }
            c if c.is_whitespace() => space = true,
            '{' | '}' | ';' | ',' => {
                if c == '}' && out.ends_with(';') {
                    out.pop();
                }
                out.push(c);
                space = false;
            }
            c => {
                if space && !out.is_empty() && !out.ends_with(['{', '}', ';', ',']) {
                    out.push(' ');
                }
                space = false;
                out.push(c);
            }
        }
    }
    out
}

fn copy_dir(from: &Path, to: &Path) -> Result<()> {
    fs::create_dir_all(to)?;
    for entry in fs::read_dir(from)? {
        let entry = entry?;
        let target = to.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            copy_dir(&entry.path(), &target)?;
        } else {
            fs::copy(entry.path(), &target)?;
        }
    }
    Ok(())
}

/// `stem-<10 hex of FNV-1a>.ext`: a new name whenever the content changes, so browsers
/// and the Pages CDN never mix an old glue with a new module.
fn hashed(stem: &str, ext: &str, bytes: &[u8]) -> String {
    format!("{stem}-{:010x}.{ext}", geo_core::text::fnv1a64(bytes) >> 24)
}

/// `bytes` gzip-compressed at level 9.
pub fn gzip(bytes: &[u8]) -> Result<Vec<u8>> {
    let mut enc = GzEncoder::new(Vec::new(), Compression::best());
    enc.write_all(bytes)?;
    Ok(enc.finish()?)
}

/// Size of `bytes` after gzip at level 9.
pub fn gzip_len(bytes: &[u8]) -> Result<u64> {
    Ok(gzip(bytes)?.len() as u64)
}

fn print_sizes(rows: &[SizeRow], dist: &Path) {
    println!("dist written to {}", dist.display());
    print_table(rows);
}

/// The size table: each file's raw and gzip -9 size, then the totals.
fn print_table(rows: &[SizeRow]) {
    let kb = |n: u64| format!("{:.1} KB", n as f64 / 1024.0);
    println!("{:<34} {:>12} {:>12}", "file", "raw", "gzip");
    for r in rows {
        println!("{:<34} {:>12} {:>12}", r.name, kb(r.raw), kb(r.gzip));
    }
    let raw: u64 = rows.iter().map(|r| r.raw).sum();
    let gzip: u64 = rows.iter().map(|r| r.gzip).sum();
    println!("{:<34} {:>12} {:>12}", "total", kb(raw), kb(gzip));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn check(input: &str, expect: &str) {
        assert_eq!(normalize_base_path(input).unwrap(), expect, "{input}");
    }

    #[test]
    fn base_paths_get_both_slashes() {
        check("/geo-probe/", "/geo-probe/");
        check("geo-probe", "/geo-probe/");
        check("/", "/");
        check("", "/");
        check("/a/b", "/a/b/");
        assert!(normalize_base_path("/x\"><script>").is_err());
    }

    #[test]
    fn hashed_names_change_with_content() {
        assert_ne!(hashed("a", "js", b"1"), hashed("a", "js", b"2"));
        assert_eq!(hashed("a", "js", b"1"), hashed("a", "js", b"1"));
        assert!(hashed("geo_web", "wasm", b"x").starts_with("geo_web-"));
    }

    #[test]
    fn css_minifies_without_changing_meaning() {
        let css = "/* c */\n.a  .b:hover ,\n.c > d {\n  color: red;\n  font-family: \"Segoe  UI\", sans-serif;\n}\n@media (max-width: 40rem) { .x::before { content: attr(data-label); } }\n";
        assert_eq!(
            minify_css(css),
            ".a .b:hover,.c > d{color: red;font-family: \"Segoe  UI\",sans-serif}@media (max-width: 40rem){.x::before{content: attr(data-label)}}"
        );
        let app = include_str!("../../web/styles.css");
        let small = minify_css(app);
        assert!(small.len() < app.len() * 9 / 10, "{} → {}", app.len(), small.len());
        assert_eq!(small.matches('{').count(), app.matches('{').count());
    }

    #[test]
    fn the_import_worker_loads_the_same_glue_and_reports_failures_as_the_app_reads_them() {
        let script = import_worker_script("geo_web-0123456789.js");
        assert!(script.contains("import init, { import_in_worker } from './geo_web-0123456789.js';"), "{script}");
        assert!(script.contains("init({ module_or_path: module })"), "{script}");
        // The job geo-web's import_worker::Job posts (a capture file's options), passed on.
        assert!(script.contains("const { module, file, lang, job } = e.data;"), "{script}");
        assert!(script.contains("import_in_worker(file, lang, job)"), "{script}");
        // geo-web's import_worker::Message::Failed, as its test spells it.
        assert!(script.contains("JSON.stringify({ kind: 'failed', message: String(err) })"), "{script}");
        assert!(CSP.contains("worker-src 'self'"));
    }

    #[test]
    fn entries_sum_their_wasm_js_and_css() {
        let row = |name: &str, raw: u64, gzip: u64| SizeRow { name: name.into(), raw, gzip };
        let app = Entry {
            name: "app (index.html)".into(),
            files: vec![
                row("geo_web_bg-1.wasm", 2048 * 1024, 1024 * 1024),
                row("geo_web-1.js", 20 * 1024, 8 * 1024),
                row("boot-1.js", 1024, 512),
                row("styles-1.css", 30 * 1024, 5 * 1024),
                row("index.html", 4096, 1024),
            ],
        };
        let table = entry_table(std::slice::from_ref(&app));
        let lines: Vec<&str> = table.lines().collect();
        assert_eq!(lines[0], "per entry, wasm + js + css (1 entry: everything the site runs loads with the app):");
        assert!(lines[1].starts_with("entry "), "{table}");
        let cells: Vec<&str> = lines[2].split("  ").map(str::trim).filter(|c| !c.is_empty()).collect();
        // index.html is neither: wasm 1,024.0, js 8.5, css 5.0, total 1,037.5, raw 2,099.0 KB.
        assert_eq!(cells, ["app (index.html)", "1024.0 KB", "8.5 KB", "5.0 KB", "1037.5 KB", "2099.0 KB"], "{table}");
        let chat = Entry { name: "chat".into(), files: vec![row("chat-1.wasm", 1024, 1024)] };
        let two = entry_table(&[app, chat]);
        assert!(two.starts_with("per entry, wasm + js + css (2 entries):\n"), "{two}");
        assert_eq!(two.lines().count(), 4, "{two}");
    }

    fn built_entries() -> Vec<BuiltEntry> {
        entries::ENTRIES
            .iter()
            .map(|e| BuiltEntry {
                name: e.name,
                glue: format!("{}-1.js", entry_stem(e.name)),
                wasm: format!("{}_bg-1.wasm", entry_stem(e.name)),
            })
            .collect()
    }

    #[test]
    fn the_bootstrap_carries_geo_webs_entry_table_and_starts_the_entry_of_the_path() {
        let boot = boot_script(&built_entries(), "import-worker-1.js");
        // Generated from the one table (crates/geo-web/src/entries.rs): the root is the
        // dashboard's, /chat the chat's, every other path the app's.
        assert!(boot.contains("const paths = { \"/\": \"dashboard\", \"/chat\": \"chat\" };"), "{boot}");
        assert!(boot.contains("\"chat\": { glue: './geo_web_chat-1.js', wasm: './geo_web_chat_bg-1.wasm' }"), "{boot}");
        assert!(boot.contains("const first = paths[path] ?? \"app\";"), "{boot}");
        assert!(
            boot.contains("\"dashboard\": { glue: './geo_web_dashboard-1.js', wasm: './geo_web_dashboard_bg-1.wasm' }"),
            "{boot}"
        );
        assert!(boot.contains("\"app\": { glue: './geo_web-1.js', wasm: './geo_web_bg-1.wasm' }"), "{boot}");
        // The path relative to <base href> (a site under /geo-probe/ on GitHub Pages).
        assert!(boot.contains("location.pathname.slice(base.length - 1)"), "{boot}");
        // geo-web's start_app(import_worker, handed_over) and the reduced entry's stop_app,
        // whose selection the next entry starts with.
        assert!(boot.contains("running.start_app(worker);"), "{boot}");
        assert!(
            boot.contains(
                "const carried = await running.stop_app();\n  running = glue;\n  glue.start_app(worker, carried);"
            ),
            "{boot}"
        );
        // The names geo-web's handover calls.
        assert!(boot.contains("globalThis.geoLoadEntry = (name)"), "{boot}");
        assert!(boot.contains("globalThis.geoPrefetchEntry = (name)"), "{boot}");
        assert!(boot.contains("{ priority }"), "{boot}");
        assert!(!boot.contains("{{"), "{boot}");
    }

    #[test]
    fn each_page_preloads_the_entry_its_paths_need() {
        let built = built_entries();
        let by = |name| built.iter().find(|e| e.name == name).unwrap();
        // index.html (the root): the dashboard entry's links and the demo's first view.
        let links = preload_links(by(entries::DASHBOARD));
        assert_eq!(
            links,
            "<link rel=\"modulepreload\" href=\"geo_web_dashboard-1.js\">\n  \
             <link rel=\"preload\" href=\"geo_web_dashboard_bg-1.wasm\" as=\"fetch\" type=\"application/wasm\" crossorigin>\n  \
             <link rel=\"preload\" href=\"demo/demo-first-view.json\" as=\"fetch\" crossorigin>"
        );
        // 404.html (every deep link): the chat entry for /chat (no first view: it seeds
        // nothing), the app entry for every other path, picked by the script the CSP allows.
        let by_path = preload_by_path(&built);
        assert_eq!(
            by_path,
            format!(
                "<meta name=\"geo-preload\" content=\"/chat geo_web_chat-1.js geo_web_chat_bg-1.wasm;\
                 * geo_web-1.js geo_web_bg-1.wasm demo/demo-first-view.json\">\n  <script>{PRELOAD_SCRIPT}</script>"
            )
        );
        assert!(!by_path.contains("dashboard"), "a deep link never needs the dashboard entry");
        let opts = DistOptions::default();
        let template = "<base href=\"{{BASE_PATH}}\"><meta content=\"{{CSP}}\">{{PRELOAD}}<link href=\"{{STYLES}}\"><script src=\"{{BOOT}}\">";
        let page = page_html(template, &opts, "s.css", "boot-1.js", &by_path, "").unwrap();
        assert!(page.contains(&by_path) && page.contains("<script src=\"boot-1.js\">"), "{page}");
        assert!(page_html("{{NOPE}}", &opts, "", "", "", "").is_err());
        assert_eq!(entries::entry_for_path("/"), entries::DASHBOARD);
        let web = include_str!("../../web/index.html");
        let preload = web.find("{{PRELOAD}}").unwrap();
        assert!(web.find("<base href").unwrap() < preload, "the preloads resolve against <base href>");
        assert!(preload < web.find("rel=\"stylesheet\"").unwrap(), "the script waits for no stylesheet");
    }

    #[test]
    fn the_csp_allows_the_preload_script_by_its_hash() {
        use base64::Engine;
        use sha2::Digest;
        let hash = base64::engine::general_purpose::STANDARD.encode(sha2::Sha256::digest(PRELOAD_SCRIPT.as_bytes()));
        assert!(CSP.contains(&format!("script-src 'self' 'wasm-unsafe-eval' 'sha256-{hash}';")), "{hash}");
        let scripts = CSP.split(';').find(|d| d.trim().starts_with("script-src")).unwrap();
        assert!(!scripts.contains("unsafe-inline"), "no inline script but that one: {scripts}");
    }

    #[test]
    fn each_page_names_the_fingerprint_of_the_demo_file_it_ships_with() {
        let dir = std::env::temp_dir().join(format!("geo-dist-demo-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(dir.join("demo")).unwrap();
        // No demo file: no meta, and the app checks the first view against the file it fetches.
        assert_eq!(demo_meta(&dir), "");
        let demo = fs::read_to_string(workspace_root().join("demo/demo-data.json")).unwrap();
        fs::write(dir.join("demo/demo-data.json"), &demo).unwrap();
        let meta = demo_meta(&dir);
        // The fingerprint the committed first view was computed with (geo-web's test keeps
        // that file equal to what seeding this demo file stores).
        let view: serde_json::Value =
            serde_json::from_str(&fs::read_to_string(workspace_root().join("demo/demo-first-view.json")).unwrap())
                .unwrap();
        let source = view["source"].as_str().unwrap();
        assert_eq!(meta, format!("<meta name=\"geo-demo-fingerprint\" content=\"{source}\">"));
        // The text the app's fetch reads: a byte order mark is not part of it.
        fs::write(dir.join("demo/demo-data.json"), format!("\u{feff}{demo}")).unwrap();
        assert_eq!(demo_meta(&dir), meta);
        let _ = fs::remove_dir_all(&dir);
        // Into both pages, in the template's place.
        let template = "<head>{{DEMO_META}}<base href=\"{{BASE_PATH}}\"></head>";
        let html = page_html(template, &DistOptions::default(), "", "", "", &meta).unwrap();
        assert_eq!(html, format!("<head>{meta}<base href=\"/\"></head>"));
        let web = include_str!("../../web/index.html");
        assert_eq!(web.matches("{{DEMO_META}}").count(), 1, "web/index.html carries the demo's fingerprint");
        assert!(
            !web.contains("href=\"demo/demo-data.json\""),
            "the demo file is not preloaded: it comes after the figure"
        );
        // The first view is preloaded by the entries that seed (`each_page_preloads_the_entry_its_paths_need`).
        assert!(preloads(&built_entries()[0]).contains(&"demo/demo-first-view.json"));
    }

    #[test]
    fn gzip_shrinks_repetitive_text() {
        let text = "abc".repeat(1000);
        assert!(gzip_len(text.as_bytes()).unwrap() < 100);
    }
}
