//! [`Wire`]: one engine's wire format as a row of functions — its request body, its
//! continuation, its reply parser, its own error codes and its extra headers — with the
//! engine's id. (Its key-test body is a constant of its file, read through the table's
//! `key_test_body`: only the key test needs it, and a field here would put nine request
//! templates into the web app, which never runs the key test.)
//!
//! # The one decision: a table of functions, not a trait
//!
//! Each engine module fills one `const WIRE: Wire`; the table (`engines/mod.rs`) is the only
//! place that names them. A row of plain `fn` pointers costs no per-engine monomorphisation (the
//! site's size: ADR 0006 and 0014), carries its `EngineId` so no closure has to capture one,
//! and is read the same way by [`interpret`](super::interpret()), the
//! [`Endpoint`](super::Endpoint), the key test and the doctor. "Wire" means this and nothing
//! else in `provider/`: the JSON readers are `read`, the transport is the shells'.

use super::error::kind::{self, OwnKind};
use super::parsed::{Continuation, ParsedResponse};
use crate::model::{EngineId, ProbeError, RunConfig};

/// Headers as `(name, value)`, names lowercase.
pub type Headers = &'static [(&'static str, &'static str)];

/// One engine's wire format (engines.md, "Request bodies", "From a response to the raw result",
/// "Errors and retries").
#[derive(Debug, Clone, Copy)]
pub struct Wire {
    /// The engine this row belongs to (its error messages name it).
    pub engine: EngineId,
    /// The probe request body for a prompt under a run's config, serialised in the engine's
    /// documented field order: what the shells send.
    pub body: fn(&str, &RunConfig) -> String,
    /// The body of a `pause_turn` continuation (the Messages engines); `None` for an engine
    /// that never pauses.
    pub continuation: Option<fn(&str, &RunConfig, &Continuation) -> String>,
    /// Reads a 2xx body; the second argument is the requested model (used when the body names
    /// none).
    pub parse: fn(&str, &str) -> Result<ParsedResponse, ProbeError>,
    /// The engine's own error codes, read before the shared status table.
    pub error_kind: OwnKind,
    /// Headers every request carries besides `content-type` and the key.
    pub headers: Headers,
    /// Headers a browser's request carries besides those.
    pub browser_headers: Headers,
}

impl Wire {
    /// The row of an engine that never pauses and sends no header of its own: its id, request
    /// body, reply parser and own error codes.
    pub const fn new(
        engine: EngineId,
        body: fn(&str, &RunConfig) -> String,
        parse: fn(&str, &str) -> Result<ParsedResponse, ProbeError>,
        error_kind: OwnKind,
    ) -> Wire {
        Wire { engine, body, continuation: None, parse, error_kind, headers: &[], browser_headers: &[] }
    }

    /// This row with a `pause_turn` continuation's body.
    pub const fn continued(self, continuation: fn(&str, &RunConfig, &Continuation) -> String) -> Wire {
        Wire { continuation: Some(continuation), ..self }
    }

    /// This row with headers of its own: on every request, and on a browser's besides.
    pub const fn with_headers(self, headers: Headers, browser_headers: Headers) -> Wire {
        Wire { headers, browser_headers, ..self }
    }

    /// A non-2xx reply (status and body) as a probe error, by this engine's rules.
    pub fn map_error(&self, status: u16, body: &str) -> ProbeError {
        kind::map_http(self.engine, self.error_kind, status, body)
    }

    /// The `invalid_json` error of a 2xx reply that is not this engine's JSON, in its words.
    pub fn invalid_json(&self, detail: &str) -> ProbeError {
        kind::invalid_json(self.engine, detail)
    }

    /// The body of one request: the probe request, or with `continuation` (a paused Messages
    /// turn) the same request with the paused content appended (engines.md, "Fidelity"). An
    /// engine that never pauses sends its probe request.
    pub fn body_with(&self, prompt_text: &str, config: &RunConfig, continuation: Option<&Continuation>) -> String {
        match (self.continuation, continuation) {
            (Some(continued), Some(c)) => continued(prompt_text, config, c),
            _ => (self.body)(prompt_text, config),
        }
    }
}
