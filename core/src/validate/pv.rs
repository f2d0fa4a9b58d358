//! PersistentVolume (v1) on create, as kube-apiserver's create path takes it:
//!
//! 1. The v1 defaulting (`SetObjectDefaults_PersistentVolume`, pkg/apis/core/v1): reclaim policy
//!    `Retain` for an empty one, volumeMode `Filesystem`, every capacity rounded up to a milli
//!    (SetDefaults_ResourceList), an azureDisk's kind `Shared`.
//! 2. The strategy's PrepareForCreate (pkg/registry/core/persistentvolume,
//!    pkg/api/persistentvolume `DropDisabledSpecFields`): `volumeAttributesClassName` dropped
//!    with VolumeAttributesClass off.
//! 3. `ValidatePersistentVolume` (pkg/apis/core/validation): ObjectMeta (meta.rs), then
//!    `ValidatePersistentVolumeSpec` as a standalone volume (not an inline CSI spec): access
//!    modes, capacity (storage only, not negative, positive), reclaim policy, node affinity (a
//!    required node selector, checked as a Pod's required terms at that minor), exactly one
//!    source with its persistent-volume validator, a local volume's node affinity, a hostPath
//!    of `/` not recycled, storageClassName, volumeMode, volumeAttributesClassName (with CSI).
//! 4. pkg/volume/validation's `checkMountOption`: the `volume.beta.kubernetes.io/mount-options`
//!    annotation only on the sources that take mount options.
//! 5. For a volume that passed, WarningsOnCreate (`GetWarningsForPersistentVolume`): the two
//!    deprecated annotations, the Recycle policy, deprecated node labels in the node affinity,
//!    and the non-functional plugins.
//!
//! The checks read the same at every minor 1.31–1.37 but for the required node selector's label
//! values (checked from 1.33, as for a Pod) and the printing of a bad capacity map (JSON from
//! 1.34, Go's `%#v` before).

use super::Ctx;
use super::json_read::{list, opt, opt_str, str_of};
use super::names::{dns1123_label, dns1123_subdomain_name};
use super::pod_env::EnvOpts;
use super::pod_volumes;
use crate::diag::{Diagnostic, FieldPath, Findings, Origin};
use crate::quantity::Quantity;
use crate::versions::Change;
use serde_json::Value;
use std::collections::BTreeMap;

const RECLAIM_POLICIES: [&str; 3] = ["Delete", "Recycle", "Retain"];
const VOLUME_MODES: [&str; 2] = ["Block", "Filesystem"];
const GATE_VAC: &str = "VolumeAttributesClass";
const MOUNT_OPTIONS: &str = "volume.beta.kubernetes.io/mount-options";

/// The sources of a PersistentVolumeSpec in ValidatePersistentVolumeSpec's order: the JSON key,
/// the path its own errors go under (upstream's `persistentDisk` and `cephfs`), the path of
/// "may not specify more than 1 volume type" (`cephFS`).
const SOURCES: [(&str, &str, &str); 22] = [
    ("hostPath", "hostPath", "hostPath"),
    ("gcePersistentDisk", "persistentDisk", "gcePersistentDisk"),
    (
        "awsElasticBlockStore",
        "awsElasticBlockStore",
        "awsElasticBlockStore",
    ),
    ("glusterfs", "glusterfs", "glusterfs"),
    ("flocker", "flocker", "flocker"),
    ("nfs", "nfs", "nfs"),
    ("rbd", "rbd", "rbd"),
    ("quobyte", "quobyte", "quobyte"),
    ("cephfs", "cephfs", "cephFS"),
    ("iscsi", "iscsi", "iscsi"),
    ("cinder", "cinder", "cinder"),
    ("fc", "fc", "fc"),
    ("flexVolume", "flexVolume", "flexVolume"),
    ("azureFile", "azureFile", "azureFile"),
    ("vsphereVolume", "vsphereVolume", "vsphereVolume"),
    (
        "photonPersistentDisk",
        "photonPersistentDisk",
        "photonPersistentDisk",
    ),
    ("portworxVolume", "portworxVolume", "portworxVolume"),
    ("azureDisk", "azureDisk", "azureDisk"),
    ("scaleIO", "scaleIO", "scaleIO"),
    ("local", "local", "local"),
    ("storageos", "storageos", "storageos"),
    ("csi", "csi", "csi"),
];

/// The sources checkMountOption lets carry the mount-options annotation.
const TAKE_MOUNT_OPTIONS: [&str; 13] = [
    "gcePersistentDisk",
    "awsElasticBlockStore",
    "glusterfs",
    "nfs",
    "rbd",
    "quobyte",
    "iscsi",
    "cinder",
    "cephfs",
    "azureFile",
    "vsphereVolume",
    "azureDisk",
    "photonPersistentDisk",
];

/// GetWarningsForPersistentVolume's deprecated plugins: the key, the path it names (`storageOS`
/// as upstream spells it) and the text.
const DEPRECATED_PLUGINS: [(&str, &str, &str); 6] = [
    (
        "cephfs",
        "cephfs",
        "deprecated in v1.28, non-functional in v1.31+",
    ),
    (
        "photonPersistentDisk",
        "photonPersistentDisk",
        "deprecated in v1.11, non-functional in v1.16+",
    ),
    (
        "scaleIO",
        "scaleIO",
        "deprecated in v1.16, non-functional in v1.22+",
    ),
    (
        "storageos",
        "storageOS",
        "deprecated in v1.22, non-functional in v1.25+",
    ),
    (
        "glusterfs",
        "glusterfs",
        "deprecated in v1.25, non-functional in v1.26+",
    ),
    (
        "rbd",
        "rbd",
        "deprecated in v1.28, non-functional in v1.31+",
    ),
];

/// A PersistentVolume on create (after ObjectMeta, which meta.rs checks).
// Kept out of its caller: see `validate::workloads::validate_kind`.
#[inline(never)]
pub(super) fn validate(obj: &Value, ctx: &Ctx, out: &mut Findings) {
    let before = out.errors.len();
    let empty = Value::Object(serde_json::Map::new());
    let spec = opt(obj, "spec").unwrap_or(&empty);
    let name = obj.get("metadata").map_or("", |m| str_of(m, "name"));
    validate_spec(spec, name, ctx, out);
    mount_option_annotation(obj, spec, out);
    if out.errors.len() == before && super::meta::passes("", "PersistentVolume", obj, ctx) {
        // rest.BeforeCreate asks for the warnings only of an object that passed.
        warnings(obj, spec, out);
    }
}

/// ValidatePersistentVolumeSpec for a standalone volume, on the spec as defaulted.
fn validate_spec(spec: &Value, pv_name: &str, ctx: &Ctx, out: &mut Findings) {
    let minor = ctx.gates.version.minor;
    let defaulted = !ctx.skip_defaulting;
    let p = FieldPath::new("spec");
    access_modes(spec, &p.child("accessModes"), out);
    capacity(spec, &p.child("capacity"), minor, defaulted, out);
    // SetDefaults_PersistentVolume: an empty policy is Retain.
    let policy = match opt_str(spec, "persistentVolumeReclaimPolicy") {
        Some("") | None if defaulted => "Retain",
        other => other.unwrap_or(""),
    };
    if !policy.is_empty() && !RECLAIM_POLICIES.contains(&policy) {
        out.push(Diagnostic::not_supported(
            &p.child("persistentVolumeReclaimPolicy"),
            policy,
            &RECLAIM_POLICIES,
        ));
    }
    let mut node_affinity = false;
    if let Some(na) = opt(spec, "nodeAffinity") {
        node_affinity = true;
        let np = p.child("nodeAffinity");
        match opt(na, "required") {
            Some(req) => {
                super::pod_scheduling::required_node_selector(req, &np.child("required"), ctx, out)
            }
            None => out.push(Diagnostic::required(
                &np.child("required"),
                "must specify required node constraints",
            )),
        }
    }
    let opts = EnvOpts::of(ctx);
    let mut n = 0;
    for (key, err_key, dup_key) in SOURCES {
        let Some(s) = opt(spec, key) else { continue };
        // Upstream counts a flexVolume without asking whether another source came first.
        if n > 0 && key != "flexVolume" {
            out.push(Diagnostic::forbidden(
                &p.child(dup_key),
                "may not specify more than 1 volume type",
            ));
            continue;
        }
        n += 1;
        source(key, s, &p.child(err_key), pv_name, opts, defaulted, out);
        if key == "local" && !node_affinity {
            out.push(Diagnostic::required(
                &p.child("nodeAffinity"),
                "Local volume requires node affinity",
            ));
        }
    }
    if n == 0 {
        out.push(Diagnostic::required(&p, "must specify a volume type"));
    }
    if let Some(hp) = opt(spec, "hostPath")
        && go_path_clean(str_of(hp, "path")) == "/"
        && policy == "Recycle"
    {
        out.push(Diagnostic::forbidden(
            &p.child("persistentVolumeReclaimPolicy"),
            "may not be 'recycle' for a hostPath mount of '/'",
        ));
    }
    let class = str_of(spec, "storageClassName");
    if !class.is_empty() {
        for m in dns1123_subdomain_name(class, false) {
            out.push(Diagnostic::invalid(&p.child("storageClassName"), class, m));
        }
    }
    let mode = match opt_str(spec, "volumeMode") {
        None if defaulted => Some("Filesystem"),
        other => other,
    };
    if let Some(m) = mode
        && !VOLUME_MODES.contains(&m)
    {
        out.push(Diagnostic::not_supported(
            &p.child("volumeMode"),
            m,
            &VOLUME_MODES,
        ));
    }
    // PrepareForCreate drops the class with the gate off; the options' EnableVolumeAttributesClass
    // is the gate, so nothing is checked then either way.
    if ctx.gates.enabled(GATE_VAC)
        && let Some(vac) = opt(spec, "volumeAttributesClassName")
    {
        let vac = vac.as_str().unwrap_or("");
        let vp = p.child("volumeAttributesClassName");
        if vac.is_empty() {
            out.push(Diagnostic::required(&vp, "an empty string is disallowed"));
        } else {
            for m in dns1123_subdomain_name(vac, false) {
                out.push(Diagnostic::invalid(&vp, vac, m));
            }
        }
        if opt(spec, "csi").is_none() {
            out.push(Diagnostic::required(
                &p.child("csi"),
                "has to be specified when using volumeAttributesClassName",
            ));
        }
    }
}

fn access_modes(spec: &Value, mp: &FieldPath, out: &mut Findings) {
    let modes: Vec<&str> = list(spec, "accessModes")
        .iter()
        .map(|m| m.as_str().unwrap_or(""))
        .collect();
    if modes.is_empty() {
        out.push(Diagnostic::required(mp, ""));
    }
    super::pvc::access_mode_values(&modes, mp, out);
}

/// The capacity checks: Required when empty, NotSupported (the whole map printed) unless it is
/// exactly `storage`, and per entry validateBasicResource (Value() not negative) and
/// ValidatePositiveQuantityValue. Entries are taken in name order (upstream ranges over a Go
/// map, in no fixed order).
fn capacity(spec: &Value, cp: &FieldPath, minor: u32, defaulted: bool, out: &mut Findings) {
    let raw = opt(spec, "capacity").and_then(Value::as_object);
    let mut entries: BTreeMap<&str, Option<Quantity>> = BTreeMap::new();
    for (k, v) in raw.into_iter().flatten() {
        // A null entry decodes to the zero quantity.
        let q = if v.is_null() {
            Quantity::parse("0")
        } else {
            Quantity::from_json(v)
        };
        entries.insert(k, q.map(|q| if defaulted { q.round_up_milli() } else { q }));
    }
    if entries.is_empty() {
        out.push(Diagnostic::required(cp, ""));
    }
    if !entries.contains_key("storage") || entries.len() > 1 {
        let printed = printed_resource_list(raw.is_some(), &entries, minor);
        out.push(
            Diagnostic::not_supported(cp, Value::Null, &["storage"]).with_printed_value(&printed),
        );
    }
    for (k, q) in &entries {
        let Some(q) = q else { continue };
        let kp = cp.key(k);
        if q.value() < 0 {
            out.push(Diagnostic::invalid(
                &kp,
                q.value(),
                "must be a valid resource quantity",
            ));
        }
        if q.is_zero() || q.is_negative() {
            out.push(Diagnostic::invalid(
                &kp,
                q.canonical(),
                "must be greater than zero",
            ));
        }
    }
}

/// A ResourceList as a field error prints it: JSON from 1.34 (`null` for a nil map), Go's
/// `%#v` before (`core.ResourceList(nil)`, `core.ResourceList{"cpu":resource.Quantity{…}}`).
fn printed_resource_list(
    present: bool,
    entries: &BTreeMap<&str, Option<Quantity>>,
    minor: u32,
) -> String {
    let text = |q: &Option<Quantity>| {
        q.as_ref()
            .map_or_else(|| "0".to_owned(), Quantity::canonical)
    };
    if Change::FieldErrorJsonValues.at(minor) {
        if !present {
            return "null".to_owned();
        }
        let m: serde_json::Map<String, Value> = entries
            .iter()
            .map(|(k, q)| ((*k).to_owned(), Value::String(text(q))))
            .collect();
        return Value::Object(m).to_string();
    }
    if !present {
        return "core.ResourceList(nil)".to_owned();
    }
    let items: Vec<String> = entries
        .iter()
        .map(|(k, q)| {
            let debug = q.as_ref().map_or_else(
                || {
                    Quantity::parse("0")
                        .map(|z| z.go_debug())
                        .unwrap_or_default()
                },
                Quantity::go_debug,
            );
            format!("{k:?}:{debug}")
        })
        .collect();
    format!("core.ResourceList{{{}}}", items.join(", "))
}

/// One source's persistent-volume validator (`key`: its v1 name; `p`: the path its errors go
/// under). Sources whose validator is the Pod volume's share pod_volumes' code.
fn source(
    key: &str,
    s: &Value,
    p: &FieldPath,
    pv_name: &str,
    opts: EnvOpts,
    defaulted: bool,
    out: &mut Findings,
) {
    let required = |k: &str, out: &mut Findings| pod_volumes::required_str(s, k, p, out);
    match key {
        "glusterfs" => {
            required("endpoints", out);
            required("path", out);
            if let Some(ns) = opt(s, "endpointsNamespace") {
                let ns = ns.as_str().unwrap_or("");
                let np = p.child("endpointsNamespace");
                if ns.is_empty() {
                    out.push(Diagnostic::invalid(
                        &np,
                        ns,
                        "if the endpointnamespace is set, it must be a valid namespace name",
                    ));
                } else {
                    for m in dns1123_label(ns) {
                        out.push(Diagnostic::invalid(&np, ns, m));
                    }
                }
            }
        }
        "iscsi" => pod_volumes::iscsi(s, p, Some(pv_name), out),
        "cinder" | "storageos" => {
            if key == "cinder" {
                required("volumeID", out);
            } else {
                let vn = str_of(s, "volumeName");
                if vn.is_empty() {
                    out.push(Diagnostic::required(&p.child("volumeName"), ""));
                } else {
                    for m in dns1123_label(vn) {
                        out.push(Diagnostic::invalid(&p.child("volumeName"), vn, m));
                    }
                }
                let ns = str_of(s, "volumeNamespace");
                if !ns.is_empty() {
                    for m in dns1123_label(ns) {
                        out.push(Diagnostic::invalid(&p.child("volumeNamespace"), ns, m));
                    }
                }
            }
            if let Some(r) = opt(s, "secretRef") {
                let rp = p.child("secretRef");
                for k in ["name", "namespace"] {
                    if str_of(r, k).is_empty() {
                        out.push(Diagnostic::required(&rp.child(k), ""));
                    }
                }
            }
        }
        "azureFile" => {
            required("secretName", out);
            required("shareName", out);
            if opt(s, "secretNamespace").is_some_and(|n| n.as_str().unwrap_or("").is_empty()) {
                out.push(Diagnostic::required(&p.child("secretNamespace"), ""));
            }
        }
        "azureDisk" => pod_volumes::azure_disk(s, p, defaulted, out),
        "local" => {
            let path = str_of(s, "path");
            if path.is_empty() {
                out.push(Diagnostic::required(&p.child("path"), ""));
            } else {
                super::pod_env::path_no_backsteps(path, &p.child("path"), out);
            }
        }
        "csi" => {
            super::pod_volumes::csi_driver_name(
                str_of(s, "driver"),
                &p.child("driver"),
                opts.minor,
                out,
            );
            required("volumeHandle", out);
            for r in [
                "controllerPublishSecretRef",
                "controllerExpandSecretRef",
                "nodePublishSecretRef",
                "nodeExpandSecretRef",
            ] {
                if let Some(sr) = opt(s, r) {
                    pv_secret_reference(sr, &p.child(r), out);
                }
            }
        }
        // hostPath, gcePersistentDisk, awsElasticBlockStore, flocker, nfs, rbd, quobyte, cephfs,
        // fc, flexVolume, vsphereVolume, photonPersistentDisk, portworxVolume, scaleIO: the same
        // validator as a Pod volume's (rbd's, cephfs', flex's and scaleIO's PV variants check
        // the same fields).
        _ => pod_volumes::source(key, s, p, opts, out),
    }
}

/// validatePVSecretReference: a name (a DNS subdomain) and a namespace (a DNS label).
fn pv_secret_reference(r: &Value, p: &FieldPath, out: &mut Findings) {
    let name = str_of(r, "name");
    if name.is_empty() {
        out.push(Diagnostic::required(&p.child("name"), ""));
    } else {
        for m in dns1123_subdomain_name(name, false) {
            out.push(Diagnostic::invalid(&p.child("name"), name, m));
        }
    }
    let ns = str_of(r, "namespace");
    if ns.is_empty() {
        out.push(Diagnostic::required(&p.child("namespace"), ""));
    } else {
        for m in dns1123_label(ns) {
            out.push(Diagnostic::invalid(&p.child("namespace"), ns, m));
        }
    }
}

/// checkMountOption: the mount-options annotation on a source that takes no mount options.
fn mount_option_annotation(obj: &Value, spec: &Value, out: &mut Findings) {
    if TAKE_MOUNT_OPTIONS.iter().any(|k| opt(spec, k).is_some()) {
        return;
    }
    let has = obj
        .get("metadata")
        .and_then(|m| m.get("annotations"))
        .and_then(Value::as_object)
        .is_some_and(|a| a.contains_key(MOUNT_OPTIONS));
    if has {
        // Upstream's Child, not Key: the annotation is written as a dotted path segment.
        out.push(Diagnostic::forbidden(
            &FieldPath::new("metadata")
                .child("annotations")
                .child(MOUNT_OPTIONS),
            "may not specify mount options for this volume type",
        ));
    }
}

/// Go's `path.Clean`, as far as telling whether a path is `/` needs it: `.` and empty elements
/// dropped, `..` removing the one before (never above the root).
fn go_path_clean(path: &str) -> String {
    let rooted = path.starts_with('/');
    let mut parts: Vec<&str> = Vec::new();
    for e in path.split('/') {
        match e {
            "" | "." => {}
            ".." => {
                if parts.last().is_some_and(|l| *l != "..") {
                    parts.pop();
                } else if !rooted {
                    parts.push("..");
                }
            }
            _ => parts.push(e),
        }
    }
    let joined = parts.join("/");
    match (rooted, joined.is_empty()) {
        (true, _) => format!("/{joined}"),
        (false, true) => ".".to_owned(),
        (false, false) => joined,
    }
}

/// GetWarningsForPersistentVolume.
fn warnings(obj: &Value, spec: &Value, out: &mut Findings) {
    let mut warn = |p: &FieldPath, code: &str, msg: String| {
        out.push(Diagnostic::lint(code, p, msg).with_origin(Origin::KubeApiserver));
    };
    let annotations = obj
        .get("metadata")
        .and_then(|m| m.get("annotations"))
        .and_then(Value::as_object);
    for (key, msg) in [
        (
            "volume.beta.kubernetes.io/storage-class",
            "deprecated since v1.8; use \"storageClassName\" attribute instead",
        ),
        (
            MOUNT_OPTIONS,
            "deprecated since v1.31; use \"mountOptions\" attribute instead",
        ),
    ] {
        if annotations.is_some_and(|a| a.contains_key(key)) {
            let p = FieldPath::new("metadata").child("annotations").key(key);
            // The codes as the PersistentVolumeClaim's warning names the storage-class one.
            let code = if key == MOUNT_OPTIONS {
                "deprecated-mount-options-annotation"
            } else {
                "deprecated-storage-class-annotation"
            };
            warn(&p, code, format!("{}: {msg}", p.as_str()));
        }
    }
    let policy = opt_str(spec, "persistentVolumeReclaimPolicy");
    if policy == Some("Recycle") {
        let p = FieldPath::new("spec").child("persistentVolumeReclaimPolicy");
        warn(
            &p,
            "deprecated-recycle-policy",
            format!(
                "{}: The Recycle reclaim policy is deprecated. Instead, the recommended approach is to use dynamic provisioning.",
                p.as_str()
            ),
        );
    }
    if let Some(req) = opt(spec, "nodeAffinity").and_then(|na| opt(na, "required")) {
        let tp = FieldPath::new("spec")
            .child("nodeAffinity")
            .child("required")
            .child("nodeSelectorTerms");
        for (i, term) in list(req, "nodeSelectorTerms").iter().enumerate() {
            for (j, e) in list(term, "matchExpressions").iter().enumerate() {
                let key = str_of(e, "key");
                if let Some(msg) = super::storage_class::deprecated_node_label(key) {
                    let p = tp.index(i).child("matchExpressions").index(j).child("key");
                    warn(
                        &p,
                        "deprecated-node-label",
                        format!("{}: {key} is {msg}", p.as_str()),
                    );
                }
            }
        }
    }
    for (key, shown, msg) in DEPRECATED_PLUGINS {
        if opt(spec, key).is_some() {
            let p = FieldPath::new("spec").child(shown);
            warn(
                &p,
                "deprecated-volume-plugin",
                format!("{}: {msg}", p.as_str()),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::indexing_slicing)]
    use super::*;
    use serde_json::json;

    fn run(obj: &Value, minor: u32, gates: &[(&str, bool)]) -> (Vec<String>, Vec<String>) {
        let c = Ctx::at(minor, gates);
        let mut out = Findings::default();
        validate(obj, &c, &mut out);
        let m = |v: &[Diagnostic]| v.iter().map(|d| d.message.clone()).collect();
        (m(&out.errors), m(&out.warnings))
    }

    fn pv(spec: Value) -> Value {
        json!({"apiVersion": "v1", "kind": "PersistentVolume",
               "metadata": {"name": "pv-1"}, "spec": spec})
    }

    fn nfs() -> Value {
        json!({"accessModes": ["ReadWriteMany"], "capacity": {"storage": "10Gi"},
               "nfs": {"server": "10.0.0.2", "path": "/exports"}})
    }

    #[test]
    fn a_plain_nfs_volume_passes_with_no_warning() {
        assert_eq!(run(&pv(nfs()), 37, &[]), (vec![], vec![]));
    }

    #[test]
    fn capacity_must_be_storage_alone_and_positive() {
        let mut s = nfs();
        s["capacity"] = json!({"storage": "0", "cpu": "1"});
        let (e, _) = run(&pv(s.clone()), 37, &[]);
        assert_eq!(
            e,
            [
                r#"spec.capacity: Unsupported value: {"cpu":"1","storage":"0"}: supported values: "storage""#,
                "spec.capacity[storage]: Invalid value: \"0\": must be greater than zero",
            ]
        );
        s["capacity"] = json!({"storage": "-1.5Gi"});
        let (e, _) = run(&pv(s.clone()), 37, &[]);
        assert_eq!(
            e,
            [
                "spec.capacity[storage]: Invalid value: -1610612736: must be a valid resource quantity",
                "spec.capacity[storage]: Invalid value: \"-1536Mi\": must be greater than zero",
            ]
        );
        s.as_object_mut().map(|o| o.remove("capacity"));
        let (e, _) = run(&pv(s.clone()), 37, &[]);
        assert_eq!(
            e,
            [
                "spec.capacity: Required value",
                "spec.capacity: Unsupported value: null: supported values: \"storage\"",
            ]
        );
        let (e, _) = run(&pv(s), 31, &[]);
        assert_eq!(
            e[1],
            "spec.capacity: Unsupported value: core.ResourceList(nil): supported values: \"storage\""
        );
    }

    #[test]
    fn exactly_one_source_and_flex_counts_without_asking() {
        let mut s = nfs();
        s["hostPath"] = json!({"path": "/data"});
        let (e, _) = run(&pv(s.clone()), 37, &[]);
        assert_eq!(
            e,
            ["spec.nfs: Forbidden: may not specify more than 1 volume type"]
        );
        s.as_object_mut().map(|o| o.remove("hostPath"));
        s["flexVolume"] = json!({"driver": ""});
        let (e, _) = run(&pv(s.clone()), 37, &[]);
        assert_eq!(e, ["spec.flexVolume.driver: Required value"]);
        s.as_object_mut().map(|o| {
            o.remove("flexVolume");
            o.remove("nfs")
        });
        let (e, _) = run(&pv(s), 37, &[]);
        assert_eq!(e, ["spec: Required value: must specify a volume type"]);
    }

    #[test]
    fn local_volumes_need_node_affinity_and_values_are_checked_from_1_33() {
        let s = json!({"accessModes": ["ReadWriteOnce"], "capacity": {"storage": "100Gi"},
                       "local": {"path": "/mnt/disks/../ssd1"}});
        let (e, _) = run(&pv(s.clone()), 37, &[]);
        assert_eq!(
            e,
            [
                "spec.local.path: Invalid value: \"/mnt/disks/../ssd1\": must not contain '..'",
                "spec.nodeAffinity: Required value: Local volume requires node affinity",
            ]
        );
        let mut s = s;
        s["local"] = json!({"path": "/mnt/disks/ssd1"});
        s["nodeAffinity"] = json!({"required": {"nodeSelectorTerms": [{"matchExpressions": [
            {"key": "kubernetes.io/hostname", "operator": "In", "values": ["node 1"]}]}]}});
        let (e, _) = run(&pv(s.clone()), 37, &[]);
        assert_eq!(e.len(), 1, "{e:?}");
        assert!(e[0].starts_with("spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0].values[0]: Invalid value: \"node 1\""));
        assert_eq!(run(&pv(s.clone()), 32, &[]).0, Vec::<String>::new());
        s["nodeAffinity"] = json!({});
        assert_eq!(
            run(&pv(s), 37, &[]).0,
            ["spec.nodeAffinity.required: Required value: must specify required node constraints"]
        );
    }

    #[test]
    fn csi_secret_references_need_a_name_and_namespace() {
        let s = json!({"accessModes": ["ReadWriteOnce"], "capacity": {"storage": "5Gi"},
                       "csi": {"driver": "ebs.csi.aws.com", "volumeHandle": "",
                               "nodePublishSecretRef": {"name": "Bad_Name"}}});
        let (e, _) = run(&pv(s), 37, &[]);
        assert_eq!(e[0], "spec.csi.volumeHandle: Required value");
        assert!(
            e[1].starts_with("spec.csi.nodePublishSecretRef.name: Invalid value: \"Bad_Name\"")
        );
        assert_eq!(
            e[2],
            "spec.csi.nodePublishSecretRef.namespace: Required value"
        );
        assert_eq!(e.len(), 3);
    }

    #[test]
    fn iscsi_persistent_volumes_check_names_and_the_portal_length() {
        let s = json!({"accessModes": ["ReadWriteOnce"], "capacity": {"storage": "5Gi"},
                       "iscsi": {"targetPortal": "10.0.2.15:3260", "iqn": "iqn.2001-04.com.example:storage.disk1",
                                 "lun": 0, "initiatorName": "iqn.2001-04.com.example:node1"}});
        assert_eq!(run(&pv(s.clone()), 37, &[]).0, Vec::<String>::new());
        let mut bad = s.clone();
        bad["iscsi"]["iqn"] = json!("x.2001");
        bad["iscsi"]["initiatorName"] = json!("eui.0123");
        bad["iscsi"]["lun"] = json!(256);
        bad["iscsi"]["chapAuthSession"] = json!(true);
        let mut long = pv(bad);
        long["metadata"]["name"] = json!("p".repeat(60));
        assert_eq!(
            run(&long, 37, &[]).0,
            [
                "spec.iscsi.targetportal: Invalid value: \"10.0.2.15:3260\": Total length of <volume name>:<iscsi.targetPortal> must be under 64 characters if iscsi.initiatorName is specified.",
                "spec.iscsi.iqn: Invalid value: \"x.2001\": must be valid format",
                "spec.iscsi.lun: Invalid value: 256: must be between 0 and 255, inclusive",
                "spec.iscsi.secretRef: Required value",
                "spec.iscsi.initiatorname: Invalid value: \"eui.0123\": must be valid format",
            ]
        );
    }

    #[test]
    fn defaults_reclaim_policy_volume_mode_and_azure_disk_kind() {
        let s = json!({"accessModes": ["ReadWriteOnce"], "capacity": {"storage": "5Gi"},
                       "persistentVolumeReclaimPolicy": "", "volumeMode": "Block",
                       "azureDisk": {"diskName": "d", "diskURI": "/subscriptions/x/disks/d"}});
        let (e, _) = run(&pv(s), 37, &[]);
        assert_eq!(e.len(), 1, "{e:?}");
        assert!(e[0].starts_with(
            "spec.azureDisk.diskURI: Unsupported value: \"/subscriptions/x/disks/d\""
        ));
        let s = json!({"accessModes": ["ReadWriteOnce"], "capacity": {"storage": "5Gi"},
                       "persistentVolumeReclaimPolicy": "Recycle", "hostPath": {"path": "//./"}});
        let (e, _) = run(&pv(s), 37, &[]);
        assert_eq!(
            e,
            [
                "spec.persistentVolumeReclaimPolicy: Forbidden: may not be 'recycle' for a hostPath mount of '/'"
            ]
        );
    }

    #[test]
    fn mount_option_annotation_only_on_sources_that_mount() {
        let mut obj = pv(
            json!({"accessModes": ["ReadWriteOnce"], "capacity": {"storage": "5Gi"},
                                "hostPath": {"path": "/data"}}),
        );
        obj["metadata"]["annotations"] = json!({MOUNT_OPTIONS: "ro"});
        assert_eq!(
            run(&obj, 37, &[]).0,
            [
                "metadata.annotations.volume.beta.kubernetes.io/mount-options: Forbidden: may not specify mount options for this volume type"
            ]
        );
        let mut ok = pv(nfs());
        ok["metadata"]["annotations"] = json!({MOUNT_OPTIONS: "ro"});
        let c = Ctx::at(37, &[]);
        let mut out = Findings::default();
        validate(&ok, &c, &mut out);
        assert_eq!(
            out.warnings.first().and_then(|w| w.code.as_deref()),
            Some("deprecated-mount-options-annotation")
        );
        assert_eq!(
            run(&ok, 37, &[]).1,
            [
                "metadata.annotations[volume.beta.kubernetes.io/mount-options]: deprecated since v1.31; use \"mountOptions\" attribute instead"
            ]
        );
    }

    #[test]
    fn warnings_for_recycle_labels_and_dead_plugins() {
        let s = json!({"accessModes": ["ReadWriteOnce"], "capacity": {"storage": "5Gi"},
                       "persistentVolumeReclaimPolicy": "Recycle",
                       "storageos": {"volumeName": "v"},
                       "nodeAffinity": {"required": {"nodeSelectorTerms": [{"matchExpressions": [
                           {"key": "failure-domain.beta.kubernetes.io/zone", "operator": "Exists"}]}]}}});
        let (e, w) = run(&pv(s), 37, &[]);
        assert!(e.is_empty(), "{e:?}");
        assert_eq!(
            w,
            [
                "spec.persistentVolumeReclaimPolicy: The Recycle reclaim policy is deprecated. Instead, the recommended approach is to use dynamic provisioning.",
                "spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0].key: failure-domain.beta.kubernetes.io/zone is deprecated since v1.17; use \"topology.kubernetes.io/zone\" instead",
                "spec.storageOS: deprecated in v1.22, non-functional in v1.25+",
            ]
        );
    }

    #[test]
    fn volume_attributes_class_needs_the_gate_and_csi() {
        let mut s = nfs();
        s["volumeAttributesClassName"] = json!("");
        assert_eq!(
            run(&pv(s.clone()), 37, &[]).0,
            [
                "spec.volumeAttributesClassName: Required value: an empty string is disallowed",
                "spec.csi: Required value: has to be specified when using volumeAttributesClassName",
            ]
        );
        assert!(run(&pv(s), 31, &[]).0.is_empty());
    }

    #[test]
    fn go_path_clean_reads_root() {
        for (i, o) in [
            ("/", "/"),
            ("//x/..", "/"),
            ("/..", "/"),
            ("a/../..", ".."),
            ("", "."),
            ("/a/./b/", "/a/b"),
        ] {
            assert_eq!(go_path_clean(i), o, "{i}");
        }
    }
}
