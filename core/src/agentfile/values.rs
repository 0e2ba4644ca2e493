//! Value syntaxes shared by argument checking, inheritance and policy lowering: integers,
//! `<count>/<unit>` rates and Docker-style durations.

/// A non-negative integer (at most 18 digits).
pub(crate) fn parse_uint(s: &str) -> Option<u64> {
    if s.is_empty() || s.len() > 18 || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// `<count>/<unit>` -> (count, window seconds).
pub(crate) fn parse_rate(s: &str) -> Option<(u64, u64)> {
    let (count, unit) = s.split_once('/')?;
    let window = match unit {
        "s" | "sec" | "second" => 1,
        "m" | "min" | "minute" => 60,
        "h" | "hour" => 3600,
        "d" | "day" => 86_400,
        _ => return None,
    };
    Some((parse_uint(count)?, window))
}

/// A Docker-style duration: digits then ms, s, m or h.
pub(crate) fn is_duration(s: &str) -> bool {
    let digits = s.bytes().take_while(u8::is_ascii_digit).count();
    digits > 0 && digits <= 12 && matches!(&s[digits..], "ms" | "s" | "m" | "h")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_and_durations() {
        assert_eq!(parse_rate("20/hour"), Some((20, 3600)));
        assert_eq!(parse_rate("5/min"), Some((5, 60)));
        assert_eq!(parse_rate("5/week"), None);
        assert_eq!(parse_rate("/min"), None);
        assert_eq!(parse_rate("-1/min"), None);
        assert!(
            is_duration("30s") && is_duration("100ms") && !is_duration("s") && !is_duration("5x")
        );
    }

    #[test]
    fn integers() {
        assert_eq!(parse_uint("0"), Some(0));
        assert_eq!(
            parse_uint("123456789012345678"),
            Some(123_456_789_012_345_678)
        );
        assert_eq!(parse_uint("1234567890123456789"), None);
        assert_eq!(parse_uint(""), None);
        assert_eq!(parse_uint("+1"), None);
    }
}
