//! What validateContainerCommon (pkg/apis/core/validation) checks of every regular and init
//! container besides its restart fields: the name (a DNS-1123 label), `image` (required),
//! `terminationMessagePolicy`, `ports` (validateContainerPorts) and `imagePullPolicy`, after the
//! v1 defaulting (SetDefaults_Container gives the pull policy, from the image's tag, and `File`;
//! SetDefaults_ContainerPort gives `TCP`), and a Pod's images without surrounding whitespace
//! (validateContainersOnlyForPod). env, envFrom, volume mounts and devices are pod_env.rs's and
//! pod_volumes.rs's; resources and resizePolicy pod_resources.rs's; left to the cluster: the
//! security context.

use super::meta;
use crate::api::Container;
use crate::diag::{Diagnostic, FieldPath, Findings};
use serde_json::Value;

const TERMINATION_MESSAGE_POLICIES: [&str; 2] = ["File", "FallbackToLogsOnError"];
/// sets.List order (sorted).
const PULL_POLICIES: [&str; 3] = ["Always", "IfNotPresent", "Never"];
const PORT_PROTOCOLS: [&str; 3] = ["SCTP", "TCP", "UDP"];

/// A string member of the container's other fields: `None` when absent or null (the defaulting
/// fills it), `Some("")` when given empty.
fn other_str<'a>(c: &'a Container, key: &str) -> Option<&'a str> {
    c.other.get(key).and_then(Value::as_str)
}

/// An enum member: Required when empty (or absent and not defaulted), NotSupported when unknown.
fn one_of(v: Option<&str>, defaulted: bool, p: &FieldPath, allowed: &[&str], out: &mut Findings) {
    match v {
        None if defaulted => {}
        None | Some("") => out.push(Diagnostic::required(p, "")),
        Some(x) if !allowed.contains(&x) => out.push(Diagnostic::not_supported(p, x, allowed)),
        Some(_) => {}
    }
}

/// validateContainerCommon, but the restart fields and what the module note leaves out.
/// `defaulted`: the v1 defaulting ran (a missing policy or protocol is then the default).
pub fn common(c: &Container, p: &FieldPath, defaulted: bool, out: &mut Findings) {
    if !c.name.is_empty() {
        for msg in meta::dns1123_label(&c.name) {
            out.push(Diagnostic::invalid(&p.child("name"), c.name.as_str(), msg));
        }
    }
    if c.image.as_deref().is_none_or(str::is_empty) {
        out.push(Diagnostic::required(&p.child("image"), ""));
    }
    one_of(
        other_str(c, "terminationMessagePolicy"),
        defaulted,
        &p.child("terminationMessagePolicy"),
        &TERMINATION_MESSAGE_POLICIES,
        out,
    );
    if let Some(ports) = c.ports.as_ref().and_then(Value::as_array) {
        container_ports(ports, &p.child("ports"), defaulted, out);
    }
    one_of(
        other_str(c, "imagePullPolicy"),
        defaulted,
        &p.child("imagePullPolicy"),
        &PULL_POLICIES,
        out,
    );
}

/// checkHostPortConflicts: a host port (by protocol, host IP and number) used twice among
/// `containers`, whose paths are `p[i]`. Upstream checks the regular containers together and each
/// init container alone, passing it as a list of one, so an init container's duplicate is
/// reported at `initContainers[0]` whichever it is; the callers do the same.
pub fn host_port_conflicts<'a>(
    containers: impl IntoIterator<Item = &'a Container>,
    p: &FieldPath,
    defaulted: bool,
    out: &mut Findings,
) {
    let mut seen: Vec<String> = Vec::new();
    for (ci, c) in containers.into_iter().enumerate() {
        let Some(ports) = c.ports.as_ref().and_then(Value::as_array) else {
            continue;
        };
        for (pi, port) in ports.iter().enumerate() {
            let host = port.get("hostPort").and_then(Value::as_i64).unwrap_or(0);
            if host == 0 {
                continue;
            }
            let protocol = match port.get("protocol").and_then(Value::as_str) {
                None if defaulted => "TCP",
                other => other.unwrap_or(""),
            };
            let ip = port.get("hostIP").and_then(Value::as_str).unwrap_or("");
            let key = format!("{protocol}/{ip}/{host}");
            if seen.contains(&key) {
                let hp = p.index(ci).child("ports").index(pi).child("hostPort");
                out.push(Diagnostic::duplicate(&hp, key.as_str()));
            } else {
                seen.push(key);
            }
        }
    }
}

/// validateContainersOnlyForPod: a Pod's (not a template's) regular and init containers may not
/// have an image with leading or trailing whitespace (strings.TrimSpace's Unicode spaces).
pub fn image_whitespace(spec: &crate::api::PodSpec, p: &FieldPath, out: &mut Findings) {
    for (list, name) in [
        (&spec.containers, "containers"),
        (&spec.init_containers, "initContainers"),
    ] {
        for (i, c) in list.iter().enumerate() {
            if let Some(img) = c.image.as_deref()
                && img.trim().len() != img.len()
            {
                out.push(Diagnostic::invalid(
                    &p.child(name).index(i).child("image"),
                    img,
                    "must not have leading or trailing whitespace",
                ));
            }
        }
    }
}

/// IsValidPortNum's message.
const PORT_RANGE: &str = "must be between 1 and 65535, inclusive";

/// validateContainerPorts.
fn container_ports(ports: &[Value], p: &FieldPath, defaulted: bool, out: &mut Findings) {
    let mut names: Vec<&str> = Vec::new();
    for (i, port) in ports.iter().enumerate() {
        let ip = p.index(i);
        let name = port.get("name").and_then(Value::as_str).unwrap_or("");
        if !name.is_empty() {
            let msgs = port_name(name);
            if !msgs.is_empty() {
                for m in msgs {
                    out.push(Diagnostic::invalid(&ip.child("name"), name, m));
                }
            } else if names.contains(&name) {
                out.push(Diagnostic::duplicate(&ip.child("name"), name));
            } else {
                names.push(name);
            }
        }
        match port
            .get("containerPort")
            .and_then(Value::as_i64)
            .unwrap_or(0)
        {
            0 => out.push(Diagnostic::required(&ip.child("containerPort"), "")),
            n if !(1..=65535).contains(&n) => out.push(Diagnostic::invalid(
                &ip.child("containerPort"),
                n,
                PORT_RANGE,
            )),
            _ => {}
        }
        let host = port.get("hostPort").and_then(Value::as_i64).unwrap_or(0);
        if host != 0 && !(1..=65535).contains(&host) {
            out.push(Diagnostic::invalid(&ip.child("hostPort"), host, PORT_RANGE));
        }
        one_of(
            port.get("protocol").and_then(Value::as_str),
            defaulted,
            &ip.child("protocol"),
            &PORT_PROTOCOLS,
            out,
        );
    }
}

/// IsValidPortName: an IANA_SVC_NAME.
pub fn port_name(port: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if port.len() > 15 {
        errs.push("must be no more than 15 characters".to_owned());
    }
    if port.is_empty()
        || !port
            .bytes()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'-')
    {
        errs.push(
            "must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)".to_owned(),
        );
    }
    if !port.bytes().any(|c| c.is_ascii_lowercase()) {
        errs.push("must contain at least one letter (a-z)".to_owned());
    }
    if port.contains("--") {
        errs.push("must not contain consecutive hyphens".to_owned());
    }
    if port.starts_with('-') || port.ends_with('-') {
        errs.push("must not begin or end with a hyphen".to_owned());
    }
    errs
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use serde_json::json;

    fn messages(c: Value, defaulted: bool) -> Vec<String> {
        let c: Container = serde_json::from_value(c).unwrap();
        let mut out = Findings::default();
        common(
            &c,
            &FieldPath::new("spec").child("containers").index(0),
            defaulted,
            &mut out,
        );
        out.errors.into_iter().map(|d| d.message).collect()
    }

    #[test]
    fn host_ports_twice() {
        let c: Container = serde_json::from_value(json!({"name": "a", "image": "i",
            "ports": [{"containerPort": 80, "hostPort": 80}, {"containerPort": 81, "hostPort": 80},
                      {"containerPort": 82, "hostPort": 80, "protocol": "UDP"}]}))
        .unwrap();
        let mut out = Findings::default();
        host_port_conflicts(
            [&c],
            &FieldPath::new("spec").child("initContainers"),
            true,
            &mut out,
        );
        let m: Vec<String> = out.errors.into_iter().map(|d| d.message).collect();
        assert_eq!(
            m,
            vec!["spec.initContainers[0].ports[1].hostPort: Duplicate value: \"TCP//80\""]
        );
    }

    #[test]
    fn image_with_surrounding_whitespace() {
        let spec: crate::api::PodSpec = serde_json::from_value(json!({
            "containers": [{"name": "a", "image": "nginx "}, {"name": "b", "image": "nginx"}],
            "initContainers": [{"name": "c", "image": "\tbusybox"}]}))
        .unwrap();
        let mut out = Findings::default();
        image_whitespace(&spec, &FieldPath::new("spec"), &mut out);
        let m: Vec<String> = out.errors.into_iter().map(|d| d.message).collect();
        assert_eq!(
            m,
            vec![
                "spec.containers[0].image: Invalid value: \"nginx \": must not have leading or trailing whitespace",
                "spec.initContainers[0].image: Invalid value: \"\\tbusybox\": must not have leading or trailing whitespace",
            ]
        );
    }

    #[test]
    fn container_fields() {
        assert!(messages(json!({"name": "web", "image": "nginx"}), true).is_empty());
        assert_eq!(
            messages(json!({"name": "web", "image": "nginx"}), false),
            vec![
                "spec.containers[0].terminationMessagePolicy: Required value",
                "spec.containers[0].imagePullPolicy: Required value",
            ]
        );
        assert_eq!(
            messages(
                json!({"name": "Web_Server", "imagePullPolicy": "Sometimes",
                       "ports": [{"containerPort": 80, "protocol": "tcp", "name": "http"},
                                 {"containerPort": 70000, "name": "http"}, {"name": "8080"}]}),
                true
            ),
            vec![
                "spec.containers[0].name: Invalid value: \"Web_Server\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
                "spec.containers[0].image: Required value",
                "spec.containers[0].ports[0].protocol: Unsupported value: \"tcp\": supported values: \"SCTP\", \"TCP\", \"UDP\"",
                "spec.containers[0].ports[1].name: Duplicate value: \"http\"",
                "spec.containers[0].ports[1].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive",
                "spec.containers[0].ports[2].name: Invalid value: \"8080\": must contain at least one letter (a-z)",
                "spec.containers[0].ports[2].containerPort: Required value",
                "spec.containers[0].imagePullPolicy: Unsupported value: \"Sometimes\": supported values: \"Always\", \"IfNotPresent\", \"Never\"",
            ]
        );
    }
}
