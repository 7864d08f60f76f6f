//! The settings form's state and handlers: every engine's key and base URL as typed, the
//! local proxy's fields, the key tests' verdicts ([`EngineForm`], read by
//! [`use_engine_form`]), and what saving, testing a key and clearing all data do.

use crate::hooks::{report, toast, use_query};
use crate::i18n::t;
use crate::prefs::{self, KeyStorage};
use crate::repo::Repository;
use crate::settings_store::{
    parse_base_url, read_base_url, read_proxy_settings, route_of, save_base_url, save_proxy_settings, ProxySettings,
};
use crate::state::{Action, AppHandle, ToastKind};
use geo_core::doctor::DoctorCheck;
use geo_core::model::{EngineId, Lang};
use geo_core::provider::local_proxy::{self, EngineRoute, LocalProxy};
use geo_core::provider::spec;
use std::collections::HashMap;
use yew::prelude::*;

/// The engine fields of the form: DeepSeek's key, key storage and base URL (whose fields
/// keep the original test ids), the other engines' typed keys and base URLs, and the key
/// tests' verdicts.
#[derive(Clone)]
pub(super) struct EngineForm {
    pub(super) key: UseStateHandle<String>,
    pub(super) storage: UseStateHandle<KeyStorage>,
    pub(super) base_url: UseStateHandle<String>,
    pub(super) key_saved: UseStateHandle<bool>,
    pub(super) key_test: UseStateHandle<Option<DoctorCheck>>,
    pub(super) key_testing: UseStateHandle<bool>,
    pub(super) other_keys: UseStateHandle<HashMap<EngineId, String>>,
    pub(super) other_bases: UseStateHandle<HashMap<EngineId, String>>,
    /// By engine: `None` while testing, `Some(v)` the verdict; absent: never tested.
    pub(super) other_tests: UseStateHandle<HashMap<EngineId, Option<DoctorCheck>>>,
    /// "Use a local proxy" (`settings-proxy`), its address and token as typed.
    pub(super) proxy_on: UseStateHandle<bool>,
    pub(super) proxy_url: UseStateHandle<String>,
    pub(super) proxy_token: UseStateHandle<String>,
}

impl EngineForm {
    /// The base URL typed for `engine`.
    pub(super) fn base_of(&self, engine: EngineId) -> String {
        match engine {
            EngineId::Deepseek => (*self.base_url).clone(),
            other => self.other_bases.get(&other).cloned().unwrap_or_default(),
        }
    }

    /// The key typed for `engine`.
    pub(super) fn key_of(&self, engine: EngineId) -> String {
        match engine {
            EngineId::Deepseek => (*self.key).clone(),
            other => self.other_keys.get(&other).cloned().unwrap_or_default(),
        }
    }

    /// The local proxy as typed, when "use a local proxy" is ticked and its address is
    /// valid (an invalid one is refused when saving).
    fn proxy(&self) -> Option<LocalProxy> {
        let url = local_proxy::parse_proxy_url(&self.proxy_url).ok()?;
        self.proxy_on.then(|| LocalProxy { url, token: self.proxy_token.trim().to_string() })
    }

    /// Where `engine`'s requests would go with what is typed now: its key (else the saved
    /// one), its base URL and the local proxy.
    fn route(&self, engine: EngineId, lang: Lang) -> Result<EngineRoute, String> {
        let typed = self.key_of(engine).trim().to_string();
        let key = if typed.is_empty() { prefs::api_key_for(engine) } else { Some(typed) };
        route_of(engine, key.as_deref(), Some(self.base_of(engine).as_str()), self.proxy().as_ref(), lang)
    }

    /// Empties every field after all data was cleared.
    fn forget(&self) {
        self.key.set(String::new());
        self.key_saved.set(false);
        self.base_url.set(String::new());
        self.other_keys.set(HashMap::new());
        self.other_bases.set(HashMap::new());
        self.proxy_on.set(false);
        self.proxy_url.set(String::new());
        self.proxy_token.set(String::new());
    }
}

/// The engine form: keys from Web Storage, base URLs from the settings once they are read.
#[hook]
pub(super) fn use_engine_form() -> EngineForm {
    let form = EngineForm {
        key: use_state(|| prefs::api_key().unwrap_or_default()),
        storage: use_state(prefs::key_storage),
        base_url: use_state(String::new),
        key_saved: use_state(|| prefs::api_key().is_some()),
        key_test: use_state(|| None::<DoctorCheck>),
        key_testing: use_state(|| false),
        other_keys: use_state(|| {
            OTHER_ENGINES.iter().map(|e| (*e, prefs::api_key_for(*e).unwrap_or_default())).collect::<HashMap<_, _>>()
        }),
        other_bases: use_state(HashMap::<EngineId, String>::new),
        other_tests: use_state(HashMap::<EngineId, Option<DoctorCheck>>::new),
        proxy_on: use_state(|| false),
        proxy_url: use_state(String::new),
        proxy_token: use_state(|| prefs::proxy_token().unwrap_or_default()),
    };
    let stored_proxy = use_query((), |repo, _| async move { read_proxy_settings(&repo).await });
    {
        let (on, url) = (form.proxy_on.clone(), form.proxy_url.clone());
        let loaded = stored_proxy.ready().cloned();
        use_effect_with(loaded, move |loaded| {
            if let Some(saved) = loaded {
                on.set(saved.enabled);
                if url.is_empty() {
                    url.set(saved.url.clone());
                }
            }
        });
    }
    let stored_base = use_query((), |repo, _| async move {
        let mut all = Vec::new();
        for engine in EngineId::ALL {
            all.push((engine, read_base_url(&repo, engine).await?.unwrap_or_default()));
        }
        Ok(all)
    });
    {
        let (base_url, other_bases) = (form.base_url.clone(), form.other_bases.clone());
        let loaded = stored_base.ready().cloned();
        // The stored values arrive after the first render: a field the user has typed into
        // meanwhile keeps what was typed (the read used to overwrite it).
        use_effect_with(loaded, move |loaded| {
            if let Some(values) = loaded {
                if let Some((_, v)) = values.iter().find(|(e, _)| *e == EngineId::Deepseek) {
                    if base_url.is_empty() {
                        base_url.set(v.clone());
                    }
                }
                let mut bases = (*other_bases).clone();
                for (e, v) in values.iter().filter(|(e, _)| *e != EngineId::Deepseek) {
                    bases.entry(*e).or_insert_with(|| v.clone());
                }
                other_bases.set(bases);
            }
        });
    }
    form
}

/// DeepSeek's key test (`settings-test-key`): the typed key, else the saved one, against the
/// typed base URL; both are checked first.
pub(super) fn test_deepseek_key(app: &AppHandle, form: &EngineForm) -> Callback<MouseEvent> {
    let (app, form) = (app.clone(), form.clone());
    Callback::from(move |_: MouseEvent| {
        let route = match form.route(EngineId::Deepseek, app.lang) {
            Ok(r) => r,
            Err(msg) => return toast(&app, ToastKind::Error, msg),
        };
        let (key_test, key_testing) = (form.key_test.clone(), form.key_testing.clone());
        key_testing.set(true);
        wasm_bindgen_futures::spawn_local(async move {
            let verdict = crate::transport::test_key(EngineId::Deepseek, &route).await;
            key_testing.set(false);
            key_test.set(Some(verdict));
        });
    })
}

/// Another engine's key test (`settings-test-key-ENGINE`), checked like DeepSeek's.
pub(super) fn test_other_key(app: &AppHandle, form: &EngineForm) -> Callback<EngineId> {
    let (app, form) = (app.clone(), form.clone());
    Callback::from(move |engine: EngineId| {
        // The same checks as every request's: a bad character never reaches `fetch`.
        let route = match form.route(engine, app.lang) {
            Ok(r) => r,
            Err(msg) => return toast(&app, ToastKind::Error, msg),
        };
        let mut testing = (*form.other_tests).clone();
        testing.insert(engine, None);
        form.other_tests.set(testing.clone());
        let other_tests = form.other_tests.clone();
        wasm_bindgen_futures::spawn_local(async move {
            let verdict = crate::transport::test_key(engine, &route).await;
            testing.insert(engine, Some(verdict));
            other_tests.set(testing);
        });
    })
}

/// Saving the form (`settings-save`, `settings-save-engines`): every base URL and every key
/// is checked before anything is saved; keys go to Web Storage, base URLs to the settings.
pub(super) fn save_engines(app: &AppHandle, form: &EngineForm) -> Callback<SubmitEvent> {
    let (app, form) = (app.clone(), form.clone());
    Callback::from(move |e: SubmitEvent| {
        e.prevent_default();
        let mut bases = Vec::new();
        for engine in EngineId::ALL {
            match parse_base_url(&form.base_of(engine), app.lang) {
                Ok(b) => bases.push((engine, b)),
                Err(msg) => return toast(&app, ToastKind::Error, format!("{}: {msg}", spec(engine).name)),
            }
        }
        // Every key no header can carry is refused here, with where the bad character is.
        for engine in EngineId::ALL {
            if let Err(e) = geo_core::provider::url::check_key(&form.key_of(engine)) {
                let msg = format!("{}: {}", spec(engine).name, e.localized().get(app.lang));
                return toast(&app, ToastKind::Error, msg);
            }
        }
        let proxy = match local_proxy::parse_proxy_url(&form.proxy_url) {
            Ok(url) => ProxySettings { enabled: *form.proxy_on, url },
            Err(e) => return toast(&app, ToastKind::Error, e.localized().get(app.lang).to_string()),
        };
        if let Err(e) = geo_core::provider::url::check_key(&form.proxy_token) {
            let msg = format!("{}: {}", t(app.lang, "settings.proxy_token"), e.localized().get(app.lang));
            return toast(&app, ToastKind::Error, msg);
        }
        let mut saved = prefs::save_api_key(&form.key, *form.storage);
        for &engine in OTHER_ENGINES {
            saved = saved.and_then(|_| prefs::save_api_key_for(engine, &form.key_of(engine), *form.storage));
        }
        if let Err(msg) = saved {
            return toast(&app, ToastKind::Error, msg);
        }
        form.key_saved.set(prefs::api_key().is_some());
        let Some(repo) = app.repo().cloned() else { return };
        let (app, storage, token) = (app.clone(), *form.storage, (*form.proxy_token).clone());
        form.proxy_url.set(proxy.url.clone());
        wasm_bindgen_futures::spawn_local(async move {
            let mut result = save_proxy_settings(&repo, &proxy, &token, storage).await;
            for (engine, base) in bases {
                if result.is_ok() {
                    result = save_base_url(&repo, engine, base, storage).await;
                }
            }
            report(&app, &result, Some(t(app.lang, "settings.saved").to_string()));
        });
    })
}

/// Clearing all data after the confirmation: the database, every key, the selected project
/// and the form's fields.
pub(super) fn clear_all(app: &AppHandle, form: &EngineForm, confirm_clear: &UseStateHandle<bool>) -> Callback<()> {
    let (app, form, confirm_clear) = (app.clone(), form.clone(), confirm_clear.clone());
    Callback::from(move |_| {
        confirm_clear.set(false);
        let Some(repo) = app.repo().cloned() else { return };
        let (app, form) = (app.clone(), form.clone());
        wasm_bindgen_futures::spawn_local(async move {
            let result = repo.clear_all().await;
            if result.is_ok() {
                prefs::forget_api_key();
                prefs::forget_recent_locations(None);
                prefs::save_project(None);
                app.dispatch(Action::SelectProject(None));
                form.forget();
            }
            report(&app, &result, Some(t(app.lang, "settings.cleared").to_string()));
        });
    })
}

/// Every engine but DeepSeek (the first of `EngineId::ALL`), whose fields keep the original
/// test ids.
pub(super) const OTHER_ENGINES: &[EngineId] = match EngineId::ALL.split_first() {
    Some((_, rest)) => rest,
    None => &[],
};
