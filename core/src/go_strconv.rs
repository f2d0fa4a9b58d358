//! Go's `strconv.Atoi` and `strconv.Quote`, where an upstream message or decision depends on
//! them. Atoi takes an optional sign, then ASCII decimal digits only (no spaces, no underscores), within
//! int64 on the 64-bit platforms Kubernetes runs on. Rust's `i64::from_str` accepts exactly that
//! syntax; its error kinds tell a syntax error from a range error as Go's do.

use std::num::IntErrorKind;

/// Why Atoi refused a string.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum AtoiError {
    /// `ErrSyntax`: Atoi returns 0.
    Syntax,
    /// `ErrRange`: Atoi returns the int64 bound on the number's side with it.
    Range(i64),
}

impl AtoiError {
    /// The `NumError`'s reason, as `err.Error()` ends.
    pub(crate) fn reason(self) -> &'static str {
        match self {
            AtoiError::Syntax => "invalid syntax",
            AtoiError::Range(_) => "value out of range",
        }
    }

    /// The number Atoi returns beside the error (callers that ignore the error use it).
    pub(crate) fn value(self) -> i64 {
        match self {
            AtoiError::Syntax => 0,
            AtoiError::Range(bound) => bound,
        }
    }
}

pub(crate) fn atoi(s: &str) -> Result<i64, AtoiError> {
    s.parse::<i64>().map_err(|e| match e.kind() {
        IntErrorKind::PosOverflow => AtoiError::Range(i64::MAX),
        IntErrorKind::NegOverflow => AtoiError::Range(i64::MIN),
        _ => AtoiError::Syntax,
    })
}

/// Go's `strconv.Quote` (`%q`, and `%#v` of a string), for the strings upstream messages quote.
pub(crate) fn quote(s: &str) -> String {
    let mut q = String::with_capacity(s.len() + 2);
    q.push('"');
    for c in s.chars() {
        match c {
            '"' => q.push_str("\\\""),
            '\\' => q.push_str("\\\\"),
            '\u{7}' => q.push_str("\\a"),
            '\u{8}' => q.push_str("\\b"),
            '\u{c}' => q.push_str("\\f"),
            '\n' => q.push_str("\\n"),
            '\r' => q.push_str("\\r"),
            '\t' => q.push_str("\\t"),
            '\u{b}' => q.push_str("\\v"),
            c if (c as u32) < 0x20 || c == '\u{7f}' => q.push_str(&format!("\\x{:02x}", c as u32)),
            c if c.is_control() => {
                if (c as u32) < 0x10000 {
                    q.push_str(&format!("\\u{:04x}", c as u32));
                } else {
                    q.push_str(&format!("\\U{:08x}", c as u32));
                }
            }
            c => q.push(c),
        }
    }
    q.push('"');
    q
}

/// Go's `%#v` of a `[]string` (`[]string{"a", "b"}`), as apimachinery before v0.34 prints a list
/// value in a message.
pub(crate) fn string_slice<S: AsRef<str>>(items: &[S]) -> String {
    let quoted: Vec<String> = items.iter().map(|s| quote(s.as_ref())).collect();
    format!("[]string{{{}}}", quoted.join(", "))
}

#[cfg(test)]
mod tests {
    #[test]
    fn quotes_as_go_prints_a_string_slice() {
        assert_eq!(super::string_slice(&["a", "b c"]), r#"[]string{"a", "b c"}"#);
        // strconv.Quote keeps printable non-ASCII as is and escapes quotes and controls (BEL as
        // `\a`, where Rust's `{:?}` prints `\u{7}`).
        assert_eq!(super::quote("ü\"\t\u{7}"), r#""ü\"\t\a""#);
        assert_eq!(super::string_slice::<&str>(&[]), "[]string{}");
    }

    use super::*;

    #[test]
    fn as_go_reads_it() {
        assert_eq!(atoi("+5"), Ok(5));
        assert_eq!(atoi("-12"), Ok(-12));
        for bad in ["", "+", "-", " 1", "1_0", "0x1", "٣"] {
            assert_eq!(atoi(bad), Err(AtoiError::Syntax), "{bad:?}");
        }
        assert_eq!(
            atoi("99999999999999999999"),
            Err(AtoiError::Range(i64::MAX))
        );
        assert_eq!(
            atoi("-99999999999999999999"),
            Err(AtoiError::Range(i64::MIN))
        );
        assert_eq!(AtoiError::Range(i64::MAX).value(), i64::MAX);
        assert_eq!(AtoiError::Syntax.value(), 0);
    }
}
