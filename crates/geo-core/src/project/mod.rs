//! The project editor's rules: what the brand's and competitors' names and domains become
//! when a user types or pastes them, decided the way matching and classification read them.
//!
//! An alias list keeps one alias per matching normal form (NFKC + lower-case, as
//! [`match_targets`](crate::analysis::mentions::match_targets) compares): `GEO`, `geo` and
//! the full-width `ＧＥＯ` are one name, so pasting them yields one alias, and adding `ＧＥＯ`
//! as a competitor when a target is already called `GEO` changes nothing. A configured
//! domain is stored as [`normalize_configured_domain`] reads it, so the editor shows exactly
//! the host that sources are classified against. The fact sheet's rules are
//! [`validate_fact_sheet`] and [`parse_facts_file`] (`project/facts.rs`).

mod facts;
pub(crate) use facts::{fact_sheet_problems, json_fact_problems};
pub use facts::{parse_facts_file, validate_fact_sheet, FactField, FactProblem};

use crate::analysis::urls::normalize_configured_domain;
use crate::model::{Project, Target, TargetKind};
use crate::text::normalize_for_match;

/// Whether two names are the same for matching (NFKC + lower-case, trimmed).
pub fn same_name(a: &str, b: &str) -> bool {
    normalize_for_match(a.trim()) == normalize_for_match(b.trim())
}

/// The aliases in `text` (one a line): trimmed, blanks dropped, and a line whose matching
/// normal form is that of an earlier one dropped (the first spelling is kept).
pub fn alias_lines(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut seen: Vec<String> = Vec::new();
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
        let key = normalize_for_match(line);
        if !seen.contains(&key) {
            seen.push(key);
            out.push(line.to_string());
        }
    }
    out
}

/// The configured domains in `text` (one a line), each as [`normalize_configured_domain`]
/// reads it (`https://www.Example.com/path` → `example.com`), lines that name no host
/// dropped, duplicates dropped.
pub fn domain_lines(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for domain in text.lines().filter_map(normalize_configured_domain) {
        if !out.contains(&domain) {
            out.push(domain);
        }
    }
    out
}

/// The target of `project` (brand or competitor) named `name` by its label or an alias,
/// compared in the matching normal form.
pub fn target_named<'p>(project: &'p Project, name: &str) -> Option<&'p Target> {
    std::iter::once(&project.brand)
        .chain(&project.competitors)
        .find(|t| same_name(&t.label, name) || t.aliases.iter().any(|a| same_name(a, name)))
}

/// `project` with a new competitor named `name` (its label and only alias) with id `id`,
/// updated at `now`; `None` when `name` is blank or already names a target (see
/// [`target_named`]). Runs keep their own alias snapshot: only the project changes.
pub fn with_competitor(project: &Project, name: &str, id: String, now: &str) -> Option<Project> {
    let name = name.trim();
    if name.is_empty() || target_named(project, name).is_some() {
        return None;
    }
    let mut next = project.clone();
    next.competitors.push(Target {
        id,
        kind: TargetKind::Competitor,
        label: name.to_string(),
        aliases: vec![name.to_string()],
        domains: Vec::new(),
    });
    next.updated_at = now.to_string();
    Some(next)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn project() -> Project {
        serde_json::from_value(serde_json::json!({
            "id": "p", "name": "n", "createdAt": "a", "updatedAt": "a",
            "brand": { "id": "b", "kind": "brand", "label": "元构场", "aliases": ["Yuangouchang"] },
            "competitors": [{ "id": "c", "kind": "competitor", "label": "GEOBoost", "aliases": ["GEO"] }]
        }))
        .expect("valid project")
    }

    #[test]
    fn aliases_are_deduplicated_in_the_matching_normal_form() {
        assert_eq!(
            alias_lines(" GEO \n\ngeo\nＧＥＯ\n元构场\r\n元构场 \nｇｅｏ探针\nGEO探针"),
            ["GEO", "元构场", "ｇｅｏ探针"]
        );
        assert_eq!(alias_lines(""), Vec::<String>::new());
    }

    #[test]
    fn domains_are_the_hosts_sources_are_classified_against() {
        let got = domain_lines("https://www.Example.com/path?q=1\nexample.com\n  baike.baidu.com  \nhttp://user@host.cn:8080/\n*.acme.cn\n\n例子.中国\n   ");
        assert_eq!(got, ["example.com", "baike.baidu.com", "host.cn", "acme.cn", "xn--fsqu00a.xn--fiqs8s"]);
        for d in &got {
            assert_eq!(normalize_configured_domain(d).as_deref(), Some(d.as_str()), "stable: {d}");
        }
    }

    #[test]
    fn a_full_width_name_is_not_a_second_competitor() {
        let p = project();
        assert!(with_competitor(&p, "ＧＥＯ", "t1".into(), "now").is_none(), "ＧＥＯ is GEOBoost's alias GEO");
        assert!(with_competitor(&p, "ｇｅｏｂｏｏｓｔ", "t1".into(), "now").is_none());
        assert!(with_competitor(&p, "yuangouchang", "t1".into(), "now").is_none());
        assert!(with_competitor(&p, "  ", "t1".into(), "now").is_none());
        let next = with_competitor(&p, " 智谱营销 ", "t1".into(), "now").expect("added");
        assert_eq!(next.competitors.len(), 2);
        assert_eq!(
            (next.competitors[1].label.as_str(), &next.competitors[1].aliases[..]),
            ("智谱营销", &["智谱营销".to_string()][..])
        );
        assert_eq!(next.updated_at, "now");
        assert!(with_competitor(&next, "智谱营销", "t2".into(), "x").is_none());
        assert_eq!(target_named(&next, "ｇｅｏ").map(|t| t.id.as_str()), Some("c"));
    }
}
