//! CustomResourceDefinition (apiextensions.k8s.io/v1) on create, as apiextensions-apiserver
//! takes it: the v1 defaulting (`SetDefaults_CustomResourceDefinitionSpec`: singular from the
//! lowercased kind, listKind `<kind>List`, conversion `None`; a webhook service's port 443), the
//! v1 conversion to the internal type (`Convert_v1_CustomResourceDefinitionSpec_To_...`: the
//! per-version schema, subresources, printer columns and selectable fields, when identical in
//! every version, move to the top level, so their errors are reported at `spec.validation`,
//! `spec.subresources`, `spec.additionalPrinterColumns` and `spec.selectableFields`), the
//! strategy's PrepareForCreate (status cleared, `storedVersions` the first storage version's
//! name; selectableFields dropped with CustomResourceFieldSelectors off, optionalOldSelf with
//! CRDValidationRatcheting off), then `ValidateCustomResourceDefinition`
//! (pkg/apis/apiextensions/validation/validation.go, the same checks in 1.31–1.37 apart from the
//! wordings [`Change`] names). The schema itself is checked in [`schema`].
//!
//! Left to the cluster, each said in docs/contract.md: the CEL compilation of
//! `x-kubernetes-validations` rules and their cost estimates, and what a default's own CEL
//! rules say of it.

mod props;
mod schema;
mod walk;

use super::Ctx;
use super::json_read::{list, opt, opt_str, str_of, strings};
use super::names::{dns1035_label, dns1123_subdomain_errors};
use super::webhook_config::{Check, review_version_list, webhook_service, webhook_url};
use crate::diag::{Diagnostic, FieldPath, Findings};
use crate::versions::Change;
use serde_json::Value;
use std::collections::BTreeMap;

/// printerColumnDatatypes, sorted as `sets.String.List()` prints them.
const COLUMN_TYPES: &str = "boolean,date,integer,number,string";
/// customResourceColumnDefinitionFormats, sorted.
const COLUMN_FORMATS: &str = "byte,date,date-time,double,float,int32,int64,password";
/// MaxSelectableFields.
const MAX_SELECTABLE_FIELDS: usize = 8;
const APPROVAL_ANNOTATION: &str = "api-approved.kubernetes.io";

/// One entry of `spec.versions` after the conversion.
struct Version<'a> {
    name: &'a str,
    storage: bool,
    deprecated: bool,
    deprecation_warning: Option<&'a str>,
    /// The version's `schema` (a CustomResourceValidation), unless lifted to the top.
    schema: Option<&'a Value>,
    subresources: Option<&'a Value>,
    columns: &'a [Value],
    selectable: &'a [Value],
}

/// The spec as the internal type holds it after defaulting, conversion and PrepareForCreate.
struct Spec<'a> {
    raw: &'a Value,
    group: &'a str,
    versions: Vec<Version<'a>>,
    validation: Option<&'a Value>,
    subresources: Option<&'a Value>,
    columns: &'a [Value],
    selectable: &'a [Value],
    preserve_unknown_fields: bool,
    /// The first version's name (the conversion's `spec.version`).
    version: Option<&'a str>,
}

/// The per-version members the conversion lifts when every version has the same.
fn lifted<'a, T: PartialEq + Copy>(
    versions: &[&'a Value],
    read: impl Fn(&'a Value) -> T,
) -> Option<T> {
    let first = read(versions.first()?);
    versions.iter().all(|v| read(v) == first).then_some(first)
}

impl<'a> Spec<'a> {
    fn read(spec: &'a Value, selectable_fields: bool) -> Spec<'a> {
        let raw_versions: Vec<&Value> = list(spec, "versions").iter().collect();
        let no_fields: &[Value] = &[];
        let selectable_of = |v: &'a Value| {
            if selectable_fields {
                list(v, "selectableFields")
            } else {
                no_fields
            }
        };
        let schema = lifted(&raw_versions, |v| opt(v, "schema"));
        let subresources = lifted(&raw_versions, |v| opt(v, "subresources"));
        let columns = lifted(&raw_versions, |v| list(v, "additionalPrinterColumns"));
        let selectable = lifted(&raw_versions, selectable_of);
        let versions = raw_versions
            .iter()
            .map(|v| Version {
                name: str_of(v, "name"),
                storage: v.get("storage").and_then(Value::as_bool).unwrap_or(false),
                deprecated: v
                    .get("deprecated")
                    .and_then(Value::as_bool)
                    .unwrap_or(false),
                deprecation_warning: opt_str(v, "deprecationWarning"),
                schema: if schema.is_some() {
                    None
                } else {
                    opt(v, "schema")
                },
                subresources: if subresources.is_some() {
                    None
                } else {
                    opt(v, "subresources")
                },
                columns: if columns.is_some() {
                    no_fields
                } else {
                    list(v, "additionalPrinterColumns")
                },
                selectable: if selectable.is_some() {
                    no_fields
                } else {
                    selectable_of(v)
                },
            })
            .collect();
        Spec {
            raw: spec,
            group: str_of(spec, "group"),
            versions,
            validation: schema.flatten(),
            subresources: subresources.flatten(),
            columns: columns.unwrap_or(no_fields),
            selectable: selectable.unwrap_or(no_fields),
            preserve_unknown_fields: spec
                .get("preserveUnknownFields")
                .and_then(Value::as_bool)
                .unwrap_or(false),
            version: raw_versions.first().map(|v| str_of(v, "name")),
        }
    }

    fn names(&self) -> &'a Value {
        opt(self.raw, "names").unwrap_or(&Value::Null)
    }

    fn kind(&self) -> &'a str {
        str_of(self.names(), "kind")
    }

    /// `names.singular` after SetDefaults: the lowercased kind when empty.
    fn singular(&self) -> String {
        match str_of(self.names(), "singular") {
            "" => self.kind().to_lowercase(),
            s => s.to_owned(),
        }
    }

    /// `names.listKind` after SetDefaults: `<kind>List` when empty and a kind is given.
    fn list_kind(&self) -> String {
        match (str_of(self.names(), "listKind"), self.kind()) {
            ("", "") => String::new(),
            ("", k) => format!("{k}List"),
            (l, _) => l.to_owned(),
        }
    }

    fn any_status(&self) -> bool {
        has_status(self.subresources) || self.versions.iter().any(|v| has_status(v.subresources))
    }

    /// getSubresourcesForVersion: the version's own when any version has some, else the top's.
    fn subresources_of(&self, v: &Version<'a>) -> Option<&'a Value> {
        if self.versions.iter().any(|v| v.subresources.is_some()) {
            v.subresources
        } else {
            self.subresources
        }
    }

    fn schemas(&self) -> impl Iterator<Item = &'a Value> + '_ {
        self.validation
            .into_iter()
            .chain(self.versions.iter().filter_map(|v| v.schema))
            .filter_map(|s| opt(s, "openAPIV3Schema"))
    }
}

fn has_status(sub: Option<&Value>) -> bool {
    sub.and_then(|s| opt(s, "status")).is_some()
}

/// A CustomResourceDefinition on create (its ObjectMeta's generic checks are meta.rs's).
// Kept out of its caller: see `validate::workloads::validate_kind`.
#[inline(never)]
pub(super) fn validate(obj: &Value, ctx: &Ctx, out: &mut Findings) {
    let minor = ctx.gates.version.minor;
    let raw = opt(obj, "spec").unwrap_or(&Value::Null);
    let spec = Spec::read(raw, ctx.gates.enabled("CustomResourceFieldSelectors"));
    let ratcheting = ctx.gates.enabled("CRDValidationRatcheting");
    let mut c = Check { minor, out };
    name_matches(obj, &spec, &mut c);
    validate_spec(&spec, ratcheting, &FieldPath::new("spec"), &mut c);
    stored_versions(&spec, &mut c);
    api_approval(obj, spec.group, &mut c);
    if spec.preserve_unknown_fields {
        c.push(Diagnostic::invalid(
            &FieldPath::new("spec").child("preserveUnknownFields"),
            true,
            "cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead",
        ));
    }
}

/// The CRD's name function: beside NameIsDNSSubdomain (meta.rs), the name (and a generateName,
/// which the function is also given) must be `<plural>.<group>`.
fn name_matches(obj: &Value, spec: &Spec, c: &mut Check) {
    let meta = opt(obj, "metadata").unwrap_or(&Value::Null);
    let required = format!("{}.{}", str_of(spec.names(), "plural"), spec.group);
    let msg = "must be spec.names.plural+\".\"+spec.group";
    let mp = FieldPath::new("metadata");
    let generate = str_of(meta, "generateName");
    if !generate.is_empty() && generate != required {
        c.invalid_str(&mp.child("generateName"), generate, msg);
    }
    let (name, generated) = super::meta::name_on_create(
        opt_str(meta, "name"),
        Some(generate).filter(|g| !g.is_empty()),
    );
    if !name.is_empty() && name != required {
        let mut d = Diagnostic::invalid(&mp.child("name"), name.as_str(), msg);
        d.message.push_str(super::meta::generated_note(generated));
        c.push(d);
    }
}

fn validate_spec(spec: &Spec, ratcheting: bool, sp: &FieldPath, c: &mut Check) {
    let group = spec.group;
    if group.is_empty() {
        c.push(Diagnostic::required(&sp.child("group"), ""));
    } else {
        let errs = dns1123_subdomain_errors(group);
        if !errs.is_empty() {
            c.invalid_str(&sp.child("group"), group, errs.join(","));
        } else if !group.contains('.') {
            c.invalid_str(
                &sp.child("group"),
                group,
                "should be a domain with at least one dot",
            );
        }
    }
    enum_string(
        &sp.child("scope"),
        str_of(spec.raw, "scope"),
        &["Cluster", "Namespaced"],
        c,
    );

    let vp = sp.child("versions");
    // requireOpenAPISchema: every version needs a schema unless a top-level one is set.
    if spec
        .validation
        .and_then(|v| opt(v, "openAPIV3Schema"))
        .is_none()
    {
        for (i, v) in spec.versions.iter().enumerate() {
            if v.schema.and_then(|s| opt(s, "openAPIV3Schema")).is_none() {
                let detail = if Change::CrdMessagesShortened.at(c.minor) {
                    ""
                } else {
                    "schemas are required"
                };
                c.push(Diagnostic::required(
                    &vp.index(i).child("schema").child("openAPIV3Schema"),
                    detail,
                ));
            }
        }
    }
    if spec.schemas().any(props::has_default) && spec.preserve_unknown_fields {
        c.push(Diagnostic::invalid(
            &sp.child("preserveUnknownFields"),
            true,
            "must be false in order to use defaults in the schema",
        ));
    }

    let mut storage = 0;
    let mut seen = BTreeMap::new();
    let mut unique = true;
    for (i, v) in spec.versions.iter().enumerate() {
        storage += usize::from(v.storage);
        if seen.insert(v.name, ()).is_some() {
            unique = false;
        }
        let errs = dns1035_label(v.name);
        if !errs.is_empty() {
            c.invalid_str(&vp.index(i).child("name"), v.name, errs.join(","));
        }
        let status = has_status(spec.subresources_of(v));
        validate_version(v, status, ratcheting, &vp.index(i), c);
    }
    if !unique {
        c.push(versions_invalid(&vp, "must contain unique version names"));
    }
    if storage != 1 {
        c.push(versions_invalid(
            &vp,
            "must have exactly one version marked as storage version",
        ));
    }
    if let Some(first) = spec.version {
        let errs = dns1035_label(first);
        if !errs.is_empty() {
            c.invalid_str(&sp.child("version"), first, errs.join(","));
        }
    }

    let np = sp.child("names");
    let names = spec.names();
    let (singular, list_kind) = (spec.singular(), spec.list_kind());
    for (key, value) in [
        ("plural", str_of(names, "plural")),
        ("singular", singular.as_str()),
        ("kind", spec.kind()),
        ("listKind", list_kind.as_str()),
    ] {
        if value.is_empty() {
            c.push(Diagnostic::required(&np.child(key), ""));
        }
    }
    validate_names(names, &singular, &list_kind, &np, c);

    if let Some(validation) = spec.validation {
        schema::validate_validation(
            validation,
            spec.any_status(),
            ratcheting,
            &sp.child("validation"),
            c,
        );
    }
    subresources(spec.subresources, &sp.child("subresources"), c);
    for (i, col) in spec.columns.iter().enumerate() {
        column(col, &sp.child("additionalPrinterColumns").index(i), c);
    }
    if !spec.selectable.is_empty() {
        let fp = sp.child("selectableFields");
        match spec.validation {
            None => {
                let msg = if Change::CrdMessagesShortened.at(c.minor) {
                    "may only be set when validations.schema is included"
                } else {
                    "selectableFields may only be set when validations.schema is included"
                };
                c.invalid_str(&fp, "", msg);
            }
            Some(v) => {
                selectable_fields(spec.selectable, opt(v, "openAPIV3Schema"), &fp, c);
            }
        }
    }

    let conversion = opt(spec.raw, "conversion");
    let strategy = conversion.map_or("None", |cv| str_of(cv, "strategy"));
    let cp = sp.child("conversion");
    if strategy != "None" && spec.preserve_unknown_fields {
        c.invalid_str(
            &cp.child("strategy"),
            strategy,
            "must be None if spec.preserveUnknownFields is true",
        );
    }
    if let Some(cv) = conversion {
        validate_conversion(cv, strategy, &cp, c);
    }
}

/// field.Invalid at `spec.versions` with the whole list as the value (printed by Go as a dump
/// of the internal type; restartkit prints the path only).
fn versions_invalid(p: &FieldPath, detail: &str) -> Diagnostic {
    Diagnostic::invalid_printed(
        p,
        Value::Null,
        "[]apiextensions.CustomResourceDefinitionVersion{...}",
        detail,
    )
}

/// validateEnumStrings.
fn enum_string(p: &FieldPath, value: &str, accepted: &[&str], c: &mut Check) {
    if value.is_empty() {
        c.push(Diagnostic::required(p, ""));
    } else if !accepted.contains(&value) {
        c.push(Diagnostic::not_supported(p, value, accepted));
    }
}

fn validate_version(v: &Version, status: bool, ratcheting: bool, p: &FieldPath, c: &mut Check) {
    for msg in deprecation_warning(v.deprecated, v.deprecation_warning) {
        c.push(Diagnostic::invalid_printed(
            &p.child("deprecationWarning"),
            Value::from(v.deprecation_warning.unwrap_or("")),
            &props::pointer_str(v.deprecation_warning, c.minor),
            msg,
        ));
    }
    if let Some(s) = v.schema {
        schema::validate_validation(s, status, ratcheting, &p.child("schema"), c);
    }
    subresources(v.subresources, &p.child("subresources"), c);
    for (i, col) in v.columns.iter().enumerate() {
        column(col, &p.child("additionalPrinterColumns").index(i), c);
    }
    if !v.selectable.is_empty() {
        let fp = p.child("selectableFields");
        match v.schema.and_then(|s| opt(s, "openAPIV3Schema")) {
            None => {
                let msg = if Change::CrdMessagesShortened.at(c.minor) {
                    "may only be set when `version.schema.openAPIV3Schema` is not included"
                } else {
                    "selectableFields may only be set when version.schema.openAPIV3Schema is not included"
                };
                c.invalid_str(&fp, "", msg);
            }
            Some(s) => selectable_fields(v.selectable, Some(s), &fp, c),
        }
    }
}

/// validateDeprecationWarning.
fn deprecation_warning(deprecated: bool, warning: Option<&str>) -> Vec<String> {
    let Some(w) = warning else {
        return Vec::new();
    };
    if !deprecated {
        return vec!["can only be set for deprecated versions".to_owned()];
    }
    let mut out = Vec::new();
    if w.len() > 256 {
        out.push("must be <= 256 characters long".to_owned());
    }
    if w.is_empty() {
        out.push("must not be an empty string".to_owned());
    }
    for (i, ch) in w.char_indices() {
        if !super::crd_schema::go::is_go_printable(ch) {
            out.push(format!(
                "must only contain printable UTF-8 characters; non-printable character found at index {i}"
            ));
            break;
        }
        if ch.is_control() {
            out.push(format!(
                "must only contain printable UTF-8 characters; control character found at index {i}"
            ));
            break;
        }
    }
    out
}

/// ValidateCustomResourceDefinitionNames on the spec's names (after defaulting).
fn validate_names(names: &Value, singular: &str, list_kind: &str, p: &FieldPath, c: &mut Check) {
    let plural = str_of(names, "plural");
    let kind = str_of(names, "kind");
    let label = |key: &str, value: &str, c: &mut Check| {
        let errs = dns1035_label(value);
        if !value.is_empty() && !errs.is_empty() {
            c.invalid_str(&p.child(key), value, errs.join(","));
        }
    };
    label("plural", plural, c);
    label("singular", singular, c);
    for (key, value) in [("kind", kind), ("listKind", list_kind)] {
        let errs = dns1035_label(&value.to_lowercase());
        if !value.is_empty() && !errs.is_empty() {
            c.invalid_str(
                &p.child(key),
                value,
                format!(
                    "may have mixed case, but should otherwise match: {}",
                    errs.join(",")
                ),
            );
        }
    }
    for (i, short) in strings(names, "shortNames").into_iter().enumerate() {
        let errs = dns1035_label(short);
        if !errs.is_empty() {
            c.invalid_str(&p.child("shortNames").index(i), short, errs.join(","));
        }
    }
    if !kind.is_empty() && kind == list_kind {
        c.invalid_str(
            &p.child("listKind"),
            list_kind,
            "kind and listKind may not be the same",
        );
    }
    for (i, category) in strings(names, "categories").into_iter().enumerate() {
        let errs = dns1035_label(category);
        if !errs.is_empty() {
            c.invalid_str(&p.child("categories").index(i), category, errs.join(","));
        }
    }
}

/// ValidateCustomResourceColumnDefinition (the v1 `jsonPath` is the internal `JSONPath`, the
/// name upstream's error path uses).
fn column(col: &Value, p: &FieldPath, c: &mut Check) {
    if str_of(col, "name").is_empty() {
        c.push(Diagnostic::required(&p.child("name"), ""));
    }
    let ty = str_of(col, "type");
    let types_msg = format!("must be one of {COLUMN_TYPES}");
    if ty.is_empty() {
        c.push(Diagnostic::required(&p.child("type"), types_msg));
    } else if !COLUMN_TYPES.split(',').any(|t| t == ty) {
        c.invalid_str(&p.child("type"), ty, types_msg);
    }
    let format = str_of(col, "format");
    if !format.is_empty() && !COLUMN_FORMATS.split(',').any(|f| f == format) {
        c.invalid_str(
            &p.child("format"),
            format,
            format!("must be one of {COLUMN_FORMATS}"),
        );
    }
    let path = str_of(col, "jsonPath");
    let jp = p.child("JSONPath");
    if path.is_empty() {
        c.push(Diagnostic::required(&jp, ""));
    } else {
        simple_json_path(path, &jp, c);
    }
}

/// validateSimpleJSONPath; whether it found nothing wrong.
fn simple_json_path(s: &str, p: &FieldPath, c: &mut Check) -> bool {
    if s.is_empty() {
        c.invalid_str(p, s, "must not be empty");
        false
    } else if !s.starts_with('.') {
        c.invalid_str(p, s, "must be a simple json path starting with .");
        false
    } else {
        // strings.Split always yields at least one element: the dot-notation error never fires.
        true
    }
}

/// ValidateCustomResourceDefinitionSubresources.
fn subresources(sub: Option<&Value>, p: &FieldPath, c: &mut Check) {
    let Some(scale) = sub.and_then(|s| opt(s, "scale")) else {
        return;
    };
    for (key, prefix, what) in [
        (
            "specReplicasPath",
            ".spec.",
            "should be a json path under .spec",
        ),
        (
            "statusReplicasPath",
            ".status.",
            "should be a json path under .status",
        ),
    ] {
        let path = str_of(scale, key);
        let fp = p.child(&format!("scale.{key}"));
        if path.is_empty() {
            c.push(Diagnostic::required(&fp, ""));
        } else if simple_json_path(path, &fp, c) && !path.starts_with(prefix) {
            c.invalid_str(&fp, path, what);
        }
    }
    let selector = str_of(scale, "labelSelectorPath");
    let fp = p.child("scale.labelSelectorPath");
    if !selector.is_empty()
        && simple_json_path(selector, &fp, c)
        && !selector.starts_with(".spec.")
        && !selector.starts_with(".status.")
    {
        c.push(Diagnostic::invalid_printed(
            &fp,
            Value::from(selector),
            &props::pointer_str(Some(selector), c.minor),
            "should be a json path under either .spec or .status",
        ));
    }
}

/// ValidateCustomResourceSelectableFields against the version's (or the top-level) schema.
fn selectable_fields(fields: &[Value], root: Option<&Value>, p: &FieldPath, c: &mut Check) {
    let mut unique = std::collections::BTreeSet::new();
    for (i, f) in fields.iter().enumerate() {
        let jp = p.index(i).child("jsonPath");
        let path = str_of(f, "jsonPath");
        if path.is_empty() {
            c.push(Diagnostic::required(&jp, ""));
            continue;
        }
        let Some(root) = root else {
            continue;
        };
        if props::panics_selecting(root, path) {
            // NewStructural failed, and ValidFieldPath then reads the nil schema it got.
            c.push(Diagnostic::internal(
                &jp,
                "kube-apiserver panics checking this selectable field: the schema cannot be made structural, and ValidateCustomResourceSelectableFields walks the nil schema that leaves, so the request fails (500 Internal Server Error)",
            ));
            return;
        }
        let found = match props::field_path(root, path, false) {
            Ok(found) => found,
            Err(why) => {
                c.invalid_str(&jp, path, format!("is an invalid path: {why}"));
                continue;
            }
        };
        if found.steps.first().map(String::as_str) == Some("metadata") {
            c.invalid_str(&jp, path, "must not point to fields in metadata");
        }
        if !matches!(found.ty.as_str(), "string" | "boolean" | "integer") {
            c.invalid_str(
                &jp,
                path,
                "must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed.",
            );
        }
        if !unique.insert(found.steps.join(".")) {
            c.push(Diagnostic::duplicate(&jp, path));
        }
    }
    if unique.len() > MAX_SELECTABLE_FIELDS {
        c.push(Diagnostic::too_many(p, unique.len(), MAX_SELECTABLE_FIELDS));
    }
}

/// validateCustomResourceConversion, with a recognised review version required and the CA
/// bundle unchecked (allowed on create: the CRD is not established yet).
fn validate_conversion(cv: &Value, strategy: &str, p: &FieldPath, c: &mut Check) {
    enum_string(&p.child("strategy"), strategy, &["None", "Webhook"], c);
    let webhook = opt(cv, "webhook");
    let client = webhook.and_then(|w| opt(w, "clientConfig"));
    let reviews = webhook
        .map(|w| strings(w, "conversionReviewVersions"))
        .unwrap_or_default();
    let wp = p.child("webhookClientConfig");
    if strategy == "Webhook" {
        match client {
            None => c.push(Diagnostic::required(
                &wp,
                "required when strategy is set to Webhook",
            )),
            Some(cc) => match (opt_str(cc, "url"), opt(cc, "service")) {
                (Some(u), None) => webhook_url(u, &wp.child("url"), c),
                (None, Some(s)) => webhook_service(s, &wp.child("service"), c),
                _ => c.push(Diagnostic::required(
                    &wp,
                    "exactly one of url or service is required",
                )),
            },
        }
        let rp = p.child("conversionReviewVersions");
        if reviews.is_empty() {
            c.push(Diagnostic::required(&rp, ""));
        } else {
            review_version_list(&reviews, &rp, c);
        }
    } else {
        if client.is_some() {
            c.push(Diagnostic::forbidden(
                &wp,
                "should not be set when strategy is not set to Webhook",
            ));
        }
        if !reviews.is_empty() {
            c.push(Diagnostic::forbidden(
                &p.child("conversionReviewVersions"),
                "should not be set when strategy is not set to Webhook",
            ));
        }
    }
}

/// ValidateCustomResourceDefinitionStoredVersions on the status PrepareForCreate leaves: the
/// first storage version's name, or nothing.
fn stored_versions(spec: &Spec, c: &mut Check) {
    let p = FieldPath::new("status").child("storedVersions");
    let Some(first) = spec.versions.iter().find(|v| v.storage) else {
        c.invalid_list(&p, &[], "[]string", "must have at least one stored version");
        return;
    };
    let mut stored = Some(first.name);
    for v in &spec.versions {
        let present = stored == Some(v.name);
        if v.storage && !present {
            c.invalid_list(
                &p,
                &[first.name],
                "[]string",
                &format!("must have the storage version {}", v.name),
            );
        }
        if present {
            stored = None;
        }
    }
}

/// validateAPIApproval for the protected groups (`k8s.io`, `kubernetes.io` and their
/// subdomains): the annotation a URL, or a reason starting `unapproved`.
fn api_approval(obj: &Value, group: &str, c: &mut Check) {
    let protected = ["k8s.io", "kubernetes.io"]
        .iter()
        .any(|g| group == *g || group.ends_with(&format!(".{g}")));
    if !protected {
        return;
    }
    let value = obj
        .get("metadata")
        .and_then(|m| m.get("annotations"))
        .and_then(|a| a.get(APPROVAL_ANNOTATION))
        .and_then(Value::as_str)
        .unwrap_or("");
    let p = FieldPath::new("metadata")
        .child("annotations")
        .key(APPROVAL_ANNOTATION);
    if value.is_empty() {
        c.push(Diagnostic::required(
            &p,
            format!(
                "protected groups must have approval annotation {APPROVAL_ANNOTATION:?}, see https://github.com/kubernetes/enhancements/pull/1111"
            ),
        ));
    } else if value.starts_with("unapproved") || request_uri_with_host(value) {
        // APIApprovalBypassed or APIApproved.
    } else {
        c.invalid_str(
            &p,
            value,
            format!(
                "protected groups must have approval annotation {APPROVAL_ANNOTATION:?} with either a URL or a reason starting with \"unapproved\", see https://github.com/kubernetes/enhancements/pull/1111"
            ),
        );
    }
}

/// url.ParseRequestURI succeeds with a scheme and a host.
fn request_uri_with_host(s: &str) -> bool {
    match super::go_url::parse(s) {
        Ok(u) => !u.scheme.is_empty() && u.has_host,
        Err(_) => false,
    }
}

#[cfg(test)]
mod tests;
