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
            if matches!(n, 'p' | 'P') {
                // `\pL`, `\p{Greek}`: the braces belong to the class name, in and out of
                // brackets. Go's names are fewer than Rust's, so the name is resolved here.
                let (name, end) = if at(i + 2) == Some('{') {
                    let Some(end) = (i + 3..chars.len()).find(|&j| at(j) == Some('}')) else {
                        let rest: String = chars.get(i..).into_iter().flatten().collect();
                        return Err(format!("invalid character class range: `{rest}`"));
                    };
                    let name: String = chars.get(i + 3..end).into_iter().flatten().collect();
                    (name, end)
                } else {
                    let Some(letter) = at(i + 2) else {
                        return Err(format!("invalid character class range: `\\{n}`"));
                    };
                    (letter.to_string(), i + 2)
                };
                let seq: String = chars.get(i..=end).into_iter().flatten().collect();
                let (negated, name) = match name.strip_prefix('^') {
                    Some(rest) => (n == 'p', rest),
                    None => (n == 'P', name.as_str()),
                };
                let Some(class) = go_unicode_class(name) else {
                    return Err(format!("invalid character class range: `{seq}`"));
                };
                out.push_str(if negated { "\\P{" } else { "\\p{" });
                out.push_str(class);
                out.push('}');
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
}
