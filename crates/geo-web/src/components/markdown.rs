//! A model answer rendered as sanitised Markdown.
//!
//! The answer is untrusted text written by a model that read arbitrary web pages, so the
//! rules are strict and applied *before* anything reaches the DOM:
//!
//! 1. pulldown-cmark parses it (CommonMark with GitHub's tables and strikethrough), and
//!    every piece of raw HTML it finds, block or inline, is turned into text: `<script>`,
//!    `<img onerror>`, `<iframe>`, comments and every other tag come out as visible escaped
//!    text, never as elements;
//! 2. on the event stream, every link (inline, reference or autolink, entities already
//!    decoded) whose destination is not `http:`, `https:` or `mailto:` is replaced by its
//!    text; every image becomes a plain link to its source when that is http(s), else its alt
//!    text — no image is ever loaded from the network; bare URLs, `www.` names and e-mail
//!    addresses in plain text become links under the same rules (geo-core's
//!    [`geo_core::analysis::links::bare_links`], the answer-link extraction's reading of a
//!    bare URL), never inside code or an existing link;
//! 3. after rendering, every `<a href=` gets `rel="noopener noreferrer nofollow"
//!    target="_blank"` and a table cell's alignment becomes an `align` attribute instead of
//!    a `style` (the strings `<a href="` and `style="text-align: ` can only come from the
//!    renderer: every piece of text is escaped here, quotes too, so a literal one would read
//!    `&lt;a` or `&quot;`).
//!
//! Only then does [`Markdown`] put the HTML in its container with `inner_html`.
//!
//! A sentence to mark (a claim's or risk flag's `start..end`, in characters of the answer)
//! is found through the parser's source offsets: two private-use characters go into the text
//! events at its first and after its last character of text (never into Markdown syntax, so
//! a list item stays a list item), travel through the rules above as text, and become
//! `<mark>` elements afterwards ([`mark_sentence`]), closed and reopened around every tag
//! between them. The answer's own private-use characters of those two code points become
//! U+FFFD first, so nothing in it can place a mark.
//! pulldown-cmark replaced comrak to keep the site small (`docs/adr/0014-site-size.md`).

use pulldown_cmark::{CowStr, Event, LinkType, Options, Parser, Tag, TagEnd};
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

/// `text` escaped for HTML, quotes too (the renderer's own escaping leaves `"` as it is).
pub(crate) fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 8);
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            _ => out.push(c),
        }
    }
    out
}

/// A link start the renderer writes as `<a href="url" title="title">`.
fn link_start<'a>(url: String, title: CowStr<'a>) -> Event<'a> {
    Event::Start(Tag::Link { link_type: LinkType::Inline, dest_url: url.into(), title, id: CowStr::Borrowed("") })
}

/// Moves a run of plain text into `out`, its bare links (see the module doc) made links.
fn flush_text<'a>(text: &mut String, out: &mut Vec<Event<'a>>) {
    if text.is_empty() {
        return;
    }
    let mut at = 0;
    for link in geo_core::analysis::links::bare_links(text) {
        let Some(url) = link_target(&link.href) else { continue };
        if link.start > at {
            out.push(Event::Text(text[at..link.start].to_string().into()));
        }
        out.push(link_start(url, CowStr::Borrowed("")));
        out.push(Event::Text(text[link.start..link.end].to_string().into()));
        out.push(Event::End(TagEnd::Link));
        at = link.end;
    }
    if at < text.len() {
        out.push(Event::Text(text[at..].to_string().into()));
    }
    text.clear();
}

/// Where a marked sentence starts and ends in the text (private use, see the module doc).
const MARK_START: char = '\u{E000}';
const MARK_END: char = '\u{E001}';
/// What the two become.
const MARK_OPEN: &str = "<mark class=\"sentence\" data-testid=\"probe-marked\">";
const MARK_CLOSE: &str = "</mark>";

fn options() -> Options {
    Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH
}

/// Renders `markdown` to HTML under the module's rules.
pub fn render_markdown(markdown: &str) -> String {
    render_events(Parser::new_ext(markdown, options()))
}

/// [`render_markdown`] with the characters `start..end` of `markdown` marked (see the module
/// doc); unmarked when no text of the answer lies in that range.
pub fn render_marked(markdown: &str, start: u32, end: u32) -> String {
    let clean: String =
        markdown.chars().map(|c| if c == MARK_START || c == MARK_END { '\u{FFFD}' } else { c }).collect();
    let byte = |chars: u32| clean.char_indices().nth(chars as usize).map_or(clean.len(), |(b, _)| b);
    let (from, to) = (byte(start), byte(end));
    let mut events: Vec<(Event, std::ops::Range<usize>)> =
        Parser::new_ext(&clean, options()).into_offset_iter().collect();
    // Text events whose text is their source, letter for letter, can be cut anywhere; the
    // others (entities, escapes) are marked whole.
    let verbatim =
        |e: &Event, r: &std::ops::Range<usize>| matches!(e, Event::Text(t) if clean.get(r.clone()) == Some(&**t));
    let mut first: Option<(usize, usize)> = None;
    let mut last: Option<(usize, usize)> = None;
    for (i, (e, r)) in events.iter().enumerate() {
        let Event::Text(t) = e else { continue };
        if r.end <= from || r.start >= to || t.is_empty() {
            continue;
        }
        let exact = verbatim(e, r);
        if first.is_none() {
            first = Some((i, if exact { from.saturating_sub(r.start) } else { 0 }));
        }
        last = Some((i, if exact { to.min(r.end) - r.start } else { t.len() }));
    }
    if let (Some((i, a)), Some((j, b))) = (first, last) {
        for (k, at, mark) in [(j, b, MARK_END), (i, a, MARK_START)] {
            if let Event::Text(t) = &mut events[k].0 {
                let mut text = t.to_string();
                text.insert(at, mark);
                *t = text.into();
            }
        }
    }
    mark_sentence(&render_events(events.into_iter().map(|(e, _)| e)))
}

/// The two sentinels of `html` as `<mark>` elements, closed before and reopened after every
/// tag between them; removed when they are not one start before one end, both in text.
fn mark_sentence(html: &str) -> String {
    let (Some(a), Some(b)) = (html.find(MARK_START), html.find(MARK_END)) else {
        return html.replace([MARK_START, MARK_END], "");
    };
    let in_tag = |at: usize| html[..at].rfind('<') > html[..at].rfind('>');
    if b < a || in_tag(a) || in_tag(b) || html.matches([MARK_START, MARK_END]).count() != 2 {
        return html.replace([MARK_START, MARK_END], "");
    }
    let inner = &html[a + MARK_START.len_utf8()..b];
    let mut out = String::with_capacity(html.len() + 64);
    out.push_str(&html[..a]);
    out.push_str(MARK_OPEN);
    let mut rest = inner;
    while let Some(open) = rest.find('<') {
        let close = rest[open..].find('>').map_or(rest.len(), |c| open + c + 1);
        out.push_str(&rest[..open]);
        out.push_str(MARK_CLOSE);
        out.push_str(&rest[open..close]);
        out.push_str(MARK_OPEN);
        rest = &rest[close..];
    }
    out.push_str(rest);
    out.push_str(MARK_CLOSE);
    out.push_str(&html[b + MARK_END.len_utf8()..]);
    out.replace(&format!("{MARK_OPEN}{MARK_CLOSE}"), "")
}

/// Renders parsed events under the module's rules.
fn render_events<'a>(parser: impl Iterator<Item = Event<'a>>) -> String {
    let mut events: Vec<Event> = Vec::new();
    // One entry per open link or image: whether it was kept as a link (so its end is too).
    let mut open: Vec<bool> = Vec::new();
    let mut in_code = false;
    // Adjacent text events, joined: the parser splits text at `_`, `*`, `&` and the like.
    let mut text = String::new();
    for event in parser {
        if let Event::Text(t) = &event {
            if open.is_empty() && !in_code {
                text.push_str(t);
                continue;
            }
        }
        flush_text(&mut text, &mut events);
        match event {
            Event::Html(raw) | Event::InlineHtml(raw) => events.push(Event::Text(raw)),
            Event::Start(Tag::CodeBlock(kind)) => {
                in_code = true;
                events.push(Event::Start(Tag::CodeBlock(kind)));
            }
            Event::End(TagEnd::CodeBlock) => {
                in_code = false;
                events.push(Event::End(TagEnd::CodeBlock));
            }
            Event::Start(Tag::Link { link_type, dest_url, title, .. }) => {
                // `<a@b.example>`: the renderer would add `mailto:` itself; add it here.
                let dest =
                    if link_type == LinkType::Email { format!("mailto:{dest_url}") } else { dest_url.to_string() };
                let url = link_target(&dest).filter(|_| !open.contains(&true));
                open.push(url.is_some());
                events.extend(url.map(|url| link_start(url, title)));
            }
            Event::Start(Tag::Image { dest_url, title, .. }) => {
                // An image inside a kept link stays its alt text: links do not nest.
                let url = geo_core::safe::safe_href(&dest_url).filter(|_| !open.contains(&true));
                open.push(url.is_some());
                events.extend(url.map(|url| link_start(url, title)));
            }
            Event::End(TagEnd::Link | TagEnd::Image) => {
                if open.pop() == Some(true) {
                    events.push(Event::End(TagEnd::Link));
                }
            }
            other => events.push(other),
        }
    }
    flush_text(&mut text, &mut events);
    // Every piece of text is written escaped by us, so no `"` of the answer reaches the HTML.
    let events = events.into_iter().map(|event| match event {
        Event::Text(text) => Event::Html(escape(&text).into()),
        Event::Code(code) => Event::Html(format!("<code>{}</code>", escape(&code)).into()),
        other => other,
    });
    let mut html = String::new();
    pulldown_cmark::html::push_html(&mut html, events);
    html.replace("<a href=\"", "<a rel=\"noopener noreferrer nofollow\" target=\"_blank\" href=\"")
        .replace(" style=\"text-align: left\"", " align=\"left\"")
        .replace(" style=\"text-align: center\"", " align=\"center\"")
        .replace(" style=\"text-align: right\"", " align=\"right\"")
}

/// Props of [`Markdown`].
#[derive(Properties, PartialEq)]
pub struct MarkdownProps {
    /// The untrusted Markdown text.
    pub text: AttrValue,
    /// `data-testid` of the container.
    #[prop_or_default]
    pub testid: Option<AttrValue>,
    /// The characters `start..end` of `text` to mark ([`render_marked`]), scrolled into view.
    #[prop_or_default]
    pub mark: Option<(u32, u32)>,
}

/// A container holding [`render_markdown`]'s output.
#[function_component]
pub fn Markdown(props: &MarkdownProps) -> Html {
    let node = use_node_ref();
    {
        let node = node.clone();
        use_effect_with((props.text.clone(), props.mark), move |(text, mark)| {
            if let Some(el) = node.cast::<web_sys::Element>() {
                match mark {
                    Some((start, end)) => {
                        el.set_inner_html(&render_marked(text, *start, *end));
                        if let Ok(Some(first)) = el.query_selector("mark.sentence") {
                            first.scroll_into_view();
                        }
                    }
                    None => el.set_inner_html(&render_markdown(text)),
                }
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
    fn gfm_tables_strikethrough_and_bare_links() {
        let html = safe("| a | b |\n|:--|--:|\n| ~~x~~ | see www.example.com or https://a.example/p. |\n");
        assert!(html.contains("<table>") && html.contains("<del>x</del>"), "{html}");
        assert!(html.contains("<th align=\"left\">a</th>") && !html.contains("style="), "{html}");
        assert!(html.contains("href=\"http://www.example.com/\">www.example.com</a>"), "{html}");
        assert!(html.contains("href=\"https://a.example/p\">https://a.example/p</a>."), "{html}");
        let html = safe("write to a@b.example or <c@d.example>; `https://code.example` stays code");
        assert!(html.contains("href=\"mailto:a@b.example\">a@b.example</a>"), "{html}");
        assert!(html.contains("href=\"mailto:c@d.example\">c@d.example</a>"), "{html}");
        assert!(html.contains("<code>https://code.example</code>"), "{html}");
        let html = safe("[![logo](https://img.example/l.png)](https://site.example)");
        assert_eq!(html.matches("<a ").count(), 1, "{html}");
        let html = safe("a https://x.example/a_b_c*d* e");
        assert!(html.contains("href=\"https://x.example/a_b_c\""), "{html}");
    }

    #[test]
    fn entities_decode_as_html5_says() {
        // The vendored pulldown-cmark packs the entity table (vendor/pulldown-cmark).
        let html = safe("&AElig; &amp; &AMP; &nvlt; &zwnj;x &Zscr; &#x41; &bogus; &lt;script&gt;");
        assert_eq!(html, "<p>\u{C6} &amp; &amp; &lt;\u{20D2} \u{200C}x \u{1D4B5} A &amp;bogus; &lt;script&gt;</p>\n");
    }

    /// `text` with the characters of its first occurrence of `sentence` marked.
    #[track_caller]
    fn marked(text: &str, sentence: &str) -> String {
        let at = text.find(sentence).expect("the sentence is in the text");
        let start = text[..at].chars().count() as u32;
        let html = render_marked(text, start, start + sentence.chars().count() as u32);
        let lower = html.to_ascii_lowercase();
        assert!(!lower.contains("<script") && !lower.contains("<img") && !lower.contains(" onerror"), "{html}");
        html
    }

    const OPEN: &str = "<mark class=\"sentence\" data-testid=\"probe-marked\">";

    #[test]
    fn a_sentence_is_marked_in_the_rendered_answer() {
        let html = marked("元构场成立于2015年。它总部在杭州。", "元构场成立于2015年。");
        assert_eq!(html, format!("<p>{OPEN}元构场成立于2015年。</mark>它总部在杭州。</p>\n"));
        // Markdown syntax stays syntax: the list is still a list, the bold still bold, and
        // the mark closes and reopens around the tags inside it.
        let html = marked("介绍：\n\n1. **元构场**成立于2015年[1]。\n2. 其他", "1. **元构场**成立于2015年[1]。");
        assert!(
            html.contains(&format!("<li><strong>{OPEN}元构场</mark></strong>{OPEN}成立于2015年[1]。</mark></li>")),
            "{html}"
        );
        assert_eq!(html.matches("<li>").count(), 2, "{html}");
        // A sentence across table cells, a link inside a sentence.
        let html = marked("| 公司 | 成立 |\n|---|---|\n| 元构场 | 2015 |\n", "| 元构场 | 2015 |");
        assert!(html.contains(&format!("<td>{OPEN}元构场</mark></td><td>{OPEN}2015</mark></td>")), "{html}");
        let html = marked("见 [官网](https://a.example/x) 的说明。下一句。", "见 [官网](https://a.example/x) 的说明。");
        assert!(html.contains(&format!("{OPEN}见 </mark><a rel=")), "{html}");
        assert!(html.contains(&format!(">{OPEN}官网</mark></a>{OPEN} 的说明。</mark>下一句。")), "{html}");
        // Entities are marked whole; the marked text keeps the answer's characters.
        let html = marked("A &amp; B 成立于2015年。", "A &amp; B 成立于2015年。");
        assert!(html.contains(&format!("{OPEN}A &amp; B 成立于2015年。</mark>")), "{html}");
    }

    #[test]
    fn marks_cannot_be_forged_or_break_the_rules() {
        // The answer's own private-use characters and raw HTML place no mark and no element.
        let text = "<b>x</b>\u{E000}<script>alert(1)</script>\u{E001} 成立于2015年。";
        let html = marked(text, "成立于2015年。");
        assert_eq!(html.matches("<mark").count(), 1, "{html}");
        assert!(html.contains("&lt;script&gt;") && html.contains('\u{FFFD}'), "{html}");
        safe(&html);
        // Out of range, empty or over syntax only: nothing marked, the rendering unchanged.
        for (start, end) in [(100, 120), (3, 3), (0, 3)] {
            assert_eq!(render_marked("## **\n\nabc", start, end), render_markdown("## **\n\nabc"), "{start}..{end}");
        }
        assert!(!render_marked("text", 9, 12).contains("<mark"));
        assert_eq!(mark_sentence("<p>\u{E001}a\u{E000}</p>"), "<p>a</p>");
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
