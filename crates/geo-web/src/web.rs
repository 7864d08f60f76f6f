//! Small browser helpers: clock, ids, the `<base href>` path, Web Storage access, User
//! Timing spans and offering text as a file download.
//!
//! Natively (unit tests) there is no `window`; every helper degrades to a harmless value
//! instead of panicking so that pure logic can be tested off the browser.

use wasm_bindgen::JsCast;

/// The current time as ISO 8601 UTC with milliseconds (`2026-11-29T08:00:00.000Z`).
pub fn now_iso() -> String {
    if cfg!(target_arch = "wasm32") {
        String::from(js_sys::Date::new_0().to_iso_string())
    } else {
        "1970-01-01T00:00:00.000Z".to_string()
    }
}

/// The current time plus `millis` milliseconds, as [`now_iso`] formats it: distinct,
/// increasing `createdAt` stamps for records created together.
pub fn now_iso_plus(millis: usize) -> String {
    if cfg!(target_arch = "wasm32") {
        let at = js_sys::Date::now() + millis as f64;
        String::from(js_sys::Date::new(&wasm_bindgen::JsValue::from_f64(at)).to_iso_string())
    } else {
        now_iso()
    }
}

/// A fresh random id such as `proj_1b4e28ba2fa1`, from `crypto.randomUUID()`.
pub fn new_id(prefix: &str) -> String {
    let uuid = web_sys::window()
        .and_then(|w| w.crypto().ok())
        .map(|c| c.random_uuid())
        .unwrap_or_else(|| format!("{:x}", (js_sys::Math::random() * 1e15) as u64));
    let compact: String = uuid.chars().filter(|c| *c != '-').take(16).collect();
    format!("{prefix}_{compact}")
}

/// The number given as `key=N` in a location's `search` (`?a=1&…`), if any and readable: the
/// test-mode parameters a page reads once per load (`chatTimeoutMs`, `runListDelayMs`).
pub fn query_u32(search: &str, key: &str) -> Option<u32> {
    search
        .trim_start_matches('?')
        .split('&')
        .filter_map(|pair| pair.split_once('='))
        .find(|(k, _)| *k == key)
        .and_then(|(_, v)| v.parse::<u32>().ok())
}

/// This page load's `search` (empty outside a browser).
pub fn location_search() -> String {
    web_sys::window().and_then(|w| w.location().search().ok()).unwrap_or_default()
}

/// The path of `<base href>` without its trailing slash: `""` at the site root,
/// `/geo-probe` on GitHub Pages.
pub fn base_path() -> String {
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else {
        return String::new();
    };
    let href = doc
        .query_selector("base[href]")
        .ok()
        .flatten()
        .and_then(|b| b.dyn_into::<web_sys::HtmlBaseElement>().ok())
        .map(|b| b.href())
        .unwrap_or_default();
    path_of_base_href(&href)
}

/// `https://x.github.io/geo-probe/` → `/geo-probe`; `http://127.0.0.1:8080/` → `""`.
pub fn path_of_base_href(href: &str) -> String {
    let after_scheme = href.split_once("://").map(|(_, rest)| rest).unwrap_or(href);
    let path = after_scheme.find('/').map(|i| &after_scheme[i..]).unwrap_or("");
    let path = path.split(['?', '#']).next().unwrap_or("");
    path.trim_end_matches('/').to_string()
}

/// `window.localStorage`, when the browser allows it.
pub fn local_storage() -> Option<web_sys::Storage> {
    web_sys::window()?.local_storage().ok().flatten()
}

/// `window.sessionStorage`, when the browser allows it.
pub fn session_storage() -> Option<web_sys::Storage> {
    web_sys::window()?.session_storage().ok().flatten()
}

/// Resolves once the browser has had the chance to paint what was rendered before: after
/// the next animation frame (or 100 ms, for a tab in the background, where frames stop) and
/// one more task. Natively it returns at once.
pub async fn after_paint() {
    // `window()` itself panics natively, so the target is checked first; a worker has none.
    if !cfg!(target_arch = "wasm32") {
        return;
    }
    let Some(w) = web_sys::window() else { return };
    let frame = js_sys::Promise::new(&mut |resolve, _| {
        let _ = w.request_animation_frame(&resolve);
        let _ = w.set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, 100);
    });
    let _ = wasm_bindgen_futures::JsFuture::from(frame).await;
    yew::platform::time::sleep(std::time::Duration::ZERO).await;
}

/// Records the User Timing mark `name` now (nothing natively or without `performance`):
/// the moments of start-up that `cargo xtask bench-first-visit` reads (`geo:start`,
/// `geo:first-render`).
pub fn mark(name: &str) {
    if cfg!(target_arch = "wasm32") {
        if let Some(p) = web_sys::window().and_then(|w| w.performance()) {
            let _ = p.mark(name);
        }
    }
}

/// A User Timing span over async work: [`Span::start`] marks, [`Span::end`] records the
/// measure (nothing natively or without `performance`).
/// Spans of the same name may overlap: each has its own start mark.
pub struct Span {
    name: &'static str,
    mark: String,
    perf: Option<web_sys::Performance>,
}

thread_local! {
    static SPANS: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}

impl Span {
    /// Marks the start of the measure `name`.
    pub fn start(name: &'static str) -> Span {
        let perf = if cfg!(target_arch = "wasm32") { web_sys::window().and_then(|w| w.performance()) } else { None };
        let n = SPANS.with(|c| {
            c.set(c.get().wrapping_add(1));
            c.get()
        });
        let mark = format!("{name}:start:{n}");
        if let Some(p) = &perf {
            let _ = p.mark(&mark);
        }
        Span { name, mark, perf }
    }

    /// Records the measure from the start mark to now.
    pub fn end(self) {
        if let Some(p) = &self.perf {
            let _ = p.measure_with_start_mark(self.name, &self.mark);
            p.clear_marks_with_mark_name(&self.mark);
        }
    }
}

/// Runs `f`, recording its duration with the User Timing API as the measure `name`
/// (`performance.getEntriesByType('measure')` lists it; the browser test reads it). Natively,
/// or without `performance`, it only runs `f`.
pub fn measure<T>(name: &'static str, f: impl FnOnce() -> T) -> T {
    let span = Span::start(name);
    let out = f();
    span.end();
    out
}

/// Offers `text` as a file download named `name`.
pub fn download(name: &str, mime: &str, text: &str) -> Result<(), String> {
    let fail = |_| "the browser refused the download: allow downloads for this page".to_string();
    let parts = js_sys::Array::of1(&wasm_bindgen::JsValue::from_str(text));
    let options = web_sys::BlobPropertyBag::new();
    options.set_type(mime);
    let blob = web_sys::Blob::new_with_str_sequence_and_options(&parts, &options).map_err(fail)?;
    let url = web_sys::Url::create_object_url_with_blob(&blob).map_err(fail)?;
    let document = web_sys::window().and_then(|w| w.document()).ok_or("no document")?;
    let a: web_sys::HtmlAnchorElement = document.create_element("a").map_err(fail)?.unchecked_into();
    a.set_href(&url);
    a.set_download(name);
    a.click();
    let _ = web_sys::Url::revoke_object_url(&url);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn check(href: &str, expect: &str) {
        assert_eq!(path_of_base_href(href), expect, "{href}");
    }

    #[test]
    fn base_paths() {
        check("http://127.0.0.1:8080/", "");
        check("https://o.github.io/geo-probe/", "/geo-probe");
        check("https://o.github.io/a/b/?x=1", "/a/b");
        check("", "");
    }
}
