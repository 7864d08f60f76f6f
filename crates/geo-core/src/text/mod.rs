//! Text primitives shared by every analysis step and by docs-chat retrieval, each defined
//! once: NFKC folding ([`fold`]), byte-level UTF-8 scanning (`utf8`), character classes and
//! word boundaries ([`class`]), static string tables packed at compile time ([`packed`]),
//! the one Markdown writer of the reports with their number formats ([`md`]), and the one
//! 64-bit FNV-1a hash ([`hash`]).
//!
//! Before this module the same primitive lived twice with different behaviour (two CJK
//! ranges, two word-byte rules, two NFKC fast paths, two Markdown-link parsers); now a Mention, a list title, the
//! position-adjusted word count and a retrieval token agree on what a CJK character, a word
//! boundary and a folded character are.

pub mod class;
pub mod fold;
pub mod hash;
pub(crate) mod markdown;
pub mod md;
pub mod packed;
pub(crate) mod utf8;

pub use class::{is_cjk, is_joiner, is_word_byte, joins_word};
pub use fold::{nfkc_trimmed, normalize_for_match, normalize_for_match_into};
pub use hash::{fnv1a64, fnv1a64_hex};
