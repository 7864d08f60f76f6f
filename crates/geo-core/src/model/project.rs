//! A project: the monitored brand and its competitors ([`Target`]s), the prompts asked about
//! them ([`Prompt`], with the well-known [`tags`]) and the fact sheet a run freezes.

use serde::{Deserialize, Serialize};

use super::{Fact, FactSnapshot, Lang};

/// Whether a [`Target`] is the monitored brand or one of its competitors.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TargetKind {
    /// The brand the project monitors.
    Brand,
    /// A competitor of the brand.
    Competitor,
}

wire_names!(TargetKind { Brand => "brand", Competitor => "competitor" });

/// A tracked entity: the brand or a competitor, with the names and domains that identify it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Target {
    /// Stable id, unique within a project.
    pub id: String,
    /// Brand or competitor.
    pub kind: TargetKind,
    /// Display name.
    pub label: String,
    /// Names matched literally in answers (the recall boundary of mention matching).
    #[serde(default)]
    pub aliases: Vec<String>,
    /// Bare hosts such as `example.com`; a domain also matches its subdomains.
    #[serde(default)]
    pub domains: Vec<String>,
}

/// A monitored brand with its competitors.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Project {
    /// Stable id.
    pub id: String,
    /// Display name.
    pub name: String,
    /// The brand (kind `brand`).
    pub brand: Target,
    /// Competitors in the user's order (kind `competitor`).
    #[serde(default)]
    pub competitors: Vec<Target>,
    /// True for the bundled demo project.
    #[serde(default)]
    pub is_demo: bool,
    /// ISO 8601 UTC.
    pub created_at: String,
    /// ISO 8601 UTC.
    pub updated_at: String,
    /// The fact sheet: facts about the brand and its competitors that answers are checked
    /// against (absent = none).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub facts: Vec<Fact>,
    /// Terms flagged wherever a target is discussed (absent = none).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub watch_terms: Vec<String>,
}

impl Project {
    /// The fact sheet as a run freezes it (`factSnapshot`): `None` when the project has no
    /// fact and no watch term.
    pub fn fact_snapshot(&self) -> Option<FactSnapshot> {
        (!self.facts.is_empty() || !self.watch_terms.is_empty())
            .then(|| FactSnapshot { facts: self.facts.clone(), watch_terms: self.watch_terms.clone() })
    }

    /// Brand first, then competitors in project order: the shape of a run's `aliasSnapshot`.
    pub fn targets(&self) -> Vec<Target> {
        let mut out = Vec::with_capacity(1 + self.competitors.len());
        out.push(self.brand.clone());
        out.extend(self.competitors.iter().cloned());
        out
    }
}

/// Well-known prompt tags (other strings are allowed).
pub mod tags {
    /// 通用词: category questions that do not name the brand.
    pub const GENERIC: &str = "generic";
    /// 品牌词: questions that name the brand.
    pub const BRAND: &str = "brand";
    /// 产品词: questions about a product.
    pub const PRODUCT: &str = "product";
    /// 竞品词: questions that name a competitor.
    pub const COMPETITOR: &str = "competitor";
    /// 场景词: scenario questions.
    pub const SCENARIO: &str = "scenario";
    /// All well-known tags in display order.
    pub const ALL: &[&str] = &[GENERIC, BRAND, PRODUCT, COMPETITOR, SCENARIO];

    /// The Chinese names of [`ALL`], in the same order.
    const ZH: &[&str] = &["通用词", "品牌词", "产品词", "竞品词", "场景词"];

    /// The label of `tag` in `lang`: a well-known tag by its Chinese name (通用词, …) or its
    /// stored name in English; any other tag as written.
    pub fn label(tag: &str, lang: super::Lang) -> &str {
        match (ALL.iter().position(|k| *k == tag), lang) {
            (Some(i), super::Lang::Zh) => ZH[i],
            _ => tag,
        }
    }

    /// A tag as typed (`品牌词`, `brand`, ` Brand `) in its stored form (`brand`); other tags
    /// trimmed; `None` for a blank one.
    pub fn normalize(input: &str) -> Option<String> {
        let t = input.trim();
        if t.is_empty() {
            return None;
        }
        let known = ALL.iter().zip(ZH).find(|(k, zh)| k.eq_ignore_ascii_case(t) || **zh == t).map(|(k, _)| *k);
        Some(known.unwrap_or(t).to_string())
    }
}

/// A natural-language question asked of the assistant.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Prompt {
    /// Stable id.
    pub id: String,
    /// Owning project.
    pub project_id: String,
    /// The question text.
    pub text: String,
    /// Tags such as `generic`, `brand`, `product` (see [`tags`]).
    #[serde(default)]
    pub tags: Vec<String>,
    /// ISO 8601 UTC.
    pub created_at: String,
    /// ISO 8601 UTC.
    pub updated_at: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_map_between_chinese_and_stored_names() {
        assert_eq!(tags::normalize("品牌词").as_deref(), Some("brand"));
        assert_eq!(tags::normalize(" Scenario ").as_deref(), Some("scenario"));
        assert_eq!(tags::normalize("季节").as_deref(), Some("季节"));
        assert_eq!(tags::normalize("  "), None);
        assert_eq!(tags::label("competitor", Lang::Zh), "竞品词");
        assert_eq!(tags::label("competitor", Lang::En), "competitor");
        assert_eq!(tags::label("custom", Lang::Zh), "custom");
        for tag in tags::ALL {
            assert_eq!(tags::normalize(tags::label(tag, Lang::Zh)).as_deref(), Some(*tag));
        }
    }
}
