//! What writing a record over the stored record of the same id does to the stored data
//! (security review II, finding 6): the rule both shells' stores apply inside the write's
//! transaction, so an import can never leave stored records out of step with each other.
//!
//! - A prompt or a run whose id is stored under another project, or a probe whose id is
//!   stored under another run or project, is refused: the record would move, and what
//!   belongs to its old place (a run's probes, a run's stored summary) would no longer
//!   match. The file's author gives it a new id, or deletes the stored one first.
//! - A run stored with another `aliasSnapshot` replaces it, and every stored probe of that
//!   run that the write does not replace is analysed again with the new snapshot in the
//!   same transaction ([`Overwrite::Reanalyse`]), because a probe's derived fields are a
//!   function of its raw result and its run's snapshot (ARCHITECTURE.md).

use crate::export::problem::{quoted, Problem};
use crate::model::{Probe, Prompt, Run};

/// What a run's write asks of the store.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Overwrite {
    /// Write it; nothing else changes.
    Keep,
    /// Write it and analyse the run's other stored probes again with its snapshot.
    Reanalyse,
}

/// The refusal of a record that would move from `stored_owner` to `owner`.
fn moved(kind: &str, id: &str, owner_kind: &str, stored_owner: &str, owner: &str) -> Problem {
    Problem::new(
        format!("{kind}s"),
        format!(
            "{kind} {} is stored in {owner_kind} {} but the file puts it in {owner_kind} {}; \
             a {kind} never moves: give it a new id or delete the stored one first",
            quoted(id),
            quoted(stored_owner),
            quoted(owner)
        ),
    )
}

/// A prompt written over the stored prompt of the same id, which is in `stored_project`.
pub fn prompt_overwrite(incoming: &Prompt, stored_project: &str) -> Result<(), Problem> {
    if incoming.project_id != stored_project {
        return Err(moved("prompt", &incoming.id, "project", stored_project, &incoming.project_id));
    }
    Ok(())
}

/// A run written over `stored` (the same id): refused when it moves project; its other
/// stored probes are analysed again when its alias or fact snapshot changes.
pub fn run_overwrite(incoming: &Run, stored: &Run) -> Result<Overwrite, Problem> {
    if incoming.project_id != stored.project_id {
        return Err(moved("run", &incoming.id, "project", &stored.project_id, &incoming.project_id));
    }
    let same = incoming.alias_snapshot == stored.alias_snapshot && incoming.fact_snapshot == stored.fact_snapshot;
    Ok(if same { Overwrite::Keep } else { Overwrite::Reanalyse })
}

/// A probe written over the stored probe of the same id, which is in run `stored_run` of
/// project `stored_project`: refused when it moves run or project.
pub fn probe_overwrite(incoming: &Probe, stored_run: &str, stored_project: &str) -> Result<(), Problem> {
    if incoming.run_id != stored_run {
        return Err(moved("probe", &incoming.id, "run", stored_run, &incoming.run_id));
    }
    if incoming.project_id != stored_project {
        return Err(moved("probe", &incoming.id, "project", stored_project, &incoming.project_id));
    }
    Ok(())
}

/// `stored` (a probe of `run` that the write does not replace) with every derived field
/// computed again from its raw result and `run`'s snapshots (aliases and facts).
pub fn reanalysed(mut stored: Probe, run: &Run) -> Probe {
    crate::analysis::analyze_probe_in_run(&mut stored, run);
    stored
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(id: &str, project: &str) -> Run {
        serde_json::from_value(serde_json::json!({
            "id": id, "projectId": project, "status": "completed", "createdAt": "t", "appVersion": "0",
            "schemaVersion": 1, "config": {"model": "m", "repeats": 1, "concurrency": 1, "maxSearches": 1,
            "maxTokens": 1, "temperature": 1, "systemPromptVersion": "v"},
            "aliasSnapshot": [], "promptSnapshot": [], "plannedProbeCount": 1
        }))
        .unwrap()
    }

    fn probe(id: &str, run: &str, project: &str) -> Probe {
        serde_json::from_value(serde_json::json!({
            "id": id, "runId": run, "projectId": project, "promptId": "q", "repeatIndex": 0,
            "status": "success", "createdAt": "t", "rawAnswer": "Acme"
        }))
        .unwrap()
    }

    #[test]
    fn records_never_move_and_new_snapshots_reanalyse() {
        let stored = run("r", "p1");
        assert_eq!(run_overwrite(&run("r", "p1"), &stored), Ok(Overwrite::Keep));
        let moved = run_overwrite(&run("r", "p2"), &stored).unwrap_err();
        assert!(moved.message.contains("run \"r\" is stored in project \"p1\""), "{}", moved.message);
        let mut renamed = run("r", "p1");
        renamed.alias_snapshot = vec![crate::builders::aliased("b", crate::model::TargetKind::Brand, &["Acme"])];
        assert_eq!(run_overwrite(&renamed, &stored), Ok(Overwrite::Reanalyse));
        let again = reanalysed(probe("x", "r", "p1"), &renamed);
        assert_eq!(again.mentions.len(), 1, "analysed with the new snapshot");
        assert!(probe_overwrite(&probe("x", "r", "p1"), "r", "p1").is_ok());
        assert!(probe_overwrite(&probe("x", "r2", "p1"), "r", "p1").is_err());
        assert!(probe_overwrite(&probe("x", "r", "p2"), "r", "p1").is_err());
    }
}
