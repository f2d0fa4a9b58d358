//! What ValidatePodSpec (pkg/apis/core/validation/validation.go) checks of a Pod's DNS and host
//! identity on create, per minor 1.31-1.37: `dnsPolicy` (validateDNSPolicy), `dnsConfig`
//! (validatePodDNSConfig: nameserver IPs and count, search paths, options, and the rules of
//! dnsPolicy None), `hostname` and `subdomain` (DNS labels), `hostAliases` (ValidateHostAliases),
//! `hostnameOverride` (validatePodHostName, 1.34 on, with the HostnameOverride gate),
//! validatePodHostNetworkDeps (with hostNetwork a host port must equal its container port; the v1
//! defaulting of a Pod fills an unset one, [`default_host_network_ports`]), the
//! shareProcessNamespace-with-hostPID rule, and the Pod's annotations that
//! ValidatePodSpecificAnnotations checks besides seccomp and AppArmor ([`pod_annotations`]: the
//! mirror Pod annotation, the tolerations annotation, `controller.kubernetes.io/pod-deletion-cost`).

use super::Ctx;
use super::meta::{dns1123_label, regex_error};
use super::names::dns1123_subdomain_errors;
use super::pod_scheduling::{list, str_of, strings};
use crate::api::PodSpec;
use crate::diag::{Diagnostic, FieldPath, Findings};
use serde_json::Value;
use std::net::{Ipv4Addr, Ipv6Addr};
use crate::versions::Change;

const DNS_POLICIES: [&str; 4] = ["ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"];
const MAX_NAMESERVERS: usize = 3;
const MAX_SEARCH_PATHS: usize = 32;
const MAX_SEARCH_CHARS: usize = 2048;
const MIRROR_ANNOTATION: &str = "kubernetes.io/config.mirror";
const TOLERATIONS_ANNOTATION: &str = "scheduler.alpha.kubernetes.io/tolerations";
const DELETION_COST: &str = "controller.kubernetes.io/pod-deletion-cost";

fn flag(spec: &PodSpec, key: &str) -> bool {
    spec.other
        .get(key)
        .and_then(Value::as_bool)
        .unwrap_or(false)
}

/// SetDefaults_Pod: with hostNetwork, each regular and init container port without a host port
/// gets its container port as host port (a Pod only; templates are left as written).
pub fn default_host_network_ports(spec: &mut PodSpec) {
    if !flag(spec, "hostNetwork") {
        return;
    }
    for c in spec
        .containers
        .iter_mut()
        .chain(spec.init_containers.iter_mut())
    {
        let Some(ports) = c.ports.as_mut().and_then(Value::as_array_mut) else {
            continue;
        };
        for port in ports.iter_mut().filter_map(Value::as_object_mut) {
            if port.get("hostPort").and_then(Value::as_i64).unwrap_or(0) == 0
                && let Some(cp) = port.get("containerPort").cloned()
            {
                port.insert("hostPort".to_owned(), cp);
            }
        }
    }
}

/// The DNS and host identity part of ValidatePodSpec. `path` is the PodSpec's path; `is_pod`:
/// the PodSpec is a Pod's (opts.ResourceIsPod), not a template's.
pub fn validate(spec: &PodSpec, path: &FieldPath, ctx: &Ctx, is_pod: bool, out: &mut Findings) {
    let minor = ctx.gates.version.minor;
    let o = &spec.other;
    let host_network = flag(spec, "hostNetwork");

    // validatePodHostNetworkDeps: a template may leave the host port to the Pod's defaulting.
    if host_network {
        for (i, c) in spec.containers.iter().enumerate() {
            let Some(ports) = c.ports.as_ref().and_then(Value::as_array) else {
                continue;
            };
            for (j, port) in ports.iter().enumerate() {
                let hp = port.get("hostPort").and_then(Value::as_i64).unwrap_or(0);
                let cp = port
                    .get("containerPort")
                    .and_then(Value::as_i64)
                    .unwrap_or(0);
                if (is_pod || hp != 0) && hp != cp {
                    let p = path.child("containers").index(i).child("ports").index(j);
                    out.push(Diagnostic::invalid(
                        &p.child("hostPort"),
                        hp,
                        "must match `containerPort` when `hostNetwork` is true",
                    ));
                }
            }
        }
    }

    // validateDNSPolicy; an unset policy is ClusterFirst after the v1 defaulting.
    let policy = match o.get("dnsPolicy").and_then(Value::as_str) {
        None if !ctx.skip_defaulting => "ClusterFirst",
        other => other.unwrap_or(""),
    };
    let pp = path.child("dnsPolicy");
    if policy.is_empty() {
        out.push(Diagnostic::required(&pp, ""));
    } else if !DNS_POLICIES.contains(&policy) {
        out.push(Diagnostic::not_supported(&pp, policy, &DNS_POLICIES));
    }

    // The shareProcessNamespace rule: in validatePodSpecSecurityContext (under securityContext,
    // where the internal type keeps the host namespaces) up to 1.36, in the PodSpec from 1.37.
    if o.get("shareProcessNamespace").and_then(Value::as_bool) == Some(true)
        && flag(spec, "hostPID")
    {
        let p = if Change::ShareProcessNamespaceInSpec.at(minor) {
            path.child("shareProcessNamespace")
        } else {
            path.child("securityContext").child("shareProcessNamespace")
        };
        out.push(Diagnostic::invalid(
            &p,
            true,
            "ShareProcessNamespace and HostPID cannot both be enabled",
        ));
    }

    dns_config(
        o.get("dnsConfig"),
        policy,
        &path.child("dnsConfig"),
        ctx,
        out,
    );

    if ctx.gates.active("HostnameOverride")
        && let Some(h) = o.get("hostnameOverride").and_then(Value::as_str)
    {
        let hp = path.child("hostnameOverride");
        if o.get("setHostnameAsFQDN").and_then(Value::as_bool) == Some(true) {
            out.push(Diagnostic::forbidden(
                &hp,
                "may not be specified when setHostnameAsFQDN is true",
            ));
        }
        if host_network {
            out.push(Diagnostic::forbidden(
                &hp,
                "may not be specified when hostNetwork is true",
            ));
        }
        if h.len() > 64 {
            let mut d = Diagnostic::too_long(&hp, "", 64);
            d.reword_for(minor);
            out.push(d);
        }
        for msg in dns1123_subdomain_errors(h) {
            out.push(Diagnostic::invalid(&hp, h, msg));
        }
    }

    host_users(spec, path, ctx, host_network, out);

    for field in ["hostname", "subdomain"] {
        if let Some(v) = o
            .get(field)
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
        {
            for msg in dns1123_label(v) {
                out.push(Diagnostic::invalid(&path.child(field), v, msg));
            }
        }
    }

    let ap = path.child("hostAliases");
    for (i, a) in list(o.get("hostAliases")).iter().enumerate() {
        ip(str_of(a, "ip"), &ap.index(i).child("ip"), ctx, out);
        let hp = ap.index(i).child("hostnames");
        for (j, h) in strings(a.get("hostnames")).iter().enumerate() {
            for msg in dns1123_subdomain_errors(h) {
                out.push(Diagnostic::invalid(&hp.index(j), *h, msg));
            }
        }
    }
}

/// validateHostUsers: a Pod in its own user namespace (`hostUsers: false`, kept on create only
/// with UserNamespacesSupport) shares no host namespace, and from 1.34 has no volumeDevices.
fn host_users(spec: &PodSpec, path: &FieldPath, ctx: &Ctx, host_network: bool, out: &mut Findings) {
    if spec.other.get("hostUsers").and_then(Value::as_bool) != Some(false)
        || !ctx.gates.enabled("UserNamespacesSupport")
    {
        return;
    }
    let minor = ctx.gates.version.minor;
    let msg = if Change::HostUsersWording.at(minor) {
        "when `hostUsers` is false"
    } else {
        "when `pod.Spec.HostUsers` is false"
    };
    if host_network && !ctx.gates.active("UserNamespacesHostNetworkSupport") {
        out.push(Diagnostic::forbidden(&path.child("hostNetwork"), msg));
    }
    // Upstream names these two by their Go field names.
    if flag(spec, "hostPID") {
        out.push(Diagnostic::forbidden(&path.child("HostPID"), msg));
    }
    if flag(spec, "hostIPC") {
        out.push(Diagnostic::forbidden(&path.child("HostIPC"), msg));
    }
    if Change::HostUsersVolumeDevices.at(minor) {
        let lists = [
            ("initContainers", &spec.init_containers),
            ("containers", &spec.containers),
            ("ephemeralContainers", &spec.ephemeral_containers),
        ];
        for (name, list) in lists {
            for (i, c) in list.iter().enumerate() {
                if c.other
                    .get("volumeDevices")
                    .and_then(Value::as_array)
                    .is_some_and(|v| !v.is_empty())
                {
                    let p = path.child(name).index(i).child("volumeDevices");
                    out.push(Diagnostic::forbidden(&p, msg));
                }
            }
        }
    }
}

/// Go's `%#v` of a `[]string`, as apimachinery before v0.34 prints a list value; JSON after.
fn print_list(items: &[&str], minor: u32) -> Option<String> {
    (!Change::FieldErrorJsonValues.at(minor)).then(|| crate::go_strconv::string_slice(items))
}

pub(super) fn invalid_list(
    p: &FieldPath,
    items: &[&str],
    minor: u32,
    detail: String,
) -> Diagnostic {
    let v = Value::from(items.iter().map(|s| Value::from(*s)).collect::<Vec<_>>());
    let d = Diagnostic::invalid(p, v, detail);
    match print_list(items, minor) {
        Some(printed) => d.with_printed_value(&printed),
        None => d,
    }
}

/// validatePodDNSConfig.
fn dns_config(cfg: Option<&Value>, policy: &str, p: &FieldPath, ctx: &Ctx, out: &mut Findings) {
    let minor = ctx.gates.version.minor;
    let cfg = cfg.filter(|v| v.is_object());
    let nameservers = strings(cfg.and_then(|c| c.get("nameservers")));
    if policy == "None" {
        if cfg.is_none() {
            out.push(Diagnostic::required(
                p,
                "must provide `dnsConfig` when `dnsPolicy` is None",
            ));
            return;
        }
        if nameservers.is_empty() {
            out.push(Diagnostic::required(
                &p.child("nameservers"),
                "must provide at least one DNS nameserver when `dnsPolicy` is None",
            ));
            return;
        }
    }
    let Some(cfg) = cfg else { return };
    let np = p.child("nameservers");
    if nameservers.len() > MAX_NAMESERVERS {
        out.push(invalid_list(
            &np,
            &nameservers,
            minor,
            format!("must not have more than {MAX_NAMESERVERS} nameservers"),
        ));
    }
    for (i, ns) in nameservers.iter().enumerate() {
        ip(ns, &np.index(i), ctx, out);
    }
    let searches = strings(cfg.get("searches"));
    let sp = p.child("searches");
    if searches.len() > MAX_SEARCH_PATHS {
        out.push(invalid_list(
            &sp,
            &searches,
            minor,
            format!("must not have more than {MAX_SEARCH_PATHS} search paths"),
        ));
    }
    if searches.join(" ").len() > MAX_SEARCH_CHARS {
        out.push(invalid_list(
            &sp,
            &searches,
            minor,
            format!(
                "must not have more than {MAX_SEARCH_CHARS} characters (including spaces) in the search list"
            ),
        ));
    }
    // RelaxedDNSSearchValidation (1.32 on; always from 1.37): `.` alone and underscores pass.
    let relaxed = ctx.gates.active("RelaxedDNSSearchValidation");
    for (i, s) in searches.iter().enumerate() {
        if relaxed && *s == "." {
            continue;
        }
        let trimmed = s.strip_suffix('.').unwrap_or(s);
        let msgs = if relaxed {
            subdomain_with_underscore(trimmed)
        } else {
            dns1123_subdomain_errors(trimmed)
        };
        for msg in msgs {
            out.push(Diagnostic::invalid(&sp.index(i), trimmed, msg));
        }
    }
    for (i, opt) in list(cfg.get("options")).iter().enumerate() {
        if str_of(opt, "name").is_empty() {
            out.push(Diagnostic::required(
                &p.child("options").index(i),
                "must not be empty",
            ));
        }
    }
}

/// IsDNS1123SubdomainWithUnderscore.
fn subdomain_with_underscore(v: &str) -> Vec<String> {
    let label_ok = |l: &str| {
        let l = l.strip_prefix('_').unwrap_or(l);
        let b = l.as_bytes();
        let alnum = |c: &u8| c.is_ascii_lowercase() || c.is_ascii_digit();
        match (b.first(), b.last()) {
            (Some(f), Some(e)) => {
                alnum(f) && alnum(e) && b.iter().all(|c| alnum(c) || *c == b'-' || *c == b'_')
            }
            _ => false,
        }
    };
    let mut errs = Vec::new();
    if v.len() > 253 {
        errs.push("must be no more than 253 characters".to_owned());
    }
    if !v.split('.').all(label_ok) {
        errs.push(regex_error(
            "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '_', '-' or '.', and must start and end with an alphanumeric character",
            "_?[a-z0-9]([-_a-z0-9]*[a-z0-9])?(\\._?[a-z0-9]([-_a-z0-9]*[a-z0-9])?)*",
            &["example.com"],
        ));
    }
    errs
}

/// An IPv4 address as Go's pre-1.17 net.ParseIP (netutils.ParseIPSloppy) reads it: four decimal
/// fields up to 255, leading zeros allowed.
fn sloppy_v4(s: &str) -> Option<Ipv4Addr> {
    let parts: Vec<&str> = s.split('.').collect();
    let [a, b, c, d] = parts.as_slice() else {
        return None;
    };
    let field = |p: &str| -> Option<u8> {
        if p.is_empty() || !p.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let t = p.trim_start_matches('0');
        if t.len() > 3 {
            return None;
        }
        u8::try_from(t.parse::<u32>().unwrap_or(0)).ok()
    };
    Some(Ipv4Addr::new(field(a)?, field(b)?, field(c)?, field(d)?))
}

/// ParseIPSloppy: the address, and whether netip.ParseAddr takes the text too (no leading zeros).
fn parse_ip(s: &str) -> Option<(Option<Ipv6Addr>, bool)> {
    let first = s.bytes().find(|b| *b == b'.' || *b == b':')?;
    if first == b'.' {
        let v4 = sloppy_v4(s)?;
        return Some((None, s.parse::<Ipv4Addr>().ok() == Some(v4)));
    }
    if s.contains('%') {
        return None;
    }
    // Normalise what the sloppy parser forgives (leading zeros in hex groups and in an embedded
    // IPv4 tail) and let the standard parser judge the rest.
    let mut groups: Vec<String> = Vec::new();
    let parts: Vec<&str> = s.split(':').collect();
    let last = parts.len().saturating_sub(1);
    for (i, g) in parts.iter().enumerate() {
        if i == last && g.contains('.') {
            groups.push(sloppy_v4(g)?.to_string());
        } else if g.len() > 4 && g.bytes().all(|b| b.is_ascii_hexdigit()) {
            let t = g.trim_start_matches('0');
            if t.len() > 4 {
                return None;
            }
            groups.push(if t.is_empty() {
                "0".to_owned()
            } else {
                t.to_owned()
            });
        } else {
            groups.push((*g).to_owned());
        }
    }
    let v6: Ipv6Addr = groups.join(":").parse().ok()?;
    Some((Some(v6), s.parse::<Ipv6Addr>().is_ok()))
}

/// IsValidIP (1.31, 1.32) or IsValidIPForLegacyField (1.33 on, strict with the
/// StrictIPCIDRValidation gate) on a legacy IP field at `p`.
fn ip(value: &str, p: &FieldPath, ctx: &Ctx, out: &mut Findings) {
    let Some((v6, canonical)) = parse_ip(value) else {
        out.push(Diagnostic::invalid(
            p,
            value,
            "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)",
        ));
        return;
    };
    if ctx.gates.active("StrictIPCIDRValidation") {
        if !canonical {
            out.push(Diagnostic::invalid(p, value, "must not have leading 0s"));
        }
        if v6.is_some_and(|a| a.to_ipv4_mapped().is_some()) {
            out.push(Diagnostic::invalid(
                p,
                value,
                "must not be an IPv4-mapped IPv6 address",
            ));
        }
    }
}

/// ValidatePodSpecificAnnotations, less the seccomp and AppArmor annotations
/// (`pod_security::pod_annotations`).
pub fn pod_annotations(
    annotations: &[(&str, &str)],
    spec: &PodSpec,
    ctx: &Ctx,
    out: &mut Findings,
) {
    let p = FieldPath::new("metadata").child("annotations");
    let get = |k: &str| {
        annotations
            .iter()
            .find(|(key, _)| *key == k)
            .map(|(_, v)| *v)
    };
    if let Some(v) = get(MIRROR_ANNOTATION)
        && spec.node_name.as_deref().is_none_or(str::is_empty)
    {
        out.push(Diagnostic::invalid(
            &p.key(MIRROR_ANNOTATION),
            v,
            "must set spec.nodeName if mirror pod annotation is set",
        ));
    }
    if let Some(v) = get(TOLERATIONS_ANNOTATION).filter(|v| !v.is_empty()) {
        super::pod_scheduling::tolerations_annotation(v, &p, ctx, out);
    }
    // AllowInvalidPodDeletionCost is the PodDeletionCost gate turned off.
    if ctx.gates.enabled("PodDeletionCost")
        && let Some(v) = get(DELETION_COST)
        && !deletion_cost_ok(v)
    {
        out.push(Diagnostic::invalid(
            &p.key(DELETION_COST),
            v,
            "must be a 32bit integer",
        ));
    }
}

/// helper.GetDeletionCostFromPodAnnotations: no `+`, no leading zeros, then a base-10 int32.
fn deletion_cost_ok(v: &str) -> bool {
    let first_ok = match v.as_bytes().first() {
        None => false,
        Some(b'-') => true,
        Some(b'0') => v == "0",
        Some(c) => c.is_ascii_digit(),
    };
    first_ok && {
        let digits = v.strip_prefix('-').unwrap_or(v);
        !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) && v.parse::<i32>().is_ok()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]
    use super::*;
    use crate::features::{FeatureGates, KubeVersion};
    use serde_json::json;

    fn ctx(minor: u32) -> Ctx {
        Ctx {
            gates: FeatureGates::for_version(KubeVersion { minor }),
            skip_defaulting: false,
            future_rules: false,
            always_pod: false,
            field_validation: Default::default(),
        }
    }

    fn errs(spec: Value, minor: u32, is_pod: bool) -> Vec<String> {
        let mut spec: PodSpec = serde_json::from_value(spec).unwrap();
        if is_pod {
            default_host_network_ports(&mut spec);
        }
        let mut out = Findings::default();
        validate(
            &spec,
            &FieldPath::new("spec"),
            &ctx(minor),
            is_pod,
            &mut out,
        );
        out.errors.into_iter().map(|d| d.message).collect()
    }

    #[test]
    fn host_network_ports() {
        let spec = json!({"hostNetwork": true, "containers": [{"name": "a", "image": "i",
            "ports": [{"containerPort": 80}, {"containerPort": 81, "hostPort": 8081}]}]});
        let want = "spec.containers[0].ports[1].hostPort: Invalid value: 8081: must match `containerPort` when `hostNetwork` is true";
        assert_eq!(errs(spec.clone(), 37, true), vec![want]);
        assert_eq!(errs(spec, 31, false), vec![want]);
        // Without hostNetwork, any host port.
        assert!(errs(json!({"containers": [{"name": "a", "ports": [{"containerPort": 81, "hostPort": 8081}]}]}), 37, true).is_empty());
    }

    #[test]
    fn dns_policy_and_config() {
        assert!(errs(json!({}), 37, true).is_empty());
        assert_eq!(
            errs(
                json!({"dnsPolicy": "ClusterFirstWithHostNetwork"}),
                37,
                true
            ),
            vec![
                "spec.dnsPolicy: Unsupported value: \"ClusterFirstWithHostNetwork\": supported values: \"ClusterFirstWithHostNet\", \"ClusterFirst\", \"Default\", \"None\""
            ]
        );
        assert_eq!(
            errs(json!({"dnsPolicy": "None"}), 37, true),
            vec![
                "spec.dnsConfig: Required value: must provide `dnsConfig` when `dnsPolicy` is None"
            ]
        );
        assert_eq!(
            errs(
                json!({"dnsPolicy": "None", "dnsConfig": {"searches": ["a"]}}),
                37,
                true
            ),
            vec![
                "spec.dnsConfig.nameservers: Required value: must provide at least one DNS nameserver when `dnsPolicy` is None"
            ]
        );
        let four = json!({"dnsConfig": {"nameservers": ["1.1.1.1", "8.8.8.8", "9.9.9.9", "10.0.0.300"],
            "options": [{"value": "2"}], "searches": ["my_svc.local.", "."]}});
        let e = errs(four.clone(), 37, true);
        assert_eq!(
            e,
            vec![
                "spec.dnsConfig.nameservers: Invalid value: [\"1.1.1.1\",\"8.8.8.8\",\"9.9.9.9\",\"10.0.0.300\"]: must not have more than 3 nameservers",
                "spec.dnsConfig.nameservers[3]: Invalid value: \"10.0.0.300\": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)",
                "spec.dnsConfig.options[0]: Required value: must not be empty",
            ]
        );
        let e = errs(four, 31, true);
        assert_eq!(
            e[0],
            "spec.dnsConfig.nameservers: Invalid value: []string{\"1.1.1.1\", \"8.8.8.8\", \"9.9.9.9\", \"10.0.0.300\"}: must not have more than 3 nameservers"
        );
        // 1.31 has no relaxed search validation: `_` and `.` are refused.
        assert_eq!(
            e.iter()
                .filter(|m| m.starts_with("spec.dnsConfig.searches"))
                .count(),
            2
        );
    }

    #[test]
    fn ip_forms() {
        let e = |ip: &str, minor| {
            errs(
                json!({"hostAliases": [{"ip": ip, "hostnames": ["a.b"]}]}),
                minor,
                true,
            )
        };
        assert!(e("10.0.0.1", 37).is_empty());
        assert!(e("2001:db8::1", 37).is_empty());
        assert!(e("010.0.0.1", 31).is_empty());
        assert_eq!(
            e("010.0.0.1", 37),
            vec!["spec.hostAliases[0].ip: Invalid value: \"010.0.0.1\": must not have leading 0s"]
        );
        assert_eq!(
            e("::ffff:1.2.3.4", 37),
            vec![
                "spec.hostAliases[0].ip: Invalid value: \"::ffff:1.2.3.4\": must not be an IPv4-mapped IPv6 address"
            ]
        );
        assert_eq!(e("a.b.c.d", 37).len(), 1);
        assert_eq!(
            errs(
                json!({"hostAliases": [{"ip": "1.2.3.4", "hostnames": ["Web_1"]}]}),
                37,
                true
            )
            .len(),
            1
        );
    }

    #[test]
    fn hostnames_and_process_namespace() {
        let e = errs(
            json!({"hostname": "web_1", "subdomain": "a.b", "hostPID": true, "shareProcessNamespace": true}),
            37,
            true,
        );
        assert!(
            e[0].starts_with(
                "spec.shareProcessNamespace: Invalid value: true: ShareProcessNamespace and HostPID"
            ),
            "{e:?}"
        );
        assert!(
            e[1].starts_with("spec.hostname: Invalid value: \"web_1\": a lowercase RFC 1123 label")
        );
        assert_eq!(
            e[2],
            "spec.subdomain: Invalid value: \"a.b\": must not contain dots"
        );
        let e = errs(
            json!({"hostPID": true, "shareProcessNamespace": true}),
            36,
            true,
        );
        assert!(
            e[0].starts_with("spec.securityContext.shareProcessNamespace: Invalid value: true")
        );
    }

    #[test]
    fn host_users() {
        let spec = json!({"hostUsers": false, "hostNetwork": true, "hostPID": true, "hostIPC": true,
            "containers": [{"name": "a", "volumeDevices": [{"name": "d", "devicePath": "/dev/x"}]}]});
        assert_eq!(
            errs(spec.clone(), 37, false),
            vec![
                "spec.hostNetwork: Forbidden: when `hostUsers` is false",
                "spec.HostPID: Forbidden: when `hostUsers` is false",
                "spec.HostIPC: Forbidden: when `hostUsers` is false",
                "spec.containers[0].volumeDevices: Forbidden: when `hostUsers` is false",
            ]
        );
        let mut c = ctx(33);
        c.gates.set("UserNamespacesSupport", true);
        let s: PodSpec = serde_json::from_value(spec.clone()).unwrap();
        let mut out = Findings::default();
        validate(&s, &FieldPath::new("spec"), &c, false, &mut out);
        assert_eq!(out.errors.len(), 3);
        assert_eq!(
            out.errors[0].message,
            "spec.hostNetwork: Forbidden: when `pod.Spec.HostUsers` is false"
        );
        c.gates.set("UserNamespacesSupport", false);
        let mut out = Findings::default();
        validate(&s, &FieldPath::new("spec"), &c, false, &mut out);
        assert!(out.errors.is_empty());
    }

    #[test]
    fn annotations() {
        let spec = PodSpec::default();
        let run = |a: &[(&str, &str)], minor| {
            let mut out = Findings::default();
            pod_annotations(a, &spec, &ctx(minor), &mut out);
            out.errors
                .into_iter()
                .map(|d| d.message)
                .collect::<Vec<_>>()
        };
        assert_eq!(
            run(&[(DELETION_COST, "high")], 37),
            vec![
                "metadata.annotations[controller.kubernetes.io/pod-deletion-cost]: Invalid value: \"high\": must be a 32bit integer"
            ]
        );
        for bad in ["+1", "007", "", "2147483648", "1.5"] {
            assert_eq!(run(&[(DELETION_COST, bad)], 31).len(), 1, "{bad}");
        }
        for good in ["0", "-5", "2147483647", "-2147483648"] {
            assert!(run(&[(DELETION_COST, good)], 31).is_empty(), "{good}");
        }
        assert_eq!(
            run(&[(MIRROR_ANNOTATION, "x")], 37),
            vec![
                "metadata.annotations[kubernetes.io/config.mirror]: Invalid value: \"x\": must set spec.nodeName if mirror pod annotation is set"
            ]
        );
        assert_eq!(
            run(
                &[(
                    TOLERATIONS_ANNOTATION,
                    r#"[{"key":"k","operator":"Exists","value":"v"}]"#
                )],
                37
            ),
            vec![
                "metadata.annotations.scheduler.alpha.kubernetes.io/tolerations[0].operator: Invalid value: \"v\": value must be empty when `operator` is 'Exists'"
            ]
        );
    }
}
