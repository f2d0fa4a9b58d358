//! Endpoints (v1) on create: SetDefaults_Endpoints (a port's protocol `TCP`), then
//! `ValidateEndpointsCreate` (pkg/apis/core/validation): each subset needs an address; each
//! address's `ip` is an IP (IsValidIP up to 1.32, IsValidIPForLegacyField from 1.33, stricter
//! with StrictIPCIDRValidation) outside the unspecified, loopback and link-local ranges
//! (ValidateNonSpecialIP / ValidateEndpointIP: the same messages), its `hostname` a DNS-1123
//! label and its `nodeName` a DNS subdomain; each port named (a DNS-1123 label; required when the
//! subset has more than one), numbered 1-65535, with a supported protocol and a qualified-name
//! `appProtocol`. From 1.33 an Endpoints that passes is created with GetWarningsForIP's warnings
//! for its addresses ([`Change::EndpointsIpWarnings`]), unless it is labelled as the endpoints
//! controller's. Its ObjectMeta (namespaced, a DNS-subdomain name) is meta.rs's.

use super::Ctx;
use super::json_read::{list, opt, opt_str, str_of};
use super::names::{dns1123_label, dns1123_subdomain_name, qualified_name};
use super::netaddr;
use crate::diag::{Diagnostic, FieldPath, Findings, Origin};
use crate::versions::Change;
use serde_json::Value;

/// supportedPortProtocols, sorted as sets.List prints them.
const PROTOCOLS: [&str; 3] = ["SCTP", "TCP", "UDP"];
const PORT_RANGE: &str = "must be between 1 and 65535, inclusive";
/// The label the endpoints controller puts on what it writes (its IPs are not warned about).
const MANAGED_BY: (&str, &str) = ("endpoints.kubernetes.io/managed-by", "endpoint-controller");

/// An Endpoints on create (after ObjectMeta, which meta.rs checks).
// Kept out of its caller: see `validate::workloads::validate_kind`.
#[inline(never)]
pub(super) fn validate(obj: &Value, ctx: &Ctx, out: &mut Findings) {
    let minor = ctx.gates.version.minor;
    let strict = ctx.gates.active("StrictIPCIDRValidation");
    let before = out.errors.len();
    let sp = FieldPath::new("subsets");
    for (i, subset) in list(obj, "subsets").iter().enumerate() {
        let p = sp.index(i);
        let addresses = list(subset, "addresses");
        let not_ready = list(subset, "notReadyAddresses");
        if addresses.is_empty() && not_ready.is_empty() {
            out.push(Diagnostic::required(
                &p,
                "must specify `addresses` or `notReadyAddresses`",
            ));
        }
        for (key, addrs) in [("addresses", addresses), ("notReadyAddresses", not_ready)] {
            for (j, a) in addrs.iter().enumerate() {
                address(a, &p.child(key).index(j), strict, out);
            }
        }
        let ports = list(subset, "ports");
        for (j, port) in ports.iter().enumerate() {
            endpoint_port(
                port,
                ports.len() > 1,
                &p.child("ports").index(j),
                minor,
                out,
            );
        }
    }
    if out.errors.len() == before && Change::EndpointsIpWarnings.at(minor) {
        warnings(obj, minor, out);
    }
}

/// validateEndpointAddress.
fn address(a: &Value, p: &FieldPath, strict: bool, out: &mut Findings) {
    let ip = str_of(a, "ip");
    let ipp = p.child("ip");
    for msg in netaddr::ip_errors(ip, strict) {
        out.push(Diagnostic::invalid(&ipp, ip, msg));
    }
    let hostname = str_of(a, "hostname");
    if !hostname.is_empty() {
        for msg in dns1123_label(hostname) {
            out.push(Diagnostic::invalid(&p.child("hostname"), hostname, msg));
        }
    }
    if let Some(node) = opt_str(a, "nodeName") {
        for msg in dns1123_subdomain_name(node, false) {
            out.push(Diagnostic::invalid(&p.child("nodeName"), node, msg));
        }
    }
    match netaddr::parse_ip_sloppy(ip) {
        None => out.push(Diagnostic::invalid(&ipp, ip, "must be a valid IP address")),
        Some(_) => super::service::special_ip(ip, &ipp, out),
    }
}

/// validateEndpointPort (the protocol already defaulted to TCP when empty).
fn endpoint_port(port: &Value, require_name: bool, p: &FieldPath, minor: u32, out: &mut Findings) {
    let name = str_of(port, "name");
    if require_name && name.is_empty() {
        out.push(Diagnostic::required(&p.child("name"), ""));
    } else if !name.is_empty() {
        for msg in dns1123_label(name) {
            out.push(Diagnostic::invalid(&p.child("name"), name, msg));
        }
    }
    let number = port.get("port").and_then(Value::as_i64).unwrap_or(0);
    if !(1..=65535).contains(&number) {
        out.push(Diagnostic::invalid(&p.child("port"), number, PORT_RANGE));
    }
    let protocol = match str_of(port, "protocol") {
        "" => "TCP",
        other => other,
    };
    if !PROTOCOLS.contains(&protocol) {
        out.push(Diagnostic::not_supported(
            &p.child("protocol"),
            protocol,
            &PROTOCOLS,
        ));
    }
    if let Some(app) = opt(port, "appProtocol").map(|v| v.as_str().unwrap_or("")) {
        for msg in qualified_name(app, minor) {
            out.push(Diagnostic::invalid(&p.child("appProtocol"), app, msg));
        }
    }
}

/// endpointsWarnings: GetWarningsForIP for every address, unless the endpoints controller wrote
/// the object.
fn warnings(obj: &Value, minor: u32, out: &mut Findings) {
    let managed = obj
        .get("metadata")
        .and_then(|m| m.get("labels"))
        .and_then(|l| l.get(MANAGED_BY.0))
        .and_then(Value::as_str)
        == Some(MANAGED_BY.1);
    if managed {
        return;
    }
    let sp = FieldPath::new("subsets");
    for (i, subset) in list(obj, "subsets").iter().enumerate() {
        for key in ["addresses", "notReadyAddresses"] {
            for (j, a) in list(subset, key).iter().enumerate() {
                let p = sp.index(i).child(key).index(j).child("ip");
                for w in netaddr::ip_warnings(p.as_str(), str_of(a, "ip"), minor) {
                    out.push(
                        Diagnostic::lint("non-standard-ip", &p, w)
                            .with_origin(Origin::KubeApiserver),
                    );
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features::{FeatureGates, KubeVersion};
    use serde_json::json;

    fn run(subsets: Value, minor: u32) -> (Vec<String>, Vec<String>) {
        let ctx = Ctx {
            gates: FeatureGates::for_version(KubeVersion { minor }),
            ..Ctx::default()
        };
        let obj = json!({"apiVersion": "v1", "kind": "Endpoints",
            "metadata": {"name": "db", "namespace": "default"}, "subsets": subsets});
        let mut out = Findings::default();
        validate(&obj, &ctx, &mut out);
        (
            out.errors.iter().map(|d| d.message.clone()).collect(),
            out.warnings.iter().map(|d| d.message.clone()).collect(),
        )
    }

    #[test]
    fn a_hand_written_endpoints_for_an_external_database_passes() {
        let (errs, warns) = run(
            json!([{"addresses": [{"ip": "10.0.0.5"}], "ports": [{"port": 5432}]}]),
            37,
        );
        assert_eq!((errs, warns), (vec![], vec![]));
    }

    #[test]
    fn addresses_ports_and_their_names() {
        let (errs, _) = run(
            json!([
                {"ports": [{"port": 80}]},
                {"addresses": [{"ip": "127.0.0.1", "hostname": "Db_1", "nodeName": "Node_A"}],
                 "notReadyAddresses": [{"ip": "db.example.com"}],
                 "ports": [{"port": 0, "protocol": "HTTP", "appProtocol": "a/b/c"}, {"name": "x", "port": 1}]}
            ]),
            37,
        );
        let fields: Vec<&str> = errs
            .iter()
            .map(|m| m.split(": ").next().unwrap_or(""))
            .collect();
        assert_eq!(
            fields,
            [
                "subsets[0]",
                "subsets[1].addresses[0].hostname",
                "subsets[1].addresses[0].nodeName",
                "subsets[1].addresses[0].ip",
                "subsets[1].notReadyAddresses[0].ip",
                "subsets[1].notReadyAddresses[0].ip",
                "subsets[1].ports[0].name",
                "subsets[1].ports[0].port",
                "subsets[1].ports[0].protocol",
                "subsets[1].ports[0].appProtocol",
            ]
        );
        assert!(
            errs.iter()
                .any(|m| m.ends_with("may not be in the loopback range (127.0.0.0/8, ::1/128)"))
        );
    }

    #[test]
    fn non_standard_addresses_are_warned_of_from_1_33() {
        let subsets = json!([{"addresses": [{"ip": "010.0.0.5"}, {"ip": "2001:DB8::1"}]}]);
        // 1.33: StrictIPCIDRValidation is off by default (alpha); at 1.37 it is on, and the
        // leading zeros are an error.
        let (errs, warns) = run(subsets.clone(), 33);
        assert!(errs.is_empty(), "{errs:?}");
        assert_eq!(
            warns,
            [
                "subsets[0].addresses[0].ip: non-standard IP address \"010.0.0.5\" will be considered invalid in a future Kubernetes release: use \"10.0.0.5\"",
                "subsets[0].addresses[1].ip: IPv6 address \"2001:DB8::1\" should be in RFC 5952 canonical format (\"2001:db8::1\")",
            ]
        );
        assert_eq!(run(subsets.clone(), 32).1, Vec::<String>::new());
        assert!(
            run(subsets, 37)
                .0
                .iter()
                .any(|m| m.ends_with("must not have leading 0s"))
        );
    }
}
