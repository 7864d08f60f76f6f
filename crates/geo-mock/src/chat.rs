//! `POST /chat/completions` with `stream: true`: the Docs chat's streaming endpoint, as
//! DeepSeek sends it (`chat.completion.chunk` events, `: keep-alive` comments, `data: [DONE]`).
//!
//! The stream is deliberately unkind to a parser: every event that holds a multi-byte
//! character is sent in two writes split *inside* that character, with a flush and a pause
//! between them, so a client that decodes each network read on its own breaks visibly.

use std::fmt;
use std::io::{self, Write};
use std::net::TcpStream;
use std::time::Duration;

use serde_json::{json, Value};

use crate::http;

/// How the chat endpoint answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ChatScenario {
    /// The whole answer, then `data: [DONE]`.
    #[default]
    Normal,
    /// HTTP 402 with DeepSeek's insufficient-balance JSON body.
    Error,
    /// About half the chunks, then the connection closes without `[DONE]`.
    Cut,
    /// The whole answer with a long pause and a keep-alive comment before every chunk.
    Slow,
    /// A hostile proxy: an answer that echoes the request's `authorization` value and holds
    /// terminal escapes (clear screen, a fake prompt line, a carriage return).
    Hostile,
    /// A gateway that echoes the request: the answer with one more content event holding
    /// `authorization=<the request's value>` whole, sent in two writes split inside the key
    /// (what `geo-probe proxy` must redact across network chunks: security review 3, M1).
    Echo,
}

impl ChatScenario {
    /// Parses `normal`, `error`, `cut`, `slow`, `hostile` or `echo`.
    pub fn parse(text: &str) -> Result<ChatScenario, String> {
        match text.trim().to_ascii_lowercase().as_str() {
            "normal" | "ok" => Ok(ChatScenario::Normal),
            "error" => Ok(ChatScenario::Error),
            "cut" => Ok(ChatScenario::Cut),
            "slow" => Ok(ChatScenario::Slow),
            "hostile" => Ok(ChatScenario::Hostile),
            "echo" => Ok(ChatScenario::Echo),
            other => Err(format!("unknown chat scenario {other:?}; use normal, error, cut, slow, hostile or echo")),
        }
    }

    /// The scenario named by a `[chat:…]` marker in `text`, if any.
    pub fn from_marker(text: &str) -> Option<Result<ChatScenario, String>> {
        let start = text.find("[chat:")? + "[chat:".len();
        let end = text[start..].find(']')? + start;
        Some(ChatScenario::parse(&text[start..end]))
    }
}

impl fmt::Display for ChatScenario {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ChatScenario::Normal => "normal",
            ChatScenario::Error => "error",
            ChatScenario::Cut => "cut",
            ChatScenario::Slow => "slow",
            ChatScenario::Hostile => "hostile",
            ChatScenario::Echo => "echo",
        })
    }
}

/// The answer the mock streams; it cites the first retrieved passage as `[S1]`.
pub const ANSWER: &str = "根据文档，GEO Probe 的分析全部在浏览器里完成，API Key 只保存在本地，不经过项目服务器 [S1]。\
一次运行按「提示词 × 重复次数」展开任务，最多 3 个并发 [S1]。";

/// The text of the last `user` message of a chat request body.
pub fn last_user_text(body: &Value) -> String {
    body.get("messages")
        .and_then(Value::as_array)
        .and_then(|m| m.iter().rev().find(|m| m.get("role").and_then(Value::as_str) == Some("user")))
        .and_then(|m| m.get("content"))
        .map(|c| match c {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        })
        .unwrap_or_default()
}

fn chunk(model: &str, delta: Value, finish: Option<&str>, usage: Option<Value>) -> String {
    let mut v = json!({
        "id": "mock-chat-0001",
        "object": "chat.completion.chunk",
        "created": 1_764_403_200,
        "model": model,
        "system_fingerprint": "fp_mock",
        "choices": [{ "index": 0, "delta": delta, "logprobs": null, "finish_reason": finish }],
    });
    if let Some(u) = usage {
        v["usage"] = u;
    }
    format!("data: {v}\n\n")
}

/// The SSE events of a full answer, in order: keep-alive, role, content pieces, the final
/// chunk with `finish_reason` and `usage`, `[DONE]`.
pub fn events(model: &str, answer: &str) -> Vec<String> {
    let mut out =
        vec![": keep-alive\n\n".to_string(), chunk(model, json!({"role": "assistant", "content": ""}), None, None)];
    let chars: Vec<char> = answer.chars().collect();
    for piece in chars.chunks(7) {
        let text: String = piece.iter().collect();
        out.push(chunk(model, json!({ "content": text }), None, None));
    }
    let usage = json!({ "prompt_tokens": 812, "completion_tokens": chars.len(), "total_tokens": 812 + chars.len() });
    out.push(chunk(model, json!({ "content": "" }), Some("stop"), Some(usage)));
    out.push("data: [DONE]\n\n".to_string());
    out
}

/// The network writes for `events`: an event holding a multi-byte character is split in two
/// inside that character, every other event is one write.
pub fn split_writes(events: &[String]) -> Vec<Vec<u8>> {
    let mut writes = Vec::new();
    for e in events {
        match e.char_indices().find(|(_, c)| c.len_utf8() > 1) {
            Some((i, _)) => {
                writes.push(e.as_bytes()[..=i].to_vec());
                writes.push(e.as_bytes()[i + 1..].to_vec());
            }
            None => writes.push(e.as_bytes().to_vec()),
        }
    }
    writes
}

/// `writes` with each write that holds `secret` split in two in the middle of it.
pub fn split_inside(writes: Vec<Vec<u8>>, secret: &[u8]) -> Vec<Vec<u8>> {
    let mut out = Vec::with_capacity(writes.len() + 1);
    for w in writes {
        let at = (secret.len() > 1).then(|| w.windows(secret.len()).position(|x| x == secret)).flatten();
        match at {
            Some(i) => {
                let cut = i + secret.len() / 2;
                out.push(w[..cut].to_vec());
                out.push(w[cut..].to_vec());
            }
            None => out.push(w),
        }
    }
    out
}

/// Answers one chat request on `stream`; `authorization` is the request's header value (the
/// hostile scenario echoes it).
pub fn serve(
    mut stream: &TcpStream,
    body: &Value,
    scenario: ChatScenario,
    slow_delay: Duration,
    authorization: Option<&str>,
) -> io::Result<()> {
    let model = body.get("model").and_then(Value::as_str).unwrap_or("deepseek-v4-flash").to_string();
    if scenario == ChatScenario::Error {
        return http::respond(stream, 402, "application/json", crate::fixtures::error_body(402));
    }
    if body.get("stream").and_then(Value::as_bool) != Some(true) {
        let whole = json!({
            "id": "mock-chat-0001", "object": "chat.completion", "created": 1_764_403_200, "model": model,
            "choices": [{ "index": 0, "message": { "role": "assistant", "content": ANSWER }, "finish_reason": "stop" }],
            "usage": { "prompt_tokens": 812, "completion_tokens": ANSWER.chars().count(), "total_tokens": 812 + ANSWER.chars().count() },
        });
        return http::respond(stream, 200, "application/json", &whole.to_string());
    }
    let hostile = format!(
        "{ANSWER}\u{1b}[2J\u{1b}[H$ run finished\r\u{9b}0m your {} is safe [S1]",
        authorization.unwrap_or("(no authorization)")
    );
    let mut evs = events(&model, if scenario == ChatScenario::Hostile { &hostile } else { ANSWER });
    if scenario == ChatScenario::Cut {
        evs.truncate(evs.len() / 2);
    }
    if scenario == ChatScenario::Slow {
        evs = evs.into_iter().flat_map(|e| [": keep-alive\n\n".to_string(), e]).collect();
    }
    let echoed = authorization.unwrap_or("(no authorization)");
    if scenario == ChatScenario::Echo {
        let at = evs.len() - 2; // before the final chunk and [DONE]
        evs.insert(at, chunk(&model, json!({ "content": format!(" [echo: authorization={echoed}]") }), None, None));
    }
    stream.set_nodelay(true)?;
    stream.write_all(
        http::head(200, "text/event-stream; charset=utf-8", None, &[("Cache-Control", "no-cache")]).as_bytes(),
    )?;
    stream.flush()?;
    let gap = if scenario == ChatScenario::Slow { slow_delay } else { Duration::from_millis(4) };
    let mut writes = split_writes(&evs);
    if scenario == ChatScenario::Echo {
        writes = split_inside(writes, echoed.as_bytes());
    }
    for w in writes {
        stream.write_all(&w)?;
        stream.flush()?;
        std::thread::sleep(gap);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scenarios_parse_from_flags_and_markers() {
        assert_eq!(ChatScenario::parse("CUT"), Ok(ChatScenario::Cut));
        assert!(ChatScenario::parse("boom").is_err());
        assert_eq!(ChatScenario::from_marker("问 [chat:slow] 题"), Some(Ok(ChatScenario::Slow)));
        assert_eq!(ChatScenario::from_marker("plain"), None);
        assert!(matches!(ChatScenario::from_marker("[chat:x]"), Some(Err(_))));
    }

    #[test]
    fn writes_split_characters_but_rejoin_to_the_stream() {
        let evs = events("m", ANSWER);
        let writes = split_writes(&evs);
        let joined: Vec<u8> = writes.concat();
        assert_eq!(joined, evs.concat().into_bytes());
        let torn = writes.iter().filter(|w| std::str::from_utf8(w).is_err()).count();
        assert!(torn >= 10, "only {torn} writes split a character");
        let text: String = evs
            .iter()
            .filter_map(|e| e.strip_prefix("data: "))
            .filter_map(|d| serde_json::from_str::<Value>(d.trim()).ok())
            .filter_map(|v| v["choices"][0]["delta"]["content"].as_str().map(str::to_string))
            .collect();
        assert_eq!(text, ANSWER);
        assert!(text.contains("[S1]"));
        assert_eq!(evs.last().unwrap(), "data: [DONE]\n\n");
        assert!(evs[0].starts_with(": keep-alive"));
    }

    #[test]
    fn an_echo_is_split_inside_the_secret() {
        let writes = vec![b"data: a=Bearer sk-123456 end".to_vec(), b"other".to_vec()];
        let split = split_inside(writes.clone(), b"Bearer sk-123456");
        assert_eq!(split.len(), 3);
        assert_eq!(split.concat(), writes.concat());
        assert!(!split.iter().any(|w| w.windows(9).any(|x| x == b"sk-123456")));
        assert_eq!(ChatScenario::parse("echo"), Ok(ChatScenario::Echo));
    }

    #[test]
    fn last_user_message_is_found() {
        let body = json!({"messages": [{"role":"system","content":"s"},{"role":"user","content":"a"},{"role":"assistant","content":"b"},{"role":"user","content":"c [chat:cut]"}]});
        assert_eq!(last_user_text(&body), "c [chat:cut]");
    }
}
