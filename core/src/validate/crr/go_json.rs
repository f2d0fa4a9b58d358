//! The Go view of a ContainerRecreateRequest's spec: the structs the Kruise webhook decodes
//! into, with `encoding/json`'s errors, zero values and `omitempty` output.

use serde_json::{Map, Value};

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
