//! The string formats restartkit checks as kube-openapi's format registry does (strfmt.Default):
//! `uuid`, `uuid3`, `uuid4`, `uuid5` (its patterns, any case, dashes optional), `date` (Go's
//! time.Parse with "2006-01-02": a real calendar day), `byte` (govalidator's base64 pattern) and
//! `password` (anything). The other formats the API server keeps (`email`, `hostname`, `ipv4`, `date-time`, ...) are left
//! unchecked: their validators are third-party code (govalidator, net/mail) whose exact
//! acceptance restartkit does not model yet.

fn hex(b: u8) -> bool {
    b.is_ascii_hexdigit()
}

/// `(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?V[0-9a-f]{3}-?[89ab]?...`: `version` the digit that opens the
/// third group (None: any hex digit); `variant` whether the fourth group opens with 8, 9, a or b.
fn uuid(s: &str, version: Option<u8>, variant: bool) -> bool {
    let b = s.as_bytes();
    let mut i = 0usize;
    let group = |n: usize, first: &dyn Fn(u8) -> bool, dash: bool, i: &mut usize| -> bool {
        if dash && b.get(*i) == Some(&b'-') {
            *i += 1;
        }
        for k in 0..n {
            let Some(&c) = b.get(*i) else { return false };
            let ok = if k == 0 { first(c) } else { hex(c) };
            if !ok {
                return false;
            }
            *i += 1;
        }
        true
    };
    let any = |c: u8| hex(c);
    let third = |c: u8| version.map_or(hex(c), |v| c == v);
    let fourth = |c: u8| {
        if variant {
            matches!(c.to_ascii_lowercase(), b'8' | b'9' | b'a' | b'b')
        } else {
            hex(c)
        }
    };
    group(8, &any, false, &mut i)
        && group(4, &any, true, &mut i)
        && group(4, &third, true, &mut i)
        && group(4, &fourth, true, &mut i)
        && group(12, &any, true, &mut i)
        && i == b.len()
}

fn date(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() != 10 || b.get(4) != Some(&b'-') || b.get(7) != Some(&b'-') {
        return false;
    }
    let num = |r: std::ops::Range<usize>| -> Option<u32> {
        let part = s.get(r)?;
        if !part.bytes().all(|c| c.is_ascii_digit()) {
            return None;
        }
        part.parse().ok()
    };
    let (Some(y), Some(m), Some(d)) = (num(0..4), num(5..7), num(8..10)) else {
        return false;
    };
    let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    let days = match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    (1..=days).contains(&d)
}

/// govalidator's IsBase64 (the `byte` format): whole groups of four characters of the standard
/// alphabet, the last one possibly padded (`xx==`, `xxx=`); at least one group.
fn base64(s: &str) -> bool {
    let b = s.as_bytes();
    let alpha = |c: &u8| c.is_ascii_alphanumeric() || *c == b'+' || *c == b'/';
    if b.is_empty() || !b.len().is_multiple_of(4) {
        return false;
    }
    let (body, last) = b.split_at(b.len() - 4);
    body.iter().all(alpha)
        && match last {
            [a, b2, b'=', b'='] => alpha(a) && alpha(b2),
            [a, b2, c, b'='] => alpha(a) && alpha(b2) && alpha(c),
            other => other.iter().all(alpha),
        }
}

/// Whether `s` is a value of `format` (formats restartkit does not check pass).
pub fn valid(format: &str, s: &str) -> bool {
    match format {
        "byte" => base64(s),
        "uuid" => uuid(s, None, false),
        "uuid3" => uuid(s, Some(b'3'), false),
        "uuid4" => uuid(s, Some(b'4'), true),
        "uuid5" => uuid(s, Some(b'5'), true),
        "date" => date(s),
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_accept_and_refuse_as_strfmt_does() {
        assert!(valid("uuid", "123e4567-e89b-12d3-a456-426614174000"));
        assert!(valid("uuid", "123E4567E89B12D3A456426614174000"));
        assert!(!valid("uuid", "123e4567-e89b-12d3-a456-42661417400"));
        assert!(valid("uuid4", "123e4567-e89b-42d3-a456-426614174000"));
        assert!(!valid("uuid4", "123e4567-e89b-42d3-c456-426614174000"));
        assert!(!valid("uuid3", "123e4567-e89b-42d3-a456-426614174000"));
        assert!(valid("date", "2024-02-29"));
        assert!(!valid("date", "2023-02-29"));
        assert!(!valid("date", "2023-2-01"));
        assert!(!valid("date", "2023-13-01"));
        assert!(valid("password", "anything"));
        assert!(valid("byte", "aGk="));
        assert!(valid("byte", "aGVsbG8h"));
        assert!(!valid("byte", ""));
        assert!(!valid("byte", "1"));
        assert!(!valid("byte", "a=b="));
    }
}
