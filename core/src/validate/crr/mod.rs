//! OpenKruise ContainerRecreateRequest admission: the mutating webhook
//! (`pkg/webhook/containerrecreaterequest/mutating/crr_mutating_handler.go`), which also rejects
//! (one error at a time, an HTTP code and a message), then, on CREATE, the v1beta1 CRD schema
//! checks the API server applies after mutation.
//!
//! The webhook decodes the object into Go structs, so its notion of equality and its output
//! follow Go's `encoding/json`: unknown fields vanish, a missing non-pointer field reads as its zero
//! value, `omitempty` fields at their zero value are not written back. [`GoSpec`] models that.
//!
//! The files follow what they model: `go_json.rs` (the Go view of the spec, as
//! `encoding/json` decodes it), `webhook.rs` (the mutating handler's CREATE checks and the
//! v1beta1 schema checks after it), `op.rs` (the crrValidate op: a request with its Pod and Node,
//! CREATE or UPDATE), `manifest.rs` (a CRR in a manifest file, without its Pod).

mod go_json;
mod manifest;
mod op;
mod webhook;

pub use go_json::{DecodeError, GoContainer, GoProbe, GoSpec, GoStrategy};
pub use manifest::{lint, validate_crr_manifest};
pub use op::{CrrValidateInput, CrrValidateOutput, run, update_check};
pub use webhook::{
    ANNOTATION_UNREADY_ACQUIRED, LABEL_ACTIVE, LABEL_NODE_NAME, LABEL_POD_UID, Rejection,
    SIDECAR_TERMINATED, VIRTUAL_KUBELET_LABEL_KEY, VIRTUAL_KUBELET_LABEL_VALUE,
    create_checks_before_pod, create_checks_with_pod, v1beta1_schema_errors,
};

#[cfg(test)]
mod tests;
