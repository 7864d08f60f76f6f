//! [`use_run_data`]: the selected project and run as an export envelope, with the run's
//! metrics as geo-core computes them for `geo-probe metrics`.
//!
//! The figures come from the run summaries stored beside the runs
//! ([`crate::repo::summaries`]): the dashboard reads the project's light summaries (its trend),
//! the shown run and its previous run with their stored metrics (its cards and comparison),
//! and no probe; the sources page reads the same records; the lists and Actions pages read
//! the page figures stored beside the run's summary (`docs/adr/0023-stored-page-figures.md`),
//! and only the probes they show (a page of lists, an opened drill-down or answer); the
//! export and claims pages read the probes and the answer-link checks of those two runs.
//! The figures are read once per project, run and data version, never on a
//! render, and a page reuses what another page already read for the same run. The work is
//! timed with the User Timing API under the page's name ([`Figures::measure_name`]).

use crate::components::analytics::empty_with_link;
use crate::hooks::shared::SharedReads;
use crate::hooks::{use_app, use_query, Fetch};
use crate::repo::idb::IdbRepo;
use crate::repo::page_figures::PagePart;
use crate::repo::{RepoError, Repository};
use geo_core::actions::{actions_against, Actions, ItemKeys, OwnActions};
use geo_core::compare::{diff_runs, RunDiff};
use geo_core::export::full_export_with_checks;
use geo_core::metrics::{
    method_breaks, pick_summary, trend_of_surface, ListPositions, MethodBreak, RunMetrics, RunSummary, SeriesPoint,
};
use geo_core::model::{ExportEnvelope, Lang, Probe, Project, Run};
use std::ops::Deref;
use std::rc::Rc;
use yew::prelude::*;

/// The selected project and run.
#[derive(Debug, Clone, PartialEq)]
pub struct RunData {
    /// The project, its prompts, the shown run and its previous run, with those two runs'
    /// probes when [`RunData::has_probes`] (shared: pages and the cache of [`use_run_data`]
    /// hold the same copy).
    pub env: Rc<ExportEnvelope>,
    /// True when `env` holds the probes of its runs (every page but the dashboard).
    pub has_probes: bool,
    /// The selected run's metrics (`None` while the project has no run).
    pub metrics: Option<RunMetrics>,
    /// The project's trend across the runs of the selected run's engine and surface (an `app`
    /// run is never drawn in an `api` trend; computed for [`Figures::Dashboard`] only).
    pub trend: Vec<SeriesPoint>,
    /// How many of the project's runs the trend leaves out: those of other engines or surfaces.
    pub trend_other_runs: usize,
    /// The trend's points where the method changed from the point before (geo-core's
    /// `method_breaks`, for [`Figures::Dashboard`] only).
    pub method_breaks: Vec<MethodBreak>,
    /// The selected run against its previous run (`previousRunId`), as `geo-probe diff`
    /// computes it (for [`Figures::Dashboard`] only; `None` without a previous run).
    pub diff: Option<RunDiff>,
    /// The selected run's list positions, as stored (for [`Figures::Lists`] only).
    pub positions: Option<ListPositions>,
    /// The selected run's actions against its previous run when the project holds it, as
    /// `geo-probe actions --run ID` computes them, from the two runs' stored own actions
    /// (for [`Figures::Actions`] only).
    pub actions: Option<Actions>,
}

/// Which page reads the data: decides what is read and the timing's name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Figures {
    /// Metrics, the trend across runs and the comparison with the previous run; no probe.
    Dashboard,
    /// Metrics (the per-domain rows).
    Sources,
    /// Metrics (list stability, untracked entities).
    Lists,
    /// Metrics (for the run downloads).
    Export,
    /// The actions of the run against its previous run (probes and link checks of both).
    Actions,
    /// What the run's answers say (its probes).
    Claims,
}

impl Figures {
    /// The User Timing measure covering this page's geo-core computation.
    pub fn measure_name(self) -> &'static str {
        match self {
            Figures::Dashboard => "geo:dashboard-metrics",
            Figures::Sources => "geo:sources-metrics",
            Figures::Lists => "geo:lists-metrics",
            Figures::Export => "geo:export-metrics",
            Figures::Actions => "geo:actions-metrics",
            Figures::Claims => "geo:claims-metrics",
        }
    }
}

/// A shared [`RunData`] compared by identity, so passing it down as a property costs
/// nothing and never compares thousands of probes.
#[derive(Debug, Clone)]
pub struct SharedRunData(pub Rc<RunData>);

impl PartialEq for SharedRunData {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

impl Deref for SharedRunData {
    type Target = RunData;
    fn deref(&self) -> &RunData {
        &self.0
    }
}

/// The properties of a component that shows part of the selected run: its data, nothing else.
#[derive(Properties, PartialEq)]
pub struct RunDataProps {
    /// The selected project and run.
    pub data: SharedRunData,
}

impl RunData {
    /// The project.
    pub fn project(&self) -> Option<&Project> {
        self.env.projects.first()
    }

    /// The selected run.
    pub fn run(&self) -> Option<&Run> {
        let id = &self.metrics.as_ref()?.run_id;
        self.env.run(id)
    }

    /// The selected run's probes, in stored order (prompt, then repeat).
    pub fn run_probes(&self) -> impl Iterator<Item = &Probe> {
        let id = self.metrics.as_ref().map(|m| m.run_id.as_str());
        self.env.probes.iter().filter(move |p| Some(p.run_id.as_str()) == id)
    }

    /// The text of prompt `id` in the selected run's snapshot (the id when unknown).
    pub fn prompt_text(&self, id: &str) -> String {
        self.run()
            .and_then(|r| r.prompt_snapshot.iter().find(|p| p.id == id))
            .map_or_else(|| id.to_string(), |p| p.text.clone())
    }

    /// The selected run's creation date (`YYYY-MM-DD`), for file names.
    pub fn run_date(&self) -> String {
        self.run().map_or_else(String::new, |r| r.created_at.get(..10).unwrap_or(&r.created_at).to_string())
    }
}

/// What a page that shows the selected run says while it shows none: loading, a failed read,
/// or the empty state of a project without runs (start one) or of no project (create one).
pub fn without_run(data: &Fetch<Option<SharedRunData>>, lang: Lang) -> Html {
    use crate::routes::Route;
    data.view(lang, |d| match (**d).as_ref() {
        Some(_) => empty_with_link(lang, "act.no_run", Route::Run, "nav.run"),
        None => empty_with_link(lang, "act.no_project", Route::Projects, "nav.projects"),
    })
}

/// What a kept read was made for: project, chosen run, data version, and what it read
/// ([`Figures::reads`]).
type FiguresKey = (String, Option<String>, u32, usize);

impl Figures {
    /// Whether the page reads every probe of the run (the export's downloads, the claims);
    /// the other pages read stored figures only.
    fn needs_probes(self) -> bool {
        matches!(self, Figures::Export | Figures::Claims)
    }

    /// Which kept read the page shares ([`FIGURES`]): the pages reading the same records
    /// share one; the dashboard's also holds its trend and comparison.
    fn reads(self) -> usize {
        match self {
            Figures::Dashboard => 0,
            Figures::Sources => 1,
            Figures::Lists => 2,
            Figures::Actions => 3,
            Figures::Export | Figures::Claims => 4,
        }
    }
}

thread_local! {
    /// The last figures read of each kind ([`Figures::reads`]): selecting the run that was
    /// shown anyway, going to another page of the same run, or coming back while nothing was
    /// written reads nothing again; a second request while the first read is under way (at
    /// start-up the run selector settles on a run) waits for it.
    static FIGURES: [Rc<SharedReads<FiguresKey, RunData>>; 5] = Default::default();
    /// The project's run summaries at a data version, shared by the header's run selector
    /// and the page's figures (read once at start-up, not once each).
    static SUMMARIES: Rc<SharedReads<(String, u32), Vec<RunSummary>>> = Rc::new(SharedReads::new());
}

/// The run summaries of `project` at data version `version`, oldest first (one read for
/// every caller of the same project and version).
pub async fn run_summaries(repo: &IdbRepo, project: &str, version: u32) -> Result<Rc<Vec<RunSummary>>, RepoError> {
    let shared = SUMMARIES.with(Rc::clone);
    shared.get((project.to_string(), version), || repo.run_summaries(project)).await
}

/// Reads what `figures` needs of run `chosen` (one of `summaries`) and builds the figures.
async fn read(
    repo: &IdbRepo,
    project: Project,
    summaries: &[RunSummary],
    chosen: Option<&str>,
    figures: Figures,
) -> Result<RunData, RepoError> {
    let span = crate::web::Span::start("geo:load");
    // The previous run counts only when the project holds it (as in `geo-probe diff`).
    let previous = chosen
        .and_then(|id| summaries.iter().find(|s| s.id == id))
        .and_then(|s| s.previous_run_id.as_deref())
        .filter(|p| summaries.iter().any(|s| s.id == *p));
    let ids: Vec<&str> = chosen.into_iter().chain(previous).collect();
    let (prompts, records) = repo.prompts_runs_and_metrics(&project.id, &ids).await?;
    let (mut runs, mut probes, mut checks) = (Vec::new(), Vec::new(), Vec::new());
    let (mut metrics, mut previous_metrics) = (None, None);
    for (i, (run, stored)) in records.into_iter().enumerate() {
        let Some(run) = run else { break };
        // Missing only when a write came between the summaries and this read: computed now.
        let m = match stored {
            Some(m) => Some(m),
            None => repo.run_metrics(&run.id).await?,
        };
        if figures.needs_probes() {
            probes.extend(repo.probes_by_run(&run.id).await?);
            checks.extend(repo.link_check(&run.id).await?);
        }
        if i == 0 {
            metrics = m;
            runs.push(run);
        } else {
            previous_metrics = m;
            runs.insert(0, run);
        }
    }
    let (positions, actions) = page_figures(repo, &ids[..runs.len()], figures).await?;
    let env = Rc::new(full_export_with_checks(vec![project], prompts, runs, probes, checks, ""));
    span.end();
    let mut data = RunData {
        env,
        has_probes: figures.needs_probes(),
        metrics,
        trend: Vec::new(),
        trend_other_runs: 0,
        method_breaks: Vec::new(),
        diff: None,
        positions,
        actions,
    };
    if figures == Figures::Dashboard {
        let engine = data.run().map(|r| r.config.engine);
        let surface = data.run().map(|r| r.surface).unwrap_or_default();
        data.trend = crate::web::measure("geo:trend", || trend_of_surface(summaries, engine, surface));
        data.trend_other_runs = summaries.len() - data.trend.len();
        data.method_breaks = method_breaks(summaries, engine, surface);
        data.diff = crate::web::measure("geo:diff", || {
            let (run, m) = (data.run()?, data.metrics.as_ref()?);
            let prev = data.env.run(run.previous_run_id.as_deref()?)?;
            Some(diff_runs((run, m), (prev, previous_metrics.as_ref()?)))
        });
    }
    Ok(data)
}

/// The stored page figures `figures` shows of `runs` (the shown run, then its previous run
/// when the project holds it): the lists page's positions of the shown run, or the Actions
/// page's actions of the shown run set against its previous run's item keys (geo-core's
/// `actions_against`, the comparison `geo-probe actions` makes).
async fn page_figures(
    repo: &IdbRepo,
    runs: &[&str],
    figures: Figures,
) -> Result<(Option<ListPositions>, Option<Actions>), RepoError> {
    Ok(match figures {
        Figures::Lists if !runs.is_empty() => {
            (repo.page_parts::<ListPositions>(&runs[..1], PagePart::Positions).await?.remove(0), None)
        }
        Figures::Actions if !runs.is_empty() => {
            // A run named as its own previous run is compared with nothing, as in the CLI.
            let mine = repo.page_parts::<OwnActions>(&runs[..1], PagePart::Actions).await?.remove(0);
            // Of the previous run, its items' keys only; a run named as its own previous run
            // is compared with nothing, as in the CLI.
            let previous = match runs.get(1).filter(|p| **p != runs[0]) {
                Some(p) => repo.page_parts::<ItemKeys>(&[p], PagePart::Keys).await?.remove(0),
                None => None,
            };
            (None, mine.map(|m| actions_against(m, previous.as_ref())))
        }
        _ => (None, None),
    })
}

/// Loads the selected project and run (re-read after every write) and computes the
/// figures `figures` needs, once per project, run and data version (the computation is
/// timed as [`Figures::measure_name`]). `Ready(None)` means no project is selected or it no
/// longer exists.
#[hook]
pub fn use_run_data(figures: Figures) -> Fetch<Option<SharedRunData>> {
    let app = use_app();
    let deps = (app.project_id.clone(), app.run_id.clone(), app.data_version);
    use_query(deps, move |repo, (project, run, version)| async move {
        let Some(project_id) = project else { return Ok(None) };
        let Some(project) = repo.get_project(&project_id).await? else { return Ok(None) };
        let summaries = run_summaries(&repo, &project_id, version).await?;
        let chosen = pick_summary(&summaries, run.as_deref()).map(|r| r.id.clone());
        let key: FiguresKey = (project_id, chosen.clone(), version, figures.reads());
        let shared = FIGURES.with(|f| f[figures.reads()].clone());
        let data = shared
            .get(key, || async {
                let span = crate::web::Span::start(figures.measure_name());
                let data = read(&repo, project, &summaries, chosen.as_deref(), figures).await;
                span.end();
                data
            })
            .await?;
        Ok(Some(SharedRunData(data)))
    })
}

thread_local! {
    /// The last run whose every probe a page read (the sources page's drill-downs): opening
    /// another domain of the same run at the same data version reads nothing again.
    static RUN_PROBES: Rc<SharedReads<(String, u32), Vec<Probe>>> = Rc::new(SharedReads::new());
}

/// The probes of run `run_id`, read when a page first asks for them and kept for the data
/// version (the sources page's drill-downs: the table itself reads no probe).
#[hook]
pub fn use_run_probes(run_id: String) -> Fetch<Rc<Vec<Probe>>> {
    let version = use_app().data_version;
    use_query(run_id, move |repo, id| async move {
        let shared = RUN_PROBES.with(Rc::clone);
        shared.get((id.clone(), version), || repo.probes_by_run(&id)).await
    })
}

/// The stored probes among `ids`, in their order, with the ids they were read for (an answer
/// for an earlier list of ids shows until the read for the new one ends): the probes a page
/// shows of a run it holds only stored figures of.
#[hook]
pub fn use_probes_by_id(ids: Vec<String>) -> Fetch<(Vec<String>, Vec<Probe>)> {
    use_query(ids, |repo, ids| async move {
        let probes = if ids.is_empty() { Vec::new() } else { repo.probes_by_id(&ids).await? };
        Ok((ids, probes))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_export_and_claims_pages_read_every_probe_and_they_share_the_read() {
        use Figures::*;
        for f in [Dashboard, Sources, Lists, Actions] {
            assert!(!f.needs_probes(), "{f:?}");
        }
        for f in [Export, Claims] {
            assert!(f.needs_probes(), "{f:?}");
        }
        assert_eq!(Export.reads(), Claims.reads());
        let all = [Dashboard, Sources, Lists, Actions, Export];
        assert!(all.iter().all(|f| f.reads() < FIGURES.with(|f| f.len())));
        assert!(all.iter().enumerate().all(|(i, f)| all[i + 1..].iter().all(|g| g.reads() != f.reads())));
    }
}
