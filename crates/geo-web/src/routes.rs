//! Every page of the app as a route ([`Route`]), the query other pages link a run's detail
//! with ([`DetailQuery`]), and which navigation entry a route belongs to. A leaf: widgets and
//! pages link with these without depending on the app shell (`app.rs`, which holds the
//! `switch` from route to page and the frame).

use serde::{Deserialize, Serialize};
use yew_router::prelude::*;

/// Every page of the app. Paths are relative to the `<base href>` (the router's basename).
#[derive(Debug, Clone, PartialEq, Eq, Routable)]
pub enum Route {
    /// Metrics of the selected run.
    #[at("/")]
    Dashboard,
    /// Brand, competitors and prompts.
    #[at("/projects")]
    Projects,
    /// Start a run.
    #[at("/run")]
    Run,
    /// Runs of the selected project.
    #[at("/runs")]
    Runs,
    /// One run and its probes.
    #[at("/runs/:id")]
    RunDetail {
        /// The run id.
        id: String,
    },
    /// The newest run of each engine side by side.
    #[at("/engines")]
    Engines,
    /// Retrieved sources by domain.
    #[at("/sources")]
    Sources,
    /// What to do next: lost prompts, the searches the engine ran, pages to be on, link health.
    #[at("/actions")]
    Actions,
    /// What the answers say: facts checked, claims quoted, flagged sentences.
    #[at("/claims")]
    Claims,
    /// Recommendation list positions.
    #[at("/lists")]
    Lists,
    /// Downloads.
    #[at("/export")]
    Export,
    /// Key, API base URL, import and data.
    #[at("/settings")]
    Settings,
    /// Chat over local documents.
    #[at("/chat")]
    Chat,
    /// Anything else.
    #[not_found]
    #[at("/404")]
    NotFound,
}

/// The query of [`Route::RunDetail`] (`/runs/ID?prompt=…&probe=…`), which other pages link with: a prompt to filter by and a probe whose drawer opens.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DetailQuery {
    /// Prompt id preselected in the prompt filter.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
    /// Probe id whose drawer is open on arrival.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub probe: Option<String>,
}

impl Route {
    /// The navigation entry a route belongs to (a run's detail belongs to Runs).
    pub fn section(&self) -> Route {
        match self {
            Route::RunDetail { .. } => Route::Runs,
            other => other.clone(),
        }
    }
}
