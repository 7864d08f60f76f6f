//! Values kept in Web Storage rather than IndexedDB: the interface language, the API keys
//! and where the keys live.
//!
//! Seed §8.1/§9.1: an API key is never written to IndexedDB, never exported. It sits in
//! `localStorage` (survives restarts, the default) or `sessionStorage` (this tab session
//! only); saving it in one removes it from the other. Every engine has its own key under its
//! own name (DeepSeek's keeps the original `geo-probe.apiKey`); one choice of storage applies
//! to all of them.

use crate::web::{local_storage, session_storage};
use geo_core::model::{EngineId, Lang};

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

    /// Parses a `<select>` value; anything but `session` means local.
    pub fn parse(s: &str) -> KeyStorage {
        if s == "session" {
            KeyStorage::Session
        } else {
            KeyStorage::Local
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

/// The chosen key storage (local unless session was chosen, or the key is only in session).
pub fn key_storage() -> KeyStorage {
    let saved = local_storage().and_then(|s| s.get_item(KEY_STORAGE_KEY).ok().flatten());
    match saved.as_deref() {
        Some(v) => KeyStorage::parse(v),
        None => {
            let in_session = session_storage().and_then(|s| s.get_item(API_KEY).ok().flatten());
            // Only DeepSeek's key predates the saved choice.
            if in_session.is_some() {
                KeyStorage::Session
            } else {
                KeyStorage::Local
            }
        }
    }
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
    let name = key_name(engine);
    [session_storage(), local_storage()]
        .into_iter()
        .flatten()
        .find_map(|s| s.get_item(&name).ok().flatten())
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
    let (keep, other) = match storage {
        KeyStorage::Local => (local_storage(), session_storage()),
        KeyStorage::Session => (session_storage(), local_storage()),
    };
    if let Some(other) = other {
        let _ = other.remove_item(&name);
    }
    let keep = keep.ok_or_else(|| "web storage is not available in this browser".to_string())?;
    let key = key.trim();
    let result = if key.is_empty() { keep.remove_item(&name) } else { keep.set_item(&name, key) };
    result.map_err(|_| "the browser refused to store the key: check its storage settings".to_string())?;
    if let Some(local) = local_storage() {
        let _ = local.set_item(KEY_STORAGE_KEY, storage.as_str());
    }
    Ok(())
}

/// Removes every engine's API key and the key-storage choice from both storages.
pub fn forget_api_key() {
    for s in [local_storage(), session_storage()].into_iter().flatten() {
        for engine in EngineId::ALL {
            let _ = s.remove_item(&key_name(engine));
        }
        let _ = s.remove_item(KEY_STORAGE_KEY);
    }
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
