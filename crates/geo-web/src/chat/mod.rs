//! The browser side of the Docs chat (seed 001): the pieces of the page that are not
//! rendering. Everything that decides something — chunking, ranking, the messages, SSE
//! decoding and the answer's final state — is `geo_core::chat`; this module only splits an
//! answer into text and `[S#]` tags for display ([`cite`]), checks files before reading them
//! ([`files`]), embeds the sample documents ([`samples`]) and streams the HTTP response
//! into a `ChatStream` ([`fetch`]).

pub mod cite;
pub mod fetch;
pub mod files;
pub mod samples;
