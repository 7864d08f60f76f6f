//! The run page's estimate: the batch's probes, cost and duration (geo-core's
//! `metrics::cost`, each engine's run and their sum), one line per engine when several are
//! ticked, what the figures rest on, and how precise the planned run will be.

use crate::components::EngineLabel;
use crate::i18n::{t, tf};
use geo_core::compare;
use geo_core::metrics::cost::{batch_estimate, EstimateBasis, RunEstimate};
use geo_core::model::{EngineId, Lang};
use yew::prelude::*;

/// How precise the planned run will be (`run-precision`): the 95 % half-width at p = 0.5 for
/// `prompts × repeats` probes, and the repeats that would bring it to ±10 points.
pub(super) fn precision(prompts: u32, repeats: u32, lang: Lang) -> Html {
    let planned = prompts.saturating_mul(repeats);
    let half = compare::half_width_at_half(planned);
    let raw = crate::components::metric_card::raw_f64(half);
    let Some(h) = half else {
        return html! { <p class="muted" data-testid="run-precision" data-half-width={raw}>{ t(lang, "run.precision_none") }</p> };
    };
    let points = format!("{:.1}", h * 100.0);
    let needed = compare::repeats_for_half_width(prompts, 0.10, 10_000);
    let advice = match needed {
        Some(r) if r <= repeats => t(lang, "run.precision_enough").to_string(),
        Some(r) => tf(lang, "run.precision_needs", &[("r", &r.to_string())]),
        None => String::new(),
    };
    html! {
        <p class="precision" data-testid="run-precision" data-half-width={raw}
            data-repeats-for-ten={needed.map(|r| r.to_string()).unwrap_or_default()}>
            { tf(lang, "run.precision", &[("n", &planned.to_string()), ("hw", &points)]) }
            { " " }{ advice }
        </p>
    }
}

/// `data-basis` of the estimate: `last_run` or `defaults`.
fn basis_value(basis: EstimateBasis) -> &'static str {
    match basis {
        EstimateBasis::LastRun => "last_run",
        EstimateBasis::Defaults => "defaults",
    }
}

/// `3 min 24 s` / `3 分 24 秒`; seconds alone under a minute, hours above 59 minutes.
pub fn duration_text(seconds: u64, lang: Lang) -> String {
    let (h, m, s) = (seconds / 3600, seconds / 60 % 60, seconds % 60);
    let (hu, mu, su) = if lang == Lang::Zh { (" 小时", " 分", " 秒") } else { (" h", " min", " s") };
    let mut parts = Vec::new();
    if h > 0 {
        parts.push(format!("{h}{hu}"));
    }
    if m > 0 {
        parts.push(format!("{m}{mu}"));
    }
    if s > 0 || parts.is_empty() {
        parts.push(format!("{s}{su}"));
    }
    parts.join(" ")
}

/// A mean with at most one decimal (`3`, `2.5`).
fn one_decimal(v: f64) -> String {
    let text = format!("{v:.1}");
    text.strip_suffix(".0").map(str::to_string).unwrap_or(text)
}

/// What the estimate rests on: the last run's successful probes or the defaults, the
/// per-probe latency and searches, and how many run at once.
fn basis_text(e: &RunEstimate, lang: Lang) -> String {
    let latency = duration_text((e.profile.latency_ms / 1000.0).round() as u64, lang);
    let args = [
        ("n", e.history_probes.to_string()),
        ("latency", latency),
        ("searches", one_decimal(e.profile.web_search_requests)),
        ("workers", e.workers.to_string()),
        ("waves", e.waves.to_string()),
    ];
    let args: Vec<(&str, &str)> = args.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let key = match e.basis {
        EstimateBasis::LastRun => "run.estimate_history",
        EstimateBasis::Defaults => "run.estimate_defaults",
    };
    tf(lang, key, &args)
}

/// The estimate that decides the batch's duration (runs go side by side: the longest one),
/// whose basis the page explains.
fn governing(estimates: &[(EngineId, RunEstimate)]) -> Option<&RunEstimate> {
    estimates.iter().map(|(_, e)| e).max_by_key(|e| e.seconds)
}

/// The estimate box: the batch's probes, cost (or that a model has no price) and time, one
/// line per engine when several are ticked, and what the figures rest on.
pub(super) fn estimate_view(estimates: &[(EngineId, RunEstimate)], lang: Lang) -> Html {
    let batch = batch_estimate(estimates);
    let (total_cost, total_seconds, total_probes) = (batch.cost_usd, batch.seconds, batch.probes);
    let basis = governing(estimates);
    let time = duration_text(total_seconds, lang);
    let headline = match total_cost {
        Some(cost) => tf(
            lang,
            "run.estimate",
            &[("probes", &total_probes.to_string()), ("cost", &format!("{cost:.4}")), ("time", &time)],
        ),
        None => tf(lang, "run.estimate_no_price", &[("probes", &total_probes.to_string()), ("time", &time)]),
    };
    html! {
        <div class="estimate" data-testid="run-estimate" data-cost-usd={total_cost.map(|c| c.to_string()).unwrap_or_default()}
            data-seconds={total_seconds.to_string()} data-engines={estimates.len().to_string()}
            data-basis={basis.map(|e| basis_value(e.basis)).unwrap_or_default()}
            data-latency-ms={basis.map(|e| e.profile.latency_ms.round().to_string()).unwrap_or_default()}
            data-history-probes={basis.map(|e| e.history_probes.to_string()).unwrap_or_default()} aria-live="polite">
            <p>{ headline }</p>
            if estimates.len() > 1 {
                <ul class="plain estimate-engines">
                    { for estimates.iter().map(|(engine, e)| html! {
                        <li key={engine.as_str()} data-testid="run-estimate-engine" data-engine={engine.as_str()}
                            data-cost-usd={e.cost_usd.map(|c| c.to_string()).unwrap_or_default()} data-seconds={e.seconds.to_string()}>
                            <EngineLabel engine={*engine} />{ " " }
                            { match e.cost_usd { Some(c) => format!("~${c:.4}"), None => t(lang, "run.no_price").to_string() } }
                            { " · " }{ tf(lang, "run.duration", &[("time", &duration_text(e.seconds, lang))]) }
                            if let Some(p) = e.price { <span class="muted">{ " · " }{ tf(lang, "run.price_as_of", &[("d", p.as_of)]) }</span> }
                        </li>
                    }) }
                </ul>
            }
            if let Some(e) = basis {
                <p class="muted small" data-testid="run-estimate-basis">{ basis_text(e, lang) }</p>
            }
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_as_minutes_and_seconds() {
        assert_eq!(duration_text(0, Lang::En), "0 s");
        assert_eq!(duration_text(45, Lang::En), "45 s");
        assert_eq!(duration_text(204, Lang::En), "3 min 24 s");
        assert_eq!(duration_text(180, Lang::Zh), "3 分");
        assert_eq!(duration_text(3725, Lang::Zh), "1 小时 2 分 5 秒");
        assert_eq!(one_decimal(3.0), "3");
        assert_eq!(one_decimal(2.46), "2.5");
    }
}
