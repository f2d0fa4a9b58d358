//! A container's `env` and `envFrom` as kube-apiserver checks them on create.
//!
//! Upstream: `pkg/apis/core/validation/validation.go` (ValidateEnv, validateEnvVarValueFrom,
//! validateObjectFieldSelector, validateContainerResourceFieldSelector,
//! validateContainerResourceDivisor, validateConfigMapKeySelector, validateSecretKeySelector,
//! validateFileKeySelector, ValidateEnvFrom, validateConfigMapEnvSource, validateSecretEnvSource,
//! validateFileKeyRefVolumes), `pkg/api/pod/util.go` (GetValidationOptionsFromPodSpecAndMeta:
//! AllowRelaxedEnvironmentVariableValidation and AllowEnvFilesValidation are the gates on create;
//! dropFileKeyRefInUse), `pkg/apis/core/pods/helpers.go` (ConvertDownwardAPIFieldLabel) and
//! apimachinery's IsEnvVarName, IsRelaxedEnvVarName and IsConfigMapKey.

use super::meta;
use crate::diag::{Diagnostic, FieldPath, Findings};
use serde_json::Value;

/// KEP-4369's gate (beta and on from 1.32, GA in 1.34): env names may be any printable ASCII but '='.
const GATE_RELAXED: &str = "RelaxedEnvironmentVariableValidation";
/// KEP-5307's sibling KEP-3721 gate (alpha 1.34): `valueFrom.fileKeyRef`.
const GATE_ENV_FILES: &str = "EnvFiles";

/// The options this family reads, fixed per request (on create there is no old Pod).
#[derive(Debug, Clone, Copy)]
pub(super) struct EnvOpts {
    pub relaxed: bool,
    /// `fileKeyRef` exists (1.34 on) and the EnvFiles gate is on: not dropped, and named in the
    /// "must specify one of" message.
    pub env_files: bool,
    pub minor: u32,
    /// The v1 defaulting ran (fieldRef.apiVersion defaults to `v1`).
    pub defaulted: bool,
}

impl EnvOpts {
    pub fn of(ctx: &super::Ctx) -> Self {
        let minor = ctx.gates.version.minor;
        EnvOpts {
            relaxed: ctx.gates.enabled(GATE_RELAXED),
            env_files: ctx.gates.active(GATE_ENV_FILES),
            minor,
            defaulted: !ctx.skip_defaulting,
        }
    }
}

/// A member given and not null.
pub(super) fn member<'a>(v: &'a Value, key: &str) -> Option<&'a Value> {
    v.get(key).filter(|x| !x.is_null())
}

/// A string member, "" when absent (Go's zero value).
pub(super) fn str_of<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or("")
}

const ENV_NAME_FMT: &str = "[-._a-zA-Z][-._a-zA-Z0-9]*";
const ENV_NAME_MSG: &str = "a valid environment variable name must consist of alphabetic characters, digits, '_', '-', or '.', and must not start with a digit";
const RELAXED_ENV_NAME_MSG: &str = "a valid environment variable name must consist only of printable ASCII characters other than '='";
const CONFIG_KEY_FMT: &str = "[-._a-zA-Z0-9]+";
const CONFIG_KEY_MSG: &str =
    "a valid config key must consist of alphanumeric characters, '-', '_' or '.'";

/// hasChDirPrefix.
fn chdir_prefix(value: &str, errs: &mut Vec<String>) {
    if value == "." {
        errs.push("must not be '.'".to_owned());
    } else if value == ".." {
        errs.push("must not be '..'".to_owned());
    } else if value.starts_with("..") {
        errs.push("must not start with '..'".to_owned());
    }
}

/// IsEnvVarName.
pub(super) fn env_var_name(value: &str) -> Vec<String> {
    let b = value.as_bytes();
    let word = |c: &u8| c.is_ascii_alphabetic() || matches!(c, b'-' | b'.' | b'_');
    let ok = b.first().is_some_and(word) && b.iter().skip(1).all(|c| word(c) || c.is_ascii_digit());
    let mut errs = Vec::new();
    if !ok {
        errs.push(meta::regex_error(
            ENV_NAME_MSG,
            ENV_NAME_FMT,
            &["my.env-name", "MY_ENV.NAME", "MyEnvName1"],
        ));
    }
    chdir_prefix(value, &mut errs);
    errs
}

/// IsRelaxedEnvVarName: printable ASCII (unicode.IsPrint: space through '~') but '='.
pub(super) fn relaxed_env_var_name(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if value.is_empty() {
        errs.push("environment variable name must be non-empty".to_owned());
    }
    if value.chars().any(|r| !(' '..='~').contains(&r) || r == '=') {
        errs.push(RELAXED_ENV_NAME_MSG.to_owned());
    }
    errs
}

/// IsConfigMapKey.
pub(super) fn config_map_key(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if value.len() > 253 {
        errs.push("must be no more than 253 characters".to_owned());
    }
    let ok = !value.is_empty()
        && value
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'.' | b'_'));
    if !ok {
        errs.push(meta::regex_error(
            CONFIG_KEY_MSG,
            CONFIG_KEY_FMT,
            &["key.name", "KEY_NAME", "key-name"],
        ));
    }
    chdir_prefix(value, &mut errs);
    errs
}

fn name_check(value: &str, p: &FieldPath, opts: EnvOpts, out: &mut Findings) {
    let msgs = if opts.relaxed {
        relaxed_env_var_name(value)
    } else {
        env_var_name(value)
    };
    for m in msgs {
        out.push(Diagnostic::invalid(p, value, m));
    }
}

/// sets.List order of validEnvDownwardAPIFieldPathExpressions.
const ENV_FIELD_PATHS: [&str; 9] = [
    "metadata.name",
    "metadata.namespace",
    "metadata.uid",
    "spec.nodeName",
    "spec.serviceAccountName",
    "status.hostIP",
    "status.hostIPs",
    "status.podIP",
    "status.podIPs",
];
/// validVolumeDownwardAPIFieldPathExpressions, sorted.
pub(super) const VOLUME_FIELD_PATHS: [&str; 5] = [
    "metadata.annotations",
    "metadata.labels",
    "metadata.name",
    "metadata.namespace",
    "metadata.uid",
];
/// validContainerResourceFieldPathExpressions, sorted.
const RESOURCE_PATHS: [&str; 6] = [
    "limits.cpu",
    "limits.ephemeral-storage",
    "limits.memory",
    "requests.cpu",
    "requests.ephemeral-storage",
    "requests.memory",
];

/// The labels ConvertDownwardAPIFieldLabel knows (v1).
const CONVERTIBLE: [&str; 14] = [
    "metadata.annotations",
    "metadata.labels",
    "metadata.name",
    "metadata.namespace",
    "metadata.uid",
    "spec.nodeName",
    "spec.restartPolicy",
    "spec.serviceAccountName",
    "spec.schedulerName",
    "status.phase",
    "status.hostIP",
    "status.hostIPs",
    "status.podIP",
    "status.podIPs",
];

/// fieldpath.SplitMaybeSubscriptedPath: `path['key']` -> (path, key).
fn split_subscript(fp: &str) -> Option<(&str, &str)> {
    let s = fp.strip_suffix("']")?;
    let (path, key) = s.split_once("['")?;
    (!path.is_empty()).then_some((path, key))
}

/// validateObjectFieldSelector, with `expressions` the paths allowed without a subscript.
pub(super) fn object_field_selector(
    fs: &Value,
    expressions: &[&str],
    p: &FieldPath,
    opts: EnvOpts,
    out: &mut Findings,
) {
    let api_version = match str_of(fs, "apiVersion") {
        "" if opts.defaulted => "v1",
        v => v,
    };
    if api_version.is_empty() {
        out.push(Diagnostic::required(&p.child("apiVersion"), ""));
        return;
    }
    let fp = str_of(fs, "fieldPath");
    if fp.is_empty() {
        out.push(Diagnostic::required(&p.child("fieldPath"), ""));
        return;
    }
    // ConvertDownwardAPIFieldLabel.
    let converted = if api_version != "v1" {
        Err(format!("unsupported pod version: {api_version}"))
    } else if let Some((path, _)) = split_subscript(fp) {
        if path == "metadata.annotations" || path == "metadata.labels" {
            Ok(fp)
        } else {
            Err(format!("field label does not support subscript: {fp}"))
        }
    } else if CONVERTIBLE.contains(&fp) {
        Ok(fp)
    } else if fp == "spec.host" {
        Ok("spec.nodeName")
    } else {
        Err(format!("field label not supported: {fp}"))
    };
    let internal = match converted {
        Ok(v) => v,
        Err(e) => {
            out.push(Diagnostic::invalid(
                &p.child("fieldPath"),
                fp,
                format!("error converting fieldPath: {e}"),
            ));
            return;
        }
    };
    match split_subscript(internal) {
        Some((path, sub)) => match path {
            "metadata.annotations" => {
                let lower = sub.to_lowercase();
                for m in meta::qualified_name(&lower, opts.minor) {
                    out.push(Diagnostic::invalid(p, lower.as_str(), m));
                }
            }
            "metadata.labels" => {
                for m in meta::qualified_name(sub, opts.minor) {
                    out.push(Diagnostic::invalid(p, sub, m));
                }
            }
            _ => out.push(Diagnostic::invalid(p, path, "does not support subscript")),
        },
        None if !expressions.contains(&internal) => {
            out.push(Diagnostic::not_supported(
                &p.child("fieldPath"),
                internal,
                expressions,
            ));
        }
        None => {}
    }
}

/// validateContainerResourceFieldSelector (`volume`: a downward API volume file, whose
/// containerName is required).
pub(super) fn resource_field_selector(fs: &Value, p: &FieldPath, volume: bool, out: &mut Findings) {
    let resource = str_of(fs, "resource");
    if volume && str_of(fs, "containerName").is_empty() {
        out.push(Diagnostic::required(&p.child("containerName"), ""));
    } else if resource.is_empty() {
        out.push(Diagnostic::required(&p.child("resource"), ""));
    } else if !RESOURCE_PATHS.contains(&resource)
        && !resource.starts_with("limits.hugepages-")
        && !resource.starts_with("requests.hugepages-")
    {
        out.push(Diagnostic::not_supported(
            &p.child("resource"),
            resource,
            &RESOURCE_PATHS,
        ));
    }
    divisor(resource, fs.get("divisor"), p, out);
}

const DIVISORS: [&str; 13] = [
    "1", "1k", "1M", "1G", "1T", "1P", "1E", "1Ki", "1Mi", "1Gi", "1Ti", "1Pi", "1Ei",
];

/// validateContainerResourceDivisor: the divisor's canonical form must be one of the units.
fn divisor(resource: &str, d: Option<&Value>, p: &FieldPath, out: &mut Findings) {
    let Some(text) = d.and_then(|v| match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }) else {
        return;
    };
    let Some(canon) = canonical_quantity(&text) else {
        return;
    };
    if canon == "0" {
        return;
    }
    let dp = p.child("divisor");
    let units = "1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, 1Ti, 1Pi, 1Ei";
    let bad = |what: &str| format!("only divisor's values {units} are supported with the {what}");
    let c = canon.as_str();
    match resource {
        "limits.cpu" | "requests.cpu" if c != "1m" && c != "1" => out.push(Diagnostic::invalid(
            &dp,
            resource,
            "only divisor's values 1m and 1 are supported with the cpu resource",
        )),
        "limits.memory" | "requests.memory" if !DIVISORS.contains(&c) => {
            out.push(Diagnostic::invalid(&dp, resource, bad("memory resource")))
        }
        "limits.ephemeral-storage" | "requests.ephemeral-storage" if !DIVISORS.contains(&c) => out
            .push(Diagnostic::invalid(
                &dp,
                resource,
                bad("local ephemeral storage resource"),
            )),
        _ => {}
    }
    if (resource.starts_with("requests.hugepages-") || resource.starts_with("limits.hugepages-"))
        && !DIVISORS.contains(&c)
    {
        out.push(Diagnostic::invalid(
            &dp,
            resource,
            bad("hugepages resource"),
        ));
    }
}

/// resource.Quantity's canonical String() for the forms a divisor takes: a decimal number with
/// an SI suffix (n, u, m, "", k, M, G, T, P, E) or a binary one (Ki ... Ei). `None` when the text
/// is no such quantity (exponent forms included: restartkit then makes no divisor check).
pub(super) fn canonical_quantity(text: &str) -> Option<String> {
    let (num, suffix) = text.split_at(
        text.find(|c: char| c.is_ascii_alphabetic())
            .unwrap_or(text.len()),
    );
    let (neg, num) = match num.as_bytes().first() {
        Some(b'-') => (true, num.get(1..)?),
        Some(b'+') => (false, num.get(1..)?),
        _ => (false, num),
    };
    let (int, frac) = num.split_once('.').unwrap_or((num, ""));
    if (int.is_empty() && frac.is_empty())
        || !int.bytes().chain(frac.bytes()).all(|c| c.is_ascii_digit())
        || int.len() + frac.len() > 30
    {
        return None;
    }
    let mut m: i128 = format!("{int}{frac}").parse().ok()?;
    let mut e10: i32 = -i32::try_from(frac.len()).ok()?;
    let (dec_exp, bin_exp) = match suffix {
        "n" => (-9, 0),
        "u" => (-6, 0),
        "m" => (-3, 0),
        "" => (0, 0),
        "k" => (3, 0),
        "M" => (6, 0),
        "G" => (9, 0),
        "T" => (12, 0),
        "P" => (15, 0),
        "E" => (18, 0),
        "Ki" => (0, 1),
        "Mi" => (0, 2),
        "Gi" => (0, 3),
        "Ti" => (0, 4),
        "Pi" => (0, 5),
        "Ei" => (0, 6),
        _ => return None,
    };
    e10 += dec_exp;
    if m == 0 {
        return Some("0".to_owned());
    }
    let sign = if neg { "-" } else { "" };
    if bin_exp > 0 {
        m = m.checked_mul(1i128.checked_shl(10 * bin_exp)?)?;
        // An integer of magnitude 1024 or more keeps the binary form.
        let mut v = m;
        let mut e = e10;
        while e < 0 && v % 10 == 0 {
            v /= 10;
            e += 1;
        }
        if e >= 0 {
            let v = v.checked_mul(10i128.checked_pow(u32::try_from(e).ok()?)?)?;
            if v >= 1024 {
                let mut v = v;
                let mut k = 0;
                while k < 6 && v % 1024 == 0 {
                    v /= 1024;
                    k += 1;
                }
                let suf = ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"]
                    .get(k)
                    .copied()
                    .unwrap_or("Ei");
                return Some(format!("{sign}{v}{suf}"));
            }
        }
    }
    while m % 10 == 0 {
        m /= 10;
        e10 += 1;
    }
    if e10 < -9 {
        // Below a nano the quantity rounds up to the next nano.
        let shift = u32::try_from(-9 - e10).ok()?;
        let d = 10i128.checked_pow(shift)?;
        m = (m + d - 1) / d;
        e10 = -9;
    }
    let mut exp = e10.div_euclid(3) * 3;
    if exp > 18 {
        exp = 18;
    }
    let mant = m.checked_mul(10i128.checked_pow(u32::try_from(e10 - exp).ok()?)?)?;
    let suf = match exp {
        -9 => "n",
        -6 => "u",
        -3 => "m",
        0 => "",
        3 => "k",
        6 => "M",
        9 => "G",
        12 => "T",
        15 => "P",
        _ => "E",
    };
    Some(format!("{sign}{mant}{suf}"))
}

/// validateConfigMapKeySelector and validateSecretKeySelector (identical upstream).
fn key_selector(s: &Value, p: &FieldPath, out: &mut Findings) {
    let name = str_of(s, "name");
    for m in meta::dns1123_subdomain_name(name, false) {
        out.push(Diagnostic::invalid(&p.child("name"), name, m));
    }
    let key = str_of(s, "key");
    if key.is_empty() {
        out.push(Diagnostic::required(&p.child("key"), ""));
    } else {
        for m in config_map_key(key) {
            out.push(Diagnostic::invalid(&p.child("key"), key, m));
        }
    }
}

/// validatePathNoBacksteps: no `..` element.
pub(super) fn path_no_backsteps(target: &str, p: &FieldPath, out: &mut Findings) {
    if target.split('/').any(|e| e == "..") {
        out.push(Diagnostic::invalid(p, target, "must not contain '..'"));
    }
}

/// validateFileKeySelector.
fn file_key_selector(s: &Value, p: &FieldPath, out: &mut Findings) {
    let key = str_of(s, "key");
    if key.is_empty() {
        out.push(Diagnostic::required(&p.child("key"), ""));
    } else {
        for m in relaxed_env_var_name(key) {
            out.push(Diagnostic::invalid(&p.child("key"), key, m));
        }
    }
    let vn = str_of(s, "volumeName");
    if vn.is_empty() {
        out.push(Diagnostic::required(&p.child("volumeName"), ""));
    } else {
        for m in meta::dns1123_label(vn) {
            out.push(Diagnostic::invalid(&p.child("volumeName"), vn, m));
        }
    }
    let path = str_of(s, "path");
    if path.is_empty() {
        out.push(Diagnostic::required(&p.child("path"), ""));
    } else {
        path_no_backsteps(path, &p.child("path"), out);
    }
}

/// The warning for a field a create drops because its gate is off (pkg/api/pod/util.go).
pub(super) fn dropped(p: &FieldPath, gate: &str) -> Diagnostic {
    Diagnostic::lint(
        "field-dropped",
        p,
        format!(
            "{p}: dropped on create: the {gate} feature gate is off, so the API server clears this field"
        ),
    )
}

/// validateEnvVarValueFrom.
fn value_from(ev: &Value, p: &FieldPath, opts: EnvOpts, out: &mut Findings) {
    let Some(vf) = member(ev, "valueFrom") else {
        return;
    };
    let mut n = 0;
    if let Some(fs) = member(vf, "fieldRef") {
        n += 1;
        object_field_selector(fs, &ENV_FIELD_PATHS, &p.child("fieldRef"), opts, out);
    }
    if let Some(fs) = member(vf, "resourceFieldRef") {
        n += 1;
        resource_field_selector(fs, &p.child("resourceFieldRef"), false, out);
    }
    if let Some(s) = member(vf, "configMapKeyRef") {
        n += 1;
        key_selector(s, &p.child("configMapKeyRef"), out);
    }
    if let Some(s) = member(vf, "secretKeyRef") {
        n += 1;
        key_selector(s, &p.child("secretKeyRef"), out);
    }
    // Before 1.34 fileKeyRef is no field (the decoder drops it); with EnvFiles off a create drops it.
    if let Some(s) = member(vf, "fileKeyRef") {
        // Without the drop (skipDefaulting) upstream validates it whatever the gate.
        let field = crate::features::known_at(GATE_ENV_FILES, opts.minor);
        if opts.env_files || (field && !opts.defaulted) {
            n += 1;
            file_key_selector(s, &p.child("fileKeyRef"), out);
        } else if field && opts.defaulted {
            out.push(dropped(&p.child("fileKeyRef"), GATE_ENV_FILES));
        }
    }
    if n == 0 {
        let detail = if opts.env_files {
            "must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef`, `secretKeyRef` or `fileKeyRef`"
        } else {
            "must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`"
        };
        out.push(Diagnostic::invalid(p, "", detail));
    } else if !str_of(ev, "value").is_empty() {
        out.push(Diagnostic::invalid(
            p,
            "",
            "may not be specified when `value` is not empty",
        ));
    } else if n > 1 {
        out.push(Diagnostic::invalid(
            p,
            "",
            "may not have more than one field specified at a time",
        ));
    }
}

/// ValidateEnv.
fn env(vars: &[Value], p: &FieldPath, opts: EnvOpts, out: &mut Findings) {
    for (i, ev) in vars.iter().enumerate() {
        let ip = p.index(i);
        let name = str_of(ev, "name");
        if name.is_empty() {
            out.push(Diagnostic::required(&ip.child("name"), ""));
        } else {
            name_check(name, &ip.child("name"), opts, out);
        }
        value_from(ev, &ip.child("valueFrom"), opts, out);
    }
}

/// ValidateEnvFrom.
fn env_from(vars: &[Value], p: &FieldPath, opts: EnvOpts, out: &mut Findings) {
    for (i, ev) in vars.iter().enumerate() {
        let ip = p.index(i);
        let prefix = str_of(ev, "prefix");
        if !prefix.is_empty() {
            name_check(prefix, &ip.child("prefix"), opts, out);
        }
        let mut n = 0;
        for key in ["configMapRef", "secretRef"] {
            if let Some(s) = member(ev, key) {
                n += 1;
                let np = ip.child(key).child("name");
                let name = str_of(s, "name");
                if name.is_empty() {
                    out.push(Diagnostic::required(&np, ""));
                } else {
                    for m in meta::dns1123_subdomain_name(name, true) {
                        out.push(Diagnostic::invalid(&np, name, m));
                    }
                }
            }
        }
        // Upstream reports these at the list's path, not the item's.
        if n == 0 {
            out.push(Diagnostic::invalid(
                p,
                "",
                "must specify one of: `configMapRef` or `secretRef`",
            ));
        } else if n > 1 {
            out.push(Diagnostic::invalid(
                p,
                "",
                "may not have more than one field specified at a time",
            ));
        }
    }
}

fn list<'a>(c: &'a crate::api::Container, key: &str) -> &'a [Value] {
    c.other
        .get(key)
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

/// What validateContainerCommon checks of a container's `env` and `envFrom` (`p`: the
/// container's path).
pub(super) fn container(
    c: &crate::api::Container,
    p: &FieldPath,
    opts: EnvOpts,
    out: &mut Findings,
) {
    env(list(c, "env"), &p.child("env"), opts, out);
    env_from(list(c, "envFrom"), &p.child("envFrom"), opts, out);
}

/// validateFileKeyRefVolumes: a fileKeyRef names an emptyDir volume of the Pod. `volumes` maps
/// each volume name (all of them, valid or not) to whether it is an emptyDir.
pub(super) fn file_key_ref_volumes(
    spec: &crate::api::PodSpec,
    path: &FieldPath,
    volumes: &dyn Fn(&str) -> Option<bool>,
    opts: EnvOpts,
    out: &mut Findings,
) {
    if !opts.env_files {
        return;
    }
    let lists = [
        ("initContainers", &spec.init_containers),
        ("containers", &spec.containers),
        ("ephemeralContainers", &spec.ephemeral_containers),
    ];
    for (name, cs) in lists {
        for (i, c) in cs.iter().enumerate() {
            for (j, ev) in list(c, "env").iter().enumerate() {
                let Some(fk) = member(ev, "valueFrom").and_then(|v| member(v, "fileKeyRef")) else {
                    continue;
                };
                let vn = str_of(fk, "volumeName");
                let vp = path
                    .child(name)
                    .index(i)
                    .child("env")
                    .index(j)
                    .child("valueFrom")
                    .child("fileKeyRef")
                    .child("volumeName");
                match volumes(vn) {
                    None => out.push(Diagnostic::not_found(&vp, vn)),
                    Some(false) => out.push(Diagnostic::invalid(
                        &vp,
                        vn,
                        "referenced volume must be of type emptyDir",
                    )),
                    Some(true) => {}
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]
    use super::super::Ctx;
    use crate::api::PodSpec;
    use crate::diag::{FieldPath, Findings};
    use crate::features::{FeatureGates, KubeVersion};
    use serde_json::{Value, json};

    pub(crate) fn run(
        minor: &str,
        gates: &[(&str, bool)],
        spec: Value,
    ) -> Vec<(String, String, String)> {
        let mut g = FeatureGates::for_version(KubeVersion::parse(minor).unwrap());
        for (k, v) in gates {
            g.set(k, *v);
        }
        let ctx = Ctx {
            gates: g,
            ..Default::default()
        };
        let mut s: PodSpec = serde_json::from_value(spec).unwrap();
        super::super::pod::default_pod_spec(&mut s);
        let mut out = Findings::default();
        super::super::pod::validate_pod_spec(&s, &FieldPath::new("spec"), &ctx, &mut out);
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

    fn env(vars: Value) -> Value {
        json!({"containers": [{"name": "c", "image": "i", "env": vars}]})
    }

    fn fields(e: &[(String, String, String)]) -> Vec<&str> {
        e.iter().map(|x| x.0.as_str()).collect()
    }

    #[test]
    fn env_names_strict_and_relaxed() {
        let bad = env(json!([{"name": "DB=HOST", "value": "x"}]));
        let e = run(
            "1.31",
            &[("RelaxedEnvironmentVariableValidation", false)],
            bad.clone(),
        );
        assert_eq!(fields(&e), ["spec.containers[0].env[0].name"]);
        assert!(e[0].2.contains("must not start with a digit"), "{e:?}");
        let e = run("1.37", &[], bad);
        assert!(
            e[0].2.contains("printable ASCII characters other than '='"),
            "{e:?}"
        );
        // "my var" and "1ST" pass under the relaxed rule only.
        let spaced = env(json!([{"name": "1ST", "value": "x"}]));
        assert!(run("1.37", &[], spaced.clone()).is_empty());
        assert_eq!(
            run(
                "1.31",
                &[("RelaxedEnvironmentVariableValidation", false)],
                spaced
            )
            .len(),
            1
        );
        assert!(
            run(
                "1.31",
                &[],
                env(json!([{"name": "MY_ENV.NAME", "value": "x"}]))
            )
            .is_empty()
        );
        let e = run(
            "1.31",
            &[("RelaxedEnvironmentVariableValidation", false)],
            env(json!([{"name": "..X"}])),
        );
        assert!(
            e.iter().any(|x| x.2.contains("must not start with '..'")),
            "{e:?}"
        );
        let e = run("1.37", &[], env(json!([{"name": ""}])));
        assert_eq!(e[0].1, "FieldValueRequired");
    }

    #[test]
    fn value_from_needs_exactly_one_source() {
        let two = env(json!([{"name": "A", "valueFrom": {
            "secretKeyRef": {"name": "s", "key": "k"}, "configMapKeyRef": {"name": "c", "key": "k"}}}]));
        let e = run("1.37", &[], two);
        assert_eq!(fields(&e), ["spec.containers[0].env[0].valueFrom"]);
        assert!(
            e[0].2
                .contains("may not have more than one field specified at a time")
        );
        let none = env(json!([{"name": "A", "valueFrom": {}}]));
        let e = run("1.33", &[], none.clone());
        assert!(
            e[0].2.ends_with("`configMapKeyRef` or `secretKeyRef`"),
            "{e:?}"
        );
        let e = run("1.37", &[("EnvFiles", true)], none);
        assert!(e[0].2.ends_with("`secretKeyRef` or `fileKeyRef`"), "{e:?}");
        let with_value = env(
            json!([{"name": "A", "value": "v", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}}]),
        );
        assert!(
            run("1.37", &[], with_value)[0]
                .2
                .contains("may not be specified when `value` is not empty")
        );
        let ok =
            env(json!([{"name": "A", "valueFrom": {"secretKeyRef": {"name": "s", "key": "k"}}}]));
        assert!(run("1.37", &[], ok).is_empty());
    }

    #[test]
    fn field_ref_paths() {
        let fr = |p: &str| env(json!([{"name": "A", "valueFrom": {"fieldRef": {"fieldPath": p}}}]));
        assert!(run("1.37", &[], fr("status.podIP")).is_empty());
        assert!(run("1.37", &[], fr("spec.host")).is_empty());
        assert!(run("1.37", &[], fr("metadata.labels['app']")).is_empty());
        let e = run("1.37", &[], fr("status.phase"));
        assert_eq!(e[0].1, "FieldValueNotSupported");
        let e = run("1.37", &[], fr("spec.containers"));
        assert!(
            e[0].2
                .contains("error converting fieldPath: field label not supported: spec.containers")
        );
        let e = run("1.37", &[], fr("metadata.name['x']"));
        assert!(
            e[0].2.contains("field label does not support subscript"),
            "{e:?}"
        );
        let e = run("1.37", &[], fr("metadata.labels['Bad Key']"));
        assert_eq!(fields(&e), ["spec.containers[0].env[0].valueFrom.fieldRef"]);
        let v2 = env(
            json!([{"name": "A", "valueFrom": {"fieldRef": {"apiVersion": "v2", "fieldPath": "metadata.name"}}}]),
        );
        assert!(
            run("1.37", &[], v2)[0]
                .2
                .contains("unsupported pod version: v2")
        );
    }

    #[test]
    fn resource_field_ref_and_divisor() {
        let rf = |r: &str, d: &str| {
            env(
                json!([{"name": "A", "valueFrom": {"resourceFieldRef": {"resource": r, "divisor": d}}}]),
            )
        };
        assert!(run("1.37", &[], rf("limits.cpu", "1m")).is_empty());
        assert!(run("1.37", &[], rf("limits.cpu", "1000m")).is_empty());
        assert!(run("1.37", &[], rf("requests.memory", "1024Ki")).is_empty());
        assert!(run("1.37", &[], rf("requests.hugepages-2Mi", "1Mi")).is_empty());
        let e = run("1.37", &[], rf("limits.cpu", "2"));
        assert!(e[0].2.contains("only divisor's values 1m and 1"), "{e:?}");
        let e = run("1.37", &[], rf("requests.memory", "2"));
        assert!(e[0].2.contains("memory resource"), "{e:?}");
        let e = run("1.37", &[], rf("limits.gpu", "1"));
        assert_eq!(e[0].1, "FieldValueNotSupported");
        assert_eq!(super::canonical_quantity("0.5").as_deref(), Some("500m"));
        assert_eq!(super::canonical_quantity("1024Mi").as_deref(), Some("1Gi"));
        assert_eq!(super::canonical_quantity("0.5Ki").as_deref(), Some("512"));
        assert_eq!(super::canonical_quantity("1000k").as_deref(), Some("1M"));
    }

    #[test]
    fn key_selectors() {
        let cm = |n: &str, k: &str| {
            env(json!([{"name": "A", "valueFrom": {"configMapKeyRef": {"name": n, "key": k}}}]))
        };
        assert!(run("1.37", &[], cm("app-config", "log.level")).is_empty());
        let e = run("1.37", &[], cm("Bad_Name", "bad key"));
        assert_eq!(
            fields(&e),
            [
                "spec.containers[0].env[0].valueFrom.configMapKeyRef.name",
                "spec.containers[0].env[0].valueFrom.configMapKeyRef.key"
            ]
        );
        let e = run("1.37", &[], cm("", ""));
        assert_eq!(e.len(), 2, "{e:?}");
        assert_eq!(e[1].1, "FieldValueRequired");
    }

    #[test]
    fn file_key_ref_per_minor_and_gate() {
        let spec = |vol: Value| {
            json!({"volumes": [vol], "containers": [{"name": "c", "image": "i",
            "env": [{"name": "A", "valueFrom": {"fileKeyRef": {"volumeName": "data", "path": "p", "key": "K"}}}]}]})
        };
        let e = run(
            "1.37",
            &[("EnvFiles", true)],
            spec(json!({"name": "data", "emptyDir": {}})),
        );
        assert!(e.is_empty(), "{e:?}");
        let e = run(
            "1.37",
            &[("EnvFiles", true)],
            spec(json!({"name": "data", "configMap": {"name": "x"}})),
        );
        assert!(
            e[0].2
                .contains("referenced volume must be of type emptyDir"),
            "{e:?}"
        );
        let e = run(
            "1.37",
            &[("EnvFiles", true)],
            spec(json!({"name": "other"})),
        );
        assert_eq!(e[0].1, "FieldValueNotFound");
        // Gate off (or before 1.34): the field is dropped, leaving no source.
        let e = run(
            "1.37",
            &[("EnvFiles", false)],
            spec(json!({"name": "data"})),
        );
        assert!(
            e[0].2.ends_with("`configMapKeyRef` or `secretKeyRef`"),
            "{e:?}"
        );
        let bad = json!({"volumes": [{"name": "data"}], "containers": [{"name": "c", "image": "i",
            "env": [{"name": "A", "valueFrom": {"fileKeyRef": {"volumeName": "Data", "path": "../p", "key": "K=V"}}}]}]});
        let e = run("1.37", &[("EnvFiles", true)], bad);
        let f = fields(&e);
        assert!(f.contains(&"spec.containers[0].env[0].valueFrom.fileKeyRef.key"));
        assert!(f.contains(&"spec.containers[0].env[0].valueFrom.fileKeyRef.path"));
    }

    #[test]
    fn env_from() {
        let ef = |v: Value| json!({"containers": [{"name": "c", "image": "i", "envFrom": [v]}]});
        assert!(
            run(
                "1.37",
                &[],
                ef(json!({"configMapRef": {"name": "cfg"}, "prefix": "APP_"}))
            )
            .is_empty()
        );
        assert!(run("1.37", &[], ef(json!({"secretRef": {"name": "trailing-"}}))).is_empty());
        let e = run("1.37", &[], ef(json!({"prefix": "X_"})));
        assert_eq!(fields(&e), ["spec.containers[0].envFrom"]);
        let e = run(
            "1.37",
            &[],
            ef(json!({"configMapRef": {"name": "c"}, "secretRef": {"name": "s"}})),
        );
        assert!(e[0].2.contains("may not have more than one field"));
        let e = run(
            "1.31",
            &[("RelaxedEnvironmentVariableValidation", false)],
            ef(json!({"configMapRef": {"name": "c"}, "prefix": "1_"})),
        );
        assert_eq!(fields(&e), ["spec.containers[0].envFrom[0].prefix"]);
        let e = run(
            "1.37",
            &[],
            ef(json!({"configMapRef": {"name": "Bad_Name"}})),
        );
        assert_eq!(
            fields(&e),
            ["spec.containers[0].envFrom[0].configMapRef.name"]
        );
    }
}
