//! One probe request of an engine: what it asks ([`Ask`]), the outcome the [`Schedule`]
//! picks for its attempt, the recorded body that answers it, and the answer as that outcome
//! shapes it (a recorded answer, an engine's error body, a cut-off body, a hang …).
//!
//! What differs between the engines is asked of [`MockEngine`] (`engines.rs`), what the real
//! APIs do beyond a recorded body of `behave.rs`, the check of a request's `user_location` of
//! `location.rs`, the bodies of `fixtures.rs`.
//!
//! [`Schedule`]: crate::Schedule

use std::io;
use std::net::TcpStream;
use std::sync::atomic::Ordering;
use std::time::Duration;

use serde_json::{json, Value};

use crate::scenario::{parse_marker, Outcome};
use crate::{behave, error_json, fixtures, http, location, record, MockEngine, Shared};

/// What a probe request asks, read from its body, path and headers.
struct Ask<'a> {
    body: Value,
    /// The prompt as sent, markers included: attempts are counted per engine and prompt.
    prompt: String,
    /// The `[mock:…]` script of the prompt (empty without one).
    script: Vec<Outcome>,
    /// The prompt without its markers: what picks the fixture, and what is logged.
    text: String,
    /// `[think:N]`: how long a reasoning model thinks.
    think: Option<u64>,
    model: String,
    /// The key the request carries, where the engine carries it.
    key: Option<&'a str>,
}

impl<'a> Ask<'a> {
    /// The request of `engine` read, or why it cannot be answered (a 400's message).
    fn read(engine: MockEngine, req: &'a http::Request) -> Result<Ask<'a>, String> {
        let body = serde_json::from_str::<Value>(&req.body).map_err(|_| "the request body is not json".to_string())?;
        let prompt = engine.prompt_text(&body).ok_or_else(|| "the request has no user message".to_string())?;
        let marked = parse_marker(&prompt)?;
        let (think, text) = behave::take_think(&marked.text);
        let model = engine.model(&body, &req.path);
        let key = engine.key(|name| req.header(name), &req.path);
        Ok(Ask { body, prompt, script: marked.script, text, think, model, key })
    }
}

/// A 400 for a request the mock cannot answer, logged.
fn bad(shared: &Shared, stream: &TcpStream, entry: Value, message: &str) -> io::Result<()> {
    record(shared, entry);
    http::respond(stream, 400, "application/json", &error_json("invalid_request_error", message))
}

/// Answers one probe request of `engine`: the key check, the scripted or drawn outcome, then
/// the engine's recorded answer or error body.
pub(crate) fn probe(
    shared: &Shared,
    stream: &TcpStream,
    req: &http::Request,
    engine: MockEngine,
    mut entry: Value,
) -> io::Result<()> {
    entry["engine"] = json!(engine.name());
    let ask = match Ask::read(engine, req) {
        Ok(ask) => ask,
        Err(message) => return bad(shared, stream, entry, &message),
    };
    let key_ok = match (&shared.config.require_key, ask.key) {
        (None, _) => true,
        (Some(want), Some(got)) => want == got,
        (Some(_), None) => shared.config.proxy,
    };
    let attempt = {
        let mut a = shared.attempts.lock().map_err(|_| io::Error::other("poisoned"))?;
        let n = a.entry((engine, ask.prompt.clone())).or_insert(0);
        *n += 1;
        *n - 1
    };
    let outcome =
        if key_ok { shared.config.schedule.decide(&ask.script, &ask.prompt, attempt) } else { Outcome::Status(401) };
    if shared.config.require_key.is_some() {
        entry["keyOk"] = json!(key_ok);
    }
    if let Some(refused) = behave::temperature_error(engine, &ask.body).filter(|_| key_ok) {
        entry["prompt"] = json!(ask.text);
        entry["attempt"] = json!(attempt);
        entry["outcome"] = json!("temperature");
        record(shared, entry);
        return http::respond(stream, 400, "application/json", &refused);
    }
    let reject = shared.config.reject_location.contains(&engine);
    if let Some((status, refused)) = location::location_error(engine, &ask.body, reject).filter(|_| key_ok) {
        entry["prompt"] = json!(ask.text);
        entry["attempt"] = json!(attempt);
        entry["outcome"] = json!("user_location");
        record(shared, entry);
        return http::respond(stream, status, "application/json", &refused);
    }
    let fixture = match pick_fixture(shared, engine, outcome, &ask.text) {
        Ok(fixture) => fixture,
        Err(message) => return bad(shared, stream, entry, &message),
    };
    let (name, recorded) = shared.fixtures.engine(engine).get(fixture);
    entry["prompt"] = json!(ask.text);
    entry["attempt"] = json!(attempt);
    entry["outcome"] = json!(outcome.to_string());
    entry["fixture"] =
        if outcome.is_fault() && !matches!(outcome, Outcome::Empty | Outcome::Preamble | Outcome::SearchError) {
            Value::Null
        } else {
            json!(name)
        };
    record(shared, entry);
    if shared.config.latency_ms > 0 {
        std::thread::sleep(Duration::from_millis(shared.config.latency_ms));
    }
    let mut answer = recorded.clone();
    engine.set_model(&mut answer, &ask.model);
    behave::sources_only_when_included(engine, &ask.body, &mut answer);
    respond(shared, stream, req, engine, &ask, outcome, answer)
}

/// The recorded body the outcome answers with: the numbered one of `ok=N`, the engine's
/// empty or preamble-only answer, else the prompt's own fixture, else the engine's answering
/// fixtures in turn. `Err` names the fixture folder when no fixture has that number.
fn pick_fixture(shared: &Shared, engine: MockEngine, outcome: Outcome, text: &str) -> Result<usize, String> {
    let fixtures = shared.fixtures.engine(engine);
    let chosen = match outcome {
        Outcome::Empty => fixtures.empty(),
        Outcome::Preamble => fixtures.preamble(),
        Outcome::Answer(n) => match fixtures.by_number(n) {
            Some(i) => Some(i),
            None => {
                return Err(format!(
                    "no recorded response numbered {n} for {}: use a number of {}",
                    engine.name(),
                    engine.fixture_dir()
                ))
            }
        },
        _ => None,
    };
    Ok(chosen
        .or_else(|| fixtures.for_prompt(text))
        .unwrap_or_else(|| fixtures.in_turn(shared.turns[engine as usize].fetch_add(1, Ordering::SeqCst) as usize)))
}

/// Writes the answer the outcome asks for, from the recorded `answer` (its model already
/// the requested one).
fn respond(
    shared: &Shared,
    stream: &TcpStream,
    req: &http::Request,
    engine: MockEngine,
    ask: &Ask,
    outcome: Outcome,
    mut answer: Value,
) -> io::Result<()> {
    let json = "application/json";
    match outcome {
        Outcome::Ok | Outcome::Answer(_) => {
            behave::spend_budget(engine, &ask.body, &ask.model, &mut answer, ask.think);
            http::respond(stream, 200, json, &answer.to_string())
        }
        Outcome::Empty | Outcome::Preamble => http::respond(stream, 200, json, &answer.to_string()),
        Outcome::Pause(n) => match behave::pause_reply(engine, &ask.body, &answer, usize::from(n)) {
            Ok(part) => http::respond(stream, 200, json, &part.to_string()),
            Err(refused) => http::respond(stream, 400, json, &refused),
        },
        Outcome::SearchError => {
            engine.with_search_error(&mut answer);
            behave::spend_budget(engine, &ask.body, &ask.model, &mut answer, ask.think);
            http::respond(stream, 200, json, &answer.to_string())
        }
        Outcome::Status(s) => {
            let body = fixtures::engine_error_body(engine, s);
            let kind = if body.trim_start().starts_with('<') { "text/html" } else { json };
            http::respond(stream, fixtures::engine_status(engine, s), kind, body)
        }
        Outcome::InvalidJson => {
            let text = answer.to_string();
            let cut = text.char_indices().nth(text.chars().count() / 2).map_or(0, |(i, _)| i);
            http::respond(stream, 200, json, &text[..cut])
        }
        Outcome::Hang => {
            std::thread::sleep(Duration::from_secs(shared.config.hang_secs));
            Ok(())
        }
        Outcome::Hostile => {
            let message = format!(
                "\u{1b}[2J\u{1b}[Hrun finished: 3 success, 0 failed\r\u{9b}31m key {} is not allowed here",
                ask.key.unwrap_or("(none)")
            );
            http::respond(stream, 500, json, &error_json("api_error", &message))
        }
        Outcome::Echo(status) => {
            let (name, _) = engine.auth_header();
            let echo = format!("echo: {name}={} path={}", req.header(name).unwrap_or("(none)"), req.path);
            http::respond(stream, status, json, &echo_body(engine, status, &echo))
        }
        Outcome::Refused => match fixtures::refusal(engine) {
            Some((status, body)) => http::respond(stream, status, json, body),
            None => {
                behave::spend_budget(engine, &ask.body, &ask.model, &mut answer, ask.think);
                http::respond(stream, 200, json, &answer.to_string())
            }
        },
    }
}

/// The engine's recorded error body for `status` (or the generic one) with every `message`
/// (`msg`, `Message`) string replaced by `echo`: a gateway that quotes the request.
fn echo_body(engine: MockEngine, status: u16, echo: &str) -> String {
    fn replace(v: &mut Value, echo: &str) -> bool {
        match v {
            Value::Object(map) => {
                let mut any = false;
                for (k, v) in map.iter_mut() {
                    if matches!(k.as_str(), "message" | "msg" | "Message") && v.is_string() {
                        *v = json!(echo);
                        any = true;
                    } else {
                        any |= replace(v, echo);
                    }
                }
                any
            }
            Value::Array(items) => items.iter_mut().fold(false, |any, x| replace(x, echo) | any),
            _ => false,
        }
    }
    match serde_json::from_str::<Value>(fixtures::engine_error_body(engine, status)) {
        Ok(mut v) => {
            if replace(&mut v, echo) {
                v.to_string()
            } else {
                error_json("invalid_request_error", echo)
            }
        }
        Err(_) => error_json("invalid_request_error", echo),
    }
}
