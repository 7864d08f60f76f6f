//! Title cleaning: a list item's title as a name, without Markdown, a leading bracketed tag
//! or what follows a separator.

/// Cleaned titles are cut to this many characters.
pub const MAX_TITLE_CHARS: usize = 80;

/// Cleans a list title: strips Markdown (bold, italics, strike-through, inline code, heading
/// marks; links keep their text, images are dropped), drops a leading bracketed tag such as 【推荐】,
/// cuts at the first colon (`:` `：`, but not `://`), dash separator (` - ` ` — ` `——` ` – `) or
/// opening bracket (`(` `（` `[` `【`), trims (with a trailing `,` `，` `、` `;` `；`), and keeps at most [`MAX_TITLE_CHARS`] characters.
pub fn clean_title(raw: &str) -> String {
    let mut s = raw.trim();
    let hashes = s.len() - s.trim_start_matches('#').len();
    if (1..=6).contains(&hashes) && s[hashes..].starts_with(char::is_whitespace) {
        s = s[hashes..].trim_start();
    }
    let s = crate::text::markdown::strip_links(s);
    let s: String = s.chars().filter(|&c| c != '`' && c != '*').collect();
    let s = strip_underscores(&s.replace("__", "").replace("~~", ""));
    let s = drop_leading_bracket(s.trim());
    let cut = cut_at_separator(s);
    let cut = if cut.trim().is_empty() { s } else { cut };
    // A final 。 stays: it marks a sentence, which `otherEntities` must not take for a name.
    let t = cut.trim().trim_end_matches([',', '，', '、', ';', '；']).trim_end();
    let t: String = t.chars().take(MAX_TITLE_CHARS).collect();
    t.trim_end().to_string()
}

/// Drops `_` used as emphasis (next to a space or an end) and keeps `snake_case`.
fn strip_underscores(s: &str) -> String {
    let chars: Vec<char> = s.chars().collect();
    let mut out = String::with_capacity(s.len());
    for (i, &c) in chars.iter().enumerate() {
        if c == '_' {
            let before = i.checked_sub(1).map(|p| chars[p]);
            let after = chars.get(i + 1).copied();
            if before.is_none_or(char::is_whitespace) || after.is_none_or(char::is_whitespace) {
                continue;
            }
        }
        out.push(c);
    }
    out
}

const OPEN_BRACKETS: [char; 4] = ['(', '（', '[', '【'];
const CLOSE_BRACKETS: [char; 4] = [')', '）', ']', '】'];

/// `【推荐】元构场` → `元构场`; a title that is only a bracket keeps its content.
fn drop_leading_bracket(s: &str) -> &str {
    let Some(first) = s.chars().next() else { return s };
    if !OPEN_BRACKETS.contains(&first) {
        return s;
    }
    let inner = &s[first.len_utf8()..];
    let Some(close) = inner.find(CLOSE_BRACKETS) else { return s };
    let after = inner[close..].chars().next().map_or(0, char::len_utf8);
    let rest = inner[close + after..].trim();
    if rest.is_empty() {
        inner[..close].trim()
    } else {
        rest
    }
}

const SEPARATORS: &[&str] = &["：", " - ", " — ", "——", " – ", "(", "（", "[", "【"];

fn cut_at_separator(s: &str) -> &str {
    for (i, c) in s.char_indices() {
        let rest = &s[i..];
        if (c == ':' && !rest.starts_with("://")) || SEPARATORS.iter().any(|sep| rest.starts_with(sep)) {
            return &s[..i];
        }
    }
    s
}
