//! How a run's location reaches each engine (`shared/spec/engines.md`, "Where and how an answer
//! was measured"): in the request's own `user_location` field where the engine documents one
//! (its spec row's [`LocationField::Request`]), else as one more line of the system prompt,
//! `User location: CITY, REGION, COUNTRY (TIMEZONE).`, unless the run's `locationPrompt` is
//! `false`; and what each probe records of it ([`location_applied`]).
//!
//! A leaf of `provider/` (it imports only the model and the spec table): every engine file and
//! dialect builds its body with these pieces, so the line and the field's keys are written once.
//! Which keys an engine's field takes (the type `approximate`, a timezone) is the engine's own
//! fact and is chosen in its file: [`user_location`]'s `with_timezone` and [`UserLocation::plain`].

use std::borrow::Cow;

use serde::Serialize;

use super::spec::{spec, LocationField, SYSTEM_PROMPT};
use crate::model::{EngineId, Localized, Location, LocationApplied, RunConfig};

/// How a probe of a run of `config` sends the run's location: `request` where the engine has a
/// field, `prompt` where it has none and `locationPrompt` is on, else `none` (no location, or
/// the line switched off). Every attempt of a probe sends it the same way, so this is also how
/// the last attempt of a failed probe sent it.
pub fn location_applied(config: &RunConfig) -> LocationApplied {
    applied_by(config.engine, config.location.is_some(), config.location_prompt)
}

/// [`location_applied`] for `engine`, whether the run has a location and its `locationPrompt`
/// (the run page says it per ticked engine before the run exists).
pub fn applied_by(engine: EngineId, has_location: bool, location_prompt: bool) -> LocationApplied {
    match (has_location, spec(engine).location) {
        (false, _) => LocationApplied::None,
        (true, LocationField::Request) => LocationApplied::Request,
        (true, LocationField::Prompt) if location_prompt => LocationApplied::Prompt,
        (true, LocationField::Prompt) => LocationApplied::None,
    }
}

/// `User location: ` + [`Location::label`] + `.`: the line an engine without a field gets
/// (`User location: Hangzhou, Zhejiang, CN (Asia/Shanghai).`, `User location: US.`).
pub fn location_line(location: &Location) -> String {
    format!("User location: {}.", location.label())
}

/// The system prompt of a probe of `config`: the neutral prompt, and, when the location is
/// sent as a prompt line ([`location_applied`] is `prompt`), `\n` and [`location_line`] after
/// it, nothing after the line.
pub fn system_prompt(config: &RunConfig) -> Cow<'static, str> {
    match (&config.location, location_applied(config)) {
        (Some(location), LocationApplied::Prompt) => {
            Cow::Owned(format!("{SYSTEM_PROMPT}\n{}", location_line(location)))
        }
        _ => Cow::Borrowed(SYSTEM_PROMPT),
    }
}

/// A request's `user_location` object: `{"type":"approximate", country, region?, city?,
/// timezone?}`, or without `type` (Perplexity's), absent parts left out. The values are the
/// run's as given, never translated.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct UserLocation<'a> {
    /// `approximate`, or nothing.
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    pub kind: Option<&'static str>,
    /// ISO 3166-1 alpha-2.
    pub country: &'a str,
    /// Region as given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub region: Option<&'a str>,
    /// City as given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub city: Option<&'a str>,
    /// IANA timezone, for the engines whose field takes one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timezone: Option<&'a str>,
}

impl<'a> UserLocation<'a> {
    /// `{"type":"approximate", …}` of `location`, with its timezone when `with_timezone`.
    pub fn approximate(location: &'a Location, with_timezone: bool) -> Self {
        UserLocation {
            kind: Some("approximate"),
            country: &location.country,
            region: location.region.as_deref(),
            city: location.city.as_deref(),
            timezone: location.timezone.as_deref().filter(|_| with_timezone),
        }
    }

    /// `{country, region?, city?}` of `location`: no `type`, no timezone.
    pub fn plain(location: &'a Location) -> Self {
        UserLocation { kind: None, timezone: None, ..UserLocation::approximate(location, false) }
    }
}

/// The `approximate` [`UserLocation`] a request of `config` carries (with the timezone when
/// `with_timezone`): `Some` only when the location goes in the request ([`location_applied`] is
/// `request`).
pub fn user_location(config: &RunConfig, with_timezone: bool) -> Option<UserLocation<'_>> {
    match (&config.location, location_applied(config)) {
        (Some(location), LocationApplied::Request) => Some(UserLocation::approximate(location, with_timezone)),
        _ => None,
    }
}

/// The plain [`UserLocation`] (no `type`, no timezone) a request of `config` carries: `Some`
/// only when the location goes in the request.
pub fn plain_user_location(config: &RunConfig) -> Option<UserLocation<'_>> {
    match (&config.location, location_applied(config)) {
        (Some(location), LocationApplied::Request) => Some(UserLocation::plain(location)),
        _ => None,
    }
}

/// What the run page and `geo-probe run` say about `engine` when the run has no location and
/// the engine's search then assumes a country (OpenAI: the United States); `None` otherwise.
pub fn assumed_location_note(engine: EngineId, has_location: bool) -> Option<Localized> {
    let country = spec(engine).assumed_country.filter(|_| !has_location)?;
    let name = spec(engine).name;
    let (zh, en) = match country {
        "US" => ("美国", "the United States"),
        other => (other, other),
    };
    Some(Localized::new(
        format!("未设置位置时，{name}（{engine}）的网页搜索默认用户在{zh}；如需测量其他地区，请设置位置"),
        format!(
            "{name} ({engine}) has no location for this run, so its web search assumes a user in {en}; set a location to measure another country"
        ),
    ))
}

/// How the location will reach `engine`, one sentence in both languages (the run page says it
/// per ticked engine): in its request's field, as a system-prompt line, or not at all.
pub fn applied_note(engine: EngineId, has_location: bool, location_prompt: bool) -> Localized {
    let name = spec(engine).name;
    match applied_by(engine, has_location, location_prompt) {
        LocationApplied::Request => Localized::new(
            format!("{name}：位置写入请求的 user_location 字段"),
            format!("{name}: the location goes in its request's user_location field"),
        ),
        LocationApplied::Prompt => Localized::new(
            format!("{name}：没有位置字段，位置以一行「User location: …」附在系统提示词末尾"),
            format!("{name}: no location field; the location is one more system-prompt line, \"User location: …\""),
        ),
        LocationApplied::None if has_location => Localized::new(
            format!("{name}：没有位置字段，且已关闭系统提示词中的位置行，位置不会发送"),
            format!("{name}: no location field and the system-prompt line is off, so the location is not sent"),
        ),
        LocationApplied::None => Localized::new(format!("{name}：未设置位置"), format!("{name}: no location set")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(engine: EngineId, location: Option<&str>, tz: Option<&str>, prompt: bool) -> RunConfig {
        RunConfig {
            engine,
            location: Location::from_flags(location, tz).unwrap(),
            location_prompt: prompt,
            ..RunConfig::default()
        }
    }

    #[test]
    fn how_each_engine_takes_a_location() {
        use LocationApplied::{None as N, Prompt as P, Request as R};
        let expect = [
            (EngineId::Deepseek, P),
            (EngineId::Anthropic, R),
            (EngineId::Openai, R),
            (EngineId::Gemini, P),
            (EngineId::Perplexity, R),
            (EngineId::Qwen, P),
            (EngineId::Doubao, R),
            (EngineId::Ernie, P),
            (EngineId::Hunyuan, P),
        ];
        for (engine, applied) in expect {
            assert_eq!(location_applied(&config(engine, Some("CN"), None, true)), applied, "{engine}");
            assert_eq!(location_applied(&config(engine, None, None, true)), N, "{engine} without a location");
            let off = if applied == P { N } else { applied };
            assert_eq!(location_applied(&config(engine, Some("CN"), None, false)), off, "{engine}, line off");
        }
    }

    #[test]
    fn the_line_and_the_system_prompt() {
        let full = config(EngineId::Deepseek, Some("CN/Zhejiang/Hangzhou"), Some("Asia/Shanghai"), true);
        assert_eq!(
            system_prompt(&full),
            format!("{SYSTEM_PROMPT}\nUser location: Hangzhou, Zhejiang, CN (Asia/Shanghai).")
        );
        assert_eq!(
            system_prompt(&config(EngineId::Qwen, Some("US"), None, true)),
            format!("{SYSTEM_PROMPT}\nUser location: US.")
        );
        assert_eq!(system_prompt(&config(EngineId::Deepseek, Some("US"), None, false)), SYSTEM_PROMPT);
        assert_eq!(system_prompt(&config(EngineId::Openai, Some("US"), None, true)), SYSTEM_PROMPT, "it has a field");
        assert_eq!(system_prompt(&RunConfig::default()), SYSTEM_PROMPT);
    }

    #[test]
    fn the_field_leaves_absent_parts_out() {
        let c = config(EngineId::Openai, Some("CN/Zhejiang"), Some("Asia/Shanghai"), true);
        let json = |u: &UserLocation<'_>| serde_json::to_string(u).unwrap();
        assert_eq!(
            json(&user_location(&c, true).unwrap()),
            r#"{"type":"approximate","country":"CN","region":"Zhejiang","timezone":"Asia/Shanghai"}"#
        );
        assert_eq!(
            json(&user_location(&c, false).unwrap()),
            r#"{"type":"approximate","country":"CN","region":"Zhejiang"}"#
        );
        assert_eq!(json(&UserLocation::plain(c.location.as_ref().unwrap())), r#"{"country":"CN","region":"Zhejiang"}"#);
        assert!(user_location(&config(EngineId::Deepseek, Some("CN"), None, true), true).is_none(), "a prompt engine");
        assert!(user_location(&RunConfig { engine: EngineId::Openai, ..RunConfig::default() }, true).is_none());
    }

    #[test]
    fn notes() {
        assert!(assumed_location_note(EngineId::Openai, false).unwrap().en.contains("the United States"));
        assert!(assumed_location_note(EngineId::Openai, true).is_none());
        assert!(assumed_location_note(EngineId::Deepseek, false).is_none());
        assert!(applied_note(EngineId::Deepseek, true, true).en.contains("system-prompt line"));
        assert!(applied_note(EngineId::Doubao, true, true).en.contains("user_location"));
        assert!(applied_note(EngineId::Gemini, true, false).en.contains("not sent"));
    }
}
