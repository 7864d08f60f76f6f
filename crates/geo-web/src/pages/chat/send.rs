//! Asking a question: the checks (question, base URL, key), the route (geo-core's
//! `local_proxy::route`), the retrieved passages and the streamed turn fed into the page's
//! [`Log`] until it ends ([`crate::chat::fetch`] performs the request).

use super::state::{ChatTurn, Docs, Log, LogAction};
use crate::chat::fetch::{self, ChatRequest, StreamHandle};
use crate::i18n::t;
use crate::settings_store::parse_base_url;
use geo_core::chat::{
    build_messages, build_request_body, chat_url, messages::validate_question, AnswerState, Turn, TOP_K,
};
use geo_core::model::{EngineId, Lang};
use geo_core::provider::local_proxy::{self, LocalProxy};
use geo_core::provider::url::KeyError;
use std::cell::RefCell;
use std::rc::Rc;
use yew::prelude::*;

/// The page's state a question needs (cheap handles: cloning shares them).
#[derive(Clone)]
pub(super) struct Session {
    pub(super) docs: UseReducerHandle<Docs>,
    pub(super) log: UseReducerHandle<Log>,
    pub(super) question: UseStateHandle<String>,
    pub(super) problem: UseStateHandle<Option<String>>,
    pub(super) running: UseStateHandle<Option<StreamHandle>>,
    pub(super) key: UseStateHandle<String>,
    pub(super) model: UseStateHandle<String>,
    pub(super) base_url: UseStateHandle<String>,
    /// The local proxy when Settings turned it on (read when the page opens).
    pub(super) proxy: UseStateHandle<Option<LocalProxy>>,
    pub(super) next_id: Rc<RefCell<u32>>,
    pub(super) live: Rc<RefCell<Option<StreamHandle>>>,
}

/// Asks the question: checks it, the base URL and the key, retrieves the top passages,
/// starts a streamed turn and feeds its text into the log until it ends.
pub(super) fn send(s: &Session, timeout_ms: u32, lang: Lang) {
    let Session { docs, log, question, problem, running, key, model, base_url, proxy, next_id, live } = s.clone();
    if running.is_some() {
        return;
    }
    let q = match validate_question(&question) {
        Ok(q) => q.to_string(),
        Err(e) => return problem.set(Some(e.message().get(lang).to_string())),
    };
    let base = match parse_base_url(&base_url, lang) {
        Ok(b) => b,
        Err(msg) => return problem.set(Some(msg)),
    };
    let key = Some(key.trim().to_string()).filter(|k| !k.is_empty());
    // A key no header can carry is refused before any request (the browser's error for it
    // would quote it).
    if let Err(e) = geo_core::provider::url::check_key(key.as_deref().unwrap_or("")) {
        return problem.set(Some(e.localized().get(lang).to_string()));
    }
    // geo-core's one routing rule, as for a probe of DeepSeek: the key typed here, else the base
    // URL typed here (a proxy that adds the key), else `geo-probe proxy` when Settings has it on.
    let own_base = base.as_deref().and_then(|b| geo_core::provider::url::parse_base_url(b).ok().flatten());
    let route = match local_proxy::route(EngineId::Deepseek, key.as_deref(), own_base.as_ref(), proxy.as_ref()) {
        Ok(route) => route,
        Err(KeyError::Missing) => return problem.set(Some(t(lang, "chat.need_key").to_string())),
        Err(e) => return problem.set(Some(e.localized().get(lang).to_string())),
    };
    let hits = docs.index.search(&q, TOP_K);
    let history: Vec<Turn> = log
        .turns
        .iter()
        .map(|t| Turn { question: t.question.clone(), answer: t.answer.clone(), state: t.state.clone() })
        .collect();
    let messages = match build_messages(&q, &history, &hits) {
        Ok(m) => m,
        Err(e) => return problem.set(Some(e.message().get(lang).to_string())),
    };
    problem.set(None);
    let id = {
        let mut n = next_id.borrow_mut();
        *n += 1;
        *n
    };
    let request = ChatRequest {
        url: chat_url(route.base()),
        key: route.key().map(str::to_string),
        proxy_token: route.token().filter(|t| !t.is_empty()).map(str::to_string),
        body: build_request_body(&model, &messages).to_string(),
        timeout_ms,
    };
    log.dispatch(LogAction::Start(ChatTurn {
        id,
        question: q,
        answer: String::new(),
        state: AnswerState::Streaming,
        hits,
        model: (*model).clone(),
    }));
    let handle = StreamHandle::new();
    running.set(Some(handle.clone()));
    *live.borrow_mut() = Some(handle.clone());
    let (log, running, live) = (log.clone(), running.clone(), live.clone());
    wasm_bindgen_futures::spawn_local(async move {
        let text_log = log.clone();
        let outcome =
            fetch::stream_chat(request, handle, move |text| text_log.dispatch(LogAction::Text(id, text.to_string())))
                .await;
        live.borrow_mut().take();
        log.dispatch(LogAction::Finish(id, outcome.answer, outcome.state));
        running.set(None);
    });
}
