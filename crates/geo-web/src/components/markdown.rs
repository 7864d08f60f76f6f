//! A model answer rendered as sanitised Markdown.
//!
//! The answer is untrusted text written by a model that read arbitrary web pages, so the
//! rules are strict and applied *before* anything reaches the DOM:
//!
//! 1. comrak parses it with raw HTML disabled: `render.unsafe = false` and
//!    `render.escape = true`, so `<script>`, `<img onerror>`, `<iframe>`, comments and every
//!    other tag come out as visible escaped text, never as elements;
//! 2. on the syntax tree, every link (inline, reference or autolink, entities already
//!    decoded) whose destination is not `http:`, `https:` or `mailto:` is replaced by its
//!    text; every image becomes a plain link to its source when that is http(s), else its alt
//!    text — no image is ever loaded from the network;
//! 3. after rendering, every `<a href=` gets `rel="noopener noreferrer nofollow"
//!    target="_blank"` (the string `<a href="` can only come from the renderer: text is
//!    escaped, so a literal one would read `&lt;a`).
//!
//! Only then does [`Markdown`] put the HTML in its container with `inner_html`.

use comrak::nodes::NodeValue;
use comrak::{format_html, parse_document, Arena, Options};
use yew::prelude::*;

/// True for destinations that may stay links: `http:`, `https:`, `mailto:` (case-insensitive,
/// ignoring surrounding whitespace; geo-core's [`geo_core::safe::link_scheme_allowed`]).
pub fn is_allowed_url(url: &str) -> bool {
    geo_core::safe::link_scheme_allowed(url, true)
}

/// What a kept link points to: a `mailto:` as written, an http(s) URL as
/// [`geo_core::safe::safe_href`] gives it (the same function as every other link of the app);
/// `None` drops the link and keeps its text.
fn link_target(url: &str) -> Option<String> {
    if url.trim().to_ascii_lowercase().starts_with("mailto:") {
        return Some(url.trim().to_string());
    }
    geo_core::safe::safe_href(url)
}

fn options() -> Options<'static> {
    let mut o = Options::default();
    o.render.r#unsafe = false;
    o.render.escape = true;
    o.extension.strikethrough = true;
    o.extension.table = true;
    o.extension.autolink = true;
    o
}

/// Renders `markdown` to HTML under the module's rules.
pub fn render_markdown(markdown: &str) -> String {
    let arena = Arena::new();
    let opts = options();
    let root = parse_document(&arena, markdown, &opts);
    let nodes: Vec<_> = root.descendants().collect();
    for node in nodes {
        let replacement = {
            let ast = node.data.borrow();
            match &ast.value {
                NodeValue::Link(link) => match link_target(&link.url) {
                    None => Some(None),
                    Some(url) if url != link.url => {
                        let mut link = link.clone();
                        link.url = url;
                        Some(Some(NodeValue::Link(link)))
                    }
                    Some(_) => None,
                },
                NodeValue::Image(link) => match geo_core::safe::safe_href(&link.url) {
                    Some(url) => {
                        let mut link = link.clone();
                        link.url = url;
                        Some(Some(NodeValue::Link(link)))
                    }
                    None => Some(None),
                },
                _ => None,
            }
        };
        match replacement {
            Some(Some(value)) => node.data.borrow_mut().value = value,
            Some(None) => {
                // Keep the text, drop the link: move the children before the node.
                let children: Vec<_> = node.children().collect();
                for child in children {
                    child.detach();
                    node.insert_before(child);
                }
                node.detach();
            }
            None => {}
        }
    }
    let mut html = String::new();
    if format_html(root, &opts, &mut html).is_err() {
        return String::new();
    }
    html.replace("<a href=\"", "<a rel=\"noopener noreferrer nofollow\" target=\"_blank\" href=\"")
}

/// Props of [`Markdown`].
#[derive(Properties, PartialEq)]
pub struct MarkdownProps {
    /// The untrusted Markdown text.
    pub text: AttrValue,
    /// `data-testid` of the container.
    #[prop_or_default]
    pub testid: Option<AttrValue>,
}

/// A container holding [`render_markdown`]'s output.
#[function_component]
pub fn Markdown(props: &MarkdownProps) -> Html {
    let node = use_node_ref();
    {
        let node = node.clone();
        use_effect_with(props.text.clone(), move |text| {
            if let Some(el) = node.cast::<web_sys::Element>() {
                el.set_inner_html(&render_markdown(text));
            }
        });
    }
    html! { <div class="markdown" ref={node} data-testid={props.testid.clone()}></div> }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn safe(input: &str) -> String {
        let html = render_markdown(input);
        let lower = html.to_ascii_lowercase();
        for bad in [
            "<script",
            "<img",
            "<svg",
            "<iframe",
            "<style",
            "<object",
            "<embed",
            "<!--",
            "javascript:",
            "data:",
            "vbscript:",
            " on",
        ] {
            if bad == " on" {
                // No attribute starting with "on" inside a tag.
                let mut in_tag = false;
                let bytes: Vec<char> = lower.chars().collect();
                for (i, c) in bytes.iter().enumerate() {
                    match c {
                        '<' => in_tag = true,
                        '>' => in_tag = false,
                        ' ' if in_tag => {
                            let rest: String = bytes[i + 1..].iter().take(2).collect();
                            assert!(rest != "on", "event attribute in {html}");
                        }
                        _ => {}
                    }
                }
                continue;
            }
            if bad == "javascript:" || bad == "data:" || bad == "vbscript:" {
                assert!(!lower.contains(&format!("href=\"{bad}")), "{bad} href in {html}");
                continue;
            }
            assert!(!lower.contains(bad), "{bad} in {html} (from {input})");
        }
        html
    }

    #[test]
    fn payloads_are_inert() {
        for p in [
            "<script>alert(1)</script>",
            "<img src=x onerror=alert(1)>",
            "<svg onload=alert(1)>",
            "<iframe src=\"javascript:alert(1)\"></iframe>",
            "[x](javascript:alert(1))",
            "[x](JaVaScRiPt:alert(1))",
            "[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
            "<javascript:alert(1)>",
            "[x](jav&#x61;script:alert(1))",
            "[x](&#106;avascript:alert(1))",
            "![a](http://evil.example/x.png)",
            "![a](javascript:alert(1))",
            "<!-- <script>alert(1)</script> -->",
            "<a href=\"javascript:alert(1)\">x</a>",
            "<div style=\"background:url(javascript:alert(1))\">x</div>",
            "[[x](javascript:alert(1))](http://ok.example)",
            "[x]: javascript:alert(1)\n\n[x]",
            "<p onmouseover=alert(1)>hi</p>",
            "[x](vbscript:msgbox(1))",
            "[x]( javascript:alert(1))",
        ] {
            safe(p);
        }
    }

    #[test]
    fn good_links_survive_with_rel_and_target() {
        let html = safe("see [docs](https://example.com/a?b=1) and <mailto:a@b.example>");
        assert!(
            html.contains(
                "<a rel=\"noopener noreferrer nofollow\" target=\"_blank\" href=\"https://example.com/a?b=1\">docs</a>"
            ),
            "{html}"
        );
        assert!(html.contains("href=\"mailto:a@b.example\""), "{html}");
        let html = safe("[rel](/relative) text");
        assert!(!html.contains("<a"), "{html}");
        assert!(html.contains("rel"), "{html}");
    }

    #[test]
    fn images_become_links_or_text() {
        let html = safe("![logo](https://img.example/logo.png)");
        assert!(html.contains("href=\"https://img.example/logo.png\">logo</a>"), "{html}");
        assert!(!html.contains("<img"));
        let html = safe("![alt text](data:image/png;base64,AAAA)");
        assert!(html.contains("alt text") && !html.contains("<a"), "{html}");
    }

    #[test]
    fn allowed_urls() {
        assert!(is_allowed_url("https://x"));
        assert!(is_allowed_url(" HTTP://x"));
        assert!(is_allowed_url("mailto:a@b"));
        assert!(!is_allowed_url("javascript:alert(1)"));
        assert!(!is_allowed_url("java\tscript:alert(1)"));
        assert!(!is_allowed_url("/x"));
        assert!(!is_allowed_url("data:text/html,x"));
    }
}
