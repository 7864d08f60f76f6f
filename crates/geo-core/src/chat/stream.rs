//! The state machine of one streamed DeepSeek `chat/completions` answer.
//!
//! [`ChatStream`] takes the response body's bytes (through its own
//! [`SseDecoder`]), reads each `chat.completion.chunk`, and hands
//! back text increments for the screen. When the transport ends — normally, by the user's
//! "stop", by the 120 s timeout or by a network failure — [`ChatStream::finish`] decides
//! the answer's final [`AnswerState`].
//!
//! The rule that matters: an answer is [`AnswerState::Done`] only when the provider said it
//! finished (`data: [DONE]` or `finish_reason: "stop"`) *and* it has text. Partial text is
//! always kept, but a cut-off, cancelled, timed-out or truncated answer is never labelled
//! complete, and only `Done` answers go back into the history (see
//! [`super::messages::build_messages`]).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::sse::{SseDecoder, SseEvent};
use crate::limits::MAX_CHAT_ANSWER_BYTES;
use crate::model::{Lang, Localized};

/// Where an answer stands. `Streaming` while bytes arrive; every other value is final.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", content = "message", rename_all = "snake_case")]
pub enum AnswerState {
    /// Text is still arriving.
    Streaming,
    /// The provider finished normally and the answer has text.
    Done,
    /// The answer hit the output token limit (`finish_reason: "length"`); the text is partial.
    Length,
    /// The provider's content filter stopped the answer (`finish_reason: "content_filter"`).
    ContentFilter,
    /// The user stopped the answer.
    Cancelled,
    /// The request took longer than the time limit.
    Timeout,
    /// The connection failed or closed early; the message says how.
    NetworkError(String),
    /// The provider reported an error, or sent something unusable; the message says what.
    Error(String),
}

impl AnswerState {
    /// The `data-state` value of the `chat-answer` element (ui-testids.md):
    /// `streaming` | `done` | `cancelled` | `timeout` | `error`.
    ///
    /// The contract has no separate value for a truncated, filtered or disconnected answer,
    /// so `Length`, `ContentFilter`, `NetworkError` and `Error` are all `error`: none of them
    /// is a complete answer. [`AnswerState::code`] tells them apart.
    pub fn as_str(&self) -> &'static str {
        match self {
            AnswerState::Streaming => "streaming",
            AnswerState::Done => "done",
            AnswerState::Cancelled => "cancelled",
            AnswerState::Timeout => "timeout",
            AnswerState::Length | AnswerState::ContentFilter | AnswerState::NetworkError(_) | AnswerState::Error(_) => {
                "error"
            }
        }
    }

    /// A finer code than [`AnswerState::as_str`]: `streaming`, `done`, `length`,
    /// `content_filter`, `cancelled`, `timeout`, `network_error` or `error`.
    pub fn code(&self) -> &'static str {
        match self {
            AnswerState::Streaming => "streaming",
            AnswerState::Done => "done",
            AnswerState::Length => "length",
            AnswerState::ContentFilter => "content_filter",
            AnswerState::Cancelled => "cancelled",
            AnswerState::Timeout => "timeout",
            AnswerState::NetworkError(_) => "network_error",
            AnswerState::Error(_) => "error",
        }
    }

    /// Whether the answer is complete (the only state that counts as successful history).
    pub fn is_done(&self) -> bool {
        matches!(self, AnswerState::Done)
    }

    /// A user-facing description of the state in both languages.
    pub fn message(&self) -> Localized {
        match self {
            AnswerState::Streaming => Localized::new("正在生成回答…", "generating the answer…"),
            AnswerState::Done => Localized::new("回答完成", "answer complete"),
            AnswerState::Length => Localized::new(
                "回答达到输出长度上限，以下为不完整内容；可缩小问题范围后重试",
                "the answer hit the output length limit and is incomplete; narrow the question and try again",
            ),
            AnswerState::ContentFilter => Localized::new(
                "回答被内容安全策略中止，以下为不完整内容；请换一种问法",
                "the provider's content filter stopped the answer and it is incomplete; rephrase the question",
            ),
            AnswerState::Cancelled => {
                Localized::new("已停止生成，以下为不完整内容", "generation stopped by you; the answer is incomplete")
            }
            AnswerState::Timeout => Localized::new(
                "请求超时，以下为不完整内容；请稍后重试",
                "the request timed out and the answer is incomplete; try again later",
            ),
            AnswerState::NetworkError(msg) => Localized::new(
                format!("网络连接中断，以下为不完整内容；请检查网络后重试（{msg}）"),
                format!("the connection failed and the answer is incomplete; check the network and try again ({msg})"),
            ),
            AnswerState::Error(msg) => Localized::new(format!("回答失败：{msg}"), format!("the answer failed: {msg}")),
        }
    }

    /// [`AnswerState::message`] in `lang`.
    pub fn describe(&self, lang: Lang) -> String {
        self.message().get(lang).to_string()
    }
}

/// How the transport ended, as seen by the shell that performed the request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StreamEnd {
    /// The response body ended.
    Eof,
    /// The user pressed stop and the request was aborted.
    Cancelled,
    /// The time limit passed and the request was aborted.
    Timeout,
    /// The connection failed; the message is the transport's.
    NetworkError(String),
}

/// Token usage of a `chat/completions` request (the last chunk's `usage`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChatUsage {
    /// `prompt_tokens`.
    #[serde(default)]
    pub prompt_tokens: u64,
    /// `completion_tokens` (reasoning included).
    #[serde(default)]
    pub completion_tokens: u64,
    /// `total_tokens`.
    #[serde(default)]
    pub total_tokens: u64,
    /// `prompt_cache_hit_tokens`.
    #[serde(default)]
    pub prompt_cache_hit_tokens: u64,
    /// `prompt_cache_miss_tokens`.
    #[serde(default)]
    pub prompt_cache_miss_tokens: u64,
    /// `completion_tokens_details.reasoning_tokens`.
    #[serde(default)]
    pub reasoning_tokens: u64,
}

impl ChatUsage {
    /// Reads a `usage` object; `None` for `null` or a non-object.
    pub fn from_json(v: &Value) -> Option<ChatUsage> {
        let o = v.as_object()?;
        let n = |k: &str| o.get(k).and_then(Value::as_u64).unwrap_or(0);
        Some(ChatUsage {
            prompt_tokens: n("prompt_tokens"),
            completion_tokens: n("completion_tokens"),
            total_tokens: n("total_tokens"),
            prompt_cache_hit_tokens: n("prompt_cache_hit_tokens"),
            prompt_cache_miss_tokens: n("prompt_cache_miss_tokens"),
            reasoning_tokens: o
                .get("completion_tokens_details")
                .and_then(|d| d.get("reasoning_tokens"))
                .and_then(Value::as_u64)
                .unwrap_or(0),
        })
    }
}

/// A piece of text to append on screen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChatDelta {
    /// Answer text (`delta.content`).
    Answer(String),
    /// Reasoning text (`delta.reasoning_content`), kept apart from the answer.
    Reasoning(String),
}

/// The final result of one streamed answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChatOutcome {
    /// All answer text received (partial unless `state` is `Done`).
    pub answer: String,
    /// All reasoning text received.
    pub reasoning: String,
    /// The final state (never `Streaming`).
    pub state: AnswerState,
    /// Token usage when the provider sent it.
    pub usage: Option<ChatUsage>,
    /// The last `finish_reason` the provider sent.
    pub finish_reason: Option<String>,
}

/// The state machine of one streamed answer (see the module docs).
#[derive(Debug, Clone, Default)]
pub struct ChatStream {
    decoder: SseDecoder,
    answer: String,
    reasoning: String,
    finish_reason: Option<String>,
    done_marker: bool,
    error: Option<String>,
    usage: Option<ChatUsage>,
}

impl ChatStream {
    /// A stream before its first byte.
    pub fn new() -> Self {
        Self::default()
    }

    /// Feeds response-body bytes; returns the text increments they complete.
    pub fn push(&mut self, bytes: &[u8]) -> Vec<ChatDelta> {
        let events = self.decoder.push(bytes);
        self.apply_all(events)
    }

    /// Applies one decoded event; returns its text increments.
    pub fn apply(&mut self, event: &SseEvent) -> Vec<ChatDelta> {
        let mut deltas = Vec::new();
        if self.error.is_some() {
            return deltas;
        }
        match event {
            SseEvent::Comment(_) => {}
            SseEvent::Done => self.done_marker = true,
            SseEvent::TooLong { limit } => {
                self.error = Some(format!(
                    "the provider sent a line or event longer than {} MiB, so the stream was stopped; try again",
                    limit / (1024 * 1024)
                ));
            }
            SseEvent::Message { data, .. } => self.apply_data(data, &mut deltas),
        }
        deltas
    }

    fn apply_all(&mut self, events: Vec<SseEvent>) -> Vec<ChatDelta> {
        let mut deltas = Vec::new();
        for e in &events {
            deltas.extend(self.apply(e));
        }
        deltas
    }

    fn apply_data(&mut self, data: &str, deltas: &mut Vec<ChatDelta>) {
        let v: Value = match serde_json::from_str(data) {
            Ok(v) => v,
            Err(e) => {
                self.error = Some(format!("the provider sent an unreadable chunk ({e}); try again"));
                return;
            }
        };
        if let Some(err) = v.get("error") {
            self.error = Some(provider_error_message(err));
            return;
        }
        if let Some(usage) = v.get("usage").and_then(ChatUsage::from_json) {
            self.usage = Some(usage);
        }
        let Some(choice) = v.get("choices").and_then(|c| c.get(0)) else {
            return;
        };
        if let Some(delta) = choice.get("delta") {
            let (r_len, c_len) = (
                delta.get("reasoning_content").and_then(Value::as_str).map_or(0, str::len),
                delta.get("content").and_then(Value::as_str).map_or(0, str::len),
            );
            if self.answer.len() + c_len > MAX_CHAT_ANSWER_BYTES || self.reasoning.len() + r_len > MAX_CHAT_ANSWER_BYTES
            {
                self.error = Some(format!(
                    "the answer grew past {} MiB, so the stream was stopped; ask a narrower question",
                    MAX_CHAT_ANSWER_BYTES / (1024 * 1024)
                ));
                return;
            }
            if let Some(r) = delta.get("reasoning_content").and_then(Value::as_str) {
                if !r.is_empty() {
                    self.reasoning.push_str(r);
                    deltas.push(ChatDelta::Reasoning(r.to_string()));
                }
            }
            if let Some(c) = delta.get("content").and_then(Value::as_str) {
                if !c.is_empty() {
                    self.answer.push_str(c);
                    deltas.push(ChatDelta::Answer(c.to_string()));
                }
            }
        }
        if let Some(reason) = choice.get("finish_reason").and_then(Value::as_str) {
            self.finish_reason = Some(reason.to_string());
        }
    }

    /// The answer text so far.
    pub fn answer(&self) -> &str {
        &self.answer
    }

    /// The reasoning text so far.
    pub fn reasoning(&self) -> &str {
        &self.reasoning
    }

    /// The state the answer would have if the body ended now, or `Streaming` while the
    /// provider has neither finished nor failed.
    pub fn state(&self) -> AnswerState {
        self.terminal_state().unwrap_or(AnswerState::Streaming)
    }

    /// The state decided by the stream itself (an error, a finish reason or `[DONE]`).
    fn terminal_state(&self) -> Option<AnswerState> {
        if let Some(e) = &self.error {
            return Some(AnswerState::Error(e.clone()));
        }
        let state = match self.finish_reason.as_deref() {
            Some("stop") => self.done_or_empty(),
            Some("length") => AnswerState::Length,
            Some("content_filter") => AnswerState::ContentFilter,
            Some("insufficient_system_resource") => AnswerState::Error(
                "the provider ran out of capacity and interrupted the answer; try again in a moment".into(),
            ),
            Some(other) => {
                AnswerState::Error(format!("the answer ended with an unexpected finish reason `{other}`; try again"))
            }
            None if self.done_marker => self.done_or_empty(),
            None => return None,
        };
        Some(state)
    }

    fn done_or_empty(&self) -> AnswerState {
        if self.answer.trim().is_empty() {
            AnswerState::Error("the model returned an empty answer; try again or rephrase the question".into())
        } else {
            AnswerState::Done
        }
    }

    /// Ends the stream. What the stream itself said (an error, a finish reason, `[DONE]`)
    /// decides first; otherwise `how` does: `Eof` without an end marker is a
    /// `NetworkError("connection closed before the answer finished")`.
    pub fn finish(mut self, how: StreamEnd) -> ChatOutcome {
        let events = if how == StreamEnd::Eof { self.decoder.finish() } else { Vec::new() };
        self.apply_all(events);
        let state = match self.terminal_state() {
            Some(state) => state,
            None => match how {
                StreamEnd::Eof => AnswerState::NetworkError("connection closed before the answer finished".into()),
                StreamEnd::Cancelled => AnswerState::Cancelled,
                StreamEnd::Timeout => AnswerState::Timeout,
                StreamEnd::NetworkError(msg) => AnswerState::NetworkError(msg),
            },
        };
        ChatOutcome {
            answer: self.answer,
            reasoning: self.reasoning,
            state,
            usage: self.usage,
            finish_reason: self.finish_reason,
        }
    }
}

/// Reads an OpenAI-style `error` object (`{"message", "type", "code"}`) into one line.
fn provider_error_message(err: &Value) -> String {
    let message = err.get("message").and_then(Value::as_str).or_else(|| err.as_str()).unwrap_or("unknown error");
    match err.get("type").and_then(Value::as_str) {
        Some(t) => format!("the provider reported an error: {message} ({t})"),
        None => format!("the provider reported an error: {message}"),
    }
}

/// The answer state for a non-200 HTTP response of `chat/completions`, from its status
/// and body (DeepSeek's error table: 400, 401, 402, 422, 429, 500, 503).
pub fn http_error_state(status: u16, body: &str) -> AnswerState {
    let detail = serde_json::from_str::<Value>(body)
        .ok()
        .and_then(|v| v.get("error").and_then(|e| e.get("message")).and_then(Value::as_str).map(str::to_string))
        .unwrap_or_else(|| body.trim().chars().take(300).collect());
    let advice = match status {
        400 | 422 => "the request was rejected; check the model name and the question",
        401 => "authentication failed; check the api key",
        402 => "insufficient balance; top up the deepseek account",
        429 => "rate limit reached; wait a moment and try again",
        500 => "the provider had a server error; try again shortly",
        503 => "the provider is overloaded; try again shortly",
        _ => "the request failed; try again",
    };
    if detail.is_empty() {
        AnswerState::Error(format!("http {status}: {advice}"))
    } else {
        AnswerState::Error(format!("http {status}: {advice} ({detail})"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chunk(delta: &str, finish: &str) -> String {
        format!(
            "data: {{\"object\":\"chat.completion.chunk\",\"choices\":[{{\"index\":0,\"delta\":{delta},\"finish_reason\":{finish}}}]}}\n\n"
        )
    }

    /// Body, how it ended → expected (answer, state).
    #[track_caller]
    fn check(body: &str, how: StreamEnd, answer: &str, state: AnswerState) {
        let mut s = ChatStream::new();
        s.push(body.as_bytes());
        let out = s.finish(how);
        assert_eq!((out.answer.as_str(), out.state), (answer, state), "body {body:?}");
    }

    /// Finding 9: an answer that never ends stops at its cap as an error, keeping what came
    /// before the cap; an endless SSE line is an error too, not a 2 GB buffer.
    #[test]
    fn endless_answers_and_lines_stop_at_their_caps() {
        let piece = "x".repeat(64 * 1024);
        let one = chunk(&format!(r#"{{"content":"{piece}"}}"#), "null");
        let mut s = ChatStream::new();
        for _ in 0..(MAX_CHAT_ANSWER_BYTES / piece.len() + 3) {
            s.push(one.as_bytes());
            assert!(s.answer().len() <= MAX_CHAT_ANSWER_BYTES);
        }
        let out = s.finish(StreamEnd::Eof);
        assert_eq!(out.answer.len(), MAX_CHAT_ANSWER_BYTES);
        assert!(matches!(&out.state, AnswerState::Error(m) if m.contains("4 MiB")), "{:?}", out.state);

        let mut s = ChatStream::new();
        s.push(b"data: ");
        for _ in 0..20 {
            s.push(piece.as_bytes());
        }
        let out = s.finish(StreamEnd::Eof);
        assert!(matches!(&out.state, AnswerState::Error(m) if m.contains("1 MiB")), "{:?}", out.state);
    }

    #[test]
    fn final_state_rules() {
        let hi = chunk(r#"{"content":"hi"}"#, "null");
        let stop = chunk(r#"{"content":""}"#, r#""stop""#);
        let done = "data: [DONE]\n\n";
        let eof = StreamEnd::Eof;
        check(&format!("{hi}{stop}{done}"), eof.clone(), "hi", AnswerState::Done);
        check(&format!("{hi}{done}"), eof.clone(), "hi", AnswerState::Done);
        check(&format!("{hi}{stop}"), eof.clone(), "hi", AnswerState::Done);
        check(
            &format!("{stop}{done}"),
            eof.clone(),
            "",
            AnswerState::Error("the model returned an empty answer; try again or rephrase the question".into()),
        );
        check(&hi, eof.clone(), "hi", AnswerState::NetworkError("connection closed before the answer finished".into()));
        check("", eof.clone(), "", AnswerState::NetworkError("connection closed before the answer finished".into()));
        check(&hi, StreamEnd::Cancelled, "hi", AnswerState::Cancelled);
        check(&hi, StreamEnd::Timeout, "hi", AnswerState::Timeout);
        check(&hi, StreamEnd::NetworkError("reset".into()), "hi", AnswerState::NetworkError("reset".into()));
        check(&format!("{hi}{stop}{done}"), StreamEnd::Cancelled, "hi", AnswerState::Done);
        check(&format!("{hi}{}", chunk("{}", r#""length""#)), eof.clone(), "hi", AnswerState::Length);
        check(
            &format!("{hi}{}{done}", chunk("{}", r#""content_filter""#)),
            eof.clone(),
            "hi",
            AnswerState::ContentFilter,
        );
        check(
            &format!("{hi}{}", chunk("{}", r#""insufficient_system_resource""#)),
            eof.clone(),
            "hi",
            AnswerState::Error(
                "the provider ran out of capacity and interrupted the answer; try again in a moment".into(),
            ),
        );
        check(
            &format!("{hi}{}", chunk("{}", r#""tool_calls""#)),
            eof.clone(),
            "hi",
            AnswerState::Error("the answer ended with an unexpected finish reason `tool_calls`; try again".into()),
        );
        check(
            "data: {\"error\":{\"message\":\"Insufficient Balance\",\"type\":\"unknown_error\",\"param\":null,\"code\":\"invalid_request_error\"}}\n\n",
            eof.clone(), "",
            AnswerState::Error("the provider reported an error: Insufficient Balance (unknown_error)".into()),
        );
        check(
            &format!("{hi}data: {{not json\n\n{done}"),
            eof.clone(),
            "hi",
            AnswerState::Error(
                "the provider sent an unreadable chunk (key must be a string at line 1 column 2); try again".into(),
            ),
        );
        check(&format!(": keep-alive\n\n{hi}: keep-alive\n\n{done}"), eof, "hi", AnswerState::Done);
    }

    #[test]
    fn unterminated_done_still_counts() {
        let body = format!("{}data: [DONE]", chunk(r#"{"content":"ok"}"#, "null"));
        check(&body, StreamEnd::Eof, "ok", AnswerState::Done);
    }

    #[test]
    fn reasoning_is_kept_apart() {
        let mut s = ChatStream::new();
        let deltas = s.push(chunk(r#"{"content":null,"reasoning_content":"think"}"#, "null").as_bytes());
        assert_eq!(deltas, [ChatDelta::Reasoning("think".into())]);
        let deltas = s.push(chunk(r#"{"content":"答","reasoning_content":null}"#, "null").as_bytes());
        assert_eq!(deltas, [ChatDelta::Answer("答".into())]);
        assert_eq!(s.state(), AnswerState::Streaming);
        let out = s.finish(StreamEnd::Eof);
        assert_eq!((out.answer.as_str(), out.reasoning.as_str()), ("答", "think"));
    }

    #[test]
    fn data_state_values_follow_the_ui_contract() {
        let cases = [
            (AnswerState::Streaming, "streaming", "streaming"),
            (AnswerState::Done, "done", "done"),
            (AnswerState::Cancelled, "cancelled", "cancelled"),
            (AnswerState::Timeout, "timeout", "timeout"),
            (AnswerState::Length, "error", "length"),
            (AnswerState::ContentFilter, "error", "content_filter"),
            (AnswerState::NetworkError("x".into()), "error", "network_error"),
            (AnswerState::Error("x".into()), "error", "error"),
        ];
        for (state, ui, code) in cases {
            assert_eq!((state.as_str(), state.code()), (ui, code));
            assert_eq!(state.is_done(), ui == "done");
            assert!(!state.describe(Lang::Zh).is_empty() && !state.describe(Lang::En).is_empty());
        }
        assert_eq!(
            AnswerState::Timeout.describe(Lang::En),
            "the request timed out and the answer is incomplete; try again later"
        );
    }

    #[test]
    fn http_errors_say_what_to_do() {
        let body = r#"{"error":{"message":"Authentication Fails, Your api key: ****cd15 is invalid","type":"authentication_error","param":null,"code":"invalid_request_error"}}"#;
        assert_eq!(
            http_error_state(401, body),
            AnswerState::Error("http 401: authentication failed; check the api key (Authentication Fails, Your api key: ****cd15 is invalid)".into())
        );
        assert_eq!(
            http_error_state(422, "Failed to deserialize the JSON body"),
            AnswerState::Error("http 422: the request was rejected; check the model name and the question (Failed to deserialize the JSON body)".into())
        );
        assert_eq!(
            http_error_state(503, ""),
            AnswerState::Error("http 503: the provider is overloaded; try again shortly".into())
        );
    }
}
