//! Ingress and IngressClass (networking.k8s.io/v1) on create: `ValidateIngressCreate` and
//! `ValidateIngressClass` (pkg/apis/networking/validation) after the v1 defaulting (an
//! IngressClass's `parameters.scope` becomes `Cluster`) and PrepareForCreate (an Ingress's
//! status cleared), then, for an Ingress that passed, the strategy's WarningsOnCreate. ObjectMeta
//! (a DNS-subdomain name) is meta.rs's.
//!
//! Per minor: from 1.34 a resource backend's or a parameters reference's empty `kind` or `name`
//! is a Required error without detail ([`Change::IngressRequiredDetail`]; before, "kind is
//! required") and, with RelaxedServiceNameValidation on (the gate exists from 1.34), a service
//! backend's name is a DNS-1123 label instead of a DNS-1035 one; from 1.37, with
//! DeclarativeValidationBeta on, the declarative rules for a parameters reference's empty `kind`
//! and `name` take over the handwritten errors and come after the others
//! ([`Change::IngressClassDeclarativeBeta`]; 1.36 has them as alpha rules, never shown).

use super::Ctx;
use super::container::port_name;
use super::json_read::{list, opt, opt_str, str_of, strings};
use super::meta::{
    dns1035_label, dns1123_label, dns1123_subdomain_name, domain_prefixed_path, path_segment,
};
use super::names::{dns1123_subdomain_errors, wildcard_dns1123_subdomain};
use super::netaddr;
use crate::diag::{Diagnostic, FieldPath, Findings, Origin};
use crate::versions::Change;
use serde_json::{Map, Value};

const CLASS_ANNOTATION: &str = "kubernetes.io/ingress.class";
const PATH_TYPES: [&str; 3] = ["Exact", "ImplementationSpecific", "Prefix"];
const SCOPES: [&str; 2] = ["Cluster", "Namespace"];
const MAX_CONTROLLER_LEN: usize = 250;
const GATE_RELAXED_SERVICE_NAME: &str = "RelaxedServiceNameValidation";
const GATE_DV_BETA: &str = "DeclarativeValidationBeta";

/// A host of a rule or of a TLS entry: a wildcard subdomain when it has a `*`, else a subdomain.
fn host_errors(host: &str) -> Vec<String> {
    if host.contains('*') {
        wildcard_dns1123_subdomain(host)
    } else {
        dns1123_subdomain_errors(host)
    }
}

/// What one create's checks share.
struct Check<'a> {
    minor: u32,
    relaxed_service_names: bool,
    out: &'a mut Findings,
}

impl Check<'_> {
    fn invalid(&mut self, p: &FieldPath, value: impl Into<Value>, msgs: Vec<String>) {
        let value = value.into();
        for m in msgs {
            self.out.push(Diagnostic::invalid(p, value.clone(), m));
        }
    }

    /// A typed reference's apiGroup, kind and name (validateIngressTypedLocalObjectReference, and
    /// the first half of an IngressClass's parameters check). An empty kind or name goes to
    /// `declarative` when a beta declarative rule takes it over.
    fn typed_ref(
        &mut self,
        r: &Value,
        p: &FieldPath,
        mut declarative: Option<&mut Vec<Diagnostic>>,
    ) {
        if let Some(group) = opt_str(r, "apiGroup") {
            self.invalid(&p.child("apiGroup"), group, dns1123_subdomain_errors(group));
        }
        for key in ["kind", "name"] {
            let kp = p.child(key);
            let v = str_of(r, key);
            if !v.is_empty() {
                self.invalid(&kp, v, path_segment(v));
            } else if let Some(d) = declarative.as_deref_mut() {
                d.push(Diagnostic::required(&kp, ""));
            } else if Change::IngressRequiredDetail.at(self.minor) {
                self.out.push(Diagnostic::required(&kp, ""));
            } else {
                self.out
                    .push(Diagnostic::required(&kp, format!("{key} is required")));
            }
        }
    }
}

/// An Ingress on create (after ObjectMeta, which meta.rs checks).
// Kept out of its caller: see `validate::workloads::validate_kind`.
#[inline(never)]
pub(super) fn validate_ingress(obj: &Value, ctx: &Ctx, out: &mut Findings) {
    let before = out.errors.len();
    let mut c = Check {
        minor: ctx.gates.version.minor,
        relaxed_service_names: ctx.gates.enabled(GATE_RELAXED_SERVICE_NAME),
        out,
    };
    let empty = Value::Object(Map::new());
    let spec = opt(obj, "spec").unwrap_or(&empty);
    ingress_spec(spec, &mut c);
    let class_name = opt_str(spec, "ingressClassName");
    let annotation = obj
        .pointer("/metadata/annotations")
        .and_then(|a| a.get(CLASS_ANNOTATION));
    if let (Some(a), Some(name)) = (annotation, class_name) {
        let a = a.as_str().unwrap_or("");
        if a != name {
            c.out.push(Diagnostic::invalid(
                &FieldPath::new("annotations").child(CLASS_ANNOTATION),
                a,
                "must match `ingressClassName` when both are specified",
            ));
        }
    }
    if out.errors.len() == before && annotation.is_some() && class_name.is_none() {
        // rest.BeforeCreate asks for the warnings only of an object that passed, metadata too.
        if super::meta::passes("networking.k8s.io", "Ingress", obj, ctx) {
            out.push(
                Diagnostic::lint(
                    "deprecated-ingress-class-annotation",
                    &FieldPath::new("metadata")
                        .child("annotations")
                        .key(CLASS_ANNOTATION),
                    format!(
                        "annotation {CLASS_ANNOTATION:?} is deprecated, please use 'spec.ingressClassName' instead"
                    ),
                )
                .with_origin(Origin::KubeApiserver),
            );
        }
    }
}

/// ValidateIngressSpec.
fn ingress_spec(spec: &Value, c: &mut Check) {
    let sp = FieldPath::new("spec");
    let rules = list(spec, "rules");
    let default_backend = opt(spec, "defaultBackend");
    if rules.is_empty() && default_backend.is_none() {
        let given = opt(spec, "rules").is_some();
        let (value, printed) = match (Change::FieldErrorJsonValues.at(c.minor), given) {
            (true, true) => (Value::Array(Vec::new()), "[]"),
            (true, false) => (Value::Null, "null"),
            (false, true) => (Value::Array(Vec::new()), "[]networking.IngressRule{}"),
            (false, false) => (Value::Null, "[]networking.IngressRule(nil)"),
        };
        c.out.push(Diagnostic::invalid_printed(
            &sp,
            value,
            printed,
            "either `defaultBackend` or `rules` must be specified",
        ));
    }
    if let Some(b) = default_backend {
        backend(b, &sp.child("defaultBackend"), c);
    }
    let rp = sp.child("rules");
    for (i, rule) in rules.iter().enumerate() {
        let host = str_of(rule, "host");
        if !host.is_empty() {
            let hp = rp.index(i).child("host");
            if netaddr::parse_ip_sloppy(host).is_some() {
                c.out.push(Diagnostic::invalid(
                    &hp,
                    host,
                    "must be a DNS name, not an IP address",
                ));
            }
            c.invalid(&hp, host, host_errors(host));
        }
        if let Some(http) = opt(rule, "http") {
            let pp = rp.index(i).child("http").child("paths");
            let paths = list(http, "paths");
            if paths.is_empty() {
                c.out.push(Diagnostic::required(&pp, ""));
            }
            for (j, path) in paths.iter().enumerate() {
                http_path(path, &pp.index(j), c);
            }
        }
    }
    let tp = sp.child("tls");
    for (i, tls) in list(spec, "tls").iter().enumerate() {
        for (j, host) in strings(tls, "hosts").into_iter().enumerate() {
            c.invalid(
                &tp.index(i).child("hosts").index(j),
                host,
                host_errors(host),
            );
        }
        let secret = str_of(tls, "secretName");
        if !secret.is_empty() {
            c.invalid(
                &tp.index(i).child("secretName"),
                secret,
                dns1123_subdomain_name(secret, false),
            );
        }
    }
    if let Some(name) = opt_str(spec, "ingressClassName") {
        c.invalid(
            &sp.child("ingressClassName"),
            name,
            dns1123_subdomain_name(name, false),
        );
    }
}

/// validateHTTPIngressPath.
fn http_path(path: &Value, p: &FieldPath, c: &mut Check) {
    let Some(path_type) = opt_str(path, "pathType") else {
        c.out.push(Diagnostic::required(
            &p.child("pathType"),
            "pathType must be specified",
        ));
        return;
    };
    let value = str_of(path, "path");
    let vp = p.child("path");
    let absolute = |c: &mut Check| {
        if !value.starts_with('/') {
            c.out
                .push(Diagnostic::invalid(&vp, value, "must be an absolute path"));
        }
    };
    match path_type {
        "Exact" | "Prefix" => {
            absolute(c);
            for seq in ["//", "/./", "/../", "%2f", "%2F"] {
                if value.contains(seq) {
                    c.out.push(Diagnostic::invalid(
                        &vp,
                        value,
                        format!("must not contain '{seq}'"),
                    ));
                }
            }
            for suffix in ["/..", "/."] {
                if value.ends_with(suffix) {
                    c.out.push(Diagnostic::invalid(
                        &vp,
                        value,
                        format!("cannot end with '{suffix}'"),
                    ));
                }
            }
        }
        "ImplementationSpecific" => {
            if !value.is_empty() {
                absolute(c);
            }
        }
        other => c.out.push(Diagnostic::not_supported(
            &p.child("pathType"),
            other,
            &PATH_TYPES,
        )),
    }
    let empty = Value::Object(Map::new());
    backend(
        opt(path, "backend").unwrap_or(&empty),
        &p.child("backend"),
        c,
    );
}

/// validateIngressBackend.
fn backend(b: &Value, p: &FieldPath, c: &mut Check) {
    match (opt(b, "resource"), opt(b, "service")) {
        (Some(_), Some(_)) => c.out.push(Diagnostic::invalid(
            p,
            "",
            "cannot set both resource and service backends",
        )),
        (Some(r), None) => c.typed_ref(r, &p.child("resource"), None),
        (None, Some(s)) => {
            let sp = p.child("service");
            let name = str_of(s, "name");
            if name.is_empty() {
                c.out.push(Diagnostic::required(&sp.child("name"), ""));
            } else if c.relaxed_service_names {
                c.invalid(&sp.child("name"), name, dns1123_label(name));
            } else {
                c.invalid(&sp.child("name"), name, dns1035_label(name));
            }
            let empty = Value::Object(Map::new());
            let port = opt(s, "port").unwrap_or(&empty);
            let port_name_value = str_of(port, "name");
            let number = port.get("number").and_then(Value::as_i64).unwrap_or(0);
            let pp = sp.child("port");
            match (port_name_value.is_empty(), number != 0) {
                (false, true) => c.out.push(Diagnostic::invalid(
                    p,
                    "",
                    "cannot set both port name & port number",
                )),
                (false, false) => c.invalid(
                    &pp.child("name"),
                    port_name_value,
                    port_name(port_name_value),
                ),
                (true, true) if !(1..=65535).contains(&number) => c.out.push(Diagnostic::invalid(
                    &pp.child("number"),
                    number,
                    "must be between 1 and 65535, inclusive",
                )),
                (true, true) => {}
                (true, false) => c
                    .out
                    .push(Diagnostic::required(p, "port name or number is required")),
            }
        }
        (None, None) => c.out.push(Diagnostic::invalid(
            p,
            "",
            "resource or service backend is required",
        )),
    }
}

/// An IngressClass on create (after ObjectMeta, which meta.rs checks).
// Kept out of its caller: see `validate::workloads::validate_kind`.
#[inline(never)]
pub(super) fn validate_ingress_class(obj: &Value, ctx: &Ctx, out: &mut Findings) {
    let minor = ctx.gates.version.minor;
    let dv_beta = Change::IngressClassDeclarativeBeta.at(minor) && ctx.gates.enabled(GATE_DV_BETA);
    let mut c = Check {
        minor,
        relaxed_service_names: false,
        out,
    };
    let empty = Value::Object(Map::new());
    let spec = opt(obj, "spec").unwrap_or(&empty);
    let sp = FieldPath::new("spec");
    let controller = str_of(spec, "controller");
    if controller.len() > MAX_CONTROLLER_LEN {
        c.out.push(Diagnostic::too_long(
            &sp.child("controller"),
            "",
            MAX_CONTROLLER_LEN,
        ));
    }
    c.out
        .extend(domain_prefixed_path(&sp.child("controller"), controller));
    let Some(params) = opt(spec, "parameters") else {
        return;
    };
    let pp = sp.child("parameters");
    let mut declarative = Vec::new();
    c.typed_ref(params, &pp, dv_beta.then_some(&mut declarative));
    // SetDefaults_IngressClass gives a parameters reference without scope `Cluster`.
    let scope = opt_str(params, "scope").unwrap_or("Cluster");
    let np = pp.child("namespace");
    let namespace = opt_str(params, "namespace");
    match scope {
        "Namespace" => match namespace {
            None => c.out.push(Diagnostic::required(
                &np,
                "`parameters.scope` is set to 'Namespace'",
            )),
            Some(ns) => c.invalid(&np, ns, dns1123_label(ns)),
        },
        "Cluster" => {
            if namespace.is_some() {
                c.out.push(Diagnostic::forbidden(
                    &np,
                    "`parameters.scope` is set to 'Cluster'",
                ));
            }
        }
        other => c.out.push(Diagnostic::not_supported(
            &pp.child("scope"),
            other,
            &SCOPES,
        )),
    }
    c.out.errors.extend(declarative);
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn run_kind(
        kind: &str,
        obj: Value,
        minor: u32,
        gates: &[(&str, bool)],
    ) -> (Vec<String>, Vec<String>) {
        let c = Ctx::at(minor, gates);
        let mut out = Findings::default();
        if kind == "Ingress" {
            validate_ingress(&obj, &c, &mut out);
        } else {
            validate_ingress_class(&obj, &c, &mut out);
        }
        let m = |v: &[Diagnostic]| v.iter().map(|d| d.message.clone()).collect();
        (m(&out.errors), m(&out.warnings))
    }

    fn ingress(spec: Value, annotations: Value) -> Value {
        json!({"apiVersion": "networking.k8s.io/v1", "kind": "Ingress",
            "metadata": {"name": "web", "namespace": "default", "annotations": annotations},
            "spec": spec})
    }

    fn class(spec: Value) -> Value {
        json!({"apiVersion": "networking.k8s.io/v1", "kind": "IngressClass",
            "metadata": {"name": "nginx"}, "spec": spec})
    }

    #[test]
    fn an_ingress_needs_rules_or_a_default_backend_printed_per_minor() {
        let (e, _) = run_kind("Ingress", ingress(json!({}), json!({})), 33, &[]);
        assert_eq!(
            e,
            [
                "spec: Invalid value: []networking.IngressRule(nil): either `defaultBackend` or `rules` must be specified"
            ]
        );
        let (e, _) = run_kind("Ingress", ingress(json!({"rules": []}), json!({})), 33, &[]);
        assert_eq!(
            e,
            [
                "spec: Invalid value: []networking.IngressRule{}: either `defaultBackend` or `rules` must be specified"
            ]
        );
        let (e, _) = run_kind("Ingress", ingress(json!({}), json!({})), 34, &[]);
        assert_eq!(
            e,
            ["spec: Invalid value: null: either `defaultBackend` or `rules` must be specified"]
        );
    }

    #[test]
    fn rules_hosts_paths_and_backends() {
        let spec = json!({"rules": [
            {"host": "10.0.0.1", "http": {"paths": []}},
            {"host": "*.Example.com", "http": {"paths": [
                {"path": "api", "backend": {"service": {"name": "api", "port": {"number": 80}}}},
                {"path": "/a//b/.", "pathType": "Prefix", "backend": {"service": {"name": "1api", "port": {"name": "http", "number": 80}}}},
                {"path": "x", "pathType": "ImplementationSpecific", "backend": {}},
                {"pathType": "Regex", "backend": {"resource": {"kind": "", "name": "a/b"}, "service": {"name": "s"}}},
                {"path": "", "pathType": "ImplementationSpecific", "backend": {"service": {"name": "s", "port": {"number": 70000}}}},
                {"path": "/", "pathType": "Exact", "backend": {"resource": {"apiGroup": "Example.com", "kind": "", "name": ".."}}}
            ]}},
            {"host": "a.*.com"}
        ]});
        let (e, _) = run_kind("Ingress", ingress(spec.clone(), json!({})), 33, &[]);
        let p = "spec.rules[1].http.paths";
        let wildcard = |v: &str| {
            format!(
                "spec.rules{v}: Invalid value: {}: a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must consist of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character (e.g. '*.example.com', regex used for validation is '\\*\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
                if v == "[1].host" {
                    "\"*.Example.com\""
                } else {
                    "\"a.*.com\""
                }
            )
        };
        assert_eq!(
            e,
            [
                "spec.rules[0].host: Invalid value: \"10.0.0.1\": must be a DNS name, not an IP address".to_owned(),
                "spec.rules[0].http.paths: Required value".to_owned(),
                wildcard("[1].host"),
                format!("{p}[0].pathType: Required value: pathType must be specified"),
                format!("{p}[1].path: Invalid value: \"/a//b/.\": must not contain '//'"),
                format!("{p}[1].path: Invalid value: \"/a//b/.\": cannot end with '/.'"),
                format!("{p}[1].backend.service.name: Invalid value: \"1api\": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"),
                format!("{p}[1].backend: Invalid value: \"\": cannot set both port name & port number"),
                format!("{p}[2].path: Invalid value: \"x\": must be an absolute path"),
                format!("{p}[2].backend: Invalid value: \"\": resource or service backend is required"),
                format!("{p}[3].pathType: Unsupported value: \"Regex\": supported values: \"Exact\", \"ImplementationSpecific\", \"Prefix\""),
                format!("{p}[3].backend: Invalid value: \"\": cannot set both resource and service backends"),
                format!("{p}[4].backend.service.port.number: Invalid value: 70000: must be between 1 and 65535, inclusive"),
                format!("{p}[5].backend.resource.apiGroup: Invalid value: \"Example.com\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"),
                format!("{p}[5].backend.resource.kind: Required value: kind is required"),
                format!("{p}[5].backend.resource.name: Invalid value: \"..\": may not be '..'"),
                wildcard("[2].host"),
            ]
        );
        // 1.34: the Required errors lose their detail; with RelaxedServiceNameValidation on a
        // service name is a DNS-1123 label.
        let (e, _) = run_kind(
            "Ingress",
            ingress(spec, json!({})),
            34,
            &[("RelaxedServiceNameValidation", true)],
        );
        assert!(e.contains(&format!("{p}[5].backend.resource.kind: Required value")));
        assert!(!e.iter().any(|m| m.contains("1api")));
    }

    #[test]
    fn tls_class_name_and_the_class_annotation() {
        let spec = json!({"defaultBackend": {"service": {"name": "web", "port": {"name": "http"}}},
            "tls": [{"hosts": ["*.example.com", "Bad_Host"], "secretName": "Tls"}],
            "ingressClassName": "nginx"});
        let (e, w) = run_kind(
            "Ingress",
            ingress(spec, json!({"kubernetes.io/ingress.class": "traefik"})),
            37,
            &[],
        );
        assert_eq!(e.len(), 3, "{e:?}");
        assert!(e.first().is_some_and(|m| m.starts_with(
            "spec.tls[0].hosts[1]: Invalid value: \"Bad_Host\": a lowercase RFC 1123 subdomain"
        )));
        assert!(e.get(1).is_some_and(|m| m.starts_with(
            "spec.tls[0].secretName: Invalid value: \"Tls\": a lowercase RFC 1123 subdomain"
        )));
        assert_eq!(
            e.get(2).map(String::as_str).unwrap_or_default(),
            "annotations.kubernetes.io/ingress.class: Invalid value: \"traefik\": must match `ingressClassName` when both are specified"
        );
        assert!(w.is_empty());
        let ok = json!({"defaultBackend": {"service": {"name": "web", "port": {"number": 80}}}});
        let (e, w) = run_kind(
            "Ingress",
            ingress(ok, json!({"kubernetes.io/ingress.class": "traefik"})),
            31,
            &[],
        );
        assert!(e.is_empty(), "{e:?}");
        assert_eq!(
            w,
            [
                "annotation \"kubernetes.io/ingress.class\" is deprecated, please use 'spec.ingressClassName' instead"
            ]
        );
    }

    #[test]
    fn ingress_class_controller_and_parameters() {
        let (e, _) = run_kind("IngressClass", class(json!({})), 37, &[]);
        assert_eq!(e, ["spec.controller: Required value"]);
        let long = format!("example.com/{}", "a".repeat(250));
        let (e, _) = run_kind(
            "IngressClass",
            class(
                json!({"controller": long, "parameters": {"kind": "", "name": "p", "namespace": "x"}}),
            ),
            33,
            &[],
        );
        assert_eq!(
            e,
            [
                "spec.controller: Too long: may not be more than 250 bytes",
                "spec.parameters.kind: Required value: kind is required",
                "spec.parameters.namespace: Forbidden: `parameters.scope` is set to 'Cluster'",
            ]
        );
        let spec = json!({"controller": "example.com/ingress", "parameters": {"kind": "", "name": "", "scope": "Namespace", "namespace": "Bad"}});
        let (e, _) = run_kind("IngressClass", class(spec.clone()), 37, &[]);
        assert_eq!(e.len(), 3, "{e:?}");
        assert!(e.first().is_some_and(|m| m.starts_with(
            "spec.parameters.namespace: Invalid value: \"Bad\": a lowercase RFC 1123 label"
        )));
        assert_eq!(
            e.get(1..).unwrap_or_default(),
            [
                "spec.parameters.kind: Required value",
                "spec.parameters.name: Required value"
            ]
        );
        let (e, _) = run_kind(
            "IngressClass",
            class(spec),
            37,
            &[("DeclarativeValidationBeta", false)],
        );
        assert!(
            e.first()
                .is_some_and(|m| m.starts_with("spec.parameters.kind: Required value")),
            "{e:?}"
        );
        let (e, _) = run_kind(
            "IngressClass",
            class(
                json!({"controller": "example.com/i", "parameters": {"kind": "K", "name": "n", "scope": "Global"}}),
            ),
            35,
            &[],
        );
        assert_eq!(
            e,
            [
                "spec.parameters.scope: Unsupported value: \"Global\": supported values: \"Cluster\", \"Namespace\""
            ]
        );
    }
}
