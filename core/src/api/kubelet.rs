use super::Other;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// `kubelet.config.k8s.io/v1beta1` KubeletConfiguration, the restart-related part.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct KubeletConfiguration {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_version: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub feature_gates: Option<BTreeMap<String, bool>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub crash_loop_back_off: Option<CrashLoopBackOffConfig>,
    #[serde(flatten)]
    #[schemars(skip)]
    pub other: Other,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CrashLoopBackOffConfig {
    /// A Go duration string such as `"30s"` or `"1m30s"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_container_restart_period: Option<String>,
    #[serde(flatten)]
    #[schemars(skip)]
    pub other: Other,
}
