//! The messages sent to DeepSeek `chat/completions`, and the request around them.
//!
//! `build_messages` lays out one request:
//! 1. a system message with the behaviour rules (answer from the numbered sources, cite
//!    them as `[S1]`, say clearly when they do not cover the question, answer in the
//!    question's language);
//! 2. recent *successful* history — only turns whose answer is [`AnswerState::Done`]; a
//!    cancelled, cut-off or failed answer is never resubmitted as if the model had said it.
//!    Whole turns (question + answer, two messages) are taken newest first while the total
//!    stays within [`MAX_HISTORY_MESSAGES`] messages and [`MAX_HISTORY_CHARS`] characters of
//!    question and answer text; the first turn that does not fit ends the selection, so the
//!    oldest turns are dropped first and the kept turns are always the most recent ones
//!    without gaps. History turns carry the bare question, not their earlier sources;
//! 3. the user message: the question, then the numbered source blocks `[S1]`… with the
//!    document name and chunk, or an explicit note that nothing matched.
//!
//! This is a bounded window, not long-term memory or summarisation.

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::bm25::Hit;
use super::stream::AnswerState;
use crate::model::{EngineId, Localized};

/// At most this many history messages (user + assistant) go into a request.
pub const MAX_HISTORY_MESSAGES: usize = 8;
/// At most this many characters of history (questions and answers) go into a request.
pub const MAX_HISTORY_CHARS: usize = 9000;
/// A question may have at most this many characters.
pub const MAX_QUESTION_CHARS: usize = 4000;
/// DeepSeek's OpenAI-compatible streaming endpoint.
pub const CHAT_COMPLETIONS_URL: &str = "https://api.deepseek.com/chat/completions";
/// The path [`chat_url`] appends to a custom base URL.
pub const CHAT_COMPLETIONS_PATH: &str = "/chat/completions";

/// The system message: the behaviour rules, in Chinese with English beside it.
pub const SYSTEM_PROMPT: &str = "你是一个基于资料回答问题的助手。\
You are an assistant that answers questions from the provided sources.\n\
规则 / Rules:\n\
1. 只根据用户消息中编号的资料片段（[S1]、[S2]…）回答，不要编造资料中没有的事实。\
Answer only from the numbered source passages ([S1], [S2], …) in the user message; do not invent facts they do not contain.\n\
2. 每个依据资料的论断后标注来源编号，例如 [S1] 或 [S1][S3]。\
Cite the source number after every claim that relies on a source, e.g. [S1] or [S1][S3].\n\
3. 如果资料没有覆盖这个问题，或没有检索到资料，请明确说明资料中没有相关内容；可以补充一般性知识，但必须标明那不是来自资料。\
If the sources do not cover the question, or none were found, say so clearly; you may add general knowledge only when you label it as not coming from the sources.\n\
4. 使用与问题相同的语言回答，简洁、有条理。\
Answer in the language of the question, concisely and clearly.";

/// Who wrote a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// The behaviour rules.
    System,
    /// The user's question (with sources for the current one).
    User,
    /// An earlier answer.
    Assistant,
}

/// One message of a `chat/completions` request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChatMessage {
    /// Who wrote it.
    pub role: Role,
    /// Its text.
    pub content: String,
}

impl ChatMessage {
    fn new(role: Role, content: impl Into<String>) -> Self {
        ChatMessage { role, content: content.into() }
    }
}

/// An earlier question and its answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Turn {
    /// The question as asked.
    pub question: String,
    /// The answer text (possibly partial).
    pub answer: String,
    /// How the answer ended; only [`AnswerState::Done`] turns are resubmitted.
    pub state: AnswerState,
}

/// Why a request could not be built.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChatError {
    /// The question is empty or only whitespace.
    EmptyQuestion,
    /// The question is longer than [`MAX_QUESTION_CHARS`] characters.
    QuestionTooLong {
        /// Its length in characters.
        chars: usize,
    },
}

impl ChatError {
    /// The user-facing message in both languages.
    pub fn message(&self) -> Localized {
        match self {
            ChatError::EmptyQuestion => Localized::new("请输入问题", "enter a question"),
            ChatError::QuestionTooLong { chars } => Localized::new(
                format!("问题有 {chars} 个字符，超过 {MAX_QUESTION_CHARS} 个字符的上限；请缩短问题"),
                format!("the question has {chars} characters, over the limit of {MAX_QUESTION_CHARS}; shorten it"),
            ),
        }
    }
}

crate::model::localized_error!(ChatError, message);

/// Checks the question: trimmed, non-empty, at most [`MAX_QUESTION_CHARS`] characters.
pub fn validate_question(question: &str) -> Result<&str, ChatError> {
    let q = question.trim();
    if q.is_empty() {
        return Err(ChatError::EmptyQuestion);
    }
    let chars = q.chars().count();
    if chars > MAX_QUESTION_CHARS {
        return Err(ChatError::QuestionTooLong { chars });
    }
    Ok(q)
}

/// The earlier turns that go into the next request (see the module docs), oldest first.
pub fn select_history(history: &[Turn]) -> Vec<&Turn> {
    let mut picked = Vec::new();
    let mut messages = 0;
    let mut chars = 0;
    for turn in history.iter().rev().filter(|t| t.state.is_done()) {
        let turn_chars = turn.question.chars().count() + turn.answer.chars().count();
        if messages + 2 > MAX_HISTORY_MESSAGES || chars + turn_chars > MAX_HISTORY_CHARS {
            break;
        }
        messages += 2;
        chars += turn_chars;
        picked.push(turn);
    }
    picked.reverse();
    picked
}

/// The label of a hit in messages and exports: `[S{n}] name · chunk k (chars a–b)`, with
/// `n` 1-based and `k` the 0-based chunk index plus one.
pub fn source_label(n: usize, hit: &Hit) -> String {
    format!(
        "[S{n}] {} · 第 {} 块 / chunk {} (chars {}–{})",
        hit.source,
        hit.chunk + 1,
        hit.chunk + 1,
        hit.start,
        hit.end
    )
}

/// The note put in place of sources when retrieval found nothing.
pub const NO_SOURCES_NOTE: &str = "（没有检索到与问题相关的资料片段。请明确告诉用户：已载入的资料没有覆盖这个问题。）\n\
(No passage of the loaded documents matched the question. Tell the user clearly that the loaded documents do not cover it.)";

/// Builds the messages of one request (see the module docs).
pub fn build_messages(question: &str, history: &[Turn], hits: &[Hit]) -> Result<Vec<ChatMessage>, ChatError> {
    let question = validate_question(question)?;
    let mut messages = vec![ChatMessage::new(Role::System, SYSTEM_PROMPT)];
    for turn in select_history(history) {
        messages.push(ChatMessage::new(Role::User, turn.question.clone()));
        messages.push(ChatMessage::new(Role::Assistant, turn.answer.clone()));
    }
    let mut user = format!("问题 / Question:\n{question}\n\n资料片段 / Sources:\n");
    if hits.is_empty() {
        user.push_str(NO_SOURCES_NOTE);
    } else {
        for (i, hit) in hits.iter().enumerate() {
            if i > 0 {
                user.push_str("\n\n");
            }
            user.push_str(&source_label(i + 1, hit));
            user.push('\n');
            user.push_str(hit.text.trim_end());
        }
    }
    messages.push(ChatMessage::new(Role::User, user));
    Ok(messages)
}

/// The JSON body of a streaming `chat/completions` request. An empty `model` means DeepSeek's
/// default model; other names are passed through so proxies can offer their own.
pub fn build_request_body(model: &str, messages: &[ChatMessage]) -> Value {
    let model = crate::provider::model_or_default(EngineId::Deepseek, model);
    json!({
        "model": model,
        "messages": messages,
        "stream": true,
    })
}

/// DeepSeek's API origin for the docs chat.
pub const CHAT_DEFAULT_BASE: &str = "https://api.deepseek.com";

/// The request URL under the one base-URL rule ([`crate::provider::url::endpoint_url`]):
/// [`CHAT_COMPLETIONS_URL`] without a custom base; a base whose path already ends in
/// `/chat/completions` as it is; otherwise `/chat/completions` appended to the base's path
/// (before any query string).
pub fn chat_endpoint(base: Option<&crate::provider::url::BaseUrl>) -> String {
    crate::provider::url::endpoint_url(base, CHAT_DEFAULT_BASE, CHAT_COMPLETIONS_PATH).into()
}

/// [`chat_endpoint`] for a base as typed; text that
/// [`crate::provider::url::parse_base_url`] refuses gives the default URL (shells check
/// the base first).
pub fn chat_url(custom_base: Option<&str>) -> String {
    let base = crate::provider::url::parse_base_url(custom_base.unwrap_or("")).ok().flatten();
    chat_endpoint(base.as_ref())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn turn(q: &str, a: &str, state: AnswerState) -> Turn {
        Turn { question: q.into(), answer: a.into(), state }
    }

    fn hit(source: &str, chunk: usize, text: &str) -> Hit {
        Hit {
            doc: 0,
            source: source.into(),
            chunk,
            start: chunk * 780,
            end: chunk * 780 + 900,
            score: 1.0,
            text: text.into(),
        }
    }

    #[test]
    fn question_is_checked() {
        assert_eq!(build_messages("  \n ", &[], &[]), Err(ChatError::EmptyQuestion));
        let long = "问".repeat(4001);
        let err = build_messages(&long, &[], &[]).unwrap_err();
        assert_eq!(err, ChatError::QuestionTooLong { chars: 4001 });
        assert_eq!(err.to_string(), "the question has 4001 characters, over the limit of 4000; shorten it");
        assert_eq!(err.message().zh, "问题有 4001 个字符，超过 4000 个字符的上限；请缩短问题");
        assert!(build_messages(&"问".repeat(4000), &[], &[]).is_ok());
        assert_eq!(validate_question("  hi \n"), Ok("hi"));
    }

    #[test]
    fn layout_system_history_question_sources() {
        let history = [turn("q1", "a1", AnswerState::Done)];
        let msgs = build_messages(
            "什么是 RAG?",
            &history,
            &[hit("rag.md", 0, "RAG 是检索增强生成。\n"), hit("geo.md", 2, "GEO")],
        )
        .unwrap();
        let roles: Vec<Role> = msgs.iter().map(|m| m.role).collect();
        assert_eq!(roles, [Role::System, Role::User, Role::Assistant, Role::User]);
        assert_eq!(msgs[0].content, SYSTEM_PROMPT);
        assert_eq!((msgs[1].content.as_str(), msgs[2].content.as_str()), ("q1", "a1"));
        assert_eq!(
            msgs[3].content,
            "问题 / Question:\n什么是 RAG?\n\n资料片段 / Sources:\n\
             [S1] rag.md · 第 1 块 / chunk 1 (chars 0–900)\nRAG 是检索增强生成。\n\n\
             [S2] geo.md · 第 3 块 / chunk 3 (chars 1560–2460)\nGEO"
        );
    }

    #[test]
    fn no_hits_gives_an_explicit_note() {
        let msgs = build_messages("q", &[], &[]).unwrap();
        assert_eq!(msgs.len(), 2);
        assert!(msgs[1].content.ends_with(NO_SOURCES_NOTE));
        assert!(SYSTEM_PROMPT.contains("[S1]"));
    }

    /// History → the questions that are resubmitted, oldest first.
    #[track_caller]
    fn check_history(history: &[Turn], expect: &[&str]) {
        let got: Vec<&str> = select_history(history).iter().map(|t| t.question.as_str()).collect();
        assert_eq!(got, expect);
        let msgs = build_messages("now", history, &[]).unwrap();
        assert_eq!(msgs.len(), 2 + 2 * expect.len());
    }

    #[test]
    fn only_recent_successful_turns_within_the_limits() {
        use AnswerState::*;
        check_history(&[], &[]);
        check_history(
            &[
                turn("ok", "a", Done),
                turn("cancelled", "part", Cancelled),
                turn("timeout", "p", Timeout),
                turn("failed", "", Error("x".into())),
                turn("cut", "p", Length),
                turn("net", "p", NetworkError("x".into())),
            ],
            &["ok"],
        );
        // Eight messages = four turns; the oldest go first.
        let many: Vec<Turn> = (1..=6).map(|i| turn(&format!("q{i}"), "a", Done)).collect();
        check_history(&many, &["q3", "q4", "q5", "q6"]);
        // 9000 characters: 4000 + 4000 fit, a third 4000 does not.
        let big = "x".repeat(3999);
        check_history(&[turn("old", &big, Done), turn("mid", &big, Done), turn("new", &big, Done)], &["mid", "new"]);
        check_history(&[turn("q", &"y".repeat(8999), Done)], &["q"]);
        check_history(&[turn("q", &"y".repeat(9000), Done)], &[]);
        // A turn that does not fit ends the selection even if an older small one would fit.
        check_history(
            &[turn("small", "a", Done), turn("huge", &"z".repeat(9000), Done), turn("last", "a", Done)],
            &["last"],
        );
        // Failed turns between successful ones are skipped, not counted.
        check_history(&[turn("a", "1", Done), turn("b", "", Cancelled), turn("c", "1", Done)], &["a", "c"]);
    }

    #[test]
    fn request_body_streams() {
        let msgs = build_messages("q", &[], &[]).unwrap();
        let body = build_request_body("", &msgs);
        assert_eq!(body["model"], "deepseek-v4-flash");
        assert_eq!(body["stream"], true);
        assert_eq!(body["messages"][0]["role"], "system");
        assert_eq!(body["messages"][1]["role"], "user");
        assert_eq!(build_request_body("deepseek-v4-pro", &msgs)["model"], "deepseek-v4-pro");
    }

    #[track_caller]
    fn check_url(base: Option<&str>, expect: &str) {
        assert_eq!(chat_url(base), expect, "base {base:?}");
    }

    #[test]
    fn url_rule() {
        check_url(None, "https://api.deepseek.com/chat/completions");
        check_url(Some("  "), "https://api.deepseek.com/chat/completions");
        check_url(Some("http://127.0.0.1:8080/chat/completions"), "http://127.0.0.1:8080/chat/completions");
        check_url(Some("http://127.0.0.1:8080"), "http://127.0.0.1:8080/chat/completions");
        check_url(Some("https://proxy.example/v1/"), "https://proxy.example/v1/chat/completions");
        check_url(Some("https://proxy.example/v1?t=1"), "https://proxy.example/v1/chat/completions?t=1");
        assert_eq!(chat_url(None), CHAT_COMPLETIONS_URL);
    }
}
