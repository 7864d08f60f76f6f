//! `clean_answer` (seed §5.1): drops a planning preamble such as "我先搜索一下" before the answer.
//!
//! A heuristic, not a semantic judgement: the first paragraph (paragraphs are split on
//! blank lines) is dropped when it is shorter than 400 characters, starts with a planning
//! opener and mentions searching. The rest is kept as written.

/// Openers that announce a plan (compared case-insensitively, after leading whitespace).
pub const PLANNING_OPENERS: &[&str] = &[
    "i'll",
    "i will",
    "let me",
    "i'm going to",
    "i am going to",
    "first, i'll",
    "我先",
    "让我",
    "我将",
    "我会先",
    "首先，我",
    "好的，我先",
    "好的，让我",
];

/// Words that say the paragraph is about searching.
pub const SEARCH_WORDS: &[&str] =
    &["search", "look up", "looking up", "research", "查询", "搜索", "检索", "查找", "查一下", "搜一下"];

/// Paragraphs at least this long (in characters) are never treated as a preamble.
pub const MAX_PREAMBLE_CHARS: usize = 400;

fn split_paragraphs(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut blank_run = false;
    let mut para_end = 0;
    let mut pos = 0;
    for line in text.split_inclusive('\n') {
        let is_blank = line.trim().is_empty();
        if is_blank {
            if !blank_run && para_end > start {
                out.push(&text[start..para_end]);
            }
            blank_run = true;
            start = pos + line.len();
            para_end = start;
        } else {
            blank_run = false;
            para_end = pos + line.len();
        }
        pos += line.len();
    }
    if para_end > start {
        out.push(&text[start..para_end]);
    }
    out
}

/// True when `paragraph` looks like a planning preamble.
pub fn is_planning_preamble(paragraph: &str) -> bool {
    let p = paragraph.trim();
    if p.is_empty() || p.chars().count() >= MAX_PREAMBLE_CHARS {
        return false;
    }
    let lower = p.to_lowercase().replace('’', "'");
    PLANNING_OPENERS.iter().any(|o| lower.starts_with(o)) && SEARCH_WORDS.iter().any(|w| lower.contains(w))
}

/// The answer without a leading planning paragraph, trimmed. Empty means "no answer".
pub fn clean_answer(raw: &str) -> String {
    let paragraphs = split_paragraphs(raw);
    match paragraphs.first() {
        Some(first) if is_planning_preamble(first) => paragraphs[1..].join("\n\n").trim().to_string(),
        _ => raw.trim().to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn check(input: &str, expect: &str) {
        assert_eq!(clean_answer(input), expect);
    }

    #[test]
    fn drops_planning_paragraph() {
        check("我先搜索一下相关资料。\n\n推荐以下三家：\n1. A", "推荐以下三家：\n1. A");
        check("Let me search for that.\n\nHere are the tools.", "Here are the tools.");
        check("I’ll look up the latest data.\n\n\n\nAnswer.", "Answer.");
    }

    #[test]
    fn keeps_real_first_paragraphs() {
        check("我先说结论：A 最好。\n\n理由如下。", "我先说结论：A 最好。\n\n理由如下。");
        check("Searching is hard.\n\nMore.", "Searching is hard.\n\nMore.");
        let long = format!("Let me search {}\n\nRest", "x".repeat(400));
        check(&long, long.trim());
    }

    #[test]
    fn preamble_only_becomes_empty() {
        check("让我搜索一下最新的信息。", "");
        check("   ", "");
    }
}
