//! The Docs chat's page state as two reducers, free of rendering and of the browser: the
//! loaded documents ([`Docs`], their BM25 index rebuilt on every change) and the
//! conversation ([`Log`], whose turns stream until they finish). Tested natively.

use geo_core::chat::{AnswerState, Document, Hit, Index};
use std::rc::Rc;
use yew::Reducible;

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

#[cfg(test)]
mod tests {
    use super::*;
    use geo_core::chat::{load_document, TOP_K};

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
