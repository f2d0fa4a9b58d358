//! Go's `net/url.Parse`, as far as apiserver's `ValidateWebhookURL` reads its answer: the error
//! text, the scheme, whether a host was given, the user information (as `Userinfo.String()`
//! prints it), the fragment and the raw query. Written after the Go 1.26 toolchain the oracle
//! links (its `urlstrictcolons` default: an http or https host takes no second colon), with the
//! `net/netip.ParseAddr` errors a bracketed host can end in.

use super::crd_schema::go::{quote, quote_bytes};

/// What `Parse` found, of what the webhook URL check reads.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct Url {
    pub scheme: String,
    pub has_host: bool,
    /// `u.User.String()`, when the URL had an `@` in its authority.
    pub user: Option<String>,
    /// `u.Fragment`, unescaped (bytes: an escape may leave invalid UTF-8).
    pub fragment: Vec<u8>,
    pub raw_query: String,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Path,
    Host,
    Zone,
    UserPassword,
    Fragment,
}

/// `url.Parse(raw)`: `Err` holds the `*url.Error`'s text.
pub(super) fn parse(raw: &str) -> Result<Url, String> {
    let (before, frag) = raw.split_once('#').unwrap_or((raw, ""));
    let mut url = parse_reference(before).map_err(|e| format!("parse {}: {e}", quote(before)))?;
    if !frag.is_empty() {
        // The error of a bad fragment names the whole URL, unlike the others.
        url.fragment = unescape(frag.as_bytes(), Mode::Fragment)
            .map_err(|e| format!("parse {}: {e}", quote(raw)))?;
    }
    Ok(url)
}

fn parse_reference(raw: &str) -> Result<Url, String> {
    if raw.bytes().any(|b| b < b' ' || b == 0x7f) {
        return Err("net/url: invalid control character in URL".to_owned());
    }
    let mut url = Url::default();
    if raw == "*" {
        return Ok(url);
    }
    let (scheme, rest) = scheme_of(raw)?;
    url.scheme = scheme.to_ascii_lowercase();
    let mut rest = rest;
    if rest.ends_with('?') && rest.matches('?').count() == 1 {
        rest = rest.strip_suffix('?').unwrap_or(rest);
    } else if let Some((r, q)) = rest.split_once('?') {
        rest = r;
        url.raw_query = q.to_owned();
    }
    if !rest.starts_with('/') {
        if !url.scheme.is_empty() {
            // An opaque URL (`https:host`): no authority at all.
            return Ok(url);
        }
        let first = rest.split('/').next().unwrap_or("");
        if first.contains(':') {
            return Err("first path segment in URL cannot contain colon".to_owned());
        }
    }
    if (!url.scheme.is_empty() || !rest.starts_with("///")) && rest.starts_with("//") {
        let tail = rest.get(2..).unwrap_or("");
        let (authority, path) = match tail.find('/') {
            Some(i) => tail.split_at(i),
            None => (tail, ""),
        };
        let (user, has_host) = parse_authority(&url.scheme, authority)?;
        url.user = user;
        url.has_host = has_host;
        rest = path;
    }
    unescape(rest.as_bytes(), Mode::Path)?;
    Ok(url)
}

/// getScheme: a scheme is `[a-zA-Z][a-zA-Z0-9+.-]*` before a colon.
fn scheme_of(raw: &str) -> Result<(&str, &str), String> {
    for (i, c) in raw.bytes().enumerate() {
        match c {
            b'a'..=b'z' | b'A'..=b'Z' => {}
            b'0'..=b'9' | b'+' | b'-' | b'.' if i > 0 => {}
            b':' if i == 0 => return Err("missing protocol scheme".to_owned()),
            b':' => return Ok((raw.get(..i).unwrap_or(""), raw.get(i + 1..).unwrap_or(""))),
            _ => return Ok(("", raw)),
        }
    }
    Ok(("", raw))
}

/// parseAuthority: the host (checked first), then the user information before the last `@`.
fn parse_authority(scheme: &str, authority: &str) -> Result<(Option<String>, bool), String> {
    let (userinfo, host) = match authority.rfind('@') {
        Some(i) => (authority.get(..i), authority.get(i + 1..).unwrap_or("")),
        None => (None, authority),
    };
    parse_host(scheme, host)?;
    let Some(userinfo) = userinfo else {
        return Ok((None, !host.is_empty()));
    };
    if !userinfo
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "-._:~!$&'()*+,;=%@".contains(c))
    {
        return Err("net/url: invalid userinfo".to_owned());
    }
    let printed = match userinfo.split_once(':') {
        None => escape_user(&unescape(userinfo.as_bytes(), Mode::UserPassword)?),
        Some((name, password)) => {
            let name = unescape(name.as_bytes(), Mode::UserPassword)?;
            let password = unescape(password.as_bytes(), Mode::UserPassword)?;
            format!("{}:{}", escape_user(&name), escape_user(&password))
        }
    };
    Ok((Some(printed), !host.is_empty()))
}

/// parseHost: `host[:port]` or `[IPv6 literal][:port]`.
fn parse_host(scheme: &str, host: &str) -> Result<(), String> {
    match host.rfind('[') {
        Some(i) if i > 0 => return Err("invalid IP-literal".to_owned()),
        Some(_) => {
            let Some(close) = host.rfind(']') else {
                return Err("missing ']' in host".to_owned());
            };
            let colon_port = host.get(close + 1..).unwrap_or("");
            if !valid_optional_port(colon_port) {
                return Err(format!("invalid port {} after host", quote(colon_port)));
            }
            let name = host.get(1..close).unwrap_or("").as_bytes();
            let unescaped = match find(name, b"%25") {
                Some(z) => {
                    let (addr, zone) = name.split_at(z);
                    let mut v = unescape(addr, Mode::Host)?;
                    v.extend(unescape(zone, Mode::Zone)?);
                    v
                }
                None => unescape(name, Mode::Host)?,
            };
            return match parse_addr(&unescaped) {
                Err(e) => Err(format!("invalid host: {e}")),
                Ok(true) => Err("invalid IP-literal".to_owned()),
                Ok(false) => Ok(()),
            };
        }
        None => {}
    }
    if let Some(first) = host.find(':') {
        let last = host.rfind(':').unwrap_or(first);
        // Go 1.26 holds an http(s) host to one colon; other schemes keep the old reading (the
        // port after the last colon).
        let at = if scheme == "http" || scheme == "https" {
            first
        } else {
            last
        };
        let colon_port = host.get(at..).unwrap_or("");
        if !valid_optional_port(colon_port) {
            return Err(format!("invalid port {} after host", quote(colon_port)));
        }
    }
    unescape(host.as_bytes(), Mode::Host)?;
    Ok(())
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

fn valid_optional_port(port: &str) -> bool {
    port.is_empty()
        || port
            .strip_prefix(':')
            .is_some_and(|d| d.bytes().all(|b| b.is_ascii_digit()))
}

fn is_hex(b: u8) -> bool {
    b.is_ascii_hexdigit()
}

fn unhex(b: u8) -> u8 {
    match b {
        b'0'..=b'9' => b - b'0',
        b'a'..=b'f' => b - b'a' + 10,
        _ => b.wrapping_sub(b'A').wrapping_add(10),
    }
}

/// shouldEscape (net/url's table) for the modes read here.
fn should_escape(c: u8, mode: Mode) -> bool {
    if c.is_ascii_alphanumeric() {
        return false;
    }
    if matches!(mode, Mode::Host | Mode::Zone) && b"!$&'()*+,;=:[]<>\"".contains(&c) {
        return false;
    }
    match c {
        b'-' | b'_' | b'.' | b'~' => false,
        b'$' | b'&' | b'+' | b',' | b'/' | b':' | b';' | b'=' | b'?' | b'@' => match mode {
            Mode::Path => c == b'?',
            Mode::UserPassword => matches!(c, b'@' | b'/' | b'?' | b':'),
            Mode::Fragment => false,
            Mode::Host | Mode::Zone => true,
        },
        b'!' | b'(' | b')' | b'*' if mode == Mode::Fragment => false,
        _ => true,
    }
}

/// unescape: `%XX` decoded; a bad escape is an EscapeError, and a host refuses an escaped ASCII
/// byte (but `%25`) and the ASCII bytes it would have to escape.
fn unescape(s: &[u8], mode: Mode) -> Result<Vec<u8>, String> {
    let escape_error = |bad: &[u8]| format!("invalid URL escape {}", quote_bytes(bad));
    let mut out = Vec::with_capacity(s.len());
    let mut i = 0;
    while let Some(&c) = s.get(i) {
        if c == b'%' {
            let (Some(&h), Some(&l)) = (s.get(i + 1), s.get(i + 2)) else {
                return Err(escape_error(s.get(i..).unwrap_or_default()));
            };
            let three = s.get(i..i + 3).unwrap_or_default();
            if !is_hex(h) || !is_hex(l) {
                return Err(escape_error(three));
            }
            let v = (unhex(h) << 4) | unhex(l);
            if mode == Mode::Host && unhex(h) < 8 && three != b"%25" {
                return Err(escape_error(three));
            }
            if mode == Mode::Zone && three != b"%25" && v != b' ' && should_escape(v, Mode::Host) {
                return Err(escape_error(three));
            }
            out.push(v);
            i += 3;
            continue;
        }
        if matches!(mode, Mode::Host | Mode::Zone) && c < 0x80 && should_escape(c, mode) {
            return Err(format!(
                "invalid character {} in host name",
                quote_bytes(&[c])
            ));
        }
        out.push(c);
        i += 1;
    }
    Ok(out)
}

/// escape in user/password mode, as `Userinfo.String()` writes each part.
fn escape_user(s: &[u8]) -> String {
    let mut out = String::with_capacity(s.len());
    for &c in s {
        if should_escape(c, Mode::UserPassword) {
            out.push_str(&format!("%{c:02X}"));
        } else {
            out.push(char::from(c));
        }
    }
    out
}

/// netip.ParseAddr: `Ok(true)` for an IPv4 address, `Ok(false)` for IPv6, else its error text.
fn parse_addr(s: &[u8]) -> Result<bool, String> {
    let err = |msg: &str, at: Option<&[u8]>| match at {
        Some(at) => format!(
            "ParseAddr({}): {msg} (at {})",
            quote_bytes(s),
            quote_bytes(at)
        ),
        None => format!("ParseAddr({}): {msg}", quote_bytes(s)),
    };
    for &c in s {
        match c {
            b'.' => return ipv4_fields(s, s).map(|()| true).map_err(|(m, a)| err(m, a)),
            b':' => return ipv6(s).map(|()| false).map_err(|(m, a)| err(m, a)),
            b'%' => return Err(err("missing IPv6 address", None)),
            _ => {}
        }
    }
    Err(err("unable to parse IP", None))
}

type AddrError<'a> = (&'static str, Option<&'a [u8]>);

/// parseIPv4Fields over `part` (a tail of the input for an embedded IPv4).
fn ipv4_fields<'a>(_input: &[u8], part: &'a [u8]) -> Result<(), AddrError<'a>> {
    let (mut val, mut pos, mut digits) = (0u32, 0, 0);
    for (i, &c) in part.iter().enumerate() {
        if c.is_ascii_digit() {
            if digits == 1 && val == 0 {
                return Err(("IPv4 field has octet with leading zero", None));
            }
            val = val * 10 + u32::from(c - b'0');
            digits += 1;
            if val > 255 {
                return Err(("IPv4 field has value >255", None));
            }
        } else if c == b'.' {
            if i == 0 || i == part.len() - 1 || part.get(i - 1) == Some(&b'.') {
                return Err(("IPv4 field must have at least one digit", part.get(i..)));
            }
            if pos == 3 {
                return Err(("IPv4 address too long", None));
            }
            pos += 1;
            val = 0;
            digits = 0;
        } else {
            return Err(("unexpected character", part.get(i..)));
        }
    }
    if pos < 3 {
        return Err(("IPv4 address too short", None));
    }
    Ok(())
}

/// parseIPv6 (only whether it parses, and its error).
fn ipv6(input: &[u8]) -> Result<(), AddrError<'_>> {
    let mut s = input;
    if let Some(z) = s.iter().position(|&c| c == b'%') {
        if z + 1 == input.len() {
            return Err(("zone must be a non-empty string", None));
        }
        s = input.get(..z).unwrap_or_default();
    }
    let mut ellipsis: Option<usize> = None;
    if s.starts_with(b"::") {
        ellipsis = Some(0);
        s = s.get(2..).unwrap_or_default();
        if s.is_empty() {
            return Ok(());
        }
    }
    let mut i = 0;
    while i < 16 {
        let mut off = 0;
        let mut acc = 0u32;
        while let Some(&c) = s.get(off) {
            if !c.is_ascii_hexdigit() {
                break;
            }
            acc = (acc << 4) + u32::from(unhex(c));
            if off > 3 {
                return Err(("each group must have 4 or less digits", Some(s)));
            }
            if acc > 0xffff {
                return Err(("IPv6 field has value >=2^16", Some(s)));
            }
            off += 1;
        }
        if off == 0 {
            return Err((
                "each colon-separated field must have at least one digit",
                Some(s),
            ));
        }
        if s.get(off) == Some(&b'.') {
            if ellipsis.is_none() && i != 12 {
                return Err((
                    "embedded IPv4 address must replace the final 2 fields of the address",
                    Some(s),
                ));
            }
            if i + 4 > 16 {
                return Err((
                    "too many hex fields to fit an embedded IPv4 at the end of the address",
                    Some(s),
                ));
            }
            ipv4_fields(input, s)?;
            s = &[];
            i += 4;
            break;
        }
        i += 2;
        s = s.get(off..).unwrap_or_default();
        if s.is_empty() {
            break;
        }
        if s.first() != Some(&b':') {
            return Err(("unexpected character, want colon", Some(s)));
        } else if s.len() == 1 {
            return Err(("colon must be followed by more characters", Some(s)));
        }
        s = s.get(1..).unwrap_or_default();
        if s.first() == Some(&b':') {
            if ellipsis.is_some() {
                return Err(("multiple :: in address", Some(s)));
            }
            ellipsis = Some(i);
            s = s.get(1..).unwrap_or_default();
            if s.is_empty() {
                break;
            }
        }
    }
    if !s.is_empty() {
        return Err(("trailing garbage after address", Some(s)));
    }
    if i < 16 {
        if ellipsis.is_none() {
            return Err(("address string too short", None));
        }
    } else if ellipsis.is_some() {
        return Err(("the :: must expand to at least one field of zeros", None));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(raw: &str) -> String {
        parse(raw).err().unwrap_or_default()
    }

    #[test]
    fn parts_the_webhook_check_reads() {
        let u = parse("HTTPS://a:b%40@example.com:8443/p?x=1#f%41").unwrap_or_default();
        assert_eq!(u.scheme, "https");
        assert!(u.has_host);
        assert_eq!(u.user.as_deref(), Some("a:b%40"));
        assert_eq!(u.fragment, b"fA");
        assert_eq!(u.raw_query, "x=1");
        let opaque = parse("https:example.com").unwrap_or_default();
        assert!(!opaque.has_host && opaque.user.is_none());
        // A lone trailing `?` is ForceQuery, not a query.
        assert_eq!(parse("https://h/p?").unwrap_or_default().raw_query, "");
        assert_eq!(parse("https://h/p??").unwrap_or_default().raw_query, "?");
        assert_eq!(
            parse("https://@h/").unwrap_or_default().user.as_deref(),
            Some("")
        );
    }

    #[test]
    fn errors_as_go_words_them() {
        assert_eq!(err(":x"), "parse \":x\": missing protocol scheme");
        // A scheme and no slash: an opaque URL, which parses.
        assert_eq!(err("a:b/c"), "");
        assert_eq!(
            err("1x:y"),
            "parse \"1x:y\": first path segment in URL cannot contain colon"
        );
        assert_eq!(
            err("https://h:1:2/"),
            "parse \"https://h:1:2/\": invalid port \":1:2\" after host"
        );
        assert_eq!(err("ftp://h:1:2/"), "");
        assert_eq!(
            err("https://a b/"),
            "parse \"https://a b/\": invalid character \" \" in host name"
        );
        assert_eq!(
            err("https://h/%zz#x"),
            "parse \"https://h/%zz\": invalid URL escape \"%zz\""
        );
        assert_eq!(
            err("https://h/#%4"),
            "parse \"https://h/#%4\": invalid URL escape \"%4\""
        );
        assert_eq!(
            err("https://u s@h/"),
            "parse \"https://u s@h/\": net/url: invalid userinfo"
        );
        assert_eq!(
            err("https://h\n/"),
            "parse \"https://h\\n/\": net/url: invalid control character in URL"
        );
        assert_eq!(
            err("https://[::1/"),
            "parse \"https://[::1/\": missing ']' in host"
        );
        assert_eq!(
            err("https://[1.2.3.4]/"),
            "parse \"https://[1.2.3.4]/\": invalid IP-literal"
        );
        assert_eq!(
            err("https://[fe80::1::2]/"),
            "parse \"https://[fe80::1::2]/\": invalid host: ParseAddr(\"fe80::1::2\"): multiple :: in address (at \":2\")"
        );
        assert_eq!(
            err("https://[x]/"),
            "parse \"https://[x]/\": invalid host: ParseAddr(\"x\"): unable to parse IP"
        );
        assert_eq!(
            err("https://h%41/"),
            "parse \"https://h%41/\": invalid URL escape \"%41\""
        );
        assert_eq!(err("https://[fe80::1%25en0]:443/"), "");
    }
}
