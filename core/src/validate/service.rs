//! Service (v1) as kube-apiserver creates it: the v1 defaulting (SetDefaults_Service), the
//! Service REST storage's steps before validation that depend on nothing but the object
//! (pkg/registry/core/service/storage: `normalizeClusterIPs`, `initIPFamilyFields` up to the
//! cluster's IP families, `initNodePorts` within the object), the strategy's PrepareForCreate
//! and `ValidateServiceCreate` (pkg/apis/core/validation/validation.go: `validateService`,
//! `validateServicePort`, `ValidateServiceClusterIPsRelatedFields`, ...). Left to the cluster:
//! what the cluster's configuration decides (its IP families and service CIDRs, the node-port
//! range, addresses and ports already taken).
//!
//! The object is read from the JSON the decoding pass accepted; what is absent is Go's zero
//! value. Values printed in messages follow each minor's apimachinery (JSON from 1.34, Go's
//! `%#v` before).

use super::json_read::str_of;
use super::netaddr;
use super::{Ctx, meta, selector};
use crate::diag::{Diagnostic, FieldPath, Findings};
use serde_json::{Map, Value, json};
use crate::versions::Change;

fn int_of(v: &Value, key: &str) -> i64 {
    v.get(key).and_then(Value::as_i64).unwrap_or(0)
}

fn present(v: &Value, key: &str) -> bool {
    v.get(key).is_some_and(|x| !x.is_null())
}

fn strings(v: &Value, key: &str) -> Vec<String> {
    v.get(key)
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .map(|s| s.as_str().unwrap_or("").to_owned())
                .collect()
        })
        .unwrap_or_default()
}

/// A `[]string` as the minor's apimachinery prints it.
fn print_strings(list: &[String], minor: u32) -> String {
    if Change::FieldErrorJsonValues.at(minor) {
        return Value::from(list.to_vec()).to_string();
    }
    crate::go_strconv::string_slice(list)
}

fn invalid_strings(p: &FieldPath, list: &[String], minor: u32, detail: &str) -> Diagnostic {
    Diagnostic::invalid(p, Value::from(list.to_vec()), detail)
        .with_printed_value(&print_strings(list, minor))
}

const SUPPORTED_TYPES: [&str; 4] = ["ClusterIP", "ExternalName", "LoadBalancer", "NodePort"];
const PROTOCOLS: [&str; 3] = ["SCTP", "TCP", "UDP"];
const FAMILIES: [&str; 2] = ["IPv4", "IPv6"];
const FAMILY_POLICIES: [&str; 3] = ["PreferDualStack", "RequireDualStack", "SingleStack"];
const PORT_RANGE: &str = "must be between 1 and 65535, inclusive";
/// core.MaxClientIPServiceAffinitySeconds.
const MAX_AFFINITY_SECONDS: i64 = 86400;

/// SetDefaults_Service (pkg/apis/core/v1/defaults.go), on the v1 JSON.
fn default_service(svc: &mut Value) {
    let Some(spec) = svc.get_mut("spec") else {
        if let Some(m) = svc.as_object_mut() {
            m.insert("spec".into(), json!({}));
        }
        return default_service(svc);
    };
    let Some(s) = spec.as_object_mut() else {
        return;
    };
    let affinity = match s.get("sessionAffinity").and_then(Value::as_str) {
        None | Some("") => {
            s.insert("sessionAffinity".into(), json!("None"));
            "None".to_owned()
        }
        Some(a) => a.to_owned(),
    };
    if affinity == "None" {
        s.remove("sessionAffinityConfig");
    }
    if affinity == "ClientIP" {
        let has_timeout = s
            .get("sessionAffinityConfig")
            .and_then(|c| c.get("clientIP"))
            .and_then(|c| c.get("timeoutSeconds"))
            .is_some_and(|t| !t.is_null());
        if !has_timeout {
            s.insert(
                "sessionAffinityConfig".into(),
                json!({"clientIP": {"timeoutSeconds": 10800}}),
            );
        }
    }
    if s.get("type").and_then(Value::as_str).unwrap_or("").is_empty() {
        s.insert("type".into(), json!("ClusterIP"));
    }
    if let Some(Value::Array(ports)) = s.get_mut("ports") {
        for port in ports.iter_mut().filter_map(Value::as_object_mut) {
            if port
                .get("protocol")
                .and_then(Value::as_str)
                .unwrap_or("")
                .is_empty()
            {
                port.insert("protocol".into(), json!("TCP"));
            }
            let zero = match port.get("targetPort") {
                None | Some(Value::Null) => true,
                Some(Value::Number(n)) => n.as_i64() == Some(0),
                Some(Value::String(t)) => t.is_empty(),
                _ => false,
            };
            if zero {
                let p = port.get("port").and_then(Value::as_i64).unwrap_or(0);
                port.insert("targetPort".into(), json!(p));
            }
        }
    }
    let kind = s.get("type").and_then(Value::as_str).unwrap_or("").to_owned();
    let external_ips = s
        .get("externalIPs")
        .and_then(Value::as_array)
        .is_some_and(|a| !a.is_empty());
    let externally = kind == "LoadBalancer"
        || kind == "NodePort"
        || (kind == "ClusterIP" && external_ips);
    if externally
        && s.get("externalTrafficPolicy")
            .and_then(Value::as_str)
            .unwrap_or("")
            .is_empty()
    {
        s.insert("externalTrafficPolicy".into(), json!("Cluster"));
    }
    if s.get("internalTrafficPolicy").is_none_or(Value::is_null)
        && matches!(kind.as_str(), "NodePort" | "LoadBalancer" | "ClusterIP")
    {
        s.insert("internalTrafficPolicy".into(), json!("Cluster"));
    }
    if kind == "LoadBalancer" && s.get("allocateLoadBalancerNodePorts").is_none_or(Value::is_null)
    {
        s.insert("allocateLoadBalancerNodePorts".into(), json!(true));
    }
}

fn spec_mut(svc: &mut Value) -> Option<&mut Map<String, Value>> {
    svc.get_mut("spec").and_then(Value::as_object_mut)
}

/// The Service as the API server has it when `ValidateServiceCreate` runs, or the errors the
/// REST storage refuses it with first.
// Kept out of its caller: see `validate::workloads::validate_kind`.
#[inline(never)]
pub(super) fn validate(obj: &Value, ctx: &Ctx, out: &mut Findings) {
    let mut svc = obj.clone();
    if !ctx.skip_defaulting {
        default_service(&mut svc);
    }
    let minor = ctx.gates.version.minor;
    // beginCreate: normalizeClusterIPs, then allocateCreate.
    if let Some(s) = spec_mut(&mut svc) {
        let ip = s.get("clusterIP").and_then(Value::as_str).unwrap_or("");
        let ips_empty = s
            .get("clusterIPs")
            .and_then(Value::as_array)
            .is_none_or(Vec::is_empty);
        if !ip.is_empty() && ips_empty {
            let ip = ip.to_owned();
            s.insert("clusterIPs".into(), json!([ip]));
        }
    }
    if let Some(errs) = init_ip_families(&mut svc, ctx) {
        out.extend(errs);
        return;
    }
    if let Some(errs) = init_node_ports(&mut svc) {
        out.extend(errs);
        return;
    }
    // PrepareForCreate: status cleared; before 1.33 trafficDistribution dropped with its gate off.
    if let Some(m) = svc.as_object_mut() {
        m.remove("status");
    }
    if crate::features::known_at("ServiceTrafficDistribution", minor)
        && !ctx.gates.enabled("ServiceTrafficDistribution")
        && let Some(s) = spec_mut(&mut svc)
    {
        s.remove("trafficDistribution");
    }
    validate_service(&svc, ctx, minor, out);
}

fn headless(spec: &Value) -> bool {
    let ips = strings(spec, "clusterIPs");
    ips.len() == 1 && ips.first().is_some_and(|ip| ip == "None")
}

/// initIPFamilyFields up to the cluster's own families: the default ipFamilyPolicy, the
/// clusterIP fields' validation (its errors alone refuse the request), SingleStack with two
/// values. `None`: go on.
fn init_ip_families(svc: &mut Value, ctx: &Ctx) -> Option<Vec<Diagnostic>> {
    let spec = svc.get("spec")?;
    if str_of(spec, "type") == "ExternalName" {
        return None;
    }
    if !present(spec, "ipFamilyPolicy") {
        let selectorless = spec
            .get("selector")
            .and_then(Value::as_object)
            .is_none_or(Map::is_empty);
        let policy = if str_of(spec, "clusterIP") == "None" && selectorless {
            "RequireDualStack"
        } else {
            "SingleStack"
        };
        spec_mut(svc)?.insert("ipFamilyPolicy".into(), json!(policy));
    }
    let spec = svc.get("spec")?;
    let errs = cluster_ips_related(spec, ctx);
    if !errs.is_empty() {
        return Some(errs);
    }
    let mut errs = Vec::new();
    let policy = str_of(spec, "ipFamilyPolicy");
    if policy == "SingleStack" {
        let p = FieldPath::new("spec").child("ipFamilyPolicy");
        if strings(spec, "clusterIPs").len() == 2 {
            errs.push(Diagnostic::invalid(
                &p,
                policy,
                "must be 'RequireDualStack' or 'PreferDualStack' when multiple cluster IPs are specified",
            ));
        }
        if strings(spec, "ipFamilies").len() == 2 {
            errs.push(Diagnostic::invalid(
                &p,
                policy,
                "must be 'RequireDualStack' or 'PreferDualStack' when multiple IP families are specified",
            ));
        }
    }
    (!errs.is_empty()).then_some(errs)
}

/// initNodePorts within the object: a node port asked for twice is refused as taken (the
/// allocator's "provided port is already allocated"); ports of one port number share one node
/// port, allocated where none is given (its value is the cluster's pick).
fn init_node_ports(svc: &mut Value) -> Option<Vec<Diagnostic>> {
    let spec = svc.get("spec")?;
    let kind = str_of(spec, "type");
    if kind != "NodePort" && kind != "LoadBalancer" {
        return None;
    }
    let allocate = kind == "NodePort"
        || spec
            .get("allocateLoadBalancerNodePorts")
            .and_then(Value::as_bool)
            .unwrap_or(false);
    let ports: Vec<(i64, i64)> = spec
        .get("ports")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .map(|p| (int_of(p, "port"), int_of(p, "nodePort")))
                .collect()
        })
        .unwrap_or_default();
    let mut taken: Vec<i64> = Vec::new();
    // The node port each port number got; 0 in `by_port` means an allocated (unknown) one,
    // written below as a negative stand-in, one per port number.
    let mut by_port: Vec<(i64, i64)> = Vec::new();
    let mut assigned: Vec<i64> = ports.iter().map(|&(_, np)| np).collect();
    let ports_path = FieldPath::new("spec").child("ports");
    for (i, &(port, node_port)) in ports.iter().enumerate() {
        if node_port == 0 && !allocate {
            continue;
        }
        let had = by_port.iter().find(|(p, _)| *p == port).map(|&(_, np)| np);
        match had {
            None => {
                let requested = ports
                    .iter()
                    .find(|&&(p, np)| p == port && np != 0)
                    .map(|&(_, np)| np);
                match requested {
                    Some(np) => {
                        if taken.contains(&np) {
                            return Some(vec![already_allocated(&ports_path, i, np)]);
                        }
                        taken.push(np);
                        if let Some(a) = assigned.get_mut(i) {
                            *a = np;
                        }
                        by_port.push((port, np));
                    }
                    None => {
                        let stand_in = -(i as i64) - 1;
                        if let Some(a) = assigned.get_mut(i) {
                            *a = stand_in;
                        }
                        by_port.push((port, stand_in));
                    }
                }
            }
            Some(np) if node_port != np => {
                if node_port == 0 {
                    if let Some(a) = assigned.get_mut(i) {
                        *a = np;
                    }
                } else {
                    if taken.contains(&node_port) {
                        return Some(vec![already_allocated(&ports_path, i, node_port)]);
                    }
                    taken.push(node_port);
                }
            }
            Some(_) => {}
        }
    }
    if let Some(Value::Array(list)) = spec_mut(svc).and_then(|s| s.get_mut("ports")) {
        for (p, np) in list.iter_mut().zip(assigned) {
            if let Some(m) = p.as_object_mut()
                && np != 0
            {
                m.insert("nodePort".into(), json!(np));
            }
        }
    }
    None
}

fn already_allocated(ports: &FieldPath, i: usize, np: i64) -> Diagnostic {
    Diagnostic::invalid(
        &ports.index(i).child("nodePort"),
        np,
        "provided port is already allocated",
    )
}

/// ValidateServiceClusterIPsRelatedFields on create.
fn cluster_ips_related(spec: &Value, ctx: &Ctx) -> Vec<Diagnostic> {
    let minor = ctx.gates.version.minor;
    let mut out = Vec::new();
    if str_of(spec, "type") == "ExternalName" {
        return out;
    }
    let sp = FieldPath::new("spec");
    let ips_path = sp.child("clusterIPs");
    let ip = str_of(spec, "clusterIP");
    let ips = strings(spec, "clusterIPs");
    if !ip.is_empty() {
        if ips.is_empty() {
            out.push(Diagnostic::required(&ips_path, ""));
        } else if ips.first().is_some_and(|first| first != ip) {
            out.push(invalid_strings(
                &ips_path,
                &ips,
                minor,
                "first value must match `clusterIP`",
            ));
        }
    } else if !ips.is_empty() {
        out.push(invalid_strings(
            &ips_path,
            &ips,
            minor,
            "must be empty when `clusterIP` is not specified",
        ));
    }
    let families = strings(spec, "ipFamilies");
    let fp = sp.child("ipFamilies");
    for (i, f) in families.iter().enumerate() {
        if !FAMILIES.contains(&f.as_str()) {
            out.push(Diagnostic::not_supported(&fp.index(i), f.as_str(), &FAMILIES));
        }
        if families.iter().take(i).any(|g| g == f) {
            out.push(Diagnostic::duplicate(&fp.index(i), f.as_str()));
        }
    }
    if present(spec, "ipFamilyPolicy") {
        let policy = str_of(spec, "ipFamilyPolicy");
        if !FAMILY_POLICIES.contains(&policy) {
            out.push(Diagnostic::not_supported(
                &sp.child("ipFamilyPolicy"),
                policy,
                &FAMILY_POLICIES,
            ));
        }
    }
    let strict = ctx.gates.active("StrictIPCIDRValidation");
    let mut invalid_ips = false;
    for (i, v) in ips.iter().enumerate() {
        if i == 0 && v == "None" {
            if ips.len() > 1 {
                invalid_ips = true;
                out.push(invalid_strings(
                    &ips_path,
                    &ips,
                    minor,
                    "'None' must be the first and only value",
                ));
            }
            continue;
        }
        let msgs = legacy_ip_errors(v, strict);
        invalid_ips |= !msgs.is_empty();
        for m in msgs {
            out.push(Diagnostic::invalid(&ips_path.index(i), v.as_str(), m));
        }
    }
    if ips.len() > 2 {
        out.push(invalid_strings(
            &ips_path,
            &ips,
            minor,
            "may only hold up to 2 values",
        ));
    }
    if invalid_ips {
        return out;
    }
    if ips.len() > 1 {
        let parsed: Vec<netaddr::Ip> = ips
            .iter()
            .filter_map(|s| netaddr::parse_ip_sloppy(s))
            .collect();
        let v4 = parsed.iter().any(netaddr::Ip::is_v4);
        let v6 = parsed.iter().any(|ip| !ip.is_v4());
        if !(v4 && v6) {
            out.push(invalid_strings(
                &ips_path,
                &ips,
                minor,
                "may specify no more than one IP for each IP family",
            ));
        }
    }
    if !headless(spec) && !ips.is_empty() && !families.is_empty() {
        for (i, (v, family)) in ips.iter().zip(&families).enumerate() {
            let is_v6 = netaddr::parse_ip_sloppy(v).is_some_and(|ip| !ip.is_v4());
            if family == "IPv4" && is_v6 {
                out.push(Diagnostic::invalid(
                    &ips_path.index(i),
                    v.as_str(),
                    format!("expected an IPv4 value as indicated by `ipFamilies[{i}]`"),
                ));
            }
            if family == "IPv6" && !is_v6 {
                out.push(Diagnostic::invalid(
                    &ips_path.index(i),
                    v.as_str(),
                    format!("expected an IPv6 value as indicated by `ipFamilies[{i}]`"),
                ));
            }
        }
    }
    out
}

/// IsValidIPForLegacyField (1.33+) or validation.IsValidIP (before): the address's messages.
fn legacy_ip_errors(v: &str, strict: bool) -> Vec<&'static str> {
    netaddr::ip_errors(v, strict)
}

/// ValidateEndpointIP (1.33+) / ValidateNonSpecialIP (before), on an address already parsed.
pub(super) fn special_ip(v: &str, p: &FieldPath, out: &mut Findings) {
    let Some(ip) = netaddr::parse_ip_sloppy(v) else {
        return;
    };
    if ip.is_unspecified() {
        out.push(Diagnostic::invalid(
            p,
            v,
            format!("may not be unspecified ({v})"),
        ));
    }
    if ip.is_loopback() {
        out.push(Diagnostic::invalid(
            p,
            v,
            "may not be in the loopback range (127.0.0.0/8, ::1/128)",
        ));
    }
    if ip.is_link_local_unicast() {
        out.push(Diagnostic::invalid(
            p,
            v,
            "may not be in the link-local range (169.254.0.0/16, fe80::/10)",
        ));
    }
    if ip.is_link_local_multicast() {
        out.push(Diagnostic::invalid(
            p,
            v,
            "may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)",
        ));
    }
}

/// The internal core.ServicePort{Protocol, Port} key of the duplicate-port error, printed.
fn print_port_key(protocol: &str, port: i64, minor: u32) -> String {
    if Change::FieldErrorJsonValues.at(minor) {
        format!(
            "{{\"Name\":\"\",\"Protocol\":{},\"AppProtocol\":null,\"Port\":{port},\"TargetPort\":0,\"NodePort\":0}}",
            Value::from(protocol)
        )
    } else {
        format!(
            "core.ServicePort{{Name:\"\", Protocol:{}, AppProtocol:(*string)(nil), Port:{port}, TargetPort:intstr.IntOrString{{Type:0, IntVal:0, StrVal:\"\"}}, NodePort:0}}",
            super::job::go_quote(protocol)
        )
    }
}

/// validateService on create (ObjectMeta is meta.rs's).
fn validate_service(svc: &Value, ctx: &Ctx, minor: u32, out: &mut Findings) {
    let empty = json!({});
    let spec = svc.get("spec").unwrap_or(&empty);
    let sp = FieldPath::new("spec");
    let annotations = svc.get("metadata").and_then(|m| m.get("annotations"));
    let annotation = |k: &str| annotations.and_then(|a| a.get(k)).and_then(Value::as_str);
    const HINTS: &str = "service.kubernetes.io/topology-aware-hints";
    const MODE: &str = "service.kubernetes.io/topology-mode";
    if let (Some(mode), Some(hints)) = (annotation(MODE), annotation(HINTS))
        && mode != hints
    {
        out.push(Diagnostic::invalid(
            &FieldPath::new("metadata").child("annotations").key(MODE),
            mode,
            format!("must match annotations[{HINTS}] when both are specified"),
        ));
    }
    let kind = str_of(spec, "type");
    let is_headless = headless(spec);
    let ports: &[Value] = spec
        .get("ports")
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice);
    let pp = sp.child("ports");
    let ips = strings(spec, "clusterIPs");
    if ports.is_empty() && !is_headless && kind != "ExternalName" {
        out.push(Diagnostic::required(&pp, ""));
    }
    match kind {
        "LoadBalancer" | "NodePort" => {
            if is_headless {
                out.push(Diagnostic::invalid(
                    &sp.child("clusterIPs").index(0),
                    "None",
                    format!("may not be set to 'None' for {kind} services"),
                ));
            }
            // Up to 1.32, LoadBalancer Services only.
            if !Change::KubeletPortAllowed.at(minor) && kind == "LoadBalancer" {
                for (i, port) in ports.iter().enumerate() {
                    if int_of(port, "port") == 10250 {
                        out.push(Diagnostic::invalid(
                            &pp.index(i),
                            10250,
                            "may not expose port 10250 externally since it is used by kubelet",
                        ));
                    }
                }
            }
        }
        "ExternalName" => {
            if !ips.is_empty() {
                out.push(Diagnostic::forbidden(
                    &sp.child("clusterIPs"),
                    "may not be set for ExternalName services",
                ));
            }
            if !strings(spec, "ipFamilies").is_empty() {
                out.push(Diagnostic::forbidden(
                    &sp.child("ipFamilies"),
                    "may not be set for ExternalName services",
                ));
            }
            if present(spec, "ipFamilyPolicy") {
                out.push(Diagnostic::forbidden(
                    &sp.child("ipFamilyPolicy"),
                    "may not be set for ExternalName services",
                ));
            }
            let name = str_of(spec, "externalName");
            let cname = name.strip_suffix('.').unwrap_or(name);
            let p = sp.child("externalName");
            if cname.is_empty() {
                out.push(Diagnostic::required(&p, ""));
            } else {
                for m in super::names::dns1123_subdomain_errors(cname) {
                    out.push(Diagnostic::invalid(&p, cname, m));
                }
            }
        }
        _ => {}
    }
    let mut names: Vec<&str> = Vec::new();
    for (i, port) in ports.iter().enumerate() {
        service_port(port, ports.len() > 1, &mut names, &pp.index(i), minor, out);
    }
    if let Some(sel) = spec.get("selector").filter(|s| !s.is_null()) {
        selector::validate_labels(
            &selector::string_map(Some(sel)),
            &sp.child("selector"),
            minor,
            out,
        );
    }
    let affinity = str_of(spec, "sessionAffinity");
    let ap = sp.child("sessionAffinity");
    if affinity.is_empty() {
        out.push(Diagnostic::required(&ap, ""));
    } else if affinity != "ClientIP" && affinity != "None" {
        out.push(Diagnostic::not_supported(&ap, affinity, &["ClientIP", "None"]));
    }
    let cp = sp.child("sessionAffinityConfig");
    if affinity == "ClientIP" {
        client_ip_config(spec.get("sessionAffinityConfig"), &cp, out);
    } else if affinity == "None" && present(spec, "sessionAffinityConfig") {
        out.push(Diagnostic::forbidden(
            &cp,
            "must not be set when session affinity is None",
        ));
    }
    out.extend(cluster_ips_related(spec, ctx));
    let strict = ctx.gates.active("StrictIPCIDRValidation");
    let ep = sp.child("externalIPs");
    for (i, ip) in strings(spec, "externalIPs").iter().enumerate() {
        let p = ep.index(i);
        let msgs = legacy_ip_errors(ip, strict);
        if msgs.is_empty() {
            special_ip(ip, &p, out);
        } else {
            for m in msgs {
                out.push(Diagnostic::invalid(&p, ip.as_str(), m));
            }
        }
    }
    let tp = sp.child("type");
    if kind.is_empty() {
        out.push(Diagnostic::required(&tp, ""));
    } else if !SUPPORTED_TYPES.contains(&kind) {
        out.push(Diagnostic::not_supported(&tp, kind, &SUPPORTED_TYPES));
    }
    if kind == "ClusterIP" {
        for (i, port) in ports.iter().enumerate() {
            if int_of(port, "nodePort") != 0 {
                out.push(Diagnostic::forbidden(
                    &pp.index(i).child("nodePort"),
                    "may not be used when `type` is 'ClusterIP'",
                ));
            }
        }
    }
    let mut node_ports: Vec<(&str, i64)> = Vec::new();
    for (i, port) in ports.iter().enumerate() {
        let np = int_of(port, "nodePort");
        if np == 0 {
            continue;
        }
        let key = (str_of(port, "protocol"), np);
        if node_ports.contains(&key) {
            let p = pp.index(i).child("nodePort");
            out.push(if np < 0 {
                // A node port the cluster allocates: its number is the cluster's pick.
                Diagnostic::duplicate(&p, Value::Null)
                    .with_printed_value("<the node port the cluster allocates>")
            } else {
                Diagnostic::duplicate(&p, np)
            });
        }
        node_ports.push(key);
    }
    let mut seen: Vec<(&str, i64)> = Vec::new();
    for (i, port) in ports.iter().enumerate() {
        let key = (str_of(port, "protocol"), int_of(port, "port"));
        if seen.contains(&key) {
            out.push(
                Diagnostic::duplicate(&pp.index(i), json!({"protocol": key.0, "port": key.1}))
                    .with_printed_value(&print_port_key(key.0, key.1, minor)),
            );
        }
        seen.push(key);
    }
    source_ranges(svc, spec, kind, strict, out);
    if present(spec, "allocateLoadBalancerNodePorts") && kind != "LoadBalancer" {
        out.push(Diagnostic::forbidden(
            &sp.child("allocateLoadBalancerNodePorts"),
            "may only be used when `type` is 'LoadBalancer'",
        ));
    }
    if kind == "LoadBalancer" && !present(spec, "allocateLoadBalancerNodePorts") {
        // Upstream's path has no `spec.`.
        out.push(Diagnostic::required(
            &FieldPath::new("allocateLoadBalancerNodePorts"),
            "",
        ));
    }
    if present(spec, "loadBalancerClass") {
        let class = str_of(spec, "loadBalancerClass");
        let p = sp.child("loadBalancerClass");
        if kind == "LoadBalancer" {
            for m in meta::qualified_name(class, minor) {
                out.push(Diagnostic::invalid(&p, class, m));
            }
        } else {
            out.push(Diagnostic::forbidden(
                &p,
                "may only be used when `type` is 'LoadBalancer'",
            ));
        }
    }
    traffic_policies(spec, kind, out);
    if present(spec, "trafficDistribution") {
        let td = str_of(spec, "trafficDistribution");
        let supported: &[&str] = if ctx.gates.active("PreferSameTrafficDistribution")
        {
            &["PreferClose", "PreferSameZone", "PreferSameNode"]
        } else {
            &["PreferClose"]
        };
        if !supported.contains(&td) {
            out.push(Diagnostic::not_supported(
                &sp.child("trafficDistribution"),
                td,
                supported,
            ));
        }
    }
}

/// validateServicePort.
fn service_port<'a>(
    port: &'a Value,
    require_name: bool,
    names: &mut Vec<&'a str>,
    p: &FieldPath,
    minor: u32,
    out: &mut Findings,
) {
    let name = str_of(port, "name");
    if require_name && name.is_empty() {
        out.push(Diagnostic::required(&p.child("name"), ""));
    } else if !name.is_empty() {
        for m in meta::dns1123_label(name) {
            out.push(Diagnostic::invalid(&p.child("name"), name, m));
        }
        if names.contains(&name) {
            out.push(Diagnostic::duplicate(&p.child("name"), name));
        } else {
            names.push(name);
        }
    }
    let number = int_of(port, "port");
    if !(1..=65535).contains(&number) {
        out.push(Diagnostic::invalid(&p.child("port"), number, PORT_RANGE));
    }
    let protocol = str_of(port, "protocol");
    if protocol.is_empty() {
        out.push(Diagnostic::required(&p.child("protocol"), ""));
    } else if !PROTOCOLS.contains(&protocol) {
        out.push(Diagnostic::not_supported(
            &p.child("protocol"),
            protocol,
            &PROTOCOLS,
        ));
    }
    let tp = p.child("targetPort");
    match port.get("targetPort") {
        Some(Value::String(s)) => {
            for m in super::container::port_name(s) {
                out.push(Diagnostic::invalid(&tp, s.as_str(), m));
            }
        }
        other => {
            let n = other.and_then(Value::as_i64).unwrap_or(0);
            if !(1..=65535).contains(&n) {
                out.push(Diagnostic::invalid(&tp, n, PORT_RANGE));
            }
        }
    }
    if present(port, "appProtocol") {
        let ap = str_of(port, "appProtocol");
        for m in meta::qualified_name(ap, minor) {
            out.push(Diagnostic::invalid(&p.child("appProtocol"), ap, m));
        }
    }
}

/// validateClientIPAffinityConfig.
fn client_ip_config(config: Option<&Value>, p: &FieldPath, out: &mut Findings) {
    const WHEN: &str = "when session affinity type is ClientIP";
    let Some(config) = config.filter(|c| !c.is_null()) else {
        out.push(Diagnostic::required(p, WHEN));
        return;
    };
    let Some(client) = config.get("clientIP").filter(|c| !c.is_null()) else {
        out.push(Diagnostic::required(&p.child("clientIP"), WHEN));
        return;
    };
    let tp = p.child("clientIP").child("timeoutSeconds");
    let Some(t) = client.get("timeoutSeconds").and_then(Value::as_i64) else {
        out.push(Diagnostic::required(&tp, WHEN));
        return;
    };
    if t <= 0 || t > MAX_AFFINITY_SECONDS {
        out.push(Diagnostic::invalid(
            &tp,
            t,
            format!("must be greater than 0 and less than {MAX_AFFINITY_SECONDS}"),
        ));
    }
}

/// loadBalancerSourceRanges, or the annotation of the same name when the field is empty.
fn source_ranges(
    svc: &Value,
    spec: &Value,
    kind: &str,
    strict: bool,
    out: &mut Findings,
) {
    let ranges = strings(spec, "loadBalancerSourceRanges");
    if !ranges.is_empty() {
        let p = FieldPath::new("spec").child("LoadBalancerSourceRanges");
        if kind != "LoadBalancer" {
            out.push(Diagnostic::forbidden(
                &p,
                "may only be used when `type` is 'LoadBalancer'",
            ));
        }
        for (i, r) in ranges.iter().enumerate() {
            let r = r.trim_matches(GO_SPACE);
            for m in netaddr::cidr_errors(r, strict) {
                out.push(Diagnostic::invalid(&p.index(i), r, m));
            }
        }
        return;
    }
    const KEY: &str = "service.beta.kubernetes.io/load-balancer-source-ranges";
    let Some(val) = svc
        .get("metadata")
        .and_then(|m| m.get("annotations"))
        .and_then(|a| a.get(KEY))
        .and_then(Value::as_str)
    else {
        return;
    };
    let p = FieldPath::new("metadata").child("annotations").key(KEY);
    if kind != "LoadBalancer" {
        out.push(Diagnostic::forbidden(
            &p,
            "may only be used when `type` is 'LoadBalancer'",
        ));
    }
    let val = val.trim_matches(GO_SPACE);
    if !val.is_empty() {
        for r in val.split(',') {
            let r = r.trim_matches(GO_SPACE);
            for m in netaddr::cidr_errors(r, strict) {
                out.push(Diagnostic::invalid(&p, r, m));
            }
        }
    }
}

/// strings.TrimSpace's white space (unicode.IsSpace).
const GO_SPACE: &[char] = &[
    '\t', '\n', '\u{b}', '\u{c}', '\r', ' ', '\u{85}', '\u{a0}', '\u{1680}', '\u{2000}',
    '\u{2001}', '\u{2002}', '\u{2003}', '\u{2004}', '\u{2005}', '\u{2006}', '\u{2007}',
    '\u{2008}', '\u{2009}', '\u{200a}', '\u{2028}', '\u{2029}', '\u{202f}', '\u{205f}',
    '\u{3000}',
];

/// validateServiceExternalTrafficPolicy and validateServiceInternalTrafficFieldsValue.
fn traffic_policies(spec: &Value, kind: &str, out: &mut Findings) {
    let sp = FieldPath::new("spec");
    let etp = str_of(spec, "externalTrafficPolicy");
    let externally = kind == "LoadBalancer"
        || kind == "NodePort"
        || (kind == "ClusterIP" && !strings(spec, "externalIPs").is_empty());
    let ep = sp.child("externalTrafficPolicy");
    if !externally {
        if !etp.is_empty() {
            out.push(Diagnostic::invalid(
                &ep,
                etp,
                "may only be set for externally-accessible services",
            ));
        }
    } else if etp.is_empty() {
        out.push(Diagnostic::required(&ep, ""));
    } else if etp != "Cluster" && etp != "Local" {
        out.push(Diagnostic::not_supported(&ep, etp, &["Cluster", "Local"]));
    }
    let needs_health_check = kind == "LoadBalancer" && etp == "Local";
    let hp = sp.child("healthCheckNodePort");
    let hc = int_of(spec, "healthCheckNodePort");
    if !needs_health_check {
        if hc != 0 {
            out.push(Diagnostic::invalid(
                &hp,
                hc,
                "may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'",
            ));
        }
    } else if hc != 0 && !(1..=65535).contains(&hc) {
        // 0 is allocated by the cluster before validation (allocHealthCheckNodePort).
        out.push(Diagnostic::invalid(&hp, hc, PORT_RANGE));
    }
    let ip = sp.child("internalTrafficPolicy");
    if !present(spec, "internalTrafficPolicy") {
        if matches!(kind, "NodePort" | "LoadBalancer" | "ClusterIP") {
            out.push(Diagnostic::required(&ip, ""));
        }
    } else {
        let itp = str_of(spec, "internalTrafficPolicy");
        if itp != "Cluster" && itp != "Local" {
            out.push(Diagnostic::not_supported(&ip, itp, &["Cluster", "Local"]));
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::features::{FeatureGates, KubeVersion};

    fn ctx(minor: u32) -> Ctx {
        Ctx {
            gates: FeatureGates::for_version(KubeVersion::parse(&format!("1.{minor}")).unwrap()),
            ..Ctx::default()
        }
    }

    fn errs_at(spec: Value, minor: u32) -> Vec<String> {
        let obj = json!({"apiVersion": "v1", "kind": "Service",
            "metadata": {"name": "web"}, "spec": spec});
        let mut out = Findings::default();
        validate(&obj, &ctx(minor), &mut out);
        let mut m: Vec<String> = out.errors.iter().map(|d| d.message.clone()).collect();
        m.sort();
        m
    }

    fn errs(spec: Value) -> Vec<String> {
        errs_at(spec, 37)
    }

    #[test]
    fn a_plain_service_is_valid_after_defaulting() {
        assert!(errs(json!({"selector": {"app": "web"}, "ports": [{"port": 80}]})).is_empty());
        assert!(
            errs(json!({"type": "LoadBalancer", "externalTrafficPolicy": "Local",
                "ports": [{"port": 443, "targetPort": "https"}]}))
            .is_empty(),
            "healthCheckNodePort is allocated before validation"
        );
        assert!(errs(json!({"clusterIP": "None", "selector": {"app": "db"}})).is_empty());
        assert!(errs(json!({"type": "ExternalName", "externalName": "db.example.com."})).is_empty());
    }

    #[test]
    fn ports() {
        assert_eq!(
            errs(json!({"ports": [{"port": 80}, {"port": 70000, "name": "Web", "protocol": "tcp"}]})),
            [
                "spec.ports[0].name: Required value",
                "spec.ports[1].name: Invalid value: \"Web\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
                "spec.ports[1].port: Invalid value: 70000: must be between 1 and 65535, inclusive",
                "spec.ports[1].protocol: Unsupported value: \"tcp\": supported values: \"SCTP\", \"TCP\", \"UDP\"",
                "spec.ports[1].targetPort: Invalid value: 70000: must be between 1 and 65535, inclusive",
            ]
        );
        assert_eq!(
            errs(json!({"ports": [{"port": 80, "name": "a"}, {"port": 80, "name": "a"}]})),
            [
                "spec.ports[1].name: Duplicate value: \"a\"",
                "spec.ports[1]: Duplicate value: {\"Name\":\"\",\"Protocol\":\"TCP\",\"AppProtocol\":null,\"Port\":80,\"TargetPort\":0,\"NodePort\":0}",
            ]
        );
        assert_eq!(
            errs_at(json!({"ports": [{"port": 80}, {"port": 80}], "type": "NodePort"}), 31),
            [
                "spec.ports[0].name: Required value",
                "spec.ports[1].name: Required value",
                "spec.ports[1].nodePort: Duplicate value: <the node port the cluster allocates>",
                "spec.ports[1]: Duplicate value: core.ServicePort{Name:\"\", Protocol:\"TCP\", AppProtocol:(*string)(nil), Port:80, TargetPort:intstr.IntOrString{Type:0, IntVal:0, StrVal:\"\"}, NodePort:0}",
            ]
        );
    }

    #[test]
    fn node_ports() {
        assert_eq!(
            errs(json!({"ports": [{"port": 80, "nodePort": 30080}]})),
            ["spec.ports[0].nodePort: Forbidden: may not be used when `type` is 'ClusterIP'"]
        );
        // The allocator refuses the second request before validation runs.
        assert_eq!(
            errs(json!({"type": "NodePort", "ports": [
                {"name": "a", "port": 80, "nodePort": 30080},
                {"name": "b", "port": 81, "nodePort": 30080, "protocol": "nope"}]})),
            ["spec.ports[1].nodePort: Invalid value: 30080: provided port is already allocated"]
        );
        assert_eq!(
            errs_at(json!({"type": "LoadBalancer", "ports": [{"port": 10250}]}), 32),
            ["spec.ports[0]: Invalid value: 10250: may not expose port 10250 externally since it is used by kubelet"]
        );
        assert!(errs_at(json!({"type": "NodePort", "ports": [{"port": 10250}]}), 32).is_empty());
        assert!(errs_at(json!({"type": "LoadBalancer", "ports": [{"port": 10250}]}), 33).is_empty());
    }

    #[test]
    fn types_and_external_name() {
        assert_eq!(
            errs(json!({"type": "External", "ports": [{"port": 80}]})),
            ["spec.type: Unsupported value: \"External\": supported values: \"ClusterIP\", \"ExternalName\", \"LoadBalancer\", \"NodePort\""]
        );
        assert_eq!(
            errs(json!({"type": "ExternalName", "externalName": "My_DB", "clusterIP": "10.0.0.1", "ipFamilyPolicy": "SingleStack"})),
            [
                "spec.clusterIPs: Forbidden: may not be set for ExternalName services",
                "spec.externalName: Invalid value: \"My_DB\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
                "spec.ipFamilyPolicy: Forbidden: may not be set for ExternalName services",
            ]
        );
        assert_eq!(
            errs(json!({"type": "NodePort", "clusterIP": "None", "ports": [{"port": 80}]})),
            ["spec.clusterIPs[0]: Invalid value: \"None\": may not be set to 'None' for NodePort services"]
        );
    }

    #[test]
    fn cluster_ips_refused_before_validation() {
        // The REST storage's IP-family step refuses these alone: the port error is not reached.
        assert_eq!(
            errs(json!({"clusterIP": "10.0.0.300", "ports": [{"port": 0}]})),
            ["spec.clusterIPs[0]: Invalid value: \"10.0.0.300\": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"]
        );
        assert_eq!(
            errs(json!({"clusterIP": "10.0.0.1", "clusterIPs": ["10.0.0.2"], "ports": [{"port": 80}]})),
            ["spec.clusterIPs: Invalid value: [\"10.0.0.2\"]: first value must match `clusterIP`"]
        );
        assert_eq!(
            errs_at(json!({"clusterIP": "10.0.0.1", "clusterIPs": ["10.0.0.1", "10.0.0.2"], "ports": [{"port": 80}], "ipFamilyPolicy": "PreferDualStack"}), 33),
            ["spec.clusterIPs: Invalid value: []string{\"10.0.0.1\", \"10.0.0.2\"}: may specify no more than one IP for each IP family"]
        );
        assert_eq!(
            errs(json!({"clusterIP": "10.0.0.1", "clusterIPs": ["10.0.0.1", "fd00::1"], "ports": [{"port": 80}]})),
            ["spec.ipFamilyPolicy: Invalid value: \"SingleStack\": must be 'RequireDualStack' or 'PreferDualStack' when multiple cluster IPs are specified"]
        );
        assert_eq!(
            errs(json!({"ipFamilies": ["IPv4", "IPv4"], "ipFamilyPolicy": "Dual", "ports": [{"port": 80}]})),
            [
                "spec.ipFamilies[1]: Duplicate value: \"IPv4\"",
                "spec.ipFamilyPolicy: Unsupported value: \"Dual\": supported values: \"PreferDualStack\", \"RequireDualStack\", \"SingleStack\"",
            ]
        );
        assert_eq!(
            errs(json!({"clusterIP": "fd00::1", "ipFamilies": ["IPv4"], "ports": [{"port": 80}]})),
            ["spec.clusterIPs[0]: Invalid value: \"fd00::1\": expected an IPv4 value as indicated by `ipFamilies[0]`"]
        );
    }

    #[test]
    fn affinity_and_traffic() {
        assert_eq!(
            errs(json!({"ports": [{"port": 80}], "sessionAffinity": "ClientIP",
                "sessionAffinityConfig": {"clientIP": {"timeoutSeconds": 0}}})),
            ["spec.sessionAffinityConfig.clientIP.timeoutSeconds: Invalid value: 0: must be greater than 0 and less than 86400"]
        );
        assert_eq!(
            errs(json!({"ports": [{"port": 80}], "sessionAffinity": "Sticky"})),
            ["spec.sessionAffinity: Unsupported value: \"Sticky\": supported values: \"ClientIP\", \"None\""]
        );
        assert_eq!(
            errs(json!({"ports": [{"port": 80}], "externalTrafficPolicy": "Local", "internalTrafficPolicy": "Node", "healthCheckNodePort": 30000})),
            [
                "spec.externalTrafficPolicy: Invalid value: \"Local\": may only be set for externally-accessible services",
                "spec.healthCheckNodePort: Invalid value: 30000: may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'",
                "spec.internalTrafficPolicy: Unsupported value: \"Node\": supported values: \"Cluster\", \"Local\"",
            ]
        );
        assert_eq!(
            errs_at(json!({"ports": [{"port": 80}], "trafficDistribution": "PreferSameZone"}), 32),
            ["spec.trafficDistribution: Unsupported value: \"PreferSameZone\": supported values: \"PreferClose\""]
        );
    }

    #[test]
    fn addresses_and_ranges() {
        assert_eq!(
            errs(json!({"ports": [{"port": 80}], "externalIPs": ["127.0.0.1", "1.2.3"],
                "loadBalancerSourceRanges": [" 10.0.0.0/8", "10.0.0.1/33"],
                "loadBalancerClass": "example.com/lb"})),
            [
                "spec.LoadBalancerSourceRanges: Forbidden: may only be used when `type` is 'LoadBalancer'",
                "spec.LoadBalancerSourceRanges[1]: Invalid value: \"10.0.0.1/33\": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)",
                "spec.externalIPs[0]: Invalid value: \"127.0.0.1\": may not be in the loopback range (127.0.0.0/8, ::1/128)",
                "spec.externalIPs[1]: Invalid value: \"1.2.3\": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)",
                "spec.loadBalancerClass: Forbidden: may only be used when `type` is 'LoadBalancer'",
            ]
        );
    }
}
