//! Every engine's wire format (`shared/spec/engines.md`): URL, headers, request body,
//! response parsing into the raw result and error mapping. Pure: the shells perform the
//! HTTP request.
//!
//! # The one decision: engines are data
//!
//! An engine is a row of facts ([`spec`](mod@spec): URLs, key variable, models, temperatures,
//! browser access, citation markers, the words its errors are told in) and a row of functions
//! (its [`Wire`]: request body, continuation, reply parser, own error codes, extra headers; and
//! a key-test body), each row in its own file under `engines/`, and one table
//! (`engines/mod.rs`, the only file that names those files). Everything else reads the rows:
//! [`Endpoint`] (what the shells use), [`interpret`](mod@interpret) (a reply → the attempt's
//! outcome), [`keytest`] and the doctor ([`crate::doctor`], which also reads the price table and
//! so sits above `provider`). What several engines share is a dialect ([`dialect`]:
//! Messages, chat completions, Responses), so an engine's file holds only what that engine does.
//!
//! **Architecture Invariant:** an engine or dialect module imports only the spec, the parsed
//! result, the JSON readers, the error body and kinds, the budget, the location pieces (and,
//! an engine, its dialect and the [`Wire`] type it fills in); only the table names the engine
//! modules. The tidy test `engines_and_dialects_import_only_the_leaves` holds it.
//!
//! - [`spec`](mod@spec), [`parsed`], `read`: the leaves — the engine table, the raw result, the lenient
//!   JSON readers;
//! - [`error`]: an error body ([`error::body`]), its kind ([`error::kind`], each engine's own
//!   codes handed in), the transport's failures ([`error::transport`]) and the interface's
//!   words ([`error::words`]);
//! - [`budget`]: what each engine and model is asked to spend (output budget, reasoning
//!   effort, thinking budget), and the default run;
//! - [`location`]: how a run's location reaches each engine (its request's `user_location`, or
//!   the system prompt's `User location:` line) and what a probe records of it;
//! - [`url`]: the one base-URL rule and the key-or-proxy rule; [`local_proxy`]: the app's side
//!   of `geo-probe proxy`.

pub mod budget;
pub mod dialect;
pub mod endpoint;
mod engines;
pub mod error;
pub mod interpret;
pub mod keytest;
pub mod local_proxy;
pub mod location;
pub mod parsed;
mod read;
pub mod spec;
pub mod url;
pub mod wire;

pub use dialect::messages::turn::{merge_turn, MAX_CONTINUATIONS};
pub use endpoint::{
    endpoint_url, endpoint_url_for, engine_headers, engine_path, engine_request_body, map_engine_http_error,
    parse_engine_response, Endpoint,
};
pub use engines::wire;
pub use error::body::{parse_error_body, ProviderErrorBody};
pub use error::kind::empty_answer_error;
pub use error::transport::{
    network_error, redirect_error, reply_too_large_error, timeout_error, LOCAL_PROXY_ERROR_TYPE,
};
pub use error::words::describe_engine_error;
pub use interpret::{interpret, EngineReply, Interpret, INTERPRETED_HEADERS};
pub use keytest::{build_engine_key_test_body, interpret_engine_key_test, KeyVerdict};
pub use location::{applied_by, applied_note, assumed_location_note, location_applied, location_line, system_prompt};
pub use parsed::{Continuation, ParsedResponse};
pub use spec::{
    model_or_default, spec, temperature_applies, Auth, BrowserAccess, Caller, EngineSpec, LocationField, MarkerRule,
    ENGINES, KEY_TEST_PROMPT, REQUEST_TIMEOUT_MS, SYSTEM_PROMPT,
};
pub use url::{auth_mode, check_key, parse_base_url, ApiKey, BaseUrl, BaseUrlError, KeyError, KeyMode};
pub use wire::Wire;
