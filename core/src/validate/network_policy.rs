//! NetworkPolicy (networking.k8s.io/v1) on create: `ValidateNetworkPolicySpec`
//! (pkg/apis/networking/validation) after the v1 defaulting (a port's protocol TCP, the
//! policyTypes a policy without them implies: neither changes what the validation says), then
//! the strategy's WarningsOnCreate for a policy that passed. ObjectMeta (a DNS-subdomain name)
//! is meta.rs's.
//!
//! Per minor: from 1.33 the CIDRs are read by IsValidCIDRForLegacyField (stricter with
//! StrictIPCIDRValidation on) and a policy that passed gets GetWarningsForCIDR's warnings
//! ([`Change::NetworkPolicyCidrWarnings`]); from 1.37 an `endPort` below `port` prints the
//! endPort (before, the port: [`Change::NetworkPolicyEndPortValue`]) and, with
//! DeclarativeValidationBeta on, the declarative rule for an empty `ipBlock.cidr` takes over the
//! handwritten one and comes after the other errors ([`Change::NetworkPolicyDeclarativeBeta`]).

use super::Ctx;
use super::container::port_name;
use super::json_read::{list, opt, strings};
use super::netaddr;
use super::selector;
use crate::diag::{Diagnostic, FieldPath, Findings, Origin};
use crate::versions::Change;
use serde_json::{Map, Value};

const PORT_RANGE: &str = "must be between 1 and 65535, inclusive";
const PROTOCOLS: [&str; 3] = ["TCP", "UDP", "SCTP"];
const POLICY_TYPES: [&str; 2] = ["Ingress", "Egress"];
const GATE_STRICT: &str = "StrictIPCIDRValidation";
const GATE_DV_BETA: &str = "DeclarativeValidationBeta";

/// What one create's checks share.
struct Check<'a> {
    minor: u32,
    strict: bool,
    /// 1.37's beta declarative rules are enforced.
    dv_beta: bool,
    out: &'a mut Findings,
    /// The declarative errors that come after the handwritten ones.
    declarative: Vec<Diagnostic>,
}

/// A NetworkPolicy on create (after ObjectMeta, which meta.rs checks).
// Kept out of its caller: see `validate::workloads::validate_kind`.
#[inline(never)]
pub(super) fn validate(obj: &Value, ctx: &Ctx, out: &mut Findings) {
    let minor = ctx.gates.version.minor;
    let before = out.errors.len();
    let mut c = Check {
        minor,
        strict: ctx.gates.active(GATE_STRICT),
        dv_beta: Change::NetworkPolicyDeclarativeBeta.at(minor) && ctx.gates.enabled(GATE_DV_BETA),
        out,
        declarative: Vec::new(),
    };
    let empty = Value::Object(Map::new());
    let spec = opt(obj, "spec").unwrap_or(&empty);
    spec_checks(spec, &mut c);
    let Check {
        out, declarative, ..
    } = c;
    out.errors.extend(declarative);
    if out.errors.len() == before && Change::NetworkPolicyCidrWarnings.at(minor) {
        // rest.BeforeCreate asks for the warnings only of an object that passed, metadata too.
        if super::meta::passes("networking.k8s.io", "NetworkPolicy", obj, ctx) {
            warnings(spec, minor, out);
        }
    }
}

fn spec_checks(spec: &Value, c: &mut Check) {
    let sp = FieldPath::new("spec");
    let empty = Map::new();
    let pod_selector = opt(spec, "podSelector")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    selector::validate(pod_selector, &sp.child("podSelector"), c.minor, c.out);
    for (direction, peers) in [("ingress", "from"), ("egress", "to")] {
        for (i, rule) in list(spec, direction).iter().enumerate() {
            let rp = sp.child(direction).index(i);
            for (j, port) in list(rule, "ports").iter().enumerate() {
                port_checks(port, &rp.child("ports").index(j), c);
            }
            for (j, peer) in list(rule, peers).iter().enumerate() {
                peer_checks(peer, &rp.child(peers).index(j), c);
            }
        }
    }
    let types = strings(spec, "policyTypes");
    let tp = sp.child("policyTypes");
    if types.len() > POLICY_TYPES.len() {
        let printed = if Change::FieldErrorJsonValues.at(c.minor) {
            Value::from(types.clone()).to_string()
        } else {
            crate::go_strconv::string_slice(&types).replacen(
                "[]string",
                "[]networking.PolicyType",
                1,
            )
        };
        c.out.push(Diagnostic::invalid_printed(
            &tp,
            Value::from(types),
            &printed,
            "may not specify more than two policyTypes",
        ));
        return;
    }
    for (i, t) in types.iter().enumerate() {
        if !POLICY_TYPES.contains(t) {
            c.out
                .push(Diagnostic::not_supported(&tp.index(i), *t, &POLICY_TYPES));
        }
    }
}

/// ValidateNetworkPolicyPort.
fn port_checks(port: &Value, p: &FieldPath, c: &mut Check) {
    if let Some(proto) = opt(port, "protocol") {
        let proto = proto.as_str().unwrap_or("");
        if !PROTOCOLS.contains(&proto) {
            c.out.push(Diagnostic::not_supported(
                &p.child("protocol"),
                proto,
                &PROTOCOLS,
            ));
        }
    }
    let end = opt(port, "endPort").and_then(Value::as_i64);
    let ep = p.child("endPort");
    match opt(port, "port") {
        Some(Value::String(name)) => {
            if let Some(e) = end {
                c.out.push(Diagnostic::invalid(
                    &ep,
                    e,
                    "may not be specified when `port` is non-numeric",
                ));
            }
            for msg in port_name(name) {
                c.out
                    .push(Diagnostic::invalid(&p.child("port"), name.as_str(), msg));
            }
        }
        Some(n) => {
            let n = n.as_i64().unwrap_or(0);
            if !(1..=65535).contains(&n) {
                c.out
                    .push(Diagnostic::invalid(&p.child("port"), n, PORT_RANGE));
            }
            if let Some(e) = end {
                if e < n {
                    let shown = if Change::NetworkPolicyEndPortValue.at(c.minor) {
                        e
                    } else {
                        n
                    };
                    c.out.push(Diagnostic::invalid(
                        &ep,
                        shown,
                        "must be greater than or equal to `port`",
                    ));
                }
                if !(1..=65535).contains(&e) {
                    c.out.push(Diagnostic::invalid(&ep, e, PORT_RANGE));
                }
            }
        }
        None => {
            if let Some(e) = end {
                c.out.push(Diagnostic::invalid(
                    &ep,
                    e,
                    "may not be specified when `port` is not specified",
                ));
            }
        }
    }
}

/// ValidateNetworkPolicyPeer.
fn peer_checks(peer: &Value, p: &FieldPath, c: &mut Check) {
    let mut peers = 0;
    for key in ["podSelector", "namespaceSelector"] {
        if let Some(s) = opt(peer, key) {
            peers += 1;
            let empty = Map::new();
            let s = s.as_object().unwrap_or(&empty);
            selector::validate(s, &p.child(key), c.minor, c.out);
        }
    }
    let ip_block = opt(peer, "ipBlock");
    if let Some(b) = ip_block {
        peers += 1;
        ip_block_checks(b, &p.child("ipBlock"), c);
    }
    if peers == 0 {
        c.out.push(Diagnostic::required(p, "must specify a peer"));
    } else if peers > 1 && ip_block.is_some() {
        c.out.push(Diagnostic::forbidden(
            p,
            "may not specify both ipBlock and another peer",
        ));
    }
}

/// ValidateIPBlock.
fn ip_block_checks(block: &Value, p: &FieldPath, c: &mut Check) {
    let cidr = opt(block, "cidr").and_then(Value::as_str).unwrap_or("");
    let cp = p.child("cidr");
    if cidr.is_empty() {
        let d = Diagnostic::required(&cp, "");
        if c.dv_beta {
            c.declarative.push(d);
        } else {
            c.out.push(d);
        }
        return;
    }
    let errs = netaddr::cidr_errors(cidr, c.strict);
    let parsed = netaddr::cidr_errors(cidr, false).is_empty();
    for msg in errs {
        c.out.push(Diagnostic::invalid(&cp, cidr, msg));
    }
    if !parsed {
        return;
    }
    let xp = p.child("except");
    for (i, except) in strings(block, "except").iter().enumerate() {
        for msg in netaddr::cidr_errors(except, c.strict) {
            c.out.push(Diagnostic::invalid(&xp.index(i), *except, msg));
        }
        if netaddr::not_strict_subset(cidr, except) == Some(true) {
            c.out.push(Diagnostic::invalid(
                &xp.index(i),
                *except,
                "must be a strict subset of `cidr`",
            ));
        }
    }
}

/// networkPolicyWarnings: GetWarningsForCIDR for every ipBlock's cidr and except values.
fn warnings(spec: &Value, minor: u32, out: &mut Findings) {
    let sp = FieldPath::new("spec");
    for (direction, peers) in [("ingress", "from"), ("egress", "to")] {
        for (i, rule) in list(spec, direction).iter().enumerate() {
            for (j, peer) in list(rule, peers).iter().enumerate() {
                let Some(block) = opt(peer, "ipBlock") else {
                    continue;
                };
                let bp = sp
                    .child(direction)
                    .index(i)
                    .child(peers)
                    .index(j)
                    .child("ipBlock");
                let cidr = opt(block, "cidr").and_then(Value::as_str).unwrap_or("");
                let mut found = vec![(bp.child("cidr"), cidr)];
                for (k, e) in strings(block, "except").into_iter().enumerate() {
                    found.push((bp.child("except").index(k), e));
                }
                for (p, v) in found {
                    for w in netaddr::cidr_warnings(p.as_str(), v, minor) {
                        out.push(
                            Diagnostic::lint("non-standard-cidr", &p, w)
                                .with_origin(Origin::KubeApiserver),
                        );
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ctx(minor: u32, gates: &[(&str, bool)]) -> Ctx {
        Ctx::at(minor, gates)
    }

    fn policy(spec: Value) -> Value {
        json!({"apiVersion": "networking.k8s.io/v1", "kind": "NetworkPolicy",
            "metadata": {"name": "np", "namespace": "default"}, "spec": spec})
    }

    fn run(spec: Value, c: &Ctx) -> (Vec<String>, Vec<String>) {
        let mut out = Findings::default();
        validate(&policy(spec), c, &mut out);
        let m = |v: &[Diagnostic]| v.iter().map(|d| d.message.clone()).collect();
        (m(&out.errors), m(&out.warnings))
    }

    #[test]
    fn ports_per_minor() {
        let spec = json!({"ingress": [{"ports": [
            {"protocol": "ICMP", "port": 0},
            {"port": 8080, "endPort": 80},
            {"port": "http", "endPort": 90},
            {"endPort": 70000},
            {"port": "no_such_port!"}
        ]}]});
        let (e31, _) = run(spec.clone(), &ctx(31, &[]));
        assert_eq!(
            e31,
            [
                "spec.ingress[0].ports[0].protocol: Unsupported value: \"ICMP\": supported values: \"TCP\", \"UDP\", \"SCTP\"",
                "spec.ingress[0].ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive",
                "spec.ingress[0].ports[1].endPort: Invalid value: 8080: must be greater than or equal to `port`",
                "spec.ingress[0].ports[2].endPort: Invalid value: 90: may not be specified when `port` is non-numeric",
                "spec.ingress[0].ports[3].endPort: Invalid value: 70000: may not be specified when `port` is not specified",
                "spec.ingress[0].ports[4].port: Invalid value: \"no_such_port!\": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)",
            ]
        );
        let (e37, _) = run(spec, &ctx(37, &[]));
        assert_eq!(
            e37.get(2).map(String::as_str),
            Some(
                "spec.ingress[0].ports[1].endPort: Invalid value: 80: must be greater than or equal to `port`"
            )
        );
    }

    #[test]
    fn peers_and_ip_blocks() {
        let spec = json!({"egress": [{"to": [
            {},
            {"ipBlock": {"cidr": "10.0.0.0/16", "except": ["10.1.0.0/24", "10.0.1.0/24", "x"]}, "podSelector": {}},
            {"ipBlock": {}},
            {"namespaceSelector": {"matchLabels": {"a": "b c"}}}
        ]}]});
        let (e, w) = run(spec.clone(), &ctx(36, &[]));
        assert_eq!(
            e,
            [
                "spec.egress[0].to[0]: Required value: must specify a peer",
                "spec.egress[0].to[1].ipBlock.except[0]: Invalid value: \"10.1.0.0/24\": must be a strict subset of `cidr`",
                "spec.egress[0].to[1].ipBlock.except[2]: Invalid value: \"x\": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)",
                "spec.egress[0].to[1]: Forbidden: may not specify both ipBlock and another peer",
                "spec.egress[0].to[2].ipBlock.cidr: Required value",
                "spec.egress[0].to[3].namespaceSelector.matchLabels: Invalid value: \"b c\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
            ]
        );
        assert!(w.is_empty());
        // 1.37: the declarative Required comes last.
        let (e, _) = run(spec, &ctx(37, &[]));
        assert_eq!(
            e.last().map(String::as_str),
            Some("spec.egress[0].to[2].ipBlock.cidr: Required value")
        );
    }

    #[test]
    fn policy_types() {
        let (e, _) = run(
            json!({"policyTypes": ["Ingress", "Egress", "Ingress"]}),
            &ctx(33, &[]),
        );
        assert_eq!(
            e,
            [
                "spec.policyTypes: Invalid value: []networking.PolicyType{\"Ingress\", \"Egress\", \"Ingress\"}: may not specify more than two policyTypes"
            ]
        );
        let (e, _) = run(json!({"policyTypes": ["ingress"]}), &ctx(34, &[]));
        assert_eq!(
            e,
            [
                "spec.policyTypes[0]: Unsupported value: \"ingress\": supported values: \"Ingress\", \"Egress\""
            ]
        );
    }

    #[test]
    fn cidr_warnings_from_1_33_on_a_policy_that_passed() {
        let spec = json!({"ingress": [{"from": [{"ipBlock": {"cidr": "10.0.0.1/8", "except": ["010.1.0.0/16"]}}]}]});
        let (e, w) = run(spec.clone(), &ctx(33, &[(GATE_STRICT, false)]));
        assert!(e.is_empty(), "{e:?}");
        assert_eq!(
            w,
            [
                "spec.ingress[0].from[0].ipBlock.cidr: CIDR value \"10.0.0.1/8\" is ambiguous in this context (should be \"10.0.0.0/8\" or \"10.0.0.1/32\"?)",
                // 1.33 to 1.35 word it so; from 1.36 "is invalid" (apimachinery's ip.go).
                "spec.ingress[0].from[0].ipBlock.except[0]: non-standard CIDR value \"010.1.0.0/16\" will be considered invalid in a future Kubernetes release: use \"10.1.0.0/16\"",
            ]
        );
        assert!(run(spec.clone(), &ctx(32, &[])).1.is_empty());
        // StrictIPCIDRValidation refuses both; no warnings then.
        let (e, w) = run(spec, &ctx(37, &[(GATE_STRICT, true)]));
        assert_eq!(e.len(), 2, "{e:?}");
        assert!(w.is_empty());
    }
}
