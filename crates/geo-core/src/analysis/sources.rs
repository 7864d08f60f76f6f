//! `normalize_sources` and `classify_source` (seed §5.2): raw search results become
//! deduplicated, classified [`SearchSource`]s.
//!
//! A raw source is "the N-th result of some query". Sources are grouped by canonical URL
//! ([`normalize_url`], the same path answer links use), so one page returned by several
//! queries is one source with several occurrences. Ownership is decided in a fixed order:
//! the brand's domains, then competitors' domains, then the static platform table, then the
//! fallback. Targets come before platforms on purpose: a brand whose site lives on a
//! platform-looking host (`acme.github.io`) still owns it.

use std::collections::HashMap;

use crate::analysis::mentions::TargetMatcher;
use crate::analysis::platforms::{lookup_platform, OFFICIAL, OTHER};
use crate::analysis::urls::{comparable_host, host_is_under, normalize_configured_domain, normalize_url};
use crate::model::{Occurrence, Ownership, Query, RawSource, SearchSource, Target, TargetKind};

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
        let Some(parts) = normalize_url(&r.url) else {
            continue;
        };
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
