//! Timestamps are integer milliseconds since the Unix epoch inside the engine and ISO-8601 UTC strings
//! at the API boundary. Conversion is done here (civil-from-days arithmetic) so the core needs no
//! date library and behaves identically natively and in wasm.

use crate::error::{Error, Result};

/// Milliseconds since 1970-01-01T00:00:00Z.
pub type Millis = i64;

const MS_PER_DAY: i64 = 86_400_000;
/// Accept years 0000..=9999 only: that is what ISO strings without an expanded year can say.
pub const MIN_MS: i64 = -62_167_219_200_000; // 0000-01-01T00:00:00Z
pub const MAX_MS: i64 = 253_402_300_799_999; // 9999-12-31T23:59:59.999Z

fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = if z >= 0 { z } else { z - 146_096 } / 146_097;
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (if m <= 2 { y + 1 } else { y }, m, d)
}

/// Formats as `YYYY-MM-DDTHH:MM:SS.sssZ`, the shape of JS `Date.prototype.toISOString`.
pub fn to_iso(ms: Millis) -> String {
    let ms = ms.clamp(MIN_MS, MAX_MS);
    let days = ms.div_euclid(MS_PER_DAY);
    let rem = ms.rem_euclid(MS_PER_DAY);
    let (y, mo, d) = civil_from_days(days);
    let (h, mi, s, milli) = (rem / 3_600_000, rem / 60_000 % 60, rem / 1000 % 60, rem % 1000);
    // Digits written by hand: every memory a call returns renders four times, and the formatting
    // machinery was a visible share of a large `addMany` in wasm. The clamp keeps the year in 0..=9999.
    let mut out = *b"0000-00-00T00:00:00.000Z";
    let mut put = |at: usize, width: usize, mut v: i64| {
        for k in (at..at + width).rev() {
            out[k] = b'0' + (v % 10) as u8;
            v /= 10;
        }
    };
    put(0, 4, y);
    put(5, 2, mo);
    put(8, 2, d);
    put(11, 2, h);
    put(14, 2, mi);
    put(17, 2, s);
    put(20, 3, milli);
    out.iter().map(|&b| char::from(b)).collect()
}

fn digits(s: &[u8], what: &str) -> Result<i64> {
    if s.is_empty() || !s.iter().all(u8::is_ascii_digit) {
        return Err(Error::invalid(format!("date: expected digits for {what}")));
    }
    Ok(s.iter().fold(0i64, |acc, c| acc * 10 + i64::from(c - b'0')))
}

/// Parses an ISO-8601 date or date-time: `YYYY-MM-DD`, optionally followed by `T` (or a space) and
/// `HH:MM[:SS[.fraction]]`, optionally followed by `Z` or `±HH:MM`. No offset means UTC.
pub fn parse_iso(text: &str) -> Result<Millis> {
    let bad = || Error::invalid(format!("date: `{}` is not an ISO-8601 date (YYYY-MM-DD[THH:MM[:SS[.sss]]][Z|±HH:MM])", truncate(text, 40)));
    let b = text.trim().as_bytes();
    if b.len() < 10 || b[4] != b'-' || b[7] != b'-' {
        return Err(bad());
    }
    let (y, mo, d) = (digits(&b[0..4], "year")?, digits(&b[5..7], "month")?, digits(&b[8..10], "day")?);
    if !(1..=12).contains(&mo) || d < 1 || d > days_in_month(y, mo) {
        return Err(bad());
    }
    let mut ms = days_from_civil(y, mo, d) * MS_PER_DAY;
    let mut rest = &b[10..];
    if rest.is_empty() {
        return Ok(ms);
    }
    if rest[0] != b'T' && rest[0] != b't' && rest[0] != b' ' {
        return Err(bad());
    }
    rest = &rest[1..];
    if rest.len() < 5 || rest[2] != b':' {
        return Err(bad());
    }
    let (h, mi) = (digits(&rest[0..2], "hour").map_err(|_| bad())?, digits(&rest[3..5], "minute").map_err(|_| bad())?);
    if h > 23 || mi > 59 {
        return Err(bad());
    }
    ms += h * 3_600_000 + mi * 60_000;
    rest = &rest[5..];
    if rest.first() == Some(&b':') {
        if rest.len() < 3 {
            return Err(bad());
        }
        let s = digits(&rest[1..3], "second").map_err(|_| bad())?;
        if s > 60 {
            return Err(bad());
        }
        ms += s.min(59) * 1000;
        rest = &rest[3..];
        if rest.first() == Some(&b'.') || rest.first() == Some(&b',') {
            let end = rest[1..].iter().position(|c| !c.is_ascii_digit()).map_or(rest.len(), |p| p + 1);
            let frac = &rest[1..end];
            if frac.is_empty() {
                return Err(bad());
            }
            let mut milli = 0;
            for (i, c) in frac.iter().take(3).enumerate() {
                milli += i64::from(c - b'0') * [100, 10, 1][i];
            }
            ms += milli;
            rest = &rest[end..];
        }
    }
    match rest {
        [] | [b'Z'] | [b'z'] => Ok(ms),
        [sign @ (b'+' | b'-'), oh1, oh2, b':', om1, om2] | [sign @ (b'+' | b'-'), oh1, oh2, om1, om2] => {
            let oh = digits(&[*oh1, *oh2], "offset").map_err(|_| bad())?;
            let om = digits(&[*om1, *om2], "offset").map_err(|_| bad())?;
            if oh > 23 || om > 59 {
                return Err(bad());
            }
            let offset = (oh * 60 + om) * 60_000;
            Ok(if *sign == b'+' { ms - offset } else { ms + offset })
        }
        _ => Err(bad()),
    }
}

fn days_in_month(y: i64, m: i64) -> i64 {
    match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        _ if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 => 29,
        _ => 28,
    }
}

/// Shortens untrusted text for an error message without splitting a character.
pub(crate) fn truncate(text: &str, max_chars: usize) -> String {
    match text.char_indices().nth(max_chars) {
        Some((i, _)) => format!("{}…", &text[..i]),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iso_digits_match_the_formatter_across_the_range() {
        let reference = |ms: i64| {
            let ms = ms.clamp(MIN_MS, MAX_MS);
            let (y, mo, d) = civil_from_days(ms.div_euclid(MS_PER_DAY));
            let rem = ms.rem_euclid(MS_PER_DAY);
            format!("{y:04}-{mo:02}-{d:02}T{:02}:{:02}:{:02}.{:03}Z", rem / 3_600_000, rem / 60_000 % 60, rem / 1000 % 60, rem % 1000)
        };
        let mut rng = crate::test_rng::Rng::new(0x2545_F491_4F6C_DD1D);
        let mut samples = vec![MIN_MS, MAX_MS, MIN_MS - 1, MAX_MS + 1, i64::MIN, i64::MAX, 0, -1];
        for _ in 0..20_000 {
            samples.push(MIN_MS + (rng.next() % (MAX_MS - MIN_MS) as u64) as i64);
        }
        for ms in samples {
            assert_eq!(to_iso(ms), reference(ms), "{ms}");
        }
    }

    #[test]
    fn round_trips_known_instants() {
        assert_eq!(to_iso(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(to_iso(1_700_000_000_123), "2023-11-14T22:13:20.123Z");
        assert_eq!(to_iso(-1), "1969-12-31T23:59:59.999Z");
        for ms in [0, 951_782_400_000, 1_700_000_000_123, -86_400_000, 4_102_444_800_000] {
            assert_eq!(parse_iso(&to_iso(ms)).unwrap(), ms);
        }
    }

    #[test]
    fn parses_dates_offsets_and_rejects_nonsense() {
        assert_eq!(parse_iso("2023-05-08").unwrap(), 1_683_504_000_000);
        assert_eq!(parse_iso("2023-05-08T13:56").unwrap(), 1_683_504_000_000 + 13 * 3_600_000 + 56 * 60_000);
        assert_eq!(parse_iso("2023-05-08T02:00:00+02:00").unwrap(), 1_683_504_000_000);
        assert_eq!(parse_iso("2024-02-29").unwrap(), parse_iso("2024-03-01").unwrap() - 86_400_000);
        for bad in ["", "2023", "2023-13-01", "2023-02-30", "2023-05-08X", "2023-05-08T25:00", "２０２３-05-08", "2023-05-08T10:00+5"] {
            assert!(parse_iso(bad).is_err(), "{bad} should be rejected");
        }
    }
}
