//! The bundle-size floor of GEO Probe's web app (`cargo xtask size-floor`,
//! `docs/adr/0006-wasm-size.md`): the smallest app that uses every dependency the product
//! requires, each for what the product uses it for, and nothing else. A router with two
//! routes and one component that, from one text input, normalises it (NFKC), parses it as a
//! URL, finds the registrable domain with the embedded Public Suffix List, renders it as
//! Markdown with pulldown-cmark (the app's options), and reads and writes a serde record as JSON;
//! at start it opens IndexedDB and issues a fetch. Built with the web app's profile and
//! pipeline, its size is what any GEO Probe bundle costs before the product's own code.

use addr::parser::DomainName;
use addr::publicsuffix::List;
use serde::{Deserialize, Serialize};
use wasm_bindgen::prelude::*;
use yew::prelude::*;
use yew_router::prelude::*;

/// geo-core's embedded list, as the analysis uses it.
const PSL: &str = include_str!("../../../crates/geo-core/data/public_suffix_list.dat");

#[derive(Clone, Routable, PartialEq)]
enum Route {
    #[at("/")]
    Home,
    #[at("/other")]
    Other,
}

#[derive(Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct Record {
    id: String,
    registrable_domain: String,
    count: u32,
}

/// The registrable domain of the URL in `text` (after NFKC), or "".
pub fn registrable_domain(text: &str) -> String {
    let list: List = PSL.parse().unwrap_or_default();
    let norm: String = icu_normalizer::ComposingNormalizerBorrowed::new_nfkc().normalize_iter(text.chars()).collect();
    url::Url::parse(&norm)
        .ok()
        .and_then(|u| u.host_str().map(str::to_string))
        .and_then(|h| list.parse_domain_name(&h).ok().and_then(|d| d.root().map(str::to_string)))
        .unwrap_or_default()
}

/// `text` rendered as Markdown with the app's pulldown-cmark options.
pub fn render_markdown(text: &str) -> String {
    let parser = pulldown_cmark::Parser::new_ext(
        text,
        pulldown_cmark::Options::ENABLE_TABLES | pulldown_cmark::Options::ENABLE_STRIKETHROUGH,
    );
    // Raw HTML becomes text, as the product's sanitiser does.
    let parser = parser.map(|e| match e {
        pulldown_cmark::Event::Html(t) | pulldown_cmark::Event::InlineHtml(t) => pulldown_cmark::Event::Text(t),
        e => e,
    });
    let mut html = String::new();
    pulldown_cmark::html::push_html(&mut html, parser);
    html
}

/// Reads `text` as a record (or a default one) and writes it back with `domain`.
pub fn round_trip(text: &str, domain: String) -> String {
    let r: Record = serde_json::from_str(text).unwrap_or_default();
    serde_json::to_string(&Record { registrable_domain: domain, ..r }).unwrap_or_default()
}

#[function_component]
fn Home() -> Html {
    let text = use_state(String::new);
    let oninput = {
        let text = text.clone();
        Callback::from(move |e: InputEvent| text.set(e.target_unchecked_into::<web_sys::HtmlInputElement>().value()))
    };
    let domain = registrable_domain(&text);
    html! {
        <div>
            <input {oninput} />
            <p>{ round_trip(&text, domain) }</p>
            <div>{ Html::from_html_unchecked(AttrValue::from(render_markdown(&text))) }</div>
            <Link<Route> to={Route::Other}>{ "other" }</Link<Route>>
        </div>
    }
}

fn switch(r: Route) -> Html {
    match r {
        Route::Home => html! { <Home /> },
        Route::Other => html! { <p>{ "other" }</p> },
    }
}

#[function_component]
fn App() -> Html {
    html! { <BrowserRouter><Switch<Route> render={switch} /></BrowserRouter> }
}

/// Opens IndexedDB, issues a fetch and renders the app.
#[wasm_bindgen(start)]
pub fn start() {
    wasm_bindgen_futures::spawn_local(async {
        if let Some(w) = web_sys::window() {
            if let Ok(Some(idb)) = w.indexed_db() {
                let _ = idb.open("size-floor");
            }
            let _ = wasm_bindgen_futures::JsFuture::from(w.fetch_with_str("size-floor")).await;
        }
    });
    yew::Renderer::<App>::new().render();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_dependency_does_its_part() {
        assert_eq!(registrable_domain("https://www.ｅｘａｍｐｌｅ.com.cn/a"), "example.com.cn");
        assert!(render_markdown("**a** <script>").contains("<strong>a</strong> &lt;script&gt;"));
        assert_eq!(
            round_trip(r#"{"id":"x","registrableDomain":"","count":2}"#, "d".into()),
            r#"{"id":"x","registrableDomain":"d","count":2}"#
        );
    }
}
