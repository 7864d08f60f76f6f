//! The CLI's one reading of the wall clock.
//!
//! geo-core never reads the clock: its runner, link checker and timestamps take the time as
//! an input (`now_ms`). The shell passes it in, and this is the one place the CLI reads it:
//! every timestamp it writes (a run's `createdAt`, a probe's, an export's `exportedAt`, a
//! link check's, the proxy's log lines) comes from here.
//! Durations (timeouts, latencies, deadlines) use `Instant`, which is not the wall clock.

use std::time::{SystemTime, UNIX_EPOCH};

/// Unix time in milliseconds (0 on a clock set before 1970).
pub fn now_ms() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_millis() as u64).unwrap_or(0)
}

/// Unix time in nanoseconds (0 on a clock set before 1970): part of the fallback seed where
/// the operating system's random source is missing (`io::os_random_u64`).
pub fn now_nanos() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_nanos() as u64).unwrap_or(0)
}

/// The time now as geo-core writes timestamps (`2026-11-29T08:00:00.000Z`).
pub fn now_iso() -> String {
    geo_core::runner::iso_timestamp(now_ms())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_clock_reads_after_2025_in_every_unit() {
        // 2025-01-01T00:00:00Z: any machine running these tests is later than that.
        const JAN_2025_MS: u64 = 1_735_689_600_000;
        let (ms, nanos) = (now_ms(), now_nanos());
        assert!(ms > JAN_2025_MS, "{ms}");
        assert!(nanos / 1_000_000 >= ms, "{nanos} {ms}");
        let iso = now_iso();
        assert!(iso.ends_with('Z') && iso.len() == 24 && iso.as_str() > "2025", "{iso}");
    }
}
