//! `normalize_sources` and `classify_source` (seed §5.2): raw search results become
//! deduplicated, classified [`SearchSource`]s.
//!
//! A raw source is "the N-th result of some query". Sources are grouped by canonical URL
//! ([`normalize_url`], the same path answer links use), so one page returned by several
//! queries is one source with several occurrences. Ownership is decided in a fixed order:
//! the brand's domains, then competitors' domains, then the static platform table, then the
//! fallback. Targets come before platforms on purpose: a brand whose site lives on a
//! platform-looking host (`acme.github.io`) still owns it.
//!
//! Two engine facts are handled here, once, for every probe:
//!
//! * **Grounding redirects.** Gemini gives every source as an opaque redirect on
//!   [`GROUNDING_REDIRECT_HOST`] with the publisher's host name as its title. Such a
//!   source takes its `host` and `domain` from the title when the title is a host name
//!   (else they stay the redirect's); its canonical URL stays the redirect.
//! * **Cited Sources.** [`mark_cited`] sets `cited` from the probe's `rawCitations`.

use std::collections::HashMap;

use crate::analysis::mentions::TargetMatcher;
use crate::analysis::platforms::{lookup_platform, OFFICIAL, OTHER};
use crate::analysis::urls::{
    comparable_host, has_registrable_domain, host_is_under, normalize_configured_domain, normalize_url,
};
use crate::model::{Occurrence, Ownership, Query, RawCitation, RawSource, SearchSource, Target, TargetKind};

/// Host of Gemini's grounding redirects (`https://vertexaisearch.cloud.google.com/grounding-api-redirect/…`).
pub const GROUNDING_REDIRECT_HOST: &str = "vertexaisearch.cloud.google.com";

/// The host and registrable domain a title names when it is a bare host name
/// (`aljazeera.com`, `www.bbc.co.uk`): one word of letters, digits, `-` and `.`, with a dot,
/// that parses as an http host with a registrable domain. Page titles never qualify.
pub fn host_from_title(title: &str) -> Option<(String, String)> {
    let t = title.trim().trim_end_matches('.');
    let hostlike = t.len() <= 253
        && t.contains('.')
        && !t.starts_with(['.', '-'])
        && t.chars().all(|c| c.is_alphanumeric() || c == '-' || c == '.')
        && !t.split('.').any(str::is_empty)
        && t.rsplit('.').next().is_some_and(|tld| tld.chars().any(char::is_alphabetic));
    if !hostlike {
        return None;
    }
    let parts = normalize_url(&format!("https://{t}/"))?;
    has_registrable_domain(&parts.host).then_some((parts.host, parts.domain))
}

/// Marks every source of a probe as cited or not (data-model.md, "Cited Source"): a source
/// is cited when its canonical URL equals the canonical URL of one of the probe's
/// `rawCitations`; with no `rawCitations` (an engine without citation data) `cited` is
/// `None` for every source.
pub fn mark_cited(sources: &mut [SearchSource], citations: Option<&[RawCitation]>) {
    let Some(citations) = citations else {
        sources.iter_mut().for_each(|s| s.cited = None);
        return;
    };
    let cited: rustc_hash::FxHashSet<String> =
        citations.iter().filter_map(|c| normalize_url(&c.url)).map(|p| p.canonical).collect();
    for s in sources.iter_mut() {
        s.cited = Some(cited.contains(&s.url));
    }
}

/// Who a source belongs to and where it counts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Classification {
    /// Platform name: the target's label, the platform's Chinese name, or the domain.
    pub platform: String,
    /// Channel key (see `analysis::platforms::CHANNELS`).
    pub channel: String,
    /// Owned, competitor or third party.
    pub ownership: Ownership,
    /// The competitor's id when `ownership` is `competitor`.
    pub competitor_id: Option<String>,
}

/// The targets with their configured domains normalised once (see
/// `urls::normalize_configured_domain`), for classifying many hosts.
#[derive(Debug, Clone)]
pub(crate) struct TargetDomains<'a> {
    targets: &'a [Target],
    /// Per target, its usable domains in the form `host_matches_domain` compares.
    domains: Vec<Vec<String>>,
}

impl<'a> TargetDomains<'a> {
    /// Normalises the domains of every target.
    pub(crate) fn new(targets: &'a [Target]) -> Self {
        let domains =
            targets.iter().map(|t| t.domains.iter().filter_map(|d| normalize_configured_domain(d)).collect()).collect();
        TargetDomains { targets, domains }
    }

    /// The first target of `kind` owning `host` (already in `comparable_host` form).
    fn owner(&self, kind: TargetKind, host: &str) -> Option<&'a Target> {
        self.targets
            .iter()
            .zip(&self.domains)
            .find(|(t, domains)| t.kind == kind && domains.iter().any(|d| host_is_under(host, d)))
            .map(|(t, _)| t)
    }
}

/// Classifies a source by its host and registrable domain, in the seed's order:
///
/// 1. a domain of a `brand` target matches → `owned`, platform = the brand's label,
///    channel `official`;
/// 2. a domain of a `competitor` target matches (first in snapshot order) → `competitor`
///    with its id, platform = its label, channel `official`;
/// 3. a platform rule matches → `third_party` with the platform's Chinese name and channel;
/// 4. otherwise → `third_party`, platform = the domain, channel `other`.
///
/// Targets are told apart by `kind`, not by position. A configured domain also covers its
/// subdomains (see `host_matches_domain`).
pub fn classify_source(host: &str, domain: &str, targets: &[Target]) -> Classification {
    classify_source_with(host, domain, &TargetDomains::new(targets))
}

/// [`classify_source`] with the targets' domains prepared.
pub(crate) fn classify_source_with(host: &str, domain: &str, targets: &TargetDomains) -> Classification {
    let official = |t: &Target, ownership, competitor_id| Classification {
        platform: t.label.clone(),
        channel: OFFICIAL.to_string(),
        ownership,
        competitor_id,
    };
    let comparable = comparable_host(host);
    if let Some(brand) = targets.owner(TargetKind::Brand, &comparable) {
        return official(brand, Ownership::Owned, None);
    }
    if let Some(c) = targets.owner(TargetKind::Competitor, &comparable) {
        return official(c, Ownership::Competitor, Some(c.id.clone()));
    }
    match lookup_platform(host, domain) {
        Some(platform) => Classification {
            platform: platform.name_zh.to_string(),
            channel: platform.channel.to_string(),
            ownership: Ownership::ThirdParty,
            competitor_id: None,
        },
        None => Classification {
            platform: domain.to_string(),
            channel: OTHER.to_string(),
            ownership: Ownership::ThirdParty,
            competitor_id: None,
        },
    }
}

/// A source being accumulated, before sorting.
struct Group {
    url: String,
    host: String,
    domain: String,
    title: String,
    title_chars: usize,
    page_age: Option<String>,
    occurrences: Vec<Occurrence>,
}

/// Turns a probe's raw search results into its sources (seed §5.2).
///
/// * Results whose URL is not a parsable `http`/`https` URL are skipped.
/// * Results are grouped by canonical URL. Every result becomes an occurrence
///   `{queryIndex, query, rank}`, where `query` is the words of the query with that index
///   in `queries` (`None` for an internal or unknown query).
/// * The title is the longest (in characters, after trimming) seen; on a tie the first wins.
///   `pageAge` is the first non-empty one.
/// * `bestRank` is the smallest rank; `titleMentions` are the targets named in the title.
/// * Sorted by `bestRank`, then title (code-point order, locale-independent), then URL;
///   ids `src_1`, `src_2`, … in that order.
pub fn normalize_sources(queries: &[Query], raw: &[RawSource], targets: &[Target]) -> Vec<SearchSource> {
    normalize_sources_with(queries, raw, &TargetMatcher::new(targets), &TargetDomains::new(targets))
}

/// [`normalize_sources`] with the targets' aliases and domains prepared.
pub(crate) fn normalize_sources_with(
    queries: &[Query],
    raw: &[RawSource],
    matcher: &TargetMatcher,
    domains: &TargetDomains,
) -> Vec<SearchSource> {
    let query_words: HashMap<u32, Option<&str>> =
        queries.iter().map(|q| (q.index, if q.internal { None } else { q.query.as_deref() })).collect();
    let mut groups: Vec<Group> = Vec::new();
    let mut by_url: HashMap<String, usize> = HashMap::new();
    for r in raw {
        let Some(mut parts) = normalize_url(&r.url) else {
            continue;
        };
        if parts.host == GROUNDING_REDIRECT_HOST {
            if let Some((host, domain)) = host_from_title(&r.title) {
                parts.host = host;
                parts.domain = domain;
            }
        }
        let occurrence = Occurrence {
            query_index: r.query_index,
            query: query_words.get(&r.query_index).copied().flatten().map(str::to_string),
            rank: r.rank,
        };
        let title = r.title.trim();
        let title_chars = title.chars().count();
        let page_age = r.page_age.as_deref().map(str::trim).filter(|s| !s.is_empty());
        match by_url.get(&parts.canonical) {
            Some(&i) => {
                let g = &mut groups[i];
                g.occurrences.push(occurrence);
                if title_chars > g.title_chars {
                    g.title = title.to_string();
                    g.title_chars = title_chars;
                }
                if g.page_age.is_none() {
                    g.page_age = page_age.map(str::to_string);
                }
            }
            None => {
                by_url.insert(parts.canonical.clone(), groups.len());
                groups.push(Group {
                    url: parts.canonical,
                    host: parts.host,
                    domain: parts.domain,
                    title: title.to_string(),
                    title_chars,
                    page_age: page_age.map(str::to_string),
                    occurrences: vec![occurrence],
                });
            }
        }
    }
    let mut sources: Vec<SearchSource> = groups
        .into_iter()
        .map(|g| {
            let class = classify_source_with(&g.host, &g.domain, domains);
            let best_rank = g.occurrences.iter().map(|o| o.rank).min().unwrap_or(0);
            let title_mentions = matcher.mentioned_ids(&g.title);
            SearchSource {
                id: String::new(),
                url: g.url,
                host: g.host,
                domain: g.domain,
                title: g.title,
                page_age: g.page_age,
                platform: class.platform,
                channel: class.channel,
                ownership: class.ownership,
                competitor_id: class.competitor_id,
                occurrences: g.occurrences,
                best_rank,
                title_mentions,
                cited: None,
            }
        })
        .collect();
    crate::sort::sort_by(&mut sources, |a, b| {
        a.best_rank.cmp(&b.best_rank).then_with(|| a.title.cmp(&b.title)).then_with(|| a.url.cmp(&b.url))
    });
    for (i, s) in sources.iter_mut().enumerate() {
        s.id = format!("src_{}", i + 1);
    }
    sources
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn check_title(title: &str, expect: Option<(&str, &str)>) {
        let got = host_from_title(title);
        assert_eq!(got.as_ref().map(|(h, d)| (h.as_str(), d.as_str())), expect, "{title:?}");
    }

    #[test]
    fn host_names_in_titles() {
        check_title("aljazeera.com", Some(("aljazeera.com", "aljazeera.com")));
        check_title(" www.BBC.co.uk ", Some(("www.bbc.co.uk", "bbc.co.uk")));
        check_title("news.sina.com.cn", Some(("news.sina.com.cn", "sina.com.cn")));
        check_title("abs-cbn.com.", Some(("abs-cbn.com", "abs-cbn.com")));
        check_title("元构场.cn", Some(("xn--z4q48lo1p.cn", "xn--z4q48lo1p.cn")));
        for page_title in [
            "Claude Shannon - Wikipedia",
            "Node.js",
            "co.uk",
            "localhost",
            "",
            "a..com",
            ".com",
            "1.2.3.4",
            "x.com/path",
        ] {
            check_title(page_title, None);
        }
    }

    fn source(url: &str) -> SearchSource {
        let raw = [RawSource {
            query_index: 1,
            rank: 1,
            title: String::new(),
            url: url.into(),
            page_age: None,
            site_name: None,
        }];
        normalize_sources(&[], &raw, &[]).remove(0)
    }

    fn citation(url: &str) -> RawCitation {
        RawCitation { url: url.into(), title: None, cited_text: None, index: None }
    }

    #[test]
    fn cited_sources_match_by_canonical_url() {
        let mut sources =
            vec![source("https://a.example/p/"), source("https://b.example/q"), source("https://c.example")];
        mark_cited(&mut sources, Some(&[citation("https://A.example/p?utm_source=openai#x"), citation("not a url")]));
        assert_eq!(sources.iter().map(|s| s.cited).collect::<Vec<_>>(), [Some(true), Some(false), Some(false)]);
        mark_cited(&mut sources, Some(&[]));
        assert!(sources.iter().all(|s| s.cited == Some(false)));
        mark_cited(&mut sources, None);
        assert!(sources.iter().all(|s| s.cited.is_none()));
    }

    #[test]
    fn grounding_redirects_take_host_and_domain_from_the_title() {
        let redirect = "https://vertexaisearch.cloud.google.com/grounding-api-redirect/AUZIYQH9Jmg6j6";
        let raw = [
            RawSource {
                query_index: 1,
                rank: 1,
                title: "zhihu.com".into(),
                url: redirect.into(),
                page_age: None,
                site_name: None,
            },
            RawSource {
                query_index: 1,
                rank: 2,
                title: "A page title".into(),
                url: format!("{redirect}x"),
                page_age: None,
                site_name: None,
            },
        ];
        let s = normalize_sources(&[], &raw, &[]);
        assert_eq!((s[0].host.as_str(), s[0].domain.as_str(), s[0].url.as_str()), ("zhihu.com", "zhihu.com", redirect));
        assert_eq!(s[0].platform, lookup_platform("zhihu.com", "zhihu.com").unwrap().name_zh);
        assert_eq!((s[1].host.as_str(), s[1].domain.as_str()), (GROUNDING_REDIRECT_HOST, "google.com"));
        // The rule is the redirect host's only: any other source keeps its own host.
        let other = [RawSource {
            query_index: 1,
            rank: 1,
            title: "zhihu.com".into(),
            url: "https://x.example".into(),
            page_age: None,
            site_name: None,
        }];
        assert_eq!(normalize_sources(&[], &other, &[])[0].host, "x.example");
    }
}
