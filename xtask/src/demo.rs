//! `cargo xtask demo [--real]`: regenerates `demo/demo-data.json`, the example project the web
//! app seeds on a first visit (seed §8.2, §10 item 4), then `demo/demo-first-view.json`, what
//! that seeding stores for the dashboard's first view (issue 39), by geo-web's own test of it.
//!
//! The file is made by the real probing path, `geo-probe run`, never by hand:
//!
//! 1. an input envelope holds the demo project (`proj_demo`, `isDemo: true`, brand 元构场 vs
//!    智谱营销 and GEOBoost as in `fixtures/project.json`, with that project's starter fact
//!    sheet, which every run freezes as its `factSnapshot`) and seven prompts whose texts are
//!    fixture prompts, so the mock answers each with its recorded response;
//! 2. `geo-probe run` runs it twice (6 prompts × 3 repeats = 18 probes per run, 36 in all)
//!    against the mock DeepSeek server (`geo-mock --port 0`), one request at a time so the
//!    outcome does not depend on thread timing; the second run's prompts carry `[mock:…]`
//!    scripts (a retried 500, a search error, a rate-limited probe, an empty answer) that are
//!    removed from the stored texts afterwards;
//! 3. in the newest week every other engine of `geo-probe run --engine` answers the same
//!    prompts on week one's output, one `geo-probe run` per engine against the same mock, each
//!    in its own recorded shape ([`ENGINE_RUNS`]: which fixture each prompt gets), so the
//!    Engines page, the prompt × engine matrix and the cited marks have something to compare;
//! 4. ids and times are moved to fixed values (run 1 on 2026-11-22, the engine runs side by
//!    side on 2026-11-28 sharing one `groupId`, run 2 on 2026-11-29, offsets inside a run
//!    kept), and every derived probe field is dropped, so the file holds raw results only and
//!    the app re-analyses them with the live code.
//!
//! `--real` does the same against the real APIs: DeepSeek with `DEEPSEEK_API_KEY` (no
//! scripts, the default concurrency), and each other engine whose key variable is set; it
//! reminds you to check the answers for personal data first.

use anyhow::{bail, Context, Result};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};

use crate::sys::workspace_root;
use geo_core::model::EngineId;
use geo_core::provider::spec;

/// Id of the demo project.
pub const PROJECT_ID: &str = "proj_demo";
/// Where the demo lands (copied into `dist/demo/` by `cargo xtask dist`).
pub const OUT: &str = "demo/demo-data.json";
/// The demo's first view, written from what seeding [`OUT`] stores (geo-web `repo::first_view`).
pub const FIRST_VIEW_OUT: &str = "demo/demo-first-view.json";
/// Probe fields derived from the raw result; the demo file does not keep them.
pub const DERIVED: &[&str] =
    &["answer", "sources", "mentions", "listItems", "otherEntities", "answerLinks", "claims", "riskFlags"];
/// The fixture project, whose starter fact sheet the demo project carries.
pub const FIXTURE_PROJECT: &str = "fixtures/project.json";
/// Fixed creation times of the two DeepSeek runs (ISO 8601 UTC).
const RUN_TIMES: [&str; 2] = ["2026-11-22T02:00:00.000Z", "2026-11-29T02:00:00.000Z"];
/// When the other engines' runs start, side by side: in the newest week, before DeepSeek's
/// week-two run, so the dashboard still opens on that run (the newest of any engine) and
/// each week-two DeepSeek figure keeps comparing with week one (`previousRunId` is per engine).
const ENGINE_RUN_TIME: &str = "2026-11-28T02:00:00.000Z";
/// The `groupId` the engine runs share, as runs started together do.
pub const ENGINE_GROUP_ID: &str = "grp_20261128T020000_demo";

/// One engine's demo run: the engine id of `geo-probe run --engine` and, per prompt of
/// [`PROMPTS`] in order, the `[mock:…]` script that picks its recorded answers
/// (`ok=N` is that engine's `fixtures/engines/<engine>/pNN_…`).
pub struct EngineRun {
    /// The engine.
    pub engine: EngineId,
    /// Mock script per prompt, in [`PROMPTS`] order.
    pub scripts: [&'static str; 7],
}

impl EngineRun {
    /// The variable `geo-probe` reads the engine's key from (removed for the mock), from
    /// geo-core's engine table.
    pub fn key_var(&self) -> &'static str {
        spec(self.engine).key_env
    }
}

/// The variable `geo-probe` reads DeepSeek's key from (the demo's own weeks are DeepSeek's),
/// from geo-core's engine table: xtask spells no key variable itself.
pub fn deepseek_key_var() -> &'static str {
    spec(EngineId::Deepseek).key_env
}

/// The story of the engines (week two): every engine answers the generic, scenario and
/// comparison prompts with its Chinese list (`p01`: the brand first, in the engine's own
/// citation shape: Claude's and ChatGPT's citations, Gemini's redirect domains, Qwen's
/// `[ref_n]`, Doubao's annotations, ERNIE's `^[n]^`, Hunyuan's `[n]`), the brand prompt
/// without a search (`p08`) and the report prompt with a search that partly failed (`p10`);
/// the product prompt gets `p03` where the engine has one (one of three cut off by the length
/// limit on ChatGPT, Qwen and Doubao). **Gemini leaves the brand out**: on both generic prompts
/// and the scenario prompt it answers with `p22`, a list of the competitors drawn from
/// zhipu-marketing.com, geoboost.io and media pages, without 元构场 or its site.
pub const ENGINE_RUNS: &[EngineRun] = &[
    EngineRun { engine: EngineId::Anthropic, scripts: naming("ok=01") },
    EngineRun { engine: EngineId::Openai, scripts: naming(ONE_OF_THREE_CUT_OFF) },
    EngineRun { engine: EngineId::Gemini, scripts: ["ok=22", "ok=22", "ok=01", "ok=22", "ok=08", "ok=10", "ok=01"] },
    EngineRun { engine: EngineId::Perplexity, scripts: naming("ok=03") },
    EngineRun { engine: EngineId::Qwen, scripts: naming(ONE_OF_THREE_CUT_OFF) },
    EngineRun { engine: EngineId::Doubao, scripts: naming(ONE_OF_THREE_CUT_OFF) },
    EngineRun { engine: EngineId::Ernie, scripts: naming("ok=03") },
    EngineRun { engine: EngineId::Hunyuan, scripts: naming("ok=01") },
];

/// The scripts of an engine that names the brand, in [`PROMPTS`] order: its list `p01` on the
/// generic, scenario and comparison prompts, `product` on the product prompt, `p08` on the
/// brand prompt and `p10` on the report prompt.
const fn naming(product: &'static str) -> [&'static str; 7] {
    ["ok=01", "ok=01", product, "ok=01", "ok=08", "ok=10", "ok=01"]
}

/// The product prompt's script where the engine's `p03` is cut off by the length limit: one
/// attempt of three.
const ONE_OF_THREE_CUT_OFF: &str = "ok=01,ok=03,ok=01";

const PROJECT_TIME: &str = "2026-11-20T08:00:00.000Z";
const EXPORTED_AT: &str = "2026-11-29T03:00:00.000Z";

/// One demo prompt: its id, a prompt text of `fixtures/project.json` (so the mock answers it
/// with that prompt's recorded response), its tags, and the `[mock:…]` scripts of the first
/// and second run (empty: every request answered with the prompt's own fixture).
pub struct DemoPrompt {
    /// Prompt id.
    pub id: &'static str,
    /// Prompt text, one of `fixtures/project.json`.
    pub text: &'static str,
    /// Prompt tags.
    pub tags: &'static [&'static str],
    /// Mock script of run 1 (week one).
    pub first: &'static str,
    /// Mock script of run 2 (week two).
    pub second: &'static str,
}

/// The demo's story, told by recorded responses: the brand is strong on brand prompts (05–07)
/// and absent from the generic ones in week one (01, 02); competitors are named first on
/// others (02–04); the own site is missing from some answers (01, 02, 07, a search error on
/// 05); in week two a 36kr article brings the brand into a generic answer (`ok=23`), the
/// second generic prompt's answers draw on other sites (`ok=25`), one probe fails (three 429s)
/// and one stays empty; a brand answer varies between repeats (`ok=26`).
pub const PROMPTS: &[DemoPrompt] = &[
    DemoPrompt {
        id: "prm_demo_01",
        text: "国内做AI搜索优化（GEO）的服务商有哪些？",
        tags: &["generic"],
        first: "",
        second: "[mock:ok=23,ok,ok=23]",
    },
    DemoPrompt {
        id: "prm_demo_02",
        text: "想让品牌出现在DeepSeek的回答里，应该找哪家公司？",
        tags: &["generic"],
        first: "",
        second: "[mock:ok=25]",
    },
    DemoPrompt {
        id: "prm_demo_03",
        text: "GEO监测工具哪个好用？",
        tags: &["product"],
        first: "",
        second: "[mock:ok,429,429,429,empty]",
    },
    DemoPrompt {
        id: "prm_demo_04",
        text: "中小企业做GEO优化有哪些服务商可选？",
        tags: &["scenario"],
        first: "",
        second: "",
    },
    DemoPrompt {
        id: "prm_demo_05",
        text: "元构场智能科技是一家什么样的公司？",
        tags: &["brand"],
        first: "[mock:ok,ok=26,search_error]",
        second: "[mock:500,ok,ok,ok=26]",
    },
    DemoPrompt {
        id: "prm_demo_06",
        text: "元构场的GEO监测报告包含哪些指标？",
        tags: &["brand", "product"],
        first: "",
        second: "",
    },
    DemoPrompt {
        id: "prm_demo_07",
        text: "对比一下元构场、智谱营销和GEOBoost的GEO服务",
        tags: &["brand", "competitor"],
        first: "",
        second: "[mock:ok,search_error,ok]",
    },
];

/// Entry point of `cargo xtask demo [--real]`.
pub fn run(args: &[String]) -> Result<()> {
    let mut real = false;
    for a in args {
        match a.as_str() {
            "--real" => real = true,
            other => bail!("unknown demo option {other:?}: use --real to probe the DeepSeek API instead of the mock"),
        }
    }
    let deepseek_key_var = deepseek_key_var();
    if real && std::env::var(deepseek_key_var).map(|k| k.trim().is_empty()).unwrap_or(true) {
        bail!("--real needs {deepseek_key_var} in the environment; export your DeepSeek api key and run again");
    }
    let root = workspace_root();
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let status = Command::new(&cargo)
        .current_dir(&root)
        .args(["build", "-q", "-p", "geo-cli", "-p", "geo-mock"])
        .status()
        .context("cannot start cargo to build geo-probe and geo-mock")?;
    if !status.success() {
        bail!("building geo-probe and geo-mock failed");
    }
    let bin = root.join("target/debug");
    let work = std::env::temp_dir().join(format!("geo-demo-{}", std::process::id()));
    std::fs::create_dir_all(&work)?;
    let result = generate(&bin, &work, real);
    let _ = std::fs::remove_dir_all(&work);
    let env = result?;
    let out = root.join(OUT);
    std::fs::create_dir_all(out.parent().expect("OUT has a directory"))?;
    let mut text = serde_json::to_string_pretty(&env)?;
    text.push('\n');
    std::fs::write(&out, text).with_context(|| format!("cannot write {}", out.display()))?;
    println!("wrote {OUT}: {}", summary(&env));
    // The demo's first view (issue 39): the records the app's seeding stores, written by
    // geo-web's own test of them (`repo::first_view`), so that it is made by the seeding code.
    let status = Command::new(&cargo)
        .current_dir(&root)
        .args(["test", "-q", "-p", "geo-web", "--lib", "first_view"])
        .env("GEO_FIRST_VIEW_UPDATE", "1")
        .status()
        .context("cannot start cargo to write the demo's first view")?;
    if !status.success() {
        bail!("writing {FIRST_VIEW_OUT} failed: see geo-web's `repo::first_view` tests above");
    }
    println!("wrote {FIRST_VIEW_OUT}: what seeding {OUT} stores for the dashboard's first view");
    if real {
        println!(
            "before committing, read every answer in {OUT} for personal data (phone numbers, e-mail \
             addresses, ID numbers, names of legal representatives) and remove it"
        );
    }
    Ok(())
}

/// The mock server, killed when dropped.
pub(crate) struct Mock {
    child: Child,
    /// Its base URL.
    pub(crate) url: String,
}

impl Drop for Mock {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts `geo-mock --port 0 ARGS` and reads its URL from the first line.
pub(crate) fn start_mock(bin: &Path, args: &[&str]) -> Result<Mock> {
    let mut child = Command::new(bin.join("geo-mock"))
        .args(["--port", "0"])
        .args(args)
        .stdout(Stdio::piped())
        .spawn()
        .context("cannot start geo-mock")?;
    let mut line = String::new();
    let stdout = child.stdout.take().context("geo-mock has no stdout")?;
    BufReader::new(stdout).read_line(&mut line)?;
    let url = line.trim().strip_prefix("geo-mock listening on ").map(str::to_string);
    let mut mock = Mock { child, url: String::new() };
    match url {
        Some(u) => mock.url = u,
        None => bail!("geo-mock did not print its address (got {line:?})"),
    }
    Ok(mock)
}

/// The demo project's fact sheet (`facts`, `watchTerms`): the fixture project's starter sheet,
/// written from what the recorded answers say (`fixtures/project.json`), with the demo's target
/// ids (`tgt_yuangouchang` → `tgt_demo_yuangouchang`).
pub fn fact_sheet(fixture_project: &Value) -> Result<(Value, Value)> {
    let project = &fixture_project["projects"][0];
    let mut facts = project["facts"].clone();
    for fact in facts.as_array_mut().context("the fixture project has no facts")? {
        let target = fact["targetId"].as_str().context("a fact without targetId")?;
        let demo = target.strip_prefix("tgt_").context("a fact's target is not a tgt_ id")?;
        fact["targetId"] = json!(format!("tgt_demo_{demo}"));
    }
    let watch_terms = project["watchTerms"].clone();
    if !watch_terms.is_array() {
        bail!("the fixture project has no watchTerms");
    }
    Ok((facts, watch_terms))
}

/// The input envelope: the demo project (with the starter fact sheet [`fact_sheet`], which
/// every run freezes as its `factSnapshot`) and its prompts, no runs.
pub fn input_envelope() -> Result<Value> {
    let path = workspace_root().join(FIXTURE_PROJECT);
    let fixture: Value =
        serde_json::from_str(&std::fs::read_to_string(&path).context("cannot read fixtures/project.json")?)
            .context("fixtures/project.json is not json")?;
    let (facts, watch_terms) = fact_sheet(&fixture)?;
    let target = |id: &str, kind: &str, label: &str, aliases: &[&str], domains: &[&str]| json!({ "id": id, "kind": kind, "label": label, "aliases": aliases, "domains": domains });
    let prompts: Vec<Value> = PROMPTS
        .iter()
        .map(|p| {
            json!({ "id": p.id, "projectId": PROJECT_ID, "text": p.text, "tags": p.tags,
                    "createdAt": PROJECT_TIME, "updatedAt": PROJECT_TIME })
        })
        .collect();
    Ok(json!({
        "format": "geo-probe-export",
        "version": 1,
        "exportedAt": PROJECT_TIME,
        "appVersion": "0.1.0",
        "projects": [{
            "id": PROJECT_ID,
            "name": "示例：元构场 GEO 监测",
            "brand": target("tgt_demo_yuangouchang", "brand", "元构场", &["元构场", "元构场智能科技", "Yuangouchang"], &["yuangouchang.com", "yuangouchang.cn"]),
            "competitors": [
                target("tgt_demo_zhipu_marketing", "competitor", "智谱营销", &["智谱营销", "ZhipuMarketing"], &["zhipu-marketing.com"]),
                target("tgt_demo_geoboost", "competitor", "GEOBoost", &["GEOBoost", "GEO Boost"], &["geoboost.io"]),
            ],
            "isDemo": true,
            "createdAt": PROJECT_TIME,
            "updatedAt": PROJECT_TIME,
            "facts": facts,
            "watchTerms": watch_terms,
        }],
        "prompts": prompts,
        "runs": [],
        "probes": [],
    }))
}

/// `input` with each prompt's text prefixed by its script of that run (the mock only).
fn with_scripts(input: &Value, script: impl Fn(&DemoPrompt) -> &'static str) -> Value {
    let mut out = input.clone();
    for p in out["prompts"].as_array_mut().into_iter().flatten() {
        if let Some(demo) = PROMPTS.iter().find(|d| p["id"] == d.id) {
            let s = script(demo);
            p["text"] = json!(if s.is_empty() { demo.text.to_string() } else { format!("{s} {}", demo.text) });
        }
    }
    out
}

fn generate(bin: &Path, work: &Path, real: bool) -> Result<Value> {
    let input = input_envelope()?;
    let original_prompts = input["prompts"].clone();
    let mock = if real { None } else { Some(start_mock(bin, &["--latency-ms", &MOCK_LATENCY_MS.to_string()])?) };
    let base = mock.as_ref().map(|m| m.url.clone());

    // Week one, then week two on week one's output; the scripts go to the mock only.
    let file0 = work.join("input.json");
    let first = if real { input.clone() } else { with_scripts(&input, |p| p.first) };
    std::fs::write(&file0, serde_json::to_vec_pretty(&first)?)?;
    let file1 = work.join("run1.json");
    probe_run(bin, &file0, &file1, base.as_deref(), real)?;

    let mut second: Value = read(&file1)?;
    second["prompts"] = original_prompts.clone();
    if !real {
        second = with_scripts(&second, |p| p.second);
    }
    let file2_in = work.join("run2-input.json");
    std::fs::write(&file2_in, serde_json::to_vec_pretty(&second)?)?;
    let file2 = work.join("run2.json");
    probe_run(bin, &file2_in, &file2, base.as_deref(), real)?;

    // The other engines on week one's output (their runs have no previous run of their own),
    // each run adding to the last one's file; week two's DeepSeek run is added afterwards.
    let week_two: Value = read(&file2)?;
    let mut engines: Value = read(&file1)?;
    for run in ENGINE_RUNS {
        if real && std::env::var(run.key_var()).map(|k| k.trim().is_empty()).unwrap_or(true) {
            println!("{} skipped: {} is not set", run.engine.as_str(), run.key_var());
            continue;
        }
        engines["prompts"] = original_prompts.clone();
        if !real {
            engines = with_engine_scripts(&engines, run);
        }
        let input = work.join(format!("{}-input.json", run.engine.as_str()));
        std::fs::write(&input, serde_json::to_vec_pretty(&engines)?)?;
        let out = work.join(format!("{}.json", run.engine.as_str()));
        engine_run(bin, &input, &out, base.as_deref(), run)?;
        engines = read(&out)?;
    }
    drop(mock);

    let mut env = merge_week_two(engines, &week_two)?;
    env["prompts"] = original_prompts;
    carry_fact_sheet(&mut env, &input["projects"][0])?;
    finish(&mut env, !real)?;
    Ok(env)
}

/// The demo project's fact sheet on the project and, as each run's `factSnapshot`, on every
/// run: what `geo-probe run` freezes when a run starts. `geo-probe run` reads its input through
/// the import, which keeps only the fields its schema names; the sheet is set here from the
/// input project, so the file holds it however the input was read (the project's sheet never
/// changes between the demo's runs).
pub fn carry_fact_sheet(env: &mut Value, input_project: &Value) -> Result<()> {
    let (facts, watch_terms) = (input_project["facts"].clone(), input_project["watchTerms"].clone());
    let project = env["projects"].get_mut(0).context("the output has no project")?;
    project["facts"] = facts.clone();
    project["watchTerms"] = watch_terms.clone();
    for run in env["runs"].as_array_mut().context("the output has no runs")? {
        run["factSnapshot"] = json!({ "facts": facts, "watchTerms": watch_terms });
    }
    Ok(())
}

fn read(path: &Path) -> Result<Value> {
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    serde_json::from_str(&text).with_context(|| format!("{} is not json", path.display()))
}

/// One `geo-probe run` of the whole demo project.
fn probe_run(bin: &Path, input: &Path, out: &Path, base: Option<&str>, real: bool) -> Result<()> {
    let mut cmd = Command::new(bin.join("geo-probe"));
    cmd.arg("run").arg(input).args(["--project", PROJECT_ID, "--repeats", "3"]).arg("--out").arg(out);
    match base {
        Some(url) => {
            // The mock: proxy mode (no key) and one request at a time, so the `[mock:…]`
            // scripts land on the same probes every time.
            cmd.args(["--base-url", url, "--concurrency", "1"]).env_remove(deepseek_key_var());
        }
        None if real => {}
        None => bail!("no mock address"),
    }
    let status = cmd.status().context("cannot start geo-probe")?;
    if !status.success() {
        bail!("geo-probe run exited with {status}");
    }
    Ok(())
}

/// `input` with each prompt's text prefixed by `run`'s script for it (the mock only).
fn with_engine_scripts(input: &Value, run: &EngineRun) -> Value {
    let mut out = input.clone();
    for p in out["prompts"].as_array_mut().into_iter().flatten() {
        if let Some(i) = PROMPTS.iter().position(|d| p["id"] == d.id) {
            p["text"] = json!(format!("[mock:{}] {}", run.scripts[i], PROMPTS[i].text));
        }
    }
    out
}

/// One `geo-probe run --engine ENGINE` of the whole demo project: against the mock in proxy
/// mode (every key variable removed, one request at a time), or the real API with the key.
fn engine_run(bin: &Path, input: &Path, out: &Path, base: Option<&str>, run: &EngineRun) -> Result<()> {
    let mut cmd = Command::new(bin.join("geo-probe"));
    cmd.arg("run").arg(input).args(["--project", PROJECT_ID, "--engine", run.engine.as_str(), "--repeats", "3"]);
    cmd.arg("--out").arg(out);
    if let Some(url) = base {
        cmd.args(["--base-url", url, "--concurrency", "1"]).env_remove("GEO_PROBE_PROXY_TOKEN");
        for r in ENGINE_RUNS {
            cmd.env_remove(r.key_var());
        }
    }
    let status = cmd.status().context("cannot start geo-probe")?;
    if !status.success() {
        bail!("geo-probe run --engine {} exited with {status}", run.engine.as_str());
    }
    Ok(())
}

/// `engines` (week one and the engine runs) plus week two's DeepSeek run and its probes.
fn merge_week_two(mut engines: Value, week_two: &Value) -> Result<Value> {
    let known: Vec<Value> = engines["runs"].as_array().context("no runs")?.iter().map(|r| r["id"].clone()).collect();
    let new_runs: Vec<Value> =
        week_two["runs"].as_array().context("no runs")?.iter().filter(|r| !known.contains(&r["id"])).cloned().collect();
    let ids: Vec<Value> = new_runs.iter().map(|r| r["id"].clone()).collect();
    let probes = week_two["probes"].as_array().context("no probes")?.iter().filter(|p| ids.contains(&p["runId"]));
    let probes: Vec<Value> = probes.cloned().collect();
    engines["runs"].as_array_mut().context("no runs")?.extend(new_runs);
    engines["probes"].as_array_mut().context("no probes")?.extend(probes);
    Ok(engines)
}

/// Strips the `[mock:…]` marker from a prompt text.
pub fn strip_marker(text: &str) -> String {
    match (text.find("[mock:"), text.find(']')) {
        (Some(start), Some(end)) if end > start => format!("{}{}", &text[..start], &text[end + 1..]).trim().to_string(),
        _ => text.to_string(),
    }
}

/// How long the mock waits before each answer when making the demo.
pub const MOCK_LATENCY_MS: u64 = 600;

/// The latency of one answered request to DeepSeek's web-search endpoint, modelled from the
/// response: 8 s before the answer starts (the request, the model's thinking), 6 s per web
/// search (search, fetch, feed the results back) and 30 ms per output token (about 33 tokens a
/// second), then ±10 % from a hash of `key` so repeats differ as real ones do. Answers with
/// one or two searches take 25–55 s: web-search answers take tens of seconds.
pub fn modeled_latency_ms(searches: u64, output_tokens: u64, key: &str) -> i64 {
    let base = 8_000 + 6_000 * searches as i64 + 30 * output_tokens as i64;
    let hash = key.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3));
    let jitter = (hash % 201) as i64 - 100; // in ‰: ±10 %
    base + base * jitter / 1000
}

/// Replaces the mock's answer time in each answered probe's `latencyMs` (`success` and
/// `empty`; an HTTP error comes back as fast as the mock's) with [`modeled_latency_ms`], and
/// moves every later `createdAt` of the run, and its `finishedAt`, by the time added, so the
/// timeline stays that of a run made one probe at a time.
pub fn model_latencies(env: &mut Value) -> Result<()> {
    let mut added: Vec<(String, i64)> = Vec::new();
    let probes = env["probes"].as_array_mut().context("the output has no probes")?;
    let mut order: Vec<usize> = (0..probes.len()).collect();
    order.sort_by_key(|&i| {
        (
            probes[i]["runId"].as_str().unwrap_or_default().to_string(),
            probes[i]["createdAt"].as_str().and_then(parse_iso),
        )
    });
    for i in order {
        let p = &mut probes[i];
        let run = p["runId"].as_str().unwrap_or_default().to_string();
        let answered = matches!(p["status"].as_str(), Some("success" | "empty"));
        let mut delta = 0;
        if answered {
            let key = format!("{run}/{}/{}", p["promptId"].as_str().unwrap_or_default(), p["repeatIndex"]);
            let usage = &p["usage"];
            let modeled = modeled_latency_ms(
                usage["webSearchRequests"].as_u64().unwrap_or(0),
                usage["outputTokens"].as_u64().unwrap_or(0),
                &key,
            );
            delta = modeled - p["latencyMs"].as_i64().unwrap_or(0);
            p["latencyMs"] = json!(modeled);
        }
        let total = match added.iter_mut().find(|(r, _)| *r == run) {
            Some((_, t)) => {
                *t += delta;
                *t
            }
            None => {
                added.push((run, delta));
                delta
            }
        };
        if let Some(t) = p["createdAt"].as_str().and_then(parse_iso) {
            p["createdAt"] = json!(format_iso(t + total));
        }
    }
    for run in env["runs"].as_array_mut().into_iter().flatten() {
        let by = added.iter().find(|(r, _)| run["id"] == r.as_str()).map_or(0, |(_, t)| *t);
        if let Some(t) = run["finishedAt"].as_str().and_then(parse_iso) {
            run["finishedAt"] = json!(format_iso(t + by));
        }
    }
    Ok(())
}

/// Fixed ids and times, marker-free snapshots, raw probes only; with `model_latency` (a mock
/// run) the latencies of [`model_latencies`].
pub fn finish(env: &mut Value, model_latency: bool) -> Result<()> {
    if model_latency {
        model_latencies(env)?;
    }
    env["exportedAt"] = json!(EXPORTED_AT);
    let runs = env["runs"].as_array_mut().context("the output has no runs")?;
    let engine_of = |run: &Value| run["config"]["engine"].as_str().unwrap_or("deepseek").to_string();
    let deepseek_runs = runs.iter().filter(|r| engine_of(r) == "deepseek").count();
    if deepseek_runs != 2 {
        bail!("expected two DeepSeek runs, found {deepseek_runs}");
    }
    runs.sort_by(|a, b| a["createdAt"].as_str().cmp(&b["createdAt"].as_str()));
    // old id → (new id, shift in ms)
    let mut moves: Vec<(String, String, i64)> = Vec::new();
    let stamp = |at: &str| at.chars().take(19).filter(|c| *c != '-' && *c != ':').collect::<String>();
    let mut week = 0;
    for run in runs.iter_mut() {
        let old = run["id"].as_str().unwrap_or_default().to_string();
        let start = parse_iso(run["createdAt"].as_str().unwrap_or_default()).context("a run has a bad createdAt")?;
        let engine = engine_of(run);
        let (at, new_id) = if engine == "deepseek" {
            week += 1;
            (RUN_TIMES[week - 1], format!("run_{}_demo", stamp(RUN_TIMES[week - 1])))
        } else {
            run["groupId"] = json!(ENGINE_GROUP_ID);
            (ENGINE_RUN_TIME, format!("run_{}_{engine}_demo", stamp(ENGINE_RUN_TIME)))
        };
        let target = parse_iso(at).expect("fixed times parse");
        moves.push((old, new_id, target - start));
    }
    let moved = |id: &str| moves.iter().find(|(old, ..)| old == id).cloned();
    let shift = |v: &mut Value, by: i64| {
        if let Some(t) = v.as_str().and_then(parse_iso) {
            *v = json!(format_iso(t + by));
        }
    };
    for run in runs.iter_mut() {
        let (_, new_id, by) = moved(run["id"].as_str().unwrap_or_default()).expect("every run was mapped");
        run["id"] = json!(new_id);
        shift(&mut run["createdAt"], by);
        shift(&mut run["finishedAt"], by);
        if let Some((_, prev, _)) = run["previousRunId"].as_str().and_then(moved) {
            run["previousRunId"] = json!(prev);
        }
        for p in run["promptSnapshot"].as_array_mut().into_iter().flatten() {
            let text = strip_marker(p["text"].as_str().unwrap_or_default());
            p["text"] = json!(text);
        }
    }
    runs.sort_by(|a, b| (a["createdAt"].as_str(), a["id"].as_str()).cmp(&(b["createdAt"].as_str(), b["id"].as_str())));
    for probe in env["probes"].as_array_mut().into_iter().flatten() {
        let (_, new_id, by) =
            moved(probe["runId"].as_str().unwrap_or_default()).context("a probe of an unknown run")?;
        let id = format!("{new_id}__{}__{}", probe["promptId"].as_str().unwrap_or_default(), probe["repeatIndex"]);
        probe["id"] = json!(id);
        probe["runId"] = json!(new_id);
        shift(&mut probe["createdAt"], by);
        if let Some(map) = probe.as_object_mut() {
            for field in DERIVED {
                map.remove(*field);
            }
        }
    }
    Ok(())
}

/// `1 project · 6 prompts · 2 runs · 36 probes (success 34, error 1, empty 1)`.
pub fn summary(env: &Value) -> String {
    let count = |k: &str| env[k].as_array().map_or(0, Vec::len);
    let mut by_status: Vec<(String, usize)> = Vec::new();
    for p in env["probes"].as_array().into_iter().flatten() {
        let s = p["status"].as_str().unwrap_or("?").to_string();
        match by_status.iter_mut().find(|(k, _)| *k == s) {
            Some((_, n)) => *n += 1,
            None => by_status.push((s, 1)),
        }
    }
    by_status.sort();
    let statuses: Vec<String> = by_status.iter().map(|(s, n)| format!("{s} {n}")).collect();
    format!(
        "{} project · {} prompts · {} runs · {} probes ({})",
        count("projects"),
        count("prompts"),
        count("runs"),
        count("probes"),
        statuses.join(", ")
    )
}

/// Milliseconds since the Unix epoch of `YYYY-MM-DDTHH:MM:SS(.mmm)Z`.
pub fn parse_iso(s: &str) -> Option<i64> {
    let b = s.as_bytes();
    if b.len() < 20 || !s.ends_with('Z') {
        return None;
    }
    let num = |r: std::ops::Range<usize>| s.get(r)?.parse::<i64>().ok();
    let (y, mo, d, h, mi, se) = (num(0..4)?, num(5..7)?, num(8..10)?, num(11..13)?, num(14..16)?, num(17..19)?);
    let ms = if b[19] == b'.' { s.get(20..s.len() - 1)?.parse::<i64>().ok()? } else { 0 };
    Some(((days_from_civil(y, mo, d) * 24 + h) * 60 + mi) * 60_000 + se * 1000 + ms)
}

/// `YYYY-MM-DDTHH:MM:SS.mmmZ` of milliseconds since the Unix epoch.
pub fn format_iso(ms: i64) -> String {
    let days = ms.div_euclid(86_400_000);
    let rest = ms.rem_euclid(86_400_000);
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{:03}Z",
        rest / 3_600_000,
        rest / 60_000 % 60,
        rest / 1000 % 60,
        rest % 1000
    )
}

// Howard Hinnant's civil calendar algorithms.
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (if m <= 2 { yoe + era * 400 + 1 } else { yoe + era * 400 }, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn check_time(s: &str, ms: i64) {
        assert_eq!(parse_iso(s), Some(ms), "{s}");
        assert_eq!(format_iso(ms), s);
    }

    #[test]
    fn times_round_trip() {
        check_time("1970-01-01T00:00:00.000Z", 0);
        check_time("2026-11-29T08:00:00.000Z", 1_795_939_200_000);
        check_time("2024-02-29T23:59:59.999Z", 1_709_251_199_999);
        assert_eq!(parse_iso("2026-11-29"), None);
        assert_eq!(parse_iso("2026-11-29T08:00:00Z"), Some(1_795_939_200_000));
    }

    #[test]
    fn markers_are_removed() {
        assert_eq!(strip_marker("[mock:500,ok] 元构场是什么？"), "元构场是什么？");
        assert_eq!(strip_marker("元构场是什么？"), "元构场是什么？");
    }

    #[test]
    fn finish_moves_ids_and_drops_derived_fields() {
        let mut env = json!({
            "runs": [
                { "id": "run_b", "createdAt": "2026-12-01T10:00:05.000Z", "previousRunId": "run_a",
                  "promptSnapshot": [{ "text": "[mock:429,ok] 问题" }] },
                { "id": "run_a", "createdAt": "2026-12-01T10:00:00.000Z", "finishedAt": "2026-12-01T10:00:03.500Z", "promptSnapshot": [] },
                { "id": "run_q", "createdAt": "2026-12-01T10:00:09.000Z", "config": { "engine": "qwen" },
                  "promptSnapshot": [{ "text": "[mock:ok=01] 问题" }] },
            ],
            "probes": [{ "id": "run_a__p__0", "runId": "run_a", "promptId": "p", "repeatIndex": 0,
                         "createdAt": "2026-12-01T10:00:01.250Z", "rawAnswer": "x", "answer": "x", "mentions": [] }],
        });
        finish(&mut env, false).unwrap();
        assert_eq!(env["runs"][0]["id"], "run_20261122T020000_demo");
        assert_eq!(env["runs"][0]["finishedAt"], "2026-11-22T02:00:03.500Z");
        // In time order: week one, the engine runs of the newest week, week two.
        assert_eq!(env["runs"][1]["id"], "run_20261128T020000_qwen_demo");
        assert_eq!(env["runs"][1]["groupId"], ENGINE_GROUP_ID);
        assert_eq!(env["runs"][1]["createdAt"], ENGINE_RUN_TIME);
        assert_eq!(env["runs"][1]["promptSnapshot"][0]["text"], "问题");
        assert_eq!(env["runs"][2]["id"], "run_20261129T020000_demo");
        assert_eq!(env["runs"][2]["previousRunId"], "run_20261122T020000_demo");
        assert_eq!(env["runs"][2]["promptSnapshot"][0]["text"], "问题");
        assert!(env["runs"][0].get("groupId").is_none() && env["runs"][2].get("groupId").is_none());
        let probe = &env["probes"][0];
        assert_eq!(probe["id"], "run_20261122T020000_demo__p__0");
        assert_eq!(probe["createdAt"], "2026-11-22T02:00:01.250Z");
        assert_eq!(probe["rawAnswer"], "x");
        assert!(probe.get("answer").is_none() && probe.get("mentions").is_none());
    }

    #[test]
    fn modelled_latencies_are_tens_of_seconds_and_move_the_timeline() {
        // One search and 400 output tokens: 8 + 6 + 12 = 26 s, ±10 %.
        let one = modeled_latency_ms(1, 400, "r/p/0");
        assert!((23_400..=28_600).contains(&one), "{one}");
        assert_eq!(one, modeled_latency_ms(1, 400, "r/p/0"), "deterministic");
        assert_ne!(one, modeled_latency_ms(1, 400, "r/p/1"), "repeats differ");
        let mut env = json!({
            "runs": [{ "id": "r", "createdAt": "2026-12-01T10:00:00.000Z", "finishedAt": "2026-12-01T10:00:02.000Z" }],
            "probes": [
                { "runId": "r", "promptId": "p", "repeatIndex": 1, "status": "error", "latencyMs": 600,
                  "createdAt": "2026-12-01T10:00:02.000Z", "usage": {} },
                { "runId": "r", "promptId": "p", "repeatIndex": 0, "status": "success", "latencyMs": 600,
                  "createdAt": "2026-12-01T10:00:01.000Z", "usage": { "webSearchRequests": 1, "outputTokens": 400 } },
            ],
        });
        model_latencies(&mut env).unwrap();
        let added = one - 600;
        assert_eq!(env["probes"][1]["latencyMs"], one);
        assert_eq!(env["probes"][0]["latencyMs"], 600, "an HTTP error keeps its time");
        assert_eq!(env["probes"][1]["createdAt"], format_iso(parse_iso("2026-12-01T10:00:01.000Z").unwrap() + added));
        assert_eq!(env["probes"][0]["createdAt"], format_iso(parse_iso("2026-12-01T10:00:02.000Z").unwrap() + added));
        assert_eq!(env["runs"][0]["finishedAt"], format_iso(parse_iso("2026-12-01T10:00:02.000Z").unwrap() + added));
    }

    /// The committed demo file holds raw results only and the documented counts.
    #[test]
    fn committed_demo_file_is_raw_and_complete() {
        let env: Value = serde_json::from_str(&std::fs::read_to_string(workspace_root().join(OUT)).unwrap()).unwrap();
        assert_eq!(env["format"], "geo-probe-export");
        assert_eq!(env["projects"][0]["isDemo"], true);
        assert_eq!(env["prompts"].as_array().unwrap().len(), PROMPTS.len());
        let runs = env["runs"].as_array().unwrap();
        let engines: Vec<&str> = runs.iter().map(|r| r["config"]["engine"].as_str().unwrap()).collect();
        let mut expected = vec!["deepseek"];
        let mut others: Vec<&str> = ENGINE_RUNS.iter().map(|r| r.engine.as_str()).collect();
        others.sort_unstable(); // same start: by id
        expected.extend(others);
        expected.push("deepseek");
        assert_eq!(engines, expected, "week one, every other engine, week two");
        let probes = env["probes"].as_array().unwrap();
        assert_eq!(probes.len(), runs.len() * PROMPTS.len() * 3);
        for p in probes {
            for field in DERIVED {
                assert!(p.get(*field).is_none(), "{} keeps {field}", p["id"]);
            }
        }
        assert!(!env.to_string().contains("[mock:"));
    }

    /// The demo project carries the fixture project's starter fact sheet under its own target
    /// ids, and every run froze it as its `factSnapshot`, so "What the answers say" has claims
    /// on a first visit.
    #[test]
    fn committed_demo_file_carries_the_starter_fact_sheet() {
        let read = |p: &str| -> Value {
            serde_json::from_str(&std::fs::read_to_string(workspace_root().join(p)).unwrap()).unwrap()
        };
        let (env, fixture) = (read(OUT), read(FIXTURE_PROJECT));
        let (facts, watch_terms) = fact_sheet(&fixture).unwrap();
        let project = &env["projects"][0];
        assert_eq!((&project["facts"], &project["watchTerms"]), (&facts, &watch_terms));
        assert_eq!(facts.as_array().unwrap().len(), fixture["projects"][0]["facts"].as_array().unwrap().len());
        let targets: Vec<&Value> =
            [&project["brand"]].into_iter().chain(project["competitors"].as_array().unwrap()).collect();
        for fact in facts.as_array().unwrap() {
            assert!(targets.iter().any(|t| t["id"] == fact["targetId"]), "{fact} names no demo target");
        }
        for run in env["runs"].as_array().unwrap() {
            let snapshot = &run["factSnapshot"];
            assert_eq!((&snapshot["facts"], &snapshot["watchTerms"]), (&facts, &watch_terms), "{}", run["id"]);
        }
    }
}
