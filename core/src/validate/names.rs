//! apimachinery's string rules (k8s.io/apimachinery pkg/util/validation and, from 1.35,
//! pkg/api/validate/content: IsQualifiedName / IsLabelKey, IsValidLabelValue, IsDNS1123Label,
//! IsDNS1123Subdomain, IsDNS1035Label) with their exact messages in each minor's wording. A
//! module of their own, below every kind's validation: ObjectMeta, the label selectors, the Job,
//! the Pod spec and the Service checks all use them, and keeping them in meta.rs or job.rs tied
//! those files into circles.

use crate::versions::Change;

const LABEL_KEY_MSG: &str = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const LABEL_KEY_FMT: &str = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
const LABEL_VALUE_MSG: &str = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const LABEL_VALUE_FMT: &str = "(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?";
const DNS1123_LABEL_MSG: &str = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
const DNS1123_LABEL_FMT: &str = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
const DNS1123_SUBDOMAIN_MSG: &str = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const DNS1123_SUBDOMAIN_FMT: &str =
    "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";
const WILDCARD_SUBDOMAIN_MSG: &str = "a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must consist of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character";
const WILDCARD_SUBDOMAIN_FMT: &str =
    "\\*\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";
const DNS1035_LABEL_MSG: &str = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character";
const DNS1035_LABEL_FMT: &str = "[a-z]([-a-z0-9]*[a-z0-9])?";

/// How a minor's apimachinery words a length limit: util/validation says "characters"; the
/// `content` package (label keys and values, qualified names from 1.35) says "bytes".
#[derive(Clone, Copy)]
pub(super) struct Unit(pub(super) &'static str);
pub(super) const CHARACTERS: Unit = Unit("characters");

fn content_unit(minor: u32) -> Unit {
    if Change::ContentPackageNames.at(minor) {
        Unit("bytes")
    } else {
        CHARACTERS
    }
}

fn max_len(n: usize, unit: Unit) -> String {
    format!("must be no more than {n} {}", unit.0)
}

pub(crate) fn regex_error(msg: &str, fmt: &str, examples: &[&str]) -> String {
    let mut s = format!("{msg} (e.g. ");
    for (i, e) in examples.iter().enumerate() {
        if i > 0 {
            s.push_str(" or ");
        }
        s.push('\'');
        s.push_str(e);
        s.push_str("', ");
    }
    s.push_str("regex used for validation is '");
    s.push_str(fmt);
    s.push_str("')");
    s
}

fn is_dns_label_chars(s: &str, first_alpha: bool) -> bool {
    let b = s.as_bytes();
    let ok = |c: &u8| c.is_ascii_lowercase() || c.is_ascii_digit();
    match (b.first(), b.last()) {
        (Some(f), Some(l)) => {
            (if first_alpha {
                f.is_ascii_lowercase()
            } else {
                ok(f)
            }) && ok(l)
                && b.iter().all(|c| ok(c) || *c == b'-')
        }
        _ => false,
    }
}

fn is_dns_subdomain_chars(s: &str) -> bool {
    s.split('.').all(|p| is_dns_label_chars(p, false))
}

/// IsDNS1123Subdomain (`unit`: util/validation's or content's wording).
pub(super) fn dns1123_subdomain(value: &str, unit: Unit) -> Vec<String> {
    let mut errs = Vec::new();
    if value.len() > 253 {
        errs.push(max_len(253, unit));
    }
    if !is_dns_subdomain_chars(value) {
        errs.push(regex_error(
            DNS1123_SUBDOMAIN_MSG,
            DNS1123_SUBDOMAIN_FMT,
            &["example.com"],
        ));
    }
    errs
}

/// IsWildcardDNS1123Subdomain: `*.` and a subdomain's labels (the regex has no length limit of
/// its own; the 253 is checked apart).
pub(super) fn wildcard_dns1123_subdomain(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if value.len() > 253 {
        errs.push(max_len(253, CHARACTERS));
    }
    if !value
        .strip_prefix("*.")
        .is_some_and(|rest| rest.split('.').all(|l| is_dns_label_chars(l, false)))
    {
        errs.push(regex_error(
            WILDCARD_SUBDOMAIN_MSG,
            WILDCARD_SUBDOMAIN_FMT,
            &["*.example.com"],
        ));
    }
    errs
}

/// NameIsDNSSubdomain (util/validation's wording): ValidateSecretName and ValidateConfigMapName;
/// `prefix` masks a trailing dash as a generateName check does.
pub(crate) fn dns1123_subdomain_name(value: &str, prefix: bool) -> Vec<String> {
    if prefix {
        dns1123_subdomain(&mask_trailing_dash(value), CHARACTERS)
    } else {
        dns1123_subdomain(value, CHARACTERS)
    }
}

/// IsDNS1123Label.
pub(crate) fn dns1123_label(value: &str) -> Vec<String> {
    dns1123_label_in(value, CHARACTERS)
}

/// IsDNS1123Label with the length limit in `unit`: util/validation's "characters", or the
/// `content` package's "bytes" (declarative validation's `k8s-short-name` format).
pub(super) fn dns1123_label_in(value: &str, unit: Unit) -> Vec<String> {
    let mut errs = Vec::new();
    if value.len() > 63 {
        errs.push(max_len(63, unit));
    }
    if !is_dns_label_chars(value, false) {
        if is_dns_subdomain_chars(value) {
            errs.push("must not contain dots".to_owned());
        } else {
            errs.push(regex_error(
                DNS1123_LABEL_MSG,
                DNS1123_LABEL_FMT,
                &["my-name", "123-abc"],
            ));
        }
    }
    errs
}

/// IsDNS1035Label.
pub(crate) fn dns1035_label(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if value.len() > 63 {
        errs.push(max_len(63, CHARACTERS));
    }
    if !is_dns_label_chars(value, true) {
        errs.push(regex_error(
            DNS1035_LABEL_MSG,
            DNS1035_LABEL_FMT,
            &["my-name", "abc-123"],
        ));
    }
    errs
}

/// IsQualifiedName (label keys, annotation keys, finalizers), in `minor`'s wording.
pub fn qualified_name(value: &str, minor: u32) -> Vec<String> {
    let unit = content_unit(minor);
    let mut errs = Vec::new();
    let parts: Vec<&str> = value.split('/').collect();
    let name = match parts.as_slice() {
        [name] => *name,
        [prefix, name] => {
            if prefix.is_empty() {
                errs.push("prefix part must be non-empty".to_owned());
            } else {
                errs.extend(
                    dns1123_subdomain(prefix, unit)
                        .into_iter()
                        .map(|m| format!("prefix part {m}")),
                );
            }
            *name
        }
        _ => {
            let what = if Change::ContentPackageNames.at(minor) {
                "a valid label key"
            } else {
                "a qualified name"
            };
            errs.push(format!(
                "{what} {} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
                regex_error(LABEL_KEY_MSG, LABEL_KEY_FMT, &["MyName", "my.name", "123-abc"])
            ));
            return errs;
        }
    };
    if name.is_empty() {
        errs.push("name part must be non-empty".to_owned());
    } else if name.len() > 63 {
        errs.push(format!("name part {}", max_len(63, unit)));
    }
    if !is_qualified_name_part(name) {
        errs.push(format!(
            "name part {}",
            regex_error(
                LABEL_KEY_MSG,
                LABEL_KEY_FMT,
                &["MyName", "my.name", "123-abc"]
            )
        ));
    }
    errs
}

/// IsValidLabelValue, in `minor`'s wording.
pub fn label_value(value: &str, minor: u32) -> Vec<String> {
    let mut errs = Vec::new();
    if value.len() > 63 {
        errs.push(max_len(63, content_unit(minor)));
    }
    if !value.is_empty() && !is_qualified_name_part(value) {
        errs.push(regex_error(
            LABEL_VALUE_MSG,
            LABEL_VALUE_FMT,
            &["MyValue", "my_value", "12345"],
        ));
    }
    errs
}


pub(super) fn is_qualified_name_part(s: &str) -> bool {
    let b = s.as_bytes();
    match (b.first(), b.last()) {
        (Some(f), Some(l)) => {
            f.is_ascii_alphanumeric()
                && l.is_ascii_alphanumeric()
                && b.iter()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.'))
        }
        _ => false,
    }
}

/// apimachinery's `IsDNS1123Label`, as a yes/no.
pub fn is_dns1123_label(s: &str) -> bool {
    s.len() <= 63 && is_dns_label_chars(s, false)
}

/// util/validation's `IsDNS1123Subdomain`: every message it returns (its wording, "characters",
/// at every minor).
pub fn dns1123_subdomain_errors(value: &str) -> Vec<String> {
    dns1123_subdomain(value, CHARACTERS)
}

/// maskTrailingDash, as upstream writes it: a final `-` of a name longer than 1 is replaced with
/// `a`, and the character before it is dropped too (`name[:len-2] + "a"`).
pub(super) fn mask_trailing_dash(name: &str) -> String {
    let b = name.as_bytes();
    if b.len() > 1 && b.last() == Some(&b'-') {
        let mut s = String::from_utf8_lossy(b.get(..b.len() - 2).unwrap_or_default()).into_owned();
        s.push('a');
        s
    } else {
        name.to_owned()
    }
}
