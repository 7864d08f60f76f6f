//! `--base-url` of `run`, `resume` and `retry-failed`: one proxy per engine
//! (`shared/spec/cli.md`, security review II, finding 4).
//!
//! The flag is repeatable. `--base-url E=URL` sets engine `E`'s base URL (as `--model E=M`
//! sets its model); a bare `--base-url URL` is the base of every engine without its own.
//! Each engine's key travels only to that engine's base, so a bare base shared by several
//! engines that would each send a key is refused: one proxy would receive every key.
//! Every URL passes geo-core's one base-URL rule (`provider::parse_base_url`).

use std::collections::BTreeMap;

use anyhow::Result;
use geo_core::model::EngineId;
use geo_core::provider::{parse_base_url, BaseUrl};

use crate::io::input_error;

/// The base URL of each engine from every `--base-url` given.
#[derive(Debug, Default)]
pub struct EngineBases {
    /// A bare `--base-url URL`: every engine without its own.
    shared: Option<BaseUrl>,
    /// `--base-url E=URL`, by engine.
    own: BTreeMap<EngineId, BaseUrl>,
}

/// `E=URL` → (`E`, URL) when the value does not start with a scheme and the text before
/// its first `=` is a word (a bare URL starts with `http`, and its query may hold `=`).
fn engine_pair(value: &str) -> Option<(&str, &str)> {
    let lower = value.trim_start().to_ascii_lowercase();
    if lower.starts_with("http://") || lower.starts_with("https://") {
        return None;
    }
    let (name, url) = value.split_once('=')?;
    let name = name.trim();
    (!name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')).then_some((name, url))
}

impl EngineBases {
    /// Reads every value of `--base-url` (see the module doc); a URL that geo-core refuses,
    /// an unknown engine or two bases for one engine is an input error.
    pub fn parse(values: &[String]) -> Result<EngineBases> {
        let mut bases = EngineBases::default();
        for value in values {
            let checked = |url: &str| parse_base_url(url).map_err(|e| input_error(format!("--base-url: {e}")));
            match engine_pair(value) {
                Some((name, url)) => {
                    let engine = EngineId::parse(&name.to_ascii_lowercase()).ok_or_else(|| {
                        let all: Vec<&str> = EngineId::ALL.iter().map(|e| e.as_str()).collect();
                        input_error(format!(
                            "--base-url names {:?}, which is no engine; use ENGINE=URL with one of {}, or a bare URL",
                            name.chars().take(32).collect::<String>(),
                            all.join(", ")
                        ))
                    })?;
                    let Some(base) = checked(url)? else {
                        return Err(input_error(format!("--base-url {engine}= needs a url after the =")));
                    };
                    if bases.own.insert(engine, base).is_some() {
                        return Err(input_error(format!(
                            "--base-url names {engine} twice; give one base url per engine"
                        )));
                    }
                }
                None => {
                    let base = checked(value)?;
                    if base.is_some() && bases.shared.is_some() {
                        return Err(input_error(
                            "--base-url is given twice without an engine; use ENGINE=URL for each engine's own proxy",
                        ));
                    }
                    bases.shared = base.or(bases.shared.take());
                }
            }
        }
        Ok(bases)
    }

    /// The base URL requests of `engine` go to: its own, else the shared one.
    pub fn for_engine(&self, engine: EngineId) -> Option<&BaseUrl> {
        self.own.get(&engine).or(self.shared.as_ref())
    }

    /// Refuses what would send a key where it does not belong, for a command asking
    /// `engines`: an `E=URL` for an engine not asked (`what` says which engines are), and a
    /// shared base that two or more engines with a key (`has_key`) would use.
    pub fn check(&self, engines: &[EngineId], what: &str, has_key: impl Fn(EngineId) -> bool) -> Result<()> {
        if let Some(other) = self.own.keys().find(|e| !engines.contains(e)) {
            return Err(input_error(format!("--base-url names {other}, which is not {what}")));
        }
        if self.shared.is_some() {
            let keyed: Vec<&str> =
                engines.iter().filter(|e| !self.own.contains_key(e) && has_key(**e)).map(|e| e.as_str()).collect();
            if keyed.len() > 1 {
                return Err(input_error(format!(
                    "one --base-url for {} would send each engine's api key to the same proxy; \
                     give each engine its own with --base-url ENGINE=URL (for example --base-url {}=https://proxy.example/{})",
                    keyed.join(", "),
                    keyed[0],
                    keyed[0]
                )));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(values: &[&str]) -> Result<EngineBases> {
        EngineBases::parse(&values.iter().map(|s| s.to_string()).collect::<Vec<_>>())
    }

    #[test]
    fn each_engine_gets_its_own_base_or_the_shared_one() {
        let b = parse(&["openai=https://o.example/v1?token=t", "GEMINI=http://127.0.0.1:9/", "https://s.example/?a=b"])
            .unwrap();
        assert_eq!(b.for_engine(EngineId::Openai).unwrap().as_str(), "https://o.example/v1?token=t");
        assert_eq!(b.for_engine(EngineId::Gemini).unwrap().as_str(), "http://127.0.0.1:9/");
        assert_eq!(b.for_engine(EngineId::Deepseek).unwrap().as_str(), "https://s.example/?a=b");
        assert!(parse(&[]).unwrap().for_engine(EngineId::Openai).is_none());
        assert!(parse(&[""]).unwrap().for_engine(EngineId::Deepseek).is_none());
        for bad in [
            &["bing=https://x.example"][..],
            &["openai="],
            &["openai=https://a.example", "openai=https://b.example"],
            &["https://a.example", "https://b.example"],
            &["openai=https://user:pw@a.example"],
            &["proxy.example"],
        ] {
            assert!(parse(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn a_shared_base_never_receives_two_keys() {
        let engines = [EngineId::Openai, EngineId::Gemini];
        let shared = parse(&["https://s.example"]).unwrap();
        let err = shared.check(&engines, "asked", |_| true).unwrap_err().to_string();
        assert!(err.contains("openai, gemini") && err.contains("ENGINE=URL"), "{err}");
        // One keyed engine and one in proxy mode: only one key reaches the proxy.
        shared.check(&engines, "asked", |e| e == EngineId::Openai).unwrap();
        // One engine alone may use a bare base with its key.
        shared.check(&[EngineId::Openai], "asked", |_| true).unwrap();
        // Each engine with its own base: fine, whatever the keys.
        let own = parse(&["openai=https://o.example", "gemini=https://g.example"]).unwrap();
        own.check(&engines, "asked", |_| true).unwrap();
        // A shared base used by one keyed engine only, the other has its own.
        let mixed = parse(&["https://s.example", "gemini=https://g.example"]).unwrap();
        mixed.check(&engines, "asked", |_| true).unwrap();
        let err = own.check(&[EngineId::Openai], "in --engine", |_| true).unwrap_err().to_string();
        assert!(err.contains("gemini, which is not in --engine"), "{err}");
    }
}
