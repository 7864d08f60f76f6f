//! The settings form's fields: DeepSeek's (which keep the contract's original test ids),
//! the local proxy's with the command that starts it, and one [`EngineFields`] set per other
//! engine, each with its key test's verdict.

use super::form::{test_deepseek_key, test_other_key, EngineForm, OTHER_ENGINES};
use crate::hooks::{set_on_check, set_on_input};
use crate::i18n::{t, tf};
use crate::prefs::{self, KeyStorage};
use crate::state::AppHandle;
use geo_core::doctor::DoctorCheck;
use geo_core::model::{EngineId, Lang};
use geo_core::provider::local_proxy;
use geo_core::provider::{spec, BrowserAccess};
use std::collections::HashMap;
use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

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
pub(super) fn deepseek_fields(app: &AppHandle, form: &EngineForm) -> Html {
    let lang = app.lang;
    let on_key = set_on_input(&form.key);
    let on_storage = {
        let storage = form.storage.clone();
        Callback::from(move |e: Event| {
            storage.set(KeyStorage::parse(&e.target_unchecked_into::<HtmlSelectElement>().value()))
        })
    };
    let on_base = set_on_input(&form.base_url);
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
pub(super) fn proxy_fields(app: &AppHandle, form: &EngineForm) -> Html {
    let lang = app.lang;
    let on_toggle = set_on_check(&form.proxy_on);
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
                    placeholder={local_proxy::DEFAULT_URL} value={(*form.proxy_url).clone()} oninput={set_on_input(&form.proxy_url)} />
            </label>
            <label class="field">
                <span class="label-text">{ t(lang, "settings.proxy_token") }</span>
                <input type="password" data-testid="settings-proxy-token" autocomplete="off" spellcheck="false"
                    value={(*form.proxy_token).clone()} oninput={set_on_input(&form.proxy_token)} aria-describedby={token_help} />
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
pub(super) fn other_engine_fields(app: &AppHandle, form: &EngineForm) -> Html {
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
