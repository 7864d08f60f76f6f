//! The run's end state (seed §3.5), shared by the engine and by shells that recompute it.

use crate::model::{Probe, ProbeStatus, RunStatus};

/// The status a run ends with, given all of its probe records.
///
/// * `cancelled` when the user cancelled, whatever the probes say;
/// * `completed` when no probe failed (`error` or `empty`);
/// * `partial` when some probes succeeded and some failed;
/// * `failed` when none succeeded (including a run without a single probe record).
///
/// A probe with the legacy status `cancelled` counts neither as a success nor as a failure.
/// Pass each probe id once (the newest record); see [`final_status_of`] for statuses.
pub fn final_status(probes: &[Probe], cancelled: bool) -> RunStatus {
    final_status_of(probes.iter().map(|p| p.status), cancelled)
}

/// [`final_status`] over bare probe statuses.
pub fn final_status_of(statuses: impl IntoIterator<Item = ProbeStatus>, cancelled: bool) -> RunStatus {
    if cancelled {
        return RunStatus::Cancelled;
    }
    let (mut success, mut failed) = (0usize, 0usize);
    for status in statuses {
        match status {
            ProbeStatus::Success => success += 1,
            s if s.is_failure() => failed += 1,
            _ => {}
        }
    }
    match (success, failed) {
        (0, _) => RunStatus::Failed,
        (_, 0) => RunStatus::Completed,
        _ => RunStatus::Partial,
    }
}
