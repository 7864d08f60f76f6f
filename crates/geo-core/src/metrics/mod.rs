//! Every metric of seed §6, insights (§7) and the cost estimate (§6.2, §3.1).
//!
//! The key decision is the denominator: every figure about mentions, sources and links is
//! taken over *successful* probes only (seed §6.1), so a failure never passes for "not
//! mentioned". Each ratio is `None` (JSON `null`) when its denominator is zero, and every
//! field of [`RunMetrics`] is always present in JSON. `docs/metrics.md` states every formula.
//!
//! - [`compute_run_metrics`]: one run (one pass over its probes through one accumulator per
//!   concern, see `acc`; pairwise work only within a prompt).
//! - [`metrics_for_export`]: every run of an export (or one), as `geo-probe metrics` prints.
//! - [`project_series`]: the per-run trend points of a project.
//! - [`summary`]: a run's figures from its own probes and its previous run's summary (the
//!   web app's stored summaries).
//! - [`positions`]: the brand's list position per prompt and repeat, and the order of the
//!   listed probes (the lists page's figures that need probes, stored beside the summaries).

pub(crate) mod acc;
pub mod cost;
pub mod insights;
pub mod method;
pub mod positions;
pub(crate) mod run;
pub mod series;
pub mod stats;
pub mod summary;

pub use acc::sources::source_tally;
pub use cost::{
    estimate_cost_usd, estimate_engine_run, price_for_engine, run_cost, EstimateBasis, ModelPrice, RunEstimate,
    SearchBilling, PRICES, UNPRICED,
};
pub use insights::build_insights;
pub use method::{changed_fields, method_changes, method_of, Method, MethodChange, METHOD_FIELDS};
pub use positions::{list_positions, ListPositions, PositionCell, PromptPositions};
pub use run::{claims_tables, compute_run_metrics, compute_run_metrics_refs, metrics_for_export};
pub use series::{project_series, SeriesPoint};
pub use stats::{jaccard, rbo, wilson_interval};
pub use summary::{
    against_previous, method_breaks, newest_summary_per_engine, pick_summary, summarize, trend_of, trend_of_surface,
    MethodBreak, RunSummary, SUMMARY_FORMAT,
};

use crate::model::{EngineId, ExportEnvelope, Lang, LinkCounts, Localized, Ownership, Probe, Run};
use serde::ser::{Serialize, SerializeMap, Serializer};
use std::fmt;
use std::hash::Hasher;

/// Byte equality of two strings without a call into `memcmp`: the metric keys (domains,
/// platforms, channels, target ids) are short, and for them the call costs more than the
/// compare. Strings of up to 16 bytes are compared as two overlapping words.
#[inline(always)]
pub(crate) fn short_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let n = a.len();
    if n != b.len() {
        return false;
    }
    fn ends<const N: usize>(s: &[u8]) -> ([u8; N], [u8; N]) {
        (*s.first_chunk::<N>().unwrap_or(&[0; N]), *s.last_chunk::<N>().unwrap_or(&[0; N]))
    }
    match n {
        0 => true,
        1..=3 => a[0] == b[0] && a[n / 2] == b[n / 2] && a[n - 1] == b[n - 1],
        4..=8 => {
            let ((a0, a1), (b0, b1)) = (ends::<4>(a), ends::<4>(b));
            (u32::from_ne_bytes(a0) ^ u32::from_ne_bytes(b0)) | (u32::from_ne_bytes(a1) ^ u32::from_ne_bytes(b1)) == 0
        }
        9..=16 => {
            let ((a0, a1), (b0, b1)) = (ends::<8>(a), ends::<8>(b));
            (u64::from_ne_bytes(a0) ^ u64::from_ne_bytes(b0)) | (u64::from_ne_bytes(a1) ^ u64::from_ne_bytes(b1)) == 0
        }
        _ => a == b,
    }
}

/// A borrowed string key compared with [`short_eq`] (hashed as the `str` itself).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Key<'a>(pub(crate) &'a str);

impl PartialEq for Key<'_> {
    #[inline(always)]
    fn eq(&self, other: &Self) -> bool {
        short_eq(self.0, other.0)
    }
}

impl Eq for Key<'_> {}

impl std::hash::Hash for Key<'_> {
    #[inline(always)]
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.0.hash(state);
    }
}

/// A hash map with rustc's Fx hash: keys are local strings, resistance to crafted
/// collisions is not needed.
pub(crate) type FastMap<K, V> = rustc_hash::FxHashMap<K, V>;

/// A JSON object keyed by target id, in the run's `aliasSnapshot` order (brand first, then
/// competitors), one key per distinct target id.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TargetMap<T>(pub Vec<(String, T)>);

impl<T> TargetMap<T> {
    /// The value for `target_id`.
    pub fn get(&self, target_id: &str) -> Option<&T> {
        self.0.iter().find(|(id, _)| id == target_id).map(|(_, v)| v)
    }
}

impl<T: Serialize> Serialize for TargetMap<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

/// Reads the object back in its document order (a stored summary keeps the brand first).
impl<'de, T: serde::Deserialize<'de>> serde::Deserialize<'de> for TargetMap<T> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Entries<T>(std::marker::PhantomData<T>);
        impl<'de, T: serde::Deserialize<'de>> serde::de::Visitor<'de> for Entries<T> {
            type Value = TargetMap<T>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object keyed by target id")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut entries = Vec::with_capacity(map.size_hint().unwrap_or(0));
                while let Some(entry) = map.next_entry::<String, T>()? {
                    entries.push(entry);
                }
                Ok(TargetMap(entries))
            }
        }
        deserializer.deserialize_map(Entries(std::marker::PhantomData))
    }
}

/// The metrics of one run: the contract object of `geo-probe metrics` (data-model.md)
/// followed by additive extras.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunMetrics {
    /// The run.
    pub run_id: String,
    /// The engine the run asked (its `config.engine`; `deepseek` when absent).
    pub engine: EngineId,
    /// The run's `previousRunId`.
    pub previous_run_id: Option<String>,
    /// The run's probe records (every status).
    pub probe_count: u32,
    /// Probes with status `success`.
    pub success_count: u32,
    /// Probes with status `error` or `empty`.
    pub failed_count: u32,
    /// Numerator: successful probes with a brand Mention; denominator: successful probes.
    pub mention_rate: Option<f64>,
    /// Numerator: successful probes whose brand Mention has `order == 1`; denominator:
    /// successful probes.
    pub first_mention_rate: Option<f64>,
    /// Numerator: the sum of the brand Mention's `order`; denominator: successful probes with
    /// a brand Mention.
    pub avg_order: Option<f64>,
    /// Numerator: the sum of `listPosition` of brand Mentions that have one; denominator:
    /// brand Mentions (in successful probes) with a `listPosition`.
    pub avg_list_position: Option<f64>,
    /// Per target: numerator: successful probes mentioning it; denominator: the sum of that
    /// count over all targets of the alias snapshot.
    pub share_of_voice: TargetMap<Option<f64>>,
    /// Numerator: successful probes with an `owned` source; denominator: successful probes.
    pub owned_visibility: Option<f64>,
    /// Smallest rank over the occurrences of owned sources in successful probes.
    pub owned_best_rank: Option<u32>,
    /// Distinct source domains over successful probes.
    pub unique_domains: u32,
    /// Mean over prompts (with ≥ 2 successes) of the mean pairwise Jaccard of the probes'
    /// domain sets; numerator: the sum of prompt scores; denominator: qualifying prompts.
    pub source_stability: Option<f64>,
    /// Numerator: answer links with `inSources`; denominator: answer links (successful probes).
    pub answer_link_overlap: Option<f64>,
    /// Numerator: successful probes with at least one query; denominator: successful probes.
    pub searched_rate: Option<f64>,
    /// Numerator: successful probes with a cited owned source; denominator: successful
    /// probes. `None` when no successful probe has `rawCitations` (no citation data).
    pub owned_citation_rate: Option<f64>,
    /// Successful probes with `truncated: true`: answers cut off by a length limit
    /// (engines.md, "Fidelity"). Absent in summaries stored before it existed: 0.
    #[serde(default)]
    pub truncated_count: u32,
    /// Domains of this run's successful probes absent from the previous run's, sorted.
    pub new_domains: Vec<String>,
    /// Domains of the previous run's successful probes absent from this run's, sorted.
    pub lost_domains: Vec<String>,
    /// Per source domain, by `occurrences` descending then `domain` ascending.
    pub domains: Vec<DomainMetrics>,
    /// Per channel: the `occurrences` of `domains` summed by channel, by occurrences
    /// descending then channel ascending.
    pub channels: Vec<ChannelMetrics>,
    /// Per prompt, in `promptSnapshot` order.
    pub prompts: Vec<PromptMetrics>,
    /// Per distinct tag of the `promptSnapshot` (first appearance first), over the
    /// successful probes of the prompts carrying it.
    pub tags: Vec<TagMetrics>,
    /// Estimated cost of every probe record of the run (seed §6.2): each probe's `costUsd`
    /// where the engine stated one, else the price table applied to its `billedUsage` (every
    /// attempt it was billed for).
    pub estimated_cost_usd: Option<f64>,
    /// At most 5 rule-based findings (seed §7).
    pub insights: Vec<Insight>,
    /// Per fact of the run's `factSnapshot`, in its order (`[]` without one): what the
    /// successful probes with a claim on it say (data-model.md, "What the answers say").
    #[serde(default)]
    pub facts: Vec<FactMetrics>,
    /// Per target of the `aliasSnapshot`, in its order: the successful probes mentioning it
    /// that flag a sentence about it.
    #[serde(default)]
    pub risk_flags: Vec<RiskFlagMetrics>,
    /// The run's surface: `api` (every run this program made, and every older run) or `app`
    /// (captured answers).
    #[serde(default)]
    pub surface: crate::model::Surface,
    /// What the run measured with: engine, surface, requested and served models, location and
    /// how it was applied, budgets, temperature, reasoning effort, system-prompt version
    /// (data-model.md, "Method and surface in `metrics`, `diff` and `engines`").
    #[serde(default)]
    pub method: Method,
    // ---- extras (additive, not part of the contract) ----
    /// Id of the brand target (first target of kind brand in the alias snapshot).
    pub brand_id: Option<String>,
    /// Numerators and denominators behind the ratios, for tooltips.
    pub counts: MetricCounts,
    /// Wilson 95 % interval of `mentionRate`.
    pub mention_rate_ci: Option<[f64; 2]>,
    /// Wilson 95 % interval of `firstMentionRate`.
    pub first_mention_rate_ci: Option<[f64; 2]>,
    /// Wilson 95 % interval of `ownedVisibility`.
    pub owned_visibility_ci: Option<[f64; 2]>,
    /// Per target: successful probes mentioning it (the numerators of `shareOfVoice`).
    pub share_of_voice_counts: TargetMap<u32>,
    /// Mean over prompts (with ≥ 2 successful probes having a parsed list) of the mean
    /// pairwise RBO (p = 0.9) of list titles; denominator: qualifying prompts.
    pub list_stability: Option<f64>,
    /// Per target: mean Position-Adjusted Word Count over successful probes; numerator: the
    /// sum of per-probe scores; denominator: successful probes.
    pub position_adjusted_word_count: TargetMap<Option<f64>>,
    /// Domains competitors are retrieved with but the brand never is.
    pub outreach_gap: OutreachGap,
    /// Untracked company-like list titles (`otherEntities`) by frequency.
    pub untracked_entities: Vec<UntrackedEntity>,
    /// The run's answer-link check (`geo-probe links`) by class: `notFound` of `checked` are
    /// the answer links that do not exist. Read from the export's `linkChecks` by
    /// [`metrics_for_export`]; `None` when the run has no check (and from the probes alone).
    #[serde(default)]
    pub answer_link_check: Option<LinkCounts>,
}

/// One finding of [`build_insights`]. `title` and `detail` are Chinese (the contract fields);
/// `titleEn` and `detailEn` are the English texts beside them.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Insight {
    /// Stable snake_case key of the rule that produced it.
    pub kind: String,
    /// Chinese title.
    pub title: String,
    /// Chinese detail.
    pub detail: String,
    /// English title.
    pub title_en: String,
    /// English detail.
    pub detail_en: String,
}

impl Insight {
    pub(crate) fn new(kind: &str, title: Localized, detail: Localized) -> Self {
        Insight { kind: kind.to_string(), title: title.zh, detail: detail.zh, title_en: title.en, detail_en: detail.en }
    }

    /// The title in `lang`.
    pub fn title_in(&self, lang: Lang) -> &str {
        lang.pick(&self.title, &self.title_en)
    }

    /// The detail in `lang`.
    pub fn detail_in(&self, lang: Lang) -> &str {
        lang.pick(&self.detail, &self.detail_en)
    }
}

/// One row of `facts`: a fact and the successful probes with a claim on it, each counted once
/// (as `contradicts` when any of its claims on the fact contradicts, else `consistent` when
/// any is consistent, else `unverified`).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FactMetrics {
    /// The fact.
    pub fact_id: String,
    /// Its target.
    pub target_id: String,
    /// Its label.
    pub label: String,
    /// Successful probes with at least one claim on the fact.
    pub probes_with_claim: u32,
    /// Of those, probes counted `consistent`.
    pub consistent: u32,
    /// Of those, probes counted `contradicts`.
    pub contradicts: u32,
    /// Of those, probes counted `unverified`.
    pub unverified: u32,
    /// Numerator: `contradicts`; denominator: `probesWithClaim` (`None` when 0).
    pub contradiction_rate: Option<f64>,
}

/// One row of `riskFlags`: a target and the successful probes mentioning it that flag a
/// sentence about it.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RiskFlagMetrics {
    /// The target.
    pub target_id: String,
    /// Successful probes mentioning it.
    pub mentioning_count: u32,
    /// Of those, probes with at least one flag on it.
    pub flagged_count: u32,
    /// Numerator: `flaggedCount`; denominator: `mentioningCount` (`None` when 0).
    pub flagged_rate: Option<f64>,
    /// Lower end of the 95 % Wilson interval of `flaggedRate` (`None` when 0 mention it).
    pub flagged_low: Option<f64>,
    /// Upper end of that interval.
    pub flagged_high: Option<f64>,
    /// Of the mentioning probes, those with a `negative` flag on it.
    pub negative: u32,
    /// Of the mentioning probes, those with a `caution` flag on it.
    pub caution: u32,
    /// Of the mentioning probes, those with a `watch` flag on it.
    pub watch: u32,
}

/// Numerators and denominators of [`RunMetrics`], for tooltips.
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MetricCounts {
    /// Probes with status `cancelled` (in `probeCount`, neither success nor failed).
    pub cancelled_count: u32,
    /// Successful probes with a brand Mention (numerator of `mentionRate`, denominator of `avgOrder`).
    pub mention_count: u32,
    /// Successful probes whose brand Mention is first (numerator of `firstMentionRate`).
    pub first_mention_count: u32,
    /// Brand Mentions with a `listPosition` (denominator of `avgListPosition`).
    pub list_position_count: u32,
    /// Successful probes with an owned source (numerator of `ownedVisibility`).
    pub owned_probe_count: u32,
    /// Source occurrences over successful probes (denominator of `occurrenceShare`).
    pub occurrence_count: u32,
    /// Answer links of successful probes (denominator of `answerLinkOverlap`).
    pub answer_link_count: u32,
    /// Answer links with `inSources` (numerator of `answerLinkOverlap`).
    pub answer_link_in_sources_count: u32,
    /// Sum over targets of mentioning probes (denominator of `shareOfVoice`).
    pub share_of_voice_total: u32,
    /// Prompts with ≥ 2 successful probes (denominator of `sourceStability`).
    pub stability_prompt_count: u32,
    /// Prompts with ≥ 2 successful probes that have a list (denominator of `listStability`).
    pub list_stability_prompt_count: u32,
    /// Successful probes of the previous run compared for `newDomains`/`lostDomains`.
    pub previous_success_count: u32,
    /// Successful probes with at least one query (numerator of `searchedRate`).
    pub searched_count: u32,
    /// Successful probes with `rawCitations` (0: the citation figures are null).
    pub citation_probe_count: u32,
    /// Successful probes with a cited owned source (numerator of `ownedCitationRate`).
    pub owned_cited_count: u32,
}

/// One source domain of a run.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DomainMetrics {
    /// Registrable domain.
    pub domain: String,
    /// Platform of the domain's most frequent source (occurrences; ties: first seen).
    pub platform: String,
    /// Channel of that source.
    pub channel: String,
    /// Ownership of that source.
    pub ownership: Ownership,
    /// Successful probes retrieving the domain.
    pub probe_count: u32,
    /// Numerator: `probeCount`; denominator: successful probes.
    pub occurrence_rate: Option<f64>,
    /// Occurrences of the domain's sources over successful probes.
    pub occurrences: u32,
    /// Numerator: `occurrences`; denominator: all source occurrences of successful probes.
    pub occurrence_share: Option<f64>,
    /// Numerator: the sum of occurrence ranks; denominator: `occurrences`.
    pub avg_rank: Option<f64>,
    /// Smallest occurrence rank.
    pub best_rank: Option<u32>,
    /// Successful probes with a cited source of this domain; `None` when no successful
    /// probe of the run has `rawCitations`.
    pub cited_probe_count: Option<u32>,
    /// Numerator: `citedProbeCount`; denominator: successful probes (`None` as above).
    pub cited_rate: Option<f64>,
    /// Extra: Wilson 95 % interval of `occurrenceRate`.
    pub occurrence_rate_ci: Option<[f64; 2]>,
}

/// One channel of a run: its domains' occurrences summed.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChannelMetrics {
    /// Channel key (see `analysis::platforms::CHANNELS`).
    pub channel: String,
    /// The sum of `occurrences` of the run's domains of this channel.
    pub occurrences: u32,
    /// Numerator: `occurrences`; denominator: all source occurrences of successful probes.
    pub occurrence_share: Option<f64>,
}

/// One prompt tag of a run: the figures of [`PromptMetrics`] over the prompts carrying it.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TagMetrics {
    /// The tag as stored (`generic`, `brand`, … or any other string).
    pub tag: String,
    /// Successful probes of the tagged prompts.
    pub success_count: u32,
    /// Numerator: those with a brand Mention; denominator: `successCount`.
    pub mention_rate: Option<f64>,
    /// Numerator: those with the brand first; denominator: `successCount`.
    pub first_mention_rate: Option<f64>,
    /// Numerator: the sum of brand orders; denominator: those with a brand Mention.
    pub avg_order: Option<f64>,
    // ---- extras ----
    /// Prompts carrying the tag.
    pub prompt_count: u32,
    /// Their probe records.
    pub probe_count: u32,
    /// Their `error` + `empty` probes.
    pub failed_count: u32,
    /// Their successful probes with a brand Mention.
    pub mention_count: u32,
    /// Their successful probes with the brand first.
    pub first_mention_count: u32,
    /// Wilson 95 % interval of `mentionRate`.
    pub mention_rate_ci: Option<[f64; 2]>,
}

/// One prompt of a run.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PromptMetrics {
    /// The prompt.
    pub prompt_id: String,
    /// Successful probes of the prompt.
    pub success_count: u32,
    /// Numerator: its successful probes with a brand Mention; denominator: its successful probes.
    pub mention_rate: Option<f64>,
    /// Numerator: its successful probes with the brand first; denominator: its successful probes.
    pub first_mention_rate: Option<f64>,
    /// Numerator: the sum of brand orders; denominator: its successful probes mentioning the brand.
    pub avg_order: Option<f64>,
    // ---- extras ----
    /// The prompt text from the snapshot (empty when the prompt is not in it).
    pub text: String,
    /// The prompt's tags from the snapshot.
    pub tags: Vec<String>,
    /// Its probe records.
    pub probe_count: u32,
    /// Its `error` + `empty` probes.
    pub failed_count: u32,
    /// Its successful probes with a brand Mention.
    pub mention_count: u32,
    /// Its successful probes with the brand first.
    pub first_mention_count: u32,
    /// Wilson 95 % interval of `mentionRate`.
    pub mention_rate_ci: Option<[f64; 2]>,
    /// Mean pairwise Jaccard of its successful probes' domain sets (null with < 2).
    pub source_stability: Option<f64>,
    /// Mean pairwise RBO (p = 0.9) of the list titles of its successful probes with a list
    /// (null with < 2 such probes).
    pub list_stability: Option<f64>,
}

/// Domains retrieved alongside competitor mentions but never alongside a brand mention.
///
/// C = successful probes mentioning at least one competitor; B = successful probes
/// mentioning the brand. The gap is domains(C) \ domains(B).
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OutreachGap {
    /// |C|.
    pub competitor_probe_count: u32,
    /// |B|.
    pub brand_probe_count: u32,
    /// The gap, by `probeCount` descending then `domain` ascending.
    pub domains: Vec<GapDomain>,
}

/// One domain of the outreach gap.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GapDomain {
    /// Registrable domain.
    pub domain: String,
    /// Probes in C retrieving it.
    pub probe_count: u32,
}

/// A company-like list title that matches no tracked target.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UntrackedEntity {
    /// The name as first seen (trimmed).
    pub name: String,
    /// Successful probes naming it (case and width folded, once per probe).
    pub count: u32,
}

/// Why metrics could not be computed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MetricsError {
    /// The requested run id is not in the export.
    UnknownRun {
        /// The id asked for.
        run_id: String,
        /// Up to ten run ids the export does hold.
        available: Vec<String>,
    },
}

impl fmt::Display for MetricsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MetricsError::UnknownRun { run_id, available } => {
                crate::model::write_not_in_export(f, "run", run_id, available)
            }
        }
    }
}

impl std::error::Error for MetricsError {}

/// Probes grouped by run id (one pass).
pub(crate) fn probes_by_run(probes: &[Probe]) -> FastMap<&str, Vec<&Probe>> {
    let mut map: FastMap<&str, Vec<&Probe>> = FastMap::default();
    for p in probes {
        map.entry(p.run_id.as_str()).or_default().push(p);
    }
    map
}

/// Looks up a run by id, with the error the CLI prints.
pub(crate) fn find_run<'a>(env: &'a ExportEnvelope, run_id: &str) -> Result<&'a Run, MetricsError> {
    env.run(run_id).ok_or_else(|| MetricsError::UnknownRun {
        run_id: run_id.to_string(),
        available: env.runs_in_order().iter().take(10).map(|r| r.id.clone()).collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(
            std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(256)))]

        /// `short_eq` is string equality at every length class (0, 1..=3, 4..=8, 9..=16, more),
        /// including strings that differ in one byte only.
        #[test]
        fn short_eq_is_string_equality(a in "[ab.é]{0,20}", b in "[ab.é]{0,20}", flip in 0usize..24) {
            proptest::prop_assert_eq!(short_eq(&a, &b), a == b);
            let mut near = a.clone().into_bytes();
            if let Some(byte) = near.get_mut(flip) {
                *byte ^= 1;
            }
            if let Ok(near) = String::from_utf8(near) {
                proptest::prop_assert_eq!(short_eq(&a, &near), a == near);
            }
        }
    }
}
