//! Checks of an export before it is imported: its shape, with JSON paths, and its
//! references against the data it is merged into.
//!
//! The shape check walks the parsed `serde_json::Value` with a small schema that mirrors
//! the snapshot model (required fields, types, enum strings, integer ranges), so every
//! problem names its place: `probes[3].status: expected one of
//! success|error|empty|cancelled, got "ok"`. `null` counts as absent everywhere (the
//! contract allows either for optional fields).
//!
//! Unknown fields are dropped while the text is parsed (`parse_shaped`: the same schema
//! steers the parser, which skips a field it does not name without building it), so a
//! file padded with unknown data costs no memory beyond its text and no problem path ever
//! holds a file's own key. Paths and quoted values in messages are bounded anyway: a
//! segment keeps [`crate::limits::MAX_PATH_SEGMENT_CHARS`] characters, a path
//! [`crate::limits::MAX_PROBLEM_PATH_CHARS`], and control characters are escaped.
//!
//! Derived fields of a probe (`answer`, `sources`, `mentions`, `listItems`,
//! `otherEntities`, `answerLinks`) are recomputable from the raw result, and exports of
//! the original web app may shape them differently; a derived field that does not match
//! this program's shape is dropped (the caller recomputes it), never reported.
//!
//! The pieces: `schema` (the model's shape as data), `shape` (the parser it steers and the
//! walk that reports and normalises), `sizes` (string and snapshot limits), `facts` (fact
//! sheets by the rules of `crate::project`) and `refs` (duplicate ids and references, the
//! overwrite rule included). Their problems are [`crate::export::problem`]'s.

mod facts;
mod refs;
mod schema;
mod shape;
mod sizes;

pub(crate) use facts::{check_fact_names, check_fact_sheets};
pub(crate) use refs::check_duplicates;
pub use refs::validate_against;
pub use schema::{
    ENGINE_IDS, ERROR_KINDS, LINK_CLASSES, LOCATIONS_APPLIED, OWNERSHIPS, PROBE_STATUSES, REASONING_EFFORTS,
    RUN_STATUSES, SEARCH_CONTEXT_SIZES, SURFACES, TARGET_KINDS,
};
pub(crate) use shape::{check_envelope_shape, check_fact_snapshot_shape, parse_shaped};
pub(crate) use sizes::{check_snapshot_sizes, check_string_sizes};
