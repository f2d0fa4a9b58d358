//! IP addresses and CIDRs as the API server reads them: k8s.io/utils/net's `ParseIPSloppy` and
//! `ParseCIDRSloppy` (Go 1.16's net parser, kept because it allows leading zeros), and the
//! stricter reading of Go's net/netip that apimachinery's `StrictIPCIDRValidation` adds
//! (k8s.io/apimachinery/pkg/util/validation/ip.go, from 1.33).

/// A parsed address: its 16 bytes (IPv4 as `::ffff:a.b.c.d`, as Go's net.IP holds it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ip {
    pub bytes: [u8; 16],
}

const V4_IN_V6: [u8; 12] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff];

impl Ip {
    /// Go's `ip.To4() != nil`: an IPv4 address, also when written as `::ffff:a.b.c.d`.
    pub fn is_v4(&self) -> bool {
        self.bytes[..12] == V4_IN_V6
    }
    fn v4(&self) -> [u8; 4] {
        [self.bytes[12], self.bytes[13], self.bytes[14], self.bytes[15]]
    }
    pub fn is_unspecified(&self) -> bool {
        self.bytes == [0; 16] || (self.is_v4() && self.v4() == [0; 4])
    }
    pub fn is_loopback(&self) -> bool {
        if self.is_v4() {
            return self.v4()[0] == 127;
        }
        self.bytes[..15] == [0; 15] && self.bytes[15] == 1
    }
    pub fn is_link_local_unicast(&self) -> bool {
        if self.is_v4() {
            let b = self.v4();
            return b[0] == 169 && b[1] == 254;
        }
        self.bytes[0] == 0xfe && self.bytes[1] & 0xc0 == 0x80
    }
    pub fn is_link_local_multicast(&self) -> bool {
        if self.is_v4() {
            let b = self.v4();
            return b[0] == 224 && b[1] == 0 && b[2] == 0;
        }
        self.bytes[0] == 0xff && self.bytes[1] & 0x0f == 0x02
    }
}

/// `dtoi`: leading decimal digits (at least one), stopping at 0xFFFFFF.
fn dtoi(s: &[u8]) -> Option<(u32, usize)> {
    let mut n: u32 = 0;
    let mut i = 0;
    for &c in s.iter().take_while(|c| c.is_ascii_digit()) {
        n = n * 10 + u32::from(c - b'0');
        if n >= 0xFF_FFFF {
            return None;
        }
        i += 1;
    }
    (i > 0).then_some((n, i))
}

/// `xtoi`: leading hex digits (at least one), stopping at 0xFFFFFF.
fn xtoi(s: &[u8]) -> Option<(u32, usize)> {
    let mut n: u32 = 0;
    let mut i = 0;
    for &c in s {
        let d = match c {
            b'0'..=b'9' => c - b'0',
            b'a'..=b'f' => c - b'a' + 10,
            b'A'..=b'F' => c - b'A' + 10,
            _ => break,
        };
        n = n * 16 + u32::from(d);
        if n >= 0xFF_FFFF {
            return None;
        }
        i += 1;
    }
    (i > 0).then_some((n, i))
}

fn parse_v4(s: &[u8]) -> Option<[u8; 4]> {
    let mut p = [0u8; 4];
    let mut s = s;
    for (i, slot) in p.iter_mut().enumerate() {
        if i > 0 {
            s = s.strip_prefix(b".")?;
        }
        let (n, c) = dtoi(s)?;
        *slot = u8::try_from(n).ok()?;
        s = s.get(c..)?;
    }
    s.is_empty().then_some(p)
}

fn parse_v6(s: &[u8]) -> Option<[u8; 16]> {
    let mut ip = [0u8; 16];
    let mut ellipsis: Option<usize> = None;
    let mut s = s;
    if let Some(rest) = s.strip_prefix(b"::") {
        ellipsis = Some(0);
        s = rest;
        if s.is_empty() {
            return Some(ip);
        }
    }
    let mut i = 0;
    while i < 16 {
        let (n, c) = xtoi(s)?;
        if n > 0xFFFF {
            return None;
        }
        if s.get(c) == Some(&b'.') {
            if (ellipsis.is_none() && i != 12) || i + 4 > 16 {
                return None;
            }
            let v4 = parse_v4(s)?;
            ip.get_mut(i..i + 4)?.copy_from_slice(&v4);
            s = &[];
            i += 4;
            break;
        }
        *ip.get_mut(i)? = (n >> 8) as u8;
        *ip.get_mut(i + 1)? = n as u8;
        i += 2;
        s = s.get(c..)?;
        if s.is_empty() {
            break;
        }
        if s.first() != Some(&b':') || s.len() == 1 {
            return None;
        }
        s = s.get(1..)?;
        if s.first() == Some(&b':') {
            if ellipsis.is_some() {
                return None;
            }
            ellipsis = Some(i);
            s = s.get(1..)?;
            if s.is_empty() {
                break;
            }
        }
    }
    if !s.is_empty() {
        return None;
    }
    if i < 16 {
        let e = ellipsis?;
        let n = 16 - i;
        ip.copy_within(e..i, e + n);
        ip.get_mut(e..e + n)?.fill(0);
    } else if ellipsis.is_some() {
        return None;
    }
    Some(ip)
}

fn from_v4(b: [u8; 4]) -> Ip {
    let mut bytes = [0u8; 16];
    bytes[..12].copy_from_slice(&V4_IN_V6);
    bytes[12..].copy_from_slice(&b);
    Ip { bytes }
}

/// netutils.ParseIPSloppy.
pub fn parse_ip_sloppy(s: &str) -> Option<Ip> {
    for c in s.bytes() {
        match c {
            b'.' => return parse_v4(s.as_bytes()).map(from_v4),
            b':' => return parse_v6(s.as_bytes()).map(|bytes| Ip { bytes }),
            _ => {}
        }
    }
    None
}

/// What netip.ParseAddr refuses of an address ParseIPSloppy took: an IPv4 part with a leading
/// zero, an IPv6 group of more than 4 digits.
fn strict_addr_refuses(s: &str) -> bool {
    let v6 = s.contains(':');
    let (groups, v4_tail) = if v6 {
        match s.rsplit_once(':') {
            Some((groups, tail)) if tail.contains('.') => (groups, Some(tail)),
            _ => (s, None),
        }
    } else {
        ("", Some(s))
    };
    if v6 && groups.split(':').any(|g| g.len() > 4) {
        return true;
    }
    v4_tail.is_some_and(|t| t.split('.').any(|p| p.len() > 1 && p.starts_with('0')))
}

/// Whether an address written in IPv6 form holds an IPv4 address (netip's Is4In6).
fn is_4in6_text(s: &str, ip: &Ip) -> bool {
    s.contains(':') && ip.is_v4()
}

/// parseIP's messages (validation/ip.go): the address as the API server reads it, with
/// `strict` (StrictIPCIDRValidation) its extra checks; empty: valid.
pub fn ip_errors(s: &str, strict: bool) -> Vec<&'static str> {
    let Some(ip) = parse_ip_sloppy(s) else {
        return vec!["must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"];
    };
    let mut errs = Vec::new();
    if strict {
        if strict_addr_refuses(s) {
            errs.push("must not have leading 0s");
        } else if is_4in6_text(s, &ip) {
            errs.push("must not be an IPv4-mapped IPv6 address");
        }
    }
    errs
}

/// A CIDR as ParseCIDRSloppy reads it: the address, its text, the prefix length and the
/// address length in bits.
struct Cidr<'a> {
    ip: Ip,
    addr: &'a str,
    mask: &'a str,
    bits: u32,
    v4: bool,
}

fn parse_cidr_sloppy(s: &str) -> Option<Cidr<'_>> {
    let (addr, mask) = s.split_once('/')?;
    let (ip, v4) = match parse_v4(addr.as_bytes()) {
        Some(b) => (from_v4(b), true),
        None => (
            Ip {
                bytes: parse_v6(addr.as_bytes())?,
            },
            false,
        ),
    };
    let (n, used) = dtoi(mask.as_bytes())?;
    let max = if v4 { 32 } else { 128 };
    (used == mask.len() && n <= max).then_some(Cidr {
        ip,
        addr,
        mask,
        bits: n,
        v4,
    })
}

/// parseCIDR's messages (validation/ip.go), as [`ip_errors`].
pub fn cidr_errors(s: &str, strict: bool) -> Vec<&'static str> {
    let Some(c) = parse_cidr_sloppy(s) else {
        return vec!["must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)"];
    };
    if !strict {
        return Vec::new();
    }
    if strict_addr_refuses(c.addr) || (c.mask.len() > 1 && c.mask.starts_with('0')) {
        return vec!["must not have leading 0s in IP or prefix length"];
    }
    if is_4in6_text(c.addr, &c.ip) {
        return vec!["must not have an IPv4-mapped IPv6 address"];
    }
    let (bytes, prefix): (&[u8], u32) = if c.v4 {
        (&c.ip.bytes[12..], c.bits)
    } else {
        (&c.ip.bytes[..], c.bits)
    };
    let beyond = bytes
        .iter()
        .enumerate()
        .any(|(i, b)| b & !byte_mask(prefix, i) != 0);
    if beyond {
        return vec!["must not have bits set beyond the prefix length"];
    }
    Vec::new()
}

/// Go's net.IP.String: dotted for an address `To4` takes (so `::ffff:a.b.c.d` prints as IPv4),
/// RFC 5952 otherwise (lower-case groups, the longest run of two or more zero groups as `::`).
pub fn go_ip_string(ip: &Ip) -> String {
    if ip.is_v4() {
        let b = ip.v4();
        return format!("{}.{}.{}.{}", b[0], b[1], b[2], b[3]);
    }
    v6_string(&ip.bytes)
}

/// netip.Addr.String of an IPv6 address that is not IPv4-mapped.
fn v6_string(bytes: &[u8; 16]) -> String {
    let groups: Vec<u16> = bytes
        .chunks_exact(2)
        .map(|c| c.iter().fold(0u16, |g, b| g << 8 | u16::from(*b)))
        .collect();
    // The first longest run of zero groups, if at least two long.
    let (mut best, mut best_len, mut run_start, mut run_len) = (0, 0, 0, 0);
    for (i, g) in groups.iter().enumerate() {
        if *g == 0 {
            if run_len == 0 {
                run_start = i;
            }
            run_len += 1;
            if run_len > best_len {
                (best, best_len) = (run_start, run_len);
            }
        } else {
            run_len = 0;
        }
    }
    let hex = |gs: &[u16]| gs.iter().map(|g| format!("{g:x}")).collect::<Vec<_>>().join(":");
    if best_len < 2 {
        return hex(&groups);
    }
    format!(
        "{}::{}",
        hex(groups.get(..best).unwrap_or(&[])),
        hex(groups.get(best + best_len..).unwrap_or(&[]))
    )
}

/// The network of a CIDR as net.ParseCIDR makes it (`IPNet`): the address masked by the prefix,
/// with the prefix length of its own family once `To4` has taken the address (an IPv4-mapped
/// IPv6 network of `/96` or more is an IPv4 network of 96 bits less).
/// The mask byte `i` of a 16-byte address under a prefix of `prefix` bits.
fn byte_mask(prefix: u32, i: usize) -> u8 {
    let keep = prefix.saturating_sub((i as u32) * 8).min(8);
    if keep == 0 { 0 } else { 0xff << (8 - keep) }
}

struct Network {
    ip: Ip,
    bits: u32,
    /// The network is IPv4 (4 bytes) to net.IPNet's methods.
    v4: bool,
}

fn network(c: &Cidr) -> Network {
    // IPv4 text is masked as 4 bytes: the ::ffff: prefix of the 16-byte form stays.
    let prefix = if c.v4 { c.bits + 96 } else { c.bits };
    let mut masked = c.ip.bytes;
    for (i, b) in masked.iter_mut().enumerate() {
        *b &= byte_mask(prefix, i);
    }
    let ip = Ip { bytes: masked };
    let v4 = ip.is_v4();
    let bits = if v4 && !c.v4 { c.bits.saturating_sub(96) } else { c.bits };
    Network { ip, bits, v4 }
}

impl Network {
    /// net.IPNet.Contains.
    fn contains(&self, ip: &Ip) -> bool {
        if self.v4 != ip.is_v4() {
            return false;
        }
        let prefix = if self.v4 { self.bits + 96 } else { self.bits };
        self.ip
            .bytes
            .iter()
            .zip(ip.bytes.iter())
            .enumerate()
            .all(|(i, (a, b))| a & byte_mask(prefix, i) == b & byte_mask(prefix, i))
    }
    /// net.IPNet.String.
    fn string(&self) -> String {
        format!("{}/{}", go_ip_string(&self.ip), self.bits)
    }
}

/// Whether `except` is not a strict subset of `cidr` as ValidateIPBlock asks it
/// (`!cidr.Contains(except.IP) || cidrMaskLen >= exceptMaskLen`, the lengths as written); None
/// when either does not parse.
pub fn not_strict_subset(cidr: &str, except: &str) -> Option<bool> {
    let (c, e) = (parse_cidr_sloppy(cidr)?, parse_cidr_sloppy(except)?);
    // Mask.Size() is the prefix length as written, in the text's own family.
    Some(!network(&c).contains(&network(&e).ip) || c.bits >= e.bits)
}

/// GetWarningsForCIDR (validation/ip.go, from 1.33) for a CIDR at `path` that validated: a
/// value with bits beyond its prefix, one netip.ParsePrefix refuses or IPv4-mapped, and, when
/// neither, an IPv6 value not in canonical form.
pub fn cidr_warnings(path: &str, value: &str, minor: u32) -> Vec<String> {
    let Some(c) = parse_cidr_sloppy(value) else {
        return Vec::new();
    };
    let net = network(&c);
    let net_text = net.string();
    let mut out = Vec::new();
    // ip.Equal(ipnet.IP): both are held in their 16-byte forms here.
    if c.ip != net.ip {
        let addr_len = if c.v4 { 32 } else { 128 };
        out.push(format!(
            "{path}: CIDR value {value:?} is ambiguous in this context (should be {net_text:?} or {:?}?)",
            format!("{}/{addr_len}", go_ip_string(&c.ip))
        ));
    }
    let refused = strict_addr_refuses(c.addr) || (c.mask.len() > 1 && c.mask.starts_with('0'));
    if refused || is_4in6_text(c.addr, &c.ip) {
        out.push(format!(
            "{path}: non-standard CIDR value {value:?} {}: use {net_text:?}",
            non_standard_wording(minor)
        ));
    }
    if out.is_empty() && !c.v4 {
        let canonical = format!("{}/{}", v6_string(&c.ip.bytes), c.bits);
        if canonical != value {
            out.push(format!(
                "{path}: IPv6 CIDR value {value:?} should be in RFC 5952 canonical format ({canonical:?})"
            ));
        }
    }
    out
}

/// How GetWarningsForIP and GetWarningsForCIDR call a non-standard value: 1.33 to 1.35 say it
/// "will be considered invalid in a future Kubernetes release", from 1.36 that it "is invalid"
/// ([`Change::NonStandardIpIsInvalid`]).
fn non_standard_wording(minor: u32) -> &'static str {
    if crate::versions::Change::NonStandardIpIsInvalid.at(minor) {
        "is invalid"
    } else {
        "will be considered invalid in a future Kubernetes release"
    }
}

/// GetWarningsForIP (validation/ip.go, from 1.33) for an address at `path` that validated: one
/// netip.ParseAddr refuses (leading zeros) or IPv4-mapped is non-standard; else an IPv6 address
/// not in RFC 5952 form.
pub fn ip_warnings(path: &str, value: &str, minor: u32) -> Vec<String> {
    let Some(ip) = parse_ip_sloppy(value) else {
        return Vec::new();
    };
    if strict_addr_refuses(value) || is_4in6_text(value, &ip) {
        return vec![format!(
            "{path}: non-standard IP address {value:?} {}: use {:?}",
            non_standard_wording(minor),
            go_ip_string(&ip)
        )];
    }
    if value.contains(':') {
        let canonical = v6_string(&ip.bytes);
        if canonical != value {
            return vec![format!(
                "{path}: IPv6 address {value:?} should be in RFC 5952 canonical format ({canonical:?})"
            )];
        }
    }
    Vec::new()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn addresses_print_as_go_prints_them() {
        let p = |s: &str| go_ip_string(&parse_ip_sloppy(s).unwrap());
        assert_eq!(p("10.0.0.1"), "10.0.0.1");
        assert_eq!(p("::ffff:10.0.0.1"), "10.0.0.1");
        assert_eq!(p("2001:DB8:0:0:1:0:0:1"), "2001:db8::1:0:0:1");
        assert_eq!(p("2001:db8:0:1:1:1:1:1"), "2001:db8:0:1:1:1:1:1");
        assert_eq!(p("::"), "::");
        assert_eq!(p("::1.2.3.4"), "::102:304");
        assert_eq!(p("fe80:0:0:0:0:0:0:0"), "fe80::");
    }

    #[test]
    fn except_blocks_and_cidr_warnings() {
        assert_eq!(not_strict_subset("10.0.0.0/16", "10.0.5.0/24"), Some(false));
        assert_eq!(not_strict_subset("10.0.0.0/16", "10.1.0.0/24"), Some(true));
        assert_eq!(not_strict_subset("10.0.0.0/16", "10.0.0.0/16"), Some(true));
        assert_eq!(not_strict_subset("10.0.0.0/16", "2001:db8::/64"), Some(true));
        // An IPv4-mapped network is IPv4 to Contains, but its length stays 104 (>= 24).
        assert_eq!(not_strict_subset("::ffff:10.0.0.0/104", "10.0.1.0/24"), Some(true));
        assert_eq!(not_strict_subset("10.0.0.0/8", "::ffff:10.1.0.0/112"), Some(false));
        assert_eq!(not_strict_subset("10.0.0.0/8", "bogus"), None);
        let w = |v: &str| cidr_warnings("spec.x", v, 37);
        assert!(w("10.0.0.0/8").is_empty() && w("2001:db8::/64").is_empty());
        assert_eq!(
            w("10.0.0.1/8"),
            ["spec.x: CIDR value \"10.0.0.1/8\" is ambiguous in this context (should be \"10.0.0.0/8\" or \"10.0.0.1/32\"?)"]
        );
        assert_eq!(
            w("010.0.0.0/8"),
            ["spec.x: non-standard CIDR value \"010.0.0.0/8\" is invalid: use \"10.0.0.0/8\""]
        );
        assert_eq!(
            w("::ffff:10.0.0.1/104"),
            [
                "spec.x: CIDR value \"::ffff:10.0.0.1/104\" is ambiguous in this context (should be \"10.0.0.0/8\" or \"10.0.0.1/128\"?)",
                "spec.x: non-standard CIDR value \"::ffff:10.0.0.1/104\" is invalid: use \"10.0.0.0/8\""
            ]
        );
        assert_eq!(
            w("2001:DB8::/64"),
            ["spec.x: IPv6 CIDR value \"2001:DB8::/64\" should be in RFC 5952 canonical format (\"2001:db8::/64\")"]
        );
    }

    #[test]
    fn sloppy_addresses() {
        assert!(parse_ip_sloppy("10.0.0.1").unwrap().is_v4());
        assert!(parse_ip_sloppy("010.000.0.1").is_some());
        assert!(parse_ip_sloppy("256.0.0.1").is_none());
        assert!(parse_ip_sloppy("1.2.3").is_none());
        assert!(parse_ip_sloppy("1.2.3.4 ").is_none());
        assert!(!parse_ip_sloppy("2001:db8::1").unwrap().is_v4());
        assert!(parse_ip_sloppy("::ffff:1.2.3.4").unwrap().is_v4());
        assert!(parse_ip_sloppy("::").unwrap().is_unspecified());
        assert!(parse_ip_sloppy("1::2::3").is_none());
        assert!(parse_ip_sloppy("fe80::1%eth0").is_none());
        assert!(parse_ip_sloppy("1:2:3:4:5:6:7:8").is_some());
        assert!(parse_ip_sloppy("1:2:3:4:5:6:7:8::").is_none());
        assert!(parse_ip_sloppy("None").is_none());
        assert!(parse_ip_sloppy("").is_none());
        assert!(parse_ip_sloppy("127.0.0.1").unwrap().is_loopback());
        assert!(parse_ip_sloppy("::1").unwrap().is_loopback());
        assert!(parse_ip_sloppy("169.254.1.1").unwrap().is_link_local_unicast());
        assert!(parse_ip_sloppy("224.0.0.5").unwrap().is_link_local_multicast());
        assert!(parse_ip_sloppy("ff02::1").unwrap().is_link_local_multicast());
    }

    #[test]
    fn strict_addresses() {
        assert!(ip_errors("010.0.0.1", false).is_empty());
        assert_eq!(ip_errors("010.0.0.1", true), ["must not have leading 0s"]);
        assert_eq!(
            ip_errors("::ffff:1.2.3.4", true),
            ["must not be an IPv4-mapped IPv6 address"]
        );
        assert_eq!(ip_errors("00001::1", true), ["must not have leading 0s"]);
        assert!(ip_errors("2001:db8::1", true).is_empty());
        assert_eq!(ip_errors("x", true).len(), 1);
    }

    #[test]
    fn cidrs() {
        assert!(cidr_errors("10.0.0.0/8", true).is_empty());
        assert!(cidr_errors("10.0.0.1/8", false).is_empty());
        assert_eq!(
            cidr_errors("10.0.0.1/8", true),
            ["must not have bits set beyond the prefix length"]
        );
        assert_eq!(
            cidr_errors("10.0.0.0/08", true),
            ["must not have leading 0s in IP or prefix length"]
        );
        assert_eq!(cidr_errors("10.0.0.0/33", false).len(), 1);
        assert_eq!(cidr_errors("10.0.0.0", false).len(), 1);
        assert!(cidr_errors("2001:db8::/32", true).is_empty());
        assert_eq!(
            cidr_errors("::ffff:10.0.0.0/104", true),
            ["must not have an IPv4-mapped IPv6 address"]
        );
        assert!(cidr_errors("0.0.0.0/0", true).is_empty());
    }
}
