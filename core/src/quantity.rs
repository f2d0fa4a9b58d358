//! `resource.Quantity` (k8s.io/apimachinery pkg/api/resource) as the checks of several layers
//! read it: `ParseQuantity`'s syntax and value (rounded up to the nano, binary quantities capped
//! at 2^63-1), `Cmp`, `Value()`, `MilliValue()` and `String()`, the canonical text upstream's
//! messages print ("must be less than or equal to cpu limit of 500m"), including the parsed text
//! ParseQuantity keeps when it already is canonical (`+1` prints `+1`). The value is kept exact as
//! a decimal digit string, so no size of quantity overflows here.

use serde_json::Value;
use std::cmp::Ordering;

/// resource.Format: how String() writes a quantity.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    DecimalSI,
    BinarySI,
    DecimalExponent,
}

impl Format {
    fn go_name(self) -> &'static str {
        match self {
            Format::DecimalSI => "DecimalSI",
            Format::BinarySI => "BinarySI",
            Format::DecimalExponent => "DecimalExponent",
        }
    }
}

/// A parsed quantity: `sign * digits * 10^exp`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Quantity {
    negative: bool,
    /// The magnitude's decimal digits, without leading or trailing zeros ("" is zero).
    digits: String,
    exp: i64,
    format: Format,
    /// The text ParseQuantity keeps as the String() form (its `s`), when it was canonical.
    cached: Option<String>,
    /// ParseQuantity's fast path: the int64Amount {value, scale} it stores; None when it falls
    /// back to an inf.Dec (what Go's `%#v` of the quantity shows).
    fast: Option<(i64, i32)>,
}

/// `quantitySuffixer.interpret`: (base 2?, exponent, format).
fn suffix(s: &str) -> Option<(bool, i32, Format)> {
    let dec = |e| Some((false, e, Format::DecimalSI));
    let bin = |e| Some((true, e, Format::BinarySI));
    match s {
        "" => dec(0),
        "n" => dec(-9),
        "u" => dec(-6),
        "m" => dec(-3),
        "k" => dec(3),
        "M" => dec(6),
        "G" => dec(9),
        "T" => dec(12),
        "P" => dec(15),
        "E" => dec(18),
        "Ki" => bin(10),
        "Mi" => bin(20),
        "Gi" => bin(30),
        "Ti" => bin(40),
        "Pi" => bin(50),
        "Ei" => bin(60),
        _ => {
            let rest = s.strip_prefix(['e', 'E'])?;
            if rest.is_empty() {
                return None;
            }
            // strconv.ParseInt(rest, 10, 32), then the exponent must fit what Go stores.
            let e: i32 = rest.parse().ok()?;
            Some((false, e, Format::DecimalExponent))
        }
    }
}

/// Decimal digit strings (most significant first, no sign).
fn mul_small(digits: &str, m: u32) -> String {
    let mut out: Vec<u8> = Vec::with_capacity(digits.len() + 10);
    let mut carry: u64 = 0;
    for c in digits.bytes().rev() {
        let v = u64::from(c - b'0') * u64::from(m) + carry;
        out.push(b'0' + u8::try_from(v % 10).unwrap_or(0));
        carry = v / 10;
    }
    while carry > 0 {
        out.push(b'0' + u8::try_from(carry % 10).unwrap_or(0));
        carry /= 10;
    }
    out.reverse();
    String::from_utf8(out).unwrap_or_default()
}

fn add_one(digits: &str) -> String {
    let mut b: Vec<u8> = digits.bytes().collect();
    for c in b.iter_mut().rev() {
        if *c == b'9' {
            *c = b'0';
        } else {
            *c += 1;
            return String::from_utf8(b).unwrap_or_default();
        }
    }
    let mut out = String::from("1");
    out.push_str(&String::from_utf8(b).unwrap_or_default());
    out
}

/// `digits * 10^exp` normalised: no leading zeros, trailing zeros moved into `exp`.
fn normalise(digits: &str, exp: i64) -> (String, i64) {
    let d = digits.trim_start_matches('0');
    let t = d.trim_end_matches('0');
    if t.is_empty() {
        return (String::new(), 0);
    }
    let moved = i64::try_from(d.len() - t.len()).unwrap_or(0);
    (t.to_owned(), exp + moved)
}

/// Magnitudes `a` and `b` (normalised) compared.
fn cmp_magnitude(a: (&str, i64), b: (&str, i64)) -> Ordering {
    match (a.0.is_empty(), b.0.is_empty()) {
        (true, true) => return Ordering::Equal,
        (true, false) => return Ordering::Less,
        (false, true) => return Ordering::Greater,
        _ => {}
    }
    let len = |x: (&str, i64)| i64::try_from(x.0.len()).unwrap_or(i64::MAX) + x.1;
    len(a).cmp(&len(b)).then_with(|| {
        // Same position of the leading digit: compare digit by digit, the shorter padded.
        let n = a.0.len().max(b.0.len());
        let pa = a.0.bytes().chain(std::iter::repeat(b'0')).take(n);
        let pb = b.0.bytes().chain(std::iter::repeat(b'0')).take(n);
        pa.cmp(pb)
    })
}

const MAX_INT64: &str = "9223372036854775807";

impl Quantity {
    /// `ParseQuantity`. `None` is any of its errors (decoding reports which).
    pub fn parse(s: &str) -> Option<Quantity> {
        if s.is_empty() {
            return None;
        }
        if s == "0" {
            return Some(Quantity {
                negative: false,
                digits: String::new(),
                exp: 0,
                format: Format::DecimalSI,
                cached: Some("0".to_owned()),
                fast: Some((0, 0)),
            });
        }
        let (negative, num, denom, suf) = split(s)?;
        let (binary, exponent, format) = suffix(suf)?;
        // The fast path: an int64Amount, keeping the text when it is already canonical.
        let (precision, scale0, mantissa) = if binary {
            if exponent >= 0 && denom.is_empty() {
                // 15 - len(num) - int32(float32(exponent)*3/10) - 1
                let e3 = (exponent * 3) / 10;
                (15 - len_i32(num) - e3 - 1, 0, 1i64 << exponent.clamp(0, 62))
            } else {
                (-1, 0, 1)
            }
        } else {
            (18 - len_i32(num) - len_i32(denom), exponent, 1)
        };
        let mut fast = None;
        let mut cached = None;
        if precision >= 0 {
            let scale = scale0 - len_i32(denom);
            if scale >= -9 {
                let shifted = format!("{num}{denom}");
                let value: i64 = shifted.parse().ok()?;
                if let Some(result) = value.checked_mul(mantissa) {
                    let result = if negative { -result } else { result };
                    let canonical = if binary {
                        exponent % 10 == 0 && (value & 0x07) != 0
                    } else {
                        scale % 3 == 0 && !shifted.ends_with("000") && !shifted.starts_with('0')
                    };
                    if canonical {
                        cached = Some(s.to_owned());
                    }
                    fast = Some((result, scale));
                }
            }
        }
        // The exact value: digits * 10^exp (* 2^exponent for a binary suffix).
        let mut digits = format!("{num}{denom}");
        let mut exp = -i64::try_from(denom.len()).ok()?;
        let mut format = format;
        if binary {
            for _ in 0..exponent / 10 {
                digits = mul_small(&digits, 1024);
            }
        } else {
            exp += i64::from(exponent);
        }
        let (mut d, mut e) = normalise(&digits, exp);
        if fast.is_none() {
            // Rounded up to the nano, away from zero.
            if !d.is_empty() && e < -9 {
                let cut = usize::try_from(-9 - e).unwrap_or(usize::MAX);
                let keep = d.len().saturating_sub(cut);
                let (head, tail) = d.split_at(keep);
                let head = if head.is_empty() { "0" } else { head };
                let rounded = if tail.bytes().any(|c| c != b'0') {
                    add_one(head)
                } else {
                    head.to_owned()
                };
                (d, e) = normalise(&rounded, -9);
            }
            if format == Format::BinarySI {
                if cmp_magnitude((&d, e), (MAX_INT64, 0)) == Ordering::Greater {
                    (d, e) = (MAX_INT64.to_owned(), 0);
                }
                if !d.is_empty() && cmp_magnitude((&d, e), ("1", 0)) == Ordering::Less {
                    format = Format::DecimalSI;
                }
            }
        }
        Some(Quantity {
            negative: negative && !d.is_empty(),
            digits: d,
            exp: e,
            format,
            cached,
            fast,
        })
    }

    /// A quantity as JSON holds it: a string (trimmed, as UnmarshalJSON does), or a number
    /// (`cpu: 2`).
    pub fn from_json(v: &Value) -> Option<Quantity> {
        match v {
            Value::String(s) => Quantity::parse(s.trim()),
            Value::Number(n) => Quantity::parse(&n.to_string()),
            _ => None,
        }
    }

    pub fn is_zero(&self) -> bool {
        self.digits.is_empty()
    }

    pub fn is_negative(&self) -> bool {
        self.negative
    }

    /// `Cmp`.
    pub fn cmp_value(&self, other: &Quantity) -> Ordering {
        match (self.negative, other.negative) {
            (false, true) => Ordering::Greater,
            (true, false) => Ordering::Less,
            (neg, _) => {
                let m = cmp_magnitude((&self.digits, self.exp), (&other.digits, other.exp));
                if neg { m.reverse() } else { m }
            }
        }
    }

    /// Whether the quantity is a whole number.
    pub fn is_integer(&self) -> bool {
        self.exp >= 0
    }

    /// `MilliValue() % 1000 != 0`, upstream's test of a whole number. MilliValue rounds up:
    /// an int64Amount away from zero, an inf.Dec towards +inf, so 1.9999 counts as whole, and
    /// -0.0001 too when it is an inf.Dec.
    pub fn milli_fraction(&self) -> bool {
        if self.is_integer() {
            return false;
        }
        let (int, fraction) = integer_part(&self.digits, self.exp + 3);
        let up = fraction && !(self.negative && self.fast.is_none());
        let milli = if up { add_one(&int) } else { int };
        !milli.ends_with("000") && !milli.trim_start_matches('0').is_empty()
    }

    /// `Value()`: rounded up to an integer away from zero (saturating, where Go's overflows).
    pub fn value(&self) -> i64 {
        if self.digits.is_empty() {
            return 0;
        }
        let keep = i64::try_from(self.digits.len()).unwrap_or(i64::MAX) + self.exp;
        let mut int: u128 = 0;
        let mut fraction = false;
        for (i, c) in self.digits.bytes().enumerate() {
            let d = u128::from(c - b'0');
            if i64::try_from(i).unwrap_or(i64::MAX) < keep {
                int = int.saturating_mul(10).saturating_add(d);
            } else if d != 0 {
                fraction = true;
            }
        }
        for _ in 0..self.exp.max(0) {
            int = int.saturating_mul(10);
        }
        let whole = int.saturating_add(u128::from(fraction));
        let v = i64::try_from(whole).unwrap_or(i64::MAX);
        if self.negative { -v } else { v }
    }

    /// `String()`: the kept text, or CanonicalizeBytes.
    pub fn canonical(&self) -> String {
        if let Some(s) = &self.cached {
            return s.clone();
        }
        if self.is_zero() {
            return "0".to_owned();
        }
        let sign = if self.negative { "-" } else { "" };
        let mut format = self.format;
        if format == Format::BinarySI
            && (cmp_magnitude((&self.digits, self.exp), ("1024", 0)) == Ordering::Less
                || !self.is_integer())
        {
            format = Format::DecimalSI;
        }
        if format == Format::BinarySI {
            // The integer without its factors of 1024.
            let mut n: Vec<u8> = self.digits.bytes().collect();
            n.extend(std::iter::repeat_n(
                b'0',
                usize::try_from(self.exp).unwrap_or(0),
            ));
            let mut s = String::from_utf8(n).unwrap_or_default();
            let mut k = 0usize;
            while let Some(q) = div_exact(&s, 1024) {
                s = q;
                k += 1;
            }
            let suf = ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"]
                .get(k)
                .copied()
                .unwrap_or("");
            return format!("{sign}{s}{suf}");
        }
        // Decimal: the exponent lowered to a multiple of three.
        let mut digits = self.digits.clone();
        let mut exp = self.exp;
        while exp.rem_euclid(3) != 0 {
            digits.push('0');
            exp -= 1;
        }
        let suf = match format {
            Format::DecimalExponent => {
                if exp == 0 {
                    String::new()
                } else {
                    format!("e{exp}")
                }
            }
            _ => match exp {
                -9 => "n",
                -6 => "u",
                -3 => "m",
                3 => "k",
                6 => "M",
                9 => "G",
                12 => "T",
                15 => "P",
                18 => "E",
                _ => "",
            }
            .to_owned(),
        };
        format!("{sign}{digits}{suf}")
    }

    /// `RoundUp(-3)`, as SetDefaults_ResourceList rounds every ResourceList value: away from
    /// zero to a milli; the kept text goes when the value had a finer scale (an int64Amount) or
    /// is an inf.Dec, which stays one.
    pub fn round_up_milli(&self) -> Quantity {
        match self.fast {
            Some((_, scale)) if scale >= -3 => return self.clone(),
            _ => {}
        }
        let mut q = self.clone();
        q.cached = None;
        if !q.digits.is_empty() && q.exp < -3 {
            let cut = usize::try_from(-3 - q.exp).unwrap_or(usize::MAX);
            let keep = q.digits.len().saturating_sub(cut);
            let (head, tail) = q.digits.split_at(keep);
            let head = if head.is_empty() { "0" } else { head };
            let rounded = if tail.bytes().any(|c| c != b'0') {
                add_one(head)
            } else {
                head.to_owned()
            };
            (q.digits, q.exp) = normalise(&rounded, -3);
        }
        if let Some((v, scale)) = self.fast {
            // negativeScaleInt64: divided by 10^(-3 - scale), rounded away from zero.
            let div = 10i64.checked_pow(u32::try_from(-3 - scale).unwrap_or(0));
            let r = div.map_or(i64::from(v != 0) * v.signum(), |d| {
                let (a, rem) = (v / d, v % d);
                if rem == 0 { a } else { a + v.signum() }
            });
            q.fast = Some((r, -3));
        }
        q
    }

    /// `q.Add(y)` on a copy of `self` (resource helpers' sums of container requests): the exact
    /// sum; the format stays this quantity's unless it is zero (then `other`'s), and the kept
    /// text goes, so String() writes the sum canonically. The int64Amount form is not tracked
    /// (`fast` None): no message prints a sum with `%#v`.
    pub fn add(&self, other: &Quantity) -> Quantity {
        let format = if self.is_zero() {
            other.format
        } else {
            self.format
        };
        let exp = self.exp.min(other.exp);
        let widen = |q: &Quantity| {
            let zeros = usize::try_from(q.exp - exp).unwrap_or(0);
            let mut s = q.digits.clone();
            s.extend(std::iter::repeat_n('0', zeros));
            s
        };
        let (a, b) = (widen(self), widen(other));
        let (digits, negative) = if self.negative == other.negative {
            (add_digits(&a, &b), self.negative)
        } else {
            match cmp_magnitude((&self.digits, self.exp), (&other.digits, other.exp)) {
                Ordering::Less => (sub_digits(&b, &a), other.negative),
                _ => (sub_digits(&a, &b), self.negative),
            }
        };
        let (digits, exp) = normalise(&digits, exp);
        Quantity {
            negative: negative && !digits.is_empty(),
            digits,
            exp,
            format,
            cached: None,
            fast: None,
        }
    }

    /// `MilliValue()`: the value in thousandths, rounded up away from zero (saturating).
    pub fn milli_value(&self) -> i64 {
        let mut q = self.clone();
        q.exp += 3;
        q.value()
    }

    /// Go's `%#v` of the quantity once its String() ran (which keeps the canonical text): a
    /// bad value the message also prints with String().
    pub fn go_debug_stringed(&self) -> String {
        let mut q = self.clone();
        q.cached = Some(self.canonical());
        q.go_debug()
    }

    /// Go's `%#v` of the quantity (a field error's bad value before 1.34), addresses written
    /// `0x…` as the oracle masks them.
    pub fn go_debug(&self) -> String {
        let s = self.cached.as_deref().unwrap_or("");
        let (i, d) = match self.fast {
            Some((v, sc)) => (format!("value:{v}, scale:{sc}"), "nil"),
            None => ("value:0, scale:0".to_owned(), "0x…"),
        };
        format!(
            "resource.Quantity{{i:resource.int64Amount{{{i}}}, d:resource.infDecAmount{{Dec:(*inf.Dec)({d})}}, s:{s:?}, Format:\"{}\"}}",
            self.format.go_name()
        )
    }
}

/// The integer part of `digits * 10^exp` (at least "0") and whether a fraction remains.
fn integer_part(digits: &str, exp: i64) -> (String, bool) {
    let keep = i64::try_from(digits.len()).unwrap_or(i64::MAX) + exp;
    if keep <= 0 {
        return ("0".to_owned(), !digits.is_empty());
    }
    let k = usize::try_from(keep).unwrap_or(usize::MAX);
    if k >= digits.len() {
        let zeros = usize::try_from(exp).unwrap_or(0);
        return (format!("{digits}{}", "0".repeat(zeros)), false);
    }
    let (head, tail) = digits.split_at(k);
    (head.to_owned(), tail.bytes().any(|c| c != b'0'))
}

fn len_i32(s: &str) -> i32 {
    i32::try_from(s.len()).unwrap_or(i32::MAX)
}

/// Two decimal digit strings (most significant first) added.
fn add_digits(a: &str, b: &str) -> String {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let n = a.len().max(b.len());
    let digit = |s: &[u8], i: usize| {
        s.len()
            .checked_sub(i + 1)
            .and_then(|k| s.get(k))
            .map_or(0, |c| c - b'0')
    };
    let mut out: Vec<u8> = Vec::with_capacity(n + 1);
    let mut carry = 0u8;
    for i in 0..n {
        let v = digit(a, i) + digit(b, i) + carry;
        out.push(b'0' + v % 10);
        carry = v / 10;
    }
    if carry > 0 {
        out.push(b'0' + carry);
    }
    out.reverse();
    String::from_utf8(out).unwrap_or_default()
}

/// `a - b` for decimal digit strings with `a >= b`.
fn sub_digits(a: &str, b: &str) -> String {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let digit = |s: &[u8], i: usize| {
        s.len()
            .checked_sub(i + 1)
            .and_then(|k| s.get(k))
            .map_or(0i8, |c| i8::try_from(c - b'0').unwrap_or(0))
    };
    let mut out: Vec<u8> = Vec::with_capacity(a.len());
    let mut borrow = 0i8;
    for i in 0..a.len() {
        let mut v = digit(a, i) - digit(b, i) - borrow;
        borrow = i8::from(v < 0);
        if v < 0 {
            v += 10;
        }
        out.push(b'0' + u8::try_from(v).unwrap_or(0));
    }
    out.reverse();
    String::from_utf8(out).unwrap_or_default()
}

/// `digits / d` when it divides exactly.
fn div_exact(digits: &str, d: u32) -> Option<String> {
    let mut out = String::with_capacity(digits.len());
    let mut rem: u64 = 0;
    for c in digits.bytes() {
        rem = rem * 10 + u64::from(c - b'0');
        let q = rem / u64::from(d);
        rem %= u64::from(d);
        if !(out.is_empty() && q == 0) {
            out.push(char::from(b'0' + u8::try_from(q).unwrap_or(0)));
        }
    }
    (rem == 0 && !out.is_empty()).then_some(out)
}

/// parseQuantityString: (negative, numerator without leading zeros, denominator, suffix).
fn split(s: &str) -> Option<(bool, &str, &str, &str)> {
    let b = s.as_bytes();
    let mut pos = 0;
    let negative = b.first() == Some(&b'-');
    if matches!(b.first(), Some(b'-' | b'+')) {
        pos = 1;
    }
    while b.get(pos) == Some(&b'0') {
        pos += 1;
    }
    if pos >= b.len() {
        return Some((negative, "0", "", ""));
    }
    let digits_end = |from: usize| {
        b.get(from..)
            .and_then(|r| r.iter().position(|c| !c.is_ascii_digit()))
            .map_or(b.len(), |p| from + p)
    };
    let num_end = digits_end(pos);
    let mut num = s.get(pos..num_end)?;
    if num.is_empty() {
        num = "0";
    }
    pos = num_end;
    let mut denom = "";
    if b.get(pos) == Some(&b'.') {
        let end = digits_end(pos + 1);
        denom = s.get(pos + 1..end)?;
        pos = end;
    }
    let suf = s.get(pos..)?;
    let letters = suf
        .find(|c: char| !"eEinumkKMGTP".contains(c))
        .unwrap_or(suf.len());
    let tail = suf.get(letters..)?;
    let tail = tail.strip_prefix(['-', '+']).unwrap_or(tail);
    if !tail.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    Some((negative, num, denom, suf))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn q(s: &str) -> Quantity {
        Quantity::parse(s).unwrap()
    }

    #[test]
    fn round_up_to_milli() {
        let r = |s: &str| q(s).round_up_milli();
        // A milli or coarser scale keeps its text.
        assert_eq!(r("1Gi").canonical(), "1Gi");
        assert_eq!(r("100m").go_debug(), q("100m").go_debug());
        // A finer scale is rounded away from zero and loses its text.
        assert_eq!(r("1n").canonical(), "1m");
        assert_eq!(r("-1n").canonical(), "-1m");
        assert_eq!(r("1500u").canonical(), "2m");
        assert_eq!(r("2000u").canonical(), "2m");
        assert_eq!(
            r("1500u").go_debug(),
            "resource.Quantity{i:resource.int64Amount{value:2, scale:-3}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:\"\", Format:\"DecimalSI\"}"
        );
        assert_eq!(r("0.5").canonical(), "500m");
        assert_eq!(q("1.5").milli_value(), 1500);
        assert_eq!(q("2Ki").milli_value(), 2_048_000);
        assert_eq!(
            q("1").go_debug_stringed(),
            "resource.Quantity{i:resource.int64Amount{value:1, scale:0}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:\"1\", Format:\"DecimalSI\"}"
        );
    }
    fn value(s: &str) -> i64 {
        q(s).value()
    }
    fn canon(s: &str) -> String {
        q(s).canonical()
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

    #[test]
    fn canonical_strings() {
        // Kept as written: already canonical.
        assert_eq!(canon("500m"), "500m");
        assert_eq!(canon("+1"), "+1");
        assert_eq!(canon("1Gi"), "1Gi");
        assert_eq!(canon("1e3"), "1e3");
        // Rewritten.
        assert_eq!(canon("0.5"), "500m");
        assert_eq!(canon("1000m"), "1");
        assert_eq!(canon("1.5"), "1500m");
        assert_eq!(canon("1024Mi"), "1Gi");
        assert_eq!(canon("1.5Gi"), "1536Mi");
        assert_eq!(canon("512"), "512");
        assert_eq!(canon("0.5Gi"), "512Mi");
        assert_eq!(canon("100Ki"), "100Ki");
        assert_eq!(canon("8Ki"), "8Ki");
        assert_eq!(canon("0.1Ki"), "102400m");
        assert_eq!(canon("2000"), "2k");
        assert_eq!(canon("-0.5"), "-500m");
        assert_eq!(canon("1.0000000001"), "1000000001n");
        assert_eq!(canon("00"), "0");
        assert_eq!(canon("1.5e3"), "1500");
        assert_eq!(canon("1E3"), "1E3");
    }

    #[test]
    fn comparison() {
        assert_eq!(q("1").cmp_value(&q("1000m")), Ordering::Equal);
        assert_eq!(q("600m").cmp_value(&q("500m")), Ordering::Greater);
        assert_eq!(q("1Gi").cmp_value(&q("1G")), Ordering::Greater);
        assert_eq!(q("-1").cmp_value(&q("0")), Ordering::Less);
        assert_eq!(q("-2").cmp_value(&q("-1")), Ordering::Less);
        assert!(q("1.5").milli_fraction());
        assert!(!q("2").milli_fraction());
        assert!(!q("2000m").milli_fraction());
        assert!(!q("1.9999").milli_fraction());
        assert!(q("0.0001").milli_fraction());
        assert!(q("-0.0001").milli_fraction());
    }

    #[test]
    fn sums_as_go_adds_them() {
        let sum = |a: &str, b: &str| q(a).add(&q(b)).canonical();
        assert_eq!(sum("100m", "1"), "1100m");
        assert_eq!(sum("64Mi", "128Mi"), "192Mi");
        // The first operand's format, unless it is zero.
        assert_eq!(sum("1Gi", "500M"), "1573741824");
        assert_eq!(sum("500M", "524288k"), "1024288k");
        assert_eq!(sum("0", "1Gi"), "1Gi");
        assert_eq!(sum("1.5", "1.5"), "3");
        assert_eq!(sum("-1", "500m"), "-500m");
        assert_eq!(sum("500m", "-1"), "-500m");
        assert_eq!(sum("1", "-1"), "0");
        assert_eq!(sum("999999999999999999", "1"), "1E");
        // The kept text goes: `+1` alone prints `+1`, a sum with it does not.
        assert_eq!(sum("+1", "0"), "1");
        assert_eq!(q("2").add(&q("1")).cmp_value(&q("3000m")), Ordering::Equal);
    }

    #[test]
    fn go_debug_form() {
        assert_eq!(
            q("1.5").go_debug(),
            "resource.Quantity{i:resource.int64Amount{value:15, scale:-1}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:\"\", Format:\"DecimalSI\"}"
        );
    }
}
