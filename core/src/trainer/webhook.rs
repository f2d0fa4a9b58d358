//! The trainer's validating webhooks (pkg/webhooks, v2.3.0): the TrainingRuntime and
//! ClusterTrainingRuntime validators (`validateReplicatedJobs`, skipped for a runtime labelled
//! `trainer.kubeflow.org/webhook-validation: disabled`, which the webhook configuration's
//! objectSelector leaves out), and the TrainJob validator: the runtime lookup
//! (`ValidateObjects`) and each plugin's `Validate` (jobset, torch, mpi, xgboost, flux,
//! volcano) on the runtime info before the ML policies are enforced.
//!
//! Go aggregates the plugins' errors in the order it iterates its plugin map, which varies;
//! restartkit reports them in the order above.

use super::build::{
    ANCESTOR_LABEL, ANCESTOR_TRAINER, DATASET_INITIALIZER, Info, LAUNCHER, MODEL_INITIALIZER,
    MPI_RESERVED_ENV, NODE, ProcPerNode, TORCH_RESERVED_ENV, TORCHTUNE_ENTRYPOINT,
    TORCHTUNE_IMMUTABLE, XGBOOST_RESERVED_ENV, lora, qlora, recipe_and_config, torch_proc_per_node,
    torchtune_model,
};
use crate::api::{EnvVar, TrainJob, TrainingRuntime};
use crate::diag::{Diagnostic, FieldPath, Origin};
use serde_json::{Value, json};

pub(super) const WEBHOOK_DISABLED_LABEL: &str = "trainer.kubeflow.org/webhook-validation";

fn trainer_error(d: Diagnostic) -> Diagnostic {
    d.with_origin(Origin::TrainerWebhook)
}

/// `validateReplicatedJobs`: replicatedJobs labelled as an initializer or the trainer run one
/// replica and hold the container the trainer writes to.
pub(super) fn validate_runtime(rt: &TrainingRuntime) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    if rt.metadata.label(WEBHOOK_DISABLED_LABEL) == Some("disabled") {
        return out;
    }
    let base = FieldPath::new("spec")
        .child("template")
        .child("spec")
        .child("replicatedJobs");
    for (i, rj) in rt.spec.template.spec.replicated_jobs.iter().enumerate() {
        let Some(labels) = rj
            .template
            .metadata
            .as_ref()
            .and_then(|m| m.labels.as_ref())
        else {
            continue;
        };
        let Some(ancestor) = labels.get(ANCESTOR_LABEL) else {
            continue;
        };
        let want = match ancestor.as_str() {
            ANCESTOR_TRAINER => NODE,
            MODEL_INITIALIZER => MODEL_INITIALIZER,
            DATASET_INITIALIZER => DATASET_INITIALIZER,
            _ => continue,
        };
        // Go's int32 Replicas: an unset (or omitted zero) value is 0 here, after the CRD's
        // default of 1 for an absent one.
        let replicas = rj.replicas.unwrap_or(0);
        if replicas != 1 {
            out.push(trainer_error(Diagnostic::invalid(
                &base.index(i).child("replicas"),
                replicas,
                "always must be 1",
            )));
        }
        let containers = &rj.template.spec.template.spec.containers;
        if !containers.iter().any(|c| c.name == want) {
            let p = base
                .index(i)
                .child("template")
                .child("spec")
                .child("template")
                .child("spec")
                .child("containers");
            let names: Vec<Value> = containers.iter().map(|c| json!({"name": c.name})).collect();
            out.push(trainer_error(Diagnostic::invalid(
                &p,
                Value::Array(names),
                format!("must contain the required container for the ancestor: {ancestor}"),
            )));
        }
    }
    out
}

/// Go's `%#v` of a `*string` field: the pointer's address, or nil.
fn go_ptr(set: bool) -> &'static str {
    if set {
        "(*string)(0x…)"
    } else {
        "(*string)(nil)"
    }
}

/// `%#v` of the TrainJob's RuntimeRef, as field.Error prints it.
fn runtime_ref_value(tj: &TrainJob) -> String {
    let r = tj.spec.runtime_ref.clone().unwrap_or_default();
    format!(
        "v1alpha1.RuntimeRef{{Name:{:?}, APIGroup:{}, Kind:{}}}",
        r.name.unwrap_or_default(),
        go_ptr(r.api_group.is_some()),
        go_ptr(r.kind.is_some())
    )
}

fn invalid_go(path: &FieldPath, value: String, detail: String) -> Diagnostic {
    let mut d = Diagnostic::invalid(path, Value::String(value.clone()), detail.clone());
    d.message = format!("{}: Invalid value: {value}: {detail}", path.as_str());
    trainer_error(d)
}

/// The runtime the TrainJob names, as the validator's registry keys it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum RuntimeKind {
    Namespaced,
    Cluster,
}

impl RuntimeKind {
    pub(super) fn kind(self) -> &'static str {
        match self {
            RuntimeKind::Namespaced => "TrainingRuntime",
            RuntimeKind::Cluster => "ClusterTrainingRuntime",
        }
    }
}

/// `RuntimeRefToRuntimeRegistryKey`, and which runtime kind it names (None: "unsupported
/// runtime", the validator's and the controller's answer for any other group and kind).
pub(super) fn runtime_kind(tj: &TrainJob) -> Result<RuntimeKind, String> {
    let r = tj.spec.runtime_ref.clone().unwrap_or_default();
    let group = r.api_group.unwrap_or_default();
    let kind = r.kind.unwrap_or_default();
    let key = if group.is_empty() {
        kind.clone()
    } else {
        format!("{kind}.{group}")
    };
    match key.as_str() {
        "TrainingRuntime.trainer.kubeflow.org" => Ok(RuntimeKind::Namespaced),
        "ClusterTrainingRuntime.trainer.kubeflow.org" => Ok(RuntimeKind::Cluster),
        _ => Err(format!("unsupported runtime: {key}")),
    }
}

/// The validator's answer when the runtime it looks up does not exist.
pub(super) fn runtime_not_found(tj: &TrainJob, kind: RuntimeKind) -> Diagnostic {
    let name = tj
        .spec
        .runtime_ref
        .as_ref()
        .and_then(|r| r.name.clone())
        .unwrap_or_default();
    let (path, resource, what) = match kind {
        RuntimeKind::Namespaced => (
            FieldPath::new("spec").child("runtimeRef"),
            "trainingruntimes",
            "trainingRuntime",
        ),
        // The ClusterTrainingRuntime validator names the field with a capital R.
        RuntimeKind::Cluster => (
            FieldPath::new("spec").child("RuntimeRef"),
            "clustertrainingruntimes",
            "clusterTrainingRuntime",
        ),
    };
    invalid_go(
        &path,
        runtime_ref_value(tj),
        format!(
            "{resource}.trainer.kubeflow.org {name:?} not found: specified {what} must be created before the TrainJob is created"
        ),
    )
}

/// The ClusterTrainingRuntime validator's warning for a runtime labelled as deprecated.
pub(super) fn deprecation_warning(rt: &TrainingRuntime, kind: RuntimeKind) -> Option<String> {
    (kind == RuntimeKind::Cluster && rt.metadata.label("trainer.kubeflow.org/support") == Some("deprecated"))
        .then(|| {
            format!(
                "Referenced ClusterTrainingRuntime \"{}\" is deprecated and will be removed in a future release of Kubeflow Trainer. See runtime deprecation policy: https://trainer.kubeflow.org/en/latest/operator-guides/runtime.html#runtime-deprecation-policy",
                rt.metadata.name_or_empty()
            )
        })
}

fn env_names(env: &[EnvVar], reserved: &[&str]) -> Vec<String> {
    let mut names: Vec<String> = env
        .iter()
        .filter(|e| reserved.contains(&e.name.as_str()))
        .map(|e| e.name.clone())
        .collect();
    names.sort();
    names.dedup();
    names
}

fn env_value(env: &[EnvVar]) -> String {
    serde_json::to_string(env).unwrap_or_default()
}

/// Each plugin's `Validate`, on the runtime info of `newRuntimeInfo`.
pub(super) fn validate_train_job(info: &Info, tj: &TrainJob) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    jobset(info, tj, &mut out);
    torch(info, tj, &mut out);
    mpi(info, tj, &mut out);
    xgboost(info, tj, &mut out);
    flux(info, tj, &mut out);
    volcano(info, &mut out);
    out
}

fn container_names(info: &Info, rj: &str) -> Option<Vec<String>> {
    let r = info.spec.replicated_jobs.iter().find(|r| r.name == rj)?;
    let ps = &r.template.spec.template.spec;
    Some(
        ps.init_containers
            .iter()
            .chain(&ps.containers)
            .map(|c| c.name.clone())
            .collect(),
    )
}

/// The jobset plugin's `Validate`: initializer Jobs present, patches naming what exists.
fn jobset(info: &Info, tj: &TrainJob, out: &mut Vec<Diagnostic>) {
    let rr = FieldPath::new("spec").child("runtimeRef");
    let ref_value = runtime_ref_value(tj);
    for (which, job) in [
        ("dataset", DATASET_INITIALIZER),
        ("model", MODEL_INITIALIZER),
    ] {
        let wanted = tj.spec.initializer.as_ref().is_some_and(|i| match which {
            "dataset" => i.dataset.is_some(),
            _ => i.model.is_some(),
        });
        if !wanted {
            continue;
        }
        let detail = match container_names(info, job) {
            None => Some(format!(
                "must have {job} job when trainJob is configured with input {which}Config"
            )),
            Some(names) if !names.iter().any(|n| n == job) => Some(format!(
                "must have container with name - {job} in the {job} job"
            )),
            Some(_) => {
                let mounted = info
                    .spec
                    .replicated_jobs
                    .iter()
                    .filter(|r| r.name == job)
                    .flat_map(|r| r.template.spec.template.spec.containers.iter())
                    .filter(|c| c.name == job)
                    .flat_map(|c| {
                        c.other
                            .get("volumeMounts")
                            .and_then(Value::as_array)
                            .into_iter()
                            .flatten()
                    })
                    .any(|m| m.get("name").and_then(Value::as_str) == Some("initializer"));
                (!mounted).then(|| {
                    format!(
                        "must have volumeMount with name - initializer in container {job} of the {job} job"
                    )
                })
            }
        };
        if let Some(detail) = detail {
            out.push(invalid_go(&rr, ref_value.clone(), detail));
        }
    }
    let patches_path = FieldPath::new("spec").child("runtimePatches");
    let patches_value = serde_json::to_string(&tj.spec.runtime_patches).unwrap_or_default();
    for p in &tj.spec.runtime_patches {
        for msg in manager_errors(&p.manager) {
            out.push(msg);
        }
        let Some(spec) = p.jobset_spec() else {
            continue;
        };
        for rj in &spec.replicated_jobs {
            let Some(names) = container_names(info, &rj.name) else {
                out.push(invalid_go(
                    &patches_path,
                    patches_value.clone(),
                    "must not have replicated job that doesn't exist in the runtime job template"
                        .into(),
                ));
                continue;
            };
            let Some(ps) = rj
                .template
                .as_ref()
                .and_then(|t| t.spec.as_ref())
                .and_then(|s| s.template.as_ref())
                .and_then(|t| t.spec.as_ref())
            else {
                continue;
            };
            for c in &ps.init_containers {
                if !names.contains(&c.name) {
                    out.push(invalid_go(
                        &patches_path,
                        patches_value.clone(),
                        format!(
                            "must not have initContainer that doesn't exist in the runtime job {}",
                            rj.name
                        ),
                    ));
                }
            }
            for c in &ps.containers {
                if !names.contains(&c.name) {
                    out.push(invalid_go(
                        &patches_path,
                        patches_value.clone(),
                        format!(
                            "must not have container that doesn't exist in the runtime job {}",
                            rj.name
                        ),
                    ));
                } else if !c.env.is_empty()
                    && [DATASET_INITIALIZER, MODEL_INITIALIZER, NODE].contains(&c.name.as_str())
                {
                    out.push(invalid_go(
                        &patches_path,
                        patches_value.clone(),
                        "must not have envs for the dataset-initializer, model-initializer, node containers".into(),
                    ));
                }
            }
        }
    }
}

/// `validation.IsDomainPrefixedPath` on a patch's manager, at `spec.runtimePatches.manager`.
fn manager_errors(manager: &str) -> Vec<Diagnostic> {
    let p = FieldPath::new("spec")
        .child("runtimePatches")
        .child("manager");
    crate::validate::meta::domain_prefixed_path(&p, manager)
        .into_iter()
        .map(trainer_error)
        .collect()
}

fn torch(info: &Info, tj: &TrainJob, out: &mut Vec<Diagnostic>) {
    let Some(policy) = info.ml.as_ref().and_then(|m| m.torch.as_ref()) else {
        return;
    };
    let spec = FieldPath::new("spec");
    for t in policy.env_injection.iter().flat_map(|e| e.targets.iter()) {
        for c in &t.container_names {
            if info.container_by_pod_set_name(&t.job_name, c).is_none() {
                let names: Vec<String> =
                    t.container_names.iter().map(|n| format!("{n:?}")).collect();
                out.push(invalid_go(
                    &spec.child("runtimeRef"),
                    format!(
                        "v1alpha1.EnvInjectionTarget{{JobName:{:?}, ContainerNames:[]string{{{}}}}}",
                        t.job_name,
                        names.join(", ")
                    ),
                    format!(
                        "envInjection target podSet {:?} container {c:?} not found in runtime template",
                        t.job_name
                    ),
                ));
            }
        }
    }
    let Some(trainer) = &tj.spec.trainer else {
        return;
    };
    let reserved = env_names(&trainer.env, &TORCH_RESERVED_ENV);
    if !reserved.is_empty() {
        out.push(trainer_error(Diagnostic::invalid(
            &spec.child("trainer").child("env"),
            env_value(&trainer.env),
            format!(
                "must not have reserved envs, invalid envs configured: [{}]",
                reserved.join(" ")
            ),
        )));
    }
    let tune = trainer
        .command
        .as_ref()
        .is_some_and(|c| c.iter().map(String::as_str).eq(TORCHTUNE_ENTRYPOINT));
    if tune {
        torchtune(info, tj, out);
    }
}

/// `validateTorchTune`.
fn torchtune(info: &Info, tj: &TrainJob, out: &mut Vec<Diagnostic>) {
    let Some(trainer) = &tj.spec.trainer else {
        return;
    };
    let spec = FieldPath::new("spec");
    let name_path = spec.child("runtimeRef").child("name");
    let runtime = tj
        .spec
        .runtime_ref
        .as_ref()
        .and_then(|r| r.name.clone())
        .unwrap_or_default();
    let model = torchtune_model(&runtime);
    let supported = ["llama3_2/1B", "llama3_2/3B", "llama3_3/70B", "qwen2_5/1.5B"];
    if !supported.contains(&model.as_str()) {
        out.push(trainer_error(Diagnostic::invalid(
            &name_path,
            runtime.as_str(),
            format!("must have a supported pretrained model, invalid model configured: {model}"),
        )));
    }
    let nodes_path = spec.child("trainer").child("numNodes");
    let num_nodes = trainer.num_nodes.unwrap_or(1);
    if num_nodes > 1 && model != "llama3_3/70B" {
        out.push(trainer_error(Diagnostic::invalid(
            &nodes_path,
            num_nodes,
            format!("must be 1 for {model} model"),
        )));
    }
    let proc_path = spec.child("trainer").child("numProcPerNode");
    let nproc = match trainer.num_proc_per_node {
        Some(n) => ProcPerNode::Int(n.into()),
        None => ProcPerNode::Auto,
    };
    let (_, gpu) = torch_proc_per_node(info, tj);
    let args = trainer.args.clone().unwrap_or_default();
    let (_, config) = recipe_and_config(num_nodes, &nproc, gpu, &args, &runtime);
    if config.contains("_qlora") {
        if model == "qwen2_5/1.5B" {
            out.push(trainer_error(Diagnostic::invalid(
                &name_path,
                runtime.as_str(),
                format!("QLoRA is not supported for {model} model"),
            )));
        }
        if !config.contains("_qlora_single_device")
            && (model == "llama3_2/1B" || model == "llama3_2/3B")
        {
            let v = match &nproc {
                ProcPerNode::Auto => {
                    "intstr.IntOrString{Type:1, IntVal:0, StrVal:\"auto\"}".to_owned()
                }
                ProcPerNode::Int(n) => {
                    format!("intstr.IntOrString{{Type:0, IntVal:{n}, StrVal:\"\"}}")
                }
            };
            out.push(invalid_go(
                &proc_path,
                v,
                format!("must be auto or 1 for {model} model when using QLoRA"),
            ));
            out.push(trainer_error(Diagnostic::invalid(
                &spec.child("trainer").child("resourcesPerNode"),
                trainer.resources_per_node.clone().unwrap_or(Value::Null),
                format!("must have gpu resource with value 1 for {model} model when using QLoRA"),
            )));
        }
    }
    if num_nodes > 1 && (lora(&args) || qlora(&args)) {
        out.push(trainer_error(Diagnostic::invalid(
            &nodes_path,
            num_nodes,
            "LoRA fine-tuning is not supported for multi-node training in TorchTune",
        )));
    }
    for (i, a) in args.iter().enumerate() {
        let key = a.split('=').next().unwrap_or("");
        if TORCHTUNE_IMMUTABLE.contains(&key) {
            out.push(trainer_error(Diagnostic::invalid(
                &spec.child("trainer").child("args").index(i),
                a.as_str(),
                format!("must not set immutable config {key:?} in trainer args; it is managed by the runtime"),
            )));
        }
    }
}

fn mpi(info: &Info, tj: &TrainJob, out: &mut Vec<Diagnostic>) {
    let Some(policy) = info.ml.as_ref().and_then(|m| m.mpi.as_ref()) else {
        return;
    };
    let Some(trainer) = &tj.spec.trainer else {
        return;
    };
    if trainer.num_nodes.unwrap_or(1) >= 2
        && policy.run_launcher_as_node.unwrap_or(false)
        && (info.pod_set_by_name(LAUNCHER).is_none() || info.pod_set_by_name(NODE).is_none())
    {
        out.push(trainer_error(Diagnostic::invalid(
            &FieldPath::new("spec").child("trainer").child("numNodes"),
            trainer.num_nodes.map_or(Value::Null, Value::from),
            "must have 1 when MPI trainingRuntime with enabled runLauncherAsNode does not have either launcher and node",
        )));
    }
    let reserved = env_names(&trainer.env, &MPI_RESERVED_ENV);
    if !reserved.is_empty() {
        out.push(trainer_error(Diagnostic::invalid(
            &FieldPath::new("spec").child("trainer").child("env"),
            env_value(&trainer.env),
            format!(
                "must not have reserved envs, invalid envs configured: [{}]",
                reserved.join(" ")
            ),
        )));
    }
}

fn xgboost(info: &Info, tj: &TrainJob, out: &mut Vec<Diagnostic>) {
    if info.ml.as_ref().is_none_or(|m| m.xgboost.is_none()) {
        return;
    }
    let Some(trainer) = &tj.spec.trainer else {
        return;
    };
    let p = FieldPath::new("spec").child("trainer").child("env");
    for (i, e) in trainer.env.iter().enumerate() {
        if XGBOOST_RESERVED_ENV.contains(&e.name.as_str()) {
            out.push(trainer_error(Diagnostic::forbidden(
                &p.index(i),
                format!("{} is reserved for the XGBoost runtime", e.name),
            )));
        }
    }
}

fn flux(info: &Info, tj: &TrainJob, out: &mut Vec<Diagnostic>) {
    let Some(policy) = info.ml.as_ref().and_then(|m| m.flux.as_ref()) else {
        return;
    };
    let nproc = tj
        .spec
        .trainer
        .as_ref()
        .and_then(|t| t.num_proc_per_node)
        .or(policy.num_proc_per_node);
    if let Some(n) = nproc.filter(|n| *n < 1) {
        out.push(trainer_error(Diagnostic::invalid(
            &FieldPath::new("spec")
                .child("trainer")
                .child("numProcPerNode"),
            n,
            "must be greater than or equal to 1 for Flux TrainJob",
        )));
    }
    for (i, ps) in info.pod_sets.iter().enumerate() {
        if ps.name != NODE {
            continue;
        }
        let Some(rj) = info.spec.replicated_jobs.get(i) else {
            continue;
        };
        for c in &rj.template.spec.template.spec.init_containers {
            if c.name == "flux-installer" {
                out.push(trainer_error(Diagnostic::invalid(
                    &FieldPath::new("spec")
                        .child("trainer")
                        .child("initContainers"),
                    c.name.as_str(),
                    "InitContainer 'flux-installer' is reserved",
                )));
            }
        }
    }
}

/// Volcano's `Validate`: the queue annotation; a priority class must exist in the cluster,
/// which restartkit cannot see (a warning, not an error).
fn volcano(info: &Info, out: &mut Vec<Diagnostic>) {
    if info
        .pod_group
        .as_ref()
        .and_then(|p| p.volcano.as_ref())
        .is_none_or(Value::is_null)
    {
        return;
    }
    if info
        .annotations
        .get("scheduling.volcano.sh/queue-name")
        .map(String::as_str)
        == Some("")
    {
        out.push(trainer_error(Diagnostic::invalid(
            &FieldPath::new("spec")
                .child("annotations")
                .key("scheduling.volcano.sh/queue-name"),
            "",
            "Volcano queue name must not be empty",
        )));
    }
    for rj in &info.spec.replicated_jobs {
        let Some(pc) = rj
            .template
            .spec
            .template
            .spec
            .other
            .get("priorityClassName")
            .and_then(Value::as_str)
        else {
            continue;
        };
        if pc == "system-cluster-critical" || pc == "system-node-critical" {
            return;
        }
        out.push(
            Diagnostic::lint(
                "trainer-priority-class",
                &FieldPath::new("spec").child("templateSpec").child("priorityClassName"),
                format!(
                    "the trainer's Volcano webhook refuses this TrainJob unless PriorityClass {pc:?} exists in the cluster (restartkit cannot see the cluster)"
                ),
            ),
        );
    }
}
