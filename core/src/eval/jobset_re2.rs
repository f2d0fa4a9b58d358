//! Go `regexp` (RE2) patterns on the Rust `regex` crate, for JobSet's
//! `onJobFailureMessagePatterns` (`regexp.MatchString`: unanchored search).
//!
//! The two engines share their syntax, with these differences, handled here: Go's Perl classes
//! (`\d`, `\s`, `\w`) and word boundaries are ASCII-only where Rust's are Unicode; Go's `\s` has
//! no `\v`; Go accepts `\Q…\E` literals; Go rejects the `x` flag and repeat counts above 1000.

use regex::Regex;

const GO_MAX_REPEAT: u32 = 1000;

/// Compiles a Go regexp; `Err` carries why Go (or the translation) rejects it.
pub fn compile(pattern: &str) -> Result<Regex, String> {
    let translated = translate(pattern)?;
    Regex::new(&translated)
        .map_err(|e| e.to_string().lines().last().unwrap_or("").trim().to_owned())
}

fn outside_class(c: char) -> Option<&'static str> {
    Some(match c {
        'd' => "[0-9]",
        'D' => "[^0-9]",
        's' => "[\\t\\n\\f\\r ]",
        'S' => "[^\\t\\n\\f\\r ]",
        'w' => "[0-9A-Za-z_]",
        'W' => "[^0-9A-Za-z_]",
        'b' => "(?-u:\\b)",
        'B' => "(?-u:\\B)",
        _ => return None,
    })
}

fn inside_class(c: char) -> Option<&'static str> {
    Some(match c {
        'd' => "0-9",
        'D' => "[:^digit:]",
        's' => "\\t\\n\\f\\r ",
        'S' => "[:^space:]",
        'w' => "0-9A-Za-z_",
        'W' => "[:^word:]",
        _ => return None,
    })
}

fn push_literal(out: &mut String, c: char) {
    if c.is_ascii_alphanumeric() || !c.is_ascii() {
        out.push(c);
    } else {
        out.push('\\');
        out.push(c);
    }
}

/// Rewrites a Go pattern into an equivalent Rust pattern.
pub fn translate(p: &str) -> Result<String, String> {
    let chars: Vec<char> = p.chars().collect();
    let mut out = String::with_capacity(p.len() + 8);
    let mut i = 0;
    let mut in_class = false;
    let at = |i: usize| chars.get(i).copied();
    while let Some(c) = at(i) {
        if c == '\\' {
            let Some(n) = at(i + 1) else {
                return Err("trailing backslash at end of expression".into());
            };
            if !in_class && n == 'Q' {
                // \Q…\E: everything up to \E (or the end) is literal.
                i += 2;
                while let Some(q) = at(i) {
                    if q == '\\' && at(i + 1) == Some('E') {
                        i += 2;
                        break;
                    }
                    push_literal(&mut out, q);
                    i += 1;
                }
                continue;
            }
            if n == 'C' {
                return Err("invalid escape sequence: `\\C`".into());
            }
            if matches!(n, 'p' | 'P') && at(i + 2) == Some('{') {
                // `\p{Greek}`: the braces belong to the class name, in and out of brackets.
                let end = (i + 3..chars.len()).find(|&j| at(j) == Some('}'));
                let Some(end) = end else {
                    return Err("invalid character class range: missing `}`".into());
                };
                out.extend(chars.get(i..=end).into_iter().flatten());
                i = end + 1;
                continue;
            }
            let repl = if in_class {
                inside_class(n)
            } else {
                outside_class(n)
            };
            match repl {
                Some(r) => out.push_str(r),
                None => {
                    out.push('\\');
                    out.push(n);
                }
            }
            i += 2;
            continue;
        }
        if in_class {
            if c == '[' && at(i + 1) == Some(':') {
                // A POSIX class inside brackets: copy through the closing ":]".
                let start = i;
                i += 2;
                while let Some(q) = at(i) {
                    i += 1;
                    if q == ':' && at(i) == Some(']') {
                        i += 1;
                        break;
                    }
                }
                out.extend(chars.get(start..i).into_iter().flatten());
                continue;
            }
            if c == ']' {
                in_class = false;
            }
            if c == '[' {
                // A literal '[' inside a class is fine in Go; Rust would read a nested class.
                out.push_str("\\[");
                i += 1;
                continue;
            }
            if matches!(c, '&' | '~' | '-') && at(i + 1) == Some(c) {
                // Rust reads `&&`, `~~`, `--` as class set operations; Go as literals.
                out.push('\\');
                out.push(c);
                i += 1;
                continue;
            }
            out.push(c);
            i += 1;
            continue;
        }
        match c {
            '[' => {
                in_class = true;
                out.push('[');
                i += 1;
                if at(i) == Some('^') {
                    out.push('^');
                    i += 1;
                }
                if at(i) == Some(']') {
                    out.push_str("\\]");
                    i += 1;
                }
            }
            '(' if at(i + 1) == Some('?') => {
                // Flags: Go knows i, m, s, U only.
                let mut j = i + 2;
                while let Some(f) = at(j) {
                    if f == ')' || f == ':' {
                        break;
                    }
                    if f == 'x' {
                        return Err("invalid or unsupported Perl syntax: `(?x`".into());
                    }
                    if !matches!(f, 'i' | 'm' | 's' | 'U' | '-') {
                        break;
                    }
                    j += 1;
                }
                out.push(c);
                i += 1;
            }
            '{' => {
                // Go reads `{n}`, `{n,}`, `{n,m}` as repeats and any other `{` as a literal.
                let mut j = i + 1;
                let mut text = String::new();
                while let Some(d) = at(j) {
                    if d == '}' {
                        break;
                    }
                    text.push(d);
                    j += 1;
                }
                let closed = at(j) == Some('}');
                let (lo, hi) = text
                    .split_once(',')
                    .map_or((text.as_str(), None), |(a, b)| (a, Some(b)));
                let digits = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
                let valid = closed && digits(lo) && hi.is_none_or(|h| h.is_empty() || digits(h));
                if !valid {
                    out.push_str("\\{");
                    i += 1;
                    continue;
                }
                let too_big = |t: &str| {
                    t.parse::<u64>()
                        .map_or(true, |n| n > u64::from(GO_MAX_REPEAT))
                };
                if too_big(lo) || hi.is_some_and(|h| !h.is_empty() && too_big(h)) {
                    return Err(format!("invalid repeat count: `{{{text}}}`"));
                }
                out.push(c);
                i += 1;
            }
            _ => {
                out.push(c);
                i += 1;
            }
        }
    }
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
}
