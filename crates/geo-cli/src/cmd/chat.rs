//! Docs chat in a terminal: `retrieve` (BM25 hits as JSON, no model) and `chat` (a streamed
//! DeepSeek answer citing [S#], then the numbered sources).
//!
//! Everything that decides something — chunking, ranking, the messages, SSE decoding and
//! the final state — is geo-core's `chat` module; this file reads files and moves bytes.

use crate::args::{Args, Arity};
use crate::io::{input_error, read_text};
use anyhow::Result;
use geo_core::chat::{self, AnswerState, ChatStream, Document, Index, StreamEnd, TOP_K};
use geo_core::safe::{terminal_text, StreamRedactor};
use std::io::{Read, Write};
use std::process::ExitCode;
use std::time::{Duration, Instant};

/// The seed's limit for one streamed answer.
const CHAT_TIMEOUT: Duration = Duration::from_secs(120);

/// Reads every document through a bound of [`geo_core::limits::MAX_DOC_BYTES`] (20 MiB).
fn load_docs(paths: &[String]) -> Result<Vec<Document>> {
    if paths.is_empty() {
        return Err(input_error("--docs needs at least one TXT or Markdown file"));
    }
    let mut docs = Vec::with_capacity(paths.len());
    for path in paths {
        let text = read_text(path, geo_core::limits::MAX_DOC_BYTES, "a document")?;
        let name =
            std::path::Path::new(path).file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or(path.clone());
        docs.push(chat::load_document(name, &text));
    }
    Ok(docs)
}

fn query(args: &Args) -> Result<String> {
    let q = args.value("query").ok_or_else(|| input_error("--query TEXT is required"))?;
    chat::messages::validate_question(q).map(str::to_string).map_err(|e| input_error(e.to_string()))
}

/// `geo-probe retrieve --docs FILE... --query TEXT [--top N]`.
pub fn retrieve(raw: &[String]) -> Result<ExitCode> {
    let args = super::parse(raw, &[("docs", Arity::Many), ("query", Arity::One), ("top", Arity::One)], &[])?;
    let docs = load_docs(args.values("docs"))?;
    let q = query(&args)?;
    let top = args.number::<usize>("top").map_err(input_error)?.unwrap_or(TOP_K);
    let index = Index::from_documents(docs);
    let hits = index.search(&q, top);
    crate::io::print_json(&hits)?;
    Ok(ExitCode::SUCCESS)
}

/// `geo-probe chat --docs FILE... --query TEXT [--base-url URL] [--model M]`.
pub fn chat(raw: &[String]) -> Result<ExitCode> {
    let spec = [("docs", Arity::Many), ("query", Arity::One), ("base-url", Arity::One), ("model", Arity::One)];
    let args = super::parse(raw, &spec, &[])?;
    let docs = load_docs(args.values("docs"))?;
    let q = query(&args)?;
    // The docs chat asks DeepSeek, with DeepSeek's key variable from the engine table.
    let key_env = geo_core::provider::spec(geo_core::model::EngineId::Deepseek).key_env;
    let (base, mode) = crate::cmd::probe::checked_endpoint(args.value("base-url"), key_env)?;
    let model =
        args.value("model").unwrap_or(geo_core::provider::spec(geo_core::model::EngineId::Deepseek).default_model);
    let index = Index::from_documents(docs);
    let hits = index.search(&q, TOP_K);
    if hits.is_empty() {
        crate::terminal::eprint_line("no chunk matched the question; the model is told the documents do not cover it");
    }
    let messages = chat::build_messages(&q, &[], &hits).map_err(|e| input_error(e.to_string()))?;
    let body = chat::build_request_body(model, &messages).to_string();
    let url = geo_core::provider::url::endpoint_url(
        base.as_ref(),
        chat::messages::CHAT_DEFAULT_BASE,
        chat::messages::CHAT_COMPLETIONS_PATH,
    );

    let mut request = crate::transport::agent()
        .post(url.as_str())
        .timeout(CHAT_TIMEOUT)
        .set("content-type", "application/json")
        .set("accept", "text/event-stream");
    if let Some(k) = mode.key() {
        request = request.set("authorization", &format!("Bearer {k}"));
    }
    let started = Instant::now();
    let mut stream = ChatStream::new();
    let end = match request.send_string(&body) {
        Ok(response) => pump(response.into_reader(), &mut stream, started),
        Err(ureq::Error::Status(status, response)) => {
            let body = response.into_string().unwrap_or_default();
            let state = chat::http_error_state(status, &body);
            crate::terminal::eprint_line(&format!("error: {}", state.describe(geo_core::model::Lang::En)));
            return Ok(ExitCode::from(1));
        }
        Err(ureq::Error::Transport(t)) => {
            if t.to_string().contains("timed out") {
                StreamEnd::Timeout
            } else {
                StreamEnd::NetworkError(crate::transport::describe_transport(
                    &t,
                    &geo_core::provider::url::host_for_messages(&url),
                ))
            }
        }
    };
    let outcome = stream.finish(end);
    println!();
    if !hits.is_empty() {
        println!("\nSources:");
        for (i, hit) in hits.iter().enumerate() {
            let line = format!("[S{}] {} · chunk {} · score {:.3}", i + 1, hit.source, hit.chunk + 1, hit.score);
            println!("{}", crate::terminal::line(&line));
        }
    }
    if outcome.state.is_done() {
        Ok(ExitCode::SUCCESS)
    } else {
        crate::terminal::eprint_line(&format!(
            "answer {}: {}",
            if matches!(outcome.state, AnswerState::Streaming) { "incomplete" } else { outcome.state.code() },
            outcome.state.describe(geo_core::model::Lang::En)
        ));
        Ok(ExitCode::from(1))
    }
}

/// Feeds the response bytes into the stream decoder, printing answer text as it arrives:
/// secrets removed even when split across pieces, control characters but `\n` and `\t`
/// replaced (the answer is untrusted text).
fn pump(mut reader: impl Read, stream: &mut ChatStream, started: Instant) -> StreamEnd {
    let mut buf = [0u8; 4096];
    let mut out = std::io::stdout();
    let mut redactor = StreamRedactor::new(crate::terminal::redactor());
    let show = |text: &str, out: &mut std::io::Stdout| {
        let _ = out.write_all(terminal_text(text, true).as_bytes());
        let _ = out.flush();
    };
    let end = loop {
        if started.elapsed() > CHAT_TIMEOUT {
            break StreamEnd::Timeout;
        }
        match reader.read(&mut buf) {
            Ok(0) => break StreamEnd::Eof,
            Ok(n) => {
                for delta in stream.push(&buf[..n]) {
                    if let chat::ChatDelta::Answer(text) = delta {
                        show(&redactor.push(&text), &mut out);
                    }
                }
            }
            Err(e) if matches!(e.kind(), std::io::ErrorKind::TimedOut | std::io::ErrorKind::WouldBlock) => {
                break StreamEnd::Timeout
            }
            Err(e) => break StreamEnd::NetworkError(format!("{} while reading the answer", e.kind())),
        }
    };
    show(&redactor.finish(), &mut out);
    end
}
