//! `geo-probe mcp FILE`: a Model Context Protocol server on standard input/output, read-only
//! over an export (`shared/spec/cli.md`, "MCP tools").
//!
//! Built on `rmcp`, the protocol's official Rust SDK, on a single-threaded tokio runtime
//! that exists only while this command runs (geo-core stays free of async code; the other
//! commands never start a runtime). Every answer is a geo-core function of the export:
//! `run_metrics` is the object `geo-probe metrics` prints, `search_answers` is
//! `chat::search_answers`, the lists come from `export::catalog`; this module only parses
//! arguments, picks the run and wraps JSON. Standard output carries protocol messages
//! only (rmcp writes them; nothing here prints there); diagnostics go to standard error.
//! The server ends when the client closes standard input. A line that is not a usable
//! JSON-RPC message (not JSON, longer than `limits::MAX_MCP_LINE_BYTES`, not a request) is
//! answered with a JSON-RPC error and serving goes on (`stdio`).

mod source;
mod stdio;
mod tools;

use crate::io::input_error;
use crate::terminal;
use anyhow::{Context, Result};
use rmcp::ServiceExt;
use std::process::ExitCode;

pub use source::ExportSource;

/// `geo-probe mcp FILE`.
pub fn mcp(raw: &[String]) -> Result<ExitCode> {
    let args = super::parse(raw, &[], &["FILE"])?;
    let path = &args.positionals[0];
    if path == "-" {
        return Err(input_error(
            "geo-probe mcp reads protocol messages on standard input, so FILE cannot be `-`: give the export's path",
        ));
    }
    let source = ExportSource::open(path)?;
    if let Ok(env) = source.current() {
        terminal::eprint_line(&format!(
            "geo-probe mcp: serving {path} ({}) on standard input/output",
            geo_core::export::summarize(&env)
        ));
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the MCP server's runtime")?;
    runtime.block_on(async move {
        let server = tools::GeoProbeServer::new(source);
        // Every line gets an answer or a message (`stdio`): rmcp's stdio drops bad lines silently.
        match server.serve(stdio::GuardedStdio::new(tokio::io::stdin(), tokio::io::stdout())).await {
            Ok(running) => {
                let reason = running.waiting().await;
                match reason {
                    Ok(reason) => terminal::eprint_line(&format!(
                        "geo-probe mcp: the client closed the connection ({reason:?}); exiting"
                    )),
                    Err(e) => {
                        terminal::eprint_line(&format!("geo-probe mcp: the server task ended abnormally: {e}; exiting"))
                    }
                }
            }
            // A client that leaves before the handshake is not an error of ours.
            Err(e) => terminal::eprint_line(&format!("geo-probe mcp: no MCP session was opened ({e}); exiting")),
        }
    });
    Ok(ExitCode::SUCCESS)
}
