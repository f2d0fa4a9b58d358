//! The kubelet inside one Pod: init containers in order, sidecars, regular containers; each
//! exit decided by the container's or the Pod's restart policy (and KEP-5307's rules), restarts
//! delayed by the CrashLoopBackOff curve, and the whole-Pod restarts of the AlwaysPod proposal.

use super::*;

impl Engine<'_> {
    /// Starts init containers in order (sidecars keep running), then the regular containers.
    pub(super) fn start_pod_sequence(&mut self, p: usize, t: u64) {
        let first = self
            .templates
            .get(self.pods.get(p).map(|x| x.tmpl).unwrap_or(0))
            .map(|tm| tm.kinds.iter().position(|k| *k != Kind::Regular));
        match first.flatten() {
            Some(i) => self.start_container(p, i, t + self.startup_ms),
            None => self.start_regulars(p, t + self.startup_ms),
        }
    }

    pub(super) fn start_regulars(&mut self, p: usize, t: u64) {
        let Some(tmpl) = self.pods.get(p).map(|x| x.tmpl) else {
            return;
        };
        let count = self.templates.get(tmpl).map_or(0, |tm| tm.kinds.len());
        for i in 0..count {
            if self.templates.get(tmpl).and_then(|tm| tm.kinds.get(i)) == Some(&Kind::Regular) {
                self.start_container(p, i, t);
            }
        }
    }

    pub(super) fn start_container(&mut self, p: usize, c: usize, t: u64) {
        let Some(pod) = self.pods.get_mut(p) else {
            return;
        };
        let epoch = pod.epoch;
        if let Some(ct) = pod.containers.get_mut(c) {
            ct.pending_start = true;
        }
        self.schedule(t, Ev::Start { pod: p, c, epoch });
    }

    pub(super) fn on_start(&mut self, p: usize, c: usize, epoch: u32) {
        let now = self.now;
        let Some(pod) = self.pods.get_mut(p) else {
            return;
        };
        // The kubelet starts nothing in a Pod that is being deleted.
        if !pod.alive || pod.epoch != epoch || pod.deleting {
            return;
        }
        pod.phase = "Running";
        let tmpl = pod.tmpl;
        let Some(ct) = pod.containers.get_mut(c) else {
            return;
        };
        ct.running = true;
        ct.pending_start = false;
        ct.epoch += 1;
        let restarted = std::mem::take(&mut ct.restarting);
        if restarted {
            ct.restart_count += 1;
            self.summary.in_place_restarts += 1;
        }
        let cgen = ct.epoch;
        // A restart shows in the Pod's status (restartCount): the Job controller syncs, and a
        // restartPolicy OnFailure Job checks its restarts against backoffLimit.
        let job = pod.job;
        if restarted
            && let Some(j) = job
            && self.templates.get(tmpl).is_some_and(|t| t.on_failure)
        {
            self.enqueue_job_sync(j, now);
        }
        let kind = self
            .templates
            .get(tmpl)
            .and_then(|t| t.kinds.get(c))
            .copied()
            .unwrap_or(Kind::Regular);
        self.record(Obj::Pod(p), Some((tmpl, c)), "Started", "Started", || None);
        if let Some(j) = job {
            self.pod_status_changed(j);
        }
        // The scripted exit for this run, if any. Containers without scripts (the common case
        // in fault-driven runs) skip the cursor table; nothing is cloned on this hot path.
        let (_, job_index, pod_index) = self.pod_identity(p);
        let mut scheduled = None;
        let candidates: &[usize] = self
            .scripts
            .get(tmpl)
            .and_then(|s| s.get(c))
            .map_or(&[], Vec::as_slice);
        if !candidates.is_empty() {
            let key = (tmpl, job_index, pod_index, c);
            let (mut pos, mut used) = self.cursors.get(&key).copied().unwrap_or((0, 0));
            let rj = self
                .templates
                .get(tmpl)
                .and_then(|t| t.replicated_job.as_deref());
            while let Some(&ei) = candidates.get(pos) {
                let Some(e) = self.sc.exits.get(ei) else {
                    break;
                };
                if !matches(&e.selector(), rj, job_index, pod_index, None) {
                    pos += 1;
                    used = 0;
                    continue;
                }
                if e.times.is_some_and(|n| used >= n) {
                    pos += 1;
                    used = 0;
                    continue;
                }
                used += 1;
                let reason = match e.reason.as_deref() {
                    Some("OOMKilled") => 2,
                    Some("Completed") => 1,
                    _ if e.exit_code == 0 => 1,
                    _ => 0,
                };
                scheduled = Some((
                    crate::simulate::scenario::secs_to_ms(e.after_seconds).unwrap_or(0),
                    e.exit_code,
                    reason,
                    e.node_failure,
                ));
                break;
            }
            self.cursors.insert(key, (pos, used));
        }
        match (scheduled, kind) {
            (Some((after, _, _, true)), _) => {
                let pgen = self.pods.get(p).map_or(0, |x| x.epoch);
                self.schedule(now + after, Ev::NodeLost { pod: p, pgen });
            }
            (Some((after, code, reason, false)), _) => self.schedule(
                now + after,
                Ev::Exit {
                    pod: p,
                    c,
                    epoch: cgen,
                    code,
                    reason,
                },
            ),
            // An init container with no script completes at once; a sidecar keeps running and
            // lets the next init container start.
            (None, Kind::Init) => self.schedule(
                now,
                Ev::Exit {
                    pod: p,
                    c,
                    epoch: cgen,
                    code: 0,
                    reason: 1,
                },
            ),
            (None, Kind::Sidecar) => self.advance_init(p, c, now),
            (None, Kind::Regular) => {}
        }
        if kind == Kind::Sidecar && scheduled.is_some() {
            self.advance_init(p, c, now);
        }
    }

    /// After init container `c` completed (or sidecar `c` started), start the next one.
    pub(super) fn advance_init(&mut self, p: usize, c: usize, t: u64) {
        let kinds = match self.pods.get(p).and_then(|x| self.templates.get(x.tmpl)) {
            Some(tm) => tm.kinds.clone(),
            None => return,
        };
        let next = kinds
            .iter()
            .enumerate()
            .skip(c + 1)
            .find(|(_, k)| **k != Kind::Regular)
            .map(|(i, _)| i);
        match next {
            Some(i) => self.start_container(p, i, t + self.startup_ms),
            None => self.start_regulars(p, t + self.startup_ms),
        }
    }

    pub(super) fn on_exit(
        &mut self,
        p: usize,
        c: usize,
        epoch: u32,
        code: i32,
        reason: u8,
    ) -> Result<(), Diagnostic> {
        let exits = self.summary.container_exits;
        match self.future_action(p, c, epoch, code, reason) {
            Some(action) => self.on_exit_future(p, c, epoch, code, reason, action)?,
            None => self.on_exit_decided(p, c, epoch, code, reason, None, false)?,
        }
        // A container stopped in a Pod that goes on (a terminal Pod has its own sync; an exit
        // of a container already gone changed nothing).
        if self.summary.container_exits > exits
            && let Some(j) = self.pods.get(p).filter(|x| x.alive).and_then(|x| x.job)
        {
            self.pod_status_changed(j);
        }
        Ok(())
    }

    pub fn set_always_pod(&mut self, sandbox_ms: u64) {
        self.always_pod = Some(AlwaysPod { sandbox_ms });
    }

    /// Proposal AlwaysPod: where Always would restart container `c`, the whole Pod restarts —
    /// after the container's CrashLoopBackOff delay (the restart it replaces), plus the sandbox's
    /// recreation when the sandbox is recreated; init containers run again.
    pub(super) fn restart_pod_always_pod(
        &mut self,
        p: usize,
        c: usize,
        tmpl: usize,
        ap: AlwaysPod,
    ) -> Result<(), Diagnostic> {
        let now = self.now;
        let delay = self.backoff_delay(p, c, now);
        self.summary.whole_pod_restarts += 1;
        let how = if ap.sandbox_ms > 0 {
            format!(", sandbox recreated ({}s)", ap.sandbox_ms as f64 / 1000.0)
        } else {
            ", sandbox reused".to_owned()
        };
        self.record(Obj::Pod(p), Some((tmpl, c)), "RestartPod", "AlwaysPod", || {
            Some(format!("restartPolicy AlwaysPod (proposal): the whole Pod restarts, init containers first{how}; back-off {}s", delay as f64 / 1000.0))
        });
        if let Some(pod) = self.pods.get_mut(p) {
            pod.epoch += 1;
            for ct in pod.containers.iter_mut() {
                ct.restarting = ct.running || ct.last_exit.is_some();
                ct.running = false;
                ct.pending_start = false;
            }
        }
        let start_at = now + delay + ap.sandbox_ms;
        self.summary.time_lost_seconds += ((start_at + self.startup_ms)
            .min(self.end_ms)
            .saturating_sub(now)) as f64
            / 1000.0;
        self.start_pod_sequence(p, start_at);
        Ok(())
    }

    /// Proposal RestartRulesFuture: the decision of the container's rules for this exit, when
    /// the proposal decides this container.
    pub(super) fn future_action(
        &self,
        p: usize,
        c: usize,
        epoch: u32,
        code: i32,
        reason: u8,
    ) -> Option<KubeletDecisionOrFuture> {
        let pod = self.pods.get(p)?;
        let ct = pod.containers.get(c)?;
        if !pod.alive || !ct.running || ct.epoch != epoch {
            return None;
        }
        let (fc, pod_policy) = self.templates.get(pod.tmpl)?.future.get(c)?.as_ref()?;
        let exit = crate::proposals::rules::Exit {
            code,
            restart_count: i64::from(ct.restart_count),
            oom_killed: REASONS.get(reason as usize).copied() == Some("OOMKilled"),
        };
        Some(
            match crate::proposals::rules::first_match(fc, exit).map(|(_, a)| a) {
                Some(crate::proposals::rules::ACTION_RESTART) => {
                    KubeletDecisionOrFuture::Decision(KubeletDecision::Restart)
                }
                Some(
                    crate::proposals::rules::ACTION_RESTART_POD
                    | crate::proposals::rules::ACTION_RESTART_ALL,
                ) => KubeletDecisionOrFuture::Decision(KubeletDecision::RestartAllContainers),
                Some(crate::proposals::rules::ACTION_COMPLETE) => KubeletDecisionOrFuture::Complete,
                Some(crate::proposals::rules::ACTION_TERMINATE_POD) => {
                    KubeletDecisionOrFuture::TerminatePod
                }
                // No rule matched: the container's restartPolicy, or the Pod's when it has none.
                _ => {
                    let policy = fc
                        .restart_policy
                        .as_deref()
                        .or(pod_policy.as_deref())
                        .unwrap_or("Always");
                    let restart = policy == "Always" || (policy == "OnFailure" && code != 0);
                    KubeletDecisionOrFuture::Decision(if restart {
                        KubeletDecision::Restart
                    } else {
                        KubeletDecision::DoNotRestart
                    })
                }
            },
        )
    }

    pub(super) fn on_exit_future(
        &mut self,
        p: usize,
        c: usize,
        epoch: u32,
        code: i32,
        reason: u8,
        action: KubeletDecisionOrFuture,
    ) -> Result<(), Diagnostic> {
        match action {
            KubeletDecisionOrFuture::Decision(d) => {
                self.on_exit_decided(p, c, epoch, code, reason, Some(d), false)
            }
            // Complete: the exit counts as a success (an init container lets the next one start).
            KubeletDecisionOrFuture::Complete => self.on_exit_decided(
                p,
                c,
                epoch,
                code,
                reason,
                Some(KubeletDecision::DoNotRestart),
                true,
            ),
            KubeletDecisionOrFuture::TerminatePod => {
                let tmpl = self.pods.get(p).map(|x| x.tmpl).unwrap_or(0);
                if let Some(ct) = self.pods.get_mut(p).and_then(|x| x.containers.get_mut(c)) {
                    ct.running = false;
                    ct.last_exit = Some(code);
                }
                self.summary.container_exits += 1;
                let reason_s = REASONS.get(reason as usize).copied().unwrap_or("Error");
                self.record(Obj::Pod(p), Some((tmpl, c)), "Terminated", reason_s, || {
                    Some(format!("exit code {code}"))
                });
                self.record(Obj::Pod(p), Some((tmpl, c)), "RuleAction", "TerminatePod", || {
                    Some("a TerminatePod rule matched (proposal RestartRulesFuture): every container is killed and the Pod fails".into())
                });
                self.pod_terminal(p, "Failed", Some("TerminatePod"))
            }
        }
    }

    /// `completed`: a Complete rule (proposal RestartRulesFuture) matched, and the exit counts
    /// as exit 0 from here on.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn on_exit_decided(
        &mut self,
        p: usize,
        c: usize,
        epoch: u32,
        code: i32,
        reason: u8,
        decided: Option<KubeletDecision>,
        completed: bool,
    ) -> Result<(), Diagnostic> {
        let now = self.now;
        let Some(pod) = self.pods.get_mut(p) else {
            return Ok(());
        };
        if !pod.alive {
            return Ok(());
        }
        let tmpl = pod.tmpl;
        let Some(ct) = pod.containers.get_mut(c) else {
            return Ok(());
        };
        if !ct.running || ct.epoch != epoch {
            return Ok(());
        }
        ct.running = false;
        ct.last_exit = Some(code);
        self.summary.container_exits += 1;
        let (name, kind) = match self.templates.get(tmpl) {
            // The name only feeds timeline messages: a full timeline skips the copy.
            Some(t) => (
                if self.timeline.len() < self.max_timeline {
                    t.names.get(c).cloned().unwrap_or_default()
                } else {
                    String::new()
                },
                t.kinds.get(c).copied().unwrap_or(Kind::Regular),
            ),
            None => return Ok(()),
        };
        let reason_s = REASONS.get(reason as usize).copied().unwrap_or("Error");
        self.record(Obj::Pod(p), Some((tmpl, c)), "Terminated", reason_s, || {
            Some(format!("exit code {code}"))
        });
        let code = if completed {
            self.record(Obj::Pod(p), Some((tmpl, c)), "RuleAction", "Complete", || {
                Some("a Complete rule matched (proposal RestartRulesFuture): the container counts as succeeded".into())
            });
            if let Some(ct) = self.pods.get_mut(p).and_then(|x| x.containers.get_mut(c)) {
                ct.last_exit = Some(0);
            }
            0
        } else {
            code
        };
        let decided_always_pod = self.always_pod;
        let mut decision = match decided {
            Some(d) => d,
            None => self
                .templates
                .get(tmpl)
                .and_then(|t| t.policies.get(c))
                .map(|pol| pol.decide(code))
                .unwrap_or(KubeletDecision::DoNotRestart),
        };
        // An init container that succeeded is done whatever the Pod's restartPolicy (the
        // kubelet's computeInitContainerActions restarts only a failed one): without this, a
        // Pod with restartPolicy Always re-ran its succeeded init container for ever.
        if kind == Kind::Init && code == 0 && decision == KubeletDecision::Restart {
            decision = KubeletDecision::DoNotRestart;
        }
        if kind == Kind::Sidecar && decision == KubeletDecision::DoNotRestart {
            decision = KubeletDecision::Restart; // sidecars are always restarted
        }
        // The kubelet restarts nothing in a Pod being deleted: it ends when its containers have.
        if self.pods.get(p).is_some_and(|x| x.deleting) {
            decision = KubeletDecision::DoNotRestart;
        }
        if let (Some(ap), KubeletDecision::Restart) = (decided_always_pod, decision) {
            return self.restart_pod_always_pod(p, c, tmpl, ap);
        }
        match decision {
            KubeletDecision::Restart => {
                let delay = self.backoff_delay(p, c, now);
                let start_at = now + delay;
                if let Some(ct) = self.pods.get_mut(p).and_then(|x| x.containers.get_mut(c)) {
                    ct.restarting = true;
                }
                let resume = (start_at + self.startup_ms).min(self.end_ms);
                self.summary.time_lost_seconds += resume.saturating_sub(now) as f64 / 1000.0;
                if delay > 0 {
                    self.record(
                        Obj::Pod(p),
                        Some((tmpl, c)),
                        "BackOff",
                        "CrashLoopBackOff",
                        || {
                            Some(format!(
                                "back-off {}s restarting failed container={name}",
                                delay as f64 / 1000.0
                            ))
                        },
                    );
                }
                self.start_container(p, c, start_at + self.startup_ms);
            }
            KubeletDecision::RestartAllContainers => {
                self.summary.whole_pod_restarts += 1;
                self.record(Obj::Pod(p), Some((tmpl, c)), "RestartAllContainers", "AllContainersRestarting", || {
                    Some("a RestartAllContainers rule matched: every container restarts, init containers first".into())
                });
                if let Some(pod) = self.pods.get_mut(p) {
                    pod.epoch += 1;
                    for ct in pod.containers.iter_mut() {
                        ct.restarting = ct.running || ct.last_exit.is_some();
                        ct.running = false;
                        ct.pending_start = false;
                    }
                }
                self.summary.time_lost_seconds += self.startup_ms as f64 / 1000.0;
                self.start_pod_sequence(p, now);
            }
            KubeletDecision::DoNotRestart => match kind {
                Kind::Init if code == 0 => self.advance_init(p, c, now),
                Kind::Init => self.pod_terminal(p, "Failed", Some("InitContainerFailed"))?,
                _ => {
                    let done = self
                        .pods
                        .get(p)
                        .zip(self.templates.get(tmpl))
                        .map(|(pod, t)| {
                            pod.containers
                                .iter()
                                .zip(&t.kinds)
                                .filter(|(_, k)| **k == Kind::Regular)
                                .all(|(ct, _)| !ct.running && !ct.pending_start)
                        })
                        .unwrap_or(false);
                    if done {
                        let all_zero = self
                            .pods
                            .get(p)
                            .zip(self.templates.get(tmpl))
                            .map(|(pod, t)| {
                                pod.containers
                                    .iter()
                                    .zip(&t.kinds)
                                    .filter(|(_, k)| **k == Kind::Regular)
                                    .all(|(ct, _)| ct.last_exit == Some(0))
                            })
                            .unwrap_or(false);
                        self.pod_terminal(p, if all_zero { "Succeeded" } else { "Failed" }, None)?;
                    }
                }
            },
        }
        Ok(())
    }

    /// The kubelet's CrashLoopBackOff: the first restart (and the first after a run of more than
    /// 600 s) is immediate; then initial, doubling, capped at max. Updates the entry as
    /// flowcontrol.Backoff.Next does at the moment of the restart decision.
    pub(super) fn backoff_delay(&mut self, p: usize, c: usize, finished: u64) -> u64 {
        let (initial, max) = (self.initial_ms, self.max_ms);
        let Some(ct) = self.pods.get_mut(p).and_then(|x| x.containers.get_mut(c)) else {
            return 0;
        };
        match ct.backoff {
            Some((b, last)) if finished.saturating_sub(last) <= RESET_AFTER_RUN_MS => {
                let restart_at = finished + b;
                ct.backoff = Some(((b.saturating_mul(2)).min(max), restart_at));
                b
            }
            _ => {
                ct.backoff = Some((initial, finished));
                0
            }
        }
    }

    pub(super) fn kill_pod(&mut self, p: usize) {
        self.set_working(p, false);
        if let Some(pod) = self.pods.get_mut(p) {
            pod.alive = false;
            pod.epoch += 1;
            for ct in pod.containers.iter_mut() {
                ct.running = false;
                ct.pending_start = false;
            }
        }
    }

    /// The Pod's Ready condition after a container started or stopped: `unready_since` keeps
    /// when it last turned False (the finish time the Job controller reads for a Pod that
    /// never ends on its own, on a lost node).
    pub(super) fn track_readiness(&mut self, p: usize) {
        let now = self.now;
        let ready = self
            .pods
            .get(p)
            .is_some_and(|x| x.alive && self.pod_ready(x));
        let on_live_node = self.pods.get(p).is_some_and(|x| x.node.is_none());
        self.set_working(p, ready && on_live_node);
        if let Some(pod) = self.pods.get_mut(p) {
            match (ready, pod.unready_since) {
                (true, Some(_)) => pod.unready_since = None,
                (false, None) => pod.unready_since = Some(now),
                _ => {}
            }
        }
    }

    /// Pod `p` starts or stops running ready on a live node: the time during which every slot
    /// of the workload has such a Pod is what a synchronous job (every worker needed) gets done.
    pub(super) fn set_working(&mut self, p: usize, working: bool) {
        let Some(pod) = self.pods.get_mut(p) else {
            return;
        };
        if pod.working == working {
            return;
        }
        pod.working = working;
        let was_all = self.slots > 0 && self.working == self.slots;
        if working {
            self.working += 1;
        } else {
            self.working = self.working.saturating_sub(1);
        }
        let is_all = self.slots > 0 && self.working == self.slots;
        match (was_all, is_all) {
            (false, true) => self.all_working_since = Some(self.now),
            (true, false) => {
                if let Some(since) = self.all_working_since.take() {
                    self.all_working_ms += self.now.min(self.end_ms).saturating_sub(since);
                }
            }
            _ => {}
        }
    }
}
