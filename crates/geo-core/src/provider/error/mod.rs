//! From a failed request to what the user reads: [`body`] reads an error body, [`kind`] maps a
//! status and a body to the seed's error kinds (each engine's own codes handed in),
//! [`transport`] words the failures that got no reply, [`words`] the interface's zh/en sentences.
//!
//! Split so that a parser needs only `body` and `kind`, and the interface's words never sit in
//! the way of a parser: `words` → `transport` → `body`; `kind` → `body`; none of them names an
//! engine module.

pub mod body;
pub mod kind;
pub mod transport;
pub mod words;
