//! The stdio transport of `geo-probe mcp`: newline-delimited JSON-RPC on standard
//! input/output, with an answer for every line it cannot use (security review II, finding 11;
//! `docs/adr/0019-hardening-ii.md`).
//!
//! rmcp's own stdio transport drops an unparsable line or a line over its limit without a
//! word, so a client that sent one waits for an answer that never comes. This one reads a
//! line at a time, never buffering more than [`MAX_MCP_LINE_BYTES`], and answers:
//! - a line that is not JSON with a JSON-RPC parse error (`-32700`, id `null`);
//! - a line longer than the limit with an invalid-request error (`-32600`, id `null`) saying
//!   so, after skipping the rest of it without keeping it;
//! - JSON that is not a JSON-RPC message with an invalid-request error carrying the line's
//!   `id` when it has one (a notification the server does not know is ignored, as the
//!   protocol asks).
//!
//! Well-formed messages go to rmcp, which answers an unknown method with `-32601`. Replies go
//! out through rmcp's own writer, one whole line each, so they never interleave. After any
//! of these the server keeps serving.

use std::collections::VecDeque;

use geo_core::limits::MAX_MCP_LINE_BYTES;
use rmcp::model::{ErrorData, RequestId};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::async_rw::AsyncRwTransport;
use rmcp::transport::Transport;
use rmcp::RoleServer;
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, BufReader};

/// What one bounded read found.
enum Line {
    /// A whole line is in the buffer.
    Whole,
    /// A line longer than [`MAX_MCP_LINE_BYTES`] was skipped.
    TooLong,
    /// The client closed its end, or reading failed.
    End,
}

/// Newline-delimited JSON-RPC over a reader and a writer (standard input and output).
pub struct GuardedStdio<R, W>
where
    R: AsyncRead + Send + Unpin,
    W: AsyncWrite + Send + Unpin + 'static,
{
    read: BufReader<R>,
    line: Vec<u8>,
    /// Skipping the rest of a line that was too long.
    skipping: bool,
    out: AsyncRwTransport<RoleServer, tokio::io::Empty, W>,
    /// Error replies not yet written.
    replies: VecDeque<TxJsonRpcMessage<RoleServer>>,
}

impl<R, W> GuardedStdio<R, W>
where
    R: AsyncRead + Send + Unpin,
    W: AsyncWrite + Send + Unpin + 'static,
{
    /// A transport reading `read` and writing `write`.
    pub fn new(read: R, write: W) -> Self {
        GuardedStdio {
            read: BufReader::new(read),
            line: Vec::new(),
            skipping: false,
            out: AsyncRwTransport::new(tokio::io::empty(), write),
            replies: VecDeque::new(),
        }
    }

    /// Reads up to the next `\n` into `self.line`, never holding more than the limit; a
    /// cancelled read leaves what it read in `self.line` for the next call.
    async fn read_line(&mut self) -> Line {
        loop {
            let (taken, done) = {
                let Ok(available) = self.read.fill_buf().await else { return Line::End };
                if available.is_empty() {
                    return Line::End;
                }
                let newline = available.iter().position(|b| *b == b'\n');
                let take = newline.map_or(available.len(), |i| i + 1);
                if self.skipping {
                    (take, newline.map(|_| None))
                } else if self.line.len() + take > MAX_MCP_LINE_BYTES + 1 {
                    self.line.clear();
                    self.skipping = newline.is_none();
                    (take, Some(Some(Line::TooLong)))
                } else {
                    self.line.extend_from_slice(&available[..take]);
                    (take, newline.map(|_| Some(Line::Whole)))
                }
            };
            self.read.consume(taken);
            match done {
                // The end of a skipped line: keep reading.
                Some(None) => self.skipping = false,
                Some(Some(line)) => return line,
                None => {}
            }
        }
    }

    /// The message a whole line holds, or the error reply it gets.
    fn message(line: &[u8]) -> Result<Option<RxJsonRpcMessage<RoleServer>>, Box<TxJsonRpcMessage<RoleServer>>> {
        let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
        let value: Value = serde_json::from_slice(line).map_err(|_| {
            Box::new(TxJsonRpcMessage::<RoleServer>::error(
                ErrorData::parse_error("the line is not JSON; send one JSON-RPC message per line", None),
                None,
            ))
        })?;
        if let Ok(message) = serde_json::from_value::<RxJsonRpcMessage<RoleServer>>(value.clone()) {
            return Ok(Some(message));
        }
        let id = value.get("id").and_then(|id| serde_json::from_value::<RequestId>(id.clone()).ok());
        if id.is_none() && value.get("method").is_some_and(Value::is_string) {
            // A notification the server does not know: no answer is due.
            return Ok(None);
        }
        Err(Box::new(TxJsonRpcMessage::<RoleServer>::error(
            ErrorData::invalid_request("the line is JSON but not a JSON-RPC 2.0 request or notification", None),
            id,
        )))
    }
}

impl<R, W> Transport<RoleServer> for GuardedStdio<R, W>
where
    R: AsyncRead + Send + Unpin,
    W: AsyncWrite + Send + Unpin + 'static,
{
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl std::future::Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.out.send(item)
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            while let Some(reply) = self.replies.pop_front() {
                self.out.send(reply).await.ok()?;
            }
            match self.read_line().await {
                Line::Whole => {}
                Line::TooLong => {
                    self.replies.push_back(TxJsonRpcMessage::<RoleServer>::error(
                        ErrorData::invalid_request(
                            format!(
                                "the line is longer than {MAX_MCP_LINE_BYTES} bytes and was skipped; send shorter messages"
                            ),
                            None,
                        ),
                        None,
                    ));
                    continue;
                }
                Line::End => return None,
            }
            let line = std::mem::take(&mut self.line);
            let text = line.strip_suffix(b"\n").unwrap_or(&line);
            let text = text.strip_suffix(b"\r").unwrap_or(text);
            if text.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            match Self::message(text) {
                Ok(Some(message)) => return Some(message),
                Ok(None) => {}
                Err(reply) => self.replies.push_back(*reply),
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.out.close().await
    }
}
