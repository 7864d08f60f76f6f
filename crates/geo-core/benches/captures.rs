//! Benchmark: importing 10,000 captured app answers (`export::import_captures`, the whole of
//! `geo-probe import-captures` but the two file reads and the write): reading the file (JSON,
//! then CSV), matching every capture to its prompt, building the `app` run and analysing every
//! probe. The bound: 10,000 captures import in bounded time and memory.
//!
//! The captures are the recorded DeepSeek answers of `fixtures/responses/01…21_…` to prompts
//! p01–p21 of `fixtures/project.json` (their answer text and sources; every third one also
//! lists its first source as cited), in turn, 10,000 of them, each with its own capture time.
//!
//! Before criterion's timing, one import of each file is measured once with a counting global
//! allocator: the file's size, the import's wall time, and the most heap it held above what was
//! allocated before it (the file's text and the export excluded), printed on standard error.
//! Not a test: a speed target is a benchmark, never a timed test.

use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use criterion::Criterion;
use geo_core::export::{import_captures, CaptureOptions};
use geo_core::model::{EngineId, ExportEnvelope};
use geo_core::provider::parse_engine_response;

/// Captures per file.
const CAPTURES: usize = 10_000;
/// Prompts p01–p21.
const PROMPTS: usize = 21;

/// The system allocator, counting the bytes held now and the most held since the last reset.
struct Counting;

static HELD: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            let now = HELD.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(now, Ordering::Relaxed);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        HELD.fetch_sub(layout.size(), Ordering::Relaxed);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            if new_size >= layout.size() {
                let now = HELD.fetch_add(new_size - layout.size(), Ordering::Relaxed) + new_size - layout.size();
                PEAK.fetch_max(now, Ordering::Relaxed);
            } else {
                HELD.fetch_sub(layout.size() - new_size, Ordering::Relaxed);
            }
        }
        p
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// The fixture project, and (answer, source URLs) of the 21 recorded answers.
fn material() -> (ExportEnvelope, Vec<(String, Vec<String>)>) {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures");
    let env: ExportEnvelope =
        serde_json::from_str(&std::fs::read_to_string(format!("{root}/project.json")).unwrap()).unwrap();
    let mut bodies: Vec<_> = std::fs::read_dir(format!("{root}/responses"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.file_name().unwrap().to_string_lossy().as_bytes()[0].is_ascii_digit())
        .collect();
    bodies.sort();
    bodies.truncate(PROMPTS);
    let answers = bodies
        .iter()
        .map(|path| {
            let body = std::fs::read_to_string(path).unwrap();
            let parsed = parse_engine_response(EngineId::Deepseek, &body, "m").unwrap_or_default();
            (parsed.raw_answer, parsed.raw_sources.into_iter().map(|s| s.url).collect())
        })
        .collect();
    (env, answers)
}

/// Capture `i`'s prompt id and time.
fn prompt_and_time(i: usize) -> (String, String) {
    let (day, second) = (1 + i / 86_400, i % 86_400);
    (
        format!("p{:02}", i % PROMPTS + 1),
        format!("2026-12-{day:02}T{:02}:{:02}:{:02}+08:00", second / 3600, second / 60 % 60, second % 60),
    )
}

fn json_file(answers: &[(String, Vec<String>)]) -> String {
    let captures: Vec<serde_json::Value> = (0..CAPTURES)
        .map(|i| {
            let (prompt, at) = prompt_and_time(i);
            let (answer, sources) = &answers[i % PROMPTS];
            let cited: Vec<_> =
                sources.iter().take(usize::from(i % 3 == 0)).map(|u| serde_json::json!({"url": u})).collect();
            serde_json::json!({
                "prompt": prompt, "answer": answer, "capturedAt": at,
                "sources": sources.iter().map(|u| serde_json::json!({"url": u})).collect::<Vec<_>>(),
                "citations": cited, "model": "app-bench"
            })
        })
        .collect();
    serde_json::to_string(&serde_json::json!({ "captures": captures })).unwrap()
}

fn csv_file(answers: &[(String, Vec<String>)]) -> String {
    let mut w = geo_core::export::CsvWriter::new();
    w.texts(&["prompt", "answer", "captured_at", "source_urls", "cited_urls"]).end_row();
    for i in 0..CAPTURES {
        let (prompt, at) = prompt_and_time(i);
        let (answer, sources) = &answers[i % PROMPTS];
        let cited = if i % 3 == 0 { sources.first().cloned().unwrap_or_default() } else { String::new() };
        w.texts(&[&prompt, answer, &at, &sources.join(" "), &cited]).end_row();
    }
    format!("\u{feff}{}", w.finish())
}

fn options() -> CaptureOptions {
    CaptureOptions {
        project_id: "proj_yuangouchang".into(),
        engine: EngineId::Doubao,
        run_id: "run_app_bench".into(),
        now: "2026-12-02T00:00:00.000Z".into(),
        add_prompts: false,
    }
}

/// One import of `text`, measured: wall time and the most heap held above the baseline.
fn measure(name: &str, env: &ExportEnvelope, text: &str) {
    let base = HELD.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    let t = Instant::now();
    let import = import_captures(env, text, &options()).expect("the bench file imports");
    let elapsed = t.elapsed();
    let peak = PEAK.load(Ordering::Relaxed) - base;
    let kept = HELD.load(Ordering::Relaxed) - base;
    let mib = |b: usize| b as f64 / (1024.0 * 1024.0);
    eprintln!(
        "{name}: {} captures, file {:.1} MiB, import {:.0} ms, peak heap {:.1} MiB above the baseline ({:.1} MiB kept: the run and its analysed probes)",
        import.probes.len(),
        mib(text.len()),
        elapsed.as_secs_f64() * 1000.0,
        mib(peak),
        mib(kept),
    );
    drop(import);
}

fn main() {
    let (env, answers) = material();
    let (json, csv) = (json_file(&answers), csv_file(&answers));
    measure("json", &env, &json);
    measure("csv", &env, &csv);

    let mut c = Criterion::default().configure_from_args();
    let mut group = c.benchmark_group("import_captures_10000");
    group.sample_size(10);
    group.bench_function("json", |b| b.iter(|| import_captures(&env, black_box(&json), &options()).unwrap()));
    group.bench_function("csv", |b| b.iter(|| import_captures(&env, black_box(&csv), &options()).unwrap()));
    group.finish();
    c.final_summary();
}
