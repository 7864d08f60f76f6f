//! ISO 8601 UTC timestamps from Unix milliseconds, computed without reading any clock, and
//! back ([`parse_iso_micros`], [`utc_date`]: the warehouse tables' timestamps and partitions).
//!
//! A leaf (it imports nothing from the crate), read by the runner and by the warehouse export
//! alike, so that neither imports the other for a date. The runner's `now_ms` is Unix time in
//! milliseconds (what `Date.now()` and `SystemTime::now().duration_since(UNIX_EPOCH)` give),
//! so the engine can stamp a probe's `createdAt` and the run's `finishedAt` itself
//! ([`iso_timestamp`]) instead of asking the shell for a second, possibly inconsistent, clock
//! reading; `geo_core::runner` re-exports the three functions under their old paths.

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
    civil_from_shifted(days + DAYS_TO_EPOCH)
}

/// Days from 0000-03-01 to 1970-01-01.
const DAYS_TO_EPOCH: u64 = 719_468;

/// Days since 0000-03-01 → (year, month 1..=12, day 1..=31).
fn civil_from_shifted(z: u64) -> (u64, u64, u64) {
    // The epoch is 0000-03-01 so that leap days fall at the end of a 400-year era.
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

/// (year, month 1..=12, day 1..=31) → days since 1970-01-01 (Hinnant's `days_from_civil`).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - DAYS_TO_EPOCH as i64
}

/// Microseconds per day.
const MICROS_PER_DAY: i64 = 86_400_000_000;

/// An ISO 8601 time as microseconds since 1970-01-01 UTC: `YYYY-MM-DDTHH:MM[:SS[.fraction]]`
/// followed by `Z` or an offset `±HH:MM` (`±HHMM`, `±HH`), a space or a lower-case `t`/`z`
/// accepted too, or a date alone (midnight UTC). Digits of the fraction past microseconds
/// are cut. `None` for anything else, a time without a zone included (its instant is unknown),
/// and for years outside 1..=9999.
pub fn parse_iso_micros(text: &str) -> Option<i64> {
    let b = text.trim().as_bytes();
    let num = |range: std::ops::Range<usize>| -> Option<i64> {
        let digits = b.get(range)?;
        digits.iter().all(u8::is_ascii_digit).then(|| digits.iter().fold(0i64, |n, d| n * 10 + i64::from(d - b'0')))
    };
    if b.len() < 10 || b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    let (year, month, day) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let month_days = [31, if leap { 29 } else { 28 }, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
    if year < 1 || !(1..=12).contains(&month) || day < 1 || day > month_days[month as usize - 1] {
        return None;
    }
    let date = days_from_civil(year, month, day) * MICROS_PER_DAY;
    if b.len() == 10 {
        return Some(date);
    }
    if !matches!(b[10], b'T' | b't' | b' ') || b.len() < 16 || b[13] != b':' {
        return None;
    }
    let (hour, minute) = (num(11..13)?, num(14..16)?);
    let mut at = 16;
    let mut second = 0;
    let mut micros = 0;
    if b.get(at) == Some(&b':') {
        second = num(at + 1..at + 3)?;
        at += 3;
        if matches!(b.get(at), Some(b'.' | b',')) {
            let digits = b[at + 1..].iter().take_while(|c| c.is_ascii_digit()).count();
            if digits == 0 {
                return None;
            }
            let kept = num(at + 1..at + 1 + digits.min(6))?;
            micros = kept * 10i64.pow(6 - digits.min(6) as u32);
            at += 1 + digits;
        }
    }
    if hour > 23 || minute > 59 || second > 60 {
        return None;
    }
    let offset_minutes = match &b[at..] {
        [b'Z' | b'z'] => 0,
        [sign @ (b'+' | b'-'), rest @ ..] => {
            let (h, m) = match rest {
                [_, _] => (num(at + 1..at + 3)?, 0),
                [_, _, b':', _, _] => (num(at + 1..at + 3)?, num(at + 4..at + 6)?),
                [_, _, _, _] => (num(at + 1..at + 3)?, num(at + 3..at + 5)?),
                _ => return None,
            };
            if h > 23 || m > 59 {
                return None;
            }
            if *sign == b'+' {
                h * 60 + m
            } else {
                -(h * 60 + m)
            }
        }
        _ => return None,
    };
    let seconds = hour * 3600 + minute * 60 + second - offset_minutes * 60;
    Some(date + seconds * 1_000_000 + micros)
}

/// The UTC calendar date `YYYY-MM-DD` of an instant in microseconds since 1970-01-01 (one of
/// [`parse_iso_micros`]).
pub fn utc_date(micros: i64) -> String {
    let days = micros.div_euclid(MICROS_PER_DAY);
    // Years from 1 on are at or after 0000-03-01: the shifted day number is not negative.
    let (year, month, day) = civil_from_shifted((days + DAYS_TO_EPOCH as i64).max(0) as u64);
    format!("{year:04}-{month:02}-{day:02}")
}

#[cfg(test)]
mod tests {
    use super::{iso_timestamp, parse_iso_micros, utc_date};

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

    #[track_caller]
    fn parses(text: &str, expect: Option<i64>) {
        assert_eq!(parse_iso_micros(text), expect, "{text}");
    }

    #[test]
    fn parses_what_it_formats_and_common_variants() {
        parses("1970-01-01T00:00:00.000Z", Some(0));
        parses("2026-11-29T08:00:00.123Z", Some(1_795_939_200_123_000));
        parses("2026-11-29T08:00:00.123456789Z", Some(1_795_939_200_123_456));
        parses("2026-11-29 16:00:00+08:00", Some(1_795_939_200_000_000));
        parses("2026-11-29T07:30:00-0030", Some(1_795_939_200_000_000));
        parses("2026-11-29T10:00:00+02", Some(1_795_939_200_000_000));
        parses("2026-11-29t08:00z", Some(1_795_939_200_000_000));
        parses("2026-11-29", Some(1_795_910_400_000_000));
        parses("1969-12-31T23:59:59.999999Z", Some(-1));
        parses("0001-01-01T00:00:00Z", Some(-62_135_596_800_000_000));
        for bad in [
            "",
            "2026-11-29T08:00:00",
            "2026-02-29T00:00:00Z",
            "2026-13-01",
            "2026-11-29T24:00:00Z",
            "2026-11-29T08:00:00.Z",
            "2026-11-29T08:00:00+8",
            "0000-01-01",
            "+2026-11-29",
            "2026-11-29Tx",
            "２０２６-11-29",
            "2026-11-29T08:00:00Zjunk",
        ] {
            parses(bad, None);
        }
        for ms in [0u64, 951_782_400_000, 1_709_251_199_999, 1_795_939_200_123, 253_402_300_799_999] {
            assert_eq!(parse_iso_micros(&iso_timestamp(ms)), Some(ms as i64 * 1000));
        }
    }

    #[test]
    fn dates_are_utc_calendar_days() {
        assert_eq!(utc_date(0), "1970-01-01");
        assert_eq!(utc_date(-1), "1969-12-31");
        assert_eq!(utc_date(parse_iso_micros("2026-11-29 01:00:00+08:00").unwrap()), "2026-11-28");
        assert_eq!(utc_date(parse_iso_micros("2024-02-29T23:59:59.999999Z").unwrap()), "2024-02-29");
        assert_eq!(utc_date(parse_iso_micros("0001-01-01T00:00:00Z").unwrap()), "0001-01-01");
        assert_eq!(utc_date(parse_iso_micros("9999-12-31T23:59:59Z").unwrap()), "9999-12-31");
    }
}
