//! KubeletConfiguration validation (crashLoopBackOff).
//! PLACEHOLDER: to be implemented.
use super::Ctx;
use crate::api::KubeletConfiguration;
use crate::diag::Findings;

pub fn default_kubelet_config(_cfg: &mut KubeletConfiguration, _ctx: &Ctx) {}
pub fn validate_kubelet_config(_cfg: &KubeletConfiguration, _ctx: &Ctx, _out: &mut Findings) {}
