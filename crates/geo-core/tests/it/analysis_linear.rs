//! Linear time of `analyze_probe` on hostile answers (security review, finding 2), and of
//! every engine's reply parser and error mapper on hostile replies of 1 MB and 10 MB
//! (security review II, finding 1; the second half of this file).
//!
//! Each case builds one answer shape at two sizes, `n` and `16n`, and compares the time of
//! sixteen analyses of the small answer with one analysis of the large one: linear work
//! gives a ratio near 1, quadratic work a ratio near 16. The test asserts a ratio below
//! [`MAX_RATIO`] (4) between the best samples of each size, a factor of four from either
//! side, so cache effects of the larger input (linear code measures up to about 1.7 here)
//! and a loaded machine do not fail it while quadratic code still does; it measures no
//! absolute time. Time is the thread's own time on a CPU
//! (`/proc/thread-self/schedstat` on Linux, else the wall clock), so the other tests running
//! beside it on a busy machine do not count.

use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

use geo_core::analysis::analyze_probe;
use geo_core::model::{Probe, Target, TargetKind};

/// Factor between the two sizes.
const FACTOR: usize = 16;
/// Largest accepted ratio of one large analysis to `FACTOR` small ones (linear: about 1,
/// quadratic: about `FACTOR`; the geometric middle of the two).
const MAX_RATIO: f64 = 4.0;
/// Rounds of one small and one large sample, interleaved so that both see the same load
/// from the tests running beside them; the minimum of each size is compared.
const ROUNDS: usize = 15;
/// Rounds always taken before the test may pass.
const MIN_ROUNDS: usize = 3;
/// Each sample is repeated until it takes at least this long, so that the clock's
/// granularity (a scheduler tick for the thread's CPU time) is small beside it.
const MIN_SAMPLE: Duration = Duration::from_millis(40);

fn targets() -> Vec<Target> {
    vec![Target {
        id: "brand".into(),
        kind: TargetKind::Brand,
        label: "元构场".into(),
        aliases: vec!["元构场".into(), "Acme".into()],
        domains: vec!["acme.example".into()],
    }]
}

fn probe(answer: &str) -> Probe {
    serde_json::from_value(serde_json::json!({
        "id": "r__p__0", "runId": "r", "projectId": "pr", "promptId": "p", "repeatIndex": 0,
        "status": "success", "createdAt": "2026-12-01T00:00:00.000Z", "rawAnswer": answer,
    }))
    .unwrap()
}

/// One timing test at a time: two of them side by side would load each other unevenly.
fn one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());
    ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner())
}

/// Nanoseconds this thread has spent on a CPU, when the system says.
fn cpu_ns() -> Option<u64> {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    stat.split_whitespace().next()?.parse().ok()
}

fn time(answer: &str, times: usize, targets: &[Target]) -> Duration {
    let mut p = probe(answer);
    let (cpu, wall) = (cpu_ns(), Instant::now());
    for _ in 0..times {
        analyze_probe(&mut p, targets);
    }
    match (cpu, cpu_ns()) {
        (Some(a), Some(b)) if b > a => Duration::from_nanos(b - a),
        _ => wall.elapsed(),
    }
}

/// Asserts that analysing `make(FACTOR * n)` costs about `FACTOR` times `make(n)`.
///
/// Each sample analyses the large input `reps` times and the small one `FACTOR * reps` times;
/// `reps` starts at `min_reps` and doubles until a small sample takes [`MIN_SAMPLE`].
fn assert_linear(name: &str, n: usize, min_reps: usize, make: impl Fn(usize) -> String) {
    let _guard = one_at_a_time();
    let targets = targets();
    let small = make(n);
    let large = make(FACTOR * n);
    assert!(large.len() > (FACTOR - 1) * small.len(), "{name}: the large input must be about {FACTOR}x the small one");
    let mut reps = min_reps;
    while reps < 4096 && time(&small, FACTOR * reps, &targets) < MIN_SAMPLE {
        reps *= 2;
    }
    let (mut small_min, mut large_min) = (Duration::MAX, Duration::MAX);
    let mut ratio = f64::INFINITY;
    for round in 1..=ROUNDS {
        small_min = small_min.min(time(&small, FACTOR * reps, &targets));
        large_min = large_min.min(time(&large, reps, &targets));
        ratio = large_min.as_secs_f64() / small_min.as_secs_f64().max(1e-9);
        if round >= MIN_ROUNDS && ratio < MAX_RATIO {
            return;
        }
    }
    panic!(
        "{name}: analysing {} bytes took {ratio:.1} times as long as analysing {} bytes {FACTOR} times \
         (best of {ROUNDS}): not linear",
        large.len(),
        small.len()
    );
}

#[test]
fn url_followed_by_closing_parentheses() {
    assert_linear("url + `)` x n", 10_000, 1, |n| format!("https://a.example/{}", ")".repeat(n)));
}

#[test]
fn numbered_lines_that_all_restart() {
    assert_linear("`1. x` x n", 4_000, 1, |n| "1. x\n".repeat(n));
}

#[test]
fn markdown_destinations_that_never_close() {
    assert_linear("`[a](` x n", 1_000, 1, |n| "[a](".repeat(n));
}

#[test]
fn open_brackets() {
    // Each `[` used to look up to 2,000 bytes ahead for its `]`: quadratic up to that length.
    assert_linear("`[` x n", 250, 40, |n| "[".repeat(n));
}

#[test]
fn citation_markers_and_half_markers() {
    // Every `[` and `^` starts a marker candidate (analysis::markers); each looks a bounded
    // distance ahead. Runs of markers, unclosed `[ref_` and caret groups without their caret.
    assert_linear("markers", 2_000, 1, |n| {
        "元构场[ref_1][2]^[3][4]^ [ref_x ^[1][2][3] [^9] https://a.example/x[1]\n".repeat(n / 20)
    });
}

#[test]
fn link_titles_that_never_close() {
    assert_linear("`[a](x (` x n", 1_500, 1, |n| "[a](x (".repeat(n));
}

#[test]
fn lists_resumed_after_one_long_interruption() {
    // n/200 numbered lists (2., 4., 6., …) are interrupted, one long paragraph follows, then
    // each list resumes in turn (3., 5., 7., …), and each resumption takes the paragraph into
    // its item's text: joining every candidate list's text was (lists × paragraph). (With
    // n/400 the old code's ratio was only 5.4: its linear part hid the quadratic one.)
    assert_linear("lists resumed", 20_000, 1, |n| {
        let lists = n / 200;
        let mut s = String::new();
        for k in (1..=lists).rev() {
            s.push_str(&format!("{}. x\n\np\n", 2 * k));
        }
        s.push_str(&"L".repeat(n));
        s.push('\n');
        for k in 1..=lists {
            s.push_str(&format!("{}. y\n\np\n", 2 * k + 1));
        }
        s
    });
}

// ---------------------------------------------------------------------------------------
// Replies: every engine's parser and error mapper at 1 MB and 10 MB.
//
// The same comparison as above with the sizes of a hostile reply (a transport reads at most
// 10 MiB): ten parses of a 1 MB reply against one of a 10 MB reply, through the engine's
// `Wire` (the one mapping both shells use). Quadratic code measures about 10, linear code
// about 1. The large sample runs on a helper thread whose own CPU time is watched: once it
// has used several times what ten small ones took, the test fails at once instead of
// waiting hours for a quadratic parser to finish (the abandoned thread ends with the test
// process).

use geo_core::model::EngineId;
use geo_core::provider::{interpret, interpret_engine_key_test, wire, EngineReply, Interpret};

/// Size of the small reply; the large one is [`REPLY_FACTOR`] times it (1 MB and 10 MB).
const REPLY_BYTES: usize = 1_000_000;
/// Factor between the two reply sizes.
const REPLY_FACTOR: usize = 10;
/// A large sample that has used this many times the CPU of ten small ones is abandoned.
const WATCHDOG_RATIO: f64 = 3.0 * MAX_RATIO;

/// Nanoseconds thread `tid` of this process has spent on a CPU.
fn cpu_ns_of(tid: &str) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/self/task/{tid}/schedstat")).ok()?;
    stat.split_whitespace().next()?.parse().ok()
}

/// CPU time of `times` runs of `run` over `input` on a helper thread; `None` when the thread
/// used more than `budget` (it is left to finish on its own).
fn time_work<T: Send + Sync + 'static>(
    input: &Arc<T>,
    times: usize,
    run: impl Fn(&T) + Send + 'static,
    budget: Option<Duration>,
) -> Option<Duration> {
    let (tx, rx) = mpsc::channel::<Result<Duration, String>>();
    let input = Arc::clone(input);
    std::thread::spawn(move || {
        let tid = std::fs::read_link("/proc/thread-self")
            .ok()
            .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
            .unwrap_or_default();
        let _ = tx.send(Err(tid));
        let (cpu, wall) = (cpu_ns(), Instant::now());
        for _ in 0..times {
            run(&input);
        }
        let spent = match (cpu, cpu_ns()) {
            (Some(a), Some(b)) if b > a => Duration::from_nanos(b - a),
            _ => wall.elapsed(),
        };
        let _ = tx.send(Ok(spent));
    });
    let tid = match rx.recv() {
        Ok(Err(tid)) => tid,
        other => panic!("the helper thread did not start: {other:?}"),
    };
    loop {
        match rx.recv_timeout(Duration::from_millis(20)) {
            Ok(Ok(spent)) => return Some(spent),
            Ok(Err(_)) | Err(mpsc::RecvTimeoutError::Disconnected) => panic!("the helper thread failed"),
            Err(mpsc::RecvTimeoutError::Timeout) => {
                let used = cpu_ns_of(&tid).map(Duration::from_nanos);
                if let (Some(budget), Some(used)) = (budget, used) {
                    if used > budget {
                        return None;
                    }
                }
            }
        }
    }
}

/// Asserts that `run` over `large` (`factor` times the size of `small`) costs about `factor`
/// times `run` over `small`. Each sample runs the large input `reps` times and the small one
/// `factor * reps` times; `reps` doubles until a small sample takes [`MIN_SAMPLE`].
fn assert_linear_work<T: Send + Sync + 'static>(
    name: &str,
    small: T,
    large: T,
    factor: usize,
    run: impl Fn(&T) + Copy + Send + 'static,
) {
    let _guard = one_at_a_time();
    let (small, large) = (Arc::new(small), Arc::new(large));
    let sample = |reps: usize| time_work(&small, factor * reps, run, None).expect("no budget");
    let mut reps = 1;
    // The last sample of the calibration is the first small sample.
    let mut small_min = sample(reps);
    while reps < 4096 && small_min < MIN_SAMPLE {
        reps *= 2;
        small_min = sample(reps);
    }
    let mut large_min = Duration::MAX;
    let mut ratio = f64::INFINITY;
    for round in 1..=ROUNDS {
        if round > 1 {
            small_min = small_min.min(sample(reps));
        }
        let budget = small_min.mul_f64(WATCHDOG_RATIO);
        let Some(large_time) = time_work(&large, reps, run, Some(budget)) else {
            panic!(
                "{name}: the large input took more than {WATCHDOG_RATIO} times as long as {factor} small ones \
                 ({small_min:?}): not linear"
            );
        };
        large_min = large_min.min(large_time);
        ratio = large_min.as_secs_f64() / small_min.as_secs_f64().max(1e-9);
        if round >= MIN_ROUNDS && ratio < MAX_RATIO {
            return;
        }
    }
    panic!(
        "{name}: the large input took {ratio:.1} times as long as {factor} small ones (best of {ROUNDS}): not linear"
    );
}

/// Asserts that `run` over `make(10 MB)` costs about ten times `run` over `make(1 MB)`.
/// `make(n)` builds a reply of at least `n` bytes.
fn assert_linear_reply(name: &str, make: impl Fn(usize) -> String, run: impl Fn(&String) + Copy + Send + 'static) {
    let small = make(REPLY_BYTES);
    let large = make(REPLY_FACTOR * REPLY_BYTES);
    assert!(small.len() >= REPLY_BYTES && small.len() < 2 * REPLY_BYTES, "{name}: {} bytes", small.len());
    let ratio_of_sizes = large.len() as f64 / small.len() as f64;
    assert!((ratio_of_sizes - REPLY_FACTOR as f64).abs() < 0.5, "{name}: the sizes are {ratio_of_sizes:.2} apart");
    assert_linear_work(&format!("{name} ({} and {} bytes)", small.len(), large.len()), small, large, REPLY_FACTOR, run);
}

/// `items(i)` for i = 0, 1, … joined by commas until `n` bytes are reached, inside
/// `open` … `close`.
fn json_list(n: usize, open: &str, close: &str, item: impl Fn(usize) -> String) -> String {
    let mut s = String::with_capacity(n + 256);
    s.push_str(open);
    let mut i = 0;
    while s.len() + close.len() < n {
        if i > 0 {
            s.push(',');
        }
        s.push_str(&item(i));
        i += 1;
    }
    s.push_str(close);
    s
}

/// The reply's outcome through `engine`'s wire format (what both shells call).
fn reply_of(engine: EngineId, status: u16, body: &str) {
    let how = Interpret { model: "m", wire: wire(engine) };
    let headers = [("content-type", "application/json")];
    std::hint::black_box(interpret(&EngineReply { status, headers: &headers, body }, &how).ok());
}

/// A Messages body with `k` searches whose result blocks come in reverse order of their
/// tool-use ids, then as many result blocks with no id (each used to scan every query).
fn messages_body(n: usize) -> String {
    let k = n / 330;
    let mut blocks = Vec::with_capacity(3 * k + 1);
    for i in 0..k {
        blocks.push(format!(
            r#"{{"type":"server_tool_use","id":"srvtoolu_{i:09}","name":"web_search","input":{{"query":"q {i}"}}}}"#
        ));
    }
    for i in (0..k).rev() {
        blocks.push(format!(
            r#"{{"type":"web_search_tool_result","tool_use_id":"srvtoolu_{i:09}","content":[{{"type":"web_search_result","url":"https://s{i:09}.example/","title":"t"}}]}}"#
        ));
    }
    for _ in 0..k {
        blocks.push(r#"{"type":"web_search_tool_result","content":[]}"#.to_string());
    }
    let body = format!(r#"{{"id":"m","type":"message","model":"x","content":[{}]}}"#, blocks.join(","));
    let pad = n.saturating_sub(body.len()) + 1;
    body.replacen(r#""model":"x""#, &format!(r#""model":"x","pad":"{}""#, "p".repeat(pad)), 1)
}

#[test]
fn messages_replies_with_results_out_of_order() {
    assert_linear_reply("deepseek messages", messages_body, |b| reply_of(EngineId::Deepseek, 200, b));
    assert_linear_reply("anthropic messages", messages_body, |b| reply_of(EngineId::Anthropic, 200, b));
}

/// A Responses body: one search listing many sources, one message citing as many other
/// pages (every source used to be compared with every citation).
fn openai_body(n: usize) -> String {
    let sources = json_list(n / 2, "", "", |i| format!(r#"{{"type":"url","url":"https://s{i:09}.example/page"}}"#));
    let annotations = json_list(n / 2, "", "", |i| {
        format!(r#"{{"type":"url_citation","url":"https://c{i:09}.example/page?utm_source=openai","title":"t"}}"#)
    });
    format!(
        r#"{{"id":"resp","model":"gpt","status":"completed","output":[{{"type":"web_search_call","status":"completed","action":{{"type":"search","query":"q","sources":[{sources}]}}}},{{"type":"message","content":[{{"type":"output_text","text":"answer","annotations":[{annotations}]}}]}}]}}"#
    )
}

#[test]
fn openai_replies_with_many_sources_and_citations() {
    assert_linear_reply("openai responses", openai_body, |b| reply_of(EngineId::Openai, 200, b));
}

/// A generateContent body: many queries, grounding chunks and supports naming them.
fn gemini_body(n: usize) -> String {
    let queries = json_list(n / 4, "", "", |i| format!(r#""query {i}""#));
    let chunks = json_list(n / 2, "", "", |i| {
        format!(r#"{{"web":{{"uri":"https://g.example/r/{i:09}","title":"h{i}.example"}}}}"#)
    });
    let supports = json_list(n / 4, "", "", |i| format!(r#"{{"groundingChunkIndices":[{i},{},0]}}"#, i / 2));
    format!(
        r#"{{"candidates":[{{"content":{{"parts":[{{"text":"answer"}}]}},"groundingMetadata":{{"webSearchQueries":[{queries}],"groundingChunks":[{chunks}],"groundingSupports":[{supports}]}}}}],"modelVersion":"g"}}"#
    )
}

#[test]
fn gemini_replies_with_many_chunks_and_supports() {
    assert_linear_reply("gemini generateContent", gemini_body, |b| reply_of(EngineId::Gemini, 200, b));
}

/// A chat completions body: many search results and citations.
fn perplexity_body(n: usize) -> String {
    let results = json_list(n / 2, "", "", |i| {
        format!(r#"{{"title":"t{i}","url":"https://p{i:09}.example/","date":"2025-01-01"}}"#)
    });
    let citations = json_list(n / 2, "", "", |i| format!(r#""https://p{i:09}.example/""#));
    format!(
        r#"{{"id":"p","model":"sonar","choices":[{{"message":{{"content":[{{"type":"text","text":"a"}},{{"type":"text","text":"b"}}]}}}}],"search_results":[{results}],"citations":[{citations}]}}"#
    )
}

#[test]
fn perplexity_replies_with_many_results() {
    assert_linear_reply("perplexity chat completions", perplexity_body, |b| reply_of(EngineId::Perplexity, 200, b));
}

/// An HTML error page with a tag every few hundred bytes and scripts and styles among
/// them (every tag used to lower-case the rest of the page).
fn html_page(n: usize) -> String {
    let mut s = String::from("<html><body>");
    let mut i = 0;
    while s.len() < n {
        match i % 8 {
            0 => s.push_str("<script>var a = '<b>';</script>"),
            1 => s.push_str("<STYLE>p{}</STYLE>"),
            _ => s.push_str("<p>"),
        }
        s.push_str(&"gateway error ".repeat(16));
        i += 1;
    }
    s.push_str("<style>unclosed");
    s
}

/// An error envelope with a long message and many google.rpc details.
fn error_envelope(n: usize) -> String {
    let details = json_list(n / 2, "", "", |i| format!(r#"{{"reason":"REASON_{i}","domain":"googleapis.com"}}"#));
    format!(
        r#"{{"error":{{"code":400,"status":"INVALID_ARGUMENT","type":"invalid_request_error","message":"{}","details":[{details}]}}}}"#,
        "m".repeat(n / 2)
    )
}

/// Every engine's error mapper (and the settings page's key test) over `make`'s replies:
/// `statuses` gives the status each engine's reply comes with, in [`EngineId::ALL`] order,
/// `key_test` the engine and status the key test reads.
fn every_engine_linear(what: &str, make: fn(usize) -> String, statuses: [u16; 9], key_test: (EngineId, u16)) {
    for (engine, status) in EngineId::ALL.into_iter().zip(statuses) {
        assert_linear_reply(&format!("{engine} {what}"), make, move |b| reply_of(engine, status, b));
    }
    let (engine, status) = key_test;
    assert_linear_reply(&format!("key test {what}"), make, move |b| {
        std::hint::black_box(interpret_engine_key_test(engine, status, b));
    });
}

#[test]
fn html_error_pages_of_every_engine() {
    // Each engine's gateway page at the status it comes with (Perplexity's openresty 401,
    // Doubao's 403, ERNIE's 500, Hunyuan's 401).
    every_engine_linear(
        "html error page",
        html_page,
        [502, 502, 502, 502, 401, 502, 403, 500, 401],
        (EngineId::Perplexity, 401),
    );
}

#[test]
fn error_envelopes_of_every_engine() {
    // In a 2xx body (mapped by the parser) and at an error status (by the error mapper).
    every_engine_linear(
        "error envelope",
        error_envelope,
        [200, 400, 200, 400, 200, 400, 200, 200, 400],
        (EngineId::Gemini, 200),
    );
}

#[test]
fn the_reply_shapes_parse_as_intended() {
    // The shapes above must reach the code they are meant to load, not an early refusal.
    let how = |engine| Interpret { model: "m", wire: wire(engine) };
    let ok = |engine, body: &str| interpret(&EngineReply { status: 200, headers: &[], body }, &how(engine)).unwrap();
    let m = ok(EngineId::Deepseek, &messages_body(50_000));
    let k = 50_000 / 330;
    assert_eq!((m.queries.len(), m.raw_sources.len()), (2 * k, k));
    assert_eq!(m.raw_sources[0].query_index, k as u32, "results found their query by id");
    let o = ok(EngineId::Openai, &openai_body(50_000));
    assert!(o.raw_sources.len() > 100 && o.raw_citations.unwrap().len() > 100);
    let g = ok(EngineId::Gemini, &gemini_body(50_000));
    assert!(g.raw_sources.len() > 100 && g.raw_citations.unwrap().len() > 100 && g.queries.len() > 100);
    let p = ok(EngineId::Perplexity, &perplexity_body(50_000));
    assert_eq!(p.raw_answer, "ab");
    assert!(p.raw_sources.len() > 100);
    let page = html_page(50_000);
    let e = interpret(&EngineReply { status: 502, headers: &[], body: &page }, &how(EngineId::Deepseek)).unwrap_err();
    assert!(e.message.contains("gateway error") && !e.message.contains("var a"), "{}", e.message);
    let env = error_envelope(50_000);
    let e = interpret(&EngineReply { status: 400, headers: &[], body: &env }, &how(EngineId::Gemini)).unwrap_err();
    assert!(e.message.contains("invalid_request_error: mmm"), "{}", e.message);
}

// ---------------------------------------------------------------------------------------
// Snapshots of the limit's size (security review II, finding 5): a run of
// `limits::MAX_SNAPSHOT_TARGETS` targets and `limits::MAX_SNAPSHOT_PROMPTS` prompts against
// one of a tenth of that, for each comparison that used to search a list per entry.

use geo_core::compare::{compare_engines, diff_runs, EngineRun};
use geo_core::limits::{MAX_SNAPSHOT_PROMPTS, MAX_SNAPSHOT_TARGETS};
use geo_core::metrics::{compute_run_metrics, RunMetrics};
use geo_core::model::{Prompt, Run};

/// Two runs of one project (the second asks the same prompts), each with `n` targets and `n`
/// prompts, their metrics, and the project's prompts.
struct Snapshots {
    runs: [Run; 2],
    metrics: [RunMetrics; 2],
    prompts: Vec<Prompt>,
}

fn snapshots(n: usize) -> Snapshots {
    let prompts: Vec<Prompt> = (0..n)
        .map(|i| Prompt {
            id: format!("prompt-{i:06}"),
            project_id: "pr".into(),
            text: format!("question {i}"),
            tags: vec![],
            created_at: "2026-12-01T00:00:00.000Z".into(),
            updated_at: "2026-12-01T00:00:00.000Z".into(),
        })
        .collect();
    let targets: Vec<Target> = (0..n)
        .map(|i| Target {
            id: format!("target-{i:06}"),
            kind: if i == 0 { TargetKind::Brand } else { TargetKind::Competitor },
            label: format!("Company {i}"),
            aliases: vec![format!("Company {i}")],
            domains: vec![],
        })
        .collect();
    let run = |id: &str, engine: &str| -> Run {
        let mut run: Run = serde_json::from_value(serde_json::json!({
            "id": id, "projectId": "pr", "status": "completed", "createdAt": "2026-12-01T00:00:00.000Z",
            "appVersion": "0", "schemaVersion": 1, "plannedProbeCount": n,
            "config": {"engine": engine, "model": "m", "repeats": 1, "concurrency": 1, "maxSearches": 1,
                "maxTokens": 1, "temperature": 1, "systemPromptVersion": "v"},
            "aliasSnapshot": [], "promptSnapshot": []
        }))
        .unwrap();
        run.alias_snapshot = targets.clone();
        run.prompt_snapshot = prompts.clone();
        run
    };
    let runs = [run("run-a", "deepseek"), run("run-b", "openai")];
    let metrics = [compute_run_metrics(&runs[0], &[], None), compute_run_metrics(&runs[1], &[], None)];
    Snapshots { runs, metrics, prompts }
}

fn metrics_of_snapshots(s: &Snapshots) {
    std::hint::black_box(compute_run_metrics(&s.runs[0], &[], None));
}

fn diff_of_snapshots(s: &Snapshots) {
    std::hint::black_box(diff_runs((&s.runs[1], &s.metrics[1]), (&s.runs[0], &s.metrics[0])));
}

fn engines_of_snapshots(s: &Snapshots) {
    let runs =
        [EngineRun { run: &s.runs[0], metrics: &s.metrics[0] }, EngineRun { run: &s.runs[1], metrics: &s.metrics[1] }];
    std::hint::black_box(compare_engines("pr", &s.prompts, &runs));
}

/// A comparison over [`Snapshots`], by name.
type SnapshotCase = (&'static str, fn(&Snapshots));

#[test]
fn limit_sized_snapshots_compare_in_linear_time() {
    assert_eq!((MAX_SNAPSHOT_TARGETS, MAX_SNAPSHOT_PROMPTS), (10_000, 10_000));
    let (small, large) = (MAX_SNAPSHOT_TARGETS / 10, MAX_SNAPSHOT_TARGETS);
    let cases: [SnapshotCase; 3] = [
        ("run metrics (target de-duplication)", metrics_of_snapshots),
        ("diff_runs", diff_of_snapshots),
        ("compare_engines", engines_of_snapshots),
    ];
    for (name, run) in cases {
        assert_linear_work(name, snapshots(small), snapshots(large), 10, run);
    }
    // The comparisons see every target and prompt of the limit-sized runs.
    let s = snapshots(large);
    let diff = diff_runs((&s.runs[1], &s.metrics[1]), (&s.runs[0], &s.metrics[0]));
    assert_eq!((diff.targets.len(), diff.prompts.len()), (large, large));
    let runs =
        [EngineRun { run: &s.runs[0], metrics: &s.metrics[0] }, EngineRun { run: &s.runs[1], metrics: &s.metrics[1] }];
    assert_eq!(compare_engines("pr", &s.prompts, &runs).prompts.len(), large);
}
