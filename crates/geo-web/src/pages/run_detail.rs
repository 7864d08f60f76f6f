//! One run: its status, frozen configuration and saved probes.

use crate::components::EmptyState;
use crate::hooks::{use_app, use_query, Fetch};
use crate::i18n::{t, tf};
use crate::pages::{status_label, status_value};
use crate::repo::Repository;
use yew::prelude::*;

/// Props of [`RunDetailPage`].
#[derive(Properties, PartialEq)]
pub struct RunDetailProps {
    /// The run id from the path.
    pub id: AttrValue,
}

/// The run detail page.
#[function_component]
pub fn RunDetailPage(props: &RunDetailProps) -> Html {
    let app = use_app();
    let lang = app.lang;
    let data = use_query(props.id.to_string(), |repo, id| async move {
        let run = repo.get_run(&id).await?;
        let probes = match &run {
            Some(_) => repo.probes_by_run(&id).await?,
            None => Vec::new(),
        };
        Ok((run, probes))
    });
    let body = match &data {
        Fetch::Ready(pair) => match pair.as_ref() {
            (None, _) => html! { <EmptyState text={t(lang, "detail.not_found").to_string()} /> },
            (Some(run), probes) => html! {
                <>
                    <p>
                        <span data-testid="run-status" data-value={status_value(run.status)}
                            class={classes!("status", status_value(run.status))}>{ status_label(lang, run.status) }</span>
                    </p>
                    <dl class="facts">
                        <dt>{ t(lang, "runs.created") }</dt><dd>{ run.created_at.clone() }</dd>
                        <dt>{ t(lang, "runs.model") }</dt><dd>{ run.config.model.clone() }</dd>
                        <dt>{ t(lang, "detail.repeats") }</dt><dd>{ run.config.repeats }</dd>
                    </dl>
                    <p>{ tf(lang, "detail.probes", &[("n", &probes.len().to_string()), ("m", &run.planned_probe_count.to_string())]) }</p>
                    if probes.is_empty() {
                        <EmptyState text={t(lang, "detail.no_probes").to_string()} />
                    }
                </>
            },
        },
        Fetch::Failed(e) => html! { <p class="error-box" role="alert">{ e.to_string() }</p> },
        _ => html! { <p class="muted">{ t(lang, "common.loading") }</p> },
    };
    html! {
        <section>
            <h1>{ t(lang, "detail.title") }</h1>
            { body }
        </section>
    }
}
