//! The snapshot model: every object GEO Probe stores, exports and imports.
//!
//! Field names follow `shared/spec/data-model.md` exactly (serde camelCase). Optional
//! fields are `Option<_>` and are skipped when `None`; collections and derived fields
//! default to empty so that a demo file (raw results only) or an export of the original
//! web app deserialises without complaint. Unknown fields are ignored on input.
//!
//! One file per record of the export, all re-exported here (every type is
//! `crate::model::X`): `project` (targets, prompts, tags), `run` (engine, config, status),
//! `probe` (raw result and derived analysis), `facts` (fact sheet, claims, risk flags),
//! `link_check` ([`LinkCheck`] and its [`LinkCounts`]), `location` (a run's [`Location`],
//! [`Surface`] and a probe's [`LocationApplied`]; `countries`, the ISO 3166-1 codes a location
//! can name, with their Chinese and English names), `envelope` ([`ExportEnvelope`] and
//! its run and probe lookups) and `lang` ([`Lang`], [`Localized`]). This file keeps the
//! versions and `wire_names!`, which every model enum's names come from.

/// Version of this program, written into every run and export.
pub const APP_VERSION: &str = env!("CARGO_PKG_VERSION");
/// Version of the stored/exported data layout (`version` of the export envelope).
pub const SCHEMA_VERSION: u32 = 1;
/// Version of the fixed neutral system prompt sent with every probe.
pub const SYSTEM_PROMPT_VERSION: &str = "neutral-zh-v1";
/// `format` field of every export envelope.
pub const EXPORT_FORMAT: &str = "geo-probe-export";

/// `ALL`, `NAMES`, `as_str` and `parse` for a model enum, from one list of its variants and
/// their wire names (the serde names; a test checks every variant against serde). Given what
/// the value is called (`wire_names!(Verdict "verdict" { … })`), also `TryFrom<String>`, the
/// reader of an enum read through a `String` (`#[serde(try_from = "String")]`), whose error
/// names the value and the names to use.
macro_rules! wire_names {
    ($ty:ident $what:literal { $($variant:ident => $name:literal),+ $(,)? }) => {
        wire_names!($ty { $($variant => $name),+ });

        impl TryFrom<String> for $ty {
            type Error = String;

            fn try_from(name: String) -> Result<Self, String> {
                $ty::parse(&name).ok_or_else(|| crate::model::unknown_name($what, &name, $ty::NAMES))
            }
        }
    };
    ($ty:ident { $($variant:ident => $name:literal),+ $(,)? }) => {
        impl $ty {
            /// Every variant, in declaration order.
            pub const ALL: [$ty; [$($name),+].len()] = [$($ty::$variant),+];
            /// Every wire name, in declaration order.
            pub const NAMES: &'static [&'static str] = &[$($name),+];

            /// The wire name: the JSON string of this value.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $($ty::$variant => $name),+
                }
            }

            /// The value with this wire name (exact), if any.
            pub fn parse(name: &str) -> Option<$ty> {
                Self::ALL.into_iter().find(|v| v.as_str() == name)
            }
        }
    };
}

/// `unknown verdict "x"; use consistent, contradicts or unverified`: the error of a `String`
/// that names no value of an enum, called `what`, whose names are `names`.
fn unknown_name(what: &str, name: &str, names: &[&str]) -> String {
    let use_one = match names {
        [.., last] if names.len() > 1 => format!("{} or {last}", names[..names.len() - 1].join(", ")),
        _ => names.join(", "),
    };
    format!("unknown {what} {name:?}; use {use_one}")
}

mod countries;
mod envelope;
mod facts;
mod lang;
mod link_check;
mod location;
mod probe;
mod project;
mod run;

pub use countries::{countries, country, find_country, Country};
pub(crate) use envelope::write_not_in_export;
pub use envelope::ExportEnvelope;
pub use facts::{Claim, Currency, Fact, FactKind, FactSnapshot, RiskFlag, RiskKind, Verdict};
pub(crate) use lang::localized_error;
pub use lang::{Lang, Localized};
pub use link_check::{LinkCheck, LinkClass, LinkCounts, LinkHop, LinkResult};
pub use location::{
    is_iana_timezone, Location, LocationApplied, LocationProblem, Surface, MAX_PART_CHARS, TIMEZONE_AREAS,
};
pub use probe::{
    probe_id, AnswerLink, ErrorKind, ListItem, Mention, Occurrence, Ownership, Probe, ProbeError, ProbeStatus, Query,
    RawCitation, RawSource, SearchContextSize, SearchSource, Usage,
};
pub use project::{tags, Project, Prompt, Target, TargetKind};
pub use run::{EngineId, ReasoningEffort, Run, RunConfig, RunStatus, APP_MODEL};

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Serialize;

    /// A name no variant has: the error names the value and every name to use, in order.
    #[test]
    fn unknown_names_say_what_to_use() {
        assert_eq!(Surface::try_from("web".to_string()).unwrap_err(), r#"unknown surface "web"; use api or app"#);
        assert_eq!(
            FactKind::try_from("date".to_string()).unwrap_err(),
            r#"unknown fact kind "date"; use year, number, money or text"#
        );
        assert_eq!(
            LocationApplied::try_from(String::new()).unwrap_err(),
            r#"unknown locationApplied ""; use request, prompt or none"#
        );
        assert_eq!(unknown_name("x", "y", &["only"]), r#"unknown x "y"; use only"#);
    }

    #[test]
    fn enums_serialise_as_contract_strings() {
        assert_eq!(serde_json::to_string(&ErrorKind::RateLimit).unwrap(), "\"rate_limit\"");
        assert_eq!(serde_json::to_string(&ErrorKind::InvalidJson).unwrap(), "\"invalid_json\"");
        assert_eq!(serde_json::to_string(&Ownership::ThirdParty).unwrap(), "\"third_party\"");
        assert_eq!(serde_json::to_string(&RunStatus::Partial).unwrap(), "\"partial\"");
    }

    /// Every model enum's `as_str` is its serde name, `NAMES` lists them in order, and
    /// `parse` inverts `as_str` (exactly: no case folding).
    #[test]
    fn wire_names_are_the_serde_names() {
        fn check<T: Copy + PartialEq + std::fmt::Debug + Serialize + serde::de::DeserializeOwned>(
            all: &[T],
            names: &[&str],
            as_str: fn(T) -> &'static str,
            parse: fn(&str) -> Option<T>,
        ) {
            assert_eq!(all.len(), names.len());
            for (&v, &name) in all.iter().zip(names) {
                assert_eq!(serde_json::to_value(v).unwrap(), as_str(v), "{v:?}");
                assert_eq!(as_str(v), name);
                assert_eq!(parse(name), Some(v));
                assert_eq!(serde_json::from_value::<T>(serde_json::Value::from(name)).unwrap(), v);
                assert_eq!(parse(&name.to_uppercase()), None);
            }
        }
        check(&TargetKind::ALL, TargetKind::NAMES, TargetKind::as_str, TargetKind::parse);
        check(&RunStatus::ALL, RunStatus::NAMES, RunStatus::as_str, RunStatus::parse);
        check(&ProbeStatus::ALL, ProbeStatus::NAMES, ProbeStatus::as_str, ProbeStatus::parse);
        check(&ErrorKind::ALL, ErrorKind::NAMES, ErrorKind::as_str, ErrorKind::parse);
        check(&Ownership::ALL, Ownership::NAMES, Ownership::as_str, Ownership::parse);
        check(&Lang::ALL, Lang::NAMES, Lang::as_str, Lang::parse);
        check(&SearchContextSize::ALL, SearchContextSize::NAMES, SearchContextSize::as_str, SearchContextSize::parse);
        check(&ReasoningEffort::ALL, ReasoningEffort::NAMES, ReasoningEffort::as_str, ReasoningEffort::parse);
        check(&LinkClass::ALL, LinkClass::NAMES, LinkClass::as_str, LinkClass::parse);
        let engines: Vec<&str> = EngineId::ALL.iter().map(|e| e.as_str()).collect();
        check(&EngineId::ALL, &engines, EngineId::as_str, EngineId::parse);
    }
}
