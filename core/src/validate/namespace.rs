//! Namespace (v1) on create: the strategy's PrepareForCreate (status `Active`; the `kubernetes`
//! finalizer appended when `spec.finalizers` lacks it), then `ValidateNamespace`'s spec part
//! (pkg/apis/core/validation), the same text in every minor 1.31..1.37: each of
//! `spec.finalizers` a qualified name (apimachinery ValidateFinalizerName, worded per minor as
//! names.rs words it) and, without a `/`, a standard finalizer name (validateKubeFinalizerName),
//! both reported at `spec.finalizers` without an index, as upstream reports them. Its ObjectMeta
//! (cluster-scoped, a DNS-label name, SetDefaults_Namespace's `kubernetes.io/metadata.name`
//! label) is meta.rs's.

use super::Ctx;
use super::names::qualified_name;
use crate::diag::{Diagnostic, FieldPath, Findings};
use serde_json::Value;

/// helper.IsStandardFinalizerName's set.
const STANDARD_FINALIZERS: [&str; 3] = ["kubernetes", "orphan", "foregroundDeletion"];

/// A Namespace on create (after ObjectMeta, which meta.rs checks).
// Kept out of its caller: see `validate::workloads::validate_kind`.
#[inline(never)]
pub(super) fn validate(obj: &Value, ctx: &Ctx, out: &mut Findings) {
    let finalizers: Vec<&str> = obj
        .get("spec")
        .and_then(|s| s.get("finalizers"))
        .and_then(Value::as_array)
        .map(|a| a.iter().map(|f| f.as_str().unwrap_or("")).collect())
        .unwrap_or_default();
    // The finalizer PrepareForCreate appends is valid: only those written are checked.
    let p = FieldPath::new("spec").child("finalizers");
    let minor = ctx.gates.version.minor;
    for f in finalizers {
        for msg in qualified_name(f, minor) {
            out.push(Diagnostic::invalid(&p, f, msg));
        }
        if !f.contains('/') && !STANDARD_FINALIZERS.contains(&f) {
            out.push(Diagnostic::invalid(
                &p,
                f,
                "name is neither a standard finalizer name nor is it fully qualified",
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::indexing_slicing)]
    use super::*;
    use serde_json::json;

    fn run(finalizers: Value) -> Vec<String> {
        let obj = json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team-a"},
            "spec": {"finalizers": finalizers}});
        let mut out = Findings::default();
        validate(&obj, &Ctx::default(), &mut out);
        out.errors.iter().map(|d| d.message.clone()).collect()
    }

    #[test]
    fn finalizers() {
        assert!(run(json!(["kubernetes", "example.com/cleanup", "orphan"])).is_empty());
        assert_eq!(
            run(json!(["cleanup"])),
            vec![
                r#"spec.finalizers: Invalid value: "cleanup": name is neither a standard finalizer name nor is it fully qualified"#
            ]
        );
        let msgs = run(json!(["Bad Name"]));
        assert_eq!(msgs.len(), 2, "{msgs:?}");
        assert!(msgs[0].starts_with(r#"spec.finalizers: Invalid value: "Bad Name": name part "#));
    }
}
