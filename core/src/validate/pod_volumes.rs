//! A PodSpec's `volumes`, and each container's `volumeMounts` and `volumeDevices`, as
//! kube-apiserver checks them on create.
//!
//! Upstream: `pkg/apis/core/validation/validation.go` (ValidateVolumes, validateVolumeSource and
//! the sources' validators, validateKeyToPath, validateDownwardAPIVolumeFile,
//! validateProjectionSources, validateHostPathType, validateLocalDescendingPath,
//! validatePathNoBacksteps, ValidateLocalNonReservedPath, ValidateCSIDriverName,
//! ValidateVolumeMounts, validateMountPropagation, validateMountRecursiveReadOnly,
//! ValidateVolumeDevices, and validateEphemeralContainers' subPath rule), `pkg/apis/core/v1/
//! defaults.go` (SetDefaults_Volume: a volume without a source is an emptyDir; the image volume's
//! pullPolicy) and `pkg/api/pod/util.go` (dropDisabledFields: recursiveReadOnly without
//! RecursiveReadOnlyMounts, image volumes and their mounts without ImageVolume).
//!
//! Not modelled (no check is made, so nothing false is said): the projected clusterTrustBundle
//! and podCertificate sources, 1.37's emptyDir `mode`, `user` and `defaultUser` fields and
//! bindMountOptions. iscsi and quobyte are checked, as a PersistentVolume's are (pv.rs), and an
//! ephemeral volume's claim template as a PersistentVolumeClaimTemplate (pvc.rs).

use super::meta;
use super::pod_env::{self, EnvOpts, member, str_of};
use crate::api::{Container, PodSpec};
use crate::diag::{Diagnostic, FieldPath, Findings};
use rustc_hash::{FxHashMap, FxHashSet};
use serde_json::Value;
use crate::versions::Change;

const GATE_RRO: &str = "RecursiveReadOnlyMounts";
const GATE_IMAGE: &str = "ImageVolume";

/// The source keys of a v1 VolumeSource in validateVolumeSource's order, with the path each
/// source's own errors are reported under (upstream reports gcePersistentDisk's under
/// `persistentDisk` and cephFS's under `cephfs`) and the path of "may not specify more than 1
/// volume type" (`downwarAPI`, sic).
const SOURCES: [(&str, &str, &str); 29] = [
    ("emptyDir", "emptyDir", "emptyDir"),
    ("hostPath", "hostPath", "hostPath"),
    ("gitRepo", "gitRepo", "gitRepo"),
    ("gcePersistentDisk", "persistentDisk", "gcePersistentDisk"),
    (
        "awsElasticBlockStore",
        "awsElasticBlockStore",
        "awsElasticBlockStore",
    ),
    ("secret", "secret", "secret"),
    ("nfs", "nfs", "nfs"),
    ("iscsi", "iscsi", "iscsi"),
    ("glusterfs", "glusterfs", "glusterfs"),
    ("flocker", "flocker", "flocker"),
    (
        "persistentVolumeClaim",
        "persistentVolumeClaim",
        "persistentVolumeClaim",
    ),
    ("rbd", "rbd", "rbd"),
    ("cinder", "cinder", "cinder"),
    ("cephfs", "cephfs", "cephFS"),
    ("quobyte", "quobyte", "quobyte"),
    ("downwardAPI", "downwardAPI", "downwarAPI"),
    ("fc", "fc", "fc"),
    ("flexVolume", "flexVolume", "flexVolume"),
    ("configMap", "configMap", "configMap"),
    ("azureFile", "azureFile", "azureFile"),
    ("vsphereVolume", "vsphereVolume", "vsphereVolume"),
    (
        "photonPersistentDisk",
        "photonPersistentDisk",
        "photonPersistentDisk",
    ),
    ("portworxVolume", "portworxVolume", "portworxVolume"),
    ("azureDisk", "azureDisk", "azureDisk"),
    ("storageos", "storageos", "storageos"),
    ("projected", "projected", "projected"),
    ("scaleIO", "scaleIO", "scaleIO"),
    ("csi", "csi", "csi"),
    ("ephemeral", "ephemeral", "ephemeral"),
];

const FILE_MODE_MSG: &str = "must be a number between 0 and 0777 (octal), both inclusive";
const PARTITION_MSG: &str = "must be between 1 and 255, inclusive";
/// sets.List order of supportedHostPathTypes ("" first).
const HOST_PATH_TYPES: [&str; 8] = [
    "",
    "BlockDevice",
    "CharDevice",
    "Directory",
    "DirectoryOrCreate",
    "File",
    "FileOrCreate",
    "Socket",
];
const PROPAGATIONS: [&str; 3] = ["Bidirectional", "HostToContainer", "None"];
const RRO_VALUES: [&str; 3] = ["Disabled", "Enabled", "IfPossible"];
const PULL_POLICIES: [&str; 3] = ["Always", "IfNotPresent", "Never"];

/// What the containers' checks need of a valid volume: its name, whether it is claim-backed
/// (persistentVolumeClaim or ephemeral: block devices) and whether it is an image volume.
#[derive(Debug, Default)]
pub(super) struct Volumes {
    valid: FxHashMap<String, (bool, bool)>,
    /// Every volume by name (the last of a name wins, as upstream's map does): is it an emptyDir.
    all: FxHashMap<String, bool>,
    /// Image volumes a create drops (ImageVolume off): their mounts go too.
    dropped_images: FxHashSet<String>,
    opts: Option<EnvOpts>,
    rro: bool,
    /// 1.31 and 1.32 refuse a subPath or subPathExpr on an image volume's mount (validated
    /// image volumes only: in 1.31 under the gate; 1.33 allows them).
    image_sub_path_refused: bool,
}

impl Volumes {
    fn env_opts(&self) -> EnvOpts {
        self.opts.unwrap_or(EnvOpts {
            relaxed: true,
            env_files: false,
            minor: 37,
            defaulted: true,
        })
    }
}

fn int(v: &Value, key: &str) -> Option<i64> {
    member(v, key).and_then(Value::as_i64)
}

fn arr<'a>(v: &'a Value, key: &str) -> &'a [Value] {
    member(v, key)
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

pub(super) fn required_str(v: &Value, key: &str, p: &FieldPath, out: &mut Findings) {
    if str_of(v, key).is_empty() {
        out.push(Diagnostic::required(&p.child(key), ""));
    }
}

fn file_mode(v: &Value, key: &str, p: &FieldPath, out: &mut Findings) {
    if let Some(m) = int(v, key)
        && !(0..=0o777).contains(&m)
    {
        out.push(Diagnostic::invalid(&p.child(key), m, FILE_MODE_MSG));
    }
}

/// validateLocalDescendingPath.
fn local_descending(target: &str, p: &FieldPath, out: &mut Findings) {
    if target.starts_with('/') {
        out.push(Diagnostic::invalid(p, target, "must be a relative path"));
    }
    pod_env::path_no_backsteps(target, p, out);
}

/// ValidateLocalNonReservedPath.
fn local_non_reserved(target: &str, p: &FieldPath, out: &mut Findings) {
    local_descending(target, p, out);
    if target.starts_with("..") && !target.starts_with("../") {
        out.push(Diagnostic::invalid(p, target, "must not start with '..'"));
    }
}

/// validateKeyToPath.
fn key_to_path(kp: &Value, p: &FieldPath, out: &mut Findings) {
    required_str(kp, "key", p, out);
    let path = str_of(kp, "path");
    if path.is_empty() {
        out.push(Diagnostic::required(&p.child("path"), ""));
    }
    local_non_reserved(path, &p.child("path"), out);
    file_mode(kp, "mode", p, out);
}

/// validateDownwardAPIVolumeFile (`p`: the source's path, upstream reports the file's errors
/// there, not at the item).
fn downward_file(file: &Value, p: &FieldPath, opts: EnvOpts, out: &mut Findings) {
    let path = str_of(file, "path");
    if path.is_empty() {
        out.push(Diagnostic::required(&p.child("path"), ""));
    }
    local_non_reserved(path, &p.child("path"), out);
    if let Some(fr) = member(file, "fieldRef") {
        pod_env::object_field_selector(
            fr,
            &pod_env::VOLUME_FIELD_PATHS,
            &p.child("fieldRef"),
            opts,
            out,
        );
        if member(file, "resourceFieldRef").is_some() {
            out.push(Diagnostic::invalid(
                p,
                "resource",
                "fieldRef and resourceFieldRef can not be specified simultaneously",
            ));
        }
    } else if let Some(rf) = member(file, "resourceFieldRef") {
        pod_env::resource_field_selector(rf, &p.child("resourceFieldRef"), true, out);
    } else {
        out.push(Diagnostic::required(
            p,
            "one of fieldRef and resourceFieldRef is required",
        ));
    }
    file_mode(file, "mode", p, out);
}

fn secret_or_config_map(s: &Value, name_key: &str, p: &FieldPath, out: &mut Findings) {
    required_str(s, name_key, p, out);
    file_mode(s, "defaultMode", p, out);
    for (i, kp) in arr(s, "items").iter().enumerate() {
        key_to_path(kp, &p.child("items").index(i), out);
    }
}

/// validateProjectionSources, for the secret, configMap, downwardAPI and serviceAccountToken
/// sources.
fn projected(s: &Value, p: &FieldPath, opts: EnvOpts, out: &mut Findings) {
    file_mode(s, "defaultMode", p, out);
    let mut all_paths: FxHashSet<&str> = FxHashSet::default();
    for (i, src) in arr(s, "sources").iter().enumerate() {
        let sp = p.child("sources").index(i);
        let mut n = 0;
        for key in ["secret", "configMap"] {
            let Some(x) = member(src, key) else { continue };
            n += 1;
            let xp = sp.child(key);
            let name = str_of(x, "name");
            if name.is_empty() {
                out.push(Diagnostic::required(&xp.child("name"), ""));
            }
            for (j, kp) in arr(x, "items").iter().enumerate() {
                key_to_path(kp, &xp.child("items").index(j), out);
                let path = str_of(kp, "path");
                if !path.is_empty() && !all_paths.insert(path) {
                    out.push(Diagnostic::invalid(p, name, "conflicting duplicate paths"));
                }
            }
        }
        if let Some(x) = member(src, "downwardAPI") {
            n += 1;
            let xp = sp.child("downwardAPI");
            for file in arr(x, "items") {
                downward_file(file, &xp, opts, out);
                let path = str_of(file, "path");
                if !path.is_empty() && !all_paths.insert(path) {
                    out.push(Diagnostic::invalid(p, path, "conflicting duplicate paths"));
                }
            }
        }
        if let Some(x) = member(src, "serviceAccountToken") {
            n += 1;
            let xp = sp.child("serviceAccountToken");
            match int(x, "expirationSeconds") {
                // Defaulted to an hour; from 1.37 an unset one is refused as such.
                None if !opts.defaulted && Change::TokenExpirationRequired.at(opts.minor) => {
                    out.push(Diagnostic::required(&xp.child("expirationSeconds"), ""));
                }
                None => {
                    if !opts.defaulted {
                        // Before 1.37 the zero value is checked.
                        out.push(Diagnostic::invalid(
                            &xp.child("expirationSeconds"),
                            0,
                            "may not specify a duration less than 10 minutes",
                        ));
                    }
                }
                Some(e) => {
                    if e < 600 {
                        out.push(Diagnostic::invalid(
                            &xp.child("expirationSeconds"),
                            e,
                            "may not specify a duration less than 10 minutes",
                        ));
                    }
                    if e > 1 << 32 {
                        out.push(Diagnostic::invalid(
                            &xp.child("expirationSeconds"),
                            e,
                            "may not specify a duration larger than 2^32 seconds",
                        ));
                    }
                }
            }
            let path = str_of(x, "path");
            if path.is_empty() {
                out.push(Diagnostic::required(&p.child("path"), ""));
            } else {
                // AllowNonLocalProjectedTokenPath is false on create.
                local_non_reserved(path, &p.child("path"), out);
            }
        }
        for key in ["clusterTrustBundle", "podCertificate"] {
            if member(src, key).is_some() {
                n += 1;
            }
        }
        if n > 1 {
            out.push(Diagnostic::forbidden(
                &sp,
                "may not specify more than 1 volume type per source",
            ));
        }
    }
}

/// ValidateCSIDriverName. Before 1.35 an empty name goes on to the DNS-subdomain check too (two
/// errors); from 1.35 Required ends it.
pub(super) fn csi_driver_name(name: &str, p: &FieldPath, minor: u32, out: &mut Findings) {
    if name.is_empty() {
        out.push(Diagnostic::required(p, ""));
        if Change::CsiDriverNameRequiredEnds.at(minor) {
            return;
        }
    }
    if name.len() > 63 {
        out.push(Diagnostic::too_long(p, "", 63));
    }
    for m in meta::dns1123_subdomain_name(&name.to_lowercase(), false) {
        out.push(Diagnostic::invalid(p, name, m));
    }
}

fn secret_ref_name(s: &Value, p: &FieldPath, out: &mut Findings) {
    if let Some(r) = member(s, "secretRef")
        && str_of(r, "name").is_empty()
    {
        out.push(Diagnostic::required(
            &p.child("secretRef").child("name"),
            "",
        ));
    }
}

/// One source's own validator (`key`: its v1 name; `p`: the path its errors go under).
pub(super) fn source(key: &str, s: &Value, p: &FieldPath, opts: EnvOpts, out: &mut Findings) {
    match key {
        "emptyDir" => {
            if let Some(q) = member(s, "sizeLimit")
                && pod_env::canonical_quantity(&quantity_text(q))
                    .is_some_and(|c| c.starts_with('-'))
            {
                out.push(Diagnostic::forbidden(
                    &p.child("sizeLimit"),
                    "SizeLimit field must be a valid resource quantity",
                ));
            }
        }
        "hostPath" => {
            let path = str_of(s, "path");
            if path.is_empty() {
                out.push(Diagnostic::required(&p.child("path"), ""));
                return;
            }
            pod_env::path_no_backsteps(path, &p.child("path"), out);
            if let Some(t) = s.get("type").and_then(Value::as_str)
                && !HOST_PATH_TYPES.contains(&t)
            {
                out.push(Diagnostic::not_supported(
                    &p.child("type"),
                    t,
                    &HOST_PATH_TYPES,
                ));
            }
        }
        "gitRepo" => {
            required_str(s, "repository", p, out);
            local_descending(str_of(s, "directory"), &p.child("directory"), out);
        }
        "gcePersistentDisk" | "awsElasticBlockStore" => {
            let id = if key == "gcePersistentDisk" {
                "pdName"
            } else {
                "volumeID"
            };
            required_str(s, id, p, out);
            if let Some(part) = int(s, "partition")
                && !(0..=255).contains(&part)
            {
                out.push(Diagnostic::invalid(
                    &p.child("partition"),
                    part,
                    PARTITION_MSG,
                ));
            }
        }
        "secret" => secret_or_config_map(s, "secretName", p, out),
        "configMap" => secret_or_config_map(s, "name", p, out),
        "nfs" => {
            required_str(s, "server", p, out);
            let path = str_of(s, "path");
            if path.is_empty() {
                out.push(Diagnostic::required(&p.child("path"), ""));
            }
            if !path.starts_with('/') {
                out.push(Diagnostic::invalid(
                    &p.child("path"),
                    path,
                    "must be an absolute path",
                ));
            }
        }
        "glusterfs" => {
            if str_of(s, "endpoints").is_empty() {
                out.push(Diagnostic::required(&p.child("endpoints"), ""));
            }
            required_str(s, "path", p, out);
        }
        "flocker" => {
            let name = str_of(s, "datasetName");
            let uuid = str_of(s, "datasetUUID");
            if name.is_empty() && uuid.is_empty() {
                out.push(Diagnostic::required(
                    p,
                    "one of datasetName and datasetUUID is required",
                ));
            }
            if !name.is_empty() && !uuid.is_empty() {
                out.push(Diagnostic::invalid(
                    p,
                    "resource",
                    "datasetName and datasetUUID can not be specified simultaneously",
                ));
            }
            if name.contains('/') {
                out.push(Diagnostic::invalid(
                    &p.child("datasetName"),
                    name,
                    "must not contain '/'",
                ));
            }
        }
        "persistentVolumeClaim" => required_str(s, "claimName", p, out),
        "rbd" => {
            if arr(s, "monitors").is_empty() {
                out.push(Diagnostic::required(&p.child("monitors"), ""));
            }
            required_str(s, "image", p, out);
        }
        "cinder" => {
            required_str(s, "volumeID", p, out);
            secret_ref_name(s, p, out);
        }
        "cephfs" if arr(s, "monitors").is_empty() => {
            out.push(Diagnostic::required(&p.child("monitors"), ""));
        }
        "downwardAPI" => {
            file_mode(s, "defaultMode", p, out);
            for file in arr(s, "items") {
                downward_file(file, p, opts, out);
            }
        }
        "fc" => {
            let wwns = arr(s, "targetWWNs");
            let wwids = arr(s, "wwids");
            if wwns.is_empty() && wwids.is_empty() {
                out.push(Diagnostic::required(
                    &p.child("targetWWNs"),
                    "must specify either targetWWNs or wwids, but not both",
                ));
            }
            if !wwns.is_empty() && !wwids.is_empty() {
                // The list as the minor's apimachinery prints it (Go's %#v before 1.34).
                let items: Vec<&str> = wwns.iter().map(|w| w.as_str().unwrap_or("")).collect();
                out.push(super::pod_dns::invalid_list(
                    &p.child("targetWWNs"),
                    &items,
                    opts.minor,
                    "targetWWNs and wwids can not be specified simultaneously".to_owned(),
                ));
            }
            if !wwns.is_empty() {
                match int(s, "lun") {
                    None => out.push(Diagnostic::required(
                        &p.child("lun"),
                        "lun is required if targetWWNs is specified",
                    )),
                    Some(l) if !(0..=255).contains(&l) => out.push(Diagnostic::invalid(
                        &p.child("lun"),
                        l,
                        "must be between 0 and 255, inclusive",
                    )),
                    Some(_) => {}
                }
            }
        }
        "flexVolume" => {
            required_str(s, "driver", p, out);
            if let Some(o) = member(s, "options").and_then(Value::as_object) {
                for k in o.keys() {
                    let ns = k.split_once('/').map_or(k.as_str(), |(a, _)| a);
                    let norm = format!(".{}", ns.to_lowercase());
                    if norm.ends_with(".kubernetes.io") || norm.ends_with(".k8s.io") {
                        out.push(Diagnostic::invalid(
                            &p.child("options").key(k),
                            k.as_str(),
                            "kubernetes.io and k8s.io namespaces are reserved",
                        ));
                    }
                }
            }
        }
        "azureFile" => {
            required_str(s, "secretName", p, out);
            required_str(s, "shareName", p, out);
        }
        "vsphereVolume" => required_str(s, "volumePath", p, out),
        "photonPersistentDisk" => required_str(s, "pdID", p, out),
        "portworxVolume" => required_str(s, "volumeID", p, out),
        "azureDisk" => azure_disk(s, p, opts.defaulted, out),
        "iscsi" => iscsi(s, p, None, out),
        "quobyte" => quobyte(s, p, out),
        "storageos" => {
            let vn = str_of(s, "volumeName");
            if vn.is_empty() {
                out.push(Diagnostic::required(&p.child("volumeName"), ""));
            } else {
                for m in meta::dns1123_label(vn) {
                    out.push(Diagnostic::invalid(&p.child("volumeName"), vn, m));
                }
            }
            let ns = str_of(s, "volumeNamespace");
            if !ns.is_empty() {
                for m in meta::dns1123_label(ns) {
                    out.push(Diagnostic::invalid(&p.child("volumeNamespace"), ns, m));
                }
            }
            secret_ref_name(s, p, out);
        }
        "projected" => projected(s, p, opts, out),
        "scaleIO" => {
            required_str(s, "gateway", p, out);
            required_str(s, "system", p, out);
            required_str(s, "volumeName", p, out);
        }
        "csi" => {
            csi_driver_name(str_of(s, "driver"), &p.child("driver"), opts.minor, out);
            if let Some(r) = member(s, "nodePublishSecretRef") {
                let name = str_of(r, "name");
                if name.is_empty() {
                    out.push(Diagnostic::required(
                        &p.child("nodePublishSecretRef").child("name"),
                        "",
                    ));
                } else {
                    // Upstream reports these at csi.name.
                    for m in meta::dns1123_subdomain_name(name, false) {
                        out.push(Diagnostic::invalid(&p.child("name"), name, m));
                    }
                }
            }
        }
        "ephemeral" if member(s, "volumeClaimTemplate").is_none() => {
            out.push(Diagnostic::required(&p.child("volumeClaimTemplate"), ""));
        }
        _ => {}
    }
}

fn quantity_text(q: &Value) -> String {
    match q {
        Value::String(s) => s.clone(),
        Value::Number(n) => n.to_string(),
        _ => String::new(),
    }
}

/// validateAzureDisk, after the v1 defaulting when `defaulted` (a disk without `kind` is
/// `Shared`, so its URI must be a blob URL; cachingMode defaults to ReadWrite, which passes).
pub(super) fn azure_disk(s: &Value, p: &FieldPath, defaulted: bool, out: &mut Findings) {
    const CACHING: [&str; 3] = ["None", "ReadOnly", "ReadWrite"];
    const KINDS: [&str; 3] = ["Dedicated", "Managed", "Shared"];
    required_str(s, "diskName", p, out);
    let uri = str_of(s, "diskURI");
    if uri.is_empty() {
        out.push(Diagnostic::required(&p.child("diskURI"), ""));
    }
    if let Some(c) = s.get("cachingMode").and_then(Value::as_str)
        && !CACHING.contains(&c)
    {
        out.push(Diagnostic::not_supported(
            &p.child("cachingMode"),
            c,
            &CACHING,
        ));
    }
    let kind = s
        .get("kind")
        .and_then(Value::as_str)
        .or(defaulted.then_some("Shared"));
    if let Some(k) = kind {
        if !KINDS.contains(&k) {
            out.push(Diagnostic::not_supported(&p.child("kind"), k, &KINDS));
        }
        if k == "Managed" && !uri.starts_with("/subscriptions/") {
            out.push(Diagnostic::not_supported(
                &p.child("diskURI"),
                uri,
                &["/subscriptions/{sub-id}/resourcegroups/{group-name}/providers/microsoft.compute/disks/{disk-id}"],
            ));
        }
        if k != "Managed" && !uri.starts_with("https://") {
            out.push(Diagnostic::not_supported(
                &p.child("diskURI"),
                uri,
                &["https://{account-name}.blob.core.windows.net/{container-name}/{disk-name}.vhd"],
            ));
        }
    }
}

/// validateISCSIVolumeSource, or with `pv_name` validateISCSIPersistentVolumeSource (a
/// PersistentVolume's: the name-and-portal length at `targetportal`, the secret's name, and
/// "must be valid format" alone for an unknown prefix).
pub(super) fn iscsi(s: &Value, p: &FieldPath, pv_name: Option<&str>, out: &mut Findings) {
    let portal = str_of(s, "targetPortal");
    if portal.is_empty() {
        out.push(Diagnostic::required(&p.child("targetPortal"), ""));
    }
    let initiator = member(s, "initiatorName").map(|v| v.as_str().unwrap_or(""));
    if let Some(pv) = pv_name
        && initiator.is_some()
        && pv.len() + 1 + portal.len() > 64
    {
        out.push(Diagnostic::invalid(
            &p.child("targetportal"),
            portal,
            "Total length of <volume name>:<iscsi.targetPortal> must be under 64 characters if iscsi.initiatorName is specified.",
        ));
    }
    let prefix_msg = if pv_name.is_some() {
        "must be valid format"
    } else {
        "must be valid format starting with iqn, eui, or naa"
    };
    let iqn = str_of(s, "iqn");
    if iqn.is_empty() {
        out.push(Diagnostic::required(&p.child("iqn"), ""));
    } else if let Some(msg) = iscsi_name_error(iqn, prefix_msg) {
        out.push(Diagnostic::invalid(&p.child("iqn"), iqn, msg));
    }
    let lun = int(s, "lun").unwrap_or(0);
    if !(0..=255).contains(&lun) {
        out.push(Diagnostic::invalid(
            &p.child("lun"),
            lun,
            "must be between 0 and 255, inclusive",
        ));
    }
    let chap = |k: &str| member(s, k).and_then(Value::as_bool).unwrap_or(false);
    let secret = member(s, "secretRef");
    if (chap("chapAuthDiscovery") || chap("chapAuthSession")) && secret.is_none() {
        out.push(Diagnostic::required(&p.child("secretRef"), ""));
    }
    if pv_name.is_some()
        && let Some(r) = secret
        && str_of(r, "name").is_empty()
    {
        out.push(Diagnostic::required(
            &p.child("secretRef").child("name"),
            "",
        ));
    }
    if let Some(init) = initiator {
        // Upstream tests the prefix, then (separately) the format: an unknown prefix gives one
        // error, a known prefix with a bad format the other.
        if let Some(msg) = iscsi_name_error(init, prefix_msg) {
            out.push(Diagnostic::invalid(&p.child("initiatorname"), init, msg));
        }
    }
}

/// The error of an iSCSI qualified name (an IQN, EUI or NAA name as upstream's three patterns
/// read them), or `None` for a valid one.
fn iscsi_name_error(name: &str, prefix_msg: &'static str) -> Option<&'static str> {
    // iscsiInitiatorIqnRegex is not anchored at its start; the other two are.
    let pattern = if name.starts_with("iqn") {
        r"iqn\.\d{4}-\d{2}\.([[:alnum:]-.]+)(:[^,;*&$|\s]+)$"
    } else if name.starts_with("eui") {
        r"^eui.[[:alnum:]]{16}$"
    } else if name.starts_with("naa") {
        r"^naa.[[:alnum:]]{32}$"
    } else {
        return Some(prefix_msg);
    };
    (crate::go_regexp::matches(pattern, name) != Some(true)).then_some("must be valid format")
}

/// validateQuobyteVolumeSource: a registry of `host:port` pairs (each as Go's net.SplitHostPort
/// reads it; one error per bad pair), a tenant under 65 bytes, a volume.
pub(super) fn quobyte(s: &Value, p: &FieldPath, out: &mut Findings) {
    const REGISTRY_MSG: &str = "must be a host:port pair or multiple pairs separated by commas";
    let registry = str_of(s, "registry");
    if registry.is_empty() {
        out.push(Diagnostic::required(&p.child("registry"), REGISTRY_MSG));
    } else if str_of(s, "tenant").len() >= 65 {
        out.push(Diagnostic::required(
            &p.child("tenant"),
            "must be a UUID and may not exceed a length of 64 characters",
        ));
    } else {
        for pair in registry.split(',') {
            if !go_split_host_port_ok(pair) {
                out.push(Diagnostic::invalid(&p.child("registry"), registry, REGISTRY_MSG));
            }
        }
    }
    required_str(s, "volume", p, out);
}

/// Whether Go's `net.SplitHostPort` accepts `hostport` (the port after the last colon; a
/// bracketed host closes just before it; no other colon, `[` or `]`).
fn go_split_host_port_ok(hostport: &str) -> bool {
    let Some(i) = hostport.rfind(':') else {
        return false;
    };
    let (j, k) = if hostport.starts_with('[') {
        let Some(end) = hostport.find(']') else {
            return false;
        };
        if end + 1 != i {
            return false;
        }
        (1, end + 1)
    } else {
        if hostport.get(..i).is_some_and(|h| h.contains(':')) {
            return false;
        }
        (0, 0)
    };
    !hostport.get(j..).is_some_and(|t| t.contains('['))
        && !hostport.get(k..).is_some_and(|t| t.contains(']'))
}

/// IsValidPersistentVolumeName = NameIsDNSSubdomain.
fn pvc_name_msgs(name: &str) -> Vec<String> {
    meta::dns1123_subdomain_name(name, false)
}

/// validateVolumeSource.
fn volume_source(
    vol: &Value,
    name: &str,
    p: &FieldPath,
    pod_name: Option<&str>,
    ctx: &super::Ctx,
    image_on: bool,
    out: &mut Findings,
) {
    let opts = EnvOpts::of(ctx);
    let mut n = 0;
    let mut any = false;
    for (key, err_key, dup_key) in SOURCES {
        let Some(s) = member(vol, key) else { continue };
        any = true;
        if n > 0 {
            out.push(Diagnostic::forbidden(
                &p.child(dup_key),
                "may not specify more than 1 volume type",
            ));
            if key == "iscsi" {
                iscsi_name(s, name, p, out);
            }
            continue;
        }
        n += 1;
        source(key, s, &p.child(err_key), opts, out);
        if key == "iscsi" {
            iscsi_name(s, name, p, out);
        }
        if key == "ephemeral"
            && let Some(t) = member(s, "volumeClaimTemplate")
        {
            super::pvc::ephemeral_claim_template(
                t,
                &p.child("ephemeral").child("volumeClaimTemplate"),
                ctx,
                out,
            );
        }
        if key == "ephemeral"
            && let Some(pn) = pod_name.filter(|x| !x.is_empty())
            && !name.is_empty()
        {
            let pvc = format!("{pn}-{name}");
            for m in pvc_name_msgs(&pvc) {
                out.push(Diagnostic::invalid(
                    &p.child("name"),
                    name,
                    format!("PVC name {pvc:?}: {m}"),
                ));
            }
        }
    }
    if image_on && let Some(img) = member(vol, "image") {
        any = true;
        if n > 0 {
            out.push(Diagnostic::forbidden(
                &p.child("image"),
                "may not specify more than 1 volume type",
            ));
        } else {
            n += 1;
            let ip = p.child("image");
            // Up to 1.36 only a Pod must name its image (opts.ResourceIsPod): a template may
            // leave it for a webhook to fill; 1.37 requires it of templates too.
            if str_of(img, "reference").is_empty() && (pod_name.is_some() || Change::ImageVolumeReferenceInTemplates.at(opts.minor))
            {
                out.push(Diagnostic::required(&ip.child("reference"), ""));
            }
            match img.get("pullPolicy").and_then(Value::as_str) {
                None if opts.defaulted => {}
                None | Some("") => out.push(Diagnostic::required(&ip.child("pullPolicy"), "")),
                Some(x) if !PULL_POLICIES.contains(&x) => out.push(Diagnostic::not_supported(
                    &ip.child("pullPolicy"),
                    x,
                    &PULL_POLICIES,
                )),
                Some(_) => {}
            }
        }
    }
    // SetDefaults_Volume: a volume with no source at all is an emptyDir.
    if n == 0 && !(any || opts.defaulted) {
        out.push(Diagnostic::required(p, "must specify a volume type"));
    }
}

/// validateVolumeSource's iscsi name-length rule (made whether or not iscsi is the first source).
fn iscsi_name(s: &Value, name: &str, p: &FieldPath, out: &mut Findings) {
    if member(s, "initiatorName").is_some() && name.len() + 1 + str_of(s, "targetPortal").len() > 64
    {
        out.push(Diagnostic::invalid(
            &p.child("name"),
            name,
            "Total length of <volume name>:<iscsi.targetPortal> must be under 64 characters if iscsi.initiatorName is specified.",
        ));
    }
}

fn volumes_of(spec: &PodSpec) -> &[Value] {
    spec.other
        .get("volumes")
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

/// ValidateVolumes (`pod_name`: the Pod's name, for the ephemeral volumes' claim names; none for
/// a template). Returns what the containers' checks need.
pub(super) fn validate_volumes(
    spec: &PodSpec,
    pod_name: Option<&str>,
    path: &FieldPath,
    ctx: &super::Ctx,
    out: &mut Findings,
) -> Volumes {
    let opts = EnvOpts::of(ctx);
    let image_gate = ctx.gates.enabled(GATE_IMAGE);
    let defaulted = !ctx.skip_defaulting;
    // 1.31 validates an image volume only under the gate; later minors whenever it is there
    // (with the gate off a create has dropped it, unless skipDefaulting keeps it).
    let image_on = image_gate || (!defaulted && Change::ImageVolumeAlwaysValidated.at(opts.minor));
    let mut v = Volumes {
        opts: Some(opts),
        rro: ctx.gates.enabled(GATE_RRO),
        image_sub_path_refused: image_on && !Change::ImageVolumeSubPath.at(opts.minor),
        ..Default::default()
    };
    let vols = volumes_of(spec);
    let created: FxHashSet<String> = match pod_name.filter(|n| !n.is_empty()) {
        Some(pn) => vols
            .iter()
            .filter(|x| member(x, "ephemeral").is_some())
            .map(|x| format!("{pn}-{}", str_of(x, "name")))
            .collect(),
        None => FxHashSet::default(),
    };
    let vp = path.child("volumes");
    let mut names: FxHashSet<&str> = FxHashSet::default();
    let mut i = 0;
    for vol in vols {
        let name = str_of(vol, "name");
        // dropImageVolumes: the create removes image volumes when the gate is off (the list's
        // indexes close up).
        if defaulted && !image_gate && member(vol, "image").is_some() {
            out.push(pod_env::dropped(&vp.index(i).child("image"), GATE_IMAGE));
            v.dropped_images.insert(name.to_owned());
            continue;
        }
        let ip = vp.index(i);
        i += 1;
        let mut el = Findings::default();
        volume_source(vol, name, &ip, pod_name, ctx, image_on, &mut el);
        let np = ip.child("name");
        if name.is_empty() {
            el.push(Diagnostic::required(&np, ""));
        } else {
            for m in meta::dns1123_label(name) {
                el.push(Diagnostic::invalid(&np, name, m));
            }
        }
        if names.contains(name) {
            el.push(Diagnostic::duplicate(&np, name));
        }
        let no_source = SOURCES.iter().all(|(k, _, _)| member(vol, k).is_none())
            && !(image_on && member(vol, "image").is_some());
        let empty_dir = member(vol, "emptyDir").is_some() || (no_source && defaulted);
        v.all.insert(name.to_owned(), empty_dir);
        if el.errors.is_empty() {
            names.insert(name);
            let claim = member(vol, "persistentVolumeClaim").is_some()
                || member(vol, "ephemeral").is_some();
            v.valid
                .insert(name.to_owned(), (claim, member(vol, "image").is_some()));
        } else {
            out.merge(el);
        }
        if let Some(pvc) = member(vol, "persistentVolumeClaim") {
            let claim = str_of(pvc, "claimName");
            if created.contains(claim) {
                out.push(Diagnostic::invalid(
                    &ip.child("persistentVolumeClaim").child("claimName"),
                    claim,
                    "must not reference a PVC that gets created for an ephemeral volume",
                ));
            }
        }
    }
    let lookup = |n: &str| v.all.get(n).copied();
    pod_env::file_key_ref_volumes(spec, path, &lookup, opts, out);
    v
}

/// validatePodMetadataAndSpec's Pod-only volume rule: a projected serviceAccountToken needs a
/// serviceAccountName (the deprecated `serviceAccount` converts into it).
pub(super) fn pod_only(spec: &PodSpec, path: &FieldPath, out: &mut Findings) {
    let sa = |k: &str| spec.other.get(k).and_then(Value::as_str).unwrap_or("");
    if !sa("serviceAccountName").is_empty() || !sa("serviceAccount").is_empty() {
        return;
    }
    for (i, vol) in volumes_of(spec).iter().enumerate() {
        let Some(pr) = member(vol, "projected") else {
            continue;
        };
        for (j, src) in arr(pr, "sources").iter().enumerate() {
            if member(src, "serviceAccountToken").is_some() {
                let p = path
                    .child("volumes")
                    .index(i)
                    .child("projected")
                    .child("sources")
                    .index(j)
                    .child("serviceAccountToken");
                out.push(Diagnostic::forbidden(
                    &p,
                    "must not be specified when serviceAccountName is not set",
                ));
            }
        }
    }
}

fn mounts_of<'a>(c: &'a Container, key: &str) -> &'a [Value] {
    c.other
        .get(key)
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

/// What validateContainerCommon checks of a container's env, envFrom, volumeMounts and
/// volumeDevices (`ephemeral`: an ephemeral container, whose mounts may have no subPath).
pub(super) fn container(
    c: &Container,
    p: &FieldPath,
    vols: &Volumes,
    ephemeral: bool,
    out: &mut Findings,
) {
    pod_env::container(c, p, vols.env_opts(), out);
    let all_mounts = mounts_of(c, "volumeMounts");
    let mounts: Vec<&Value> = all_mounts
        .iter()
        .filter(|m| !vols.dropped_images.contains(str_of(m, "name")))
        .collect();
    let devices = mounts_of(c, "volumeDevices");
    // GetVolumeDeviceMap / GetVolumeMountMap: name -> path, the last of a name wins.
    let mut dev_map: FxHashMap<&str, &str> = FxHashMap::default();
    for d in devices {
        dev_map.insert(str_of(d, "name"), str_of(d, "devicePath"));
    }
    let mut mount_map: FxHashMap<&str, &str> = FxHashMap::default();
    for m in &mounts {
        mount_map.insert(str_of(m, "name"), str_of(m, "mountPath"));
    }
    let privileged = c
        .other
        .get("securityContext")
        .and_then(|s| s.get("privileged"))
        .and_then(Value::as_bool)
        .unwrap_or(false);
    let mp = p.child("volumeMounts");
    let mut points: FxHashSet<&str> = FxHashSet::default();
    for (i, m) in mounts.iter().enumerate() {
        let ip = mp.index(i);
        let name = str_of(m, "name");
        let path = str_of(m, "mountPath");
        if name.is_empty() {
            out.push(Diagnostic::required(&ip.child("name"), ""));
        }
        if !vols.valid.contains_key(name) {
            out.push(Diagnostic::not_found(&ip.child("name"), name));
        }
        if path.is_empty() {
            out.push(Diagnostic::required(&ip.child("mountPath"), ""));
        }
        if !points.insert(path) {
            out.push(Diagnostic::invalid(
                &ip.child("mountPath"),
                path,
                "must be unique",
            ));
        }
        if dev_map.contains_key(name) {
            out.push(Diagnostic::invalid(
                &ip.child("name"),
                name,
                "must not already exist in volumeDevices",
            ));
        }
        if dev_map.values().any(|d| *d == path) {
            out.push(Diagnostic::invalid(
                &ip.child("mountPath"),
                path,
                "must not already exist as a path in volumeDevices",
            ));
        }
        if vols.image_sub_path_refused && vols.valid.get(name).is_some_and(|(_, image)| *image) {
            for key in ["subPath", "subPathExpr"] {
                let value = str_of(m, key);
                if !value.is_empty() {
                    out.push(Diagnostic::invalid(
                        &ip.child(key),
                        value,
                        "not allowed in image volume sources",
                    ));
                }
            }
        }
        // Upstream reports subPath, subPathExpr, mountPropagation and recursiveReadOnly at the
        // list's path (volumeMounts.subPath), not the item's.
        let sub = str_of(m, "subPath");
        if !sub.is_empty() {
            local_descending(sub, &mp.child("subPath"), out);
        }
        let expr = str_of(m, "subPathExpr");
        if !expr.is_empty() {
            if !sub.is_empty() {
                out.push(Diagnostic::invalid(
                    &ip.child("subPathExpr"),
                    expr,
                    "subPathExpr and subPath are mutually exclusive",
                ));
            }
            local_descending(expr, &mp.child("subPathExpr"), out);
        }
        let prop = m.get("mountPropagation").and_then(Value::as_str);
        if let Some(prop) = prop {
            let pp = mp.child("mountPropagation");
            if !PROPAGATIONS.contains(&prop) {
                out.push(Diagnostic::not_supported(&pp, prop, &PROPAGATIONS));
            }
            if prop == "Bidirectional" && !privileged {
                out.push(Diagnostic::forbidden(
                    &pp,
                    "Bidirectional mount propagation is available only to privileged containers",
                ));
            }
        }
        // dropDisabledFields clears recursiveReadOnly with RecursiveReadOnlyMounts off.
        let rro = m.get("recursiveReadOnly").and_then(Value::as_str);
        if rro.is_some() && !vols.rro && vols.env_opts().defaulted {
            out.push(pod_env::dropped(
                &mp.index(i).child("recursiveReadOnly"),
                GATE_RRO,
            ));
        }
        if let Some(rro) = rro
            && (vols.rro || !vols.env_opts().defaulted)
        {
            let rp = mp.child("recursiveReadOnly");
            match rro {
                "Disabled" => {}
                "Enabled" | "IfPossible" => {
                    if !m.get("readOnly").and_then(Value::as_bool).unwrap_or(false) {
                        out.push(Diagnostic::forbidden(
                            &rp,
                            "may only be specified when readOnly is true",
                        ));
                    }
                    if prop.is_some_and(|x| x != "None") {
                        out.push(Diagnostic::forbidden(
                            &rp,
                            "may only be specified when mountPropagation is None or not specified",
                        ));
                    }
                }
                other => out.push(Diagnostic::not_supported(&rp, other, &RRO_VALUES)),
            }
        }
        if ephemeral {
            let detail = "cannot be set for an Ephemeral Container";
            if !sub.is_empty() {
                out.push(Diagnostic::forbidden(&ip.child("subPath"), detail));
            }
            if !expr.is_empty() {
                out.push(Diagnostic::forbidden(&ip.child("subPathExpr"), detail));
            }
        }
    }

    let dp = p.child("volumeDevices");
    let mut dev_paths: FxHashSet<&str> = FxHashSet::default();
    let mut dev_names: FxHashSet<&str> = FxHashSet::default();
    for (i, d) in devices.iter().enumerate() {
        let ip = dp.index(i);
        let name = str_of(d, "name");
        let path = str_of(d, "devicePath");
        let matched = vols.valid.get(name).map(|(claim, _)| *claim);
        if name.is_empty() {
            out.push(Diagnostic::required(&ip.child("name"), ""));
        }
        if dev_names.contains(name) {
            out.push(Diagnostic::invalid(
                &ip.child("name"),
                name,
                "must be unique",
            ));
        }
        match matched {
            Some(false) => out.push(Diagnostic::invalid(
                &ip.child("name"),
                name,
                "can only use volume source type of PersistentVolumeClaim or Ephemeral for block mode",
            )),
            None => out.push(Diagnostic::not_found(&ip.child("name"), name)),
            Some(true) => {}
        }
        if path.is_empty() {
            out.push(Diagnostic::required(&ip.child("devicePath"), ""));
        }
        if dev_paths.contains(path) {
            out.push(Diagnostic::invalid(
                &ip.child("devicePath"),
                path,
                "must be unique",
            ));
        }
        if !path.is_empty() && path.split('/').any(|e| e == "..") {
            out.push(Diagnostic::invalid(
                &ip.child("devicePath"),
                path,
                "can not contain backsteps ('..')",
            ));
        } else {
            dev_paths.insert(path);
        }
        if mount_map.contains_key(name) {
            out.push(Diagnostic::invalid(
                &ip.child("name"),
                name,
                "must not already exist in volumeMounts",
            ));
        }
        if mount_map.values().any(|m| *m == path) {
            out.push(Diagnostic::invalid(
                &ip.child("devicePath"),
                path,
                "must not already exist as a path in volumeMounts",
            ));
        }
        if !name.is_empty() {
            dev_names.insert(name);
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]
    use crate::api::Pod;
    use crate::diag::Findings;
    use crate::features::{FeatureGates, KubeVersion};
    use serde_json::{Value, json};

    fn run_pod(
        minor: &str,
        gates: &[(&str, bool)],
        name: &str,
        spec: Value,
    ) -> Vec<(String, String, String)> {
        let mut g = FeatureGates::for_version(KubeVersion::parse(minor).unwrap());
        for (k, v) in gates {
            g.set(k, *v);
        }
        let ctx = super::super::Ctx {
            gates: g,
            ..Default::default()
        };
        let mut pod: Pod =
            serde_json::from_value(json!({"metadata": {"name": name}, "spec": spec})).unwrap();
        super::super::pod::default_pod_spec(&mut pod.spec);
        let mut out = Findings::default();
        super::super::pod::validate_pod(&pod, &ctx, &mut out);
        out.errors
            .iter()
            .map(|d| {
                (
                    d.field.clone(),
                    format!("{:?}", d.error_type.unwrap()),
                    d.message.clone(),
                )
            })
            .collect()
    }

    fn run(spec: Value) -> Vec<(String, String, String)> {
        run_pod("1.37", &[], "pod", spec)
    }

    fn with(vols: Value, mounts: Value) -> Value {
        json!({"volumes": vols, "containers": [{"name": "c", "image": "i", "volumeMounts": mounts}]})
    }

    fn fields(e: &[(String, String, String)]) -> Vec<&str> {
        e.iter().map(|x| x.0.as_str()).collect()
    }

    #[test]
    fn volume_names() {
        let e = run(with(
            json!([{"name": "data"}, {"name": "data", "emptyDir": {}}]),
            json!([]),
        ));
        assert_eq!(fields(&e), ["spec.volumes[1].name"]);
        assert_eq!(e[0].1, "FieldValueDuplicate");
        let e = run(with(json!([{"name": "Data"}]), json!([])));
        assert_eq!(e[0].1, "FieldValueInvalid");
        let e = run(with(json!([{"emptyDir": {}}]), json!([])));
        assert_eq!(e[0].1, "FieldValueRequired");
        assert!(
            run(with(
                json!([{"name": "data"}, {"name": "cache", "emptyDir": {"sizeLimit": "1Gi"}}]),
                json!([])
            ))
            .is_empty()
        );
    }

    #[test]
    fn one_volume_type() {
        let e = run(with(
            json!([{"name": "v", "emptyDir": {}, "secret": {"secretName": "s"}}]),
            json!([]),
        ));
        assert_eq!(fields(&e), ["spec.volumes[0].secret"]);
        assert!(e[0].2.contains("may not specify more than 1 volume type"));
        let e = run(with(
            json!([{"name": "v", "emptyDir": {}, "downwardAPI": {}}]),
            json!([]),
        ));
        assert_eq!(fields(&e), ["spec.volumes[0].downwarAPI"]);
    }

    #[test]
    fn host_path() {
        let hp = |t: &str, p: &str| {
            with(
                json!([{"name": "h", "hostPath": {"path": p, "type": t}}]),
                json!([]),
            )
        };
        assert!(run(hp("Directory", "/var/log")).is_empty());
        assert!(run(hp("", "/var/log")).is_empty());
        let e = run(hp("Dir", "/var/log"));
        assert_eq!(fields(&e), ["spec.volumes[0].hostPath.type"]);
        assert_eq!(e[0].1, "FieldValueNotSupported");
        let e = run(hp("File", "/var/../etc"));
        assert_eq!(fields(&e), ["spec.volumes[0].hostPath.path"]);
        let e = run(hp("File", ""));
        assert_eq!(e[0].1, "FieldValueRequired");
    }

    #[test]
    fn secret_config_map_and_items() {
        let ok = json!([{"name": "s", "secret": {"secretName": "tls", "items": [{"key": "a", "path": "certs/a"}]}}]);
        assert!(run(with(ok, json!([]))).is_empty());
        let bad = json!([{"name": "s", "secret": {"secretName": "", "defaultMode": 512, "items": [{"key": "", "path": "/abs"}, {"key": "k", "path": "..x"}]}}]);
        let e = run(with(bad, json!([])));
        let f = fields(&e);
        for want in [
            "spec.volumes[0].secret.secretName",
            "spec.volumes[0].secret.defaultMode",
            "spec.volumes[0].secret.items[0].key",
            "spec.volumes[0].secret.items[0].path",
            "spec.volumes[0].secret.items[1].path",
        ] {
            assert!(f.contains(&want), "{want} in {e:?}");
        }
        let e = run(with(
            json!([{"name": "c", "configMap": {"name": ""}}]),
            json!([]),
        ));
        assert_eq!(fields(&e), ["spec.volumes[0].configMap.name"]);
    }

    #[test]
    fn projected_and_downward() {
        let ok = json!([{"name": "p", "projected": {"sources": [{"serviceAccountToken": {"path": "token"}}, {"configMap": {"name": "ca", "items": [{"key": "ca", "path": "ca.crt"}]}}]}}]);
        let mut spec = with(ok, json!([]));
        // On a Pod a token needs a service account.
        let e = run(spec.clone());
        assert_eq!(
            fields(&e),
            ["spec.volumes[0].projected.sources[0].serviceAccountToken"]
        );
        spec["serviceAccountName"] = json!("app");
        assert!(run(spec).is_empty());
        let dup = json!([{"name": "p", "projected": {"sources": [{"secret": {"name": "a", "items": [{"key": "k", "path": "x"}]}}, {"configMap": {"name": "b", "items": [{"key": "k", "path": "x"}]}}]}}]);
        let e = run(with(dup, json!([])));
        assert!(e[0].2.contains("conflicting duplicate paths"), "{e:?}");
        let tok = json!([{"name": "p", "projected": {"sources": [{"serviceAccountToken": {"path": "/abs", "expirationSeconds": 60}}]}}]);
        let mut spec = with(tok, json!([]));
        spec["serviceAccount"] = json!("app");
        let f = run(spec);
        assert_eq!(
            fields(&f),
            [
                "spec.volumes[0].projected.sources[0].serviceAccountToken.expirationSeconds",
                "spec.volumes[0].projected.path"
            ]
        );
        let da = json!([{"name": "d", "downwardAPI": {"items": [{"path": "x", "fieldRef": {"fieldPath": "spec.nodeName"}}, {"path": "y"}]}}]);
        let e = run(with(da, json!([])));
        assert_eq!(
            fields(&e),
            [
                "spec.volumes[0].downwardAPI.fieldRef.fieldPath",
                "spec.volumes[0].downwardAPI"
            ]
        );
    }

    #[test]
    fn csi_nfs_ephemeral() {
        assert!(
            run(with(
                json!([{"name": "c", "csi": {"driver": "Secrets-Store.csi.k8s.io"}}]),
                json!([])
            ))
            .is_empty()
        );
        let e = run(with(
            json!([{"name": "c", "csi": {"driver": "my_driver", "nodePublishSecretRef": {"name": "Bad"}}}]),
            json!([]),
        ));
        assert_eq!(
            fields(&e),
            ["spec.volumes[0].csi.driver", "spec.volumes[0].csi.name"]
        );
        let e = run(with(
            json!([{"name": "n", "nfs": {"server": "s", "path": "rel"}}]),
            json!([]),
        ));
        assert!(e[0].2.contains("must be an absolute path"));
        let e = run(with(json!([{"name": "e", "ephemeral": {}}]), json!([])));
        assert_eq!(
            fields(&e),
            ["spec.volumes[0].ephemeral.volumeClaimTemplate"]
        );
        let long = "p".repeat(250);
        let spec = with(
            json!([{"name": "scratch", "ephemeral": {"volumeClaimTemplate": {"spec": {}}}}, {"name": "x", "persistentVolumeClaim": {"claimName": format!("{long}-scratch")}}]),
            json!([]),
        );
        let e = run_pod("1.37", &[], &long, spec);
        let f = fields(&e);
        assert!(f.contains(&"spec.volumes[0].name"), "{e:?}");
        assert!(
            f.contains(&"spec.volumes[1].persistentVolumeClaim.claimName"),
            "{e:?}"
        );
    }

    /// validateVolumeMounts at 1.31 and 1.32 refuses a subPath or subPathExpr on an image
    /// volume's mount; 1.33 allows both (found by the oracle at 1.31).
    #[test]
    fn image_volume_sub_paths_per_minor() {
        let spec = with(
            json!([{"name": "img", "image": {"reference": "busybox"}}]),
            json!([{"name": "img", "mountPath": "/a", "subPath": "conf"},
                   {"name": "img", "mountPath": "/b", "subPathExpr": "$(POD)"}]),
        );
        for minor in ["1.31", "1.32"] {
            let e = run_pod(minor, &[("ImageVolume", true)], "pod", spec.clone());
            let refused: Vec<&str> = e
                .iter()
                .filter(|x| x.2.contains("not allowed in image volume sources"))
                .map(|x| x.0.as_str())
                .collect();
            assert_eq!(
                refused,
                [
                    "spec.containers[0].volumeMounts[0].subPath",
                    "spec.containers[0].volumeMounts[1].subPathExpr"
                ],
                "{minor}: {e:?}"
            );
        }
        let e = run_pod("1.33", &[("ImageVolume", true)], "pod", spec.clone());
        assert!(e.iter().all(|x| !x.2.contains("image volume")), "{e:?}");
        // Gate off: the create drops the volume and its mounts, nothing is said of them.
        let e = run_pod("1.31", &[("ImageVolume", false)], "pod", spec);
        assert!(e.iter().all(|x| !x.2.contains("image volume")), "{e:?}");
    }

    #[test]
    fn image_volumes_per_gate() {
        let spec = with(
            json!([{"name": "img", "image": {"reference": "", "pullPolicy": "Sometimes"}}]),
            json!([{"name": "img", "mountPath": "/img"}]),
        );
        let e = run_pod("1.37", &[("ImageVolume", true)], "pod", spec.clone());
        // The invalid volume is no mount target either.
        assert_eq!(
            fields(&e),
            [
                "spec.volumes[0].image.reference",
                "spec.volumes[0].image.pullPolicy",
                "spec.containers[0].volumeMounts[0].name"
            ]
        );
        // Gate off: the volume and its mounts are dropped on create.
        assert!(run_pod("1.37", &[("ImageVolume", false)], "pod", spec).is_empty());
    }

    #[test]
    fn mounts() {
        let vols = json!([{"name": "data"}, {"name": "cfg", "configMap": {"name": "c"}}]);
        assert!(run(with(vols.clone(), json!([{"name": "data", "mountPath": "/data", "subPath": "a/b"}, {"name": "cfg", "mountPath": "/cfg", "readOnly": true, "recursiveReadOnly": "IfPossible"}]))).is_empty());
        let e = run(with(
            vols.clone(),
            json!([{"name": "dta", "mountPath": "/data"}]),
        ));
        assert_eq!(e[0].1, "FieldValueNotFound");
        let e = run(with(
            vols.clone(),
            json!([{"name": "data", "mountPath": "/x"}, {"name": "cfg", "mountPath": "/x"}]),
        ));
        assert_eq!(fields(&e), ["spec.containers[0].volumeMounts[1].mountPath"]);
        let e = run(with(
            vols.clone(),
            json!([{"name": "data", "mountPath": "/x", "subPath": "../etc"}]),
        ));
        assert_eq!(fields(&e), ["spec.containers[0].volumeMounts.subPath"]);
        let e = run(with(
            vols.clone(),
            json!([{"name": "data", "mountPath": "/x", "subPath": "a", "subPathExpr": "/b"}]),
        ));
        assert_eq!(
            fields(&e),
            [
                "spec.containers[0].volumeMounts[0].subPathExpr",
                "spec.containers[0].volumeMounts.subPathExpr"
            ]
        );
        let e = run(with(
            vols.clone(),
            json!([{"name": "data", "mountPath": "/x", "mountPropagation": "Bidirectional"}]),
        ));
        assert_eq!(e[0].1, "FieldValueForbidden");
        let e = run(with(
            vols.clone(),
            json!([{"name": "data", "mountPath": "/x", "mountPropagation": "Shared"}]),
        ));
        assert_eq!(e[0].1, "FieldValueNotSupported");
        let rro = with(
            vols.clone(),
            json!([{"name": "data", "mountPath": "/x", "recursiveReadOnly": "Enabled"}]),
        );
        let e = run(rro.clone());
        assert!(
            e[0].2
                .contains("may only be specified when readOnly is true")
        );
        assert!(run_pod("1.37", &[("RecursiveReadOnlyMounts", false)], "pod", rro).is_empty());
        let priv_spec = json!({"volumes": vols, "containers": [{"name": "c", "image": "i", "securityContext": {"privileged": true},
            "volumeMounts": [{"name": "data", "mountPath": "/x", "mountPropagation": "Bidirectional"}]}]});
        assert!(run(priv_spec).is_empty());
    }

    #[test]
    fn devices() {
        let vols =
            json!([{"name": "blk", "persistentVolumeClaim": {"claimName": "c"}}, {"name": "data"}]);
        let dev = |d: Value, m: Value| json!({"volumes": vols, "containers": [{"name": "c", "image": "i", "volumeDevices": d, "volumeMounts": m}]});
        assert!(
            run(dev(
                json!([{"name": "blk", "devicePath": "/dev/xvda"}]),
                json!([])
            ))
            .is_empty()
        );
        let e = run(dev(
            json!([{"name": "data", "devicePath": "/dev/x"}]),
            json!([]),
        ));
        assert!(
            e[0].2
                .contains("can only use volume source type of PersistentVolumeClaim")
        );
        let e = run(dev(
            json!([{"name": "blk", "devicePath": "/dev/../x"}]),
            json!([]),
        ));
        assert!(e[0].2.contains("can not contain backsteps"));
        let e = run(dev(
            json!([{"name": "blk", "devicePath": "/mnt"}]),
            json!([{"name": "blk", "mountPath": "/mnt"}]),
        ));
        let f = fields(&e);
        assert!(
            f.contains(&"spec.containers[0].volumeMounts[0].name")
                && f.contains(&"spec.containers[0].volumeDevices[0].devicePath"),
            "{e:?}"
        );
    }

    #[test]
    fn ephemeral_container_subpath() {
        let spec = json!({"volumes": [{"name": "data"}], "containers": [{"name": "c", "image": "i"}],
            "ephemeralContainers": [{"name": "d", "image": "i", "volumeMounts": [{"name": "data", "mountPath": "/d", "subPath": "x"}]}]});
        let e = run(spec);
        assert!(
            fields(&e).contains(&"spec.ephemeralContainers[0].volumeMounts[0].subPath"),
            "{e:?}"
        );
    }

    #[test]
    fn ephemeral_claim_templates_are_checked_as_claim_templates() {
        let e = run(with(
            json!([{"name": "scratch", "ephemeral": {"volumeClaimTemplate": {
                "metadata": {"name": "x", "labels": {"app": "db"}, "creationTimestamp": null, "finalizers": []},
                "spec": {"accessModes": ["ReadWriteOnce"], "dataSource": {"kind": "Backup", "name": "b"},
                         "resources": {"requests": {"storage": "0"}}}}}}]),
            json!([]),
        ));
        let t = "spec.volumes[0].ephemeral.volumeClaimTemplate";
        assert_eq!(
            fields(&e),
            [
                format!("{t}.metadata.name"),
                format!("{t}.metadata.finalizers"),
                format!("{t}.spec.resources[storage]"),
                format!("{t}.spec.dataSource"),
            ]
        );
        assert_eq!(e[0].2, format!("{t}.metadata.name: Forbidden: cannot be set"));
        // A template as the docs write it passes: labels, and the zero creationTimestamp.
        assert!(
            run(with(
                json!([{"name": "scratch", "ephemeral": {"volumeClaimTemplate": {
                    "metadata": {"labels": {"type": "scratch"}, "creationTimestamp": null},
                    "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": "fast",
                             "resources": {"requests": {"storage": "1Gi"}}}}}}]),
                json!([])
            ))
            .is_empty()
        );
    }

    #[test]
    fn iscsi_quobyte_and_a_kindless_azure_disk() {
        let e = run(with(
            json!([
                {"name": "a", "iscsi": {"targetPortal": "10.0.2.15:3260", "iqn": "x.2001", "lun": 0}},
                {"name": "b", "quobyte": {"registry": "a:1,b", "volume": "v"}},
                {"name": "c", "azureDisk": {"diskName": "d", "diskURI": "/subscriptions/s/disks/d"}}
            ]),
            json!([]),
        ));
        assert_eq!(
            e.iter().map(|x| x.2.as_str()).collect::<Vec<_>>(),
            [
                "spec.volumes[0].iscsi.iqn: Invalid value: \"x.2001\": must be valid format starting with iqn, eui, or naa",
                "spec.volumes[1].quobyte.registry: Invalid value: \"a:1,b\": must be a host:port pair or multiple pairs separated by commas",
                "spec.volumes[2].azureDisk.diskURI: Unsupported value: \"/subscriptions/s/disks/d\": supported values: \"https://{account-name}.blob.core.windows.net/{container-name}/{disk-name}.vhd\"",
            ]
        );
        for ok in ["a:1", "[::1]:80", ":80"] {
            assert!(super::go_split_host_port_ok(ok), "{ok}");
        }
        for bad in ["a", "a:b:c", "[::1]", "[::1]:80:90", "[::1]x:80", "a]:80", "a[:80", ""] {
            assert!(!super::go_split_host_port_ok(bad), "{bad}");
        }
    }
}
