//! Values kept in Web Storage rather than IndexedDB: the interface language, the API keys
//! and where the keys live, and each project's recent run locations.
//!
//! Seed §8.1/§9.1: an API key is never written to IndexedDB, never exported. It sits in
//! `sessionStorage` (this tab session only, the default) or `localStorage` (survives
//! restarts, when the user chooses it); saving it in one removes it from the other. Every
//! engine has its own key under its own name (DeepSeek's keeps the original
//! `geo-probe.apiKey`); one choice of storage applies to all of them.
//!
//! Session-only is the default because Web Storage belongs to an origin, not to a site: on
//! `OWNER.github.io/REPO/` every other Pages site of that owner runs on the same origin and
//! can read `localStorage` (security review II, finding 9). [`key_origin`] says which
//! origin the keys live on and who else serves pages there.

use crate::web::{local_storage, session_storage};
use geo_core::model::{EngineId, Lang, Location};

/// `localStorage` key of the interface language (`zh` | `en`).
pub const LANG_KEY: &str = "geo-probe.lang";
/// Web Storage key of the API key (in exactly one of the two storages).
pub const API_KEY: &str = "geo-probe.apiKey";
/// `localStorage` key of the chosen key storage (`local` | `session`).
pub const KEY_STORAGE_KEY: &str = "geo-probe.keyStorage";
/// `localStorage` key of the currently selected project id.
pub const PROJECT_KEY: &str = "geo-probe.project";

/// Where the API key is kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyStorage {
    /// `localStorage`: kept after the browser closes.
    Local,
    /// `sessionStorage`: forgotten when the tab session ends.
    Session,
}

impl KeyStorage {
    /// The `<select>` value: `local` or `session`.
    pub fn as_str(self) -> &'static str {
        match self {
            KeyStorage::Local => "local",
            KeyStorage::Session => "session",
        }
    }

    /// Parses a `<select>` value; anything but `local` means session-only.
    pub fn parse(s: &str) -> KeyStorage {
        if s == "local" {
            KeyStorage::Local
        } else {
            KeyStorage::Session
        }
    }
}

/// The saved language, Chinese when nothing (or something unknown) is saved.
pub fn load_lang() -> Lang {
    match local_storage().and_then(|s| s.get_item(LANG_KEY).ok().flatten()).as_deref() {
        Some("en") => Lang::En,
        _ => Lang::Zh,
    }
}

/// Remembers the language for the next visit.
pub fn save_lang(lang: Lang) {
    if let Some(s) = local_storage() {
        let _ = s.set_item(LANG_KEY, if lang == Lang::En { "en" } else { "zh" });
    }
}

/// The chosen key storage: session-only unless local was chosen (or a key saved before the
/// choice existed sits in `localStorage`, where it stays until the user saves again).
pub fn key_storage() -> KeyStorage {
    let saved = local_storage().and_then(|s| s.get_item(KEY_STORAGE_KEY).ok().flatten());
    match saved.as_deref() {
        Some(v) => KeyStorage::parse(v),
        None => {
            // Only DeepSeek's key predates the saved choice.
            let in_local = local_storage().and_then(|s| s.get_item(API_KEY).ok().flatten());
            if in_local.is_some() {
                KeyStorage::Local
            } else {
                KeyStorage::Session
            }
        }
    }
}

pub use geo_core::origin::SharedOrigin;

/// The origin the keys live on (`https://host[:port]`) and who shares it, for this page.
pub fn key_origin() -> (String, SharedOrigin) {
    let origin = web_sys::window().and_then(|w| w.location().origin().ok()).unwrap_or_default();
    let shared = geo_core::origin::shared_origin(&origin, &crate::web::base_path());
    (origin, shared)
}

/// The Web Storage name of `engine`'s key: [`API_KEY`] for DeepSeek, `geo-probe.apiKey.ENGINE`
/// for the others.
pub fn key_name(engine: EngineId) -> String {
    match engine {
        EngineId::Deepseek => API_KEY.to_string(),
        other => format!("{API_KEY}.{}", other.as_str()),
    }
}

/// The DeepSeek API key (see [`api_key_for`]).
pub fn api_key() -> Option<String> {
    api_key_for(EngineId::Deepseek)
}

/// `engine`'s API key from session storage first, then local storage; `None` when unset or blank.
pub fn api_key_for(engine: EngineId) -> Option<String> {
    read_secret(&key_name(engine))
}

/// The Web Storage name of `geo-probe proxy`'s token, kept like the keys.
pub const PROXY_TOKEN: &str = "geo-probe.proxyToken";

/// `geo-probe proxy`'s token, session storage first; `None` when unset or blank.
pub fn proxy_token() -> Option<String> {
    read_secret(PROXY_TOKEN)
}

/// Saves (or, when blank, removes) the proxy's token in `storage`, the keys' choice, and
/// removes it from the other storage.
pub fn save_proxy_token(token: &str, storage: KeyStorage) -> Result<(), String> {
    let token = Some(token.trim()).filter(|t| !t.is_empty());
    let Some(keep) = only_in(storage, PROXY_TOKEN) else {
        return token.map_or(Ok(()), |_| Err(NO_STORAGE.into()));
    };
    write_secret(&keep, PROXY_TOKEN, token, "proxy token")
}

/// What a save says when the browser has no Web Storage.
const NO_STORAGE: &str = "web storage is not available in this browser";

/// The Web Storage that `storage` names, once `name` is removed from the other one: a secret
/// is kept in one storage at a time. `None` when the browser has no such storage.
fn only_in(storage: KeyStorage, name: &str) -> Option<web_sys::Storage> {
    let (keep, other) = match storage {
        KeyStorage::Local => (local_storage(), session_storage()),
        KeyStorage::Session => (session_storage(), local_storage()),
    };
    if let Some(other) = other {
        let _ = other.remove_item(name);
    }
    keep
}

/// Writes `value` under `name` in `keep`, or removes `name` for `None`; the error names the
/// secret as `what`.
fn write_secret(keep: &web_sys::Storage, name: &str, value: Option<&str>, what: &str) -> Result<(), String> {
    let result = match value {
        Some(v) => keep.set_item(name, v),
        None => keep.remove_item(name),
    };
    result.map_err(|_| format!("the browser refused to store the {what}: check its storage settings"))
}

/// A secret kept in Web Storage under `name`, session storage first; `None` when unset or blank.
fn read_secret(name: &str) -> Option<String> {
    [session_storage(), local_storage()]
        .into_iter()
        .flatten()
        .find_map(|s| s.get_item(name).ok().flatten())
        .filter(|k| !k.trim().is_empty())
}

/// Saves (or, for a blank key, removes) the DeepSeek key (see [`save_api_key_for`]).
pub fn save_api_key(key: &str, storage: KeyStorage) -> Result<(), String> {
    save_api_key_for(EngineId::Deepseek, key, storage)
}

/// Saves (or, for a blank key, removes) `engine`'s API key in `storage` and removes it from
/// the other. Errors when the browser refuses to write Web Storage.
pub fn save_api_key_for(engine: EngineId, key: &str, storage: KeyStorage) -> Result<(), String> {
    let name = key_name(engine);
    let keep = only_in(storage, &name).ok_or_else(|| NO_STORAGE.to_string())?;
    write_secret(&keep, &name, Some(key.trim()).filter(|k| !k.is_empty()), "key")?;
    if let Some(local) = local_storage() {
        let _ = local.set_item(KEY_STORAGE_KEY, storage.as_str());
    }
    Ok(())
}

/// Removes every engine's API key, every secret base URL, the proxy's token and the
/// key-storage choice from
/// both storages.
pub fn forget_api_key() {
    for s in [local_storage(), session_storage()].into_iter().flatten() {
        for engine in EngineId::ALL {
            let _ = s.remove_item(&key_name(engine));
            let _ = s.remove_item(&secret_base_name(engine));
        }
        let _ = s.remove_item(PROXY_TOKEN);
        let _ = s.remove_item(KEY_STORAGE_KEY);
    }
}

/// The Web Storage name of `engine`'s base URL when it holds a secret (a proxy's token in
/// its query): `geo-probe.baseUrl.ENGINE`. Such a base URL is kept like a key, never in
/// IndexedDB (security review II, finding 2; `settings_store::save_base_url`).
pub fn secret_base_name(engine: EngineId) -> String {
    format!("geo-probe.baseUrl.{}", engine.as_str())
}

/// `engine`'s secret-bearing base URL, session storage first; `None` when there is none.
pub fn secret_base_url_for(engine: EngineId) -> Option<String> {
    read_secret(&secret_base_name(engine))
}

/// Keeps (or, for `None`, removes) `engine`'s secret-bearing base URL in `storage`, and
/// removes it from the other storage.
pub fn save_secret_base_url(engine: EngineId, base: Option<&str>, storage: KeyStorage) -> Result<(), String> {
    let name = secret_base_name(engine);
    let Some(keep) = only_in(storage, &name) else {
        return base.map_or(Ok(()), |_| Err(NO_STORAGE.into()));
    };
    write_secret(&keep, &name, base, "base url")
}

/// The remembered project id, if any.
pub fn load_project() -> Option<String> {
    local_storage().and_then(|s| s.get_item(PROJECT_KEY).ok().flatten())
}

/// Remembers (or forgets, for `None`) the selected project id.
pub fn save_project(id: Option<&str>) {
    if let Some(s) = local_storage() {
        let _ = match id {
            Some(id) => s.set_item(PROJECT_KEY, id),
            None => s.remove_item(PROJECT_KEY),
        };
    }
}

/// `localStorage` key prefix of a project's recent run locations
/// (`geo-probe.recentLocations.PROJECT`: a JSON array of locations, newest first).
pub const RECENT_LOCATIONS_KEY: &str = "geo-probe.recentLocations.";
/// How many distinct locations a project remembers.
pub const RECENT_LOCATIONS: usize = 5;

/// The locations of a stored list, newest first: what decodes and keeps geo-core's rule,
/// each once, at most [`RECENT_LOCATIONS`]; nothing for text that is not a JSON array (Web
/// Storage is the user's to edit).
pub fn parse_recent(text: &str) -> Vec<Location> {
    let values: Vec<serde_json::Value> = geo_core::json::from_str(text).unwrap_or_default();
    let mut out: Vec<Location> = Vec::new();
    for location in values.into_iter().filter_map(|v| serde_json::from_value::<Location>(v).ok()) {
        if location.check().is_ok() && !out.contains(&location) && out.len() < RECENT_LOCATIONS {
            out.push(location);
        }
    }
    out
}

/// `location` first, then the others of `list` but it, at most [`RECENT_LOCATIONS`].
pub fn with_recent(list: &[Location], location: &Location) -> Vec<Location> {
    let mut out = vec![location.clone()];
    out.extend(list.iter().filter(|l| *l != location).take(RECENT_LOCATIONS - 1).cloned());
    out
}

/// The recent run locations of `project`, newest first.
pub fn recent_locations(project: &str) -> Vec<Location> {
    let text = local_storage().and_then(|s| s.get_item(&format!("{RECENT_LOCATIONS_KEY}{project}")).ok().flatten());
    text.map(|t| parse_recent(&t)).unwrap_or_default()
}

/// Remembers `location` as the newest of `project`'s and returns the list now kept (the old
/// one when the browser refuses to write: the run starts anyway).
pub fn remember_location(project: &str, location: &Location) -> Vec<Location> {
    let list = with_recent(&recent_locations(project), location);
    let text = serde_json::to_string(&list).unwrap_or_default();
    match local_storage().map(|s| s.set_item(&format!("{RECENT_LOCATIONS_KEY}{project}"), &text)) {
        Some(Ok(())) => list,
        _ => recent_locations(project),
    }
}

/// Forgets the recent locations of `project` (deleted), or of every project (`None`: all data
/// cleared).
pub fn forget_recent_locations(project: Option<&str>) {
    let Some(s) = local_storage() else { return };
    let names: Vec<String> = match project {
        Some(p) => vec![format!("{RECENT_LOCATIONS_KEY}{p}")],
        None => (0..s.length().unwrap_or(0))
            .filter_map(|i| s.key(i).ok().flatten())
            .filter(|k| k.starts_with(RECENT_LOCATIONS_KEY))
            .collect(),
    };
    for name in names {
        let _ = s.remove_item(&name);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn place(flags: &str) -> Location {
        Location::from_flags(Some(flags), None).unwrap().unwrap()
    }

    #[test]
    fn recent_locations_are_distinct_newest_first_and_few() {
        let (cn, us) = (place("CN/Zhejiang/Hangzhou"), place("US"));
        assert_eq!(with_recent(&[], &cn), std::slice::from_ref(&cn));
        assert_eq!(with_recent(&[us.clone(), cn.clone()], &cn), [cn.clone(), us.clone()], "moved to the front");
        let many: Vec<Location> = ["DE", "FR", "JP", "KR", "GB"].iter().map(|c| place(c)).collect();
        let kept = with_recent(&many, &cn);
        assert_eq!(kept.len(), RECENT_LOCATIONS);
        assert_eq!((&kept[0], &kept[4]), (&cn, &many[3]), "the oldest dropped");
        let text = serde_json::to_string(&kept).unwrap();
        assert_eq!(parse_recent(&text), kept, "read back as written");
    }

    #[test]
    fn a_stored_list_is_read_leniently() {
        assert!(parse_recent("").is_empty());
        assert!(parse_recent("{\"country\":\"CN\"}").is_empty(), "not an array");
        let text =
            r#"[{"country":"CN"},{"country":"cn"},7,{"country":"US","city":" x"},{"country":"CN"},{"country":"JP"}]"#;
        assert_eq!(parse_recent(text), [place("CN"), place("JP")], "bad entries and repeats dropped");
    }

    #[test]
    fn an_unknown_storage_choice_keeps_keys_for_the_session_only() {
        assert_eq!(KeyStorage::parse("local"), KeyStorage::Local);
        for other in ["session", "", "LOCAL", "anything"] {
            assert_eq!(KeyStorage::parse(other), KeyStorage::Session, "{other}");
        }
    }
}
