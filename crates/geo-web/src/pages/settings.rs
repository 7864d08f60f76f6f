//! Settings: each engine's API key and where the keys are kept (Web Storage only), each
//! engine's custom API base URL (application settings in IndexedDB), importing a full export,
//! and clearing all data.

use crate::components::ConfirmDialog;
use crate::hooks::{report, toast, use_app, use_query};
use crate::i18n::{t, tf};
pub use crate::import_worker::parse_import;
use crate::prefs::{self, KeyStorage};
use crate::repo::Repository;
use crate::settings_store::{
    parse_base_url, read_base_url, read_proxy_settings, route_of, save_base_url, save_proxy_settings, ProxySettings,
};
use crate::state::{Action, AppHandle, ToastKind};
use geo_core::doctor::DoctorCheck;
use geo_core::model::{EngineId, Lang};
use geo_core::provider::local_proxy::{self, EngineRoute, LocalProxy};
use geo_core::provider::{spec, BrowserAccess};
use std::collections::HashMap;
use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

/// The refusal of a file of `bytes` bytes before reading it, when it is over the import
/// limit ([`geo_core::limits::MAX_EXPORT_BYTES`]); the browser would otherwise read it all.
pub fn import_size_refusal(bytes: f64, lang: Lang) -> Option<String> {
    let limit = geo_core::limits::MAX_EXPORT_BYTES;
    (bytes > limit as f64).then(|| {
        let bytes = if bytes.is_finite() { bytes as usize } else { usize::MAX };
        geo_core::export::ImportError::too_large(bytes, limit).describe().get(lang).to_string()
    })
}

/// The `data-verdict` value of a key test: `valid`, `invalid-key`, `no-balance`, `forbidden`,
/// `rate-limited`, `unreachable` or `other`.
pub fn key_verdict_value(v: &geo_core::provider::KeyVerdict) -> &'static str {
    use geo_core::provider::KeyVerdict as V;
    match v {
        V::Valid => "valid",
        V::InvalidKey => "invalid-key",
        V::NoBalance => "no-balance",
        V::Forbidden => "forbidden",
        V::RateLimited => "rate-limited",
        V::Unreachable(_) => "unreachable",
        V::Other(_) => "other",
    }
}

/// A key test's result (`testid`: the verdict's id): the verdict (`data-verdict`, as before),
/// then what the search did, `settings-key-test-ENGINE` carrying `data-searched` and
/// `data-sources` (geo-core's `doctor`, the check of `geo-probe doctor`).
fn check_view(check: &DoctorCheck, testid: &str, lang: Lang) -> Html {
    let id = check.engine.as_str();
    html! {
        <p data-testid={testid.to_string()} data-verdict={key_verdict_value(&check.verdict)} data-ok={check.ok.to_string()} role="status"
            class={if check.ok { "ok-box" } else { "error-box" }}>
            <span data-testid={format!("settings-key-test-{id}")} data-searched={check.searched.to_string()}
                data-sources={check.source_count.to_string()}>{ check.describe().get(lang).to_string() }</span>
        </p>
    }
}

/// The engine fields of the form: DeepSeek's key, key storage and base URL (whose fields
/// keep the original test ids), the other engines' typed keys and base URLs, and the key
/// tests' verdicts.
#[derive(Clone)]
struct EngineForm {
    key: UseStateHandle<String>,
    storage: UseStateHandle<KeyStorage>,
    base_url: UseStateHandle<String>,
    key_saved: UseStateHandle<bool>,
    key_test: UseStateHandle<Option<DoctorCheck>>,
    key_testing: UseStateHandle<bool>,
    other_keys: UseStateHandle<HashMap<EngineId, String>>,
    other_bases: UseStateHandle<HashMap<EngineId, String>>,
    /// By engine: `None` while testing, `Some(v)` the verdict; absent: never tested.
    other_tests: UseStateHandle<HashMap<EngineId, Option<DoctorCheck>>>,
    /// "Use a local proxy" (`settings-proxy`), its address and token as typed.
    proxy_on: UseStateHandle<bool>,
    proxy_url: UseStateHandle<String>,
    proxy_token: UseStateHandle<String>,
}

impl EngineForm {
    /// The base URL typed for `engine`.
    fn base_of(&self, engine: EngineId) -> String {
        match engine {
            EngineId::Deepseek => (*self.base_url).clone(),
            other => self.other_bases.get(&other).cloned().unwrap_or_default(),
        }
    }

    /// The key typed for `engine`.
    fn key_of(&self, engine: EngineId) -> String {
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
fn use_engine_form() -> EngineForm {
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
fn test_deepseek_key(app: &AppHandle, form: &EngineForm) -> Callback<MouseEvent> {
    let (app, form) = (app.clone(), form.clone());
    Callback::from(move |_: MouseEvent| {
        let route = match form.route(EngineId::Deepseek, app.lang) {
            Ok(r) => r,
            Err(msg) => return toast(&app, ToastKind::Error, msg),
        };
        let (key_test, key_testing) = (form.key_test.clone(), form.key_testing.clone());
        key_testing.set(true);
        wasm_bindgen_futures::spawn_local(async move {
            let verdict = crate::provider::test_key(EngineId::Deepseek, &route).await;
            key_testing.set(false);
            key_test.set(Some(verdict));
        });
    })
}

/// Another engine's key test (`settings-test-key-ENGINE`), checked like DeepSeek's.
fn test_other_key(app: &AppHandle, form: &EngineForm) -> Callback<EngineId> {
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
            let verdict = crate::provider::test_key(engine, &route).await;
            testing.insert(engine, Some(verdict));
            other_tests.set(testing);
        });
    })
}

/// Saving the form (`settings-save`, `settings-save-engines`): every base URL and every key
/// is checked before anything is saved; keys go to Web Storage, base URLs to the settings.
fn save_engines(app: &AppHandle, form: &EngineForm) -> Callback<SubmitEvent> {
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
fn clear_all(app: &AppHandle, form: &EngineForm, confirm_clear: &UseStateHandle<bool>) -> Callback<()> {
    let (app, form, confirm_clear) = (app.clone(), form.clone(), confirm_clear.clone());
    Callback::from(move |_| {
        confirm_clear.set(false);
        let Some(repo) = app.repo().cloned() else { return };
        let (app, form) = (app.clone(), form.clone());
        wasm_bindgen_futures::spawn_local(async move {
            let result = repo.clear_all().await;
            if result.is_ok() {
                prefs::forget_api_key();
                prefs::save_project(None);
                app.dispatch(Action::SelectProject(None));
                form.forget();
            }
            report(&app, &result, Some(t(app.lang, "settings.cleared").to_string()));
        });
    })
}

/// Which origin the keys live on and who else serves pages there (`settings-key-origin`,
/// `data-origin`, `data-shared`: security review II, finding 9).
fn key_origin_note(lang: Lang) -> Html {
    let (origin, shared) = prefs::key_origin();
    let text = match &shared {
        prefs::SharedOrigin::GithubPages { owner } => {
            tf(lang, "settings.origin_pages", &[("origin", origin.as_str()), ("owner", owner.as_str())])
        }
        prefs::SharedOrigin::Path => tf(lang, "settings.origin_path", &[("origin", origin.as_str())]),
        prefs::SharedOrigin::PlainHttp => tf(lang, "settings.origin_plain_http", &[("origin", origin.as_str())]),
        prefs::SharedOrigin::Loopback => tf(lang, "settings.origin_loopback", &[("origin", origin.as_str())]),
        prefs::SharedOrigin::Own => tf(lang, "settings.origin_own", &[("origin", origin.as_str())]),
    };
    let calm = matches!(shared, prefs::SharedOrigin::Own | prefs::SharedOrigin::Loopback);
    let class = if calm { "muted" } else { "error-box" };
    html! {
        <p id="key-origin" data-testid="settings-key-origin" data-origin={origin} data-shared={shared.as_str()}
            class={class}>{ text }</p>
    }
}

/// DeepSeek's fields: key (`settings-api-key`), key storage, base URL, save and key test.
fn deepseek_fields(app: &AppHandle, form: &EngineForm) -> Html {
    let lang = app.lang;
    let on_key = {
        let key = form.key.clone();
        Callback::from(move |e: InputEvent| key.set(e.target_unchecked_into::<HtmlInputElement>().value()))
    };
    let on_storage = {
        let storage = form.storage.clone();
        Callback::from(move |e: Event| {
            storage.set(KeyStorage::parse(&e.target_unchecked_into::<HtmlSelectElement>().value()))
        })
    };
    let on_base = {
        let base_url = form.base_url.clone();
        Callback::from(move |e: InputEvent| base_url.set(e.target_unchecked_into::<HtmlInputElement>().value()))
    };
    let on_test_key = test_deepseek_key(app, form);
    let (key_saved, storage, key_testing) = (*form.key_saved, *form.storage, *form.key_testing);
    html! {
        <>
            <h2 id="key-heading">{ t(lang, "settings.key_section") }</h2>
            <label class="field" data-testid="settings-api-key-deepseek">
                <span class="label-text">{ t(lang, "settings.api_key") }</span>
                <input type="password" data-testid="settings-api-key" autocomplete="off" spellcheck="false"
                    value={(*form.key).clone()} oninput={on_key} aria-describedby="key-help" />
            </label>
            <p id="key-help" class="muted">
                { t(lang, "settings.api_key_help") }{ " " }
                <span data-testid="settings-key-status" data-value={if key_saved { "saved" } else { "" }}>
                    { t(lang, if key_saved { "settings.key_present" } else { "settings.key_absent" }) }
                </span>
            </p>
            <label class="field">
                <span class="label-text">{ t(lang, "settings.key_storage") }</span>
                <select data-testid="settings-key-storage" onchange={on_storage} aria-describedby="key-origin">
                    <option value="session" selected={storage == KeyStorage::Session}>{ t(lang, "settings.storage_session") }</option>
                    <option value="local" selected={storage == KeyStorage::Local}>{ t(lang, "settings.storage_local") }</option>
                </select>
            </label>
            { key_origin_note(lang) }
            <label class="field" data-testid="settings-base-url-deepseek">
                <span class="label-text">{ t(lang, "settings.base_url") }</span>
                <input type="url" data-testid="settings-base-url" inputmode="url" spellcheck="false"
                    placeholder="https://api.deepseek.com" value={(*form.base_url).clone()} oninput={on_base}
                    aria-describedby="base-help" />
            </label>
            <p id="base-help" class="muted">{ t(lang, "settings.base_url_help") }</p>
            <div class="actions">
                <button type="submit" data-testid="settings-save">{ t(lang, "settings.save") }</button>
                <button type="button" data-testid="settings-test-key" onclick={on_test_key} disabled={key_testing}>
                    { t(lang, if key_testing { "settings.testing" } else { "settings.test_key" }) }</button>
            </div>
            if let Some(check) = &*form.key_test {
                { check_view(check, "settings-key-verdict", lang) }
            }
        </>
    }
}

/// The local proxy's fields (`settings-proxy`, `settings-proxy-url`, `settings-proxy-token`)
/// and the command that starts it (`settings-proxy-command`), for this page's origin.
fn proxy_fields(app: &AppHandle, form: &EngineForm) -> Html {
    let lang = app.lang;
    let on_toggle = {
        let on = form.proxy_on.clone();
        Callback::from(move |e: Event| on.set(e.target_unchecked_into::<HtmlInputElement>().checked()))
    };
    let text = |field: &UseStateHandle<String>| {
        let field = field.clone();
        Callback::from(move |e: InputEvent| field.set(e.target_unchecked_into::<HtmlInputElement>().value()))
    };
    let url = local_proxy::parse_proxy_url(&form.proxy_url).unwrap_or_else(|_| local_proxy::DEFAULT_URL.to_string());
    let (origin, shared) = prefs::key_origin();
    let command = local_proxy::start_command(&url, &origin);
    // Shown before the token is saved: other content on this origin could read it (security-3 L6).
    let warning = shared.token_warning();
    let token_help = if warning.is_some() { "proxy-token-help proxy-origin-warning" } else { "proxy-token-help" };
    let mut vars = String::new();
    for engine in EngineId::ALL {
        if !vars.is_empty() {
            vars.push_str(", ");
        }
        vars.push_str(spec(engine).key_env);
    }
    html! {
        <fieldset class="engine-fields proxy-fields" data-testid="settings-proxy-section" data-on={form.proxy_on.to_string()}>
            <legend id="proxy-heading">{ t(lang, "settings.proxy_section") }</legend>
            <p class="muted">{ t(lang, "settings.proxy_help") }</p>
            <label class="check">
                <input type="checkbox" data-testid="settings-proxy" checked={*form.proxy_on} onchange={on_toggle}
                    aria-describedby="proxy-command-help" />
                <span>{ t(lang, "settings.proxy_use") }</span>
            </label>
            <label class="field">
                <span class="label-text">{ t(lang, "settings.proxy_url") }</span>
                <input type="url" data-testid="settings-proxy-url" inputmode="url" spellcheck="false"
                    placeholder={local_proxy::DEFAULT_URL} value={(*form.proxy_url).clone()} oninput={text(&form.proxy_url)} />
            </label>
            <label class="field">
                <span class="label-text">{ t(lang, "settings.proxy_token") }</span>
                <input type="password" data-testid="settings-proxy-token" autocomplete="off" spellcheck="false"
                    value={(*form.proxy_token).clone()} oninput={text(&form.proxy_token)} aria-describedby={token_help} />
            </label>
            if let Some(warning) = warning {
                <p id="proxy-origin-warning" data-testid="settings-proxy-origin-warning" data-shared={shared.as_str()}
                    class="error-box">{ warning.get(lang).to_string() }</p>
            }
            <p id="proxy-token-help" class="muted">{ t(lang, "settings.proxy_token_help") }</p>
            <p id="proxy-command-help" class="muted">{ tf(lang, "settings.proxy_command", &[("vars", vars.as_str())]) }</p>
            <pre class="command"><code data-testid="settings-proxy-command" data-value={command.clone()}>{ command }</code></pre>
        </fieldset>
    }
}

/// The other engines' fields, one [`EngineFields`] each, and their save button.
fn other_engine_fields(app: &AppHandle, form: &EngineForm) -> Html {
    let lang = app.lang;
    let on_test_other = test_other_key(app, form);
    let edit = |field: &UseStateHandle<HashMap<EngineId, String>>, engine: EngineId| {
        let field = field.clone();
        Callback::from(move |e: InputEvent| {
            let mut all = (*field).clone();
            all.insert(engine, e.target_unchecked_into::<HtmlInputElement>().value());
            field.set(all);
        })
    };
    html! {
        <>
            <h2 id="engines-heading">{ t(lang, "settings.engines_section") }</h2>
            <p class="muted">{ t(lang, "settings.engines_help") }</p>
            { for OTHER_ENGINES.iter().map(|engine| {
                let engine = *engine;
                let on_key = edit(&form.other_keys, engine);
                let on_base = edit(&form.other_bases, engine);
                let on_test = { let cb = on_test_other.clone(); Callback::from(move |_: MouseEvent| cb.emit(engine)) };
                html! {
                    <EngineFields key={engine.as_str()} {engine} {lang}
                        api_key={form.other_keys.get(&engine).cloned().unwrap_or_default()}
                        base_url={form.other_bases.get(&engine).cloned().unwrap_or_default()}
                        saved={prefs::api_key_for(engine).is_some()}
                        test={form.other_tests.get(&engine).cloned()}
                        {on_key} {on_base} {on_test} />
                }
            }) }
            <div class="actions">
                <button type="submit" data-testid="settings-save-engines">{ t(lang, "settings.save") }</button>
            </div>
        </>
    }
}

/// The settings page.
#[function_component]
pub fn SettingsPage() -> Html {
    let app = use_app();
    let lang = app.lang;
    let form = use_engine_form();
    let confirm_clear = use_state(|| false);
    let on_save = save_engines(&app, &form);
    let open_clear = {
        let confirm_clear = confirm_clear.clone();
        Callback::from(move |_: MouseEvent| confirm_clear.set(true))
    };
    let cancel_clear = {
        let confirm_clear = confirm_clear.clone();
        Callback::from(move |_| confirm_clear.set(false))
    };
    let do_clear = clear_all(&app, &form, &confirm_clear);

    html! {
        <section>
            <h1>{ t(lang, "settings.title") }</h1>
            <form class="card" onsubmit={on_save} aria-labelledby="key-heading">
                { deepseek_fields(&app, &form) }
                { proxy_fields(&app, &form) }
                { other_engine_fields(&app, &form) }
            </form>
            <DataCard on_clear={open_clear} />
            <DemoSection />
            if *confirm_clear {
                <ConfirmDialog title={t(lang, "settings.clear_title").to_string()} body={t(lang, "settings.clear_body").to_string()}
                    confirm_label={t(lang, "settings.clear").to_string()} cancel_label={t(lang, "common.cancel").to_string()}
                    on_confirm={do_clear} on_cancel={cancel_clear} />
            }
        </section>
    }
}

#[derive(Properties, PartialEq)]
struct DataCardProps {
    /// Asks to clear all data (the page confirms first).
    on_clear: Callback<MouseEvent>,
}

/// The data card: importing a full export (`settings-import-file`, its stages and outcome in
/// `import-result`) and the button that clears all data (`data-clear`).
#[function_component]
fn DataCard(p: &DataCardProps) -> Html {
    let app = use_app();
    let lang = app.lang;
    // The import's outcome or stage: `data-status` (`pending`, `ok`, `error`: the contract's names) and its text.
    let import_result = use_state(|| None::<(&'static str, String)>);
    let on_import = {
        let (app, import_result) = (app.clone(), import_result.clone());
        Callback::from(move |e: Event| {
            let input: HtmlInputElement = e.target_unchecked_into();
            let Some(file) = input.files().and_then(|f| f.get(0)) else { return };
            input.set_value("");
            import_file(&app, file, &import_result);
        })
    };
    let importing = matches!(*import_result, Some(("pending", _)));
    html! {
        <div class="card">
            <h2>{ t(lang, "settings.data") }</h2>
            <p class="muted">{ t(lang, "settings.data_help") }</p>
            <label class="field">
                <span class="label-text">{ t(lang, "settings.import") }</span>
                <input type="file" accept="application/json,.json" data-testid="settings-import-file" onchange={on_import}
                    disabled={importing} aria-describedby="import-result" />
            </label>
            if let Some((status, text)) = (*import_result).clone() {
                <p id="import-result" data-testid="import-result" data-status={status} aria-busy={importing.to_string()}
                    class={match status { "ok" => "ok-box import-result", "error" => "error-box import-result", _ => "muted import-result" }}
                    role="status">{ text }</p>
            }
            <button type="button" class="danger" data-testid="data-clear" onclick={p.on_clear.clone()}>{ t(lang, "settings.clear") }</button>
        </div>
    }
}

/// Imports `file`: refused from its size before reading, then read, checked and analysed
/// and merged in the import worker ([`crate::import_worker::import_file`]), each stage shown in
/// `import_result` and the outcome as a toast.
fn import_file(app: &AppHandle, file: web_sys::File, import_result: &UseStateHandle<Option<(&'static str, String)>>) {
    let (app, import_result) = (app.clone(), import_result.clone());
    let Some(repo) = app.repo().cloned() else { return };
    let lang = app.lang;
    if let Some(msg) = import_size_refusal(file.size(), lang) {
        toast(&app, ToastKind::Error, msg.clone());
        return import_result.set(Some(("error", msg)));
    }
    let mb = format!("{:.1}", file.size() / 1e6);
    import_result.set(Some(("pending", tf(lang, "import.reading", &[("f", &file.name()), ("mb", &mb)]))));
    wasm_bindgen_futures::spawn_local(async move {
        // Read, checked, re-analysed and saved off the main thread; each stage shown.
        let (name, shown_stage) = (file.name(), import_result.clone());
        let on_stage = std::rc::Rc::new(move |s: crate::import_worker::Stage| {
            shown_stage.set(Some(("pending", s.text(lang, &name, &mb))))
        });
        let outcome = crate::import_worker::import_file(&repo, file, lang, on_stage).await;
        let shown = match outcome {
            Ok(report) => (true, report),
            Err(msg) => (false, msg),
        };
        toast(&app, if shown.0 { ToastKind::Ok } else { ToastKind::Error }, shown.1.clone());
        import_result.set(Some((if shown.0 { "ok" } else { "error" }, shown.1)));
    });
}

/// Every engine but DeepSeek (the first of `EngineId::ALL`), whose fields keep the original
/// test ids.
const OTHER_ENGINES: &[EngineId] = match EngineId::ALL.split_first() {
    Some((_, rest)) => rest,
    None => &[],
};

#[derive(Properties, PartialEq)]
struct EngineFieldsProps {
    engine: EngineId,
    lang: Lang,
    api_key: String,
    base_url: String,
    saved: bool,
    /// `None`: never tested; `Some(None)`: testing; `Some(Some(c))`: the check.
    test: Option<Option<DoctorCheck>>,
    on_key: Callback<InputEvent>,
    on_base: Callback<InputEvent>,
    on_test: Callback<MouseEvent>,
}

/// One engine's key, base URL, key test and what its browser access means
/// (`settings-api-key-ENGINE`, `settings-base-url-ENGINE`, `settings-test-key-ENGINE`).
#[function_component]
fn EngineFields(p: &EngineFieldsProps) -> Html {
    let (engine, lang) = (p.engine, p.lang);
    let spec = spec(engine);
    let id = engine.as_str();
    let browser = match spec.browser {
        BrowserAccess::Direct => "settings.browser_direct",
        BrowserAccess::IfCorsAllows => "settings.browser_cors",
        BrowserAccess::Proxy => "settings.browser_proxy",
    };
    let testing = matches!(p.test, Some(None));
    html! {
        <fieldset class="engine-fields" data-testid="settings-engine" data-engine={id}>
            <legend>{ spec.name }</legend>
            <label class="field">
                <span class="label-text">{ tf(lang, "settings.engine_key", &[("engine", spec.name)]) }</span>
                <input type="password" data-testid={format!("settings-api-key-{id}")} autocomplete="off" spellcheck="false"
                    value={p.api_key.clone()} oninput={p.on_key.clone()} aria-describedby={format!("key-help-{id}")} />
            </label>
            <p id={format!("key-help-{id}")} class="muted">
                <span data-testid={format!("settings-key-status-{id}")} data-value={if p.saved { "saved" } else { "" }}>
                    { t(lang, if p.saved { "settings.key_present" } else { "settings.key_absent" }) }</span>
                { " " }{ tf(lang, "settings.key_env", &[("var", spec.key_env)]) }{ " " }
                <a href={spec.console_url} target="_blank" rel="noopener noreferrer">{ t(lang, "settings.get_key") }</a>
            </p>
            <label class="field">
                <span class="label-text">{ t(lang, "settings.base_url") }</span>
                <input type="url" data-testid={format!("settings-base-url-{id}")} inputmode="url" spellcheck="false"
                    placeholder={spec.default_base} value={p.base_url.clone()} oninput={p.on_base.clone()}
                    aria-describedby={format!("base-help-{id}")} />
            </label>
            <p id={format!("base-help-{id}")} class="muted" data-testid={format!("settings-browser-{id}")}
                data-value={match spec.browser { BrowserAccess::Direct => "direct", BrowserAccess::IfCorsAllows => "cors", BrowserAccess::Proxy => "proxy" }}>
                { tf(lang, browser, &[("engine", spec.name)]) }</p>
            <div class="actions">
                <button type="button" class="secondary" data-testid={format!("settings-test-key-{id}")} onclick={p.on_test.clone()} disabled={testing}>
                    { t(lang, if testing { "settings.testing" } else { "settings.test_key" }) }</button>
            </div>
            if let Some(Some(check)) = &p.test {
                { check_view(check, &format!("settings-key-verdict-{id}"), lang) }
            }
        </fieldset>
    }
}

/// The demo data card: restore (`demo-restore`) and delete (`demo-delete`, after a
/// confirmation) the example project of seed §8.2.
#[function_component]
fn DemoSection() -> Html {
    let app = use_app();
    let lang = app.lang;
    let confirm = use_state(|| false);
    let busy = use_state(|| false);
    // How many restores and deletions have ended (`data-done`), so that a test waits for one.
    let done = use_mut_ref(|| 0u32);
    let on_restore = {
        let (app, busy, done) = (app.clone(), busy.clone(), done.clone());
        Callback::from(move |_: MouseEvent| {
            let Some(repo) = app.repo().cloned() else { return };
            let (app, busy, done) = (app.clone(), busy.clone(), done.clone());
            busy.set(true);
            wasm_bindgen_futures::spawn_local(async move {
                match crate::demo::restore_demo(&repo, crate::demo::fetch_demo).await {
                    Ok(counts) => {
                        let project = repo
                            .list_projects()
                            .await
                            .ok()
                            .and_then(|ps| ps.into_iter().find(|p| p.is_demo))
                            .map(|p| p.id);
                        if project.is_some() {
                            prefs::save_project(project.as_deref());
                            app.dispatch(Action::SelectProject(project));
                        }
                        let text = format!(
                            "{} · {} {}",
                            t(app.lang, "demo.restored"),
                            counts.probes,
                            if app.lang == Lang::Zh { "条探测" } else { "probes" }
                        );
                        toast(&app, ToastKind::Ok, text);
                    }
                    Err(e) => toast(&app, ToastKind::Error, e.message(app.lang)),
                }
                *done.borrow_mut() += 1;
                busy.set(false);
            });
        })
    };
    let open_confirm = {
        let confirm = confirm.clone();
        Callback::from(move |_: MouseEvent| confirm.set(true))
    };
    let cancel = {
        let confirm = confirm.clone();
        Callback::from(move |_| confirm.set(false))
    };
    let on_delete = {
        let (app, confirm, busy, done) = (app.clone(), confirm.clone(), busy.clone(), done.clone());
        Callback::from(move |_| {
            confirm.set(false);
            let Some(repo) = app.repo().cloned() else { return };
            let (app, busy, done) = (app.clone(), busy.clone(), done.clone());
            busy.set(true);
            wasm_bindgen_futures::spawn_local(async move {
                let result = crate::demo::delete_demo(&repo).await;
                report(&app, &result, Some(t(app.lang, "demo.deleted").to_string()));
                *done.borrow_mut() += 1;
                busy.set(false);
            });
        })
    };
    html! {
        <section class="card" aria-labelledby="demo-heading" data-testid="demo-card"
            data-state={if *busy { "busy" } else { "idle" }} data-done={done.borrow().to_string()}>
            <h2 id="demo-heading">{ t(lang, "demo.section") }</h2>
            <p class="muted">{ t(lang, "demo.help") }</p>
            <div class="row">
                <button type="button" class="secondary" data-testid="demo-restore" onclick={on_restore} disabled={*busy}>{ t(lang, "demo.restore") }</button>
                <button type="button" class="danger" data-testid="demo-delete" onclick={open_confirm} disabled={*busy}>{ t(lang, "demo.delete") }</button>
            </div>
            if *confirm {
                <ConfirmDialog title={t(lang, "demo.delete_title").to_string()} body={t(lang, "demo.delete_body").to_string()}
                    confirm_label={t(lang, "demo.delete").to_string()} cancel_label={t(lang, "common.cancel").to_string()}
                    on_confirm={on_delete} on_cancel={cancel} />
            }
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use geo_core::model::ExportEnvelope;

    fn empty() -> ExportEnvelope {
        ExportEnvelope::new("")
    }

    #[test]
    fn imports_are_checked_before_merging() {
        let ok = serde_json::json!({"format": "geo-probe-export", "version": 1, "projects": []}).to_string();
        assert!(parse_import(&ok, &empty(), Lang::En).is_ok());
        let wrong = serde_json::json!({"format": "other", "version": 1}).to_string();
        assert!(
            parse_import(&wrong, &empty(), Lang::En).unwrap_err().contains("not a GEO Probe export"),
            "{}",
            parse_import(&wrong, &empty(), Lang::En).unwrap_err()
        );
        assert!(parse_import(&wrong, &empty(), Lang::Zh).unwrap_err().starts_with("这不是 GEO Probe 导出文件"));
        let newer = serde_json::json!({"format": "geo-probe-export", "version": 99}).to_string();
        assert!(parse_import(&newer, &empty(), Lang::En).unwrap_err().contains("99"));
        assert!(parse_import("{", &empty(), Lang::En).is_err());
        // Wrong types are reported with where they are.
        let bad = serde_json::json!({"format": "geo-probe-export", "version": 1, "projects": [{"id": 7}]}).to_string();
        assert!(
            parse_import(&bad, &empty(), Lang::En).unwrap_err().contains("projects[0]"),
            "{}",
            parse_import(&bad, &empty(), Lang::En).unwrap_err()
        );
    }

    /// Finding 3: a crafted file plants a `javascript:` source marked owned, forged mentions
    /// and links on a probe whose run is only in the store (the demo run): they are all
    /// recomputed from the raw answer; a probe whose run is nowhere is refused.
    #[test]
    fn file_supplied_analysis_never_survives_an_import() {
        let demo = parse_import(include_str!("../../../../demo/demo-data.json"), &empty(), Lang::Zh).unwrap();
        let mut stored = empty();
        stored.projects = demo.projects.clone();
        stored.runs = demo.runs.clone();
        let mut probe = demo.probes[0].clone();
        let honest = probe.clone();
        probe.id = "forged".into();
        let mut forged_source = probe.sources.first().cloned().unwrap_or_else(|| {
            serde_json::from_value(serde_json::json!({"id": "s", "url": "x", "host": "x", "domain": "x",
                "title": "t", "platform": "web", "channel": "other", "ownership": "owned", "bestRank": 1}))
            .unwrap()
        });
        forged_source.url = "javascript:alert(1)".into();
        forged_source.ownership = geo_core::model::Ownership::Owned;
        probe.sources.push(forged_source);
        probe.mentions.clear();
        probe.answer_links.push(geo_core::model::AnswerLink {
            url: "javascript:alert(1)".into(),
            canonical_url: "javascript:alert(1)".into(),
            domain: "x".into(),
            text: None,
            in_sources: true,
        });
        let mut file = empty();
        file.probes.push(probe);
        let text = serde_json::to_string(&file).unwrap();
        let env = parse_import(&text, &stored, Lang::En).expect("a probe of a stored run imports");
        let got = &env.probes[0];
        assert!(got.sources.iter().all(|s| !s.url.starts_with("javascript:")), "{:?}", got.sources);
        assert!(got.answer_links.iter().all(|l| !l.url.starts_with("javascript:")));
        assert_eq!(
            (&got.sources, &got.mentions, &got.answer_links),
            (&honest.sources, &honest.mentions, &honest.answer_links)
        );
        // Without the stored run the probe is an orphan: refused, in both languages.
        let en = parse_import(&text, &empty(), Lang::En).unwrap_err();
        assert!(en.contains("probes[0].runId") && en.contains("nothing was changed"), "{en}");
        let zh = parse_import(&text, &empty(), Lang::Zh).unwrap_err();
        assert!(zh.starts_with("导入失败") && zh.contains("probes[0].runId"), "{zh}");
    }

    /// Finding 9: a file over the limit is refused from its size, before it is read.
    #[test]
    fn oversized_files_are_refused_before_reading() {
        assert_eq!(import_size_refusal(1e6, Lang::En), None);
        let msg = import_size_refusal(3e9, Lang::En).unwrap();
        assert!(msg.contains("import limit is 256.0 MiB"), "{msg}");
        assert!(import_size_refusal(f64::INFINITY, Lang::Zh).unwrap().starts_with("文件太大"));
    }

    #[test]
    fn imported_probes_are_analysed_again() {
        let text = include_str!("../../../../demo/demo-data.json");
        let env = parse_import(text, &empty(), Lang::Zh).expect("the demo export imports");
        assert!(env.probes.iter().any(|p| !p.mentions.is_empty() && !p.answer.is_empty()), "derived fields recomputed");
    }
}
