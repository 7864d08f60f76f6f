//! DeepSeek through its Anthropic-compatible `/anthropic/v1/messages` endpoint (seed §4):
//! the Messages dialect, with `rawCitations` only when a text block carries citations (its
//! endpoint has none of its own) and a reasoning effort in `output_config` (`budget`).
//!
//! Everything else DeepSeek does is the dialect's or a fact of its spec row.

use crate::model::{EngineId, ProbeError};
use crate::provider::dialect::messages::request::{self, continuation_body_json, request_body_json, HEADERS};
use crate::provider::dialect::messages::response::{parse_messages, Citations};
use crate::provider::error::kind::no_own_codes;
use crate::provider::parsed::ParsedResponse;
use crate::provider::wire::Wire;

/// DeepSeek's wire format.
pub(crate) const WIRE: Wire = Wire::new(EngineId::Deepseek, request_body_json, parse, no_own_codes)
    .continued(continuation_body_json)
    .with_headers(HEADERS, &[]);

/// The key test's body: the Messages dialect's.
pub(crate) const KEY_TEST_BODY: &str = request::KEY_TEST_BODY;

/// A Messages reply, citations kept only when present.
fn parse(body: &str, requested_model: &str) -> Result<ParsedResponse, ProbeError> {
    parse_messages(body, requested_model, Citations::WhenPresent)
}
