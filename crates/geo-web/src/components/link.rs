//! The one way a page links to a URL that came from a model, a search or an imported file:
//! [`safe_link`] renders an `<a>` only for what [`geo_core::safe::safe_href`] allows (http(s),
//! parsed, credentials dropped) and plain text for anything else (`javascript:`, `data:`,
//! unparsable text). Every `href` built from stored data goes through it (the Markdown
//! renderer applies the same function to the links it keeps).

use yew::prelude::*;

/// A link to `url` showing `text`, opened in a new tab without referrer or opener, or
/// `text` alone in a `<span>` when `url` is not a safe link target.
pub fn safe_link(url: &str, text: &str) -> Html {
    match geo_core::safe::safe_href(url) {
        Some(href) => html! {
            <a href={href} rel="noopener noreferrer nofollow" target="_blank">{ text.to_string() }</a>
        },
        None => html! { <span>{ text.to_string() }</span> },
    }
}

#[cfg(test)]
mod tests {
    use geo_core::safe::safe_href;

    /// The cases the pages rely on (the rendering itself is tested in the browser).
    #[test]
    fn only_http_links_without_credentials() {
        assert_eq!(safe_href("https://a.example/x?q=1").as_deref(), Some("https://a.example/x?q=1"));
        assert_eq!(safe_href(" HTTP://user:pw@a.example/").as_deref(), Some("http://a.example/"));
        for bad in
            ["javascript:alert(1)", " javascript:alert(1)", "data:text/html,x", "java\tscript:x", "/x", "https://"]
        {
            assert_eq!(safe_href(bad), None, "{bad}");
        }
    }
}
