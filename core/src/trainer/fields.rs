//! Fields of the trainer's own types that v2.3.0 does not have (reported as the other kinds'
//! unknown fields are: warnings, since kube-apiserver prunes them and kubectl's strict field
//! validation refuses the request), and ML policies or pod-group plugins restartkit does not
//! model, which are refused by name: the trainer would build the JobSet as if they were absent.
//!
//! The embedded Kubernetes types (the JobSet template's Job templates, the patch's Pod fields
//! that are Kubernetes types) are checked by `validate::unknown_fields` or not looked into, as
//! for the other kinds.

use crate::diag::{Diagnostic, FieldPath, Findings, Origin};
use serde_json::Value;

const SOURCE: &str = "github.com/kubeflow/trainer/v2 v2.3.0";
/// The Kubernetes minor whose API types the trainer's CRDs embed: v2.3.0 generates them from
/// k8s.io/api v0.36 (its go.mod), whatever minor the cluster runs.
const TRAINER_SCHEMA_MINOR: u32 = 36;

/// A trainer type: its name and fields (with the type of each field that is checked further).
struct Ty {
    name: &'static str,
    fields: &'static [(&'static str, Option<&'static Ty>)],
}

const META: Ty = Ty {
    name: "ObjectMeta (embedded)",
    fields: &[
        ("name", None),
        ("namespace", None),
        ("labels", None),
        ("annotations", None),
        ("finalizers", None),
    ],
};
const RUNTIME_REF: Ty = Ty {
    name: "RuntimeRef",
    fields: &[("name", None), ("apiGroup", None), ("kind", None)],
};
const ASSET: Ty = Ty {
    name: "DatasetInitializer",
    fields: &[("storageUri", None), ("env", None), ("secretRef", None)],
};
const INITIALIZER: Ty = Ty {
    name: "Initializer",
    fields: &[("dataset", Some(&ASSET)), ("model", Some(&ASSET))],
};
const TRAINER: Ty = Ty {
    name: "Trainer",
    fields: &[
        ("image", None),
        ("command", None),
        ("args", None),
        ("env", None),
        ("numNodes", None),
        ("resourcesPerNode", None),
        ("numProcPerNode", None),
    ],
};
const CONTAINER_PATCH: Ty = Ty {
    name: "ContainerPatch",
    fields: &[
        ("name", None),
        ("env", None),
        ("volumeMounts", None),
        ("securityContext", None),
    ],
};
const POD_SPEC_PATCH: Ty = Ty {
    name: "PodSpecPatch",
    fields: &[
        ("serviceAccountName", None),
        ("volumes", None),
        ("initContainers", Some(&CONTAINER_PATCH)),
        ("containers", Some(&CONTAINER_PATCH)),
        ("imagePullSecrets", None),
        ("securityContext", None),
        ("nodeSelector", None),
        ("affinity", None),
        ("tolerations", None),
        ("schedulingGates", None),
        ("terminationGracePeriodSeconds", None),
    ],
};
const POD_TEMPLATE_PATCH: Ty = Ty {
    name: "PodTemplatePatch",
    fields: &[("metadata", Some(&META)), ("spec", Some(&POD_SPEC_PATCH))],
};
const JOB_SPEC_PATCH: Ty = Ty {
    name: "JobSpecPatch",
    fields: &[("template", Some(&POD_TEMPLATE_PATCH))],
};
const JOB_TEMPLATE_PATCH: Ty = Ty {
    name: "JobTemplatePatch",
    fields: &[("metadata", Some(&META)), ("spec", Some(&JOB_SPEC_PATCH))],
};
const REPLICATED_JOB_PATCH: Ty = Ty {
    name: "ReplicatedJobPatch",
    fields: &[("name", None), ("template", Some(&JOB_TEMPLATE_PATCH))],
};
const JOBSET_SPEC_PATCH: Ty = Ty {
    name: "JobSetSpecPatch",
    fields: &[("replicatedJobs", Some(&REPLICATED_JOB_PATCH))],
};
const JOBSET_TEMPLATE_PATCH: Ty = Ty {
    name: "JobSetTemplatePatch",
    fields: &[
        ("metadata", Some(&META)),
        ("spec", Some(&JOBSET_SPEC_PATCH)),
    ],
};
const TRAINING_RUNTIME_SPEC_PATCH: Ty = Ty {
    name: "TrainingRuntimeSpecPatch",
    fields: &[("template", Some(&JOBSET_TEMPLATE_PATCH))],
};
const RUNTIME_PATCH: Ty = Ty {
    name: "RuntimePatch",
    fields: &[
        ("manager", None),
        ("time", None),
        ("trainingRuntimeSpec", Some(&TRAINING_RUNTIME_SPEC_PATCH)),
    ],
};
const TRAIN_JOB_SPEC: Ty = Ty {
    name: "TrainJobSpec",
    fields: &[
        ("runtimeRef", Some(&RUNTIME_REF)),
        ("initializer", Some(&INITIALIZER)),
        ("trainer", Some(&TRAINER)),
        ("runtimePatches", Some(&RUNTIME_PATCH)),
        ("suspend", None),
        ("activeDeadlineSeconds", None),
        ("managedBy", None),
    ],
};
const TRAIN_JOB: Ty = Ty {
    name: "TrainJob",
    fields: &[
        ("apiVersion", None),
        ("kind", None),
        ("metadata", None),
        ("spec", Some(&TRAIN_JOB_SPEC)),
        ("status", None),
    ],
};
const ENV_INJECTION_TARGET: Ty = Ty {
    name: "EnvInjectionTarget",
    fields: &[("jobName", None), ("containerNames", None)],
};
const ENV_INJECTION: Ty = Ty {
    name: "EnvInjection",
    fields: &[("targets", Some(&ENV_INJECTION_TARGET))],
};
const TORCH: Ty = Ty {
    name: "TorchMLPolicySource",
    fields: &[("envInjection", Some(&ENV_INJECTION))],
};
const MPI: Ty = Ty {
    name: "MPIMLPolicySource",
    fields: &[
        ("numProcPerNode", None),
        ("mpiImplementation", None),
        ("sshAuthMountPath", None),
        ("runLauncherAsNode", None),
    ],
};
const FLUX: Ty = Ty {
    name: "FluxMLPolicySource",
    fields: &[("numProcPerNode", None)],
};
const JAX: Ty = Ty {
    name: "JAXMLPolicySource",
    fields: &[],
};
const XGBOOST: Ty = Ty {
    name: "XGBoostMLPolicySource",
    fields: &[],
};
const COSCHEDULING: Ty = Ty {
    name: "CoschedulingPodGroupPolicySource",
    fields: &[("scheduleTimeoutSeconds", None)],
};
const NETWORK_TOPOLOGY: Ty = Ty {
    name: "NetworkTopologySpec",
    fields: &[("mode", None), ("highestTierAllowed", None)],
};
const VOLCANO: Ty = Ty {
    name: "VolcanoPodGroupPolicySource",
    fields: &[("networkTopology", Some(&NETWORK_TOPOLOGY))],
};
const JOBSET_TEMPLATE: Ty = Ty {
    name: "JobSetTemplateSpec",
    fields: &[("metadata", Some(&META)), ("spec", None)],
};

pub(super) const ML_POLICIES: [&str; 5] = ["torch", "mpi", "jax", "xgboost", "flux"];
const POD_GROUP_POLICIES: [&str; 2] = ["coscheduling", "volcano"];

fn walk(ty: &Ty, v: &Value, at: &FieldPath, out: &mut Findings) {
    match v {
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                walk(ty, item, &at.index(i), out);
            }
        }
        Value::Object(m) => {
            for (k, child) in m {
                match ty.fields.iter().find(|(n, _)| n == k) {
                    Some((_, Some(t))) => walk(t, child, &at.child(k), out),
                    Some((_, None)) => {}
                    None => {
                        let p = at.child(k);
                        out.push(Diagnostic::lint(
                            "unknown-field",
                            &p,
                            format!("{p}: unknown field {k:?} ({} has no such field in {SOURCE}); the API server drops it, and kubectl's strict field validation rejects the request", ty.name),
                        ));
                    }
                }
            }
        }
        _ => {}
    }
}

/// Unknown fields of a TrainJob (warnings).
pub(super) fn check_train_job(v: &Value, out: &mut Findings) {
    walk(&TRAIN_JOB, v, &FieldPath::root(), out);
}

/// An ML policy or pod-group plugin restartkit does not model: an error naming it.
fn not_modelled(p: &FieldPath, what: &str, known: &[&str], key: &str) -> Diagnostic {
    let mut d = Diagnostic::plain(
        Origin::Restartkit,
        p,
        format!(
            "{p}: {key:?} is not {what} of {SOURCE} (known: {}); restartkit does not model it, and the API server would drop it, so the trainer would build the JobSet as if it were absent",
            known.join(", ")
        ),
    );
    d.code = Some("not-modelled".into());
    d
}

/// Unknown fields of a runtime (warnings), and unmodelled policies (errors).
pub(super) fn check_runtime(v: &Value, out: &mut Findings) {
    let sp = FieldPath::new("spec");
    let Some(spec) = v.get("spec").and_then(Value::as_object) else {
        return;
    };
    for (k, child) in spec {
        let p = sp.child(k);
        match k.as_str() {
            "mlPolicy" => {
                for (pk, pv) in child.as_object().into_iter().flatten() {
                    let pp = p.child(pk);
                    match pk.as_str() {
                        "numNodes" => {}
                        "torch" => walk(&TORCH, pv, &pp, out),
                        "mpi" => walk(&MPI, pv, &pp, out),
                        "flux" => walk(&FLUX, pv, &pp, out),
                        "jax" => walk(&JAX, pv, &pp, out),
                        "xgboost" => walk(&XGBOOST, pv, &pp, out),
                        other => out.push(not_modelled(&pp, "an ML policy", &ML_POLICIES, other)),
                    }
                }
            }
            "podGroupPolicy" => {
                for (pk, pv) in child.as_object().into_iter().flatten() {
                    let pp = p.child(pk);
                    match pk.as_str() {
                        "coscheduling" => walk(&COSCHEDULING, pv, &pp, out),
                        "volcano" => walk(&VOLCANO, pv, &pp, out),
                        other => out.push(not_modelled(
                            &pp,
                            "a pod-group plugin",
                            &POD_GROUP_POLICIES,
                            other,
                        )),
                    }
                }
            }
            "template" => {
                walk(&JOBSET_TEMPLATE, child, &p, out);
                let rjs = child
                    .pointer("/spec/replicatedJobs")
                    .and_then(Value::as_array)
                    .map_or(&[][..], Vec::as_slice);
                let rp = p.child("spec").child("replicatedJobs");
                use crate::validate::unknown_fields as uf;
                let Some(tmpl) = uf::type_named("JobTemplateSpec") else {
                    continue;
                };
                for (i, rj) in rjs.iter().enumerate() {
                    if let Some(t) = rj.get("template") {
                        // The runtime CRDs embed k8s.io/api's types as the trainer's release
                        // generates them; unknown fields are pruned there, with a warning.
                        uf::check(
                            tmpl,
                            t,
                            &rp.index(i).child("template"),
                            TRAINER_SCHEMA_MINOR,
                            uf::FieldValidation::Warn,
                            uf::Allow::default(),
                            out,
                        );
                    }
                }
            }
            _ => out.push(Diagnostic::lint(
                "unknown-field",
                &p,
                format!("{p}: unknown field {k:?} (TrainingRuntimeSpec has no such field in {SOURCE}); the API server drops it, and kubectl's strict field validation rejects the request"),
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::indexing_slicing)]
    use super::*;
    use serde_json::json;

    #[test]
    fn unknown_train_job_fields_are_warnings() {
        let mut f = Findings::default();
        check_train_job(
            &json!({"spec": {"trainer": {"numnodes": 2}, "runtimePatches": [{"manager": "a/b",
                "trainingRuntimeSpec": {"template": {"spec": {"replicatedJobs": [{"name": "node",
                    "template": {"spec": {"template": {"spec": {"containers": [{"name": "node", "image": "x"}]}}}}}]}}}}]}}),
            &mut f,
        );
        let fields: Vec<&str> = f.warnings.iter().map(|d| d.field.as_str()).collect();
        assert_eq!(
            fields,
            vec![
                "spec.trainer.numnodes",
                "spec.runtimePatches[0].trainingRuntimeSpec.template.spec.replicatedJobs[0].template.spec.template.spec.containers[0].image"
            ]
        );
    }

    #[test]
    fn unknown_policies_are_refused_by_name() {
        let mut f = Findings::default();
        check_runtime(
            &json!({"spec": {"mlPolicy": {"deepspeed": {}, "torch": {}}, "podGroupPolicy": {"kueue": {}}}}),
            &mut f,
        );
        assert_eq!(f.errors.len(), 2);
        assert!(
            f.errors[0]
                .message
                .contains("\"deepspeed\" is not an ML policy")
        );
        assert_eq!(f.errors[1].field, "spec.podGroupPolicy.kueue");
    }
}
