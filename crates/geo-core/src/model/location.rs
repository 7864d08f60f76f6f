//! Where and how an answer was measured (`shared/spec/engines.md`, "Where and how an answer
//! was measured"): a run's [`Location`] (`config.location`), how a probe's location reached
//! its engine ([`LocationApplied`]) and which surface a run measured ([`Surface`]).
//!
//! The one rule for a location lives here: `country` is two ASCII letters stored in upper
//! case, `region` and `city` are trimmed, non-blank, without control characters and at most
//! [`MAX_PART_CHARS`] characters, and `timezone` is an IANA name by shape
//! ([`is_iana_timezone`]). geo-core carries no time-zone database (it is pure and goes into the
//! web app), so "an IANA name" is checked as the database spells its names — `UTC`, `Etc/…`
//! from the database's closed list, or one of its ten continent and ocean areas followed by one
//! or two capitalised place names — and a well-formed name the database does not hold
//! (`Asia/Atlantis`) passes (`docs/adr/0022-location-surface-method.md`).

use serde::{Deserialize, Serialize};

use super::{Lang, Localized};

/// Most characters of a location's region or city.
pub const MAX_PART_CHARS: usize = 100;

/// The IANA database's areas (its continent and ocean names), the first part of every
/// `Area/Place` name.
pub const TIMEZONE_AREAS: [&str; 10] =
    ["Africa", "America", "Antarctica", "Arctic", "Asia", "Atlantic", "Australia", "Europe", "Indian", "Pacific"];

/// The names under `Etc/` besides `GMT+N` and `GMT-N` (the database's closed list).
const ETC_NAMES: [&str; 7] = ["GMT", "GMT0", "UTC", "UCT", "Universal", "Zulu", "Greenwich"];

/// Where the asker is: `config.location` (`{country, region?, city?, timezone?}`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Location {
    /// ISO 3166-1 alpha-2, upper case (`CN`, `US`).
    pub country: String,
    /// Region, province or state as given (`Zhejiang`, `浙江`); never translated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub region: Option<String>,
    /// City as given (`Hangzhou`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub city: Option<String>,
    /// An IANA time-zone name (`Asia/Shanghai`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timezone: Option<String>,
}

/// What is wrong with a location, said so that the user can fix it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LocationProblem {
    /// `--location` is empty, has an empty part or more than three parts.
    Parts {
        /// The text given.
        given: String,
    },
    /// The country is not two ASCII letters (or, stored, not upper case).
    Country {
        /// The text given.
        given: String,
    },
    /// The region is blank, too long or holds a control character.
    Region {
        /// The text given.
        given: String,
    },
    /// The city is blank, too long or holds a control character.
    City {
        /// The text given.
        given: String,
    },
    /// The timezone is not an IANA name.
    Timezone {
        /// The text given.
        given: String,
    },
    /// A timezone was given without a location.
    TimezoneWithoutLocation,
}

impl LocationProblem {
    /// The field the problem is about (`country`, `region`, `city`, `timezone`; empty for the
    /// whole location).
    pub fn field(&self) -> &'static str {
        match self {
            LocationProblem::Parts { .. } => "",
            LocationProblem::Country { .. } => "country",
            LocationProblem::Region { .. } => "region",
            LocationProblem::City { .. } => "city",
            LocationProblem::Timezone { .. } | LocationProblem::TimezoneWithoutLocation => "timezone",
        }
    }

    /// The problem in both interface languages.
    pub fn localized(&self) -> Localized {
        let q = |s: &str| format!("{:?}", s.chars().take(60).collect::<String>());
        match self {
            LocationProblem::Parts { given } => Localized::new(
                format!("位置 {} 应为 国家/地区/城市（一到三段，均不能为空），例如 CN/Zhejiang/Hangzhou", q(given)),
                format!(
                    "location {} must be COUNTRY[/REGION[/CITY]] (one to three non-empty parts), e.g. CN/Zhejiang/Hangzhou",
                    q(given)
                ),
            ),
            LocationProblem::Country { given } => Localized::new(
                format!("国家 {} 不是两个字母的 ISO 国家代码，例如 CN、US", q(given)),
                format!("country {} is not a two-letter ISO 3166-1 code in upper case; use one such as CN or US", q(given)),
            ),
            LocationProblem::Region { given } => Localized::new(
                format!("地区 {} 不能为空、不能含控制字符，且最多 {MAX_PART_CHARS} 个字符", q(given)),
                format!(
                    "region {} must be non-blank text of at most {MAX_PART_CHARS} characters without control characters",
                    q(given)
                ),
            ),
            LocationProblem::City { given } => Localized::new(
                format!("城市 {} 不能为空、不能含控制字符，且最多 {MAX_PART_CHARS} 个字符", q(given)),
                format!(
                    "city {} must be non-blank text of at most {MAX_PART_CHARS} characters without control characters",
                    q(given)
                ),
            ),
            LocationProblem::Timezone { given } => Localized::new(
                format!("时区 {} 不是 IANA 时区名，请写成 Asia/Shanghai、America/New_York 或 UTC 这样的形式", q(given)),
                format!(
                    "timezone {} is not an IANA time-zone name; write one such as Asia/Shanghai, America/New_York or UTC",
                    q(given)
                ),
            ),
            LocationProblem::TimezoneWithoutLocation => Localized::new(
                "时区需要与位置一起设置（--location CC/REGION/CITY）",
                "--timezone needs a location: pass --location CC[/REGION[/CITY]] too",
            ),
        }
    }
}

crate::model::localized_error!(LocationProblem);

/// Whether `part` is a region or city a location keeps: non-blank after trimming, at most
/// [`MAX_PART_CHARS`] characters, no control character (it goes into a system prompt's line).
fn part_ok(part: &str) -> bool {
    let t = part.trim();
    !t.is_empty() && t.len() == part.len() && t.chars().count() <= MAX_PART_CHARS && !t.chars().any(char::is_control)
}

/// Whether `name` is an IANA time-zone name by the database's spelling: `UTC`; `Etc/GMT`,
/// `Etc/GMT+N` (N 0–12), `Etc/GMT-N` (N 0–14) and the other names of `Etc/`; or one of
/// [`TIMEZONE_AREAS`] followed by one or two places, each an upper-case ASCII letter then
/// letters, `_` or `-` (2–30 characters): `Asia/Shanghai`, `America/Argentina/Buenos_Aires`.
/// Case matters (`asia/shanghai` is not a name). A well-formed name that the database does not
/// hold passes: geo-core has no copy of the database (module documentation).
pub fn is_iana_timezone(name: &str) -> bool {
    if name == "UTC" {
        return true;
    }
    let mut parts = name.split('/');
    let area = parts.next().unwrap_or("");
    let places: Vec<&str> = parts.collect();
    if area == "Etc" {
        let [place] = places[..] else { return false };
        return ETC_NAMES.contains(&place) || etc_offset(place);
    }
    let place_ok = |p: &&str| {
        let b = p.as_bytes();
        (2..=30).contains(&b.len())
            && b[0].is_ascii_uppercase()
            && b.iter().all(|c| c.is_ascii_alphabetic() || *c == b'_' || *c == b'-')
    };
    TIMEZONE_AREAS.contains(&area) && (1..=2).contains(&places.len()) && places.iter().all(place_ok)
}

/// `GMT+N` (N 0–12) or `GMT-N` (N 0–14), N without a leading zero.
fn etc_offset(place: &str) -> bool {
    let Some(rest) = place.strip_prefix("GMT") else { return false };
    let (max, digits) = match rest.as_bytes().first() {
        Some(b'+') => (12, &rest[1..]),
        Some(b'-') => (14, &rest[1..]),
        _ => return false,
    };
    let canonical =
        !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) && !digits.starts_with("0") || digits == "0";
    canonical && digits.parse::<u32>().is_ok_and(|n| n <= max)
}

impl Location {
    /// A location from its parts as a user typed them: each trimmed, the country upper-cased,
    /// blank optional parts dropped, then [`Location::check`]ed.
    pub fn new(
        country: &str,
        region: Option<&str>,
        city: Option<&str>,
        timezone: Option<&str>,
    ) -> Result<Self, LocationProblem> {
        let kept = |p: Option<&str>| p.map(str::trim).filter(|p| !p.is_empty()).map(str::to_string);
        let location = Location {
            country: country.trim().to_ascii_uppercase(),
            region: kept(region),
            city: kept(city),
            timezone: kept(timezone),
        };
        // Lower case typed is fine; anything but two letters is named as given.
        if location.country.len() != 2 || !location.country.bytes().all(|b| b.is_ascii_uppercase()) {
            return Err(LocationProblem::Country { given: country.to_string() });
        }
        location.check()?;
        Ok(location)
    }

    /// `geo-probe run --location CC[/REGION[/CITY]] [--timezone TZ]` (cli.md): one to three
    /// non-empty `/`-separated parts, the first two ASCII letters (stored upper case), and an
    /// IANA timezone; a timezone without a location is a problem too. `None` for neither.
    pub fn from_flags(location: Option<&str>, timezone: Option<&str>) -> Result<Option<Self>, LocationProblem> {
        let Some(given) = location else {
            return match timezone {
                Some(_) => Err(LocationProblem::TimezoneWithoutLocation),
                None => Ok(None),
            };
        };
        let parts: Vec<&str> = given.split('/').map(str::trim).collect();
        if parts.len() > 3 || parts.iter().any(|p| p.is_empty()) {
            return Err(LocationProblem::Parts { given: given.to_string() });
        }
        if let Some(tz) = timezone.filter(|tz| !is_iana_timezone(tz.trim())) {
            return Err(LocationProblem::Timezone { given: tz.to_string() });
        }
        Location::new(parts[0], parts.get(1).copied(), parts.get(2).copied(), timezone).map(Some)
    }

    /// Whether a stored location keeps the rule (the import and `start_run` call it): the
    /// country two upper-case ASCII letters, region and city non-blank, trimmed, at most
    /// [`MAX_PART_CHARS`] characters and without control characters, the timezone an IANA name.
    pub fn check(&self) -> Result<(), LocationProblem> {
        if self.country.len() != 2 || !self.country.bytes().all(|b| b.is_ascii_uppercase()) {
            return Err(LocationProblem::Country { given: self.country.clone() });
        }
        if let Some(region) = self.region.as_deref().filter(|r| !part_ok(r)) {
            return Err(LocationProblem::Region { given: region.to_string() });
        }
        if let Some(city) = self.city.as_deref().filter(|c| !part_ok(c)) {
            return Err(LocationProblem::City { given: city.to_string() });
        }
        if let Some(tz) = self.timezone.as_deref().filter(|tz| !is_iana_timezone(tz)) {
            return Err(LocationProblem::Timezone { given: tz.to_string() });
        }
        Ok(())
    }

    /// `CITY, REGION, COUNTRY (TIMEZONE)`: the present parts joined by `, `, the timezone in
    /// brackets when there is one (`Hangzhou, Zhejiang, CN (Asia/Shanghai)`, `US`). What the
    /// system-prompt line says and what a report shows.
    pub fn label(&self) -> String {
        let mut parts: Vec<&str> = Vec::with_capacity(3);
        parts.extend(self.city.as_deref());
        parts.extend(self.region.as_deref());
        parts.push(&self.country);
        let mut label = parts.join(", ");
        if let Some(tz) = &self.timezone {
            label.push_str(&format!(" ({tz})"));
        }
        label
    }
}

/// Which surface of an assistant a run measured (`Run.surface`).
///
/// Read through a `String`, as [`super::ReasoningEffort`] is (ADR 0014).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", try_from = "String")]
pub enum Surface {
    /// The engine's API, asked by this program (the default, also for every older run).
    #[default]
    Api,
    /// The assistant's consumer app: answers captured by hand or by a tool and imported
    /// (`geo-probe import-captures`).
    App,
}

wire_names!(Surface "surface" { Api => "api", App => "app" });

impl Surface {
    /// `api`: the value a run without `surface` has (skipped when written).
    pub fn is_api(&self) -> bool {
        *self == Surface::Api
    }

    /// The surface's name in `lang` (`API`, `应用` / `app`).
    pub fn label(self, lang: Lang) -> &'static str {
        match self {
            Surface::Api => "API",
            Surface::App => lang.pick("应用", "app"),
        }
    }
}

/// How a probe's location reached its engine (`Probe.locationApplied`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", try_from = "String")]
pub enum LocationApplied {
    /// In the request's own location field (`user_location`).
    Request,
    /// As the system prompt's `User location: …` line (engines without a field).
    Prompt,
    /// Not sent: the run has no location, or its `locationPrompt` is off (the default, also
    /// for every older probe).
    #[default]
    None,
}

wire_names!(LocationApplied "locationApplied" { Request => "request", Prompt => "prompt", None => "none" });

impl LocationApplied {
    /// `none`: the value a probe without `locationApplied` has (skipped when written).
    pub fn is_none(&self) -> bool {
        *self == LocationApplied::None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A location's parts as `from_flags` should give them (country, region, city, timezone).
    type Parts<'a> = (&'a str, Option<&'a str>, Option<&'a str>, Option<&'a str>);

    #[track_caller]
    fn check_flags(location: Option<&str>, timezone: Option<&str>, expect: Result<Option<Parts<'_>>, &str>) {
        let got = Location::from_flags(location, timezone);
        match (got, expect) {
            (Ok(got), Ok(want)) => {
                let want = want.map(|(c, r, ci, tz)| Location {
                    country: c.into(),
                    region: r.map(Into::into),
                    city: ci.map(Into::into),
                    timezone: tz.map(Into::into),
                });
                assert_eq!(got, want, "{location:?} {timezone:?}");
            }
            (Err(e), Err(field)) => assert_eq!(e.field(), field, "{location:?} {timezone:?}: {e}"),
            (got, want) => panic!("{location:?} {timezone:?}: got {got:?}, want {want:?}"),
        }
    }

    #[test]
    fn flags() {
        check_flags(None, None, Ok(None));
        check_flags(Some("US"), None, Ok(Some(("US", None, None, None))));
        check_flags(
            Some("cn/Zhejiang/Hangzhou"),
            Some("Asia/Shanghai"),
            Ok(Some(("CN", Some("Zhejiang"), Some("Hangzhou"), Some("Asia/Shanghai")))),
        );
        check_flags(Some(" CN / 浙江 "), None, Ok(Some(("CN", Some("浙江"), None, None))));
        check_flags(None, Some("Asia/Shanghai"), Err("timezone"));
        check_flags(Some("CN"), Some("Asia/Hangzhou/Xihu/Lake"), Err("timezone"));
        check_flags(Some("CN"), Some("asia/shanghai"), Err("timezone"));
        check_flags(Some("CN"), Some("CST"), Err("timezone"));
        check_flags(Some("CHN/Zhejiang"), None, Err("country"));
        check_flags(Some("C1"), None, Err("country"));
        check_flags(Some("中国"), None, Err("country"));
        check_flags(Some(""), None, Err(""));
        check_flags(Some("CN//Hangzhou"), None, Err(""));
        check_flags(Some("CN/a/b/c"), None, Err(""));
        check_flags(Some("CN/"), None, Err(""));
        check_flags(Some(&format!("CN/{}", "x".repeat(101))), None, Err("region"));
        check_flags(Some("CN/Zhejiang/Hang\u{7}zhou"), None, Err("city"));
    }

    #[test]
    fn timezones_by_the_databases_spelling() {
        for good in [
            "UTC",
            "Asia/Shanghai",
            "America/New_York",
            "America/Argentina/Buenos_Aires",
            "America/Port-au-Prince",
            "Antarctica/DumontDUrville",
            "Etc/GMT",
            "Etc/GMT+12",
            "Etc/GMT-14",
            "Etc/GMT-0",
            "Etc/UTC",
            "Europe/Berlin",
        ] {
            assert!(is_iana_timezone(good), "{good}");
        }
        for bad in [
            "",
            "utc",
            "GMT+8",
            "CST",
            "Asia",
            "Asia/",
            "Asia/shanghai",
            "Moon/Crater",
            "Asia/Shang hai",
            "Asia/S",
            "Etc/GMT+13",
            "Etc/GMT-15",
            "Etc/GMT+08",
            "Etc/Nowhere",
            "Asia/Shanghai/Pudong/East",
            "Asia/上海",
            "+08:00",
        ] {
            assert!(!is_iana_timezone(bad), "{bad}");
        }
    }

    #[test]
    fn labels_leave_absent_parts_out() {
        let full = Location::from_flags(Some("CN/Zhejiang/Hangzhou"), Some("Asia/Shanghai")).unwrap().unwrap();
        assert_eq!(full.label(), "Hangzhou, Zhejiang, CN (Asia/Shanghai)");
        assert_eq!(Location::from_flags(Some("us"), None).unwrap().unwrap().label(), "US");
        let no_city = Location::from_flags(Some("US/California"), Some("America/Los_Angeles")).unwrap().unwrap();
        assert_eq!(no_city.label(), "California, US (America/Los_Angeles)");
    }

    #[test]
    fn a_stored_location_is_checked_as_it_is() {
        let stored = |country: &str| Location { country: country.into(), region: None, city: None, timezone: None };
        assert!(stored("CN").check().is_ok());
        assert_eq!(stored("cn").check().unwrap_err().field(), "country");
        let blank = Location { region: Some("  ".into()), ..stored("CN") };
        assert_eq!(blank.check().unwrap_err().field(), "region");
        let padded = Location { city: Some(" Hangzhou".into()), ..stored("CN") };
        assert_eq!(padded.check().unwrap_err().field(), "city");
        assert!(LocationProblem::Timezone { given: "x".into() }.localized().zh.contains("IANA"));
    }

    #[test]
    fn wire_names_agree_with_serde() {
        for s in Surface::ALL {
            assert_eq!(serde_json::to_value(s).unwrap(), s.as_str());
            assert_eq!(serde_json::from_value::<Surface>(s.as_str().into()).unwrap(), s);
        }
        for a in LocationApplied::ALL {
            assert_eq!(serde_json::to_value(a).unwrap(), a.as_str());
            assert_eq!(serde_json::from_value::<LocationApplied>(a.as_str().into()).unwrap(), a);
        }
        assert!(serde_json::from_value::<Surface>("web".into()).is_err());
    }
}
