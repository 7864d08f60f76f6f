//! [`compute_run_metrics`]: the metrics of one run in one pass over its probes, composed
//! from the accumulators of [`super::acc`] (one per concern).
//!
//! The only pairwise work is within a prompt (source and list stability): a prompt's id
//! lists are stored end to end; Jaccard runs on bitsets and RBO on ranks with a weight
//! table, each giving the very floats of the plain formulas (`stats`' proptests).

use super::acc::claims::ClaimsAcc;
use super::acc::entities::EntitiesAcc;
use super::acc::links::LinksAcc;
use super::acc::lists::ListsAcc;
use super::acc::mentions::MentionsAcc;
use super::acc::prompts::{prompt_order, PromptsAcc};
use super::acc::sources::{RunDomains, SourcesAcc};
use super::acc::{CostAcc, Ctx};
use super::insights::build_insights;
use super::method::MethodAcc;
use super::stats::wilson_interval;
use super::{find_run, probes_by_run, MetricCounts, MetricsError, RunMetrics};
use crate::model::{ExportEnvelope, Probe, ProbeStatus, Run};

/// Computes the metrics of `run` from its probes (probes of other runs in `probes` are
/// ignored), comparing sources with `previous` (the run named by `previousRunId` and its
/// probes) when given.
///
/// See [`RunMetrics`] for each field's numerator and denominator and `docs/metrics.md` for
/// the formulas. `newDomains`/`lostDomains` are `[]` unless both this run and `previous` have
/// successful probes.
pub fn compute_run_metrics(run: &Run, probes: &[Probe], previous: Option<(&Run, &[Probe])>) -> RunMetrics {
    let own: Vec<&Probe> = probes.iter().filter(|p| p.run_id == run.id).collect();
    let prev: Option<(&Run, Vec<&Probe>)> =
        previous.map(|(r, ps)| (r, ps.iter().filter(|p| p.run_id == r.id).collect()));
    compute(run, &own, prev.as_ref().map(|(r, ps)| (*r, &ps[..])))
}

/// [`compute_run_metrics`] over borrowed probes: the same figures without cloning a subset
/// (the web's per-tag breakdown). Probes of other runs are ignored, as there.
pub fn compute_run_metrics_refs(run: &Run, probes: &[&Probe], previous: Option<(&Run, &[&Probe])>) -> RunMetrics {
    let own: Vec<&Probe> = probes.iter().copied().filter(|p| p.run_id == run.id).collect();
    let prev: Option<(&Run, Vec<&Probe>)> =
        previous.map(|(r, ps)| (r, ps.iter().copied().filter(|p| p.run_id == r.id).collect()));
    compute(run, &own, prev.as_ref().map(|(r, ps)| (*r, &ps[..])))
}

/// Metrics of every run of `env` in `createdAt` order, or of the run `run_id` only.
///
/// Each run is compared with the run named by its `previousRunId` when the export holds it,
/// and carries the counts of its `linkChecks` record (`answerLinkCheck`) when it has one.
/// An unknown `run_id` gives [`MetricsError::UnknownRun`].
pub fn metrics_for_export(env: &ExportEnvelope, run_id: Option<&str>) -> Result<Vec<RunMetrics>, MetricsError> {
    let selected: Vec<&Run> = match run_id {
        Some(id) => vec![find_run(env, id)?],
        None => env.runs_in_order(),
    };
    let by_run = probes_by_run(&env.probes);
    let empty: Vec<&Probe> = Vec::new();
    let probes_of = |id: &str| by_run.get(id).map_or(&empty[..], |v| &v[..]);
    // Runs in order usually follow their previous run: its domains are reused, not collected again.
    let mut last_domains = None;
    Ok(selected
        .into_iter()
        .map(|run| {
            let previous =
                run.previous_run_id.as_deref().and_then(|pid| env.run(pid)).map(|prev| (prev, probes_of(&prev.id)));
            let (mut metrics, domains) = compute_reusing(run, probes_of(&run.id), previous, last_domains.take());
            last_domains = Some(domains);
            metrics.answer_link_check = env.link_check(&run.id).map(crate::model::LinkCounts::of);
            metrics
        })
        .collect())
}

/// The `facts` and `riskFlags` tables of `run` alone (what `geo-probe claims` shows), from
/// its probes (others ignored): the same figures as [`compute_run_metrics`]'s.
pub fn claims_tables(run: &Run, probes: &[&Probe]) -> (Vec<super::FactMetrics>, Vec<super::RiskFlagMetrics>) {
    let mut ctx = Ctx::new(run);
    let mut claims = ClaimsAcc::new(&ctx);
    for &probe in probes.iter().filter(|p| p.run_id == run.id) {
        ctx.observe(probe);
        if probe.status == ProbeStatus::Success {
            claims.add(probe, &ctx);
        }
    }
    claims.finish(&ctx)
}

/// The computation behind [`compute_run_metrics`]; `probes` are the run's own.
pub(crate) fn compute(run: &Run, probes: &[&Probe], previous: Option<(&Run, &[&Probe])>) -> RunMetrics {
    compute_reusing(run, probes, previous, None).0
}

/// [`compute`], taking the previous run's domains from `known` when it holds that run's
/// (collected from the same probes), and returning this run's domains for the next run.
pub(crate) fn compute_reusing<'a>(
    run: &'a Run,
    probes: &[&'a Probe],
    previous: Option<(&'a Run, &[&'a Probe])>,
    known: Option<RunDomains<'a>>,
) -> (RunMetrics, RunDomains<'a>) {
    let mut ctx = Ctx::new(run);
    let mut prompts = PromptsAcc::default();
    let mut cost = CostAcc::new(run);
    let mut mentions = MentionsAcc::new(&ctx);
    let mut sources = SourcesAcc::default();
    let mut lists = ListsAcc::default();
    let mut entities = EntitiesAcc::default();
    let mut links = LinksAcc::default();
    let mut claims = ClaimsAcc::new(&ctx);
    let mut method = MethodAcc::default();
    for &probe in probes {
        ctx.observe(probe);
        prompts.add(probe, &ctx);
        cost.add(probe, &ctx);
        method.add(probe);
        if probe.status != ProbeStatus::Success {
            continue;
        }
        mentions.add(probe, &ctx);
        sources.add(probe, &ctx);
        lists.add(probe, &ctx);
        entities.add(probe, &ctx);
        links.add(probe, &ctx);
        claims.add(probe, &ctx);
    }

    let previous_domains = previous.map(|(prev_run, prev_probes)| match known {
        Some(known) if known.run_id == prev_run.id => known,
        _ => RunDomains::collect(&prev_run.id, prev_probes),
    });
    let order = prompt_order(&ctx);
    let list = lists.finish(&ctx, &order);
    let success = prompts.success_count;
    let (probe_count, failed_count, cancelled_count, truncated_count) =
        (prompts.probe_count, prompts.failed_count, prompts.cancelled_count, prompts.truncated_count);
    let prompt = prompts.finish(&ctx, &order, &list.by_prompt);
    let mention = mentions.finish(&ctx);
    let source = sources.finish(&ctx, previous_domains.as_ref());
    let (facts, risk_flags) = claims.finish(&ctx);

    let counts = MetricCounts {
        cancelled_count,
        mention_count: mention.mention_count,
        first_mention_count: mention.first_mention_count,
        list_position_count: mention.list_position_count,
        owned_probe_count: source.owned_probe_count,
        occurrence_count: source.occurrence_count,
        answer_link_count: links.link_count,
        answer_link_in_sources_count: links.in_sources_count,
        share_of_voice_total: mention.share_of_voice_total,
        stability_prompt_count: prompt.stability_prompt_count,
        list_stability_prompt_count: list.prompt_count,
        previous_success_count: source.previous_success_count,
        searched_count: source.searched_count,
        citation_probe_count: source.citation_probe_count,
        owned_cited_count: source.owned_cited_count,
    };
    let mut metrics = RunMetrics {
        run_id: run.id.clone(),
        engine: run.config.engine,
        previous_run_id: run.previous_run_id.clone(),
        probe_count,
        success_count: success,
        failed_count,
        mention_rate: mention.mention_rate,
        first_mention_rate: mention.first_mention_rate,
        avg_order: mention.avg_order,
        avg_list_position: mention.avg_list_position,
        share_of_voice: mention.share_of_voice,
        owned_visibility: source.owned_visibility,
        owned_best_rank: source.owned_best_rank,
        unique_domains: source.unique_domains,
        source_stability: prompt.source_stability,
        answer_link_overlap: links.overlap(),
        searched_rate: source.searched_rate,
        owned_citation_rate: source.owned_citation_rate,
        truncated_count,
        new_domains: source.new_domains,
        lost_domains: source.lost_domains,
        domains: source.domains,
        channels: source.channels,
        prompts: prompt.prompts,
        tags: prompt.tags,
        estimated_cost_usd: cost.finish(),
        insights: Vec::new(),
        facts,
        risk_flags,
        surface: run.surface,
        method: method.finish(run),
        brand_id: ctx.brand.map(|b| ctx.target_id(b)),
        mention_rate_ci: wilson_interval(mention.mention_count, success),
        first_mention_rate_ci: wilson_interval(mention.first_mention_count, success),
        owned_visibility_ci: source.owned_visibility_ci,
        share_of_voice_counts: mention.share_of_voice_counts,
        list_stability: list.list_stability,
        position_adjusted_word_count: mention.position_adjusted_word_count,
        outreach_gap: source.outreach_gap,
        untracked_entities: entities.finish(),
        answer_link_check: None,
        counts,
    };
    metrics.insights = build_insights(&metrics);
    let own_domains = RunDomains { run_id: &run.id, success, domains: ctx.domains.ids };
    (metrics, own_domains)
}
