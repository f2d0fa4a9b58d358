//! Backoff curves: the kubelet's CrashLoopBackOff and the Job controller's pod-failure backoff.

pub mod compare;
pub mod job;
pub mod kubelet;

use crate::diag::Diagnostic;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// `backoff` op input, chosen by `component`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(tag = "component")]
pub enum BackoffInput {
    #[serde(rename = "kubelet")]
    Kubelet(kubelet::KubeletBackoffInput),
    #[serde(rename = "job-controller")]
    JobController(Box<job::JobBackoffInput>),
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum BackoffOutput {
    Kubelet(kubelet::KubeletBackoffOutput),
    JobController(job::JobBackoffOutput),
}

pub fn run(input: BackoffInput) -> Result<BackoffOutput, Diagnostic> {
    match input {
        BackoffInput::Kubelet(i) => kubelet::run(i).map(BackoffOutput::Kubelet),
        BackoffInput::JobController(i) => job::run(*i).map(BackoffOutput::JobController),
    }
}
