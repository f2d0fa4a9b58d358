//! The Kruise mutating webhook's CREATE checks
//! (`pkg/webhook/containerrecreaterequest/mutating/crr_mutating_handler.go`), one rejection at a
//! time, with the mutations they make, and the v1beta1 CRD schema checks applied after it.

use crate::api::Pod;
use crate::diag::{Diagnostic, FieldPath};
use serde_json::Value;

use super::go_json::{GoContainer, GoProbe, GoSpec, GoStrategy};

pub const LABEL_POD_UID: &str = "crr.apps.kruise.io/pod-uid";
pub const LABEL_NODE_NAME: &str = "crr.apps.kruise.io/node-name";
pub const LABEL_ACTIVE: &str = "crr.apps.kruise.io/active";
pub const ANNOTATION_UNREADY_ACQUIRED: &str = "crr.apps.kruise.io/unready-acquired";
pub const VIRTUAL_KUBELET_LABEL_KEY: &str = "type";
pub const VIRTUAL_KUBELET_LABEL_VALUE: &str = "virtual-kubelet";
/// Pod condition set by Kruise's sidecar terminator.
pub const SIDECAR_TERMINATED: &str = "SidecarTerminated";
const MIN_DEADLINE_SECONDS: i64 = 3;

/// A rejection: HTTP code, message, and restartkit's field for line numbers.
#[derive(Debug, Clone, PartialEq)]
pub struct Rejection {
    pub code: u16,
    pub field: FieldPath,
    pub message: String,
}

pub(super) fn reject(code: u16, field: FieldPath, message: impl Into<String>) -> Rejection {
    Rejection {
        code,
        field,
        message: message.into(),
    }
}

pub(super) fn spec_path() -> FieldPath {
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
pub(super) fn container_static_check(
    c: &GoContainer,
    i: usize,
    seen: &[&str],
) -> Result<(), Rejection> {
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
