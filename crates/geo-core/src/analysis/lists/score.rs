//! Scoring: what makes a list item look like a recommended company (a tracked target, a
//! company-like word, a name-like length) or like a section heading (a generic title), and
//! which unmatched titles are reported as `otherEntities`.

use crate::model::ListItem;
use crate::text::normalize_for_match;

/// Score of an item that names a tracked target.
pub const SCORE_TARGET: i64 = 5;
/// Score of a title with a company-like word.
pub const SCORE_COMPANY_WORD: i64 = 2;
/// Score of a title of 2–40 characters.
pub const SCORE_TITLE_LENGTH: i64 = 1;
/// Score of a generic title such as 总结 or Tips (a penalty).
pub const SCORE_GENERIC: i64 = -5;

/// Company-like words in Chinese (substring match).
#[rustfmt::skip]
pub const COMPANY_WORDS_ZH: &[&str] = &[
    "公司", "科技", "营销", "集团", "股份", "有限", "技术", "网络", "信息", "传媒", "广告", "咨询", "数字", "智能", "软件",
    "工作室", "实验室", "机构", "平台", "品牌", "互联网",
];

/// Company-like words in English (whole ASCII words, case-insensitive).
#[rustfmt::skip]
pub const COMPANY_WORDS_EN: &[&str] = &[
    "inc", "ltd", "llc", "co", "corp", "corporation", "company", "gmbh", "plc", "group", "geo", "ai", "seo",
    "technologies", "technology", "tech", "labs", "lab", "software", "agency", "media", "digital", "marketing",
    "studio", "solutions", "systems", "cloud", "io", "com", "analytics", "ventures", "partners", "holdings",
];

/// Generic section titles in Chinese: a title equal to one, or of at most
/// [`GENERIC_ZH_MAX_CHARS`] characters starting or ending with one, is generic.
#[rustfmt::skip]
pub const GENERIC_WORDS_ZH: &[&str] = &[
    "总结", "小结", "建议", "结论", "来源", "参考", "优势", "劣势", "优点", "缺点", "注意事项", "注意", "提示", "说明",
    "备注", "概述", "简介", "背景", "特点", "亮点", "价格", "费用", "收费", "案例", "步骤", "方法", "原因", "理由",
    "风险", "局限", "其他", "选择", "对比", "评价", "总评", "适用", "适合", "联系方式", "官网", "地址", "问题", "方案",
    "要点", "综上",
];

/// Longest Chinese title that can be generic by prefix or suffix (e.g. 选择建议, 核心优势).
pub const GENERIC_ZH_MAX_CHARS: usize = 6;

/// Generic words in English: a title of at most four words containing one is generic.
#[rustfmt::skip]
pub const GENERIC_WORDS_EN: &[&str] = &[
    "summary", "conclusion", "conclusions", "tip", "tips", "pros", "cons", "note", "notes", "source", "sources",
    "reference", "references", "advantages", "disadvantages", "benefits", "drawbacks", "overview", "introduction",
    "recommendation", "recommendations", "considerations", "pricing", "price", "cost", "features", "strengths",
    "weaknesses", "limitations", "caveats", "verdict", "takeaways", "faq", "steps", "step", "why", "how",
    "example", "examples", "background", "criteria", "comparison", "thoughts", "tldr",
];

/// At most this many `otherEntities` are kept.
pub const MAX_OTHER_ENTITIES: usize = 20;

fn ascii_words(lower: &str) -> Vec<&str> {
    lower.split(|c: char| !c.is_ascii_alphanumeric()).filter(|w| !w.is_empty()).collect()
}

fn has_company_word(title: &str) -> bool {
    let lower = title.to_lowercase();
    COMPANY_WORDS_ZH.iter().any(|w| lower.contains(w))
        || ascii_words(&lower).iter().any(|w| COMPANY_WORDS_EN.contains(w))
}

fn is_generic(title: &str) -> bool {
    let lower = title.to_lowercase();
    let t = lower.trim().trim_end_matches(|c: char| c.is_ascii_punctuation() || "：，。！？；、".contains(c));
    let len = t.chars().count();
    let zh = GENERIC_WORDS_ZH
        .iter()
        .any(|w| t == *w || (len <= GENERIC_ZH_MAX_CHARS && (t.starts_with(w) || t.ends_with(w))));
    let words = t.split_whitespace().count();
    let en = words <= 4 && ascii_words(t).iter().any(|w| GENERIC_WORDS_EN.contains(w));
    zh || en || t.starts_with("bottom line") || t.starts_with("final thoughts")
}

fn title_len_ok(title: &str) -> bool {
    (2..=40).contains(&title.chars().count())
}

pub(super) fn item_score(title: &str, matched: bool) -> i64 {
    let mut score = 0;
    if matched {
        score += SCORE_TARGET;
    }
    if has_company_word(title) {
        score += SCORE_COMPANY_WORD;
    }
    if title_len_ok(title) {
        score += SCORE_TITLE_LENGTH;
    }
    if is_generic(title) {
        score += SCORE_GENERIC;
    }
    score
}

/// A sentence rather than a name: sentence punctuation, a long run of words, or a final
/// full stop after more than four words (`Acme Inc.` stays a name).
fn is_sentence(title: &str) -> bool {
    let words = title.split_whitespace().count();
    title.contains(['。', '！', '？', '!', '?', '；', ';', '…', '，'])
        || words > 6
        || (words > 4 && title.ends_with('.'))
}

fn looks_like_entity(title: &str) -> bool {
    title_len_ok(title) && title.chars().any(char::is_alphabetic) && !is_generic(title) && !is_sentence(title)
}

/// Company-like titles of unmatched items, but only from a list that is about entities:
/// one where at least one item names a tracked target or carries a company word. A list of
/// metrics or steps ("提及率", "内容优化") is a parsed list, yet its titles are no candidates
/// for new competitors.
pub(super) fn other_entities(items: &[ListItem]) -> Vec<String> {
    let about_entities = items.iter().any(|i| i.matched_target_id.is_some() || has_company_word(&i.title));
    if !about_entities {
        return Vec::new();
    }
    let mut out: Vec<String> = Vec::new();
    let mut seen: Vec<String> = Vec::new();
    for item in items {
        if out.len() >= MAX_OTHER_ENTITIES {
            break;
        }
        if item.matched_target_id.is_some() || !looks_like_entity(&item.title) {
            continue;
        }
        let key = normalize_for_match(&item.title);
        if !seen.contains(&key) {
            seen.push(key);
            out.push(item.title.clone());
        }
    }
    out
}
