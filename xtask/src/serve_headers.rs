//! What the static server of `serve.rs` says about a file: whether its body goes
//! gzip-encoded, how long a browser may keep it, and the head of the response.
//!
//! GitHub Pages sends the site's text, JS, CSS, JSON and wasm gzip-encoded to a browser that
//! accepts it, with `Cache-Control: max-age=600`, an `ETag` and `Vary: Accept-Encoding`.
//! [`Caching::Pages`] answers the same way, so `cargo xtask bench-first-visit` counts the
//! bytes and times the return visit that a visitor of the published site gets.
//! `cargo xtask serve` and the browser tests keep [`Caching::Revalidate`] (`no-cache`): a
//! rebuilt site is never served stale, and an unchanged file still costs only a `304`.
//! Both encode alike, so every browser test loads the site as it is published.

/// How long a browser may use a response without asking the server again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Caching {
    /// `no-cache`: every use asks again (a `304` when the file is unchanged).
    Revalidate,
    /// `max-age=600`, as GitHub Pages sends: ten minutes without asking.
    Pages,
}

impl Caching {
    /// The `Cache-Control` value.
    pub fn cache_control(self) -> &'static str {
        match self {
            Caching::Revalidate => "no-cache",
            Caching::Pages => "max-age=600",
        }
    }
}

/// Whether an `Accept-Encoding` value accepts gzip: `gzip` (or `x-gzip`, or `*` when gzip is
/// not named) with a quality above zero. No header means no coding (RFC 9110 §12.5.3 allows
/// any, but a client that sends none is a script, and the tests read bodies as they are).
pub fn accepts_gzip(accept_encoding: Option<&str>) -> bool {
    let Some(header) = accept_encoding else { return false };
    let (mut gzip, mut star) = (None, None);
    for item in header.split(',') {
        let mut parts = item.split(';');
        let coding = parts.next().unwrap_or("").trim().to_ascii_lowercase();
        let quality = parts
            .filter_map(|p| p.trim().split_once('='))
            .find(|(k, _)| k.trim().eq_ignore_ascii_case("q"))
            .map_or(1.0, |(_, v)| v.trim().parse::<f64>().unwrap_or(0.0));
        match coding.as_str() {
            "gzip" | "x-gzip" => gzip = Some(quality),
            "*" => star = Some(quality),
            _ => {}
        }
    }
    gzip.or(star).is_some_and(|q| q > 0.0)
}

/// Whether a body of this MIME type is worth compressing: text, JS, CSS, JSON, SVG and wasm
/// (GitHub Pages compresses these); images that are compressed already are not.
pub fn compressible(mime: &str) -> bool {
    let essence = mime.split(';').next().unwrap_or("").trim();
    essence.starts_with("text/")
        || matches!(essence, "application/wasm" | "application/json" | "application/manifest+json" | "image/svg+xml")
}

/// The `ETag` of a file whose strong validator is `file_tag` (`"…"`): weak (`W/"…"`) when the
/// body goes gzip-encoded, as nginx sends it, since those bytes are not the file's. A
/// conditional request names either form; `If-None-Match` compares them weakly.
pub fn representation_tag(file_tag: &str, gzip: bool) -> String {
    if gzip {
        format!("W/{file_tag}")
    } else {
        file_tag.to_string()
    }
}

/// The head of one response.
#[derive(Debug, Clone)]
pub struct Head<'a> {
    /// `200 OK`, `304 Not Modified`, `404 Not Found`, …
    pub status: &'a str,
    /// The `Content-Type`.
    pub mime: &'a str,
    /// The body's length as sent (compressed when `gzip`); none for a `304`.
    pub length: Option<usize>,
    /// The representation's validator, if it has one ([`representation_tag`]).
    pub etag: Option<&'a str>,
    /// The body is gzip-encoded.
    pub gzip: bool,
    /// The file's type is [`compressible`]: the response varies with `Accept-Encoding`.
    pub vary: bool,
    /// The caching policy.
    pub caching: Caching,
    /// The `Content-Security-Policy` value.
    pub csp: &'a str,
}

impl Head<'_> {
    /// The status line and headers, ending with the empty line.
    pub fn text(&self) -> String {
        let mut out = format!("HTTP/1.1 {}\r\nContent-Type: {}\r\n", self.status, self.mime);
        if self.gzip {
            out.push_str("Content-Encoding: gzip\r\n");
        }
        if let Some(n) = self.length {
            out.push_str(&format!("Content-Length: {n}\r\n"));
        }
        out.push_str(&format!("Cache-Control: {}\r\n", self.caching.cache_control()));
        if self.vary {
            out.push_str("Vary: Accept-Encoding\r\n");
        }
        if let Some(tag) = self.etag {
            out.push_str(&format!("ETag: {tag}\r\n"));
        }
        out.push_str(&format!(
            "X-Content-Type-Options: nosniff\r\nContent-Security-Policy: {}; frame-ancestors 'none'\r\n\
             Connection: close\r\n\r\n",
            self.csp
        ));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn check(accept: Option<&str>, expect: bool) {
        assert_eq!(accepts_gzip(accept), expect, "{accept:?}");
    }

    #[test]
    fn gzip_is_sent_only_when_accepted() {
        check(Some("gzip, deflate, br, zstd"), true); // Chromium
        check(Some("GZIP"), true);
        check(Some("x-gzip"), true);
        check(Some("br;q=1.0, gzip;q=0.8"), true);
        check(Some("*"), true);
        check(Some("identity"), false);
        check(Some("br"), false);
        check(Some(""), false);
        check(None, false);
        check(Some("gzip;q=0"), false);
        check(Some("gzip; q=0.000"), false);
        check(Some("*, gzip;q=0"), false);
        check(Some("*;q=0"), false);
        check(Some("gzip;q=nonsense"), false);
    }

    #[test]
    fn a_gzip_body_has_a_weak_validator() {
        assert_eq!(representation_tag("\"ab\"", true), "W/\"ab\"");
        assert_eq!(representation_tag("\"ab\"", false), "\"ab\"");
    }

    #[test]
    fn text_js_css_json_and_wasm_are_compressed_images_are_not() {
        for mime in [
            "text/html; charset=utf-8",
            "text/javascript; charset=utf-8",
            "text/css; charset=utf-8",
            "text/plain; charset=utf-8",
            "application/json",
            "application/wasm",
            "application/manifest+json",
            "image/svg+xml",
        ] {
            assert!(compressible(mime), "{mime}");
        }
        for mime in ["image/png", "image/x-icon", "application/octet-stream"] {
            assert!(!compressible(mime), "{mime}");
        }
    }

    fn head(gzip: bool, caching: Caching) -> Head<'static> {
        Head {
            status: "200 OK",
            mime: "application/wasm",
            length: Some(12),
            etag: Some(if gzip { "W/\"00ff\"" } else { "\"00ff\"" }),
            gzip,
            vary: true,
            caching,
            csp: "default-src 'self'",
        }
    }

    #[test]
    fn the_head_says_how_the_body_is_encoded_and_cached() {
        let pages = head(true, Caching::Pages).text();
        assert_eq!(
            pages,
            "HTTP/1.1 200 OK\r\nContent-Type: application/wasm\r\nContent-Encoding: gzip\r\nContent-Length: 12\r\n\
             Cache-Control: max-age=600\r\nVary: Accept-Encoding\r\nETag: W/\"00ff\"\r\n\
             X-Content-Type-Options: nosniff\r\nContent-Security-Policy: default-src 'self'; frame-ancestors 'none'\r\n\
             Connection: close\r\n\r\n"
        );
        let plain = head(false, Caching::Revalidate).text();
        assert!(plain.contains("Cache-Control: no-cache\r\n"), "{plain}");
        assert!(plain.contains("ETag: \"00ff\"\r\n"), "{plain}");
        assert!(!plain.contains("Content-Encoding"), "{plain}");
        let not_modified =
            Head { status: "304 Not Modified", length: None, gzip: false, ..head(true, Caching::Pages) }.text();
        assert!(
            !not_modified.contains("Content-Length") && !not_modified.contains("Content-Encoding"),
            "{not_modified}"
        );
        assert!(not_modified.contains("ETag: W/\"00ff\"\r\n"), "{not_modified}");
        let missing = Head { status: "404 Not Found", etag: None, vary: false, ..head(false, Caching::Pages) }.text();
        assert!(!missing.contains("ETag") && !missing.contains("Vary"), "{missing}");
    }
}
