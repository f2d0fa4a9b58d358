//! Go's `strconv.Atoi`, where an upstream message or decision depends on what it makes of a
//! string: an optional sign, then ASCII decimal digits only (no spaces, no underscores), within
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

#[cfg(test)]
mod tests {
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
