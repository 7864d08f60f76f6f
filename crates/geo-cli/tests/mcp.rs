//! `geo-probe mcp` driven by the official Rust SDK's client (`rmcp`, child-process stdio
//! transport) against the built binary: the tool list and its schemas, every tool's answer
//! compared with the CLI command that prints the same object, tool errors for unknown ids
//! and bad arguments, the re-read after the file changes on disk, and a clean exit when
//! standard input closes (with nothing but protocol messages on standard output).

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use rmcp::model::{CallToolRequestParams, CallToolResult, Tool};
use rmcp::service::RunningService;
use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
use rmcp::{RoleClient, ServiceExt};
use serde_json::{json, Value};

mod mcp_support;

use mcp_support::{cli_json, sample_export, sample_file, scratch, write_json, BIN};

/// The ten tools of `shared/spec/cli.md`, with their argument names.
const TOOLS: &[(&str, &[&str], &[&str])] = &[
    ("list_projects", &[], &[]),
    ("list_runs", &["projectId"], &[]),
    ("run_metrics", &["runId"], &[]),
    ("diff_runs", &["runId", "againstId"], &[]),
    ("compare_engines", &["projectId"], &[]),
    ("top_sources", &["runId", "limit", "ownership"], &[]),
    ("search_answers", &["query", "runId", "limit"], &["query"]),
    ("get_probe", &["probeId"], &["probeId"]),
    ("list_actions", &["runId", "againstId"], &[]),
    ("list_claims", &["runId"], &[]),
];

type Client = RunningService<RoleClient, ()>;

async fn connect(file: &Path) -> Client {
    let transport = TokioChildProcess::new(tokio::process::Command::new(BIN).configure(|cmd| {
        cmd.arg("mcp").arg(file);
    }))
    .unwrap();
    ().serve(transport).await.expect("the MCP handshake")
}

async fn call(client: &Client, tool: &str, args: Value) -> CallToolResult {
    let mut params = CallToolRequestParams::new(tool.to_string());
    if let Value::Object(map) = args {
        params = params.with_arguments(map);
    }
    client.call_tool(params).await.unwrap_or_else(|e| panic!("{tool}: a protocol error instead of a result: {e}"))
}

/// The structured result of a successful call, checked against its one text block.
#[track_caller]
fn ok(result: &CallToolResult) -> Value {
    assert_eq!(result.is_error, Some(false), "{result:?}");
    let structured = result.structured_content.clone().expect("structuredContent");
    assert_eq!(result.content.len(), 1, "one text block");
    let text = &result.content[0].as_text().expect("a text block").text;
    assert_eq!(serde_json::from_str::<Value>(text).unwrap(), structured, "the text block holds the same JSON");
    structured
}

/// The message of a tool error.
#[track_caller]
fn tool_error(result: &CallToolResult) -> String {
    assert_eq!(result.is_error, Some(true), "{result:?}");
    result.content.iter().filter_map(|c| c.as_text()).map(|t| t.text.clone()).collect::<Vec<_>>().join(" ")
}

fn tool<'a>(tools: &'a [Tool], name: &str) -> &'a Tool {
    tools.iter().find(|t| t.name == name).unwrap_or_else(|| panic!("no tool {name}"))
}

#[tokio::test]
async fn tools_are_listed_with_schemas_and_descriptions() {
    let file = sample_file("list");
    let client = connect(&file).await;
    let tools = client.list_all_tools().await.unwrap();
    let mut names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    names.sort();
    let mut expect: Vec<&str> = TOOLS.iter().map(|t| t.0).collect();
    expect.sort();
    assert_eq!(names, expect);
    for (name, args, required) in TOOLS {
        let t = tool(&tools, name);
        let description = t.description.as_deref().unwrap_or("");
        assert!(description.len() > 80, "{name} needs a description a model can act on: {description:?}");
        let schema = Value::Object((*t.input_schema).clone());
        assert_eq!(schema["type"], "object", "{name}: {schema}");
        let props: Vec<&str> =
            schema["properties"].as_object().map(|p| p.keys().map(String::as_str).collect()).unwrap_or_default();
        let mut props_sorted = props.clone();
        props_sorted.sort();
        let mut args_sorted = args.to_vec();
        args_sorted.sort();
        assert_eq!(props_sorted, args_sorted, "{name}: {schema}");
        for arg in *args {
            assert!(schema["properties"][arg]["description"].as_str().is_some_and(|d| !d.is_empty()), "{name}.{arg}");
        }
        let req: Vec<&str> =
            schema["required"].as_array().map_or(vec![], |r| r.iter().filter_map(Value::as_str).collect());
        assert_eq!(req, *required, "{name}: {schema}");
        if !args.is_empty() {
            assert_eq!(schema["additionalProperties"], json!(false), "{name}: misspelt arguments are refused");
        }
        let ann = t.annotations.as_ref().expect("annotations");
        assert_eq!(ann.read_only_hint, Some(true), "{name} is read-only");
    }
    // Security review II, finding 11: what the tools return quotes third parties, and every
    // description and the server's instructions say it is never an instruction.
    for t in &tools {
        let description = t.description.as_deref().unwrap_or("");
        assert!(
            description.contains("third-party content") && description.contains("never followed as instructions"),
            "{}: {description}",
            t.name
        );
    }
    let info = client.peer_info().expect("the server's initialize result");
    let instructions = info.instructions.as_deref().unwrap_or("");
    assert!(
        instructions.contains("third-party content") && instructions.contains("never instructions"),
        "{instructions}"
    );
    let sources = Value::Object((*tool(&tools, "top_sources").input_schema).clone());
    let ownership = serde_json::to_string(&sources["properties"]["ownership"]).unwrap();
    for o in ["owned", "competitor", "third_party"] {
        assert!(ownership.contains(&format!("\"{o}\"")), "{ownership}");
    }
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn every_tool_answers_with_the_clis_objects() {
    let dir = scratch("answers");
    let file = dir.join("export.json");
    let env = sample_export();
    write_json(&file, &env);
    let path = file.to_str().unwrap();
    let client = connect(&file).await;

    // list_projects / list_runs: the export's contents with their counts.
    let projects = ok(&call(&client, "list_projects", json!({})).await);
    let project = &projects["projects"][0];
    assert_eq!(projects["projects"].as_array().unwrap().len(), env["projects"].as_array().unwrap().len());
    assert_eq!(project["id"], env["projects"][0]["id"]);
    assert_eq!(project["brand"], env["projects"][0]["brand"]["label"]);
    assert_eq!(project["runCount"], json!(3));
    assert_eq!(project["promptCount"], json!(env["prompts"].as_array().unwrap().len()));
    let runs = ok(&call(&client, "list_runs", json!({ "projectId": project["id"] })).await);
    let runs = runs["runs"].as_array().unwrap().clone();
    assert_eq!(runs.len(), 3);
    assert!(runs.windows(2).all(|w| w[0]["createdAt"].as_str() <= w[1]["createdAt"].as_str()));
    for r in &runs {
        let id = r["id"].as_str().unwrap();
        let probes: Vec<&Value> = env["probes"].as_array().unwrap().iter().filter(|p| p["runId"] == id).collect();
        assert_eq!(r["probeCount"], json!(probes.len()));
        assert_eq!(r["successCount"], json!(probes.iter().filter(|p| p["status"] == "success").count()));
        for key in ["projectId", "engine", "status", "createdAt"] {
            assert!(!r[key].is_null(), "{key} in {r}");
        }
    }
    assert_eq!(runs[2]["engine"], "openai");
    assert_eq!(ok(&call(&client, "list_runs", json!({})).await)["runs"].as_array().unwrap().len(), 3);

    // run_metrics: exactly `geo-probe metrics --run`, for every run and for the default.
    for r in &runs {
        let id = r["id"].as_str().unwrap();
        let cli = cli_json(&["metrics", path, "--run", id]);
        let mcp = ok(&call(&client, "run_metrics", json!({ "runId": id })).await);
        assert_eq!(mcp, cli[0], "run_metrics {id}");
    }
    let default = ok(&call(&client, "run_metrics", json!({})).await);
    // The newest completed or partial run: the added one (a copy of a partial run).
    assert_eq!(default["runId"], runs[2]["id"]);

    // diff_runs / compare_engines: exactly `geo-probe diff` and `geo-probe engines`.
    let (first, second, openai) =
        (runs[0]["id"].as_str().unwrap(), runs[1]["id"].as_str().unwrap(), runs[2]["id"].as_str().unwrap());
    let diff = ok(&call(&client, "diff_runs", json!({ "runId": second })).await);
    assert_eq!(diff, cli_json(&["diff", path, "--run", second]));
    assert_eq!(diff["againstId"], json!(first), "against its previousRunId");
    for key in ["metrics", "targets", "prompts", "domains", "verdict"] {
        assert!(!diff[key].is_null(), "{key} in {diff}");
    }
    let cross = ok(&call(&client, "diff_runs", json!({ "runId": openai, "againstId": first })).await);
    assert_eq!(cross, cli_json(&["diff", path, "--run", openai, "--against", first]));
    assert_eq!((cross["engine"].as_str(), cross["againstEngine"].as_str()), (Some("openai"), Some("deepseek")));
    let engines = ok(&call(&client, "compare_engines", json!({})).await);
    assert_eq!(engines, cli_json(&["engines", path]));
    let columns: Vec<&str> =
        engines["engines"].as_array().unwrap().iter().filter_map(|e| e["engine"].as_str()).collect();
    assert_eq!(columns, ["deepseek", "openai"]);
    let project_id = project["id"].as_str().unwrap();
    let for_project = ok(&call(&client, "compare_engines", json!({ "projectId": project_id })).await);
    assert_eq!(for_project, cli_json(&["engines", path, "--project", project_id]));

    // list_actions: exactly `geo-probe actions`, against the previous run or another.
    let actions = ok(&call(&client, "list_actions", json!({ "runId": second })).await);
    assert_eq!(actions, cli_json(&["actions", path, "--run", second]));
    assert_eq!(actions["againstId"], json!(first));
    for key in ["lostPrompts", "queries", "pages"] {
        assert!(actions[key].is_array(), "{key} in {actions}");
    }
    let against = ok(&call(&client, "list_actions", json!({ "runId": openai, "againstId": first })).await);
    assert_eq!(against, cli_json(&["actions", path, "--run", openai, "--against", first]));
    assert_eq!(ok(&call(&client, "list_actions", json!({})).await), cli_json(&["actions", path]));

    // list_claims: exactly `geo-probe claims`, with each run's own fact sheet.
    for r in &runs {
        let id = r["id"].as_str().unwrap();
        let claims = ok(&call(&client, "list_claims", json!({ "runId": id })).await);
        assert_eq!(claims, cli_json(&["claims", path, "--run", id]), "list_claims {id}");
        assert_eq!(claims["factsFrom"], "run", "{id}");
        let facts = claims["facts"].as_array().unwrap();
        assert_eq!(facts.len(), 2, "{id}");
        assert!(facts[0]["claims"].as_array().is_some_and(|c| !c.is_empty()), "the demo states its founding year");
    }
    assert_eq!(ok(&call(&client, "list_claims", json!({})).await), cli_json(&["claims", path]));

    // top_sources: the metrics' domain rows, filtered, then cut.
    let first_run = runs[0]["id"].as_str().unwrap();
    let metrics = cli_json(&["metrics", path, "--run", first_run]).as_array().unwrap()[0].clone();
    let domains = metrics["domains"].as_array().unwrap();
    let top = ok(&call(&client, "top_sources", json!({ "runId": first_run })).await);
    assert_eq!(top["runId"], json!(first_run));
    assert_eq!(top["domains"].as_array().unwrap()[..], domains[..domains.len().min(10)]);
    let third: Vec<Value> = domains.iter().filter(|d| d["ownership"] == "third_party").take(3).cloned().collect();
    let top =
        ok(&call(&client, "top_sources", json!({ "runId": first_run, "ownership": "third_party", "limit": 3 })).await);
    assert_eq!(top["domains"].as_array().unwrap(), &third);
    assert!(!third.is_empty());

    // get_probe: the probe as `geo-probe analyze` writes it.
    let analyzed = cli_json(&["analyze", path]);
    for p in analyzed["probes"].as_array().unwrap().iter().step_by(7) {
        let got = ok(&call(&client, "get_probe", json!({ "probeId": p["id"] })).await);
        assert_eq!(got["probe"], *p);
    }

    // search_answers: successful probes of the run, one hit each, best first, with snippets.
    let brand = project["brand"].as_str().unwrap();
    let hits = ok(&call(&client, "search_answers", json!({ "query": brand, "runId": first_run })).await);
    let hits = hits["hits"].as_array().unwrap();
    assert!(!hits.is_empty() && hits.len() <= 8, "{hits:?}");
    let mut seen = std::collections::HashSet::new();
    for w in hits.windows(2) {
        assert!(w[0]["score"].as_f64() >= w[1]["score"].as_f64());
    }
    for h in hits {
        let id = h["probeId"].as_str().unwrap();
        assert!(seen.insert(id.to_string()), "one hit per probe");
        let probe = analyzed["probes"].as_array().unwrap().iter().find(|p| p["id"] == id).unwrap();
        assert_eq!(probe["runId"], json!(first_run));
        assert_eq!(probe["status"], "success");
        assert_eq!(h["promptId"], probe["promptId"]);
        let snippet = h["snippet"].as_str().unwrap();
        assert!(snippet.chars().count() <= 200 && snippet.contains(brand), "{snippet}");
        assert!(probe["answer"].as_str().unwrap().contains(snippet));
    }
    let two = ok(&call(&client, "search_answers", json!({ "query": brand, "runId": first_run, "limit": 2 })).await);
    assert_eq!(two["hits"].as_array().unwrap()[..], hits[..2]);
    let none = ok(&call(&client, "search_answers", json!({ "query": "zzzqqq" })).await);
    assert_eq!(none, json!({ "hits": [] }));
    client.cancel().await.unwrap();
}

/// `diff_runs` and `compare_engines` carry where and how the runs measured: `comparable`,
/// `methodChanges` (a changed served model named), each column's surface and `surfaceGaps`
/// (`fixtures/exports/method.json`), as `geo-probe diff` and `geo-probe engines` print them.
#[tokio::test]
async fn diff_and_engines_carry_the_method_and_the_surfaces() {
    let file = mcp_support::root().join("fixtures/exports/method.json");
    let path = file.to_str().unwrap();
    let client = connect(&file).await;
    let diff = ok(&call(&client, "diff_runs", json!({ "runId": "run_m_b" })).await);
    assert_eq!(diff, cli_json(&["diff", path, "--run", "run_m_b"]));
    assert_eq!(diff["comparable"], json!(false));
    assert_eq!(diff["methodChanges"][0]["field"], "servedModels");
    let engines = ok(&call(&client, "compare_engines", json!({})).await);
    assert_eq!(engines, cli_json(&["engines", path]));
    let surfaces: Vec<&str> =
        engines["engines"].as_array().unwrap().iter().filter_map(|e| e["surface"].as_str()).collect();
    assert_eq!(surfaces, ["api", "app", "api", "app"]);
    assert_eq!(engines["surfaceGaps"].as_array().unwrap().len(), 2);
    let metrics = ok(&call(&client, "run_metrics", json!({ "runId": "run_m_ds_app" })).await);
    assert_eq!((metrics["surface"].as_str(), metrics["method"]["maxTokens"].is_null()), (Some("app"), true));
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn unknown_ids_and_bad_arguments_are_tool_errors() {
    let file = sample_file("errors");
    let client = connect(&file).await;
    for (tool, args, needle) in [
        ("run_metrics", json!({ "runId": "run_nope" }), "run_nope"),
        ("top_sources", json!({ "runId": "run_nope" }), "run_nope"),
        ("search_answers", json!({ "query": "x", "runId": "run_nope" }), "run_nope"),
        ("list_runs", json!({ "projectId": "proj_nope" }), "proj_nope"),
        ("diff_runs", json!({ "runId": "run_nope" }), "run_nope"),
        ("diff_runs", json!({ "againstId": "run_gone" }), "run_gone"),
        ("compare_engines", json!({ "projectId": "proj_nope" }), "proj_nope"),
        ("get_probe", json!({ "probeId": "probe_nope" }), "probe_nope"),
        ("get_probe", json!({}), "probeId"),
        ("search_answers", json!({ "query": "   " }), "query"),
        ("search_answers", json!({ "query": "x", "limit": 0 }), "limit"),
        ("top_sources", json!({ "limit": "ten" }), "limit"),
        ("top_sources", json!({ "ownership": "partner" }), "partner"),
        ("top_sources", json!({ "run_id": "x" }), "run_id"),
        ("list_actions", json!({ "runId": "run_nope" }), "run_nope"),
        ("list_actions", json!({ "againstId": "run_gone" }), "run_gone"),
        ("list_claims", json!({ "runId": "run_nope" }), "run_nope"),
        ("list_claims", json!({ "facts": [] }), "facts"),
    ] {
        let message = tool_error(&call(&client, tool, args.clone()).await);
        assert!(message.contains(needle), "{tool} {args}: {message}");
    }
    // The newest run (the added engine's) has no previous run: the error names it.
    let runs = ok(&call(&client, "list_runs", json!({})).await);
    let newest = runs["runs"].as_array().unwrap().last().unwrap()["id"].as_str().unwrap().to_string();
    let message = tool_error(&call(&client, "diff_runs", json!({})).await);
    assert!(message.contains(&newest) && message.contains("againstId"), "{message}");
    // The session is still fine.
    ok(&call(&client, "list_projects", json!({})).await);
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_changed_file_is_re_read_and_a_broken_one_reported() {
    let dir = scratch("reread");
    let file = dir.join("export.json");
    let mut env = sample_export();
    write_json(&file, &env);
    let client = connect(&file).await;
    let count = |v: Value| v["runs"].as_array().unwrap().len();
    assert_eq!(count(ok(&call(&client, "list_runs", json!({})).await)), 3);

    // A new export renamed over the old one (a new inode).
    let removed = env["runs"].as_array_mut().unwrap().pop().unwrap();
    let (kept, removed_probes): (Vec<Value>, Vec<Value>) =
        env["probes"].as_array().unwrap().iter().cloned().partition(|p| p["runId"] != removed["id"]);
    env["probes"] = json!(kept);
    write_json(&file, &env);
    assert_eq!(count(ok(&call(&client, "list_runs", json!({})).await)), 2);
    let gone = call(&client, "run_metrics", json!({ "runId": removed["id"] })).await;
    assert!(tool_error(&gone).contains(removed["id"].as_str().unwrap()));

    // Rewritten in place (same inode): a broken file is reported, call after call.
    std::fs::write(&file, "{\"format\": \"geo-probe-export\", \"version\": 1, \"runs\": [").unwrap();
    for _ in 0..2 {
        let message = tool_error(&call(&client, "list_runs", json!({})).await);
        assert!(message.contains("export.json") && message.contains("not a valid GEO Probe export"), "{message}");
    }
    // Deleted: reported too, the server stays up.
    std::fs::remove_file(&file).unwrap();
    assert!(tool_error(&call(&client, "list_projects", json!({})).await).contains("cannot read"));

    // Valid again: served again.
    env["runs"].as_array_mut().unwrap().push(removed);
    env["probes"].as_array_mut().unwrap().extend(removed_probes);
    write_json(&file, &env);
    assert_eq!(count(ok(&call(&client, "list_runs", json!({})).await)), 3);
    client.cancel().await.unwrap();
}

/// `geo-probe mcp FILE` with piped standard input and output.
fn spawn_server(file: &Path, stderr: Stdio) -> std::process::Child {
    Command::new(BIN).arg("mcp").arg(file).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(stderr).spawn().unwrap()
}

#[test]
fn stdin_close_ends_the_server_and_stdout_carries_protocol_only() {
    let file = sample_file("stdin");
    let mut child = spawn_server(&file, Stdio::piped());
    let mut stdin = child.stdin.take().unwrap();
    for message in [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "list_runs", "arguments": {}}}),
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "get_probe", "arguments": {"probeId": "x"}}}),
    ] {
        writeln!(stdin, "{message}").unwrap();
    }
    stdin.flush().unwrap();
    // Read both answers before closing, so the close is what ends the server.
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut lines = Vec::new();
    while lines.len() < 3 {
        let mut line = String::new();
        assert!(stdout.read_line(&mut line).unwrap() > 0, "stdout closed early after {lines:?}");
        lines.push(line);
    }
    drop(stdin);
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(started.elapsed() < Duration::from_secs(20), "the server did not exit after stdin closed");
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(status.success(), "{status:?}");
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut stdout, &mut rest).unwrap();
    lines.extend(rest.lines().map(str::to_string));
    for line in lines.iter().filter(|l| !l.trim().is_empty()) {
        let message: Value =
            serde_json::from_str(line).unwrap_or_else(|e| panic!("not JSON-RPC on stdout: {line:?}: {e}"));
        assert_eq!(message["jsonrpc"], "2.0", "{line}");
    }
    let answers: Vec<Value> = lines.iter().filter_map(|l| serde_json::from_str(l).ok()).collect();
    let by_id = |id: u64| answers.iter().find(|m| m["id"] == json!(id)).unwrap_or_else(|| panic!("no answer {id}"));
    assert_eq!(by_id(2)["result"]["isError"], json!(false));
    assert_eq!(by_id(3)["result"]["isError"], json!(true), "an unknown id is a tool error, not a protocol error");
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
    assert!(stderr.contains("geo-probe mcp: serving"), "diagnostics go to stderr: {stderr}");
}

/// Security review II, finding 11: a line that is not JSON, a 16 MiB line and an unknown
/// method each get a JSON-RPC error, and the server keeps serving the requests after them.
#[test]
fn malformed_lines_are_answered_and_serving_goes_on() {
    let file = sample_file("malformed");
    let mut child = spawn_server(&file, Stdio::null());
    let mut stdin = child.stdin.take().unwrap();
    let huge = format!(
        r#"{{"jsonrpc":"2.0","id":90,"method":"tools/list","params":{{"pad":"{}"}}}}"#,
        "x".repeat(16 * 1024 * 1024)
    );
    let lines: Vec<String> = vec![
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}})
        .to_string(),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string(),
        "{\"jsonrpc\": \"2.0\", \"id\": 91, \"method\": ".to_string(),
        "\u{1b}[2J not json at all".to_string(),
        huge,
        json!({"jsonrpc": "2.0", "id": 3, "method": "no/such/method"}).to_string(),
        json!({"id": 4, "params": 1}).to_string(),
        json!({"jsonrpc": "2.0", "method": "notifications/unheard_of"}).to_string(),
        json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "list_runs", "arguments": {}}})
            .to_string(),
    ];
    // The writer runs beside the reader: a 16 MiB line is more than a pipe holds.
    let writer = std::thread::spawn(move || {
        for line in lines {
            stdin.write_all(line.as_bytes()).unwrap();
            stdin.write_all(b"\n").unwrap();
        }
        stdin.flush().unwrap();
        stdin
    });
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut answers: Vec<Value> = Vec::new();
    while !answers.iter().any(|m| m["id"] == json!(5)) {
        let mut line = String::new();
        assert!(stdout.read_line(&mut line).unwrap() > 0, "stdout closed early after {answers:?}");
        answers.push(serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON-RPC on stdout: {line:?}: {e}")));
    }
    drop(writer.join().unwrap());
    let status = child.wait().unwrap();
    assert!(status.success(), "{status:?}");
    let mut errors: Vec<(i64, String)> = answers
        .iter()
        .filter(|m| m.get("error").is_some())
        .map(|m| (m["error"]["code"].as_i64().unwrap(), m["id"].to_string()))
        .collect();
    errors.sort();
    // Replies to requests are written as their handlers finish, so only the set is fixed.
    let expect = [
        (-32700, "null"), // a cut line: not JSON
        (-32700, "null"), // not JSON at all
        (-32601, "3"),    // an unknown method
        (-32600, "4"),    // JSON, but not JSON-RPC
        (-32600, "null"), // longer than the limit: skipped, never parsed
    ];
    let mut expect: Vec<(i64, String)> = expect.iter().map(|(c, id)| (*c, id.to_string())).collect();
    expect.sort();
    assert_eq!(errors, expect, "{answers:?}");
    assert!(answers.iter().all(|m| m["id"] != json!(90) && m["id"] != json!(91)), "{answers:?}");
    let runs = answers.iter().find(|m| m["id"] == json!(5)).unwrap();
    assert_eq!(runs["result"]["isError"], json!(false), "served after every bad line: {runs}");
}

#[test]
fn an_unusable_file_at_start_exits_2_with_one_line() {
    let dir = scratch("start");
    let broken = dir.join("broken.json");
    std::fs::write(&broken, "not json").unwrap();
    for args in
        [vec!["mcp", broken.to_str().unwrap()], vec!["mcp", "-"], vec!["mcp"], vec!["mcp", "/nonexistent/x.json"]]
    {
        let out = Command::new(BIN).args(&args).stdin(Stdio::null()).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
        assert!(stderr.starts_with("error: "), "{args:?}: {stderr}");
    }
}
