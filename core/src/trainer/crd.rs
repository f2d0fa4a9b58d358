//! What kube-apiserver does with a TrainJob or a runtime before any webhook sees it: the CRD's
//! structural defaults (apiextensions-apiserver pkg/apiserver/schema/defaulting `Default`), and
//! the CRD schema's checks in restartkit's scope (OpenAPI bounds, `x-kubernetes-list-type: map`
//! keys, and the CEL rules of trainer.kubeflow.org_trainjobs.yaml and
//! trainer.kubeflow.org_(cluster)trainingruntimes.yaml that hold on create).

use crate::diag::{Diagnostic, ErrorType, FieldPath, Findings, Origin};
use crate::generated::trainer_crd::{RUNTIME, RUNTIME_LISTS, TRAIN_JOB, TRAIN_JOB_LISTS};
use crate::generated::trainer_crd_types::{CrdDefault, CrdList, DefaultValue};
use serde_json::{Value, json};

fn segments(path: &str) -> Vec<&str> {
    path.split('.').collect()
}

impl DefaultValue {
    fn json(self) -> Value {
        match self {
            DefaultValue::Str(s) => json!(s),
            DefaultValue::Bool(b) => json!(b),
            DefaultValue::Int(i) => json!(i),
        }
    }
}

/// Applies the defaults of `table` to `obj`: a field that is absent (or null) in an object that
/// exists gets its default. Every default of these CRDs is a scalar (tools/gen_trainer_crd.py
/// checks it), so no default creates an object with defaults of its own, and one pass over the
/// table is upstream's top-down pass.
pub(super) fn apply_defaults(obj: &mut Value, table: &[CrdDefault]) {
    for d in table {
        if let Some((last, parents)) = segments(d.path).split_last() {
            default_at(obj, parents, last, d.value);
        }
    }
}

fn default_at(v: &mut Value, parents: &[&str], key: &str, value: DefaultValue) {
    match parents.split_first() {
        None => {
            if let Some(m) = v.as_object_mut()
                && m.get(key).is_none_or(Value::is_null)
            {
                m.insert(key.to_owned(), value.json());
            }
        }
        Some((&"*", rest)) => {
            if let Some(items) = v.as_array_mut() {
                for item in items {
                    default_at(item, rest, key, value);
                }
            }
        }
        Some((&"{}", rest)) => {
            if let Some(m) = v.as_object_mut() {
                for item in m.values_mut() {
                    default_at(item, rest, key, value);
                }
            }
        }
        Some((seg, rest)) => {
            if let Some(next) = v.get_mut(*seg) {
                default_at(next, rest, key, value);
            }
        }
    }
}

/// `PruneNonNullableNullsWithoutDefaults`: no field of these CRDs is nullable, so a null member
/// is dropped (one with a default then gets its default).
fn prune_nulls(v: &mut Value) {
    match v {
        Value::Object(m) => {
            m.retain(|_, x| !x.is_null());
            m.values_mut().for_each(prune_nulls);
        }
        Value::Array(items) => items.iter_mut().for_each(prune_nulls),
        _ => {}
    }
}

pub(super) fn defaults_train_job(obj: &mut Value) {
    prune_nulls(obj);
    apply_defaults(obj, TRAIN_JOB);
}

pub(super) fn defaults_runtime(obj: &mut Value) {
    prune_nulls(obj);
    apply_defaults(obj, RUNTIME);
}

/// A schema error as apiextensions-apiserver reports it (`kubeOpenAPIResultToFieldErrors`).
fn schema_error(path: &FieldPath, t: ErrorType, bad: Value, detail: String) -> Diagnostic {
    let mut d = match t {
        ErrorType::FieldValueRequired => Diagnostic::required(path, ""),
        _ => Diagnostic::invalid(path, bad, detail),
    };
    d.error_type = Some(t);
    d.origin = Origin::KubeApiserver;
    d
}

/// `<path> in body should be greater than or equal to <min>` (go-openapi's minimum check).
fn minimum(out: &mut Findings, path: &FieldPath, v: i64, min: i64) {
    if v < min {
        let detail = format!(
            "{} in body should be greater than or equal to {min}",
            path.as_str()
        );
        out.push(schema_error(
            path,
            ErrorType::FieldValueInvalid,
            json!(v),
            detail,
        ));
    }
}

/// `Too long: may not be more than N bytes` (field.TooLong as the CRD validator calls it).
fn max_length(out: &mut Findings, path: &FieldPath, s: &str, max: usize) {
    if s.len() > max {
        out.push(Diagnostic::too_long(path, "", max).with_origin(Origin::KubeApiserver));
    }
}

/// go-openapi's minLength, which apiextensions reports as a plain Invalid value.
fn min_length(out: &mut Findings, path: &FieldPath, s: &str, min: usize) {
    if s.chars().count() < min {
        let detail = format!(
            "{} in body should be at least {min} chars long",
            path.as_str()
        );
        out.push(schema_error(
            path,
            ErrorType::FieldValueInvalid,
            json!(s),
            detail,
        ));
    }
}

fn max_items(out: &mut Findings, path: &FieldPath, n: usize, max: usize) {
    if n > max {
        out.push(Diagnostic::too_many(path, n, max).with_origin(Origin::KubeApiserver));
    }
}

/// `x-kubernetes-list-type` uniqueness (apiextensions-apiserver pkg/apiserver/schema/listtype):
/// for each key (map) or item (set) seen more than once, its second appearance is a Duplicate
/// value.
fn validate_lists(obj: &Value, table: &[CrdList], out: &mut Findings) {
    for l in table {
        lists_at(obj, &segments(l.path), &FieldPath::root(), l.map_keys, out);
    }
}

fn lists_at(v: &Value, path: &[&str], at: &FieldPath, keys: Option<&[&str]>, out: &mut Findings) {
    match path.split_first() {
        None => {
            if let Value::Array(items) = v {
                duplicates(items, at, keys, out);
            }
        }
        Some((&"*", rest)) => {
            for (i, item) in v.as_array().into_iter().flatten().enumerate() {
                lists_at(item, rest, &at.index(i), keys, out);
            }
        }
        Some((&"{}", rest)) => {
            for (k, item) in v.as_object().into_iter().flatten() {
                lists_at(item, rest, &at.key(k), keys, out);
            }
        }
        Some((seg, rest)) => {
            if let Some(next) = v.get(*seg) {
                lists_at(next, rest, &at.child(seg), keys, out);
            }
        }
    }
}

fn duplicates(items: &[Value], at: &FieldPath, keys: Option<&[&str]>, out: &mut Findings) {
    if items.len() <= 1 {
        return;
    }
    // The value compared: the item (set), or the map of its key fields (an absent field is
    // left out; one key alone is compared as its value).
    let key_of = |x: &Value| -> Value {
        match keys {
            None => x.clone(),
            Some([k]) => x.get(*k).cloned().unwrap_or(Value::Null),
            Some(ks) => {
                let mut m = serde_json::Map::new();
                for k in ks.iter() {
                    if let Some(v) = x.get(*k) {
                        m.insert((*k).to_owned(), v.clone());
                    }
                }
                Value::Object(m)
            }
        }
    };
    let mut seen: Vec<(Value, usize)> = Vec::new();
    for (i, x) in items.iter().enumerate() {
        let k = key_of(x);
        match seen.iter_mut().find(|(v, _)| *v == k) {
            Some((_, times)) => {
                *times += 1;
                if *times == 2 {
                    let p = at.index(i);
                    let mut d = Diagnostic::duplicate(&p, k.clone());
                    let shown = match keys {
                        None => go_sharp_v(&k),
                        Some([key]) if x.get(*key).is_none() => {
                            "map[string]interface {}{}".to_owned()
                        }
                        Some([key]) => {
                            format!("map[string]interface {{}}{{\"{key}\":{}}}", go_sharp_v(&k))
                        }
                        Some(_) => go_map(&k),
                    };
                    d.message = format!("{}: Duplicate value: {shown}", p.as_str());
                    out.push(d);
                }
            }
            None => seen.push((k, 1)),
        }
    }
}

/// `%#v` of a map[string]interface{}: keys in order, `"k":v` pairs separated by ", ".
fn go_map(v: &Value) -> String {
    let mut pairs: Vec<(String, String)> = v
        .as_object()
        .into_iter()
        .flatten()
        .map(|(k, v)| (k.clone(), go_sharp_v(v)))
        .collect();
    pairs.sort();
    let inner: Vec<String> = pairs.iter().map(|(k, v)| format!("{k:?}:{v}")).collect();
    format!("map[string]interface {{}}{{{}}}", inner.join(", "))
}

/// `%#v` of a JSON scalar inside an `interface{}`: strings quoted, int64s and bools bare.
fn go_sharp_v(v: &Value) -> String {
    match v {
        Value::String(s) => format!("{s:?}"),
        Value::Number(n) if n.is_i64() => format!("{n}"),
        Value::Number(n) => format!("{n}"),
        Value::Bool(b) => b.to_string(),
        Value::Null => "interface {}(nil)".to_owned(),
        other => other.to_string(),
    }
}

/// A CEL rule's failure: `Invalid value: "<type>": <message>`.
fn cel(out: &mut Findings, path: &FieldPath, type_name: &str, message: &str) {
    out.push(
        Diagnostic::invalid(path, json!(type_name), message.to_owned())
            .with_origin(Origin::KubeApiserver),
    );
}

fn str_at<'a>(v: &'a Value, k: &str) -> Option<&'a str> {
    v.get(k).and_then(Value::as_str)
}

fn arr_at<'a>(v: &'a Value, k: &str) -> &'a [Value] {
    v.get(k)
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

/// RFC 1035 label, as the TrainJob CRD's CEL rule writes it: `^[a-z]([-a-z0-9]*[a-z0-9])?$`.
fn rfc1035_label(s: &str) -> bool {
    let b = s.as_bytes();
    let Some((first, rest)) = b.split_first() else {
        return false;
    };
    if !first.is_ascii_lowercase() {
        return false;
    }
    match rest.split_last() {
        None => true,
        Some((last, mid)) => {
            (last.is_ascii_lowercase() || last.is_ascii_digit())
                && mid
                    .iter()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'-')
        }
    }
}

/// `self == '' || self.matches('^[A-Za-z][A-Za-z0-9+.-]*://.+$')`: the scheme's characters
/// cannot include `:`, so the scheme is the longest run of them from the start; RE2's `.` does
/// not match a newline and `$` is the end of the text.
fn storage_uri_ok(s: &str) -> bool {
    if s.is_empty() {
        return true;
    }
    if !s.starts_with(|c: char| c.is_ascii_alphabetic()) {
        return false;
    }
    let scheme_len = s
        .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '+' | '.' | '-')))
        .unwrap_or(s.len());
    s.get(scheme_len..)
        .and_then(|r| r.strip_prefix("://"))
        .is_some_and(|rest| !rest.is_empty() && !rest.contains('\n'))
}

/// The TrainJob CRD's checks in scope, on the defaulted object. Returns whether any failed (the
/// validating webhooks do not run then).
pub(super) fn validate_train_job(obj: &Value, out: &mut Findings) -> bool {
    let before = out.errors.len();
    let mut cels = Findings::default();
    let name = obj
        .pointer("/metadata/name")
        .and_then(Value::as_str)
        .unwrap_or("");
    let root = FieldPath::new("<nil>");
    if !rfc1035_label(name) {
        cel(
            &mut cels,
            &root,
            "object",
            "metadata.name must match RFC 1035 DNS label format",
        );
    }
    if name.len() > 63 {
        cel(
            &mut cels,
            &root,
            "object",
            "metadata.name must be no more than 63 characters",
        );
    }
    let Some(spec) = obj.get("spec") else {
        out.push(schema_error(
            &FieldPath::new("spec").child("runtimeRef"),
            ErrorType::FieldValueRequired,
            Value::Null,
            String::new(),
        ));
        finish_cel(out, cels);
        return out.errors.len() > before;
    };
    let sp = FieldPath::new("spec");
    match spec.get("runtimeRef") {
        None | Some(Value::Null) => out.push(schema_error(
            &sp.child("runtimeRef"),
            ErrorType::FieldValueRequired,
            Value::Null,
            String::new(),
        )),
        Some(r) => {
            let rp = sp.child("runtimeRef");
            match str_at(r, "name") {
                None => out.push(schema_error(
                    &rp.child("name"),
                    ErrorType::FieldValueRequired,
                    Value::Null,
                    String::new(),
                )),
                Some(n) => {
                    max_length(out, &rp.child("name"), n, 253);
                    min_length(out, &rp.child("name"), n, 1);
                }
            }
            for k in ["apiGroup", "kind"] {
                if let Some(s) = str_at(r, k) {
                    max_length(out, &rp.child(k), s, 253);
                }
            }
        }
    }
    if let Some(a) = spec.get("activeDeadlineSeconds").and_then(Value::as_i64) {
        minimum(out, &sp.child("activeDeadlineSeconds"), a, 1);
    }
    if let Some(m) = str_at(spec, "managedBy") {
        let p = sp.child("managedBy");
        max_length(out, &p, m, 253);
        if !matches!(
            m,
            "trainer.kubeflow.org/trainjob-controller" | "kueue.x-k8s.io/multikueue"
        ) {
            cel(
                &mut cels,
                &p,
                "string",
                "ManagedBy must be trainer.kubeflow.org/trainjob-controller or kueue.x-k8s.io/multikueue if set",
            );
        }
    }
    if let Some(t) = spec.get("trainer") {
        let tp = sp.child("trainer");
        if let Some(i) = str_at(t, "image") {
            max_length(out, &tp.child("image"), i, 500);
        }
        for k in ["command", "args"] {
            let items = arr_at(t, k);
            max_items(out, &tp.child(k), items.len(), 128);
            for (i, s) in items.iter().enumerate() {
                if let Some(s) = s.as_str() {
                    max_length(out, &tp.child(k).index(i), s, 1_048_576);
                }
            }
        }
        env_list(out, &tp.child("env"), arr_at(t, "env"));
    }
    for which in ["dataset", "model"] {
        let Some(init) = spec.get("initializer").and_then(|i| i.get(which)) else {
            continue;
        };
        let ip = sp.child("initializer").child(which);
        if let Some(u) = str_at(init, "storageUri") {
            max_length(out, &ip.child("storageUri"), u, 2048);
            if !storage_uri_ok(u) {
                cel(
                    &mut cels,
                    &ip.child("storageUri"),
                    "string",
                    "storageUri may be empty, or it must be a valid URI (scheme://...)",
                );
            }
        }
        env_list(out, &ip.child("env"), arr_at(init, "env"));
    }
    let patches = arr_at(spec, "runtimePatches");
    let pp = sp.child("runtimePatches");
    max_items(out, &pp, patches.len(), 16);
    for (i, p) in patches.iter().enumerate() {
        let at = pp.index(i);
        match str_at(p, "manager") {
            None => out.push(schema_error(
                &at.child("manager"),
                ErrorType::FieldValueRequired,
                Value::Null,
                String::new(),
            )),
            Some(m) => {
                max_length(out, &at.child("manager"), m, 253);
                min_length(out, &at.child("manager"), m, 1);
            }
        }
        let Some(js) = p.pointer("/trainingRuntimeSpec/template/spec") else {
            continue;
        };
        let jp = at
            .child("trainingRuntimeSpec")
            .child("template")
            .child("spec")
            .child("replicatedJobs");
        let rjs = arr_at(js, "replicatedJobs");
        max_items(out, &jp, rjs.len(), 100);
        for (j, rj) in rjs.iter().enumerate() {
            let rp = jp.index(j);
            match str_at(rj, "name") {
                None => out.push(schema_error(
                    &rp.child("name"),
                    ErrorType::FieldValueRequired,
                    Value::Null,
                    String::new(),
                )),
                Some(n) => {
                    max_length(out, &rp.child("name"), n, 253);
                    min_length(out, &rp.child("name"), n, 1);
                }
            }
            if let Some(ps) = rj.pointer("/template/spec/template/spec") {
                pod_spec_patch(
                    out,
                    &rp.child("template")
                        .child("spec")
                        .child("template")
                        .child("spec"),
                    ps,
                );
            }
        }
    }
    validate_lists(obj, TRAIN_JOB_LISTS, out);
    finish_cel(out, cels);
    out.errors.len() > before
}

/// The CEL rules run after the schema's checks, unless one of those blocks them
/// (apiextensions-apiserver customResourceStrategy.Validate, `hasBlockingErr`).
fn finish_cel(out: &mut Findings, cels: Findings) {
    let blocking = out.errors.iter().any(|d| {
        matches!(
            d.error_type,
            Some(
                ErrorType::FieldValueNotSupported
                    | ErrorType::FieldValueRequired
                    | ErrorType::FieldValueTooLong
                    | ErrorType::FieldValueTooMany
                    | ErrorType::FieldValueTypeInvalid
            )
        )
    });
    if blocking {
        out.push(
            Diagnostic::invalid(
                &FieldPath::new("<nil>"),
                Value::Null,
                "some validation rules were not checked because the object was invalid; correct the existing errors to complete validation",
            )
            .with_origin(Origin::KubeApiserver),
        );
    } else {
        out.merge(cels);
    }
}

fn env_list(out: &mut Findings, p: &FieldPath, env: &[Value]) {
    max_items(out, p, env.len(), 128);
    for (i, e) in env.iter().enumerate() {
        if e.get("name").is_none() {
            out.push(schema_error(
                &p.index(i).child("name"),
                ErrorType::FieldValueRequired,
                Value::Null,
                String::new(),
            ));
        }
    }
}

fn pod_spec_patch(out: &mut Findings, p: &FieldPath, ps: &Value) {
    if let Some(s) = str_at(ps, "serviceAccountName") {
        max_length(out, &p.child("serviceAccountName"), s, 253);
    }
    if let Some(t) = ps
        .get("terminationGracePeriodSeconds")
        .and_then(Value::as_i64)
    {
        minimum(out, &p.child("terminationGracePeriodSeconds"), t, 0);
    }
    for (k, max) in [
        ("volumes", 128),
        ("initContainers", 64),
        ("containers", 64),
        ("imagePullSecrets", 64),
        ("tolerations", 128),
        ("schedulingGates", 16),
    ] {
        let items = arr_at(ps, k);
        max_items(out, &p.child(k), items.len(), max);
        if k == "tolerations" {
            continue;
        }
        for (i, it) in items.iter().enumerate() {
            if it.get("name").is_none() && k != "imagePullSecrets" {
                out.push(schema_error(
                    &p.child(k).index(i).child("name"),
                    ErrorType::FieldValueRequired,
                    Value::Null,
                    String::new(),
                ));
            }
        }
        if k == "containers" || k == "initContainers" {
            for (i, c) in items.iter().enumerate() {
                let cp = p.child(k).index(i);
                if let Some(n) = str_at(c, "name") {
                    max_length(out, &cp.child("name"), n, 253);
                    min_length(out, &cp.child("name"), n, 1);
                }
                env_list(out, &cp.child("env"), arr_at(c, "env"));
                let mounts = arr_at(c, "volumeMounts");
                max_items(out, &cp.child("volumeMounts"), mounts.len(), 128);
            }
        }
    }
}

/// The runtime CRD's checks in scope (mlPolicy, podGroupPolicy and the JobSet template's
/// list keys), on the defaulted object. Returns whether any failed.
pub(super) fn validate_runtime(obj: &Value, out: &mut Findings) -> bool {
    let before = out.errors.len();
    let mut cels = Findings::default();
    let sp = FieldPath::new("spec");
    let Some(spec) = obj.get("spec") else {
        return false;
    };
    let _ = &cels;
    if let Some(ml) = spec.get("mlPolicy") {
        let mp = sp.child("mlPolicy");
        let set = ["torch", "mpi", "jax", "xgboost", "flux"]
            .iter()
            .filter(|k| ml.get(**k).is_some_and(|v| !v.is_null()))
            .count();
        if set > 1 {
            cel(
                &mut cels,
                &mp,
                "object",
                "Only one of the policy can be configured",
            );
        }
        if ml
            .pointer("/flux/numProcPerNode")
            .and_then(Value::as_i64)
            .is_some_and(|n| n < 1)
        {
            cel(
                &mut cels,
                &mp.child("flux").child("numProcPerNode"),
                "integer",
                "NumProcPerNode in fluxPolicy must be >= 1",
            );
        }
        if let Some(mpi) = ml.get("mpi") {
            let p = mpi.get("mpiImplementation");
            if let Some(s) = p.and_then(Value::as_str)
                && !matches!(s, "OpenMPI" | "")
            {
                out.push(
                    Diagnostic::not_supported(
                        &mp.child("mpi").child("mpiImplementation"),
                        s,
                        &["OpenMPI", ""],
                    )
                    .with_origin(Origin::KubeApiserver),
                );
            }
            if let Some(s) = str_at(mpi, "sshAuthMountPath") {
                max_length(out, &mp.child("mpi").child("sshAuthMountPath"), s, 4096);
            }
        }
        let targets = ml
            .pointer("/torch/envInjection/targets")
            .and_then(Value::as_array)
            .map_or(&[][..], Vec::as_slice);
        let tp = mp.child("torch").child("envInjection").child("targets");
        max_items(out, &tp, targets.len(), 16);
        for (i, t) in targets.iter().enumerate() {
            let at = tp.index(i);
            match str_at(t, "jobName") {
                None => out.push(schema_error(
                    &at.child("jobName"),
                    ErrorType::FieldValueRequired,
                    Value::Null,
                    String::new(),
                )),
                Some(n) => {
                    max_length(out, &at.child("jobName"), n, 253);
                    min_length(out, &at.child("jobName"), n, 1);
                }
            }
            match t.get("containerNames").and_then(Value::as_array) {
                None => out.push(schema_error(
                    &at.child("containerNames"),
                    ErrorType::FieldValueRequired,
                    Value::Null,
                    String::new(),
                )),
                Some(names) => {
                    let cp = at.child("containerNames");
                    max_items(out, &cp, names.len(), 8);
                    if names.is_empty() {
                        let detail =
                            format!("{} in body should have at least 1 items", cp.as_str());
                        out.push(schema_error(
                            &cp,
                            ErrorType::FieldValueInvalid,
                            json!(0),
                            detail,
                        ));
                    }
                    for (j, n) in names.iter().enumerate() {
                        if let Some(s) = n.as_str() {
                            max_length(out, &cp.index(j), s, 63);
                        }
                    }
                    if names.iter().any(|n| n.as_str() == Some("node")) {
                        cel(
                            &mut cels,
                            &cp,
                            "array",
                            "containerNames must not include the main node container because PET_* envs are always injected into it",
                        );
                    }
                }
            }
        }
    }
    if let Some(mode) = spec
        .pointer("/podGroupPolicy/volcano/networkTopology/mode")
        .and_then(Value::as_str)
        && !matches!(mode, "hard" | "soft")
    {
        out.push(
            Diagnostic::not_supported(
                &sp.child("podGroupPolicy")
                    .child("volcano")
                    .child("networkTopology")
                    .child("mode"),
                mode,
                &["hard", "soft"],
            )
            .with_origin(Origin::KubeApiserver),
        );
    }
    if let Some(js) = spec.pointer("/template/spec") {
        let jp = sp.child("template").child("spec");
        let rjs = arr_at(js, "replicatedJobs");
        for (i, rj) in rjs.iter().enumerate() {
            if rj.get("name").is_none() {
                out.push(schema_error(
                    &jp.child("replicatedJobs").index(i).child("name"),
                    ErrorType::FieldValueRequired,
                    Value::Null,
                    String::new(),
                ));
            }
        }
        let in_order = js
            .pointer("/startupPolicy/startupPolicyOrder")
            .and_then(Value::as_str)
            == Some("InOrder");
        if in_order && rjs.iter().any(|r| r.get("dependsOn").is_some()) {
            cel(
                &mut cels,
                &jp,
                "object",
                "StartupPolicy and DependsOn APIs are mutually exclusive",
            );
        }
    }
    validate_lists(obj, RUNTIME_LISTS, out);
    finish_cel(out, cels);
    out.errors.len() > before
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;

    #[test]
    fn defaults_fill_absent_fields_where_their_parent_exists() {
        let mut tj = json!({"spec": {"runtimeRef": {"name": "torch"}}});
        defaults_train_job(&mut tj);
        assert_eq!(
            tj,
            json!({"spec": {"runtimeRef": {"name": "torch", "apiGroup": "trainer.kubeflow.org",
                "kind": "ClusterTrainingRuntime"}, "suspend": false,
                "managedBy": "trainer.kubeflow.org/trainjob-controller"}})
        );
        let mut rt = json!({"spec": {"mlPolicy": {"mpi": {"numProcPerNode": 4}}, "template": {"spec": {
            "replicatedJobs": [{"name": "node", "template": {"spec": {"template": {"spec": {
                "containers": [{"name": "node", "ports": [{"containerPort": 1}]}]}}}}}]}}}});
        defaults_runtime(&mut rt);
        assert_eq!(rt["spec"]["mlPolicy"]["mpi"]["numProcPerNode"], 4);
        assert_eq!(
            rt["spec"]["mlPolicy"]["mpi"]["mpiImplementation"],
            "OpenMPI"
        );
        assert_eq!(
            rt["spec"]["mlPolicy"]["mpi"]["sshAuthMountPath"],
            "/root/.ssh"
        );
        let rj = &rt["spec"]["template"]["spec"]["replicatedJobs"][0];
        assert_eq!(rj["replicas"], 1);
        assert_eq!(rj["groupName"], "default");
        assert_eq!(
            rj["template"]["spec"]["template"]["spec"]["containers"][0]["ports"][0]["protocol"],
            "TCP"
        );
        // No failurePolicy: none is created for its restartStrategy default.
        assert!(
            rt["spec"]["template"]["spec"]
                .get("failurePolicy")
                .is_none()
        );
    }

    #[test]
    fn storage_uris_as_the_cel_regexp_reads_them() {
        for ok in [
            "",
            "s3://bucket/path",
            "hf://org/model",
            "a+b.c-d://x",
            "s3://a://b",
        ] {
            assert!(storage_uri_ok(ok), "{ok}");
        }
        for bad in [
            "bucket/path",
            "3s://x",
            "s3://",
            "://x",
            "x y://z",
            "s3://a\nb",
        ] {
            assert!(!storage_uri_ok(bad), "{bad}");
        }
    }

    #[test]
    fn train_job_schema_checks() {
        let mut f = Findings::default();
        let tj = json!({"metadata": {"name": "Bad_Name"}, "spec": {
            "runtimeRef": {"name": ""}, "activeDeadlineSeconds": 0, "managedBy": "me",
            "trainer": {"env": [{"name": "A"}, {"name": "A"}]},
            "runtimePatches": [{"manager": "x", "trainingRuntimeSpec": {"template": {"spec": {
                "replicatedJobs": [{"name": "node", "template": {"spec": {"template": {"spec": {
                    "terminationGracePeriodSeconds": -1}}}}}]}}}}, {"manager": "x"}]}});
        assert!(validate_train_job(&tj, &mut f));
        let got: Vec<String> = f.errors.iter().map(|d| d.message.clone()).collect();
        // The schema's checks, then the list keys, then the CEL rules (which the schema's
        // errors here do not block: none is Required, TooLong, TooMany or NotSupported).
        assert_eq!(
            got,
            vec![
                "spec.runtimeRef.name: Invalid value: \"\": spec.runtimeRef.name in body should be at least 1 chars long",
                "spec.activeDeadlineSeconds: Invalid value: 0: spec.activeDeadlineSeconds in body should be greater than or equal to 1",
                "spec.runtimePatches[0].trainingRuntimeSpec.template.spec.replicatedJobs[0].template.spec.template.spec.terminationGracePeriodSeconds: Invalid value: -1: spec.runtimePatches[0].trainingRuntimeSpec.template.spec.replicatedJobs[0].template.spec.template.spec.terminationGracePeriodSeconds in body should be greater than or equal to 0",
                "spec.runtimePatches[1]: Duplicate value: map[string]interface {}{\"manager\":\"x\"}",
                "spec.trainer.env[1]: Duplicate value: map[string]interface {}{\"name\":\"A\"}",
                "<nil>: Invalid value: \"object\": metadata.name must match RFC 1035 DNS label format",
                "spec.managedBy: Invalid value: \"string\": ManagedBy must be trainer.kubeflow.org/trainjob-controller or kueue.x-k8s.io/multikueue if set",
            ]
        );
    }
}
