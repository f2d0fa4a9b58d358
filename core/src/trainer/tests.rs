#![allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]
use super::*;

fn torch_runtime() -> Value {
    json!({"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "ClusterTrainingRuntime",
        "metadata": {"name": "torch-distributed"},
        "spec": {"mlPolicy": {"numNodes": 1, "torch": {}}, "template": {"spec": {"replicatedJobs": [
            {"name": "node", "template": {"metadata": {"labels": {
                "trainer.kubeflow.org/trainjob-ancestor-step": "trainer"}},
                "spec": {"template": {"spec": {"containers": [{"name": "node", "image": "pytorch"}]}}}}}]}}}})
}

fn train_job(spec: Value) -> Value {
    json!({"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob",
        "metadata": {"name": "tj"}, "spec": spec})
}

#[test]
fn torch_build_sets_counts_env_and_port() {
    let rt = torch_runtime();
    let tj = train_job(json!({"runtimeRef": {"name": "torch-distributed"},
        "trainer": {"numNodes": 3, "env": [{"name": "A", "value": "1"}]}}));
    let res = resolve(&tj, &[&rt]);
    let Outcome::Built(b) = res.outcome else {
        panic!("{:?}", res.findings)
    };
    let js = serde_json::to_value(&b.jobset).unwrap();
    let rj = &js["spec"]["replicatedJobs"][0];
    assert_eq!(rj["template"]["spec"]["parallelism"], 3);
    assert_eq!(rj["template"]["spec"]["completions"], 3);
    let env: Vec<&str> = rj["template"]["spec"]["template"]["spec"]["containers"][0]["env"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        env,
        vec![
            "A",
            "PET_NNODES",
            "PET_NPROC_PER_NODE",
            "PET_NODE_RANK",
            "PET_MASTER_ADDR",
            "PET_MASTER_PORT"
        ]
    );
    assert_eq!(js["spec"]["suspend"], false);
    assert_eq!(js["metadata"]["ownerReferences"][0]["kind"], "TrainJob");
}

#[test]
fn missing_runtime_gets_the_webhooks_message() {
    let tj = train_job(json!({"runtimeRef": {"name": "nope"}}));
    let res = resolve(&tj, &[]);
    let msgs: Vec<String> = res
        .findings
        .iter()
        .map(|p| p.diagnostic.message.clone())
        .collect();
    assert!(
        msgs.iter().any(|m| m.ends_with("clustertrainingruntimes.trainer.kubeflow.org \"nope\" not found: specified clusterTrainingRuntime must be created before the TrainJob is created")),
        "{msgs:?}"
    );
}

/// The case: a runtime whose JobSet restarts in place and leaves completions and
/// parallelism to the trainer is not refused (the trainer sets both to the node count).
#[test]
fn in_place_runtime_without_counts_is_admitted() {
    let mut rt = torch_runtime();
    rt["spec"]["template"]["spec"]["failurePolicy"] =
        json!({"maxRestarts": 3, "restartStrategy": "InPlaceRestart"});
    let job = &mut rt["spec"]["template"]["spec"]["replicatedJobs"][0]["template"]["spec"];
    job["backoffLimit"] = json!(2147483647);
    job["podReplacementPolicy"] = json!("Failed");
    let mut gates = std::collections::BTreeMap::new();
    gates.insert("InPlaceRestart".to_owned(), true);
    let (gates, _) = crate::FeatureGates::resolve(None, Some(&gates)).unwrap();
    let ctx = Ctx {
        gates,
        ..Default::default()
    };
    let mut alone = Findings::default();
    validate_runtime_alone(&rt, &ctx, &mut alone);
    assert!(alone.errors.is_empty(), "{:?}", alone.errors);
    // The JobSet read as if it were the runtime's template is refused, as restartkit used to.
    let mut js = Findings::default();
    let spec: crate::api::JobSetSpec =
        serde_json::from_value(rt["spec"]["template"]["spec"].clone()).unwrap();
    let mut spec = spec;
    crate::validate::jobset::default_jobset_spec(&mut spec);
    crate::validate::jobset::validate_jobset_spec(&spec, &FieldPath::new("spec"), &ctx, &mut js);
    assert!(
        js.errors.iter().any(|d| d
            .message
            .contains("completions and parallelism must be set and equal")),
        "{:?}",
        js.errors
    );
}

/// Diagnostics of the built JobSet point at the TrainJob field the value came from.
#[test]
fn built_jobset_diagnostics_point_at_their_origin() {
    let mut rt = torch_runtime();
    rt["spec"]["template"]["spec"]["replicatedJobs"][0]["template"]["spec"]["podFailurePolicy"] = json!({"rules": [{"action": "FailJob", "onExitCodes": {"operator": "In", "values": [42]}}]});
    let tj = train_job(json!({"runtimeRef": {"name": "torch-distributed"},
        "trainer": {"numNodes": -2}}));
    let res = resolve(&tj, &[&rt]);
    let Outcome::Built(b) = &res.outcome else {
        panic!("{:?}", res.findings)
    };
    let found = jobset_findings(b, &Ctx::default(), "");
    // numNodes -2 gives the Job a negative parallelism: the TrainJob's numNodes is at fault.
    let neg = found
        .iter()
        .find(|p| p.diagnostic.message.contains("parallelism"))
        .unwrap();
    assert_eq!(neg.role, DocRole::TrainJob);
    assert_eq!(neg.diagnostic.field, "spec.trainer.numNodes");
    // The Pod template's restartPolicy (defaulted by the JobSet webhook to OnFailure, refused
    // with a podFailurePolicy) is the runtime's.
    let rp = found
        .iter()
        .find(|p| p.diagnostic.message.contains("restartPolicy"))
        .unwrap();
    assert_eq!(rp.role, DocRole::Runtime);
    assert_eq!(
        rp.diagnostic.field,
        "spec.template.spec.replicatedJobs[0].template.spec.template.spec.restartPolicy"
    );
}

/// A runtimePatch naming a replicatedJob the runtime lacks: v2.3.0's webhook checks the names
/// against the runtime after the patches are merged (trainingruntime.go ValidateObjects →
/// newRuntimeInfo), so it admits the TrainJob; the JobSet it builds then has a Job without
/// containers, refused by kube-apiserver, at the patch's replicatedJob.
#[test]
fn patch_adding_a_replicated_job_is_refused_at_the_patch() {
    let rt = torch_runtime();
    let tj = train_job(json!({"runtimeRef": {"name": "torch-distributed"},
        "runtimePatches": [{"manager": "example.com/x", "trainingRuntimeSpec": {"template": {"spec": {
            "replicatedJobs": [{"name": "worker", "template": {"spec": {"template": {"spec": {
                "nodeSelector": {"pool": "a"}}}}}}]}}}}]}));
    let res = resolve(&tj, &[&rt]);
    assert!(
        res.findings
            .iter()
            .all(|p| p.diagnostic.severity != Severity::Error),
        "{:?}",
        res.findings
    );
    let Outcome::Built(b) = &res.outcome else {
        panic!("{:?}", res.findings)
    };
    let found = jobset_findings(b, &Ctx::default(), "");
    let c = found
        .iter()
        .find(|p| p.diagnostic.message.contains("containers"))
        .unwrap();
    assert_eq!(c.role, DocRole::TrainJob);
    assert_eq!(
        c.diagnostic.field,
        "spec.runtimePatches[0].trainingRuntimeSpec.template.spec.replicatedJobs[0]"
    );
    // The runtime's own replicatedJob keeps pointing at the runtime.
    let node = b.origin_of("spec.replicatedJobs[1].template.spec.template.spec.containers");
    assert_eq!(node.doc, DocRole::Runtime);
}

/// A runtime the trainer cannot build a JobSet from for a TrainJob that sets nothing (the flux
/// plugin reads spec.trainer): read alone it says that its JobSet waits for a TrainJob.
#[test]
fn flux_runtime_alone_says_its_jobset_waits() {
    let mut rt = torch_runtime();
    rt["spec"]["mlPolicy"] = json!({"numNodes": 1, "flux": {"numProcPerNode": 1}});
    let mut alone = Findings::default();
    validate_runtime_alone(&rt, &Ctx::default(), &mut alone);
    assert!(alone.errors.is_empty(), "{:?}", alone.errors);
    assert!(
        alone
            .infos
            .iter()
            .any(|d| d.code.as_deref() == Some("waits-for-trainjob")
                && d.message.contains("spec.trainer")),
        "{:?}",
        alone.infos
    );
}
