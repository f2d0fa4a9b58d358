//! The little of `resource.Quantity` (k8s.io/apimachinery pkg/api/resource) the trainer's plugins
//! read: `ParseQuantity`'s syntax and `Value()`, the quantity rounded up to an integer away from
//! zero. The torch plugin derives `PET_NPROC_PER_NODE` from the CPU count, and the torch, MPI,
//! XGBoost and Flux plugins count GPUs this way.

use serde_json::Value;

/// A parsed quantity: `sign * digits * 10^exp10 * 2^exp2`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Quantity {
    negative: bool,
    /// The decimal digits of the number without its point and leading zeros ("" is zero).
    digits: String,
    exp10: i64,
    exp2: u32,
}

/// `quantitySuffixer.interpret`: the base and exponent a suffix stands for.
fn suffix(s: &str) -> Option<(i64, u32)> {
    Some(match s {
        "" => (0, 0),
        "n" => (-9, 0),
        "u" => (-6, 0),
        "m" => (-3, 0),
        "k" => (3, 0),
        "M" => (6, 0),
        "G" => (9, 0),
        "T" => (12, 0),
        "P" => (15, 0),
        "E" => (18, 0),
        "Ki" => (0, 10),
        "Mi" => (0, 20),
        "Gi" => (0, 30),
        "Ti" => (0, 40),
        "Pi" => (0, 50),
        "Ei" => (0, 60),
        _ => {
            let rest = s.strip_prefix(['e', 'E'])?;
            if rest.is_empty() {
                return None;
            }
            (rest.parse::<i32>().ok()?.into(), 0)
        }
    })
}

impl Quantity {
    /// `ParseQuantity` (`parseQuantityString`, then the suffix).
    pub(super) fn parse(s: &str) -> Option<Quantity> {
        if s.is_empty() {
            return None;
        }
        let b = s.as_bytes();
        let mut pos = 0;
        let negative = b.first() == Some(&b'-');
        if matches!(b.first(), Some(b'-' | b'+')) {
            pos = 1;
        }
        let digits_end = |from: usize| {
            b.get(from..)
                .and_then(|r| r.iter().position(|c| !c.is_ascii_digit()))
                .map_or(b.len(), |p| from + p)
        };
        let num_end = digits_end(pos);
        let num = s.get(pos..num_end)?;
        pos = num_end;
        let mut denom = "";
        if b.get(pos) == Some(&b'.') {
            let end = digits_end(pos + 1);
            denom = s.get(pos + 1..end)?;
            pos = end;
        }
        let suf = s.get(pos..)?;
        // The suffix's characters, an optional sign, then digits; anything else is refused.
        let letters = suf
            .find(|c: char| !"eEinumkKMGTP".contains(c))
            .unwrap_or(suf.len());
        let tail = suf.get(letters..)?;
        let tail = tail.strip_prefix(['-', '+']).unwrap_or(tail);
        if !tail.bytes().all(|c| c.is_ascii_digit()) {
            return None;
        }
        let (exp10, exp2) = suffix(suf)?;
        let all = format!("{num}{denom}");
        let trimmed = all.trim_start_matches('0');
        let denom_len = i64::try_from(denom.len()).ok()?;
        Some(Quantity {
            negative,
            digits: trimmed.to_owned(),
            exp10: exp10 - denom_len,
            exp2,
        })
    }

    /// A quantity as JSON holds it: a string, or a number (`cpu: 2`).
    pub(super) fn from_json(v: &Value) -> Option<Quantity> {
        match v {
            Value::String(s) => Quantity::parse(s),
            Value::Number(n) => Quantity::parse(&n.to_string()),
            _ => None,
        }
    }

    pub(super) fn is_zero(&self) -> bool {
        self.digits.is_empty()
    }

    /// `Value()`: rounded up to an integer away from zero (saturating, where Go's overflows).
    pub(super) fn value(&self) -> i64 {
        if self.digits.is_empty() {
            return 0;
        }
        // Integer part and whether a fraction remains, in u128 with saturation.
        let mut int: u128 = 0;
        let mut fraction = false;
        let keep = i64::try_from(self.digits.len()).unwrap_or(i64::MAX) + self.exp10;
        for (i, c) in self.digits.bytes().enumerate() {
            let d = u128::from(c - b'0');
            if i64::try_from(i).unwrap_or(i64::MAX) < keep {
                int = int.saturating_mul(10).saturating_add(d);
            } else if d != 0 {
                fraction = true;
            }
        }
        for _ in 0..self.exp10.max(0) {
            int = int.saturating_mul(10);
        }
        // Binary suffixes only come with integers and whole decimals here; apply exactly.
        if self.exp2 > 0 {
            let scaled = if fraction || self.exp10 < 0 {
                // digits * 10^exp10 * 2^exp2: recompute on the full digits.
                let mut n: u128 = 0;
                for c in self.digits.bytes() {
                    n = n.saturating_mul(10).saturating_add(u128::from(c - b'0'));
                }
                let num = n.saturating_mul(1u128 << self.exp2.min(100));
                let den =
                    10u128.saturating_pow(u32::try_from(-self.exp10.min(0)).unwrap_or(u32::MAX));
                fraction = !num.is_multiple_of(den);
                num / den
            } else {
                int.saturating_mul(1u128 << self.exp2.min(100))
            };
            int = scaled;
        }
        let whole = int.saturating_add(u128::from(fraction));
        let v = i64::try_from(whole).unwrap_or(i64::MAX);
        if self.negative { -v } else { v }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn value(s: &str) -> i64 {
        Quantity::parse(s).unwrap().value()
    }

    #[test]
    fn values_round_up_away_from_zero() {
        assert_eq!(value("4"), 4);
        assert_eq!(value("500m"), 1);
        assert_eq!(value("1500m"), 2);
        assert_eq!(value("2000m"), 2);
        assert_eq!(value("1k"), 1000);
        assert_eq!(value("1Ki"), 1024);
        assert_eq!(value("1.5Ki"), 1536);
        assert_eq!(value("0.5"), 1);
        assert_eq!(value("1e3"), 1000);
        assert_eq!(value("1E-2"), 1);
        assert_eq!(value("-1.5"), -2);
        assert_eq!(value("0"), 0);
        assert_eq!(value("000"), 0);
        assert_eq!(value("1n"), 1);
        assert_eq!(value(".5"), 1);
        assert_eq!(value("8"), 8);
    }

    #[test]
    fn syntax_errors() {
        for bad in ["", "1x", "1.2.3", "1Ki2x", "1e", "1 ", "Ki2"] {
            assert!(Quantity::parse(bad).is_none(), "{bad}");
        }
        assert!(Quantity::parse("1.").is_some());
        assert_eq!(value("e3"), 0);
        assert!(Quantity::from_json(&serde_json::json!(2)).unwrap().value() == 2);
    }
}
