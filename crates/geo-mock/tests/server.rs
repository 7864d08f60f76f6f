//! The mock over real sockets: routing, CORS, fixtures by prompt, scripted faults, the key
//! check, the request log and the SSE chat stream.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use geo_mock::{MockConfig, MockServer};
use serde_json::{json, Value};

struct Reply {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
    reads: usize,
}

impl Reply {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }
    fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap()
    }
}

fn send(server: &MockServer, method: &str, path: &str, headers: &[(&str, &str)], body: &str) -> Reply {
    let mut s = TcpStream::connect(("127.0.0.1", server.port())).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut req = format!("{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: {}\r\n", body.len());
    for (n, v) in headers {
        req.push_str(&format!("{n}: {v}\r\n"));
    }
    req.push_str("\r\n");
    req.push_str(body);
    s.write_all(req.as_bytes()).unwrap();
    let mut raw = Vec::new();
    let mut buf = [0u8; 4096];
    let mut reads = 0;
    loop {
        match s.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                raw.extend_from_slice(&buf[..n]);
                reads += 1;
            }
            Err(e) => panic!("read failed: {e}"),
        }
    }
    if raw.is_empty() {
        return Reply { status: 0, headers: Vec::new(), body: Vec::new(), reads };
    }
    let split = raw.windows(4).position(|w| w == b"\r\n\r\n").expect("a header block");
    let head = String::from_utf8(raw[..split].to_vec()).unwrap();
    let mut lines = head.split("\r\n");
    let status = lines.next().unwrap().split_whitespace().nth(1).unwrap().parse().unwrap();
    let headers =
        lines.filter_map(|l| l.split_once(':')).map(|(n, v)| (n.trim().to_string(), v.trim().to_string())).collect();
    Reply { status, headers, body: raw[split + 4..].to_vec(), reads }
}

fn messages_body(text: &str, model: &str) -> String {
    json!({
        "model": model, "max_tokens": 3000, "system": "s",
        "tools": [{"type": "web_search_20250305", "name": "web_search", "max_uses": 5}],
        "messages": [{"role": "user", "content": [{"type": "text", "text": text}]}],
        "temperature": 1
    })
    .to_string()
}

fn start(flags: &[&str]) -> MockServer {
    let mut args: Vec<String> = vec!["--port".into(), "0".into()];
    args.extend(flags.iter().map(|s| s.to_string()));
    MockServer::start(MockConfig::from_args(&args).unwrap()).unwrap()
}

const PATH: &str = "/anthropic/v1/messages";

#[test]
fn fixture_prompt_gets_its_fixture_with_the_requested_model_and_cors() {
    let m = start(&[]);
    let r = send(
        &m,
        "POST",
        PATH,
        &[("content-type", "application/json")],
        &messages_body("GEO监测工具哪个好用？", "deepseek-v4-pro"),
    );
    assert_eq!(r.status, 200);
    assert_eq!(r.header("access-control-allow-origin"), Some("*"));
    let v = r.json();
    assert_eq!(v["model"], "deepseek-v4-pro");
    let recorded: Value =
        serde_json::from_str(include_str!("../../../fixtures/responses/03_zh_paren_list.json")).unwrap();
    assert_eq!(v["content"], recorded["content"]);
    assert_eq!(m.log()[0]["fixture"], "03_zh_paren_list");

    let pre = send(&m, "OPTIONS", PATH, &[("access-control-request-method", "POST")], "");
    assert_eq!(pre.status, 204);
    let allowed = pre.header("access-control-allow-headers").unwrap();
    for h in ["content-type", "x-api-key", "anthropic-version", "authorization"] {
        assert!(allowed.contains(h), "{h}");
    }
    assert!(pre.header("access-control-allow-methods").unwrap().contains("POST"));
    assert_eq!(send(&m, "GET", "/nope", &[], "").status, 404);
}

#[test]
fn unknown_prompts_rotate_through_answering_fixtures() {
    let m = start(&[]);
    let names: Vec<String> = (0..3)
        .map(|i| {
            let r =
                send(&m, "POST", &format!("/prefix{PATH}"), &[], &messages_body(&format!("other question {i}"), "m"));
            assert_eq!(r.status, 200);
            m.log()[i]["fixture"].as_str().unwrap().to_string()
        })
        .collect();
    assert_eq!(names, ["01_zh_numbered_list", "02_zh_dunhao_list", "03_zh_paren_list"]);
}

#[test]
fn scripted_outcomes_per_attempt() {
    let m = start(&["--hang-secs", "1"]);
    let body = messages_body(
        "[mock:429,500,503,401,402,403,408,json,empty,preamble,search_error,hang,ok] 有哪些AI搜索优化公司值得推荐？",
        "m",
    );
    let mut seen = Vec::new();
    for _ in 0..14 {
        let t = Instant::now();
        let r = send(&m, "POST", PATH, &[], &body);
        let kind = match r.status {
            0 => {
                assert!(t.elapsed() >= Duration::from_millis(900));
                "hang".to_string()
            }
            200 => match serde_json::from_slice::<Value>(&r.body) {
                Err(_) => "json".into(),
                Ok(v) => {
                    let blocks = v["content"].as_array().unwrap();
                    let texts: String = blocks.iter().filter_map(|b| b["text"].as_str()).collect();
                    if blocks.iter().any(|b| b["content"]["type"] == "web_search_tool_result_error") {
                        "search_error".into()
                    } else if texts.trim().is_empty() {
                        "empty".into()
                    } else if texts.chars().count() < 40 {
                        "preamble".into()
                    } else {
                        "ok".into()
                    }
                }
            },
            s => {
                assert!(r.json().get("error").is_some(), "{s}");
                s.to_string()
            }
        };
        seen.push(kind);
    }
    assert_eq!(
        seen,
        [
            "429",
            "500",
            "503",
            "401",
            "402",
            "403",
            "408",
            "json",
            "empty",
            "preamble",
            "search_error",
            "hang",
            "ok",
            "ok"
        ]
    );
    // The marker is stripped before matching: the script's prompt is fixture 02's.
    assert_eq!(m.log().last().unwrap()["fixture"], "02_zh_dunhao_list");
}

#[test]
fn key_check_and_proxy_mode() {
    let strict = start(&["--require-key", "sk-good"]);
    let body = messages_body("q", "m");
    assert_eq!(send(&strict, "POST", PATH, &[("x-api-key", "sk-bad")], &body).status, 401);
    assert_eq!(send(&strict, "POST", PATH, &[], &body).status, 401);
    assert_eq!(send(&strict, "POST", PATH, &[("x-api-key", "sk-good")], &body).status, 200);
    let proxy = start(&["--require-key", "sk-good", "--proxy"]);
    assert_eq!(send(&proxy, "POST", PATH, &[], &body).status, 200);
    assert_eq!(send(&proxy, "POST", PATH, &[("x-api-key", "sk-bad")], &body).status, 401);
}

/// The docs chat wants DeepSeek's key as `authorization: Bearer` under `--require-key`, like
/// the real endpoint (401 with DeepSeek's body), and takes a keyless one with `--proxy`.
#[test]
fn the_docs_chat_requires_the_key_too() {
    let body = chat_body("GEO Probe 在哪里分析？");
    let strict = start(&["--require-key", "sk-good"]);
    let refused = send(&strict, "POST", "/chat/completions", &[], &body);
    assert_eq!(refused.status, 401);
    assert_eq!(refused.json()["error"]["type"], "authentication_error");
    assert_eq!(send(&strict, "POST", "/chat/completions", &[("authorization", "Bearer sk-bad")], &body).status, 401);
    assert_eq!(send(&strict, "POST", "/chat/completions", &[("x-api-key", "sk-good")], &body).status, 401);
    let ok = send(&strict, "POST", "/chat/completions", &[("authorization", "Bearer sk-good")], &body);
    assert_eq!(ok.status, 200);
    assert_eq!(sse_content(&ok.body).0, geo_mock::chat::ANSWER);
    assert_eq!(strict.log()[0]["keyOk"], false);
    let proxy = start(&["--require-key", "sk-good", "--proxy"]);
    assert_eq!(send(&proxy, "POST", "/chat/completions", &[], &body).status, 200);
}

/// `requests.jsonl` in the folder `geo-mock-NAME-PID` of the system's temporary folder, absent.
fn log_file(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("geo-mock-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let log = dir.join("requests.jsonl");
    let _ = std::fs::remove_file(&log);
    log
}

#[test]
fn log_file_holds_every_request_with_headers_and_body() {
    let log = log_file("log");
    let m = start(&["--log", log.to_str().unwrap(), "--fail-first", "1", "--fail-kind", "429"]);
    let body = messages_body("q1", "m");
    assert_eq!(
        send(&m, "POST", PATH, &[("x-api-key", "sk-x"), ("anthropic-version", "2023-06-01")], &body).status,
        429
    );
    assert_eq!(send(&m, "POST", PATH, &[("x-api-key", "sk-x")], &body).status, 200);
    let lines: Vec<Value> =
        std::fs::read_to_string(&log).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0]["headers"]["x-api-key"], "[redacted]");
    assert_eq!(lines[0]["headers"]["anthropic-version"], "2023-06-01");
    assert_eq!(lines[0]["body"], body);
    assert_eq!((lines[0]["outcome"].as_str(), lines[1]["outcome"].as_str()), (Some("429"), Some("ok")));
    assert_eq!((lines[0]["attempt"].as_u64(), lines[1]["attempt"].as_u64()), (Some(0), Some(1)));
}

#[test]
fn seeded_faults_are_reproducible_across_servers() {
    let outcomes = |seed: &str| -> Vec<String> {
        let m = start(&["--fault", "429:0.3", "--fault", "500:0.2", "--seed", seed]);
        for i in 0..30 {
            send(&m, "POST", PATH, &[], &messages_body(&format!("prompt {}", i % 10), "m"));
        }
        m.log().iter().map(|e| e["outcome"].as_str().unwrap().to_string()).collect()
    };
    let a = outcomes("7");
    assert_eq!(a, outcomes("7"));
    assert!(a.iter().any(|o| o == "429") && a.iter().any(|o| o == "ok"));
    assert_ne!(a, outcomes("8"));
}

fn chat_body(text: &str) -> String {
    json!({"model": "deepseek-v4-flash", "stream": true, "messages": [{"role": "system", "content": "docs"}, {"role": "user", "content": text}]}).to_string()
}

fn sse_content(body: &[u8]) -> (String, bool, bool) {
    let text = String::from_utf8(body.to_vec()).unwrap();
    let mut answer = String::new();
    let mut done = false;
    for line in text.lines() {
        if line == "data: [DONE]" {
            done = true;
        } else if let Some(d) = line.strip_prefix("data: ") {
            let v: Value = serde_json::from_str(d).unwrap();
            assert_eq!(v["object"], "chat.completion.chunk");
            answer.push_str(v["choices"][0]["delta"]["content"].as_str().unwrap_or(""));
        }
    }
    (answer, done, text.contains(": keep-alive"))
}

#[test]
fn chat_stream_scenarios() {
    let m = start(&["--chat-delay-ms", "20"]);
    let r = send(&m, "POST", "/chat/completions", &[], &chat_body("GEO Probe 在哪里分析？"));
    assert_eq!(r.status, 200);
    assert!(r.header("content-type").unwrap().starts_with("text/event-stream"));
    assert_eq!(r.header("access-control-allow-origin"), Some("*"));
    let (answer, done, keepalive) = sse_content(&r.body);
    assert_eq!(answer, geo_mock::chat::ANSWER);
    assert!(done && keepalive && answer.contains("[S1]"));
    assert!(r.reads > 10, "the stream came in {} reads", r.reads);

    let cut = send(&m, "POST", "/v1/chat/completions", &[], &chat_body("[chat:cut] q"));
    let (partial, done, _) = sse_content(&cut.body);
    assert!(!done && !partial.is_empty() && geo_mock::chat::ANSWER.starts_with(&partial));

    let err = send(&m, "POST", "/chat/completions", &[], &chat_body("[chat:error] q"));
    assert_eq!(err.status, 402);
    assert_eq!(err.json()["error"]["message"], "Insufficient Balance");

    let t = Instant::now();
    let slow = send(&m, "POST", "/chat/completions", &[], &chat_body("[chat:slow] q"));
    assert!(t.elapsed() >= Duration::from_millis(20 * 20));
    assert_eq!(sse_content(&slow.body).0, geo_mock::chat::ANSWER);
}

/// Security review, finding 1: the request log (memory and file) never holds a credential.
#[test]
fn credentials_never_reach_the_log() {
    let log = log_file("secret");
    let m = start(&["--log", log.to_str().unwrap(), "--require-key", "sk-SECRET-1"]);
    let body = messages_body("q1", "m");
    let headers =
        [("x-api-key", "sk-SECRET-1"), ("authorization", "Bearer sk-SECRET-2"), ("x-goog-api-key", "sk-SECRET-3")];
    assert_eq!(send(&m, "POST", PATH, &headers, &body).status, 200);
    assert_eq!(send(&m, "POST", &format!("{PATH}?key=sk-SECRET-4&alt=json"), &[], &body).status, 401);
    let file = std::fs::read_to_string(&log).unwrap();
    let memory = serde_json::to_string(&m.log()).unwrap();
    for text in [&file, &memory] {
        assert!(!text.contains("SECRET"), "{text}");
    }
    let entries = m.log();
    assert_eq!(entries[0]["headers"]["authorization"], "[redacted]");
    assert_eq!(entries[0]["keyOk"], true);
    assert_eq!(entries[1]["keyOk"], false);
    assert_eq!(entries[1]["path"], format!("{PATH}?key=[redacted]&alt=json"));
}

#[test]
fn a_hostile_outcome_echoes_the_key_with_terminal_escapes() {
    let m = start(&[]);
    let r = send(&m, "POST", PATH, &[("x-api-key", "sk-echo")], &messages_body("[mock:hostile] q", "m"));
    assert_eq!(r.status, 500);
    let message = r.json()["error"]["message"].as_str().unwrap().to_string();
    assert!(message.contains("sk-echo") && message.contains('\u{1b}') && message.contains('\r'), "{message}");
}

/// A probe request of `engine` for `text`, in that engine's documented shape; its path.
fn engine_request(engine: &str, text: &str) -> (String, String) {
    let body = match engine {
        "anthropic" => return ("/v1/messages".into(), messages_body(text, "claude-haiku-4-5")),
        "openai" => json!({"model": "gpt-5", "instructions": "s", "input": [{"role": "user", "content": text}],
                            "tools": [{"type": "web_search"}], "include": ["web_search_call.action.sources"],
                            "max_output_tokens": 3000, "max_tool_calls": 5}),
        "gemini" => json!({"systemInstruction": {"parts": [{"text": "s"}]},
                            "contents": [{"role": "user", "parts": [{"text": text}]}],
                            "tools": [{"google_search": {}}], "generationConfig": {"maxOutputTokens": 3000, "temperature": 1}}),
        "perplexity" => json!({"model": "sonar-pro", "messages": [{"role": "system", "content": "s"},
                                {"role": "user", "content": text}], "max_tokens": 3000}),
        "qwen" => json!({"model": "qwen-plus", "input": {"messages": [{"role": "system", "content": "s"},
                          {"role": "user", "content": text}]},
                          "parameters": {"result_format": "message", "enable_search": true, "max_tokens": 3000}}),
        "doubao" => json!({"model": "doubao-seed-2-1-pro-260628", "input": [{"role": "user", "content": text}],
                            "tools": [{"type": "web_search"}], "max_output_tokens": 3000}),
        "ernie" => json!({"model": "ernie-4.5-turbo-128k", "messages": [{"role": "user", "content": text}],
                           "web_search": {"enable": true}, "max_completion_tokens": 3000}),
        "hunyuan" => json!({"model": "hunyuan-turbos-latest", "messages": [{"role": "user", "content": text}],
                             "enable_enhancement": true, "max_tokens": 3000}),
        _ => unreachable!(),
    };
    let path = match engine {
        "openai" => "/v1/responses",
        "gemini" => "/v1beta/models/gemini-2.5-pro:generateContent",
        "qwen" => "/api/v1/services/aigc/text-generation/generation",
        "doubao" => "/api/v3/responses",
        "ernie" => "/v2/chat/completions",
        "hunyuan" => "/v1/chat/completions",
        _ => "/chat/completions",
    };
    (path.into(), body.to_string())
}

#[test]
fn every_engine_is_answered_in_its_own_shape() {
    let m = start(&[]);
    let p01 = "2026年国内有哪些靠谱的GEO（生成式引擎优化）服务商？";
    let shape = |engine: &str, v: &Value| match engine {
        "anthropic" => v["content"].is_array() && v["model"] == "claude-haiku-4-5",
        "openai" => v["output"].is_array() && v["model"] == "gpt-5",
        "gemini" => v["candidates"].is_array() && v["modelVersion"] == "gemini-2.5-pro",
        "perplexity" => v["choices"].is_array() && v["model"] == "sonar-pro",
        // DashScope's native replies name no model.
        "qwen" => {
            v["output"]["choices"].is_array() && v["output"]["search_info"].is_object() && v.get("model").is_none()
        }
        "doubao" => v["output"].is_array() && v["model"] == "doubao-seed-2-1-pro-260628",
        "ernie" => v["choices"].is_array() && v["search_results"].is_array(),
        "hunyuan" => v["choices"].is_array() && v["search_info"].is_object(),
        _ => false,
    };
    for engine in ["anthropic", "openai", "gemini", "perplexity", "qwen", "doubao", "ernie", "hunyuan"] {
        let (path, body) = engine_request(engine, p01);
        let r = send(&m, "POST", &format!("/base{path}"), &[], &body);
        assert_eq!(r.status, 200, "{engine}");
        assert!(shape(engine, &r.json()), "{engine}: {}", String::from_utf8_lossy(&r.body));
        let entry = m.log().last().unwrap().clone();
        assert_eq!(entry["engine"], engine);
        assert!(entry["fixture"].as_str().unwrap().starts_with("p01_"), "{entry}");
        // Another prompt: the engine's answering fixtures in turn, never an empty one.
        let (path, body) = engine_request(engine, "something nobody recorded");
        assert_eq!(send(&m, "POST", &path, &[], &body).status, 200);
        let fixture = m.log().last().unwrap()["fixture"].as_str().unwrap().to_string();
        assert!(!fixture.starts_with("p12_") && !fixture.starts_with("p15_"), "{fixture}");
    }
    // A streaming chat/completions is still the docs chat, not Perplexity.
    let r = send(&m, "POST", "/chat/completions", &[], &chat_body("什么是 GEO？"));
    assert!(r.header("content-type").unwrap().starts_with("text/event-stream"));
}

#[test]
fn faults_use_each_engines_status_and_body() {
    let m = start(&[]);
    let status = |engine: &str, marker: &str| {
        let (path, body) = engine_request(engine, &format!("[mock:{marker}] q {engine} {marker}"));
        let r = send(&m, "POST", &path, &[], &body);
        (r.status, String::from_utf8_lossy(&r.body).into_owned())
    };
    // Each engine's bad key, no credit, overload and content-filter refusal, with its own
    // status and body: (engine, fault, status, a piece of the body).
    for (engine, fault, want, text) in [
        ("gemini", "401", 400, "API_KEY_INVALID"),
        ("openai", "402", 429, "insufficient_quota"),
        ("anthropic", "503", 529, "overloaded_error"),
        ("perplexity", "401", 401, "<title>401 Authorization Required</title>"),
        ("qwen", "402", 400, "Arrearage"),
        ("doubao", "402", 403, "AccountOverdueError"),
        ("qwen", "refused", 400, "DataInspectionFailed"),
        ("doubao", "refused", 400, "SensitiveContentDetected"),
        ("ernie", "refused", 200, "content_filter"),
        ("hunyuan", "refused", 200, "\"sensitive\""),
    ] {
        let (s, body) = status(engine, fault);
        assert_eq!(s, want, "{engine} {fault}");
        assert!(body.contains(text), "{engine} {fault}: {body}");
    }
    let (s, body) = status("openai", "search_error");
    assert_eq!(s, 200);
    let v: Value = serde_json::from_str(&body).unwrap();
    let call = v["output"].as_array().unwrap().iter().find(|i| i["type"] == "web_search_call").unwrap().clone();
    assert_eq!(call["status"], "failed");
    let (s, body) = status("gemini", "empty");
    assert_eq!(s, 200);
    assert!(body.contains("\"thought\":true"), "{body}");
    // DashScope over its search rate limit: an answer without search_info or usage.plugins.
    let (s, body) = status("qwen", "search_error");
    assert_eq!(s, 200);
    let v: Value = serde_json::from_str(&body).unwrap();
    assert!(v["output"].get("search_info").is_none() && v["usage"].get("plugins").is_none(), "{body}");
    assert!(v["output"]["choices"][0]["message"]["content"].as_str().is_some_and(|t| !t.is_empty()));
    let (s, _) = status("openai", "refused");
    assert_eq!(s, 200, "an engine without a documented refusal answers");
}

#[test]
fn attempts_are_counted_per_engine() {
    let m = start(&[]);
    let text = "[mock:429,ok] 同一个问题";
    let (path, body) = engine_request("openai", text);
    assert_eq!(send(&m, "POST", &path, &[], &body).status, 429);
    let (gpath, gbody) = engine_request("gemini", text);
    assert_eq!(send(&m, "POST", &gpath, &[], &gbody).status, 429, "gemini's first attempt, not the second");
    assert_eq!(send(&m, "POST", &path, &[], &body).status, 200);
}

#[test]
fn key_check_reads_each_engines_header() {
    let strict = start(&["--require-key", "k1"]);
    let (path, body) = engine_request("openai", "q");
    assert_eq!(send(&strict, "POST", &path, &[("authorization", "Bearer k1")], &body).status, 200);
    assert_eq!(send(&strict, "POST", &path, &[("authorization", "Bearer k2")], &body).status, 401);
    assert_eq!(send(&strict, "POST", &path, &[("x-api-key", "k1")], &body).status, 401, "not openai's header");
    let (path, body) = engine_request("gemini", "q");
    assert_eq!(send(&strict, "POST", &path, &[("x-goog-api-key", "k1")], &body).status, 200);
    assert_eq!(send(&strict, "POST", &format!("{path}?key=k1"), &[], &body).status, 200);
    assert_eq!(send(&strict, "POST", &path, &[], &body).status, 400, "gemini's bad-key status");
    let proxy = start(&["--require-key", "k1", "--proxy"]);
    let (path, body) = engine_request("perplexity", "q");
    assert_eq!(send(&proxy, "POST", &path, &[], &body).status, 200);
    let pre = send(&proxy, "OPTIONS", &path, &[("access-control-request-method", "POST")], "");
    let allowed = pre.header("access-control-allow-headers").unwrap();
    for h in ["x-goog-api-key", "authorization", "anthropic-dangerous-direct-browser-access"] {
        assert!(allowed.contains(h), "{h}");
    }
}

/// engines.md "Fidelity": the mock answers like the real APIs, not like the contract.
#[test]
fn the_mock_behaves_like_the_real_apis() {
    let m = start(&[]);
    let p01 = "2026年国内有哪些靠谱的GEO（生成式引擎优化）服务商？";
    // OpenAI lists a search's sources only when the request asks for them.
    let openai = |include: bool| {
        let mut body = json!({"model": "gpt-5-mini", "input": [{"role": "user", "content": p01}],
            "tools": [{"type": "web_search"}], "max_output_tokens": 16384});
        if include {
            body["include"] = json!(["web_search_call.action.sources"]);
        }
        let r = send(&m, "POST", "/v1/responses", &[], &body.to_string()).json();
        let calls: Vec<Value> =
            r["output"].as_array().unwrap().iter().filter(|i| i["type"] == "web_search_call").cloned().collect();
        calls.iter().any(|c| c["action"].get("sources").is_some())
    };
    assert!(openai(true));
    assert!(!openai(false));
    // Claude refuses a temperature above 1 with a 400.
    let mut body: Value = serde_json::from_str(&messages_body(p01, "claude-sonnet-4-6")).unwrap();
    body["temperature"] = json!(1.2);
    let r = send(&m, "POST", "/v1/messages", &[], &body.to_string());
    assert_eq!(r.status, 400);
    assert_eq!(r.json()["error"]["type"], "invalid_request_error");
    // A reasoning model thinking past its budget comes back incomplete, with no message.
    let think = format!("[think:8000] {p01}");
    let body = json!({"model": "gpt-5", "input": [{"role": "user", "content": think}], "max_output_tokens": 3000});
    let r = send(&m, "POST", "/v1/responses", &[], &body.to_string()).json();
    assert_eq!(
        (r["status"].as_str(), r["incomplete_details"]["reason"].as_str()),
        (Some("incomplete"), Some("max_output_tokens"))
    );
    assert!(r["output"].as_array().unwrap().iter().all(|i| i["type"] != "message"));
    // Perplexity's reasoning model writes <think>.
    let body =
        json!({"model": "sonar-reasoning-pro", "messages": [{"role": "user", "content": p01}], "max_tokens": 16384});
    let r = send(&m, "POST", "/chat/completions", &[], &body.to_string()).json();
    assert!(r["choices"][0]["message"]["content"].as_str().unwrap().starts_with("<think>"));
    // A paused turn: the continuation must carry the paused content back.
    let paused = format!("[mock:pause] {p01}");
    let first = send(&m, "POST", "/v1/messages", &[], &messages_body(&paused, "claude-sonnet-4-6")).json();
    assert_eq!(first["stop_reason"], "pause_turn");
    let mut again: Value = serde_json::from_str(&messages_body(&paused, "claude-sonnet-4-6")).unwrap();
    again["messages"].as_array_mut().unwrap().push(json!({"role": "assistant", "content": first["content"]}));
    let rest = send(&m, "POST", "/v1/messages", &[], &again.to_string()).json();
    assert_eq!(rest["stop_reason"], "end_turn");
    let mut wrong = again.clone();
    wrong["messages"][1]["content"] = json!([{"type": "text", "text": "not what was paused"}]);
    assert_eq!(send(&m, "POST", "/v1/messages", &[], &wrong.to_string()).status, 400);
}
