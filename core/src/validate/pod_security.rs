//! What kube-apiserver checks of a Pod's security contexts and operating system on create, per
//! minor 1.31-1.37.
//!
//! Upstream: `pkg/apis/core/validation/validation.go`: validatePodSpecSecurityContext (user and
//! group IDs, validateSysctls with ValidateHostSysctl, validateFSGroupChangePolicy,
//! validateSupplementalGroupsPolicy, validateSELinuxChangePolicy), ValidateSecurityContext (a
//! container's IDs, procMount, the privilege-escalation rules), validateSeccompProfileField,
//! ValidateAppArmorProfileField, validateWindowsSecurityContextOptions,
//! validateWindowsHostProcessPod, validateOS with validateLinux / validateWindows; the seccomp and
//! AppArmor annotations (ValidateSeccompPodAnnotations, ValidateAppArmorPodAnnotations, the rest of
//! ValidatePodSpecificAnnotations being `pod_dns::pod_annotations`) and their agreement with the
//! fields (validateSeccompAnnotationsAndFields, validateAppArmorAnnotationsAndFieldsMatchOnCreate).
//! `pkg/api/pod/util.go` dropDisabledPodFields: hostUsers (UserNamespacesSupport),
//! supplementalGroupsPolicy (SupplementalGroupsPolicy) and seLinuxChangePolicy
//! (SELinuxChangePolicy, a field from 1.32) are cleared on create with their gate off; procMount
//! becomes `Default` with ProcMountType off; only `Recursive` is a seLinuxChangePolicy without
//! SELinuxMount. `pkg/registry/core/pod/strategy.go` applyAppArmorVersionSkew: a Pod's container
//! without an AppArmor field takes the one its annotation names before validation.
//!
//! kube-apiserver is taken to run with `--allow-privileged=true` (kubeadm's, kind's and the
//! managed offerings' setting): privileged and hostProcess containers are not refused as
//! "disallowed by cluster policy". hostUsers' own rules are `pod_dns`'s.

use super::Ctx;
use super::crd_schema::go;
use super::names::dns1123_subdomain_errors;
use crate::api::{Container, PodSpec};
use crate::diag::{Diagnostic, FieldPath, Findings};
use crate::versions::Change;
use serde_json::{Map, Value};

const ID_RANGE: &str = "must be between 0 and 2147483647, inclusive";
const MAX_ID: i64 = 2_147_483_647;
const SYSCTL_MAX: usize = 253;
const SYSCTL_REGEX: &str =
    r"^([a-z0-9]([-_a-z0-9]*[a-z0-9])?[\./])*[a-z0-9]([-_a-z0-9]*[a-z0-9])?$";
/// sets.List order (sorted) of each value set.
const FS_GROUP_CHANGE_POLICIES: [&str; 2] = ["Always", "OnRootMismatch"];
const SUPPLEMENTAL_GROUPS_POLICIES: [&str; 2] = ["Merge", "Strict"];
const SELINUX_CHANGE_POLICIES: [&str; 2] = ["MountOption", "Recursive"];
const PROFILE_TYPES: [&str; 3] = ["Localhost", "RuntimeDefault", "Unconfined"];
const PROC_MOUNTS: [&str; 2] = ["Default", "Unmasked"];
const OS_NAMES: [&str; 2] = ["linux", "windows"];
const APPARMOR_MAX: usize = 4095;
const GMSA_MAX: usize = 64 * 1024;
const USER_DOMAIN_MAX: usize = 256;
const USER_NAME_MAX: usize = 104;
const WINDOWS: &str = "cannot be set for a windows pod";
const LINUX: &str = "windows options cannot be set for a linux pod";

pub const SECCOMP_POD_KEY: &str = "seccomp.security.alpha.kubernetes.io/pod";
pub const SECCOMP_CONTAINER_PREFIX: &str = "container.seccomp.security.alpha.kubernetes.io/";
pub const APPARMOR_CONTAINER_PREFIX: &str = "container.apparmor.security.beta.kubernetes.io/";
const LOCALHOST_PREFIX: &str = "localhost/";

type Obj = Map<String, Value>;

fn obj(v: Option<&Value>) -> Option<&Obj> {
    v.and_then(Value::as_object)
}
fn set(o: Option<&Obj>, key: &str) -> bool {
    o.and_then(|o| o.get(key)).is_some_and(|v| !v.is_null())
}
fn int(o: Option<&Obj>, key: &str) -> Option<i64> {
    o.and_then(|o| o.get(key)).and_then(Value::as_i64)
}
fn boolean(o: Option<&Obj>, key: &str) -> Option<bool> {
    o.and_then(|o| o.get(key)).and_then(Value::as_bool)
}
fn text<'a>(o: Option<&'a Obj>, key: &str) -> Option<&'a str> {
    o.and_then(|o| o.get(key)).and_then(Value::as_str)
}
fn spec_flag(spec: &PodSpec, key: &str) -> bool {
    spec.other.get(key).and_then(Value::as_bool) == Some(true)
}

/// A seccomp or AppArmor profile: its type and localhostProfile.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Profile {
    kind: String,
    localhost: Option<String>,
}

impl Profile {
    fn of(v: Option<&Value>) -> Option<Profile> {
        let o = obj(v)?;
        Some(Profile {
            kind: text(Some(o), "type").unwrap_or("").to_owned(),
            localhost: text(Some(o), "localhostProfile").map(str::to_owned),
        })
    }
}

/// The fields as the create path leaves them for validation: the gates' drops applied.
struct Effective<'a> {
    spec: &'a PodSpec,
    minor: u32,
    pod_sc: Option<&'a Obj>,
    /// `hostUsers`, unless UserNamespacesSupport is off (then dropped).
    host_users: Option<bool>,
    supplemental_groups_policy: Option<&'a Value>,
    selinux_change_policy: Option<&'a Value>,
    only_recursive_selinux: bool,
    /// ProcMountType off: a procMount that is set reads `Default`.
    proc_mount_default: bool,
    windows: bool,
}

impl<'a> Effective<'a> {
    fn new(spec: &'a PodSpec, ctx: &Ctx) -> Self {
        let gates = &ctx.gates;
        let minor = gates.version.minor;
        // dropDisabledPodFields is part of the create path, not of validation: an object to be
        // validated as given (skipDefaulting) keeps its fields; seLinuxChangePolicy is still
        // read only where the minor has the field (its gate from 1.32).
        let drops = !ctx.skip_defaulting;
        let pod_sc = obj(spec.other.get("securityContext"));
        let kept = |key: &str, gate: &str| {
            let keep = if drops {
                gates.enabled(gate)
            } else {
                crate::features::known_at(gate, minor)
            };
            pod_sc
                .and_then(|o| o.get(key))
                .filter(|v| !v.is_null() && keep)
        };
        Effective {
            spec,
            minor,
            pod_sc,
            host_users: spec
                .other
                .get("hostUsers")
                .and_then(Value::as_bool)
                .filter(|_| !drops || gates.enabled("UserNamespacesSupport")),
            supplemental_groups_policy: kept(
                "supplementalGroupsPolicy",
                "SupplementalGroupsPolicy",
            ),
            selinux_change_policy: kept("seLinuxChangePolicy", "SELinuxChangePolicy"),
            only_recursive_selinux: !gates.enabled("SELinuxMount"),
            proc_mount_default: drops && !gates.enabled("ProcMountType"),
            windows: os_name(spec) == Some("windows"),
        }
    }

    /// Every container with its path, in VisitContainersWithPath's order.
    fn containers(&self, path: &FieldPath) -> Vec<(&'a Container, FieldPath)> {
        let spec = self.spec;
        let lists = [
            ("initContainers", &spec.init_containers),
            ("containers", &spec.containers),
            ("ephemeralContainers", &spec.ephemeral_containers),
        ];
        let mut out = Vec::new();
        for (name, list) in lists {
            for (i, c) in list.iter().enumerate() {
                out.push((c, path.child(name).index(i)));
            }
        }
        out
    }

    fn proc_mount<'c>(&self, sc: Option<&'c Obj>) -> Option<&'c str> {
        let v = text(sc, "procMount")?;
        Some(if self.proc_mount_default {
            "Default"
        } else {
            v
        })
    }
}

fn os_name(spec: &PodSpec) -> Option<&str> {
    obj(spec.other.get("os")).map(|o| text(Some(o), "name").unwrap_or(""))
}

fn container_sc(c: &Container) -> Option<&Obj> {
    obj(c.other.get("securityContext"))
}

/// `field.Invalid` of a string, quoted as Go's `%q` quotes it.
fn invalid_str(p: &FieldPath, v: &str, detail: impl Into<String>) -> Diagnostic {
    Diagnostic::invalid_printed(p, Value::from(v), &go::quote(v), detail)
}

/// `field.Invalid` of a `*string` field: apimachinery prints it as the string (`%q`) before 1.34
/// and as its JSON from 1.34.
fn invalid_ptr_str(p: &FieldPath, v: &str, minor: u32, detail: impl Into<String>) -> Diagnostic {
    if Change::FieldErrorJsonValues.at(minor) {
        Diagnostic::invalid_printed(p, Value::from(v), &go::json(&Value::from(v)), detail)
    } else {
        invalid_str(p, v, detail)
    }
}

fn id(v: Option<i64>, p: &FieldPath, out: &mut Findings) {
    if let Some(v) = v
        && !(0..=MAX_ID).contains(&v)
    {
        out.push(Diagnostic::invalid(p, v, ID_RANGE));
    }
}

/// The security and OS part of ValidatePodSpec. `path` is the PodSpec's path.
pub fn validate(spec: &PodSpec, path: &FieldPath, ctx: &Ctx, out: &mut Findings) {
    let e = Effective::new(spec, ctx);
    pod_security_context(&e, path, out);
    let host_users = e.host_users != Some(false);
    for (c, cp) in e.containers(path) {
        container_security_context(&e, c, &cp.child("securityContext"), host_users, out);
    }
    windows_host_process(&e, path, out);
    if obj(spec.other.get("os")).is_some() {
        let name = os_name(spec).unwrap_or("");
        let op = path.child("os");
        if name.is_empty() {
            let detail = if Change::PodOsNameRequiredBare.at(e.minor) {
                ""
            } else {
                "cannot be empty"
            };
            out.push(Diagnostic::required(&op.child("name"), detail));
        } else if !OS_NAMES.contains(&name) {
            out.push(Diagnostic::not_supported(&op, name, &OS_NAMES));
        } else if name == "linux" {
            linux_only(&e, path, out);
        } else {
            windows_only(&e, path, out);
        }
    }
}

/// validatePodSpecSecurityContext.
fn pod_security_context(e: &Effective, path: &FieldPath, out: &mut Findings) {
    let sc = e.pod_sc;
    let p = path.child("securityContext");
    id(int(sc, "fsGroup"), &p.child("fsGroup"), out);
    id(int(sc, "runAsUser"), &p.child("runAsUser"), out);
    id(int(sc, "runAsGroup"), &p.child("runAsGroup"), out);
    let groups = sc
        .and_then(|o| o.get("supplementalGroups"))
        .and_then(Value::as_array);
    for (i, g) in groups.into_iter().flatten().enumerate() {
        id(g.as_i64(), &p.child("supplementalGroups").index(i), out);
    }
    sysctls(e, &p.child("sysctls"), out);
    if let Some(v) = text(sc, "fsGroupChangePolicy")
        && !FS_GROUP_CHANGE_POLICIES.contains(&v)
    {
        out.push(Diagnostic::not_supported(
            &p.child("fsGroupChangePolicy"),
            v,
            &FS_GROUP_CHANGE_POLICIES,
        ));
    }
    seccomp_field(
        sc.and_then(|o| o.get("seccompProfile")),
        &p.child("seccompProfile"),
        e.minor,
        out,
    );
    windows_options(
        sc.and_then(|o| o.get("windowsOptions")),
        &p.child("windowsOptions"),
        e.minor,
        out,
    );
    apparmor_field(
        sc.and_then(|o| o.get("appArmorProfile")),
        &p.child("appArmorProfile"),
        e.minor,
        out,
    );
    if let Some(v) = e.supplemental_groups_policy.and_then(Value::as_str)
        && !SUPPLEMENTAL_GROUPS_POLICIES.contains(&v)
    {
        out.push(Diagnostic::not_supported(
            &p.child("supplementalGroupsPolicy"),
            v,
            &SUPPLEMENTAL_GROUPS_POLICIES,
        ));
    }
    if let Some(v) = e.selinux_change_policy.and_then(Value::as_str) {
        let pp = p.child("seLinuxChangePolicy");
        if e.only_recursive_selinux {
            if v != "Recursive" {
                out.push(Diagnostic::not_supported(&pp, v, &["Recursive"]));
            }
        } else if !SELINUX_CHANGE_POLICIES.contains(&v) {
            out.push(Diagnostic::not_supported(&pp, v, &SELINUX_CHANGE_POLICIES));
        }
    }
}

/// IsValidSysctlName: up to 253 characters of segments `[a-z0-9]([-_a-z0-9]*[a-z0-9])?`, each
/// followed by one `.` or `/` but the last.
fn sysctl_name_ok(name: &str) -> bool {
    let segment_ok = |s: &str| {
        let b = s.as_bytes();
        let alnum = |c: &u8| c.is_ascii_lowercase() || c.is_ascii_digit();
        match (b.first(), b.last()) {
            (Some(f), Some(l)) => {
                alnum(f) && alnum(l) && b.iter().all(|c| alnum(c) || *c == b'-' || *c == b'_')
            }
            _ => false,
        }
    };
    name.len() <= SYSCTL_MAX && name.split(['.', '/']).all(segment_ok)
}

/// utilsysctl.NormalizeName: a name whose first separator is `/` has `.` and `/` swapped.
fn normalize_sysctl(name: &str) -> String {
    match name.find(['.', '/']) {
        Some(i) if name.as_bytes().get(i) == Some(&b'/') => name
            .chars()
            .map(|c| match c {
                '.' => '/',
                '/' => '.',
                c => c,
            })
            .collect(),
        _ => name.to_owned(),
    }
}

/// The namespace utilsysctl.GetNamespace gives a sysctl, as far as ValidateHostSysctl asks.
#[derive(PartialEq, Eq)]
enum SysctlNs {
    Net,
    Ipc,
    Other,
}

fn sysctl_namespace(name: &str) -> SysctlNs {
    let mut n = normalize_sysctl(name);
    if let Some(i) = n.find('*') {
        n.truncate(i);
    }
    const IPC: [&str; 10] = [
        "kernel.sem",
        "kernel.shmall",
        "kernel.shmmax",
        "kernel.shmmni",
        "kernel.shm_rmid_forced",
        "kernel.shm",
        "kernel.msgmax",
        "kernel.msgmnb",
        "kernel.msgmni",
        "kernel.msg",
    ];
    if IPC.contains(&n.as_str()) || n.starts_with("fs.mqueue.") {
        SysctlNs::Ipc
    } else if n.starts_with("net.") {
        SysctlNs::Net
    } else {
        SysctlNs::Other
    }
}

/// validateSysctls (AllowNamespacedSysctlsForHostNetAndHostIPC is false on create).
fn sysctls(e: &Effective, p: &FieldPath, out: &mut Findings) {
    let list = e
        .pod_sc
        .and_then(|o| o.get("sysctls"))
        .and_then(Value::as_array);
    let mut seen: Vec<&str> = Vec::new();
    for (i, s) in list.into_iter().flatten().enumerate() {
        let name = text(s.as_object(), "name").unwrap_or("");
        let np = p.index(i).child("name");
        if name.is_empty() {
            out.push(Diagnostic::required(&np, ""));
        } else if !sysctl_name_ok(name) {
            out.push(Diagnostic::invalid(
                &np,
                name,
                format!("must have at most {SYSCTL_MAX} characters and match regex {SYSCTL_REGEX}"),
            ));
        } else if seen.contains(&name) {
            out.push(Diagnostic::duplicate(&np, name));
        }
        match sysctl_namespace(name) {
            SysctlNs::Net if spec_flag(e.spec, "hostNetwork") => out.push(Diagnostic::invalid(
                &np,
                name,
                "may not be specified when 'hostNetwork' is true",
            )),
            SysctlNs::Ipc if spec_flag(e.spec, "hostIPC") => out.push(Diagnostic::invalid(
                &np,
                name,
                "may not be specified when 'hostIPC' is true",
            )),
            _ => {}
        }
        seen.push(name);
    }
}

/// validateLocalDescendingPath.
fn local_descending(target: &str, p: &FieldPath, out: &mut Findings) {
    if target.starts_with('/') {
        out.push(invalid_str(p, target, "must be a relative path"));
    }
    if target.split('/').any(|part| part == "..") {
        out.push(invalid_str(p, target, "must not contain '..'"));
    }
}

/// Go's json.Marshal of an optional string (`null` when unset).
fn json_str(s: Option<&str>) -> String {
    s.map_or_else(|| "null".to_owned(), |s| go::json(&Value::from(s)))
}

/// How the minor prints a `*core.SeccompProfile` bad value: its JSON from 1.34, Go's `%#v`
/// before (the pointer's address masked, as the oracle masks it).
fn print_seccomp(p: &Profile, minor: u32) -> String {
    if Change::FieldErrorJsonValues.at(minor) {
        format!(
            "{{\"Type\":{},\"LocalhostProfile\":{}}}",
            json_str(Some(&p.kind)),
            json_str(p.localhost.as_deref())
        )
    } else {
        format!(
            "core.SeccompProfile{{Type:{}, LocalhostProfile:{}}}",
            go::quote(&p.kind),
            go_ptr("string", p.localhost.is_some())
        )
    }
}

/// Go's `%#v` of a pointer field: its (masked) address or nil.
fn go_ptr(ty: &str, is_set: bool) -> String {
    if is_set {
        format!("(*{ty})(0x…)")
    } else {
        format!("(*{ty})(nil)")
    }
}

/// validateSeccompProfileField.
fn seccomp_field(v: Option<&Value>, p: &FieldPath, minor: u32, out: &mut Findings) {
    let Some(sp) = Profile::of(v) else { return };
    let tp = p.child("type");
    match sp.kind.as_str() {
        "Localhost" | "RuntimeDefault" | "Unconfined" => {}
        "" => out.push(Diagnostic::required(
            &tp,
            "type is required when seccompProfile is set",
        )),
        other => out.push(Diagnostic::not_supported(&tp, other, &PROFILE_TYPES)),
    }
    let lp = p.child("localhostProfile");
    if sp.kind == "Localhost" {
        match &sp.localhost {
            None => out.push(Diagnostic::required(
                &lp,
                "must be set when seccomp type is Localhost",
            )),
            Some(l) => local_descending(l, &lp, out),
        }
    } else if sp.localhost.is_some() {
        let printed = print_seccomp(&sp, minor);
        out.push(Diagnostic::invalid_printed(
            &lp,
            v.cloned().unwrap_or(Value::Null),
            &printed,
            "can only be set when seccomp type is Localhost",
        ));
    }
}

/// ValidateAppArmorProfileField's verdict alone (the create path asks it of the field an
/// annotation names).
fn apparmor_ok(p: &Profile) -> bool {
    match p.kind.as_str() {
        "Localhost" => p
            .localhost
            .as_deref()
            .is_some_and(|l| l.trim() == l && !l.is_empty() && l.len() <= APPARMOR_MAX),
        "RuntimeDefault" | "Unconfined" => p.localhost.is_none(),
        _ => false,
    }
}

/// ValidateAppArmorProfileField.
fn apparmor_field(v: Option<&Value>, p: &FieldPath, minor: u32, out: &mut Findings) {
    let Some(ap) = Profile::of(v) else { return };
    let lp = p.child("localhostProfile");
    match ap.kind.as_str() {
        "Localhost" => {
            let Some(l) = ap.localhost.as_deref() else {
                out.push(Diagnostic::required(
                    &lp,
                    "must be set when AppArmor type is Localhost",
                ));
                return;
            };
            let trimmed = l.trim();
            if trimmed != l {
                out.push(invalid_str(&lp, l, "must not be padded with whitespace"));
            } else if trimmed.is_empty() {
                out.push(Diagnostic::required(
                    &lp,
                    "must be set when AppArmor type is Localhost",
                ));
            }
            if l.len() > APPARMOR_MAX {
                if Change::AppArmorProfileTooLong.at(minor) {
                    let mut d = Diagnostic::too_long(&lp, "", APPARMOR_MAX);
                    d.reword_for(minor);
                    out.push(d);
                } else {
                    let mut d = Diagnostic::too_long(&lp, "", APPARMOR_MAX);
                    let detail = format!("may not be longer than {APPARMOR_MAX}");
                    d.message = format!("{lp}: Too long: {detail}", lp = lp.as_str());
                    d.detail = Some(detail);
                    out.push(d);
                }
            }
        }
        "RuntimeDefault" | "Unconfined" => {
            if let Some(l) = ap.localhost.as_deref() {
                out.push(invalid_ptr_str(
                    &lp,
                    l,
                    minor,
                    "can only be set when AppArmor type is Localhost",
                ));
            }
        }
        "" => out.push(Diagnostic::required(
            &p.child("type"),
            "type is required when appArmorProfile is set",
        )),
        other => out.push(Diagnostic::not_supported(
            &p.child("type"),
            other,
            &PROFILE_TYPES,
        )),
    }
}

/// validateWindowsSecurityContextOptions.
fn windows_options(v: Option<&Value>, p: &FieldPath, minor: u32, out: &mut Findings) {
    let Some(wo) = obj(v) else { return };
    let wo = Some(wo);
    if let Some(name) = text(wo, "gmsaCredentialSpecName") {
        for msg in dns1123_subdomain_errors(name) {
            out.push(invalid_ptr_str(
                &p.child("gmsaCredentialSpecName"),
                name,
                minor,
                msg,
            ));
        }
    }
    if let Some(cs) = text(wo, "gmsaCredentialSpec") {
        let gp = p.child("gmsaCredentialSpec");
        if cs.is_empty() {
            out.push(invalid_ptr_str(
                &gp,
                cs,
                minor,
                "gmsaCredentialSpec cannot be an empty string",
            ));
        } else if cs.len() > GMSA_MAX {
            out.push(invalid_ptr_str(
                &gp,
                cs,
                minor,
                format!(
                    "gmsaCredentialSpec size must be under {} KiB",
                    GMSA_MAX / 1024
                ),
            ));
        }
    }
    if let Some(u) = text(wo, "runAsUserName") {
        for msg in run_as_user_name_errors(u) {
            out.push(invalid_ptr_str(&p.child("runAsUserName"), u, minor, msg));
        }
    }
}

/// The runAsUserName rules of validateWindowsSecurityContextOptions, in upstream's order.
fn run_as_user_name_errors(u: &str) -> Vec<String> {
    if u.is_empty() {
        return vec!["runAsUserName cannot be an empty string".to_owned()];
    }
    // [[:cntrl:]]: ASCII control characters.
    if u.bytes().any(|b| b < 0x20 || b == 0x7f) {
        return vec!["runAsUserName cannot contain control characters".to_owned()];
    }
    let parts: Vec<&str> = u.split('\\').collect();
    let (domain, user) = match parts.as_slice() {
        [user] => (None, *user),
        [domain, user] => (Some(*domain), *user),
        _ => return vec!["runAsUserName cannot contain more than one backslash".to_owned()],
    };
    let mut errs = Vec::new();
    if domain.is_some_and(|d| d.len() >= USER_DOMAIN_MAX) {
        errs.push(format!(
            "runAsUserName's Domain length must be under {USER_DOMAIN_MAX} characters"
        ));
    }
    if let Some(d) = domain
        && !(netbios_ok(d) || windows_dns_ok(d))
    {
        errs.push("runAsUserName's Domain doesn't match the NetBios nor the DNS format".to_owned());
    }
    if user.is_empty() {
        errs.push("runAsUserName's User cannot be empty".to_owned());
    } else if user.len() > USER_NAME_MAX {
        errs.push(format!(
            "runAsUserName's User length must not be longer than {USER_NAME_MAX} characters"
        ));
    }
    if !user.is_empty() && user.chars().all(|c| c == '.' || c == ' ') {
        errs.push("runAsUserName's User cannot contain only periods or spaces".to_owned());
    }
    if user.chars().any(|c| "\"/\\:;|=,+*?<>@[]".contains(c)) {
        errs.push(
            "runAsUserName's User cannot contain the following characters: \"/\\:;|=,+*?<>@[]"
                .to_owned(),
        );
    }
    errs
}

/// `^[^\\/:\*\?"<>|\.][^\\/:\*\?"<>|]{0,14}$`: 1 to 15 characters, none of `\/:*?"<>|`, no
/// leading dot.
fn netbios_ok(d: &str) -> bool {
    let bad = |c: char| "\\/:*?\"<>|".contains(c);
    let n = d.chars().count();
    (1..=15).contains(&n) && !d.starts_with('.') && !d.chars().any(bad)
}

/// `^label(\.label)*$` with `label` = `[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?`.
fn windows_dns_ok(d: &str) -> bool {
    d.split('.').all(|l| {
        let b = l.as_bytes();
        let an = |c: &u8| c.is_ascii_alphanumeric();
        match (b.first(), b.last()) {
            (Some(f), Some(e)) => {
                b.len() <= 63 && an(f) && an(e) && b.iter().all(|c| an(c) || *c == b'-')
            }
            _ => false,
        }
    })
}

/// applyAppArmorVersionSkew (a Pod's PrepareForCreate, not a template's): in a Pod that is not
/// windows, a container without an AppArmor field whose annotation names a valid profile gets
/// that profile as its field, unless the Pod's own profile is the same. Returns the spec to
/// validate when a container changed.
pub fn apparmor_version_skew(spec: &PodSpec, annotations: &[(&str, &str)]) -> Option<PodSpec> {
    if os_name(spec) == Some("windows")
        || !annotations
            .iter()
            .any(|(k, _)| k.starts_with(APPARMOR_CONTAINER_PREFIX))
    {
        return None;
    }
    let pod_profile =
        Profile::of(obj(spec.other.get("securityContext")).and_then(|o| o.get("appArmorProfile")));
    let mut synced = spec.clone();
    let mut changed = false;
    let lists = [
        &mut synced.init_containers,
        &mut synced.containers,
        &mut synced.ephemeral_containers,
    ];
    for list in lists {
        for c in list.iter_mut() {
            if set(container_sc(c), "appArmorProfile") {
                continue;
            }
            let key = format!("{APPARMOR_CONTAINER_PREFIX}{}", c.name);
            let Some((_, a)) = annotations.iter().find(|(k, _)| *k == key) else {
                continue;
            };
            let Some(derived) = apparmor_for_annotation(a).filter(apparmor_ok) else {
                continue;
            };
            if Some(&derived) == pod_profile.as_ref() {
                continue;
            }
            let mut field = Map::new();
            field.insert("type".to_owned(), Value::from(derived.kind));
            if let Some(l) = derived.localhost {
                field.insert("localhostProfile".to_owned(), Value::from(l));
            }
            let sc = c
                .other
                .entry("securityContext")
                .or_insert_with(|| Value::Object(Map::new()));
            if !sc.is_object() {
                *sc = Value::Object(Map::new());
            }
            if let Some(o) = sc.as_object_mut() {
                o.insert("appArmorProfile".to_owned(), Value::Object(field));
                changed = true;
            }
        }
    }
    changed.then_some(synced)
}

/// ApparmorFieldForAnnotation.
fn apparmor_for_annotation(a: &str) -> Option<Profile> {
    let p = |kind: &str, localhost: Option<&str>| Profile {
        kind: kind.to_owned(),
        localhost: localhost.map(str::to_owned),
    };
    match a {
        "unconfined" => Some(p("Unconfined", None)),
        "runtime/default" => Some(p("RuntimeDefault", None)),
        _ => a
            .strip_prefix(LOCALHOST_PREFIX)
            .filter(|l| !l.is_empty())
            .map(|l| p("Localhost", Some(l))),
    }
}

/// ValidateSecurityContext (AllowSysAdminWhenPrivilegeEscalationFalse is false on create).
fn container_security_context(
    e: &Effective,
    c: &Container,
    p: &FieldPath,
    host_users: bool,
    out: &mut Findings,
) {
    let Some(sc) = container_sc(c) else { return };
    let sco = Some(sc);
    id(int(sco, "runAsUser"), &p.child("runAsUser"), out);
    id(int(sco, "runAsGroup"), &p.child("runAsGroup"), out);
    if let Some(pm) = e.proc_mount(sco) {
        let pp = p.child("procMount");
        if !PROC_MOUNTS.contains(&pm) {
            out.push(Diagnostic::not_supported(&pp, pm, &PROC_MOUNTS));
        }
        if host_users && pm == "Unmasked" {
            out.push(Diagnostic::invalid(
                &pp,
                pm,
                "`hostUsers` must be false to use `Unmasked`",
            ));
        }
    }
    seccomp_field(
        sc.get("seccompProfile"),
        &p.child("seccompProfile"),
        e.minor,
        out,
    );
    if boolean(sco, "allowPrivilegeEscalation") == Some(false) {
        let printed = || print_security_context(e, sc);
        if boolean(sco, "privileged") == Some(true) {
            out.push(Diagnostic::invalid_printed(
                p,
                Value::Object(sc.clone()),
                &printed(),
                "cannot set `allowPrivilegeEscalation` to false and `privileged` to true",
            ));
        }
        let adds = obj(sc.get("capabilities"))
            .and_then(|o| o.get("add"))
            .and_then(Value::as_array);
        for cap in adds.into_iter().flatten() {
            if cap.as_str() == Some("CAP_SYS_ADMIN") {
                out.push(Diagnostic::invalid_printed(
                    p,
                    Value::Object(sc.clone()),
                    &printed(),
                    "cannot set `allowPrivilegeEscalation` to false and `capabilities.Add` CAP_SYS_ADMIN",
                ));
            }
        }
    }
    windows_options(
        sc.get("windowsOptions"),
        &p.child("windowsOptions"),
        e.minor,
        out,
    );
    apparmor_field(
        sc.get("appArmorProfile"),
        &p.child("appArmorProfile"),
        e.minor,
        out,
    );
}

/// How the minor prints a container's `*core.SecurityContext` (after the create path's changes:
/// procMount forced to Default): JSON of the internal type (Go field names, every field) from
/// 1.34, `%#v` before.
fn print_security_context(e: &Effective, sc: &Obj) -> String {
    let sco = Some(sc);
    let proc_mount = e.proc_mount(sco);
    let apparmor = Profile::of(sc.get("appArmorProfile"));
    let seccomp = Profile::of(sc.get("seccompProfile"));
    if !Change::FieldErrorJsonValues.at(e.minor) {
        let ptr = |ty: &str, key: &str| go_ptr(ty, set(sco, key));
        return format!(
            "core.SecurityContext{{Capabilities:{}, Privileged:{}, SELinuxOptions:{}, WindowsOptions:{}, RunAsUser:{}, RunAsGroup:{}, RunAsNonRoot:{}, ReadOnlyRootFilesystem:{}, AllowPrivilegeEscalation:{}, ProcMount:{}, SeccompProfile:{}, AppArmorProfile:{}}}",
            ptr("core.Capabilities", "capabilities"),
            ptr("bool", "privileged"),
            ptr("core.SELinuxOptions", "seLinuxOptions"),
            ptr("core.WindowsSecurityContextOptions", "windowsOptions"),
            ptr("int64", "runAsUser"),
            ptr("int64", "runAsGroup"),
            ptr("bool", "runAsNonRoot"),
            ptr("bool", "readOnlyRootFilesystem"),
            ptr("bool", "allowPrivilegeEscalation"),
            go_ptr("core.ProcMountType", proc_mount.is_some()),
            go_ptr("core.SeccompProfile", seccomp.is_some()),
            go_ptr("core.AppArmorProfile", apparmor.is_some()),
        );
    }
    let scalar = |key: &str| {
        sc.get(key)
            .filter(|v| !v.is_null())
            .map_or_else(|| "null".to_owned(), go::json)
    };
    let caps = obj(sc.get("capabilities")).map_or_else(
        || "null".to_owned(),
        |o| {
            format!(
                "{{\"Add\":{},\"Drop\":{}}}",
                scalar_in(o, "add"),
                scalar_in(o, "drop")
            )
        },
    );
    let selinux = obj(sc.get("seLinuxOptions")).map_or_else(
        || "null".to_owned(),
        |o| {
            let s = |k: &str| json_str(Some(text(Some(o), k).unwrap_or("")));
            format!(
                "{{\"User\":{},\"Role\":{},\"Type\":{},\"Level\":{}}}",
                s("user"),
                s("role"),
                s("type"),
                s("level")
            )
        },
    );
    let windows = obj(sc.get("windowsOptions")).map_or_else(
        || "null".to_owned(),
        |o| {
            format!(
                "{{\"GMSACredentialSpecName\":{},\"GMSACredentialSpec\":{},\"RunAsUserName\":{},\"HostProcess\":{}}}",
                scalar_in(o, "gmsaCredentialSpecName"),
                scalar_in(o, "gmsaCredentialSpec"),
                scalar_in(o, "runAsUserName"),
                scalar_in(o, "hostProcess")
            )
        },
    );
    let profile = |p: &Option<Profile>| {
        p.as_ref().map_or_else(
            || "null".to_owned(),
            |p| {
                format!(
                    "{{\"Type\":{},\"LocalhostProfile\":{}}}",
                    json_str(Some(&p.kind)),
                    json_str(p.localhost.as_deref())
                )
            },
        )
    };
    format!(
        "{{\"Capabilities\":{caps},\"Privileged\":{},\"SELinuxOptions\":{selinux},\"WindowsOptions\":{windows},\"RunAsUser\":{},\"RunAsGroup\":{},\"RunAsNonRoot\":{},\"ReadOnlyRootFilesystem\":{},\"AllowPrivilegeEscalation\":{},\"ProcMount\":{},\"SeccompProfile\":{},\"AppArmorProfile\":{}}}",
        scalar("privileged"),
        scalar("runAsUser"),
        scalar("runAsGroup"),
        scalar("runAsNonRoot"),
        scalar("readOnlyRootFilesystem"),
        scalar("allowPrivilegeEscalation"),
        json_str(proc_mount),
        profile(&seccomp),
        profile(&apparmor),
    )
}

fn scalar_in(o: &Obj, key: &str) -> String {
    o.get(key)
        .filter(|v| !v.is_null())
        .map_or_else(|| "null".to_owned(), go::json)
}

/// validateWindowsHostProcessPod (with privileged containers allowed).
fn windows_host_process(e: &Effective, path: &FieldPath, out: &mut Findings) {
    let pod_hp = boolean(
        obj(e.pod_sc.and_then(|o| o.get("windowsOptions"))),
        "hostProcess",
    );
    let mut count = 0;
    let mut host_process = 0;
    for (c, cp) in e.containers(path) {
        count += 1;
        let c_hp = boolean(
            obj(container_sc(c).and_then(|o| o.get("windowsOptions"))),
            "hostProcess",
        );
        if let (Some(ph), Some(ch)) = (pod_hp, c_hp)
            && ph != ch
        {
            let p = cp
                .child("securityContext")
                .child("windowsOptions")
                .child("hostProcess");
            out.push(Diagnostic::invalid(
                &p,
                ch,
                format!("pod hostProcess value must be identical if both are specified, was {ph}"),
            ));
        }
        if c_hp == Some(true) || (c_hp.is_none() && pod_hp == Some(true)) {
            host_process += 1;
        }
    }
    if host_process > 0 {
        if host_process != count {
            out.push(Diagnostic::invalid(
                path,
                "",
                "If pod contains any hostProcess containers then all containers must be HostProcess containers",
            ));
        }
        if !spec_flag(e.spec, "hostNetwork") {
            out.push(Diagnostic::invalid(
                &path.child("hostNetwork"),
                false,
                "hostNetwork must be true if pod contains any hostProcess containers",
            ));
        }
    }
}

/// validateLinux.
fn linux_only(e: &Effective, path: &FieldPath, out: &mut Findings) {
    if set(e.pod_sc, "windowsOptions") {
        let p = path.child("securityContext").child("windowsOptions");
        out.push(Diagnostic::forbidden(&p, LINUX));
    }
    for (c, cp) in e.containers(path) {
        if set(container_sc(c), "windowsOptions") {
            let p = cp.child("securityContext").child("windowsOptions");
            out.push(Diagnostic::forbidden(&p, LINUX));
        }
    }
}

/// validateWindows.
fn windows_only(e: &Effective, path: &FieldPath, out: &mut Findings) {
    let sp = path.child("securityContext");
    let sc = e.pod_sc;
    for key in [
        "appArmorProfile",
        "seLinuxOptions",
        "seccompProfile",
        "fsGroup",
        "fsGroupChangePolicy",
        "runAsUser",
        "runAsGroup",
        "supplementalGroups",
    ] {
        if set(sc, key) {
            out.push(Diagnostic::forbidden(&sp.child(key), WINDOWS));
        }
    }
    let sysctls = sc.and_then(|o| o.get("sysctls")).and_then(Value::as_array);
    if sysctls.is_some_and(|s| !s.is_empty()) {
        out.push(Diagnostic::forbidden(&sp.child("sysctls"), WINDOWS));
    }
    if e.supplemental_groups_policy.is_some() {
        out.push(Diagnostic::forbidden(
            &sp.child("supplementalGroupsPolicy"),
            WINDOWS,
        ));
    }
    if e.selinux_change_policy.is_some() {
        out.push(Diagnostic::forbidden(
            &sp.child("seLinuxChangePolicy"),
            WINDOWS,
        ));
    }
    if e.host_users.is_some() {
        out.push(Diagnostic::forbidden(&path.child("hostUsers"), WINDOWS));
    }
    for key in ["hostPID", "hostIPC"] {
        if spec_flag(e.spec, key) {
            out.push(Diagnostic::forbidden(&path.child(key), WINDOWS));
        }
    }
    if e.spec
        .other
        .get("shareProcessNamespace")
        .is_some_and(|v| !v.is_null())
    {
        out.push(Diagnostic::forbidden(
            &path.child("shareProcessNamespace"),
            WINDOWS,
        ));
    }
    for (c, cp) in e.containers(path) {
        let Some(csc) = container_sc(c) else { continue };
        let p = cp.child("securityContext");
        for key in [
            "appArmorProfile",
            "seLinuxOptions",
            "seccompProfile",
            "capabilities",
            "readOnlyRootFilesystem",
            "privileged",
            "allowPrivilegeEscalation",
            "procMount",
            "runAsUser",
            "runAsGroup",
        ] {
            if set(Some(csc), key) {
                out.push(Diagnostic::forbidden(&p.child(key), WINDOWS));
            }
        }
    }
}

/// ValidateSeccompProfile (an annotation's value).
fn seccomp_annotation(v: &str, p: &FieldPath, out: &mut Findings) {
    match v {
        "runtime/default" | "docker/default" | "unconfined" => {}
        _ => match v.strip_prefix(LOCALHOST_PREFIX) {
            Some(rest) => local_descending(rest, p, out),
            None => out.push(invalid_str(p, v, "must be a valid seccomp profile")),
        },
    }
}

/// The seccomp and AppArmor parts of ValidatePodSpecificAnnotations, then
/// validateSeccompAnnotationsAndFields and validateAppArmorAnnotationsAndFieldsMatchOnCreate.
/// `annotations_path` is where the annotations are (`metadata.annotations`, or a template's
/// `….template.annotations`); `spec_path` the PodSpec's (a Pod's after
/// [`apparmor_version_skew`]).
fn annotations_and_fields(
    annotations: &[(&str, &str)],
    spec: &PodSpec,
    annotations_path: &FieldPath,
    spec_path: &FieldPath,
    ctx: &Ctx,
    out: &mut Findings,
) {
    let get = |k: &str| {
        annotations
            .iter()
            .find(|(key, _)| *key == k)
            .map(|(_, v)| *v)
    };
    if let Some(v) = get(SECCOMP_POD_KEY) {
        seccomp_annotation(v, &annotations_path.child(SECCOMP_POD_KEY), out);
    }
    for (k, v) in annotations {
        if k.starts_with(SECCOMP_CONTAINER_PREFIX) {
            seccomp_annotation(v, &annotations_path.child(k), out);
        }
    }
    let e = Effective::new(spec, ctx);
    let containers = e.containers(spec_path);
    for (k, v) in annotations {
        let Some(name) = k.strip_prefix(APPARMOR_CONTAINER_PREFIX) else {
            continue;
        };
        let kp = annotations_path.key(k);
        if !containers.iter().any(|(c, _)| c.name == name) {
            out.push(invalid_str(&kp, name, "container not found"));
        }
        let format_ok =
            matches!(*v, "" | "runtime/default" | "unconfined") || v.starts_with(LOCALHOST_PREFIX);
        if !format_ok {
            out.push(invalid_str(
                &kp,
                v,
                format!("invalid AppArmor profile name: {}", go::quote(v)),
            ));
        }
    }

    // validateSeccompAnnotationsAndFields.
    let sp = spec_path.child("securityContext").child("seccompProfile");
    if let (Some(f), Some(a)) = (
        Profile::of(e.pod_sc.and_then(|o| o.get("seccompProfile"))),
        get(SECCOMP_POD_KEY),
    ) {
        seccomp_match(a, &f, &sp, out);
    }
    for (c, cp) in &containers {
        let f = Profile::of(container_sc(c).and_then(|o| o.get("seccompProfile")));
        let key = format!("{SECCOMP_CONTAINER_PREFIX}{}", c.name);
        if let (Some(f), Some(a)) = (f, get(&key)) {
            let p = cp.child("securityContext").child("seccompProfile");
            seccomp_match(a, &f, &p, out);
        }
    }

    // validateAppArmorAnnotationsAndFieldsMatchOnCreate: not for windows Pods.
    if e.windows {
        return;
    }
    let pod_profile = Profile::of(e.pod_sc.and_then(|o| o.get("appArmorProfile")));
    for (c, cp) in &containers {
        let own = Profile::of(container_sc(c).and_then(|o| o.get("appArmorProfile")));
        let Some(f) = own.or_else(|| pod_profile.clone()) else {
            continue;
        };
        let key = format!("{APPARMOR_CONTAINER_PREFIX}{}", c.name);
        let Some(a) = get(&key) else { continue };
        let ap = cp.child("securityContext").child("appArmorProfile");
        let type_mismatch = "apparmor type in annotation and field must match";
        match f.kind.as_str() {
            "Unconfined" if a != "unconfined" => {
                out.push(Diagnostic::forbidden(&ap.child("type"), type_mismatch));
            }
            "RuntimeDefault" if a != "runtime/default" => {
                out.push(Diagnostic::forbidden(&ap.child("type"), type_mismatch));
            }
            "Localhost" => match a.strip_prefix(LOCALHOST_PREFIX) {
                None => out.push(Diagnostic::forbidden(&ap.child("type"), type_mismatch)),
                Some(rest) if f.localhost.as_deref() != Some(rest) => {
                    out.push(Diagnostic::forbidden(
                        &ap.child("localhostProfile"),
                        "apparmor profile in annotation and field must match",
                    ));
                }
                Some(_) => {}
            },
            _ => {}
        }
    }
}

/// validateSeccompAnnotationsAndFieldsMatch.
fn seccomp_match(a: &str, f: &Profile, p: &FieldPath, out: &mut Findings) {
    let type_mismatch = "seccomp type in annotation and field must match";
    match f.kind.as_str() {
        "Unconfined" if a != "unconfined" => {
            out.push(Diagnostic::forbidden(&p.child("type"), type_mismatch));
        }
        "RuntimeDefault" if a != "runtime/default" && a != "docker/default" => {
            out.push(Diagnostic::forbidden(&p.child("type"), type_mismatch));
        }
        "Localhost" => match a.strip_prefix(LOCALHOST_PREFIX) {
            None => out.push(Diagnostic::forbidden(&p.child("type"), type_mismatch)),
            Some(rest) if f.localhost.as_deref() != Some(rest) => {
                out.push(Diagnostic::forbidden(
                    &p.child("localhostProfile"),
                    "seccomp profile in annotation and field must match",
                ));
            }
            Some(_) => {}
        },
        _ => {}
    }
}

/// A Pod's seccomp and AppArmor annotations and their agreement with its fields (ValidatePodCreate's
/// part of them).
pub fn pod_annotations(
    annotations: &[(&str, &str)],
    spec: &PodSpec,
    ctx: &Ctx,
    out: &mut Findings,
) {
    let ap = FieldPath::new("metadata").child("annotations");
    annotations_and_fields(annotations, spec, &ap, &FieldPath::new("spec"), ctx, out);
}

/// A Pod template's seccomp and AppArmor annotations and their agreement with its fields
/// (ValidatePodTemplateSpec's part of them). `template_path` is the template's path.
pub fn template_annotations(
    meta: Option<&crate::api::ObjectMeta>,
    spec: &PodSpec,
    template_path: &FieldPath,
    ctx: &Ctx,
    out: &mut Findings,
) {
    let pairs: Vec<(&str, &str)> = meta
        .and_then(|m| m.annotations.as_ref())
        .map(|m| m.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect())
        .unwrap_or_default();
    annotations_and_fields(
        &pairs,
        spec,
        &template_path.child("annotations"),
        &template_path.child("spec"),
        ctx,
        out,
    );
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]
    use super::*;
    use crate::features::{FeatureGates, KubeVersion};
    use serde_json::json;

    fn ctx(minor: u32, gates: &[(&str, bool)]) -> Ctx {
        let mut g = FeatureGates::for_version(KubeVersion { minor });
        for (n, on) in gates {
            g.set(n, *on);
        }
        Ctx {
            gates: g,
            skip_defaulting: false,
            future_rules: false,
            always_pod: false,
            field_validation: Default::default(),
        }
    }

    fn msgs(spec: Value, c: &Ctx) -> Vec<String> {
        let spec: PodSpec = serde_json::from_value(spec).unwrap();
        let mut out = Findings::default();
        validate(&spec, &FieldPath::new("spec"), c, &mut out);
        let mut m: Vec<String> = out.errors.into_iter().map(|d| d.message).collect();
        m.sort();
        m
    }

    fn pod_msgs(annotations: &[(&str, &str)], spec: Value, c: &Ctx) -> Vec<String> {
        let spec: PodSpec = serde_json::from_value(spec).unwrap();
        let skewed = apparmor_version_skew(&spec, annotations);
        let spec = skewed.as_ref().unwrap_or(&spec);
        let mut out = Findings::default();
        pod_annotations(annotations, spec, c, &mut out);
        validate(spec, &FieldPath::new("spec"), c, &mut out);
        let mut m: Vec<String> = out.errors.into_iter().map(|d| d.message).collect();
        m.sort();
        m
    }

    fn with_container(sc: Value) -> Value {
        json!({"containers": [{"name": "app", "image": "nginx", "securityContext": sc}]})
    }

    #[test]
    fn ids_out_of_range() {
        let spec = json!({"securityContext": {"runAsUser": -1, "fsGroup": 2147483648_i64,
            "supplementalGroups": [5, -2], "runAsGroup": 0},
            "containers": [{"name": "app", "securityContext": {"runAsUser": 2147483647, "runAsGroup": -1}}]});
        assert_eq!(
            msgs(spec, &ctx(37, &[])),
            vec![
                "spec.containers[0].securityContext.runAsGroup: Invalid value: -1: must be between 0 and 2147483647, inclusive",
                "spec.securityContext.fsGroup: Invalid value: 2147483648: must be between 0 and 2147483647, inclusive",
                "spec.securityContext.runAsUser: Invalid value: -1: must be between 0 and 2147483647, inclusive",
                "spec.securityContext.supplementalGroups[1]: Invalid value: -2: must be between 0 and 2147483647, inclusive",
            ]
        );
    }

    #[test]
    fn seccomp_profiles() {
        let c = ctx(37, &[]);
        assert_eq!(
            msgs(
                with_container(json!({"seccompProfile": {"type": "Localhost"}})),
                &c
            ),
            vec![
                "spec.containers[0].securityContext.seccompProfile.localhostProfile: Required value: must be set when seccomp type is Localhost"
            ]
        );
        let rd = json!({"securityContext": {"seccompProfile": {"type": "RuntimeDefault", "localhostProfile": "a.json"}}, "containers": []});
        assert_eq!(
            msgs(rd.clone(), &c),
            vec![
                "spec.securityContext.seccompProfile.localhostProfile: Invalid value: {\"Type\":\"RuntimeDefault\",\"LocalhostProfile\":\"a.json\"}: can only be set when seccomp type is Localhost"
            ]
        );
        assert_eq!(
            msgs(rd, &ctx(33, &[])),
            vec![
                "spec.securityContext.seccompProfile.localhostProfile: Invalid value: core.SeccompProfile{Type:\"RuntimeDefault\", LocalhostProfile:(*string)(0x…)}: can only be set when seccomp type is Localhost"
            ]
        );
        assert_eq!(
            msgs(
                with_container(
                    json!({"seccompProfile": {"type": "Localhost", "localhostProfile": "/etc/../x.json"}})
                ),
                &c
            ),
            vec![
                "spec.containers[0].securityContext.seccompProfile.localhostProfile: Invalid value: \"/etc/../x.json\": must be a relative path",
                "spec.containers[0].securityContext.seccompProfile.localhostProfile: Invalid value: \"/etc/../x.json\": must not contain '..'",
            ]
        );
        assert_eq!(
            msgs(
                with_container(json!({"seccompProfile": {"type": "Default"}})),
                &c
            ),
            vec![
                "spec.containers[0].securityContext.seccompProfile.type: Unsupported value: \"Default\": supported values: \"Localhost\", \"RuntimeDefault\", \"Unconfined\""
            ]
        );
    }

    #[test]
    fn apparmor_profiles_per_minor() {
        let long = "p".repeat(4096);
        let spec = with_container(
            json!({"appArmorProfile": {"type": "Localhost", "localhostProfile": long}}),
        );
        let p = "spec.containers[0].securityContext.appArmorProfile.localhostProfile";
        assert_eq!(
            msgs(spec.clone(), &ctx(37, &[])),
            vec![format!("{p}: Too long: may not be more than 4095 bytes")]
        );
        assert_eq!(
            msgs(spec, &ctx(31, &[])),
            vec![format!("{p}: Too long: may not be longer than 4095")]
        );
        let padded = with_container(
            json!({"appArmorProfile": {"type": "Localhost", "localhostProfile": " x"}}),
        );
        assert_eq!(
            msgs(padded, &ctx(37, &[])),
            vec![format!(
                "{p}: Invalid value: \" x\": must not be padded with whitespace"
            )]
        );
    }

    #[test]
    fn privilege_escalation_rules() {
        let sc = json!({"allowPrivilegeEscalation": false, "privileged": true, "capabilities": {"add": ["CAP_SYS_ADMIN"]}});
        let m = msgs(with_container(sc.clone()), &ctx(37, &[]));
        let value = "{\"Capabilities\":{\"Add\":[\"CAP_SYS_ADMIN\"],\"Drop\":null},\"Privileged\":true,\"SELinuxOptions\":null,\"WindowsOptions\":null,\"RunAsUser\":null,\"RunAsGroup\":null,\"RunAsNonRoot\":null,\"ReadOnlyRootFilesystem\":null,\"AllowPrivilegeEscalation\":false,\"ProcMount\":null,\"SeccompProfile\":null,\"AppArmorProfile\":null}";
        assert_eq!(
            m,
            vec![
                format!(
                    "spec.containers[0].securityContext: Invalid value: {value}: cannot set `allowPrivilegeEscalation` to false and `capabilities.Add` CAP_SYS_ADMIN"
                ),
                format!(
                    "spec.containers[0].securityContext: Invalid value: {value}: cannot set `allowPrivilegeEscalation` to false and `privileged` to true"
                ),
            ]
        );
        let old = msgs(with_container(sc), &ctx(31, &[]));
        assert!(old[1].contains("core.SecurityContext{Capabilities:(*core.Capabilities)(0x…), Privileged:(*bool)(0x…), SELinuxOptions:(*core.SELinuxOptions)(nil)"), "{old:?}");
        // Escalation allowed: no rule applies.
        assert!(
            msgs(
                with_container(json!({"privileged": true, "allowPrivilegeEscalation": true})),
                &ctx(37, &[])
            )
            .is_empty()
        );
    }

    #[test]
    fn proc_mount_needs_user_namespace_and_gate() {
        let unmasked = |host_users: Option<bool>| {
            let mut s = with_container(json!({"procMount": "Unmasked"}));
            if let Some(h) = host_users {
                s["hostUsers"] = json!(h);
            }
            s
        };
        let want = "spec.containers[0].securityContext.procMount: Invalid value: \"Unmasked\": `hostUsers` must be false to use `Unmasked`";
        assert_eq!(msgs(unmasked(None), &ctx(37, &[])), vec![want]);
        assert!(msgs(unmasked(Some(false)), &ctx(37, &[])).is_empty());
        // UserNamespacesSupport off drops hostUsers: Unmasked is refused again.
        assert_eq!(
            msgs(
                unmasked(Some(false)),
                &ctx(34, &[("UserNamespacesSupport", false)])
            ),
            vec![want]
        );
        // ProcMountType off: the field reads Default.
        assert!(msgs(unmasked(None), &ctx(34, &[("ProcMountType", false)])).is_empty());
        // ... unless the object is validated as given (no create-path drops).
        let mut as_given = ctx(34, &[("ProcMountType", false)]);
        as_given.skip_defaulting = true;
        assert_eq!(msgs(unmasked(None), &as_given), vec![want]);
    }

    #[test]
    fn sysctls_names_duplicates_and_host_namespaces() {
        let spec = json!({"hostNetwork": true, "hostIPC": true, "containers": [],
            "securityContext": {"sysctls": [{"name": "net.core.somaxconn"}, {"name": "Kernel.Sem"},
                {"name": "net.core.somaxconn"}, {"name": ""}, {"name": "kernel/shm_rmid_forced"}, {"name": "fs.mqueue.msg_max"}]}});
        let regex = r"^([a-z0-9]([-_a-z0-9]*[a-z0-9])?[\./])*[a-z0-9]([-_a-z0-9]*[a-z0-9])?$";
        assert_eq!(
            msgs(spec, &ctx(37, &[])),
            vec![
                "spec.securityContext.sysctls[0].name: Invalid value: \"net.core.somaxconn\": may not be specified when 'hostNetwork' is true".to_owned(),
                format!("spec.securityContext.sysctls[1].name: Invalid value: \"Kernel.Sem\": must have at most 253 characters and match regex {regex}"),
                "spec.securityContext.sysctls[2].name: Duplicate value: \"net.core.somaxconn\"".to_owned(),
                "spec.securityContext.sysctls[2].name: Invalid value: \"net.core.somaxconn\": may not be specified when 'hostNetwork' is true".to_owned(),
                "spec.securityContext.sysctls[3].name: Required value".to_owned(),
                "spec.securityContext.sysctls[4].name: Invalid value: \"kernel/shm_rmid_forced\": may not be specified when 'hostIPC' is true".to_owned(),
                "spec.securityContext.sysctls[5].name: Invalid value: \"fs.mqueue.msg_max\": may not be specified when 'hostIPC' is true".to_owned(),
            ]
        );
    }

    #[test]
    fn policies_and_gates() {
        let spec = json!({"containers": [], "securityContext": {"fsGroupChangePolicy": "Never",
            "supplementalGroupsPolicy": "Union", "seLinuxChangePolicy": "MountOption"}});
        let on = [
            ("SupplementalGroupsPolicy", true),
            ("SELinuxChangePolicy", true),
            ("SELinuxMount", false),
        ];
        assert_eq!(
            msgs(spec.clone(), &ctx(34, &on)),
            vec![
                "spec.securityContext.fsGroupChangePolicy: Unsupported value: \"Never\": supported values: \"Always\", \"OnRootMismatch\"",
                "spec.securityContext.seLinuxChangePolicy: Unsupported value: \"MountOption\": supported values: \"Recursive\"",
                "spec.securityContext.supplementalGroupsPolicy: Unsupported value: \"Union\": supported values: \"Merge\", \"Strict\"",
            ]
        );
        // With SELinuxMount both policies are allowed; with the gates off the fields are dropped.
        assert_eq!(
            msgs(
                spec.clone(),
                &ctx(
                    34,
                    &[
                        ("SupplementalGroupsPolicy", true),
                        ("SELinuxChangePolicy", true),
                        ("SELinuxMount", true)
                    ]
                )
            )
            .len(),
            2
        );
        assert_eq!(
            msgs(
                spec,
                &ctx(
                    34,
                    &[
                        ("SupplementalGroupsPolicy", false),
                        ("SELinuxChangePolicy", false)
                    ]
                )
            )
            .len(),
            1
        );
    }

    #[test]
    fn windows_pods_refuse_linux_fields() {
        let spec = json!({"os": {"name": "windows"}, "hostPID": true, "shareProcessNamespace": false,
            "securityContext": {"runAsUser": 1000, "seccompProfile": {"type": "RuntimeDefault"}, "supplementalGroups": []},
            "containers": [{"name": "app", "securityContext": {"privileged": false, "procMount": "Default",
                "windowsOptions": {"runAsUserName": "ContainerUser"}}}]});
        let f = "cannot be set for a windows pod";
        assert_eq!(
            msgs(spec, &ctx(37, &[])),
            vec![
                format!("spec.containers[0].securityContext.privileged: Forbidden: {f}"),
                format!("spec.containers[0].securityContext.procMount: Forbidden: {f}"),
                format!("spec.hostPID: Forbidden: {f}"),
                format!("spec.securityContext.runAsUser: Forbidden: {f}"),
                format!("spec.securityContext.seccompProfile: Forbidden: {f}"),
                format!("spec.securityContext.supplementalGroups: Forbidden: {f}"),
                format!("spec.shareProcessNamespace: Forbidden: {f}"),
            ]
        );
        let linux = json!({"os": {"name": "linux"}, "securityContext": {"windowsOptions": {"runAsUserName": "u"}}, "containers": []});
        assert_eq!(
            msgs(linux, &ctx(37, &[])),
            vec![
                "spec.securityContext.windowsOptions: Forbidden: windows options cannot be set for a linux pod"
            ]
        );
        assert_eq!(
            msgs(json!({"os": {"name": ""}, "containers": []}), &ctx(33, &[])),
            vec!["spec.os.name: Required value: cannot be empty"]
        );
        assert_eq!(
            msgs(json!({"os": {"name": ""}, "containers": []}), &ctx(34, &[])),
            vec!["spec.os.name: Required value"]
        );
        assert_eq!(
            msgs(
                json!({"os": {"name": "Linux"}, "containers": []}),
                &ctx(37, &[])
            ),
            vec!["spec.os: Unsupported value: \"Linux\": supported values: \"linux\", \"windows\""]
        );
    }

    #[test]
    fn windows_options_and_host_process() {
        let spec = json!({"securityContext": {"windowsOptions": {"hostProcess": true, "runAsUserName": "a\\b\\c"}},
            "containers": [{"name": "a", "securityContext": {"windowsOptions": {"hostProcess": false, "gmsaCredentialSpecName": "Bad_Name"}}},
                {"name": "b", "securityContext": {"windowsOptions": {"runAsUserName": "CORP\\user@x"}}}]});
        let m = msgs(spec, &ctx(37, &[]));
        assert!(m.contains(&"spec: Invalid value: \"\": If pod contains any hostProcess containers then all containers must be HostProcess containers".to_owned()), "{m:?}");
        assert!(m.contains(&"spec.hostNetwork: Invalid value: false: hostNetwork must be true if pod contains any hostProcess containers".to_owned()));
        assert!(m.contains(&"spec.containers[0].securityContext.windowsOptions.hostProcess: Invalid value: false: pod hostProcess value must be identical if both are specified, was true".to_owned()));
        assert!(m.contains(&"spec.securityContext.windowsOptions.runAsUserName: Invalid value: \"a\\\\b\\\\c\": runAsUserName cannot contain more than one backslash".to_owned()));
        assert!(m.contains(&"spec.containers[1].securityContext.windowsOptions.runAsUserName: Invalid value: \"CORP\\\\user@x\": runAsUserName's User cannot contain the following characters: \"/\\:;|=,+*?<>@[]".to_owned()));
        assert!(m.iter().any(|s| s.starts_with("spec.containers[0].securityContext.windowsOptions.gmsaCredentialSpecName: Invalid value: \"Bad_Name\"")));
        assert_eq!(m.len(), 6, "{m:?}");
    }

    #[test]
    fn annotations_and_their_fields() {
        let c = ctx(37, &[]);
        let spec = json!({"securityContext": {"seccompProfile": {"type": "RuntimeDefault"}},
            "containers": [{"name": "app", "securityContext": {"seccompProfile": {"type": "Localhost", "localhostProfile": "a.json"},
                "appArmorProfile": {"type": "RuntimeDefault"}}}]});
        let ann = [
            ("seccomp.security.alpha.kubernetes.io/pod", "unconfined"),
            (
                "container.seccomp.security.alpha.kubernetes.io/app",
                "localhost/b.json",
            ),
            (
                "container.apparmor.security.beta.kubernetes.io/app",
                "localhost/x",
            ),
            (
                "container.apparmor.security.beta.kubernetes.io/ghost",
                "bogus",
            ),
        ];
        assert_eq!(
            pod_msgs(&ann, spec, &c),
            vec![
                "metadata.annotations[container.apparmor.security.beta.kubernetes.io/ghost]: Invalid value: \"bogus\": invalid AppArmor profile name: \"bogus\"",
                "metadata.annotations[container.apparmor.security.beta.kubernetes.io/ghost]: Invalid value: \"ghost\": container not found",
                "spec.containers[0].securityContext.appArmorProfile.type: Forbidden: apparmor type in annotation and field must match",
                "spec.containers[0].securityContext.seccompProfile.localhostProfile: Forbidden: seccomp profile in annotation and field must match",
                "spec.securityContext.seccompProfile.type: Forbidden: seccomp type in annotation and field must match",
            ]
        );
        assert_eq!(
            pod_msgs(
                &[("seccomp.security.alpha.kubernetes.io/pod", "localhost/../x")],
                json!({"containers": []}),
                &c
            ),
            vec![
                "metadata.annotations.seccomp.security.alpha.kubernetes.io/pod: Invalid value: \"../x\": must not contain '..'"
            ]
        );
    }

    #[test]
    fn apparmor_annotation_becomes_the_containers_field() {
        let c = ctx(37, &[]);
        // The Pod's profile differs from the annotation's: a Pod's container takes the
        // annotation's profile, so they agree; a template is compared with the Pod's profile.
        let spec = json!({"securityContext": {"appArmorProfile": {"type": "RuntimeDefault"}},
            "containers": [{"name": "app"}]});
        let ann = [(
            "container.apparmor.security.beta.kubernetes.io/app",
            "unconfined",
        )];
        assert!(pod_msgs(&ann, spec.clone(), &c).is_empty());
        let spec: PodSpec = serde_json::from_value(spec).unwrap();
        let meta: crate::api::ObjectMeta = serde_json::from_value(json!({"annotations": {"container.apparmor.security.beta.kubernetes.io/app": "unconfined"}})).unwrap();
        let mut out = Findings::default();
        template_annotations(
            Some(&meta),
            &spec,
            &FieldPath::new("spec").child("template"),
            &c,
            &mut out,
        );
        assert_eq!(
            out.errors
                .iter()
                .map(|d| d.message.as_str())
                .collect::<Vec<_>>(),
            vec![
                "spec.template.spec.containers[0].securityContext.appArmorProfile.type: Forbidden: apparmor type in annotation and field must match"
            ]
        );
        // An annotation that names no valid profile is not copied: the Pod's profile is compared.
        let spec = json!({"securityContext": {"appArmorProfile": {"type": "Localhost", "localhostProfile": "a"}},
            "containers": [{"name": "app"}]});
        assert_eq!(
            pod_msgs(
                &[(
                    "container.apparmor.security.beta.kubernetes.io/app",
                    "localhost/"
                )],
                spec,
                &c
            ),
            vec![
                "spec.containers[0].securityContext.appArmorProfile.localhostProfile: Forbidden: apparmor profile in annotation and field must match"
            ]
        );
    }
}
