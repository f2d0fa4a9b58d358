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

/// The `component` values, as the derived decoder names them in its errors.
const COMPONENTS: &[&str] = &["kubelet", "job-controller"];

/// Decodes the `backoff` op's input: `component` picks the variant and the other members are
/// that variant's input, as the derived (internally tagged) decoder reads them, with the same
/// error messages. Not the derived decoder itself: it buffers the input into serde's `Content`
/// and decodes the variant from that, a second copy of the decoding code of every type below it
/// (Pod, KubeletConfiguration, ...) in the wasm module, and an error below `component` lost its
/// path there (`input` instead of `input.kubeletConfig.featureGates.X`); here the variant is
/// decoded by the contract's path-tracking decoder like every other op's input.
pub fn decode_input(input: serde_json::Value) -> Result<BackoffInput, Diagnostic> {
    use serde::de::Error as _;
    let request_error = |field: &str, e: serde_json::Error| {
        Diagnostic::request("invalid-input", field, format!("{field}: {e}"))
    };
    let serde_json::Value::Object(mut members) = input else {
        return Err(request_error(
            "input",
            serde_json::Error::invalid_type(
                crate::decode::unexpected(&input),
                &"internally tagged enum BackoffInput",
            ),
        ));
    };
    let component = match members.remove("component") {
        None => {
            return Err(request_error(
                "input",
                serde_json::Error::missing_field("component"),
            ));
        }
        Some(serde_json::Value::String(name)) => name,
        Some(other) => {
            return Err(request_error(
                "input.component",
                serde_json::Error::invalid_type(
                    crate::decode::unexpected(&other),
                    &"variant identifier",
                ),
            ));
        }
    };
    let rest = serde_json::Value::Object(members);
    let at = crate::FieldPath::new("input");
    match component.as_str() {
        "kubelet" => crate::decode::input_at(&rest, &at).map(BackoffInput::Kubelet),
        "job-controller" => crate::decode::input_at(&rest, &at).map(BackoffInput::JobController),
        _ => Err(request_error(
            "input.component",
            serde_json::Error::unknown_variant(&component, COMPONENTS),
        )),
    }
}

pub fn run(input: BackoffInput) -> Result<BackoffOutput, Diagnostic> {
    match input {
        BackoffInput::Kubelet(i) => kubelet::run(i).map(BackoffOutput::Kubelet),
        BackoffInput::JobController(i) => job::run(*i).map(BackoffOutput::JobController),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]
    use super::*;
    use serde_json::json;

    /// `decode_input`'s error as (field, message).
    fn error_of(input: serde_json::Value) -> (String, String) {
        match decode_input(input) {
            Ok(i) => panic!("decoded: {i:?}"),
            Err(d) => (d.field, d.message),
        }
    }

    #[test]
    fn component_picks_the_variant_as_the_derived_decoder_does() {
        let kubelet = json!({"restarts": 3, "component": "kubelet", "kubeletConfig": {"apiVersion": "kubelet.config.k8s.io/v1beta1"}});
        let (BackoffInput::Kubelet(ours), Ok(BackoffInput::Kubelet(derived))) = (
            decode_input(kubelet.clone()).unwrap(),
            BackoffInput::deserialize(&kubelet),
        ) else {
            panic!("not the kubelet variant");
        };
        assert_eq!(format!("{ours:?}"), format!("{derived:?}"));
        let job = json!({"component": "job-controller", "function": "getRemainingTime", "failuresAfterLastSuccess": 2});
        let (BackoffInput::JobController(ours), Ok(BackoffInput::JobController(derived))) = (
            decode_input(job.clone()).unwrap(),
            BackoffInput::deserialize(&job),
        ) else {
            panic!("not the job-controller variant");
        };
        assert_eq!(format!("{ours:?}"), format!("{derived:?}"));
    }

    #[test]
    fn errors_about_component_read_as_the_derived_decoders() {
        for bad in [
            json!(5),
            json!({}),
            json!({"component": 5}),
            json!({"component": null}),
            json!({"component": "nope"}),
        ] {
            let derived = BackoffInput::deserialize(&bad).unwrap_err().to_string();
            let (_, message) = error_of(bad.clone());
            assert!(message.ends_with(&derived), "{bad}: {message} / {derived}");
        }
        assert_eq!(error_of(json!({})).0, "input");
        assert_eq!(
            error_of(json!({"component": "nope"})),
            (
                "input.component".to_owned(),
                "input.component: unknown variant `nope`, expected `kubelet` or `job-controller`"
                    .to_owned()
            )
        );
    }

    #[test]
    fn an_error_below_component_names_its_field() {
        assert_eq!(
            error_of(json!({"component": "kubelet", "restarts": "x"})),
            (
                "input.restarts".to_owned(),
                "input.restarts: invalid type: string \"x\", expected u32".to_owned()
            )
        );
        assert_eq!(
            error_of(
                json!({"component": "kubelet", "kubeletConfig": {"featureGates": {"A": "x"}}})
            )
            .0,
            "input.kubeletConfig.featureGates.A"
        );
        assert_eq!(
            error_of(json!({"component": "job-controller", "function": "f", "lastFailedPod": {"spec": {"containers": [{"name": 5}]}}})).0,
            "input.lastFailedPod.spec.containers[0].name"
        );
        // The variants refuse unknown members; `component` itself is not one of them.
        assert_eq!(
            error_of(json!({"component": "kubelet", "bogus": 1})).0,
            "input.bogus"
        );
    }
}
