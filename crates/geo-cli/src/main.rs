//! `geo-probe`: the GEO Probe core driven from a terminal (see `shared/spec/cli.md`).
//!
//! Every command is `cmd::<module>::<fn>(rest) -> anyhow::Result<ExitCode>`; an error is
//! printed as one line `error: …` and exits 2 when it is an [`io::InputError`] (bad input),
//! else 1.

#![warn(missing_docs)]

mod args;
mod bases;
mod clock;
mod cmd;
mod io;
mod out_file;
mod terminal;
mod transport;
mod warehouse;
mod webhook;

use std::process::ExitCode;

const USAGE: &str = "\
geo-probe — GEO Probe in a terminal

usage:
  geo-probe analyze FILE                  recompute every derived field of an export
  geo-probe validate FILE                 check an export and print a one-line summary
  geo-probe metrics FILE [--run ID]       run metrics as JSON
  geo-probe report FILE [--run ID] [--lang zh|en]
                                          Markdown report of a run (default: the newest)
  geo-probe csv probes|sources FILE [--run ID]
                                          Probe CSV / Source CSV
  geo-probe run FILE --project ID --out OUT [--engine E[,E...]] [--prompts ID,ID]
                [--repeats N] [--concurrency N] [--max-searches N] [--model M | E=M,...]
                [--base-url URL | E=URL ...] [--timeout-secs S] [--temperature T]
                [--max-tokens N] [--reasoning-effort low|medium|high]
                [--location CC[/REGION[/CITY]]] [--timezone TZ] [--no-location-prompt]
                                          start a new run per engine (one groupId when several)
                                          and write FILE + the runs to OUT; engines: deepseek,
                                          anthropic, openai, gemini, perplexity, qwen, doubao,
                                          ernie, hunyuan; --location (ISO country, region, city)
                                          and --timezone (IANA) go in each engine's location
                                          field, else as a system-prompt line (unless
                                          --no-location-prompt)
  geo-probe resume FILE --run ID --out OUT [transport flags]
                                          continue a run with its own engine, skipping successes
  geo-probe retry-failed FILE --run ID --out OUT [transport flags]
                                          re-run every error/empty probe of a run
  geo-probe import-captures FILE --project ID --engine E --captures CAPTURES --out OUT
                [--add-prompts]           answers captured from an assistant's app (JSON or CSV,
                                          docs/captures.md) as an app run of engine E, analysed
                                          like any run; FILE + that run written to OUT
  geo-probe diff FILE [--run ID | --engine E] [--against ID] [--format json|markdown]
                [--fail-on regression|change] [--webhook URL] [--lang zh|en] [--allow-no-previous]
                                          compare a run with its previous run (or --against):
                                          exit 1 when --fail-on matches, 3 when the webhook fails
  geo-probe engines FILE [--project ID]   the newest run of each engine side by side
  geo-probe doctor [--engine E,...] [--base-url URL | E=URL ...] [--json] [--timeout-secs S]
                                          ask each engine with a key one question that needs
                                          a search: key, search, sources, citations, cost
  geo-probe actions FILE [--run ID] [--against ID] [--format json|markdown] [--lang zh|en]
                                          what to do next: prompts you lose, the searches the
                                          engine ran, the pages to be on, wrong facts and the
                                          pages behind them, answer-link health
  geo-probe claims FILE [--run ID] [--facts FACTS.json] [--format json|markdown] [--lang zh|en]
                                          what the answers say: each fact of the run's fact
                                          sheet (or of FACTS.json) checked against the sentences
                                          about its target, and the sentences flagged for review
  geo-probe links FILE --out OUT [--run ID] [--concurrency N] [--timeout-secs S]
                [--max-secs S] [--allow-private] [--host-delay-ms MS]
                                          check that the run's answer links exist (HEAD, then
                                          GET) and write FILE + the check to OUT; never asks
                                          private addresses without --allow-private, stops
                                          after --max-secs (600 by default)
  geo-probe mcp FILE                      Model Context Protocol server on stdin/stdout, read-only
                                          over FILE (re-read when it changes)
  geo-probe warehouse FILE --out DIR [--run ID]...
                                          write the runs as Parquet tables for DuckDB,
                                          BigQuery, Spark (views: sql/metrics.sql)
  geo-probe retrieve --docs FILE... --query TEXT [--top N]
                                          docs-chat retrieval as JSON hits
  geo-probe chat --docs FILE... --query TEXT [--base-url URL] [--model M]
                                          stream a docs-chat answer citing [S#]
  geo-probe proxy [--port N] [--engine E,...] [--allow-origin ORIGIN]... [--base-url E=URL]...
                                          local proxy on 127.0.0.1 and [::1] (default port 8788)
                                          that adds each engine's key for the web app, and
                                          removes it from what comes back; prints a token

FILE may be `-` for standard input. Each engine's API key is read from its own variable
only: {KEY_VARS};
with --base-url and no key an engine runs through that proxy without a key (proxy mode), sending
GEO_PROBE_PROXY_TOKEN as x-geo-probe-proxy-token when it is set and the base URL is on this
machine (127.0.0.0/8, [::1], localhost: geo-probe proxy), never to another host.
--base-url E=URL (repeatable) gives engine E its own proxy; one bare --base-url for several
engines that each have a key is refused, since that proxy would receive every key.";

/// [`USAGE`] with its `{KEY_VARS}` filled from geo-core's engine table, so the help names
/// every engine's key variable without a hand copy of the list (code review 3): the engines
/// a page reaches only through `geo-probe proxy` (the Chinese platforms, whose variables name
/// the platform, not the assistant) say which engine each is for; the list wraps before 100
/// columns.
fn usage() -> String {
    let mut lines = vec![String::from("only:")];
    let vars: Vec<String> = geo_core::provider::ENGINES
        .iter()
        .map(|s| {
            if s.browser == geo_core::provider::BrowserAccess::Proxy {
                format!("{} ({})", s.key_env, s.id.as_str())
            } else {
                s.key_env.to_string()
            }
        })
        .collect();
    for (i, var) in vars.iter().enumerate() {
        let item = format!("{var}{}", if i + 1 == vars.len() { "" } else { "," });
        let last = lines.last_mut().expect("a line");
        if last.len() + 1 + item.len() <= 100 {
            last.push(' ');
            last.push_str(&item);
        } else {
            lines.push(item);
        }
    }
    let list = lines.join("\n");
    USAGE.replace("only: {KEY_VARS}", &list)
}

fn main() -> ExitCode {
    // `args_os`: `env::args` panics on an argument that is not UTF-8 (exit 101); the
    // contract says bad input exits 2 with one line.
    let raw: Vec<String> = match std::env::args_os()
        .skip(1)
        .enumerate()
        .map(|(i, a)| {
            a.into_string().map_err(|a| {
                format!(
                    "argument {} ({}) is not valid UTF-8; rename the file or pass it through standard input with -",
                    i + 1,
                    a.to_string_lossy()
                )
            })
        })
        .collect()
    {
        Ok(raw) => raw,
        Err(message) => {
            terminal::eprint_line(&format!("error: {message}"));
            return ExitCode::from(2);
        }
    };
    let Some((command, rest)) = raw.split_first() else {
        terminal::eprint_text(&usage());
        return ExitCode::from(2);
    };
    let result = match command.as_str() {
        "analyze" => cmd::export::analyze(rest),
        "validate" => cmd::export::validate(rest),
        "metrics" => cmd::export::metrics(rest),
        "report" => cmd::export::report(rest),
        "csv" => cmd::export::csv(rest),
        "diff" => cmd::compare::diff(rest),
        "engines" => cmd::compare::engines(rest),
        "actions" => cmd::actions::actions(rest),
        "claims" => cmd::claims::claims(rest),
        "links" => cmd::links::links(rest),
        "mcp" => cmd::mcp::mcp(rest),
        "warehouse" => cmd::warehouse::warehouse(rest),
        "retrieve" => cmd::chat::retrieve(rest),
        "chat" => cmd::chat::chat(rest),
        "run" => cmd::probe::run(rest),
        "resume" => cmd::probe::resume(rest),
        "retry-failed" => cmd::probe::retry_failed(rest),
        "doctor" => cmd::doctor::doctor(rest),
        "proxy" => cmd::proxy::proxy(rest),
        "import-captures" => cmd::import_captures::import_captures(rest),
        "help" | "--help" | "-h" => {
            println!("{}", usage());
            Ok(ExitCode::SUCCESS)
        }
        "--version" | "-V" => {
            println!("geo-probe {}", geo_core::model::APP_VERSION);
            return ExitCode::SUCCESS;
        }
        other => Err(io::input_error(format!("unknown command {other:?}; run `geo-probe help` for the list"))),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            terminal::eprint_line(&format!("error: {e:#}"));
            if e.downcast_ref::<io::InputError>().is_some() {
                ExitCode::from(2)
            } else {
                ExitCode::FAILURE
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::usage;
    use geo_core::model::EngineId;
    use geo_core::provider::spec;

    /// The usage text names every engine and its key variable from geo-core's engine table
    /// (code review 3: hand copies of that list drift).
    #[test]
    fn the_usage_names_every_engine_and_its_key_variable() {
        let usage = usage();
        let words: Vec<&str> =
            usage.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).filter(|w| !w.is_empty()).collect();
        for engine in EngineId::ALL {
            assert!(words.contains(&engine.as_str()), "the usage does not name {}", engine.as_str());
            assert!(words.contains(&spec(engine).key_env), "the usage does not name {}", spec(engine).key_env);
        }
    }
}
