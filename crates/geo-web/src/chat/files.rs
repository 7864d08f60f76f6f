//! Which dropped or picked files the Docs chat accepts: TXT and Markdown only, at most
//! [`MAX_FILE_BYTES`] each and [`MAX_TOTAL_BYTES`] for everything loaded. Checked before a
//! file is read, so a large or binary file never reaches memory.

use crate::i18n::tf;
use geo_core::model::Lang;

/// Largest accepted file: 5 MiB.
pub const MAX_FILE_BYTES: u64 = 5 * 1024 * 1024;
/// Largest total of all loaded documents: 20 MiB.
pub const MAX_TOTAL_BYTES: u64 = 20 * 1024 * 1024;
/// File name endings accepted as text.
const TEXT_EXTENSIONS: &[&str] = &[".txt", ".text", ".md", ".markdown", ".mdown", ".mkd"];

/// Whether a file looks like TXT or Markdown: by its name's ending, or a `text/plain` /
/// `text/markdown` type when the name has none of those endings.
pub fn is_text_file(name: &str, mime: &str) -> bool {
    let lower = name.to_lowercase();
    if TEXT_EXTENSIONS.iter().any(|e| lower.ends_with(e)) {
        return true;
    }
    let mime = mime.split(';').next().unwrap_or("").trim().to_ascii_lowercase();
    !lower.contains('.') && matches!(mime.as_str(), "text/plain" | "text/markdown" | "text/x-markdown")
}

/// Checks one file given the bytes already loaded (including files accepted earlier in the
/// same drop); the error is a user-facing message in `lang`.
pub fn check_file(name: &str, mime: &str, size: u64, loaded: u64, lang: Lang) -> Result<(), String> {
    let mb = |b: u64| format!("{:.1}", b as f64 / (1024.0 * 1024.0));
    if !is_text_file(name, mime) {
        return Err(tf(lang, "chat.file_not_text", &[("name", name)]));
    }
    if size > MAX_FILE_BYTES {
        return Err(tf(lang, "chat.file_too_big", &[("name", name), ("mb", &mb(size))]));
    }
    if loaded.saturating_add(size) > MAX_TOTAL_BYTES {
        return Err(tf(lang, "chat.total_too_big", &[("name", name), ("mb", &mb(loaded))]));
    }
    Ok(())
}

/// Whether decoded text looks binary (it holds NUL characters).
pub fn looks_binary(text: &str) -> bool {
    text.contains('\0')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn check(name: &str, mime: &str, size: u64, loaded: u64, expect: Result<(), &str>) {
        let got = check_file(name, mime, size, loaded, Lang::En);
        match expect {
            Ok(()) => assert_eq!(got, Ok(()), "{name}"),
            Err(needle) => {
                let msg = got.expect_err(name);
                assert!(msg.contains(needle), "{name}: {msg}");
            }
        }
    }

    #[test]
    fn files() {
        check("a.md", "", 10, 0, Ok(()));
        check("A.TXT", "text/plain", MAX_FILE_BYTES, 0, Ok(()));
        check("notes", "text/plain", 10, 0, Ok(()));
        check("notes.markdown", "", 10, 0, Ok(()));
        check("x.pdf", "application/pdf", 10, 0, Err("not a txt or markdown"));
        check("x.png", "text/plain", 10, 0, Err("not a txt or markdown"));
        check("bin", "application/octet-stream", 10, 0, Err("not a txt or markdown"));
        check("big.md", "", MAX_FILE_BYTES + 1, 0, Err("over the 5 mb"));
        check("c.md", "", 2, MAX_TOTAL_BYTES - 1, Err("20 mb"));
        check("c.md", "", 1, MAX_TOTAL_BYTES - 1, Ok(()));
        assert!(looks_binary("a\0b"));
        assert!(!looks_binary("中文"));
    }
}
