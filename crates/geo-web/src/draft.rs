//! Pure form logic of the projects page: the editable draft of a project and bulk prompt
//! paste. No browser here, so it is tested natively. The rules for names, domains and tags
//! are geo-core's (`geo_core::project`, `geo_core::model::tags`): an alias list keeps one
//! alias per matching normal form, so `GEO` and the full-width `ＧＥＯ` are one name.

use geo_core::model::{tags, Lang, Project, Prompt, Target, TargetKind};
use geo_core::project::{alias_lines, domain_lines};

/// The editable text of one target (brand or competitor).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TargetDraft {
    /// Existing target id; `None` for a new one.
    pub id: Option<String>,
    /// Display name.
    pub label: String,
    /// Aliases, one per line.
    pub aliases: String,
    /// Domains, one per line.
    pub domains: String,
}

/// The editable text of a project.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ProjectDraft {
    /// Existing project id; `None` while creating.
    pub id: Option<String>,
    /// Project name (the brand label when left empty).
    pub name: String,
    /// The brand.
    pub brand: TargetDraft,
    /// Competitors in display order.
    pub competitors: Vec<TargetDraft>,
}

/// Why a draft cannot be saved.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DraftError {
    /// The brand has no label.
    BrandLabelMissing,
    /// Competitor N (0-based) has aliases or domains but no label.
    CompetitorLabelMissing(usize),
}

impl DraftError {
    /// The message in `lang`.
    pub fn message(self, lang: Lang) -> String {
        match (self, lang) {
            (DraftError::BrandLabelMissing, Lang::Zh) => "请填写品牌名称".into(),
            (DraftError::BrandLabelMissing, Lang::En) => "enter the brand name".into(),
            (DraftError::CompetitorLabelMissing(i), Lang::Zh) => format!("请填写第 {} 个竞品的名称", i + 1),
            (DraftError::CompetitorLabelMissing(i), Lang::En) => format!("enter the name of competitor {}", i + 1),
        }
    }
}

impl TargetDraft {
    /// The draft of a stored target.
    pub fn from_target(t: &Target) -> Self {
        TargetDraft {
            id: Some(t.id.clone()),
            label: t.label.clone(),
            aliases: t.aliases.join("\n"),
            domains: t.domains.join("\n"),
        }
    }

    fn is_blank(&self) -> bool {
        self.label.trim().is_empty() && self.aliases.trim().is_empty() && self.domains.trim().is_empty()
    }

    /// The target: the label is always matched too, so it leads the alias list.
    fn to_target(&self, id: String, kind: TargetKind) -> Target {
        let label = self.label.trim().to_string();
        let aliases = alias_lines(&format!("{label}\n{}", self.aliases));
        Target { id, kind, label, aliases, domains: domain_lines(&self.domains) }
    }
}

impl ProjectDraft {
    /// The draft of a stored project.
    pub fn from_project(p: &Project) -> Self {
        ProjectDraft {
            id: Some(p.id.clone()),
            name: p.name.clone(),
            brand: TargetDraft::from_target(&p.brand),
            competitors: p.competitors.iter().map(TargetDraft::from_target).collect(),
        }
    }

    /// Builds the project to store. `new_id(prefix)` makes ids for new records; `now` is
    /// the current time; `existing` is the stored version when editing (keeps `createdAt`,
    /// `isDemo` and the fact sheet, which the fact editor saves). Blank competitor rows are
    /// dropped.
    pub fn to_project(
        &self,
        existing: Option<&Project>,
        now: &str,
        mut new_id: impl FnMut(&str) -> String,
    ) -> Result<Project, DraftError> {
        if self.brand.label.trim().is_empty() {
            return Err(DraftError::BrandLabelMissing);
        }
        let mut competitors = Vec::new();
        for (i, c) in self.competitors.iter().enumerate() {
            if c.is_blank() {
                continue;
            }
            if c.label.trim().is_empty() {
                return Err(DraftError::CompetitorLabelMissing(i));
            }
            let id = c.id.clone().unwrap_or_else(|| new_id("tgt"));
            competitors.push(c.to_target(id, TargetKind::Competitor));
        }
        let brand_id = self.brand.id.clone().unwrap_or_else(|| "brand".to_string());
        let brand = self.brand.to_target(brand_id, TargetKind::Brand);
        let name = if self.name.trim().is_empty() { brand.label.clone() } else { self.name.trim().to_string() };
        Ok(Project {
            id: self.id.clone().or_else(|| existing.map(|p| p.id.clone())).unwrap_or_else(|| new_id("proj")),
            name,
            brand,
            competitors,
            is_demo: existing.is_some_and(|p| p.is_demo),
            created_at: existing.map(|p| p.created_at.clone()).unwrap_or_else(|| now.to_string()),
            updated_at: now.to_string(),
            facts: existing.map(|p| p.facts.clone()).unwrap_or_default(),
            watch_terms: existing.map(|p| p.watch_terms.clone()).unwrap_or_default(),
        })
    }
}

/// The label of a tag in `lang` ([`tags::label`]) as an owned string for the markup.
pub fn tag_label(tag: &str, lang: Lang) -> String {
    tags::label(tag, lang).to_string()
}

/// New prompts from text (one per line), skipping blanks and texts already present in
/// `existing` or earlier in the paste. Each gets `tags`, a fresh id and the time
/// `stamp(n)` for the n-th new prompt: callers give increasing times so that the
/// `createdAt` order keeps the pasted order.
pub fn new_prompts(
    text: &str,
    tags: &[String],
    project_id: &str,
    existing: &[Prompt],
    mut stamp: impl FnMut(usize) -> String,
    mut new_id: impl FnMut(&str) -> String,
) -> Vec<Prompt> {
    let mut seen: Vec<String> = existing.iter().map(|p| p.text.trim().to_string()).collect();
    let mut out = Vec::new();
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
        if seen.iter().any(|s| s == line) {
            continue;
        }
        seen.push(line.to_string());
        let now = stamp(out.len());
        out.push(Prompt {
            id: new_id("prm"),
            project_id: project_id.to_string(),
            text: line.to_string(),
            tags: tags.to_vec(),
            created_at: now.clone(),
            updated_at: now,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids() -> impl FnMut(&str) -> String {
        let mut n = 0;
        move |prefix| {
            n += 1;
            format!("{prefix}_{n}")
        }
    }

    #[test]
    fn draft_builds_a_project_with_label_first_among_aliases() {
        let draft = ProjectDraft {
            id: None,
            name: String::new(),
            brand: TargetDraft {
                id: None,
                label: "元构场".into(),
                aliases: "yuangouchang\n元构场\nＹＵＡＮＧＯＵＣＨＡＮＧ".into(),
                domains: "https://yuangouchang.com/\nyuangouchang.com\nHTTPS://WWW.YuanGouChang.com/about".into(),
            },
            competitors: vec![
                TargetDraft { id: None, label: "Rival".into(), aliases: String::new(), domains: "rival.io".into() },
                TargetDraft::default(),
            ],
        };
        let p = draft.to_project(None, "2026-11-29T08:00:00.000Z", ids()).unwrap();
        assert_eq!(p.name, "元构场");
        assert_eq!(p.brand.aliases, ["元构场", "yuangouchang"]);
        assert_eq!(p.brand.domains, ["yuangouchang.com"]);
        assert_eq!(p.brand.id, "brand");
        assert_eq!(p.competitors.len(), 1);
        assert_eq!(p.competitors[0].id, "tgt_1");
        assert_eq!(p.competitors[0].kind, TargetKind::Competitor);
        assert_eq!(p.id, "proj_2");
        assert_eq!(p.created_at, p.updated_at);
        let round = ProjectDraft::from_project(&p);
        let again = round.to_project(Some(&p), "2026-12-01T00:00:00.000Z", ids()).unwrap();
        assert_eq!(again.id, p.id);
        assert_eq!(again.competitors[0].id, "tgt_1");
        assert_eq!(again.created_at, p.created_at);
        assert_eq!(again.updated_at, "2026-12-01T00:00:00.000Z");
        // Saving the brand and competitors keeps the fact sheet saved beside them.
        let with_sheet = Project { watch_terms: vec!["限流".into()], ..p.clone() };
        let kept = round.to_project(Some(&with_sheet), "2026-12-02T00:00:00.000Z", ids()).unwrap();
        assert_eq!(kept.watch_terms, ["限流"]);
    }

    #[test]
    fn draft_errors_name_the_missing_field() {
        let mut draft = ProjectDraft::default();
        assert_eq!(draft.to_project(None, "t", ids()), Err(DraftError::BrandLabelMissing));
        draft.brand.label = "B".into();
        draft.competitors = vec![TargetDraft { aliases: "x".into(), ..TargetDraft::default() }];
        assert_eq!(draft.to_project(None, "t", ids()), Err(DraftError::CompetitorLabelMissing(0)));
        assert_eq!(DraftError::CompetitorLabelMissing(0).message(Lang::En), "enter the name of competitor 1");
    }

    #[test]
    fn bulk_prompts_skip_blanks_and_duplicates() {
        let existing = new_prompts("已有问题", &[], "p", &[], |_| "t".into(), ids());
        let out = new_prompts(
            "问题一\n\n 问题二 \n问题一\n已有问题\n",
            &["generic".into()],
            "p",
            &existing,
            |n| format!("t{n}"),
            ids(),
        );
        assert_eq!(out.iter().map(|p| p.text.as_str()).collect::<Vec<_>>(), ["问题一", "问题二"]);
        assert_eq!(out[0].tags, ["generic"]);
        assert_eq!(out[0].project_id, "p");
        assert_ne!(out[0].id, out[1].id);
        assert_eq!((out[0].created_at.as_str(), out[1].created_at.as_str()), ("t0", "t1"));
    }
}
