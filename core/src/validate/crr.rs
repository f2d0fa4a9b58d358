//! OpenKruise ContainerRecreateRequest admission: the mutating webhook
//! (`pkg/webhook/containerrecreaterequest/mutating/crr_mutating_handler.go`), which also rejects
//! (one error at a time, an HTTP code and a message), then, on CREATE, the v1beta1 CRD schema
//! checks the API server applies after mutation.
//!
//! The webhook decodes the object into Go structs, so its notion of equality and its output
//! follow Go's `encoding/json`: unknown fields vanish, a missing non-pointer field reads as its zero
//! value, `omitempty` fields at their zero value are not written back. [`GoSpec`] models that.

use super::Ctx;
use crate::api::{ContainerRecreateRequest, Pod};
use crate::diag::{Diagnostic, FieldPath, Findings, Origin, Severity};
use crate::features::FeatureGates;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

pub const LABEL_POD_UID: &str = "crr.apps.kruise.io/pod-uid";
pub const LABEL_NODE_NAME: &str = "crr.apps.kruise.io/node-name";
pub const LABEL_ACTIVE: &str = "crr.apps.kruise.io/active";
pub const ANNOTATION_UNREADY_ACQUIRED: &str = "crr.apps.kruise.io/unready-acquired";
pub const VIRTUAL_KUBELET_LABEL_KEY: &str = "type";
pub const VIRTUAL_KUBELET_LABEL_VALUE: &str = "virtual-kubelet";
/// Pod condition set by Kruise's sidecar terminator.
pub const SIDECAR_TERMINATED: &str = "SidecarTerminated";
const MIN_DEADLINE_SECONDS: i64 = 3;

/// Lint codes (stable).
pub mod lint {
    pub const INJECTED_LABEL: &str = "crr-injected-label";
    pub const NEGATIVE_UNCHECKED: &str = "crr-negative-value-accepted";
    pub const STATUS_IGNORED: &str = "crr-status-ignored";
    pub const NEEDS_POD: &str = "crr-needs-pod";
}

// ---------------------------------------------------------------------------------------------
// The Go view of the spec

/// A decoding failure, as the webhook's decoder reports it (HTTP 400).
#[derive(Debug, Clone, PartialEq)]
pub struct DecodeError {
    pub field: String,
    pub message: String,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct GoProbe {
    pub exec: Option<Value>,
    pub http_get: Option<Value>,
    pub tcp_socket: Option<Value>,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct GoContainer {
    pub name: String,
    pub pre_stop: Option<GoProbe>,
    /// None is Go's nil slice; `Some(vec![])` an empty one (`ports: []`).
    pub ports: Option<Vec<Value>>,
    pub status_context: Option<(String, i32)>,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct GoStrategy {
    pub failure_policy: String,
    pub ordered_recreate: bool,
    pub force_recreate: bool,
    pub termination_grace_period_seconds: Option<i64>,
    pub unready_grace_period_seconds: Option<i64>,
    pub min_started_seconds: i32,
}

/// `ContainerRecreateRequestSpec` as the webhook decodes it (v1alpha1 and v1beta1 agree).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct GoSpec {
    pub pod_name: String,
    pub containers: Option<Vec<GoContainer>>,
    pub strategy: Option<GoStrategy>,
    pub active_deadline_seconds: Option<i64>,
    pub ttl_seconds_after_finished: Option<i32>,
}

fn json_kind(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(_) => "bool".into(),
        Value::Number(n) => format!("number {n}"),
        Value::String(_) => "string".into(),
        Value::Array(_) => "array".into(),
        Value::Object(_) => "object".into(),
    }
}

struct Dec {
    go_struct: &'static str,
    path: String,
}

impl Dec {
    fn err(&self, key: &str, v: &Value, go_type: &str) -> DecodeError {
        let field = format!("{}.{key}", self.path);
        DecodeError {
            message: format!(
                "json: cannot unmarshal {} into Go struct field {}.{field} of type {go_type}",
                json_kind(v),
                self.go_struct
            ),
            field,
        }
    }
    fn get<'v>(&self, m: &'v Map<String, Value>, key: &str) -> Option<&'v Value> {
        m.get(key).filter(|v| !v.is_null())
    }
    fn string(
        &self,
        m: &Map<String, Value>,
        key: &str,
        go_type: &str,
    ) -> Result<Option<String>, DecodeError> {
        match self.get(m, key) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(v) => Err(self.err(key, v, go_type)),
        }
    }
    fn boolean(&self, m: &Map<String, Value>, key: &str) -> Result<bool, DecodeError> {
        match self.get(m, key) {
            None => Ok(false),
            Some(Value::Bool(b)) => Ok(*b),
            Some(v) => Err(self.err(key, v, "bool")),
        }
    }
    fn int(
        &self,
        m: &Map<String, Value>,
        key: &str,
        bits32: bool,
    ) -> Result<Option<i64>, DecodeError> {
        let go_type = if bits32 { "int32" } else { "int64" };
        match self.get(m, key) {
            None => Ok(None),
            Some(v @ Value::Number(n)) => {
                let i = n.as_i64().ok_or_else(|| self.err(key, v, go_type))?;
                if bits32 && i32::try_from(i).is_err() {
                    return Err(self.err(key, v, go_type));
                }
                Ok(Some(i))
            }
            Some(v) => Err(self.err(key, v, go_type)),
        }
    }
    fn object<'v>(
        &self,
        m: &'v Map<String, Value>,
        key: &str,
        go_type: &str,
    ) -> Result<Option<&'v Map<String, Value>>, DecodeError> {
        match self.get(m, key) {
            None => Ok(None),
            Some(Value::Object(o)) => Ok(Some(o)),
            Some(v) => Err(self.err(key, v, go_type)),
        }
    }
    fn child(&self, go_struct: &'static str, key: &str) -> Dec {
        Dec {
            go_struct,
            path: format!("{}.{key}", self.path),
        }
    }
}

fn i32_of(v: i64) -> i32 {
    i32::try_from(v).unwrap_or(0)
}

impl GoSpec {
    /// Decodes `spec` (the value under the object's `spec` key) as the webhook does.
    pub fn decode(spec: Option<&Value>) -> Result<GoSpec, DecodeError> {
        let empty = Map::new();
        let m = match spec {
            None | Some(Value::Null) => &empty,
            Some(Value::Object(m)) => m,
            Some(v) => {
                return Err(DecodeError {
                    field: "spec".into(),
                    message: format!(
                        "json: cannot unmarshal {} into Go struct field ContainerRecreateRequest.spec of type ContainerRecreateRequestSpec",
                        json_kind(v)
                    ),
                });
            }
        };
        let d = Dec {
            go_struct: "ContainerRecreateRequestSpec",
            path: "spec".into(),
        };
        let pod_name = d.string(m, "podName", "string")?.unwrap_or_default();
        let containers = match d.get(m, "containers") {
            None => None,
            Some(Value::Array(items)) => {
                let mut out = Vec::with_capacity(items.len());
                for (i, item) in items.iter().enumerate() {
                    let cd = Dec {
                        go_struct: "ContainerRecreateRequestContainer",
                        path: format!("spec.containers[{i}]"),
                    };
                    let cm = match item {
                        Value::Null => &empty,
                        Value::Object(o) => o,
                        v => {
                            return Err(d.err(
                                &format!("containers[{i}]"),
                                v,
                                "ContainerRecreateRequestContainer",
                            ));
                        }
                    };
                    out.push(decode_container(&cd, cm)?);
                }
                Some(out)
            }
            Some(v) => return Err(d.err("containers", v, "[]ContainerRecreateRequestContainer")),
        };
        let strategy = match d.object(m, "strategy", "ContainerRecreateRequestStrategy")? {
            None => None,
            Some(sm) => {
                let sd = d.child("ContainerRecreateRequestStrategy", "strategy");
                Some(GoStrategy {
                    failure_policy: sd
                        .string(
                            sm,
                            "failurePolicy",
                            "ContainerRecreateRequestFailurePolicyType",
                        )?
                        .unwrap_or_default(),
                    ordered_recreate: sd.boolean(sm, "orderedRecreate")?,
                    force_recreate: sd.boolean(sm, "forceRecreate")?,
                    termination_grace_period_seconds: sd.int(
                        sm,
                        "terminationGracePeriodSeconds",
                        false,
                    )?,
                    unready_grace_period_seconds: sd.int(sm, "unreadyGracePeriodSeconds", false)?,
                    min_started_seconds: i32_of(
                        sd.int(sm, "minStartedSeconds", true)?.unwrap_or(0),
                    ),
                })
            }
        };
        Ok(GoSpec {
            pod_name,
            containers,
            strategy,
            active_deadline_seconds: d.int(m, "activeDeadlineSeconds", false)?,
            ttl_seconds_after_finished: d.int(m, "ttlSecondsAfterFinished", true)?.map(i32_of),
        })
    }

    /// Go's `json.Marshal` of the spec (omitempty fields at their zero value left out).
    pub fn to_json(&self) -> Value {
        let mut m = Map::new();
        m.insert("podName".into(), Value::from(self.pod_name.clone()));
        m.insert(
            "containers".into(),
            match &self.containers {
                None => Value::Null,
                Some(cs) => Value::Array(cs.iter().map(GoContainer::to_json).collect()),
            },
        );
        if let Some(s) = &self.strategy {
            let mut sm = Map::new();
            if !s.failure_policy.is_empty() {
                sm.insert(
                    "failurePolicy".into(),
                    Value::from(s.failure_policy.clone()),
                );
            }
            if s.ordered_recreate {
                sm.insert("orderedRecreate".into(), Value::Bool(true));
            }
            if s.force_recreate {
                sm.insert("forceRecreate".into(), Value::Bool(true));
            }
            if let Some(v) = s.termination_grace_period_seconds {
                sm.insert("terminationGracePeriodSeconds".into(), Value::from(v));
            }
            if let Some(v) = s.unready_grace_period_seconds {
                sm.insert("unreadyGracePeriodSeconds".into(), Value::from(v));
            }
            if s.min_started_seconds != 0 {
                sm.insert(
                    "minStartedSeconds".into(),
                    Value::from(s.min_started_seconds),
                );
            }
            m.insert("strategy".into(), Value::Object(sm));
        }
        if let Some(v) = self.active_deadline_seconds {
            m.insert("activeDeadlineSeconds".into(), Value::from(v));
        }
        if let Some(v) = self.ttl_seconds_after_finished {
            m.insert("ttlSecondsAfterFinished".into(), Value::from(v));
        }
        Value::Object(m)
    }
}

fn decode_container(d: &Dec, m: &Map<String, Value>) -> Result<GoContainer, DecodeError> {
    let name = d.string(m, "name", "string")?.unwrap_or_default();
    let pre_stop = match d.object(m, "preStop", "ProbeHandler")? {
        None => None,
        Some(pm) => {
            let pd = d.child("ProbeHandler", "preStop");
            let field = |k: &str, t: &str| -> Result<Option<Value>, DecodeError> {
                Ok(pd.object(pm, k, t)?.map(|o| Value::Object(o.clone())))
            };
            Some(GoProbe {
                exec: field("exec", "ExecAction")?,
                http_get: field("httpGet", "HTTPGetAction")?,
                tcp_socket: field("tcpSocket", "TCPSocketAction")?,
            })
        }
    };
    let ports = match d.get(m, "ports") {
        None => None,
        Some(Value::Array(a)) => Some(a.clone()),
        Some(v) => return Err(d.err("ports", v, "[]v1.ContainerPort")),
    };
    let status_context = match d.object(
        m,
        "statusContext",
        "ContainerRecreateRequestContainerContext",
    )? {
        None => None,
        Some(sm) => {
            let sd = d.child("ContainerRecreateRequestContainerContext", "statusContext");
            Some((
                sd.string(sm, "containerID", "string")?.unwrap_or_default(),
                i32_of(sd.int(sm, "restartCount", true)?.unwrap_or(0)),
            ))
        }
    };
    Ok(GoContainer {
        name,
        pre_stop,
        ports,
        status_context,
    })
}

impl GoContainer {
    fn to_json(&self) -> Value {
        let mut m = Map::new();
        m.insert("name".into(), Value::from(self.name.clone()));
        if let Some(p) = &self.pre_stop {
            let mut pm = Map::new();
            for (k, v) in [
                ("exec", &p.exec),
                ("httpGet", &p.http_get),
                ("tcpSocket", &p.tcp_socket),
            ] {
                if let Some(v) = v {
                    pm.insert(k.into(), v.clone());
                }
            }
            m.insert("preStop".into(), Value::Object(pm));
        }
        if let Some(ports) = self.ports.as_ref().filter(|p| !p.is_empty()) {
            m.insert("ports".into(), Value::Array(ports.clone()));
        }
        if let Some((id, rc)) = &self.status_context {
            let mut sm = Map::new();
            sm.insert("containerID".into(), Value::from(id.clone()));
            sm.insert("restartCount".into(), Value::from(*rc));
            m.insert("statusContext".into(), Value::Object(sm));
        }
        Value::Object(m)
    }
}

// ---------------------------------------------------------------------------------------------
// The webhook

/// A rejection: HTTP code, message, and restartkit's field for line numbers.
#[derive(Debug, Clone, PartialEq)]
pub struct Rejection {
    pub code: u16,
    pub field: FieldPath,
    pub message: String,
}

fn reject(code: u16, field: FieldPath, message: impl Into<String>) -> Rejection {
    Rejection {
        code,
        field,
        message: message.into(),
    }
}

fn spec_path() -> FieldPath {
    FieldPath::new("spec")
}

/// CREATE checks 1 to 7 (before the Pod is read), applying the mutations they make.
pub fn create_checks_before_pod(spec: &mut GoSpec) -> Result<(), Rejection> {
    let sp = spec_path();
    if spec.pod_name.is_empty() {
        return Err(reject(400, sp.child("podName"), "podName can not be empty"));
    }
    let strategy = spec.strategy.get_or_insert_with(GoStrategy::default);
    if spec.containers.as_ref().is_none_or(Vec::is_empty) {
        return Err(reject(
            400,
            sp.child("containers"),
            "containers list can not be null",
        ));
    }
    if spec
        .active_deadline_seconds
        .is_some_and(|d| d < MIN_DEADLINE_SECONDS)
    {
        return Err(reject(
            400,
            sp.child("activeDeadlineSeconds"),
            format!("activeDeadlineSeconds can not be less than {MIN_DEADLINE_SECONDS}s"),
        ));
    }
    let stp = sp.child("strategy");
    if strategy
        .termination_grace_period_seconds
        .is_some_and(|v| v < 0)
    {
        return Err(reject(
            400,
            stp.child("terminationGracePeriodSeconds"),
            "terminationGracePeriodSeconds must be non-negative integer",
        ));
    }
    if strategy.unready_grace_period_seconds.is_some_and(|v| v < 0) {
        return Err(reject(
            400,
            stp.child("unreadyGracePeriodSeconds"),
            "unreadyGracePeriodSeconds must be non-negative integer",
        ));
    }
    match strategy.failure_policy.as_str() {
        "" => strategy.failure_policy = "Fail".to_owned(),
        "Fail" | "Ignore" => {}
        other => {
            return Err(reject(
                400,
                stp.child("failurePolicy"),
                format!("unknown failurePolicy {other}"),
            ));
        }
    }
    Ok(())
}

/// The per-container checks that need no Pod (13 and 14), for container `i` given the names
/// seen before it.
fn container_static_check(c: &GoContainer, i: usize, seen: &[&str]) -> Result<(), Rejection> {
    let cp = spec_path().child("containers").index(i);
    if seen.contains(&c.name.as_str()) {
        return Err(reject(
            400,
            cp.child("name"),
            format!("can not recreate {} multi times", c.name),
        ));
    }
    let set = if c.pre_stop.is_some() {
        Some("preStop")
    } else if c.ports.is_some() {
        Some("ports")
    } else if c.status_context.is_some() {
        Some("statusContext")
    } else {
        None
    };
    if let Some(f) = set {
        return Err(reject(
            400,
            cp.child(f),
            "preStop, ports, statusContext in container are ready-only fields",
        ));
    }
    Ok(())
}

/// `kubecontroller.IsPodActive`.
fn pod_active(pod: &Pod) -> bool {
    let phase = pod
        .status
        .as_ref()
        .and_then(|s| s.phase.as_deref())
        .unwrap_or("");
    phase != "Succeeded" && phase != "Failed" && pod.metadata.deletion_timestamp.is_none()
}

fn terminated_by_sidecar_terminator(pod: &Pod) -> bool {
    pod.status
        .as_ref()
        .is_some_and(|s| s.conditions.iter().any(|c| c.type_ == SIDECAR_TERMINATED))
}

/// CREATE checks 8 to 19 and the injection: `pod`/`node` are what the webhook's client finds
/// (None: not found). Returns the labels to add.
pub fn create_checks_with_pod(
    spec: &mut GoSpec,
    pod: Option<&Pod>,
    node: Option<&Value>,
) -> Result<Vec<(String, String)>, Rejection> {
    let sp = spec_path();
    let Some(pod) = pod else {
        return Err(reject(
            400,
            sp.child("podName"),
            format!("no found Pod named {}", spec.pod_name),
        ));
    };
    let node_name = pod.spec.node_name.clone().unwrap_or_default();
    if !pod_active(pod) && !terminated_by_sidecar_terminator(pod) {
        return Err(reject(
            400,
            sp.child("podName"),
            "not allowed to recreate containers in an inactive Pod",
        ));
    } else if node_name.is_empty() {
        return Err(reject(
            400,
            sp.child("podName"),
            "not allowed to recreate containers in a pending Pod",
        ));
    }
    let Some(node) = node else {
        return Err(reject(
            400,
            sp.child("podName"),
            format!("failed to get Node {node_name}: nodes \"{node_name}\" not found"),
        ));
    };
    let mut labels = vec![
        (LABEL_NODE_NAME.to_owned(), node_name),
        (
            LABEL_POD_UID.to_owned(),
            pod.metadata.uid.clone().unwrap_or_default(),
        ),
    ];
    let node_label = node
        .get("metadata")
        .and_then(|m| m.get("labels"))
        .and_then(|l| l.get(VIRTUAL_KUBELET_LABEL_KEY))
        .and_then(Value::as_str);
    if node_label == Some(VIRTUAL_KUBELET_LABEL_VALUE) {
        labels.push((
            VIRTUAL_KUBELET_LABEL_KEY.to_owned(),
            VIRTUAL_KUBELET_LABEL_VALUE.to_owned(),
        ));
    }
    if let Some(s) = spec
        .strategy
        .as_mut()
        .filter(|s| s.termination_grace_period_seconds.is_none())
    {
        s.termination_grace_period_seconds = pod.spec.termination_grace_period_seconds;
    }
    let statuses = pod
        .status
        .as_ref()
        .map(|s| s.container_statuses.as_slice())
        .unwrap_or_default();
    let mut seen: Vec<String> = Vec::new();
    for (i, c) in spec.containers.iter_mut().flatten().enumerate() {
        let cp = sp.child("containers").index(i);
        let seen_ref: Vec<&str> = seen.iter().map(String::as_str).collect();
        container_static_check(c, i, &seen_ref)?;
        let Some(pc) = pod
            .spec
            .init_containers
            .iter()
            .chain(&pod.spec.containers)
            .find(|p| p.name == c.name)
        else {
            return Err(reject(
                400,
                cp.child("name"),
                format!("container {} not found in Pod", c.name),
            ));
        };
        let Some(st) = statuses.iter().find(|s| s.name == c.name) else {
            return Err(reject(
                400,
                cp.child("name"),
                format!("not found {} containerStatus in Pod Status", c.name),
            ));
        };
        let cid = st.container_id.clone().unwrap_or_default();
        if cid.is_empty() {
            return Err(reject(
                400,
                cp.child("name"),
                format!(
                    "no containerID in {} containerStatus, maybe the container has not been initialized",
                    c.name
                ),
            ));
        }
        if let Some(ps) = pc
            .lifecycle
            .as_ref()
            .and_then(|l| l.get("preStop"))
            .filter(|p| !p.is_null())
        {
            let part = |k: &str| ps.get(k).filter(|v| !v.is_null()).cloned();
            c.pre_stop = Some(GoProbe {
                exec: part("exec"),
                http_get: part("httpGet"),
                tcp_socket: part("tcpSocket"),
            });
        }
        if c.pre_stop.as_ref().is_some_and(|p| p.http_get.is_some()) {
            c.ports = pc.ports.as_ref().and_then(Value::as_array).cloned();
        }
        c.status_context = Some((cid, st.restart_count));
        seen.push(c.name.clone());
    }
    Ok(labels)
}

/// The v1beta1 CRD schema checks on fields the webhook leaves alone (applied after mutation).
pub fn v1beta1_schema_errors(spec: &GoSpec) -> Vec<Diagnostic> {
    let sp = spec_path();
    let mut out = Vec::new();
    let mut min0 = |p: FieldPath, v: Option<i64>| {
        if let Some(v) = v.filter(|v| *v < 0) {
            let detail = format!(
                "{} in body should be greater than or equal to 0",
                p.as_str()
            );
            out.push(Diagnostic::invalid(&p, v, detail));
        }
    };
    min0(
        sp.child("activeDeadlineSeconds"),
        spec.active_deadline_seconds,
    );
    if let Some(s) = &spec.strategy {
        let stp = sp.child("strategy");
        min0(
            stp.child("minStartedSeconds"),
            Some(i64::from(s.min_started_seconds)),
        );
        min0(
            stp.child("terminationGracePeriodSeconds"),
            s.termination_grace_period_seconds,
        );
        min0(
            stp.child("unreadyGracePeriodSeconds"),
            s.unready_grace_period_seconds,
        );
    }
    min0(
        sp.child("ttlSecondsAfterFinished"),
        spec.ttl_seconds_after_finished.map(i64::from),
    );
    if let Some(fp) = spec
        .strategy
        .as_ref()
        .map(|s| s.failure_policy.as_str())
        .filter(|f| !f.is_empty() && *f != "Fail" && *f != "Ignore")
    {
        out.push(Diagnostic::not_supported(
            &sp.child("strategy").child("failurePolicy"),
            fp,
            &["Fail", "Ignore"],
        ));
    }
    out
}

// ---------------------------------------------------------------------------------------------
// crrValidate op

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CrrValidateInput {
    /// The ContainerRecreateRequest (API JSON).
    pub object: Value,
    /// `CREATE` (default) or `UPDATE`.
    #[serde(default)]
    pub operation: Option<String>,
    /// The stored object, for UPDATE.
    #[serde(default)]
    pub old_object: Option<Value>,
    /// The Pod named by `spec.podName`, as the webhook would read it (absent: not found).
    #[serde(default)]
    pub pod: Option<Value>,
    /// The Pod's Node (absent: not found).
    #[serde(default)]
    pub node: Option<Value>,
    /// The version of the requested resource, `v1alpha1` or `v1beta1` (the webhook routes on it);
    /// default: the version of `object.apiVersion`.
    #[serde(default)]
    pub resource_version: Option<String>,
    #[serde(default)]
    pub kubernetes_version: Option<String>,
    /// Kruise gates (`KruiseDaemon`) and any others.
    #[serde(default)]
    pub feature_gates: Option<BTreeMap<String, bool>>,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CrrValidateOutput {
    pub valid: bool,
    pub errors: Vec<Diagnostic>,
    /// 200 when allowed; the webhook's code (400, 403, 500) or 422 for schema errors.
    pub http_code: u16,
    /// The object after the mutating webhook (only when the request is allowed).
    pub mutated_object: Option<Value>,
    /// The resource version the request was routed as.
    pub resource_version: String,
}

fn labels_of(obj: &Value) -> BTreeMap<String, String> {
    obj.get("metadata")
        .and_then(|m| m.get("labels"))
        .and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .map(|(k, v)| (k.clone(), v.as_str().unwrap_or("").to_owned()))
                .collect()
        })
        .unwrap_or_default()
}

fn annotation(obj: &Value, key: &str) -> String {
    obj.get("metadata")
        .and_then(|m| m.get("annotations"))
        .and_then(|a| a.get(key))
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_owned()
}

fn rejected(r: Rejection, version: String) -> CrrValidateOutput {
    CrrValidateOutput {
        valid: false,
        errors: vec![Diagnostic::plain(
            Origin::KruiseWebhook,
            &r.field,
            r.message,
        )],
        http_code: r.code,
        mutated_object: None,
        resource_version: version,
    }
}

fn decode_spec(obj: &Value) -> Result<GoSpec, Rejection> {
    if !obj.is_object() {
        return Err(reject(
            400,
            FieldPath::root(),
            "json: cannot unmarshal non-object into Go value of type ContainerRecreateRequest",
        ));
    }
    GoSpec::decode(obj.get("spec")).map_err(|e| reject(400, FieldPath::new(&e.field), e.message))
}

/// The UPDATE branch of the handler.
pub fn update_check(obj: &Value, old: &Value, version: &str) -> Result<(), Rejection> {
    let spec = decode_spec(obj)?;
    let old_spec = decode_spec(old)?;
    if spec != old_spec {
        return Err(reject(
            403,
            spec_path(),
            "spec of ContainerRecreateRequest is immutable",
        ));
    }
    let (nl, ol) = (labels_of(obj), labels_of(old));
    for key in [LABEL_POD_UID, LABEL_NODE_NAME] {
        if nl.get(key).map_or("", String::as_str) != ol.get(key).map_or("", String::as_str) {
            return Err(reject(
                403,
                FieldPath::new("metadata").child("labels").key(key),
                format!("not allowed to update immutable label {key}"),
            ));
        }
    }
    if version != "v1beta1" {
        let old_a = annotation(old, ANNOTATION_UNREADY_ACQUIRED);
        if !old_a.is_empty() && annotation(obj, ANNOTATION_UNREADY_ACQUIRED) != old_a {
            return Err(reject(
                403,
                FieldPath::new("metadata")
                    .child("annotations")
                    .key(ANNOTATION_UNREADY_ACQUIRED),
                format!("not allowed to update immutable annotation {ANNOTATION_UNREADY_ACQUIRED}"),
            ));
        }
    }
    Ok(())
}

pub fn run(i: CrrValidateInput) -> Result<CrrValidateOutput, Diagnostic> {
    let (gates, _) =
        FeatureGates::resolve(i.kubernetes_version.as_deref(), i.feature_gates.as_ref())?;
    let version = i.resource_version.clone().unwrap_or_else(|| {
        i.object
            .get("apiVersion")
            .and_then(Value::as_str)
            .and_then(|a| a.rsplit_once('/'))
            .map_or("v1alpha1", |(_, v)| v)
            .to_owned()
    });
    let operation = i.operation.clone().unwrap_or_else(|| "CREATE".to_owned());
    if !gates.enabled("KruiseDaemon") {
        return Ok(rejected(
            reject(
                403,
                FieldPath::root(),
                "feature-gate KruiseDaemon is not enabled",
            ),
            version,
        ));
    }
    match operation.as_str() {
        "UPDATE" => {
            let Some(old) = &i.old_object else {
                return Err(Diagnostic::request(
                    "invalid-input",
                    "input.oldObject",
                    "input.oldObject is required for UPDATE",
                ));
            };
            Ok(match update_check(&i.object, old, &version) {
                Err(r) => rejected(r, version),
                Ok(()) => CrrValidateOutput {
                    valid: true,
                    errors: vec![],
                    http_code: 200,
                    mutated_object: Some(i.object.clone()),
                    resource_version: version,
                },
            })
        }
        "CREATE" => {
            let pod = match &i.pod {
                None => None,
                Some(v) => Some(super::decode_at::<Pod>(v, &FieldPath::new("pod")).map_err(
                    |mut d| {
                        d.field = format!("input.{}", d.field);
                        d.code = Some("invalid-input".to_owned());
                        d
                    },
                )?),
            };
            // The webhook's client reads the Pod by namespace and name.
            let pod = pod.filter(|p| {
                let want = i
                    .object
                    .get("spec")
                    .and_then(|s| s.get("podName"))
                    .and_then(Value::as_str)
                    .unwrap_or("");
                let ns = i
                    .object
                    .get("metadata")
                    .and_then(|m| m.get("namespace"))
                    .and_then(Value::as_str)
                    .unwrap_or("");
                p.metadata.name_or_empty() == want
                    && (ns.is_empty()
                        || p.metadata.namespace_or_empty().is_empty()
                        || p.metadata.namespace_or_empty() == ns)
            });
            let node = i.node.as_ref().filter(|n| {
                let want = pod
                    .as_ref()
                    .and_then(|p| p.spec.node_name.as_deref())
                    .unwrap_or("");
                n.get("metadata")
                    .and_then(|m| m.get("name"))
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    == want
            });
            Ok(create(&i.object, pod.as_ref(), node, version))
        }
        other => Err(Diagnostic::request(
            "invalid-input",
            "input.operation",
            format!(
                "input.operation {other:?}: the webhook is registered for CREATE and UPDATE only"
            ),
        )),
    }
}

fn create(
    obj: &Value,
    pod: Option<&Pod>,
    node: Option<&Value>,
    version: String,
) -> CrrValidateOutput {
    let mut spec = match decode_spec(obj) {
        Ok(s) => s,
        Err(r) => return rejected(r, version),
    };
    if let Err(r) = create_checks_before_pod(&mut spec) {
        return rejected(r, version);
    }
    let labels = match create_checks_with_pod(&mut spec, pod, node) {
        Ok(l) => l,
        Err(r) => return rejected(r, version),
    };
    let mut mutated = obj.clone();
    if let Some(m) = mutated.as_object_mut() {
        let meta = m
            .entry("metadata")
            .or_insert_with(|| Value::Object(Map::new()));
        if !meta.is_object() {
            *meta = Value::Object(Map::new());
        }
        if let Some(meta) = meta.as_object_mut() {
            let l = meta
                .entry("labels")
                .or_insert_with(|| Value::Object(Map::new()));
            if !l.is_object() {
                *l = Value::Object(Map::new());
            }
            if let Some(l) = l.as_object_mut() {
                l.insert(LABEL_ACTIVE.to_owned(), Value::from("true"));
                for (k, v) in labels {
                    l.insert(k, Value::from(v));
                }
            }
        }
        m.insert("spec".to_owned(), spec.to_json());
    }
    let schema = if version == "v1beta1" {
        v1beta1_schema_errors(&spec)
    } else {
        vec![]
    };
    if schema.is_empty() {
        CrrValidateOutput {
            valid: true,
            errors: vec![],
            http_code: 200,
            mutated_object: Some(mutated),
            resource_version: version,
        }
    } else {
        CrrValidateOutput {
            valid: false,
            errors: schema,
            http_code: 422,
            mutated_object: None,
            resource_version: version,
        }
    }
}

// ---------------------------------------------------------------------------------------------
// A CRR in a manifest file

/// The checks that need no Pod or Node (a CRR in a manifest file). Webhook rejections that are
/// certain whatever the Pod are errors (the first one only, as the webhook stops there); the
/// Pod-dependent checks become an info note.
pub fn validate_crr_manifest(crr: &ContainerRecreateRequest, ctx: &Ctx, out: &mut Findings) {
    let version = crr
        .api_version
        .as_deref()
        .and_then(|a| a.rsplit_once('/'))
        .map_or("", |(_, v)| v);
    if version != "v1alpha1" && version != "v1beta1" {
        let p = FieldPath::new("apiVersion");
        out.push(Diagnostic::plain(
            Origin::KubeApiserver,
            &p,
            format!("no matches for kind \"ContainerRecreateRequest\" in version \"apps.kruise.io/{version}\" (served: v1alpha1, v1beta1)"),
        ));
        return;
    }
    if !ctx.gates.enabled("KruiseDaemon") {
        out.push(Diagnostic::plain(
            Origin::KruiseWebhook,
            &FieldPath::root(),
            "feature-gate KruiseDaemon is not enabled",
        ));
        return;
    }
    manifest_lints(crr, version, out);
    let spec_value = match serde_json::to_value(&crr.spec) {
        Ok(v) => v,
        Err(e) => {
            out.push(Diagnostic::request(
                "internal",
                "spec",
                format!("cannot read the spec: {e}"),
            ));
            return;
        }
    };
    let mut spec = match GoSpec::decode(Some(&spec_value)) {
        Ok(s) => s,
        Err(e) => {
            out.push(Diagnostic::plain(
                Origin::KruiseWebhook,
                &FieldPath::new(&e.field),
                e.message,
            ));
            return;
        }
    };
    if let Err(r) = create_checks_before_pod(&mut spec) {
        out.push(Diagnostic::plain(
            Origin::KruiseWebhook,
            &r.field,
            r.message,
        ));
        return;
    }
    // Whatever the Pod, a repeated name or a read-only field is rejected (if the Pod checks pass,
    // these are; if not, the request is rejected anyway).
    let mut seen: Vec<&str> = Vec::new();
    for (i, c) in spec.containers.iter().flatten().enumerate() {
        if let Err(r) = container_static_check(c, i, &seen) {
            out.push(Diagnostic::plain(
                Origin::KruiseWebhook,
                &r.field,
                r.message,
            ));
            return;
        }
        seen.push(c.name.as_str());
    }
    if version == "v1beta1" {
        out.extend(v1beta1_schema_errors(&spec));
    }
    let names: Vec<&str> = spec
        .containers
        .iter()
        .flatten()
        .map(|c| c.name.as_str())
        .collect();
    out.push(
        Diagnostic::lint(
            lint::NEEDS_POD,
            &FieldPath::new("spec").child("podName"),
            format!(
                "on create the webhook also checks the Pod {:?}: it must exist in the namespace, be active (or terminated by the sidecar terminator) and scheduled, its Node must exist, and each of {:?} must be a container of the Pod with a containerID in status.containerStatuses (sidecar init containers have none there and are always rejected)",
                spec.pod_name, names
            ),
        )
        .with_severity(Severity::Info),
    );
}

fn manifest_lints(crr: &ContainerRecreateRequest, version: &str, out: &mut Findings) {
    let lp = FieldPath::new("metadata").child("labels");
    for key in [LABEL_POD_UID, LABEL_NODE_NAME, LABEL_ACTIVE] {
        if crr.metadata.label(key).is_some() {
            out.push(Diagnostic::lint(
                lint::INJECTED_LABEL,
                &lp.key(key),
                format!("label {key} is set by the Kruise webhook on create; the value given here is overwritten"),
            ));
        }
    }
    if crr.status.is_some() {
        out.push(Diagnostic::lint(
            lint::STATUS_IGNORED,
            &FieldPath::new("status"),
            "status is ignored on create (status subresource)",
        ));
    }
    if version == "v1alpha1" {
        let s = &crr.spec;
        if let Some(v) = s
            .strategy
            .as_ref()
            .and_then(|s| s.min_started_seconds)
            .filter(|v| *v < 0)
        {
            out.push(Diagnostic::lint(
                lint::NEGATIVE_UNCHECKED,
                &FieldPath::new("spec").child("strategy").child("minStartedSeconds"),
                format!("minStartedSeconds {v} is accepted by v1alpha1 (no schema minimum) and behaves like 0; v1beta1 rejects it"),
            ));
        }
        if let Some(v) = s.ttl_seconds_after_finished.filter(|v| *v < 0) {
            out.push(Diagnostic::lint(
                lint::NEGATIVE_UNCHECKED,
                &FieldPath::new("spec").child("ttlSecondsAfterFinished"),
                format!("ttlSecondsAfterFinished {v} is accepted by v1alpha1 (no schema minimum): the CRR is deleted as soon as it completes; v1beta1 rejects it"),
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]
    use super::*;
    use serde_json::json;

    fn crr(spec: Value) -> Value {
        json!({"apiVersion": "apps.kruise.io/v1beta1", "kind": "ContainerRecreateRequest", "metadata": {"name": "c", "namespace": "default"}, "spec": spec})
    }
    fn pod() -> Value {
        json!({"metadata": {"name": "pod-0", "namespace": "default", "uid": "uid-0"},
            "spec": {"nodeName": "node-1", "initContainers": [{"name": "side", "restartPolicy": "Always"}],
                "containers": [{"name": "app", "ports": [{"containerPort": 80}], "lifecycle": {"preStop": {"httpGet": {"port": 80, "path": "/q"}}}}, {"name": "b"}]},
            "status": {"phase": "Running", "containerStatuses": [
                {"name": "app", "containerID": "containerd://a", "restartCount": 2}, {"name": "b", "containerID": "containerd://b", "restartCount": 0}],
                "initContainerStatuses": [{"name": "side", "containerID": "containerd://s"}]}})
    }
    fn node(labels: Value) -> Value {
        json!({"metadata": {"name": "node-1", "labels": labels}})
    }
    fn input(object: Value, pod: Option<Value>, node: Option<Value>) -> CrrValidateInput {
        CrrValidateInput {
            object,
            operation: None,
            old_object: None,
            pod,
            node,
            resource_version: None,
            kubernetes_version: None,
            feature_gates: None,
        }
    }
    fn go(i: CrrValidateInput) -> CrrValidateOutput {
        run(i).unwrap()
    }
    fn msg(o: &CrrValidateOutput) -> (u16, String) {
        (
            o.http_code,
            o.errors
                .first()
                .map(|e| e.message.clone())
                .unwrap_or_default(),
        )
    }
    fn ok_spec() -> Value {
        json!({"podName": "pod-0", "containers": [{"name": "b"}]})
    }
    fn create_with(spec: Value) -> (u16, String) {
        msg(&go(input(crr(spec), Some(pod()), Some(node(json!({}))))))
    }

    #[test]
    fn create_valid_mutates() {
        let o = go(input(crr(ok_spec()), Some(pod()), Some(node(json!({})))));
        assert!(o.valid, "{:?}", o.errors);
        assert_eq!(o.http_code, 200);
        let m = o.mutated_object.unwrap();
        assert_eq!(
            m["metadata"]["labels"],
            json!({LABEL_ACTIVE: "true", LABEL_NODE_NAME: "node-1", LABEL_POD_UID: "uid-0"})
        );
        assert_eq!(
            m["spec"],
            json!({"podName": "pod-0", "containers": [{"name": "b", "statusContext": {"containerID": "containerd://b", "restartCount": 0}}], "strategy": {"failurePolicy": "Fail"}})
        );
    }

    #[test]
    fn prestop_and_ports_copied_from_pod() {
        let o = go(input(
            crr(
                json!({"podName": "pod-0", "containers": [{"name": "app"}], "strategy": {"failurePolicy": "Ignore", "orderedRecreate": false, "minStartedSeconds": 0}}),
            ),
            Some(pod()),
            Some(node(json!({}))),
        ));
        let c = &o.mutated_object.unwrap()["spec"];
        assert_eq!(
            c["containers"][0]["preStop"],
            json!({"httpGet": {"port": 80, "path": "/q"}})
        );
        assert_eq!(c["containers"][0]["ports"], json!([{"containerPort": 80}]));
        assert_eq!(
            c["containers"][0]["statusContext"]["restartCount"],
            json!(2)
        );
        // Go's omitempty drops false/0; the policy given is kept.
        assert_eq!(c["strategy"], json!({"failurePolicy": "Ignore"}));
    }

    #[test]
    fn virtual_kubelet_and_grace_period() {
        let mut p = pod();
        p["spec"]["terminationGracePeriodSeconds"] = json!(45);
        let o = go(input(
            crr(ok_spec()),
            Some(p.clone()),
            Some(node(json!({"type": "virtual-kubelet"}))),
        ));
        let m = o.mutated_object.unwrap();
        assert_eq!(m["metadata"]["labels"]["type"], json!("virtual-kubelet"));
        assert_eq!(
            m["spec"]["strategy"]["terminationGracePeriodSeconds"],
            json!(45)
        );
        let mut s = ok_spec();
        s["strategy"] = json!({"terminationGracePeriodSeconds": 5});
        let o = go(input(crr(s), Some(p), Some(node(json!({"type": "other"})))));
        let m = o.mutated_object.unwrap();
        assert_eq!(
            m["spec"]["strategy"]["terminationGracePeriodSeconds"],
            json!(5)
        );
        assert!(m["metadata"]["labels"].get("type").is_none());
    }

    #[test]
    fn gate_off_is_403() {
        let mut i = input(crr(ok_spec()), Some(pod()), Some(node(json!({}))));
        i.feature_gates = Some([("KruiseDaemon".to_owned(), false)].into_iter().collect());
        assert_eq!(
            msg(&go(i)),
            (403, "feature-gate KruiseDaemon is not enabled".into())
        );
    }

    #[test]
    fn decode_errors_are_400() {
        let (code, m) = create_with(
            json!({"podName": "pod-0", "containers": [{"name": "b"}], "activeDeadlineSeconds": "x"}),
        );
        assert_eq!(code, 400);
        assert_eq!(
            m,
            "json: cannot unmarshal string into Go struct field ContainerRecreateRequestSpec.spec.activeDeadlineSeconds of type int64"
        );
        let (code, m) = create_with(
            json!({"podName": "pod-0", "containers": [{"name": "b"}], "strategy": {"minStartedSeconds": 1.5}}),
        );
        assert_eq!(code, 400);
        assert!(
            m.contains("number 1.5") && m.contains("of type int32"),
            "{m}"
        );
    }

    #[test]
    fn create_checks_in_order() {
        let cases = [
            (
                json!({"containers": [{"name": "b"}]}),
                "podName can not be empty",
            ),
            (
                json!({"podName": "pod-0", "containers": []}),
                "containers list can not be null",
            ),
            (
                json!({"podName": "pod-0", "containers": [{"name": "b"}], "activeDeadlineSeconds": 2, "strategy": {"failurePolicy": "Bogus"}}),
                "activeDeadlineSeconds can not be less than 3s",
            ),
            (
                json!({"podName": "pod-0", "containers": [{"name": "b"}], "strategy": {"terminationGracePeriodSeconds": -1, "unreadyGracePeriodSeconds": -1}}),
                "terminationGracePeriodSeconds must be non-negative integer",
            ),
            (
                json!({"podName": "pod-0", "containers": [{"name": "b"}], "strategy": {"unreadyGracePeriodSeconds": -1}}),
                "unreadyGracePeriodSeconds must be non-negative integer",
            ),
            (
                json!({"podName": "pod-0", "containers": [{"name": "b"}], "strategy": {"failurePolicy": "Bogus"}}),
                "unknown failurePolicy Bogus",
            ),
            (
                json!({"podName": "pod-0", "containers": [{"name": "b"}, {"name": "b"}]}),
                "can not recreate b multi times",
            ),
            (
                json!({"podName": "pod-0", "containers": [{"name": "b", "preStop": {}}]}),
                "preStop, ports, statusContext in container are ready-only fields",
            ),
            (
                json!({"podName": "pod-0", "containers": [{"name": "b", "ports": []}]}),
                "preStop, ports, statusContext in container are ready-only fields",
            ),
            (
                json!({"podName": "pod-0", "containers": [{"name": "nope"}]}),
                "container nope not found in Pod",
            ),
            (
                json!({"podName": "pod-0", "containers": [{"name": "side"}]}),
                "not found side containerStatus in Pod Status",
            ),
        ];
        for (spec, want) in cases {
            assert_eq!(create_with(spec.clone()), (400, want.to_owned()), "{spec}");
        }
        // A deadline of exactly 3 passes.
        assert!(go(input(crr(json!({"podName": "pod-0", "containers": [{"name": "b"}], "activeDeadlineSeconds": 3})), Some(pod()), Some(node(json!({}))))).valid);
        // null fields read as absent.
        assert!(
            go(input(
                crr(json!({"podName": "pod-0", "containers": [{"name": "b", "ports": null}]})),
                Some(pod()),
                Some(node(json!({})))
            ))
            .valid
        );
    }

    #[test]
    fn duplicate_detected_after_first_passes() {
        // The first occurrence of b passes checks 14-19; the second fails as a duplicate, but an
        // unknown container before it fails first.
        assert_eq!(
            create_with(json!({"podName": "pod-0", "containers": [{"name": "x"}, {"name": "x"}]})),
            (400, "container x not found in Pod".into())
        );
    }

    #[test]
    fn pod_and_node_checks() {
        let spec = ok_spec();
        assert_eq!(
            msg(&go(input(crr(spec.clone()), None, None))),
            (400, "no found Pod named pod-0".into())
        );
        let mut other_ns = pod();
        other_ns["metadata"]["namespace"] = json!("kube-system");
        assert_eq!(
            msg(&go(input(crr(spec.clone()), Some(other_ns), None))).1,
            "no found Pod named pod-0"
        );
        let mut done = pod();
        done["status"]["phase"] = json!("Succeeded");
        assert_eq!(
            msg(&go(input(
                crr(spec.clone()),
                Some(done.clone()),
                Some(node(json!({})))
            ))),
            (
                400,
                "not allowed to recreate containers in an inactive Pod".into()
            )
        );
        let mut deleting = pod();
        deleting["metadata"]["deletionTimestamp"] = json!("2026-01-01T00:00:00Z");
        assert_eq!(
            msg(&go(input(
                crr(spec.clone()),
                Some(deleting),
                Some(node(json!({})))
            )))
            .1,
            "not allowed to recreate containers in an inactive Pod"
        );
        // Terminated by the sidecar terminator: allowed past this check (any status).
        done["status"]["conditions"] = json!([{"type": "SidecarTerminated", "status": "False"}]);
        assert!(go(input(crr(spec.clone()), Some(done), Some(node(json!({}))))).valid);
        let mut pending = pod();
        pending["spec"]["nodeName"] = json!("");
        assert_eq!(
            msg(&go(input(
                crr(spec.clone()),
                Some(pending),
                Some(node(json!({})))
            ))),
            (
                400,
                "not allowed to recreate containers in a pending Pod".into()
            )
        );
        assert_eq!(
            msg(&go(input(crr(spec.clone()), Some(pod()), None))),
            (
                400,
                "failed to get Node node-1: nodes \"node-1\" not found".into()
            )
        );
        let wrong_node = json!({"metadata": {"name": "node-2"}});
        assert_eq!(
            msg(&go(input(crr(spec), Some(pod()), Some(wrong_node)))).0,
            400
        );
    }

    #[test]
    fn no_container_id() {
        let mut p = pod();
        p["status"]["containerStatuses"][1]["containerID"] = json!("");
        let o = go(input(crr(ok_spec()), Some(p), Some(node(json!({})))));
        assert_eq!(
            msg(&o),
            (
                400,
                "no containerID in b containerStatus, maybe the container has not been initialized"
                    .into()
            )
        );
        assert_eq!(o.errors[0].field, "spec.containers[0].name");
        assert!(o.errors[0].error_type.is_none());
        assert_eq!(o.errors[0].origin, Origin::KruiseWebhook);
    }

    #[test]
    fn v1beta1_schema_after_mutation() {
        let s = json!({"podName": "pod-0", "containers": [{"name": "b"}], "ttlSecondsAfterFinished": -1, "strategy": {"minStartedSeconds": -2}});
        let o = go(input(crr(s.clone()), Some(pod()), Some(node(json!({})))));
        assert_eq!(o.http_code, 422);
        let f: Vec<(&str, String)> = o
            .errors
            .iter()
            .map(|e| (e.field.as_str(), e.message.clone()))
            .collect();
        assert_eq!(f, [
            ("spec.strategy.minStartedSeconds", "spec.strategy.minStartedSeconds: Invalid value: -2: spec.strategy.minStartedSeconds in body should be greater than or equal to 0".to_owned()),
            ("spec.ttlSecondsAfterFinished", "spec.ttlSecondsAfterFinished: Invalid value: -1: spec.ttlSecondsAfterFinished in body should be greater than or equal to 0".to_owned()),
        ]);
        // v1alpha1 has no minimum.
        let mut a = crr(s);
        a["apiVersion"] = json!("apps.kruise.io/v1alpha1");
        assert!(go(input(a, Some(pod()), Some(node(json!({}))))).valid);
    }

    #[test]
    fn resource_version_routes_not_api_version() {
        let mut i = input(
            crr(
                json!({"podName": "pod-0", "containers": [{"name": "b"}], "ttlSecondsAfterFinished": -1}),
            ),
            Some(pod()),
            Some(node(json!({}))),
        );
        i.resource_version = Some("v1alpha1".into());
        let o = go(i);
        assert!(o.valid);
        assert_eq!(o.resource_version, "v1alpha1");
    }

    fn update(obj: Value, old: Value, version: &str) -> CrrValidateOutput {
        let mut i = input(obj, None, None);
        i.operation = Some("UPDATE".into());
        i.old_object = Some(old);
        i.resource_version = Some(version.into());
        go(i)
    }

    #[test]
    fn update_spec_immutable_go_equality() {
        let old = crr(json!({"podName": "p", "containers": [{"name": "a"}]}));
        let same_go = crr(
            json!({"podName": "p", "containers": [{"name": "a", "unknown": 1}], "strategy": null}),
        );
        assert!(update(same_go, old.clone(), "v1beta1").valid);
        let empty_strategy =
            crr(json!({"podName": "p", "containers": [{"name": "a"}], "strategy": {}}));
        assert_eq!(
            msg(&update(empty_strategy, old.clone(), "v1beta1")),
            (403, "spec of ContainerRecreateRequest is immutable".into())
        );
        let false_flag = crr(
            json!({"podName": "p", "containers": [{"name": "a"}], "strategy": {"orderedRecreate": false}}),
        );
        let old_strategy =
            crr(json!({"podName": "p", "containers": [{"name": "a"}], "strategy": {}}));
        assert!(
            update(false_flag, old_strategy, "v1beta1").valid,
            "false equals the zero value"
        );
        let ports = crr(json!({"podName": "p", "containers": [{"name": "a", "ports": []}]}));
        assert_eq!(
            msg(&update(ports, old, "v1beta1")).0,
            403,
            "empty slice is not a nil slice"
        );
    }

    #[test]
    fn update_identity_labels() {
        let spec = json!({"podName": "p", "containers": [{"name": "a"}]});
        let with = |labels: Value| {
            let mut o = crr(spec.clone());
            o["metadata"]["labels"] = labels;
            o
        };
        let old = with(json!({LABEL_POD_UID: "u", LABEL_NODE_NAME: "n", LABEL_ACTIVE: "true"}));
        let o = update(
            with(json!({LABEL_POD_UID: "v", LABEL_NODE_NAME: "n"})),
            old.clone(),
            "v1beta1",
        );
        assert_eq!(
            msg(&o),
            (
                403,
                "not allowed to update immutable label crr.apps.kruise.io/pod-uid".into()
            )
        );
        assert_eq!(
            o.errors[0].field,
            "metadata.labels[crr.apps.kruise.io/pod-uid]"
        );
        assert_eq!(
            msg(&update(
                with(json!({LABEL_POD_UID: "u"})),
                old.clone(),
                "v1alpha1"
            ))
            .1,
            "not allowed to update immutable label crr.apps.kruise.io/node-name"
        );
        let o = update(
            with(json!({LABEL_POD_UID: "u", LABEL_NODE_NAME: "n", "x": "y"})),
            old,
            "v1beta1",
        );
        assert!(o.valid);
        assert_eq!(
            o.mutated_object.unwrap()["metadata"]["labels"]["x"],
            json!("y")
        );
        // An empty label value equals a missing one.
        assert!(update(with(json!({LABEL_POD_UID: ""})), with(json!({})), "v1beta1").valid);
    }

    #[test]
    fn update_unready_annotation_v1alpha1_only() {
        let spec = json!({"podName": "p", "containers": [{"name": "a"}]});
        let with = |a: Value| {
            let mut o = crr(spec.clone());
            o["metadata"]["annotations"] = a;
            o
        };
        let old = with(json!({ANNOTATION_UNREADY_ACQUIRED: "t"}));
        let new = with(json!({ANNOTATION_UNREADY_ACQUIRED: "changed"}));
        assert_eq!(
            msg(&update(new.clone(), old.clone(), "v1alpha1")),
            (
                403,
                "not allowed to update immutable annotation crr.apps.kruise.io/unready-acquired"
                    .into()
            )
        );
        assert!(update(new.clone(), old, "v1beta1").valid);
        // Setting it when the old object had none is allowed.
        assert!(update(new, with(json!({})), "v1alpha1").valid);
    }

    #[test]
    fn request_errors() {
        let mut i = input(crr(ok_spec()), None, None);
        i.operation = Some("UPDATE".into());
        assert!(run(i).is_err());
        let mut i = input(crr(ok_spec()), None, None);
        i.operation = Some("DELETE".into());
        assert!(run(i).is_err());
    }

    fn manifest(v: Value) -> Findings {
        let c: ContainerRecreateRequest = serde_json::from_value(v).unwrap();
        let mut out = Findings::default();
        validate_crr_manifest(&c, &Ctx::default(), &mut out);
        out
    }

    #[test]
    fn manifest_checks() {
        let f = manifest(crr(ok_spec()));
        assert!(f.errors.is_empty() && f.warnings.is_empty());
        assert_eq!(f.infos[0].code.as_deref(), Some(lint::NEEDS_POD));
        let f = manifest(crr(
            json!({"podName": "p", "containers": [{"name": "a"}], "activeDeadlineSeconds": 1}),
        ));
        assert_eq!(f.errors.len(), 1);
        assert_eq!(
            f.errors[0].message,
            "activeDeadlineSeconds can not be less than 3s"
        );
        let f = manifest(crr(
            json!({"podName": "p", "containers": [{"name": "a"}, {"name": "a"}]}),
        ));
        assert_eq!(f.errors[0].message, "can not recreate a multi times");
        let f = manifest(crr(
            json!({"podName": "p", "containers": [{"name": "a", "statusContext": {"containerID": "x", "restartCount": 0}}]}),
        ));
        assert_eq!(f.errors[0].field, "spec.containers[0].statusContext");
        let f = manifest(crr(
            json!({"podName": "p", "containers": [{"name": "a"}], "ttlSecondsAfterFinished": -5}),
        ));
        assert_eq!(f.errors[0].field, "spec.ttlSecondsAfterFinished");
        let mut v = crr(ok_spec());
        v["apiVersion"] = json!("apps.kruise.io/v2");
        assert_eq!(manifest(v).errors[0].field, "apiVersion");
    }

    #[test]
    fn manifest_lints_and_gate() {
        let mut v = crr(
            json!({"podName": "p", "containers": [{"name": "a"}], "ttlSecondsAfterFinished": -5, "strategy": {"minStartedSeconds": -1}}),
        );
        v["apiVersion"] = json!("apps.kruise.io/v1alpha1");
        v["metadata"]["labels"] = json!({LABEL_NODE_NAME: "n"});
        v["status"] = json!({"phase": "Completed"});
        let f = manifest(v.clone());
        assert!(f.errors.is_empty(), "{:?}", f.errors);
        let codes: Vec<&str> = f
            .warnings
            .iter()
            .filter_map(|w| w.code.as_deref())
            .collect();
        assert_eq!(
            codes,
            [
                lint::INJECTED_LABEL,
                lint::STATUS_IGNORED,
                lint::NEGATIVE_UNCHECKED,
                lint::NEGATIVE_UNCHECKED
            ]
        );
        let c: ContainerRecreateRequest = serde_json::from_value(v).unwrap();
        let mut ctx = Ctx::default();
        ctx.gates.set("KruiseDaemon", false);
        let mut out = Findings::default();
        validate_crr_manifest(&c, &ctx, &mut out);
        assert_eq!(
            out.errors[0].message,
            "feature-gate KruiseDaemon is not enabled"
        );
    }
}
