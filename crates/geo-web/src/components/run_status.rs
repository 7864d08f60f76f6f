//! A run status as the interface shows it: its label in the interface language and its
//! contract string (`data-value`, `data-status`), shared by the runs list, the run detail
//! page and the header's run selector.

use geo_core::model::{Lang, RunStatus};

/// The label of a run status in `lang`.
pub fn status_label(lang: Lang, status: RunStatus) -> &'static str {
    let key = match status {
        RunStatus::Running => "status.running",
        RunStatus::Completed => "status.completed",
        RunStatus::Partial => "status.partial",
        RunStatus::Failed => "status.failed",
        RunStatus::Cancelled => "status.cancelled",
    };
    crate::i18n::t(lang, key)
}

/// The contract string of a run status (`data-value`).
pub fn status_value(status: RunStatus) -> &'static str {
    match status {
        RunStatus::Running => "running",
        RunStatus::Completed => "completed",
        RunStatus::Partial => "partial",
        RunStatus::Failed => "failed",
        RunStatus::Cancelled => "cancelled",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_status_has_its_contract_string_and_a_label_in_both_languages() {
        let all =
            [RunStatus::Running, RunStatus::Completed, RunStatus::Partial, RunStatus::Failed, RunStatus::Cancelled];
        for s in all {
            let wire = serde_json::to_value(s).unwrap();
            assert_eq!(wire.as_str(), Some(status_value(s)), "{s:?}");
            assert_ne!(status_label(Lang::Zh, s), status_label(Lang::En, s), "{s:?}");
        }
    }
}
