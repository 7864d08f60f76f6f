//! How a run measured (`metrics.method`, geo-core's `metrics::method`): [`RunMethod`], the run
//! detail page's compact block (engine, surface, requested → served models, the location and
//! how it was sent, budgets, temperature, system-prompt version), and [`field_label`], the name
//! of a `method` key that the dashboard's comparison and trend also show.

use crate::hooks::use_app;
use crate::i18n::t;
use geo_core::compare::value_text;
use geo_core::metrics::Method;
use geo_core::model::{Lang, LocationApplied};
use geo_core::provider::spec;
use yew::prelude::*;

/// The name of a `method` key (`METHOD_FIELDS`) in `lang`; the key itself when unknown.
pub fn field_label(field: &str, lang: Lang) -> &str {
    match field {
        "engine" => t(lang, "method.engine"),
        "surface" => t(lang, "method.surface"),
        "requestedModel" => t(lang, "method.requestedModel"),
        "servedModels" => t(lang, "method.servedModels"),
        "location" => t(lang, "method.location"),
        "locationApplied" => t(lang, "method.locationApplied"),
        "maxTokens" => t(lang, "method.maxTokens"),
        "maxSearches" => t(lang, "method.maxSearches"),
        "temperature" => t(lang, "method.temperature"),
        "reasoningEffort" => t(lang, "method.reasoningEffort"),
        "systemPromptVersion" => t(lang, "method.systemPromptVersion"),
        other => other,
    }
}

/// How a probe's location reached its engine, in `lang`.
fn applied_label(applied: LocationApplied, lang: Lang) -> &'static str {
    match applied {
        LocationApplied::Request => t(lang, "method.applied_request"),
        LocationApplied::Prompt => t(lang, "method.applied_prompt"),
        LocationApplied::None => t(lang, "method.applied_none"),
    }
}

/// A `method` value as geo-core writes it for a reader (`—` when absent).
fn text_of<T: serde::Serialize>(value: &T) -> String {
    value_text(&serde_json::to_value(value).unwrap_or_default())
}

/// Props of [`RunMethod`].
#[derive(Properties, PartialEq)]
pub struct RunMethodProps {
    /// The run's method (`metrics.method`).
    pub method: Method,
}

/// The run's method as a compact list (`run-method`; `data-engine`, `data-surface`,
/// `data-served` = the served models joined by `,`).
#[function_component]
pub fn RunMethod(p: &RunMethodProps) -> Html {
    let lang = use_app().lang;
    let m = &p.method;
    let row_as = |field: &'static str, label: &str, value: Html| {
        html! { <div data-field={field}><dt>{ label.to_string() }</dt><dd>{ value }</dd></div> }
    };
    let row = |field: &'static str, value: String| row_as(field, field_label(field, lang), html! { { value } });
    let served = if m.served_models.is_empty() { "—".to_string() } else { m.served_models.join(", ") };
    let location = m.location.as_ref().map_or_else(|| t(lang, "method.no_location").to_string(), |l| l.label());
    let applied: Vec<&str> = m.location_applied.iter().map(|a| applied_label(*a, lang)).collect();
    let applied = if applied.is_empty() { "—".to_string() } else { applied.join(lang.pick("、", ", ")) };
    html! {
        <section class="card run-method" aria-labelledby="run-method-h" data-testid="run-method"
            data-engine={m.engine.as_str()} data-surface={m.surface.as_str()} data-served={m.served_models.join(",")}>
            <h2 id="run-method-h">{ t(lang, "method.title") }</h2>
            <dl class="facts method-facts">
                { row_as("engine", t(lang, "method.engine_surface"), html! { { format!("{} · {}", spec(m.engine).name, m.surface.label(lang)) } }) }
                { row_as("servedModels", t(lang, "method.models"),
                    html! { <><code>{ m.requested_model.clone() }</code>{ " → " }<code>{ served }</code></> }) }
                { row_as("location", t(lang, "method.location_sent"), html! { { format!("{location} · {applied}") } }) }
                { row("maxTokens", text_of(&m.max_tokens)) }
                { row("maxSearches", text_of(&m.max_searches)) }
                { row("temperature", text_of(&m.temperature)) }
                if m.reasoning_effort.is_some() { { row("reasoningEffort", text_of(&m.reasoning_effort)) } }
                { row("systemPromptVersion", text_of(&m.system_prompt_version)) }
            </dl>
            <p class="muted small">{ t(lang, "method.help") }</p>
        </section>
    }
}
