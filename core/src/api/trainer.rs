//! Kubeflow Trainer v2 (`trainer.kubeflow.org/v1alpha1`): TrainJob, TrainingRuntime and
//! ClusterTrainingRuntime, as github.com/kubeflow/trainer/v2 v2.3.0 defines them
//! (pkg/apis/trainer/v1alpha1). The runtime's template holds a JobSet spec, typed with the JobSet
//! types; Pod-level values the trainer only copies (volumes, resources, security contexts) stay
//! JSON. `other` keeps what a struct does not name, so unknown fields can be reported.

use super::{JobSetSpec, ObjectMeta, Other};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// `trainer.kubeflow.org/v1alpha1` TrainJob.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TrainJob {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_version: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    #[serde(default)]
    pub metadata: ObjectMeta,
    #[serde(default)]
    pub spec: TrainJobSpec,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<Value>,
    #[serde(flatten)]
    #[schemars(skip)]
    pub other: Other,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TrainJobSpec {
    /// The runtime the TrainJob uses (required).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runtime_ref: Option<RuntimeRef>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initializer: Option<Initializer>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trainer: Option<Trainer>,
    /// Patches of the runtime's JobSet template, keyed by manager.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub runtime_patches: Vec<RuntimePatch>,
    /// Default false (CRD default). Copied to the JobSet's `spec.suspend`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suspend: Option<bool>,
    /// The TrainJob controller fails the TrainJob (`DeadlineExceeded`) and deletes its JobSet
    /// this many seconds after the TrainJob was created (or last resumed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub active_deadline_seconds: Option<i64>,
    /// `trainer.kubeflow.org/trainjob-controller` (default) or `kueue.x-k8s.io/multikueue`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub managed_by: Option<String>,
    #[serde(flatten)]
    #[schemars(skip)]
    pub other: Other,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RuntimeRef {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Default `trainer.kubeflow.org`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_group: Option<String>,
    /// `ClusterTrainingRuntime` (default) or `TrainingRuntime`.
    #[schemars(extend("examples" = ["ClusterTrainingRuntime", "TrainingRuntime"]))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    #[serde(flatten)]
    #[schemars(skip)]
    pub other: Other,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Initializer {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dataset: Option<AssetInitializer>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<AssetInitializer>,
    #[serde(flatten)]
    #[schemars(skip)]
    pub other: Other,
}

/// `DatasetInitializer` and `ModelInitializer` (the same fields).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AssetInitializer {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub storage_uri: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub env: Vec<EnvVar>,
    /// A `LocalObjectReference` (`name`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub secret_ref: Option<Value>,
    #[serde(flatten)]
    #[schemars(skip)]
    pub other: Other,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Trainer {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub args: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub env: Vec<EnvVar>,
    /// The number of training nodes: the trainer Job's parallelism and completions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub num_nodes: Option<i32>,
    /// A `ResourceRequirements` (`limits`, `requests`, `claims`), merged over the runtime's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resources_per_node: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub num_proc_per_node: Option<i32>,
    #[serde(flatten)]
    #[schemars(skip)]
    pub other: Other,
}

/// `corev1.EnvVar`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct EnvVar {
    #[serde(default)]
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value_from: Option<Value>,
    #[serde(flatten)]
    #[schemars(skip)]
    pub other: Other,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RuntimePatch {
    #[serde(default)]
    pub manager: String,
    /// Set by the trainer's mutating webhook; not read by the build.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub training_runtime_spec: Option<TrainingRuntimeSpecPatch>,
    #[serde(flatten)]
    #[schemars(skip)]
    pub other: Other,
}

impl RuntimePatch {
    /// The patch's `trainingRuntimeSpec.template`, where it has one.
    fn template(&self) -> Option<&JobSetTemplatePatch> {
        self.training_runtime_spec.as_ref()?.template.as_ref()
    }

    /// `trainingRuntimeSpec.template.spec`: what the trainer merges into the runtime's JobSet spec.
    pub fn jobset_spec(&self) -> Option<&JobSetSpecPatch> {
        self.template()?.spec.as_ref()
    }

    /// `trainingRuntimeSpec.template.metadata`: labels and annotations added to the JobSet.
    pub fn jobset_metadata(&self) -> Option<&ObjectMeta> {
        self.template()?.metadata.as_ref()
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TrainingRuntimeSpecPatch {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub template: Option<JobSetTemplatePatch>,
    #[serde(flatten)]
    #[schemars(skip)]
    pub other: Other,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct JobSetTemplatePatch {
    /// Labels and annotations added to the JobSet.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<ObjectMeta>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spec: Option<JobSetSpecPatch>,
    #[serde(flatten)]
    #[schemars(skip)]
    pub other: Other,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct JobSetSpecPatch {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub replicated_jobs: Vec<ReplicatedJobPatch>,
    #[serde(flatten)]
    #[schemars(skip)]
    pub other: Other,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReplicatedJobPatch {
    #[serde(default)]
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub template: Option<JobTemplatePatch>,
    #[serde(flatten)]
    #[schemars(skip)]
    pub other: Other,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct JobTemplatePatch {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<ObjectMeta>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spec: Option<JobSpecPatch>,
    #[serde(flatten)]
    #[schemars(skip)]
    pub other: Other,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct JobSpecPatch {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub template: Option<PodTemplatePatch>,
    #[serde(flatten)]
    #[schemars(skip)]
    pub other: Other,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PodTemplatePatch {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<ObjectMeta>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spec: Option<PodSpecPatch>,
    #[serde(flatten)]
    #[schemars(skip)]
    pub other: Other,
}

/// The Pod spec fields a runtime patch may set.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PodSpecPatch {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub service_account_name: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub volumes: Vec<Value>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub init_containers: Vec<ContainerPatch>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub containers: Vec<ContainerPatch>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub image_pull_secrets: Vec<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub security_context: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node_selector: Option<std::collections::BTreeMap<String, String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub affinity: Option<Value>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tolerations: Vec<Value>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub scheduling_gates: Vec<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub termination_grace_period_seconds: Option<i64>,
    #[serde(flatten)]
    #[schemars(skip)]
    pub other: Other,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ContainerPatch {
    #[serde(default)]
    pub name: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub env: Vec<EnvVar>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub volume_mounts: Vec<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub security_context: Option<Value>,
    #[serde(flatten)]
    #[schemars(skip)]
    pub other: Other,
}

/// `TrainingRuntime` (namespaced) and `ClusterTrainingRuntime` (cluster-scoped): the same type.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TrainingRuntime {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_version: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    #[serde(default)]
    pub metadata: ObjectMeta,
    #[serde(default)]
    pub spec: TrainingRuntimeSpec,
    #[serde(flatten)]
    #[schemars(skip)]
    pub other: Other,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TrainingRuntimeSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ml_policy: Option<MlPolicy>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pod_group_policy: Option<PodGroupPolicy>,
    #[serde(default)]
    pub template: JobSetTemplateSpec,
    #[serde(flatten)]
    #[schemars(skip)]
    pub other: Other,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct JobSetTemplateSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<ObjectMeta>,
    #[serde(default)]
    pub spec: JobSetSpec,
    #[serde(flatten)]
    #[schemars(skip)]
    pub other: Other,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct MlPolicy {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub num_nodes: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub torch: Option<TorchPolicy>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mpi: Option<MpiPolicy>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flux: Option<FluxPolicy>,
    /// No fields.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jax: Option<Other>,
    /// No fields.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub xgboost: Option<Other>,
    #[serde(flatten)]
    #[schemars(skip)]
    pub other: Other,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TorchPolicy {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub env_injection: Option<EnvInjection>,
    #[serde(flatten)]
    #[schemars(skip)]
    pub other: Other,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct EnvInjection {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub targets: Vec<EnvInjectionTarget>,
    #[serde(flatten)]
    #[schemars(skip)]
    pub other: Other,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct EnvInjectionTarget {
    #[serde(default)]
    pub job_name: String,
    #[serde(default)]
    pub container_names: Vec<String>,
    #[serde(flatten)]
    #[schemars(skip)]
    pub other: Other,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct MpiPolicy {
    /// Default 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub num_proc_per_node: Option<i32>,
    /// `OpenMPI` (default) or `""`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mpi_implementation: Option<String>,
    /// Default `/root/.ssh`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ssh_auth_mount_path: Option<String>,
    /// Default false.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_launcher_as_node: Option<bool>,
    #[serde(flatten)]
    #[schemars(skip)]
    pub other: Other,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FluxPolicy {
    /// Default 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub num_proc_per_node: Option<i32>,
    #[serde(flatten)]
    #[schemars(skip)]
    pub other: Other,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PodGroupPolicy {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub coscheduling: Option<CoschedulingPolicy>,
    /// `networkTopology` (`mode`, `highestTierAllowed`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub volcano: Option<Value>,
    #[serde(flatten)]
    #[schemars(skip)]
    pub other: Other,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CoschedulingPolicy {
    /// Default 60.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schedule_timeout_seconds: Option<i32>,
    #[serde(flatten)]
    #[schemars(skip)]
    pub other: Other,
}
