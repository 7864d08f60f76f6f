//! The five analysis steps of seed §5, one module each, all pure functions, and the one
//! entry point [`analyze_probe`] that derives every analysed field from a probe's raw result.

pub mod clean;
pub mod links;
pub mod lists;
pub mod mentions;
pub mod platforms;
pub mod sources;
pub mod urls;

use crate::model::{Probe, Target};

/// Recomputes every derived field of `probe` from its raw result and the run's alias
/// snapshot (brand first). Idempotent: analysing twice gives the same probe.
pub fn analyze_probe(probe: &mut Probe, targets: &[Target]) {
    probe.answer = clean::clean_answer(&probe.raw_answer);
    probe.mentions = mentions::match_targets(&probe.answer, targets);
}
