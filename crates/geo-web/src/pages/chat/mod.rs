//! Docs chat (seed 001): load TXT/Markdown files, retrieve passages with geo-core's BM25
//! index, and ask DeepSeek `chat/completions` for a streamed answer that cites the passages
//! as `[S1]`, `[S2]`….
//!
//! Everything lives in page memory only — the key, the documents and the conversation; no
//! Web Storage, cookie, IndexedDB or URL ever holds them, and a refresh clears them (the
//! page says so). The answer is rendered as text nodes, never as HTML; each `[S#]` tag
//! becomes a button that shows the passage it names.
//!
//! The request is aborted after [`CHAT_TIMEOUT_MS`] (120 s). For browser tests the
//! page reads a `chatTimeoutMs` query parameter once per page load — the first time this page
//! renders (`/chat?chatTimeoutMs=1500`): it can only *shorten* the limit (100 ms minimum), is
//! never written anywhere, and a shortened limit is shown on the page.

mod docs;
mod send;
pub mod state;

use crate::chat::cite::{split_citations, Piece};
use crate::chat::fetch::{StreamHandle, CHAT_TIMEOUT_MS};
use crate::hooks::{set_on_change, set_on_input, toast, use_app};
use crate::i18n::{t, tf};
use crate::settings_store::read_local_proxy;
use crate::state::{AppHandle, ToastKind};
use crate::web::download;
use docs::DocsCard;
use geo_core::chat::{export_conversation_markdown, messages::validate_question, AnswerState, ExportTurn, Hit, TOP_K};
use geo_core::model::{EngineId, Lang};
use geo_core::provider::local_proxy::LocalProxy;
use send::{send, Session};
use state::{ChatTurn, Docs, Log};
use std::cell::RefCell;
use std::rc::Rc;
use yew::prelude::*;

/// The time limit given by a `chatTimeoutMs=N` query parameter in `search` (`?a=1&…`):
/// `N` clamped to 100 ms … [`CHAT_TIMEOUT_MS`]; [`CHAT_TIMEOUT_MS`] when absent or unreadable.
pub fn timeout_from_query(search: &str) -> u32 {
    crate::web::query_u32(search, "chatTimeoutMs").map(|ms| ms.clamp(100, CHAT_TIMEOUT_MS)).unwrap_or(CHAT_TIMEOUT_MS)
}

thread_local! {
    /// The time limit of this page load (see the module docs).
    static TIMEOUT_MS: u32 = timeout_from_query(
        &web_sys::window().and_then(|w| w.location().search().ok()).unwrap_or_default(),
    );
}

/// The passages "retrieve only" found for a question.
fn hits_panel(retrieved: Option<&(String, Vec<Hit>)>, lang: Lang) -> Html {
    match retrieved {
        None => html! {},
        Some((q, hits)) => html! {
            <section class="card" aria-labelledby="chat-hits-heading" data-testid="chat-hits">
                <h2 id="chat-hits-heading">{ tf(lang, "chat.hits_title", &[("q", q)]) }</h2>
                if hits.is_empty() {
                    <p class="error-box" data-testid="chat-no-hits" role="status">{ t(lang, "chat.no_hits") }</p>
                } else {
                    <ol class="chat-hits">
                        { for hits.iter().enumerate().map(|(i, hit)| html! {
                            <li data-testid="chat-hit" data-source={hit.source.clone()} data-score={hit.score.to_string()}>
                                <details>
                                    <summary>{ format!("[S{}] ", i + 1) }{ hit_label(lang, hit) }</summary>
                                    <p class="chat-text" data-testid="chat-hit-text">{ hit.text.clone() }</p>
                                </details>
                            </li>
                        }) }
                    </ol>
                }
            </section>
        },
    }
}

/// One question with its streamed answer (each `[S#]` a button showing its passage), its
/// state and its numbered sources.
fn turn_view(
    turn: &ChatTurn,
    expanded: &[(u32, usize)],
    toggle: &dyn Fn(u32, usize) -> Callback<MouseEvent>,
    lang: Lang,
) -> Html {
    let pieces = split_citations(&turn.answer);
    let answer = pieces.into_iter().map(|p| match p {
        Piece::Text(text) => html! { { text } },
        Piece::Cite(n) if n <= turn.hits.len() => {
            let open = expanded.contains(&(turn.id, n));
            html! {
                <button type="button" class="cite" data-testid="chat-cite" data-n={n.to_string()}
                    aria-expanded={open.to_string()} aria-controls={format!("src-{}-{n}", turn.id)}
                    title={hit_label(lang, &turn.hits[n - 1])} onclick={toggle(turn.id, n)}>{ format!("[S{n}]") }</button>
            }
        }
        Piece::Cite(n) => html! { { format!("[S{n}]") } },
    });
    let state = &turn.state;
    let status_class = match state {
        AnswerState::Done => "ok-box",
        AnswerState::Streaming => "muted",
        _ => "error-box",
    };
    html! {
        <article class="card chat-turn" data-testid="chat-turn">
            <h3 class="chat-q">{ turn.question.clone() }</h3>
            <p class="muted">{ format!("{} · {}", t(lang, "chat.model"), turn.model) }</p>
            <div class="chat-answer chat-text" data-testid="chat-answer" data-state={state.as_str()} data-code={state.code()}
                aria-live="polite" aria-busy={(*state == AnswerState::Streaming).to_string()}>
                { for answer }
            </div>
            <p class={status_class} data-testid="chat-answer-status" role={if state.is_done() { "status" } else { "alert" }}>
                { state.describe(lang) }
            </p>
            <h4>{ t(lang, "chat.sources") }</h4>
            if turn.hits.is_empty() {
                <p class="muted" data-testid="chat-no-sources">{ t(lang, "chat.no_hits") }</p>
            } else {
                <ol class="chat-sources">
                    { for turn.hits.iter().enumerate().map(|(i, hit)| {
                        let n = i + 1;
                        let open = expanded.contains(&(turn.id, n));
                        html! {
                            <li id={format!("src-{}-{n}", turn.id)} data-testid="chat-source" data-n={n.to_string()}
                                data-source={hit.source.clone()} data-score={hit.score.to_string()}>
                                <button type="button" class="linkish" aria-expanded={open.to_string()} onclick={toggle(turn.id, n)}>
                                    { format!("[S{n}] ") }{ hit_label(lang, hit) }
                                </button>
                                if open {
                                    <blockquote class="chat-text" data-testid="chat-source-text">{ hit.text.clone() }</blockquote>
                                }
                            </li>
                        }
                    }) }
                </ol>
            }
        </article>
    }
}
/// Downloads the conversation as Markdown (`docs-chat-YYYYMMDDhhmmss.md`).
fn export_log(app: &AppHandle, log: &Log) {
    let turns: Vec<ExportTurn> = log
        .turns
        .iter()
        .map(|t| ExportTurn {
            question: t.question.clone(),
            answer: t.answer.clone(),
            state: t.state.clone(),
            hits: t.hits.clone(),
        })
        .collect();
    let markdown = export_conversation_markdown(&turns, app.lang);
    let stamp: String = crate::web::now_iso().chars().filter(char::is_ascii_digit).take(14).collect();
    if let Err(msg) = download(&format!("docs-chat-{stamp}.md"), "text/markdown;charset=utf-8", &markdown) {
        toast(app, ToastKind::Error, msg);
    }
}

/// A callback maker opening or closing the excerpt of source `n` of a turn.
fn toggler(expanded: &UseStateHandle<Vec<(u32, usize)>>) -> impl Fn(u32, usize) -> Callback<MouseEvent> {
    let expanded = expanded.clone();
    move |turn: u32, n: usize| {
        let expanded = expanded.clone();
        Callback::from(move |_: MouseEvent| {
            let mut open = (*expanded).clone();
            match open.iter().position(|&k| k == (turn, n)) {
                Some(i) => {
                    open.remove(i);
                }
                None => open.push((turn, n)),
            }
            expanded.set(open);
        })
    }
}

/// Stops the running request (if any) when the page is left.
#[hook]
fn use_stop_on_unmount(live: &Rc<RefCell<Option<StreamHandle>>>) {
    let live = live.clone();
    use_effect_with((), move |_| {
        move || {
            if let Some(h) = live.borrow_mut().take() {
                h.stop();
            }
        }
    });
}

/// The heading line of a hit: name, chunk and score.
fn hit_label(lang: Lang, hit: &Hit) -> String {
    tf(
        lang,
        "chat.hit_label",
        &[("name", &hit.source), ("chunk", &(hit.chunk + 1).to_string()), ("score", &format!("{:.3}", hit.score))],
    )
}

/// The local proxy when Settings has it on, read once when the page opens (unreadable
/// settings leave it off: the chat then asks for a key).
#[hook]
fn use_local_proxy(app: &AppHandle) -> UseStateHandle<Option<LocalProxy>> {
    let proxy = use_state(|| None::<LocalProxy>);
    {
        let (proxy, repo) = (proxy.clone(), app.repo().cloned());
        use_effect_with((), move |_| {
            if let Some(repo) = repo {
                wasm_bindgen_futures::spawn_local(async move {
                    if let Ok(found) = read_local_proxy(&repo).await {
                        proxy.set(found);
                    }
                });
            }
        });
    }
    proxy
}

/// The line under the key field while the local proxy is on.
fn via_proxy_note(proxy: Option<&LocalProxy>, lang: Lang) -> Html {
    let Some(p) = proxy else { return Html::default() };
    html! {
        <p class="muted" data-testid="chat-via-proxy" data-value={p.url.clone()}>
            { tf(lang, "chat.via_proxy", &[("url", &p.url)]) }
        </p>
    }
}

/// Where the question goes: the key (`chat-key`), the line saying the local proxy is used,
/// the model (`chat-model`) and, under "advanced", the base URL (`chat-base-url`).
fn connection_fields(
    key: &UseStateHandle<String>,
    model: &UseStateHandle<String>,
    base_url: &UseStateHandle<String>,
    proxy: Option<&LocalProxy>,
    lang: Lang,
) -> Html {
    let on_key = set_on_input(key);
    let on_model = set_on_change(model);
    let on_base = set_on_input(base_url);
    html! {
        <>
            <label class="field">
                <span class="label-text">{ t(lang, "chat.key") }</span>
                <input type="password" data-testid="chat-key" autocomplete="off" spellcheck="false"
                    value={(**key).clone()} oninput={on_key} aria-describedby="chat-key-help" />
            </label>
            <p id="chat-key-help" class="muted">{ t(lang, "chat.key_help") }</p>
            { via_proxy_note(proxy, lang) }
            <label class="field">
                <span class="label-text">{ t(lang, "chat.model") }</span>
                <select data-testid="chat-model" onchange={on_model}>
                    { for geo_core::provider::spec(EngineId::Deepseek).models.iter().map(|m| html! { <option value={*m} selected={**model == *m}>{ *m }</option> }) }
                </select>
            </label>
            <details class="advanced">
                <summary data-testid="chat-advanced">{ t(lang, "chat.advanced") }</summary>
                <label class="field">
                    <span class="label-text">{ t(lang, "chat.base_url") }</span>
                    <input type="url" data-testid="chat-base-url" inputmode="url" spellcheck="false"
                        placeholder="https://api.deepseek.com" value={(**base_url).clone()} oninput={on_base}
                        aria-describedby="chat-base-help" />
                </label>
                <p id="chat-base-help" class="muted">{ t(lang, "chat.base_url_help") }</p>
            </details>
        </>
    }
}

/// The page.
#[function_component]
pub fn ChatPage() -> Html {
    let app = use_app();
    let lang = app.lang;
    let key = use_state(String::new);
    let model = use_state(|| geo_core::provider::spec(EngineId::Deepseek).default_model.to_string());
    let base_url = use_state(String::new);
    let proxy = use_local_proxy(&app);
    let question = use_state(String::new);
    let docs = use_reducer(Docs::default);
    let log = use_reducer(Log::default);
    let problem = use_state(|| None::<String>);
    let retrieved = use_state(|| None::<(String, Vec<Hit>)>);
    let running = use_state(|| None::<StreamHandle>);
    // The (turn, source) pairs whose excerpt is open: a handful, so a plain list.
    let expanded = use_state(Vec::<(u32, usize)>::new);
    let next_id = use_mut_ref(|| 0u32);
    let timeout_ms = TIMEOUT_MS.with(|t| *t);
    // The running request, for the unmount clean-up: leaving the page stops it.
    let live = use_mut_ref(|| None::<StreamHandle>);
    use_stop_on_unmount(&live);

    let on_question = set_on_input(&question);
    let on_retrieve = {
        let (docs, question, problem, retrieved) = (docs.clone(), question.clone(), problem.clone(), retrieved.clone());
        Callback::from(move |_: MouseEvent| {
            let q = match validate_question(&question) {
                Ok(q) => q.to_string(),
                Err(e) => return problem.set(Some(e.message().get(lang).to_string())),
            };
            if docs.is_empty() {
                return problem.set(Some(t(lang, "chat.no_docs").to_string()));
            }
            problem.set(None);
            let hits = docs.index.search(&q, TOP_K);
            retrieved.set(Some((q, hits)));
        })
    };
    let on_send = {
        let session = Session {
            docs: docs.clone(),
            log: log.clone(),
            question: question.clone(),
            problem: problem.clone(),
            running: running.clone(),
            key: key.clone(),
            model: model.clone(),
            base_url: base_url.clone(),
            proxy: proxy.clone(),
            next_id: next_id.clone(),
            live: live.clone(),
        };
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            send(&session, timeout_ms, lang);
        })
    };
    let on_stop = {
        let running = running.clone();
        Callback::from(move |_: MouseEvent| {
            if let Some(h) = running.as_ref() {
                h.stop();
            }
        })
    };
    let on_export = {
        let (app, log) = (app.clone(), log.clone());
        Callback::from(move |_: MouseEvent| export_log(&app, &log))
    };
    let toggle = toggler(&expanded);

    let busy = running.is_some();
    let hits_panel = hits_panel(retrieved.as_ref(), lang);
    let turns = log.turns.iter().map(|turn| turn_view(turn, &expanded, &toggle, lang));
    html! {
        <section class="chat-page">
            <h1>{ t(lang, "chat.title") }</h1>
            <p class="muted" data-testid="chat-memory-note">{ t(lang, "chat.memory_note") }</p>
            if timeout_ms < CHAT_TIMEOUT_MS {
                <p class="error-box" data-testid="chat-test-timeout">{ tf(lang, "chat.test_timeout", &[("ms", &timeout_ms.to_string())]) }</p>
            }

            <DocsCard docs={docs.clone()} />

            <form class="card" onsubmit={on_send} aria-labelledby="chat-ask-heading">
                <h2 id="chat-ask-heading">{ t(lang, "chat.ask") }</h2>
                { connection_fields(&key, &model, &base_url, proxy.as_ref(), lang) }
                <label class="field">
                    <span class="label-text">{ t(lang, "chat.question") }</span>
                    <textarea data-testid="chat-question" rows="3" value={(*question).clone()} oninput={on_question}
                        placeholder={t(lang, "chat.question_placeholder")} />
                </label>
                if let Some(msg) = &*problem {
                    <p class="error-box" data-testid="chat-error" role="alert">{ msg.clone() }</p>
                }
                <div class="row">
                    <button type="submit" data-testid="chat-send" disabled={busy}>{ t(lang, "chat.send") }</button>
                    <button type="button" class="secondary" data-testid="chat-retrieve-only" onclick={on_retrieve}>{ t(lang, "chat.retrieve_only") }</button>
                    <button type="button" class="danger" data-testid="chat-stop" disabled={!busy} onclick={on_stop}>{ t(lang, "chat.stop") }</button>
                    <button type="button" class="secondary" data-testid="chat-export" onclick={on_export}
                        disabled={log.turns.is_empty()}>{ t(lang, "chat.export") }</button>
                </div>
            </form>

            { hits_panel }
            <div class="chat-log" data-testid="chat-log">{ for turns }</div>
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn check(search: &str, expect: u32) {
        assert_eq!(timeout_from_query(search), expect, "{search}");
    }

    #[test]
    fn timeouts_from_the_query() {
        check("", CHAT_TIMEOUT_MS);
        check("?chatTimeoutMs=1500", 1500);
        check("?x=1&chatTimeoutMs=5", 100);
        check("?chatTimeoutMs=999999", CHAT_TIMEOUT_MS);
        check("?chatTimeoutMs=abc", CHAT_TIMEOUT_MS);
        check("?chattimeoutms=1500", CHAT_TIMEOUT_MS);
    }
}
