//! What the real APIs do that a recorded body alone does not (engines.md, "Fidelity"): the
//! mock adjusts a recorded answer to the request the way each engine documents.
//!
//! * **Reasoning spends the output budget.** A reasoning model thinks inside OpenAI's
//!   `max_output_tokens`, Gemini 2.5's `maxOutputTokens` (capped by
//!   `thinkingConfig.thinkingBudget`), the `<think>` section of Perplexity's `sonar-reasoning*`
//!   `max_tokens` and DeepSeek's thinking blocks in `max_tokens`. How long it thinks is the
//!   fixture's recorded reasoning, or `N` from a `[think:N]` marker in the prompt. When the
//!   thinking and the recorded answer do not fit, the reply is cut where the engine cuts it:
//!   OpenAI `status: incomplete` (`incomplete_details.reason: max_output_tokens`), Gemini
//!   `finishReason: MAX_TOKENS`, Perplexity `finish_reason: length` (a `<think>` never
//!   closed when the budget ran out while thinking), Messages `stop_reason: max_tokens`;
//!   thinking that fills the whole budget leaves no answer at all.
//! * **OpenAI lists sources only when asked**: without `include:
//!   ["web_search_call.action.sources"]` a search call has no `action.sources`.
//! * **Claude takes temperatures 0–1** (DeepSeek 0–2): above that, HTTP 400.
//! * **Perplexity's reasoning models write `<think>…</think>`** before the answer, naming
//!   brands and URLs they considered.
//! * **`pause_turn`** ([`pause_reply`]): the Messages turn is split at its search results;
//!   every reply but the last stops with `pause_turn`, and the next part is only given to a
//!   request that sends the paused content back (else HTTP 400).
//!
//! Like the rest of the mock, none of this uses geo-core's wire code.

use serde_json::{json, Map, Value};

use crate::engines::MockEngine;

/// A prompt's `[think:N]` marker (tokens a reasoning model thinks before answering), and the
/// text without it.
pub fn take_think(text: &str) -> (Option<u64>, String) {
    let Some(start) = text.find("[think:") else { return (None, text.to_string()) };
    let rest = &text[start + "[think:".len()..];
    let Some(end) = rest.find(']') else { return (None, text.to_string()) };
    let Ok(n) = rest[..end].trim().parse::<u64>() else { return (None, text.to_string()) };
    (Some(n), format!("{}{}", &text[..start], &rest[end + 1..]).trim().to_string())
}

/// The HTTP 400 body a request gets when its temperature is outside the engine's range
/// (Claude 0–1, DeepSeek 0–2), in the engine's error shape; `None` when it is fine.
pub fn temperature_error(engine: MockEngine, body: &Value) -> Option<String> {
    let t = body.get("temperature").and_then(Value::as_f64)?;
    let max = match engine {
        MockEngine::Anthropic => 1.0,
        MockEngine::Deepseek => 2.0,
        _ => return None,
    };
    (!(0.0..=max).contains(&t)).then(|| {
        json!({"type": "error", "error": {"type": "invalid_request_error",
            "message": format!("temperature: range: 0..{max}")}})
        .to_string()
    })
}

/// Removes every search call's `action.sources` when the request did not ask for them.
pub fn sources_only_when_included(engine: MockEngine, body: &Value, answer: &mut Value) {
    if engine != MockEngine::Openai {
        return;
    }
    let asked = body
        .get("include")
        .and_then(Value::as_array)
        .is_some_and(|i| i.iter().any(|v| v.as_str() == Some("web_search_call.action.sources")));
    if asked {
        return;
    }
    for item in answer.get_mut("output").and_then(Value::as_array_mut).into_iter().flatten() {
        if let Some(action) = item.get_mut("action").and_then(Value::as_object_mut) {
            action.remove("sources");
        }
    }
}

fn num(v: Option<&Value>) -> u64 {
    v.and_then(Value::as_u64).unwrap_or(0)
}

/// How much room a request gives and how much the model thinks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Spend {
    /// Output tokens allowed (thinking included).
    budget: u64,
    /// Tokens of thinking.
    thinking: u64,
    /// Tokens of the recorded answer.
    answer: u64,
}

/// What the request allows and what the model spends, per engine (see the module docs).
fn spend(engine: MockEngine, body: &Value, model: &str, answer: &Value, think: Option<u64>) -> Spend {
    let m = model.to_ascii_lowercase();
    match engine {
        MockEngine::Openai => {
            let reasons = ["gpt-5", "o1", "o3", "o4"].iter().any(|p| m.starts_with(p));
            let usage = answer.get("usage");
            let recorded = num(usage.and_then(|u| u.pointer("/output_tokens_details/reasoning_tokens")));
            let out = num(usage.and_then(|u| u.get("output_tokens")));
            Spend {
                budget: body.get("max_output_tokens").and_then(Value::as_u64).unwrap_or(128_000),
                thinking: if reasons { think.unwrap_or(recorded) } else { 0 },
                answer: out.saturating_sub(recorded),
            }
        }
        MockEngine::Gemini => {
            let config = body.get("generationConfig");
            let thinking_budget =
                config.and_then(|c| c.pointer("/thinkingConfig/thinkingBudget")).and_then(Value::as_i64);
            let thinks = if m.starts_with("gemini-2.5-flash-lite") {
                thinking_budget.is_some_and(|b| b != 0)
            } else if m.starts_with("gemini-2.5-pro") {
                true
            } else {
                thinking_budget != Some(0)
            };
            let usage = answer.get("usageMetadata");
            let mut thinking =
                if thinks { think.unwrap_or(num(usage.and_then(|u| u.get("thoughtsTokenCount")))) } else { 0 };
            if let Some(cap) = thinking_budget.filter(|b| *b > 0) {
                thinking = thinking.min(cap as u64);
            }
            Spend {
                budget: config.and_then(|c| c.get("maxOutputTokens")).and_then(Value::as_u64).unwrap_or(65_536),
                thinking,
                answer: num(usage.and_then(|u| u.get("candidatesTokenCount"))),
            }
        }
        MockEngine::Perplexity => Spend {
            budget: body.get("max_tokens").and_then(Value::as_u64).unwrap_or(128_000),
            thinking: if m.contains("reasoning") { think.unwrap_or(300) } else { 0 },
            answer: num(answer.pointer("/usage/completion_tokens")),
        },
        // The Chinese engines are asked without reasoning: the answer alone spends the budget.
        MockEngine::Qwen | MockEngine::Doubao | MockEngine::Ernie | MockEngine::Hunyuan => {
            let (field, used) = match engine {
                MockEngine::Qwen => ("/parameters/max_tokens", "/usage/output_tokens"),
                MockEngine::Doubao => ("/max_output_tokens", "/usage/output_tokens"),
                MockEngine::Ernie => ("/max_completion_tokens", "/usage/completion_tokens"),
                _ => ("/max_tokens", "/usage/completion_tokens"),
            };
            Spend {
                budget: body.pointer(field).and_then(Value::as_u64).unwrap_or(8_192),
                thinking: 0,
                answer: num(answer.pointer(used)),
            }
        }
        MockEngine::Deepseek | MockEngine::Anthropic => {
            let kind = body.pointer("/thinking/type").and_then(Value::as_str);
            // DeepSeek's models think unless told not to; Claude only when asked to.
            let thinks = match engine {
                MockEngine::Deepseek => kind != Some("disabled"),
                _ => kind == Some("enabled"),
            };
            Spend {
                budget: body.get("max_tokens").and_then(Value::as_u64).unwrap_or(4_096),
                thinking: if thinks { think.unwrap_or(0) } else { 0 },
                answer: num(answer.pointer("/usage/output_tokens")),
            }
        }
    }
}

/// The text a Perplexity reasoning model thinks before its answer: it names brands and a
/// URL that the answer may not (so an analysis that read it would count them).
pub const THINK_TEXT: &str =
    "用户在问 GEO 服务商。我考虑了智谱营销、GEOBoost 和元构场，也看了 https://think.example/considered 的对比。";

/// Keeps the first `keep` characters of the texts `texts` points to, in order (later texts
/// emptied).
fn cut_texts(texts: Vec<&mut Value>, mut keep: usize) {
    for t in texts {
        let Some(s) = t.as_str() else { continue };
        let n = s.chars().count();
        if keep >= n {
            keep -= n;
            continue;
        }
        *t = json!(s.chars().take(keep).collect::<String>());
        keep = 0;
    }
}

/// Characters of the answer that fit: all of it, or the share `room / answer` of them.
fn kept_chars(total: usize, s: Spend) -> usize {
    let room = s.budget.saturating_sub(s.thinking);
    if s.answer == 0 || room >= s.answer {
        total
    } else {
        (total as u128 * u128::from(room) / u128::from(s.answer)) as usize
    }
}

/// Adjusts a recorded answer to the request's output budget and the model's thinking (see
/// the module docs). `think` is the prompt's `[think:N]`.
pub fn spend_budget(engine: MockEngine, body: &Value, model: &str, answer: &mut Value, think: Option<u64>) {
    let s = spend(engine, body, model, answer, think);
    let cut = s.thinking + s.answer > s.budget;
    match engine {
        MockEngine::Openai => openai(answer, s, cut, think.is_some()),
        MockEngine::Gemini => gemini(answer, s, cut),
        MockEngine::Perplexity => perplexity(answer, s, cut),
        MockEngine::Deepseek | MockEngine::Anthropic => messages(answer, s, cut),
        MockEngine::Doubao => openai(answer, s, cut, false),
        MockEngine::Qwen | MockEngine::Ernie | MockEngine::Hunyuan if cut => chat_cut(engine, answer, s),
        MockEngine::Qwen | MockEngine::Ernie | MockEngine::Hunyuan => {}
    }
}

/// A chat-shaped answer (DashScope's `output.choices`, Qianfan's and Hunyuan's `choices`) cut
/// at the output budget: the text shortened, `finish_reason: length`, the output tokens the
/// budget.
fn chat_cut(engine: MockEngine, answer: &mut Value, s: Spend) {
    let (choice, used) = match engine {
        MockEngine::Qwen => ("/output/choices/0", "output_tokens"),
        _ => ("/choices/0", "completion_tokens"),
    };
    if let Some(c) = answer.pointer_mut(choice).and_then(Value::as_object_mut) {
        c.insert("finish_reason".into(), json!("length"));
        if let Some(text) = c.get_mut("message").and_then(|m| m.get_mut("content")) {
            let total = text.as_str().map_or(0, |t| t.chars().count());
            cut_texts(vec![text], kept_chars(total, s));
        }
    }
    if let Some(u) = answer.get_mut("usage").and_then(Value::as_object_mut) {
        u.insert(used.into(), json!(s.budget));
    }
}

fn openai(answer: &mut Value, s: Spend, cut: bool, marked: bool) {
    let Some(obj) = answer.as_object_mut() else { return };
    if cut || marked || s.thinking > 0 {
        let thinking = s.thinking.min(s.budget);
        let output = if cut { s.budget } else { s.thinking + s.answer };
        if let Some(u) = obj.get_mut("usage").and_then(Value::as_object_mut) {
            u.insert("output_tokens".into(), json!(output));
            u.insert("output_tokens_details".into(), json!({"reasoning_tokens": thinking}));
        }
    }
    if !cut {
        return;
    }
    obj.insert("status".into(), json!("incomplete"));
    obj.insert("incomplete_details".into(), json!({"reason": "max_output_tokens"}));
    let Some(items) = obj.get_mut("output").and_then(Value::as_array_mut) else { return };
    if s.thinking >= s.budget {
        items.retain(|i| i["type"] != "message");
        return;
    }
    let mut texts: Vec<&mut Value> = Vec::new();
    for item in items.iter_mut().filter(|i| i["type"] == "message") {
        item["status"] = json!("incomplete");
        for part in item.get_mut("content").and_then(Value::as_array_mut).into_iter().flatten() {
            if let Some(t) = part.get_mut("text") {
                texts.push(t);
            }
        }
    }
    let total: usize = texts.iter().filter_map(|t| t.as_str()).map(|t| t.chars().count()).sum();
    let keep = kept_chars(total, s);
    cut_texts(texts, keep);
    // Annotations past the cut point at text that is gone.
    for item in items.iter_mut().filter(|i| i["type"] == "message") {
        for part in item.get_mut("content").and_then(Value::as_array_mut).into_iter().flatten() {
            let len = part["text"].as_str().map_or(0, |t| t.chars().count()) as u64;
            if let Some(a) = part.get_mut("annotations").and_then(Value::as_array_mut) {
                a.retain(|x| x["end_index"].as_u64().unwrap_or(0) <= len);
            }
        }
    }
}

fn gemini(answer: &mut Value, s: Spend, cut: bool) {
    if let Some(u) = answer.get_mut("usageMetadata").and_then(Value::as_object_mut) {
        let thinking = s.thinking.min(s.budget);
        let visible = if cut { s.budget - thinking } else { s.answer };
        if thinking > 0 {
            u.insert("thoughtsTokenCount".into(), json!(thinking));
        } else {
            u.remove("thoughtsTokenCount");
        }
        u.insert("candidatesTokenCount".into(), json!(visible));
    }
    if !cut {
        return;
    }
    let Some(candidate) = answer.pointer_mut("/candidates/0").and_then(Value::as_object_mut) else { return };
    candidate.insert("finishReason".into(), json!("MAX_TOKENS"));
    let Some(parts) = candidate.get_mut("content").and_then(|c| c.get_mut("parts")).and_then(Value::as_array_mut)
    else {
        return;
    };
    if s.thinking >= s.budget {
        parts.retain(|p| p["thought"] == json!(true));
        if parts.is_empty() {
            if let Some(content) = candidate.get_mut("content").and_then(Value::as_object_mut) {
                content.remove("parts");
            }
        }
        return;
    }
    let texts: Vec<&mut Value> =
        parts.iter_mut().filter(|p| p["thought"] != json!(true)).filter_map(|p| p.get_mut("text")).collect();
    let total: usize = texts.iter().filter_map(|t| t.as_str()).map(|t| t.chars().count()).sum();
    cut_texts(texts, kept_chars(total, s));
}

fn perplexity(answer: &mut Value, s: Spend, cut: bool) {
    let Some(message) = answer.pointer_mut("/choices/0/message").and_then(Value::as_object_mut) else { return };
    let content = message.get("content").and_then(Value::as_str).unwrap_or("").to_string();
    let total = content.chars().count();
    let text = if s.thinking > 0 && s.thinking >= s.budget {
        format!("<think>\n{THINK_TEXT}")
    } else {
        let kept: String = content.chars().take(kept_chars(total, s)).collect();
        if s.thinking > 0 {
            format!("<think>\n{THINK_TEXT}\n</think>\n\n{kept}")
        } else {
            kept
        }
    };
    message.insert("content".into(), json!(text));
    if cut {
        if let Some(c) = answer.pointer_mut("/choices/0").and_then(Value::as_object_mut) {
            c.insert("finish_reason".into(), json!("length"));
        }
    }
    if let Some(u) = answer.get_mut("usage").and_then(Value::as_object_mut) {
        let completion = if cut { s.budget } else { s.thinking + s.answer };
        u.insert("completion_tokens".into(), json!(completion));
        if s.thinking > 0 {
            u.insert("reasoning_tokens".into(), json!(s.thinking.min(s.budget)));
        }
    }
}

fn messages(answer: &mut Value, s: Spend, cut: bool) {
    let Some(obj) = answer.as_object_mut() else { return };
    if s.thinking > 0 || cut {
        let output = if cut { s.budget } else { s.thinking + s.answer };
        if let Some(u) = obj.get_mut("usage").and_then(Value::as_object_mut) {
            u.insert("output_tokens".into(), json!(output));
        }
    }
    if !cut {
        return;
    }
    obj.insert("stop_reason".into(), json!("max_tokens"));
    let Some(blocks) = obj.get_mut("content").and_then(Value::as_array_mut) else { return };
    if s.thinking >= s.budget {
        // The budget ran out while thinking, before any search or text.
        let thinking: Vec<Value> = blocks.iter().filter(|b| b["type"] == "thinking").take(1).cloned().collect();
        *blocks = if thinking.is_empty() {
            vec![json!({"type": "thinking", "thinking": "…", "signature": "mock"})]
        } else {
            thinking
        };
        return;
    }
    let texts: Vec<&mut Value> =
        blocks.iter_mut().filter(|b| b["type"] == "text").filter_map(|b| b.get_mut("text")).collect();
    let total: usize = texts.iter().filter_map(|t| t.as_str()).map(|t| t.chars().count()).sum();
    cut_texts(texts, kept_chars(total, s));
    blocks.retain(|b| b["type"] != "text" || b["text"].as_str().is_some_and(|t| !t.is_empty()));
}

/// The parts of a recorded Messages answer's content for a turn paused `pauses` times: cut
/// after search results; when the answer has too few, a paused part is one more search and
/// its result.
fn turn_parts(content: &[Value], pauses: usize) -> Vec<Vec<Value>> {
    let mut cuts: Vec<usize> = content
        .iter()
        .enumerate()
        .filter(|(i, b)| b["type"] == "web_search_tool_result" && *i + 1 < content.len())
        .map(|(i, _)| i + 1)
        .take(pauses)
        .collect();
    cuts.insert(0, 0);
    cuts.push(content.len());
    let mut parts: Vec<Vec<Value>> = cuts.windows(2).map(|w| content[w[0]..w[1]].to_vec()).collect();
    let mut extra = 0;
    while parts.len() < pauses + 1 {
        extra += 1;
        let id = format!("srvtoolu_mock_pause_{extra}");
        let search = vec![
            json!({"type": "server_tool_use", "id": id, "name": "web_search", "input": {"query": format!("GEO 服务商 {extra}")}}),
            json!({"type": "web_search_tool_result", "tool_use_id": id, "content": [
                {"type": "web_search_result", "title": format!("Mock page {extra}"), "url": format!("https://pause-{extra}.example/geo"), "encrypted_content": "SEALED", "page_age": null}]}),
        ];
        let at = parts.len() - 1;
        parts.insert(at, search);
    }
    parts
}

/// The `assistant` content a continuation sends back: every assistant message's blocks, in order.
fn sent_back(body: &Value) -> Vec<Value> {
    let messages = body.get("messages").and_then(Value::as_array);
    messages
        .into_iter()
        .flatten()
        .filter(|m| m["role"] == "assistant")
        .flat_map(|m| match &m["content"] {
            Value::Array(blocks) => blocks.clone(),
            Value::String(s) => vec![json!({"type": "text", "text": s})],
            _ => Vec::new(),
        })
        .collect()
}

/// The reply to a request of a turn that pauses `pauses` times (`[mock:pause]`, `pause=N`):
/// `Ok` the part the request has earned (a paused part, or the rest with the recorded stop
/// reason), `Err` the HTTP 400 body of a continuation that did not send back the paused
/// content as it was received. Engines other than DeepSeek and Anthropic never pause.
pub fn pause_reply(engine: MockEngine, body: &Value, recorded: &Value, pauses: usize) -> Result<Value, String> {
    if !matches!(engine, MockEngine::Deepseek | MockEngine::Anthropic) {
        return Ok(recorded.clone());
    }
    let content = recorded.get("content").and_then(Value::as_array).cloned().unwrap_or_default();
    let parts = turn_parts(&content, pauses);
    let sent = sent_back(body);
    let mut given = 0;
    let mut k = 0;
    while given < sent.len() && k < parts.len() {
        given += parts[k].len();
        k += 1;
    }
    let expected: Vec<Value> = parts[..k].iter().flatten().cloned().collect();
    if sent != expected {
        return Err(json!({"type": "error", "error": {"type": "invalid_request_error",
            "message": "messages: the assistant turn must send back the paused content exactly as it was received"}})
        .to_string());
    }
    let part = &parts[k.min(parts.len() - 1)];
    let last = k + 1 >= parts.len();
    let mut reply: Map<String, Value> = recorded.as_object().cloned().unwrap_or_default();
    let id = reply.get("id").and_then(Value::as_str).unwrap_or("msg_mock").to_string();
    reply.insert("id".into(), json!(format!("{id}_part{k}")));
    reply.insert("content".into(), json!(part));
    if !last {
        reply.insert("stop_reason".into(), json!("pause_turn"));
    }
    let n = parts.len() as u64;
    let searches = part.iter().filter(|b| b["type"] == "server_tool_use").count();
    if let Some(u) = reply.get_mut("usage").and_then(Value::as_object_mut) {
        for key in ["input_tokens", "output_tokens"] {
            let v = num(u.get(key));
            u.insert(key.into(), json!(v.div_ceil(n)));
        }
        u.insert("server_tool_use".into(), json!({"web_search_requests": searches}));
    }
    Ok(Value::Object(reply))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn think_markers() {
        assert_eq!(take_think("[think:8000] 问题"), (Some(8000), "问题".to_string()));
        assert_eq!(take_think("问题 [think: 12 ] x"), (Some(12), "问题  x".to_string()));
        assert_eq!(take_think("[think:x] 问题"), (None, "[think:x] 问题".to_string()));
        assert_eq!(take_think("问题"), (None, "问题".to_string()));
    }

    #[test]
    fn temperatures_outside_the_range_are_refused() {
        let t = |v: f64| json!({"temperature": v});
        assert!(temperature_error(MockEngine::Anthropic, &t(1.2)).unwrap().contains("invalid_request_error"));
        assert!(temperature_error(MockEngine::Anthropic, &t(1.0)).is_none());
        assert!(temperature_error(MockEngine::Deepseek, &t(1.5)).is_none());
        assert!(temperature_error(MockEngine::Deepseek, &t(2.5)).is_some());
        assert!(temperature_error(MockEngine::Gemini, &t(9.0)).is_none());
    }

    #[test]
    fn openai_reasoning_fills_a_small_budget() {
        let answer = json!({"status": "completed", "output": [
            {"type": "reasoning"}, {"type": "message", "content": [{"type": "output_text", "text": "abcdefghij",
             "annotations": [{"type": "url_citation", "start_index": 0, "end_index": 2}, {"type": "url_citation", "start_index": 6, "end_index": 9}]}]}],
            "usage": {"output_tokens": 1100, "output_tokens_details": {"reasoning_tokens": 100}}});
        let mut a = answer.clone();
        spend_budget(MockEngine::Openai, &json!({"max_output_tokens": 16384}), "gpt-5-mini", &mut a, Some(8000));
        assert_eq!((a["status"].as_str(), a["usage"]["output_tokens"].as_u64()), (Some("completed"), Some(9000)));
        let mut a = answer.clone();
        spend_budget(MockEngine::Openai, &json!({"max_output_tokens": 8500}), "gpt-5-mini", &mut a, Some(8000));
        assert_eq!(a["incomplete_details"]["reason"], "max_output_tokens");
        assert_eq!(a["output"][1]["content"][0]["text"], "abcde");
        assert_eq!(a["output"][1]["content"][0]["annotations"].as_array().unwrap().len(), 1);
        let mut a = answer.clone();
        spend_budget(MockEngine::Openai, &json!({"max_output_tokens": 3000}), "gpt-5", &mut a, Some(8000));
        assert!(a["output"].as_array().unwrap().iter().all(|i| i["type"] != "message"));
        assert_eq!(a["usage"]["output_tokens_details"]["reasoning_tokens"], 3000);
        // A model that does not reason is only cut by its answer's length.
        let mut a = answer;
        spend_budget(MockEngine::Openai, &json!({"max_output_tokens": 3000}), "gpt-4.1", &mut a, Some(8000));
        assert_eq!(a["status"], "completed");
    }

    #[test]
    fn gemini_thinking_budget_caps_thinking() {
        let answer = json!({"candidates": [{"finishReason": "STOP", "content": {"parts": [{"text": "answer"}]}}],
            "usageMetadata": {"candidatesTokenCount": 1000}});
        let body = |max: u64, budget: Option<i64>| match budget {
            Some(b) => json!({"generationConfig": {"maxOutputTokens": max, "thinkingConfig": {"thinkingBudget": b}}}),
            None => json!({"generationConfig": {"maxOutputTokens": max}}),
        };
        let mut a = answer.clone();
        spend_budget(MockEngine::Gemini, &body(16384, Some(8192)), "gemini-2.5-flash", &mut a, Some(8000));
        assert_eq!(
            (a["candidates"][0]["finishReason"].as_str(), a["usageMetadata"]["thoughtsTokenCount"].as_u64()),
            (Some("STOP"), Some(8000))
        );
        let mut a = answer.clone();
        spend_budget(MockEngine::Gemini, &body(3072, None), "gemini-2.5-flash", &mut a, Some(8000));
        assert_eq!(a["candidates"][0]["finishReason"], "MAX_TOKENS");
        assert!(a["candidates"][0]["content"].get("parts").is_none());
        assert_eq!(a["usageMetadata"]["thoughtsTokenCount"], 3072);
    }

    #[test]
    fn perplexity_reasoning_writes_think() {
        let answer = json!({"choices": [{"finish_reason": "stop", "message": {"content": "答案 [1]"}}], "usage": {"completion_tokens": 100}});
        let mut a = answer.clone();
        spend_budget(MockEngine::Perplexity, &json!({"max_tokens": 16384}), "sonar-reasoning-pro", &mut a, Some(8000));
        let text = a["choices"][0]["message"]["content"].as_str().unwrap();
        assert!(text.starts_with("<think>") && text.ends_with("</think>\n\n答案 [1]"), "{text}");
        let mut a = answer.clone();
        spend_budget(MockEngine::Perplexity, &json!({"max_tokens": 3000}), "sonar-reasoning-pro", &mut a, Some(8000));
        assert_eq!(a["choices"][0]["finish_reason"], "length");
        assert!(!a["choices"][0]["message"]["content"].as_str().unwrap().contains("</think>"));
        let mut a = answer;
        spend_budget(MockEngine::Perplexity, &json!({"max_tokens": 3000}), "sonar", &mut a, Some(8000));
        assert_eq!(a["choices"][0]["message"]["content"], "答案 [1]");
    }

    #[test]
    fn a_paused_turn_needs_its_content_back() {
        let recorded = json!({"id": "msg_1", "stop_reason": "end_turn", "content": [
            {"type": "server_tool_use", "id": "s1", "name": "web_search", "input": {"query": "q"}},
            {"type": "web_search_tool_result", "tool_use_id": "s1", "content": []},
            {"type": "text", "text": "answer"}], "usage": {"input_tokens": 10, "output_tokens": 4}});
        let first =
            pause_reply(MockEngine::Anthropic, &json!({"messages": [{"role": "user", "content": "q"}]}), &recorded, 1)
                .unwrap();
        assert_eq!(
            (first["stop_reason"].as_str(), first["content"].as_array().unwrap().len()),
            (Some("pause_turn"), 2)
        );
        let continued =
            json!({"messages": [{"role": "user", "content": "q"}, {"role": "assistant", "content": first["content"]}]});
        let rest = pause_reply(MockEngine::Anthropic, &continued, &recorded, 1).unwrap();
        assert_eq!(
            (rest["stop_reason"].as_str(), rest["content"][0]["text"].as_str()),
            (Some("end_turn"), Some("answer"))
        );
        let wrong = json!({"messages": [{"role": "user", "content": "q"}, {"role": "assistant", "content": [{"type": "text", "text": "x"}]}]});
        assert!(pause_reply(MockEngine::Anthropic, &wrong, &recorded, 1).is_err());
        // Five pauses over one search: the extra pauses are searches of their own.
        let parts = turn_parts(recorded["content"].as_array().unwrap(), 5);
        assert_eq!(parts.len(), 6);
        assert!(parts[..5].iter().all(|p| p.iter().any(|b| b["type"] == "web_search_tool_result")));
    }
}
