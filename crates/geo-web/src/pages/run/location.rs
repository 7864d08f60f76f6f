//! The run page's location (engines.md, "Where and how an answer was measured"): the country
//! picker (`run-location-country`, an `<input list>` over geo-core's country table named in the
//! interface language; the run stores the ISO code), region, city and time zone (the browser's
//! zones, the chosen country's first), the switch of the system-prompt line, the project's
//! recent locations as one-click buttons, and per ticked engine how the location will reach it
//! (`run-location-note`: geo-core's `applied_note`, and OpenAI's assumed country without one).
//!
//! The fields are read by geo-core (`find_country`, `Location::new`); the browser adds the one
//! check geo-core cannot make without a time-zone database (ADR 0022, decision 1): that a
//! well-formed zone is one the browser knows (`Asia/Nowhere` is not). Bad input keeps every
//! field as typed, marks its field and disables "start" with the reason.

use crate::hooks::{set_on_check, set_on_input};
use crate::i18n::{t, tf};
use crate::prefs;
use geo_core::model::{countries, country, find_country, EngineId, Lang, Location, LocationProblem};
use geo_core::provider::location::{applied_by, applied_note, assumed_location_note};
use js_sys::{Array, Function, Object, Reflect};
use wasm_bindgen::{JsCast, JsValue};
use yew::prelude::*;

/// The location fields as typed, the switch of the prompt line and the project's recent
/// locations.
#[derive(Clone)]
pub(super) struct LocationForm {
    pub(super) country: UseStateHandle<String>,
    pub(super) region: UseStateHandle<String>,
    pub(super) city: UseStateHandle<String>,
    pub(super) timezone: UseStateHandle<String>,
    /// `run-location-prompt`: whether engines without a field get the line (on by default).
    pub(super) prompt: UseStateHandle<bool>,
    /// The project's recent locations, newest first ([`prefs::recent_locations`]).
    pub(super) recent: UseStateHandle<Vec<Location>>,
}

/// The location fields, empty (no location), with the recent locations of `project_id`.
#[hook]
pub(super) fn use_location_form(project_id: Option<String>) -> LocationForm {
    let recent = use_state(Vec::new);
    {
        let recent = recent.clone();
        use_effect_with(project_id, move |id| {
            recent.set(id.as_deref().map(prefs::recent_locations).unwrap_or_default());
        });
    }
    LocationForm {
        country: use_state(String::new),
        region: use_state(String::new),
        city: use_state(String::new),
        timezone: use_state(String::new),
        prompt: use_state(|| true),
        recent,
    }
}

impl LocationForm {
    /// What the fields say ([`read_location`], the zone asked of the browser).
    pub(super) fn read(&self) -> Result<Option<Location>, LocationIssue> {
        read_location(&self.country, &self.region, &self.city, &self.timezone, browser_knows_zone)
    }

    /// Fills the fields with `location` (a recent one), the country by its name in `lang`.
    fn fill(&self, location: &Location, lang: Lang) {
        let name = country(&location.country).map_or(location.country.as_str(), |c| c.name(lang));
        self.country.set(name.to_string());
        self.region.set(location.region.clone().unwrap_or_default());
        self.city.set(location.city.clone().unwrap_or_default());
        self.timezone.set(location.timezone.clone().unwrap_or_default());
    }
}

/// What is wrong with the location fields.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum LocationIssue {
    /// geo-core's rule: a region, city or time zone of the wrong shape.
    Rule(LocationProblem),
    /// The country field names no country of the table (`ZZ`, `C1`, a misspelt name).
    UnknownCountry(String),
    /// A region, city or time zone without a country.
    NoCountry,
    /// A well-formed time zone that the browser's database does not hold.
    UnknownZone(String),
}

impl LocationIssue {
    /// The field it is about: `country`, `region`, `city` or `timezone`.
    pub(super) fn field(&self) -> &'static str {
        match self {
            LocationIssue::Rule(problem) if !problem.field().is_empty() => problem.field(),
            LocationIssue::UnknownZone(_) => "timezone",
            _ => "country",
        }
    }

    /// What to do about it, in `lang`.
    pub(super) fn message(&self, lang: Lang) -> String {
        let shown = |given: &str| given.trim().chars().take(60).collect::<String>();
        match self {
            LocationIssue::Rule(problem) => problem.localized().get(lang).to_string(),
            LocationIssue::UnknownCountry(given) => {
                tf(lang, "run.location_unknown_country", &[("given", &shown(given))])
            }
            LocationIssue::NoCountry => t(lang, "run.location_no_country").to_string(),
            LocationIssue::UnknownZone(given) => tf(lang, "run.location_unknown_zone", &[("given", &shown(given))]),
        }
    }
}

/// The location the fields say: none when every field is blank; else the country the first
/// field names (code or name, geo-core's `find_country`) with the other parts through
/// `Location::new`, and a time zone that `knows_zone` holds.
pub(super) fn read_location(
    country: &str,
    region: &str,
    city: &str,
    timezone: &str,
    knows_zone: impl Fn(&str) -> bool,
) -> Result<Option<Location>, LocationIssue> {
    if country.trim().is_empty() {
        let others = [region, city, timezone].iter().any(|f| !f.trim().is_empty());
        return if others { Err(LocationIssue::NoCountry) } else { Ok(None) };
    }
    let found = find_country(country).ok_or_else(|| LocationIssue::UnknownCountry(country.to_string()))?;
    let location = Location::new(found.code, Some(region), Some(city), Some(timezone)).map_err(LocationIssue::Rule)?;
    match &location.timezone {
        Some(zone) if !knows_zone(zone) => Err(LocationIssue::UnknownZone(zone.clone())),
        _ => Ok(Some(location)),
    }
}

/// `Intl` and its member `name`, when the browser has both.
fn intl(name: &str) -> Option<(JsValue, Function)> {
    let intl = Reflect::get(&js_sys::global(), &JsValue::from_str("Intl")).ok()?;
    let member = Reflect::get(&intl, &JsValue::from_str(name)).ok()?.dyn_into::<Function>().ok()?;
    Some((intl, member))
}

/// Whether the browser's time-zone database holds `zone`: `new Intl.DateTimeFormat("en",
/// {timeZone})` throws a RangeError for a zone it does not hold. A browser without `Intl` is
/// not asked (geo-core's shape check stands alone).
fn browser_knows_zone(zone: &str) -> bool {
    let Some((_, format)) = intl("DateTimeFormat") else { return true };
    let options = Object::new();
    let _ = Reflect::set(&options, &JsValue::from_str("timeZone"), &JsValue::from_str(zone));
    Reflect::construct(&format, &Array::of2(&JsValue::from_str("en"), &options)).is_ok()
}

/// The browser's time zones: those of `country` first (`Intl.Locale`'s `getTimeZones()`, or
/// its `timeZones` in older browsers), then every other (`Intl.supportedValuesOf`), and `UTC`.
fn browser_zones(country: Option<&str>) -> Vec<String> {
    let mut zones = Vec::new();
    if let (Some(code), Some((_, locale))) = (country, intl("Locale")) {
        if let Ok(locale) = Reflect::construct(&locale, &Array::of1(&JsValue::from_str(&format!("und-{code}")))) {
            let getter = Reflect::get(&locale, &JsValue::from_str("getTimeZones")).ok();
            let list = match getter.and_then(|f| f.dyn_into::<Function>().ok()) {
                Some(get) => get.call0(&locale).ok(),
                None => Reflect::get(&locale, &JsValue::from_str("timeZones")).ok(),
            };
            push_strings(&mut zones, list);
        }
    }
    if let Some((intl, values_of)) = intl("supportedValuesOf") {
        push_strings(&mut zones, values_of.call1(&intl, &JsValue::from_str("timeZone")).ok());
    }
    push_strings(&mut zones, Some(Array::of1(&JsValue::from_str("UTC")).into()));
    zones
}

/// Appends the strings of the JS array `list` that `out` does not hold yet.
fn push_strings(out: &mut Vec<String>, list: Option<JsValue>) {
    let Some(array) = list.and_then(|l| l.dyn_into::<Array>().ok()) else { return };
    for zone in array.iter().filter_map(|v| v.as_string()) {
        if !out.contains(&zone) {
            out.push(zone);
        }
    }
}

/// Props of [`Choices`].
#[derive(Properties, PartialEq)]
struct ChoicesProps {
    lang: Lang,
    /// The chosen country's code, whose zones come first.
    country: Option<&'static str>,
}

/// The pickers' lists: every country named in the interface language (its label the code and
/// the other language's name, which the browser matches as well), and the browser's zones. A
/// component of its own, so that typing in a field does not rebuild some 700 options.
#[function_component]
fn Choices(props: &ChoicesProps) -> Html {
    let zones = use_memo(props.country, |code| browser_zones(*code));
    let other = if props.lang == Lang::Zh { Lang::En } else { Lang::Zh };
    html! {
        <>
            <datalist id="run-countries">
                { for countries().iter().map(|c| html! {
                    <option value={c.name(props.lang)} label={format!("{} · {}", c.code, c.name(other))} />
                }) }
            </datalist>
            <datalist id="run-timezones">
                { for zones.iter().map(|z| html! { <option value={z.clone()} /> }) }
            </datalist>
        </>
    }
}

/// The project's recent locations, each a button that fills the fields with it
/// (`run-location-recent`, `data-value` = the location's label); nothing without any.
fn recent_buttons(form: &LocationForm, lang: Lang) -> Html {
    if form.recent.is_empty() {
        return html! {};
    }
    html! {
        <div class="recent-locations" role="group" aria-labelledby="run-location-recent-label">
            <span id="run-location-recent-label" class="muted small">{ t(lang, "run.location_recent") }</span>
            { for form.recent.iter().map(|location| {
                let (form, chosen) = (form.clone(), location.clone());
                let label = location.label();
                html! {
                    <button type="button" class="secondary" data-testid="run-location-recent" data-value={label.clone()}
                        aria-label={tf(lang, "run.location_use", &[("x", &label)])}
                        onclick={Callback::from(move |_: MouseEvent| form.fill(&chosen, lang))}>{ label.clone() }</button>
                }
            }) }
        </div>
    }
}

/// Per ticked engine how the location will reach it (`data-value` = the `locationApplied` its
/// probes will record), then what an engine assumes without one (`data-assumed`).
fn applied_notes(has_location: bool, prompt: bool, ticked: &[EngineId], lang: Lang) -> Html {
    if ticked.is_empty() {
        return html! {};
    }
    html! {
        <ul class="plain small location-note" data-testid="run-location-note">
            { for ticked.iter().map(|e| html! {
                <li data-engine={e.as_str()} data-value={applied_by(*e, has_location, prompt).as_str()}>
                    { applied_note(*e, has_location, prompt).get(lang).to_string() }</li>
            }) }
            { for ticked.iter().filter_map(|e| assumed_location_note(*e, has_location).map(|n| (*e, n))).map(|(e, n)| html! {
                <li class="error-text" data-assumed={e.as_str()}>{ n.get(lang).to_string() }</li>
            }) }
        </ul>
    }
}

/// The location block: the recent locations, the four fields with the problem beside them,
/// the switch of the prompt line and how the location reaches each ticked engine.
pub(super) fn location_fields(
    form: &LocationForm,
    read: &Result<Option<Location>, LocationIssue>,
    ticked: &[EngineId],
    lang: Lang,
) -> Html {
    let issue = read.as_ref().err();
    let invalid = |field: &str| issue.filter(|i| i.field() == field).map(|_| AttrValue::from("true"));
    let problem_of =
        |field: &str| issue.filter(|i| i.field() == field).map(|_| AttrValue::from("run-location-problem"));
    let code = find_country(&form.country).map(|c| c.code);
    let on_prompt = set_on_check(&form.prompt);
    let field = |key: &'static str, testid: &'static str, name: &'static str, state: &UseStateHandle<String>| {
        let list = match name {
            "country" => Some("run-countries"),
            "timezone" => Some("run-timezones"),
            _ => None,
        };
        html! {
            <label class="field"><span class="label-text">{ t(lang, key) }</span>
                <input type="text" data-testid={testid} list={list} autocomplete="off" spellcheck="false"
                    data-value={if name == "country" { code.unwrap_or_default() } else { "" }}
                    aria-invalid={invalid(name)} aria-describedby={problem_of(name)}
                    value={(**state).clone()} oninput={set_on_input(state)} /></label>
        }
    };
    html! {
        <fieldset class="location">
            <legend>{ t(lang, "run.location") }</legend>
            <p class="muted small">{ t(lang, "run.location_help") }</p>
            { recent_buttons(form, lang) }
            <div class="grid-fields">
                { field("run.location_country", "run-location-country", "country", &form.country) }
                { field("run.location_region", "run-location-region", "region", &form.region) }
                { field("run.location_city", "run-location-city", "city", &form.city) }
                { field("run.timezone", "run-timezone", "timezone", &form.timezone) }
            </div>
            if let Some(issue) = issue {
                <p id="run-location-problem" class="field-error" data-testid="run-location-problem"
                    data-field={issue.field()}>{ issue.message(lang) }</p>
            }
            <label class="check">
                <input type="checkbox" data-testid="run-location-prompt" checked={*form.prompt} onchange={on_prompt} />
                <span>{ t(lang, "run.location_prompt") }</span>
            </label>
            { applied_notes(!matches!(read, Ok(None)), *form.prompt, ticked, lang) }
            <Choices {lang} country={code} />
        </fieldset>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every zone is known but `Asia/Nowhere`, as a browser's database.
    fn known(zone: &str) -> bool {
        zone != "Asia/Nowhere"
    }

    #[track_caller]
    fn check(fields: [&str; 4], expect: Result<Option<&str>, &str>) {
        let [country, region, city, timezone] = fields;
        let got = read_location(country, region, city, timezone, known);
        match (got, expect) {
            (Ok(got), Ok(want)) => assert_eq!(got.map(|l| l.label()).as_deref(), want, "{fields:?}"),
            (Err(issue), Err(field)) => {
                assert_eq!(issue.field(), field, "{fields:?}: {issue:?}");
                assert!(
                    !issue.message(Lang::Zh).is_empty() && !issue.message(Lang::En).contains("{given}"),
                    "{issue:?}"
                );
            }
            (got, want) => panic!("{fields:?}: got {got:?}, want {want:?}"),
        }
    }

    #[test]
    fn the_fields_read_as_a_location() {
        check(["", "", "", ""], Ok(None));
        check([" ", " ", "", ""], Ok(None));
        check(["中国", "Zhejiang", "Hangzhou", "Asia/Shanghai"], Ok(Some("Hangzhou, Zhejiang, CN (Asia/Shanghai)")));
        check(["China", " 浙江 ", "", ""], Ok(Some("浙江, CN")));
        check(["us", "", "", "America/New_York"], Ok(Some("US (America/New_York)")));
        check(["ZZ", "", "", ""], Err("country"));
        check(["C1", "", "", ""], Err("country"));
        check(["中华", "Zhejiang", "", ""], Err("country"));
        check(["", "Zhejiang", "", ""], Err("country"));
        check(["", "", "", "Asia/Shanghai"], Err("country"));
        check(["CN", "", "", "Asia/Nowhere"], Err("timezone"));
        check(["CN", "", "", "asia/shanghai"], Err("timezone"));
        check(["CN", "", "", "GMT+8"], Err("timezone"));
        check(["CN", &"x".repeat(101), "", ""], Err("region"));
        check(["CN", "", "Hang\u{7}zhou", ""], Err("city"));
    }
}
