//! What a comparison says first when the method moved (`shared/spec/data-model.md`, "Method
//! and surface in `metrics`, `diff` and `engines`"): the Markdown's first paragraph after its
//! title and the one-paragraph summary (a webhook's text, the MCP tool's diff) open by naming
//! the changed `method` keys (`servedModels, location`), in Chinese or English, and the report
//! lists each change with both runs' values.

use serde_json::Value;

use super::runs::RunDiff;
use crate::metrics::changed_fields;
use crate::model::Lang;
use crate::text::md::escape_cell;

/// The paragraph that opens a report of runs that are not comparable (`None` when they are):
/// it begins with the changed fields' keys.
pub fn not_comparable_paragraph(diff: &RunDiff, lang: Lang) -> Option<String> {
    if diff.comparable {
        return None;
    }
    let fields = changed_fields(&diff.method_changes);
    Some(match lang {
        Lang::Zh => format!(
            "{fields} 有变化：两个批次的测量方式不同，**不能作为品牌表现直接比较**；下面的变化可能来自测量方式（引擎、界面、模型、位置或预算），而非品牌本身。"
        ),
        Lang::En => format!(
            "{fields} changed: the two runs were measured differently, so they are **not comparable as measurements of the brand**; a change below may be the method's (engine, surface, model, location or budget), not the brand's."
        ),
    })
}

/// The summary's first sentence for runs that are not comparable (`None` when they are): it
/// begins with the changed fields' keys, without Markdown.
pub fn not_comparable_sentence(diff: &RunDiff, lang: Lang) -> Option<String> {
    if diff.comparable {
        return None;
    }
    let fields = changed_fields(&diff.method_changes).replace(['\n', '\r'], " ");
    Some(match lang {
        Lang::Zh => format!("{fields} 有变化：测量方式不同，不能直接比较品牌表现"),
        Lang::En => format!("{fields} changed: not comparable as measurements of the brand"),
    })
}

/// The report's section listing each changed `method` field with both runs' values (empty when
/// the runs are comparable).
pub fn method_section(diff: &RunDiff, lang: Lang) -> String {
    if diff.comparable {
        return String::new();
    }
    let t = |zh: &'static str, en: &'static str| lang.pick(zh, en);
    let mut md = format!(
        "## {}\n\n| {} | {} | {} |\n|---|---|---|\n",
        t("测量方式的变化", "What changed in the method"),
        t("字段", "Field"),
        t("对照批次", "Against"),
        t("本批次", "Current"),
    );
    for c in &diff.method_changes {
        md.push_str(&format!(
            "| `{}` | {} | {} |\n",
            c.field,
            escape_cell(&value_text(&c.against)),
            escape_cell(&value_text(&c.current))
        ));
    }
    md.push('\n');
    md
}

/// A `method` value as a reader reads it: `—` for null or an empty list, a location as its label
/// (`Hangzhou, Zhejiang, CN (Asia/Shanghai)`), a list joined by `, `.
pub fn value_text(value: &Value) -> String {
    match value {
        Value::Null => "—".to_string(),
        Value::String(s) => s.clone(),
        Value::Array(items) if items.is_empty() => "—".to_string(),
        Value::Array(items) => items.iter().map(value_text).collect::<Vec<_>>().join(", "),
        Value::Object(map) => {
            // A location, read by hand as `Location::label` writes it (no second deserializer
            // of the model in the web app's module: ADR 0014).
            let part = |k: &str| map.get(k).and_then(Value::as_str);
            let mut label: Vec<&str> = [part("city"), part("region"), part("country")].into_iter().flatten().collect();
            let tz = part("timezone").map(|tz| format!(" ({tz})")).unwrap_or_default();
            if label.is_empty() {
                label.push("?");
            }
            format!("{}{tz}", label.join(", "))
        }
        other => other.to_string(),
    }
}
