//! The data of lost nodes, apart from what the controllers do with it (node.rs): the scenario's
//! `nodeLoss` with upstream's defaults, what has happened around each lost node, and a Pod's
//! tolerations after the DefaultTolerationSeconds admission plugin. The engine's state holds
//! these, so they sit below both the engine and node.rs.

use crate::diag::Diagnostic;
use crate::simulate::scenario::NodeLoss;
use serde_json::Value;

/// What the DefaultTolerationSeconds admission plugin gives every Pod for the not-ready and
/// unreachable taints.
const DEFAULT_TOLERATION_SECONDS: i64 = 300;

pub(super) const UNREACHABLE: &str = "node.kubernetes.io/unreachable";
pub(super) const OUT_OF_SERVICE: &str = "node.kubernetes.io/out-of-service";
const NOT_READY: &str = "node.kubernetes.io/not-ready";

/// The scenario's `nodeLoss`, with upstream's defaults for what it leaves out.
#[derive(Debug, Clone)]
pub(in crate::simulate) struct NodeLossConfig {
    pub(super) grace_ms: u64,
    pub(super) period_ms: u64,
    pub(super) deleted_after_ms: Option<u64>,
    pub(super) out_of_service_after_ms: Option<u64>,
    pub(super) instant: bool,
}

impl NodeLossConfig {
    pub(in crate::simulate) fn new(nl: Option<&NodeLoss>, minor: u32) -> Result<Self, Diagnostic> {
        let field =
            |name: &str, v: Option<f64>, positive: bool| -> Result<Option<u64>, Diagnostic> {
                let Some(v) = v else { return Ok(None) };
                match crate::simulate::scenario::secs_to_ms(v) {
                    Some(ms) if !positive || ms > 0 => Ok(Some(ms)),
                    _ => Err(Diagnostic::request(
                        "invalid-input",
                        &format!("nodeLoss.{name}"),
                        format!(
                            "nodeLoss.{name}: {v} is not a {}number of seconds",
                            if positive { "positive " } else { "" }
                        ),
                    )),
                }
            };
        let nl = nl.cloned().unwrap_or_default();
        let deleted_after_ms = field(
            "nodeDeletedAfterSeconds",
            nl.node_deleted_after_seconds,
            false,
        )?;
        let out_of_service_after_ms = field(
            "outOfServiceAfterSeconds",
            nl.out_of_service_after_seconds,
            false,
        )?;
        if nl.idealised_instant_failure
            && (deleted_after_ms.is_some()
                || out_of_service_after_ms.is_some()
                || nl.node_monitor_grace_period_seconds.is_some()
                || nl.node_monitor_period_seconds.is_some())
        {
            return Err(Diagnostic::request(
                "invalid-input",
                "nodeLoss.idealisedInstantFailure",
                "nodeLoss.idealisedInstantFailure leaves out the node's path: no other nodeLoss \
                 setting applies with it",
            ));
        }
        if deleted_after_ms.is_some() && out_of_service_after_ms.is_some() {
            return Err(Diagnostic::request(
                "not-modelled",
                "nodeLoss.outOfServiceAfterSeconds",
                "nodeLoss: nodeDeletedAfterSeconds and outOfServiceAfterSeconds together are not \
                 modelled; give one of them",
            ));
        }
        Ok(NodeLossConfig {
            // kube-controller-manager's default grace period: 40 s up to 1.31, 50 s from 1.32
            // (pkg/controller/nodelifecycle/config/v1alpha1/defaults.go).
            grace_ms: field(
                "nodeMonitorGracePeriodSeconds",
                nl.node_monitor_grace_period_seconds,
                true,
            )?
            .unwrap_or(if crate::versions::Change::NodeMonitorGrace50s.at(minor) {
                50_000
            } else {
                40_000
            }),
            period_ms: field(
                "nodeMonitorPeriodSeconds",
                nl.node_monitor_period_seconds,
                true,
            )?
            .unwrap_or(5_000),
            deleted_after_ms,
            out_of_service_after_ms,
            instant: nl.idealised_instant_failure,
        })
    }
}

/// What has happened around the lost node of a Pod (each Pod runs on a node of its own).
#[derive(Debug, Clone, Default)]
pub(super) struct LostNode {
    pub lost_ms: u64,
    /// Which loss this is (its Pod's creation number): the node events name it, and they go on
    /// when the Pod has gone (the node is still there, still lost).
    pub(super) id: u32,
    pub(super) not_ready: bool,
    /// The NoExecute taints on the node, in the order they came.
    pub(super) taints: Vec<&'static str>,
    /// The taint eviction scheduled for the Pod: (created, due).
    pub(super) eviction: Option<(u64, u64)>,
    pub(super) evicted: bool,
    /// When the Pod was deleted (taint eviction, its controller).
    pub(super) deleted_at: Option<u64>,
    /// When the Node object was deleted.
    pub(super) node_deleted: Option<u64>,
}

/// A Pod's toleration, as the taint manager matches it against a NoExecute taint (no value).
#[derive(Debug, Clone, PartialEq)]
pub(in crate::simulate) struct Toleration {
    pub(super) key: String,
    pub(super) exists: bool,
    pub(super) value: String,
    pub(super) effect: String,
    pub(super) seconds: Option<i64>,
}

impl Toleration {
    /// upstream's ToleratesTaint for a NoExecute taint with key `key` and no value.
    pub(super) fn tolerates(&self, key: &str) -> bool {
        (self.effect.is_empty() || self.effect == "NoExecute")
            && (self.key.is_empty() || self.key == key)
            && (self.exists || self.value.is_empty())
    }
}

/// The Pod template's tolerations after the DefaultTolerationSeconds admission plugin (which
/// adds not-ready and unreachable, 300 s, unless the Pod tolerates that taint's key with effect
/// NoExecute already). Entries that do not parse are left out, as the API server would have
/// refused them (`validate` reports them).
pub(in crate::simulate) fn tolerations_of(spec: &crate::api::PodSpec) -> Vec<Toleration> {
    let mut out: Vec<Toleration> = spec
        .other
        .get("tolerations")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|t| {
            let s = |k: &str| t.get(k).and_then(Value::as_str).unwrap_or("").to_owned();
            Some(Toleration {
                key: s("key"),
                exists: t.get("operator").and_then(Value::as_str) == Some("Exists"),
                value: s("value"),
                effect: s("effect"),
                seconds: match t.get("tolerationSeconds") {
                    None | Some(Value::Null) => None,
                    Some(v) => Some(v.as_i64()?),
                },
            })
        })
        .collect();
    for key in [NOT_READY, UNREACHABLE] {
        // The plugin's own test: a toleration with this key (or an empty key) and effect
        // NoExecute (or empty); it looks at the key and effect only.
        let has = out.iter().any(|t| {
            (t.effect.is_empty() || t.effect == "NoExecute") && (t.key == key || t.key.is_empty())
        });
        if !has {
            out.push(Toleration {
                key: key.to_owned(),
                exists: true,
                value: String::new(),
                effect: "NoExecute".to_owned(),
                seconds: Some(DEFAULT_TOLERATION_SECONDS),
            });
        }
    }
    out
}
