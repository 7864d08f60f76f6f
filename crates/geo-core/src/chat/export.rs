//! Markdown export of a docs-chat conversation.
//!
//! Every turn keeps the question, the answer as received, a note of its state when it is
//! not a complete answer (so a partial answer never passes for a complete one), and the
//! numbered source snippets the model was given, with document name and chunk, so a reader
//! can check each `[S#]` against the real text.

use super::bm25::Hit;
use super::messages::source_label;
use super::stream::AnswerState;
use crate::model::Lang;

/// One turn of a conversation to export.
#[derive(Debug, Clone, PartialEq)]
pub struct ExportTurn {
    /// The question as asked.
    pub question: String,
    /// The answer text (possibly partial).
    pub answer: String,
    /// How the answer ended.
    pub state: AnswerState,
    /// The sources given to the model, in `[S1]`… order.
    pub hits: Vec<Hit>,
}

/// Writes the conversation as Markdown, headings in `lang`.
pub fn export_conversation_markdown(turns: &[ExportTurn], lang: Lang) -> String {
    let mut out = format!("# {}\n", lang.pick("文档问答记录", "Docs chat transcript"));
    if turns.is_empty() {
        out.push_str(&format!("\n{}\n", lang.pick("（没有对话）", "(no conversation)")));
    }
    for (i, turn) in turns.iter().enumerate() {
        out.push_str(&format!("\n## {} {}\n\n", lang.pick("问题", "Question"), i + 1));
        out.push_str(turn.question.trim());
        out.push_str(&format!("\n\n### {}\n\n", lang.pick("回答", "Answer")));
        let answer = turn.answer.trim();
        if answer.is_empty() {
            out.push_str(lang.pick("（没有回答文字）", "(no answer text)"));
        } else {
            out.push_str(answer);
        }
        out.push('\n');
        if !turn.state.is_done() {
            out.push_str(&format!(
                "\n> **{}**: {} ({})\n",
                lang.pick("状态", "State"),
                turn.state.describe(lang),
                turn.state.code()
            ));
        }
        out.push_str(&format!("\n### {}\n\n", lang.pick("资料片段", "Sources")));
        if turn.hits.is_empty() {
            out.push_str(lang.pick(
                "没有检索到与问题相关的资料片段。\n",
                "No passage of the loaded documents matched the question.\n",
            ));
        }
        for (n, hit) in turn.hits.iter().enumerate() {
            if n > 0 {
                out.push('\n');
            }
            out.push_str(&format!("**{}**\n\n", source_label(n + 1, hit)));
            for line in hit.text.trim_end().lines() {
                if line.is_empty() {
                    out.push_str(">\n");
                } else {
                    out.push_str("> ");
                    out.push_str(line);
                    out.push('\n');
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hit(text: &str) -> Hit {
        Hit { doc: 0, source: "rag.md".into(), chunk: 1, start: 780, end: 1680, score: 2.5, text: text.into() }
    }

    #[test]
    fn transcript_has_questions_answers_states_and_sources() {
        let turns = [
            ExportTurn {
                question: "RAG 分块和检索有什么关系?".into(),
                answer: "分块决定检索的粒度 [S1]。".into(),
                state: AnswerState::Done,
                hits: vec![hit("第一行\n\n第三行\n")],
            },
            ExportTurn { question: "q2".into(), answer: "part".into(), state: AnswerState::Cancelled, hits: vec![] },
        ];
        let md = export_conversation_markdown(&turns, Lang::Zh);
        assert_eq!(
            md,
            "# 文档问答记录\n\n## 问题 1\n\nRAG 分块和检索有什么关系?\n\n### 回答\n\n分块决定检索的粒度 [S1]。\n\n\
             ### 资料片段\n\n**[S1] rag.md · 第 2 块 / chunk 2 (chars 780–1680)**\n\n> 第一行\n>\n> 第三行\n\n\
             ## 问题 2\n\nq2\n\n### 回答\n\npart\n\n> **状态**: 已停止生成，以下为不完整内容 (cancelled)\n\n\
             ### 资料片段\n\n没有检索到与问题相关的资料片段。\n"
        );
        let en = export_conversation_markdown(&turns[1..], Lang::En);
        assert!(en.contains("> **State**: generation stopped by you; the answer is incomplete (cancelled)"), "{en}");
        assert_eq!(export_conversation_markdown(&[], Lang::En), "# Docs chat transcript\n\n(no conversation)\n");
    }
}
