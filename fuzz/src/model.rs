//! Independent readings of SEMANTICS 6 (amounts) and 7 (`expires_at`) for the differential
//! targets: straight-line parsers written from the text, sharing no code with leasekit.

/// The normalized amount (`007.50` -> `7.5`) when `text` is an AMOUNT of section 6:
/// `[0-9]+(\.[0-9]+)?`, at most 15 integer digits not counting leading zeros, at most 9
/// fraction digits.
pub fn amount(text: &str) -> Option<String> {
    let (int, frac) = text.split_once('.').unwrap_or((text, ""));
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if int.is_empty() || !digits(int) || !digits(frac) || (text.contains('.') && frac.is_empty()) {
        return None;
    }
    let int = int.trim_start_matches('0');
    if int.len() > 15 || frac.len() > 9 {
        return None;
    }
    let int = if int.is_empty() { "0" } else { int };
    let frac = frac.trim_end_matches('0');
    Some(if frac.is_empty() {
        int.to_string()
    } else {
        format!("{int}.{frac}")
    })
}

/// `(currency, normalized amount)` when `entry` is `CURRENCY:AMOUNT` of section 6.
pub fn budget_entry(entry: &str) -> Option<(String, String)> {
    let (cur, amt) = entry.split_once(':')?;
    let b = cur.as_bytes();
    let ok = !b.is_empty()
        && b.len() <= 32
        && b[0].is_ascii_alphabetic()
        && b.iter()
            .all(|c| c.is_ascii_alphanumeric() || *c == b'_' || *c == b'-');
    if !ok {
        return None;
    }
    Some((cur.to_string(), amount(amt)?))
}

/// Nanoseconds since the Unix epoch when `text` is an `expires_at` of section 7.
pub fn expires_at(text: &str) -> Option<i128> {
    let b = text.as_bytes();
    let d = |i: usize, n: usize| -> Option<i64> {
        let s = b.get(i..i + n)?;
        s.iter()
            .all(u8::is_ascii_digit)
            .then(|| s.iter().fold(0, |a, c| a * 10 + i64::from(c - b'0')))
    };
    let lit = |i: usize, c: u8| b.get(i) == Some(&c);
    if !(lit(4, b'-') && lit(7, b'-') && lit(10, b'T') && lit(13, b':') && lit(16, b':')) {
        return None;
    }
    let (y, mo, day, h, mi, s) = (
        d(0, 4)?,
        d(5, 2)?,
        d(8, 2)?,
        d(11, 2)?,
        d(14, 2)?,
        d(17, 2)?,
    );
    let mut i = 19;
    let mut nanos: i128 = 0;
    if lit(i, b'.') {
        let n = b[i + 1..].iter().take_while(|c| c.is_ascii_digit()).count();
        if !(1..=9).contains(&n) {
            return None;
        }
        let f = d(i + 1, n)?;
        nanos = i128::from(f) * 10i128.pow(9 - n as u32);
        i += 1 + n;
    }
    if &b[i..] != b"Z" {
        return None;
    }
    let leap = y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
    let month_days = [
        31,
        if leap { 29 } else { 28 },
        31,
        30,
        31,
        30,
        31,
        31,
        30,
        31,
        30,
        31,
    ];
    if !(1..=12).contains(&mo) || day < 1 || day > month_days[(mo - 1) as usize] {
        return None;
    }
    if h > 23 || mi > 59 || s > 59 {
        return None;
    }
    // Days from 0000-01-01 (proleptic Gregorian; year 0 is a leap year).
    let before = |y: i64| 365 * y + (y + 3) / 4 - (y + 99) / 100 + (y + 399) / 400;
    let day_of_year: i64 = month_days[..(mo - 1) as usize].iter().sum::<i64>() + day - 1;
    let days = before(y) + day_of_year - before(1970);
    let secs = days * 86_400 + h * 3600 + mi * 60 + s;
    Some(i128::from(secs) * 1_000_000_000 + nanos)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn amounts() {
        assert_eq!(amount("007.50").as_deref(), Some("7.5"));
        assert_eq!(amount("0.000").as_deref(), Some("0"));
        assert_eq!(amount("1."), None);
        assert_eq!(amount(".5"), None);
        assert_eq!(amount("1e3"), None);
        assert_eq!(amount("0.1234567891"), None);
        assert_eq!(
            amount("0000999999999999999").as_deref(),
            Some("999999999999999")
        );
        assert_eq!(budget_entry("USD:1").unwrap().1, "1");
        assert!(budget_entry("1USD:1").is_none());
    }

    #[test]
    fn times() {
        assert_eq!(expires_at("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(
            expires_at("1970-01-02T00:00:00.5Z"),
            Some(86_400_500_000_000)
        );
        assert_eq!(
            expires_at("2000-03-01T00:00:00Z"),
            Some(951_868_800_000_000_000)
        );
        assert_eq!(expires_at("1969-12-31T23:59:59Z"), Some(-1_000_000_000));
        assert!(expires_at("2100-02-29T00:00:00Z").is_none());
        assert!(expires_at("2000-02-29T00:00:00Z").is_some());
        assert!(expires_at("2026-06-01T00:00:00+00:00").is_none());
    }
}
