//! restartkit: how Kubernetes restarts and fails containers, Pods, Jobs and JobSets, as upstream
//! does it, for a chosen Kubernetes version and feature gates.
//!
//! - [`validate`]: admission as kube-apiserver (and the JobSet and OpenKruise webhooks) does it.
//! - [`eval`]: what the kubelet, the Job controller and the JobSet controller decide on a failure.
//! - [`backoff`]: the kubelet's CrashLoopBackOff and the Job controller's pod-failure backoff.
//! - [`contract`]: the one JSON request/response contract every front end calls
//!   ([`handle_json`]).
//!
//! The crate is pure: no I/O, no clock, no globals, no randomness.

pub mod action;
pub mod api;
pub mod backoff;
pub mod conformance;
pub mod contract;
pub mod decode;
pub mod diag;
pub mod editor;
pub mod eval;
pub mod explain;
pub mod features;
pub mod gate_names;
pub mod generated;
pub mod go_regexp;
mod go_strconv;
pub mod prepared;
pub mod proposals;
pub mod quantity;
#[cfg(feature = "simulate")]
pub mod simulate;
pub mod source;
#[cfg(feature = "simulate")]
pub mod sweep;
pub mod trainer;
pub mod upgrade;
pub mod validate;
pub mod versions;

pub use contract::{Request, Response, handle, handle_json};
pub use diag::{Diagnostic, ErrorType, FieldPath, Findings, Origin, Severity};
pub use features::{FeatureGates, KubeVersion};

pub use contract::VERSION;
