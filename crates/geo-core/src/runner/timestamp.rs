//! ISO 8601 UTC timestamps from Unix milliseconds, computed without reading any clock.
//!
//! The engine's `now_ms` is Unix time in milliseconds (what `Date.now()` and
//! `SystemTime::now().duration_since(UNIX_EPOCH)` give), so the engine can stamp a probe's
//! `createdAt` and the run's `finishedAt` itself instead of asking the shell for a second,
//! possibly inconsistent, clock reading.

/// Formats Unix milliseconds as `YYYY-MM-DDTHH:MM:SS.mmmZ` (the data model's time format).
///
/// Uses the proleptic Gregorian calendar (Howard Hinnant's `civil_from_days`); years past
/// 9999 simply print with more digits.
pub fn iso_timestamp(unix_ms: u64) -> String {
    let millis = unix_ms % 1000;
    let secs = unix_ms / 1000;
    let days = secs / 86_400;
    let sod = secs % 86_400;
    let (year, month, day) = civil_from_days(days);
    format!("{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{millis:03}Z", sod / 3600, (sod % 3600) / 60, sod % 60)
}

/// Days since 1970-01-01 → (year, month 1..=12, day 1..=31).
fn civil_from_days(days: u64) -> (u64, u64, u64) {
    // Shift the epoch to 0000-03-01 so that leap days fall at the end of a 400-year era.
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z % 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + u64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::iso_timestamp;

    #[track_caller]
    fn check(unix_ms: u64, expect: &str) {
        assert_eq!(iso_timestamp(unix_ms), expect);
    }

    #[test]
    fn formats_known_instants() {
        check(0, "1970-01-01T00:00:00.000Z");
        check(951_782_400_000, "2000-02-29T00:00:00.000Z");
        check(1_709_251_199_999, "2024-02-29T23:59:59.999Z");
        check(1_795_939_200_123, "2026-11-29T08:00:00.123Z");
        check(253_402_300_799_999, "9999-12-31T23:59:59.999Z");
        // Extreme input still formats instead of panicking.
        assert!(iso_timestamp(u64::MAX).ends_with('Z'));
    }
}
