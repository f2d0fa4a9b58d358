//! PersistentVolumeClaims as kube-apiserver admits them on create: the kind itself and a
//! StatefulSet's `volumeClaimTemplates`.
//!
//! The kind (v1 PersistentVolumeClaim): SetDefaults_PersistentVolumeClaimSpec (volumeMode
//! `Filesystem`), the strategy's PrepareForCreate (pkg/api/persistentvolumeclaim
//! DropDisabledFields, EnforceDataSourceBackwardsCompatibility, NormalizeDataSources), then
//! ValidatePersistentVolumeClaimSpec (pkg/apis/core/validation) with
//! ValidationOptionsForPersistentVolumeClaim(pvc, nil). Its ObjectMeta (namespaced, a DNS-subdomain
//! name: ValidatePersistentVolumeName) is meta.rs's.
//!
//! A StatefulSet's claim templates: from 1.34 ValidateStatefulSetSpec checks each template's spec
//! (validateVolumeClaimTemplates, ValidationOptionsForPersistentVolumeClaimCreate) as the v1
//! defaulting leaves it, with none of the PVC strategy's steps, and nothing of the template's
//! metadata (its namespace is the controller's to set). It also validates the Pod template with
//! one PersistentVolumeClaim volume per claim template in front of the template's own volumes
//! (volumesToAddForTemplates) and without hostname and subdomain, which the controller sets
//! ([`template_as_validated`]). Before 1.34 the StatefulSet is accepted whatever its templates
//! say, and the PVCs its controller creates from them are refused: told as warnings.
//!
//! ValidatePersistentVolumeClaimSpec is the same text in every minor 1.31..1.37; what differs
//! is how a non-scalar bad value prints (versions.rs FieldErrorJsonValues) and the gates.
//!
//! Resource quantities: only the storage request's sign and, for a value that is not positive,
//! its canonical text (resource.Quantity String()) are needed; the decoding pass has already
//! refused one that does not parse. The strategies' WarningsOnCreate (a fractional byte value,
//! the deprecated storage-class annotation) are warnings with upstream's text, and what
//! PrepareForCreate drops of what was written is a lint (`pvc-field-dropped`). Not modelled: the
//! name of each PVC a StatefulSet's controller makes (`<template>-<set>-<ordinal>`).

use super::json_read::{opt, opt_str, str_of};
use super::{Ctx, meta, names, selector};
use crate::diag::{Diagnostic, FieldPath, Findings, Origin, Severity};
use crate::versions::Change;
use serde_json::{Map, Value, json};

/// supportedAccessModes as sets.List prints them (sorted).
const ACCESS_MODES: [&str; 4] = [
    "ReadOnlyMany",
    "ReadWriteMany",
    "ReadWriteOnce",
    "ReadWriteOncePod",
];
/// supportedVolumeModes, sorted.
const VOLUME_MODES: [&str; 2] = ["Block", "Filesystem"];

const GATE_VAC: &str = "VolumeAttributesClass";
const GATE_ANY_SOURCE: &str = "AnyVolumeDataSource";
const GATE_CROSS_NAMESPACE: &str = "CrossNamespaceVolumeDataSource";

// ---------------------------------------------------------------------------------------------
// The PersistentVolumeClaim kind
// ---------------------------------------------------------------------------------------------

/// A PersistentVolumeClaim on create (after ObjectMeta, which meta.rs checks).
// Kept out of its caller: see `validate::workloads::validate_kind`.
#[inline(never)]
pub(super) fn validate(obj: &Value, ctx: &Ctx, out: &mut Findings) {
    let mut spec = obj
        .get("spec")
        .filter(|s| s.is_object())
        .cloned()
        .unwrap_or_else(|| json!({}));
    let sp = FieldPath::new("spec");
    if !ctx.skip_defaulting {
        default_claim_spec(&mut spec);
        let written = spec.clone();
        prepare_for_create(&mut spec, ctx);
        dropped_fields(&written, &spec, &sp, ctx, out);
    }
    let vac = ctx.gates.enabled(GATE_VAC);
    validate_claim_spec(&spec, &sp, vac, ctx, out);
    // The strategy's WarningsOnCreate (GetWarningsForPersistentVolumeClaim).
    const CLASS_ANNOTATION: &str = "volume.beta.kubernetes.io/storage-class";
    if obj
        .get("metadata")
        .and_then(|m| m.get("annotations"))
        .and_then(|a| a.get(CLASS_ANNOTATION))
        .is_some()
    {
        let at = FieldPath::new("metadata")
            .child("annotations")
            .key(CLASS_ANNOTATION);
        out.push(
            Diagnostic::lint(
                "deprecated-storage-class-annotation",
                &at,
                format!(
                    "{}: deprecated since v1.8; use \"storageClassName\" attribute instead",
                    at.as_str()
                ),
            )
            .with_origin(Origin::KubeApiserver),
        );
    }
    storage_warnings(&spec, &sp, !ctx.skip_defaulting, out);
}

/// What PrepareForCreate dropped of what was written (`written`), told: the API server drops it
/// without a word, and the claim is then provisioned without it.
fn dropped_fields(written: &Value, prepared: &Value, p: &FieldPath, ctx: &Ctx, out: &mut Findings) {
    let present = |v: &Value, k: &str| v.get(k).is_some_and(|x| !x.is_null());
    for key in ["dataSource", "dataSourceRef", "volumeAttributesClassName"] {
        if !present(written, key) || present(prepared, key) {
            continue;
        }
        let why = match key {
            "dataSource" => "a dataSource that is neither a PersistentVolumeClaim nor a VolumeSnapshot (apiGroup snapshot.storage.k8s.io) is dropped when no dataSourceRef is set, and the claim is provisioned empty; a volume populator is named in dataSourceRef".to_owned(),
            "dataSourceRef" if !ctx.gates.enabled(GATE_ANY_SOURCE) => format!("dataSourceRef is dropped with the feature gate {GATE_ANY_SOURCE} off"),
            "dataSourceRef" => format!("a dataSourceRef naming a namespace is dropped with the feature gate {GATE_CROSS_NAMESPACE} off (alpha)"),
            _ => format!("volumeAttributesClassName is dropped with the feature gate {GATE_VAC} off"),
        };
        let at = p.child(key);
        out.push(Diagnostic::lint(
            "pvc-field-dropped",
            &at,
            format!("{}: kube-apiserver drops this field on create: {why}", at.as_str()),
        ));
    }
}

/// SetDefaults_PersistentVolumeClaimSpec: volumeMode `Filesystem` when unset.
pub(super) fn default_claim_spec(spec: &mut Value) {
    if let Some(m) = spec.as_object_mut()
        && m.get("volumeMode").is_none_or(Value::is_null)
    {
        m.insert("volumeMode".to_owned(), json!("Filesystem"));
    }
}

/// The PVC strategy's PrepareForCreate on the spec (no old object): the gated fields dropped,
/// then the data sources made to agree.
fn prepare_for_create(spec: &mut Value, ctx: &Ctx) {
    let gates = &ctx.gates;
    let Some(m) = spec.as_object_mut() else {
        return;
    };
    // DropDisabledFields.
    if !gates.enabled(GATE_VAC) {
        m.remove("volumeAttributesClassName");
    }
    // Up to 1.36 AnyVolumeDataSource could be turned off; 1.37 removed the gate (on).
    let any_source = gates.enabled(GATE_ANY_SOURCE);
    if !any_source {
        m.remove("dataSourceRef");
    }
    let ref_namespace = |m: &Map<String, Value>| {
        m.get("dataSourceRef")
            .filter(|r| !r.is_null())
            .is_some_and(|r| !str_of(r, "namespace").is_empty())
    };
    if !gates.enabled(GATE_CROSS_NAMESPACE) && ref_namespace(m) {
        m.remove("dataSourceRef");
    }
    let has = |m: &Map<String, Value>, k: &str| m.get(k).is_some_and(|v| !v.is_null());
    // EnforceDataSourceBackwardsCompatibility: without a dataSourceRef, a dataSource that is
    // neither a PVC nor a VolumeSnapshot is dropped, as before KEP-1495.
    if !has(m, "dataSourceRef") && !m.get("dataSource").is_some_and(is_pvc_or_snapshot) {
        m.remove("dataSource");
    }
    // NormalizeDataSources (not with AnyVolumeDataSource off).
    if !any_source {
        return;
    }
    let copy = |from: &Value| {
        let mut to = Map::new();
        to.insert("kind".to_owned(), json!(str_of(from, "kind")));
        to.insert("name".to_owned(), json!(str_of(from, "name")));
        if let Some(g) = opt_str(from, "apiGroup") {
            to.insert("apiGroup".to_owned(), json!(g));
        }
        Value::Object(to)
    };
    match (has(m, "dataSource"), has(m, "dataSourceRef")) {
        (true, false) => {
            let r = m.get("dataSource").map(copy);
            if let Some(r) = r {
                m.insert("dataSourceRef".to_owned(), r);
            }
        }
        (false, true) if !ref_namespace(m) => {
            let s = m.get("dataSourceRef").map(copy);
            if let Some(s) = s {
                m.insert("dataSource".to_owned(), s);
            }
        }
        _ => {}
    }
}

/// dataSourceIsPvcOrSnapshot.
fn is_pvc_or_snapshot(ds: &Value) -> bool {
    if ds.is_null() {
        return false;
    }
    let group = opt_str(ds, "apiGroup").unwrap_or("");
    match str_of(ds, "kind") {
        "PersistentVolumeClaim" => group.is_empty(),
        "VolumeSnapshot" => group == "snapshot.storage.k8s.io",
        _ => false,
    }
}

// ---------------------------------------------------------------------------------------------
// ValidatePersistentVolumeClaimSpec
// ---------------------------------------------------------------------------------------------

/// ValidatePersistentVolumeClaimSpec on create: `vac` is the options' EnableVolumeAttributesClass
/// (the gate); an invalid label value in the selector or an invalid data source API group is never
/// allowed on create.
pub(super) fn validate_claim_spec(
    spec: &Value,
    p: &FieldPath,
    vac: bool,
    ctx: &Ctx,
    out: &mut Findings,
) {
    let minor = ctx.gates.version.minor;
    let modes: Vec<&str> = spec
        .get("accessModes")
        .and_then(Value::as_array)
        .map(|a| a.iter().map(|m| m.as_str().unwrap_or("")).collect())
        .unwrap_or_default();
    let mp = p.child("accessModes");
    if modes.is_empty() {
        out.push(Diagnostic::required(
            &mp,
            "at least 1 access mode is required",
        ));
    }
    if let Some(s) = spec.get("selector").and_then(Value::as_object) {
        selector::validate(s, &p.child("selector"), minor, out);
    }
    access_mode_values(&modes, &mp, out);
    let sp = p.child("resources").key("storage");
    match spec
        .get("resources")
        .and_then(|r| r.get("requests"))
        .and_then(|r| r.get("storage"))
    {
        None => out.push(Diagnostic::required(&sp, "")),
        Some(q) => {
            // ValidatePositiveQuantityValue; a positive storage request passes
            // ValidateResourceQuantityValue (storage is no integer resource).
            let text = quantity_text(q);
            if let Some(shown) = not_positive(&text, !ctx.skip_defaulting) {
                out.push(Diagnostic::invalid(&sp, shown, "must be greater than zero"));
            }
        }
    }
    if let Some(class) = opt_str(spec, "storageClassName").filter(|c| !c.is_empty()) {
        for msg in names::dns1123_subdomain_errors(class) {
            out.push(Diagnostic::invalid(
                &p.child("storageClassName"),
                class,
                msg,
            ));
        }
    }
    if let Some(mode) = opt_str(spec, "volumeMode")
        && !VOLUME_MODES.contains(&mode)
    {
        out.push(Diagnostic::not_supported(
            &p.child("volumeMode"),
            mode,
            &VOLUME_MODES,
        ));
    }
    let ds = opt(spec, "dataSource");
    let dsr = opt(spec, "dataSourceRef");
    if let Some(d) = ds {
        data_source(d, &p.child("dataSource"), false, out);
    }
    if let Some(r) = dsr {
        data_source(r, &p.child("dataSourceRef"), true, out);
    }
    // The bad value of these two errors is the *field.Path of dataSource itself.
    let path_value = |out: &mut Findings, detail: &str| {
        let shown = if Change::FieldErrorJsonValues.at(minor) {
            // json.Marshal of a Path: its fields are unexported.
            "{}".to_owned()
        } else {
            r#"field.Path{name:"dataSource", index:"", parent:(*field.Path)(0x…)}"#.to_owned()
        };
        out.push(
            Diagnostic::invalid(p, p.child("dataSource").as_str(), detail)
                .with_printed_value(&shown),
        );
    };
    if dsr.is_some_and(|r| !str_of(r, "namespace").is_empty()) {
        if ds.is_some() {
            path_value(
                out,
                "may not be specified when dataSourceRef.namespace is specified",
            );
        }
    } else if let (Some(d), Some(r)) = (ds, dsr)
        && !(opt_str(d, "apiGroup") == opt_str(r, "apiGroup")
            && str_of(d, "kind") == str_of(r, "kind")
            && str_of(d, "name") == str_of(r, "name"))
    {
        path_value(out, "must match dataSourceRef");
    }
    if vac
        && let Some(class) = opt_str(spec, "volumeAttributesClassName").filter(|c| !c.is_empty())
    {
        for msg in names::dns1123_subdomain_errors(class) {
            out.push(Diagnostic::invalid(
                &p.child("volumeAttributesClassName"),
                class,
                msg,
            ));
        }
    }
}

/// The access modes' values, as ValidatePersistentVolumeClaimSpec and ValidatePersistentVolumeSpec
/// both check them: each one of the four, and ReadWriteOncePod with no other valid mode.
pub(super) fn access_mode_values(modes: &[&str], mp: &FieldPath, out: &mut Findings) {
    let (mut once_pod, mut other) = (false, false);
    for mode in modes {
        let supported = ACCESS_MODES.contains(mode);
        if !supported {
            out.push(Diagnostic::not_supported(mp, *mode, &ACCESS_MODES));
        }
        if *mode == "ReadWriteOncePod" {
            once_pod = true;
        } else if supported {
            other = true;
        }
    }
    if once_pod && other {
        out.push(Diagnostic::forbidden(
            mp,
            "may not use ReadWriteOncePod with other access modes",
        ));
    }
}

/// validateDataSource, or validateDataSourceRef (`with_namespace`).
fn data_source(d: &Value, p: &FieldPath, with_namespace: bool, out: &mut Findings) {
    let kind = str_of(d, "kind");
    if str_of(d, "name").is_empty() {
        out.push(Diagnostic::required(&p.child("name"), ""));
    }
    if kind.is_empty() {
        out.push(Diagnostic::required(&p.child("kind"), ""));
    }
    let group = opt_str(d, "apiGroup").unwrap_or("");
    if group.is_empty() && kind != "PersistentVolumeClaim" {
        out.push(Diagnostic::invalid(
            p,
            kind,
            "must be 'PersistentVolumeClaim' when referencing the default apiGroup",
        ));
    }
    if !group.is_empty() {
        for msg in names::dns1123_subdomain_errors(group) {
            out.push(Diagnostic::invalid(&p.child("apiGroup"), group, msg));
        }
    }
    if with_namespace && let Some(ns) = opt_str(d, "namespace").filter(|n| !n.is_empty()) {
        for msg in meta::dns1123_label(ns) {
            out.push(Diagnostic::invalid(&p.child("namespace"), ns, msg));
        }
    }
}

// ---------------------------------------------------------------------------------------------
// resource.Quantity, as little as the storage request needs
// ---------------------------------------------------------------------------------------------

/// A quantity member's text (a JSON number is read by its digits, as Quantity's UnmarshalJSON
/// reads it; null is the zero quantity).
fn quantity_text(q: &Value) -> String {
    match q {
        Value::String(s) => s.trim().to_owned(),
        Value::Number(n) => n.to_string(),
        _ => "0".to_owned(),
    }
}

/// Quantity's three formats, as ParseQuantity takes them from the suffix.
#[derive(Clone, Copy, PartialEq)]
enum Format {
    DecimalSI,
    BinarySI,
    DecimalExponent,
}

/// A quantity as the API server holds it: `-`? `m` × 10^`e10` (`m` without trailing zeros, 0
/// for zero), in the format its suffix gave it.
struct Amount {
    negative: bool,
    m: i128,
    e10: i32,
    format: Format,
}

/// ParseQuantity's reading of `text`, rounded up (away from zero) to a nano, or with
/// `defaulted` to a milli as SetDefaults_ResourceList rounds every ResourceList value. `None`
/// for a text the decoding pass refuses or too long to follow exactly.
fn amount(text: &str, defaulted: bool) -> Option<Amount> {
    let (negative, rest) = match text.as_bytes().first() {
        Some(b'-') => (true, text.get(1..)?),
        Some(b'+') => (false, text.get(1..)?),
        _ => (false, text),
    };
    let number_end = rest
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(rest.len());
    let (number, suffix) = rest.split_at(number_end);
    let (format, mut e10, binary) = match suffix {
        "n" => (Format::DecimalSI, -9, 0),
        "u" => (Format::DecimalSI, -6, 0),
        "m" => (Format::DecimalSI, -3, 0),
        "" => (Format::DecimalSI, 0, 0),
        "k" => (Format::DecimalSI, 3, 0),
        "M" => (Format::DecimalSI, 6, 0),
        "G" => (Format::DecimalSI, 9, 0),
        "T" => (Format::DecimalSI, 12, 0),
        "P" => (Format::DecimalSI, 15, 0),
        "E" => (Format::DecimalSI, 18, 0),
        "Ki" => (Format::BinarySI, 0, 1),
        "Mi" => (Format::BinarySI, 0, 2),
        "Gi" => (Format::BinarySI, 0, 3),
        "Ti" => (Format::BinarySI, 0, 4),
        "Pi" => (Format::BinarySI, 0, 5),
        "Ei" => (Format::BinarySI, 0, 6),
        _ => {
            let exp = suffix.strip_prefix(['e', 'E'])?.parse::<i32>().ok()?;
            (Format::DecimalExponent, exp, 0)
        }
    };
    let (int, frac) = number.split_once('.').unwrap_or((number, ""));
    let digits = format!("{int}{frac}");
    if digits.is_empty() || digits.len() > 30 || !digits.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let mut m: i128 = digits.parse().ok()?;
    if m == 0 {
        return Some(Amount {
            negative: false,
            m: 0,
            e10: 0,
            format,
        });
    }
    e10 = e10.checked_sub(i32::try_from(frac.len()).ok()?)?;
    m = m.checked_mul(1i128.checked_shl(10 * binary)?)?;
    let floor = if defaulted { -3 } else { -9 };
    if e10 < floor {
        let d = 10i128.checked_pow(u32::try_from(floor - e10).ok()?)?;
        m = (m + d - 1) / d;
        e10 = floor;
    }
    while m % 10 == 0 {
        m /= 10;
        e10 += 1;
    }
    Some(Amount {
        negative,
        m,
        e10,
        format,
    })
}

impl Amount {
    /// Quantity String() (CanonicalizeBytes).
    fn canonical(&self) -> Option<String> {
        if self.m == 0 {
            return Some("0".to_owned());
        }
        let sign = if self.negative { "-" } else { "" };
        let (m, e10) = (self.m, self.e10);
        let mut format = self.format;
        if format == Format::BinarySI {
            // An integer of magnitude 1024 or more keeps the binary form; anything else is
            // written as DecimalSI, not to lose precision.
            let whole = (e10 >= 0)
                .then(|| m.checked_mul(10i128.checked_pow(u32::try_from(e10).ok()?)?))
                .flatten();
            match whole {
                Some(mut v) if v >= 1024 => {
                    let mut k = 0usize;
                    while v >= 1024 && v % 1024 == 0 {
                        v /= 1024;
                        k += 1;
                    }
                    let unit = ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"].get(k)?;
                    return Some(format!("{sign}{v}{unit}"));
                }
                _ => format = Format::DecimalSI,
            }
        }
        let e3 = e10.div_euclid(3) * 3;
        let mant = m.checked_mul(10i128.checked_pow(u32::try_from(e10 - e3).ok()?)?)?;
        let unit = if format == Format::DecimalExponent {
            if e3 == 0 {
                String::new()
            } else {
                format!("e{e3}")
            }
        } else {
            match e3 {
                -9 => "n",
                -6 => "u",
                -3 => "m",
                0 => "",
                3 => "k",
                6 => "M",
                9 => "G",
                12 => "T",
                15 => "P",
                18 => "E",
                _ => return None,
            }
            .to_owned()
        };
        Some(format!("{sign}{mant}{unit}"))
    }
}

/// For a quantity that is zero or negative, its canonical text (resource.Quantity String(), as
/// ValidatePositiveQuantityValue prints it); `None` for a positive one. `defaulted`: the v1
/// defaulting has rounded it (see [`amount`]); neither rounding changes the sign, so the digits
/// decide it. A text that cannot be followed exactly is shown as written.
// What restartkit knows of quantities is spread over trainer/quantity.rs (Value()), pod_env.rs
// (a divisor's canonical form) and this; one parser with a canonical printer could serve all.
fn not_positive(text: &str, defaulted: bool) -> Option<String> {
    let rest = text.strip_prefix(['-', '+']).unwrap_or(text);
    let number_end = rest
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(rest.len());
    if rest
        .get(..number_end)
        .unwrap_or("")
        .bytes()
        .all(|c| c == b'0' || c == b'.')
    {
        return Some("0".to_owned());
    }
    if !text.starts_with('-') {
        return None;
    }
    Some(
        amount(text, defaulted)
            .and_then(|a| a.canonical())
            .unwrap_or_else(|| text.to_owned()),
    )
}

/// The canonical text of a quantity with a fraction of a unit (`MilliValue() % 1000 != 0`,
/// GetWarningsForPersistentVolumeClaimSpec's test), if it has one.
fn fractional(text: &str, defaulted: bool) -> Option<String> {
    let a = amount(text, defaulted)?;
    (a.m != 0 && a.e10 < 0).then(|| a.canonical()).flatten()
}

/// GetWarningsForPersistentVolumeClaimSpec: a storage request or limit with a fraction of a
/// byte, at `p` (upstream's path, which for a StatefulSet's template leaves out `spec`).
fn storage_warnings(spec: &Value, p: &FieldPath, defaulted: bool, out: &mut Findings) {
    for list in ["requests", "limits"] {
        let Some(q) = spec
            .get("resources")
            .and_then(|r| r.get(list))
            .and_then(|r| r.get("storage"))
        else {
            continue;
        };
        if let Some(shown) = fractional(&quantity_text(q), defaulted) {
            let at = p.child("resources").child(list).key("storage");
            out.push(
                Diagnostic::lint(
                    "fractional-storage",
                    &at,
                    format!(
                        "{}: fractional byte value {shown:?} is invalid, must be an integer",
                        at.as_str()
                    ),
                )
                .with_origin(Origin::KubeApiserver),
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------
// A StatefulSet's claim templates
// ---------------------------------------------------------------------------------------------

fn claim_templates(spec: &Value) -> &[Value] {
    spec.get("volumeClaimTemplates")
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

/// A StatefulSet's `volumeClaimTemplates` (its spec at `sp`, defaulted as
/// [`default_claim_templates`] leaves it), where ValidateStatefulSetSpec checks them: after the
/// claim retention policy.
pub(super) fn stateful_set_claim_templates(
    spec: &Value,
    sp: &FieldPath,
    ctx: &Ctx,
    out: &mut Findings,
) {
    let minor = ctx.gates.version.minor;
    let vac = ctx.gates.enabled(GATE_VAC);
    let tp = sp.child("volumeClaimTemplates");
    let empty = json!({});
    for (i, t) in claim_templates(spec).iter().enumerate() {
        let claim = t.get("spec").filter(|s| s.is_object()).unwrap_or(&empty);
        // The StatefulSet strategy's WarningsOnCreate, at every minor.
        storage_warnings(claim, &tp.index(i), !ctx.skip_defaulting, out);
        let p = tp.index(i).child("spec");
        if Change::StatefulSetClaimTemplatesOnCreate.at(minor) {
            validate_claim_spec(claim, &p, vac, ctx, out);
            continue;
        }
        // The controller creates each claim as a PVC of its own, which the PVC strategy
        // prepares and validates.
        let mut claim = claim.clone();
        if !ctx.skip_defaulting {
            prepare_for_create(&mut claim, ctx);
        }
        let mut later = Findings::default();
        validate_claim_spec(&claim, &p, vac, ctx, &mut later);
        for e in later.errors {
            let message = format!(
                "{}; Kubernetes 1.{minor} accepts the StatefulSet without checking its volumeClaimTemplates (it does from 1.34), and refuses the PersistentVolumeClaims its controller creates from them",
                e.message
            );
            out.push(
                Diagnostic { message, ..e }
                    .with_severity(Severity::Warning)
                    .with_code("claim-template-refused-later"),
            );
        }
    }
}

/// An ephemeral volume's `volumeClaimTemplate` (at `p`), as validateEphemeralVolumeSource checks
/// it: ValidatePersistentVolumeClaimTemplate (ValidateTemplateObjectMeta, then the claim spec as
/// the Pod's v1 defaulting leaves it). The Pod strategy drops none of the claim's gated fields,
/// so a dataSource of another kind is refused, not dropped, and volumeAttributesClassName is
/// checked only with VolumeAttributesClass on.
pub(super) fn ephemeral_claim_template(t: &Value, p: &FieldPath, ctx: &Ctx, out: &mut Findings) {
    if let Some(m) = t.get("metadata").filter(|m| m.is_object()) {
        super::meta::template_object_meta(m, &p.child("metadata"), ctx.gates.version.minor, out);
    }
    let mut spec = t
        .get("spec")
        .filter(|s| s.is_object())
        .cloned()
        .unwrap_or_else(|| json!({}));
    if !ctx.skip_defaulting {
        default_claim_spec(&mut spec);
    }
    validate_claim_spec(&spec, &p.child("spec"), ctx.gates.enabled(GATE_VAC), ctx, out);
}

/// The v1 defaulting of a StatefulSet's claim templates (SetObjectDefaults_StatefulSet calls
/// SetDefaults_PersistentVolumeClaimSpec on each).
pub(super) fn default_claim_templates(spec: &mut Value) {
    let Some(ts) = spec
        .get_mut("volumeClaimTemplates")
        .and_then(Value::as_array_mut)
    else {
        return;
    };
    for t in ts.iter_mut().filter_map(Value::as_object_mut) {
        if t.get("spec").is_none_or(|s| !s.is_object()) {
            t.insert("spec".to_owned(), json!({}));
        }
        if let Some(s) = t.get_mut("spec") {
            default_claim_spec(s);
        }
    }
}

/// The StatefulSet spec whose Pod template ValidateStatefulSetSpec validates (1.34 on; before,
/// the Pods the controller makes, which are the same in these respects): hostname and subdomain
/// cleared (the controller sets them), and a PersistentVolumeClaim volume named after each claim
/// template, in the templates' order, ahead of the template's own volumes less those of the same
/// names. `None` when that is the spec as it is.
pub(super) fn template_as_validated(spec: &Value) -> Option<Value> {
    let pod = spec.get("template")?.get("spec")?.as_object()?;
    let templates = claim_templates(spec);
    if templates.is_empty() && !pod.contains_key("hostname") && !pod.contains_key("subdomain") {
        return None;
    }
    let mut pod = pod.clone();
    pod.remove("hostname");
    pod.remove("subdomain");
    if !templates.is_empty() {
        let mut claims: Vec<&str> = Vec::new();
        for t in templates {
            let name = t
                .get("metadata")
                .map(|m| str_of(m, "name"))
                .unwrap_or_default();
            // volumesToAddForTemplates is a map by name: one volume per name. (Upstream then
            // lists them in Go's map order, which only an error of a claim volume itself, with
            // more than one template, could show.)
            if !claims.contains(&name) {
                claims.push(name);
            }
        }
        let mut volumes: Vec<Value> = claims
            .iter()
            .map(|n| json!({"name": n, "persistentVolumeClaim": {"claimName": n}}))
            .collect();
        if let Some(own) = pod.get("volumes").and_then(Value::as_array) {
            volumes.extend(
                own.iter()
                    .filter(|v| !claims.contains(&str_of(v, "name")))
                    .cloned(),
            );
        }
        pod.insert("volumes".to_owned(), Value::Array(volumes));
    }
    let mut whole = spec.clone();
    if let Some(slot) = whole.get_mut("template").and_then(|t| t.get_mut("spec")) {
        *slot = Value::Object(pod);
    }
    Some(whole)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;
    use crate::features::{FeatureGates, KubeVersion};

    fn ctx(minor: u32) -> Ctx {
        Ctx {
            gates: FeatureGates::for_version(KubeVersion { minor }),
            ..Ctx::default()
        }
    }

    fn pvc(spec: Value) -> Value {
        json!({"apiVersion": "v1", "kind": "PersistentVolumeClaim",
               "metadata": {"name": "data", "namespace": "default"}, "spec": spec})
    }

    /// The errors' full messages, through the whole validate path (decoding, meta, dispatch).
    fn errors_at(obj: &Value, c: &Ctx) -> Vec<String> {
        let (f, modelled) = super::super::validate_value(obj, c);
        assert!(modelled);
        f.errors.iter().map(|d| d.message.clone()).collect()
    }

    fn errors(obj: &Value, minor: u32) -> Vec<String> {
        errors_at(obj, &ctx(minor))
    }

    fn good() -> Value {
        json!({"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "10Gi"}}})
    }

    #[test]
    fn a_usual_claim_is_valid_at_every_minor() {
        for minor in 31..=37 {
            assert_eq!(errors(&pvc(good()), minor), Vec::<String>::new(), "1.{minor}");
            let mut s = good();
            s["storageClassName"] = json!("fast-ssd");
            s["volumeMode"] = json!("Block");
            s["dataSource"] = json!({"kind": "VolumeSnapshot", "apiGroup": "snapshot.storage.k8s.io", "name": "snap"});
            assert_eq!(errors(&pvc(s), minor), Vec::<String>::new(), "1.{minor}");
        }
    }

    #[test]
    fn access_modes_are_required_supported_and_read_write_once_pod_alone() {
        let mut s = good();
        s["accessModes"] = json!([]);
        assert_eq!(
            errors(&pvc(s.clone()), 37),
            ["spec.accessModes: Required value: at least 1 access mode is required"]
        );
        s["accessModes"] = json!(["ReadWriteOncePod", "ReadWriteOnce", "RWO"]);
        assert_eq!(
            errors(&pvc(s), 37),
            [
                "spec.accessModes: Unsupported value: \"RWO\": supported values: \"ReadOnlyMany\", \"ReadWriteMany\", \"ReadWriteOnce\", \"ReadWriteOncePod\"",
                "spec.accessModes: Forbidden: may not use ReadWriteOncePod with other access modes",
            ]
        );
        // An unsupported mode beside ReadWriteOncePod is not an "other" mode.
        let mut s = good();
        s["accessModes"] = json!(["ReadWriteOncePod", "Bogus"]);
        assert_eq!(errors(&pvc(s), 37).len(), 1);
    }

    #[test]
    fn the_storage_request_is_required_and_positive() {
        let mut s = good();
        s["resources"] = json!({"limits": {"storage": "1Gi"}});
        assert_eq!(
            errors(&pvc(s.clone()), 37),
            ["spec.resources[storage]: Required value"]
        );
        for (q, shown) in [
            (json!("0"), "0"),
            (json!("0Gi"), "0"),
            (json!(0), "0"),
            (json!("-1Gi"), "-1Gi"),
            (json!("-1.5Gi"), "-1536Mi"),
            (json!("-100"), "-100"),
            (json!("-1e3"), "-1e3"),
            (json!("-1500e-3"), "-1500e-3"),
            (json!("-0.5"), "-500m"),
        ] {
            s["resources"] = json!({"requests": {"storage": q}});
            assert_eq!(
                errors(&pvc(s.clone()), 37),
                [format!(
                    "spec.resources[storage]: Invalid value: \"{shown}\": must be greater than zero"
                )],
                "{q}"
            );
        }
        s["resources"] = json!({"requests": {"storage": "1n"}});
        assert!(errors(&pvc(s), 37).is_empty());
    }

    /// resource.Quantity String() of what ParseQuantity and then SetDefaults_ResourceList (a
    /// milli, away from zero) make of each text (checked against apimachinery v0.37).
    #[test]
    fn non_positive_quantities_print_as_resource_quantity_does() {
        for (text, parsed, defaulted) in [
            ("-0.000000001", "-1n", "-1m"),
            ("-0.0000000001", "-1n", "-1m"),
            ("-1e-12", "-1e-9", "-1e-3"),
            ("-1e3", "-1e3", "-1e3"),
            ("-1e4", "-10e3", "-10e3"),
            ("-2E2", "-200", "-200"),
            ("-5e-2", "-50e-3", "-50e-3"),
            ("-0.5Gi", "-512Mi", "-512Mi"),
            ("-1.5Gi", "-1536Mi", "-1536Mi"),
            ("-1500m", "-1500m", "-1500m"),
            ("-1000m", "-1", "-1"),
            ("-0.001Ki", "-1024m", "-1024m"),
            ("-1023", "-1023", "-1023"),
            ("-2048Ki", "-2Mi", "-2Mi"),
            ("-1.25", "-1250m", "-1250m"),
            ("-0Gi", "0", "0"),
            ("+0.0", "0", "0"),
        ] {
            assert_eq!(not_positive(text, false).as_deref(), Some(parsed), "{text}");
            assert_eq!(not_positive(text, true).as_deref(), Some(defaulted), "{text}");
        }
        assert_eq!(not_positive("1n", true), None);
        assert_eq!(not_positive("+1Gi", true), None);
    }

    #[test]
    fn warnings_as_the_strategies_give_them_and_dropped_fields() {
        let warnings = |obj: &Value, minor: u32| -> Vec<(String, String)> {
            let (f, _) = super::super::validate_value(obj, &ctx(minor));
            f.warnings
                .iter()
                .map(|w| (w.code.clone().unwrap_or_default(), w.message.clone()))
                .collect()
        };
        let mut obj = pvc(json!({"accessModes": ["ReadWriteOnce"],
            "resources": {"requests": {"storage": "1500m"}, "limits": {"storage": "0.0000001"}},
            "dataSource": {"kind": "Backup", "name": "nightly"}}));
        obj["metadata"]["annotations"] =
            json!({"volume.beta.kubernetes.io/storage-class": "standard"});
        let w = warnings(&obj, 37);
        assert_eq!(w.len(), 4, "{w:?}");
        assert!(w[0].0 == "pvc-field-dropped" && w[0].1.starts_with("spec.dataSource: kube-apiserver drops"));
        assert_eq!(
            w[1].1,
            "metadata.annotations[volume.beta.kubernetes.io/storage-class]: deprecated since v1.8; use \"storageClassName\" attribute instead"
        );
        assert_eq!(
            w[2].1,
            "spec.resources.requests[storage]: fractional byte value \"1500m\" is invalid, must be an integer"
        );
        // 0.0000001 is rounded up to a milli by the defaulting.
        assert_eq!(
            w[3].1,
            "spec.resources.limits[storage]: fractional byte value \"1m\" is invalid, must be an integer"
        );
        // A StatefulSet's: upstream's path leaves out the template's `spec`.
        let sts = sts(
            json!([{"metadata": {"name": "data"}, "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1.5"}}}}]),
            json!([]),
            json!([]),
        );
        for minor in [31, 37] {
            assert!(
                warnings(&sts, minor).contains(&(
                    "fractional-storage".to_owned(),
                    "spec.volumeClaimTemplates[0].resources.requests[storage]: fractional byte value \"1500m\" is invalid, must be an integer".to_owned()
                )),
                "1.{minor}"
            );
        }
        assert!(warnings(&pvc(good()), 37).is_empty());
    }

    #[test]
    fn volume_mode_class_names_and_the_default() {
        let mut s = good();
        s["volumeMode"] = json!("block");
        s["storageClassName"] = json!("Fast_SSD");
        let e = errors(&pvc(s.clone()), 37);
        assert_eq!(e.len(), 2, "{e:?}");
        assert!(e[0].starts_with("spec.storageClassName: Invalid value: \"Fast_SSD\": a lowercase RFC 1123 subdomain"));
        assert_eq!(
            e[1],
            "spec.volumeMode: Unsupported value: \"block\": supported values: \"Block\", \"Filesystem\""
        );
        // Unset: defaulted to Filesystem; with skipDefaulting it stays unset (no error either).
        let c = Ctx {
            skip_defaulting: true,
            ..ctx(37)
        };
        assert!(errors_at(&pvc(good()), &c).is_empty());
        // An empty storageClassName asks for no class: valid.
        let mut s = good();
        s["storageClassName"] = json!("");
        assert!(errors(&pvc(s), 37).is_empty());
    }

    #[test]
    fn volume_attributes_class_is_checked_only_with_its_gate() {
        let mut s = good();
        s["volumeAttributesClassName"] = json!("Gold!");
        // Beta and off in 1.31..1.33: the strategy drops the field.
        assert!(errors(&pvc(s.clone()), 31).is_empty());
        let e = errors(&pvc(s.clone()), 34);
        assert_eq!(e.len(), 1);
        assert!(e[0].starts_with("spec.volumeAttributesClassName: Invalid value: \"Gold!\""));
        let mut on = ctx(31);
        on.gates.set(GATE_VAC, true);
        assert_eq!(errors_at(&pvc(s), &on).len(), 1);
    }

    #[test]
    fn a_data_source_of_another_kind_is_dropped_unless_a_ref_is_given() {
        let mut s = good();
        s["dataSource"] = json!({"kind": "Backup", "name": "b"});
        assert!(errors(&pvc(s.clone()), 37).is_empty());
        // With a dataSourceRef, both are kept and checked.
        s["dataSourceRef"] = json!({"kind": "Backup", "name": "b"});
        assert_eq!(
            errors(&pvc(s.clone()), 37),
            [
                "spec.dataSource: Invalid value: \"Backup\": must be 'PersistentVolumeClaim' when referencing the default apiGroup",
                "spec.dataSourceRef: Invalid value: \"Backup\": must be 'PersistentVolumeClaim' when referencing the default apiGroup",
            ]
        );
        // A PVC source without a name: copied into dataSourceRef, both are told.
        let mut s = good();
        s["dataSource"] = json!({"kind": "PersistentVolumeClaim"});
        assert_eq!(
            errors(&pvc(s), 37),
            [
                "spec.dataSource.name: Required value",
                "spec.dataSourceRef.name: Required value"
            ]
        );
    }

    #[test]
    fn data_source_and_ref_must_agree_printed_per_minor() {
        let mut s = good();
        s["dataSource"] = json!({"kind": "PersistentVolumeClaim", "name": "a"});
        s["dataSourceRef"] = json!({"kind": "PersistentVolumeClaim", "name": "b"});
        assert_eq!(
            errors(&pvc(s.clone()), 37),
            ["spec: Invalid value: {}: must match dataSourceRef"]
        );
        assert_eq!(
            errors(&pvc(s.clone()), 31),
            ["spec: Invalid value: field.Path{name:\"dataSource\", index:\"\", parent:(*field.Path)(0x…)}: must match dataSourceRef"]
        );
        // A ref to another namespace: dropped without CrossNamespaceVolumeDataSource (alpha).
        s["dataSourceRef"] = json!({"kind": "PersistentVolumeClaim", "name": "a", "namespace": "Other"});
        assert!(errors(&pvc(s.clone()), 37).is_empty());
        let mut on = ctx(37);
        on.gates.set(GATE_CROSS_NAMESPACE, true);
        let e = errors_at(&pvc(s), &on);
        assert_eq!(e.len(), 2, "{e:?}");
        assert!(e[0].starts_with("spec.dataSourceRef.namespace: Invalid value: \"Other\""));
        assert_eq!(
            e[1],
            "spec: Invalid value: {}: may not be specified when dataSourceRef.namespace is specified"
        );
    }

    #[test]
    fn any_volume_data_source_off_drops_the_ref_before_1_37() {
        let mut s = good();
        s["dataSourceRef"] = json!({"kind": "Backup", "name": "b"});
        // Copied into dataSource (NormalizeDataSources): both are told.
        assert_eq!(errors(&pvc(s.clone()), 31).len(), 2);
        let mut off = ctx(31);
        off.gates.set(GATE_ANY_SOURCE, false);
        assert!(errors_at(&pvc(s.clone()), &off).is_empty());
        // 1.37 has no such gate: the ref is always kept.
        assert_eq!(errors(&pvc(s), 37).len(), 2);
    }

    #[test]
    fn metadata_is_checked_as_a_namespaced_subdomain_name() {
        let mut obj = pvc(good());
        obj["metadata"]["name"] = json!("Data_1");
        let e = errors(&obj, 37);
        assert_eq!(e.len(), 1, "{e:?}");
        assert!(e[0].starts_with("metadata.name: Invalid value: \"Data_1\""));
    }

    fn sts(templates: Value, volumes: Value, mounts: Value) -> Value {
        json!({"apiVersion": "apps/v1", "kind": "StatefulSet",
            "metadata": {"name": "db", "namespace": "default"},
            "spec": {"serviceName": "db", "selector": {"matchLabels": {"app": "db"}},
                "template": {"metadata": {"labels": {"app": "db"}}, "spec": {
                    "hostname": "Not_A_Label",
                    "volumes": volumes,
                    "containers": [{"name": "db", "image": "postgres:16", "volumeMounts": mounts}]}},
                "volumeClaimTemplates": templates}})
    }

    #[test]
    fn statefulset_claim_templates_are_validated_from_1_34() {
        let t = json!([{"metadata": {"name": "data", "namespace": "elsewhere"},
            "spec": {"accessModes": ["ReadWriteOnce", "RWX"], "resources": {"requests": {"storage": "0"}},
                     "dataSource": {"kind": "Backup", "name": "b"}}}]);
        let obj = sts(
            t,
            json!([]),
            json!([{"name": "data", "mountPath": "/var/lib/postgresql"}]),
        );
        let e = errors(&obj, 37);
        assert_eq!(
            e,
            [
                "spec.volumeClaimTemplates[0].spec.accessModes: Unsupported value: \"RWX\": supported values: \"ReadOnlyMany\", \"ReadWriteMany\", \"ReadWriteOnce\", \"ReadWriteOncePod\"",
                "spec.volumeClaimTemplates[0].spec.resources[storage]: Invalid value: \"0\": must be greater than zero",
                // No PVC strategy for a template: the data source is kept and refused.
                "spec.volumeClaimTemplates[0].spec.dataSource: Invalid value: \"Backup\": must be 'PersistentVolumeClaim' when referencing the default apiGroup",
            ]
        );
        // Before 1.34: accepted; the claims the controller creates are refused (warnings),
        // where the PVC strategy drops the data source.
        let (f, _) = super::super::validate_value(&obj, &ctx(33));
        assert!(f.errors.is_empty(), "{:?}", f.errors);
        let later: Vec<&str> = f
            .warnings
            .iter()
            .filter(|w| w.code.as_deref() == Some("claim-template-refused-later"))
            .map(|w| w.field.as_str())
            .collect();
        assert_eq!(
            later,
            [
                "spec.volumeClaimTemplates[0].spec.accessModes",
                "spec.volumeClaimTemplates[0].spec.resources[storage]"
            ]
        );
    }

    #[test]
    fn a_pod_template_mounts_its_claim_templates() {
        let t = json!([{"metadata": {"name": "data"}, "spec": good()}]);
        let mounts = json!([{"name": "data", "mountPath": "/d"}, {"name": "cache", "mountPath": "/c"}]);
        // The claim volume comes first: the template's own volume is volumes[1] upstream.
        let obj = sts(
            t.clone(),
            json!([{"name": "Cache", "emptyDir": {}}]),
            mounts.clone(),
        );
        let e = errors(&obj, 37);
        assert_eq!(e.len(), 2, "{e:?}");
        assert!(
            e[0].starts_with("spec.template.spec.volumes[1].name: Invalid value: \"Cache\""),
            "{e:?}"
        );
        assert_eq!(
            e[1],
            "spec.template.spec.containers[0].volumeMounts[1].name: Not found: \"cache\""
        );
        // A template's own volume of a claim's name is replaced by the claim.
        let obj = sts(
            t,
            json!([{"name": "data", "hostPath": {"path": "relative"}}, {"name": "cache", "emptyDir": {}}]),
            mounts,
        );
        assert_eq!(errors(&obj, 37), Vec::<String>::new());
    }
}
