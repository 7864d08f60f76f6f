//! Line shapes of a list (the module doc of `lists` lists them): a numbered line and its
//! marker style, a bullet, a heading, a thematic break, a fence of a code block, plain text.

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) enum Marker {
    Dot,
    Ideographic,
    Paren,
    FullParen,
    Enclosed,
    FullEnclosed,
}

/// Marker style of a numbered line; `heading` is the heading level, 0 for a plain line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) struct Style {
    pub(super) marker: Marker,
    pub(super) heading: u8,
}

#[derive(Debug)]
pub(super) enum Kind<'a> {
    Blank,
    Break,
    Heading(u8),
    Numbered { n: u32, style: Style, content: &'a str },
    Bullet(&'a str),
    Text,
}

pub(super) fn indent_of(line: &str) -> usize {
    let mut width = 0;
    for b in line.bytes() {
        match b {
            b' ' => width += 1,
            b'\t' => width += 4,
            _ => break,
        }
    }
    width
}

pub(super) fn classify(line: &str) -> Kind<'_> {
    let s = line.trim();
    if s.is_empty() {
        return Kind::Blank;
    }
    if is_thematic_break(s) {
        return Kind::Break;
    }
    let hashes = s.len() - s.trim_start_matches('#').len();
    if hashes > 0 {
        let rest = &s[hashes..];
        if hashes <= 6 && (rest.is_empty() || rest.starts_with(char::is_whitespace)) {
            let rest = rest.trim_start();
            if let Some((n, marker, content)) = parse_numbered(rest) {
                return Kind::Numbered { n, style: Style { marker, heading: hashes as u8 }, content };
            }
            return Kind::Heading(hashes as u8);
        }
        return Kind::Text;
    }
    if let Some((n, marker, content)) = parse_numbered(s) {
        return Kind::Numbered { n, style: Style { marker, heading: 0 }, content };
    }
    if let Some(content) = parse_bullet(s) {
        return Kind::Bullet(content);
    }
    Kind::Text
}

fn is_thematic_break(s: &str) -> bool {
    let mut mark = None;
    let mut count = 0;
    for c in s.chars() {
        match c {
            '-' | '*' | '_' => {
                if mark.is_some_and(|m| m != c) {
                    return false;
                }
                mark = Some(c);
                count += 1;
            }
            ' ' | '\t' => {}
            _ => return false,
        }
    }
    count >= 3
}

/// `1.` `1、` `1)` `1）` `(1)` `（1）`, optionally wrapped in `**`/`__`; returns the content.
fn parse_numbered(s: &str) -> Option<(u32, Marker, &str)> {
    let mut rest = s;
    let mut bold = false;
    for b in ["**", "__"] {
        if let Some(r) = rest.strip_prefix(b) {
            rest = r;
            bold = true;
            break;
        }
    }
    let mut enclosed = None;
    if let Some(r) = rest.strip_prefix('(') {
        rest = r;
        enclosed = Some(Marker::Enclosed);
    } else if let Some(r) = rest.strip_prefix('（') {
        rest = r;
        enclosed = Some(Marker::FullEnclosed);
    }
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 || digits > 3 {
        return None;
    }
    let n: u32 = rest[..digits].parse().ok()?;
    if n == 0 {
        return None;
    }
    rest = &rest[digits..];
    let marker = if let Some(m) = enclosed {
        rest = rest.strip_prefix(')').or_else(|| rest.strip_prefix('）'))?;
        m
    } else {
        let c = rest.chars().next()?;
        let m = match c {
            '.' => Marker::Dot,
            '、' => Marker::Ideographic,
            ')' => Marker::Paren,
            '）' => Marker::FullParen,
            _ => return None,
        };
        rest = &rest[c.len_utf8()..];
        if matches!(m, Marker::Dot | Marker::Paren) {
            match rest.chars().next() {
                None => {}
                Some(c) if c.is_whitespace() || c == '*' || c == '_' || !c.is_ascii() => {}
                Some(_) => return None,
            }
        }
        m
    };
    if bold {
        if let Some(r) = rest.strip_prefix("**").or_else(|| rest.strip_prefix("__")) {
            rest = r;
        }
    }
    Some((n, marker, rest.trim()))
}

fn parse_bullet(s: &str) -> Option<&str> {
    let c = s.chars().next()?;
    let rest = &s[c.len_utf8()..];
    match c {
        '-' | '*' | '+' if rest.starts_with(char::is_whitespace) => Some(rest.trim()),
        '•' | '·' | '●' | '▪' => Some(rest.trim()),
        _ => None,
    }
}

pub(super) fn fence_marker(s: &str) -> Option<(char, usize)> {
    let t = s.trim_start();
    let c = t.chars().next()?;
    if c != '`' && c != '~' {
        return None;
    }
    let n = t.chars().take_while(|&x| x == c).count();
    (n >= 3).then_some((c, n))
}
