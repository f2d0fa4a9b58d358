//! What happens to running Pods from outside: stochastic faults (container exits, OOM kills,
//! node failures, preemptions and evictions), OpenKruise ContainerRecreateRequests, and the GPU time lost to them.

use super::*;
use crate::simulate::scenario::Disruption;

impl Engine<'_> {
    pub(super) fn schedule_fault(&mut self, p: usize, fi: usize, t: u64) {
        let Some(f) = self.sc.faults.get(fi) else {
            return;
        };
        if f.rate_per_hour.is_nan() || f.rate_per_hour <= 0.0 {
            return;
        }
        let rate = f.rate_per_hour;
        let sel = f.selector();
        let (rj, ji, pi) = self.pod_identity(p);
        if !matches(&sel, rj, ji, pi, None) {
            return;
        }
        let epoch = self.pods.get(p).map(|x| x.epoch).unwrap_or(0);
        let u = self.uniform();
        let wait_ms = (-u.ln() / rate * 3_600_000.0).min(1e15) as u64;
        self.schedule(
            t.saturating_add(wait_ms.max(1)),
            Ev::Fault {
                pod: p,
                fault: fi,
                pgen: epoch,
            },
        );
    }

    /// Adds the wait of `slots` Pod slots from `from` until `until` (capped at the run's end)
    /// to the time lost.
    pub(super) fn lose(&mut self, slots: u32, from: u64, until: u64) {
        let ms = until.min(self.end_ms).saturating_sub(from);
        self.lost_ms += u64::from(slots) * ms;
    }

    pub(super) fn on_fault(&mut self, p: usize, fi: usize, pgen: u32) -> Result<(), Diagnostic> {
        let now = self.now;
        let alive = self.pods.get(p).is_some_and(|x| x.alive && x.epoch == pgen);
        if !alive {
            return Ok(());
        }
        // Faults are the hottest event: nothing is cloned or collected here.
        let Some(kind) = self.sc.faults.get(fi).map(|f| f.kind) else {
            return Ok(());
        };
        self.summary.faults += 1;
        match kind {
            FaultKind::NodeFailure => self.node_lost(p)?,
            FaultKind::Preemption => self.on_disrupt(p, pgen, Disruption::PreemptionByScheduler),
            FaultKind::Eviction => self.on_disrupt(p, pgen, Disruption::EvictionByEvictionAPI),
            FaultKind::ContainerExit | FaultKind::OomKill => {
                let count = self.fault_targets(p, fi).count();
                if count > 0 {
                    let pick = (self.next_u64() % count as u64) as usize;
                    let (c, cgen) = self.fault_targets(p, fi).nth(pick).unwrap_or((0, 0));
                    let codes = self.sc.faults.get(fi).map_or(0, |f| f.exit_codes.len());
                    let (code, reason) = if kind == FaultKind::OomKill {
                        (137, 2)
                    } else if codes == 0 {
                        (1, 0)
                    } else {
                        let k = (self.next_u64() % codes as u64) as usize;
                        (
                            self.sc
                                .faults
                                .get(fi)
                                .and_then(|f| f.exit_codes.get(k))
                                .copied()
                                .unwrap_or(1),
                            0,
                        )
                    };
                    self.on_exit(p, c, cgen, code, reason)?;
                }
                if self.pods.get(p).is_some_and(|x| x.alive && x.epoch == pgen) {
                    self.schedule_fault(p, fi, now);
                }
            }
        }
        Ok(())
    }

    /// The running containers of Pod `p` that fault `fi` may hit, as (index, container epoch):
    /// the named container, or any regular one.
    pub(super) fn fault_targets(
        &self,
        p: usize,
        fi: usize,
    ) -> impl Iterator<Item = (usize, u32)> + '_ {
        let want = self.sc.faults.get(fi).and_then(|f| f.container.as_deref());
        let pod = self.pods.get(p);
        let tmpl = pod.and_then(|x| self.templates.get(x.tmpl));
        pod.into_iter()
            .flat_map(|pod| pod.containers.iter().enumerate())
            .filter_map(move |(i, ct)| {
                let hit = ct.running
                    && match want {
                        Some(want) => {
                            tmpl.and_then(|t| t.names.get(i)).map(String::as_str) == Some(want)
                        }
                        None => tmpl.and_then(|t| t.kinds.get(i)) == Some(&Kind::Regular),
                    };
                hit.then_some((i, ct.epoch))
            })
    }

    pub(super) fn on_crr(&mut self, ai: usize) -> Result<(), Diagnostic> {
        let Some(a) = self.sc.container_recreate_requests.get(ai).cloned() else {
            return Ok(());
        };
        let mut targets: Vec<usize> = (0..self.pods.len())
            .filter(|p| self.pods.get(*p).is_some_and(|x| x.alive))
            .filter(|p| {
                let (rj, ji, pi) = self.pod_identity(*p);
                matches(&a.selector(), rj, ji, pi, None)
            })
            .collect();
        targets.sort_unstable_by_key(|&p| self.pods.get(p).map_or(0, |x| x.created));
        for p in targets {
            self.record(
                Obj::Pod(p),
                None,
                "ContainerRecreateRequest",
                "Recreating",
                || Some(format!("recreate {}", a.containers.join(", "))),
            );
            self.summary.crr_recreations += 1;
            for name in &a.containers {
                let tmpl = self.pods.get(p).map(|x| x.tmpl).unwrap_or(0);
                let Some(c) = self
                    .templates
                    .get(tmpl)
                    .and_then(|t| t.names.iter().position(|n| n == name))
                else {
                    continue;
                };
                let Some((running, cgen)) = self
                    .pods
                    .get(p)
                    .and_then(|x| x.containers.get(c))
                    .map(|ct| (ct.running, ct.epoch))
                else {
                    continue;
                };
                if running {
                    // kruise-daemon stops the container; the kubelet restarts it as it would any exit.
                    self.on_exit(p, c, cgen, 137, 3)?;
                }
            }
        }
        Ok(())
    }
}
