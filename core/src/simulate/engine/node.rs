//! A lost node as the cluster handles it. When a Pod's node is lost its kubelet stops: nothing
//! the kubelet would do for the Pod happens any more. Then, as kube-controller-manager does:
//! - the node lifecycle controller (pkg/controller/nodelifecycle) marks the node's Ready
//!   condition Unknown once its Lease is older than --node-monitor-grace-period, marks its Pods
//!   not ready, and taints it `node.kubernetes.io/unreachable:NoExecute` (rate limited per zone);
//! - taint eviction (pkg/controller/tainteviction) deletes each Pod once its toleration of the
//!   taint runs out (300 s by the DefaultTolerationSeconds admission plugin), with the
//!   DisruptionTarget condition; the Pod stays Terminating, as no kubelet finishes it;
//! - the Pod garbage collector (pkg/controller/podgc) fails the Pods of a deleted Node, and the
//!   terminating Pods of a Node tainted out-of-service.
//!
//! The controllers' periodic loops run on fixed grids from the run's start (Lease renewals every
//! 10 s, the node monitor every --node-monitor-period, Pod GC every 20 s); the oracle's timeline
//! leg drives the real controllers on the same grids (docs/oracle.md).

use super::node_state::{LostNode, OUT_OF_SERVICE, Toleration, UNREACHABLE};
use super::*;
use crate::versions::Change;

/// The kubelet renews its Lease every 10 s (leaseDurationSeconds 40 × 0.25).
const LEASE_RENEW_MS: u64 = 10_000;
/// Pod GC's pass period (gcCheckPeriod) and its quarantine of a Node that looks deleted.
const POD_GC_PERIOD_MS: u64 = 20_000;
const POD_GC_QUARANTINE_MS: u64 = 40_000;
/// The NoExecute taint queue of a zone: --node-eviction-rate 0.1 nodes per second, burst 1,
/// drained by a pass every 100 ms.
const TAINT_INTERVAL_MS: u64 = 10_000;
const TAINT_PASS_MS: u64 = 100;
/// How long after the taints `taints` came the taint manager deletes a Pod with `tols`: Some(0)
/// at once (a taint it does not tolerate), None never (a toleration without tolerationSeconds),
/// else the smallest tolerationSeconds of the tolerations used (upstream's
/// GetMatchingTolerations, the first toleration that tolerates each taint, and
/// getMinTolerationTime).
fn eviction_delay(tols: &[Toleration], taints: &[&str]) -> Option<u64> {
    let mut min: Option<i64> = None;
    for taint in taints {
        let Some(t) = tols.iter().find(|t| t.tolerates(taint)) else {
            return Some(0);
        };
        if let Some(s) = t.seconds {
            if s <= 0 {
                return Some(0);
            }
            min = Some(min.map_or(s, |m| m.min(s)));
        }
    }
    min.map(|s| s as u64 * 1000)
}

/// The first instant of a grid of `period` from time 0 at or after `t`.
fn grid_at_or_after(t: u64, period: u64) -> u64 {
    t.div_ceil(period.max(1)) * period.max(1)
}

impl Engine<'_> {
    /// The kubelet of Pod `p`'s node is gone: what it would do for the Pod does not happen.
    pub(super) fn kubelet_gone(&self, p: usize) -> bool {
        self.pods.get(p).is_some_and(|x| x.node.is_some())
    }

    /// Pod `p`'s node is lost now.
    pub(super) fn node_lost(&mut self, p: usize) -> Result<(), Diagnostic> {
        let now = self.now;
        if self.node_loss.instant {
            return self.instant_pod_failure(p);
        }
        let Some(pod) = self.pods.get_mut(p) else {
            return Ok(());
        };
        if !pod.alive || pod.node.is_some() {
            return Ok(());
        }
        let pgen = pod.created as u32;
        pod.node = Some(Box::new(LostNode {
            lost_ms: now,
            id: pgen,
            ..LostNode::default()
        }));
        self.summary.nodes_lost += 1;
        self.set_working(p, false);
        self.record(Obj::Pod(p), None, "NodeLost", "NodeLost", || {
            Some("the node's kubelet stopped (lost node)".into())
        });
        // The last Lease renewal, the monitor tick that saw it, and the first tick after the
        // grace period (strictly after: `now.After(probeTimestamp + gracePeriod)`).
        let cfg = &self.node_loss;
        let renewed = now / LEASE_RENEW_MS * LEASE_RENEW_MS;
        let probe = grid_at_or_after(renewed, cfg.period_ms);
        let not_ready_at = grid_at_or_after(probe + cfg.grace_ms + 1, cfg.period_ms);
        let (deleted, oos) = (cfg.deleted_after_ms, cfg.out_of_service_after_ms);
        self.schedule(not_ready_at, Ev::NodeNotReady { pod: p, pgen });
        if let Some(d) = deleted {
            self.schedule(now + d, Ev::NodeDeleted { pod: p, pgen });
        }
        if let Some(d) = oos {
            self.schedule(now + d, Ev::OutOfService { pod: p, pgen });
        }
        Ok(())
    }

    /// `nodeLoss.idealisedInstantFailure`: the Pod fails now, with DisruptionTarget and every
    /// container ended with 137.
    fn instant_pod_failure(&mut self, p: usize) -> Result<(), Diagnostic> {
        self.summary.nodes_lost += 1;
        self.record(Obj::Pod(p), None, "NodeFailure", "DisruptionTarget", || {
            Some("the node failed; the Pod is deleted (nodeLoss.idealisedInstantFailure)".into())
        });
        if let Some(pod) = self.pods.get_mut(p) {
            pod.conditions.push("DisruptionTarget");
            for ct in pod.containers.iter_mut() {
                if ct.running || ct.pending_start {
                    ct.last_exit = Some(137);
                    ct.running = false;
                    ct.pending_start = false;
                }
            }
        }
        self.pod_terminal(p, "Failed", Some("DisruptionTarget"))
    }

    /// When Pod `p` finished, as the Job controller reads it when it counts the Pod
    /// (getFinishedTime): a Pod on a lost node, or one deleted while a container still runs,
    /// has not every container terminated, so it is when its Ready condition turned False,
    /// else its deletion (deletionTimestamp − grace period: the instant it was deleted, or Pod
    /// GC's forced delete).
    pub(super) fn finish_ms(&self, p: usize) -> u64 {
        let now = self.now;
        let Some(pod) = self.pods.get(p) else {
            return now;
        };
        let unready = pod.unready_since.filter(|&t| t <= now);
        match pod.node.as_deref() {
            Some(n) => unready.or(n.deleted_at).unwrap_or(pod.finished_ms),
            // Deleted and not yet ended by the kubelet (delete_pod set finished_ms then).
            None if pod.alive && pod.deleting => unready.unwrap_or(pod.finished_ms),
            None => pod.finished_ms,
        }
    }

    pub(super) fn node_event_is_stale(&self, ev: Ev) -> bool {
        match ev {
            Ev::NodeNotReady { pod, pgen }
            | Ev::Evict { pod, pgen }
            | Ev::NodeDeleted { pod, pgen }
            | Ev::OutOfService { pod, pgen }
            | Ev::PodGc { pod, pgen } => match self.node_of(pod, pgen) {
                None => true,
                // A node whose Pod has gone matters while the Pod's Job runs (its taint turn),
                // and in a JobSet while the JobSet runs (the run stops with it): the node is
                // still there, and still lost, when its Job has failed or gone.
                Some(_) => {
                    self.jobset.is_none()
                        && self.pods.get(pod).is_some_and(|x| {
                            !x.alive
                                && x.job
                                    .and_then(|j| self.jobs.get(j))
                                    .is_none_or(|j| j.phase != "Running")
                        })
                }
            },
            _ => false,
        }
    }

    /// The lost node `id` of Pod `p`, while the Pod is there.
    fn lost(&self, p: usize, id: u32) -> Option<&LostNode> {
        self.pods
            .get(p)
            .filter(|x| x.alive)
            .and_then(|x| x.node.as_deref())
            .filter(|n| n.id == id)
    }

    /// The lost node `id` of Pod `p`, also when the Pod has gone since.
    fn node_of(&self, p: usize, id: u32) -> Option<&LostNode> {
        self.pods
            .get(p)
            .and_then(|x| x.node.as_deref())
            .filter(|n| n.id == id)
    }

    /// The node lifecycle controller's monitor finds the node's Lease too old: Ready is
    /// Unknown, the node's Pods are marked not ready, and the node is queued for the
    /// unreachable NoExecute taint.
    pub(super) fn on_node_not_ready(&mut self, p: usize, pgen: u32) {
        let now = self.now;
        // A Node deleted before this pass is not listed: it never goes Unknown.
        if self
            .node_of(p, pgen)
            .is_none_or(|n| n.node_deleted.is_some())
        {
            return;
        }
        let alive = self.pods.get(p).is_some_and(|x| x.alive);
        self.record(
            Obj::Pod(p),
            None,
            "NodeNotReady",
            "NodeStatusUnknown",
            || Some("Kubelet stopped posting node status.".into()),
        );
        let was_ready = alive && self.pods.get(p).is_some_and(|x| self.pod_ready(x));
        let mut terminating = false;
        if let Some(pod) = self.pods.get_mut(p) {
            if let Some(n) = pod.node.as_deref_mut() {
                n.not_ready = true;
            }
            if alive && (was_ready || pod.unready_since.is_none()) {
                pod.unready_since = Some(now);
            }
            terminating = alive && pod.deleting;
        }
        if was_ready && let Some(j) = self.pods.get(p).and_then(|x| x.job) {
            self.pod_status_changed(j);
        }
        // The node joins the zone's NoExecute taint queue: at this pass from 1.34; up to 1.33
        // at the next one, as monitorNodeHealth hands processTaintBaseEviction the Ready
        // condition from before the pass (node_lifecycle_controller.go, 1.33.13:737).
        let queued_at = if !Change::TaintQueueSamePass.at(self.decider.minor()) {
            now + self.node_loss.period_ms
        } else {
            now
        };
        let (created, lost_ms) = self.pods.get(p).map_or((0, now), |x| {
            (x.created, x.node.as_deref().map_or(now, |n| n.lost_ms))
        });
        self.taint_waiting
            .push((queued_at, lost_ms, created, p, pgen));
        self.schedule(queued_at, Ev::TaintPass);
        if terminating && self.has_taint(p, OUT_OF_SERVICE) {
            self.schedule_pod_gc(p, pgen);
        }
    }

    fn has_taint(&self, p: usize, key: &str) -> bool {
        self.pods
            .get(p)
            .and_then(|x| x.node.as_deref())
            .is_some_and(|n| n.taints.contains(&key))
    }

    /// A NoExecute taint `key` comes on Pod `p`'s node: taint eviction looks at the Pod again.
    fn add_taint(&mut self, p: usize, pgen: u32, key: &'static str) {
        let now = self.now;
        self.record(Obj::Pod(p), None, "Tainted", key, || None);
        let tols = self
            .pods
            .get(p)
            .and_then(|x| self.templates.get(x.tmpl))
            .map(|t| t.tolerations.clone())
            .unwrap_or_default();
        let alive = self.pods.get(p).is_some_and(|x| x.alive);
        let Some(node) = self.pods.get_mut(p).and_then(|x| x.node.as_deref_mut()) else {
            return;
        };
        node.taints.push(key);
        if node.evicted || !alive {
            return;
        }
        match eviction_delay(&tols, &node.taints) {
            None => node.eviction = None,
            Some(0) => node.eviction = Some((now, now)),
            // An eviction already scheduled earlier stands (upstream's processPodOnNode keeps
            // the work created earlier when all taints are still tolerated).
            Some(_) if node.eviction.is_some_and(|(created, _)| created < now) => {}
            Some(d) => node.eviction = Some((now, now + d)),
        }
        if let Some((_, due)) = node.eviction {
            self.schedule(due, Ev::Evict { pod: p, pgen });
        }
    }

    /// The NoExecute tainting pass: the zone's queue lets one node through per token (one every
    /// 10 s, burst 1). Upstream takes the waiting nodes in the order its pass lists them (any
    /// order); here, and in the oracle's harness, in the order they went Unknown, then in the
    /// order they were lost. A node deleted before it was queued never was; one deleted while it
    /// waits still spends a token (the pass takes it before it looks the node up) and is not
    /// tainted.
    pub(super) fn on_taint_pass(&mut self) {
        let now = self.now;
        loop {
            if let Some(t) = self.last_taint_ms
                && now < t + TAINT_INTERVAL_MS
            {
                if self.taint_waiting.iter().any(|w| w.0 <= now) {
                    let next = grid_at_or_after(t + TAINT_INTERVAL_MS, TAINT_PASS_MS);
                    self.schedule(next, Ev::TaintPass);
                }
                return;
            }
            let Some(i) = (0..self.taint_waiting.len())
                .filter(|&i| self.taint_waiting.get(i).is_some_and(|w| w.0 <= now))
                .min_by_key(|&i| self.taint_waiting.get(i).map(|w| (w.0, w.1, w.2)))
            else {
                return;
            };
            let (queued_at, _, _, p, pgen) = self.taint_waiting.swap_remove(i);
            // The node, also when its Pod has gone since: it is still there and still lost.
            let node = self.node_of(p, pgen);
            let exists = node.is_some();
            let deleted = node.and_then(|n| n.node_deleted);
            if deleted.is_some_and(|d| d <= queued_at) {
                continue;
            }
            self.last_taint_ms = Some(now);
            if deleted.is_some() || !exists {
                continue;
            }
            self.add_taint(p, pgen, UNREACHABLE);
        }
    }

    /// The Node is tainted out-of-service (by an operator): a NoExecute taint too.
    pub(super) fn on_out_of_service(&mut self, p: usize, pgen: u32) {
        if self.node_of(p, pgen).is_none() {
            return;
        }
        self.add_taint(p, pgen, OUT_OF_SERVICE);
        let ready_to_gc = self.lost(p, pgen).is_some_and(|n| n.not_ready)
            && self.pods.get(p).is_some_and(|x| x.deleting);
        if ready_to_gc {
            self.schedule_pod_gc(p, pgen);
        }
    }

    /// Taint eviction's work for Pod `p` is due: DisruptionTarget (DeletionByTaintManager) and
    /// a graceful delete, which nobody finishes while the node is gone.
    pub(super) fn on_evict(&mut self, p: usize, pgen: u32) {
        let now = self.now;
        let due = self
            .lost(p, pgen)
            .and_then(|n| (!n.evicted).then_some(n.eviction).flatten());
        if due.is_none_or(|(_, due)| due != now) {
            return;
        }
        if let Some(n) = self.pods.get_mut(p).and_then(|x| x.node.as_deref_mut()) {
            n.evicted = true;
        }
        self.add_disruption_target(p);
        self.record(
            Obj::Pod(p),
            None,
            "Evicted",
            "DeletionByTaintManager",
            || Some("Taint manager: deleting due to NoExecute taint".into()),
        );
        self.delete_pod(p);
        if let Some(j) = self.pods.get(p).and_then(|x| x.job) {
            self.enqueue_job_sync(j, self.now);
        }
    }

    /// A lost Pod was deleted (by taint eviction or its controller): it is terminating, the
    /// Job controller may count it now (its finish time is when it stopped being ready, as
    /// upstream's getFinishedTime reads it), and Pod GC may fail it on an out-of-service node.
    pub(super) fn lost_pod_deleted(&mut self, p: usize) {
        let Some((lost_ms, pgen)) = self
            .pods
            .get(p)
            .and_then(|x| x.node.as_deref())
            .map(|n| (n.lost_ms, n.id))
        else {
            return;
        };
        // What finish_lost_nodes counts the rest of its wait from.
        let finished = self.finish_ms(p);
        if let Some(pod) = self.pods.get_mut(p) {
            pod.finished_ms = finished;
        }
        self.lose(1, lost_ms, finished);
        if self.lost(p, pgen).is_some_and(|n| n.not_ready) && self.has_taint(p, OUT_OF_SERVICE) {
            self.schedule_pod_gc(p, pgen);
        }
    }

    /// The Node object is deleted: Pod GC's next pass quarantines it, the pass 40 s later
    /// fails its Pods.
    pub(super) fn on_node_deleted(&mut self, p: usize, pgen: u32) {
        if self.node_of(p, pgen).is_none() {
            return;
        }
        self.record(Obj::Pod(p), None, "NodeDeleted", "NodeDeleted", || None);
        let now = self.now;
        if let Some(n) = self.pods.get_mut(p).and_then(|x| x.node.as_deref_mut()) {
            n.node_deleted = Some(now);
        }
        let first_pass = grid_at_or_after(self.now, POD_GC_PERIOD_MS);
        self.schedule(
            first_pass + POD_GC_QUARANTINE_MS,
            Ev::PodGc { pod: p, pgen },
        );
    }

    /// The scheduler preempts Pod `p`, or the Eviction API evicts it, while its node lives:
    /// DisruptionTarget (status patch), then a delete with the Pod's grace period, after which
    /// the kubelet kills what still runs. A Pod already ended or being deleted is left alone
    /// (upstream's preemption and eviction act on live Pods only).
    pub(super) fn on_disrupt(
        &mut self,
        p: usize,
        pgen: u32,
        by: crate::simulate::scenario::Disruption,
    ) {
        let live = self
            .pods
            .get(p)
            .is_some_and(|x| x.alive && x.epoch == pgen && !x.deleting && x.node.is_none());
        if !live {
            return;
        }
        self.add_disruption_target(p);
        let (event, reason, message) = by.condition();
        self.record(Obj::Pod(p), None, event, reason, || Some(message.into()));
        self.delete_pod_by(p, super::job_controller::Deleter::Disruption);
        if let Some(j) = self.pods.get(p).and_then(|x| x.job) {
            self.enqueue_job_sync(j, self.now);
        }
    }

    /// The Pod gets DisruptionTarget=True (taint eviction, Pod GC, preemption, eviction), once.
    fn add_disruption_target(&mut self, p: usize) {
        if let Some(pod) = self.pods.get_mut(p)
            && !pod.conditions.contains(&"DisruptionTarget")
        {
            pod.conditions.push("DisruptionTarget");
        }
    }

    fn schedule_pod_gc(&mut self, p: usize, pgen: u32) {
        let at = grid_at_or_after(self.now, POD_GC_PERIOD_MS);
        self.schedule(at, Ev::PodGc { pod: p, pgen });
    }

    /// A Pod GC pass for Pod `p`: an orphan (its Node is gone) fails with DisruptionTarget
    /// (DeletionByPodGC); a terminating Pod on a not-ready, out-of-service node fails.
    pub(super) fn on_pod_gc(&mut self, p: usize, pgen: u32) -> Result<(), Diagnostic> {
        let Some(n) = self.lost(p, pgen) else {
            return Ok(());
        };
        let orphan = n.node_deleted.is_some();
        let n_lost_ms = n.lost_ms;
        let out_of_service = n.not_ready && n.taints.contains(&OUT_OF_SERVICE);
        let terminating = self.pods.get(p).is_some_and(|x| x.deleting);
        let reason = if orphan {
            self.add_disruption_target(p);
            "DeletionByPodGC"
        } else if out_of_service && terminating {
            "TerminatingOutOfService"
        } else {
            return Ok(());
        };
        let now = self.now;
        // Pod GC deletes it with no grace period: its deletion time is now.
        if let Some(n) = self.pods.get_mut(p).and_then(|x| x.node.as_deref_mut()) {
            n.deleted_at = Some(now);
        }
        // A Pod not deleted before waited from the loss until now (an evicted one's wait until
        // its deletion is counted already); the Job controller reads its finish time with
        // finish_ms.
        if !terminating {
            self.lose(1, n_lost_ms, self.finish_ms(p));
        }
        self.pod_terminal(p, "Failed", Some(reason))?;
        // ... and deletes it (force, no grace period): it goes once the Job controller drops its
        // finalizer, so a later deletion (its Job's, by the garbage collector) finds nothing.
        if let Some(pod) = self.pods.get_mut(p) {
            pod.deleting = true;
        }
        Ok(())
    }

    /// At the end of the run: the Pods on lost nodes that have not failed, and the time their
    /// slots waited since (a Pod the Job controller has counted waits only while nothing
    /// replaced it).
    pub(super) fn finish_lost_nodes(&mut self) {
        let end = self.end_ms.min(self.now);
        let mut stuck = 0;
        let mut waits = Vec::new();
        for pod in self.pods.iter().filter(|x| x.alive && !x.freed) {
            let Some(n) = pod.node.as_deref() else {
                continue;
            };
            stuck += 1;
            let replaced = pod
                .job
                .and_then(|j| self.jobs.get(j))
                .and_then(|j| j.indexes.get(pod.index as usize))
                .is_some_and(|ix| ix.active.is_some() || ix.done);
            if !pod.counted {
                // A deleted Pod's wait until it stopped being ready is counted already.
                let from = if pod.deleting {
                    pod.finished_ms.max(n.lost_ms)
                } else {
                    n.lost_ms
                };
                waits.push((from, end));
            } else if !replaced {
                waits.push((pod.finished_ms.max(n.lost_ms), end));
            }
        }
        self.summary.pods_stuck_on_lost_nodes = stuck;
        for (from, until) in waits {
            self.lose(1, from, until);
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::super::node_state::tolerations_of;
    use super::*;

    fn tol(key: &str, exists: bool, effect: &str, seconds: Option<i64>) -> Toleration {
        Toleration {
            key: key.into(),
            exists,
            value: String::new(),
            effect: effect.into(),
            seconds,
        }
    }

    #[test]
    fn tolerations_get_the_admission_defaults_unless_the_pod_has_its_own() {
        let spec: crate::api::PodSpec = serde_json::from_value(serde_json::json!({
            "containers": [{"name": "c"}],
            "tolerations": [{"key": UNREACHABLE, "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 30}]
        }))
        .unwrap();
        let t = tolerations_of(&spec);
        assert_eq!(t.len(), 2, "{t:?}");
        assert_eq!(eviction_delay(&t, &[UNREACHABLE]), Some(30_000));
        let bare: crate::api::PodSpec =
            serde_json::from_value(serde_json::json!({"containers": [{"name": "c"}]})).unwrap();
        assert_eq!(
            eviction_delay(&tolerations_of(&bare), &[UNREACHABLE]),
            Some(300_000)
        );
        // The out-of-service taint is tolerated by nothing the plugin adds: at once.
        assert_eq!(
            eviction_delay(&tolerations_of(&bare), &[UNREACHABLE, OUT_OF_SERVICE]),
            Some(0)
        );
    }

    #[test]
    fn eviction_delay_follows_the_taint_managers_rules() {
        // A toleration without seconds tolerates forever.
        assert_eq!(
            eviction_delay(&[tol(UNREACHABLE, true, "NoExecute", None)], &[UNREACHABLE]),
            None
        );
        // An empty key with Exists and no effect tolerates every taint.
        assert_eq!(
            eviction_delay(
                &[tol("", true, "", Some(60))],
                &[UNREACHABLE, OUT_OF_SERVICE]
            ),
            Some(60_000)
        );
        // Zero or negative seconds: at once.
        assert_eq!(
            eviction_delay(&[tol(UNREACHABLE, true, "", Some(-5))], &[UNREACHABLE]),
            Some(0)
        );
        // A NoSchedule toleration does not tolerate a NoExecute taint.
        assert_eq!(
            eviction_delay(
                &[tol(UNREACHABLE, true, "NoSchedule", None)],
                &[UNREACHABLE]
            ),
            Some(0)
        );
        // Operator Equal (the default) with a value does not match the valueless taint.
        let mut eq = tol(UNREACHABLE, false, "NoExecute", None);
        eq.value = "x".into();
        assert_eq!(eviction_delay(&[eq], &[UNREACHABLE]), Some(0));
        // The first toleration that tolerates a taint is the one used.
        assert_eq!(
            eviction_delay(
                &[
                    tol(UNREACHABLE, true, "NoExecute", Some(600)),
                    tol("", true, "", Some(10))
                ],
                &[UNREACHABLE]
            ),
            Some(600_000)
        );
    }

    #[test]
    fn grids() {
        assert_eq!(grid_at_or_after(0, 5_000), 0);
        assert_eq!(grid_at_or_after(1, 5_000), 5_000);
        assert_eq!(grid_at_or_after(120_000 + 50_000 + 1, 5_000), 175_000);
    }
}
