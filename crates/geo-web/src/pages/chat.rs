//! Docs chat (seed 001): load TXT/Markdown files, retrieve passages with geo-core's BM25
//! index, and ask DeepSeek `chat/completions` for a streamed answer that cites the passages
//! as `[S1]`, `[S2]`….
//!
//! Everything lives in page memory only — the key, the documents and the conversation; no
//! Web Storage, cookie, IndexedDB or URL ever holds them, and a refresh clears them (the
//! page says so). The answer is rendered as text nodes, never as HTML; each `[S#]` tag
//! becomes a button that shows the passage it names.
//!
//! The request is aborted after [`fetch::CHAT_TIMEOUT_MS`] (120 s). For browser tests the
//! page reads a `chatTimeoutMs` query parameter once per page load — the first time this page
//! renders (`/chat?chatTimeoutMs=1500`): it can only *shorten* the limit (100 ms minimum), is
//! never written anywhere, and a shortened limit is shown on the page.

use crate::chat::cite::{split_citations, Piece};
use crate::chat::fetch::{self, ChatRequest, StreamHandle, CHAT_TIMEOUT_MS};
use crate::chat::files::{check_file, looks_binary};
use crate::chat::samples::fetch_samples;
use crate::hooks::{toast, use_app};
use crate::i18n::{t, tf};
use crate::settings_store::{parse_base_url, read_local_proxy};
use crate::state::{AppHandle, ToastKind};
use crate::web::download;
use geo_core::chat::{
    build_messages, build_request_body, chat_url, export_conversation_markdown, load_document,
    messages::validate_question, AnswerState, Document, ExportTurn, Hit, Index, Turn, TOP_K,
};
use geo_core::model::{EngineId, Lang};
use geo_core::provider::local_proxy::{self, LocalProxy};
use geo_core::provider::url::KeyError;
use std::cell::RefCell;
use std::rc::Rc;
use web_sys::{HtmlInputElement, HtmlSelectElement, HtmlTextAreaElement};
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

/// The loaded documents (held by their index) and the byte size of each one's file.
pub struct Docs {
    /// The BM25 index; `index.documents()` are the loaded documents in load order.
    pub index: Rc<Index>,
    /// The file size of each document, parallel to `index.documents()`.
    pub sizes: Vec<u64>,
}

impl PartialEq for Docs {
    /// The same index (a change always builds a new one) and the same sizes.
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.index, &other.index) && self.sizes == other.sizes
    }
}

impl Default for Docs {
    fn default() -> Self {
        Docs { index: Rc::new(Index::from_documents(Vec::new())), sizes: Vec::new() }
    }
}

impl Docs {
    /// Total bytes loaded.
    pub fn bytes(&self) -> u64 {
        self.sizes.iter().sum()
    }

    /// Whether nothing is loaded.
    pub fn is_empty(&self) -> bool {
        self.sizes.is_empty()
    }

    /// Documents with their sizes, in load order.
    pub fn iter(&self) -> impl Iterator<Item = (&Document, u64)> {
        self.index.documents().iter().zip(self.sizes.iter().copied())
    }
}

/// Changes to [`Docs`].
pub enum DocsAction {
    /// Adds documents; one with the name of a loaded document replaces it.
    Add(Vec<(Document, u64)>),
    /// Removes the document of this name.
    Remove(String),
}

impl Reducible for Docs {
    type Action = DocsAction;
    fn reduce(self: Rc<Self>, action: DocsAction) -> Rc<Self> {
        let mut docs: Vec<(Document, u64)> = self.iter().map(|(d, b)| (d.clone(), b)).collect();
        match action {
            DocsAction::Add(new) => {
                for (doc, bytes) in new {
                    docs.retain(|(d, _)| d.name != doc.name);
                    docs.push((doc, bytes));
                }
            }
            DocsAction::Remove(name) => docs.retain(|(d, _)| d.name != name),
        }
        let (plain, sizes): (Vec<Document>, Vec<u64>) = docs.into_iter().unzip();
        Rc::new(Docs { index: Rc::new(Index::from_documents(plain)), sizes })
    }
}

/// One question and its (possibly partial) answer.
#[derive(Clone, PartialEq)]
pub struct ChatTurn {
    /// Page-local id.
    pub id: u32,
    /// The question as asked.
    pub question: String,
    /// The answer text so far.
    pub answer: String,
    /// Where the answer stands.
    pub state: AnswerState,
    /// The numbered sources given to the model (`[S1]` is `hits[0]`).
    pub hits: Vec<Hit>,
    /// The model asked.
    pub model: String,
}

/// The conversation.
#[derive(Default, PartialEq)]
pub struct Log {
    /// Turns, oldest first.
    pub turns: Vec<ChatTurn>,
}

/// Changes to the [`Log`].
pub enum LogAction {
    /// A new turn starts streaming.
    Start(ChatTurn),
    /// The answer so far of turn `id`.
    Text(u32, String),
    /// Turn `id` ended with this answer and state.
    Finish(u32, String, AnswerState),
}

impl Reducible for Log {
    type Action = LogAction;
    fn reduce(self: Rc<Self>, action: LogAction) -> Rc<Self> {
        let mut turns = self.turns.clone();
        match action {
            LogAction::Start(turn) => turns.push(turn),
            LogAction::Text(id, text) => {
                if let Some(t) = turns.iter_mut().find(|t| t.id == id && t.state == AnswerState::Streaming) {
                    t.answer = text;
                }
            }
            LogAction::Finish(id, text, state) => {
                if let Some(t) = turns.iter_mut().find(|t| t.id == id) {
                    t.answer = text;
                    t.state = state;
                }
            }
        }
        Rc::new(Log { turns })
    }
}

/// Reads picked or dropped files: checks each (type, size, total), reads the accepted ones
/// and returns the documents plus one message per refused file.
async fn read_files(files: Vec<web_sys::File>, already: u64, lang: Lang) -> (Vec<(Document, u64)>, Vec<String>) {
    let mut loaded = already;
    let mut docs = Vec::new();
    let mut errors = Vec::new();
    for file in files {
        let (name, size) = (file.name(), file.size().max(0.0) as u64);
        if let Err(msg) = check_file(&name, &file.type_(), size, loaded, lang) {
            errors.push(msg);
            continue;
        }
        let text = wasm_bindgen_futures::JsFuture::from(file.text()).await.ok().and_then(|v| v.as_string());
        match text {
            Some(text) if !looks_binary(&text) => {
                loaded += size;
                docs.push((load_document(name, &text), size));
            }
            Some(_) => errors.push(tf(lang, "chat.file_not_text", &[("name", &name)])),
            None => errors.push(tf(lang, "chat.file_unreadable", &[("name", &name)])),
        }
    }
    (docs, errors)
}

/// `FileList` → `Vec<File>`.
fn file_vec(list: Option<web_sys::FileList>) -> Vec<web_sys::File> {
    let Some(list) = list else { return Vec::new() };
    (0..list.length()).filter_map(|i| list.get(i)).collect()
}

/// Props of [`DocsCard`].
#[derive(Properties, PartialEq)]
struct DocsCardProps {
    docs: UseReducerHandle<Docs>,
}

/// The documents card: pick or drop files (checked, read, indexed), the sample documents,
/// one message per refused file, and the loaded documents with a remove button each.
#[function_component]
fn DocsCard(props: &DocsCardProps) -> Html {
    let lang = use_app().lang;
    let docs = props.docs.clone();
    let file_errors = use_state(Vec::<String>::new);
    let dragging = use_state(|| false);
    let add_files = {
        let (docs, file_errors) = (docs.clone(), file_errors.clone());
        Callback::from(move |files: Vec<web_sys::File>| {
            if files.is_empty() {
                return;
            }
            let (docs, file_errors) = (docs.clone(), file_errors.clone());
            let already = docs.bytes();
            wasm_bindgen_futures::spawn_local(async move {
                let (new, errors) = read_files(files, already, lang).await;
                if !new.is_empty() {
                    docs.dispatch(DocsAction::Add(new));
                }
                file_errors.set(errors);
            });
        })
    };
    let on_pick = {
        let add_files = add_files.clone();
        Callback::from(move |e: Event| {
            let input: HtmlInputElement = e.target_unchecked_into();
            let files = file_vec(input.files());
            input.set_value("");
            add_files.emit(files);
        })
    };
    let on_drag_over = {
        let dragging = dragging.clone();
        Callback::from(move |e: DragEvent| {
            e.prevent_default();
            if !*dragging {
                dragging.set(true);
            }
        })
    };
    let on_drag_leave = {
        let dragging = dragging.clone();
        Callback::from(move |_: DragEvent| dragging.set(false))
    };
    let on_drop = {
        let (add_files, dragging) = (add_files.clone(), dragging.clone());
        Callback::from(move |e: DragEvent| {
            e.prevent_default();
            dragging.set(false);
            add_files.emit(file_vec(e.data_transfer().and_then(|d| d.files())));
        })
    };
    let on_samples = {
        let (docs, file_errors) = (docs.clone(), file_errors.clone());
        Callback::from(move |_: MouseEvent| {
            let (docs, file_errors) = (docs.clone(), file_errors.clone());
            wasm_bindgen_futures::spawn_local(async move {
                match fetch_samples().await {
                    Ok(samples) => {
                        let new = samples
                            .iter()
                            .map(|(name, text)| (load_document(*name, text), text.len() as u64))
                            .collect();
                        docs.dispatch(DocsAction::Add(new));
                        file_errors.set(Vec::new());
                    }
                    Err(detail) => file_errors.set(vec![tf(lang, "chat.samples_failed", &[("detail", &detail)])]),
                }
            });
        })
    };
    let doc_rows = docs.iter().map(|(doc, bytes)| {
        let remove = {
            let (docs, name) = (docs.clone(), doc.name.clone());
            Callback::from(move |_: MouseEvent| docs.dispatch(DocsAction::Remove(name.clone())))
        };
        html! {
            <li class="chat-doc" data-testid="chat-doc-row" data-name={doc.name.clone()} data-chunks={doc.chunks.len().to_string()}>
                <span class="chat-doc-name">{ doc.name.clone() }</span>
                <span class="muted">{ tf(lang, "chat.doc_meta", &[("chunks", &doc.chunks.len().to_string()), ("kb", &format!("{:.1}", bytes as f64 / 1024.0))]) }</span>
                <button type="button" class="secondary" data-testid="chat-doc-remove" onclick={remove}
                    aria-label={tf(lang, "chat.remove_doc", &[("name", &doc.name)])}>{ t(lang, "chat.remove") }</button>
            </li>
        }
    });
    html! {
        <div class="card">
            <h2>{ t(lang, "chat.docs") }</h2>
            <div class={classes!("dropzone", dragging.then_some("dragging"))} data-testid="chat-drop"
                ondragover={on_drag_over.clone()} ondragenter={on_drag_over} ondragleave={on_drag_leave} ondrop={on_drop}>
                <label class="field">
                    <span class="label-text">{ t(lang, "chat.pick") }</span>
                    <input type="file" multiple=true accept=".txt,.md,.markdown,text/plain,text/markdown"
                        data-testid="chat-file-input" onchange={on_pick} aria-describedby="chat-limits" />
                </label>
                <p id="chat-limits" class="muted">{ t(lang, "chat.drop_help") }</p>
            </div>
            <div class="row">
                <button type="button" class="secondary" data-testid="chat-load-sample" onclick={on_samples}>{ t(lang, "chat.load_sample") }</button>
            </div>
            if !file_errors.is_empty() {
                <ul class="error-box" data-testid="chat-file-errors" role="alert">
                    { for file_errors.iter().map(|m| html! { <li>{ m.clone() }</li> }) }
                </ul>
            }
            if docs.is_empty() {
                <p class="empty" data-testid="empty-state">{ t(lang, "chat.empty") }</p>
            } else {
                <ul class="chat-docs">{ for doc_rows }</ul>
            }
        </div>
    }
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

/// The page's state a question needs (cheap handles: cloning shares them).
#[derive(Clone)]
struct Session {
    docs: UseReducerHandle<Docs>,
    log: UseReducerHandle<Log>,
    question: UseStateHandle<String>,
    problem: UseStateHandle<Option<String>>,
    running: UseStateHandle<Option<StreamHandle>>,
    key: UseStateHandle<String>,
    model: UseStateHandle<String>,
    base_url: UseStateHandle<String>,
    /// The local proxy when Settings turned it on (read when the page opens).
    proxy: UseStateHandle<Option<LocalProxy>>,
    next_id: Rc<RefCell<u32>>,
    live: Rc<RefCell<Option<StreamHandle>>>,
}

/// Asks the question: checks it, the base URL and the key, retrieves the top passages,
/// starts a streamed turn and feeds its text into the log until it ends.
fn send(s: &Session, timeout_ms: u32, lang: Lang) {
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

    let on_key = {
        let key = key.clone();
        Callback::from(move |e: InputEvent| key.set(e.target_unchecked_into::<HtmlInputElement>().value()))
    };
    let on_model = {
        let model = model.clone();
        Callback::from(move |e: Event| model.set(e.target_unchecked_into::<HtmlSelectElement>().value()))
    };
    let on_base = {
        let base_url = base_url.clone();
        Callback::from(move |e: InputEvent| base_url.set(e.target_unchecked_into::<HtmlInputElement>().value()))
    };
    let on_question = {
        let question = question.clone();
        Callback::from(move |e: InputEvent| question.set(e.target_unchecked_into::<HtmlTextAreaElement>().value()))
    };
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
                <label class="field">
                    <span class="label-text">{ t(lang, "chat.key") }</span>
                    <input type="password" data-testid="chat-key" autocomplete="off" spellcheck="false"
                        value={(*key).clone()} oninput={on_key} aria-describedby="chat-key-help" />
                </label>
                <p id="chat-key-help" class="muted">{ t(lang, "chat.key_help") }</p>
                { via_proxy_note(proxy.as_ref(), lang) }
                <label class="field">
                    <span class="label-text">{ t(lang, "chat.model") }</span>
                    <select data-testid="chat-model" onchange={on_model}>
                        { for geo_core::provider::spec(EngineId::Deepseek).models.iter().map(|m| html! { <option value={*m} selected={*model == *m}>{ *m }</option> }) }
                    </select>
                </label>
                <details class="advanced">
                    <summary data-testid="chat-advanced">{ t(lang, "chat.advanced") }</summary>
                    <label class="field">
                        <span class="label-text">{ t(lang, "chat.base_url") }</span>
                        <input type="url" data-testid="chat-base-url" inputmode="url" spellcheck="false"
                            placeholder="https://api.deepseek.com" value={(*base_url).clone()} oninput={on_base}
                            aria-describedby="chat-base-help" />
                    </label>
                    <p id="chat-base-help" class="muted">{ t(lang, "chat.base_url_help") }</p>
                </details>
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

    #[test]
    fn docs_replace_by_name_and_reindex() {
        let docs = Rc::new(Docs::default());
        let docs = docs.reduce(DocsAction::Add(vec![
            (load_document("a.md", "分块 检索"), 10),
            (load_document("b.md", "other"), 5),
        ]));
        let docs = docs.reduce(DocsAction::Add(vec![(load_document("a.md", "新的 分块"), 7)]));
        assert_eq!(docs.iter().map(|(d, _)| d.name.as_str()).collect::<Vec<_>>(), ["b.md", "a.md"]);
        assert_eq!(docs.bytes(), 12);
        assert_eq!(docs.index.search("分块", TOP_K).len(), 1);
        let docs = docs.reduce(DocsAction::Remove("a.md".into()));
        assert!(docs.index.search("分块", TOP_K).is_empty());
    }

    #[test]
    fn a_finished_turn_ignores_late_text() {
        let turn = ChatTurn {
            id: 1,
            question: "q".into(),
            answer: String::new(),
            state: AnswerState::Streaming,
            hits: vec![],
            model: "m".into(),
        };
        let log = Rc::new(Log::default()).reduce(LogAction::Start(turn));
        let log = log.reduce(LogAction::Text(1, "部分".into()));
        let log = log.reduce(LogAction::Finish(1, "部分".into(), AnswerState::Cancelled));
        let log = log.reduce(LogAction::Text(1, "部分 more".into()));
        assert_eq!(log.turns[0].answer, "部分");
        assert_eq!(log.turns[0].state.as_str(), "cancelled");
    }
}
