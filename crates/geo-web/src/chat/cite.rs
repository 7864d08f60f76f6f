//! Splits an answer into plain text and `[S#]` source tags, so the page can turn each tag
//! into a button that shows the source it names. Display only: no HTML is produced, the
//! pieces are rendered as text nodes.

/// One piece of an answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piece {
    /// Text shown as it is.
    Text(String),
    /// A `[S{n}]` tag with its 1-based source number `n`.
    Cite(usize),
}

/// Splits `answer` into text and `[S#]` tags (`S` in either case, 1–4 digits, n ≥ 1). A
/// bracket that is not such a tag stays text. Adjacent text is merged.
pub fn split_citations(answer: &str) -> Vec<Piece> {
    let mut out: Vec<Piece> = Vec::new();
    let mut text = String::new();
    let mut rest = answer;
    while let Some(open) = rest.find('[') {
        let (before, from) = rest.split_at(open);
        text.push_str(before);
        match parse_tag(from) {
            Some((n, len)) => {
                if !text.is_empty() {
                    out.push(Piece::Text(std::mem::take(&mut text)));
                }
                out.push(Piece::Cite(n));
                rest = &from[len..];
            }
            None => {
                text.push('[');
                rest = &from[1..];
            }
        }
    }
    text.push_str(rest);
    if !text.is_empty() {
        out.push(Piece::Text(text));
    }
    out
}

/// `[S12]…` → `Some((12, 5))`: the number and the tag's byte length.
fn parse_tag(s: &str) -> Option<(usize, usize)> {
    let b = s.as_bytes();
    if b.len() < 4 || b[0] != b'[' || !(b[1] == b'S' || b[1] == b's') {
        return None;
    }
    let digits = b[2..].iter().take_while(|c| c.is_ascii_digit()).count();
    if digits == 0 || digits > 4 || b.get(2 + digits) != Some(&b']') {
        return None;
    }
    let n: usize = s[2..2 + digits].parse().ok()?;
    (n >= 1).then_some((n, 3 + digits))
}

#[cfg(test)]
mod tests {
    use super::*;
    use Piece::{Cite, Text};

    #[track_caller]
    fn check(answer: &str, expect: &[Piece]) {
        assert_eq!(split_citations(answer), expect, "{answer}");
    }

    #[test]
    fn tags_and_text() {
        check("", &[]);
        check("plain", &[Text("plain".into())]);
        check("分块 [S1]。", &[Text("分块 ".into()), Cite(1), Text("。".into())]);
        check("[S1][S3]", &[Cite(1), Cite(3)]);
        check("a [s12] b", &[Text("a ".into()), Cite(12), Text(" b".into())]);
        check("[S0] [S] [S1 [x] [S12345]", &[Text("[S0] [S] [S1 [x] [S12345]".into())]);
        check("[[S2]]", &[Text("[".into()), Cite(2), Text("]".into())]);
        check("<b>[S1]</b>", &[Text("<b>".into()), Cite(1), Text("</b>".into())]);
        check("尾巴[", &[Text("尾巴[".into())]);
    }

    #[test]
    fn text_round_trips() {
        for s in ["a [S1] b [S22]", "中文[S3]，[T1]", "[", "[S", "]]["] {
            let back: String = split_citations(s)
                .into_iter()
                .map(|p| match p {
                    Text(t) => t,
                    Cite(n) => format!("[S{n}]"),
                })
                .collect();
            assert_eq!(back.to_lowercase(), s.to_lowercase(), "{s}");
        }
    }
}
