//! The scheduled workflow of `docs/monitoring.md`, run from the page itself so that the
//! documented workflow cannot rot: its `run:` steps, in order, with `bash -e` (GitHub's default
//! shell), in a clone of a local bare repository, against the mock DeepSeek server and a local
//! webhook receiver.
//!
//! `uses:` steps are skipped (the clone stands in for `actions/checkout`) and so is the step
//! with `id: install` (the freshly built `geo-probe` is put on `PATH` instead). The job is
//! scheduled three times: a first run with nothing to compare, a stable second run, and a
//! third run after the brand's aliases changed, which regresses and fails the job at the
//! alert step after the export was pushed.

mod support;

use std::path::Path;
use std::process::Command;

use serde_json::Value;
use support::{read_json, root, Receiver, Reply};

const BIN: &str = env!("CARGO_BIN_EXE_geo-probe");

/// One step of the workflow.
#[derive(Debug, Default)]
struct Step {
    name: String,
    id: Option<String>,
    uses: Option<String>,
    env: Vec<(String, String)>,
    run: Option<String>,
}

/// The job-level `env` and the steps of the first ```yaml block of `docs/monitoring.md`.
fn workflow() -> (Vec<(String, String)>, Vec<Step>) {
    let doc = std::fs::read_to_string(root().join("docs/monitoring.md")).unwrap();
    let yaml = doc.split("```yaml\n").nth(1).and_then(|rest| rest.split("\n```").next()).expect("a yaml block");
    let indent = |line: &str| line.len() - line.trim_start().len();
    let value = |raw: &str| {
        // A trailing ` # comment` is YAML's; quotes around a scalar are too.
        let v = raw.split(" # ").next().unwrap().trim();
        v.strip_prefix('"').and_then(|v| v.strip_suffix('"')).unwrap_or(v).to_string()
    };
    let pair = |line: &str| {
        let (k, v) = line.trim().split_once(':').expect("key: value");
        (k.trim().to_string(), value(v))
    };
    let (mut job_env, mut steps) = (Vec::new(), Vec::<Step>::new());
    let (mut section, mut in_run) = ("", false);
    for line in yaml.lines() {
        let n = indent(line);
        if in_run {
            if line.trim().is_empty() || n >= 10 {
                let run = steps.last_mut().unwrap().run.get_or_insert_with(String::new);
                run.push_str(line.get(10..).unwrap_or(""));
                run.push('\n');
                continue;
            }
            in_run = false;
        }
        let text = line.trim();
        if text.is_empty() {
            continue;
        }
        match n {
            4 if text == "env:" => section = "job-env",
            4 if text == "steps:" => section = "steps",
            4 => section = "",
            6 if section == "job-env" => job_env.push(pair(text)),
            6 if section == "steps" => {
                let mut step = Step::default();
                let first = text.strip_prefix("- ").expect("a step starts with `- `");
                match pair(first) {
                    (k, v) if k == "uses" => step.uses = Some(v),
                    (k, v) if k == "name" => step.name = v,
                    other => panic!("unexpected first key {other:?}"),
                }
                steps.push(step);
            }
            8 if section == "steps" => {
                let step = steps.last_mut().unwrap();
                match text.split_once(':').map(|(k, _)| k) {
                    Some("name") => step.name = pair(text).1,
                    Some("id") => step.id = Some(pair(text).1),
                    Some("uses") => step.uses = Some(pair(text).1),
                    Some("run") => {
                        assert_eq!(text, "run: |", "run steps are block scalars");
                        in_run = true;
                    }
                    Some("env") => section = "steps",
                    _ => {}
                }
            }
            10 if section == "steps" && !line.contains("path:") && !line.contains("key:") => {
                steps.last_mut().unwrap().env.push(pair(text))
            }
            _ => {}
        }
    }
    (job_env, steps)
}

/// `${{ secrets.NAME }}` from `secrets`; any other value as written.
fn resolve(value: &str, secrets: &[(&str, String)]) -> String {
    match value.strip_prefix("${{ secrets.").and_then(|v| v.strip_suffix(" }}")) {
        Some(name) => secrets.iter().find(|(k, _)| *k == name).map(|(_, v)| v.clone()).unwrap_or_default(),
        None => {
            assert!(!value.contains("${{"), "an expression the test does not know: {value}");
            value.to_string()
        }
    }
}

fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git").args(args).current_dir(dir).env("HOME", dir).output().unwrap();
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

/// What one scheduled job did: the exit status of each step it ran, and its job summary.
struct Job {
    exits: Vec<(String, i32)>,
    summary: String,
}

/// Clones the remote and runs the workflow's steps in order until one fails, as Actions does.
fn schedule(remote: &Path, dir: &Path, base_url: &str, webhook: &str) -> Job {
    let (job_env, steps) = workflow();
    let work = dir.join("checkout");
    let _ = std::fs::remove_dir_all(&work);
    git(dir, &["clone", "-q", remote.to_str().unwrap(), work.to_str().unwrap()]);
    let summary = dir.join("summary.md");
    std::fs::write(&summary, "").unwrap();
    // What a user with a proxy sets, one secret per engine; here the proxy is the mock.
    let secrets = [
        (support::key_var("deepseek"), String::new()),
        ("GEO_PROBE_WEBHOOK", webhook.to_string()),
        ("GEO_PROBE_BASE_URL_DEEPSEEK", base_url.to_string()),
    ];
    let bin_dir = Path::new(BIN).parent().unwrap();
    let path = format!("{}:{}", bin_dir.display(), std::env::var("PATH").unwrap_or_default());
    let mut exits = Vec::new();
    for step in &steps {
        let Some(script) = &step.run else {
            assert!(step.uses.is_some(), "a step runs or uses: {step:?}");
            continue;
        };
        if step.id.as_deref() == Some("install") {
            continue;
        }
        let mut command = Command::new("bash");
        command.args(["--noprofile", "--norc", "-e", "-c", script]).current_dir(&work);
        for key in support::key_vars() {
            command.env_remove(key);
        }
        for (k, v) in job_env.iter().chain(&step.env) {
            command.env(k, resolve(v, &secrets));
        }
        command.env("GITHUB_STEP_SUMMARY", &summary).env("PATH", &path).env("HOME", dir);
        let out = command.output().unwrap();
        let code = out.status.code().unwrap_or(-1);
        eprintln!(
            "step {:?}: exit {code}\n{}{}",
            step.name,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        exits.push((step.name.clone(), code));
        if code != 0 {
            break;
        }
    }
    Job { exits, summary: std::fs::read_to_string(&summary).unwrap() }
}

/// The remote's export (at its newest commit).
fn remote_export(remote: &Path, dir: &Path) -> Value {
    let text = git(dir, &["--git-dir", remote.to_str().unwrap(), "show", "HEAD:geo-probe/export.json"]);
    serde_json::from_str(&text).unwrap()
}

/// Security review II, finding 10: a workflow asks for `contents: read` at its top, pins
/// every action by a 40-hex commit SHA, and passes no secret on a command line (a webhook or
/// proxy URL is a secret: it goes through the environment).
fn check_workflow(name: &str, yaml: &str) {
    assert!(yaml.contains("\npermissions:\n  contents: read"), "{name}: no top-level `permissions: contents: read`");
    for line in yaml.lines().filter(|l| l.trim_start().starts_with("- uses:") || l.trim_start().starts_with("uses:")) {
        let target = line.split("uses:").nth(1).unwrap().split(" # ").next().unwrap().trim();
        let sha = target.rsplit_once('@').map(|(_, v)| v).unwrap_or("");
        assert!(
            sha.len() == 40 && sha.chars().all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase()),
            "{name}: `{target}` is not pinned by a commit SHA"
        );
    }
    for line in yaml.lines() {
        let code = line.split(" # ").next().unwrap();
        assert!(!code.contains("--webhook"), "{name}: a webhook URL on a command line: {line}");
        // A secret is only ever the value of an `env:` entry, never spliced into a script.
        if code.contains("${{ secrets.") {
            let key = code.trim_start().split(':').next().unwrap_or("");
            assert!(key.chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_'), "{name}: {line}");
        }
    }
}

#[test]
fn every_workflow_is_pinned_and_reads_only() {
    for file in ["ci.yml", "pages.yml"] {
        let yaml = std::fs::read_to_string(root().join(".github/workflows").join(file)).unwrap();
        check_workflow(file, &yaml);
    }
}

#[test]
fn the_documented_workflow_runs_end_to_end_against_the_mock() {
    let (job_env, steps) = workflow();
    let names: Vec<&str> = steps.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "",
            "",
            "Install geo-probe",
            "Probe every engine",
            "Commit the new export",
            "Publish the comparison",
            "Alert on a real change"
        ]
    );
    assert!(job_env.iter().any(|(k, v)| k == "ENGINES" && v == "deepseek"), "{job_env:?}");
    let doc = std::fs::read_to_string(root().join("docs/monitoring.md")).unwrap();
    for needed in ["cron:", "workflow_dispatch", "contents: write", "--fail-on regression", "$GITHUB_STEP_SUMMARY"] {
        assert!(doc.contains(needed), "the workflow has {needed}");
    }
    let yaml = doc.split("```yaml\n").nth(1).and_then(|rest| rest.split("\n```").next()).unwrap();
    check_workflow("docs/monitoring.md", yaml);
    assert!(yaml.contains("--rev \"$GEO_PROBE_REV\""), "geo-probe is installed at a pinned commit");
    assert!(yaml.contains("key: geo-probe-${{ runner.os }}-${{ env.GEO_PROBE_REV }}"), "the cache key carries it");
    assert!(doc.contains("A public repository publishes the committed export"), "the public-repository warning");

    let dir = support::scratch("monitoring", "job");
    let mock = support::mock(&[]);
    let receiver = Receiver::start(Reply::Status(200));

    // The user's repository: the fixture project with four prompts whose recorded answers
    // name the brand, committed as the export.
    let remote = dir.join("remote.git");
    git(&dir, &["init", "-q", "--bare", "-b", "main", remote.to_str().unwrap()]);
    let seed = dir.join("seed");
    git(&dir, &["clone", "-q", remote.to_str().unwrap(), seed.to_str().unwrap()]);
    let mut env = read_json(&root().join("fixtures/project.json"));
    env["prompts"]
        .as_array_mut()
        .unwrap()
        .retain(|p| ["p01", "p02", "p03", "p04"].contains(&p["id"].as_str().unwrap()));
    std::fs::create_dir_all(seed.join("geo-probe")).unwrap();
    let write_export = |env: &Value| {
        std::fs::write(seed.join("geo-probe/export.json"), serde_json::to_string_pretty(env).unwrap()).unwrap()
    };
    write_export(&env);
    let commit = |message: &str| {
        git(&seed, &["add", "-A"]);
        git(&seed, &["-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", message]);
        git(&seed, &["push", "-q", "origin", "HEAD:main"]);
    };
    commit("the project to monitor");

    // Week 1: nothing to compare yet; the job passes and says so.
    let week1 = schedule(&remote, &dir, &mock.url(), &receiver.url);
    assert!(week1.exits.iter().all(|(_, code)| *code == 0), "{:?}", week1.exits);
    assert_eq!(week1.exits.len(), 4);
    assert!(week1.summary.contains("还没有可对比的上一批次"), "{}", week1.summary);
    assert_eq!(remote_export(&remote, &dir)["runs"].as_array().unwrap().len(), 1);

    // Week 2: the same answers: stable, no alert.
    let week2 = schedule(&remote, &dir, &mock.url(), &receiver.url);
    assert!(week2.exits.iter().all(|(_, code)| *code == 0), "{:?}", week2.exits);
    assert!(week2.summary.contains("**结论: 稳定**"), "{}", week2.summary);
    assert!(receiver.requests().is_empty(), "no webhook when stable");

    // The brand is renamed in the project, so the assistants' answers stop naming it.
    git(&seed, &["pull", "-q", "origin", "main"]);
    let mut env = read_json(&seed.join("geo-probe/export.json"));
    env["projects"][0]["brand"]["aliases"] = serde_json::json!(["一个从未被提到的新名字"]);
    write_export(&env);
    commit("rename the brand");

    // Week 3: a real drop: the job fails at the alert step, after pushing the export.
    let week3 = schedule(&remote, &dir, &mock.url(), &receiver.url);
    let last = week3.exits.last().unwrap();
    assert_eq!((last.0.as_str(), last.1), ("Alert on a real change", 1), "{:?}", week3.exits);
    assert_eq!(week3.exits.len(), 4, "every run step but the install ran");
    assert!(week3.summary.contains("**结论: 下降**"), "{}", week3.summary);
    let export = remote_export(&remote, &dir);
    let runs = export["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 3, "every week's run was pushed");
    assert!(runs.iter().all(|r| r["status"] == "completed"), "{runs:?}");
    assert_eq!(runs[2]["previousRunId"], runs[1]["id"]);
    let requests = receiver.requests();
    assert_eq!(requests.len(), 1, "one alert");
    let body: Value = serde_json::from_str(&requests[0].1).unwrap();
    assert_eq!(body["diff"]["verdict"], "regressed");
    assert_eq!(body["diff"]["runId"], runs[2]["id"]);
    let log = git(&dir, &["--git-dir", remote.to_str().unwrap(), "log", "--format=%an %s"]);
    assert_eq!(log.lines().filter(|l| l.starts_with("github-actions[bot] geo-probe: runs of ")).count(), 3, "{log}");
}
