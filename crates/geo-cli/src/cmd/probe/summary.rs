//! What `run`, `resume` and `retry-failed` say on standard error: the progress display while
//! the lanes run, one line per finished run, and the end (where OUT went, how to continue a
//! cancelled run, the exit status).

use std::io::IsTerminal;
use std::process::ExitCode;

use anyhow::{anyhow, Result};
use geo_core::model::{Probe, ProbeStatus, Run, RunStatus};
use geo_core::runner::Progress;

use super::drive::{Lane, OutEnvelope};
use super::EXIT_CANCELLED;

/// One line about a finished run: its engine, status and counts, the answers a length limit
/// cut off and the estimated cost of every billed attempt.
pub(super) fn summary(envelope: &OutEnvelope, run_index: usize) -> String {
    let run = &envelope.env.runs[run_index];
    let probes: Vec<Probe> = envelope.env.probes_of(&run.id).cloned().collect();
    let (success, failed, truncated) = probes.iter().fold((0, 0, 0), |(s, f, t), p| {
        let ok = p.status == ProbeStatus::Success;
        (s + usize::from(ok), f + usize::from(p.status.is_failure()), t + usize::from(ok && p.truncated))
    });
    let mut line = format!(
        "run {} ({}) {}: {success} success, {failed} failed of {} planned",
        run.id,
        run.config.engine,
        status_name(run.status),
        run.planned_probe_count
    );
    if truncated > 0 {
        line.push_str(&format!(", {truncated} truncated (raise --max-tokens or lower --reasoning-effort)"));
    }
    if let Some(cost) = geo_core::metrics::run_cost(run, &probes) {
        line.push_str(&format!(", estimated cost ${cost:.4}"));
    }
    line
}

/// The end of a command once every lane has finished: where OUT went, then how to continue
/// each cancelled run (exit 130), or which runs failed (exit 1).
pub(super) fn finish(envelope: &OutEnvelope, lanes: &[Lane], bar: &mut Bar) -> Result<ExitCode> {
    let runs: Vec<&Run> = lanes.iter().map(|l| &envelope.env.runs[l.run_index]).collect();
    let ids: Vec<&str> = runs.iter().map(|r| r.id.as_str()).collect();
    bar.done(&format!("wrote {} ({})", envelope.out.display(), ids.join(", ")));
    let cancelled: Vec<&&Run> = runs.iter().filter(|r| r.status == RunStatus::Cancelled).collect();
    if !cancelled.is_empty() {
        for run in cancelled {
            bar.note(&format!(
                "continue it with: geo-probe resume {} --run {} --out {}",
                envelope.out.display(),
                run.id,
                envelope.out.display()
            ));
        }
        return Ok(ExitCode::from(EXIT_CANCELLED));
    }
    let failed: Vec<String> = runs
        .iter()
        .filter(|r| r.status == RunStatus::Failed)
        .map(|r| format!("{} ({})", r.id, r.config.engine))
        .collect();
    if failed.is_empty() {
        return Ok(ExitCode::SUCCESS);
    }
    Err(anyhow!(
        "run {} failed: no probe succeeded; see each probe's error in {}",
        failed.join(", "),
        envelope.out.display()
    ))
}

/// The JSON name of a status (`completed`, `error` …).
fn status_name<T: serde::Serialize>(s: T) -> String {
    serde_json::to_value(s).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default()
}

/// The progress display on standard error: one `\r` line on a terminal (every run's counters
/// side by side), plain lines otherwise (each prefixed with its run's engine when there are
/// several).
pub(super) struct Bar {
    labels: Vec<String>,
    tty: bool,
    pending: Option<(usize, String)>,
    progress: Vec<Progress>,
    width: usize,
}

impl Bar {
    pub(super) fn new(labels: Vec<String>) -> Bar {
        let progress = vec![Progress::default(); labels.len()];
        Bar { labels, tty: std::io::stderr().is_terminal(), pending: None, progress, width: 0 }
    }

    pub(super) fn probe(&mut self, lane: usize, p: &Probe) {
        let mark = if p.status == ProbeStatus::Success { "✓" } else { "✗" };
        let mut line =
            format!("{mark} {} {} ({} attempt(s), {} ms)", p.id, status_name(p.status), p.attempts, p.latency_ms);
        if p.truncated {
            line.push_str(" [truncated: the answer hit the output limit]");
        }
        if let Some(e) = &p.error {
            line.push_str(&format!(": {}", e.message));
        }
        self.pending = Some((lane, line));
    }

    pub(super) fn progress(&mut self, lane: usize, p: Progress) {
        self.progress[lane] = p;
        if self.tty {
            let line = self
                .labels
                .iter()
                .zip(&self.progress)
                .map(|(label, p)| {
                    format!(
                        "{label}  {}/{} done  ✓ {}  ✗ {}  {} in flight",
                        p.done, p.planned, p.success, p.failed, p.in_flight
                    )
                })
                .collect::<Vec<_>>()
                .join("  |  ");
            let pad = self.width.saturating_sub(line.chars().count());
            self.width = line.chars().count();
            crate::terminal::eprint_over(&line, pad);
        } else if let Some((lane, line)) = self.pending.take() {
            let p = self.progress[lane];
            if self.labels.len() > 1 {
                crate::terminal::eprint_line(&format!("[{} {}/{}] {line}", self.labels[lane], p.done, p.planned));
            } else {
                crate::terminal::eprint_line(&format!("[{}/{}] {line}", p.done, p.planned));
            }
        }
    }

    pub(super) fn note(&mut self, text: &str) {
        if self.tty && self.width > 0 {
            eprintln!();
            self.width = 0;
        }
        crate::terminal::eprint_line(text);
    }

    fn done(&mut self, text: &str) {
        self.note(text);
    }
}
