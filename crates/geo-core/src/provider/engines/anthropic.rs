//! Anthropic's Messages API (`/v1/messages`): the Messages dialect, with `rawCitations` always
//! an array (the API has citations), and the opt-in header a browser page must send
//! (`anthropic-dangerous-direct-browser-access`).
//!
//! Everything else Claude does is the dialect's or a fact of its spec row (its temperature
//! range 0–1, its 529 `overloaded_error` read by the shared status table as `server`).

use crate::model::{EngineId, ProbeError};
use crate::provider::dialect::messages::request::{self, continuation_body_json, request_body_json, HEADERS};
use crate::provider::dialect::messages::response::{parse_messages, Citations};
use crate::provider::error::kind::no_own_codes;
use crate::provider::parsed::ParsedResponse;
use crate::provider::wire::Wire;

/// Anthropic's wire format.
pub(crate) const WIRE: Wire = Wire::new(EngineId::Anthropic, request_body_json, parse, no_own_codes)
    .continued(continuation_body_json)
    .with_headers(HEADERS, &[("anthropic-dangerous-direct-browser-access", "true")]);

/// The key test's body: the Messages dialect's.
pub(crate) const KEY_TEST_BODY: &str = request::KEY_TEST_BODY;

/// A Messages reply, citations always an array.
fn parse(body: &str, requested_model: &str) -> Result<ParsedResponse, ProbeError> {
    parse_messages(body, requested_model, Citations::Always)
}
