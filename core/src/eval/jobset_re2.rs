//! Go `regexp` (RE2) patterns on the Rust `regex` crate, for JobSet's
//! `onJobFailureMessagePatterns` (`regexp.MatchString`: unanchored search).
//!
//! The pattern is parsed the way Go's `regexp/syntax` parses it with the flags `regexp.Compile`
//! uses (`syntax.Perl`): the same accepted syntax, the same structure, and Go's error text for
//! what Go rejects (its error codes and the offending text). The tree is then written out in a
//! form of Rust's syntax that leaves it nothing to interpret differently: literals as `\x{..}`,
//! Go's ASCII Perl and POSIX classes as explicit ranges, anchors and `.` with their flags spelt
//! out, every group non-capturing. What stays with the `regex` crate is matching, Unicode case
//! folding (`(?i)`, simple folding in both) and the Unicode tables behind `\p{..}`, whose names
//! are resolved here as Go resolves them.
//!
//! Differences this handles, each found by the RE2 leg of the differential oracle
//! (docs/oracle.md): stacked repetitions (`a**`, `a*+`: errors in Go), a repetition after a flag
//! group (`a(?i)*` repeats `a` in Go), octal escapes (`\101`), `[a--b]` (a reversed range in
//! Go), unknown POSIX classes (`[[:foo:]]`), `\b` inside brackets, Rust-only escapes (`\<`,
//! `\h`), and nested repeat counts over 1000 (`(a{100}){100}`).

use regex::{Regex, RegexBuilder};

const GO_MAX_REPEAT: u32 = 1000;
/// Go's `maxHeight`: deeper nesting is refused ("expression nests too deeply"), which also
/// bounds the recursion that writes the tree out.
const GO_MAX_DEPTH: usize = 1000;

/// Compiles a Go regexp; `Err` carries why Go rejects it, or (for a pattern Go accepts) why the
/// `regex` crate could not build it (see [`translate`] to tell the two apart).
pub fn compile(pattern: &str) -> Result<Regex, String> {
    let translated = translate(pattern)?;
    // Go accepts up to 1000 copies of a class such as `\pL` (one instruction each in Go, a
    // UTF-8 automaton each here: `\pL{1000}` needs about 20 MB). Nesting keeps the crate's
    // limit (250; Go's is 1000): its compiler recurses, and deeper patterns are refused, with
    // their own diagnostic, rather than risk the stack of a wasm build.
    RegexBuilder::new(&translated)
        .size_limit(256 << 20)
        .build()
        .map_err(|e| e.to_string().lines().last().unwrap_or("").trim().to_owned())
}

#[path = "jobset_re2_names.rs"]
mod names;

/// Go's canonical form of a Unicode class name: `_`, `-` and ` ` dropped, the first letter
/// upper-case, the others lower-case (so `greek`, `GREEK` and `Gre_ek` all name `Greek`).
fn go_canonical_name(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for c in name.chars().filter(|c| !matches!(c, '_' | '-' | ' ')) {
        if out.is_empty() {
            out.push(c.to_ascii_uppercase());
        } else {
            out.push(c.to_ascii_lowercase());
        }
    }
    out
}

/// The Rust class body (`gc=Lu`, `sc=Greek`, `Any`...) for a name Go's `\p{..}` accepts.
fn go_unicode_class(name: &str) -> Option<&'static str> {
    let canonical = go_canonical_name(name);
    names::GO_UNICODE_CLASSES
        .binary_search_by(|(k, _)| (*k).cmp(canonical.as_str()))
        .ok()
        .and_then(|i| names::GO_UNICODE_CLASSES.get(i))
        .map(|(_, class)| *class)
}

/// Go's Perl classes (ASCII only), as Rust class bodies.
fn perl_class(c: char) -> Option<(&'static str, bool)> {
    Some(match c {
        'd' => ("0-9", false),
        'D' => ("0-9", true),
        's' => ("\\t\\n\\f\\r ", false),
        'S' => ("\\t\\n\\f\\r ", true),
        'w' => ("0-9A-Za-z_", false),
        'W' => ("0-9A-Za-z_", true),
        _ => return None,
    })
}

/// Go's POSIX classes (`[:alpha:]`, ASCII only), as Rust class bodies.
fn posix_class(name: &str) -> Option<&'static str> {
    Some(match name {
        "alnum" => "0-9A-Za-z",
        "alpha" => "A-Za-z",
        "ascii" => "\\x00-\\x7F",
        "blank" => "\\t ",
        "cntrl" => "\\x00-\\x1F\\x7F",
        "digit" => "0-9",
        "graph" => "!-~",
        "lower" => "a-z",
        "print" => " -~",
        "punct" => "!-/:-@\\[-`{-~",
        "space" => "\\t\\n\\x0B\\f\\r ",
        "upper" => "A-Z",
        "word" => "0-9A-Za-z_",
        "xdigit" => "0-9A-Fa-f",
        _ => return None,
    })
}

/// The flags Go's parser carries (`syntax.Perl` starts with all of them off).
#[derive(Clone, Copy, Default)]
struct Flags {
    fold: bool,
    multi_line: bool,
    dot_nl: bool,
}

/// The parsed pattern, as Go's parser structures it (greediness dropped: `MatchString` only
/// asks whether there is a match).
enum Node {
    /// A code point; Go keeps surrogates (`\x{D800}`), which no text contains.
    Literal(u32, bool),
    /// A bracket or Perl class: the Rust class body, negated or not, folded or not.
    Class(String, bool, bool),
    AnyChar(bool),
    Assert(&'static str),
    /// The alternatives, and the height of the tree under it.
    Group(Vec<Vec<Node>>, usize),
    Repeat(Box<Node>, u32, Option<u32>, usize),
}

impl Node {
    fn height(&self) -> usize {
        match self {
            Node::Group(_, h) | Node::Repeat(_, _, _, h) => *h,
            _ => 1,
        }
    }
}

fn go_error(code: &str, expr: &str) -> String {
    format!("{code}: `{expr}`")
}

/// One open group (the whole pattern is the bottom one).
struct Frame {
    flags_before: Flags,
    alternatives: Vec<Vec<Node>>,
    current: Vec<Node>,
}

struct GoParser<'a> {
    whole: &'a str,
    flags: Flags,
    /// The whole pattern's alternatives, under the open groups.
    root: Frame,
    open: Vec<Frame>,
}

/// Go's `repeatIsValid`: nested counted repetitions may not multiply past 1000 copies.
fn repeat_is_valid(node: &Node, mut n: u32) -> bool {
    match node {
        Node::Repeat(sub, min, max, _) => {
            let m = max.unwrap_or(*min);
            if *max == Some(0) {
                return true;
            }
            if m > n {
                return false;
            }
            if let Some(q) = n.checked_div(m) {
                n = q;
            }
            repeat_is_valid(sub, n)
        }
        Node::Group(alts, _) => alts.iter().flatten().all(|s| repeat_is_valid(s, n)),
        _ => true,
    }
}

impl<'a> GoParser<'a> {
    fn frame(&mut self) -> &mut Frame {
        match self.open.last_mut() {
            Some(f) => f,
            None => &mut self.root,
        }
    }

    fn current(&mut self) -> &mut Vec<Node> {
        &mut self.frame().current
    }

    fn push(&mut self, node: Node) {
        self.current().push(node);
    }

    fn literal(&mut self, c: u32) {
        let fold = self.flags.fold;
        self.push(Node::Literal(c, fold));
    }

    fn open(&mut self) -> Result<(), String> {
        if self.open.len() >= GO_MAX_DEPTH {
            return Err(go_error("expression nests too deeply", self.whole));
        }
        self.open.push(Frame {
            flags_before: self.flags,
            alternatives: Vec::new(),
            current: Vec::new(),
        });
        Ok(())
    }

    /// `before`: the text from the operator on; `after`: what follows it (and its `?`).
    fn repeat(
        &mut self,
        min: u32,
        max: Option<u32>,
        before: &str,
        after: &'a str,
        last_repeat: &str,
    ) -> Result<&'a str, String> {
        let after = after.strip_prefix('?').unwrap_or(after);
        if !last_repeat.is_empty() {
            let op = last_repeat
                .get(..last_repeat.len() - after.len())
                .unwrap_or(last_repeat);
            return Err(go_error("invalid nested repetition operator", op));
        }
        let op = before.get(..before.len() - after.len()).unwrap_or(before);
        let Some(sub) = self.current().pop() else {
            return Err(go_error("missing argument to repetition operator", op));
        };
        let counted =
            !(min == 0 && max.is_none() || min == 1 && max.is_none() || min == 0 && max == Some(1));
        let height = sub.height() + 1;
        if height > GO_MAX_DEPTH {
            return Err(go_error("expression nests too deeply", self.whole));
        }
        let node = Node::Repeat(Box::new(sub), min, max, height);
        if counted
            && (min >= 2 || max.is_some_and(|m| m >= 2))
            && !repeat_is_valid(&node, GO_MAX_REPEAT)
        {
            return Err(go_error("invalid repeat count", op));
        }
        self.push(node);
        Ok(after)
    }
}

/// Go's `parseInt` for repeat counts: no leading zeros; past 1e8 it is "too big" (-1).
fn parse_count(s: &str) -> Option<(i64, &str)> {
    let digits = s.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return None;
    }
    let (num, rest) = s.split_at(digits);
    if num.len() >= 2 && num.starts_with('0') {
        return None;
    }
    let mut n: i64 = 0;
    for b in num.bytes() {
        if n >= 100_000_000 {
            n = -1;
            break;
        }
        n = n * 10 + i64::from(b - b'0');
    }
    Some((n, rest))
}

/// Go's `parseRepeat`: `{n}`, `{n,}`, `{n,m}`; `None` when `{` is a literal. Counts are -1
/// when too big.
fn parse_repeat(s: &str) -> Option<(i64, i64, &str)> {
    let s = s.strip_prefix('{')?;
    let (min, s) = parse_count(s)?;
    let (max, s) = if let Some(s) = s.strip_prefix(',') {
        if let Some(rest) = s.strip_prefix('}') {
            return Some((min, -1, rest));
        }
        let (max, s) = parse_count(s)?;
        // A maximum that is too big makes the minimum invalid, as in Go.
        if max < 0 { (-2, s) } else { (max, s) }
    } else {
        (min, s)
    };
    let rest = s.strip_prefix('}')?;
    if max == -2 {
        return Some((-1, -1, rest));
    }
    Some((min, max, rest))
}

fn next_char(s: &str) -> Option<(char, &str)> {
    let c = s.chars().next()?;
    Some((c, s.get(c.len_utf8()..).unwrap_or("")))
}

fn hex_value(c: char) -> Option<u32> {
    c.to_digit(16)
}

/// Go's `parseEscape`: `s` starts at the backslash. A single code point (may be a surrogate).
fn parse_escape(s: &str) -> Result<(u32, &str), String> {
    let t = s.get(1..).unwrap_or("");
    let Some((c, mut t)) = next_char(t) else {
        return Err(go_error("trailing backslash at end of expression", ""));
    };
    let invalid = |t: &str| {
        go_error(
            "invalid escape sequence",
            s.get(..s.len() - t.len()).unwrap_or(s),
        )
    };
    match c {
        '1'..='7' if !t.starts_with(|d: char| ('0'..='7').contains(&d)) => Err(invalid(t)),
        '0'..='7' => {
            let mut r = c as u32 - '0' as u32;
            for _ in 1..3 {
                match t.chars().next() {
                    Some(d @ '0'..='7') => {
                        r = r * 8 + (d as u32 - '0' as u32);
                        t = t.get(1..).unwrap_or("");
                    }
                    _ => break,
                }
            }
            Ok((r, t))
        }
        'x' => {
            let Some((c, rest)) = next_char(t) else {
                return Err(invalid(t));
            };
            if c == '{' {
                let mut r: u32 = 0;
                let mut n = 0;
                let mut t = rest;
                loop {
                    let Some((c, rest)) = next_char(t) else {
                        return Err(invalid(t));
                    };
                    t = rest;
                    if c == '}' {
                        break;
                    }
                    let Some(v) = hex_value(c) else {
                        return Err(invalid(t));
                    };
                    r = r * 16 + v;
                    if r > 0x10FFFF {
                        return Err(invalid(t));
                    }
                    n += 1;
                }
                if n == 0 {
                    return Err(invalid(t));
                }
                return Ok((r, t));
            }
            let Some((d, rest2)) = next_char(rest) else {
                return Err(invalid(rest));
            };
            match (hex_value(c), hex_value(d)) {
                (Some(x), Some(y)) => Ok((x * 16 + y, rest2)),
                _ => Err(invalid(rest2)),
            }
        }
        'a' => Ok((0x07, t)),
        'f' => Ok((0x0C, t)),
        'n' => Ok((0x0A, t)),
        'r' => Ok((0x0D, t)),
        't' => Ok((0x09, t)),
        'v' => Ok((0x0B, t)),
        c if c.is_ascii() && !c.is_ascii_alphanumeric() => Ok((c as u32, t)),
        _ => Err(invalid(t)),
    }
}

/// A code point in a Rust class body (surrogates, which Go keeps, are clamped by the caller).
fn push_code(out: &mut String, c: u32) {
    out.push_str(&format!("\\x{{{c:X}}}"));
}

/// Go's `parseUnicodeClass` on `s` (at a backslash): `Ok(None)` when `s` is not `\p`/`\P`.
fn parse_unicode_class(s: &str) -> Result<Option<(String, &str)>, String> {
    let Some(rest) = s.strip_prefix("\\p").or_else(|| s.strip_prefix("\\P")) else {
        return Ok(None);
    };
    let mut negated = s.starts_with("\\P");
    let (seq, name, t) = match next_char(rest) {
        Some(('{', _)) => {
            let Some(end) = s.find('}') else {
                return Err(go_error("invalid character class range", s));
            };
            let seq = s.get(..=end).unwrap_or(s);
            (
                seq,
                s.get(3..end).unwrap_or(""),
                s.get(end + 1..).unwrap_or(""),
            )
        }
        Some((_, t)) => {
            let seq = s.get(..s.len() - t.len()).unwrap_or(s);
            (seq, seq.get(2..).unwrap_or(""), t)
        }
        None => (s, "", ""),
    };
    let name = match name.strip_prefix('^') {
        Some(n) => {
            negated = !negated;
            n
        }
        None => name,
    };
    let Some(class) = go_unicode_class(name).filter(|_| !name.is_empty()) else {
        return Err(go_error("invalid character class range", seq));
    };
    let body = format!("{}{{{class}}}", if negated { "\\P" } else { "\\p" });
    Ok(Some((body, t)))
}

/// Go's `parseClass`: `s` starts at `[`. Returns the Rust class and the rest.
fn parse_class<'a>(p: &GoParser<'_>, s: &'a str) -> Result<(Node, &'a str), String> {
    let whole = s;
    let mut t = s.get(1..).unwrap_or("");
    let negated = t.starts_with('^');
    if negated {
        t = t.get(1..).unwrap_or("");
    }
    let mut body = String::new();
    let mut first = true;
    while t.is_empty() || !t.starts_with(']') || first {
        first = false;
        if t.starts_with("[:")
            && let Some(i) = t.get(2..).and_then(|r| r.find(":]"))
        {
            let name = t.get(..i + 4).unwrap_or(t);
            let inner = name.get(2..name.len() - 2).unwrap_or("");
            let (neg, key) = match inner.strip_prefix('^') {
                Some(k) => (true, k),
                None => (false, inner),
            };
            let Some(class) = posix_class(key) else {
                return Err(go_error("invalid character class range", name));
            };
            body.push_str(if neg { "[^" } else { "[" });
            body.push_str(class);
            body.push(']');
            t = t.get(i + 4..).unwrap_or("");
            continue;
        }
        if let Some((class, rest)) = parse_unicode_class(t)? {
            body.push_str(&class);
            t = rest;
            continue;
        }
        if let Some(rest) = t.strip_prefix('\\')
            && let Some((c, after)) = next_char(rest)
            && let Some((class, neg)) = perl_class(c)
        {
            body.push_str(if neg { "[^" } else { "[" });
            body.push_str(class);
            body.push(']');
            t = after;
            continue;
        }
        let range_start = t;
        let (lo, rest) = class_char(t, whole)?;
        t = rest;
        let mut hi = lo;
        if t.len() >= 2 && t.starts_with('-') && !t.get(1..).is_some_and(|r| r.starts_with(']')) {
            let (h, rest) = class_char(t.get(1..).unwrap_or(""), whole)?;
            t = rest;
            hi = h;
            if hi < lo {
                let text = range_start
                    .get(..range_start.len() - t.len())
                    .unwrap_or(range_start);
                return Err(go_error("invalid character class range", text));
            }
        }
        // Surrogates (which Go's escapes can name) never occur in text: clamp them out.
        let lo = if (0xD800..=0xDFFF).contains(&lo) {
            0xE000
        } else {
            lo
        };
        let hi = if (0xD800..=0xDFFF).contains(&hi) {
            0xD7FF
        } else {
            hi
        };
        if lo <= hi {
            push_code(&mut body, lo);
            if hi != lo {
                body.push('-');
                push_code(&mut body, hi);
            }
        }
    }
    let rest = t.get(1..).unwrap_or("");
    Ok((Node::Class(body, negated, p.flags.fold), rest))
}

/// Go's `parseClassChar`: a character or an escape inside brackets.
fn class_char<'a>(s: &'a str, whole: &str) -> Result<(u32, &'a str), String> {
    if s.is_empty() {
        return Err(go_error("missing closing ]", whole));
    }
    if s.starts_with('\\') {
        return parse_escape(s);
    }
    match next_char(s) {
        Some((c, t)) => Ok((c as u32, t)),
        None => Err(go_error("missing closing ]", whole)),
    }
}

/// Go's `parsePerlFlags`: `s` starts at `(?`.
fn parse_perl_flags<'a>(p: &mut GoParser<'_>, s: &'a str) -> Result<&'a str, String> {
    let t = s;
    let starts_with_p = t.len() > 4 && t.get(2..4) == Some("P<");
    let starts_with_name = t.len() > 3 && t.get(2..3) == Some("<");
    if starts_with_p || starts_with_name {
        let expr_start = if starts_with_p { 4 } else { 3 };
        let Some(end) = t.find('>') else {
            return Err(go_error("invalid named capture", s));
        };
        let capture = t.get(..=end).unwrap_or(t);
        let name = t.get(expr_start..end).unwrap_or("");
        if name.is_empty() || !name.chars().all(|c| c == '_' || c.is_ascii_alphanumeric()) {
            return Err(go_error("invalid named capture", capture));
        }
        p.open()?;
        return Ok(t.get(end + 1..).unwrap_or(""));
    }
    let mut t = t.get(2..).unwrap_or("");
    let mut flags = p.flags;
    let mut negate = false;
    let mut saw_flag = false;
    while let Some((c, rest)) = next_char(t) {
        t = rest;
        match c {
            'i' => {
                flags.fold = !negate;
                saw_flag = true;
            }
            'm' => {
                flags.multi_line = !negate;
                saw_flag = true;
            }
            's' => {
                flags.dot_nl = !negate;
                saw_flag = true;
            }
            // Non-greedy by default: matching or not does not depend on it.
            'U' => saw_flag = true,
            '-' if !negate => {
                negate = true;
                saw_flag = false;
            }
            // `(?-)` and `(?i-)` are refused: a `-` must be followed by a flag.
            ':' | ')' if !negate || saw_flag => {
                if c == ':' {
                    p.open()?;
                }
                p.flags = flags;
                return Ok(t);
            }
            _ => break,
        }
    }
    Err(go_error(
        "invalid or unsupported Perl syntax",
        s.get(..s.len() - t.len()).unwrap_or(s),
    ))
}

fn parse(pattern: &str) -> Result<Vec<Vec<Node>>, String> {
    let mut p = GoParser {
        whole: pattern,
        flags: Flags::default(),
        root: Frame {
            flags_before: Flags::default(),
            alternatives: Vec::new(),
            current: Vec::new(),
        },
        open: Vec::new(),
    };
    let mut t = pattern;
    let mut last_repeat: &str = "";
    while let Some((c, rest)) = next_char(t) {
        let mut repeat: &str = "";
        match c {
            '(' if t.starts_with("(?") => t = parse_perl_flags(&mut p, t)?,
            '(' => {
                p.open()?;
                t = rest;
            }
            '|' => {
                let f = p.frame();
                let cur = std::mem::take(&mut f.current);
                f.alternatives.push(cur);
                t = rest;
            }
            ')' => {
                let Some(mut f) = p.open.pop() else {
                    return Err(go_error("unexpected )", pattern));
                };
                f.alternatives.push(f.current);
                p.flags = f.flags_before;
                let height = 1 + f
                    .alternatives
                    .iter()
                    .flatten()
                    .map(Node::height)
                    .max()
                    .unwrap_or(0);
                if height > GO_MAX_DEPTH {
                    return Err(go_error("expression nests too deeply", pattern));
                }
                p.push(Node::Group(f.alternatives, height));
                t = rest;
            }
            '^' => {
                p.push(Node::Assert(if p.flags.multi_line { "^" } else { "\\A" }));
                t = rest;
            }
            '$' => {
                p.push(Node::Assert(if p.flags.multi_line { "$" } else { "\\z" }));
                t = rest;
            }
            '.' => {
                let nl = p.flags.dot_nl;
                p.push(Node::AnyChar(nl));
                t = rest;
            }
            '[' => {
                let (node, rest) = parse_class(&p, t)?;
                p.push(node);
                t = rest;
            }
            '*' | '+' | '?' => {
                let (min, max) = match c {
                    '*' => (0, None),
                    '+' => (1, None),
                    _ => (0, Some(1)),
                };
                let before = t;
                t = p.repeat(min, max, before, rest, last_repeat)?;
                repeat = before;
            }
            '{' => match parse_repeat(t) {
                None => {
                    p.literal('{' as u32);
                    t = rest;
                }
                Some((min, max, after)) => {
                    let before = t;
                    let op = before.get(..before.len() - after.len()).unwrap_or(before);
                    let cap = i64::from(GO_MAX_REPEAT);
                    if min < 0 || min > cap || max > cap || max >= 0 && min > max {
                        return Err(go_error("invalid repeat count", op));
                    }
                    let max = u32::try_from(max).ok();
                    let min = u32::try_from(min).unwrap_or(0);
                    t = p.repeat(min, max, before, after, last_repeat)?;
                    repeat = before;
                }
            },
            '\\' => t = parse_backslash(&mut p, t)?,
            _ => {
                p.literal(c as u32);
                t = rest;
            }
        }
        last_repeat = repeat;
    }
    if !p.open.is_empty() {
        return Err(go_error("missing closing )", pattern));
    }
    let mut root = p.root;
    root.alternatives.push(root.current);
    Ok(root.alternatives)
}

/// The parse loop's `\` case: Go's specials first, then `\p`, Perl classes, single escapes.
fn parse_backslash<'a>(p: &mut GoParser<'_>, t: &'a str) -> Result<&'a str, String> {
    let rest = t.get(1..).unwrap_or("");
    if let Some((n, after)) = next_char(rest) {
        let assert = match n {
            'A' => Some("\\A"),
            'z' => Some("\\z"),
            'b' => Some("(?-u:\\b)"),
            'B' => Some("(?-u:\\B)"),
            _ => None,
        };
        if let Some(a) = assert {
            p.push(Node::Assert(a));
            return Ok(after);
        }
        if n == 'C' {
            return Err(go_error("invalid escape sequence", "\\C"));
        }
        if n == 'Q' {
            let (lit, rest) = match after.find("\\E") {
                Some(i) => (
                    after.get(..i).unwrap_or(""),
                    after.get(i + 2..).unwrap_or(""),
                ),
                None => (after, ""),
            };
            for c in lit.chars() {
                p.literal(c as u32);
            }
            return Ok(rest);
        }
    }
    if let Some((class, rest)) = parse_unicode_class(t)? {
        let fold = p.flags.fold;
        p.push(Node::Class(class, false, fold));
        return Ok(rest);
    }
    if let Some((c, after)) = next_char(rest)
        && let Some((class, neg)) = perl_class(c)
    {
        let fold = p.flags.fold;
        p.push(Node::Class(class.to_owned(), neg, fold));
        return Ok(after);
    }
    let (c, rest) = parse_escape(t)?;
    p.literal(c);
    Ok(rest)
}

/// Writes `node` in Rust's syntax. `fold` is the case-insensitivity in force at this point of
/// the output (`None`: not known, so the next literal or class states it). Flags are switched
/// with `(?i)`/`(?-i)` rather than scoped groups, so the output nests no deeper than Go's tree:
/// the `regex` crate refuses nesting past 250, and the tree is at most that deep when it builds.
fn emit(node: &Node, out: &mut String, fold: &mut Option<bool>) {
    let mut set_fold = |out: &mut String, want: bool| {
        if *fold != Some(want) {
            out.push_str(if want { "(?i)" } else { "(?-i)" });
            *fold = Some(want);
        }
    };
    match node {
        Node::Literal(c, f) => {
            if (0xD800..=0xDFFF).contains(c) {
                out.push_str(NEVER);
            } else {
                set_fold(out, *f);
                push_code(out, *c);
            }
        }
        Node::Class(body, negated, f) => {
            if body.is_empty() {
                // `[^]` is not Rust syntax: an empty class matches nothing, its negation anything.
                out.push_str(if *negated { ANY } else { NEVER });
            } else {
                set_fold(out, *f);
                out.push_str(if *negated { "[^" } else { "[" });
                out.push_str(body);
                out.push(']');
            }
        }
        Node::AnyChar(nl) => out.push_str(if *nl { ANY } else { "[^\\n]" }),
        Node::Assert(a) => out.push_str(a),
        Node::Group(alts, _) => emit_alternatives(alts, out, fold),
        Node::Repeat(sub, min, max, _) => {
            if matches!(
                **sub,
                Node::Literal(..) | Node::Class(..) | Node::AnyChar(_)
            ) {
                emit(sub, out, fold);
            } else {
                let outer = *fold;
                out.push_str("(?:");
                emit(sub, out, fold);
                out.push(')');
                // Flags switched inside a group end with it.
                *fold = outer;
            }
            match max {
                Some(m) => out.push_str(&format!("{{{min},{m}}}")),
                None => out.push_str(&format!("{{{min},}}")),
            }
        }
    }
}

/// A class no character is in, and one every character is in.
const NEVER: &str = "[^\\x00-\\x{10FFFF}]";
const ANY: &str = "[\\x00-\\x{10FFFF}]";

fn emit_alternatives(alts: &[Vec<Node>], out: &mut String, fold: &mut Option<bool>) {
    let outer = *fold;
    out.push_str("(?:");
    for (i, alt) in alts.iter().enumerate() {
        if i > 0 {
            out.push('|');
            // Whether a flag switched in one branch carries into the next is left unasked.
            *fold = None;
        }
        for n in alt {
            emit(n, out, fold);
        }
    }
    out.push(')');
    *fold = outer;
}

/// Rewrites a Go pattern into an equivalent Rust pattern, or Go's reason for refusing it.
pub fn translate(p: &str) -> Result<String, String> {
    let alts = parse(p)?;
    // Line anchors are written `^`/`$` under `(?m)` throughout; text anchors as `\A`/`\z`.
    let mut out = String::with_capacity(p.len() * 4 + 8);
    out.push_str("(?m)");
    emit_alternatives(&alts, &mut out, &mut Some(false));
    Ok(out)
}

/// `regexp.MatchString(pattern, s)`; a pattern Go rejects gives `None`.
pub fn matches(pattern: &str, s: &str) -> Option<bool> {
    compile(pattern).ok().map(|re| re.is_match(s))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]
    use super::*;

    #[test]
    fn perl_classes_are_ascii() {
        assert_eq!(matches(r"^\d+$", "123"), Some(true));
        assert_eq!(
            matches(r"^\d+$", "١٢٣"),
            Some(false),
            "Arabic-Indic digits are not \\d in Go"
        );
        assert_eq!(matches(r"^\w+$", "héllo"), Some(false));
        assert_eq!(matches(r"^\W$", "é"), Some(true));
        assert_eq!(matches(r"^[\w-]+$", "a-b_c"), Some(true));
        assert_eq!(matches(r"^[\d]+$", "٣"), Some(false));
        assert_eq!(
            matches(r"^\s$", "\u{b}"),
            Some(false),
            "Go's \\s has no \\v"
        );
        assert_eq!(matches(r"\bbug\b", "a bug here"), Some(true));
        assert_eq!(
            matches(r"é\b", "éa"),
            Some(true),
            "ASCII word boundary: é is not a word char"
        );
    }

    #[test]
    fn unicode_classes_with_braces() {
        // Go reads `\p{Greek}` as a class; the brace must not become a literal.
        assert_eq!(matches(r"^\p{Greek}+$", "αβγ"), Some(true));
        assert_eq!(matches(r"^\P{Greek}$", "a"), Some(true));
        assert_eq!(matches(r"^[\p{Lu}0-9]+$", "AB12"), Some(true));
        assert_eq!(matches(r"^\pL$", "é"), Some(true));
        assert_eq!(
            matches(r"\p{Greek", "x"),
            None,
            "Go rejects an unclosed class name"
        );
    }

    #[test]
    fn unanchored_search_and_flags() {
        assert_eq!(matches("bug", "job failed because of a bug"), Some(true));
        assert_eq!(matches("^bug", "a bug"), Some(false));
        assert_eq!(matches("(?i)OOM", "oomkilled"), Some(true));
        assert_eq!(matches(".", "é"), Some(true));
        assert_eq!(matches("^.$", "é"), Some(true));
    }

    #[test]
    fn go_only_syntax() {
        assert_eq!(matches(r"\Qa.b\E", "a.b"), Some(true));
        assert_eq!(matches(r"\Qa.b\E", "axb"), Some(false));
        assert_eq!(matches(r"[]a]", "]"), Some(true));
        assert_eq!(matches(r"[a&&b]", "&"), Some(true));
        assert_eq!(matches(r"[[:alpha:]]+", "ab"), Some(true));
        assert_eq!(matches(r"[a[]", "["), Some(true));
    }

    #[test]
    fn go_rejections() {
        assert!(compile("(?x) a").is_err());
        assert!(compile("a{1001}").is_err());
        assert!(compile("a{2,1001}").is_err());
        assert!(compile("a{1000}").is_ok());
        assert_eq!(
            matches("a{", "a{"),
            Some(true),
            "a lone brace is a literal in Go"
        );
        assert_eq!(matches("x{foo}", "x{foo}"), Some(true));
        assert_eq!(matches("^a{2,}$", "aaa"), Some(true));
        assert!(compile(r"\C").is_err());
        assert!(compile("(unclosed").is_err());
        assert!(compile("a\\").is_err());
        assert!(compile("*a").is_err());
    }

    // Names and messages below were checked against Go 1.26.8's regexp.Compile.
    #[test]
    fn unicode_class_names_go_accepts() {
        for p in [
            r"\p{Greek}",
            r"\p{greek}",
            r"\p{GREEK}",
            r"\p{ Greek }",
            r"\p{Lu}",
            r"\p{lu}",
            r"\p{-l-u-}",
            r"\pL",
            r"\pl",
            r"\PL",
            r"\p{L}",
            r"\p{^Greek}",
            r"\P{^L}",
            r"\p{Any}",
            r"\p{ASCII}",
            r"\p{ascii}",
            r"\p{Assigned}",
            r"\p{LC}",
            r"\p{lC}",
            r"\p{Cn}",
            r"\p{Letter}",
            r"\p{Cased_Letter}",
            r"\p{casedletter}",
            r"\p{Combining_Mark}",
            r"\p{punct}",
            r"\p{digit}",
            r"\p{Nko}",
            r"\p{NKo}",
            r"\p{Common}",
            r"\p{Inherited}",
            r"[\p{greek}x]",
            r"[^\P{Lu}]",
            r"(?i)\p{Lu}",
        ] {
            assert!(compile(p).is_ok(), "Go accepts {p}: {:?}", compile(p).err());
        }
    }

    #[test]
    fn unicode_class_names_go_rejects() {
        for p in [
            r"\p{Alphabetic}",
            r"\p{IsGreek}",
            r"\p{White_Space}",
            r"\p{sc=Greek}",
            r"\p{Script=Greek}",
            r"\p{Age=3.0}",
            r"\p{WB=ALetter}",
            r"\p{gc=Lu}",
            r"\p{Zyyy}",
            r"\p{Grek}",
            r"\p{Emoji}",
            r"\p{Lowercase}",
            r"\p{Uppercase_Letter_x}",
            r"\p{Old_Italic}",
            r"\p{OldItalic}",
            r"\p{Canadian_Aboriginal}",
            r"\p{SignWriting}",
            r"\p{Garay}",
            r"\p{}",
            r"\p{^}",
            r"[\p{Alphabetic}]",
            r"\pX",
        ] {
            assert_eq!(
                compile(p).err(),
                Some(
                    format!("invalid character class range: `{p}`")
                        .replace('[', "")
                        .replace(']', "")
                ),
                "Go rejects {p}"
            );
        }
        assert_eq!(
            compile(r"\p").err().as_deref(),
            Some(r"invalid character class range: `\p`")
        );
        assert_eq!(
            compile(r"\p^L").err().as_deref(),
            Some(r"invalid character class range: `\p^`")
        );
        assert_eq!(
            compile(r"x\p{Greek").err().as_deref(),
            Some(r"invalid character class range: `\p{Greek`")
        );
    }

    #[test]
    fn unicode_classes_match_like_go() {
        assert_eq!(matches(r"^\p{greek}+$", "αβγ"), Some(true));
        assert_eq!(matches(r"^\p{^Greek}$", "α"), Some(false));
        assert_eq!(matches(r"^\P{^Greek}$", "α"), Some(true));
        assert_eq!(matches(r"^\p{Any}$", "\u{10FFFF}"), Some(true));
        assert_eq!(matches(r"^\p{ASCII}+$", "a~\u{7f}"), Some(true));
        assert_eq!(matches(r"^\p{ASCII}$", "é"), Some(false));
        assert_eq!(matches(r"^\p{Assigned}$", "a"), Some(true));
        assert_eq!(
            matches(r"^\p{Assigned}$", "\u{378}"),
            Some(false),
            "U+0378 is unassigned"
        );
        assert_eq!(
            matches(r"^\p{digit}+$", "١٢"),
            Some(true),
            "digit is Go's alias of Nd"
        );
        assert_eq!(matches(r"^\p{Common}$", "1"), Some(true));
        assert_eq!(
            matches(r"^\p{Common}$", "a"),
            Some(false),
            "a script, not a category"
        );
        assert_eq!(matches(r"^\p{LC}$", "a"), Some(true));
        assert_eq!(
            matches(r"(?i)^\p{Lu}$", "a"),
            Some(true),
            "Go folds case in classes"
        );
        assert_eq!(
            matches(r"(?i)^k$", "\u{212A}"),
            Some(true),
            "Kelvin sign folds to k"
        );
    }

    /// Parsing as Go's `regexp/syntax` does: every expectation was read off Go 1.26.8
    /// (`regexp.Compile`, then `MatchString`), including Go's error text.
    #[test]
    fn parses_like_go() {
        let cases: &[(&str, &str, Result<bool, &str>)] = &[
            ("a**", "a", Err("invalid nested repetition operator: `**`")),
            ("a*+", "a", Err("invalid nested repetition operator: `*+`")),
            (
                "a{2}{3}",
                "aa",
                Err("invalid nested repetition operator: `{2}{3}`"),
            ),
            (
                "a*?*",
                "a",
                Err("invalid nested repetition operator: `*?*`"),
            ),
            ("^K(?i)*$", "KK", Ok(true)),
            ("^K(?i)*$", "kk", Ok(false)),
            (
                "(?i)*",
                "",
                Err("missing argument to repetition operator: `*`"),
            ),
            ("\\101", "A", Ok(true)),
            ("\\0", "\u{0}", Ok(true)),
            ("\\1", "1", Err("invalid escape sequence: `\\1`")),
            ("\\8", "8", Err("invalid escape sequence: `\\8`")),
            ("\\12", "\u{a}", Ok(true)),
            ("[a--b]", "a", Err("invalid character class range: `a--`")),
            ("^[--b]$", "K", Ok(true)),
            (
                "[[:foo:]]",
                "f",
                Err("invalid character class range: `[:foo:]`"),
            ),
            ("[\\b]", "\u{8}", Err("invalid escape sequence: `\\b`")),
            ("\\<", "<", Ok(true)),
            ("\\h", "h", Err("invalid escape sequence: `\\h`")),
            ("(a{100}){100}", "a", Err("invalid repeat count: `{100}`")),
            ("^(a{10}){100}$", "a", Ok(false)),
            ("a{01}", "a{01}", Ok(true)),
            ("\\pL{1000}", "a", Ok(false)),
            ("x\\x{D800}", "x", Ok(false)),
            ("a{2,1}", "aa", Err("invalid repeat count: `{2,1}`")),
            ("a{1001}", "a", Err("invalid repeat count: `{1001}`")),
            ("(?P<n>a)(?<n>b)", "ab", Ok(true)),
            (
                "(?P=n)",
                "a",
                Err("invalid or unsupported Perl syntax: `(?P`"),
            ),
            ("(?i)[^k]", "\u{212a}", Ok(false)),
            ("[^]a]", "b", Ok(true)),
            (
                "(?-)a",
                "a",
                Err("invalid or unsupported Perl syntax: `(?-)`"),
            ),
            ("(?)a", "a", Ok(true)),
            (
                "(?i-)a",
                "a",
                Err("invalid or unsupported Perl syntax: `(?i-)`"),
            ),
            (
                "\\Q\\E*",
                "",
                Err("missing argument to repetition operator: `*`"),
            ),
            (
                "a|*",
                "a",
                Err("missing argument to repetition operator: `*`"),
            ),
            ("()*", "", Ok(true)),
            ("^*", "", Ok(true)),
            ("$+", "", Ok(true)),
            ("x{1,2}{", "x{", Ok(true)),
            ("[a-\\d]", "a", Err("invalid escape sequence: `\\d`")),
            ("\\x4", "x", Err("invalid escape sequence: `\\x4`")),
            ("\\x{}", "x", Err("invalid escape sequence: `\\x{}`")),
            (
                "\\x{110000}",
                "x",
                Err("invalid escape sequence: `\\x{110000`"),
            ),
            ("(?s).", "\u{a}", Ok(true)),
            (".", "\u{a}", Ok(false)),
            ("(?m)^b", "a\u{a}b", Ok(true)),
            ("^b", "a\u{a}b", Ok(false)),
            ("a$", "a\u{a}", Ok(false)),
            ("(?m)a$", "a\u{a}", Ok(true)),
            ("\\z", "", Ok(true)),
        ];
        for (pattern, text, want) in cases {
            let got = compile(pattern).map(|re| re.is_match(text));
            assert_eq!(
                got.as_ref().map_err(String::as_str),
                want.as_ref().map_err(|e| *e),
                "{pattern:?} on {text:?}"
            );
        }
    }

    #[test]
    fn deep_nesting_is_refused_not_overflowed() {
        let deep = format!("{}a{}", "(".repeat(1200), ")".repeat(1200));
        assert!(
            translate(&deep)
                .unwrap_err()
                .starts_with("expression nests too deeply")
        );
        // Repetitions stacked through flag groups nest without parentheses.
        let stacked = format!("a*{}", "(?i)*".repeat(1200));
        assert!(
            translate(&stacked)
                .unwrap_err()
                .starts_with("expression nests too deeply")
        );
        assert!(compile(&format!("a*{}", "(?i)*".repeat(100))).is_ok());
        // Go accepts 990 levels; the regex crate builds up to 250 and refuses the rest cleanly
        // (validation says so, and evaluation refuses such a JobSet).
        let go_ok = format!("{}a{}", "(".repeat(990), ")".repeat(990));
        assert!(translate(&go_ok).is_ok());
        assert!(compile(&go_ok).is_err());
        assert_eq!(
            matches(&format!("{}a{}", "(".repeat(200), ")".repeat(200)), "a"),
            Some(true)
        );
    }

    /// Pieces of Go syntax, valid and not, that random patterns are made of.
    #[rustfmt::skip]
    const PIECES: &[&str] = &[
        "a", "K", "\u{212A}", "\u{17F}", "\u{3A3}", "\u{E9}", "\u{6F22}", ".", "^", "$", "|", "(", ")", "(?:", "(?i)",
        "(?i:", "(?-i)", "(?s)", "(?m)", "(?U)", "(?P<n>", "(?<n>", "(?=", "(?", "[", "]", "[^", "-", "[:alpha:]",
        "[:^digit:]", "[:foo:]", "\\", "\\d", "\\W", "\\b", "\\B", "\\A", "\\z", "\\Q", "\\E", "\\x41", "\\x{3A3}",
        "\\x{D800}", "\\101", "\\0", "\\8", "\\pL", "\\p{Greek}", "\\P{^Lu}", "\\p{Foo}", "\\p{", "*", "+", "?",
        "{2}", "{1,3}", "{2,}", "{,2}", "{3,1}", "{1001}", "{01}", "}", "&&", "--", "~~",
    ];

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig { cases: 2000, ..Default::default() })]

        /// Whatever Go's syntax accepts comes out as a pattern the regex crate builds (so the
        /// written syntax is always Rust's), and nothing panics on the way, accepted or not.
        #[test]
        fn accepted_patterns_always_build(parts in proptest::collection::vec(0..PIECES.len(), 0..12)) {
            let pattern: String = parts.iter().filter_map(|&i| PIECES.get(i).copied()).collect();
            if let Ok(rust) = translate(&pattern) {
                let built = compile(&pattern);
                proptest::prop_assert!(built.is_ok(), "{pattern:?} -> {rust:?}: {:?}", built.err());
                if let Ok(re) = built {
                    let _ = re.is_match("aK\u{212A}\u{3A3}\n\u{E9}x");
                }
            }
        }
    }
}
